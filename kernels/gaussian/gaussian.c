/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian.c: the Gaussian blur's descriptor: its parameters, its variant table
 * and what the registry, the tests and the chunked runs read (test parameter sets, reach). Plain C,
 * so that a build without CUDA has every filter too: there, the GPU rows
 * (kernels/gaussian/gaussian_gpu.h) are left out and the reference `cpu` is the filter's one
 * variant.
 * ------------------------------------------------------------------------------------------------ */
#include "gaussian_gpu.h"
#include "gaussian_npp.h"
#include "gaussian_taps.h"

#include <string.h>

/* The teaching rows share one launcher, told apart by .id (TEACH_*). */
#define GAUSSIAN_TEACHING(NAME, ID, SUMMARY)                                                       \
    {                                                                                              \
        .name = NAME, .summary = SUMMARY, .run = gaussian_teach_run,                               \
        .state_create = gaussian_state_create, .state_destroy = gaussian_state_destroy,            \
        .kernels = gaussian_teach_kernels, .supports = gaussian_teach_supports, .id = ID,          \
        .types = FV_TYPES_INT, .borders = FV_BORDERS_ALL                                           \
    }

static const fv_variant gaussian_variants[] = {
#ifdef FV_HAVE_CUDA
    GAUSSIAN_TEACHING("naive", TEACH_NAIVE,
                      "one thread per pixel; all (2r+1)^2 taps read from global memory"),
    GAUSSIAN_TEACHING(
        "smem", TEACH_SMEM,
        "16x16 block stages its tile plus an r-pixel apron in shared memory, taps read it"),
    GAUSSIAN_TEACHING(
        "smem_mwpt", TEACH_SMEM_MWPT,
        "shared tile, each thread computes 2x2 pixels: one shared read feeds 4 outputs"),
    {.name = "fast",
     .role = FV_ROLE_FASTEST,
     .summary = "separable in one kernel: 16-byte loads, packed integer math, register windows; "
                "wide radii: both passes as band-matrix products on int8 tensor cores; other "
                "types and borders: a separable kernel templated on the type",
     .run = gaussian_fast_run,
     .state_create = gaussian_state_create,
     .state_destroy = gaussian_state_destroy,
     .kernels = gaussian_fast_kernels,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
#endif
    FV_VARIANT_NPP_GAUSSIAN FV_VARIANT_CPU_ALL,
};

static const fv_param_desc gaussian_params[GAUSSIAN_N_PARAMS] = {
    {.name = "sigma",
     .help = "standard deviation in pixels",
     .type = FV_PARAM_REAL,
     .min = 0.1,
     .max = FV_GAUSSIAN_MAX_SIGMA,
     .step = 0.25,
     .def = 1.0},
    {.name = "radius",
     .help = "half-width of the stencil; follows sigma unless given",
     .type = FV_PARAM_INT,
     .min = 1,
     .max = FV_GAUSSIAN_MAX_RADIUS,
     .step = 1,
     .def = 2,
     .auto_means = "ceil(3 sigma)",
     .follows = "sigma"},
    FV_PARAM_BORDER_ROWS,
};

/* besides each parameter's corners (sigma 10.66 = radius 32, and radius 32 at sigma 1): the
 * default 5x5, small and odd sigmas, and wide ones, with the radius derived and
 * given; for fast's tensor-core path its first radius, radii 8k+1 (the most apron columns) and
 * 8k-1, and taps that do not fit 8 bits (sigma 0.1 at radius 32: the packed-integer kernel) */
static const char *const gaussian_test_params[] = {
    "sigma=0.5",         "sigma=1.3",           "sigma=3",
    "sigma=1 radius=1",  "sigma=1 radius=3",    "sigma=10.6",
    "sigma=5",           "sigma=2 radius=5",    "sigma=8 radius=25",
    "sigma=4 radius=23", "sigma=0.1 radius=32", NULL};

/* the farthest tap whose integer weight is not 0 (a radius far beyond 3 sigma adds zeros) */
static int gaussian_reach(const void *config)
{
    const fv_gaussian_taps *t = &((const gaussian_config *)config)->taps;
    int reach = t->radius;
    while (reach > 0 && t->w[t->radius + reach] == 0) reach--;
    return reach;
}

/* ---- user kernels: the integer taps, so that theirs can make the same bytes ---------------- */
#define GAUSSIAN_TAPS (2 * FV_GAUSSIAN_MAX_RADIUS + 1)

static void gaussian_user_fill(const fv_params *p, unsigned char *base)
{
    fv_gaussian_taps t; /* p has passed prepare: its radius is 1..FV_GAUSSIAN_MAX_RADIUS */
    fv_gaussian_taps_fill(p->value[GAUSSIAN_SIGMA], fv_gaussian_radius(p), &t);
    int taps[GAUSSIAN_TAPS] = {0};
    float pad[GAUSSIAN_TAPS + 2] = {0};
    for (int k = 0; k < 2 * t.radius + 1; k++) {
        taps[k] = t.w[k];
        pad[k + 1] = (float)t.w[k];
    }
    memcpy(base, taps, sizeof taps);
    memcpy(base + sizeof taps, pad, sizeof pad);
}

static const fv_user_contract_desc gaussian_user_contract = {
    .conventions =
        " * gaussian: out = (sum over i, j in -r..r of taps[r+i] * taps[r+j] * in(x+j, y+i) + 32768)\n"
        " *   >> 16 per channel R, G, B: round half up. Every partial sum is an integer below 2^24,\n"
        " *   so float or integer arithmetic in any order gives the same bytes; the built-in kernels\n"
        " *   start each sum at 32768.f, add fmaf(taps_pad[..] * taps_pad[..], value, sum) and\n"
        " *   convert with __float2uint_rz(sum) >> 16. Separable (columns, then rows) is exact too.\n",
    .fields =
        {{"taps", FV_USER_FIELD_INT, GAUSSIAN_TAPS,
          "taps[radius + k]: integer weight of offset k (-radius..radius), symmetric, sum 256;\n"
          "entries past 2 * radius are 0. 2-D weight of (i, j) = taps[i] * taps[j] (sum 65536)"},
         {"taps_pad", FV_USER_FIELD_FLOAT, GAUSSIAN_TAPS + 2,
          "the same as floats with one zero on each side: taps_pad[k + 1] == taps[k],\n"
          "taps_pad[0] == taps_pad[2 * radius + 2] == 0 (what the built-in kernels read)"}},
    .n_fields = 2,
    .fill = gaussian_user_fill,
    .constants = {{"FV_GAUSSIAN_MAX_RADIUS", FV_GAUSSIAN_MAX_RADIUS},
                  {"FV_GAUSSIAN_MAX_TAPS", GAUSSIAN_TAPS}},
    .n_constants = 2,
};

_Static_assert(sizeof(gaussian_config) <= FV_MAX_CONFIG_BYTES, "fits fv_config");

const fv_filter fv_filter_gaussian = {
    .name = "gaussian",
    .summary = "Gaussian blur (sigma, radius = ceil(3 sigma); default 5x5), alpha kept",
    .params = gaussian_params,
    .n_params = GAUSSIAN_N_PARAMS,
    .ref = gaussian_ref,
    .config_make = gaussian_config_make,
    .config_bytes = sizeof(gaussian_config),
    .resolve = gaussian_resolve,
    .variants = gaussian_variants,
    .n_variants = (int)(sizeof gaussian_variants / sizeof gaussian_variants[0]),
    .baseline = "naive",
    /* integers bit-exact (their differences are whole units, above float_abs); float32 within
     * float_abs of the double reference (the bound: docs/design/gaussian.md) */
    .tolerance = {.max_abs = 0, .max_share = 1.0, .float_abs = 1e-5},
    .reach = gaussian_reach,
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = FV_MAX_ITERATIONS,
    .test_params = gaussian_test_params,
    .user_contract = &gaussian_user_contract,
};
