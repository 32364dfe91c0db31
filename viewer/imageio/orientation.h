/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/orientation.h: where EXIF orientation o (1..8) sends pixel (x, y) of a w x h
 * image, for the CPU codec's turn in place (jpeg.c) and the GPU codec's kernel (jpeg_gpu.cu)
 * alike, so that both turn a photo the same way. 5..8 swap width and height.
 * Checked by tests/cpu/test_image_io.c (every orientation) and tests/gpu/jpeg_gpu_check.c.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_ORIENTATION_H
#define FV_ORIENTATION_H

#ifdef __CUDACC__
#define ORIENT_FN static inline __host__ __device__
#else
#define ORIENT_FN static inline
#endif

ORIENT_FN void orient_map(int o, int w, int h, int x, int y, int *dx, int *dy)
{
    switch (o) {
    case 2:
        *dx = w - 1 - x;
        *dy = y;
        break;
    case 3:
        *dx = w - 1 - x;
        *dy = h - 1 - y;
        break;
    case 4:
        *dx = x;
        *dy = h - 1 - y;
        break;
    case 5:
        *dx = y;
        *dy = x;
        break; /* transpose */
    case 6:
        *dx = h - 1 - y;
        *dy = x;
        break; /* a quarter turn clockwise */
    case 7:
        *dx = h - 1 - y;
        *dy = w - 1 - x;
        break; /* transverse */
    case 8:
        *dx = y;
        *dy = w - 1 - x;
        break; /* a quarter turn back */
    default:
        *dx = x;
        *dy = y;
        break; /* 1: as stored */
    }
}

#endif
