/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_fft.cu: the convolution through cuFFT (variants fft and fft_fast) and the spectrum
 * stages of every variant (kernels/conv/conv.h).
 *
 * The source is padded to the P x Q grid of conv_fft_grid (2,3,5-smooth, at least w + kw - 1 by
 * h + kh - 1, so that the circular convolution never wraps onto an output pixel); the padding is
 * the border (any mode, through conv_fetch: uint8 replicate clamps as it always did). Half the
 * type's range is subtracted (128, 32768 or 0.5: a smaller DC, a smaller float error), the planes
 * transformed, multiplied by the kernel's spectrum (made once, in double, scaled by 1 / (P Q) so
 * that the inverse needs no normalisation), transformed back, the offset added back, and integer
 * types rounded half up and saturated. Every type computes in float32.
 *   PLAIN (fft)       one R2C and one C2R plan of one channel; per channel: pad, R2C, multiply,
 *                     C2R, write that channel's bytes (5 launches a channel)
 *   FAST (fft_fast)   one batched plan for R, G and B: one pass reads RGBA into three padded
 *                     planes, one multiply reads the kernel's spectrum once for three channels,
 *                     one pass packs R, G, B and the source's alpha into 32-bit stores. (These
 *                     three passes stay kernels of ours: as JIT-linked LTO callbacks of cuFFT,
 *                     cufftXtSetJITCallback, they ran slower, and linking a plan took seconds;
 *                     docs/perf/conv.md.)
 *   VIEW              double-precision D2Z of each channel for the spectrum stages, the kernel's
 *                     magnitudes made once; the display formula is conv.h's, shared with the
 *                     reference, which computes its spectra in double too
 * Plans, work area, buffers and the kernel's spectrum are made by conv_fft_state_create (when the
 * image, shape or size changes), never in a run; each run sets the plans' stream. Tolerance: the
 * FFT output differs from the exact sums only where a value lies within the float error (a small
 * fraction of a level) of a rounding boundary: at most 1 level, on a small share of pixels.
 * Checked against conv_ref by tests/gpu/test_filters.c within conv.cu's tolerance.
 * ------------------------------------------------------------------------------------------------ */
#include "conv.h"
#include "conv_pixel.cuh"
#include "cuda_check.h"

#include <cufft.h>
#include <stdlib.h>
#include <string.h>

#define PAD_BLOCK_X 32 /* pad and crop kernels: 32x8 threads, one pixel each */
#define PAD_BLOCK_Y 8
#define MUL_THREADS 256 /* spectrum multiply: one frequency each */

struct conv_fft_state {
    int mode, planes;
    fv_pixel_type type;
    conv_border border;
    int width, height, P, Q, H; /* H = P / 2 + 1: the half spectrum's row length */
    int ax, ay;                 /* the image's offset in the padded grid */
    cufftHandle fwd, inv;
    int have_fwd, have_inv;
    void *work;
    float *real;               /* PLAIN, FAST: planes x Q x P */
    cufftComplex *spec;        /* planes x Q x H */
    cufftComplex *kspec;       /* Q x H, already / (P Q) */
    double *dreal;             /* VIEW: Q x P */
    cufftDoubleComplex *dspec; /* Q x H */
    double *kmag;              /* Q x H: |kernel spectrum| */
};

static fv_status cufft_check(cufftResult r, const char *call)
{
    if (r == CUFFT_SUCCESS) return FV_OK;
    return fv_fail(r == CUFFT_ALLOC_FAILED ? FV_ERR_MEMORY : FV_ERR_CUDA,
                   "conv: %s failed (cuFFT error %d)", call, (int)r);
}

static fv_status conv_malloc(void **p, size_t bytes, const char *what)
{
    if (cudaMalloc(p, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        return fv_fail(FV_ERR_MEMORY, "conv: cannot allocate %zu bytes of device memory for %s",
                       bytes, what);
    }
    return FV_OK;
}

/* ---- kernels ------------------------------------------------------------------------------- */
/* E(u, v) = S(u - ax, v - ay) of channel c, the border applied, minus `offset`, into a Q x P plane
 * of R (float for the output, double for the spectra) */
template <typename T, bool Rep, typename R>
static __global__ void conv_pad_kernel(fv_image src, R *plane, int P, int Q, int ax, int ay, int c,
                                       R offset, conv_edge<T> e)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x, v = blockIdx.y * blockDim.y + threadIdx.y;
    if (u >= P || v >= Q) return;
    const typename conv_px<T>::word px = conv_fetch<T, Rep>(src, u - ax, v - ay, e);
    plane[(size_t)v * P + u] = (R)conv_px<T>::channel(px, c) - offset;
}

/* FAST: R, G, B into three planes at once, half the range subtracted */
template <typename T, bool Rep>
static __global__ void conv_pad3_kernel(fv_image src, float *real, int P, int Q, int ax, int ay,
                                        conv_edge<T> e)
{
    typedef conv_px<T> px_t;
    const int u = blockIdx.x * blockDim.x + threadIdx.x, v = blockIdx.y * blockDim.y + threadIdx.y;
    if (u >= P || v >= Q) return;
    const typename px_t::word px = conv_fetch<T, Rep>(src, u - ax, v - ay, e);
    const size_t plane = (size_t)P * Q, i = (size_t)v * P + u;
    real[i] = px_t::channel(px, 0) - px_t::offset;
    real[plane + i] = px_t::channel(px, 1) - px_t::offset;
    real[2 * plane + i] = px_t::channel(px, 2) - px_t::offset;
}

/* spec[p][i] *= kspec[i] for `planes` planes of n frequencies: the kernel read once for all */
static __global__ void conv_multiply_kernel(cufftComplex *spec, const cufftComplex *kspec, size_t n,
                                            int planes)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const cufftComplex k = kspec[i];
    for (int p = 0; p < planes; p++) {
        const cufftComplex a = spec[p * n + i];
        spec[p * n + i] = make_float2(a.x * k.x - a.y * k.y, a.x * k.y + a.y * k.x);
    }
}

/* PLAIN: channel c of dst from the plane (c == 2 also copies alpha) */
template <typename T>
static __global__ void conv_crop_kernel(const float *real, int P, int ax, int ay, fv_image src,
                                        fv_image dst, int c)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    T *out = reinterpret_cast<T *>(dst.data + (size_t)y * dst.pitch) + 4 * (size_t)x;
    out[c] = conv_px<T>::from_centred(real[(size_t)(y + ay) * P + x + ax]);
    if (c == 2) out[3] = reinterpret_cast<const T *>(src.data + (size_t)y * src.pitch)[4 * x + 3];
}

/* FAST: R, G, B from three planes, alpha from the source: one store a pixel */
template <typename T>
static __global__ void conv_crop3_kernel(const float *real, int P, int Q, int ax, int ay,
                                         fv_image src, fv_image dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    const size_t plane = (size_t)P * Q, i = (size_t)(y + ay) * P + x + ax;
    conv_px<T>::store_levels(dst, x, y, real[i], real[plane + i], real[2 * plane + i],
                             conv_px<T>::load(src, x, y));
}

static __global__ void conv_scale_kernel(const cufftDoubleComplex *z, cufftComplex *out,
                                         double *mag, size_t n, double scale)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (out) out[i] = make_float2((float)(z[i].x * scale), (float)(z[i].y * scale));
    if (mag) mag[i] = hypot(z[i].x, z[i].y);
}

/* VIEW: channel c (c < 0: R, G and B alike) of a spectrum stage; alpha the type's maximum */
template <typename T>
static __global__ void conv_spectrum_kernel(const cufftDoubleComplex *spec, const double *kmag,
                                            fv_image dst, int P, int Q, int c, int stage,
                                            double scale)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    const int64_t i = conv_spectrum_index(x, y, dst.width, dst.height, P, Q);
    double m = 0;
    if (stage == CONV_SPECTRUM_KERNEL)
        m = kmag[i];
    else if (stage == CONV_SPECTRUM_IMAGE)
        m = hypot(spec[i].x, spec[i].y) * scale;
    else
        m = hypot(spec[i].x, spec[i].y) * kmag[i] * scale;
    const uint32_t level = conv_spectrum_level(m);
    for (int k = c < 0 ? 0 : c; k <= (c < 0 ? 2 : c); k++)
        conv_px<T>::store_display(dst, x, y, k, level);
    conv_px<T>::store_display(dst, x, y, 3, 255);
}

/* ---- state ---------------------------------------------------------------------------------- */
static void grid_of(const conv_kernel *k, int width, int height, int *P, int *Q, int *H)
{
    conv_fft_grid(k, width, height, P, Q);
    *H = *P / 2 + 1;
}

size_t conv_fft_state_bytes(const conv_kernel *k, int width, int height, int mode)
{
    int P = 0, Q = 0, H = 0;
    grid_of(k, width, height, &P, &Q, &H);
    const size_t real = (size_t)P * Q, half = (size_t)Q * H;
    /* cuFFT's work area is estimated as one more copy of the spectra it transforms */
    if (mode == CONV_FFT_VIEW)
        return real * sizeof(double) + 2 * half * sizeof(cufftDoubleComplex) +
               half * sizeof(double);
    const size_t planes = mode == CONV_FFT_FAST ? 3 : 1;
    return planes * (real * sizeof(float) + 2 * half * sizeof(cufftComplex)) +
           half * sizeof(cufftComplex);
}

void conv_fft_state_destroy(conv_fft_state *s)
{
    if (!s) return;
    if (s->have_fwd) cufftDestroy(s->fwd);
    if (s->have_inv) cufftDestroy(s->inv);
    cudaFree(s->work);
    cudaFree(s->real);
    cudaFree(s->spec);
    cudaFree(s->kspec);
    cudaFree(s->dreal);
    cudaFree(s->dspec);
    cudaFree(s->kmag);
    free(s);
}

/* A plan over `batch` contiguous Q x P planes, without its own work area; its size in *work. */
static fv_status plan_make(cufftHandle *h, int *have, cufftType type, int P, int Q, int batch,
                           size_t *work)
{
    FV_TRY(cufft_check(cufftCreate(h), "cufftCreate"));
    *have = 1;
    FV_TRY(cufft_check(cufftSetAutoAllocation(*h, 0), "cufftSetAutoAllocation"));
    int n[2] = {Q, P};
    size_t bytes = 0;
    FV_TRY(cufft_check(cufftMakePlanMany(*h, 2, n, NULL, 1, 0, NULL, 1, 0, type, batch, &bytes),
                       "cufftMakePlanMany"));
    if (bytes > *work) *work = bytes;
    return FV_OK;
}

/* The kernel's spectrum in double (centre at the origin), on the device: Q x H values. */
static fv_status kernel_spectrum(const conv_kernel *k, int P, int Q, int H,
                                 cufftDoubleComplex **out)
{
    *out = NULL;
    double *host = (double *)calloc((size_t)P * Q, sizeof(double));
    if (!host)
        return fv_fail(FV_ERR_MEMORY, "conv: out of host memory for the kernel's %dx%d padding", P,
                       Q);
    for (int i = 0; i < k->height; i++)
        for (int j = 0; j < k->width; j++) {
            const int u = ((j - k->cx) % P + P) % P, v = ((i - k->cy) % Q + Q) % Q;
            host[(size_t)v * P + u] += (double)k->w[i * k->width + j] / FV_CONV_WEIGHT_SUM;
        }
    double *real = NULL;
    void *work = NULL;
    cufftHandle plan = 0;
    int have = 0;
    size_t work_bytes = 0;
    fv_status st =
        conv_malloc((void **)&real, sizeof(double) * (size_t)P * Q, "the kernel's padding");
    if (st == FV_OK)
        st = conv_malloc((void **)out, sizeof(cufftDoubleComplex) * (size_t)Q * H,
                         "the kernel's spectrum");
    if (st == FV_OK && cudaMemcpy(real, host, sizeof(double) * (size_t)P * Q,
                                  cudaMemcpyHostToDevice) != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "conv: cannot upload the kernel");
    if (st == FV_OK) st = plan_make(&plan, &have, CUFFT_D2Z, P, Q, 1, &work_bytes);
    if (st == FV_OK) st = conv_malloc(&work, work_bytes, "cuFFT's work area");
    if (st == FV_OK) st = cufft_check(cufftSetWorkArea(plan, work), "cufftSetWorkArea");
    if (st == FV_OK) st = cufft_check(cufftExecD2Z(plan, real, *out), "cufftExecD2Z");
    if (st == FV_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "conv: the kernel's spectrum failed");
    if (have) cufftDestroy(plan);
    cudaFree(work);
    cudaFree(real);
    free(host);
    if (st != FV_OK) {
        cudaFree(*out);
        *out = NULL;
    }
    return st;
}

fv_status conv_fft_state_create(conv_fft_state **out, const conv_kernel *k, int width, int height,
                                int mode, fv_pixel_type type, conv_border border)
{
    conv_fft_state *s = (conv_fft_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "conv: out of host memory");
    s->mode = mode;
    s->type = type;
    s->border = border;
    s->planes = mode == CONV_FFT_FAST ? 3 : 1;
    s->width = width;
    s->height = height;
    grid_of(k, width, height, &s->P, &s->Q, &s->H);
    s->ax = k->width - 1 - k->cx;
    s->ay = k->height - 1 - k->cy;
    const size_t real = (size_t)s->P * s->Q, half = (size_t)s->Q * s->H;
    size_t work = 0;
    cufftDoubleComplex *z = NULL;
    fv_status st = kernel_spectrum(k, s->P, s->Q, s->H, &z);
    const unsigned blocks = (unsigned)((half + MUL_THREADS - 1) / MUL_THREADS);
    if (mode == CONV_FFT_VIEW) {
        if (st == FV_OK)
            st = conv_malloc((void **)&s->kmag, sizeof(double) * half, "the kernel's magnitudes");
        if (st == FV_OK) {
            conv_scale_kernel<<<blocks, MUL_THREADS>>>(z, NULL, s->kmag, half, 1.0);
            st = cudaGetLastError() == cudaSuccess
                     ? FV_OK
                     : fv_fail(FV_ERR_CUDA, "conv: conv_scale_kernel failed to launch");
        }
        if (st == FV_OK)
            st = conv_malloc((void **)&s->dreal, sizeof(double) * real, "the padded image");
        if (st == FV_OK)
            st = conv_malloc((void **)&s->dspec, sizeof(cufftDoubleComplex) * half,
                             "the image's spectrum");
        if (st == FV_OK) st = plan_make(&s->fwd, &s->have_fwd, CUFFT_D2Z, s->P, s->Q, 1, &work);
    } else {
        if (st == FV_OK)
            st = conv_malloc((void **)&s->kspec, sizeof(cufftComplex) * half,
                             "the kernel's spectrum");
        if (st == FV_OK) {
            conv_scale_kernel<<<blocks, MUL_THREADS>>>(z, s->kspec, NULL, half,
                                                       1.0 / ((double)s->P * s->Q));
            st = cudaGetLastError() == cudaSuccess
                     ? FV_OK
                     : fv_fail(FV_ERR_CUDA, "conv: conv_scale_kernel failed to launch");
        }
        if (st == FV_OK)
            st = conv_malloc((void **)&s->real, sizeof(float) * real * s->planes,
                             "the padded image");
        if (st == FV_OK)
            st = conv_malloc((void **)&s->spec, sizeof(cufftComplex) * half * s->planes,
                             "the image's spectrum");
        if (st == FV_OK)
            st = plan_make(&s->fwd, &s->have_fwd, CUFFT_R2C, s->P, s->Q, s->planes, &work);
        if (st == FV_OK)
            st = plan_make(&s->inv, &s->have_inv, CUFFT_C2R, s->P, s->Q, s->planes, &work);
    }
    if (st == FV_OK) st = conv_malloc(&s->work, work, "cuFFT's work area");
    if (st == FV_OK) st = cufft_check(cufftSetWorkArea(s->fwd, s->work), "cufftSetWorkArea");
    if (st == FV_OK && s->have_inv)
        st = cufft_check(cufftSetWorkArea(s->inv, s->work), "cufftSetWorkArea");
    if (st == FV_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "conv: preparing the FFT failed");
    cudaFree(z);
    if (st != FV_OK) {
        conv_fft_state_destroy(s);
        return st;
    }
    *out = s;
    return FV_OK;
}

/* ---- runs ---------------------------------------------------------------------------------- */
/* One run of type T; Rep: the replicate border by clamping. */
template <typename T, bool Rep>
static fv_status fft_run(conv_fft_state *s, const fv_image *src, fv_image *dst, int stage,
                         cudaStream_t stream)
{
    const conv_edge<T> e = conv_edge_of<T>(s->border);
    const dim3 block(PAD_BLOCK_X, PAD_BLOCK_Y);
    const dim3 pad_grid((s->P + PAD_BLOCK_X - 1) / PAD_BLOCK_X,
                        (s->Q + PAD_BLOCK_Y - 1) / PAD_BLOCK_Y);
    const dim3 img_grid((dst->width + PAD_BLOCK_X - 1) / PAD_BLOCK_X,
                        (dst->height + PAD_BLOCK_Y - 1) / PAD_BLOCK_Y);
    const size_t half = (size_t)s->Q * s->H;
    const unsigned mul_blocks = (unsigned)((half + MUL_THREADS - 1) / MUL_THREADS);
    if (s->mode == CONV_FFT_VIEW) {
        const double scale = 1.0 / (fv_pixel_type_max(s->type) * (double)s->P * s->Q);
        if (stage == CONV_SPECTRUM_KERNEL) {
            conv_spectrum_kernel<T>
                <<<img_grid, block, 0, stream>>>(NULL, s->kmag, *dst, s->P, s->Q, -1, stage, scale);
            FV_CUDA_CHECK(cudaGetLastError());
            return FV_OK;
        }
        for (int c = 0; c < 3; c++) {
            conv_pad_kernel<T, Rep, double><<<pad_grid, block, 0, stream>>>(
                *src, s->dreal, s->P, s->Q, s->ax, s->ay, c, 0.0, e);
            FV_CUDA_CHECK(cudaGetLastError());
            FV_TRY(cufft_check(cufftExecD2Z(s->fwd, s->dreal, s->dspec), "cufftExecD2Z"));
            conv_spectrum_kernel<T><<<img_grid, block, 0, stream>>>(s->dspec, s->kmag, *dst, s->P,
                                                                    s->Q, c, stage, scale);
            FV_CUDA_CHECK(cudaGetLastError());
        }
        return FV_OK;
    }
    if (s->mode == CONV_FFT_FAST) {
        conv_pad3_kernel<T, Rep>
            <<<pad_grid, block, 0, stream>>>(*src, s->real, s->P, s->Q, s->ax, s->ay, e);
        FV_CUDA_CHECK(cudaGetLastError());
        FV_TRY(cufft_check(cufftExecR2C(s->fwd, s->real, s->spec), "cufftExecR2C"));
        conv_multiply_kernel<<<mul_blocks, MUL_THREADS, 0, stream>>>(s->spec, s->kspec, half, 3);
        FV_CUDA_CHECK(cudaGetLastError());
        FV_TRY(cufft_check(cufftExecC2R(s->inv, s->spec, s->real), "cufftExecC2R"));
        conv_crop3_kernel<T>
            <<<img_grid, block, 0, stream>>>(s->real, s->P, s->Q, s->ax, s->ay, *src, *dst);
        FV_CUDA_CHECK(cudaGetLastError());
        return FV_OK;
    }
    for (int c = 0; c < 3; c++) {
        conv_pad_kernel<T, Rep, float><<<pad_grid, block, 0, stream>>>(
            *src, s->real, s->P, s->Q, s->ax, s->ay, c, conv_px<T>::offset, e);
        FV_CUDA_CHECK(cudaGetLastError());
        FV_TRY(cufft_check(cufftExecR2C(s->fwd, s->real, s->spec), "cufftExecR2C"));
        conv_multiply_kernel<<<mul_blocks, MUL_THREADS, 0, stream>>>(s->spec, s->kspec, half, 1);
        FV_CUDA_CHECK(cudaGetLastError());
        FV_TRY(cufft_check(cufftExecC2R(s->inv, s->spec, s->real), "cufftExecC2R"));
        conv_crop_kernel<T>
            <<<img_grid, block, 0, stream>>>(s->real, s->P, s->ax, s->ay, *src, *dst, c);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    return FV_OK;
}

fv_status conv_fft_run(conv_fft_state *s, const fv_image *src, fv_image *dst, int stage,
                       cudaStream_t stream)
{
    if (!s || src->width != s->width || src->height != s->height)
        return fv_fail(FV_ERR_ARG, "conv: FFT state not made for %dx%d", src->width, src->height);
    FV_TRY(cufft_check(cufftSetStream(s->fwd, stream), "cufftSetStream"));
    if (s->have_inv) FV_TRY(cufft_check(cufftSetStream(s->inv, stream), "cufftSetStream"));
    /* the instantiation table: uint8 replicate keeps its clamping code, the rest border.h's */
    switch (s->type) {
    case FV_PIXEL_U16: return fft_run<uint16_t, false>(s, src, dst, stage, stream);
    case FV_PIXEL_F32: return fft_run<float, false>(s, src, dst, stage, stream);
    case FV_PIXEL_U8:
    default:
        return s->border.mode == FV_BORDER_REPLICATE
                   ? fft_run<uint8_t, true>(s, src, dst, stage, stream)
                   : fft_run<uint8_t, false>(s, src, dst, stage, stream);
    }
}

/* The pad, multiply and crop a run of (mode, type, border) launches. */
template <typename T, bool Rep> static int fft_kernels(int mode, fv_kernel_info *out, int max)
{
    const int block = PAD_BLOCK_X * PAD_BLOCK_Y;
    const fv_kernel_info all[2][3] = {
        {{"conv_pad_kernel", (const void *)conv_pad_kernel<T, Rep, float>, block, 0},
         {"conv_multiply_kernel", (const void *)conv_multiply_kernel, MUL_THREADS, 0},
         {"conv_crop_kernel", (const void *)conv_crop_kernel<T>, block, 0}},
        {{"conv_pad3_kernel", (const void *)conv_pad3_kernel<T, Rep>, block, 0},
         {"conv_multiply_kernel", (const void *)conv_multiply_kernel, MUL_THREADS, 0},
         {"conv_crop3_kernel", (const void *)conv_crop3_kernel<T>, block, 0}}};
    int n = 0;
    for (; n < 3 && n < max; n++) out[n] = all[mode == CONV_FFT_FAST][n];
    return n;
}

int conv_fft_kernels(int mode, fv_pixel_type type, fv_border border, fv_kernel_info *out, int max)
{
    switch (type) {
    case FV_PIXEL_U16: return fft_kernels<uint16_t, false>(mode, out, max);
    case FV_PIXEL_F32: return fft_kernels<float, false>(mode, out, max);
    case FV_PIXEL_U8:
    default:
        return border == FV_BORDER_REPLICATE ? fft_kernels<uint8_t, true>(mode, out, max)
                                             : fft_kernels<uint8_t, false>(mode, out, max);
    }
}
