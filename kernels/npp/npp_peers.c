/* ------------------------------------------------------------------------------------------------
 * kernels/npp/npp_peers.c: NVIDIA NPP's versions of our filters as variant `npp` (built only where
 * CMake found NPP; see npp_peers.h). Each keeps an NppStreamContext (device properties read
 * once, when the state is made) and, for the Gaussian, its taps in device memory: our integer
 * weights divided by 256 as floats, so that NPP filters with the same kernel as ours; what
 * differs is its float arithmetic and rounding. The stream is set on every run.
 * ------------------------------------------------------------------------------------------------ */
#include "box/box.h"
#include "conv/conv.h"
#include "cuda_check.h"
#include "gaussian/gaussian_taps.h"
#include "median/median.h"
#include "npp/npp_peers.h"

#include <nppi_filtering_functions.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct npp_state {
    NppStreamContext ctx;
    Npp32f *taps;                /* device: the Gaussian's 1-D kernel */
    int n_taps;
} npp_state;

fv_status npp_stream_context_fill(NppStreamContext *ctx)
{
    int device = 0;
    struct cudaDeviceProp prop;
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
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

static fv_status npp_state_make(npp_state **out)
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

static fv_status npp_stream(npp_state *s, cudaStream_t stream)
{
    unsigned flags = 0;
    FV_CUDA_CHECK(cudaStreamGetFlags(stream, &flags));
    s->ctx.hStream = stream;
    s->ctx.nStreamFlags = flags;
    return FV_OK;
}

static fv_status npp_result(NppStatus st, const char *call)
{
    if (st >= NPP_SUCCESS) return FV_OK; /* positive statuses are warnings: the result is there */
    return fv_fail(FV_ERR_CUDA, "%s failed with NPP status %d", call, (int)st);
}

fv_status npp_gaussian_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height)
{
    (void)v;
    (void)width;
    (void)height;
    fv_gaussian_taps t;
    FV_TRY(fv_gaussian_taps_make(p, &t));
    npp_state *s = NULL;
    FV_TRY(npp_state_make(&s));
    Npp32f host[2 * FV_GAUSSIAN_MAX_RADIUS + 1];
    s->n_taps = 2 * t.radius + 1;
    for (int k = 0; k < s->n_taps; k++) host[k] = (Npp32f)t.w[k] / FV_GAUSSIAN_WEIGHT_SUM;
    if (cudaMalloc((void **)&s->taps, sizeof host) != cudaSuccess ||
        cudaMemcpy(s->taps, host, sizeof(Npp32f) * (size_t)s->n_taps, cudaMemcpyHostToDevice) != cudaSuccess) {
        npp_state_destroy(v, s);
        return fv_fail(FV_ERR_MEMORY, "npp: cannot place the Gaussian's taps on the device");
    }
    *state = s;
    return FV_OK;
}

fv_status npp_gaussian_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                           cudaStream_t stream)
{
    (void)v;
    (void)p;
    npp_state *s = state;
    FV_TRY(npp_stream(s, stream));
    NppiSize size = {src->width, src->height};
    NppiPoint origin = {0, 0};
    return npp_result(nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(
                          src->data, (Npp32s)src->pitch, size, origin, dst->data, (Npp32s)dst->pitch,
                          size, s->n_taps, s->taps, NPP_BORDER_REPLICATE, s->ctx),
                      "nppiFilterGaussAdvancedBorder_8u_C4R_Ctx");
}

fv_status npp_box_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height)
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

fv_status npp_box_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                      cudaStream_t stream)
{
    (void)v;
    npp_state *s = state;
    FV_TRY(npp_stream(s, stream));
    const int r = box_radius(p);
    NppiSize size = {src->width, src->height};
    NppiSize mask = {2 * r + 1, 2 * r + 1};
    NppiPoint origin = {0, 0}, anchor = {r, r};
    return npp_result(nppiFilterBoxBorder_8u_C4R_Ctx(src->data, (Npp32s)src->pitch, size, origin,
                                                     dst->data, (Npp32s)dst->pitch, size, mask,
                                                     anchor, NPP_BORDER_REPLICATE, s->ctx),
                      "nppiFilterBoxBorder_8u_C4R_Ctx");
}

/* ---- median: NPP on a padded copy of the source -------------------------------------------- */
typedef struct npp_median_state {
    npp_state *npp;
    fv_image padded;             /* (width + 2b) x (height + 2b), b = k / 2: replicated borders */
    Npp8u *buffer;               /* NPP's scratch */
    int border;
} npp_median_state;

size_t npp_median_state_bytes(const fv_variant *v, const fv_params *p, int width, int height)
{
    (void)v;
    const int b = median_size(p) / 2;
    return (size_t)(width + 2 * b) * 4 * (size_t)(height + 2 * b); /* plus NPP's scratch */
}

void npp_median_state_destroy(const fv_variant *v, void *state)
{
    (void)v;
    npp_median_state *s = state;
    if (!s) return;
    npp_state_destroy(v, s->npp);
    fv_device_image_free(&s->padded);
    if (s->buffer) cudaFree(s->buffer);
    free(s);
}

fv_status npp_median_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height)
{
    (void)v;
    const int k = median_size(p);
    npp_median_state *s = calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "npp: out of host memory");
    s->border = k / 2;
    fv_status st = npp_state_make(&s->npp);
    if (st == FV_OK) st = fv_device_image_alloc(&s->padded, width + 2 * s->border, height + 2 * s->border);
    Npp32u bytes = 0;
    if (st == FV_OK) {
        NppiSize size = {width, height}, mask = {k, k};
        st = npp_result(nppiFilterMedianGetBufferSize_8u_C4R_Ctx(size, mask, &bytes, s->npp->ctx),
                        "nppiFilterMedianGetBufferSize_8u_C4R_Ctx");
    }
    if (st == FV_OK && cudaMalloc((void **)&s->buffer, bytes ? bytes : 1) != cudaSuccess) {
        cudaGetLastError();
        st = fv_fail(FV_ERR_MEMORY, "npp: cannot allocate the median's %u bytes of scratch", (unsigned)bytes);
    }
    if (st != FV_OK) {
        npp_median_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

fv_status npp_median_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                         cudaStream_t stream)
{
    (void)v;
    npp_median_state *s = state; /* made for p */
    const int k = median_size(p);
    FV_TRY(npp_stream(s->npp, stream));
    FV_TRY(median_pad_replicate(src, &s->padded, s->border, stream));
    const Npp8u *origin = s->padded.data + (size_t)s->border * s->padded.pitch + 4 * (size_t)s->border;
    NppiSize size = {src->width, src->height}, mask = {k, k};
    NppiPoint anchor = {s->border, s->border};
    return npp_result(nppiFilterMedian_8u_C4R_Ctx(origin, (Npp32s)s->padded.pitch, dst->data, (Npp32s)dst->pitch,
                                                  size, mask, anchor, s->buffer, s->npp->ctx),
                      "nppiFilterMedian_8u_C4R_Ctx");
}

/* ---- conv: NPP's general filter with our integer weights ------------------------------------ */
/* NPP convolves (its coefficients "in reverse order"): dst(x) = sum_j src(x + j - anchor) *
 * kernel[kw - 1 - j], so our K goes in as it is, anchored at (kw - 1 - cx, kh - 1 - cy). */
size_t npp_conv_state_bytes(const fv_variant *v, const fv_params *p, int width, int height)
{
    (void)v;
    (void)p;
    (void)width;
    (void)height;
    return sizeof(Npp32s) * FV_CONV_MAX_TAPS;
}

int npp_conv_supports(const fv_variant *v, const fv_params *p, int width, int height, char *why,
                      size_t why_size)
{
    (void)v;
    (void)width;
    (void)height;
    if (conv_stage(p) == CONV_OUTPUT) return 1;
    snprintf(why, why_size, "NPP makes the output stage only");
    return 0;
}

fv_status npp_conv_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height)
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
        if (cudaMalloc((void **)&s->taps, sizeof(Npp32s) * (size_t)k->width * (size_t)k->height) != cudaSuccess ||
            cudaMemcpy(s->taps, k->w, sizeof(Npp32s) * (size_t)k->width * (size_t)k->height, cudaMemcpyHostToDevice) != cudaSuccess) {
            cudaGetLastError();
            st = fv_fail(FV_ERR_MEMORY, "npp: cannot place the convolution's weights on the device");
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

fv_status npp_conv_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                       cudaStream_t stream)
{
    (void)v;
    (void)p;
    npp_state *s = state;
    FV_TRY(npp_stream(s, stream));
    const int kw = s->n_taps & 0xffff, kh = s->n_taps >> 16;
    NppiSize size = {src->width, src->height}, mask = {kw, kh};
    NppiPoint origin = {0, 0}, anchor = {kw - 1 - kw / 2, kh - 1 - kh / 2};
    return npp_result(nppiFilterBorder_8u_C4R_Ctx(src->data, (Npp32s)src->pitch, size, origin, dst->data,
                                                  (Npp32s)dst->pitch, size, (const Npp32s *)s->taps, mask, anchor,
                                                  FV_CONV_WEIGHT_SUM, NPP_BORDER_REPLICATE, s->ctx),
                      "nppiFilterBorder_8u_C4R_Ctx");
}
