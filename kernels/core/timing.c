/* ------------------------------------------------------------------------------------------------
 * kernels/core/timing.c: CUDA-event timers, the host clock, and the warm-up + median-of-N runner
 * (see timing.h). All event timing in filterview goes through here, so that every figure is
 * measured the same way.
 * ------------------------------------------------------------------------------------------------ */
#include "timing.h"

#include <stdlib.h>
#include <time.h>

fv_status fv_timer_create(fv_timer *t)
{
    t->start = t->stop = NULL;
    cudaError_t err = cudaEventCreate(&t->start);
    if (err == cudaSuccess) err = cudaEventCreate(&t->stop);
    if (err != cudaSuccess) {
        fv_timer_destroy(t);
        return fv_fail(FV_ERR_CUDA, "cannot create CUDA events: %s", cudaGetErrorString(err));
    }
    return FV_OK;
}

void fv_timer_destroy(fv_timer *t)
{
    if (t->start) cudaEventDestroy(t->start);
    if (t->stop) cudaEventDestroy(t->stop);
    t->start = t->stop = NULL;
}

void fv_timer_start(fv_timer *t, cudaStream_t stream)
{
    cudaEventRecord(t->start, stream);
}

void fv_timer_stop(fv_timer *t, cudaStream_t stream)
{
    cudaEventRecord(t->stop, stream);
}

cudaError_t fv_timer_wait(const fv_timer *t)
{
    return cudaEventSynchronize(t->stop);
}

int fv_timer_elapsed_ms(const fv_timer *t, double *ms)
{
    float elapsed = 0;
    if (cudaEventElapsedTime(&elapsed, t->start, t->stop) != cudaSuccess) return 0;
    *ms = elapsed;
    return 1;
}

double fv_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double fv_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

fv_status fv_time_median(fv_timed_op op, void *context, int n_sets, int warmup, int runs,
                         double *median_ms)
{
    /* a pair of events per run: every run is recorded before any is read back, so the GPU is
     * never stalled between runs */
    fv_timer *timers = calloc((size_t)runs, sizeof *timers);
    double *ms = calloc((size_t)runs, sizeof *ms);
    fv_status st = (timers && ms) ? FV_OK : fv_fail(FV_ERR_MEMORY, "out of host memory");
    for (int i = 0; st == FV_OK && i < runs; i++)
        if (fv_timer_create(&timers[i]) != FV_OK)
            st = fv_fail(FV_ERR_CUDA, "cudaEventCreate failed");
    for (int i = 0; st == FV_OK && i < warmup; i++) st = op(context, i % n_sets);
    for (int i = 0; st == FV_OK && i < runs; i++) {
        fv_timer_start(&timers[i], 0);
        st = op(context, i % n_sets);
        fv_timer_stop(&timers[i], 0);
    }
    if (st == FV_OK && cudaDeviceSynchronize() != cudaSuccess)
        st = fv_fail(FV_ERR_CUDA, "benchmark run failed: %s",
                     cudaGetErrorString(cudaGetLastError()));
    for (int i = 0; st == FV_OK && i < runs; i++) {
        double t = 0;
        fv_timer_elapsed_ms(&timers[i], &t);
        ms[i] = t;
    }
    if (st == FV_OK) *median_ms = fv_median(ms, runs);
    for (int i = 0; timers && i < runs; i++) fv_timer_destroy(&timers[i]);
    free(timers);
    free(ms);
    return st;
}
