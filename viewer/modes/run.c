/* ------------------------------------------------------------------------------------------------
 * viewer/modes/run.c: the helpers every windowless mode shares (see run.h): one variant over a host
 * image (through device memory for GPU variants, timed with CUDA events), the source's noise,
 * parameters as words, the device and memory checks of a mode and the one-line failure, and the
 * command line's user kernels: compiled, then run once under memcheck before they run here.
 * ------------------------------------------------------------------------------------------------ */
#include "run.h"

#include "device.h"
#include "kernel_host.h"
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
    const size_t image_bytes = (size_t)w * 4 * fv_pixel_type_bytes(p->type) * (size_t)h;
    return fv_device_check_fits(image_bytes * 2 + fv_runner_device_bytes(f, v, p, w, h), what);
}

/* ---- one variant over a host image, whole or a tile at a time ---- */

/* What a run on the device keeps: buffers for the largest image or tile, the runner, a timer. */
typedef struct tile_device {
    fv_image src, dst;
    fv_runner runner;
    fv_timer timer;
} tile_device;

static fv_status tile_run(tile_device *d, const fv_filter *f, const fv_variant *v,
                          const fv_params *p, const fv_image *in, fv_image *out, double *ms)
{
    FV_TRY(fv_runner_prepare(&d->runner, f, v, p, in->width, in->height));
    if (fv_variant_is_host(v)) {
        const double t0 = fv_now_ms();
        FV_TRY(fv_runner_run(&d->runner, in, out, 0));
        *ms += fv_now_ms() - t0;
        return FV_OK;
    }
    fv_image dsrc = d->src, ddst = d->dst; /* made for the largest tile: a corner of them */
    dsrc.width = ddst.width = in->width;
    dsrc.height = ddst.height = in->height;
    FV_TRY(fv_image_upload(&dsrc, in));
    fv_timer_start(&d->timer, 0);
    FV_TRY(fv_runner_run(&d->runner, &dsrc, &ddst, 0));
    fv_timer_stop(&d->timer, 0);
    if (fv_timer_wait(&d->timer) != cudaSuccess)
        return fv_fail(FV_ERR_CUDA, "filter %s/%s failed: %s", f->name, v->name,
                       cudaGetErrorString(cudaGetLastError()));
    double t = 0;
    fv_timer_elapsed_ms(&d->timer, &t);
    *ms += t;
    return fv_image_download(out, &ddst);
}

/* d's device buffers (for a GPU variant) for images up to w x h, after the device and memory
 * checks a mode makes before anything is allocated */
static fv_status tile_device_make(tile_device *d, const fv_filter *f, const fv_variant *v,
                                  const fv_params *p, int w, int h)
{
    if (fv_variant_is_host(v)) return FV_OK;
    FV_TRY(fv_device_check());
    FV_TRY(run_check_fits(f, v, p, w, h));
    FV_TRY(fv_device_image_alloc_as(&d->src, w, h, p->type, 4));
    FV_TRY(fv_device_image_alloc_as(&d->dst, w, h, p->type, 4));
    return fv_timer_create(&d->timer);
}

static void tile_device_free(tile_device *d)
{
    fv_timer_destroy(&d->timer);
    fv_runner_release(&d->runner);
    fv_device_image_free(&d->src);
    fv_device_image_free(&d->dst);
}

fv_status run_variant_to_host(const fv_filter *f, const fv_variant *v, const fv_image *src,
                              fv_image *dst, const fv_params *p, double *ms)
{
    tile_device d = {0}; /* the whole image as one tile */
    *ms = 0;
    fv_status st = tile_device_make(&d, f, v, p, src->width, src->height);
    if (st == FV_OK) st = tile_run(&d, f, v, p, src, dst, ms);
    tile_device_free(&d);
    return st;
}

/* ---- tiles ---- */

/* The rows and columns [y0, y1) x [x0, x1) of img, as an image that shares its pixels. */
static fv_image image_window(const fv_image *img, int x0, int y0, int x1, int y1)
{
    fv_image w = *img;
    w.data = img->data + (size_t)y0 * img->pitch + (size_t)x0 * fv_image_pixel_bytes(img);
    w.width = x1 - x0;
    w.height = y1 - y0;
    return w;
}

int run_tile_that_fits(const fv_filter *f, const fv_variant *v, const fv_params *p, int w, int h)
{
    const long long reach = fv_filter_reach(f, p);
    if (reach < 0) return 0;
    for (int side = w > h ? w : h; side >= 16; side /= 2) {
        const int tw = (int)(side + 2 * reach < w ? side + 2 * reach : w);
        const int th = (int)(side + 2 * reach < h ? side + 2 * reach : h);
        if (run_check_fits(f, v, p, tw, th) == FV_OK) return side;
    }
    return 0;
}

fv_status run_variant_tiled(const fv_filter *f, const fv_variant *v, const fv_image *src,
                            fv_image *dst, const fv_params *p, int tile, FILE *progress, double *ms)
{
    const long long reach = fv_filter_reach(f, p);
    if (reach < 0)
        return fv_fail(FV_ERR_UNSUPPORTED,
                       "%s with these parameters reads the whole image (no bounded reach): it "
                       "cannot run in tiles",
                       f->name);
    if (fv_params_border(f, p) == FV_BORDER_WRAP)
        return fv_fail(FV_ERR_UNSUPPORTED,
                       "border wrap reads the opposite edge: %s cannot run in tiles with it",
                       f->name);
    const int w = src->width, h = src->height;
    if (!fv_variant_is_host(v)) FV_TRY(fv_device_check());
    if (tile <= 0) tile = run_tile_that_fits(f, v, p, w, h);
    if (tile <= 0) /* not even a 16-pixel tile: what the whole image needs is the message */
        return run_check_fits(f, v, p, w, h);
    const int cols = (w + tile - 1) / tile, rows = (h + tile - 1) / tile;
    /* the largest tile with its halo, clipped to the image */
    const int most_w = (int)(tile + 2 * reach < w ? tile + 2 * reach : w);
    const int most_h = (int)(tile + 2 * reach < h ? tile + 2 * reach : h);
    tile_device d = {0};
    fv_image out = {0};
    fv_status st = fv_host_image_alloc_as(&out, most_w, most_h, p->type, 4);
    if (st == FV_OK) st = tile_device_make(&d, f, v, p, most_w, most_h);
    *ms = 0;
    const size_t px = fv_image_pixel_bytes(src);
    for (int ty = 0; ty < rows && st == FV_OK; ty++)
        for (int tx = 0; tx < cols && st == FV_OK; tx++) {
            const int x0 = tx * tile, y0 = ty * tile;
            const int x1 = x0 + tile < w ? x0 + tile : w, y1 = y0 + tile < h ? y0 + tile : h;
            const int hx0 = (int)(x0 - reach > 0 ? x0 - reach : 0);
            const int hy0 = (int)(y0 - reach > 0 ? y0 - reach : 0);
            const int hx1 = (int)(x1 + reach < w ? x1 + reach : w);
            const int hy1 = (int)(y1 + reach < h ? y1 + reach : h);
            const fv_image in = image_window(src, hx0, hy0, hx1, hy1);
            fv_image result = out;
            result.width = in.width;
            result.height = in.height;
            st = tile_run(&d, f, v, p, &in, &result, ms);
            for (int y = y0; st == FV_OK && y < y1; y++) /* the tile without its halo */
                memcpy(dst->data + (size_t)y * dst->pitch + (size_t)x0 * px,
                       result.data + (size_t)(y - hy0) * result.pitch + (size_t)(x0 - hx0) * px,
                       (size_t)(x1 - x0) * px);
            if (progress)
                fprintf(progress, "\r  tile %d of %d (%d x %d pixels, halo %lld)   ",
                        ty * cols + tx + 1, rows * cols, tile, tile, reach);
        }
    if (progress) fprintf(progress, "\r%70s\r", "");
    tile_device_free(&d);
    fv_host_image_free(&out);
    return st;
}

/* --noise: drawn on the host (the same bytes the GPU would draw), before anything runs */
fv_status source_with_noise(const cli_options *o, fv_image *src)
{
    if (fv_noise_is_on(&o->noise) && src->type != FV_PIXEL_U8)
        return fv_fail(FV_ERR_UNSUPPORTED,
                       "--noise draws 8-bit noise; this image is %s (convert it to 8 bits first)",
                       fv_pixel_type_name(src->type));
    return fv_noise_apply_host(src, &o->noise); /* nothing to do where the noise is off */
}

const char *run_layout_name(fv_pixel_type type, int channels, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s", fv_pixel_type_name(type),
             channels == 1   ? "gray"
             : channels == 3 ? "RGB"
                             : "RGBA");
    return buf;
}

/* The loaded image widened to 4 channels of its own type, and what it was. */
static fv_status run_widen(fv_image *native, const image_allocator *a, fv_image *four,
                           run_file *file)
{
    file->type = native->type;
    file->channels = fv_image_channels(native);
    fv_status st = image_convert(native, native->type, 4, a, four, NULL); /* widening: lossless */
    fv_host_image_free(native);
    if (st != FV_OK) run_file_free(file);
    return st;
}

fv_status run_load_typed_bytes(const char *path, const uint8_t *data, size_t size,
                               const image_allocator *a, fv_image *four, run_file *file)
{
    memset(file, 0, sizeof *file);
    fv_image native = {0};
    FV_TRY(image_load_native_bytes(path, data, size, NULL, &native, &file->info));
    return run_widen(&native, a, four, file);
}

fv_status run_load_typed(const char *path, const image_allocator *a, fv_image *four, run_file *file)
{
    memset(file, 0, sizeof *file);
    fv_image native = {0};
    FV_TRY(image_load_native(path, NULL, &native, &file->info));
    return run_widen(&native, a, four, file);
}

fv_status run_save_typed(const char *path, const fv_image *four, const run_file *file,
                         const cli_options *o, const image_save_options *opt,
                         image_save_report *report)
{
    const fv_pixel_type type = o->depth ? (fv_pixel_type)(o->depth - 1) : file->type;
    fv_image out = {0};
    image_convert_loss loss = {0};
    FV_TRY(image_convert(four, type, file->channels, NULL, &out, &loss));
    image_save_options with_metadata = *opt;
    with_metadata.metadata = &file->info.metadata;
    memset(report, 0, sizeof *report);
    fv_status st = image_save_as(path, &out, &with_metadata, report);
    fv_host_image_free(&out);
    FV_TRY(st);
    if (!o->quiet && loss.depth && !report->lossy) {
        char from[48], to[48], shown[IMAGE_NAME_SHOWN];
        image_printable(path, shown, sizeof shown);
        fprintf(stderr, "filterview: '%s': --depth %s: %s values rounded to %s\n", shown,
                o->depth == 1   ? "8"
                : o->depth == 2 ? "16"
                                : "float",
                run_layout_name(four->type, file->channels, from, sizeof from),
                run_layout_name(type, file->channels, to, sizeof to));
    }
    if (!o->quiet && report->lossy) fprintf(stderr, "filterview: %s\n", report->note);
    return FV_OK;
}

void run_file_free(run_file *file)
{
    image_metadata_free(&file->info.metadata);
    memset(file, 0, sizeof *file);
}

fv_status run_device_check(const char *advice)
{
    const char *why = fv_device_unavailable_reason();
    return why ? fv_fail(FV_ERR_NO_DEVICE, "no CUDA device: %s (%s)", why, advice) : FV_OK;
}

void run_default_variant(cli_options *o)
{
    if (o->variant_given || o->user_file || fv_variant_is_host(o->variant)) return;
    /* --codec gpu asks for the GPU: its absence is that run's one error (gpu_codec_choose) */
    if (o->codec == CLI_CODEC_GPU) return;
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
                                .format = cli_format(o)};
}

int run_fail_line(void)
{
    cli_error("%s", fv_last_error());
    return 1;
}

/* ---- user kernels ---- */

#define RUN_MAX_USER_KERNELS 3 /* -v, and --compare's two sides */
/* The checked run's time limit (KERNEL_CHECK_SLOWDOWN times it under memcheck): the command line
 * has no FILTERVIEW_KERNEL_TIMEOUT of its own, so the viewer's default */
#define RUN_CHECK_LIMIT_S 3.0
#define RUN_CHECK_SEED    1 /* the checked run's random image: the same every time */
static fv_user_variant *user_kernels[RUN_MAX_USER_KERNELS];
static int n_user_kernels;
static int check_absent_said;

/* A new kernel runs once under memcheck, in a process of its own, before this one runs it (where
 * a fault would slow every OpenGL program on the GPU for minutes): on a random image of the
 * checked size, with the command line's parameters. FV_OK: clean, or not checked (no GPU, no
 * compute-sanitizer, said once unless quiet; FILTERVIEW_MEMCHECK=0); else its finding, as a
 * compile error is said. */
static fv_status user_kernel_check(const cli_options *o, const fv_filter *f,
                                   const fv_user_build *build)
{
    const int wanted = kernel_check_wanted();
    if (wanted < 0) return FV_ERR_ARG;
    if (!wanted || fv_device_unavailable_reason()) return FV_OK;
    fv_image image;
    FV_TRY(fv_host_image_alloc(&image, KERNEL_CHECK_MAX_SIDE, KERNEL_CHECK_HEIGHT));
    fv_image_fill_random(&image, RUN_CHECK_SEED);
    fv_params params = o->params[fv_filter_index(f)];
    double ms = 0;
    const kernel_host_outcome out =
        kernel_host_check(build, &params, &image, RUN_CHECK_LIMIT_S, &ms);
    fv_host_image_free(&image);
    if (out == HOST_STOPPED) return FV_ERR_CUDA; /* the finding, in fv_last_error() */
    if (out == HOST_UNAVAILABLE && !o->quiet && !check_absent_said) {
        fprintf(stderr, "filterview: %s: your kernels run unchecked\n", fv_last_error());
        check_absent_said = 1;
    }
    return FV_OK; /* a refusal is the run's to say */
}

static fv_status user_kernel_load(const cli_options *o, const fv_filter *f, const char *path,
                                  const fv_variant **out)
{
    if (n_user_kernels == RUN_MAX_USER_KERNELS)
        return fv_fail(FV_ERR_ARG, "at most %d user kernels", RUN_MAX_USER_KERNELS);
    const fv_user_options options = {0}; /* the device's architecture, the default cache */
    fv_user_build *build = NULL;
    FV_TRY(fv_user_compile(f, path, &options, &build, NULL));
    if (!o->quiet && build->log && *build->log) fputs(build->log, stderr); /* NVRTC's warnings */
    const fv_status checked = user_kernel_check(o, f, build);
    if (checked != FV_OK) {
        fv_user_build_free(build);
        return checked;
    }
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
