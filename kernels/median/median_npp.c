/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_npp.c: the median's peer, variant `npp` (built only where CMake found
 * NPP): nppiFilterMedian_8u_C4R on a copy of the source padded by k/2 replicated pixels, made on
 * every run by median_pad_replicate (kernels/median/median.cu), since NPP reads beyond the ROI,
 * then the source's alpha put back (npp_keep_alpha). A median of whole numbers has one answer:
 * held to median_ref exactly (median_npp_tolerance, 0), alpha included.
 * ------------------------------------------------------------------------------------------------ */
#include "median/median.h"
#include "median/median_npp.h"
#include "npp/npp_common.h"

#include <nppi_filtering_functions.h>
#include <stdlib.h>

const fv_tolerance median_npp_tolerance = {.max_abs = 0, .max_share = 0.0};

typedef struct median_npp_state {
    npp_state *npp;
    fv_image padded; /* (width + 2b) x (height + 2b), b = k / 2: replicated borders */
    Npp8u *buffer;   /* NPP's scratch */
    int border;
} median_npp_state;

size_t median_npp_state_bytes(const fv_variant *v, const fv_params *p, int width, int height)
{
    (void)v;
    const int b = median_size(p) / 2;
    return (size_t)(width + 2 * b) * 4 * (size_t)(height + 2 * b); /* plus NPP's scratch */
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

fv_status median_npp_state_create(const fv_variant *v, void **state, const fv_params *p, int width,
                                  int height)
{
    (void)v;
    const int k = median_size(p);
    median_npp_state *s = calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "npp: out of host memory");
    s->border = k / 2;
    fv_status st = npp_state_make(&s->npp);
    if (st == FV_OK)
        st = fv_device_image_alloc(&s->padded, width + 2 * s->border, height + 2 * s->border);
    Npp32u bytes = 0;
    if (st == FV_OK) {
        NppiSize size = {width, height}, mask = {k, k};
        st = npp_result(nppiFilterMedianGetBufferSize_8u_C4R_Ctx(size, mask, &bytes, s->npp->ctx),
                        "nppiFilterMedianGetBufferSize_8u_C4R_Ctx");
    }
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
                         const fv_params *p, void *state, cudaStream_t stream)
{
    (void)v;
    median_npp_state *s = state; /* made for p */
    const int k = median_size(p);
    FV_TRY(npp_stream(s->npp, stream));
    FV_TRY(median_pad_replicate(src, &s->padded, s->border, stream));
    const Npp8u *origin =
        s->padded.data + (size_t)s->border * s->padded.pitch + 4 * (size_t)s->border;
    NppiSize size = {src->width, src->height}, mask = {k, k};
    NppiPoint anchor = {s->border, s->border};
    FV_TRY(npp_result(nppiFilterMedian_8u_C4R_Ctx(origin, (Npp32s)s->padded.pitch, dst->data,
                                                  (Npp32s)dst->pitch, size, mask, anchor, s->buffer,
                                                  s->npp->ctx),
                      "nppiFilterMedian_8u_C4R_Ctx"));
    return npp_keep_alpha(&s->npp->ctx, src, dst);
}
