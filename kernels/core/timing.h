/* ------------------------------------------------------------------------------------------------
 * kernels/core/timing.h: the one way filterview times things. fv_timer is a pair of CUDA events
 * recorded around work on a stream (made once, reused: nothing is created per frame);
 * fv_time_median is the benchmark's method (warm-up runs, then the median of timed runs, each
 * between its own pair of events); fv_now_ms is the host clock for work on the CPU.
 * Used by the bench, batch, the viewer's panes and its frame stages.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_TIMING_H
#define FV_TIMING_H

#include "filter.h"

typedef struct fv_timer {
    cudaEvent_t start, stop;
} fv_timer;

/* Creates both events; on failure sets "cannot create CUDA events" (and destroys what was made). */
fv_status fv_timer_create(fv_timer *t);
void fv_timer_destroy(fv_timer *t); /* safe on a zeroed or destroyed timer */
void fv_timer_start(fv_timer *t, cudaStream_t stream);
void fv_timer_stop(fv_timer *t, cudaStream_t stream);
/* Waits for the stop event: the error of the work before it, if any. */
cudaError_t fv_timer_wait(const fv_timer *t);
/* Milliseconds from start to stop once both have happened: 1, else 0 and *ms is left alone. */
int fv_timer_elapsed_ms(const fv_timer *t, double *ms);

/* Host clock in ms (CLOCK_MONOTONIC), and the median of n values (sorts v in place). */
double fv_now_ms(void);
double fv_median(double *v, int n);

/* One timed operation on buffer set `set`; returns FV_OK or a failure with its message. */
typedef fv_status (*fv_timed_op)(void *context, int set);

/* Median time in ms of `runs` calls of op (after `warmup` untimed ones), each timed with its own
 * pair of CUDA events on the default stream; sets rotate 0..n_sets-1 so that repeated runs do not
 * just measure the L2 cache. */
fv_status fv_time_median(fv_timed_op op, void *context, int n_sets, int warmup, int runs,
                         double *median_ms);

#endif
