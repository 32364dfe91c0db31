/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_npp.c: the convolution's peer, variant `npp` (built only where CMake found
 * NPP): nppiFilterBorder_8u_C4R with our quantised integer weights (sum 2^16) and divisor 2^16,
 * replicated border (our rule); the output stage only (its supports declines the others); then
 * the source's alpha put back (npp_keep_alpha). NPP divides by 2^16 its own way: held to conv_ref
 * within conv_npp_tolerance, 1 level per pass in R, G and B; alpha exact.
 * ------------------------------------------------------------------------------------------------ */
#include "conv/conv.h"
#include "conv/conv_npp.h"
#include "npp/npp_common.h"

#include <nppi_filtering_functions.h>
#include <stdio.h>
#include <stdlib.h>

const fv_tolerance conv_npp_tolerance = {.max_abs = 1, .max_share = 1.0};

/* NPP convolves (its coefficients "in reverse order"): dst(x) = sum_j src(x + j - anchor) *
 * kernel[kw - 1 - j], so our K goes in as it is, anchored at (kw - 1 - cx, kh - 1 - cy). */
size_t conv_npp_state_bytes(const fv_variant *v, const fv_params *p, int width, int height)
{
    (void)v;
    (void)p;
    (void)width;
    (void)height;
    return sizeof(Npp32s) * FV_CONV_MAX_TAPS;
}

int conv_npp_supports(const fv_variant *v, const fv_params *p, int width, int height, char *why,
                      size_t why_size)
{
    (void)v;
    (void)width;
    (void)height;
    if (conv_stage(p) == CONV_OUTPUT) return 1;
    snprintf(why, why_size, "NPP makes the output stage only");
    return 0;
}

fv_status conv_npp_state_create(const fv_variant *v, void **state, const fv_params *p, int width,
                                int height)
{
    (void)v;
    (void)width;
    (void)height;
    conv_kernel *k = malloc(sizeof *k);
    if (!k) return fv_fail(FV_ERR_MEMORY, "npp: out of host memory");
    fv_status st = conv_kernel_make(p, "conv/npp", k);
    npp_state *s = NULL;
    if (st == FV_OK) st = npp_state_make(&s);
    if (st == FV_OK) {
        s->n_taps = k->width | k->height << 16; /* the kernel's size, for the run */
        if (cudaMalloc((void **)&s->taps, sizeof(Npp32s) * (size_t)k->width * (size_t)k->height) !=
                cudaSuccess ||
            cudaMemcpy(s->taps, k->w, sizeof(Npp32s) * (size_t)k->width * (size_t)k->height,
                       cudaMemcpyHostToDevice) != cudaSuccess) {
            cudaGetLastError();
            st =
                fv_fail(FV_ERR_MEMORY, "npp: cannot place the convolution's weights on the device");
        }
    }
    free(k);
    if (st != FV_OK) {
        npp_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

fv_status conv_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p,
                       void *state, cudaStream_t stream)
{
    (void)v;
    (void)p;
    npp_state *s = state;
    FV_TRY(npp_stream(s, stream));
    const int kw = s->n_taps & 0xffff, kh = s->n_taps >> 16;
    NppiSize size = {src->width, src->height}, mask = {kw, kh};
    NppiPoint origin = {0, 0}, anchor = {kw - 1 - kw / 2, kh - 1 - kh / 2};
    FV_TRY(npp_result(nppiFilterBorder_8u_C4R_Ctx(src->data, (Npp32s)src->pitch, size, origin,
                                                  dst->data, (Npp32s)dst->pitch, size,
                                                  (const Npp32s *)s->taps, mask, anchor,
                                                  FV_CONV_WEIGHT_SUM, NPP_BORDER_REPLICATE, s->ctx),
                      "nppiFilterBorder_8u_C4R_Ctx"));
    return npp_keep_alpha(&s->ctx, src, dst);
}
