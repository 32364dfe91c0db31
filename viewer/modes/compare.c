/* ------------------------------------------------------------------------------------------------
 * viewer/modes/compare.c: --compare A B: runs two variants (of one filter or of two) over one image
 * and prints their times and how far their outputs differ, byte for byte.
 * ------------------------------------------------------------------------------------------------ */
#include "modes.h"

#include "image_io.h"
#include "run.h"

#include <stdio.h>

int compare_main(const cli_options *o)
{
    const pane_spec *side = o->compare;
    /* said before the image is read; after this, the runner's prepare is the only check */
    for (int k = 0; k < 2; k++)
        if (fv_params_check(side[k].filter, cli_params(o, side[k].filter)) != FV_OK)
            return run_fail_line();
    for (int k = 0; k < 2; k++)
        if (!fv_variant_is_host(side[k].variant) &&
            run_device_check("only the cpu variants run without one") != FV_OK)
            return run_fail_line();
    fv_image src = {0}, out[2] = {{0}, {0}};
    double ms[2] = {0, 0};
    if (image_load(o->input, &src) != FV_OK) return run_fail_line();
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
            describe_params(side[k].filter, cli_params(o, side[k].filter), params[k],
                            sizeof params[k]);
        if (side[0].filter == side[1].filter)
            printf("%s %dx%d (%s): %s %.3f ms, %s %.3f ms; ", side[0].filter->name, src.width,
                   src.height, params[0], side[0].variant->name, ms[0], side[1].variant->name,
                   ms[1]);
        else
            printf("%dx%d: %s/%s (%s) %.3f ms, %s/%s (%s) %.3f ms; ", src.width, src.height,
                   side[0].filter->name, side[0].variant->name, params[0], ms[0],
                   side[1].filter->name, side[1].variant->name, params[1], ms[1]);
        printf("max abs difference %d, %lld of %lld pixels differ\n", d.max_abs, d.n_differing,
               (long long)src.width * src.height);
    }
    fv_host_image_free(&src);
    fv_host_image_free(&out[0]);
    fv_host_image_free(&out[1]);
    return st == FV_OK ? 0 : run_fail_line();
}
