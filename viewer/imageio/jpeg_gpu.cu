/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/jpeg_gpu.cu: the GPU JPEG codec through nvJPEG (see jpeg_gpu.h).
 *
 * Decode: codec_jpeg_inspect first (the CPU reader's limits, and whether the file is for the
 * hardware decoder, the hybrid one or the CPU codec), then nvJPEG's own parse, and its verdict
 * (nvjpegDecodeBatchedSupported for the hardware decoder, nvjpegDecoderJpegSupported for the
 * hybrid one). The hardware decoder is driven through nvjpegDecodeBatched (a batch of one here),
 * the hybrid one (NVJPEG_BACKEND_HYBRID: Huffman decode on the CPU, which takes the progressive
 * and multi-scan files the hardware leaves) through the decoupled API (host, transfer, device
 * phases). Both write interleaved RGB into a scratch buffer; one kernel widens it to RGBA and
 * turns it as EXIF says (orientation.h, the CPU codec's map) into the caller's device image. A
 * stream either decoder finds damaged is left to the CPU codec (FV_ERR_UNSUPPORTED).
 * Encode, on a default-backend handle of its own: one kernel narrows RGBA to interleaved RGB for
 * nvjpegEncodeImage at 4:2:0 (a gray image: its luma plane for nvjpegEncodeYUV, one component),
 * and the stream is written with the metadata's markers (codec_jpeg_write_stream).
 * Overlap (jpeg_gpu.h): a peer codec shares the first one's two nvJPEG handles (which nvJPEG
 * allows any number of states on) and has its own decoder states, pinned and device buffers,
 * encoder state and RGB scratch, so that each peer's work, queued on its own stream, runs beside
 * the others'. Queued work reads the peer's scratch and staging: a peer takes a new file only
 * once its stream has finished the last one.
 * Checked by tests/gpu/jpeg_gpu_check.c.
 * ------------------------------------------------------------------------------------------------ */
extern "C" {
#include "codec.h"
#include "cuda_check.h"
#include "jpeg_gpu.h"
}
#include "orientation.h"

#include <nvjpeg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PACK_BLOCK_X 32
#define PACK_BLOCK_Y 8

struct jpeg_gpu {
    int peer; /* the handles are another codec's (jpeg_gpu_create_peer): not destroyed here */
    nvjpegHandle_t handle;
    int hardware;               /* the handle drives the hardware decoder */
    nvjpegJpegState_t batched;  /* the hardware decoder's state: batches of one */
    int batched_ready;          /* initialised, and no batch has failed since */
    nvjpegJpegDecoder_t hybrid; /* NVJPEG_BACKEND_HYBRID, decoupled API */
    nvjpegJpegState_t hybrid_state;
    nvjpegBufferPinned_t pinned;  /* the hybrid decoder's staging */
    nvjpegBufferDevice_t scratch; /* and its device buffer */
    nvjpegDecodeParams_t params;
    nvjpegJpegStream_t parsed;
    nvjpegHandle_t encode_handle; /* the default backend's, for the encoder alone */
    nvjpegEncoderState_t encoder;
    nvjpegEncoderParams_t encoder_params;
    int quality, gray; /* what encoder_params hold; 0: not set yet */
    uint8_t *rgb;      /* device: interleaved RGB between the decoder or encoder and RGBA */
    size_t rgb_bytes;
    uint8_t *bits; /* host: the encoded stream */
    size_t bits_bytes;
};

static const char *nvjpeg_status_text(nvjpegStatus_t s)
{
    switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "success";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "not initialised";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "invalid parameter";
    case NVJPEG_STATUS_BAD_JPEG: return "bad JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "JPEG not supported";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "allocation failed";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "execution failed";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "not on this GPU";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "internal error";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "not implemented";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "incomplete bitstream";
    default: return "unknown status";
    }
}

/* nvJPEG's FV_CUDA_CHECK: statement, function, status; allocation failures are FV_ERR_MEMORY. */
#define NVJPEG_CHECK(expr)                                                                         \
    do {                                                                                           \
        nvjpegStatus_t nvjpeg_st_ = (expr);                                                        \
        if (nvjpeg_st_ != NVJPEG_STATUS_SUCCESS)                                                   \
            return fv_fail(                                                                        \
                nvjpeg_st_ == NVJPEG_STATUS_ALLOCATOR_FAILURE ? FV_ERR_MEMORY : FV_ERR_CUDA,       \
                "nvJPEG: %s in %s: %s", #expr, __func__, nvjpeg_status_text(nvjpeg_st_));          \
    } while (0)

/* A CUDA error on the way (FV_CUDA_CHECK returns; here the image must be freed first). */
static fv_status jpeg_gpu_cuda(cudaError_t e, const char *what, const char *name)
{
    if (e == cudaSuccess) return FV_OK;
    return fv_fail(FV_ERR_CUDA, "'%s': %s on the GPU failed: %s", name, what,
                   cudaGetErrorString(e));
}

/* Interleaved RGB (w x h, as stored) to RGBA, each pixel where orientation o sends it. */
static __global__ void jpeg_gpu_widen_kernel(const uint8_t *rgb, size_t rgb_pitch, int w, int h,
                                             int o, uint8_t *rgba, size_t rgba_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    int dx, dy;
    orient_map(o, w, h, x, y, &dx, &dy);
    const uint8_t *s = rgb + (size_t)y * rgb_pitch + 3 * (size_t)x;
    uchar4 p = make_uchar4(s[0], s[1], s[2], 255);
    *(uchar4 *)(rgba + (size_t)dy * rgba_pitch + 4 * (size_t)dx) = p;
}

/* RGBA to interleaved RGB for the encoder, or (channels 1: a gray image's, R = G = B) its luma
 * plane, which is R; alpha, which JPEG cannot hold, dropped. */
static __global__ void jpeg_gpu_narrow_kernel(const uint8_t *rgba, size_t rgba_pitch, int w, int h,
                                              int channels, uint8_t *out, size_t out_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const uchar4 p = *(const uchar4 *)(rgba + (size_t)y * rgba_pitch + 4 * (size_t)x);
    uint8_t *d = out + (size_t)y * out_pitch + (size_t)channels * x;
    d[0] = p.x;
    if (channels == 1) return;
    d[1] = p.y;
    d[2] = p.z;
}

static dim3 jpeg_gpu_grid(int w, int h)
{
    return dim3((unsigned)(w + PACK_BLOCK_X - 1) / PACK_BLOCK_X,
                (unsigned)(h + PACK_BLOCK_Y - 1) / PACK_BLOCK_Y);
}

/* The RGB scratch buffer, grown to `bytes` (never shrunk: a folder's images are alike). */
static fv_status jpeg_gpu_scratch(jpeg_gpu *g, size_t bytes)
{
    if (bytes <= g->rgb_bytes) return FV_OK;
    if (g->rgb) cudaFree(g->rgb);
    g->rgb = NULL;
    g->rgb_bytes = 0;
    FV_CUDA_CHECK(cudaMalloc((void **)&g->rgb, bytes));
    g->rgb_bytes = bytes;
    return FV_OK;
}

/* Everything but the handle, which jpeg_gpu_create tries backend by backend. */
static fv_status jpeg_gpu_states(jpeg_gpu *g)
{
    if (g->hardware) {
        NVJPEG_CHECK(nvjpegJpegStateCreate(g->handle, &g->batched));
        NVJPEG_CHECK(
            nvjpegDecodeBatchedInitialize(g->handle, g->batched, 1, 1, NVJPEG_OUTPUT_RGBI));
        g->batched_ready = 1;
    }
    /* HYBRID, not GPU_HYBRID: the files left to this decoder are progressive, multi-scan or 4:1:1,
     * which GPU_HYBRID's GPU Huffman decode is not for (nvjpeg.h: baseline, interleaved scan) */
    NVJPEG_CHECK(nvjpegDecoderCreate(g->handle, NVJPEG_BACKEND_HYBRID, &g->hybrid));
    NVJPEG_CHECK(nvjpegDecoderStateCreate(g->handle, g->hybrid, &g->hybrid_state));
    NVJPEG_CHECK(nvjpegBufferPinnedCreate(g->handle, NULL, &g->pinned));
    NVJPEG_CHECK(nvjpegBufferDeviceCreate(g->handle, NULL, &g->scratch));
    NVJPEG_CHECK(nvjpegStateAttachPinnedBuffer(g->hybrid_state, g->pinned));
    NVJPEG_CHECK(nvjpegStateAttachDeviceBuffer(g->hybrid_state, g->scratch));
    NVJPEG_CHECK(nvjpegDecodeParamsCreate(g->handle, &g->params));
    NVJPEG_CHECK(nvjpegDecodeParamsSetOutputFormat(g->params, NVJPEG_OUTPUT_RGBI));
    NVJPEG_CHECK(nvjpegJpegStreamCreate(g->handle, &g->parsed));
    /* NVJPEG_BACKEND_HARDWARE is a decoder's backend; the nvJPEG samples, nvImageCodec and
     * torchvision all encode on a default-backend handle, so the encoder has one of its own */
    if (!g->peer)
        NVJPEG_CHECK(nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &g->encode_handle));
    NVJPEG_CHECK(nvjpegEncoderStateCreate(g->encode_handle, &g->encoder, NULL));
    NVJPEG_CHECK(nvjpegEncoderParamsCreate(g->encode_handle, &g->encoder_params, NULL));
    return FV_OK;
}

/* The decoding handle's flags: chroma upsampled by interpolation, as libjpeg-turbo's "fancy"
 * upsampling does, so that both codecs agree on subsampled files. The flag exists from nvJPEG 12.1;
 * the library's version is checked before passing it, as nvImageCodec and DALI check it. */
static unsigned jpeg_gpu_decode_flags(void)
{
#ifdef NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION
    int major = 0, minor = 0;
    if (nvjpegGetProperty(MAJOR_VERSION, &major) == NVJPEG_STATUS_SUCCESS &&
        nvjpegGetProperty(MINOR_VERSION, &minor) == NVJPEG_STATUS_SUCCESS &&
        (major > 12 || (major == 12 && minor >= 1)))
        return NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION;
#endif
    return 0;
}

extern "C" fv_status jpeg_gpu_create(jpeg_gpu **out)
{
    *out = NULL;
    FV_TRY(fv_device_check());
    jpeg_gpu *g = (jpeg_gpu *)calloc(1, sizeof *g);
    if (!g) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    /* the hardware decoder where the GPU has JPEG engines; nvJPEG refuses the backend elsewhere */
    const unsigned flags = jpeg_gpu_decode_flags();
    g->hardware = nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, flags, &g->handle) ==
                  NVJPEG_STATUS_SUCCESS;
    fv_status s = FV_OK;
    if (!g->hardware) {
        g->handle = NULL;
        nvjpegStatus_t st = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, flags, &g->handle);
        if (st != NVJPEG_STATUS_SUCCESS)
            s = fv_fail(FV_ERR_CUDA, "nvJPEG cannot start on this GPU: %s", nvjpeg_status_text(st));
    }
    if (s == FV_OK) s = jpeg_gpu_states(g);
    if (s != FV_OK) {
        jpeg_gpu_destroy(g);
        return s;
    }
    *out = g;
    return FV_OK;
}

extern "C" fv_status jpeg_gpu_create_peer(const jpeg_gpu *first, jpeg_gpu **out)
{
    *out = NULL;
    jpeg_gpu *g = (jpeg_gpu *)calloc(1, sizeof *g);
    if (!g) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    g->peer = 1;
    g->handle = first->handle;
    g->hardware = first->hardware;
    g->encode_handle = first->encode_handle;
    const fv_status s = jpeg_gpu_states(g);
    if (s != FV_OK) {
        jpeg_gpu_destroy(g);
        return s;
    }
    *out = g;
    return FV_OK;
}

extern "C" void jpeg_gpu_destroy(jpeg_gpu *g)
{
    if (!g) return;
    if (g->encoder_params) nvjpegEncoderParamsDestroy(g->encoder_params);
    if (g->encoder) nvjpegEncoderStateDestroy(g->encoder);
    if (g->encode_handle && !g->peer) nvjpegDestroy(g->encode_handle);
    if (g->parsed) nvjpegJpegStreamDestroy(g->parsed);
    if (g->params) nvjpegDecodeParamsDestroy(g->params);
    if (g->hybrid_state) nvjpegJpegStateDestroy(g->hybrid_state);
    if (g->scratch) nvjpegBufferDeviceDestroy(g->scratch);
    if (g->pinned) nvjpegBufferPinnedDestroy(g->pinned);
    if (g->hybrid) nvjpegDecoderDestroy(g->hybrid);
    if (g->batched) nvjpegJpegStateDestroy(g->batched);
    if (g->handle && !g->peer) nvjpegDestroy(g->handle);
    if (g->rgb) cudaFree(g->rgb);
    if (g->bits) cudaFreeHost(g->bits);
    free(g);
}

extern "C" int jpeg_gpu_has_hardware(const jpeg_gpu *g)
{
    return g->hardware;
}

extern "C" int jpeg_gpu_hardware_engines(const jpeg_gpu *g)
{
    unsigned engines = 0, cores = 0;
    if (!g->hardware ||
        nvjpegGetHardwareDecoderInfo(g->handle, &engines, &cores) != NVJPEG_STATUS_SUCCESS)
        return 0;
    return (int)engines;
}

extern "C" const char *jpeg_gpu_backend_name(jpeg_gpu_backend b)
{
    return b == JPEG_GPU_HARDWARE ? "hardware" : "hybrid";
}

/* Which decoder takes the parsed file: the hardware one where the header and nvJPEG both say so,
 * else the hybrid one if it accepts it; FV_ERR_UNSUPPORTED otherwise. */
static fv_status jpeg_gpu_choose(jpeg_gpu *g, const char *name, const codec_jpeg_header *h,
                                 jpeg_gpu_backend *b)
{
    int refused = 1; /* nvJPEG's verdicts: 0 means supported */
    if (g->hardware && h->fit == CODEC_JPEG_GPU_ANY &&
        nvjpegDecodeBatchedSupported(g->handle, g->parsed, &refused) == NVJPEG_STATUS_SUCCESS &&
        refused == 0) {
        *b = JPEG_GPU_HARDWARE;
        return FV_OK;
    }
    refused = 1;
    if (nvjpegDecoderJpegSupported(g->hybrid, g->parsed, g->params, &refused) ==
            NVJPEG_STATUS_SUCCESS &&
        refused == 0) {
        *b = JPEG_GPU_HYBRID;
        return FV_OK;
    }
    return fv_fail(FV_ERR_UNSUPPORTED, "'%s': nvJPEG declines it: not for the GPU codec", name);
}

/* Runs decoder b; the first failing call's status, and its name in *step. */
static nvjpegStatus_t jpeg_gpu_run_decoder(jpeg_gpu *g, jpeg_gpu_backend b, const uint8_t *data,
                                           size_t size, nvjpegImage_t *dst, cudaStream_t stream,
                                           const char **step)
{
    nvjpegStatus_t st = NVJPEG_STATUS_SUCCESS;
    if (b == JPEG_GPU_HARDWARE) {
        /* nvjpeg.h: nvjpegDecodeBatchedInitialize is "also use[d] to reset failed batches" */
        if (!g->batched_ready) {
            *step = "nvjpegDecodeBatchedInitialize";
            st = nvjpegDecodeBatchedInitialize(g->handle, g->batched, 1, 1, NVJPEG_OUTPUT_RGBI);
            if (st != NVJPEG_STATUS_SUCCESS) return st;
            g->batched_ready = 1;
        }
        const unsigned char *one[1] = {data};
        const size_t lengths[1] = {size};
        *step = "nvjpegDecodeBatched";
        st = nvjpegDecodeBatched(g->handle, g->batched, one, lengths, dst, stream);
        if (st != NVJPEG_STATUS_SUCCESS) g->batched_ready = 0;
        return st;
    }
    *step = "nvjpegDecodeJpegHost";
    st = nvjpegDecodeJpegHost(g->handle, g->hybrid, g->hybrid_state, g->params, g->parsed);
    if (st != NVJPEG_STATUS_SUCCESS) return st;
    *step = "nvjpegDecodeJpegTransferToDevice";
    st = nvjpegDecodeJpegTransferToDevice(g->handle, g->hybrid, g->hybrid_state, g->parsed, stream);
    if (st != NVJPEG_STATUS_SUCCESS) return st;
    *step = "nvjpegDecodeJpegDevice";
    return nvjpegDecodeJpegDevice(g->handle, g->hybrid, g->hybrid_state, dst, stream);
}

/* A decoder's failure as a status: a stream nvJPEG finds bad or incomplete is the CPU codec's to
 * decode or to refuse with its own reason (as DALI falls back to its host decoder), so that both
 * codecs agree on damaged files; anything else is a failure of the GPU codec. */
static fv_status jpeg_gpu_decode_failed(jpeg_gpu_backend b, nvjpegStatus_t st, const char *step,
                                        const char *name, cudaStream_t stream)
{
    /* a transfer queued before the failing call may still read the pinned staging buffer */
    cudaStreamSynchronize(stream);
    if (st == NVJPEG_STATUS_BAD_JPEG || st == NVJPEG_STATUS_JPEG_NOT_SUPPORTED ||
        st == NVJPEG_STATUS_INCOMPLETE_BITSTREAM)
        return fv_fail(FV_ERR_UNSUPPORTED, "'%s': nvJPEG's %s decoder: %s: not for the GPU codec",
                       name, jpeg_gpu_backend_name(b), nvjpeg_status_text(st));
    return fv_fail(st == NVJPEG_STATUS_ALLOCATOR_FAILURE ? FV_ERR_MEMORY : FV_ERR_CUDA,
                   "'%s': nvJPEG's %s decoder: %s failed: %s", name, jpeg_gpu_backend_name(b), step,
                   nvjpeg_status_text(st));
}

extern "C" fv_status jpeg_gpu_decode_queue(jpeg_gpu *g, const char *name, const uint8_t *data,
                                           size_t size, fv_image *out, image_load_info *info,
                                           jpeg_gpu_backend *used, cudaStream_t stream)
{
    if (info) memset(info, 0, sizeof *info);
    codec_jpeg_header h;
    FV_TRY(codec_jpeg_inspect(name, data, size, &h, NULL));
    if (h.fit == CODEC_JPEG_CPU_ONLY)
        return fv_fail(FV_ERR_UNSUPPORTED, "'%s': %s: not for the GPU codec", name, h.why);
    if (nvjpegJpegStreamParse(g->handle, data, size, 0, 0, g->parsed) != NVJPEG_STATUS_SUCCESS)
        return fv_fail(FV_ERR_UNSUPPORTED, "'%s': nvJPEG cannot parse it: not for the GPU codec",
                       name);
    jpeg_gpu_backend b = JPEG_GPU_HYBRID;
    FV_TRY(jpeg_gpu_choose(g, name, &h, &b));
    const int w = h.width, ht = h.height, swap = h.orientation >= 5;
    const int up_w = swap ? ht : w, up_h = swap ? w : ht;
    /* the caller's image is reused when it has the size, as a folder's images mostly do */
    if (out->data &&
        (out->width != up_w || out->height != up_h || out->memory != FV_MEMORY_DEVICE ||
         fv_image_channels(out) != 4 || out->type != FV_PIXEL_U8))
        fv_device_image_free(out);
    if (!out->data) FV_TRY(fv_device_image_alloc(out, up_w, up_h));
    const size_t rgb_pitch = 3 * (size_t)w;
    fv_status s = jpeg_gpu_scratch(g, rgb_pitch * (size_t)ht);
    nvjpegImage_t dst;
    memset(&dst, 0, sizeof dst);
    dst.channel[0] = g->rgb;
    dst.pitch[0] = rgb_pitch;
    if (s == FV_OK) {
        const char *step = "";
        const nvjpegStatus_t st = jpeg_gpu_run_decoder(g, b, data, size, &dst, stream, &step);
        if (st != NVJPEG_STATUS_SUCCESS) s = jpeg_gpu_decode_failed(b, st, step, name, stream);
    }
    if (s == FV_OK) {
        jpeg_gpu_widen_kernel<<<jpeg_gpu_grid(w, ht), dim3(PACK_BLOCK_X, PACK_BLOCK_Y), 0,
                                stream>>>(g->rgb, rgb_pitch, w, ht, h.orientation, out->data,
                                          out->pitch);
        s = jpeg_gpu_cuda(cudaGetLastError(), "jpeg_gpu_widen_kernel", name);
    }
    /* the metadata the CPU codec would give, read from the same markers */
    if (s == FV_OK && info) s = codec_jpeg_inspect(name, data, size, &h, info);
    if (s != FV_OK) return s;
    if (used) *used = b;
    return FV_OK;
}

extern "C" fv_status jpeg_gpu_decode(jpeg_gpu *g, const char *name, const uint8_t *data,
                                     size_t size, fv_image *out, image_load_info *info,
                                     jpeg_gpu_backend *used, cudaStream_t stream)
{
    FV_TRY(jpeg_gpu_decode_queue(g, name, data, size, out, info, used, stream));
    return jpeg_gpu_cuda(cudaStreamSynchronize(stream), "decode", name);
}

/* The encoder's settings, changed only when the quality or the sampling changes. */
static fv_status jpeg_gpu_encoder_set(jpeg_gpu *g, int quality, int gray, cudaStream_t stream)
{
    if (g->quality != quality) {
        NVJPEG_CHECK(nvjpegEncoderParamsSetQuality(g->encoder_params, quality, stream));
        g->quality = quality;
    }
    if (g->gray != gray + 1) {
        NVJPEG_CHECK(nvjpegEncoderParamsSetSamplingFactors(
            g->encoder_params, gray ? NVJPEG_CSS_GRAY : NVJPEG_CSS_420, stream));
        g->gray = gray + 1;
    }
    return FV_OK;
}

/* The narrowing kernel and nvJPEG's encode, queued on `stream`. */
static fv_status jpeg_gpu_encode_start(jpeg_gpu *g, const fv_image *img, int quality, int gray,
                                       cudaStream_t stream)
{
    const int w = img->width, h = img->height, channels = gray ? 1 : 3;
    const size_t pitch = (size_t)channels * w;
    FV_TRY(jpeg_gpu_scratch(g, pitch * (size_t)h));
    FV_TRY(jpeg_gpu_encoder_set(g, quality, gray, stream));
    jpeg_gpu_narrow_kernel<<<jpeg_gpu_grid(w, h), dim3(PACK_BLOCK_X, PACK_BLOCK_Y), 0, stream>>>(
        img->data, img->pitch, w, h, channels, g->rgb, pitch);
    FV_CUDA_CHECK(cudaGetLastError());
    nvjpegImage_t src;
    memset(&src, 0, sizeof src);
    src.channel[0] = g->rgb;
    src.pitch[0] = pitch;
    /* gray: the luma plane alone, as YUV with no chroma (an RGB input would be 3 components) */
    if (gray)
        NVJPEG_CHECK(nvjpegEncodeYUV(g->encode_handle, g->encoder, g->encoder_params, &src,
                                     NVJPEG_CSS_GRAY, w, h, stream));
    else
        NVJPEG_CHECK(nvjpegEncodeImage(g->encode_handle, g->encoder, g->encoder_params, &src,
                                       NVJPEG_INPUT_RGBI, w, h, stream));
    return FV_OK;
}

/* The encoded stream into g->bits (pinned, grown as needed), once the stream is done. */
static fv_status jpeg_gpu_encode_retrieve(jpeg_gpu *g, size_t *len, cudaStream_t stream)
{
    /* the length is known once the encode is done: synchronise before asking, as nvImageCodec's
     * nvJPEG encoder does */
    FV_CUDA_CHECK(cudaStreamSynchronize(stream));
    NVJPEG_CHECK(nvjpegEncodeRetrieveBitstream(g->encode_handle, g->encoder, NULL, len, stream));
    if (*len > g->bits_bytes) {
        if (g->bits) cudaFreeHost(g->bits);
        g->bits = NULL;
        g->bits_bytes = 0;
        const size_t bytes = jpeg_gpu_grown_size(*len);
        FV_CUDA_CHECK(cudaMallocHost((void **)&g->bits, bytes));
        g->bits_bytes = bytes;
    }
    NVJPEG_CHECK(nvjpegEncodeRetrieveBitstream(g->encode_handle, g->encoder, g->bits, len, stream));
    FV_CUDA_CHECK(cudaStreamSynchronize(stream));
    return FV_OK;
}

/* A failure of the encoder in the CPU codec's words: "cannot write 'x': JPEG encoder: ..." */
static fv_status jpeg_gpu_encode_failed(fv_status s, const char *name)
{
    char why[512];
    snprintf(why, sizeof why, "%s", fv_last_error());
    return fv_fail(s, "cannot write '%s': JPEG encoder: %s", name, why);
}

extern "C" fv_status jpeg_gpu_encode_queue(jpeg_gpu *g, const char *name, const fv_image *img,
                                           int quality, int gray, cudaStream_t stream)
{
    if (img->memory != FV_MEMORY_DEVICE || fv_image_channels(img) != 4 || img->type != FV_PIXEL_U8)
        return fv_fail(FV_ERR_ARG, "'%s': the GPU JPEG encoder takes a device RGBA8 image", name);
    const fv_status s = jpeg_gpu_encode_start(g, img, quality, gray, stream);
    return s == FV_OK ? FV_OK : jpeg_gpu_encode_failed(s, name);
}

extern "C" fv_status jpeg_gpu_encode_bitstream(jpeg_gpu *g, const char *name, const uint8_t **bits,
                                               size_t *len, cudaStream_t stream)
{
    *bits = NULL;
    *len = 0;
    const fv_status s = jpeg_gpu_encode_retrieve(g, len, stream);
    if (s != FV_OK) return jpeg_gpu_encode_failed(s, name);
    *bits = g->bits;
    return FV_OK;
}

extern "C" fv_status jpeg_gpu_encode(jpeg_gpu *g, const char *name, int fd, const fv_image *img,
                                     int quality, int gray, const image_metadata *meta,
                                     cudaStream_t stream)
{
    const uint8_t *bits = NULL;
    size_t len = 0;
    FV_TRY(jpeg_gpu_encode_queue(g, name, img, quality, gray, stream));
    FV_TRY(jpeg_gpu_encode_bitstream(g, name, &bits, &len, stream));
    return codec_jpeg_write_stream(name, fd, bits, len, meta);
}
