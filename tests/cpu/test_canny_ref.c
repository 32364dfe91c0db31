/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_canny_ref.c (label cpu): the Canny reference (kernels/canny/canny_ref.c) on tiny images
 * worked by hand (a vertical and a horizontal step edge, every stage, both norms), a weak chain
 * 100 pixels long attached to a strong pixel (full keeps it, one-pass drops it, sweeps N reach N
 * pixels along it), hysteresis against literal synchronous sweeps on random images, degenerate
 * sizes and padded pitches, the parameter table; uint16 and float32 stages, the Sobel's border and
 * NaN and infinity worked by hand. With `--opencv SCRIPT DIR PHOTOS...` instead:
 * writes cases (photos and random images, blur off and on) for tests/cpu/canny_opencv.py, which
 * holds the gray stage against cv2.cvtColor, the blur stage against scipy (as the Gaussian's
 * reference is) and the edge map against cv2.Canny of the blurred image (exit 77 without cv2);
 * with `--scipy SCRIPT DIR`: every type x border for tests/cpu/canny_scipy.py (blur and Sobel
 * against scipy.ndimage). Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "canny/canny.h"
#include "image_io.h"
#include "test_skeleton.h"

#include <math.h>

#define PAD_BYTES 8 /* this test's row padding (two pixels' worth), narrower than TEST_PAD_BYTES */

typedef struct canny_args {
    int stage;
    double sigma;
    int l2, low, high, auto_thr, one_pass, sweeps;
} canny_args;

static fv_params params_of(canny_args a)
{
    fv_params p = test_params_blank();
    p.value[CANNY_STAGE] = a.stage;
    p.value[CANNY_SIGMA] = a.sigma;
    p.value[CANNY_NORM] = a.l2;
    p.value[CANNY_LOW] = a.low;
    p.value[CANNY_HIGH] = a.high;
    p.value[CANNY_THRESHOLDS] = a.auto_thr;
    p.value[CANNY_HYSTERESIS] = a.one_pass;
    p.value[CANNY_SWEEPS] = a.sweeps;
    return p;
}

static int run_ref(const fv_image *src, fv_image *dst, canny_args a)
{
    const fv_params p = params_of(a);
    return test_ref_runs(canny_config_make, canny_ref, src, dst, &p, "canny_ref");
}

static void fill_gray(fv_image *img, int x, int y, int v)
{
    memcpy(px(img, x, y), (uint8_t[]){(uint8_t)v, (uint8_t)v, (uint8_t)v, 255}, 4);
}

/* ---- step edges worked by hand -------------------------------------------------------------- */
/* 8x5, columns 0..3 gray 0, columns 4..7 gray 200 (R = G = B: the luma weights sum to 2^15, so
 * gray is 200 exactly). Sobel dx = 4 * 200 = 800 at columns 3 and 4, 0 elsewhere; dy = 0, so the
 * sector is 0 (compare left and right). Column 3 beats its left (0) and ties its right (800): kept;
 * column 4 does not beat its left: suppressed. l1 800, l2 640000 (> 100^2): strong. */
static void test_step_edge(void)
{
    fv_image src = test_image_padded(8, 5, PAD_BYTES), dst = test_image_padded(8, 5, PAD_BYTES);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 8; x++) fill_gray(&src, x, y, x < 4 ? 0 : 200);
    for (int l2 = 0; l2 <= 1; l2++) {
        const char *norm = l2 ? "l2" : "l1";
        for (int stage = 0; stage < CANNY_N_STAGES; stage++) {
            canny_args a = {.stage = stage, .l2 = l2, .low = 50, .high = 100};
            int ok = run_ref(&src, &dst, a);
            for (int y = 0; ok && y < 5; y++)
                for (int x = 0; ok && x < 8; x++) {
                    const int g = x < 4 ? 0 : 200, edge = x == 3 || x == 4, kept = x == 3;
                    uint32_t want = 0;
                    switch (stage) {
                    case CANNY_GRAY:
                    case CANNY_BLUR: want = canny_rgba(g, g, g); break;
                    case CANNY_MAGNITUDE:
                        want = edge ? canny_rgba(255, 255, 255) : canny_rgba(0, 0, 0);
                        break;
                    case CANNY_DIRECTION:
                        want = edge ? canny_rgba(255, 0, 0) : canny_rgba(0, 0, 0);
                        break;
                    default: want = kept ? canny_rgba(255, 255, 255) : canny_rgba(0, 0, 0); break;
                    }
                    ok = px32(&dst, x, y) == want;
                }
            char what[64];
            snprintf(what, sizeof what, "%s, stage %s", norm, canny_stage_names[stage]);
            test_check(&t, ok && test_padding_intact(&dst), "vertical step edge 8x5:", what);
        }
        /* a weaker step (gray 10: magnitude 40) is weak at low 30, high 100: amber, then no edge */
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 8; x++) fill_gray(&src, x, y, x < 4 ? 0 : 10);
        canny_args a = {.stage = CANNY_THRESHOLD_MAP, .l2 = l2, .low = 30, .high = 100};
        int ok = run_ref(&src, &dst, a) && px32(&dst, 3, 2) == canny_rgba(255, 160, 0) &&
                 px32(&dst, 4, 2) == canny_rgba(0, 0, 0);
        a.stage = CANNY_EDGES;
        ok = ok && run_ref(&src, &dst, a) && px32(&dst, 3, 2) == canny_rgba(0, 0, 0);
        /* magnitude shown: 40 / 2 = 20 */
        a.stage = CANNY_MAGNITUDE;
        ok = ok && run_ref(&src, &dst, a) && px32(&dst, 3, 2) == canny_rgba(20, 20, 20) &&
             px32(&dst, 4, 2) == canny_rgba(20, 20, 20);
        test_check(&t, ok, "a step of 10 is weak (amber), not an edge alone, shown as 20:", norm);
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 8; x++) fill_gray(&src, x, y, x < 4 ? 0 : 200);
    }
    /* the same edge turned: 5x8, rows 0..3 dark, 4..7 bright: sector 1 (green), row 3 kept */
    fv_image src2 = test_image_padded(5, 8, 0), dst2 = test_image_padded(5, 8, 0);
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 5; x++) fill_gray(&src2, x, y, y < 4 ? 0 : 200);
    canny_args a = {.stage = CANNY_DIRECTION, .low = 50, .high = 100};
    int ok = run_ref(&src2, &dst2, a) && px32(&dst2, 2, 3) == canny_rgba(0, 255, 0) &&
             px32(&dst2, 2, 4) == canny_rgba(0, 255, 0) && px32(&dst2, 2, 2) == canny_rgba(0, 0, 0);
    a.stage = CANNY_EDGES;
    ok = ok && run_ref(&src2, &dst2, a);
    for (int y = 0; ok && y < 8; y++)
        for (int x = 0; ok && x < 5; x++)
            ok = px32(&dst2, x, y) == (y == 3 ? canny_rgba(255, 255, 255) : canny_rgba(0, 0, 0));
    test_check(&t, ok, "horizontal step edge 5x8: green sector, row 3 is the edge", NULL);
    /* blur on: sigma 0.6 (5x5), a step stays a single edge column */
    a = (canny_args){.stage = CANNY_EDGES, .sigma = 0.6, .low = 50, .high = 100};
    ok = run_ref(&src, &dst, a);
    int count = 0;
    for (int y = 0; ok && y < 5; y++)
        for (int x = 0; ok && x < 8; x++) count += px32(&dst, x, y) == canny_rgba(255, 255, 255);
    test_check(&t, ok && count == 5, "blurred step edge: one edge pixel per row", NULL);
    free(src.data);
    free(dst.data);
    free(src2.data);
    free(dst2.data);
}

/* ---- a weak chain 100+ pixels long ---------------------------------------------------------- */
/* 120x6: rows 0..2 gray 200 for x < 3 (strong: 800) and 20 beyond (weak: 80 at low 40, high 400),
 * rows 3..5 gray 0. The edge runs along row 2 (kept over row 3 by the strict test upwards). */
static int row_edges(const fv_image *img, int y)
{
    int n = 0;
    for (int x = 0; x < img->width; x++) n += px32(img, x, y) == canny_rgba(255, 255, 255);
    return n;
}

static void test_chain(void)
{
    const int w = 120, h = 6;
    fv_image src = test_image_padded(w, h, 0), dst = test_image_padded(w, h, 0);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) fill_gray(&src, x, y, y < 3 ? (x < 3 ? 200 : 20) : 0);
    canny_args a = {.stage = CANNY_EDGES, .low = 40, .high = 400};
    int ok = run_ref(&src, &dst, a);
    const int full = row_edges(&dst, 2);
    test_check(&t,
               ok && full == w && px32(&dst, w - 1, 2) == canny_rgba(255, 255, 255) &&
                   row_edges(&dst, 3) == 0,
               "full hysteresis keeps the whole chain along row 2", NULL);
    a.one_pass = 1;
    ok = run_ref(&src, &dst, a);
    const int one = row_edges(&dst, 2);
    test_check(&t, ok && one < 10 && px32(&dst, w - 1, 2) == canny_rgba(0, 0, 0),
               "one-pass drops the far end of the chain", NULL);
    a.one_pass = 0;
    int grows = 1, prev = 0;
    for (int n = 1; n <= 100; n++) {
        a.sweeps = n;
        ok = ok && run_ref(&src, &dst, a);
        const int c = row_edges(&dst, 2);
        if (n == 1)
            grows = grows && c == one;
        else
            grows = grows && c == prev + 1;
        prev = c;
    }
    test_check(&t, ok && grows,
               "sweeps 1 = one-pass, each further sweep adds one pixel to the chain", NULL);
    a.sweeps = w;
    ok = ok && run_ref(&src, &dst, a);
    test_check(&t, ok && row_edges(&dst, 2) == full, "sweeps 120 reach the end: the full result",
               NULL);
    free(src.data);
    free(dst.data);
}

/* ---- hysteresis against literal synchronous sweeps -------------------------------------------- */
static void test_sweeps_literal(uint32_t *seed)
{
    static const int sizes[][2] = {{37, 23}, {64, 48}, {1, 1}, {1, 17}, {13, 1}, {101, 67}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        fv_image src = test_image_padded(w, h, PAD_BYTES), thr = test_image_padded(w, h, 0),
                 dst = test_image_padded(w, h, PAD_BYTES);
        test_fill_random(&src, seed);
        uint8_t *cur = malloc((size_t)w * h), *next = malloc((size_t)w * h);
        int ok = 1;
        for (int mode = 0; mode < 8 && ok; mode++) {
            canny_args a = {.stage = CANNY_THRESHOLD_MAP,
                            .sigma = mode % 2 ? 1.0 : 0.0,
                            .l2 = (mode / 2) % 2,
                            .low = 60,
                            .high = 300,
                            .auto_thr = mode >= 4};
            ok = run_ref(&src, &thr, a);
            for (int n = 0; n <= 6 && ok; n++) {
                /* state: 2 edge, 1 weak not yet joined, 0 neither */
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        const uint32_t v = px32(&thr, x, y);
                        cur[y * w + x] = v == canny_rgba(255, 255, 255)
                                             ? 2
                                             : (v == canny_rgba(255, 160, 0) ? 1 : 0);
                    }
                for (int sweep = 0; n == 0 || sweep < n; sweep++) {
                    int changed = 0;
                    memcpy(next, cur, (size_t)w * h);
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) {
                            if (cur[y * w + x] != 1) continue;
                            for (int dy = -1; dy <= 1; dy++)
                                for (int dx = -1; dx <= 1; dx++) {
                                    const int xx = x + dx, yy = y + dy;
                                    if (xx >= 0 && xx < w && yy >= 0 && yy < h &&
                                        cur[yy * w + xx] == 2)
                                        next[y * w + x] = 2;
                                }
                            changed |= next[y * w + x] == 2;
                        }
                    memcpy(cur, next, (size_t)w * h);
                    if (!changed) break;
                }
                a.stage = CANNY_EDGES;
                a.sweeps = n;
                ok = run_ref(&src, &dst, a) && test_padding_intact(&dst);
                for (int y = 0; ok && y < h; y++)
                    for (int x = 0; ok && x < w; x++)
                        ok = px32(&dst, x, y) == (cur[y * w + x] == 2 ? canny_rgba(255, 255, 255)
                                                                      : canny_rgba(0, 0, 0));
                a.stage = CANNY_THRESHOLD_MAP;
                a.sweeps = 0;
            }
        }
        char what[64];
        snprintf(what, sizeof what, "%dx%d, blur on/off, l1/l2, manual/auto, sweeps 0..6", w, h);
        test_check(&t, ok, "hysteresis equals literal synchronous sweeps:", what);
        free(cur);
        free(next);
        free(src.data);
        free(thr.data);
        free(dst.data);
    }
}

/* ---- every stage on awkward sizes: opaque output, padding untouched, deterministic ----------- */
static void test_sizes(uint32_t *seed)
{
    static const int sizes[][2] = {{1, 1}, {2, 2}, {1, 9}, {9, 1}, {3, 2}, {31, 17}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        fv_image src = test_image_padded(w, h, PAD_BYTES), a = test_image_padded(w, h, PAD_BYTES),
                 b = test_image_padded(w, h, 0);
        test_fill_random(&src, seed);
        int ok = 1;
        for (int stage = 0; stage < CANNY_N_STAGES && ok; stage++) {
            canny_args args = {.stage = stage,
                               .sigma = 2.0,
                               .l2 = stage % 2,
                               .low = 10,
                               .high = 50,
                               .auto_thr = stage == CANNY_EDGES};
            ok = run_ref(&src, &a, args) && run_ref(&src, &b, args) && test_padding_intact(&a);
            for (int y = 0; ok && y < h; y++)
                for (int x = 0; ok && x < w; x++)
                    ok = px(&a, x, y)[3] == 255 && px32(&a, x, y) == px32(&b, x, y);
        }
        char what[32];
        snprintf(what, sizeof what, "%dx%d", w, h);
        test_check(&t, ok, "every stage: opaque, deterministic, padding untouched:", what);
        free(src.data);
        free(a.data);
        free(b.data);
    }
    /* a flat image has no gradient: auto thresholds from no kept pixel, no edges */
    fv_image flat = test_image_padded(9, 7, 0), out = test_image_padded(9, 7, 0);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 9; x++) fill_gray(&flat, x, y, 77);
    canny_args args = {.stage = CANNY_EDGES, .sigma = 1.0, .auto_thr = 1};
    int ok = run_ref(&flat, &out, args);
    for (int y = 0; ok && y < 7; y++)
        for (int x = 0; ok && x < 9; x++) ok = px32(&out, x, y) == canny_rgba(0, 0, 0);
    test_check(&t, ok, "a flat image has no edges (auto thresholds)", NULL);
    free(flat.data);
    free(out.data);
}

static void test_config(void)
{
    canny_config c;
    canny_args a = {.stage = CANNY_EDGES, .sigma = 1.0, .low = 200, .high = 100};
    fv_params p = params_of(a);
    int ok = canny_config_fill(&p, "canny", &c) == FV_OK && c.low == 100 && c.high == 200 &&
             c.radius == 3 && c.inc == 0 && c.cap == 1;
    int sum = 0;
    for (int k = 0; k < 2 * c.radius + 1; k++) sum += c.w[k];
    test_check(&t, ok && sum == 256,
               "low > high swapped; sigma 1: radius 3, taps sum to 256; full: cap 1", NULL);
    a.sweeps = 5;
    p = params_of(a);
    ok = canny_config_fill(&p, "canny", &c) == FV_OK && c.inc == 1 && c.cap == 6;
    a.one_pass = 1;
    p = params_of(a);
    ok = ok && canny_config_fill(&p, "canny", &c) == FV_OK && c.inc == 1 && c.cap == 2;
    test_check(&t, ok, "sweeps 5: step 1, cap 6; one-pass: cap 2", NULL);
    static const struct {
        int index;
        double value;
    } bad[] = {{CANNY_STAGE, 7}, {CANNY_SIGMA, 4.5}, {CANNY_LOW, 2041},    {CANNY_HIGH, -1},
               {CANNY_NORM, 2},  {CANNY_SWEEPS, -1}, {CANNY_SWEEPS, 10001}};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        p = params_of((canny_args){.stage = CANNY_EDGES});
        p.value[bad[b].index] = bad[b].value;
        test_check(&t, canny_config_fill(&p, "canny", &c) == FV_ERR_ARG,
                   "canny refuses an out-of-range parameter", NULL);
    }
    /* sigma -1 and NaN: refused by sigma's row at prepare, before any configuration is made (its
     * one check besides the radius sigma derives, which 4.5 above fails) */
    const double bad_sigma[2] = {-1, NAN};
    for (int b = 0; b < 2; b++) {
        p = params_of((canny_args){.stage = CANNY_EDGES});
        p.value[CANNY_SIGMA] = bad_sigma[b];
        const unsigned long long makes = fv_config_makes();
        test_check(&t,
                   fv_params_check(fv_filter_find("canny"), &p) == FV_ERR_ARG &&
                       strstr(fv_last_error(), "sigma: expected") && fv_config_makes() == makes,
                   "canny sigma out of range refused by its row, no configuration made",
                   fv_last_error());
    }
    /* the gray formula is OpenCV's 15-bit one */
    ok = canny_gray(0xffffffu) == 255 && canny_gray(0) == 0 && canny_gray(0x0000ffu) == 76 &&
         canny_gray(0x00ff00u) == 150 && canny_gray(0xff0000u) == 29;
    int sq = 1;
    for (int v = 0; v < 2100000 && sq; v += 7) {
        const int r = canny_isqrt(v);
        sq = r * r <= v && (r + 1) * (r + 1) > v;
    }
    test_check(&t, ok && sq, "gray of white, black, red, green, blue; integer square root", NULL);
    /* sectors at the exact bounds: tan 22.5 = 13573 / 2^15 */
    ok = canny_sector(100, 0) == 0 && canny_sector(0, 100) == 1 && canny_sector(100, 100) == 2 &&
         canny_sector(-100, 100) == 3 && canny_sector(100, 41) == 0 && canny_sector(100, 42) == 2 &&
         canny_sector(42, 100) == 2 && canny_sector(42, -100) == 3 && canny_sector(41, 100) == 1;
    test_check(&t, ok, "sectors on both sides of 22.5 and 67.5 degrees", NULL);
}

/* ---- uint16, float32 and the borders ------------------------------------------------------ */
static double chan(const fv_image *img, int x, int y, int c)
{
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    switch (img->type) {
    case FV_PIXEL_U16: return ((const uint16_t *)row)[4 * x + c];
    case FV_PIXEL_F32: return ((const float *)row)[4 * x + c];
    case FV_PIXEL_U8:
    default: return row[4 * x + c];
    }
}

/* R = G = B = v (the gray weights sum to 2^15: gray is v exactly, float32 too for these v), A max */
static void set_gray(fv_image *img, int x, int y, double v)
{
    uint8_t *row = img->data + (size_t)y * img->pitch;
    const double top = fv_pixel_type_max(img->type);
    for (int c = 0; c < 4; c++) {
        const double u = c == 3 ? top : v;
        if (img->type == FV_PIXEL_U16)
            ((uint16_t *)row)[4 * x + c] = (uint16_t)u;
        else if (img->type == FV_PIXEL_F32)
            ((float *)row)[4 * x + c] = (float)u;
        else
            row[4 * x + c] = (uint8_t)u;
    }
}

static fv_params typed_params(fv_pixel_type type, int stage, int l2)
{
    fv_params p = params_of((canny_args){.stage = stage, .l2 = l2});
    p.type = type;
    return p;
}

/* The thresholds' default (0) is 50 and 150 levels of 255 in every type's units. */
static void test_typed_defaults(void)
{
    canny_config c;
    fv_params p = typed_params(FV_PIXEL_U8, CANNY_EDGES, 0);
    int ok = canny_config_fill(&p, "canny", &c) == FV_OK && c.lowc == 50 && c.highc == 150;
    p.type = FV_PIXEL_U16;
    ok = ok && canny_config_fill(&p, "canny", &c) == FV_OK && c.lowc == 12850 && c.highc == 38550;
    p.type = FV_PIXEL_F32;
    ok = ok && canny_config_fill(&p, "canny", &c) == FV_OK && c.lowc == (float)(50.0 / 255) &&
         c.highc == (float)(150.0 / 255);
    p.value[CANNY_NORM] = 1; /* l2: the squares */
    ok = ok && canny_config_fill(&p, "canny", &c) == FV_OK &&
         c.lowc == (float)(50.0 / 255 * (50.0 / 255));
    p = typed_params(FV_PIXEL_U16, CANNY_EDGES, 1);
    p.value[CANNY_LOW] = 100000.7;
    p.value[CANNY_HIGH] = 524280;
    ok = ok && canny_config_fill(&p, "canny", &c) == FV_OK &&
         c.lowc == floor(100000.7 * 100000.7) && c.highc == 524280.0 * 524280.0;
    test_check(&t, ok,
               "default thresholds 50/150 of 255 levels per type; l2 squares, floored for "
               "integers (beyond 32 bits for uint16)",
               NULL);
    fv_params q = fv_params_default(fv_filter_find("canny"));
    q.type = FV_PIXEL_U16;
    const fv_params r = fv_params_resolved(fv_filter_find("canny"), &q);
    test_check(&t, r.value[CANNY_LOW] == 12850 && r.value[CANNY_HIGH] == 38550,
               "uint16's defaults resolved for the display: 12850, 38550", NULL);
}

/* The step edge of test_step_edge in uint16 (0 | 20000) and float32 (0 | 0.5), blur off: dx = 4
 * x step at columns 3 and 4 (l2: its square, 6.4e9 for uint16: beyond 32 bits), kept at column 3;
 * the magnitude stage shows half (40000; float 1.0), strong under the default thresholds. */
static void test_typed_step(void)
{
    for (int type = FV_PIXEL_U16; type <= FV_PIXEL_F32; type++)
        for (int l2 = 0; l2 <= 1; l2++) {
            const double step = type == FV_PIXEL_U16 ? 20000 : 0.5;
            const double top = fv_pixel_type_max((fv_pixel_type)type);
            fv_image src, dst;
            fv_host_image_alloc_as(&src, 8, 5, (fv_pixel_type)type, 4);
            fv_host_image_alloc_as(&dst, 8, 5, (fv_pixel_type)type, 4);
            for (int y = 0; y < 5; y++)
                for (int x = 0; x < 8; x++) set_gray(&src, x, y, x < 4 ? 0 : step);
            char what[64];
            snprintf(what, sizeof what, "%s %s", fv_pixel_type_name((fv_pixel_type)type),
                     l2 ? "l2" : "l1");
            int ok = 1;
            const struct {
                int stage;
                double want[8]; /* channel 0 along a row */
            } stages[] = {
                {CANNY_GRAY, {0, 0, 0, 0, step, step, step, step}},
                {CANNY_MAGNITUDE, {0, 0, 0, 2 * step, 2 * step, 0, 0, 0}},
                {CANNY_NMS, {0, 0, 0, 2 * step, 0, 0, 0, 0}},
                {CANNY_THRESHOLD_MAP, {0, 0, 0, top, 0, 0, 0, 0}},
                {CANNY_EDGES, {0, 0, 0, top, 0, 0, 0, 0}},
            };
            for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++) {
                fv_params p = typed_params((fv_pixel_type)type, stages[k].stage, l2);
                p.value[CANNY_SIGMA] = 0;
                ok &= test_ref_runs(canny_config_make, canny_ref, &src, &dst, &p, "canny_ref");
                for (int y = 0; ok && y < 5; y++)
                    for (int x = 0; ok && x < 8; x++)
                        ok = chan(&dst, x, y, 0) == stages[k].want[x] && chan(&dst, x, y, 3) == top;
                if (!ok) {
                    test_check(&t, 0, "uint16 and float32 step edge: stage",
                               canny_stage_names[stages[k].stage]);
                    break;
                }
            }
            test_check(&t, ok, "step edge, every stage in the image's units:", what);
            fv_host_image_free(&src);
            fv_host_image_free(&dst);
        }
}

/* A weak float32 step (0 | 0.05: magnitude about 0.2, between 50/255 and 150/255) is amber on
 * the thresholds stage ((1, 160/255, 0)) and no edge. */
static void test_typed_weak(void)
{
    fv_image src, dst;
    fv_host_image_alloc_as(&src, 8, 5, FV_PIXEL_F32, 4);
    fv_host_image_alloc_as(&dst, 8, 5, FV_PIXEL_F32, 4);
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 8; x++) set_gray(&src, x, y, x < 4 ? 0 : 0.05);
    fv_params p = typed_params(FV_PIXEL_F32, CANNY_THRESHOLD_MAP, 0);
    p.value[CANNY_SIGMA] = 0;
    int ok = test_ref_runs(canny_config_make, canny_ref, &src, &dst, &p, "canny_ref") &&
             chan(&dst, 3, 2, 0) == 1 && chan(&dst, 3, 2, 1) == (float)(160.0 / 255) &&
             chan(&dst, 3, 2, 2) == 0;
    p.value[CANNY_STAGE] = CANNY_EDGES;
    ok = ok && test_ref_runs(canny_config_make, canny_ref, &src, &dst, &p, "canny_ref") &&
         chan(&dst, 3, 2, 0) == 0;
    test_check(&t, ok, "float32: a weak step is amber (1, 160/255, 0) and alone no edge", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
}

/* The border of the Sobel by hand: one row g = 0 0 0 v, blur off; every row the Sobel reads is
 * that row (h = 1) except for constant, whose rows above and below are cval (then dx = 2 (g(x+1)
 * - g(x-1)), dy = 0). Half the magnitude, per mode, with c = cval:
 *   replicate, reflect  0 0 2v 2v      mirror  0 0 2v 0      wrap  2v 0 2v 0      constant c 0 v c */
static void test_borders_by_hand(void)
{
    for (int type = FV_PIXEL_U16; type <= FV_PIXEL_F32; type++) {
        const double v = type == FV_PIXEL_U16 ? 100 : 0.25, c = type == FV_PIXEL_U16 ? 7 : 0.0625;
        const double want[FV_BORDER_COUNT][4] = {
            [FV_BORDER_REPLICATE] = {0, 0, 2 * v, 2 * v},
            [FV_BORDER_REFLECT] = {0, 0, 2 * v, 2 * v},
            [FV_BORDER_MIRROR] = {0, 0, 2 * v, 0},
            [FV_BORDER_CONSTANT] = {c, 0, v, c},
            [FV_BORDER_WRAP] = {2 * v, 0, 2 * v, 0},
        };
        fv_image src, dst;
        fv_host_image_alloc_as(&src, 4, 1, (fv_pixel_type)type, 4);
        fv_host_image_alloc_as(&dst, 4, 1, (fv_pixel_type)type, 4);
        for (int x = 0; x < 4; x++) set_gray(&src, x, 0, x == 3 ? v : 0);
        for (int b = 0; b < FV_BORDER_COUNT; b++) {
            fv_params p = typed_params((fv_pixel_type)type, CANNY_MAGNITUDE, 0);
            p.value[CANNY_SIGMA] = 0;
            p.value[CANNY_BORDER] = b;
            p.value[CANNY_CVAL] = c;
            int ok = test_ref_runs(canny_config_make, canny_ref, &src, &dst, &p, "canny_ref");
            for (int x = 0; ok && x < 4; x++) ok = chan(&dst, x, 0, 0) == want[b][x];
            char what[64];
            snprintf(what, sizeof what, "%s %s", fv_pixel_type_name((fv_pixel_type)type),
                     fv_border_names[b]);
            test_check(&t, ok, "the Sobel's border by hand on one row:", what);
        }
        fv_host_image_free(&src);
        fv_host_image_free(&dst);
    }
}

/* float32: a NaN gives NaN magnitudes wherever the Sobel reads it, and a NaN magnitude is never
 * kept (every comparison with NaN is false), so the step edge breaks there; +inf beside finite
 * values gives infinite magnitudes, inf - inf NaN. */
static void test_nan(void)
{
    fv_image src, dst;
    fv_host_image_alloc_as(&src, 8, 7, FV_PIXEL_F32, 4);
    fv_host_image_alloc_as(&dst, 8, 7, FV_PIXEL_F32, 4);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 8; x++) set_gray(&src, x, y, x < 4 ? 0 : 0.5);
    set_gray(&src, 4, 3, NAN);
    fv_params p = typed_params(FV_PIXEL_F32, CANNY_MAGNITUDE, 0);
    p.value[CANNY_SIGMA] = 0;
    int ok = test_ref_runs(canny_config_make, canny_ref, &src, &dst, &p, "canny_ref") &&
             isnan(chan(&dst, 3, 3, 0)) && isnan(chan(&dst, 5, 4, 0)) && chan(&dst, 3, 0, 0) == 1 &&
             chan(&dst, 6, 3, 0) == 0;
    test_check(&t, ok, "float32: NaN magnitudes where the Sobel reads the NaN, not elsewhere",
               NULL);
    p.value[CANNY_STAGE] = CANNY_EDGES;
    ok = test_ref_runs(canny_config_make, canny_ref, &src, &dst, &p, "canny_ref") &&
         chan(&dst, 3, 0, 0) == 1 && chan(&dst, 3, 6, 0) == 1 && chan(&dst, 3, 3, 0) == 0 &&
         chan(&dst, 3, 2, 0) == 0;
    test_check(&t, ok, "float32: no edge where the magnitude is NaN; the rest of the edge stays",
               NULL);
    set_gray(&src, 4, 3, INFINITY);
    p.value[CANNY_STAGE] = CANNY_MAGNITUDE;
    ok = test_ref_runs(canny_config_make, canny_ref, &src, &dst, &p, "canny_ref") &&
         isinf(chan(&dst, 3, 3, 0)) && isnan(chan(&dst, 5, 3, 0)) == 0 &&
         isinf(chan(&dst, 5, 2, 0));
    test_check(&t, ok, "float32: +inf makes infinite magnitudes around it", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
}

/* ---- the parameter table: stage is a choice, so --stage nms and -p stage=nms just work ---- */
static void test_table(void)
{
    const fv_filter *f = fv_filter_find("canny");
    test_check(&t, f != NULL && f->max_iterations == 1, "the registry has 'canny', not iterated",
               NULL);
    if (!f) return;
    static const char *const names[] = {"stage",      "sigma",      "norm",   "low",    "high",
                                        "thresholds", "hysteresis", "sweeps", "border", "cval"};
    int ok = f->n_params == 10;
    for (int i = 0; ok && i < 10; i++) ok = fv_param_index(f, names[i]) == i;
    test_check(&t, ok, "its parameters in canny.h's order", NULL);
    fv_params p = fv_params_default(f);
    canny_config c;
    test_check(&t,
               canny_config_fill(&p, "canny", &c) == FV_OK && c.stage == CANNY_EDGES &&
                   c.radius == 2 && c.cap == 1,
               "defaults: edges, sigma 0.6 (5x5), full hysteresis", NULL);
    double v = -1;
    for (int s = 0; s < CANNY_N_STAGES; s++)
        test_check(&t,
                   fv_param_parse(f, CANNY_STAGE, canny_stage_names[s], "--stage", &v) == FV_OK &&
                       v == s,
                   "--stage by name:", canny_stage_names[s]);
    test_check(&t, fv_param_parse(f, CANNY_STAGE, "sobel", "--stage", &v) != FV_OK,
               "--stage sobel refused", NULL);
    test_check(&t,
               fv_param_parse(f, CANNY_HYSTERESIS, "one-pass", "--hysteresis", &v) == FV_OK &&
                   v == 1 && fv_param_parse(f, CANNY_NORM, "l2", "--norm", &v) == FV_OK && v == 1 &&
                   fv_param_parse(f, CANNY_THRESHOLDS, "auto", "--thresholds", &v) == FV_OK &&
                   v == 1,
               "--hysteresis one-pass, --norm l2, --thresholds auto", NULL);
    test_check(&t,
               fv_param_parse(f, CANNY_SWEEPS, "0", "--sweeps", &v) == FV_OK &&
                   fv_param_parse(f, CANNY_SWEEPS, "-1", "--sweeps", &v) != FV_OK &&
                   fv_param_parse(f, CANNY_LOW, "524281", "--low", &v) != FV_OK &&
                   fv_param_parse(f, CANNY_SIGMA, "4.2", "--sigma", &v) != FV_OK,
               "ranges: sweeps 0 (until done) .. 10000, low <= 524280, sigma <= 4", NULL);
    /* the thresholds' range is the type's, checked at prepare (the filter's check) */
    p = fv_params_default(f);
    p.value[CANNY_LOW] = 2041;
    const int u8_refused = fv_params_check(f, &p) == FV_ERR_ARG &&
                           strstr(fv_last_error(), "low 2041 is not in 0..2040 for uint8 images");
    p.type = FV_PIXEL_U16;
    const int u16_taken = fv_params_check(f, &p) == FV_OK;
    p.value[CANNY_LOW] = 2039.5; /* a real threshold is floored for the integer types, as cv2's */
    p.type = FV_PIXEL_U8;
    const int real_taken = fv_params_check(f, &p) == FV_OK &&
                           canny_config_fill(&p, "canny", &c) == FV_OK && c.lowc == 150 &&
                           c.highc == 2039;
    test_check(&t, u8_refused && u16_taken && real_taken,
               "low 2041: refused for uint8, taken for uint16; 2039.5 floored (and swapped)",
               fv_last_error());
    /* every test_params entry gives a valid configuration */
    for (const char *const *e = f->test_params; e && *e; e++) {
        fv_params q;
        char why[200];
        const int good = test_param_entry(f, *e, &q, why, sizeof why);
        test_check(&t,
                   good && fv_params_check(f, &q) == FV_OK &&
                       canny_config_fill(&q, "canny", &c) == FV_OK,
                   "test_params entry valid:", *e);
    }
}

/* ---- against OpenCV --------------------------------------------------------------------------- */
static int write_case(const char *dir, int index, const fv_image *src, double low, double high,
                      int l2, double sigma, char *files, size_t size)
{
    const int w = src->width, h = src->height;
    fv_image gray = test_image_padded(w, h, 0), blur = test_image_padded(w, h, 0),
             edges = test_image_padded(w, h, 0);
    canny_args a = {.stage = CANNY_GRAY, .sigma = sigma, .l2 = l2};
    fv_params p = params_of(a);
    p.value[CANNY_LOW] = low; /* reals: cv2.Canny floors them, as we do */
    p.value[CANNY_HIGH] = high;
    int ok = test_ref_runs(canny_config_make, canny_ref, src, &gray, &p, "canny_ref");
    p.value[CANNY_STAGE] = CANNY_BLUR;
    ok = ok && test_ref_runs(canny_config_make, canny_ref, src, &blur, &p, "canny_ref");
    p.value[CANNY_STAGE] = CANNY_EDGES;
    ok = ok && test_ref_runs(canny_config_make, canny_ref, src, &edges, &p, "canny_ref");
    char path[1024];
    snprintf(path, sizeof path, "%s/canny_case_%d.raw", dir, index);
    FILE *f = fopen(path, "wb");
    ok = ok && f && fprintf(f, "%d %d %.17g %.17g %d %.17g\n", w, h, low, high, l2, sigma) > 0;
    for (int y = 0; ok && y < h; y++) ok = fwrite(px(src, 0, y), 4, (size_t)w, f) == (size_t)w;
    const fv_image *planes[] = {&gray, &blur, &edges};
    for (int k = 0; k < 3; k++)
        for (int y = 0; ok && y < h; y++)
            for (int x = 0; ok && x < w; x++) ok = fputc(px(planes[k], x, y)[0], f) != EOF;
    if (f) ok = fclose(f) == 0 && ok;
    test_check(&t, ok, "case file written:", path);
    if (ok) test_files_add(files, size, path);
    free(gray.data);
    free(blur.data);
    free(edges.data);
    return ok;
}

static int test_opencv(int argc, char **argv, uint32_t *seed)
{
    const char *script = argv[0], *dir = argv[1];
    char **photos = argv + 2;
    const int n_photos = argc - 2;
    /* 0.5: every kept pixel strong (a threshold of 0 would mean the default) */
    static const double thresholds[][3] = {{50, 150, 0}, {100, 200, 1}, {20, 60, 0},
                                           {150, 90, 1}, {0.5, 0.5, 0}, {30.7, 99.9, 1}};
    static const double blur_sigmas[] = {0.6, 1.4, 4.0};
    char files[8192] = "";
    int index = 0;
    for (int i = 0; i < n_photos; i++) {
        fv_image img;
        if (image_load(photos[i], &img) != FV_OK) {
            printf("FAIL: cannot load %s: %s\n", photos[i], fv_last_error());
            t.failed++;
            continue;
        }
        for (int k = 0; k < 4; k++)
            write_case(dir, index++, &img, thresholds[k][0], thresholds[k][1], thresholds[k][2],
                       0.0, files, sizeof files);
        /* the blur on: the default sigma, a wide one and the widest */
        for (int k = 0; k < 3; k++)
            write_case(dir, index++, &img, thresholds[k][0], thresholds[k][1], thresholds[k][2],
                       blur_sigmas[k], files, sizeof files);
        fv_host_image_free(&img);
    }
    static const int sizes[][2] = {{37, 23}, {1, 1}, {1, 9}, {9, 1}, {2, 2}, {130, 100}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        fv_image img = test_image_padded(sizes[s][0], sizes[s][1], PAD_BYTES);
        test_fill_random(&img, seed);
        if (s == sizeof sizes / sizeof sizes[0] - 1) /* smooth it: edges that are not everywhere */
            for (int y = 0; y < img.height; y++)
                for (int x = 0; x < img.width; x++)
                    px(&img, x, y)[0] = (uint8_t)(x * 3 + (y / 10) * 40 + px(&img, x, y)[0] / 16);
        for (int k = 0; k < 6; k++)
            write_case(dir, index++, &img, thresholds[k][0], thresholds[k][1], thresholds[k][2],
                       k < 3 ? 0.0 : blur_sigmas[k - 3], files, sizeof files);
        free(img.data);
    }
    const int code = test_python(script, files);
    if (code == 77) return 77;
    test_check(&t, code == 0, "the reference agrees with OpenCV", NULL);
    return test_finish(&t);
}

/* ---- the blur and the Sobel against scipy.ndimage ------------------------------------------ */
static void fill_typed_random(fv_image *img, uint32_t *seed)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            const uint32_t r = test_rand(seed);
            const double top = fv_pixel_type_max(img->type);
            /* smooth ramps plus noise: magnitudes of every size */
            const double v = fmod((x * 7 + y * 3) / 40.0 + (r >> 8) / (double)(1 << 24) * 0.3, 1.0);
            set_gray(img, x, y, img->type == FV_PIXEL_F32 ? v : floor(v * top));
            if (r & 1) { /* colour: R, G and B apart now and then */
                uint8_t *row = img->data + (size_t)y * img->pitch;
                if (img->type == FV_PIXEL_U16)
                    ((uint16_t *)row)[4 * x] = (uint16_t)(r >> 16);
                else if (img->type == FV_PIXEL_F32)
                    ((float *)row)[4 * x] = (float)(r >> 16) / 65536.0f;
                else
                    row[4 * x] = (uint8_t)(r >> 24);
            }
        }
}

/* Case files for tests/cpu/canny_scipy.py: every type x border, random images of awkward sizes:
 * "width height type border cval radius l2", the blur's taps, then the source's pixels and the
 * reference's blur and magnitude stages. */
static int test_scipy(int argc, char **argv, uint32_t *seed)
{
    const char *script = argv[0], *dir = argv[1];
    (void)argc;
    static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 3}, {23, 17}, {40, 31}};
    char files[8192] = "";
    int n = 0;
    for (int type = 0; type < FV_PIXEL_TYPE_COUNT; type++)
        for (int border = 0; border < FV_BORDER_COUNT; border++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, n++) {
                const int w = sizes[s][0], h = sizes[s][1], l2 = n % 2;
                const double cval =
                    type == FV_PIXEL_F32 ? 0.375 : (type == FV_PIXEL_U16 ? 40000 : 200);
                fv_params p = typed_params((fv_pixel_type)type, CANNY_BLUR, l2);
                p.value[CANNY_SIGMA] = n % 3 ? 1.0 : 0.5;
                p.value[CANNY_BORDER] = border;
                p.value[CANNY_CVAL] = cval;
                canny_config c;
                fv_image src, blur, mag;
                fv_host_image_alloc_as(&src, w, h, (fv_pixel_type)type, 4);
                fv_host_image_alloc_as(&blur, w, h, (fv_pixel_type)type, 4);
                fv_host_image_alloc_as(&mag, w, h, (fv_pixel_type)type, 4);
                fill_typed_random(&src, seed);
                int ok = canny_config_fill(&p, "canny", &c) == FV_OK &&
                         test_ref_runs(canny_config_make, canny_ref, &src, &blur, &p, "canny_ref");
                p.value[CANNY_STAGE] = CANNY_MAGNITUDE;
                ok = ok && test_ref_runs(canny_config_make, canny_ref, &src, &mag, &p, "canny_ref");
                char path[1024];
                snprintf(path, sizeof path, "%s/canny_scipy_case_%d.raw", dir, n);
                FILE *f = fopen(path, "wb");
                const size_t bytes = (size_t)w * h * 4 * fv_pixel_type_bytes(src.type);
                ok = ok && f &&
                     fprintf(f, "%d %d %s %s %.17g %d %d\n", w, h, fv_pixel_type_name(src.type),
                             fv_border_names[border], cval, c.radius, l2) > 0;
                for (int k = 0; ok && k < 2 * c.radius + 1; k++) ok = fprintf(f, "%d ", c.w[k]) > 0;
                ok = ok && fprintf(f, "\n") > 0 && fwrite(src.data, 1, bytes, f) == bytes &&
                     fwrite(blur.data, 1, bytes, f) == bytes &&
                     fwrite(mag.data, 1, bytes, f) == bytes;
                if (f) ok = fclose(f) == 0 && ok;
                test_check(&t, ok && test_files_add(files, sizeof files, path),
                           "case file written:", path);
                fv_host_image_free(&src);
                fv_host_image_free(&blur);
                fv_host_image_free(&mag);
            }
    if (t.failed) return test_finish(&t);
    const int code = test_python(script, files);
    if (code == 77) {
        printf("skipped: python3 with numpy and scipy is needed\n");
        return 77;
    }
    test_check(&t, code == 0,
               "canny_ref's blur and Sobel equal scipy.ndimage.correlate's for every type and "
               "border",
               NULL);
    return test_finish(&t);
}

int main(int argc, char **argv)
{
    static const test_group groups[] = {
        TEST_GROUP(test_step_edge),
        TEST_GROUP(test_chain),
        TEST_SEEDED(test_sweeps_literal),
        TEST_SEEDED(test_sizes),
        TEST_GROUP(test_config),
        TEST_GROUP(test_table),
        TEST_GROUP(test_typed_defaults),
        TEST_GROUP(test_typed_step),
        TEST_GROUP(test_typed_weak),
        TEST_GROUP(test_borders_by_hand),
        TEST_GROUP(test_nan),
    };
    static const test_mode modes[] = {
        {"--opencv", 2, "SCRIPT DIR [PHOTO...]: the reference against OpenCV", test_opencv},
        {"--scipy", 2, "SCRIPT DIR: the blur and Sobel against scipy", test_scipy}};
    return test_main(argc, argv, groups, sizeof groups / sizeof groups[0], modes, 2);
}
