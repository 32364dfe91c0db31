/* ------------------------------------------------------------------------------------------------
 * kernels/box/box.c: the box filter's descriptor: its parameters, its variant table and what the
 * registry, the tests and the chunked runs read (test parameter sets, reach). Plain C, so that a
 * build without CUDA has every filter too: there, the GPU rows (kernels/box/box_gpu.h) are left out
 * and the reference `cpu` is the filter's one variant.
 * ------------------------------------------------------------------------------------------------ */
#include "box.h"
#include "box_gpu.h"
#include "box_npp.h"

/* ---- the descriptor -------------------------------------------------------------------------- */
static const fv_variant box_variants[] = {
#ifdef FV_HAVE_CUDA
    {.name = "naive",
     .summary = "one thread per pixel; all (2r+1)^2 taps read from global memory",
     .run = box_naive_run,
     .state_create = box_teach_state_create,
     .state_destroy = box_teach_state_destroy,
     .kernels = box_naive_kernels,
     .types = FV_TYPES_INT,
     .borders = FV_BORDERS_ALL},
    {.name = "unrolled",
     .summary = "radius as a template constant: loops fully unrolled for r = 1..8; "
                "beyond, the runtime-radius loop with #pragma unroll 4 on the inner loop",
     .run = box_unrolled_run,
     .state_create = box_teach_state_create,
     .state_destroy = box_teach_state_destroy,
     .kernels = box_unrolled_kernels,
     .types = FV_TYPES_INT,
     .borders = FV_BORDERS_ALL},
    {.name = "smem",
     .summary = "16x16 block stages its tile plus r-pixel apron in shared memory (48 KiB): "
                "all at once up to r = 47, beyond in strips of rows summed one after another",
     .run = box_smem_run,
     .state_create = box_teach_state_create,
     .state_destroy = box_teach_state_destroy,
     .kernels = box_smem_kernels,
     .types = FV_TYPES_INT,
     .borders = FV_BORDERS_ALL},
    {.name = "tex",
     .summary = "taps read through a texture object, clamp address mode does the borders; "
                "copying the source into its cudaArray each run is part of its time",
     .run = box_tex_run,
     .state_bytes = box_tex_state_bytes,
     .state_create = box_tex_state_create,
     .state_destroy = box_tex_state_destroy,
     .kernels = box_tex_kernels,
     .types = FV_TYPES_INT,
     .borders = FV_BORDERS_REPLICATE},
    {.name = "fast",
     .role = FV_ROLE_FASTEST,
     .summary = box_fast_summary,
     .run = box_fastest_run,
     .state_bytes = box_fastest_state_bytes,
     .state_create = box_fastest_state_create,
     .state_destroy = box_fastest_state_destroy,
     .kernels = box_fastest_kernels,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
#endif
    FV_VARIANT_NPP_BOX FV_VARIANT_CPU_ALL,
};

static const fv_param_desc box_params[BOX_N_PARAMS] = {
    {.name = "radius",
     .help = "half-width: the window is (2r+1) x (2r+1) pixels",
     .type = FV_PARAM_INT,
     .min = 1,
     .max = FV_BOX_MAX_RADIUS,
     .step = 1,
     .def = 1},
    FV_PARAM_BORDER_ROWS,
};

/* 7/8 and 44/45: the prefix modes' boundaries (16-bit lanes, 21-bit lanes, plain words); 20/21:
 * the last warp and first block group */
static const char *const box_test_params[] = {"radius=2",  "radius=7",  "radius=8",   "radius=16",
                                              "radius=17", "radius=20", "radius=21",  "radius=44",
                                              "radius=45", "radius=64", "radius=100", NULL};

/* the window's half-width */
static int box_reach(const void *config)
{
    return ((const box_config *)config)->radius;
}

/* what a user kernel must compute to equal the reference (its contract header says it) */
static const fv_user_contract_desc box_user_contract = {
    .conventions =
        " * box: out = (sum of the (2r+1)^2 window + area / 2) / area per channel R, G, B, in\n"
        " *   integers (area = (2r+1)^2): the rounded mean, half up.\n",
};

const fv_filter fv_filter_box = {
    .name = "box",
    .summary = "box (mean) filter: the rounded average of a (2r+1)^2 window, alpha kept",
    .params = box_params,
    .n_params = BOX_N_PARAMS,
    .ref = box_ref,
    .config_make = box_config_make,
    .config_bytes = sizeof(box_config),
    .variants = box_variants,
    .n_variants = (int)(sizeof box_variants / sizeof box_variants[0]),
    .baseline = "naive",
    /* integers bit-exact (their differences are whole units, above float_abs); float32 within
     * float_abs of the double reference (the bound: docs/design/box.md) */
    .tolerance = {.max_abs = 0, .max_share = 1.0, .float_abs = 4e-6},
    .reach = box_reach,
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = FV_MAX_ITERATIONS,
    .test_params = box_test_params,
    .user_contract = &box_user_contract,
};
