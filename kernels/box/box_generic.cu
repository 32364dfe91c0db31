/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_generic.cu: what the box filter's `fast` variant runs: box_fast's kernels
 * (kernels/box/box_fast.cu) for uint8 with the replicate border, unchanged, and for every other
 * type and border kernels templated on the pixel type:
 *   fused    up to BOX_FUSED_MAX_RADIUS, one kernel: a block makes 32x32 outputs; its threads sum
 *            the columns of the block's strip (32 + 2r columns) over 8 output rows each, in
 *            registers (each input row loaded once, added to the rows whose window holds it),
 *            to shared memory, then each output sums 2r + 1 of them. Only the source is read and
 *            the output written, as a copy does; the adds grow with r.
 * and beyond it two passes, each a sliding window, so that the work per pixel is constant
 * whatever the radius:
 *   columns  one thread per column walks COLUMNS_SEG rows: the first window sum of 2r+1 rows,
 *            then one row in and one out per output row. Sums of R, G, B (and the centre's alpha
 *            beside them) go to the state's intermediate image, 16 bytes a pixel.
 *   rows     one thread per ROWS_SEG columns of a row does the same along the row over the
 *            column sums, and writes the rounded mean.
 * Integers: column sums in 32 bits (at most 257 * 65535; the sliding add and subtract are exact),
 * window sums in 64 (33 bits at radius 128 for uint16; the fused kernel's radii fit 32), divided
 * by box_quotient_wide (box.h). float32, fused: plain float sums (IEEE arithmetic makes a NaN in
 * the window NaN, +inf with -inf NaN), the mean by one division. Two passes: running sums in
 * double with the NaNs, +infs and -infs of the window counted apart (a
 * running sum cannot subtract an infinity back out), so the window is NaN when it holds a NaN or
 * both infinities, an infinity when it holds only that one, else its sum; column sums are stored
 * as float. Borders through fv_border_index: rows outside read the row it names (cval for the
 * constant), columns outside the column sum it names ((2r+1) cval for the constant).
 * Checked against box_ref by tests/gpu/test_filters.c (integers bit-exact, float32 within the
 * filter's float_abs, docs/design/box.md).
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "box.h"
#include "cuda_check.h"

#include <math.h>
#include <stdlib.h>

#define COLUMNS_THREADS 128 /* columns pass: one column per thread */
#define COLUMNS_SEG     128 /* output rows a thread walks: the first window costs 2r+1 rows */
#define ROWS_THREADS_X  32  /* rows pass: 32 segments of a row x 4 rows per block */
#define ROWS_THREADS_Y  4
#define ROWS_SEG        128 /* output columns a thread walks */

/* The fused kernel up to this radius, the two passes beyond: its adds grow as (2r + 1) per pixel
 * and pass, the passes' traffic is about 3x a copy's at any radius (docs/perf/box.md). */
#define BOX_FUSED_MAX_RADIUS 12
#define FUSED_COLS           32 /* a block: 32 x 4 threads, 32 x 32 outputs */
#define FUSED_THREAD_ROWS    4
#define FUSED_SEG            8 /* output rows a thread sums the columns of */
#define FUSED_ROWS           (FUSED_THREAD_ROWS * FUSED_SEG)

/* What a border reads outside the image, in the arithmetic of each type. */
struct box_edge {
    fv_border mode;
    uint32_t cval_int;
    float cval_float;
};

/* ---- the pixel types: how a pixel loads (`vec`: one 8- or 16-byte access where rows are aligned
 * so; rows are 4-byte aligned at least), and the running window of each ---------------------- */
template <typename T> struct box_pixel;
template <> struct box_pixel<uint8_t> {
    typedef uint32_t value;
    typedef uint4 column; /* R, G, B column sums and the centre's alpha */
    static __device__ __forceinline__ void load(const uint8_t *row, int x, bool, value v[4])
    {
        const uint32_t w = __ldg(reinterpret_cast<const uint32_t *>(row) + x);
        v[0] = w & 0xff, v[1] = (w >> 8) & 0xff, v[2] = (w >> 16) & 0xff, v[3] = w >> 24;
    }
    static __device__ __forceinline__ void store(uint8_t *row, int x, bool, const uint32_t m[3],
                                                 uint32_t alpha)
    {
        reinterpret_cast<uint32_t *>(row)[x] = m[0] | m[1] << 8 | m[2] << 16 | alpha << 24;
    }
};
template <> struct box_pixel<uint16_t> {
    typedef uint32_t value;
    typedef uint4 column;
    static __device__ __forceinline__ void load(const uint8_t *row, int x, bool vec, value v[4])
    {
        const uint32_t *q = reinterpret_cast<const uint32_t *>(row) + 2 * x;
        const uint2 w =
            vec ? __ldg(reinterpret_cast<const uint2 *>(q)) : make_uint2(__ldg(q), __ldg(q + 1));
        v[0] = w.x & 0xffff, v[1] = w.x >> 16, v[2] = w.y & 0xffff, v[3] = w.y >> 16;
    }
    static __device__ __forceinline__ void store(uint8_t *row, int x, bool vec, const uint32_t m[3],
                                                 uint32_t alpha)
    {
        const uint2 w = make_uint2(m[0] | m[1] << 16, m[2] | alpha << 16);
        uint32_t *q = reinterpret_cast<uint32_t *>(row) + 2 * x;
        if (vec) {
            *reinterpret_cast<uint2 *>(q) = w;
        } else {
            q[0] = w.x;
            q[1] = w.y;
        }
    }
};
template <> struct box_pixel<float> {
    typedef float value;
    typedef float4 column;
    static __device__ __forceinline__ void load(const uint8_t *row, int x, bool vec, value v[4])
    {
        const float *q = reinterpret_cast<const float *>(row) + 4 * x;
        if (vec) {
            const float4 f = __ldg(reinterpret_cast<const float4 *>(q));
            v[0] = f.x, v[1] = f.y, v[2] = f.z, v[3] = f.w;
        } else {
#pragma unroll
            for (int c = 0; c < 4; c++) v[c] = __ldg(q + c);
        }
    }
    static __device__ __forceinline__ void store(uint8_t *row, int x, bool vec, const float m[3],
                                                 float alpha)
    {
        float *q = reinterpret_cast<float *>(row) + 4 * x;
        if (vec) {
            *reinterpret_cast<float4 *>(q) = make_float4(m[0], m[1], m[2], alpha);
        } else {
            q[0] = m[0], q[1] = m[1], q[2] = m[2], q[3] = alpha;
        }
    }
};

/* A running sum of one channel over integers: S is 32 bits for columns, 64 for the 2-D window. */
template <typename S> struct box_window_int {
    S sum;
    __device__ __forceinline__ void clear() { sum = 0; }
    __device__ __forceinline__ void add(uint32_t v) { sum += v; }
    __device__ __forceinline__ void sub(uint32_t v) { sum -= v; }
};

/* A running sum of one float channel: the finite values' sum, and the others counted. */
struct box_window_float {
    double sum;
    int nans, pos_infs, neg_infs;
    __device__ __forceinline__ void clear() { sum = 0, nans = pos_infs = neg_infs = 0; }
    __device__ __forceinline__ void count(float v, int step)
    {
        if (isnan(v))
            nans += step;
        else if (v > 0)
            pos_infs += step;
        else
            neg_infs += step;
    }
    __device__ __forceinline__ void add(float v)
    {
        if (isfinite(v))
            sum += v;
        else
            count(v, 1);
    }
    __device__ __forceinline__ void sub(float v)
    {
        if (isfinite(v))
            sum -= v;
        else
            count(v, -1);
    }
    /* the window's value as IEEE arithmetic would have it (scaled by `scale`) */
    __device__ __forceinline__ float value(double scale) const
    {
        if (nans || (pos_infs && neg_infs)) return __int_as_float(0x7fc00000);
        if (pos_infs) return INFINITY;
        if (neg_infs) return -INFINITY;
        return (float)(sum * scale);
    }
};

/* The columns pass's and rows pass's windows of each type. */
template <typename T> struct box_windows {
    typedef box_window_int<uint32_t> column;
    typedef box_window_int<uint64_t> full;
};
template <> struct box_windows<float> {
    typedef box_window_float column;
    typedef box_window_float full;
};

template <typename V> __device__ __forceinline__ V box_cval(const box_edge &e);
template <> __device__ __forceinline__ uint32_t box_cval<uint32_t>(const box_edge &e)
{
    return e.cval_int;
}
template <> __device__ __forceinline__ float box_cval<float>(const box_edge &e)
{
    return e.cval_float;
}

/* Pixel (x, y) of the source, x inside, y through the border: its four channels. */
template <typename T>
__device__ __forceinline__ void box_fetch(const fv_image &src, int x, int y, const box_edge &e,
                                          bool vec, typename box_pixel<T>::value v[4])
{
    const int yy = fv_border_index(y, src.height, e.mode);
    if (yy < 0) {
        v[0] = v[1] = v[2] = v[3] = box_cval<typename box_pixel<T>::value>(e);
        return;
    }
    box_pixel<T>::load(src.data + (size_t)yy * src.pitch, x, vec, v);
}

/* What the columns pass stores: the three column sums and the centre's alpha. */
__device__ __forceinline__ uint4 box_column_of(const box_window_int<uint32_t> w[3], uint32_t alpha)
{
    return make_uint4(w[0].sum, w[1].sum, w[2].sum, alpha);
}
__device__ __forceinline__ float4 box_column_of(const box_window_float w[3], float alpha)
{
    return make_float4(w[0].value(1.0), w[1].value(1.0), w[2].value(1.0), alpha);
}

template <typename T>
__global__ void __launch_bounds__(COLUMNS_THREADS)
    box_columns_kernel(fv_image src, typename box_pixel<T>::column *columns, int r, box_edge edge,
                       bool vec)
{
    typedef typename box_pixel<T>::value value;
    typedef typename box_windows<T>::column window;
    const int x = blockIdx.x * COLUMNS_THREADS + threadIdx.x;
    if (x >= src.width) return;
    const int y0 = blockIdx.y * COLUMNS_SEG, y_end = min(y0 + COLUMNS_SEG, src.height);
    window win[3];
    value v[4];
#pragma unroll
    for (int c = 0; c < 3; c++) win[c].clear();
    for (int i = -r; i <= r; i++) {
        box_fetch<T>(src, x, y0 + i, edge, vec, v);
#pragma unroll
        for (int c = 0; c < 3; c++) win[c].add(v[c]);
    }
    for (int y = y0;; y++) {
        box_pixel<T>::load(src.data + (size_t)y * src.pitch, x, vec, v); /* the centre: alpha */
        columns[(size_t)y * src.width + x] = box_column_of(win, v[3]);
        if (y + 1 >= y_end) break;
        value in[4], old[4];
        box_fetch<T>(src, x, y + r + 1, edge, vec, in);
        box_fetch<T>(src, x, y - r, edge, vec, old);
#pragma unroll
        for (int c = 0; c < 3; c++) {
            win[c].add(in[c]);
            win[c].sub(old[c]);
        }
    }
}

/* The column sums at column x of a row through the border: a constant column sums (2r+1) cval. */
__device__ __forceinline__ void box_column_at(const uint4 *row, int x, int width, int r,
                                              const box_edge &e, uint32_t v[4])
{
    const int xx = fv_border_index(x, width, e.mode);
    if (xx < 0) {
        v[0] = v[1] = v[2] = (2 * r + 1) * e.cval_int;
        return;
    }
    const uint4 q = row[xx];
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}
__device__ __forceinline__ void box_column_at(const float4 *row, int x, int width, int r,
                                              const box_edge &e, float v[4])
{
    const int xx = fv_border_index(x, width, e.mode);
    if (xx < 0) {
        v[0] = v[1] = v[2] = (float)((2 * r + 1) * (double)e.cval_float);
        return;
    }
    const float4 q = row[xx];
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
}

__device__ __forceinline__ uint32_t box_window_mean(const box_window_int<uint64_t> &w,
                                                    const box_divider &d, double)
{
    return (uint32_t)box_quotient_wide(w.sum + d.half, d);
}
__device__ __forceinline__ float box_window_mean(const box_window_float &w, const box_divider &,
                                                 double inv_area)
{
    return w.value(inv_area);
}

template <typename T>
__global__ void __launch_bounds__(ROWS_THREADS_X *ROWS_THREADS_Y)
    box_rows_kernel(const typename box_pixel<T>::column *columns, fv_image dst, int r,
                    box_edge edge, box_divider d, double inv_area, bool vec)
{
    typedef typename box_pixel<T>::value value;
    typedef typename box_windows<T>::full window;
    const int y = blockIdx.y * ROWS_THREADS_Y + threadIdx.y;
    const int x0 = (blockIdx.x * ROWS_THREADS_X + threadIdx.x) * ROWS_SEG;
    if (y >= dst.height || x0 >= dst.width) return;
    const int x_end = min(x0 + ROWS_SEG, dst.width);
    const typename box_pixel<T>::column *row = columns + (size_t)y * dst.width;
    uint8_t *out_row = dst.data + (size_t)y * dst.pitch;
    window win[3];
    value v[4];
#pragma unroll
    for (int c = 0; c < 3; c++) win[c].clear();
    for (int j = -r; j <= r; j++) {
        box_column_at(row, x0 + j, dst.width, r, edge, v);
#pragma unroll
        for (int c = 0; c < 3; c++) win[c].add(v[c]);
    }
    for (int x = x0;; x++) {
        box_column_at(row, x, dst.width, r, edge, v); /* inside: its alpha */
        value mean[3];
#pragma unroll
        for (int c = 0; c < 3; c++) mean[c] = box_window_mean(win[c], d, inv_area);
        box_pixel<T>::store(out_row, x, vec, mean, v[3]);
        if (x + 1 >= x_end) break;
        value in[4], old[4];
        box_column_at(row, x + r + 1, dst.width, r, edge, in);
        box_column_at(row, x - r, dst.width, r, edge, old);
#pragma unroll
        for (int c = 0; c < 3; c++) {
            win[c].add(in[c]);
            win[c].sub(old[c]);
        }
    }
}

/* ---- fused: one kernel for the narrow windows ------------------------------------------------ */
/* Shared memory of one block: three planes of column sums over the strip, and alpha. */
static size_t box_fused_smem_bytes(int radius)
{
    return 3 * FUSED_ROWS * (FUSED_COLS + 2 * (size_t)radius) * 4 + FUSED_ROWS * FUSED_COLS * 4;
}

__device__ __forceinline__ uint32_t box_fused_mean(uint32_t sum, const box_divider &d, float)
{
    return (uint32_t)box_quotient_wide((uint64_t)sum + d.half, d);
}
__device__ __forceinline__ float box_fused_mean(float sum, const box_divider &, float area)
{
    return sum / area;
}

template <typename T>
__global__ void __launch_bounds__(FUSED_COLS *FUSED_THREAD_ROWS)
    box_fused_kernel(fv_image src, fv_image dst, int r, box_edge edge, box_divider d, float area,
                     bool vec)
{
    typedef typename box_pixel<T>::value value;
    extern __shared__ __align__(16) unsigned char smem_bytes[];
    const int strip = FUSED_COLS + 2 * r;
    value *sums = reinterpret_cast<value *>(smem_bytes); /* [3][FUSED_ROWS][strip] */
    value *alpha = sums + 3 * FUSED_ROWS * strip;        /* [FUSED_ROWS][FUSED_COLS] */
    const int x0 = blockIdx.x * FUSED_COLS, y0 = blockIdx.y * FUSED_ROWS;
    const int tx = threadIdx.x, ty = threadIdx.y;

    for (int cx = tx; cx < strip; cx += FUSED_COLS) { /* column sums, in registers */
        const int xx = fv_border_index(x0 - r + cx, src.width, edge.mode);
        const bool centre_column = cx >= r && cx < r + FUSED_COLS;
        const int y_first = y0 + ty * FUSED_SEG - r;
        value s[FUSED_SEG][3];
#pragma unroll
        for (int o = 0; o < FUSED_SEG; o++) s[o][0] = s[o][1] = s[o][2] = 0;
        for (int k = 0; k < FUSED_SEG + 2 * r; k++) { /* input row k is in rows k-2r..k's windows */
            const int yy = fv_border_index(y_first + k, src.height, edge.mode);
            value v[4];
            if (xx < 0 || yy < 0)
                v[0] = v[1] = v[2] = v[3] = box_cval<value>(edge);
            else
                box_pixel<T>::load(src.data + (size_t)yy * src.pitch, xx, vec, v);
#pragma unroll
            for (int o = 0; o < FUSED_SEG; o++) {
                const int tap = k - o;
                if ((unsigned)tap > (unsigned)(2 * r)) continue;
                s[o][0] += v[0];
                s[o][1] += v[1];
                s[o][2] += v[2];
                if (tap == r && centre_column)
                    alpha[(ty * FUSED_SEG + o) * FUSED_COLS + cx - r] = v[3];
            }
        }
#pragma unroll
        for (int o = 0; o < FUSED_SEG; o++)
#pragma unroll
            for (int c = 0; c < 3; c++)
                sums[(c * FUSED_ROWS + ty * FUSED_SEG + o) * strip + cx] = s[o][c];
    }
    __syncthreads();

    const int x = x0 + tx; /* row sums of the column sums */
    if (x >= dst.width) return;
#pragma unroll
    for (int o = 0; o < FUSED_SEG; o++) {
        const int row = ty * FUSED_SEG + o, y = y0 + row;
        if (y >= dst.height) break;
        value total[3] = {0, 0, 0}; /* integers: at most 25^2 * 65535 < 2^32 */
        for (int j = 0; j <= 2 * r; j++)
#pragma unroll
            for (int c = 0; c < 3; c++) total[c] += sums[(c * FUSED_ROWS + row) * strip + tx + j];
        value mean[3];
#pragma unroll
        for (int c = 0; c < 3; c++) mean[c] = box_fused_mean(total[c], d, area);
        box_pixel<T>::store(dst.data + (size_t)y * dst.pitch, x, vec, mean,
                            alpha[row * FUSED_COLS + tx]);
    }
}

/* ---- the state and the launch ---------------------------------------------------------------- */
typedef struct box_fastest_state {
    void *packed;  /* box_fast's state (uint8, replicate); NULL on the generic path */
    void *columns; /* the generic path's column sums: width x height x 16 bytes */
    fv_pixel_type type;
    box_edge edge;
    int radius;
} box_fastest_state;

static int box_takes_packed(const box_config *cfg)
{
    return cfg->type == FV_PIXEL_U8 && cfg->border == FV_BORDER_REPLICATE;
}

size_t box_fastest_state_bytes(const fv_variant *v, const fv_params *p, const void *config,
                               int width, int height)
{
    const box_config *cfg = (const box_config *)config;
    if (box_takes_packed(cfg)) return box_fast_state_bytes(v, p, config, width, height);
    if (cfg->radius <= BOX_FUSED_MAX_RADIUS) return 0;
    return (size_t)width * (size_t)height * 16;
}

fv_status box_fastest_state_create(const fv_variant *v, void **state, const fv_params *p,
                                   const void *config, int width, int height)
{
    const box_config *cfg = (const box_config *)config;
    *state = NULL;
    box_fastest_state *s = (box_fastest_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "box/fast: out of host memory");
    s->type = cfg->type;
    s->radius = cfg->radius;
    s->edge.mode = cfg->border;
    const double cval = cfg->cval;
    s->edge.cval_float = (float)cval;
    s->edge.cval_int = cfg->type == FV_PIXEL_F32 ? 0u : (uint32_t)cval; /* checked: 0..max */
    fv_status st = FV_OK;
    if (box_takes_packed(cfg)) {
        st = box_fast_state_create(v, &s->packed, p, config, width, height);
    } else if (s->radius > BOX_FUSED_MAX_RADIUS &&
               cudaMalloc(&s->columns, (size_t)width * (size_t)height * 16) != cudaSuccess) {
        cudaGetLastError();
        st = fv_fail(FV_ERR_MEMORY, "box/fast: cannot allocate its %zu MiB of column sums",
                     ((size_t)width * (size_t)height * 16) >> 20);
    }
    if (st != FV_OK) {
        free(s);
        return st;
    }
    *state = s;
    return FV_OK;
}

void box_fastest_state_destroy(const fv_variant *v, void *state)
{
    box_fastest_state *s = (box_fastest_state *)state;
    if (!s) return;
    if (s->packed) box_fast_state_destroy(v, s->packed);
    cudaFree(s->columns);
    free(s);
}

template <typename T>
static fv_status box_generic_launch(const box_fastest_state *s, const fv_image *src, fv_image *dst,
                                    cudaStream_t stream)
{
    typedef typename box_pixel<T>::column column;
    const size_t px = 4 * sizeof(T);
    const bool vec =
        ((uintptr_t)src->data | src->pitch | (uintptr_t)dst->data | dst->pitch) % px == 0;
    const int r = s->radius;
    if (r <= BOX_FUSED_MAX_RADIUS) {
        const dim3 grid((src->width + FUSED_COLS - 1) / FUSED_COLS,
                        (src->height + FUSED_ROWS - 1) / FUSED_ROWS);
        box_fused_kernel<T>
            <<<grid, dim3(FUSED_COLS, FUSED_THREAD_ROWS), box_fused_smem_bytes(r), stream>>>(
                *src, *dst, r, s->edge, box_divider_make(r), (float)((2 * r + 1) * (2 * r + 1)),
                vec);
        FV_CUDA_CHECK(cudaGetLastError());
        return FV_OK;
    }
    column *columns = (column *)s->columns;
    const dim3 grid_columns((src->width + COLUMNS_THREADS - 1) / COLUMNS_THREADS,
                            (src->height + COLUMNS_SEG - 1) / COLUMNS_SEG);
    box_columns_kernel<T>
        <<<grid_columns, COLUMNS_THREADS, 0, stream>>>(*src, columns, r, s->edge, vec);
    FV_CUDA_CHECK(cudaGetLastError());
    const int per_block = ROWS_THREADS_X * ROWS_SEG;
    const dim3 grid_rows((dst->width + per_block - 1) / per_block,
                         (dst->height + ROWS_THREADS_Y - 1) / ROWS_THREADS_Y);
    const double area = (double)(2 * r + 1) * (double)(2 * r + 1);
    box_rows_kernel<T><<<grid_rows, dim3(ROWS_THREADS_X, ROWS_THREADS_Y), 0, stream>>>(
        columns, *dst, r, s->edge, box_divider_make(r), 1.0 / area, vec);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

fv_status box_fastest_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    const box_fastest_state *s = (const box_fastest_state *)state;
    if (s->packed) return box_fast_run(v, src, dst, config, s->packed, stream);
    switch (s->type) {
    case FV_PIXEL_U16: return box_generic_launch<uint16_t>(s, src, dst, stream);
    case FV_PIXEL_F32: return box_generic_launch<float>(s, src, dst, stream);
    default: return box_generic_launch<uint8_t>(s, src, dst, stream);
    }
}

int box_fastest_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max)
{
    const box_config *cfg = (const box_config *)config;
    if (box_takes_packed(cfg)) return box_fast_kernels(v, p, config, out, max);
    if (cfg->radius <= BOX_FUSED_MAX_RADIUS) {
        if (max < 1) return 0;
        const size_t smem = box_fused_smem_bytes(cfg->radius);
        const int threads = FUSED_COLS * FUSED_THREAD_ROWS;
        out[0] = cfg->type == FV_PIXEL_U16
                     ? fv_kernel_info{"box_fused_kernel<uint16>",
                                      (const void *)box_fused_kernel<uint16_t>, threads, smem}
                 : cfg->type == FV_PIXEL_F32
                     ? fv_kernel_info{"box_fused_kernel<float>",
                                      (const void *)box_fused_kernel<float>, threads, smem}
                     : fv_kernel_info{"box_fused_kernel<uint8>",
                                      (const void *)box_fused_kernel<uint8_t>, threads, smem};
        return 1;
    }
    if (max < 2) return 0;
    switch (cfg->type) {
    case FV_PIXEL_U16:
        out[0] = {"box_columns_kernel<uint16>", (const void *)box_columns_kernel<uint16_t>,
                  COLUMNS_THREADS, 0};
        out[1] = {"box_rows_kernel<uint16>", (const void *)box_rows_kernel<uint16_t>,
                  ROWS_THREADS_X * ROWS_THREADS_Y, 0};
        break;
    case FV_PIXEL_F32:
        out[0] = {"box_columns_kernel<float>", (const void *)box_columns_kernel<float>,
                  COLUMNS_THREADS, 0};
        out[1] = {"box_rows_kernel<float>", (const void *)box_rows_kernel<float>,
                  ROWS_THREADS_X * ROWS_THREADS_Y, 0};
        break;
    default:
        out[0] = {"box_columns_kernel<uint8>", (const void *)box_columns_kernel<uint8_t>,
                  COLUMNS_THREADS, 0};
        out[1] = {"box_rows_kernel<uint8>", (const void *)box_rows_kernel<uint8_t>,
                  ROWS_THREADS_X * ROWS_THREADS_Y, 0};
        break;
    }
    return 2;
}
