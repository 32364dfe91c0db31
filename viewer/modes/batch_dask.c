/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch_dask.c: the folder batch spread over a Dask cluster (--dask ADDRESS).
 *
 * The folder batch has named every output, refused outputs that are inputs and made the
 * folders; this hands the (input, output) pairs to the Python driver (filterview.batch, run by
 * the Python the module was built for, or $FILTERVIEW_PYTHON), which submits one task per file
 * to the scheduler.
 * Each task runs this same program on its one file with the options given here, so that every
 * output is the file the local folder batch writes, byte for byte: the same decoding, filter,
 * type and channels, PNG strips (--threads as the local batch would deflate them) and the
 * temporary-name-then-rename discipline. The driver says each failed file in one line and the
 * summary, and exits 1 when any file failed, when Dask is missing or when the scheduler cannot
 * be reached; that status is this mode's. Tested by the CLI dask cases.
 * ------------------------------------------------------------------------------------------------ */
#include "batch_dask.h"

#include "run.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FILE_ARGS 64 /* the per-file options: fewer than 2 per parameter plus a dozen */

#ifndef FV_PYTHON
#define FV_PYTHON "python3" /* the build found none: the one on PATH */
#endif

/* Imports Dask's distributed before the module, so that whichever is missing is said in one
 * line (a Python without them, or without NumPy or the module), and exits with main's status. */
static const char BOOTSTRAP[] =
    "import sys\n"
    "try:\n"
    "    import distributed  # noqa: F401\n"
    "    from filterview import batch\n"
    "except ImportError as e:\n"
    "    sys.exit('filterview: --dask needs Python 3 with Dask\\'s distributed (Debian: '\n"
    "             'python3-distributed) and the filterview module: %s' % e)\n"
    "sys.exit(batch.main(sys.argv[1:]))\n";

typedef struct arg_list {
    char *arg[MAX_FILE_ARGS + 32];
    int n;
} arg_list;

static void add(arg_list *a, const char *text)
{
    if (a->n < (int)(sizeof a->arg / sizeof a->arg[0]) - 1) a->arg[a->n++] = strdup(text);
}

static void add_number(arg_list *a, const char *flag, double value)
{
    char text[64];
    snprintf(text, sizeof text, "%.17g", value);
    add(a, flag);
    add(a, text);
}

/* The options of the one-file run each task makes: everything that decides the output's
 * pixels and bytes, nothing that is the folder batch's own (inputs, -o, --recursive). */
static void file_options(const cli_options *o, const fv_params *p, int png_threads, arg_list *a)
{
    const fv_filter *f = o->filter;
    add(a, "-f");
    add(a, f->name);
    add(a, "-v");
    add(a, o->variant->name);
    for (int i = 0; i < f->n_params; i++) {
        const fv_param_desc *d = &f->params[i];
        char setting[256];
        if (d->type == FV_PARAM_IMAGE) continue; /* --kernel-file below */
        if (d->type == FV_PARAM_CHOICE)
            snprintf(setting, sizeof setting, "%s=%s", d->name, d->choices[(int)p->value[i]]);
        else
            snprintf(setting, sizeof setting, "%s=%.17g", d->name, p->value[i]);
        add(a, "-p");
        add(a, setting);
    }
    add_number(a, "--iters", p->iterations);
    if (o->kernel_file) {
        char *full = realpath(o->kernel_file, NULL);
        add(a, "--kernel-file");
        add(a, full ? full : o->kernel_file);
        free(full);
    }
    if (o->format) add(a, "--format"), add(a, o->format);
    static const char *const depth_names[] = {
        [FV_PIXEL_U8] = "8", [FV_PIXEL_U16] = "16", [FV_PIXEL_F32] = "float"}; /* --depth's words */
    if (o->depth) add(a, "--depth"), add(a, depth_names[o->depth - 1]);
    if (o->png_level >= 0) add_number(a, "--png-level", o->png_level);
    if (o->jpeg_quality) add_number(a, "--jpeg-quality", o->jpeg_quality);
    if (o->tile) add_number(a, "--tile", o->tile);
    if (o->noise.density > 0) add_number(a, "--noise", o->noise.density * 100.0);
    if (o->noise.sigma > 0) add_number(a, "--noise-sigma", o->noise.sigma);
    if (o->noise.density > 0 || o->noise.sigma > 0) add_number(a, "--noise-seed", o->noise.seed);
    if (o->in_place) add(a, "--in-place");
    add_number(a, "--threads", png_threads);
    add(a, "--quiet");
}

/* This program's own path, for the workers (which must have it at the same place). */
static int own_path(char *path, size_t size)
{
    const ssize_t n = readlink("/proc/self/exe", path, size - 1);
    if (n <= 0) return 0;
    path[n] = 0;
    return 1;
}

/* In a build tree the module lies beside the program, in python/: put it first on PYTHONPATH
 * (an installed module is on Python's own path). */
static void module_path_first(const char *program)
{
    char dir[PATH_MAX + 32], probe[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s", program);
    char *slash = strrchr(dir, '/');
    if (!slash) return;
    snprintf(slash, sizeof dir - (size_t)(slash - dir), "/python");
    snprintf(probe, sizeof probe, "%s/filterview/batch.py", dir);
    struct stat st;
    if (stat(probe, &st) != 0) return;
    const char *old = getenv("PYTHONPATH");
    char *both = malloc(strlen(dir) + (old ? strlen(old) : 0) + 2);
    if (!both) return;
    sprintf(both, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "");
    setenv("PYTHONPATH", both, 1);
    free(both);
}

/* Writes the pairs NUL-separated, as the driver reads them; 0 when the pipe broke. */
static int write_pairs(FILE *to, char *const *in, char *const *out, int n)
{
    for (int i = 0; i < n; i++) {
        fputs(in[i], to), fputc(0, to);
        fputs(out[i], to), fputc(0, to);
    }
    return fflush(to) == 0 && !ferror(to);
}

int batch_dask_main(const cli_options *o, const fv_params *p, char *const *in, char *const *out,
                    int n, int left_out, int png_threads, const char *label)
{
    char program[PATH_MAX];
    if (!own_path(program, sizeof program)) {
        cli_error("--dask: cannot find this program's own path (/proc/self/exe): %s",
                  strerror(errno));
        return 1;
    }
    const char *python = getenv("FILTERVIEW_PYTHON");
    if (!python || !*python) python = FV_PYTHON;
    arg_list a = {.n = 0};
    add(&a, python);
    add(&a, "-c");
    add(&a, BOOTSTRAP);
    add(&a, "--scheduler");
    add(&a, o->dask);
    add(&a, "--program");
    add(&a, program);
    add(&a, "--label");
    add(&a, label);
    add(&a, "--into");
    add(&a, o->output);
    if (left_out) add_number(&a, "--left-out", left_out);
    if (o->quiet) add(&a, "--quiet");
    add(&a, "--");
    file_options(o, p, png_threads, &a);
    a.arg[a.n] = NULL;

    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) {
        cli_error("--dask: cannot make a pipe: %s", strerror(errno));
        return 1;
    }
    fflush(stdout), fflush(stderr);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipe_fd[0], STDIN_FILENO);
        close(pipe_fd[0]), close(pipe_fd[1]);
        module_path_first(program);
        execvp(python, a.arg);
        fprintf(stderr,
                "filterview: --dask needs Python 3 with Dask's distributed: cannot run '%s' "
                "(%s; FILTERVIEW_PYTHON names another)\n",
                cli_shown(python), strerror(errno));
        _exit(1);
    }
    close(pipe_fd[0]);
    int code = 1;
    if (pid < 0) {
        cli_error("--dask: cannot start '%s': %s", cli_shown(python), strerror(errno));
        close(pipe_fd[1]);
    } else {
        /* a driver that ended early (no Dask) closes the pipe: its message says why */
        void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN);
        FILE *to = fdopen(pipe_fd[1], "w");
        if (to) {
            write_pairs(to, in, out, n);
            fclose(to);
        } else
            close(pipe_fd[1]);
        signal(SIGPIPE, old_pipe);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    for (int i = 0; i < a.n; i++) free(a.arg[i]);
    return code;
}
