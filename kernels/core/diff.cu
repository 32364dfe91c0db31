/* ------------------------------------------------------------------------------------------------
 * kernels/core/diff.cu: |A - B| statistics of two device images on the GPU (max and mean absolute
 * difference over all four channels, count of pixels with any difference). Used by
 * `filterview --compare` and the viewer's difference mode. Checked in tests/gpu/test_filters.c
 * against a host count.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"

#define DIFF_BLOCK      256
#define DIFF_MAX_BLOCKS 1024

struct diff_totals {
    unsigned int max_abs;
    unsigned long long sum_abs;
    unsigned long long n_differing;
};

size_t fv_diff_work_bytes(void)
{
    return sizeof(diff_totals);
}

__device__ __forceinline__ unsigned int abs_diff_u8(unsigned int a, unsigned int b)
{
    return a > b ? a - b : b - a;
}

__global__ void diff_kernel(fv_image a, fv_image b, diff_totals *totals)
{
    __shared__ unsigned int block_max[DIFF_BLOCK];
    __shared__ unsigned long long block_sum[DIFF_BLOCK], block_count[DIFF_BLOCK];
    unsigned int mx = 0;
    unsigned long long sum = 0, count = 0;
    const long long n = (long long)a.width * a.height;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int y = (int)(i / a.width), x = (int)(i - (long long)y * a.width);
        const uchar4 pa = reinterpret_cast<const uchar4 *>(a.data + (size_t)y * a.pitch)[x];
        const uchar4 pb = reinterpret_cast<const uchar4 *>(b.data + (size_t)y * b.pitch)[x];
        const unsigned int d0 = abs_diff_u8(pa.x, pb.x), d1 = abs_diff_u8(pa.y, pb.y);
        const unsigned int d2 = abs_diff_u8(pa.z, pb.z), d3 = abs_diff_u8(pa.w, pb.w);
        const unsigned int m = max(max(d0, d1), max(d2, d3));
        mx = max(mx, m);
        sum += d0 + d1 + d2 + d3;
        count += (m != 0);
    }
    block_max[threadIdx.x] = mx;
    block_sum[threadIdx.x] = sum;
    block_count[threadIdx.x] = count;
    __syncthreads();
    for (int stride = DIFF_BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            block_max[threadIdx.x] = max(block_max[threadIdx.x], block_max[threadIdx.x + stride]);
            block_sum[threadIdx.x] += block_sum[threadIdx.x + stride];
            block_count[threadIdx.x] += block_count[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicMax(&totals->max_abs, block_max[0]);
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
    diff_totals *totals = static_cast<diff_totals *>(work);
    FV_CUDA_CHECK(cudaMemsetAsync(totals, 0, sizeof *totals, stream));
    const long long n = (long long)a->width * a->height;
    long long blocks = (n + DIFF_BLOCK - 1) / DIFF_BLOCK;
    if (blocks > DIFF_MAX_BLOCKS) blocks = DIFF_MAX_BLOCKS;
    if (blocks > 0) diff_kernel<<<(unsigned)blocks, DIFF_BLOCK, 0, stream>>>(*a, *b, totals);
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
    out->max_abs = (int)t->max_abs;
    out->mean_abs = n > 0 ? (double)t->sum_abs / (4.0 * n) : 0.0;
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
