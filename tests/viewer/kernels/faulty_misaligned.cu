/* faulty_misaligned.cu: a user kernel that stores a 4-byte pixel at an address that is not a
 * multiple of 4 (one byte into the row): the GPU stops it with a misaligned address error; the
 * viewer says so and exits 1 (CUDA cannot go on in a process after a fault). */
#include "filterview.h"

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    uchar4 *out = (uchar4 *)(dst.data + (size_t)y * dst.pitch + 1); /* wrong: 1 byte in */
    out[x] = fv_row(src, y)[x];
}
