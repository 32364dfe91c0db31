/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_gpu.h: the callbacks of the Canny edge detector's GPU variants
 * (kernels/canny/canny*.cu) that its descriptor (kernels/canny/canny.c) lists. A build without CUDA
 * (FV_HAVE_CUDA undefined) has neither the kernels nor these rows: the filter then has its
 * reference alone.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CANNY_GPU_H
#define FV_CANNY_GPU_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_CUDA
size_t canny_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                         int height);
fv_status canny_state_create(const fv_variant *v, void **state, const fv_params *p,
                             const void *config, int width, int height);
void canny_state_destroy(const fv_variant *v, void *state);
int canny_last_run_text(const fv_variant *v, const void *state, char *text, size_t size);
fv_status canny_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream);
int canny_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max);
fv_status canny_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                         const void *config, void *state, cudaStream_t stream);
int canny_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                       fv_kernel_info *out, int max);
fv_status canny_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                         const void *config, void *state, cudaStream_t stream);
int canny_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                       fv_kernel_info *out, int max);
#endif

#ifdef __cplusplus
}
#endif
#endif
