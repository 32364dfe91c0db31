/* ------------------------------------------------------------------------------------------------
 * viewer/batch.c: windowless filtering. Loads an image, runs one variant (or two, to compare
 * them byte for byte), and writes a PNG atomically. All failures end in one line on stderr.
 * ------------------------------------------------------------------------------------------------ */
#include "batch.h"

#include "bench.h"

#include "image_io.h"

#include <stdio.h>
#include <string.h>

void describe_params(const fv_filter *f, const fv_params *p, char *buf, size_t size)
{
    char own[96];
    f->describe_params(p, own, sizeof own);
    snprintf(buf, size, "%s, %d iteration%s", own, p->iterations, p->iterations == 1 ? "" : "s");
}

static fv_status run_on_device(const fv_filter *f, const fv_variant *v, const fv_image *src,
                               fv_image *dst, const fv_params *p, double *ms)
{
    FV_TRY(fv_device_check());
    char what[96];
    snprintf(what, sizeof what, "a %dx%d image", src->width, src->height);
    size_t image_bytes = (size_t)src->width * 4 * (size_t)src->height;
    FV_TRY(fv_device_check_fits(image_bytes * (p->iterations > 1 ? 3 : 2), what));
    fv_image d_src = {0}, d_dst = {0};
    fv_scratch scratch = {0};
    cudaEvent_t start = NULL, stop = NULL;
    fv_status st = fv_device_image_alloc(&d_src, src->width, src->height);
    if (st == FV_OK) st = fv_device_image_alloc(&d_dst, src->width, src->height);
    if (st == FV_OK) st = fv_image_upload(&d_src, src);
    if (st == FV_OK && (cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess))
        st = fv_fail(FV_ERR_CUDA, "cannot create CUDA events");
    if (st == FV_OK) {
        cudaEventRecord(start, 0);
        st = fv_run(f, v, &d_src, &d_dst, p, &scratch, 0);
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
    fv_scratch_free(&scratch);
    fv_device_image_free(&d_src);
    fv_device_image_free(&d_dst);
    return st;
}

fv_status run_variant_to_host(const fv_filter *f, const fv_variant *v, const fv_image *src,
                              fv_image *dst, const fv_params *p, double *ms)
{
    FV_TRY(f->check_params(p));
    if (!fv_variant_is_host(v)) return run_on_device(f, v, src, dst, p, ms);
    fv_image tmp = {0};
    if (p->iterations > 1) FV_TRY(fv_host_image_alloc(&tmp, src->width, src->height));
    double t0 = bench_now_ms();
    fv_status st = fv_run_host(f, src, dst, p, p->iterations > 1 ? &tmp : NULL);
    *ms = bench_now_ms() - t0;
    fv_host_image_free(&tmp);
    return st;
}

static int fail_line(void)
{
    fprintf(stderr, "filterview: %s\n", fv_last_error());
    return 1;
}

int batch_main(const cli_options *o)
{
    const fv_filter *f = fv_filter_find(o->filter);
    const fv_variant *v = fv_variant_find(f, o->variant);
    if (f->check_params(&o->params) != FV_OK) return fail_line();
    if (image_check_output_path(o->output) != FV_OK) return fail_line();
    fv_image src = {0}, dst = {0};
    double ms = 0;
    if (image_load(o->input, &src) != FV_OK) return fail_line();
    fv_status st = fv_host_image_alloc(&dst, src.width, src.height);
    if (st == FV_OK) st = run_variant_to_host(f, v, &src, &dst, &o->params, &ms);
    if (st == FV_OK) st = image_save_png(o->output, &dst);
    if (st == FV_OK) {
        char params[128];
        describe_params(f, &o->params, params, sizeof params);
        printf("wrote %s (%dx%d, %s/%s, %s) in %.3f ms %s\n", o->output, src.width, src.height,
               f->name, v->name, params, ms, fv_variant_is_host(v) ? "on the CPU" : "on the GPU");
    }
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
    return st == FV_OK ? 0 : fail_line();
}

int compare_main(const cli_options *o)
{
    const fv_filter *f = fv_filter_find(o->filter);
    const fv_variant *va = fv_variant_find(f, o->compare_a);
    const fv_variant *vb = fv_variant_find(f, o->compare_b);
    if (f->check_params(&o->params) != FV_OK) return fail_line();
    fv_image src = {0}, a = {0}, b = {0};
    double ms_a = 0, ms_b = 0;
    if (image_load(o->input, &src) != FV_OK) return fail_line();
    fv_status st = fv_host_image_alloc(&a, src.width, src.height);
    if (st == FV_OK) st = fv_host_image_alloc(&b, src.width, src.height);
    if (st == FV_OK) st = run_variant_to_host(f, va, &src, &a, &o->params, &ms_a);
    if (st == FV_OK) st = run_variant_to_host(f, vb, &src, &b, &o->params, &ms_b);
    if (st == FV_OK) {
        fv_diff_stats d;
        fv_diff_host(&a, &b, &d);
        char params[128];
        describe_params(f, &o->params, params, sizeof params);
        printf("%s %dx%d (%s): %s %.3f ms, %s %.3f ms; max abs difference %d, %lld of %lld "
               "pixels differ\n", f->name, src.width, src.height, params, va->name, ms_a,
               vb->name, ms_b, d.max_abs, d.n_differing, (long long)src.width * src.height);
    }
    fv_host_image_free(&src);
    fv_host_image_free(&a);
    fv_host_image_free(&b);
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
