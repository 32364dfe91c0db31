/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_ref.c: CPU reference of the large-kernel convolution (kernels/conv/conv.h): the output
 * by exact direct integer sums over the quantised kernel (borders replicated, alpha kept), the
 * kernel stage, and the spectrum stages by a double-precision FFT of our own (recursive mixed
 * radix; the padded sizes are 2,3,5,7-smooth) on the same padded grid as the FFT variants.
 * Checked on hand-worked sums, shapes and borders by tests/cpu/test_conv_ref.c; every direct GPU
 * variant equals it byte for byte, the FFT variants within their stated tolerance
 * (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "conv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cplx {
    double re, im;
} cplx;

/* ---- output: exact sums ---- */
static void direct_sums(const fv_image *src, fv_image *dst, const conv_kernel *k)
{
    const int w = src->width, h = src->height;
    for (int y = 0; y < h; y++) {
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        const uint8_t *centre = src->data + (size_t)y * src->pitch;
        for (int x = 0; x < w; x++) {
            int32_t sum[3] = {0, 0, 0};
            /* K(i, j) meets S(x - (j - cx), y - (i - cy)) */
            for (int i = 0; i < k->height; i++) {
                const uint8_t *row =
                    src->data + (size_t)conv_clamp(y - i + k->cy, h - 1) * src->pitch;
                const int32_t *wr = k->w + i * k->width;
                for (int j = 0; j < k->width; j++) {
                    if (!wr[j]) continue;
                    const uint8_t *px = row + 4 * (size_t)conv_clamp(x - j + k->cx, w - 1);
                    sum[0] += wr[j] * px[0];
                    sum[1] += wr[j] * px[1];
                    sum[2] += wr[j] * px[2];
                }
            }
            for (int c = 0; c < 3; c++) out[4 * (size_t)x + c] = (uint8_t)conv_round(sum[c]);
            out[4 * (size_t)x + 3] = centre[4 * (size_t)x + 3];
        }
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
            const uint8_t g = tap < 0 ? 0 : (uint8_t)conv_kernel_level(k->w[tap], wmax);
            uint8_t *px = dst->data + (size_t)y * dst->pitch + 4 * (size_t)x;
            px[0] = px[1] = px[2] = g;
            px[3] = 255;
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

static fv_status spectrum_stage(const fv_image *src, fv_image *dst, const conv_kernel *k, int stage)
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
    const double scale = 1.0 / (255.0 * (double)P * (double)Q);
    for (int c = 0; c < 3 && st == FV_OK; c++) {
        if (stage != CONV_SPECTRUM_KERNEL) {
            for (int v = 0; v < Q; v++) {
                const uint8_t *row = src->data + (size_t)conv_clamp(v - ay, h - 1) * src->pitch;
                for (int u = 0; u < P; u++)
                    a[(size_t)v * P + u] =
                        (cplx){row[4 * (size_t)conv_clamp(u - ax, w - 1) + c], 0.0};
            }
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
                uint8_t *px = dst->data + (size_t)y * dst->pitch + 4 * (size_t)x;
                px[c] = (uint8_t)conv_spectrum_level(m);
                px[3] = 255;
            }
    }
    free(kmag);
    free(imag);
    free(a);
    return st;
}

fv_status conv_ref(const fv_image *src, fv_image *dst, const fv_params *p)
{
    conv_kernel *k = malloc(sizeof *k);
    if (!k) return fv_fail(FV_ERR_MEMORY, "conv: out of host memory");
    fv_status st = conv_kernel_make(p, "conv", k);
    const int stage = conv_stage(p);
    if (st == FV_OK) {
        if (stage == CONV_OUTPUT)
            direct_sums(src, dst, k);
        else if (stage == CONV_KERNEL)
            kernel_stage(dst, k);
        else
            st = spectrum_stage(src, dst, k, stage);
    }
    free(k);
    return st;
}
