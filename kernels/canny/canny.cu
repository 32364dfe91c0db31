/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny.cu: Canny edge detector, RGBA in (uint8, uint16 or float32), one stage of it
 * out, display-ready in the same type (parameter `stage`; the pipeline and its formulas are in
 * kernels/canny/canny.h). uint8 with the replicate border runs the kernels of this file; every
 * other type and border (naive and fast) the per-stage kernels of canny_generic.cu, then the
 * same hysteresis; smem runs uint8 and uint16 with replicate (its tiles templated on the type),
 * npp uint8 with replicate.
 *
 * Variants, one lesson each:
 *   naive  one kernel per stage, every tap from global memory; hysteresis as repeated sweeps over
 *          the whole image, the host reading a changed-flag after each
 *   smem   blur, then Sobel with suppression, from tiles staged in shared memory; hysteresis
 *          converges inside each 32x16 tile in shared memory before each global round
 *   fast   gray, blur, Sobel and suppression fused in one pass over 64x32 tiles, four pixels a
 *          step (blur radii 0..4 compiled one by one; wider blurs on 32x16 tiles with the radius
 *          read at run time); only what a later kernel reads reaches
 *          global memory (labels for manual thresholds; magnitudes and directions when shown or
 *          for auto thresholds). Hysteresis in one cooperative kernel whose blocks run tile
 *          rounds separated by grid-wide barriers: no host round trip until it is done. Full
 *          hysteresis runs on bit masks (a warp a 62x30 tile, a row a lane, its 64 loads issued
 *          together, growth along a row's runs in six shift steps), later rounds only on tiles
 *          whose ring changed; the output kernel writes 16 bytes at a time where rows allow
 *   npp    NVIDIA NPP's nppiFilterCannyBorder_8u_C1R on our gray image (no blur stage; the peer)
 *   cpu    the reference
 * Hysteresis labels every weak pixel with an upper bound of its chain length to a strong pixel
 * (kernels/canny/canny.h); each relaxation can only lower a label to another valid bound, so however
 * the sweeps, tiles and rounds interleave, what they stop at (nothing lowers) is the one fixed
 * point the reference's breadth-first search computes. Every stage of every variant but the peer
 * equals canny_ref bit for bit in every type: tolerance 0, tests/gpu/test_filters.c. Intermediates live in the
 * variant's state, made before any run. Rows need only 4-byte alignment.
 * This file holds the stages before hysteresis, the runs and the descriptor; the state is in
 * canny_state.cu, hysteresis in canny_hysteresis.cu, the peer in canny_npp.cu, what they share in
 * canny_internal.h.
 * ------------------------------------------------------------------------------------------------ */
#include "canny_internal.h"
#include "canny_npp.h"
#include "cuda_check.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- what the variants share ---------------------------------------------------------------- */
static canny_taps taps_of(const canny_config *c)
{
    canny_taps t;
    for (int k = 0; k < 2 * FV_CANNY_MAX_RADIUS + 1; k++)
        t.w[k] = k < 2 * c->radius + 1 ? c->w[k] : 0;
    return t;
}

/* kept min = all ones, max = 0, flags 0 */
static fv_status misc_reset(const canny_args *a, cudaStream_t stream)
{
    FV_CUDA_CHECK(cudaMemsetAsync(a->misc, 0, MISC_WORDS * sizeof(unsigned), stream));
    FV_CUDA_CHECK(cudaMemsetAsync(a->misc + MISC_MIN, 0xff, sizeof(unsigned), stream));
    return FV_OK;
}

/* the thresholds compared with: given, or from the kept minimum and maximum */
__device__ __forceinline__ void thresholds_of(const canny_args &a, int *lowc, int *highc)
{
    if (!a.auto_thr) {
        *lowc = a.lowc;
        *highc = a.highc;
        return;
    }
    const unsigned lo = a.misc[MISC_MIN], hi = a.misc[MISC_MAX];
    int mn = 0, mx = 0;
    if (lo <= hi) { /* something was kept */
        mn = a.l2 ? canny_isqrt((int)lo) : (int)lo;
        mx = a.l2 ? canny_isqrt((int)hi) : (int)hi;
    }
    int low, high;
    canny_auto_thresholds(mn, mx, &low, &high);
    *lowc = canny_threshold_value(low, a.l2);
    *highc = canny_threshold_value(high, a.l2);
}

/* the kept minimum and maximum of a block, then one atomic each */
__device__ __forceinline__ void block_minmax(const canny_args &a, unsigned mn, unsigned mx)
{
    __shared__ unsigned smin, smax;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid == 0) {
        smin = 0xffffffffu;
        smax = 0;
    }
    __syncthreads();
    if (mn <= mx) {
        atomicMin(&smin, mn);
        atomicMax(&smax, mx);
    }
    __syncthreads();
    if (tid == 0 && smin <= smax) {
        atomicMin(&a.misc[MISC_MIN], smin);
        atomicMax(&a.misc[MISC_MAX], smax);
    }
}

/* ---- per-pixel kernels (naive; smem reuses the first and the last two, fast the classification) */
__global__ void canny_gray_kernel(fv_image src, canny_args a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    a.gray[(size_t)y * a.w + x] = (uint8_t)canny_gray(load_pixel(src, x, y));
}

static __global__ void canny_blur_naive_kernel(canny_args a, canny_taps t)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    const int r = a.radius;
    int sum = 0;
    for (int i = -r; i <= r; i++) {
        const uint8_t *row = a.gray + (size_t)canny_clamp(y + i, a.h - 1) * a.w;
        int hs = 0;
        for (int j = -r; j <= r; j++) hs += t.w[r + j] * row[canny_clamp(x + j, a.w - 1)];
        sum += t.w[r + i] * hs;
    }
    a.blur[(size_t)y * a.w + x] = (uint8_t)canny_blur_round(sum);
}

static __global__ void canny_sobel_naive_kernel(canny_args a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    int v[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            v[i][j] = a.blur[(size_t)canny_clamp(y + i - 1, a.h - 1) * a.w +
                             canny_clamp(x + j - 1, a.w - 1)];
    const int dx = v[0][2] + 2 * v[1][2] + v[2][2] - v[0][0] - 2 * v[1][0] - v[2][0];
    const int dy = v[2][0] + 2 * v[2][1] + v[2][2] - v[0][0] - 2 * v[0][1] - v[0][2];
    a.mag[(size_t)y * a.w + x] = canny_magnitude(dx, dy, a.l2);
    a.sk[(size_t)y * a.w + x] = (uint8_t)canny_sector(dx, dy);
}

static __global__ void canny_nms_naive_kernel(canny_args a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned mn = 0xffffffffu, mx = 0;
    if (x < a.w && y < a.h) {
        const size_t i = (size_t)y * a.w + x;
        const int s = a.sk[i] & 3, m = a.mag[i];
        int ax, ay, bx, by;
        canny_neighbours(s, &ax, &ay, &bx, &by);
        const int xa = x + ax, ya = y + ay, xb = x + bx, yb = y + by;
        const int ma =
            xa >= 0 && xa < a.w && ya >= 0 && ya < a.h ? a.mag[(size_t)ya * a.w + xa] : 0;
        const int mb =
            xb >= 0 && xb < a.w && yb >= 0 && yb < a.h ? a.mag[(size_t)yb * a.w + xb] : 0;
        const int k = canny_nms_keeps(s, m, ma, mb);
        a.sk[i] = (uint8_t)(s | k << 2);
        if (k) mn = mx = (unsigned)m;
    }
    if (a.auto_thr) block_minmax(a, mn, mx);
}

static __global__ void canny_classify_kernel(canny_args a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    int lowc, highc;
    thresholds_of(a, &lowc, &highc);
    const size_t i = (size_t)y * a.w + x;
    a.label[i] = (uint16_t)canny_classify(a.sk[i] >> 2, a.mag[i], lowc, highc, a.cap);
}

static __global__ void canny_output_kernel(fv_image dst, canny_args a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    const size_t i = (size_t)y * a.w + x;
    uint32_t out;
    switch (a.stage) {
    case CANNY_GRAY: out = canny_display_gray(a.gray[i]); break;
    case CANNY_BLUR: out = canny_display_gray(a.blur[i]); break;
    case CANNY_MAGNITUDE: out = canny_display_gray(canny_magnitude_shown(a.mag[i], a.l2)); break;
    case CANNY_DIRECTION: out = canny_display_direction(a.sk[i] & 3, a.mag[i], a.l2); break;
    case CANNY_NMS:
        out = canny_display_gray(a.sk[i] >> 2 ? canny_magnitude_shown(a.mag[i], a.l2) : 0);
        break;
    case CANNY_THRESHOLD_MAP: out = canny_display_threshold(a.label[i]); break;
    default: out = canny_display_edge(a.label[i], a.cap); break;
    }
    store_pixel(dst, x, y, out);
}

/* ---- naive ---------------------------------------------------------------------------------- */
static fv_status naive_hysteresis(const canny_args *a, canny_state *s, cudaStream_t stream)
{
    return canny_hysteresis_host_loop(a, s, canny_relax_naive_launch, "sweeps of the whole image",
                                      stream);
}

fv_status canny_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    canny_config c;
    canny_args a{};
    canny_prepare(src, state, &c, &a);
    if (canny_is_generic(&c))
        return canny_generic_run(src, dst, &c, &a, (canny_state *)state, naive_hysteresis, stream);
    const dim3 grid = pixel_grid(a.w, a.h), block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
    FV_TRY(misc_reset(&a, stream));
    canny_gray_kernel<<<grid, block, 0, stream>>>(*src, a);
    FV_CUDA_CHECK(cudaGetLastError());
    if (a.stage >= CANNY_BLUR && a.radius) {
        canny_blur_naive_kernel<<<grid, block, 0, stream>>>(a, taps_of(&c));
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_MAGNITUDE) {
        canny_sobel_naive_kernel<<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_NMS) {
        canny_nms_naive_kernel<<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_THRESHOLD_MAP) {
        canny_classify_kernel<<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_EDGES) FV_TRY(naive_hysteresis(&a, (canny_state *)state, stream));
    canny_output_kernel<<<grid, block, 0, stream>>>(*dst, a);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int canny_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max)
{
    (void)v, (void)p;
    const canny_config c = *(const canny_config *)config;
    if (canny_is_generic(&c)) {
        const int n = canny_generic_kernels(c.type, out, max);
        if (n < max)
            out[n] = {"canny_relax_naive_kernel", (const void *)canny_relax_naive_kernel,
                      PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0};
        return n < max ? n + 1 : n;
    }
    const int n = max < 4 ? max : 4;
    const fv_kernel_info all[4] = {
        {"canny_blur_naive_kernel", (const void *)canny_blur_naive_kernel,
         PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0},
        {"canny_sobel_naive_kernel", (const void *)canny_sobel_naive_kernel,
         PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0},
        {"canny_nms_naive_kernel", (const void *)canny_nms_naive_kernel,
         PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0},
        {"canny_relax_naive_kernel", (const void *)canny_relax_naive_kernel,
         PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0}};
    for (int k = 0; k < n; k++) out[k] = all[k];
    return n;
}

/* ---- tiles in shared memory (smem) ----------------------------------------------------------- */
/* What a tile of channel type T sums in: uint8 as it always did (ints; canny.h's magnitude and
 * sector); uint16 with the blur's column sums, l2 magnitudes and the sector test in 64 bits (they
 * pass 2^31), as the reference. */
template <typename T> struct tile_t;
template <> struct tile_t<uint8_t> {
    typedef int acc;
    typedef int mag;
    typedef unsigned key; /* kept extremes: misc[MISC_MIN], misc[MISC_MAX] */
    static __device__ __forceinline__ int magnitude(int dx, int dy, int l2)
    {
        return canny_magnitude(dx, dy, l2);
    }
    static __device__ __forceinline__ int sector(int dx, int dy) { return canny_sector(dx, dy); }
};
template <> struct tile_t<uint16_t> {
    typedef long long acc;
    typedef long long mag;
    typedef unsigned long long key; /* kept extremes: misc64 */
    static __device__ __forceinline__ long long magnitude(int dx, int dy, int l2)
    {
        const long long x = dx, y = dy;
        return l2 ? x * x + y * y : (x < 0 ? -x : x) + (y < 0 ? -y : y);
    }
    static __device__ __forceinline__ int sector(int dx, int dy) /* canny_sector in 64 bits */
    {
        const long long ax = dx < 0 ? -(long long)dx : dx;
        const long long ay = (dy < 0 ? -(long long)dy : dy) << CANNY_SHIFT, tg22x = ax * CANNY_TG22;
        if (ay < tg22x) return 0;
        if (ay > tg22x + (ax << (CANNY_SHIFT + 1))) return 1;
        return (dx ^ dy) < 0 ? 3 : 2;
    }
};

/* The blurred values a tile's Sobel and suppression need: bl[k][j] = blur at the image position
 * (x0 - APRON + j, y0 - APRON + k) clamped into the image, so replicated borders come for free. */
template <typename T> struct tile_smem_t {
    T gray[GRAY_H][GRAY_W];   /* gray at clamp(x0 - APRON - r + j), clamp(y0 - APRON - r + k) */
    int rows[GRAY_H][BLUR_W]; /* horizontal sums (at most 256 x 65535) */
    T bl[BLUR_H][BLUR_W];
    typename tile_t<T>::mag mag[BLUR_H - 2][BLUR_W - 2];
};
typedef tile_smem_t<uint8_t> tile_smem;

/* gray of the region around the tile, from the source (fast: uint8) or the gray image (smem) */
template <typename T, bool FROM_SRC>
__device__ void tile_load_gray(tile_smem_t<T> &t, const fv_image &src, const canny_args &a, int x0,
                               int y0)
{
    static_assert(!FROM_SRC || sizeof(T) == 1, "fast's wide kernel reads uint8 sources");
    const int r = a.radius, gw = TILE_W + 2 * (APRON + r), gh = TILE_H + 2 * (APRON + r);
    for (int idx = threadIdx.x; idx < gw * gh; idx += TILE_THREADS) {
        const int k = idx / gw, j = idx - k * gw;
        const int x = canny_clamp(x0 - APRON - r + j, a.w - 1),
                  y = canny_clamp(y0 - APRON - r + k, a.h - 1);
        t.gray[k][j] = (T)(FROM_SRC ? canny_gray(load_pixel(src, x, y))
                                    : reinterpret_cast<const T *>(a.gray)[(size_t)y * a.w + x]);
    }
}

/* bl from t.gray: at clamped positions, the window offsets index the clamped gray region */
template <typename T>
__device__ void tile_blur(tile_smem_t<T> &t, const canny_args &a, const canny_taps &param_taps,
                          int x0, int y0)
{
    __shared__ canny_taps taps; /* indexed by the loop: from shared memory, not a local copy */
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < 2 * FV_CANNY_MAX_RADIUS + 1; k++) taps.w[k] = param_taps.w[k];
    }
    __syncthreads();
    const int r = a.radius, gh = TILE_H + 2 * (APRON + r);
    const int gx0 = x0 - APRON - r,
              gy0 = y0 - APRON - r; /* image position of t.gray[0][0], unclamped */
    for (int idx = threadIdx.x; idx < gh * BLUR_W; idx += TILE_THREADS) {
        const int k = idx / BLUR_W, j = idx - k * BLUR_W;
        const int cx =
            canny_clamp(x0 - APRON + j, a.w - 1) - gx0; /* the centre's column in t.gray */
        int sum = 0;
        for (int q = -r; q <= r; q++) sum += taps.w[r + q] * t.gray[k][cx + q];
        t.rows[k][j] = sum;
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < BLUR_H * BLUR_W; idx += TILE_THREADS) {
        const int k = idx / BLUR_W, j = idx - k * BLUR_W;
        const int cy = canny_clamp(y0 - APRON + k, a.h - 1) - gy0;
        typename tile_t<T>::acc sum = 0;
        for (int q = -r; q <= r; q++)
            sum += (typename tile_t<T>::acc)taps.w[r + q] * t.rows[cy + q][j];
        t.bl[k][j] = (T)((sum + 32768) >> 16); /* canny_blur_round, in the type's sum */
    }
}

/* bl straight from the gray region (no blur: r = 0 there) or a blurred image */
template <typename T>
__device__ void tile_load_blur(tile_smem_t<T> &t, const uint8_t *img, const canny_args &a, int x0,
                               int y0)
{
    for (int idx = threadIdx.x; idx < BLUR_H * BLUR_W; idx += TILE_THREADS) {
        const int k = idx / BLUR_W, j = idx - k * BLUR_W;
        const int x = canny_clamp(x0 - APRON + j, a.w - 1),
                  y = canny_clamp(y0 - APRON + k, a.h - 1);
        t.bl[k][j] = reinterpret_cast<const T *>(img)[(size_t)y * a.w + x];
    }
}

/* the kept minimum and maximum of a block as 64-bit keys (uint16's l2 magnitudes pass 2^32) */
__device__ __forceinline__ void block_minmax64(const canny_args &a, unsigned long long mn,
                                               unsigned long long mx)
{
    __shared__ unsigned long long smin, smax;
    if (threadIdx.x == 0) {
        smin = ~0ull;
        smax = 0;
    }
    __syncthreads();
    if (mn <= mx) {
        atomicMin(&smin, mn);
        atomicMax(&smax, mx);
    }
    __syncthreads();
    if (threadIdx.x == 0 && smin <= smax) {
        atomicMin(&a.misc64[0], smin);
        atomicMax(&a.misc64[1], smax);
    }
}

/* Sobel on the tile plus one (0 outside the image), then suppression of the tile's pixels: writes
 * mag and sk, returns the labels of manual thresholds through `label` when asked (uint8), and the
 * kept minimum and maximum. */
template <typename T>
__device__ void tile_sobel_nms(tile_smem_t<T> &t, const canny_args &a, int x0, int y0,
                               bool write_label)
{
    typedef typename tile_t<T>::mag mag;
    __shared__ uint8_t sector[TILE_H][TILE_W];
    for (int idx = threadIdx.x; idx < (BLUR_H - 2) * (BLUR_W - 2); idx += TILE_THREADS) {
        const int k = idx / (BLUR_W - 2), j = idx - k * (BLUR_W - 2);
        const int x = x0 - 1 + j, y = y0 - 1 + k;
        mag m = 0;
        if (x >= 0 && x < a.w && y >= 0 && y < a.h) {
            const T(*v)[BLUR_W] = (const T(*)[BLUR_W]) & t.bl[k][j];
            const int dx = v[0][2] + 2 * v[1][2] + v[2][2] - v[0][0] - 2 * v[1][0] - v[2][0];
            const int dy = v[2][0] + 2 * v[2][1] + v[2][2] - v[0][0] - 2 * v[0][1] - v[0][2];
            m = tile_t<T>::magnitude(dx, dy, a.l2);
            if (k >= 1 && k <= TILE_H && j >= 1 && j <= TILE_W)
                sector[k - 1][j - 1] = (uint8_t)tile_t<T>::sector(dx, dy);
        }
        t.mag[k][j] = m;
    }
    __syncthreads();
    typedef typename tile_t<T>::key key;
    key mn = (key)~0ull, mx = 0;
    for (int idx = threadIdx.x; idx < TILE_H * TILE_W; idx += TILE_THREADS) {
        const int k = idx / TILE_W, j = idx - k * TILE_W, x = x0 + j, y = y0 + k;
        if (x >= a.w || y >= a.h) continue;
        const int s = sector[k][j];
        const mag m = t.mag[k + 1][j + 1];
        int ax, ay, bx, by;
        canny_neighbours(s, &ax, &ay, &bx, &by);
        const mag ma = t.mag[k + 1 + ay][j + 1 + ax], mb = t.mag[k + 1 + by][j + 1 + bx];
        const int keep = m > ma && (s < 2 ? m >= mb : m > mb); /* canny_nms_keeps */
        const size_t i = (size_t)y * a.w + x;
        reinterpret_cast<mag *>(a.mag)[i] = m;
        a.sk[i] = (uint8_t)(s | keep << 2);
        if (sizeof(T) == 1 && write_label)
            a.label[i] = (uint16_t)canny_classify(keep, (int)m, a.lowc, a.highc, a.cap);
        if (keep) {
            mn = min(mn, (key)m);
            mx = max(mx, (key)m);
        }
    }
    if (!a.auto_thr) return;
    if constexpr (sizeof(T) == 1)
        block_minmax(a, mn, mx);
    else
        block_minmax64(a, mn, mx);
}

/* smem: the blur of a tile from the gray image */
template <typename T>
static __global__ void __launch_bounds__(TILE_THREADS)
    canny_blur_smem_kernel(canny_args a, canny_taps taps)
{
    __shared__ tile_smem_t<T> t;
    const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
    const fv_image none = {};
    tile_load_gray<T, false>(t, none, a, x0, y0);
    __syncthreads();
    /* tile_blur makes the tile plus its apron; only the tile is kept */
    tile_blur(t, a, taps, x0, y0);
    __syncthreads(); /* other threads' blurred rows are read below */
    for (int idx = threadIdx.x; idx < TILE_H * TILE_W; idx += TILE_THREADS) {
        const int k = idx / TILE_W, j = idx - k * TILE_W, x = x0 + j, y = y0 + k;
        if (x < a.w && y < a.h)
            reinterpret_cast<T *>(a.blur)[(size_t)y * a.w + x] = t.bl[k + APRON][j + APRON];
    }
}

/* smem: Sobel and suppression of a tile from the blurred image */
template <typename T>
static __global__ void __launch_bounds__(TILE_THREADS) canny_sobel_nms_smem_kernel(canny_args a)
{
    __shared__ tile_smem_t<T> t;
    const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
    tile_load_blur(t, a.blur, a, x0, y0);
    __syncthreads();
    tile_sobel_nms(t, a, x0, y0, false);
}

/* ---- fast: gray, blur, Sobel and suppression of a 64x32 tile in one pass --------------------- */
/* Shared memory of one fused tile for blur radius at most RS. Columns are handled in groups of
 * four (a 32-bit word of bytes, two words of 16-bit sums, one int4 of magnitudes). Gray and the
 * vertical sums are dead once the blurred rows are made, so the magnitudes take their place. */
template <int RS> struct fused_smem {
    static constexpr int HALO = APRON + RS;           /* gray rows needed around the tile */
    static constexpr int GX = (HALO + 3) & ~3;        /* gray columns: the halo in whole words */
    static constexpr int GQ = (FUSED_W + 2 * GX) / 4; /* words of a gray row */
    static constexpr int GH = FUSED_H + 2 * HALO;
    static constexpr int BH = FUSED_H + 2 * APRON; /* blurred rows: the tile and its apron */
    static constexpr int BQ =
        (FUSED_W + 2 * APRON) / 4 + 1;     /* +1: a zero word the last Sobel group reads */
    static constexpr int MH = FUSED_H + 2; /* magnitudes: the tile plus one */
    static constexpr int MQ = (FUSED_W + 2 + 3) / 4;
    static_assert(GQ % 2 == 0, "vs must start on 8 bytes");
    union __align__(16)
    {
        struct {
            uint32_t gray[GH][GQ];   /* gray at clamp(x0 - GX + j), clamp(y0 - HALO + k) */
            uint16_t vs[BH][4 * GQ]; /* vertical sums for blurred row k (centre row clamped) */
        } g;
        int mag[MH][4 * MQ]; /* magnitude << 2 | sector at (x0 - 1 + j, y0 - 1 + k); 0 outside */
    }
    u;
    uint32_t bl[BH][BQ]; /* blur at clamp(x0 - APRON + j), clamp(y0 - APRON + k) */
};

/* canny_gray by two byte dot products: each weight split as 256 * hi + lo, hi and lo < 256 */
__device__ __forceinline__ uint32_t gray_dp4a(uint32_t px)
{
    const uint32_t hi = __dp4a(px, 0x000e4b26u, 0u);       /* 38, 75, 14: weights >> 8 */
    const uint32_t lo = __dp4a(px, 0x00972346u, 1u << 14); /* 70, 35, 151: weights & 255 */
    return (hi * 256u + lo) >> 15;
}

__device__ __forceinline__ uint32_t pack_bytes(uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3)
{
    return b0 | b1 << 8 | b2 << 16 | b3 << 24;
}

/* Four bytes of a tile row to an image row from x on (word-sized when whole and aligned). */
__device__ __forceinline__ void store_bytes4(uint8_t *row, int x, int w, uint32_t v)
{
    if (w % 4 == 0) { /* x is a multiple of 4: x + 3 < w, and the word is aligned */
        *reinterpret_cast<uint32_t *>(row + x) = v;
        return;
    }
    for (int o = 0; o < 4 && x + o < w; o++) row[x + o] = (uint8_t)(v >> 8 * o);
}

/* R: the blur radius, compiled in (taps from the constant bank, loops unrolled), 0..4 (sigma up to
 * 1.33); wider blurs take canny_fused_wide_kernel. Writes what later kernels read: gray or blur when
 * shown, magnitudes and sectors when shown or for auto thresholds, labels for manual thresholds. */
template <int R>
static __global__ void __launch_bounds__(TILE_THREADS)
    canny_fused_kernel(fv_image src, canny_args a, canny_taps taps)
{
    static_assert(R >= 0 && R <= FUSED_UNROLLED_RADIUS, "radii compiled one by one");
    constexpr int RS = R;
    typedef fused_smem<RS> S;
    __shared__ S t;
    const int r = R, tid = threadIdx.x;
    const int x0 = blockIdx.x * FUSED_W, y0 = blockIdx.y * FUSED_H;
    auto tap = [&](int k) -> uint32_t { return (uint32_t)taps.w[k]; };

    /* gray of the region, four pixels a step: one 16-byte load where the row allows it */
    const bool src_wide = ((uintptr_t)src.data | src.pitch) % 16 == 0;
    for (int i = tid; i < S::GH * S::GQ; i += TILE_THREADS) {
        const int k = i / S::GQ, q = i - k * S::GQ;
        const int y = canny_clamp(y0 - S::HALO + k, a.h - 1),
                  x = x0 - S::GX + 4 * q; /* x: a multiple of 4 */
        const uint8_t *row = src.data + (size_t)y * src.pitch;
        uint32_t px[4];
        if (src_wide && x >= 0 && x + 3 < a.w) {
            const uint4 v = __ldg(reinterpret_cast<const uint4 *>(row + 4 * (size_t)x));
            px[0] = v.x, px[1] = v.y, px[2] = v.z, px[3] = v.w;
        } else {
#pragma unroll
            for (int o = 0; o < 4; o++)
                px[o] =
                    __ldg(reinterpret_cast<const uint32_t *>(row) + canny_clamp(x + o, a.w - 1));
        }
        t.u.g.gray[k][q] =
            pack_bytes(gray_dp4a(px[0]), gray_dp4a(px[1]), gray_dp4a(px[2]), gray_dp4a(px[3]));
    }
    __syncthreads();
    if (a.stage == CANNY_GRAY) {
        for (int i = tid; i < FUSED_H * (FUSED_W / 4); i += TILE_THREADS) {
            const int k = i / (FUSED_W / 4), b = i - k * (FUSED_W / 4), x = x0 + 4 * b, y = y0 + k;
            if (x < a.w && y < a.h)
                store_bytes4(a.gray + (size_t)y * a.w, x, a.w,
                             t.u.g.gray[k + S::HALO][b + S::GX / 4]);
        }
        return;
    }

    if (r == 0) {
        /* no blur: the blurred rows are the gray ones, shifted by GX - APRON bytes */
        for (int i = tid; i < S::BH * S::BQ; i += TILE_THREADS) {
            const int k = i / S::BQ, b = i - k * S::BQ;
            const uint32_t *g = t.u.g.gray[k + S::HALO - APRON] + b + (S::GX - APRON) / 4;
            t.bl[k][b] = b < S::BQ - 1 ? __byte_perm(g[0], g[1], 0x5432) : 0u;
        }
    } else {
        /* columns: for four columns at once, even and odd bytes in 16-bit lanes; a lane's sum is
         * at most 255 * 256 (the taps sum to 256), so lanes never carry into each other */
        for (int i = tid; i < S::BH * S::GQ; i += TILE_THREADS) {
            const int k = i / S::GQ, q = i - k * S::GQ;
            const int c =
                canny_clamp(y0 - APRON + k, a.h - 1) - (y0 - S::HALO); /* centre's gray row */
            uint32_t even = 0, odd = 0;
#pragma unroll
            for (int p = -r; p <= r; p++) {
                const uint32_t word = t.u.g.gray[c + p][q], wt = tap(r + p);
                even += wt * (word & 0x00ff00ffu);
                odd += wt * ((word >> 8) & 0x00ff00ffu);
            }
            *reinterpret_cast<uint2 *>(&t.u.g.vs[k][4 * q]) =
                make_uint2(__byte_perm(even, odd, 0x5410), __byte_perm(even, odd, 0x7632));
        }
        __syncthreads();
        /* rows: four blurred pixels a step, rounded to bytes */
        for (int i = tid; i < S::BH * S::BQ; i += TILE_THREADS) {
            const int k = i / S::BQ, b = i - k * S::BQ;
            const int xb = x0 - APRON + 4 * b; /* image column of the first of the four */
            const uint16_t *vs = t.u.g.vs[k];
            uint32_t acc[4] = {1u << 15, 1u << 15, 1u << 15, 1u << 15};
            if (b == S::BQ - 1) {
                acc[0] = acc[1] = acc[2] = acc[3] = 0;
            } else if (xb >= 0 && xb + 3 < a.w) { /* centres inside: one window for the four */
                const int c0 = 4 * b - APRON + S::GX - r;
                uint32_t v[4 + 2 * RS];
#pragma unroll
                for (int e = 0; e < 4 + 2 * R; e++) v[e] = vs[c0 + e];
#pragma unroll
                for (int o = 0; o < 4; o++)
#pragma unroll
                    for (int q = 0; q <= 2 * R; q++) acc[o] += tap(q) * v[o + q];
            } else { /* at a side of the image: each centre clamped */
#pragma unroll
                for (int o = 0; o < 4; o++) {
                    const int c0 = canny_clamp(xb + o, a.w - 1) - (x0 - S::GX) - r;
#pragma unroll
                    for (int q = 0; q <= 2 * r; q++) acc[o] += tap(q) * vs[c0 + q];
                }
            }
            t.bl[k][b] = pack_bytes(acc[0] >> 16, acc[1] >> 16, acc[2] >> 16, acc[3] >> 16);
        }
    }
    __syncthreads();
    if (a.stage == CANNY_BLUR) {
        for (int i = tid; i < FUSED_H * (FUSED_W / 4); i += TILE_THREADS) {
            const int k = i / (FUSED_W / 4), b = i - k * (FUSED_W / 4), x = x0 + 4 * b, y = y0 + k;
            if (x < a.w && y < a.h)
                store_bytes4(a.blur + (size_t)y * a.w, x, a.w,
                             __byte_perm(t.bl[k + APRON][b], t.bl[k + APRON][b + 1], 0x5432));
        }
        return;
    }

    /* Sobel on the tile plus one, four pixels a step: column sums of the three rows first */
    for (int i = tid; i < S::MH * S::MQ; i += TILE_THREADS) {
        const int k = i / S::MQ, b = i - k * S::MQ, y = y0 - 1 + k, xf = x0 - 1 + 4 * b;
        int cs[6], cd[6]; /* per column: r0 + 2 r1 + r2 (for dx), r2 - r0 (for dy) */
        {
            int v[3][6];
#pragma unroll
            for (int e = 0; e < 3; e++) {
                const uint32_t lo = t.bl[k + e][b], hi = t.bl[k + e][b + 1];
#pragma unroll
                for (int o = 0; o < 6; o++)
                    v[e][o] = (int)(((o < 4 ? lo : hi) >> 8 * (o & 3)) & 0xffu);
            }
#pragma unroll
            for (int o = 0; o < 6; o++) {
                cs[o] = v[0][o] + 2 * v[1][o] + v[2][o];
                cd[o] = v[2][o] - v[0][o];
            }
        }
        const bool row_in = y >= 0 && y < a.h;
        int m[4];
#pragma unroll
        for (int o = 0; o < 4; o++) {
            const int dx = cs[o + 2] - cs[o], dy = cd[o] + 2 * cd[o + 1] + cd[o + 2];
            const int x = xf + o;
            m[o] = row_in && x >= 0 && x < a.w
                       ? canny_magnitude(dx, dy, a.l2) << 2 | canny_sector(dx, dy)
                       : 0;
        }
        *reinterpret_cast<int4 *>(&t.u.mag[k][4 * b]) = make_int4(m[0], m[1], m[2], m[3]);
    }
    __syncthreads();

    /* suppression of the tile's pixels, four a step, and what later kernels read */
    const bool need_mag = a.stage <= CANNY_NMS || a.auto_thr,
               need_label = a.stage >= CANNY_THRESHOLD_MAP && !a.auto_thr;
    unsigned mn = 0xffffffffu, mx = 0;
    for (int i = tid; i < FUSED_H * (FUSED_W / 4); i += TILE_THREADS) {
        const int k = i / (FUSED_W / 4), b = i - k * (FUSED_W / 4), x = x0 + 4 * b, y = y0 + k;
        if (x >= a.w || y >= a.h) continue;
        int mg[3][6], own[4]; /* magnitudes of rows y - 1 .. y + 1, columns x - 1 .. x + 4 */
#pragma unroll
        for (int e = 0; e < 3; e++) {
            const int4 lo = *reinterpret_cast<const int4 *>(&t.u.mag[k + e][4 * b]);
            const int2 hi = *reinterpret_cast<const int2 *>(&t.u.mag[k + e][4 * b + 4]);
            const int v[6] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y};
#pragma unroll
            for (int o = 0; o < 6; o++) mg[e][o] = v[o] >> 2;
            if (e == 1) own[0] = v[1], own[1] = v[2], own[2] = v[3], own[3] = v[4];
        }
        int mag4[4];
        uint32_t sk4[4], lab4[4];
#pragma unroll
        for (int o = 0; o < 4; o++) {
            const int s = own[o] & 3, mm = mg[1][o + 1], c = o + 1; /* see canny_neighbours */
            const int ma = s == 0   ? mg[1][c - 1]
                           : s == 1 ? mg[0][c]
                           : s == 2 ? mg[0][c - 1]
                                    : mg[0][c + 1];
            const int mb = s == 0   ? mg[1][c + 1]
                           : s == 1 ? mg[2][c]
                           : s == 2 ? mg[2][c + 1]
                                    : mg[2][c - 1];
            const int keep = canny_nms_keeps(s, mm, ma, mb);
            mag4[o] = mm;
            sk4[o] = (uint32_t)(s | keep << 2);
            lab4[o] = canny_classify(keep, mm, a.lowc, a.highc, a.cap);
            if (keep && x + o < a.w) {
                mn = min(mn, (unsigned)mm);
                mx = max(mx, (unsigned)mm);
            }
        }
        const size_t i0 = (size_t)y * a.w + x;
        if (a.w % 4 == 0) { /* x + 3 < w, and i0 is a multiple of 4: whole vectors */
            if (need_mag) {
                *reinterpret_cast<int4 *>(a.mag + i0) =
                    make_int4(mag4[0], mag4[1], mag4[2], mag4[3]);
                *reinterpret_cast<uint32_t *>(a.sk + i0) =
                    pack_bytes(sk4[0], sk4[1], sk4[2], sk4[3]);
            }
            if (need_label)
                *reinterpret_cast<uint2 *>(a.label + i0) =
                    make_uint2(lab4[0] | lab4[1] << 16, lab4[2] | lab4[3] << 16);
        } else {
#pragma unroll
            for (int o = 0; o < 4; o++) {
                if (x + o >= a.w) break;
                if (need_mag) {
                    a.mag[i0 + o] = mag4[o];
                    a.sk[i0 + o] = (uint8_t)sk4[o];
                }
                if (need_label) a.label[i0 + o] = (uint16_t)lab4[o];
            }
        }
    }
    if (a.auto_thr) block_minmax(a, mn, mx);
}

typedef void (*fused_kernel_fn)(fv_image, canny_args, canny_taps);

/* Wider blurs (radius 5..12, sigma above 1.33): the same fused pass on 32x16 tiles with the radius
 * read at run time (tile_smem, as smem's kernels use it), magnitudes and sectors always written. */
static __global__ void __launch_bounds__(TILE_THREADS)
    canny_fused_wide_kernel(fv_image src, canny_args a, canny_taps taps)
{
    __shared__ tile_smem t;
    const int x0 = blockIdx.x * TILE_W, y0 = blockIdx.y * TILE_H;
    tile_load_gray<uint8_t, true>(t, src, a, x0, y0);
    __syncthreads();
    tile_blur(t, a, taps, x0, y0);
    __syncthreads();
    if (a.stage <= CANNY_BLUR) {
        for (int idx = threadIdx.x; idx < TILE_H * TILE_W; idx += TILE_THREADS) {
            const int k = idx / TILE_W, j = idx - k * TILE_W, x = x0 + j, y = y0 + k;
            if (x >= a.w || y >= a.h) continue;
            a.gray[(size_t)y * a.w + x] = t.gray[k + APRON + a.radius][j + APRON + a.radius];
            a.blur[(size_t)y * a.w + x] = t.bl[k + APRON][j + APRON];
        }
        return;
    }
    tile_sobel_nms(t, a, x0, y0, !a.auto_thr);
}

/* radii 0..FUSED_UNROLLED_RADIUS compiled each; larger ones: canny_fused_wide_kernel */
static fused_kernel_fn fused_kernel_for(int radius)
{
    static_assert(FUSED_UNROLLED_RADIUS == 4, "list one kernel a radius");
    static const fused_kernel_fn unrolled[FUSED_UNROLLED_RADIUS + 1] = {
        canny_fused_kernel<0>, canny_fused_kernel<1>, canny_fused_kernel<2>, canny_fused_kernel<3>,
        canny_fused_kernel<4>};
    return radius >= 0 && radius <= FUSED_UNROLLED_RADIUS ? unrolled[radius]
                                                          : canny_fused_wide_kernel;
}

/* fast's output: a warp's 256 columns of a row, four pixels a lane twice (each access of the warp
 * one contiguous run), labels read and pixels written four at a time where the rows allow */
__device__ __forceinline__ uint32_t output_pixel(const canny_args &a, size_t i)
{
    switch (a.stage) {
    case CANNY_GRAY: return canny_display_gray(a.gray[i]);
    case CANNY_BLUR: return canny_display_gray(a.blur[i]);
    case CANNY_MAGNITUDE: return canny_display_gray(canny_magnitude_shown(a.mag[i], a.l2));
    case CANNY_DIRECTION: return canny_display_direction(a.sk[i] & 3, a.mag[i], a.l2);
    case CANNY_NMS:
        return canny_display_gray(a.sk[i] >> 2 ? canny_magnitude_shown(a.mag[i], a.l2) : 0);
    case CANNY_THRESHOLD_MAP: return canny_display_threshold(a.label[i]);
    default: return canny_display_edge(a.label[i], a.cap);
    }
}

static __global__ void __launch_bounds__(PIXEL_BLOCK_X *PIXEL_BLOCK_Y)
    canny_output_fast_kernel(fv_image dst, canny_args a)
{
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y >= a.h) return;
    const bool dst_wide = ((uintptr_t)dst.data | dst.pitch) % 16 == 0;
    uint32_t *row = reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch);
#pragma unroll
    for (int e = 0; e < OUTPUT_PX / 4; e++) {
        const int x =
            blockIdx.x * (PIXEL_BLOCK_X * OUTPUT_PX) + e * (4 * PIXEL_BLOCK_X) + 4 * threadIdx.x;
        if (x >= a.w) break;
        const size_t i = (size_t)y * a.w + x;
        uint32_t out[4];
        if (a.w % 4 == 0 && a.stage >= CANNY_THRESHOLD_MAP) { /* x + 3 < w; 8-byte aligned labels */
            const uint2 l = *reinterpret_cast<const uint2 *>(a.label + i);
            const unsigned lab[4] = {l.x & 0xffffu, l.x >> 16, l.y & 0xffffu, l.y >> 16};
#pragma unroll
            for (int o = 0; o < 4; o++)
                out[o] = a.stage == CANNY_THRESHOLD_MAP ? canny_display_threshold(lab[o])
                                                        : canny_display_edge(lab[o], a.cap);
        } else if (a.w % 4 == 0 && a.stage <= CANNY_BLUR) {
            const uint32_t g =
                *reinterpret_cast<const uint32_t *>((a.stage == CANNY_GRAY ? a.gray : a.blur) + i);
#pragma unroll
            for (int o = 0; o < 4; o++) out[o] = canny_display_gray((g >> 8 * o) & 0xffu);
        } else {
#pragma unroll
            for (int o = 0; o < 4; o++) out[o] = x + o < a.w ? output_pixel(a, i + o) : 0u;
        }
        if (dst_wide && x + 3 < a.w) {
            *reinterpret_cast<uint4 *>(row + x) = make_uint4(out[0], out[1], out[2], out[3]);
        } else {
#pragma unroll
            for (int o = 0; o < 4; o++)
                if (x + o < a.w) row[x + o] = out[o];
        }
    }
}

static dim3 output_fast_grid(int w, int h)
{
    return dim3((w + PIXEL_BLOCK_X * OUTPUT_PX - 1) / (PIXEL_BLOCK_X * OUTPUT_PX),
                (h + PIXEL_BLOCK_Y - 1) / PIXEL_BLOCK_Y);
}

/* ---- smem ----------------------------------------------------------------------------------- */
static fv_status smem_hysteresis(const canny_args *a, canny_state *s, cudaStream_t stream)
{
    return canny_hysteresis_host_loop(a, s, canny_relax_tile_launch,
                                      "rounds of tiles (each converged in shared memory)", stream);
}

/* uint16: the same tiles in 16-bit values and 64-bit sums; gray, classification and output are
 * the generic per-pixel kernels of that type */
static fv_status canny_smem_run_u16(const fv_image *src, fv_image *dst, const canny_config *c,
                                    const canny_args &a, canny_state *s, cudaStream_t stream)
{
    const dim3 tiles = tile_grid(a.w, a.h);
    FV_TRY(canny_generic_reset(&a, stream));
    FV_TRY(canny_generic_launch(CANNY_GENERIC_GRAY, src, &a, FV_PIXEL_U16, stream));
    if (a.stage >= CANNY_BLUR && a.radius) {
        canny_blur_smem_kernel<uint16_t><<<tiles, TILE_THREADS, 0, stream>>>(a, taps_of(c));
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_MAGNITUDE) {
        canny_sobel_nms_smem_kernel<uint16_t><<<tiles, TILE_THREADS, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_THRESHOLD_MAP)
        FV_TRY(canny_generic_launch(CANNY_GENERIC_CLASSIFY, NULL, &a, FV_PIXEL_U16, stream));
    if (a.stage >= CANNY_EDGES) FV_TRY(smem_hysteresis(&a, s, stream));
    return canny_generic_launch(CANNY_GENERIC_OUTPUT, dst, &a, FV_PIXEL_U16, stream);
}

fv_status canny_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                         const void *config, void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    canny_config c;
    canny_args a{};
    canny_prepare(src, state, &c, &a);
    if (c.type == FV_PIXEL_U16)
        return canny_smem_run_u16(src, dst, &c, a, (canny_state *)state, stream);
    const dim3 grid = pixel_grid(a.w, a.h), block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y),
               tiles = tile_grid(a.w, a.h);
    FV_TRY(misc_reset(&a, stream));
    canny_gray_kernel<<<grid, block, 0, stream>>>(*src, a);
    FV_CUDA_CHECK(cudaGetLastError());
    if (a.stage >= CANNY_BLUR && a.radius) {
        canny_blur_smem_kernel<uint8_t><<<tiles, TILE_THREADS, 0, stream>>>(a, taps_of(&c));
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_MAGNITUDE) {
        canny_sobel_nms_smem_kernel<uint8_t><<<tiles, TILE_THREADS, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_THRESHOLD_MAP) {
        canny_classify_kernel<<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_EDGES) FV_TRY(smem_hysteresis(&a, (canny_state *)state, stream));
    canny_output_kernel<<<grid, block, 0, stream>>>(*dst, a);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int canny_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                       fv_kernel_info *out, int max)
{
    (void)p;
    const bool u16 = ((const canny_config *)config)->type == FV_PIXEL_U16;
    const int n = max < 3 ? max : 3;
    const fv_kernel_info all[3] = {
        u16 ? fv_kernel_info{"canny_blur_smem_kernel<uint16>",
                             (const void *)canny_blur_smem_kernel<uint16_t>, TILE_THREADS, 0}
            : fv_kernel_info{"canny_blur_smem_kernel",
                             (const void *)canny_blur_smem_kernel<uint8_t>, TILE_THREADS, 0},
        u16 ? fv_kernel_info{"canny_sobel_nms_smem_kernel<uint16>",
                             (const void *)canny_sobel_nms_smem_kernel<uint16_t>, TILE_THREADS, 0}
            : fv_kernel_info{"canny_sobel_nms_smem_kernel",
                             (const void *)canny_sobel_nms_smem_kernel<uint8_t>, TILE_THREADS, 0},
        {"canny_hysteresis_tile_kernel", (const void *)canny_hysteresis_tile_kernel, TILE_THREADS,
         0}};
    for (int k = 0; k < n; k++) out[k] = all[k];
    return n;
}

/* ---- fast ----------------------------------------------------------------------------------- */
/* Hysteresis in one cooperative kernel: full on bit masks, chain lengths (sweeps, one-pass) on
 * labels. */
static fv_status fast_hysteresis(const canny_args *a, canny_state *s, cudaStream_t stream)
{
    canny_args args = *a;
    if (a->inc == 0) {
        s->hysteresis_unit = "rounds of 62x30 bit-mask tiles in one cooperative kernel";
        s->rounds_on_device = 1;
        FV_CUDA_CHECK(cudaMemsetAsync(s->dirty, 0, 2 * (size_t)bits_tiles(a->w, a->h), stream));
        uint8_t *dirty = s->dirty;
        void *params[] = {&args, &dirty};
        FV_CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)canny_hysteresis_bits_kernel,
                                                  dim3(s->bits_blocks), dim3(TILE_THREADS), params,
                                                  0, stream));
        return FV_OK;
    }
    s->hysteresis_unit = "rounds of tiles in one cooperative kernel";
    s->rounds_on_device = 1;
    void *params[] = {&args};
    FV_CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)canny_hysteresis_coop_kernel,
                                              dim3(s->coop_blocks), dim3(TILE_THREADS), params, 0,
                                              stream));
    return FV_OK;
}

fv_status canny_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                         const void *config, void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    canny_config c;
    canny_args a{};
    canny_prepare(src, state, &c, &a);
    canny_state *s = (canny_state *)state;
    const bool bits =
        a.inc == 0; /* full hysteresis: bit masks; chain lengths (sweeps, one-pass): labels */
    if (a.stage >= CANNY_EDGES && (bits ? s->bits_blocks : s->coop_blocks) < 1)
        return fv_fail(FV_ERR_CUDA,
                       "canny/fast: this device cannot launch the cooperative hysteresis kernel");
    /* every type but uint8, every border but replicate: the generic stages, the same hysteresis */
    if (canny_is_generic(&c))
        return canny_generic_run(src, dst, &c, &a, s, fast_hysteresis, stream);
    a.blur = a.radius ? s->blur : s->gray; /* the fused kernel writes the one shown */
    const dim3 grid = pixel_grid(a.w, a.h), block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
    FV_TRY(misc_reset(&a, stream));
    const bool unrolled = a.radius <= FUSED_UNROLLED_RADIUS;
    const dim3 tiles = unrolled ? dim3((a.w + FUSED_W - 1) / FUSED_W, (a.h + FUSED_H - 1) / FUSED_H)
                                : tile_grid(a.w, a.h);
    fused_kernel_for(a.radius)<<<tiles, TILE_THREADS, 0, stream>>>(*src, a, taps_of(&c));
    FV_CUDA_CHECK(cudaGetLastError());
    if (a.stage >= CANNY_THRESHOLD_MAP && a.auto_thr) {
        canny_classify_kernel<<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_EDGES) FV_TRY(fast_hysteresis(&a, s, stream));
    canny_output_fast_kernel<<<output_fast_grid(a.w, a.h), block, 0, stream>>>(*dst, a);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

int canny_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                       fv_kernel_info *out, int max)
{
    (void)p;
    const canny_config c = *(const canny_config *)config;
    const bool bits = c.inc == 0;
    if (canny_is_generic(&c)) {
        const int n = canny_generic_kernels(c.type, out, max);
        if (n < max)
            out[n] =
                bits ? fv_kernel_info{"canny_hysteresis_bits_kernel",
                                      (const void *)canny_hysteresis_bits_kernel, TILE_THREADS, 0}
                     : fv_kernel_info{"canny_hysteresis_coop_kernel",
                                      (const void *)canny_hysteresis_coop_kernel, TILE_THREADS, 0};
        return n < max ? n + 1 : n;
    }
    const int n = max < 3 ? max : 3;
    const fv_kernel_info all[3] = {
        {"canny_fused_kernel", (const void *)fused_kernel_for(c.radius), TILE_THREADS, 0},
        bits ? fv_kernel_info{"canny_hysteresis_bits_kernel",
                              (const void *)canny_hysteresis_bits_kernel, TILE_THREADS, 0}
             : fv_kernel_info{"canny_hysteresis_coop_kernel",
                              (const void *)canny_hysteresis_coop_kernel, TILE_THREADS, 0},
        {"canny_output_fast_kernel", (const void *)canny_output_fast_kernel,
         PIXEL_BLOCK_X * PIXEL_BLOCK_Y, 0}};
    for (int k = 0; k < n; k++) out[k] = all[k];
    return n;
}
