/* ------------------------------------------------------------------------------------------------
 * kernels/api/api_pack.h: the library's channel conversions between a caller's 1-, 3- or 4-channel
 * image and the filters' 4 channels, of any pixel type (device: api_pack.cu; host: api_pack_host.c).
 * Gray g becomes g, g, g, opaque; RGB gains an opaque alpha (255, 65535 or 1.0); narrowing keeps
 * R for gray and drops alpha for RGB. Both images have the same size and type. And the view of a
 * caller's filterview_image as an fv_image, which every API file takes.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_API_PACK_H
#define FV_API_PACK_H

#include "filter.h"
#include "libfilterview.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device images: `from` (1, 3 or 4 channels, any pitch) into the 4-channel `to`, on `stream`
 * (enqueued, not waited for). */
fv_status fv_api_widen(const fv_image *from, fv_image *to, cudaStream_t stream);
/* The 4-channel device image `from` into `to` (1, 3 or 4 channels), on `stream`. */
fv_status fv_api_narrow(const fv_image *from, fv_image *to, cudaStream_t stream);

/* The same on host images. */
void fv_api_widen_host(const fv_image *from, fv_image *to);
void fv_api_narrow_host(const fv_image *from, fv_image *to);

/* A caller's image seen as the filters' fv_image: the same pixels, nothing copied. */
fv_image fv_api_image_view(const filterview_image *img);

#ifdef __cplusplus
}
#endif
#endif
