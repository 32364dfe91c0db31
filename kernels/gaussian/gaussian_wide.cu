/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_wide.cu: the Gaussian's `fast` variant for wide stencils (radius >=
 * GAUSSIAN_WIDE_MIN_RADIUS), both 1-D passes as banded matrix products on int8 tensor cores.
 *
 * mma.sync m16n8k32 with u8 inputs and s32 accumulators is exact integer arithmetic, so the sums
 * are those of gaussian_ref: column sums c = sum_i w[i] * pixel <= 65280, then
 * out = (32768 + sum_j w[j] * c) >> 16. One block makes a 64 x 128 tile of outputs:
 *   column pass  D[16 output rows x 8 columns] += Band[16 x 32 input rows] * Pixels[32 rows x 8],
 *                Band[m][k] = w[d + k - m] with d = 32 * chunk - 16 * row_tile: only d = -16, 0,
 *                ..., 64 occur, so their A fragments are built once, in registers. Each lane
 *                loads the 4 RGBA pixels of rows k..k+3 of its column (one 4-byte load each, a
 *                warp instruction reads 4 rows x 32 aligned bytes) and transposes them with 7
 *                byte permutes into R, G, B words of 4 rows: one MMA per channel and band. Row
 *                and column indices are clamped (replicated borders). Sums go to shared memory
 *                as two byte planes per channel (low, high), over the tile's rows and its 128
 *                columns plus the apron.
 *   row pass     D[16 rows x 8 output columns] += Sums[16 x 32 input columns] * Band[32 x 8],
 *                Band[k][n] = w[e + k - n]: the sums come straight from shared memory by
 *                ldmatrix (a 16 x 32 byte tile read as four 8 x 8 b16 matrices is exactly the
 *                m16n8k32 A fragment); one ldmatrix feeds the 4 output groups of 8 columns of a
 *                32-column unit, e = 32 * chunk - 8 * group + (r - roundup8(r)) takes 12 values.
 *                High plane first, then acc * 256 + 32768, then the low plane: the rounded sum
 *                (< 2^24) ends in byte 2 of each accumulator. Alpha is the centre pixel's, kept
 *                in shared memory by the column pass (it had the pixel in registers); two
 *                adjacent pixels per lane leave in one 8-byte store where the rows are 8-byte
 *                aligned, one 4-byte store each otherwise.
 * The tile's column-sum window starts roundup8(r) columns left of the tile so that every load
 * instruction reads whole 32-byte sectors. The kernel is compiled once per r8 = roundup8(r) (8,
 * 16, 24, 32): the window widths and chunk counts depend on r8 alone, so they are constants, and
 * so is which MMAs can meet a non-zero band (those beyond 2 r8 are left out; a band beyond 2r
 * within them is all zeros and adds nothing). That, and row addresses as one 32-bit multiply
 * (rows lie within 4 GiB: gaussian_wide_addresses), cut the kernel's instructions per pixel
 * sharply (before: run-time chunk loops and band tests, a 64-bit multiply per loaded row; figures
 * in docs/perf/gaussian.md). Shared memory rows are an odd number of 16-byte units apart, so
 * ldmatrix and the sum stores meet no bank conflicts.
 * Needs sm_80 (compiled to a trap before) and taps < 256: gaussian_wide_applies says when.
 *
 * Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k32", .u8; g = lane / 4,
 * t = lane % 4; byte i of a register holds element i, lowest k first):
 *   A 16x32 row-major: a0 row g, k 4t..4t+3 | a1 row g+8, k 4t.. | a2 row g, k 16+4t.. | a3 row g+8, k 16+4t..
 *   B 32x8 col-major : b0 column g, k 4t..4t+3 | b1 column g, k 16+4t..16+4t+3
 *   C, D 16x8 s32    : c0, c1 row g, columns 2t, 2t+1 | c2, c3 row g+8, columns 2t, 2t+1
 *   ldmatrix.m8n8.x4.b16: lanes 8q..8q+7 give the row addresses of matrix q; register q of lane l
 *     holds row l / 4, bytes 4 (l % 4)..+3 of matrix q (matrices: rows 0-7 / 8-15 x bytes 0-15 /
 *     16-31, in the order of a0..a3).
 * Equals gaussian_ref byte for byte (tests/gpu/test_filters.c, variant `fast`).
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "gaussian_taps.h"
#include "gaussian_wide.h"

#ifndef WIDE_TILE_ROWS
#define WIDE_TILE_ROWS 64 /* output rows per block: a multiple of 16 (an MMA's M) */
#endif
#ifndef WIDE_TILE_COLS
#define WIDE_TILE_COLS 128 /* output columns per block: a multiple of 32 (a row-pass unit) */
#endif
#define WIDE_THREADS   256
#define WIDE_WARPS     (WIDE_THREADS / 32)
#define WIDE_ROW_TILES (WIDE_TILE_ROWS / 16)
#define WIDE_UNITS                                                                                 \
    (WIDE_ROW_TILES * (WIDE_TILE_COLS / 32)) /* row-pass units: 16 rows x 32 columns */
/* column pass: 32-row chunks for the tile and its apron at the largest radius */
#define WIDE_ROW_CHUNKS ((WIDE_TILE_ROWS + 2 * FV_GAUSSIAN_MAX_RADIUS + 31) / 32)
/* row pass: 32-column chunks for a unit, ceil((32 + r + roundup8(r)) / 32) <= 3 */
#define WIDE_COL_CHUNKS 3
#define WIDE_BANDS_V    6                     /* column-pass band offsets d = -16, 0, ..., 64 */
#define WIDE_BANDS_H    (4 * WIDE_COL_CHUNKS) /* row-pass offsets 32 chunk - 8 group = -24 .. 64 */
/* Taps four at a time: quad[b + WIDE_TAP_PAD] holds w[b..b+3] (0 outside 0..2r) in bytes 0..3.
 * The fragments ask for b in -38 .. 92. */
#define WIDE_TAP_PAD     40
#define WIDE_TAP_WORDS   136
#define WIDE_BYTE_PLANES 6 /* R, G, B column sums, low and high byte each */
/* Source alphas of the tile's columns, stored column by column (4 rows per word, as the column
 * pass has them) over the window's rows; + 16: words of 8 columns in 8 distinct banks */
#define WIDE_ALPHA_PITCH (32 * WIDE_ROW_CHUNKS + 16)
#define WIDE_ALPHA_BYTES (WIDE_TILE_COLS * WIDE_ALPHA_PITCH)

struct gaussian_wide_taps {
    int radius;
    uint32_t quad[WIDE_TAP_WORDS];
};

static void gaussian_wide_taps_make(const int *taps, int radius, gaussian_wide_taps *out)
{
    out->radius = radius;
    for (int i = 0; i < WIDE_TAP_WORDS; i++) {
        uint32_t word = 0;
        for (int byte = 0; byte < 4; byte++) {
            const int k = i - WIDE_TAP_PAD + byte;
            if (k >= 0 && k <= 2 * radius) word |= (uint32_t)taps[k] << (8 * byte);
        }
        out->quad[i] = word;
    }
}

/* Column sums kept per block: the tile's columns plus an apron that the row pass's 32-column
 * chunks cover: roundup8(r) on the left (sector-aligned loads), the rest on the right. The chunk
 * counts of both passes depend on roundup8(r) alone (a radius r8 - 7 .. r8 needs as many as r8
 * does), so the kernel is compiled once per r8 with them as constants. */
static __host__ __device__ constexpr int wide_col_chunks_r8(int r8)
{
    return (32 + 2 * r8 + 31) / 32;
}
static __host__ __device__ constexpr int wide_sums_width_r8(int r8)
{
    return WIDE_TILE_COLS - 32 + 32 * wide_col_chunks_r8(r8);
}
/* + 16: rows an odd number of 16-byte units apart, so 8 rows of an ldmatrix hit 8 bank groups */
static __host__ __device__ constexpr int wide_sums_pitch_r8(int r8)
{
    return wide_sums_width_r8(r8) + 16;
}
static __host__ __device__ __forceinline__ int wide_sums_pitch(int radius)
{
    return wide_sums_pitch_r8((radius + 7) & ~7);
}
static size_t wide_smem_bytes(int radius)
{
    return WIDE_TAP_WORDS * sizeof(uint32_t) + WIDE_ALPHA_BYTES +
           (size_t)WIDE_BYTE_PLANES * WIDE_TILE_ROWS * wide_sums_pitch(radius);
}

__device__ __forceinline__ void mma_m16n8k32_u8(int32_t (&acc)[4], const uint32_t (&a)[4],
                                                const uint32_t (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&frag)[4], const uint8_t *row)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned address = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(frag[0]), "=r"(frag[1]), "=r"(frag[2]), "=r"(frag[3])
                 : "r"(address));
#endif
}

__device__ __forceinline__ int wide_clamp(int v, int hi)
{
    return min(max(v, 0), hi);
}

/* The 8 pixels lane (g, t) feeds to chunk `chunk` of the column pass: rows 4t..4t+3 and
 * 16+4t..16+4t+3 of the chunk, in the lane's column. */
__device__ __forceinline__ void wide_load_chunk(uint32_t (&px)[8], int height, uint32_t pitch,
                                                const uint8_t *column, int first_row, int chunk,
                                                int t)
{
#pragma unroll
    for (int i = 0; i < 8; i++) {
        /* the clamped row is >= 0 and its offset fits 32 bits (the launcher checks): no 64-bit
         * multiply per load */
        const uint32_t y = (uint32_t)wide_clamp(
            first_row + 32 * chunk + 4 * t + (i & 3) + 16 * (i >> 2), height - 1);
        px[i] = __ldg(reinterpret_cast<const uint32_t *>(column + y * pitch));
    }
}

/* 4 RGBA pixels of consecutive rows -> one word per channel, row k in byte k */
__device__ __forceinline__ void wide_transpose(const uint32_t *px, uint32_t &red, uint32_t &green,
                                               uint32_t &blue, uint32_t &alpha)
{
    const uint32_t rg01 = __byte_perm(px[0], px[1], 0x5140); /* R0 R1 G0 G1 */
    const uint32_t ba01 = __byte_perm(px[0], px[1], 0x7362); /* B0 B1 A0 A1 */
    const uint32_t rg23 = __byte_perm(px[2], px[3], 0x5140);
    const uint32_t ba23 = __byte_perm(px[2], px[3], 0x7362);
    red = __byte_perm(rg01, rg23, 0x5410);
    green = __byte_perm(rg01, rg23, 0x7632);
    blue = __byte_perm(ba01, ba23, 0x5410);
    alpha = __byte_perm(ba01, ba23, 0x7632);
}

/* R8 = roundup8(radius): the chunk counts and the bands that can be non-zero are constants, so
 * the MMA loops carry no run-time tests (a band beyond 2r is all zeros and adds nothing) */
template <int R8>
__global__ void __launch_bounds__(WIDE_THREADS, 2)
    gaussian_wide_kernel(fv_image src, fv_image dst, gaussian_wide_taps taps, bool aligned8)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    __trap();
#else
    extern __shared__ uint4 wide_smem[];
    uint32_t *quad = reinterpret_cast<uint32_t *>(wide_smem);
    uint8_t *alphas = reinterpret_cast<uint8_t *>(wide_smem) + WIDE_TAP_WORDS * sizeof(uint32_t);
    uint8_t *sums = alphas + WIDE_ALPHA_BYTES;
    constexpr int COL_CHUNKS = wide_col_chunks_r8(R8),
                  ROW_CHUNKS = (WIDE_TILE_ROWS + 2 * R8 + 31) / 32;
    const int r = taps.radius, r8 = R8;
    constexpr int sums_width = wide_sums_width_r8(R8), pitch = wide_sums_pitch_r8(R8);
    const uint32_t src_pitch =
        (uint32_t)src.pitch; /* gaussian_wide_addresses: offsets fit 32 bits */
    constexpr int plane_bytes = WIDE_TILE_ROWS * pitch;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int x0 = blockIdx.x * WIDE_TILE_COLS, y0 = blockIdx.y * WIDE_TILE_ROWS;

    for (int i = threadIdx.x; i < WIDE_TAP_WORDS; i += WIDE_THREADS) quad[i] = taps.quad[i];
    __syncthreads();
    const uint32_t *lane_taps =
        quad + WIDE_TAP_PAD + 4 * t - g; /* element (row g, k 4t) at offset 0 */

    { /* column pass: strips of 8 columns, all WIDE_TILE_ROWS rows of sums per strip */
        uint32_t band[WIDE_BANDS_V][4];
#pragma unroll
        for (int v = 0; v < WIDE_BANDS_V; v++) {
            const int d = 16 * v - 16;
            band[v][0] = lane_taps[d];
            band[v][1] = lane_taps[d - 8];
            band[v][2] = lane_taps[d + 16];
            band[v][3] = lane_taps[d + 8];
        }
        const int n_strips = sums_width / 8;
        int strip = warp;
        const uint8_t *column =
            src.data + 4 * (size_t)wide_clamp(x0 - r8 + 8 * strip + g, src.width - 1);
        uint32_t px[8], next[8];
        if (strip < n_strips) wide_load_chunk(px, src.height, src_pitch, column, y0 - r, 0, t);
        for (; strip < n_strips; strip += WIDE_WARPS) {
            const uint8_t *next_column =
                src.data +
                4 * (size_t)wide_clamp(x0 - r8 + 8 * (strip + WIDE_WARPS) + g, src.width - 1);
            /* the tile's own columns keep their alphas (strips never straddle: r8 is a multiple of 8) */
            const int tile_column = 8 * strip - r8 + g;
            const bool keeps_alpha = 8 * strip >= r8 && 8 * strip - r8 < WIDE_TILE_COLS;
            int32_t acc[WIDE_ROW_TILES][3][4];
#pragma unroll
            for (int mt = 0; mt < WIDE_ROW_TILES; mt++)
#pragma unroll
                for (int ch = 0; ch < 3; ch++)
#pragma unroll
                    for (int e = 0; e < 4; e++) acc[mt][ch][e] = 0;
#pragma unroll
            for (int c = 0; c < ROW_CHUNKS; c++) {
                /* the next chunk, or the next strip's first, is in flight during the MMAs */
                if (c + 1 < ROW_CHUNKS)
                    wide_load_chunk(next, src.height, src_pitch, column, y0 - r, c + 1, t);
                else if (strip + WIDE_WARPS < n_strips)
                    wide_load_chunk(next, src.height, src_pitch, next_column, y0 - r, 0, t);
                uint32_t pixels[3][2], alpha[2];
                wide_transpose(px, pixels[0][0], pixels[1][0], pixels[2][0], alpha[0]);
                wide_transpose(px + 4, pixels[0][1], pixels[1][1], pixels[2][1], alpha[1]);
                if (keeps_alpha) {
                    uint8_t *to = alphas + tile_column * WIDE_ALPHA_PITCH + 32 * c + 4 * t;
                    *reinterpret_cast<uint32_t *>(to) = alpha[0];
                    *reinterpret_cast<uint32_t *>(to + 16) = alpha[1];
                }
#pragma unroll
                for (int mt = 0; mt < WIDE_ROW_TILES; mt++) {
                    const int d = 32 * c - 16 * mt;
                    if (d < -16 || d > 16 * (WIDE_BANDS_V - 2))
                        continue;                  /* band all zero at any r */
                    if (d > 2 * R8 + 15) continue; /* all zero at any r <= R8 */
#pragma unroll
                    for (int ch = 0; ch < 3; ch++)
                        mma_m16n8k32_u8(acc[mt][ch], band[d / 16 + 1], pixels[ch]);
                }
#pragma unroll
                for (int i = 0; i < 8; i++) px[i] = next[i];
            }
            /* sums <= 65280: low bytes to one plane, high bytes to the next, 2 columns per store */
#pragma unroll
            for (int mt = 0; mt < WIDE_ROW_TILES; mt++)
#pragma unroll
                for (int ch = 0; ch < 3; ch++)
#pragma unroll
                    for (int half = 0; half < 2; half++) {
                        uint8_t *low = sums + 2 * ch * plane_bytes +
                                       (16 * mt + g + 8 * half) * pitch + 8 * strip + 2 * t;
                        const uint32_t s0 = (uint32_t)acc[mt][ch][2 * half],
                                       s1 = (uint32_t)acc[mt][ch][2 * half + 1];
                        *reinterpret_cast<uint16_t *>(low) = (uint16_t)__byte_perm(s0, s1, 0x0040);
                        *reinterpret_cast<uint16_t *>(low + plane_bytes) =
                            (uint16_t)__byte_perm(s0, s1, 0x0051);
                    }
            column = next_column;
        }
    }
    __syncthreads();

    /* row pass: units of 16 rows x 32 output columns (4 groups of 8) */
    uint32_t band[WIDE_BANDS_H][2];
#pragma unroll
    for (int s = 0; s < WIDE_BANDS_H; s++) {
        const int e = 8 * s - 24 + r - r8;
        band[s][0] = lane_taps[e];
        band[s][1] = lane_taps[e + 16];
    }
    const int ld_row = (lane & 7) + 8 * ((lane >> 3) & 1), ld_col = 16 * (lane >> 4);
    for (int unit = warp; unit < WIDE_UNITS; unit += WIDE_WARPS) {
        const int mt = unit / (WIDE_TILE_COLS / 32), xw = 32 * (unit % (WIDE_TILE_COLS / 32));
        const uint8_t *unit_sums = sums + (16 * mt + ld_row) * pitch + xw + ld_col;
        uint32_t out[4][4]; /* [group][accumulator]: R, G, B in bytes 0..2 once all are in */
#pragma unroll
        for (int ch = 0; ch < 3; ch++) {
            int32_t acc[4][4];
#pragma unroll
            for (int high = 1; high >= 0; high--) {
#pragma unroll
                for (int j = 0; j < 4; j++)
#pragma unroll
                    for (int e = 0; e < 4; e++) {
                        if (high)
                            acc[j][e] = 0;
                        else
                            acc[j][e] = acc[j][e] * 256 + 32768; /* + 0.5 before the >> 16 */
                    }
#pragma unroll
                for (int c = 0; c < COL_CHUNKS; c++) {
                    uint32_t a[4];
                    ldmatrix_x4(a, unit_sums + (2 * ch + high) * plane_bytes + 32 * c);
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        if (32 * c - 8 * j > 2 * R8 + 7) continue; /* band all zero: e > 2r + 7 */
                        mma_m16n8k32_u8(acc[j], a, band[4 * c - j + 3]);
                    }
                }
            }
            /* each sum + 32768 < 2^24: byte 2 is the rounded channel */
#pragma unroll
            for (int j = 0; j < 4; j++)
#pragma unroll
                for (int e = 0; e < 4; e++) {
                    const uint32_t v = (uint32_t)acc[j][e];
                    out[j][e] = ch == 0   ? v
                                : ch == 1 ? __byte_perm(out[j][e], v, 0x0062)
                                          : __byte_perm(out[j][e], v, 0x0610);
                }
        }
#pragma unroll
        for (int half = 0; half < 2; half++) {
            const int row = 16 * mt + g + 8 * half, y = y0 + row;
            if (y >= dst.height) continue;
            uint8_t *dst_row = dst.data + (uint64_t)(uint32_t)y * (uint32_t)dst.pitch;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int column = xw + 8 * j + 2 * t, x = x0 + column;
                if (x >= dst.width) break;
                /* the centre pixel's alpha: window row row + r of the column */
                const uint8_t *alpha = alphas + column * WIDE_ALPHA_PITCH + row + r;
                const uint32_t px0 = __byte_perm(out[j][2 * half], alpha[0], 0x4210);
                const uint32_t px1 =
                    __byte_perm(out[j][2 * half + 1], alpha[WIDE_ALPHA_PITCH], 0x4210);
                if (aligned8 && x + 1 < dst.width) {
                    *reinterpret_cast<uint2 *>(dst_row + 4 * (size_t)x) = make_uint2(px0, px1);
                } else {
                    uint32_t *to = reinterpret_cast<uint32_t *>(dst_row) + x;
                    to[0] = px0;
                    if (x + 1 < dst.width) to[1] = px1;
                }
            }
        }
    }
#endif
}

/* ---- launcher --------------------------------------------------------------------------------- */
bool gaussian_wide_applies(const int *taps, int radius)
{
    if (radius < GAUSSIAN_WIDE_MIN_RADIUS || radius > FV_GAUSSIAN_MAX_RADIUS) return false;
    for (int k = 0; k <= 2 * radius; k++)
        if (taps[k] > 255) return false;
    return fv_device_compute_major() >=
           8; /* 0 without a device: the caller's own path reports it */
}

typedef void (*gaussian_wide_kernel_fn)(fv_image, fv_image, gaussian_wide_taps, bool);

/* the instance for roundup8(radius): 8, 16, 24 or 32 */
static gaussian_wide_kernel_fn gaussian_wide_kernel_for(int radius)
{
    switch ((radius + 7) / 8) {
    case 1: return gaussian_wide_kernel<8>;
    case 2: return gaussian_wide_kernel<16>;
    case 3: return gaussian_wide_kernel<24>;
    default: return gaussian_wide_kernel<32>;
    }
}

bool gaussian_wide_addresses(const fv_image *img)
{
    return (uint64_t)(img->height > 0 ? img->height - 1 : 0) * img->pitch <= UINT32_MAX;
}

fv_kernel_info gaussian_wide_kernel_info(int radius)
{
    const size_t smem = wide_smem_bytes(radius);
    const gaussian_wide_kernel_fn kernel = gaussian_wide_kernel_for(radius);
    /* beyond 48 KiB of dynamic shared memory a kernel must opt in, for the occupancy API too */
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
        cudaSuccess)
        (void)cudaGetLastError();
    return fv_kernel_info{"gaussian_wide_kernel", (const void *)kernel, WIDE_THREADS, smem};
}

fv_status gaussian_wide_launch(const fv_image *src, fv_image *dst, const int *taps, int radius,
                               cudaStream_t stream)
{
    if (!gaussian_wide_addresses(src) || !gaussian_wide_addresses(dst))
        return fv_fail(FV_ERR_ARG,
                       "gaussian/fast: the tensor-core path addresses images below 4 GiB only");
    gaussian_wide_taps wide_taps;
    gaussian_wide_taps_make(taps, radius, &wide_taps);
    const bool aligned8 =
        (((uintptr_t)src->data | (uintptr_t)dst->data | src->pitch | dst->pitch) & 7) == 0;
    const size_t smem = wide_smem_bytes(radius);
    const gaussian_wide_kernel_fn kernel = gaussian_wide_kernel_for(radius);
    FV_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dim3 grid((src->width + WIDE_TILE_COLS - 1) / WIDE_TILE_COLS,
              (src->height + WIDE_TILE_ROWS - 1) / WIDE_TILE_ROWS);
    kernel<<<grid, WIDE_THREADS, smem, stream>>>(*src, *dst, wide_taps, aligned8);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}
