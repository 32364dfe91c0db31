/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_npp.h: the convolution's NPP peer, variant `npp` (kernels/conv/conv_npp.c):
 * its callbacks and FV_VARIANT_NPP_CONV, the row kernels/conv/conv.cu puts in its variant table.
 * Where NPP was not found (no FV_HAVE_NPP) the row is empty and the filter has no `npp` variant.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CONV_NPP_H
#define FV_CONV_NPP_H

#include "filter.h"

#ifdef FV_HAVE_NPP
#include "npp/npp_common.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
int conv_npp_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                      int height, char *why, size_t why_size);
size_t conv_npp_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                            int height);
fv_status conv_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                const void *config, int width, int height);
fv_status conv_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                       void *state, cudaStream_t stream);
/* NPP rounds its own way: within 8 levels of conv_ref per pass for uint8 and uint16 (uint16's
 * single-precision sums of large kernels), 2e-4 for float32 (any share) */
extern const fv_tolerance conv_npp_tolerance;

/* The convolution's peer: our quantised integer kernel (sum 2^16) and divisor 2^16 for uint8, the
 * same weights as floats for uint16 and float32; output stage only (its supports declines the
 * others before anything is made). */
#define FV_VARIANT_NPP_CONV                                                                        \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                         \
     .summary = "NVIDIA NPP's nppiFilterBorder_8u_C4R with our integer weights, divisor 2^16 "     \
                "(16u, 32f: the same weights as floats), replicated border, alpha put back: the "  \
                "peer (output stage only); NPP rounds its own way (within 1 level per pass)",      \
     .run = conv_npp_run,                                                                          \
     .state_bytes = conv_npp_state_bytes,                                                          \
     .state_create = conv_npp_state_create,                                                        \
     .state_destroy = npp_state_destroy,                                                           \
     .tolerance = &conv_npp_tolerance,                                                             \
     .supports = conv_npp_supports,                                                                \
     .types = FV_TYPES_ALL,                                                                        \
     .borders = FV_BORDERS_REPLICATE,                                                              \
     .uncapturable = FV_NPP_UNCAPTURABLE},
#else
#define FV_VARIANT_NPP_CONV
#endif

#ifdef __cplusplus
}
#endif
#endif
