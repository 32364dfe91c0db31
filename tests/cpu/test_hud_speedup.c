/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_hud_speedup.c: the HUD's B-against-A decision (viewer/window/hud_speedup.c) on
 * fixed sequences of kernel times: the cold first run left out, nothing said before
 * HUD_TIMING_MIN warm frames, a clear 2x stated, two panes a few per cent apart within the 5 %
 * floor, a small real difference stated when both are steady, a wide spread hiding a difference
 * the medians show, one stretched frame not moving the verdict, the ring keeping only the newest
 * HUD_TIMING_WINDOW, and the text of each case.
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include "hud_speedup.h"

#include <math.h>
#include <string.h>

static test_counts t;

/* a pane's ring after a cold run of 50 ms, then the n times given */
static hud_timings ring(const double *ms, int n)
{
    hud_timings r;
    hud_timings_clear(&r);
    hud_timings_add(&r, 50.0);
    for (int i = 0; i < n; i++) hud_timings_add(&r, ms[i]);
    return r;
}

static void expect_text(const hud_speedup *s, const char *want, const char *what)
{
    char text[96];
    hud_speedup_text(s, text, sizeof text);
    char detail[256];
    snprintf(detail, sizeof detail, "%s: got '%s', want '%s'", what, text, want);
    test_check(&t, strcmp(text, want) == 0, "the HUD's words:", detail);
}

int main(void)
{
    static const double steady1[] = {1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01};
    static const double steady2[] = {0.50, 0.51, 0.49, 0.50, 0.50, 0.51, 0.49, 0.50};
    hud_timings a = ring(steady1, 8), b = ring(steady2, 8);

    /* the cold run is not kept; nor are times that are not positive */
    test_check(&t, a.n == 8, "the first run after a clear is dropped", NULL);
    hud_timings_add(&a, 0);
    hud_timings_add(&a, -1);
    hud_timings_add(&a, NAN);
    test_check(&t, a.n == 8, "times 0, -1 and NaN are not kept", NULL);

    /* B twice as fast, both steady: stated */
    hud_speedup s = hud_speedup_of(&a, &b);
    test_check(&t, s.known && s.beyond && fabs(s.ratio - 2.0) < 1e-9,
               "a steady 2x is beyond the noise", NULL);
    expect_text(&s, "B is 2.00x faster than A", "B twice as fast");
    s = hud_speedup_of(&b, &a);
    expect_text(&s, "B is 2.00x slower than A", "B twice as slow");

    /* too few warm frames in B: nothing stated, the count said */
    hud_timings few = ring(steady2, 2);
    s = hud_speedup_of(&a, &few);
    test_check(&t, !s.known && !s.beyond, "fewer than HUD_TIMING_MIN warm frames: unknown", NULL);
    expect_text(&s, "timing A and B: 2 of 5 warm frames [space]", "two warm frames of B");
    hud_timings empty;
    hud_timings_clear(&empty);
    s = hud_speedup_of(&empty, &empty);
    expect_text(&s, "timing A and B: 0 of 5 warm frames [space]", "nothing timed yet");

    /* the same code timed twice: 3 % apart, steady: within the 5 % floor */
    static const double same_a[] = {1.00, 1.00, 1.01, 1.00, 0.99, 1.00};
    static const double same_b[] = {0.97, 0.97, 0.98, 0.97, 0.96, 0.97};
    a = ring(same_a, 6);
    b = ring(same_b, 6);
    s = hud_speedup_of(&a, &b);
    test_check(&t, s.known && !s.beyond && fabs(s.noise - HUD_TIMING_FLOOR) < 1e-12,
               "3 % apart with steady times: within the floor", NULL);
    expect_text(&s, "A and B within timing noise (+-5 %)", "3 % apart");

    /* 10 % apart, steady: beyond the floor, stated */
    static const double ten_b[] = {0.91, 0.91, 0.92, 0.91, 0.90, 0.91};
    b = ring(ten_b, 6);
    s = hud_speedup_of(&a, &b);
    test_check(&t, s.known && s.beyond, "10 % apart with steady times: stated", NULL);
    expect_text(&s, "B is 1.10x faster than A", "10 % apart");

    /* 30 % apart by the medians, but A's times spread over +-40 %: within its noise */
    static const double wide_a[] = {0.6, 1.4, 0.7, 1.3, 1.0, 0.8, 1.2, 1.0};
    static const double mid_b[] = {0.77, 0.77, 0.77, 0.77, 0.77, 0.77, 0.77, 0.77};
    a = ring(wide_a, 8);
    b = ring(mid_b, 8);
    s = hud_speedup_of(&a, &b);
    test_check(&t, s.known && !s.beyond && s.noise > 0.3,
               "a difference inside one pane's spread is not stated", NULL);
    expect_text(&s, "A and B within timing noise (+-45 %)", "A spread wide");

    /* one frame stretched 20 times (a context switch) leaves a steady 2x stated */
    static const double stretched[] = {1.00, 1.01, 0.99, 20.0, 1.00, 1.02, 0.98, 1.00};
    a = ring(stretched, 8);
    b = ring(steady2, 8);
    s = hud_speedup_of(&a, &b);
    test_check(&t, s.known && s.beyond && fabs(s.ratio - 2.0) < 1e-9,
               "one outlier moves neither the median nor the verdict", NULL);

    /* the ring keeps the newest HUD_TIMING_WINDOW: old fast times go, the slow ones count */
    hud_timings r;
    hud_timings_clear(&r);
    hud_timings_add(&r, 50.0);
    for (int i = 0; i < 100; i++) hud_timings_add(&r, i < 100 - HUD_TIMING_WINDOW ? 0.5 : 1.0);
    b = ring(steady1, 8);
    s = hud_speedup_of(&r, &b);
    test_check(&t, r.n == HUD_TIMING_WINDOW && s.known && !s.beyond && fabs(s.ratio - 1) < 1e-9,
               "a full ring holds the newest times only", NULL);

    /* a clear starts over: the next run is cold again */
    hud_timings_clear(&r);
    hud_timings_add(&r, 1.0);
    test_check(&t, r.n == 0, "after a clear the next run is dropped as cold", NULL);

    return test_finish(&t);
}
