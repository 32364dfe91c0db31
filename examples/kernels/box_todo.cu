/* box_todo.cu: an exercise: finish the box (mean) filter.
 *
 * What it teaches: writing a stencil from its definition and checking it against the reference.
 * The box filter's output is the rounded mean of the (2r+1) x (2r+1) window around each pixel:
 *     out = (sum + area / 2) / area per channel R, G, B, area = (2r+1)^2, alpha kept,
 * with replicated borders. As given, the kernel compiles and runs, but it only averages the
 * pixel's own row: the picture is smeared sideways, and |A-B| against the reference (key d in
 * the viewer) lights up everywhere. Do the TODO below until the difference is 0 for every radius
 * (s/S change it), including at the image's borders.
 * Run it:  filterview photo.png -a box:user=examples/kernels/box_todo.cu
 */
#include "filterview.h"

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int r = p.radius;
    unsigned int sr = 0, sg = 0, sb = 0;
    /* TODO: this sums one row of the window only. Add a loop over the rows y - r .. y + r around
     * this one (clamped with fv_clamp, or read with fv_pixel_clamped), and divide by the area of
     * the whole window, (2r+1) * (2r+1), instead of 2r+1. */
    const uchar4 *row = fv_row(src, y);
    for (int j = -r; j <= r; j++) {
        const uchar4 px = row[fv_clamp(x + j, src.width - 1)];
        sr += px.x;
        sg += px.y;
        sb += px.z;
    }
    const unsigned int area = 2 * r + 1;
    fv_row_out(dst, y)[x] =
        make_uchar4((unsigned char)((sr + area / 2) / area), (unsigned char)((sg + area / 2) / area),
                    (unsigned char)((sb + area / 2) / area), row[x].w);
}
