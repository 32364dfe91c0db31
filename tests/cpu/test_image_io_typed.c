/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_image_io_typed.c: images of every pixel type and channel count through the files
 * (viewer/imageio/: image_load_native, image_save_as, image_convert, tiff.c).
 *
 * Random images (seed printed) of uint8, uint16 and float32 with 1, 3 and 4 channels, written as
 * PNG, PNM, TIFF (deflate and none, strips and tiles) and JPEG and read back natively: bit-exact
 * where the format holds the type, otherwise equal to image_convert's mapping with the loss said
 * in one line. The conversions' mappings on chosen values. Metadata (ICC, EXIF, PNG text) carried
 * PNG -> PNG, JPEG, TIFF; a JPEG's EXIF orientation applied once. Truncated and lying TIFFs
 * refused in one line with nothing on stderr. The RGBA8 load of deeper files says what it cut.
 * With a folder made by tests/cpu/typed_images.py (arguments: SCRATCH FIXTURES): the files other
 * writers made (cv2, tifffile, PNGs by hand) read exactly, those filterview refuses refused by
 * name; and our exact files are left in FIXTURES/ours for that script to read back.
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include "image_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>
#include <zlib.h>

static test_counts T;
static char dir[PATH_MAX / 2];
static char ours[PATH_MAX / 2]; /* FIXTURES/ours, or empty */
static uint32_t seed;

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

static const char *type_name(fv_pixel_type t)
{
    return fv_pixel_type_name(t);
}

/* Random samples: floats in 0..1 with the ends and a few exact eighths among them; an alpha
 * that is not opaque everywhere. */
static fv_image random_image(int w, int h, fv_pixel_type type, int channels)
{
    fv_image img;
    if (fv_host_image_alloc_as(&img, w, h, type, channels) != FV_OK) {
        printf("out of memory\n");
        exit(1);
    }
    const size_t n = (size_t)w * channels;
    for (int y = 0; y < h; y++) {
        uint8_t *row = img.data + (size_t)y * img.pitch;
        for (size_t i = 0; i < n; i++) {
            uint32_t r = test_rand(&seed);
            if (type == FV_PIXEL_U8) {
                row[i] = (uint8_t)r;
            } else if (type == FV_PIXEL_U16) {
                uint16_t v = (uint16_t)r;
                memcpy(row + 2 * i, &v, 2);
            } else {
                float v = r % 7 == 0 ? (float)(r >> 8 & 8) / 8.0f : (float)(r >> 8) / 16777216.0f;
                memcpy(row + 4 * i, &v, 4);
            }
        }
    }
    return img;
}

static int same_image(const fv_image *a, const fv_image *b)
{
    if (a->width != b->width || a->height != b->height || a->type != b->type ||
        fv_image_channels(a) != fv_image_channels(b))
        return 0;
    const size_t row = (size_t)a->width * fv_image_pixel_bytes(a);
    for (int y = 0; y < a->height; y++)
        if (memcmp(a->data + (size_t)y * a->pitch, b->data + (size_t)y * b->pitch, row) != 0)
            return 0;
    return 1;
}

static double sample(const fv_image *img, int x, int c);

/* Every alpha the type's max (an RGBA image). */
static int opaque(const fv_image *img)
{
    for (int y = 0; y < img->height; y++) {
        fv_image row = *img;
        row.data = img->data + (size_t)y * img->pitch;
        for (int x = 0; x < img->width; x++)
            if (sample(&row, x, 3) != fv_pixel_type_max(img->type)) return 0;
    }
    return 1;
}

static void describe(char *buf, size_t size, const char *what, fv_pixel_type t, int c, int w, int h)
{
    snprintf(buf, size, "%s %s x%d %dx%d", what, type_name(t), c, w, h);
}

/* NAME.expect for typed_images.py check: "w h type channels", then the rows packed. */
static void write_expect(const char *stem, const fv_image *img)
{
    if (!ours[0]) return;
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s.expect", ours, stem);
    FILE *f = fopen(p, "wb");
    if (!f) return;
    fprintf(f, "%d %d %s %d\n", img->width, img->height, type_name(img->type),
            fv_image_channels(img));
    const size_t row = (size_t)img->width * fv_image_pixel_bytes(img);
    for (int y = 0; y < img->height; y++) fwrite(img->data + (size_t)y * img->pitch, 1, row, f);
    fclose(f);
}

static int load_expect(const char *path, fv_image *img)
{
    size_t n;
    uint8_t *b = read_bytes(path, &n);
    if (!b) return 0;
    b[n] = 0;
    int w, h, c;
    char t[16];
    int used = 0;
    int ok = sscanf((char *)b, "%d %d %15s %d%n", &w, &h, t, &c, &used) == 4;
    int type = ok ? fv_pixel_type_parse(t) : -1;
    ok = ok && type >= 0 && fv_host_image_alloc_as(img, w, h, (fv_pixel_type)type, c) == FV_OK;
    if (ok) {
        const size_t bytes = img->pitch * (size_t)h;
        ok = (size_t)used + 1 + bytes == n;
        if (ok) memcpy(img->data, b + used + 1, bytes);
    }
    free(b);
    return ok;
}

/* ---- conversions on chosen values ---- */

static double sample(const fv_image *img, int x, int c)
{
    const int ch = fv_image_channels(img);
    const uint8_t *p = img->data + ((size_t)x * ch + c) * fv_pixel_type_bytes(img->type);
    if (img->type == FV_PIXEL_U16) {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    if (img->type == FV_PIXEL_F32) {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    return *p;
}

static void set_sample(fv_image *img, int x, int c, double v)
{
    const int ch = fv_image_channels(img);
    uint8_t *p = img->data + ((size_t)x * ch + c) * fv_pixel_type_bytes(img->type);
    if (img->type == FV_PIXEL_U16) {
        uint16_t u = (uint16_t)v;
        memcpy(p, &u, 2);
    } else if (img->type == FV_PIXEL_F32) {
        float f = (float)v;
        memcpy(p, &f, 4);
    } else {
        *p = (uint8_t)v;
    }
}

static void test_conversions(void)
{
    /* uint16 -> uint8: v / 257 rounded half up (128 is 0.498, 129 is 0.502) */
    const double u16[] = {0, 128, 129, 257, 385, 386, 65535, 32767};
    const double u16_to_u8[] = {0, 0, 1, 1, 1, 2, 255, 127};
    const int n16 = (int)(sizeof u16 / sizeof u16[0]);
    fv_image a, b;
    image_convert_loss loss;
    fv_host_image_alloc_as(&a, n16, 1, FV_PIXEL_U16, 1);
    for (int i = 0; i < n16; i++) set_sample(&a, i, 0, u16[i]);
    int ok = image_convert(&a, FV_PIXEL_U8, 1, NULL, &b, &loss) == FV_OK;
    for (int i = 0; ok && i < n16; i++) ok = sample(&b, i, 0) == u16_to_u8[i];
    check(ok && loss.depth, "uint16 to uint8 rounds v / 257 half up, and says it lost", NULL);
    fv_host_image_free(&b);
    fv_host_image_free(&a);

    /* uint16 of multiples of 257 loses nothing to 8 bits; uint8 to uint16 is v * 257 */
    fv_host_image_alloc_as(&a, 256, 1, FV_PIXEL_U8, 1);
    for (int i = 0; i < 256; i++) set_sample(&a, i, 0, i);
    fv_image c;
    ok = image_convert(&a, FV_PIXEL_U16, 1, NULL, &b, &loss) == FV_OK && !loss.depth;
    for (int i = 0; ok && i < 256; i++) ok = sample(&b, i, 0) == 257.0 * i;
    ok = ok && image_convert(&b, FV_PIXEL_U8, 1, NULL, &c, &loss) == FV_OK && !loss.depth &&
         same_image(&a, &c);
    check(ok, "uint8 to uint16 is v * 257, and back without loss", NULL);
    fv_host_image_free(&c);
    /* and to float32 v / 255, back exactly */
    ok = image_convert(&a, FV_PIXEL_F32, 1, NULL, &c, &loss) == FV_OK && !loss.depth;
    for (int i = 0; ok && i < 256; i++) ok = sample(&c, i, 0) == (float)(i / 255.0);
    fv_image d;
    ok = ok && image_convert(&c, FV_PIXEL_U8, 1, NULL, &d, &loss) == FV_OK && !loss.depth &&
         same_image(&a, &d);
    check(ok, "uint8 to float32 is v / 255, and back without loss", NULL);
    fv_host_image_free(&d);
    fv_host_image_free(&c);
    fv_host_image_free(&b);
    fv_host_image_free(&a);

    /* float32 to integers: clamp to 0..1, round x * max half up, NaN 0 */
    const double f[] = {0.5, -1, 2, NAN, INFINITY, -INFINITY, 1.0 / 255, 0.25 / 255, 0.5 / 255};
    const double f_u8[] = {128, 0, 255, 0, 255, 0, 1, 0, 1};
    const int nf = (int)(sizeof f / sizeof f[0]);
    fv_host_image_alloc_as(&a, nf, 1, FV_PIXEL_F32, 1);
    for (int i = 0; i < nf; i++) set_sample(&a, i, 0, f[i]);
    ok = image_convert(&a, FV_PIXEL_U8, 1, NULL, &b, &loss) == FV_OK && loss.depth;
    char got[128] = "";
    for (int i = 0; ok && i < nf; i++)
        if (sample(&b, i, 0) != f_u8[i]) {
            snprintf(got, sizeof got, "%g gave %g", f[i], sample(&b, i, 0));
            ok = 0;
        }
    check(ok, "float32 to uint8: clamped 0..1, rounded half up, NaN 0", got);
    fv_host_image_free(&b);
    fv_host_image_free(&a);

    /* channels: gray to RGBA repeats it with an opaque alpha; colour to gray is BT.601 luma;
     * RGBA to RGB drops alpha and says so only when it was not opaque */
    fv_host_image_alloc_as(&a, 2, 1, FV_PIXEL_U8, 4);
    const double px[2][4] = {{10, 20, 30, 255}, {7, 7, 7, 128}};
    for (int x = 0; x < 2; x++)
        for (int k = 0; k < 4; k++) set_sample(&a, x, k, px[x][k]);
    ok = image_convert(&a, FV_PIXEL_U8, 1, NULL, &b, &loss) == FV_OK && loss.colour && loss.alpha &&
         sample(&b, 0, 0) == 18 && sample(&b, 1, 0) == 7;
    check(ok, "colour to gray: 0.299 R + 0.587 G + 0.114 B rounded; gray pixels exact", NULL);
    ok = ok && image_convert(&b, FV_PIXEL_U16, 4, NULL, &c, &loss) == FV_OK && !loss.colour &&
         !loss.alpha && !loss.depth && sample(&c, 0, 1) == 18 * 257 && sample(&c, 0, 3) == 65535;
    check(ok, "gray to RGBA repeats the gray, alpha opaque", NULL);
    fv_host_image_free(&c);
    set_sample(&a, 1, 3, 255);
    ok = image_convert(&a, FV_PIXEL_U8, 3, NULL, &c, &loss) == FV_OK && !loss.alpha &&
         sample(&c, 0, 2) == 30;
    check(ok, "opaque RGBA to RGB loses nothing", NULL);
    fv_host_image_free(&c);
    fv_host_image_free(&b);
    fv_host_image_free(&a);
}

/* ---- round trips of every type x channels x format ---- */

typedef struct out_format {
    const char *ending;
    image_tiff_compression tiff_compression;
    int tiff_tile;
    int holds_float, holds_alpha;
} out_format;

static const out_format exact_formats[] = {
    {".png", 0, 0, 0, 1},
    {".ppm", 0, 0, 0, 0},
    {".tif", IMAGE_TIFF_DEFLATE, 0, 1, 1},
    {".tiff", IMAGE_TIFF_NONE, 16, 1, 1},
    {".tif", IMAGE_TIFF_DEFLATE, 48, 1, 1},
};

static void test_round_trips(void)
{
    static const fv_pixel_type types[] = {FV_PIXEL_U8, FV_PIXEL_U16, FV_PIXEL_F32};
    static const int channel_counts[] = {1, 3, 4};
    static const int sizes[][2] = {{37, 23}, {1, 1}, {1, 17}, {130, 70}};
    int count = 0;
    for (size_t fi = 0; fi < sizeof exact_formats / sizeof exact_formats[0]; fi++)
        for (int ti = 0; ti < 3; ti++)
            for (int ci = 0; ci < 3; ci++)
                for (int si = 0; si < 4; si++) {
                    const out_format *f = &exact_formats[fi];
                    const fv_pixel_type t = types[ti];
                    const int ch = channel_counts[ci], w = sizes[si][0], h = sizes[si][1];
                    fv_image img = random_image(w, h, t, ch);
                    char stem[64], p[PATH_MAX], what[160];
                    snprintf(stem, sizeof stem, "rt_%zu_%s_%d_%d", fi, type_name(t), ch, si);
                    if (ours[0])
                        snprintf(p, sizeof p, "%s/%s%s", ours, stem, f->ending);
                    else
                        path_of(p, stem), strcat(p, f->ending);
                    describe(what, sizeof what, f->ending, t, ch, w, h);
                    image_save_options o = IMAGE_SAVE_DEFAULTS;
                    o.tiff_compression = f->tiff_compression;
                    o.tiff_tile = f->tiff_tile;
                    o.threads =
                        si == 3 ? 8
                                : 1 + (int)(test_rand(&seed) % 3); /* 8: PNG strips in parallel */
                    image_save_report r;
                    fv_status st = image_save_as(p, &img, &o, &r);
                    /* what the format holds: the image itself, or image_convert's mapping */
                    const fv_pixel_type want_t =
                        t == FV_PIXEL_F32 && !f->holds_float ? FV_PIXEL_U16 : t;
                    int want_c = ch == 4 && !f->holds_alpha ? 3 : ch;
                    fv_image want, back;
                    image_convert_loss loss;
                    image_convert(&img, want_t, want_c, NULL, &want, &loss);
                    if (want_c == 4 && !strcmp(f->ending, ".png") && opaque(&want)) {
                        /* PNG writes an RGBA image whose alpha is all opaque as RGB */
                        fv_host_image_free(&want);
                        want_c = 3;
                        image_convert(&img, want_t, want_c, NULL, &want, &loss);
                    }
                    const int lossy = loss.depth || loss.alpha;
                    image_load_info info;
                    if (st == FV_OK) st = image_load_native(p, NULL, &back, &info);
                    int ok = st == FV_OK && same_image(&back, &want);
                    check(ok, "read back exactly:", what);
                    if (!ok && st != FV_OK) printf("  %s\n", fv_last_error());
                    check(r.lossy == lossy && (lossy ? message_is_clean(r.note) : !r.note[0]),
                          "the loss said exactly when there is one:", r.note[0] ? r.note : what);
                    if (st == FV_OK) {
                        check(info.file_type == want_t && info.file_channels == want_c,
                              "the load info names what the file holds:", what);
                        if (!lossy && si == 0) write_expect(stem, &want);
                        image_metadata_free(&info.metadata);
                        fv_host_image_free(&back);
                    }
                    if (!ours[0] || lossy || si != 0) unlink(p);
                    fv_host_image_free(&want);
                    fv_host_image_free(&img);
                    count++;
                }
    printf("%d round trips\n", count);

    /* an opaque RGBA image is written to PNG as RGB (nothing lost) */
    fv_image img = random_image(19, 5, FV_PIXEL_U16, 4), back;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 19; x++) memcpy(img.data + y * img.pitch + 8 * x + 6, "\xff\xff", 2);
    char p[PATH_MAX];
    path_of(p, "opaque16.png");
    image_save_report r;
    int ok = image_save_as(p, &img, NULL, &r) == FV_OK && !r.lossy &&
             image_load_native(p, NULL, &back, NULL) == FV_OK && back.channels == 3 &&
             back.type == FV_PIXEL_U16;
    fv_image want;
    image_convert(&img, FV_PIXEL_U16, 3, NULL, &want, NULL);
    check(ok && same_image(&back, &want), "an opaque 16-bit RGBA PNG is written as 16-bit RGB",
          NULL);
    fv_host_image_free(&want);
    if (ok) fv_host_image_free(&back);
    fv_host_image_free(&img);
}

/* JPEG: uint8 gray stays gray, colour comes back RGB; deeper types and alpha said. */
static void test_jpeg_types(void)
{
    static const fv_pixel_type types[] = {FV_PIXEL_U8, FV_PIXEL_U16, FV_PIXEL_F32};
    for (int ti = 0; ti < 3; ti++)
        for (int ch = 1; ch <= 4; ch++) {
            if (ch == 2) continue;
            /* smooth, so that JPEG keeps it close */
            fv_image img, u8;
            fv_host_image_alloc_as(&img, 64, 48, types[ti], ch);
            for (int y = 0; y < 48; y++)
                for (int x = 0; x < 64; x++)
                    for (int c = 0; c < ch; c++) {
                        double v = (c == 3 ? 0.5 : (double)(x * 3 + y * 2 + c * 20) / 400.0);
                        fv_image row = img;
                        row.data = img.data + (size_t)y * img.pitch;
                        set_sample(&row, x, c,
                                   v * fv_pixel_type_max(types[ti]) + (ti < 2 ? 0.3 : 0));
                    }
            char p[PATH_MAX], what[128];
            path_of(p, "typed.jpg");
            describe(what, sizeof what, "JPEG", types[ti], ch, 64, 48);
            image_save_report r;
            fv_image back;
            image_load_info info;
            int ok = image_save_as(p, &img, NULL, &r) == FV_OK &&
                     image_load_native(p, NULL, &back, &info) == FV_OK;
            const int want_c = ch == 1 ? 1 : 3;
            ok = ok && back.type == FV_PIXEL_U8 && back.channels == want_c && back.width == 64;
            check(ok, "JPEG comes back uint8, gray as gray, colour as RGB:", what);
            const int should_say =
                types[ti] == FV_PIXEL_U16 || ch == 4 || types[ti] == FV_PIXEL_F32;
            check(r.lossy == should_say &&
                      (!should_say || (message_is_clean(r.note) && strstr(r.note, "JPEG"))),
                  "JPEG says what it cannot hold:", r.note[0] ? r.note : what);
            if (ok) {
                image_convert(&img, FV_PIXEL_U8, want_c, NULL, &u8, NULL);
                double worst = 0;
                for (int y = 0; y < 48; y++)
                    for (int x = 0; x < 64 * want_c; x++) {
                        double d = fabs((double)back.data[(size_t)y * back.pitch + x] -
                                        u8.data[(size_t)y * u8.pitch + x]);
                        if (d > worst) worst = d;
                    }
                char detail[200];
                snprintf(detail, sizeof detail, "%s: off by %g", what, worst);
                check(worst <= 8, "JPEG of a smooth image stays close:", detail);
                fv_host_image_free(&u8);
                fv_host_image_free(&back);
                image_metadata_free(&info.metadata);
            }
            fv_host_image_free(&img);
        }
}

/* ---- the RGBA8 load of deeper files, PNM's maxval ---- */

static void test_rgba8_path(void)
{
    fv_image img = random_image(21, 9, FV_PIXEL_U16, 1), back, native;
    char p[PATH_MAX];
    path_of(p, "deep.png");
    image_load_info info;
    int ok = image_save_as(p, &img, NULL, NULL) == FV_OK &&
             image_load_rgba8(p, NULL, &back, &info) == FV_OK;
    ok = ok && info.lossy_to_8bit && message_is_clean(info.lossy_note) &&
         strstr(info.lossy_note, "16-bit") && back.channels == 4 && back.type == FV_PIXEL_U8;
    check(ok, "a 16-bit PNG read as RGBA8 says so:", info.lossy_note);
    if (ok) {
        uint16_t v;
        memcpy(&v, img.data, 2);
        check(back.data[0] == v >> 8 && back.data[1] == v >> 8 && back.data[3] == 255,
              "its samples keep their high byte, as before", NULL);
        fv_host_image_free(&back);
        image_metadata_free(&info.metadata);
    }
    fv_host_image_free(&img);

    img = random_image(21, 9, FV_PIXEL_U8, 3);
    path_of(p, "plain.png");
    ok = image_save_as(p, &img, NULL, NULL) == FV_OK &&
         image_load_rgba8(p, NULL, &back, &info) == FV_OK && !info.lossy_to_8bit &&
         !info.lossy_note[0] && info.file_channels == 3;
    check(ok, "an 8-bit PNG read as RGBA8 loses nothing and says nothing", info.lossy_note);
    if (ok) fv_host_image_free(&back), image_metadata_free(&info.metadata);
    fv_host_image_free(&img);

    img = random_image(21, 9, FV_PIXEL_F32, 4);
    path_of(p, "float.tif");
    ok = image_save_as(p, &img, NULL, NULL) == FV_OK && image_load(p, &back) == FV_OK &&
         back.type == FV_PIXEL_U8 && back.channels == 4;
    check(ok, "a float TIFF reaches image_load as RGBA8", fv_last_error());
    if (ok) fv_host_image_free(&back);
    ok = image_load_rgba8(p, NULL, &back, &info) == FV_OK && info.lossy_to_8bit &&
         strstr(info.lossy_note, "float32");
    check(ok, "and image_load_rgba8 says it was cut", info.lossy_note);
    if (ok) fv_host_image_free(&back), image_metadata_free(&info.metadata);
    fv_host_image_free(&img);

    /* a 12-bit PGM: kept as stored natively, its maxval carried to the PGM written from it */
    static const char head[] = "P5\n3 2\n4095\n";
    uint8_t file[sizeof head - 1 + 12];
    memcpy(file, head, sizeof head - 1);
    const uint16_t v[6] = {0, 1, 4095, 2048, 100, 4000};
    for (int i = 0; i < 6; i++) {
        file[sizeof head - 1 + 2 * i] = (uint8_t)(v[i] >> 8);
        file[sizeof head - 1 + 2 * i + 1] = (uint8_t)v[i];
    }
    path_of(p, "twelve.pgm");
    write_bytes(p, file, sizeof file);
    ok = image_load_native(p, NULL, &native, &info) == FV_OK && native.type == FV_PIXEL_U16 &&
         native.channels == 1 && info.metadata.pnm_maxval == 4095 && info.file_bits == 12;
    for (int i = 0; ok && i < 6; i++) {
        uint16_t s;
        memcpy(&s, native.data + (size_t)(i / 3) * native.pitch + 2 * (i % 3), 2);
        ok = s == v[i];
    }
    check(ok, "a 12-bit PGM is read as stored, its maxval recorded", NULL);
    char q[PATH_MAX];
    path_of(q, "twelve_out.pgm");
    image_save_options o = IMAGE_SAVE_DEFAULTS;
    o.metadata = &info.metadata;
    size_t n = 0;
    uint8_t *again = NULL;
    if (ok && image_save_as(q, &native, &o, NULL) == FV_OK) again = read_bytes(q, &n);
    check(again && n == sizeof file && memcmp(again, file, n) == 0,
          "and written back byte for byte with maxval 4095", NULL);
    free(again);
    if (ok) fv_host_image_free(&native);
    image_metadata_free(&info.metadata);
    ok = image_load_rgba8(p, NULL, &back, &info) == FV_OK && back.data[8] == 255 &&
         back.data[4] == 0 && info.lossy_to_8bit;
    check(ok, "and read as RGBA8 scaled from 4095, the cut said", info.lossy_note);
    if (ok) fv_host_image_free(&back);
}

/* ---- metadata ---- */

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

/* A little-endian EXIF block with one IFD0 entry: orientation o. */
static size_t make_exif(uint8_t *e, int o)
{
    static const uint8_t head[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0};
    memcpy(e, head, sizeof head);
    e[sizeof head] = (uint8_t)o;
    memset(e + sizeof head + 1, 0, 7); /* value padding, no next IFD */
    return sizeof head + 8;
}

static void test_metadata(void)
{
    /* a profile of 70000 bytes: more than one JPEG APP2 marker holds */
    const size_t icc_size = 70000;
    uint8_t *icc = malloc(icc_size);
    for (size_t i = 0; i < icc_size; i++) icc[i] = (uint8_t)test_rand(&seed);
    uint8_t exif[64];
    const size_t exif_size = make_exif(exif, 1);

    /* a PNG by hand: IHDR, iCCP, eXIf, tEXt, iTXt, IDAT, IEND */
    uLongf zicc_len = compressBound((uLong)icc_size);
    uint8_t *zicc = malloc(zicc_len + 32);
    memcpy(zicc, "Test profile\0\0", 14);
    compress2(zicc + 14, &zicc_len, icc, (uLong)icc_size, 6);
    uint8_t *png = malloc(zicc_len + 1024);
    size_t n = 0;
    memcpy(png, "\x89PNG\r\n\x1a\n", 8);
    n = 8;
    uint8_t ihdr[13] = {0, 0, 0, 3, 0, 0, 0, 2, 8, 0, 0, 0, 0};
    n += chunk(png + n, "IHDR", ihdr, 13);
    n += chunk(png + n, "iCCP", zicc, 14 + zicc_len);
    n += chunk(png + n, "eXIf", exif, exif_size);
    static const char text[] = "Comment\0caf\xe9 latin-1";
    n += chunk(png + n, "tEXt", (const uint8_t *)text, sizeof text - 1);
    static const char itxt[] = "Title\0\0\0\0\0caf\xc3\xa9 utf-8";
    n += chunk(png + n, "iTXt", (const uint8_t *)itxt, sizeof itxt - 1);
    uint8_t raw[2 * 4] = {0, 10, 20, 30, 0, 40, 50, 60}, z[64];
    uLongf zn = sizeof z;
    compress(z, &zn, raw, sizeof raw);
    n += chunk(png + n, "IDAT", z, zn);
    n += chunk(png + n, "IEND", NULL, 0);
    char p[PATH_MAX];
    path_of(p, "meta.png");
    write_bytes(p, png, n);
    free(png);
    free(zicc);

    fv_image img;
    image_load_info info;
    int ok = image_load_native(p, NULL, &img, &info) == FV_OK;
    const image_metadata *m = &info.metadata;
    ok = ok && img.channels == 1 && m->icc_size == icc_size && !memcmp(m->icc, icc, icc_size) &&
         !strcmp(m->icc_name, "Test profile") && m->exif_size == exif_size &&
         !memcmp(m->exif, exif, exif_size) && m->n_texts == 2 &&
         !strcmp(m->texts[0].keyword, "Comment") && !m->texts[0].utf8 &&
         !strcmp(m->texts[0].text, "caf\xe9 latin-1") && m->texts[1].utf8 &&
         !strcmp(m->texts[1].text, "caf\xc3\xa9 utf-8");
    check(ok, "a PNG's ICC profile, EXIF and text are read", fv_last_error());
    if (!ok) {
        free(icc);
        return;
    }
    image_save_options o = IMAGE_SAVE_DEFAULTS;
    o.metadata = m;
    static const char *const endings[] = {"png", "jpg", "tif"};
    for (int k = 0; k < 3; k++) {
        char q[PATH_MAX], name[32];
        snprintf(name, sizeof name, "meta_out.%s", endings[k]);
        path_of(q, name);
        fv_image back;
        image_load_info again;
        int good = image_save_as(q, &img, &o, NULL) == FV_OK &&
                   image_load_native(q, NULL, &back, &again) == FV_OK;
        const image_metadata *b = &again.metadata;
        good = good && b->icc_size == icc_size && !memcmp(b->icc, icc, icc_size);
        if (k < 2) good = good && b->exif_size == exif_size && !memcmp(b->exif, exif, exif_size);
        if (k == 0)
            good = good && b->n_texts == 2 && !strcmp(b->texts[1].text, m->texts[1].text) &&
                   b->texts[1].utf8 && !strcmp(b->icc_name, "Test profile");
        char what[96];
        snprintf(what, sizeof what, "to %s%s", endings[k],
                 k == 0   ? " (ICC, EXIF, text)"
                 : k == 1 ? " (ICC, EXIF)"
                          : " (ICC)");
        check(good, "metadata carried", what);
        if (good) fv_host_image_free(&back), image_metadata_free(&again.metadata);
    }
    image_metadata copy;
    ok = image_metadata_copy(&copy, m) == FV_OK && copy.n_texts == 2 && copy.icc != m->icc &&
         !memcmp(copy.icc, icc, icc_size);
    check(ok, "image_metadata_copy copies deep", NULL);
    image_metadata_free(&copy);
    fv_host_image_free(&img);
    image_metadata_free(&info.metadata);

    /* a JPEG with orientation 6: turned once at load, its EXIF then says 1 */
    img = random_image(16, 8, FV_PIXEL_U8, 3);
    image_metadata turn = {0};
    uint8_t exif6[64];
    turn.exif = exif6;
    turn.exif_size = make_exif(exif6, 6);
    o.metadata = &turn;
    path_of(p, "turned.jpg");
    fv_image back;
    ok = image_save_as(p, &img, &o, NULL) == FV_OK &&
         image_load_native(p, NULL, &back, &info) == FV_OK && back.width == 8 &&
         back.height == 16 && info.metadata.exif_size == turn.exif_size &&
         info.metadata.exif[sizeof(uint8_t) * 18] == 1;
    check(ok, "a JPEG's EXIF orientation is applied once and then set to 1", NULL);
    if (ok) fv_host_image_free(&back), image_metadata_free(&info.metadata);
    fv_host_image_free(&img);
    free(icc);
}

/* ---- bad TIFFs ---- */

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v & 0xffff);
    put16(p + 2, v >> 16);
}

/* A little-endian TIFF header claiming w x h 8-bit gray, uncompressed, in one strip at 8. */
static size_t lying_tiff(uint8_t *t, uint32_t w, uint32_t h, uint16_t compression)
{
    memcpy(t, "II*\0", 4);
    const uint32_t ifd = 64;
    put32(t + 4, ifd);
    memset(t + 8, 0x55, 56);
    static const uint16_t tags[][2] = {{256, 4}, {257, 4}, {258, 3}, {259, 3}, {262, 3},
                                       {273, 4}, {277, 3}, {278, 4}, {279, 4}};
    const uint32_t values[] = {w, h, 8, compression, 1, 8, 1, h, 56};
    const int n = 9;
    put16(t + ifd, n);
    for (int i = 0; i < n; i++) {
        uint8_t *e = t + ifd + 2 + 12 * i;
        put16(e, tags[i][0]);
        put16(e + 2, tags[i][1]);
        put32(e + 4, 1);
        if (tags[i][1] == 3) {
            put16(e + 8, values[i]);
            put16(e + 10, 0);
        } else {
            put32(e + 8, values[i]);
        }
    }
    put32(t + ifd + 2 + 12 * n, 0);
    return ifd + 2 + 12 * n + 4;
}

static int stderr_to(const char *path, int *saved)
{
    fflush(stderr);
    *saved = dup(2);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || *saved < 0) return 0;
    dup2(fd, 2);
    close(fd);
    return 1;
}

static void stderr_back(int saved)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

static void test_bad_tiffs(void)
{
    char errs[PATH_MAX];
    path_of(errs, "stderr.txt");
    int saved;
    if (!stderr_to(errs, &saved)) {
        check(0, "stderr can be caught", NULL);
        return;
    }
    int refused = 0, cuts = 0, dirty = 0;
    char first_dirty[512] = "";
    /* every truncation of a few TIFFs of ours, and bytes flipped */
    for (int k = 0; k < 6; k++) { /* four TIFFs, then a 16-bit PNG and a 16-bit PPM */
        fv_image img = random_image(29, 21, k == 3 ? FV_PIXEL_F32 : FV_PIXEL_U16, k % 2 ? 3 : 4);
        char p[PATH_MAX];
        path_of(p, k < 4 ? "whole.tif" : k == 4 ? "whole.png" : "whole.ppm");
        image_save_options o = IMAGE_SAVE_DEFAULTS;
        o.tiff_compression = k < 2 ? IMAGE_TIFF_DEFLATE : IMAGE_TIFF_NONE;
        o.tiff_tile = k % 2 ? 16 : 0;
        image_save_as(p, &img, &o, NULL);
        size_t n;
        uint8_t *whole = read_bytes(p, &n);
        fv_host_image_free(&img);
        if (!whole) continue;
        path_of(p, "cut.tif"); /* told apart by its bytes, whatever the name says */
        for (size_t cut = 1; cut < n; cut += 1 + cut / 16) {
            write_bytes(p, whole, cut);
            fv_image out;
            cuts++;
            if (image_load_native(p, NULL, &out, NULL) == FV_OK) {
                fv_host_image_free(&out);
                continue;
            }
            refused++;
            const char *e = fv_last_error();
            if ((!message_is_clean(e) || !strstr(e, "cut.tif")) && !dirty++)
                snprintf(first_dirty, sizeof first_dirty, "%s", e);
        }
        uint32_t s = seed;
        for (int f = 0; f < 300; f++) {
            uint8_t *copy = malloc(n);
            memcpy(copy, whole, n);
            for (int b = 0; b < 4; b++)
                copy[test_rand(&s) % n] ^= (uint8_t)(1 + test_rand(&s) % 255);
            write_bytes(p, copy, n);
            free(copy);
            fv_image out;
            if (image_load_native(p, NULL, &out, NULL) == FV_OK) {
                fv_host_image_free(&out);
                continue;
            }
            const char *e = fv_last_error();
            if ((!message_is_clean(e) || !strstr(e, "cut.tif")) && !dirty++)
                snprintf(first_dirty, sizeof first_dirty, "%s", e);
        }
        free(whole);
    }
    /* lying headers: a small file claiming a huge image, uncompressed and deflated */
    uint8_t t[256];
    char p[PATH_MAX];
    path_of(p, "lying.tif");
    const uint16_t comps[] = {1, 8, 5};
    int lies_refused = 0;
    for (int i = 0; i < 3; i++) {
        size_t n = lying_tiff(t, 16000, 16000, comps[i]);
        write_bytes(p, t, n);
        fv_image out;
        if (image_load_native(p, NULL, &out, NULL) != FV_OK &&
            strstr(fv_last_error(), "can hold") && message_is_clean(fv_last_error()))
            lies_refused++;
        else if (fv_last_error()[0])
            printf("  lying TIFF %u: %s\n", comps[i], fv_last_error());
    }
    size_t n = lying_tiff(t, 40000, 2, 1);
    write_bytes(p, t, n);
    fv_image out;
    const int too_wide = image_load_native(p, NULL, &out, NULL) == FV_ERR_SIZE;
    stderr_back(saved);
    size_t err_bytes = 0;
    uint8_t *err = read_bytes(errs, &err_bytes);
    char msg[160];
    snprintf(msg, sizeof msg, "%d of %d truncations refused", refused, cuts);
    check(refused == cuts && !dirty,
          "cut TIFFs, 16-bit PNGs and PPMs refused in one clean line naming the file:",
          dirty ? first_dirty : msg);
    check(lies_refused == 3, "a small TIFF claiming 16000x16000 is refused before decoding", NULL);
    check(too_wide, "a TIFF 40000 wide is refused by its size", NULL);
    check(err_bytes == 0, "libtiff printed nothing on stderr", err_bytes ? (char *)err : NULL);
    free(err);
}

/* ---- files made by other writers (typed_images.py make) ---- */

static void test_fixtures(const char *fixtures)
{
    char in[PATH_MAX / 2];
    snprintf(in, sizeof in, "%s/in", fixtures);
    DIR *d = opendir(in);
    if (!d) {
        check(0, "the folder of independent files exists:", in);
        return;
    }
    int read_ok = 0, refused_ok = 0, total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *dot = strrchr(e->d_name, '.');
        if (!dot || (strcmp(dot, ".expect") && strcmp(dot, ".refuse"))) continue;
        const int want_refusal = !strcmp(dot, ".refuse");
        char stem[256], image[PATH_MAX], side[PATH_MAX];
        snprintf(stem, sizeof stem, "%.*s", (int)(dot - e->d_name), e->d_name);
        snprintf(side, sizeof side, "%s/%s", in, e->d_name);
        image[0] = 0;
        static const char *const exts[] = {".png", ".tif", ".pgm", ".ppm", ".bmp", ".jpg"};
        for (int k = 0; k < 6 && !image[0]; k++) {
            snprintf(image, sizeof image, "%s/%s%s", in, stem, exts[k]);
            if (access(image, R_OK) != 0) image[0] = 0;
        }
        total++;
        if (!image[0]) {
            check(0, "the fixture's image exists:", stem);
            continue;
        }
        fv_image got;
        image_load_info info;
        fv_status st = image_load_native(image, NULL, &got, &info);
        if (want_refusal) {
            size_t n;
            char *words = (char *)read_bytes(side, &n);
            if (words) words[n] = 0;
            int ok = st != FV_OK && words && strstr(fv_last_error(), words) &&
                     strstr(fv_last_error(), stem) && message_is_clean(fv_last_error());
            check(ok, "refused by name:", st == FV_OK ? stem : fv_last_error());
            refused_ok += ok;
            free(words);
            if (st == FV_OK) fv_host_image_free(&got), image_metadata_free(&info.metadata);
            continue;
        }
        fv_image want;
        if (!load_expect(side, &want)) {
            check(0, "the expectation reads:", side);
            if (st == FV_OK) fv_host_image_free(&got), image_metadata_free(&info.metadata);
            continue;
        }
        int ok = st == FV_OK && same_image(&got, &want);
        char what[PATH_MAX + 128];
        snprintf(what, sizeof what, "%s (%s)", stem,
                 st != FV_OK ? fv_last_error()
                 : got.type != want.type || got.channels != want.channels
                     ? "another type or channel count"
                     : "values differ");
        check(ok, "read exactly:", what);
        read_ok += ok;
        fv_host_image_free(&want);
        if (st == FV_OK) fv_host_image_free(&got), image_metadata_free(&info.metadata);
    }
    closedir(d);
    printf("%d files of other writers read exactly, %d refused by name, of %d\n", read_ok,
           refused_ok, total);
    check(total >= 50, "the independent files are there", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: test_image_io_typed SCRATCH_DIR [FIXTURES_DIR]\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s/image_io_typed", argv[1]);
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (argc == 3) {
        snprintf(ours, sizeof ours, "%s/ours", argv[2]);
        size_t n = strlen(cmd);
        snprintf(cmd + n, sizeof cmd - n, " && rm -rf '%s' && mkdir -p '%s'", ours, ours);
    }
    if (system(cmd) != 0) {
        test_check(&T, 0, "the scratch folders can be made:", dir);
        return test_finish(&T);
    }
    seed = test_seed();
    test_conversions();
    test_round_trips();
    test_jpeg_types();
    test_rgba8_path();
    test_metadata();
    test_bad_tiffs();
    if (argc == 3) test_fixtures(argv[2]);
    return test_finish(&T);
}
