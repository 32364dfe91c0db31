/* gaussian_naive.cu: the Gaussian blur, one thread per pixel, every tap read from global memory.
 *
 * What it teaches: the shape of an image kernel (one thread per output pixel, a bounds test,
 * replicated borders with fv_clamp) and the integer taps that make it exact. It is the built-in
 * variant `naive` written as your own file: same block (32 x 8), same arithmetic in the same
 * order, so `|A-B|` against naive and against the reference is 0 everywhere, and its time is
 * naive's. Run it:  filterview photo.png -a gaussian:user=examples/kernels/gaussian_naive.cu
 * Then read gaussian_smem.cu, which keeps the same sums but reads each pixel once per block.
 */
#include "filterview.h"

/* the built-in naive variant's block: 32 x 8 threads, one pixel each */
FV_LAUNCH(p, pass)
{
    return fv_launch_block(32, 8);
}

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return; /* the last blocks overhang the image */
    const int r = p.radius;
    /* 32768 = 0.5 in 16.16 fixed point: (sum + 0.5) >> 16 rounds half up, as the reference */
    float sr = 32768.f, sg = 32768.f, sb = 32768.f;
    for (int i = -r; i <= r; i++) {
        const uchar4 *row = fv_row(src, fv_clamp(y + i, src.height - 1));
        const float wi = p.taps_pad[r + i + 1];
        for (int j = -r; j <= r; j++) {
            const uchar4 px = row[fv_clamp(x + j, src.width - 1)];
            const float wij = wi * p.taps_pad[r + j + 1]; /* exact: at most 65536 */
            sr = fmaf(wij, px.x, sr);
            sg = fmaf(wij, px.y, sg);
            sb = fmaf(wij, px.z, sb);
        }
    }
    const unsigned char alpha = fv_row(src, y)[x].w; /* alpha is kept */
    fv_row_out(dst, y)[x] =
        make_uchar4((unsigned char)(__float2uint_rz(sr) >> 16),
                    (unsigned char)(__float2uint_rz(sg) >> 16),
                    (unsigned char)(__float2uint_rz(sb) >> 16), alpha);
}
