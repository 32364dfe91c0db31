/* ------------------------------------------------------------------------------------------------
 * viewer/window/display.c: how an image of any pixel type reaches the screen, and what two images
 * differ by. The display transform (tev's exposure and offset over an automatic range: the
 * image's 0.1 and 99.9 percentiles, found once at load from a histogram of R, G and B), its
 * uniforms for shaders/image.frag, and the PSNR of two files. Plain C on host images: the floor of
 * window/ with view.c and pipeline.c, calling nothing else of window/.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERCENTILE_BINS 65536 /* uint16's own values; float32: bins between its min and max */

const char *display_colormap_name(display_colormap c)
{
    static const char *const names[COLORMAP_COUNT] = {NULL, "viridis", "turbo"};
    return c >= 0 && c < COLORMAP_COUNT ? names[c] : NULL;
}

/* What GL samples for a value v of the type is v / units: uint8 and uint16 are normalised (v /
 * max), float32 is read as it is. */
static double units_per_stored(fv_pixel_type type)
{
    return type == FV_PIXEL_F32 ? 1.0 : fv_pixel_type_max(type);
}

void display_scale_bias(const display_map *d, fv_pixel_type type, float *scale, float *bias)
{
    const double units = units_per_stored(type);
    const double span = (d->hi - d->lo) / units; /* the range, as GL samples it: 1 for uint8 */
    const double s = exp2(d->exposure) / (span > 0 ? span : 1.0);
    *scale = (float)s;
    *bias = (float)(-(d->lo / units) * s + d->offset);
}

double display_value_at(const display_map *d, double t)
{
    return d->lo + (t - d->offset) * (d->hi - d->lo) / exp2(d->exposure);
}

static double channel_value(const fv_image *img, int x, int y, int c)
{
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    const size_t i = (size_t)x * 4 + (size_t)c;
    switch (img->type) {
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
    default: return row[i];
    }
}

int display_pixel(const fv_image *img, int x, int y, double value[4])
{
    if (!img->data || x < 0 || y < 0 || x >= img->width || y >= img->height) return 0;
    for (int c = 0; c < 4; c++) value[c] = channel_value(img, x, y, c);
    return 1;
}

/* The value below which a share q of the histogram's counts lies (bin b stands for
 * lo + b * width). */
static double histogram_quantile(const unsigned long long *bins, unsigned long long total, double q,
                                 double lo, double width)
{
    const unsigned long long want = (unsigned long long)(q * (double)total);
    unsigned long long seen = 0;
    for (int b = 0; b < PERCENTILE_BINS; b++) {
        seen += bins[b];
        if (seen > want) return lo + b * width;
    }
    return lo + (PERCENTILE_BINS - 1) * width;
}

fv_status display_auto_range(const fv_image *const *images, int n, double *lo, double *hi)
{
    const fv_pixel_type type = images[0]->type;
    if (type == FV_PIXEL_U8) { /* shown as it always was: 0 .. 255 */
        *lo = 0;
        *hi = 255;
        return FV_OK;
    }
    double min = INFINITY, max = -INFINITY;
    if (type == FV_PIXEL_U16) {
        min = 0;
        max = PERCENTILE_BINS - 1;
    } else {
        for (int i = 0; i < n; i++)
            for (int y = 0; y < images[i]->height; y++)
                for (int x = 0; x < images[i]->width; x++)
                    for (int c = 0; c < 3; c++) {
                        const double v = channel_value(images[i], x, y, c);
                        if (!isfinite(v)) continue;
                        min = v < min ? v : min;
                        max = v > max ? v : max;
                    }
        if (!(min <= max)) { /* nothing finite: the float display range */
            *lo = 0;
            *hi = 1;
            return FV_OK;
        }
    }
    unsigned long long *bins = calloc(PERCENTILE_BINS, sizeof *bins), total = 0;
    if (!bins) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    const double width = max > min ? (max - min) / (PERCENTILE_BINS - 1) : 1;
    for (int i = 0; i < n; i++)
        for (int y = 0; y < images[i]->height; y++)
            for (int x = 0; x < images[i]->width; x++)
                for (int c = 0; c < 3; c++) {
                    const double v = channel_value(images[i], x, y, c);
                    if (!isfinite(v)) continue;
                    bins[(int)((v - min) / width + 0.5)]++;
                    total++;
                }
    *lo = histogram_quantile(bins, total, DISPLAY_LOW_PERCENTILE / 100, min, width);
    *hi = histogram_quantile(bins, total, DISPLAY_HIGH_PERCENTILE / 100, min, width);
    free(bins);
    if (*hi <= *lo) /* a flat image: a range of one step (uint16) or of the value's size */
        *hi = *lo + (type == FV_PIXEL_U16 ? 1 : (fabs(*lo) > 0 ? fabs(*lo) : 1));
    return FV_OK;
}

fv_status display_psnr(const fv_image *a, const fv_image *b, double *mse, double *psnr)
{
    if (a->width != b->width || a->height != b->height || a->type != b->type)
        return fv_fail(FV_ERR_ARG, "PSNR: the images differ in size or type");
    double sum = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < 3; c++) {
                const double d = channel_value(a, x, y, c) - channel_value(b, x, y, c);
                sum += d * d;
            }
    const double n = 3.0 * a->width * a->height;
    const double peak = fv_pixel_type_max(a->type);
    *mse = n > 0 ? sum / n : 0;
    *psnr = *mse > 0 ? 10 * log10(peak * peak / *mse) : INFINITY;
    return FV_OK;
}
