/* ------------------------------------------------------------------------------------------------
 * kernels/median/median.cu: median filter, RGBA8, k x k window (k odd, 3..25), replicated borders, R, G
 * and B independently, alpha kept: each output channel is the value of rank (k*k - 1) / 2 of its
 * window (kernels/median/median.h).
 *
 * Variants, one lesson each:
 *   naive      one thread per pixel gathers its k*k pixels from global memory into a per-thread
 *              array (local memory), then selects
 *   smem       a 16x16 block stages its tile plus a k/2 apron in shared memory; each thread
 *              selects straight from there
 *   smem_ppt2  the same with 2 (smem_ppt4: 4) horizontally adjacent outputs per thread: one
 *              shared-memory read serves every output whose window holds that pixel
 *   fast       shared sorting work: pruned sorting networks for k <= 7, sliding histograms
 *              beyond (kernels/median/median_fast.cu)
 *   npp        NVIDIA NPP's median filter, the peer (kernels/median/median_npp.c, where NPP is available)
 * The selection of naive and smem* is a bitwise binary search per channel: 8 passes over the
 * window, each counting the values below a candidate (no sorting, no data-dependent memory
 * accesses). Every variant equals median_ref (kernels/median/median_ref.c) byte for byte: tolerance
 * 0, checked by tests/gpu/test_filters.c for all sizes, with and without noise. Rows need only
 * 4-byte alignment.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "median.h"
#include "median_npp.h"

#include <stdio.h>

#define PIXEL_BLOCK_X 32 /* naive: 32x8 threads, one output pixel each */
#define PIXEL_BLOCK_Y 8
#define SMEM_BLOCK    16 /* smem*: 16x16 threads */
#define PAD_BLOCK_X   32 /* median_pad_replicate: 32x8 threads, one padded pixel each */
#define PAD_BLOCK_Y   8

/* ---- what the variants share ---------------------------------------------------------------- */
__device__ __forceinline__ int clamp_index(int v, int hi)
{
    return min(max(v, 0), hi);
}

__device__ __forceinline__ uint32_t load_pixel(const fv_image &img, int x, int y)
{
    return reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch)[x];
}

__device__ __forceinline__ void store_pixel(const fv_image &img, int x, int y, uint32_t px)
{
    reinterpret_cast<uint32_t *>(img.data + (size_t)y * img.pitch)[x] = px;
}

/* Bitwise binary search, one step for R, G and B of one output: `count` holds how many window
 * values lie below each candidate `result | bit`; the median is the largest v with at most
 * `rank` window values below v, so the bit stays when the count allows it. */
__device__ __forceinline__ void count_below(uint32_t v, const uint32_t cand[3], uint32_t count[3])
{
#pragma unroll
    for (int c = 0; c < 3; c++) count[c] += ((v >> (8 * c)) & 0xffu) < cand[c];
}

__device__ __forceinline__ void select_step(uint32_t result[3], const uint32_t cand[3],
                                            const uint32_t count[3], uint32_t rank)
{
#pragma unroll
    for (int c = 0; c < 3; c++)
        if (count[c] <= rank) result[c] = cand[c];
}

__device__ __forceinline__ uint32_t pack_rgb(const uint32_t result[3], uint32_t alpha_of)
{
    return result[0] | result[1] << 8 | result[2] << 16 | (alpha_of & 0xff000000u);
}

/* ---- naive: gather k*k pixels from global memory into a local array, then select ---------- */
static __global__ void median_naive_kernel(fv_image src, fv_image dst, int k)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int r = k / 2, n = k * k;
    uint32_t window[FV_MEDIAN_MAX_AREA]; /* 2.5 KiB per thread: local memory, not registers */
    for (int i = 0; i < k; i++) {
        const int yy = clamp_index(y + i - r, src.height - 1);
        for (int j = 0; j < k; j++)
            window[i * k + j] = load_pixel(src, clamp_index(x + j - r, src.width - 1), yy);
    }
    const uint32_t rank = (uint32_t)(n - 1) / 2;
    uint32_t result[3] = {0, 0, 0};
    for (int bit = 7; bit >= 0; bit--) {
        uint32_t cand[3], count[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++) cand[c] = result[c] | 1u << bit;
        for (int i = 0; i < n; i++) count_below(window[i], cand, count);
        select_step(result, cand, count, rank);
    }
    store_pixel(dst, x, y, pack_rgb(result, window[r * k + r]));
}

static fv_status median_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                  const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    const int k = median_size(p);
    dim3 block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
    dim3 grid((src->width + PIXEL_BLOCK_X - 1) / PIXEL_BLOCK_X,
              (src->height + PIXEL_BLOCK_Y - 1) / PIXEL_BLOCK_Y);
    median_naive_kernel<<<grid, block, 0, stream>>>(*src, *dst, k);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static int median_naive_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                int max)
{
    (void)p;
    if (max < 1) return 0;
    out[0] = {"median_naive_kernel", (const void *)median_naive_kernel,
              PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}

/* ---- smem, smem_ppt2, smem_ppt4: the block's region staged in shared memory ----------------- */
/* A block of 16x16 threads makes a tile of (16 * PPT) x 16 outputs; their windows cover the
 * region of (16 * PPT + k - 1) x (16 + k - 1) source pixels around it (+k-1: an apron of k/2
 * on each side), clamped at the image edges while it is staged. */
static size_t smem_region_bytes(int ppt, int k)
{
    return sizeof(uint32_t) * (size_t)(SMEM_BLOCK * ppt + k - 1) * (size_t)(SMEM_BLOCK + k - 1);
}

template <int PPT>
static __global__ void __launch_bounds__(SMEM_BLOCK *SMEM_BLOCK)
    median_smem_kernel(fv_image src, fv_image dst, int k)
{
    extern __shared__ uint32_t region[];
    const int r = k / 2;
    const int region_w = SMEM_BLOCK * PPT + k - 1, region_h = SMEM_BLOCK + k - 1;
    const int x0 = blockIdx.x * SMEM_BLOCK * PPT, y0 = blockIdx.y * SMEM_BLOCK;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int idx = ty * SMEM_BLOCK + tx; idx < region_w * region_h;
         idx += SMEM_BLOCK * SMEM_BLOCK) {
        const int sy = idx / region_w, sx = idx - sy * region_w;
        region[idx] = load_pixel(src, clamp_index(x0 - r + sx, src.width - 1),
                                 clamp_index(y0 - r + sy, src.height - 1));
    }
    __syncthreads();
    /* this thread's outputs j = 0..PPT-1 are at region columns tx*PPT + j + r, row ty + r; the
     * window of output j spans region columns tx*PPT + j .. tx*PPT + j + k - 1 */
    const uint32_t rank = (uint32_t)(k * k - 1) / 2;
    uint32_t result[PPT][3];
#pragma unroll
    for (int j = 0; j < PPT; j++) result[j][0] = result[j][1] = result[j][2] = 0;
    for (int bit = 7; bit >= 0; bit--) {
        uint32_t cand[PPT][3], count[PPT][3];
#pragma unroll
        for (int j = 0; j < PPT; j++)
#pragma unroll
            for (int c = 0; c < 3; c++) {
                cand[j][c] = result[j][c] | 1u << bit;
                count[j][c] = 0;
            }
        for (int i = 0; i < k; i++) {
            const uint32_t *row = region + (ty + i) * region_w + tx * PPT;
            for (int c = 0; c < k + PPT - 1; c++) {
                const uint32_t v = row[c]; /* one read, counted for every output that sees it */
#pragma unroll
                for (int j = 0; j < PPT; j++)
                    if (c >= j && c < j + k) count_below(v, cand[j], count[j]);
            }
        }
#pragma unroll
        for (int j = 0; j < PPT; j++) select_step(result[j], cand[j], count[j], rank);
    }
    const int y = y0 + ty;
#pragma unroll
    for (int j = 0; j < PPT; j++) {
        const int x = x0 + tx * PPT + j;
        if (x < src.width && y < src.height)
            store_pixel(dst, x, y,
                        pack_rgb(result[j], region[(ty + r) * region_w + tx * PPT + j + r]));
    }
}

template <int PPT>
static fv_status median_smem_launch(const fv_image *src, fv_image *dst, const fv_params *p,
                                    cudaStream_t stream, const char *variant)
{
    const int k = median_size(p);
    dim3 block(SMEM_BLOCK, SMEM_BLOCK);
    dim3 grid((src->width + SMEM_BLOCK * PPT - 1) / (SMEM_BLOCK * PPT),
              (src->height + SMEM_BLOCK - 1) / SMEM_BLOCK);
    median_smem_kernel<PPT><<<grid, block, smem_region_bytes(PPT, k), stream>>>(*src, *dst, k);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static fv_status median_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                 const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    return median_smem_launch<1>(src, dst, p, stream, "smem");
}

static fv_status median_smem_ppt2_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                      const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    return median_smem_launch<2>(src, dst, p, stream, "smem_ppt2");
}

static fv_status median_smem_ppt4_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                      const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    return median_smem_launch<4>(src, dst, p, stream, "smem_ppt4");
}

static int median_smem_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                               int max)
{
    if (max < 1) return 0;
    out[0] = {"median_smem_kernel<1>", (const void *)median_smem_kernel<1>, SMEM_BLOCK * SMEM_BLOCK,
              smem_region_bytes(1, median_size(p))};
    return 1;
}

static int median_smem_ppt2_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                    int max)
{
    if (max < 1) return 0;
    out[0] = {"median_smem_kernel<2>", (const void *)median_smem_kernel<2>, SMEM_BLOCK * SMEM_BLOCK,
              smem_region_bytes(2, median_size(p))};
    return 1;
}

static int median_smem_ppt4_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                    int max)
{
    if (max < 1) return 0;
    out[0] = {"median_smem_kernel<4>", (const void *)median_smem_kernel<4>, SMEM_BLOCK * SMEM_BLOCK,
              smem_region_bytes(4, median_size(p))};
    return 1;
}

/* ---- border padding for the NPP peer ------------------------------------------------------- */
static __global__ void median_pad_kernel(fv_image src, fv_image padded, int border)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= padded.width || y >= padded.height) return;
    store_pixel(padded, x, y,
                load_pixel(src, clamp_index(x - border, src.width - 1),
                           clamp_index(y - border, src.height - 1)));
}

extern "C" fv_status median_pad_replicate(const fv_image *src, fv_image *padded, int border,
                                          cudaStream_t stream)
{
    if (padded->width != src->width + 2 * border || padded->height != src->height + 2 * border)
        return fv_fail(FV_ERR_ARG,
                       "median: padded image %dx%d does not fit %dx%d with a border of %d",
                       padded->width, padded->height, src->width, src->height, border);
    dim3 block(PAD_BLOCK_X, PAD_BLOCK_Y);
    dim3 grid((padded->width + PAD_BLOCK_X - 1) / PAD_BLOCK_X,
              (padded->height + PAD_BLOCK_Y - 1) / PAD_BLOCK_Y);
    median_pad_kernel<<<grid, block, 0, stream>>>(*src, *padded, border);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

/* ---- the descriptor -------------------------------------------------------------------------- */
static const fv_variant median_variants[] = {
    {.name = "naive",
     .summary = "one thread per pixel gathers its k*k pixels from global memory into a per-thread "
                "array (local memory, 2.5 KiB), then 8 counting passes find each channel's median",
     .run = median_naive_run,
     .kernels = median_naive_kernels},
    {.name = "smem",
     .summary =
         "16x16 block stages its tile plus a k/2 apron in shared memory once; each thread "
         "counts its window there: no local array, neighbours' pixels read from shared memory",
     .run = median_smem_run,
     .kernels = median_smem_kernels},
    {.name = "smem_ppt2",
     .summary = "smem with 2 adjacent outputs per thread: each shared read is counted for both "
                "windows that hold it (k+1 reads per row instead of 2k), half the threads",
     .run = median_smem_ppt2_run,
     .kernels = median_smem_ppt2_kernels},
    {.name = "smem_ppt4",
     .summary = "smem with 4 adjacent outputs per thread (k+3 reads per row instead of 4k); the "
                "counting itself is not shared, so the gain stops here",
     .run = median_smem_ppt4_run,
     .kernels = median_smem_ppt4_kernels},
    {.name = "fast",
     .role = FV_ROLE_FASTEST,
     .summary = median_fast_summary,
     .run = median_fast_run,
     .kernels = median_fast_kernels},
    FV_VARIANT_NPP_MEDIAN FV_VARIANT_CPU,
};

static const fv_param_desc median_params[MEDIAN_N_PARAMS] = {
    [MEDIAN_SIZE] = {.name = "size",
                     .help = "window width and height in pixels (odd): the window is size x size",
                     .type = FV_PARAM_INT,
                     .min = FV_MEDIAN_MIN_SIZE,
                     .max = FV_MEDIAN_MAX_SIZE,
                     .step = 2,
                     .def = 3,
                     .odd_only = 1},
};

/* every odd size: the fast variant has code of its own for each */
static const char *const median_test_params[] = {"size=5",  "size=7",  "size=9",  "size=11",
                                                 "size=13", "size=15", "size=17", "size=19",
                                                 "size=21", "size=23", NULL};

/* half the window */
static int median_reach(const fv_params *p)
{
    return (int)p->value[MEDIAN_SIZE] / 2;
}

extern "C" const fv_filter fv_filter_median = {
    .name = "median",
    .summary = "median filter: each of R, G, B is the median of its size x size window, alpha kept",
    .params = median_params,
    .n_params = MEDIAN_N_PARAMS,
    .ref = median_ref,
    .variants = median_variants,
    .n_variants = (int)(sizeof median_variants / sizeof median_variants[0]),
    .baseline = "naive",
    .tolerance = {0, 0.0},
    .reach = median_reach,
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = FV_MAX_ITERATIONS,
    .test_params = median_test_params,
};
