/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/jpeg.c: JPEG in through libjpeg-turbo's libjpeg API, out through its TurboJPEG API.
 *
 * In: the markers are walked here first, for the EXIF orientation (APP1, IFD0 tag 0x0112), which
 * is applied so that a portrait photo shows upright, for Adobe's APP14, which says CMYK samples
 * are stored inverted (Photoshop's way), for the frame type (SOFn: lossless, hierarchical and
 * 12-bit files are refused as unsupported, by name) and for the number of scans: a progressive
 * file's work grows with its scans, not its size, so more than JPEG_MAX_SCANS are refused before
 * anything is decoded, and libjpeg's memory is capped by what the image's size needs. Every valid
 * 8-bit file is decoded, whatever its sampling factors (TurboJPEG's own decoder refuses those it
 * has no name for, such as 2x2,1x2,2x1); the settings are TurboJPEG's (accurate integer IDCT,
 * fancy upsampling), so its files decode to the same pixels. CMYK and YCCK images are decoded as
 * CMYK and converted to RGB. Warnings (a truncated scan) are errors.
 * In natively: gray files as 1 channel, every other as RGB; the ICC profile (APP2 chunks) and
 * EXIF (APP1, its orientation set to 1 in the copy, as the pixels are turned) kept.
 * Out: 4:2:0 at --jpeg-quality (gray: one component); alpha, which JPEG cannot hold, is dropped;
 * EXIF and ICC markers written after JFIF's APP0.
 * Checked by tests/cpu/test_image_io.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"
#include "orientation.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>
#include <turbojpeg.h>

/* Huffman coding needs at least a bit per 8x8 block in the DC scan: about 512 pixels a byte at
 * the very best. Arithmetic-coded flat images may do better; past this they are refused. */
#define JPEG_MAX_PIXELS_PER_BYTE 1024.0
#define ORIENT_TILE              64
/* scans in one file: jpeg_simple_progression writes 10, optimisers a few dozen; libjpeg-turbo
 * advises a limit for untrusted files (djpeg -maxscan), as each scan may touch every block */
#define JPEG_MAX_SCANS 100
/* libjpeg's own tables and row buffers, beyond the whole-image coefficients of a multi-scan file */
#define JPEG_MEMORY_SLACK ((long)32 << 20)

typedef struct jpeg_markers {
    int orientation;    /* EXIF 1..8; 1 when absent (before the first scan) */
    int adobe;          /* APP14 "Adobe" present (before the first scan) */
    unsigned sof;       /* the frame's SOFn marker (0xc0..0xcf); 0 when none came first */
    int precision;      /* its bits per sample */
    long width, height; /* what the frame header says */
    int components;     /* its component count, and each one's sampling factors (the first 4) */
    int sampling_h[4], sampling_v[4];
    int hierarchical;    /* a DHP marker */
    int scans;           /* SOS markers up to EOI */
    const uint8_t *exif; /* APP1 "Exif\0\0"'s TIFF block, in the file (before the first scan) */
    size_t exif_size;
    /* APP2 "ICC_PROFILE\0" chunks: each has a 1-based sequence number out of `icc_count` */
    const uint8_t *icc_chunk[256];
    size_t icc_chunk_size[256];
    int icc_count;
} jpeg_markers;

static unsigned get16(const uint8_t *p, int le)
{
    return le ? p[0] | p[1] << 8 : p[0] << 8 | p[1];
}
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

/* Walks the markers up to EOI, skipping each scan's entropy-coded data (where 0xff is followed
 * by a stuffed 0 or is a restart marker). */
static void jpeg_scan_markers(const uint8_t *d, size_t n, jpeg_markers *m)
{
    memset(m, 0, sizeof *m);
    m->orientation = 1;
    int have_exif = 0;
    size_t i = 2;
    while (i + 4 <= n) {
        if (d[i] != 0xff) return;
        while (i < n && d[i] == 0xff) i++;
        if (i >= n) return;
        unsigned marker = d[i++];
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue; /* no length */
        if (marker == 0xd9 || i + 2 > n) return;                            /* the end */
        size_t len = get16(d + i, 0);
        if (len < 2 || i + len > n) return;
        const uint8_t *seg = d + i + 2;
        size_t seg_len = len - 2;
        int is_sof =
            marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc;
        if (is_sof && !m->sof) {
            m->sof = marker;
            m->precision = seg_len >= 1 ? seg[0] : 0;
            m->height = seg_len >= 5 ? (long)get16(seg + 1, 0) : 0;
            m->width = seg_len >= 5 ? (long)get16(seg + 3, 0) : 0;
            m->components = seg_len >= 6 ? seg[5] : 0;
            for (int c = 0; c < m->components && c < 4 && 8 + 3 * (size_t)c < seg_len; c++) {
                m->sampling_h[c] = seg[7 + 3 * c] >> 4;
                m->sampling_v[c] = seg[7 + 3 * c] & 15;
            }
        } else if (marker == 0xde) {
            m->hierarchical = 1;
        } else if (m->scans == 0 && marker == 0xe1 && !have_exif && seg_len >= 6 &&
                   memcmp(seg, "Exif\0\0", 6) == 0) {
            m->orientation = exif_orientation(seg + 6, seg_len - 6);
            m->exif = seg + 6;
            m->exif_size = seg_len - 6;
            have_exif = 1;
        } else if (m->scans == 0 && marker == 0xe2 && seg_len > 14 &&
                   memcmp(seg, "ICC_PROFILE\0", 12) == 0 && seg[12] >= 1 && seg[13] >= seg[12]) {
            if (!m->icc_count) m->icc_count = seg[13];
            if (seg[13] == m->icc_count) {
                m->icc_chunk[seg[12]] = seg + 14;
                m->icc_chunk_size[seg[12]] = seg_len - 14;
            }
        } else if (m->scans == 0 && marker == 0xee && seg_len >= 5 &&
                   memcmp(seg, "Adobe", 5) == 0) {
            m->adobe = 1;
        }
        i += len;
        if (marker != 0xda) continue;
        m->scans++;
        while (i + 1 < n) {
            const uint8_t *ff = memchr(d + i, 0xff, n - 1 - i);
            if (!ff) {
                i = n;
                break;
            }
            i = (size_t)(ff - d);
            const uint8_t next = d[i + 1];
            if (next == 0xff)
                i++; /* fill */
            else if (next == 0 || (next >= 0xd0 && next <= 0xd7))
                i += 2; /* data, restart */
            else
                break;
        }
    }
}

/* What a frame type or precision filterview cannot decode is called, by name; NULL when none. */
static const char *jpeg_unsupported(const jpeg_markers *m, char *buf, size_t size)
{
    const unsigned sof = m->sof;
    if (m->hierarchical || (sof >= 0xc5 && sof <= 0xc7) || (sof >= 0xcd && sof <= 0xcf))
        return "hierarchical JPEG is not supported";
    if (sof == 0xc3 || sof == 0xcb) return "lossless JPEG is not supported";
#ifndef D_ARITH_CODING_SUPPORTED
    if (sof == 0xc9 || sof == 0xca) return "arithmetic-coded JPEG is not supported";
#endif
    if (sof && m->precision != 8) {
        snprintf(buf, size, "%d-bit JPEG is not supported", m->precision);
        return buf;
    }
    return NULL;
}

/* Applies EXIF orientation o (2..8) to img (packed rows of 1, 3 or 4 bytes a pixel) in place
 * (5..8 swap width and height). */
static fv_status apply_orientation(const char *name, fv_image *img, int o)
{
    const int w = img->width, h = img->height;
    const size_t px = fv_image_pixel_bytes(img), bytes = (size_t)w * h * px;
    uint8_t *src = malloc(bytes);
    if (!src) return fv_fail(FV_ERR_MEMORY, "out of host memory turning '%s' upright", name);
    memcpy(src, img->data, bytes);
    const int swap = o >= 5;
    const int dw = swap ? h : w, dh = swap ? w : h;
    uint8_t *dst = img->data;
    /* tiles keep both the reads and the scattered writes of a quarter turn in cache */
    for (int ty = 0; ty < h; ty += ORIENT_TILE)
        for (int tx = 0; tx < w; tx += ORIENT_TILE)
            for (int y = ty; y < h && y < ty + ORIENT_TILE; y++)
                for (int x = tx; x < w && x < tx + ORIENT_TILE; x++) {
                    int dx, dy;
                    orient_map(o, w, h, x, y, &dx, &dy);
                    memcpy(dst + ((size_t)dy * dw + dx) * px, src + ((size_t)y * w + x) * px, px);
                }
    free(src);
    img->width = dw;
    img->height = dh;
    img->pitch = (size_t)dw * px;
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

/* libjpeg's error manager: errors and warnings (damaged or truncated data) jump back to the
 * decoder with the message, as TurboJPEG's TJFLAG_STOPONWARNING did; nothing is printed. */
typedef struct jpeg_failure {
    struct jpeg_error_mgr pub;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    char why[JMSG_LENGTH_MAX];
    int too_many_scans;
} jpeg_failure;

static void jpeg_on_error(j_common_ptr c)
{
    jpeg_failure *f = (jpeg_failure *)c->err;
    c->err->format_message(c, f->why);
    longjmp(f->jump, 1);
}

static void jpeg_on_message(j_common_ptr c, int level)
{
    if (level < 0) jpeg_on_error(c);
}

/* A second guard on the number of scans, should libjpeg count one the marker walk did not. */
static void jpeg_on_progress(j_common_ptr c)
{
    jpeg_failure *f = (jpeg_failure *)c->err;
    if (((j_decompress_ptr)c)->input_scan_number > JPEG_MAX_SCANS) {
        f->too_many_scans = 1;
        longjmp(f->jump, 1);
    }
}

static fv_status jpeg_too_many_scans(const char *name, int progressive, int scans)
{
    if (scans > JPEG_MAX_SCANS)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s': %sJPEG with %d scans, more than the %d filterview accepts", name,
                       progressive ? "progressive " : "", scans, JPEG_MAX_SCANS);
    return fv_fail(FV_ERR_FORMAT, "'%s': %sJPEG with more than the %d scans filterview accepts",
                   name, progressive ? "progressive " : "", JPEG_MAX_SCANS);
}

/* The whole-image coefficients a multi-scan file keeps (2 bytes each, every component padded by
 * up to an MCU) and libjpeg's buffers: what an image of this size justifies. */
static long jpeg_memory_limit(const struct jpeg_decompress_struct *d)
{
    double coefficients = 0;
    for (int c = 0; c < d->num_components; c++)
        coefficients += ((double)d->image_width + 64) * ((double)d->image_height + 64);
    double limit = (double)JPEG_MEMORY_SLACK + 2.0 * coefficients;
    return limit > (double)(LONG_MAX / 2) ? LONG_MAX / 2 : (long)limit;
}

/* Decodes into `out` (allocated here through `a`): RGBA8, or natively gray (1 channel) or RGB
 * (3; CMYK is decoded to 4 and packed after); the volatile locals outlive a longjmp. */
static fv_status jpeg_decompress(const char *name, const uint8_t *data, size_t size,
                                 const image_allocator *a, codec_want want, fv_image *out,
                                 int *cmyk_out, int *gray_out)
{
    struct jpeg_decompress_struct d;
    jpeg_failure f;
    memset(&f, 0, sizeof f);
    d.err = jpeg_std_error(&f.pub);
    f.pub.error_exit = jpeg_on_error;
    f.pub.emit_message = jpeg_on_message;
    volatile fv_status s = FV_OK;
    volatile int allocated = 0;
    if (setjmp(f.jump)) {
        if (f.too_many_scans)
            s = jpeg_too_many_scans(name, d.progressive_mode, 0);
        else if (f.pub.msg_code == JERR_NO_BACKING_STORE) /* past jpeg_memory_limit */
            s = fv_fail(FV_ERR_FORMAT,
                        "'%s': JPEG needs more memory than a %ux%u image justifies "
                        "(forged)",
                        name, d.image_width, d.image_height);
        else if (f.pub.msg_code == JERR_OUT_OF_MEMORY)
            s = fv_fail(FV_ERR_MEMORY, "out of host memory decoding '%s'", name);
        else {
            char why[JMSG_LENGTH_MAX];
            image_printable(f.why, why, sizeof why);
            s = fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (JPEG: %s)", name, why);
        }
        jpeg_destroy_decompress(&d);
        if (allocated) codec_free_image(a, out);
        return s;
    }
    jpeg_create_decompress(&d);
    f.progress.progress_monitor = jpeg_on_progress;
    d.progress = &f.progress;
    jpeg_mem_src(&d, data, (unsigned long)size);
    /* a header cut short reads as no header at all rather than as an error */
    if (jpeg_read_header(&d, FALSE) != JPEG_HEADER_OK || d.image_width < 1 || d.image_height < 1)
        s = fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (JPEG: no complete header)", name);
    if (s == FV_OK)
        s = codec_check_claim(name, "JPEG", d.image_width, d.image_height, size,
                              JPEG_MAX_PIXELS_PER_BYTE);
    const int cmyk = d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK;
    const int gray = d.jpeg_color_space == JCS_GRAYSCALE && d.num_components == 1;
    const int channels = want == CODEC_RGBA8 || cmyk ? 4 : gray ? 1 : 3;
    if (s == FV_OK)
        s = codec_alloc_image_as(a, (int)d.image_width, (int)d.image_height, FV_PIXEL_U8, channels,
                                 out);
    if (s != FV_OK) {
        jpeg_destroy_decompress(&d);
        return s;
    }
    allocated = 1;
    d.out_color_space = cmyk            ? JCS_CMYK
                        : channels == 4 ? JCS_EXT_RGBA
                        : gray          ? JCS_GRAYSCALE
                                        : JCS_EXT_RGB;
    d.mem->max_memory_to_use = jpeg_memory_limit(&d);
    jpeg_start_decompress(&d);
    while (d.output_scanline < d.output_height) {
        JSAMPROW row = out->data + (size_t)d.output_scanline * out->pitch;
        jpeg_read_scanlines(&d, &row, 1);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    *cmyk_out = cmyk;
    *gray_out = gray;
    return FV_OK;
}

/* The EXIF block with its orientation set to 1 (the pixels are turned at load); NULL with a
 * message when out of memory. */
static uint8_t *exif_upright_copy(const char *name, const uint8_t *t, size_t n)
{
    uint8_t *c = codec_dup(name, t, n);
    if (!c || n < 8) return c;
    const int le = c[0] == 'I';
    const uint32_t ifd = get32(c + 4, le);
    if (ifd > n - 2) return c;
    const unsigned count = get16(c + ifd, le);
    for (unsigned i = 0; i < count; i++) {
        const size_t e = (size_t)ifd + 2 + (size_t)i * 12;
        if (e + 12 > n) break;
        if (get16(c + e, le) == 0x0112 && get16(c + e + 2, le) == 3 && get32(c + e + 4, le) == 1) {
            c[e + 8] = le ? 1 : 0;
            c[e + 9] = le ? 0 : 1;
        }
    }
    return c;
}

static fv_status jpeg_read_metadata(const char *name, const jpeg_markers *m, image_metadata *md)
{
    if (m->exif && m->exif_size >= 8 &&
        (memcmp(m->exif, "II*\0", 4) == 0 || memcmp(m->exif, "MM\0*", 4) == 0)) {
        if (!(md->exif = exif_upright_copy(name, m->exif, m->exif_size))) return FV_ERR_MEMORY;
        md->exif_size = m->exif_size;
    }
    size_t total = 0;
    for (int i = 1; i <= m->icc_count; i++) {
        if (!m->icc_chunk[i]) return FV_OK; /* a chunk missing: no profile */
        total += m->icc_chunk_size[i];
    }
    if (total == 0) return FV_OK;
    if (!(md->icc = malloc(total)))
        return fv_fail(FV_ERR_MEMORY, "out of host memory reading '%s'", name);
    for (int i = 1; i <= m->icc_count; i++) {
        memcpy(md->icc + md->icc_size, m->icc_chunk[i], m->icc_chunk_size[i]);
        md->icc_size += m->icc_chunk_size[i];
    }
    return FV_OK;
}

fv_status codec_jpeg_decode(const char *name, const uint8_t *data, size_t size,
                            const image_allocator *a, codec_want want, fv_image *out,
                            image_load_info *info)
{
    memset(out, 0, sizeof *out);
    jpeg_markers m;
    jpeg_scan_markers(data, size, &m);
    char buf[64];
    const char *unsupported = jpeg_unsupported(&m, buf, sizeof buf);
    if (unsupported)
        return fv_fail(FV_ERR_FORMAT, "'%s': %s: convert it to PNG", name, unsupported);
    if (m.scans > JPEG_MAX_SCANS)
        return jpeg_too_many_scans(name, m.sof == 0xc2 || m.sof == 0xca, m.scans);
    /* our own limits before libjpeg's (which stops at 65500 a side, in its own words); a height
     * of 0 (defined by a later DNL marker) is left to libjpeg */
    if (m.sof && m.height > 0)
        FV_TRY(codec_check_claim(name, "JPEG", m.width, m.height, size, JPEG_MAX_PIXELS_PER_BYTE));
    int cmyk = 0, gray = 0;
    FV_TRY(jpeg_decompress(name, data, size, a, want, out, &cmyk, &gray));
    if (cmyk) cmyk_to_rgba(out, m.adobe);
    if (cmyk && want == CODEC_NATIVE) { /* packed to RGB in place: each pixel moves down */
        for (size_t i = 0; i < (size_t)out->width * (size_t)out->height; i++)
            memmove(out->data + 3 * i, out->data + 4 * i, 3);
        out->channels = 3;
        out->pitch = (size_t)out->width * 3;
    }
    fv_status s = m.orientation > 1 ? apply_orientation(name, out, m.orientation) : FV_OK;
    if (s == FV_OK && info) {
        codec_describe(info, "JPEG", FV_PIXEL_U8, gray ? 1 : 3, 8);
        s = jpeg_read_metadata(name, &m, &info->metadata);
        if (s != FV_OK) image_metadata_free(&info->metadata);
    }
    if (s != FV_OK) codec_free_image(a, out);
    return s;
}

/* The chroma sampling nvJPEG names (4:4:4 ... 4:1:0) from the luma component's factors, chroma
 * at 1x1; 0 for any other layout. `hardware` says whether the hardware decoder takes it. */
static int jpeg_gpu_sampling(const jpeg_markers *m, int *hardware)
{
    static const struct {
        int h, v, hardware;
    } named[] = {{1, 1, 1}, {2, 1, 1}, {2, 2, 1}, {1, 2, 1}, {4, 1, 0}, {4, 2, 0}};
    for (int c = 1; c < 3; c++)
        if (m->sampling_h[c] != 1 || m->sampling_v[c] != 1) return 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (m->sampling_h[0] == named[i].h && m->sampling_v[0] == named[i].v) {
            *hardware = named[i].hardware;
            return 1;
        }
    return 0;
}

int codec_jpeg_frame_size(const uint8_t *data, size_t size, int *width, int *height)
{
    jpeg_markers m;
    jpeg_scan_markers(data, size, &m);
    *width = (int)m.width;
    *height = (int)m.height;
    return m.sof != 0 && m.width > 0 && m.height > 0;
}

fv_status codec_jpeg_inspect(const char *name, const uint8_t *data, size_t size,
                             codec_jpeg_header *h, image_load_info *info)
{
    memset(h, 0, sizeof *h);
    jpeg_markers m;
    jpeg_scan_markers(data, size, &m);
    h->width = (int)m.width;
    h->height = (int)m.height;
    h->components = m.components;
    h->orientation = m.orientation;
    h->fit = CODEC_JPEG_CPU_ONLY;
    /* what the CPU codec refuses or cannot judge from the header, it says itself, in its words */
    char buf[64];
    if (jpeg_unsupported(&m, buf, sizeof buf) || !m.sof || m.height < 1) {
        h->why = "a frame the CPU codec judges";
        return FV_OK;
    }
    /* the CPU reader's limits, before any decode: the GPU codec reads no more than it would */
    if (m.scans > JPEG_MAX_SCANS)
        return jpeg_too_many_scans(name, m.sof == 0xc2 || m.sof == 0xca, m.scans);
    FV_TRY(codec_check_claim(name, "JPEG", m.width, m.height, size, JPEG_MAX_PIXELS_PER_BYTE));
    int hardware = 1;
    if (m.sof == 0xc9 || m.sof == 0xca)
        h->why = "arithmetic coding";
    else if (m.components == 4 || m.adobe)
        h->why =
            "CMYK, YCCK or an Adobe colour transform"; /* libjpeg reads APP14 as nvJPEG may not */
    else if (m.components != 1 && m.components != 3)
        h->why = "an unusual component count";
    else if (m.components == 3 && !jpeg_gpu_sampling(&m, &hardware))
        h->why = "unusual sampling factors";
    if (h->why) return FV_OK;
    h->fit = CODEC_JPEG_GPU_ANY;
    if (m.sof == 0xc2)
        h->why = "progressive";
    else if (m.sof != 0xc0)
        h->why = "extended sequential";
    else if (m.scans != 1)
        h->why = "several scans";
    else if (!hardware)
        h->why = "4:1:1 or 4:1:0 sampling";
    if (h->why) h->fit = CODEC_JPEG_GPU_HYBRID;
    if (info) {
        codec_describe(info, "JPEG", FV_PIXEL_U8, m.components == 1 ? 1 : 3, 8);
        fv_status s = jpeg_read_metadata(name, &m, &info->metadata);
        if (s != FV_OK) image_metadata_free(&info->metadata);
        return s;
    }
    return FV_OK;
}

/* One APPn marker segment: FF En, the length, the pieces. */
static fv_status jpeg_put_marker(const char *name, int fd, int n, const void *tag, size_t tag_len,
                                 const uint8_t *data, size_t len)
{
    const size_t total = 2 + tag_len + len;
    const uint8_t head[4] = {0xff, (uint8_t)(0xe0 + n), (uint8_t)(total >> 8), (uint8_t)total};
    FV_TRY(codec_write_all(name, fd, head, 4));
    FV_TRY(codec_write_all(name, fd, tag, tag_len));
    return codec_write_all(name, fd, data, len);
}

/* EXIF (APP1; a block too large for one segment is left out) and the ICC profile (APP2, in
 * chunks of at most JPEG_ICC_CHUNK bytes, as libjpeg's jpeg_write_icc_profile writes it). */
#define JPEG_MARKER_MAX 65533 /* a segment's payload after its length */
#define JPEG_ICC_CHUNK  (JPEG_MARKER_MAX - 14)
static fv_status jpeg_write_metadata(const char *name, int fd, const image_metadata *m)
{
    if (m->exif && m->exif_size > 0 && m->exif_size <= JPEG_MARKER_MAX - 6)
        FV_TRY(jpeg_put_marker(name, fd, 1, "Exif\0\0", 6, m->exif, m->exif_size));
    if (!m->icc || m->icc_size == 0) return FV_OK;
    const size_t chunks = (m->icc_size + JPEG_ICC_CHUNK - 1) / JPEG_ICC_CHUNK;
    if (chunks > 255) return FV_OK; /* more than the markers can number */
    for (size_t i = 0; i < chunks; i++) {
        uint8_t tag[14];
        memcpy(tag, "ICC_PROFILE\0", 12);
        tag[12] = (uint8_t)(i + 1);
        tag[13] = (uint8_t)chunks;
        const size_t at = i * JPEG_ICC_CHUNK,
                     n = m->icc_size - at < JPEG_ICC_CHUNK ? m->icc_size - at : JPEG_ICC_CHUNK;
        FV_TRY(jpeg_put_marker(name, fd, 2, tag, 14, m->icc + at, n));
    }
    return FV_OK;
}

fv_status codec_jpeg_write_stream(const char *name, int fd, const uint8_t *jpeg, size_t len,
                                  const image_metadata *meta)
{
    /* the metadata's markers go after SOI and the encoder's JFIF APP0, which comes first */
    size_t head = 2;
    if (len > 6 && jpeg[2] == 0xff && jpeg[3] == 0xe0) head = 4 + ((size_t)jpeg[4] << 8 | jpeg[5]);
    if (head > len) head = len;
    FV_TRY(codec_write_all(name, fd, jpeg, head));
    if (meta) FV_TRY(jpeg_write_metadata(name, fd, meta));
    return codec_write_all(name, fd, jpeg + head, len - head);
}

fv_status codec_jpeg_encode(const char *name, int fd, const fv_image *img, int quality,
                            const image_metadata *meta)
{
    tjhandle tj = tjInitCompress();
    if (!tj) return fv_fail(FV_ERR_MEMORY, "cannot start the JPEG encoder for '%s'", name);
    const int channels = fv_image_channels(img);
    const int pf = channels == 1 ? TJPF_GRAY : channels == 3 ? TJPF_RGB : TJPF_RGBA;
    unsigned char *buf = NULL;
    unsigned long len = 0;
    fv_status s = FV_OK;
    if (tjCompress2(tj, img->data, img->width, (int)img->pitch, img->height, pf, &buf, &len,
                    channels == 1 ? TJSAMP_GRAY : TJSAMP_420, quality, 0) != 0) {
        char why[256];
        image_printable(tjGetErrorStr2(tj), why, sizeof why);
        s = fv_fail(FV_ERR_IO, "cannot write '%s': JPEG encoder: %s", name, why);
    }
    if (s == FV_OK) s = codec_jpeg_write_stream(name, fd, buf, len, meta);
    tjFree(buf);
    tjDestroy(tj);
    return s;
}
