/* ------------------------------------------------------------------------------------------------
 * viewer/window/hud_speedup.h: whether pane B is faster or slower than pane A beyond the timing
 * noise, from each pane's recent warm frames. A single pair of kernel times says little: the
 * first run after a change loads code and fills caches, and two runs of the same kernel differ by
 * several per cent from clocks and scheduling. Each pane keeps its last HUD_TIMING_WINDOW warm
 * times in a fixed ring (no allocation: the frame loop adds to it); the HUD states a speed-up only
 * when the ratio of the medians lies beyond the spread of either pane's times (interquartile range
 * over median) and beyond HUD_TIMING_FLOOR, else that the two are within the noise. Plain C, no
 * GL: tests/cpu/test_hud_speedup.c checks the decision on fixed sequences.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_HUD_SPEEDUP_H
#define FV_HUD_SPEEDUP_H

#define HUD_TIMING_WINDOW 32   /* warm frames kept per pane */
#define HUD_TIMING_MIN    5    /* warm frames each pane needs before anything is stated */
#define HUD_TIMING_FLOOR  0.05 /* the smallest relative noise assumed: 5 % */

/* One pane's recent kernel times in ms. Zero (or hud_timings_clear) is empty. */
typedef struct hud_timings {
    double ms[HUD_TIMING_WINDOW]; /* a ring: the newest at next - 1 */
    int n, next;
    int cold_dropped; /* the first time after a clear, the cold run, was left out */
} hud_timings;

/* Empties t: what the pane runs changed, and its next run is cold again. */
void hud_timings_clear(hud_timings *t);
/* One finished run's time; the first after a clear is dropped (loading, caches), as is any time
 * that is not positive and finite. Overwrites the oldest when full. */
void hud_timings_add(hud_timings *t, double ms);

typedef struct hud_speedup {
    int warm_a, warm_b; /* warm frames each pane holds */
    int known;          /* both hold HUD_TIMING_MIN: ratio and noise are set */
    double ratio;       /* median of A / median of B: above 1, B is faster */
    double noise;       /* relative: the larger interquartile range / median, at least the floor */
    int beyond;         /* the ratio lies outside 1 / (1 + noise) .. 1 + noise */
} hud_speedup;

hud_speedup hud_speedup_of(const hud_timings *a, const hud_timings *b);

/* What the HUD says: "B is 2.00x faster than A", "A and B within timing noise (+-5 %)", or
 * "timing A and B: 2 of 5 warm frames [space]" while there are too few. */
void hud_speedup_text(const hud_speedup *s, char *buf, int size);

#endif
