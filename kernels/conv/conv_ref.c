/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_ref.c: CPU reference of the large-kernel convolution (kernels/conv/conv.h): the output
 * by direct sums over the quantised kernel of its configuration (made once at prepare) in double
 * (exact for uint8 and uint16; float32 rounded once), any type and any border through
 * fv_border_index, alpha kept; the kernel stage, and the spectrum stages by a double-precision
 * FFT of our own (recursive mixed radix; the padded sizes are 2,3,5,7-smooth) on the same padded
 * grid as the FFT variants. One code path for the three types (channel_at, store). Checked on
 * hand-worked sums, shapes, types and borders by tests/cpu/test_conv_ref.c and against
 * scipy.ndimage.correlate by tests/cpu/conv_scipy.py; every direct GPU variant equals it exactly
 * for the integer types, the FFT variants within their stated tolerance (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "conv.h"
#include "border.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cplx {
    double re, im;
} cplx;

/* ---- one code path for the three types: a channel read as a double, a result stored ---- */
static double channel_at(const fv_image *img, int x, int y, int c)
{
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    const size_t i = 4 * (size_t)x + (size_t)c;
    switch (img->type) {
    case FV_PIXEL_U16: return ((const uint16_t *)row)[i];
    case FV_PIXEL_F32: return ((const float *)row)[i];
    case FV_PIXEL_U8:
    default: return row[i];
    }
}

/* Channel c of the image extended past its edges by `b` (fv_border_index; constant: b's value). */
static double sample(const fv_image *img, int x, int y, int c, const conv_border *b)
{
    const int xx = fv_border_index(x, img->width, b->mode);
    const int yy = fv_border_index(y, img->height, b->mode);
    return xx < 0 || yy < 0 ? b->cval : channel_at(img, xx, yy, c);
}

/* v stored as the image's type: integers as they are (the caller rounded), float as float. */
static void store(const fv_image *img, int x, int y, int c, double v)
{
    uint8_t *row = img->data + (size_t)y * img->pitch;
    const size_t i = 4 * (size_t)x + (size_t)c;
    switch (img->type) {
    case FV_PIXEL_U16: ((uint16_t *)row)[i] = (uint16_t)v; break;
    case FV_PIXEL_F32: ((float *)row)[i] = (float)v; break;
    case FV_PIXEL_U8:
    default: row[i] = (uint8_t)v; break;
    }
}

/* A display level 0..255 (the kernel and spectrum stages) in the image's range. */
static void store_level(const fv_image *img, int x, int y, int c, unsigned level)
{
    store(img, x, y, c, conv_level_in(img->type, level));
}

/* ---- output: exact sums ---- */
/* Weights times values in double: for the integer types every product and partial sum is an
 * integer below 2^33, exact in double, so (sum + 2^15) >> 16 is the exact rounding the kernels
 * make; float32 is the double sum scaled by 2^-16, rounded once to float. A zero weight reads
 * nothing (a NaN under it is not seen), as in every direct kernel. */
static void direct_sums(const fv_image *src, fv_image *dst, const conv_kernel *k,
                        const conv_border *b)
{
    const int w = src->width, h = src->height;
    const double top = fv_pixel_type_max(src->type);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double sum[3] = {0, 0, 0};
            /* K(i, j) meets S(x - (j - cx), y - (i - cy)) */
            for (int i = 0; i < k->height; i++) {
                const int32_t *wr = k->w + i * k->width;
                for (int j = 0; j < k->width; j++) {
                    if (!wr[j]) continue;
                    for (int c = 0; c < 3; c++)
                        sum[c] += wr[j] * sample(src, x - j + k->cx, y - i + k->cy, c, b);
                }
            }
            for (int c = 0; c < 3; c++) {
                double v = sum[c] / FV_CONV_WEIGHT_SUM;
                if (src->type != FV_PIXEL_F32) {
                    v = floor((sum[c] + FV_CONV_WEIGHT_SUM / 2) / FV_CONV_WEIGHT_SUM);
                    v = v < 0 ? 0 : (v > top ? top : v);
                }
                store(dst, x, y, c, v);
            }
            store(dst, x, y, 3, channel_at(src, x, y, 3));
        }
}

static void kernel_stage(fv_image *dst, const conv_kernel *k)
{
    int32_t wmax = 1;
    for (int i = 0; i < k->width * k->height; i++)
        if (k->w[i] > wmax) wmax = k->w[i];
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++) {
            const int tap = conv_kernel_tap_at(x, y, dst->width, dst->height, k->width, k->height);
            const unsigned g = tap < 0 ? 0 : conv_kernel_level(k->w[tap], wmax);
            for (int c = 0; c < 3; c++) store_level(dst, x, y, c, g);
            store_level(dst, x, y, 3, 255);
        }
}

/* ---- a double-precision FFT for 2,3,5,7-smooth lengths (any length works, slowly) ---- */
typedef struct fft_plan {
    int n;
    cplx *twiddle; /* exp(-2 pi i e / n), e = 0..n-1 */
    cplx *scratch; /* n */
} fft_plan;

static int fft_plan_make(fft_plan *f, int n)
{
    f->n = n;
    f->twiddle = malloc(sizeof(cplx) * (size_t)n);
    f->scratch = malloc(sizeof(cplx) * (size_t)n);
    if (!f->twiddle || !f->scratch) return 0;
    for (int e = 0; e < n; e++) {
        const double a = -2.0 * 3.14159265358979323846 * (double)e / (double)n;
        f->twiddle[e] = (cplx){cos(a), sin(a)};
    }
    return 1;
}

static void fft_plan_free(fft_plan *f)
{
    free(f->twiddle);
    free(f->scratch);
}

static int smallest_factor(int n)
{
    for (int p = 2; p * p <= n; p++)
        if (n % p == 0) return p;
    return n;
}

/* out[k] = sum_j in[j * stride] exp(-2 pi i j k / n), k < n; `n` divides the plan's length */
static void fft_rec(const fft_plan *f, const cplx *in, int stride, cplx *out, int n)
{
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    const int p = smallest_factor(n), m = n / p, step = f->n / n;
    for (int r = 0; r < p; r++)
        fft_rec(f, in + (size_t)r * stride, stride * p, out + (size_t)r * m, m);
    cplx t[16], *tmp = p <= 16 ? t : malloc(sizeof(cplx) * (size_t)p);
    for (int k = 0; k < m; k++) {
        for (int r = 0; r < p; r++) tmp[r] = out[r * m + k];
        for (int q = 0; q < p; q++) {
            cplx s = {0, 0};
            const int kk = k + q * m;
            for (int r = 0; r < p; r++) {
                const cplx w = f->twiddle[(int)(((int64_t)r * kk % n) * step)];
                s.re += tmp[r].re * w.re - tmp[r].im * w.im;
                s.im += tmp[r].re * w.im + tmp[r].im * w.re;
            }
            out[kk] = s;
        }
    }
    if (tmp != t) free(tmp);
}

/* In-place 2-D transform of a Q x P array (rows of P). */
static int fft2d(cplx *a, int P, int Q)
{
    fft_plan fp = {0}, fq = {0};
    cplx *col = malloc(sizeof(cplx) * (size_t)Q),
         *res = malloc(sizeof(cplx) * (size_t)(P > Q ? P : Q));
    int ok = col && res && fft_plan_make(&fp, P) && fft_plan_make(&fq, Q);
    if (ok) {
        for (int v = 0; v < Q; v++) {
            fft_rec(&fp, a + (size_t)v * P, 1, res, P);
            memcpy(a + (size_t)v * P, res, sizeof(cplx) * (size_t)P);
        }
        for (int u = 0; u < P; u++) {
            for (int v = 0; v < Q; v++) col[v] = a[(size_t)v * P + u];
            fft_rec(&fq, col, 1, res, Q);
            for (int v = 0; v < Q; v++) a[(size_t)v * P + u] = res[v];
        }
    }
    fft_plan_free(&fp);
    fft_plan_free(&fq);
    free(col);
    free(res);
    return ok;
}

/* |spectrum| of the kernel (centre at the origin) on the P x Q grid, half spectrum u <= P/2 */
static int kernel_magnitudes(const conv_kernel *k, int P, int Q, double *mag)
{
    cplx *a = calloc((size_t)P * (size_t)Q, sizeof(cplx));
    if (!a) return 0;
    for (int i = 0; i < k->height; i++)
        for (int j = 0; j < k->width; j++) {
            const int u = ((j - k->cx) % P + P) % P, v = ((i - k->cy) % Q + Q) % Q;
            a[(size_t)v * P + u].re += (double)k->w[i * k->width + j] / FV_CONV_WEIGHT_SUM;
        }
    int ok = fft2d(a, P, Q);
    const int H = P / 2 + 1;
    for (int v = 0; ok && v < Q; v++)
        for (int u = 0; u < H; u++)
            mag[(size_t)v * H + u] = hypot(a[(size_t)v * P + u].re, a[(size_t)v * P + u].im);
    free(a);
    return ok;
}

static fv_status spectrum_stage(const fv_image *src, fv_image *dst, const conv_kernel *k, int stage,
                                const conv_border *b)
{
    const int w = src->width, h = src->height;
    int P = 0, Q = 0;
    conv_fft_grid(k, w, h, &P, &Q);
    const int H = P / 2 + 1;
    const int ax = k->width - 1 - k->cx, ay = k->height - 1 - k->cy;
    double *kmag = malloc(sizeof(double) * (size_t)H * (size_t)Q);
    double *imag = malloc(sizeof(double) * (size_t)H * (size_t)Q);
    cplx *a = malloc(sizeof(cplx) * (size_t)P * (size_t)Q);
    fv_status st =
        kmag && imag && a
            ? FV_OK
            : fv_fail(FV_ERR_MEMORY, "conv: out of host memory for a %dx%d spectrum", P, Q);
    if (st == FV_OK && stage != CONV_SPECTRUM_IMAGE && !kernel_magnitudes(k, P, Q, kmag))
        st = fv_fail(FV_ERR_MEMORY, "conv: out of host memory for a %dx%d spectrum", P, Q);
    const double scale = 1.0 / (fv_pixel_type_max(src->type) * (double)P * (double)Q);
    for (int c = 0; c < 3 && st == FV_OK; c++) {
        if (stage != CONV_SPECTRUM_KERNEL) {
            for (int v = 0; v < Q; v++)
                for (int u = 0; u < P; u++)
                    a[(size_t)v * P + u] = (cplx){sample(src, u - ax, v - ay, c, b), 0.0};
            if (!fft2d(a, P, Q)) {
                st = fv_fail(FV_ERR_MEMORY, "conv: out of host memory for a %dx%d spectrum", P, Q);
                break;
            }
            for (int v = 0; v < Q; v++)
                for (int u = 0; u < H; u++)
                    imag[(size_t)v * H + u] =
                        hypot(a[(size_t)v * P + u].re, a[(size_t)v * P + u].im);
        }
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int64_t i = conv_spectrum_index(x, y, w, h, P, Q);
                const double m = stage == CONV_SPECTRUM_KERNEL  ? kmag[i]
                                 : stage == CONV_SPECTRUM_IMAGE ? imag[i] * scale
                                                                : imag[i] * kmag[i] * scale;
                store_level(dst, x, y, c, conv_spectrum_level(m));
                store_level(dst, x, y, 3, 255);
            }
    }
    free(kmag);
    free(imag);
    free(a);
    return st;
}

fv_status conv_ref(const fv_image *src, fv_image *dst, const void *config)
{
    const conv_config *c = config;
    if (c->stage == CONV_OUTPUT) {
        direct_sums(src, dst, &c->kernel, &c->border);
        return FV_OK;
    }
    if (c->stage == CONV_KERNEL) {
        kernel_stage(dst, &c->kernel);
        return FV_OK;
    }
    return spectrum_stage(src, dst, &c->kernel, c->stage, &c->border);
}
