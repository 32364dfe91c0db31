/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_diff_host.c (label cpu): fv_diff_host and fv_tolerance_holds against answers
 * worked by hand. fv_diff_host is what the CLI's --compare prints and what the GPU tests and the
 * library grade with, so it must be right in every corner: uint8, uint16 and float32, one, three
 * and four channels, padded rows (the padding never read), the last row and the last column,
 * alpha counted like any channel, NaN equal to NaN and infinitely far from a number, infinities
 * equal to themselves and infinitely far from the other sign, max_abs rounded up from
 * max_abs_value, the mean over every channel of every pixel. Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>

static test_counts t;

#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static void
expect(int ok, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    test_check(&t, ok, what, NULL);
}

/* A host image whose rows are `pad` bytes longer than its pixels, the padding filled with a
 * different byte in a and b (so that reading it shows as a difference), zero pixels. */
static fv_image image(int w, int h, fv_pixel_type type, int channels, size_t pad, uint8_t fill)
{
    const size_t row = (size_t)w * (size_t)channels * fv_pixel_type_bytes(type);
    fv_image img = {.width = w,
                    .height = h,
                    .pitch = row + pad,
                    .memory = FV_MEMORY_HOST,
                    .type = type,
                    .channels = channels};
    img.data = malloc(img.pitch * (size_t)h);
    if (!img.data) exit(1);
    memset(img.data, fill, img.pitch * (size_t)h);
    for (int y = 0; y < h; y++) memset(img.data + (size_t)y * img.pitch, 0, row);
    return img;
}

/* Sets channel c of pixel (x, y) to v in the image's type. */
static void set(fv_image *img, int x, int y, int c, double v)
{
    const size_t bytes = fv_pixel_type_bytes(img->type);
    uint8_t *p = img->data + (size_t)y * img->pitch +
                 ((size_t)x * (size_t)fv_image_channels(img) + (size_t)c) * bytes;
    if (img->type == FV_PIXEL_U8) {
        *p = (uint8_t)v;
    } else if (img->type == FV_PIXEL_U16) {
        const uint16_t u = (uint16_t)v;
        memcpy(p, &u, 2);
    } else {
        const float f = (float)v;
        memcpy(p, &f, 4);
    }
}

/* fv_diff_host(a, b) and fv_diff_host(b, a) both give these (the distance is symmetric). */
static void expect_diff(const char *what, const fv_image *a, const fv_image *b, int max_abs,
                        double max_value, long long differing, double mean)
{
    for (int swap = 0; swap < 2; swap++) {
        fv_diff_stats d;
        memset(&d, 0x5a, sizeof d); /* every field must be written */
        fv_diff_host(swap ? b : a, swap ? a : b, &d);
        const int mean_ok = isinf(mean) ? isinf(d.mean_abs) && d.mean_abs > 0
                                        : fabs(d.mean_abs - mean) <= 1e-12 * (1 + mean);
        const int value_ok = isinf(max_value) ? isinf(d.max_abs_value) && d.max_abs_value > 0
                                              : d.max_abs_value == max_value;
        expect(d.max_abs == max_abs && value_ok && d.n_differing == differing && mean_ok,
               "%s%s: max_abs %d (want %d), max_abs_value %.9g (want %.9g), %lld differing (want "
               "%lld), mean %.9g (want %.9g)",
               what, swap ? " (a and b swapped)" : "", d.max_abs, max_abs, d.max_abs_value,
               max_value, d.n_differing, differing, d.mean_abs, mean);
    }
}

/* RGBA8, 3x2, padded rows: one difference in the first pixel, two channels of the middle pixel of
 * the last row, and alpha of the last pixel of the last row. */
static void test_uint8_rgba(void)
{
    fv_image a = image(3, 2, FV_PIXEL_U8, 4, 5, 0x11), b = image(3, 2, FV_PIXEL_U8, 4, 5, 0xee);
    expect_diff("uint8 RGBA equal pixels, different padding", &a, &b, 0, 0, 0, 0);
    set(&a, 0, 0, 0, 10);
    set(&b, 0, 0, 0, 13); /* 3 */
    set(&a, 1, 1, 1, 5);
    set(&b, 1, 1, 1, 4); /* 1 */
    set(&a, 1, 1, 2, 0);
    set(&b, 1, 1, 2, 7); /* 7: the pixel's largest */
    set(&a, 2, 1, 3, 200);
    set(&b, 2, 1, 3, 0); /* 200, alpha, the very last channel */
    /* 3 pixels differ; mean = (3 + 1 + 7 + 200) / (6 pixels x 4 channels) */
    expect_diff("uint8 RGBA", &a, &b, 200, 200, 3, 211.0 / 24.0);
    free(a.data);
    free(b.data);
    /* the 0 images a zero-channel count means are RGBA8 */
    fv_image c = image(2, 1, FV_PIXEL_U8, 4, 0, 0), d = image(2, 1, FV_PIXEL_U8, 4, 0, 0);
    c.channels = d.channels = 0;
    set(&d, 1, 0, 3, 255);
    expect_diff("uint8, channels 0 read as 4", &c, &d, 255, 255, 1, 255.0 / 8.0);
    free(c.data);
    free(d.data);
}

/* Gray uint16, 4x3: the full range in the last pixel of the last row, 300 in the first column. */
static void test_uint16_gray(void)
{
    fv_image a = image(4, 3, FV_PIXEL_U16, 1, 2, 0x00), b = image(4, 3, FV_PIXEL_U16, 1, 2, 0xff);
    set(&a, 3, 2, 0, 0);
    set(&b, 3, 2, 0, 65535);
    set(&a, 0, 1, 0, 1000);
    set(&b, 0, 1, 0, 1300);
    expect_diff("uint16 gray", &a, &b, 65535, 65535, 2, (65535.0 + 300.0) / 12.0);
    free(a.data);
    free(b.data);
}

/* RGB uint8 with a single row, and a single column: the last row is the only row, the last column
 * the only column. */
static void test_one_row_one_column(void)
{
    fv_image a = image(5, 1, FV_PIXEL_U8, 3, 1, 0x00), b = image(5, 1, FV_PIXEL_U8, 3, 1, 0x77);
    set(&b, 4, 0, 2, 9);
    expect_diff("RGB 5x1, the last pixel's blue", &a, &b, 9, 9, 1, 9.0 / 15.0);
    free(a.data);
    free(b.data);
    a = image(1, 6, FV_PIXEL_U8, 3, 3, 0x00);
    b = image(1, 6, FV_PIXEL_U8, 3, 3, 0x77);
    set(&b, 0, 5, 0, 40);
    set(&b, 0, 0, 1, 2);
    expect_diff("RGB 1x6, the first and the last row", &a, &b, 40, 40, 2, 42.0 / 18.0);
    free(a.data);
    free(b.data);
}

/* float32 RGB 2x2: values, NaN and infinities; max_abs is max_abs_value rounded up. */
static void test_float32(void)
{
    fv_image a = image(2, 2, FV_PIXEL_F32, 3, 4, 0x7f), b = image(2, 2, FV_PIXEL_F32, 3, 4, 0xff);
    set(&a, 0, 0, 0, 0.5);
    set(&b, 0, 0, 0, 0.75); /* 0.25 */
    set(&a, 1, 1, 2, 0.125);
    set(&b, 1, 1, 2, 0.0625); /* 0.0625: the last channel of the last pixel */
    expect_diff("float32 RGB", &a, &b, 1, 0.25, 2, (0.25 + 0.0625) / 12.0);

    set(&a, 1, 0, 1, NAN);
    set(&b, 1, 0, 1, NAN);
    set(&a, 0, 1, 0, INFINITY);
    set(&b, 0, 1, 0, INFINITY);
    set(&a, 0, 1, 1, -INFINITY);
    set(&b, 0, 1, 1, -INFINITY);
    expect_diff("float32: NaN equals NaN, an infinity equals itself", &a, &b, 1, 0.25, 2,
                (0.25 + 0.0625) / 12.0);

    set(&b, 1, 0, 1, 0.5); /* NaN against a number */
    expect_diff("float32: NaN against a number", &a, &b, INT_MAX, INFINITY, 3, INFINITY);
    set(&b, 1, 0, 1, NAN);
    set(&b, 0, 1, 0, -INFINITY); /* infinities of different sign */
    expect_diff("float32: +inf against -inf", &a, &b, INT_MAX, INFINITY, 3, INFINITY);
    set(&b, 0, 1, 0, 1e30); /* an infinity against a finite number */
    expect_diff("float32: +inf against 1e30", &a, &b, INT_MAX, INFINITY, 3, INFINITY);
    free(a.data);
    free(b.data);

    /* a difference of 3.5 (units of the image): max_abs 4 */
    a = image(1, 1, FV_PIXEL_F32, 4, 0, 0);
    b = image(1, 1, FV_PIXEL_F32, 4, 0, 0);
    set(&a, 0, 0, 3, -1.25);
    set(&b, 0, 0, 3, 2.25);
    expect_diff("float32 RGBA 1x1, 3.5 in alpha", &a, &b, 4, 3.5, 1, 3.5 / 4.0);
    free(a.data);
    free(b.data);
}

/* fv_tolerance_holds: the size bound (integer, uint16's own, or float), the share, and the one-pixel
 * rule. */
static void test_tolerance(void)
{
    fv_diff_stats d = {.max_abs = 2, .mean_abs = 0.1, .n_differing = 3, .max_abs_value = 1.5};
    const fv_tolerance exact = {0, 0.0, 0.0, 0}, two = {2, 1.0, 0.0, 0}, one = {1, 1.0, 0.0, 0};
    expect(!fv_tolerance_holds(&exact, &d, 100), "bit-exact refuses max 2");
    expect(fv_tolerance_holds(&two, &d, 100), "max 2 within max_abs 2");
    expect(!fv_tolerance_holds(&one, &d, 100), "max 2 beyond max_abs 1");
    const fv_tolerance share3 = {2, 0.03, 0.0, 0}, share2 = {2, 0.02, 0.0, 0};
    expect(fv_tolerance_holds(&share3, &d, 100), "3 of 100 pixels within 3 %%");
    expect(!fv_tolerance_holds(&share2, &d, 100), "3 of 100 pixels beyond 2 %%");
    d.n_differing = 1;
    expect(fv_tolerance_holds(&share2, &d, 7), "one pixel of 7 allowed by any share above 0");
    const fv_tolerance no_share = {2, 0.0, 0.0, 0};
    expect(!fv_tolerance_holds(&no_share, &d, 7), "share 0 allows no pixel at all");
    const fv_tolerance f2 = {0, 1.0, 2.0, 0}, f1 = {0, 1.0, 1.0, 0};
    expect(!fv_tolerance_holds(&f2, &d, 100),
           "uint8: float_abs 2 does not excuse max 2 of max_abs 0");
    d.type = FV_PIXEL_F32; /* float_abs holds float32 results only */
    expect(fv_tolerance_holds(&f2, &d, 100), "float: 1.5 within 2");
    expect(!fv_tolerance_holds(&f1, &d, 100), "float: 1.5 beyond 1");
    d.max_abs_value = INFINITY;
    expect(!fv_tolerance_holds(&f2, &d, 100), "float: a NaN against a number is beyond any bound");
    d = (fv_diff_stats){0};
    expect(fv_tolerance_holds(&exact, &d, 100), "bit-exact holds for no difference");
    /* uint16's own bound where a tolerance has one (NPP's single-precision conv sums) */
    d = (fv_diff_stats){.max_abs = 10, .n_differing = 1, .type = FV_PIXEL_U16};
    const fv_tolerance u16_own = {8, 1.0, 0.0, 64};
    expect(fv_tolerance_holds(&u16_own, &d, 100), "uint16: 10 within its own bound 64");
    expect(!fv_tolerance_holds(&one, &d, 100),
           "uint16: 10 beyond max_abs 1 without a bound of its own");
    d.type = FV_PIXEL_U8;
    expect(!fv_tolerance_holds(&u16_own, &d, 100), "uint8: 10 beyond max_abs 8, whatever uint16's");
    expect(fv_tolerance_int_bound(&u16_own, FV_PIXEL_U16) == 64 &&
               fv_tolerance_int_bound(&u16_own, FV_PIXEL_U8) == 8,
           "the integer bound per type");
}

int main(void)
{
    test_uint8_rgba();
    test_uint16_gray();
    test_one_row_one_column();
    test_float32();
    test_tolerance();
    return test_finish(&t);
}
