/* ------------------------------------------------------------------------------------------------
 * tests/make_fixtures.c: writes the files the CLI tests feed to filterview into a folder: a good
 * random PNG (odd size), and one bad input of each kind: empty, text, truncated PNG, corrupt PNG
 * (valid header, garbage data), PNG headers claiming 0 and absurd dimensions; a JPEG turned by
 * EXIF (orientation 6), a 16-bit PPM, a JPEG header claiming 16000x16000 in a few KB; and a folder
 * batch/ for many-file runs: three good images (PNG, JPEG, 16-bit PPM), two bad ones, a text file.
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include <stb_image_write.h>
#include <errno.h>
#include <sys/stat.h>

static uint32_t crc32_png(const uint8_t *buf, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= buf[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
    }
    return c ^ 0xffffffffu;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static int write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "make_fixtures: cannot write %s\n", path);
        return 0;
    }
    return 1;
}

/* PNG signature + IHDR (w x h, 8-bit RGBA) + an IDAT of `idat_len` garbage bytes + IEND. */
static size_t png_header(uint8_t *out, uint32_t w, uint32_t h, size_t idat_len)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    size_t n = 0;
    memcpy(out, sig, 8);
    n = 8;
    put32(out + n, 13);
    memcpy(out + n + 4, "IHDR", 4);
    put32(out + n + 8, w);
    put32(out + n + 12, h);
    out[n + 16] = 8; /* bit depth */
    out[n + 17] = 6; /* RGBA */
    out[n + 18] = out[n + 19] = out[n + 20] = 0;
    put32(out + n + 21, crc32_png(out + n + 4, 17));
    n += 25;
    put32(out + n, (uint32_t)idat_len);
    memcpy(out + n + 4, "IDAT", 4);
    for (size_t i = 0; i < idat_len; i++) out[n + 8 + i] = (uint8_t)(i * 37 + 11);
    put32(out + n + 8 + idat_len, crc32_png(out + n + 4, idat_len + 4));
    n += 12 + idat_len;
    put32(out + n, 0);
    memcpy(out + n + 4, "IEND", 4);
    put32(out + n + 8, crc32_png(out + n + 4, 4));
    return n + 12;
}

static void jpeg_sink(void *context, void *data, int size)
{
    uint8_t **at = context;
    memcpy(*at, data, (size_t)size);
    *at += size;
}

/* A binary 16-bit PPM of img's RGB (each 8-bit value v written as v * 257). */
static size_t ppm16(const fv_image *img, uint8_t *out)
{
    size_t n = (size_t)sprintf((char *)out, "P6\n%d %d\n65535\n", img->width, img->height);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < 3; c++) {
                uint8_t v = img->data[(size_t)y * img->pitch + 4 * x + c];
                out[n++] = v;
                out[n++] = v;
            }
    return n;
}

static int more_fixtures(const char *dir, const fv_image *img, uint8_t *buf, size_t cap)
{
    /* a JPEG with an EXIF APP1 saying "turn a quarter clockwise" (orientation 6) */
    uint8_t *at = buf + 64;
    if (!stbi_write_jpg_to_func(jpeg_sink, &at, img->width, img->height, 4, img->data, 90))
        return 0;
    size_t jpeg_len = (size_t)(at - (buf + 64));
    static const uint8_t exif[] = {0xff, 0xe1, 0, 34, 'E', 'x', 'i', 'f', 0,    0,    'M', 'M',
                                   0,    42,   0, 0,  0,   8,   0,   1,   0x01, 0x12, 0,   3,
                                   0,    0,    0, 1,  0,   6,   0,   0,   0,    0,    0,   0};
    uint8_t *exif_jpeg = malloc(jpeg_len + sizeof exif);
    memcpy(exif_jpeg, buf + 64, 2);
    memcpy(exif_jpeg + 2, exif, sizeof exif);
    memcpy(exif_jpeg + 2 + sizeof exif, buf + 66, jpeg_len - 2);
    int ok = write_file(dir, "exif6.jpg", exif_jpeg, jpeg_len + sizeof exif);
    /* the same JPEG claiming 16000x16000 (SOF0 height and width) */
    memcpy(exif_jpeg, buf + 64, jpeg_len);
    for (size_t i = 2; i + 9 < jpeg_len; i++)
        if (exif_jpeg[i] == 0xff && exif_jpeg[i + 1] == 0xc0) {
            exif_jpeg[i + 5] = exif_jpeg[i + 7] = 16000 >> 8;
            exif_jpeg[i + 6] = exif_jpeg[i + 8] = 16000 & 0xff;
            break;
        }
    ok = ok && write_file(dir, "bomb.jpg", exif_jpeg, jpeg_len);
    uint8_t *ppm = malloc(64 + (size_t)img->width * img->height * 6);
    size_t ppm_len = ppm16(img, ppm);
    ok = ok && write_file(dir, "deep.ppm", ppm, ppm_len);

    /* batch/: good1.png good2.jpg good3.ppm, bad truncated.jpg and bad.jpg, notes.txt (no image) */
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/batch", dir);
    if (mkdir(sub, 0777) != 0 && errno != EEXIST) return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/good1.png", sub);
    ok = ok && stbi_write_png(path, img->width, img->height, 4, img->data, (int)img->pitch);
    ok = ok && write_file(sub, "good2.jpg", buf + 64, jpeg_len);
    ok = ok && write_file(sub, "good3.ppm", ppm, ppm_len);
    ok = ok && write_file(sub, "truncated.jpg", buf + 64, jpeg_len / 2 < 100 ? jpeg_len / 2 : 100);
    ok = ok && write_file(sub, "bad.jpg", "\xff\xd8\xff\xe0 not really", 16);
    ok = ok && write_file(sub, "notes.txt", "not an image\n", 13);
    free(exif_jpeg);
    free(ppm);
    (void)cap;
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_fixtures DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    uint32_t seed = 12345;
    fv_image img;
    fv_host_image_alloc(&img, 37, 23);
    test_fill_random(&img, &seed);
    char path[4096];
    snprintf(path, sizeof path, "%s/good.png", dir);
    if (!stbi_write_png(path, img.width, img.height, 4, img.data, (int)img.pitch)) return 1;

    /* truncated: the good PNG cut in half */
    FILE *f = fopen(path, "rb");
    static uint8_t buf[1 << 16];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f) fclose(f);
    int ok = n > 100 && write_file(dir, "truncated.png", buf, n / 2);
    ok = ok && write_file(dir, "empty.png", "", 0);
    ok = ok && write_file(dir, "notes.txt", "this is not an image\n", 21);
    n = png_header(buf, 37, 23, 64);
    ok = ok && write_file(dir, "corrupt.png", buf, n);
    n = png_header(buf, 0, 23, 16);
    ok = ok && write_file(dir, "zero.png", buf, n);
    n = png_header(buf, 100000, 100000, 16);
    ok = ok && write_file(dir, "huge.png", buf, n);
    n = png_header(buf, 30000, 30000, 16); /* each side allowed, 900 Mpixels in all are not */
    ok = ok && write_file(dir, "absurd.png", buf, n);
    ok = ok && more_fixtures(dir, &img, buf, sizeof buf);
    fv_host_image_free(&img);
    return ok ? 0 : 1;
}
