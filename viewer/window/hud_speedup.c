/* ------------------------------------------------------------------------------------------------
 * viewer/window/hud_speedup.c: B against A beyond timing noise (hud_speedup.h). The medians of
 * the two panes' warm frames are compared, and their spread is each pane's interquartile range
 * over its median (quartiles interpolated between the sorted times, as NumPy's default): robust to
 * the odd frame a context switch or a clock change stretches, which a standard deviation is not.
 * ------------------------------------------------------------------------------------------------ */
#include "hud_speedup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void hud_timings_clear(hud_timings *t)
{
    memset(t, 0, sizeof *t);
}

void hud_timings_add(hud_timings *t, double ms)
{
    if (!(ms > 0) || !isfinite(ms)) return;
    if (!t->cold_dropped) { /* the first run after a change: code loading, cold caches */
        t->cold_dropped = 1;
        return;
    }
    t->ms[t->next] = ms;
    t->next = (t->next + 1) % HUD_TIMING_WINDOW;
    if (t->n < HUD_TIMING_WINDOW) t->n++;
}

/* the p-quantile (0..1) of v[0..n), sorted ascending, interpolated between neighbours */
static double quantile(const double *v, int n, double p)
{
    const double h = (n - 1) * p;
    const int i = (int)floor(h);
    return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* median and interquartile range of a ring's times, sorted in a copy on the stack */
static void spread(const hud_timings *t, double *median, double *iqr)
{
    double v[HUD_TIMING_WINDOW];
    const int n = t->n;
    memcpy(v, t->ms, sizeof v[0] * (size_t)n);
    for (int i = 1; i < n; i++) { /* insertion sort: at most 32 values */
        const double x = v[i];
        int j = i;
        for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
    *median = quantile(v, n, 0.5);
    *iqr = quantile(v, n, 0.75) - quantile(v, n, 0.25);
}

hud_speedup hud_speedup_of(const hud_timings *a, const hud_timings *b)
{
    hud_speedup s = {.warm_a = a->n, .warm_b = b->n};
    if (a->n < HUD_TIMING_MIN || b->n < HUD_TIMING_MIN) return s;
    double ma, qa, mb, qb;
    spread(a, &ma, &qa);
    spread(b, &mb, &qb);
    s.known = 1;
    s.ratio = ma / mb;
    s.noise = fmax(HUD_TIMING_FLOOR, fmax(qa / ma, qb / mb));
    s.beyond = s.ratio > 1 + s.noise || s.ratio < 1 / (1 + s.noise);
    return s;
}

void hud_speedup_text(const hud_speedup *s, char *buf, int size)
{
    if (size <= 0) return;
    if (!s->known) {
        const int warm = s->warm_a < s->warm_b ? s->warm_a : s->warm_b;
        snprintf(buf, (size_t)size, "timing A and B: %d of %d warm frames [space]", warm,
                 HUD_TIMING_MIN);
    } else if (s->beyond)
        snprintf(buf, (size_t)size, "B is %.2fx %s than A", s->ratio >= 1 ? s->ratio : 1 / s->ratio,
                 s->ratio >= 1 ? "faster" : "slower");
    else
        snprintf(buf, (size_t)size, "A and B within timing noise (+-%.0f %%)", 100 * s->noise);
}
