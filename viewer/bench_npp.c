/* ------------------------------------------------------------------------------------------------
 * viewer/bench_npp.c: NPP's Gaussian as a benchmark column (built only where CMake found NPP).
 * nppiFilterGaussBorder_8u_C4R_Ctx with a 5x5 mask and replicated borders: the same footprint as
 * our default 5x5, though NPP's float weights differ from our integer ones (not bit-compared).
 * ------------------------------------------------------------------------------------------------ */
#include "bench.h"

#include <nppi_filtering_functions.h>
#include <string.h>

fv_status bench_npp_gauss5x5(const fv_image *src, fv_image *dst, const struct cudaDeviceProp *prop,
                             int device)
{
    NppStreamContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.hStream = 0;
    ctx.nCudaDeviceId = device;
    ctx.nMultiProcessorCount = prop->multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = prop->maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = prop->maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = prop->sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = prop->major;
    ctx.nCudaDevAttrComputeCapabilityMinor = prop->minor;
    ctx.nStreamFlags = 0; /* the legacy default stream */
    NppiSize size = {src->width, src->height};
    NppiPoint origin = {0, 0};
    NppStatus st = nppiFilterGaussBorder_8u_C4R_Ctx(src->data, (Npp32s)src->pitch, size, origin,
                                                    dst->data, (Npp32s)dst->pitch, size,
                                                    NPP_MASK_SIZE_5_X_5, NPP_BORDER_REPLICATE, ctx);
    if (st != NPP_SUCCESS)
        return fv_fail(FV_ERR_CUDA, "nppiFilterGaussBorder_8u_C4R_Ctx failed with status %d", (int)st);
    return FV_OK;
}
