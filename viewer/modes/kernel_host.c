/* ------------------------------------------------------------------------------------------------
 * viewer/modes/kernel_host.c: the helper process that runs the viewer's user kernels, both sides.
 *
 * Why a process of its own: kernel_host.h. The two sides speak over a Unix socket pair, one
 * fixed-size request and one fixed-size reply at a time (a prepare's request is followed by the
 * kernel's code and the pixels of any image parameter). The helper is this program, started from
 * /proc/self/exe with KERNEL_HOST_ARG; it dies with the viewer (PR_SET_PDEATHSIG) and ends at the
 * socket's end of file. Every write is MSG_NOSIGNAL: a side that is gone is an error, not a
 * SIGPIPE. The viewer's side never waits longer than the time limit it is given: past it the
 * helper is killed, and a helper that could not be reaped at once is reaped at the next start.
 * The checked run (kernel_host_check) is the same helper started by compute-sanitizer, which it
 * inherits the socket through; its report goes to an unlinked temporary file, read back once the
 * sanitizer has exited.
 * ------------------------------------------------------------------------------------------------ */
#define _GNU_SOURCE /* strsignal */
#include "kernel_host.h"
#include "kernel_host_wire.h"

#include "cli.h"
#include "cuda_check.h"
#include "device.h"
#include "timing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define PREPARE_SLACK_S 20.0 /* the helper's start (a CUDA context) and the code's load */
#define RUN_SLACK_S     1.0  /* the request and the answer around the kernel's own time */
#define TIME_SLACK_S    10.0
#define REAP_WAIT_MS    200
#define EXIT_GRACE_MS   5000 /* at the viewer's end: the helper's own exit (a sanitizer's report) */
/* compute-sanitizer's start, then the helper's (the sanitizer instruments the code as it loads):
 * a loaded GPU machine is slow at it */
#define CHECK_START_S    60.0
#define CHECK_REPORT_MAX (64 << 10) /* the report's first bytes hold its first error */
#define STRINGIFY_(x)    #x
#define STRINGIFY(x)     STRINGIFY_(x)

/* ---- both sides ---------------------------------------------------------------------------- */
static int send_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        const ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Reads exactly size bytes; deadline_ms (fv_now_ms clock) < 0: no deadline. 0 done, -1 end of
 * file or error, -2 past the deadline. */
static int recv_all(int fd, void *data, size_t size, double deadline_ms)
{
    char *p = data;
    while (size) {
        if (deadline_ms >= 0) {
            const double left = deadline_ms - fv_now_ms();
            if (left <= 0) return -2;
            struct pollfd pf = {fd, POLLIN, 0};
            const int r = poll(&pf, 1, left > 1e9 ? 1000000000 : (int)left + 1);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return -1;
            if (r == 0) continue; /* the loop's test says whether time is up */
        }
        const ssize_t n = recv(fd, p, size, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* ---- the viewer's side --------------------------------------------------------------------- */
struct kernel_host {
    pid_t pid;       /* the helper; 0: none running */
    int fd;          /* its socket; -1 */
    int answered;    /* it has answered at least once: it works here */
    pid_t unreaped;  /* a killed helper not yet reaped; 0: none */
    int unavailable; /* 1: no helper here; why in `why` */
    char why[1100];
    int sanitized;   /* started under compute-sanitizer: it is given time to write its report */
    int last_status; /* the last helper's wait status; -1: killed, or not reaped */
};

kernel_host *kernel_host_create(void)
{
    kernel_host *h = calloc(1, sizeof *h);
    if (h) {
        h->fd = -1;
        h->last_status = -1;
    }
    return h;
}

static void reap(kernel_host *h)
{
    if (h->unreaped && waitpid(h->unreaped, NULL, WNOHANG) != 0) h->unreaped = 0;
}

/* Waits up to ms for the helper's exit: its pid, or 0 while it runs. */
static pid_t wait_exit(pid_t pid, int *status, double ms)
{
    pid_t got = waitpid(pid, status, WNOHANG);
    for (double until = fv_now_ms() + ms; got == 0 && fv_now_ms() < until;) {
        usleep(2000);
        got = waitpid(pid, status, WNOHANG);
    }
    return got;
}

/* SIGKILL to pid's children, then to pid. A sanitized helper is compute-sanitizer's child, not
 * ours: killed first, so that its GPU context (a kernel still running in it, maybe) ends at once
 * rather than after the sanitizer's death reaches it, or never where that does not. */
static void kill_with_children(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *tasks = opendir(path);
    for (struct dirent *t; tasks && (t = readdir(tasks));) {
        if (t->d_name[0] == '.') continue;
        char children_path[128];
        snprintf(children_path, sizeof children_path, "/proc/%ld/task/%.20s/children", (long)pid,
                 t->d_name);
        FILE *f = fopen(children_path, "r");
        for (long child; f && fscanf(f, "%ld", &child) == 1;)
            if (child > 0) kill((pid_t)child, SIGKILL);
        if (f) fclose(f);
    }
    if (tasks) closedir(tasks);
    kill(pid, SIGKILL);
}

/* Ends the helper and forgets it: its socket closed (its end of file: it releases what it has
 * and exits), `grace_ms` to do so, then SIGKILL. `how`, if asked: how it ended. */
static void end_helper(kernel_host *h, double grace_ms, char *how, size_t size)
{
    if (!h->pid) return;
    if (h->fd >= 0) close(h->fd);
    h->fd = -1;
    int status = 0;
    pid_t got = wait_exit(h->pid, &status, grace_ms);
    if (got == 0) {
        kill_with_children(h->pid);
        got = wait_exit(h->pid, &status, REAP_WAIT_MS);
    }
    if (how) {
        if (got > 0 && WIFSIGNALED(status))
            snprintf(how, size, "signal %d, %s", WTERMSIG(status), strsignal(WTERMSIG(status)));
        else if (got > 0 && WIFEXITED(status))
            snprintf(how, size, "exit status %d", WEXITSTATUS(status));
        else
            snprintf(how, size, "killed");
    }
    if (got == 0) h->unreaped = h->pid; /* a dying GPU context can take its time */
    h->last_status = got > 0 ? status : -1;
    h->pid = 0;
}

/* How long a helper that is ending by itself gets: a sanitized one writes its report first. */
static double exit_grace(const kernel_host *h, double usual_ms)
{
    return h->sanitized ? EXIT_GRACE_MS : usual_ms;
}

void kernel_host_destroy(kernel_host *h)
{
    if (!h) return;
    end_helper(h, EXIT_GRACE_MS, NULL, 0);
    reap(h);
    free(h);
}

static kernel_host_outcome unavailable(kernel_host *h, const char *fmt, const char *detail)
{
    end_helper(h, exit_grace(h, 0), NULL, 0);
    h->unavailable = 1;
    snprintf(h->why, sizeof h->why, fmt, detail);
    fv_fail(FV_ERR_UNSUPPORTED, "%s", h->why);
    return HOST_UNAVAILABLE;
}

/* Starts the helper: this program again, or (sanitizer not NULL) this program under that
 * compute-sanitizer's memcheck, its output and the helper's into report_fd. */
static kernel_host_outcome spawn_helper(kernel_host *h, const char *sanitizer, int report_fd)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return unavailable(h, "no socket pair for the kernels' process: %s", strerror(errno));
    (void)fcntl(sv[0], F_SETFD, FD_CLOEXEC); /* the helper inherits its own end only */
    char fd_text[16], parent_text[24], exe[4096], timeout_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", sv[1]);
    snprintf(parent_text, sizeof parent_text, "%ld", sanitizer ? 0L : (long)getpid());
    snprintf(timeout_text, sizeof timeout_text, "%d", (int)CHECK_START_S);
    char *argv[] = {"filterview", KERNEL_HOST_ARG, fd_text, parent_text, NULL};
    /* the sanitizer starts the program by its path: its own /proc/self/exe would be itself */
    const ssize_t n = sanitizer ? readlink("/proc/self/exe", exe, sizeof exe - 1) : 0;
    if (n < 0 || (size_t)n >= sizeof exe - 1) {
        close(sv[0]);
        close(sv[1]);
        return unavailable(h, "cannot name this program for %s", sanitizer);
    }
    exe[n] = 0;
    char *checked[] = {(char *)sanitizer,
                       "--tool",
                       "memcheck",
                       "--error-exitcode",
                       STRINGIFY(FV_MEMCHECK_ERROR_EXIT),
                       "--print-limit",
                       "1",
                       "--launch-timeout",
                       timeout_text,
                       exe,
                       KERNEL_HOST_ARG,
                       fd_text,
                       parent_text,
                       NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (report_fd >= 0) {
        posix_spawn_file_actions_adddup2(&actions, report_fd, 1);
        posix_spawn_file_actions_adddup2(&actions, report_fd, 2);
    }
    pid_t pid = 0;
    const int err = sanitizer ? posix_spawn(&pid, sanitizer, &actions, NULL, checked, environ)
                              : posix_spawn(&pid, "/proc/self/exe", &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    if (err != 0) {
        close(sv[0]);
        return unavailable(h, "cannot start the kernels' process: %s", strerror(err));
    }
    h->pid = pid;
    h->fd = sv[0];
    return HOST_DONE;
}

static kernel_host_outcome start(kernel_host *h)
{
    if (h->unavailable) {
        fv_fail(FV_ERR_UNSUPPORTED, "%s", h->why);
        return HOST_UNAVAILABLE;
    }
    if (h->pid) return HOST_DONE;
    reap(h);
    return spawn_helper(h, NULL, -1);
}

/* Sends a request (and `extra` bytes after it; q NULL: nothing, the reply to an earlier request
 * is awaited) and waits for the reply until limit_s; past it,
 * the helper is killed and the reason names the user's time limit, `shown_limit_s` (a set-up,
 * `setting_up`, has more time to start its process, and no loop of the kernel's to blame). */
static kernel_host_outcome ask(kernel_host *h, const host_request *q, const void *extra,
                               size_t extra_size, const void *extra2, size_t extra2_size,
                               double limit_s, double shown_limit_s, int setting_up, host_reply *r)
{
    const double deadline = fv_now_ms() + limit_s * 1000;
    int got = q ? send_all(h->fd, q, sizeof *q) : 0;
    if (got == 0 && extra_size) got = send_all(h->fd, extra, extra_size);
    if (got == 0 && extra2_size) got = send_all(h->fd, extra2, extra2_size);
    if (got == 0) got = recv_all(h->fd, r, sizeof *r, deadline);
    if (got == 0 &&
        (r->magic != HOST_MAGIC || r->outcome < HOST_DONE || r->outcome > HOST_UNAVAILABLE))
        got = -1;    /* not an answer of ours: as if it had died */
    if (got == -2) { /* still running: only the end of its process stops it */
        end_helper(h, 0, NULL, 0);
        if (setting_up) /* no kernel of the user's has run: a busy GPU, or one recovering */
            fv_fail(FV_ERR_CUDA,
                    "it was not set up within %g s (the time limit, %s, and %g s to start its "
                    "process), and was stopped: the GPU may be busy or recovering from a fault; "
                    "save the file again to retry",
                    limit_s, KERNEL_TIMEOUT_ENV, limit_s - shown_limit_s);
        else if (h->sanitized)
            fv_fail(FV_ERR_CUDA,
                    "it ran for more than %g s under memcheck (%d times the time limit, %s), and "
                    "was stopped: look for a loop that never ends",
                    shown_limit_s, KERNEL_CHECK_SLOWDOWN, KERNEL_TIMEOUT_ENV);
        else
            fv_fail(FV_ERR_CUDA,
                    "it ran for more than %g s, the time limit (%s), and was stopped: look for a "
                    "loop that never ends",
                    shown_limit_s, KERNEL_TIMEOUT_ENV);
        return HOST_STOPPED;
    }
    if (got != 0) {
        char how[160];
        end_helper(h, exit_grace(h, REAP_WAIT_MS), how, sizeof how);
        if (!h->answered)
            return unavailable(h, "the kernels' process ended before it answered (%s)", how);
        fv_fail(FV_ERR_CUDA, "its process ended (%s)", how);
        return HOST_STOPPED;
    }
    h->answered = 1;
    r->message[sizeof r->message - 1] = 0;
    r->resources[sizeof r->resources - 1] = 0;
    if (r->outcome == HOST_STOPPED) /* it exits itself */
        end_helper(h, exit_grace(h, REAP_WAIT_MS), NULL, 0);
    if (r->outcome == HOST_UNAVAILABLE) return unavailable(h, "%s", r->message);
    if (r->outcome != HOST_DONE)
        fv_fail(r->status ? (fv_status)r->status : FV_ERR_CUDA, "%s", r->message);
    return (kernel_host_outcome)r->outcome;
}

static void copy_text(char *to, size_t size, const char *from)
{
    snprintf(to, size, "%s", from ? from : "");
}

/* The request's build and parameters, and the image parameters' pixels packed as they follow it
 * (*packed, malloc'd, *pixels bytes, `more` bytes spare after them). 0, or -1 out of memory. */
static int request_fill(host_request *q, const fv_user_build *b, const fv_params *p, size_t more,
                        unsigned char **packed, size_t *pixels)
{
    copy_text(q->filter, sizeof q->filter, b->filter->name);
    copy_text(q->name, sizeof q->name, b->name);
    copy_text(q->path, sizeof q->path, b->path);
    copy_text(q->arch, sizeof q->arch, b->arch);
    q->is_ptx = b->is_ptx;
    q->two_pass = b->two_pass;
    q->has_launch = b->has_launch;
    q->code_size = b->code_size;
    memcpy(q->value, p->value, sizeof q->value);
    q->iterations = p->iterations;
    *pixels = 0;
    for (int i = 0; i < FV_MAX_PARAMS; i++) {
        const fv_image *im = p->image[i];
        if (!im || im->width > MAX_IMAGE_SIDE || im->height > MAX_IMAGE_SIDE) continue;
        q->image_width[i] = im->width;
        q->image_height[i] = im->height;
        *pixels += (size_t)im->width * im->height * 4;
    }
    *packed = *pixels + more ? malloc(*pixels + more) : NULL;
    if (*pixels + more && !*packed) return -1;
    size_t at = 0;
    for (int i = 0; i < FV_MAX_PARAMS; i++)
        for (int y = 0; y < q->image_height[i]; y++, at += (size_t)q->image_width[i] * 4)
            memcpy(*packed + at, p->image[i]->data + (size_t)y * p->image[i]->pitch,
                   (size_t)q->image_width[i] * 4);
    return 0;
}

kernel_host_outcome kernel_host_prepare(kernel_host *h, int slot, const fv_user_build *b,
                                        const fv_params *p, const fv_image *src,
                                        const fv_image *dst, double limit_s, char *resources,
                                        size_t size)
{
    if (slot < 0 || slot >= KERNEL_HOST_SLOTS || b->code_size > MAX_CODE_BYTES) {
        fv_fail(FV_ERR_ARG, "kernel host: slot %d or %zu bytes of code out of range", slot,
                b->code_size);
        return HOST_REFUSED;
    }
    if (h->unavailable) {
        fv_fail(FV_ERR_UNSUPPORTED, "%s", h->why);
        return HOST_UNAVAILABLE;
    }
    host_request *q = calloc(1, sizeof *q);
    if (!q) {
        fv_fail(FV_ERR_MEMORY, "out of host memory");
        return HOST_REFUSED;
    }
    q->magic = HOST_MAGIC;
    q->op = OP_PREPARE;
    q->slot = slot;
    q->width = src->width;
    q->height = src->height;
    q->src_pitch = src->pitch;
    q->dst_pitch = dst->pitch;
    cudaError_t err = cudaIpcGetMemHandle(&q->src, src->data);
    if (err == cudaSuccess) err = cudaIpcGetMemHandle(&q->dst, dst->data);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        free(q);
        return unavailable(h, "CUDA IPC is not available here (%s)", cudaGetErrorString(err));
    }
    kernel_host_outcome o = start(h);
    if (o != HOST_DONE) {
        free(q);
        return o;
    }
    /* the image parameters' pixels, packed, after the code */
    unsigned char *packed = NULL;
    size_t pixels = 0;
    if (request_fill(q, b, p, 0, &packed, &pixels) != 0) {
        free(q);
        fv_fail(FV_ERR_MEMORY, "out of host memory");
        return HOST_REFUSED;
    }
    host_reply r;
    o = ask(h, q, b->code, b->code_size, packed, pixels, limit_s + PREPARE_SLACK_S, limit_s, 1, &r);
    free(packed);
    free(q);
    if (o == HOST_DONE && resources) copy_text(resources, size, r.resources);
    return o;
}

/* A run (runs 0) or a timing of slot's kernel: its milliseconds into *ms. */
static kernel_host_outcome run_slot_request(kernel_host *h, int slot, int runs, double wait_s,
                                            double limit_s, double *ms)
{
    if (!h->pid) { /* killed after a fault: nothing is prepared in a new one */
        fv_fail(FV_ERR_CUDA, "its process is gone");
        return HOST_STOPPED;
    }
    host_request q = {
        .magic = HOST_MAGIC, .op = runs ? OP_TIME : OP_RUN, .slot = slot, .runs = runs};
    host_reply r;
    const kernel_host_outcome o = ask(h, &q, NULL, 0, NULL, 0, wait_s, limit_s, 0, &r);
    if (o == HOST_DONE) *ms = r.ms;
    return o;
}

kernel_host_outcome kernel_host_run(kernel_host *h, int slot, double limit_s, double *ms)
{
    return run_slot_request(h, slot, 0, limit_s + RUN_SLACK_S, limit_s, ms);
}

kernel_host_outcome kernel_host_time(kernel_host *h, int slot, int runs, double limit_s,
                                     double *median_ms)
{
    if (runs < 1) runs = 1;
    return run_slot_request(h, slot, runs, limit_s * (runs + 1) + TIME_SLACK_S, limit_s, median_ms);
}

void kernel_host_release_all(kernel_host *h)
{
    if (!h || !h->pid) return;
    host_request q = {.magic = HOST_MAGIC, .op = OP_RELEASE_ALL};
    host_reply r;
    (void)ask(h, &q, NULL, 0, NULL, 0, PREPARE_SLACK_S, 0, 1, &r);
}

int kernel_check_wanted(void)
{
    const char *check = getenv(KERNEL_CHECK_ENV);
    if (!check || !*check || !strcmp(check, "1")) return 1;
    if (!strcmp(check, "0")) return 0;
    fv_fail(FV_ERR_ARG,
            "%s: 1 (a new user kernel runs once under memcheck before it goes live, the default) "
            "or 0 (it goes live unchecked), not '%s'",
            KERNEL_CHECK_ENV, check);
    return -1;
}

/* The sanitizer's own words in its report: its first line that is neither the banner nor the
 * summary, into out; `otherwise` where there is none. */
static void report_words(const char *report, const char *otherwise, char *out, size_t size)
{
    for (const char *at = report ? strstr(report, "========= ") : NULL; at;
         at = strstr(at + 1, "========= ")) {
        const char *text = at + 10;
        const int len = (int)strcspn(text, "\n");
        if (len > 0 && strncmp(text, "COMPUTE-SANITIZER", 17) &&
            strncmp(text, "ERROR SUMMARY", 13)) {
            snprintf(out, size, "%.*s", len, text);
            return;
        }
    }
    snprintf(out, size, "%.399s", otherwise);
}

/* The checked run's report, read back from its file: malloc'd text ("" when none). */
static char *report_text(int fd)
{
    char *text = malloc(CHECK_REPORT_MAX + 1);
    if (!text) return NULL;
    ssize_t n = pread(fd, text, CHECK_REPORT_MAX, 0);
    text[n > 0 ? n : 0] = 0;
    return text;
}

/* The checked run, its set-up then its run, over the sanitized helper h: the outcome of the
 * last answer or of the wait for it (its reason in fv_last_error()). */
static kernel_host_outcome check_dialogue(kernel_host *h, const fv_user_build *b,
                                          const fv_params *p, const fv_image *image, double limit_s)
{
    host_request *q = calloc(1, sizeof *q);
    const size_t row = (size_t)image->width * 4, bytes = row * image->height;
    unsigned char *packed = NULL;
    size_t pixels = 0;
    if (!q || request_fill(q, b, p, bytes, &packed, &pixels) != 0) {
        free(q);
        fv_fail(FV_ERR_MEMORY, "out of host memory");
        return HOST_REFUSED;
    }
    q->magic = HOST_MAGIC;
    q->op = OP_CHECK;
    q->iterations = 1; /* one run is what is checked */
    q->width = image->width;
    q->height = image->height;
    for (int y = 0; y < image->height; y++)
        memcpy(packed + pixels + (size_t)y * row, image->data + (size_t)y * image->pitch, row);
    host_reply r;
    /* first answer: set up (the sanitizer and the helper started, the code loaded, FV_LAUNCH
     * run); then the run itself, under the user's time limit made for memcheck's pace */
    kernel_host_outcome o = ask(h, q, b->code, b->code_size, packed, pixels + bytes,
                                limit_s + CHECK_START_S, limit_s, 1, &r);
    free(packed);
    free(q);
    const double run_limit_s = limit_s * KERNEL_CHECK_SLOWDOWN;
    if (o == HOST_DONE)
        o = ask(h, NULL, NULL, 0, NULL, 0, run_limit_s + RUN_SLACK_S, run_limit_s, 0, &r);
    return o;
}

kernel_host_outcome kernel_host_check(const fv_user_build *b, const fv_params *p,
                                      const fv_image *image, double limit_s, double *wall_ms)
{
    const double t0 = fv_now_ms();
    *wall_ms = 0;
    char sanitizer[1024];
    if (fv_memcheck_find(sanitizer, sizeof sanitizer) != FV_OK) return HOST_UNAVAILABLE;
    if (image->width > KERNEL_CHECK_MAX_SIDE || image->height > KERNEL_CHECK_MAX_SIDE) {
        fv_fail(FV_ERR_ARG, "kernel check: %dx%d is larger than %d a side", image->width,
                image->height, KERNEL_CHECK_MAX_SIDE);
        return HOST_REFUSED;
    }
    /* the report's file, unlinked at once: nothing is left behind, whatever happens */
    const char *tmp = getenv("TMPDIR");
    char report_path[1100];
    snprintf(report_path, sizeof report_path, "%s/filterview-memcheck-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    const int report_fd = mkstemp(report_path);
    if (report_fd < 0) {
        fv_fail(FV_ERR_IO, "no file for memcheck's report in %s: %s", tmp && *tmp ? tmp : "/tmp",
                strerror(errno));
        return HOST_UNAVAILABLE;
    }
    unlink(report_path);
    (void)fcntl(report_fd, F_SETFD, FD_CLOEXEC); /* the sanitizer gets it as its output only */
    kernel_host h = {.fd = -1, .sanitized = 1, .last_status = -1};
    kernel_host_outcome o = spawn_helper(&h, sanitizer, report_fd);
    if (o == HOST_DONE) o = check_dialogue(&h, b, p, image, limit_s);
    char why[sizeof h.why];
    snprintf(why, sizeof why, "%s", fv_last_error());
    /* its end of file ends the helper; the sanitizer then writes its summary and exits (killed
     * past the grace, the helper with it: PR_SET_PDEATHSIG) */
    end_helper(&h, EXIT_GRACE_MS, NULL, 0);
    const int status = h.last_status;
    char *report = report_text(report_fd);
    close(report_fd);
    char finding[900];
    const int found = report && fv_memcheck_finding(report, b->path, finding, sizeof finding);
    const int flagged =
        status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == FV_MEMCHECK_ERROR_EXIT;
    char words[400];
    report_words(report, why, words, sizeof words);
    if (found) {
        fv_fail(FV_ERR_CUDA, "%s, found by memcheck", finding);
        o = HOST_STOPPED;
    } else if (flagged) { /* an error memcheck did not place */
        fv_fail(FV_ERR_CUDA, "%s: memcheck found an error: %s", b->path, words);
        o = HOST_STOPPED;
    } else if (o == HOST_UNAVAILABLE) { /* the sanitizer could not run the helper */
        fv_fail(FV_ERR_UNSUPPORTED, "memcheck could not run your kernel: %s", words);
    } else if (o == HOST_STOPPED) { /* past the time limit, or a fault memcheck did not see */
        fv_fail(FV_ERR_CUDA, "%s: %s", b->path, why);
    } else {
        fv_fail(FV_ERR_CUDA, "%s", why);
    }
    free(report);
    if (h.unreaped) (void)wait_exit(h.unreaped, NULL, REAP_WAIT_MS);
    *wall_ms = fv_now_ms() - t0;
    return o;
}

/* ---- the helper's side --------------------------------------------------------------------- */
typedef struct opened_image {
    cudaIpcMemHandle_t handle;
    void *ptr;
    int refs;
} opened_image;

typedef struct host_slot {
    fv_user_variant *user;
    fv_runner runner;
    fv_image src, dst; /* views of the viewer's buffers; a check's own copies */
    int owns_images;   /* a check's: allocated here, not opened through CUDA IPC */
    fv_params params;
    fv_image images[FV_MAX_PARAMS]; /* the image parameters' pixels */
    fv_timer timer;
} host_slot;

typedef struct helper {
    int fd;
    int lost; /* a request it could not read: the stream is lost, it answers and ends */
    host_slot slots[KERNEL_HOST_SLOTS];
    opened_image opened[2 * KERNEL_HOST_SLOTS];
} helper;

/* A handle opened once per process (CUDA refuses a second open of the same one): shared. */
static void *open_image(helper *s, const cudaIpcMemHandle_t *handle, cudaError_t *err)
{
    opened_image *free_entry = NULL;
    for (int i = 0; i < 2 * KERNEL_HOST_SLOTS; i++) {
        opened_image *o = &s->opened[i];
        if (o->refs && !memcmp(&o->handle, handle, sizeof *handle)) {
            o->refs++;
            return o->ptr;
        }
        if (!o->refs && !free_entry) free_entry = o;
    }
    *err = cudaErrorMemoryAllocation;
    if (!free_entry) return NULL;
    *err = cudaIpcOpenMemHandle(&free_entry->ptr, *handle, cudaIpcMemLazyEnablePeerAccess);
    if (*err != cudaSuccess) return NULL;
    free_entry->handle = *handle;
    free_entry->refs = 1;
    return free_entry->ptr;
}

static void close_image(helper *s, void *ptr)
{
    for (int i = 0; ptr && i < 2 * KERNEL_HOST_SLOTS; i++) {
        opened_image *o = &s->opened[i];
        if (o->refs && o->ptr == ptr && --o->refs == 0) cudaIpcCloseMemHandle(o->ptr);
    }
}

static void slot_release(helper *s, host_slot *sl)
{
    fv_runner_release(&sl->runner);
    fv_user_variant_free(sl->user);
    sl->user = NULL;
    if (sl->owns_images) {
        fv_device_image_free(&sl->src);
        fv_device_image_free(&sl->dst);
    } else {
        close_image(s, sl->src.data);
        close_image(s, sl->dst.data);
    }
    sl->owns_images = 0;
    sl->src.data = sl->dst.data = NULL;
    for (int i = 0; i < FV_MAX_PARAMS; i++) fv_host_image_free(&sl->images[i]);
}

/* A failure's reply: a fault (the helper then exits: CUDA cannot go on) or a refusal. */
static void failed(host_reply *r, fv_status st)
{
    const cudaError_t err = fv_device_fault();
    if (err != cudaSuccess) {
        r->outcome = HOST_STOPPED;
        snprintf(r->message, sizeof r->message,
                 "it faulted: %s (%s); compute-sanitizer filterview ... names the line",
                 cudaGetErrorString(err), cudaGetErrorName(err));
        return;
    }
    r->outcome = HOST_REFUSED;
    r->status = (int32_t)st;
    snprintf(r->message, sizeof r->message, "%s", fv_last_error());
}

/* A prepare's payload: the code, then the image parameters' pixels. Read whole before anything
 * else is checked, so that a refused request leaves the stream at the next one. -1 when its
 * sizes cannot be trusted or it ended early: the stream is lost (the helper answers and ends). */
typedef struct payload {
    unsigned char *code;
    fv_image images[FV_MAX_PARAMS];
    fv_image checked; /* a check's image */
} payload;

static void payload_free(payload *pl)
{
    free(pl->code);
    pl->code = NULL;
    for (int i = 0; i < FV_MAX_PARAMS; i++) fv_host_image_free(&pl->images[i]);
    fv_host_image_free(&pl->checked);
}

static int read_payload(int fd, const host_request *q, payload *pl)
{
    memset(pl, 0, sizeof *pl);
    if (q->code_size == 0 || q->code_size > MAX_CODE_BYTES) return -1;
    for (int i = 0; i < FV_MAX_PARAMS; i++) {
        const int w = q->image_width[i], h = q->image_height[i];
        if ((w || h) && (w < 1 || h < 1 || w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE)) return -1;
    }
    pl->code = malloc(q->code_size + 1);
    if (!pl->code || recv_all(fd, pl->code, q->code_size, -1) != 0) return -1;
    pl->code[q->code_size] = 0;
    for (int i = 0; i < FV_MAX_PARAMS; i++) {
        const int w = q->image_width[i], h = q->image_height[i];
        if (!w) continue;
        if (fv_host_image_alloc(&pl->images[i], w, h) != FV_OK) return -1;
        for (int y = 0; y < h; y++)
            if (recv_all(fd, pl->images[i].data + (size_t)y * pl->images[i].pitch, (size_t)w * 4,
                         -1) != 0)
                return -1;
    }
    if (q->op != OP_CHECK) return 0;
    if (q->width < 1 || q->height < 1 || q->width > KERNEL_CHECK_MAX_SIDE ||
        q->height > KERNEL_CHECK_MAX_SIDE ||
        fv_host_image_alloc(&pl->checked, q->width, q->height) != FV_OK)
        return -1;
    for (int y = 0; y < q->height; y++)
        if (recv_all(fd, pl->checked.data + (size_t)y * pl->checked.pitch, (size_t)q->width * 4,
                     -1) != 0)
            return -1;
    return 0;
}

/* Slot sl made anew from request q and its payload (taken: the slot owns it from here). */
static fv_status prepare(helper *s, const host_request *q, payload *pl, host_slot *sl,
                         host_reply *r)
{
    slot_release(s, sl);
    memcpy(sl->images, pl->images, sizeof sl->images);
    memset(pl->images, 0, sizeof pl->images);
    const fv_filter *f = fv_filter_find(q->filter);
    if (!f) {
        free(pl->code);
        return fv_fail(FV_ERR_ARG, "kernel host: no filter '%.60s'", q->filter);
    }
    fv_user_build *b = calloc(1, sizeof *b);
    if (!b) {
        free(pl->code);
        return fv_fail(FV_ERR_MEMORY, "out of host memory");
    }
    b->code = pl->code;
    b->code_size = q->code_size;
    b->filter = f;
    b->is_ptx = q->is_ptx;
    b->two_pass = q->two_pass;
    b->has_launch = q->has_launch;
    b->from_cache = 1;
    snprintf(b->path, sizeof b->path, "%.*s", (int)sizeof q->path - 1, q->path);
    snprintf(b->name, sizeof b->name, "%.*s", (int)sizeof q->name - 1, q->name);
    snprintf(b->arch, sizeof b->arch, "%.*s", (int)sizeof q->arch - 1, q->arch);
    FV_TRY(fv_user_variant_make(b, &sl->user)); /* b (and the code) is the variant's now */
    memset(&sl->params, 0, sizeof sl->params);
    memcpy(sl->params.value, q->value, sizeof q->value);
    sl->params.iterations = q->iterations;
    for (int i = 0; i < FV_MAX_PARAMS; i++)
        if (sl->images[i].data) sl->params.image[i] = &sl->images[i];
    if (q->op == OP_CHECK) { /* images of its own: what memcheck sees allocated is all it may use */
        sl->owns_images = 1;
        FV_TRY(fv_device_image_alloc(&sl->src, q->width, q->height));
        FV_TRY(fv_device_image_alloc(&sl->dst, q->width, q->height));
        FV_TRY(fv_image_upload(&sl->src, &pl->checked));
        FV_CUDA_CHECK(cudaDeviceSynchronize());
        FV_TRY(fv_runner_prepare(&sl->runner, f, fv_user_variant_get(sl->user), &sl->params,
                                 q->width, q->height));
        return FV_OK;
    }
    cudaError_t err = cudaSuccess;
    void *src = open_image(s, &q->src, &err), *dst = src ? open_image(s, &q->dst, &err) : NULL;
    if (!src || !dst) {
        close_image(s, src);
        (void)cudaGetLastError();
        r->outcome = HOST_UNAVAILABLE;
        snprintf(r->message, sizeof r->message, "CUDA IPC is not available here (%s)",
                 cudaGetErrorString(err));
        return FV_OK;
    }
    sl->src = (fv_image){.data = src,
                         .width = q->width,
                         .height = q->height,
                         .pitch = q->src_pitch,
                         .memory = FV_MEMORY_DEVICE};
    sl->dst = (fv_image){.data = dst,
                         .width = q->width,
                         .height = q->height,
                         .pitch = q->dst_pitch,
                         .memory = FV_MEMORY_DEVICE};
    if (!sl->timer.start) FV_TRY(fv_timer_create(&sl->timer));
    const fv_variant *v = fv_user_variant_get(sl->user);
    FV_TRY(fv_runner_prepare(&sl->runner, f, v, &sl->params, q->width, q->height));
    fv_variant_resources_text(f, v, &sl->params, r->resources, sizeof r->resources);
    return FV_OK;
}

static fv_status run_slot(void *context, int set)
{
    (void)set;
    host_slot *sl = context;
    return fv_runner_run(&sl->runner, &sl->src, &sl->dst, 0);
}

static fv_status serve(helper *s, const host_request *q, host_reply *r)
{
    if (q->op == OP_PREPARE) {
        payload pl;
        if (read_payload(s->fd, q, &pl) != 0) {
            payload_free(&pl);
            s->lost = 1;
            return fv_fail(FV_ERR_ARG, "kernel host: a request it cannot read (%llu bytes of code)",
                           (unsigned long long)q->code_size);
        }
        if (q->slot < 0 || q->slot >= KERNEL_HOST_SLOTS) {
            payload_free(&pl);
            return fv_fail(FV_ERR_ARG, "kernel host: no slot %d", q->slot);
        }
        return prepare(s, q, &pl, &s->slots[q->slot], r);
    }
    if (q->op == OP_CHECK) {
        payload pl;
        if (read_payload(s->fd, q, &pl) != 0) {
            payload_free(&pl);
            s->lost = 1;
            return fv_fail(FV_ERR_ARG, "kernel host: a check it cannot read (%dx%d)", q->width,
                           q->height);
        }
        host_slot *sl = &s->slots[0];
        const fv_status st = prepare(s, q, &pl, sl, r); /* takes the code and images */
        fv_host_image_free(&pl.checked);
        FV_TRY(st);
        /* set up: said, so that the viewer's wait for the run is the user's time limit */
        if (send_all(s->fd, r, sizeof *r) != 0) {
            s->lost = 1;
            return fv_fail(FV_ERR_IO, "kernel host: the viewer is gone");
        }
        FV_TRY(fv_runner_run(&sl->runner, &sl->src, &sl->dst, 0));
        FV_CUDA_CHECK(cudaDeviceSynchronize());
        return FV_OK;
    }
    if (q->op == OP_RELEASE_ALL) {
        for (int i = 0; i < KERNEL_HOST_SLOTS; i++) slot_release(s, &s->slots[i]);
        return FV_OK;
    }
    if (q->op != OP_RUN && q->op != OP_TIME)
        return fv_fail(FV_ERR_ARG, "kernel host: unknown request %u", q->op);
    if (q->slot < 0 || q->slot >= KERNEL_HOST_SLOTS)
        return fv_fail(FV_ERR_ARG, "kernel host: no slot %d", q->slot);
    host_slot *sl = &s->slots[q->slot];
    if (!sl->user || !sl->runner.prepared)
        return fv_fail(FV_ERR_ARG, "kernel host: slot %d is not prepared", q->slot);
    if (q->op == OP_RUN) {
        fv_timer_start(&sl->timer, 0);
        FV_TRY(fv_runner_run(&sl->runner, &sl->src, &sl->dst, 0));
        fv_timer_stop(&sl->timer, 0);
        const cudaError_t err = fv_timer_wait(&sl->timer);
        if (err != cudaSuccess) return fv_fail(FV_ERR_CUDA, "%s", cudaGetErrorString(err));
        if (!fv_timer_elapsed_ms(&sl->timer, &r->ms)) r->ms = 0;
        return FV_OK;
    }
    const int runs = q->runs < 1 ? 1 : q->runs > 1000 ? 1000 : q->runs;
    return fv_time_median(run_slot, sl, 1, 1, runs, &r->ms);
}

int kernel_host_main(int argc, char **argv)
{
    if (argc != 4) {
        cli_error("%s is filterview's own: the viewer starts it for your kernels", KERNEL_HOST_ARG);
        return 2;
    }
    /* ends with the viewer, even one that was killed; the viewer may have gone already */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    const long parent = strtol(argv[3], NULL, 10); /* 0: a sanitizer's child, any parent */
    if (parent && (long)getppid() != parent) return 0;
    helper *s = calloc(1, sizeof *s);
    host_request *q = malloc(sizeof *q);
    if (!s || !q) return 1;
    s->fd = (int)strtol(argv[2], NULL, 10);
    host_reply r;
    while (recv_all(s->fd, q, sizeof *q, -1) == 0) {
        memset(&r, 0, sizeof r);
        r.magic = HOST_MAGIC;
        if (q->magic != HOST_MAGIC) break;
        const fv_status st = serve(s, q, &r);
        if (st != FV_OK) failed(&r, st);
        if (send_all(s->fd, &r, sizeof r) != 0 || s->lost) break;
        /* after a fault CUDA cannot go on: leave without releasing anything */
        if (r.outcome == HOST_STOPPED) _exit(3);
    }
    for (int i = 0; i < KERNEL_HOST_SLOTS; i++) {
        slot_release(s, &s->slots[i]);
        fv_timer_destroy(&s->slots[i].timer);
    }
    free(q);
    free(s);
    return 0;
}
