/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_npp.c: the median's peer, variant `npp` (built only where CMake found
 * NPP): nppiFilterMedian_{8u,16u,32f}_C4R on a copy of the source padded by k/2 replicated pixels
 * (nppiCopyReplicateBorder of the same type), made on every run, since NPP reads beyond the ROI,
 * then the source's alpha put back (npp_keep_alpha). A median is chosen, never computed: held to
 * median_ref exactly in every type (median_npp_tolerance, 0), alpha included.
 * ------------------------------------------------------------------------------------------------ */
#include "median/median.h"
#include "median/median_npp.h"
#include "npp/npp_common.h"

#include <nppi_data_exchange_and_initialization.h>
#include <nppi_filtering_functions.h>
#include <stdlib.h>

const fv_tolerance median_npp_tolerance = {.max_abs = 0, .max_share = 0.0, .float_abs = 0.0};

typedef struct median_npp_state {
    npp_state *npp;
    fv_image padded; /* (width + 2b) x (height + 2b), b = k / 2: replicated borders */
    Npp8u *buffer;   /* NPP's scratch */
    int border;
} median_npp_state;

size_t median_npp_state_bytes(const fv_variant *v, const fv_params *p, const void *config,
                              int width, int height)
{
    (void)v, (void)p;
    const median_config *c = (const median_config *)config;
    const int b = c->k / 2;
    return (size_t)(width + 2 * b) * 4 * fv_pixel_type_bytes(c->type) *
           (size_t)(height + 2 * b); /* plus NPP's scratch */
}

void median_npp_state_destroy(const fv_variant *v, void *state)
{
    (void)v;
    median_npp_state *s = state;
    if (!s) return;
    npp_state_destroy(v, s->npp);
    fv_device_image_free(&s->padded);
    if (s->buffer) cudaFree(s->buffer);
    free(s);
}

/* NPP's scratch for a k x k median of this type at width x height */
static fv_status scratch_bytes(fv_pixel_type type, int width, int height, int k,
                               const NppStreamContext *ctx, Npp32u *bytes)
{
    const NppiSize size = {width, height}, mask = {k, k};
    switch (type) {
    case FV_PIXEL_U16:
        return npp_result(nppiFilterMedianGetBufferSize_16u_C4R_Ctx(size, mask, bytes, *ctx),
                          "nppiFilterMedianGetBufferSize_16u_C4R_Ctx");
    case FV_PIXEL_F32:
        return npp_result(nppiFilterMedianGetBufferSize_32f_C4R_Ctx(size, mask, bytes, *ctx),
                          "nppiFilterMedianGetBufferSize_32f_C4R_Ctx");
    default:
        return npp_result(nppiFilterMedianGetBufferSize_8u_C4R_Ctx(size, mask, bytes, *ctx),
                          "nppiFilterMedianGetBufferSize_8u_C4R_Ctx");
    }
}

fv_status median_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                  const void *config, int width, int height)
{
    (void)v, (void)p;
    const int k = ((const median_config *)config)->k;
    median_npp_state *s = calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "npp: out of host memory");
    s->border = k / 2;
    fv_status st = npp_state_make(&s->npp);
    if (st == FV_OK)
        st = fv_device_image_alloc_as(&s->padded, width + 2 * s->border, height + 2 * s->border,
                                      p->type, 4);
    Npp32u bytes = 0;
    if (st == FV_OK) st = scratch_bytes(p->type, width, height, k, &s->npp->ctx, &bytes);
    if (st == FV_OK && cudaMalloc((void **)&s->buffer, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        st = fv_fail(FV_ERR_MEMORY, "npp: cannot allocate the median's %u bytes of scratch",
                     (unsigned)bytes);
    }
    if (st != FV_OK) {
        median_npp_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

fv_status median_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                         const void *config, void *state, cudaStream_t stream)
{
    (void)v;
    median_npp_state *s = state; /* made for this configuration */
    const int k = ((const median_config *)config)->k, b = s->border;
    FV_TRY(npp_begin(s->npp, stream, src, dst));
    const NppStreamContext ctx = s->npp->ctx;
    const NppiSize size = {src->width, src->height}, mask = {k, k};
    const NppiSize padded = {s->padded.width, s->padded.height};
    const NppiPoint anchor = {b, b};
    const int sp = (int)src->pitch, pp = (int)s->padded.pitch, dp = (int)dst->pitch;
    /* the padded copy's pixel (b, b): the source's (0, 0) */
    const uint8_t *origin = s->padded.data + (size_t)b * s->padded.pitch +
                            (size_t)b * 4 * fv_pixel_type_bytes(src->type);
    switch (src->type) {
    case FV_PIXEL_U16:
        FV_TRY(npp_result(nppiCopyReplicateBorder_16u_C4R_Ctx((const Npp16u *)src->data, sp, size,
                                                              (Npp16u *)s->padded.data, pp, padded,
                                                              b, b, ctx),
                          "nppiCopyReplicateBorder_16u_C4R_Ctx"));
        FV_TRY(
            npp_result(nppiFilterMedian_16u_C4R_Ctx((const Npp16u *)origin, pp, (Npp16u *)dst->data,
                                                    dp, size, mask, anchor, s->buffer, ctx),
                       "nppiFilterMedian_16u_C4R_Ctx"));
        break;
    case FV_PIXEL_F32:
        FV_TRY(npp_result(nppiCopyReplicateBorder_32f_C4R_Ctx((const Npp32f *)src->data, sp, size,
                                                              (Npp32f *)s->padded.data, pp, padded,
                                                              b, b, ctx),
                          "nppiCopyReplicateBorder_32f_C4R_Ctx"));
        FV_TRY(
            npp_result(nppiFilterMedian_32f_C4R_Ctx((const Npp32f *)origin, pp, (Npp32f *)dst->data,
                                                    dp, size, mask, anchor, s->buffer, ctx),
                       "nppiFilterMedian_32f_C4R_Ctx"));
        break;
    default:
        FV_TRY(npp_result(nppiCopyReplicateBorder_8u_C4R_Ctx(src->data, sp, size, s->padded.data,
                                                             pp, padded, b, b, ctx),
                          "nppiCopyReplicateBorder_8u_C4R_Ctx"));
        FV_TRY(npp_result(nppiFilterMedian_8u_C4R_Ctx(origin, pp, dst->data, dp, size, mask, anchor,
                                                      s->buffer, ctx),
                          "nppiFilterMedian_8u_C4R_Ctx"));
    }
    return npp_keep_alpha(&ctx, src, dst);
}
