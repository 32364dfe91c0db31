/* ------------------------------------------------------------------------------------------------
 * kernels/user/user_memcheck.c: what compute-sanitizer's memcheck says, in the user's terms.
 *
 * A new build of a user kernel runs once under memcheck before it goes live (the viewer's kernel
 * host does that run). This file finds the sanitizer next to the toolkit and turns its report,
 *     ========= Invalid __global__ write of size 4 bytes
 *     =========     at fv_pass(fv_image, fv_image, fv_params)+0x2c0 in kernel.cu:12
 *     =========     by thread (3,0,0) in block (7,2,0)
 *     =========     Access to 0x7f0536880200 is out of bounds
 * into the one line the HUD and stderr show, as they show a compile error:
 *     kernel.cu:12: writes 4 bytes out of bounds (thread (3,0,0) in block (7,2,0))
 * Plain text in, text out: tested on the CPU against reports captured on a GPU
 * (tests/cpu/memcheck/).
 * ------------------------------------------------------------------------------------------------ */
#include "user_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REPORT_PREFIX "========="
#define SANITIZER     "compute-sanitizer"

static int executable(const char *dir, size_t dir_len, char *buf, size_t size)
{
    if (!dir_len) return 0;
    const int n = snprintf(buf, size, "%.*s/" SANITIZER, (int)dir_len, dir);
    return n > 0 && (size_t)n < size && access(buf, X_OK) == 0;
}

fv_status fv_memcheck_find(char *buf, size_t size)
{
    /* where nvcc and NVRTC's toolkit is looked for: PATH first, as a shell would */
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *end = strchr(p, ':');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (executable(p, len, buf, size)) return FV_OK;
        p = end ? end + 1 : p + len;
    }
    char dir[1024];
    const char *home = getenv("CUDA_HOME");
    if (home && *home) {
        snprintf(dir, sizeof dir, "%s/bin", home);
        if (executable(dir, strlen(dir), buf, size)) return FV_OK;
    }
    static const char fallback[] = "/usr/local/cuda/bin";
    if (executable(fallback, sizeof fallback - 1, buf, size)) return FV_OK;
    buf[0] = 0;
    return fv_fail(FV_ERR_UNSUPPORTED,
                   "no " SANITIZER " (looked on PATH, in $CUDA_HOME/bin and %s; it comes with the "
                   "CUDA toolkit)",
                   fallback);
}

/* The report's line at *at, without its prefix and its end; *at moves to the next line. NULL
 * at the end of the text, or (for a line not memcheck's: the program's own output) "" */
static const char *next_line(const char **at, char *line, size_t size)
{
    const char *s = *at;
    if (!*s) return NULL;
    const char *end = strchr(s, '\n');
    const size_t len = end ? (size_t)(end - s) : strlen(s);
    *at = end ? end + 1 : s + len;
    line[0] = 0;
    const size_t prefix = sizeof REPORT_PREFIX - 1;
    if (len < prefix || strncmp(s, REPORT_PREFIX, prefix)) return line;
    snprintf(line, size, "%.*s", (int)(len - prefix), s + prefix);
    return line;
}

/* A report's header line ("Invalid __global__ write of size 4 bytes") starts one space in; its
 * details ("    at ...", "    by thread ...") further; the banner, the summary and the
 * sanitizer's own trouble ("Target application doesn't exist", "Error: ...") are no finding */
static int is_error_header(const char *line)
{
    if (line[0] != ' ' || line[1] == ' ' || line[1] == 0) return 0;
    static const char *const not_errors[] = {"COMPUTE-SANITIZER",  "CUDA-MEMCHECK", "ERROR SUMMARY",
                                             "Target application", "LEAK SUMMARY",  "Error:"};
    for (size_t i = 0; i < sizeof not_errors / sizeof not_errors[0]; i++)
        if (!strncmp(line + 1, not_errors[i], strlen(not_errors[i]))) return 0;
    return 1;
}

/* "Invalid __global__ write of size 4 bytes" -> "writes 4 bytes" (of shared/local memory);
 * 0 for a header of another kind */
static int access_words(const char *header, char *out, size_t size)
{
    char space[16], op[16];
    unsigned long bytes = 0;
    if (sscanf(header, " Invalid __%15[a-z]__ %15s of size %lu", space, op, &bytes) != 3) return 0;
    const char *verb = !strcmp(op, "read")     ? "reads"
                       : !strcmp(op, "write")  ? "writes"
                       : !strcmp(op, "atomic") ? "makes an atomic access of"
                                               : NULL;
    if (!verb) return 0;
    const char *where = !strcmp(space, "shared")  ? " of shared memory"
                        : !strcmp(space, "local") ? " of local memory"
                                                  : "";
    snprintf(out, size, "%s %lu byte%s%s", verb, bytes, bytes == 1 ? "" : "s", where);
    return 1;
}

/* "at fv_pass(fv_image, ...)+0x2c0 in /x/kernel.cu:12" -> "/x/kernel.cu:12" (what follows the
 * offset); without line information ("at fv_pass(...)+0x2c0") -> "<file>: in fv_pass" */
static void location(const char *at_line, const char *file, char *out, size_t size)
{
    const char *offset = strstr(at_line, "+0x");
    const char *in = offset ? strstr(offset, " in ") : NULL;
    if (in) {
        snprintf(out, size, "%s", in + 4);
        return;
    }
    const char *fn = at_line + 3; /* after "at " */
    snprintf(out, size, "%s: in %.*s", file && *file ? file : "your kernel", (int)strcspn(fn, "(+"),
             fn);
}

int fv_memcheck_finding(const char *report, const char *file, char *out, size_t size)
{
    char line[1024], header[256] = "", where[1100] = "", who[160] = "", what[160] = "";
    const char *at = report ? report : "";
    const char *l;
    int in_error = 0;
    while ((l = next_line(&at, line, sizeof line))) {
        if (!in_error) {
            if (is_error_header(l)) {
                snprintf(header, sizeof header, "%.255s", l + 1);
                in_error = 1;
            }
            continue;
        }
        if (!l[0]) continue; /* the program's own output, between memcheck's lines */
        const char *d = l + strspn(l, " ");
        if (d == l || !*d) break; /* the next error, or the blank line closing this one */
        if (!strncmp(d, "at ", 3) && !where[0])
            location(d, file, where, sizeof where);
        else if (!strncmp(d, "by thread ", 10))
            snprintf(who, sizeof who, "%s", d + 3);
        else if ((!strncmp(d, "Access to ", 10) || !strncmp(d, "Address ", 8)) && !what[0]) {
            const char *is = strstr(d, " is ");
            if (is && !strcmp(is + 4, "out of bounds"))
                snprintf(what, sizeof what, " out of bounds");
            else if (is && !strcmp(is + 4, "misaligned"))
                snprintf(what, sizeof what, " at a misaligned address");
            else if (is)
                snprintf(what, sizeof what, " (%s)", is + 4);
        }
    }
    if (!header[0]) return 0;
    if (!where[0]) snprintf(where, sizeof where, "%s", file && *file ? file : "your kernel");
    char words[200];
    if (!access_words(header, words, sizeof words)) /* another kind: memcheck's own words */
        snprintf(words, sizeof words, "%s", header);
    if (who[0])
        snprintf(out, size, "%s: %s%s (%s)", where, words, what, who);
    else
        snprintf(out, size, "%s: %s%s", where, words, what);
    return 1;
}
