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

/* The Gaussian's typed configuration, made once at prepare by gaussian_config_make: what the
 * reference, every GPU variant, the peer and the reach read. */
typedef struct gaussian_config {
    double sigma;
    int radius; /* the stencil's half-width: the given one, or ceil(3 sigma) */
    fv_border border;
    double cval; /* the constant border's value, in the image's units */
    fv_pixel_type type;
    fv_gaussian_taps taps; /* integer weights of sigma at radius, computed here once */
} gaussian_config;

/* The radius the weights use: the given one, or ceil(3 sigma) for 0 (for text and the
 * configuration; checks nothing). */
int fv_gaussian_radius(const fv_params *p);
/* The integer weights of `sigma` (> 0) at `radius` (1..FV_GAUSSIAN_MAX_RADIUS): the caller's
 * configuration has checked both. */
void fv_gaussian_taps_fill(double sigma, int radius, fv_gaussian_taps *t);
/* The Gaussian's fv_filter.config_make: the one check of sigma beyond its range (the radius it
 * derives must fit), then the taps. Returns 1, or 0 with the reason in `why`. */
int gaussian_config_make(const fv_params *p, void *config, char *why, size_t why_size);
void gaussian_resolve(fv_params *p);
/* The reference (gaussian_ref.c), an fv_ref_fn: `config` is a gaussian_config. */
fv_status gaussian_ref(const fv_image *src, fv_image *dst, const void *config);

#ifdef __cplusplus
}
#endif
#endif
