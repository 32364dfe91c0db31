/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_kernels.c: the convolution's typed configuration and its kernel (plain C):
 * conv_config_make, called once at prepare, keeps the shape's parameters and builds the kernel
 * there (the shapes, their quantisation to integers summing to 2^16, the `file` kernel from the
 * image parameter `kernel-file`), which the reference, the GPU variants' states, the NPP peer and
 * the reach then read; and the FFT's padded sizes.
 *
 * Shapes (weights before quantisation; each is symmetric under (di, dj) -> (-di, -dj), and the
 * first three under mirroring too, because they are computed from |di|, |dj| only):
 *   gaussian  exp(-(di^2 + dj^2) / (2 sigma^2)), radius ceil(3 sigma)
 *   disk      the share of each pixel inside the circle of radius r + 1/2 (8x8 samples a pixel)
 *   motion    an anti-aliased segment of `length` pixels through the centre at `angle` degrees
 *             counter-clockwise from the +x axis (y up on screen), 1 - |distance| across it
 *   box       (2r+1)^2 equal weights
 *   file      the image in p->image[CONV_KERNEL_FILE] (a gray image's values, else (R + G + B) / 3,
 *             of any type: the Python module's float32 kernel arrays come this way), or the
 *             built-in L
 * Built-in shapes lose all-zero border rows and columns in symmetric pairs (the centre stays).
 * Checked by tests/cpu/test_conv_ref.c (sums, symmetry, the motion angle, quantisation).
 * ------------------------------------------------------------------------------------------------ */
#include "conv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISK_SAMPLES 8 /* per pixel side: 64 samples a pixel */
#define SAMPLE_W     9 /* the built-in `file` sample: an L, 9 wide, 7 high */
#define SAMPLE_H     7

const char *const conv_stage_names[CONV_N_STAGES] = {"output", "kernel", "spectrum_image",
                                                     "spectrum_kernel", "spectrum_product"};
const char *const conv_shape_names[CONV_N_SHAPES] = {"gaussian", "disk", "motion", "box", "file"};

/* The weight of the kernel image's pixel (x, y): a gray image's value, else the mean of R, G and
 * B (any type: a 16-bit or float file, or a library caller's float32 weights). */
static double kernel_image_weight(const fv_image *img, int x, int y)
{
    const int channels = fv_image_channels(img), colours = channels == 1 ? 1 : 3;
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    double sum = 0;
    for (int c = 0; c < colours; c++) {
        const size_t i = (size_t)x * channels + c;
        sum += img->type == FV_PIXEL_F32   ? ((const float *)row)[i]
               : img->type == FV_PIXEL_U16 ? ((const uint16_t *)row)[i]
                                           : row[i];
    }
    return sum / colours;
}

fv_status conv_kernel_image_check(const fv_image *img)
{
    if (img->width > FV_CONV_MAX_SIZE || img->height > FV_CONV_MAX_SIZE)
        return fv_fail(FV_ERR_SIZE, "kernel image %dx%d is larger than %dx%d", img->width,
                       img->height, FV_CONV_MAX_SIZE, FV_CONV_MAX_SIZE);
    if (img->width < 1 || img->height < 1)
        return fv_fail(FV_ERR_SIZE, "kernel image %dx%d has no pixels", img->width, img->height);
    double sum = 0;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            const double w = kernel_image_weight(img, x, y);
            if (!(w >= 0 && isfinite(w))) /* float weights: NaN, infinite or negative */
                return fv_fail(FV_ERR_ARG,
                               "kernel image %dx%d has weight %g at (%d, %d): weights are finite "
                               "and not negative",
                               img->width, img->height, w, x, y);
            sum += w;
        }
    if (sum <= 0)
        return fv_fail(FV_ERR_FORMAT,
                       "kernel image %dx%d is black everywhere: a kernel needs a weight above 0",
                       img->width, img->height);
    return FV_OK;
}

/* ---- quantisation ---- */
typedef struct frac_entry {
    double frac;
    int index;
} frac_entry;

static int frac_descending(const void *a, const void *b)
{
    const frac_entry *x = a, *y = b;
    if (x->frac != y->frac) return x->frac > y->frac ? -1 : 1;
    return x->index - y->index;
}

fv_status conv_quantise(const double *f, int width, int height, conv_kernel *k)
{
    if (width < 1 || height < 1 || width > FV_CONV_MAX_SIZE || height > FV_CONV_MAX_SIZE)
        return fv_fail(FV_ERR_SIZE, "conv: kernel %dx%d is not within 1x1..%dx%d", width, height,
                       FV_CONV_MAX_SIZE, FV_CONV_MAX_SIZE);
    const int n = width * height;
    double sum = 0;
    for (int i = 0; i < n; i++) {
        if (!(f[i] >= 0)) return fv_fail(FV_ERR_ARG, "conv: kernel weight %g is negative", f[i]);
        sum += f[i];
    }
    if (!(sum > 0)) return fv_fail(FV_ERR_ARG, "conv: the kernel's weights are all 0");
    frac_entry *e = malloc(sizeof *e * (size_t)n);
    if (!e) return fv_fail(FV_ERR_MEMORY, "conv: out of host memory");
    k->width = width;
    k->height = height;
    k->cx = width / 2;
    k->cy = height / 2;
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        const double scaled = f[i] * FV_CONV_WEIGHT_SUM / sum;
        const double whole = floor(scaled);
        k->w[i] = (int32_t)whole;
        total += k->w[i];
        e[i].frac = scaled - whole;
        e[i].index = i;
    }
    int64_t left = FV_CONV_WEIGHT_SUM - total; /* 0 <= left < n */
    qsort(e, (size_t)n, sizeof *e, frac_descending);
    for (int g = 0; g < n && left > 0 && e[g].frac > 0;) {
        int end = g;
        while (end < n && e[end].frac == e[g].frac) end++;
        if (end - g > left) break; /* the whole group or none of it: symmetry */
        for (int i = g; i < end; i++) k->w[e[i].index]++;
        left -= end - g;
        g = end;
    }
    free(e);
    int target = k->cy * width + k->cx;
    if (k->w[target] == 0 || f[target] == 0) {
        target = 0;
        for (int i = 1; i < n; i++)
            if (k->w[i] > k->w[target]) target = i;
    }
    k->w[target] += (int32_t)left;
    k->taps = 0;
    for (int i = 0; i < n; i++) k->taps += k->w[i] != 0;
    return FV_OK;
}

/* Drops all-zero outer rows and columns in pairs (one each side), keeping the centre. */
static void trim_symmetric(double *f, int *width, int *height)
{
    int w = *width, h = *height, top = 0, side = 0;
    for (;;) { /* rows */
        if (h - 2 * top < 3) break;
        int zero = 1;
        for (int j = 0; j < w && zero; j++)
            zero = f[top * w + j] == 0 && f[(h - 1 - top) * w + j] == 0;
        if (!zero) break;
        top++;
    }
    for (;;) { /* columns */
        if (w - 2 * side < 3) break;
        int zero = 1;
        for (int i = 0; i < h && zero; i++)
            zero = f[i * w + side] == 0 && f[i * w + w - 1 - side] == 0;
        if (!zero) break;
        side++;
    }
    const int nw = w - 2 * side, nh = h - 2 * top;
    for (int i = 0; i < nh; i++)
        memmove(f + i * nw, f + (i + top) * w + side, sizeof *f * (size_t)nw);
    *width = nw;
    *height = nh;
}

/* The raw weights of c's shape into f (FV_CONV_MAX_TAPS doubles); sets the size. `image` is the
 * `kernel-file` image (NULL: the built-in sample). */
static void shape_weights(const conv_config *c, const fv_image *image, double *f, int *width,
                          int *height)
{
    const int shape = c->shape;
    if (shape == CONV_FILE) {
        if (image) { /* checked by conv_kernel_image_check: 1x1..127x127, not black */
            *width = image->width;
            *height = image->height;
            for (int y = 0; y < image->height; y++)
                for (int x = 0; x < image->width; x++)
                    f[y * image->width + x] = kernel_image_weight(image, x, y);
        } else { /* the L: a 2-pixel column on the left, a 2-pixel row at the bottom, a dot */
            *width = SAMPLE_W;
            *height = SAMPLE_H;
            for (int i = 0; i < SAMPLE_H; i++)
                for (int j = 0; j < SAMPLE_W; j++)
                    f[i * SAMPLE_W + j] = (j < 2 || i >= SAMPLE_H - 2)
                                              ? 1.0
                                              : (i == 1 && j == SAMPLE_W - 2 ? 4.0 : 0.0);
        }
        return;
    }
    /* every r fits: sigma <= 20 gives ceil(3 sigma) <= 60, radius <= 63, length / 2 <= 63 (the
     * rows' ranges, checked before the configuration is made) */
    int r = 0;
    if (shape == CONV_GAUSSIAN)
        r = (int)ceil(3.0 * c->sigma);
    else if (shape == CONV_DISK || shape == CONV_BOX)
        r = c->radius;
    else
        r = c->length / 2; /* motion: an odd square around the segment */
    const int n = 2 * r + 1;
    const double sigma = c->sigma, rr = (r + 0.5) * (r + 0.5);
    const double angle = c->angle * 3.14159265358979323846 / 180.0;
    double cs = cos(angle), sn = sin(angle);
    if (fabs(cs) < 1e-12) cs = 0; /* 90 degrees: exactly vertical, no 1e-17 weights beside it */
    if (fabs(sn) < 1e-12) sn = 0;
    const double half = (c->length - 1) / 2.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const int di = i - r, dj = j - r, ai = abs(di), aj = abs(dj);
            double v = 0;
            if (shape == CONV_GAUSSIAN) {
                v = exp(-(double)(ai * ai + aj * aj) / (2.0 * sigma * sigma));
            } else if (shape == CONV_DISK) {
                int inside = 0;
                for (int a = 0; a < DISK_SAMPLES; a++)
                    for (int b = 0; b < DISK_SAMPLES; b++) {
                        const double y = ai + (a + 0.5) / DISK_SAMPLES - 0.5,
                                     x = aj + (b + 0.5) / DISK_SAMPLES - 0.5;
                        inside += x * x + y * y <= rr;
                    }
                v = inside;
            } else if (shape == CONV_BOX) {
                v = 1.0;
            } else { /* motion: y up on screen is -di */
                const double along = fabs(dj * cs - di * sn), across = fabs(dj * sn + di * cs);
                const double a = half + 1.0 - along, b = 1.0 - across;
                v = (a > 0 ? (a < 1 ? a : 1.0) : 0.0) * (b > 0 ? b : 0.0);
            }
            f[i * n + j] = v;
        }
    *width = *height = n;
    trim_symmetric(f, width, height);
}

/* why = the failure's message without the "conv: " the registry puts before it */
static int refused(char *why, size_t why_size)
{
    const char *message = fv_last_error();
    snprintf(why, why_size, "%s", strncmp(message, "conv: ", 6) ? message : message + 6);
    return 0;
}

int conv_config_make(const fv_params *p, void *config, char *why, size_t why_size)
{
    conv_config *c = config;
    memset(c, 0, sizeof *c);
    const fv_image *image = p->image[CONV_KERNEL_FILE];
    if (image && conv_kernel_image_check(image) != FV_OK) return refused(why, why_size);
    c->stage = (int)p->value[CONV_STAGE];
    c->shape = (int)p->value[CONV_SHAPE];
    if (c->shape == CONV_GAUSSIAN) c->sigma = p->value[CONV_SIGMA];
    if (c->shape == CONV_DISK || c->shape == CONV_BOX) c->radius = (int)p->value[CONV_RADIUS];
    if (c->shape == CONV_MOTION) {
        c->length = (int)p->value[CONV_LENGTH];
        c->angle = p->value[CONV_ANGLE];
    }
    c->border.mode = (fv_border)(int)p->value[CONV_BORDER];
    c->border.cval = p->value[CONV_CVAL];
    c->type = p->type;
    double *f = malloc(sizeof *f * FV_CONV_MAX_TAPS);
    if (!f) {
        snprintf(why, why_size, "out of host memory for the kernel");
        return 0;
    }
    int width = 0, height = 0;
    shape_weights(c, image, f, &width, &height);
    const fv_status st = conv_quantise(f, width, height, &c->kernel);
    free(f);
    return st == FV_OK ? 1 : refused(why, why_size);
}

/* ---- FFT sizes ----
 * cuFFT is fastest on powers of two, then on 2,3-smooth lengths, then 2,3,5-smooth ones; 7 and
 * larger primes cost more again, enough that a slightly longer length can take less time
 * (docs/perf/conv.md). So a length is the smallest power of two if that is at most 10 % longer
 * than the smallest 2,3,5-smooth length, else the smallest 2,3-smooth one if at most 2 % longer,
 * else the smallest 2,3,5-smooth one. */
static int smooth_over(int m, int largest_prime)
{
    static const int primes[3] = {2, 3, 5};
    for (int i = 0; i < 3 && primes[i] <= largest_prime; i++)
        while (m % primes[i] == 0) m /= primes[i];
    return m == 1;
}

/* the smallest length >= n (even where asked) whose prime factors are at most largest_prime */
static int smooth_at_least(int n, int even, int largest_prime)
{
    int m = n;
    if (even && m % 2) m++;
    while (!smooth_over(m, largest_prime)) m += even ? 2 : 1;
    return m;
}

int conv_fft_size(int n, int even)
{
    if (n < 1) n = 1;
    const int m5 = smooth_at_least(n, even, 5), m3 = smooth_at_least(n, even, 3),
              m2 = smooth_at_least(n, even, 2);
    if ((double)m2 <= 1.10 * m5) return m2;
    if ((double)m3 <= 1.02 * m5) return m3;
    return m5;
}

void conv_fft_grid(const conv_kernel *k, int width, int height, int *P, int *Q)
{
    *P = conv_fft_size(width + k->width - 1, 1);
    *Q = conv_fft_size(height + k->height - 1, 0);
}
