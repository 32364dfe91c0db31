/* ------------------------------------------------------------------------------------------------
 * viewer/modes/compare.c: --compare A B: runs two variants (of one filter or of two) over one image
 * and prints their times and how far their outputs differ, byte for byte. Its exit status is the
 * answer, as cmp's and ImageMagick compare's: 0 identical, 1 different, 2 trouble (any error).
 * With -o FILE it also writes the difference picture: the viewer's heat map (shaders/image.frag)
 * of max |A-B| over R, G and B at the viewer's default gain.
 * ------------------------------------------------------------------------------------------------ */
#include "modes.h"

#include "image_io.h"
#include "run.h"

#include <math.h>
#include <stdio.h>

#define DIFF_GAIN 4.0f /* the viewer's default difference gain (window.c) */

/* shaders/image.frag's heat(): black -> purple -> orange -> yellow-white, t in 0..1 */
static void heat(float t, uint8_t rgb[3])
{
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const float c[3] = {1.6f * t, 1.4f * t * t, 0.65f * sinf(3.1416f * t) + 0.9f * t * t * t * t};
    for (int k = 0; k < 3; k++) {
        const float v = c[k] < 0 ? 0 : c[k] > 1 ? 1 : c[k];
        rgb[k] = (uint8_t)lrintf(v * 255.0f);
    }
}

/* The difference picture of a and b (same size) into d, opaque. */
static void diff_picture(const fv_image *a, const fv_image *b, fv_image *d)
{
    for (int y = 0; y < a->height; y++) {
        const uint8_t *pa = a->data + (size_t)y * a->pitch, *pb = b->data + (size_t)y * b->pitch;
        uint8_t *pd = d->data + (size_t)y * d->pitch;
        for (int x = 0; x < a->width; x++, pa += 4, pb += 4, pd += 4) {
            int m = 0;
            for (int k = 0; k < 3; k++) {
                const int e = pa[k] > pb[k] ? pa[k] - pb[k] : pb[k] - pa[k];
                if (e > m) m = e;
            }
            heat(m / 255.0f * DIFF_GAIN, pd);
            pd[3] = 255;
        }
    }
}

/* A failure of --compare: said in one line, exit 2 (1 means "they differ"). */
static int trouble(void)
{
    run_fail_line();
    return 2;
}

int compare_main(const cli_options *o)
{
    const pane_spec *side = o->compare;
    /* said before the image is read; after this, the runner's prepare is the only check */
    for (int k = 0; k < 2; k++)
        if (fv_params_check(side[k].filter, cli_params(o, side[k].filter)) != FV_OK)
            return trouble();
    for (int k = 0; k < 2; k++)
        if (!fv_variant_is_host(side[k].variant) &&
            run_device_check("only the cpu variants run without one") != FV_OK)
            return trouble();
    if (o->output && image_check_output_path(o->output) != FV_OK) return trouble();
    fv_image src = {0}, out[2] = {{0}, {0}}, diff = {0};
    double ms[2] = {0, 0};
    if (image_load(o->input, &src) != FV_OK) return trouble();
    fv_status st = source_with_noise(o, &src);
    for (int k = 0; k < 2 && st == FV_OK; k++) {
        st = fv_host_image_alloc(&out[k], src.width, src.height);
        if (st == FV_OK)
            st = run_variant_to_host(side[k].filter, side[k].variant, &src, &out[k],
                                     cli_params(o, side[k].filter), &ms[k]);
    }
    fv_diff_stats d = {0};
    if (st == FV_OK) fv_diff_host(&out[0], &out[1], &d);
    if (st == FV_OK && o->output) {
        const image_save_options save = run_save_options(o);
        st = fv_host_image_alloc(&diff, src.width, src.height);
        if (st == FV_OK) {
            diff_picture(&out[0], &out[1], &diff);
            st = image_save(o->output, &diff, &save);
        }
    }
    /* the answer goes to stdout unless the picture does */
    FILE *said = o->output && cli_is_stdio(o->output) ? stderr : stdout;
    if (st == FV_OK && !o->quiet) {
        char params[2][192];
        for (int k = 0; k < 2; k++)
            describe_params(side[k].filter, cli_params(o, side[k].filter), params[k],
                            sizeof params[k]);
        if (side[0].filter == side[1].filter)
            fprintf(said, "%s %dx%d (%s): %s %.3f ms, %s %.3f ms; ", side[0].filter->name,
                    src.width, src.height, params[0], side[0].variant->name, ms[0],
                    side[1].variant->name, ms[1]);
        else
            fprintf(said, "%dx%d: %s/%s (%s) %.3f ms, %s/%s (%s) %.3f ms; ", src.width, src.height,
                    side[0].filter->name, side[0].variant->name, params[0], ms[0],
                    side[1].filter->name, side[1].variant->name, params[1], ms[1]);
        fprintf(said, "max abs difference %d, %lld of %lld pixels differ\n", d.max_abs,
                d.n_differing, (long long)src.width * src.height);
        if (o->output)
            fprintf(said, "wrote %s (max |A-B| over R, G, B as a heat map, gain %g)\n",
                    cli_is_stdio(o->output) ? "standard output" : cli_escaped(o->output),
                    DIFF_GAIN);
    }
    fv_host_image_free(&src);
    fv_host_image_free(&out[0]);
    fv_host_image_free(&out[1]);
    fv_host_image_free(&diff);
    if (st != FV_OK) return trouble();
    return d.n_differing > 0 || d.max_abs > 0 ? 1 : 0;
}
