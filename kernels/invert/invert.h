/* kernels/invert/invert.h: the invert filter's reference (kernels/invert/invert_ref.c), shared with its kernels. */
#ifndef FV_INVERT_H
#define FV_INVERT_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

fv_status invert_ref(const fv_image *src, fv_image *dst, const fv_params *p);

#ifdef __cplusplus
}
#endif
#endif
