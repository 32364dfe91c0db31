/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_image_io.c: the image codecs and output files (viewer/imageio/image_io.c, the
 * codecs beside it, imageio/bmp.c).
 *
 * A corpus made here, at test time, from random pixels (seed printed): PNGs of every colour type
 * and bit depth, plain and interlaced, written by hand with zlib so that the decoder under test
 * is not also their author; JPEGs (baseline, progressive, gray, CMYK, every EXIF orientation,
 * and through libjpeg's own API: unusual sampling factors, arithmetic coding, scan scripts);
 * PNM text and binary, 8- and 16-bit; BMPs of every header, depth, palette and bit-field
 * layout, written here byte by byte (a few worked by hand). Each is checked by content after
 * decoding, against TurboJPEG's decode of a twin where one exists. Then the bad files: truncations at many offsets
 * of every format, bit flips and bad checksums, lying headers and bombs (by size, by scans),
 * unsupported JPEG kinds, a FIFO, control characters, each refused with one printable line
 * within a time limit; loads with a size limit. Then output: PNG at every level and thread
 * count read back exactly, JPEG quality, read-only and linked targets, long names, the temporary
 * file removed by every signal that ends the process (mid-write too), and writes past the file
 * size limit or to a closed pipe failing instead of killing the process.
 * ------------------------------------------------------------------------------------------------ */
#include "test_jpeg.h"
#include "test_util.h"

#include "codec.h"
#include "image_io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <turbojpeg.h>
#include <jpeglib.h>
#include <unistd.h>
#include <zlib.h>

#include <stb_image_write.h>

static test_counts T;
static char dir[PATH_MAX];
static uint32_t seed;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void check(int ok, const char *what, const char *detail)
{
    test_check(&T, ok, what, detail);
}

static void path_of(char *buf, const char *name)
{
    if ((size_t)snprintf(buf, PATH_MAX, "%s/%s", dir, name) >= PATH_MAX) buf[0] = 0;
}

static int write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    return ok;
}

static uint8_t *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    uint8_t *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

/* one line, printable ASCII (escapes included), not empty */
static int message_is_clean(const char *m)
{
    if (!*m) return 0;
    for (const unsigned char *p = (const unsigned char *)m; *p; p++)
        if (*p < 0x20 || *p == 0x7f) return 0;
    return 1;
}

static int load_bytes(const char *name, const void *data, size_t n, fv_image *out)
{
    char p[PATH_MAX];
    path_of(p, name);
    write_bytes(p, data, n);
    return image_load(p, out);
}

/* ---- PNG by hand ---- */

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static size_t chunk(uint8_t *out, const char *type, const uint8_t *data, size_t n)
{
    be32(out, (uint32_t)n);
    memcpy(out + 4, type, 4);
    if (n) memcpy(out + 8, data, n);
    be32(out + 8 + n, (uint32_t)crc32(0, out + 4, (uInt)(n + 4)));
    return n + 12;
}

typedef struct png_spec {
    int w, h, colour, depth, interlace;
    const uint16_t *samples; /* channels per pixel, row-major */
    const uint8_t *palette;  /* RGB x n_palette */
    int n_palette;
    const uint8_t *trns; /* palette alpha, n_trns entries */
    int n_trns;
} png_spec;

static int png_channels(int colour)
{
    return colour == 0 || colour == 3 ? 1 : colour == 2 ? 3 : colour == 4 ? 2 : 4;
}

/* Packs the rows of a (sub)image x0 + k*dx, y0 + k*dy with filter 0 into raw; returns bytes. */
static size_t png_pack_pass(const png_spec *s, int x0, int y0, int dx, int dy, uint8_t *raw)
{
    const int ch = png_channels(s->colour);
    int pw = s->w > x0 ? (s->w - x0 + dx - 1) / dx : 0,
        ph = s->h > y0 ? (s->h - y0 + dy - 1) / dy : 0;
    if (pw == 0 || ph == 0) return 0;
    size_t row_bytes = ((size_t)pw * ch * s->depth + 7) / 8, n = 0;
    for (int py = 0; py < ph; py++) {
        raw[n++] = 0;
        memset(raw + n, 0, row_bytes);
        int bit = 0;
        for (int px = 0; px < pw; px++)
            for (int c = 0; c < ch; c++) {
                uint16_t v = s->samples[((size_t)(y0 + py * dy) * s->w + (x0 + px * dx)) * ch + c];
                if (s->depth == 16) {
                    raw[n + bit / 8] = (uint8_t)(v >> 8);
                    raw[n + bit / 8 + 1] = (uint8_t)v;
                } else if (s->depth == 8) {
                    raw[n + bit / 8] = (uint8_t)v;
                } else {
                    raw[n + bit / 8] |= (uint8_t)(v << (8 - s->depth - bit % 8));
                }
                bit += s->depth;
            }
        n += row_bytes;
    }
    return n;
}

static uint8_t *png_make(const png_spec *s, size_t *size)
{
    const size_t cap_raw = (size_t)s->h * 2 * (1 + ((size_t)s->w * 4 * 16 + 7) / 8) + 1024;
    uint8_t *raw = malloc(cap_raw), *out = malloc(cap_raw * 2 + 4096);
    size_t n_raw = 0;
    if (s->interlace) {
        static const int pass[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4},
                                       {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}};
        for (int p = 0; p < 7; p++)
            n_raw += png_pack_pass(s, pass[p][0], pass[p][1], pass[p][2], pass[p][3], raw + n_raw);
    } else {
        n_raw = png_pack_pass(s, 0, 0, 1, 1, raw);
    }
    uLongf zlen = compressBound(n_raw);
    uint8_t *z = malloc(zlen);
    compress2(z, &zlen, raw, n_raw, 6);
    size_t n = 8;
    memcpy(out, "\x89PNG\r\n\x1a\n", 8);
    uint8_t ihdr[13];
    be32(ihdr, (uint32_t)s->w);
    be32(ihdr + 4, (uint32_t)s->h);
    ihdr[8] = (uint8_t)s->depth;
    ihdr[9] = (uint8_t)s->colour;
    ihdr[10] = ihdr[11] = 0;
    ihdr[12] = (uint8_t)s->interlace;
    n += chunk(out + n, "IHDR", ihdr, 13);
    if (s->palette) n += chunk(out + n, "PLTE", s->palette, (size_t)s->n_palette * 3);
    if (s->trns) n += chunk(out + n, "tRNS", s->trns, (size_t)s->n_trns);
    n += chunk(out + n, "IDAT", z, zlen);
    n += chunk(out + n, "IEND", NULL, 0);
    free(raw);
    free(z);
    *size = n;
    return out;
}

static uint8_t png_to8(uint16_t v, int depth)
{
    return depth == 16  ? (uint8_t)(v >> 8)
           : depth == 8 ? (uint8_t)v
                        : (uint8_t)(v * 255 / ((1 << depth) - 1));
}

static void test_png_kinds(void)
{
    static const struct {
        int colour, depth;
    } kinds[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {2, 8}, {2, 16}, {3, 1},
                 {3, 2}, {3, 4}, {3, 8}, {4, 8}, {4, 16}, {6, 8}, {6, 16}};
    const int w = 13, h = 11;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int interlace = 0; interlace < 2; interlace++) {
            const int colour = kinds[k].colour, depth = kinds[k].depth, ch = png_channels(colour);
            uint16_t samples[13 * 11 * 4];
            uint8_t palette[256 * 3], trns[256];
            const int n_pal = colour == 3 ? 1 << depth : 0;
            for (int i = 0; i < n_pal * 3; i++) palette[i] = (uint8_t)test_rand(&seed);
            for (int i = 0; i < n_pal; i++) trns[i] = (uint8_t)test_rand(&seed);
            for (int i = 0; i < w * h * ch; i++)
                samples[i] =
                    (uint16_t)(test_rand(&seed) & (depth == 16 ? 0xffff : (1u << depth) - 1));
            png_spec s = {w,
                          h,
                          colour,
                          depth,
                          interlace,
                          samples,
                          n_pal ? palette : NULL,
                          n_pal,
                          n_pal ? trns : NULL,
                          n_pal / 2};
            size_t size = 0;
            uint8_t *file = png_make(&s, &size);
            fv_image img;
            char what[96];
            snprintf(what, sizeof what, "PNG colour %d depth %d%s", colour, depth,
                     interlace ? " interlaced" : "");
            fv_status st = load_bytes("kind.png", file, size, &img);
            check(st == FV_OK, what, st == FV_OK ? NULL : fv_last_error());
            if (st == FV_OK) {
                int same = img.width == w && img.height == h;
                for (int i = 0; same && i < w * h; i++) {
                    const uint16_t *sp = samples + (size_t)i * ch;
                    uint8_t want[4];
                    if (colour == 0 || colour == 4) {
                        want[0] = want[1] = want[2] = png_to8(sp[0], depth);
                        want[3] = colour == 4 ? png_to8(sp[1], depth) : 255;
                    } else if (colour == 3) {
                        memcpy(want, palette + 3 * sp[0], 3);
                        want[3] = sp[0] < n_pal / 2 ? trns[sp[0]] : 255;
                    } else {
                        for (int c = 0; c < 3; c++) want[c] = png_to8(sp[c], depth);
                        want[3] = colour == 6 ? png_to8(sp[3], depth) : 255;
                    }
                    same = memcmp(img.data + 4 * (size_t)i, want, 4) == 0;
                }
                check(same, what, "pixels differ from what was written");
                fv_host_image_free(&img);
            }
            free(file);
        }
}

/* ---- JPEG ---- */

/* A blocky image (flat 8x8-aligned blocks of random colours) that JPEG keeps nearly exact. */
static void blocky(fv_image *img, int w, int h)
{
    fv_host_image_alloc(img, w, h);
    uint32_t colours[64];
    for (int i = 0; i < 64; i++) colours[i] = test_rand(&seed) | 0xff000000u;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            memcpy(img->data + (size_t)y * img->pitch + 4 * x, &colours[(y / 16 * 8 + x / 16) % 64],
                   4);
}

static int max_diff(const fv_image *a, const fv_image *b)
{
    if (a->width != b->width || a->height != b->height) return 999;
    int m = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width * 4; x++) {
            int d = abs(a->data[(size_t)y * a->pitch + x] - b->data[(size_t)y * b->pitch + x]);
            if (d > m) m = d;
        }
    return m;
}

static double mean_diff(const fv_image *a, const fv_image *b)
{
    if (a->width != b->width || a->height != b->height) return 999;
    double sum = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width * 4; x++)
            sum += abs(a->data[(size_t)y * a->pitch + x] - b->data[(size_t)y * b->pitch + x]);
    return sum / (4.0 * a->width * a->height);
}

static void test_jpeg(void)
{
    fv_image ref;
    blocky(&ref, 64, 48);
    size_t n = 0;
    uint8_t *jpeg = test_jpeg_encode(&ref, TJPF_RGBA, TJSAMP_444, 98, 0, &n);
    fv_image plain = {0};
    fv_status st = load_bytes("plain.jpg", jpeg, n, &plain);
    check(st == FV_OK && max_diff(&plain, &ref) <= 12, "JPEG baseline 4:4:4 by content",
          st ? fv_last_error() : NULL);

    size_t np = 0;
    uint8_t *prog = test_jpeg_encode(&ref, TJPF_RGBA, TJSAMP_420, 95, TJFLAG_PROGRESSIVE, &np);
    size_t nb = 0;
    uint8_t *base = test_jpeg_encode(&ref, TJPF_RGBA, TJSAMP_420, 95, 0, &nb);
    fv_image img, base_img;
    st = load_bytes("prog.jpg", prog, np, &img);
    fv_status sb = load_bytes("base.jpg", base, nb, &base_img);
    /* the same coefficients, sent in several scans: the same pixels as the baseline file */
    check(st == FV_OK && sb == FV_OK && max_diff(&img, &base_img) == 0 &&
              mean_diff(&img, &ref) < 6.0,
          "JPEG progressive 4:2:0 decodes as its baseline twin", st ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    if (sb == FV_OK) fv_host_image_free(&base_img);
    free(base);

    /* gray */
    size_t ng = 0;
    uint8_t *gray = test_jpeg_encode(&ref, TJPF_RGBA, TJSAMP_GRAY, 95, 0, &ng);
    st = load_bytes("gray.jpg", gray, ng, &img);
    int gray_ok = st == FV_OK;
    for (int i = 0; gray_ok && i < img.width * img.height; i++)
        gray_ok = img.data[4 * i] == img.data[4 * i + 1] &&
                  img.data[4 * i] == img.data[4 * i + 2] && img.data[4 * i + 3] == 255;
    check(gray_ok, "JPEG gray decodes to R = G = B, opaque", st ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    free(gray);

    /* every EXIF orientation, both byte orders: the plain decode, turned as EXIF says */
    for (int o = 1; o <= 8 && plain.data; o++)
        for (int le = 0; le < 2; le++) {
            size_t ne = 0;
            uint8_t *ex = test_jpeg_with_exif(jpeg, n, o, le, &ne);
            char what[64];
            snprintf(what, sizeof what, "JPEG EXIF orientation %d (%s)", o, le ? "II" : "MM");
            st = load_bytes("exif.jpg", ex, ne, &img);
            int ok = st == FV_OK;
            const int w = plain.width, h = plain.height;
            if (ok)
                ok = o >= 5 ? img.width == h && img.height == w : img.width == w && img.height == h;
            for (int y = 0; ok && y < h; y++)
                for (int x = 0; ok && x < w; x++) {
                    /* where stored pixel (x, y) is shown */
                    int dx = x, dy = y;
                    if (o == 2) dx = w - 1 - x;
                    if (o == 3) dx = w - 1 - x, dy = h - 1 - y;
                    if (o == 4) dy = h - 1 - y;
                    if (o == 5) dx = y, dy = x;
                    if (o == 6) dx = h - 1 - y, dy = x;
                    if (o == 7) dx = h - 1 - y, dy = w - 1 - x;
                    if (o == 8) dx = y, dy = w - 1 - x;
                    ok = memcmp(img.data + (size_t)dy * img.pitch + 4 * dx,
                                plain.data + (size_t)y * plain.pitch + 4 * x, 4) == 0;
                }
            check(ok, what, st ? fv_last_error() : NULL);
            if (st == FV_OK) fv_host_image_free(&img);
            free(ex);
        }

    /* CMYK (Adobe, inverted as Photoshop stores it): C'=R M'=G Y'=B K'=k gives R*k/255 ... */
    for (int k = 255; k >= 128; k -= 127) {
        fv_image cmyk;
        fv_host_image_alloc(&cmyk, ref.width, ref.height);
        for (int i = 0; i < ref.width * ref.height; i++) {
            memcpy(cmyk.data + 4 * i, ref.data + 4 * i, 3);
            cmyk.data[4 * i + 3] = (uint8_t)k;
        }
        size_t nc = 0;
        uint8_t *cj = test_jpeg_encode(&cmyk, TJPF_CMYK, TJSAMP_444, 98, 0, &nc);
        st = load_bytes("cmyk.jpg", cj, nc, &img);
        fv_image want;
        fv_host_image_alloc(&want, ref.width, ref.height);
        for (int i = 0; i < ref.width * ref.height * 4; i++)
            want.data[i] = i % 4 == 3 ? 255 : (uint8_t)((ref.data[i] * k + 127) / 255);
        char what[64];
        snprintf(what, sizeof what, "CMYK JPEG converted to RGB (K' = %d)", k);
        check(st == FV_OK && max_diff(&img, &want) <= 12, what, st ? fv_last_error() : NULL);
        if (st == FV_OK) fv_host_image_free(&img);
        fv_host_image_free(&want);
        fv_host_image_free(&cmyk);
        free(cj);
    }
    fv_host_image_free(&plain);
    fv_host_image_free(&ref);
    free(jpeg);
    free(prog);
}

/* ---- JPEG written through libjpeg: any sampling factors, scan scripts, arithmetic coding ---- */

/* From img's RGBA (3 components, YCbCr) or its red channel (1, gray); h/v: sampling factors per
 * component; scans: a scan script (NULL: sequential). */
static uint8_t *jpeg_lib_make(const fv_image *img, int comps, const int *h, const int *v,
                              const jpeg_scan_info *scans, int n_scans, int arith, size_t *size)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr e;
    c.err = jpeg_std_error(&e);
    jpeg_create_compress(&c);
    unsigned char *buf = NULL;
    unsigned long len = 0;
    jpeg_mem_dest(&c, &buf, &len);
    c.image_width = (JDIMENSION)img->width;
    c.image_height = (JDIMENSION)img->height;
    c.input_components = comps == 1 ? 1 : 4;
    c.in_color_space = comps == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBA;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 100, TRUE);
    for (int i = 0; i < c.num_components; i++) {
        c.comp_info[i].h_samp_factor = h[i];
        c.comp_info[i].v_samp_factor = v[i];
    }
    if (scans) {
        c.scan_info = scans;
        c.num_scans = n_scans;
    }
    c.arith_code = arith ? TRUE : FALSE;
    jpeg_start_compress(&c, TRUE);
    uint8_t *row = malloc((size_t)img->width * 4);
    while (c.next_scanline < c.image_height) {
        const uint8_t *src = img->data + (size_t)c.next_scanline * img->pitch;
        for (int x = 0; x < img->width; x++)
            if (comps == 1)
                row[x] = src[4 * x];
            else
                memcpy(row + 4 * x, src + 4 * x, 4);
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    uint8_t *copy = malloc(len);
    memcpy(copy, buf, len);
    free(buf);
    *size = len;
    return copy;
}

/* TurboJPEG's own decoder (the one filterview used before): an oracle, and whether it declines. */
static int tj_decode(const uint8_t *data, size_t n, fv_image *out)
{
    tjhandle tj = tjInitDecompress();
    int w = 0, h = 0, ss = 0, cs = 0;
    int ok =
        tjDecompressHeader3(tj, data, (unsigned long)n, &w, &h, &ss, &cs) == 0 && w > 0 && h > 0;
    if (ok) {
        fv_host_image_alloc(out, w, h);
        ok = tjDecompress2(tj, data, (unsigned long)n, out->data, w, (int)out->pitch, h, TJPF_RGBA,
                           0) == 0;
        if (!ok) fv_host_image_free(out);
    }
    tjDestroy(tj);
    return ok;
}

/* Offset of the SOF0 marker's 0xc0 byte; 0 when none. */
static size_t jpeg_sof_at(const uint8_t *d, size_t n)
{
    for (size_t i = 2; i + 9 < n; i++)
        if (d[i] == 0xff && d[i + 1] == 0xc0) return i + 1;
    return 0;
}

/* A gray progressive script that ends with every coefficient exact: the DC at half precision and
 * its refinement, each AC coefficient alone, the first `refined` of them at half precision and
 * then refined: 65 + refined scans. */
static int many_scans(jpeg_scan_info *s, int refined)
{
    int n = 0;
    s[n++] = (jpeg_scan_info){1, {0}, 0, 0, 0, 1};
    s[n++] = (jpeg_scan_info){1, {0}, 0, 0, 1, 0};
    for (int k = 1; k <= 63; k++) s[n++] = (jpeg_scan_info){1, {0}, k, k, 0, k <= refined ? 1 : 0};
    for (int k = 1; k <= refined; k++) s[n++] = (jpeg_scan_info){1, {0}, k, k, 1, 0};
    return n;
}

static void expect_refused(const char *what, const char *file_name, const void *data, size_t n,
                           const char *want_in_message);

static void test_jpeg_lib(void)
{
    /* sampling factors TurboJPEG has no name for. Gray content (Cb = Cr = 128 everywhere) with the
     * luma at full size: the same luma blocks as the 4:4:4 twin, so exactly its pixels as
     * TurboJPEG decodes it; colour content: flat 16x16 blocks come back within rounding */
    static const struct {
        const char *name;
        int h[3], v[3];
    } samp[] = {{"2x2,1x2,2x1", {2, 1, 2}, {2, 2, 1}},
                {"2x2,2x2,1x1", {2, 2, 1}, {2, 2, 1}},
                {"3x1,1x1,1x1", {3, 1, 1}, {1, 1, 1}},
                {"4x2,1x1,1x1", {4, 1, 1}, {2, 1, 1}}};
    static const int one[3] = {1, 1, 1};
    fv_image gray, colour;
    blocky(&gray, 37, 29);
    for (int i = 0; i < 37 * 29; i++)
        gray.data[4 * i + 1] = gray.data[4 * i + 2] = gray.data[4 * i];
    blocky(&colour, 64, 48);
    size_t n444 = 0;
    uint8_t *twin = jpeg_lib_make(&gray, 3, one, one, NULL, 0, 0, &n444);
    fv_image want;
    int have_want = tj_decode(twin, n444, &want);
    for (size_t k = 0; k < sizeof samp / sizeof samp[0]; k++)
        for (int prog = 0; prog < 2; prog++) {
            size_t n = 0;
            uint8_t *f = jpeg_lib_make(&gray, 3, samp[k].h, samp[k].v, NULL, 0, 0, &n);
            if (prog) {
                free(f);
                /* jpeg_simple_progression's script through a compressor of the same factors */
                struct jpeg_compress_struct c;
                struct jpeg_error_mgr e;
                c.err = jpeg_std_error(&e);
                jpeg_create_compress(&c);
                c.num_components = 3;
                c.input_components = 3;
                c.in_color_space = JCS_RGB;
                jpeg_set_defaults(&c);
                jpeg_simple_progression(&c);
                jpeg_scan_info script[16];
                int ns = c.num_scans < 16 ? c.num_scans : 16;
                memcpy(script, c.scan_info, (size_t)ns * sizeof *script);
                jpeg_destroy_compress(&c);
                f = jpeg_lib_make(&gray, 3, samp[k].h, samp[k].v, script, ns, 0, &n);
            }
            fv_image tj_img, img;
            const int tj_declines = !tj_decode(f, n, &tj_img);
            if (!tj_declines) fv_host_image_free(&tj_img);
            fv_status st = load_bytes("sampling.jpg", f, n, &img);
            char what[128];
            snprintf(what, sizeof what,
                     "JPEG sampled %s%s (TurboJPEG declines it) decodes as its 4:4:4 twin",
                     samp[k].name, prog ? ", progressive" : "");
            check(tj_declines && st == FV_OK && have_want && max_diff(&img, &want) == 0, what,
                  st            ? fv_last_error()
                  : tj_declines ? "pixels differ"
                                : "TurboJPEG decodes it");
            if (st == FV_OK) fv_host_image_free(&img);
            free(f);
            f = jpeg_lib_make(&colour, 3, samp[k].h, samp[k].v, NULL, 0, 0, &n);
            st = load_bytes("sampling_colour.jpg", f, n, &img);
            int worst = st == FV_OK ? 0 : 999;
            /* inside each flat block, a pixel from its edges: upsampling blends across them */
            for (int y = 0; st == FV_OK && y < colour.height; y++)
                for (int x = 0; x < colour.width; x++) {
                    if (x % 16 < 3 || x % 16 > 12 || y % 16 < 3 || y % 16 > 12) continue;
                    for (int c = 0; c < 3; c++) {
                        int d = abs(img.data[(size_t)y * img.pitch + 4 * x + c] -
                                    colour.data[(size_t)y * colour.pitch + 4 * x + c]);
                        if (d > worst) worst = d;
                    }
                }
            snprintf(what, sizeof what, "JPEG sampled %s: colour blocks within 3", samp[k].name);
            check(worst <= 3, what, st ? fv_last_error() : NULL);
            if (st == FV_OK) fv_host_image_free(&img);
            free(f);
        }

    /* arithmetic coding: the same coefficients as the Huffman twin, so the same pixels */
    size_t na = 0;
    uint8_t *arith = jpeg_lib_make(&gray, 3, one, one, NULL, 0, 1, &na);
    fv_image img;
    fv_status st = load_bytes("arith.jpg", arith, na, &img);
    check(st == FV_OK && have_want && max_diff(&img, &want) == 0,
          "arithmetic-coded JPEG decodes as its Huffman twin", st ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    free(arith);

    /* valid files of kinds not decoded here are called unsupported, by name, not corrupt */
    size_t at = jpeg_sof_at(twin, n444);
    static const struct {
        int offset;
        uint8_t value;
        const char *name, *want;
    } kinds[] = {{0, 0xc3, "lossless", "lossless JPEG is not supported"},
                 {0, 0xc5, "hierarchical", "hierarchical JPEG is not supported"},
                 {3, 12, "12-bit", "12-bit JPEG is not supported"}};
    for (size_t k = 0; at && k < sizeof kinds / sizeof kinds[0]; k++) {
        uint8_t *f = malloc(n444);
        memcpy(f, twin, n444);
        f[at + kinds[k].offset] = kinds[k].value;
        char what[96];
        snprintf(what, sizeof what, "%s JPEG is called unsupported, not corrupt", kinds[k].name);
        expect_refused(what, "kind.jpg", f, n444, kinds[k].want);
        check(!strstr(fv_last_error(), "corrupt"), what, fv_last_error());
        free(f);
    }

    /* scans: a file's work grows with them, so past 100 it is refused before decoding; at 100
     * it decodes, as its baseline twin */
    fv_image small;
    blocky(&small, 8, 8);
    test_fill_random(&small, &seed);
    jpeg_scan_info script[128];
    static const int g[1] = {1};
    size_t nb = 0, n100 = 0, n127 = 0;
    uint8_t *base = jpeg_lib_make(&small, 1, g, g, NULL, 0, 0, &nb);
    uint8_t *s100 = jpeg_lib_make(&small, 1, g, g, script, many_scans(script, 35), 0, &n100);
    uint8_t *s127 = jpeg_lib_make(&small, 1, g, g, script, many_scans(script, 62), 0, &n127);
    fv_image base_img;
    int have_base = tj_decode(base, nb, &base_img);
    st = load_bytes("scans100.jpg", s100, n100, &img);
    check(st == FV_OK && have_base && max_diff(&img, &base_img) == 0,
          "progressive JPEG of 100 scans decodes as its baseline twin",
          st ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    expect_refused(
        "progressive JPEG of 127 scans", "scans127.jpg", s127, n127,
        "scans127.jpg': progressive JPEG with 127 scans, more than the 100 filterview accepts");
    at = 0;
    for (size_t i = 2; i + 9 < n127 && !at; i++)
        if (s127[i] == 0xff && s127[i + 1] == 0xc2) at = i + 1;
    if (at) {
        s127[at + 4] = s127[at + 6] = 0x40; /* 16384x16384 */
        s127[at + 5] = s127[at + 7] = 0;
    }
    expect_refused("16384x16384 progressive JPEG of 127 scans (a bomb by scans)", "scan_bomb.jpg",
                   s127, n127, "progressive JPEG with 127 scans");
    if (have_base) fv_host_image_free(&base_img);
    if (have_want) fv_host_image_free(&want);
    free(base);
    free(s100);
    free(s127);
    free(twin);
    fv_host_image_free(&small);
    fv_host_image_free(&gray);
    fv_host_image_free(&colour);
}

/* ---- PNM, BMP ---- */

/* ---- which JPEGs the GPU codec takes (codec_jpeg_inspect: the header alone) ---- */

static void expect_fit(const char *what, const uint8_t *f, size_t n, codec_jpeg_gpu_fit want,
                       const char *why_has)
{
    codec_jpeg_header h;
    fv_status st = codec_jpeg_inspect("fit.jpg", f, n, &h, NULL);
    static const char *const fit_name[] = {"CPU only", "hybrid", "GPU (hardware too)"};
    char detail[160];
    snprintf(detail, sizeof detail, "status %d, %s (%s)", (int)st, fit_name[h.fit],
             h.why ? h.why : "-");
    check(st == FV_OK && h.fit == want && (!why_has || (h.why && strstr(h.why, why_has))), what,
          detail);
}

static void test_jpeg_gpu_fit(void)
{
    fv_image img;
    blocky(&img, 40, 24);
    static const struct {
        const char *what;
        int pf, samp, flags;
        codec_jpeg_gpu_fit fit;
        const char *why;
    } tj[] = {
        {"baseline 4:2:0: the hardware decoder's", TJPF_RGBA, TJSAMP_420, 0, CODEC_JPEG_GPU_ANY,
         NULL},
        {"baseline 4:4:4", TJPF_RGBA, TJSAMP_444, 0, CODEC_JPEG_GPU_ANY, NULL},
        {"baseline 4:2:2", TJPF_RGBA, TJSAMP_422, 0, CODEC_JPEG_GPU_ANY, NULL},
        {"baseline 4:4:0", TJPF_RGBA, TJSAMP_440, 0, CODEC_JPEG_GPU_ANY, NULL},
        {"baseline gray", TJPF_RGBA, TJSAMP_GRAY, 0, CODEC_JPEG_GPU_ANY, NULL},
        {"baseline 4:1:1: hybrid, not the hardware decoder", TJPF_RGBA, TJSAMP_411, 0,
         CODEC_JPEG_GPU_HYBRID, "4:1:1"},
        {"progressive 4:2:0: hybrid, not the hardware decoder", TJPF_RGBA, TJSAMP_420,
         TJFLAG_PROGRESSIVE, CODEC_JPEG_GPU_HYBRID, "progressive"},
        {"CMYK: the CPU codec's", TJPF_CMYK, TJSAMP_444, 0, CODEC_JPEG_CPU_ONLY, "CMYK"},
    };
    for (size_t k = 0; k < sizeof tj / sizeof tj[0]; k++) {
        size_t n = 0;
        uint8_t *f = test_jpeg_encode(&img, tj[k].pf, tj[k].samp, 90, tj[k].flags, &n);
        char what[128];
        snprintf(what, sizeof what, "GPU codec fit, %s", tj[k].what);
        expect_fit(what, f, n, tj[k].fit, tj[k].why);
        free(f);
    }
    static const int one[3] = {1, 1, 1}, odd_h[3] = {2, 1, 2}, odd_v[3] = {2, 2, 1};
    size_t n = 0;
    uint8_t *f = jpeg_lib_make(&img, 3, one, one, NULL, 0, 1, &n);
    expect_fit("GPU codec fit, arithmetic coding: the CPU codec's", f, n, CODEC_JPEG_CPU_ONLY,
               "arithmetic");
    free(f);
    f = jpeg_lib_make(&img, 3, odd_h, odd_v, NULL, 0, 0, &n);
    expect_fit("GPU codec fit, sampling 2x2,1x2,2x1: the CPU codec's", f, n, CODEC_JPEG_CPU_ONLY,
               "sampling");
    free(f);

    /* the size, the orientation and the CPU reader's limits, with its own message */
    uint8_t *base = test_jpeg_encode(&img, TJPF_RGBA, TJSAMP_420, 90, 0, &n);
    size_t ne = 0;
    uint8_t *turned = test_jpeg_with_exif(base, n, 6, 1, &ne);
    codec_jpeg_header h;
    check(codec_jpeg_inspect("fit.jpg", turned, ne, &h, NULL) == FV_OK && h.width == 40 &&
              h.height == 24 && h.orientation == 6 && h.components == 3,
          "GPU codec fit: the stored size, 3 components and EXIF orientation 6", NULL);
    /* --codec auto's pixel count: the frame's size from the file's head alone (up to its frame
     * header), none from a head cut before it or from bytes that are not a JPEG */
    int fw = 0, fh = 0;
    const size_t head = jpeg_sof_at(turned, ne) + 18; /* its marker, then 17 bytes for RGB */
    check(codec_jpeg_frame_size(turned, head, &fw, &fh) && fw == 40 && fh == 24,
          "the frame size from the head up to the frame header", NULL);
    check(!codec_jpeg_frame_size(turned, head - 8, &fw, &fh),
          "no frame size from a head cut inside the frame header", NULL);
    check(!codec_jpeg_frame_size((const uint8_t *)"not a JPEG at all", 17, &fw, &fh),
          "no frame size from bytes that are not a JPEG", NULL);
    free(turned);
    const size_t sof = jpeg_sof_at(base, n);
    base[sof + 4] = base[sof + 6] = 0xea; /* 60000 x 60000 claimed by a 1 KB file */
    base[sof + 5] = base[sof + 7] = 0x60;
    fv_image cpu_img;
    char cpu_message[512] = "";
    if (load_bytes("fit.jpg", base, n, &cpu_img) != FV_OK)
        snprintf(cpu_message, sizeof cpu_message, "%s", fv_last_error());
    else
        fv_host_image_free(&cpu_img);
    const fv_status st = codec_jpeg_inspect("fit.jpg", base, n, &h, NULL);
    /* the CPU load names the file by its path here: the reasons after the names must agree */
    const char *gpu_reason = st != FV_OK ? strstr(fv_last_error(), "': ") : NULL;
    const char *cpu_reason = strstr(cpu_message, "': ");
    check(gpu_reason && cpu_reason && strcmp(gpu_reason, cpu_reason) == 0,
          "GPU codec fit: a forged size refused before decoding, as the CPU reader says",
          st != FV_OK ? fv_last_error() : "accepted");
    free(base);
    fv_host_image_free(&img);
}

static void test_pnm_bmp(void)
{
    const int w = 7, h = 5;
    uint16_t v[7 * 5 * 3];
    for (int i = 0; i < w * h * 3; i++) v[i] = (uint16_t)test_rand(&seed);
    static const struct {
        int kind, maxval;
    } kinds[] = {{6, 255}, {6, 65535}, {6, 1000}, {5, 255}, {5, 65535}, {3, 255}, {2, 4095}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const int kind = kinds[k].kind, maxval = kinds[k].maxval,
                  ch = kind == 3 || kind == 6 ? 3 : 1;
        uint8_t file[4096];
        size_t n = (size_t)snprintf((char *)file, sizeof file, "P%d\n# a comment\n%d %d\n%d\n",
                                    kind, w, h, maxval);
        for (int i = 0; i < w * h * ch; i++) {
            unsigned s = v[i] % (unsigned)(maxval + 1);
            if (kind >= 5 && maxval > 255) {
                file[n++] = (uint8_t)(s >> 8);
                file[n++] = (uint8_t)s;
            } else if (kind >= 5) {
                file[n++] = (uint8_t)s;
            } else {
                n += (size_t)snprintf((char *)file + n, sizeof file - n, "%u%c", s,
                                      i % 9 == 8 ? '\n' : ' ');
            }
        }
        fv_image img;
        char what[64];
        snprintf(what, sizeof what, "PNM P%d maxval %d by content", kind, maxval);
        fv_status st = load_bytes("kind.pnm", file, n, &img);
        int ok = st == FV_OK && img.width == w && img.height == h;
        for (int i = 0; ok && i < w * h; i++)
            for (int c = 0; c < 4; c++) {
                unsigned s = v[i * ch + (ch == 3 ? (c < 3 ? c : 0) : 0)] % (unsigned)(maxval + 1);
                unsigned want = c == 3 ? 255 : (s * 255 + (unsigned)maxval / 2) / (unsigned)maxval;
                ok = ok && img.data[4 * i + c] == want;
            }
        check(ok, what, st ? fv_last_error() : NULL);
        if (st == FV_OK) fv_host_image_free(&img);
    }
    /* BMP (stb_image_write: 32-bit, V4 header, bit fields) */
    fv_image ref;
    fv_host_image_alloc(&ref, 9, 6);
    test_fill_random(&ref, &seed);
    for (int i = 0; i < 9 * 6; i++) ref.data[4 * i + 3] = 255;
    char p[PATH_MAX];
    path_of(p, "kind.bmp");
    stbi_write_bmp(p, 9, 6, 4, ref.data);
    fv_image img;
    fv_status st = image_load(p, &img);
    check(st == FV_OK && max_diff(&img, &ref) == 0, "BMP by content", st ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    fv_host_image_free(&ref);
}

/* ---- bad files ---- */

/* Every truncation of `file` at offsets spread over [0, limit) must fail cleanly: every byte of
 * the first 64 and of a small file (up to 512 bytes), about a hundred cuts of a larger one. */
static void truncations(const char *what, const uint8_t *file, size_t limit)
{
    int bad = 0, total = 0;
    char first[600] = "";
    double worst = 0;
    for (size_t cut = 1; cut < limit; cut += cut < 64 || limit <= 512 ? 1 : 1 + limit / 97) {
        fv_image img;
        double t0 = now_s();
        fv_status st = load_bytes("cut.bin", file, cut, &img);
        double t = now_s() - t0;
        if (t > worst) worst = t;
        total++;
        if (st == FV_OK) {
            fv_host_image_free(&img);
            if (!bad++)
                snprintf(first, sizeof first, "accepted when cut at %zu of %zu", cut, limit);
        } else if (!message_is_clean(fv_last_error())) {
            if (!bad++) snprintf(first, sizeof first, "unclean message at %zu", cut);
        }
    }
    char name[128];
    snprintf(name, sizeof name, "%s: %d truncations refused with one clean line", what, total);
    check(bad == 0, name, first);
    snprintf(name, sizeof name, "%s: truncations refused quickly", what);
    snprintf(first, sizeof first, "slowest %.2f s", worst);
    check(worst < 2.0, name, first);
}

static void expect_refused(const char *what, const char *file_name, const void *data, size_t n,
                           const char *want_in_message)
{
    fv_image img;
    double t0 = now_s();
    fv_status st = load_bytes(file_name, data, n, &img);
    double t = now_s() - t0;
    if (st == FV_OK) fv_host_image_free(&img);
    const char *m = fv_last_error();
    int ok = st != FV_OK && message_is_clean(m) && strstr(m, want_in_message) && t < 2.0;
    check(ok, what, st == FV_OK ? "accepted" : m);
}

static void test_bad_files(void)
{
    /* a photo-like PNG (random, so every truncation lands in data), JPEGs, PNM, BMP */
    png_spec s;
    uint16_t samples[40 * 30 * 4];
    for (int i = 0; i < 40 * 30 * 4; i++) samples[i] = (uint16_t)(test_rand(&seed) & 0xff);
    s = (png_spec){40, 30, 6, 8, 0, samples, NULL, 0, NULL, 0};
    size_t n = 0;
    uint8_t *png = png_make(&s, &n);
    /* every cut, up to the last byte of IEND: libpng reads to IEND, and so must we */
    truncations("PNG", png, n);
    s.interlace = 1;
    size_t ni = 0;
    uint8_t *png_i = png_make(&s, &ni);
    truncations("interlaced PNG", png_i, ni);
    /* the three cuts and the checksum past the pixels, each by name */
    expect_refused("PNG cut inside the last IDAT's CRC", "cut_crc.png", png, n - 14,
                   "corrupt or truncated (PNG: ");
    expect_refused("PNG cut inside IEND", "cut_iend.png", png, n - 5,
                   "corrupt or truncated (PNG: ");
    expect_refused("PNG without IEND", "no_iend.png", png, n - 12,
                   "corrupt or truncated (PNG: the file ends before IEND)");
    /* bit flips after IHDR, the checksums of the last IDAT and of IEND included: the CRC (or
     * zlib's Adler-32) catches them */
    uint8_t *flip = malloc(n);
    memcpy(flip, png, n);
    flip[n - 13] ^= 0x10;
    expect_refused("PNG with a bad CRC on its IDAT", "bad_crc.png", flip, n,
                   "corrupt or truncated (PNG: invalid chunk checksum)");
    int flips_ok = 1;
    char flip_detail[400] = "";
    for (int k = 0; k < 50; k++) {
        memcpy(flip, png, n);
        size_t at = 41 + test_rand(&seed) % (n - 41);
        const int bit = (int)(test_rand(&seed) % 8);
        flip[at] ^= (uint8_t)(1u << bit);
        fv_image img;
        fv_status st = load_bytes("flip.png", flip, n, &img);
        if (st == FV_OK) fv_host_image_free(&img);
        const int ok = st != FV_OK && message_is_clean(fv_last_error());
        if (!ok && flips_ok)
            snprintf(flip_detail, sizeof flip_detail, "byte %zu of %zu, bit %d: %s", at, n, bit,
                     st == FV_OK ? "accepted" : fv_last_error());
        flips_ok &= ok;
    }
    check(flips_ok, "PNG with a flipped bit in its data is refused cleanly", flip_detail);

    fv_image ref;
    blocky(&ref, 96, 64);
    test_fill_random(&ref, &seed);
    size_t nj = 0, njp = 0;
    uint8_t *jpeg = test_jpeg_encode(&ref, TJPF_RGBA, TJSAMP_420, 90, 0, &nj);
    uint8_t *jpeg_p = test_jpeg_encode(&ref, TJPF_RGBA, TJSAMP_420, 90, TJFLAG_PROGRESSIVE, &njp);
    truncations("JPEG", jpeg, nj);
    truncations("progressive JPEG", jpeg_p, njp);
    /* mutated JPEGs: decoded or refused cleanly, never a crash or a hang */
    uint8_t *mut = malloc(nj);
    int mut_ok = 1;
    double t0 = now_s();
    for (int k = 0; k < 300; k++) {
        memcpy(mut, jpeg, nj);
        for (int m = 0; m < 4; m++)
            mut[2 + test_rand(&seed) % (nj - 2)] = (uint8_t)test_rand(&seed);
        fv_image img;
        fv_status st = load_bytes("mut.jpg", mut, nj, &img);
        if (st == FV_OK)
            fv_host_image_free(&img);
        else
            mut_ok &= message_is_clean(fv_last_error());
    }
    check(mut_ok && now_s() - t0 < 30, "300 mutated JPEGs decoded or refused with a clean line",
          NULL);

    uint8_t ppm[64 + 20 * 10 * 6];
    size_t nh = (size_t)snprintf((char *)ppm, 64, "P6\n20 10\n65535\n");
    for (size_t i = 0; i < 20 * 10 * 6; i++) ppm[nh + i] = (uint8_t)test_rand(&seed);
    truncations("16-bit PPM", ppm, nh + 20 * 10 * 6);
    char p[PATH_MAX];
    path_of(p, "t.bmp");
    stbi_write_bmp(p, ref.width, ref.height, 4, ref.data);
    size_t nb = 0;
    uint8_t *bmp = read_bytes(p, &nb);
    truncations("BMP", bmp, nb);

    /* lying headers: a small file claiming a big image is refused before any allocation */
    uint8_t bomb[4096];
    memcpy(bomb, png, n < sizeof bomb ? n : sizeof bomb);
    be32(bomb + 16, 16000);
    be32(bomb + 20, 16000);
    be32(bomb + 29, (uint32_t)crc32(0, bomb + 12, 17));
    expect_refused("PNG claiming 16000x16000 in a few KB", "bomb.png", bomb, n,
                   "more than a file of");
    be32(bomb + 16, 100000);
    expect_refused("PNG claiming 100000 wide", "wide.png", bomb, n,
                   "PNG header says 100000x16000: too large");
    be32(bomb + 16, 0);
    expect_refused("PNG claiming 0 wide", "zero.png", bomb, n, "at least one pixel");
    uint8_t *jb = malloc(nj);
    memcpy(jb, jpeg, nj);
    for (size_t i = 2; i + 9 < nj; i++)
        if (jb[i] == 0xff && jb[i + 1] == 0xc0) {
            jb[i + 5] = 16000 >> 8;
            jb[i + 6] = 16000 & 0xff;
            jb[i + 7] = 16000 >> 8;
            jb[i + 8] = 16000 & 0xff;
            break;
        }
    expect_refused("JPEG claiming 16000x16000 in a few KB", "bomb.jpg", jb, nj,
                   "JPEG header says 16000x16000, more than a file of");
    const char *pnm_bomb = "P6\n15000 15000\n255\n\x01\x02\x03";
    expect_refused("PPM claiming 15000x15000", "bomb.ppm", pnm_bomb, strlen(pnm_bomb),
                   "more than a file of");
    const char *pnm_short = "P5\n100 100\n255\nabc";
    expect_refused("PGM with too few bytes", "short.pgm", pnm_short, strlen(pnm_short),
                   "corrupt or truncated");
    uint8_t bmp_big[64];
    memcpy(bmp_big, bmp, 64);
    bmp_big[18] = 0xa0;
    bmp_big[19] = 0x86;
    bmp_big[20] = 0x01;
    bmp_big[21] = 0; /* 100000 wide */
    /* the size message names the file once (it was "'x.bmp': 'x.bmp': ... is too large") */
    fv_image img;
    fv_status st = load_bytes("x.bmp", bmp_big, 64, &img);
    const char *m = fv_last_error();
    const char *first = strstr(m, "x.bmp");
    check(st != FV_OK && first && !strstr(first + 1, "x.bmp") &&
              strstr(m, "BMP header says 100000x64: too large"),
          "BMP size error names the file once", m);
    /* a PNG whose first chunk is no header: its bytes 16..23 are no size (it said 2023489808x...) */
    static const uint8_t idat_first[45] = {0x89, 'P',  'N',  'G',  0x0d, 0x0a, 0x1a, 0x0a,
                                           0,    0,    0,    13,   'I',  'D',  'A',  'T',
                                           0x78, 0x9c, 0x63, 0x60, 0x18, 0x05};
    expect_refused("a PNG that starts with IDAT is corrupt, no size invented", "idat.png",
                   idat_first, sizeof idat_first, "the first chunk is IDAT, not a header");
    /* a JPEG frame of 65535x65535: our limit speaks, not libjpeg's 65500 */
    static const uint8_t jpeg_huge[] = {0xff, 0xd8, 0xff, 0xc0, 0, 17,   8,   0xff,
                                        0xff, 0xff, 0xff, 3,    1, 0x22, 0,   2,
                                        0x11, 1,    3,    0x11, 1, 0xff, 0xd9};
    expect_refused("a JPEG of 65535x65535 meets filterview's limit", "huge.jpg", jpeg_huge,
                   sizeof jpeg_huge, "JPEG header says 65535x65535: too large for filterview");
    const char *hdr = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 10 +X 10\n";
    expect_refused("Radiance HDR (dropped: stb's reader hangs on truncated files)", "t.hdr", hdr,
                   strlen(hdr), "does not read");
    expect_refused("text", "notes.txt", "hello\n", 6, "not an image filterview can read");

    /* control characters: from the name, and from a chunk type, never reach the message raw */
    char evil[PATH_MAX];
    path_of(evil, "evil\x1b[2J\x07name\x9b.png");
    write_bytes(evil, "garbage", 7);
    st = image_load(evil, &img);
    m = fv_last_error();
    check(st != FV_OK && message_is_clean(m) && strstr(m, "evil\\x1b[2J\\x07name\\x9b.png"),
          "control characters in a file name are escaped", m);
    uint8_t odd[256];
    memcpy(odd, png, 33);
    size_t no = 33 + chunk(odd + 33, "\x1b[2J", (const uint8_t *)"\x1b]0;x\x07", 6);
    no += chunk(odd + no, "IEND", NULL, 0);
    expect_refused("a chunk type of control characters", "odd.png", odd, no, "PNG");

    fv_host_image_free(&ref);
    free(png);
    free(png_i);
    free(flip);
    free(jpeg);
    free(jpeg_p);
    free(mut);
    free(bmp);
    free(jb);
}

/* ---- BMP by hand (viewer/imageio/bmp.c) ---- */

static void le16_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void le32_put(uint8_t *p, uint32_t v)
{
    le16_put(p, v);
    le16_put(p + 2, v >> 16);
}

typedef struct bmp_spec {
    int header; /* info header bytes: 12, 16, 40, 52, 56, 64, 108 or 124 */
    int w, h, bpp, top_down;
    uint32_t compression, colours_used;
    const uint8_t *palette; /* RGB triples, n_palette of them */
    int n_palette;
    uint32_t masks[4];   /* R, G, B, A: in a header of 52 bytes or more, else n_after */
    int n_after;         /* masks written after a 40-byte header */
    const uint8_t *rows; /* top row first, (w * bpp + 7) / 8 bytes a row, no padding */
} bmp_spec;

static uint8_t *bmp_make(const bmp_spec *s, size_t *size)
{
    const size_t packed = ((size_t)s->w * s->bpp + 7) / 8,
                 row = ((size_t)s->w * s->bpp + 31) / 32 * 4;
    const size_t entry = s->header == 12 ? 3 : 4;
    const size_t off =
        14 + (size_t)s->header + 4 * (size_t)s->n_after + entry * (size_t)s->n_palette;
    const size_t n = off + row * (size_t)s->h;
    uint8_t *f = calloc(n, 1), *info = f + 14;
    f[0] = 'B';
    f[1] = 'M';
    le32_put(f + 2, (uint32_t)n);
    le32_put(f + 10, (uint32_t)off);
    le32_put(info, (uint32_t)s->header);
    if (s->header == 12) {
        le16_put(info + 4, (uint32_t)s->w);
        le16_put(info + 6, (uint32_t)s->h);
        le16_put(info + 8, 1);
        le16_put(info + 10, (uint32_t)s->bpp);
    } else {
        le32_put(info + 4, (uint32_t)s->w);
        le32_put(info + 8, s->top_down ? (uint32_t)-s->h : (uint32_t)s->h);
        le16_put(info + 12, 1);
        le16_put(info + 14, (uint32_t)s->bpp);
    }
    if (s->header >= 40) {
        le32_put(info + 16, s->compression);
        le32_put(info + 20, (uint32_t)(row * (size_t)s->h));
        le32_put(info + 32, s->colours_used);
    }
    for (int k = 0; s->header >= 52 && k < (s->header == 52 ? 3 : 4); k++)
        le32_put(info + 40 + 4 * k, s->masks[k]);
    if (s->header >= 108) le32_put(info + 56, 0x73524742); /* LCS_sRGB */
    for (int k = 0; k < s->n_after; k++) le32_put(info + s->header + 4 * k, s->masks[k]);
    uint8_t *pal = info + s->header + 4 * s->n_after;
    for (int i = 0; i < s->n_palette; i++) {
        pal[entry * i] = s->palette[3 * i + 2];
        pal[entry * i + 1] = s->palette[3 * i + 1];
        pal[entry * i + 2] = s->palette[3 * i];
    }
    for (int y = 0; y < s->h; y++)
        memcpy(f + off + row * (size_t)(s->top_down ? y : s->h - 1 - y), s->rows + packed * y,
               packed);
    *size = n;
    return f;
}

/* The file of `s` decodes to `want` (RGBA, top row first). */
static void bmp_expect(const char *what, const bmp_spec *s, const uint8_t *want)
{
    size_t n = 0;
    uint8_t *f = bmp_make(s, &n);
    fv_image img;
    fv_status st = load_bytes("kind.bmp", f, n, &img);
    int differ = 0;
    const int ok = st == FV_OK && img.width == s->w && img.height == s->h;
    for (int y = 0; ok && y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            differ += memcmp(img.data + (size_t)y * img.pitch + 4 * (size_t)x,
                             want + 4 * ((size_t)y * s->w + x), 4) != 0;
    char detail[96];
    snprintf(detail, sizeof detail, "%d of %d pixels differ", differ, s->w * s->h);
    check(ok && !differ, what, st != FV_OK ? fv_last_error() : detail);
    if (st == FV_OK) fv_host_image_free(&img);
    free(f);
}

/* A mask's field scaled to 8 bits: n < 8 bits repeated (abcde -> abcdeabc), wider ones cut. */
static uint8_t bmp_field(uint32_t v, uint32_t mask)
{
    if (!mask) return 255;
    int low = 0, bits = 0;
    while (!(mask >> low & 1)) low++;
    while (low + bits < 32 && (mask >> (low + bits) & 1)) bits++;
    const uint32_t f = (v & mask) >> low;
    if (bits >= 8) return (uint8_t)(f >> (bits - 8));
    uint32_t r = 0;
    int filled = 0;
    for (; filled < 8; filled += bits) r = r << bits | f;
    return (uint8_t)(r >> (filled - 8));
}

static void test_bmp(void)
{
    fv_image img;
    /* OS/2 1.x (12-byte header, RGB triples), worked by hand: 2 colours, 5x2; 16 colours, 3x2 */
    static const uint8_t pal2[] = {200, 10, 20, 5, 250, 60};
    static const uint8_t rows2[] = {0xb0, 0x48}; /* 1 0 1 1 0 / 0 1 0 0 1 */
    static const uint8_t want2[] = {5,   250, 60,  255, 200, 10,  20,  255, 5,   250,
                                    60,  255, 5,   250, 60,  255, 200, 10,  20,  255,
                                    200, 10,  20,  255, 5,   250, 60,  255, 200, 10,
                                    20,  255, 200, 10,  20,  255, 5,   250, 60,  255};
    bmp_spec os2 = {
        .header = 12, .w = 5, .h = 2, .bpp = 1, .palette = pal2, .n_palette = 2, .rows = rows2};
    bmp_expect("BMP OS/2 1.x, 2 colours, by hand", &os2, want2);
    uint8_t pal16[16 * 3];
    for (int k = 0; k < 16; k++)
        pal16[3 * k] = (uint8_t)(16 * k), pal16[3 * k + 1] = (uint8_t)(255 - 16 * k),
                  pal16[3 * k + 2] = (uint8_t)k;
    static const uint8_t rows16[] = {0x3f, 0xa0, 0x01, 0x20}; /* 3 15 10 / 0 1 2 */
    static const uint8_t want16[] = {48, 207, 3, 255, 240, 15,  15, 255, 160, 95,  10, 255,
                                     0,  255, 0, 255, 16,  239, 1,  255, 32,  223, 2,  255};
    bmp_spec os2_16 = {
        .header = 12, .w = 3, .h = 2, .bpp = 4, .palette = pal16, .n_palette = 16, .rows = rows16};
    bmp_expect("BMP OS/2 1.x, 16 colours, by hand", &os2_16, want16);
    /* bit fields by hand: 5-6-5 and the default 5-5-5 */
    static const uint8_t rows565[] = {0x1f, 0xf8, 0xef, 0x7b}; /* 0xf81f, 0x7bef */
    static const uint8_t want565[] = {255, 0, 255, 255, 123, 125, 123, 255};
    bmp_spec bf = {.header = 40,
                   .w = 2,
                   .h = 1,
                   .bpp = 16,
                   .compression = 3,
                   .masks = {0xf800, 0x07e0, 0x001f},
                   .n_after = 3,
                   .rows = rows565};
    bmp_expect("BMP 5-6-5 bit fields, by hand", &bf, want565);
    static const uint8_t rows555[] = {0xff, 0x7f, 0x10, 0x42}; /* 0x7fff, 0x4210 */
    static const uint8_t want555[] = {255, 255, 255, 255, 132, 132, 132, 255};
    bmp_spec d555 = {.header = 40, .w = 2, .h = 1, .bpp = 16, .rows = rows555};
    bmp_expect("BMP 16-bit default 5-5-5, by hand", &d555, want555);

    /* every kind by content, random, widths 1..17 (every row padding), both row orders */
    static const struct {
        const char *what;
        int header, bpp;
        uint32_t compression, colours_used, masks[4];
        int n_after, alpha_rule; /* 1: the fourth byte unless all are 0 */
    } kinds[] = {
        {"1-bit", 40, 1, 0, 0, {0}, 0, 0},
        {"4-bit", 40, 4, 0, 0, {0}, 0, 0},
        {"4-bit, 3 colours", 40, 4, 0, 3, {0}, 0, 0},
        {"8-bit", 40, 8, 0, 0, {0}, 0, 0},
        {"8-bit, 3 colours, V5", 124, 8, 0, 3, {0}, 0, 0},
        {"8-bit OS/2 1.x", 12, 8, 0, 0, {0}, 0, 0},
        {"4-bit OS/2 2.x (16)", 16, 4, 0, 0, {0}, 0, 0},
        {"8-bit OS/2 2.x (64)", 64, 8, 0, 0, {0}, 0, 0},
        {"16-bit 5-5-5", 40, 16, 0, 0, {0x7c00, 0x3e0, 0x1f}, 0, 0},
        {"16-bit 5-6-5 bit fields", 40, 16, 3, 0, {0xf800, 0x7e0, 0x1f}, 3, 0},
        {"16-bit 4-4-4-4 V4", 108, 16, 3, 0, {0xf00, 0xf0, 0xf, 0xf000}, 0, 0},
        {"16-bit 5-6-5 V3", 56, 16, 3, 0, {0xf800, 0x7e0, 0x1f, 0}, 0, 0},
        {"24-bit", 40, 24, 0, 0, {0}, 0, 0},
        {"24-bit OS/2 1.x", 12, 24, 0, 0, {0}, 0, 0},
        {"32-bit BI_RGB", 40, 32, 0, 0, {0xff0000, 0xff00, 0xff, 0xff000000u}, 0, 1},
        {"32-bit 8-8-8-8 V5", 124, 32, 3, 0, {0xff0000, 0xff00, 0xff, 0xff000000u}, 0, 0},
        {"32-bit R-G-B-A V4", 108, 32, 3, 0, {0xff, 0xff00, 0xff0000, 0xff000000u}, 0, 0},
        {"32-bit 8-8-8 bit fields", 40, 32, 3, 0, {0xff0000, 0xff00, 0xff}, 3, 0},
        {"32-bit BI_ALPHABITFIELDS", 40, 32, 6, 0, {0xff00, 0xff0000, 0xff000000u, 0xff}, 4, 0},
        {"32-bit 10-10-10-2 V5", 124, 32, 3, 0, {0x3ff00000, 0xffc00, 0x3ff, 0xc0000000u}, 0, 0},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        for (int top_down = 0; top_down < 2; top_down++) {
            if (top_down && kinds[k].header == 12) continue; /* OS/2 1.x sides are unsigned */
            int all_ok = 1;
            char first[160] = "";
            for (int w = 1; w <= 17; w++)
                for (int zero_alpha = 0; zero_alpha <= kinds[k].alpha_rule; zero_alpha++) {
                    const int h = 1 + w % 4, bpp = kinds[k].bpp;
                    const int n_pal =
                        bpp <= 8 ? (kinds[k].colours_used ? (int)kinds[k].colours_used : 1 << bpp)
                                 : 0;
                    uint8_t pal[256 * 3], rows[17 * 4 * 4], want[17 * 4 * 4];
                    for (int i = 0; i < n_pal * 3; i++) pal[i] = (uint8_t)test_rand(&seed);
                    const size_t packed = ((size_t)w * bpp + 7) / 8;
                    memset(rows, 0, sizeof rows);
                    for (int y = 0; y < h; y++)
                        for (int x = 0; x < w; x++) {
                            uint8_t *px = want + 4 * ((size_t)y * w + x), *r = rows + packed * y;
                            if (bpp <= 8) {
                                const unsigned v = test_rand(&seed) % (unsigned)n_pal;
                                r[x * bpp / 8] |= (uint8_t)(v << (8 - bpp - x * bpp % 8));
                                memcpy(px, pal + 3 * v, 3);
                                px[3] = 255;
                            } else if (bpp == 24) {
                                for (int c = 0; c < 3; c++)
                                    px[c] = r[3 * x + 2 - c] = (uint8_t)test_rand(&seed);
                                px[3] = 255;
                            } else {
                                uint32_t v = test_rand(&seed);
                                if (bpp == 16) v &= 0xffff;
                                if (zero_alpha)
                                    v &= 0xffffff;
                                else if (x == 0 && y == 0)
                                    v |= 0x01000000; /* not all 0 */
                                for (int b = 0; b < bpp / 8; b++)
                                    r[bpp / 8 * x + b] = (uint8_t)(v >> 8 * b);
                                for (int c = 0; c < 4; c++) px[c] = bmp_field(v, kinds[k].masks[c]);
                                if (zero_alpha) px[3] = 255;
                            }
                        }
                    bmp_spec s = {kinds[k].header,
                                  w,
                                  h,
                                  bpp,
                                  top_down,
                                  kinds[k].compression,
                                  kinds[k].colours_used,
                                  pal,
                                  n_pal,
                                  {kinds[k].masks[0], kinds[k].masks[1], kinds[k].masks[2],
                                   kinds[k].masks[3]},
                                  kinds[k].n_after,
                                  rows};
                    size_t n = 0;
                    uint8_t *f = bmp_make(&s, &n);
                    fv_status st = load_bytes("kind.bmp", f, n, &img);
                    int ok = st == FV_OK && img.width == w && img.height == h;
                    for (int i = 0; ok && i < w * h; i++)
                        ok = memcmp(img.data + 4 * (size_t)i, want + 4 * (size_t)i, 4) == 0;
                    if (!ok && all_ok)
                        snprintf(first, sizeof first, "width %d%s: %s", w,
                                 zero_alpha ? ", alpha 0" : "",
                                 st != FV_OK ? fv_last_error() : "pixels differ");
                    all_ok &= ok;
                    if (st == FV_OK) fv_host_image_free(&img);
                    free(f);
                }
            char what[96];
            snprintf(what, sizeof what, "BMP %s %s by content", kinds[k].what,
                     top_down ? "top-down" : "bottom-up");
            check(all_ok, what, first);
        }

    /* issue 32: one palette entry, indices 0..255. stb_image showed its stack for 255 pixels */
    uint8_t ramp[256], one[3] = {10, 20, 30};
    for (int i = 0; i < 256; i++) ramp[i] = (uint8_t)i;
    bmp_spec one_entry = {.header = 40,
                          .w = 256,
                          .h = 1,
                          .bpp = 8,
                          .colours_used = 1,
                          .palette = one,
                          .n_palette = 1,
                          .rows = ramp};
    size_t n = 0;
    uint8_t *f = bmp_make(&one_entry, &n);
    expect_refused("BMP 256x1 with a palette of one colour and indices 0..255 is refused",
                   "one.bmp", f, n,
                   "one.bmp' is corrupt (BMP: pixel index 1 past a palette of 1 colour)");
    free(f);
    static const uint8_t idx5[] = {0x12, 0x50}; /* 1 2 5 */
    bmp_spec past = {.header = 40,
                     .w = 3,
                     .h = 1,
                     .bpp = 4,
                     .colours_used = 3,
                     .palette = pal16,
                     .n_palette = 3,
                     .rows = idx5};
    f = bmp_make(&past, &n);
    expect_refused("BMP pixel index past the palette is refused", "past.bmp", f, n,
                   "pixel index 5 past a palette of 3 colours");
    free(f);
    /* a palette cut short by the pixel offset: only what lies before the pixels counts */
    bmp_spec cut = {.header = 40,
                    .w = 3,
                    .h = 1,
                    .bpp = 4,
                    .colours_used = 16,
                    .palette = pal16,
                    .n_palette = 3,
                    .rows = idx5};
    f = bmp_make(&cut, &n);
    expect_refused("BMP palette bounded by the pixel offset", "cut.bmp", f, n,
                   "pixel index 5 past a palette of 3 colours");
    free(f);

    /* truncations at every byte of small files of several kinds */
    uint8_t some[13 * 9 * 4];
    for (size_t i = 0; i < sizeof some; i++)
        some[i] = (uint8_t)(test_rand(&seed) & 0x01); /* index 0 or 1 */
    const bmp_spec cuts[] = {
        {.header = 12, .w = 13, .h = 9, .bpp = 1, .palette = pal2, .n_palette = 2, .rows = some},
        {.header = 12, .w = 13, .h = 9, .bpp = 4, .palette = pal16, .n_palette = 16, .rows = some},
        {.header = 124,
         .w = 7,
         .h = 3,
         .bpp = 8,
         .top_down = 1,
         .colours_used = 2,
         .palette = pal16,
         .n_palette = 2,
         .rows = some},
        {.header = 40,
         .w = 9,
         .h = 4,
         .bpp = 16,
         .compression = 3,
         .masks = {0xf800, 0x7e0, 0x1f},
         .n_after = 3,
         .rows = some},
        {.header = 108,
         .w = 5,
         .h = 3,
         .bpp = 32,
         .compression = 3,
         .masks = {0xff0000, 0xff00, 0xff, 0xff000000u},
         .rows = some},
        {.header = 40, .w = 5, .h = 3, .bpp = 24, .rows = some},
    };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        f = bmp_make(&cuts[k], &n);
        fv_status st = load_bytes("whole.bmp", f, n, &img);
        char what[64];
        snprintf(what, sizeof what, "BMP %d-bit, %d-byte header, whole", cuts[k].bpp,
                 cuts[k].header);
        check(st == FV_OK, what, st != FV_OK ? fv_last_error() : NULL);
        if (st == FV_OK) fv_host_image_free(&img);
        snprintf(what, sizeof what, "BMP %d-bit, %d-byte header", cuts[k].bpp, cuts[k].header);
        truncations(what, f, n);
        free(f);
    }

    /* absurd headers: each refused with its reason */
    static const uint8_t four[] = {0x01, 0x20, 0x10, 0x21}; /* 4x2, 4-bit, 3 colours */
    const bmp_spec base = {.header = 40,
                           .w = 4,
                           .h = 2,
                           .bpp = 4,
                           .colours_used = 3,
                           .palette = pal16,
                           .n_palette = 3,
                           .rows = four};
    f = bmp_make(&base, &n);
    fv_status st = load_bytes("base.bmp", f, n, &img);
    check(st == FV_OK, "BMP base of the absurd headers decodes",
          st != FV_OK ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    uint8_t *bad = malloc(n + 64);
    static const struct {
        const char *what;
        size_t at;
        int bytes;
        uint32_t value;
        const char *message;
    } lies[] = {
        {"a huge biClrUsed", 46, 4, 0xffffffffu, "a palette of 4294967295 colours"},
        {"biClrUsed 257", 46, 4, 257, "a palette of 257 colours"},
        {"the pixel offset past the end", 10, 4, 0x7fffffff, "past the end of a file of"},
        {"the pixel offset inside the header", 10, 4, 20, "inside the 54 bytes of headers"},
        {"the pixel offset on the palette's start", 10, 4, 54, "no room for a palette"},
        {"a negative width", 18, 4, (uint32_t)-4,
         "BMP header says -4x2: an image needs at least one pixel"},
        {"a zero height", 22, 4, 0, "BMP header says 4x0: an image needs at least one pixel"},
        {"a height of -2^31", 22, 4, 0x80000000u, "BMP header says 4x2147483648: too large"},
        {"zero planes", 26, 2, 0, "0 colour planes, not 1"},
        {"bpp 0", 28, 2, 0, "(BMP: 0 bits per pixel)"},
        {"bpp 2", 28, 2, 2, "(BMP: 2 bits per pixel)"},
        {"bpp 64", 28, 2, 64, "(BMP: 64 bits per pixel)"},
        {"a header of 41 bytes", 14, 4, 41, "unknown header of 41 bytes"},
        {"a header of 2^32-1 bytes", 14, 4, 0xffffffffu, "unknown header of 4294967295 bytes"},
        {"RLE8", 30, 4, 1, "compressed BMP (method 1) is not supported: convert it to PNG"},
        {"RLE4", 30, 4, 2, "compressed BMP (method 2) is not supported: convert it to PNG"},
        {"JPEG", 30, 4, 4, "compressed BMP (method 4) is not supported"},
        {"PNG", 30, 4, 5, "compressed BMP (method 5) is not supported"},
        {"bit fields on 4-bit pixels", 30, 4, 3, "bit-field masks on 4-bit pixels"},
    };
    for (size_t k = 0; k < sizeof lies / sizeof lies[0]; k++) {
        memcpy(bad, f, n);
        if (lies[k].bytes == 2)
            le16_put(bad + lies[k].at, lies[k].value);
        else
            le32_put(bad + lies[k].at, lies[k].value);
        char what[96];
        snprintf(what, sizeof what, "BMP with %s is refused", lies[k].what);
        expect_refused(what, "lie.bmp", bad, n, lies[k].message);
    }
    free(bad);
    free(f);
    expect_refused("BMP of 17 bytes is refused", "short.bmp", "BM\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
                   17, "no complete header");
    /* masks: empty, not one run, overlapping, wider than the pixel; OS/2 2.x method 3 (Huffman) */
    static const struct {
        const char *what;
        int bpp;
        uint32_t masks[3];
        const char *message;
    } masks[] = {
        {"an empty red mask", 16, {0, 0x7e0, 0x1f}, "the red mask is empty"},
        {"a mask in two runs",
         16,
         {0xf0f0, 0x0f00, 0x000f},
         "the red mask 0x0000f0f0 is not one run of bits"},
        {"overlapping masks",
         16,
         {0xf800, 0xfc00, 0x1f},
         "the green mask 0x0000fc00 overlaps another"},
        {"a mask wider than 16 bits", 16, {0x1f0000, 0x7e0, 0x1f}, "wider than a 16-bit pixel"},
        {"equal masks", 32, {0xff, 0xff, 0xff}, "overlaps another"},
    };
    uint8_t zeros[64] = {0};
    for (size_t k = 0; k < sizeof masks / sizeof masks[0]; k++) {
        bmp_spec s = {.header = 40,
                      .w = 3,
                      .h = 2,
                      .bpp = masks[k].bpp,
                      .compression = 3,
                      .masks = {masks[k].masks[0], masks[k].masks[1], masks[k].masks[2]},
                      .n_after = 3,
                      .rows = zeros};
        f = bmp_make(&s, &n);
        char what[96];
        snprintf(what, sizeof what, "BMP with %s is refused", masks[k].what);
        expect_refused(what, "mask.bmp", f, n, masks[k].message);
        free(f);
    }
    bmp_spec huff = {.header = 64,
                     .w = 3,
                     .h = 2,
                     .bpp = 8,
                     .compression = 3,
                     .palette = pal16,
                     .n_palette = 2,
                     .rows = zeros};
    f = bmp_make(&huff, &n);
    expect_refused("BMP OS/2 2.x Huffman (method 3 there) is refused", "huff.bmp", f, n,
                   "compressed BMP (method 3)");
    free(f);
    bmp_spec core32 = {.header = 12, .w = 3, .h = 2, .bpp = 32, .rows = zeros};
    f = bmp_make(&core32, &n);
    expect_refused("BMP OS/2 1.x with 32-bit pixels is refused", "core32.bmp", f, n,
                   "(BMP: 32 bits per pixel)");
    free(f);
}

/* ---- files that are no regular files ---- */

static void alarm_fail(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: a load hung (alarm)\n";
    (void)!write(2, m, sizeof m - 1);
    _exit(1);
}

/* A FIFO blocks open() until a writer comes and read() until it writes: the loader must refuse
 * it at once (the alarm turns a hang into a failure rather than a stuck CI job). */
static void test_special_files(void)
{
    char p[PATH_MAX];
    path_of(p, "fifo.png");
    unlink(p);
    if (mkfifo(p, 0600) != 0) {
        check(0, "mkfifo", strerror(errno));
        return;
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = alarm_fail;
    sigaction(SIGALRM, &sa, &old);
    fflush(stdout); /* what was found so far is kept if the alarm ends the run */
    alarm(10);
    fv_image img;
    double t0 = now_s();
    fv_status st = image_load(p, &img);
    double t = now_s() - t0;
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    const char *m = fv_last_error();
    check(st == FV_ERR_IO && t < 2.0 && message_is_clean(m) &&
              strstr(m, "fifo.png': not a regular file (a FIFO)"),
          "a FIFO is refused at once, by name", st == FV_OK ? "accepted" : m);
    unlink(p);
    st = image_load("/dev/null", &img);
    m = fv_last_error();
    check(st == FV_ERR_IO && strstr(m, "'/dev/null': not a regular file (a character device)"),
          "a character device is refused by name", st == FV_OK ? "accepted" : m);
    path_of(p, "");
    st = image_load(p, &img);
    check(st == FV_ERR_IO && strstr(fv_last_error(), "is a directory, not an image"),
          "a directory keeps its message", fv_last_error());
}

/* ---- loads with a size limit (conv's kernel file) ---- */

static void test_load_limited(void)
{
    /* a 1-bit 16384x16384 PNG of zeros: about 32 KB that decode to 1 GiB of RGBA */
    const int side = 16384;
    const size_t raw_len = (size_t)side * (1 + side / 8);
    uint8_t *raw = calloc(raw_len, 1);
    uLongf zlen = compressBound(raw_len);
    uint8_t *z = malloc(zlen), *file = malloc(zlen + 64);
    compress2(z, &zlen, raw, raw_len, 9);
    size_t n = 8;
    memcpy(file, "\x89PNG\r\n\x1a\n", 8);
    uint8_t ihdr[13] = {0};
    be32(ihdr, (uint32_t)side);
    be32(ihdr + 4, (uint32_t)side);
    ihdr[8] = 1;
    n += chunk(file + n, "IHDR", ihdr, 13);
    n += chunk(file + n, "IDAT", z, zlen);
    n += chunk(file + n, "IEND", NULL, 0);
    char p[PATH_MAX];
    path_of(p, "kernel_bomb.png");
    write_bytes(p, file, n);
    fv_image img;
    double t0 = now_s();
    fv_status st = image_load_limited(p, 127, 127, &img);
    double t = now_s() - t0;
    if (st == FV_OK) fv_host_image_free(&img);
    char what[128];
    snprintf(what, sizeof what,
             "a %zu KB PNG of 16384x16384 over a 127x127 limit is refused from its header",
             n >> 10);
    check(st == FV_ERR_SIZE && t < 0.5 &&
              strstr(fv_last_error(),
                     "kernel_bomb.png': PNG header says 16384x16384: larger than 127x127"),
          what, st == FV_OK ? "accepted" : fv_last_error());
    free(raw);
    free(z);
    free(file);

    /* JPEG: the header's size either way round passes (EXIF turns it later); the image as shown
     * must fit. 40x20 stored, orientation 6: shown 20x40 */
    fv_image ref;
    blocky(&ref, 40, 20);
    size_t nj = 0, ne = 0;
    uint8_t *jpeg = test_jpeg_encode(&ref, TJPF_RGBA, TJSAMP_444, 90, 0, &nj);
    uint8_t *turned = test_jpeg_with_exif(jpeg, nj, 6, 1, &ne);
    path_of(p, "turned.jpg");
    write_bytes(p, turned, ne);
    st = image_load_limited(p, 20, 40, &img);
    check(st == FV_OK && img.width == 20 && img.height == 40,
          "a JPEG turned upright within its limit loads", st ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    st = image_load_limited(p, 40, 20, &img);
    check(st == FV_ERR_SIZE && strstr(fv_last_error(), "turned.jpg' is 20x40: larger than 40x20"),
          "a JPEG that fits only before EXIF turns it is refused as shown",
          st == FV_OK ? "accepted" : fv_last_error());
    if (st == FV_OK) fv_host_image_free(&img);
    path_of(p, "wide.pgm");
    write_bytes(p, "P5\n128 1\n255\n", 13);
    st = image_load_limited(p, 127, 127, &img);
    check(st == FV_ERR_SIZE &&
              strstr(fv_last_error(), "wide.pgm': PNM header says 128x1: larger than 127x127"),
          "a PNM one pixel too wide is refused from its header",
          st == FV_OK ? "accepted" : fv_last_error());
    /* the limit is for that load only */
    path_of(p, "turned.jpg");
    st = image_load(p, &img);
    check(st == FV_OK && img.width == 20, "a load after a limited one has no limit",
          st ? fv_last_error() : NULL);
    if (st == FV_OK) fv_host_image_free(&img);
    free(jpeg);
    free(turned);
    fv_host_image_free(&ref);
}

/* ---- output ---- */

static void test_png_output(void)
{
    static const int sizes[][2] = {{1, 1}, {37, 23}, {300, 257}};
    for (int k = 0; k < 3; k++)
        for (int opaque = 0; opaque < 2; opaque++) {
            fv_image img;
            fv_host_image_alloc(&img, sizes[k][0], sizes[k][1]);
            test_fill_random(&img, &seed);
            /* smooth rows too, so that the filters and levels have something to do */
            for (int y = 0; y < img.height / 2; y++)
                for (int x = 0; x < img.width * 4; x++)
                    img.data[(size_t)y * img.pitch + x] = (uint8_t)(x / 4 + y);
            if (opaque)
                for (int i = 0; i < img.width * img.height; i++) img.data[4 * i + 3] = 255;
            for (int level = 0; level <= 9; level += 3)
                for (int threads = 1; threads <= 8; threads *= 8) {
                    char p[PATH_MAX], what[128];
                    path_of(p, "out.png");
                    image_save_options o = {
                        .png_level = level, .jpeg_quality = 0, .threads = threads};
                    fv_status st = image_save(p, &img, &o);
                    fv_image back = {0};
                    if (st == FV_OK) st = image_load(p, &back);
                    snprintf(what, sizeof what,
                             "PNG %dx%d %s level %d, %d threads read back exactly", img.width,
                             img.height, opaque ? "opaque" : "RGBA", level, threads);
                    check(st == FV_OK && max_diff(&back, &img) == 0, what,
                          st ? fv_last_error() : NULL);
                    if (back.data) fv_host_image_free(&back);
                }
            fv_host_image_free(&img);
        }
    /* levels trade size: 9 is smaller than 1 on a smooth image */
    fv_image img;
    fv_host_image_alloc(&img, 256, 256);
    for (int i = 0; i < 256 * 256 * 4; i++)
        img.data[i] = (uint8_t)((i / 4) % 256 / 3 + (i / 1024) % 7);
    char p1[PATH_MAX], p9[PATH_MAX];
    path_of(p1, "l1.png");
    path_of(p9, "l9.png");
    image_save_options o1 = {.png_level = 1, .threads = 1}, o9 = {.png_level = 9, .threads = 1};
    image_save(p1, &img, &o1);
    image_save(p9, &img, &o9);
    struct stat s1, s9;
    check(stat(p1, &s1) == 0 && stat(p9, &s9) == 0 && s9.st_size < s1.st_size,
          "PNG level 9 is smaller than level 1", NULL);
    /* JPEG out: close to the input; lower quality, smaller file */
    fv_image ref;
    blocky(&ref, 64, 48);
    char j95[PATH_MAX], j30[PATH_MAX];
    path_of(j95, "q95.jpg");
    path_of(j30, "q30.JPEG");
    image_save_options q95 = {.png_level = -1, .jpeg_quality = 95},
                       q30 = {.png_level = -1, .jpeg_quality = 30};
    fv_status st = image_save(j95, &ref, &q95);
    if (st == FV_OK) st = image_save(j30, &ref, &q30);
    fv_image back = {0};
    if (st == FV_OK) st = image_load(j95, &back);
    check(st == FV_OK && mean_diff(&back, &ref) < 4.0,
          "JPEG written at quality 95 reads back close", st ? fv_last_error() : NULL);
    check(stat(j95, &s1) == 0 && stat(j30, &s9) == 0 && s9.st_size < s1.st_size,
          "JPEG quality 30 is smaller than 95", NULL);
    if (back.data) fv_host_image_free(&back);
    fv_host_image_free(&ref);
    fv_host_image_free(&img);
}

static int no_temp_left(void)
{
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '\\.tmp-'", dir);
    return system(cmd) != 0;
}

static void test_output_files(void)
{
    fv_image img;
    fv_host_image_alloc(&img, 5, 4);
    test_fill_random(&img, &seed);
    char p[PATH_MAX], target[PATH_MAX], link[PATH_MAX];
    struct stat st;
    size_t n0 = 0, n1 = 0;

    /* read-only target: refused, untouched */
    path_of(p, "readonly.png");
    write_bytes(p, "old", 3);
    chmod(p, 0444);
    fv_status s = image_save_png(p, &img);
    uint8_t *kept = read_bytes(p, &n0);
    check(s == FV_ERR_IO && strstr(fv_last_error(), "read-only") && n0 == 3 && stat(p, &st) == 0 &&
              (st.st_mode & 0777) == 0444,
          "a read-only target is refused and left as it was", fv_last_error());
    free(kept);
    chmod(p, 0644);

    /* a replaced file keeps its mode */
    path_of(p, "mode.png");
    write_bytes(p, "old", 3);
    chmod(p, 0640);
    s = image_save_png(p, &img);
    check(s == FV_OK && stat(p, &st) == 0 && (st.st_mode & 0777) == 0640 && st.st_size > 3,
          "a replaced file keeps its permissions", fv_last_error());

    /* a link is written through: it stays a link, its target gets the image */
    path_of(target, "target.png");
    path_of(link, "link.png");
    write_bytes(target, "old", 3);
    unlink(link);
    if (symlink("target.png", link) != 0) printf("symlink: %s\n", strerror(errno));
    s = image_save_png(link, &img);
    fv_image back = {0};
    int ok = s == FV_OK && lstat(link, &st) == 0 && S_ISLNK(st.st_mode) &&
             image_load(target, &back) == FV_OK && max_diff(&back, &img) == 0;
    check(ok, "a symbolic link target is written through and stays a link", fv_last_error());
    if (back.data) fv_host_image_free(&back);
    path_of(link, "dangling.png");
    unlink(link);
    if (symlink("nowhere/none.png", link) != 0) printf("symlink: %s\n", strerror(errno));
    s = image_save_png(link, &img);
    check(s != FV_OK && strstr(fv_last_error(), "symbolic link to a missing") &&
              lstat(link, &st) == 0 && S_ISLNK(st.st_mode),
          "a dangling link is refused and kept", fv_last_error());

    /* the longest legal name: the temporary name must fit in NAME_MAX as well */
    char name[NAME_MAX + 8];
    memset(name, 'n', NAME_MAX);
    memcpy(name + NAME_MAX - 4, ".png", 5);
    path_of(p, name);
    s = image_save_png(p, &img);
    check(s == FV_OK && stat(p, &st) == 0 && no_temp_left(), "a 255-byte file name is written",
          fv_last_error());
    unlink(p);
    memset(name, 'n', NAME_MAX + 1);
    memcpy(name + NAME_MAX - 3, ".png", 5);
    path_of(p, name);
    s = image_save_png(p, &img);
    check(s == FV_ERR_IO && message_is_clean(fv_last_error()) &&
              strstr(fv_last_error(), "longer than"),
          "a 256-byte file name is refused with one line", fv_last_error());

    /* directory, missing folder, bad ending */
    path_of(p, "");
    check(image_save_png(p, &img) != FV_OK, "a directory is refused", NULL);
    path_of(p, "missing/x.png");
    check(image_save_png(p, &img) == FV_ERR_IO && strstr(fv_last_error(), "does not exist"),
          "a missing folder is refused", fv_last_error());
    path_of(p, "x.gif");
    check(image_save_png(p, &img) == FV_ERR_ARG &&
              strstr(fv_last_error(),
                     "must end in .png, .jpg, .jpeg, .pgm, .ppm, .pnm, .tif or .tiff"),
          "an unknown ending is refused", fv_last_error());
    check(no_temp_left(), "no temporary file left by failed writes", NULL);

    /* signals: the temporary file goes with the process, whichever signal ends it */
    const int sigs[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2,
                        SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGRTMIN};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        int pipefd[2];
        if (pipe(pipefd) != 0) break;
        path_of(p, "signalled.png");
        pid_t pid = fork();
        if (pid == 0) {
            close(pipefd[0]);
            setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0}); /* SIGQUIT and SIGXCPU dump core */
            image_temp t;
            if (image_temp_open(p, &t) != FV_OK) _exit(3);
            (void)!write(pipefd[1], t.path, strlen(t.path) + 1);
            for (;;) pause();
        }
        close(pipefd[1]);
        char tmp[PATH_MAX] = "";
        ssize_t got = read(pipefd[0], tmp, sizeof tmp - 1);
        close(pipefd[0]);
        int existed = got > 0 && access(tmp, F_OK) == 0;
        kill(pid, sigs[k]);
        int status = 0;
        waitpid(pid, &status, 0);
        char what[96];
        snprintf(what, sizeof what, "the temporary file is removed on %s", strsignal(sigs[k]));
        check(existed && access(tmp, F_OK) != 0 && WIFSIGNALED(status) &&
                  WTERMSIG(status) == sigs[k] && access(p, F_OK) != 0,
              what, tmp);
    }
    fv_host_image_free(&img);
    (void)n1;
}

/* Runs `child` in a forked process (no core files); its exit status, or 128 + the signal. */
static int in_child(int (*child)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
        _exit(child());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

static char child_path[PATH_MAX];

/* Past `ulimit -f`: the write fails (SIGXFSZ is ignored) with a message, nothing is left. */
static int save_over_file_limit(void)
{
    fv_image img;
    fv_host_image_alloc(&img, 200, 200);
    test_fill_random(&img, &seed);
    setrlimit(RLIMIT_FSIZE, &(struct rlimit){4096, 4096});
    fv_status s = image_save_png(child_path, &img);
    if (s == FV_OK) return 1;
    printf("  (child) %s\n", fv_last_error());
    fflush(stdout);
    return s == FV_ERR_IO && strstr(fv_last_error(), "File too large") &&
                   message_is_clean(fv_last_error())
               ? 0
               : 2;
}

/* After a temporary file: a write to a closed pipe fails with EPIPE instead of ending the run. */
static int write_to_closed_pipe(void)
{
    image_temp t;
    if (image_temp_open(child_path, &t) != FV_OK) return 3;
    image_temp_discard(&t);
    int fd[2];
    if (pipe(fd) != 0) return 4;
    close(fd[0]);
    return write(fd[1], "x", 1) < 0 && errno == EPIPE ? 0 : 5;
}

/* A large image written slowly (level 9, one thread), to be signalled mid-write. */
static int save_slowly(void)
{
    fv_image img;
    fv_host_image_alloc(&img, 3000, 2000);
    test_fill_random(&img, &seed);
    image_save_options o = {.png_level = 9, .jpeg_quality = 0, .threads = 1};
    return image_save(child_path, &img, &o) == FV_OK ? 0 : 1;
}

static void test_write_failures(void)
{
    path_of(child_path, "limited.png");
    int code = in_child(save_over_file_limit);
    check(code == 0 && access(child_path, F_OK) != 0 && no_temp_left(),
          "a write past the file size limit fails with a message and leaves nothing",
          code > 128 ? strsignal(code - 128) : NULL);
    code = in_child(write_to_closed_pipe);
    check(code == 0, "SIGPIPE is ignored once a temporary file was made",
          code > 128 ? strsignal(code - 128) : NULL);
    /* a signal during a real write: wait for the temporary file, then send it */
    const int sigs[] = {SIGQUIT, SIGUSR1};
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        path_of(child_path, "slow.png");
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
            _exit(save_slowly());
        }
        int seen = 0;
        for (int i = 0; i < 2000 && !seen; i++) {
            seen = !no_temp_left();
            if (!seen) usleep(5000);
        }
        kill(pid, sigs[k]);
        int status = 0;
        waitpid(pid, &status, 0);
        char what[96];
        snprintf(what, sizeof what, "%s during a write leaves no file", strsignal(sigs[k]));
        check(seen && WIFSIGNALED(status) && WTERMSIG(status) == sigs[k] && no_temp_left() &&
                  access(child_path, F_OK) != 0,
              what, seen ? NULL : "no temporary file seen");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_image_io SCRATCH_DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/image_io", argv[1]);
    char cmd[2 * PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0) { /* nothing can be tested without it: a failure, with the closing line */
        test_check(&T, 0, "the scratch folder can be made:", dir);
        return test_finish(&T);
    }
    seed = test_seed();
    test_png_kinds();
    test_jpeg();
    test_jpeg_lib();
    test_jpeg_gpu_fit();
    test_pnm_bmp();
    test_bad_files();
    test_bmp();
    test_special_files();
    test_load_limited();
    test_png_output();
    test_output_files();
    test_write_failures();
    return test_finish(&T);
}
