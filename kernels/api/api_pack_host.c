/* ------------------------------------------------------------------------------------------------
 * kernels/api/api_pack_host.c: the channel conversions of api_pack.cu on host images, for the
 * reference (which runs on the host): the same rules, channel by channel as bytes, so one loop
 * serves every pixel type; and the caller's image seen as an fv_image.
 * ------------------------------------------------------------------------------------------------ */
#include "api_pack.h"

#include <string.h>

fv_image fv_api_image_view(const filterview_image *img)
{
    fv_image v = {.data = (uint8_t *)img->data,
                  .width = img->width,
                  .height = img->height,
                  .pitch = img->pitch,
                  .memory = img->memory == FILTERVIEW_DEVICE ? FV_MEMORY_DEVICE : FV_MEMORY_HOST,
                  .type = (fv_pixel_type)img->dtype,
                  .channels = img->channels};
    return v;
}

/* An opaque alpha of the type, as bytes in host order. */
static void opaque_bytes(fv_pixel_type type, uint8_t out[4])
{
    const uint16_t u16 = 65535;
    const float f32 = 1.0f;
    switch (type) {
    case FV_PIXEL_U16: memcpy(out, &u16, 2); break;
    case FV_PIXEL_F32: memcpy(out, &f32, 4); break;
    case FV_PIXEL_U8:
    default: out[0] = 255; break;
    }
}

void fv_api_widen_host(const fv_image *from, fv_image *to)
{
    const int channels = fv_image_channels(from);
    const size_t b = fv_pixel_type_bytes(to->type);
    uint8_t alpha[4];
    opaque_bytes(to->type, alpha);
    for (int y = 0; y < to->height; y++) {
        const uint8_t *s = from->data + (size_t)y * from->pitch;
        uint8_t *d = to->data + (size_t)y * to->pitch;
        for (int x = 0; x < to->width; x++, s += channels * b, d += 4 * b) {
            memcpy(d, s, b);
            memcpy(d + b, channels == 1 ? s : s + b, b);
            memcpy(d + 2 * b, channels == 1 ? s : s + 2 * b, b);
            memcpy(d + 3 * b, channels == 4 ? s + 3 * b : alpha, b);
        }
    }
}

void fv_api_narrow_host(const fv_image *from, fv_image *to)
{
    const size_t channels = (size_t)fv_image_channels(to), b = fv_pixel_type_bytes(from->type);
    for (int y = 0; y < from->height; y++) {
        const uint8_t *s = from->data + (size_t)y * from->pitch;
        uint8_t *d = to->data + (size_t)y * to->pitch;
        for (int x = 0; x < from->width; x++, s += 4 * b, d += channels * b)
            memcpy(d, s, channels * b);
    }
}
