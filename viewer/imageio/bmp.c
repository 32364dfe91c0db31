/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/bmp.c: our own BMP reader (uncompressed Windows and OS/2 bitmaps) to RGBA8.
 *
 * Reads the 14-byte file header and an info header of 12 bytes (OS/2 1.x BITMAPCOREHEADER:
 * 16-bit sides, RGB triples in the palette), 16 or 64 (OS/2 2.x), 40 (BITMAPINFOHEADER), 52 or
 * 56 (V2, V3: the masks in the header), 108 (V4) or 124 (V5); rows bottom-up or top-down
 * (negative height); 1-, 4- and 8-bit palettes (biClrUsed entries, else 2^bpp, and never more
 * than lie between the headers and the pixels); 24-bit BGR; 16 bits (5-5-5 by default) and
 * 32 bits (B, G, R, A bytes by default), or either with BI_BITFIELDS / BI_ALPHABITFIELDS masks.
 *
 * Pixels are those stb_image (the reader before this one) gave for every file it read right:
 * a mask of n < 8 bits is scaled to 8 by repeating its bits, a wider one keeps its top 8;
 * palette colours are opaque; a 32-bit BI_RGB file's fourth byte is its alpha unless it is 0 in
 * every pixel, which means opaque (most writers leave it 0; browsers read it the same way).
 *
 * Natively the image is RGB, or RGBA where the file has an alpha channel (a 32-bit BI_RGB file
 * whose fourth bytes are all 0 has none).
 *
 * Refused, with one line naming the file:
 *   - RLE4, RLE8, JPEG, PNG (and OS/2 Huffman, RLE24) compression: rare, convert to PNG;
 *   - a pixel index past the palette: the file does not say what colour that pixel is. stb_image
 *     showed whatever its stack held there (issue 32); any colour chosen here would be a guess
 *     shown as if it were the image, so the file is called corrupt instead;
 *   - masks that are empty, not contiguous, overlapping or wider than the pixel;
 *   - any header field out of its range, and whatever the file is too short to hold.
 * Every read is bounded by the file's size (checked once per part, before the part is read),
 * the claimed size goes through codec_check_claim before anything is allocated, and every byte
 * of the output is written. Checked by tests/test_image_io.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <string.h>

enum { BMP_FILE_HEADER = 14, BMP_RGB = 0, BMP_BITFIELDS = 3, BMP_ALPHABITFIELDS = 6 };

/* One channel of a 16- or 32-bit pixel: the bits of `mask`, shifted down by `shift` to an
 * index of at most 8 bits, then to 8 bits through `scale`. */
typedef struct bmp_channel {
    uint32_t mask;
    int shift;
    uint8_t scale[256];
} bmp_channel;

typedef struct bmp_header {
    uint32_t offset, size; /* of the pixels; of the info header */
    long width, height;    /* height made positive */
    int top_down, core;    /* core: OS/2 1.x, 3-byte palette entries */
    unsigned planes, bpp, compression;
    uint32_t colours_used;
    uint32_t masks[4];  /* R, G, B, A of 16- and 32-bit pixels */
    size_t headers_end; /* where the headers (and masks after them) end */
} bmp_header;

static uint32_t le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static uint32_t le32(const uint8_t *p)
{
    return le16(p) | le16(p + 2) << 16;
}

static int bit_count(uint32_t v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

/* Sets up a channel for a contiguous, non-empty mask (checked by the caller). */
static void channel_init(bmp_channel *c, uint32_t mask)
{
    memset(c, 0, sizeof *c);
    c->mask = mask;
    if (!mask) return;
    int low = 0;
    while (!(mask >> low & 1)) low++;
    const int bits = bit_count(mask), kept = bits > 8 ? 8 : bits;
    c->shift = low + bits - kept;
    /* repeating the bits (5-bit abcde -> abcdeabc) maps 0 to 0 and the top value to 255, as
     * stb_image's table did */
    for (uint32_t v = 0; v < 1u << kept; v++) {
        uint32_t r = 0;
        int filled = 0;
        while (filled < 8) {
            r = r << kept | v;
            filled += kept;
        }
        c->scale[v] = (uint8_t)(r >> (filled - 8));
    }
}

static uint8_t channel_get(const bmp_channel *c, uint32_t px)
{
    return c->scale[(px & c->mask) >> c->shift];
}

/* The file and info headers, checked; FV_OK leaves everything in h within what the file holds. */
static fv_status read_header(const char *name, const uint8_t *d, size_t size, bmp_header *h)
{
    memset(h, 0, sizeof *h);
    if (size < BMP_FILE_HEADER + 4)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (BMP: no complete header)",
                       name);
    h->offset = le32(d + 10);
    h->size = le32(d + 14);
    const uint32_t s = h->size;
    if (s != 12 && s != 16 && s != 40 && s != 52 && s != 56 && s != 64 && s != 108 && s != 124)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: unknown header of %u bytes)", name, s);
    h->core = s == 12;
    /* the sides first, so that an absurd size is called that even in a cut file */
    if (size < BMP_FILE_HEADER + (h->core ? 12 : 16))
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (BMP: no complete header)",
                       name);
    if (h->core) {
        h->width = (long)le16(d + 18);
        h->height = (long)le16(d + 20);
        h->planes = le16(d + 22);
        h->bpp = le16(d + 24);
    } else {
        const int32_t w = (int32_t)le32(d + 18), hh = (int32_t)le32(d + 22);
        h->width = w;
        h->top_down = hh < 0;
        h->height = hh < 0 ? -(long)hh : (long)hh;
        h->planes = le16(d + 26);
        h->bpp = le16(d + 28);
    }
    FV_TRY(codec_check_claim(name, "BMP", h->width, h->height, size, 8.0));
    if (size < BMP_FILE_HEADER + (size_t)s)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (BMP: no complete header)",
                       name);
    if (h->planes != 1)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: %u colour planes, not 1)", name,
                       h->planes);
    const unsigned bpp = h->bpp;
    if ((bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32) ||
        (h->core && (bpp == 16 || bpp == 32))) /* OS/2 1.x has no 16- or 32-bit pixels */
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: %u bits per pixel)", name, bpp);
    if (s >= 40) {
        h->compression = le32(d + 30);
        h->colours_used = le32(d + 46);
    }
    /* OS/2 2.x (64) numbers its methods otherwise: 3 is Huffman there, not bit fields */
    const unsigned c = h->compression;
    if ((s == 64 && c != BMP_RGB) ||
        (c != BMP_RGB && c != BMP_BITFIELDS && c != BMP_ALPHABITFIELDS))
        return fv_fail(FV_ERR_FORMAT,
                       "'%s': compressed BMP (method %u) is not supported: convert it "
                       "to PNG",
                       name, c);
    h->headers_end = BMP_FILE_HEADER + (size_t)s;
    if (c == BMP_RGB) {
        if (bpp == 16) {
            h->masks[0] = 0x7c00, h->masks[1] = 0x03e0, h->masks[2] = 0x001f;
        } else if (bpp == 32) {
            h->masks[0] = 0xff0000, h->masks[1] = 0xff00, h->masks[2] = 0xff,
            h->masks[3] = 0xff000000u;
        }
    } else {
        if (bpp != 16 && bpp != 32)
            return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: bit-field masks on %u-bit pixels)",
                           name, bpp);
        const int n = c == BMP_ALPHABITFIELDS ? 4 : 3;
        size_t at = h->headers_end;
        int count = n;
        if (s > 40) { /* V2 holds R, G, B; V3 and later add A */
            at = BMP_FILE_HEADER + 40;
            count = s == 52 ? 3 : 4;
        } else { /* a 40-byte header is followed by them */
            if (size < h->headers_end + 4 * (size_t)n)
                return fv_fail(FV_ERR_FORMAT,
                               "'%s' is corrupt or truncated (BMP: no complete header)", name);
            h->headers_end += 4 * (size_t)n;
        }
        for (int k = 0; k < count; k++) h->masks[k] = le32(d + at + 4 * (size_t)k);
    }
    return FV_OK;
}

/* Masks: R, G and B present, each one run of bits within the pixel, none sharing a bit. */
static fv_status check_masks(const char *name, const bmp_header *h)
{
    static const char *const what[4] = {"red", "green", "blue", "alpha"};
    uint32_t seen = 0;
    for (int k = 0; k < 4; k++) {
        const uint32_t m = h->masks[k];
        if (!m) {
            if (k == 3) continue;
            return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: the %s mask is empty)", name,
                           what[k]);
        }
        uint32_t run = m;
        while (!(run & 1)) run >>= 1;
        if (run & (run + 1))
            return fv_fail(FV_ERR_FORMAT,
                           "'%s' is corrupt (BMP: the %s mask 0x%08x is not one run of "
                           "bits)",
                           name, what[k], m);
        if (h->bpp == 16 && m > 0xffff)
            return fv_fail(FV_ERR_FORMAT,
                           "'%s' is corrupt (BMP: the %s mask 0x%08x is wider than a "
                           "16-bit pixel)",
                           name, what[k], m);
        if (seen & m)
            return fv_fail(FV_ERR_FORMAT,
                           "'%s' is corrupt (BMP: the %s mask 0x%08x overlaps another)", name,
                           what[k], m);
        seen |= m;
    }
    return FV_OK;
}

fv_status codec_bmp_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, codec_want want, fv_image *out,
                           image_load_info *info)
{
    memset(out, 0, sizeof *out);
    bmp_header h;
    FV_TRY(read_header(name, data, size, &h));
    const unsigned bpp = h.bpp;
    const int w = (int)h.width, ht = (int)h.height; /* within FV_MAX_DIMENSION: checked */

    /* the palette lies between the headers and the pixels */
    uint8_t palette[256][3];
    uint32_t colours = 0;
    if (h.offset < h.headers_end)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s' is corrupt (BMP: pixels at offset %u, inside the %zu bytes "
                       "of headers)",
                       name, h.offset, h.headers_end);
    if (h.offset > size)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s' is corrupt or truncated (BMP: pixels at offset %u, past the "
                       "end of a file of %zu bytes)",
                       name, h.offset, size);
    if (bpp <= 8) {
        if (h.colours_used > 256)
            return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (BMP: a palette of %u colours)", name,
                           h.colours_used);
        const size_t entry = h.core ? 3 : 4, room = (h.offset - h.headers_end) / entry;
        colours = h.colours_used && h.colours_used < 1u << bpp ? h.colours_used : 1u << bpp;
        if (colours > room) colours = (uint32_t)room;
        if (colours == 0)
            return fv_fail(FV_ERR_FORMAT,
                           "'%s' is corrupt (BMP: no room for a palette before the "
                           "pixels at offset %u)",
                           name, h.offset);
        for (uint32_t i = 0; i < colours; i++) {
            const uint8_t *e = data + h.headers_end + entry * i; /* B, G, R[, 0] */
            palette[i][0] = e[2];
            palette[i][1] = e[1];
            palette[i][2] = e[0];
        }
    } else if (bpp != 24) {
        FV_TRY(check_masks(name, &h));
    }

    /* rows are padded to 4 bytes; the file must hold all of them */
    const size_t row = ((size_t)w * bpp + 31) / 32 * 4, need = row * (size_t)ht;
    if (size - h.offset < need)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s' is corrupt or truncated (BMP: %zu bytes of pixels, %zu "
                       "needed)",
                       name, size - h.offset, need);

    bmp_channel ch[4];
    if (bpp == 16 || bpp == 32)
        for (int k = 0; k < 4; k++) channel_init(&ch[k], h.masks[k]);
    FV_TRY(codec_alloc_image(a, w, ht, out));
    uint32_t alpha_seen = 0;
    for (int y = 0; y < ht; y++) {
        const uint8_t *src = data + h.offset + row * (size_t)(h.top_down ? y : ht - 1 - y);
        uint8_t *dst = out->data + (size_t)y * out->pitch;
        for (int x = 0; x < w; x++, dst += 4) {
            if (bpp <= 8) {
                const unsigned per_byte = 8 / bpp, at = (unsigned)x % per_byte;
                const unsigned index =
                    src[x / per_byte] >> (8 - bpp * (at + 1)) & ((1u << bpp) - 1);
                if (index >= colours) {
                    codec_free_image(a, out);
                    return fv_fail(FV_ERR_FORMAT,
                                   "'%s' is corrupt (BMP: pixel index %u past a palette "
                                   "of %u colour%s)",
                                   name, index, colours, colours == 1 ? "" : "s");
                }
                memcpy(dst, palette[index], 3);
                dst[3] = 255;
            } else if (bpp == 24) {
                const uint8_t *p = src + 3 * (size_t)x;
                dst[0] = p[2];
                dst[1] = p[1];
                dst[2] = p[0];
                dst[3] = 255;
            } else {
                const uint32_t px =
                    bpp == 16 ? le16(src + 2 * (size_t)x) : le32(src + 4 * (size_t)x);
                for (int k = 0; k < 3; k++) dst[k] = channel_get(&ch[k], px);
                dst[3] = ch[3].mask ? channel_get(&ch[3], px) : 255;
                alpha_seen |= dst[3];
            }
        }
    }
    /* a 32-bit BI_RGB file whose fourth bytes are all 0 left them unused: opaque */
    const int opaque_rgb = bpp == 32 && h.compression == BMP_RGB && alpha_seen == 0;
    if (opaque_rgb)
        for (int y = 0; y < ht; y++)
            for (int x = 0; x < w; x++) out->data[(size_t)y * out->pitch + 4 * (size_t)x + 3] = 255;
    /* natively, RGBA only where the file has an alpha channel that says something */
    const int has_alpha = (bpp == 16 || bpp == 32) && ch[3].mask && !opaque_rgb;
    if (want == CODEC_NATIVE && !has_alpha) {
        for (size_t i = 0; i < (size_t)w * (size_t)ht; i++)
            memmove(out->data + 3 * i, out->data + 4 * i, 3);
        out->channels = 3;
        out->pitch = (size_t)w * 3;
    }
    codec_describe(info, "BMP", FV_PIXEL_U8, has_alpha ? 4 : 3, bpp < 8 ? (int)bpp : 8);
    return FV_OK;
}
