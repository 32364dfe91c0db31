/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_fast.cu: the box filter's `fast` variant: constant work per pixel whatever the
 * radius, in one pass over the image (plus, for wide windows, a light pass that sums row bands).
 *
 * A group of warps owns a strip of columns (4 adjacent ones per thread) and a band of rows, and
 * walks the band top to bottom:
 *   column sums  each thread keeps the vertical window sums of its 4 columns in registers: add
 *                the row entering the window, subtract the row leaving it. R and B share one word
 *                as 16-bit lanes (a column sum of 2r+1 <= 257 values is at most 65535; the packed
 *                update is exact modulo 2^32).
 *   row sums     a prefix sum of the column sums across the group goes to shared memory (double
 *                buffered); each output is the difference of two prefixes plus area / 2, divided
 *                exactly by one high multiply (box_quotient_hi) or a multiply and a shift
 *                (box_quotient). Up to r = 63 each warp keeps its own prefix and an output whose
 *                window crosses into the next warp adds the first warp's last one. Strips overlap
 *                by 2r + 3 columns; the outside of the image is clamped.
 *   groups       one warp up to r = 20, the whole block beyond (and from r = 13 on small images),
 *                4 warps for r = 10..31 on large images (box_fast_group_warps).
 *   packing      through the prefix a column's three sums travel as R | B << 16 and G up to
 *                r = 7 (16-bit lanes), as R | G << 21 | B << 42 in one 64-bit word up to r = 44
 *                (21-bit lanes), as 3 plain words beyond.
 *   loads        interior blocks load each group of 4 columns as one 16-byte load, unclamped;
 *                rows are addressed by a 32-bit multiply-add (pitch < 4 GiB).
 *   occupancy    every kernel is built for 3 blocks a SM (80 registers); block groups of PACK21
 *                on large images also for 4 (the dense kernel, 64 registers).
 *   bands        short on large images, about (r + 1) / k rows for wide windows so that blocks a
 *                few bands apart share rows in L2; on small images as tall as the waves of blocks
 *                allow (box_fast_geometry_make).
 *   band start   where a band's first window (2r+1 rows) is more than twice the band, a first
 *                kernel sums every band once per column (band totals) and a window start costs a
 *                few totals plus at most half a band of rows at each end. On compute capability 9
 *                and up the walk is launched programmatically after that pass and waits for it
 *                only to read the totals.
 * The groups, strips and bands for an image and a radius are planned in box_fast_plan.c (plain
 * C); this file holds the kernels, the choice of kernel binary, the state and the run.
 * Nothing is written but the output. Equals box_ref byte for byte (tests/gpu/test_filters.c);
 * figures, what paid and what did not: docs/perf/box.md.
 * ------------------------------------------------------------------------------------------------ */
#include "box.h"
#include "box_fast_plan.h"
#include "cuda_check.h"

#include <stdlib.h>

#define SPAN                (THREADS * COLUMNS_PER_THREAD) /* columns a block sums: outputs plus overlap */
#define BAND_TOTALS_THREADS 256 /* threads (columns) per block of the band-totals pass */
#define MIN_BLOCKS          3   /* blocks per SM the register budget must allow (80 registers) */
#define MIN_BLOCKS_DENSE    4   /* the dense kernel's (64 registers), below */

const char box_fast_summary[] =
    "constant work per pixel in one pass: column window sums slide down in registers "
    "(16-bit lanes), row sums are differences of a warp (r <= 12; <= 9 on large images), 4-warp "
    "(r 10..31 on large images) or block prefix in shared memory (r <= 44: the warps' own, joined "
    "as read); R, G, B packed in 2 words up to r = 44; wide windows start from band totals. "
    "Other types and borders, templated on the type: one kernel of column then row sums up to "
    "r = 12, two sliding-sum passes (columns, then rows) beyond";

/* ---- packed sums ----------------------------------------------------------------------------- */
/* R and B as 16-bit lanes of one word; G alone */
__device__ __forceinline__ uint32_t lanes_rb(uint32_t px)
{
    return __byte_perm(px, 0, 0x4240);
}
__device__ __forceinline__ uint32_t lane_g(uint32_t px)
{
    return __byte_perm(px, 0, 0x4441);
}

struct column_sums { /* the window sums of a thread's 4 columns */
    uint32_t rb[COLUMNS_PER_THREAD], g[COLUMNS_PER_THREAD];
};

/* sums += times * pixels (times may be negative: the arithmetic is modulo 2^32) */
__device__ __forceinline__ void add_pixels(column_sums &s, uint4 px, uint32_t times)
{
    const uint32_t v[4] = {px.x, px.y, px.z, px.w};
#pragma unroll
    for (int q = 0; q < COLUMNS_PER_THREAD; q++) {
        s.rb[q] += times * lanes_rb(v[q]);
        s.g[q] += times * lane_g(v[q]);
    }
}

__device__ __forceinline__ void add_totals(column_sums &s, const uint2 t[4], uint32_t times)
{
#pragma unroll
    for (int q = 0; q < COLUMNS_PER_THREAD; q++) {
        s.rb[q] += times * t[q].x;
        s.g[q] += times * t[q].y;
    }
}

/* ---- loads of 4 adjacent columns, the outside of the image clamped to its edge ---------------- */
/* A row's address: the row (>= 0) times the pitch (< 4 GiB, box_fast_run checks) in one 32 x 32 ->
 * 64-bit multiply-add. */
__device__ __forceinline__ const uint32_t *image_row(const fv_image &img, int y)
{
    return reinterpret_cast<const uint32_t *>(img.data +
                                              (uint64_t)(uint32_t)y * (uint32_t)img.pitch);
}

/* EDGE false: the block's columns all lie inside the image and rows start on 16-byte boundaries,
 * so every group of 4 is one 16-byte load with no test. EDGE true (the blocks at the left and
 * right edges, or rows not 16-byte aligned): a group wholly inside is one 16-byte load where rows
 * allow, else 4 loads of clamped columns. */
template <bool EDGE>
__device__ __forceinline__ uint4 load_group(const fv_image &img, int y, int x0, bool vector)
{
    const uint32_t *row = image_row(img, y);
    if (!EDGE || (vector && x0 >= 0 && x0 + 3 < img.width))
        return __ldg(reinterpret_cast<const uint4 *>(row + x0));
    const int last = img.width - 1;
    return make_uint4(__ldg(row + min(max(x0, 0), last)), __ldg(row + min(max(x0 + 1, 0), last)),
                      __ldg(row + min(max(x0 + 2, 0), last)),
                      __ldg(row + min(max(x0 + 3, 0), last)));
}

__device__ __forceinline__ void load_totals(const uint2 *band_totals, int pitch, int band, int x0,
                                            int width, uint2 out[4])
{
    const uint2 *row = band_totals + (size_t)band * pitch;
    if (x0 >= 0 && x0 + 3 < width) { /* pitch is a multiple of 4, x0 too: two 16-byte loads */
        const uint4 a = __ldg(reinterpret_cast<const uint4 *>(row + x0));
        const uint4 b = __ldg(reinterpret_cast<const uint4 *>(row + x0 + 2));
        out[0] = make_uint2(a.x, a.y), out[1] = make_uint2(a.z, a.w);
        out[2] = make_uint2(b.x, b.y), out[3] = make_uint2(b.z, b.w);
        return;
    }
#pragma unroll
    for (int q = 0; q < 4; q++) out[q] = __ldg(row + min(max(x0 + q, 0), width - 1));
}

/* sums += rows first..last (inside the image) of the thread's columns; `times` = +1 or -1.
 * WIDE: 8 loads in flight at a time, else 4 (box_fast_body's WIDE_START says which kernels) */
template <bool EDGE, bool WIDE = false>
__device__ __forceinline__ void add_rows(column_sums &s, const fv_image &img, int first, int last,
                                         int x0, bool vector, uint32_t times)
{
    int y = first;
    for (; WIDE && y + 7 <= last; y += 8) { /* 8 loads in flight together */
        uint4 px[8];
#pragma unroll
        for (int i = 0; i < 8; i++) px[i] = load_group<EDGE>(img, y + i, x0, vector);
#pragma unroll
        for (int i = 0; i < 8; i++) add_pixels(s, px[i], times);
    }
    for (; y + 3 <= last; y += 4) { /* 4 */
        const uint4 a = load_group<EDGE>(img, y, x0, vector),
                    b = load_group<EDGE>(img, y + 1, x0, vector);
        const uint4 c = load_group<EDGE>(img, y + 2, x0, vector),
                    d = load_group<EDGE>(img, y + 3, x0, vector);
        add_pixels(s, a, times), add_pixels(s, b, times), add_pixels(s, c, times),
            add_pixels(s, d, times);
    }
    for (; y <= last; y++) add_pixels(s, load_group<EDGE>(img, y, x0, vector), times);
}

/* the raw pixels of row y (-1: none) whose alphas outputs j = q * group_threads + gt (q = 0..3)
 * keep, 0 where there is no such output */
__device__ __forceinline__ void load_output_alphas(const fv_image &img, int y, int out0,
                                                   int group_outputs, int gt, int group_threads,
                                                   uint32_t px[4])
{
    const uint32_t *row = image_row(img, max(y, 0)) + out0;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const int j = q * group_threads + gt;
        px[q] = y >= 0 && j < group_outputs ? __ldg(row + j) : 0;
    }
}

/* the alpha bytes of 4 pixels in one word, byte q from pixel q */
__device__ __forceinline__ uint32_t pack_alphas(const uint32_t px[4])
{
    return __byte_perm(__byte_perm(px[0], px[1], 0x0073), __byte_perm(px[2], px[3], 0x0073),
                       0x5410);
}

/* ---- band totals: the sum of each band of rows, per column ----------------------------------- */
/* Programmatic dependent launch (Hopper on): the band-totals pass lets the walk's blocks start
 * while it runs, and they wait for it only to read the totals. Before sm_90 neither instruction
 * exists, nor such a launch (box_fast_run asks for one only from compute capability 9). */
__device__ __forceinline__ void grid_dependents_may_launch()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;");
#endif
}
__device__ __forceinline__ void grid_dependency_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* A thread sums 4 adjacent columns (one 16-byte load a row where the row allows) and writes their
 * 4 totals as two 16-byte stores; the totals' rows are padded to a multiple of 4 columns, so the
 * last group's stores stay inside (columns past the image repeat its last one, and nothing reads
 * them). */
__global__ void __launch_bounds__(BAND_TOTALS_THREADS)
    box_fast_band_totals_kernel(fv_image src, uint2 *__restrict__ band_totals, int pitch,
                                int band_rows, bool vector)
{
    grid_dependents_may_launch();
    const int x0 = (blockIdx.x * BAND_TOTALS_THREADS + threadIdx.x) * COLUMNS_PER_THREAD;
    if (x0 >= src.width) return;
    const int y0 = blockIdx.y * band_rows, y_end = min(y0 + band_rows, src.height);
    column_sums s; /* <= 64 rows * 255: the 16-bit lanes cannot carry */
#pragma unroll
    for (int q = 0; q < COLUMNS_PER_THREAD; q++) s.rb[q] = s.g[q] = 0;
    if (vector && x0 + 3 < src.width) {
#pragma unroll 8
        for (int y = y0; y < y_end; y++) add_pixels(s, load_group<false>(src, y, x0, true), 1u);
    } else {
        for (int y = y0; y < y_end; y++) add_pixels(s, load_group<true>(src, y, x0, false), 1u);
    }
    uint4 *to = reinterpret_cast<uint4 *>(band_totals + (size_t)blockIdx.y * pitch + x0);
    to[0] = make_uint4(s.rb[0], s.g[0], s.rb[1], s.g[1]);
    to[1] = make_uint4(s.rb[2], s.g[2], s.rb[3], s.g[3]);
}

/* sums += rows lo..hi (0 <= lo <= hi < height) from band totals plus at most half a band of rows
 * at each end (a band overshooting the range is added and its extra rows subtracted) */
template <bool EDGE, bool WIDE>
__device__ __forceinline__ void add_range_by_bands(column_sums &s, const fv_image &src,
                                                   const uint2 *band_totals, int pitch,
                                                   int band_rows, int lo, int hi, int x0,
                                                   bool vector)
{
    const int bands = (src.height + band_rows - 1) / band_rows;
    const int first_band = (lo + band_rows - 1) / band_rows; /* first band inside */
    const int end_band =
        hi == src.height - 1 ? bands : (hi + 1) / band_rows; /* one past the last */
    if (first_band >= end_band) { /* no whole band inside: at most 2 bands of rows */
        add_rows<EDGE, WIDE>(s, src, lo, hi, x0, vector, 1u);
        return;
    }
    /* the rows first, then (once the pass that sums the bands is done: the kernel may start
     * while it runs) the band totals */
    const int top = first_band * band_rows - lo;      /* rows above the first whole band */
    const int bottom = hi + 1 - end_band * band_rows; /* rows below the last whole band */
    const bool top_band = 2 * top > band_rows, bottom_band = 2 * bottom > band_rows;
    if (top_band)
        add_rows<EDGE, WIDE>(s, src, (first_band - 1) * band_rows, lo - 1, x0, vector, ~0u);
    else
        add_rows<EDGE, WIDE>(s, src, lo, lo + top - 1, x0, vector, 1u);
    if (bottom_band) /* hi < height - 1 here, so band end_band exists */
        add_rows<EDGE, WIDE>(s, src, hi + 1, min((end_band + 1) * band_rows, src.height) - 1, x0,
                             vector, ~0u);
    else if (bottom > 0)
        add_rows<EDGE, WIDE>(s, src, end_band * band_rows, hi, x0, vector, 1u);
    grid_dependency_wait();
    uint2 t[4];
    for (int b = first_band - top_band; b < end_band + bottom_band; b++) {
        load_totals(band_totals, pitch, b, x0, src.width, t);
        add_totals(s, t, 1u);
    }
}

/* ---- the row prefix -------------------------------------------------------------------------- */
/* How a column's three window sums travel through the row prefix (each mode exact because the
 * final window sums fit their lanes, whatever the prefixes in between carry across lanes):
 *   PACK16  r <= 7:  2 words, R | B << 16 and G (a window sum <= 15^2 * 255 < 2^16)
 *   PACK21  r <= 44: 1 64-bit word, R | G << 21 | B << 42 (a window sum <= 89^2 * 255 < 2^21)
 *   PLAIN   beyond:  3 words, R, G, B (PLAIN_NEAR up to r = 63: the same words, the warps'
 *           prefixes joined as read, as a window of <= 127 columns crosses at most one warp) */

template <int MODE> struct prefix_word {
    typedef uint32_t type;
};
template <> struct prefix_word<PACK21> {
    typedef uint64_t type;
};

/* v += the value of the lane `offset` below, where there is one: the shuffle's own predicate says
 * whether the source lane exists, so no compare and select per step */
__device__ __forceinline__ void scan_step(uint32_t &v, int offset)
{
    asm("{\n\t.reg .u32 o;\n\t.reg .pred p;\n\t"
        "shfl.sync.up.b32 o|p, %0, %1, 0, 0xffffffff;\n\t"
        "@p add.u32 %0, %0, o;\n\t}"
        : "+r"(v)
        : "r"(offset));
}
__device__ __forceinline__ void scan_step(uint64_t &v, int offset)
{
    uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
    asm("{\n\t.reg .u32 a, b;\n\t.reg .pred p;\n\t"
        "shfl.sync.up.b32 a|p, %0, %2, 0, 0xffffffff;\n\t"
        "shfl.sync.up.b32 b, %1, %2, 0, 0xffffffff;\n\t"
        "@p add.cc.u32 %0, %0, a;\n\t"
        "@p addc.u32 %1, %1, b;\n\t}"
        : "+r"(lo), "+r"(hi)
        : "r"(offset));
    v = (uint64_t)hi << 32 | lo;
}

/* the window sums of column q of s, as the mode's words */
template <int MODE, typename T>
__device__ __forceinline__ void prefix_words_of(const column_sums &s, int q, T *w)
{
    if constexpr (MODE == PACK16) {
        w[0] = s.rb[q];
        w[1] = s.g[q];
    } else if constexpr (MODE == PACK21) {
        w[0] = (T)(s.rb[q] & 0xffffu) | (T)s.g[q] << 21 | (T)(s.rb[q] >> 16) << 42;
    } else {
        w[0] = s.rb[q] & 0xffffu;
        w[1] = s.g[q];
        w[2] = s.rb[q] >> 16;
    }
}

/* ---- the pass -------------------------------------------------------------------------------- */
/* A group of GROUP_WARPS warps sums GROUP_SPAN adjacent columns and writes the middle ones:
 * groups of 1 warp (128 columns) need no barrier but lose 2r + 3 columns in 128 to the
 * overlap, so they serve small radii; groups of the whole block (1024 columns) the rest. */
template <int GROUP_WARPS, int MODE> struct box_fast_shared {
    typedef typename prefix_word<MODE>::type T;
    static constexpr int WORDS = MODE == PACK16 ? 2 : MODE == PACK21 ? 1 : 3;
    static constexpr int GROUP_SPAN = COLUMNS_PER_THREAD * 32 * GROUP_WARPS,
                         GROUPS = WARPS / GROUP_WARPS;
    static constexpr int ROW = GROUP_SPAN + 4; /* a group's prefixes start at 4: word 3 stays 0 */
    T prefix[2][WORDS][GROUPS * ROW];
    T warp_totals[2][WORDS][GROUP_WARPS > 1 && MODE == PLAIN
                                ? WARPS
                                : 1]; /* used by PLAIN block groups alone */
};

/* the barrier of a group: the block's, a named one (1 + group) for a part of the block, or the
 * warp's */
template <int GROUP_WARPS> __device__ __forceinline__ void group_sync(int group)
{
    if constexpr (GROUP_WARPS == WARPS)
        __syncthreads();
    else if constexpr (GROUP_WARPS > 1)
        asm volatile("bar.sync %0, %1;" ::"r"(1 + group), "n"(32 * GROUP_WARPS) : "memory");
    else
        __syncwarp();
}

template <int GROUP_WARPS, int MODE, bool EDGE, bool DENSE, bool QUOTIENT_HI>
__device__ __forceinline__ void box_fast_body(box_fast_shared<GROUP_WARPS, MODE> &sh,
                                              const fv_image &src, const fv_image &dst, int radius,
                                              box_divider div, int outputs_per_group, int band_rows,
                                              const uint2 *__restrict__ band_totals,
                                              int totals_pitch, bool vector)
{
    typedef box_fast_shared<GROUP_WARPS, MODE> S;
    typedef typename S::T T;
    constexpr int GROUP_THREADS = 32 * GROUP_WARPS, WORDS = S::WORDS, ROW = S::ROW,
                  GROUPS = S::GROUPS;
    constexpr int WARP_SPAN = 32 * COLUMNS_PER_THREAD;
    /* A group of several warps joins their prefixes either with a scan of the warps' totals
     * between two barriers (PLAIN), or (JOINED_WHEN_READ) with one barrier, each output adding
     * the total of the one warp its window may cross (windows of <= 127 columns: up to r = 63).
     * The second pays up to r = 44; for wider windows, which cross up to 3 warps (adding up to
     * 3 totals), it is no faster. */
    constexpr bool JOINED_WHEN_READ = GROUP_WARPS > 1 && MODE != PLAIN;
    constexpr bool ACROSS_WARPS = GROUP_WARPS > 1 && !JOINED_WHEN_READ;
    /* The dense kernel loads each row's alphas a row ahead: there (block groups of PACK21, whose
     * prefix pass before its one barrier is the shortest) the wait for them came before the
     * barrier. Elsewhere that was no faster. Window starts keep 8 loads in flight in the dense
     * kernel and warp groups of PACK21, 4 in the others, where 8 were slower (docs/perf/box.md). */
    constexpr bool ALPHA_AHEAD = DENSE,
                   WIDE_START = DENSE || (GROUP_WARPS < WARPS && MODE == PACK21);
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int group = warp / GROUP_WARPS, gt = t % GROUP_THREADS, gwarp = warp % GROUP_WARPS;
    const int width = src.width, height = src.height;
    const int out0 = (blockIdx.x * GROUPS + group) * outputs_per_group; /* first output column */
    const int group_outputs = min(outputs_per_group, width - out0);     /* may be <= 0 */
    const int x_in0 = (out0 - radius) & ~3;                             /* first summed column */
    const int x0 = x_in0 + COLUMNS_PER_THREAD * gt;                     /* this thread's 4 */
    const int y0 = blockIdx.y * band_rows, y_end = min(y0 + band_rows, height);
    const int base = group * ROW + 4;
    if (out0 >= width) return; /* a group with no outputs (uniform over a barrier's threads) */
    if (gt < 2 * WORDS) sh.prefix[gt / WORDS][gt % WORDS][base - 1] = 0; /* read before the first */
    __syncwarp(); /* output, after a barrier */

    /* the window of row y0: rows y0-r..y0+r, those outside the image replicating its edge rows */
    column_sums s;
#pragma unroll
    for (int q = 0; q < COLUMNS_PER_THREAD; q++) s.rb[q] = s.g[q] = 0;
    const int lo = max(y0 - radius, 0), hi = min(y0 + radius, height - 1);
    if (y0 - radius < 0)
        add_pixels(s, load_group<EDGE>(src, 0, x0, vector), (uint32_t)(radius - y0));
    if (y0 + radius > height - 1)
        add_pixels(s, load_group<EDGE>(src, height - 1, x0, vector),
                   (uint32_t)(y0 + radius - (height - 1)));
    if (band_totals)
        add_range_by_bands<EDGE, WIDE_START>(s, src, band_totals, totals_pitch, band_rows, lo, hi,
                                             x0, vector);
    else
        add_rows<EDGE, WIDE_START>(s, src, lo, hi, x0, vector, 1u);

    /* The source alphas of a row's outputs: the pixels, loaded with the row's entering and leaving
     * ones. ALPHA_AHEAD (the dense kernel): a row loads the next row's, packed into the bytes of
     * one word (byte q: output q) at its end, once they have landed. */
    uint32_t alpha_px[4], alphas = 0;
    if constexpr (ALPHA_AHEAD) {
        load_output_alphas(src, y0, out0, group_outputs, gt, GROUP_THREADS, alpha_px);
        alphas = pack_alphas(alpha_px);
    }

    /* area / 2 in every lane of the mode's words */
    T halves[WORDS];
    if constexpr (MODE == PACK16) {
        halves[0] = div.half | div.half << 16;
        halves[1] = div.half;
    } else if constexpr (MODE == PACK21) {
        halves[0] = (T)div.half | (T)div.half << 21 | (T)div.half << 42;
    } else {
#pragma unroll
        for (int c = 0; c < WORDS; c++) halves[c] = div.half;
    }
    for (int y = y0, buffer = 0; y < y_end; y++, buffer ^= 1) {
        /* loads for the next window and the next row's alphas go out first: they land during
         * this row's scan and outputs (an alpha loaded for its own row was the longest wait) */
        const uint4 enter = load_group<EDGE>(src, min(y + radius + 1, height - 1), x0, vector);
        const uint4 leave = load_group<EDGE>(src, max(y - radius, 0), x0, vector);
        uint32_t alpha[4]; /* !ALPHA_AHEAD: this row's, alpha << 24 */
        if constexpr (ALPHA_AHEAD) {
            load_output_alphas(src, y + 1 < y_end ? y + 1 : -1, out0, group_outputs, gt,
                               GROUP_THREADS, alpha_px);
        } else {
            const uint32_t *src_row = image_row(src, y);
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const int j = q * GROUP_THREADS + gt;
                alpha[q] = j < group_outputs ? __ldg(src_row + out0 + j) >> 24 : 0;
            }
        }

        /* the group's inclusive prefix of the column sums, word by word (JOINED_WHEN_READ: each
         * warp's own, joined when reading) */
        T v[WORDS][COLUMNS_PER_THREAD], warp_scan[WORDS];
#pragma unroll
        for (int q = 0; q < COLUMNS_PER_THREAD; q++) {
            T w[WORDS];
            prefix_words_of<MODE>(s, q, w);
#pragma unroll
            for (int c = 0; c < WORDS; c++) v[c][q] = w[c];
        }
#pragma unroll
        for (int c = 0; c < WORDS; c++) {
#pragma unroll
            for (int q = 1; q < COLUMNS_PER_THREAD; q++) v[c][q] += v[c][q - 1];
            warp_scan[c] = v[c][COLUMNS_PER_THREAD - 1];
        }
#pragma unroll
        for (int offset = 1; offset < 32;
             offset <<= 1) /* steps outside, words inside: in flight together */
#pragma unroll
            for (int c = 0; c < WORDS; c++) scan_step(warp_scan[c], offset);
        if (ACROSS_WARPS && lane == 31)
#pragma unroll
            for (int c = 0; c < WORDS; c++) sh.warp_totals[buffer][c][warp] = warp_scan[c];
        if (ACROSS_WARPS) __syncthreads();
        T before[WORDS];
#pragma unroll
        for (int c = 0; c < WORDS; c++) before[c] = warp_scan[c] - v[c][COLUMNS_PER_THREAD - 1];
        if (ACROSS_WARPS) { /* plus the totals of the warps to the left: lanes 0..7 scan them */
            T left[WORDS];
#pragma unroll
            for (int c = 0; c < WORDS; c++)
                left[c] = lane < WARPS ? sh.warp_totals[buffer][c][lane] : (T)0;
#pragma unroll
            for (int offset = 1; offset < WARPS; offset <<= 1)
#pragma unroll
                for (int c = 0; c < WORDS; c++) scan_step(left[c], offset);
#pragma unroll
            for (int c = 0; c < WORDS; c++) {
                left[c] = __shfl_sync(0xffffffffu, left[c], (gwarp + WARPS - 1) % WARPS);
                before[c] += gwarp > 0 ? left[c] : (T)0;
            }
        }
#pragma unroll
        for (int c = 0; c < WORDS;
             c++) { /* 4 prefixes in 16-byte stores (base is a multiple of 4) */
            T *to = &sh.prefix[buffer][c][base + COLUMNS_PER_THREAD * gt];
            if constexpr (sizeof(T) == 4) {
                *reinterpret_cast<uint4 *>(to) =
                    make_uint4(before[c] + v[c][0], before[c] + v[c][1], before[c] + v[c][2],
                               before[c] + v[c][3]);
            } else {
                reinterpret_cast<ulonglong2 *>(to)[0] =
                    make_ulonglong2(before[c] + v[c][0], before[c] + v[c][1]);
                reinterpret_cast<ulonglong2 *>(to)[1] =
                    make_ulonglong2(before[c] + v[c][2], before[c] + v[c][3]);
            }
        }
        group_sync<GROUP_WARPS>(group);

        /* outputs: thread gt writes columns gt, gt + GROUP_THREADS, ...: neighbouring threads read
         * neighbouring prefixes (no bank conflicts) and write neighbouring pixels */
        uint32_t *dst_row = const_cast<uint32_t *>(image_row(dst, y));
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const int j = q * GROUP_THREADS + gt;
            if (j >= group_outputs) break;
            const int x = out0 + j;
            const int i_hi = base + x + radius - x_in0, i_lo = base + x - radius - x_in0 - 1;
            /* window sum + area / 2 per channel: the rounding rides on the difference (one 3-input
             * add), and each lane still holds it (box_quotient's bounds) */
            T d[WORDS];
#pragma unroll
            for (int c = 0; c < WORDS; c++)
                d[c] = sh.prefix[buffer][c][i_hi] - sh.prefix[buffer][c][i_lo] + halves[c];
            if constexpr (
                JOINED_WHEN_READ) { /* plus the last prefix of i_lo's warp if i_hi is in the next
                                               * (i_lo = base - 1, before warp 0, counts as warp 0);
                                               * if not, the zero at base - 1: no branch */
                const int w_lo = max(i_lo - base, 0) / WARP_SPAN, w_hi = (i_hi - base) / WARP_SPAN;
                const int at = w_lo < w_hi ? base + (w_lo + 1) * WARP_SPAN - 1 : base - 1;
#pragma unroll
                for (int c = 0; c < WORDS; c++) d[c] += sh.prefix[buffer][c][at];
            }
            uint32_t r_mean, g_mean, b_mean;
            if constexpr (MODE == PACK16) { /* one high multiply each (r <= 7) */
                r_mean = box_quotient_hi((uint32_t)d[0] & 0xffffu, div);
                g_mean = box_quotient_hi((uint32_t)d[1], div);
                b_mean = box_quotient_hi((uint32_t)d[0] >> 16, div);
            } else if constexpr (MODE == PACK21 && QUOTIENT_HI) { /* the same (magic_hi != 0) */
                r_mean = box_quotient_hi((uint32_t)d[0] & 0x1fffffu, div);
                g_mean = box_quotient_hi((uint32_t)(d[0] >> 21) & 0x1fffffu, div);
                b_mean = box_quotient_hi((uint32_t)(d[0] >> 42), div);
            } else if constexpr (MODE == PACK21) {
                r_mean = box_quotient((uint32_t)d[0] & 0x1fffffu, div);
                g_mean = box_quotient((uint32_t)(d[0] >> 21) & 0x1fffffu, div);
                b_mean = box_quotient((uint32_t)(d[0] >> 42), div);
            } else {
                r_mean = box_quotient((uint32_t)d[0], div);
                g_mean = box_quotient((uint32_t)d[1], div);
                b_mean = box_quotient((uint32_t)d[WORDS - 1], div);
            }
            /* bytes R, G from the first two, B and the source alpha from the next */
            const uint32_t rg = __byte_perm(r_mean, g_mean, 0x0040);
            if constexpr (ALPHA_AHEAD)
                dst_row[x] =
                    __byte_perm(rg, __byte_perm(b_mean, alphas, 0x0040 + (q << 4)), 0x5410);
            else
                dst_row[x] = __byte_perm(rg, b_mean | alpha[q] << 24, 0x7410);
        }
        if constexpr (ALPHA_AHEAD) alphas = pack_alphas(alpha_px);

        add_pixels(s, enter, 1u);
        add_pixels(s, leave, ~0u);
    }
}

template <int GROUP_WARPS, int MODE, int BLOCKS_PER_SM, bool QUOTIENT_HI>
__global__ void __launch_bounds__(THREADS, BLOCKS_PER_SM)
    box_fast_kernel(fv_image src, fv_image dst, int radius, box_divider div, int outputs_per_group,
                    int band_rows, const uint2 *__restrict__ band_totals, int totals_pitch,
                    bool vector)
{
    __shared__ __align__(16) box_fast_shared<GROUP_WARPS, MODE> sh;
    typedef box_fast_shared<GROUP_WARPS, MODE> S;
    /* does any group of this block sum a column outside the image (or are rows unaligned)? The
     * same answer for every thread: both bodies meet the same barriers */
    const int first_group = blockIdx.x * S::GROUPS, last_group = first_group + S::GROUPS - 1;
    const int x_first = (first_group * outputs_per_group - radius) & ~3;
    const int x_last = ((last_group * outputs_per_group - radius) & ~3) + S::GROUP_SPAN - 1;
    constexpr bool DENSE = BLOCKS_PER_SM == MIN_BLOCKS_DENSE;
    static_assert(!QUOTIENT_HI || MODE == PACK16 || MODE == PACK21,
                  "no QUOTIENT_HI build of the plain modes");
    if (!vector || x_first < 0 || x_last > src.width - 1)
        box_fast_body<GROUP_WARPS, MODE, true, DENSE, QUOTIENT_HI>(
            sh, src, dst, radius, div, outputs_per_group, band_rows, band_totals, totals_pitch,
            vector);
    else
        box_fast_body<GROUP_WARPS, MODE, false, DENSE, QUOTIENT_HI>(
            sh, src, dst, radius, div, outputs_per_group, band_rows, band_totals, totals_pitch,
            vector);
}

typedef void (*box_fast_kernel_fn)(fv_image, fv_image, int, box_divider, int, int, const uint2 *,
                                   int, bool);

/* The kernel of that group size and mode; dense (block groups of PACK21 only): the one compiled
 * for MIN_BLOCKS_DENSE blocks a SM. Kernels for radii where box_quotient_hi divides (every radius
 * up to 31, so warp groups always, and some beyond) divide with one high multiply, the others
 * with a high multiply and a shift (the 64-bit product and its shift took 3 instructions a
 * channel; the gain: docs/perf/box.md). */
static box_fast_kernel_fn box_fast_kernel_for(int group_warps, int mode, bool dense, int radius)
{
    const bool quotient_hi = box_divider_make(radius).magic_hi != 0; /* at every radius up to 31 */
    if (group_warps == QUAD_WARPS)
        return box_fast_kernel<QUAD_WARPS, PACK21, MIN_BLOCKS, true>; /* r <= 31 */
    if (group_warps == 1)
        return mode == PACK16 ? box_fast_kernel<1, PACK16, MIN_BLOCKS, true>
                              : box_fast_kernel<1, PACK21, MIN_BLOCKS, true>;
    if (mode == PACK21) {
        if (quotient_hi)
            return dense ? box_fast_kernel<WARPS, PACK21, MIN_BLOCKS_DENSE, true>
                         : box_fast_kernel<WARPS, PACK21, MIN_BLOCKS, true>;
        return dense ? box_fast_kernel<WARPS, PACK21, MIN_BLOCKS_DENSE, false>
                     : box_fast_kernel<WARPS, PACK21, MIN_BLOCKS, false>;
    }
    return mode == PLAIN_NEAR ? box_fast_kernel<WARPS, PLAIN_NEAR, MIN_BLOCKS, false>
                              : box_fast_kernel<WARPS, PLAIN, MIN_BLOCKS, false>;
}

/* blocks of that kernel the current GPU runs at once (0 where there is none to ask) */
static int box_fast_resident_blocks(int group_warps, int radius, bool dense)
{
    int device = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, box_fast_kernel_for(group_warps, box_fast_mode(radius), dense, radius),
            THREADS, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return sms * per_sm;
}

/* ---- the state: the plan for this radius and size, its kernel, its band totals -------------- */
typedef struct box_fast_state {
    box_fast_geometry geometry;
    int radius, width, height;
    bool programmatic; /* the GPU launches programmatic dependents (compute capability >= 9) */
    box_fast_kernel_fn walk; /* the kernel the geometry picked */
    box_divider divider;     /* the radius's */
    uint2 *band_totals;      /* [bands][totals_pitch]: R | B << 16, G; NULL if unused */
} box_fast_state;

size_t box_fast_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                            int height)
{
    const box_config *cfg = (const box_config *)config;
    const box_fast_geometry g =
        box_fast_geometry_make(cfg->radius, width, height, box_fast_resident_blocks);
    return box_fast_totals_bytes(&g);
}

fv_status box_fast_state_create(const fv_variant *v, void **state, const fv_params *p,
                                const void *config, int width, int height)
{
    const box_config *cfg = (const box_config *)config;
    box_fast_state *s = (box_fast_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "box/fast: out of host memory");
    s->radius = cfg->radius;
    s->width = width;
    s->height = height;
    s->geometry = box_fast_geometry_make(s->radius, width, height, box_fast_resident_blocks);
    s->walk = box_fast_kernel_for(s->geometry.group_warps, s->geometry.mode, s->geometry.dense,
                                  s->radius);
    s->divider = box_divider_make(s->radius);
    s->programmatic = fv_device_compute_major() >= 9;
    const size_t bytes = box_fast_totals_bytes(&s->geometry);
    if (bytes && cudaMalloc((void **)&s->band_totals, bytes) != cudaSuccess) {
        cudaGetLastError();
        free(s);
        return fv_fail(FV_ERR_MEMORY, "box/fast: cannot allocate its %zu KiB of band totals",
                       bytes >> 10);
    }
    *state = s;
    return FV_OK;
}

void box_fast_state_destroy(const fv_variant *v, void *state)
{
    box_fast_state *s = (box_fast_state *)state;
    if (!s) return;
    cudaFree(s->band_totals);
    free(s);
}

int box_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                     fv_kernel_info *out, int max)
{
    const box_config *cfg = (const box_config *)config;
    if (max < 4) return 0;
    const int radius = cfg->radius, mode = box_fast_mode(radius);
    int n = 0;
    if (radius >= QUAD_MIN_RADIUS &&
        radius <= QUAD_MAX_RADIUS) /* by the image, one of these and one below */
        out[n++] = {"box_fast_kernel (4-warp groups, large images)",
                    (const void *)box_fast_kernel_for(QUAD_WARPS, mode, false, radius), THREADS, 0};
    if (radius >= BLOCK_GROUPS_MIN_RADIUS && radius <= SMALL_GROUP_MAX_RADIUS) {
        out[n++] = {"box_fast_kernel (warp groups)",
                    (const void *)box_fast_kernel_for(1, mode, false, radius), THREADS, 0};
        out[n++] = {"box_fast_kernel (block groups, small images)",
                    (const void *)box_fast_kernel_for(WARPS, mode, false, radius), THREADS, 0};
    } else if (box_fast_group_warps(radius) == WARPS && mode == PACK21) {
        out[n++] = {"box_fast_kernel",
                    (const void *)box_fast_kernel_for(WARPS, mode, false, radius), THREADS, 0};
        out[n++] = {"box_fast_kernel (4 blocks a SM, large images)",
                    (const void *)box_fast_kernel_for(WARPS, mode, true, radius), THREADS, 0};
    } else {
        out[n++] = {
            "box_fast_kernel",
            (const void *)box_fast_kernel_for(box_fast_group_warps(radius), mode, false, radius),
            THREADS, 0};
    }
    out[n++] = {"box_fast_band_totals_kernel", (const void *)box_fast_band_totals_kernel,
                BAND_TOTALS_THREADS, 0};
    return n;
}

fv_status box_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                       void *state, cudaStream_t stream)
{
    (void)config;                                            /* its state was made from it */
    const box_fast_state *s = (const box_fast_state *)state; /* made for p at this size */
    const int radius = s->radius;
    if (src->pitch > UINT32_MAX ||
        dst->pitch > UINT32_MAX) /* rows addressed as 32-bit row x pitch */
        return fv_fail(FV_ERR_ARG, "box/fast: a row pitch of 4 GiB or more");
    const box_fast_geometry *g = &s->geometry;
    const bool vector = ((uintptr_t)src->data | src->pitch) % 16 == 0;
    if (g->use_band_totals) {
        const int per_block = BAND_TOTALS_THREADS * COLUMNS_PER_THREAD;
        dim3 grid((src->width + per_block - 1) / per_block, g->bands);
        box_fast_band_totals_kernel<<<grid, BAND_TOTALS_THREADS, 0, stream>>>(
            *src, s->band_totals, g->totals_pitch, g->band_rows, vector);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    /* after a band-totals pass, a programmatic launch: the pass's blocks start while it runs,
     * sum their window starts' rows and wait for it only to read the totals */
    cudaLaunchAttribute early;
    early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    early.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t launch = {};
    launch.gridDim = dim3(g->blocks_across, g->bands);
    launch.blockDim = dim3(THREADS);
    launch.stream = stream;
    launch.attrs = &early;
    launch.numAttrs = g->use_band_totals && s->programmatic ? 1 : 0;
    FV_CUDA_CHECK(cudaLaunchKernelEx(
        &launch, s->walk, *src, *dst, radius, s->divider, g->outputs_per_group, g->band_rows,
        (const uint2 *)(g->use_band_totals ? s->band_totals : NULL), g->totals_pitch, vector));
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}
