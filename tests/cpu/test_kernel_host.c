/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_kernel_host.c: the viewer's kernel host (viewer/modes/kernel_host.c), the helper
 * process its user kernels run in, spoken to as the viewer does (filterview --kernel-host FD PID)
 * but with no GPU needed: each request gets one reply, and a refused request leaves the stream
 * at the next one (a run of a slot never prepared, slots out of range, an unknown request and
 * filter, a prepare of a real compiled kernel with and without an image parameter, which opens
 * no image without a device or with a handle of nobody's, then a run that is still understood).
 * A check (the run under memcheck, on images of its own that follow the request) reads its image
 * and answers, and one of an image too large to read is answered and ends it. A request it cannot
 * read is answered and ends it; a wrong magic and another parent's pid end it at once, while
 * parent 0 (a sanitizer's child) is anyone's. The GPU side (runs, faults, the time limit, the
 * checked run under compute-sanitizer) is tested by the viewer's GPU tests.
 * Usage: test_kernel_host FILTERVIEW EXAMPLES_DIR
 * ------------------------------------------------------------------------------------------------ */
#include "kernel_host_wire.h"
#include "test_util.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static test_counts t;
static const char *filterview;

typedef struct helper_proc {
    pid_t pid;
    int fd;
} helper_proc;

/* Starts the helper with its socket; parent_pid: what it is told its parent is. */
static helper_proc start_helper(long parent_pid)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        printf("socketpair failed\n");
        exit(1);
    }
    (void)fcntl(sv[0], F_SETFD, FD_CLOEXEC); /* as the viewer does: else its end of file never
                                                comes, the helper holding this end too */
    char fd_text[16], parent_text[24];
    snprintf(fd_text, sizeof fd_text, "%d", sv[1]);
    snprintf(parent_text, sizeof parent_text, "%ld", parent_pid);
    char *argv[] = {"filterview", KERNEL_HOST_ARG, fd_text, parent_text, NULL};
    helper_proc h = {0, sv[0]};
    if (posix_spawn(&h.pid, filterview, NULL, NULL, argv, environ) != 0) {
        printf("cannot start %s\n", filterview);
        exit(1);
    }
    close(sv[1]);
    return h;
}

/* Its exit status once it has ended by itself, its socket still open (within 30 s), -1 if it
 * did not; then its socket is closed. */
static int helper_exit(helper_proc *h)
{
    int code = -1;
    for (int i = 0; i < 3000 && code < 0; i++) {
        int status = 0;
        if (waitpid(h->pid, &status, WNOHANG) == h->pid)
            code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        else
            usleep(10000);
    }
    close(h->fd);
    if (code >= 0) return code;
    kill(h->pid, SIGKILL);
    waitpid(h->pid, NULL, 0);
    return -1;
}

/* Its exit status after its socket is closed (its end of file), -1 if it did not end. */
static int helper_close(helper_proc *h)
{
    close(h->fd);
    for (int i = 0; i < 3000; i++) {
        int status = 0;
        if (waitpid(h->pid, &status, WNOHANG) == h->pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(10000);
    }
    kill(h->pid, SIGKILL);
    waitpid(h->pid, NULL, 0);
    return -1;
}

static int send_bytes(int fd, const void *data, size_t size)
{
    return send(fd, data, size, MSG_NOSIGNAL) == (ssize_t)size ? 0 : -1;
}

/* The helper's next reply; 0, or -1 when it ended instead. */
static int receive_reply(helper_proc *h, host_reply *r)
{
    size_t got = 0;
    while (got < sizeof *r) {
        const ssize_t n = recv(h->fd, (char *)r + got, sizeof *r - got, 0);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    r->message[sizeof r->message - 1] = 0;
    return 0;
}

/* The reply to q (and its payload); 0, or -1 when the helper ended instead. */
static int exchange(helper_proc *h, const host_request *q, const void *payload, size_t size,
                    host_reply *r)
{
    if (send_bytes(h->fd, q, sizeof *q) != 0) return -1;
    if (size && send_bytes(h->fd, payload, size) != 0) return -1;
    return receive_reply(h, r);
}

static host_request request(uint32_t op, int slot)
{
    host_request q;
    memset(&q, 0, sizeof q);
    q.magic = HOST_MAGIC;
    q.op = op;
    q.slot = slot;
    return q;
}

/* One request whose reply must have this outcome and a message containing `want`. */
static void expect(helper_proc *h, const char *what, const host_request *q, const void *payload,
                   size_t size, kernel_host_outcome outcome, const char *want)
{
    host_reply r;
    memset(&r, 0, sizeof r);
    if (exchange(h, q, payload, size, &r) != 0) {
        test_check(&t, 0, what, "(the helper ended instead of answering)");
        return;
    }
    char detail[1200];
    snprintf(detail, sizeof detail, "(outcome %d, want %d; message '%s', want '%s')", r.outcome,
             (int)outcome, r.message, want);
    test_check(&t,
               r.magic == HOST_MAGIC && r.outcome == (int32_t)outcome && strstr(r.message, want),
               what, detail);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        printf("usage: test_kernel_host FILTERVIEW EXAMPLES_DIR\n");
        return 2;
    }
    filterview = argv[1];
    /* a real kernel, compiled without a GPU (NVRTC) */
    char path[1024];
    snprintf(path, sizeof path, "%s/gaussian_naive.cu", argv[2]);
    const fv_filter *gaussian = fv_filter_find("gaussian"), *conv = fv_filter_find("conv");
    fv_user_options no_cache = {.no_cache = 1};
    fv_user_build *b = NULL;
    if (!gaussian || !conv || fv_user_compile(gaussian, path, &no_cache, &b, NULL) != FV_OK) {
        printf("cannot compile %s: %s\n", path, fv_last_error());
        return 1;
    }

    helper_proc h = start_helper((long)getpid());
    host_request q = request(OP_RUN, 0);
    expect(&h, "a run of a slot never prepared is refused", &q, NULL, 0, HOST_REFUSED,
           "slot 0 is not prepared");
    q = request(OP_TIME, KERNEL_HOST_SLOTS);
    expect(&h, "a slot out of range is refused", &q, NULL, 0, HOST_REFUSED, "no slot 3");
    q = request(99, 0);
    expect(&h, "an unknown request is refused", &q, NULL, 0, HOST_REFUSED, "unknown request 99");

    /* prepares: the code (and an image parameter's pixels) follow the request */
    q = request(OP_PREPARE, 0);
    snprintf(q.filter, sizeof q.filter, "nope");
    q.code_size = b->code_size;
    expect(&h, "an unknown filter is refused, its code read", &q, b->code, b->code_size,
           HOST_REFUSED, "no filter 'nope'");
    q.slot = 5;
    snprintf(q.filter, sizeof q.filter, "gaussian");
    expect(&h, "a prepare for a slot out of range is refused, its code read", &q, b->code,
           b->code_size, HOST_REFUSED, "no slot 5");
    q = request(OP_PREPARE, 0);
    snprintf(q.filter, sizeof q.filter, "gaussian");
    snprintf(q.name, sizeof q.name, "%s", b->name);
    snprintf(q.arch, sizeof q.arch, "%s", b->arch);
    q.is_ptx = b->is_ptx;
    q.has_launch = b->has_launch;
    q.code_size = b->code_size;
    q.value[0] = 1;
    q.iterations = 1;
    q.width = q.height = 16;
    q.src_pitch = q.dst_pitch = 64;
    /* no device here (or, on a GPU, handles of nobody's): the images cannot be opened */
    expect(&h, "a real kernel's prepare reaches the images, which cannot be opened", &q, b->code,
           b->code_size, HOST_UNAVAILABLE, "CUDA IPC is not available here");
    const int k = fv_param_index(conv, "kernel-file");
    size_t with_image = b->code_size + 5 * 5 * 4;
    unsigned char *payload = malloc(with_image);
    memcpy(payload, b->code, b->code_size);
    memset(payload + b->code_size, 7, 5 * 5 * 4);
    snprintf(q.filter, sizeof q.filter, "conv");
    q.slot = 1;
    q.value[k] = 1;
    q.image_width[k] = q.image_height[k] = 5;
    expect(&h, "a prepare with an image parameter reads its pixels", &q, payload, with_image,
           HOST_UNAVAILABLE, "CUDA IPC is not available here");
    /* a check: the code, then its image. Without a device it cannot be set up, and says so; on
     * a GPU it is set up (said first, so that the viewer's wait for the run is the user's time
     * limit) and then runs this real kernel: a second reply */
    q.op = OP_CHECK;
    q.slot = 0;
    snprintf(q.filter, sizeof q.filter, "gaussian");
    q.value[k] = 0;
    q.image_width[k] = q.image_height[k] = 0;
    const size_t image_bytes = 16 * 16 * 4;
    unsigned char *checked = malloc(b->code_size + image_bytes);
    memcpy(checked, b->code, b->code_size);
    memset(checked + b->code_size, 9, image_bytes);
    if (fv_device_check() == FV_OK) {
        expect(&h, "a check reads its image and is set up", &q, checked,
               b->code_size + image_bytes, HOST_DONE, "");
        host_reply run;
        memset(&run, 0, sizeof run);
        test_check(&t, receive_reply(&h, &run) == 0 && run.outcome == HOST_DONE,
                   "then its run answers", run.message);
    } else {
        expect(&h, "a check reads its image and answers", &q, checked, b->code_size + image_bytes,
               HOST_REFUSED, "");
    }
    q = request(OP_RUN, 1);
    expect(&h, "after all of these, the next request is still understood", &q, NULL, 0,
           HOST_REFUSED, "slot 1 is not prepared");
    q = request(OP_PREPARE, 0);
    q.code_size = 0;
    expect(&h, "a prepare it cannot read is answered", &q, NULL, 0, HOST_REFUSED,
           "a request it cannot read");
    test_check(&t, helper_exit(&h) == 0, "then it ends", "(exit status not 0)");

    h = start_helper((long)getpid());
    q = request(OP_CHECK, 0);
    q.code_size = b->code_size;
    q.width = KERNEL_CHECK_MAX_SIDE + 1;
    q.height = 1;
    expect(&h, "a check of an image larger than it takes is answered", &q, b->code, b->code_size,
           HOST_REFUSED, "a check it cannot read");
    test_check(&t, helper_exit(&h) == 0, "then it ends", "(exit status not 0)");

    h = start_helper(0); /* under compute-sanitizer its parent is the sanitizer */
    q = request(OP_RUN, 0);
    expect(&h, "parent 0: it answers whoever its parent is", &q, NULL, 0, HOST_REFUSED,
           "slot 0 is not prepared");
    test_check(&t, helper_close(&h) == 0, "and ends at its socket's end of file", "");

    h = start_helper((long)getpid());
    q = request(OP_RUN, 0);
    q.magic = 0x12345678u;
    host_reply r;
    test_check(&t, exchange(&h, &q, NULL, 0, &r) != 0, "a request without the magic ends it",
               "(it answered)");
    test_check(&t, helper_exit(&h) == 0, "with exit status 0", "");

    h = start_helper((long)getpid() + 100000);
    test_check(&t, helper_exit(&h) == 0,
               "a helper whose parent is not who it was told ends at once", "");

    h = start_helper((long)getpid());
    test_check(&t, helper_close(&h) == 0, "at its socket's end of file (the viewer's end) it ends",
               "");

    free(payload);
    free(checked);
    fv_user_build_free(b);
    return test_finish(&t);
}
