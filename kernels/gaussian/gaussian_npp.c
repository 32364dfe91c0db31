/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_npp.c: the Gaussian's peer, variant `npp` (built only where CMake
 * found NPP): nppiFilterGaussAdvancedBorder_{8u,16u,32f}_C4R with our taps in device memory, our
 * integer weights divided by 256 as floats, so that NPP filters with the same kernel as ours and
 * the same replicated border, then the source's alpha put back (npp_keep_alpha). What differs is
 * NPP's float arithmetic and rounding, in two 1-D passes: held to gaussian_ref within
 * gaussian_npp_tolerance per pass in R, G and B (2 levels of uint8 or uint16, 1e-5 of float32,
 * the bound of our own float path); alpha exact.
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian/gaussian_npp.h"
#include "gaussian/gaussian_taps.h"
#include "npp/npp_common.h"

#include <nppi_filtering_functions.h>

/* integers: a rounding of its own in each 1-D pass, up to 1 level from each; float32: single
 * precision sums of two passes, as gaussian_fast's (docs/design/gaussian.md) */
const fv_tolerance gaussian_npp_tolerance = {.max_abs = 2, .max_share = 1.0, .float_abs = 1e-5};

fv_status gaussian_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                    const void *config, int width, int height)
{
    (void)v;
    (void)p;
    (void)width;
    (void)height;
    const fv_gaussian_taps t = ((const gaussian_config *)config)->taps;
    npp_state *s = NULL;
    FV_TRY(npp_state_make(&s));
    Npp32f host[2 * FV_GAUSSIAN_MAX_RADIUS + 1];
    s->n_taps = 2 * t.radius + 1;
    for (int k = 0; k < s->n_taps; k++) host[k] = (Npp32f)t.w[k] / FV_GAUSSIAN_WEIGHT_SUM;
    if (cudaMalloc((void **)&s->taps, sizeof host) != cudaSuccess ||
        cudaMemcpy(s->taps, host, sizeof(Npp32f) * (size_t)s->n_taps, cudaMemcpyHostToDevice) !=
            cudaSuccess) {
        npp_state_destroy(v, s);
        return fv_fail(FV_ERR_MEMORY, "npp: cannot place the Gaussian's taps on the device");
    }
    *state = s;
    return FV_OK;
}

fv_status gaussian_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream)
{
    (void)v;
    (void)config; /* its taps are in the state */
    npp_state *s = state;
    FV_TRY(npp_begin(s, stream, src, dst));
    const NppiSize size = {src->width, src->height};
    const NppiPoint origin = {0, 0};
    const Npp32s sp = (Npp32s)src->pitch, dp = (Npp32s)dst->pitch;
    switch (src->type) {
    case FV_PIXEL_U16:
        FV_TRY(npp_result(nppiFilterGaussAdvancedBorder_16u_C4R_Ctx(
                              (const Npp16u *)src->data, sp, size, origin, (Npp16u *)dst->data, dp,
                              size, s->n_taps, s->taps, NPP_BORDER_REPLICATE, s->ctx),
                          "nppiFilterGaussAdvancedBorder_16u_C4R_Ctx"));
        break;
    case FV_PIXEL_F32:
        FV_TRY(npp_result(nppiFilterGaussAdvancedBorder_32f_C4R_Ctx(
                              (const Npp32f *)src->data, sp, size, origin, (Npp32f *)dst->data, dp,
                              size, s->n_taps, s->taps, NPP_BORDER_REPLICATE, s->ctx),
                          "nppiFilterGaussAdvancedBorder_32f_C4R_Ctx"));
        break;
    default:
        FV_TRY(npp_result(nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(
                              src->data, sp, size, origin, dst->data, dp, size, s->n_taps, s->taps,
                              NPP_BORDER_REPLICATE, s->ctx),
                          "nppiFilterGaussAdvancedBorder_8u_C4R_Ctx"));
    }
    return npp_keep_alpha(&s->ctx, src, dst);
}
