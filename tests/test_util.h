/* ------------------------------------------------------------------------------------------------
 * tests/test_util.h: the little the C tests share: a seeded random generator (seed printed, set
 * with FV_TEST_SEED to replay), random images, byte comparison, and pass/fail counting that ends
 * in the "N passed, N failed" line, padded images whose padding must stay untouched, and one
 * filter's parameter set parsed from the text its test_params use.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_TEST_UTIL_H
#define FV_TEST_UTIL_H

#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct test_counts {
    int passed, failed;
} test_counts;

/* Padded test images: rows `pad` bytes longer than 4 * width, the padding filled with
 * TEST_PAD_FILL, so that a filter writing past a row's end is caught by test_padding_intact. */
#define TEST_PAD_FILL 0xa5
static inline fv_image test_image_padded(int width, int height, size_t pad)
{
    fv_image img = {.width = width,
                    .height = height,
                    .pitch = 4 * (size_t)width + pad,
                    .memory = FV_MEMORY_HOST};
    img.data = (uint8_t *)malloc(img.pitch * (size_t)height);
    if (!img.data) {
        printf("out of memory for a %dx%d test image\n", width, height);
        exit(1);
    }
    memset(img.data, TEST_PAD_FILL, img.pitch * (size_t)height);
    return img;
}

static inline int test_padding_intact(const fv_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (size_t k = 4 * (size_t)img->width; k < img->pitch; k++)
            if (img->data[(size_t)y * img->pitch + k] != TEST_PAD_FILL) return 0;
    return 1;
}

static inline void test_check(test_counts *t, int ok, const char *fmt, const char *detail)
{
    if (ok) {
        t->passed++;
    } else {
        t->failed++;
        printf("FAIL: %s %s\n", fmt, detail ? detail : "");
    }
}

static inline int test_finish(const test_counts *t)
{
    printf("%d passed, %d failed\n", t->passed, t->failed);
    return t->failed ? 1 : 0;
}

static inline uint32_t test_seed(void)
{
    const char *env = getenv("FV_TEST_SEED");
    uint32_t seed = env ? (uint32_t)strtoul(env, NULL, 10) : (uint32_t)time(NULL);
    printf("random seed %u (replay with FV_TEST_SEED=%u)\n", seed, seed);
    return seed ? seed : 1;
}

static inline uint32_t test_rand(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

static inline void test_fill_random(fv_image *img, uint32_t *s)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            uint32_t v = test_rand(s);
            memcpy(img->data + (size_t)y * img->pitch + 4 * (size_t)x, &v, 4);
        }
}

/* Largest per-channel |a - b|; (first_x, first_y) get the first pixel above `tolerance`. */
static inline int test_max_abs_diff(const fv_image *a, const fv_image *b, int tolerance,
                                    int *first_x, int *first_y)
{
    int worst = 0;
    *first_x = *first_y = -1;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < 4; c++) {
                int va = a->data[(size_t)y * a->pitch + 4 * (size_t)x + c];
                int vb = b->data[(size_t)y * b->pitch + 4 * (size_t)x + c];
                int d = va > vb ? va - vb : vb - va;
                if (d > tolerance && *first_x < 0) {
                    *first_x = x;
                    *first_y = y;
                }
                if (d > worst) worst = d;
            }
    return worst;
}

/* One parameter set written as in a filter's test_params, "NAME=VALUE NAME=VALUE ...", read by
 * the library's one parser (fv_params_from_text: its rules, its messages). Returns 0 with the
 * reason in `why` when the entry does not parse. */
static inline int test_param_entry(const fv_filter *f, const char *entry, fv_params *out, char *why,
                                   size_t why_size)
{
    if (fv_params_from_text(f, entry, out) != FV_OK) {
        snprintf(why, why_size, "%s", fv_last_error());
        return 0;
    }
    snprintf(why, why_size, "ok");
    return 1;
}

#endif
