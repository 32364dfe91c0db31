/* faulty_oob.cu: a user kernel that writes out of bounds: its row is y * width where it should be
 * y (an index into pixels taken for an index into rows), and no test guards the store, so every
 * row but the first lands up to width x height rows past the end of the image. The GPU stops it
 * with an illegal address error; the viewer says so and exits 1 (CUDA cannot go on in a process
 * after a fault). compute-sanitizer --tool memcheck names the line. */
#include "filterview.h"

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    fv_row_out(dst, y * src.width)[x] = fv_row(src, y)[x]; /* wrong: y * width rows down */
}
