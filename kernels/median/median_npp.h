/* ------------------------------------------------------------------------------------------------
 * kernels/median/median_npp.h: the median's NPP peer, variant `npp` (kernels/median/median_npp.c):
 * its callbacks and FV_VARIANT_NPP_MEDIAN, the row kernels/median/median.cu puts in its variant
 * table. Where NPP was not found (no FV_HAVE_NPP) the row is empty and the filter has no `npp`
 * variant.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_MEDIAN_NPP_H
#define FV_MEDIAN_NPP_H

#include "filter.h"

#ifdef FV_HAVE_NPP
#include "npp/npp_common.h"
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
size_t median_npp_state_bytes(const fv_variant *v, const fv_params *p, const void *config,
                              int width, int height);
fv_status median_npp_state_create(const fv_variant *v, void **state, const fv_params *p,
                                  const void *config, int width, int height);
void median_npp_state_destroy(const fv_variant *v, void *state);
fv_status median_npp_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                         const void *config, void *state, cudaStream_t stream);
/* a median is chosen, never computed: exact in every type, 0 */
extern const fv_tolerance median_npp_tolerance;

/* NPP's median reads k/2 pixels beyond the ROI on every side and leaves providing them to the
 * caller: each run first copies the source into a padded image with replicated borders (the
 * variant's state), and that copy is part of its time. */
#define FV_VARIANT_NPP_MEDIAN                                                                      \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                         \
     .summary = "NVIDIA NPP's nppiFilterMedian (8u, 16u, 32f C4R) on a copy of the source padded " \
                "by k/2 replicated pixels (NPP reads beyond the ROI; the copy is timed too), "     \
                "alpha put back: the peer, equal to the reference",                                \
     .run = median_npp_run,                                                                        \
     .state_bytes = median_npp_state_bytes,                                                        \
     .state_create = median_npp_state_create,                                                      \
     .state_destroy = median_npp_state_destroy,                                                    \
     .tolerance = &median_npp_tolerance,                                                           \
     .types = FV_TYPES_ALL,                                                                        \
     .borders = FV_BORDERS_REPLICATE,                                                              \
     .uncapturable = FV_NPP_UNCAPTURABLE},
#else
#define FV_VARIANT_NPP_MEDIAN
#endif

#ifdef __cplusplus
}
#endif
#endif
