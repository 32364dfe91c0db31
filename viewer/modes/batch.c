/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch.c: -o FILE: loads one image, runs one variant and writes a PNG or JPEG
 * atomically (many files into a folder are batch_many.c's). "-" reads standard input or writes
 * standard output; then the "wrote" line goes to stderr, out of the image's way. All failures end
 * in one line on stderr.
 * ------------------------------------------------------------------------------------------------ */
#include "modes.h"

#include "image_io.h"
#include "run.h"

#include <stdio.h>

int batch_main(const cli_options *o)
{
    const fv_filter *f = o->filter;
    const fv_variant *v = o->variant;
    const fv_params *p = cli_params(o, f);
    /* said before the image is read; after this, the runner's prepare is the only check */
    if (fv_params_check(f, p) != FV_OK) return run_fail_line();
    if (image_check_output_path(o->output) != FV_OK) return run_fail_line();
    if (!fv_variant_is_host(v) && run_device_check("use -v cpu to run the reference") != FV_OK)
        return run_fail_line();
    fv_image src = {0}, dst = {0};
    double ms = 0;
    if (image_load(o->input, &src) != FV_OK) return run_fail_line();
    const image_save_options save = run_save_options(o);
    fv_status st = source_with_noise(o, &src);
    if (st == FV_OK && o->save_source) {
        image_save_options by_name = save; /* --format is -o's; this file's name says its own */
        by_name.format = IMAGE_FORMAT_BY_NAME;
        st = image_save(o->save_source, &src, &by_name);
    }
    if (st == FV_OK) st = fv_host_image_alloc(&dst, src.width, src.height);
    if (st == FV_OK) st = run_variant_to_host(f, v, &src, &dst, p, &ms);
    if (st == FV_OK) st = image_save(o->output, &dst, &save);
    FILE *said = cli_is_stdio(o->output) ? stderr : stdout;
    if (st == FV_OK && !o->quiet) {
        char params[192];
        describe_params(f, p, params, sizeof params);
        char noise[96] = "";
        if (fv_noise_is_on(&o->noise))
            snprintf(noise, sizeof noise, "; source noise %g %%, sigma %g, seed %u",
                     o->noise.density * 100, o->noise.sigma, o->noise.seed);
        fprintf(said, "wrote %s (%dx%d, %s/%s, %s%s) in %.3f ms %s\n",
                cli_is_stdio(o->output) ? "standard output" : cli_escaped(o->output), src.width,
                src.height, f->name, v->name, params, noise, ms,
                fv_variant_is_host(v) ? "on the CPU" : "on the GPU");
        if (o->save_source)
            fprintf(said, "wrote %s (the source the filter saw)\n", cli_escaped(o->save_source));
    }
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
    return st == FV_OK ? 0 : run_fail_line();
}
