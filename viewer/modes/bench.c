/* ------------------------------------------------------------------------------------------------
 * viewer/modes/bench.c: `filterview --bench`. For each image size (random content, seeded) and each
 * filter x GPU variant: warm-up, then the median of N runs timed with CUDA events, rotating
 * among enough buffer sets to defeat the L2 cache. Reported against the device-to-device copy
 * bandwidth measured at the start of the same run (bytes read + written), with the figures that
 * explain it: ms, Mpixel/s, effective GB/s (the filter's traffic model),
 * share of copy bandwidth, speedup over the filter's baseline variant, the largest difference
 * from the baseline's output (peers such as NPP are not exact), the CPU reference (where it
 * takes < 2 s), and each variant's kernel resources in the CSV. Any parameter can be swept
 * (-p radius=1,2,4); --chart draws the table as a PNG. --image FILE benches on a photo resized to
 * each size instead (Canny's hysteresis on random noise is not what a photo asks of it); variants
 * with something to say about their last run (Canny: hysteresis rounds) get a note under the table.
 * Without a usable CUDA device it times the CPU references alone, says so in one line with the
 * plain reason (device.h), and shows "-" for what needs a device (copy bandwidth, % copy).
 * ------------------------------------------------------------------------------------------------ */
#include "bench.h"

#include "chart.h"
#include "device.h"
#include "image_io.h"
#include "modes.h"
#include "run.h"
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_WARMUP        3
#define BENCH_MAX_SETS      16
#define BENCH_CPU_BUDGET_MS 2000.0
#define BENCH_COPY_BYTES    ((size_t)256 << 20)
/* a side: the reference's first cell of a filter runs on this corner first, to predict its
 * whole time against the budget, from this many pixels (below, a full run costs seconds at
 * most, and it is the better prediction) */
#define BENCH_CPU_PROBE        256
#define BENCH_CPU_PROBE_PIXELS ((double)(1 << 22))

static const int default_sizes[][2] = {{512, 512},   {1856, 1376}, {2048, 2048}, {3840, 2160},
                                       {6304, 4192}, {7360, 4832}, {9984, 6400}};

/* ---- what one benchmark cell runs ---- */
typedef struct bench_sets {
    int n;
    fv_image src[BENCH_MAX_SETS], dst[BENCH_MAX_SETS];
} bench_sets;

typedef struct variant_op {
    const fv_runner *runner;
    bench_sets *sets;
} variant_op;

static fv_status variant_op_run(void *context, int set)
{
    variant_op *c = context;
    return fv_runner_run(c->runner, &c->sets->src[set], &c->sets->dst[set], 0);
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

fv_status bench_copy_bandwidth(size_t bytes, int runs, double *gbps)
{
    copy_op c = {NULL, NULL, bytes};
    fv_status st = FV_OK;
    if (cudaMalloc(&c.a, c.bytes) != cudaSuccess || cudaMalloc(&c.b, c.bytes) != cudaSuccess)
        st = fv_fail(FV_ERR_MEMORY, "cannot allocate 2 x %zu MiB to measure copy bandwidth",
                     c.bytes >> 20);
    if (st == FV_OK)
        st = cudaMemset(c.a, 0x5a, c.bytes) == cudaSuccess
                 ? FV_OK
                 : fv_fail(FV_ERR_CUDA, "cudaMemset failed");
    double ms = 0;
    if (st == FV_OK) st = fv_time_median(copy_op_run, &c, 1, BENCH_WARMUP, runs, &ms);
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
        FV_TRY(fv_device_image_alloc_as(&sets->src[i], host->width, host->height, host->type, 4));
        sets->n = i + 1;
        FV_TRY(fv_device_image_alloc_as(&sets->dst[i], host->width, host->height, host->type, 4));
        FV_TRY(fv_image_upload(&sets->src[i], host));
    }
    return FV_OK;
}

typedef struct bench_row {
    int width, height;
    const fv_filter *filter;
    const fv_variant *variant;
    char params[160];
    int sweep_index; /* which value of the swept parameter (0 without a sweep) */
    /* < 0: not measured (no baseline to compare with, no copy bandwidth, a time too short) */
    double ms, mpix_s, gb_s, share, speedup;
    int max_diff;           /* largest |difference| from the baseline's output; -1: not compared */
    double share_differing; /* share of pixels that differ from the baseline's */
    char resources[512];
    char note[128]; /* the variant's note on its last run ("" without one) */
} bench_row;

typedef struct bench_table {
    bench_row *rows;
    int n, capacity;
} bench_table;

static fv_status table_add(bench_table *t, const bench_row *r)
{
    if (t->n == t->capacity) {
        int capacity = t->capacity ? 2 * t->capacity : 64;
        bench_row *rows = realloc(t->rows, sizeof *rows * (size_t)capacity);
        if (!rows) return fv_fail(FV_ERR_MEMORY, "out of host memory for the benchmark table");
        t->rows = rows;
        t->capacity = capacity;
    }
    t->rows[t->n++] = *r;
    return FV_OK;
}

/* `value` printed with `format`, or what stands for "not measured": "-" in the table, empty in
 * the CSV */
static const char *measured(char *buf, size_t size, const char *format, double value, int csv)
{
    if (value < 0 || !isfinite(value))
        snprintf(buf, size, "%s", csv ? "" : "-");
    else
        snprintf(buf, size, format, value);
    return buf;
}

/* variant_width: the table's variant column, wider than 10 for a user kernel's file name */
static void print_row(FILE *out, const bench_row *r, int csv, int variant_width)
{
    char size[32], speed[32], diff[48], mpix[32], gbps[32], share[32];
    snprintf(size, sizeof size, "%dx%d", r->width, r->height);
    measured(mpix, sizeof mpix, csv ? "%.1f" : "%.0f", r->mpix_s, csv);
    measured(gbps, sizeof gbps, "%.1f", r->gb_s, csv);
    measured(share, sizeof share, csv ? "%.3f" : "%.1f%%", csv ? r->share : 100.0 * r->share, csv);
    if (r->speedup > 0)
        snprintf(speed, sizeof speed, csv ? "%.4g" : "%.3gx", r->speedup);
    else
        snprintf(speed, sizeof speed, csv ? "" : "-");
    if (r->max_diff < 0)
        snprintf(diff, sizeof diff, csv ? "" : "-");
    else if (csv)
        snprintf(diff, sizeof diff, "%d,%.6f", r->max_diff, r->share_differing);
    else if (r->max_diff == 0)
        snprintf(diff, sizeof diff, "0");
    else
        snprintf(diff, sizeof diff, "%d (%.1f%%)", r->max_diff, 100.0 * r->share_differing);
    if (csv) {
        char resources[600];
        snprintf(resources, sizeof resources, "\"%s\"", r->resources);
        fprintf(out, "%s,%d,%d,%s,\"%s\",%s,%s,%.4f,%s,%s,%s,%s,%s%s,%s\n", size, r->width,
                r->height, r->filter->name, r->params, r->variant->name,
                fv_variant_is_peer(r->variant) ? "peer" : "ours", r->ms, mpix, gbps, share, speed,
                diff, r->max_diff < 0 ? "," : "", resources);
    } else {
        fprintf(out, "| %-10s | %-8s | %-22s | %-*s | %10.4f | %8s | %7s | %7s | %8s | %-11s |\n",
                size, r->filter->name, r->params, variant_width, r->variant->name, r->ms, mpix,
                gbps, share, speed, diff);
    }
}

/* The bench's chart: lines over the swept parameter for one size, else bars over the sizes. */
static fv_status bench_chart(const cli_options *o, const bench_table *t, const char *device,
                             double copy_gbps, int sizes[][2], int n_sizes)
{
    enum { MAX_SERIES = 64, MAX_X = CLI_MAX_SWEEP > CLI_MAX_SIZES ? CLI_MAX_SWEEP : CLI_MAX_SIZES };
    static char labels[MAX_X][32], names[MAX_SERIES][48];
    static double values[MAX_SERIES][MAX_X];
    const char *ticks[MAX_X];
    chart_series series[MAX_SERIES];
    const int sweep = o->n_sweep > 0;
    int n_x = sweep ? o->n_sweep : n_sizes;
    for (int x = 0; x < n_x; x++) {
        if (sweep)
            snprintf(labels[x], sizeof labels[x], "%s", o->sweep_text[x]);
        else
            snprintf(labels[x], sizeof labels[x], "%dx%d", sizes[x][0], sizes[x][1]);
        ticks[x] = labels[x];
    }
    int n_series = 0;
    for (int i = 0; i < t->n; i++) {
        const bench_row *r = &t->rows[i];
        char name[48], size[32];
        snprintf(size, sizeof size, "%dx%d", r->width, r->height);
        /* a sweep over several sizes: one line per variant and size */
        if (sweep && n_sizes > 1)
            snprintf(name, sizeof name, "%s/%s %s", r->filter->name, r->variant->name, size);
        else
            snprintf(name, sizeof name, "%s/%s", r->filter->name, r->variant->name);
        int s = 0;
        while (s < n_series && strcmp(names[s], name) != 0) s++;
        if (s == n_series) {
            if (n_series == MAX_SERIES) continue;
            snprintf(names[s], sizeof names[s], "%s", name);
            for (int x = 0; x < MAX_X; x++) values[s][x] = 0;
            n_series++;
        }
        int x = sweep ? r->sweep_index : 0;
        while (!sweep && x < n_x && strcmp(size, labels[x]) != 0) x++;
        if (x < n_x) values[s][x] = r->ms;
    }
    for (int s = 0; s < n_series; s++) series[s] = (chart_series){names[s], values[s]};
    char title[256], subtitle[256];
    if (sweep && n_sizes > 1)
        snprintf(title, sizeof title, "filterview --bench: ms per run over %s", o->sweep_name);
    else if (sweep)
        snprintf(title, sizeof title, "filterview --bench: ms per run over %s at %dx%d",
                 o->sweep_name, sizes[0][0], sizes[0][1]);
    else
        snprintf(title, sizeof title, "filterview --bench: ms per run over image sizes");
    if (copy_gbps > 0)
        snprintf(subtitle, sizeof subtitle,
                 "%.120s, copy %.0f GB/s, median of %d runs; lower is faster", device, copy_gbps,
                 o->runs);
    else
        snprintf(subtitle, sizeof subtitle,
                 "CPU references on %.120s (no CUDA device), one run each; lower is faster",
                 device);
    chart_desc c = {
        .title = title,
        .subtitle = subtitle,
        .x_label = sweep ? o->sweep_name : "image size",
        .y_label = "ms per run (log scale)",
        .x_ticks = ticks,
        .n_x = n_x,
        .series = series,
        .n_series = n_series,
        .lines = sweep,
        .log_y = 1,
    };
    return chart_write_png(o->chart, &c);
}

/* the sweep value k of the swept parameter for filter f (the given parameters otherwise) */
static int sweep_params(const cli_options *o, const fv_filter *f, int k, fv_params *p)
{
    *p = *cli_params(o, f);
    p->type = o->depth ? (fv_pixel_type)(o->depth - 1) : FV_PIXEL_U8; /* --depth: the images' */
    if (!o->n_sweep) return 1;
    int index = fv_param_index(f, o->sweep_name);
    if (index < 0) return k == 0; /* a filter without it runs once, at column 0 */
    double value = 0;
    if (fv_param_parse(f, index, o->sweep_text[k], o->sweep_name, &value) != FV_OK) return 0;
    fv_param_set(f, p, index, value);
    return 1;
}

typedef struct bench_cell {
    const cli_options *o;
    const fv_filter *f;
    const fv_params *p;
    const fv_image *host;
    bench_sets *sets;
    fv_image reference; /* the baseline's output (device) */
    void *diff_work;
    double baseline_ms;
    double copy_gbps;
    double *cpu_ms_per_pixel;
} bench_cell;

/* The reference's time per pixel on the top-left corner of `host` (at most BENCH_CPU_PROBE a
 * side), for a filter with no measurement yet: a 9984x6400 cell of a slow reference would
 * otherwise run for a minute before the budget could say no. */
static fv_status cpu_probe(const fv_filter *f, const fv_variant *v, const fv_params *p,
                           const fv_image *host, double *ms_per_pixel)
{
    fv_image corner = *host; /* a view: the same rows, narrower and shorter */
    corner.width = host->width < BENCH_CPU_PROBE ? host->width : BENCH_CPU_PROBE;
    corner.height = host->height < BENCH_CPU_PROBE ? host->height : BENCH_CPU_PROBE;
    fv_image dst = {0};
    fv_runner runner = {0};
    fv_status st = fv_host_image_alloc_as(&dst, corner.width, corner.height, p->type, 4);
    if (st == FV_OK) st = fv_runner_prepare(&runner, f, v, p, corner.width, corner.height);
    const double t0 = fv_now_ms();
    if (st == FV_OK) st = fv_runner_run(&runner, &corner, &dst, 0);
    if (st == FV_OK)
        *ms_per_pixel = (fv_now_ms() - t0) / ((double)corner.width * corner.height * p->iterations);
    fv_runner_release(&runner);
    fv_host_image_free(&dst);
    return st;
}

static fv_status bench_variant(bench_cell *c, const fv_variant *v, bench_row *r)
{
    const fv_filter *f = c->f;
    const int w = c->host->width, h = c->host->height;
    const fv_params *p = c->p;
    r->max_diff = -1;
    if (fv_variant_is_host(v)) {
        if (*c->cpu_ms_per_pixel <= 0 && (double)w * h >= BENCH_CPU_PROBE_PIXELS)
            FV_TRY(cpu_probe(f, v, p, c->host, c->cpu_ms_per_pixel));
        double predicted = *c->cpu_ms_per_pixel * (double)w * h * p->iterations;
        if (predicted > BENCH_CPU_BUDGET_MS) return FV_ERR_ARG; /* skipped: would take too long */
        fv_image dst = {0};
        fv_runner runner = {0};
        fv_status st = fv_host_image_alloc_as(&dst, w, h, p->type, 4);
        if (st == FV_OK) st = fv_runner_prepare(&runner, f, v, p, w, h);
        double t0 = fv_now_ms();
        if (st == FV_OK) st = fv_runner_run(&runner, c->host, &dst, 0);
        r->ms = fv_now_ms() - t0;
        *c->cpu_ms_per_pixel = r->ms / ((double)w * h * p->iterations);
        fv_runner_release(&runner);
        fv_host_image_free(&dst);
        snprintf(r->resources, sizeof r->resources, "runs on the host");
        return st;
    }
    fv_runner runner = {0};
    fv_status st = fv_runner_prepare(&runner, f, v, p, w, h); /* state made before any timing */
    variant_op op = {&runner, c->sets};
    if (st == FV_OK)
        st = fv_time_median(variant_op_run, &op, c->sets->n, BENCH_WARMUP, c->o->runs, &r->ms);
    if (st == FV_OK) { /* how far from the baseline's bytes (exact variants: 0) */
        st = fv_runner_run(&runner, &c->sets->src[0], &c->sets->dst[0], 0);
        fv_diff_stats d;
        if (st == FV_OK && c->reference.data &&
            (st = fv_diff(&c->sets->dst[0], &c->reference, &d, c->diff_work, 0)) == FV_OK) {
            r->max_diff = d.max_abs;
            r->share_differing = (double)d.n_differing / ((double)w * h);
        }
    }
    fv_variant_resources_text(f, v, p, r->resources, sizeof r->resources);
    if (st == FV_OK) fv_runner_last_run_text(&runner, r->note, sizeof r->note);
    fv_runner_release(&runner);
    return st;
}

/* `to` from `from` by bilinear interpolation (pixel centres aligned; a plain copy at the same size) */
static void resample_bilinear(const fv_image *from, fv_image *to)
{
    const double sx = (double)from->width / to->width, sy = (double)from->height / to->height;
    for (int y = 0; y < to->height; y++) {
        double fy = (y + 0.5) * sy - 0.5;
        fy = fy < 0 ? 0 : fy;
        const int y0 = (int)fy, y1 = y0 + 1 < from->height ? y0 + 1 : y0;
        const double wy = fy - y0;
        const uint8_t *r0 = from->data + (size_t)y0 * from->pitch,
                      *r1 = from->data + (size_t)y1 * from->pitch;
        uint8_t *out = to->data + (size_t)y * to->pitch;
        for (int x = 0; x < to->width; x++) {
            double fx = (x + 0.5) * sx - 0.5;
            fx = fx < 0 ? 0 : fx;
            const int x0 = (int)fx, x1 = x0 + 1 < from->width ? x0 + 1 : x0;
            const double wx = fx - x0;
            for (int c = 0; c < 4; c++) {
                const double top = r0[4 * x0 + c] * (1 - wx) + r0[4 * x1 + c] * wx;
                const double bottom = r1[4 * x0 + c] * (1 - wx) + r1[4 * x1 + c] * wx;
                out[4 * x + c] = (uint8_t)lround(top * (1 - wy) + bottom * wy);
            }
        }
    }
}

/* The host CPU's model name ("the host CPU" where /proc/cpuinfo does not say) */
static void cpu_name(char *buf, size_t size)
{
    snprintf(buf, size, "the host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon) continue;
        colon += strspn(colon + 1, " \t") + 1;
        snprintf(buf, size, "%.*s", (int)strcspn(colon, "\n"), colon);
        break;
    }
    fclose(f);
}

int bench_main(const cli_options *o)
{
    /* without a device: the CPU references alone, unless -v asked for a GPU variant */
    const char *no_device = fv_device_unavailable_reason();
    if (no_device && o->variant_given && !fv_variant_is_host(o->variant)) {
        run_device_check("use -v cpu to bench the reference");
        return run_fail_line();
    }
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    if (no_device) {
        cpu_name(prop.name, sizeof prop.name);
    } else {
        int device = 0;
        cudaGetDevice(&device);
        cudaGetDeviceProperties(&prop, device);
    }
    fv_image photo = {0};
    if (o->bench_image && image_load(o->bench_image, &photo) != FV_OK) {
        cli_error("%s", fv_last_error());
        return 1;
    }
    /* --sizes, else the photo as it is, else the default sizes */
    int sizes[CLI_MAX_SIZES][2], n_sizes = 0;
    const int n_default = (int)(sizeof default_sizes / sizeof default_sizes[0]);
    for (; n_sizes < (o->n_sizes ? o->n_sizes : photo.data ? 1 : n_default); n_sizes++) {
        sizes[n_sizes][0] = o->n_sizes   ? o->sizes[n_sizes][0]
                            : photo.data ? photo.width
                                         : default_sizes[n_sizes][0];
        sizes[n_sizes][1] = o->n_sizes   ? o->sizes[n_sizes][1]
                            : photo.data ? photo.height
                                         : default_sizes[n_sizes][1];
    }
    if (o->chart && image_check_output_path(o->chart) != FV_OK) {
        cli_error("--chart: %s", fv_last_error());
        return 1;
    }
    FILE *csv = NULL;
    if (o->csv && !(csv = fopen(o->csv, "w"))) {
        cli_error("cannot write '%s': %s", cli_shown(o->csv), strerror(errno));
        return 1;
    }
    double copy_gbps = -1; /* not measured */
    if (!no_device && bench_copy_bandwidth(BENCH_COPY_BYTES, o->runs, &copy_gbps) != FV_OK) {
        cli_error("%s", fv_last_error());
        if (csv) fclose(csv), remove(o->csv);
        fv_host_image_free(&photo);
        return 1;
    }
    /* the progress line is for a terminal: redirected, it would fill a log with \r lines */
    const int progress = !o->quiet && isatty(STDERR_FILENO);
    char skipped[512] = ""; /* the cells the CPU reference was not run on, over its budget */
    int n_skipped = 0, n_listed = 0;
    if (no_device) {
        if (!o->quiet)
            cli_error("CPU references only: the GPU variants need an NVIDIA GPU and its driver "
                      "(%s)",
                      no_device);
        printf("# filterview benchmark: CPU references on %s, one timed run per cell, seed %u\n",
               prop.name, o->seed);
        printf("# device-to-device copy: - (no CUDA device)\n");
    } else {
        printf("# filterview benchmark: %s (%d SMs, L2 %d MiB), %d timed runs per cell (median), "
               "seed %u\n",
               prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, o->runs, o->seed);
        printf("# device-to-device copy: %.0f GB/s (bytes read + written, 2 x %zu MiB)\n",
               copy_gbps, BENCH_COPY_BYTES >> 20);
    }
    if (o->bench_image)
        printf("# source: %s (%dx%d), resized to each size\n\n", cli_escaped(o->bench_image),
               photo.width, photo.height);
    else
        printf("# source: random %s images (seed %u + size index)\n\n",
               fv_pixel_type_name(o->depth ? (fv_pixel_type)(o->depth - 1) : FV_PIXEL_U8), o->seed);
    /* the variant column fits a user kernel's file name */
    const int variant_width =
        o->user_file && strlen(o->variant->name) > 10 ? (int)strlen(o->variant->name) : 10;
    char dashes[160];
    memset(dashes, '-', sizeof dashes);
    printf(
        "| size       | filter   | parameters             | %-*s |         ms |   Mpix/s |    GB/s | "
        "%% copy | vs base  | |d| base    |\n",
        variant_width, "variant");
    printf(
        "|------------|----------|------------------------|%.*s|-----------:|---------:|--------:|"
        "-------:|---------:|-------------|\n",
        variant_width + 2 < (int)sizeof dashes ? variant_width + 2 : (int)sizeof dashes, dashes);

    bench_table table = {0};
    int failed = 0;
    void *diff_work = NULL;
    if (!no_device && cudaMalloc(&diff_work, fv_diff_work_bytes()) != cudaSuccess) {
        cli_error("cannot allocate the comparison buffer");
        failed = 1;
    }
    double cpu_ms_per_pixel[FV_MAX_FILTERS] = {
        0}; /* per filter: last measured CPU time per pixel */
    const int n_values = o->n_sweep ? o->n_sweep : 1;
    for (int si = 0; si < n_sizes && !failed; si++) {
        const int w = sizes[si][0], h = sizes[si][1];
        const fv_pixel_type type = o->depth ? (fv_pixel_type)(o->depth - 1) : FV_PIXEL_U8;
        size_t bytes = (size_t)w * 4 * fv_pixel_type_bytes(type) * (size_t)h;
        int n_sets = (int)((2 * (size_t)prop.l2CacheSize) / (2 * bytes)) + 1;
        if (n_sets > BENCH_MAX_SETS) n_sets = BENCH_MAX_SETS;
        fv_image host = {0}, reference = {0};
        bench_sets sets = {0};
        char what[64];
        snprintf(what, sizeof what, "benchmark size %dx%d", w, h);
        fv_status st = no_device ? FV_OK : fv_device_check_fits(bytes * (2 * n_sets + 2), what);
        if (st == FV_OK)
            st = fv_host_image_alloc_as(&host, w, h, photo.data ? FV_PIXEL_U8 : type, 4);
        if (st == FV_OK) {
            if (photo.data) {
                resample_bilinear(&photo, &host);
                fv_image typed = {0}; /* the photo's 8 bits widened exactly (v * 257, v / 255) */
                if (type != FV_PIXEL_U8 &&
                    (st = image_convert(&host, type, 4, NULL, &typed, NULL)) == FV_OK) {
                    fv_host_image_free(&host);
                    host = typed;
                }
            } else {
                fv_image_fill_random(&host, o->seed + (unsigned)si);
            }
            if (st == FV_OK && !no_device) st = alloc_sets(&sets, &host, n_sets);
        }
        if (st == FV_OK && !no_device) st = fv_device_image_alloc_as(&reference, w, h, type, 4);
        if (st != FV_OK) {
            cli_error("%s", fv_last_error());
            failed = 1;
        }
        for (int fi = 0; fi < fv_n_filters && !failed; fi++) {
            const fv_filter *f = fv_filters[fi];
            if (o->filter_given && f != o->filter) continue;
            for (int k = 0; k < n_values && !failed; k++) {
                fv_params p;
                if (!sweep_params(o, f, k, &p)) continue;
                /* once per cell, naming the filter, before any variant runs; each runner's
                 * prepare checks again */
                if (fv_params_check(f, &p) != FV_OK) {
                    cli_error("%s: %s", f->name, fv_last_error());
                    failed = 1;
                    break;
                }
                bench_cell cell = {o,         f,         &p, &host,     &sets,
                                   reference, diff_work, -1, copy_gbps, &cpu_ms_per_pixel[fi]};
                /* the baseline first: its output is what every variant is compared with; a
                 * user kernel (-v user=FILE) last, beside every built-in variant of its filter */
                const fv_variant *base = fv_filter_baseline(f);
                const fv_variant *order[65];
                int n_order = 0;
                order[n_order++] = base;
                for (int vi = 0; vi < f->n_variants && n_order < 64; vi++)
                    if (&f->variants[vi] != base) order[n_order++] = &f->variants[vi];
                const int user = o->user_file && f == o->filter;
                if (user) order[n_order++] = o->variant;
                cell.reference.data = NULL;
                for (int oi = 0; oi < n_order && !failed; oi++) {
                    const fv_variant *v = order[oi];
                    /* -v: that variant alone (with a user kernel: all of them, to compare) */
                    if (o->variant_given && !o->user_file && v != o->variant) continue;
                    if (no_device && !fv_variant_is_host(v)) continue;
                    bench_row r;
                    memset(&r, 0, sizeof r);
                    r.width = w;
                    r.height = h;
                    r.filter = f;
                    r.variant = v;
                    r.sweep_index = k;
                    fv_params_describe(f, &p, r.params, sizeof r.params);
                    if (progress)
                        fprintf(stderr, "\r  [%d/%d] %dx%d %s/%s %s ...            ", si + 1,
                                n_sizes, w, h, f->name, v->name, r.params);
                    st = bench_variant(&cell, v, &r);
                    if (progress) fprintf(stderr, "\r%100s\r", "");
                    if (st == FV_ERR_ARG && fv_variant_is_host(v)) { /* CPU over budget: said */
                        const size_t len = strlen(skipped);
                        if (len + 100 < sizeof skipped && ++n_listed)
                            snprintf(skipped + len, sizeof skipped - len, "%s%dx%d %s/%s (%s)",
                                     n_skipped ? ", " : "", w, h, f->name, v->name, r.params);
                        n_skipped++;
                        continue;
                    }
                    if (st == FV_ERR_UNSUPPORTED) { /* a type, border or case it does not run */
                        printf("| %4dx%-5d | %-8s | %-22.22s | %-*s | declines: %s\n", w, h,
                               f->name, r.params, variant_width, v->name, fv_last_error());
                        continue;
                    }
                    if (st != FV_OK) {
                        cli_error("%s/%s: %s", f->name, v->name, fv_last_error());
                        failed = 1;
                        break;
                    }
                    if (v == base) {
                        cell.baseline_ms = r.ms;
                        if (cudaMemcpy2D(reference.data, reference.pitch, sets.dst[0].data,
                                         sets.dst[0].pitch,
                                         (size_t)w * 4 * fv_pixel_type_bytes(type), (size_t)h,
                                         cudaMemcpyDeviceToDevice) == cudaSuccess)
                            cell.reference = reference;
                        r.max_diff = 0;
                    }
                    /* a host clock can read 0 ms for a tiny image: then no rates */
                    const int timed = r.ms > 0;
                    r.mpix_s = timed ? (double)w * h * p.iterations / (r.ms * 1e3) : -1;
                    r.gb_s = timed ? f->traffic_bytes(&p, w, h) * p.iterations / (r.ms * 1e6) : -1;
                    r.share = timed && copy_gbps > 0 ? r.gb_s / copy_gbps : -1;
                    r.speedup = timed && cell.baseline_ms > 0 ? cell.baseline_ms / r.ms : -1;
                    print_row(stdout, &r, 0, variant_width);
                    fflush(stdout);
                    if (table_add(&table, &r) != FV_OK) {
                        cli_error("%s", fv_last_error());
                        failed = 1;
                    }
                }
            }
        }
        free_sets(&sets);
        fv_device_image_free(&reference);
        fv_host_image_free(&host);
    }
    if (diff_work) cudaFree(diff_work);
    fv_host_image_free(&photo);
    if (n_skipped)
        printf("\n# skipped over the %.0f s budget of a CPU cell: %s%s\n",
               BENCH_CPU_BUDGET_MS / 1000, skipped, n_skipped > n_listed ? " and more" : "");
    int notes = 0;
    for (int i = 0; i < table.n; i++) {
        const bench_row *r = &table.rows[i];
        if (!r->note[0]) continue;
        if (!notes++) printf("\n# what the last run of each needed:\n");
        printf("#   %dx%d %s/%s (%s): %s\n", r->width, r->height, r->filter->name, r->variant->name,
               r->params, r->note);
    }
    printf(
        "\n# %d iteration(s) per run; GB/s counts the bytes one pass must read and write (the filter's "
        "traffic model); %% copy = GB/s / copy GB/s; vs base = the baseline variant's time / this one's; "
        "|d| base = largest difference from the baseline's output (share of pixels differing)\n",
        cli_params(o, o->filter)->iterations);
    if (csv) {
        fprintf(csv,
                "size,width,height,filter,parameters,variant,kind,ms,mpix_s,gb_s,share_of_copy,"
                "speedup_vs_baseline,max_diff_vs_baseline,share_differing,kernel_resources\n");
        for (int i = 0; i < table.n; i++) print_row(csv, &table.rows[i], 1, 0);
        if (fclose(csv) != 0 || failed) {
            cli_error("%s not written", cli_shown(o->csv));
            remove(o->csv);
            failed = 1;
        } else {
            if (!o->quiet) printf("# wrote %s\n", cli_escaped(o->csv));
        }
    }
    if (o->chart && !failed) {
        if (bench_chart(o, &table, prop.name, copy_gbps, sizes, n_sizes) == FV_OK) {
            if (!o->quiet) printf("# wrote %s\n", cli_escaped(o->chart));
        } else {
            cli_error("--chart: %s", fv_last_error());
            failed = 1;
        }
    }
    free(table.rows);
    return failed ? 1 : 0;
}
