/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch_many.c: filtering many files into a folder (-o DIR/ FILES-OR-FOLDERS...).
 *
 * Decoding and encoding run on a pool of CPU threads, one per core. With the cpu variant each
 * thread takes a file through all three steps. With a GPU variant the threads decode into
 * pinned (page-locked) buffers and encode from pinned buffers, while this thread feeds the GPU
 * on two streams: image i+1 is uploaded while image i is filtered and downloaded, so the GPU is
 * never what the files wait for. Tokens bound what is in flight (decoded images waiting for the
 * GPU; filtered ones waiting for an encoder), and the threads take an encode before a new
 * decode, so that memory stays bounded and nothing waits on itself. A failed file is reported
 * in one line and skipped; outputs are written atomically (image_save). On a terminal a
 * progress bar shows files done, images/s and the time left, erased when a signal ends the run.
 * Subfolders are skipped whatever their name (counted in one line), or with --recursive taken and
 * mirrored under the output folder, which is made as needed (mkdir -p); a subfolder that cannot
 * be read (no permission, a path too long) or mirrored is skipped with a line, the others are
 * filtered, and the exit status says 1. An output that is an
 * input is refused before anything runs, unless --in-place lets a file replace its own input.
 * With --dask the named files go to a Dask cluster instead (batch_dask.c). With the GPU JPEG
 * codec (--codec gpu|auto) the files go through batch_gpu_jpeg.c's pipeline (reads, the GPU's
 * decode, filter and encode, and writes overlapped); the summary says which codec ran and how
 * many JPEGs fell back to the CPU codec, the progress bar which stage bounds the run, and
 * --stats adds each stage's busy time.
 * Tested by the CLI batch, folders and originals cases.
 * ------------------------------------------------------------------------------------------------ */
#include "modes.h"

#include "batch_dask.h"
#include "batch_gpu_jpeg.h"
#include "gpu_codec.h"
#include "host_pinned.h"
#include "image_io.h"
#include "run.h"
#include "timing.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_WORKERS          64
#define GPU_SLOTS            2 /* streams: one uploads while the other filters */
#define PROGRESS_INTERVAL_MS 100.0

typedef struct job {
    char *in, *out;
    fv_image src, dst; /* 4 channels of the file's type */
    run_file file;     /* what the file was: its type, channels and metadata, for the output */
    int failed;
} job;

/* pinned host buffers, reused: a token is taken before a buffer is asked for */
typedef struct pinned_pool {
    uint8_t *data[MAX_WORKERS * 2 + 8];
    size_t cap[MAX_WORKERS * 2 + 8];
    int pinned[MAX_WORKERS * 2 + 8];
    int busy[MAX_WORKERS * 2 + 8];
    int n;
    pthread_mutex_t lock;
} pinned_pool;

typedef struct batch_run {
    const cli_options *o;
    const fv_filter *f;
    const fv_variant *v;
    const fv_params *p;
    job *jobs;
    int n_jobs;
    int n_workers;
    int host; /* the cpu variant: workers filter too */
    image_save_options save;
    pthread_mutex_t lock;
    pthread_cond_t work;     /* for workers: an encode, a decode token or the end */
    pthread_cond_t gpu;      /* for the GPU thread: a decoded image, or no more */
    pthread_cond_t out_free; /* for the GPU thread: an output token */
    int next_decode, decodes_done, in_tokens, out_tokens, gpu_done;
    int gpu_queue[4 * MAX_WORKERS + 16], gpu_head, gpu_tail;
    int encode_queue[4 * MAX_WORKERS + 16], enc_head, enc_tail;
    int done, failed;
    int unwritable; /* images left out before the run: their output folder cannot be made */
    double t0, last_draw;
    int tty;
    const char *limit; /* the GPU codec's pipeline: the stage that bounds it so far */
    pinned_pool in_pool, out_pool;
    image_allocator in_alloc;
} batch_run;

/* ---- inputs and outputs ---- */

static int is_image_name(const char *name)
{
    static const char *const endings[] = {".png", ".jpg", ".jpeg", ".ppm", ".pgm",
                                          ".pnm", ".bmp", ".tif",  ".tiff"};
    size_t n = strlen(name);
    for (size_t k = 0; k < sizeof endings / sizeof endings[0]; k++) {
        size_t e = strlen(endings[k]);
        if (n > e && strcasecmp(name + n - e, endings[k]) == 0) return 1;
    }
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    char *s = malloc(n + strlen(name) + 2);
    if (s) sprintf(s, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
    return s;
}

/* Whether the entry e at path is a folder (or a link to one), whatever its name. */
static int is_folder(const char *path, const struct dirent *e)
{
    struct stat st;
    if (e->d_type == DT_DIR) return 1;
    if (e->d_type != DT_UNKNOWN && e->d_type != DT_LNK) return 0;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_link(const char *path, const struct dirent *e)
{
    struct stat st;
    if (e->d_type != DT_UNKNOWN) return e->d_type == DT_LNK;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* What the inputs expand to: each image with the subfolder it lies in below the folder given
 * ("" or "a/b/"), which its output mirrors under -o DIR/. */
typedef struct walk {
    char **path, **sub;
    int n, cap;
    int recursive;
    int skipped;         /* subfolders not taken (without --recursive; with it, links) */
    char *first_skipped; /* the first of them, for the message */
    int unreadable;      /* subfolders that could not be read, each said in a line */
} walk;

static fv_status walk_add(walk *w, char *path, char *sub)
{
    if (path && sub && w->n == w->cap) {
        const int cap = w->cap ? w->cap * 2 : 64;
        char **p = realloc(w->path, (size_t)cap * sizeof *p);
        if (p) w->path = p;
        char **q = p ? realloc(w->sub, (size_t)cap * sizeof *q) : NULL;
        if (q) {
            w->sub = q;
            w->cap = cap;
        }
    }
    if (!path || !sub || w->n == w->cap) {
        free(path);
        free(sub);
        return fv_fail(FV_ERR_MEMORY, "out of host memory");
    }
    w->path[w->n] = path;
    w->sub[w->n++] = sub;
    return FV_OK;
}

static int compare_pair(const void *a, const void *b)
{
    return strcmp(((char *const *)a)[0], ((char *const *)b)[0]);
}

/* A folder's images in name order (hidden ones skipped), then, with --recursive, each subfolder
 * the same way in name order; links to folders are not followed (a loop would never end). */
static fv_status walk_folder(walk *w, const char *dir, const char *sub)
{
    DIR *d = opendir(dir);
    if (!d) {
        char name[IMAGE_NAME_SHOWN];
        image_printable(dir, name, sizeof name);
        if (!sub[0])
            return fv_fail(FV_ERR_IO, "cannot read folder '%s': %s", name, strerror(errno));
        /* one subfolder found on the way: the others are still filtered */
        cli_error("cannot read folder '%s': %s (skipped)", name, strerror(errno));
        w->unreadable++;
        return FV_OK;
    }
    const int first = w->n;
    char **subdirs = NULL;
    int n_sub = 0, cap_sub = 0;
    fv_status s = FV_OK;
    for (struct dirent *e; s == FV_OK && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char *path = join(dir, e->d_name);
        if (!path) {
            s = fv_fail(FV_ERR_MEMORY, "out of host memory");
            break;
        }
        if (is_folder(path, e)) {
            if (w->recursive && !is_link(path, e) && n_sub == cap_sub) {
                cap_sub = cap_sub ? cap_sub * 2 : 16;
                char **grown = realloc(subdirs, (size_t)cap_sub * sizeof *grown);
                if (!grown)
                    s = fv_fail(FV_ERR_MEMORY, "out of host memory");
                else
                    subdirs = grown;
            }
            if (s == FV_OK && w->recursive && !is_link(path, e)) {
                subdirs[n_sub++] = path;
                continue;
            }
            w->skipped++;
            if (!w->first_skipped)
                w->first_skipped = path;
            else
                free(path);
            continue;
        }
        if (!is_image_name(e->d_name)) {
            free(path);
            continue;
        }
        s = walk_add(w, path, strdup(sub));
    }
    closedir(d);
    /* the two arrays sorted together: path and sub side by side in a scratch array of pairs */
    const int n = w->n - first;
    char **pairs = s == FV_OK && n > 1 ? malloc((size_t)n * 2 * sizeof *pairs) : NULL;
    if (pairs) {
        for (int i = 0; i < n; i++) {
            pairs[2 * i] = w->path[first + i];
            pairs[2 * i + 1] = w->sub[first + i];
        }
        qsort(pairs, (size_t)n, 2 * sizeof *pairs, compare_pair);
        for (int i = 0; i < n; i++) {
            w->path[first + i] = pairs[2 * i];
            w->sub[first + i] = pairs[2 * i + 1];
        }
        free(pairs);
    } else if (s == FV_OK && n > 1)
        s = fv_fail(FV_ERR_MEMORY, "out of host memory");
    if (s == FV_OK && n_sub > 1) qsort(subdirs, (size_t)n_sub, sizeof *subdirs, compare_names);
    for (int i = 0; i < n_sub; i++) {
        if (s == FV_OK) {
            const char *name = strrchr(subdirs[i], '/') + 1; /* join() put one there */
            char *deeper = malloc(strlen(sub) + strlen(name) + 2);
            if (!deeper)
                s = fv_fail(FV_ERR_MEMORY, "out of host memory");
            else {
                sprintf(deeper, "%s%s/", sub, name);
                s = walk_folder(w, subdirs[i], deeper);
                free(deeper);
            }
        }
        free(subdirs[i]);
    }
    free(subdirs);
    return s;
}

/* Files given, and each folder's images (see walk_folder). */
static fv_status expand_inputs(const cli_options *o, walk *w)
{
    memset(w, 0, sizeof *w);
    w->recursive = o->recursive;
    fv_status s = FV_OK;
    for (int i = 0; i < o->n_inputs && s == FV_OK; i++) {
        struct stat st;
        if (stat(o->inputs[i], &st) == 0 && S_ISDIR(st.st_mode))
            s = walk_folder(w, o->inputs[i], "");
        else
            s = walk_add(w, strdup(o->inputs[i]), strdup(""));
    }
    return s;
}

static void walk_free(walk *w)
{
    for (int i = 0; i < w->n; i++) {
        free(w->path[i]);
        free(w->sub[i]);
    }
    free(w->path);
    free(w->sub);
    free(w->first_skipped);
}

/* mkdir -p: every missing folder of `path` (which ends in '/' or names a folder) */
static fv_status make_folders(const char *path)
{
    char *p = strdup(path);
    if (!p) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    fv_status s = FV_OK;
    for (char *q = p + 1;; q++) {
        if (*q != '/' && *q != 0) continue;
        const char c = *q;
        *q = 0;
        struct stat st;
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            char name[IMAGE_NAME_SHOWN];
            image_printable(p, name, sizeof name);
            s = fv_fail(FV_ERR_IO, "cannot make folder '%s': %s", name, strerror(errno));
        } else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
            char name[IMAGE_NAME_SHOWN];
            image_printable(p, name, sizeof name);
            s = fv_fail(FV_ERR_IO, "cannot make folder '%s': a file has that name", name);
        }
        *q = c;
        if (s != FV_OK || c == 0) break;
        while (q[1] == '/') q++;
        if (q[1] == 0) break;
    }
    free(p);
    return s;
}

/* OUTDIR/SUB/STEM.png (or .jpg) for every input; two inputs that would write one file are
 * refused. */
/* An output's ending without --format: a TIFF stays TIFF (it may hold float32, which PNG cannot),
 * everything else becomes PNG (8 or 16 bits, gray, RGB or RGBA: what the other inputs hold). */
static const char *ending_for(const char *input)
{
    const size_t n = strlen(input);
    if (n > 4 && !strcasecmp(input + n - 4, ".tif")) return ".tif";
    if (n > 5 && !strcasecmp(input + n - 5, ".tiff")) return ".tiff";
    return ".png";
}

/* ext NULL: each input's ending_for */
static fv_status name_outputs(batch_run *b, const char *dir, const char *const *subs,
                              const char *forced_ext)
{
    for (int i = 0; i < b->n_jobs; i++) {
        const char *ext = forced_ext ? forced_ext : ending_for(b->jobs[i].in);
        const char *base = strrchr(b->jobs[i].in, '/');
        base = base ? base + 1 : b->jobs[i].in;
        const char *dot = strrchr(base, '.');
        size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
        char *name = malloc(strlen(subs[i]) + stem + strlen(ext) + 1);
        if (!name) return fv_fail(FV_ERR_MEMORY, "out of host memory");
        sprintf(name, "%s%.*s%s", subs[i], (int)stem, base, ext);
        b->jobs[i].out = join(dir, name);
        free(name);
        if (!b->jobs[i].out) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    }
    /* sorted copies of the names find duplicates in n log n */
    if (b->n_jobs < 2) return FV_OK;
    char **sorted = malloc((size_t)(unsigned)b->n_jobs * sizeof *sorted);
    if (!sorted) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    for (int i = 0; i < b->n_jobs; i++) sorted[i] = b->jobs[i].out;
    qsort(sorted, (size_t)b->n_jobs, sizeof *sorted, compare_names);
    fv_status s = FV_OK;
    for (int i = 1; i < b->n_jobs && s == FV_OK; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            const char *first = NULL, *second = NULL;
            for (int k = 0; k < b->n_jobs; k++)
                if (strcmp(b->jobs[k].out, sorted[i]) == 0) {
                    if (!first)
                        first = b->jobs[k].in;
                    else if (!second)
                        second = b->jobs[k].in;
                }
            char a[IMAGE_NAME_SHOWN], c[IMAGE_NAME_SHOWN], o[IMAGE_NAME_SHOWN];
            image_printable(first, a, sizeof a);
            image_printable(second, c, sizeof c);
            image_printable(sorted[i], o, sizeof o);
            s = fv_fail(FV_ERR_ARG, "'%s' and '%s' would both be written to '%s': rename one", a, c,
                        o);
        }
    free(sorted);
    return s;
}

/* An input's identity, to find an output that would replace it. */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    int job;
} file_id;

static int compare_ids(const void *a, const void *b)
{
    const file_id *x = a, *y = b;
    if (x->dev != y->dev) return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Never lose an original: an output that is an input (by device and inode, so through links
 * too) is refused, unless --in-place lets a file replace its own input; another file's input is
 * refused even then (it may not have been read yet). */
static fv_status check_originals(batch_run *b)
{
    file_id *ids = malloc((size_t)(b->n_jobs ? b->n_jobs : 1) * sizeof *ids);
    if (!ids) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    int n = 0;
    for (int i = 0; i < b->n_jobs; i++) {
        struct stat st;
        if (stat(b->jobs[i].in, &st) == 0) ids[n++] = (file_id){st.st_dev, st.st_ino, i};
    }
    qsort(ids, (size_t)n, sizeof *ids, compare_ids);
    fv_status s = FV_OK;
    int clashes = 0, first = -1, first_input = -1;
    for (int i = 0; i < b->n_jobs; i++) {
        struct stat st;
        if (stat(b->jobs[i].out, &st) != 0) continue;
        const file_id key = {st.st_dev, st.st_ino, 0};
        const file_id *hit = bsearch(&key, ids, (size_t)n, sizeof *ids, compare_ids);
        if (!hit || (b->o->in_place && hit->job == i)) continue;
        if (!clashes++) {
            first = i;
            first_input = hit->job;
        }
    }
    if (clashes) {
        char out[IMAGE_NAME_SHOWN], in[IMAGE_NAME_SHOWN];
        image_printable(b->jobs[first].out, out, sizeof out);
        image_printable(b->jobs[first_input].in, in, sizeof in);
        if (first_input != first)
            s = fv_fail(FV_ERR_ARG,
                        "-o: '%s' would replace the input '%s' before it is read: "
                        "give another folder",
                        out, in);
        else if (clashes == 1)
            s = fv_fail(FV_ERR_ARG,
                        "-o: '%s' would replace the input '%s': give another folder, "
                        "or --in-place to replace it",
                        out, in);
        else
            s = fv_fail(FV_ERR_ARG,
                        "-o: %d outputs would replace their inputs ('%s' the "
                        "first): give another folder, or --in-place to replace them",
                        clashes, in);
    }
    free(ids);
    return s;
}

/* ---- progress ---- */

static void progress_draw(batch_run *b, int final)
{
    if (!b->tty) return;
    double t = fv_now_ms();
    if (!final && t - b->last_draw < PROGRESS_INTERVAL_MS) return;
    b->last_draw = t;
    if (final) {
        fprintf(stderr, "\r\033[K");
        return;
    }
    const double s = (t - b->t0) / 1000.0, rate = s > 0 ? b->done / s : 0;
    const int width = 30, filled = b->n_jobs ? b->done * width / b->n_jobs : width;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '.';
    bar[width] = 0;
    char eta[32] = "--:--";
    if (rate > 0) {
        long left = (long)((b->n_jobs - b->done) / rate + 0.5);
        snprintf(eta, sizeof eta, "%ld:%02ld", left / 60, left % 60);
    }
    fprintf(stderr, "\r[%s] %d/%d  %.1f images/s  ETA %s%s%s\033[K", bar, b->done, b->n_jobs, rate,
            eta, b->limit ? "  bound by " : "", b->limit ? b->limit : "");
    fflush(stderr);
}

/* Ctrl-C (or another signal that ends the run) while the bar is drawn: the line is erased, then
 * the signal goes on to what handled it before (image_io.c's, which removes the temporary files
 * and ends the process). Only async-signal-safe calls here. */
static const int progress_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction progress_old[sizeof progress_signals / sizeof progress_signals[0]];

static void progress_signal(int sig)
{
    static const char erase[] = "\r\033[K";
    ssize_t ignored = write(STDERR_FILENO, erase, sizeof erase - 1);
    (void)ignored;
    for (size_t k = 0; k < sizeof progress_signals / sizeof progress_signals[0]; k++)
        if (progress_signals[k] == sig) sigaction(sig, &progress_old[k], NULL);
    raise(sig); /* blocked until this returns, then delivered to the handler restored */
}

/* install (on) or restore (off) the handlers, leaving ignored signals ignored (nohup) */
static void progress_signals_take(int on)
{
    for (size_t k = 0; k < sizeof progress_signals / sizeof progress_signals[0]; k++) {
        if (!on) {
            sigaction(progress_signals[k], &progress_old[k], NULL);
            continue;
        }
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = progress_signal;
        sigfillset(&sa.sa_mask);
        if (sigaction(progress_signals[k], NULL, &progress_old[k]) == 0 &&
            !(progress_old[k].sa_flags & SA_SIGINFO) && progress_old[k].sa_handler != SIG_IGN)
            sigaction(progress_signals[k], &sa, NULL);
    }
}

/* Called with b->lock held when job i is finished (written or failed). */
static void job_finished(batch_run *b, int i, const char *error)
{
    run_file_free(&b->jobs[i].file); /* what the output needed of the input is written by now */
    b->done++;
    if (error) {
        b->failed++;
        b->jobs[i].failed = 1;
        if (b->tty) fprintf(stderr, "\r\033[K");
        cli_error("%s (skipped)", error);
        b->last_draw = 0;
    }
    progress_draw(b, 0);
}

/* ---- pinned buffers ---- */

static uint8_t *pool_alloc(void *context, size_t bytes)
{
    pinned_pool *p = context;
    pthread_mutex_lock(&p->lock);
    int pick = -1;
    for (int i = 0; i < p->n; i++)
        if (!p->busy[i] && p->cap[i] >= bytes && (pick < 0 || p->cap[i] < p->cap[pick])) pick = i;
    if (pick < 0)
        for (int i = 0; i < p->n && pick < 0; i++)
            if (!p->busy[i]) pick = i;
    if (pick < 0 && p->n < (int)(sizeof p->data / sizeof p->data[0])) pick = p->n++;
    if (pick >= 0) p->busy[pick] = 1;
    pthread_mutex_unlock(&p->lock);
    if (pick < 0) return NULL;
    if (p->cap[pick] < bytes) {
        host_pinned_free(p->data[pick], p->pinned[pick]);
        p->data[pick] = NULL;
        p->cap[pick] = 0;
        void *d = host_pinned_alloc(bytes, &p->pinned[pick]);
        if (!d) {
            pthread_mutex_lock(&p->lock);
            p->busy[pick] = 0;
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        p->data[pick] = d;
        p->cap[pick] = bytes;
    }
    return p->data[pick];
}

static void pool_release(void *context, uint8_t *data)
{
    pinned_pool *p = context;
    pthread_mutex_lock(&p->lock);
    for (int i = 0; i < p->n; i++)
        if (p->data[i] == data) p->busy[i] = 0;
    pthread_mutex_unlock(&p->lock);
}

static void pool_destroy(pinned_pool *p)
{
    for (int i = 0; i < p->n; i++)
        host_pinned_free(p->data[i], p->pinned[i]);
    pthread_mutex_destroy(&p->lock);
}

/* ---- the workers ---- */

static void release_image(const image_allocator *a, fv_image *img)
{
    if (!img->data) return;
    if (a)
        a->release(a->context, img->data);
    else
        fv_host_image_free(img);
    memset(img, 0, sizeof *img);
}

/* The cpu variant: one thread takes a file from decode to encode. */
static void *host_worker(void *arg)
{
    batch_run *b = arg;
    fv_runner runner = {0};
    for (;;) {
        pthread_mutex_lock(&b->lock);
        int i = b->next_decode < b->n_jobs ? b->next_decode++ : -1;
        pthread_mutex_unlock(&b->lock);
        if (i < 0) break;
        job *j = &b->jobs[i];
        fv_params p = *b->p;
        image_save_report report;
        fv_status s = run_load_typed(j->in, NULL, &j->src, &j->file);
        if (s == FV_OK) s = source_with_noise(b->o, &j->src);
        p.type = j->src.type;
        if (s == FV_OK)
            s = fv_host_image_alloc_as(&j->dst, j->src.width, j->src.height, j->src.type, 4);
        if (s == FV_OK) s = fv_runner_prepare(&runner, b->f, b->v, &p, j->src.width, j->src.height);
        if (s == FV_OK) s = fv_runner_run(&runner, &j->src, &j->dst, 0);
        release_image(NULL, &j->src);
        if (s == FV_OK) s = run_save_typed(j->out, &j->dst, &j->file, b->o, &b->save, &report);
        release_image(NULL, &j->dst);
        run_file_free(&j->file);
        pthread_mutex_lock(&b->lock);
        job_finished(b, i, s == FV_OK ? NULL : fv_last_error());
        pthread_mutex_unlock(&b->lock);
    }
    fv_runner_release(&runner);
    return NULL;
}

/* A GPU variant: the threads decode and encode; the GPU thread filters. */
static void *device_worker(void *arg)
{
    batch_run *b = arg;
    const image_allocator out_alloc = {pool_alloc, pool_release, &b->out_pool};
    pthread_mutex_lock(&b->lock);
    for (;;) {
        if (b->enc_head != b->enc_tail) { /* encodes first: they free buffers */
            int i = b->encode_queue[b->enc_head++ % (int)(sizeof b->encode_queue / sizeof(int))];
            pthread_mutex_unlock(&b->lock);
            image_save_report report;
            fv_status s = run_save_typed(b->jobs[i].out, &b->jobs[i].dst, &b->jobs[i].file, b->o,
                                         &b->save, &report);
            release_image(&out_alloc, &b->jobs[i].dst);
            run_file_free(&b->jobs[i].file);
            pthread_mutex_lock(&b->lock);
            b->out_tokens++;
            pthread_cond_signal(&b->out_free);
            job_finished(b, i, s == FV_OK ? NULL : fv_last_error());
            continue;
        }
        if (b->next_decode < b->n_jobs && b->in_tokens > 0) {
            int i = b->next_decode++;
            b->in_tokens--;
            pthread_mutex_unlock(&b->lock);
            fv_status s =
                run_load_typed(b->jobs[i].in, &b->in_alloc, &b->jobs[i].src, &b->jobs[i].file);
            if (s == FV_OK && (s = source_with_noise(b->o, &b->jobs[i].src)) != FV_OK)
                release_image(&b->in_alloc, &b->jobs[i].src);
            pthread_mutex_lock(&b->lock);
            if (s == FV_OK) {
                b->gpu_queue[b->gpu_tail++ % (int)(sizeof b->gpu_queue / sizeof(int))] = i;
            } else {
                b->in_tokens++;
                job_finished(b, i, fv_last_error());
            }
            b->decodes_done++;
            pthread_cond_signal(&b->gpu);
            continue;
        }
        if (b->next_decode >= b->n_jobs && b->gpu_done) break;
        pthread_cond_wait(&b->work, &b->lock);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- the GPU thread ---- */

typedef struct gpu_slot {
    cudaStream_t stream;
    cudaEvent_t done;
    fv_image d_src, d_dst;
    fv_runner runner;
    int job; /* in flight here; -1: none */
} gpu_slot;

static fv_status slot_ensure_size(batch_run *b, gpu_slot *g, const fv_params *p, int w, int h)
{
    if (g->d_src.data && g->d_src.width == w && g->d_src.height == h && g->d_src.type == p->type)
        return FV_OK;
    fv_device_image_free(&g->d_src);
    fv_device_image_free(&g->d_dst);
    FV_TRY(run_check_fits(b->f, b->v, p, w, h));
    FV_TRY(fv_device_image_alloc_as(&g->d_src, w, h, p->type, 4));
    return fv_device_image_alloc_as(&g->d_dst, w, h, p->type, 4);
}

/* Waits for the slot's image and hands it to the encoders. */
static void slot_finish(batch_run *b, gpu_slot *g)
{
    if (g->job < 0) return;
    job *j = &b->jobs[g->job];
    const image_allocator out_alloc = {pool_alloc, pool_release, &b->out_pool};
    cudaError_t e = cudaEventSynchronize(g->done);
    release_image(&b->in_alloc, &j->src);
    pthread_mutex_lock(&b->lock);
    b->in_tokens++;
    if (e == cudaSuccess) {
        b->encode_queue[b->enc_tail++ % (int)(sizeof b->encode_queue / sizeof(int))] = g->job;
    } else {
        char name[IMAGE_NAME_SHOWN];
        image_printable(j->in, name, sizeof name);
        fv_fail(FV_ERR_CUDA, "filter %s/%s failed on '%s': %s", b->f->name, b->v->name, name,
                cudaGetErrorString(e));
        release_image(&out_alloc, &j->dst);
        b->out_tokens++;
        job_finished(b, g->job, fv_last_error());
    }
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    g->job = -1;
}

static fv_status slot_start(batch_run *b, gpu_slot *g, int i)
{
    job *j = &b->jobs[i];
    const image_allocator out_alloc = {pool_alloc, pool_release, &b->out_pool};
    const int w = j->src.width, h = j->src.height;
    fv_params p = *b->p;
    p.type = j->src.type; /* each file in its own type */
    const size_t row = (size_t)w * 4 * fv_pixel_type_bytes(p.type);
    FV_TRY(slot_ensure_size(b, g, &p, w, h));
    FV_TRY(fv_runner_prepare(&g->runner, b->f, b->v, &p, w, h));
    j->dst.data = pool_alloc(&b->out_pool, row * (size_t)h);
    if (!j->dst.data) return fv_fail(FV_ERR_MEMORY, "out of host memory for a %dx%d image", w, h);
    j->dst.width = w;
    j->dst.height = h;
    j->dst.pitch = row;
    j->dst.type = p.type;
    j->dst.channels = 4;
    fv_status s = FV_OK;
    char name[IMAGE_NAME_SHOWN];
    image_printable(j->in, name, sizeof name);
    if (cudaMemcpy2DAsync(g->d_src.data, g->d_src.pitch, j->src.data, j->src.pitch, row, (size_t)h,
                          cudaMemcpyHostToDevice, g->stream) != cudaSuccess)
        s = fv_fail(FV_ERR_CUDA, "upload of '%s' failed: %s", name,
                    cudaGetErrorString(cudaGetLastError()));
    if (s == FV_OK) s = fv_runner_run(&g->runner, &g->d_src, &g->d_dst, g->stream);
    if (s == FV_OK &&
        cudaMemcpy2DAsync(j->dst.data, j->dst.pitch, g->d_dst.data, g->d_dst.pitch, row, (size_t)h,
                          cudaMemcpyDeviceToHost, g->stream) != cudaSuccess)
        s = fv_fail(FV_ERR_CUDA, "download of '%s' failed: %s", name,
                    cudaGetErrorString(cudaGetLastError()));
    if (s == FV_OK && cudaEventRecord(g->done, g->stream) != cudaSuccess)
        s = fv_fail(FV_ERR_CUDA, "cannot record a CUDA event: %s",
                    cudaGetErrorString(cudaGetLastError()));
    if (s != FV_OK) {
        cudaStreamSynchronize(g->stream); /* nothing may still write the buffers we give back */
        release_image(&out_alloc, &j->dst);
    }
    return s;
}

static void gpu_loop(batch_run *b)
{
    gpu_slot slot[GPU_SLOTS];
    memset(slot, 0, sizeof slot);
    fv_status setup = FV_OK;
    for (int k = 0; k < GPU_SLOTS; k++) {
        slot[k].job = -1;
        if (cudaStreamCreateWithFlags(&slot[k].stream, cudaStreamNonBlocking) != cudaSuccess ||
            cudaEventCreateWithFlags(&slot[k].done, cudaEventDisableTiming) != cudaSuccess)
            setup = fv_fail(FV_ERR_CUDA, "cannot create CUDA streams: %s",
                            cudaGetErrorString(cudaGetLastError()));
    }
    for (int k = 0;; k = (k + 1) % GPU_SLOTS) {
        pthread_mutex_lock(&b->lock);
        while (b->gpu_head == b->gpu_tail && b->decodes_done < b->n_jobs) {
            /* nothing to start: hand what the GPU holds to the encoders rather than let it wait */
            int busy = 0;
            for (int q = 0; q < GPU_SLOTS; q++) busy |= slot[q].job >= 0;
            if (busy) {
                pthread_mutex_unlock(&b->lock);
                for (int q = 0; q < GPU_SLOTS; q++) slot_finish(b, &slot[q]);
                pthread_mutex_lock(&b->lock);
                continue;
            }
            pthread_cond_wait(&b->gpu, &b->lock);
        }
        if (b->gpu_head == b->gpu_tail) {
            pthread_mutex_unlock(&b->lock);
            break;
        }
        int i = b->gpu_queue[b->gpu_head++ % (int)(sizeof b->gpu_queue / sizeof(int))];
        pthread_mutex_unlock(&b->lock);
        slot_finish(b, &slot[k]); /* this slot's previous image, which the stream has long done */
        pthread_mutex_lock(&b->lock);
        while (b->out_tokens == 0) pthread_cond_wait(&b->out_free, &b->lock);
        b->out_tokens--;
        pthread_mutex_unlock(&b->lock);
        fv_status s = setup != FV_OK ? setup : slot_start(b, &slot[k], i);
        if (s == FV_OK) {
            slot[k].job = i;
            continue;
        }
        char message[600];
        snprintf(message, sizeof message, "%s", fv_last_error());
        release_image(&b->in_alloc, &b->jobs[i].src);
        pthread_mutex_lock(&b->lock);
        b->in_tokens++;
        b->out_tokens++;
        job_finished(b, i, message);
        pthread_cond_broadcast(&b->work);
        pthread_mutex_unlock(&b->lock);
    }
    for (int k = 0; k < GPU_SLOTS; k++) slot_finish(b, &slot[k]);
    pthread_mutex_lock(&b->lock);
    b->gpu_done = 1;
    pthread_cond_broadcast(&b->work);
    pthread_mutex_unlock(&b->lock);
    for (int k = 0; k < GPU_SLOTS; k++) {
        fv_runner_release(&slot[k].runner);
        fv_device_image_free(&slot[k].d_src);
        fv_device_image_free(&slot[k].d_dst);
        if (slot[k].stream) cudaStreamDestroy(slot[k].stream);
        if (slot[k].done) cudaEventDestroy(slot[k].done);
    }
}

/* ---- the GPU JPEG codec's pipeline ---- */

/* batch_gpu_jpeg_run's report of a file */
static void gpu_jpeg_file_done(void *context, int file, const char *error, const char *limit)
{
    batch_run *b = context;
    pthread_mutex_lock(&b->lock);
    b->limit = limit;
    job_finished(b, file, error);
    pthread_mutex_unlock(&b->lock);
}

static fv_status gpu_jpeg_run(batch_run *b, batch_gpu_jpeg_result *result)
{
    char **in = malloc((size_t)b->n_jobs * sizeof *in),
         **out = malloc((size_t)b->n_jobs * sizeof *out);
    fv_status s = in && out ? FV_OK : fv_fail(FV_ERR_MEMORY, "out of host memory");
    for (int i = 0; s == FV_OK && i < b->n_jobs; i++)
        in[i] = b->jobs[i].in, out[i] = b->jobs[i].out;
    if (s == FV_OK)
        s = batch_gpu_jpeg_run(b->o, b->f, b->v, b->p, &b->save, in, out, b->n_jobs, b->n_workers,
                               gpu_jpeg_file_done, b, result);
    free(in);
    free(out);
    return s;
}

/* ---- the run ---- */

int batch_many_main(const cli_options *o)
{
    batch_run b;
    memset(&b, 0, sizeof b);
    b.o = o;
    b.f = o->filter;
    b.v = o->variant;
    b.p = cli_params(o, b.f);
    b.host = fv_variant_is_host(b.v);
    /* said before any file is read; after this, the runner's prepare is the only check */
    if (fv_params_check(b.f, b.p) != FV_OK) return run_fail_line();
    /* --codec gpu without a device is said before anything is read; auto asks the files below */
    int gpu_jpeg = 0;
    if (gpu_codec_choose(o, b.v, 1, &gpu_jpeg) != FV_OK) return run_fail_line();
    /* with --dask the workers' GPUs filter: this machine needs none */
    if (!b.host && !o->dask && run_device_check("use -v cpu to run the reference") != FV_OK)
        return run_fail_line();
    walk w;
    int n = 0, code = 0;
    if (expand_inputs(o, &w) != FV_OK) code = run_fail_line();
    n = w.n;
    if (!code && n == 0) {
        fv_fail(FV_ERR_IO, "no images (.png .jpg .jpeg .ppm .pgm .pnm .bmp) in the folders given%s",
                w.skipped ? " (their subfolders are taken with --recursive)" : "");
        code = run_fail_line();
    }
    b.jobs = code ? NULL : calloc((size_t)n, sizeof *b.jobs);
    if (!code && !b.jobs) code = (fv_fail(FV_ERR_MEMORY, "out of host memory"), run_fail_line());
    for (int i = 0; !code && i < n; i++) b.jobs[i].in = w.path[i];
    b.n_jobs = code ? 0 : n;
    static const char *const by_format[] = {[IMAGE_FORMAT_BY_NAME] = NULL,
                                            [IMAGE_FORMAT_PNG] = ".png",
                                            [IMAGE_FORMAT_JPEG] = ".jpg",
                                            [IMAGE_FORMAT_PNM] = ".pnm",
                                            [IMAGE_FORMAT_TIFF] = ".tif"};
    const char *ext = by_format[cli_format(o)];
    if (!code && (name_outputs(&b, o->output, (const char *const *)w.sub, ext) != FV_OK ||
                  check_originals(&b) != FV_OK)) {
        cli_error("%s", fv_last_error());
        code = 2;
    }
    if (!code && w.skipped && !o->quiet)
        cli_error("skipped %d %s ('%s'%s): %s", w.skipped,
                  o->recursive ? (w.skipped == 1 ? "link to a folder" : "links to folders")
                               : (w.skipped == 1 ? "subfolder" : "subfolders"),
                  cli_shown(w.first_skipped), w.skipped == 1 ? "" : " and others",
                  o->recursive ? "links are not followed" : "--recursive takes them");
    /* -o DIR/ and the subfolders that mirror the inputs' are made as needed (mkdir -p); the
     * images of a subfolder that cannot be made are left out, said once, and the rest run */
    if (!code && make_folders(o->output) != FV_OK) code = run_fail_line();
    int kept = 0, made = 1;
    for (int i = 0; !code && i < n; i++) {
        if (w.sub[i][0] && (i == 0 || strcmp(w.sub[i], w.sub[i - 1]) != 0)) {
            char *folder = join(o->output, w.sub[i]);
            if (!folder)
                code = (fv_fail(FV_ERR_MEMORY, "out of host memory"), run_fail_line());
            else if ((made = make_folders(folder) == FV_OK) == 0)
                cli_error("%s (its images skipped)", fv_last_error());
            free(folder);
        } else if (!w.sub[i][0])
            made = 1;
        if (!made) {
            free(b.jobs[i].out);
            b.unwritable++;
        } else
            b.jobs[kept++] = b.jobs[i];
    }
    if (!code) b.n_jobs = n = kept;
    /* auto takes the GPU codec where it helps: a folder of JPEGs alone */
    for (int i = 0; gpu_jpeg && o->codec == CLI_CODEC_AUTO && i < b.n_jobs; i++)
        if (!gpu_codec_is_jpeg_name(b.jobs[i].in)) gpu_jpeg = 0;
    if (!code && n == 0) code = 1; /* every image's folder refused, each said */
    /* --threads, else a thread per core */
    long cores = o->threads ? o->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    b.n_workers = (int)(cores < MAX_WORKERS ? cores : MAX_WORKERS);
    if (b.n_workers > n) b.n_workers = n;
    /* whose pixels pay for its start against the CPU codec on these threads: the headers read
     * until they do, and no further (a folder of thousands is not read twice; files past that
     * point are left uncounted, of whatever size) */
    if (!code && gpu_jpeg && o->codec == CLI_CODEC_AUTO) {
        double pixels = 0;
        int pays = 0;
        for (int i = 0; i < b.n_jobs && !pays; i++) {
            pixels += gpu_codec_jpeg_pixels(b.jobs[i].in);
            pays = gpu_codec_auto_pays(pixels, i + 1, b.n_workers);
        }
        gpu_jpeg = pays;
    }
    if (!code && access(o->output, W_OK) != 0) {
        char dir_text[IMAGE_NAME_SHOWN];
        image_printable(o->output, dir_text, sizeof dir_text);
        fv_fail(FV_ERR_IO, "cannot write into '%s': %s", dir_text, strerror(errno));
        code = run_fail_line();
    }
    if (!code && o->dask) {
        char label[256], params[192];
        describe_params(b.f, b.p, params, sizeof params);
        snprintf(label, sizeof label, "%s/%s, %s", b.f->name, b.v->name, params);
        char **in = malloc((size_t)n * sizeof *in), **out = malloc((size_t)n * sizeof *out);
        for (int i = 0; in && out && i < n; i++) in[i] = b.jobs[i].in, out[i] = b.jobs[i].out;
        /* each file's PNG deflated on as many threads as here, so that its bytes are these */
        code = in && out ? batch_dask_main(o, b.p, in, out, n, b.unwritable,
                                           (int)(cores / (b.n_workers ? b.n_workers : 1)), label)
                         : (fv_fail(FV_ERR_MEMORY, "out of host memory"), run_fail_line());
        if (!code && w.unreadable) code = 1;
        free(in), free(out);
    } else if (!code) {
        /* few files on many cores: each PNG is deflated on several threads */
        b.save = run_save_options(o);
        b.save.threads = (int)(cores / b.n_workers);
        b.in_tokens = b.n_workers + GPU_SLOTS;
        b.out_tokens = b.n_workers + GPU_SLOTS;
        b.tty = !o->quiet && isatty(STDERR_FILENO); /* progress on a terminal alone */
        /* before any worker says anything: a skipped file's line to a closed stderr must fail
         * with EPIPE, not end the batch by SIGPIPE before the first output is even opened */
        image_temp_signals_init();
        if (b.tty) progress_signals_take(1); /* theirs first: ours goes in front of them */
        pthread_mutex_init(&b.lock, NULL);
        pthread_cond_init(&b.work, NULL);
        pthread_cond_init(&b.gpu, NULL);
        pthread_cond_init(&b.out_free, NULL);
        pthread_mutex_init(&b.in_pool.lock, NULL);
        pthread_mutex_init(&b.out_pool.lock, NULL);
        b.in_alloc = (image_allocator){pool_alloc, pool_release, &b.in_pool};
        b.t0 = fv_now_ms();
        pthread_t tid[MAX_WORKERS];
        int started = 0;
        batch_gpu_jpeg_result pipeline = {0};
        if (gpu_jpeg && gpu_jpeg_run(&b, &pipeline) != FV_OK) code = run_fail_line();
        for (int t = 0; !gpu_jpeg && t < b.n_workers; t++)
            if (pthread_create(&tid[started], NULL, b.host ? host_worker : device_worker, &b) == 0)
                started++;
        if (started == 0 && !gpu_jpeg) {
            /* no threads at all: this one does the work */
            if (b.host)
                host_worker(&b);
            else {
                fv_fail(FV_ERR_MEMORY, "cannot start worker threads");
                code = run_fail_line();
            }
        }
        if (!b.host && started > 0) gpu_loop(&b);
        for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
        progress_draw(&b, 1);
        if (b.tty) progress_signals_take(0);
        const double seconds = (fv_now_ms() - b.t0) / 1000.0;
        if (!code && !o->quiet) {
            char params[192];
            describe_params(b.f, b.p, params, sizeof params);
            const int threads = gpu_jpeg ? pipeline.threads : started ? started : 1;
            char codec_text[256] = "codec cpu";
            if (gpu_jpeg)
                gpu_codec_describe_counts(&pipeline.counts, pipeline.hardware, codec_text,
                                          sizeof codec_text);
            printf("filtered %d of %d images (%s/%s, %s) into '%s' in %.2f s: %.1f images/s %s, %d "
                   "%s, %s",
                   b.n_jobs - b.failed, b.n_jobs + b.unwritable, b.f->name, b.v->name, params,
                   cli_escaped(o->output), seconds,
                   seconds > 0 ? (b.n_jobs - b.failed) / seconds : 0.0,
                   b.host ? "on the CPU" : "on the GPU", threads,
                   threads == 1 ? "thread" : "threads", codec_text);
            if (b.failed + b.unwritable) printf("; %d failed", b.failed + b.unwritable);
            if (w.unreadable)
                printf("; %d %s not read", w.unreadable, w.unreadable == 1 ? "folder" : "folders");
            printf("\n");
            if (gpu_jpeg && o->stats) {
                char stages[256];
                batch_gpu_jpeg_describe_stages(&pipeline, stages, sizeof stages);
                printf("%s\n", stages);
            }
            if (fflush(stdout) != 0 || ferror(stdout)) code = 1;
        }
        if (!code && (b.failed || b.unwritable || w.unreadable)) code = 1;
        pool_destroy(&b.in_pool);
        pool_destroy(&b.out_pool);
        pthread_mutex_destroy(&b.lock);
        pthread_cond_destroy(&b.work);
        pthread_cond_destroy(&b.gpu);
        pthread_cond_destroy(&b.out_free);
    }
    for (int i = 0; i < b.n_jobs; i++) free(b.jobs[i].out);
    walk_free(&w);
    free(b.jobs);
    return code;
}
