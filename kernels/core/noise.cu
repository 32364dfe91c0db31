/* ------------------------------------------------------------------------------------------------
 * kernels/core/noise.cu: source noise on the device (kernels/core/noise.h): one thread per pixel runs
 * fv_noise_pixel, the function the host runs in fv_noise_apply_host, with the integers
 * fv_noise_prepare made on the host; so both make the same image (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "noise.h"

#define NOISE_BLOCK_X 32
#define NOISE_BLOCK_Y 8

static __global__ void noise_kernel(fv_image src, fv_image dst, fv_noise_q q)
{
    const int x = blockIdx.x * NOISE_BLOCK_X + threadIdx.x;
    const int y = blockIdx.y * NOISE_BLOCK_Y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const uint32_t px = reinterpret_cast<const uint32_t *>(src.data + (size_t)y * src.pitch)[x];
    reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch)[x] = fv_noise_pixel(px, x, y, q);
}

extern "C" fv_status fv_noise_apply(const fv_image *src, fv_image *dst, const fv_noise *noise,
                                    cudaStream_t stream)
{
    if (src->width != dst->width || src->height != dst->height)
        return fv_fail(FV_ERR_ARG, "noise: source %dx%d and destination %dx%d differ", src->width,
                       src->height, dst->width, dst->height);
    if (((uintptr_t)src->data | src->pitch | (uintptr_t)dst->data | dst->pitch) % 4 != 0)
        return fv_fail(FV_ERR_ARG, "noise: image rows must start on 4-byte boundaries");
    fv_noise_q q;
    FV_TRY(fv_noise_prepare(noise, &q));
    if (src->width == 0 || src->height == 0) return FV_OK;
    if (!q.threshold && !q.scale && src->data == dst->data) return FV_OK;
    dim3 block(NOISE_BLOCK_X, NOISE_BLOCK_Y);
    dim3 grid((src->width + NOISE_BLOCK_X - 1) / NOISE_BLOCK_X,
              (src->height + NOISE_BLOCK_Y - 1) / NOISE_BLOCK_Y);
    noise_kernel<<<grid, block, 0, stream>>>(*src, *dst, q);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}
