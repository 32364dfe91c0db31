/* median_slow.cu: an exercise: make a correct median filter fast.
 *
 * What it teaches: correctness first, then speed, with the reference as the safety net. This
 * kernel is right (|A-B| against the reference is 0) and slow: for each pixel and each channel
 * it copies the size x size window into an array and sorts all of it, although only the middle
 * element is wanted. Time it against the built-in variants (key t: the bar chart), then try,
 * one at a time, checking the difference stays 0:
 *   - sort the three channels together (one pass over the window, three arrays);
 *   - stop the sort half way: a selection of the (n-1)/2 smallest is enough;
 *   - stage the block's tile in shared memory (see gaussian_smem.cu);
 *   - a 256-bin histogram per channel and a count up to the middle, instead of sorting;
 *   - for small sizes, a sorting network in registers (the built-in `fast` does this).
 * The window is at most 25 x 25 = 625 values; the local array lives in local memory, which is
 * part of why this is slow.
 */
#include "filterview.h"

#define MAX_WINDOW (25 * 25)

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= src.width || y >= src.height) return;
    const int k = p.size, r = k / 2, n = k * k;
    unsigned char v[MAX_WINDOW];
    unsigned char out[3];
    for (int c = 0; c < 3; c++) {
        int m = 0;
        for (int i = -r; i <= r; i++)
            for (int j = -r; j <= r; j++) {
                const uchar4 px = fv_pixel_clamped(src, x + j, y + i);
                v[m++] = c == 0 ? px.x : c == 1 ? px.y : px.z;
            }
        for (int a = 1; a < n; a++) { /* insertion sort of the whole window */
            const unsigned char key = v[a];
            int b = a - 1;
            while (b >= 0 && v[b] > key) {
                v[b + 1] = v[b];
                b--;
            }
            v[b + 1] = key;
        }
        out[c] = v[(n - 1) / 2];
    }
    fv_row_out(dst, y)[x] = make_uchar4(out[0], out[1], out[2], fv_row(src, y)[x].w);
}
