/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_npp.c: the convolution's peer, variant `npp` (built only where CMake found
 * NPP), replicated border (our rule), the output stage only (its supports declines the others):
 *   uint8    nppiFilterBorder_8u_C4R with our quantised integer weights (sum 2^16), divisor 2^16
 *   uint16   nppiFilterBorder32f_16u_C4R with the same weights / 2^16 as floats (NPP's integer
 *            weights for 16u sum in 32 bits, where 65535 x 2^16 does not fit)
 *   float32  nppiFilterBorder_32f_C4R with the same float weights
 * then the source's alpha put back (npp_keep_alpha). NPP rounds its own way, and sums uint16 and
 * float32 in single precision: held to conv_ref within conv_npp_tolerance per pass in R, G and B
 * (8 levels of uint8, whose integer sums erred by 1 on an H200; 2e-4 of float32, the FFT variants'
 * bound); alpha exact. uint16's single-precision sums of n = kw x kh products: each addition
 * rounds within 2^-24 of a partial sum of at most 65535 (weights >= 0 summing to 1, as the test's
 * shapes), so n x 2^-24 x 65535 + 1 bounds them: 64 levels at 127 x 127 (an H200 erred by 10 on
 * a 1x1 image, box radius 63, where every product is the same pixel and the roundings add up).
 * ------------------------------------------------------------------------------------------------ */
#include "conv/conv.h"
#include "conv/conv_npp.h"
#include "npp/npp_common.h"

#include <nppi_filtering_functions.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const fv_tolerance conv_npp_tolerance = {
    .max_abs = 8, .u16_abs = 64, .max_share = 1.0, .float_abs = 1e-3};

/* NPP convolves (its coefficients "in reverse order"): dst(x) = sum_j src(x + j - anchor) *
 * kernel[kw - 1 - j], so our K goes in as it is, anchored at (kw - 1 - cx, kh - 1 - cy). */
size_t conv_npp_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                            int height)
{
    (void)v, (void)p, (void)width, (void)height;
    const conv_kernel *k = &((const conv_config *)config)->kernel;
    return sizeof(Npp32s) * (size_t)k->width * (size_t)k->height;
}

int conv_npp_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                      int height, char *why, size_t why_size)
{
    (void)v, (void)p, (void)width, (void)height;
    if (((const conv_config *)config)->stage == CONV_OUTPUT) return 1;
    snprintf(why, why_size, "NPP makes the output stage only");
    return 0;
}

fv_status conv_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                const void *config, int width, int height)
{
    (void)p, (void)width, (void)height;
    const conv_config *c = config;
    const conv_kernel *k = &c->kernel; /* built once, by conv_config_make */
    const size_t n = (size_t)k->width * (size_t)k->height;
    /* uint8: the integer weights as they are; else as floats, w / 2^16 */
    Npp32s *taps = malloc(sizeof *taps * n);
    if (!taps) return fv_fail(FV_ERR_MEMORY, "npp: out of host memory");
    for (size_t i = 0; i < n; i++) {
        if (c->type == FV_PIXEL_U8) {
            taps[i] = k->w[i];
        } else {
            const Npp32f w = (Npp32f)k->w[i] / FV_CONV_WEIGHT_SUM;
            memcpy(&taps[i], &w, sizeof w);
        }
    }
    npp_state *s = NULL;
    fv_status st = npp_state_make(&s);
    if (st == FV_OK) {
        s->n_taps = k->width | k->height << 16; /* the kernel's size, for the run */
        if (cudaMalloc((void **)&s->taps, sizeof(Npp32s) * n) != cudaSuccess ||
            cudaMemcpy(s->taps, taps, sizeof(Npp32s) * n, cudaMemcpyHostToDevice) != cudaSuccess) {
            cudaGetLastError();
            st =
                fv_fail(FV_ERR_MEMORY, "npp: cannot place the convolution's weights on the device");
        }
    }
    free(taps);
    if (st != FV_OK) {
        npp_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

fv_status conv_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                       void *state, cudaStream_t stream)
{
    (void)v;
    (void)config; /* the state was made from it */
    npp_state *s = state;
    FV_TRY(npp_begin(s, stream, src, dst));
    const int kw = s->n_taps & 0xffff, kh = s->n_taps >> 16;
    const NppiSize size = {src->width, src->height}, mask = {kw, kh};
    const NppiPoint origin = {0, 0}, anchor = {kw - 1 - kw / 2, kh - 1 - kh / 2};
    const Npp32s sp = (Npp32s)src->pitch, dp = (Npp32s)dst->pitch;
    switch (src->type) {
    case FV_PIXEL_U16:
        FV_TRY(npp_result(nppiFilterBorder32f_16u_C4R_Ctx(
                              (const Npp16u *)src->data, sp, size, origin, (Npp16u *)dst->data, dp,
                              size, s->taps, mask, anchor, NPP_BORDER_REPLICATE, s->ctx),
                          "nppiFilterBorder32f_16u_C4R_Ctx"));
        break;
    case FV_PIXEL_F32:
        FV_TRY(npp_result(nppiFilterBorder_32f_C4R_Ctx((const Npp32f *)src->data, sp, size, origin,
                                                       (Npp32f *)dst->data, dp, size, s->taps, mask,
                                                       anchor, NPP_BORDER_REPLICATE, s->ctx),
                          "nppiFilterBorder_32f_C4R_Ctx"));
        break;
    default:
        FV_TRY(npp_result(nppiFilterBorder_8u_C4R_Ctx(src->data, sp, size, origin, dst->data, dp,
                                                      size, (const Npp32s *)s->taps, mask, anchor,
                                                      FV_CONV_WEIGHT_SUM, NPP_BORDER_REPLICATE,
                                                      s->ctx),
                          "nppiFilterBorder_8u_C4R_Ctx"));
    }
    return npp_keep_alpha(&s->ctx, src, dst);
}
