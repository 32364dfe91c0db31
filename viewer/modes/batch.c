/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch.c: windowless filtering. Loads an image, runs one variant (or two, to compare
 * them byte for byte), and writes a PNG or JPEG atomically; many files go to batch_many.c.
 * All failures end in one line on stderr.
 * ------------------------------------------------------------------------------------------------ */
#include "batch.h"

#include "bench.h"

#include "image_io.h"

#include <stdio.h>
#include <string.h>

void describe_params(const fv_filter *f, const fv_params *p, char *buf, size_t size)
{
    char own[160];
    fv_params_describe(f, p, own, sizeof own);
    snprintf(buf, size, "%s, %d iteration%s", own, p->iterations, p->iterations == 1 ? "" : "s");
}

static fv_status run_on_device(const fv_filter *f, const fv_variant *v, const fv_image *src,
                               fv_image *dst, const fv_params *p, double *ms)
{
    FV_TRY(fv_device_check());
    char what[96];
    snprintf(what, sizeof what, "a %dx%d image", src->width, src->height);
    size_t image_bytes = (size_t)src->width * 4 * (size_t)src->height;
    FV_TRY(fv_device_check_fits(image_bytes * 2 + fv_runner_device_bytes(f, v, p, src->width, src->height),
                                what));
    fv_image d_src = {0}, d_dst = {0};
    fv_runner runner = {0};
    cudaEvent_t start = NULL, stop = NULL;
    fv_status st = fv_device_image_alloc(&d_src, src->width, src->height);
    if (st == FV_OK) st = fv_device_image_alloc(&d_dst, src->width, src->height);
    if (st == FV_OK) st = fv_runner_prepare(&runner, f, v, p, src->width, src->height);
    if (st == FV_OK) st = fv_image_upload(&d_src, src);
    if (st == FV_OK && (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess))
        st = fv_fail(FV_ERR_CUDA, "cannot create CUDA events");
    if (st == FV_OK) {
        cudaEventRecord(start, 0);
        st = fv_runner_run(&runner, &d_src, &d_dst, 0);
        cudaEventRecord(stop, 0);
    }
    if (st == FV_OK && cudaEventSynchronize(stop) != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "filter %s/%s failed: %s", f->name, v->name,
                     cudaGetErrorString(cudaGetLastError()));
    if (st == FV_OK) {
        float t = 0;
        cudaEventElapsedTime(&t, start, stop);
        *ms = t;
        st = fv_image_download(dst, &d_dst);
    }
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    fv_runner_release(&runner);
    fv_device_image_free(&d_src);
    fv_device_image_free(&d_dst);
    return st;
}

fv_status run_variant_to_host(const fv_filter *f, const fv_variant *v, const fv_image *src,
                              fv_image *dst, const fv_params *p, double *ms)
{
    FV_TRY(fv_params_check(f, p));
    if (!fv_variant_is_host(v)) return run_on_device(f, v, src, dst, p, ms);
    fv_runner runner = {0};
    fv_status st = fv_runner_prepare(&runner, f, v, p, src->width, src->height);
    double t0 = bench_now_ms();
    if (st == FV_OK) st = fv_runner_run(&runner, src, dst, 0);
    *ms = bench_now_ms() - t0;
    fv_runner_release(&runner);
    return st;
}

static int fail_line(void)
{
    fprintf(stderr, "filterview: %s\n", fv_last_error());
    return 1;
}

/* --noise: drawn on the host (the same bytes the GPU would draw), before anything runs */
fv_status source_with_noise(const cli_options *o, fv_image *src)
{
    return fv_noise_apply_host(src, &o->noise); /* nothing to do where the noise is off */
}

int batch_main(const cli_options *o)
{
    const fv_filter *f = o->filter;
    const fv_variant *v = o->variant;
    const fv_params *p = cli_params(o, f);
    if (o->output_is_dir) return batch_many_main(o);
    if (fv_params_check(f, p) != FV_OK) return fail_line();
    if (image_check_output_path(o->output) != FV_OK) return fail_line();
    fv_image src = {0}, dst = {0};
    double ms = 0;
    if (image_load(o->input, &src) != FV_OK) return fail_line();
    const image_save_options save = {.png_level = o->png_level, .jpeg_quality = o->jpeg_quality};
    fv_status st = source_with_noise(o, &src);
    if (st == FV_OK && o->save_source) st = image_save(o->save_source, &src, &save);
    if (st == FV_OK) st = fv_host_image_alloc(&dst, src.width, src.height);
    if (st == FV_OK) st = run_variant_to_host(f, v, &src, &dst, p, &ms);
    if (st == FV_OK) st = image_save(o->output, &dst, &save);
    if (st == FV_OK) {
        char params[192];
        describe_params(f, p, params, sizeof params);
        char noise[96] = "";
        if (fv_noise_is_on(&o->noise))
            snprintf(noise, sizeof noise, "; source noise %g %%, sigma %g, seed %u", o->noise.density * 100,
                     o->noise.sigma, o->noise.seed);
        printf("wrote %s (%dx%d, %s/%s, %s%s) in %.3f ms %s\n", o->output, src.width, src.height, f->name,
               v->name, params, noise, ms, fv_variant_is_host(v) ? "on the CPU" : "on the GPU");
        if (o->save_source) printf("wrote %s (the source the filter saw)\n", o->save_source);
    }
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
    return st == FV_OK ? 0 : fail_line();
}

int compare_main(const cli_options *o)
{
    const pane_spec *side = o->compare;
    for (int k = 0; k < 2; k++)
        if (fv_params_check(side[k].filter, cli_params(o, side[k].filter)) != FV_OK) return fail_line();
    fv_image src = {0}, out[2] = {{0}, {0}};
    double ms[2] = {0, 0};
    if (image_load(o->input, &src) != FV_OK) return fail_line();
    fv_status st = source_with_noise(o, &src);
    for (int k = 0; k < 2 && st == FV_OK; k++) {
        st = fv_host_image_alloc(&out[k], src.width, src.height);
        if (st == FV_OK)
            st = run_variant_to_host(side[k].filter, side[k].variant, &src, &out[k],
                                     cli_params(o, side[k].filter), &ms[k]);
    }
    if (st == FV_OK) {
        fv_diff_stats d;
        fv_diff_host(&out[0], &out[1], &d);
        char params[2][192];
        for (int k = 0; k < 2; k++)
            describe_params(side[k].filter, cli_params(o, side[k].filter), params[k], sizeof params[k]);
        if (side[0].filter == side[1].filter)
            printf("%s %dx%d (%s): %s %.3f ms, %s %.3f ms; ", side[0].filter->name, src.width, src.height,
                   params[0], side[0].variant->name, ms[0], side[1].variant->name, ms[1]);
        else
            printf("%dx%d: %s/%s (%s) %.3f ms, %s/%s (%s) %.3f ms; ", src.width, src.height,
                   side[0].filter->name, side[0].variant->name, params[0], ms[0], side[1].filter->name,
                   side[1].variant->name, params[1], ms[1]);
        printf("max abs difference %d, %lld of %lld pixels differ\n", d.max_abs, d.n_differing,
               (long long)src.width * src.height);
    }
    fv_host_image_free(&src);
    fv_host_image_free(&out[0]);
    fv_host_image_free(&out[1]);
    return st == FV_OK ? 0 : fail_line();
}

int info_main(void)
{
    if (fv_device_check() != FV_OK) return fail_line();
    int dev = 0;
    struct cudaDeviceProp prop;
    size_t free_b = 0, total_b = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        fv_fail(FV_ERR_CUDA, "cannot query the CUDA device: %s",
                cudaGetErrorString(cudaGetLastError()));
        return fail_line();
    }
    printf("CUDA device %d: %s, compute capability %d.%d, %d SMs, %zu MiB free of %zu MiB, "
           "L2 %d KiB\n", dev, prop.name, prop.major, prop.minor, prop.multiProcessorCount,
           free_b >> 20, total_b >> 20, prop.l2CacheSize >> 10);
    return 0;
}
