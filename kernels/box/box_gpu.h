/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_gpu.h: the callbacks of the box filter's GPU variants (kernels/box/box*.cu) that
 * its descriptor (kernels/box/box.c) lists. A build without CUDA (FV_HAVE_CUDA undefined) has
 * neither the kernels nor these rows: the filter then has its reference alone.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BOX_GPU_H
#define FV_BOX_GPU_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_CUDA
fv_status box_naive_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                        void *state, cudaStream_t stream);
fv_status box_teach_state_create(const fv_variant *v, void **state, const fv_params *p,
                                 const void *config, int width, int height);
void box_teach_state_destroy(const fv_variant *v, void *state);
int box_naive_kernels(const fv_variant *v, const fv_params *p, const void *config,
                      fv_kernel_info *out, int max);
fv_status box_unrolled_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream);
int box_unrolled_kernels(const fv_variant *v, const fv_params *p, const void *config,
                         fv_kernel_info *out, int max);
fv_status box_smem_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                       void *state, cudaStream_t stream);
int box_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                     fv_kernel_info *out, int max);
fv_status box_tex_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                      void *state, cudaStream_t stream);
size_t box_tex_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                           int height);
fv_status box_tex_state_create(const fv_variant *v, void **state, const fv_params *p,
                               const void *config, int width, int height);
void box_tex_state_destroy(const fv_variant *v, void *state);
int box_tex_kernels(const fv_variant *v, const fv_params *p, const void *config,
                    fv_kernel_info *out, int max);
#endif

#ifdef __cplusplus
}
#endif
#endif
