/* ------------------------------------------------------------------------------------------------
 * kernels/user/user_compile.c: a user's CUDA file -> cubin with NVRTC, one clear error, and a cache.
 *
 * NVRTC needs no GPU: everything here runs on a machine without one (the architecture then
 * comes from the options or FV_USER_DEFAULT_ARCH). Errors are reduced to the first one, written
 * "file:line: error: text" from NVRTC's "file(line): error: text". A missing entry point or one
 * with the wrong parameters compiles fine in C++ (an overload), so the compiled code's symbol
 * table is read (ELF for a cubin, .entry lines for PTX): the C-linkage names fv_pass or
 * fv_pass1 + fv_pass2 must be there, and a mangled fv_pass is a wrong signature, its line found
 * in the source. Compiled code is cached under a 128-bit hash of source, options, contract
 * header, architecture and NVRTC version, written to a temporary file and renamed so that
 * readers never see half a file. The source and every file it #includes are opened only when
 * they are regular files: a FIFO would block NVRTC's open() for ever. No global state: safe on
 * any thread.
 * Checked by tests/cpu/test_user_compile.c.
 * ------------------------------------------------------------------------------------------------ */
#define _GNU_SOURCE /* mkstemp, fstat's st_mtim */
#include "timing.h"
#include "user_kernel.h"

#include <nvrtc.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SOURCE_BYTES (4u << 20)
#define MAX_OPTIONS      32
#define CACHE_FORMAT     "fv-user-1" /* part of the key: bump when the cached content changes */
#define ENTRY_SIGNATURE  "fv_pass(const fv_image src, const fv_image dst, const fv_params p)"

/* ---- small helpers ---- */
static void diag_set(fv_user_diag *d, const char *file, int line, const char *fmt, const char *a,
                     const char *b)
{
    snprintf(d->file, sizeof d->file, "%s", file);
    d->line = line;
    snprintf(d->text, sizeof d->text, fmt, a ? a : "", b ? b : "");
}

static fv_status diag_fail(const fv_user_diag *d, fv_status st)
{
    if (d->line > 0) return fv_fail(st, "%s:%d: %s", d->file, d->line, d->text);
    return fv_fail(st, "%s: %s", d->file, d->text);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- hashing: two independent 64-bit FNV-1a style streams make the 128-bit cache key ---- */
typedef struct hash128 {
    uint64_t a, b;
} hash128;

static void hash_bytes(hash128 *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ull;
        h->b = (h->b ^ p[i]) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    }
    /* a separator, so that ("ab", "c") and ("a", "bc") differ */
    h->a = (h->a ^ 0xff) * 0x100000001b3ull;
    h->b = (h->b ^ (uint64_t)n) * 0x9e3779b97f4a7c15ull;
}

static void hash_string(hash128 *h, const char *s)
{
    hash_bytes(h, s, strlen(s));
}

/* ---- NVRTC's log ---- */
/* Whether "(123): " starts at line[i]. */
static int is_line_mark(const char *line, size_t len, size_t i)
{
    if (i + 1 >= len || line[i] != '(' || line[i + 1] < '0' || line[i + 1] > '9') return 0;
    size_t j = i + 1;
    while (j < len && line[j] >= '0' && line[j] <= '9') j++;
    return j + 2 < len && line[j] == ')' && line[j + 1] == ':' && line[j + 2] == ' ';
}

/* Parses "name(123): error: text" (also "catastrophic error", "warning #177-D"). Returns 1 with
 * file, line, kind ("error"/"warning") and text. The names NVRTC was given (the user's path,
 * the contract header; NULL-terminated) are matched whole first, since a file may be called
 * "a(12): b.cu"; another name (an #included file) ends at the first "(123): ". */
static int log_line_parse(const char *line, size_t len, const char *const *known, char *file,
                          size_t file_size, int *lineno, char *kind, size_t kind_size,
                          const char **text, size_t *text_len)
{
    const char *open = NULL;
    for (int k = 0; known && known[k] && !open; k++) {
        const size_t n = strlen(known[k]);
        if (n < len && memcmp(line, known[k], n) == 0 && is_line_mark(line, len, n))
            open = line + n;
    }
    for (size_t i = 0; !open && i + 3 < len; i++)
        if (is_line_mark(line, len, i)) open = line + i;
    if (!open) return 0;
    snprintf(file, file_size, "%.*s", (int)(open - line), line);
    *lineno = atoi(open + 1);
    const char *rest = strchr(open, ')') + 3;
    const char *colon = memchr(rest, ':', len - (size_t)(rest - line));
    if (!colon) return 0;
    const char *k = rest;
    if (strncmp(k, "catastrophic ", 13) == 0) k += 13;
    size_t klen = 0;
    while (k + klen < colon && k[klen] >= 'a' && k[klen] <= 'z') klen++;
    snprintf(kind, kind_size, "%.*s", (int)klen, k);
    if (strcmp(kind, "error") != 0 && strcmp(kind, "warning") != 0) return 0;
    *text = colon + 1;
    while (**text == ' ') (*text)++;
    *text_len = len - (size_t)(*text - line);
    return 1;
}

/* The first error of the log into d (1), and every diagnostic as "file:line: kind: text" lines
 * into a malloc'd *translated (NULL when out of memory). */
static int log_digest(const char *log, const char *const *known, fv_user_diag *d, char **translated)
{
    size_t cap = strlen(log) + 64, used = 0;
    char *out = malloc(cap);
    int found = 0;
    if (out) out[0] = 0;
    for (const char *line = log; *line;) {
        const char *end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) : strlen(line);
        char file[1024], kind[16];
        int lineno = 0;
        const char *text = NULL;
        size_t text_len = 0;
        if (log_line_parse(line, len, known, file, sizeof file, &lineno, kind, sizeof kind, &text,
                           &text_len)) {
            if (out) {
                const int n = snprintf(out + used, cap - used, "%s:%d: %s: %.*s\n", file, lineno,
                                       kind, (int)text_len, text);
                if (n > 0 && used + (size_t)n < cap) used += (size_t)n;
            }
            if (!found && strcmp(kind, "error") == 0) {
                snprintf(d->file, sizeof d->file, "%s", file);
                d->line = lineno;
                snprintf(d->text, sizeof d->text, "error: %.*s", (int)text_len, text);
                found = 1;
            }
        } else if (!found && len && strstr(line, "error") && strncmp(line, "1 error", 7) != 0 &&
                   !strstr(line, "errors detected") && !strstr(line, "error detected")) {
            /* an error without a location (a bad option): keep it whole */
            snprintf(d->text, sizeof d->text, "%.*s", (int)len, line);
            found = 1;
        }
        line = end ? end + 1 : line + len;
    }
    *translated = out;
    return found;
}

/* ---- the source: where a name is defined (comments, strings and the preprocessor skipped) ---- */
/* The line of the first token `name` (followed by '(' when want_call), 0 when there is none. */
static int source_line_of(const char *src, const char *name, int want_call)
{
    const size_t nlen = strlen(name);
    int line = 1;
    for (const char *c = src; *c;) {
        if (c[0] == '/' && c[1] == '/') {
            while (*c && *c != '\n') c++;
        } else if (c[0] == '/' && c[1] == '*') {
            c += 2;
            while (*c && !(c[0] == '*' && c[1] == '/')) line += *c++ == '\n';
            if (*c) c += 2;
        } else if (*c == '"' || *c == '\'') {
            const char q = *c++;
            while (*c && *c != q && *c != '\n') c += (c[0] == '\\' && c[1]) ? 2 : 1;
            if (*c == q) c++;
        } else if (*c == '#') { /* a directive: skip to its end (continuations included) */
            while (*c && *c != '\n') c += (c[0] == '\\' && c[1] == '\n') ? (line++, 2) : 1;
        } else if (*c == '_' || ((*c | 32) >= 'a' && (*c | 32) <= 'z')) {
            const char *s = c;
            while (*c == '_' || ((*c | 32) >= 'a' && (*c | 32) <= 'z') || (*c >= '0' && *c <= '9'))
                c++;
            if ((size_t)(c - s) == nlen && memcmp(s, name, nlen) == 0) {
                const char *n = c;
                while (*n == ' ' || *n == '\t' || *n == '\n' || *n == '\r') n++;
                if (!want_call || *n == '(') return line;
            }
            continue;
        } else {
            line += *c == '\n';
            c++;
        }
        if (*c == '\n') {
            line++;
            c++;
        }
    }
    return 0;
}

/* ---- symbols of the compiled code ---- */
typedef struct entry_names {
    int pass, pass1, pass2, configure;              /* C linkage: as the contract declares them */
    int mangled_pass, mangled_pass1, mangled_pass2; /* C++ overloads: a wrong signature */
} entry_names;

static void note_symbol(entry_names *e, const char *name, size_t len)
{
#define IS(s)     (len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
#define STARTS(s) (len > sizeof(s) - 1 && memcmp(name, s, sizeof(s) - 1) == 0)
    if (IS("fv_pass"))
        e->pass = 1;
    else if (IS("fv_pass1"))
        e->pass1 = 1;
    else if (IS("fv_pass2"))
        e->pass2 = 1;
    else if (IS("fv_configure"))
        e->configure = 1;
    else if (STARTS("_Z7fv_pass"))
        e->mangled_pass = 1;
    else if (STARTS("_Z8fv_pass1"))
        e->mangled_pass1 = 1;
    else if (STARTS("_Z8fv_pass2"))
        e->mangled_pass2 = 1;
#undef IS
#undef STARTS
}

static uint64_t rd(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* Defined functions of an ELF64 little-endian cubin. 0 when it is not one we can read. */
static int cubin_symbols(const unsigned char *elf, size_t size, entry_names *e)
{
    if (size < 64 || memcmp(elf, "\177ELF", 4) != 0 || elf[4] != 2 || elf[5] != 1) return 0;
    const uint64_t shoff = rd(elf + 0x28, 8), shentsize = rd(elf + 0x3a, 2),
                   shnum = rd(elf + 0x3c, 2);
    if (shentsize < 64 || shoff > size || shnum > (size - shoff) / shentsize) return 0;
    for (uint64_t i = 0; i < shnum; i++) {
        const unsigned char *sh = elf + shoff + i * shentsize;
        if (rd(sh + 4, 4) != 2) continue; /* SHT_SYMTAB */
        const uint64_t off = rd(sh + 0x18, 8), len = rd(sh + 0x20, 8), link = rd(sh + 0x28, 4);
        if (off > size || len > size - off || link >= shnum) return 0;
        const unsigned char *strsh = elf + shoff + link * shentsize;
        const uint64_t stroff = rd(strsh + 0x18, 8), strlen_ = rd(strsh + 0x20, 8);
        if (stroff > size || strlen_ > size - stroff) return 0;
        for (uint64_t s = 0; s + 24 <= len; s += 24) {
            const unsigned char *sym = elf + off + s;
            const uint64_t name = rd(sym, 4), shndx = rd(sym + 6, 2);
            if ((sym[4] & 0xf) != 2 || shndx == 0 || name >= strlen_) continue; /* STT_FUNC */
            const char *nm = (const char *)elf + stroff + name;
            const size_t max = strlen_ - name;
            note_symbol(e, nm, strnlen(nm, max));
        }
    }
    return 1;
}

/* ".entry NAME(" lines of PTX */
static void ptx_symbols(const char *ptx, entry_names *e)
{
    for (const char *c = strstr(ptx, ".entry"); c; c = strstr(c + 6, ".entry")) {
        const char *n = c + 6;
        while (*n == ' ' || *n == '\t') n++;
        size_t len = 0;
        while (n[len] && n[len] != '(' && n[len] != ' ' && n[len] != '\n') len++;
        note_symbol(e, n, len);
    }
}

/* The contract's rules on the entry points, as one diagnostic with the line it concerns. */
static int entries_check(const fv_user_build *b, const char *src, const entry_names *e,
                         fv_user_diag *d)
{
    const char *file = b->path;
    if (e->pass && (e->pass1 || e->pass2)) {
        diag_set(d, file, source_line_of(src, e->pass1 ? "fv_pass1" : "fv_pass2", 1),
                 "defines fv_pass and %s: a kernel is either one pass (fv_pass) or two (fv_pass1 "
                 "and fv_pass2)",
                 e->pass1 ? "fv_pass1" : "fv_pass2", NULL);
        return 0;
    }
    const struct {
        int mangled;
        const char *name, *signature;
    } wrong[] = {
        {e->mangled_pass, "fv_pass", ENTRY_SIGNATURE},
        {e->mangled_pass1, "fv_pass1",
         "fv_pass1(const fv_image src, const fv_scratch scratch, const fv_params p)"},
        {e->mangled_pass2, "fv_pass2",
         "fv_pass2(const fv_scratch scratch, const fv_image src, const fv_image dst, "
         "const fv_params p)"},
    };
    for (int i = 0; i < 3; i++)
        if (wrong[i].mangled) {
            int line = source_line_of(src, wrong[i].name, 1);
            diag_set(d, file, line ? line : 1,
                     "%s has the wrong parameters: the contract is __global__ void %s",
                     wrong[i].name, wrong[i].signature);
            return 0;
        }
    if (e->pass1 != e->pass2) {
        const char *have = e->pass1 ? "fv_pass1" : "fv_pass2";
        diag_set(d, file, source_line_of(src, have, 1),
                 "defines %s but not %s: a two-pass kernel "
                 "defines both",
                 have, e->pass1 ? "fv_pass2" : "fv_pass1");
        return 0;
    }
    if (!e->pass && !e->pass1) {
        const int line = source_line_of(src, "__global__", 0);
        diag_set(d, file, line ? line : 1, "no entry point: define __global__ void %s%s",
                 ENTRY_SIGNATURE,
                 line ? " (this kernel has another name)" : " (or fv_pass1 and fv_pass2)");
        return 0;
    }
    return 1;
}

/* ---- architecture ---- */
static fv_status arch_choose(const fv_user_options *o, char *arch, size_t size, int *is_ptx)
{
    int n = 0, list[64];
    const nvrtcResult r = nvrtcGetNumSupportedArchs(&n);
    if (r != NVRTC_SUCCESS) /* also: the library could not be loaded, and why */
        return fv_fail(FV_ERR_UNSUPPORTED, "NVRTC: %s", nvrtcGetErrorString(r));
    if (n <= 0 || n > 64 || nvrtcGetSupportedArchs(list) != NVRTC_SUCCESS)
        return fv_fail(FV_ERR_UNSUPPORTED, "NVRTC lists no GPU architecture it can compile for");
    *is_ptx = 0;
    if (o && o->arch) {
        int num = 0;
        char kind[16] = "";
        if (sscanf(o->arch, "%15[a-z]_%d", kind, &num) != 2 ||
            (strcmp(kind, "sm") != 0 && strcmp(kind, "compute") != 0))
            return fv_fail(FV_ERR_ARG, "GPU architecture '%s': expected sm_NN or compute_NN",
                           o->arch);
        for (int i = 0; i < n; i++)
            if (list[i] == num) {
                snprintf(arch, size, "%s_%d", kind, num);
                *is_ptx = strcmp(kind, "compute") == 0;
                return FV_OK;
            }
        return fv_fail(FV_ERR_ARG, "GPU architecture '%s': this NVRTC compiles for sm_%d..sm_%d",
                       o->arch, list[0], list[n - 1]);
    }
    int count = 0, device = 0, major = 0, minor = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0 ||
        cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
        (void)cudaGetLastError(); /* no device: compile for the default, for the cache or a check */
        snprintf(arch, size, "%s", FV_USER_DEFAULT_ARCH);
        return FV_OK;
    }
    const int num = 10 * major + minor;
    for (int i = 0; i < n; i++)
        if (list[i] == num) {
            snprintf(arch, size, "sm_%d", num);
            return FV_OK;
        }
    if (num > list[n - 1]) { /* a GPU newer than this NVRTC: PTX, which the driver compiles */
        snprintf(arch, size, "compute_%d", list[n - 1]);
        *is_ptx = 1;
        return FV_OK;
    }
    return fv_fail(FV_ERR_UNSUPPORTED, "this GPU (sm_%d) is older than NVRTC supports (sm_%d..)",
                   num, list[0]);
}

/* ---- the cache ---- */
fv_status fv_user_cache_dir(const fv_user_options *o, char *buf, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (o && o->cache_dir)
        n = snprintf(buf, size, "%s", o->cache_dir);
    else if (xdg && xdg[0] == '/')
        n = snprintf(buf, size, "%s/filterview", xdg);
    else if (home && home[0])
        n = snprintf(buf, size, "%s/.cache/filterview", home);
    else
        return fv_fail(FV_ERR_IO, "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= size) return fv_fail(FV_ERR_IO, "cache directory path too long");
    return FV_OK;
}

static int mkdir_p(const char *dir)
{
    char tmp[1024];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) return -1;
    for (char *c = tmp + 1; *c; c++)
        if (*c == '/') {
            *c = 0;
            if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
            *c = '/';
        }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static int cache_path(const fv_user_options *o, const fv_user_build *b, char *path, size_t size)
{
    char dir[900];
    if (fv_user_cache_dir(o, dir, sizeof dir) != FV_OK) return 0;
    return snprintf(path, size, "%s/%s.%s", dir, b->cache_key, b->is_ptx ? "ptx" : "cubin") <
           (int)size;
}

/* What a path that is no regular file is, for the message. */
static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "of an unknown kind";
}

/* The whole of a regular file of at most max bytes, NUL-terminated; NULL with *why set. Opened
 * without blocking: open() of a FIFO waits for a writer for ever, and a device may never end. */
static unsigned char *read_all(const char *path, size_t max, size_t *size, struct stat *st,
                               char *why, size_t why_size)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat s;
    if (fd < 0) {
        const int e = errno;
        if (e == ENXIO && stat(path, &s) == 0) /* a socket */
            snprintf(why, why_size, "not a regular file (%s)", file_kind(s.st_mode));
        else
            snprintf(why, why_size, "%s", strerror(e));
        return NULL;
    }
    unsigned char *data = NULL;
    if (fstat(fd, &s) != 0)
        snprintf(why, why_size, "%s", strerror(errno));
    else if (!S_ISREG(s.st_mode))
        snprintf(why, why_size, "not a regular file (%s)", file_kind(s.st_mode));
    else if ((size_t)s.st_size > max)
        snprintf(why, why_size, "larger than %zu MiB", max >> 20);
    else if (!(data = malloc((size_t)s.st_size + 1)))
        snprintf(why, why_size, "out of memory");
    else {
        const int flags = fcntl(fd, F_GETFL);
        if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        size_t done = 0;
        while (done < (size_t)s.st_size) {
            const ssize_t r = read(fd, data + done, (size_t)s.st_size - done);
            if (r <= 0) break;
            done += (size_t)r;
        }
        if (done != (size_t)s.st_size) {
            snprintf(why, why_size, "%s", done ? "it changed while it was read" : strerror(errno));
            free(data);
            data = NULL;
        } else {
            data[s.st_size] = 0;
            *size = (size_t)s.st_size;
            if (st) *st = s;
        }
    }
    close(fd);
    return data;
}

/* ---- #include: found before NVRTC opens it ---- */
/* NVRTC opens each #include it was not handed in memory from the including file's folder, the
 * main file's folder and the -I folders. Its open() of a FIFO there would wait for a writer for
 * ever (and a device may never end), with no way to stop it from outside; so every #include
 * that names a file is looked up first in the same order, anything found that is neither a
 * regular file nor a folder is refused with the line that includes it, and the regular ones
 * are read in turn. An #include by macro is left to NVRTC. */
#define MAX_INCLUDE_DIRS  16
#define MAX_INCLUDE_FILES 64

typedef struct include_scan {
    const char *dirs[MAX_INCLUDE_DIRS]; /* the main file's folder, then the -I folders */
    int n_dirs;
    struct {
        dev_t dev;
        ino_t ino;
    } seen[MAX_INCLUDE_FILES];
    int n_seen;
} include_scan;

static void dir_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/* The -I folders of NVRTC's options: "-Idir", "-I dir", "--include-path=dir", "--include-path dir" */
static void include_dirs_add(include_scan *s, const char *const *opts, int n_opts)
{
    for (int i = 0; i < n_opts && s->n_dirs < MAX_INCLUDE_DIRS; i++) {
        const char *o = opts[i], *dir = NULL;
        if (strcmp(o, "-I") == 0 || strcmp(o, "--include-path") == 0)
            dir = i + 1 < n_opts ? opts[++i] : NULL;
        else if (strncmp(o, "-I", 2) == 0)
            dir = o + 2;
        else if (strncmp(o, "--include-path=", 15) == 0)
            dir = o + 15;
        if (dir && *dir) s->dirs[s->n_dirs++] = dir;
    }
}

static int includes_check(include_scan *s, const char *file, const char *src, fv_user_diag *d);

/* One #include NAME of `file` at `line`: 1 when it is fine (or not found: NVRTC says so). */
static int include_check(include_scan *s, const char *file, int line, const char *name, int quoted,
                         fv_user_diag *d)
{
    if (strcmp(name, FV_USER_HEADER_NAME) == 0) return 1; /* handed to NVRTC in memory */
    char here[1024], path[2048];
    dir_of(file, here, sizeof here);
    const int absolute = name[0] == '/';
    const int n = absolute ? 1 : s->n_dirs + quoted;
    for (int i = 0; i < n; i++) {
        const char *dir = absolute ? "" : quoted && i == 0 ? here : s->dirs[i - quoted];
        if (snprintf(path, sizeof path, "%s%s%s", dir, absolute ? "" : "/", name) >=
            (int)sizeof path)
            continue;
        struct stat st;
        if (stat(path, &st) != 0 || S_ISDIR(st.st_mode)) continue;
        if (!S_ISREG(st.st_mode)) {
            char text[200];
            snprintf(text, sizeof text, "#include %c%.80s%c: not a regular file (%s)",
                     quoted ? '"' : '<', name, quoted ? '"' : '>', file_kind(st.st_mode));
            diag_set(d, file, line, "%s", text, NULL);
            return 0;
        }
        for (int k = 0; k < s->n_seen; k++)
            if (s->seen[k].dev == st.st_dev && s->seen[k].ino == st.st_ino) return 1;
        if (s->n_seen == MAX_INCLUDE_FILES) return 1; /* so many: NVRTC reads the rest */
        s->seen[s->n_seen].dev = st.st_dev;
        s->seen[s->n_seen++].ino = st.st_ino;
        size_t size = 0;
        char why[160];
        char *text = (char *)read_all(path, MAX_SOURCE_BYTES, &size, NULL, why, sizeof why);
        if (!text) return 1; /* unreadable: NVRTC's own error says so */
        const int ok = includes_check(s, path, text, d);
        free(text);
        return ok;
    }
    return 1;
}

/* Every `#include "name"` and `#include <name>` of src (the file `file`), each checked. */
static int includes_check(include_scan *s, const char *file, const char *src, fv_user_diag *d)
{
    int line = 1;
    for (const char *c = src; *c; line++) {
        const char *end = strchr(c, '\n');
        const size_t len = end ? (size_t)(end - c) : strlen(c);
        const char *p = c, *stop = c + len;
        while (p < stop && (*p == ' ' || *p == '\t')) p++;
        if (p < stop && *p == '#') {
            p++;
            while (p < stop && (*p == ' ' || *p == '\t')) p++;
            if ((size_t)(stop - p) > 7 && memcmp(p, "include", 7) == 0) {
                p += 7;
                while (p < stop && (*p == ' ' || *p == '\t')) p++;
                const char close = p < stop && *p == '"' ? '"' : p < stop && *p == '<' ? '>' : 0;
                const char *q = close ? memchr(p + 1, close, (size_t)(stop - p - 1)) : NULL;
                if (q && q > p + 1 && q - p < 1024) {
                    char name[1024];
                    snprintf(name, sizeof name, "%.*s", (int)(q - p - 1), p + 1);
                    if (!include_check(s, file, line, name, close == '"', d)) return 0;
                }
            }
        }
        c = end ? end + 1 : c + len;
    }
    return 1;
}

/* Best effort: a cache that cannot be written costs a compile next time, nothing else. */
static void cache_store(const fv_user_options *o, const fv_user_build *b)
{
    char path[1024], dir[900], tmp[1024];
    if (!cache_path(o, b, path, sizeof path) || fv_user_cache_dir(o, dir, sizeof dir) != FV_OK ||
        mkdir_p(dir) != 0 || snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", dir) >= (int)sizeof tmp)
        return;
    const int fd = mkstemp(tmp);
    if (fd < 0) return;
    size_t done = 0;
    while (done < b->code_size) {
        const ssize_t w = write(fd, b->code + done, b->code_size - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    if (close(fd) != 0 || done != b->code_size || rename(tmp, path) != 0) unlink(tmp);
}

/* ---- compile ---- */
void fv_user_build_free(fv_user_build *b)
{
    if (!b) return;
    free(b->code);
    free(b->log);
    free(b);
}

int fv_user_source_changed(const fv_user_build *b)
{
    struct stat st;
    if (stat(b->path, &st) != 0) return 1;
    return st.st_mtim.tv_sec != b->mtime.tv_sec || st.st_mtim.tv_nsec != b->mtime.tv_nsec ||
           (long long)st.st_size != b->file_size;
}

static fv_status nvrtc_compile(fv_user_build *b, const char *src, const char *header,
                               const char **opts, int n_opts, fv_user_diag *d)
{
    nvrtcProgram prog;
    const char *names[] = {FV_USER_HEADER_NAME};
    nvrtcResult r = nvrtcCreateProgram(&prog, src, b->path, 1, &header, names);
    if (r != NVRTC_SUCCESS) {
        diag_set(d, b->path, 0, "NVRTC: %s", nvrtcGetErrorString(r), NULL);
        return diag_fail(d, FV_ERR_MEMORY);
    }
    const nvrtcResult compiled = nvrtcCompileProgram(prog, n_opts, opts);
    size_t log_size = 0;
    char *log = NULL;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && (log = malloc(log_size + 1)))
        if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = 0;
    fv_user_diag first;
    memset(&first, 0, sizeof first);
    snprintf(first.file, sizeof first.file, "%s", b->path);
    char *translated = NULL;
    const char *known[] = {b->path, FV_USER_HEADER_NAME, NULL};
    const int has_error = log ? log_digest(log, known, &first, &translated) : 0;
    free(log);
    b->log = translated ? translated : calloc(1, 1);
    if (compiled != NVRTC_SUCCESS) {
        if (!has_error)
            snprintf(first.text, sizeof first.text, "NVRTC: %s", nvrtcGetErrorString(compiled));
        *d = first;
        nvrtcDestroyProgram(&prog);
        return diag_fail(d, compiled == NVRTC_ERROR_OUT_OF_MEMORY ? FV_ERR_MEMORY : FV_ERR_ARG);
    }
    size_t size = 0;
    r = b->is_ptx ? nvrtcGetPTXSize(prog, &size) : nvrtcGetCUBINSize(prog, &size);
    if (r == NVRTC_SUCCESS && size > 0 && (b->code = malloc(size))) {
        r = b->is_ptx ? nvrtcGetPTX(prog, (char *)b->code) : nvrtcGetCUBIN(prog, (char *)b->code);
        b->code_size = size;
    }
    nvrtcDestroyProgram(&prog);
    if (r != NVRTC_SUCCESS || !b->code) {
        diag_set(d, b->path, 0, "NVRTC produced no code: %s",
                 r != NVRTC_SUCCESS ? nvrtcGetErrorString(r) : "out of memory", NULL);
        return diag_fail(d, FV_ERR_MEMORY);
    }
    return FV_OK;
}

static fv_status compile_into(fv_user_build *b, const fv_filter *f, const fv_user_options *o,
                              fv_user_diag *d)
{
    struct stat st;
    size_t src_size = 0;
    char why[160];
    char *src = (char *)read_all(b->path, MAX_SOURCE_BYTES, &src_size, &st, why, sizeof why);
    if (!src) {
        diag_set(d, b->path, 0, "cannot read the file: %s", why, NULL);
        return diag_fail(d, FV_ERR_IO);
    }
    b->mtime = st.st_mtim;
    b->file_size = (long long)st.st_size;
    if (strlen(src) != src_size) {
        free(src);
        diag_set(d, b->path, 0, "not a text file (it holds a NUL byte)", NULL, NULL);
        return diag_fail(d, FV_ERR_FORMAT);
    }
    fv_status st_ = arch_choose(o, b->arch, sizeof b->arch, &b->is_ptx);
    if (st_ != FV_OK) {
        free(src);
        diag_set(d, b->path, 0, "%s", fv_last_error(), NULL);
        return diag_fail(d, st_);
    }
    char *header = fv_user_contract(f);
    if (!header) {
        free(src);
        return FV_ERR_MEMORY;
    }
    char arch_opt[48];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", b->arch);
    const char *opts[MAX_OPTIONS] = {arch_opt, "-lineinfo", "-std=c++17"};
    int n_opts = 3;
    for (int i = 0; o && o->extra && o->extra[i]; i++) {
        if (n_opts == MAX_OPTIONS) {
            free(src);
            free(header);
            diag_set(d, b->path, 0, "more than %s compiler options", "29", NULL);
            return diag_fail(d, FV_ERR_ARG);
        }
        opts[n_opts++] = o->extra[i];
    }

    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    char version[64];
    snprintf(version, sizeof version, "%s nvrtc %d.%d", CACHE_FORMAT, major, minor);
    hash128 h = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    hash_string(&h, version);
    hash_string(&h, src);
    hash_string(&h, header);
    hash_string(&h, b->path); /* NVRTC writes the name into line information */
    for (int i = 0; i < n_opts; i++) hash_string(&h, opts[i]);
    snprintf(b->cache_key, sizeof b->cache_key, "%016llx%016llx", (unsigned long long)h.a,
             (unsigned long long)h.b);

    char path[1024];
    if (!(o && o->no_cache) && cache_path(o, b, path, sizeof path)) {
        size_t size = 0;
        char why[160];
        unsigned char *code = read_all(path, 256u << 20, &size, NULL, why, sizeof why);
        if (code && size > 0) {
            b->code = code;
            b->code_size = b->is_ptx ? size + 1 : size; /* PTX: with its NUL */
            b->from_cache = 1;
            b->log = calloc(1, 1);
        } else {
            free(code);
        }
    }
    if (!b->from_cache) {
        include_scan scan = {.n_dirs = 1};
        char main_dir[1024];
        dir_of(b->path, main_dir, sizeof main_dir);
        scan.dirs[0] = main_dir;
        include_dirs_add(&scan, opts, n_opts);
        if (!includes_check(&scan, b->path, src, d)) {
            free(src);
            free(header);
            return diag_fail(d, FV_ERR_IO);
        }
        const double t0 = fv_now_ms();
        st_ = nvrtc_compile(b, src, header, opts, n_opts, d);
        b->compile_ms = fv_now_ms() - t0;
        if (st_ != FV_OK) {
            free(src);
            free(header);
            return st_;
        }
    }
    free(header);

    entry_names e;
    memset(&e, 0, sizeof e);
    if (b->is_ptx)
        ptx_symbols((const char *)b->code, &e);
    else if (!cubin_symbols(b->code, b->code_size, &e)) {
        free(src);
        diag_set(d, b->path, 0, "the compiled code is not a readable cubin%s",
                 b->from_cache ? " (a damaged cache file: delete it)" : "", NULL);
        return diag_fail(d, FV_ERR_FORMAT);
    }
    const int ok = entries_check(b, src, &e, d);
    free(src);
    if (!ok) return diag_fail(d, FV_ERR_ARG);
    b->two_pass = e.pass1;
    b->has_launch = e.configure;
    if (!b->from_cache && !(o && o->no_cache)) cache_store(o, b);
    return FV_OK;
}

fv_status fv_user_compile(const fv_filter *f, const char *path, const fv_user_options *o,
                          fv_user_build **out, fv_user_diag *diag)
{
    fv_user_diag local;
    fv_user_diag *d = diag ? diag : &local;
    memset(d, 0, sizeof *d);
    *out = NULL;
    fv_user_build *b = calloc(1, sizeof *b);
    if (!b) return fv_fail(FV_ERR_MEMORY, "out of memory compiling %s", path);
    b->filter = f;
    if (snprintf(b->path, sizeof b->path, "%s", path) >= (int)sizeof b->path) {
        free(b);
        return fv_fail(FV_ERR_ARG, "kernel file path too long: %.60s...", path);
    }
    snprintf(b->name, sizeof b->name, "%s", base_name(path));
    errno = 0;
    const fv_status st = compile_into(b, f, o, d);
    if (st != FV_OK) {
        if (!d->file[0]) snprintf(d->file, sizeof d->file, "%s", path);
        if (!d->text[0]) snprintf(d->text, sizeof d->text, "%s", fv_last_error());
        fv_user_build_free(b);
        return st;
    }
    *out = b;
    return FV_OK;
}
