/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch.c: -o FILE: loads one image in its own type and channels, runs one variant
 * in that type and writes it back the same way (or as --depth asks), PNG, JPEG, PNM or TIFF,
 * atomically (many files into a folder are batch_many.c's). "-" reads standard input or writes
 * standard output; then the "wrote" line goes to stderr, out of the image's way. All failures end
 * in one line on stderr. With the GPU JPEG codec (--codec gpu|auto, gpu_codec.c) the file is
 * decoded into the GPU and, as a JPEG, encoded there; the "wrote" line says which codec ran.
 * ------------------------------------------------------------------------------------------------ */
#include "modes.h"

#include "gpu_codec.h"
#include "image_io.h"
#include "run.h"

#include <stdio.h>
#include <unistd.h>

/* The "wrote" line: on stdout, or stderr when the image went there. */
static void say_wrote(const cli_options *o, const fv_filter *f, const fv_variant *v,
                      const fv_params *p, int width, int height, double ms,
                      const image_save_report *report, const char *codec)
{
    FILE *said = cli_is_stdio(o->output) ? stderr : stdout;
    char params[192], layout[48];
    describe_params(f, p, params, sizeof params);
    char noise[96] = "";
    if (fv_noise_is_on(&o->noise))
        snprintf(noise, sizeof noise, "; source noise %g %%, sigma %g, seed %u",
                 o->noise.density * 100, o->noise.sigma, o->noise.seed);
    fprintf(said, "wrote %s (%dx%d, %s/%s, %s%s) in %.3f ms %s, as %s %s, %s\n",
            cli_is_stdio(o->output) ? "standard output" : cli_escaped(o->output), width, height,
            f->name, v->name, params, noise, ms,
            fv_variant_is_host(v) ? "on the CPU" : "on the GPU",
            run_layout_name(report->file_type, report->file_channels, layout, sizeof layout),
            report->format, codec);
    if (o->save_source)
        fprintf(said, "wrote %s (the source the filter saw)\n", cli_escaped(o->save_source));
}

/* The GPU JPEG codec's run: the file decoded into the GPU, filtered there and written. */
static int batch_gpu_codec(const cli_options *o, const fv_filter *f, const fv_variant *v,
                           const fv_params *p)
{
    gpu_codec *c = NULL;
    if (gpu_codec_create(o, f, v, p, &c) != FV_OK) return run_fail_line();
    image_save_report report;
    int width = 0, height = 0;
    double ms = 0;
    const fv_status st = gpu_codec_file(c, o->input, o->output, &report, &width, &height, &ms);
    if (st == FV_OK && !o->quiet) {
        char codec[256];
        gpu_codec_describe(c, codec, sizeof codec);
        say_wrote(o, f, v, p, width, height, ms, &report, codec);
    }
    gpu_codec_destroy(c);
    return st == FV_OK ? 0 : run_fail_line();
}

int batch_main(const cli_options *o)
{
    const fv_filter *f = o->filter;
    const fv_variant *v = o->variant;
    fv_params p = *cli_params(o, f);
    /* said before the image is read; after this, the runner's prepare is the only check */
    if (fv_params_check(f, &p) != FV_OK) return run_fail_line();
    if (image_check_output_path(o->output) != FV_OK) return run_fail_line();
    int gpu_jpeg = 0;
    /* auto: a JPEG large enough to pay for the GPU codec's start (one CPU thread decodes it);
     * its header read for auto alone, which is the only choice that weighs it */
    const int jpeg_pays = gpu_codec_is_jpeg_name(o->input) &&
                          (o->codec != CLI_CODEC_AUTO ||
                           gpu_codec_auto_pays(gpu_codec_jpeg_pixels(o->input), 1, 1));
    if (gpu_codec_choose(o, v, jpeg_pays, &gpu_jpeg) != FV_OK)
        return run_fail_line();
    if (gpu_jpeg) return batch_gpu_codec(o, f, v, &p);
    if (!fv_variant_is_host(v) && run_device_check("use -v cpu to run the reference") != FV_OK)
        return run_fail_line();
    fv_image src = {0}, dst = {0};
    run_file file;
    double ms = 0;
    if (run_load_typed(o->input, NULL, &src, &file) != FV_OK) return run_fail_line();
    p.type = file.type; /* the filters run in the file's own type */
    const image_save_options save = run_save_options(o);
    image_save_report report = {0};
    fv_status st = source_with_noise(o, &src);
    if (st == FV_OK && o->save_source) {
        image_save_options by_name = save; /* --format is -o's; this file's name says its own */
        by_name.format = IMAGE_FORMAT_BY_NAME;
        image_save_report source_report;
        st = run_save_typed(o->save_source, &src, &file, o, &by_name, &source_report);
    }
    if (st == FV_OK) st = fv_host_image_alloc_as(&dst, src.width, src.height, src.type, 4);
    /* in tiles when asked, or when the whole image would not fit in the GPU */
    const int tiled =
        o->tile > 0 || (!fv_variant_is_host(v) &&
                        run_check_fits(f, v, &p, src.width, src.height) == FV_ERR_MEMORY &&
                        run_tile_that_fits(f, v, &p, src.width, src.height) > 0);
    FILE *progress = !o->quiet && isatty(STDERR_FILENO) ? stderr : NULL;
    if (st == FV_OK && tiled)
        st = run_variant_tiled(f, v, &src, &dst, &p, o->tile, progress, &ms);
    else if (st == FV_OK)
        st = run_variant_to_host(f, v, &src, &dst, &p, &ms);
    if (st == FV_OK) st = run_save_typed(o->output, &dst, &file, o, &save, &report);
    if (st == FV_OK && !o->quiet)
        say_wrote(o, f, v, &p, src.width, src.height, ms, &report, "codec cpu");
    run_file_free(&file);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
    return st == FV_OK ? 0 : run_fail_line();
}
