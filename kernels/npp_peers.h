/* ------------------------------------------------------------------------------------------------
 * kernels/npp_peers.h: NVIDIA's NPP versions of our filters, offered as variant `npp` of each
 * filter where the toolkit has NPP (FV_HAVE_NPP; kernels/npp_peers.c). They take the same
 * parameters, run on the same images and streams, and are marked as peers: the tests and the
 * bench report how far they are from the reference instead of holding them to a tolerance.
 * NPP filters all four channels (alpha too); on opaque photos that makes no difference.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_NPP_PEERS_H
#define FV_NPP_PEERS_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
void npp_state_destroy(void *state);
fv_status npp_gaussian_state_create(void **state, const fv_params *p, int width, int height);
fv_status npp_gaussian_run(const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                           cudaStream_t stream);
fv_status npp_box_state_create(void **state, const fv_params *p, int width, int height);
fv_status npp_box_run(const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                      cudaStream_t stream);

#define FV_VARIANT_NPP_GAUSSIAN                                                                    \
    {.name = "npp",                                                                                \
     .summary = "NVIDIA NPP's nppiFilterGaussAdvancedBorder_8u_C4R with our taps as floats: the peer", \
     .run = npp_gaussian_run,                                                                      \
     .state_create = npp_gaussian_state_create,                                                    \
     .state_destroy = npp_state_destroy,                                                           \
     .peer = 1},
#define FV_VARIANT_NPP_BOX                                                                         \
    {.name = "npp",                                                                                \
     .summary = "NVIDIA NPP's nppiFilterBoxBorder_8u_C4R, replicated border: the field's peer",    \
     .run = npp_box_run,                                                                           \
     .state_create = npp_box_state_create,                                                         \
     .state_destroy = npp_state_destroy,                                                           \
     .peer = 1},
#else
#define FV_VARIANT_NPP_GAUSSIAN
#define FV_VARIANT_NPP_BOX
#endif

#ifdef __cplusplus
}
#endif
#endif
