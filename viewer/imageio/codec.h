/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/codec.h: the image codecs behind image_io.c, each working on a file already in memory.
 *
 *   PNG   in: libspng (1..16-bit, gray, gray+alpha, palette, RGB, RGBA, interlaced, tRNS);
 *             iCCP, eXIf, tEXt/zTXt/iTXt kept
 *         out: our own writer on zlib: rows filtered, strips deflated in parallel (as pigz does);
 *             8- or 16-bit gray, RGB, RGBA; iCCP, eXIf, tEXt/iTXt
 *   JPEG  in: libjpeg-turbo (libjpeg API: any sampling factors), EXIF orientation applied,
 *             CMYK/YCCK converted; scans and memory bounded; lossless, hierarchical and 12-bit
 *             files refused by name; ICC (APP2) and EXIF (APP1) kept
 *         out: libjpeg-turbo (TurboJPEG API): gray or RGB; ICC and EXIF markers
 *   PNM   in: our own reader (P2, P3, P5, P6; 8- and 16-bit, samples kept as stored natively)
 *         out: P5 (gray) or P6 (RGB), maxval 255 or 65535 (or the input's)
 *   BMP   in: our own reader (imageio/bmp.c: OS/2 and Windows headers, palettes, bit fields;
 *         no compression, no pixel index past the palette)
 *   TIFF  in/out: libtiff (tiff.c): 8/16-bit unsigned and 32-bit float, gray/RGB/RGBA, strips
 *             and tiles, contiguous or separate planes, any compression libtiff decodes; the ICC
 *             profile kept; out: deflate with a predictor or none, strips or tiles
 *
 * Every decoder checks the dimensions (codec_check_claim: the caller's limit included) and what
 * the file can hold before it allocates or decodes anything, and reports failures through fv_fail
 * with `name` (already made printable) and no bytes of the file. Checked by
 * tests/cpu/test_image_io.c (content of every kind, truncations, lying headers) and
 * tests/cpu/test_image_io_typed.c (every type and channel count, files of other writers).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CODEC_H
#define FV_CODEC_H

#include "image_io.h"

/* Pixels any file may claim whatever its size: a small image never needs a big file. */
#define CODEC_SMALL_PIXELS ((size_t)1 << 22)

/* Dimensions against FV_MAX_* and the caller's limit (image_load_limited), and the pixels
 * claimed against what `file_bytes` can hold at `pixels_per_byte`; `format` names the header in
 * the message ("PNG header says ..."). Every decoder calls it as soon as it has the header. */
fv_status codec_check_claim(const char *name, const char *format, long width, long height,
                            size_t file_bytes, double pixels_per_byte);
/* The limit codec_check_claim applies on this thread (0, 0: none): set by image_load_limited
 * around one load. Either way round, as a header's size comes before EXIF orientation. */
void codec_set_limit(int max_width, int max_height);
/* RGBA8 storage for a width x height image through the allocator (malloc when NULL). */
fv_status codec_alloc_image(const image_allocator *a, int width, int height, fv_image *out);
/* The same for any type and channel count, rows packed. */
fv_status codec_alloc_image_as(const image_allocator *a, int width, int height, fv_pixel_type type,
                               int channels, fv_image *out);
void codec_free_image(const image_allocator *a, fv_image *img);
/* A malloc'd copy of n bytes (NULL with a message when out of memory). */
uint8_t *codec_dup(const char *name, const void *data, size_t n);
/* Fills the info's file description (NULL info: nothing). */
void codec_describe(image_load_info *info, const char *format, fv_pixel_type type, int channels,
                    int bits);

/* What a decoder makes: the file's own type and channels, or RGBA8 (image_load). */
typedef enum codec_want { CODEC_RGBA8, CODEC_NATIVE } codec_want;

/* Each decoder fills `info` (NULL: not wanted) with what the file holds and its metadata. */
fv_status codec_png_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, codec_want want, fv_image *out,
                           image_load_info *info);
fv_status codec_jpeg_decode(const char *name, const uint8_t *data, size_t size,
                            const image_allocator *a, codec_want want, fv_image *out,
                            image_load_info *info);
fv_status codec_pnm_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, codec_want want, fv_image *out,
                           image_load_info *info);
fv_status codec_bmp_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, codec_want want, fv_image *out,
                           image_load_info *info);
/* Native only: image_io.c converts for image_load. */
fv_status codec_tiff_decode(const char *name, const uint8_t *data, size_t size,
                            const image_allocator *a, fv_image *out, image_load_info *info);

/* Which JPEG files the GPU codec (nvJPEG, jpeg_gpu.cu) may decode, judged from the header alone
 * so that a file it cannot decode goes to the CPU codec before any GPU work. */
typedef enum codec_jpeg_gpu_fit {
    CODEC_JPEG_CPU_ONLY = 0, /* not for the GPU codec: arithmetic coding, CMYK/YCCK, 12-bit,
                                unusual sampling or components; the CPU codec decodes it or says
                                why it cannot */
    CODEC_JPEG_GPU_HYBRID,   /* progressive, extended, several scans, 4:1:1, 4:1:0: nvJPEG's
                                hybrid decoder, not the hardware one */
    CODEC_JPEG_GPU_ANY       /* baseline, one scan, 4:4:4/4:2:2/4:2:0/4:4:0 or gray: the
                                hardware decoder too */
} codec_jpeg_gpu_fit;

typedef struct codec_jpeg_header {
    codec_jpeg_gpu_fit fit;
    const char *why;   /* static text: why not the hardware decoder or not the GPU; NULL: ANY */
    int width, height; /* the frame's, as stored (before orientation) */
    int components;
    int orientation; /* EXIF 1..8 */
} codec_jpeg_header;

/* Reads a JPEG's markers into `h` and applies the CPU reader's limits (size, pixels a byte,
 * scans: the same messages), failing where the CPU codec would before decoding; a frame the CPU
 * codec refuses by name is CODEC_JPEG_CPU_ONLY, for it to say so. `info` (NULL: not wanted) gets
 * what codec_jpeg_decode would give it: the description, EXIF (upright) and ICC. */
fv_status codec_jpeg_inspect(const char *name, const uint8_t *data, size_t size,
                             codec_jpeg_header *h, image_load_info *info);
/* The frame's size as stored, from the markers of a JPEG's first `size` bytes (a file's head
 * will do); 0 where no frame header is among them. */
int codec_jpeg_frame_size(const uint8_t *data, size_t size, int *width, int *height);
/* Writes an encoder's JPEG stream to fd with the metadata's markers (EXIF, ICC) after its APP0. */
fv_status codec_jpeg_write_stream(const char *name, int fd, const uint8_t *jpeg, size_t len,
                                  const image_metadata *meta);

/* Encoders write the whole file to fd; `name` is for messages. Each takes the layouts it can
 * hold (image_io.c converts first): PNG uint8/uint16 with 1, 3 or 4 channels; JPEG uint8 with 1,
 * 3 or 4 (alpha dropped); PNM uint8/uint16 with 1 or 3; TIFF any. `meta` may be NULL. */
fv_status codec_png_encode(const char *name, int fd, const fv_image *img, int level, int threads,
                           const image_metadata *meta);
fv_status codec_jpeg_encode(const char *name, int fd, const fv_image *img, int quality,
                            const image_metadata *meta);
fv_status codec_pnm_encode(const char *name, int fd, const fv_image *img, unsigned maxval);
fv_status codec_tiff_encode(const char *name, int fd, const fv_image *img,
                            image_tiff_compression compression, int tile,
                            const image_metadata *meta);

/* Writes all of buf to fd (retrying short writes); on failure sets a message and fails. */
fv_status codec_write_all(const char *name, int fd, const void *buf, size_t n);

#endif
