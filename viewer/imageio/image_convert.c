/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/image_convert.c: one image to another pixel type and channel count, and what the
 * conversion lost. The mappings are stated in image_io.h; each sample goes through a double, in
 * which every uint8, uint16 and float32 value is exact, so that one path serves every pair.
 * A loss is counted only where a value does not come back: a uint16 image whose samples are all
 * multiples of 257 loses nothing to 8 bits, nor a float32 image of k / 255 values.
 * Checked by tests/cpu/test_image_io_typed.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <math.h>
#include <string.h>

static double sample_get(const uint8_t *row, size_t i, fv_pixel_type t)
{
    if (t == FV_PIXEL_U16) {
        uint16_t v;
        memcpy(&v, row + 2 * i, 2);
        return v;
    }
    if (t == FV_PIXEL_F32) {
        float v;
        memcpy(&v, row + 4 * i, 4);
        return v;
    }
    return row[i];
}

static void sample_put(uint8_t *row, size_t i, fv_pixel_type t, double v)
{
    if (t == FV_PIXEL_U16) {
        uint16_t u = (uint16_t)v;
        memcpy(row + 2 * i, &u, 2);
    } else if (t == FV_PIXEL_F32) {
        float f = (float)v;
        memcpy(row + 4 * i, &f, 4);
    } else {
        row[i] = (uint8_t)v;
    }
}

/* v (of type `from`) as type `to`; *lost set when the value does not come back. */
static double type_convert(double v, fv_pixel_type from, fv_pixel_type to, int *lost)
{
    if (from == to) return v;
    const double to_max = fv_pixel_type_max(to), from_max = fv_pixel_type_max(from);
    if (to == FV_PIXEL_F32) return (float)(v / from_max); /* exact enough to come back */
    double q;
    if (from == FV_PIXEL_F32) {
        const double x = v != v ? 0.0 : v < 0 ? 0.0 : v > 1 ? 1.0 : v;
        q = floor(x * to_max + 0.5);
        if ((float)(q / to_max) != (float)v) *lost = 1;
    } else if (from == FV_PIXEL_U16) { /* to uint8: v / 257, half up; never exactly .5 */
        q = floor((v + 128.5) / 257.0);
        if (q * 257.0 != v) *lost = 1;
    } else { /* uint8 to uint16 */
        q = v * 257.0;
    }
    return q;
}

fv_status image_convert(const fv_image *src, fv_pixel_type type, int channels,
                        const image_allocator *a, fv_image *dst, image_convert_loss *loss)
{
    image_convert_loss l = {0};
    const int sc = fv_image_channels(src);
    const fv_pixel_type st = src->type;
    FV_TRY(codec_alloc_image_as(a, src->width, src->height, type, channels, dst));
    const double smax = fv_pixel_type_max(st);
    for (int y = 0; y < src->height; y++) {
        const uint8_t *in = src->data + (size_t)y * src->pitch;
        uint8_t *out = dst->data + (size_t)y * dst->pitch;
        for (size_t x = 0; x < (size_t)src->width; x++) {
            double v[4];
            for (int c = 0; c < sc; c++) v[c] = sample_get(in, x * (size_t)sc + (size_t)c, st);
            if (sc == 1) v[1] = v[2] = v[0];
            if (sc < 4) v[3] = smax;
            double o[4];
            if (channels == 1) {
                if (sc == 1 || (v[0] == v[1] && v[1] == v[2])) {
                    o[0] = v[0];
                } else {
                    l.colour = 1;
                    o[0] =
                        st == FV_PIXEL_F32
                            ? 0.299 * v[0] + 0.587 * v[1] + 0.114 * v[2]
                            : floor((299.0 * v[0] + 587.0 * v[1] + 114.0 * v[2] + 500.0) / 1000.0);
                }
            } else {
                memcpy(o, v, sizeof o);
            }
            if (channels < 4 && sc == 4 && v[3] != smax) l.alpha = 1;
            for (int c = 0; c < channels; c++)
                sample_put(out, x * (size_t)channels + (size_t)c, type,
                           type_convert(o[c], st, type, &l.depth));
        }
    }
    if (loss) *loss = l;
    return FV_OK;
}
