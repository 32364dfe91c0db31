/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian_taps.c: integer Gaussian weights (see gaussian_taps.h for why integers).
 *
 * Exact weights e_k = 256 * g_k / sum(g), g_k = exp(-k^2 / (2 sigma^2)), are rounded by the
 * largest-remainder method while keeping the symmetry w[k] = w[-k]: floor every e_k, then hand
 * the missing units out in pairs to the offsets with the largest remainders, the odd one (and any
 * that remain) to the centre. Computed once on the host; GPU kernels receive these integers.
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian_taps.h"

#include <math.h>
#include <string.h>

fv_status fv_gaussian_taps_make(const fv_params *p, fv_gaussian_taps *t)
{
    memset(t, 0, sizeof *t);
    if (!(p->sigma > 0.0f) || !isfinite(p->sigma))
        return fv_fail(FV_ERR_ARG, "gaussian: sigma must be a number > 0 (got %g)", p->sigma);
    int r = p->radius;
    if (r == 0) {
        double want = ceil(3.0 * (double)p->sigma - 1e-9);
        if (want > FV_GAUSSIAN_MAX_RADIUS)
            return fv_fail(FV_ERR_ARG, "gaussian: sigma %g needs radius %.0f, at most %d is "
                           "supported (sigma <= %.2f)", p->sigma, want, FV_GAUSSIAN_MAX_RADIUS,
                           FV_GAUSSIAN_MAX_RADIUS / 3.0);
        r = want < 1 ? 1 : (int)want;
    }
    if (r < 1 || r > FV_GAUSSIAN_MAX_RADIUS)
        return fv_fail(FV_ERR_ARG, "gaussian: radius must be 1..%d (got %d)",
                       FV_GAUSSIAN_MAX_RADIUS, r);
    t->radius = r;

    double g[FV_GAUSSIAN_MAX_RADIUS + 1], total = 0.0;
    for (int k = 0; k <= r; k++) {
        g[k] = exp(-(double)k * k / (2.0 * (double)p->sigma * p->sigma));
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
