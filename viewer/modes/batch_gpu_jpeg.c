/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch_gpu_jpeg.c: the GPU JPEG codec's folder batch as a pipeline (see
 * batch_gpu_jpeg.h).
 *
 *   CPU threads (--threads)        the GPU slots, a thread each              CPU threads
 *   read the file into an item  -> decode, filter, encode on the slot's  -> write the stream
 *   (page-locked, reused)          stream, its own nvJPEG codec (peer)      (temporary name,
 *                                                                            then renamed)
 *
 * Items (stage_hub.c) carry a file from its read to its write: one per GPU slot more than the CPU
 * threads, their buffers grown to the largest file and kept, so that memory is bounded whatever
 * the folder and nothing is allocated per file once warm. Each slot has a thread of its own
 * (slot_loop): it takes the next item read, queues its decode, filter and encode on the slot's
 * stream, waits for them and hands the encoded bytes to the writers; while one slot's thread
 * waits, the others' images decode on the JPEG engines, filter and encode.
 * A JPEG the GPU codec leaves (codec_jpeg_inspect: CMYK, arithmetic, 12-bit, odd sampling) and
 * any other format are decoded by the CPU codec on the reading thread and uploaded; a JPEG that
 * only nvJPEG itself declines is decoded by the CPU codec on its slot's thread (rare). Outputs
 * the GPU does not encode (not JPEG, another depth, alpha) are downloaded and written by the CPU
 * codecs on the writing thread, as the one-file path does (gpu_codec.c).
 * Per stage busy time: CUDA events around each slot's stages, the CPU threads' own clocks.
 * ------------------------------------------------------------------------------------------------ */
#include "batch_gpu_jpeg.h"

#include "stage_hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stage_names[BATCH_STAGES] = {"read", "decode", "filter", "encode",
                                                      "write"};

const char *batch_stage_name(batch_stage s)
{
    return s >= 0 && s < BATCH_STAGES ? stage_names[s] : "?";
}

batch_stage batch_stage_limit(const double busy_ms[BATCH_STAGES], int threads, int slots,
                              double wall_ms, double *share)
{
    batch_stage limit = BATCH_STAGE_READ;
    double most = -1;
    for (int s = 0; s < BATCH_STAGES; s++) {
        const int cpu = s == BATCH_STAGE_READ || s == BATCH_STAGE_WRITE;
        const int lanes = cpu ? threads : slots;
        const double used = wall_ms > 0 && lanes > 0 ? busy_ms[s] / (wall_ms * lanes) : 0;
        if (used > most) {
            most = used;
            limit = (batch_stage)s;
        }
    }
    if (share) *share = most > 0 ? most : 0;
    return limit;
}

void batch_gpu_jpeg_describe_stages(const batch_gpu_jpeg_result *r, char *buf, size_t size)
{
    double share = 0;
    const batch_stage limit =
        batch_stage_limit(r->busy_ms, r->threads, r->slots, r->wall_ms, &share);
    const int cpu = limit == BATCH_STAGE_READ || limit == BATCH_STAGE_WRITE;
    const int n = snprintf(
        buf, size,
        "stages busy: read %.2f s, decode %.2f s, filter %.2f s, encode %.2f s, write %.2f s; "
        "bound by %s (%.0f %% of %d %s)",
        r->busy_ms[BATCH_STAGE_READ] / 1000, r->busy_ms[BATCH_STAGE_DECODE] / 1000,
        r->busy_ms[BATCH_STAGE_FILTER] / 1000, r->busy_ms[BATCH_STAGE_ENCODE] / 1000,
        r->busy_ms[BATCH_STAGE_WRITE] / 1000, batch_stage_name(limit), 100 * share,
        cpu ? r->threads : r->slots,
        cpu ? (r->threads == 1 ? "CPU thread" : "CPU threads")
            : (r->slots == 1 ? "GPU slot" : "GPU slots"));
    /* what the run paid before its first file, apart: a short folder is mostly that */
    if (r->setup_ms <= 0 || n <= 0 || (size_t)n >= size) return;
    const int more = snprintf(buf + n, size - (size_t)n, "; %.2f s of set-up before the first "
                              "file (%d %s", r->setup_ms / 1000, r->slots,
                              r->slots == 1 ? "GPU slot" : "GPU slots");
    if (more <= 0 || (size_t)(n + more) >= size) return;
    if (r->setup_first_ms > 0) /* where it went: the context, the first codec, the other slots */
        snprintf(buf + n + more, size - (size_t)(n + more),
                 ": CUDA context %.2f s, nvJPEG's first codec %.2f s, the rest %.2f s)",
                 r->setup_context_ms / 1000, r->setup_first_ms / 1000,
                 (r->setup_ms - r->setup_context_ms - r->setup_first_ms) / 1000);
    else
        snprintf(buf + n + more, size - (size_t)(n + more), ")");
}

#ifdef FV_HAVE_NVJPEG

#include "codec.h"
#include "cuda_check.h"
#include "host_pinned.h"
#include "jpeg_gpu.h"
#include "run.h"
#include "timing.h"

#include <pthread.h>

#define BATCH_GPU_MAX_SLOTS 16
#define SLOTS_ENV           "FILTERVIEW_JPEG_SLOTS"
#define MAX_THREADS         64

/* A page-locked host buffer that grows and is kept (plain memory where the driver refuses). */
typedef struct host_buffer {
    uint8_t *data;
    size_t cap;
    int pinned;
} host_buffer;

static uint8_t *host_buffer_grow(host_buffer *b, size_t need)
{
    if (need <= b->cap) return b->data;
    const size_t bytes = jpeg_gpu_grown_size(need);
    host_pinned_free(b->data, b->pinned);
    b->data = NULL;
    b->cap = 0;
    void *d = host_pinned_alloc(bytes, &b->pinned);
    if (!d) return NULL;
    b->data = d;
    b->cap = bytes;
    return b->data;
}

static void host_buffer_free(host_buffer *b)
{
    host_pinned_free(b->data, b->pinned);
    *b = (host_buffer){0};
}

/* image_read_file_to's storage: the item's byte buffer */
static uint8_t *host_buffer_alloc(void *context, size_t bytes)
{
    return host_buffer_grow(context, bytes);
}

static void host_buffer_keep(void *context, uint8_t *data)
{
    (void)context, (void)data; /* kept for the next file */
}

/* A file on its way from its read to its write. */
typedef struct item {
    int file;
    host_buffer bytes; /* the file */
    size_t size;
    fv_image host;   /* the source the CPU codec decoded (malloc'd); data NULL: none */
    run_file run;    /* the file's type, channels and metadata, for its output */
    int gpu_encoded; /* out holds nvJPEG's stream; else result is the image to encode */
    host_buffer out; /* the encoded stream, or the downloaded result's pixels */
    size_t out_len;
    fv_image result; /* the filtered image on the host (pixels in `out`) */
} item;

/* One image in flight on the GPU. */
typedef struct slot {
    jpeg_gpu *jpeg; /* the first slot's codec owns nvJPEG's handles, the others are peers */
    cudaStream_t stream;
    cudaEvent_t mark[4]; /* before the decode, after it, after the filter, after the encode */
    fv_image d_src, d_dst;
    fv_runner runner;
} slot;

typedef struct pipeline {
    const cli_options *o;
    const fv_filter *f;
    const fv_variant *v;
    const fv_params *p;
    const image_save_options *save;
    char *const *in, *const *out;
    int n, threads;
    batch_file_done done;
    void *context;
    stage_hub hub;
    item *items;
    int n_items;
    slot slots[BATCH_GPU_MAX_SLOTS];
    int n_slots;
    pthread_mutex_t lock; /* the counts, the busy times and done() */
    gpu_codec_counts counts;
    double busy_ms[BATCH_STAGES];
    double t0;
} pipeline;

static void add_busy(pipeline *pl, batch_stage s, double ms)
{
    pthread_mutex_lock(&pl->lock);
    pl->busy_ms[s] += ms;
    pthread_mutex_unlock(&pl->lock);
}

/* A file done: its item's per-file state dropped, then the caller told. */
static void file_done(pipeline *pl, item *it, const char *error)
{
    run_file_free(&it->run);
    fv_host_image_free(&it->host);
    pthread_mutex_lock(&pl->lock);
    const batch_stage limit =
        batch_stage_limit(pl->busy_ms, pl->threads, pl->n_slots, fv_now_ms() - pl->t0, NULL);
    pl->done(pl->context, it->file, error, batch_stage_name(limit));
    pthread_mutex_unlock(&pl->lock);
}

/* ---- the CPU threads ---- */

/* The file's bytes, and the CPU codec's decode where the GPU codec will not take it. */
static fv_status read_item(pipeline *pl, item *it)
{
    const image_allocator a = {host_buffer_alloc, host_buffer_keep, &it->bytes};
    uint8_t *data = NULL;
    FV_TRY(image_read_file_to(pl->in[it->file], &a, &data, &it->size));
    if (gpu_codec_is_jpeg_bytes(data, it->size)) {
        char name[IMAGE_NAME_SHOWN];
        image_printable(pl->in[it->file], name, sizeof name);
        codec_jpeg_header h;
        /* a bad header is the GPU thread's to report, as jpeg_gpu_decode reports it */
        if (codec_jpeg_inspect(name, data, it->size, &h, NULL) != FV_OK ||
            h.fit != CODEC_JPEG_CPU_ONLY)
            return FV_OK;
        pthread_mutex_lock(&pl->lock);
        pl->counts.fell_back++; /* the reason is the summary's count, never an error */
        pthread_mutex_unlock(&pl->lock);
    }
    return run_load_typed_bytes(pl->in[it->file], data, it->size, NULL, &it->host, &it->run);
}

/* image_save_encoded's writer: the item's stream with the file's markers. */
static fv_status write_stream(void *context, const char *name, int fd)
{
    const item *it = context;
    return codec_jpeg_write_stream(name, fd, it->out.data, it->out_len, &it->run.info.metadata);
}

static fv_status write_item(pipeline *pl, item *it)
{
    if (it->gpu_encoded) {
        FV_TRY(image_save_encoded(pl->out[it->file], write_stream, it));
        pthread_mutex_lock(&pl->lock);
        pl->counts.encoded++;
        pthread_mutex_unlock(&pl->lock);
        return FV_OK;
    }
    image_save_report report;
    return run_save_typed(pl->out[it->file], &it->result, &it->run, pl->o, pl->save, &report);
}

static void *cpu_thread(void *arg)
{
    pipeline *pl = arg;
    for (;;) {
        const stage_task t = stage_hub_cpu_next(&pl->hub);
        if (t.kind == STAGE_TASK_END) break;
        item *it = &pl->items[t.item];
        const double t0 = fv_now_ms();
        if (t.kind == STAGE_TASK_READ) {
            it->file = t.file;
            const fv_status s = read_item(pl, it);
            add_busy(pl, BATCH_STAGE_READ, fv_now_ms() - t0);
            if (s != FV_OK) file_done(pl, it, fv_last_error());
            stage_hub_read_done(&pl->hub, t.item, s == FV_OK);
            continue;
        }
        const fv_status s = write_item(pl, it);
        add_busy(pl, BATCH_STAGE_WRITE, fv_now_ms() - t0);
        file_done(pl, it, s == FV_OK ? NULL : fv_last_error());
        stage_hub_release(&pl->hub, t.item);
    }
    return NULL;
}

/* ---- the GPU thread ---- */

static fv_status cuda_step(cudaError_t e, const char *what, const char *name)
{
    if (e == cudaSuccess) return FV_OK;
    return fv_fail(FV_ERR_CUDA, "'%s': %s on the GPU failed: %s", name, what,
                   cudaGetErrorString(e));
}

/* The CPU codec's image (it->host) uploaded into the slot's source. */
static fv_status upload_host(slot *g, item *it, const char *name)
{
    const fv_image *h = &it->host;
    FV_TRY(gpu_codec_device_image_as(&g->d_src, h->width, h->height, h->type));
    const size_t row = (size_t)h->width * 4 * fv_pixel_type_bytes(h->type);
    return cuda_step(cudaMemcpy2DAsync(g->d_src.data, g->d_src.pitch, h->data, h->pitch, row,
                                       (size_t)h->height, cudaMemcpyHostToDevice, g->stream),
                     "upload", name);
}

/* The source on the slot's device image: nvJPEG's decode, else the CPU codec's image. */
static fv_status slot_source(pipeline *pl, slot *g, item *it, const char *name)
{
    if (!it->host.data) {
        jpeg_gpu_backend used;
        memset(&it->run, 0, sizeof it->run);
        const fv_status s = jpeg_gpu_decode_queue(g->jpeg, name, it->bytes.data, it->size,
                                                  &g->d_src, &it->run.info, &used, g->stream);
        if (s == FV_OK) {
            it->run.type = FV_PIXEL_U8;
            it->run.channels = it->run.info.file_channels;
            pthread_mutex_lock(&pl->lock);
            used == JPEG_GPU_HARDWARE ? pl->counts.decoded_hardware++ : pl->counts.decoded_hybrid++;
            pthread_mutex_unlock(&pl->lock);
            return FV_OK;
        }
        run_file_free(&it->run);
        if (s != FV_ERR_UNSUPPORTED) return s;
        /* nvJPEG's own refusal, which the header did not foretell: the CPU codec, here */
        pthread_mutex_lock(&pl->lock);
        pl->counts.fell_back++;
        pthread_mutex_unlock(&pl->lock);
        FV_TRY(run_load_typed_bytes(pl->in[it->file], it->bytes.data, it->size, NULL, &it->host,
                                    &it->run));
    }
    return upload_host(g, it, name);
}

/* Queues the item's decode, filter and encode (or download) on the slot's stream. */
static fv_status slot_start(pipeline *pl, slot *g, item *it)
{
    char name[IMAGE_NAME_SHOWN];
    image_printable(pl->in[it->file], name, sizeof name);
    FV_TRY(cuda_step(cudaEventRecord(g->mark[0], g->stream), "an event", name));
    FV_TRY(slot_source(pl, g, it, name));
    FV_TRY(cuda_step(cudaEventRecord(g->mark[1], g->stream), "an event", name));
    const int w = g->d_src.width, h = g->d_src.height;
    fv_params p = *pl->p;
    p.type = it->run.type; /* each file in its own type, as the CPU codecs' batch does */
    FV_TRY(gpu_codec_device_image_as(&g->d_dst, w, h, p.type));
    FV_TRY(fv_runner_prepare(&g->runner, pl->f, pl->v, &p, w, h));
    FV_TRY(fv_runner_run(&g->runner, &g->d_src, &g->d_dst, g->stream));
    FV_TRY(cuda_step(cudaEventRecord(g->mark[2], g->stream), "an event", name));
    const image_format format = image_format_of(pl->out[it->file], pl->save->format);
    const int depth_kept = !pl->o->depth || pl->o->depth - 1 == FV_PIXEL_U8;
    it->gpu_encoded =
        format == IMAGE_FORMAT_JPEG && p.type == FV_PIXEL_U8 && depth_kept && it->run.channels != 4;
    if (it->gpu_encoded) {
        const int quality =
            pl->save->jpeg_quality ? pl->save->jpeg_quality : IMAGE_JPEG_QUALITY_DEFAULT;
        FV_TRY(jpeg_gpu_encode_queue(g->jpeg, name, &g->d_dst, quality, it->run.channels == 1,
                                     g->stream));
    } else {
        const size_t row = (size_t)w * 4 * fv_pixel_type_bytes(p.type);
        if (!host_buffer_grow(&it->out, row * (size_t)h))
            return fv_fail(FV_ERR_MEMORY, "out of host memory for a %dx%d image", w, h);
        it->result = (fv_image){.data = it->out.data,
                                .width = w,
                                .height = h,
                                .pitch = row,
                                .memory = FV_MEMORY_HOST,
                                .type = p.type,
                                .channels = 4};
        FV_TRY(cuda_step(cudaMemcpy2DAsync(it->out.data, row, g->d_dst.data, g->d_dst.pitch, row,
                                           (size_t)h, cudaMemcpyDeviceToHost, g->stream),
                         "download", name));
    }
    return cuda_step(cudaEventRecord(g->mark[3], g->stream), "an event", name);
}

/* Waits for the slot's image; its stream of bytes into the item. */
static fv_status slot_collect(pipeline *pl, slot *g, item *it)
{
    char name[IMAGE_NAME_SHOWN];
    image_printable(pl->out[it->file], name, sizeof name);
    FV_TRY(cuda_step(cudaEventSynchronize(g->mark[3]), "the filter or the encode", name));
    float ms[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
        if (cudaEventElapsedTime(&ms[k], g->mark[k], g->mark[k + 1]) != cudaSuccess) ms[k] = 0;
    cudaGetLastError(); /* an event's time may be unavailable: it is only a statistic */
    pthread_mutex_lock(&pl->lock);
    pl->busy_ms[BATCH_STAGE_DECODE] += ms[0];
    pl->busy_ms[BATCH_STAGE_FILTER] += ms[1];
    pl->busy_ms[BATCH_STAGE_ENCODE] += ms[2];
    pthread_mutex_unlock(&pl->lock);
    fv_host_image_free(&it->host); /* uploaded by now */
    if (!it->gpu_encoded) return FV_OK;
    const uint8_t *bits = NULL;
    size_t len = 0;
    FV_TRY(jpeg_gpu_encode_bitstream(g->jpeg, name, &bits, &len, g->stream));
    if (!host_buffer_grow(&it->out, len))
        return fv_fail(FV_ERR_MEMORY, "out of host memory for '%s'", name);
    memcpy(it->out.data, bits, len);
    it->out_len = len;
    return FV_OK;
}

/* Item i through the slot: queued, waited for and handed to the writers, or its failure said
 * once nothing on the slot's stream still uses the item's buffers. */
static void slot_run(pipeline *pl, slot *g, int i)
{
    item *it = &pl->items[i];
    fv_status s = slot_start(pl, g, it);
    if (s == FV_OK) s = slot_collect(pl, g, it);
    if (s == FV_OK) {
        stage_hub_to_write(&pl->hub, i);
        return;
    }
    char message[600];
    snprintf(message, sizeof message, "%s", fv_last_error());
    cudaStreamSynchronize(g->stream);
    cudaGetLastError();
    file_done(pl, it, message);
    stage_hub_release(&pl->hub, i);
}

/* One slot's thread: the next file read, its decode, filter and encode queued on the slot's
 * stream and waited for, then handed to the writers; until every file has been handed over.
 * A thread per slot, so that a call that holds its thread (nvJPEG's hardware decode of a batch
 * of one seemed to, on an H200: three slots on one thread were busy 0.84 of one) holds only
 * its own slot. The CUDA device is the run's, made current in each thread. */
typedef struct slot_thread {
    pipeline *pl;
    slot *g;
    int device;
} slot_thread;

static void *slot_loop(void *arg)
{
    const slot_thread *w = arg;
    pipeline *pl = w->pl;
    slot *g = w->g;
    cudaSetDevice(w->device);
    for (;;) {
        int end = 0;
        const int i = stage_hub_gpu_next(&pl->hub, 1, &end);
        if (i < 0) break;
        slot_run(pl, g, i);
    }
    return NULL;
}

/* The slots' threads until every file has been through one (this thread runs the first slot). */
static void gpu_loop(pipeline *pl)
{
    int device = 0;
    cudaGetDevice(&device);
    slot_thread work[BATCH_GPU_MAX_SLOTS];
    pthread_t tid[BATCH_GPU_MAX_SLOTS];
    int started = 0;
    for (int k = 0; k < pl->n_slots; k++) work[k] = (slot_thread){pl, &pl->slots[k], device};
    for (int k = 1; k < pl->n_slots; k++)
        if (pthread_create(&tid[started], NULL, slot_loop, &work[k]) == 0) started++;
    slot_loop(&work[0]);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    stage_hub_gpu_finished(&pl->hub);
}

/* ---- the run ---- */

/* How many images the GPU holds in flight: SLOTS_ENV where set (1 to BATCH_GPU_MAX_SLOTS, to
 * measure the engines' scaling), else JPEG_GPU_SLOTS. */
static fv_status slots_wanted(int *n)
{
    *n = JPEG_GPU_SLOTS;
    const char *asked = getenv(SLOTS_ENV);
    if (!asked || !*asked) return FV_OK;
    char *end = NULL;
    const long v = strtol(asked, &end, 10);
    if (*end || v < 1 || v > BATCH_GPU_MAX_SLOTS)
        return fv_fail(FV_ERR_ARG, SLOTS_ENV "='%.40s': expected a whole number of GPU slots "
                       "from 1 to %d", asked, BATCH_GPU_MAX_SLOTS);
    *n = (int)v;
    return FV_OK;
}

/* Every slot's codec, stream and events, before the first file; the context's and the first
 * codec's share of that time in *r. */
static fv_status slots_create(pipeline *pl, batch_gpu_jpeg_result *r)
{
    double t0 = fv_now_ms();
    FV_CUDA_CHECK(cudaFree(0)); /* the CUDA context, where nothing made it yet */
    r->setup_context_ms = fv_now_ms() - t0;
    for (int k = 0; k < pl->n_slots; k++) {
        slot *g = &pl->slots[k];
        t0 = fv_now_ms();
        FV_TRY(k == 0 ? jpeg_gpu_create(&g->jpeg)
                      : jpeg_gpu_create_peer(pl->slots[0].jpeg, &g->jpeg));
        if (k == 0) r->setup_first_ms = fv_now_ms() - t0;
        FV_CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
        for (int m = 0; m < 4; m++) FV_CUDA_CHECK(cudaEventCreate(&g->mark[m]));
    }
    return FV_OK;
}

static void slots_destroy(pipeline *pl)
{
    for (int k = pl->n_slots - 1; k >= 0; k--) { /* peers before the handles' owner */
        slot *g = &pl->slots[k];
        fv_runner_release(&g->runner);
        fv_device_image_free(&g->d_src);
        fv_device_image_free(&g->d_dst);
        for (int m = 0; m < 4; m++)
            if (g->mark[m]) cudaEventDestroy(g->mark[m]);
        if (g->stream) cudaStreamDestroy(g->stream);
        jpeg_gpu_destroy(g->jpeg);
    }
}

fv_status batch_gpu_jpeg_run(const cli_options *o, const fv_filter *f, const fv_variant *v,
                             const fv_params *p, const image_save_options *save, char *const *in,
                             char *const *out, int n, int threads, batch_file_done done,
                             void *context, batch_gpu_jpeg_result *result)
{
    memset(result, 0, sizeof *result);
    pipeline *pl = calloc(1, sizeof *pl);
    if (!pl) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    *pl = (pipeline){.o = o,
                     .f = f,
                     .v = v,
                     .p = p,
                     .save = save,
                     .in = in,
                     .out = out,
                     .n = n,
                     .done = done,
                     .context = context};
    pl->threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    pthread_mutex_init(&pl->lock, NULL);
    const double setup_t0 = fv_now_ms();
    fv_status s = slots_wanted(&pl->n_slots);
    pl->n_items = pl->threads + pl->n_slots; /* more than the slots: see stage_hub.h */
    if (s == FV_OK) s = slots_create(pl, result);
    pl->items = s == FV_OK ? calloc((size_t)pl->n_items, sizeof *pl->items) : NULL;
    if (s == FV_OK && !pl->items) s = fv_fail(FV_ERR_MEMORY, "out of host memory");
    if (s == FV_OK) s = stage_hub_init(&pl->hub, pl->n_items, n);
    if (s == FV_OK) {
        pl->t0 = fv_now_ms();
        result->setup_ms = pl->t0 - setup_t0;
        pthread_t tid[MAX_THREADS];
        int started = 0;
        for (int t = 0; t < pl->threads; t++)
            if (pthread_create(&tid[started], NULL, cpu_thread, pl) == 0) started++;
        if (started == 0) {
            s = fv_fail(FV_ERR_MEMORY, "cannot start worker threads");
            stage_hub_gpu_finished(&pl->hub);
        } else {
            pthread_mutex_lock(&pl->lock); /* file_done reads it */
            pl->threads = started;
            pthread_mutex_unlock(&pl->lock);
            gpu_loop(pl);
        }
        for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
        stage_hub_destroy(&pl->hub);
        result->counts = pl->counts;
        result->hardware = jpeg_gpu_has_hardware(pl->slots[0].jpeg);
        result->threads = pl->threads;
        result->slots = pl->n_slots;
        memcpy(result->busy_ms, pl->busy_ms, sizeof result->busy_ms);
        result->wall_ms = fv_now_ms() - pl->t0;
    }
    for (int i = 0; pl->items && i < pl->n_items; i++) {
        host_buffer_free(&pl->items[i].bytes);
        host_buffer_free(&pl->items[i].out);
    }
    free(pl->items);
    slots_destroy(pl);
    pthread_mutex_destroy(&pl->lock);
    free(pl);
    return s;
}

#else /* a build without nvJPEG: gpu_codec_choose never picks this path */

fv_status batch_gpu_jpeg_run(const cli_options *o, const fv_filter *f, const fv_variant *v,
                             const fv_params *p, const image_save_options *save, char *const *in,
                             char *const *out, int n, int threads, batch_file_done done,
                             void *context, batch_gpu_jpeg_result *result)
{
    (void)o, (void)f, (void)v, (void)p, (void)save, (void)in, (void)out, (void)n, (void)threads;
    (void)done, (void)context;
    memset(result, 0, sizeof *result);
    return fv_fail(FV_ERR_UNSUPPORTED, "this build has no GPU JPEG codec");
}

#endif
