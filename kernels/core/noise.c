/* ------------------------------------------------------------------------------------------------
 * kernels/core/noise.c: the host side of source noise (kernels/core/noise.h): the range checks, the
 * integer form both sides draw with, and the CPU application, which runs fv_noise_pixel, the very
 * function the GPU runs (kernels/core/noise.cu). Checked by tests/cpu/test_median_ref.c (determinism,
 * density, alpha kept) and against the device by tests/gpu/test_filters.c.
 * ------------------------------------------------------------------------------------------------ */
#include "noise.h"

#include <math.h>
#include <string.h>

fv_status fv_noise_prepare(const fv_noise *noise, fv_noise_q *q)
{
    memset(q, 0, sizeof *q);
    if (!(noise->density >= 0 && noise->density <= FV_NOISE_MAX_DENSITY))
        return fv_fail(FV_ERR_ARG, "noise: density %g is not in 0..%g", noise->density,
                       FV_NOISE_MAX_DENSITY);
    if (!(noise->sigma >= 0 && noise->sigma <= FV_NOISE_MAX_SIGMA))
        return fv_fail(FV_ERR_ARG, "noise: sigma %g is not in 0..%g", noise->sigma,
                       FV_NOISE_MAX_SIGMA);
    q->threshold = (uint32_t)floor(noise->density * 4294967296.0 + 0.5); /* <= 2^31: no overflow */
    q->scale = (uint32_t)floor(noise->sigma / FV_NOISE_SUM_STD * 4294967296.0 + 0.5);
    q->seed = noise->seed;
    return FV_OK;
}

int fv_noise_is_on(const fv_noise *noise)
{
    return noise->density > 0 || noise->sigma > 0;
}

fv_status fv_noise_apply_host(fv_image *img, const fv_noise *noise)
{
    fv_noise_q q;
    FV_TRY(fv_noise_prepare(noise, &q));
    if (!q.threshold && !q.scale) return FV_OK;
    for (int y = 0; y < img->height; y++) {
        uint8_t *row = img->data + (size_t)y * img->pitch;
        for (int x = 0; x < img->width; x++) {
            uint32_t px;
            memcpy(&px, row + 4 * (size_t)x, 4);
            px = fv_noise_pixel(px, x, y, q);
            memcpy(row + 4 * (size_t)x, &px, 4);
        }
    }
    return FV_OK;
}
