/* ------------------------------------------------------------------------------------------------
 * libfilterview.h: filterview's GPU image filters as a C library; the one public header.
 *
 *   #include <libfilterview.h>          cc app.c $(pkg-config --cflags --libs filterview)
 *                                       or CMake: find_package(filterview) and
 *                                       target_link_libraries(app PRIVATE filterview::filterview)
 *
 * What it has: the registry (filters, their variants, their parameters with ranges and choices),
 * and contexts. A context is made once for one filter, one variant, a largest image size and one
 * parameter set (the parameters are checked there, and everything the variant needs on the GPU is
 * allocated there); it runs images of any size up to that one, and runs at one size allocate
 * nothing. Images live on the host or on the device, with a pitch, as 1 (gray), 3 (RGB) or 4 (RGBA)
 * channels of uint8, uint16 or float32; a run on the device goes on the caller's CUDA stream.
 * Errors are fv_status codes with a one-line message kept in the context (or written to the
 * caller's buffer when there is no context yet); the caller's names and values are quoted in it
 * printable (a control byte or invalid UTF-8 as \xNN).
 *
 * No OpenGL and, but for filterview_image_read/write, no files; no process-wide state: two
 * contexts may run at once on two streams and two threads. The CUDA stream is a cudaStream_t (or
 * a CUstream) passed as a pointer, so this header needs no CUDA header. Plain C; usable from C++.
 *
 * Version: FILTERVIEW_VERSION_* below is the header's; filterview_version() the loaded
 * library's. The shared library's soname is libfilterview.so.FILTERVIEW_VERSION_MAJOR, and
 * find_package(filterview X.Y) accepts any release of major X from X.Y on: within a major
 * version the API and the ABI only grow.
 * ------------------------------------------------------------------------------------------------ */
#ifndef LIBFILTERVIEW_H
#define LIBFILTERVIEW_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The project's version, written here only: CMake's project(), the soname, the CMake package and
 * pkg-config read these three lines (the test library_version checks that they agree). */
#define FILTERVIEW_VERSION_MAJOR                      0
#define FILTERVIEW_VERSION_MINOR                      1
#define FILTERVIEW_VERSION_PATCH                      0
#define FILTERVIEW_VERSION_TEXT_(major, minor, patch) #major "." #minor "." #patch
#define FILTERVIEW_VERSION_TEXT(major, minor, patch)  FILTERVIEW_VERSION_TEXT_(major, minor, patch)
#define FILTERVIEW_VERSION                                                                         \
    FILTERVIEW_VERSION_TEXT(FILTERVIEW_VERSION_MAJOR, FILTERVIEW_VERSION_MINOR,                    \
                            FILTERVIEW_VERSION_PATCH) /* "0.1.0" */

/* ---- growing: every struct starts with its size ----
 * The caller sets `size` to the struct's size as its header has it (`filterview_image img =
 * {.size = sizeof img, ...}`, `filterview_param_info info = {.size = sizeof info}`), for the
 * structs it gives and for those the library fills. The library reads of a struct the caller
 * gives only the fields its size covers (fields added later read as 0), fills of a struct it
 * answers only the fields that fit (the rest is left as it was), and steps through an array of
 * them (a batch's images, image parameters) by its first element's size. So a later release can
 * add fields at the end without breaking a program built against this header. A size smaller
 * than the field itself (0: not set) is refused with FV_ERR_ARG. */

/* ---- status codes ---- */
#ifndef FV_STATUS_DEFINED
#define FV_STATUS_DEFINED
typedef enum fv_status {
    FV_OK = 0,
    FV_ERR_ARG,        /* bad name, parameter, image or size */
    FV_ERR_IO,         /* missing, unreadable or unwritable file */
    FV_ERR_FORMAT,     /* corrupt or unsupported image data */
    FV_ERR_SIZE,       /* zero or absurd dimensions */
    FV_ERR_NO_DEVICE,  /* no usable CUDA device (the message says why) */
    FV_ERR_MEMORY,     /* not enough host or device memory */
    FV_ERR_CUDA,       /* a CUDA (or NPP) call failed */
    FV_ERR_GL,         /* OpenGL, EGL or window system failure (never from the library) */
    FV_ERR_UNSUPPORTED /* a peer declines this case (the message says why) */
} fv_status;
#endif

/* "bad argument", "no CUDA device", ... */
const char *filterview_status_name(fv_status status);
/* The loaded library's version, "0.1.0". */
const char *filterview_version(void);
/* 1 when a CUDA device can be used; else 0, and (when why is not NULL) one line that says why. */
int filterview_device_available(char *why, size_t why_size);
/* How many CUDA devices this process can use (those CUDA_VISIBLE_DEVICES leaves it); 0 where
 * filterview_device_available says no. Valid device indices are 0 .. count - 1. */
int filterview_device_count(void);

/* ---- the registry ---- */
int filterview_filter_count(void);
/* The index-th filter's name ("gaussian"), NULL past the end. */
const char *filterview_filter_name(int index);
/* One line on what it does; NULL for an unknown filter. */
const char *filterview_filter_summary(const char *filter);
/* How many times one run may apply the filter (the parameter "iterations"); 0: unknown filter. */
int filterview_filter_max_iterations(const char *filter);

typedef enum filterview_param_type {
    FILTERVIEW_PARAM_INT = 0, /* a decimal integer */
    FILTERVIEW_PARAM_REAL,    /* a decimal number */
    FILTERVIEW_PARAM_CHOICE,  /* one of `choices`, by name */
    FILTERVIEW_PARAM_IMAGE    /* an image (conv's kernel): the command line loads a file, a library
                              caller gives filterview_context_create_with_images an image */
} filterview_param_type;

typedef struct filterview_param_info {
    size_t size; /* the caller's: sizeof (filterview_param_info) (see "Growing" above) */
    const char *name;
    const char *help; /* one line */
    filterview_param_type type;
    double min, max; /* inclusive; a CHOICE's index runs 0..n_choices-1 */
    double default_value;
    int odd_only;               /* INT: odd values only */
    const char *auto_means;     /* not NULL: 0 is also allowed and means this ("ceil(3 sigma)") */
    const char *const *choices; /* CHOICE: the names */
    int n_choices;
} filterview_param_info;

/* The filter's parameter count (-1: unknown filter), and the index-th's description. */
int filterview_param_count(const char *filter);
fv_status filterview_param_get(const char *filter, int index, filterview_param_info *out);

typedef enum filterview_role {
    FILTERVIEW_ROLE_TEACHING = 0, /* a step of the lesson (naive, shared memory, ...) */
    FILTERVIEW_ROLE_FASTEST,      /* the default: the one to use when nobody asks for another */
    FILTERVIEW_ROLE_PEER,         /* another library's implementation (NPP), for comparison */
    FILTERVIEW_ROLE_REFERENCE     /* the plain-C reference on the host ("cpu"): the test oracle */
} filterview_role;

typedef struct filterview_variant_info {
    size_t size; /* the caller's: sizeof (filterview_variant_info) */
    const char *name;
    const char *summary;
    filterview_role role;
    int on_host; /* 1: runs on the CPU, on host images only (the reference) */
} filterview_variant_info;

/* The filter's variant count (-1: unknown filter), and the index-th's description. */
int filterview_variant_count(const char *filter);
fv_status filterview_variant_get(const char *filter, int index, filterview_variant_info *out);

/* How far the filter reads from each output pixel with `params` ("name=value ..." as at create,
 * "iterations=N" included): a tile given a halo of *reach pixels of its neighbours comes out as
 * the whole image's result does (the depth Dask's map_overlap needs). *reach is -1 where there is
 * no bounded reach (Canny's full hysteresis or automatic thresholds: a step over the whole
 * image). Fails, with `error`, on an unknown filter or a bad parameter. */
fv_status filterview_filter_reach(const char *filter, const char *params, long long *reach,
                                  char *error, size_t error_size);

/* ---- images ---- */
/* One channel's type. Zero is uint8, so an image set up before types existed is uint8. */
typedef enum filterview_dtype {
    FILTERVIEW_UINT8 = 0,
    FILTERVIEW_UINT16 = 1,
    FILTERVIEW_FLOAT32 = 2
} filterview_dtype;

/* Which types a variant runs, as a mask of (1 << filterview_dtype); and its borders, as a mask
 * of (1 << the index of the border parameter's choice). */
unsigned filterview_variant_dtypes(const char *filter, const char *variant);
unsigned filterview_variant_borders(const char *filter, const char *variant);

typedef enum filterview_memory {
    FILTERVIEW_HOST = 1,  /* ordinary (or pinned) host memory */
    FILTERVIEW_DEVICE = 2 /* CUDA device memory of the current device */
} filterview_memory;

typedef struct filterview_image {
    size_t size; /* the caller's: sizeof (filterview_image) */
    void *data;
    int width, height;
    size_t pitch; /* bytes from one row to the next, >= width * channels * bytes of dtype */
    int channels; /* 1 (gray), 3 (RGB) or 4 (RGBA); alpha is kept, RGB gets an opaque one
                         (255, 65535 or 1.0) while filtered */
    filterview_memory memory;
    filterview_dtype dtype; /* the context's: a context is made for one type */
} filterview_image;

/* ---- contexts ---- */
typedef struct filterview_context filterview_context;

/* Makes a context for `filter` run by `variant` (NULL: the fastest, or the reference where there is
 * no CUDA device; "cpu": the reference on the host) on images of up to width x height, with
 * `params`: "name=value" pairs separated by spaces or commas ("radius=64", "low=50 high=150
 * stage=edges", "iterations=3"), NULL or "" for the defaults; a parameter given twice is refused.
 * Every value is checked against its range here, once. On failure *out is NULL and `error` (when
 * not NULL) holds one line, e.g. "radius: expected an integer 1..128, got '500'". On success it
 * holds "" or a notice of what was done instead of what was asked: "no CUDA device (...): box/cpu,
 * the reference, runs instead of fast". */
fv_status filterview_context_create(filterview_context **out, const char *filter,
                                    const char *variant, int width, int height, const char *params,
                                    char *error, size_t error_size);
/* The same for images of `dtype` (filterview_context_create is this with FILTERVIEW_UINT8). A
 * variant that does not run the type, or the border asked for, fails here with a line naming
 * what it runs. */
fv_status filterview_context_create_typed(filterview_context **out, const char *filter,
                                          const char *variant, int width, int height,
                                          filterview_dtype dtype, const char *params, char *error,
                                          size_t error_size);
/* The same on CUDA device `device` (0, 1, ...; -1: the calling thread's current device, as the
 * two above). The context's buffers are made there, and each call on the context (run, batch,
 * destroy) makes that device current for its work and puts the caller's back after it; device
 * images given to it must live on that device, and a stream must belong to it. An index the
 * machine does not have fails here (FV_ERR_ARG, "device 3: this machine has 2 CUDA devices (0
 * to 1)"); where there is no device at all the index is dropped and the rules above apply (the
 * reference runs, said, when no variant is named). The reference ("cpu") ignores it. */
fv_status filterview_context_create_on(filterview_context **out, int device, const char *filter,
                                       const char *variant, int width, int height,
                                       filterview_dtype dtype, const char *params, char *error,
                                       size_t error_size);
/* An image parameter's value (conv's `kernel-file`: the kernel, whose weights are a gray image's
 * values or an RGB(A) image's mean of R, G and B, of any dtype, at most 127x127; the Python
 * module passes its float32 kernel arrays this way). */
typedef struct filterview_param_image {
    size_t size;                   /* the caller's: sizeof (filterview_param_image) */
    const char *name;              /* the image parameter ("kernel-file") */
    const filterview_image *image; /* in host memory; the context keeps a copy */
} filterview_param_image;

/* filterview_context_create_on with the images of `n_images` image parameters. The choice that
 * uses one (conv's "shape=file") is made in `params`; without an image, a filter uses its built-in
 * default (conv: a 9x7 sample). */
fv_status filterview_context_create_with_images(filterview_context **out, int device,
                                                const char *filter,
                                                const char *variant, int width, int height,
                                                filterview_dtype dtype, const char *params,
                                                const filterview_param_image *images, int n_images,
                                                char *error, size_t error_size);
/* Runs the filter from src into dst (one size, at most the context's width and height; one
 * channel count; either may be on the host or the device, and src and dst may be the same image:
 * in place). Device images are read and written on `stream` (a cudaStream_t; NULL: the default
 * stream) and the call returns once the work is enqueued when both are on the device, once it is
 * done otherwise. A run at the size of the last allocates nothing; at another size, what the
 * variant made for one size (a cuFFT plan, band buffers, the buffer between iterations) is made
 * again first, after the last run is done. The reference ("cpu") takes host images only. */
fv_status filterview_run(filterview_context *ctx, const filterview_image *src,
                         filterview_image *dst, void *stream);
/* Runs the filter over `count` images: src[i] into dst[i], each as filterview_run takes it (all of
 * one size, up to the context's, and its dtype; a stack's images are src[i].data = base + i * image
 * bytes). The sources lie all on the host or all on the device, and so do the destinations. The
 * result of each equals its own filterview_run bit for bit. Host images are pipelined in groups (as
 * many as 16 MiB of RGBA holds): while one group is filtered, the next goes up and the last comes
 * down, each group in one copy each way (two sets of pinned and device buffers, made by the
 * context's first batch and kept; nothing is allocated per image). A device stack of gray or RGB
 * images is converted to and from the filters' RGBA a group at a time too. A batch of images
 * smaller than the context's uses the same buffers, a group as many images as at its full size.
 * Returns once every result is in place on the host, or enqueued on the device. */
fv_status filterview_run_batch(filterview_context *ctx, const filterview_image *src,
                               filterview_image *dst, int count, void *stream);
/* The message of the context's last failure ("" when none). */
const char *filterview_context_error(const filterview_context *ctx);
/* What the context runs: the variant's name (the fastest's when NULL was asked), and the
 * parameters in words ("sigma 2, radius 6"). */
const char *filterview_context_variant(const filterview_context *ctx);
const char *filterview_context_params(const filterview_context *ctx);
/* Device memory the context holds, in bytes. */
size_t filterview_context_device_bytes(const filterview_context *ctx);
/* Waits for the context's last run on the device (the stream it ran on may be gone by then),
 * then frees everything. NULL is fine. */
void filterview_context_destroy(filterview_context *ctx);

/* ---- comparing two images (what the command line's --compare says) ---- */
typedef struct filterview_diff {
    size_t size;          /* the caller's: sizeof (filterview_diff) */
    int max_abs;          /* largest |a - b| of any channel */
    double mean_abs;      /* mean |a - b| over all channels */
    long long differing;  /* pixels with any channel different */
    double max_abs_value; /* largest |a - b| exactly (infinite where a NaN meets a number) */
} filterview_diff;

/* Host images of the same size (at least 1x1), channel count and dtype. max_abs and mean_abs
 * are in the images' units (float32: max_abs rounded up; max_abs_value exact). NaN equals NaN. */
fv_status filterview_compare(const filterview_image *a, const filterview_image *b,
                             filterview_diff *out, char *error, size_t error_size);

/* ---- image files (the command line's codecs) ----
 * PNG, JPEG, PNM, BMP and TIFF read with the file's own type and channels (8-bit: uint8, 16-bit:
 * uint16, float TIFF: float32; gray 1, RGB 3, RGBA 4; a JPEG's EXIF orientation applied), and
 * written as the command line's -o writes them: the format by the name's ending (.png, .jpg,
 * .jpeg, .pgm, .ppm, .pnm, .tif, .tiff), through a temporary file renamed over the target, so
 * that a failure never leaves half a file. "-" reads standard input and writes standard output
 * (PNG). Writing installs, on first use, handlers that remove the temporary file for the signals
 * nobody handles yet (SIGTERM, SIGHUP, ...), then end the process as before. */
typedef enum filterview_codec {
    FILTERVIEW_CODEC_CPU = 0,   /* the host's codecs (libspng, libjpeg-turbo, libtiff, ...) */
    FILTERVIEW_CODEC_NVJPEG = 1 /* nvJPEG on the GPU: JPEG files and device images, where the
                                   library was built with it and the file suits it */
} filterview_codec;

typedef struct filterview_file_info {
    size_t size;            /* the caller's: sizeof (filterview_file_info) */
    char format[8];         /* "PNG", "JPEG", "PNM", "BMP", "TIFF" */
    filterview_codec codec; /* which codec decoded or encoded the pixels */
    int lossy;              /* the file holds less than the image written: `note` says what */
    char note[320];         /* one line ("'a.jpg': 16-bit written as 8-bit ..."), or "" */
} filterview_file_info;

/* Reads `path` into a new image in `memory` (FILTERVIEW_HOST, or FILTERVIEW_DEVICE: the current
 * device), which `out` (its size set) receives; free it with filterview_image_free. A device
 * read of a JPEG is decoded by nvJPEG where the library has it and the file suits it, any other
 * file on the host and copied up; `info` (NULL: not wanted) says which. Fails with one line in
 * `error` that names the file: FV_ERR_IO (missing, unreadable), FV_ERR_FORMAT (not an image,
 * damaged), FV_ERR_SIZE, FV_ERR_NO_DEVICE (a device read without a device). */
fv_status filterview_image_read(const char *path, filterview_memory memory, filterview_image *out,
                                filterview_file_info *info, char *error, size_t error_size);
/* Frees an image filterview_image_read made (host or device memory) and clears its data;
 * one with no data is fine. */
void filterview_image_free(filterview_image *img);

typedef struct filterview_write_options {
    size_t size;      /* the caller's: sizeof (filterview_write_options) */
    int jpeg_quality; /* 1..100; 0: 90, the command line's */
} filterview_write_options;

/* Writes `img` (host or device, any type and channel count) to `path`, as the command line's -o
 * (the same checks and refusals: an unknown ending, a folder, a read-only file). A device uint8
 * image written as JPEG is encoded by nvJPEG where the library has it; any other is copied down
 * and encoded on the host. What the format cannot hold (16-bit or float to JPEG, alpha to JPEG
 * or PNM, ...) is converted and said in info->note. `opt` NULL: the defaults. */
fv_status filterview_image_write(const char *path, const filterview_image *img,
                                 const filterview_write_options *opt, filterview_file_info *info,
                                 char *error, size_t error_size);

#ifdef __cplusplus
}
#endif
#endif
