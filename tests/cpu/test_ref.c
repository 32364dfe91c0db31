/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_ref.c (label cpu): the CPU references on tiny images with hand-computed answers,
 * the integer Gaussian weights, the separable reference against a brute-force 2-D sum, the host
 * iteration driver and parameter validation; the weights for several sigmas worked out in the
 * test from their definition, exactly. With `--scipy SCRIPT DIR PHOTOS...` instead: the reference
 * against scipy.ndimage.gaussian_filter through tests/cpu/gaussian_photos_scipy.py, on the photos and
 * random images (exit 77, skipped, without numpy and scipy). Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian/gaussian_taps.h"
#include "invert/invert.h"
#include "image_io.h"
#include "test_skeleton.h"

#include <math.h>

static fv_params gaussian_params(double sigma, int radius, int iterations)
{
    fv_params p = test_params_blank();
    p.value[GAUSSIAN_SIGMA] = sigma;
    p.value[GAUSSIAN_RADIUS] = radius;
    p.iterations = iterations;
    return p;
}

/* The Gaussian's configuration of p (its range checks are the registry's: sigma and radius
 * here are in range); 0 where the configuration refuses p. */
static int gaussian_config_of(const fv_params *p, gaussian_config *c)
{
    char why[200];
    return gaussian_config_make(p, c, why, sizeof why);
}

/* Its weights; 0 where the configuration refuses p. */
static int gaussian_taps_of(const fv_params *p, fv_gaussian_taps *taps)
{
    gaussian_config c;
    if (!gaussian_config_of(p, &c)) return 0;
    *taps = c.taps;
    return 1;
}

/* The definition: out = (sum_ij w_i w_j p(clamp(y+i), clamp(x+j)) + 32768) >> 16, alpha kept. */
static void gaussian_brute_2d(const fv_image *src, fv_image *dst, const fv_params *p)
{
    fv_gaussian_taps taps = {0};
    gaussian_taps_of(p, &taps);
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

/* The weights worked out here, from their definition and not from gaussian_taps.c: the exact
 * e_k = 256 g_k / sum(g) with g_k = exp(-k^2 / (2 sigma^2)) over -r..r, floored, the units still
 * missing to 256 handed out by largest remainder in symmetric pairs (offsets k and -k), an odd
 * unit and any left over to the centre. w[r + k] is offset k's weight. */
static int weights_by_definition(double sigma, int r, int *w)
{
    double e[2 * FV_GAUSSIAN_MAX_RADIUS + 1], total = 0;
    for (int k = -r; k <= r; k++) total += exp(-(double)(k * k) / (2 * sigma * sigma));
    int sum = 0;
    for (int k = -r; k <= r; k++) {
        e[r + k] = 256 * exp(-(double)(k * k) / (2 * sigma * sigma)) / total;
        w[r + k] = (int)floor(e[r + k]);
        sum += w[r + k];
    }
    int missing = 256 - sum, used[FV_GAUSSIAN_MAX_RADIUS + 1] = {0};
    if (missing % 2) w[r]++, missing--;
    while (missing >= 2) {
        int best = 0;
        for (int k = 1; k <= r; k++)
            if (!used[k] &&
                (best == 0 || e[r + k] - floor(e[r + k]) > e[r + best] - floor(e[r + best])))
                best = k;
        if (best == 0) break;
        used[best] = 1;
        w[r + best]++;
        w[r - best]++;
        missing -= 2;
    }
    w[r] += missing;
    return 2 * r + 1;
}

/* The weights for several sigmas, exactly: two worked by hand, the rest from the definition
 * above. A sigma used wrongly (any sigma other than 1 gives other weights) fails here. */
static void test_taps_exact(void)
{
    /* sigma 0.5, radius 2: g = 1, e^-2, e^-8; sum(g) = 1.27134; e = 201.36, 27.25, 0.07; floors
     * 201 + 2 x 27 + 0 = 255; the missing unit is odd: the centre's */
    static const int half[5] = {0, 27, 202, 27, 0};
    /* sigma 0.5, radius 1 (given): g = 1, e^-2; e = 201.43, 27.28; floors 255, centre + 1 */
    static const int half_r1[3] = {27, 202, 27};
    fv_gaussian_taps taps;
    fv_params p = gaussian_params(0.5, 0, 1);
    test_check(&t,
               gaussian_taps_of(&p, &taps) && taps.radius == 2 &&
                   memcmp(taps.w, half, sizeof half) == 0,
               "sigma 0.5 weights are 0 27 202 27 0", NULL);
    p = gaussian_params(0.5, 1, 1);
    test_check(&t,
               gaussian_taps_of(&p, &taps) && taps.radius == 1 &&
                   memcmp(taps.w, half_r1, sizeof half_r1) == 0,
               "sigma 0.5 radius 1 weights are 27 202 27", NULL);
    static const double cases[][2] = {/* sigma, radius (0: ceil(3 sigma)) */
                                      {0.5, 0}, {1.0, 0}, {2.5, 0},  {7.7, 0},  {10.66, 0},
                                      {1.3, 0}, {3.0, 5}, {8.0, 25}, {0.1, 32}, {4.0, 23},
                                      {2.0, 5}, {1.0, 3}, {10.6, 0}, {5.0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const double sigma = cases[i][0];
        const int radius = (int)cases[i][1];
        const int r = radius ? radius : (int)ceil(3 * sigma - 1e-9);
        int want[2 * FV_GAUSSIAN_MAX_RADIUS + 1];
        weights_by_definition(sigma, r, want);
        p = gaussian_params(sigma, radius, 1);
        const int ok = gaussian_taps_of(&p, &taps) && taps.radius == r;
        char what[600];
        int len = snprintf(what, sizeof what, "sigma %g radius %d: got", sigma, r);
        for (int k = 0; ok && k <= r && len < 400; k++)
            len += snprintf(what + len, sizeof what - (size_t)len, " %d", taps.w[r + k]);
        len += snprintf(what + len, sizeof what - (size_t)len, ", want");
        for (int k = 0; k <= r && len < 580; k++)
            len += snprintf(what + len, sizeof what - (size_t)len, " %d", want[r + k]);
        test_check(&t, ok && memcmp(taps.w, want, sizeof(int) * (size_t)(2 * r + 1)) == 0,
                   "weights equal the definition's (offsets 0..r):", what);
    }
}

static void test_taps(void)
{
    fv_params p = gaussian_params(1.0, 2, 1);
    fv_gaussian_taps taps;
    test_check(&t, gaussian_taps_of(&p, &taps), "taps sigma 1 r 2", NULL);
    static const int want[5] = {14, 62, 104, 62, 14}; /* worked out in the commit message */
    test_check(&t, taps.radius == 2 && memcmp(taps.w, want, sizeof want) == 0,
               "sigma 1 radius 2 weights are 14 62 104 62 14", NULL);

    const double sigmas[] = {0.1, 0.5, 0.8, 1.0, 1.5, 2.0, 3.3, 5.0, 7.7, 10.6, 10.66};
    for (size_t i = 0; i < sizeof sigmas / sizeof sigmas[0]; i++) {
        p = gaussian_params(sigmas[i], 0, 1);
        char what[64];
        snprintf(what, sizeof what, "sigma %g", sigmas[i]);
        int ok = gaussian_taps_of(&p, &taps);
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
    p = gaussian_params(10.7, 0, 1);
    test_check(&t, !gaussian_taps_of(&p, &taps), "sigma 10.7 refused", NULL);
}

/* A parameter table with every kind of parameter, as a filter would declare it. */
static const char *const norms[] = {"l1", "l2"};
static const fv_param_desc table[] = {
    {.name = "sigma",
     .help = "h",
     .type = FV_PARAM_REAL,
     .min = 0.1,
     .max = 10.66,
     .step = 0.25,
     .def = 1},
    {.name = "radius",
     .help = "h",
     .type = FV_PARAM_INT,
     .min = 1,
     .max = 32,
     .step = 1,
     .def = 2,
     .auto_means = "ceil(3 sigma)",
     .follows = "sigma"},
    {.name = "size",
     .help = "h",
     .type = FV_PARAM_INT,
     .min = 3,
     .max = 25,
     .step = 2,
     .def = 3,
     .odd_only = 1},
    {.name = "norm",
     .help = "h",
     .type = FV_PARAM_CHOICE,
     .def = 1,
     .choices = norms,
     .n_choices = 2},
};
static const fv_filter table_filter = {.name = "table",
                                       .params = table,
                                       .n_params = 4,
                                       .config_make = gaussian_config_make,
                                       .config_bytes = sizeof(gaussian_config),
                                       .resolve = gaussian_resolve,
                                       .max_iterations = 100};

static void test_param_tables(void)
{
    const fv_filter *f = &table_filter;
    fv_params p = fv_params_default(f);
    test_check(&t,
               p.value[0] == 1 && p.value[1] == 2 && p.value[2] == 3 && p.value[3] == 1 &&
                   p.iterations == 1,
               "defaults come from the table", NULL);
    test_check(&t, fv_param_index(f, "size") == 2 && fv_param_index(f, "nope") == -1,
               "look-up by name", NULL);
    /* good values */
    const struct {
        int index;
        const char *text;
        double want;
    } good[] = {
        {0, "2.5", 2.5}, {0, "0.1", 0.1}, {0, "10.66", 10.66}, {0, "1e0", 1},
        {1, "0", 0},     {1, "32", 32},   {2, "25", 25},       {2, "3", 3},
        {3, "l1", 0},    {3, "l2", 1},    {1, "+7", 7},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        double v = -1;
        test_check(&t,
                   fv_param_parse(f, good[i].index, good[i].text, "--x", &v) == FV_OK &&
                       v == good[i].want,
                   "accepted:", good[i].text);
    }
    /* bad ones: one line that names the flag, what is allowed and what was given */
    const struct {
        int index;
        const char *text;
        const char *message;
    } bad[] = {
        {0, "0", "--x: expected a number 0.1..10.66, got '0'"},
        {0, "10.67", "--x: expected a number 0.1..10.66, got '10.67'"},
        {0, "0x10", "--x: expected a number 0.1..10.66, got '0x10'"},
        {0, "abc", "got 'abc'"},
        {0, "", "got ''"},
        {0, "nan", "got 'nan'"},
        {0, "inf", "got 'inf'"},
        {0, "1.5 ", "got '1.5 '"},
        {0, "1e", "got '1e'"},
        {1, "33", "--x: expected an integer 1..32, or 0 for ceil(3 sigma), got '33'"},
        {1, "2.5", "got '2.5'"},
        {1, "-1", "got '-1'"},
        {1, "1e1", "got '1e1'"},
        {2, "4", "--x: expected an odd integer 3..25, got '4'"},
        {2, "27", "got '27'"},
        {2, "1", "got '1'"},
        {3, "l3", "--x: expected one of l1, l2, got 'l3'"},
        {3, "1", "got '1'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = -1;
        fv_status st = fv_param_parse(f, bad[i].index, bad[i].text, "--x", &v);
        char what[240];
        snprintf(what, sizeof what, "'%s' -> %s", bad[i].text, fv_last_error());
        test_check(&t,
                   st == FV_ERR_ARG && v == -1 && strstr(fv_last_error(), bad[i].message) &&
                       !strchr(fv_last_error(), '\n'),
                   "refused with one line:", what);
    }
    /* follows: setting sigma makes the radius auto (0), which resolves to ceil(3 sigma) */
    p = fv_params_default(f);
    fv_param_set(f, &p, 0, 2.5);
    test_check(&t, p.value[1] == 0 && fv_params_resolved(f, &p).value[1] == 8,
               "radius follows sigma: 8", NULL);
    char text[160];
    fv_params_describe(f, &p, text, sizeof text);
    test_check(&t, strcmp(text, "sigma 2.5, radius 8, size 3, norm l2") == 0, "describe:", text);
    fv_params_file_tag(f, &p, text, sizeof text);
    test_check(&t, strcmp(text, "sigma2.5-radius8-size3-norml2") == 0, "file tag:", text);
    /* steps: real on its grid, odd-only by 2, choices wrap, ranges clamp, auto steps from its value */
    p = fv_params_default(f);
    test_check(&t, fv_param_step(f, &p, 0, 1) && p.value[0] == 1.25 && p.value[1] == 0,
               "sigma + 0.25, radius auto", NULL);
    test_check(&t, fv_param_step(f, &p, 1, 1) && p.value[1] == 5, "auto radius 4 steps to 5", NULL);
    test_check(&t, fv_param_step(f, &p, 2, 1) && p.value[2] == 5, "odd size 3 -> 5", NULL);
    test_check(&t, fv_param_step(f, &p, 2, 100) && p.value[2] == 25 && !fv_param_step(f, &p, 2, 1),
               "size clamps at 25", NULL);
    test_check(&t, fv_param_step(f, &p, 3, 1) && p.value[3] == 0, "choice wraps l2 -> l1", NULL);
    p.value[0] = 0.1;
    test_check(&t, !fv_param_step(f, &p, 0, -1) && p.value[0] == 0.1, "sigma stays at its minimum",
               NULL);
    /* whole-set checks: ranges, iterations, and the filter's own constraint */
    p = fv_params_default(f);
    test_check(&t, fv_params_check(f, &p) == FV_OK, "defaults pass", NULL);
    p.iterations = 101;
    test_check(&t, fv_params_check(f, &p) == FV_ERR_ARG && strstr(fv_last_error(), "1..100"),
               "iterations over the filter's maximum refused", fv_last_error());
    /* sigma 0 and NaN: its range refuses them, before any configuration is made */
    const unsigned long long makes = fv_config_makes();
    p = fv_params_default(f);
    p.value[0] = 0.0;
    test_check(&t, fv_params_check(f, &p) == FV_ERR_ARG && strstr(fv_last_error(), "0.1..10.66"),
               "sigma 0 refused by its range", fv_last_error());
    p.value[0] = NAN;
    test_check(&t, fv_params_check(f, &p) == FV_ERR_ARG && strstr(fv_last_error(), "0.1..10.66"),
               "sigma NaN refused by its range", fv_last_error());
    test_check(&t, fv_config_makes() == makes, "a value out of range makes no configuration", NULL);
    fv_param_range_text(f, 1, text, sizeof text);
    test_check(&t, strcmp(text, "an integer 1..32, or 0 for ceil(3 sigma); default 2") == 0,
               "range text:", text);
    /* the Gaussian's own constraint, its configuration's: a derived radius beyond 32 (sigma's
     * range keeps it from happening through the table; the maker says why should they part) */
    fv_params g = gaussian_params(10.7, 0, 1);
    gaussian_config made;
    char why[200] = "";
    test_check(&t,
               !gaussian_config_make(&g, &made, why, sizeof why) &&
                   strstr(why, "sigma 10.7 needs radius 33"),
               "sigma 10.7 needs radius 33: refused by the configuration", why);
    g = gaussian_params(10.66, 0, 1);
    test_check(&t,
               gaussian_config_make(&g, &made, why, sizeof why) && made.radius == 32 &&
                   made.taps.radius == 32 && fv_gaussian_radius(&g) == 32,
               "sigma 10.66: radius 32", NULL);
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
    test_ref_runs(gaussian_config_make, gaussian_ref, &src, &dst, &p, "gaussian_ref");
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
        test_ref_runs(gaussian_config_make, gaussian_ref, &src, &dst, &p, "gaussian_ref");
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
    test_ref_runs(gaussian_config_make, gaussian_ref, &src, &dst, &p, "gaussian_ref");
    test_check(&t, memcmp(dst.data, one, 4) == 0, "1x1 image unchanged", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
}

/* the separable reference against the 2-D sum, on random images of awkward sizes */
static int gaussian_against_2d(test_case *c)
{
    static const double sets[][2] = {
        {1.0, 2}, {0.5, 0}, {2.0, 0}, {1.0, 1}, {5.0, 0}}; /* sigma, radius */
    const fv_params p = gaussian_params(sets[c->set][0], (int)sets[c->set][1], 1);
    snprintf(c->what, sizeof c->what, "%dx%d pitch %zu sigma %g radius %g", c->src.width,
             c->src.height, c->got.pitch, p.value[GAUSSIAN_SIGMA], p.value[GAUSSIAN_RADIUS]);
    const int ran =
        test_ref_runs(gaussian_config_make, gaussian_ref, &c->src, &c->got, &p, "gaussian_ref");
    gaussian_brute_2d(&c->src, &c->want, &p);
    return ran;
}

static void test_gaussian_matches_2d_definition(uint32_t *seed)
{
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {13, 11}, {40, 7}, {31, 17}};
    test_against_definition(sizes, sizeof sizes / sizeof sizes[0], 5, gaussian_against_2d, seed,
                            "separable reference equals the 2-D definition:");
}

static fv_status gaussian_pass(void *context, const fv_image *in, fv_image *out)
{
    return gaussian_ref(in, out, context);
}

static fv_status invert_pass(void *context, const fv_image *in, fv_image *out)
{
    return invert_ref(in, out, context);
}

static void test_invert_and_iterations(uint32_t *seed)
{
    fv_image src, once, twice, tmp;
    fv_host_image_alloc(&src, 17, 5);
    fv_host_image_alloc(&once, 17, 5);
    fv_host_image_alloc(&twice, 17, 5);
    fv_host_image_alloc(&tmp, 17, 5);
    test_fill_random(&src, seed);
    invert_config p = {FV_PIXEL_U8};
    invert_ref(&src, &once, &p);
    const uint8_t *s = px(&src, 3, 2), *o = px(&once, 3, 2);
    test_check(&t, o[0] == 255 - s[0] && o[1] == 255 - s[1] && o[2] == 255 - s[2] && o[3] == s[3],
               "invert: 255 - value, alpha kept", NULL);
    int fx, fy;
    fv_image ping;
    fv_host_image_alloc(&ping, 17, 5);
    test_check(&t, fv_iterate(invert_pass, &p, &src, &twice, &ping, 2) == FV_OK,
               "two host passes run", NULL);
    test_check(&t, test_max_abs_diff(&src, &twice, 0, &fx, &fy) == 0, "invert twice = identity",
               NULL);

    /* the iteration driver's ping-pong: 3 gaussian passes = ref(ref(ref(x))) */
    const fv_params values = gaussian_params(1.5, 0, 1);
    gaussian_config g;
    test_check(&t, gaussian_config_of(&values, &g), "sigma 1.5 configured", NULL);
    gaussian_ref(&src, &once, &g);
    gaussian_ref(&once, &tmp, &g);
    gaussian_ref(&tmp, &once, &g);
    test_check(&t, fv_iterate(gaussian_pass, &g, &src, &twice, &ping, 3) == FV_OK,
               "three host passes run", NULL);
    test_check(&t, test_max_abs_diff(&once, &twice, 0, &fx, &fy) == 0,
               "3 iterations equal three chained passes", NULL);
    test_check(&t, fv_iterate(gaussian_pass, &g, &src, &twice, NULL, 2) == FV_ERR_ARG,
               "iterations without an iteration buffer refused", NULL);
    test_check(&t, fv_iterate(gaussian_pass, &g, &src, &twice, NULL, 1) == FV_OK,
               "one pass needs no iteration buffer", NULL);
    fv_host_image_free(&ping);
    fv_host_image_free(&src);
    fv_host_image_free(&once);
    fv_host_image_free(&twice);
    fv_host_image_free(&tmp);
}

/* uint16 and float32: max - value by hand, alpha kept, NaN and infinity as IEEE 1 - v gives them */
static void test_invert_types(void)
{
    fv_image src, dst;
    invert_config p = {FV_PIXEL_U16};
    fv_host_image_alloc_as(&src, 2, 1, FV_PIXEL_U16, 4);
    fv_host_image_alloc_as(&dst, 2, 1, FV_PIXEL_U16, 4);
    const uint16_t in16[8] = {0, 1, 65535, 7, 32768, 40000, 255, 65535};
    const uint16_t want16[8] = {65535, 65534, 0, 7, 32767, 25535, 65280, 65535};
    memcpy(src.data, in16, sizeof in16);
    test_check(&t, invert_ref(&src, &dst, &p) == FV_OK && memcmp(dst.data, want16, 16) == 0,
               "uint16: 65535 - v, alpha kept", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);

    p.type = FV_PIXEL_F32;
    fv_host_image_alloc_as(&src, 3, 1, FV_PIXEL_F32, 4);
    fv_host_image_alloc_as(&dst, 3, 1, FV_PIXEL_F32, 4);
    const float in32[12] = {0.0f, 1.0f,  0.25f,  0.5f,     2.0f,      -0.5f,
                            NAN,  0.75f, 0.125f, INFINITY, -INFINITY, NAN};
    memcpy(src.data, in32, sizeof in32);
    const float *o = (const float *)dst.data;
    test_check(&t,
               invert_ref(&src, &dst, &p) == FV_OK && o[0] == 1.0f && o[1] == 0.0f &&
                   o[2] == 0.75f && o[3] == 0.5f,
               "float32: 1 - v, alpha kept", NULL);
    test_check(&t, o[4] == -1.0f && o[5] == 1.5f, "float32: values outside 0..1 are not clamped",
               NULL);
    test_check(&t,
               isnan(o[6]) && o[8] == 0.875f && isinf(o[9]) && o[9] < 0 && isinf(o[10]) &&
                   o[10] > 0 && isnan(o[11]),
               "float32: NaN stays NaN, +inf -> -inf, -inf -> +inf, a NaN alpha kept", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
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

/* ---- against scipy ------------------------------------------------------------------------- */
/* Writes one case for tests/cpu/gaussian_photos_scipy.py: "width height sigma radius", the source's
 * RGBA8 bytes, the reference's. */
static void write_scipy_case(const char *dir, int index, const fv_image *src, double sigma,
                             int radius, char *files, size_t size)
{
    const int w = src->width, h = src->height;
    fv_image dst;
    fv_host_image_alloc(&dst, w, h);
    const fv_params p = gaussian_params(sigma, radius, 1);
    int ok = test_ref_runs(gaussian_config_make, gaussian_ref, src, &dst, &p, "gaussian_ref");
    char path[1024];
    snprintf(path, sizeof path, "%s/gaussian_photo_case_%d.raw", dir, index);
    FILE *f = fopen(path, "wb");
    ok = ok && f && fprintf(f, "%d %d %.17g %d\n", w, h, sigma, fv_gaussian_radius(&p)) > 0;
    for (int y = 0; ok && y < h; y++) ok = fwrite(px(src, 0, y), 4, (size_t)w, f) == (size_t)w;
    for (int y = 0; ok && y < h; y++) ok = fwrite(px(&dst, 0, y), 4, (size_t)w, f) == (size_t)w;
    if (f) ok = fclose(f) == 0 && ok;
    test_check(&t, ok && test_files_add(files, size, path), "case file written:", path);
    fv_host_image_free(&dst);
}

/* The reference against scipy.ndimage.gaussian_filter on the photos and on random images, for the
 * sigmas of test_taps_exact (the bound is the script's). */
static int test_scipy(int argc, char **argv, uint32_t *seed)
{
    const char *script = argv[0], *dir = argv[1];
    static const double sets[][2] = {{0.5, 0},   {1.0, 0}, {2.5, 0}, {7.7, 0},
                                     {10.66, 0}, {1.0, 1}, {8.0, 25}};
    const int n_sets = (int)(sizeof sets / sizeof sets[0]);
    char files[8192] = "";
    int index = 0;
    for (int i = 2; i < argc; i++) {
        fv_image img;
        if (image_load(argv[i], &img) != FV_OK) {
            printf("FAIL: cannot load %s: %s\n", argv[i], fv_last_error());
            t.failed++;
            continue;
        }
        for (int k = 0; k < n_sets; k++)
            write_scipy_case(dir, index++, &img, sets[k][0], (int)sets[k][1], files, sizeof files);
        fv_host_image_free(&img);
    }
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {37, 23}, {70, 3}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        fv_image img;
        fv_host_image_alloc(&img, sizes[s][0], sizes[s][1]);
        test_fill_random(&img, seed);
        for (int k = 0; k < n_sets; k++)
            write_scipy_case(dir, index++, &img, sets[k][0], (int)sets[k][1], files, sizeof files);
        fv_host_image_free(&img);
    }
    if (t.failed) return test_finish(&t);
    const int code = test_python(script, files);
    if (code == 77) {
        printf("skipped: python3 with numpy and scipy is needed\n");
        return 77;
    }
    test_check(&t, code == 0, "gaussian_ref is within the bound of scipy.ndimage.gaussian_filter",
               NULL);
    return test_finish(&t);
}

int main(int argc, char **argv)
{
    static const test_group groups[] = {
        TEST_GROUP(test_taps),
        TEST_GROUP(test_taps_exact),
        TEST_GROUP(test_param_tables),
        TEST_GROUP(test_gaussian_hand_computed),
        TEST_SEEDED(test_gaussian_matches_2d_definition),
        TEST_SEEDED(test_invert_and_iterations),
        TEST_GROUP(test_invert_types),
        TEST_GROUP(test_dimensions),
    };
    static const test_mode modes[] = {
        {"--scipy", 2, "SCRIPT DIR [PHOTO...]: the reference against scipy", test_scipy}};
    return test_main(argc, argv, groups, sizeof groups / sizeof groups[0], modes, 1);
}
