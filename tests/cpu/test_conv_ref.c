/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_conv_ref.c (label cpu): the large-kernel convolution's kernels (kernels/conv/conv_kernels.c)
 * and reference (kernels/conv/conv_ref.c) on the host: quantisation (every shape sums to 2^16, the
 * box's remainder on its centre), shapes (symmetry, sizes, the motion kernel's angle), the true
 * convolution's orientation with one-tap kernels, hand-worked sums on tiny images, kernels larger
 * than the image, no wrap-around (a bright pixel by the left border never reaches the right),
 * pitches wider than the rows, the kernel and spectrum stages on images whose answers are known,
 * and bad kernel images; uint16 and float32 rounding, NaN and infinity, every border worked out by
 * hand, the stages in every type; with --scipy, case files of every type x border for tests/cpu/conv_scipy.py. Needs no
 * GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "conv/conv.h"
#include "test_skeleton.h"

#include <math.h>

static conv_config *conf;    /* 64 KiB: not on the stack */
static conv_kernel *kern;    /* conf's kernel: what kernel_of made */
static fv_image file_kernel; /* the `kernel-file` image set_file_kernel made; none: data NULL */

static fv_params conv_params(int stage, int shape)
{
    fv_params p = test_params_blank();
    p.value[CONV_STAGE] = stage;
    p.value[CONV_SHAPE] = shape;
    p.value[CONV_SIGMA] = 3;
    p.value[CONV_RADIUS] = 8;
    p.value[CONV_LENGTH] = 31;
    p.value[CONV_ANGLE] = 0;
    return p;
}

static void fill(fv_image *img, uint8_t r, uint8_t g, uint8_t b, uint8_t a)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            uint8_t *q = px(img, x, y);
            q[0] = r, q[1] = g, q[2] = b, q[3] = a;
        }
}

/* A gray `file` kernel from a row-major list of levels. */
static fv_status set_file_kernel(const uint8_t *levels, int width, int height)
{
    fv_image img = test_image_padded(width, height, TEST_PAD_BYTES);
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            uint8_t *q = px(&img, x, y);
            q[0] = q[1] = q[2] = levels[y * width + x];
            q[3] = 255;
        }
    fv_status st = conv_kernel_image_check(&img);
    if (st != FV_OK) {
        free(img.data);
        return st;
    }
    free(file_kernel.data);
    file_kernel = img;
    return FV_OK;
}

static void clear_file_kernel(void)
{
    free(file_kernel.data);
    memset(&file_kernel, 0, sizeof file_kernel);
}

/* p with the `kernel-file` parameter: the image set_file_kernel made, if any */
static fv_params *with_file(fv_params *p)
{
    p->image[CONV_KERNEL_FILE] = file_kernel.data ? &file_kernel : NULL;
    p->value[CONV_KERNEL_FILE] = file_kernel.data != NULL;
    return p;
}

/* p's kernel, made into conf (kern) by the configuration as prepare makes it; 1 when made, else
 * prints why */
static int kernel_of(const fv_params *p)
{
    char why[200] = "";
    if (conv_config_make(p, conf, why, sizeof why)) return 1;
    printf("conv_config_make: %s\n", why);
    return 0;
}

static int kernel_sum_ok(const conv_kernel *k)
{
    int64_t s = 0;
    for (int i = 0; i < k->width * k->height; i++) {
        if (k->w[i] < 0) return 0;
        s += k->w[i];
    }
    return s == FV_CONV_WEIGHT_SUM;
}

static int kernel_symmetric(const conv_kernel *k, int mirrors)
{
    const int w = k->width, h = k->height;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            const int32_t v = k->w[i * w + j];
            if (v != k->w[(h - 1 - i) * w + (w - 1 - j)]) return 0;
            if (mirrors && (v != k->w[(h - 1 - i) * w + j] || v != k->w[i * w + (w - 1 - j)]))
                return 0;
            if (mirrors && w == h && v != k->w[j * w + i]) return 0;
        }
    return 1;
}

static int32_t tap(const conv_kernel *k, int di, int dj)
{
    return k->w[(k->cy + di) * k->width + k->cx + dj];
}

/* ---- shapes and quantisation ---- */
static void test_shapes(void)
{
    struct {
        int shape;
        double sigma, radius, length, angle;
        int size, mirrors;
    } cases[] = {
        {CONV_GAUSSIAN, 0.3, 1, 1, 0, 3, 1},  {CONV_GAUSSIAN, 1, 1, 1, 0, 7, 1},
        {CONV_GAUSSIAN, 2.5, 1, 1, 0, 17, 1}, {CONV_GAUSSIAN, 20, 1, 1, 0, 121, 1},
        {CONV_DISK, 1, 1, 1, 0, 3, 1},        {CONV_DISK, 1, 7, 1, 0, 15, 1},
        {CONV_DISK, 1, 63, 1, 0, 127, 1},     {CONV_BOX, 1, 1, 1, 0, 3, 1},
        {CONV_BOX, 1, 31, 1, 0, 63, 1},       {CONV_BOX, 1, 63, 1, 0, 127, 1},
        {CONV_MOTION, 1, 1, 15, 30, 0, 0},    {CONV_MOTION, 1, 1, 127, 45, 91, 0},
        {CONV_MOTION, 1, 1, 64, 100, 0, 0},   {CONV_MOTION, 1, 1, 1, 0, 1, 1},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fv_params p = conv_params(CONV_OUTPUT, cases[c].shape);
        p.value[CONV_SIGMA] = cases[c].sigma;
        p.value[CONV_RADIUS] = cases[c].radius;
        p.value[CONV_LENGTH] = cases[c].length;
        p.value[CONV_ANGLE] = cases[c].angle;
        char what[160];
        snprintf(what, sizeof what, "shape %s sigma %g radius %g length %g angle %g",
                 conv_shape_names[cases[c].shape], cases[c].sigma, cases[c].radius, cases[c].length,
                 cases[c].angle);
        const int made = kernel_of(with_file(&p));
        test_check(&t, made, what, NULL);
        if (!made) continue;
        char detail[200];
        snprintf(detail, sizeof detail, "%s: %dx%d, %d taps", what, kern->width, kern->height,
                 kern->taps);
        test_check(&t, kernel_sum_ok(kern), "weights are >= 0 and sum to 2^16:", detail);
        test_check(&t, kernel_symmetric(kern, cases[c].mirrors), "kernel symmetric:", detail);
        test_check(&t,
                   kern->width % 2 == 1 && kern->height % 2 == 1 &&
                       kern->width <= FV_CONV_MAX_SIZE && kern->height <= FV_CONV_MAX_SIZE,
                   "odd size within 127x127:", detail);
        if (cases[c].size)
            test_check(&t, kern->width == cases[c].size && kern->height == cases[c].size,
                       "expected size:", detail);
        int32_t wmax = 0;
        for (int i = 0; i < kern->width * kern->height; i++)
            wmax = kern->w[i] > wmax ? kern->w[i] : wmax;
        test_check(&t, tap(kern, 0, 0) == wmax, "the centre weighs most:", detail);
    }
    /* box radius 1: 65536 / 9 = 7281.78 each; the remainder 7 (less than the group of 9) goes
     * to the centre */
    fv_params p = conv_params(CONV_OUTPUT, CONV_BOX);
    p.value[CONV_RADIUS] = 1;
    kernel_of(with_file(&p));
    int ok = tap(kern, 0, 0) == 7288;
    for (int i = 0; i < 9; i++) ok &= i == 4 || kern->w[i] == 7281;
    test_check(&t, ok, "box radius 1: eight taps 7281, centre 7288", NULL);
    /* quantisation keeps equal weights equal: 4 x 1 of 1, 3, 3, 1 -> 8192, 24576, 24576, 8192 */
    const double f[4] = {1, 3, 3, 1};
    test_check(&t,
               conv_quantise(f, 4, 1, kern) == FV_OK && kern->w[0] == 8192 && kern->w[1] == 24576 &&
                   kern->w[2] == 24576 && kern->w[3] == 8192,
               "quantise 1 3 3 1", NULL);
    const double zeros[3] = {0, 0, 0};
    test_check(&t, conv_quantise(zeros, 3, 1, kern) != FV_OK, "quantise refuses all zeros", NULL);
}

/* Motion: 0 degrees is the centre row, 90 the centre column, 45 runs up-right on screen (row
 * above, column to the right) and 135 up-left. */
static void test_motion_angle(void)
{
    fv_params p = conv_params(CONV_OUTPUT, CONV_MOTION);
    p.value[CONV_LENGTH] = 9;
    p.value[CONV_ANGLE] = 0;
    kernel_of(with_file(&p));
    int ok = kern->width == 9 && kern->height == 1;
    for (int j = 0; ok && j < 9; j++) ok = kern->w[j] >= 7281 && kern->w[j] <= 7288;
    test_check(&t, ok, "motion length 9 angle 0: one row of 9 equal taps", NULL);
    p.value[CONV_ANGLE] = 90;
    kernel_of(with_file(&p));
    test_check(&t, kern->width == 1 && kern->height == 9 && kernel_sum_ok(kern),
               "motion angle 90: one column of 9", NULL);
    p.value[CONV_ANGLE] = 45;
    kernel_of(with_file(&p));
    char detail[64];
    snprintf(detail, sizeof detail, "%dx%d", kern->width, kern->height);
    test_check(&t,
               kern->width == 9 && kern->height == 9 && tap(kern, -2, 2) > 0 &&
                   tap(kern, 2, -2) > 0 && tap(kern, 2, 2) == 0 && tap(kern, -2, -2) == 0 &&
                   tap(kern, -3, 3) > 0,
               "motion angle 45: up-right and down-left only", detail);
    p.value[CONV_ANGLE] = 135;
    kernel_of(with_file(&p));
    test_check(&t, tap(kern, -2, -2) > 0 && tap(kern, 2, 2) > 0 && tap(kern, -2, 2) == 0,
               "motion angle 135: up-left and down-right only", NULL);
}

/* ---- the reference's output ---- */
static int run(const fv_image *src, fv_image *dst, const fv_params *p)
{
    fv_params q = *p;
    return test_ref_runs(conv_config_make, conv_ref, src, dst, with_file(&q), "conv_ref");
}

/* 3x1, R = 0 90 180, box radius 1 (columns weigh 21843, 21850, 21843):
 * x = 0: 90 * 21843 = 1965870 -> (1965870 + 32768) >> 16 = 30
 * x = 1: 90 * 21850 + 180 * 21843 = 5898240 = 90 * 65536 -> 90
 * x = 2: 90 * 21843 + 180 * (21850 + 21843) = 9830610 -> 150 */
static void test_hand_sums(void)
{
    fv_image src = test_image_padded(3, 1, TEST_PAD_BYTES),
             dst = test_image_padded(3, 1, TEST_PAD_BYTES);
    const uint8_t red[3] = {0, 90, 180};
    for (int x = 0; x < 3; x++) {
        px(&src, x, 0)[0] = red[x];
        px(&src, x, 0)[1] = 7;
        px(&src, x, 0)[2] = 255;
        px(&src, x, 0)[3] = (uint8_t)(10 + x);
    }
    fv_params p = conv_params(CONV_OUTPUT, CONV_BOX);
    p.value[CONV_RADIUS] = 1;
    int ok = run(&src, &dst, &p);
    ok = ok && px(&dst, 0, 0)[0] == 30 && px(&dst, 1, 0)[0] == 90 && px(&dst, 2, 0)[0] == 150;
    test_check(&t, ok, "box radius 1 on R = 0 90 180 gives 30 90 150", NULL);
    ok = 1;
    for (int x = 0; x < 3; x++)
        ok &= px(&dst, x, 0)[1] == 7 && px(&dst, x, 0)[2] == 255 && px(&dst, x, 0)[3] == 10 + x;
    test_check(&t, ok && test_padding_intact(&dst),
               "constant G and B stay, alpha kept, padding untouched", NULL);

    /* a one-tap kernel at the left of a 3x1 file kernel: out(x) = S(x - (0 - 1)) = S(x + 1), the
     * image moves left; at the right: S(x - 1) */
    const uint8_t left[3] = {255, 0, 0}, right[3] = {0, 0, 9};
    p = conv_params(CONV_OUTPUT, CONV_FILE);
    ok = set_file_kernel(left, 3, 1) == FV_OK && run(&src, &dst, &p);
    test_check(
        &t, ok && px(&dst, 0, 0)[0] == 90 && px(&dst, 1, 0)[0] == 180 && px(&dst, 2, 0)[0] == 180,
        "file kernel [1 0 0]: a true convolution moves the image left", NULL);
    ok = set_file_kernel(right, 3, 1) == FV_OK && run(&src, &dst, &p);
    test_check(&t,
               ok && px(&dst, 0, 0)[0] == 0 && px(&dst, 1, 0)[0] == 0 && px(&dst, 2, 0)[0] == 90,
               "file kernel [0 0 1]: moves it right", NULL);
    /* an even 2x1 kernel [1 3]: centre 1, out(x) = (S(x + 1) + 3 S(x)) / 4 */
    const uint8_t even[2] = {50, 150};
    ok = set_file_kernel(even, 2, 1) == FV_OK && run(&src, &dst, &p);
    test_check(
        &t, ok && px(&dst, 0, 0)[0] == 23 && px(&dst, 1, 0)[0] == 113 && px(&dst, 2, 0)[0] == 180,
        "file kernel [1 3] (even width): 22.5 -> 23, 112.5 -> 113, 180", NULL);
    clear_file_kernel();
    free(src.data);
    free(dst.data);
}

/* The definition, written out separately: every source position the kernel touches, clamped. */
static void brute(const fv_image *src, fv_image *dst, const conv_kernel *k)
{
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            for (int c = 0; c < 3; c++) {
                int64_t s = 0;
                for (int dy = -k->cy; dy < k->height - k->cy; dy++)
                    for (int dx = -k->cx; dx < k->width - k->cx; dx++) {
                        int sx = x - dx, sy = y - dy;
                        sx = sx < 0 ? 0 : (sx >= src->width ? src->width - 1 : sx);
                        sy = sy < 0 ? 0 : (sy >= src->height ? src->height - 1 : sy);
                        s += (int64_t)k->w[(dy + k->cy) * k->width + dx + k->cx] *
                             px(src, sx, sy)[c];
                    }
                px(dst, x, y)[c] = (uint8_t)((s + 32768) / 65536);
            }
            px(dst, x, y)[3] = px(src, x, y)[3];
        }
}

/* every shape on each size; the file kernel is the built-in sample, or on every other size a 3x2
 * asymmetric one */
static int conv_against_brute(test_case *c)
{
    static const uint8_t sample[6] = {0, 40, 255, 3, 0, 90};
    const int shape = c->set;
    fv_params p = conv_params(CONV_OUTPUT, shape);
    p.value[CONV_RADIUS] = 6; /* 13x13: larger than most of these images */
    p.value[CONV_SIGMA] = 1.7;
    p.value[CONV_LENGTH] = 20;
    p.value[CONV_ANGLE] = 30;
    if (shape == CONV_FILE && c->size % 2) set_file_kernel(sample, 3, 2);
    snprintf(c->what, sizeof c->what, "%dx%d pitch %zu shape %s", c->src.width, c->src.height,
             c->got.pitch, conv_shape_names[shape]);
    const int ran = kernel_of(with_file(&p)) && run(&c->src, &c->got, &p);
    brute(&c->src, &c->want, kern);
    clear_file_kernel();
    return ran;
}

static void test_against_brute(uint32_t *seed)
{
    static const int sizes[][2] = {{1, 1}, {2, 3}, {7, 1}, {1, 5}, {13, 11}, {31, 7}};
    test_against_definition(sizes, sizeof sizes / sizeof sizes[0], CONV_N_SHAPES,
                            conv_against_brute, seed,
                            "reference equals the brute-force definition:");
    /* a kernel far larger than the image: a 1x1 image stays itself (every tap sees it) */
    fv_image one = test_image_padded(1, 1, TEST_PAD_BYTES),
             out = test_image_padded(1, 1, TEST_PAD_BYTES);
    fill(&one, 17, 200, 99, 5);
    fv_params p = conv_params(CONV_OUTPUT, CONV_DISK);
    p.value[CONV_RADIUS] = 63;
    int ok = run(&one, &out, &p);
    test_check(&t,
               ok && px(&out, 0, 0)[0] == 17 && px(&out, 0, 0)[1] == 200 &&
                   px(&out, 0, 0)[2] == 99 && px(&out, 0, 0)[3] == 5,
               "1x1 image under a 127x127 disk stays itself", NULL);
    free(one.data);
    free(out.data);
}

/* A bright pixel at the left border, black elsewhere: replicated borders spread it left (and
 * within reach), never to the right edge. */
static void test_no_wrap(void)
{
    const int w = 40, h = 9;
    fv_image src = test_image_padded(w, h, TEST_PAD_BYTES),
             dst = test_image_padded(w, h, TEST_PAD_BYTES);
    fill(&src, 0, 0, 0, 255);
    px(&src, 0, 4)[0] = px(&src, 0, 4)[1] = px(&src, 0, 4)[2] = 255;
    fv_params p = conv_params(CONV_OUTPUT, CONV_BOX);
    p.value[CONV_RADIUS] = 3;
    int ok = run(&src, &dst, &p), lit_left = 0, lit_right = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (px(&dst, x, y)[0] && x > 3) lit_right = 1;
            if (px(&dst, x, y)[0] && x <= 3) lit_left = 1;
        }
    test_check(&t, ok && lit_left && !lit_right,
               "a bright pixel by the left border stays within reach of it", NULL);
    free(src.data);
    free(dst.data);
}

/* ---- stages ---- */
static void test_stages(void)
{
    const int w = 32, h = 20;
    fv_image src = test_image_padded(w, h, TEST_PAD_BYTES),
             dst = test_image_padded(w, h, TEST_PAD_BYTES);
    fill(&src, 255, 255, 255, 7);
    /* a constant image's spectrum is its DC alone: 255 at (w/2, h/2), 0 elsewhere; the same for
     * the product with any kernel (its DC is 1) */
    const int stages[2] = {CONV_SPECTRUM_IMAGE, CONV_SPECTRUM_PRODUCT};
    for (int s = 0; s < 2; s++) {
        fv_params p = conv_params(stages[s], CONV_DISK);
        p.value[CONV_RADIUS] = 3;
        int ok = run(&src, &dst, &p);
        for (int y = 0; y < h && ok; y++)
            for (int x = 0; x < w && ok; x++) {
                const uint8_t want = x == w / 2 && y == h / 2 ? 255 : 0;
                ok = px(&dst, x, y)[0] == want && px(&dst, x, y)[1] == want &&
                     px(&dst, x, y)[2] == want && px(&dst, x, y)[3] == 255;
            }
        test_check(&t, ok && test_padding_intact(&dst),
                   "constant image: its spectrum is one bright DC at the centre",
                   conv_stage_names[stages[s]]);
    }
    /* a one-tap kernel's spectrum is 1 everywhere: all 255 */
    const uint8_t one[1] = {200};
    set_file_kernel(one, 1, 1);
    fv_params p = conv_params(CONV_SPECTRUM_KERNEL, CONV_FILE);
    int ok = run(&src, &dst, &p);
    for (int y = 0; y < h && ok; y++)
        for (int x = 0; x < w && ok; x++) ok = px(&dst, x, y)[0] == 255 && px(&dst, x, y)[2] == 255;
    test_check(&t, ok, "a one-tap kernel's spectrum is flat (all 255)", NULL);
    /* the kernel stage of the 3x1 [0 0 1] on 32x20: enlarged 32/3 times both ways (its shape
     * kept), so a 32x10 band centred in rows 5..14 whose right third is white; black elsewhere */
    const uint8_t right[3] = {0, 0, 9};
    set_file_kernel(right, 3, 1);
    p = conv_params(CONV_KERNEL, CONV_FILE);
    ok = run(&src, &dst, &p);
    for (int y = 0; y < h && ok; y++)
        for (int x = 0; x < w && ok; x++)
            ok = px(&dst, x, y)[0] == (y >= 5 && y < 15 && x * 3 / w == 2 ? 255 : 0) &&
                 px(&dst, x, y)[3] == 255;
    test_check(&t, ok, "kernel stage: [0 0 1] enlarged with its shape kept, its right third white",
               NULL);
    clear_file_kernel();
    /* the Gaussian's spectrum is brightest at DC and falls off: centre 255, corner darker */
    p = conv_params(CONV_SPECTRUM_KERNEL, CONV_GAUSSIAN);
    ok = run(&src, &dst, &p);
    test_check(&t, ok && px(&dst, w / 2, h / 2)[0] == 255 && px(&dst, 0, 0)[0] < 200,
               "Gaussian's spectrum: 255 at DC, dark at the highest frequencies", NULL);
    free(src.data);
    free(dst.data);
}

static void test_bad_kernel_images(void)
{
    fv_image big = test_image_padded(128, 2, TEST_PAD_BYTES);
    fill(&big, 9, 9, 9, 255);
    test_check(&t,
               conv_kernel_image_check(&big) == FV_ERR_SIZE &&
                   strstr(fv_last_error(), "larger than 127x127"),
               "a 128x2 kernel image is refused:", fv_last_error());
    fv_image black = test_image_padded(5, 5, TEST_PAD_BYTES);
    fill(&black, 0, 0, 0, 255);
    test_check(&t,
               conv_kernel_image_check(&black) == FV_ERR_FORMAT &&
                   strstr(fv_last_error(), "black everywhere"),
               "an all-black kernel image is refused:", fv_last_error());
    free(big.data);
    free(black.data);
    /* the built-in sample stands in until one is set: the L, asymmetric */
    fv_params p = conv_params(CONV_OUTPUT, CONV_FILE);
    test_check(&t,
               kernel_of(with_file(&p)) && kern->width == 9 && kern->height == 7 &&
                   kernel_sum_ok(kern) && !kernel_symmetric(kern, 0),
               "the built-in file kernel: a 9x7 L", NULL);
}

static void test_fft_sizes(void)
{
    /* powers of two where at most 10 % longer, 2,3-smooth where at most 2 %, else 2,3,5-smooth */
    int ok = conv_fft_size(1, 0) == 1 && conv_fft_size(1, 1) == 2 && conv_fft_size(11, 0) == 12 &&
             conv_fft_size(13, 1) == 16 && conv_fft_size(997, 0) == 1024 &&
             conv_fft_size(2161, 1) == 2250 && conv_fft_size(3902, 1) == 4096 &&
             conv_fft_size(2222, 0) == 2250 && conv_fft_size(6462, 0) == 6561 &&
             conv_fft_size(10046, 1) == 10368 && conv_fft_size(1142, 0) == 1152 &&
             conv_fft_size(101, 0) == 108 && conv_fft_size(3848, 1) == 4096 &&
             conv_fft_size(1928, 1) == 2048 && conv_fft_size(2568, 1) == 2592;
    test_check(
        &t, ok,
        "padded FFT sizes: powers of two, 2,3-smooth or 2,3,5-smooth lengths (even where asked)",
        NULL);
}

/* ---- uint16, float32 and the borders ------------------------------------------------------ */
/* channel c of pixel (x, y) of a uint16 or float32 image, as a double, and set */
static double chan(const fv_image *img, int x, int y, int c)
{
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    return img->type == FV_PIXEL_U16 ? ((const uint16_t *)row)[4 * x + c]
                                     : ((const float *)row)[4 * x + c];
}

static void set_chan(fv_image *img, int x, int y, int c, double v)
{
    uint8_t *row = img->data + (size_t)y * img->pitch;
    if (img->type == FV_PIXEL_U16)
        ((uint16_t *)row)[4 * x + c] = (uint16_t)v;
    else
        ((float *)row)[4 * x + c] = (float)v;
}

static fv_params typed_params(fv_pixel_type type, fv_border border, double cval)
{
    fv_params p = conv_params(CONV_OUTPUT, CONV_FILE);
    p.type = type;
    p.value[CONV_BORDER] = border;
    p.value[CONV_CVAL] = cval;
    return p;
}

/* A one-tap 5-wide kernel reads S(x - 2) (tap at the right) or S(x + 2) (at the left): on a row
 * a b c d the outputs are the border's extension itself, worked out by hand per mode (filter.h's
 * pictures): the left edge [S(-2) S(-1) a b] and the right [c d S(4) S(5)]. The same along a
 * column with the kernel stood up. uint16 and float32 alike. */
static void test_borders_by_hand(void)
{
    const double a = 1000, b = 2000, c = 3000, d = 65535, k = 7;
    static const struct {
        fv_border mode;
        const char *name;
        double left[4], right[4];
    } cases[] = {
        {FV_BORDER_REPLICATE, "replicate", {a, a, a, b}, {c, d, d, d}},
        {FV_BORDER_REFLECT, "reflect", {b, a, a, b}, {c, d, d, c}},
        {FV_BORDER_MIRROR, "mirror", {c, b, a, b}, {c, d, c, b}},
        {FV_BORDER_CONSTANT, "constant 7", {k, k, a, b}, {c, d, k, k}},
        {FV_BORDER_WRAP, "wrap", {c, d, a, b}, {c, d, a, b}},
    };
    const uint8_t at_right[5] = {0, 0, 0, 0, 200}, at_left[5] = {200, 0, 0, 0, 0};
    const double row[4] = {a, b, c, d};
    for (int type = FV_PIXEL_U16; type <= FV_PIXEL_F32; type++) {
        /* float: the same values scaled into 0..1 (exact: powers of two apart from d) */
        const double unit = type == FV_PIXEL_F32 ? 1.0 / 65536 : 1.0;
        for (int vertical = 0; vertical < 2; vertical++) {
            const int w = vertical ? 1 : 4, h = vertical ? 4 : 1;
            fv_image src, dst;
            fv_host_image_alloc_as(&src, w, h, (fv_pixel_type)type, 4);
            fv_host_image_alloc_as(&dst, w, h, (fv_pixel_type)type, 4);
            for (int i = 0; i < 4; i++) {
                for (int ch = 0; ch < 3; ch++)
                    set_chan(&src, vertical ? 0 : i, vertical ? i : 0, ch, row[i] * unit);
                set_chan(&src, vertical ? 0 : i, vertical ? i : 0, 3, (10 + i) * unit);
            }
            for (size_t m = 0; m < sizeof cases / sizeof cases[0]; m++)
                for (int side = 0; side < 2; side++) {
                    fv_params p = typed_params((fv_pixel_type)type, cases[m].mode, k * unit);
                    const int ok_kernel =
                        set_file_kernel(side ? at_left : at_right, vertical ? 1 : 5,
                                        vertical ? 5 : 1) == FV_OK;
                    int ok = ok_kernel && run(&src, &dst, &p);
                    const double *want = side ? cases[m].right : cases[m].left;
                    for (int i = 0; ok && i < 4; i++) {
                        const int x = vertical ? 0 : i, y = vertical ? i : 0;
                        for (int ch = 0; ch < 3; ch++) ok &= chan(&dst, x, y, ch) == want[i] * unit;
                        ok &= chan(&dst, x, y, 3) == (10 + i) * unit;
                    }
                    char what[96];
                    snprintf(what, sizeof what, "%s, %s, %s edge",
                             fv_pixel_type_name((fv_pixel_type)type), cases[m].name,
                             vertical ? (side ? "bottom" : "top") : (side ? "right" : "left"));
                    test_check(&t, ok, "a one-tap kernel reads the border's extension:", what);
                }
            fv_host_image_free(&src);
            fv_host_image_free(&dst);
        }
    }
    clear_file_kernel();
}

/* [1 2 1] / 4 on uint16 100 200 300 65535 (replicate): 125, 200, 16583.75 -> 16584,
 * 49226.25 -> 49226 (round half up, as uint8); in float the exact quarters, not rounded; NaN and
 * infinity. */
static void test_typed_rounding(void)
{
    const uint8_t tri[3] = {60, 120, 60}; /* weights 16384 32768 16384 */
    fv_image src, dst;
    fv_host_image_alloc_as(&src, 4, 1, FV_PIXEL_U16, 4);
    fv_host_image_alloc_as(&dst, 4, 1, FV_PIXEL_U16, 4);
    const double in[4] = {100, 200, 300, 65535}, want[4] = {125, 200, 16584, 49226};
    for (int x = 0; x < 4; x++)
        for (int ch = 0; ch < 4; ch++) set_chan(&src, x, 0, ch, ch == 3 ? 65535 - x : in[x]);
    fv_params p = typed_params(FV_PIXEL_U16, FV_BORDER_REPLICATE, 0);
    int ok = set_file_kernel(tri, 3, 1) == FV_OK && run(&src, &dst, &p);
    for (int x = 0; ok && x < 4; x++)
        ok = chan(&dst, x, 0, 0) == want[x] && chan(&dst, x, 0, 2) == want[x] &&
             chan(&dst, x, 0, 3) == 65535 - x;
    test_check(&t, ok, "uint16 [1 2 1]/4: 125 200 16584 49226, alpha kept", NULL);
    /* G 1 0 0 3: 0.75 -> 1, 0.25 -> 0, 0.75 -> 1, 2.25 -> 2; B 0 1 3 3: 2.5 -> 3 (half up) */
    const double g_in[4] = {1, 0, 0, 3}, g_want[4] = {1, 0, 1, 2};
    const double b_in[4] = {0, 1, 3, 3}, b_want[4] = {0, 1, 3, 3};
    for (int x = 0; x < 4; x++) {
        set_chan(&src, x, 0, 1, g_in[x]);
        set_chan(&src, x, 0, 2, b_in[x]);
    }
    ok = run(&src, &dst, &p);
    for (int x = 0; ok && x < 4; x++)
        ok = chan(&dst, x, 0, 1) == g_want[x] && chan(&dst, x, 0, 2) == b_want[x];
    test_check(&t, ok, "uint16 rounds half up: 0.75 -> 1, 0.25 -> 0, 2.25 -> 2, 2.5 -> 3", NULL);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);

    fv_host_image_alloc_as(&src, 5, 1, FV_PIXEL_F32, 4);
    fv_host_image_alloc_as(&dst, 5, 1, FV_PIXEL_F32, 4);
    const double f[5] = {0.0, 1.0, 0.5, 0.25, -2.0}, fw[5] = {0.25, 0.625, 0.5625, -0.25, -1.4375};
    for (int x = 0; x < 5; x++)
        for (int ch = 0; ch < 4; ch++) set_chan(&src, x, 0, ch, f[x]);
    p = typed_params(FV_PIXEL_F32, FV_BORDER_REPLICATE, 0);
    ok = run(&src, &dst, &p);
    for (int x = 0; ok && x < 5; x++)
        ok = chan(&dst, x, 0, 0) == fw[x] && chan(&dst, x, 0, 3) == f[x];
    test_check(&t, ok, "float32 [1 2 1]/4: not rounded, not clamped (negative values kept)", NULL);

    /* NaN and infinity: a NaN spreads to every output whose non-zero taps read it; +inf likewise;
     * +inf and -inf in one window make NaN */
    const double g[5] = {0.5, 0.5, NAN, 0.5, 0.5};
    for (int x = 0; x < 5; x++) {
        set_chan(&src, x, 0, 0, g[x]);
        set_chan(&src, x, 0, 1, x == 2 ? INFINITY : 0.5);
        set_chan(&src, x, 0, 2, x == 1 ? INFINITY : (x == 2 ? -INFINITY : 0.5));
    }
    ok = run(&src, &dst, &p);
    ok = ok && chan(&dst, 0, 0, 0) == 0.5 && isnan(chan(&dst, 1, 0, 0)) &&
         isnan(chan(&dst, 2, 0, 0)) && isnan(chan(&dst, 3, 0, 0)) && chan(&dst, 4, 0, 0) == 0.5;
    test_check(&t, ok, "float32: a NaN makes NaN of the outputs whose taps read it", NULL);
    ok = chan(&dst, 0, 0, 1) == 0.5 && isinf(chan(&dst, 1, 0, 1)) && isinf(chan(&dst, 3, 0, 1)) &&
         chan(&dst, 2, 0, 1) > 0 && chan(&dst, 4, 0, 1) == 0.5;
    test_check(&t, ok, "float32: +inf spreads as +inf", NULL);
    ok = isinf(chan(&dst, 0, 0, 2)) && isnan(chan(&dst, 1, 0, 2)) && isnan(chan(&dst, 2, 0, 2)) &&
         isinf(chan(&dst, 3, 0, 2)) && chan(&dst, 3, 0, 2) < 0;
    test_check(&t, ok, "float32: +inf beside -inf makes NaN", NULL);
    /* a zero weight reads nothing: the one-tap kernel S(x - 2) meets the NaN only at x = 4 */
    const uint8_t shift[5] = {0, 0, 0, 0, 200};
    ok = set_file_kernel(shift, 5, 1) == FV_OK && run(&src, &dst, &p);
    ok = ok && !isnan(chan(&dst, 0, 0, 0)) && !isnan(chan(&dst, 3, 0, 0)) &&
         isnan(chan(&dst, 4, 0, 0));
    test_check(&t, ok, "float32: a NaN under a zero weight is not read", NULL);
    clear_file_kernel();
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
}

/* ---- against scipy.ndimage.convolve ---------------------------------------------------------- */
static void fill_typed_random(fv_image *img, uint32_t *seed)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < 4; c++) {
                const uint32_t r = test_rand(seed);
                uint8_t *row = img->data + (size_t)y * img->pitch;
                if (img->type == FV_PIXEL_U8)
                    row[4 * x + c] = (uint8_t)(r >> 24);
                else if (img->type == FV_PIXEL_U16)
                    ((uint16_t *)row)[4 * x + c] = (uint16_t)(r >> 16);
                else
                    ((float *)row)[4 * x + c] = (float)(r >> 8) / (float)(1 << 24);
            }
}

/* The kernel and spectrum stages in every type: the display levels of uint8 written as 257 v
 * (uint16) and v / 255 (float32); the same picture scaled into each type's range has the same
 * spectrum levels (normalised by the type's maximum). */
static void test_typed_stages(uint32_t *seed)
{
    const int w = 23, h = 17;
    fv_image src[FV_PIXEL_TYPE_COUNT], dst[FV_PIXEL_TYPE_COUNT];
    for (int type = 0; type < FV_PIXEL_TYPE_COUNT; type++) {
        fv_host_image_alloc_as(&src[type], w, h, (fv_pixel_type)type, 4);
        fv_host_image_alloc_as(&dst[type], w, h, (fv_pixel_type)type, 4);
    }
    fill_typed_random(&src[FV_PIXEL_U8], seed);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                const double v =
                    src[FV_PIXEL_U8].data[(size_t)y * src[FV_PIXEL_U8].pitch + 4 * x + c];
                set_chan(&src[FV_PIXEL_U16], x, y, c, 257 * v);
                set_chan(&src[FV_PIXEL_F32], x, y, c, (float)(v / 255));
            }
    static const int stages[] = {CONV_KERNEL, CONV_SPECTRUM_IMAGE, CONV_SPECTRUM_KERNEL,
                                 CONV_SPECTRUM_PRODUCT};
    for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++) {
        int ok = 1;
        for (int type = 0; type < FV_PIXEL_TYPE_COUNT; type++) {
            fv_params p = conv_params(stages[k], CONV_MOTION);
            p.value[CONV_LENGTH] = 9;
            p.value[CONV_ANGLE] = 30;
            p.type = (fv_pixel_type)type;
            ok &= run(&src[type], &dst[type], &p);
        }
        for (int y = 0; ok && y < h; y++)
            for (int x = 0; ok && x < w; x++)
                for (int c = 0; ok && c < 4; c++) {
                    const double v =
                        dst[FV_PIXEL_U8].data[(size_t)y * dst[FV_PIXEL_U8].pitch + 4 * x + c];
                    ok = chan(&dst[FV_PIXEL_U16], x, y, c) == 257 * v &&
                         chan(&dst[FV_PIXEL_F32], x, y, c) == (float)(v / 255);
                }
        test_check(&t, ok, "uint16 and float32 stages are uint8's levels in their range:",
                   conv_stage_names[stages[k]]);
    }
    for (int type = 0; type < FV_PIXEL_TYPE_COUNT; type++) {
        fv_host_image_free(&src[type]);
        fv_host_image_free(&dst[type]);
    }
}

/* Case files for tests/cpu/conv_scipy.py: every type x border on random images of awkward sizes,
 * with a symmetric, an asymmetric and an even kernel: a header line "width height type border
 * cval kw kh", a line of the quantised weights, then the source's and the reference's pixels. */
static int test_scipy(int argc, char **argv, uint32_t *seed)
{
    const char *script = argv[0], *dir = argv[1];
    (void)argc;
    static const int sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {13, 11}, {31, 17}, {3, 2}};
    static const uint8_t asym[15] = {9, 0, 3, 50, 7, 0, 0, 200, 1, 4, 30, 0, 0, 0, 80};
    char files[8192] = "";
    int n = 0;
    for (int type = 0; type < FV_PIXEL_TYPE_COUNT; type++)
        for (int border = 0; border < FV_BORDER_COUNT; border++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++, n++) {
                const int w = sizes[s][0], h = sizes[s][1];
                const double cval =
                    type == FV_PIXEL_F32 ? 0.375 : (type == FV_PIXEL_U16 ? 40000 : 200);
                fv_params p = typed_params((fv_pixel_type)type, (fv_border)border, cval);
                const int shape = n % 3; /* file 5x3 asymmetric, gaussian, file even 2x3 */
                if (shape == 1) {
                    p.value[CONV_SHAPE] = CONV_GAUSSIAN;
                    p.value[CONV_SIGMA] = 1.2;
                }
                const int ok_kernel =
                    shape == 1 || set_file_kernel(asym, shape ? 2 : 5, 3) == FV_OK;
                fv_params q = p;
                int ok = ok_kernel && kernel_of(with_file(&q));
                fv_image src, dst;
                fv_host_image_alloc_as(&src, w, h, (fv_pixel_type)type, 4);
                fv_host_image_alloc_as(&dst, w, h, (fv_pixel_type)type, 4);
                fill_typed_random(&src, seed);
                ok = ok && run(&src, &dst, &p);
                char path[1024];
                snprintf(path, sizeof path, "%s/conv_case_%d.raw", dir, n);
                FILE *f = fopen(path, "wb");
                const size_t bytes = (size_t)w * h * 4 * fv_pixel_type_bytes(src.type);
                ok = ok && f &&
                     fprintf(f, "%d %d %s %s %.17g %d %d\n", w, h, fv_pixel_type_name(src.type),
                             fv_border_names[border], cval, kern->width, kern->height) > 0;
                for (int i = 0; ok && i < kern->width * kern->height; i++)
                    ok = fprintf(f, "%d%c", kern->w[i],
                                 i + 1 < kern->width * kern->height ? ' ' : '\n') > 0;
                ok = ok && fwrite(src.data, 1, bytes, f) == bytes &&
                     fwrite(dst.data, 1, bytes, f) == bytes;
                if (f) ok = fclose(f) == 0 && ok;
                test_check(&t, ok && test_files_add(files, sizeof files, path),
                           "case file written:", path);
                fv_host_image_free(&src);
                fv_host_image_free(&dst);
            }
    clear_file_kernel();
    if (t.failed) return test_finish(&t);
    const int code = test_python(script, files);
    if (code == 77) {
        printf("skipped: python3 with numpy and scipy is needed\n");
        return 77;
    }
    test_check(&t, code == 0, "conv_ref equals scipy.ndimage.convolve for every type and border",
               NULL);
    return test_finish(&t);
}

int main(int argc, char **argv)
{
    static const test_group groups[] = {
        TEST_GROUP(test_shapes),
        TEST_GROUP(test_motion_angle),
        TEST_GROUP(test_hand_sums),
        TEST_SEEDED(test_against_brute),
        TEST_GROUP(test_no_wrap),
        TEST_GROUP(test_stages),
        TEST_GROUP(test_bad_kernel_images),
        TEST_GROUP(test_fft_sizes),
        TEST_GROUP(test_borders_by_hand),
        TEST_GROUP(test_typed_rounding),
        TEST_SEEDED(test_typed_stages),
    };
    static const test_mode modes[] = {
        {"--scipy", 2, "SCRIPT DIR: the reference against scipy", test_scipy}};
    conf = malloc(sizeof *conf);
    if (!conf) return 1;
    kern = &conf->kernel;
    const int code = test_main(argc, argv, groups, sizeof groups / sizeof groups[0], modes, 1);
    free(conf);
    return code;
}
