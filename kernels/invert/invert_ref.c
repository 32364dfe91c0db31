/* ------------------------------------------------------------------------------------------------
 * kernels/invert/invert_ref.c: CPU reference of invert: each colour channel
 * becomes 255 - value, alpha is passed through. Checked on hand-computed images by
 * tests/cpu/test_ref.c; the oracle of the GPU variants in tests/gpu/test_filters.c.
 * ------------------------------------------------------------------------------------------------ */
#include "invert.h"

fv_status invert_ref(const fv_image *src, fv_image *dst, const fv_params *p)
{
    (void)p;
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = src->data + (size_t)y * src->pitch;
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        for (int x = 0; x < src->width; x++) {
            out[4 * x + 0] = (uint8_t)(255 - in[4 * x + 0]);
            out[4 * x + 1] = (uint8_t)(255 - in[4 * x + 1]);
            out[4 * x + 2] = (uint8_t)(255 - in[4 * x + 2]);
            out[4 * x + 3] = in[4 * x + 3];
        }
    }
    return FV_OK;
}
