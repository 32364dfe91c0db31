/* ------------------------------------------------------------------------------------------------
 * kernels/api/api_pack.h: the library's channel conversions between a caller's 1-, 3- or 4-channel
 * image and the filters' RGBA8 (device: api_pack.cu; host: filterview_api.c).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_API_PACK_H
#define FV_API_PACK_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* src (device, `channels` bytes a pixel, rows `src_pitch` apart) into the RGBA device image dst
 * of the same size, on `stream` (enqueued, not waited for). */
fv_status fv_api_widen(const uint8_t *src, size_t src_pitch, int channels, fv_image *dst,
                       cudaStream_t stream);
/* The RGBA device image src into dst (device, `channels` bytes a pixel), on `stream`. */
fv_status fv_api_narrow(const fv_image *src, uint8_t *dst, size_t dst_pitch, int channels,
                        cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
