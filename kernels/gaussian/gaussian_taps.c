/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_taps.c: integer Gaussian weights (see gaussian_taps.h for why integers).
 *
 * Exact weights e_k = 256 * g_k / sum(g), g_k = exp(-k^2 / (2 sigma^2)), are rounded by the
 * largest-remainder method while keeping the symmetry w[k] = w[-k]: floor every e_k, then hand
 * the missing units out in pairs to the offsets with the largest remainders, the odd one (and any
 * that remain) to the centre. Computed once, at prepare, into the Gaussian's typed configuration
 * (gaussian_config_make, its one check beyond the parameter table's ranges); the reference and
 * the GPU kernels read these integers from it.
 * Checked by tests/cpu/test_ref.c: sum 256, symmetric, non-increasing, radius ceil(3 sigma).
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian_taps.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int fv_gaussian_radius(const fv_params *p)
{
    const double sigma = p->value[GAUSSIAN_SIGMA];
    if (p->value[GAUSSIAN_RADIUS] != 0.0) return (int)p->value[GAUSSIAN_RADIUS];
    double want = ceil(3.0 * sigma - 1e-9);
    return want < 1 ? 1 : (want > 1e6 ? 1000000 : (int)want);
}

int gaussian_config_make(const fv_params *p, void *config, char *why, size_t why_size)
{
    gaussian_config *c = config;
    memset(c, 0, sizeof *c);
    c->sigma = p->value[GAUSSIAN_SIGMA];
    c->radius = fv_gaussian_radius(p);
    /* sigma's range keeps ceil(3 sigma) within the radius's; this says so should either move */
    if (c->radius > FV_GAUSSIAN_MAX_RADIUS) {
        snprintf(why, why_size, "sigma %g needs radius %d, at most %d is supported (sigma <= %.2f)",
                 c->sigma, c->radius, FV_GAUSSIAN_MAX_RADIUS, FV_GAUSSIAN_MAX_SIGMA);
        return 0;
    }
    c->border = (fv_border)(int)p->value[GAUSSIAN_BORDER];
    c->cval = p->value[GAUSSIAN_CVAL];
    c->type = p->type;
    fv_gaussian_taps_fill(c->sigma, c->radius, &c->taps);
    return 1;
}

void fv_gaussian_taps_fill(double sigma, int r, fv_gaussian_taps *t)
{
    memset(t, 0, sizeof *t);
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
}

void gaussian_resolve(fv_params *p)
{
    p->value[GAUSSIAN_RADIUS] = fv_gaussian_radius(p);
}
