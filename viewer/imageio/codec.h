/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/codec.h: the image codecs behind image_io.c, each working on a file already in memory.
 *
 *   PNG   in: libspng (8/16-bit, gray, gray+alpha, palette, RGB, RGBA, interlaced, tRNS)
 *         out: our own writer on zlib: rows filtered, strips deflated in parallel (as pigz does)
 *   JPEG  in: libjpeg-turbo (libjpeg API: any sampling factors), EXIF orientation applied,
 *             CMYK/YCCK converted; scans and memory bounded; lossless, hierarchical and 12-bit
 *             files refused by name
 *         out: libjpeg-turbo (TurboJPEG API)
 *   PNM   in: our own reader (P2, P3, P5, P6; 8- and 16-bit)
 *   BMP   in: our own reader (imageio/bmp.c: OS/2 and Windows headers, palettes, bit fields;
 *         no compression, no pixel index past the palette)
 *
 * Every decoder checks the dimensions (codec_check_claim: the caller's limit included) and what
 * the file can hold before it allocates or decodes anything, and reports failures through fv_fail
 * with `name` (already made printable) and no bytes of the file. Checked by tests/cpu/test_image_io.c (content of every kind, truncations, lying headers).
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
void codec_free_image(const image_allocator *a, fv_image *img);

fv_status codec_png_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, fv_image *out);
fv_status codec_jpeg_decode(const char *name, const uint8_t *data, size_t size,
                            const image_allocator *a, fv_image *out);
fv_status codec_pnm_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, fv_image *out);
fv_status codec_bmp_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, fv_image *out);

/* Encoders write the whole file to fd; `name` is for messages. */
fv_status codec_png_encode(const char *name, int fd, const fv_image *img, int level, int threads);
fv_status codec_jpeg_encode(const char *name, int fd, const fv_image *img, int quality);

/* Writes all of buf to fd (retrying short writes); on failure sets a message and fails. */
fv_status codec_write_all(const char *name, int fd, const void *buf, size_t n);

#endif
