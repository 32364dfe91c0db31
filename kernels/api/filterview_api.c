/* ------------------------------------------------------------------------------------------------
 * kernels/api/filterview_api.c: libfilterview's public API (include/libfilterview.h) over the
 * registry and the runner. A context is a runner prepared once (the one place parameters are
 * checked) plus the buffers a run may need to meet the caller's images: RGBA device buffers for
 * host images, other channel counts, rows off 4-byte boundaries and runs in place, and RGBA host
 * buffers for the host side of those. Everything is allocated at create, for the largest image
 * the context takes; it runs any image up to that size as a view of its buffers. A run at the
 * size of the last allocates nothing; one at another size remakes the runner's state for it.
 * Messages: the internal fv_fail records one per thread; every public call copies it into the
 * context (or the caller's buffer) before returning, so nothing is shared between contexts.
 * ------------------------------------------------------------------------------------------------ */
#include "libfilterview.h"

#include "api_graph.h"
#include "api_pack.h"
#include "device.h"
#include "filter.h"

#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A host image crosses the bus in this many row chunks: the CPU copies chunk k into pinned
 * staging while the copy engine moves chunk k - 1 (and the other way round after the run). */
#define STAGING_CHUNKS 8

struct filterview_context {
    const fv_filter *filter;
    const fv_variant *variant;
    int device; /* the CUDA device it runs on, made current for each call; -1: the caller's */
    int width, height; /* the largest image it takes: its buffers' size */
    fv_pixel_type type;
    fv_runner runner;
    unsigned prepared; /* the runner's preparations after create: a batch's graphs' key */
    fv_image device_in, device_out; /* RGBA of the type (GPU variants) */
    uint8_t *device_packed;         /* a host image's rows as the caller lays them out (1 or 3
                                       channels), packed, on the device: widened from, narrowed
                                       into (GPU variants) */
    fv_image host_in, host_out;     /* RGBA of the type (the reference) */
    uint8_t *staging;               /* pinned: a host image's packed rows on their way */
    size_t staging_bytes;
    cudaEvent_t chunk_done[STAGING_CHUNKS]; /* a chunk of the result has reached staging */
    struct batch_pipeline *batch;           /* a host batch's second set of buffers, or NULL */
    /* recorded after each run on the device: destroy waits for it (not for the stream, which
     * the caller may have destroyed by then) */
    cudaEvent_t last_run;
    fv_image param_images[FV_MAX_PARAMS]; /* copies of the caller's image parameters (host) */
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

int filterview_device_count(void)
{
    int count = 0;
    if (fv_device_check() != FV_OK || cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
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

/* ---- growing structs: each starts with the size its caller's header gives it ---- */
/* Whether the caller's struct at `caller` (its first field, size_t size) was given a size */
static int sized(const void *caller)
{
    size_t size;
    memcpy(&size, caller, sizeof size);
    return size >= sizeof size;
}

/* The caller's struct filled with what fits of `full` (which this library filled whole), its
 * size field kept: a caller built against an older header gets the fields it knows */
static void answer_sized(void *caller, const void *full, size_t full_size)
{
    size_t size;
    memcpy(&size, caller, sizeof size);
    const size_t n = size < full_size ? size : full_size;
    memcpy((uint8_t *)caller + sizeof size, (const uint8_t *)full + sizeof size, n - sizeof size);
}

/* The caller's image as this library knows it: the fields its size covers, 0 after them */
static filterview_image image_read(const filterview_image *caller)
{
    filterview_image img;
    memset(&img, 0, sizeof img);
    memcpy(&img, caller, caller->size < sizeof img ? caller->size : sizeof img);
    return img;
}

/* image_read once the caller's image is there and sized */
static fv_status image_in(const filterview_image *caller, filterview_image *img, const char *which)
{
    memset(img, 0, sizeof *img);
    if (!caller) return fv_fail(FV_ERR_ARG, "%s: no image", which);
    if (!sized(caller))
        return fv_fail(FV_ERR_ARG, "%s: .size is %zu: set it to sizeof (filterview_image)", which,
                       caller->size);
    *img = image_read(caller);
    return FV_OK;
}

/* Image i of the caller's array: its elements are its first's size apart */
static const filterview_image *image_at(const filterview_image *array, int i)
{
    return (const filterview_image *)((const uint8_t *)array + (size_t)i * array->size);
}

int filterview_param_count(const char *filter)
{
    const fv_filter *f = find_filter(filter);
    return f ? f->n_params : -1;
}

fv_status filterview_param_get(const char *filter, int index, filterview_param_info *out)
{
    const fv_filter *f = find_filter(filter);
    if (!f || !out || !sized(out) || index < 0 || index >= f->n_params) return FV_ERR_ARG;
    const fv_param_desc *d = &f->params[index];
    filterview_param_info info = {.size = sizeof info,
                                  .name = d->name,
                                  .help = d->help,
                                  .type = d->type == FV_PARAM_INT      ? FILTERVIEW_PARAM_INT
                                          : d->type == FV_PARAM_REAL   ? FILTERVIEW_PARAM_REAL
                                          : d->type == FV_PARAM_CHOICE ? FILTERVIEW_PARAM_CHOICE
                                                                       : FILTERVIEW_PARAM_IMAGE,
                                  .min = d->type == FV_PARAM_CHOICE ? 0 : d->min,
                                  .max = d->type == FV_PARAM_CHOICE ? d->n_choices - 1 : d->max,
                                  .default_value = d->def,
                                  .odd_only = d->odd_only,
                                  .auto_means = d->auto_means,
                                  .choices = d->choices,
                                  .n_choices = d->n_choices};
    answer_sized(out, &info, sizeof info);
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
    if (!f || !out || !sized(out) || index < 0 || index >= f->n_variants) return FV_ERR_ARG;
    const fv_variant *v = &f->variants[index];
    const filterview_variant_info info = {.size = sizeof info,
                                          .name = v->name,
                                          .summary = v->summary,
                                          .role =
                                              v->role == FV_ROLE_TEACHING ? FILTERVIEW_ROLE_TEACHING
                                              : v->role == FV_ROLE_FASTEST ? FILTERVIEW_ROLE_FASTEST
                                              : v->role == FV_ROLE_PEER    ? FILTERVIEW_ROLE_PEER
                                                                        : FILTERVIEW_ROLE_REFERENCE,
                                          .on_host = fv_variant_is_host(v)};
    answer_sized(out, &info, sizeof info);
    return FV_OK;
}

fv_status filterview_filter_reach(const char *filter, const char *params, long long *reach,
                                  char *error, size_t error_size)
{
    copy_message(error, error_size, "");
    const fv_filter *f = find_filter(filter);
    fv_params p;
    fv_status st = !f       ? fv_fail(FV_ERR_ARG, "no filter '%s'", filter ? filter : "(NULL)")
                   : !reach ? fv_fail(FV_ERR_ARG, "filterview_filter_reach: reach is NULL")
                            : fv_params_from_text(f, params, &p);
    if (st == FV_OK) st = fv_params_check(f, &p);
    if (st != FV_OK) {
        copy_message(error, error_size, fv_last_error());
        return st;
    }
    *reach = fv_filter_reach(f, &p);
    return FV_OK;
}

/* ---- contexts ---- */
struct batch_pipeline;
static void batch_free(struct batch_pipeline *b);

static fv_status cuda_said(cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return FV_OK;
    (void)cudaGetLastError();
    return fv_fail(FV_ERR_CUDA, "%s: %s", what, cudaGetErrorString(err));
}

static fv_status event_make(cudaEvent_t *event)
{
    if (cudaEventCreateWithFlags(event, cudaEventDisableTiming) == cudaSuccess) return FV_OK;
    *event = NULL;
    (void)cudaGetLastError();
    return fv_fail(FV_ERR_CUDA, "cannot create a CUDA event");
}

/* The context's device made current for one call, and the caller's put back after it, so that
 * a context pinned to a device never changes the calling thread's choice. */
typedef struct device_scope {
    int previous; /* -1: nothing to put back */
} device_scope;

static fv_status device_enter(const filterview_context *c, device_scope *scope)
{
    scope->previous = -1;
    if (c->device < 0) return FV_OK;
    int current = 0;
    FV_TRY(cuda_said(cudaGetDevice(&current), "asking for the current CUDA device"));
    if (current == c->device) return FV_OK;
    FV_TRY(cuda_said(cudaSetDevice(c->device), "making the context's CUDA device current"));
    scope->previous = current;
    return FV_OK;
}

static void device_leave(const device_scope *scope)
{
    if (scope->previous >= 0 && cudaSetDevice(scope->previous) != cudaSuccess)
        (void)cudaGetLastError();
}

/* A device index names one of this machine's devices (-1: the current one). Without any device
 * the index is dropped and the no-device rules of context_make apply (they say why). */
static fv_status device_index_resolve(filterview_context *c, int device)
{
    c->device = -1;
    if (device < -1)
        return fv_fail(FV_ERR_ARG,
                       "device %d: expected -1 (the current CUDA device) or an index from 0",
                       device);
    int count = 0;
    if (device < 0 || fv_device_unavailable_reason()) return FV_OK;
    FV_TRY(cuda_said(cudaGetDeviceCount(&count), "counting the CUDA devices"));
    if (device >= count)
        return fv_fail(FV_ERR_ARG, "device %d: this machine has %d CUDA device%s (0 to %d)", device,
                       count, count == 1 ? "" : "s", count - 1);
    c->device = device;
    return FV_OK;
}

static size_t pixel_bytes(const filterview_image *img);
static int span_fits(const filterview_image *img);

/* The caller's images of image parameters into p, as copies the context owns (a run may read
 * them again: the reference makes conv's kernel on every pass). */
static fv_status param_images_set(filterview_context *c, const filterview_param_image *images,
                                  int n_images, fv_params *p)
{
    const fv_filter *f = c->filter;
    if (n_images < 0 || (n_images > 0 && !images))
        return fv_fail(FV_ERR_ARG, "image parameters: %d given at %p", n_images, (void *)images);
    if (n_images > 0 && !sized(images))
        return fv_fail(FV_ERR_ARG,
                       "image parameters: .size is %zu: set it to sizeof (filterview_param_image)",
                       images->size);
    for (int k = 0; k < n_images; k++) {
        /* the array's elements are its first's size apart; fields past it read as NULL */
        filterview_param_image given = {0};
        const void *element = (const uint8_t *)images + (size_t)k * images->size;
        memcpy(&given, element, images->size < sizeof given ? images->size : sizeof given);
        const char *name = given.name;
        filterview_image image;
        const int i = name ? fv_param_index(f, name) : -1;
        if (i < 0 || f->params[i].type != FV_PARAM_IMAGE) {
            char names[256] = "";
            for (int j = 0; j < f->n_params; j++)
                if (f->params[j].type == FV_PARAM_IMAGE)
                    list_append(names, sizeof names, f->params[j].name);
            return fv_fail(FV_ERR_ARG, "%s has no image parameter '%s' (%s%s)", f->name,
                           name ? name : "(NULL)", names[0] ? "it has: " : "it has none", names);
        }
        if (p->image[i]) return fv_fail(FV_ERR_ARG, "%s: given twice", name);
        FV_TRY(image_in(given.image, &image, name));
        const filterview_image *img = &image;
        if (!img->data) return fv_fail(FV_ERR_ARG, "%s: no image", name);
        if (img->memory != FILTERVIEW_HOST)
            return fv_fail(FV_ERR_ARG, "%s: the image must be in host memory", name);
        if (img->channels != 1 && img->channels != 3 && img->channels != 4)
            return fv_fail(FV_ERR_ARG, "%s: %d channels (1, 3 or 4 are taken)", name,
                           img->channels);
        if ((unsigned)img->dtype >= FV_PIXEL_TYPE_COUNT)
            return fv_fail(FV_ERR_ARG, "%s: dtype %d is none of uint8 (0), uint16 (1), float32 (2)",
                           name, (int)img->dtype);
        if (img->width < 1 || img->height < 1 || img->width > f->params[i].max ||
            img->height > f->params[i].max)
            return fv_fail(FV_ERR_SIZE, "%s: %dx%d is not within 1x1..%gx%g", name, img->width,
                           img->height, f->params[i].max, f->params[i].max);
        const size_t row = (size_t)img->width * pixel_bytes(img);
        if (img->pitch < row || !span_fits(img))
            return fv_fail(FV_ERR_ARG, "%s: a pitch of %zu bytes does not hold its rows (%zu)",
                           name, img->pitch, row);
        fv_image *copy = &c->param_images[i];
        FV_TRY(fv_host_image_alloc_as(copy, img->width, img->height, (fv_pixel_type)img->dtype,
                                      img->channels));
        for (int y = 0; y < img->height; y++)
            memcpy(copy->data + (size_t)y * copy->pitch,
                   (const uint8_t *)img->data + (size_t)y * img->pitch, row);
        p->image[i] = copy;
        p->value[i] = 1;
    }
    return FV_OK;
}

static fv_status context_make(filterview_context *c, const char *filter, const char *variant,
                              int width, int height, fv_pixel_type type, const char *params,
                              const filterview_param_image *images, int n_images)
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
    if ((unsigned)type >= FV_PIXEL_TYPE_COUNT)
        return fv_fail(FV_ERR_ARG, "dtype %d is none of uint8 (0), uint16 (1), float32 (2)",
                       (int)type);
    fv_params p;
    FV_TRY(fv_params_from_text(f, params, &p));
    FV_TRY(param_images_set(c, images, n_images, &p));
    p.type = type;
    c->type = type;
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
    if (on_host) {
        FV_TRY(fv_host_image_alloc_as(&c->host_in, width, height, type, 4));
        return fv_host_image_alloc_as(&c->host_out, width, height, type, 4);
    }
    FV_TRY(fv_device_image_alloc_as(&c->device_in, width, height, type, 4));
    FV_TRY(fv_device_image_alloc_as(&c->device_out, width, height, type, 4));
    /* room for the widest packed rows (4 channels), whatever the caller brings */
    c->staging_bytes = (size_t)width * 4 * fv_pixel_type_bytes(type) * (size_t)height;
    void *packed = NULL, *staging = NULL;
    FV_TRY(cuda_said(cudaMalloc(&packed, c->staging_bytes), "the device's packed copy"));
    c->device_packed = packed;
    FV_TRY(cuda_said(cudaHostAlloc(&staging, c->staging_bytes, cudaHostAllocDefault),
                     "pinned staging for host images"));
    c->staging = staging;
    for (int k = 0; k < STAGING_CHUNKS; k++) FV_TRY(event_make(&c->chunk_done[k]));
    return event_make(&c->last_run);
}

fv_status filterview_context_create(filterview_context **out, const char *filter,
                                    const char *variant, int width, int height, const char *params,
                                    char *error, size_t error_size)
{
    return filterview_context_create_typed(out, filter, variant, width, height, FILTERVIEW_UINT8,
                                           params, error, error_size);
}

fv_status filterview_context_create_typed(filterview_context **out, const char *filter,
                                          const char *variant, int width, int height,
                                          filterview_dtype dtype, const char *params, char *error,
                                          size_t error_size)
{
    return filterview_context_create_on(out, -1, filter, variant, width, height, dtype, params,
                                        error, error_size);
}

static fv_status context_create(filterview_context **out, int device, const char *filter,
                                const char *variant, int width, int height,
                                filterview_dtype dtype, const char *params,
                                const filterview_param_image *images, int n_images, char *error,
                                size_t error_size);

fv_status filterview_context_create_on(filterview_context **out, int device, const char *filter,
                                       const char *variant, int width, int height,
                                       filterview_dtype dtype, const char *params, char *error,
                                       size_t error_size)
{
    return context_create(out, device, filter, variant, width, height, dtype, params, NULL, 0,
                          error, error_size);
}

fv_status filterview_context_create_with_images(filterview_context **out, int device,
                                                const char *filter,
                                                const char *variant, int width, int height,
                                                filterview_dtype dtype, const char *params,
                                                const filterview_param_image *images, int n_images,
                                                char *error, size_t error_size)
{
    return context_create(out, device, filter, variant, width, height, dtype, params, images,
                          n_images, error, error_size);
}

/* the three above: a context on `device` (-1: the current one) with the caller's image
 * parameters */
static fv_status context_create(filterview_context **out, int device, const char *filter,
                                const char *variant, int width, int height,
                                filterview_dtype dtype, const char *params,
                                const filterview_param_image *images, int n_images, char *error,
                                size_t error_size)
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
    device_scope scope = {-1};
    fv_status st = device_index_resolve(c, device);
    if (st == FV_OK) st = device_enter(c, &scope);
    if (st == FV_OK)
        st = context_make(c, filter, variant, width, height, (fv_pixel_type)dtype, params,
                          images, n_images);
    if (st == FV_OK && fv_variant_is_host(c->variant)) c->device = -1; /* the host's work */
    device_leave(&scope);
    if (st != FV_OK) {
        copy_message(error, error_size, fv_last_error());
        filterview_context_destroy(c);
        return st;
    }
    copy_message(error, error_size, c->notice);
    *out = c;
    return FV_OK;
}

static size_t pixel_bytes(const filterview_image *img)
{
    return (size_t)img->channels * fv_pixel_type_bytes((fv_pixel_type)img->dtype);
}

/* Whether the image's bytes, pitch * (height - 1) + its last row from data, fit in the address
 * space: a pitch that overflows would wrap every row offset computed from it. Width, height,
 * channels and dtype are checked before. */
static int span_fits(const filterview_image *img)
{
    const size_t row = (size_t)img->width * pixel_bytes(img);
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

/* 1 when the byte ranges of the two images overlap (a run in place, or nearly) */
static int overlaps(const filterview_image *a, const filterview_image *b)
{
    const uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    const uintptr_t a1 =
        a0 + a->pitch * (size_t)(a->height - 1) + (size_t)a->width * pixel_bytes(a);
    const uintptr_t b1 =
        b0 + b->pitch * (size_t)(b->height - 1) + (size_t)b->width * pixel_bytes(b);
    return a->memory == b->memory && a0 < b1 && b0 < a1;
}

static fv_status check_image(const filterview_context *c, const filterview_image *img,
                             const char *which)
{
    if (!img || !img->data) return fv_fail(FV_ERR_ARG, "%s: no image", which);
    if (img->width < 1 || img->height < 1 || img->width > c->width || img->height > c->height)
        return fv_fail(FV_ERR_ARG, "%s: %dx%d, but the context is for images up to %dx%d", which,
                       img->width, img->height, c->width, c->height);
    if (img->channels != 1 && img->channels != 3 && img->channels != 4)
        return fv_fail(FV_ERR_ARG, "%s: %d channels (1, 3 or 4 are taken)", which, img->channels);
    if ((int)img->dtype != (int)c->type)
        return fv_fail(FV_ERR_ARG, "%s: %s, but the context is for %s images", which,
                       fv_pixel_type_name((fv_pixel_type)img->dtype)
                           ? fv_pixel_type_name((fv_pixel_type)img->dtype)
                           : "an unknown dtype",
                       fv_pixel_type_name(c->type));
    if (img->pitch < (size_t)img->width * pixel_bytes(img))
        return fv_fail(FV_ERR_ARG, "%s: a pitch of %zu bytes is less than a row (%zu)", which,
                       img->pitch, (size_t)img->width * pixel_bytes(img));
    if (!span_fits(img))
        return fv_fail(FV_ERR_ARG,
                       "%s: a pitch of %zu bytes over %d rows is past the end of memory", which,
                       img->pitch, img->height);
    if (img->memory != FILTERVIEW_HOST && img->memory != FILTERVIEW_DEVICE)
        return fv_fail(FV_ERR_ARG, "%s: memory is neither FILTERVIEW_HOST nor FILTERVIEW_DEVICE",
                       which);
    return FV_OK;
}

/* The first width x height pixels of one of the context's buffers (made for its largest size),
 * with the buffer's own pitch */
static fv_image buffer_view(const fv_image *buffer, int width, int height)
{
    fv_image v = *buffer;
    v.width = width;
    v.height = height;
    return v;
}

/* The source and destination of one run: present, of one size, of one channel count */
static fv_status check_pair(const filterview_context *c, const filterview_image *src,
                            const filterview_image *dst, const char *source,
                            const char *destination)
{
    FV_TRY(check_image(c, src, source));
    FV_TRY(check_image(c, dst, destination));
    if (src->width != dst->width || src->height != dst->height)
        return fv_fail(FV_ERR_ARG, "%s %dx%d, %s %dx%d: the sizes differ", source, src->width,
                       src->height, destination, dst->width, dst->height);
    if (src->channels != dst->channels)
        return fv_fail(FV_ERR_ARG, "%s has %d channels, %s %d", source, src->channels, destination,
                       dst->channels);
    return FV_OK;
}

/* The runner prepared for this image's size. The context's buffers were made for its largest;
 * the variant's state (a cuFFT plan, band buffers) and the buffer between iterations are made for
 * one size, so a run at another size than the last remakes them, once the last run is done with
 * them. Runs at one size allocate nothing; a prepare that failed half-way (unprepared) is tried
 * again by the next run. */
static fv_status runner_for(filterview_context *c, int width, int height)
{
    if (c->runner.prepared && c->runner.width == width && c->runner.height == height) return FV_OK;
    if (c->last_run)
        FV_TRY(cuda_said(cudaEventSynchronize(c->last_run), "waiting for the last run"));
    const fv_params p = c->runner.params; /* prepare starts from a released runner */
    c->prepared++; /* its state is somewhere else now: graphs captured before are stale */
    return fv_runner_prepare(&c->runner, c->filter, c->variant, &p, width, height);
}

static fv_status run_on_host(filterview_context *c, const filterview_image *src,
                             filterview_image *dst)
{
    if (src->memory != FILTERVIEW_HOST || dst->memory != FILTERVIEW_HOST)
        return fv_fail(FV_ERR_ARG, "%s/%s runs on the host: give it host images", c->filter->name,
                       c->variant->name);
    FV_TRY(runner_for(c, src->width, src->height));
    const fv_image host_in = buffer_view(&c->host_in, src->width, src->height);
    const fv_image host_out = buffer_view(&c->host_out, src->width, src->height);
    fv_image in = fv_api_image_view(src), out = fv_api_image_view(dst);
    if (src->channels != 4) {
        fv_image widened = host_in;
        fv_api_widen_host(&in, &widened);
        in = host_in;
    }
    const int narrow = dst->channels != 4 || overlaps(src, dst);
    if (narrow) out = host_out;
    FV_TRY(fv_runner_run(&c->runner, &in, &out, 0));
    if (narrow) {
        fv_image to = fv_api_image_view(dst);
        fv_api_narrow_host(&host_out, &to);
    }
    return FV_OK;
}

/* Rows [y0, y1) of chunk k of n */
static void chunk_rows(int height, int k, int n, int *y0, int *y1)
{
    *y0 = (int)((long long)height * k / n);
    *y1 = (int)((long long)height * (k + 1) / n);
}

/* The caller's host image into the device rows `to` (pitch `to_pitch`) through pinned staging,
 * a chunk of rows at a time: the CPU's copy of a chunk overlaps the copy engine's of the one
 * before. */
static fv_status upload_host(filterview_context *c, const filterview_image *src, uint8_t *to,
                             size_t to_pitch, cudaStream_t stream)
{
    const size_t row = (size_t)src->width * pixel_bytes(src);
    /* staging is the last run's until its copies are done */
    FV_TRY(cuda_said(cudaEventSynchronize(c->last_run), "waiting for the last run"));
    const int chunks = src->height < STAGING_CHUNKS ? 1 : STAGING_CHUNKS;
    for (int k = 0; k < chunks; k++) {
        int y0, y1;
        chunk_rows(src->height, k, chunks, &y0, &y1);
        for (int y = y0; y < y1; y++)
            memcpy(c->staging + (size_t)y * row,
                   (const uint8_t *)src->data + (size_t)y * src->pitch, row);
        FV_TRY(cuda_said(cudaMemcpy2DAsync(to + (size_t)y0 * to_pitch, to_pitch,
                                           c->staging + (size_t)y0 * row, row, row,
                                           (size_t)(y1 - y0), cudaMemcpyHostToDevice, stream),
                         "copying the image to the GPU"));
    }
    return FV_OK;
}

/* The device rows `from` into the caller's host image the same way: the copies of every chunk
 * are enqueued, then the CPU copies chunk k out of staging while later ones are in flight. */
static fv_status download_host(filterview_context *c, const uint8_t *from, size_t from_pitch,
                               filterview_image *dst, cudaStream_t stream)
{
    const size_t row = (size_t)dst->width * pixel_bytes(dst);
    const int chunks = dst->height < STAGING_CHUNKS ? 1 : STAGING_CHUNKS;
    for (int k = 0; k < chunks; k++) {
        int y0, y1;
        chunk_rows(dst->height, k, chunks, &y0, &y1);
        FV_TRY(cuda_said(cudaMemcpy2DAsync(c->staging + (size_t)y0 * row, row,
                                           from + (size_t)y0 * from_pitch, from_pitch, row,
                                           (size_t)(y1 - y0), cudaMemcpyDeviceToHost, stream),
                         "copying the result from the GPU"));
        FV_TRY(cuda_said(cudaEventRecord(c->chunk_done[k], stream), "marking a chunk"));
    }
    for (int k = 0; k < chunks; k++) {
        int y0, y1;
        chunk_rows(dst->height, k, chunks, &y0, &y1);
        FV_TRY(cuda_said(cudaEventSynchronize(c->chunk_done[k]), "the filter's run"));
        for (int y = y0; y < y1; y++)
            memcpy((uint8_t *)dst->data + (size_t)y * dst->pitch, c->staging + (size_t)y * row,
                   row);
    }
    return FV_OK;
}

/* device_packed seen as a width x height image of `channels` channels with packed rows */
static fv_image packed_view(const filterview_context *c, int width, int height, int channels)
{
    fv_image v = {.data = c->device_packed,
                  .width = width,
                  .height = height,
                  .pitch = (size_t)width * (size_t)channels * fv_pixel_type_bytes(c->type),
                  .memory = FV_MEMORY_DEVICE,
                  .type = c->type,
                  .channels = channels};
    return v;
}

static fv_status run_on_device(filterview_context *c, const filterview_image *src,
                               filterview_image *dst, cudaStream_t stream)
{
    const int width = src->width, height = src->height;
    FV_TRY(runner_for(c, width, height));
    const size_t row = (size_t)width * 4 * fv_pixel_type_bytes(c->type);
    /* in: the caller's device image as it is, or the context's RGBA copy of it */
    fv_image device_in = buffer_view(&c->device_in, width, height);
    fv_image in = device_in;
    if (usable_directly(src, FILTERVIEW_DEVICE)) {
        in = fv_api_image_view(src);
    } else if (src->memory == FILTERVIEW_DEVICE) {
        const fv_image from = fv_api_image_view(src);
        FV_TRY(fv_api_widen(&from, &device_in, stream));
    } else if (src->channels == 4) {
        FV_TRY(upload_host(c, src, device_in.data, device_in.pitch, stream));
    } else { /* over the bus as the caller has it (a gray image is a quarter), widened there */
        const fv_image packed = packed_view(c, width, height, src->channels);
        FV_TRY(upload_host(c, src, packed.data, packed.pitch, stream));
        FV_TRY(fv_api_widen(&packed, &device_in, stream));
    }
    /* out: straight into the caller's device image unless it needs narrowing or overlaps src */
    const int direct_out = usable_directly(dst, FILTERVIEW_DEVICE) && !overlaps(src, dst);
    fv_image out = direct_out ? fv_api_image_view(dst) : buffer_view(&c->device_out, width, height);
    FV_TRY(fv_runner_run(&c->runner, &in, &out, stream));
    if (dst->memory == FILTERVIEW_HOST) {
        if (dst->channels == 4) return download_host(c, out.data, out.pitch, dst, stream);
        fv_image packed = packed_view(c, width, height, dst->channels);
        FV_TRY(fv_api_narrow(&out, &packed, stream));
        return download_host(c, packed.data, packed.pitch, dst, stream);
    }
    if (!direct_out) {
        if (dst->channels == 4 && ((uintptr_t)dst->data | dst->pitch) % 4 == 0) {
            FV_TRY(cuda_said(cudaMemcpy2DAsync(dst->data, dst->pitch, out.data, out.pitch, row,
                                               (size_t)height, cudaMemcpyDeviceToDevice, stream),
                             "copying the result into place"));
        } else {
            fv_image to = fv_api_image_view(dst);
            FV_TRY(fv_api_narrow(&out, &to, stream));
        }
    }
    return cuda_said(cudaGetLastError(), "the filter's run");
}

fv_status filterview_run(filterview_context *ctx, const filterview_image *caller_src,
                         filterview_image *caller_dst, void *stream)
{
    if (!ctx) return FV_ERR_ARG;
    ctx->error[0] = 0;
    filterview_image source, destination, *src = &source, *dst = &destination;
    fv_status st = image_in(caller_src, src, "source");
    if (st == FV_OK) st = image_in(caller_dst, dst, "destination");
    if (st == FV_OK) st = check_pair(ctx, src, dst, "source", "destination");
    device_scope scope = {-1};
    if (st == FV_OK && fv_variant_is_host(ctx->variant)) {
        st = run_on_host(ctx, src, dst);
    } else if (st == FV_OK && (st = device_enter(ctx, &scope)) == FV_OK) {
        /* the context's own buffers are the last run's until it is done, whatever its stream */
        st = cuda_said(cudaStreamWaitEvent((cudaStream_t)stream, ctx->last_run, 0),
                       "ordering after the last run");
        if (st == FV_OK) st = run_on_device(ctx, src, dst, (cudaStream_t)stream);
        /* even after a failure: whatever was enqueued is waited for at destroy */
        const cudaError_t recorded = cudaEventRecord(ctx->last_run, (cudaStream_t)stream);
        if (st == FV_OK) st = cuda_said(recorded, "recording the run's end");
    }
    device_leave(&scope);
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
    const size_t staging = ctx->device_in.data
                               ? 2 * ctx->device_in.pitch * (size_t)ctx->height + ctx->staging_bytes
                               : 0;
    return ctx->runner.device_bytes + staging;
}

void filterview_context_destroy(filterview_context *ctx)
{
    if (!ctx) return;
    device_scope scope = {-1};
    if (device_enter(ctx, &scope) != FV_OK) (void)cudaGetLastError(); /* frees what it can */
    if (ctx->last_run) {
        (void)cudaEventSynchronize(ctx->last_run);
        (void)cudaEventDestroy(ctx->last_run);
        (void)cudaGetLastError();
    }
    for (int k = 0; k < STAGING_CHUNKS; k++)
        if (ctx->chunk_done[k]) (void)cudaEventDestroy(ctx->chunk_done[k]);
    batch_free(ctx->batch);
    if (ctx->staging) (void)cudaFreeHost(ctx->staging);
    if (ctx->device_packed) (void)cudaFree(ctx->device_packed);
    (void)cudaGetLastError();
    fv_runner_release(&ctx->runner);
    fv_device_image_free(&ctx->device_in);
    fv_device_image_free(&ctx->device_out);
    fv_host_image_free(&ctx->host_in);
    fv_host_image_free(&ctx->host_out);
    device_leave(&scope);
    for (int i = 0; i < FV_MAX_PARAMS; i++) fv_host_image_free(&ctx->param_images[i]);
    free(ctx);
}

/* ---- comparing ---- */
fv_status filterview_compare(const filterview_image *caller_a, const filterview_image *caller_b,
                             filterview_diff *out, char *error, size_t error_size)
{
    copy_message(error, error_size, "");
    filterview_image image_a, image_b;
    const filterview_image *a = &image_a, *b = &image_b;
    if (image_in(caller_a, &image_a, "first image") != FV_OK ||
        image_in(caller_b, &image_b, "second image") != FV_OK) {
        copy_message(error, error_size, fv_last_error());
        return FV_ERR_ARG;
    }
    const char *why =
        !out || !a->data || !b->data ? "an image or the result is NULL"
        : !sized(out)                ? "the result's .size is not set: sizeof (filterview_diff)"
        : a->memory != FILTERVIEW_HOST || b->memory != FILTERVIEW_HOST ? "host images only"
        : a->width != b->width || a->height != b->height               ? "sizes differ"
        : a->width < 1 || a->height < 1      ? "an image has no pixels (width and height from 1)"
        : a->channels != b->channels         ? "channel counts differ"
        : a->channels < 1 || a->channels > 4 ? "1 to 4 channels"
        : a->dtype != b->dtype               ? "dtypes differ"
        : (unsigned)a->dtype >= FV_PIXEL_TYPE_COUNT ? "an unknown dtype"
        : a->pitch < (size_t)a->width * pixel_bytes(a) ||
                b->pitch < (size_t)b->width * pixel_bytes(b)
            ? "a pitch is less than a row"
        : !span_fits(a) || !span_fits(b) ? "a pitch times the rows is past the end of memory"
                                         : NULL;
    if (why) {
        copy_message(error, error_size, why);
        return FV_ERR_ARG;
    }
    const fv_image va = fv_api_image_view(a), vb = fv_api_image_view(b);
    fv_diff_stats d;
    fv_diff_host(&va, &vb, &d);
    const filterview_diff diff = {.size = sizeof diff,
                                  .max_abs = d.max_abs,
                                  .mean_abs = d.mean_abs,
                                  .differing = d.n_differing,
                                  .max_abs_value = d.max_abs_value};
    answer_sized(out, &diff, sizeof diff);
    return FV_OK;
}

unsigned filterview_variant_dtypes(const char *filter, const char *variant)
{
    const fv_filter *f = find_filter(filter);
    const fv_variant *v = f && variant ? fv_variant_find(f, variant) : NULL;
    return v ? fv_variant_types(v) : 0;
}

unsigned filterview_variant_borders(const char *filter, const char *variant)
{
    const fv_filter *f = find_filter(filter);
    const fv_variant *v = f && variant ? fv_variant_find(f, variant) : NULL;
    return v ? fv_variant_borders(v) : 0;
}

/* ---- batches ----
 * Device stacks: one run after another on the caller's stream (the kernels' launches queue up
 * back to back). Host stacks: a pipeline of two slots, each holding a group of images (as many
 * as fit GROUP_BYTES of RGBA, so that a small image's fixed costs are paid once a group): its
 * own pinned staging and device buffers, each buffer the group's images one under another. While
 * group k is filtered, the copy engines bring group k + 1 up (on one stream) and take group
 * k - 1 down (on another), and two CPU threads copy between the caller's arrays and staging
 * (group k + 1 in, group k - 1 out). A group
 * crosses the bus in one copy each way and is widened and narrowed in one launch each (the
 * conversions are per pixel, so a group is one tall image to them); the filter runs image by
 * image (its borders are each image's, and a variant's state and iteration buffer are one per
 * context), but a group's runs are one CUDA graph launched on the caller's stream (api_graph.h):
 * captured at a group's first run in a slot and launched again as it is by every later group of
 * that size, since the slots' buffers stay where they are. The slots are made by the context's
 * first batch and kept. */
#define GROUP_BYTES ((size_t)16 << 20) /* RGBA bytes of a slot's group: 16 images of 512x512 */

typedef struct batch_slot {
    uint8_t *staging;               /* pinned: the group's packed images, one after another */
    uint8_t *device_packed;         /* the same on the device (1 or 3 channels) */
    fv_image device_in, device_out; /* 4 channels, the group's images one under another */
    cudaEvent_t up_done, run_done, down_done;
    int first, count; /* the images it holds now */
} batch_slot;

struct batch_pipeline {
    batch_slot slot[2];
    cudaStream_t up, down;
    fv_api_graphs *graphs; /* the groups' runs as CUDA graphs */
    int group;             /* images a slot holds */
    int width, height; /* the size of this batch's images: the context's or less */
};

static void batch_free(struct batch_pipeline *b)
{
    if (!b) return;
    for (int k = 0; k < 2; k++) {
        batch_slot *s = &b->slot[k];
        if (s->staging) (void)cudaFreeHost(s->staging);
        if (s->device_packed) (void)cudaFree(s->device_packed);
        fv_device_image_free(&s->device_in);
        fv_device_image_free(&s->device_out);
        cudaEvent_t *events[] = {&s->up_done, &s->run_done, &s->down_done};
        for (int e = 0; e < 3; e++)
            if (*events[e]) (void)cudaEventDestroy(*events[e]);
    }
    fv_api_graphs_free(b->graphs);
    if (b->up) (void)cudaStreamDestroy(b->up);
    if (b->down) (void)cudaStreamDestroy(b->down);
    (void)cudaGetLastError();
    free(b);
}

static fv_status batch_make(filterview_context *c)
{
    if (c->batch) return FV_OK;
    struct batch_pipeline *b = calloc(1, sizeof *b);
    if (!b) return fv_fail(FV_ERR_MEMORY, "out of host memory for a batch");
    c->batch = b;
    /* c->staging_bytes is one RGBA image: a group is as many as GROUP_BYTES holds, one at
     * least, and no taller or larger than one image may be */
    size_t group = GROUP_BYTES / c->staging_bytes;
    const size_t by_height = FV_MAX_DIMENSION / (size_t)c->height;
    const size_t by_pixels = FV_MAX_PIXELS / ((size_t)c->width * (size_t)c->height);
    if (group > by_height) group = by_height;
    if (group > by_pixels) group = by_pixels;
    b->group = group < 1 ? 1 : (int)group;
    const size_t bytes = c->staging_bytes * (size_t)b->group;
    char label[96];
    snprintf(label, sizeof label, "%s/%s", c->filter->name, c->variant->name);
    FV_TRY(fv_api_graphs_make(&b->graphs, label, c->variant->uncapturable));
    FV_TRY(cuda_said(cudaStreamCreateWithFlags(&b->up, cudaStreamNonBlocking), "a copy stream"));
    FV_TRY(cuda_said(cudaStreamCreateWithFlags(&b->down, cudaStreamNonBlocking), "a copy stream"));
    for (int k = 0; k < 2; k++) {
        batch_slot *s = &b->slot[k];
        void *pinned = NULL, *packed = NULL;
        FV_TRY(cuda_said(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault),
                         "pinned staging for a batch"));
        s->staging = pinned;
        FV_TRY(cuda_said(cudaMalloc(&packed, bytes), "a batch's packed copy"));
        s->device_packed = packed;
        const int rows = c->height * b->group;
        FV_TRY(fv_device_image_alloc_as(&s->device_in, c->width, rows, c->type, 4));
        FV_TRY(fv_device_image_alloc_as(&s->device_out, c->width, rows, c->type, 4));
        FV_TRY(event_make(&s->up_done));
        FV_TRY(event_make(&s->run_done));
        FV_TRY(event_make(&s->down_done));
    }
    return FV_OK;
}

/* A batch of width x height images (at most the context's size) about to run: the slots made on
 * the context's first batch, and the runner prepared for that size. The slots were made for the
 * context's size, so a group of smaller images fits them as a view. */
static fv_status batch_begin(filterview_context *c, int width, int height)
{
    FV_TRY(batch_make(c));
    FV_TRY(runner_for(c, width, height));
    c->batch->width = width;
    c->batch->height = height;
    return FV_OK;
}

static void copy_rows(uint8_t *to, size_t to_pitch, const uint8_t *from, size_t from_pitch,
                      size_t row, int height)
{
    if (to_pitch == row && from_pitch == row) {
        memcpy(to, from, row * (size_t)height);
        return;
    }
    for (int y = 0; y < height; y++)
        memcpy(to + (size_t)y * to_pitch, from + (size_t)y * from_pitch, row);
}

/* Image k of a slot's 4-channel buffer, as an image of its own: the batch's images lie one under
 * another, each of the batch's size, in rows of the buffer's pitch. */
static fv_image slot_image(const struct batch_pipeline *b, const fv_image *tall, int k)
{
    fv_image v = *tall;
    v.data = tall->data + (size_t)k * (size_t)b->height * tall->pitch;
    v.width = b->width;
    v.height = b->height;
    return v;
}

/* A group's runs on the context's buffers: image k of `in` (the group's images one under another,
 * each of the batch's size) into image k of `out`. */
typedef struct slot_runs {
    filterview_context *c;
    fv_image in, out;
    int count;
} slot_runs;

static fv_status slot_runs_enqueue(void *group, cudaStream_t stream)
{
    const slot_runs *g = group;
    for (int k = 0; k < g->count; k++) {
        const fv_image in = slot_image(g->c->batch, &g->in, k);
        fv_image out = slot_image(g->c->batch, &g->out, k);
        FV_TRY(fv_runner_run(&g->c->runner, &in, &out, stream));
    }
    return FV_OK;
}

/* The runs of `count` images, `in` into `out`, in slot `slot`'s buffers: one graph's launch */
static fv_status slot_run(filterview_context *c, int slot, const fv_image *in, const fv_image *out,
                          int count, cudaStream_t stream)
{
    struct batch_pipeline *b = c->batch;
    slot_runs group = {.c = c, .in = *in, .out = *out, .count = count};
    const fv_api_graph_key key = {.slot = slot,
                                  .count = count,
                                  .width = b->width,
                                  .height = b->height,
                                  .prepared = c->prepared,
                                  .fixed = 1};
    return fv_api_graph_run(b->graphs, &key, slot_runs_enqueue, &group, stream);
}

/* Images first .. first + count - 1 (of one channel count) into slot s: up on b->up, widened
 * and filtered on `stream`, narrowed there and down on b->down. */
static fv_status batch_enqueue(filterview_context *c, batch_slot *s, const filterview_image *src,
                               int first, int count, cudaStream_t stream)
{
    struct batch_pipeline *b = c->batch;
    const filterview_image first_image = image_read(image_at(src, first));
    const int channels = first_image.channels;
    const size_t row = (size_t)b->width * pixel_bytes(&first_image);
    const size_t image = row * (size_t)b->height;
    const int rows = b->height * count;
    s->first = first;
    s->count = count;
    /* the slot's staging holds nothing of use: its last group was copied out before */
    for (int k = 0; k < count; k++) {
        const filterview_image from = image_read(image_at(src, first + k));
        copy_rows(s->staging + (size_t)k * image, row, from.data, from.pitch, row, b->height);
    }
    /* the slot's device buffers are free once its last group's run is done */
    FV_TRY(cuda_said(cudaStreamWaitEvent(b->up, s->run_done, 0), "ordering a batch"));
    if (channels == 4)
        FV_TRY(cuda_said(cudaMemcpy2DAsync(s->device_in.data, s->device_in.pitch, s->staging, row,
                                           row, (size_t)rows, cudaMemcpyHostToDevice, b->up),
                         "copying images to the GPU"));
    else
        FV_TRY(cuda_said(cudaMemcpyAsync(s->device_packed, s->staging, image * (size_t)count,
                                         cudaMemcpyHostToDevice, b->up),
                         "copying images to the GPU"));
    FV_TRY(cuda_said(cudaEventRecord(s->up_done, b->up), "ordering a batch"));
    FV_TRY(cuda_said(cudaStreamWaitEvent(stream, s->up_done, 0), "ordering a batch"));
    fv_image in_all = s->device_in, out_all = s->device_out;
    in_all.width = out_all.width = b->width;
    in_all.height = out_all.height = rows;
    const fv_image packed = {.data = s->device_packed,
                             .width = b->width,
                             .height = rows,
                             .pitch = row,
                             .memory = FV_MEMORY_DEVICE,
                             .type = c->type,
                             .channels = channels};
    if (channels != 4) FV_TRY(fv_api_widen(&packed, &in_all, stream));
    FV_TRY(slot_run(c, (int)(s - b->slot), &in_all, &out_all, count, stream));
    fv_image packed_out = packed;
    if (channels != 4) FV_TRY(fv_api_narrow(&out_all, &packed_out, stream));
    FV_TRY(cuda_said(cudaEventRecord(s->run_done, stream), "ordering a batch"));
    FV_TRY(cuda_said(cudaStreamWaitEvent(b->down, s->run_done, 0), "ordering a batch"));
    if (channels == 4)
        FV_TRY(cuda_said(cudaMemcpy2DAsync(s->staging, row, s->device_out.data, s->device_out.pitch,
                                           row, (size_t)rows, cudaMemcpyDeviceToHost, b->down),
                         "copying results from the GPU"));
    else
        FV_TRY(cuda_said(cudaMemcpyAsync(s->staging, s->device_packed, image * (size_t)count,
                                         cudaMemcpyDeviceToHost, b->down),
                         "copying results from the GPU"));
    return cuda_said(cudaEventRecord(s->down_done, b->down), "ordering a batch");
}

/* Slot s's results into the caller's destinations (an array of its images' size, whose pixels,
 * not fields, are written) */
static fv_status batch_finish(const filterview_context *c, batch_slot *s,
                              const filterview_image *dst)
{
    const struct batch_pipeline *b = c->batch;
    FV_TRY(cuda_said(cudaEventSynchronize(s->down_done), "a batch's run"));
    const filterview_image first_image = image_read(image_at(dst, s->first));
    const size_t row = (size_t)b->width * pixel_bytes(&first_image);
    const size_t image = row * (size_t)b->height;
    for (int k = 0; k < s->count; k++) {
        const filterview_image to = image_read(image_at(dst, s->first + k));
        copy_rows(to.data, to.pitch, s->staging + (size_t)k * image, row, row, b->height);
    }
    s->count = 0;
    return FV_OK;
}

/* A group's results copied out on a thread of their own, while this one copies the next group
 * in: the two copies from and to pageable memory are what a host batch's CPU spends its time on. */
typedef struct finish_job {
    filterview_context *c;
    batch_slot *slot;
    const filterview_image *dst;
    int device; /* the calling thread's: a new thread starts on device 0 */
    fv_status status;
    char error[512];
} finish_job;

static void *finish_main(void *arg)
{
    finish_job *j = arg;
    j->status = cuda_said(cudaSetDevice(j->device), "a batch's copying thread");
    if (j->status == FV_OK) j->status = batch_finish(j->c, j->slot, j->dst);
    if (j->status != FV_OK) copy_message(j->error, sizeof j->error, fv_last_error());
    return NULL;
}

static fv_status run_batch_host(filterview_context *c, const filterview_image *src,
                                const filterview_image *dst, int count, cudaStream_t stream)
{
    const filterview_image first = image_read(src);
    FV_TRY(batch_begin(c, first.width, first.height));
    FV_TRY(cuda_said(cudaEventSynchronize(c->last_run), "waiting for the last run"));
    int device = 0;
    FV_TRY(cuda_said(cudaGetDevice(&device), "asking for the current CUDA device"));
    batch_slot *slot = c->batch->slot;
    slot[0].count = slot[1].count = 0;
    int k = 0; /* groups so far */
    for (int i = 0; i < count; k++) {
        /* a group: up to b->group images of the first one's channel count */
        const int channels = image_read(image_at(src, i)).channels;
        int n = 1;
        while (n < c->batch->group && i + n < count &&
               image_read(image_at(src, i + n)).channels == channels)
            n++;
        /* group k - 1 comes out on a thread while group k goes in (other slots, other images) */
        finish_job job = {.c = c, .slot = &slot[(k + 1) % 2], .dst = dst, .device = device};
        pthread_t helper;
        const int helped = k > 0 && pthread_create(&helper, NULL, finish_main, &job) == 0;
        fv_status st = batch_enqueue(c, &slot[k % 2], src, i, n, stream);
        if (helped) {
            pthread_join(helper, NULL);
            if (st == FV_OK && job.status != FV_OK) st = fv_fail(job.status, "%s", job.error);
        } else if (k > 0 && st == FV_OK) {
            st = batch_finish(c, &slot[(k - 1) % 2], dst);
        }
        FV_TRY(st);
        i += n;
    }
    return batch_finish(c, &slot[(k - 1) % 2], dst);
}

/* Whether images first + 1 .. first + n - 1 lie under image first, one after another, as rows of
 * one tall image of its pitch and channels (a stack's images do). */
static int under_one_another(const filterview_image *img, int first, int n, int height)
{
    const filterview_image a = image_read(image_at(img, first));
    for (int k = 1; k < n; k++) {
        const filterview_image b = image_read(image_at(img, first + k));
        if (b.channels != a.channels || b.pitch != a.pitch ||
            (const uint8_t *)b.data !=
                (const uint8_t *)a.data + (size_t)k * (size_t)height * a.pitch)
            return 0;
    }
    return 1;
}

/* Whether image i's run reads and writes the caller's own device images, as run_on_device would
 * (RGBA on 4-byte rows, not in place) */
static int runs_on_callers(const filterview_image *src, const filterview_image *dst, int i)
{
    const filterview_image s = image_read(image_at(src, i)), d = image_read(image_at(dst, i));
    return usable_directly(&s, FILTERVIEW_DEVICE) && usable_directly(&d, FILTERVIEW_DEVICE) &&
           !overlaps(&s, &d);
}

/* A group's runs on the caller's images: images first .. first + count - 1 */
typedef struct caller_runs {
    filterview_context *c;
    const filterview_image *src, *dst;
    int first, count;
} caller_runs;

static fv_status caller_runs_enqueue(void *group, cudaStream_t stream)
{
    const caller_runs *g = group;
    for (int k = g->first; k < g->first + g->count; k++) {
        const filterview_image s = image_read(image_at(g->src, k));
        const filterview_image d = image_read(image_at(g->dst, k));
        const fv_image in = fv_api_image_view(&s);
        fv_image out = fv_api_image_view(&d);
        FV_TRY(fv_runner_run(&g->c->runner, &in, &out, stream));
    }
    return FV_OK;
}

/* A device stack of gray or RGB images: a group of them widened in one launch into a slot's
 * 4-channel buffer, filtered (one graph's launch), narrowed in one launch into place. RGBA images
 * run in place of the caller's, a group as one graph too: its addresses are the caller's, so it
 * is captured again and the kept graph updated. Anything else (images not one under another, in
 * place, rows off 4 bytes) one image at a time. All on `stream`. */
static fv_status run_batch_device(filterview_context *c, const filterview_image *src,
                                  const filterview_image *dst, int count, cudaStream_t stream)
{
    const filterview_image first = image_read(src);
    FV_TRY(batch_begin(c, first.width, first.height));
    const int height = c->batch->height;
    batch_slot *s = &c->batch->slot[0];
    for (int i = 0; i < count;) {
        const filterview_image source = image_read(image_at(src, i));
        filterview_image destination = image_read(image_at(dst, i));
        int n = 1;
        if (source.channels != 4) {
            while (n < c->batch->group && i + n < count &&
                   under_one_another(src, i, n + 1, height) &&
                   under_one_another(dst, i, n + 1, height))
                n++;
        } else if (runs_on_callers(src, dst, i)) {
            while (n < c->batch->group && i + n < count && runs_on_callers(src, dst, i + n)) n++;
        }
        if (n > 1 && source.channels == 4) {
            caller_runs group = {.c = c, .src = src, .dst = dst, .first = i, .count = n};
            const fv_api_graph_key key = {.slot = -1,
                                          .count = n,
                                          .width = c->batch->width,
                                          .height = c->batch->height,
                                          .prepared = c->prepared,
                                          .fixed = 0};
            FV_TRY(fv_api_graph_run(c->batch->graphs, &key, caller_runs_enqueue, &group, stream));
            i += n;
            continue;
        }
        if (n == 1) {
            FV_TRY(run_on_device(c, &source, &destination, stream));
            i++;
            continue;
        }
        fv_image from = fv_api_image_view(&source), to = fv_api_image_view(&destination);
        fv_image in_all = s->device_in, out_all = s->device_out;
        in_all.width = out_all.width = c->batch->width;
        from.height = to.height = in_all.height = out_all.height = n * height;
        FV_TRY(fv_api_widen(&from, &in_all, stream));
        FV_TRY(slot_run(c, 0, &in_all, &out_all, n, stream));
        FV_TRY(fv_api_narrow(&out_all, &to, stream));
        i += n;
    }
    return cuda_said(cudaGetLastError(), "a batch's run");
}

/* Image i of a batch's sources and of its destinations, read as image_in reads one */
static fv_status batch_pair(const filterview_image *src, const filterview_image *dst, int i,
                            filterview_image *source, filterview_image *destination)
{
    char which[48];
    snprintf(which, sizeof which, "source %d", i);
    FV_TRY(image_in(image_at(src, i), source, which));
    snprintf(which, sizeof which, "destination %d", i);
    return image_in(image_at(dst, i), destination, which);
}

fv_status filterview_run_batch(filterview_context *ctx, const filterview_image *src,
                               filterview_image *dst, int count, void *stream_handle)
{
    cudaStream_t stream = (cudaStream_t)stream_handle;
    if (!ctx) return FV_ERR_ARG;
    ctx->error[0] = 0;
    fv_status st = FV_OK;
    if (!src || !dst || count < 1)
        st = fv_fail(FV_ERR_ARG, "a batch needs %s",
                     count < 1 ? "one image at least" : "its source and destination");
    /* the arrays' strides come from their first elements' sizes */
    filterview_image first_src, first_dst, s, d;
    if (st == FV_OK) st = batch_pair(src, dst, 0, &first_src, &first_dst);
    for (int i = 0; st == FV_OK && i < count; i++) {
        char source[48], destination[48];
        snprintf(source, sizeof source, "source %d", i);
        snprintf(destination, sizeof destination, "destination %d", i);
        st = batch_pair(src, dst, i, &s, &d);
        if (st == FV_OK) st = check_pair(ctx, &s, &d, source, destination);
        if (st == FV_OK && (s.width != first_src.width || s.height != first_src.height))
            st = fv_fail(FV_ERR_ARG,
                         "image %d: %dx%d, image 0 %dx%d: a batch's images have one size", i,
                         s.width, s.height, first_src.width, first_src.height);
        if (st == FV_OK && (s.memory != first_src.memory || d.memory != first_dst.memory))
            st = fv_fail(FV_ERR_ARG,
                         "image %d: a batch's sources (and its destinations) all lie "
                         "on the host or all on the device",
                         i);
        if (st == FV_OK && s.memory == FILTERVIEW_HOST && overlaps(&s, &d) && s.data != d.data)
            st = fv_fail(FV_ERR_ARG,
                         "image %d: source and destination overlap without being "
                         "the same image",
                         i);
    }
    const int on_gpu = st == FV_OK && !fv_variant_is_host(ctx->variant);
    const int pipelined =
        on_gpu && first_src.memory == FILTERVIEW_HOST && first_dst.memory == FILTERVIEW_HOST;
    const int on_device =
        on_gpu && first_src.memory == FILTERVIEW_DEVICE && first_dst.memory == FILTERVIEW_DEVICE;
    if (pipelined || on_device) {
        device_scope scope = {-1};
        st = device_enter(ctx, &scope);
        if (st == FV_OK && pipelined) st = run_batch_host(ctx, src, dst, count, stream);
        if (st == FV_OK && on_device) {
            /* the context's buffers are the last run's until it is done, whatever its stream */
            st = cuda_said(cudaStreamWaitEvent(stream, ctx->last_run, 0),
                           "ordering after the last run");
            if (st == FV_OK) st = run_batch_device(ctx, src, dst, count, stream);
        }
        /* even after a failure: whatever was enqueued is waited for at destroy */
        const cudaError_t recorded = cudaEventRecord(ctx->last_run, stream);
        if (st == FV_OK) st = cuda_said(recorded, "recording the run's end");
        device_leave(&scope);
    } else {
        for (int i = 0; st == FV_OK && i < count; i++) {
            st =
                filterview_run(ctx, image_at(src, i), (filterview_image *)image_at(dst, i), stream);
            if (st != FV_OK) return st; /* its message is in the context already */
        }
    }
    if (st != FV_OK) copy_message(ctx->error, sizeof ctx->error, fv_last_error());
    return st;
}
