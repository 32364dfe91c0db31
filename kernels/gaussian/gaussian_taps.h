/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_taps.h: the integer Gaussian weights that make every variant bit-exact.
 *
 * 1-D weights w[-r..r] are non-negative integers, symmetric, summing to exactly 256; the 2-D
 * weight of tap (i, j) is w[i] * w[j] (sum 65536). For 8-bit inputs every partial sum of
 * w[i] * w[j] * pixel stays <= 255 * 65536 < 2^24, so float arithmetic on these values is exact
 * in any order, and separable (rows then columns) equals the direct 2-D sum. Each output channel
 * is (sum + 32768) >> 16: round half up, never above 255. uint16 uses the same integers in 32
 * bits: 65535 * 65536 + 32768 = 4294934528 < 2^32. float32 uses w / 256 per axis (exact in
 * float), so its result means the same sum / 65536, unrounded.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_GAUSSIAN_TAPS_H
#define FV_GAUSSIAN_TAPS_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* indices in the Gaussian's parameter table (border and cval: FV_PARAM_BORDER_ROWS) */
enum { GAUSSIAN_SIGMA, GAUSSIAN_RADIUS, GAUSSIAN_BORDER, GAUSSIAN_CVAL, GAUSSIAN_N_PARAMS };
#define FV_GAUSSIAN_MAX_RADIUS 32
#define FV_GAUSSIAN_MAX_SIGMA  10.66 /* ceil(3 sigma) <= 32 */
#define FV_GAUSSIAN_WEIGHT_SUM 256

typedef struct fv_gaussian_taps {
    int radius;
    int w[2 * FV_GAUSSIAN_MAX_RADIUS + 1]; /* w[radius + k] is the weight of offset k */
} fv_gaussian_taps;

/* Validates sigma/radius (a clear message on failure) and fills the weights; radius 0 means
 * ceil(3 sigma). */
fv_status fv_gaussian_taps_make(const fv_params *p, fv_gaussian_taps *t);
/* The radius the weights use: the given one, or ceil(3 sigma) for 0. */
int fv_gaussian_radius(const fv_params *p);
/* The Gaussian's own parameter checks and derived values, for its descriptor. */
fv_status gaussian_check(const fv_params *p);
void gaussian_resolve(fv_params *p);
fv_status gaussian_ref(const fv_image *src, fv_image *dst, const fv_params *p);

#ifdef __cplusplus
}
#endif
#endif
