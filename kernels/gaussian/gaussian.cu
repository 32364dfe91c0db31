/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian.cu: Gaussian blur, RGBA8, clamp-to-edge borders, alpha passed through.
 *
 * Variants, slowest to fastest:
 *   naive      one thread per pixel, every tap read from global memory
 *   smem       block tile plus apron staged in shared memory
 *   smem_mwpt  shared tile, each thread computes 2x2 pixels
 *   fast       separable in one kernel, 16-byte accesses, packed integer math, register windows;
 *              from radius GAUSSIAN_WIDE_MIN_RADIUS on (sm_80+, taps < 256), both passes as
 *              banded matrix products on int8 tensor cores (kernels/gaussian/gaussian_wide.cu)
 * All use the integer weights of gaussian_taps.c (1-D sum 256, 2-D = products) and produce the
 * same bytes as gaussian_ref (kernels/gaussian/gaussian_ref.c): max_abs_err 0, checked by
 * tests/gpu/test_filters.c for many sizes, sigmas and iteration counts.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "gaussian_npp.h"
#include "gaussian_taps.h"
#include "gaussian_wide.h"

#include <string.h>

#define MAX_TAPS (2 * FV_GAUSSIAN_MAX_RADIUS + 1)

/* Weights as kernel parameters (constant bank): floats for the 2-D variants, with one zero on
 * each side (wf_pad[0] and wf_pad[taps + 1]) so smem_mwpt needs no bounds tests; unsigned for
 * the integer `fast` variant. */
struct gaussian_weights {
    int radius;
    float wf_pad[MAX_TAPS + 2];
    uint32_t wi[MAX_TAPS];
};

static void gaussian_weights_of(const fv_gaussian_taps *t, gaussian_weights *gw)
{
    memset(gw, 0, sizeof *gw);
    gw->radius = t->radius;
    for (int k = 0; k < 2 * t->radius + 1; k++) {
        gw->wf_pad[k + 1] = (float)t->w[k];
        gw->wi[k] = (uint32_t)t->w[k];
    }
}

static fv_status gaussian_weights_make(const fv_params *p, gaussian_weights *gw)
{
    fv_gaussian_taps t;
    FV_TRY(fv_gaussian_taps_make(p, &t));
    gaussian_weights_of(&t, gw);
    return FV_OK;
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

/* ---- naive: one thread per pixel, (2r+1)^2 global loads ---------------------------------- */
#define NAIVE_BLOCK_X 32
#define NAIVE_BLOCK_Y 8

__global__ void gaussian_naive_kernel(fv_image src, fv_image dst, gaussian_weights gw)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int r = gw.radius;
    float sr = 32768.f, sg = 32768.f, sb = 32768.f;
    for (int i = -r; i <= r; i++) {
        const uchar4 *row = image_row(src, clamp_index(y + i, src.height - 1));
        const float wi = gw.wf_pad[r + i + 1];
        for (int j = -r; j <= r; j++) {
            const uchar4 px = row[clamp_index(x + j, src.width - 1)];
            const float wij = wi * gw.wf_pad[r + j + 1]; /* exact: <= 65536 */
            sr = fmaf(wij, px.x, sr);
            sg = fmaf(wij, px.y, sg);
            sb = fmaf(wij, px.z, sb);
        }
    }
    const uint8_t alpha = image_row(src, y)[x].w;
    reinterpret_cast<uchar4 *>(dst.data + (size_t)y * dst.pitch)[x] =
        round_rgb_keep_alpha(sr, sg, sb, alpha);
}

static fv_status gaussian_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                    const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    gaussian_weights gw;
    FV_TRY(gaussian_weights_make(p, &gw));
    dim3 block(NAIVE_BLOCK_X, NAIVE_BLOCK_Y);
    dim3 grid((src->width + block.x - 1) / block.x, (src->height + block.y - 1) / block.y);
    gaussian_naive_kernel<<<grid, block, 0, stream>>>(*src, *dst, gw);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

/* ---- shared-memory tile (+ apron), optionally 2x2 pixels per thread --------------------- */
#define SMEM_BLOCK 16 /* 16x16 threads */

/* Cooperative load of the (tile_w x tile_h) region starting at (x0, y0), clamped to the image. */
__device__ __forceinline__ void load_tile(const fv_image &src, uchar4 *tile, int x0, int y0,
                                          int tile_w, int tile_h)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int n_threads = blockDim.x * blockDim.y;
    for (int idx = tid; idx < tile_w * tile_h; idx += n_threads) {
        const int ty = idx / tile_w, tx = idx - ty * tile_w;
        tile[idx] = image_row(
            src, clamp_index(y0 + ty, src.height - 1))[clamp_index(x0 + tx, src.width - 1)];
    }
    __syncthreads();
}

__global__ void gaussian_smem_kernel(fv_image src, fv_image dst, gaussian_weights gw)
{
    extern __shared__ uchar4 tile[];
    const int r = gw.radius;
    const int tile_w = SMEM_BLOCK + 2 * r; /* +2r: apron of r pixels on each side */
    load_tile(src, tile, blockIdx.x * SMEM_BLOCK - r, blockIdx.y * SMEM_BLOCK - r, tile_w, tile_w);

    const int x = blockIdx.x * SMEM_BLOCK + threadIdx.x;
    const int y = blockIdx.y * SMEM_BLOCK + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    float sr = 32768.f, sg = 32768.f, sb = 32768.f;
    for (int i = 0; i <= 2 * r; i++) {
        const uchar4 *row = tile + (threadIdx.y + i) * tile_w + threadIdx.x;
        const float wi = gw.wf_pad[i + 1];
        for (int j = 0; j <= 2 * r; j++) {
            const uchar4 px = row[j];
            const float wij = wi * gw.wf_pad[j + 1];
            sr = fmaf(wij, px.x, sr);
            sg = fmaf(wij, px.y, sg);
            sb = fmaf(wij, px.z, sb);
        }
    }
    const uint8_t alpha = tile[(threadIdx.y + r) * tile_w + threadIdx.x + r].w;
    reinterpret_cast<uchar4 *>(dst.data + (size_t)y * dst.pitch)[x] =
        round_rgb_keep_alpha(sr, sg, sb, alpha);
}

__global__ void gaussian_smem_mwpt_kernel(fv_image src, fv_image dst, gaussian_weights gw)
{
    extern __shared__ uchar4 tile[];
    const int r = gw.radius;
    const int tile_w = 2 * SMEM_BLOCK + 2 * r; /* 2x2 pixels per thread, +2r apron */
    load_tile(src, tile, blockIdx.x * 2 * SMEM_BLOCK - r, blockIdx.y * 2 * SMEM_BLOCK - r, tile_w,
              tile_w);

    /* Each shared pixel read feeds all four outputs it is a tap of: output (dy, dx) uses it with
     * the weight of tap (i - dy, j - dx); the zero padding of wf_pad makes out-of-range taps 0. */
    float acc[2][2][3];
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int dx = 0; dx < 2; dx++)
#pragma unroll
            for (int c = 0; c < 3; c++) acc[dy][dx][c] = 32768.f;
    const uchar4 *corner = tile + 2 * threadIdx.y * tile_w + 2 * threadIdx.x;
    for (int i = 0; i <= 2 * r + 1; i++) {
        const float wy0 = gw.wf_pad[i + 1], wy1 = gw.wf_pad[i];
        for (int j = 0; j <= 2 * r + 1; j++) {
            const uchar4 px = corner[i * tile_w + j];
            const float wx0 = gw.wf_pad[j + 1], wx1 = gw.wf_pad[j];
            const float w[2][2] = {{wy0 * wx0, wy0 * wx1}, {wy1 * wx0, wy1 * wx1}};
#pragma unroll
            for (int dy = 0; dy < 2; dy++)
#pragma unroll
                for (int dx = 0; dx < 2; dx++) {
                    acc[dy][dx][0] = fmaf(w[dy][dx], px.x, acc[dy][dx][0]);
                    acc[dy][dx][1] = fmaf(w[dy][dx], px.y, acc[dy][dx][1]);
                    acc[dy][dx][2] = fmaf(w[dy][dx], px.z, acc[dy][dx][2]);
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
            const uint8_t alpha = corner[(r + dy) * tile_w + r + dx].w;
            reinterpret_cast<uchar4 *>(dst.data + (size_t)y * dst.pitch)[x] =
                round_rgb_keep_alpha(acc[dy][dx][0], acc[dy][dx][1], acc[dy][dx][2], alpha);
        }
}

static fv_status gaussian_tiled_launch(const fv_image *src, fv_image *dst, const fv_params *p,
                                       cudaStream_t stream, int pixels_per_thread_side)
{
    gaussian_weights gw;
    FV_TRY(gaussian_weights_make(p, &gw));
    const int out_tile = SMEM_BLOCK * pixels_per_thread_side;
    const int tile_w = out_tile + 2 * gw.radius;
    const size_t smem = (size_t)tile_w * tile_w * sizeof(uchar4); /* <= 96^2 * 4 = 36 KiB */
    dim3 block(SMEM_BLOCK, SMEM_BLOCK);
    dim3 grid((src->width + out_tile - 1) / out_tile, (src->height + out_tile - 1) / out_tile);
    if (pixels_per_thread_side == 1)
        gaussian_smem_kernel<<<grid, block, smem, stream>>>(*src, *dst, gw);
    else
        gaussian_smem_mwpt_kernel<<<grid, block, smem, stream>>>(*src, *dst, gw);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static fv_status gaussian_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                   const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    return gaussian_tiled_launch(src, dst, p, stream, 1);
}

static fv_status gaussian_smem_mwpt_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                        const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    return gaussian_tiled_launch(src, dst, p, stream, 2);
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

static fv_status gaussian_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                   const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    fv_gaussian_taps taps;
    FV_TRY(fv_gaussian_taps_make(p, &taps));
    if (gaussian_wide_applies(taps.w, taps.radius) && gaussian_wide_addresses(src) &&
        gaussian_wide_addresses(dst)) /* wide stencils: tensor cores */
        return gaussian_wide_launch(src, dst, taps.w, taps.radius, stream);
    gaussian_weights gw;
    gaussian_weights_of(&taps, &gw);
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

/* ---- what each variant launches (the same constants as its launcher) ---- */
static int gaussian_naive_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                  int max)
{
    (void)p;
    if (max < 1) return 0;
    out[0] = {"gaussian_naive_kernel", (const void *)gaussian_naive_kernel,
              NAIVE_BLOCK_X * NAIVE_BLOCK_Y, 0};
    return 1;
}

static int gaussian_tiled_kernels(const fv_params *p, fv_kernel_info *out, int max,
                                  int pixels_per_thread_side)
{
    if (max < 1) return 0;
    const int tile_w = SMEM_BLOCK * pixels_per_thread_side + 2 * fv_gaussian_radius(p);
    const size_t smem = (size_t)tile_w * tile_w * sizeof(uchar4);
    out[0] =
        pixels_per_thread_side == 1
            ? fv_kernel_info{"gaussian_smem_kernel", (const void *)gaussian_smem_kernel,
                             SMEM_BLOCK * SMEM_BLOCK, smem}
            : fv_kernel_info{"gaussian_smem_mwpt_kernel", (const void *)gaussian_smem_mwpt_kernel,
                             SMEM_BLOCK * SMEM_BLOCK, smem};
    return 1;
}

static int gaussian_smem_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                 int max)
{
    return gaussian_tiled_kernels(p, out, max, 1);
}

static int gaussian_smem_mwpt_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                      int max)
{
    return gaussian_tiled_kernels(p, out, max, 2);
}

static int gaussian_fast_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                 int max)
{
    if (max < 1) return 0;
    fv_gaussian_taps taps;
    if (fv_gaussian_taps_make(p, &taps) == FV_OK && gaussian_wide_applies(taps.w, taps.radius)) {
        out[0] = gaussian_wide_kernel_info(taps.radius);
        return 1;
    }
    const void *fn = nullptr;
    const char *name = nullptr;
    switch (fv_gaussian_radius(p)) {
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

static const fv_variant gaussian_variants[] = {
    {.name = "naive",
     .summary = "one thread per pixel; all (2r+1)^2 taps read from global memory",
     .run = gaussian_naive_run,
     .kernels = gaussian_naive_kernels},
    {.name = "smem",
     .summary = "16x16 block stages its tile plus an r-pixel apron in shared memory, taps read it",
     .run = gaussian_smem_run,
     .kernels = gaussian_smem_kernels},
    {.name = "smem_mwpt",
     .summary = "shared tile, each thread computes 2x2 pixels: one shared read feeds 4 outputs",
     .run = gaussian_smem_mwpt_run,
     .kernels = gaussian_smem_mwpt_kernels},
    {.name = "fast",
     .role = FV_ROLE_FASTEST,
     .summary = "separable in one kernel: 16-byte loads, packed integer math, register windows; "
                "wide radii: both passes as band-matrix products on int8 tensor cores",
     .run = gaussian_fast_run,
     .kernels = gaussian_fast_kernels},
    FV_VARIANT_NPP_GAUSSIAN FV_VARIANT_CPU,
};

static const fv_param_desc gaussian_params[GAUSSIAN_N_PARAMS] = {
    [GAUSSIAN_SIGMA] = {.name = "sigma",
                        .help = "standard deviation in pixels",
                        .type = FV_PARAM_REAL,
                        .min = 0.1,
                        .max = FV_GAUSSIAN_MAX_SIGMA,
                        .step = 0.25,
                        .def = 1.0},
    [GAUSSIAN_RADIUS] = {.name = "radius",
                         .help = "half-width of the stencil; follows sigma unless given",
                         .type = FV_PARAM_INT,
                         .min = 1,
                         .max = FV_GAUSSIAN_MAX_RADIUS,
                         .step = 1,
                         .def = 2,
                         .auto_means = "ceil(3 sigma)",
                         .follows = "sigma"},
};

/* besides each parameter's corners (sigma 10.66 = radius 32, and radius 32 at sigma 1): the
 * default 5x5, small and odd sigmas, and wide ones, with the radius derived and
 * given; for fast's tensor-core path its first radius, radii 8k+1 (the most apron columns) and
 * 8k-1, and taps that do not fit 8 bits (sigma 0.1 at radius 32: the packed-integer kernel) */
static const char *const gaussian_test_params[] = {
    "sigma=0.5",         "sigma=1.3",           "sigma=3",
    "sigma=1 radius=1",  "sigma=1 radius=3",    "sigma=10.6",
    "sigma=5",           "sigma=2 radius=5",    "sigma=8 radius=25",
    "sigma=4 radius=23", "sigma=0.1 radius=32", NULL};

/* the farthest tap whose integer weight is not 0 (a radius far beyond 3 sigma adds zeros) */
static int gaussian_reach(const fv_params *p)
{
    fv_gaussian_taps t;
    if (fv_gaussian_taps_make(p, &t) != FV_OK) return (int)p->value[GAUSSIAN_RADIUS];
    int reach = t.radius;
    while (reach > 0 && t.w[t.radius + reach] == 0) reach--;
    return reach;
}

extern "C" const fv_filter fv_filter_gaussian = {
    .name = "gaussian",
    .summary = "Gaussian blur (sigma, radius = ceil(3 sigma); default 5x5), alpha kept",
    .params = gaussian_params,
    .n_params = GAUSSIAN_N_PARAMS,
    .ref = gaussian_ref,
    .check = gaussian_check,
    .resolve = gaussian_resolve,
    .variants = gaussian_variants,
    .n_variants = (int)(sizeof gaussian_variants / sizeof gaussian_variants[0]),
    .baseline = "naive",
    .tolerance = {0, 0.0},
    .reach = gaussian_reach,
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = FV_MAX_ITERATIONS,
    .test_params = gaussian_test_params,
};
