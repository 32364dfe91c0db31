/* ------------------------------------------------------------------------------------------------
 * kernels/filter.h: the filter library's one public header (plain C, no GL).
 *
 * Images are RGBA8 with a row pitch in bytes. A filter is a CPU reference plus a table of kernel
 * variants; the registry (kernels/filters.def -> fv_filters[]) is what the CLI, the benchmark, the
 * viewer and the tests loop over. Every GPU variant is checked against the filter's reference
 * within `max_abs_err` (0 = bit-exact) by tests/test_filters.c.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_FILTER_H
#define FV_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes and the last error message (like stbi_failure_reason) ---- */
typedef enum fv_status {
    FV_OK = 0,
    FV_ERR_ARG,        /* bad flag, parameter or name */
    FV_ERR_IO,         /* missing, unreadable or unwritable file */
    FV_ERR_FORMAT,     /* corrupt or unsupported image data */
    FV_ERR_SIZE,       /* zero or absurd dimensions */
    FV_ERR_NO_DEVICE,  /* no usable CUDA device */
    FV_ERR_MEMORY,     /* not enough host or device memory */
    FV_ERR_CUDA,       /* a CUDA call failed */
    FV_ERR_GL          /* OpenGL, EGL or window system failure */
} fv_status;

/* Records a printf-style message for fv_last_error() and returns `status`. */
fv_status fv_fail(fv_status status, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
const char *fv_last_error(void);
const char *fv_status_name(fv_status status);

/* Propagates a failed fv_status unchanged (its message is already recorded). */
#define FV_TRY(expr)                                                                               \
    do {                                                                                           \
        fv_status fv_try_st_ = (expr);                                                             \
        if (fv_try_st_ != FV_OK) return fv_try_st_;                                                \
    } while (0)

/* ---- images ---- */
typedef struct fv_image {
    uint8_t *data;      /* RGBA8, host or device memory depending on who holds it */
    int width, height;
    size_t pitch;       /* bytes between rows, >= 4 * width */
} fv_image;

#define FV_MAX_DIMENSION 32768                 /* per side */
#define FV_MAX_PIXELS ((size_t)1 << 28)       /* 268 Mpix = 1 GiB of RGBA8 */

fv_status fv_check_dimensions(int width, int height);
fv_status fv_host_image_alloc(fv_image *img, int width, int height);
void fv_host_image_free(fv_image *img);
fv_status fv_device_image_alloc(fv_image *img, int width, int height);
void fv_device_image_free(fv_image *img);
fv_status fv_image_upload(fv_image *device_dst, const fv_image *host_src);
/* Random RGBA content from a seed (benchmark and viewer --random; never all zeros). */
void fv_image_fill_random(fv_image *img, unsigned seed);
fv_status fv_image_download(fv_image *host_dst, const fv_image *device_src);

/* ---- parameters shared by all filters (each filter reads what it needs) ---- */
typedef struct fv_params {
    float sigma;      /* gaussian: standard deviation in pixels */
    int radius;       /* gaussian: half-width of the stencil; 0 = ceil(3 sigma) */
    int iterations;   /* the filter is applied this many times (1..FV_MAX_ITERATIONS) */
} fv_params;

#define FV_MAX_ITERATIONS 10000
fv_params fv_params_default(void);
/* describe_params of filters that read nothing but the iteration count */
void fv_describe_no_params(const fv_params *p, char *buf, size_t size);

/* ---- caller-owned scratch, reused across calls: no allocation in a frame loop ---- */
typedef struct fv_scratch {
    fv_image ping;    /* device image for iteration ping-pong */
} fv_scratch;

fv_status fv_scratch_reserve(fv_scratch *s, int width, int height);
void fv_scratch_free(fv_scratch *s);

/* ---- filters and their variants ---- */
/* One pass of a GPU variant: src and dst are device images of the same size, never aliased. */
typedef fv_status (*fv_run_fn)(const fv_image *src, fv_image *dst, const fv_params *p,
                               fv_scratch *s, cudaStream_t stream);
/* One pass of the CPU reference on host images of the same size. */
typedef void (*fv_ref_fn)(const fv_image *src, fv_image *dst, const fv_params *p);

typedef struct fv_variant {
    const char *name;
    const char *summary;  /* one line a student would understand */
    fv_run_fn run;        /* NULL: the `cpu` variant, i.e. the filter's reference on the host */
} fv_variant;

typedef struct fv_filter {
    const char *name;
    const char *summary;
    fv_ref_fn ref;
    fv_status (*check_params)(const fv_params *p); /* validates what this filter reads */
    /* "sigma 1, radius 2": the parameters this filter reads, for messages and file names */
    void (*describe_params)(const fv_params *p, char *buf, size_t size);
    const fv_variant *variants;
    int n_variants;
    int max_abs_err;      /* tolerance of every GPU variant against ref; 0 = bit-exact */
    double bytes_per_pixel; /* device memory traffic per pixel and pass, for GB/s figures */
} fv_filter;

#define FV_VARIANT_CPU {"cpu", "plain-C reference on the host: the test oracle", NULL}

extern const fv_filter *const fv_filters[];
extern const int fv_n_filters;

const fv_filter *fv_filter_find(const char *name);
const fv_variant *fv_variant_find(const fv_filter *f, const char *name);
int fv_variant_is_host(const fv_variant *v);

/* Runs p->iterations passes of variant v from src into dst (device images; v must not be the
 * host variant). Ping-pongs through s->ping, which it grows on first use only. */
fv_status fv_run(const fv_filter *f, const fv_variant *v, const fv_image *src, fv_image *dst,
                 const fv_params *p, fv_scratch *s, cudaStream_t stream);

/* The same on the host through f->ref; tmp is a caller-owned host image of the same size,
 * needed when p->iterations > 1 (may be NULL otherwise). */
fv_status fv_run_host(const fv_filter *f, const fv_image *src, fv_image *dst,
                      const fv_params *p, fv_image *tmp);

/* ---- GPU comparison of two device images (kernels/diff.cu) ---- */
typedef struct fv_diff_stats {
    int max_abs;            /* largest |a - b| over R, G, B, A */
    double mean_abs;        /* mean |a - b| over all channels */
    long long n_differing;  /* pixels with any channel different */
} fv_diff_stats;

/* The same statistics on the host (CPU mode, tests, the CLI's --compare). */
void fv_diff_host(const fv_image *a, const fv_image *b, fv_diff_stats *out);

/* `work` is a caller-owned device buffer of at least fv_diff_work_bytes() bytes. fv_diff waits
 * for the result. */
size_t fv_diff_work_bytes(void);
fv_status fv_diff(const fv_image *a, const fv_image *b, fv_diff_stats *out, void *work,
                  cudaStream_t stream);
/* The same without waiting, for frame loops: enqueues the comparison on `stream`, the raw totals
 * land in `host_totals` (fv_diff_work_bytes() bytes, pinned for a truly asynchronous copy) once
 * the stream gets there; then fv_diff_totals_read turns them into statistics. */
fv_status fv_diff_enqueue(const fv_image *a, const fv_image *b, void *work, void *host_totals,
                          cudaStream_t stream);
void fv_diff_totals_read(const void *host_totals, int width, int height, fv_diff_stats *out);

/* ---- the device ---- */
/* FV_OK when a CUDA device is usable; otherwise FV_ERR_NO_DEVICE with the reason. */
fv_status fv_device_check(void);
/* Fails with FV_ERR_MEMORY and a message when `bytes` more do not fit in free device memory.
 * FV_GPU_MEMORY_LIMIT_MB in the environment caps what counts as free (to test the message). */
fv_status fv_device_check_fits(size_t bytes, const char *what);

#ifdef __cplusplus
}
#endif
#endif
