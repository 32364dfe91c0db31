/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_fast_keys.cu: the `fast` variant for every case but uint8 with replicated
 * borders (uint16, float32, and uint8 under reflect, mirror, constant and wrap up to k = 9; uint8
 * from k = 11 under those borders is median_fast.cu's sliding histograms reading through the
 * border). A block stages its region in shared memory through fv_border_index (cval's key for the
 * constant border), each channel as a plane of 32-bit keys (kernels/median/median.h: the integers
 * themselves; float32 in IEEE order with NaN above +infinity), so that one kernel per window size
 * serves every type: the type is a uniform branch where pixels are read and written, not in the
 * selection. The window size is a template parameter throughout, so that the loops over a window
 * row unroll.
 *
 *   k = 3..9    the pruned sorting networks of the uint8 path (kernels/median/median_networks.h,
 *               the same tiles: 2x2, 8x1, 4x1, 4x1 outputs a thread), run once per channel on
 *               32-bit keys with integer min/max: per output 20, 74.5, 197, 381 min/max a channel,
 *               three channels (the uint8 path does two channels a min/max and some maxima on the
 *               FMA pipes, so expect about 2x its time, plus twice or four times its bytes).
 *   k = 11..25  a bitwise selection per output and channel on the staged keys
 *               (median_select_keys in kernels/median/median.h), as the counting variants do, but
 *               only over the bits in which the window's keys differ (one pass ORs every key's
 *               difference from the first), and over the whole window only while more than
 *               MEDIAN_SELECT_CAP keys can still be the median: those are then gathered into
 *               shared memory and the remaining bits counted among them. About (passes + 1) * k * k
 *               compare-and-adds per output and channel: linear in the window's area, where the
 *               uint8 histograms are linear in k.
 * Equals median_ref byte for byte (NaN as NaN) in every type and border (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "cuda_check.h"
#include "median.h"

#define KEY_NET_BLOCK_X  32 /* networks: 32x8 threads, a tile of outputs each */
#define KEY_NET_BLOCK_Y  8
#define KEY_SELECT_BLOCK 16 /* selection: 16x16 threads, one output each */

__device__ __forceinline__ uint32_t key_min(uint32_t a, uint32_t b)
{
    return min(a, b);
}
__device__ __forceinline__ uint32_t key_max(uint32_t a, uint32_t b)
{
    return max(a, b);
}

namespace net_key
{
#define MEDIAN_NET_T          uint32_t
#define MEDIAN_NET_MIN        key_min
#define MEDIAN_NET_MAX        key_max
#define MEDIAN_NET_FN         static __device__ __forceinline__
#define MEDIAN_NET_ARGS       const uint32_t *win, int stride
#define MEDIAN_NET_LOAD(r, c) win[(r)*stride + (c)]
#include "median_networks.h"
#undef MEDIAN_NET_T
#undef MEDIAN_NET_MIN
#undef MEDIAN_NET_MAX
#undef MEDIAN_NET_FN
#undef MEDIAN_NET_ARGS
#undef MEDIAN_NET_LOAD
} // namespace net_key

/* ---- reading and writing pixels as keys ------------------------------------------------------ */
/* R, G and B of (x, y) (inside the image) as keys; rows need only 4-byte alignment. */
__device__ __forceinline__ void keys_load(const fv_image &img, fv_pixel_type type, int x, int y,
                                          uint32_t key[3])
{
    const uint32_t *row = reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch);
    if (type == FV_PIXEL_U16) {
        const uint32_t rg = __ldg(row + 2 * x), ba = __ldg(row + 2 * x + 1);
        key[0] = rg & 0xffffu, key[1] = rg >> 16, key[2] = ba & 0xffffu;
    } else if (type == FV_PIXEL_F32) {
#pragma unroll
        for (int c = 0; c < 3; c++) key[c] = median_key_of_f32(__ldg(row + 4 * x + c));
    } else {
        const uint32_t px = __ldg(row + x);
#pragma unroll
        for (int c = 0; c < 3; c++) key[c] = (px >> (8 * c)) & 0xffu;
    }
}

/* The output pixel (x, y) from its channels' keys, alpha the source's. */
__device__ __forceinline__ void keys_store(const fv_image &dst, const fv_image &src,
                                           fv_pixel_type type, int x, int y, const uint32_t key[3])
{
    uint32_t *out = reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch);
    const uint32_t *in = reinterpret_cast<const uint32_t *>(src.data + (size_t)y * src.pitch);
    if (type == FV_PIXEL_U16) {
        out[2 * x] = key[0] | key[1] << 16;
        out[2 * x + 1] = key[2] | (__ldg(in + 2 * x + 1) & 0xffff0000u);
    } else if (type == FV_PIXEL_F32) {
#pragma unroll
        for (int c = 0; c < 3; c++) out[4 * x + c] = median_f32_of_key(key[c]);
        out[4 * x + 3] = __ldg(in + 4 * x + 3);
    } else {
        out[x] = key[0] | key[1] << 8 | key[2] << 16 | (__ldg(in + x) & 0xff000000u);
    }
}

/* Stages the region of region_w x region_h pixels whose corner is image position (x0, y0) (which
 * may lie outside) into three planes of `plane` keys each, through the border. */
__device__ __forceinline__ void keys_stage(uint32_t *region, int plane, int region_w, int region_h,
                                           const fv_image &src, const median_config &cfg, int x0,
                                           int y0)
{
    const int threads = blockDim.x * blockDim.y;
    for (int idx = threadIdx.y * blockDim.x + threadIdx.x; idx < region_w * region_h;
         idx += threads) {
        const int sy = idx / region_w, sx = idx - sy * region_w;
        const int xx = fv_border_index(x0 + sx, src.width, cfg.border),
                  yy = fv_border_index(y0 + sy, src.height, cfg.border);
        uint32_t key[3] = {cfg.cval_key, cfg.cval_key, cfg.cval_key};
        if (xx >= 0 && yy >= 0) keys_load(src, cfg.type, xx, yy, key);
#pragma unroll
        for (int c = 0; c < 3; c++) region[c * plane + idx] = key[c];
    }
}

/* `after` as the compiler sees it: a value that depends on `on`, so that what uses it waits */
__device__ __forceinline__ uint32_t key_after(uint32_t after, uint32_t on)
{
    uint32_t v;
    asm volatile("{ .reg .u32 t; and.b32 t, %2, 0; or.b32 %0, %1, t; }"
                 : "=r"(v)
                 : "r"(after), "r"(on));
    return v;
}

/* ---- k = 3..9: the networks, a channel at a time ---------------------------------------------- */
template <int K> struct key_tile;
#define KEY_TILE(k)                                                                                \
    template <> struct key_tile<k> {                                                               \
        enum { TX = MEDIAN_NET##k##_TX, TY = MEDIAN_NET##k##_TY };                                 \
        static __device__ __forceinline__ void run(const uint32_t *w, int s, uint32_t *o)          \
        {                                                                                          \
            net_key::median_net##k(w, s, o);                                                       \
        }                                                                                          \
    };
KEY_TILE(3)
KEY_TILE(5)
KEY_TILE(7)
KEY_TILE(9)

template <int K>
static __global__ void __launch_bounds__(KEY_NET_BLOCK_X *KEY_NET_BLOCK_Y, 2)
    median_keys_net_kernel(fv_image src, fv_image dst, median_config cfg)
{
    constexpr int TX = key_tile<K>::TX, TY = key_tile<K>::TY, N = TX * TY, R = K / 2;
    constexpr int REGION_W = KEY_NET_BLOCK_X * TX + K - 1, REGION_H = KEY_NET_BLOCK_Y * TY + K - 1;
    constexpr int PLANE = REGION_W * REGION_H;
    __shared__ uint32_t region[3 * PLANE];
    const int x0 = blockIdx.x * KEY_NET_BLOCK_X * TX, y0 = blockIdx.y * KEY_NET_BLOCK_Y * TY;
    keys_stage(region, PLANE, REGION_W, REGION_H, src, cfg, x0 - R, y0 - R);
    __syncthreads();
    const int ox = threadIdx.x * TX, oy = threadIdx.y * TY; /* the tile's first output */
    if (x0 + ox >= src.width || y0 + oy >= src.height) return;
    const uint32_t *win = region + oy * REGION_W + ox;
    /* one channel after the other: each run reads its plane through an address that waits for
     * the last run's last median, so the runs are not interleaved (which would keep three
     * channels' values live at once) */
    uint32_t r[N], g[N], b[N];
    key_tile<K>::run(win, REGION_W, r);
    key_tile<K>::run(win + PLANE + key_after(0u, r[N - 1]), REGION_W, g);
    key_tile<K>::run(win + 2 * PLANE + key_after(0u, g[N - 1]), REGION_W, b);
#pragma unroll
    for (int i = 0; i < TY; i++)
#pragma unroll
        for (int j = 0; j < TX; j++) {
            const int x = x0 + ox + j, y = y0 + oy + i;
            if (x >= src.width || y >= src.height) continue;
            const uint32_t key[3] = {r[i * TX + j], g[i * TX + j], b[i * TX + j]};
            keys_store(dst, src, cfg.type, x, y, key);
        }
}

/* ---- k = 11..25: a bitwise selection over the bits the window's keys differ in -------------- */
/* K a constant, so that each window row's loop unrolls: a load, a compare and an add a key */
template <int K> static constexpr int keys_select_region_w()
{
    return KEY_SELECT_BLOCK + K - 1;
}

/* the region's three planes, then each thread's MEDIAN_SELECT_CAP gathered keys (interleaved:
 * thread t's i-th at [i * threads + t], so a warp's gathers fall in 32 banks) */
template <int K> static size_t keys_select_smem_bytes()
{
    return sizeof(uint32_t) * (3 * (size_t)keys_select_region_w<K>() * keys_select_region_w<K>() +
                               (size_t)MEDIAN_SELECT_CAP * KEY_SELECT_BLOCK * KEY_SELECT_BLOCK);
}

template <int K>
static __global__ void __launch_bounds__(KEY_SELECT_BLOCK *KEY_SELECT_BLOCK)
    median_keys_select_kernel(fv_image src, fv_image dst, median_config cfg)
{
    extern __shared__ uint32_t select_region[];
    constexpr int R = K / 2, REGION_W = keys_select_region_w<K>(), PLANE = REGION_W * REGION_W;
    const int x0 = blockIdx.x * KEY_SELECT_BLOCK, y0 = blockIdx.y * KEY_SELECT_BLOCK;
    keys_stage(select_region, PLANE, REGION_W, REGION_W, src, cfg, x0 - R, y0 - R);
    __syncthreads();
    const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    constexpr uint32_t RANK = (uint32_t)(K * K - 1) / 2;
    const uint32_t *win = select_region + threadIdx.y * REGION_W + threadIdx.x;
    uint32_t *gathered = select_region + 3 * PLANE + threadIdx.y * KEY_SELECT_BLOCK + threadIdx.x;
    uint32_t key[3];
#pragma unroll 1
    for (int c = 0; c < 3; c++)
        key[c] = median_select_keys(win + c * PLANE, REGION_W, K, RANK, gathered,
                                    KEY_SELECT_BLOCK * KEY_SELECT_BLOCK);
    keys_store(dst, src, cfg.type, x, y, key);
}

/* ---- dispatch -------------------------------------------------------------------------------- */
typedef void (*keys_kernel_fn)(fv_image, fv_image, median_config);

typedef struct keys_launch {
    keys_kernel_fn kernel;
    const char *name;
    int tile_w, tile_h; /* outputs a block makes */
    int block_x, block_y;
    size_t smem; /* dynamic */
} keys_launch;

#define KEY_NET_CASE(k)                                                                            \
    case k:                                                                                        \
        return {median_keys_net_kernel<k>,                                                         \
                "median_keys_net_kernel<" #k ">",                                                  \
                KEY_NET_BLOCK_X * key_tile<k>::TX,                                                 \
                KEY_NET_BLOCK_Y * key_tile<k>::TY,                                                 \
                KEY_NET_BLOCK_X,                                                                   \
                KEY_NET_BLOCK_Y,                                                                   \
                0};

#define KEY_SELECT_CASE(k)                                                                         \
    case k:                                                                                        \
        return {median_keys_select_kernel<k>,                                                      \
                "median_keys_select_kernel<" #k ">",                                               \
                KEY_SELECT_BLOCK,                                                                  \
                KEY_SELECT_BLOCK,                                                                  \
                KEY_SELECT_BLOCK,                                                                  \
                KEY_SELECT_BLOCK,                                                                  \
                keys_select_smem_bytes<k>()};

/* The kernel for window size k (odd, 3..25), and how it is launched. */
static keys_launch keys_pick(int k)
{
    static_assert(FV_MEDIAN_MAX_SIZE == 25, "one case per odd size");
    switch (k) {
        KEY_NET_CASE(3)
        KEY_NET_CASE(5)
        KEY_NET_CASE(7)
        KEY_NET_CASE(9)
        KEY_SELECT_CASE(11)
        KEY_SELECT_CASE(13)
        KEY_SELECT_CASE(15)
        KEY_SELECT_CASE(17)
        KEY_SELECT_CASE(19)
        KEY_SELECT_CASE(21)
        KEY_SELECT_CASE(23)
    default: KEY_SELECT_CASE(25)
    }
}

extern "C" fv_status median_fast_keys_run(const fv_image *src, fv_image *dst,
                                          const median_config *cfg, cudaStream_t stream)
{
    const keys_launch l = keys_pick(cfg->k);
    dim3 grid((src->width + l.tile_w - 1) / l.tile_w, (src->height + l.tile_h - 1) / l.tile_h);
    l.kernel<<<grid, dim3(l.block_x, l.block_y), l.smem, stream>>>(*src, *dst, *cfg);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

extern "C" int median_fast_keys_kernels(const median_config *cfg, fv_kernel_info *out, int max)
{
    if (max < 1) return 0;
    const keys_launch l = keys_pick(cfg->k);
    out[0] = {l.name, (const void *)l.kernel, l.block_x * l.block_y, l.smem};
    return 1;
}
