/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_npp.c: the box filter's peer, variant `npp` (built only where CMake found NPP):
 * nppiFilterBoxBorder_8u_C4R with a replicated border (our rule), then the source's alpha put
 * back (npp_keep_alpha). NPP divides by the window's area its own way: held to box_ref within
 * box_npp_tolerance, 1 level per pass in R, G and B; alpha exact.
 * ------------------------------------------------------------------------------------------------ */
#include "box/box.h"
#include "box/box_npp.h"
#include "npp/npp_common.h"

#include <nppi_filtering_functions.h>

const fv_tolerance box_npp_tolerance = {.max_abs = 1, .max_share = 1.0};

fv_status box_npp_state_create(const fv_variant *v, void **state, const fv_params *p, int width,
                               int height)
{
    (void)v;
    (void)p;
    (void)width;
    (void)height;
    npp_state *s = NULL;
    FV_TRY(npp_state_make(&s));
    *state = s;
    return FV_OK;
}

fv_status box_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p,
                      void *state, cudaStream_t stream)
{
    (void)v;
    npp_state *s = state;
    FV_TRY(npp_stream(s, stream));
    const int r = box_radius(p);
    NppiSize size = {src->width, src->height};
    NppiSize mask = {2 * r + 1, 2 * r + 1};
    NppiPoint origin = {0, 0}, anchor = {r, r};
    FV_TRY(npp_result(nppiFilterBoxBorder_8u_C4R_Ctx(src->data, (Npp32s)src->pitch, size, origin,
                                                     dst->data, (Npp32s)dst->pitch, size, mask,
                                                     anchor, NPP_BORDER_REPLICATE, s->ctx),
                      "nppiFilterBoxBorder_8u_C4R_Ctx"));
    return npp_keep_alpha(&s->ctx, src, dst);
}
