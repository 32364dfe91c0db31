/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/tiff.c: TIFF in and out through libtiff, over the file in memory.
 *
 * In: the first image of the file; 8- and 16-bit unsigned integer or 32-bit IEEE float samples;
 * gray (min-is-black, or min-is-white inverted for integers), gray+alpha (read as RGBA), RGB,
 * RGBA; strips or tiles, contiguous or separate planes; any compression libtiff decodes (JPEG's
 * YCbCr converted to RGB by libjpeg). The ICC profile is kept; the orientation tag is not applied.
 * Refused by name: palette, CMYK, L*a*b*, LogLuv and other photometrics, 1-bit and other depths,
 * signed integers, 16- and 64-bit floats, more extra samples than one alpha.
 * Limits as the other codecs: codec_check_claim before any allocation, with what one byte of the
 * file can hold by its compression (deflate about 1032:1, LZW's longest codes 4096:1, PackBits
 * 64:1, none 1:1, the others 32768:1); libtiff's own allocations are capped, and its errors and
 * warnings are caught through the open options (never printed) and the first error is said in
 * one line with the file's name.
 * Out: every type and channel count as it is (RGBA with an unassociated alpha), deflate with the
 * horizontal or floating-point predictor or no compression, strips of about 256 KiB or square
 * tiles; the ICC profile. Built in memory and written whole: standard output cannot seek.
 * Checked by tests/cpu/test_image_io_typed.c (files from tifffile and OpenCV, strips, tiles,
 * planes, compressions, truncations) and the image fuzzer.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

#define TIFF_MAX_LIBTIFF_ALLOC ((tmsize_t)256 << 20)
#define TIFF_TILE_SLACK        1024 /* a tile side may exceed the image's up to this */
#define TIFF_STRIP_BYTES       ((size_t)256 << 10)

/* The file in memory (reading) or the file being built (writing), and libtiff's first error. */
typedef struct tiff_mem {
    const uint8_t *data; /* reading */
    uint8_t *buf;        /* writing: grows */
    size_t size, cap, pos;
    int writing, failed;
    char why[200];
} tiff_mem;

static tmsize_t tiff_read(thandle_t h, void *dst, tmsize_t n)
{
    tiff_mem *m = (tiff_mem *)h;
    const uint8_t *src = m->writing ? m->buf : m->data;
    if (n < 0 || m->pos >= m->size) return 0;
    size_t k = m->size - m->pos < (size_t)n ? m->size - m->pos : (size_t)n;
    memcpy(dst, src + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t tiff_write(thandle_t h, void *src, tmsize_t n)
{
    tiff_mem *m = (tiff_mem *)h;
    if (!m->writing || n < 0) return -1;
    const size_t end = m->pos + (size_t)n;
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : (size_t)1 << 16;
        while (cap < end) cap *= 2;
        uint8_t *grown = realloc(m->buf, cap);
        if (!grown) {
            m->failed = 1;
            return -1;
        }
        m->buf = grown;
        m->cap = cap;
    }
    if (m->pos > m->size) memset(m->buf + m->size, 0, m->pos - m->size); /* a gap seeked over */
    memcpy(m->buf + m->pos, src, (size_t)n);
    m->pos = end;
    if (end > m->size) m->size = end;
    return n;
}

static toff_t tiff_seek(thandle_t h, toff_t off, int whence)
{
    tiff_mem *m = (tiff_mem *)h;
    uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    uint64_t to = base + off;
    if (to < base || to > ((uint64_t)1 << 40)) return (toff_t)-1;
    if (!m->writing && to > m->size) to = m->size;
    m->pos = (size_t)to;
    return to;
}

static int tiff_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t tiff_size(thandle_t h)
{
    return ((tiff_mem *)h)->size;
}

/* Reading maps the buffer itself: libtiff then takes compressed strips straight from it. */
static int tiff_map(thandle_t h, void **base, toff_t *size)
{
    tiff_mem *m = (tiff_mem *)h;
    if (m->writing) return 0;
    *base = (void *)m->data;
    *size = m->size;
    return 1;
}

static void tiff_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h, (void)base, (void)size;
}

static int tiff_on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)module;
    tiff_mem *m = user;
    if (!m->why[0]) {
        char raw[sizeof m->why];
        vsnprintf(raw, sizeof raw, fmt, ap);
        image_printable(raw, m->why, sizeof m->why);
    }
    return 1; /* handled: libtiff's own handlers stay quiet */
}

static int tiff_on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)user, (void)module, (void)fmt, (void)ap;
    return 1;
}

static pthread_once_t tiff_once = PTHREAD_ONCE_INIT;

/* libtiff's process-wide handlers print to stderr; a message without a handle would reach them */
static void tiff_quiet(void)
{
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
}

static TIFF *tiff_open(const char *name, const char *mode, tiff_mem *m)
{
    pthread_once(&tiff_once, tiff_quiet);
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o) return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(o, TIFF_MAX_LIBTIFF_ALLOC);
    TIFFOpenOptionsSetErrorHandlerExtR(o, tiff_on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(o, tiff_on_warning, m);
    TIFF *tif = TIFFClientOpenExt(name, mode, (thandle_t)m, tiff_read, tiff_write, tiff_seek,
                                  tiff_close, tiff_size, tiff_map, tiff_unmap, o);
    TIFFOpenOptionsFree(o);
    return tif;
}

static fv_status tiff_corrupt(const char *name, const tiff_mem *m, const char *what)
{
    return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (TIFF: %s)", name,
                   m->why[0] ? m->why : what);
}

/* ---- reading ---- */

typedef struct tiff_layout {
    uint32_t width, height;
    uint16_t bits, spp, format, photometric, planar, compression;
    int gray_alpha;     /* 2 samples: gray and alpha, read as RGBA */
    int invert;         /* min-is-white */
    fv_pixel_type type; /* of a sample and of the image */
    int channels;       /* of the image: 1, 3 or 4 */
} tiff_layout;

static const char *tiff_photometric_name(uint16_t p)
{
    switch (p) {
    case PHOTOMETRIC_PALETTE: return "palette (indexed colour)";
    case PHOTOMETRIC_SEPARATED: return "CMYK (separated)";
    case PHOTOMETRIC_MASK: return "transparency mask";
    case PHOTOMETRIC_YCBCR: return "YCbCr (not JPEG-compressed)";
    case PHOTOMETRIC_CIELAB:
    case PHOTOMETRIC_ICCLAB:
    case PHOTOMETRIC_ITULAB: return "L*a*b*";
    case PHOTOMETRIC_LOGL:
    case PHOTOMETRIC_LOGLUV: return "LogLuv";
    case PHOTOMETRIC_CFA: return "raw sensor (CFA)";
    default: return NULL;
    }
}

/* What the file's first image holds, or a refusal that names what is not read. */
static fv_status tiff_read_layout(const char *name, TIFF *tif, tiff_mem *m, tiff_layout *l)
{
    memset(l, 0, sizeof *l);
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &l->width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &l->height))
        return tiff_corrupt(name, m, "no image size");
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &l->bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &l->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &l->format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &l->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &l->compression);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &l->photometric))
        l->photometric = l->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    if (l->photometric == PHOTOMETRIC_YCBCR && l->compression == COMPRESSION_JPEG) {
        /* libjpeg turns JPEG's own YCbCr into RGB as it decodes */
        if (!TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB))
            return tiff_corrupt(name, m, "its JPEG tables");
        l->photometric = PHOTOMETRIC_RGB;
    }
    const char *kind = tiff_photometric_name(l->photometric);
    if (kind)
        return fv_fail(FV_ERR_FORMAT, "'%s': %s TIFF is not supported: convert it to RGB", name,
                       kind);
    if (l->photometric != PHOTOMETRIC_MINISBLACK && l->photometric != PHOTOMETRIC_MINISWHITE &&
        l->photometric != PHOTOMETRIC_RGB)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s': TIFF with photometric interpretation %u is not "
                       "supported",
                       name, l->photometric);
    const int rgb = l->photometric == PHOTOMETRIC_RGB;
    if (rgb ? l->spp != 3 && l->spp != 4 : l->spp != 1 && l->spp != 2)
        return fv_fail(FV_ERR_FORMAT, "'%s': %s TIFF with %u samples a pixel is not supported",
                       name, rgb ? "RGB" : "gray", l->spp);
    if (l->format == SAMPLEFORMAT_INT)
        return fv_fail(FV_ERR_FORMAT, "'%s': signed-integer TIFF is not supported", name);
    if (l->format == SAMPLEFORMAT_IEEEFP && l->bits != 32)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s': %u-bit floating-point TIFF is not supported (32-bit "
                       "is)",
                       name, l->bits);
    if (l->format == SAMPLEFORMAT_IEEEFP)
        l->type = FV_PIXEL_F32;
    else if (l->format == SAMPLEFORMAT_UINT && (l->bits == 8 || l->bits == 16))
        l->type = l->bits == 8 ? FV_PIXEL_U8 : FV_PIXEL_U16;
    else if (l->format == SAMPLEFORMAT_UINT)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s': %u-bit%s TIFF is not supported (8- and 16-bit integer and 32-bit "
                       "float are)",
                       name, l->bits, l->bits == 1 ? " (bilevel)" : "");
    else
        return fv_fail(FV_ERR_FORMAT, "'%s': TIFF of sample format %u is not supported", name,
                       l->format);
    l->invert = l->photometric == PHOTOMETRIC_MINISWHITE;
    if (l->invert && l->type == FV_PIXEL_F32)
        return fv_fail(FV_ERR_FORMAT, "'%s': min-is-white floating-point TIFF is not supported",
                       name);
    l->gray_alpha = !rgb && l->spp == 2;
    l->channels = l->gray_alpha ? 4 : l->spp;
    return FV_OK;
}

/* What one byte of the file can hold by the compression, in samples' bytes. */
static double tiff_expansion(uint16_t compression)
{
    switch (compression) {
    case COMPRESSION_NONE: return 1.0;
    case COMPRESSION_PACKBITS: return 64.0;
    case COMPRESSION_LZW: return 4096.0;
    case COMPRESSION_DEFLATE:
    case COMPRESSION_ADOBE_DEFLATE: return 1032.0;
    default: return 32768.0;
    }
}

/* Writes the samples of one decoded chunk (a strip or tile: `cw` x `ch` pixels, rows of `stride`
 * bytes; one plane `plane` of separate planes, or all samples when plane < 0) into out at
 * (x0, y0), clipped to the image. */
static void tiff_place(const tiff_layout *l, const uint8_t *chunk, size_t stride, uint32_t cw,
                       uint32_t ch, uint32_t x0, uint32_t y0, int plane, fv_image *out)
{
    const size_t sb = fv_pixel_type_bytes(l->type), oc = (size_t)l->channels;
    const uint32_t w = x0 + cw > l->width ? l->width - x0 : cw;
    const uint32_t h = y0 + ch > l->height ? l->height - y0 : ch;
    const int per_pixel = plane < 0 ? l->spp : 1;
    const uint32_t max = l->type == FV_PIXEL_U8 ? 255u : 65535u;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *src = chunk + (size_t)y * stride;
        uint8_t *dst = out->data + (size_t)(y0 + y) * out->pitch + (size_t)x0 * oc * sb;
        for (uint32_t x = 0; x < w; x++)
            for (int k = 0; k < per_pixel; k++) {
                const int s = plane < 0 ? k : plane; /* the file's sample */
                uint8_t v[4];
                memcpy(v, src + ((size_t)x * (size_t)per_pixel + (size_t)k) * sb, sb);
                if (l->invert && s == 0) { /* min-is-white: the gray sample, not alpha */
                    if (sb == 1) {
                        v[0] = (uint8_t)(max - v[0]);
                    } else {
                        uint16_t u;
                        memcpy(&u, v, 2);
                        u = (uint16_t)(max - u);
                        memcpy(v, &u, 2);
                    }
                }
                uint8_t *px = dst + (size_t)x * oc * sb;
                if (l->gray_alpha && s == 0) {
                    for (int c = 0; c < 3; c++) memcpy(px + (size_t)c * sb, v, sb);
                } else {
                    memcpy(px + (size_t)(l->gray_alpha ? 3 : s) * sb, v, sb);
                }
            }
    }
}

static fv_status tiff_read_pixels(const char *name, TIFF *tif, tiff_mem *m, const tiff_layout *l,
                                  fv_image *out)
{
    const int separate = l->planar == PLANARCONFIG_SEPARATE && l->spp > 1;
    const size_t sb = fv_pixel_type_bytes(l->type);
    const size_t per_pixel = separate ? 1 : l->spp;
    uint32_t cw, chh;
    const int tiled = TIFFIsTiled(tif);
    if (tiled) {
        if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &cw) ||
            !TIFFGetField(tif, TIFFTAG_TILELENGTH, &chh))
            return tiff_corrupt(name, m, "tiles without a size");
        if (cw < 1 || chh < 1 || cw > l->width + TIFF_TILE_SLACK ||
            chh > l->height + TIFF_TILE_SLACK)
            return fv_fail(FV_ERR_FORMAT,
                           "'%s' is corrupt (TIFF: tiles of %ux%u for an image of %ux%u)", name, cw,
                           chh, l->width, l->height);
    } else {
        uint32_t rows = 0;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rows);
        cw = l->width;
        chh = rows < 1 || rows > l->height ? l->height : rows;
    }
    const size_t stride = (size_t)cw * per_pixel * sb, chunk_bytes = stride * chh;
    const tmsize_t libtiff_bytes = tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    if (libtiff_bytes <= 0 || (size_t)libtiff_bytes != chunk_bytes)
        return tiff_corrupt(name, m, "strips or tiles of an unexpected size");
    uint8_t *chunk = malloc(chunk_bytes);
    if (!chunk) return fv_fail(FV_ERR_MEMORY, "out of host memory decoding '%s'", name);
    const int planes = separate ? l->spp : 1;
    const uint32_t across = (l->width + cw - 1) / cw, down = (l->height + chh - 1) / chh;
    fv_status s = FV_OK;
    for (int p = 0; p < planes && s == FV_OK; p++)
        for (uint32_t ty = 0; ty < down && s == FV_OK; ty++)
            for (uint32_t tx = 0; tx < across && s == FV_OK; tx++) {
                const uint32_t x0 = tx * cw, y0 = ty * chh;
                const uint32_t rows = tiled || y0 + chh <= l->height ? chh : l->height - y0;
                tmsize_t got;
                if (tiled)
                    got = TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x0, y0, 0, (uint16_t)p),
                                              chunk, (tmsize_t)chunk_bytes);
                else
                    got = TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y0, (uint16_t)p), chunk,
                                               (tmsize_t)chunk_bytes);
                if (got < 0 || (size_t)got < stride * rows) {
                    s = tiff_corrupt(name, m, "a strip or tile cut short");
                    break;
                }
                tiff_place(l, chunk, stride, cw, rows, x0, y0, separate ? p : -1, out);
            }
    free(chunk);
    return s;
}

fv_status codec_tiff_decode(const char *name, const uint8_t *data, size_t size,
                            const image_allocator *a, fv_image *out, image_load_info *info)
{
    memset(out, 0, sizeof *out);
    tiff_mem m = {.data = data, .size = size};
    TIFF *tif = tiff_open(name, "r", &m);
    if (!tif) return tiff_corrupt(name, &m, "no readable header");
    tiff_layout l;
    fv_status s = tiff_read_layout(name, tif, &m, &l);
    if (s == FV_OK) {
        double bytes_per_pixel = (double)l.spp * fv_pixel_type_bytes(l.type);
        double per_byte = l.compression == COMPRESSION_JPEG || l.compression == COMPRESSION_OJPEG
                              ? 1024.0 /* a bit per 8x8 block, as the JPEG codec */
                              : tiff_expansion(l.compression) / bytes_per_pixel;
        s = codec_check_claim(name, "TIFF", l.width, l.height, size, per_byte);
    }
    if (s == FV_OK)
        s = codec_alloc_image_as(a, (int)l.width, (int)l.height, l.type, l.channels, out);
    if (s == FV_OK) {
        s = tiff_read_pixels(name, tif, &m, &l, out);
        if (s != FV_OK) codec_free_image(a, out);
    }
    if (s == FV_OK && info) {
        codec_describe(info, "TIFF", l.type, l.channels, l.bits);
        uint32_t n = 0;
        void *icc = NULL;
        if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &n, &icc) && icc && n > 0) {
            info->metadata.icc = codec_dup(name, icc, n);
            if (!info->metadata.icc) {
                s = FV_ERR_MEMORY;
                codec_free_image(a, out);
            } else {
                info->metadata.icc_size = n;
            }
        }
    }
    TIFFClose(tif);
    return s;
}

/* ---- writing ---- */

/* Copies the pixels of a chunk (x0, y0, cw x ch, padded with zeros past the image) into buf. */
static void tiff_gather(const fv_image *img, uint8_t *buf, uint32_t x0, uint32_t y0, uint32_t cw,
                        uint32_t ch)
{
    const size_t px = fv_image_pixel_bytes(img), stride = (size_t)cw * px;
    memset(buf, 0, stride * ch);
    for (uint32_t y = 0; y < ch && y0 + y < (uint32_t)img->height; y++) {
        const uint32_t w = x0 + cw > (uint32_t)img->width ? (uint32_t)img->width - x0 : cw;
        memcpy(buf + (size_t)y * stride, img->data + (size_t)(y0 + y) * img->pitch + x0 * px,
               (size_t)w * px);
    }
}

fv_status codec_tiff_encode(const char *name, int fd, const fv_image *img,
                            image_tiff_compression compression, int tile,
                            const image_metadata *meta)
{
    const int channels = fv_image_channels(img);
    const size_t px = fv_image_pixel_bytes(img);
    const double bytes = (double)px * img->width * img->height;
    tiff_mem m = {.writing = 1};
    /* BigTIFF where the classic format's 32-bit offsets might not reach (uncompressed) */
    TIFF *tif = tiff_open(name, bytes > 3.5e9 ? "w8" : "w", &m);
    if (!tif) {
        free(m.buf);
        return fv_fail(FV_ERR_MEMORY, "cannot write '%s': TIFF: %s", name,
                       m.why[0] ? m.why : "libtiff could not start");
    }
    const int is_float = img->type == FV_PIXEL_F32;
    int ok =
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width) &&
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)img->height) &&
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * fv_pixel_type_bytes(img->type))) &&
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)channels) &&
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT,
                     is_float ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT) &&
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                     channels == 1 ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB) &&
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    if (ok && channels == 4) {
        const uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        ok = TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra);
    }
    if (ok && compression == IMAGE_TIFF_DEFLATE)
        ok = TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE) &&
             TIFFSetField(tif, TIFFTAG_PREDICTOR,
                          is_float ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL);
    else if (ok)
        ok = TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    if (ok && meta && meta->icc && meta->icc_size > 0)
        ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)meta->icc_size, meta->icc);
    uint32_t cw = (uint32_t)img->width, ch;
    if (tile > 0) {
        cw = ch = (uint32_t)(tile + 15) / 16 * 16;
        if (ok)
            ok = TIFFSetField(tif, TIFFTAG_TILEWIDTH, cw) &&
                 TIFFSetField(tif, TIFFTAG_TILELENGTH, ch);
    } else {
        const size_t row = (size_t)img->width * px;
        ch = (uint32_t)(TIFF_STRIP_BYTES / row);
        if (ch < 1) ch = 1;
        if (ch > (uint32_t)img->height) ch = (uint32_t)img->height;
        if (ok) ok = TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, ch);
    }
    /* libtiff may change what it is given (predictor, byte order): each chunk is a copy */
    const size_t chunk_bytes = (size_t)cw * ch * px;
    uint8_t *buf = ok ? malloc(chunk_bytes) : NULL;
    if (ok && !buf) m.failed = 1;
    const uint32_t across = (uint32_t)(img->width + cw - 1) / cw;
    const uint32_t down = (uint32_t)(img->height + ch - 1) / ch;
    for (uint32_t ty = 0; ok && buf && ty < down; ty++)
        for (uint32_t tx = 0; ok && tx < across; tx++) {
            const uint32_t x0 = tx * cw, y0 = ty * ch;
            const uint32_t rows =
                tile > 0 || y0 + ch <= (uint32_t)img->height ? ch : (uint32_t)img->height - y0;
            tiff_gather(img, buf, x0, y0, cw, rows);
            const tmsize_t n = (tmsize_t)((size_t)cw * rows * px);
            ok = tile > 0
                     ? TIFFWriteEncodedTile(tif, TIFFComputeTile(tif, x0, y0, 0, 0), buf, n) >= 0
                     : TIFFWriteEncodedStrip(tif, ty, buf, n) >= 0;
        }
    const int no_memory = m.failed || (ok && !buf);
    free(buf);
    if (ok) ok = TIFFFlush(tif);
    TIFFClose(tif);
    fv_status s = FV_OK;
    if (no_memory || m.failed)
        s = fv_fail(FV_ERR_MEMORY, "cannot write '%s': out of host memory for the TIFF", name);
    else if (!ok)
        s = fv_fail(FV_ERR_IO, "cannot write '%s': TIFF: %s", name,
                    m.why[0] ? m.why : "libtiff failed");
    if (s == FV_OK) s = codec_write_all(name, fd, m.buf, m.size);
    free(m.buf);
    return s;
}
