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
 * its error in the HUD until the next save. The kernels run in a process of their own
 * (kernel_host.h): one that faults or runs past the time limit is turned off, said, and comes
 * back at the next save. Where that process cannot be had, they run in the viewer's, and a
 * fault ends the program with its message (pipeline_fault_said).
 * For tests, --keys <swap-source> copies FILTERVIEW_SWAP_SOURCE's file over the first pane's
 * kernel file (a save, replayed) and <wait-compile> waits for the compile it starts.
 * Floors: calls pipeline.c and kernels/user/ only.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

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

static void *compile_main(void *arg)
{
    user_job *j = arg;
    j->build = NULL;
    j->message[0] = 0;
    /* default options: the current GPU's architecture, the cache */
    if (fv_user_compile(j->filter, j->path, NULL, &j->build, &j->diag) != FV_OK)
        snprintf(j->message, sizeof j->message, "%s", fv_last_error());
    atomic_store_explicit(&j->done, 1, memory_order_release);
    return NULL;
}

static void say_error(app *a, fv_status st)
{
    if (st == FV_OK) return;
    snprintf(a->error, sizeof a->error, "%s", fv_last_error());
    cli_error("%s", a->error);
}

/* A compile's outcome for pane p: a new build swapped in, or its error kept for the HUD. */
static void take_result(app *a, int p, fv_user_build *b, const char *message, int at_start)
{
    pane *pn = &a->panes[p];
    const char *name = pane_user_name(a, p);
    pn->user_status[0] = 0;
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
            snprintf(pn->user_error, sizeof pn->user_error,
                     "%c %.100s: %.600s (it runs once it compiles)", 'A' + p, name, text);
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
    char how[48] = ", from the cache";
    if (!b->from_cache) snprintf(how, sizeof how, ", %.1f s", b->compile_ms / 1000);
    printf("viewer: %c %s %s (%s%s)\n", 'A' + p, cli_escaped(name),
           at_start ? "compiled" : "recompiled", b->arch, how);
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
    atomic_store_explicit(&j->done, 0, memory_order_relaxed);
    j->started_ms = fv_now_ms();
    j->running = 1;
    j->threaded = pthread_create(&j->thread, NULL, compile_main, j) == 0;
    if (!j->threaded) compile_main(j); /* no thread to be had: compiled here, the frame waits */
    snprintf(pn->user_status, sizeof pn->user_status, "%c: compiling %s ...%s", 'A' + p,
             pane_user_name(a, p), pn->user && !pn->user_off ? " (the last good build runs)" : "");
}

static void finish_job(app *a, int p)
{
    user_job *j = &a->panes[p].job;
    if (j->threaded) pthread_join(j->thread, NULL);
    j->threaded = 0;
    j->running = 0;
    fv_user_build *b = j->build;
    j->build = NULL;
    take_result(a, p, b, j->message, 0);
}

void user_panes_start(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (!pn->user_file) continue;
        seen_now(pn);
        fv_user_build *b = NULL;
        char message[sizeof pn->job.message] = "";
        if (fv_user_compile(pn->user_filter, pn->user_file, NULL, &b, NULL) != FV_OK)
            snprintf(message, sizeof message, "%s", fv_last_error());
        take_result(a, p, b, message, 1);
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
        fv_runner_release(&pn->runner); /* before its variant goes */
        fv_user_variant_free(pn->user);
        pn->user = NULL;
    }
}
