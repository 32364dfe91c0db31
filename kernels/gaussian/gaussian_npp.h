/* ------------------------------------------------------------------------------------------------
 * kernels/gaussian/gaussian_npp.h: the Gaussian's NPP peer, variant `npp`
 * (kernels/gaussian/gaussian_npp.c): its callbacks and FV_VARIANT_NPP_GAUSSIAN, the row
 * kernels/gaussian/gaussian.cu puts in its variant table. Where NPP was not found (no FV_HAVE_NPP)
 * the row is empty and the filter has no `npp` variant.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_GAUSSIAN_NPP_H
#define FV_GAUSSIAN_NPP_H

#include "filter.h"

#ifdef FV_HAVE_NPP
#include "npp/npp_common.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
fv_status gaussian_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                    const void *config, int width, int height);
fv_status gaussian_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                           const void *config, void *state, cudaStream_t stream);
/* NPP's float arithmetic, rounded in each of its two 1-D passes: within 2 levels of gaussian_ref
 * per pass for uint8 and uint16, 1e-5 for float32 (any share) */
extern const fv_tolerance gaussian_npp_tolerance;

#define FV_VARIANT_NPP_GAUSSIAN                                                                    \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                         \
     .summary = "NVIDIA NPP's nppiFilterGaussAdvancedBorder (8u, 16u, 32f C4R) with our taps as "  \
                "floats, replicated border, alpha put back: the peer; NPP's float arithmetic "     \
                "rounds its own way (within 2 levels per pass)",                                   \
     .run = gaussian_npp_run,                                                                      \
     .state_create = gaussian_npp_state_create,                                                    \
     .state_destroy = npp_state_destroy,                                                           \
     .tolerance = &gaussian_npp_tolerance,                                                         \
     .types = FV_TYPES_ALL,                                                                        \
     .borders = FV_BORDERS_REPLICATE,                                                              \
     .uncapturable = FV_NPP_UNCAPTURABLE},
#else
#define FV_VARIANT_NPP_GAUSSIAN
#endif

#ifdef __cplusplus
}
#endif
#endif
