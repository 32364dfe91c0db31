/* gaussian_separable.cu: the Gaussian blur in two passes, columns then rows, exact integers.
 *
 * What it teaches: a separable filter costs 2(2r+1) taps per pixel instead of (2r+1)^2. Pass 1
 * (fv_pass1) sums each pixel's column of 2r+1 source pixels with the 1-D taps into the scratch
 * image (one uint4 per pixel: R, G, B sums and the pixel's alpha); pass 2 (fv_pass2) sums 2r+1
 * of those along the row and rounds. The 2-D weight of (i, j) is taps[i] * taps[j], every sum
 * is an exact integer, so the result equals the reference bit for bit, whichever order. The
 * price: the scratch image goes through memory once more. Compare its time with naive's as r
 * grows (s/S change sigma).
 */
#include "filterview.h"

__global__ void fv_pass1(const fv_image src, const fv_scratch scratch, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int r = p.radius;
    unsigned int sr = 0, sg = 0, sb = 0; /* at most 255 * 256 */
    for (int i = -r; i <= r; i++) {
        const uchar4 px = fv_pixel_clamped(src, x, y + i);
        const unsigned int w = p.taps[r + i];
        sr += w * px.x;
        sg += w * px.y;
        sb += w * px.z;
    }
    fv_scratch_row(scratch, y)[x] = make_uint4(sr, sg, sb, fv_row(src, y)[x].w);
}

__global__ void fv_pass2(const fv_scratch scratch, const fv_image src, const fv_image dst,
                         const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int r = p.radius;
    const uint4 *row = fv_scratch_row(scratch, y);
    unsigned int sr = 32768, sg = 32768, sb = 32768; /* +0.5 before the >> 16 */
    for (int j = -r; j <= r; j++) {
        const uint4 c = row[fv_clamp(x + j, src.width - 1)];
        const unsigned int w = p.taps[r + j];
        sr += w * c.x;
        sg += w * c.y;
        sb += w * c.z;
    }
    fv_row_out(dst, y)[x] = make_uchar4((unsigned char)(sr >> 16), (unsigned char)(sg >> 16),
                                        (unsigned char)(sb >> 16), (unsigned char)row[x].w);
}
