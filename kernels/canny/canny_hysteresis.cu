/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_hysteresis.cu: the Canny variants' hysteresis, which labels every weak pixel
 * with an upper bound of its chain length to a strong pixel (kernels/canny/canny.h) and relaxes
 * the labels until nothing lowers:
 *   naive  sweeps over the whole image, the host reading a changed-flag after each
 *   smem   rounds of 32x16 tiles, each converged in shared memory, the host reading the flag
 *   fast   one cooperative kernel of tile rounds split by grid-wide barriers; full hysteresis on
 *          bit masks (a warp a 62x30 tile), later rounds only on tiles whose ring changed
 * Each relaxation only lowers a label to another valid bound, so any order of sweeps, tiles and
 * rounds stops at the fixed point canny_ref's breadth-first search computes: equal byte for byte
 * (tests/gpu/test_filters.c). The variants' other stages are in canny.cu.
 * ------------------------------------------------------------------------------------------------ */
#include "canny_internal.h"
#include "cuda_check.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

/* least label of the 8 neighbours (CANNY_NONE outside the image) */
__device__ __forceinline__ unsigned least_neighbour_global(const volatile uint16_t *label, int x,
                                                           int y, int w, int h)
{
    unsigned least = CANNY_NONE;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            const int xx = x + dx, yy = y + dy;
            if ((dx | dy) == 0 || xx < 0 || xx >= w || yy < 0 || yy >= h) continue;
            const unsigned v = label[(size_t)yy * w + xx];
            least = v < least ? v : least;
        }
    return least;
}

/* One sweep in place: labels read while neighbours write them are old or new, valid either way. */
__global__ void canny_relax_naive_kernel(canny_args a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    volatile uint16_t *label = a.label;
    const size_t i = (size_t)y * a.w + x;
    const unsigned old = label[i];
    if (old == 0 || old == CANNY_NONE) return;
    const unsigned now = canny_relax(old, least_neighbour_global(label, x, y, a.w, a.h), a.inc);
    if (now < old) {
        label[i] = (uint16_t)now;
        a.misc[MISC_CHANGED] = 1;
    }
}

/* ---- hysteresis by sweeps or tile rounds with the host reading the changed-flag -------------- */
fv_status canny_hysteresis_host_loop(const canny_args *a, canny_state *s,
                                     canny_sweep_launch_fn launch, const char *unit,
                                     cudaStream_t stream)
{
    s->hysteresis_unit = unit;
    s->rounds_on_device = 0;
    for (s->hysteresis_steps = 1;;
         s->hysteresis_steps++) { /* every sweep that changes something lowers a label: this ends */
        FV_CUDA_CHECK(cudaMemsetAsync(a->misc + MISC_CHANGED, 0, sizeof(unsigned), stream));
        launch(a, stream);
        FV_CUDA_CHECK(cudaGetLastError());
        FV_CUDA_CHECK(cudaMemcpyAsync(s->host_flag, a->misc + MISC_CHANGED, sizeof(unsigned),
                                      cudaMemcpyDeviceToHost, stream));
        FV_CUDA_CHECK(cudaStreamSynchronize(stream));
        if (!*s->host_flag) return FV_OK;
    }
}

void canny_relax_naive_launch(const canny_args *a, cudaStream_t stream)
{
    canny_relax_naive_kernel<<<pixel_grid(a->w, a->h), dim3(PIXEL_BLOCK_X, PIXEL_BLOCK_Y), 0,
                               stream>>>(*a);
}

/* ---- hysteresis on tiles: converge inside the tile in shared memory ------------------------- */
/* Loads the tile's labels and a one-pixel ring (CANNY_NONE outside the image), relaxes in Jacobi
 * steps (all read, barrier, all write) until nothing in the tile lowers, writes back what did.
 * Returns (to every thread) whether anything changed. COHERENT: loads and stores through L2 only,
 * for the cooperative kernel, whose other blocks write labels while it runs. */
template <bool COHERENT> __device__ bool tile_hysteresis(const canny_args &a, int x0, int y0)
{
    __shared__ uint16_t lab[TILE_H + 2][TILE_W + 2];
    for (int idx = threadIdx.x; idx < (TILE_H + 2) * (TILE_W + 2); idx += TILE_THREADS) {
        const int k = idx / (TILE_W + 2), j = idx - k * (TILE_W + 2), x = x0 - 1 + j,
                  y = y0 - 1 + k;
        unsigned v = CANNY_NONE;
        if (x >= 0 && x < a.w && y >= 0 && y < a.h) {
            const uint16_t *q = a.label + (size_t)y * a.w + x;
            v = COHERENT ? __ldcg(q) : *q;
        }
        lab[k][j] = (uint16_t)v;
    }
    __syncthreads();
    /* each thread owns 2 pixels: idx and idx + 256 */
    unsigned start[2], mine[2];
    for (int e = 0; e < 2; e++) {
        const int idx = threadIdx.x + e * TILE_THREADS, k = idx / TILE_W, j = idx - k * TILE_W;
        start[e] = mine[e] = lab[k + 1][j + 1];
    }
    bool more = true;
    while (more) {
        unsigned now[2];
        bool lowered = false;
        for (int e = 0; e < 2; e++) {
            const int idx = threadIdx.x + e * TILE_THREADS, k = idx / TILE_W, j = idx - k * TILE_W;
            now[e] = mine[e];
            if (mine[e] == 0 || mine[e] == CANNY_NONE) continue;
            unsigned least = CANNY_NONE;
            for (int dy = 0; dy <= 2; dy++)
                for (int dx = 0; dx <= 2; dx++)
                    if (dy != 1 || dx != 1) least = min(least, (unsigned)lab[k + dy][j + dx]);
            now[e] = canny_relax(mine[e], least, a.inc);
            lowered |= now[e] < mine[e];
        }
        __syncthreads();
        for (int e = 0; e < 2; e++) {
            const int idx = threadIdx.x + e * TILE_THREADS, k = idx / TILE_W, j = idx - k * TILE_W;
            if (now[e] < mine[e]) lab[k + 1][j + 1] = (uint16_t)now[e];
            mine[e] = now[e];
        }
        more = __syncthreads_or(lowered);
    }
    bool changed = false;
    for (int e = 0; e < 2; e++) {
        const int idx = threadIdx.x + e * TILE_THREADS, k = idx / TILE_W, j = idx - k * TILE_W,
                  x = x0 + j, y = y0 + k;
        if (mine[e] == start[e] || x >= a.w || y >= a.h)
            continue; /* ring-less pixels outside never lower */
        uint16_t *q = a.label + (size_t)y * a.w + x;
        if (COHERENT)
            __stcg(q, (uint16_t)mine[e]);
        else
            *q = (uint16_t)mine[e];
        changed = true;
    }
    return __syncthreads_or(changed);
}

__global__ void __launch_bounds__(TILE_THREADS) canny_hysteresis_tile_kernel(canny_args a)
{
    if (tile_hysteresis<false>(a, blockIdx.x * TILE_W, blockIdx.y * TILE_H) && threadIdx.x == 0)
        a.misc[MISC_CHANGED] = 1;
}

void canny_relax_tile_launch(const canny_args *a, cudaStream_t stream)
{
    canny_hysteresis_tile_kernel<<<tile_grid(a->w, a->h), TILE_THREADS, 0, stream>>>(*a);
}

/* fast: every block walks its share of the tiles each round; a grid-wide barrier ends a round, and
 * all blocks read the round's flag after it. Three flags rotate: round n sets flag n % 3, which
 * was cleared during round n - 2 (after the barrier that ended the last reads of it), and nobody
 * sets it again before round n + 3 begins. */
__global__ void __launch_bounds__(TILE_THREADS) canny_hysteresis_coop_kernel(canny_args a)
{
    cg::grid_group grid = cg::this_grid();
    const int tiles_x = (a.w + TILE_W - 1) / TILE_W,
              tiles = tiles_x * ((a.h + TILE_H - 1) / TILE_H);
    unsigned *flags = a.misc + MISC_ROUND_FLAGS;
    for (unsigned round = 0;; round++) {
        bool changed = false;
        for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
            const int ty = tile / tiles_x, tx = tile - ty * tiles_x;
            changed |= tile_hysteresis<true>(a, tx * TILE_W, ty * TILE_H);
        }
        if (changed && threadIdx.x == 0) atomicOr(&flags[round % 3], 1u);
        grid.sync();
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            flags[(round + 2) % 3] = 0;
            a.misc[MISC_ROUNDS] = round + 1; /* for the bench's note, read after the run */
        }
        if (__ldcg(&flags[round % 3]) == 0) return;
    }
}

/* fast, full hysteresis (inc 0: a weak pixel is an edge when any chain joins it to a strong one):
 * the labels as bit masks. A warp takes a BITS_W x BITS_H tile; lane k holds row y0 - 1 + k as two
 * 64-bit masks over columns x0 - 1 .. x0 + 62 (bit j = column x0 - 1 + j): `cand` (weak or strong)
 * and `strong`. The ring (lanes 0 and 31, bits 0 and 63) belongs to the neighbouring tiles and is
 * only read. A step grows `strong` into the candidates next to it (8-neighbourhood: the rows
 * above and below by shuffles, left and right by shifts), then along whole runs of candidates in a
 * row at once (Kogge-Stone fills, six shift-and-mask steps a direction); steps repeat until the
 * tile stops changing. Newly strong pixels are written back as label 0.
 * Rounds: round 0 takes every tile, later rounds only the tiles whose ring a neighbour changed
 * (dirty[round & 1], marked by that neighbour), with grid-wide barriers between rounds. The
 * result is the same fixed point as every other order of growth: what is joined to a strong pixel. */
__device__ __forceinline__ unsigned long long fill_up(unsigned long long gen,
                                                      unsigned long long pro)
{
    gen |= pro & (gen << 1);
    pro &= pro << 1;
    gen |= pro & (gen << 2);
    pro &= pro << 2;
    gen |= pro & (gen << 4);
    pro &= pro << 4;
    gen |= pro & (gen << 8);
    pro &= pro << 8;
    gen |= pro & (gen << 16);
    pro &= pro << 16;
    return gen | (pro & (gen << 32));
}

__device__ __forceinline__ unsigned long long fill_down(unsigned long long gen,
                                                        unsigned long long pro)
{
    gen |= pro & (gen >> 1);
    pro &= pro >> 1;
    gen |= pro & (gen >> 2);
    pro &= pro >> 2;
    gen |= pro & (gen >> 4);
    pro &= pro >> 4;
    gen |= pro & (gen >> 8);
    pro &= pro >> 8;
    gen |= pro & (gen >> 16);
    pro &= pro >> 16;
    return gen | (pro & (gen >> 32));
}

/* One tile by one warp; returns (to every lane) the sides whose pixels changed: bit 0 top, 1
 * bottom, 2 left, 3 right, 4..7 the corners top-left, top-right, bottom-left, bottom-right. */
__device__ unsigned bits_tile(const canny_args &a, int x0, int y0)
{
    const unsigned lane = threadIdx.x & 31, all = 0xffffffffu;
    unsigned long long cand = 0, strong = 0;
    /* Row y0 - 1 + k: lane j reads columns x0 - 1 + j (v0) and x0 + 31 + j (v1). A batch's loads
     * go out together, then its ballots: straight-line code, every load from a clamped address,
     * what lies outside the image replaced by CANNY_NONE afterwards. */
    const int xa = x0 - 1 + (int)lane, xb = xa + 32, y_c = canny_clamp(y0 - 1, a.h - 1);
    const bool in_a = xa >= 0 && xa < a.w, in_b = xb < a.w;
    const uint16_t *col_a = a.label + (size_t)y_c * a.w + canny_clamp(xa, a.w - 1);
    const uint16_t *col_b = a.label + (size_t)y_c * a.w + canny_clamp(xb, a.w - 1);
#pragma unroll
    for (int k0 = 0; k0 < 32; k0 += BITS_BATCH) {
        unsigned v0s[BITS_BATCH], v1s[BITS_BATCH];
#pragma unroll
        for (int k = 0; k < BITS_BATCH; k++) {
            const unsigned row = (unsigned)(canny_clamp(y0 - 1 + k0 + k, a.h - 1) - y_c) *
                                 (unsigned)a.w; /* < 32 rows */
            v0s[k] = __ldcg(col_a + row);
            v1s[k] = __ldcg(col_b + row);
        }
#pragma unroll
        for (int k = 0; k < BITS_BATCH; k++) {
            const int y = y0 - 1 + k0 + k;
            const bool row_in = y >= 0 && y < a.h;
            const unsigned v0 = row_in && in_a ? v0s[k] : CANNY_NONE,
                           v1 = row_in && in_b ? v1s[k] : CANNY_NONE;
            const unsigned c0 = __ballot_sync(all, v0 != CANNY_NONE),
                           c1 = __ballot_sync(all, v1 != CANNY_NONE);
            const unsigned s0 = __ballot_sync(all, v0 == 0), s1 = __ballot_sync(all, v1 == 0);
            if (lane == (unsigned)(k0 + k)) {
                cand = c0 | (unsigned long long)c1 << 32;
                strong = s0 | (unsigned long long)s1 << 32;
            }
        }
    }
    /* what may change: inner rows (lanes 1..30) and inner columns (bits 1..62) */
    const unsigned long long inner = (lane >= 1 && lane <= BITS_H) ? 0x7ffffffffffffffeull : 0ull;
    const unsigned long long grow_into = cand & ~strong & inner, before = strong;
    if (!__any_sync(all, grow_into != 0) || !__any_sync(all, strong != 0)) return 0;
    const unsigned long long runs = cand & inner; /* strong pixels carry growth along a run too */
    for (;;) {
        unsigned long long up = __shfl_up_sync(all, strong, 1),
                           down = __shfl_down_sync(all, strong, 1);
        if (lane == 0) up = 0;
        if (lane == 31) down = 0;
        unsigned long long near = strong | up | down;
        near |= (near << 1) | (near >> 1);
        unsigned long long grown = strong | (near & grow_into);
        grown |= (fill_up(grown & runs, runs) | fill_down(grown & runs, runs)) & grow_into;
        const bool changed = grown != strong;
        strong = grown;
        if (!__any_sync(all, changed)) break;
    }
    /* write the newly strong pixels back and say which sides of the tile changed */
    unsigned long long fresh = strong & ~before;
    const int y = y0 - 1 + (int)lane;
    const unsigned long long left_bit = 2ull, right_bit = 1ull << BITS_W;
    unsigned sides = 0;
    if (fresh) {
        if (lane == 1) sides |= 1u | (fresh & left_bit ? 16u : 0u) | (fresh & right_bit ? 32u : 0u);
        if (lane == BITS_H)
            sides |= 2u | (fresh & left_bit ? 64u : 0u) | (fresh & right_bit ? 128u : 0u);
        if (fresh & left_bit) sides |= 4u;
        if (fresh & right_bit) sides |= 8u;
    }
    while (fresh) { /* fresh bits are inside the image: only candidates grow */
        const int j = __ffsll((long long)fresh) - 1;
        fresh &= fresh - 1;
        __stcg(a.label + (size_t)y * a.w + (x0 - 1 + j), (uint16_t)0);
    }
    for (int offset = 16; offset > 0; offset >>= 1) sides |= __shfl_xor_sync(all, sides, offset);
    return sides;
}

__global__ void __launch_bounds__(TILE_THREADS, BITS_MIN_BLOCKS)
    canny_hysteresis_bits_kernel(canny_args a, uint8_t *dirty)
{
    cg::grid_group grid = cg::this_grid();
    const int tiles_x = (a.w + BITS_W - 1) / BITS_W, tiles_y = (a.h + BITS_H - 1) / BITS_H,
              tiles = tiles_x * tiles_y;
    const int warp = (int)(blockIdx.x * (TILE_THREADS / 32) + threadIdx.x / 32),
              warps = (int)gridDim.x * (TILE_THREADS / 32);
    unsigned *flags = a.misc + MISC_ROUND_FLAGS;
    for (unsigned round = 0;; round++) {
        uint8_t *now = dirty + (size_t)(round & 1) * tiles,
                *next = dirty + (size_t)((round + 1) & 1) * tiles;
        bool changed = false;
        for (int tile = warp; tile < tiles; tile += warps) {
            if (round > 0 && !__ldcg(now + tile)) continue;
            if (round > 0 && (threadIdx.x & 31) == 0) __stcg(now + tile, (uint8_t)0);
            const int ty = tile / tiles_x, tx = tile - ty * tiles_x;
            const unsigned sides = bits_tile(a, tx * BITS_W, ty * BITS_H);
            if (!sides || (threadIdx.x & 31) != 0) continue;
            changed = true;
            const int mark[8][2] = {{0, -1},  {0, 1},  {-1, 0}, {1, 0},
                                    {-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
            for (int k = 0; k < 8; k++) {
                const int nx = tx + mark[k][0], ny = ty + mark[k][1];
                if ((sides >> k & 1) && nx >= 0 && nx < tiles_x && ny >= 0 && ny < tiles_y)
                    __stcg(next + ny * tiles_x + nx, (uint8_t)1);
            }
        }
        if (__syncthreads_or(changed) && threadIdx.x == 0) atomicOr(&flags[round % 3], 1u);
        grid.sync();
        if (blockIdx.x == 0 && threadIdx.x == 0) {
            flags[(round + 2) % 3] = 0;
            a.misc[MISC_ROUNDS] = round + 1;
        }
        if (__ldcg(&flags[round % 3]) == 0) return;
    }
}
