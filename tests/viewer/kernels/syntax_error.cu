/* syntax_error.cu: a user kernel that does not compile (a missing ';' on line 10), for the
 * viewer's tests: the error is said once on stderr and in the HUD, with its line, and the pane
 * shows what it can until the file is saved again. */
#include "filterview.h"

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y
    if (x >= src.width || y >= src.height) return;
    fv_row_out(dst, y)[x] = fv_row(src, y)[x];
}
