/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_gpu.h: the callbacks of the convolution's GPU variants (kernels/conv/conv*.cu)
 * that its descriptor (kernels/conv/conv.c) lists. A build without CUDA (FV_HAVE_CUDA undefined)
 * has neither the kernels nor these rows: the filter then has its reference alone.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CONV_GPU_H
#define FV_CONV_GPU_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the variants' ids (fv_variant.id): which way conv_state_create makes them run; 0 is no variant */
enum { V_DIRECT = 1, V_SMEM, V_FFT, V_FFT_FAST, V_AUTO };
/* their names, for the descriptor's rows (conv.c) and for auto's note of what it chose (conv.cu,
 * which cannot read the descriptor: conv.c calls into it) */
#define CONV_NAME_DIRECT   "direct"
#define CONV_NAME_SMEM     "direct_smem"
#define CONV_NAME_FFT      "fft"
#define CONV_NAME_FFT_FAST "fft_fast"
#define CONV_NAME_AUTO     "auto"


#ifdef FV_HAVE_CUDA
fv_status conv_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                   void *state, cudaStream_t stream);
size_t conv_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                        int height);
fv_status conv_state_create(const fv_variant *v, void **state, const fv_params *p,
                            const void *config, int width, int height);
void conv_state_destroy(const fv_variant *v, void *state);
int conv_direct_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max);
int conv_smem_kernels(const fv_variant *v, const fv_params *p, const void *config,
                      fv_kernel_info *out, int max);
int conv_fft_plain_kernels(const fv_variant *v, const fv_params *p, const void *config,
                           fv_kernel_info *out, int max);
int conv_fft_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                          fv_kernel_info *out, int max);
int conv_auto_kernels(const fv_variant *v, const fv_params *p, const void *config,
                      fv_kernel_info *out, int max);
int conv_last_run_text(const fv_variant *v, const void *state, char *text, size_t size);
#endif

#ifdef __cplusplus
}
#endif
#endif
