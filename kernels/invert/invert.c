/* ------------------------------------------------------------------------------------------------
 * kernels/invert/invert.c: the invert filter's descriptor: its parameters, its variant table and
 * what the registry, the tests and the chunked runs read (test parameter sets, reach). Plain C, so
 * that a build without CUDA has every filter too: there, the GPU rows (kernels/invert/invert_gpu.h)
 * are left out and the reference `cpu` is the filter's one variant.
 * ------------------------------------------------------------------------------------------------ */
#include "invert.h"
#include "invert_gpu.h"

/* Read once, written once: 2 x 4 channels of the type a pixel. */
static double invert_traffic_bytes(const fv_params *p, int width, int height)
{
    return 8.0 * (double)fv_pixel_type_bytes(p->type) * (double)width * (double)height;
}

static const fv_variant invert_variants[] = {
#ifdef FV_HAVE_CUDA
    {.name = "naive",
     .role = FV_ROLE_FASTEST,
     .summary = "one thread per pixel: max - value is an XOR of the colour bits (float: 1 - v); "
                "no neighbours read, so no border",
     .run = invert_naive_run,
     .kernels = invert_naive_kernels,
     .types = FV_TYPES_ALL},
#endif
    {.name = "cpu",
     .role = FV_ROLE_REFERENCE,
     .summary = "plain-C reference on the host: the test oracle",
     .types = FV_TYPES_ALL},
};

/* what a user kernel must compute to equal the reference (its contract header says it) */
static const fv_user_contract_desc invert_user_contract = {
    .conventions = " * invert: out = 255 - in for R, G, B.\n",
};

const fv_filter fv_filter_invert = {
    .name = "invert",
    .summary = "colour negative (255 - v, 65535 - v, float 1 - v), alpha kept; reads no "
               "neighbour, so no border",
    .ref = invert_ref,
    .config_make = invert_config_make,
    .config_bytes = sizeof(invert_config),
    .variants = invert_variants,
    .n_variants = (int)(sizeof invert_variants / sizeof invert_variants[0]),
    .baseline = "naive",
    .tolerance = {0, 0.0, 0.0}, /* bit-exact in every type: 1 - v is one IEEE subtraction */
    .traffic_bytes = invert_traffic_bytes,
    .max_iterations = FV_MAX_ITERATIONS,
    .user_contract = &invert_user_contract,
};
