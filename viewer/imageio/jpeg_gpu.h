/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/jpeg_gpu.h: the GPU JPEG codec (nvJPEG), beside the CPU one (jpeg.c), built where
 * the CUDA toolkit has nvJPEG (FV_HAVE_NVJPEG). One codec per thread: it holds nvJPEG's handle,
 * decoder states and buffers, made once and reused for every file.
 *
 * Decode: a JPEG file's bytes into a device RGBA8 image (the filter's source buffer), with the
 * hardware decoder (NVJPG) where the GPU has one and the file suits it (baseline, one scan), else
 * nvJPEG's hybrid decoder; EXIF orientation applied as the CPU codec applies it. Before any
 * decode the CPU reader's header checks run (codec_jpeg_inspect: the same limits and messages);
 * a file nvJPEG cannot decode as the CPU codec would (arithmetic, CMYK/YCCK, 12-bit, unusual
 * sampling, one nvJPEG declines, or one its decoder finds bad or incomplete) fails with
 * FV_ERR_UNSUPPORTED, "not for the GPU codec": the caller then decodes those bytes with the CPU
 * codec, which decodes or refuses a damaged file as it always does.
 * Encode: a device RGBA8 image to a JPEG file at the CLI's quality, 4:2:0 (gray: one component)
 * as the CPU codec writes it, alpha dropped, EXIF and ICC markers after APP0.
 * Overlap: one codec's calls are one thread's, and its work is in order on the stream given. For
 * several images in flight (the folder batch's pipeline), make one codec per image in flight with
 * jpeg_gpu_create_peer, each used with its own stream: peers share nvJPEG's handles, nothing else,
 * so their decodes (the hardware decoder's engines take several at once), filters and encodes
 * overlap. What stays on the calling thread: the header checks, nvJPEG's parse and, for the
 * hybrid decoder, its Huffman decode (nvjpegDecodeJpegHost); and the encoded stream's length is
 * known only once its stream is done (jpeg_gpu_encode_bitstream waits for it).
 * Checked by tests/gpu/jpeg_gpu_check.c against libjpeg-turbo on the project's JPEG corpus.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_JPEG_GPU_H
#define FV_JPEG_GPU_H

#include "image_io.h"

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jpeg_gpu jpeg_gpu;

/* Images the folder batch keeps in flight on the GPU, a codec and a stream each (see Overlap):
 * one being queued while two run. */
#define JPEG_GPU_SLOTS 3

/* The size to give a page-locked buffer that grows to hold `need` bytes: a quarter more, in
 * 64 KiB steps, so that a folder of files of varied sizes grows it a few times rather than at
 * each new largest file (cudaFreeHost waits for the whole device, every slot's work included). */
static inline size_t jpeg_gpu_grown_size(size_t need)
{
    return (need + need / 4 + 65535) & ~(size_t)65535;
}

/* Which of nvJPEG's decoders decoded a file. */
typedef enum jpeg_gpu_backend {
    JPEG_GPU_HARDWARE = 0, /* the GPU's JPEG engines (A100, H100, H200 ...) */
    JPEG_GPU_HYBRID,       /* Huffman decode on the CPU, the rest on the GPU */
    JPEG_GPU_BACKENDS
} jpeg_gpu_backend;

/* Makes a codec on the current device; FV_ERR_NO_DEVICE without one. */
fv_status jpeg_gpu_create(jpeg_gpu **out);
/* Another codec on `first`'s nvJPEG handles, with states and buffers of its own (see Overlap
 * above); destroyed before `first`. */
fv_status jpeg_gpu_create_peer(const jpeg_gpu *first, jpeg_gpu **out);
void jpeg_gpu_destroy(jpeg_gpu *g);
/* Whether the hardware decoder is there (else every file goes to the hybrid one). */
int jpeg_gpu_has_hardware(const jpeg_gpu *g);
/* The GPU's JPEG engines as nvJPEG counts them (nvjpegGetHardwareDecoderInfo); 0 without the
 * hardware decoder or where nvJPEG cannot say. */
int jpeg_gpu_hardware_engines(const jpeg_gpu *g);
/* "hardware" or "hybrid" */
const char *jpeg_gpu_backend_name(jpeg_gpu_backend b);

/* Decodes `size` bytes into `out`, a device RGBA8 image: kept when it has the upright image's
 * size, else (or when out->data is NULL) made here (fv_device_image_alloc), the caller's to
 * free either way. The work is queued on
 * `stream` and done when this returns. `info` (NULL: not wanted) as codec_jpeg_decode fills it;
 * `used` (NULL: not wanted) says which decoder ran. FV_ERR_UNSUPPORTED: the CPU codec's file. */
fv_status jpeg_gpu_decode(jpeg_gpu *g, const char *name, const uint8_t *data, size_t size,
                          fv_image *out, image_load_info *info, jpeg_gpu_backend *used,
                          cudaStream_t stream);
/* jpeg_gpu_decode without the wait: the decode is queued on `stream` (the hybrid decoder's CPU
 * part done here) and `out` is written when the stream gets there; `data` and the codec stay
 * untouched until then. `info` and `used` are filled on return. */
fv_status jpeg_gpu_decode_queue(jpeg_gpu *g, const char *name, const uint8_t *data, size_t size,
                                fv_image *out, image_load_info *info, jpeg_gpu_backend *used,
                                cudaStream_t stream);

/* Encodes device RGBA8 `img` at `quality` (1..100; gray: one component) and writes the file to
 * fd with `meta`'s markers (NULL: none). */
fv_status jpeg_gpu_encode(jpeg_gpu *g, const char *name, int fd, const fv_image *img, int quality,
                          int gray, const image_metadata *meta, cudaStream_t stream);
/* jpeg_gpu_encode in two steps: the encode of `img` queued on `stream` (img untouched until the
 * stream gets there), then, once the caller is ready to wait for it, its stream of bytes: *bits
 * is the codec's (pinned host memory), valid until its next encode. The bytes are the file but
 * for the metadata's markers (codec_jpeg_write_stream adds them). */
fv_status jpeg_gpu_encode_queue(jpeg_gpu *g, const char *name, const fv_image *img, int quality,
                                int gray, cudaStream_t stream);
fv_status jpeg_gpu_encode_bitstream(jpeg_gpu *g, const char *name, const uint8_t **bits,
                                    size_t *len, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
