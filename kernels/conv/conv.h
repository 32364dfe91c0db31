/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv.h: what the large-kernel convolution's reference (kernels/conv/conv_ref.c), its kernel
 * shapes (kernels/conv/conv_kernels.c, plain C) and its GPU variants (kernels/conv/conv.cu, conv_fft.cu)
 * share: the parameter table's indices, the quantised kernel, the FFT's padded size and the
 * display of every stage.
 *
 * The output is the true convolution out(x, y) = sum K(i, j) S(x - (j - cx), y - (i - cy)) of the
 * source S (extended past its edges by the `border` parameter, fv_border_index) with the kernel K
 * (kw x kh, centre (cx, cy) = (kw / 2, kh / 2)), for R, G and B; alpha is the source pixel's. K is
 * quantised once to non-negative integers summing to exactly 2^16, so for uint8 and uint16 each
 * output channel is the exact integer (sum + 2^15) >> 16 (round half up, never above the type's
 * maximum): every direct variant equals the reference exactly. float32 sums the same integer
 * weights in float and scales by 2^-16 (the reference in double). The FFT variants compute in
 * float32 for every type, with the same weights.
 *
 * Stages (parameter `stage`), display-ready in the image's type (a level 0..255 becomes v for
 * uint8, 257 v for uint16, v / 255 for float32; alpha the type's maximum except `output`):
 *   output            the filtered image
 *   kernel            the quantised kernel, w / max w as gray, enlarged to fill the image
 *   spectrum_image    log-magnitude of the spectrum of the padded image, per channel, centred
 *   spectrum_kernel   the same for the kernel (gray)
 *   spectrum_product  the same for their product (what the inverse FFT turns into the output)
 * Spectra are on the FFT's padded P x Q grid (conv_fft_size), sampled to the image size. Their
 * magnitude m is normalised to 0..1 (image: |F| / (max P Q), max the type's 255, 65535 or 1;
 * kernel: |K|) and shown as
 * 255 (1 + log10(m) / FV_CONV_SPECTRUM_DECADES), clamped to 0..255. They are computed in double
 * precision on the host and the device alike, so that they agree to the byte in practice (a
 * level boundary would have to fall within ~1e-12 of a value).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CONV_H
#define FV_CONV_H

#include "filter.h"

#include <math.h>

#ifdef __CUDACC__
#define CONV_HD __host__ __device__ __forceinline__
#else
#define CONV_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* indices in the convolution's parameter table */
enum {
    CONV_STAGE,
    CONV_SHAPE,
    CONV_SIGMA,
    CONV_RADIUS,
    CONV_LENGTH,
    CONV_ANGLE,
    CONV_KERNEL_FILE,
    CONV_BORDER, /* FV_PARAM_BORDER_ROWS: the border and its constant */
    CONV_CVAL,
    CONV_N_PARAMS
};
/* the values of `stage` */
enum {
    CONV_OUTPUT,
    CONV_KERNEL,
    CONV_SPECTRUM_IMAGE,
    CONV_SPECTRUM_KERNEL,
    CONV_SPECTRUM_PRODUCT,
    CONV_N_STAGES
};
/* the values of `shape` */
enum { CONV_GAUSSIAN, CONV_DISK, CONV_MOTION, CONV_BOX, CONV_FILE, CONV_N_SHAPES };

#define FV_CONV_MAX_SIZE         127 /* kernel width and height */
#define FV_CONV_MAX_TAPS         (FV_CONV_MAX_SIZE * FV_CONV_MAX_SIZE)
#define FV_CONV_MIN_SIGMA        0.3  /* ceil(3 sigma) = 1: a 3x3 Gaussian */
#define FV_CONV_MAX_SIGMA        20.0 /* ceil(3 sigma) = 60: 121x121 */
#define FV_CONV_MAX_RADIUS       63   /* disk and box: (2r+1)^2 <= 127^2 */
#define FV_CONV_MAX_LENGTH       127  /* motion */
#define FV_CONV_WEIGHT_SHIFT     16
#define FV_CONV_WEIGHT_SUM       (1 << FV_CONV_WEIGHT_SHIFT)
#define FV_CONV_SPECTRUM_DECADES 6.0 /* the spectra show magnitudes 1e-6..1 */

extern const char *const conv_stage_names[CONV_N_STAGES];
extern const char *const conv_shape_names[CONV_N_SHAPES];

/* The quantised kernel (about 64 KiB: allocate it, don't put it on a small stack). */
typedef struct conv_kernel {
    int width, height;           /* 1..FV_CONV_MAX_SIZE each */
    int cx, cy;                  /* centre: width / 2, height / 2 */
    int taps;                    /* weights that are not 0 */
    int32_t w[FV_CONV_MAX_TAPS]; /* w[i * width + j] = K(i, j) >= 0, sum 2^16 */
} conv_kernel;

/* Quantises non-negative weights f (width x height, not all 0) into k: floor(2^16 f / sum), the
 * remainder to the largest fractions a whole group of equal fractions at a time (so symmetric
 * kernels stay symmetric), what is left to the centre tap (or the first largest where the
 * centre is 0). */
fv_status conv_quantise(const double *f, int width, int height, conv_kernel *k);

/* A kernel image (host, any type, 1, 3 or 4 channels) for `kernel-file`: refused when larger
 * than 127x127, with a weight that is negative or not finite, or black everywhere
 * (conv_config_make refuses such parameters with the same message). */
fv_status conv_kernel_image_check(const fv_image *img);

/* The FFT's padded length for n samples: the smallest 2,3,5-smooth m >= n, even when `even`. */
int conv_fft_size(int n, int even);
/* The padded grid of an image w x h with kernel k: P = conv_fft_size(w + kw - 1, 1) columns,
 * Q = conv_fft_size(h + kh - 1, 0) rows. The padded image is E(u, v) = S(u - ax, v - ay) extended
 * by the border (any mode: the padding is where the border lives) with ax = kw - 1 - cx,
 * ay = kh - 1 - cy; the output is the circular convolution of E with K (centre at the origin) at
 * (x + ax, y + ay): no wrap-around reaches it. */
void conv_fft_grid(const conv_kernel *k, int width, int height, int *P, int *Q);

/* The border of the output and of the padded spectra: mode and constant. */
typedef struct conv_border {
    fv_border mode;
    double cval; /* in the image's units (the registry checked it against the type) */
} conv_border;

/* The convolution's typed configuration, made once at prepare by conv_config_make
 * (kernels/conv/conv_kernels.c): what the reference, every GPU variant's state, the NPP peer,
 * kernels() and the reach read. The shape's parameters are kept where the shape has them (0
 * otherwise); the kernel is built and quantised here, once, from them or from the `kernel-file`
 * image, which is not read again. About 64 KiB: fv_config has room for it. */
typedef struct conv_config {
    int stage;    /* CONV_OUTPUT .. CONV_SPECTRUM_PRODUCT */
    int shape;    /* CONV_GAUSSIAN .. CONV_FILE */
    double sigma; /* gaussian */
    int radius;   /* disk, box */
    int length;   /* motion */
    double angle; /* motion, degrees */
    conv_border border;
    fv_pixel_type type;
    conv_kernel kernel; /* quantised, sum 2^16 */
} conv_config;

/* The convolution's fv_filter.config_make: the `kernel-file` image's own check (its size and
 * weights, which no range can say), then the kernel, from values whose ranges have been checked.
 * The `file` shape's kernel is the image in p->image[CONV_KERNEL_FILE] (FV_PARAM_IMAGE
 * `kernel-file`, loaded by the program or given to the library), a gray image's values or an
 * RGB(A) one's (R + G + B) / 3 as weights, of any pixel type; without one, a built-in asymmetric
 * sample (an L, 9x7). Returns 1, or 0 with the reason in `why`. */
int conv_config_make(const fv_params *p, void *config, char *why, size_t why_size);

/* The reference (kernels/conv/conv_ref.c), an fv_ref_fn reading a conv_config: exact direct
 * sums; spectra by a double-precision FFT. */
fv_status conv_ref(const fv_image *src, fv_image *dst, const void *config);

/* ---- the FFT side (kernels/conv/conv_fft.cu), used by kernels/conv/conv.cu ---- */
/* PLAIN: one R2C/C2R plan, the channels one after another (variant fft); FAST: the three
 * channels in one batched plan, fused conversions (fft_fast); VIEW: double precision, for the
 * spectrum stages of every variant. */
enum { CONV_FFT_PLAIN, CONV_FFT_FAST, CONV_FFT_VIEW };
typedef struct conv_fft_state conv_fft_state;
size_t conv_fft_state_bytes(const conv_kernel *k, int width, int height, int mode);
fv_status conv_fft_state_create(conv_fft_state **s, const conv_kernel *k, int width, int height,
                                int mode, fv_pixel_type type, conv_border border);
void conv_fft_state_destroy(conv_fft_state *s);
/* PLAIN and FAST: the output; VIEW: `stage`, one of the spectra. */
fv_status conv_fft_run(conv_fft_state *s, const fv_image *src, fv_image *dst, int stage,
                       cudaStream_t stream);
int conv_fft_kernels(int mode, fv_pixel_type type, fv_border border, fv_kernel_info *out, int max);

/* A display level 0..255 in the range of `type`: v, 257 v (0..65535), v / 255 (0..1). */
CONV_HD double conv_level_in(fv_pixel_type type, unsigned level)
{
    return type == FV_PIXEL_U16   ? 257.0 * level
           : type == FV_PIXEL_F32 ? level / 255.0
                                  : (double)level;
}

/* ---- per-pixel formulas of the stages, the same code on host and device ---- */
CONV_HD int conv_clamp(int v, int hi)
{
    return v < 0 ? 0 : (v > hi ? hi : v);
}

/* The exact output channel from an integer sum of weights times pixels. */
CONV_HD uint32_t conv_round(int32_t sum)
{
    return (uint32_t)(sum + (1 << (FV_CONV_WEIGHT_SHIFT - 1))) >> FV_CONV_WEIGHT_SHIFT;
}

/* The kernel stage: the kernel tap under output pixel (x, y), nearest, enlarged by one scale for
 * both axes (the largest that fits, so a 63x33 motion streak keeps its angle) and centred; -1
 * outside the kernel (shown black). */
CONV_HD int conv_kernel_tap_at(int x, int y, int width, int height, int kw, int kh)
{
    const int by_width =
        (int64_t)width * kh <= (int64_t)height * kw; /* width / kw is the smaller */
    const int64_t num = by_width ? width : height, den = by_width ? kw : kh; /* pixels per tap */
    int64_t shown_w = kw * num / den, shown_h = kh * num / den;
    if (shown_w < 1) shown_w = 1;
    if (shown_h < 1) shown_h = 1;
    const int64_t dx = x - (width - shown_w) / 2, dy = y - (height - shown_h) / 2;
    if (dx < 0 || dy < 0 || dx >= shown_w || dy >= shown_h) return -1;
    const int64_t j = dx * den / num, i = dy * den / num;
    return (int)((i < kh ? i : kh - 1) * kw + (j < kw ? j : kw - 1));
}

/* The kernel stage's gray level of weight w, the largest being wmax: round(255 w / wmax). */
CONV_HD uint32_t conv_kernel_level(int32_t w, int32_t wmax)
{
    return (uint32_t)(((int64_t)w * 255 + wmax / 2) / wmax);
}

/* The spectrum stages: frequency (u, v) of the P x Q grid shown at output pixel (x, y), centred
 * (frequency 0 exactly at (width / 2, height / 2)) and folded into the half spectrum u <= P / 2
 * that a real FFT keeps (|F(u, v)| = |F(-u, -v)| for real input). Returns v * (P / 2 + 1) + u. */
CONV_HD int64_t conv_floor_div(int64_t a, int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

CONV_HD int64_t conv_spectrum_index(int x, int y, int width, int height, int P, int Q)
{
    const int64_t du = conv_floor_div((int64_t)(x - width / 2) * P, width);
    const int64_t dv = conv_floor_div((int64_t)(y - height / 2) * Q, height);
    int64_t u = (du % P + P) % P, v = (dv % Q + Q) % Q;
    if (u > P / 2) {
        u = P - u;
        v = (Q - v) % Q;
    }
    return v * (P / 2 + 1) + u;
}

/* The level of a normalised magnitude m (0..1). */
CONV_HD uint32_t conv_spectrum_level(double m)
{
    if (!(m > 1e-6)) return 0; /* 10^-DECADES and below, NaN too */
    const double t = 255.0 * (1.0 + log10(m) / FV_CONV_SPECTRUM_DECADES);
    return t >= 255.0 ? 255u : (uint32_t)floor(t + 0.5);
}

#ifdef __cplusplus
}
#endif
#endif
