/* ------------------------------------------------------------------------------------------------
 * kernels/npp/npp_common.h: what NVIDIA's NPP peers share. Each filter's peer (variant `npp`) lives
 * in its own folder (kernels/<filter>/<filter>_npp.c, Canny's in canny_npp.cu) and is built only
 * where CMake found NPP (FV_HAVE_NPP); this holds the state they have in common: an
 * NppStreamContext (device properties read once, when the state is made; the stream set on every
 * run), a device buffer of weights, and the translation of NPP's status into an fv_status.
 * Peers take the same parameters, run on the same images and streams, and are marked as peers.
 * Like every variant they keep the source's alpha: NPP's C4R filters treat alpha as a colour, so
 * each peer copies the source's alpha channel back afterwards (npp_keep_alpha, timed with it),
 * and they use NPP's replicated border, our rule. What NPP still does its own way (rounding, no
 * blur in Canny) each peer states in its summary and as its tolerance, which for a peer is per
 * pass: tests/gpu/test_filters.c allows iterations x max_abs in R, G and B and holds alpha to
 * 0. Not npp.h: that name is NVIDIA's umbrella header.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_NPP_COMMON_H
#define FV_NPP_COMMON_H

#include "filter.h"

#ifdef FV_HAVE_NPP
#include <nppdefs.h> /* NppStreamContext */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FV_HAVE_NPP
/* Every peer's fv_variant.uncapturable: NPP's documentation says nothing of its calls under
 * stream capture (cuFFT's has a section on CUDA graphs) and its code cannot be read, so a batch
 * launches the peers directly. */
#define FV_NPP_UNCAPTURABLE "NPP does not document its calls as safe to capture into a CUDA graph"

typedef struct npp_state {
    NppStreamContext ctx;
    Npp32f *taps; /* device: the Gaussian's 1-D kernel (conv: its Npp32s weights for uint8, its
                     Npp32f ones for uint16 and float32) */
    int n_taps;
} npp_state;

/* ctx describes the current CUDA device (its stream is set per run). */
fv_status npp_stream_context_fill(NppStreamContext *ctx);
/* A state with its context filled and no taps. */
fv_status npp_state_make(npp_state **out);
void npp_state_destroy(const fv_variant *v, void *state);
/* Points ctx at `stream` (and its flags) for the next NPP call. */
fv_status npp_context_stream(NppStreamContext *ctx, cudaStream_t stream);
/* npp_context_stream on s's context, after checking that src's and dst's rows start on whole
 * pixels (their address and pitch multiples of the pixel's bytes: 4, 8 or 16): NPP's 16u and 32f
 * functions refuse other layouts (NPP_ALIGNMENT_ERROR) or, for its median, fault the device. A
 * peer declines such an image with FV_ERR_UNSUPPORTED, which names the layout. */
fv_status npp_begin(npp_state *s, cudaStream_t stream, const fv_image *src, const fv_image *dst);
/* FV_OK for success and warnings, FV_ERR_CUDA naming `call` otherwise. */
fv_status npp_result(NppStatus st, const char *call);
/* Copies the alpha channel of src into dst (same size and type: uint8, uint16 or float32), on
 * ctx's stream: what every filterview variant keeps, after an NPP filter that filtered it. */
fv_status npp_keep_alpha(const NppStreamContext *ctx, const fv_image *src, fv_image *dst);
#endif

#ifdef __cplusplus
}
#endif
#endif
