/* ------------------------------------------------------------------------------------------------
 * kernels/median/median.h: what the median filter's reference and kernels share: its parameter table
 * index, its limits, and the entry points that live in other files (the `fast` variant in
 * kernels/median/median_fast.cu, the border padding the NPP peer needs).
 *
 * Each output R, G and B is the median of its channel over the k x k window (k odd, 3..25)
 * around the pixel, borders replicated (coordinates clamped to the image); alpha is the centre
 * pixel's. With n = k * k values the median is the value of rank (n - 1) / 2 counted from 0 in
 * ascending order: a value that is in the window, so every variant can and must produce exactly
 * the reference's bytes.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_MEDIAN_H
#define FV_MEDIAN_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MEDIAN_SIZE, MEDIAN_N_PARAMS }; /* indices in the median filter's parameter table */
#define FV_MEDIAN_MIN_SIZE 3
#define FV_MEDIAN_MAX_SIZE 25
#define FV_MEDIAN_MAX_AREA (FV_MEDIAN_MAX_SIZE * FV_MEDIAN_MAX_SIZE)

/* The window size of p, the one place it becomes an int: an odd integer in
 * FV_MEDIAN_MIN_SIZE..FV_MEDIAN_MAX_SIZE once fv_runner_prepare has checked p; clamped into that
 * range otherwise, for what cannot fail (reporting kernels of unchecked parameters). */
static inline int median_size(const fv_params *p)
{
    const double v = p->value[MEDIAN_SIZE];
    const int k = v >= FV_MEDIAN_MAX_SIZE ? FV_MEDIAN_MAX_SIZE
                                          : (v >= FV_MEDIAN_MIN_SIZE ? (int)v : FV_MEDIAN_MIN_SIZE);
    return k | 1;
}
/* The reference's own check, for callers that skip the runner: refused (FV_ERR_ARG, message naming
 * `who`) unless an odd integer in range (kernels/median/median_ref.c). */
fv_status median_size_check(const fv_params *p, const char *who, int *size);

/* The reference (kernels/median/median_ref.c): a sliding 256-bin histogram per channel along each row. */
fv_status median_ref(const fv_image *src, fv_image *dst, const fv_params *p);

/* The `fast` variant (kernels/median/median_fast.cu). */
fv_status median_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const fv_params *p, void *state, cudaStream_t stream);
int median_fast_kernels(const fv_variant *v, const fv_params *p, fv_kernel_info *out, int max);
extern const char median_fast_summary[];

/* For the NPP peer (kernels/median/median.cu): copies src into `padded`, a (width + 2 border) x
 * (height + 2 border) device image, with its borders replicated `border` pixels out. */
fv_status median_pad_replicate(const fv_image *src, fv_image *padded, int border,
                               cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
