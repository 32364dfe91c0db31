/* ------------------------------------------------------------------------------------------------
 * kernels/api/filterview_files.c: libfilterview's image files (filterview_image_read and
 * filterview_image_write of include/libfilterview.h) on the program's codecs (viewer/imageio):
 * the same decoders, limits, messages and atomic writes as the command line. Device images go
 * through nvJPEG (viewer/imageio/jpeg_gpu.cu) where the library is built with it (FV_HAVE_NVJPEG)
 * and the file is a JPEG it takes, decoded to RGBA8 and narrowed to the file's channels on the
 * GPU (api_pack.cu); everything else is decoded or encoded on the host and copied across.
 * Checked by tests/python/test_files.py (host round trips against the program's files, device
 * reads and writes where there is a GPU).
 * ------------------------------------------------------------------------------------------------ */
#include "libfilterview.h"

#include "api_pack.h"
#include "filter.h"
#include "image_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FV_HAVE_NVJPEG
#include "jpeg_gpu.h"

#include <pthread.h>
#endif

/* The caller's error buffer gets the last failure's line (already printable: the codecs quote
 * file names through image_printable). */
static fv_status said(fv_status s, char *error, size_t error_size)
{
    if (error && error_size) snprintf(error, error_size, "%s", s == FV_OK ? "" : fv_last_error());
    return s;
}

/* What fits of `full` into the caller's struct, whose first field is its size_t size (the
 * header's "growing" rule): fields past the caller's size are left as they were. */
static fv_status answer_sized(void *caller, const void *full, size_t full_size, const char *what)
{
    if (!caller) return FV_OK;
    size_t size;
    memcpy(&size, caller, sizeof size);
    if (size < sizeof size)
        return fv_fail(FV_ERR_ARG, "%s: .size is %zu: set it to sizeof (%s)", what, size, what);
    const size_t n = size < full_size ? size : full_size;
    memcpy((uint8_t *)caller + sizeof size, (const uint8_t *)full + sizeof size, n - sizeof size);
    return FV_OK;
}

static fv_status check_sized(const void *caller, const char *what)
{
    size_t size;
    memcpy(&size, caller, sizeof size);
    if (size < sizeof size)
        return fv_fail(FV_ERR_ARG, "%s: .size is %zu: set it to sizeof (%s)", what, size, what);
    return FV_OK;
}

static filterview_image as_api_image(const fv_image *img)
{
    filterview_image out = {.size = sizeof out,
                            .data = img->data,
                            .width = img->width,
                            .height = img->height,
                            .pitch = img->pitch,
                            .channels = fv_image_channels(img),
                            .memory = img->memory == FV_MEMORY_DEVICE ? FILTERVIEW_DEVICE
                                                                      : FILTERVIEW_HOST,
                            .dtype = (filterview_dtype)img->type};
    return out;
}

static void file_info_set(filterview_file_info *info, const char *format, filterview_codec codec,
                          const char *note)
{
    memset(info, 0, sizeof *info);
    info->size = sizeof *info;
    snprintf(info->format, sizeof info->format, "%s", format ? format : "");
    info->codec = codec;
    snprintf(info->note, sizeof info->note, "%s", note ? note : "");
    info->lossy = info->note[0] != 0;
}

/* A host image decoded by the CPU codecs, copied into a new device image of its layout. */
static fv_status upload_new(const fv_image *host, fv_image *device)
{
    FV_TRY(fv_device_image_alloc_as(device, host->width, host->height, host->type,
                                    fv_image_channels(host)));
    const fv_status s = fv_image_upload(device, host);
    if (s != FV_OK) fv_device_image_free(device);
    return s;
}

#ifdef FV_HAVE_NVJPEG
/* nvJPEG's handle, decoder states and buffers take milliseconds to make: each thread keeps one
 * codec for the device it last used (made again when the thread's current device changes),
 * freed when the thread ends. A process's main thread keeps its codec to the end. */
typedef struct codec_slot {
    jpeg_gpu *codec;
    int device;
} codec_slot;

static pthread_key_t codec_key;
static pthread_once_t codec_once = PTHREAD_ONCE_INIT;
static int codec_key_made;

static void codec_slot_free(void *p)
{
    codec_slot *slot = p;
    jpeg_gpu_destroy(slot->codec);
    free(slot);
}

static void codec_key_make(void)
{
    codec_key_made = pthread_key_create(&codec_key, codec_slot_free) == 0;
}

static fv_status thread_codec(jpeg_gpu **out)
{
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess)
        return fv_fail(FV_ERR_NO_DEVICE, "no CUDA device: %s",
                       cudaGetErrorString(cudaGetLastError()));
    pthread_once(&codec_once, codec_key_make);
    if (!codec_key_made) return fv_fail(FV_ERR_MEMORY, "cannot keep the JPEG codec per thread");
    codec_slot *slot = pthread_getspecific(codec_key);
    if (slot && slot->codec && slot->device == device) {
        *out = slot->codec;
        return FV_OK;
    }
    if (!slot) {
        slot = calloc(1, sizeof *slot);
        if (!slot || pthread_setspecific(codec_key, slot) != 0) {
            free(slot);
            return fv_fail(FV_ERR_MEMORY, "out of host memory");
        }
    }
    jpeg_gpu_destroy(slot->codec);
    slot->codec = NULL;
    FV_TRY(jpeg_gpu_create(&slot->codec));
    slot->device = device;
    *out = slot->codec;
    return FV_OK;
}

/* Decodes `data` to RGBA8 and narrows it to the file's channels; FV_ERR_UNSUPPORTED when nvJPEG
 * declines the file (the CPU codec's then). */
static fv_status read_nvjpeg(const char *name, const uint8_t *data, size_t size, fv_image *out,
                             image_load_info *info)
{
    jpeg_gpu *g = NULL;
    FV_TRY(thread_codec(&g));
    fv_image rgba = {0};
    fv_status s = jpeg_gpu_decode(g, name, data, size, &rgba, info, NULL, 0);
    if (s == FV_OK)
        s = fv_device_image_alloc_as(out, rgba.width, rgba.height, FV_PIXEL_U8,
                                     info->file_channels);
    if (s == FV_OK) s = fv_api_narrow(&rgba, out, 0);
    if (s == FV_OK && cudaStreamSynchronize(0) != cudaSuccess)
        s = fv_fail(FV_ERR_CUDA, "%s: %s", name, cudaGetErrorString(cudaGetLastError()));
    if (s != FV_OK) fv_device_image_free(out);
    fv_device_image_free(&rgba);
    return s;
}
#endif

static fv_status image_read(const char *path, filterview_memory memory, fv_image *out,
                            image_load_info *info, filterview_codec *codec)
{
    *codec = FILTERVIEW_CODEC_CPU;
    if (!path) return fv_fail(FV_ERR_ARG, "no file name");
    if (memory != FILTERVIEW_HOST && memory != FILTERVIEW_DEVICE)
        return fv_fail(FV_ERR_ARG, "memory %d: FILTERVIEW_HOST or FILTERVIEW_DEVICE", (int)memory);
    if (memory == FILTERVIEW_HOST) return image_load_native(path, NULL, out, info);
    FV_TRY(fv_device_check());
    /* read whole first: standard input cannot be read twice when nvJPEG declines the file */
    uint8_t *data = NULL;
    size_t size = 0;
    FV_TRY(image_read_file(path, &data, &size));
    fv_status s = FV_ERR_UNSUPPORTED;
#ifdef FV_HAVE_NVJPEG
    char name[IMAGE_NAME_SHOWN];
    image_printable(image_is_stdio(path) ? "standard input" : path, name, sizeof name);
    if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff) {
        s = read_nvjpeg(name, data, size, out, info);
        if (s == FV_OK) *codec = FILTERVIEW_CODEC_NVJPEG;
        if (s != FV_ERR_UNSUPPORTED) {
            free(data);
            return s;
        }
        image_metadata_free(&info->metadata);
    }
#endif
    fv_image host = {0};
    s = image_load_native_bytes(path, data, size, NULL, &host, info);
    free(data);
    if (s == FV_OK) s = upload_new(&host, out);
    fv_host_image_free(&host);
    return s;
}

fv_status filterview_image_read(const char *path, filterview_memory memory, filterview_image *out,
                                filterview_file_info *info, char *error, size_t error_size)
{
    if (!out) return said(fv_fail(FV_ERR_ARG, "no image to read into"), error, error_size);
    fv_status s = check_sized(out, "filterview_image");
    if (s == FV_OK && info) s = check_sized(info, "filterview_file_info");
    if (s != FV_OK) return said(s, error, error_size);
    image_load_info load;
    memset(&load, 0, sizeof load);
    fv_image img = {0};
    filterview_codec codec;
    s = image_read(path, memory, &img, &load, &codec);
    image_metadata_free(&load.metadata);
    if (s != FV_OK) return said(s, error, error_size);
    const filterview_image answer = as_api_image(&img);
    answer_sized(out, &answer, sizeof answer, "filterview_image");
    if (info) {
        filterview_file_info full;
        file_info_set(&full, load.format, codec, load.lossy_note);
        answer_sized(info, &full, sizeof full, "filterview_file_info");
    }
    return said(FV_OK, error, error_size);
}

void filterview_image_free(filterview_image *img)
{
    if (!img || img->size < sizeof img->size) return;
    fv_image v = fv_api_image_view(img);
    if (v.data && img->memory == FILTERVIEW_DEVICE)
        fv_device_image_free(&v);
    else if (v.data)
        fv_host_image_free(&v);
    if (img->size >= offsetof(filterview_image, data) + sizeof img->data) img->data = NULL;
}

/* The caller's image checked as the filters check theirs: layout, size, pitch. */
static fv_status image_checked(const filterview_image *caller, fv_image *img)
{
    if (!caller) return fv_fail(FV_ERR_ARG, "no image to write");
    FV_TRY(check_sized(caller, "filterview_image"));
    filterview_image c;
    memset(&c, 0, sizeof c);
    memcpy(&c, caller, caller->size < sizeof c ? caller->size : sizeof c);
    if (!c.data) return fv_fail(FV_ERR_ARG, "image: no data");
    if (c.memory != FILTERVIEW_HOST && c.memory != FILTERVIEW_DEVICE)
        return fv_fail(FV_ERR_ARG, "image: memory %d: FILTERVIEW_HOST or FILTERVIEW_DEVICE",
                       (int)c.memory);
    if ((unsigned)c.dtype > FILTERVIEW_FLOAT32 ||
        (c.channels != 1 && c.channels != 3 && c.channels != 4))
        return fv_fail(FV_ERR_ARG, "image: dtype %d with %d channels: no such layout", (int)c.dtype,
                       c.channels);
    FV_TRY(fv_check_dimensions(c.width, c.height));
    *img = fv_api_image_view(&c);
    if (c.pitch < (size_t)c.width * fv_image_pixel_bytes(img))
        return fv_fail(FV_ERR_ARG, "image: pitch %zu is less than a row's %zu bytes", c.pitch,
                       (size_t)c.width * fv_image_pixel_bytes(img));
    return FV_OK;
}

#ifdef FV_HAVE_NVJPEG
/* image_save_encoded's writer: nvJPEG's stream of a device uint8 image, widened to RGBA8 */
typedef struct nvjpeg_write {
    const fv_image *img;
    int quality;
} nvjpeg_write;

static fv_status nvjpeg_writer(void *context, const char *name, int fd)
{
    const nvjpeg_write *w = context;
    jpeg_gpu *g = NULL;
    FV_TRY(thread_codec(&g));
    fv_image rgba = {0};
    fv_status s = fv_device_image_alloc(&rgba, w->img->width, w->img->height);
    if (s == FV_OK) s = fv_api_widen(w->img, &rgba, 0);
    if (s == FV_OK)
        s = jpeg_gpu_encode(g, name, fd, &rgba, w->quality, fv_image_channels(w->img) == 1, NULL,
                            0);
    fv_device_image_free(&rgba);
    return s;
}
#endif

static fv_status image_write(const char *path, const fv_image *img, int quality,
                             image_save_report *report, filterview_codec *codec)
{
    *codec = FILTERVIEW_CODEC_CPU;
    image_save_options opt = IMAGE_SAVE_DEFAULTS;
    opt.jpeg_quality = quality;
    if (img->memory == FV_MEMORY_HOST) return image_save_as(path, img, &opt, report);
    FV_TRY(fv_device_check());
#ifdef FV_HAVE_NVJPEG
    /* nothing of an 8-bit image without alpha is lost to JPEG but what JPEG loses */
    if (img->type == FV_PIXEL_U8 && fv_image_channels(img) != 4 &&
        image_format_of(path, IMAGE_FORMAT_BY_NAME) == IMAGE_FORMAT_JPEG && !image_is_stdio(path)) {
        nvjpeg_write w = {.img = img, .quality = quality ? quality : IMAGE_JPEG_QUALITY_DEFAULT};
        FV_TRY(image_save_encoded(path, nvjpeg_writer, &w));
        memset(report, 0, sizeof *report);
        report->format = "JPEG";
        report->file_type = FV_PIXEL_U8;
        report->file_channels = fv_image_channels(img);
        *codec = FILTERVIEW_CODEC_NVJPEG;
        return FV_OK;
    }
#endif
    fv_image host = {0};
    FV_TRY(
        fv_host_image_alloc_as(&host, img->width, img->height, img->type, fv_image_channels(img)));
    fv_status s = fv_image_download(&host, img);
    if (s == FV_OK) s = image_save_as(path, &host, &opt, report);
    fv_host_image_free(&host);
    return s;
}

fv_status filterview_image_write(const char *path, const filterview_image *caller,
                                 const filterview_write_options *opt, filterview_file_info *info,
                                 char *error, size_t error_size)
{
    fv_image img = {0};
    fv_status s = image_checked(caller, &img);
    filterview_write_options o = {.size = sizeof o};
    if (s == FV_OK && opt) {
        s = check_sized(opt, "filterview_write_options");
        if (s == FV_OK) memcpy(&o, opt, opt->size < sizeof o ? opt->size : sizeof o);
    }
    if (s == FV_OK && info) s = check_sized(info, "filterview_file_info");
    if (s == FV_OK && !path) s = fv_fail(FV_ERR_ARG, "no file name");
    if (s == FV_OK && (o.jpeg_quality < 0 || o.jpeg_quality > 100))
        s = fv_fail(FV_ERR_ARG, "jpeg_quality: expected 1..100 (0: %d), got %d",
                    IMAGE_JPEG_QUALITY_DEFAULT, o.jpeg_quality);
    /* the command line's refusals, before anything is encoded */
    if (s == FV_OK && !image_is_stdio(path)) s = image_check_output_path(path);
    if (s != FV_OK) return said(s, error, error_size);
    image_save_report report;
    memset(&report, 0, sizeof report);
    filterview_codec codec;
    s = image_write(path, &img, o.jpeg_quality, &report, &codec);
    if (s != FV_OK) return said(s, error, error_size);
    if (info) {
        filterview_file_info full;
        file_info_set(&full, report.format, codec, report.note);
        answer_sized(info, &full, sizeof full, "filterview_file_info");
    }
    return said(FV_OK, error, error_size);
}
