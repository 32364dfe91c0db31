/* ------------------------------------------------------------------------------------------------
 * tests/test_jpeg.h: JPEG files the C tests make for themselves (test_image_io, jpeg_gpu_check):
 * an image encoded by TurboJPEG, and a JPEG with an EXIF orientation inserted after its SOI.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_TEST_JPEG_H
#define FV_TEST_JPEG_H

#include "filter.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

/* img (pixel format pf) encoded at `quality` with sampling `samp` and TurboJPEG's `flags`; the
 * bytes are the caller's to free (none, size 0, when TurboJPEG refuses: said on stdout). */
static inline uint8_t *test_jpeg_encode(const fv_image *img, int pf, int samp, int quality,
                                        int flags, size_t *size)
{
    tjhandle tj = tjInitCompress();
    unsigned char *buf = NULL;
    unsigned long len = 0;
    if (tjCompress2(tj, img->data, img->width, (int)img->pitch, img->height, pf, &buf, &len, samp,
                    quality, flags) != 0) {
        printf("tjCompress2: %s\n", tjGetErrorStr2(tj));
        len = 0;
    }
    tjDestroy(tj);
    uint8_t *copy = malloc(len ? len : 1);
    if (len) memcpy(copy, buf, len);
    tjFree(buf);
    *size = len;
    return copy;
}

/* jpeg with an APP1 EXIF segment of `orientation` (little- or big-endian TIFF) after its SOI */
static inline uint8_t *test_jpeg_with_exif(const uint8_t *jpeg, size_t n, int orientation,
                                           int little, size_t *size)
{
    uint8_t app[2 + 2 + 6 + 8 + 2 + 12 + 4];
    size_t k = 0;
    app[k++] = 0xff;
    app[k++] = 0xe1;
    app[k++] = 0;
    app[k++] = (uint8_t)(sizeof app - 2);
    memcpy(app + k, "Exif\0\0", 6);
    k += 6;
    const uint8_t tiff_le[8] = {'I', 'I', 42, 0, 8, 0, 0, 0},
                  tiff_be[8] = {'M', 'M', 0, 42, 0, 0, 0, 8};
    memcpy(app + k, little ? tiff_le : tiff_be, 8);
    k += 8;
#define P16(v)                                                                                     \
    (little ? (app[k] = (uint8_t)(v), app[k + 1] = (uint8_t)((v) >> 8))                            \
            : (app[k] = (uint8_t)((v) >> 8), app[k + 1] = (uint8_t)(v))),                          \
        k += 2
    P16(1);
    P16(0x0112);
    P16(3);
    if (little) { /* count: 1 as 32 bits */
        P16(1);
        P16(0);
    } else {
        P16(0);
        P16(1);
    }
    P16(orientation);
    P16(0);
    memset(app + k, 0, 4); /* next IFD: none */
    k += 4;
#undef P16
    uint8_t *out = malloc(n + k);
    memcpy(out, jpeg, 2);
    memcpy(out + 2, app, k);
    memcpy(out + 2 + k, jpeg + 2, n - 2);
    *size = n + k;
    return out;
}

#endif
