/* ------------------------------------------------------------------------------------------------
 * kernels/api/api_pack.cu: the library's channel conversions on the device. The filters work on
 * RGBA8; a caller's gray (1 channel) or RGB (3) image is widened into the context's RGBA buffer
 * before the run (gray to g,g,g,255; RGB to r,g,b,255) and narrowed back after it (gray takes
 * R). Rows at any pitch, on the caller's stream; a copy for 4 channels whose rows do not suit
 * the kernels (not on 4-byte boundaries).
 * ------------------------------------------------------------------------------------------------ */
#include "api_pack.h"

static __global__ void widen_kernel(const uint8_t *src, size_t src_pitch, int channels,
                                    fv_image dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.width || y >= dst.height) return;
    const uint8_t *s = src + (size_t)y * src_pitch + (size_t)x * channels;
    uchar4 v;
    if (channels == 1)
        v = make_uchar4(s[0], s[0], s[0], 255);
    else if (channels == 3)
        v = make_uchar4(s[0], s[1], s[2], 255);
    else
        v = make_uchar4(s[0], s[1], s[2], s[3]);
    reinterpret_cast<uchar4 *>(dst.data + (size_t)y * dst.pitch)[x] = v;
}

static __global__ void narrow_kernel(fv_image src, uint8_t *dst, size_t dst_pitch, int channels)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const uchar4 v = reinterpret_cast<const uchar4 *>(src.data + (size_t)y * src.pitch)[x];
    uint8_t *d = dst + (size_t)y * dst_pitch + (size_t)x * channels;
    d[0] = v.x;
    if (channels == 1) return;
    d[1] = v.y;
    d[2] = v.z;
    if (channels == 4) d[3] = v.w;
}

static dim3 grid_for(int width, int height, dim3 block)
{
    return dim3((unsigned)(width + block.x - 1) / block.x, (unsigned)(height + block.y - 1) / block.y);
}

extern "C" fv_status fv_api_widen(const uint8_t *src, size_t src_pitch, int channels, fv_image *dst,
                                  cudaStream_t stream)
{
    const dim3 block(32, 8);
    widen_kernel<<<grid_for(dst->width, dst->height, block), block, 0, stream>>>(src, src_pitch,
                                                                               channels, *dst);
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? FV_OK
                              : fv_fail(FV_ERR_CUDA, "widening the image to RGBA failed: %s",
                                        cudaGetErrorString(err));
}

extern "C" fv_status fv_api_narrow(const fv_image *src, uint8_t *dst, size_t dst_pitch,
                                   int channels, cudaStream_t stream)
{
    const dim3 block(32, 8);
    narrow_kernel<<<grid_for(src->width, src->height, block), block, 0, stream>>>(*src, dst,
                                                                                dst_pitch, channels);
    const cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? FV_OK
                              : fv_fail(FV_ERR_CUDA, "narrowing the result from RGBA failed: %s",
                                        cudaGetErrorString(err));
}
