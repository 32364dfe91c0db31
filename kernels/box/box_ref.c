/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_ref.c: CPU reference of the box (mean) filter for uint8, uint16 and float32 RGBA
 * and every border (kernels/core/border.h), alpha passed through. For each output row: the column
 * sums of the 2r+1 source rows the border maps (cval where it says constant), the row of sums
 * extended by r on each side through the same mapping (a constant column sums (2r+1) cval), then
 * the row sums of 2r+1 of those. O(r) per pixel.
 *
 * One code path for the three types: values are read as doubles and summed in double, which is
 * exact for the integers (at most 257^2 * 65535 < 2^33, an integer a double holds). Integer
 * outputs are (sum + area / 2) / area in 64-bit integers (area = (2r+1)^2; round half up; the sum
 * needs 33 bits at radius 128 for uint16); float32 outputs are sum / area in double, rounded once
 * to float (a NaN in the window gives NaN, +inf and -inf together NaN, one infinity itself).
 * Checked against the direct 2-D sum with plain division, and box_mean against plain division at
 * every multiple boundary, by tests/cpu/test_box_ref.c; against scipy.ndimage.uniform_filter for
 * every type and border by tests/cpu/box_scipy.py; every GPU variant equals it (integers) or lies
 * within the float tolerance (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "box.h"

#include <stdlib.h>
#include <string.h>

/* Row y of the image, its 4 w channels as doubles. */
static void row_get(const fv_image *img, int y, double *out)
{
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    const size_t n = 4 * (size_t)img->width;
    switch (img->type) {
    case FV_PIXEL_U16:
        for (size_t k = 0; k < n; k++) out[k] = ((const uint16_t *)row)[k];
        break;
    case FV_PIXEL_F32:
        for (size_t k = 0; k < n; k++) out[k] = ((const float *)row)[k];
        break;
    default:
        for (size_t k = 0; k < n; k++) out[k] = row[k];
        break;
    }
}

/* Channel k of a row from its window sum; alpha (k % 4 == 3) copied from the centre. */
static void row_put(fv_image *dst, int y, const double *sums, const uint8_t *centre, uint64_t area)
{
    uint8_t *out = dst->data + (size_t)y * dst->pitch;
    const size_t n = 4 * (size_t)dst->width, bytes = fv_pixel_type_bytes(dst->type);
    for (size_t k = 0; k < n; k++) {
        if (k % 4 == 3) {
            memcpy(out + k * bytes, centre + k * bytes, bytes);
            continue;
        }
        if (dst->type == FV_PIXEL_F32) {
            ((float *)out)[k] = (float)(sums[k] / (double)area);
            continue;
        }
        const uint64_t mean = ((uint64_t)sums[k] + area / 2) / area; /* the sum is exact */
        if (dst->type == FV_PIXEL_U16)
            ((uint16_t *)out)[k] = (uint16_t)mean;
        else
            out[k] = (uint8_t)mean;
    }
}

int box_config_make(const fv_params *p, void *config, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    box_config *c = config;
    c->radius = (int)p->value[BOX_RADIUS];
    c->border = (fv_border)(int)p->value[BOX_BORDER];
    c->cval = p->value[BOX_CVAL];
    c->type = p->type;
    return 1;
}

fv_status box_ref(const fv_image *src, fv_image *dst, const void *config)
{
    const box_config *c = config;
    const int r = c->radius, w = src->width, h = src->height;
    const fv_border border = c->border;
    const double cval = src->type == FV_PIXEL_F32 ? (double)(float)c->cval : c->cval;
    const uint64_t area = (uint64_t)(2 * r + 1) * (uint64_t)(2 * r + 1);
    /* all four channels of a pixel side by side (alpha summed too, then ignored), so that the
     * inner loops run over plain arrays and vectorise */
    const size_t n = 4 * (size_t)w;
    double *row = malloc(sizeof(double) * n);
    double *columns = malloc(sizeof(double) * (n + 8 * (size_t)r)); /* +2r pixels: the edges */
    double *sums = malloc(sizeof(double) * n);
    if (!row || !columns || !sums) {
        free(row);
        free(columns);
        free(sums);
        return fv_fail(FV_ERR_MEMORY, "box: out of host memory for a row of %d pixels", w);
    }
    double *inner = columns + 4 * (size_t)r; /* the column sum of pixel x is inner[4x..4x+3] */
    for (int y = 0; y < h; y++) {
        memset(inner, 0, sizeof(double) * n);
        for (int i = -r; i <= r; i++) {
            const int yy = fv_border_index(y + i, h, border);
            if (yy < 0) {
                for (size_t k = 0; k < n; k++) inner[k] += cval;
                continue;
            }
            row_get(src, yy, row);
            for (size_t k = 0; k < n; k++) inner[k] += row[k];
        }
        for (int j = 1; j <= r; j++) { /* the r pixels past each edge, through the border */
            const int left = fv_border_index(-j, w, border),
                      right = fv_border_index(w - 1 + j, w, border);
            for (int c = 0; c < 4; c++) {
                inner[-4 * j + c] = left < 0 ? (2 * r + 1) * cval : inner[4 * left + c];
                inner[n + 4 * (size_t)(j - 1) + c] =
                    right < 0 ? (2 * r + 1) * cval : inner[4 * right + c];
            }
        }
        memset(sums, 0, sizeof(double) * n);
        for (int j = 0; j <= 2 * r; j++) {
            const double *shifted = columns + 4 * (size_t)j; /* tap j - r of every pixel */
            for (size_t k = 0; k < n; k++) sums[k] += shifted[k];
        }
        row_put(dst, y, sums, src->data + (size_t)y * src->pitch, area);
    }
    free(row);
    free(columns);
    free(sums);
    return FV_OK;
}
