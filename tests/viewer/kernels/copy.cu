/* copy.cu: a user kernel that copies its source (the pane shows the original), for the viewer's
 * tests: replaced by a Gaussian through a replayed save, the screenshot shows which one ran. */
#include "filterview.h"

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    fv_row_out(dst, y)[x] = fv_row(src, y)[x];
}
