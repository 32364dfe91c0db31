/* ------------------------------------------------------------------------------------------------
 * tests/test_ref.c (label cpu): the CPU references on tiny images with hand-computed answers,
 * the integer Gaussian weights, the separable reference against a brute-force 2-D sum, the host
 * iteration driver and parameter validation. Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian_taps.h"
#include "ref/refs.h"
#include "test_util.h"

#include <math.h>

static test_counts t;

static uint8_t *px(const fv_image *img, int x, int y)
{
    return img->data + (size_t)y * img->pitch + 4 * (size_t)x;
}

static fv_params gaussian_params(float sigma, int radius, int iterations)
{
    fv_params p = fv_params_default();
    p.sigma = sigma;
    p.radius = radius;
    p.iterations = iterations;
    return p;
}

/* The definition: out = (sum_ij w_i w_j p(clamp(y+i), clamp(x+j)) + 32768) >> 16, alpha kept. */
static void gaussian_brute_2d(const fv_image *src, fv_image *dst, const fv_params *p)
{
    fv_gaussian_taps taps;
    fv_gaussian_taps_make(p, &taps);
    const int r = taps.radius;
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int c = 0; c < 4; c++) {
                if (c == 3) {
                    px(dst, x, y)[3] = px(src, x, y)[3];
                    continue;
                }
                uint32_t sum = 32768;
                for (int i = -r; i <= r; i++)
                    for (int j = -r; j <= r; j++) {
                        int yy = y + i < 0 ? 0 : (y + i >= src->height ? src->height - 1 : y + i);
                        int xx = x + j < 0 ? 0 : (x + j >= src->width ? src->width - 1 : x + j);
                        sum += (uint32_t)(taps.w[r + i] * taps.w[r + j]) * px(src, xx, yy)[c];
                    }
                px(dst, x, y)[c] = (uint8_t)(sum >> 16);
            }
}

static void test_taps(void)
{
    fv_params p = gaussian_params(1.0f, 2, 1);
    fv_gaussian_taps taps;
    test_check(&t, fv_gaussian_taps_make(&p, &taps) == FV_OK, "taps sigma 1 r 2", NULL);
    static const int want[5] = {14, 62, 104, 62, 14}; /* worked out in the commit message */
    test_check(&t, taps.radius == 2 && memcmp(taps.w, want, sizeof want) == 0,
               "sigma 1 radius 2 weights are 14 62 104 62 14", NULL);

    const float sigmas[] = {0.1f, 0.5f, 0.8f, 1.0f, 1.5f, 2.0f, 3.3f, 5.0f, 7.7f, 10.6f};
    for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++) {
        p = gaussian_params(sigmas[i], 0, 1);
        char what[64];
        snprintf(what, sizeof what, "sigma %g", sigmas[i]);
        int ok = fv_gaussian_taps_make(&p, &taps) == FV_OK;
        int r = taps.radius, sum = 0, symmetric = 1, monotone = 1;
        ok = ok && r == (int)ceil(3.0 * sigmas[i] - 1e-9);
        for (int k = -r; ok && k <= r; k++) {
            sum += taps.w[r + k];
            symmetric &= taps.w[r + k] == taps.w[r - k] && taps.w[r + k] >= 0;
            if (k > 0) monotone &= taps.w[r + k] <= taps.w[r + k - 1];
        }
        test_check(&t, ok && sum == 256 && symmetric && monotone,
                   "weights sum to 256, symmetric, non-increasing, radius ceil(3 sigma):", what);
    }
    p = gaussian_params(10.7f, 0, 1);
    test_check(&t, fv_gaussian_taps_make(&p, &taps) == FV_ERR_ARG, "sigma 10.7 needs radius 33: refused", NULL);
}

static void test_params(void)
{
    const struct { float sigma; int radius, iterations; fv_status want; } cases[] = {
        {1.0f, 2, 1, FV_OK},          {0.0f, 0, 1, FV_ERR_ARG},     {-1.0f, 0, 1, FV_ERR_ARG},
        {NAN, 0, 1, FV_ERR_ARG},      {INFINITY, 0, 1, FV_ERR_ARG}, {1.0f, 33, 1, FV_ERR_ARG},
        {1.0f, -1, 1, FV_ERR_ARG},    {1.0f, 2, 0, FV_ERR_ARG},     {1.0f, 2, 10001, FV_ERR_ARG},
        {1.0f, 2, 10000, FV_OK},      {10.6f, 0, 1, FV_OK},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fv_params p = gaussian_params(cases[i].sigma, cases[i].radius, cases[i].iterations);
        char what[96];
        snprintf(what, sizeof what, "(sigma %g radius %d iterations %d)", cases[i].sigma,
                 cases[i].radius, cases[i].iterations);
        fv_status got = gaussian_check_params(&p);
        test_check(&t, got == cases[i].want, "gaussian_check_params", what);
        if (got != FV_OK) test_check(&t, strlen(fv_last_error()) > 10, "error message set", what);
    }
    fv_params p = fv_params_default();
    p.iterations = 0;
    test_check(&t, invert_check_params(&p) == FV_ERR_ARG, "invert refuses 0 iterations", NULL);
}

static void test_gaussian_hand_computed(void)
{
    fv_image src, dst;
    fv_host_image_alloc(&src, 5, 5);
    fv_host_image_alloc(&dst, 5, 5);
    memset(src.data, 0, src.pitch * 5);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) px(&src, x, y)[3] = (uint8_t)(10 * y + x); /* alpha marks */
    px(&src, 2, 2)[0] = 255; /* an impulse in red */
    px(&src, 2, 2)[1] = 128; /* and a smaller one in green */
    fv_params p = gaussian_params(1.0f, 2, 1);
    gaussian_ref(&src, &dst, &p);
    /* red at offset (dy, dx) = (w[dy] * w[dx] * 255 + 32768) >> 16 with w = 14 62 104 62 14:
     * centre 104*104*255 = 2758080 -> 42; (0,1) 104*62*255 = 1644240 -> 25;
     * (1,1) 62*62*255 = 980220 -> 15; (0,2) 104*14*255 = 371280 -> 6; (2,2) 14*14*255 -> 1 */
    test_check(&t, px(&dst, 2, 2)[0] == 42, "impulse centre = 42", NULL);
    test_check(&t, px(&dst, 3, 2)[0] == 25 && px(&dst, 2, 1)[0] == 25, "impulse (0,1) = 25", NULL);
    test_check(&t, px(&dst, 3, 3)[0] == 15 && px(&dst, 1, 1)[0] == 15, "impulse (1,1) = 15", NULL);
    test_check(&t, px(&dst, 4, 2)[0] == 6 && px(&dst, 2, 0)[0] == 6, "impulse (0,2) = 6", NULL);
    test_check(&t, px(&dst, 4, 4)[0] == 1 && px(&dst, 0, 0)[0] == 1, "impulse (2,2) = 1", NULL);
    /* green 128: centre 104*104*128 = 1384448 + 32768 -> 21 */
    test_check(&t, px(&dst, 2, 2)[1] == 21, "green impulse centre = 21", NULL);
    int alpha_kept = 1, blue_zero = 1;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 5; x++) {
            alpha_kept &= px(&dst, x, y)[3] == 10 * y + x;
            blue_zero &= px(&dst, x, y)[2] == 0;
        }
    test_check(&t, alpha_kept, "alpha passed through unchanged", NULL);
    test_check(&t, blue_zero, "a zero channel stays zero", NULL);

    /* a constant image stays constant for any sigma: sum w_i w_j c = 65536 c */
    for (int c = 0; c < 256; c += 51) {
        memset(src.data, c, src.pitch * 5);
        p = gaussian_params(2.5f, 0, 1);
        gaussian_ref(&src, &dst, &p);
        int same = 1;
        for (size_t i = 0; i < dst.pitch * 5; i++) same &= dst.data[i] == c;
        test_check(&t, same, "constant image unchanged", NULL);
    }
    fv_host_image_free(&src);
    fv_host_image_free(&dst);

    /* 1x1: clamping makes every tap the pixel itself */
    fv_host_image_alloc(&src, 1, 1);
    fv_host_image_alloc(&dst, 1, 1);
    const uint8_t one[4] = {200, 7, 99, 31};
    memcpy(src.data, one, 4);
    p = gaussian_params(4.0f, 0, 1);
    gaussian_ref(&src, &dst, &p);
    test_check(&t, memcmp(dst.data, one, 4) == 0, "1x1 image unchanged", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
}

static void test_gaussian_matches_2d_definition(uint32_t *seed)
{
    const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {13, 11}, {40, 7}, {31, 17}};
    const fv_params params[] = {gaussian_params(1.0f, 2, 1), gaussian_params(0.5f, 0, 1),
                                gaussian_params(2.0f, 0, 1), gaussian_params(1.0f, 1, 1),
                                gaussian_params(5.0f, 0, 1)};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
            fv_image src, a, b;
            fv_host_image_alloc(&src, sizes[si][0], sizes[si][1]);
            fv_host_image_alloc(&a, sizes[si][0], sizes[si][1]);
            fv_host_image_alloc(&b, sizes[si][0], sizes[si][1]);
            test_fill_random(&src, seed);
            gaussian_ref(&src, &a, &params[pi]);
            gaussian_brute_2d(&src, &b, &params[pi]);
            int fx, fy;
            char what[96];
            snprintf(what, sizeof what, "%dx%d sigma %g radius %d", sizes[si][0], sizes[si][1],
                     params[pi].sigma, params[pi].radius);
            test_check(&t, test_max_abs_diff(&a, &b, 0, &fx, &fy) == 0,
                       "separable reference equals the 2-D definition:", what);
            fv_host_image_free(&src);
            fv_host_image_free(&a);
            fv_host_image_free(&b);
        }
}

static void test_invert_and_iterations(uint32_t *seed)
{
    fv_image src, once, twice, tmp;
    fv_host_image_alloc(&src, 17, 5);
    fv_host_image_alloc(&once, 17, 5);
    fv_host_image_alloc(&twice, 17, 5);
    fv_host_image_alloc(&tmp, 17, 5);
    test_fill_random(&src, seed);
    fv_params p = fv_params_default();
    invert_ref(&src, &once, &p);
    const uint8_t *s = px(&src, 3, 2), *o = px(&once, 3, 2);
    test_check(&t, o[0] == 255 - s[0] && o[1] == 255 - s[1] && o[2] == 255 - s[2] && o[3] == s[3],
               "invert: 255 - value, alpha kept", NULL);
    int fx, fy;
    fv_filter invert = {"invert", "", invert_ref, invert_check_params, fv_describe_no_params,
                        NULL, 0, 0, 8.0};
    p.iterations = 2;
    test_check(&t, fv_run_host(&invert, &src, &twice, &p, &tmp) == FV_OK, "two host passes run", NULL);
    test_check(&t, test_max_abs_diff(&src, &twice, 0, &fx, &fy) == 0, "invert twice = identity", NULL);

    /* the host driver's ping-pong: 3 gaussian passes = ref(ref(ref(x))) */
    fv_filter gaussian = {"gaussian", "", gaussian_ref, gaussian_check_params,
                          gaussian_describe_params, NULL, 0, 0, 8.0};
    fv_params g = gaussian_params(1.5f, 0, 1);
    gaussian_ref(&src, &once, &g);
    gaussian_ref(&once, &tmp, &g);
    gaussian_ref(&tmp, &once, &g);
    g.iterations = 3;
    fv_image scratch;
    fv_host_image_alloc(&scratch, 17, 5);
    test_check(&t, fv_run_host(&gaussian, &src, &twice, &g, &scratch) == FV_OK, "three host passes run", NULL);
    test_check(&t, test_max_abs_diff(&once, &twice, 0, &fx, &fy) == 0,
               "3 iterations equal three chained passes", NULL);
    g.iterations = 2;
    test_check(&t, fv_run_host(&gaussian, &src, &twice, &g, NULL) == FV_ERR_ARG,
               "iterations without scratch refused", NULL);
    fv_host_image_free(&scratch);
    fv_host_image_free(&src);
    fv_host_image_free(&once);
    fv_host_image_free(&twice);
    fv_host_image_free(&tmp);
}

static void test_dimensions(void)
{
    test_check(&t, fv_check_dimensions(0, 5) == FV_ERR_SIZE, "width 0 refused", NULL);
    test_check(&t, fv_check_dimensions(5, -1) == FV_ERR_SIZE, "negative height refused", NULL);
    test_check(&t, fv_check_dimensions(40000, 2) == FV_ERR_SIZE, "40000 wide refused", NULL);
    test_check(&t, fv_check_dimensions(20000, 20000) == FV_ERR_SIZE, "400 Mpixels refused", NULL);
    test_check(&t, fv_check_dimensions(1, 1) == FV_OK && fv_check_dimensions(9984, 6400) == FV_OK,
               "1x1 and 9984x6400 accepted", NULL);
}

int main(void)
{
    uint32_t seed = test_seed();
    test_taps();
    test_params();
    test_gaussian_hand_computed();
    test_gaussian_matches_2d_definition(&seed);
    test_invert_and_iterations(&seed);
    test_dimensions();
    return test_finish(&t);
}
