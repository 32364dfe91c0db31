/* ------------------------------------------------------------------------------------------------
 * kernels/user/user_kernel.h: your own kernel as a variant of a built-in filter.
 *
 * A user writes a CUDA file against a small contract, the header "filterview.h", which this module
 * generates at run time from the filter's parameter table (so it cannot drift from the registry)
 * and hands to NVRTC from memory: nothing is installed. fv_user_compile turns the file into a
 * cubin (cached on disk by a hash of everything that shapes it), or into one clear
 * "file:line: message" error; fv_user_variant_make wraps a build in an fv_variant that the runner
 * (fv_runner_prepare / fv_runner_run) drives like any built-in one. No CUDA driver library is
 * linked: code is loaded with the runtime's library API (cudaLibraryLoadData), so the program
 * still starts, and compiles, on a machine without a GPU.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_USER_KERNEL_H
#define FV_USER_KERNEL_H

#include "filter.h"

#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The name the user includes: #include "filterview.h" */
#define FV_USER_HEADER_NAME "filterview.h"
/* Architecture compiled for where there is no device to ask and none is given. */
#define FV_USER_DEFAULT_ARCH "sm_75"
/* Bytes per pixel of the scratch image a two-pass kernel gets (a uint4 or float4 per pixel). */
#define FV_USER_SCRATCH_BYTES 16

/* The contract header for filter f, as NVRTC receives it: malloc'd text, free() it. NULL (with
 * fv_last_error) only when out of memory. */
char *fv_user_contract(const fv_filter *f);

/* Bytes of the typed parameter struct the contract declares for f (what fv_user_params_pack
 * writes), and the packing itself: p's values (resolved: radius 0 -> ceil(3 sigma)) and the
 * derived data (the Gaussian's integer taps) laid out exactly as the header's struct. */
size_t fv_user_params_size(const fv_filter *f);
fv_status fv_user_params_pack(const fv_filter *f, const fv_params *p, void *out, size_t size);

typedef struct fv_user_options {
    const char *arch;         /* "sm_90"; NULL: the current device's, else the default */
    const char *const *extra; /* more NVRTC options ("-DTILE=32"), NULL-terminated; or NULL */
    const char *cache_dir;    /* NULL: $XDG_CACHE_HOME/filterview or ~/.cache/filterview */
    int no_cache;             /* 1: neither read nor write the cache */
} fv_user_options;

/* One diagnostic, for a HUD line or a terminal: "file:line: text" */
typedef struct fv_user_diag {
    char file[1024]; /* as NVRTC names it: the path given, or "filterview.h" */
    int line;        /* 1-based; 0 when no line applies */
    char text[400];
} fv_user_diag;

/* What fv_user_compile made. Immutable once returned: any thread may read it. */
typedef struct fv_user_build {
    const fv_filter *filter;
    char path[1024];     /* the source file as given */
    char name[128];      /* its base name: the variant's and the pane's label */
    char arch[32];       /* "sm_90" (cubin) or "compute_120" (PTX, for a GPU newer than NVRTC) */
    unsigned char *code; /* cubin, or PTX text with its terminating NUL */
    size_t code_size;
    int is_ptx;
    int two_pass;          /* defines fv_pass1 and fv_pass2 (else fv_pass) */
    int has_launch;        /* declares FV_LAUNCH: block size, pixels per thread, shared memory */
    int from_cache;        /* 1: read from the cache, NVRTC not run */
    double compile_ms;     /* NVRTC's wall time (0 from the cache) */
    char cache_key[33];    /* 128-bit hex hash of source, options, contract, arch, NVRTC version */
    char *log;             /* NVRTC's warnings as "file:line: ..." lines; "" when none or cached */
    struct timespec mtime; /* the source's modification time when it was read */
    long long file_size;
} fv_user_build;

/* Compiles the CUDA file `path` against f's contract. On success *out is a new build (free it
 * with fv_user_build_free). On failure *out is NULL, `diag` (when not NULL) holds the first
 * error with its file and line, and fv_last_error() the same as one line "file:line: text".
 * A syntax error, a missing entry point and a wrong signature each give one such message.
 * Thread-safe: no shared state (the cache is written to a temporary file, then renamed), so it
 * may run on a worker thread while the viewer draws. */
fv_status fv_user_compile(const fv_filter *f, const char *path, const fv_user_options *o,
                          fv_user_build **out, fv_user_diag *diag);
void fv_user_build_free(fv_user_build *b);

/* The directory compiled code is cached in (from o, $XDG_CACHE_HOME or $HOME), into buf. */
fv_status fv_user_cache_dir(const fv_user_options *o, char *buf, size_t size);

/* 1 when path's modification time or size differs from what the build read (or it can no longer
 * be stat'ed); one stat(2), no allocation: cheap enough for every frame. */
int fv_user_source_changed(const fv_user_build *b);

/* A user variant: the fv_variant the runner takes, and what its callbacks need. Owned by whoever
 * made it; release every runner prepared with it before fv_user_variant_free. The variant's role
 * is FV_ROLE_TEACHING (held to the reference, within the filter's tolerance); it is not in
 * f->variants, so fv_variant_index() is -1 for it. */
typedef struct fv_user_variant fv_user_variant;

/* Takes ownership of `build`, on failure too (freed with the variant, or at once). Loads nothing
 * yet: the code is loaded (cudaLibraryLoadData) by the first state_create, where a device is
 * needed anyway. */
fv_status fv_user_variant_make(fv_user_build *build, fv_user_variant **out);
const fv_variant *fv_user_variant_get(const fv_user_variant *u);
const fv_user_build *fv_user_variant_build(const fv_user_variant *u);
/* The owner of a variant made by fv_user_variant_make, or NULL for any other variant. */
fv_user_variant *fv_user_variant_of(const fv_variant *v);
void fv_user_variant_free(fv_user_variant *u);

/* ---- the checked run: compute-sanitizer's memcheck (user_memcheck.c) ---- */
/* compute-sanitizer's exit status when memcheck found an error (its --error-exitcode) */
#define FV_MEMCHECK_ERROR_EXIT 86

/* The compute-sanitizer of the CUDA toolkit: on PATH, in $CUDA_HOME/bin or in
 * /usr/local/cuda/bin. FV_OK with its path in buf; FV_ERR_UNSUPPORTED (fv_last_error() says where
 * it looked) when there is none. */
fv_status fv_memcheck_find(char *buf, size_t size);

/* memcheck's first error in `report` (compute-sanitizer's output as printed) as one line in the
 * user's terms, into out: "kernel.cu:12: writes 4 bytes out of bounds (thread (3,0,0) in block
 * (7,2,0))". `file` names the kernel where the report has no line information. 1: an error was
 * found; 0: the report has none (a clean run, or one cut short). */
int fv_memcheck_finding(const char *report, const char *file, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
