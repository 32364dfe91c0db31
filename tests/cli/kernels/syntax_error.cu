// tests/cli/kernels/syntax_error.cu: a user kernel with a missing semicolon on line 8, for the
// command line's compile-error case (one line "syntax_error.cu:8: ...", exit 1).
#include "filterview.h"

extern "C" __global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    fv_row_out(dst, y)[x] = fv_row(src, y)[x];
}
