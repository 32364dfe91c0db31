/* gaussian_smem.cu: the Gaussian blur with the block's tile staged in shared memory.
 *
 * What it teaches: a 16 x 16 block needs a (16 + 2r)^2 region of the image (its tile plus an
 * apron of r pixels each side); loading it once into shared memory, then reading every tap from
 * there, replaces (2r+1)^2 global loads per pixel by about one. The __syncthreads() between the
 * load and the sums is what makes it correct (see smem_race.cu for what happens without it).
 * Dynamic shared memory depends on the radius, so FV_LAUNCH computes it from p. This is the
 * built-in variant `smem`: equal to it and to the reference, bit for bit.
 */
#include "filterview.h"

#define BLOCK 16

FV_LAUNCH(p, pass)
{
    fv_launch l = fv_launch_block(BLOCK, BLOCK);
    const int tile_w = BLOCK + 2 * p.radius; /* +2r: apron of r pixels on each side */
    l.smem_bytes = tile_w * tile_w * sizeof(uchar4);
    return l;
}

/* Cooperative load of the tile_w x tile_h region from (x0, y0), clamped to the image. */
static __device__ __forceinline__ void load_tile(const fv_image &src, uchar4 *tile, int x0, int y0,
                                                 int tile_w, int tile_h)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int n_threads = blockDim.x * blockDim.y;
    for (int idx = tid; idx < tile_w * tile_h; idx += n_threads) {
        const int ty = idx / tile_w, tx = idx - ty * tile_w;
        tile[idx] = fv_pixel_clamped(src, x0 + tx, y0 + ty);
    }
    __syncthreads(); /* every thread reads pixels other threads loaded */
}

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    extern __shared__ uchar4 tile[];
    const int r = p.radius;
    const int tile_w = BLOCK + 2 * r;
    load_tile(src, tile, blockIdx.x * BLOCK - r, blockIdx.y * BLOCK - r, tile_w, tile_w);

    const int x = blockIdx.x * BLOCK + threadIdx.x;
    const int y = blockIdx.y * BLOCK + threadIdx.y;
    if (x >= src.width || y >= src.height) return; /* after the load: all threads helped */
    float sr = 32768.f, sg = 32768.f, sb = 32768.f;
    for (int i = 0; i <= 2 * r; i++) {
        const uchar4 *row = tile + (threadIdx.y + i) * tile_w + threadIdx.x;
        const float wi = p.taps_pad[i + 1];
        for (int j = 0; j <= 2 * r; j++) {
            const uchar4 px = row[j];
            const float wij = wi * p.taps_pad[j + 1];
            sr = fmaf(wij, px.x, sr);
            sg = fmaf(wij, px.y, sg);
            sb = fmaf(wij, px.z, sb);
        }
    }
    const unsigned char alpha = tile[(threadIdx.y + r) * tile_w + threadIdx.x + r].w;
    fv_row_out(dst, y)[x] =
        make_uchar4((unsigned char)(__float2uint_rz(sr) >> 16),
                    (unsigned char)(__float2uint_rz(sg) >> 16),
                    (unsigned char)(__float2uint_rz(sb) >> 16), alpha);
}
