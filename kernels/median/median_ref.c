/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_ref.c: CPU reference of the median filter: k x k window (k odd 3..25),
 * every pixel type (uint8, uint16, float32) and border, R, G and B independent, alpha kept.
 *
 * One code path for every type: values are read as keys (kernels/median/median.h: the numbers
 * themselves for the integer types, IEEE order with NaN above +infinity for float32) and written
 * back from the key of the median, so no value is ever computed, only chosen. For each row and
 * channel the window's k*k keys are kept sorted and slid along the row: the column leaving it and
 * the column entering it (each sorted once) are merged out and in by one linear pass, and the
 * median is the key at rank (k*k - 1) / 2. O(k*k) per pixel and channel, whatever the type.
 * Positions past the edge read through fv_border_index (kernels/core/border.h); the constant
 * border reads cval's key. Checked against sorting each window, on hand-worked cases and against
 * scipy.ndimage.median_filter by tests/cpu/test_median_ref.c; every GPU variant equals it byte for
 * byte (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "median.h"

#include "border.h"

#include <stdlib.h>

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

/* ---- the per-type accessor: a channel as a key, and back ---- */
static uint32_t key_load(const uint8_t *row, fv_pixel_type type, int x, int c)
{
    switch (type) {
    case FV_PIXEL_U16: {
        uint16_t v;
        memcpy(&v, row + 2 * (4 * (size_t)x + (size_t)c), 2);
        return v;
    }
    case FV_PIXEL_F32: {
        uint32_t bits;
        memcpy(&bits, row + 4 * (4 * (size_t)x + (size_t)c), 4);
        return median_key_of_f32(bits);
    }
    default: return row[4 * (size_t)x + (size_t)c];
    }
}

static void key_store(uint8_t *row, fv_pixel_type type, int x, int c, uint32_t key)
{
    switch (type) {
    case FV_PIXEL_U16: {
        const uint16_t v = (uint16_t)key;
        memcpy(row + 2 * (4 * (size_t)x + (size_t)c), &v, 2);
        break;
    }
    case FV_PIXEL_F32: {
        const uint32_t bits = median_f32_of_key(key);
        memcpy(row + 4 * (4 * (size_t)x + (size_t)c), &bits, 4);
        break;
    }
    default: row[4 * (size_t)x + (size_t)c] = (uint8_t)key;
    }
}

static void sort_keys(uint32_t *v, int n) /* insertion sort: a column of at most 25 */
{
    for (int i = 1; i < n; i++) {
        const uint32_t x = v[i];
        int j = i;
        for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

static int cmp_key(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* out = (win minus the n sorted keys of `leave`) merged with the n sorted keys of `enter`; win
 * holds every key of `leave` (equal keys are interchangeable, so the first equal one goes). */
static void slide(const uint32_t *win, int len, const uint32_t *leave, const uint32_t *enter, int n,
                  uint32_t *out)
{
    int i = 0, l = 0, e = 0, o = 0;
    while (i < len) {
        if (l < n && win[i] == leave[l]) {
            i++, l++;
        } else if (e < n && enter[e] < win[i]) {
            out[o++] = enter[e++];
        } else {
            out[o++] = win[i++];
        }
    }
    while (e < n) out[o++] = enter[e++];
}

fv_status median_ref(const fv_image *src, fv_image *dst, const fv_params *p)
{
    int k = 0;
    FV_TRY(median_size_check(p, "median", &k));
    if (dst->type != src->type)
        return fv_fail(FV_ERR_ARG, "median: source is %s, destination %s",
                       fv_pixel_type_name(src->type), fv_pixel_type_name(dst->type));
    const fv_pixel_type type = src->type;
    const fv_border border = median_border(p);
    const uint32_t cval = median_cval_key(type, p->value[MEDIAN_CVAL]);
    const int r = k / 2, w = src->width, h = src->height, n = k * k, span = w + 2 * r;
    const int rank = (n - 1) / 2; /* the median has `rank` values below it */
    /* cols: the sorted window column of every position -r..w-1+r of the row; win, next: the
     * sorted window before and after a step; rows, xs: where each window row and position read */
    uint32_t *cols = malloc(sizeof(uint32_t) * (size_t)span * (size_t)k);
    uint32_t *win = malloc(sizeof(uint32_t) * 2 * (size_t)n);
    int *rows = malloc(sizeof(int) * ((size_t)k + (size_t)span));
    if (!cols || !win || !rows) {
        free(cols), free(win), free(rows);
        return fv_fail(FV_ERR_MEMORY, "median: out of host memory for a %d-wide row", w);
    }
    uint32_t *next = win + n;
    int *xs = rows + k;
    for (int j = 0; j < span; j++) xs[j] = fv_border_index(j - r, w, border);
    const size_t bytes = fv_pixel_type_bytes(type);
    for (int y = 0; y < h; y++) {
        for (int i = 0; i < k; i++) rows[i] = fv_border_index(y - r + i, h, border);
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        for (int c = 0; c < 3; c++) {
            for (int j = 0; j < span; j++) {
                uint32_t *col = cols + (size_t)j * (size_t)k;
                for (int i = 0; i < k; i++)
                    col[i] =
                        rows[i] < 0 || xs[j] < 0
                            ? cval
                            : key_load(src->data + (size_t)rows[i] * src->pitch, type, xs[j], c);
                sort_keys(col, k);
            }
            memcpy(win, cols, sizeof(uint32_t) * (size_t)n); /* positions -r..r */
            qsort(win, (size_t)n, sizeof *win, cmp_key);
            for (int x = 0; x < w; x++) {
                key_store(out, type, x, c, win[rank]);
                if (x + 1 < w) { /* position x - r leaves, x + r + 1 enters */
                    slide(win, n, cols + (size_t)x * (size_t)k,
                          cols + (size_t)(x + 2 * r + 1) * (size_t)k, k, next);
                    uint32_t *t = win;
                    win = next, next = t;
                }
            }
        }
        const uint8_t *centre = src->data + (size_t)y * src->pitch;
        for (int x = 0; x < w; x++) /* alpha: the centre pixel's, bit for bit */
            memcpy(out + bytes * (4 * (size_t)x + 3), centre + bytes * (4 * (size_t)x + 3), bytes);
    }
    free(cols);
    free(win < next ? win : next); /* the two halves of one allocation */
    free(rows);
    return FV_OK;
}
