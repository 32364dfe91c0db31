/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_box_ref.c (label cpu): the box filter's reference (kernels/box/box_ref.c) on tiny images
 * with hand-worked answers, against the definition (a direct 2-D sum with plain division) on
 * random images of awkward sizes and pitches, and its exact division box_mean (kernels/box/box.h)
 * against plain integer division at every multiple boundary of every radius. Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "box/box.h"
#include "test_skeleton.h"

static fv_params box_params(int radius)
{
    fv_params p = test_params_blank();
    p.value[BOX_RADIUS] = radius;
    return p;
}

/* The definition: each of R, G, B is (sum over the clamped (2r+1)^2 window + area / 2) / area
 * with a plain division; alpha is the centre pixel's. */
static void box_brute_pixel(const fv_image *src, int r, int x, int y, uint8_t out[4])
{
    const uint32_t area = (uint32_t)(2 * r + 1) * (uint32_t)(2 * r + 1);
    for (int c = 0; c < 3; c++) {
        uint32_t sum = 0;
        for (int i = -r; i <= r; i++)
            for (int j = -r; j <= r; j++)
                sum += px(src, clamp_int(x + j, 0, src->width - 1),
                          clamp_int(y + i, 0, src->height - 1))[c];
        out[c] = (uint8_t)((sum + area / 2) / area);
    }
    out[3] = px(src, x, y)[3];
}

static void box_brute(const fv_image *src, fv_image *dst, int r)
{
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) box_brute_pixel(src, r, x, y, px(dst, x, y));
}

static int run_ref(const fv_image *src, fv_image *dst, int r)
{
    const fv_params p = box_params(r);
    char what[48];
    snprintf(what, sizeof what, "box_ref radius %d", r);
    return test_ref_runs(box_config_make, box_ref, src, dst, &p, what);
}

/* 3x3, r = 1. R = 10 20 30 / 40 50 60 / 70 80 90. Row sums with the edge pixel counted twice:
 *   row 0: 2*10+20 = 40, 10+20+30 = 60, 20+2*30 = 80;  row 1: 130 150 170;  row 2: 220 240 260
 * column sums the same way: out row 0 = 2 * row 0 + row 1, row 1 = all three, row 2 = row 1 + 2 * row 2
 *   210 270 330 / 390 450 510 / 570 630 690, and (s + 4) / 9 =
 *   23 30 37 / 43 50 57 / 63 70 77.
 * G = 200 everywhere stays 200. B = 255 at the centre only: every window (edges clamped) holds
 * the centre exactly once, so B = (255 + 4) / 9 = 28 everywhere. Alpha = 1..9 is kept. */
static void test_3x3_by_hand(void)
{
    static const uint8_t red[9] = {10, 20, 30, 40, 50, 60, 70, 80, 90};
    static const uint8_t want_red[9] = {23, 30, 37, 43, 50, 57, 63, 70, 77};
    static const uint8_t want_green[9] = {200, 200, 200, 200, 200, 200, 200, 200, 200};
    static const uint8_t want_blue[9] = {28, 28, 28, 28, 28, 28, 28, 28, 28};
    static const uint8_t alpha[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    fv_image src = test_image_padded(3, 3, TEST_PAD_BYTES),
             dst = test_image_padded(3, 3, TEST_PAD_BYTES);
    for (int k = 0; k < 9; k++) {
        uint8_t *q = px(&src, k % 3, k / 3);
        q[0] = red[k];
        q[1] = 200;
        q[2] = k == 4 ? 255 : 0;
        q[3] = alpha[k];
    }
    int ok = run_ref(&src, &dst, 1);
    test_check(&t, ok && channel_is(&dst, 0, want_red),
               "3x3 r 1: R is 23 30 37 / 43 50 57 / 63 70 77", NULL);
    test_check(&t, ok && channel_is(&dst, 1, want_green), "3x3 r 1: constant G stays 200", NULL);
    test_check(&t, ok && channel_is(&dst, 2, want_blue),
               "3x3 r 1: centre B 255 gives 28 everywhere", NULL);
    test_check(&t, ok && channel_is(&dst, 3, alpha), "3x3 r 1: alpha kept", NULL);
    test_check(&t, test_padding_intact(&dst), "3x3 r 1: row padding untouched", NULL);
    free(src.data);
    free(dst.data);
}

/* A constant colour stays exactly itself for every radius (area * v / area), whatever the size;
 * alpha varies per pixel and is kept. */
static void test_constant(void)
{
    static const int sizes[][2] = {{1, 1}, {5, 3}, {1, 9}, {9, 1}, {17, 11}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int w = sizes[s][0], h = sizes[s][1];
        fv_image src = test_image_padded(w, h, TEST_PAD_BYTES),
                 dst = test_image_padded(w, h, TEST_PAD_BYTES);
        int ok = 1;
        for (int r = 1; r <= FV_BOX_MAX_RADIUS; r++) {
            const uint8_t colour[3] = {(uint8_t)(r * 7), (uint8_t)(255 - r),
                                       (uint8_t)(r % 2 ? 255 : 0)};
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    memcpy(px(&src, x, y), colour, 3);
                    px(&src, x, y)[3] = (uint8_t)(x * 31 + y * 17 + r);
                }
            ok = ok && run_ref(&src, &dst, r);
            for (int y = 0; ok && y < h; y++)
                for (int x = 0; ok && x < w; x++)
                    ok = memcmp(px(&dst, x, y), colour, 3) == 0 &&
                         px(&dst, x, y)[3] == px(&src, x, y)[3];
        }
        char what[64];
        snprintf(what, sizeof what, "%dx%d, radius 1..%d", w, h, FV_BOX_MAX_RADIUS);
        test_check(&t, ok && test_padding_intact(&dst),
                   "a constant image stays constant, alpha kept:", what);
        free(src.data);
        free(dst.data);
    }
}

/* One bright pixel: 7x7, R = 255 at (3, 3). With r = 1 the 3x3 around it is 28 (255 / 9 rounded)
 * and the rest 0. With r = 3 on this 7x7 image every window holds (3, 3) exactly once:
 * (255 + 24) / 49 = 5 everywhere. */
static void test_bright_pixel(void)
{
    fv_image src = test_image_padded(7, 7, 0), dst = test_image_padded(7, 7, 0);
    memset(src.data, 0, src.pitch * 7);
    px(&src, 3, 3)[0] = 255;
    uint8_t want[49];
    for (int k = 0; k < 49; k++) {
        const int x = k % 7, y = k / 7;
        want[k] = (x >= 2 && x <= 4 && y >= 2 && y <= 4) ? 28 : 0;
    }
    int ok = run_ref(&src, &dst, 1);
    test_check(&t, ok && channel_is(&dst, 0, want), "bright pixel r 1: 28 in its 3x3, 0 elsewhere",
               NULL);
    memset(want, 5, sizeof want);
    ok = run_ref(&src, &dst, 3);
    test_check(&t, ok && channel_is(&dst, 0, want), "bright pixel r 3 on 7x7: 5 everywhere", NULL);
    free(src.data);
    free(dst.data);
}

/* Clamped borders at a corner: 4x4, R = 255 at (0, 0) only. r = 1: the window of (0, 0) reads
 * it 2 x 2 = 4 times: (1020 + 4) / 9 = 113; (1, 0) and (0, 1) read it twice: (510 + 4) / 9 = 57;
 * (1, 1) once: 28; the rest 0. r = 2: (0, 0) reads it 3 x 3 = 9 times: (2295 + 12) / 25 = 92;
 * (1, 0) 3 x 2 = 6 times: (1530 + 12) / 25 = 61; (1, 1) 2 x 2: (1020 + 12) / 25 = 41;
 * (2, 0) 3 x 1: (765 + 12) / 25 = 31; (2, 1) 2 x 1: (510 + 12) / 25 = 20; (2, 2) once: 10. */
static void test_corner(void)
{
    fv_image src = test_image_padded(4, 4, TEST_PAD_BYTES),
             dst = test_image_padded(4, 4, TEST_PAD_BYTES);
    for (int y = 0; y < 4; y++) memset(px(&src, 0, y), 0, 16);
    px(&src, 0, 0)[0] = 255;
    static const uint8_t want1[16] = {113, 57, 0, 0, 57, 28, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t want2[16] = {92, 61, 31, 0, 61, 41, 20, 0, 31, 20, 10, 0, 0, 0, 0, 0};
    int ok = run_ref(&src, &dst, 1);
    test_check(&t, ok && channel_is(&dst, 0, want1),
               "corner r 1: 113 57 / 57 28 from the clamped edge", NULL);
    ok = run_ref(&src, &dst, 2);
    test_check(&t, ok && channel_is(&dst, 0, want2), "corner r 2: 92 61 31 / 61 41 20 / 31 20 10",
               NULL);
    free(src.data);
    free(dst.data);
}

/* Windows larger than the image. 1x1: every tap is the pixel itself, so it is unchanged.
 * 2x3 (2 wide, 3 high), r = 5, area 121: row y' counts in the window of row y as
 *   y = 0: 6 1 4,  y = 1: 5 1 5,  y = 2: 4 1 6  (rows 0, 1, 2), and column x' in column x as
 *   x = 0: 6 5,    x = 1: 5 6.
 * R = 100 at (0, 0), 200 at (1, 2), else 0: (0, 0) = 6*6*100 + 4*5*200 = 7600 -> (7600+60)/121 = 63;
 * (1, 0) = 6*5*100 + 4*6*200 = 7800 -> 64; (0, 1) = 8000 -> 66; (1, 1) = 8500 -> 70;
 * (0, 2) = 8400 -> 69; (1, 2) = 9200 -> 76.
 * 1x7 (1 wide), r = 5: every column tap is the pixel itself, so out(y) is the mean of the 11
 * clamped rows: R = 0, 11, 22, ..., 66 gives out(0) = (6*0 + 11 + 22 + 33 + 44 + 55) * 11 = 1815
 * -> (1815 + 60) / 121 = 15. */
static void test_larger_than_image(void)
{
    fv_image src = test_image_padded(1, 1, 0), dst = test_image_padded(1, 1, 0);
    const uint8_t pixel[4] = {1, 128, 254, 77};
    memcpy(src.data, pixel, 4);
    int ok = 1;
    for (int r = 1; r <= FV_BOX_MAX_RADIUS; r++)
        ok = ok && run_ref(&src, &dst, r) && memcmp(dst.data, pixel, 4) == 0;
    test_check(&t, ok, "1x1: unchanged for every radius", NULL);
    free(src.data);
    free(dst.data);

    src = test_image_padded(2, 3, TEST_PAD_BYTES);
    dst = test_image_padded(2, 3, TEST_PAD_BYTES);
    for (int y = 0; y < 3; y++) memset(px(&src, 0, y), 0, 8);
    px(&src, 0, 0)[0] = 100;
    px(&src, 1, 2)[0] = 200;
    static const uint8_t want23[6] = {63, 64, 66, 70, 69, 76};
    ok = run_ref(&src, &dst, 5);
    test_check(&t, ok && channel_is(&dst, 0, want23), "2x3 r 5: 63 64 / 66 70 / 69 76", NULL);
    free(src.data);
    free(dst.data);

    src = test_image_padded(1, 7, 0);
    dst = test_image_padded(1, 7, 0);
    for (int y = 0; y < 7; y++) px(&src, 0, y)[0] = (uint8_t)(11 * y);
    ok = run_ref(&src, &dst, 5);
    test_check(&t, ok && px(&dst, 0, 0)[0] == 15, "1x7 r 5: out(0) is 15", NULL);
    free(src.data);
    free(dst.data);
}

/* Against the definition on random images: awkward sizes, padded and tight pitches, radii from
 * 1 to the maximum (windows far larger than the image included). */
static const int brute_radii[] = {1, 2, 3, 7, 20, 128};

static int box_against_brute(test_case *c)
{
    const int r = brute_radii[c->set];
    snprintf(c->what, sizeof c->what, "%dx%d pitch %zu radius %d", c->src.width, c->src.height,
             c->got.pitch, r);
    const int ran = run_ref(&c->src, &c->got, r);
    box_brute(&c->src, &c->want, r);
    return ran;
}

static void test_against_brute(uint32_t *seed)
{
    static const int sizes[][2] = {{1, 1},  {1, 5},  {5, 1},  {2, 3},   {3, 2},
                                   {7, 13}, {13, 7}, {17, 5}, {31, 29}, {64, 3}};
    test_against_definition(sizes, sizeof sizes / sizeof sizes[0],
                            (int)(sizeof brute_radii / sizeof brute_radii[0]), box_against_brute,
                            seed, "box_ref equals the direct 2-D sum:");
}

/* The size the viewer runs at, at the largest radius (about a second with -O2), sampled
 * against the definition. */
static void test_full_hd(uint32_t *seed)
{
    fv_image src, dst;
    if (fv_host_image_alloc(&src, 1920, 1080) != FV_OK ||
        fv_host_image_alloc(&dst, 1920, 1080) != FV_OK) {
        test_check(&t, 0, "1920x1080 images:", fv_last_error());
        return;
    }
    test_fill_random(&src, seed);
    const clock_t start = clock();
    int ok = run_ref(&src, &dst, FV_BOX_MAX_RADIUS);
    const double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    printf("box_ref 1920x1080 radius %d: %.2f s\n", FV_BOX_MAX_RADIUS, seconds);
    for (int k = 0; ok && k < 64; k++) {
        /* corners and edges first, then random pixels */
        const int x = k < 4 ? (k % 2) * 1919 : (int)(test_rand(seed) % 1920);
        const int y = k < 4 ? (k / 2) * 1079 : (int)(test_rand(seed) % 1080);
        uint8_t want[4];
        box_brute_pixel(&src, FV_BOX_MAX_RADIUS, x, y, want);
        ok = memcmp(px(&dst, x, y), want, 4) == 0;
    }
    test_check(&t, ok, "1920x1080 radius 128 equals the direct 2-D sum at 64 sampled pixels", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
}

/* box_mean(s) = (s + half) / area changes value where s + half crosses a multiple of area, i.e.
 * at s = k * area + half + 1 (2 * half = area - 1). Every radius, every k, the sums one and two
 * below that crossing and the crossing itself, up to the 2^25 bound of box.h; plus 0 and the
 * largest real sum, 255 * area. */
static void test_box_mean(void)
{
    long long checks = 0, failures = 0;
    int first_radius = 0;
    uint32_t first_sum = 0;
    for (int r = 1; r <= FV_BOX_MAX_RADIUS; r++) {
        const box_divider d = box_divider_make(r);
        const uint32_t area = (uint32_t)(2 * r + 1) * (uint32_t)(2 * r + 1);
        int ok = d.area == area && d.half == area / 2;
        for (uint64_t k = 0;; k++) {
            const uint64_t base = k * area + d.half;
            if (base + 1 + d.half >= (1u << FV_BOX_SUM_BITS)) break;
            for (uint64_t s = base > 0 ? base - 1 : 0; s <= base + 1; s++) {
                checks++;
                if (box_mean((uint32_t)s, d) != (uint32_t)((s + area / 2) / area)) {
                    if (!failures++) {
                        first_radius = r;
                        first_sum = (uint32_t)s;
                    }
                }
            }
        }
        const uint32_t ends[2] = {0, 255 * area};
        for (int e = 0; e < 2; e++) {
            checks++;
            ok = ok && box_mean(ends[e], d) == (ends[e] + area / 2) / area;
        }
        if (!ok && !failures++) first_radius = r;
    }
    char what[96];
    snprintf(what, sizeof what, "(%lld checks, first failure radius %d sum %u)", checks,
             first_radius, first_sum);
    test_check(&t, failures == 0, "box_mean equals (sum + area / 2) / area at every boundary",
               what);
    printf("box_mean: %lld sums checked\n", checks);
}

/* box_quotient(n) = n / area at every multiple boundary of every radius up to 2^25, and
 * box_quotient_hi(n) = n / area for every window sum plus area / 2 (and every n < 2^16) at every
 * radius whose divider has it, which every radius up to 31 must (the `fast` variant's divisions,
 * the rounding already added to n) */
static void test_box_quotient(void)
{
    long long checks = 0, failures = 0;
    for (int r = 1; r <= FV_BOX_MAX_RADIUS; r++) {
        const box_divider d = box_divider_make(r);
        for (uint64_t k = 0; k * d.area < (1u << FV_BOX_SUM_BITS); k++)
            for (uint64_t n = k * d.area > 0 ? k * d.area - 1 : 0; n <= k * d.area + 1; n++) {
                if (n >= (1u << FV_BOX_SUM_BITS)) break;
                checks++;
                failures += box_quotient((uint32_t)n, d) != (uint32_t)(n / d.area);
            }
        const uint32_t sums_end = 255 * d.area + d.half + 1; /* one past the largest n */
        if (d.magic_hi)
            for (uint32_t n = 0; n < (sums_end > 65536 ? sums_end : 65536); n++) {
                checks++;
                failures += box_quotient_hi(n, d) != n / d.area;
            }
        else
            failures += r <= 31; /* kernels/box/box_fast.cu counts on it there */
    }
    char what[64];
    snprintf(what, sizeof what, "(%lld checks, %lld failures)", checks, failures);
    test_check(&t, failures == 0, "box_quotient and box_quotient_hi equal n / area", what);
    printf("box_quotient: %lld values checked\n", checks);
}

int main(int argc, char **argv)
{
    static const test_group groups[] = {
        TEST_GROUP(test_3x3_by_hand),       TEST_GROUP(test_constant),
        TEST_GROUP(test_bright_pixel),      TEST_GROUP(test_corner),
        TEST_GROUP(test_larger_than_image), TEST_SEEDED(test_against_brute),
        TEST_SEEDED(test_full_hd),          TEST_GROUP(test_box_mean),
        TEST_GROUP(test_box_quotient),
    };
    return test_main(argc, argv, groups, sizeof groups / sizeof groups[0], NULL, 0);
}
