/* ------------------------------------------------------------------------------------------------
 * kernels/median/median.cu: median filter, k x k window (k odd, 3..25), R, G and B independently,
 * alpha kept, past the edges as the `border` parameter says: each output channel is the value of
 * rank (k*k - 1) / 2 of its window (kernels/median/median.h).
 *
 * Variants, one lesson each:
 *   naive      one thread per pixel gathers its k*k pixels from global memory into a per-thread
 *              array (local memory), then selects
 *   smem       a 16x16 block stages its tile plus a k/2 apron in shared memory; each thread
 *              selects straight from there
 *   smem_ppt2  the same with 2 (smem_ppt4: 4) horizontally adjacent outputs per thread: one
 *              shared-memory read serves every output whose window holds that pixel
 *   fast       shared sorting work: a median of sorted columns at k = 3, pruned sorting networks
 *              for k <= 9, sliding histograms beyond (kernels/median/median_fast.cu); every other
 *              type and border through keys (kernels/median/median_fast_keys.cu)
 *   npp        NVIDIA NPP's median filter, the peer (kernels/median/median_npp.c, where NPP is
 *              available): uint8, replicate
 * The selection of naive and smem* is a bitwise binary search per channel: one pass over the
 * window per bit of the type (8 for uint8, 16 for uint16), each counting the values below a
 * candidate (no sorting, no data-dependent memory accesses). The kernels are templated on the
 * pixel type (median_px: how a pixel is read, held and written) with one instantiation table; the
 * staging reads through fv_border_index, and the constant border reads cval. Every variant equals
 * median_ref (kernels/median/median_ref.c) byte for byte: tolerance 0, checked by
 * tests/gpu/test_filters.c for all sizes, with and without noise. Rows need only 4-byte
 * alignment.
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "cuda_check.h"
#include "median.h"
#include "median_gpu.h"
#include "median_npp.h"

#include <stdio.h>
#include <stdlib.h>

#define PIXEL_BLOCK_X 32 /* naive: 32x8 threads, one output pixel each */
#define PIXEL_BLOCK_Y 8
#define SMEM_BLOCK    16 /* smem*: 16x16 threads */

/* ---- what the variants share ---------------------------------------------------------------- */
__device__ __forceinline__ uint32_t load_pixel(const fv_image &img, int x, int y)
{
    return reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch)[x];
}

__device__ __forceinline__ void store_pixel(const fv_image &img, int x, int y, uint32_t px)
{
    reinterpret_cast<uint32_t *>(img.data + (size_t)y * img.pitch)[x] = px;
}

/* A pixel as the counting variants hold it, per type: `staged` is what one read of the image
 * gives and shared memory keeps; key(s, c) is channel c's value; BITS how many counting passes a
 * channel takes. Rows need only 4-byte alignment, so a uint16 pixel is read as two words. */
template <fv_pixel_type T> struct median_px;

template <> struct median_px<FV_PIXEL_U8> {
    typedef uint32_t staged; /* RGBA8 */
    enum { BITS = 8 };
    static __device__ __forceinline__ staged load(const fv_image &img, int x, int y)
    {
        return load_pixel(img, x, y);
    }
    static __device__ __forceinline__ staged constant(uint32_t key) { return key * 0x01010101u; }
    static __device__ __forceinline__ uint32_t key(staged s, int c)
    {
        return (s >> (8 * c)) & 0xffu;
    }
    static __device__ __forceinline__ void store(const fv_image &img, int x, int y,
                                                 const uint32_t result[3], staged centre)
    {
        store_pixel(img, x, y,
                    result[0] | result[1] << 8 | result[2] << 16 | (centre & 0xff000000u));
    }
};

template <> struct median_px<FV_PIXEL_U16> {
    typedef uint2 staged; /* R | G << 16, B | A << 16 */
    enum { BITS = 16 };
    static __device__ __forceinline__ staged load(const fv_image &img, int x, int y)
    {
        const uint32_t *p = reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch);
        return make_uint2(p[2 * x], p[2 * x + 1]);
    }
    static __device__ __forceinline__ staged constant(uint32_t key)
    {
        return make_uint2(key * 0x10001u, key * 0x10001u);
    }
    static __device__ __forceinline__ uint32_t key(staged s, int c)
    {
        return c == 0 ? s.x & 0xffffu : (c == 1 ? s.x >> 16 : s.y & 0xffffu);
    }
    static __device__ __forceinline__ void store(const fv_image &img, int x, int y,
                                                 const uint32_t result[3], staged centre)
    {
        uint32_t *p = reinterpret_cast<uint32_t *>(img.data + (size_t)y * img.pitch);
        p[2 * x] = result[0] | result[1] << 16;
        p[2 * x + 1] = result[2] | (centre.y & 0xffff0000u);
    }
};

/* The pixel at (x, y) through the border (`cval` where it says constant). */
template <fv_pixel_type T>
__device__ __forceinline__ typename median_px<T>::staged load_bordered(
    const fv_image &img, int x, int y, fv_border border, typename median_px<T>::staged cval)
{
    const int xx = fv_border_index(x, img.width, border),
              yy = fv_border_index(y, img.height, border);
    return xx < 0 || yy < 0 ? cval : median_px<T>::load(img, xx, yy);
}

/* Bitwise binary search, one step for R, G and B of one output: `count` holds how many window
 * values lie below each candidate `result | bit`; the median is the largest v with at most
 * `rank` window values below v, so the bit stays when the count allows it. */
template <fv_pixel_type T>
__device__ __forceinline__ void count_below(typename median_px<T>::staged v, const uint32_t cand[3],
                                            uint32_t count[3])
{
#pragma unroll
    for (int c = 0; c < 3; c++) count[c] += median_px<T>::key(v, c) < cand[c];
}

__device__ __forceinline__ void select_step(uint32_t result[3], const uint32_t cand[3],
                                            const uint32_t count[3], uint32_t rank)
{
#pragma unroll
    for (int c = 0; c < 3; c++)
        if (count[c] <= rank) result[c] = cand[c];
}

/* ---- naive: gather k*k pixels from global memory into a local array, then select ---------- */
template <fv_pixel_type T>
static __global__ void median_naive_kernel(fv_image src, fv_image dst, int k, fv_border border,
                                           uint32_t cval_key)
{
    typedef median_px<T> P;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int r = k / 2, n = k * k;
    const typename P::staged cval = P::constant(cval_key);
    typename P::staged window[FV_MEDIAN_MAX_AREA]; /* 2.5 KiB a thread at uint8: local memory */
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            window[i * k + j] = load_bordered<T>(src, x + j - r, y + i - r, border, cval);
    const uint32_t rank = (uint32_t)(n - 1) / 2;
    uint32_t result[3] = {0, 0, 0};
    for (int bit = P::BITS - 1; bit >= 0; bit--) {
        uint32_t cand[3], count[3] = {0, 0, 0};
        for (int c = 0; c < 3; c++) cand[c] = result[c] | 1u << bit;
        for (int i = 0; i < n; i++) count_below<T>(window[i], cand, count);
        select_step(result, cand, count, rank);
    }
    P::store(dst, x, y, result, P::load(src, x, y));
}

/* ---- smem, smem_ppt2, smem_ppt4: the block's region staged in shared memory ----------------- */
/* A block of 16x16 threads makes a tile of (16 * PPT) x 16 outputs; their windows cover the
 * region of (16 * PPT + k - 1) x (16 + k - 1) source pixels around it (+k-1: an apron of k/2
 * on each side), read through the border while it is staged. */
template <fv_pixel_type T> static size_t smem_region_bytes(int ppt, int k)
{
    return sizeof(typename median_px<T>::staged) * (size_t)(SMEM_BLOCK * ppt + k - 1) *
           (size_t)(SMEM_BLOCK + k - 1);
}

template <int PPT, fv_pixel_type T>
static __global__ void __launch_bounds__(SMEM_BLOCK *SMEM_BLOCK)
    median_smem_kernel(fv_image src, fv_image dst, int k, fv_border border, uint32_t cval_key)
{
    typedef median_px<T> P;
    typedef typename P::staged staged;
    extern __shared__ __align__(16) unsigned char median_smem[];
    staged *region = reinterpret_cast<staged *>(median_smem);
    const int r = k / 2;
    const int region_w = SMEM_BLOCK * PPT + k - 1, region_h = SMEM_BLOCK + k - 1;
    const int x0 = blockIdx.x * SMEM_BLOCK * PPT, y0 = blockIdx.y * SMEM_BLOCK;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const staged cval = P::constant(cval_key);
    for (int idx = ty * SMEM_BLOCK + tx; idx < region_w * region_h;
         idx += SMEM_BLOCK * SMEM_BLOCK) {
        const int sy = idx / region_w, sx = idx - sy * region_w;
        region[idx] = load_bordered<T>(src, x0 - r + sx, y0 - r + sy, border, cval);
    }
    __syncthreads();
    /* this thread's outputs j = 0..PPT-1 are at region columns tx*PPT + j + r, row ty + r; the
     * window of output j spans region columns tx*PPT + j .. tx*PPT + j + k - 1 */
    const uint32_t rank = (uint32_t)(k * k - 1) / 2;
    uint32_t result[PPT][3];
#pragma unroll
    for (int j = 0; j < PPT; j++) result[j][0] = result[j][1] = result[j][2] = 0;
    for (int bit = P::BITS - 1; bit >= 0; bit--) {
        uint32_t cand[PPT][3], count[PPT][3];
#pragma unroll
        for (int j = 0; j < PPT; j++)
#pragma unroll
            for (int c = 0; c < 3; c++) {
                cand[j][c] = result[j][c] | 1u << bit;
                count[j][c] = 0;
            }
        for (int i = 0; i < k; i++) {
            const staged *row = region + (ty + i) * region_w + tx * PPT;
            for (int c = 0; c < k + PPT - 1; c++) {
                const staged v = row[c]; /* one read, counted for every output that sees it */
#pragma unroll
                for (int j = 0; j < PPT; j++)
                    if (c >= j && c < j + k) count_below<T>(v, cand[j], count[j]);
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
            P::store(dst, x, y, result[j], region[(ty + r) * region_w + tx * PPT + j + r]);
    }
}

/* ---- the instantiation table: every counting kernel for every type the teaching variants run */
typedef void (*median_count_kernel)(fv_image, fv_image, int, fv_border, uint32_t);

typedef struct median_count_instance {
    fv_pixel_type type;
    median_count_kernel naive, smem[3]; /* smem: PPT 1, 2, 4 */
    const char *naive_name, *smem_name[3];
    size_t (*region_bytes)(int ppt, int k);
} median_count_instance;

#define MEDIAN_COUNT_INSTANCE(T, NAME)                                                             \
    {                                                                                              \
        T, median_naive_kernel<T>,                                                                 \
            {median_smem_kernel<1, T>, median_smem_kernel<2, T>, median_smem_kernel<4, T>},        \
            "median_naive_kernel<" NAME ">",                                                       \
            {"median_smem_kernel<1, " NAME ">", "median_smem_kernel<2, " NAME ">",                 \
             "median_smem_kernel<4, " NAME ">"},                                                   \
            smem_region_bytes<T>                                                                   \
    }

static const median_count_instance median_count_instances[] = {
    MEDIAN_COUNT_INSTANCE(FV_PIXEL_U8, "uint8"),
    MEDIAN_COUNT_INSTANCE(FV_PIXEL_U16, "uint16"),
};

/* The instance of the type (the registry has refused the others at prepare). */
static const median_count_instance *median_count_of(fv_pixel_type type)
{
    for (size_t i = 0; i < sizeof median_count_instances / sizeof median_count_instances[0]; i++)
        if (median_count_instances[i].type == type) return &median_count_instances[i];
    return &median_count_instances[0];
}

/* The PPT of each smem variant, from its `id` (0: naive) */
static int median_smem_ppt(const fv_variant *v)
{
    return v->id;
}
static int median_smem_slot(int ppt)
{
    return ppt == 4 ? 2 : ppt - 1;
}

/* ---- state: the configuration, made once per parameter change ------------------------------ */
fv_status median_state_create(const fv_variant *v, void **state, const fv_params *p,
                              const void *config, int width, int height)
{
    (void)v, (void)p, (void)width, (void)height;
    median_config *c = (median_config *)malloc(sizeof *c);
    if (!c) return fv_fail(FV_ERR_MEMORY, "median: out of host memory");
    *c = *(const median_config *)config;
    *state = c;
    return FV_OK;
}

void median_state_destroy(const fv_variant *v, void *state)
{
    (void)v;
    free(state);
}

fv_status median_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream)
{
    (void)v, (void)config; /* the state is a copy of it */
    const median_config *c = (const median_config *)state;
    dim3 block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
    dim3 grid((src->width + PIXEL_BLOCK_X - 1) / PIXEL_BLOCK_X,
              (src->height + PIXEL_BLOCK_Y - 1) / PIXEL_BLOCK_Y);
    median_count_of(c->type)->naive<<<grid, block, 0, stream>>>(*src, *dst, c->k, c->border,
                                                                c->cval_key);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int median_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                         fv_kernel_info *out, int max)
{
    (void)v, (void)p;
    const median_config *cfg = (const median_config *)config;
    if (max < 1) return 0;
    const median_count_instance *in = median_count_of(cfg->type);
    out[0] = {in->naive_name, (const void *)in->naive, PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}

fv_status median_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream)
{
    (void)config; /* the state is a copy of it */
    const median_config *c = (const median_config *)state;
    const int ppt = median_smem_ppt(v);
    const median_count_instance *in = median_count_of(c->type);
    dim3 block(SMEM_BLOCK, SMEM_BLOCK);
    dim3 grid((src->width + SMEM_BLOCK * ppt - 1) / (SMEM_BLOCK * ppt),
              (src->height + SMEM_BLOCK - 1) / SMEM_BLOCK);
    in->smem[median_smem_slot(ppt)]<<<grid, block, in->region_bytes(ppt, c->k), stream>>>(
        *src, *dst, c->k, c->border, c->cval_key);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int median_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max)
{
    (void)p;
    const median_config *cfg = (const median_config *)config;
    if (max < 1) return 0;
    const int ppt = median_smem_ppt(v);
    const median_count_instance *in = median_count_of(cfg->type);
    out[0] = {in->smem_name[median_smem_slot(ppt)], (const void *)in->smem[median_smem_slot(ppt)],
              SMEM_BLOCK * SMEM_BLOCK, in->region_bytes(ppt, cfg->k)};
    return 1;
}

