/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_stage_hub.c: the folder batch pipeline's hand-overs (viewer/modes/stage_hub.c)
 * without a GPU. One thread first: writes taken before reads, reads only while an item is free,
 * the GPU's items in the order their reads finished, a failed read's item free again, the GPU
 * thread told the end only once the last read is over, the CPU threads only once the GPU thread
 * has finished and the writes are done. Then threads: 1 to 8 CPU threads and K slot threads
 * taking an item each at a time (as the pipeline's slots do; each told the end), over 500 files with
 * random failures at read and on the GPU: each file read once, each good one written once, the
 * items never more than made, and the run never stuck (an alarm ends a hung test). Last, the
 * bounding stage of --stats (batch_gpu_jpeg.c): the busiest share of its lanes (CPU threads for
 * read and write, GPU slots for the rest) and the line's words.
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include "batch_gpu_jpeg.h"
#include "stage_hub.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static test_counts t;

static void single_thread(void)
{
    stage_hub h;
    test_check(&t, stage_hub_init(&h, 2, 3) == FV_OK, "init", NULL);
    stage_task a = stage_hub_cpu_next(&h), b = stage_hub_cpu_next(&h);
    test_check(&t,
               a.kind == STAGE_TASK_READ && a.file == 0 && b.kind == STAGE_TASK_READ &&
                   b.file == 1 && a.item != b.item,
               "two reads of files 0 and 1 into two items", NULL);
    int end = 0;
    test_check(&t, stage_hub_gpu_next(&h, 0, &end) == -1 && !end,
               "the GPU thread finds nothing before a read is over", NULL);
    stage_hub_read_done(&h, b.item, 1);
    stage_hub_read_done(&h, a.item, 1);
    test_check(&t, stage_hub_gpu_next(&h, 0, &end) == b.item && !end,
               "the GPU takes the item whose read ended first", NULL);
    test_check(&t, stage_hub_gpu_next(&h, 0, &end) == a.item && !end, "then the other", NULL);
    stage_hub_to_write(&h, a.item);
    stage_hub_release(&h, b.item); /* b's file failed on the GPU */
    stage_task c = stage_hub_cpu_next(&h);
    test_check(&t, c.kind == STAGE_TASK_WRITE && c.item == a.item,
               "a write is taken before the read of file 2", NULL);
    stage_task d = stage_hub_cpu_next(&h);
    test_check(&t, d.kind == STAGE_TASK_READ && d.file == 2 && d.item == b.item,
               "file 2 is read into the item freed", NULL);
    test_check(&t, stage_hub_gpu_next(&h, 0, &end) == -1 && !end,
               "no end for the GPU while a read is going on", NULL);
    stage_hub_read_done(&h, d.item, 0); /* file 2 unreadable */
    test_check(&t, stage_hub_gpu_next(&h, 1, &end) == -1 && end,
               "the end for the GPU once the last read failed", NULL);
    stage_hub_release(&h, c.item);
    stage_hub_gpu_finished(&h);
    test_check(&t, stage_hub_cpu_next(&h).kind == STAGE_TASK_END,
               "the end for the CPU threads once the GPU has finished", NULL);
    test_check(&t, h.free_items.count == 2, "both items free at the end", NULL);
    stage_hub_destroy(&h);
    test_check(&t, stage_hub_init(&h, 0, 3) == FV_ERR_ARG, "no items refused", NULL);
}

#define FILES 500
#define SLOTS 3

typedef struct run {
    stage_hub h;
    uint32_t seed;
    pthread_mutex_t lock; /* the counts below */
    int read[FILES], written[FILES], failed[FILES];
    int item_file[64];
    int in_use, most_in_use;
} run;

static int draw(run *r, int percent)
{
    pthread_mutex_lock(&r->lock);
    const int yes = (int)(test_rand(&r->seed) % 100) < percent;
    pthread_mutex_unlock(&r->lock);
    return yes;
}

static void *cpu_thread(void *arg)
{
    run *r = arg;
    for (;;) {
        stage_task k = stage_hub_cpu_next(&r->h);
        if (k.kind == STAGE_TASK_END) break;
        pthread_mutex_lock(&r->lock);
        if (k.kind == STAGE_TASK_READ) {
            r->read[k.file]++;
            r->item_file[k.item] = k.file;
            if (++r->in_use > r->most_in_use) r->most_in_use = r->in_use;
        } else {
            r->written[r->item_file[k.item]]++;
            r->in_use--;
        }
        pthread_mutex_unlock(&r->lock);
        if (k.kind == STAGE_TASK_WRITE) {
            stage_hub_release(&r->h, k.item);
            continue;
        }
        const int ok = !draw(r, 5);
        if (!ok) {
            pthread_mutex_lock(&r->lock);
            r->failed[k.file]++;
            r->in_use--;
            pthread_mutex_unlock(&r->lock);
        }
        stage_hub_read_done(&r->h, k.item, ok);
    }
    return NULL;
}

/* A slot's thread in batch_gpu_jpeg.c: the next item, waited for, then to the writers (or its
 * file failed on the GPU); until the end, which every slot's thread must be told. */
static void *slot_thread(void *arg)
{
    run *r = arg;
    for (;;) {
        int end = 0;
        const int item = stage_hub_gpu_next(&r->h, 1, &end);
        if (item < 0) break;
        if (draw(r, 5)) {
            pthread_mutex_lock(&r->lock);
            r->failed[r->item_file[item]]++;
            r->in_use--;
            pthread_mutex_unlock(&r->lock);
            stage_hub_release(&r->h, item);
        } else {
            stage_hub_to_write(&r->h, item);
        }
    }
    return NULL;
}

/* Every slot thread waiting when the last read ends is told the end, not one of them. */
static void *waiting_slot(void *arg)
{
    int end = 0;
    const int item = stage_hub_gpu_next(arg, 1, &end);
    return item < 0 && end ? arg : NULL;
}

static void all_slots_told_the_end(void)
{
    stage_hub h;
    stage_hub_init(&h, SLOTS + 1, 1);
    const stage_task k = stage_hub_cpu_next(&h); /* the one file's read, under way */
    pthread_t tid[SLOTS];
    for (int i = 0; i < SLOTS; i++) pthread_create(&tid[i], NULL, waiting_slot, &h);
    usleep(200 * 1000);                 /* each slot thread waits for an item by now */
    stage_hub_read_done(&h, k.item, 0); /* the last read fails: the end, for every slot */
    int told = 0;
    for (int i = 0; i < SLOTS; i++) {
        void *r = NULL;
        pthread_join(tid[i], &r); /* a thread not told waits for ever: the alarm ends the test */
        told += r == &h;
    }
    test_check(&t, told == SLOTS, "every waiting slot thread told the end of the reads", NULL);
    stage_hub_gpu_finished(&h);
    stage_hub_destroy(&h);
}

static void gpu_thread(run *r)
{
    pthread_t tid[SLOTS];
    for (int k = 0; k < SLOTS; k++) pthread_create(&tid[k], NULL, slot_thread, r);
    for (int k = 0; k < SLOTS; k++) pthread_join(tid[k], NULL);
    stage_hub_gpu_finished(&r->h);
}

static void threaded(int threads, uint32_t seed)
{
    static run r;
    memset(&r, 0, sizeof r);
    r.seed = seed;
    pthread_mutex_init(&r.lock, NULL);
    const int items = threads + SLOTS;
    stage_hub_init(&r.h, items, FILES);
    pthread_t tid[8];
    for (int i = 0; i < threads; i++) pthread_create(&tid[i], NULL, cpu_thread, &r);
    gpu_thread(&r);
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    int read_once = 1, written_right = 1;
    for (int f = 0; f < FILES; f++) {
        read_once &= r.read[f] == 1;
        written_right &= r.written[f] + r.failed[f] == 1;
    }
    char detail[96];
    snprintf(detail, sizeof detail, "(%d CPU threads, %d items, at most %d in use)", threads, items,
             r.most_in_use);
    test_check(&t, read_once, "every file read once", detail);
    test_check(&t, written_right, "every file written once or failed once", detail);
    test_check(&t, r.most_in_use <= items && r.in_use == 0, "items bounded and all back", detail);
    test_check(&t, r.h.free_items.count == items, "every item free at the end", detail);
    stage_hub_destroy(&r.h);
    pthread_mutex_destroy(&r.lock);
}

static void bounding_stage(void)
{
    /* 4 CPU threads, 3 GPU slots, 1 s: decode fills 90 % of the slots, read 50 % of the threads */
    batch_gpu_jpeg_result r = {.threads = 4, .slots = 3, .wall_ms = 1000};
    r.busy_ms[BATCH_STAGE_READ] = 2000;
    r.busy_ms[BATCH_STAGE_DECODE] = 2700;
    r.busy_ms[BATCH_STAGE_FILTER] = 100;
    r.busy_ms[BATCH_STAGE_ENCODE] = 1200;
    r.busy_ms[BATCH_STAGE_WRITE] = 400;
    double share = 0;
    batch_stage s = batch_stage_limit(r.busy_ms, r.threads, r.slots, r.wall_ms, &share);
    test_check(&t, s == BATCH_STAGE_DECODE && share > 0.89 && share < 0.91,
               "decode bounds a run that keeps 90 % of the GPU slots on it", NULL);
    char text[256];
    batch_gpu_jpeg_describe_stages(&r, text, sizeof text);
    test_check(&t,
               !strcmp(text, "stages busy: read 2.00 s, decode 2.70 s, filter 0.10 s, encode "
                             "1.20 s, write 0.40 s; bound by decode (90 % of 3 GPU slots)"),
               "the --stats line", text);
    /* the same busy times over one CPU thread: reading is the bound, 200 % of one thread */
    r.threads = 1;
    s = batch_stage_limit(r.busy_ms, r.threads, r.slots, r.wall_ms, &share);
    batch_gpu_jpeg_describe_stages(&r, text, sizeof text);
    test_check(&t, s == BATCH_STAGE_READ && strstr(text, "bound by read (200 % of 1 CPU thread)"),
               "read bounds the run on one CPU thread", text);
    test_check(&t, !strcmp(batch_stage_name(BATCH_STAGE_WRITE), "write"), "the stages' names",
               NULL);
    /* the set-up before the first file, apart, where it was timed */
    r.setup_ms = 420;
    batch_gpu_jpeg_describe_stages(&r, text, sizeof text);
    test_check(&t, strstr(text, "; 0.42 s of set-up before the first file (3 GPU slots)") != NULL,
               "the set-up in the --stats line", text);
    r.setup_context_ms = 120;
    r.setup_first_ms = 250;
    batch_gpu_jpeg_describe_stages(&r, text, sizeof text);
    test_check(&t,
               strstr(text, "; 0.42 s of set-up before the first file (3 GPU slots: CUDA context "
                            "0.12 s, nvJPEG's first codec 0.25 s, the rest 0.05 s)") != NULL,
               "where the set-up went", text);
}

int main(void)
{
    alarm(60); /* a hand-over that waits for ever ends the test here, not in ctest's timeout */
    single_thread();
    all_slots_told_the_end();
    bounding_stage();
    const uint32_t seed = test_seed();
    for (int threads = 1; threads <= 8; threads *= 2) threaded(threads, seed + (uint32_t)threads);
    return test_finish(&t);
}
