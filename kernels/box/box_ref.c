/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_ref.c: CPU reference of the box (mean) filter (RGBA8, clamp-to-edge borders, alpha
 * passed through). For each output row: the column sums of the 2r+1 clamped source rows, the
 * row edges replicated r times on each side, then the row sums of 2r+1 of those; each R, G, B
 * is box_mean(sum) = (sum + area / 2) / area exactly, area = (2r+1)^2. O(r) per pixel, in
 * exact integers. Checked against the direct 2-D sum with plain division, and box_mean against
 * plain division at every multiple boundary, by tests/cpu/test_box_ref.c; every GPU variant equals
 * it byte for byte (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "box.h"

#include <stdlib.h>
#include <string.h>

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

fv_status box_ref(const fv_image *src, fv_image *dst, const fv_params *p)
{
    const double radius = p->value[BOX_RADIUS];
    if (!(radius >= 1 && radius <= FV_BOX_MAX_RADIUS) || radius != (double)(int)radius)
        return fv_fail(FV_ERR_ARG, "box: radius %g is not an integer in 1..%d", radius,
                       FV_BOX_MAX_RADIUS);
    const int r = (int)radius, w = src->width, h = src->height;
    const box_divider d = box_divider_make(r);
    /* all four channels of a pixel side by side (alpha summed too, then ignored), so that the
     * inner loops run over plain arrays and vectorise */
    const size_t n = 4 * (size_t)w;
    uint32_t *columns = malloc(sizeof(uint32_t) * (n + 8 * (size_t)r)); /* +2r pixels: edges */
    uint32_t *sums = malloc(sizeof(uint32_t) * n);
    if (!columns || !sums) {
        free(columns);
        free(sums);
        return fv_fail(FV_ERR_MEMORY, "box: out of host memory for a row of %d pixels", w);
    }
    uint32_t *inner = columns + 4 * (size_t)r; /* the column sum of pixel x is inner[4x..4x+3] */
    for (int y = 0; y < h; y++) {
        memset(inner, 0, sizeof(uint32_t) * n);
        for (int i = -r; i <= r; i++) {
            const uint8_t *row = src->data + (size_t)clamp_int(y + i, 0, h - 1) * src->pitch;
            for (size_t k = 0; k < n; k++) inner[k] += row[k];
        }
        for (int j = 0; j < r; j++) /* replicated borders: pixel 0 left, pixel w-1 right */
            for (int c = 0; c < 4; c++) {
                columns[4 * (size_t)j + c] = inner[c];
                inner[n + 4 * (size_t)j + c] = inner[n - 4 + c];
            }
        memset(sums, 0, sizeof(uint32_t) * n);
        for (int j = 0; j <= 2 * r; j++) {
            const uint32_t *shifted = columns + 4 * (size_t)j; /* tap j - r of every pixel */
            for (size_t k = 0; k < n; k++) sums[k] += shifted[k];
        }
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        const uint8_t *centre = src->data + (size_t)y * src->pitch;
        for (size_t k = 0; k < n; k += 4) {
            out[k + 0] = (uint8_t)box_mean(sums[k + 0], d);
            out[k + 1] = (uint8_t)box_mean(sums[k + 1], d);
            out[k + 2] = (uint8_t)box_mean(sums[k + 2], d);
            out[k + 3] = centre[k + 3];
        }
    }
    free(columns);
    free(sums);
    return FV_OK;
}
