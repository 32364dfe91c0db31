/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv.cu: convolution with large kernels (up to 127x127), RGBA8, replicated borders,
 * alpha kept, kernel from parameters (gaussian, disk, motion, box, file; kernels/conv/conv.h), shown
 * at any stage (output, kernel, spectra).
 *
 * Variants, one lesson each:
 *   direct       one thread per pixel, every tap from global memory (weights read uniformly)
 *   direct_smem  a 32x32 tile of outputs stages its source rows in shared memory, a band of 16
 *                kernel rows at a time; each thread makes 4 outputs in a column, and each row of
 *                the kernel is walked only between its first and last non-zero weight
 *   fft          cuFFT per channel: pad, R2C, multiply, C2R (kernels/conv/conv_fft.cu)
 *   fft_fast     the three channels in one batched plan, conversions fused into the passes
 *   auto         direct_smem or fft_fast by a cost model of both (CONV_AUTO_* below)
 *   npp          NVIDIA NPP's nppiFilterBorder_8u_C4R with our integer weights (kernels/conv/conv_npp.c)
 * Direct variants sum exact integers (< 2^24) and round as the reference: tolerance 0. The FFT
 * variants compute in float: at most 1 level of 255 where an exact sum lies within the float
 * error of a rounding boundary (conv_fft_tolerance: 1 level, at most 3 % of the pixels or one pixel;
 * what the test set shows: docs/perf/conv.md). The kernel stage is exact integers; the
 * spectrum stages are computed in double by every variant (one shared path, conv_fft.cu) and by
 * the reference, and agree to the byte. All checked by tests/gpu/test_filters.c against conv_ref.
 * Rows need only 4-byte alignment.
 * ------------------------------------------------------------------------------------------------ */
#include "conv.h"
#include "conv_npp.h"
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
#define SMEM_BAND      16 /* kernel rows staged at a time: (32 + 15) x (32 + kw - 1) pixels */

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

/* the variants' ids (fv_variant.id): which way conv_state_create makes them run; 0 is no variant */
enum { V_DIRECT = 1, V_SMEM, V_FFT, V_FFT_FAST, V_AUTO };

typedef struct conv_state {
    int variant; /* what runs: V_AUTO resolved to V_SMEM or V_FFT_FAST */
    int stage;
    int kw, kh, ax, ay; /* ax = kw - 1 - cx: the left reach of the flipped kernel */
    int32_t wmax;
    int32_t *weights;    /* device, flipped: wf(i, j) = K(kh-1-i, kw-1-j), a correlation */
    int2 *spans;         /* device: per flipped row, its first and last non-zero column */
    conv_fft_state *fft; /* fft, fft_fast output; every variant's spectrum stages */
    float auto_ms[2];    /* auto, where it measured: direct_smem's and fft_fast's ms */
} conv_state;

/* ---- direct: global memory ------------------------------------------------------------------ */
__device__ __forceinline__ uint32_t load_px(const fv_image &img, int x, int y)
{
    return reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch)[x];
}

__device__ __forceinline__ void mac(int32_t acc[3], int32_t w, uint32_t px)
{
    acc[0] += w * (int32_t)(px & 0xffu);
    acc[1] += w * (int32_t)((px >> 8) & 0xffu);
    acc[2] += w * (int32_t)((px >> 16) & 0xffu);
}

__device__ __forceinline__ uint32_t pack(const int32_t acc[3], uint32_t alpha_of)
{
    return conv_round(acc[0]) | conv_round(acc[1]) << 8 | conv_round(acc[2]) << 16 |
           (alpha_of & 0xff000000u);
}

static __global__ void conv_direct_kernel(fv_image src, fv_image dst,
                                          const int32_t *__restrict__ wf, int kw, int kh, int ax,
                                          int ay)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    int32_t acc[3] = {0, 0, 0};
    for (int i = 0; i < kh; i++) {
        const int yy = conv_clamp(y + i - ay, src.height - 1);
        for (int j = 0; j < kw; j++)
            mac(acc, __ldg(wf + i * kw + j),
                load_px(src, conv_clamp(x + j - ax, src.width - 1), yy));
    }
    reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch)[x] =
        pack(acc, load_px(src, x, y));
}

/* ---- direct_smem: a shared tile, a band of kernel rows at a time ----------------------------- */
static size_t smem_bytes(int kw, int kh)
{
    const int band = kh < SMEM_BAND ? kh : SMEM_BAND;
    return sizeof(uint32_t) * (size_t)(SMEM_TILE_H + band - 1) * (size_t)(SMEM_BLOCK_X + kw - 1);
}

static __global__ void __launch_bounds__(SMEM_BLOCK_X *SMEM_BLOCK_Y)
    conv_smem_kernel(fv_image src, fv_image dst, const int32_t *__restrict__ wf,
                     const int2 *__restrict__ spans, int kw, int kh, int ax, int ay)
{
    extern __shared__ uint32_t tile[];
    const int tw = SMEM_BLOCK_X + kw - 1; /* +kw-1: the kernel's reach left and right */
    const int x0 = blockIdx.x * SMEM_BLOCK_X, y0 = blockIdx.y * SMEM_TILE_H;
    const int tx = threadIdx.x, ty = threadIdx.y, oy = ty * SMEM_ROWS;
    /* threads past the image's right or bottom edge load the tile with the others but sum nothing
     * (on a small image most of a block; under racecheck, whose cost grows with every shared
     * memory read, a 1x1 image cost a block's worth of 127x127 sums) */
    const bool sums = x0 + tx < src.width && y0 + oy < src.height;
    int32_t acc[SMEM_ROWS][3];
#pragma unroll
    for (int r = 0; r < SMEM_ROWS; r++) acc[r][0] = acc[r][1] = acc[r][2] = 0;
    for (int i0 = 0; i0 < kh; i0 += SMEM_BAND) {
        const int band = min(SMEM_BAND, kh - i0), th = SMEM_TILE_H + band - 1;
        if (i0) __syncthreads(); /* everyone is done with the previous band */
        for (int sy = ty; sy < th; sy += SMEM_BLOCK_Y) {
            const int yy = conv_clamp(y0 + i0 + sy - ay, src.height - 1);
            for (int sx = tx; sx < tw; sx += SMEM_BLOCK_X)
                tile[sy * tw + sx] = load_px(src, conv_clamp(x0 + sx - ax, src.width - 1), yy);
        }
        __syncthreads();
        for (int i = 0; sums && i < band; i++) {
            const int2 span = spans[i0 + i];
            const int32_t *wrow = wf + (i0 + i) * kw;
            const uint32_t *trow = tile + (oy + i) * tw + tx;
            for (int j = span.x; j <= span.y; j++) {
                const int32_t w = wrow[j];
#pragma unroll
                for (int r = 0; r < SMEM_ROWS; r++) mac(acc[r], w, trow[r * tw + j]);
            }
        }
    }
    const int x = x0 + tx;
    if (!sums) return;
#pragma unroll
    for (int r = 0; r < SMEM_ROWS; r++) {
        const int y = y0 + oy + r;
        if (y < src.height)
            reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch)[x] =
                pack(acc[r], load_px(src, x, y));
    }
}

/* ---- the kernel stage ---------------------------------------------------------------------- */
static __global__ void conv_kernel_stage_kernel(fv_image dst, const int32_t *__restrict__ wf,
                                                int kw, int kh, int32_t wmax)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    /* wf is flipped: K's tap t is wf's kw * kh - 1 - t */
    const int tap = conv_kernel_tap_at(x, y, dst.width, dst.height, kw, kh);
    const uint32_t g = tap < 0 ? 0u : conv_kernel_level(wf[kw * kh - 1 - tap], wmax);
    reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch)[x] =
        g | g << 8 | g << 16 | 0xff000000u;
}

/* ---- state ---------------------------------------------------------------------------------- */
extern "C" const fv_filter fv_filter_conv;

/* The name of the variant whose id is `id` (what auto resolved to), from the table itself. */
static const char *variant_name(int id)
{
    for (int i = 0; i < fv_filter_conv.n_variants; i++)
        if (fv_filter_conv.variants[i].id == id) return fv_filter_conv.variants[i].name;
    return "?";
}

/* auto's model: the variant it expects to be faster for kernel k on a width x height image, and
 * whether the two estimates are close enough to be measured instead (auto_measure) */
static int auto_pick(const conv_kernel *k, int width, int height, int *close_call)
{
    int P = 0, Q = 0;
    conv_fft_grid(k, width, height, &P, &Q);
    const double points = (double)P * Q;
    const double direct = CONV_AUTO_DIRECT_PS_PER_TAP_PIXEL * k->taps * (double)width * height +
                          CONV_AUTO_DIRECT_FIXED_PS;
    const double fft =
        CONV_AUTO_FFT_PS_PER_POINT_LOG2 * points * log2(points) + CONV_AUTO_FFT_FIXED_PS;
    if (close_call)
        *close_call = direct < CONV_AUTO_CLOSE_CALL * fft && fft < CONV_AUTO_CLOSE_CALL * direct;
    return direct <= fft ? V_SMEM : V_FFT_FAST;
}

/* What a variant runs for these parameters: the FFT mode (or -1: none) and the resolved variant. */
static int fft_mode_of(int variant, int stage)
{
    if (stage >= CONV_SPECTRUM_IMAGE) return CONV_FFT_VIEW;
    if (stage != CONV_OUTPUT) return -1;
    return variant == V_FFT ? CONV_FFT_PLAIN : (variant == V_FFT_FAST ? CONV_FFT_FAST : -1);
}

static fv_status make_kernel(const fv_params *p, const char *variant, conv_kernel **k)
{
    char who[32];
    snprintf(who, sizeof who, "conv/%s", variant);
    *k = (conv_kernel *)malloc(sizeof **k);
    if (!*k) return fv_fail(FV_ERR_MEMORY, "%s: out of host memory", who);
    fv_status st = conv_kernel_make(p, who, *k);
    if (st != FV_OK) {
        free(*k);
        *k = NULL;
    }
    return st;
}

static size_t conv_state_bytes(const fv_variant *v, const fv_params *p, int width, int height)
{
    int variant = v->id;
    conv_kernel *k = NULL;
    if (make_kernel(p, v->name, &k) != FV_OK) return 0; /* prepare refuses the parameters anyway */
    int close_call = 0;
    if (variant == V_AUTO) variant = auto_pick(k, width, height, &close_call);
    const int stage = conv_stage(p), measures = close_call && stage == CONV_OUTPUT;
    if (measures) variant = V_FFT_FAST; /* the most it holds, while auto measures */
    const int mode = fft_mode_of(variant, stage);
    size_t bytes =
        sizeof(int32_t) * (size_t)k->width * k->height + sizeof(int2) * (size_t)k->height;
    if (mode >= 0) bytes += conv_fft_state_bytes(k, width, height, mode);
    if (measures) bytes += 2 * sizeof(uint32_t) * (size_t)width * height; /* its two images */
    free(k);
    return bytes;
}

static void conv_state_destroy(const fv_variant *v, void *state)
{
    conv_state *s = (conv_state *)state;
    if (!s) return;
    cudaFree(s->weights);
    cudaFree(s->spans);
    conv_fft_state_destroy(s->fft);
    free(s);
}

/* what the state's variant launches for one run */
static fv_status conv_launch(const conv_state *s, const fv_image *src, fv_image *dst,
                             cudaStream_t stream)
{
    const dim3 block(DIRECT_BLOCK_X, DIRECT_BLOCK_Y);
    const dim3 grid((src->width + DIRECT_BLOCK_X - 1) / DIRECT_BLOCK_X,
                    (src->height + DIRECT_BLOCK_Y - 1) / DIRECT_BLOCK_Y);
    if (s->stage == CONV_KERNEL) {
        conv_kernel_stage_kernel<<<grid, block, 0, stream>>>(*dst, s->weights, s->kw, s->kh,
                                                             s->wmax);
        FV_CUDA_CHECK(cudaGetLastError());
        return FV_OK;
    }
    if (s->fft) return conv_fft_run(s->fft, src, dst, s->stage, stream);
    if (s->variant == V_DIRECT) {
        conv_direct_kernel<<<grid, block, 0, stream>>>(*src, *dst, s->weights, s->kw, s->kh, s->ax,
                                                       s->ay);
    } else {
        const dim3 sblock(SMEM_BLOCK_X, SMEM_BLOCK_Y);
        const dim3 sgrid((src->width + SMEM_BLOCK_X - 1) / SMEM_BLOCK_X,
                         (src->height + SMEM_TILE_H - 1) / SMEM_TILE_H);
        conv_smem_kernel<<<sgrid, sblock, smem_bytes(s->kw, s->kh), stream>>>(
            *src, *dst, s->weights, s->spans, s->kw, s->kh, s->ax, s->ay);
    }
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

/* auto, where its model calls it close: both candidates timed on this GPU on blank images of the
 * state's size (one warm-up, then the fastest of three runs each, CUDA events on the default
 * stream); the faster is kept, the other's FFT state freed. Kernel launches only: the images are
 * this function's, allocated and freed here, when the state is made. */
static fv_status auto_measure(conv_state *s, const conv_kernel *k, int width, int height)
{
    fv_image src = {NULL, width, height, 4 * (size_t)width}, dst = src;
    conv_fft_state *fft = NULL;
    cudaEvent_t begin = NULL, end = NULL;
    const size_t bytes = src.pitch * (size_t)height;
    fv_status st = FV_OK;
    if (cudaMalloc((void **)&src.data, bytes) != cudaSuccess ||
        cudaMalloc((void **)&dst.data, bytes) != cudaSuccess ||
        cudaMemset(src.data, 0, bytes) != cudaSuccess) {
        cudaGetLastError();
        st = fv_fail(FV_ERR_MEMORY,
                     "conv/auto: cannot allocate two %dx%d images to time its candidates", width,
                     height);
    }
    if (st == FV_OK &&
        (cudaEventCreate(&begin) != cudaSuccess || cudaEventCreate(&end) != cudaSuccess))
        st = fv_fail(FV_ERR_CUDA, "conv/auto: cannot create CUDA events");
    if (st == FV_OK) st = conv_fft_state_create(&fft, k, width, height, CONV_FFT_FAST);
    float best[2] = {0, 0};
    for (int which = 0; which < 2 && st == FV_OK; which++) {
        s->variant = which ? V_FFT_FAST : V_SMEM;
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
        s->variant = best[1] < best[0] ? V_FFT_FAST : V_SMEM;
        s->auto_ms[0] = best[0];
        s->auto_ms[1] = best[1];
        if (s->variant == V_FFT_FAST) s->fft = fft, fft = NULL;
    }
    conv_fft_state_destroy(fft);
    if (begin) cudaEventDestroy(begin);
    if (end) cudaEventDestroy(end);
    cudaFree(src.data);
    cudaFree(dst.data);
    return st;
}

static fv_status conv_state_create(const fv_variant *v, void **state, const fv_params *p, int width,
                                   int height)
{
    const int variant = v->id;
    conv_kernel *k = NULL;
    FV_TRY(make_kernel(p, v->name, &k));
    conv_state *s = (conv_state *)calloc(1, sizeof *s);
    const int n = k->width * k->height;
    int32_t *flipped = (int32_t *)malloc(sizeof(int32_t) * (size_t)n);
    int2 *spans = (int2 *)malloc(sizeof(int2) * (size_t)k->height);
    fv_status st =
        s && flipped && spans ? FV_OK : fv_fail(FV_ERR_MEMORY, "conv: out of host memory");
    int close_call = 0; /* auto: its model cannot tell, so it measures (auto_measure) */
    if (st == FV_OK) {
        s->variant = variant == V_AUTO ? auto_pick(k, width, height, &close_call) : variant;
        s->stage = conv_stage(p);
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
        if (st == FV_OK && mode >= 0) st = conv_fft_state_create(&s->fft, k, width, height, mode);
    }
    free(flipped);
    free(spans);
    free(k);
    if (st != FV_OK) {
        conv_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

static fv_status conv_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const fv_params *p, void *state, cudaStream_t stream)
{
    (void)v;
    (void)p; /* the state was made for p */
    return conv_launch((const conv_state *)state, src, dst, stream);
}

/* the bench's note: what auto chose, and the times it chose by where it measured */
static int conv_last_run_text(const fv_variant *v, const void *state, char *text, size_t size)
{
    const conv_state *s = (const conv_state *)state;
    if (s->stage != CONV_OUTPUT) return 0;
    if (s->auto_ms[0] > 0)
        snprintf(text, size, "auto: %s (measured when made: direct_smem %.3f ms, fft_fast %.3f ms)",
                 variant_name(s->variant), s->auto_ms[0], s->auto_ms[1]);
    else
        snprintf(text, size, "auto: %s (by the cost model: the other clearly slower)",
                 variant_name(s->variant));
    return 1;
}

/* The kernel size p asks for, for reporting kernels (which cannot fail): 127 where unknown. */
static void kernel_size_of(const fv_params *p, int *kw, int *kh)
{
    conv_kernel *k = NULL;
    *kw = *kh = FV_CONV_MAX_SIZE;
    if (make_kernel(p, "direct_smem", &k) == FV_OK) {
        *kw = k->width;
        *kh = k->height;
        free(k);
    }
}

static int conv_direct_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                               int max)
{
    (void)p;
    if (max < 1) return 0;
    out[0] = {"conv_direct_kernel", (const void *)conv_direct_kernel,
              DIRECT_BLOCK_X * DIRECT_BLOCK_Y, 0};
    return 1;
}

static int conv_smem_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out, int max)
{
    if (max < 1) return 0;
    int kw = 0, kh = 0;
    kernel_size_of(p, &kw, &kh);
    out[0] = {"conv_smem_kernel", (const void *)conv_smem_kernel, SMEM_BLOCK_X * SMEM_BLOCK_Y,
              smem_bytes(kw, kh)};
    return 1;
}

static int conv_fft_plain_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                  int max)
{
    (void)p;
    return conv_fft_kernels(CONV_FFT_PLAIN, out, max);
}

static int conv_fft_fast_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                 int max)
{
    (void)p;
    return conv_fft_kernels(CONV_FFT_FAST, out, max);
}

static int conv_auto_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out, int max)
{
    const int n = conv_smem_kernels(v, p, out, max);
    return n + conv_fft_kernels(CONV_FFT_FAST, out + n, max - n);
}

/* ---- the descriptor -------------------------------------------------------------------------- */
/* The float FFT's error is a small fraction of a level (docs/perf/conv.md), so only exact sums
 * within it of a rounding boundary (x.5) can come out 1 level off. */
static const fv_tolerance conv_fft_tolerance = {.max_abs = 1, .max_share = 0.03};

static const fv_variant conv_variants[] = {
    {.name = "direct",
     .summary = "one thread per pixel sums kw*kh taps from global memory: exact integer weights, "
                "the same bytes as the reference, cost grows with the kernel's area",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_direct_kernels,
     .id = V_DIRECT},
    {.name = "direct_smem",
     .summary = "a 32x32 tile of outputs stages its source in shared memory, 16 kernel rows at a "
                "time; 4 outputs per thread; each kernel row walked only where it is non-zero",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_smem_kernels,
     .id = V_SMEM},
    {.name = "fft",
     .summary =
         "cuFFT per channel: pad with replicated borders to a 2,3,5-smooth size, R2C, "
         "multiply by the kernel's spectrum (made once), C2R: cost independent of the kernel",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_fft_plain_kernels,
     .tolerance = &conv_fft_tolerance,
     .id = V_FFT},
    {.name = "fft_fast",
     .summary = "R, G and B in one batched cuFFT plan; padding, multiply and packing each one pass "
                "over all three channels (reads RGBA once, the kernel's spectrum once)",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_fft_fast_kernels,
     .tolerance = &conv_fft_tolerance,
     .id = V_FFT_FAST},
    {.name = "auto",
     .role = FV_ROLE_FASTEST,
     .summary =
         "direct_smem for small kernels, fft_fast for large ones, by a cost model of both "
         "(taps x pixels against padded points x log2), timing both on this GPU where it is close",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_auto_kernels,
     .last_run_text = conv_last_run_text,
     .tolerance = &conv_fft_tolerance,
     .id = V_AUTO},
    FV_VARIANT_NPP_CONV FV_VARIANT_CPU,
};

static const fv_param_desc conv_params[CONV_N_PARAMS] = {
    [CONV_STAGE] = {.name = "stage",
                    .help = "what to show: the output, the kernel, or a log-magnitude spectrum",
                    .type = FV_PARAM_CHOICE,
                    .def = CONV_OUTPUT,
                    .choices = conv_stage_names,
                    .n_choices = CONV_N_STAGES},
    [CONV_SHAPE] = {.name = "shape",
                    .help =
                        "the kernel: gaussian (sigma), disk (radius), motion (length, angle), box "
                        "(radius), file (--kernel-file)",
                    .type = FV_PARAM_CHOICE,
                    .def = CONV_GAUSSIAN,
                    .choices = conv_shape_names,
                    .n_choices = CONV_N_SHAPES},
    [CONV_SIGMA] = {.name = "sigma",
                    .help = "gaussian: standard deviation in pixels (radius ceil(3 sigma))",
                    .type = FV_PARAM_REAL,
                    .min = FV_CONV_MIN_SIGMA,
                    .max = FV_CONV_MAX_SIGMA,
                    .step = 0.5,
                    .def = 3,
                    .in_play_when = "shape=gaussian"},
    [CONV_RADIUS] = {.name = "radius",
                     .help = "disk and box: radius in pixels (the kernel is 2r+1 wide)",
                     .type = FV_PARAM_INT,
                     .min = 1,
                     .max = FV_CONV_MAX_RADIUS,
                     .step = 1,
                     .def = 8,
                     .in_play_when = "shape=disk|box"},
    [CONV_LENGTH] = {.name = "length",
                     .help = "motion: length of the streak in pixels",
                     .type = FV_PARAM_INT,
                     .min = 1,
                     .max = FV_CONV_MAX_LENGTH,
                     .step = 2,
                     .def = 31,
                     .in_play_when = "shape=motion"},
    [CONV_ANGLE] = {.name = "angle",
                    .help = "motion: direction in degrees, counter-clockwise from the right",
                    .type = FV_PARAM_REAL,
                    .min = 0,
                    .max = 180,
                    .step = 15,
                    .def = 0,
                    .in_play_when = "shape=motion"},
    [CONV_KERNEL_FILE] = {.name = "kernel-file",
                          .help = "file: the kernel, a grayscale image up to 127x127",
                          .type = FV_PARAM_IMAGE,
                          .max = FV_CONV_MAX_SIZE},
};

/* kernel sizes 3, 15, 63 and 127 of every shape, every stage; the first also on large images */
static const char *const conv_test_params[] = {
    "shape=disk radius=7",
    "shape=box radius=1",
    "shape=box radius=31",
    "shape=box radius=63",
    "shape=gaussian sigma=0.3",
    "shape=gaussian sigma=2.5",
    "shape=gaussian sigma=10",
    "shape=disk radius=1",
    "shape=disk radius=31",
    "shape=disk radius=63",
    "shape=motion length=3",
    "shape=motion length=15 angle=30",
    "shape=motion length=63 angle=100",
    "shape=motion length=127 angle=45",
    "shape=file",
    "stage=kernel shape=file",
    "stage=kernel shape=motion length=63 angle=60",
    "stage=spectrum_image shape=disk radius=7",
    "stage=spectrum_kernel shape=motion length=15 angle=30",
    "stage=spectrum_product shape=file",
    NULL};

static double conv_traffic(const fv_params *p, int width, int height)
{
    (void)p;
    return 8.0 * width *
           height; /* the image read once and written once; the FFT's own passes not counted */
}

extern "C" const fv_filter fv_filter_conv = {
    .name = "conv",
    .summary =
        "convolution with large kernels (up to 127x127): direct sums or cuFFT, with the kernel "
        "and the spectra as stages",
    .params = conv_params,
    .n_params = CONV_N_PARAMS,
    .ref = conv_ref,
    .check = conv_check,
    .variants = conv_variants,
    .n_variants = (int)(sizeof conv_variants / sizeof conv_variants[0]),
    .baseline = "direct",
    .tolerance = {0, 0.0},
    .traffic_bytes = conv_traffic,
    .max_iterations = 1,
    .test_params = conv_test_params,
};
