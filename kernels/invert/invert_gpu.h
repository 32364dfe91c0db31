/* ------------------------------------------------------------------------------------------------
 * kernels/invert/invert_gpu.h: the callbacks of the invert filter's GPU variants
 * (kernels/invert/invert*.cu) that its descriptor (kernels/invert/invert.c) lists. A build without
 * CUDA (FV_HAVE_CUDA undefined) has neither the kernels nor these rows: the filter then has its
 * reference alone.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_INVERT_GPU_H
#define FV_INVERT_GPU_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_CUDA
fv_status invert_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream);
int invert_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                         fv_kernel_info *out, int max);
#endif

#ifdef __cplusplus
}
#endif
#endif
