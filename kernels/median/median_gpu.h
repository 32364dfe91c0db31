/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_gpu.h: the callbacks of the median filter's GPU variants
 * (kernels/median/median*.cu) that its descriptor (kernels/median/median.c) lists. A build without
 * CUDA (FV_HAVE_CUDA undefined) has neither the kernels nor these rows: the filter then has its
 * reference alone.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_MEDIAN_GPU_H
#define FV_MEDIAN_GPU_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The counting variants' types: one pass per bit, 8 or 16. */
#define MEDIAN_COUNT_TYPES (FV_TYPE_BIT(FV_PIXEL_U8) | FV_TYPE_BIT(FV_PIXEL_U16))

#ifdef FV_HAVE_CUDA
fv_status median_state_create(const fv_variant *v, void **state, const fv_params *p,
                              const void *config, int width, int height);
void median_state_destroy(const fv_variant *v, void *state);
fv_status median_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream);
int median_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                         fv_kernel_info *out, int max);
fv_status median_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream);
int median_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max);
#endif

#ifdef __cplusplus
}
#endif
#endif
