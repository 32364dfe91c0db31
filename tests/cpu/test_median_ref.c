/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_median_ref.c (label cpu): the median filter's reference (kernels/median/median_ref.c) on
 * tiny images with hand-worked medians (ties, constant regions, a single outlier, windows larger
 * than the image, 1x1, 1xN; uint16 and float32 under each border; NaN, infinities and signed
 * zeros), against sorting each window on random and noisy images of awkward sizes and pitches in
 * every type and border; the `fast` variant's generated networks (kernels/median/median_networks.h)
 * run on the CPU against sorting; the parameter table; the source noise (kernels/core/noise.h):
 * determinism, measured density and sigma, alpha kept. With `--scipy SCRIPT DIR` instead: the
 * reference against scipy.ndimage.median_filter in every type and border (and, for windows with
 * NaN, against numpy.sort) through tests/cpu/median_scipy.py (exit 77, skipped, where python3,
 * numpy or scipy is missing). Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "median/median.h"
#include "border.h"
#include "noise.h"
#include "test_skeleton.h"

#include <math.h>

static fv_params median_params(int size)
{
    fv_params p = test_params_blank();
    p.value[MEDIAN_SIZE] = size;
    return p;
}

static int run_ref(const fv_image *src, fv_image *dst, int size)
{
    const fv_params p = median_params(size);
    char what[48];
    snprintf(what, sizeof what, "median_ref size %d", size);
    return test_ref_runs(median_config_make, median_ref, src, dst, &p, what);
}

static int cmp_u8(const void *a, const void *b)
{
    return *(const uint8_t *)a - *(const uint8_t *)b;
}

/* The definition: sort the clamped window of each channel, take rank (k*k - 1) / 2. */
static void median_brute(const fv_image *src, fv_image *dst, int k)
{
    static uint8_t v[FV_MEDIAN_MAX_AREA];
    const int r = k / 2;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < 3; c++) {
                int n = 0;
                for (int i = -r; i <= r; i++)
                    for (int j = -r; j <= r; j++)
                        v[n++] = px(src, clamp_int(x + j, 0, src->width - 1),
                                    clamp_int(y + i, 0, src->height - 1))[c];
                qsort(v, (size_t)n, 1, cmp_u8);
                px(dst, x, y)[c] = v[(n - 1) / 2];
            }
            px(dst, x, y)[3] = px(src, x, y)[3];
        }
}

/* 3x1, R = 5 5 9, k = 3 (every row clamps to row 0, so each column counts 3 times):
 * x = 0 sees 5 5 5 -> 5; x = 1 sees 5 5 9: six 5s, three 9s -> 5; x = 2 sees 5 9 9 -> 9. */
static void test_ties(void)
{
    fv_image src = test_image_padded(3, 1, TEST_PAD_BYTES),
             dst = test_image_padded(3, 1, TEST_PAD_BYTES);
    static const uint8_t red[3] = {5, 5, 9}, want[3] = {5, 5, 9};
    for (int x = 0; x < 3; x++) {
        px(&src, x, 0)[0] = red[x];
        px(&src, x, 0)[1] = px(&src, x, 0)[2] = 7;
        px(&src, x, 0)[3] = (uint8_t)(x + 1);
    }
    int ok = run_ref(&src, &dst, 3);
    test_check(&t, ok && channel_is(&dst, 0, want), "ties: 3x1 R 5 5 9 stays 5 5 9 at size 3",
               NULL);
    static const uint8_t alpha[3] = {1, 2, 3};
    test_check(&t, ok && channel_is(&dst, 3, alpha) && test_padding_intact(&dst),
               "ties: alpha kept, padding untouched", NULL);
    free(src.data);
    free(dst.data);
}

/* A constant colour stays itself for every size, whatever the image size; alpha kept. */
static void test_constant(void)
{
    static const int sizes[][2] = {{1, 1}, {5, 3}, {1, 9}, {9, 1}, {17, 11}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        fv_image src = test_image_padded(w, h, TEST_PAD_BYTES),
                 dst = test_image_padded(w, h, TEST_PAD_BYTES);
        int ok = 1;
        for (int k = FV_MEDIAN_MIN_SIZE; k <= FV_MEDIAN_MAX_SIZE; k += 2) {
            const uint8_t colour[3] = {(uint8_t)(k * 7), (uint8_t)(255 - k),
                                       (uint8_t)(k % 4 ? 255 : 0)};
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    memcpy(px(&src, x, y), colour, 3);
                    px(&src, x, y)[3] = (uint8_t)(x * 31 + y * 17 + k);
                }
            ok = ok && run_ref(&src, &dst, k);
            for (int y = 0; ok && y < h; y++)
                for (int x = 0; ok && x < w; x++)
                    ok = memcmp(px(&dst, x, y), colour, 3) == 0 &&
                         px(&dst, x, y)[3] == px(&src, x, y)[3];
        }
        char what[64];
        snprintf(what, sizeof what, "%dx%d, sizes 3..25", w, h);
        test_check(&t, ok && test_padding_intact(&dst),
                   "a constant image stays constant, alpha kept:", what);
        free(src.data);
        free(dst.data);
    }
}

/* 5x5 of 10 with one 255 in the middle (G 0 with one 255, B 200 with one 0): every window holds
 * the outlier at most once among 9 (or 25) values, so it vanishes: 10, 0 and 200 everywhere. */
static void test_outlier(void)
{
    fv_image src = test_image_padded(5, 5, 0), dst = test_image_padded(5, 5, 0);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            uint8_t *q = px(&src, x, y);
            q[0] = 10, q[1] = 0, q[2] = 200, q[3] = 255;
        }
    px(&src, 2, 2)[0] = 255, px(&src, 2, 2)[1] = 255, px(&src, 2, 2)[2] = 0;
    for (int k = 3; k <= 5; k += 2) {
        int ok = run_ref(&src, &dst, k);
        for (int y = 0; ok && y < 5; y++)
            for (int x = 0; ok && x < 5; x++)
                ok = px(&dst, x, y)[0] == 10 && px(&dst, x, y)[1] == 0 && px(&dst, x, y)[2] == 200;
        test_check(&t, ok, "a single outlier vanishes:", k == 3 ? "size 3" : "size 5");
    }
    free(src.data);
    free(dst.data);
}

/* Windows larger than the image. 1x1: unchanged for every size.
 * 2x2, size 5, R = 0 100 / 200 50: clamping counts pixel (0, 0) 3 x 3 = 9 times in the window of
 * (0, 0), (1, 0) and (0, 1) 6 times, (1, 1) 4 times: 0 x9, 50 x4, 100 x6, 200 x6, rank 12 -> 50.
 * (1, 0): 100 x9, 0 x6, 50 x6, 200 x4 -> sorted 0 (0..5), 50 (6..11), 100 (12..) -> 100; by
 * symmetry (0, 1) -> 100 and (1, 1) -> 50.
 * 1x5 (1 wide), R = 10 20 30 40 50 down the column, sizes 3 and 5: each row's value counts k
 * times per window row, the clamped rows repeat the ends: 10 20 30 40 50 again. */
static void test_larger_than_image(void)
{
    fv_image src = test_image_padded(1, 1, 0), dst = test_image_padded(1, 1, 0);
    const uint8_t pixel[4] = {1, 128, 254, 77};
    memcpy(src.data, pixel, 4);
    int ok = 1;
    for (int k = FV_MEDIAN_MIN_SIZE; k <= FV_MEDIAN_MAX_SIZE; k += 2)
        ok = ok && run_ref(&src, &dst, k) && memcmp(dst.data, pixel, 4) == 0;
    test_check(&t, ok, "1x1: unchanged for every size", NULL);
    free(src.data);
    free(dst.data);

    src = test_image_padded(2, 2, TEST_PAD_BYTES);
    dst = test_image_padded(2, 2, TEST_PAD_BYTES);
    static const uint8_t red[4] = {0, 100, 200, 50}, want[4] = {50, 100, 100, 50};
    for (int k = 0; k < 4; k++) {
        memset(px(&src, k % 2, k / 2), 0, 4);
        px(&src, k % 2, k / 2)[0] = red[k];
    }
    ok = run_ref(&src, &dst, 5);
    test_check(&t, ok && channel_is(&dst, 0, want) && test_padding_intact(&dst),
               "2x2 size 5: 50 100 / 100 50", NULL);
    free(src.data);
    free(dst.data);

    src = test_image_padded(1, 5, 0);
    dst = test_image_padded(1, 5, 0);
    static const uint8_t column[5] = {10, 20, 30, 40, 50};
    for (int y = 0; y < 5; y++) {
        memset(px(&src, 0, y), 0, 4);
        px(&src, 0, y)[0] = column[y];
    }
    test_check(&t, run_ref(&src, &dst, 3) && channel_is(&dst, 0, column),
               "1x5 size 3: 10 20 30 40 50", NULL);
    test_check(&t, run_ref(&src, &dst, 5) && channel_is(&dst, 0, column),
               "1x5 size 5: 10 20 30 40 50", NULL);
    free(src.data);
    free(dst.data);
}

/* Against sorting, on random images (some noisy: many equal extremes) of awkward sizes, every
 * window size. */
static int median_against_brute(test_case *c)
{
    const int k = FV_MEDIAN_MIN_SIZE + 2 * c->set;
    if (k % 4 == 1) {
        const fv_noise noise = {.density = 0.3, .sigma = 0, .seed = *c->seed};
        fv_noise_apply_host(&c->src, &noise);
    }
    snprintf(c->what, sizeof c->what, "%dx%d pitch %zu size %d", c->src.width, c->src.height,
             c->got.pitch, k);
    const int ran = run_ref(&c->src, &c->got, k);
    median_brute(&c->src, &c->want, k);
    return ran;
}

static void test_against_brute(uint32_t *seed)
{
    static const int sizes[][2] = {{1, 1},  {1, 6},  {6, 1},   {2, 3},
                                   {7, 13}, {13, 7}, {31, 29}, {64, 3}};
    test_against_definition(sizes, sizeof sizes / sizeof sizes[0],
                            (FV_MEDIAN_MAX_SIZE - FV_MEDIAN_MIN_SIZE) / 2 + 1, median_against_brute,
                            seed, "median_ref equals sorting each window:");
}

/* ---- every type and border ------------------------------------------------------------------ */
/* A typed RGBA image, rows padded by `pad` bytes filled with TEST_PAD_FILL. */
static fv_image typed_image(int w, int h, fv_pixel_type type, size_t pad)
{
    fv_image img = {.width = w,
                    .height = h,
                    .pitch = 4 * fv_pixel_type_bytes(type) * (size_t)w + pad,
                    .memory = FV_MEMORY_HOST,
                    .type = type,
                    .channels = 4};
    img.data = malloc(img.pitch * (size_t)h);
    if (!img.data) {
        printf("out of memory for a %dx%d test image\n", w, h);
        exit(1);
    }
    memset(img.data, TEST_PAD_FILL, img.pitch * (size_t)h);
    return img;
}

static int typed_padding_intact(const fv_image *img)
{
    const size_t used = 4 * fv_pixel_type_bytes(img->type) * (size_t)img->width;
    for (int y = 0; y < img->height; y++)
        for (size_t b = used; b < img->pitch; b++)
            if (img->data[(size_t)y * img->pitch + b] != TEST_PAD_FILL) return 0;
    return 1;
}

/* Channel c of pixel (x, y) as raw bits (a uint8, uint16 or float32's bits), and back. */
static uint32_t raw_get(const fv_image *img, int x, int y, int c)
{
    const size_t b = fv_pixel_type_bytes(img->type);
    uint32_t v = 0;
    memcpy(&v, img->data + (size_t)y * img->pitch + b * (4 * (size_t)x + (size_t)c), b);
    return v;
}

static void raw_set(fv_image *img, int x, int y, int c, uint32_t v)
{
    const size_t b = fv_pixel_type_bytes(img->type);
    memcpy(img->data + (size_t)y * img->pitch + b * (4 * (size_t)x + (size_t)c), &v, b);
}

static uint32_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static float f32_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* The order the filter promises, written from the numbers rather than from keys: integers as
 * numbers; float32 by value, -0 before +0, every NaN after everything else (numpy.sort's). */
static fv_pixel_type brute_type;
static int cmp_raw(const void *pa, const void *pb)
{
    const uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (brute_type != FV_PIXEL_F32) return (a > b) - (a < b);
    const float x = f32_of(a), y = f32_of(b);
    if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
    if (x != y) return x < y ? -1 : 1;
    return x == 0 ? (signbit(y) != 0) - (signbit(x) != 0) : 0;
}

/* The definition: each channel's window through fv_border_index (cval where it says -1), sorted,
 * its element of rank (k*k - 1) / 2; alpha the centre's. */
static void median_brute_typed(const fv_image *src, fv_image *dst, int k, fv_border border,
                               uint32_t cval_raw)
{
    static uint32_t v[FV_MEDIAN_MAX_AREA];
    const int r = k / 2;
    brute_type = src->type;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < 3; c++) {
                int n = 0;
                for (int i = -r; i <= r; i++)
                    for (int j = -r; j <= r; j++) {
                        const int yy = fv_border_index(y + i, src->height, border),
                                  xx = fv_border_index(x + j, src->width, border);
                        v[n++] = yy < 0 || xx < 0 ? cval_raw : raw_get(src, xx, yy, c);
                    }
                qsort(v, (size_t)n, sizeof v[0], cmp_raw);
                raw_set(dst, x, y, c, v[(n - 1) / 2]);
            }
            raw_set(dst, x, y, 3, raw_get(src, x, y, 3));
        }
}

/* Every channel equal, NaN equal to NaN whatever its bits (the reference writes 0x7fc00000);
 * (fx, fy) the first pixel that differs. */
static int typed_equal(const fv_image *a, const fv_image *b, int *fx, int *fy)
{
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < 4; c++) {
                const uint32_t u = raw_get(a, x, y, c), w = raw_get(b, x, y, c);
                const int both_nan =
                    a->type == FV_PIXEL_F32 && isnan(f32_of(u)) && isnan(f32_of(w));
                if (u != w && !both_nan) {
                    *fx = x, *fy = y;
                    return 0;
                }
            }
    return 1;
}

static fv_params typed_params(int size, fv_pixel_type type, fv_border border, double cval)
{
    fv_params p = median_params(size);
    p.type = type;
    p.value[MEDIAN_BORDER] = border;
    p.value[MEDIAN_CVAL] = cval;
    return p;
}

/* Random content of the type: uint16 over its whole range or (every third image) four values,
 * for ties; float32 uniform in 0..1 with, in turn, negatives, ties, infinities and signed zeros,
 * and NaN where `nan` says. */
static void typed_fill(fv_image *img, uint32_t *seed, int variety, int nan)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < 4; c++) {
                const uint32_t u = test_rand(seed);
                uint32_t v = u & 0xffu;
                if (img->type == FV_PIXEL_U16) {
                    v = variety % 3 == 2 ? (u >> 8) % 4 * 21845u : u >> 16;
                } else if (img->type == FV_PIXEL_F32) {
                    float f = (float)(u >> 8) / 16777216.0f;
                    const uint32_t pick = (u >> 3) % 16;
                    if (variety % 3 == 1 && pick < 6) f = (float)(pick % 3) * 0.5f;
                    if (variety % 3 == 2 && pick == 0) f = INFINITY;
                    if (variety % 3 == 2 && pick == 1) f = -INFINITY;
                    if (variety % 3 == 2 && pick == 2) f = -0.0f;
                    if (variety % 3 == 2 && pick == 3) f = 0.0f;
                    if (variety % 2 && pick >= 12) f = -f * 100;
                    v = f32_bits(f);
                    if (nan && c < 3 && pick == 15) v = u % 2 ? 0x7fc00000u : 0xffc01234u;
                }
                raw_set(img, x, y, c, v);
            }
}

static const fv_pixel_type all_types[] = {FV_PIXEL_U8, FV_PIXEL_U16, FV_PIXEL_F32};

/* cval of a case: in the type's range and a whole number for the integers */
static double case_cval(fv_pixel_type type, int i)
{
    return type == FV_PIXEL_F32 ? (i % 2 ? 0.4375 : -3.5) : (i % 2 ? 0 : fv_pixel_type_max(type));
}

static uint32_t cval_raw(fv_pixel_type type, double cval)
{
    return type == FV_PIXEL_F32 ? f32_bits((float)cval) : (uint32_t)cval;
}

static void test_types_against_brute(uint32_t *seed)
{
    static const int sizes[][2] = {{1, 1}, {1, 6}, {6, 1}, {2, 3}, {7, 13}, {13, 7}, {31, 29}};
    static const int ks[] = {3, 5, 7, 9, 11, 25};
    int n_case = 0;
    for (size_t ti = 0; ti < 3; ti++)
        for (int b = 0; b < FV_BORDER_COUNT; b++) {
            const fv_pixel_type type = all_types[ti];
            int ok = 1;
            char what[200] = "";
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && ok; s++)
                for (size_t ki = 0; ki < sizeof ks / sizeof ks[0] && ok; ki++, n_case++) {
                    const int w = sizes[s][0], h = sizes[s][1], k = ks[ki];
                    const size_t pad = n_case % 2 ? TEST_PAD_BYTES : 0;
                    fv_image src = typed_image(w, h, type, pad), got = typed_image(w, h, type, pad),
                             want = typed_image(w, h, type, 0);
                    typed_fill(&src, seed, n_case, n_case % 4 == 3);
                    const double cval = case_cval(type, n_case);
                    const fv_params p = typed_params(k, type, (fv_border)b, cval);
                    snprintf(what, sizeof what, "%s %s %dx%d size %d", fv_pixel_type_name(type),
                             fv_border_names[b], w, h, k);
                    ok = test_ref_runs(median_config_make, median_ref, &src, &got, &p, what);
                    median_brute_typed(&src, &want, k, (fv_border)b, cval_raw(type, cval));
                    int fx = -1, fy = -1;
                    ok = ok && typed_equal(&got, &want, &fx, &fy) && typed_padding_intact(&got);
                    if (!ok) {
                        const size_t len = strlen(what);
                        snprintf(what + len, sizeof what - len, " (first difference at %d,%d)", fx,
                                 fy);
                    }
                    free(src.data), free(got.data), free(want.data);
                }
            char name[64];
            snprintf(name, sizeof name, "%s %s", fv_pixel_type_name(type), fv_border_names[b]);
            test_check(&t, ok, "median_ref equals sorting each window, sizes 1x1..31x29, k 3..25:",
                       ok ? name : what);
        }
}

/* 3x3, R = 100 200 300 / 400 500 600 / 700 800 900 (uint16; float32: the same / 1000), size 3.
 * The centre's window is the image whatever the border: 500. The corner (0, 0) reads rows and
 * columns -1, 0, 1, and -1 is
 *   replicate, reflect: 0 -> 100 100 200 / 100 100 200 / 400 400 500: rank 4 of the nine is 200
 *   mirror: 1 -> 500 400 500 / 200 100 200 / 500 400 500: 100 200 200 400 400 500.. -> 400
 *   wrap: 2 -> the nine values of the image -> 500
 *   constant 450: 450 x5 with 100 200 400 500 -> 100 200 400 450 450 .. -> 450
 * and the bottom-right corner (2, 2), by the same reading with +1 past the edge:
 *   replicate, reflect: 500 600 600 / 800 900 900 / 800 900 900 -> 800
 *   mirror: 500 600 500 / 800 900 800 / 500 600 500 -> 600;  wrap -> 500
 *   constant 450: 500 600 800 900 with 450 x5, the smallest -> 450
 * G and B are constant 7 and 0.25 (float) so that they stay; alpha is the pixel's index. */
static void test_borders_by_hand(void)
{
    static const int corner[FV_BORDER_COUNT] = {200, 200, 400, 450, 500},
                     far[FV_BORDER_COUNT] = {800, 800, 600, 450, 500};
    for (int ti = 1; ti < 3; ti++) {
        const fv_pixel_type type = all_types[ti];
        const int is_float = type == FV_PIXEL_F32;
        fv_image src = typed_image(3, 3, type, TEST_PAD_BYTES),
                 dst = typed_image(3, 3, type, TEST_PAD_BYTES);
        /* R: v itself, or v / 1000 as a float */
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 3; x++) {
                const int v = 100 * (3 * y + x + 1);
                raw_set(&src, x, y, 0, is_float ? f32_bits((float)v / 1000) : (uint32_t)v);
                raw_set(&src, x, y, 1, is_float ? f32_bits(7) : 7);
                raw_set(&src, x, y, 2, is_float ? f32_bits(0.25f) : 60000);
                raw_set(&src, x, y, 3,
                        is_float ? f32_bits((float)(3 * y + x)) : (uint32_t)(3 * y + x));
            }
        for (int b = 0; b < FV_BORDER_COUNT; b++) {
            const double cval = is_float ? 0.45 : 450;
            const fv_params p = typed_params(3, type, (fv_border)b, cval);
            char what[96];
            snprintf(what, sizeof what, "%s %s", fv_pixel_type_name(type), fv_border_names[b]);
            int ok = test_ref_runs(median_config_make, median_ref, &src, &dst, &p, what);
            const int want[3] = {corner[b], 500, far[b]};
            const int at[3][2] = {{0, 0}, {1, 1}, {2, 2}};
            for (int i = 0; ok && i < 3; i++) {
                const uint32_t got = raw_get(&dst, at[i][0], at[i][1], 0);
                ok = is_float ? got == f32_bits((float)want[i] / 1000) : got == (uint32_t)want[i];
            }
            /* G and B: constant inside; the constant border outvotes them only at the corners
             * (5 of 9 there are cval) */
            for (int y = 0; ok && y < 3; y++)
                for (int x = 0; ok && x < 3; x++) {
                    const int cval_wins = b == FV_BORDER_CONSTANT && x != 1 && y != 1;
                    const uint32_t g = raw_get(&dst, x, y, 1), bl = raw_get(&dst, x, y, 2);
                    const uint32_t cv = is_float ? f32_bits(0.45f) : 450;
                    ok = g == (cval_wins ? cv : (is_float ? f32_bits(7) : 7)) &&
                         bl == (cval_wins ? cv : (is_float ? f32_bits(0.25f) : 60000)) &&
                         raw_get(&dst, x, y, 3) == raw_get(&src, x, y, 3);
                }
            test_check(&t, ok && typed_padding_intact(&dst),
                       "3x3 size 3 by hand: both corners, the centre, G and B, alpha kept:", what);
        }
        free(src.data), free(dst.data);
    }
}

/* float32 rows of 3, size 3, replicate (each window row is the same row, each value counted 3
 * times, so the window is the row's 3 columns three times over):
 *   NaN 1 2      x = 0: NaN x6, 1 x3 -> NaN;  x = 1: 1 1 1 2 2 2 NaN.. -> 2;  x = 2: 1 x3, 2 x6 -> 2
 *   -inf +inf 0  x = 0: -inf x6 -> -inf;      x = 1: -inf x3, 0 x3, +inf x3 -> 0;  x = 2 -> 0
 *   -0 +0 +0     x = 0: -0 x6 -> -0;          x = 1: -0 x3, +0 x6 -> +0;  x = 2 -> +0
 *   NaN(-, payload) 5 NaN   x = 0 -> NaN; x = 1: 5 x3, NaN x6 -> NaN; x = 2 -> NaN: a NaN of
 *   either sign and any payload sorts above everything and comes out as 0x7fc00000. */
static void test_nan_and_infinity(void)
{
    const float nan = NAN;
    const uint32_t neg_nan = 0xffc01234u;
    const uint32_t rows[4][3] = {
        {f32_bits(nan), f32_bits(1), f32_bits(2)},
        {f32_bits(-INFINITY), f32_bits(INFINITY), f32_bits(0)},
        {f32_bits(-0.0f), f32_bits(0.0f), f32_bits(0.0f)},
        {neg_nan, f32_bits(5), f32_bits(nan)},
    };
    const uint32_t want[4][3] = {
        {0x7fc00000u, f32_bits(2), f32_bits(2)},
        {f32_bits(-INFINITY), f32_bits(0), f32_bits(0)},
        {f32_bits(-0.0f), f32_bits(0.0f), f32_bits(0.0f)},
        {0x7fc00000u, 0x7fc00000u, 0x7fc00000u},
    };
    static const char *const names[4] = {"NaN 1 2 -> NaN 2 2", "-inf +inf 0 -> -inf 0 0",
                                         "-0 +0 +0 -> -0 +0 +0 (signs kept)",
                                         "-NaN 5 NaN -> NaN NaN NaN (0x7fc00000)"};
    for (int i = 0; i < 4; i++) {
        fv_image src = typed_image(3, 1, FV_PIXEL_F32, 0), dst = typed_image(3, 1, FV_PIXEL_F32, 0);
        for (int x = 0; x < 3; x++) {
            for (int c = 0; c < 3; c++) raw_set(&src, x, 0, c, rows[i][x]);
            raw_set(&src, x, 0, 3, f32_bits(nan)); /* alpha: passed through as it is */
        }
        const fv_params p = typed_params(3, FV_PIXEL_F32, FV_BORDER_REPLICATE, 0);
        int ok = test_ref_runs(median_config_make, median_ref, &src, &dst, &p, names[i]);
        for (int x = 0; ok && x < 3; x++)
            for (int c = 0; ok && c < 3; c++) ok = raw_get(&dst, x, 0, c) == want[i][x];
        for (int x = 0; ok && x < 3; x++) ok = raw_get(&dst, x, 0, 3) == f32_bits(nan);
        test_check(&t, ok, "float32 by hand:", names[i]);
        free(src.data), free(dst.data);
    }
    /* NaN's place decides: 5 NaN and 4 numbers in a 3x3 window give NaN (rank 4 is the first NaN),
     * 4 NaN and 5 numbers the largest number */
    for (int n_nan = 4; n_nan <= 5; n_nan++) {
        fv_image src = typed_image(3, 3, FV_PIXEL_F32, 0), dst = typed_image(3, 3, FV_PIXEL_F32, 0);
        for (int i = 0; i < 9; i++)
            for (int c = 0; c < 4; c++)
                raw_set(&src, i % 3, i / 3, c, i < n_nan ? f32_bits(nan) : f32_bits((float)i));
        const fv_params p = typed_params(3, FV_PIXEL_F32, FV_BORDER_WRAP, 0);
        const int ok = test_ref_runs(median_config_make, median_ref, &src, &dst, &p, "NaN count") &&
                       (n_nan == 5 ? isnan(f32_of(raw_get(&dst, 1, 1, 0)))
                                   : raw_get(&dst, 1, 1, 0) == f32_bits(8));
        test_check(&t, ok, "float32 3x3 wrap:",
                   n_nan == 5 ? "5 NaN of 9 -> NaN" : "4 NaN of 9 -> 8, the largest number");
        free(src.data), free(dst.data);
    }
}

/* The keys: float32's order is the numbers' (cmp_raw), every NaN one key above +infinity, and
 * back to the same bits for every number. */
static void test_keys(uint32_t *seed)
{
    brute_type = FV_PIXEL_F32;
    int ordered = 1, round_trip = 1;
    for (int i = 0; i < 200000 && ordered && round_trip; i++) {
        uint32_t a = test_rand(seed), b = test_rand(seed);
        if (i % 4 == 1) b = a ^ 0x80000000u; /* the same magnitude, the other sign: -0 and +0 too */
        if (i % 4 == 2)
            a = 0x7f800000u | (a & 0x807fffffu); /* infinities and NaNs of either sign */
        const uint32_t ka = median_key_of_f32(a), kb = median_key_of_f32(b);
        const int by_keys = (ka > kb) - (ka < kb), by_numbers = cmp_raw(&a, &b);
        ordered = by_keys == by_numbers;
        if (!isnan(f32_of(a)))
            round_trip = median_f32_of_key(ka) == a;
        else
            round_trip = ka == MEDIAN_KEY_NAN && median_f32_of_key(ka) == 0x7fc00000u;
    }
    test_check(&t, ordered, "float32 keys sort as the numbers, -0 below +0, NaN above +infinity",
               NULL);
    test_check(&t, round_trip, "float32 keys give back each number's bits, and NaN as 0x7fc00000",
               NULL);
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* fast's selection for k >= 11 (median_select_keys) against sorting, on windows of uint16 values
 * (all of them, four of them, or 40 close ones: ties), float32 keys (uniform, with NaN, infinities
 * and signed zeros, or close together) and all-equal windows, in a row longer than the window
 * (stride > k), gathering into an interleaved buffer. */
static void test_select_keys(uint32_t *seed)
{
    static uint32_t win[32 * 25], sorted[FV_MEDIAN_MAX_AREA];
    int ok = 1;
    char what[96] = "";
    for (int trial = 0; trial < 4000 && ok; trial++) {
        const int k = 11 + 2 * (trial % 8), stride = 32, n = k * k;
        for (int i = 0; i < k; i++)
            for (int j = 0; j < stride; j++) {
                const uint32_t u = test_rand(seed);
                uint32_t v;
                switch (trial % 7) {
                case 0: v = u >> 16; break;
                case 1: v = (u >> 8) % 4 * 1000; break;
                case 2: v = median_key_of_f32(f32_bits((float)(u >> 8) / 16777216.0f)); break;
                case 3: {
                    static const float special[4] = {INFINITY, -INFINITY, -0.0f, 0.0f};
                    v = u % 7 == 0 ? MEDIAN_KEY_NAN
                                   : median_key_of_f32(u % 7 < 5 ? f32_bits(special[u % 7 % 4])
                                                                 : f32_bits((float)u - 2e9f));
                    break;
                }
                case 4: v = 30000 + u % 40; break; /* close values: many ties at the median */
                case 5: v = median_key_of_f32(f32_bits(0.5f + (float)(u % 4096) * 1e-6f)); break;
                default: v = 12345; break;
                }
                win[i * stride + j] = v;
            }
        for (int i = 0; i < k; i++) memcpy(sorted + i * k, win + i * stride, sizeof(uint32_t) * k);
        qsort(sorted, (size_t)n, sizeof sorted[0], cmp_u32);
        uint32_t gathered[3 * MEDIAN_SELECT_CAP];
        memset(gathered, 0xa5, sizeof gathered);
        const uint32_t got = median_select_keys(win, stride, k, (uint32_t)(n - 1) / 2, gathered, 3);
        ok = got == sorted[(n - 1) / 2];
        snprintf(what, sizeof what, "size %d, kind %d: %08x, sorting %08x", k, trial % 7, got,
                 sorted[(n - 1) / 2]);
    }
    test_check(&t, ok, "fast's selection over the differing bits equals sorting, 4000 windows:",
               ok ? NULL : what);
}

/* The reference refuses a destination of another type. */
static void test_type_mismatch(void)
{
    fv_image src = typed_image(2, 2, FV_PIXEL_U16, 0), dst = typed_image(2, 2, FV_PIXEL_F32, 0);
    memset(src.data, 0, src.pitch * 2);
    const fv_params p = typed_params(3, FV_PIXEL_U16, FV_BORDER_REPLICATE, 0);
    median_config c;
    char why[200];
    test_check(
        &t, median_config_make(&p, &c, why, sizeof why) && median_ref(&src, &dst, &c) == FV_ERR_ARG,
        "median_ref refuses a float32 destination for a uint16 source", NULL);
    free(src.data), free(dst.data);
}

/* ---- the fast variant's networks, on the CPU: bytes of a 32-bit word as lanes --------------- */
static uint32_t lanes_min(uint32_t a, uint32_t b)
{
    uint32_t out = 0;
    for (int c = 0; c < 4; c++) {
        const uint32_t x = (a >> (8 * c)) & 0xffu, y = (b >> (8 * c)) & 0xffu;
        out |= (x < y ? x : y) << (8 * c);
    }
    return out;
}

static uint32_t lanes_max(uint32_t a, uint32_t b)
{
    return (a ^ b) ^ lanes_min(a, b);
}

#define MEDIAN_NET_T          uint32_t
#define MEDIAN_NET_MIN        lanes_min
#define MEDIAN_NET_MAX        lanes_max
#define MEDIAN_NET_FN         static
#define MEDIAN_NET_ARGS       const uint32_t *win, int stride
#define MEDIAN_NET_LOAD(r, c) win[(r)*stride + (c)]
#include "median/median_networks.h"

typedef void (*net_fn)(const uint32_t *, int, uint32_t *);

static void test_networks(uint32_t *seed)
{
    static const struct {
        int k, tx, ty;
        net_fn fn;
    } nets[] = {
        {3, MEDIAN_NET3_TX, MEDIAN_NET3_TY, median_net3},
        {5, MEDIAN_NET5_TX, MEDIAN_NET5_TY, median_net5},
        {7, MEDIAN_NET7_TX, MEDIAN_NET7_TY, median_net7},
        {9, MEDIAN_NET9_TX, MEDIAN_NET9_TY, median_net9},
    };
    for (size_t n = 0; n < sizeof nets / sizeof nets[0]; n++) {
        const int k = nets[n].k, tx = nets[n].tx, ty = nets[n].ty, w = tx + k - 1, h = ty + k - 1;
        fv_image win = test_image_padded(w, h, 0), want = test_image_padded(w, h, 0);
        int ok = 1;
        for (int trial = 0; ok && trial < 3000; trial++) {
            test_fill_random(&win, seed);
            if (trial % 3 == 0) /* few distinct values: ties everywhere */
                for (size_t b = 0; b < win.pitch * (size_t)h; b++) win.data[b] &= 3;
            uint32_t out[16];
            nets[n].fn((const uint32_t *)win.data, w, out);
            median_brute(&win, &want, k);
            for (int i = 0; ok && i < ty; i++)
                for (int j = 0; ok && j < tx; j++) {
                    uint32_t got = out[i * tx + j], expect;
                    memcpy(&expect, px(&want, j + k / 2, i + k / 2), 4);
                    ok = (got & 0xffffffu) == (expect & 0xffffffu);
                }
        }
        char what[64];
        snprintf(what, sizeof what, "size %d, %d x %d outputs, 3000 random windows", k, tx, ty);
        test_check(&t, ok, "the fast variant's network equals sorting:", what);
        free(win.data);
        free(want.data);
    }
}

/* ---- the parameter table and size checks ---------------------------------------------------- */
static void test_params(void)
{
    const fv_filter *f = fv_filter_find("median");
    test_check(&t, f != NULL, "the registry has 'median'", NULL);
    if (!f) return;
    const int i = fv_param_index(f, "size");
    test_check(&t, i == MEDIAN_SIZE, "its first parameter is 'size'", NULL);
    if (i != MEDIAN_SIZE) return;
    const fv_param_desc *d = &f->params[i];
    test_check(&t,
               d->odd_only && d->min == 3 && d->max == 25 && d->def == 3 && d->type == FV_PARAM_INT,
               "size: odd only, 3..25, default 3", NULL);
    double v = 0;
    test_check(&t, fv_param_parse(f, i, "7", "--size", &v) == FV_OK && v == 7, "--size 7 accepted",
               NULL);
    test_check(&t, fv_param_parse(f, i, "25", "--size", &v) == FV_OK, "--size 25 accepted", NULL);
    static const char *const bad[] = {"4", "1", "27", "2.5", "x"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
        test_check(&t, fv_param_parse(f, i, bad[b], "--size", &v) != FV_OK,
                   "--size refused:", bad[b]);
    fv_params p = fv_params_default(f);
    fv_param_step(f, &p, i, 1);
    test_check(&t, p.value[i] == 5, "one step up from 3 is 5", NULL);
    fv_image src = test_image_padded(2, 2, 0), dst = test_image_padded(2, 2, 0);
    memset(src.data, 0, src.pitch * 2);
    static const double refused[] = {4, 1, 27, 2.5};
    for (size_t b = 0; b < sizeof refused / sizeof refused[0]; b++) {
        fv_params q = median_params(3);
        q.value[MEDIAN_SIZE] = refused[b];
        const unsigned long long makes = fv_config_makes();
        test_check(&t, fv_params_check(f, &q) == FV_ERR_ARG && fv_config_makes() == makes,
                   "a size that is even, out of range or not whole is refused by its range, "
                   "before any configuration",
                   NULL);
    }
    free(src.data);
    free(dst.data);
}

/* ---- source noise --------------------------------------------------------------------------- */
static void test_noise(uint32_t *seed)
{
    const int w = 509, h = 401; /* 204109 pixels */
    const double n = (double)w * h;
    fv_image a = test_image_padded(w, h, TEST_PAD_BYTES),
             b = test_image_padded(w, h, TEST_PAD_BYTES),
             orig = test_image_padded(w, h, TEST_PAD_BYTES);
    test_fill_random(&orig, seed);
    static const double densities[] = {0.0, 0.01, 0.1, 0.25, 0.5};
    for (size_t di = 0; di < sizeof densities / sizeof densities[0]; di++) {
        const double d = densities[di];
        const fv_noise noise = {.density = d, .sigma = 0, .seed = 1234};
        memcpy(a.data, orig.data, a.pitch * h);
        memcpy(b.data, orig.data, b.pitch * h);
        int ok =
            fv_noise_apply_host(&a, &noise) == FV_OK && fv_noise_apply_host(&b, &noise) == FV_OK;
        test_check(&t, ok && memcmp(a.data, b.data, a.pitch * h) == 0,
                   "noise: the same seed makes the same image", NULL);
        long long salt = 0, pepper = 0, alpha_changed = 0, other = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint8_t *p = px(&a, x, y), *o = px(&orig, x, y);
                alpha_changed += p[3] != o[3];
                if (memcmp(p, o, 3) == 0) continue;
                if (p[0] == 255 && p[1] == 255 && p[2] == 255)
                    salt++;
                else if (p[0] == 0 && p[1] == 0 && p[2] == 0)
                    pepper++;
                else
                    other++;
            }
        /* a hit that draws the colour it already had goes unseen: at most 2 of 2^24 colours */
        const double measured = (salt + pepper) / n, bound = 5 * sqrt(d * (1 - d) / n) + 1 / n;
        char what[160];
        snprintf(what, sizeof what,
                 "density %.2f: measured %.4f (bound +-%.4f), salt %lld, pepper %lld", d, measured,
                 bound, salt, pepper);
        test_check(
            &t,
            fabs(measured - d) <= bound && other == 0 && alpha_changed == 0 &&
                test_padding_intact(&a),
            "noise: measured salt-and-pepper density within 5 standard deviations, alpha kept:",
            what);
        test_check(&t, d == 0 || fabs((double)salt - pepper) <= 5 * sqrt(salt + pepper),
                   "noise: salt and pepper balanced:", what);
    }
    /* another seed, another image */
    const fv_noise n1 = {.density = 0.2, .seed = 1}, n2 = {.density = 0.2, .seed = 2};
    memcpy(a.data, orig.data, a.pitch * h);
    memcpy(b.data, orig.data, b.pitch * h);
    fv_noise_apply_host(&a, &n1);
    fv_noise_apply_host(&b, &n2);
    test_check(&t, memcmp(a.data, b.data, a.pitch * h) != 0,
               "noise: another seed makes another image", NULL);
    /* Gaussian on mid-grey (no clamping at +-3.46 sigma = 69): mean 0, standard deviation sigma */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) memset(px(&a, x, y), 128, 4);
    const fv_noise g = {.density = 0, .sigma = 20, .seed = 99};
    fv_noise_apply_host(&a, &g);
    double sum = 0, sq = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++) {
                const double dv = px(&a, x, y)[c] - 128.0;
                sum += dv;
                sq += dv * dv;
            }
    const double mean = sum / (3 * n), sd = sqrt(sq / (3 * n) - mean * mean);
    char what[96];
    snprintf(what, sizeof what, "sigma 20: mean %.3f, standard deviation %.3f", mean, sd);
    test_check(&t, fabs(mean) < 0.1 && fabs(sd - 20) < 0.3 && px(&a, 7, 7)[3] == 128,
               "noise: Gaussian mean and sigma as asked, alpha kept:", what);
    /* the host applies fv_noise_pixel, the function the device runs, with the same integers */
    const fv_noise both = {.density = 0.3, .sigma = 12, .seed = 7};
    fv_noise_q q;
    memcpy(a.data, orig.data, a.pitch * h);
    int same = fv_noise_prepare(&both, &q) == FV_OK && fv_noise_apply_host(&a, &both) == FV_OK;
    for (int y = 0; same && y < h; y += 13)
        for (int x = 0; same && x < w; x += 7) {
            uint32_t p, o;
            memcpy(&p, px(&a, x, y), 4);
            memcpy(&o, px(&orig, x, y), 4);
            same = p == fv_noise_pixel(o, x, y, q);
        }
    test_check(&t, same, "noise: the host image is fv_noise_pixel's, the device's formula", NULL);
    const fv_noise too_dense = {.density = 0.6}, negative = {.density = -0.1},
                   loud = {.sigma = 200};
    test_check(&t,
               fv_noise_prepare(&too_dense, &q) == FV_ERR_ARG &&
                   fv_noise_prepare(&negative, &q) == FV_ERR_ARG &&
                   fv_noise_prepare(&loud, &q) == FV_ERR_ARG,
               "noise: density beyond 0..0.5 and sigma beyond 0..128 refused", NULL);
    free(a.data);
    free(b.data);
    free(orig.data);
}

/* ---- against scipy -------------------------------------------------------------------------- */
/* Writes one case file for tests/cpu/median_scipy.py: "width height size type border cval", then
 * the source's and the reference's pixels. 1 when written. */
static int scipy_case_write(const char *path, const fv_image *src, const fv_image *dst, int k,
                            fv_border border, double cval)
{
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    const size_t row = 4 * fv_pixel_type_bytes(src->type) * (size_t)src->width;
    int ok = fprintf(f, "%d %d %d %s %s %.17g\n", src->width, src->height, k,
                     fv_pixel_type_name(src->type), fv_border_names[border], cval) > 0;
    for (int y = 0; ok && y < src->height; y++)
        ok = fwrite(src->data + (size_t)y * src->pitch, 1, row, f) == row;
    for (int y = 0; ok && y < dst->height; y++)
        ok = fwrite(dst->data + (size_t)y * dst->pitch, 1, row, f) == row;
    return fclose(f) == 0 && ok;
}

/* Every type x border on three of the awkward sizes below (in turn, so that each size meets every
 * type), float32 also with NaN (checked against numpy.sort); uint8 sometimes with noise. */
static int test_scipy(int argc, char **argv, uint32_t *seed)
{
    const char *script = argv[0], *dir = argv[1];
    (void)argc;
    static const int cases[][3] = {{37, 23, 3},  {64, 48, 5}, {1, 9, 7},    {9, 1, 9},
                                   {50, 41, 15}, {2, 3, 25},  {31, 33, 25}, {1, 1, 11}};
    const int n_sizes = (int)(sizeof cases / sizeof cases[0]);
    char files[8192] = "";
    int n = 0;
    for (int ti = 0; ti < 3; ti++)
        for (int b = 0; b < FV_BORDER_COUNT; b++)
            for (int j = 0; j < 3 + (all_types[ti] == FV_PIXEL_F32); j++, n++) {
                const fv_pixel_type type = all_types[ti];
                const int nan = j == 3, *c = cases[(n * 3 + j) % n_sizes];
                const int w = c[0], h = c[1], k = c[2];
                fv_image src = typed_image(w, h, type, 0), dst = typed_image(w, h, type, 0);
                typed_fill(&src, seed, n, nan);
                if (type == FV_PIXEL_U8 && n % 2) {
                    const fv_noise noise = {.density = 0.25, .sigma = 8, .seed = *seed};
                    fv_noise_apply_host(&src, &noise);
                }
                const double cval = case_cval(type, n);
                const fv_params p = typed_params(k, type, (fv_border)b, cval);
                char path[1024];
                snprintf(path, sizeof path, "%s/median_%d.raw", dir, n);
                const int ok =
                    test_ref_runs(median_config_make, median_ref, &src, &dst, &p, path) &&
                    scipy_case_write(path, &src, &dst, k, (fv_border)b, cval);
                test_check(&t, ok && test_files_add(files, sizeof files, path),
                           "case file written:", path);
                free(src.data), free(dst.data);
            }
    if (t.failed) return test_finish(&t);
    const int code = test_python(script, files);
    if (code == 77) {
        printf("skipped: python3 with numpy and scipy is needed\n");
        return 77;
    }
    test_check(&t, code == 0,
               "median_ref equals scipy.ndimage.median_filter in every type and border (NaN: "
               "numpy.sort)",
               NULL);
    return test_finish(&t);
}

int main(int argc, char **argv)
{
    static const test_group groups[] = {
        TEST_GROUP(test_ties),
        TEST_GROUP(test_constant),
        TEST_GROUP(test_outlier),
        TEST_GROUP(test_larger_than_image),
        TEST_SEEDED(test_against_brute),
        TEST_SEEDED(test_networks),
        TEST_GROUP(test_params),
        TEST_SEEDED(test_noise),
        TEST_GROUP(test_borders_by_hand),
        TEST_GROUP(test_nan_and_infinity),
        TEST_GROUP(test_type_mismatch),
        TEST_SEEDED(test_types_against_brute),
        TEST_SEEDED(test_keys),
        TEST_SEEDED(test_select_keys),
    };
    static const test_mode modes[] = {
        {"--scipy", 2, "SCRIPT DIR: the reference against scipy", test_scipy}};
    return test_main(argc, argv, groups, sizeof groups / sizeof groups[0], modes, 1);
}
