/* ------------------------------------------------------------------------------------------------
 * viewer/modes/stage_hub.c: the pipeline's hand-overs (see stage_hub.h): three rings of item
 * numbers under one lock, a condition for the CPU threads and one for the GPU thread.
 * ------------------------------------------------------------------------------------------------ */
#include "stage_hub.h"

#include <stdlib.h>

static void ring_push(stage_ring *r, int item)
{
    /* cannot overflow: a ring's capacity is the number of items, and an item is in one place */
    r->at[(r->head + r->count++) % r->cap] = item;
}

static int ring_pop(stage_ring *r)
{
    const int item = r->at[r->head];
    r->head = (r->head + 1) % r->cap;
    r->count--;
    return item;
}

fv_status stage_hub_init(stage_hub *h, int n_items, int n_files)
{
    *h = (stage_hub){.n_items = n_items, .n_files = n_files};
    if (n_items < 1) return fv_fail(FV_ERR_ARG, "a pipeline needs at least one item");
    stage_ring *rings[] = {&h->free_items, &h->to_gpu, &h->to_write};
    for (size_t k = 0; k < sizeof rings / sizeof rings[0]; k++) {
        rings[k]->cap = n_items;
        rings[k]->at = malloc((size_t)n_items * sizeof *rings[k]->at);
        if (!rings[k]->at) {
            stage_hub_destroy(h);
            return fv_fail(FV_ERR_MEMORY, "out of host memory");
        }
    }
    for (int i = 0; i < n_items; i++) ring_push(&h->free_items, i);
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cpu, NULL);
    pthread_cond_init(&h->gpu, NULL);
    return FV_OK;
}

void stage_hub_destroy(stage_hub *h)
{
    if (h->free_items.at && h->to_gpu.at && h->to_write.at) {
        pthread_mutex_destroy(&h->lock);
        pthread_cond_destroy(&h->cpu);
        pthread_cond_destroy(&h->gpu);
    }
    free(h->free_items.at);
    free(h->to_gpu.at);
    free(h->to_write.at);
    *h = (stage_hub){0};
}

stage_task stage_hub_cpu_next(stage_hub *h)
{
    stage_task t = {STAGE_TASK_END, -1, -1};
    pthread_mutex_lock(&h->lock);
    for (;;) {
        if (h->to_write.count) { /* writes first: they free items */
            t = (stage_task){STAGE_TASK_WRITE, ring_pop(&h->to_write), -1};
            break;
        }
        if (h->next_file < h->n_files && h->free_items.count) {
            t = (stage_task){STAGE_TASK_READ, ring_pop(&h->free_items), h->next_file++};
            h->reads_active++;
            break;
        }
        if (h->gpu_finished) break;
        pthread_cond_wait(&h->cpu, &h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    return t;
}

void stage_hub_read_done(stage_hub *h, int item, int ok)
{
    pthread_mutex_lock(&h->lock);
    h->reads_active--;
    if (ok) {
        ring_push(&h->to_gpu, item);
    } else {
        ring_push(&h->free_items, item);
        pthread_cond_signal(&h->cpu);
    }
    /* the GPU threads also wait for the last read to end, handed over or not: all of them */
    pthread_cond_broadcast(&h->gpu);
    pthread_mutex_unlock(&h->lock);
}

void stage_hub_release(stage_hub *h, int item)
{
    pthread_mutex_lock(&h->lock);
    ring_push(&h->free_items, item);
    pthread_cond_signal(&h->cpu);
    pthread_mutex_unlock(&h->lock);
}

int stage_hub_gpu_next(stage_hub *h, int wait, int *end)
{
    int item = -1;
    *end = 0;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        if (h->to_gpu.count) {
            item = ring_pop(&h->to_gpu);
            break;
        }
        if (h->next_file >= h->n_files && h->reads_active == 0) {
            *end = 1;
            break;
        }
        if (!wait) break;
        pthread_cond_wait(&h->gpu, &h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    return item;
}

void stage_hub_to_write(stage_hub *h, int item)
{
    pthread_mutex_lock(&h->lock);
    ring_push(&h->to_write, item);
    pthread_cond_signal(&h->cpu);
    pthread_mutex_unlock(&h->lock);
}

void stage_hub_gpu_finished(stage_hub *h)
{
    pthread_mutex_lock(&h->lock);
    h->gpu_finished = 1;
    pthread_cond_broadcast(&h->cpu);
    pthread_mutex_unlock(&h->lock);
}
