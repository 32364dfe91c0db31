/* ------------------------------------------------------------------------------------------------
 * viewer/cli/cli.h: the command line, parsed strictly into one options struct by cli.c's table of
 * flags (which also gives --help and which mode takes which flag). Every malformed flag or number
 * is rejected with one line naming the flag and what it expects.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CLI_H
#define FV_CLI_H

#include "filter.h"
#include "image_io.h"
#include "noise.h"

typedef enum cli_mode {
    CLI_MODE_VIEW,    /* default: the viewer (or batch output with -o) */
    CLI_MODE_BATCH,   /* -o FILE */
    CLI_MODE_COMPARE, /* --compare A B */
    CLI_MODE_LIST,    /* --list */
    CLI_MODE_BENCH,   /* --bench */
    CLI_MODE_INFO,    /* --info */
    /* --help-man, --completion bash: the man page and the shell completion (cli_docs.c) */
    CLI_MODE_HELP_MAN,
    CLI_MODE_COMPLETION,
    CLI_MODE_HELP,      /* --help */
    CLI_MODE_HELP_KEYS, /* --help-keys: the viewer's key table as markdown */
    CLI_MODE_VERSION,   /* --version */
    CLI_MODE_CONTRACT   /* --contract: the header a user kernel of -f's filter includes */
} cli_mode;

/* "-": standard input as an input, standard output as -o's file. */
#define CLI_STDIO "-"
int cli_is_stdio(const char *path);

#define CLI_MAX_SIZES 32
/* --window: a side's most. OpenGL's own limits (GL_MAX_VIEWPORT_DIMS, GL_MAX_RENDERBUFFER_SIZE)
 * are 16384 on Mesa and 32768 on NVIDIA; a 32768x32768 framebuffer alone is 4 GiB */
#define CLI_MAX_WINDOW 16384

/* How the viewer's CUDA output reaches OpenGL (--interop). */
typedef enum fv_interop_path {
    FV_INTEROP_BUFFER,  /* kernels write registered GL buffers; the shader samples them as buffer
                           textures: no copy at all (default) */
    FV_INTEROP_TEXTURE, /* kernels write a device buffer, copied into the registered 2D texture */
    FV_INTEROP_PBO,     /* the classic way: kernels write the PBO, GL copies it into the texture */
    FV_INTEROP_STAGING  /* no interop: device -> host -> the GL buffers, as when registration is
                           refused (to compare, or to get round a broken driver) */
} fv_interop_path;

/* Who decodes and encodes JPEG files in a batch (--codec). */
typedef enum cli_codec {
    CLI_CODEC_AUTO = 0, /* the GPU's where this build has nvJPEG, a device is there and the
                           variant runs on the GPU; else the CPU's (default) */
    CLI_CODEC_CPU,      /* libjpeg-turbo */
    CLI_CODEC_GPU       /* nvJPEG; the files it cannot decode go to the CPU's */
} cli_codec;

/* What a pane (-a, -b) or a --compare side shows: a filter's variant, the user's own kernel
 * (FILTER:user=FILE), or the original. */
typedef struct pane_spec {
    const fv_filter *filter;
    const fv_variant *variant; /* NULL: the original, or a user kernel not yet compiled */
    const char *user_file;     /* user=FILE: the kernel's source (kernels/user/), else NULL */
} pane_spec;

/* "user=FILE" names the user's own kernel wherever a variant name is taken (-v, -a, -b,
 * --compare): the FILE part, or NULL for any other name. */
const char *cli_user_file(const char *variant_name);

#define CLI_MAX_SWEEP      64
#define CLI_MAX_SWEEP_TEXT 4096 /* the list's characters: a longer one is refused, not cut */
#define CLI_MAX_INPUTS     4096 /* files on one command line; a folder holds any number */
#define CLI_MAX_THREADS    64   /* --threads: the folder batch's workers and PNG strips */

typedef struct cli_options {
    cli_mode mode;
    const char *input;       /* image path (the first of inputs) */
    const char *input_b;     /* the viewer's second file (filterview a.png b.tif), else NULL */
    const char *output;      /* -o PNG or JPEG path, or a folder (output_is_dir) */
    const char *kernel_file; /* --kernel-file: conv's `file` kernel, a grayscale image */
    /* batch: every input given (files and folders), written into the folder -o names */
    int n_inputs;
    const char *inputs[CLI_MAX_INPUTS];
    int output_is_dir;         /* -o DIR/, or an existing folder with several inputs or a folder */
    const char *format;        /* --format png|jpeg|tiff|pnm: -o -'s format (NULL: PNG) */
    int depth;                 /* --depth 8|16|float: 1 + the output's fv_pixel_type; 0: the
                                  input's type */
    int quiet;                 /* --quiet: no progress, no "wrote" lines (errors still said) */
    int threads;               /* --threads N: CPU threads of a batch (0: one per core) */
    int stats;                 /* --stats: a folder batch's time per stage in its summary */
    int tile;                  /* --tile N: filter -o's image in N x N tiles (0: whole, or tiles
                                  where it does not fit in the GPU) */
    int recursive;             /* --recursive: a folder's subfolders too, mirrored under -o */
    int in_place;              /* --in-place: an output may replace an input (else refused) */
    const char *dask;          /* --dask ADDRESS: a folder batch's files on a Dask cluster */
    int png_level;             /* --png-level 0..9 (-1: the default) */
    int jpeg_quality;          /* --jpeg-quality 1..100 (0: the default) */
    cli_codec codec;           /* --codec cpu|gpu|auto */
    fv_noise noise;            /* --noise, --noise-sigma, --noise-seed: on the source */
    const char *save_source;   /* --save-source: write the source the filter sees (-o) */
    const fv_filter *filter;   /* -f (default gaussian) */
    const fv_variant *variant; /* -v (default fast); a user kernel's once a mode compiled it */
    const char *user_file;     /* -v user=FILE: the user's kernel source, else NULL */
    int filter_given, variant_given;
    pane_spec pane[2]; /* -a / -b */
    int pane_given[2];
    pane_spec compare[2];             /* --compare A B */
    fv_params params[FV_MAX_FILTERS]; /* per filter (fv_filters order): defaults + what was given */
    /* --bench: one parameter may be given a list of values to sweep (-p radius=1,2,4) */
    const char *sweep_name;
    int n_sweep;
    const char *sweep_text[CLI_MAX_SWEEP];
    int n_sizes;
    int sizes[CLI_MAX_SIZES][2];
    const char *csv;
    const char *bench_image; /* --image: the bench's photo, resized to each size (else random) */
    const char *chart;       /* --chart: the bench table as a PNG chart */
    int runs;
    unsigned seed;
    int verbose; /* --list --verbose: kernel resources */
    /* viewer */
    int headless;
    fv_interop_path interop; /* --interop: how CUDA output reaches GL (default buffer) */
    const char *keys;        /* replayed through the key handler, one per frame */
    int frames;              /* 0: interactive (window) or as many as the keys need */
    const char *screenshot;  /* written after the last frame */
    int bench_frames;        /* frames to time (kernel vs the rest) */
    int window_w, window_h;  /* --window (or --size WxH) */
    int random_w, random_h;  /* --random: a random image instead of a file */
    /* storage for the sweep's name and comma-separated values */
    char sweep_name_storage[64];
    char sweep_storage[CLI_MAX_SWEEP_TEXT];
} cli_options;

/* The parameters of filter f as given on the command line. */
const fv_params *cli_params(const cli_options *o, const fv_filter *f);

/* Parses argv into o. On a bad command line prints one line to stderr and returns 0. */
int cli_parse(int argc, char **argv, cli_options *o);
void cli_print_help(void);
/* The usage lines alone, on standard error (no arguments at all). */
void cli_print_usage(void);
void cli_print_version(void);

/* Whether `output` is the same file as `input` (device and inode, through links): both must
 * exist; "-" is the regular file the shell redirected to standard output (output) or standard
 * input (input), and never the same as anything when it is a pipe or a terminal. */
int cli_same_file(const char *output, const char *input);

/* `text` (a file name, a flag's value) as a message quotes it: control characters and invalid
 * UTF-8 as \xNN, and the middle of a long one left out ("/very/long/...ending.png") so that the
 * message keeps its reason. Valid until the fourth call after it on the same thread. */
const char *cli_shown(const char *text);
/* The same, whole: a name on standard output ("wrote NAME"). */
const char *cli_escaped(const char *text);
/* Prints "filterview: MESSAGE" as one line on stderr with control characters as \xNN: every
 * message of the program, the library's (fv_last_error()) included, goes through it. */
/* --format as the codecs name it: IMAGE_FORMAT_BY_NAME where none was given. */
image_format cli_format(const cli_options *o);

void cli_error(const char *format, ...) __attribute__((format(printf, 1, 2)));
void cli_print_list(int verbose);

/* ---- the flag table read row by row, and what cli_docs.c makes of it with the registry ---- */

#include <stdio.h>

/* What follows a flag, as the shell completion offers it. */
typedef enum cli_value {
    CLI_VALUE_NONE,
    CLI_VALUE_WORD,    /* a number, a size, a key sequence: nothing to offer */
    CLI_VALUE_FILTER,  /* a filter name */
    CLI_VALUE_VARIANT, /* a variant of the filter given (-f), or of any */
    CLI_VALUE_PARAM,   /* -p NAME=VALUE */
    CLI_VALUE_PANE,    /* VARIANT, FILTER:VARIANT or 'original' */
    CLI_VALUE_SPEC,    /* VARIANT or FILTER:VARIANT (--compare: two of them) */
    CLI_VALUE_CHOICE,  /* one of `choices` */
    CLI_VALUE_IMAGE,   /* an image file that is read */
    CLI_VALUE_FILE     /* a file that is written: `endings`, or any name */
} cli_value;

typedef struct cli_flag_doc {
    const char *names[3]; /* the spellings (NULL-terminated); none: a --help line only */
    const char *label;    /* "-f, --filter NAME"; NULL: no --help line of its own */
    const char *help;     /* a printf format given FV_MAX_ITERATIONS; '\n' between lines */
    int section;          /* --help's: 1 options, 2 viewer, 0 none */
    cli_value value;
    int n_values;        /* words that follow the flag */
    const char *choices; /* CLI_VALUE_CHOICE: the words, space-separated */
    const char *endings; /* CLI_VALUE_FILE: ".png .jpg", NULL for any */
} cli_flag_doc;

/* Row `row` of cli.c's flag table into out; 0 past the last row. */
int cli_flag_doc_get(int row, cli_flag_doc *out);

/* --help-man: the man page filterview(1) as roff, from the flag table, the registry and the
 * viewer's key table (labels and help, n_keys rows), so that it says what --help says. */
void cli_print_man(FILE *out, const char *const *key_labels, const char *const *key_helps,
                   int n_keys);
/* --completion bash: a bash completion script whose options, filters, variants, parameters and
 * choices come from the same tables. */
void cli_print_completion(FILE *out);

#endif
