/* ------------------------------------------------------------------------------------------------
 * kernels/median/median.c: the median filter's descriptor: its parameters, its variant table and
 * what the registry, the tests and the chunked runs read (test parameter sets, reach). Plain C, so
 * that a build without CUDA has every filter too: there, the GPU rows (kernels/median/median_gpu.h)
 * are left out and the reference `cpu` is the filter's one variant.
 * ------------------------------------------------------------------------------------------------ */
#include "median.h"
#include "median_gpu.h"
#include "median_npp.h"

/* ---- the descriptor -------------------------------------------------------------------------- */
/* The counting variants run uint8 and uint16 (one pass per bit: 8 or 16) and every border; fast
 * runs every type and border; the state is the configuration they all read. */
#define MEDIAN_STATE .state_create = median_state_create, .state_destroy = median_state_destroy

static const fv_variant median_variants[] = {
#ifdef FV_HAVE_CUDA
    {.name = "naive",
     .summary = "one thread per pixel gathers its k*k pixels from global memory into a per-thread "
                "array (local memory, 2.5 KiB at uint8), then one counting pass per bit (8 at "
                "uint8, 16 at uint16) finds each channel's median",
     .run = median_naive_run,
     MEDIAN_STATE,
     .kernels = median_naive_kernels,
     .types = MEDIAN_COUNT_TYPES,
     .borders = FV_BORDERS_ALL},
    {.name = "smem",
     .summary =
         "16x16 block stages its tile plus a k/2 apron in shared memory once; each thread "
         "counts its window there: no local array, neighbours' pixels read from shared memory",
     .run = median_smem_run,
     MEDIAN_STATE,
     .kernels = median_smem_kernels,
     .id = 1,
     .types = MEDIAN_COUNT_TYPES,
     .borders = FV_BORDERS_ALL},
    {.name = "smem_ppt2",
     .summary = "smem with 2 adjacent outputs per thread: each shared read is counted for both "
                "windows that hold it (k+1 reads per row instead of 2k), half the threads",
     .run = median_smem_run,
     MEDIAN_STATE,
     .kernels = median_smem_kernels,
     .id = 2,
     .types = MEDIAN_COUNT_TYPES,
     .borders = FV_BORDERS_ALL},
    {.name = "smem_ppt4",
     .summary = "smem with 4 adjacent outputs per thread (k+3 reads per row instead of 4k); the "
                "counting itself is not shared, so the gain stops here",
     .run = median_smem_run,
     MEDIAN_STATE,
     .kernels = median_smem_kernels,
     .id = 4,
     .types = MEDIAN_COUNT_TYPES,
     .borders = FV_BORDERS_ALL},
    {.name = "fast",
     .role = FV_ROLE_FASTEST,
     .summary = median_fast_summary,
     .run = median_fast_run,
     MEDIAN_STATE,
     .kernels = median_fast_kernels,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
#endif
    FV_VARIANT_NPP_MEDIAN FV_VARIANT_CPU_ALL,
};

static const fv_param_desc median_params[MEDIAN_N_PARAMS] = {
    {.name = "size",
     .help = "window width and height in pixels (odd): the window is size x size",
     .type = FV_PARAM_INT,
     .min = FV_MEDIAN_MIN_SIZE,
     .max = FV_MEDIAN_MAX_SIZE,
     .step = 2,
     .def = 3,
     .odd_only = 1},
    FV_PARAM_BORDER_ROWS,
};

/* every odd size: the fast variant has code of its own for each */
static const char *const median_test_params[] = {"size=5",  "size=7",  "size=9",  "size=11",
                                                 "size=13", "size=15", "size=17", "size=19",
                                                 "size=21", "size=23", NULL};

/* half the window */
static int median_reach(const void *config)
{
    return ((const median_config *)config)->k / 2;
}

/* what a user kernel must compute to equal the reference (its contract header says it) */
static const fv_user_contract_desc median_user_contract = {
    .conventions =
        " * median: each of R, G, B on its own: the middle value, index (size*size - 1) / 2, of the\n"
        " *   sorted size x size window (the smallest v with more than (size*size-1)/2 values <= v).\n",
};

const fv_filter fv_filter_median = {
    .name = "median",
    .summary = "median filter: each of R, G, B is the median of its size x size window, alpha kept",
    .params = median_params,
    .n_params = MEDIAN_N_PARAMS,
    .ref = median_ref,
    .config_make = median_config_make,
    .config_bytes = sizeof(median_config),
    .variants = median_variants,
    .n_variants = (int)(sizeof median_variants / sizeof median_variants[0]),
    .baseline = "naive",
    .tolerance = {0, 0.0, 0.0}, /* exact in every type: a median is chosen, never computed */
    .reach = median_reach,
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = FV_MAX_ITERATIONS,
    .test_params = median_test_params,
    .user_contract = &median_user_contract,
};
