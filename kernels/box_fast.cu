/* ------------------------------------------------------------------------------------------------
 * kernels/box_fast.cu: the box filter's `fast` variant: constant work per pixel whatever the
 * radius, in two passes over an intermediate that the variant owns as device state.
 *
 *   vertical   one thread per column and segment of rows keeps a sliding window sum: add the
 *              row entering the window, subtract the row leaving it (2 loads per output, plus
 *              2r+1 once per segment). R and B share one 32-bit word as 16-bit lanes, G and
 *              the centre pixel's alpha share another: a column sum of 2r+1 <= 257 values is at
 *              most 65535, and the sliding update is exact modulo 2^32 (the true lane values are
 *              always in range, whatever borrows the intermediate steps make). Writes 8 bytes a
 *              pixel.
 *   horizontal one block per row walks it in chunks of 1024 pixels: a block-wide prefix sum of
 *              the column sums (warp shuffles), kept for three chunks in shared memory, gives
 *              each output as the difference of two prefixes; replicated borders are counted
 *              arithmetically. The mean is box_mean (exact multiply-shift division).
 * Equals box_ref byte for byte (tests/test_filters.c). The intermediate costs 8 bytes written
 * and read per pixel: 24 bytes of traffic per pixel in all, against 8 for a single pass.
 * ------------------------------------------------------------------------------------------------ */
#include "box.h"
#include "cuda_check.h"

#include <stdlib.h>

#define VERTICAL_BLOCK 128          /* threads (columns) per block of the vertical pass */
#define VERTICAL_UNROLL 8           /* rows whose loads are in flight together */
#define HORIZONTAL_THREADS 256      /* threads per row in the horizontal pass */
#define CHUNK (4 * HORIZONTAL_THREADS) /* pixels per chunk: 4 per thread */
#define RING 3                      /* chunks of prefixes kept: outputs of chunk k-1 need k-2..k */
#define WARPS (HORIZONTAL_THREADS / 32)

const char box_fast_summary[] =
    "constant work per pixel: sliding column sums (16-bit lanes), then row prefix sums in shared memory";

typedef struct box_fast_state {
    uint2 *columns;                 /* per pixel: R | B << 16, G | alpha << 16 */
    int pitch;                      /* pixels per row of `columns` (a multiple of 4) */
} box_fast_state;

/* rows per vertical segment: longer for wide windows, so the 2r+1 start-up loads stay a
 * small share of each thread's work */
static int vertical_segment(int radius) { return radius <= 16 ? 32 : (radius <= 64 ? 64 : 128); }

static int columns_pitch(int width) { return (width + 3) & ~3; }

size_t box_fast_state_bytes(const fv_params *p, int width, int height)
{
    (void)p;
    return sizeof(uint2) * (size_t)columns_pitch(width) * (size_t)height;
}

fv_status box_fast_state_create(void **state, const fv_params *p, int width, int height)
{
    box_fast_state *s = (box_fast_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "box/fast: out of host memory");
    s->pitch = columns_pitch(width);
    /* zeroed once: the pass reads whole groups of 4, the padding beyond the width included */
    if (cudaMalloc((void **)&s->columns, box_fast_state_bytes(p, width, height)) != cudaSuccess ||
        cudaMemset(s->columns, 0, box_fast_state_bytes(p, width, height)) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(s->columns);
        free(s);
        return fv_fail(FV_ERR_MEMORY, "box/fast: cannot allocate its %zu MiB of column sums",
                       box_fast_state_bytes(p, width, height) >> 20);
    }
    *state = s;
    return FV_OK;
}

void box_fast_state_destroy(void *state)
{
    box_fast_state *s = (box_fast_state *)state;
    if (!s) return;
    cudaFree(s->columns);
    free(s);
}

__device__ __forceinline__ uint32_t load_pixel(const fv_image &img, int x, int y)
{
    return __ldg(reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch) + x);
}

/* R and B as 16-bit lanes of one word; G alone */
__device__ __forceinline__ uint32_t lanes_rb(uint32_t px) { return __byte_perm(px, 0, 0x4240); }
__device__ __forceinline__ uint32_t lane_g(uint32_t px) { return __byte_perm(px, 0, 0x4441); }

__global__ void __launch_bounds__(VERTICAL_BLOCK)
    box_fast_vertical_kernel(fv_image src, uint2 *__restrict__ columns, int pitch, int radius, int segment)
{
    const int x = blockIdx.x * VERTICAL_BLOCK + threadIdx.x;
    if (x >= src.width) return;
    const int last = src.height - 1;
    const int y0 = blockIdx.y * segment;
    const int y_end = min(y0 + segment, src.height);
    uint32_t rb = 0, g = 0;
#pragma unroll 8
    for (int i = -radius; i <= radius; i++) {
        const uint32_t px = load_pixel(src, x, min(max(y0 + i, 0), last));
        rb += lanes_rb(px);
        g += lane_g(px);
    }
    /* VERTICAL_UNROLL rows at a time: all their loads are issued before the first store, so
     * the memory latency is paid once per group rather than once per row */
    for (int y = y0; y < y_end; y += VERTICAL_UNROLL) {
        uint32_t enter[VERTICAL_UNROLL], leave[VERTICAL_UNROLL], centre[VERTICAL_UNROLL];
#pragma unroll
        for (int u = 0; u < VERTICAL_UNROLL; u++) {
            const int yu = min(y + u, last);
            centre[u] = load_pixel(src, x, yu);
            enter[u] = load_pixel(src, x, min(yu + 1 + radius, last)); /* row y+1+r enters */
            leave[u] = load_pixel(src, x, max(yu - radius, 0));        /* row y-r leaves */
        }
#pragma unroll
        for (int u = 0; u < VERTICAL_UNROLL; u++) {
            if (y + u >= y_end) break;
            columns[(size_t)(y + u) * pitch + x] = make_uint2(rb, (g & 0xffffu) | (centre[u] >> 24) << 16);
            rb += lanes_rb(enter[u]) - lanes_rb(leave[u]);
            g += lane_g(enter[u]) - lane_g(leave[u]);
        }
    }
}

/* inclusive prefix over the block of one value per thread; `totals` receives each warp's sum */
__device__ __forceinline__ uint32_t warp_inclusive_scan(uint32_t v)
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const uint32_t other = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v += other;
    }
    return v;
}

__device__ __forceinline__ uint32_t get_q(const uint4 &v, int q)
{
    return q == 0 ? v.x : q == 1 ? v.y : q == 2 ? v.z : v.w;
}

__global__ void __launch_bounds__(HORIZONTAL_THREADS)
    box_fast_horizontal_kernel(const uint2 *__restrict__ columns, int pitch, fv_image dst, int radius,
                               box_divider div)
{
    __shared__ uint32_t prefix[RING][3][CHUNK]; /* inclusive prefixes of R, G, B per column */
    __shared__ uint32_t warp_totals[WARPS][3];
    __shared__ uint8_t alpha_ring[RING][CHUNK]; /* the centre pixels' alphas */
    __shared__ uint32_t first[3], last[3];      /* column sums at x = 0 and x = width - 1 */
    const int y = blockIdx.x;
    const int width = dst.width;
    const int t = threadIdx.x, warp = t >> 5, lane = t & 31;
    const int n_chunks = (width + CHUNK - 1) / CHUNK;
    const uint2 *row = columns + (size_t)y * pitch;
    uint32_t carry[3] = {0, 0, 0};              /* the sum over all earlier chunks */
    uint32_t alpha_now = 0;                     /* this thread's 4 alphas of chunk k */

    /* the next chunk's column sums are loaded while this one's outputs are written */
    uint4 next_a = make_uint4(0, 0, 0, 0), next_b = next_a;
    if (4 * t < width) {
        next_a = reinterpret_cast<const uint4 *>(row + 4 * t)[0];
        next_b = reinterpret_cast<const uint4 *>(row + 4 * t)[1];
    }
    for (int k = 0; k <= n_chunks; k++) {
        if (k < n_chunks) {
            const int x0 = k * CHUNK + 4 * t;
            uint32_t v[3][4];
            alpha_now = 0;
            if (x0 < width) {
                const uint4 a = next_a, b = next_b; /* pixels x0, x0+1 and x0+2, x0+3 */
                const uint32_t rb[4] = {a.x, a.z, b.x, b.z}, ga[4] = {a.y, a.w, b.y, b.w};
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const bool inside = x0 + q < width;
                    v[0][q] = inside ? rb[q] & 0xffffu : 0;
                    v[1][q] = inside ? ga[q] & 0xffffu : 0;
                    v[2][q] = inside ? rb[q] >> 16 : 0;
                    alpha_now |= ((ga[q] >> 16) & 0xffu) << (8 * q);
                }
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++) v[0][q] = v[1][q] = v[2][q] = 0;
            }
            if (x0 + CHUNK < width) {
                next_a = reinterpret_cast<const uint4 *>(row + x0 + CHUNK)[0];
                next_b = reinterpret_cast<const uint4 *>(row + x0 + CHUNK)[1];
            }
            if (k == 0 && t == 0)
                for (int c = 0; c < 3; c++) first[c] = v[c][0];
            uint32_t total[3];
#pragma unroll
            for (int c = 0; c < 3; c++) {
                v[c][1] += v[c][0];
                v[c][2] += v[c][1];
                v[c][3] += v[c][2];
                total[c] = warp_inclusive_scan(v[c][3]);
                if (lane == 31) warp_totals[warp][c] = total[c];
            }
            const int slot = k % RING;
            *reinterpret_cast<uint32_t *>(&alpha_ring[slot][4 * t]) = alpha_now;
            __syncthreads();
#pragma unroll
            for (int c = 0; c < 3; c++) {
                /* the warps' totals, scanned across the first WARPS lanes of every warp */
                uint32_t warps_scan = lane < WARPS ? warp_totals[lane][c] : 0;
#pragma unroll
                for (int offset = 1; offset < WARPS; offset <<= 1) {
                    const uint32_t other = __shfl_up_sync(0xffffffffu, warps_scan, offset);
                    if (lane >= offset) warps_scan += other;
                }
                const uint32_t earlier_warps = __shfl_sync(0xffffffffu, warps_scan, warp > 0 ? warp - 1 : 0);
                const uint32_t chunk_total = __shfl_sync(0xffffffffu, warps_scan, WARPS - 1);
                uint32_t before = carry[c] + total[c] - v[c][3] + (warp > 0 ? earlier_warps : 0);
                carry[c] += chunk_total;
                *reinterpret_cast<uint4 *>(&prefix[slot][c][4 * t]) =
                    make_uint4(before + v[c][0], before + v[c][1], before + v[c][2], before + v[c][3]);
                const int last_q = width - 1 - x0; /* the row's last pixel is ours */
                if (last_q >= 0 && last_q < 4)
                    last[c] = v[c][last_q] - (last_q ? v[c][last_q - 1] : 0);
            }
        }
        __syncthreads();
        if (k >= 1) { /* outputs of chunk k - 1: thread t writes pixels t, t + 256, ... so that
                       * neighbouring threads read neighbouring prefixes (no bank conflicts) */
            uint8_t *dst_row = dst.data + (size_t)y * dst.pitch;
            const int slot = (k - 1) % RING;
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const int x = (k - 1) * CHUNK + q * HORIZONTAL_THREADS + t;
                if (x >= width) break;
                const int hi = min(x + radius, width - 1); /* P(hi) - P(lo - 1) */
                const int lo = max(x - radius, 0);
                const uint32_t n_left = (uint32_t)max(radius - x, 0);
                const uint32_t n_right = (uint32_t)max(x + radius - (width - 1), 0);
                uint32_t ch[3];
#pragma unroll
                for (int c = 0; c < 3; c++) {
                    const uint32_t p_hi = prefix[(hi / CHUNK) % RING][c][hi % CHUNK];
                    const uint32_t p_lo = lo > 0 ? prefix[((lo - 1) / CHUNK) % RING][c][(lo - 1) % CHUNK] : 0;
                    ch[c] = box_mean(p_hi - p_lo + n_left * first[c] + n_right * last[c], div);
                }
                const uint32_t alpha = alpha_ring[slot][q * HORIZONTAL_THREADS + t];
                reinterpret_cast<uint32_t *>(dst_row)[x] = ch[0] | ch[1] << 8 | ch[2] << 16 | alpha << 24;
            }
        }
    }
}

int box_fast_kernels(const fv_params *p, fv_kernel_info *out, int max)
{
    (void)p;
    if (max < 2) return 0;
    out[0] = {"box_fast_vertical_kernel", (const void *)box_fast_vertical_kernel, VERTICAL_BLOCK, 0};
    out[1] = {"box_fast_horizontal_kernel", (const void *)box_fast_horizontal_kernel, HORIZONTAL_THREADS, 0};
    return 2;
}

fv_status box_fast_run(const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                       cudaStream_t stream)
{
    const box_fast_state *s = (const box_fast_state *)state;
    if (!s) return fv_fail(FV_ERR_ARG, "box/fast: run without its state");
    const int radius = (int)p->value[BOX_RADIUS];
    const int segment = vertical_segment(radius);
    dim3 vgrid((src->width + VERTICAL_BLOCK - 1) / VERTICAL_BLOCK, (src->height + segment - 1) / segment);
    box_fast_vertical_kernel<<<vgrid, VERTICAL_BLOCK, 0, stream>>>(*src, s->columns, s->pitch, radius, segment);
    FV_CUDA_CHECK(cudaGetLastError());
    box_fast_horizontal_kernel<<<src->height, HORIZONTAL_THREADS, 0, stream>>>(
        s->columns, s->pitch, *dst, radius, box_divider_make(radius));
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}
