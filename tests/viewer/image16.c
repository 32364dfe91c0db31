/* ------------------------------------------------------------------------------------------------
 * tests/viewer/image16.c: the viewer's 16-bit test images, and what their screenshots must show.
 *   image16 make PHOTO A.png B.tif   A: a 16-bit gray image, a synthetic gradient over the top 64
 *                                    rows (value round(x * 65535 / (width - 1))) and below it the
 *                                    photo's luma scaled into 16 bits (8192 + 128 L + y / 4, so
 *                                    that it holds more than 8 bits); B: A cut to 8 bits and back
 *                                    (round(v / 257) * 257), written as a 16-bit TIFF
 *   image16 float A.png OUT.tif      A as float32 RGB, 4 v / 65535 - 1 (values -1 .. 3: a range
 *                                    that is not 0 .. 1), red and blue a little apart from green
 *   image16 psnr A B                 "PSNR 48.1234 dB" of B against A, over R, G, B (gray files
 *                                    repeat their value), peak 65535: what the viewer must print
 *   image16 display SHOT IMAGE SET   the screenshot of IMAGE (16-bit or float) at 1:1, HUD
 *                                    hidden, window of the image's size, against the display
 *                                    computed here: the range from the image's sorted values
 *                                    (0.1 and 99.9 percentiles; a scale of the values leaves the
 *                                    picture as it is, so every type is read as float32),
 *                                    SET = "EXPOSURE,OFFSET,MAP" (MAP: none, viridis, turbo); each
 *                                    channel within 2 of 255
 * Ends with "N passed, N failed" as the other checks do.
 * ------------------------------------------------------------------------------------------------ */
#include "image_io.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRADIENT_ROWS   64
#define PHOTO_BASE      8192
#define PHOTO_STEP      128
#define SHOT_TOLERANCE  2
#define LOW_PERCENTILE  0.1
#define HIGH_PERCENTILE 99.9

static test_counts t;

static uint16_t *at16(const fv_image *img, int x, int y)
{
    return (uint16_t *)(img->data + (size_t)y * img->pitch) + (size_t)x * fv_image_channels(img);
}

static int make(const char *photo_path, const char *a_path, const char *b_path)
{
    fv_image photo = {0}, gray = {0}, a = {0}, b = {0};
    if (image_load(photo_path, &photo) != FV_OK ||
        image_convert(&photo, FV_PIXEL_U8, 1, NULL, &gray, NULL) != FV_OK ||
        fv_host_image_alloc_as(&a, gray.width, gray.height, FV_PIXEL_U16, 1) != FV_OK ||
        fv_host_image_alloc_as(&b, gray.width, gray.height, FV_PIXEL_U16, 1) != FV_OK) {
        fprintf(stderr, "image16: %s\n", fv_last_error());
        return 1;
    }
    for (int y = 0; y < a.height; y++)
        for (int x = 0; x < a.width; x++) {
            const int luma = gray.data[(size_t)y * gray.pitch + (size_t)x];
            const double v = y < GRADIENT_ROWS ? floor(x * 65535.0 / (a.width - 1) + 0.5)
                                               : PHOTO_BASE + PHOTO_STEP * luma + y / 4;
            *at16(&a, x, y) = (uint16_t)v;
            *at16(&b, x, y) = (uint16_t)(floor(v / 257 + 0.5) * 257);
        }
    image_save_report report;
    fv_status st = image_save_as(a_path, &a, NULL, &report);
    if (st == FV_OK) st = image_save_as(b_path, &b, NULL, &report);
    if (st != FV_OK) fprintf(stderr, "image16: %s\n", fv_last_error());
    fv_host_image_free(&photo);
    fv_host_image_free(&gray);
    fv_host_image_free(&a);
    fv_host_image_free(&b);
    return st == FV_OK ? 0 : 1;
}

static int load16(const char *path, fv_image *out)
{
    fv_image native = {0};
    if (image_load_native(path, NULL, &native, NULL) != FV_OK ||
        image_convert(&native, FV_PIXEL_U16, 4, NULL, out, NULL) != FV_OK) {
        fprintf(stderr, "image16: %s\n", fv_last_error());
        return 0;
    }
    fv_host_image_free(&native);
    return 1;
}

static int load_float(const char *path, fv_image *out)
{
    fv_image native = {0};
    if (image_load_native(path, NULL, &native, NULL) != FV_OK ||
        image_convert(&native, FV_PIXEL_F32, 4, NULL, out, NULL) != FV_OK) {
        fprintf(stderr, "image16: %s\n", fv_last_error());
        return 0;
    }
    fv_host_image_free(&native);
    return 1;
}

static float *atf(const fv_image *img, int x, int y)
{
    return (float *)(img->data + (size_t)y * img->pitch) + (size_t)x * fv_image_channels(img);
}

static int make_float(const char *a_path, const char *out_path)
{
    fv_image a = {0}, f = {0};
    if (!load16(a_path, &a) || fv_host_image_alloc_as(&f, a.width, a.height, FV_PIXEL_F32, 3)) {
        fprintf(stderr, "image16: %s\n", fv_last_error());
        return 1;
    }
    for (int y = 0; y < a.height; y++)
        for (int x = 0; x < a.width; x++)
            for (int c = 0; c < 3; c++)
                atf(&f, x, y)[c] = 4.0f * at16(&a, x, y)[c] / 65535 - 1 + (c - 1) * 0.25f;
    image_save_report report;
    const fv_status st = image_save_as(out_path, &f, NULL, &report);
    if (st != FV_OK) fprintf(stderr, "image16: %s\n", fv_last_error());
    fv_host_image_free(&a);
    fv_host_image_free(&f);
    return st == FV_OK ? 0 : 1;
}

static int psnr(const char *a_path, const char *b_path)
{
    fv_image a = {0}, b = {0};
    if (!load16(a_path, &a) || !load16(b_path, &b)) return 1;
    if (a.width != b.width || a.height != b.height) {
        fprintf(stderr, "image16: the images differ in size\n");
        return 1;
    }
    double sum = 0;
    for (int y = 0; y < a.height; y++)
        for (int x = 0; x < a.width; x++)
            for (int c = 0; c < 3; c++) {
                const double d = (double)at16(&a, x, y)[c] - at16(&b, x, y)[c];
                sum += d * d;
            }
    const double mse = sum / (3.0 * a.width * a.height);
    printf("PSNR %.4f dB\n", 10 * log10(65535.0 * 65535.0 / mse));
    fv_host_image_free(&a);
    fv_host_image_free(&b);
    return 0;
}

static int compare_float(const void *x, const void *y)
{
    const float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

/* The map's colour of t (matplotlib's viridis and Google's turbo, as polynomial fits) */
static void colormap(const char *name, double t, double rgb[3])
{
    static const double viridis[7][3] = {
        {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
        {0.1050930431085774, 1.404613529898575, 1.384590162594685},
        {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
        {-4.634230498983486, -5.799100973351585, -19.33244095627987},
        {6.228269936347081, 14.17993336680509, 56.69055260068105},
        {4.776384997670288, -13.74514537774601, -65.35303263337234},
        {-5.435455855934631, 4.645852612178535, 26.3124352495832}};
    static const double turbo[6][3] = {
        {0.13572138, 0.09140261, 0.10667330},      {4.61539260, 2.19418839, 12.64194608},
        {-42.66032258, 4.84296658, -60.58204836},  {132.13108234, -14.18503333, 110.36276771},
        {-152.94239396, 4.27729857, -89.90310912}, {59.28637943, 2.82956604, 27.34824973}};
    const int is_viridis = !strcmp(name, "viridis");
    for (int c = 0; c < 3; c++) {
        double v = 0, p = 1;
        for (int k = 0; k < (is_viridis ? 7 : 6); k++, p *= t)
            v += (is_viridis ? viridis[k][c] : turbo[k][c]) * p;
        rgb[c] = v;
    }
}

static int display(const char *shot_path, const char *image_path, const char *settings)
{
    double exposure = 0, offset = 0;
    char map[16] = "none";
    if (sscanf(settings, "%lf,%lf,%15s", &exposure, &offset, map) != 3) {
        fprintf(stderr, "image16: settings are EXPOSURE,OFFSET,MAP, not '%s'\n", settings);
        return 1;
    }
    fv_image shot = {0}, img = {0};
    if (image_load(shot_path, &shot) != FV_OK) {
        fprintf(stderr, "image16: %s\n", fv_last_error());
        return 1;
    }
    if (!load_float(image_path, &img)) return 1;
    /* the range: the values at the percentiles' places in the sorted R, G, B values */
    const size_t n = (size_t)img.width * img.height * 3;
    float *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return 1;
    size_t k = 0;
    for (int y = 0; y < img.height; y++)
        for (int x = 0; x < img.width; x++)
            for (int c = 0; c < 3; c++) sorted[k++] = atf(&img, x, y)[c];
    qsort(sorted, n, sizeof *sorted, compare_float);
    const double lo = sorted[(size_t)(LOW_PERCENTILE / 100 * (double)n)];
    const double hi = sorted[(size_t)(HIGH_PERCENTILE / 100 * (double)n)];
    free(sorted);
    printf("range %.6g .. %.6g, exposure %g, offset %g, map %s\n", lo, hi, exposure, offset, map);
    test_check(&t, shot.width == img.width && shot.height == img.height,
               "the screenshot has the image's size", shot_path);
    long bad = 0, levels = 0;
    int fx = -1, fy = -1;
    uint8_t seen_lo = 255, seen_hi = 0;
    for (int y = 0; y < img.height && y < shot.height; y++)
        for (int x = 0; x < img.width && x < shot.width; x++) {
            double v[3];
            for (int c = 0; c < 3; c++)
                v[c] = exp2(exposure) * (atf(&img, x, y)[c] - lo) / (hi - lo) + offset;
            if (strcmp(map, "none")) {
                const double luma = fmin(1, fmax(0, 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2]));
                colormap(map, luma, v);
            }
            const uint8_t *s = shot.data + (size_t)y * shot.pitch + 4 * (size_t)x;
            for (int c = 0; c < 3; c++) {
                const double want = fmin(1, fmax(0, v[c])) * 255;
                if (fabs(s[c] - want) > SHOT_TOLERANCE && !bad++) {
                    fx = x;
                    fy = y;
                }
                seen_lo = s[c] < seen_lo ? s[c] : seen_lo;
                seen_hi = s[c] > seen_hi ? s[c] : seen_hi;
            }
            levels++;
        }
    char detail[200];
    snprintf(detail, sizeof detail, "%ld channel values off by more than %d, first at (%d, %d)",
             bad, SHOT_TOLERANCE, fx, fy);
    test_check(&t, bad == 0 && levels > 0, "every pixel shows the display's value:", detail);
    test_check(&t, seen_hi - seen_lo > 128, "the shot is no blank frame", shot_path);
    fv_host_image_free(&shot);
    fv_host_image_free(&img);
    return test_finish(&t);
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "make")) return make(argv[2], argv[3], argv[4]);
    if (argc == 4 && !strcmp(argv[1], "float")) return make_float(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "psnr")) return psnr(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "display")) return display(argv[2], argv[3], argv[4]);
    fprintf(
        stderr,
        "usage: image16 make PHOTO A.png B.tif | float A.png OUT.tif | psnr A B | display SHOT IMAGE "
        "EXPOSURE,OFFSET,MAP\n");
    return 2;
}
