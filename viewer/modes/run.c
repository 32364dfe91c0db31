/* ------------------------------------------------------------------------------------------------
 * viewer/modes/run.c: the helpers every windowless mode shares (see run.h): one variant over a host
 * image (through device memory for GPU variants, timed with CUDA events), the source's noise,
 * parameters as words, the device and memory checks of a mode and the one-line failure.
 * ------------------------------------------------------------------------------------------------ */
#include "run.h"

#include "device.h"
#include "timing.h"
#include "user/user_kernel.h"

#include <stdio.h>
#include <string.h>

void describe_params(const fv_filter *f, const fv_params *p, char *buf, size_t size)
{
    char own[160];
    fv_params_describe(f, p, own, sizeof own);
    snprintf(buf, size, "%s, %d iteration%s", own, p->iterations, p->iterations == 1 ? "" : "s");
}

fv_status run_check_fits(const fv_filter *f, const fv_variant *v, const fv_params *p, int w, int h)
{
    char what[96];
    snprintf(what, sizeof what, "a %dx%d image", w, h);
    const size_t image_bytes = (size_t)w * 4 * (size_t)h;
    return fv_device_check_fits(image_bytes * 2 + fv_runner_device_bytes(f, v, p, w, h), what);
}

static fv_status run_on_device(const fv_filter *f, const fv_variant *v, const fv_image *src,
                               fv_image *dst, const fv_params *p, double *ms)
{
    FV_TRY(fv_device_check());
    FV_TRY(run_check_fits(f, v, p, src->width, src->height));
    fv_image d_src = {0}, d_dst = {0};
    fv_runner runner = {0};
    fv_timer timer = {0};
    fv_status st = fv_device_image_alloc(&d_src, src->width, src->height);
    if (st == FV_OK) st = fv_device_image_alloc(&d_dst, src->width, src->height);
    if (st == FV_OK) st = fv_runner_prepare(&runner, f, v, p, src->width, src->height);
    if (st == FV_OK) st = fv_image_upload(&d_src, src);
    if (st == FV_OK) st = fv_timer_create(&timer);
    if (st == FV_OK) {
        fv_timer_start(&timer, 0);
        st = fv_runner_run(&runner, &d_src, &d_dst, 0);
        fv_timer_stop(&timer, 0);
    }
    if (st == FV_OK && fv_timer_wait(&timer) != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "filter %s/%s failed: %s", f->name, v->name,
                     cudaGetErrorString(cudaGetLastError()));
    if (st == FV_OK) {
        double t = 0;
        fv_timer_elapsed_ms(&timer, &t);
        *ms = t;
        st = fv_image_download(dst, &d_dst);
    }
    fv_timer_destroy(&timer);
    fv_runner_release(&runner);
    fv_device_image_free(&d_src);
    fv_device_image_free(&d_dst);
    return st;
}

fv_status run_variant_to_host(const fv_filter *f, const fv_variant *v, const fv_image *src,
                              fv_image *dst, const fv_params *p, double *ms)
{
    if (!fv_variant_is_host(v)) return run_on_device(f, v, src, dst, p, ms);
    fv_runner runner = {0};
    fv_status st = fv_runner_prepare(&runner, f, v, p, src->width, src->height);
    double t0 = fv_now_ms();
    if (st == FV_OK) st = fv_runner_run(&runner, src, dst, 0);
    *ms = fv_now_ms() - t0;
    fv_runner_release(&runner);
    return st;
}

/* --noise: drawn on the host (the same bytes the GPU would draw), before anything runs */
fv_status source_with_noise(const cli_options *o, fv_image *src)
{
    return fv_noise_apply_host(src, &o->noise); /* nothing to do where the noise is off */
}

fv_status run_device_check(const char *advice)
{
    const char *why = fv_device_unavailable_reason();
    return why ? fv_fail(FV_ERR_NO_DEVICE, "no CUDA device: %s (%s)", why, advice) : FV_OK;
}

void run_default_variant(cli_options *o)
{
    if (o->variant_given || o->user_file || fv_variant_is_host(o->variant)) return;
    const char *why = fv_device_unavailable_reason();
    const fv_variant *ref = fv_filter_variant_of_role(o->filter, FV_ROLE_REFERENCE);
    if (!why || !ref) return;
    if (!o->quiet)
        cli_error("no CUDA device (%s): %s/%s, the reference, runs instead of %s", why,
                  o->filter->name, ref->name, o->variant->name);
    o->variant = ref;
}

image_save_options run_save_options(const cli_options *o)
{
    return (image_save_options){.png_level = o->png_level,
                                .jpeg_quality = o->jpeg_quality,
                                .threads = o->threads, /* 0: every core */
                                .format = !o->format                   ? IMAGE_FORMAT_BY_NAME
                                          : !strcmp(o->format, "jpeg") ? IMAGE_FORMAT_JPEG
                                                                       : IMAGE_FORMAT_PNG};
}

int run_fail_line(void)
{
    cli_error("%s", fv_last_error());
    return 1;
}

/* ---- user kernels ---- */

#define RUN_MAX_USER_KERNELS 3 /* -v, and --compare's two sides */
static fv_user_variant *user_kernels[RUN_MAX_USER_KERNELS];
static int n_user_kernels;

static fv_status user_kernel_load(const cli_options *o, const fv_filter *f, const char *path,
                                  const fv_variant **out)
{
    if (n_user_kernels == RUN_MAX_USER_KERNELS)
        return fv_fail(FV_ERR_ARG, "at most %d user kernels", RUN_MAX_USER_KERNELS);
    const fv_user_options options = {0}; /* the device's architecture, the default cache */
    fv_user_build *build = NULL;
    FV_TRY(fv_user_compile(f, path, &options, &build, NULL));
    if (!o->quiet && build->log && *build->log) fputs(build->log, stderr); /* NVRTC's warnings */
    fv_user_variant *u = NULL;
    FV_TRY(fv_user_variant_make(build, &u)); /* takes the build, on failure too */
    user_kernels[n_user_kernels++] = u;
    *out = fv_user_variant_get(u);
    return FV_OK;
}

fv_status run_user_kernels_load(cli_options *o)
{
    if (o->user_file) FV_TRY(user_kernel_load(o, o->filter, o->user_file, &o->variant));
    for (int k = 0; k < 2; k++)
        if (o->compare[k].user_file)
            FV_TRY(user_kernel_load(o, o->compare[k].filter, o->compare[k].user_file,
                                    &o->compare[k].variant));
    return FV_OK;
}

void run_user_kernels_release(void)
{
    while (n_user_kernels > 0) fv_user_variant_free(user_kernels[--n_user_kernels]);
}
