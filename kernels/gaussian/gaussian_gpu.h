/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_gpu.h: the callbacks of the Gaussian blur's GPU variants
 * (kernels/gaussian/gaussian*.cu) that its descriptor (kernels/gaussian/gaussian.c) lists. A build
 * without CUDA (FV_HAVE_CUDA undefined) has neither the kernels nor these rows: the filter then has
 * its reference alone.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_GAUSSIAN_GPU_H
#define FV_GAUSSIAN_GPU_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The teaching variants share one launcher and tell their kernel by their row's .id. */
enum { TEACH_NAIVE, TEACH_SMEM, TEACH_SMEM_MWPT, TEACH_N_KERNELS };

#ifdef FV_HAVE_CUDA
fv_status gaussian_teach_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                             const void *config, void *state, cudaStream_t stream);
fv_status gaussian_state_create(const fv_variant *v, void **state, const fv_params *p,
                                const void *config, int width, int height);
void gaussian_state_destroy(const fv_variant *v, void *state);
int gaussian_teach_kernels(const fv_variant *v, const fv_params *p, const void *config,
                           fv_kernel_info *out, int max);
int gaussian_teach_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                            int height, char *why, size_t why_size);
fv_status gaussian_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                            const void *config, void *state, cudaStream_t stream);
int gaussian_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                          fv_kernel_info *out, int max);
#endif

#ifdef __cplusplus
}
#endif
#endif
