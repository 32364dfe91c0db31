/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_npp.h: the box filter's NPP peer, variant `npp` (kernels/box/box_npp.c): its
 * callbacks and FV_VARIANT_NPP_BOX, the row kernels/box/box.cu puts in its variant table. Where
 * NPP was not found (no FV_HAVE_NPP) the row is empty and the filter has no `npp` variant.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BOX_NPP_H
#define FV_BOX_NPP_H

#include "filter.h"

#ifdef FV_HAVE_NPP
#include "npp/npp_common.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
/* 0 (why said) for a 16-bit window too large for NPP's 32-bit sums */
int box_npp_supports(const fv_variant *v, const fv_params *p, const void *config, int width,
                     int height, char *why, size_t why_size);
fv_status box_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                               const void *config, int width, int height);
fv_status box_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                      void *state, cudaStream_t stream);
/* NPP rounds the window's mean its own way: within 1 level of box_ref per pass for uint8 and
 * uint16, 1e-3 for float32 (its single-precision sums; any share) */
extern const fv_tolerance box_npp_tolerance;

#define FV_VARIANT_NPP_BOX                                                                         \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                         \
     .summary = "NVIDIA NPP's nppiFilterBoxBorder (8u, 16u, 32f C4R), replicated border, alpha "   \
                "put back: the field's peer; NPP rounds the mean its own way (within 1 level per " \
                "pass)",                                                                           \
     .supports = box_npp_supports,                                                                 \
     .run = box_npp_run,                                                                           \
     .state_create = box_npp_state_create,                                                         \
     .state_destroy = npp_state_destroy,                                                           \
     .tolerance = &box_npp_tolerance,                                                              \
     .types = FV_TYPES_ALL,                                                                        \
     .borders = FV_BORDERS_REPLICATE,                                                              \
     .uncapturable = FV_NPP_UNCAPTURABLE},
#else
#define FV_VARIANT_NPP_BOX
#endif

#ifdef __cplusplus
}
#endif
#endif
