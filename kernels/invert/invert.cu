/* ------------------------------------------------------------------------------------------------
 * kernels/invert/invert.cu: invert, the smallest filter: 255 - value per colour channel,
 * alpha passed through. One GPU variant (one thread per pixel) plus the `cpu` reference
 * (kernels/invert/invert_ref.c); bit-exact, checked by tests/gpu/test_filters.c.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "invert.h"

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

static int invert_naive_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out,
                                int max)
{
    (void)p;
    if (max < 1) return 0;
    out[0] = {"invert_naive_kernel", (const void *)invert_naive_kernel,
              INVERT_BLOCK_X * INVERT_BLOCK_Y, 0};
    return 1;
}

static fv_status invert_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                                  const fv_params *p, void *state, cudaStream_t stream)
{
    (void)p;
    (void)state;
    dim3 block(INVERT_BLOCK_X, INVERT_BLOCK_Y);
    dim3 grid((src->width + block.x - 1) / block.x, (src->height + block.y - 1) / block.y);
    invert_naive_kernel<<<grid, block, 0, stream>>>(*src, *dst);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}

static const fv_variant invert_variants[] = {
    {.name = "naive",
     .role = FV_ROLE_FASTEST,
     .summary = "one thread per pixel: 255 - value is an XOR of the colour bytes",
     .run = invert_naive_run,
     .kernels = invert_naive_kernels},
    FV_VARIANT_CPU,
};

extern "C" const fv_filter fv_filter_invert = {
    .name = "invert",
    .summary = "colour negative (255 - value), alpha kept",
    .ref = invert_ref,
    .variants = invert_variants,
    .n_variants = (int)(sizeof invert_variants / sizeof invert_variants[0]),
    .baseline = "naive",
    .tolerance = {0, 0.0},
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = FV_MAX_ITERATIONS,
};
