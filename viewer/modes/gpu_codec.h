/* ------------------------------------------------------------------------------------------------
 * viewer/modes/gpu_codec.h: a batch's files through the GPU JPEG codec (--codec gpu|auto): a JPEG
 * decoded by nvJPEG straight into the filter's device source, filtered on the device, and, for a
 * JPEG output, encoded by nvJPEG from the device result; every other file, and a JPEG the GPU
 * codec cannot decode (counted: "fell back to the CPU codec"), through the CPU codecs, on the
 * same device buffers. batch.c (one file, "-" included) uses it; a folder's files go through
 * the pipeline of batch_gpu_jpeg.c, which shares its counts and its summary's words.
 * Tested by the CLI cases codec_* (the choice, its refusals, the summary) and
 * tests/gpu/codec_gpu.sh.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_GPU_CODEC_H
#define FV_GPU_CODEC_H

#include "cli.h"
#include "image_io.h"

/* Whether the run uses the GPU codec: --codec gpu (FV_ERR_NO_DEVICE, said, without a device),
 * or auto where it helps: this build has nvJPEG, a device is there, the variant runs on the GPU
 * and the inputs are JPEG files that pay for its start (`inputs_jpeg`: the caller's verdict, by
 * their names and gpu_codec_auto_pays). */
fv_status gpu_codec_choose(const cli_options *o, const fv_variant *v, int inputs_jpeg,
                           int *use_gpu);
/* Whether `path` names a JPEG file (.jpg, .jpeg; standard input: no). */
int gpu_codec_is_jpeg_name(const char *path);
/* --codec auto's verdict on JPEG inputs of `pixels` in `files` files: 1 where the GPU codec,
 * its start included, would be done before the CPU codec on `threads` threads (gpu_codec.c's
 * model of both). */
int gpu_codec_auto_pays(double pixels, int files, int threads);
/* A JPEG file's stored pixels, from its head; 0 where it cannot be read or holds no frame. */
double gpu_codec_jpeg_pixels(const char *path);
/* Whether bytes begin as a JPEG stream does (FF D8 FF), whatever their file is named. */
int gpu_codec_is_jpeg_bytes(const uint8_t *data, size_t size);
/* `img` made a device image of w x h, 4 channels of `type`: kept when it is one already (the
 * GPU codec's buffers between files of one size). */
fv_status gpu_codec_device_image_as(fv_image *img, int w, int h, fv_pixel_type type);

typedef struct gpu_codec gpu_codec;

/* Counts for the summary line. */
typedef struct gpu_codec_counts {
    int decoded_hardware, decoded_hybrid; /* JPEGs nvJPEG decoded, by decoder */
    int encoded;                          /* JPEGs nvJPEG encoded */
    int fell_back;                        /* JPEGs the CPU codec decoded instead */
} gpu_codec_counts;

/* Made once for the run (nvJPEG's handle, a stream, the runner, device buffers kept between
 * files of one size); one thread uses it. */
fv_status gpu_codec_create(const cli_options *o, const fv_filter *f, const fv_variant *v,
                           const fv_params *p, gpu_codec **out);
void gpu_codec_destroy(gpu_codec *c);

/* One file: `in` (or standard input) filtered into `out` (or standard output); `width` and
 * `height` (NULL: not wanted) the image's, `ms` the filter's time on the GPU. */
fv_status gpu_codec_file(gpu_codec *c, const char *in, const char *out, image_save_report *report,
                         int *width, int *height, double *ms);

/* "codec gpu (nvJPEG decoded 3 on the hardware decoder, 1 on the hybrid one, encoded 4); 2
 * JPEGs fell back to the CPU codec" */
void gpu_codec_describe(const gpu_codec *c, char *buf, size_t size);
/* The same from counts (the folder batch's pipeline keeps its own); `hardware`: the GPU has a
 * hardware JPEG decoder. */
void gpu_codec_describe_counts(const gpu_codec_counts *n, int hardware, char *buf, size_t size);

#endif
