/* ------------------------------------------------------------------------------------------------
 * viewer/modes/gpu_codec.c: a batch's files through the GPU JPEG codec (see gpu_codec.h).
 *
 * Each file is read whole first (standard input too, which cannot be read twice), so that a JPEG
 * the GPU codec declines is decoded by the CPU codec from the same bytes. The filter runs on the
 * device images kept here; a JPEG output of an 8-bit image is encoded on the GPU, any other
 * output is downloaded and written by the CPU codecs as the plain batch writes it.
 * ------------------------------------------------------------------------------------------------ */
#include "gpu_codec.h"

#include "codec.h"
#include "run.h"
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FV_HAVE_NVJPEG
#include "jpeg_gpu.h"
#endif

int gpu_codec_is_jpeg_name(const char *path)
{
    return !image_is_stdio(path) &&
           image_format_of(path, IMAGE_FORMAT_BY_NAME) == IMAGE_FORMAT_JPEG;
}

/* --codec auto's model of the two codecs, JPEG to JPEG, from the figures on an H200 with 16 CPU
 * threads (docs/perf/io.md): the GPU codec starts in about 1.1 s (the CUDA context, nvJPEG's
 * handles and the hardware decoder's state), then decodes, filters and encodes about 1.9 Gpixels/s
 * plus about 0.3 ms a file; the CPU codec about 18 Mpixels/s a thread. It breaks even at about
 * 380 Mpixels of 12-Mpixel photos and 620 Mpixels of 0.26-Mpixel ones on 16 threads, where the
 * runs measured 370 and 590. */
#define GPU_CODEC_START_S        1.1
#define GPU_CODEC_PIXELS_PER_S   1.9e9
#define GPU_CODEC_FILE_S         0.3e-3
#define CPU_CODEC_THREAD_PIXELS_PER_S 18e6
#define JPEG_HEAD_BYTES (256 * 1024) /* EXIF, ICC and the frame header come before it */

int gpu_codec_is_jpeg_bytes(const uint8_t *data, size_t size)
{
    return size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff;
}

fv_status gpu_codec_device_image_as(fv_image *img, int w, int h, fv_pixel_type type)
{
    if (img->data && img->width == w && img->height == h && img->type == type) return FV_OK;
    fv_device_image_free(img);
    return fv_device_image_alloc_as(img, w, h, type, 4);
}

double gpu_codec_jpeg_pixels(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t *head = malloc(JPEG_HEAD_BYTES);
    const size_t got = head ? fread(head, 1, JPEG_HEAD_BYTES, f) : 0;
    fclose(f);
    int w = 0, h = 0;
    const int found = got && codec_jpeg_frame_size(head, got, &w, &h);
    free(head);
    return found ? (double)w * h : 0;
}

int gpu_codec_auto_pays(double pixels, int files, int threads)
{
    const double gpu_s =
        GPU_CODEC_START_S + pixels / GPU_CODEC_PIXELS_PER_S + files * GPU_CODEC_FILE_S;
    const double cpu_s = pixels / (CPU_CODEC_THREAD_PIXELS_PER_S * (threads < 1 ? 1 : threads));
    return gpu_s < cpu_s;
}

void gpu_codec_describe_counts(const gpu_codec_counts *n, int hardware, char *buf, size_t size)
{
    int len = hardware ? snprintf(buf, size,
                                  "codec gpu (nvJPEG decoded %d on the hardware decoder, %d on the "
                                  "hybrid one, encoded %d)",
                                  n->decoded_hardware, n->decoded_hybrid, n->encoded)
                       : snprintf(buf, size,
                                  "codec gpu (nvJPEG decoded %d on the hybrid decoder, this GPU "
                                  "has no hardware one; encoded %d)",
                                  n->decoded_hybrid, n->encoded);
    if (n->fell_back && len > 0 && (size_t)len < size)
        snprintf(buf + len, size - (size_t)len, "; %d %s fell back to the CPU codec", n->fell_back,
                 n->fell_back == 1 ? "JPEG" : "JPEGs");
}

#ifdef FV_HAVE_NVJPEG

struct gpu_codec {
    const cli_options *o;
    const fv_filter *f;
    const fv_variant *v;
    fv_params p;
    jpeg_gpu *jpeg;
    cudaStream_t stream;
    fv_runner runner;
    fv_image d_src, d_dst; /* kept while the files keep their size and type */
    image_save_options save;
    gpu_codec_counts counts;
};

fv_status gpu_codec_choose(const cli_options *o, const fv_variant *v, int inputs_jpeg, int *use_gpu)
{
    *use_gpu = 0;
    /* noise, --save-source and tiles work on the host image: the CPU codecs' path (the CLI
     * refuses them with --codec gpu) */
    if (o->codec == CLI_CODEC_CPU || o->dask || fv_noise_is_on(&o->noise) || o->save_source ||
        o->tile)
        return FV_OK;
    const fv_status device = fv_device_check();
    if (o->codec == CLI_CODEC_GPU && device != FV_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", fv_last_error());
        return fv_fail(FV_ERR_NO_DEVICE, "--codec gpu: %s: give --codec cpu", why);
    }
    *use_gpu =
        device == FV_OK && !fv_variant_is_host(v) && (o->codec == CLI_CODEC_GPU || inputs_jpeg);
    return FV_OK;
}

fv_status gpu_codec_create(const cli_options *o, const fv_filter *f, const fv_variant *v,
                           const fv_params *p, gpu_codec **out)
{
    *out = NULL;
    gpu_codec *c = calloc(1, sizeof *c);
    if (!c) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    c->o = o;
    c->f = f;
    c->v = v;
    c->p = *p;
    c->save = run_save_options(o);
    fv_status s = jpeg_gpu_create(&c->jpeg);
    if (s == FV_OK && cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking) != cudaSuccess)
        s = fv_fail(FV_ERR_CUDA, "cannot create a CUDA stream: %s",
                    cudaGetErrorString(cudaGetLastError()));
    if (s != FV_OK) {
        gpu_codec_destroy(c);
        return s;
    }
    *out = c;
    return FV_OK;
}

void gpu_codec_destroy(gpu_codec *c)
{
    if (!c) return;
    fv_runner_release(&c->runner);
    fv_device_image_free(&c->d_src);
    fv_device_image_free(&c->d_dst);
    if (c->stream) cudaStreamDestroy(c->stream);
    jpeg_gpu_destroy(c->jpeg);
    free(c);
}

/* The source on the device: nvJPEG's decode where it takes the file, else the CPU codecs'
 * decode and an upload. */
static fv_status gpu_codec_source(gpu_codec *c, const char *in, const uint8_t *data, size_t size,
                                  run_file *file)
{
    char name[IMAGE_NAME_SHOWN];
    image_printable(image_is_stdio(in) ? "standard input" : in, name, sizeof name);
    if (gpu_codec_is_jpeg_bytes(data, size)) {
        jpeg_gpu_backend used;
        memset(file, 0, sizeof *file);
        fv_status s =
            jpeg_gpu_decode(c->jpeg, name, data, size, &c->d_src, &file->info, &used, c->stream);
        if (s == FV_OK) {
            file->type = FV_PIXEL_U8;
            file->channels = file->info.file_channels;
            if (used == JPEG_GPU_HARDWARE)
                c->counts.decoded_hardware++;
            else
                c->counts.decoded_hybrid++;
            return FV_OK;
        }
        if (s != FV_ERR_UNSUPPORTED) return s;
        c->counts.fell_back++; /* the reason is the summary's count, never an error */
    }
    fv_image host = {0};
    FV_TRY(run_load_typed_bytes(in, data, size, NULL, &host, file));
    fv_status s = gpu_codec_device_image_as(&c->d_src, host.width, host.height, host.type);
    if (s == FV_OK) s = fv_image_upload(&c->d_src, &host);
    fv_host_image_free(&host);
    if (s != FV_OK) run_file_free(file);
    return s;
}

/* image_save_encoded's writer: nvJPEG's stream of the filtered device image. */
typedef struct gpu_write {
    gpu_codec *c;
    const run_file *file;
} gpu_write;

static fv_status gpu_codec_write(void *context, const char *name, int fd)
{
    gpu_write *w = context;
    gpu_codec *c = w->c;
    const int quality = c->save.jpeg_quality ? c->save.jpeg_quality : IMAGE_JPEG_QUALITY_DEFAULT;
    return jpeg_gpu_encode(c->jpeg, name, fd, &c->d_dst, quality, w->file->channels == 1,
                           &w->file->info.metadata, c->stream);
}

fv_status gpu_codec_file(gpu_codec *c, const char *in, const char *out, image_save_report *report,
                         int *width, int *height, double *ms)
{
    memset(report, 0, sizeof *report);
    uint8_t *data = NULL;
    size_t size = 0;
    FV_TRY(image_read_file(in, &data, &size));
    run_file file;
    fv_status s = gpu_codec_source(c, in, data, size, &file);
    free(data);
    FV_TRY(s);
    const int w = c->d_src.width, h = c->d_src.height;
    fv_params p = c->p;
    p.type = file.type; /* each file in its own type, as the CPU codecs' batch does */
    const double t0 = fv_now_ms();
    s = gpu_codec_device_image_as(&c->d_dst, w, h, p.type);
    if (s == FV_OK) s = fv_runner_prepare(&c->runner, c->f, c->v, &p, w, h);
    if (s == FV_OK) s = fv_runner_run(&c->runner, &c->d_src, &c->d_dst, c->stream);
    if (s == FV_OK && cudaStreamSynchronize(c->stream) != cudaSuccess)
        s = fv_fail(FV_ERR_CUDA, "filter %s/%s failed: %s", c->f->name, c->v->name,
                    cudaGetErrorString(cudaGetLastError()));
    if (ms) *ms = fv_now_ms() - t0;
    const image_format format = image_format_of(out, c->save.format);
    const int depth_kept = !c->o->depth || c->o->depth - 1 == FV_PIXEL_U8;
    if (s == FV_OK && format == IMAGE_FORMAT_JPEG && p.type == FV_PIXEL_U8 && depth_kept &&
        file.channels != 4) {
        gpu_write job = {c, &file};
        s = image_save_encoded(out, gpu_codec_write, &job);
        if (s == FV_OK) {
            c->counts.encoded++;
            *report = (image_save_report){
                .format = "JPEG", .file_type = FV_PIXEL_U8, .file_channels = file.channels};
        }
    } else if (s == FV_OK) {
        fv_image host = {0};
        s = fv_host_image_alloc_as(&host, w, h, p.type, 4);
        if (s == FV_OK) s = fv_image_download(&host, &c->d_dst);
        if (s == FV_OK) s = run_save_typed(out, &host, &file, c->o, &c->save, report);
        fv_host_image_free(&host);
    }
    if (width) *width = w;
    if (height) *height = h;
    run_file_free(&file);
    return s;
}

void gpu_codec_describe(const gpu_codec *c, char *buf, size_t size)
{
    gpu_codec_describe_counts(&c->counts, jpeg_gpu_has_hardware(c->jpeg), buf, size);
}

#else /* a build without nvJPEG: the CPU codecs alone (--codec gpu is refused by the CLI) */

fv_status gpu_codec_choose(const cli_options *o, const fv_variant *v, int inputs_jpeg, int *use_gpu)
{
    (void)v, (void)inputs_jpeg;
    *use_gpu = 0;
    if (o->codec == CLI_CODEC_GPU)
        return fv_fail(FV_ERR_ARG, "--codec gpu: this build has no GPU JPEG codec");
    return FV_OK;
}

fv_status gpu_codec_create(const cli_options *o, const fv_filter *f, const fv_variant *v,
                           const fv_params *p, gpu_codec **out)
{
    (void)o, (void)f, (void)v, (void)p;
    *out = NULL;
    return fv_fail(FV_ERR_UNSUPPORTED, "this build has no GPU JPEG codec");
}

void gpu_codec_destroy(gpu_codec *c)
{
    (void)c;
}

fv_status gpu_codec_file(gpu_codec *c, const char *in, const char *out, image_save_report *report,
                         int *width, int *height, double *ms)
{
    (void)c, (void)in, (void)out, (void)report, (void)width, (void)height, (void)ms;
    return fv_fail(FV_ERR_UNSUPPORTED, "this build has no GPU JPEG codec");
}

void gpu_codec_describe(const gpu_codec *c, char *buf, size_t size)
{
    (void)c;
    snprintf(buf, size, "codec cpu");
}

#endif
