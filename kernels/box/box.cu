/* ------------------------------------------------------------------------------------------------
 * kernels/box/box.cu: box (mean) filter, RGBA8, clamp-to-edge borders, alpha passed through: each of
 * R, G, B is the rounded mean (sum + area / 2) / area of its (2r+1) x (2r+1) window, r = 1..128.
 *
 * Variants, one lesson each:
 *   naive     one thread per pixel, every tap read from global memory
 *   unrolled  the same with the radius a template constant: loops fully unrolled for r = 1..8
 *   smem      16x16 block stages its tile plus apron in shared memory (in strips for wide windows)
 *   tex       taps read through a texture object whose clamp address mode does the borders
 *   fast      constant work per pixel: sliding sums in one pass, plus band totals for wide windows (kernels/box/box_fast.cu)
 *   npp       NVIDIA NPP's box filter, the peer (kernels/box/box_npp.c, where NPP is available)
 * All sum in exact integers and divide with box_mean (kernels/box/box.h), so every one equals box_ref
 * (kernels/box/box_ref.c) byte for byte: tolerance 0, checked by tests/gpu/test_filters.c for many sizes,
 * radii and pitches. Rows need only 4-byte alignment (uchar4 accesses).
 * ------------------------------------------------------------------------------------------------ */
#include "box.h"
#include "box_npp.h"
#include "cuda_check.h"

#include <stdlib.h>

#define PIXEL_BLOCK_X       32 /* naive, unrolled, tex: 32x8 threads, one output pixel each */
#define PIXEL_BLOCK_Y       8
#define UNROLLED_MAX_RADIUS 8  /* unrolled: compile-time radii 1..8, the runtime loop beyond */
#define SMEM_BLOCK          16 /* smem: 16x16 threads, one output pixel each */
#define SMEM_BUDGET         (48 * 1024) /* smem: dynamic shared memory a block gets without opting in */

/* ---- what the variants share ---------------------------------------------------------------- */
static dim3 pixel_block(void)
{
    return dim3(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
}

static dim3 pixel_grid(const fv_image *img)
{
    return dim3((img->width + PIXEL_BLOCK_X - 1) / PIXEL_BLOCK_X,
                (img->height + PIXEL_BLOCK_Y - 1) / PIXEL_BLOCK_Y);
}

__device__ __forceinline__ int clamp_index(int v, int hi)
{
    return min(max(v, 0), hi);
}

__device__ __forceinline__ const uchar4 *image_row(const fv_image &img, int y)
{
    return reinterpret_cast<const uchar4 *>(img.data + (size_t)y * img.pitch);
}

__device__ __forceinline__ void add_rgb(uint3 &sum, uchar4 px)
{
    sum.x += px.x;
    sum.y += px.y;
    sum.z += px.z;
}

__device__ __forceinline__ void store_mean(const fv_image &dst, int x, int y, uint3 sum,
                                           uint8_t alpha, box_divider d)
{
    reinterpret_cast<uchar4 *>(dst.data + (size_t)y * dst.pitch)[x] =
        make_uchar4((uint8_t)box_mean(sum.x, d), (uint8_t)box_mean(sum.y, d),
                    (uint8_t)box_mean(sum.z, d), alpha);
}

/* ---- naive: one thread per pixel, (2r+1)^2 global loads ------------------------------------ */
static __global__ void box_naive_kernel(fv_image src, fv_image dst, int r, box_divider d)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    uint3 sum = make_uint3(0, 0, 0);
    for (int i = -r; i <= r; i++) {
        const uchar4 *row = image_row(src, clamp_index(y + i, src.height - 1));
        for (int j = -r; j <= r; j++) add_rgb(sum, row[clamp_index(x + j, src.width - 1)]);
    }
    store_mean(dst, x, y, sum, image_row(src, y)[x].w, d);
}

static fv_status box_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                               const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    const int r = box_radius(p);
    box_naive_kernel<<<pixel_grid(src), pixel_block(), 0, stream>>>(*src, *dst, r,
                                                                    box_divider_make(r));
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static int box_naive_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out, int max)
{
    (void)p;
    if (max < 1) return 0;
    out[0] = {"box_naive_kernel", (const void *)box_naive_kernel, PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}

/* ---- unrolled: the radius as a template constant (R = 0: the runtime radius) ---------------- */
template <int R>
static __global__ void box_unrolled_kernel(fv_image src, fv_image dst, int radius, box_divider d)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    uint3 sum = make_uint3(0, 0, 0);
    if constexpr (R > 0) {
        /* (2R+1)^2 straight-line loads and adds: no loop counters, no branches */
#pragma unroll
        for (int i = -R; i <= R; i++) {
            const uchar4 *row = image_row(src, clamp_index(y + i, src.height - 1));
#pragma unroll
            for (int j = -R; j <= R; j++) add_rgb(sum, row[clamp_index(x + j, src.width - 1)]);
        }
    } else {
        for (int i = -radius; i <= radius; i++) {
            const uchar4 *row = image_row(src, clamp_index(y + i, src.height - 1));
#pragma unroll 4
            for (int j = -radius; j <= radius; j++)
                add_rgb(sum, row[clamp_index(x + j, src.width - 1)]);
        }
    }
    store_mean(dst, x, y, sum, image_row(src, y)[x].w, d);
}

typedef void (*box_kernel_fn)(fv_image, fv_image, int, box_divider);

/* The instance for radius r, and its name: the launcher and the report both pick here. */
static box_kernel_fn box_unrolled_pick(int r, const char **name)
{
    static_assert(UNROLLED_MAX_RADIUS == 8, "one case per compile-time radius");
    switch (r) {
    case 1: *name = "box_unrolled_kernel<1>"; return box_unrolled_kernel<1>;
    case 2: *name = "box_unrolled_kernel<2>"; return box_unrolled_kernel<2>;
    case 3: *name = "box_unrolled_kernel<3>"; return box_unrolled_kernel<3>;
    case 4: *name = "box_unrolled_kernel<4>"; return box_unrolled_kernel<4>;
    case 5: *name = "box_unrolled_kernel<5>"; return box_unrolled_kernel<5>;
    case 6: *name = "box_unrolled_kernel<6>"; return box_unrolled_kernel<6>;
    case 7: *name = "box_unrolled_kernel<7>"; return box_unrolled_kernel<7>;
    case 8: *name = "box_unrolled_kernel<8>"; return box_unrolled_kernel<8>;
    default: *name = "box_unrolled_kernel<0>"; return box_unrolled_kernel<0>;
    }
}

static fv_status box_unrolled_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                  const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    const int r = box_radius(p);
    const char *name;
    const box_kernel_fn kernel = box_unrolled_pick(r, &name);
    kernel<<<pixel_grid(src), pixel_block(), 0, stream>>>(*src, *dst, r, box_divider_make(r));
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static int box_unrolled_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                int max)
{
    if (max < 1) return 0;
    const char *name;
    const box_kernel_fn kernel = box_unrolled_pick(box_radius(p), &name);
    out[0] = {name, (const void *)kernel, PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}

/* ---- smem: tile plus apron in shared memory, staged in strips of rows when it is too big ---- */
/* The block's outputs need the region of (SMEM_BLOCK + 2r)^2 source pixels around its tile
 * (+2r: an apron of r pixels on each side). It is staged `strip_rows` full-width rows at a
 * time: all of it at once while it fits SMEM_BUDGET (r <= 47), in strips beyond. */
typedef struct box_smem_layout {
    int region_w; /* = region height */
    int strip_rows;
    size_t bytes; /* dynamic shared memory */
} box_smem_layout;

static box_smem_layout box_smem_layout_make(int r)
{
    box_smem_layout l;
    l.region_w = SMEM_BLOCK + 2 * r;
    const int fit = SMEM_BUDGET / (l.region_w * (int)sizeof(uchar4));
    l.strip_rows = fit < l.region_w ? fit : l.region_w;
    l.bytes = (size_t)l.strip_rows * l.region_w * sizeof(uchar4);
    return l;
}

static __global__ void box_smem_kernel(fv_image src, fv_image dst, int r, int strip_rows,
                                       box_divider d)
{
    extern __shared__ uchar4 strip[];
    const int region_w = SMEM_BLOCK + 2 * r;
    const int x0 = blockIdx.x * SMEM_BLOCK - r, y0 = blockIdx.y * SMEM_BLOCK - r;
    const int tx = threadIdx.x, ty = threadIdx.y;
    uint3 sum = make_uint3(0, 0, 0);
    for (int s0 = 0; s0 < region_w; s0 += strip_rows) {
        const int rows = min(strip_rows, region_w - s0);
        if (s0 > 0) __syncthreads(); /* everyone is done with the previous strip */
        for (int idx = ty * SMEM_BLOCK + tx; idx < rows * region_w;
             idx += SMEM_BLOCK * SMEM_BLOCK) {
            const int sy = idx / region_w, sx = idx - sy * region_w;
            strip[idx] =
                image_row(src, clamp_index(y0 + s0 + sy,
                                           src.height - 1))[clamp_index(x0 + sx, src.width - 1)];
        }
        __syncthreads();
        /* this thread's window is region rows ty..ty+2r, columns tx..tx+2r; the two half-warps
         * (rows ty, ty+1) read the same 16 words of a strip row: broadcasts, no bank conflicts */
        const int k_end = min(ty + 2 * r, s0 + rows - 1);
        for (int k = max(ty, s0); k <= k_end; k++) {
            const uchar4 *row = strip + (k - s0) * region_w + tx;
            for (int j = 0; j <= 2 * r; j++) add_rgb(sum, row[j]);
        }
    }
    const int x = blockIdx.x * SMEM_BLOCK + tx, y = blockIdx.y * SMEM_BLOCK + ty;
    if (x < src.width && y < src.height) store_mean(dst, x, y, sum, image_row(src, y)[x].w, d);
}

static fv_status box_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                              const fv_params *p, void *state, cudaStream_t stream)
{
    (void)state;
    const int r = box_radius(p);
    const box_smem_layout l = box_smem_layout_make(r);
    dim3 block(SMEM_BLOCK, SMEM_BLOCK);
    dim3 grid((src->width + SMEM_BLOCK - 1) / SMEM_BLOCK,
              (src->height + SMEM_BLOCK - 1) / SMEM_BLOCK);
    box_smem_kernel<<<grid, block, l.bytes, stream>>>(*src, *dst, r, l.strip_rows,
                                                      box_divider_make(r));
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static int box_smem_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out, int max)
{
    if (max < 1) return 0;
    out[0] = {"box_smem_kernel", (const void *)box_smem_kernel, SMEM_BLOCK * SMEM_BLOCK,
              box_smem_layout_make(box_radius(p)).bytes};
    return 1;
}

/* ---- tex: a texture object on a copy of the source; its clamp address mode is the border --- */
typedef struct box_tex_state {
    cudaArray_t array;           /* width x height uchar4: textures need their own layout */
    cudaTextureObject_t texture; /* point filtering, element reads, unnormalised coordinates */
    int has_texture;
    int width, height;
} box_tex_state;

static __global__ void box_tex_kernel(cudaTextureObject_t texture, fv_image dst, int r,
                                      box_divider d)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    uint3 sum = make_uint3(0, 0, 0);
    /* +0.5: the centre of texel (x, y); coordinates outside the image clamp to its edge texels */
    for (int i = -r; i <= r; i++) {
        const float v = (float)(y + i) + 0.5f;
        for (int j = -r; j <= r; j++)
            add_rgb(sum, tex2D<uchar4>(texture, (float)(x + j) + 0.5f, v));
    }
    store_mean(dst, x, y, sum, tex2D<uchar4>(texture, (float)x + 0.5f, (float)y + 0.5f).w, d);
}

static size_t box_tex_state_bytes(const fv_variant *v, const fv_params *p, int width, int height)
{
    (void)p;
    return (size_t)width * (size_t)height * sizeof(uchar4);
}

static void box_tex_state_destroy(const fv_variant *v, void *state)
{
    box_tex_state *s = (box_tex_state *)state;
    if (!s) return;
    if (s->has_texture) cudaDestroyTextureObject(s->texture);
    if (s->array) cudaFreeArray(s->array);
    free(s);
}

static fv_status box_tex_state_fill(box_tex_state *s)
{
    const cudaChannelFormatDesc format = cudaCreateChannelDesc<uchar4>();
    FV_CUDA_CHECK(cudaMallocArray(&s->array, &format, (size_t)s->width, (size_t)s->height));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = s->array;
    cudaTextureDesc sampling = {};
    sampling.addressMode[0] = cudaAddressModeClamp;
    sampling.addressMode[1] = cudaAddressModeClamp;
    sampling.filterMode = cudaFilterModePoint;
    sampling.readMode = cudaReadModeElementType;
    sampling.normalizedCoords = 0;
    FV_CUDA_CHECK(cudaCreateTextureObject(&s->texture, &resource, &sampling, NULL));
    s->has_texture = 1;
    return FV_OK;
}

static fv_status box_tex_state_create(const fv_variant *v, void **state, const fv_params *p,
                                      int width, int height)
{
    (void)p;
    *state = NULL;
    box_tex_state *s = (box_tex_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "box/tex: out of host memory");
    s->width = width;
    s->height = height;
    const fv_status st = box_tex_state_fill(s);
    if (st != FV_OK) {
        cudaGetLastError(); /* the failure is reported; keep it from the next launch check */
        box_tex_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

static fv_status box_tex_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                             const fv_params *p, void *state, cudaStream_t stream)
{
    const box_tex_state *s = (const box_tex_state *)state;
    const int r = box_radius(p);
    FV_CUDA_CHECK(cudaMemcpy2DToArrayAsync(s->array, 0, 0, src->data, src->pitch,
                                           (size_t)src->width * sizeof(uchar4), (size_t)src->height,
                                           cudaMemcpyDeviceToDevice, stream));
    box_tex_kernel<<<pixel_grid(src), pixel_block(), 0, stream>>>(s->texture, *dst, r,
                                                                  box_divider_make(r));
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static int box_tex_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out, int max)
{
    (void)p;
    if (max < 1) return 0;
    out[0] = {"box_tex_kernel", (const void *)box_tex_kernel, PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}

/* ---- the descriptor -------------------------------------------------------------------------- */
static const fv_variant box_variants[] = {
    {.name = "naive",
     .summary = "one thread per pixel; all (2r+1)^2 taps read from global memory",
     .run = box_naive_run,
     .kernels = box_naive_kernels},
    {.name = "unrolled",
     .summary = "radius as a template constant: loops fully unrolled for r = 1..8; "
                "beyond, the runtime-radius loop with #pragma unroll 4 on the inner loop",
     .run = box_unrolled_run,
     .kernels = box_unrolled_kernels},
    {.name = "smem",
     .summary = "16x16 block stages its tile plus r-pixel apron in shared memory (48 KiB): "
                "all at once up to r = 47, beyond in strips of rows summed one after another",
     .run = box_smem_run,
     .kernels = box_smem_kernels},
    {.name = "tex",
     .summary = "taps read through a texture object, clamp address mode does the borders; "
                "copying the source into its cudaArray each run is part of its time",
     .run = box_tex_run,
     .state_bytes = box_tex_state_bytes,
     .state_create = box_tex_state_create,
     .state_destroy = box_tex_state_destroy,
     .kernels = box_tex_kernels},
    {.name = "fast",
     .role = FV_ROLE_FASTEST,
     .summary = box_fast_summary,
     .run = box_fast_run,
     .state_bytes = box_fast_state_bytes,
     .state_create = box_fast_state_create,
     .state_destroy = box_fast_state_destroy,
     .kernels = box_fast_kernels},
    FV_VARIANT_NPP_BOX FV_VARIANT_CPU,
};

static const fv_param_desc box_params[BOX_N_PARAMS] = {
    [BOX_RADIUS] = {.name = "radius",
                    .help = "half-width: the window is (2r+1) x (2r+1) pixels",
                    .type = FV_PARAM_INT,
                    .min = 1,
                    .max = FV_BOX_MAX_RADIUS,
                    .step = 1,
                    .def = 1},
};

/* 7/8 and 44/45: the prefix modes' boundaries (16-bit lanes, 21-bit lanes, plain words); 20/21:
 * the last warp and first block group */
static const char *const box_test_params[] = {"radius=2",  "radius=7",  "radius=8",   "radius=16",
                                              "radius=17", "radius=20", "radius=21",  "radius=44",
                                              "radius=45", "radius=64", "radius=100", NULL};

/* the window's half-width */
static int box_reach(const fv_params *p)
{
    return (int)p->value[BOX_RADIUS];
}

extern "C" const fv_filter fv_filter_box = {
    .name = "box",
    .summary = "box (mean) filter: the rounded average of a (2r+1)^2 window, alpha kept",
    .params = box_params,
    .n_params = BOX_N_PARAMS,
    .ref = box_ref,
    .variants = box_variants,
    .n_variants = (int)(sizeof box_variants / sizeof box_variants[0]),
    .baseline = "naive",
    .tolerance = {0, 0.0},
    .reach = box_reach,
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = FV_MAX_ITERATIONS,
    .test_params = box_test_params,
};
