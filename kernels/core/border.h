/* ------------------------------------------------------------------------------------------------
 * kernels/core/border.h: the one index mapping of the borders (fv_border), for the C references
 * and the CUDA kernels alike: fv_border_index(i, n, mode) says which of the n pixels of a row or
 * column position i (any integer, however far outside) reads, or -1 for the constant border
 * (the caller then reads cval). As OpenCV's border_interpolate.hpp does it, one small function
 * per mode; the fast kernels call fv_border_replicate directly.
 *
 * The modes are periodic however far outside i lies, as scipy.ndimage's are (a 25x25 median on a
 * 3-pixel-wide image reads each pixel several times): reflect has period 2n, mirror 2n - 2 (a
 * single pixel mirrors onto itself), wrap n. Checked against scipy.ndimage's own extension by
 * tests/cpu/test_border.c (hand tables, numpy.pad's) and the references against scipy.ndimage.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BORDER_H
#define FV_BORDER_H

#include "filter.h"

#ifdef __CUDACC__
#define FV_BORDER_FN static __host__ __device__ __forceinline__
#else
#define FV_BORDER_FN static inline
#endif

/* i mod n in 0..n-1 for any i (C's % keeps the dividend's sign). */
FV_BORDER_FN int fv_border_mod(int i, int n)
{
    const int m = i % n;
    return m < 0 ? m + n : m;
}

FV_BORDER_FN int fv_border_replicate(int i, int n)
{
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/* cba|abcd|dcb: period 2n, the edge pixel repeated. */
FV_BORDER_FN int fv_border_reflect(int i, int n)
{
    const int m = fv_border_mod(i, 2 * n);
    return m < n ? m : 2 * n - 1 - m;
}

/* dcb|abcd|cba: period 2n - 2, the edge pixel not repeated; one pixel is its own mirror. */
FV_BORDER_FN int fv_border_mirror(int i, int n)
{
    if (n == 1) return 0;
    const int m = fv_border_mod(i, 2 * n - 2);
    return m < n ? m : 2 * n - 2 - m;
}

FV_BORDER_FN int fv_border_wrap(int i, int n)
{
    return fv_border_mod(i, n);
}

/* The index that position i of n reads under `mode`, or -1 for the constant. */
FV_BORDER_FN int fv_border_index(int i, int n, fv_border mode)
{
    if (i >= 0 && i < n) return i; /* the inside: every mode's common case, first */
    switch (mode) {
    case FV_BORDER_REFLECT: return fv_border_reflect(i, n);
    case FV_BORDER_MIRROR: return fv_border_mirror(i, n);
    case FV_BORDER_CONSTANT: return -1;
    case FV_BORDER_WRAP: return fv_border_wrap(i, n);
    case FV_BORDER_REPLICATE:
    default: return fv_border_replicate(i, n);
    }
}

#endif
