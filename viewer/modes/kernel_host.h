/* ------------------------------------------------------------------------------------------------
 * viewer/modes/kernel_host.h: the viewer's user kernels, run in a process of their own.
 *
 * A user kernel (-a gaussian:user=my_blur.cu) is code nobody has checked: it may fault or never
 * end. CUDA cannot go on in a process after a fault, and in a process that also draws with
 * OpenGL a fault does worse: GL waits for ever on CUDA work that will never finish, and the
 * GPU's graphics engine stalls for every program drawing on it (Xid 109, seen on H100 and H200).
 * So the viewer hands its user kernels to a helper, this same program started with
 * KERNEL_HOST_ARG: a process with a CUDA context and no GL. It opens the viewer's source image
 * and the pane's output buffer through CUDA IPC (no copy), runs the kernel, waits for it and
 * answers with its time. A fault ends the helper, not the viewer; a kernel past the time limit
 * is ended by killing the helper. The viewer turns that pane's kernel off, says why, and starts
 * a new helper when the file is saved again.
 *
 * The viewer waits for each answer (the frame's copy of the result into GL's buffer must come
 * after the kernel has finished anyway), with the time limit as its timeout. One request at a
 * time; the slots are the two panes and the bar chart's timing.
 * Where CUDA IPC is not to be had (WSL2) or the helper cannot start, every call answers
 * HOST_UNAVAILABLE and the viewer runs the kernels in its own process, as before.
 *
 * Faults are better prevented than survived: after one, some drivers leave every OpenGL program on
 * that GPU slow for minutes (Xid 31, then Xid 109), while an access that memcheck catches never
 * reaches the hardware. So a new build first runs once, on the image or a crop of it, in a
 * helper started under compute-sanitizer's memcheck (kernel_host_check), and goes live only when
 * that run is clean.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_KERNEL_HOST_H
#define FV_KERNEL_HOST_H

#include "user/user_kernel.h"

#define KERNEL_TIMEOUT_ENV "FILTERVIEW_KERNEL_TIMEOUT" /* seconds a user kernel may run */
#define KERNEL_HOST_ENV    "FILTERVIEW_KERNEL_HOST"    /* "0": they run inside the viewer */
#define KERNEL_CHECK_ENV   "FILTERVIEW_MEMCHECK"       /* "0": new kernels go live unchecked */
#define KERNEL_HOST_ARG    "--kernel-host" /* argv[1] of the helper; argv[2]: its socket's fd */

enum {
    KERNEL_HOST_SLOTS = 3,     /* pane A, pane B, the chart */
    KERNEL_HOST_CHART_SLOT = 2 /* the chart's timing runs: prepared, timed, released */
};

typedef enum kernel_host_outcome {
    HOST_DONE,        /* prepared, run or timed */
    HOST_REFUSED,     /* the kernel cannot run as asked (its FV_LAUNCH, its launch, memory):
                         why in fv_last_error(); the helper goes on */
    HOST_STOPPED,     /* it faulted, ran past the time limit, or its process died: why in
                         fv_last_error() ("it faulted: ..."); the helper is gone and the next
                         prepare starts another */
    HOST_UNAVAILABLE, /* no helper here: the caller runs the kernel in its own process */
} kernel_host_outcome;

typedef struct kernel_host kernel_host;

/* An idle helper: nothing is started until the first prepare. NULL when out of memory. */
kernel_host *kernel_host_create(void);
/* Ends the helper (if any) and frees h; NULL is fine. */
void kernel_host_destroy(kernel_host *h);

/* Slot `slot` gets the build's code with these parameters, for src -> dst (device images of
 * this process, the same size, allocated by cudaMalloc/cudaMallocPitch). The helper checks
 * the parameters and makes the kernel's state (its FV_LAUNCH runs there); `resources` gets its
 * registers, shared memory and occupancy. The limit covers the helper's start and the load. */
kernel_host_outcome kernel_host_prepare(kernel_host *h, int slot, const fv_user_build *b,
                                        const fv_params *p, const fv_image *src,
                                        const fv_image *dst, double limit_s, char *resources,
                                        size_t size);
/* One run of slot's kernel into its dst, waited for; *ms: its time by CUDA events. */
kernel_host_outcome kernel_host_run(kernel_host *h, int slot, double limit_s, double *ms);
/* The benchmark's method (a warm-up run, then the median of `runs`) on slot's kernel. */
kernel_host_outcome kernel_host_time(kernel_host *h, int slot, int runs, double limit_s,
                                     double *median_ms);
/* Every slot let go (the helper closes the images it opened): before they are freed. */
void kernel_host_release_all(kernel_host *h);

/* The checked run's image: at most this many pixels a side (a crop of the viewer's image), so that
 * the run under memcheck, many times slower than a plain one, costs little, and so does a faulty
 * kernel's, where memcheck records every thread's bad access (about 0.13 ms each, measured on an
 * H200); the crop is at most KERNEL_CHECK_HEIGHT high, so that even a square image is checked on
 * a rectangle (a kernel that takes its width for its height shows there). */
#define KERNEL_CHECK_MAX_SIDE 256
#define KERNEL_CHECK_HEIGHT   192
/* Under memcheck a kernel runs many times slower: the checked run has this many times the user's
 * time limit. */
#define KERNEL_CHECK_SLOWDOWN 10

/* Whether new user kernels are checked (KERNEL_CHECK_ENV): 1 (unset, or "1"), 0 ("0"), or -1 for
 * any other value, with the message in fv_last_error(). */
int kernel_check_wanted(void);

/* Runs build b once with parameters p on `image` (host, RGBA8, at most KERNEL_CHECK_MAX_SIDE a
 * side) in a helper of its own started under compute-sanitizer's memcheck, with its own copies of
 * the images (no CUDA IPC), and waits for it: up to KERNEL_CHECK_SLOWDOWN times limit_s for the
 * run, more for the start.
 * HOST_DONE: memcheck found nothing; HOST_STOPPED: it found an error, or the run passed the time
 * limit, or faulted: fv_last_error() says so in the user's terms ("kernel.cu:12: writes 4 bytes
 * out of bounds (thread (3,0,0) in block (7,2,0)), found by memcheck"); HOST_REFUSED: the kernel
 * cannot run as asked (its FV_LAUNCH): why in fv_last_error(); HOST_UNAVAILABLE: no
 * compute-sanitizer here, or it could not run the helper: why in fv_last_error(). *wall_ms: the
 * whole check, start to end. Thread-safe: it shares nothing with the viewer's helper. */
kernel_host_outcome kernel_host_check(const fv_user_build *b, const fv_params *p,
                                      const fv_image *image, double limit_s, double *wall_ms);

/* The helper's side: argv = {program, KERNEL_HOST_ARG, fd, parent pid (0: a sanitizer's child,
 * whose parent is the sanitizer)}. Returns the exit status. */
int kernel_host_main(int argc, char **argv);

#endif
