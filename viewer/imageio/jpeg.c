/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/jpeg.c: JPEG in and out through libjpeg-turbo's TurboJPEG API (SIMD).
 *
 * In: the markers before the first scan are read here for the EXIF orientation (APP1, IFD0 tag
 * 0x0112), which is applied so that a portrait photo shows upright, and for Adobe's APP14, which
 * says CMYK samples are stored inverted (Photoshop's way); CMYK and YCCK images are decoded as
 * CMYK and converted to RGB. Warnings (a truncated scan) are errors; progressive files with an
 * absurd number of scans are refused (TJFLAG_LIMITSCANS). Out: 4:2:0 at --jpeg-quality; alpha,
 * which JPEG cannot hold, is dropped. Checked by tests/cpu/test_image_io.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

/* Huffman coding needs at least a bit per 8x8 block in the DC scan: about 512 pixels a byte at
 * the very best. Arithmetic-coded flat images may do better; past this they are refused. */
#define JPEG_MAX_PIXELS_PER_BYTE 1024.0
#define ORIENT_TILE 64

typedef struct jpeg_markers {
    int orientation;   /* EXIF 1..8; 1 when absent */
    int adobe;         /* APP14 "Adobe" present */
} jpeg_markers;

static unsigned get16(const uint8_t *p, int le) { return le ? p[0] | p[1] << 8 : p[0] << 8 | p[1]; }
static uint32_t get32(const uint8_t *p, int le)
{
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The orientation from a TIFF block (EXIF's payload); 1 when missing or malformed. */
static int exif_orientation(const uint8_t *t, size_t n)
{
    if (n < 8) return 1;
    int le = t[0] == 'I' && t[1] == 'I';
    if (!le && !(t[0] == 'M' && t[1] == 'M')) return 1;
    if (get16(t + 2, le) != 42) return 1;
    uint32_t ifd = get32(t + 4, le);
    if (ifd > n - 2) return 1;
    unsigned count = get16(t + ifd, le);
    for (unsigned i = 0; i < count; i++) {
        size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n) return 1;
        if (get16(t + e, le) == 0x0112 && get16(t + e + 2, le) == 3 && get32(t + e + 4, le) == 1) {
            unsigned v = get16(t + e + 8, le);
            return v >= 1 && v <= 8 ? (int)v : 1;
        }
    }
    return 1;
}

static void jpeg_scan_markers(const uint8_t *d, size_t n, jpeg_markers *m)
{
    m->orientation = 1;
    m->adobe = 0;
    int have_exif = 0;
    size_t i = 2;
    while (i + 4 <= n) {
        if (d[i] != 0xff) return;
        while (i < n && d[i] == 0xff) i++;
        if (i >= n) return;
        unsigned marker = d[i++];
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue; /* no length */
        if (marker == 0xda || marker == 0xd9 || i + 2 > n) return;         /* scan or end */
        size_t len = get16(d + i, 0);
        if (len < 2 || i + len > n) return;
        const uint8_t *seg = d + i + 2;
        size_t seg_len = len - 2;
        if (marker == 0xe1 && !have_exif && seg_len >= 6 && memcmp(seg, "Exif\0\0", 6) == 0) {
            m->orientation = exif_orientation(seg + 6, seg_len - 6);
            have_exif = 1;
        } else if (marker == 0xee && seg_len >= 5 && memcmp(seg, "Adobe", 5) == 0) {
            m->adobe = 1;
        }
        i += len;
    }
}

/* Applies EXIF orientation o (2..8) to img in place (5..8 swap width and height). */
static fv_status apply_orientation(const char *name, fv_image *img, int o)
{
    const int w = img->width, h = img->height;
    const size_t bytes = (size_t)w * h * 4;
    uint32_t *src = malloc(bytes);
    if (!src) return fv_fail(FV_ERR_MEMORY, "out of host memory turning '%s' upright", name);
    memcpy(src, img->data, bytes);
    const int swap = o >= 5;
    const int dw = swap ? h : w, dh = swap ? w : h;
    uint32_t *dst = (uint32_t *)img->data;
    /* tiles keep both the reads and the scattered writes of a quarter turn in cache */
    for (int ty = 0; ty < h; ty += ORIENT_TILE)
        for (int tx = 0; tx < w; tx += ORIENT_TILE)
            for (int y = ty; y < h && y < ty + ORIENT_TILE; y++)
                for (int x = tx; x < w && x < tx + ORIENT_TILE; x++) {
                    int dx, dy;
                    switch (o) {
                    case 2: dx = w - 1 - x; dy = y; break;
                    case 3: dx = w - 1 - x; dy = h - 1 - y; break;
                    case 4: dx = x; dy = h - 1 - y; break;
                    case 5: dx = y; dy = x; break;                  /* transpose */
                    case 6: dx = h - 1 - y; dy = x; break;          /* a quarter turn clockwise */
                    case 7: dx = h - 1 - y; dy = w - 1 - x; break;  /* transverse */
                    default: dx = y; dy = w - 1 - x; break;         /* 8: a quarter turn back */
                    }
                    dst[(size_t)dy * dw + dx] = src[(size_t)y * w + x];
                }
    free(src);
    img->width = dw;
    img->height = dh;
    img->pitch = (size_t)dw * 4;
    return FV_OK;
}

/* CMYK (as libjpeg gives it) to RGBA in place; Adobe's files store 255 - ink. */
static void cmyk_to_rgba(fv_image *img, int inverted)
{
    for (int y = 0; y < img->height; y++) {
        uint8_t *p = img->data + (size_t)y * img->pitch;
        for (int x = 0; x < img->width; x++, p += 4) {
            unsigned c = p[0], m = p[1], ye = p[2], k = p[3];
            if (!inverted) {
                c = 255 - c;
                m = 255 - m;
                ye = 255 - ye;
                k = 255 - k;
            }
            p[0] = (uint8_t)((c * k + 127) / 255);
            p[1] = (uint8_t)((m * k + 127) / 255);
            p[2] = (uint8_t)((ye * k + 127) / 255);
            p[3] = 255;
        }
    }
}

static fv_status jpeg_error(const char *name, tjhandle tj)
{
    char why[256];
    image_printable(tjGetErrorStr2(tj), why, sizeof why);
    return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (JPEG: %s)", name, why);
}

fv_status codec_jpeg_decode(const char *name, const uint8_t *data, size_t size,
                            const image_allocator *a, fv_image *out)
{
    tjhandle tj = tjInitDecompress();
    if (!tj) return fv_fail(FV_ERR_MEMORY, "cannot start the JPEG decoder for '%s'", name);
    int w = 0, h = 0, subsamp = 0, colorspace = 0;
    fv_status s = FV_OK;
    if (tjDecompressHeader3(tj, data, (unsigned long)size, &w, &h, &subsamp, &colorspace) != 0)
        s = jpeg_error(name, tj);
    /* a header cut short reads as no header at all rather than as an error */
    if (s == FV_OK && (w < 1 || h < 1))
        s = fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (JPEG: no complete header)", name);
    if (s == FV_OK) s = codec_check_claim(name, "JPEG", w, h, size, JPEG_MAX_PIXELS_PER_BYTE);
    jpeg_markers m;
    jpeg_scan_markers(data, size, &m);
    const int cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
    if (s == FV_OK) s = codec_alloc_image(a, w, h, out);
    if (s == FV_OK &&
        tjDecompress2(tj, data, (unsigned long)size, out->data, w, (int)out->pitch, h,
                      cmyk ? TJPF_CMYK : TJPF_RGBA, TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS) != 0)
        s = jpeg_error(name, tj);
    tjDestroy(tj);
    if (s == FV_OK && cmyk) cmyk_to_rgba(out, m.adobe);
    if (s == FV_OK && m.orientation > 1) s = apply_orientation(name, out, m.orientation);
    if (s != FV_OK) codec_free_image(a, out);
    return s;
}

fv_status codec_jpeg_encode(const char *name, int fd, const fv_image *img, int quality)
{
    tjhandle tj = tjInitCompress();
    if (!tj) return fv_fail(FV_ERR_MEMORY, "cannot start the JPEG encoder for '%s'", name);
    unsigned char *buf = NULL;
    unsigned long len = 0;
    fv_status s = FV_OK;
    if (tjCompress2(tj, img->data, img->width, (int)img->pitch, img->height, TJPF_RGBA, &buf, &len,
                    TJSAMP_420, quality, 0) != 0) {
        char why[256];
        image_printable(tjGetErrorStr2(tj), why, sizeof why);
        s = fv_fail(FV_ERR_IO, "cannot write '%s': JPEG encoder: %s", name, why);
    }
    if (s == FV_OK) s = codec_write_all(name, fd, buf, len);
    tjFree(buf);
    tjDestroy(tj);
    return s;
}
