/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/png.c: PNG in through libspng (every colour type and bit depth, interlaced, tRNS;
 * natively the file's own type and channels (image_io.h's table), or RGBA8 where 16-bit samples
 * keep their high byte; read to IEND with every critical chunk's CRC checked, as libpng does;
 * iCCP, eXIf and text chunks kept), PNG out through our own writer on zlib: 8- or 16-bit gray,
 * RGB or RGBA, with the metadata's iCCP, eXIf, tEXt and iTXt before the pixels.
 *
 * The writer filters each row (SUB at fast levels, as OpenCV does; PAETH at level 4 and up) and
 * compresses the rows in one of two ways: with few threads, libdeflate in one call (the fastest
 * deflate on one core); with many, zlib on strips of rows at once, each strip ending on a byte
 * boundary (Z_SYNC_FLUSH) so that their concatenation is one zlib stream (pigz's way), the
 * Adler-32s combined. An opaque RGBA image is written as RGB (a quarter less to compress).
 * Checked by tests/cpu/test_image_io.c (libspng reads back every level, thread count and shape)
 * and tests/cpu/test_image_io_typed.c (every type and channel count, metadata).
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <ctype.h>
#include <libdeflate.h>
#include <pthread.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* deflate cannot beat about 1032:1; anything claiming more than that is lying or truncated */
#define PNG_MAX_INFLATE_RATIO 1032.0
#define PNG_CHUNK_LIMIT       ((size_t)16 << 20) /* an ancillary chunk (text, ICC profile) */
#define PNG_CHUNK_CACHE       ((size_t)64 << 20) /* all ancillary chunks kept together */
#define PNG_STRIP_MIN_ROWS    16
#define PNG_STRIPS_PER_THREAD 4
/* below this many threads one libdeflate call (about 1.6x zlib's speed on one core, and
 * smaller) beats zlib's strips in parallel */
#define PNG_PARALLEL_MIN_THREADS 4

/* The ancillary chunks image_metadata carries (iCCP, eXIf, tEXt/zTXt/iTXt), copied out of spng's
 * context; a chunk spng dropped (bad CRC) or never saw is simply absent. */
static fv_status png_read_metadata(const char *name, spng_ctx *ctx, image_metadata *m)
{
    struct spng_iccp iccp;
    if (spng_get_iccp(ctx, &iccp) == 0 && iccp.profile_len > 0) {
        if (!(m->icc = codec_dup(name, iccp.profile, iccp.profile_len))) return FV_ERR_MEMORY;
        m->icc_size = iccp.profile_len;
        snprintf(m->icc_name, sizeof m->icc_name, "%s", iccp.profile_name);
    }
    struct spng_exif exif;
    if (spng_get_exif(ctx, &exif) == 0 && exif.length > 0) {
        if (!(m->exif = codec_dup(name, exif.data, exif.length))) return FV_ERR_MEMORY;
        m->exif_size = exif.length;
    }
    uint32_t n = 0;
    if (spng_get_text(ctx, NULL, &n) == 0 && n > 0) {
        struct spng_text *t = calloc(n, sizeof *t);
        m->texts = calloc(n, sizeof *m->texts);
        if (!t || !m->texts || spng_get_text(ctx, t, &n) != 0) {
            free(t);
            return fv_fail(FV_ERR_MEMORY, "out of host memory reading '%s'", name);
        }
        for (uint32_t i = 0; i < n; i++) {
            image_text *o = &m->texts[m->n_texts];
            snprintf(o->keyword, sizeof o->keyword, "%s", t[i].keyword);
            o->length = t[i].length;
            o->utf8 = t[i].type == SPNG_ITXT;
            if (!(o->text = (char *)codec_dup(name, t[i].text, t[i].length + 1))) {
                free(t);
                return FV_ERR_MEMORY;
            }
            o->text[o->length] = 0;
            m->n_texts++;
        }
        free(t);
    }
    return FV_OK;
}

/* The native layout of a PNG (image_io.h's table) and the spng format that gives it: 16-bit
 * images without alpha come in the PNG's own layout (SPNG_FMT_PNG: samples in host order). */
static void png_native_layout(const struct spng_ihdr *h, int has_trns, fv_pixel_type *type,
                              int *channels, int *fmt)
{
    const int c = h->color_type, deep = h->bit_depth == 16;
    const int alpha =
        c == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA || c == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA || has_trns;
    *type = deep ? FV_PIXEL_U16 : FV_PIXEL_U8;
    if (alpha) {
        *channels = 4;
        *fmt = deep ? SPNG_FMT_RGBA16 : SPNG_FMT_RGBA8;
    } else if (c == SPNG_COLOR_TYPE_GRAYSCALE) {
        *channels = 1;
        *fmt = deep ? SPNG_FMT_PNG : SPNG_FMT_G8;
    } else { /* RGB, palette */
        *channels = 3;
        *fmt = deep ? SPNG_FMT_PNG : SPNG_FMT_RGB8;
    }
}

fv_status codec_png_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, codec_want want, fv_image *out,
                           image_load_info *info)
{
    memset(out, 0, sizeof *out);
    if (size < 33)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNG: no complete header)",
                       name);
    /* the first chunk must be a 13-byte IHDR: otherwise bytes 16..23 are no size at all */
    if (memcmp(data + 8, "\0\0\0\15IHDR", 8) != 0) {
        char type[5] = {0};
        for (int i = 0; i < 4; i++) type[i] = isalpha(data[12 + i]) ? (char)data[12 + i] : '?';
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt (PNG: the first chunk is %s, not a header)",
                       name, memcmp(data + 12, "IHDR", 4) == 0 ? "a short IHDR" : type);
    }
    long w = (long)data[16] << 24 | data[17] << 16 | data[18] << 8 | data[19];
    long h = (long)data[20] << 24 | data[21] << 16 | data[22] << 8 | data[23];
    int depth = data[24], colour = data[25];
    int channels = colour == 0 ? 1 : colour == 2 ? 3 : colour == 3 ? 1 : colour == 4 ? 2 : 4;
    /* bits per pixel in the filtered rows: what the pixels take before deflate */
    double bytes_per_pixel = (double)(depth ? depth : 8) * channels / 8.0;
    FV_TRY(codec_check_claim(name, "PNG", w, h, size, PNG_MAX_INFLATE_RATIO / bytes_per_pixel));

    spng_ctx *ctx = spng_ctx_new(0);
    if (!ctx) return fv_fail(FV_ERR_MEMORY, "out of host memory decoding '%s'", name);
    fv_status s = FV_OK;
    int e = spng_set_png_buffer(ctx, data, size);
    if (!e) e = spng_set_image_limits(ctx, FV_MAX_DIMENSION, FV_MAX_DIMENSION);
    if (!e) e = spng_set_chunk_limits(ctx, PNG_CHUNK_LIMIT, PNG_CHUNK_CACHE);
    /* a bad checksum on an ancillary chunk drops the chunk; on a critical one it is an error */
    if (!e) e = spng_set_crc_action(ctx, SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
    struct spng_ihdr ihdr;
    if (!e) e = spng_get_ihdr(ctx, &ihdr);
    struct spng_trns trns;
    const int has_trns = !e && spng_get_trns(ctx, &trns) == 0;
    fv_pixel_type type = FV_PIXEL_U8;
    int out_channels = 4, fmt = SPNG_FMT_RGBA8;
    if (!e && want == CODEC_NATIVE) png_native_layout(&ihdr, has_trns, &type, &out_channels, &fmt);
    size_t bytes = 0;
    if (!e) e = spng_decoded_image_size(ctx, fmt, &bytes);
    if (e)
        s = fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNG: %s)", name,
                    spng_strerror(e));
    if (s == FV_OK)
        s = codec_alloc_image_as(a, (int)ihdr.width, (int)ihdr.height, type, out_channels, out);
    if (s == FV_OK && bytes != out->pitch * (size_t)out->height)
        s = fv_fail(FV_ERR_FORMAT, "'%s': unexpected decoded size", name);
    if (s == FV_OK) {
        e = spng_decode_image(ctx, out->data, bytes, fmt, SPNG_DECODE_TRNS);
        /* the image ends with its zlib stream; the file with IEND: read on to it, as libpng does,
         * so that a bad checksum on the last IDAT or a file cut after the pixels is refused */
        if (!e) e = spng_decode_chunks(ctx);
        if (e == SPNG_IO_EOF)
            s = fv_fail(FV_ERR_FORMAT,
                        "'%s' is corrupt or truncated (PNG: the file ends before IEND)", name);
        else if (e)
            s = fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNG: %s)", name,
                        spng_strerror(e));
    }
    if (s == FV_OK && info) {
        fv_pixel_type ft;
        int fc, ff;
        png_native_layout(&ihdr, has_trns, &ft, &fc, &ff);
        codec_describe(info, "PNG", ft, fc, ihdr.bit_depth);
        if (want == CODEC_RGBA8 && ihdr.bit_depth == 16) {
            info->lossy_to_8bit = 1;
            snprintf(info->lossy_note, sizeof info->lossy_note,
                     "'%s': 16-bit PNG read as 8-bit (the high byte of each sample)", name);
        }
        s = png_read_metadata(name, ctx, &info->metadata);
        if (s != FV_OK) image_metadata_free(&info->metadata);
    }
    spng_ctx_free(ctx);
    if (s != FV_OK) codec_free_image(a, out);
    return s;
}

/* ---- the writer ---- */

typedef struct png_strip {
    int row0, rows;
    uint8_t *out; /* deflated bytes */
    size_t out_len;
    uLong adler; /* of the filtered rows */
    int failed;
} png_strip;

typedef struct png_job {
    const fv_image *img;
    int channels;     /* written: 1, 3 or 4 (an opaque RGBA image is written as RGB) */
    int sample_bytes; /* 1 or 2 */
    int level;
    int filter; /* 1 = SUB, 4 = PAETH */
    png_strip *strips;
    int n_strips;
    int next;           /* taken with __atomic_fetch_add */
    int use_libdeflate; /* one strip, compressed whole by libdeflate (zlib header included) */
} png_job;

static inline uint8_t paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return (uint8_t)(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

/* Row y of the image as PNG stores it (16-bit samples big-endian) into line. */
static void png_raw_row(const png_job *j, int y, uint8_t *line)
{
    const fv_image *img = j->img;
    const uint8_t *src = img->data + (size_t)y * img->pitch;
    const int from = fv_image_channels(img), to = j->channels;
    if (j->sample_bytes == 1) {
        if (from == to) {
            memcpy(line, src, (size_t)img->width * (size_t)to);
            return;
        }
        for (int x = 0; x < img->width; x++) /* RGBA to RGB */
            memcpy(line + 3 * (size_t)x, src + 4 * (size_t)x, 3);
        return;
    }
    for (int x = 0; x < img->width; x++)
        for (int c = 0; c < to; c++) {
            uint16_t v;
            memcpy(&v, src + 2 * ((size_t)x * (size_t)from + (size_t)c), 2);
            uint8_t *o = line + 2 * ((size_t)x * (size_t)to + (size_t)c);
            o[0] = (uint8_t)(v >> 8);
            o[1] = (uint8_t)v;
        }
}

/* The filter byte and the filtered line into out (1 + n bytes); prev is the raw row above,
 * NULL for the first row (where PNG's row above is zeros). */
static void png_filter_row(const png_job *j, const uint8_t *line, const uint8_t *prev, uint8_t *out)
{
    const int bpp = j->channels * j->sample_bytes, n = j->img->width * bpp;
    uint8_t *f = out + 1;
    out[0] = (uint8_t)j->filter;
    if (j->filter == 0) {
        memcpy(f, line, (size_t)n);
    } else if (j->filter == 1 || !prev) { /* SUB; PAETH with zeros above is SUB too */
        for (int i = 0; i < bpp; i++) f[i] = line[i];
        for (int i = bpp; i < n; i++) f[i] = (uint8_t)(line[i] - line[i - bpp]);
    } else {
        for (int i = 0; i < bpp; i++) f[i] = (uint8_t)(line[i] - prev[i]);
        for (int i = bpp; i < n; i++)
            f[i] = (uint8_t)(line[i] - paeth(line[i - bpp], prev[i], prev[i - bpp]));
    }
}

static void png_deflate_strip(png_job *j, png_strip *s, int last)
{
    const size_t line_bytes = (size_t)j->img->width * (size_t)(j->channels * j->sample_bytes),
                 row_bytes = 1 + line_bytes;
    uint8_t *filtered = malloc(row_bytes * (size_t)s->rows);
    uint8_t *lines = malloc(2 * line_bytes);
    z_stream z;
    memset(&z, 0, sizeof z);
    /* Z_RLE at the fast levels: runs along filtered rows are what photos offer (OpenCV's choice) */
    if (!filtered || !lines ||
        (!j->use_libdeflate && deflateInit2(&z, j->level, Z_DEFLATED, -15, 8,
                                            j->level <= 3 ? Z_RLE : Z_DEFAULT_STRATEGY) != Z_OK)) {
        free(filtered);
        free(lines);
        s->failed = 1;
        return;
    }
    uint8_t *line = lines, *prev = lines + line_bytes;
    int have_prev = s->row0 > 0;
    if (have_prev) png_raw_row(j, s->row0 - 1, prev);
    for (int r = 0; r < s->rows; r++) {
        png_raw_row(j, s->row0 + r, line);
        png_filter_row(j, line, have_prev ? prev : NULL, filtered + (size_t)r * row_bytes);
        uint8_t *t = line;
        line = prev;
        prev = t;
        have_prev = 1;
    }
    const size_t in_len = row_bytes * (size_t)s->rows;
    if (j->use_libdeflate) {
        struct libdeflate_compressor *c = libdeflate_alloc_compressor(j->level);
        size_t cap = c ? libdeflate_zlib_compress_bound(c, in_len) : 0;
        s->out = c ? malloc(cap) : NULL;
        s->out_len = s->out ? libdeflate_zlib_compress(c, filtered, in_len, s->out, cap) : 0;
        if (s->out_len == 0) s->failed = 1;
        if (c) libdeflate_free_compressor(c);
        free(filtered);
        free(lines);
        return;
    }
    s->adler = adler32(adler32(0, NULL, 0), filtered, (uInt)in_len);
    size_t cap = deflateBound(&z, in_len) + 64;
    s->out = malloc(cap);
    if (!s->out)
        s->failed = 1;
    else {
        z.next_in = filtered;
        z.avail_in = (uInt)in_len;
        z.next_out = s->out;
        z.avail_out = (uInt)cap;
        int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
        if ((last && rc != Z_STREAM_END) || (!last && rc != Z_OK) || z.avail_in != 0) s->failed = 1;
        s->out_len = cap - z.avail_out;
    }
    deflateEnd(&z);
    free(filtered);
    free(lines);
}

static void *png_worker(void *arg)
{
    png_job *j = arg;
    for (;;) {
        int k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (k >= j->n_strips) return NULL;
        png_deflate_strip(j, &j->strips[k], k == j->n_strips - 1);
    }
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* One chunk: length, type, the pieces of data in order, CRC. */
static fv_status png_write_chunk(const char *name, int fd, const char *type,
                                 const uint8_t *const *piece, const size_t *piece_len, int n_pieces)
{
    size_t len = 0;
    for (int i = 0; i < n_pieces; i++) len += piece_len[i];
    uint8_t head[8];
    put_be32(head, (uint32_t)len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(crc32(0, NULL, 0), head + 4, 4);
    for (int i = 0; i < n_pieces; i++) crc = crc32(crc, piece[i], (uInt)piece_len[i]);
    uint8_t tail[4];
    put_be32(tail, (uint32_t)crc);
    FV_TRY(codec_write_all(name, fd, head, 8));
    for (int i = 0; i < n_pieces; i++) FV_TRY(codec_write_all(name, fd, piece[i], piece_len[i]));
    return codec_write_all(name, fd, tail, 4);
}

static int png_is_opaque(const fv_image *img)
{
    for (int y = 0; y < img->height; y++) {
        const uint8_t *row = img->data + (size_t)y * img->pitch;
        for (int x = 0; x < img->width; x++) {
            if (img->type == FV_PIXEL_U16) {
                uint16_t a;
                memcpy(&a, row + 8 * (size_t)x + 6, 2);
                if (a != 65535) return 0;
            } else if (row[4 * (size_t)x + 3] != 255) {
                return 0;
            }
        }
    }
    return 1;
}

/* iCCP (the profile deflated), eXIf and the text chunks, all before the pixels. */
static fv_status png_write_metadata(const char *name, int fd, const image_metadata *m)
{
    const uint8_t *p[6];
    size_t len[6];
    static const uint8_t zeros[3] = {0, 0, 0};
    if (m->icc && m->icc_size > 0) {
        uLongf zlen = compressBound((uLong)m->icc_size);
        uint8_t *z = malloc(zlen);
        if (!z || compress2(z, &zlen, m->icc, (uLong)m->icc_size, 9) != Z_OK) {
            free(z);
            return fv_fail(FV_ERR_MEMORY, "cannot write '%s': out of memory for its ICC profile",
                           name);
        }
        const char *profile = m->icc_name[0] ? m->icc_name : "ICC profile";
        p[0] = (const uint8_t *)profile;
        len[0] = strnlen(profile, 79);
        p[1] = zeros; /* the keyword's NUL, then compression method 0 */
        len[1] = 2;
        p[2] = z;
        len[2] = zlen;
        fv_status s = png_write_chunk(name, fd, "iCCP", p, len, 3);
        free(z);
        FV_TRY(s);
    }
    if (m->exif && m->exif_size > 0) {
        p[0] = m->exif;
        len[0] = m->exif_size;
        FV_TRY(png_write_chunk(name, fd, "eXIf", p, len, 1));
    }
    for (int i = 0; i < m->n_texts; i++) {
        const image_text *t = &m->texts[i];
        p[0] = (const uint8_t *)t->keyword;
        len[0] = strnlen(t->keyword, 79);
        if (len[0] == 0) continue;
        p[1] = zeros;
        if (t->utf8) { /* NUL, uncompressed, method 0, no language, no translated keyword */
            len[1] = 3;
            p[2] = zeros;
            len[2] = 2;
            p[3] = (const uint8_t *)t->text;
            len[3] = t->length;
            FV_TRY(png_write_chunk(name, fd, "iTXt", p, len, 4));
        } else {
            len[1] = 1;
            p[2] = (const uint8_t *)t->text;
            len[2] = t->length;
            FV_TRY(png_write_chunk(name, fd, "tEXt", p, len, 3));
        }
    }
    return FV_OK;
}

fv_status codec_png_encode(const char *name, int fd, const fv_image *img, int level, int threads,
                           const image_metadata *meta)
{
    png_job j = {.img = img, .level = level, .filter = level == 0 ? 0 : level <= 3 ? 1 : 4};
    const int from = fv_image_channels(img);
    j.channels = from == 4 && png_is_opaque(img) ? 3 : from;
    j.sample_bytes = img->type == FV_PIXEL_U16 ? 2 : 1;
    /* strips: enough for every thread to have several, none too small to compress well */
    int n = threads * PNG_STRIPS_PER_THREAD;
    if (threads < PNG_PARALLEL_MIN_THREADS) n = 1;
    if (n > img->height / PNG_STRIP_MIN_ROWS) n = img->height / PNG_STRIP_MIN_ROWS;
    if (n < 1) n = 1;
    j.n_strips = n;
    j.use_libdeflate = n == 1;
    j.strips = calloc((size_t)n, sizeof *j.strips);
    if (!j.strips) return fv_fail(FV_ERR_MEMORY, "out of host memory writing '%s'", name);
    for (int k = 0; k < n; k++) {
        j.strips[k].row0 = (int)((long long)img->height * k / n);
        j.strips[k].rows = (int)((long long)img->height * (k + 1) / n) - j.strips[k].row0;
    }
    int n_threads = threads < n ? threads : n;
    pthread_t tid[64];
    int started = 0;
    for (int t = 1; t < n_threads && t < 64; t++)
        if (pthread_create(&tid[started], NULL, png_worker, &j) == 0) started++;
    png_worker(&j);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);

    fv_status s = FV_OK;
    for (int k = 0; k < n; k++)
        if (j.strips[k].failed)
            s = fv_fail(FV_ERR_MEMORY, "cannot write '%s': PNG encoder ran out of memory", name);
    if (s == FV_OK) {
        static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        uint8_t ihdr[13];
        put_be32(ihdr, (uint32_t)img->width);
        put_be32(ihdr + 4, (uint32_t)img->height);
        ihdr[8] = (uint8_t)(8 * j.sample_bytes);
        ihdr[9] = j.channels == 4 ? 6 : j.channels == 3 ? 2 : 0;
        ihdr[10] = ihdr[11] = ihdr[12] = 0;
        const uint8_t *p[3];
        size_t len[3];
        s = codec_write_all(name, fd, signature, 8);
        p[0] = ihdr;
        len[0] = 13;
        if (s == FV_OK) s = png_write_chunk(name, fd, "IHDR", p, len, 1);
        if (s == FV_OK && meta) s = png_write_metadata(name, fd, meta);
        /* zlib header: deflate, 32 KiB window, no dictionary; level hint; check bits */
        uint8_t zhead[2] = {0x78, (uint8_t)(level <= 1   ? 0x01
                                            : level <= 5 ? 0x5e
                                            : level <= 6 ? 0x9c
                                                         : 0xda)};
        uLong adler = j.strips[0].adler;
        for (int k = 1; k < n; k++)
            adler = adler32_combine(
                adler, j.strips[k].adler,
                (z_off_t)((size_t)j.strips[k].rows *
                          (1 + (size_t)img->width * (size_t)(j.channels * j.sample_bytes))));
        uint8_t ztail[4];
        put_be32(ztail, (uint32_t)adler);
        for (int k = 0; k < n && s == FV_OK; k++) {
            int np = 0;
            if (j.use_libdeflate) {
                p[0] = j.strips[0].out;
                len[0] = j.strips[0].out_len;
                s = png_write_chunk(name, fd, "IDAT", p, len, 1);
                break;
            }
            if (k == 0) {
                p[np] = zhead;
                len[np++] = 2;
            }
            p[np] = j.strips[k].out;
            len[np++] = j.strips[k].out_len;
            if (k == n - 1) {
                p[np] = ztail;
                len[np++] = 4;
            }
            s = png_write_chunk(name, fd, "IDAT", p, len, np);
        }
        if (s == FV_OK) s = png_write_chunk(name, fd, "IEND", p, len, 0);
    }
    for (int k = 0; k < n; k++) free(j.strips[k].out);
    free(j.strips);
    return s;
}
