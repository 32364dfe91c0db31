/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_ref.c: CPU reference of the median filter: k x k window (k odd 3..25),
 * every pixel type (uint8, uint16, float32) and border, R, G and B independent, alpha kept.
 *
 * One code path for every type: values are read as keys (kernels/median/median.h: the numbers
 * themselves for the integer types, IEEE order with NaN above +infinity for float32) and written
 * back from the key of the median, so no value is ever computed, only chosen. Per channel, each
 * pixel's key is replaced by its rank among the channel's distinct keys (cval's included: one
 * radix sort of (key, index) pairs), and
 * each row slides a histogram of ranks along it (Huang's algorithm): the column leaving the window
 * is taken out, the one entering put in (k values each), and the median's rank moves from the last
 * one through a histogram of three levels (bins, blocks of 64, groups of 4096), so that its walk
 * is short however many distinct values the type allows. O(k) per pixel and channel plus the
 * walk, after one sort of each channel's keys.
 * Positions past the edge read through fv_border_index (kernels/core/border.h); the constant
 * border reads cval's key. Checked against sorting each window, on hand-worked cases and against
 * scipy.ndimage.median_filter by tests/cpu/test_median_ref.c; every GPU variant equals it byte for
 * byte (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "median.h"

#include "border.h"

#include <stdlib.h>

int median_config_make(const fv_params *p, void *config, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    median_config *c = config;
    c->k = (int)p->value[MEDIAN_SIZE];
    c->type = p->type;
    c->border = (fv_border)(int)p->value[MEDIAN_BORDER];
    c->cval_key = median_cval_key(p->type, p->value[MEDIAN_CVAL]);
    return 1;
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

/* Sorts n pairs (key << 32 | index) by key, stably: four passes of 8 bits (LSD radix), a pass
 * skipped where every key has the same byte there (uint8 needs one pass). `tmp` holds n too. */
static void sort_pairs(uint64_t *pairs, uint64_t *tmp, size_t n)
{
    uint64_t *a = pairs, *b = tmp;
    for (int shift = 32; shift < 64; shift += 8) {
        size_t start[257] = {0};
        for (size_t i = 0; i < n; i++) start[((a[i] >> shift) & 0xffu) + 1]++;
        int one_digit = 0;
        for (int d = 0; d < 256; d++) one_digit |= start[d + 1] == n;
        if (one_digit) continue;
        for (int d = 0; d < 256; d++) start[d + 1] += start[d];
        for (size_t i = 0; i < n; i++) b[start[(a[i] >> shift) & 0xffu]++] = a[i];
        uint64_t *t = a;
        a = b, b = t;
    }
    if (a != pairs) memcpy(pairs, a, sizeof(uint64_t) * n);
}

/* A histogram of the window's ranks in three levels, bins, blocks of RANK_BLOCK bins and groups
 * of RANK_BLOCK blocks, with the median's rank m and `below`, the count of window values of rank
 * < m, kept as values come and go. Walking m from one pixel's median to the next skips whole
 * groups and blocks where it can: a few dozen steps however many distinct values there are. */
#define RANK_BLOCK 64
#define RANK_GROUP (RANK_BLOCK * RANK_BLOCK)
typedef struct rank_hist {
    uint16_t *bin; /* a window holds at most 625 values */
    uint32_t *block, *group;
    uint32_t m, below;
} rank_hist;

static void hist_add(rank_hist *h, uint32_t q, int delta)
{
    h->bin[q] = (uint16_t)(h->bin[q] + delta);
    h->block[q / RANK_BLOCK] += (uint32_t)delta;
    h->group[q / RANK_GROUP] += (uint32_t)delta;
    if (q < h->m) h->below += (uint32_t)delta;
}

/* Moves m to the smallest rank with more than `rank` window values at or below it. */
static void hist_walk(rank_hist *h, uint32_t rank)
{
    while (h->below > rank) { /* down: the median is below m */
        if (h->m % RANK_GROUP == 0 && h->below - h->group[h->m / RANK_GROUP - 1] > rank) {
            h->m -= RANK_GROUP;
            h->below -= h->group[h->m / RANK_GROUP];
        } else if (h->m % RANK_BLOCK == 0 && h->below - h->block[h->m / RANK_BLOCK - 1] > rank) {
            h->m -= RANK_BLOCK;
            h->below -= h->block[h->m / RANK_BLOCK];
        } else {
            h->below -= h->bin[--h->m];
        }
    }
    while (h->below + h->bin[h->m] <= rank) { /* up: m and what is below it are too few */
        if (h->m % RANK_GROUP == 0 && h->below + h->group[h->m / RANK_GROUP] <= rank) {
            h->below += h->group[h->m / RANK_GROUP];
            h->m += RANK_GROUP;
        } else if (h->m % RANK_BLOCK == 0 && h->below + h->block[h->m / RANK_BLOCK] <= rank) {
            h->below += h->block[h->m / RANK_BLOCK];
            h->m += RANK_BLOCK;
        } else {
            h->below += h->bin[h->m++];
        }
    }
}

/* Adds (delta 1) or takes out (-1) the ranks of the window column that reads image column x
 * (-1: the constant) at the window rows `rows` (-1: the constant). */
static void hist_column(rank_hist *h, const uint32_t *ranks, int w, const int *rows, int k, int x,
                        uint32_t cval_rank, int delta)
{
    for (int i = 0; i < k; i++)
        hist_add(h, rows[i] < 0 || x < 0 ? cval_rank : ranks[(size_t)rows[i] * w + x], delta);
}

fv_status median_ref(const fv_image *src, fv_image *dst, const void *config)
{
    const median_config *c = config;
    const int k = c->k;
    if (dst->type != src->type || src->type != c->type)
        return fv_fail(FV_ERR_ARG, "median: source is %s, destination %s, configured for %s",
                       fv_pixel_type_name(src->type), fv_pixel_type_name(dst->type),
                       fv_pixel_type_name(c->type));
    const fv_pixel_type type = src->type;
    const fv_border border = c->border;
    const uint32_t cval = c->cval_key;
    const int r = k / 2, w = src->width, h = src->height, span = w + 2 * r;
    const uint32_t rank = (uint32_t)(k * k - 1) / 2; /* the median has `rank` values below it */
    const size_t n = (size_t)w * (size_t)h;
    /* ranks: each pixel's rank among the channel's distinct keys, and cval's last; keys: those
     * keys in order, one of each; pairs: (key, index) sorted by key; rows, xs: where each window
     * row and position read */
    uint32_t *ranks = malloc(sizeof(uint32_t) * (n + 1));
    uint32_t *keys = malloc(sizeof(uint32_t) * (n + 1));
    uint64_t *pairs = malloc(sizeof(uint64_t) * 2 * (n + 1));
    int *rows = malloc(sizeof(int) * ((size_t)k + (size_t)span));
    rank_hist hist = {malloc(sizeof(uint16_t) * (n + 1)),
                      malloc(sizeof(uint32_t) * ((n + 1) / RANK_BLOCK + 1)),
                      malloc(sizeof(uint32_t) * ((n + 1) / RANK_GROUP + 1)), 0, 0};
    if (!ranks || !keys || !pairs || !rows || !hist.bin || !hist.block || !hist.group) {
        free(ranks), free(keys), free(pairs), free(rows);
        free(hist.bin), free(hist.block), free(hist.group);
        return fv_fail(FV_ERR_MEMORY, "median: out of host memory for a %dx%d image", w, h);
    }
    int *xs = rows + k;
    for (int j = 0; j < span; j++) xs[j] = fv_border_index(j - r, w, border);
    for (int c = 0; c < 3; c++) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const size_t i = (size_t)y * (size_t)w + (size_t)x;
                pairs[i] =
                    (uint64_t)key_load(src->data + (size_t)y * src->pitch, type, x, c) << 32 | i;
            }
        pairs[n] = (uint64_t)cval << 32 | n;
        sort_pairs(pairs, pairs + n + 1, n + 1);
        uint32_t distinct = 0;
        for (size_t i = 0; i <= n; i++) {
            const uint32_t key = (uint32_t)(pairs[i] >> 32);
            if (distinct == 0 || key != keys[distinct - 1]) keys[distinct++] = key;
            ranks[(uint32_t)pairs[i]] = distinct - 1;
        }
        const uint32_t cval_rank = ranks[n];
        memset(hist.bin, 0, sizeof(uint16_t) * distinct);
        memset(hist.block, 0, sizeof(uint32_t) * (distinct / RANK_BLOCK + 1));
        memset(hist.group, 0, sizeof(uint32_t) * (distinct / RANK_GROUP + 1));
        for (int y = 0; y < h; y++) {
            for (int i = 0; i < k; i++) rows[i] = fv_border_index(y - r + i, h, border);
            for (int j = 0; j < k; j++) hist_column(&hist, ranks, w, rows, k, xs[j], cval_rank, 1);
            uint8_t *out = dst->data + (size_t)y * dst->pitch;
            for (int x = 0; x < w; x++) {
                hist_walk(&hist, rank);
                key_store(out, type, x, c, keys[hist.m]);
                if (x + 1 < w) { /* position x - r leaves, x + r + 1 enters */
                    hist_column(&hist, ranks, w, rows, k, xs[x], cval_rank, -1);
                    hist_column(&hist, ranks, w, rows, k, xs[x + k], cval_rank, 1);
                }
            }
            for (int j = w - 1; j < w - 1 + k; j++) /* the last window out: empty again */
                hist_column(&hist, ranks, w, rows, k, xs[j], cval_rank, -1);
            hist.m = hist.below = 0;
        }
    }
    const size_t bytes = fv_pixel_type_bytes(type);
    for (int y = 0; y < h; y++) { /* alpha: the centre pixel's, bit for bit */
        const uint8_t *centre = src->data + (size_t)y * src->pitch;
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        for (int x = 0; x < w; x++)
            memcpy(out + bytes * (4 * (size_t)x + 3), centre + bytes * (4 * (size_t)x + 3), bytes);
    }
    free(ranks), free(keys), free(pairs), free(rows);
    free(hist.bin), free(hist.block), free(hist.group);
    return FV_OK;
}
