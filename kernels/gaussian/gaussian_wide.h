/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_wide.h: the tensor-core path of the Gaussian's `fast` variant for wide stencils
 * (kernels/gaussian/gaussian_wide.cu), called by gaussian_fast_run in kernels/gaussian/gaussian.cu. Same bytes as
 * gaussian_ref; it needs sm_80 or later and taps that fit 8 bits (every tap < 256).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_GAUSSIAN_WIDE_H
#define FV_GAUSSIAN_WIDE_H

#include "filter.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From this radius on, `fast` runs on tensor cores; below it the packed-integer kernel is near
 * memory speed already. Override with -DGAUSSIAN_WIDE_MIN_RADIUS=N when measuring. */
#ifndef GAUSSIAN_WIDE_MIN_RADIUS
#define GAUSSIAN_WIDE_MIN_RADIUS 5
#endif

/* 1 when the wide path serves these weights (w[0..2 radius]) on the current device: radius at
 * least GAUSSIAN_WIDE_MIN_RADIUS, every tap below 256 (a tiny sigma with a given wide radius puts
 * all 256 on the centre), compute capability 8.0 or later. */
bool gaussian_wide_applies(const int *taps, int radius);
/* 1 when the rows of this device image lie within 4 GiB of its first, so 32-bit offsets address
 * them (the wide path's loads); larger images take the packed-integer kernel. */
bool gaussian_wide_addresses(const fv_image *img);
/* One pass from src to dst (device images of the same size, never aliased) on `stream`. */
fv_status gaussian_wide_launch(const fv_image *src, fv_image *dst, const int *taps, int radius,
                               cudaStream_t stream);
/* What gaussian_wide_launch launches for this radius (for the resources report). */
fv_kernel_info gaussian_wide_kernel_info(int radius);

#ifdef __cplusplus
}
#endif
#endif
