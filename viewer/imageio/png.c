/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/png.c: PNG in through libspng (every colour type and bit depth, interlaced, tRNS;
 * 16-bit samples keep their high byte; read to IEND with every critical chunk's CRC checked, as
 * libpng does), PNG out through our own writer on zlib.
 *
 * The writer filters each row (SUB at fast levels, as OpenCV does; PAETH at level 4 and up) and
 * compresses the rows in one of two ways: with few threads, libdeflate in one call (the fastest
 * deflate on one core); with many, zlib on strips of rows at once, each strip ending on a byte
 * boundary (Z_SYNC_FLUSH) so that their concatenation is one zlib stream (pigz's way), the
 * Adler-32s combined. An opaque image is written as RGB (a quarter less to compress).
 * Checked by tests/cpu/test_image_io.c: libspng reads back every level, thread count and shape.
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

fv_status codec_png_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, fv_image *out)
{
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
    size_t bytes = 0;
    if (!e) e = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &bytes);
    if (e)
        s = fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNG: %s)", name,
                    spng_strerror(e));
    if (s == FV_OK) s = codec_alloc_image(a, (int)ihdr.width, (int)ihdr.height, out);
    if (s == FV_OK && bytes != out->pitch * (size_t)out->height)
        s = fv_fail(FV_ERR_FORMAT, "'%s': unexpected decoded size", name);
    if (s == FV_OK) {
        e = spng_decode_image(ctx, out->data, bytes, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
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
    int channels; /* 3 or 4 */
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

/* Row y of the image as `channels` bytes per pixel into line (width * channels bytes). */
static void png_raw_row(const png_job *j, int y, uint8_t *line)
{
    const fv_image *img = j->img;
    const uint8_t *src = img->data + (size_t)y * img->pitch;
    if (j->channels == 4) {
        memcpy(line, src, (size_t)img->width * 4);
        return;
    }
    for (int x = 0; x < img->width; x++) {
        line[3 * x] = src[4 * x];
        line[3 * x + 1] = src[4 * x + 1];
        line[3 * x + 2] = src[4 * x + 2];
    }
}

/* The filter byte and the filtered line into out (1 + n bytes); prev is the raw row above,
 * NULL for the first row (where PNG's row above is zeros). */
static void png_filter_row(const png_job *j, const uint8_t *line, const uint8_t *prev, uint8_t *out)
{
    const int n = j->img->width * j->channels, bpp = j->channels;
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
    const size_t line_bytes = (size_t)j->img->width * j->channels, row_bytes = 1 + line_bytes;
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
        for (int x = 0; x < img->width; x++)
            if (row[4 * x + 3] != 255) return 0;
    }
    return 1;
}

fv_status codec_png_encode(const char *name, int fd, const fv_image *img, int level, int threads)
{
    png_job j = {.img = img, .level = level, .filter = level == 0 ? 0 : level <= 3 ? 1 : 4};
    j.channels = png_is_opaque(img) ? 3 : 4;
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
        ihdr[8] = 8;
        ihdr[9] = j.channels == 4 ? 6 : 2;
        ihdr[10] = ihdr[11] = ihdr[12] = 0;
        const uint8_t *p[3];
        size_t len[3];
        s = codec_write_all(name, fd, signature, 8);
        p[0] = ihdr;
        len[0] = 13;
        if (s == FV_OK) s = png_write_chunk(name, fd, "IHDR", p, len, 1);
        /* zlib header: deflate, 32 KiB window, no dictionary; level hint; check bits */
        uint8_t zhead[2] = {0x78, (uint8_t)(level <= 1   ? 0x01
                                            : level <= 5 ? 0x5e
                                            : level <= 6 ? 0x9c
                                                         : 0xda)};
        uLong adler = j.strips[0].adler;
        for (int k = 1; k < n; k++)
            adler = adler32_combine(
                adler, j.strips[k].adler,
                (z_off_t)((size_t)j.strips[k].rows * (1 + (size_t)img->width * j.channels)));
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
