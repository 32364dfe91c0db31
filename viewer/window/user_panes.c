/* ------------------------------------------------------------------------------------------------
 * viewer/window/user_panes.c: a pane's own kernel (-a gaussian:user=my_blur.cu), live.
 *
 * At start-up each pane's file is compiled (kernels/user/: NVRTC, cached on disk) and wrapped in
 * an fv_variant that pipeline.c runs like a built-in one. A compile error is said once on stderr
 * and kept for the HUD; the pane shows the original until the file compiles. Then, once a frame,
 * one stat(2) per file (fv_user_source_changed: no allocation) sees a save; the file is compiled
 * again on a worker thread, one job per pane, while frames keep coming, and the result is taken
 * at the start of a frame: the pane's runner is released, the old variant freed (the GPU done
 * with it first) and the new one prepared. A failed compile keeps the last good build running,
 * its error in the HUD until the next save. Before a build goes live it runs once, on a crop of
 * the image, in a process of its own under compute-sanitizer's memcheck (kernel_host_check, on
 * the worker thread after the compile): an error memcheck finds is said and shown as a compile
 * error is, with its line, the thread and the block, and the build does not go live. Where there
 * is no compute-sanitizer that is said once, and builds go live unchecked. The kernels run in a
 * process of their own (kernel_host.h): one that faults or runs past the time limit is turned
 * off, said, and comes back at the next save. Where that process cannot be had, they run in the
 * viewer's, and a fault ends the program with its message (pipeline_fault_said).
 * For tests, --keys <swap-source> copies FILTERVIEW_SWAP_SOURCE's file over the first pane's
 * kernel file (a save, replayed) and <wait-compile> waits for the compile it starts.
 * Floors: calls pipeline.c, modes/kernel_host.c (the checked run) and kernels/user/ only.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"
#include "device.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SWAP_SOURCE_ENV "FILTERVIEW_SWAP_SOURCE"
#define SWAP_MAX_BYTES  (16 << 20)

/* The file's time and size now, as fv_user_source_changed will compare them: taken before a
 * compile reads it, so that a save during the compile is seen afterwards. */
static void seen_now(pane *pn)
{
    fv_user_build *s = &pn->user_seen;
    struct stat st;
    snprintf(s->path, sizeof s->path, "%s", pn->user_file);
    pn->user_missing = stat(pn->user_file, &st) != 0;
    s->mtime = pn->user_missing ? (struct timespec){0, 0} : st.st_mtim;
    s->file_size = pn->user_missing ? -1 : (long long)st.st_size;
}

/* Saved since the last compile (or try); a file that is gone and was gone then is no news. */
static int source_changed(const pane *pn)
{
    if (!fv_user_source_changed(&pn->user_seen)) return 0;
    struct stat st;
    return !pn->user_missing || stat(pn->user_file, &st) == 0;
}

/* What pane p's next build is checked with: where kernels run on a GPU, memcheck was not found
 * missing nor turned off (FILTERVIEW_MEMCHECK=0), on the uint8 RGBA images user kernels run (others turn it off anyway), the
 * pane's parameters and a crop of the image, copied so that the worker reads nothing the frame
 * loop may change. */
static void check_fill(app *a, int p, user_job *j)
{
    fv_host_image_free(&j->check_image);
    j->check = 0;
    j->check_outcome = HOST_DONE;
    j->check_ms = 0;
    const fv_image *src = &a->host_src;
    if (a->memcheck_off || a->memcheck_absent_said || fv_device_unavailable_reason() ||
        !src->data || src->type != FV_PIXEL_U8 || fv_image_channels(src) != 4)
        return;
    const int w = src->width < KERNEL_CHECK_MAX_SIDE ? src->width : KERNEL_CHECK_MAX_SIDE,
              h = src->height < KERNEL_CHECK_HEIGHT ? src->height : KERNEL_CHECK_HEIGHT;
    if (fv_host_image_alloc(&j->check_image, w, h) != FV_OK) return; /* then unchecked */
    for (int y = 0; y < h; y++)
        memcpy(j->check_image.data + (size_t)y * j->check_image.pitch,
               src->data + (size_t)y * src->pitch, (size_t)w * 4);
    const fv_filter *f = a->panes[p].user_filter;
    const int owner = a->linked ? 0 : p;
    j->check_params = a->params[owner][fv_filter_index(f)];
    j->check_limit_s = a->kernel_timeout_s;
    j->check = 1;
}

static void *compile_main(void *arg)
{
    user_job *j = arg;
    j->build = NULL;
    j->message[0] = 0;
    /* default options: the current GPU's architecture, the cache */
    if (fv_user_compile(j->filter, j->path, NULL, &j->build, &j->diag) != FV_OK)
        snprintf(j->message, sizeof j->message, "%s", fv_last_error());
    if (j->build && j->check) {
        j->check_outcome = kernel_host_check(j->build, &j->check_params, &j->check_image,
                                             j->check_limit_s, &j->check_ms);
        if (j->check_outcome != HOST_DONE)
            snprintf(j->message, sizeof j->message, "%s", fv_last_error());
        if (j->check_outcome == HOST_STOPPED) { /* it does not go live */
            fv_user_build_free(j->build);
            j->build = NULL;
        }
    }
    atomic_store_explicit(&j->done, 1, memory_order_release);
    return NULL;
}

static void say_error(app *a, fv_status st)
{
    if (st == FV_OK) return;
    snprintf(a->error, sizeof a->error, "%s", fv_last_error());
    cli_error("%s", a->error);
}

/* A compile's outcome for pane p (and its check's): a new build swapped in, or its error kept
 * for the HUD. */
static void take_result(app *a, int p, user_job *j, int at_start)
{
    pane *pn = &a->panes[p];
    const char *name = pane_user_name(a, p);
    fv_user_build *b = j->build;
    const char *message = j->message;
    j->build = NULL;
    pn->user_status[0] = 0;
    const int found = j->check && j->check_outcome == HOST_STOPPED;
    if (j->check && j->check_outcome == HOST_UNAVAILABLE && !a->memcheck_absent_said) {
        fprintf(stderr, "filterview: %s: your kernels go live unchecked\n", message);
        a->memcheck_absent_said = 1;
    }
    fv_user_variant *u = NULL;
    if (b && fv_user_variant_make(b, &u) != FV_OK) { /* b is freed */
        b = NULL;
        message = fv_last_error();
    }
    if (!b) {
        char text[sizeof pn->user_error];
        snprintf(text, sizeof text, "%s", message);
        if (pn->user && !pn->user_off)
            snprintf(pn->user_error, sizeof pn->user_error,
                     "%c %.100s: %.600s (the last good build runs)", 'A' + p, name, text);
        else
            snprintf(pn->user_error, sizeof pn->user_error, "%c %.100s: %.600s (it runs once %s)",
                     'A' + p, name, text,
                     found ? "its run under memcheck is clean" : "it compiles");
        cli_error("%s", text); /* once per try: the next try is the next save */
        return;
    }
    pn->user_seen.mtime = b->mtime; /* what the compile read */
    pn->user_seen.file_size = b->file_size;
    pn->user_missing = 0;
    if (b->log && b->log[0])
        fprintf(stderr, "%s%s", b->log, b->log[strlen(b->log) - 1] == '\n' ? "" : "\n");
    if (pn->user) {
        const fv_variant *old = fv_user_variant_get(pn->user);
        if (pn->runner.variant == old) fv_runner_release(&pn->runner);
        fv_user_variant_free(pn->user);
    }
    pn->hosted = 0; /* the kernel host gets the new code at the prepare below */
    pn->user = u;
    pn->user_off = 0;
    pn->user_error[0] = 0;
    char how[48] = ", from the cache", checked[64] = "";
    if (!b->from_cache) snprintf(how, sizeof how, ", %.1f s", b->compile_ms / 1000);
    if (j->check && j->check_outcome == HOST_DONE)
        snprintf(checked, sizeof checked, ", memcheck clean in %.2f s", j->check_ms / 1000);
    printf("viewer: %c %s %s (%s%s%s)\n", 'A' + p, cli_escaped(name),
           at_start ? "compiled" : "recompiled", b->arch, how, checked);
    if (at_start) return; /* pipeline_init prepares it */
    snprintf(a->message, sizeof a->message, "%c: %s recompiled%s", 'A' + p, name,
             b->from_cache ? " (from the cache)" : "");
    a->input_changed = 1; /* its runner is made again */
    a->error[0] = 0;
    say_error(a, pipeline_prepare(a));
    a->dirty = 1;
    a->chart.stale = 1;
}

static void start_job(app *a, int p)
{
    pane *pn = &a->panes[p];
    user_job *j = &pn->job;
    seen_now(pn);
    j->filter = pn->user_filter;
    snprintf(j->path, sizeof j->path, "%s", pn->user_file);
    check_fill(a, p, j);
    atomic_store_explicit(&j->done, 0, memory_order_relaxed);
    j->started_ms = fv_now_ms();
    j->running = 1;
    j->threaded = pthread_create(&j->thread, NULL, compile_main, j) == 0;
    if (!j->threaded) compile_main(j); /* no thread to be had: compiled here, the frame waits */
    snprintf(pn->user_status, sizeof pn->user_status, "%c: compiling %s%s ...%s", 'A' + p,
             pane_user_name(a, p), j->check ? " and checking it with memcheck" : "",
             pn->user && !pn->user_off ? " (the last good build runs)" : "");
}

static void finish_job(app *a, int p)
{
    user_job *j = &a->panes[p].job;
    if (j->threaded) pthread_join(j->thread, NULL);
    j->threaded = 0;
    j->running = 0;
    take_result(a, p, j, 0);
}

void user_panes_start(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (!pn->user_file) continue;
        seen_now(pn);
        user_job *j = &pn->job; /* the start's compile and check, here: the first frame waits */
        j->filter = pn->user_filter;
        snprintf(j->path, sizeof j->path, "%s", pn->user_file);
        check_fill(a, p, j);
        compile_main(j);
        take_result(a, p, j, 1);
    }
}

void user_panes_tick(app *a)
{
    if (a->fatal) return; /* said once; the program is ending */
    /* a fault in this process (no kernel host): no GPU to go on with */
    if (a->fault_panes && pipeline_fault_said(a) != FV_OK) {
        snprintf(a->error, sizeof a->error, "%s", fv_last_error());
        cli_error("%s", a->error);
        a->fatal = 1;
        a->quit = 1;
        return;
    }
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (!pn->user_file) continue;
        if (!pn->job.running) {
            if (source_changed(pn)) start_job(a, p);
            continue;
        }
        if (!atomic_load_explicit(&pn->job.done, memory_order_acquire)) continue;
        /* the GPU done with the old build before it goes; a fault it shows is put right (and
         * said) at the next frame boundary, before the new build comes in */
        if (a->results_pending && (a->user_ran & (1 << p))) pipeline_collect(a, 1);
        if (a->fault_panes) return;
        finish_job(a, p);
    }
}

int user_panes_need_frame(app *a)
{
    if (a->fault_panes) return 1;
    for (int p = 0; p < 2; p++) {
        const pane *pn = &a->panes[p];
        if (!pn->user_file) continue;
        if (pn->job.running ? atomic_load_explicit(&pn->job.done, memory_order_acquire)
                            : source_changed(pn))
            return 1;
    }
    return 0;
}

void user_panes_wait(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (!pn->user_file) continue;
        if (!pn->job.running && source_changed(pn)) start_job(a, p);
        if (pn->job.running && pn->job.threaded) {
            pthread_join(pn->job.thread, NULL);
            pn->job.threaded = 0;
        }
    }
    user_panes_tick(a); /* a fault put right first, then what was compiled */
    user_panes_tick(a);
    a->dirty = 1;
}

fv_status user_panes_swap_source(app *a)
{
    const char *from = getenv(SWAP_SOURCE_ENV);
    const int p = a->panes[0].user_file ? 0 : (a->panes[1].user_file ? 1 : -1);
    if (!from || !*from)
        return fv_fail(FV_ERR_ARG, "--keys <swap-source>: %s names no file", SWAP_SOURCE_ENV);
    if (p < 0)
        return fv_fail(FV_ERR_ARG, "--keys <swap-source>: no pane has a kernel file (user=FILE)");
    const char *to = a->panes[p].user_file;
    FILE *in = fopen(from, "rb");
    if (!in) return fv_fail(FV_ERR_IO, "--keys <swap-source>: cannot open '%s'", cli_shown(from));
    char *text = malloc(SWAP_MAX_BYTES);
    const size_t n = text ? fread(text, 1, SWAP_MAX_BYTES, in) : 0;
    const int read_ok = text && !ferror(in) && n < SWAP_MAX_BYTES;
    fclose(in);
    if (!read_ok) {
        free(text);
        return fv_fail(FV_ERR_IO, "--keys <swap-source>: cannot read '%s' (at most %d bytes)",
                       cli_shown(from), SWAP_MAX_BYTES - 1);
    }
    /* a new file renamed over the old one, as editors save: the watched name sees it whole */
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.swap-tmp", to);
    FILE *out = fopen(tmp, "wb");
    int ok = out && fwrite(text, 1, n, out) == n;
    if (out) ok = fclose(out) == 0 && ok;
    free(text);
    if (!ok || rename(tmp, to) != 0) {
        remove(tmp);
        return fv_fail(FV_ERR_IO, "--keys <swap-source>: cannot write '%s'", cli_shown(to));
    }
    printf("viewer: %s copied over %s\n", cli_escaped(from), cli_escaped(to));
    return FV_OK;
}

void user_panes_release(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (pn->job.running && pn->job.threaded) pthread_join(pn->job.thread, NULL);
        pn->job.running = pn->job.threaded = 0;
        fv_user_build_free(pn->job.build);
        pn->job.build = NULL;
        fv_host_image_free(&pn->job.check_image);
        fv_runner_release(&pn->runner); /* before its variant goes */
        fv_user_variant_free(pn->user);
        pn->user = NULL;
    }
}
