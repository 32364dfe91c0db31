/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch_gpu_jpeg.h: the folder batch with the GPU JPEG codec (--codec gpu|auto) as
 * an overlapped pipeline: CPU threads read the files, this thread keeps a few images in flight
 * on the GPU (decode, filter, encode, each image on a stream of its own), CPU threads write the
 * results. batch_many.c walks the folders, names the outputs, guards the originals and prints the
 * summary; this file takes the named files from their bytes to their outputs.
 * Tested by tests/gpu/codec_gpu.sh (against --threads 1 and --codec cpu, interrupted runs) and,
 * for its hand-overs, tests/cpu/test_stage_hub.c.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BATCH_GPU_JPEG_H
#define FV_BATCH_GPU_JPEG_H

#include "cli.h"
#include "gpu_codec.h"
#include "image_io.h"

/* The pipeline's stages, in a file's order. */
typedef enum batch_stage {
    BATCH_STAGE_READ = 0, /* CPU threads: the file's bytes (and the CPU codec's decode of those
                             the GPU codec leaves) */
    BATCH_STAGE_DECODE,   /* the GPU: nvJPEG's decode, or the upload of a CPU-decoded image */
    BATCH_STAGE_FILTER,   /* the GPU: the filter */
    BATCH_STAGE_ENCODE,   /* the GPU: nvJPEG's encode, or the download for a CPU codec */
    BATCH_STAGE_WRITE,    /* CPU threads: the file written (and encoded, for other formats) */
    BATCH_STAGES
} batch_stage;

/* What a run did, for the summary. */
typedef struct batch_gpu_jpeg_result {
    gpu_codec_counts counts;
    int hardware;                 /* the GPU has a hardware JPEG decoder */
    int threads, slots;           /* CPU threads, images in flight on the GPU */
    double busy_ms[BATCH_STAGES]; /* summed over the threads (CPU) or the slots (GPU) */
    double wall_ms;               /* the pipeline's own time, from its first read */
    double setup_ms;              /* before it: the slots' codecs, streams and buffers made */
    double setup_context_ms;      /* of which the CUDA context (where this run made it) */
    double setup_first_ms;        /* and the first slot's nvJPEG codec, with its handles */
} batch_gpu_jpeg_result;

/* Called as each file is done, from any of the pipeline's threads (one at a time is the
 * caller's to ensure): `error` NULL when written, else its one line; `limit` the stage that
 * bounds the run so far (batch_stage_name), for a progress bar. */
typedef void (*batch_file_done)(void *context, int file, const char *error, const char *limit);

/* in[i] filtered into out[i] for i < n, on `threads` CPU threads (>= 1), with `save`'s output
 * options. A failed file is reported through done() and the others go on; only a failure before
 * the first file (nvJPEG, streams) returns an error, with no file touched. */
fv_status batch_gpu_jpeg_run(const cli_options *o, const fv_filter *f, const fv_variant *v,
                             const fv_params *p, const image_save_options *save, char *const *in,
                             char *const *out, int n, int threads, batch_file_done done,
                             void *context, batch_gpu_jpeg_result *result);

/* "read", "decode", "filter", "encode", "write" */
const char *batch_stage_name(batch_stage s);
/* The stage whose busy time fills the most of its lanes (CPU threads or GPU slots) over `wall_ms`. */
batch_stage batch_stage_limit(const double busy_ms[BATCH_STAGES], int threads, int slots,
                              double wall_ms, double *share);
/* "stages busy: read 1.20 s, decode 8.10 s, filter 0.30 s, encode 4.00 s, write 0.90 s; bound by
 * decode (93 % of 3 GPU slots)" */
void batch_gpu_jpeg_describe_stages(const batch_gpu_jpeg_result *r, char *buf, size_t size);

#endif
