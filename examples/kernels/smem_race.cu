/* smem_race.cu: an exercise: find the bug. A shared-memory Gaussian blur missing a barrier.
 *
 * What it teaches: threads of a block do not run in step. This kernel loads the block's tile
 * into shared memory, then every thread reads pixels that OTHER threads loaded; without a
 * __syncthreads() in between, some threads read their neighbours' pixels before they are
 * written. The result is mostly right, which is what makes the bug dangerous: look at
 * |A-B| against the reference (key d) and zoom in: wrong pixels come and go from frame to frame
 * along tile borders. Then let the tool find it:
 *     compute-sanitizer --tool racecheck filterview photo.png -o out.png -f gaussian \
 *         -v user=examples/kernels/smem_race.cu
 * reports the hazard between the write in load_tile and the read in fv_pass, with their lines.
 * Fix it, and the difference is 0 (compare with gaussian_smem.cu).
 */
#include "filterview.h"

#define BLOCK 16

FV_LAUNCH(p, pass)
{
    fv_launch l = fv_launch_block(BLOCK, BLOCK);
    const int tile_w = BLOCK + 2 * p.radius;
    l.smem_bytes = tile_w * tile_w * sizeof(uchar4);
    return l;
}

static __device__ void load_tile(const fv_image &src, uchar4 *tile, int x0, int y0, int tile_w)
{
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    for (int idx = tid; idx < tile_w * tile_w; idx += blockDim.x * blockDim.y) {
        const int ty = idx / tile_w, tx = idx - ty * tile_w;
        tile[idx] = fv_pixel_clamped(src, x0 + tx, y0 + ty);
    }
}

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    extern __shared__ uchar4 tile[];
    const int r = p.radius;
    const int tile_w = BLOCK + 2 * r;
    load_tile(src, tile, blockIdx.x * BLOCK - r, blockIdx.y * BLOCK - r, tile_w);

    const int x = blockIdx.x * BLOCK + threadIdx.x;
    const int y = blockIdx.y * BLOCK + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    float sr = 32768.f, sg = 32768.f, sb = 32768.f;
    for (int i = 0; i <= 2 * r; i++)
        for (int j = 0; j <= 2 * r; j++) {
            const uchar4 px = tile[(threadIdx.y + i) * tile_w + threadIdx.x + j];
            const float w = p.taps_pad[i + 1] * p.taps_pad[j + 1];
            sr = fmaf(w, px.x, sr);
            sg = fmaf(w, px.y, sg);
            sb = fmaf(w, px.z, sb);
        }
    fv_row_out(dst, y)[x] =
        make_uchar4((unsigned char)(__float2uint_rz(sr) >> 16),
                    (unsigned char)(__float2uint_rz(sg) >> 16),
                    (unsigned char)(__float2uint_rz(sb) >> 16), fv_row(src, y)[x].w);
}
