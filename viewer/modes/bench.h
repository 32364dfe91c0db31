/* ------------------------------------------------------------------------------------------------
 * viewer/modes/bench.h: what the benchmark (`filterview --bench`, modes.h) lends the viewer: the
 * device-to-device copy bandwidth, the yardstick of its figures.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BENCH_H
#define FV_BENCH_H

#include "filter.h"

/* Device-to-device copy bandwidth in GB/s over 2 buffers of `bytes`, counting bytes read plus
 * bytes written (median of `runs`). */
fv_status bench_copy_bandwidth(size_t bytes, int runs, double *gbps);

#endif
