/* ------------------------------------------------------------------------------------------------
 * viewer/modes/stage_hub.h: the hand-overs of the folder batch's GPU JPEG pipeline
 * (batch_gpu_jpeg.c), apart from CUDA so that they are tested without a GPU.
 *
 * A fixed number of items (the caller's records: a file's bytes, then its encoded output) go
 * round: free -> read by a CPU thread -> a slot's GPU thread -> written by a CPU thread -> free.
 * The item count bounds the memory whatever the folder's size, and no queue can overflow since it
 * holds at most every item. CPU threads take a write before a read (a write frees an item), so
 * that the GPU threads, which hold an item each at most, always get one more to start: with
 * more items than slots nothing waits on itself. Every call takes the hub's one lock; the end is
 * told to every GPU thread waiting.
 * Tested by tests/cpu/test_stage_hub.c.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_STAGE_HUB_H
#define FV_STAGE_HUB_H

#include "filter.h"

#include <pthread.h>

/* What a CPU thread does next. */
typedef enum stage_task_kind {
    STAGE_TASK_READ,  /* read file `file` into item `item`, then stage_hub_read_done */
    STAGE_TASK_WRITE, /* write item `item`, then stage_hub_release */
    STAGE_TASK_END    /* every file read, the GPU threads finished and every item written */
} stage_task_kind;

typedef struct stage_task {
    stage_task_kind kind;
    int item, file;
} stage_task;

/* A first-in first-out ring of item numbers; it never holds more than the hub's items. */
typedef struct stage_ring {
    int *at;
    int head, count, cap;
} stage_ring;

typedef struct stage_hub {
    pthread_mutex_t lock;
    pthread_cond_t cpu; /* CPU threads: a write, a free item with a file left, or the end */
    pthread_cond_t gpu; /* the GPU threads: an item read, or every file handed over */
    int n_items, n_files;
    stage_ring free_items, to_gpu, to_write;
    int next_file;    /* the next file to read */
    int reads_active; /* reads taken and not yet handed over */
    int gpu_finished; /* stage_hub_gpu_finished was called */
} stage_hub;

/* n_items >= 1; the GPU threads keep fewer in flight than that. */
fv_status stage_hub_init(stage_hub *h, int n_items, int n_files);
void stage_hub_destroy(stage_hub *h);

/* CPU threads: the next task, waiting for one. */
stage_task stage_hub_cpu_next(stage_hub *h);
/* A read is over: `item` goes to the GPU threads (ok), or back to the free items (its file
 * failed, said by the caller). */
void stage_hub_read_done(stage_hub *h, int item, int ok);
/* An item is done with (written, or its file failed on a GPU thread): free again. */
void stage_hub_release(stage_hub *h, int item);

/* A slot's GPU thread: the next item read, in the order the reads finished; with `wait` 0 (the
 * tests' way to look without blocking), -1 at once when none is ready. -1 with *end set: every
 * file has been handed over. */
int stage_hub_gpu_next(stage_hub *h, int wait, int *end);
/* A GPU thread's result for the writers. */
void stage_hub_to_write(stage_hub *h, int item);
/* The GPU threads have handed over their last items: CPU threads end once the writes are done. */
void stage_hub_gpu_finished(stage_hub *h);

#endif
