/* ------------------------------------------------------------------------------------------------
 * kernels/core/common.c: what every part of the library shares and that needs no GPU: the last-error
 * message, dimension checks, host images, host image comparison and random images.
 * Built into the CPU-only library too, so that the references are tested where there is no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "filter.h"

#include <limits.h>
#include <math.h>
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

const char *fv_pixel_type_name(fv_pixel_type t)
{
    static const char *const names[FV_PIXEL_TYPE_COUNT] = {"uint8", "uint16", "float32"};
    return (unsigned)t < FV_PIXEL_TYPE_COUNT ? names[t] : NULL;
}

size_t fv_pixel_type_bytes(fv_pixel_type t)
{
    static const size_t bytes[FV_PIXEL_TYPE_COUNT] = {1, 2, 4};
    return (unsigned)t < FV_PIXEL_TYPE_COUNT ? bytes[t] : 1;
}

int fv_pixel_type_parse(const char *name)
{
    static const struct {
        const char *name;
        fv_pixel_type type;
    } names[] = {{"uint8", FV_PIXEL_U8},    {"u8", FV_PIXEL_U8},   {"8", FV_PIXEL_U8},
                 {"uint16", FV_PIXEL_U16},  {"u16", FV_PIXEL_U16}, {"16", FV_PIXEL_U16},
                 {"float32", FV_PIXEL_F32}, {"f32", FV_PIXEL_F32}, {"float", FV_PIXEL_F32},
                 {"32", FV_PIXEL_F32}};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0) return (int)names[i].type;
    return -1;
}

double fv_pixel_type_max(fv_pixel_type t)
{
    return t == FV_PIXEL_U8 ? 255.0 : t == FV_PIXEL_U16 ? 65535.0 : 1.0;
}

const char *const fv_border_names[FV_BORDER_COUNT] = {"replicate", "reflect", "mirror", "constant",
                                                      "wrap"};

fv_status fv_host_image_alloc_as(fv_image *img, int width, int height, fv_pixel_type type,
                                 int channels)
{
    memset(img, 0, sizeof *img);
    fv_status st = fv_check_dimensions(width, height);
    if (st != FV_OK) return st;
    if ((unsigned)type >= FV_PIXEL_TYPE_COUNT || (channels != 1 && channels != 3 && channels != 4))
        return fv_fail(FV_ERR_ARG, "image of type %d with %d channels: no such layout", (int)type,
                       channels);
    size_t pitch = (size_t)width * (size_t)channels * fv_pixel_type_bytes(type);
    img->data = malloc(pitch * (size_t)height);
    if (!img->data)
        return fv_fail(FV_ERR_MEMORY, "out of host memory for a %dx%d image", width, height);
    img->width = width;
    img->height = height;
    img->pitch = pitch;
    img->memory = FV_MEMORY_HOST;
    img->type = type;
    img->channels = channels;
    return FV_OK;
}

fv_status fv_host_image_alloc(fv_image *img, int width, int height)
{
    return fv_host_image_alloc_as(img, width, height, FV_PIXEL_U8, 4);
}

void fv_host_image_free(fv_image *img)
{
    free(img->data);
    memset(img, 0, sizeof *img);
}

/* One channel of a row as a double (uint8, uint16 or float32). */
static double channel_value(const uint8_t *row, size_t i, fv_pixel_type type)
{
    switch (type) {
    case FV_PIXEL_U16: {
        uint16_t v;
        memcpy(&v, row + 2 * i, 2);
        return v;
    }
    case FV_PIXEL_F32: {
        float v;
        memcpy(&v, row + 4 * i, 4);
        return v;
    }
    case FV_PIXEL_U8:
    default: return row[i];
    }
}

/* |a - b| where NaN equals NaN and an infinity equals itself; a NaN against anything else, or
 * infinities of different sign, are infinitely apart. */
static double channel_distance(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0.0 : INFINITY;
    if (isinf(a) || isinf(b)) return a == b ? 0.0 : INFINITY;
    return fabs(a - b);
}

void fv_diff_host(const fv_image *a, const fv_image *b, fv_diff_stats *out)
{
    const int channels = fv_image_channels(a);
    double sum = 0, max_value = 0;
    long long differing = 0;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *pa = a->data + (size_t)y * a->pitch, *pb = b->data + (size_t)y * b->pitch;
        for (size_t x = 0; x < (size_t)a->width; x++) {
            double m = 0;
            for (int c = 0; c < channels; c++) {
                const size_t i = x * (size_t)channels + (size_t)c;
                double d =
                    channel_distance(channel_value(pa, i, a->type), channel_value(pb, i, b->type));
                sum += d;
                if (d > m) m = d;
            }
            differing += m != 0;
            if (m > max_value) max_value = m;
        }
    }
    const double n = (double)channels * a->width * a->height;
    out->max_abs_value = max_value;
    out->max_abs = max_value > INT_MAX ? INT_MAX : (int)ceil(max_value);
    out->mean_abs = n > 0 ? sum / n : 0.0;
    out->n_differing = differing;
    out->type = a->type;
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

int fv_tolerance_int_bound(const fv_tolerance *t, fv_pixel_type type)
{
    return type == FV_PIXEL_U16 && t->u16_abs > 0 ? t->u16_abs : t->max_abs;
}

int fv_tolerance_holds(const fv_tolerance *t, const fv_diff_stats *d, long long n_pixels)
{
    double share = n_pixels > 0 ? (double)d->n_differing / (double)n_pixels : 0.0;
    /* a share above 0 allows one pixel at least: on a 1x7 image one pixel is 14 % */
    const int share_holds = share <= t->max_share || (t->max_share > 0 && d->n_differing <= 1);
    /* float32 images are held to float_abs (where a filter states one), integer ones to max_abs */
    const int size_holds = d->type == FV_PIXEL_F32 && t->float_abs > 0
                               ? d->max_abs_value <= t->float_abs
                               : d->max_abs <= fv_tolerance_int_bound(t, d->type);
    return size_holds && share_holds;
}

void fv_image_fill_random(fv_image *img, unsigned seed)
{
    uint32_t s = seed * 2654435761u + 1u; /* xorshift32, never seeded with 0 */
    if (!s) s = 1;
    const size_t channels = (size_t)fv_image_channels(img);
    if (img->type == FV_PIXEL_U8 && channels == 4) { /* RGBA8: one draw a pixel, as always */
        for (int y = 0; y < img->height; y++) {
            uint8_t *row = img->data + (size_t)y * img->pitch;
            for (int x = 0; x < img->width; x++) {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                memcpy(row + 4 * (size_t)x, &s, 4);
            }
        }
        return;
    }
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = img->data + (size_t)y * img->pitch;
        for (size_t i = 0; i < (size_t)img->width * channels; i++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            switch (img->type) {
            case FV_PIXEL_U16: {
                const uint16_t v = (uint16_t)(s >> 16);
                memcpy(row + 2 * i, &v, 2);
                break;
            }
            case FV_PIXEL_F32: {
                const float v = (float)(s >> 8) * (1.0f / 16777216.0f); /* 0..1, 24 bits */
                memcpy(row + 4 * i, &v, 4);
                break;
            }
            case FV_PIXEL_U8:
            default: row[i] = (uint8_t)(s >> 24); break;
            }
        }
    }
}
