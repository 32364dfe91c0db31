/* ------------------------------------------------------------------------------------------------
 * kernels/invert.cu: invert, seed 004's minimal interop example: 255 - value per colour channel,
 * alpha passed through. One GPU variant (one thread per pixel) plus the `cpu` reference
 * (kernels/ref/invert.c); bit-exact, checked by tests/test_filters.c.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "ref/refs.h"

#define INVERT_BLOCK_X 32
#define INVERT_BLOCK_Y 8

__global__ void invert_naive_kernel(fv_image src, fv_image dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const uint32_t px = reinterpret_cast<const uint32_t *>(src.data + (size_t)y * src.pitch)[x];
    reinterpret_cast<uint32_t *>(dst.data + (size_t)y * dst.pitch)[x] = px ^ 0x00ffffffu;
}

static fv_status invert_naive_run(const fv_image *src, fv_image *dst, const fv_params *p,
                                  fv_scratch *s, cudaStream_t stream)
{
    (void)p;
    (void)s;
    dim3 block(INVERT_BLOCK_X, INVERT_BLOCK_Y);
    dim3 grid((src->width + block.x - 1) / block.x, (src->height + block.y - 1) / block.y);
    invert_naive_kernel<<<grid, block, 0, stream>>>(*src, *dst);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static const fv_variant invert_variants[] = {
    {"naive", "one thread per pixel: 255 - value is an XOR of the colour bytes", invert_naive_run},
    FV_VARIANT_CPU,
};

extern "C" const fv_filter fv_filter_invert = {
    "invert",
    "colour negative (255 - value), alpha kept",
    invert_ref,
    invert_check_params,
    fv_describe_no_params,
    invert_variants,
    (int)(sizeof invert_variants / sizeof invert_variants[0]),
    0,
    8.0,
};
