/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/image_io.h: reading images (PNG, JPEG, PNM, BMP, TIFF) with their own pixel type
 * and channels (image_load_native) or as RGBA8 (image_load), and writing PNG, JPEG, PNM or TIFF
 * atomically: a temporary name in the target's folder, then rename(), so a failure or a signal
 * never leaves half a file. The codecs are png.c, jpeg.c, pnm.c, bmp.c and tiff.c on
 * codec_common.c (see codec.h for what each keeps); conversions between types and channel counts
 * are in image_convert.c; image_printable is in text.c.
 *
 * What each format keeps (native load; save of an image of that type):
 *   format  read as                                   written from
 *   PNG     uint8 or uint16; gray 1, RGB 3, RGBA 4    uint8 -> 8-bit, uint16 -> 16-bit,
 *           (gray+alpha, palette with tRNS: RGBA)      float32 -> 16-bit (lossy, said)
 *   PNM     uint8 (maxval <= 255) or uint16: the       uint8 -> maxval 255, uint16 -> 65535 (or the
 *           samples as stored, 0..maxval (recorded);   input's maxval), float32 -> 65535 (lossy);
 *           gray 1, colour 3                           P5 gray, P6 colour (alpha dropped: said)
 *   TIFF    uint8, uint16, float32; 1, 3, 4 channels  every type and channel count exactly
 *   JPEG    uint8; gray 1, else RGB 3                  uint8 gray or RGB (16-bit, float32, alpha:
 *                                                      lossy, said)
 *   BMP     uint8; RGB 3, RGBA 4 (an alpha mask)       not written
 * A conversion that loses information is never silent: the load and the save report it in one
 * line (image_load_info.lossy_note, image_save_report.note) for the caller to print.
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

/* A PNG text chunk: tEXt and zTXt are Latin-1, iTXt UTF-8 (utf8 set); written back as tEXt or
 * iTXt, uncompressed. */
typedef struct image_text {
    char keyword[80]; /* 1..79 bytes and a NUL */
    char *text;       /* `length` bytes and a NUL */
    size_t length;
    int utf8;
} image_text;

/* What a file holds beside its pixels, carried to the output where its format can hold it:
 *   ICC profile  PNG iCCP, JPEG APP2 (ICC_PROFILE chunks), TIFF tag 34675: read and written
 *   EXIF         PNG eXIf, JPEG APP1: read and written (a JPEG's orientation, applied at load,
 *                is set to 1 in the copy, so that no reader turns the image twice); TIFF: not
 *                carried (its EXIF is an IFD of its own)
 *   text         PNG tEXt, zTXt, iTXt: read and written to PNG (other formats drop them)
 * Everything NULL/0 when absent; free with image_metadata_free. */
typedef struct image_metadata {
    uint8_t *icc;
    size_t icc_size;
    char icc_name[80]; /* PNG iCCP's profile name ("ICC profile" when none is known) */
    uint8_t *exif;     /* a TIFF-structured block ("II*\0" or "MM\0*"), no "Exif\0\0" */
    size_t exif_size;
    image_text *texts;
    int n_texts;
    unsigned pnm_maxval; /* a PNM input's maxval (its samples are kept as stored); 0 otherwise */
} image_metadata;

void image_metadata_free(image_metadata *m);
/* A deep copy of src into dst (empty on failure, with a message). */
fv_status image_metadata_copy(image_metadata *dst, const image_metadata *src);

/* What a load found, filled when the caller passes one (NULL: not wanted). */
typedef struct image_load_info {
    const char *format;      /* "PNG", "JPEG", "PNM", "BMP", "TIFF" */
    fv_pixel_type file_type; /* what the file's samples are (uint8 for 1..8 bits) */
    int file_channels;       /* as read natively: 1, 3 or 4 */
    int file_bits;           /* bits per sample in the file: 1..16, 32 (PNM: those of maxval) */
    int lossy_to_8bit;       /* image_load's RGBA8 kept less than the file holds: lossy_note says */
    char lossy_note[320];    /* one line for the user ("'a.png': 16-bit PNG read as 8-bit ..."),
                                empty when nothing was lost */
    image_metadata metadata; /* the caller frees it (image_metadata_free) */
} image_load_info;

/* Loads `path` (or standard input, read to its end, for "-") with the file's own pixel type and
 * channels (the table above), rows packed: gray stays 1 channel, 16-bit stays uint16 (host byte
 * order), TIFF float stays float32. Storage from `a` (NULL: malloc; free with fv_host_image_free
 * or through `a`). `info` may be NULL; when given, its metadata is the caller's to free. Checks
 * as image_load; applies a JPEG's EXIF orientation. */
fv_status image_load_native(const char *path, const image_allocator *a, fv_image *out,
                            image_load_info *info);

/* Reads `path` (or standard input, to its end, for "-") whole into a malloc'd buffer, with the
 * limits and messages of the loaders; image_load_native_bytes then decodes it as
 * image_load_native would have decoded `path` (whose name the messages give). */
fv_status image_read_file(const char *path, uint8_t **data, size_t *size);
/* image_read_file into storage from `a` (the folder batch's reused, page-locked buffers). */
fv_status image_read_file_to(const char *path, const image_allocator *a, uint8_t **data,
                             size_t *size);
fv_status image_load_native_bytes(const char *path, const uint8_t *data, size_t size,
                                  const image_allocator *a, fv_image *out, image_load_info *info);

/* Loads `path` (or standard input, read to its end, for "-") into a new RGBA8 host image (free
 * with fv_host_image_free). Checks the file, the dimensions and what the file can hold before
 * decoding; applies a JPEG's EXIF orientation. Every failure returns a status with a one-line
 * message without control characters. A file of more than 8 bits a sample is cut to 8 (16-bit
 * PNG: its high byte; PNM: scaled from maxval, rounded; 16-bit and float TIFF: as
 * image_convert): image_load_rgba8 says so in info->lossy_note. */
fv_status image_load(const char *path, fv_image *out);
fv_status image_load_rgba8(const char *path, const image_allocator *a, fv_image *out,
                           image_load_info *info);
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
    IMAGE_FORMAT_BY_NAME, /* JPEG for .jpg/.jpeg, PNM for .pgm/.ppm/.pnm, TIFF for .tif/.tiff,
                             else PNG (standard output: PNG) */
    IMAGE_FORMAT_PNG,
    IMAGE_FORMAT_JPEG,
    IMAGE_FORMAT_PNM,
    IMAGE_FORMAT_TIFF
} image_format;

typedef enum image_tiff_compression {
    IMAGE_TIFF_DEFLATE = 0, /* with the horizontal (integer) or floating-point predictor */
    IMAGE_TIFF_NONE
} image_tiff_compression;

typedef struct image_save_options {
    int png_level;       /* 0..9; -1: IMAGE_PNG_LEVEL_DEFAULT */
    int jpeg_quality;    /* 1..100; 0: IMAGE_JPEG_QUALITY_DEFAULT */
    int threads;         /* PNG strips deflated at once; 0: every online CPU */
    image_format format; /* what standard output gets; a file's name must agree (the CLI checks) */
    image_tiff_compression tiff_compression;
    int tiff_tile;                  /* > 0: TIFF written in square tiles of this side (a multiple
                                      of 16); 0: in strips */
    const image_metadata *metadata; /* carried into the file where its format allows; NULL: none */
} image_save_options;

#define IMAGE_SAVE_DEFAULTS ((image_save_options){.png_level = -1, .jpeg_quality = 0, .threads = 0})

/* What a save wrote, and what it could not keep. */
typedef struct image_save_report {
    const char *format;      /* "PNG", "JPEG", "PNM", "TIFF" */
    fv_pixel_type file_type; /* the samples written */
    int file_channels;       /* 1, 3 or 4 */
    int lossy;               /* the file holds less than the image: `note` says what */
    char note[320];          /* one line for the user, empty when nothing was lost */
} image_save_report;

/* The format `path` names (IMAGE_FORMAT_BY_NAME resolved; standard output: opt_format or PNG). */
image_format image_format_of(const char *path, image_format opt_format);
/* "PNG", "JPEG", "PNM", "TIFF". */
const char *image_format_name(image_format f);

/* Checks that `path` ends in .png, .jpg, .jpeg, .pgm, .ppm, .pnm, .tif or .tiff, is no directory,
 * read-only file or link to nothing, and lies in a writable folder, without writing anything. */
fv_status image_check_output_path(const char *path);

/* Writes img (any type and channel count) to `path` by its ending (image_format_of) through a
 * temporary file and rename(); "-" writes to standard output as it encodes (opt->format, PNG by
 * default). What each format keeps is the table above; a conversion that loses information
 * (16-bit or float32 to JPEG or 8-bit, float32 to PNG or PNM, alpha to JPEG or PNM) is done as
 * image_convert does and said in report->note (the caller prints it). A PNG of an RGBA image
 * whose every alpha is opaque is written as RGB (nothing is lost).
 * A symbolic link is written through (its target is replaced); a read-only target is refused;
 * a replaced file keeps its permissions and, where permitted, its owner and group; a hard link
 * to it keeps the old content (the name gets a new file). */
fv_status image_save_as(const char *path, const fv_image *img, const image_save_options *opt,
                        image_save_report *report);
/* image_save_as without the report (today's callers: RGBA8 images, where only JPEG's dropped
 * alpha is lost, as it always was). */
fv_status image_save(const char *path, const fv_image *img, const image_save_options *opt);

/* ---- conversions (image_convert.c) ----
 * Types: uint8 -> uint16 is v * 257 (exact); uint16 -> uint8 rounds v / 257 half up; integers to
 * float32 are v / max (255 or 65535), so 0..1; float32 to an integer type clamps to 0..1 and
 * rounds x * max half up (NaN: 0). Channels: gray to RGB repeats it; a missing alpha is opaque
 * (the type's max, 1.0 for float); RGBA to RGB drops alpha; colour to gray is ITU-R BT.601 luma
 * (0.299 R + 0.587 G + 0.114 B, as OpenCV and Pillow), rounded half up, exact when R = G = B. */
typedef struct image_convert_loss {
    int depth;  /* values were rounded or clamped (a narrower type, or float to integer) */
    int alpha;  /* an alpha that was not opaque everywhere was dropped */
    int colour; /* colour (R, G, B not all equal) was made gray */
} image_convert_loss;

/* src (host, any layout) to a new host image of `type` and `channels` from `a` (NULL: malloc);
 * loss (may be NULL) says what was lost. */
fv_status image_convert(const fv_image *src, fv_pixel_type type, int channels,
                        const image_allocator *a, fv_image *dst, image_convert_loss *loss);
/* image_save with the defaults (screenshots, charts) */
fv_status image_save_png(const char *path, const fv_image *img);

/* Writes `path` (standard output for "-") as image_save does, atomically, through an encoder of
 * the caller's: write(context, name, fd) puts the whole file on fd, `name` for its messages. */
typedef fv_status (*image_writer)(void *context, const char *name, int fd);
fv_status image_save_encoded(const char *path, image_writer write, void *context);

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
