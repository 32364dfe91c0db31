/* ------------------------------------------------------------------------------------------------
 * viewer/modes/host_pinned.h: host memory for the batches' copies to and from the GPU, page-locked
 * where the driver gives it (the copies then run asynchronously at full speed), else plain
 * (correct, slower copies), and freed as it was made. Used by the folder batch's pinned pool
 * (batch_many.c) and the GPU JPEG pipeline's items (batch_gpu_jpeg.c).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_HOST_PINNED_H
#define FV_HOST_PINNED_H

#include "filter.h"

#include <stdlib.h>

/* `bytes` of page-locked memory, *pinned 1; else of plain memory, *pinned 0; NULL: none at all. */
static inline void *host_pinned_alloc(size_t bytes, int *pinned)
{
    void *d = NULL;
    if (cudaHostAlloc(&d, bytes, cudaHostAllocDefault) == cudaSuccess) {
        *pinned = 1;
        return d;
    }
    cudaGetLastError(); /* the refusal is not the next CUDA call's error */
    *pinned = 0;
    return malloc(bytes);
}

/* Frees what host_pinned_alloc gave (NULL: nothing). */
static inline void host_pinned_free(void *data, int pinned)
{
    if (data) pinned ? (void)cudaFreeHost(data) : free(data);
}

#endif
