/* ------------------------------------------------------------------------------------------------
 * kernels/registry.c: the registry of filters (built from filters.def by an X-macro), name
 * look-ups, and the device iteration driver. Nothing here knows any particular filter.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"

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

const fv_variant *fv_variant_find(const fv_filter *f, const char *name)
{
    for (int i = 0; i < f->n_variants; i++)
        if (strcmp(f->variants[i].name, name) == 0) return &f->variants[i];
    return NULL;
}

int fv_variant_is_host(const fv_variant *v) { return v->run == NULL; }

fv_status fv_run(const fv_filter *f, const fv_variant *v, const fv_image *src, fv_image *dst,
                 const fv_params *p, fv_scratch *s, cudaStream_t stream)
{
    FV_TRY(f->check_params(p));
    if (fv_variant_is_host(v))
        return fv_fail(FV_ERR_ARG, "fv_run: '%s' runs on the host, use fv_run_host", v->name);
    if (src->width != dst->width || src->height != dst->height)
        return fv_fail(FV_ERR_ARG, "fv_run: source %dx%d and destination %dx%d differ",
                       src->width, src->height, dst->width, dst->height);
    if (p->iterations > 1) FV_TRY(fv_scratch_reserve(s, src->width, src->height));
    /* Pass i writes dst when (iterations - 1 - i) is even, so the last pass lands in dst. */
    fv_image ping = s->ping;
    ping.width = src->width;
    ping.height = src->height;
    const fv_image *in = src;
    fv_image *out = ((p->iterations - 1) % 2 == 0) ? dst : &ping;
    fv_image *other = (out == dst) ? &ping : dst;
    for (int i = 0; i < p->iterations; i++) {
        FV_TRY(v->run(in, out, p, s, stream));
        in = out;
        out = other;
        other = (fv_image *)in;
    }
    return FV_OK;
}
