/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv.cu: convolution with large kernels (up to 127x127), uint8, uint16 or float32
 * RGBA, any border (the `border` parameter), alpha kept, kernel from parameters (gaussian, disk,
 * motion, box, file; kernels/conv/conv.h), shown at any stage (output, kernel, spectra).
 *
 * Variants, one lesson each (all run every type and border except where said):
 *   direct       one thread per pixel, every tap from global memory (weights read uniformly)
 *   direct_smem  a 32x32 tile of outputs stages its source rows in shared memory, a band of 16
 *                kernel rows at a time (7 for uint16); each thread makes 4 outputs in a column,
 *                and each row of the kernel is walked only between its first and last non-zero
 *                weight; uint8 and uint16 (a float32 tile does not fit)
 *   fft          cuFFT per channel: pad, R2C, multiply, C2R (kernels/conv/conv_fft.cu)
 *   fft_fast     the three channels in one batched plan, conversions fused into the passes
 *   auto         direct_smem (float32: direct) or fft_fast by a cost model (CONV_AUTO_* below)
 *   npp          NVIDIA NPP's nppiFilterBorder_8u_C4R with our integer weights (kernels/conv/conv_npp.c);
 *                16u and 32f with them as floats; replicate only
 * The kernels are templated on the pixel type (conv_pixel.cuh) and on Rep: uint8 with the
 * replicate border clamps its coordinates as it always did; every other case reads through
 * fv_border_index (conv_launch's instantiation table). Direct variants sum exact integers for
 * uint8 (< 2^24) and uint16 (< 2^32) and round as the reference: tolerance 0; float32 sums in
 * float, within 2e-4 of the double reference. The FFT variants compute in float32 for every
 * type: at most 1 level where an exact sum lies within the float error of a rounding boundary,
 * float32 within 2e-4 (conv_fft_tolerance; docs/design/conv.md). The kernel stage is exact
 * integers; the spectrum stages are computed in double by every variant (one shared path,
 * conv_fft.cu) and by the reference, and agree to the level. All checked by
 * tests/gpu/test_filters.c against conv_ref. Rows need only 4-byte alignment.
 * ------------------------------------------------------------------------------------------------ */
#include "conv.h"
#include "conv_gpu.h"
#include "conv_npp.h"
#include "conv_pixel.cuh"
#include "cuda_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define DIRECT_BLOCK_X 32 /* direct and the kernel stage: 32x8 threads, one pixel each */
#define DIRECT_BLOCK_Y 8
#define SMEM_BLOCK_X   32 /* direct_smem: 32x8 threads ... */
#define SMEM_BLOCK_Y   8
#define SMEM_ROWS      4 /* ... each making 4 outputs in a column: a 32x32 tile */
#define SMEM_TILE_H    (SMEM_BLOCK_Y * SMEM_ROWS)

/* auto: a cost model of direct_smem and fft_fast, its coefficients below fitted on an H200 to the
 * bench's sweep of box kernels 9x9 .. 17x17 at 512x512 .. 9984x6400 and 127x127 at 3840x2160
 * (see docs/perf/conv.md): direct_smem a time per non-zero tap and pixel plus a fixed one; fft_fast
 * a time per padded point and log2(P Q) plus a fixed one. The FFT's cost per point varies with the
 * padded lengths (powers of two run faster), so where the model's two estimates are within
 * CONV_AUTO_CLOSE_CALL of each other, auto times both on this GPU when its state is made (blank
 * images, one warm-up and three timed runs each, the faster of the three) and keeps the faster:
 * the crossover as measured on the GPU it runs on, not on the one the model was fitted on. */
#define CONV_AUTO_DIRECT_PS_PER_TAP_PIXEL 0.48   /* direct_smem, per non-zero tap and pixel */
#define CONV_AUTO_DIRECT_FIXED_PS         8.0e6  /* direct_smem's launch and tail: 8 us */
#define CONV_AUTO_FFT_PS_PER_POINT_LOG2   3.2    /* fft_fast, per padded point and log2(P Q) */
#define CONV_AUTO_FFT_FIXED_PS            23.0e6 /* fft_fast's seven launches: 23 us */
#define CONV_AUTO_CLOSE_CALL              2.0    /* estimates within 2x: measure both */
/* Not fitted yet: uint16's direct_smem sums twice the bytes in bands of 7 kernel rows instead of
 * 16; float32's direct candidate is `direct` (16-byte pixels do not fit direct_smem's tile), each
 * tap from the caches. The close-call measurement decides where these guesses matter. */
#define CONV_AUTO_DIRECT_U16_FACTOR 1.5
#define CONV_AUTO_DIRECT_F32_FACTOR 4.0

typedef struct conv_state {
    int variant; /* what runs: V_AUTO resolved to V_SMEM (V_DIRECT for float32) or V_FFT_FAST */
    int stage;
    fv_pixel_type type;
    conv_border border;
    int kw, kh, ax, ay; /* ax = kw - 1 - cx: the left reach of the flipped kernel */
    int32_t wmax;
    int32_t *weights;    /* device, flipped: wf(i, j) = K(kh-1-i, kw-1-j), a correlation */
    int2 *spans;         /* device: per flipped row, its first and last non-zero column */
    conv_fft_state *fft; /* fft, fft_fast output; every variant's spectrum stages */
    float auto_ms[2];    /* auto, where it measured: direct_smem's and fft_fast's ms */
} conv_state;

/* ---- direct: global memory ------------------------------------------------------------------ */
/* Rep: the replicate border by clamping (uint8's code as it always was); otherwise
 * fv_border_index and the constant. */
template <typename T, bool Rep>
static __global__ void conv_direct_kernel(fv_image src, fv_image dst,
                                          const int32_t *__restrict__ wf, int kw, int kh, int ax,
                                          int ay, conv_edge<T> e)
{
    typedef conv_px<T> px_t;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    typename px_t::acc acc[3] = {0, 0, 0};
    for (int i = 0; i < kh; i++) {
        const int yy = Rep ? conv_clamp(y + i - ay, src.height - 1)
                           : fv_border_index(y + i - ay, src.height, e.mode);
        for (int j = 0; j < kw; j++) {
            const int xx = Rep ? conv_clamp(x + j - ax, src.width - 1)
                               : fv_border_index(x + j - ax, src.width, e.mode);
            px_t::mac(acc, __ldg(wf + i * kw + j),
                      !Rep && (xx < 0 || yy < 0) ? e.cval : px_t::load(src, xx, yy));
        }
    }
    px_t::store_sums(dst, x, y, acc, px_t::load(src, x, y));
}

/* ---- direct_smem: a shared tile, a band of kernel rows at a time ----------------------------- */
template <typename T> static size_t smem_bytes(int kw, int kh)
{
    const int band = kh < conv_px<T>::smem_band ? kh : conv_px<T>::smem_band;
    return sizeof(typename conv_px<T>::word) * (size_t)(SMEM_TILE_H + band - 1) *
           (size_t)(SMEM_BLOCK_X + kw - 1);
}

template <typename T, bool Rep>
static __global__ void __launch_bounds__(SMEM_BLOCK_X *SMEM_BLOCK_Y)
    conv_smem_kernel(fv_image src, fv_image dst, const int32_t *__restrict__ wf,
                     const int2 *__restrict__ spans, int kw, int kh, int ax, int ay, conv_edge<T> e)
{
    typedef conv_px<T> px_t;
    typedef typename px_t::word word;
    constexpr int band_max = px_t::smem_band;
    extern __shared__ __align__(16) unsigned char tile_bytes[];
    word *tile = reinterpret_cast<word *>(tile_bytes);
    const int tw = SMEM_BLOCK_X + kw - 1; /* +kw-1: the kernel's reach left and right */
    const int x0 = blockIdx.x * SMEM_BLOCK_X, y0 = blockIdx.y * SMEM_TILE_H;
    const int tx = threadIdx.x, ty = threadIdx.y, oy = ty * SMEM_ROWS;
    /* threads past the image's right or bottom edge load the tile with the others but sum nothing
     * (on a small image most of a block; under racecheck, whose cost grows with every shared
     * memory read, a 1x1 image cost a block's worth of 127x127 sums) */
    const bool sums = x0 + tx < src.width && y0 + oy < src.height;
    typename px_t::acc acc[SMEM_ROWS][3];
#pragma unroll
    for (int r = 0; r < SMEM_ROWS; r++) acc[r][0] = acc[r][1] = acc[r][2] = 0;
    for (int i0 = 0; i0 < kh; i0 += band_max) {
        const int band = min(band_max, kh - i0), th = SMEM_TILE_H + band - 1;
        if (i0) __syncthreads(); /* everyone is done with the previous band */
        for (int sy = ty; sy < th; sy += SMEM_BLOCK_Y) {
            const int yy = Rep ? conv_clamp(y0 + i0 + sy - ay, src.height - 1)
                               : fv_border_index(y0 + i0 + sy - ay, src.height, e.mode);
            for (int sx = tx; sx < tw; sx += SMEM_BLOCK_X) {
                const int xx = Rep ? conv_clamp(x0 + sx - ax, src.width - 1)
                                   : fv_border_index(x0 + sx - ax, src.width, e.mode);
                tile[sy * tw + sx] = !Rep && (xx < 0 || yy < 0) ? e.cval : px_t::load(src, xx, yy);
            }
        }
        __syncthreads();
        for (int i = 0; sums && i < band; i++) {
            const int2 span = spans[i0 + i];
            const int32_t *wrow = wf + (i0 + i) * kw;
            const word *trow = tile + (oy + i) * tw + tx;
            for (int j = span.x; j <= span.y; j++) {
                const int32_t w = wrow[j];
#pragma unroll
                for (int r = 0; r < SMEM_ROWS; r++) px_t::mac(acc[r], w, trow[r * tw + j]);
            }
        }
    }
    const int x = x0 + tx;
    if (!sums) return;
#pragma unroll
    for (int r = 0; r < SMEM_ROWS; r++) {
        const int y = y0 + oy + r;
        if (y < src.height) px_t::store_sums(dst, x, y, acc[r], px_t::load(src, x, y));
    }
}

/* ---- the kernel stage ---------------------------------------------------------------------- */
template <typename T>
static __global__ void conv_kernel_stage_kernel(fv_image dst, const int32_t *__restrict__ wf,
                                                int kw, int kh, int32_t wmax)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    /* wf is flipped: K's tap t is wf's kw * kh - 1 - t */
    const int tap = conv_kernel_tap_at(x, y, dst.width, dst.height, kw, kh);
    const uint32_t g = tap < 0 ? 0u : conv_kernel_level(wf[kw * kh - 1 - tap], wmax);
    for (int c = 0; c < 3; c++) conv_px<T>::store_display(dst, x, y, c, g);
    conv_px<T>::store_display(dst, x, y, 3, 255);
}

/* ---- state ---------------------------------------------------------------------------------- */
/* The name of the variant whose id is `id` (what auto resolved to). */
static const char *variant_name(int id)
{
    switch (id) {
    case V_DIRECT: return CONV_NAME_DIRECT;
    case V_SMEM: return CONV_NAME_SMEM;
    case V_FFT: return CONV_NAME_FFT;
    case V_FFT_FAST: return CONV_NAME_FFT_FAST;
    default: return CONV_NAME_AUTO;
    }
}

/* auto's model: the variant it expects to be faster for kernel k on a width x height image, and
 * whether the two estimates are close enough to be measured instead (auto_measure) */
static int auto_pick(const conv_kernel *k, int width, int height, fv_pixel_type type,
                     int *close_call)
{
    int P = 0, Q = 0;
    conv_fft_grid(k, width, height, &P, &Q);
    const double points = (double)P * Q;
    const double per_tap =
        CONV_AUTO_DIRECT_PS_PER_TAP_PIXEL * (type == FV_PIXEL_U8    ? 1.0
                                             : type == FV_PIXEL_U16 ? CONV_AUTO_DIRECT_U16_FACTOR
                                                                    : CONV_AUTO_DIRECT_F32_FACTOR);
    const double direct = per_tap * k->taps * (double)width * height + CONV_AUTO_DIRECT_FIXED_PS;
    const double fft =
        CONV_AUTO_FFT_PS_PER_POINT_LOG2 * points * log2(points) + CONV_AUTO_FFT_FIXED_PS;
    if (close_call)
        *close_call = direct < CONV_AUTO_CLOSE_CALL * fft && fft < CONV_AUTO_CLOSE_CALL * direct;
    return direct > fft ? V_FFT_FAST : (type == FV_PIXEL_F32 ? V_DIRECT : V_SMEM);
}

/* What a variant runs for these parameters: the FFT mode (or -1: none) and the resolved variant. */
static int fft_mode_of(int variant, int stage)
{
    if (stage >= CONV_SPECTRUM_IMAGE) return CONV_FFT_VIEW;
    if (stage != CONV_OUTPUT) return -1;
    return variant == V_FFT ? CONV_FFT_PLAIN : (variant == V_FFT_FAST ? CONV_FFT_FAST : -1);
}

size_t conv_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                        int height)
{
    (void)p;
    const conv_config *c = (const conv_config *)config;
    const conv_kernel *k = &c->kernel;
    int variant = v->id, close_call = 0;
    if (variant == V_AUTO) variant = auto_pick(k, width, height, c->type, &close_call);
    const int measures = close_call && c->stage == CONV_OUTPUT;
    if (measures) variant = V_FFT_FAST; /* the most it holds, while auto measures */
    const int mode = fft_mode_of(variant, c->stage);
    size_t bytes =
        sizeof(int32_t) * (size_t)k->width * k->height + sizeof(int2) * (size_t)k->height;
    if (mode >= 0) bytes += conv_fft_state_bytes(k, width, height, mode);
    if (measures) /* its two images */
        bytes += 2 * 4 * fv_pixel_type_bytes(c->type) * (size_t)width * height;
    return bytes;
}

void conv_state_destroy(const fv_variant *v, void *state)
{
    conv_state *s = (conv_state *)state;
    if (!s) return;
    cudaFree(s->weights);
    cudaFree(s->spans);
    conv_fft_state_destroy(s->fft);
    free(s);
}

/* The direct sums of type T; Rep: the replicate border by clamping. direct_smem is instantiated
 * for the integer types only (float32 pixels do not fit its tile; auto takes direct instead). */
template <typename T, bool Rep>
static void launch_sums(const conv_state *s, const fv_image *src, fv_image *dst,
                        cudaStream_t stream)
{
    const conv_edge<T> e = conv_edge_of<T>(s->border);
    if constexpr (conv_px<T>::smem_band > 0) {
        if (s->variant == V_SMEM) {
            const dim3 sblock(SMEM_BLOCK_X, SMEM_BLOCK_Y);
            const dim3 sgrid((src->width + SMEM_BLOCK_X - 1) / SMEM_BLOCK_X,
                             (src->height + SMEM_TILE_H - 1) / SMEM_TILE_H);
            conv_smem_kernel<T, Rep><<<sgrid, sblock, smem_bytes<T>(s->kw, s->kh), stream>>>(
                *src, *dst, s->weights, s->spans, s->kw, s->kh, s->ax, s->ay, e);
            return;
        }
    }
    const dim3 block(DIRECT_BLOCK_X, DIRECT_BLOCK_Y);
    const dim3 grid((src->width + DIRECT_BLOCK_X - 1) / DIRECT_BLOCK_X,
                    (src->height + DIRECT_BLOCK_Y - 1) / DIRECT_BLOCK_Y);
    conv_direct_kernel<T, Rep>
        <<<grid, block, 0, stream>>>(*src, *dst, s->weights, s->kw, s->kh, s->ax, s->ay, e);
}

/* what the state's variant launches for one run */
static fv_status conv_launch(const conv_state *s, const fv_image *src, fv_image *dst,
                             cudaStream_t stream)
{
    const dim3 block(DIRECT_BLOCK_X, DIRECT_BLOCK_Y);
    const dim3 grid((src->width + DIRECT_BLOCK_X - 1) / DIRECT_BLOCK_X,
                    (src->height + DIRECT_BLOCK_Y - 1) / DIRECT_BLOCK_Y);
    if (s->stage == CONV_KERNEL) {
        if (s->type == FV_PIXEL_U16)
            conv_kernel_stage_kernel<uint16_t>
                <<<grid, block, 0, stream>>>(*dst, s->weights, s->kw, s->kh, s->wmax);
        else if (s->type == FV_PIXEL_F32)
            conv_kernel_stage_kernel<float>
                <<<grid, block, 0, stream>>>(*dst, s->weights, s->kw, s->kh, s->wmax);
        else
            conv_kernel_stage_kernel<uint8_t>
                <<<grid, block, 0, stream>>>(*dst, s->weights, s->kw, s->kh, s->wmax);
        FV_CUDA_CHECK(cudaGetLastError());
        return FV_OK;
    }
    if (s->fft) return conv_fft_run(s->fft, src, dst, s->stage, stream);
    /* the instantiation table: uint8 replicate keeps its clamping code, the rest border.h's */
    if (s->type == FV_PIXEL_U16)
        launch_sums<uint16_t, false>(s, src, dst, stream);
    else if (s->type == FV_PIXEL_F32)
        launch_sums<float, false>(s, src, dst, stream);
    else if (s->border.mode == FV_BORDER_REPLICATE)
        launch_sums<uint8_t, true>(s, src, dst, stream);
    else
        launch_sums<uint8_t, false>(s, src, dst, stream);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

/* auto, where its model calls it close: both candidates timed on this GPU on blank images of the
 * state's size (one warm-up, then the fastest of three runs each, CUDA events on the default
 * stream); the faster is kept, the other's FFT state freed. Kernel launches only: the images are
 * this function's, allocated and freed here, when the state is made. */
static fv_status auto_measure(conv_state *s, const conv_kernel *k, int width, int height)
{
    const int direct = s->type == FV_PIXEL_F32 ? V_DIRECT : V_SMEM;
    fv_image src = {}, dst = {};
    conv_fft_state *fft = NULL;
    cudaEvent_t begin = NULL, end = NULL;
    fv_status st = fv_device_image_alloc_as(&src, width, height, s->type, 4);
    if (st == FV_OK) st = fv_device_image_alloc_as(&dst, width, height, s->type, 4);
    if (st == FV_OK && cudaMemset(src.data, 0, src.pitch * (size_t)height) != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "conv/auto: cannot clear the image to time its candidates");
    if (st != FV_OK)
        st = fv_fail(st, "conv/auto: cannot allocate two %dx%d images to time its candidates",
                     width, height);
    if (st == FV_OK &&
        (cudaEventCreate(&begin) != cudaSuccess || cudaEventCreate(&end) != cudaSuccess))
        st = fv_fail(FV_ERR_CUDA, "conv/auto: cannot create CUDA events");
    if (st == FV_OK)
        st = conv_fft_state_create(&fft, k, width, height, CONV_FFT_FAST, s->type, s->border);
    float best[2] = {0, 0};
    for (int which = 0; which < 2 && st == FV_OK; which++) {
        s->variant = which ? V_FFT_FAST : direct;
        s->fft = which ? fft : NULL;
        for (int run = 0; run < 4 && st == FV_OK; run++) {
            float ms = 0;
            cudaEventRecord(begin, 0);
            st = conv_launch(s, &src, &dst, 0);
            cudaEventRecord(end, 0);
            if (st == FV_OK && (cudaEventSynchronize(end) != cudaSuccess ||
                                cudaEventElapsedTime(&ms, begin, end) != cudaSuccess))
                st = fv_fail(FV_ERR_CUDA, "conv/auto: timing its candidates failed: %s",
                             cudaGetErrorString(cudaGetLastError()));
            if (run > 0 && (run == 1 || ms < best[which])) best[which] = ms;
        }
    }
    s->fft = NULL;
    if (st == FV_OK) {
        s->variant = best[1] < best[0] ? V_FFT_FAST : direct;
        s->auto_ms[0] = best[0];
        s->auto_ms[1] = best[1];
        if (s->variant == V_FFT_FAST) s->fft = fft, fft = NULL;
    }
    conv_fft_state_destroy(fft);
    if (begin) cudaEventDestroy(begin);
    if (end) cudaEventDestroy(end);
    fv_device_image_free(&src);
    fv_device_image_free(&dst);
    return st;
}

fv_status conv_state_create(const fv_variant *v, void **state, const fv_params *p,
                            const void *config, int width, int height)
{
    (void)p;
    const conv_config *c = (const conv_config *)config;
    const conv_kernel *k = &c->kernel; /* built once, by conv_config_make */
    const int variant = v->id;
    conv_state *s = (conv_state *)calloc(1, sizeof *s);
    const int n = k->width * k->height;
    int32_t *flipped = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    int2 *spans = (int2 *)malloc(sizeof(int2) * (size_t)k->height);
    fv_status st =
        s && flipped && spans ? FV_OK : fv_fail(FV_ERR_MEMORY, "conv: out of host memory");
    int close_call = 0; /* auto: its model cannot tell, so it measures (auto_measure) */
    if (st == FV_OK) {
        s->variant =
            variant == V_AUTO ? auto_pick(k, width, height, c->type, &close_call) : variant;
        s->stage = c->stage;
        s->type = c->type;
        s->border = c->border;
        s->kw = k->width;
        s->kh = k->height;
        s->ax = k->width - 1 - k->cx;
        s->ay = k->height - 1 - k->cy;
        for (int t = 0; t < n; t++) {
            flipped[t] = k->w[n - 1 - t];
            if (flipped[t] > s->wmax) s->wmax = flipped[t];
        }
        for (int i = 0; i < k->height; i++) {
            int first = k->width, last = -1;
            for (int j = 0; j < k->width; j++)
                if (flipped[i * k->width + j]) {
                    if (first > j) first = j;
                    last = j;
                }
            spans[i] = make_int2(first, last); /* first > last: nothing in this row */
        }
        if (cudaMalloc((void **)&s->weights, sizeof(int32_t) * (size_t)n) != cudaSuccess ||
            cudaMalloc((void **)&s->spans, sizeof(int2) * (size_t)k->height) != cudaSuccess) {
            cudaGetLastError();
            st = fv_fail(FV_ERR_MEMORY, "conv: cannot allocate the kernel's weights on the device");
        }
    }
    if (st == FV_OK && (cudaMemcpy(s->weights, flipped, sizeof(int32_t) * (size_t)n,
                                   cudaMemcpyHostToDevice) != cudaSuccess ||
                        cudaMemcpy(s->spans, spans, sizeof(int2) * (size_t)k->height,
                                   cudaMemcpyHostToDevice) != cudaSuccess))
        st = fv_fail(FV_ERR_CUDA, "conv: cannot upload the kernel's weights");
    if (st == FV_OK && close_call && s->stage == CONV_OUTPUT) {
        st = auto_measure(s, k, width, height);
    } else {
        const int mode = st == FV_OK ? fft_mode_of(s->variant, s->stage) : -1;
        if (st == FV_OK && mode >= 0)
            st = conv_fft_state_create(&s->fft, k, width, height, mode, s->type, s->border);
    }
    free(flipped);
    free(spans);
    if (st != FV_OK) {
        conv_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

fv_status conv_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                   void *state, cudaStream_t stream)
{
    (void)v;
    (void)config; /* the state was made from it */
    return conv_launch((const conv_state *)state, src, dst, stream);
}

/* the bench's note: what auto chose, and the times it chose by where it measured */
int conv_last_run_text(const fv_variant *v, const void *state, char *text, size_t size)
{
    const conv_state *s = (const conv_state *)state;
    if (s->stage != CONV_OUTPUT) return 0;
    if (s->auto_ms[0] > 0)
        snprintf(text, size, "auto: %s (measured when made: %s %.3f ms, fft_fast %.3f ms)",
                 variant_name(s->variant), s->type == FV_PIXEL_F32 ? CONV_NAME_DIRECT : CONV_NAME_SMEM,
                 s->auto_ms[0], s->auto_ms[1]);
    else
        snprintf(text, size, "auto: %s (by the cost model: the other clearly slower)",
                 variant_name(s->variant));
    return 1;
}

/* The direct instantiation a run with c launches (the table of conv_launch), with its name. */
static const void *direct_kernel_of(const conv_config *c, const char **name)
{
    const int replicate = c->border.mode == FV_BORDER_REPLICATE;
    switch (c->type) {
    case FV_PIXEL_U16:
        *name = "conv_direct_kernel<uint16>";
        return (const void *)conv_direct_kernel<uint16_t, false>;
    case FV_PIXEL_F32:
        *name = "conv_direct_kernel<float>";
        return (const void *)conv_direct_kernel<float, false>;
    case FV_PIXEL_U8:
    default: break;
    }
    *name = replicate ? "conv_direct_kernel" : "conv_direct_kernel<border>";
    return replicate ? (const void *)conv_direct_kernel<uint8_t, true>
                     : (const void *)conv_direct_kernel<uint8_t, false>;
}

static const void *smem_kernel_of(const conv_config *c, const char **name, size_t *bytes)
{
    const int replicate = c->border.mode == FV_BORDER_REPLICATE;
    const int kw = c->kernel.width, kh = c->kernel.height;
    if (c->type == FV_PIXEL_U16) {
        *name = "conv_smem_kernel<uint16>";
        *bytes = smem_bytes<uint16_t>(kw, kh);
        return (const void *)conv_smem_kernel<uint16_t, false>;
    }
    *name = replicate ? "conv_smem_kernel" : "conv_smem_kernel<border>";
    *bytes = smem_bytes<uint8_t>(kw, kh);
    return replicate ? (const void *)conv_smem_kernel<uint8_t, true>
                     : (const void *)conv_smem_kernel<uint8_t, false>;
}

int conv_direct_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max)
{
    (void)v, (void)p;
    if (max < 1) return 0;
    const char *name = NULL;
    const void *func = direct_kernel_of((const conv_config *)config, &name);
    out[0] = {name, func, DIRECT_BLOCK_X * DIRECT_BLOCK_Y, 0};
    return 1;
}

int conv_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                      fv_kernel_info *out, int max)
{
    const conv_config *c = (const conv_config *)config;
    if (max < 1) return 0;
    if (c->type == FV_PIXEL_F32)
        return conv_direct_kernels(v, p, config, out, max); /* auto's float */
    const char *name = NULL;
    size_t bytes = 0;
    const void *func = smem_kernel_of(c, &name, &bytes);
    out[0] = {name, func, SMEM_BLOCK_X * SMEM_BLOCK_Y, bytes};
    return 1;
}

int conv_fft_plain_kernels(const fv_variant *v, const fv_params *p, const void *config,
                           fv_kernel_info *out, int max)
{
    (void)v, (void)p;
    const conv_config *c = (const conv_config *)config;
    return conv_fft_kernels(CONV_FFT_PLAIN, c->type, c->border.mode, out, max);
}

int conv_fft_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                          fv_kernel_info *out, int max)
{
    (void)v, (void)p;
    const conv_config *c = (const conv_config *)config;
    return conv_fft_kernels(CONV_FFT_FAST, c->type, c->border.mode, out, max);
}

int conv_auto_kernels(const fv_variant *v, const fv_params *p, const void *config,
                      fv_kernel_info *out, int max)
{
    const conv_config *c = (const conv_config *)config;
    const int n = conv_smem_kernels(v, p, config, out, max);
    return n + conv_fft_kernels(CONV_FFT_FAST, c->type, c->border.mode, out + n, max - n);
}
