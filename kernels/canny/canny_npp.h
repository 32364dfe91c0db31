/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_npp.h: Canny's NPP peer, variant `npp` (kernels/canny/canny_npp.cu): its
 * callbacks and FV_VARIANT_NPP_CANNY, the row kernels/canny/canny.cu puts in its variant table.
 * Where NPP was not found (no FV_HAVE_NPP) the row is empty and the filter has no `npp` variant.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CANNY_NPP_H
#define FV_CANNY_NPP_H

#include "filter.h"

#ifdef FV_HAVE_NPP
#include "npp/npp_common.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
size_t canny_npp_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                             int height);
fv_status canny_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                 const void *config, int width, int height);
void canny_npp_state_destroy(const fv_variant *v, void *state);
/* NPP makes an edge map with full hysteresis from manual thresholds: the other stages, one-pass or
 * capped hysteresis and automatic thresholds are declined, rather than shown as edges */
int canny_npp_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                       int height, char *why, size_t why_size);
fv_status canny_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                        void *state, cudaStream_t stream);
/* No blur and NPP's own gradient: its edges are not ours, so R, G and B are not bounded (255,
 * any share); alpha is 255 as in every Canny variant, and that is held exactly. */
extern const fv_tolerance canny_npp_tolerance;

#define FV_VARIANT_NPP_CANNY                                                                       \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                         \
     .summary =                                                                                    \
         "NVIDIA NPP's nppiFilterCannyBorder_8u_C1R on our gray image with the manual low "        \
         "and high, replicated border: no blur, no auto thresholds, only its edge map (stage "     \
         "gray: its input); its edges are NPP's own, not held to ours (alpha 255 as ours)",        \
     .run = canny_npp_run,                                                                         \
     .state_bytes = canny_npp_state_bytes,                                                         \
     .state_create = canny_npp_state_create,                                                       \
     .state_destroy = canny_npp_state_destroy,                                                     \
     .tolerance = &canny_npp_tolerance,                                                            \
     .supports = canny_npp_supports,                                                               \
     .uncapturable = FV_NPP_UNCAPTURABLE},
#else
#define FV_VARIANT_NPP_CANNY
#endif

#ifdef __cplusplus
}
#endif
#endif
