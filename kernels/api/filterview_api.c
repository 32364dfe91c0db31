/* ------------------------------------------------------------------------------------------------
 * kernels/api/filterview_api.c: libfilterview's public API (include/libfilterview.h) over the
 * registry and the runner. A context is a runner prepared once (the one place parameters are
 * checked) plus the buffers a run may need to meet the caller's images: RGBA device buffers for
 * host images, other channel counts, rows off 4-byte boundaries and runs in place, and RGBA host
 * buffers for the host side of those. Everything is allocated at create; a run allocates nothing.
 * Messages: the internal fv_fail records one per thread; every public call copies it into the
 * context (or the caller's buffer) before returning, so nothing is shared between contexts.
 * ------------------------------------------------------------------------------------------------ */
#include "libfilterview.h"

#include "api_pack.h"
#include "device.h"
#include "filter.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PARAMS_TEXT_MAX 512

struct filterview_context {
    const fv_filter *filter;
    const fv_variant *variant;
    int width, height;
    fv_runner runner;
    fv_image device_in, device_out; /* RGBA (GPU variants) */
    fv_image host_in, host_out;     /* RGBA */
    /* recorded after each run on the device: destroy waits for it (not for the stream, which
     * the caller may have destroyed by then) */
    cudaEvent_t last_run;
    char params_text[256];
    char error[512];
    char notice[512]; /* what create did that the caller did not ask for ("" for nothing) */
};

/* The length of the valid UTF-8 sequence at s (printable: no C1 control), 0 when there is none. */
static size_t utf8_length(const unsigned char *s)
{
    if (s[0] < 0xc2 || s[0] > 0xf4) return 0;
    const size_t n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || /* overlong, surrogate */
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f) ||
        (s[0] == 0xc2 && s[1] < 0xa0)) /* C1 controls */
        return 0;
    return n;
}

/* Messages quote the caller's names and values: a control byte or invalid UTF-8 in them is
 * written \xNN, so that a message is always one printable line. */
static void copy_message(char *buf, size_t size, const char *message)
{
    if (!buf || !size) return;
    size_t used = 0;
    for (const unsigned char *m = (const unsigned char *)message; *m && used + 1 < size;) {
        const size_t n = *m >= 0x20 && *m < 0x7f ? 1 : utf8_length(m);
        if (n && used + n < size) {
            memcpy(buf + used, m, n);
            used += n;
            m += n;
        } else if (!n && used + 4 < size) {
            snprintf(buf + used, size - used, "\\x%02x", *m++);
            used += 4;
        } else {
            break;
        }
    }
    buf[used] = 0;
}

/* Appends `name` to the list in buf ("a, b, c"), quietly stopping when buf is full. */
static void list_append(char *buf, size_t size, const char *name)
{
    const size_t len = strlen(buf);
    if (len + 1 < size) snprintf(buf + len, size - len, "%s%s", len ? ", " : "", name);
}

const char *filterview_status_name(fv_status status)
{
    return fv_status_name(status);
}

const char *filterview_version(void)
{
    return FILTERVIEW_VERSION;
}

int filterview_device_available(char *why, size_t why_size)
{
    if (fv_device_check() == FV_OK) {
        copy_message(why, why_size, "");
        return 1;
    }
    copy_message(why, why_size, fv_last_error());
    return 0;
}

/* ---- the registry ---- */
int filterview_filter_count(void)
{
    return fv_n_filters;
}

const char *filterview_filter_name(int index)
{
    return index >= 0 && index < fv_n_filters ? fv_filters[index]->name : NULL;
}

static const fv_filter *find_filter(const char *name)
{
    return name ? fv_filter_find(name) : NULL;
}

const char *filterview_filter_summary(const char *filter)
{
    const fv_filter *f = find_filter(filter);
    return f ? f->summary : NULL;
}

int filterview_filter_max_iterations(const char *filter)
{
    const fv_filter *f = find_filter(filter);
    return f ? f->max_iterations : 0;
}

int filterview_param_count(const char *filter)
{
    const fv_filter *f = find_filter(filter);
    return f ? f->n_params : -1;
}

fv_status filterview_param_get(const char *filter, int index, filterview_param_info *out)
{
    const fv_filter *f = find_filter(filter);
    if (!f || !out || index < 0 || index >= f->n_params) return FV_ERR_ARG;
    const fv_param_desc *d = &f->params[index];
    memset(out, 0, sizeof *out);
    out->name = d->name;
    out->help = d->help;
    out->type = d->type == FV_PARAM_INT      ? FILTERVIEW_PARAM_INT
                : d->type == FV_PARAM_REAL   ? FILTERVIEW_PARAM_REAL
                : d->type == FV_PARAM_CHOICE ? FILTERVIEW_PARAM_CHOICE
                                             : FILTERVIEW_PARAM_IMAGE;
    out->min = d->type == FV_PARAM_CHOICE ? 0 : d->min;
    out->max = d->type == FV_PARAM_CHOICE ? d->n_choices - 1 : d->max;
    out->default_value = d->def;
    out->odd_only = d->odd_only;
    out->auto_means = d->auto_means;
    out->choices = d->choices;
    out->n_choices = d->n_choices;
    return FV_OK;
}

int filterview_variant_count(const char *filter)
{
    const fv_filter *f = find_filter(filter);
    return f ? f->n_variants : -1;
}

fv_status filterview_variant_get(const char *filter, int index, filterview_variant_info *out)
{
    const fv_filter *f = find_filter(filter);
    if (!f || !out || index < 0 || index >= f->n_variants) return FV_ERR_ARG;
    const fv_variant *v = &f->variants[index];
    out->name = v->name;
    out->summary = v->summary;
    out->role = v->role == FV_ROLE_TEACHING  ? FILTERVIEW_ROLE_TEACHING
                : v->role == FV_ROLE_FASTEST ? FILTERVIEW_ROLE_FASTEST
                : v->role == FV_ROLE_PEER    ? FILTERVIEW_ROLE_PEER
                                             : FILTERVIEW_ROLE_REFERENCE;
    out->on_host = fv_variant_is_host(v);
    return FV_OK;
}

/* ---- parameters from "name=value name=value" ---- */
static fv_status params_from_text(const fv_filter *f, const char *text, fv_params *p)
{
    *p = fv_params_default(f);
    if (!text) return FV_OK;
    if (strlen(text) >= PARAMS_TEXT_MAX)
        return fv_fail(FV_ERR_ARG, "parameters: more than %d characters", PARAMS_TEXT_MAX - 1);
    char copy[PARAMS_TEXT_MAX];
    snprintf(copy, sizeof copy, "%s", text);
    /* values in table order, whatever order they came in: a parameter that follows another
     * (the Gaussian's radius follows sigma) is reset when that one is set, so set first */
    const char *given[FV_MAX_PARAMS] = {0};
    const char *iterations = NULL;
    for (char *save = NULL, *tok = strtok_r(copy, " ,\t\n", &save); tok;
         tok = strtok_r(NULL, " ,\t\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok)
            return fv_fail(FV_ERR_ARG, "parameters: expected name=value, got '%s'", tok);
        *eq = 0;
        const char *value = eq + 1;
        if (strcmp(tok, "iterations") == 0) {
            if (iterations) return fv_fail(FV_ERR_ARG, "parameters: 'iterations' given twice");
            iterations = value;
            continue;
        }
        const int i = fv_param_index(f, tok);
        if (i < 0) {
            char names[256] = "";
            for (int k = 0; k < f->n_params; k++)
                list_append(names, sizeof names, f->params[k].name);
            list_append(names, sizeof names, "iterations");
            return fv_fail(FV_ERR_ARG, "%s has no parameter '%s' (it has: %s)", f->name, tok,
                           names);
        }
        if (given[i]) return fv_fail(FV_ERR_ARG, "parameters: '%s' given twice", tok);
        given[i] = value;
    }
    for (int i = 0; i < f->n_params; i++) {
        if (!given[i]) continue;
        double v;
        FV_TRY(fv_param_parse(f, i, given[i], f->params[i].name, &v));
        fv_param_set(f, p, i, v);
    }
    if (iterations) {
        char *end = NULL;
        const long n = strtol(iterations, &end, 10);
        if (!*iterations || !end || *end || n < 1 || n > f->max_iterations)
            return fv_fail(FV_ERR_ARG, "iterations: expected an integer 1..%d, got '%s'",
                           f->max_iterations, iterations);
        p->iterations = (int)n;
    }
    return FV_OK;
}

/* ---- contexts ---- */
static fv_status context_make(filterview_context *c, const char *filter, const char *variant,
                              int width, int height, const char *params)
{
    if (!filter) return fv_fail(FV_ERR_ARG, "no filter named");
    c->filter = fv_filter_find(filter);
    if (!c->filter) {
        char names[256] = "";
        for (int i = 0; i < fv_n_filters; i++)
            list_append(names, sizeof names, fv_filters[i]->name);
        return fv_fail(FV_ERR_ARG, "no filter '%s' (there are: %s)", filter, names);
    }
    const fv_filter *f = c->filter;
    c->variant =
        variant ? fv_variant_find(f, variant) : fv_filter_variant_of_role(f, FV_ROLE_FASTEST);
    if (!c->variant && !variant) c->variant = fv_filter_baseline(f);
    if (!c->variant) {
        char names[256] = "";
        for (int i = 0; i < f->n_variants; i++)
            list_append(names, sizeof names, f->variants[i].name);
        return fv_fail(FV_ERR_ARG, "%s has no variant '%s' (it has: %s)", f->name, variant, names);
    }
    FV_TRY(fv_check_dimensions(width, height));
    fv_params p;
    FV_TRY(params_from_text(f, params, &p));
    /* no variant named and no device: the reference, said, as the program does; a variant
     * named is what the caller wants, and fails below without a device */
    const fv_variant *ref = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
    const char *no_device =
        !variant && !fv_variant_is_host(c->variant) && ref ? fv_device_unavailable_reason() : NULL;
    if (no_device) {
        snprintf(c->notice, sizeof c->notice,
                 "no CUDA device (%s): %s/%s, the reference, runs instead of %s", no_device,
                 f->name, ref->name, c->variant->name);
        c->variant = ref;
    }
    const int on_host = fv_variant_is_host(c->variant);
    if (!on_host && fv_device_check() != FV_OK) {
        char why[512]; /* fv_fail writes where fv_last_error() points: copied first */
        snprintf(why, sizeof why, "%s", fv_last_error());
        return fv_fail(FV_ERR_NO_DEVICE,
                       "%s/%s needs a CUDA device: %s (variant cpu runs the "
                       "reference on the host)",
                       f->name, c->variant->name, why);
    }
    c->width = width;
    c->height = height;
    FV_TRY(fv_runner_prepare(&c->runner, f, c->variant, &p, width, height));
    const fv_params resolved = fv_params_resolved(f, &c->runner.params);
    fv_params_describe(f, &resolved, c->params_text, sizeof c->params_text);
    FV_TRY(fv_host_image_alloc(&c->host_in, width, height));
    FV_TRY(fv_host_image_alloc(&c->host_out, width, height));
    if (!on_host) {
        FV_TRY(fv_device_image_alloc(&c->device_in, width, height));
        FV_TRY(fv_device_image_alloc(&c->device_out, width, height));
        if (cudaEventCreateWithFlags(&c->last_run, cudaEventDisableTiming) != cudaSuccess) {
            c->last_run = NULL;
            (void)cudaGetLastError();
            return fv_fail(FV_ERR_CUDA, "cannot create a CUDA event");
        }
    }
    return FV_OK;
}

fv_status filterview_context_create(filterview_context **out, const char *filter,
                                    const char *variant, int width, int height, const char *params,
                                    char *error, size_t error_size)
{
    copy_message(error, error_size, "");
    if (!out) {
        copy_message(error, error_size, "filterview_context_create: out is NULL");
        return FV_ERR_ARG;
    }
    *out = NULL;
    filterview_context *c = calloc(1, sizeof *c);
    if (!c) {
        copy_message(error, error_size, "out of host memory");
        return FV_ERR_MEMORY;
    }
    const fv_status st = context_make(c, filter, variant, width, height, params);
    if (st != FV_OK) {
        copy_message(error, error_size, fv_last_error());
        filterview_context_destroy(c);
        return st;
    }
    copy_message(error, error_size, c->notice);
    *out = c;
    return FV_OK;
}

/* Whether the image's bytes, pitch * (height - 1) + its last row from data, fit in the address
 * space: a pitch that overflows would wrap every row offset computed from it. Width, height and
 * channels are positive and checked before. */
static int span_fits(const filterview_image *img)
{
    const size_t row = (size_t)img->width * (size_t)img->channels;
    if (img->height > 1 && img->pitch > (SIZE_MAX - row) / (size_t)(img->height - 1)) return 0;
    const size_t bytes = img->pitch * (size_t)(img->height - 1) + row;
    return (uintptr_t)img->data <= UINTPTR_MAX - bytes;
}

/* The image as the runner sees it: RGBA rows on 4-byte boundaries */
static int usable_directly(const filterview_image *img, filterview_memory where)
{
    return img->memory == where && img->channels == 4 &&
           ((uintptr_t)img->data | img->pitch) % 4 == 0;
}

static fv_image as_fv_image(const filterview_image *img)
{
    fv_image v = {.data = (uint8_t *)img->data,
                  .width = img->width,
                  .height = img->height,
                  .pitch = img->pitch,
                  .memory = img->memory == FILTERVIEW_DEVICE ? FV_MEMORY_DEVICE : FV_MEMORY_HOST};
    return v;
}

/* 1 when the byte ranges of the two images overlap (a run in place, or nearly) */
static int overlaps(const filterview_image *a, const filterview_image *b)
{
    const uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    const uintptr_t a1 = a0 + a->pitch * (size_t)(a->height - 1) + (size_t)a->width * a->channels;
    const uintptr_t b1 = b0 + b->pitch * (size_t)(b->height - 1) + (size_t)b->width * b->channels;
    return a->memory == b->memory && a0 < b1 && b0 < a1;
}

static void host_widen(const filterview_image *src, fv_image *dst)
{
    for (int y = 0; y < src->height; y++) {
        const uint8_t *s = (const uint8_t *)src->data + (size_t)y * src->pitch;
        uint8_t *d = dst->data + (size_t)y * dst->pitch;
        for (int x = 0; x < src->width; x++, d += 4, s += src->channels) {
            const int c = src->channels;
            d[0] = s[0];
            d[1] = c == 1 ? s[0] : s[1];
            d[2] = c == 1 ? s[0] : s[2];
            d[3] = c == 4 ? s[3] : 255;
        }
    }
}

static void host_narrow(const fv_image *src, filterview_image *dst)
{
    for (int y = 0; y < dst->height; y++) {
        const uint8_t *s = src->data + (size_t)y * src->pitch;
        uint8_t *d = (uint8_t *)dst->data + (size_t)y * dst->pitch;
        for (int x = 0; x < dst->width; x++, s += 4, d += dst->channels)
            memcpy(d, s, (size_t)dst->channels);
    }
}

static fv_status check_image(const filterview_context *c, const filterview_image *img,
                             const char *which)
{
    if (!img || !img->data) return fv_fail(FV_ERR_ARG, "%s: no image", which);
    if (img->width != c->width || img->height != c->height)
        return fv_fail(FV_ERR_ARG, "%s: %dx%d, but the context is for %dx%d", which, img->width,
                       img->height, c->width, c->height);
    if (img->channels != 1 && img->channels != 3 && img->channels != 4)
        return fv_fail(FV_ERR_ARG, "%s: %d channels (1, 3 or 4 are taken)", which, img->channels);
    if (img->pitch < (size_t)img->width * img->channels)
        return fv_fail(FV_ERR_ARG, "%s: a pitch of %zu bytes is less than a row (%zu)", which,
                       img->pitch, (size_t)img->width * img->channels);
    if (!span_fits(img))
        return fv_fail(FV_ERR_ARG,
                       "%s: a pitch of %zu bytes over %d rows is past the end of memory", which,
                       img->pitch, img->height);
    if (img->memory != FILTERVIEW_HOST && img->memory != FILTERVIEW_DEVICE)
        return fv_fail(FV_ERR_ARG, "%s: memory is neither FILTERVIEW_HOST nor FILTERVIEW_DEVICE",
                       which);
    return FV_OK;
}

static fv_status cuda_said(cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return FV_OK;
    (void)cudaGetLastError();
    return fv_fail(FV_ERR_CUDA, "%s: %s", what, cudaGetErrorString(err));
}

static fv_status run_on_host(filterview_context *c, const filterview_image *src,
                             filterview_image *dst)
{
    if (src->memory != FILTERVIEW_HOST || dst->memory != FILTERVIEW_HOST)
        return fv_fail(FV_ERR_ARG, "%s/%s runs on the host: give it host images", c->filter->name,
                       c->variant->name);
    fv_image in = as_fv_image(src), out = as_fv_image(dst);
    if (src->channels != 4) {
        host_widen(src, &c->host_in);
        in = c->host_in;
    }
    const int narrow = dst->channels != 4 || overlaps(src, dst);
    if (narrow) out = c->host_out;
    FV_TRY(fv_runner_run(&c->runner, &in, &out, 0));
    if (narrow) host_narrow(&c->host_out, dst);
    return FV_OK;
}

static fv_status run_on_device(filterview_context *c, const filterview_image *src,
                               filterview_image *dst, cudaStream_t stream)
{
    const size_t row = (size_t)c->width * 4;
    /* in: the caller's device image as it is, or the context's RGBA copy of it */
    fv_image in = c->device_in;
    if (usable_directly(src, FILTERVIEW_DEVICE)) {
        in = as_fv_image(src);
    } else if (src->memory == FILTERVIEW_DEVICE) {
        FV_TRY(fv_api_widen(src->data, src->pitch, src->channels, &c->device_in, stream));
    } else {
        const void *from = src->data;
        size_t from_pitch = src->pitch;
        if (src->channels != 4) {
            host_widen(src, &c->host_in);
            from = c->host_in.data;
            from_pitch = c->host_in.pitch;
        }
        FV_TRY(cuda_said(cudaMemcpy2DAsync(c->device_in.data, c->device_in.pitch, from, from_pitch,
                                           row, (size_t)c->height, cudaMemcpyHostToDevice, stream),
                         "copying the image to the GPU"));
    }
    /* out: straight into the caller's device image unless it needs narrowing or overlaps src */
    const int direct_out = usable_directly(dst, FILTERVIEW_DEVICE) && !overlaps(src, dst);
    fv_image out = direct_out ? as_fv_image(dst) : c->device_out;
    FV_TRY(fv_runner_run(&c->runner, &in, &out, stream));
    if (!direct_out && dst->memory == FILTERVIEW_DEVICE) {
        if (dst->channels == 4 && ((uintptr_t)dst->data | dst->pitch) % 4 == 0)
            FV_TRY(cuda_said(cudaMemcpy2DAsync(dst->data, dst->pitch, out.data, out.pitch, row,
                                               (size_t)c->height, cudaMemcpyDeviceToDevice, stream),
                             "copying the result into place"));
        else
            FV_TRY(fv_api_narrow(&out, dst->data, dst->pitch, dst->channels, stream));
    } else if (dst->memory == FILTERVIEW_HOST) {
        const int narrow = dst->channels != 4;
        FV_TRY(cuda_said(cudaMemcpy2DAsync(narrow ? c->host_out.data : dst->data,
                                           narrow ? c->host_out.pitch : dst->pitch, out.data,
                                           out.pitch, row, (size_t)c->height,
                                           cudaMemcpyDeviceToHost, stream),
                         "copying the result from the GPU"));
        FV_TRY(cuda_said(cudaStreamSynchronize(stream), "the filter's run"));
        if (narrow) host_narrow(&c->host_out, dst);
        return FV_OK;
    }
    if (src->memory == FILTERVIEW_HOST) /* its copy must be done before the caller reuses it */
        FV_TRY(cuda_said(cudaStreamSynchronize(stream), "the filter's run"));
    return cuda_said(cudaGetLastError(), "the filter's run");
}

fv_status filterview_run(filterview_context *ctx, const filterview_image *src,
                         filterview_image *dst, void *stream)
{
    if (!ctx) return FV_ERR_ARG;
    ctx->error[0] = 0;
    fv_status st = check_image(ctx, src, "source");
    if (st == FV_OK) st = check_image(ctx, dst, "destination");
    if (st == FV_OK && src->channels != dst->channels)
        st = fv_fail(FV_ERR_ARG, "source has %d channels, destination %d", src->channels,
                     dst->channels);
    if (st == FV_OK && fv_variant_is_host(ctx->variant)) {
        st = run_on_host(ctx, src, dst);
    } else if (st == FV_OK) {
        /* the context's own buffers are the last run's until it is done, whatever its stream */
        st = cuda_said(cudaStreamWaitEvent((cudaStream_t)stream, ctx->last_run, 0),
                       "ordering after the last run");
        if (st == FV_OK) st = run_on_device(ctx, src, dst, (cudaStream_t)stream);
        /* even after a failure: whatever was enqueued is waited for at destroy */
        const cudaError_t recorded = cudaEventRecord(ctx->last_run, (cudaStream_t)stream);
        if (st == FV_OK) st = cuda_said(recorded, "recording the run's end");
    }
    if (st != FV_OK) copy_message(ctx->error, sizeof ctx->error, fv_last_error());
    return st;
}

const char *filterview_context_error(const filterview_context *ctx)
{
    return ctx ? ctx->error : "no context";
}

const char *filterview_context_variant(const filterview_context *ctx)
{
    return ctx && ctx->variant ? ctx->variant->name : "";
}

const char *filterview_context_params(const filterview_context *ctx)
{
    return ctx ? ctx->params_text : "";
}

size_t filterview_context_device_bytes(const filterview_context *ctx)
{
    if (!ctx) return 0;
    const size_t staging = ctx->device_in.data ? 2 * ctx->device_in.pitch * (size_t)ctx->height : 0;
    return ctx->runner.device_bytes + staging;
}

void filterview_context_destroy(filterview_context *ctx)
{
    if (!ctx) return;
    if (ctx->last_run) {
        (void)cudaEventSynchronize(ctx->last_run);
        (void)cudaEventDestroy(ctx->last_run);
        (void)cudaGetLastError();
    }
    fv_runner_release(&ctx->runner);
    fv_device_image_free(&ctx->device_in);
    fv_device_image_free(&ctx->device_out);
    fv_host_image_free(&ctx->host_in);
    fv_host_image_free(&ctx->host_out);
    free(ctx);
}

/* ---- comparing ---- */
fv_status filterview_compare(const filterview_image *a, const filterview_image *b,
                             filterview_diff *out, char *error, size_t error_size)
{
    copy_message(error, error_size, "");
    const char *why =
        !a || !b || !out || !a->data || !b->data ? "an image or the result is NULL"
        : a->memory != FILTERVIEW_HOST || b->memory != FILTERVIEW_HOST ? "host images only"
        : a->width != b->width || a->height != b->height               ? "sizes differ"
        : a->width < 1 || a->height < 1      ? "an image has no pixels (width and height from 1)"
        : a->channels != b->channels         ? "channel counts differ"
        : a->channels < 1 || a->channels > 4 ? "1 to 4 channels"
        : a->pitch < (size_t)a->width * a->channels || b->pitch < (size_t)b->width * b->channels
            ? "a pitch is less than a row"
        : !span_fits(a) || !span_fits(b) ? "a pitch times the rows is past the end of memory"
                                         : NULL;
    if (why) {
        copy_message(error, error_size, why);
        return FV_ERR_ARG;
    }
    long long sum = 0, differing = 0;
    int max_abs = 0;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *pa = (const uint8_t *)a->data + (size_t)y * a->pitch;
        const uint8_t *pb = (const uint8_t *)b->data + (size_t)y * b->pitch;
        for (int x = 0; x < a->width; x++) {
            int any = 0;
            for (int ch = 0; ch < a->channels; ch++, pa++, pb++) {
                const int d = *pa > *pb ? *pa - *pb : *pb - *pa;
                sum += d;
                any |= d;
                if (d > max_abs) max_abs = d;
            }
            differing += any != 0;
        }
    }
    out->max_abs = max_abs;
    out->mean_abs = (double)sum / ((double)a->width * a->height * a->channels);
    out->differing = differing;
    return FV_OK;
}
