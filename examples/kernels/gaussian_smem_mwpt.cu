/* gaussian_smem_mwpt.cu: shared-memory tile, each thread computes 2 x 2 pixels.
 *
 * What it teaches: more work per thread. Each pixel read from shared memory is a tap of four
 * neighbouring outputs, so one read feeds four multiply-adds, and the tile's apron is shared by
 * four times as many outputs. taps_pad has a zero on each side, so the taps that fall outside an
 * output's window cost no test: they add 0. FV_LAUNCH says 2 x 2 pixels per thread, so the grid
 * has a quarter of the blocks. This is the built-in variant `smem_mwpt`, bit for bit.
 */
#include "filterview.h"

#define BLOCK 16

FV_LAUNCH(p, pass)
{
    fv_launch l = fv_launch_block(BLOCK, BLOCK);
    l.pixels_x = l.pixels_y = 2;
    const int tile_w = 2 * BLOCK + 2 * p.radius; /* 2x2 pixels per thread, +2r apron */
    l.smem_bytes = tile_w * tile_w * sizeof(uchar4);
    return l;
}

static __device__ __forceinline__ void load_tile(const fv_image &src, uchar4 *tile, int x0, int y0,
                                                 int tile_w, int tile_h)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int n_threads = blockDim.x * blockDim.y;
    for (int idx = tid; idx < tile_w * tile_h; idx += n_threads) {
        const int ty = idx / tile_w, tx = idx - ty * tile_w;
        tile[idx] = fv_pixel_clamped(src, x0 + tx, y0 + ty);
    }
    __syncthreads();
}

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    extern __shared__ uchar4 tile[];
    const int r = p.radius;
    const int tile_w = 2 * BLOCK + 2 * r;
    load_tile(src, tile, blockIdx.x * 2 * BLOCK - r, blockIdx.y * 2 * BLOCK - r, tile_w, tile_w);

    /* output (dy, dx) uses shared pixel (i, j) with the weight of tap (i - dy, j - dx) */
    float acc[2][2][3];
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int dx = 0; dx < 2; dx++)
#pragma unroll
            for (int c = 0; c < 3; c++) acc[dy][dx][c] = 32768.f;
    const uchar4 *corner = tile + 2 * threadIdx.y * tile_w + 2 * threadIdx.x;
    for (int i = 0; i <= 2 * r + 1; i++) {
        const float wy0 = p.taps_pad[i + 1], wy1 = p.taps_pad[i];
        for (int j = 0; j <= 2 * r + 1; j++) {
            const uchar4 px = corner[i * tile_w + j];
            const float wx0 = p.taps_pad[j + 1], wx1 = p.taps_pad[j];
            const float w[2][2] = {{wy0 * wx0, wy0 * wx1}, {wy1 * wx0, wy1 * wx1}};
#pragma unroll
            for (int dy = 0; dy < 2; dy++)
#pragma unroll
                for (int dx = 0; dx < 2; dx++) {
                    acc[dy][dx][0] = fmaf(w[dy][dx], px.x, acc[dy][dx][0]);
                    acc[dy][dx][1] = fmaf(w[dy][dx], px.y, acc[dy][dx][1]);
                    acc[dy][dx][2] = fmaf(w[dy][dx], px.z, acc[dy][dx][2]);
                }
        }
    }
#pragma unroll
    for (int dy = 0; dy < 2; dy++)
#pragma unroll
        for (int dx = 0; dx < 2; dx++) {
            const int x = (blockIdx.x * BLOCK + threadIdx.x) * 2 + dx;
            const int y = (blockIdx.y * BLOCK + threadIdx.y) * 2 + dy;
            if (x >= src.width || y >= src.height) continue;
            const unsigned char alpha = corner[(r + dy) * tile_w + r + dx].w;
            fv_row_out(dst, y)[x] =
                make_uchar4((unsigned char)(__float2uint_rz(acc[dy][dx][0]) >> 16),
                            (unsigned char)(__float2uint_rz(acc[dy][dx][1]) >> 16),
                            (unsigned char)(__float2uint_rz(acc[dy][dx][2]) >> 16), alpha);
        }
}
