/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_box_types.c (label cpu): the box filter's reference (kernels/box/box_ref.c) on uint16
 * and float32 images and every border: hand-worked answers on a 3x1 image, the uint16 sum past 32
 * bits at radius 128, box_quotient_wide against plain division at every multiple boundary of every
 * radius, a uint8 image through the typed path equal to the same values as uint16, NaN and
 * infinity, alpha kept and row padding untouched, and the variants' declared types and borders.
 * With `--scipy SCRIPT DIR`: every type x border on random images of awkward sizes against
 * scipy.ndimage through tests/cpu/box_scipy.py (exit 77, skipped, where python3, numpy or scipy
 * is missing). Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "box/box.h"
#include "test_skeleton.h"

#include <math.h>

/* An image of `type` with rows `pad` bytes longer than the pixels, the padding filled. */
static fv_image typed_image(int width, int height, fv_pixel_type type, size_t pad)
{
    const size_t row = 4 * (size_t)width * fv_pixel_type_bytes(type);
    fv_image img = {.width = width,
                    .height = height,
                    .pitch = row + pad,
                    .memory = FV_MEMORY_HOST,
                    .type = type,
                    .channels = 4};
    img.data = (uint8_t *)malloc(img.pitch * (size_t)height);
    if (!img.data) {
        printf("out of memory for a %dx%d test image\n", width, height);
        exit(1);
    }
    memset(img.data, TEST_PAD_FILL, img.pitch * (size_t)height);
    return img;
}

static int padding_intact(const fv_image *img)
{
    const size_t row = 4 * (size_t)img->width * fv_pixel_type_bytes(img->type);
    for (int y = 0; y < img->height; y++)
        for (size_t b = row; b < img->pitch; b++)
            if (img->data[(size_t)y * img->pitch + b] != TEST_PAD_FILL) return 0;
    return 1;
}

static uint16_t *u16_at(const fv_image *img, int x, int y)
{
    return (uint16_t *)(img->data + (size_t)y * img->pitch) + 4 * x;
}

static float *f32_at(const fv_image *img, int x, int y)
{
    return (float *)(img->data + (size_t)y * img->pitch) + 4 * x;
}

static fv_params box_params(int radius, fv_border border, double cval, fv_pixel_type type)
{
    fv_params p = test_params_blank();
    p.value[BOX_RADIUS] = radius;
    p.value[BOX_BORDER] = border;
    p.value[BOX_CVAL] = cval;
    p.type = type;
    return p;
}

/* Radius 2 on a 3x1 image (area 25): every border but the constant maps the 5 rows onto row 0, so
 * each output is 5 x the row's 5-pixel sum, + 12, / 25. Replicate at x = 0 reads a a a b c:
 * 5 (3000 + 40000 + 65535) = 542675, (542675 + 12) / 25 = 21707. Reflect reads b a | a b c, mirror
 * c b | a b c, wrap b c | a b c. The constant (500) fills 16 of the 25: every output sees all
 * three pixels once and 22 constants, (106535 + 11000 + 12) / 25 = 4701. */
static void test_u16_hand(void)
{
    static const uint16_t red[3] = {1000, 40000, 65535};
    static const uint16_t want[FV_BORDER_COUNT][3] = {[FV_BORDER_REPLICATE] = {21707, 34614, 47521},
                                                      [FV_BORDER_REFLECT] = {29507, 34614, 42414},
                                                      [FV_BORDER_MIRROR] = {42414, 37307, 29507},
                                                      [FV_BORDER_CONSTANT] = {4701, 4701, 4701},
                                                      [FV_BORDER_WRAP] = {42414, 34614, 29507}};
    for (int b = 0; b < FV_BORDER_COUNT; b++) {
        fv_image src = typed_image(3, 1, FV_PIXEL_U16, 6), dst = typed_image(3, 1, FV_PIXEL_U16, 6);
        for (int x = 0; x < 3; x++) {
            uint16_t *q = u16_at(&src, x, 0);
            q[0] = red[x];
            q[1] = 65535;
            q[2] = 0;
            q[3] = (uint16_t)(60000 + x);
        }
        const fv_params p = box_params(2, (fv_border)b, 500, FV_PIXEL_U16);
        int ok = test_ref_runs(box_config_make, box_ref, &src, &dst, &p, "box_ref uint16");
        for (int x = 0; x < 3 && ok; x++) {
            const uint16_t *q = u16_at(&dst, x, 0);
            ok = q[0] == want[b][x] && q[3] == 60000 + x &&
                 (b == FV_BORDER_CONSTANT || (q[1] == 65535 && q[2] == 0));
        }
        test_check(&t, ok && padding_intact(&dst),
                   "uint16 3x1, radius 2: hand-worked values, alpha kept:", fv_border_names[b]);
        free(src.data);
        free(dst.data);
    }
}

/* The same on float32 R = 0.25 1 -2 (cval 0.5): the plain mean, e.g. replicate at x = 0:
 * (0.75 + 1 - 2) / 5 = -0.05, the constant (0.25 + 1 - 2 + 22 * 0.5) / 25 = 0.41. */
static void test_f32_hand(void)
{
    static const float red[3] = {0.25f, 1.0f, -2.0f};
    static const double want[FV_BORDER_COUNT][3] = {[FV_BORDER_REPLICATE] = {-0.05, -0.5, -0.95},
                                                    [FV_BORDER_REFLECT] = {0.1, -0.5, -0.35},
                                                    [FV_BORDER_MIRROR] = {-0.35, 0.25, 0.1},
                                                    [FV_BORDER_CONSTANT] = {0.41, 0.41, 0.41},
                                                    [FV_BORDER_WRAP] = {-0.35, -0.5, 0.1}};
    for (int b = 0; b < FV_BORDER_COUNT; b++) {
        fv_image src = typed_image(3, 1, FV_PIXEL_F32, 4), dst = typed_image(3, 1, FV_PIXEL_F32, 4);
        for (int x = 0; x < 3; x++) {
            float *q = f32_at(&src, x, 0);
            q[0] = red[x];
            q[1] = q[2] = 0.5f;
            q[3] = 0.125f * (float)x;
        }
        const fv_params p = box_params(2, (fv_border)b, 0.5, FV_PIXEL_F32);
        int ok = test_ref_runs(box_config_make, box_ref, &src, &dst, &p, "box_ref float32");
        for (int x = 0; x < 3 && ok; x++) {
            const float *q = f32_at(&dst, x, 0);
            ok = q[0] == (float)want[b][x] && q[1] == 0.5f && q[2] == 0.5f &&
                 q[3] == 0.125f * (float)x;
            if (!ok) printf("  %s x %d: %.9g\n", fv_border_names[b], x, q[0]);
        }
        test_check(&t, ok && padding_intact(&dst),
                   "float32 3x1, radius 2: hand-worked values, alpha kept:", fv_border_names[b]);
        free(src.data);
        free(dst.data);
    }
}

/* Radius 128 at full scale: the window sum 257^2 * 65535 = 4328521215 needs 33 bits (a 32-bit sum
 * would wrap to 33553919 and give 508); the mean must be 65535. */
static void test_u16_wide_sum(void)
{
    for (int b = 0; b < FV_BORDER_COUNT; b++) {
        fv_image src = typed_image(6, 5, FV_PIXEL_U16, 0), dst = typed_image(6, 5, FV_PIXEL_U16, 0);
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 6; x++)
                for (int c = 0; c < 4; c++) u16_at(&src, x, y)[c] = 65535;
        const fv_params p = box_params(128, (fv_border)b, 65535, FV_PIXEL_U16);
        int ok =
            test_ref_runs(box_config_make, box_ref, &src, &dst, &p, "box_ref uint16 radius 128");
        for (int y = 0; y < 5 && ok; y++)
            for (int x = 0; x < 6 && ok; x++)
                for (int c = 0; c < 4; c++) ok &= u16_at(&dst, x, y)[c] == 65535;
        test_check(&t, ok, "uint16 at 65535, radius 128: 65535 (the sum needs 33 bits):",
                   fv_border_names[b]);
        free(src.data);
        free(dst.data);
    }
}

/* box_quotient_wide, the kernels' uint16 division, against plain division on both sides of every
 * multiple of the area up to the largest uint16 sum plus area / 2, at every radius. */
static void test_quotient_wide(void)
{
    long long wrong = 0, checked = 0;
    int first_r = 0;
    uint64_t first_n = 0;
    for (int r = 1; r <= FV_BOX_MAX_RADIUS; r++) {
        const box_divider d = box_divider_make(r);
        const uint64_t top = (uint64_t)d.area * 65535 + d.half;
        for (uint64_t k = 0; k * d.area <= top + d.area; k++)
            for (int e = -1; e <= 1; e++) {
                const uint64_t n = k * d.area + (uint64_t)e;
                if (e < 0 && k == 0) continue;
                checked++;
                if (box_quotient_wide(n, d) != n / d.area && !wrong++) first_r = r, first_n = n;
            }
    }
    char detail[120];
    snprintf(detail, sizeof detail, "%lld of %lld wrong, first radius %d n %llu", wrong, checked,
             first_r, (unsigned long long)first_n);
    test_check(&t, wrong == 0,
               "box_quotient_wide equals n / area at every multiple boundary:", detail);
}

/* A uint8 image and the same values as uint16 give the same outputs: the two integer types share
 * one rounding (and uint8 replicate equals the reference it always was: test_box_ref). */
static void test_u8_as_u16(uint32_t *seed)
{
    static const int sizes[][2] = {{1, 1}, {1, 9}, {11, 1}, {13, 7}, {4, 29}};
    static const int radii[] = {1, 2, 5, 17, 128};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int b = 0; b < FV_BORDER_COUNT; b++) {
            const int w = sizes[s][0], h = sizes[s][1], r = radii[(s + (size_t)b) % 5];
            fv_image a = typed_image(w, h, FV_PIXEL_U8, 3),
                     a_out = typed_image(w, h, FV_PIXEL_U8, 3);
            fv_image c = typed_image(w, h, FV_PIXEL_U16, 0),
                     c_out = typed_image(w, h, FV_PIXEL_U16, 0);
            test_fill_random(&a, seed);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++)
                    for (int k = 0; k < 4; k++) u16_at(&c, x, y)[k] = px(&a, x, y)[k];
            fv_params p = box_params(r, (fv_border)b, 77, FV_PIXEL_U8);
            int ok = test_ref_runs(box_config_make, box_ref, &a, &a_out, &p, "box_ref uint8");
            p.type = FV_PIXEL_U16;
            ok = ok && test_ref_runs(box_config_make, box_ref, &c, &c_out, &p, "box_ref uint16");
            for (int y = 0; y < h && ok; y++)
                for (int x = 0; x < w && ok; x++)
                    for (int k = 0; k < 4; k++)
                        ok &= u16_at(&c_out, x, y)[k] == px(&a_out, x, y)[k];
            char what[120];
            snprintf(what, sizeof what, "%dx%d radius %d %s", w, h, r, fv_border_names[b]);
            test_check(&t, ok && padding_intact(&a_out),
                       "uint8 equals the same values as uint16:", what);
            free(a.data);
            free(a_out.data);
            free(c.data);
            free(c_out.data);
        }
}

/* NaN and infinity (float32), on 7x7 of 0.5 with radius 1: a NaN reaches every output whose 3x3
 * window holds it; +inf gives +inf; +inf and -inf in one window give NaN; windows without them
 * stay 0.5 exactly. */
static void test_f32_nan_inf(void)
{
    fv_image src = typed_image(7, 7, FV_PIXEL_F32, 0), dst = typed_image(7, 7, FV_PIXEL_F32, 0);
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 7; x++)
            for (int c = 0; c < 4; c++) f32_at(&src, x, y)[c] = 0.5f;
    f32_at(&src, 1, 1)[0] = NAN;
    f32_at(&src, 5, 1)[0] = INFINITY;
    f32_at(&src, 5, 5)[0] = INFINITY;
    f32_at(&src, 5, 6)[0] = -INFINITY;
    f32_at(&src, 3, 3)[3] = NAN; /* alpha is copied, never summed */
    const fv_params p = box_params(1, FV_BORDER_REPLICATE, 0, FV_PIXEL_F32);
    int ok = test_ref_runs(box_config_make, box_ref, &src, &dst, &p, "box_ref float32 NaN");
    for (int y = 0; y < 7 && ok; y++)
        for (int x = 0; x < 7 && ok; x++) {
            const float v = f32_at(&dst, x, y)[0];
            const int near_nan = abs(x - 1) <= 1 && abs(y - 1) <= 1;
            const int near_inf = abs(x - 5) <= 1 && abs(y - 1) <= 1;
            const int near_pos = abs(x - 5) <= 1 && abs(y - 5) <= 1;
            const int near_neg = abs(x - 5) <= 1 && y >= 5; /* row 6 replicated below */
            if (near_nan || (near_pos && near_neg))
                ok = isnan(v);
            else if (near_inf || near_pos)
                ok = v == INFINITY;
            else if (near_neg)
                ok = v == -INFINITY;
            else
                ok = v == 0.5f;
            ok = ok && f32_at(&dst, x, y)[1] == 0.5f &&
                 (x == 3 && y == 3 ? isnan(f32_at(&dst, x, y)[3]) : f32_at(&dst, x, y)[3] == 0.5f);
            if (!ok) printf("  at %d,%d: %g\n", x, y, v);
        }
    test_check(&t, ok, "float32: NaN spreads over its windows, inf stays, inf - inf is NaN", NULL);
    free(src.data);
    free(dst.data);
}

/* What each variant declares: the reference and `fast` every type and border, naive, unrolled and
 * smem uint8 and uint16 with every border, tex uint8 and uint16 with replicate (its clamp
 * address mode), the NPP peer (where built) every type with replicate. */
static void test_declared(void)
{
    const fv_filter *f = fv_filter_find("box");
    test_check(&t, f != NULL, "box is registered", NULL);
    if (!f) return;
    for (int i = 0; i < f->n_variants; i++) {
        const fv_variant *v = &f->variants[i];
        const unsigned types = fv_variant_types(v), borders = fv_variant_borders(v);
        int ok;
        if (v->role == FV_ROLE_REFERENCE || v->role == FV_ROLE_FASTEST)
            ok = types == FV_TYPES_ALL && borders == FV_BORDERS_ALL;
        else if (!strcmp(v->name, "tex"))
            ok = types == FV_TYPES_INT && borders == FV_BORDERS_REPLICATE;
        else if (v->role == FV_ROLE_TEACHING)
            ok = types == FV_TYPES_INT && borders == FV_BORDERS_ALL;
        else /* the NPP peer: NPP's 8u, 16u and 32f functions, its replicated border */
            ok = types == FV_TYPES_ALL && borders == FV_BORDERS_REPLICATE;
        test_check(&t, ok, "declared types and borders:", v->name);
    }
}

/* ---- against scipy -------------------------------------------------------------------------- */
/* Case files: a header "width height type radius border cval", the source's and the reference's
 * rows, packed. */
static int test_scipy(int argc, char **argv, uint32_t *seed)
{
    const char *script = argv[0], *dir = argv[1];
    (void)argc;
    static const int cases[][3] = {{1, 1, 2}, {1, 7, 3},   {9, 1, 1}, {13, 11, 1},
                                   {3, 5, 9}, {31, 17, 5}, {2, 2, 4}, {37, 29, 128}};
    char files[8192] = "";
    int n = 0;
    for (int type = 0; type < FV_PIXEL_TYPE_COUNT; type++)
        for (int b = 0; b < FV_BORDER_COUNT; b++)
            for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
                if ((i + (size_t)b + (size_t)type) % 2) continue; /* half of the grid: time */
                const int w = cases[i][0], h = cases[i][1], r = cases[i][2];
                fv_image src = typed_image(w, h, (fv_pixel_type)type, 0),
                         dst = typed_image(w, h, (fv_pixel_type)type, 0);
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++)
                        for (int c = 0; c < 4; c++) {
                            const uint32_t v = test_rand(seed);
                            if (type == FV_PIXEL_U8)
                                px(&src, x, y)[c] = (uint8_t)v;
                            else if (type == FV_PIXEL_U16)
                                u16_at(&src, x, y)[c] = (uint16_t)v;
                            else
                                f32_at(&src, x, y)[c] = (float)(v >> 8) / 16777216.0f;
                        }
                const double cval =
                    type == FV_PIXEL_F32 ? 0.375 : (type == FV_PIXEL_U8 ? 200 : 51234);
                const fv_params p = box_params(r, (fv_border)b, cval, (fv_pixel_type)type);
                int ok = test_ref_runs(box_config_make, box_ref, &src, &dst, &p, "box_ref");
                char path[1024];
                snprintf(path, sizeof path, "%s/box_case_%d.raw", dir, n++);
                FILE *fp = fopen(path, "wb");
                const size_t bytes = dst.pitch * (size_t)h;
                ok = ok && fp &&
                     fprintf(fp, "%d %d %s %d %s %.17g\n", w, h,
                             fv_pixel_type_name((fv_pixel_type)type), r, fv_border_names[b],
                             cval) > 0 &&
                     fwrite(src.data, 1, bytes, fp) == bytes &&
                     fwrite(dst.data, 1, bytes, fp) == bytes;
                if (fp) ok = fclose(fp) == 0 && ok;
                test_check(&t, ok && test_files_add(files, sizeof files, path),
                           "case file written:", path);
                free(src.data);
                free(dst.data);
            }
    if (t.failed) return test_finish(&t);
    const int code = test_python(script, files);
    if (code == 77) {
        printf("skipped: python3 with numpy and scipy is needed\n");
        return 77;
    }
    test_check(&t, code == 0, "box_ref equals scipy.ndimage for every type and border", NULL);
    return test_finish(&t);
}

int main(int argc, char **argv)
{
    static const test_group groups[] = {
        TEST_GROUP(test_u16_hand),      TEST_GROUP(test_f32_hand),   TEST_GROUP(test_u16_wide_sum),
        TEST_GROUP(test_quotient_wide), TEST_SEEDED(test_u8_as_u16), TEST_GROUP(test_f32_nan_inf),
        TEST_GROUP(test_declared),
    };
    static const test_mode modes[] = {{"--scipy", 2, "SCRIPT DIR", test_scipy}};
    return test_main(argc, argv, groups, sizeof groups / sizeof groups[0], modes,
                     sizeof modes / sizeof modes[0]);
}
