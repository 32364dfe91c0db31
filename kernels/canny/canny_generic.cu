/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_generic.cu: the Canny stages for every pixel type and border, one kernel per
 * stage templated on the channel type (uint8, uint16, float32): what `naive` runs and what `fast`
 * dispatches to for anything but uint8 with the replicate border (whose own kernels in canny.cu
 * stay as they are). The arithmetic is the reference's (kernels/canny/canny_ref.c): exact 64-bit
 * integers for the integer types; for float32 IEEE single with every operation rounded where the
 * reference rounds it (__fadd_rn and friends: no contraction into FMAs), the sector test exact in
 * double. So every stage equals the reference bit for bit, NaN and infinity included. Reads past
 * the edge through fv_border_index (kernels/core/border.h), cval for the constant border.
 * Hysteresis is the shared label relaxation (canny_hysteresis.cu), by host sweeps (naive) or the
 * cooperative kernels (fast). Checked by tests/gpu/test_filters.c against canny_ref.
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "canny_internal.h"
#include "cuda_check.h"

/* ---- what a type computes with ---------------------------------------------------------------- */
template <typename T> struct canny_t;
template <> struct canny_t<uint8_t> {
    typedef long long num; /* gray and blur sums, Sobel: exact */
    typedef int mag;       /* at most 2 x 1020^2 */
};
template <> struct canny_t<uint16_t> {
    typedef long long num;
    typedef long long mag; /* l2: up to 2 x 262140^2, beyond 32 bits */
};
template <> struct canny_t<float> {
    typedef float num;
    typedef float mag;
};

__device__ __forceinline__ long long c_add(long long a, long long b)
{
    return a + b;
}
__device__ __forceinline__ long long c_sub(long long a, long long b)
{
    return a - b;
}
__device__ __forceinline__ long long c_mul(long long a, long long b)
{
    return a * b;
}
__device__ __forceinline__ long long c_abs(long long a)
{
    return a < 0 ? -a : a;
}
__device__ __forceinline__ float c_add(float a, float b)
{
    return __fadd_rn(a, b);
}
__device__ __forceinline__ float c_sub(float a, float b)
{
    return __fsub_rn(a, b);
}
__device__ __forceinline__ float c_mul(float a, float b)
{
    return __fmul_rn(a, b);
}
__device__ __forceinline__ float c_abs(float a)
{
    return fabsf(a);
}

template <typename T> __device__ __forceinline__ T *typed_row(uint8_t *base, size_t i)
{
    return reinterpret_cast<T *>(base) + i;
}

/* the largest r with r * r <= v (v < 2^53) */
__device__ __forceinline__ long long isqrt64(long long v)
{
    long long r = (long long)sqrt((double)v);
    while (r > 0 && r * r > v) r--;
    while ((r + 1) * (r + 1) <= v) r++;
    return r;
}

/* gray: integers (9798 R + 19235 G + 3735 B + 2^14) >> 15; float ((9798 R + 19235 G) + 3735 B) /
 * 2^15, each step rounded */
__device__ __forceinline__ long long gray_of(long long r, long long g, long long b)
{
    return (9798 * r + 19235 * g + 3735 * b + 16384) >> 15;
}
__device__ __forceinline__ float gray_of(float r, float g, float b)
{
    const float s = __fadd_rn(__fmul_rn(9798.0f, r), __fmul_rn(19235.0f, g));
    return __fmul_rn(__fadd_rn(s, __fmul_rn(3735.0f, b)), 1.0f / 32768.0f);
}

/* the blur's rounding of a 2-D sum of weight 2^16 */
__device__ __forceinline__ long long blur_round(long long s)
{
    return (s + 32768) >> 16;
}
__device__ __forceinline__ float blur_round(float s)
{
    return __fmul_rn(s, 1.0f / 65536.0f);
}

/* canny_sector's exact test on any numbers (exact in double for every type) */
__device__ __forceinline__ int sector_of(double dx, double dy)
{
    const double ax = fabs(dx), ay = fabs(dy) * 32768.0, tg22x = ax * CANNY_TG22;
    if (ay < tg22x) return 0;
    if (ay > tg22x + ax * 65536.0) return 1;
    return (dx < 0) != (dy < 0) ? 3 : 2;
}

/* half the magnitude (l2: of its root), integers floored and saturated */
__device__ __forceinline__ double shown_of(int m, int l2, double top)
{
    const long long v = (l2 ? isqrt64(m) : m) >> 1;
    return v > top ? top : (double)v;
}
__device__ __forceinline__ double shown_of(long long m, int l2, double top)
{
    const long long v = (l2 ? isqrt64(m) : m) >> 1;
    return v > top ? top : (double)v;
}
__device__ __forceinline__ double shown_of(float m, int l2, double)
{
    return __fmul_rn(l2 ? __fsqrt_rn(m) : m, 0.5f);
}

/* a magnitude as an ordered 64-bit key (non-negative floats order as their bits) and back */
__device__ __forceinline__ unsigned long long key_of(int m)
{
    return (unsigned long long)m;
}
__device__ __forceinline__ unsigned long long key_of(long long m)
{
    return (unsigned long long)m;
}
__device__ __forceinline__ unsigned long long key_of(float m)
{
    return __float_as_uint(m);
}
template <typename M> __device__ __forceinline__ M mag_of_key(unsigned long long k);
template <> __device__ __forceinline__ int mag_of_key<int>(unsigned long long k)
{
    return (int)k;
}
template <> __device__ __forceinline__ long long mag_of_key<long long>(unsigned long long k)
{
    return (long long)k;
}
template <> __device__ __forceinline__ float mag_of_key<float>(unsigned long long k)
{
    return __uint_as_float((unsigned)k);
}

/* auto thresholds from the kept minimum and maximum: min + 1 % and min + 20 % of the range */
__device__ __forceinline__ void auto_thresholds(long long kmin, long long kmax, int l2,
                                                long long *lowc, long long *highc)
{
    const long long lo = l2 ? isqrt64(kmin) : kmin, hi = l2 ? isqrt64(kmax) : kmax;
    const long long low = lo + (hi - lo) / 100, high = lo + (hi - lo) / 5;
    *lowc = l2 ? low * low : low;
    *highc = l2 ? high * high : high;
}
__device__ __forceinline__ void auto_thresholds(int kmin, int kmax, int l2, int *lowc, int *highc)
{
    long long l = 0, h = 0;
    auto_thresholds((long long)kmin, (long long)kmax, l2, &l, &h);
    *lowc = (int)l;
    *highc = (int)h;
}
__device__ __forceinline__ void auto_thresholds(float kmin, float kmax, int l2, float *lowc,
                                                float *highc)
{
    const float lo = l2 ? __fsqrt_rn(kmin) : kmin, hi = l2 ? __fsqrt_rn(kmax) : kmax;
    const float range = __fsub_rn(hi, lo);
    const float low = __fadd_rn(lo, __fdiv_rn(range, 100.0f));
    const float high = __fadd_rn(lo, __fdiv_rn(range, 5.0f));
    *lowc = l2 ? __fmul_rn(low, low) : low;
    *highc = l2 ? __fmul_rn(high, high) : high;
}

/* the manual thresholds' compared values as the magnitude's type */
template <typename M>
__device__ __forceinline__ void manual_thresholds(const canny_args &a, M *lo, M *hi)
{
    *lo = (M)a.lowc64;
    *hi = (M)a.highc64;
}
template <>
__device__ __forceinline__ void manual_thresholds<float>(const canny_args &a, float *lo, float *hi)
{
    *lo = a.lowf;
    *hi = a.highf;
}

/* ---- the stages --------------------------------------------------------------------------------- */
template <typename T> static __global__ void canny_gray_generic_kernel(fv_image src, canny_args a)
{
    typedef typename canny_t<T>::num num;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    const T *p = reinterpret_cast<const T *>(src.data + (size_t)y * src.pitch) + 4 * (size_t)x;
    *typed_row<T>(a.gray, (size_t)y * a.w + x) = (T)gray_of((num)p[0], (num)p[1], (num)p[2]);
}

/* value v of plane `plane` at (x, y) extended by the border */
template <typename T>
__device__ __forceinline__ typename canny_t<T>::num at(const uint8_t *plane, int x, int y,
                                                       const canny_args &a)
{
    typedef typename canny_t<T>::num num;
    const int xx = fv_border_index(x, a.w, (fv_border)a.border);
    const int yy = fv_border_index(y, a.h, (fv_border)a.border);
    if (xx < 0 || yy < 0) return (num)a.cval;
    return (num) reinterpret_cast<const T *>(plane)[(size_t)yy * a.w + xx];
}

/* rows in order, then the column of row sums in order (the reference's order) */
template <typename T> static __global__ void canny_blur_generic_kernel(canny_args a, canny_taps t)
{
    typedef typename canny_t<T>::num num;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    const int r = a.radius;
    num sum = 0;
    for (int i = -r; i <= r; i++) {
        num row = 0;
        for (int j = -r; j <= r; j++)
            row = c_add(row, c_mul((num)t.w[r + j], at<T>(a.gray, x + j, y + i, a)));
        sum = c_add(sum, c_mul((num)t.w[r + i], row));
    }
    *typed_row<T>(a.blur, (size_t)y * a.w + x) = (T)blur_round(sum);
}

/* dx = ((((v02 + 2 v12) + v22) - v00) - 2 v10) - v20; dy likewise from v20 */
template <typename T> static __global__ void canny_sobel_generic_kernel(canny_args a)
{
    typedef typename canny_t<T>::num num;
    typedef typename canny_t<T>::mag mag;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    num v[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) v[i][j] = at<T>(a.blur, x + j - 1, y + i - 1, a);
    const num two = 2;
    num dx = c_add(v[0][2], c_mul(two, v[1][2]));
    dx = c_sub(c_sub(c_add(dx, v[2][2]), v[0][0]), c_mul(two, v[1][0]));
    dx = c_sub(dx, v[2][0]);
    num dy = c_add(v[2][0], c_mul(two, v[2][1]));
    dy = c_sub(c_sub(c_add(dy, v[2][2]), v[0][0]), c_mul(two, v[0][1]));
    dy = c_sub(dy, v[0][2]);
    const num m = a.l2 ? c_add(c_mul(dx, dx), c_mul(dy, dy)) : c_add(c_abs(dx), c_abs(dy));
    const size_t i = (size_t)y * a.w + x;
    reinterpret_cast<mag *>(a.mag)[i] = (mag)m;
    a.sk[i] = (uint8_t)sector_of((double)dx, (double)dy);
}

/* suppression (0 outside the image; a NaN magnitude is never kept), the block's kept extremes */
template <typename T> static __global__ void canny_nms_generic_kernel(canny_args a)
{
    typedef typename canny_t<T>::mag mag;
    __shared__ unsigned long long smin, smax;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid == 0) {
        smin = ~0ull;
        smax = 0;
    }
    __syncthreads();
    if (x < a.w && y < a.h) {
        const mag *m_of = reinterpret_cast<const mag *>(a.mag);
        const size_t i = (size_t)y * a.w + x;
        const int s = a.sk[i] & 3;
        const mag m = m_of[i];
        int ax, ay, bx, by;
        canny_neighbours(s, &ax, &ay, &bx, &by);
        const int xa = x + ax, ya = y + ay, xb = x + bx, yb = y + by;
        const mag ma = xa >= 0 && xa < a.w && ya >= 0 && ya < a.h ? m_of[(size_t)ya * a.w + xa] : 0;
        const mag mb = xb >= 0 && xb < a.w && yb >= 0 && yb < a.h ? m_of[(size_t)yb * a.w + xb] : 0;
        const bool keep = m > ma && (s < 2 ? m >= mb : m > mb);
        a.sk[i] = (uint8_t)(s | (int)keep << 2);
        if (keep && a.auto_thr) {
            atomicMin(&smin, key_of(m));
            atomicMax(&smax, key_of(m));
        }
    }
    __syncthreads();
    if (tid == 0 && a.auto_thr && smin <= smax) {
        atomicMin(&a.misc64[0], smin);
        atomicMax(&a.misc64[1], smax);
    }
}

template <typename T> static __global__ void canny_classify_generic_kernel(canny_args a)
{
    typedef typename canny_t<T>::mag mag;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    mag lowc, highc;
    if (a.auto_thr) {
        const unsigned long long lo = a.misc64[0], hi = a.misc64[1];
        const bool any = lo <= hi;
        auto_thresholds(any ? mag_of_key<mag>(lo) : (mag)0, any ? mag_of_key<mag>(hi) : (mag)0,
                        a.l2, &lowc, &highc);
    } else {
        manual_thresholds<mag>(a, &lowc, &highc);
    }
    const size_t i = (size_t)y * a.w + x;
    const mag m = reinterpret_cast<const mag *>(a.mag)[i];
    a.label[i] = (uint16_t)(!(a.sk[i] >> 2) || !(m > lowc) ? CANNY_NONE
                                                           : (m > highc ? 0u : (unsigned)a.cap));
}

/* the stage shown, in the image's type (canny.h) */
template <typename T> static __global__ void canny_output_generic_kernel(fv_image dst, canny_args a)
{
    typedef typename canny_t<T>::mag mag;
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.w || y >= a.h) return;
    const double top = a.top;
    const size_t i = (size_t)y * a.w + x;
    const mag *m_of = reinterpret_cast<const mag *>(a.mag); /* written from the magnitude on */
    double rgb[3] = {0, 0, 0};
    switch (a.stage) {
    case CANNY_GRAY:
    case CANNY_BLUR: {
        const T v = *typed_row<T>(a.stage == CANNY_GRAY ? a.gray : a.blur, i);
        rgb[0] = rgb[1] = rgb[2] = (double)v;
        break;
    }
    case CANNY_MAGNITUDE:
    case CANNY_NMS:
        if (a.stage == CANNY_MAGNITUDE || a.sk[i] >> 2)
            rgb[0] = rgb[1] = rgb[2] = shown_of(m_of[i], a.l2, top);
        break;
    case CANNY_DIRECTION: {
        const int s = a.sk[i] & 3;
        const double v = shown_of(m_of[i], a.l2, top);
        rgb[0] = s == 0 || s == 3 ? v : 0;
        rgb[1] = s == 1 || s == 3 ? v : 0;
        rgb[2] = s == 2 ? v : 0;
        break;
    }
    case CANNY_THRESHOLD_MAP: {
        const unsigned l = a.label[i];
        if (l != CANNY_NONE) {
            rgb[0] = top;
            rgb[1] = l == 0 ? top : a.amber;
            rgb[2] = l == 0 ? top : 0;
        }
        break;
    }
    default: rgb[0] = rgb[1] = rgb[2] = a.label[i] < (unsigned)a.cap ? top : 0; break;
    }
    T *out = reinterpret_cast<T *>(dst.data + (size_t)y * dst.pitch) + 4 * (size_t)x;
    out[0] = (T)rgb[0];
    out[1] = (T)rgb[1];
    out[2] = (T)rgb[2];
    out[3] = (T)top;
}

/* ---- the run ---------------------------------------------------------------------------------- */
template <typename T>
static fv_status generic_run(const fv_image *src, fv_image *dst, const canny_config *c,
                             const canny_args &a, canny_state *s, canny_hysteresis_fn hysteresis,
                             cudaStream_t stream)
{
    const dim3 grid = pixel_grid(a.w, a.h), block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
    canny_gray_generic_kernel<T><<<grid, block, 0, stream>>>(*src, a);
    FV_CUDA_CHECK(cudaGetLastError());
    if (a.stage >= CANNY_BLUR && a.radius) {
        canny_taps t;
        for (int k = 0; k < 2 * FV_CANNY_MAX_RADIUS + 1; k++)
            t.w[k] = k < 2 * c->radius + 1 ? c->w[k] : 0;
        canny_blur_generic_kernel<T><<<grid, block, 0, stream>>>(a, t);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_MAGNITUDE) {
        canny_sobel_generic_kernel<T><<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_NMS) {
        canny_nms_generic_kernel<T><<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_THRESHOLD_MAP) {
        canny_classify_generic_kernel<T><<<grid, block, 0, stream>>>(a);
        FV_CUDA_CHECK(cudaGetLastError());
    }
    if (a.stage >= CANNY_EDGES) FV_TRY(hysteresis(&a, s, stream));
    canny_output_generic_kernel<T><<<grid, block, 0, stream>>>(*dst, a);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

fv_status canny_generic_reset(const canny_args *a, cudaStream_t stream)
{
    FV_CUDA_CHECK(cudaMemsetAsync(a->misc, 0, MISC_WORDS * sizeof(unsigned), stream));
    FV_CUDA_CHECK(cudaMemsetAsync(a->misc64, 0xff, sizeof(unsigned long long), stream));
    FV_CUDA_CHECK(cudaMemsetAsync(a->misc64 + 1, 0, sizeof(unsigned long long), stream));
    return FV_OK;
}

template <typename T>
static fv_status stage_launch(int which, const fv_image *img, const canny_args &a,
                              cudaStream_t stream)
{
    const dim3 grid = pixel_grid(a.w, a.h), block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
    switch (which) {
    case CANNY_GENERIC_GRAY:
        canny_gray_generic_kernel<T><<<grid, block, 0, stream>>>(*img, a);
        break;
    case CANNY_GENERIC_CLASSIFY:
        canny_classify_generic_kernel<T><<<grid, block, 0, stream>>>(a);
        break;
    default: canny_output_generic_kernel<T><<<grid, block, 0, stream>>>(*img, a); break;
    }
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

fv_status canny_generic_launch(int which, const fv_image *img, const canny_args *a,
                               fv_pixel_type type, cudaStream_t stream)
{
    switch (type) {
    case FV_PIXEL_U16: return stage_launch<uint16_t>(which, img, *a, stream);
    case FV_PIXEL_F32: return stage_launch<float>(which, img, *a, stream);
    case FV_PIXEL_U8:
    default: return stage_launch<uint8_t>(which, img, *a, stream);
    }
}

fv_status canny_generic_run(const fv_image *src, fv_image *dst, const canny_config *c,
                            const canny_args *a, canny_state *s, canny_hysteresis_fn hysteresis,
                            cudaStream_t stream)
{
    FV_TRY(canny_generic_reset(a, stream));
    switch (c->type) {
    case FV_PIXEL_U16: return generic_run<uint16_t>(src, dst, c, *a, s, hysteresis, stream);
    case FV_PIXEL_F32: return generic_run<float>(src, dst, c, *a, s, hysteresis, stream);
    case FV_PIXEL_U8:
    default: return generic_run<uint8_t>(src, dst, c, *a, s, hysteresis, stream);
    }
}

int canny_generic_kernels(fv_pixel_type type, fv_kernel_info *out, int max)
{
    const int threads = PIXEL_BLOCK_X * PIXEL_BLOCK_Y;
#define CANNY_GENERIC_TABLE(T, NAME)                                                               \
    {                                                                                              \
        {"canny_gray_generic_kernel<" NAME ">", (const void *)canny_gray_generic_kernel<T>,        \
         threads, 0},                                                                              \
            {"canny_blur_generic_kernel<" NAME ">", (const void *)canny_blur_generic_kernel<T>,    \
             threads, 0},                                                                          \
            {"canny_sobel_generic_kernel<" NAME ">", (const void *)canny_sobel_generic_kernel<T>,  \
             threads, 0},                                                                          \
        {                                                                                          \
            "canny_nms_generic_kernel<" NAME ">", (const void *)canny_nms_generic_kernel<T>,       \
                threads, 0                                                                         \
        }                                                                                          \
    }
    static const fv_kernel_info table[FV_PIXEL_TYPE_COUNT][4] = {
        CANNY_GENERIC_TABLE(uint8_t, "uint8"), CANNY_GENERIC_TABLE(uint16_t, "uint16"),
        CANNY_GENERIC_TABLE(float, "float")};
#undef CANNY_GENERIC_TABLE
    const int n = max < 4 ? max : 4;
    for (int k = 0; k < n; k++) out[k] = table[(unsigned)type < FV_PIXEL_TYPE_COUNT ? type : 0][k];
    return n;
}
