/* kernels/ref/refs.h: the plain-C reference of every filter (one pass, host images). Each is the
 * test oracle of its filter's GPU variants and is offered to users as the `cpu` variant. */
#ifndef FV_REFS_H
#define FV_REFS_H

#include "../filter.h"

#ifdef __cplusplus
extern "C" {
#endif

void gaussian_ref(const fv_image *src, fv_image *dst, const fv_params *p);
fv_status gaussian_check_params(const fv_params *p);
void gaussian_describe_params(const fv_params *p, char *buf, size_t size);
void invert_ref(const fv_image *src, fv_image *dst, const fv_params *p);
fv_status invert_check_params(const fv_params *p);

/* Shared by every filter's check_params: iterations in 1..FV_MAX_ITERATIONS. */
fv_status fv_check_iterations(const fv_params *p);

#ifdef __cplusplus
}
#endif
#endif
