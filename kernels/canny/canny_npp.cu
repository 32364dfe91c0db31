/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_npp.cu: Canny's peer, variant `npp` (built only where CMake found NPP):
 * nppiFilterCannyBorder_8u_C1R on our gray image (canny_gray_kernel) with the manual low and high
 * thresholds; no blur, no auto thresholds, only its edge map, expanded to RGBA8 by a kernel of its
 * own, alpha 255 as every Canny variant writes. Without the blur its edges are not canny_ref's:
 * canny_npp_tolerance holds alpha alone.
 * ------------------------------------------------------------------------------------------------ */
#include "canny_internal.h"
#include "canny_npp.h"
#include "cuda_check.h"
#include "npp/npp_common.h"

#include <nppi_filtering_functions.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" const fv_tolerance canny_npp_tolerance = {.max_abs = 255, .max_share = 1.0};

typedef struct canny_npp_state {
    canny_state base; /* gray and blur (NPP's edges) buffers; the rest unused */
    NppStreamContext ctx;
    Npp8u *buffer;
} canny_npp_state;

void canny_npp_state_destroy(const fv_variant *v, void *state)
{
    canny_npp_state *s = (canny_npp_state *)state;
    if (!s) return;
    cudaFree(s->buffer);
    cudaFree(s->base.gray);
    cudaFree(s->base.blur);
    free(s);
}

int canny_npp_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                       int height, char *why, size_t why_size)
{
    (void)v, (void)p, (void)width, (void)height;
    const canny_config *c = (const canny_config *)config;
    const char *no = NULL;
    if (c->stage != CANNY_GRAY && c->stage != CANNY_EDGES)
        no = "NPP makes the edge map only (stage edges, or gray: its input)";
    else if (c->stage == CANNY_EDGES && c->one_pass)
        no = "NPP's hysteresis is full (hysteresis full)";
    else if (c->stage == CANNY_EDGES && c->inc != 0) /* full hysteresis steps labels: capped */
        no = "NPP's hysteresis is not capped (sweeps 0)";
    else if (c->stage == CANNY_EDGES && c->auto_thresholds)
        no = "NPP takes manual thresholds (thresholds manual)";
    if (!no) return 1;
    snprintf(why, why_size, "%s", no);
    return 0;
}

size_t canny_npp_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                             int height)
{
    (void)config, (void)p;
    return 2 * (size_t)width * height;
}

fv_status canny_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                 const void *config, int width, int height)
{
    (void)p;
    const canny_config c = *(const canny_config *)config;
    canny_npp_state *s = (canny_npp_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "canny/npp: out of host memory");
    s->base.config = c;
    s->base.width = width;
    s->base.height = height;
    int bytes = 0;
    const NppiSize size = {width, height};
    if (npp_stream_context_fill(&s->ctx) != FV_OK ||
        nppiFilterCannyBorderGetBufferSize(size, &bytes) < NPP_SUCCESS ||
        cudaMalloc((void **)&s->buffer, bytes > 0 ? (size_t)bytes : 1) != cudaSuccess ||
        cudaMalloc((void **)&s->base.gray, (size_t)width * height) != cudaSuccess ||
        cudaMalloc((void **)&s->base.blur, (size_t)width * height) != cudaSuccess) {
        cudaGetLastError();
        canny_npp_state_destroy(v, s);
        return fv_fail(FV_ERR_MEMORY, "canny/npp: cannot prepare NPP's Canny for %dx%d", width,
                       height);
    }
    *state = s;
    return FV_OK;
}

static __global__ void canny_npp_expand_kernel(fv_image dst, const uint8_t *edges, int w, int h)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    store_pixel(dst, x, y, canny_display_gray(edges[(size_t)y * w + x]));
}

fv_status canny_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                        void *state, cudaStream_t stream)
{
    (void)config; /* the state was made from it */
    canny_config c;
    canny_args a{};
    canny_npp_state *s = (canny_npp_state *)state;
    canny_prepare(src, &s->base, &c, &a);
    const dim3 grid = pixel_grid(a.w, a.h), block(PIXEL_BLOCK_X, PIXEL_BLOCK_Y);
    canny_gray_kernel<<<grid, block, 0, stream>>>(*src, a);
    FV_CUDA_CHECK(cudaGetLastError());
    const uint8_t *shown = s->base.gray;
    if (a.stage != CANNY_GRAY) {
        FV_TRY(npp_context_stream(&s->ctx, stream));
        const NppiSize size = {a.w, a.h};
        const NppiPoint origin = {0, 0};
        FV_TRY(npp_result(nppiFilterCannyBorder_8u_C1R_Ctx(
                              s->base.gray, a.w, size, origin, s->base.blur, a.w, size,
                              NPP_FILTER_SOBEL, NPP_MASK_SIZE_3_X_3, (Npp16s)c.low, (Npp16s)c.high,
                              c.l2 ? nppiNormL2 : nppiNormL1, NPP_BORDER_REPLICATE, s->buffer,
                              s->ctx),
                          "nppiFilterCannyBorder_8u_C1R_Ctx"));
        shown = s->base.blur;
    }
    canny_npp_expand_kernel<<<grid, block, 0, stream>>>(*dst, shown, a.w, a.h);
    FV_CUDA_CHECK(cudaGetLastError());
    return FV_OK;
}
