/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_npp.c: the box filter's peer, variant `npp` (built only where CMake found NPP):
 * nppiFilterBoxBorder_{8u,16u,32f}_C4R with a replicated border (our rule), then the source's
 * alpha put back (npp_keep_alpha). NPP divides by the window's area its own way: held to box_ref
 * within box_npp_tolerance per pass in R, G and B (1 level of uint8 or uint16; float32: NPP's
 * single-precision sums of up to 257 x 257 pixels, 1e-3: 4.2e-4 measured on an H200 at 257 x 257);
 * alpha exact. Its 16u sums are signed 32-bit integers: a window whose sum of 65535s passes 2^31
 * (radius 91 and up) wraps them (errors of 35,000 to 58,000 levels measured at radius 100 and
 * 128), so box_npp_supports declines it.
 * ------------------------------------------------------------------------------------------------ */
#include "box/box.h"
#include "box/box_npp.h"
#include "npp/npp_common.h"

#include <nppi_filtering_functions.h>
#include <stdio.h>

const fv_tolerance box_npp_tolerance = {.max_abs = 1, .max_share = 1.0, .float_abs = 1e-3};

int box_npp_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                     int height, char *why, size_t why_size)
{
    const box_config *cfg = (const box_config *)config;
    (void)v;
    (void)p;
    (void)width;
    (void)height;
    const double side = 2.0 * cfg->radius + 1;
    if (cfg->type != FV_PIXEL_U16 || side * side * 65535.0 <= 2147483647.0) return 1;
    snprintf(why, why_size,
             "NPP's 16-bit box sums in signed 32 bits: a %gx%g window of 16-bit pixels overflows "
             "them (radius 90 at most)",
             side, side);
    return 0;
}

fv_status box_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                               const void *config, int width, int height)
{
    (void)v;
    (void)p;
    (void)config;
    (void)width;
    (void)height;
    npp_state *s = NULL;
    FV_TRY(npp_state_make(&s));
    *state = s;
    return FV_OK;
}

fv_status box_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                      void *state, cudaStream_t stream)
{
    const box_config *cfg = (const box_config *)config;
    (void)v;
    npp_state *s = state;
    FV_TRY(npp_begin(s, stream, src, dst));
    const int r = cfg->radius;
    const NppiSize size = {src->width, src->height}, mask = {2 * r + 1, 2 * r + 1};
    const NppiPoint origin = {0, 0}, anchor = {r, r};
    const Npp32s sp = (Npp32s)src->pitch, dp = (Npp32s)dst->pitch;
    switch (src->type) {
    case FV_PIXEL_U16:
        FV_TRY(npp_result(nppiFilterBoxBorder_16u_C4R_Ctx(
                              (const Npp16u *)src->data, sp, size, origin, (Npp16u *)dst->data, dp,
                              size, mask, anchor, NPP_BORDER_REPLICATE, s->ctx),
                          "nppiFilterBoxBorder_16u_C4R_Ctx"));
        break;
    case FV_PIXEL_F32:
        FV_TRY(npp_result(nppiFilterBoxBorder_32f_C4R_Ctx(
                              (const Npp32f *)src->data, sp, size, origin, (Npp32f *)dst->data, dp,
                              size, mask, anchor, NPP_BORDER_REPLICATE, s->ctx),
                          "nppiFilterBoxBorder_32f_C4R_Ctx"));
        break;
    default:
        FV_TRY(npp_result(nppiFilterBoxBorder_8u_C4R_Ctx(src->data, sp, size, origin, dst->data, dp,
                                                         size, mask, anchor, NPP_BORDER_REPLICATE,
                                                         s->ctx),
                          "nppiFilterBoxBorder_8u_C4R_Ctx"));
    }
    return npp_keep_alpha(&s->ctx, src, dst);
}
