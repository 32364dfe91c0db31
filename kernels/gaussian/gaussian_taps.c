/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_taps.c: integer Gaussian weights (see gaussian_taps.h for why integers).
 *
 * Exact weights e_k = 256 * g_k / sum(g), g_k = exp(-k^2 / (2 sigma^2)), are rounded by the
 * largest-remainder method while keeping the symmetry w[k] = w[-k]: floor every e_k, then hand
 * the missing units out in pairs to the offsets with the largest remainders, the odd one (and any
 * that remain) to the centre. Computed once on the host; GPU kernels receive these integers.
 * Checked by tests/cpu/test_ref.c: sum 256, symmetric, non-increasing, radius ceil(3 sigma).
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian_taps.h"

#include <math.h>
#include <string.h>

int fv_gaussian_radius(const fv_params *p)
{
    const double sigma = p->value[GAUSSIAN_SIGMA];
    if (p->value[GAUSSIAN_RADIUS] != 0.0) return (int)p->value[GAUSSIAN_RADIUS];
    double want = ceil(3.0 * sigma - 1e-9);
    return want < 1 ? 1 : (want > 1e6 ? 1000000 : (int)want);
}

fv_status fv_gaussian_taps_make(const fv_params *p, fv_gaussian_taps *t)
{
    memset(t, 0, sizeof *t);
    const double sigma = p->value[GAUSSIAN_SIGMA];
    if (!(sigma > 0.0) || !isfinite(sigma))
        return fv_fail(FV_ERR_ARG, "gaussian: sigma must be a number > 0 (got %g)", sigma);
    int r = fv_gaussian_radius(p);
    if (p->value[GAUSSIAN_RADIUS] == 0.0 && r > FV_GAUSSIAN_MAX_RADIUS)
        return fv_fail(FV_ERR_ARG,
                       "gaussian: sigma %g needs radius %d, at most %d is "
                       "supported (sigma <= %.2f)",
                       sigma, r, FV_GAUSSIAN_MAX_RADIUS, FV_GAUSSIAN_MAX_SIGMA);
    if (r < 1 || r > FV_GAUSSIAN_MAX_RADIUS)
        return fv_fail(FV_ERR_ARG, "gaussian: radius must be 1..%d (got %d)",
                       FV_GAUSSIAN_MAX_RADIUS, r);
    t->radius = r;

    double g[FV_GAUSSIAN_MAX_RADIUS + 1], total = 0.0;
    for (int k = 0; k <= r; k++) {
        g[k] = exp(-(double)k * k / (2.0 * sigma * sigma));
        total += (k == 0) ? g[k] : 2.0 * g[k];
    }
    int w[FV_GAUSSIAN_MAX_RADIUS + 1], assigned = 0;
    double rem[FV_GAUSSIAN_MAX_RADIUS + 1];
    for (int k = 0; k <= r; k++) {
        double e = FV_GAUSSIAN_WEIGHT_SUM * g[k] / total;
        w[k] = (int)floor(e);
        rem[k] = e - w[k];
        assigned += (k == 0) ? w[k] : 2 * w[k];
    }
    int missing = FV_GAUSSIAN_WEIGHT_SUM - assigned;
    if (missing % 2) {
        w[0]++;
        missing--;
    }
    while (missing >= 2) {
        int best = 0; /* 0 = none left: the centre takes the rest */
        for (int k = 1; k <= r; k++)
            if (rem[k] >= 0.0 && (best == 0 || rem[k] > rem[best])) best = k;
        if (best == 0) {
            w[0] += missing;
            break;
        }
        w[best]++;
        rem[best] = -1.0;
        missing -= 2;
    }
    for (int k = -r; k <= r; k++) t->w[r + k] = w[k < 0 ? -k : k];
    return FV_OK;
}

fv_status gaussian_check(const fv_params *p)
{
    fv_gaussian_taps t;
    return fv_gaussian_taps_make(p, &t);
}

void gaussian_resolve(fv_params *p)
{
    p->value[GAUSSIAN_RADIUS] = fv_gaussian_radius(p);
}
