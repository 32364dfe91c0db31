/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/image_io.h: reading images (PNG, JPEG, PNM, BMP) as RGBA8, and writing PNG or JPEG
 * atomically: a temporary name in the target's folder, then rename(), so a failure or a signal
 * never leaves half a file. The codecs are png.c, jpeg.c, pnm.c and bmp.c on codec_common.c
 * (see codec.h); image_printable is in text.c.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_IMAGE_IO_H
#define FV_IMAGE_IO_H

#include "filter.h"

/* Where decoded pixels go: batch hands in pinned (page-locked) buffers for the GPU's copies.
 * NULL everywhere means malloc/free. */
typedef struct image_allocator {
    uint8_t *(*alloc)(void *context, size_t bytes); /* NULL: out of memory */
    void (*release)(void *context, uint8_t *data);
    void *context;
} image_allocator;

/* "-": standard input for image_load, standard output for image_save. */
#define IMAGE_STDIO "-"
int image_is_stdio(const char *path);

/* Loads `path` (or standard input, read to its end, for "-") into a new host image (free with fv_host_image_free). Checks the file, the
 * dimensions and what the file can hold before decoding; applies a JPEG's EXIF orientation.
 * Every failure returns a status with a one-line message without control characters. */
fv_status image_load(const char *path, fv_image *out);
/* The same into storage from `a` (released through `a` on failure; the caller releases it
 * through `a` after use). */
fv_status image_load_with(const char *path, const image_allocator *a, fv_image *out);

/* image_load for small inputs (conv's kernel file): an image larger than max_width x max_height
 * is refused as soon as its header is read, before anything is decoded (a 32 KB PNG may claim
 * 16384x16384), and after decoding once more as shown, EXIF orientation applied. Both sides >= 1. */
fv_status image_load_limited(const char *path, int max_width, int max_height, fv_image *out);

#define IMAGE_PNG_LEVEL_DEFAULT    1 /* zlib level: 1 is fast, 9 is small */
#define IMAGE_JPEG_QUALITY_DEFAULT 90

typedef enum image_format {
    IMAGE_FORMAT_BY_NAME, /* JPEG for .jpg/.jpeg, else PNG (standard output: PNG) */
    IMAGE_FORMAT_PNG,
    IMAGE_FORMAT_JPEG
} image_format;

typedef struct image_save_options {
    int png_level;       /* 0..9; -1: IMAGE_PNG_LEVEL_DEFAULT */
    int jpeg_quality;    /* 1..100; 0: IMAGE_JPEG_QUALITY_DEFAULT */
    int threads;         /* PNG strips deflated at once; 0: every online CPU */
    image_format format; /* what standard output gets; a file's name must agree (the CLI checks) */
} image_save_options;

#define IMAGE_SAVE_DEFAULTS ((image_save_options){.png_level = -1, .jpeg_quality = 0, .threads = 0})

/* Checks that `path` ends in .png, .jpg or .jpeg, is no directory, read-only file or link to
 * nothing, and lies in a writable folder, without writing anything. */
fv_status image_check_output_path(const char *path);

/* Writes img to `path` (PNG, or JPEG for .jpg/.jpeg) through a temporary file and rename();
 * "-" writes to standard output as it encodes (opt->format, PNG by default).
 * A symbolic link is written through (its target is replaced); a read-only target is refused;
 * a replaced file keeps its permissions and, where permitted, its owner and group; a hard link
 * to it keeps the old content (the name gets a new file). */
fv_status image_save(const char *path, const fv_image *img, const image_save_options *opt);
/* image_save with the defaults (screenshots, charts) */
fv_status image_save_png(const char *path, const fv_image *img);

/* The temporary file behind image_save, exposed for tests: created next to the final target
 * with a name within NAME_MAX, removed while it exists by every signal that ends the process
 * without a fault (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, real-time
 * signals ...), each then re-raised with its default action. From the first one on, SIGPIPE and
 * SIGXFSZ are ignored (where nobody handles them): such writes fail with a message instead. */
typedef struct image_temp {
    int fd;
    int slot;          /* in the signal handler's table; -1: none */
    char path[4096];   /* the temporary file */
    char target[4096]; /* what rename() replaces (a link's target, resolved) */
} image_temp;

fv_status image_temp_open(const char *path, image_temp *t);
/* Installs those handlers now (image_temp_open does it on first use): a caller that adds its own
 * handler in front of them (the folder batch erasing its progress line) installs them first. */
void image_temp_signals_init(void);
/* Closes and renames over the target; removes the temporary file if that fails. */
fv_status image_temp_commit(image_temp *t, const char *path);
void image_temp_discard(image_temp *t);

/* Copies `text` into buf with control characters and invalid UTF-8 written as \xNN, so that a
 * file name or a library message cannot reach the terminal raw. A text that does not fit loses
 * its middle ("/very/long/...ending.png"), never its end. */
void image_printable(const char *text, char *buf, size_t size);

/* The room a file name gets in a message (IMAGE_NAME_SHOWN bytes with its NUL): two of them and
 * the reason fit in one library message (fv_fail keeps 511 bytes). */
#define IMAGE_NAME_SHOWN 200

#endif
