/* ------------------------------------------------------------------------------------------------
 * kernels/npp/npp_peers.h: NVIDIA's NPP versions of our filters, offered as variant `npp` of each
 * filter where the toolkit has NPP (FV_HAVE_NPP; kernels/npp/npp_peers.c). They take the same
 * parameters, run on the same images and streams, and are marked as peers: the tests and the
 * bench report how far they are from the reference instead of holding them to a tolerance.
 * NPP filters all four channels (alpha too); on opaque photos that makes no difference.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_NPP_PEERS_H
#define FV_NPP_PEERS_H

#include "filter.h"

#ifdef FV_HAVE_NPP
#include <nppdefs.h> /* NppStreamContext */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
/* ctx describes the current CUDA device (its stream is set per run). */
fv_status npp_stream_context_fill(NppStreamContext *ctx);
void npp_state_destroy(const fv_variant *v, void *state);
fv_status npp_gaussian_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height);
fv_status npp_gaussian_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                           cudaStream_t stream);
fv_status npp_box_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height);
fv_status npp_box_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                      cudaStream_t stream);
size_t npp_median_state_bytes(const fv_variant *v, const fv_params *p, int width, int height);
fv_status npp_median_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height);
void npp_median_state_destroy(const fv_variant *v, void *state);
fv_status npp_median_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                         cudaStream_t stream);
int npp_conv_supports(const fv_variant *v, const fv_params *p, int width, int height, char *why,
                      size_t why_size);
size_t npp_conv_state_bytes(const fv_variant *v, const fv_params *p, int width, int height);
fv_status npp_conv_state_create(const fv_variant *v, void **state, const fv_params *p, int width, int height);
fv_status npp_conv_run(const fv_variant *v, const fv_image *src, fv_image *dst, const fv_params *p, void *state,
                       cudaStream_t stream);

#define FV_VARIANT_NPP_GAUSSIAN                                                                    \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                     \
     .summary = "NVIDIA NPP's nppiFilterGaussAdvancedBorder_8u_C4R with our taps as floats: the peer", \
     .run = npp_gaussian_run,                                                                      \
     .state_create = npp_gaussian_state_create,                                                    \
     .state_destroy = npp_state_destroy},
#define FV_VARIANT_NPP_BOX                                                                         \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                     \
     .summary = "NVIDIA NPP's nppiFilterBoxBorder_8u_C4R, replicated border: the field's peer",    \
     .run = npp_box_run,                                                                           \
     .state_create = npp_box_state_create,                                                         \
     .state_destroy = npp_state_destroy},
/* NPP's median reads k/2 pixels beyond the ROI on every side and leaves providing them to the
 * caller: each run first copies the source into a padded image with replicated borders (the
 * variant's state), and that copy is part of its time. */
#define FV_VARIANT_NPP_MEDIAN                                                                      \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                     \
     .summary = "NVIDIA NPP's nppiFilterMedian_8u_C4R on a copy of the source padded by k/2 "      \
                "replicated pixels (NPP reads beyond the ROI; the copy is timed too): the peer",   \
     .run = npp_median_run,                                                                        \
     .state_bytes = npp_median_state_bytes,                                                        \
     .state_create = npp_median_state_create,                                                      \
     .state_destroy = npp_median_state_destroy},
/* The convolution's peer: our quantised integer kernel (sum 2^16) and divisor 2^16; output
 * stage only (its supports declines the others before anything is made). */
#define FV_VARIANT_NPP_CONV                                                                        \
    {.name = "npp",                                                                                \
     .role = FV_ROLE_PEER,                                                                     \
     .summary = "NVIDIA NPP's nppiFilterBorder_8u_C4R with our integer weights, divisor 2^16, "    \
                "replicated border: the peer (output stage only)",                                 \
     .run = npp_conv_run,                                                                          \
     .state_bytes = npp_conv_state_bytes,                                                          \
     .state_create = npp_conv_state_create,                                                        \
     .state_destroy = npp_state_destroy,                                                          \
     .supports = npp_conv_supports},
#else
#define FV_VARIANT_NPP_CONV
#define FV_VARIANT_NPP_GAUSSIAN
#define FV_VARIANT_NPP_BOX
#define FV_VARIANT_NPP_MEDIAN
#endif

#ifdef __cplusplus
}
#endif
#endif
