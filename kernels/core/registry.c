/* ------------------------------------------------------------------------------------------------
 * kernels/core/registry.c: the registry of filters (built from filters.def by an X-macro), name
 * look-ups, and the runner: a variant's iteration buffer and device state, made before any
 * timing and reused by every run, driven by the one iteration driver (fv_iterate) on the host
 * and the device alike. Nothing here knows any particular filter.
 *
 * Validation happens here, once: fv_runner_prepare makes the filter's typed configuration
 * (fv_config_make: ranges, odd sizes, iterations, the rules between parameters) when the values
 * change, and checks the dimensions, the peer's supports and the memory fit; fv_runner_run checks
 * the image pair against what was prepared (size, host or device, rows on 4-byte boundaries).
 * Variants' run functions and the reference read the configuration and trust what they are given.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define FV_FILTER(name) extern const fv_filter fv_filter_##name;
#include "filters.def"
#undef FV_FILTER

const fv_filter *const fv_filters[] = {
#define FV_FILTER(name) &fv_filter_##name,
#include "filters.def"
#undef FV_FILTER
};
const int fv_n_filters = (int)(sizeof fv_filters / sizeof fv_filters[0]);

const fv_filter *fv_filter_find(const char *name)
{
    for (int i = 0; i < fv_n_filters; i++)
        if (strcmp(fv_filters[i]->name, name) == 0) return fv_filters[i];
    return NULL;
}

int fv_filter_index(const fv_filter *f)
{
    for (int i = 0; i < fv_n_filters; i++)
        if (fv_filters[i] == f) return i;
    return -1;
}

const fv_variant *fv_variant_find(const fv_filter *f, const char *name)
{
    for (int i = 0; i < f->n_variants; i++)
        if (strcmp(f->variants[i].name, name) == 0) return &f->variants[i];
    return NULL;
}

const fv_variant *fv_filter_variant_of_role(const fv_filter *f, fv_variant_role role)
{
    for (int i = 0; i < f->n_variants; i++)
        if (f->variants[i].role == role) return &f->variants[i];
    return NULL;
}

int fv_variant_index(const fv_filter *f, const fv_variant *v)
{
    return v && v >= f->variants && v < f->variants + f->n_variants ? (int)(v - f->variants) : -1;
}

const fv_variant *fv_filter_baseline(const fv_filter *f)
{
    const fv_variant *v = f->baseline ? fv_variant_find(f, f->baseline) : NULL;
    return v ? v : &f->variants[0];
}

const fv_tolerance *fv_variant_tolerance(const fv_filter *f, const fv_variant *v)
{
    return v->tolerance ? v->tolerance : &f->tolerance;
}

/* ---- the runner ---- */
/* buffers and states fv_runner_prepare has made, process-wide (batch workers prepare in threads) */
static atomic_ullong runner_allocations;

unsigned long long fv_runner_allocations(void)
{
    return atomic_load(&runner_allocations);
}

static void count_allocation(void)
{
    atomic_fetch_add_explicit(&runner_allocations, 1, memory_order_relaxed);
}

static size_t image_bytes(int width, int height, fv_pixel_type type)
{
    return (size_t)width * 4 * fv_pixel_type_bytes(type) * (size_t)height;
}

/* "uint8, uint16" from a mask of FV_TYPE_BITs, or of FV_BORDER_BITs */
static void names_of_mask(unsigned mask, int count, const char *(*name)(int), char *buf,
                          size_t size)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && n < size; i++)
        if (mask & (1u << i))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", name(i));
}

static const char *type_name_of(int i)
{
    return fv_pixel_type_name((fv_pixel_type)i);
}

static const char *border_name_of(int i)
{
    return fv_border_names[i];
}

unsigned fv_variant_types(const fv_variant *v)
{
    return v->types ? v->types : FV_TYPES_U8;
}

unsigned fv_variant_borders(const fv_variant *v)
{
    return v->borders ? v->borders : FV_BORDERS_REPLICATE;
}

/* The variant's types and borders against the configuration, and cval against the type's
 * range: "gaussian/naive runs uint8, uint16, not float32". */
static fv_status check_type_and_border(const fv_filter *f, const fv_variant *v, const fv_params *p)
{
    char names[120];
    if ((unsigned)p->type >= FV_PIXEL_TYPE_COUNT)
        return fv_fail(FV_ERR_ARG, "%s: pixel type %d is none of uint8, uint16, float32", f->name,
                       (int)p->type);
    if (!(fv_variant_types(v) & FV_TYPE_BIT(p->type))) {
        names_of_mask(fv_variant_types(v), FV_PIXEL_TYPE_COUNT, type_name_of, names, sizeof names);
        return fv_fail(FV_ERR_UNSUPPORTED, "%s/%s runs %s images, not %s", f->name, v->name, names,
                       fv_pixel_type_name(p->type));
    }
    const fv_border border = fv_params_border(f, p);
    if (!(fv_variant_borders(v) & FV_BORDER_BIT(border))) {
        names_of_mask(fv_variant_borders(v), FV_BORDER_COUNT, border_name_of, names, sizeof names);
        return fv_fail(FV_ERR_UNSUPPORTED, "%s/%s runs the border%s %s, not %s", f->name, v->name,
                       strchr(names, ',') ? "s" : "", names, fv_border_names[border]);
    }
    const double cval = fv_params_cval(f, p);
    if (border == FV_BORDER_CONSTANT && p->type != FV_PIXEL_F32 &&
        (cval < 0 || cval > fv_pixel_type_max(p->type) || cval != (double)(long)cval))
        return fv_fail(FV_ERR_ARG, "%s: cval must be an integer 0..%.0f for %s images, got %g",
                       f->name, fv_pixel_type_max(p->type), fv_pixel_type_name(p->type), cval);
    return FV_OK;
}

/* `config` NULL: values no configuration can be made of, which prepare refuses before making any
 * state: the iteration buffer alone (state_bytes reads a configuration) */
static size_t device_bytes(const fv_filter *f, const fv_variant *v, const fv_params *p,
                           const fv_config *config, int width, int height)
{
    if (fv_variant_is_host(v)) return 0;
    size_t bytes = f->max_iterations > 1 ? image_bytes(width, height, p->type) : 0;
    if (v->state_bytes && config) bytes += v->state_bytes(v, p, config, width, height);
    return bytes;
}

size_t fv_runner_device_bytes(const fv_filter *f, const fv_variant *v, const fv_params *p,
                              int width, int height)
{
    fv_config config;
    if (fv_config_make(f, p, &config) != FV_OK) return device_bytes(f, v, p, NULL, width, height);
    return device_bytes(f, v, p, &config, width, height);
}

static void release_state(fv_runner *r)
{
    if (r->state && r->variant && r->variant->state_destroy)
        r->variant->state_destroy(r->variant, r->state);
    r->state = NULL;
}

void fv_runner_release(fv_runner *r)
{
    release_state(r);
    if (r->variant && fv_variant_is_host(r->variant))
        fv_host_image_free(&r->ping);
    else
        fv_device_image_free(&r->ping);
    memset(r, 0, sizeof *r);
}

int fv_runner_last_run_text(const fv_runner *r, char *text, size_t size)
{
    if (size) *text = '\0';
    if (!r->prepared || !r->variant->last_run_text || !r->state) return 0;
    return r->variant->last_run_text(r->variant, r->state, text, size);
}

static int same_values(const fv_params *a, const fv_params *b)
{
    return memcmp(a->value, b->value, sizeof a->value) == 0 &&
           memcmp(a->image, b->image, sizeof a->image) == 0 && a->type == b->type;
}

fv_status fv_runner_prepare(fv_runner *r, const fv_filter *f, const fv_variant *v,
                            const fv_params *p, int width, int height)
{
    const int same_place = r->prepared && r->filter == f && r->variant == v && r->width == width &&
                           r->height == height;
    if (same_place && same_values(&r->params, p) && p->iterations >= 1 &&
        p->iterations <= f->max_iterations) {
        r->params.iterations = p->iterations; /* the configuration made for these values holds */
        return FV_OK;
    }
    fv_config config;
    FV_TRY(fv_config_make(f, p, &config));
    FV_TRY(fv_check_dimensions(width, height));
    FV_TRY(check_type_and_border(f, v, p));
    char why[200] = "";
    if (v->supports && !v->supports(v, p, &config, width, height, why, sizeof why))
        return fv_fail(FV_ERR_UNSUPPORTED, "%s/%s: %s", f->name, v->name,
                       why[0] ? why : "not supported");
    const int host = fv_variant_is_host(v);
    if (same_place && !v->state_create) { /* new values a stateless variant reads at run time */
        r->params = *p;
        r->config = config;
        return FV_OK;
    }
    const int keep_ping = r->prepared && r->width == width && r->height == height && r->variant &&
                          fv_variant_is_host(r->variant) == host && r->params.type == p->type;
    if (keep_ping) {
        release_state(r);
    } else {
        fv_runner_release(r);
    }
    r->prepared = 0;
    r->filter = f;
    r->variant = v;
    r->params = *p;
    r->config = config;
    r->width = width;
    r->height = height;
    if (host) {
        if (f->max_iterations > 1 && !r->ping.data) {
            count_allocation();
            FV_TRY(fv_host_image_alloc_as(&r->ping, width, height, p->type, 4));
        }
        r->prepared = 1;
        return FV_OK;
    }
    char what[160];
    snprintf(what, sizeof what, "%s/%s at %dx%d", f->name, v->name, width, height);
    size_t need =
        (v->state_bytes ? v->state_bytes(v, p, &r->config, width, height) : 0) +
        (f->max_iterations > 1 && !r->ping.data ? image_bytes(width, height, p->type) : 0);
    FV_TRY(fv_device_check_fits(need, what));
    if (f->max_iterations > 1 && !r->ping.data) {
        count_allocation();
        FV_TRY(fv_device_image_alloc_as(&r->ping, width, height, p->type, 4));
    }
    if (v->state_create) {
        count_allocation();
        FV_TRY(v->state_create(v, &r->state, p, &r->config, width, height));
    }
    r->device_bytes = device_bytes(f, v, p, &r->config, width, height);
    r->prepared = 1;
    return FV_OK;
}

typedef struct device_pass {
    const fv_runner *r;
    cudaStream_t stream;
} device_pass;

static fv_status run_device_pass(void *context, const fv_image *in, fv_image *out)
{
    const device_pass *c = context;
    return c->r->variant->run(c->r->variant, in, out, &c->r->config, c->r->state, c->stream);
}

static fv_status run_host_pass(void *context, const fv_image *in, fv_image *out)
{
    const fv_runner *r = context;
    return r->filter->ref(in, out, &r->config);
}

fv_status fv_runner_run(const fv_runner *r, const fv_image *src, fv_image *dst, cudaStream_t stream)
{
    if (!r->prepared) return fv_fail(FV_ERR_ARG, "fv_runner_run: the runner was not prepared");
    if (src->width != r->width || src->height != r->height || dst->width != r->width ||
        dst->height != r->height)
        return fv_fail(FV_ERR_ARG,
                       "fv_runner_run: %s/%s was prepared for %dx%d, not %dx%d -> %dx%d",
                       r->filter->name, r->variant->name, r->width, r->height, src->width,
                       src->height, dst->width, dst->height);
    if (src->type != r->params.type || dst->type != r->params.type || fv_image_channels(src) != 4 ||
        fv_image_channels(dst) != 4)
        return fv_fail(FV_ERR_ARG,
                       "fv_runner_run: %s/%s was prepared for 4-channel %s images, not %d-channel "
                       "%s -> %d-channel %s",
                       r->filter->name, r->variant->name, fv_pixel_type_name(r->params.type),
                       fv_image_channels(src), fv_pixel_type_name(src->type),
                       fv_image_channels(dst), fv_pixel_type_name(dst->type));
    const fv_memory want = fv_variant_is_host(r->variant) ? FV_MEMORY_HOST : FV_MEMORY_DEVICE;
    if ((src->memory && src->memory != want) || (dst->memory && dst->memory != want))
        return fv_fail(FV_ERR_ARG, "fv_runner_run: %s/%s runs on %s images", r->filter->name,
                       r->variant->name, want == FV_MEMORY_HOST ? "host" : "device");
    if (!fv_variant_is_host(r->variant) &&
        ((uintptr_t)src->data | src->pitch | (uintptr_t)dst->data | dst->pitch) % 4 != 0)
        return fv_fail(FV_ERR_ARG, "%s/%s: image rows must start on 4-byte boundaries",
                       r->filter->name, r->variant->name);
    fv_image ping = r->ping;
    if (fv_variant_is_host(r->variant))
        return fv_iterate(run_host_pass, (void *)r, src, dst, &ping, r->params.iterations);
    device_pass c = {r, stream};
    return fv_iterate(run_device_pass, &c, src, dst, &ping, r->params.iterations);
}
