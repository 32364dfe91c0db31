/* viewer/modes/bench.h: the benchmark (`filterview --bench`) and the timing helper it shares. */
#ifndef FV_BENCH_H
#define FV_BENCH_H

#include "cli.h"

int bench_main(const cli_options *o);

/* Host clock in ms (CLOCK_MONOTONIC), and the median of n values (sorts v in place). */
double bench_now_ms(void);
double bench_median(double *v, int n);

/* One timed operation on buffer set `set`; returns FV_OK or a failure with its message. */
typedef fv_status (*bench_op_fn)(void *context, int set);

/* Median time in ms of `runs` calls of op (after `warmup` untimed ones), each timed with its
 * own pair of CUDA events on the default stream; sets rotate 0..n_sets-1 so that repeated runs
 * do not just measure the L2 cache. */
fv_status bench_time_op(bench_op_fn op, void *context, int n_sets, int warmup, int runs,
                        double *median_ms);

/* Device-to-device copy bandwidth in GB/s over 2 buffers of `bytes`, counting bytes read plus
 * bytes written (median of `runs`). */
fv_status bench_copy_bandwidth(size_t bytes, int runs, double *gbps);

#endif
