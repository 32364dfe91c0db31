/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_median_ref.c (label cpu): the median filter's reference (kernels/median/median_ref.c) on
 * tiny images with hand-worked medians (ties, constant regions, a single outlier, windows larger
 * than the image, 1x1, 1xN), against sorting each window on random and noisy images of awkward
 * sizes and pitches; the `fast` variant's generated networks (kernels/median/median_networks.h) run on
 * the CPU against sorting; the parameter table; the source noise (kernels/core/noise.h): determinism,
 * measured density and sigma, alpha kept. With `--scipy SCRIPT DIR` instead: the reference
 * against scipy.ndimage.median_filter(mode='nearest') through tests/cpu/median_scipy.py (exit 77,
 * skipped, where python3, numpy or scipy is missing). Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "median/median.h"
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
    return test_ref_runs(median_ref, src, dst, &p, what);
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
        test_check(&t, median_ref(&src, &dst, &q) == FV_ERR_ARG,
                   "median_ref refuses a size that is even, out of range or not whole", NULL);
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
static int test_scipy(int argc, char **argv, uint32_t *seed)
{
    const char *script = argv[0], *dir = argv[1];
    (void)argc;
    static const int cases[][3] = {{37, 23, 3},  {64, 48, 5},  {1, 9, 7}, {9, 1, 9},
                                   {50, 41, 15}, {31, 33, 25}, {2, 3, 25}};
    char files[3072] = "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int w = cases[i][0], h = cases[i][1], k = cases[i][2];
        fv_image src = test_image_padded(w, h, 0), dst = test_image_padded(w, h, 0);
        test_fill_random(&src, seed);
        if (i % 2) {
            const fv_noise noise = {.density = 0.25, .sigma = 8, .seed = *seed};
            fv_noise_apply_host(&src, &noise);
        }
        int ok = run_ref(&src, &dst, k);
        char path[1024];
        snprintf(path, sizeof path, "%s/median_case_%zu.raw", dir, i);
        FILE *f = fopen(path, "wb");
        ok = ok && f && fprintf(f, "%d %d %d\n", w, h, k) > 0 &&
             fwrite(src.data, 4, (size_t)w * h, f) == (size_t)w * h &&
             fwrite(dst.data, 4, (size_t)w * h, f) == (size_t)w * h;
        if (f) ok = fclose(f) == 0 && ok;
        test_check(&t, ok && test_files_add(files, sizeof files, path), "case file written:", path);
        free(src.data);
        free(dst.data);
    }
    if (t.failed) return test_finish(&t);
    const int code = test_python(script, files);
    if (code == 77) {
        printf("skipped: python3 with numpy and scipy is needed\n");
        return 77;
    }
    test_check(&t, code == 0, "median_ref equals scipy.ndimage.median_filter(mode='nearest')",
               NULL);
    return test_finish(&t);
}

int main(int argc, char **argv)
{
    static const test_group groups[] = {
        TEST_GROUP(test_ties),           TEST_GROUP(test_constant),
        TEST_GROUP(test_outlier),        TEST_GROUP(test_larger_than_image),
        TEST_SEEDED(test_against_brute), TEST_SEEDED(test_networks),
        TEST_GROUP(test_params),         TEST_SEEDED(test_noise),
    };
    static const test_mode modes[] = {
        {"--scipy", 2, "SCRIPT DIR: the reference against scipy", test_scipy}};
    return test_main(argc, argv, groups, sizeof groups / sizeof groups[0], modes, 1);
}
