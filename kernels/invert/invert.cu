/* ------------------------------------------------------------------------------------------------
 * kernels/invert/invert.cu: invert, the smallest filter: max - value per colour channel (uint8
 * 255 - v, uint16 65535 - v, float32 1 - v), alpha passed through. It reads no neighbour, so it
 * has no border parameter. One GPU variant (one thread per pixel, every type) plus the `cpu`
 * reference (kernels/invert/invert_ref.c); bit-exact for every type, checked by
 * tests/gpu/test_filters.c.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "invert.h"
#include "invert_gpu.h"

#define INVERT_BLOCK_X 32
#define INVERT_BLOCK_Y 8

/* A pixel of channel type T read and written as one word: the integer types invert their colour
 * channels with one XOR (max - v == v ^ max for max = 2^k - 1), float with three subtractions. */
template <typename T> struct invert_pixel;
template <> struct invert_pixel<uint8_t> {
    typedef uint32_t word;
    static __device__ word flip(word px) { return px ^ 0x00ffffffu; }
};
template <> struct invert_pixel<uint16_t> {
    typedef unsigned long long word;
    static __device__ word flip(word px) { return px ^ 0x0000ffffffffffffull; }
};
template <> struct invert_pixel<float> {
    typedef float4 word;
    static __device__ word flip(word px)
    {
        return make_float4(1.0f - px.x, 1.0f - px.y, 1.0f - px.z, px.w);
    }
};

/* One word per pixel: rows and the base on the word's alignment (cudaMallocPitch's always are). */
template <typename T> __global__ void invert_naive_kernel(fv_image src, fv_image dst)
{
    typedef typename invert_pixel<T>::word word;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const word px = reinterpret_cast<const word *>(src.data + (size_t)y * src.pitch)[x];
    reinterpret_cast<word *>(dst.data + (size_t)y * dst.pitch)[x] = invert_pixel<T>::flip(px);
}

/* The same a channel at a time, for uint16 and float32 images whose rows are on 4-byte
 * boundaries only (a caller's own buffer; the registry guarantees no more). */
template <typename T> __global__ void invert_channels_kernel(fv_image src, fv_image dst, T top)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const T *in = reinterpret_cast<const T *>(src.data + (size_t)y * src.pitch) + 4 * x;
    T *out = reinterpret_cast<T *>(dst.data + (size_t)y * dst.pitch) + 4 * x;
    for (int c = 0; c < 3; c++) out[c] = (T)(top - in[c]);
    out[3] = in[3];
}

int invert_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                         fv_kernel_info *out, int max)
{
    (void)v, (void)p;
    if (max < 1) return 0;
    const int threads = INVERT_BLOCK_X * INVERT_BLOCK_Y;
    switch (((const invert_config *)config)->type) {
    case FV_PIXEL_U16:
        out[0] = {"invert_naive_kernel<uint16>", (const void *)invert_naive_kernel<uint16_t>,
                  threads, 0};
        break;
    case FV_PIXEL_F32:
        out[0] = {"invert_naive_kernel<float>", (const void *)invert_naive_kernel<float>, threads,
                  0};
        break;
    case FV_PIXEL_U8:
    default:
        out[0] = {"invert_naive_kernel", (const void *)invert_naive_kernel<uint8_t>, threads, 0};
        break;
    }
    return 1;
}

/* The word kernel where the rows allow it, else the channel one. */
template <typename T>
static void invert_launch(const fv_image *src, fv_image *dst, T top, dim3 grid, dim3 block,
                          cudaStream_t stream)
{
    const size_t word = sizeof(typename invert_pixel<T>::word);
    const uintptr_t bits = (uintptr_t)src->data | src->pitch | (uintptr_t)dst->data | dst->pitch;
    if (bits % word == 0)
        invert_naive_kernel<T><<<grid, block, 0, stream>>>(*src, *dst);
    else
        invert_channels_kernel<T><<<grid, block, 0, stream>>>(*src, *dst, top);
}

fv_status invert_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream)
{
    (void)v;
    (void)state;
    dim3 block(INVERT_BLOCK_X, INVERT_BLOCK_Y);
    dim3 grid((src->width + block.x - 1) / block.x, (src->height + block.y - 1) / block.y);
    switch (((const invert_config *)config)->type) {
    case FV_PIXEL_U16: invert_launch<uint16_t>(src, dst, 65535, grid, block, stream); break;
    case FV_PIXEL_F32: invert_launch<float>(src, dst, 1.0f, grid, block, stream); break;
    case FV_PIXEL_U8:
    default:
        /* rows are on 4-byte boundaries (the registry checks): always the word kernel */
        invert_naive_kernel<uint8_t><<<grid, block, 0, stream>>>(*src, *dst);
        break;
    }
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}
