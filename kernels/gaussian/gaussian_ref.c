/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_ref.c: CPU reference of the Gaussian blur, for uint8, uint16 and float32
 * RGBA and every border (kernels/core/border.h), alpha passed through. Integer weights from the
 * typed configuration made at prepare (gaussian_taps.c); columns first, then rows, so it equals
 * the direct 2-D sum of w[i] * w[j] * pixel (checked against a brute-force 2-D sum in tests/cpu/test_ref.c, and against
 * scipy.ndimage.gaussian_filter's correlate1d with the same weights by tests/cpu/gaussian_scipy.py).
 *
 * One code path for the three types: every value is read as a double and the sums are kept in
 * double. For the integer types that is exact (the 2-D sum S of w[i] * w[j] * pixel is an integer
 * below 2^32) and the output is floor((S + 32768) / 65536), i.e. (S + 32768) >> 16 as the 8-bit
 * path has always rounded; for float32 the output is S / 65536 rounded once to float. The
 * constant border reads cval (as a float for float32 images, as the kernels do).
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "gaussian_taps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Channel c of pixel x of a row, as a double, whatever the type. */
static double channel_get(const uint8_t *row, fv_pixel_type type, int x, int c)
{
    switch (type) {
    case FV_PIXEL_U16: return ((const uint16_t *)row)[4 * x + c];
    case FV_PIXEL_F32: return ((const float *)row)[4 * x + c];
    default: return row[4 * x + c];
    }
}

/* Stores a channel from its 2-D sum (weights summing to 65536): integers round half up. */
static void channel_put_sum(uint8_t *row, fv_pixel_type type, int x, int c, double sum)
{
    switch (type) {
    case FV_PIXEL_U16:
        ((uint16_t *)row)[4 * x + c] = (uint16_t)floor((sum + 32768.0) / 65536.0);
        break;
    case FV_PIXEL_F32: ((float *)row)[4 * x + c] = (float)(sum / 65536.0); break;
    default: row[4 * x + c] = (uint8_t)floor((sum + 32768.0) / 65536.0); break;
    }
}

/* Alpha, copied in the image's own type. */
static void alpha_copy(uint8_t *dst_row, const uint8_t *src_row, fv_pixel_type type, int x)
{
    const size_t bytes = fv_pixel_type_bytes(type);
    memcpy(dst_row + (4 * (size_t)x + 3) * bytes, src_row + (4 * (size_t)x + 3) * bytes, bytes);
}

fv_status gaussian_ref(const fv_image *src, fv_image *dst, const void *config)
{
    const gaussian_config *c = config;
    const fv_gaussian_taps t = c->taps;
    const fv_border border = c->border;
    const fv_pixel_type type = src->type;
    /* the value a float32 kernel holds: cval rounded to float once */
    const double cval = type == FV_PIXEL_F32 ? (double)(float)c->cval : c->cval;
    const int r = t.radius, w = src->width, h = src->height;
    double *column_sums = malloc(sizeof(double) * 3 * (size_t)w);
    if (!column_sums)
        return fv_fail(FV_ERR_MEMORY, "gaussian: out of host memory for %d columns", w);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            double s[3] = {0, 0, 0};
            for (int i = -r; i <= r; i++) {
                const int yy = fv_border_index(y + i, h, border);
                const uint8_t *row = yy < 0 ? NULL : src->data + (size_t)yy * src->pitch;
                for (int c = 0; c < 3; c++)
                    s[c] += t.w[r + i] * (row ? channel_get(row, type, x, c) : cval);
            }
            for (int c = 0; c < 3; c++) column_sums[3 * x + c] = s[c];
        }
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        const uint8_t *centre = src->data + (size_t)y * src->pitch;
        for (int x = 0; x < w; x++) {
            double s[3] = {0, 0, 0};
            for (int j = -r; j <= r; j++) {
                const int xx = fv_border_index(x + j, w, border);
                for (int c = 0; c < 3; c++) /* a constant column: every tap read cval */
                    s[c] += t.w[r + j] *
                            (xx < 0 ? FV_GAUSSIAN_WEIGHT_SUM * cval : column_sums[3 * xx + c]);
            }
            for (int c = 0; c < 3; c++) channel_put_sum(out, type, x, c, s[c]);
            alpha_copy(out, centre, type, x);
        }
    }
    free(column_sums);
    return FV_OK;
}
