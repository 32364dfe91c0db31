/* ------------------------------------------------------------------------------------------------
 * kernels/api/api_pack.cu: the library's channel conversions on the device. The filters work on
 * 4 channels; a caller's gray (1 channel) or RGB (3) image is widened into the context's buffer
 * before the run (gray to g,g,g,opaque; RGB to r,g,b,opaque) and narrowed back after it (gray
 * takes R). One kernel pair templated on the pixel type; rows at any pitch, on the caller's
 * stream; also a copy for 4 channels whose rows do not suit the kernels.
 * ------------------------------------------------------------------------------------------------ */
#include "api_pack.h"

#define PACK_BLOCK_X 32
#define PACK_BLOCK_Y 8

template <typename T> __device__ __forceinline__ T opaque();
template <> __device__ __forceinline__ uint8_t opaque<uint8_t>()
{
    return 255;
}
template <> __device__ __forceinline__ uint16_t opaque<uint16_t>()
{
    return 65535;
}
template <> __device__ __forceinline__ float opaque<float>()
{
    return 1.0f;
}

template <typename T> static __global__ void widen_kernel(fv_image from, int channels, fv_image to)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= to.width || y >= to.height) return;
    const T *s =
        reinterpret_cast<const T *>(from.data + (size_t)y * from.pitch) + (size_t)x * channels;
    T *d = reinterpret_cast<T *>(to.data + (size_t)y * to.pitch) + (size_t)x * 4;
    const T r = s[0];
    d[0] = r;
    d[1] = channels == 1 ? r : s[1];
    d[2] = channels == 1 ? r : s[2];
    d[3] = channels == 4 ? s[3] : opaque<T>();
}

template <typename T> static __global__ void narrow_kernel(fv_image from, fv_image to, int channels)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= from.width || y >= from.height) return;
    const T *s = reinterpret_cast<const T *>(from.data + (size_t)y * from.pitch) + (size_t)x * 4;
    T *d = reinterpret_cast<T *>(to.data + (size_t)y * to.pitch) + (size_t)x * channels;
    for (int c = 0; c < channels; c++) d[c] = s[c];
}

static dim3 grid_for(int width, int height, dim3 block)
{
    return dim3((unsigned)(width + block.x - 1) / block.x,
                (unsigned)(height + block.y - 1) / block.y);
}

static fv_status launched(const char *what)
{
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess
               ? FV_OK
               : fv_fail(FV_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(err));
}

extern "C" fv_status fv_api_widen(const fv_image *from, fv_image *to, cudaStream_t stream)
{
    const dim3 block(PACK_BLOCK_X, PACK_BLOCK_Y), grid = grid_for(to->width, to->height, block);
    const int channels = fv_image_channels(from);
    switch (to->type) {
    case FV_PIXEL_U16:
        widen_kernel<uint16_t><<<grid, block, 0, stream>>>(*from, channels, *to);
        break;
    case FV_PIXEL_F32: widen_kernel<float><<<grid, block, 0, stream>>>(*from, channels, *to); break;
    default: widen_kernel<uint8_t><<<grid, block, 0, stream>>>(*from, channels, *to); break;
    }
    return launched("widening the image to 4 channels");
}

extern "C" fv_status fv_api_narrow(const fv_image *from, fv_image *to, cudaStream_t stream)
{
    const dim3 block(PACK_BLOCK_X, PACK_BLOCK_Y), grid = grid_for(from->width, from->height, block);
    const int channels = fv_image_channels(to);
    switch (from->type) {
    case FV_PIXEL_U16:
        narrow_kernel<uint16_t><<<grid, block, 0, stream>>>(*from, *to, channels);
        break;
    case FV_PIXEL_F32:
        narrow_kernel<float><<<grid, block, 0, stream>>>(*from, *to, channels);
        break;
    default: narrow_kernel<uint8_t><<<grid, block, 0, stream>>>(*from, *to, channels); break;
    }
    return launched("narrowing the result");
}
