/* ------------------------------------------------------------------------------------------------
 * kernels/core/common.c: what every part of the library shares and that needs no GPU: the last-error
 * message, dimension checks, host images, host image comparison and random images.
 * Built into the CPU-only library too, so that the references are tested where there is no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "filter.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[512];

fv_status fv_fail(fv_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

const char *fv_last_error(void)
{
    return last_error[0] ? last_error : "no error";
}

const char *fv_status_name(fv_status status)
{
    static const char *const names[] = {"ok",
                                        "bad argument",
                                        "i/o error",
                                        "bad image data",
                                        "bad image size",
                                        "no CUDA device",
                                        "out of memory",
                                        "CUDA error",
                                        "OpenGL error",
                                        "not supported"};
    return (unsigned)status < sizeof names / sizeof names[0] ? names[status] : "unknown status";
}

fv_status fv_check_dimensions(int width, int height)
{
    if (width <= 0 || height <= 0)
        return fv_fail(FV_ERR_SIZE, "image size %dx%d: width and height must be at least 1", width,
                       height);
    if (width > FV_MAX_DIMENSION || height > FV_MAX_DIMENSION ||
        (size_t)width * (size_t)height > FV_MAX_PIXELS)
        return fv_fail(FV_ERR_SIZE,
                       "image size %dx%d is too large (at most %d per side and %zu "
                       "Mpixels)",
                       width, height, FV_MAX_DIMENSION, FV_MAX_PIXELS >> 20);
    return FV_OK;
}

fv_status fv_host_image_alloc(fv_image *img, int width, int height)
{
    memset(img, 0, sizeof *img);
    fv_status st = fv_check_dimensions(width, height);
    if (st != FV_OK) return st;
    size_t pitch = (size_t)width * 4;
    img->data = malloc(pitch * (size_t)height);
    if (!img->data)
        return fv_fail(FV_ERR_MEMORY, "out of host memory for a %dx%d image", width, height);
    img->width = width;
    img->height = height;
    img->pitch = pitch;
    img->memory = FV_MEMORY_HOST;
    return FV_OK;
}

void fv_host_image_free(fv_image *img)
{
    free(img->data);
    memset(img, 0, sizeof *img);
}

void fv_diff_host(const fv_image *a, const fv_image *b, fv_diff_stats *out)
{
    long long sum = 0, differing = 0;
    int max_abs = 0;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *pa = a->data + (size_t)y * a->pitch, *pb = b->data + (size_t)y * b->pitch;
        for (int i = 0; i < 4 * a->width; i += 4) {
            int m = 0;
            for (int c = 0; c < 4; c++) {
                int d = pa[i + c] > pb[i + c] ? pa[i + c] - pb[i + c] : pb[i + c] - pa[i + c];
                sum += d;
                if (d > m) m = d;
            }
            differing += m != 0;
            if (m > max_abs) max_abs = m;
        }
    }
    out->max_abs = max_abs;
    out->mean_abs = a->width && a->height ? (double)sum / (4.0 * a->width * a->height) : 0.0;
    out->n_differing = differing;
}

fv_status fv_iterate(fv_pass_fn pass, void *context, const fv_image *src, fv_image *dst,
                     fv_image *ping, int iterations)
{
    if (iterations > 1 &&
        (!ping || !ping->data || ping->width != src->width || ping->height != src->height))
        return fv_fail(FV_ERR_ARG, "%d iterations need an iteration buffer of the image's size",
                       iterations);
    /* Pass i writes dst when (iterations - 1 - i) is even, so the last pass lands in dst. */
    const fv_image *in = src;
    fv_image *out = ((iterations - 1) % 2 == 0) ? dst : ping;
    fv_image *other = (out == dst) ? ping : dst;
    for (int i = 0; i < iterations; i++) {
        FV_TRY(pass(context, in, out));
        in = out;
        out = other;
        other = (fv_image *)in;
    }
    return FV_OK;
}

int fv_tolerance_holds(const fv_tolerance *t, const fv_diff_stats *d, long long n_pixels)
{
    double share = n_pixels > 0 ? (double)d->n_differing / (double)n_pixels : 0.0;
    /* a share above 0 allows one pixel at least: on a 1x7 image one pixel is 14 % */
    return d->max_abs <= t->max_abs &&
           (share <= t->max_share || (t->max_share > 0 && d->n_differing <= 1));
}

void fv_image_fill_random(fv_image *img, unsigned seed)
{
    uint32_t s = seed * 2654435761u + 1u; /* xorshift32, never seeded with 0 */
    if (!s) s = 1;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = img->data + (size_t)y * img->pitch;
        for (int x = 0; x < img->width; x++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            memcpy(row + 4 * (size_t)x, &s, 4);
        }
    }
}
