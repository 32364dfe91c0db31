/* ------------------------------------------------------------------------------------------------
 * kernels/core/diff.cu: |A - B| statistics of two device images on the GPU, any pixel type (max and
 * mean absolute difference over all channels, count of pixels with any difference). Used by
 * `filterview --compare` and the viewer's difference mode. Checked in tests/gpu/test_filters.c
 * against a host count.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"

#include <limits.h>
#include <string.h>

#define DIFF_BLOCK      256
#define DIFF_MAX_BLOCKS 1024

struct diff_totals {
    unsigned int max_bits; /* the largest |a - b| as a float's bits (non-negative floats order
                              as their bits do; infinity is the largest) */
    double sum_abs;
    unsigned long long n_differing;
    unsigned int channels; /* of the images, for the mean */
    unsigned int type;     /* fv_pixel_type of the images */
};

size_t fv_diff_work_bytes(void)
{
    return sizeof(diff_totals);
}

/* |a - b| with NaN equal to NaN and an infinity equal to itself (fv_diff_host's rule). */
__device__ __forceinline__ float channel_distance(float a, float b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0.0f : INFINITY;
    if (isinf(a) || isinf(b)) return a == b ? 0.0f : INFINITY;
    return fabsf(a - b);
}

template <typename T>
__global__ void diff_kernel(fv_image a, fv_image b, int channels, diff_totals *totals)
{
    __shared__ float block_max[DIFF_BLOCK];
    __shared__ double block_sum[DIFF_BLOCK];
    __shared__ unsigned long long block_count[DIFF_BLOCK];
    float mx = 0;
    double sum = 0;
    unsigned long long count = 0;
    const long long n = (long long)a.width * a.height;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int y = (int)(i / a.width), x = (int)(i - (long long)y * a.width);
        const T *pa = reinterpret_cast<const T *>(a.data + (size_t)y * a.pitch) + x * channels;
        const T *pb = reinterpret_cast<const T *>(b.data + (size_t)y * b.pitch) + x * channels;
        float m = 0;
        for (int c = 0; c < channels; c++) {
            const float d = channel_distance((float)pa[c], (float)pb[c]);
            sum += d;
            m = fmaxf(m, d);
        }
        mx = fmaxf(mx, m);
        count += (m != 0);
    }
    block_max[threadIdx.x] = mx;
    block_sum[threadIdx.x] = sum;
    block_count[threadIdx.x] = count;
    __syncthreads();
    for (int stride = DIFF_BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            block_max[threadIdx.x] = fmaxf(block_max[threadIdx.x], block_max[threadIdx.x + stride]);
            block_sum[threadIdx.x] += block_sum[threadIdx.x + stride];
            block_count[threadIdx.x] += block_count[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        if (blockIdx.x == 0) {
            totals->channels = (unsigned)channels;
            totals->type = sizeof(T) == 1   ? FV_PIXEL_U8
                           : sizeof(T) == 2 ? FV_PIXEL_U16
                                            : FV_PIXEL_F32;
        }
        atomicMax(&totals->max_bits, __float_as_uint(block_max[0]));
        atomicAdd(&totals->sum_abs, block_sum[0]);
        atomicAdd(&totals->n_differing, block_count[0]);
    }
}

extern "C" fv_status fv_diff_enqueue(const fv_image *a, const fv_image *b, void *work,
                                     void *host_totals, cudaStream_t stream)
{
    if (a->width != b->width || a->height != b->height)
        return fv_fail(FV_ERR_ARG, "fv_diff: %dx%d and %dx%d differ", a->width, a->height, b->width,
                       b->height);
    if (a->type != b->type || fv_image_channels(a) != fv_image_channels(b))
        return fv_fail(FV_ERR_ARG, "fv_diff: %s x%d and %s x%d images differ in layout",
                       fv_pixel_type_name(a->type), fv_image_channels(a),
                       fv_pixel_type_name(b->type), fv_image_channels(b));
    diff_totals *totals = static_cast<diff_totals *>(work);
    FV_CUDA_CHECK(cudaMemsetAsync(totals, 0, sizeof *totals, stream));
    const long long n = (long long)a->width * a->height;
    long long blocks = (n + DIFF_BLOCK - 1) / DIFF_BLOCK;
    if (blocks > DIFF_MAX_BLOCKS) blocks = DIFF_MAX_BLOCKS;
    const int channels = fv_image_channels(a);
    if (blocks > 0) {
        if (a->type == FV_PIXEL_U16)
            diff_kernel<uint16_t>
                <<<(unsigned)blocks, DIFF_BLOCK, 0, stream>>>(*a, *b, channels, totals);
        else if (a->type == FV_PIXEL_F32)
            diff_kernel<float>
                <<<(unsigned)blocks, DIFF_BLOCK, 0, stream>>>(*a, *b, channels, totals);
        else
            diff_kernel<uint8_t>
                <<<(unsigned)blocks, DIFF_BLOCK, 0, stream>>>(*a, *b, channels, totals);
    }
    FV_CUDA_CHECK(cudaGetLastError());
    FV_CUDA_CHECK(
        cudaMemcpyAsync(host_totals, totals, sizeof *totals, cudaMemcpyDeviceToHost, stream));
    return FV_OK;
}

extern "C" void fv_diff_totals_read(const void *host_totals, int width, int height,
                                    fv_diff_stats *out)
{
    const diff_totals *t = static_cast<const diff_totals *>(host_totals);
    const double n = (double)width * height;
    float max_value;
    memcpy(&max_value, &t->max_bits, sizeof max_value);
    out->max_abs_value = max_value;
    out->max_abs = max_value > (float)INT_MAX ? INT_MAX : (int)ceilf(max_value);
    out->mean_abs = n > 0 && t->channels ? t->sum_abs / (t->channels * n) : 0.0;
    out->type = (fv_pixel_type)t->type;
    out->n_differing = (long long)t->n_differing;
}

extern "C" fv_status fv_diff(const fv_image *a, const fv_image *b, fv_diff_stats *out, void *work,
                             cudaStream_t stream)
{
    diff_totals host;
    FV_TRY(fv_diff_enqueue(a, b, work, &host, stream));
    FV_CUDA_CHECK(cudaStreamSynchronize(stream));
    fv_diff_totals_read(&host, a->width, a->height, out);
    return FV_OK;
}
