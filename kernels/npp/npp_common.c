/* ------------------------------------------------------------------------------------------------
 * kernels/npp/npp_common.c: what NVIDIA NPP's peers share (built only where CMake found NPP; see
 * npp_common.h): the stream context every NPP call takes, filled from the current device when a
 * peer's state is made and pointed at the run's stream on every run; the state that holds it
 * with a device buffer of weights; NPP's status as an fv_status; the source's alpha put back
 * after a C4R filter (nppiCopy_{8u,16u,32f}_C4CR: one channel, chosen by the pointers' offset,
 * from a 4-channel image to another, of the images' type). The peers themselves live in
 * the filters' folders (kernels/<filter>/<filter>_npp.c).
 * ------------------------------------------------------------------------------------------------ */
#include "npp/npp_common.h"
#include "cuda_check.h"

#include <nppi_data_exchange_and_initialization.h>
#include <stdint.h>
#include <stdlib.h>

fv_status npp_stream_context_fill(NppStreamContext *ctx)
{
    int device = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return fv_fail(FV_ERR_CUDA, "npp: cannot query the CUDA device");
    }
    ctx->nCudaDeviceId = device;
    ctx->nMultiProcessorCount = prop.multiProcessorCount;
    ctx->nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    ctx->nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    ctx->nSharedMemPerBlock = prop.sharedMemPerBlock;
    ctx->nCudaDevAttrComputeCapabilityMajor = prop.major;
    ctx->nCudaDevAttrComputeCapabilityMinor = prop.minor;
    return FV_OK;
}

fv_status npp_state_make(npp_state **out)
{
    npp_state *s = calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "npp: out of host memory");
    const fv_status st = npp_stream_context_fill(&s->ctx);
    if (st != FV_OK) {
        free(s);
        return st;
    }
    *out = s;
    return FV_OK;
}

void npp_state_destroy(const fv_variant *v, void *state)
{
    (void)v;
    npp_state *s = state;
    if (!s) return;
    if (s->taps) cudaFree(s->taps);
    free(s);
}

fv_status npp_context_stream(NppStreamContext *ctx, cudaStream_t stream)
{
    unsigned flags = 0;
    FV_CUDA_CHECK(cudaStreamGetFlags(stream, &flags));
    ctx->hStream = stream;
    ctx->nStreamFlags = flags;
    return FV_OK;
}

static int whole_pixels(const fv_image *img)
{
    const size_t pixel = fv_image_pixel_bytes(img);
    return (uintptr_t)img->data % pixel == 0 && img->pitch % pixel == 0;
}

fv_status npp_begin(npp_state *s, cudaStream_t stream, const fv_image *src, const fv_image *dst)
{
    const fv_image *bad = !whole_pixels(src) ? src : !whole_pixels(dst) ? dst : NULL;
    if (bad)
        return fv_fail(FV_ERR_UNSUPPORTED,
                       "npp: NPP takes rows that start on whole %d-byte pixels; this %s image "
                       "starts at byte %d of one (pitch %zu)",
                       (int)fv_image_pixel_bytes(bad), bad == src ? "source" : "destination",
                       (int)((uintptr_t)bad->data % (uintptr_t)fv_image_pixel_bytes(bad)),
                       bad->pitch);
    return npp_context_stream(&s->ctx, stream);
}

fv_status npp_result(NppStatus st, const char *call)
{
    if (st >= NPP_SUCCESS) return FV_OK; /* positive statuses are warnings: the result is there */
    return fv_fail(FV_ERR_CUDA, "%s failed with NPP status %d", call, (int)st);
}

fv_status npp_keep_alpha(const NppStreamContext *ctx, const fv_image *src, fv_image *dst)
{
    const NppiSize size = {src->width, src->height};
    const size_t alpha = 3 * fv_pixel_type_bytes(src->type); /* the 4th channel's offset */
    const int sp = (int)src->pitch, dp = (int)dst->pitch;
    switch (src->type) {
    case FV_PIXEL_U16:
        return npp_result(nppiCopy_16u_C4CR_Ctx((const Npp16u *)(src->data + alpha), sp,
                                                (Npp16u *)(dst->data + alpha), dp, size, *ctx),
                          "nppiCopy_16u_C4CR_Ctx");
    case FV_PIXEL_F32:
        return npp_result(nppiCopy_32f_C4CR_Ctx((const Npp32f *)(src->data + alpha), sp,
                                                (Npp32f *)(dst->data + alpha), dp, size, *ctx),
                          "nppiCopy_32f_C4CR_Ctx");
    default:
        return npp_result(
            nppiCopy_8u_C4CR_Ctx(src->data + alpha, sp, dst->data + alpha, dp, size, *ctx),
            "nppiCopy_8u_C4CR_Ctx");
    }
}
