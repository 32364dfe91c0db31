/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/bmp.c: BMP through stb_image once its header has been checked here: stb reads
 * missing pixel bytes as zeros, so the file must hold every row the header claims before stb sees
 * it. Checked by tests/cpu/test_image_io.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <string.h>

#include <stb_image.h>

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

fv_status codec_bmp_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, fv_image *out)
{
    if (size < 26) return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (BMP: no complete header)", name);
    uint32_t offset = le32(data + 10), header = le32(data + 14);
    long w, h;
    unsigned bpp, compression = 0;
    if (header == 12) {
        w = data[18] | data[19] << 8;
        h = data[20] | data[21] << 8;
        bpp = data[24] | data[25] << 8;
    } else if (header >= 40 && size >= 34) {
        w = (int32_t)le32(data + 18);
        h = (int32_t)le32(data + 22);
        if (h < 0) h = -h;  /* top-down */
        bpp = data[28] | data[29] << 8;
        compression = le32(data + 30);
    } else {
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (BMP: unknown header)", name);
    }
    FV_TRY(codec_check_claim(name, "BMP", w, h, size, 8.0));
    if (compression != 0 && compression != 3)
        return fv_fail(FV_ERR_FORMAT, "'%s': compressed BMP (method %u) is not supported: convert it "
                       "to PNG", name, compression);
    if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: %u bits per pixel)", name, bpp);
    const size_t row = ((size_t)w * bpp + 31) / 32 * 4;
    if (offset > size || size - offset < row * (size_t)h)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (BMP: %zu bytes of pixels, %zu "
                       "needed)", name, offset > size ? 0 : size - offset, row * (size_t)h);
    int sw = 0, sh = 0, channels = 0;
    uint8_t *pixels = stbi_load_from_memory(data, (int)size, &sw, &sh, &channels, 4);
    if (!pixels) {
        char why[128];
        image_printable(stbi_failure_reason(), why, sizeof why);
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (BMP: %s)", name, why);
    }
    fv_status s = sw == w && sh == h ? codec_alloc_image(a, sw, sh, out)
                                     : fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: inconsistent size)", name);
    if (s == FV_OK) memcpy(out->data, pixels, (size_t)sw * sh * 4);
    stbi_image_free(pixels);
    return s;
}
