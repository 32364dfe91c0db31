/* ------------------------------------------------------------------------------------------------
 * kernels/filter.h: the filter library's one public header (plain C, no GL).
 *
 * Images are RGBA8 with a row pitch in bytes. A filter is described by data: a table of its
 * parameters (from which the CLI flags, validation, keys, HUD, file names, --list, bench sweeps
 * and test cases are all derived), a CPU reference, and a table of kernel variants, each of
 * which may own device state (plans, intermediate buffers) made before any timing by an
 * fv_runner. The registry (kernels/filters.def -> fv_filters[]) is what the CLI, the benchmark,
 * the viewer and the tests loop over. Every GPU variant is checked against the reference within
 * its tolerance by tests/gpu/test_filters.c; peers (NPP) are measured against it, not held to it.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_FILTER_H
#define FV_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* without CUDA (FV_CUDA OFF) the runtime's types, and calls that answer "no device" */
#ifdef FV_HAVE_CUDA
#include <cuda_runtime_api.h>
#else
#include "core/cuda_none.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes (shared with the library's public header) and the last error message (like
 * stbi_failure_reason; one per thread) ---- */
#include "libfilterview.h"

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
/* Where an image's pixels live. The allocators set it; an image made by hand (a mapped GL buffer)
 * may leave it unknown, and the runner then trusts the caller. */
typedef enum fv_memory { FV_MEMORY_UNKNOWN = 0, FV_MEMORY_HOST, FV_MEMORY_DEVICE } fv_memory;

/* What one channel of a pixel is. Zero is uint8, so an image made with {0} is today's RGBA8.
 * Integer types round half up and saturate (as the 8-bit path always did); float32 is not
 * rounded. The names are the NumPy dtypes'. */
typedef enum fv_pixel_type {
    FV_PIXEL_U8 = 0, /* 0..255 */
    FV_PIXEL_U16,    /* 0..65535 */
    FV_PIXEL_F32,    /* IEEE single; a filter's doc says what it does with NaN and infinity */
    FV_PIXEL_TYPE_COUNT
} fv_pixel_type;

/* Bit masks of types, for the variants' tables (fv_variant.types). */
#define FV_TYPE_BIT(t) (1u << (t))
#define FV_TYPES_U8    FV_TYPE_BIT(FV_PIXEL_U8)
#define FV_TYPES_INT   (FV_TYPE_BIT(FV_PIXEL_U8) | FV_TYPE_BIT(FV_PIXEL_U16))
#define FV_TYPES_ALL   ((1u << FV_PIXEL_TYPE_COUNT) - 1u)

/* "uint8", "uint16", "float32"; NULL past the end. */
const char *fv_pixel_type_name(fv_pixel_type t);
/* Bytes of one channel: 1, 2, 4. */
size_t fv_pixel_type_bytes(fv_pixel_type t);
/* The type named `name` ("uint16", also "u16", "16", "float"), -1 for none. */
int fv_pixel_type_parse(const char *name);
/* The largest value of an integer type (255, 65535); 1.0 for float32 (the display range). */
double fv_pixel_type_max(fv_pixel_type t);

typedef struct fv_image {
    uint8_t *data; /* `channels` interleaved channels of `type`, in `memory` */
    int width, height;
    size_t pitch; /* bytes between rows, >= width * channels * bytes of type */
    fv_memory memory;
    fv_pixel_type type; /* 0: uint8 */
    int channels;       /* 1 (gray), 3 (RGB) or 4 (RGBA); 0 means 4. The filters run on 4. */
} fv_image;

/* The image's channel count (a 0 in the struct is 4) and bytes of one pixel. */
static inline int fv_image_channels(const fv_image *img)
{
    return img->channels ? img->channels : 4;
}
static inline size_t fv_image_pixel_bytes(const fv_image *img)
{
    return (size_t)fv_image_channels(img) * fv_pixel_type_bytes(img->type);
}

/* ---- borders: what a neighbourhood reads past the image's edge ---- */
/* The names are scipy.ndimage's modes, and OpenCV's BORDER_* beside them. One index mapping for
 * every reference and kernel: kernels/core/border.h. */
typedef enum fv_border {
    FV_BORDER_REPLICATE = 0, /* aaa|abcd|ddd   edge pixel repeated (scipy 'nearest', OpenCV
                                BORDER_REPLICATE); the default, and the fast paths' own */
    FV_BORDER_REFLECT,       /* cba|abcd|dcb   edge included (scipy 'reflect', BORDER_REFLECT) */
    FV_BORDER_MIRROR,        /* dcb|abcd|cba   edge not repeated (scipy 'mirror',
                                BORDER_REFLECT_101) */
    FV_BORDER_CONSTANT,      /* kkk|abcd|kkk   the value `cval` (scipy 'constant' with cval,
                                BORDER_CONSTANT) */
    FV_BORDER_WRAP,          /* bcd|abcd|abc   periodic (scipy 'grid-wrap', BORDER_WRAP) */
    FV_BORDER_COUNT
} fv_border;

#define FV_BORDER_BIT(b)     (1u << (b))
#define FV_BORDERS_ALL       ((1u << FV_BORDER_COUNT) - 1u)
#define FV_BORDERS_REPLICATE FV_BORDER_BIT(FV_BORDER_REPLICATE)

/* The choices of every filter's `border` parameter, in fv_border's order. */
extern const char *const fv_border_names[FV_BORDER_COUNT];

#define FV_MAX_DIMENSION 32768             /* per side */
#define FV_MAX_PIXELS    ((size_t)1 << 28) /* 268 Mpix = 1 GiB of RGBA8 */

fv_status fv_check_dimensions(int width, int height);
fv_status fv_host_image_alloc(fv_image *img, int width, int height); /* RGBA8 */
/* Any type and channel count (1, 3 or 4), rows packed. */
fv_status fv_host_image_alloc_as(fv_image *img, int width, int height, fv_pixel_type type,
                                 int channels);
void fv_host_image_free(fv_image *img);
fv_status fv_device_image_alloc(fv_image *img, int width, int height); /* RGBA8 */
fv_status fv_device_image_alloc_as(fv_image *img, int width, int height, fv_pixel_type type,
                                   int channels);
void fv_device_image_free(fv_image *img);
fv_status fv_image_upload(fv_image *device_dst, const fv_image *host_src);
/* Random RGBA content from a seed (benchmark and viewer --random; never all zeros). */
void fv_image_fill_random(fv_image *img, unsigned seed);
fv_status fv_image_download(fv_image *host_dst, const fv_image *device_src);

/* ---- parameters, described by data ---- */
typedef enum fv_param_type {
    FV_PARAM_INT,    /* plain decimal integer */
    FV_PARAM_REAL,   /* plain decimal number */
    FV_PARAM_CHOICE, /* one of `choices` by name; the value is its index */
    FV_PARAM_IMAGE   /* a host image the caller loads and owns (conv's kernel from a file); its
                         value is 1 when one is given, 0 for the filter's built-in default */
} fv_param_type;

typedef struct fv_param_desc {
    const char *name; /* --NAME VALUE and -p NAME=VALUE; keys, HUD, file names */
    const char *help; /* one line */
    fv_param_type type;
    double min, max; /* inclusive (CHOICE: set from n_choices; IMAGE: max is the largest
                                  width and height the program may load) */
    double step;     /* one key press (s/S); a fast step (d/D) is ten */
    double def;      /* the default */
    int odd_only;    /* INT: odd values only (a window of 2k+1) */
    const char *const *choices;
    int n_choices;
    const char *auto_means; /* non-NULL: 0 is also allowed and means this ("ceil(3 sigma)") */
    const char *follows;    /* the parameter whose change resets this one to 0 (auto) */
    /* "shape=gaussian", "shape=disk|box": the parameter matters only while that choice of
     * another is made, and descriptions ("wrote ...", the HUD, bench rows) leave it out
     * otherwise; NULL: it always matters */
    const char *in_play_when;
    /* left out of descriptions and file names while at its default (the border rows: most runs
     * never change them) */
    int quiet_default;
} fv_param_desc;

#define FV_MAX_PARAMS     12
#define FV_MAX_ITERATIONS 10000

/* Values in the order of the filter's parameter table, plus the iteration count. */
typedef struct fv_params {
    double value[FV_MAX_PARAMS];
    const fv_image *image[FV_MAX_PARAMS]; /* FV_PARAM_IMAGE: the image, NULL for the default; the
                                             caller keeps it alive while a runner uses it */
    int iterations;     /* the filter is applied this many times (1..f->max_iterations) */
    fv_pixel_type type; /* of the images a runner prepared with these parameters takes: part of
                           the configuration, checked at prepare against the variant's types */
} fv_params;

/* ---- tolerances ---- */
typedef struct fv_tolerance {
    int max_abs;      /* integer types: largest |difference| of any channel; 0 = bit-exact */
    double max_share; /* largest share of pixels (0..1) that may differ at all; above 0
                                  it allows one pixel at least (tiny images) */
    double float_abs; /* float32: largest |difference| in the image's units, on test images of
                         values in 0..1 (the filter's design doc says why); NaN and infinity
                         must land where the reference puts them */
    int u16_abs;      /* uint16, where it needs another bound than max_abs (0: max_abs) */
} fv_tolerance;

/* ---- colour keys: what the colours of a false-colour picture mean ---- */
/* A stage that shows something other than the picture's own colours (Canny's gradient
 * direction, conv's spectra) says what its colours mean with one of these: a title and either a
 * gray ramp with three ticks or up to four named swatches. The filter declares it (its `legend`
 * callback); the viewer's HUD draws any of them the same way. */
#define FV_LEGEND_MAX_SWATCHES 4

typedef struct fv_legend_swatch {
    uint8_t rgba[4];
    const char *name; /* "- 0 deg", "weak > low" */
} fv_legend_swatch;

typedef struct fv_legend {
    const char *title; /* "gradient direction (brightness: magnitude)" */
    /* a ramp from black to white with these ticks under its left end, middle and right end
       ("0", "0.5", "1"); ramp_ticks[0] NULL: the swatches instead */
    const char *ramp_ticks[3];
    fv_legend_swatch swatches[FV_LEGEND_MAX_SWATCHES];
    int n_swatches;
} fv_legend;

/* ---- a user kernel's contract: what a filter adds to the header its user kernels include ----
 * kernels/user/ makes the header "filterview.h" from the parameter table and, where a filter has
 * one, this description: the rules its reference rounds by, the derived data its built-in kernels
 * get after the parameters (the Gaussian's integer taps) and the constants that size them. */
#define FV_USER_MAX_FIELDS    4
#define FV_USER_MAX_CONSTANTS 4

typedef enum fv_user_field_type { FV_USER_FIELD_INT, FV_USER_FIELD_FLOAT } fv_user_field_type;

/* One field of derived data: `count` 4-byte ints or floats (an array when above 1). */
typedef struct fv_user_field {
    const char *name;
    fv_user_field_type type;
    int count;
    const char *comment; /* the header's comment above it, lines split by '\n' */
} fv_user_field;

/* "#define NAME value" in the header, after the parameter struct */
typedef struct fv_user_constant {
    const char *name;
    int value;
} fv_user_constant;

typedef struct fv_user_contract_desc {
    const char *conventions; /* the header comment's lines on rounding, each " * ..." and '\n' */
    fv_user_field fields[FV_USER_MAX_FIELDS];
    int n_fields;
    /* writes the fields' values for these resolved parameters, packed in order from `base`
     * (4 * count bytes each); NULL when there are no fields */
    void (*fill)(const fv_params *resolved, unsigned char *base);
    fv_user_constant constants[FV_USER_MAX_CONSTANTS];
    int n_constants;
} fv_user_contract_desc;

/* ---- filters and their variants ---- */
typedef struct fv_variant fv_variant;

/* ---- typed configurations: a filter's parameters as it reads them ---- */
/* The values above are what the user sets; what a filter's reference, variants and reach read is
 * its typed configuration (the Gaussian's sigma, radius, border and integer taps), made once by
 * the filter's config_make when fv_runner_prepare sees new values, after the table's ranges have
 * passed. Nothing after it checks a parameter again: every pass trusts its configuration. */
/* 68 KiB: the largest is conv's, whose kernel of up to 127x127 integer weights (64 KiB) is built
 * once in it. A runner holds one; a check (fv_params_check, fv_filter_reach) holds one on its
 * stack for the call. */
#define FV_MAX_CONFIG_BYTES (68 * 1024)
/* Room for any filter's configuration, aligned for any member (filters assert that theirs fits). */
typedef union fv_config {
    double align_double;
    void *align_pointer;
    unsigned char bytes[FV_MAX_CONFIG_BYTES];
} fv_config;

/* Makes a filter's typed configuration from values whose ranges have been checked (see
 * fv_filter.config_make). Returns 1, or 0 with a one-line reason in `why`. */
typedef int (*fv_config_make_fn)(const fv_params *p, void *config, char *why, size_t why_size);

/* One pass of a GPU variant `v` (its row of the table: every callback gets it first, so that
 * several variants can share one callback that reads v->id): src and dst are device images of
 * the same size, never aliased; `config` is the filter's typed configuration made at prepare;
 * `state` is what the variant's state_create made for it and this size (NULL if it has none).
 * Enqueues on `stream`; allocates nothing. fv_runner_prepare checked the parameters and
 * fv_runner_run the images: a run trusts both. */
typedef fv_status (*fv_run_fn)(const fv_variant *v, const fv_image *src, fv_image *dst,
                               const void *config, void *state, cudaStream_t stream);
/* One pass of the CPU reference on host images of the same size, with the filter's typed
 * configuration. */
typedef fv_status (*fv_ref_fn)(const fv_image *src, fv_image *dst, const void *config);

/* One kernel a variant launches, for teaching: resources come from the CUDA runtime. */
typedef struct fv_kernel_info {
    const char *name;
    const void *func; /* the __global__ function (NULL: not ours, e.g. NPP) */
    int block_threads;
    size_t dynamic_smem; /* bytes */
} fv_kernel_info;

#define FV_MAX_KERNELS 4

/* What a variant is for: the menus, the benchmark, the tests and the library pick by role, never
 * by name or position. */
typedef enum fv_variant_role {
    FV_ROLE_TEACHING = 0, /* a step of the lesson (naive, shared memory, ...): held to ref */
    FV_ROLE_FASTEST,      /* the one to use when nobody asks for another: held to ref */
    FV_ROLE_PEER,         /* another library's implementation (NPP): its difference from the
                                  reference is reported, not held to a tolerance */
    FV_ROLE_REFERENCE     /* the plain-C reference on the host: the test oracle */
} fv_variant_role;

struct fv_variant {
    const char *name;
    fv_variant_role role;
    const char *summary; /* one line a student would understand */
    fv_run_fn run;       /* NULL: the `cpu` variant, i.e. the filter's reference */
    /* Optional device state with a lifetime: made by fv_runner_prepare when the image size or a
     * parameter changes (before any timing), used by every run, destroyed on change or release.
     * The prepare-time callbacks get the values `p` and the filter's configuration: built-in
     * variants read the configuration; user kernels pack the values by name (their contract). */
    size_t (*state_bytes)(const fv_variant *v, const fv_params *p, const void *config, int width,
                          int height);
    fv_status (*state_create)(const fv_variant *v, void **state, const fv_params *p,
                              const void *config, int width, int height);
    void (*state_destroy)(const fv_variant *v, void *state);
    /* What it launches with these parameters (up to max); returns the count. */
    int (*kernels)(const fv_variant *v, const fv_params *p, const void *config, fv_kernel_info *out,
                   int max);
    /* Optional: what the last run did that its time depends on ("hysteresis: 12 tile rounds"),
     * read from the state after the run has finished (not timed); returns 0 with nothing to say. */
    int (*last_run_text)(const fv_variant *v, const void *state, char *text, size_t size);
    const fv_tolerance *tolerance; /* NULL: the filter's */
    /* Peers: whether this case is one they can do (NPP's Canny has no blur, its conv only the
     * output stage). Returns 1, or 0 with a one-line reason in `why`; fv_runner_prepare then fails
     * with FV_ERR_UNSUPPORTED before making anything. NULL: every case. */
    int (*supports)(const fv_variant *v, const fv_params *p, const void *config, int width,
                    int height, char *why, size_t why_size);
    /* The variant's own constant, for callbacks that several variants share (conv's one
     * state_create reads which way it runs from here); 0 where nobody reads it. */
    int id;
    /* The pixel types (FV_TYPE_BIT masks) and borders (FV_BORDER_BIT masks) it runs: the
     * registry refuses others at prepare, naming what it does run. 0: uint8 only, replicate
     * only (what every variant ran before types and borders existed). */
    unsigned types, borders;
    /* Why a batch must not record its runs into a CUDA graph and replay them, NULL where it may
     * (kernels/api/api_graph.h). Set for code whose behaviour under stream capture is not
     * documented: a step of it that escaped the capture (work on another stream, a host value
     * read once) would be replayed wrong without any error. A run that synchronises needs no
     * reason here: CUDA refuses it while capturing, and the batch runs directly. */
    const char *uncapturable;
};

typedef struct fv_filter {
    const char *name;
    const char *summary;
    const fv_param_desc *params;
    int n_params;
    fv_ref_fn ref;
    /* Makes the typed configuration (at most config_bytes <= FV_MAX_CONFIG_BYTES) from values
     * whose ranges fv_config_make has checked, and applies the rules between parameters that no
     * range can say: the one place those are checked. Returns 1, or 0 with a one-line reason in
     * `why`. Called only through fv_config_make. */
    fv_config_make_fn config_make;
    size_t config_bytes;
    /* optional: fills derived values for text (the Gaussian's radius 0 = ceil(3 sigma)) */
    void (*resolve)(fv_params *p);
    const fv_variant *variants;
    int n_variants;
    const char *baseline;   /* the variant speedups are measured against */
    fv_tolerance tolerance; /* of every GPU variant against ref, unless the variant says */
    /* How far one pass reads from each output pixel, in pixels, with these parameters (derived
     * ones filled in): a chunk given this halo of its neighbours' pixels comes out as the whole
     * image's result does (Dask's map_overlap depth). -1: no bounded reach (a step over the
     * whole image: Canny's full hysteresis, its automatic thresholds). NULL: 0, a pixel alone.
     * Reads the configuration. */
    int (*reach)(const void *config);
    /* device memory traffic in bytes of one pass (read + write), for GB/s figures */
    double (*traffic_bytes)(const fv_params *p, int width, int height);
    int max_iterations;
    /* extra parameter sets the GPU tests run besides each parameter's corners ("sigma=3") */
    const char *const *test_params;
    /* optional: the colour key of the picture these parameters show, NULL where its colours
     * are the image's own (most stages). Parameter sets that show the same key return the same
     * pointer, so that two panes showing it share one key. NULL: never a key. */
    const fv_legend *(*legend)(const fv_params *p);
    /* optional: what the filter adds to its user kernels' contract header; NULL: its parameters
     * and the general rules only */
    const fv_user_contract_desc *user_contract;
} fv_filter;

/* traffic_bytes of a filter that reads each pixel once and writes it once: 4 channels each way */
double fv_traffic_read_write(const fv_params *p, int width, int height);

#define FV_VARIANT_CPU                                                                             \
    {                                                                                              \
        .name = "cpu", .role = FV_ROLE_REFERENCE,                                                  \
        .summary = "plain-C reference on the host: the test oracle"                                \
    }
/* The reference of a filter whose reference runs every type and border. */
#define FV_VARIANT_CPU_ALL                                                                         \
    {                                                                                              \
        .name = "cpu", .role = FV_ROLE_REFERENCE,                                                  \
        .summary = "plain-C reference on the host: the test oracle", .types = FV_TYPES_ALL,        \
        .borders = FV_BORDERS_ALL                                                                  \
    }

/* The last two rows of a neighbourhood filter's parameter table: the border and its constant.
 * fv_params_border and fv_params_cval read them by name. */
#define FV_PARAM_BORDER_ROWS                                                                       \
    {.name = "border",                                                                             \
     .help = "what is read past the edge: replicate, reflect, mirror, constant (cval) or wrap",    \
     .type = FV_PARAM_CHOICE,                                                                      \
     .def = FV_BORDER_REPLICATE,                                                                   \
     .choices = fv_border_names,                                                                   \
     .n_choices = FV_BORDER_COUNT,                                                                 \
     .quiet_default = 1},                                                                          \
    {                                                                                              \
        .name = "cval", .help = "the constant border's value, in the image's units",               \
        .type = FV_PARAM_REAL, .min = -1e30, .max = 1e30, .step = 1, .def = 0,                     \
        .in_play_when = "border=constant", .quiet_default = 1                                      \
    }

extern const fv_filter *const fv_filters[];
extern const int fv_n_filters;
#define FV_MAX_FILTERS 16

const fv_filter *fv_filter_find(const char *name);
int fv_filter_index(const fv_filter *f);
const fv_variant *fv_variant_find(const fv_filter *f, const char *name);
/* Read from the variant's row alone, here rather than in registry.c: device.c asks too, and the
 * registry calls device.c (no two files call each other). */
static inline int fv_variant_is_host(const fv_variant *v) /* the reference: runs on host images */
{
    return v->role == FV_ROLE_REFERENCE;
}
static inline int fv_variant_is_peer(const fv_variant *v)
{
    return v->role == FV_ROLE_PEER;
}
/* The filter's variant of that role (the first, where several share it); NULL when none has it. */
const fv_variant *fv_filter_variant_of_role(const fv_filter *f, fv_variant_role role);
int fv_variant_index(const fv_filter *f, const fv_variant *v);
const fv_variant *fv_filter_baseline(const fv_filter *f);
const fv_tolerance *fv_variant_tolerance(const fv_filter *f, const fv_variant *v);
/* The variant's types and borders, its zeros read as uint8 and replicate. */
unsigned fv_variant_types(const fv_variant *v);
unsigned fv_variant_borders(const fv_variant *v);

/* ---- parameter tables (kernels/core/params.c: no GPU needed) ---- */
fv_params fv_params_default(const fv_filter *f);
/* 1 when x and y ask for the same run: the same values, images and iterations (the pixel type
 * is the image's, not a choice of the parameters) */
int fv_params_same(const fv_params *x, const fv_params *y);
/* The border and its constant (FV_PARAM_BORDER_ROWS); replicate and 0 for a filter without. */
fv_border fv_params_border(const fv_filter *f, const fv_params *p);
double fv_params_cval(const fv_filter *f, const fv_params *p);
int fv_param_index(const fv_filter *f, const char *name); /* -1: no such parameter */
/* The index of the filter's image parameter (FV_PARAM_IMAGE: a file the program loads, such as
 * conv's kernel), -1 where it has none: the program finds it by its type, not its name. */
int fv_param_image_index(const fv_filter *f);
/* Parses `text` strictly (plain decimal; a choice by name) and checks it against the range;
 * on failure records "FLAG: expected ..., got 'text'" (FLAG as the user wrote it). */
fv_status fv_param_parse(const fv_filter *f, int index, const char *text, const char *flag,
                         double *out);
fv_status fv_param_check(const fv_filter *f, int index, double value, const char *flag);
/* The one rule for "name=value": the name is what comes before the first '=' (not empty, shorter
 * than name_size), the value all after it (may be empty). Returns 0 for text that is no such
 * pair; else copies the name and points *value at the value. */
int fv_param_split(const char *text, char *name, size_t name_size, const char **value);
/* The one parser of parameter text: "name=value" pairs separated by spaces, commas, tabs or
 * newlines ("low=50 high=150", "sigma=2, iterations=3"), NULL or "" for the defaults, into *p
 * (the defaults, then each value given; "iterations" sets the count). Names are the table's,
 * exactly; a name given twice, an unknown name (the message lists the filter's) and a bad value
 * (fv_param_parse's message) are refused. A value given is kept even where a parameter it follows
 * is given too. Used by the library's API, the tests' parameter sets and the command line's -p. */
fv_status fv_params_from_text(const fv_filter *f, const char *text, fv_params *p);
/* Every parameter's range, the iteration count, and the filter's own constraints. */
/* Every parameter's range, the iteration count, and the filter's own constraints: the
 * configuration made and dropped (fv_config_make), for callers that want an early answer. */
fv_status fv_params_check(const fv_filter *f, const fv_params *p);
/* The filter's typed configuration from p: checks every parameter's range (fv_param_check), the
 * iteration count and image parameters, then f->config_make, whose refusal becomes FV_ERR_ARG
 * "NAME: why". The one maker of configurations: fv_runner_prepare calls it when values change. */
fv_status fv_config_make(const fv_filter *f, const fv_params *p, fv_config *out);
/* How many configurations fv_config_make has made in this process: tests check that a prepare
 * makes one, and that runs, passes and an unchanged prepare make none. */
unsigned long long fv_config_makes(void);
/* Sets parameter `index` (no check), and resets the parameters that follow it to 0 (auto). */
void fv_param_set(const fv_filter *f, fv_params *p, int index, double value);
/* Steps parameter `index` by `steps` steps, kept in range (odd-only stays odd). Returns 1 when
 * the value changed. */
int fv_param_step(const fv_filter *f, fv_params *p, int index, int steps);
/* "1.25", "7", "l2", "auto" */
void fv_param_format(const fv_filter *f, int index, double value, char *buf, size_t size);
/* Whether parameter `index` matters with these values (its in_play_when choice is made). */
int fv_param_in_play(const fv_filter *f, const fv_params *p, int index);
/* "sigma 1.25, radius 4" with derived values filled in ("no parameters" for none); the
 * parameters out of play (fv_param_in_play) are left out */
void fv_params_describe(const fv_filter *f, const fv_params *p, char *buf, size_t size);
/* "sigma1.25-radius4": the same for file names */
void fv_params_file_tag(const fv_filter *f, const fv_params *p, char *buf, size_t size);
/* "0.1..10.66, default 1" */
void fv_param_range_text(const fv_filter *f, int index, char *buf, size_t size);
/* The parameters with derived values filled in (a copy through f->resolve). */
fv_params fv_params_resolved(const fv_filter *f, const fv_params *p);
/* The reach of p->iterations passes (f->reach of the configuration, times the passes), or -1
 * where it has none or the parameters are not valid (fv_params_check says why). */
long long fv_filter_reach(const fv_filter *f, const fv_params *p);

/* ---- the one iteration driver (host and device alike) ---- */
/* One pass from `in` to `out` (same size, never aliased). */
typedef fv_status (*fv_pass_fn)(void *context, const fv_image *in, fv_image *out);
/* `iterations` passes from src into dst, ping-ponging through `ping` (same size; may be NULL
 * for one pass) so that the last pass lands in dst. */
fv_status fv_iterate(fv_pass_fn pass, void *context, const fv_image *src, fv_image *dst,
                     fv_image *ping, int iterations);

/* ---- running a variant: the runner owns its iteration buffer and the variant's state ---- */
typedef struct fv_runner {
    const fv_filter *filter;
    const fv_variant *variant;
    fv_params params; /* what the state was made for (iterations may change freely) */
    fv_config config; /* the filter's configuration of params: what every pass reads */
    int width, height;
    int prepared;
    fv_image ping; /* iteration buffer: device, or host for the cpu variant */
    void *state;
    size_t device_bytes; /* what prepare holds on the device */
} fv_runner;

/* Device bytes a runner for (f, v, p) at width x height holds: iteration buffer plus state. */
size_t fv_runner_device_bytes(const fv_filter *f, const fv_variant *v, const fv_params *p,
                              int width, int height);
/* Makes r ready to run v with p at width x height: checks the parameters, the dimensions and the
 * variant's supports, checks that what it needs fits in free device memory, reserves the
 * iteration buffer and makes the variant's state. Keeps what it has when nothing that matters
 * changed (iterations alone never do). The one place parameters are validated for a run. */
fv_status fv_runner_prepare(fv_runner *r, const fv_filter *f, const fv_variant *v,
                            const fv_params *p, int width, int height);
/* Runs r->params.iterations passes from src into dst: device images for GPU variants (enqueued
 * on stream), host images for the cpu variant. One iteration driver serves both; it allocates
 * nothing and fails if r was not prepared for this size, or (GPU) rows are not on 4-byte
 * boundaries. */
fv_status fv_runner_run(const fv_runner *r, const fv_image *src, fv_image *dst,
                        cudaStream_t stream);
void fv_runner_release(fv_runner *r);
/* How many iteration buffers and variant states fv_runner_prepare has made in this process:
 * the viewer checks that its frames leave it alone (only a change of image, size, filter,
 * variant or parameter may move it). */
unsigned long long fv_runner_allocations(void);
/* The variant's note on the last run (fv_variant.last_run_text); 0 and "" when it has none. */
int fv_runner_last_run_text(const fv_runner *r, char *text, size_t size);

/* ---- kernel resources, for teaching (kernels/core/device.c) ---- */
typedef struct fv_kernel_resources {
    int registers; /* per thread */
    size_t static_smem, dynamic_smem;
    int block_threads;
    int blocks_per_sm; /* theoretical, from the occupancy API */
    double occupancy;  /* resident warps / the SM's maximum, 0..1 */
} fv_kernel_resources;

fv_status fv_kernel_resources_get(const fv_kernel_info *k, fv_kernel_resources *out);
/* "gaussian_fast<2>: 256 thr, 40 regs, 32.0 KiB smem, occ 75%; ..." for every kernel of v with
 * p, or a note why there is nothing to say (cpu, peer, no device). f is the filter v runs for:
 * where its table holds v, its configuration is made from p; a user kernel (not in the table)
 * packs p itself. The caller names f, so that this file needs nothing of the registry's. */
void fv_variant_resources_text(const fv_filter *f, const fv_variant *v, const fv_params *p,
                               char *buf, size_t size);

/* ---- GPU comparison of two device images (kernels/core/diff.cu) ---- */
typedef struct fv_diff_stats {
    int max_abs;           /* largest |a - b| over R, G, B, A (float32: rounded up) */
    double mean_abs;       /* mean |a - b| over all channels */
    long long n_differing; /* pixels with any channel different */
    double max_abs_value;  /* largest |a - b| in the image's units (float32: exact; NaN against a
                              number, or infinities of different sign, count as infinity) */
    fv_pixel_type type;    /* of the images compared: a tolerance's float_abs is float32's */
} fv_diff_stats;

/* The same statistics on the host (CPU mode, tests, the CLI's --compare). */
void fv_diff_host(const fv_image *a, const fv_image *b, fv_diff_stats *out);
/* The largest |difference| t allows in images of an integer `type` (uint16's own where it has one) */
int fv_tolerance_int_bound(const fv_tolerance *t, fv_pixel_type type);
/* 1 when d is within tolerance t for an image of n_pixels pixels */
int fv_tolerance_holds(const fv_tolerance *t, const fv_diff_stats *d, long long n_pixels);

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
/* The current device's compute capability major version (9 for Hopper); 0 where there is no
 * device to ask (the error is cleared, for the caller's own path to report). */
int fv_device_compute_major(void);
/* Fails with FV_ERR_MEMORY and a message when `bytes` more do not fit in free device memory.
 * FV_GPU_MEMORY_LIMIT_MB in the environment caps what counts as free (to test the message). */
fv_status fv_device_check_fits(size_t bytes, const char *what);

#ifdef __cplusplus
}
#endif
#endif
