/* ------------------------------------------------------------------------------------------------
 * kernels/box/box.cu: box (mean) filter of RGBA images, alpha passed through: each of R, G, B is the
 * rounded mean (sum + area / 2) / area of its (2r+1) x (2r+1) window, r = 1..128 (float32: the
 * mean, not rounded).
 *
 * Variants, one lesson each:
 *   naive     one thread per pixel, every tap read from global memory
 *   unrolled  the same with the radius a template constant: loops fully unrolled for r = 1..8
 *   smem      16x16 block stages its tile plus apron in shared memory (in strips for wide windows)
 *   tex       taps read through a texture object whose clamp address mode does the borders
 *   fast      constant work per pixel: sliding sums in one pass, plus band totals for wide windows (kernels/box/box_fast.cu);
 *             other types and borders: one fused kernel for narrow windows, two sliding passes beyond,
 *             templated on the type (kernels/box/box_generic.cu)
 *   npp       NVIDIA NPP's box filter, the peer (kernels/box/box_npp.c, where NPP is available)
 * Pixel types and borders: naive, unrolled and smem run uint8 and uint16 with every border (their
 * kernels are templated on the type and on whether the border is replicate: uint8 replicate
 * compiles to the kernels they always were; unrolled compiles its radii in for replicate, other
 * borders take its run-time loop); tex runs uint8 and uint16, replicate only (its clamp address
 * mode); fast runs every type and border; npp every type, replicate only.
 * All sum in exact integers and divide exactly (box_mean; uint16: 64-bit sums and
 * box_quotient_wide, kernels/box/box.h), so every one equals box_ref (kernels/box/box_ref.c) bit
 * for bit: checked by tests/gpu/test_filters.c for many sizes, radii, pitches, types and borders.
 * Rows need only 4-byte alignment (a uint16 pixel moves as two words).
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "box.h"
#include "box_gpu.h"
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

__device__ __forceinline__ void add_rgb(uint3 &sum, uchar4 px)
{
    sum.x += px.x;
    sum.y += px.y;
    sum.z += px.z;
}

/* uint16 window sums: 64 bits (257^2 * 65535 needs 33) */
struct box_wide3 {
    uint64_t x, y, z;
};

__device__ __forceinline__ void add_rgb(box_wide3 &sum, ushort4 px)
{
    sum.x += px.x;
    sum.y += px.y;
    sum.z += px.z;
}

/* What a border reads outside the image: the mode and the constant (an integer of the type's
 * range: these variants run the integer types). */
struct box_teach_edge {
    fv_border mode;
    uint32_t cval;
};

/* The teaching variants' pixel types: uint8 as always (uchar4, 32-bit sums, box_mean); uint16 as
 * two words a pixel (rows are only 4-byte aligned), 64-bit sums, box_quotient_wide. */
template <typename T> struct box_teach;
template <> struct box_teach<uint8_t> {
    typedef uchar4 vec;
    typedef uint3 sum;
    static __device__ __forceinline__ sum zero() { return make_uint3(0, 0, 0); }
    static __device__ __forceinline__ vec load(const uint8_t *row, int x)
    {
        return reinterpret_cast<const uchar4 *>(row)[x];
    }
    static __device__ __forceinline__ vec splat(const box_teach_edge &e)
    {
        const uint8_t c = (uint8_t)e.cval;
        return make_uchar4(c, c, c, c);
    }
    static __device__ __forceinline__ void store(const fv_image &dst, int x, int y, sum s,
                                                 uint8_t alpha, box_divider d)
    {
        reinterpret_cast<uchar4 *>(dst.data + (size_t)y * dst.pitch)[x] = make_uchar4(
            (uint8_t)box_mean(s.x, d), (uint8_t)box_mean(s.y, d), (uint8_t)box_mean(s.z, d), alpha);
    }
};
template <> struct box_teach<uint16_t> {
    typedef ushort4 vec;
    typedef box_wide3 sum;
    static __device__ __forceinline__ sum zero() { return box_wide3{0, 0, 0}; }
    static __device__ __forceinline__ vec load(const uint8_t *row, int x)
    {
        const uint32_t *q = reinterpret_cast<const uint32_t *>(row) + 2 * x;
        const uint32_t lo = q[0], hi = q[1];
        return make_ushort4(lo & 0xffff, lo >> 16, hi & 0xffff, hi >> 16);
    }
    static __device__ __forceinline__ vec splat(const box_teach_edge &e)
    {
        const uint16_t c = (uint16_t)e.cval;
        return make_ushort4(c, c, c, c);
    }
    static __device__ __forceinline__ void store(const fv_image &dst, int x, int y, sum s,
                                                 uint16_t alpha, box_divider d)
    {
        const uint32_t r = (uint32_t)box_quotient_wide(s.x + d.half, d),
                       g = (uint32_t)box_quotient_wide(s.y + d.half, d),
                       b = (uint32_t)box_quotient_wide(s.z + d.half, d);
        uint32_t *q = reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch) + 2 * x;
        q[0] = r | g << 16;
        q[1] = b | (uint32_t)alpha << 16;
    }
};

/* The row or column a tap reads: clamped (replicate, the code these kernels always had) or
 * through the one border mapping (-1: the constant). */
template <bool ANY_BORDER>
__device__ __forceinline__ int edge_index(int i, int n, const box_teach_edge &e)
{
    return ANY_BORDER ? fv_border_index(i, n, e.mode) : clamp_index(i, n - 1);
}

/* Pixel x of the row already mapped to yy (x not yet mapped): cval where either is outside. */
template <typename T, bool ANY_BORDER>
__device__ __forceinline__ typename box_teach<T>::vec fetch(const fv_image &img, int x, int yy,
                                                            const box_teach_edge &e)
{
    const int xx = edge_index<ANY_BORDER>(x, img.width, e);
    if (ANY_BORDER && (xx < 0 || yy < 0)) return box_teach<T>::splat(e);
    return box_teach<T>::load(img.data + (size_t)yy * img.pitch, xx);
}

/* The configuration of naive, unrolled and smem, made once at prepare: what a run launches with. */
typedef struct box_teach_config {
    int radius;
    box_divider divider;
    box_teach_edge edge;
    fv_pixel_type type;
} box_teach_config;

static box_teach_config box_teach_config_of(const box_config *cfg)
{
    box_teach_config c;
    c.radius = cfg->radius;
    c.divider = box_divider_make(c.radius);
    c.edge.mode = cfg->border;
    c.edge.cval = (uint32_t)cfg->cval; /* checked: 0..the type's max */
    c.type = cfg->type;
    return c;
}

fv_status box_teach_state_create(const fv_variant *v, void **state, const fv_params *p,
                                 const void *config, int width, int height)
{
    const box_config *cfg = (const box_config *)config;
    (void)v, (void)width, (void)height;
    box_teach_config *c = (box_teach_config *)malloc(sizeof *c);
    if (!c) return fv_fail(FV_ERR_MEMORY, "box: out of host memory for its configuration");
    *c = box_teach_config_of(cfg);
    *state = c;
    return FV_OK;
}

void box_teach_state_destroy(const fv_variant *v, void *state)
{
    (void)v;
    free(state);
}

/* One instance per type x (replicate, any border): the table a launcher and its report share. */
#define BOX_BY_TYPE_AND_BORDER(KERNEL)                                                             \
    {                                                                                              \
        {(box_kernel_fn)KERNEL<uint8_t, false>, (box_kernel_fn)KERNEL<uint8_t, true>},             \
        {                                                                                          \
            (box_kernel_fn) KERNEL<uint16_t, false>, (box_kernel_fn)KERNEL<uint16_t, true>         \
        }                                                                                          \
    }
typedef void (*box_kernel_fn)(fv_image, fv_image, int, box_divider, box_teach_edge);

static box_kernel_fn box_pick(box_kernel_fn const (*table)[2], fv_pixel_type type, fv_border b)
{
    return table[type == FV_PIXEL_U16][b != FV_BORDER_REPLICATE];
}

/* ---- naive: one thread per pixel, (2r+1)^2 global loads ------------------------------------ */
template <typename T, bool ANY_BORDER>
static __global__ void box_naive_kernel(fv_image src, fv_image dst, int r, box_divider d,
                                        box_teach_edge edge)
{
    typedef box_teach<T> P;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    typename P::sum sum = P::zero();
    for (int i = -r; i <= r; i++) {
        const int yy = edge_index<ANY_BORDER>(y + i, src.height, edge);
        for (int j = -r; j <= r; j++) add_rgb(sum, fetch<T, ANY_BORDER>(src, x + j, yy, edge));
    }
    P::store(dst, x, y, sum, P::load(src.data + (size_t)y * src.pitch, x).w, d);
}

static const box_kernel_fn box_naive_table[2][2] = BOX_BY_TYPE_AND_BORDER(box_naive_kernel);

fv_status box_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                        void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    const box_teach_config *c = (const box_teach_config *)state;
    box_pick(box_naive_table, c->type, c->edge.mode)<<<pixel_grid(src), pixel_block(), 0, stream>>>(
        *src, *dst, c->radius, c->divider, c->edge);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int box_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                      fv_kernel_info *out, int max)
{
    const box_config *cfg = (const box_config *)config;
    if (max < 1) return 0;
    out[0] = {"box_naive_kernel", (const void *)box_pick(box_naive_table, cfg->type, cfg->border),
              PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}

/* ---- unrolled: the radius as a template constant (R = 0: the runtime radius) ---------------- */
template <typename T, bool ANY_BORDER, int R>
static __global__ void box_unrolled_kernel(fv_image src, fv_image dst, int radius, box_divider d,
                                           box_teach_edge edge)
{
    typedef box_teach<T> P;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    typename P::sum sum = P::zero();
    if constexpr (R > 0) {
        /* (2R+1)^2 straight-line loads and adds: no loop counters, no branches */
#pragma unroll
        for (int i = -R; i <= R; i++) {
            const int yy = edge_index<ANY_BORDER>(y + i, src.height, edge);
#pragma unroll
            for (int j = -R; j <= R; j++) add_rgb(sum, fetch<T, ANY_BORDER>(src, x + j, yy, edge));
        }
    } else {
        for (int i = -radius; i <= radius; i++) {
            const int yy = edge_index<ANY_BORDER>(y + i, src.height, edge);
#pragma unroll 4
            for (int j = -radius; j <= radius; j++)
                add_rgb(sum, fetch<T, ANY_BORDER>(src, x + j, yy, edge));
        }
    }
    P::store(dst, x, y, sum, P::load(src.data + (size_t)y * src.pitch, x).w, d);
}

/* The instance for radius r, type and border, and its name: the launcher and the report both pick
 * here. The radii are compiled in for the replicate border; the others take the run-time loop. */
template <typename T>
static box_kernel_fn box_unrolled_pick_type(int r, fv_border border, const char **name)
{
    static_assert(UNROLLED_MAX_RADIUS == 8, "one case per compile-time radius");
    if (border != FV_BORDER_REPLICATE) {
        *name = "box_unrolled_kernel<0> (any border)";
        return box_unrolled_kernel<T, true, 0>;
    }
    switch (r) {
    case 1: *name = "box_unrolled_kernel<1>"; return box_unrolled_kernel<T, false, 1>;
    case 2: *name = "box_unrolled_kernel<2>"; return box_unrolled_kernel<T, false, 2>;
    case 3: *name = "box_unrolled_kernel<3>"; return box_unrolled_kernel<T, false, 3>;
    case 4: *name = "box_unrolled_kernel<4>"; return box_unrolled_kernel<T, false, 4>;
    case 5: *name = "box_unrolled_kernel<5>"; return box_unrolled_kernel<T, false, 5>;
    case 6: *name = "box_unrolled_kernel<6>"; return box_unrolled_kernel<T, false, 6>;
    case 7: *name = "box_unrolled_kernel<7>"; return box_unrolled_kernel<T, false, 7>;
    case 8: *name = "box_unrolled_kernel<8>"; return box_unrolled_kernel<T, false, 8>;
    default: *name = "box_unrolled_kernel<0>"; return box_unrolled_kernel<T, false, 0>;
    }
}

static box_kernel_fn box_unrolled_pick(int r, fv_pixel_type type, fv_border border,
                                       const char **name)
{
    return type == FV_PIXEL_U16 ? box_unrolled_pick_type<uint16_t>(r, border, name)
                                : box_unrolled_pick_type<uint8_t>(r, border, name);
}

fv_status box_unrolled_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    const box_teach_config *c = (const box_teach_config *)state;
    const char *name;
    const box_kernel_fn kernel = box_unrolled_pick(c->radius, c->type, c->edge.mode, &name);
    kernel<<<pixel_grid(src), pixel_block(), 0, stream>>>(*src, *dst, c->radius, c->divider,
                                                          c->edge);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int box_unrolled_kernels(const fv_variant *v, const fv_params *p, const void *config,
                         fv_kernel_info *out, int max)
{
    const box_config *cfg = (const box_config *)config;
    if (max < 1) return 0;
    const char *name;
    const box_kernel_fn kernel = box_unrolled_pick(cfg->radius, cfg->type, cfg->border, &name);
    out[0] = {name, (const void *)kernel, PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}

/* ---- smem: tile plus apron in shared memory, staged in strips of rows when it is too big ---- */
/* The block's outputs need the region of (SMEM_BLOCK + 2r)^2 source pixels around its tile
 * (+2r: an apron of r pixels on each side). It is staged `strip_rows` full-width rows at a
 * time: all of it at once while it fits SMEM_BUDGET (uint8: r <= 47; uint16: r <= 31), in strips
 * beyond. */
typedef struct box_smem_layout {
    int region_w; /* = region height */
    int strip_rows;
    size_t bytes; /* dynamic shared memory */
} box_smem_layout;

static box_smem_layout box_smem_layout_make(int r, fv_pixel_type type)
{
    const int pixel = 4 * (int)fv_pixel_type_bytes(type);
    box_smem_layout l;
    l.region_w = SMEM_BLOCK + 2 * r;
    const int fit = SMEM_BUDGET / (l.region_w * pixel);
    l.strip_rows = fit < l.region_w ? fit : l.region_w;
    l.bytes = (size_t)l.strip_rows * l.region_w * pixel;
    return l;
}

template <typename T, bool ANY_BORDER>
static __global__ void box_smem_kernel(fv_image src, fv_image dst, int r, int strip_rows,
                                       box_divider d, box_teach_edge edge)
{
    typedef box_teach<T> P;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    typename P::vec *strip = reinterpret_cast<typename P::vec *>(smem_bytes);
    const int region_w = SMEM_BLOCK + 2 * r;
    const int x0 = blockIdx.x * SMEM_BLOCK - r, y0 = blockIdx.y * SMEM_BLOCK - r;
    const int tx = threadIdx.x, ty = threadIdx.y;
    typename P::sum sum = P::zero();
    for (int s0 = 0; s0 < region_w; s0 += strip_rows) {
        const int rows = min(strip_rows, region_w - s0);
        if (s0 > 0) __syncthreads(); /* everyone is done with the previous strip */
        for (int idx = ty * SMEM_BLOCK + tx; idx < rows * region_w;
             idx += SMEM_BLOCK * SMEM_BLOCK) {
            const int sy = idx / region_w, sx = idx - sy * region_w;
            strip[idx] = fetch<T, ANY_BORDER>(
                src, x0 + sx, edge_index<ANY_BORDER>(y0 + s0 + sy, src.height, edge), edge);
        }
        __syncthreads();
        /* this thread's window is region rows ty..ty+2r, columns tx..tx+2r; the two half-warps
         * (rows ty, ty+1) read the same 16 words of a strip row: broadcasts, no bank conflicts */
        const int k_end = min(ty + 2 * r, s0 + rows - 1);
        for (int k = max(ty, s0); k <= k_end; k++) {
            const typename P::vec *row = strip + (k - s0) * region_w + tx;
            for (int j = 0; j <= 2 * r; j++) add_rgb(sum, row[j]);
        }
    }
    const int x = blockIdx.x * SMEM_BLOCK + tx, y = blockIdx.y * SMEM_BLOCK + ty;
    if (x < src.width && y < src.height)
        P::store(dst, x, y, sum, P::load(src.data + (size_t)y * src.pitch, x).w, d);
}

typedef void (*box_smem_fn)(fv_image, fv_image, int, int, box_divider, box_teach_edge);
static const box_smem_fn box_smem_table[2][2] = {
    {box_smem_kernel<uint8_t, false>, box_smem_kernel<uint8_t, true>},
    {box_smem_kernel<uint16_t, false>, box_smem_kernel<uint16_t, true>}};

static box_smem_fn box_smem_pick(fv_pixel_type type, fv_border border)
{
    return box_smem_table[type == FV_PIXEL_U16][border != FV_BORDER_REPLICATE];
}

fv_status box_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                       void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    const box_teach_config *c = (const box_teach_config *)state;
    const box_smem_layout l = box_smem_layout_make(c->radius, c->type);
    dim3 block(SMEM_BLOCK, SMEM_BLOCK);
    dim3 grid((src->width + SMEM_BLOCK - 1) / SMEM_BLOCK,
              (src->height + SMEM_BLOCK - 1) / SMEM_BLOCK);
    box_smem_pick(c->type, c->edge.mode)<<<grid, block, l.bytes, stream>>>(
        *src, *dst, c->radius, l.strip_rows, c->divider, c->edge);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int box_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                     fv_kernel_info *out, int max)
{
    const box_config *cfg = (const box_config *)config;
    if (max < 1) return 0;
    out[0] = {"box_smem_kernel", (const void *)box_smem_pick(cfg->type, cfg->border),
              SMEM_BLOCK * SMEM_BLOCK, box_smem_layout_make(cfg->radius, cfg->type).bytes};
    return 1;
}

/* ---- tex: a texture object on a copy of the source; its clamp address mode is the border ---
 * uint8 and uint16 (a cudaArray of uchar4 or ushort4), the replicate border only: clamp is the
 * one address mode that works on unnormalised texel coordinates, which this lesson reads;
 * wrap and mirror need normalised ones (where the texel picked depends on the float rounding of
 * (x + 0.5) / width), and the border mode reads only zero. */
typedef struct box_tex_state {
    cudaArray_t array;           /* width x height pixels: textures need their own layout */
    cudaTextureObject_t texture; /* point filtering, element reads, unnormalised coordinates */
    int has_texture;
    int width, height;
    fv_pixel_type type;
    int radius;
} box_tex_state;

template <typename T>
static __global__ void box_tex_kernel(cudaTextureObject_t texture, fv_image dst, int r,
                                      box_divider d)
{
    typedef box_teach<T> P;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    typename P::sum sum = P::zero();
    /* +0.5: the centre of texel (x, y); coordinates outside the image clamp to its edge texels */
    for (int i = -r; i <= r; i++) {
        const float v = (float)(y + i) + 0.5f;
        for (int j = -r; j <= r; j++)
            add_rgb(sum, tex2D<typename P::vec>(texture, (float)(x + j) + 0.5f, v));
    }
    P::store(dst, x, y, sum, tex2D<typename P::vec>(texture, (float)x + 0.5f, (float)y + 0.5f).w,
             d);
}

size_t box_tex_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                           int height)
{
    const box_config *cfg = (const box_config *)config;
    return (size_t)width * (size_t)height * 4 * fv_pixel_type_bytes(cfg->type);
}

void box_tex_state_destroy(const fv_variant *v, void *state)
{
    box_tex_state *s = (box_tex_state *)state;
    if (!s) return;
    if (s->has_texture) cudaDestroyTextureObject(s->texture);
    if (s->array) cudaFreeArray(s->array);
    free(s);
}

static fv_status box_tex_state_fill(box_tex_state *s)
{
    const cudaChannelFormatDesc format = s->type == FV_PIXEL_U16 ? cudaCreateChannelDesc<ushort4>()
                                                                 : cudaCreateChannelDesc<uchar4>();
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

fv_status box_tex_state_create(const fv_variant *v, void **state, const fv_params *p,
                               const void *config, int width, int height)
{
    const box_config *cfg = (const box_config *)config;
    *state = NULL;
    box_tex_state *s = (box_tex_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "box/tex: out of host memory");
    s->width = width;
    s->height = height;
    s->type = cfg->type;
    s->radius = cfg->radius;
    const fv_status st = box_tex_state_fill(s);
    if (st != FV_OK) {
        cudaGetLastError(); /* the failure is reported; keep it from the next launch check */
        box_tex_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

fv_status box_tex_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                      void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    const box_tex_state *s = (const box_tex_state *)state;
    const int r = s->radius;
    FV_CUDA_CHECK(cudaMemcpy2DToArrayAsync(s->array, 0, 0, src->data, src->pitch,
                                           (size_t)src->width * 4 * fv_pixel_type_bytes(s->type),
                                           (size_t)src->height, cudaMemcpyDeviceToDevice, stream));
    if (s->type == FV_PIXEL_U16)
        box_tex_kernel<uint16_t><<<pixel_grid(src), pixel_block(), 0, stream>>>(
            s->texture, *dst, r, box_divider_make(r));
    else
        box_tex_kernel<uint8_t><<<pixel_grid(src), pixel_block(), 0, stream>>>(s->texture, *dst, r,
                                                                               box_divider_make(r));
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int box_tex_kernels(const fv_variant *v, const fv_params *p, const void *config,
                    fv_kernel_info *out, int max)
{
    const box_config *cfg = (const box_config *)config;
    if (max < 1) return 0;
    out[0] = {"box_tex_kernel",
              cfg->type == FV_PIXEL_U16 ? (const void *)box_tex_kernel<uint16_t>
                                        : (const void *)box_tex_kernel<uint8_t>,
              PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
    return 1;
}
