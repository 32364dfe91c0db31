/* ------------------------------------------------------------------------------------------------
 * viewer/bench.c: `filterview --bench`. For each image size (random content, seeded) and each
 * filter x GPU variant: warm-up, then the median of N runs timed with CUDA events, rotating
 * among enough buffer sets to defeat the L2 cache. Reported against the device-to-device copy
 * bandwidth measured at the start of the same run (bytes read + written), as seed 000's chart
 * plus the figures that explain it: ms, Mpixel/s, effective GB/s, share of copy bandwidth,
 * speedup over `naive`, the CPU reference (where it takes < 2 s) and NPP (where built with it).
 * ------------------------------------------------------------------------------------------------ */
#include "bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_WARMUP 3
#define BENCH_MAX_SETS 16
#define BENCH_CPU_BUDGET_MS 2000.0
#define BENCH_COPY_BYTES ((size_t)256 << 20)

static const int default_sizes[][2] = {{512, 512},   {1856, 1376}, {2048, 2048}, {3840, 2160},
                                       {6304, 4192}, {7360, 4832}, {9984, 6400}};

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

fv_status bench_time_op(bench_op_fn op, void *context, int n_sets, int warmup, int runs,
                        double *median_ms)
{
    cudaEvent_t *ev = calloc((size_t)runs * 2, sizeof *ev);
    double *ms = calloc((size_t)runs, sizeof *ms);
    fv_status st = (ev && ms) ? FV_OK : fv_fail(FV_ERR_MEMORY, "out of host memory");
    for (int i = 0; st == FV_OK && i < 2 * runs; i++)
        if (cudaEventCreate(&ev[i]) != cudaSuccess) st = fv_fail(FV_ERR_CUDA, "cudaEventCreate failed");
    for (int i = 0; st == FV_OK && i < warmup; i++) st = op(context, i % n_sets);
    for (int i = 0; st == FV_OK && i < runs; i++) {
        cudaEventRecord(ev[2 * i], 0);
        st = op(context, i % n_sets);
        cudaEventRecord(ev[2 * i + 1], 0);
    }
    if (st == FV_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "benchmark run failed: %s", cudaGetErrorString(cudaGetLastError()));
    for (int i = 0; st == FV_OK && i < runs; i++) {
        float t = 0;
        cudaEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
        ms[i] = t;
    }
    if (st == FV_OK) {
        *median_ms = bench_median(ms, runs);
    }
    for (int i = 0; ev && i < 2 * runs; i++)
        if (ev[i]) cudaEventDestroy(ev[i]);
    free(ev);
    free(ms);
    return st;
}

/* ---- what one benchmark cell runs ---- */
typedef struct bench_sets {
    int n;
    fv_image src[BENCH_MAX_SETS], dst[BENCH_MAX_SETS];
} bench_sets;

typedef struct variant_op {
    const fv_filter *filter;
    const fv_variant *variant;
    const fv_params *params;
    bench_sets *sets;
    fv_scratch *scratch;
} variant_op;

static fv_status variant_op_run(void *context, int set)
{
    variant_op *c = context;
    return fv_run(c->filter, c->variant, &c->sets->src[set], &c->sets->dst[set], c->params,
                  c->scratch, 0);
}

typedef struct copy_op {
    void *a, *b;
    size_t bytes;
} copy_op;

static fv_status copy_op_run(void *context, int set)
{
    copy_op *c = context;
    (void)set;
    if (cudaMemcpyAsync(c->b, c->a, c->bytes, cudaMemcpyDeviceToDevice, 0) != cudaSuccess)
        return fv_fail(FV_ERR_CUDA, "cudaMemcpyAsync: %s", cudaGetErrorString(cudaGetLastError()));
    return FV_OK;
}

#ifdef FV_HAVE_NPP
typedef struct npp_op {
    bench_sets *sets;
    const struct cudaDeviceProp *prop;
    int device;
} npp_op;

static fv_status npp_op_run(void *context, int set)
{
    npp_op *c = context;
    return bench_npp_gauss5x5(&c->sets->src[set], &c->sets->dst[set], c->prop, c->device);
}
#endif

fv_status bench_copy_bandwidth(size_t bytes, int runs, double *gbps)
{
    copy_op c = {NULL, NULL, bytes};
    fv_status st = FV_OK;
    if (cudaMalloc(&c.a, c.bytes) != cudaSuccess || cudaMalloc(&c.b, c.bytes) != cudaSuccess)
        st = fv_fail(FV_ERR_MEMORY, "cannot allocate 2 x %zu MiB to measure copy bandwidth",
                     c.bytes >> 20);
    if (st == FV_OK) st = cudaMemset(c.a, 0x5a, c.bytes) == cudaSuccess ? FV_OK
                          : fv_fail(FV_ERR_CUDA, "cudaMemset failed");
    double ms = 0;
    if (st == FV_OK) st = bench_time_op(copy_op_run, &c, 1, BENCH_WARMUP, runs, &ms);
    if (st == FV_OK) *gbps = 2.0 * (double)c.bytes / (ms * 1e6);
    cudaFree(c.a);
    cudaFree(c.b);
    cudaGetLastError();
    return st;
}

static void free_sets(bench_sets *sets)
{
    for (int i = 0; i < sets->n; i++) {
        fv_device_image_free(&sets->src[i]);
        fv_device_image_free(&sets->dst[i]);
    }
    sets->n = 0;
}

static fv_status alloc_sets(bench_sets *sets, const fv_image *host, int n)
{
    sets->n = 0;
    for (int i = 0; i < n; i++) {
        FV_TRY(fv_device_image_alloc(&sets->src[i], host->width, host->height));
        sets->n = i + 1;
        FV_TRY(fv_device_image_alloc(&sets->dst[i], host->width, host->height));
        FV_TRY(fv_image_upload(&sets->src[i], host));
    }
    return FV_OK;
}

typedef struct bench_row {
    int width, height;
    const char *filter, *variant;
    double ms, mpix_s, gb_s, share, speedup; /* speedup < 0: no naive to compare with */
} bench_row;

static void print_row(FILE *out, const bench_row *r, int csv)
{
    char size[32], speed[32];
    snprintf(size, sizeof size, "%dx%d", r->width, r->height);
    if (r->speedup > 0) snprintf(speed, sizeof speed, csv ? "%.4g" : "%.3gx", r->speedup);
    else snprintf(speed, sizeof speed, csv ? "" : "-");
    if (csv)
        fprintf(out, "%s,%d,%d,%s,%s,%.4f,%.1f,%.1f,%.3f,%s\n", size, r->width, r->height,
                r->filter, r->variant, r->ms, r->mpix_s, r->gb_s, r->share, speed);
    else
        fprintf(out, "| %-10s | %-8s | %-12s | %10.4f | %9.0f | %7.1f | %6.1f%% | %7s |\n", size,
                r->filter, r->variant, r->ms, r->mpix_s, r->gb_s, 100.0 * r->share, speed);
}

int bench_main(const cli_options *o)
{
    if (fv_device_check() != FV_OK) {
        fprintf(stderr, "filterview: %s\n", fv_last_error());
        return 1;
    }
    int device = 0;
    struct cudaDeviceProp prop;
    cudaGetDevice(&device);
    cudaGetDeviceProperties(&prop, device);
    int n_sizes = o->n_sizes ? o->n_sizes : (int)(sizeof default_sizes / sizeof default_sizes[0]);
    FILE *csv = NULL;
    if (o->csv && !(csv = fopen(o->csv, "w"))) {
        fprintf(stderr, "filterview: cannot write '%s': %s\n", o->csv, strerror(errno));
        return 1;
    }
    double copy_gbps = 0;
    if (bench_copy_bandwidth(BENCH_COPY_BYTES, o->runs, &copy_gbps) != FV_OK) {
        fprintf(stderr, "filterview: %s\n", fv_last_error());
        if (csv) fclose(csv), remove(o->csv);
        return 1;
    }
    printf("# filterview benchmark: %s (%d SMs, L2 %d MiB), %d timed runs per cell (median), "
           "seed %u\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, o->runs, o->seed);
    printf("# device-to-device copy: %.0f GB/s (bytes read + written, 2 x %zu MiB)\n\n", copy_gbps,
           BENCH_COPY_BYTES >> 20);
    printf("| size       | filter   | variant      |         ms |  Mpix/s |    GB/s | %% copy | vs naive |\n");
    printf("|------------|----------|--------------|-----------:|--------:|--------:|-------:|--------:|\n");

    bench_row *rows = calloc(256, sizeof *rows);
    int n_rows = 0, failed = 0;
    double cpu_ms_per_pixel[64] = {0}; /* per filter: last measured CPU time per pixel */
    for (int si = 0; si < n_sizes && !failed; si++) {
        int w = o->n_sizes ? o->sizes[si][0] : default_sizes[si][0];
        int h = o->n_sizes ? o->sizes[si][1] : default_sizes[si][1];
        size_t bytes = (size_t)w * 4 * (size_t)h;
        int n_sets = (int)((2 * (size_t)prop.l2CacheSize) / (2 * bytes)) + 1;
        if (n_sets > BENCH_MAX_SETS) n_sets = BENCH_MAX_SETS;
        fv_image host = {0};
        bench_sets sets = {0};
        fv_scratch scratch = {0};
        char what[64];
        snprintf(what, sizeof what, "benchmark size %dx%d", w, h);
        fv_status st = fv_device_check_fits(bytes * (2 * n_sets + 1), what);
        if (st == FV_OK) st = fv_host_image_alloc(&host, w, h);
        if (st == FV_OK) {
            fv_image_fill_random(&host, o->seed + (unsigned)si);
            st = alloc_sets(&sets, &host, n_sets);
        }
        if (st != FV_OK) {
            fprintf(stderr, "filterview: %s\n", fv_last_error());
            failed = 1;
        }
        for (int fi = 0; fi < fv_n_filters && !failed; fi++) {
            const fv_filter *f = fv_filters[fi];
            if (o->bench_filter_given && strcmp(f->name, o->filter) != 0) continue;
            double naive_ms = -1;
            for (int vi = 0; vi < f->n_variants && !failed; vi++) {
                const fv_variant *v = &f->variants[vi];
                bench_row r = {w, h, f->name, v->name, 0, 0, 0, 0, -1};
                fprintf(stderr, "\r  [%d/%d] %dx%d %s/%s ...            ", si + 1, n_sizes, w, h,
                        f->name, v->name);
                if (fv_variant_is_host(v)) {
                    double predicted = cpu_ms_per_pixel[fi] * (double)w * h * o->params.iterations;
                    if (predicted > BENCH_CPU_BUDGET_MS) continue;
                    fv_image dst = {0}, tmp = {0};
                    st = fv_host_image_alloc(&dst, w, h);
                    if (st == FV_OK && o->params.iterations > 1) st = fv_host_image_alloc(&tmp, w, h);
                    double t0 = bench_now_ms();
                    if (st == FV_OK) st = fv_run_host(f, &host, &dst, &o->params, &tmp);
                    r.ms = bench_now_ms() - t0;
                    cpu_ms_per_pixel[fi] = r.ms / ((double)w * h * o->params.iterations);
                    fv_host_image_free(&dst);
                    fv_host_image_free(&tmp);
                } else {
                    variant_op c = {f, v, &o->params, &sets, &scratch};
                    st = bench_time_op(variant_op_run, &c, sets.n, BENCH_WARMUP, o->runs, &r.ms);
                }
                if (st != FV_OK) {
                    fprintf(stderr, "\nfilterview: %s/%s: %s\n", f->name, v->name, fv_last_error());
                    failed = 1;
                    break;
                }
                if (strcmp(v->name, "naive") == 0) naive_ms = r.ms;
                r.mpix_s = (double)w * h * o->params.iterations / (r.ms * 1e3);
                r.gb_s = f->bytes_per_pixel * (double)w * h * o->params.iterations / (r.ms * 1e6);
                r.share = r.gb_s / copy_gbps;
                r.speedup = naive_ms > 0 ? naive_ms / r.ms : -1;
                fprintf(stderr, "\r%60s\r", "");
                print_row(stdout, &r, 0);
                fflush(stdout);
                if (n_rows < 256) rows[n_rows++] = r;
            }
#ifdef FV_HAVE_NPP
            if (!failed && strcmp(f->name, "gaussian") == 0 && o->params.iterations == 1) {
                npp_op c = {&sets, &prop, device};
                bench_row r = {w, h, f->name, "npp_5x5", 0, 0, 0, 0, -1};
                if (bench_time_op(npp_op_run, &c, sets.n, BENCH_WARMUP, o->runs, &r.ms) == FV_OK) {
                    r.mpix_s = (double)w * h / (r.ms * 1e3);
                    r.gb_s = f->bytes_per_pixel * (double)w * h / (r.ms * 1e6);
                    r.share = r.gb_s / copy_gbps;
                    r.speedup = naive_ms > 0 ? naive_ms / r.ms : -1;
                    print_row(stdout, &r, 0);
                    if (n_rows < 256) rows[n_rows++] = r;
                } else {
                    fprintf(stderr, "filterview: NPP column skipped: %s\n", fv_last_error());
                }
            }
#endif
        }
        fv_scratch_free(&scratch);
        free_sets(&sets);
        fv_host_image_free(&host);
    }
    printf("\n# %d iteration(s) per run; GB/s counts the bytes each pass reads and writes; "
           "%% copy = GB/s / copy GB/s\n", o->params.iterations);
    for (int fi = 0; fi < fv_n_filters; fi++) {
        char params[128];
        fv_filters[fi]->describe_params(&o->params, params, sizeof params);
        printf("# %s: %s\n", fv_filters[fi]->name, params);
    }
    if (csv) {
        fprintf(csv, "size,width,height,filter,variant,ms,mpix_s,gb_s,share_of_copy,speedup_vs_naive\n");
        for (int i = 0; i < n_rows; i++) print_row(csv, &rows[i], 1);
        if (fclose(csv) != 0 || failed) {
            fprintf(stderr, "filterview: %s not written\n", o->csv);
            remove(o->csv);
            failed = 1;
        } else {
            printf("# wrote %s\n", o->csv);
        }
    }
    free(rows);
    return failed ? 1 : 0;
}
