/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian_taps.h: the integer Gaussian weights that make every variant bit-exact.
 *
 * 1-D weights w[-r..r] are non-negative integers, symmetric, summing to exactly 256; the 2-D
 * weight of tap (i, j) is w[i] * w[j] (sum 65536). For 8-bit inputs every partial sum of
 * w[i] * w[j] * pixel stays <= 255 * 65536 < 2^24, so float arithmetic on these values is exact
 * in any order, and separable (rows then columns) equals the direct 2-D sum. Each output channel
 * is (sum + 32768) >> 16: round half up, never above 255.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_GAUSSIAN_TAPS_H
#define FV_GAUSSIAN_TAPS_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FV_GAUSSIAN_MAX_RADIUS 32
#define FV_GAUSSIAN_WEIGHT_SUM 256

typedef struct fv_gaussian_taps {
    int radius;
    int w[2 * FV_GAUSSIAN_MAX_RADIUS + 1];  /* w[radius + k] is the weight of offset k */
} fv_gaussian_taps;

/* Validates sigma/radius (a clear message on failure) and fills the weights. */
fv_status fv_gaussian_taps_make(const fv_params *p, fv_gaussian_taps *t);

#ifdef __cplusplus
}
#endif
#endif
