/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_ref.c: CPU reference of the Gaussian blur (RGBA8, clamp-to-edge borders,
 * alpha passed through). Integer weights from gaussian_taps.c; columns first, then rows, all in
 * exact integer arithmetic, so it equals the direct 2-D sum of w[i] * w[j] * pixel (checked
 * against a brute-force 2-D sum in tests/cpu/test_ref.c). Output = (sum + 32768) >> 16.
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian_taps.h"

#include <stdlib.h>

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

fv_status gaussian_ref(const fv_image *src, fv_image *dst, const fv_params *p)
{
    fv_gaussian_taps t;
    FV_TRY(fv_gaussian_taps_make(p, &t));
    const int r = t.radius, w = src->width, h = src->height;
    uint32_t *column_sums = malloc(sizeof(uint32_t) * 3 * (size_t)w);
    if (!column_sums)
        return fv_fail(FV_ERR_MEMORY, "gaussian: out of host memory for %d columns", w);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint32_t s0 = 0, s1 = 0, s2 = 0;
            for (int i = -r; i <= r; i++) {
                const uint8_t *px =
                    src->data + (size_t)clamp_int(y + i, 0, h - 1) * src->pitch + (size_t)x * 4;
                s0 += (uint32_t)t.w[r + i] * px[0];
                s1 += (uint32_t)t.w[r + i] * px[1];
                s2 += (uint32_t)t.w[r + i] * px[2];
            }
            column_sums[3 * x + 0] = s0;
            column_sums[3 * x + 1] = s1;
            column_sums[3 * x + 2] = s2;
        }
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        const uint8_t *centre = src->data + (size_t)y * src->pitch;
        for (int x = 0; x < w; x++) {
            uint32_t s0 = 32768, s1 = 32768, s2 = 32768; /* +0.5 before the >> 16 */
            for (int j = -r; j <= r; j++) {
                const uint32_t *c = column_sums + 3 * clamp_int(x + j, 0, w - 1);
                s0 += (uint32_t)t.w[r + j] * c[0];
                s1 += (uint32_t)t.w[r + j] * c[1];
                s2 += (uint32_t)t.w[r + j] * c[2];
            }
            out[4 * x + 0] = (uint8_t)(s0 >> 16);
            out[4 * x + 1] = (uint8_t)(s1 >> 16);
            out[4 * x + 2] = (uint8_t)(s2 >> 16);
            out[4 * x + 3] = centre[4 * x + 3];
        }
    }
    free(column_sums);
    return FV_OK;
}
