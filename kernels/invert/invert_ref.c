/* ------------------------------------------------------------------------------------------------
 * kernels/invert/invert_ref.c: CPU reference of invert: each colour channel becomes max - value
 * (uint8: 255 - v, uint16: 65535 - v, float32: 1 - v, 1 being the top of float's display range
 * 0..1), alpha is passed through. One code path for the three types (INVERT_ROWS). It reads no
 * neighbour, so it has no border. Checked on hand-computed images by tests/cpu/test_ref.c; the
 * oracle of the GPU variant in tests/gpu/test_filters.c.
 * ------------------------------------------------------------------------------------------------ */
#include "invert.h"

/* Every row of src into dst, channel type T, colour channels through FLIP. */
#define INVERT_ROWS(T, FLIP)                                                                       \
    for (int y = 0; y < src->height; y++) {                                                        \
        const T *in = (const T *)(src->data + (size_t)y * src->pitch);                             \
        T *out = (T *)(dst->data + (size_t)y * dst->pitch);                                        \
        for (int x = 0; x < src->width; x++) {                                                     \
            for (int c = 0; c < 3; c++) out[4 * x + c] = FLIP(in[4 * x + c]);                      \
            out[4 * x + 3] = in[4 * x + 3];                                                        \
        }                                                                                          \
    }

#define INVERT_U8(v)  (uint8_t)(255 - (v))
#define INVERT_U16(v) (uint16_t)(65535 - (v))
#define INVERT_F32(v) (1.0f - (v)) /* in float, as the kernel: NaN stays NaN, +-inf flips sign */

int invert_config_make(const fv_params *p, void *config, char *why, size_t why_size)
{
    (void)why, (void)why_size;
    invert_config *c = config;
    c->type = p->type;
    return 1;
}

fv_status invert_ref(const fv_image *src, fv_image *dst, const void *config)
{
    const invert_config *c = config;
    switch (c->type) {
    case FV_PIXEL_U16: INVERT_ROWS(uint16_t, INVERT_U16) break;
    case FV_PIXEL_F32: INVERT_ROWS(float, INVERT_F32) break;
    case FV_PIXEL_U8:
    default: INVERT_ROWS(uint8_t, INVERT_U8) break;
    }
    return FV_OK;
}
