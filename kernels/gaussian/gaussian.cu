/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian.cu: Gaussian blur of RGBA images, alpha passed through.
 *
 * Variants, slowest to fastest:
 *   naive      one thread per pixel, every tap read from global memory
 *   smem       block tile plus apron staged in shared memory
 *   smem_mwpt  shared tile, each thread computes 2x2 pixels
 *   fast       separable in one kernel, 16-byte accesses, packed integer math, register windows;
 *              from radius GAUSSIAN_WIDE_MIN_RADIUS on (sm_80+, taps < 256), both passes as
 *              banded matrix products on int8 tensor cores (kernels/gaussian/gaussian_wide.cu);
 *              other types and borders: one separable kernel templated on the pixel type
 * Pixel types and borders: the teaching variants run uint8 and uint16 with every border (their
 * kernels are templated on the type, and on whether the border is replicate: uint8 replicate
 * compiles to the kernels they always were); `fast` runs uint8, uint16 and float32 with every
 * border, uint8 replicate on its packed and tensor-core kernels as before.
 * All use the integer weights of gaussian_taps.c (1-D sum 256, 2-D = products) and produce the
 * same values as gaussian_ref (kernels/gaussian/gaussian_ref.c): max_abs_err 0 for the integer
 * types, float32 within the filter's float_abs (its bound: docs/design/gaussian.md), checked by
 * tests/gpu/test_filters.c for many sizes, sigmas, types, borders and iteration counts.
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "cuda_check.h"
#include "gaussian_gpu.h"
#include "gaussian_npp.h"
#include "gaussian_taps.h"
#include "gaussian_wide.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define MAX_TAPS (2 * FV_GAUSSIAN_MAX_RADIUS + 1)

/* Weights as kernel parameters (constant bank): floats for the 2-D variants on uint8, unsigned for
 * them on uint16 (65535 * 65536 needs 32 bits, more than a float holds exactly), each with one zero
 * on each side (wf_pad[0] and wf_pad[taps + 1]) so smem_mwpt needs no bounds tests; unsigned for
 * the integer `fast` kernels. */
struct gaussian_weights {
    int radius;
    float wf_pad[MAX_TAPS + 2];
    uint32_t wi[MAX_TAPS];
    uint32_t wi_pad[MAX_TAPS + 2];
};

/* What a border reads outside the image: the mode and, for the constant, its value in each
 * arithmetic the kernels use (cval is an integer of the type's range for integer images). */
struct gaussian_edge {
    fv_border mode;
    uint32_t cval_int;
    float cval_float;
};

/* The state of every GPU variant (host memory, made once at prepare from the typed
 * configuration): the weights as the kernels take them, the border and the pixel type, so that a
 * run only launches. */
struct gaussian_state {
    fv_gaussian_taps taps;
    gaussian_weights gw;
    gaussian_edge edge;
    fv_pixel_type type;
};

static void gaussian_weights_of(const fv_gaussian_taps *t, gaussian_weights *gw)
{
    memset(gw, 0, sizeof *gw);
    gw->radius = t->radius;
    for (int k = 0; k < 2 * t->radius + 1; k++) {
        gw->wf_pad[k + 1] = (float)t->w[k];
        gw->wi[k] = (uint32_t)t->w[k];
        gw->wi_pad[k + 1] = (uint32_t)t->w[k];
    }
}

fv_status gaussian_state_create(const fv_variant *v, void **state, const fv_params *p,
                                const void *config, int width, int height)
{
    (void)v, (void)p, (void)width, (void)height;
    const gaussian_config *c = (const gaussian_config *)config;
    gaussian_state *s = (gaussian_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "gaussian: out of host memory for its state");
    s->taps = c->taps;
    gaussian_weights_of(&c->taps, &s->gw);
    s->edge.mode = c->border;
    s->edge.cval_float = (float)c->cval;
    s->edge.cval_int = c->type == FV_PIXEL_F32 ? 0u : (uint32_t)c->cval; /* checked: 0..max */
    s->type = c->type;
    *state = s;
    return FV_OK;
}

void gaussian_state_destroy(const fv_variant *v, void *state)
{
    (void)v;
    free(state);
}

__device__ __forceinline__ int clamp_index(int v, int hi)
{
    return min(max(v, 0), hi);
}

__device__ __forceinline__ const uchar4 *image_row(const fv_image &img, int y)
{
    return reinterpret_cast<const uchar4 *>(img.data + (size_t)y * img.pitch);
}

/* Sums start at 32768 (= 0.5 << 16): (sum + 32768) >> 16 rounds half up, exactly as the ref. */
__device__ __forceinline__ uchar4 round_rgb_keep_alpha(float r, float g, float b, uint8_t alpha)
{
    return make_uchar4((uint8_t)(__float2uint_rz(r) >> 16), (uint8_t)(__float2uint_rz(g) >> 16),
                       (uint8_t)(__float2uint_rz(b) >> 16), alpha);
}

/* ---- the teaching kernels' pixel types: uint8 in float (exact below 2^24, as always), uint16
 * in 32-bit integers; rows are only 4-byte aligned, so a uint16 pixel moves as two words ---- */
template <typename T> struct teach_pixel;
template <> struct teach_pixel<uint8_t> {
    typedef uchar4 vec;
    typedef float acc;
    static __device__ __forceinline__ vec load(const uint8_t *row, int x)
    {
        return reinterpret_cast<const uchar4 *>(row)[x];
    }
    static __device__ __forceinline__ vec splat(const gaussian_edge &e)
    {
        const uint8_t c = (uint8_t)e.cval_int;
        return make_uchar4(c, c, c, c);
    }
    static __device__ __forceinline__ acc weight(const gaussian_weights &gw, int k)
    {
        return gw.wf_pad[k];
    }
    static __device__ __forceinline__ acc mad(acc w, uint8_t v, acc sum) { return fmaf(w, v, sum); }
    static __device__ __forceinline__ void store(uint8_t *row, int x, acc r, acc g, acc b,
                                                 uint8_t alpha)
    {
        reinterpret_cast<uchar4 *>(row)[x] = round_rgb_keep_alpha(r, g, b, alpha);
    }
};
template <> struct teach_pixel<uint16_t> {
    typedef ushort4 vec;
    typedef uint32_t acc;
    static __device__ __forceinline__ vec load(const uint8_t *row, int x)
    {
        const uint32_t *q = reinterpret_cast<const uint32_t *>(row) + 2 * x;
        const uint32_t lo = q[0], hi = q[1];
        return make_ushort4(lo & 0xffff, lo >> 16, hi & 0xffff, hi >> 16);
    }
    static __device__ __forceinline__ vec splat(const gaussian_edge &e)
    {
        const uint16_t c = (uint16_t)e.cval_int;
        return make_ushort4(c, c, c, c);
    }
    static __device__ __forceinline__ acc weight(const gaussian_weights &gw, int k)
    {
        return gw.wi_pad[k];
    }
    static __device__ __forceinline__ acc mad(acc w, uint16_t v, acc sum)
    {
        return sum + w * v; /* <= 65535 * 65536 + 32768 < 2^32 */
    }
    static __device__ __forceinline__ void store(uint8_t *row, int x, acc r, acc g, acc b,
                                                 uint16_t alpha)
    {
        uint32_t *q = reinterpret_cast<uint32_t *>(row) + 2 * x;
        q[0] = (r >> 16) | (g >> 16) << 16;
        q[1] = (b >> 16) | (uint32_t)alpha << 16;
    }
};

/* The row or column a tap reads: clamped (replicate, the code these kernels always had) or
 * through the one border mapping (-1: the constant). */
template <bool ANY_BORDER>
__device__ __forceinline__ int edge_index(int i, int n, const gaussian_edge &e)
{
    return ANY_BORDER ? fv_border_index(i, n, e.mode) : clamp_index(i, n - 1);
}

/* Pixel (x, y) of a row already mapped to yy (x not yet mapped): cval where either is outside. */
template <typename T, bool ANY_BORDER>
__device__ __forceinline__ typename teach_pixel<T>::vec fetch(const fv_image &img, int x, int yy,
                                                              const gaussian_edge &e)
{
    const int xx = edge_index<ANY_BORDER>(x, img.width, e);
    if (ANY_BORDER && (xx < 0 || yy < 0)) return teach_pixel<T>::splat(e);
    return teach_pixel<T>::load(img.data + (size_t)yy * img.pitch, xx);
}

/* ---- naive: one thread per pixel, (2r+1)^2 global loads ---------------------------------- */
#define NAIVE_BLOCK_X 32
#define NAIVE_BLOCK_Y 8

template <typename T, bool ANY_BORDER>
__global__ void gaussian_naive_kernel(fv_image src, fv_image dst, gaussian_weights gw,
                                      gaussian_edge edge)
{
    typedef teach_pixel<T> P;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int r = gw.radius;
    typename P::acc sr = 32768, sg = 32768, sb = 32768;
    for (int i = -r; i <= r; i++) {
        const int yy = edge_index<ANY_BORDER>(y + i, src.height, edge);
        const typename P::acc wi = P::weight(gw, r + i + 1);
        for (int j = -r; j <= r; j++) {
            const typename P::vec px = fetch<T, ANY_BORDER>(src, x + j, yy, edge);
            const typename P::acc wij = wi * P::weight(gw, r + j + 1); /* exact: <= 65536 */
            sr = P::mad(wij, px.x, sr);
            sg = P::mad(wij, px.y, sg);
            sb = P::mad(wij, px.z, sb);
        }
    }
    const T alpha = P::load(src.data + (size_t)y * src.pitch, x).w;
    P::store(dst.data + (size_t)y * dst.pitch, x, sr, sg, sb, alpha);
}

/* ---- shared-memory tile (+ apron), optionally 2x2 pixels per thread --------------------- */
#define SMEM_BLOCK 16 /* 16x16 threads */

/* Cooperative load of the (tile_w x tile_h) region starting at (x0, y0), through the border. */
template <typename T, bool ANY_BORDER>
__device__ __forceinline__ void load_tile(const fv_image &src, typename teach_pixel<T>::vec *tile,
                                          int x0, int y0, int tile_w, int tile_h,
                                          const gaussian_edge &edge)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int n_threads = blockDim.x * blockDim.y;
    for (int idx = tid; idx < tile_w * tile_h; idx += n_threads) {
        const int ty = idx / tile_w, tx = idx - ty * tile_w;
        tile[idx] = fetch<T, ANY_BORDER>(src, x0 + tx,
                                         edge_index<ANY_BORDER>(y0 + ty, src.height, edge), edge);
    }
    __syncthreads();
}

template <typename T, bool ANY_BORDER>
__global__ void gaussian_smem_kernel(fv_image src, fv_image dst, gaussian_weights gw,
                                     gaussian_edge edge)
{
    typedef teach_pixel<T> P;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    typename P::vec *tile = reinterpret_cast<typename P::vec *>(smem_bytes);
    const int r = gw.radius;
    const int tile_w = SMEM_BLOCK + 2 * r; /* +2r: apron of r pixels on each side */
    load_tile<T, ANY_BORDER>(src, tile, blockIdx.x * SMEM_BLOCK - r, blockIdx.y * SMEM_BLOCK - r,
                             tile_w, tile_w, edge);

    const int x = blockIdx.x * SMEM_BLOCK + threadIdx.x;
    const int y = blockIdx.y * SMEM_BLOCK + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    typename P::acc sr = 32768, sg = 32768, sb = 32768;
    for (int i = 0; i <= 2 * r; i++) {
        const typename P::vec *row = tile + (threadIdx.y + i) * tile_w + threadIdx.x;
        const typename P::acc wi = P::weight(gw, i + 1);
        for (int j = 0; j <= 2 * r; j++) {
            const typename P::vec px = row[j];
            const typename P::acc wij = wi * P::weight(gw, j + 1);
            sr = P::mad(wij, px.x, sr);
            sg = P::mad(wij, px.y, sg);
            sb = P::mad(wij, px.z, sb);
        }
    }
    const T alpha = tile[(threadIdx.y + r) * tile_w + threadIdx.x + r].w;
    P::store(dst.data + (size_t)y * dst.pitch, x, sr, sg, sb, alpha);
}

template <typename T, bool ANY_BORDER>
__global__ void gaussian_smem_mwpt_kernel(fv_image src, fv_image dst, gaussian_weights gw,
                                          gaussian_edge edge)
{
    typedef teach_pixel<T> P;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    typename P::vec *tile = reinterpret_cast<typename P::vec *>(smem_bytes);
    const int r = gw.radius;
    const int tile_w = 2 * SMEM_BLOCK + 2 * r; /* 2x2 pixels per thread, +2r apron */
    load_tile<T, ANY_BORDER>(src, tile, blockIdx.x * 2 * SMEM_BLOCK - r,
                             blockIdx.y * 2 * SMEM_BLOCK - r, tile_w, tile_w, edge);

    /* Each shared pixel read feeds all four outputs it is a tap of: output (dy, dx) uses it with
     * the weight of tap (i - dy, j - dx); the zero padding of the weights makes out-of-range
     * taps 0. */
    typename P::acc acc[2][2][3];
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int dx = 0; dx < 2; dx++)
#pragma unroll
            for (int c = 0; c < 3; c++) acc[dy][dx][c] = 32768;
    const typename P::vec *corner = tile + 2 * threadIdx.y * tile_w + 2 * threadIdx.x;
    for (int i = 0; i <= 2 * r + 1; i++) {
        const typename P::acc wy0 = P::weight(gw, i + 1), wy1 = P::weight(gw, i);
        for (int j = 0; j <= 2 * r + 1; j++) {
            const typename P::vec px = corner[i * tile_w + j];
            const typename P::acc wx0 = P::weight(gw, j + 1), wx1 = P::weight(gw, j);
            const typename P::acc w[2][2] = {{wy0 * wx0, wy0 * wx1}, {wy1 * wx0, wy1 * wx1}};
#pragma unroll
            for (int dy = 0; dy < 2; dy++)
#pragma unroll
                for (int dx = 0; dx < 2; dx++) {
                    acc[dy][dx][0] = P::mad(w[dy][dx], px.x, acc[dy][dx][0]);
                    acc[dy][dx][1] = P::mad(w[dy][dx], px.y, acc[dy][dx][1]);
                    acc[dy][dx][2] = P::mad(w[dy][dx], px.z, acc[dy][dx][2]);
                }
        }
    }
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int dx = 0; dx < 2; dx++) {
            const int x = (blockIdx.x * SMEM_BLOCK + threadIdx.x) * 2 + dx;
            const int y = (blockIdx.y * SMEM_BLOCK + threadIdx.y) * 2 + dy;
            if (x >= src.width || y >= src.height) continue;
            const T alpha = corner[(r + dy) * tile_w + r + dx].w;
            P::store(dst.data + (size_t)y * dst.pitch, x, acc[dy][dx][0], acc[dy][dx][1],
                     acc[dy][dx][2], alpha);
        }
}

/* ---- the teaching kernels' one instantiation table: type x (replicate, any border) ---------- */
typedef void (*gaussian_teach_fn)(fv_image, fv_image, gaussian_weights, gaussian_edge);

#define TEACH_ROW(T, B)                                                                            \
    {                                                                                              \
        (gaussian_teach_fn) gaussian_naive_kernel<T, B>,                                           \
            (gaussian_teach_fn)gaussian_smem_kernel<T, B>,                                         \
            (gaussian_teach_fn)gaussian_smem_mwpt_kernel<T, B>                                     \
    }
static const gaussian_teach_fn teach_kernels[2][2][TEACH_N_KERNELS] = {
    {TEACH_ROW(uint8_t, false), TEACH_ROW(uint8_t, true)},
    {TEACH_ROW(uint16_t, false), TEACH_ROW(uint16_t, true)},
};
static const char *const teach_names[TEACH_N_KERNELS] = {
    "gaussian_naive_kernel", "gaussian_smem_kernel", "gaussian_smem_mwpt_kernel"};

static gaussian_teach_fn teach_kernel(int which, fv_pixel_type type, fv_border border)
{
    return teach_kernels[type == FV_PIXEL_U16][border != FV_BORDER_REPLICATE][which];
}

/* Shared memory of a tiled kernel's tile: (16 or 32 + 2r)^2 pixels of the type. */
static size_t teach_smem_bytes(int which, fv_pixel_type type, int radius)
{
    if (which == TEACH_NAIVE) return 0;
    const int tile_w = SMEM_BLOCK * (which == TEACH_SMEM_MWPT ? 2 : 1) + 2 * radius;
    return (size_t)tile_w * tile_w * 4 * fv_pixel_type_bytes(type);
}

static dim3 teach_block(int which)
{
    return which == TEACH_NAIVE ? dim3(NAIVE_BLOCK_X, NAIVE_BLOCK_Y) : dim3(SMEM_BLOCK, SMEM_BLOCK);
}

fv_status gaussian_teach_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                             const void *config, void *state, cudaStream_t stream)
{
    (void)config; /* its state was made from it */
    const gaussian_state *cfg = (const gaussian_state *)state;
    const int which = v->id;
    const gaussian_teach_fn fn = teach_kernel(which, cfg->type, cfg->edge.mode);
    const size_t smem = teach_smem_bytes(which, cfg->type, cfg->gw.radius);
    if (smem > 48 * 1024) /* uint16 tiles at wide radii: supports() checked the device has it */
        FV_CUDA_CHECK(cudaFuncSetAttribute((const void *)fn,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    const dim3 block = teach_block(which);
    const int out_w = which == TEACH_NAIVE       ? NAIVE_BLOCK_X
                      : which == TEACH_SMEM_MWPT ? 2 * SMEM_BLOCK
                                                 : SMEM_BLOCK;
    const int out_h = which == TEACH_NAIVE ? NAIVE_BLOCK_Y : out_w;
    const dim3 grid((src->width + out_w - 1) / out_w, (src->height + out_h - 1) / out_h);
    fn<<<grid, block, smem, stream>>>(*src, *dst, cfg->gw, cfg->edge);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

/* A tile that does not fit the device's shared memory (uint16 at wide radii on small GPUs) is
 * declined with its size, before anything is made. */
int gaussian_teach_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                            int height, char *why, size_t why_size)
{
    (void)p, (void)width, (void)height;
    const gaussian_config *c = (const gaussian_config *)config;
    const size_t smem = teach_smem_bytes(v->id, c->type, c->radius);
    int device = 0, most = 0;
    if (smem <= 48 * 1024 || cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
            cudaSuccess) {
        cudaGetLastError(); /* no device: the run's own check reports it */
        return 1;
    }
    if (smem <= (size_t)most) return 1;
    snprintf(why, why_size,
             "its %s tile at radius %d needs %.1f KiB of shared memory, this GPU gives a block "
             "%.1f KiB",
             fv_pixel_type_name(c->type), c->radius, smem / 1024.0, most / 1024.0);
    return 0;
}

/* ---- fast: separable, one kernel, packed integer arithmetic ------------------------------
 * A block is one warp wide: 32 column groups of 4 pixels (16 bytes), FAST_ROWS rows tall.
 * Phase 1 (columns): thread (tx, ty) walks FAST_SEG + 2r input rows of its group with 16-byte
 *   loads and keeps FAST_SEG vertical sums in registers. R and B share one 32-bit word (bytes 0
 *   and 2 -> two 16-bit lanes), G has its own: a lane's sum is <= 255 * 256 < 65536, so one
 *   integer multiply-add serves two channels. Sums go to shared memory, G with the centre
 *   pixel's alpha in its upper half.
 * Phase 2 (rows): the inner 32 - 2 * ceil(r / 4) groups read their neighbours' column sums and
 *   finish the 2-D sum per channel in 32 bits (<= 255 * 65536), then store 16 bytes.
 * R > 0 compiles the radius in (fully unrolled sliding windows); R == 0 reads it at run time. */
#define FAST_GROUPS 32
#define FAST_ROWS   32
#define FAST_SEG    4

__device__ __forceinline__ uint4 load_group(const fv_image &src, int x, int y, bool aligned)
{
    const uint8_t *row = src.data + (size_t)y * src.pitch;
    if (aligned && x >= 0 && x + 3 < src.width)
        return __ldg(reinterpret_cast<const uint4 *>(row + 4 * x));
    const uint32_t *px = reinterpret_cast<const uint32_t *>(row);
    const int last = src.width - 1;
    return make_uint4(__ldg(px + clamp_index(x, last)), __ldg(px + clamp_index(x + 1, last)),
                      __ldg(px + clamp_index(x + 2, last)), __ldg(px + clamp_index(x + 3, last)));
}

__device__ __forceinline__ uint32_t lane_rb(uint32_t px)
{
    return __byte_perm(px, 0, 0x4240);
}
__device__ __forceinline__ uint32_t lane_g(uint32_t px)
{
    return __byte_perm(px, 0, 0x4441);
}
__device__ __forceinline__ uint32_t get_q(const uint4 &v, int q)
{
    return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

__device__ __forceinline__ uint32_t pack_rgba(uint32_t sum_r, uint32_t sum_g, uint32_t sum_b,
                                              uint32_t alpha)
{
    /* each sum is <= 0xFF8000, so its byte 2 is the rounded 8-bit channel */
    return __byte_perm(__byte_perm(sum_r, sum_g, 0x0062), __byte_perm(sum_b, alpha << 16, 0x0062),
                       0x5410);
}

template <int R>
__global__ void __launch_bounds__(FAST_GROUPS *(FAST_ROWS / FAST_SEG))
    gaussian_fast_kernel(fv_image src, fv_image dst, gaussian_weights gw, bool aligned)
{
    __shared__ uint32_t col_rb[FAST_ROWS][FAST_GROUPS * 4]; /* R | B << 16 per pixel */
    __shared__ uint32_t col_ga[FAST_ROWS][FAST_GROUPS * 4]; /* G | centre alpha << 16 */
    const int r = R > 0 ? R : gw.radius;
    const int apron_groups = (r + 3) / 4;
    const int out_groups = FAST_GROUPS - 2 * apron_groups;
    const int x_out0 = blockIdx.x * out_groups * 4;
    const int y0 = blockIdx.y * FAST_ROWS;
    const int tx = threadIdx.x, ty = threadIdx.y;

    { /* phase 1: column sums for rows y0 + ty * FAST_SEG + s of group tx */
        const int x = x_out0 - 4 * apron_groups + 4 * tx;
        const int y_first = y0 + ty * FAST_SEG - r;
        uint32_t rb[FAST_SEG][4], g[FAST_SEG][4], alpha[FAST_SEG][4];
#pragma unroll
        for (int s = 0; s < FAST_SEG; s++)
#pragma unroll
            for (int q = 0; q < 4; q++) rb[s][q] = g[s][q] = alpha[s][q] = 0;
                /* sliding window: input row y_first + k is tap (k - s) of output row s */
#pragma unroll
        for (int k = 0; k < FAST_SEG + 2 * r; k++) {
            const uint4 in = load_group(src, x, clamp_index(y_first + k, src.height - 1), aligned);
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const uint32_t v = get_q(in, q), v_rb = lane_rb(v), v_g = lane_g(v);
#pragma unroll
                for (int s = 0; s < FAST_SEG; s++) {
                    const int tap = k - s;
                    if (tap < 0 || tap > 2 * r) continue;
                    rb[s][q] += gw.wi[tap] * v_rb;
                    g[s][q] += gw.wi[tap] * v_g;
                    if (tap == r) alpha[s][q] = v >> 24;
                }
            }
        }
#pragma unroll
        for (int s = 0; s < FAST_SEG; s++) {
            const int row = ty * FAST_SEG + s;
            *reinterpret_cast<uint4 *>(&col_rb[row][4 * tx]) =
                make_uint4(rb[s][0], rb[s][1], rb[s][2], rb[s][3]);
            *reinterpret_cast<uint4 *>(&col_ga[row][4 * tx]) =
                make_uint4(g[s][0] | alpha[s][0] << 16, g[s][1] | alpha[s][1] << 16,
                           g[s][2] | alpha[s][2] << 16, g[s][3] | alpha[s][3] << 16);
        }
    }
    __syncthreads();

    /* phase 2: row sums of the column sums for the inner groups */
    if (tx >= out_groups) return;
    const int x = x_out0 + 4 * tx;
    if (x >= dst.width) return;
    const bool full_store = aligned && x + 3 < dst.width;
#pragma unroll
    for (int s = 0; s < FAST_SEG; s++) {
        const int row = ty * FAST_SEG + s;
        const int y = y0 + row;
        if (y >= dst.height) break;
        uint32_t out[4];
        if (R > 0) {
            /* register window of 2 * AG + 1 groups around this thread's own (AG apron groups) */
            constexpr int AG = (R + 3) / 4;
            constexpr int WIN = 4 * (2 * AG + 1);
            uint32_t wr[WIN], wg[WIN], wb[WIN], wa[4];
#pragma unroll
            for (int gi = 0; gi < 2 * AG + 1; gi++) {
                const uint4 vrb = *reinterpret_cast<const uint4 *>(&col_rb[row][4 * (tx + gi)]);
                const uint4 vga = *reinterpret_cast<const uint4 *>(&col_ga[row][4 * (tx + gi)]);
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    wr[4 * gi + q] = get_q(vrb, q) & 0xffff;
                    wb[4 * gi + q] = get_q(vrb, q) >> 16;
                    wg[4 * gi + q] = get_q(vga, q) & 0xffff;
                    if (gi == AG) wa[q] = get_q(vga, q) >> 16;
                }
            }
#pragma unroll
            for (int q = 0; q < 4; q++) {
                uint32_t sr = 32768, sg = 32768, sb = 32768; /* +0.5 before the >> 16 */
#pragma unroll
                for (int j = -R; j <= R; j++) {
                    sr += gw.wi[R + j] * wr[4 * AG + q + j];
                    sg += gw.wi[R + j] * wg[4 * AG + q + j];
                    sb += gw.wi[R + j] * wb[4 * AG + q + j];
                }
                out[q] = pack_rgba(sr, sg, sb, wa[q]);
            }
        } else {
            const int centre = 4 * (tx + apron_groups);
            for (int q = 0; q < 4; q++) {
                uint32_t sr = 32768, sg = 32768, sb = 32768;
                for (int j = -r; j <= r; j++) {
                    const uint32_t vrb = col_rb[row][centre + q + j];
                    sr += gw.wi[r + j] * (vrb & 0xffff);
                    sg += gw.wi[r + j] * (col_ga[row][centre + q + j] & 0xffff);
                    sb += gw.wi[r + j] * (vrb >> 16);
                }
                out[q] = pack_rgba(sr, sg, sb, col_ga[row][centre + q] >> 16);
            }
        }
        uint8_t *dst_row = dst.data + (size_t)y * dst.pitch;
        if (full_store) {
            *reinterpret_cast<uint4 *>(dst_row + 4 * x) =
                make_uint4(out[0], out[1], out[2], out[3]);
        } else {
#pragma unroll
            for (int q = 0; q < 4; q++)
                if (x + q < dst.width) reinterpret_cast<uint32_t *>(dst_row)[x + q] = out[q];
        }
    }
}

/* ---- fast, every other type and border: one separable kernel templated on the pixel type ------
 * A block of SEP_COLS x SEP_THREAD_ROWS threads makes SEP_COLS x SEP_ROWS outputs.
 * Phase 1 (columns): the block's strip is SEP_COLS + 2r columns wide; a thread takes columns
 *   tx, tx + SEP_COLS, ... of it and walks SEP_SEG + 2r input rows of each with one pixel load a
 *   row (8 or 16 bytes where the rows are aligned so), keeping SEP_SEG vertical sums per channel
 *   in registers (a sliding window: input row k is tap k - s of output row s). Sums go to shared
 *   memory, one plane per channel (conflict-free: a warp touches 32 consecutive words), and the
 *   centre pixels' alpha beside them.
 * Phase 2 (rows): each thread finishes SEP_SEG outputs of its column from 2r + 1 column sums.
 * Integers (uint8 off replicate, uint16) sum in 32 bits with the integer weights: column sums
 * <= 65535 * 256, the 2-D sum + 32768 < 2^32, >> 16 as the reference rounds. float32 sums in
 * float with w / 256 per axis (exact), each output s = sum / 65536 unrounded; every tap inside
 * the window is multiplied, so a NaN or infinity there reaches the output as in the reference.
 * Borders go through fv_border_index (the inside first, then the mode: uniform per warp row). */
#define SEP_COLS        32
#define SEP_THREAD_ROWS 4
#define SEP_SEG         8
#define SEP_ROWS        (SEP_THREAD_ROWS * SEP_SEG)

/* The pixel types of the separable kernel: how a pixel loads (`vec`: one 8- or 16-byte access
 * where the image's rows are aligned so), its channels as the sum type, how it stores. */
template <typename T> struct sep_pixel;
template <> struct sep_pixel<uint8_t> {
    typedef uint32_t acc;
    static __device__ __forceinline__ void load(const uint8_t *row, int x, bool vec, acc v[4])
    {
        (void)vec;
        const uint32_t w = __ldg(reinterpret_cast<const uint32_t *>(row) + x);
        v[0] = w & 0xff, v[1] = (w >> 8) & 0xff, v[2] = (w >> 16) & 0xff, v[3] = w >> 24;
    }
    static __device__ __forceinline__ void store(uint8_t *row, int x, bool vec, const acc s[3],
                                                 uint8_t alpha)
    {
        (void)vec;
        reinterpret_cast<uint32_t *>(row)[x] =
            (s[0] >> 16) | (s[1] >> 16) << 8 | (s[2] >> 16) << 16 | (uint32_t)alpha << 24;
    }
};
template <> struct sep_pixel<uint16_t> {
    typedef uint32_t acc;
    static __device__ __forceinline__ void load(const uint8_t *row, int x, bool vec, acc v[4])
    {
        uint2 w;
        const uint32_t *q = reinterpret_cast<const uint32_t *>(row) + 2 * x;
        if (vec)
            w = __ldg(reinterpret_cast<const uint2 *>(q));
        else
            w = make_uint2(__ldg(q), __ldg(q + 1));
        v[0] = w.x & 0xffff, v[1] = w.x >> 16, v[2] = w.y & 0xffff, v[3] = w.y >> 16;
    }
    static __device__ __forceinline__ void store(uint8_t *row, int x, bool vec, const acc s[3],
                                                 uint16_t alpha)
    {
        const uint2 w =
            make_uint2((s[0] >> 16) | (s[1] >> 16) << 16, (s[2] >> 16) | (uint32_t)alpha << 16);
        uint32_t *q = reinterpret_cast<uint32_t *>(row) + 2 * x;
        if (vec) {
            *reinterpret_cast<uint2 *>(q) = w;
        } else {
            q[0] = w.x;
            q[1] = w.y;
        }
    }
};
template <> struct sep_pixel<float> {
    typedef float acc;
    static __device__ __forceinline__ void load(const uint8_t *row, int x, bool vec, acc v[4])
    {
        const float *q = reinterpret_cast<const float *>(row) + 4 * x;
        if (vec) {
            const float4 f = __ldg(reinterpret_cast<const float4 *>(q));
            v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
        } else {
#pragma unroll
            for (int c = 0; c < 4; c++) v[c] = __ldg(q + c);
        }
    }
    static __device__ __forceinline__ void store(uint8_t *row, int x, bool vec, const acc s[3],
                                                 float alpha)
    {
        float *q = reinterpret_cast<float *>(row) + 4 * x;
        if (vec) {
            *reinterpret_cast<float4 *>(q) = make_float4(s[0], s[1], s[2], alpha);
        } else {
            q[0] = s[0], q[1] = s[1], q[2] = s[2], q[3] = alpha;
        }
    }
};

/* The weights in the sum type: integers, or w / 256 (exact in float) for float32. */
struct gaussian_sep_weights {
    uint32_t wi[MAX_TAPS];
    float wf[MAX_TAPS];
};
__device__ __forceinline__ uint32_t sep_weight(const gaussian_sep_weights &sw, int k, uint32_t)
{
    return sw.wi[k];
}
__device__ __forceinline__ float sep_weight(const gaussian_sep_weights &sw, int k, float)
{
    return sw.wf[k];
}
__device__ __forceinline__ uint32_t sep_mad(uint32_t w, uint32_t v, uint32_t sum)
{
    return sum + w * v;
}
__device__ __forceinline__ float sep_mad(float w, float v, float sum)
{
    return fmaf(w, v, sum);
}
/* Where the row sums start: 0.5 << 16 for the integers' (sum + 32768) >> 16, 0 for float. */
__device__ __forceinline__ uint32_t sep_half(uint32_t)
{
    return 32768;
}
__device__ __forceinline__ float sep_half(float)
{
    return 0.f;
}
__device__ __forceinline__ uint32_t sep_cval(const gaussian_edge &e, uint32_t)
{
    return e.cval_int;
}
__device__ __forceinline__ float sep_cval(const gaussian_edge &e, float)
{
    return e.cval_float;
}

/* Shared memory of one block: three planes of column sums over the strip, and alpha. */
static size_t sep_smem_bytes(fv_pixel_type type, int radius)
{
    return 3 * SEP_ROWS * (SEP_COLS + 2 * (size_t)radius) * 4 +
           SEP_ROWS * SEP_COLS * fv_pixel_type_bytes(type);
}

template <typename T>
__global__ void __launch_bounds__(SEP_COLS *SEP_THREAD_ROWS)
    gaussian_sep_kernel(fv_image src, fv_image dst, int radius, gaussian_sep_weights sw,
                        gaussian_edge edge, bool vec)
{
    typedef sep_pixel<T> P;
    typedef typename P::acc acc;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    const int r = radius, strip = SEP_COLS + 2 * r;
    acc *sums = reinterpret_cast<acc *>(smem_bytes);               /* [3][SEP_ROWS][strip] */
    T *alpha = reinterpret_cast<T *>(sums + 3 * SEP_ROWS * strip); /* [SEP_ROWS][SEP_COLS] */
    const int x0 = blockIdx.x * SEP_COLS, y0 = blockIdx.y * SEP_ROWS;
    const int tx = threadIdx.x, ty = threadIdx.y;

    for (int cx = tx; cx < strip; cx += SEP_COLS) { /* phase 1: column sums */
        const int xx = fv_border_index(x0 - r + cx, src.width, edge.mode);
        const bool centre_column = cx >= r && cx < r + SEP_COLS;
        const int y_first = y0 + ty * SEP_SEG - r;
        acc s[SEP_SEG][3];
#pragma unroll
        for (int k = 0; k < SEP_SEG; k++) s[k][0] = s[k][1] = s[k][2] = 0;
        for (int k = 0; k < SEP_SEG + 2 * r; k++) {
            const int yy = fv_border_index(y_first + k, src.height, edge.mode);
            acc v[4];
            if (xx < 0 || yy < 0)
                v[0] = v[1] = v[2] = v[3] = sep_cval(edge, acc());
            else
                P::load(src.data + (size_t)yy * src.pitch, xx, vec, v);
#pragma unroll
            for (int o = 0; o < SEP_SEG; o++) {
                const int tap = k - o;
                if ((unsigned)tap > (unsigned)(2 * r)) continue; /* outside o's window */
                const acc w = sep_weight(sw, tap, acc());
                s[o][0] = sep_mad(w, v[0], s[o][0]);
                s[o][1] = sep_mad(w, v[1], s[o][1]);
                s[o][2] = sep_mad(w, v[2], s[o][2]);
                if (tap == r && centre_column)
                    alpha[(ty * SEP_SEG + o) * SEP_COLS + cx - r] = (T)v[3];
            }
        }
#pragma unroll
        for (int o = 0; o < SEP_SEG; o++)
#pragma unroll
            for (int c = 0; c < 3; c++)
                sums[(c * SEP_ROWS + ty * SEP_SEG + o) * strip + cx] = s[o][c];
    }
    __syncthreads();

    const int x = x0 + tx; /* phase 2: row sums of the column sums */
    if (x >= dst.width) return;
#pragma unroll
    for (int o = 0; o < SEP_SEG; o++) {
        const int row = ty * SEP_SEG + o, y = y0 + row;
        if (y >= dst.height) break;
        acc out[3];
        out[0] = out[1] = out[2] = sep_half(acc());
        for (int j = 0; j <= 2 * r; j++) {
            const acc w = sep_weight(sw, j, acc());
#pragma unroll
            for (int c = 0; c < 3; c++)
                out[c] = sep_mad(w, sums[(c * SEP_ROWS + row) * strip + tx + j], out[c]);
        }
        P::store(dst.data + (size_t)y * dst.pitch, x, vec, out, alpha[row * SEP_COLS + tx]);
    }
}

static fv_status gaussian_sep_launch(const gaussian_state *cfg, const fv_image *src, fv_image *dst,
                                     cudaStream_t stream)
{
    gaussian_sep_weights sw;
    for (int k = 0; k < MAX_TAPS; k++) {
        sw.wi[k] = cfg->gw.wi[k];
        sw.wf[k] = (float)cfg->gw.wi[k] / FV_GAUSSIAN_WEIGHT_SUM;
    }
    const size_t px = 4 * fv_pixel_type_bytes(cfg->type);
    const bool vec =
        ((uintptr_t)src->data | src->pitch | (uintptr_t)dst->data | dst->pitch) % px == 0;
    const dim3 block(SEP_COLS, SEP_THREAD_ROWS);
    const dim3 grid((src->width + SEP_COLS - 1) / SEP_COLS,
                    (src->height + SEP_ROWS - 1) / SEP_ROWS);
    const size_t smem = sep_smem_bytes(cfg->type, cfg->gw.radius); /* < 41 KiB */
    const int r = cfg->gw.radius;
    switch (cfg->type) {
    case FV_PIXEL_U16:
        gaussian_sep_kernel<uint16_t>
            <<<grid, block, smem, stream>>>(*src, *dst, r, sw, cfg->edge, vec);
        break;
    case FV_PIXEL_F32:
        gaussian_sep_kernel<float>
            <<<grid, block, smem, stream>>>(*src, *dst, r, sw, cfg->edge, vec);
        break;
    default:
        gaussian_sep_kernel<uint8_t>
            <<<grid, block, smem, stream>>>(*src, *dst, r, sw, cfg->edge, vec);
        break;
    }
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

fv_status gaussian_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                            const void *config, void *state, cudaStream_t stream)
{
    (void)v, (void)config; /* its state was made from it */
    const gaussian_state *cfg = (const gaussian_state *)state;
    if (cfg->type != FV_PIXEL_U8 || cfg->edge.mode != FV_BORDER_REPLICATE)
        return gaussian_sep_launch(cfg, src, dst, stream);
    const fv_gaussian_taps &taps = cfg->taps;
    if (gaussian_wide_applies(taps.w, taps.radius) && gaussian_wide_addresses(src) &&
        gaussian_wide_addresses(dst)) /* wide stencils: tensor cores */
        return gaussian_wide_launch(src, dst, taps.w, taps.radius, stream);
    const gaussian_weights &gw = cfg->gw;
    const bool aligned = ((uintptr_t)src->data % 16 == 0) && (src->pitch % 16 == 0) &&
                         ((uintptr_t)dst->data % 16 == 0) && (dst->pitch % 16 == 0);
    const int out_px = 4 * (FAST_GROUPS - 2 * ((gw.radius + 3) / 4));
    dim3 block(FAST_GROUPS, FAST_ROWS / FAST_SEG);
    dim3 grid((src->width + out_px - 1) / out_px, (src->height + FAST_ROWS - 1) / FAST_ROWS);
    switch (gw.radius) { /* compile-time radii for the common small stencils */
    case 1: gaussian_fast_kernel<1><<<grid, block, 0, stream>>>(*src, *dst, gw, aligned); break;
    case 2: gaussian_fast_kernel<2><<<grid, block, 0, stream>>>(*src, *dst, gw, aligned); break;
    case 3: gaussian_fast_kernel<3><<<grid, block, 0, stream>>>(*src, *dst, gw, aligned); break;
    case 4: gaussian_fast_kernel<4><<<grid, block, 0, stream>>>(*src, *dst, gw, aligned); break;
    default: gaussian_fast_kernel<0><<<grid, block, 0, stream>>>(*src, *dst, gw, aligned); break;
    }
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

/* ---- what each variant launches (the same choices as its launcher) ---- */
int gaussian_teach_kernels(const fv_variant *v, const fv_params *p, const void *config,
                           fv_kernel_info *out, int max)
{
    (void)p;
    if (max < 1) return 0;
    const gaussian_config *c = (const gaussian_config *)config;
    const dim3 block = teach_block(v->id);
    out[0] = {teach_names[v->id], (const void *)teach_kernel(v->id, c->type, c->border),
              (int)(block.x * block.y), teach_smem_bytes(v->id, c->type, c->radius)};
    return 1;
}

int gaussian_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                          fv_kernel_info *out, int max)
{
    (void)v, (void)p;
    if (max < 1) return 0;
    const gaussian_config *c = (const gaussian_config *)config;
    if (c->type != FV_PIXEL_U8 || c->border != FV_BORDER_REPLICATE) {
        const void *fn = c->type == FV_PIXEL_U16   ? (const void *)gaussian_sep_kernel<uint16_t>
                         : c->type == FV_PIXEL_F32 ? (const void *)gaussian_sep_kernel<float>
                                                   : (const void *)gaussian_sep_kernel<uint8_t>;
        out[0] = {c->type == FV_PIXEL_U16   ? "gaussian_sep_kernel<uint16>"
                  : c->type == FV_PIXEL_F32 ? "gaussian_sep_kernel<float>"
                                            : "gaussian_sep_kernel<uint8>",
                  fn, SEP_COLS * SEP_THREAD_ROWS, sep_smem_bytes(c->type, c->radius)};
        return 1;
    }
    if (gaussian_wide_applies(c->taps.w, c->taps.radius)) {
        out[0] = gaussian_wide_kernel_info(c->taps.radius);
        return 1;
    }
    const void *fn = nullptr;
    const char *name = nullptr;
    switch (c->radius) {
    case 1:
        fn = (const void *)gaussian_fast_kernel<1>;
        name = "gaussian_fast_kernel<1>";
        break;
    case 2:
        fn = (const void *)gaussian_fast_kernel<2>;
        name = "gaussian_fast_kernel<2>";
        break;
    case 3:
        fn = (const void *)gaussian_fast_kernel<3>;
        name = "gaussian_fast_kernel<3>";
        break;
    case 4:
        fn = (const void *)gaussian_fast_kernel<4>;
        name = "gaussian_fast_kernel<4>";
        break;
    default:
        fn = (const void *)gaussian_fast_kernel<0>;
        name = "gaussian_fast_kernel<0>";
        break;
    }
    out[0] = {name, fn, FAST_GROUPS * (FAST_ROWS / FAST_SEG), 0};
    return 1;
}
