/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_ref.c: CPU reference of the median filter (RGBA8, k x k window, k odd 3..25,
 * replicated borders, R, G and B independent, alpha kept). Each row and channel keeps a 256-bin
 * histogram of its window and slides it along the row: the column leaving the window is taken
 * out, the one entering is put in (k values each), and the median is read off the cumulative
 * counts: the smallest value v with more than (k*k - 1) / 2 window values <= v. O(k + 256) per
 * pixel and channel. Checked against sorting each window, on hand-worked cases and against
 * scipy.ndimage.median_filter by tests/cpu/test_median_ref.c; every GPU variant equals it byte for
 * byte (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "median.h"

#include <string.h>

static int clamp_int(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

fv_status median_size_check(const fv_params *p, const char *who, int *size)
{
    const double v = p->value[MEDIAN_SIZE];
    if (!(v >= FV_MEDIAN_MIN_SIZE && v <= FV_MEDIAN_MAX_SIZE) || v != (double)(int)v ||
        (int)v % 2 == 0)
        return fv_fail(FV_ERR_ARG, "%s: size %g is not an odd integer in %d..%d", who, v,
                       FV_MEDIAN_MIN_SIZE, FV_MEDIAN_MAX_SIZE);
    *size = (int)v;
    return FV_OK;
}

/* Adds `delta` to the bins of channel c of the clamped rows y-r..y+r of column x. */
static void column_add(const fv_image *src, uint32_t hist[256], int x, int y, int r, int c,
                       int delta)
{
    for (int i = -r; i <= r; i++) {
        const uint8_t *row = src->data + (size_t)clamp_int(y + i, 0, src->height - 1) * src->pitch;
        hist[row[4 * (size_t)x + c]] += (uint32_t)delta;
    }
}

fv_status median_ref(const fv_image *src, fv_image *dst, const fv_params *p)
{
    int k = 0;
    FV_TRY(median_size_check(p, "median", &k));
    const int r = k / 2, w = src->width, h = src->height;
    const uint32_t rank = (uint32_t)(k * k - 1) / 2; /* the median has `rank` values below it */
    uint32_t hist[256];
    for (int y = 0; y < h; y++) {
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        const uint8_t *centre = src->data + (size_t)y * src->pitch;
        for (int c = 0; c < 3; c++) {
            memset(hist, 0, sizeof hist);
            for (int j = -r; j <= r; j++) column_add(src, hist, clamp_int(j, 0, w - 1), y, r, c, 1);
            for (int x = 0; x < w; x++) {
                uint32_t below = 0;
                int v = 0;
                while (below + hist[v] <= rank) below += hist[v++];
                out[4 * (size_t)x + c] = (uint8_t)v;
                if (x + 1 < w) { /* slide right: column x - r leaves, x + r + 1 enters */
                    column_add(src, hist, clamp_int(x - r, 0, w - 1), y, r, c, -1);
                    column_add(src, hist, clamp_int(x + r + 1, 0, w - 1), y, r, c, 1);
                }
            }
        }
        for (int x = 0; x < w; x++) out[4 * (size_t)x + 3] = centre[4 * (size_t)x + 3];
    }
    return FV_OK;
}
