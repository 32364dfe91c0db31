/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/codec_common.c: what every decoder shares (the checks on what a header claims,
 * image storage) and our own PNM reader (P2/P3 text, P5/P6 binary, 8- and 16-bit samples scaled
 * to 8). The BMP reader is bmp.c beside it. Checked by tests/cpu/test_image_io.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <stdlib.h>
#include <string.h>

/* one load at a time per thread: the codecs run on the thread that called image_load_limited */
static _Thread_local int limit_width, limit_height;

void codec_set_limit(int max_width, int max_height)
{
    limit_width = max_width;
    limit_height = max_height;
}

fv_status codec_check_claim(const char *name, const char *format, long width, long height,
                            size_t file_bytes, double pixels_per_byte)
{
    int w = width > FV_MAX_DIMENSION ? FV_MAX_DIMENSION + 1 : width < 0 ? 0 : (int)width;
    int h = height > FV_MAX_DIMENSION ? FV_MAX_DIMENSION + 1 : height < 0 ? 0 : (int)height;
    if (fv_check_dimensions(w, h) != FV_OK)
        return fv_fail(FV_ERR_SIZE, "'%s': %s header says %ldx%ld: %s", name, format, width, height,
                       w < 1 || h < 1 ? "an image needs at least one pixel" : "too large for filterview");
    if (limit_width > 0 && !(w <= limit_width && h <= limit_height) && !(h <= limit_width && w <= limit_height))
        return fv_fail(FV_ERR_SIZE, "'%s': %s header says %dx%d: larger than %dx%d", name, format, w, h,
                       limit_width, limit_height);
    const double pixels = (double)w * h;
    if (pixels > (double)CODEC_SMALL_PIXELS && pixels > (double)file_bytes * pixels_per_byte)
        return fv_fail(FV_ERR_FORMAT, "'%s': %s header says %dx%d, more than a file of %zu bytes "
                       "can hold (truncated or forged)", name, format, w, h, file_bytes);
    return FV_OK;
}

fv_status codec_alloc_image(const image_allocator *a, int width, int height, fv_image *out)
{
    memset(out, 0, sizeof *out);
    if (!a) return fv_host_image_alloc(out, width, height);
    FV_TRY(fv_check_dimensions(width, height));
    out->data = a->alloc(a->context, (size_t)width * 4 * (size_t)height);
    if (!out->data) return fv_fail(FV_ERR_MEMORY, "out of host memory for a %dx%d image", width, height);
    out->width = width;
    out->height = height;
    out->pitch = (size_t)width * 4;
    return FV_OK;
}

void codec_free_image(const image_allocator *a, fv_image *img)
{
    if (!a) fv_host_image_free(img);
    else if (img->data) a->release(a->context, img->data);
    memset(img, 0, sizeof *img);
}

/* ---- PNM ---- */

typedef struct pnm_reader {
    const uint8_t *d;
    size_t n, i;
} pnm_reader;

static int pnm_space(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

/* The next header number (comments skipped); -1 when there is none or it is out of 0..limit. */
static long pnm_number(pnm_reader *r, long limit)
{
    for (;;) {
        while (r->i < r->n && pnm_space(r->d[r->i])) r->i++;
        if (r->i < r->n && r->d[r->i] == '#') {
            while (r->i < r->n && r->d[r->i] != '\n' && r->d[r->i] != '\r') r->i++;
            continue;
        }
        break;
    }
    if (r->i >= r->n || r->d[r->i] < '0' || r->d[r->i] > '9') return -1;
    long v = 0;
    while (r->i < r->n && r->d[r->i] >= '0' && r->d[r->i] <= '9') {
        v = v * 10 + (r->d[r->i++] - '0');
        if (v > limit) return -1;
    }
    return v;
}

fv_status codec_pnm_decode(const char *name, const uint8_t *data, size_t size,
                           const image_allocator *a, fv_image *out)
{
    pnm_reader r = {data, size, 2};
    const int kind = data[1] - '0';   /* 2, 3: text; 5, 6: binary */
    const int channels = kind == 3 || kind == 6 ? 3 : 1;
    long w = pnm_number(&r, 1L << 30), h = pnm_number(&r, 1L << 30), maxval = pnm_number(&r, 65535);
    if (w < 0 || h < 0 || maxval < 1)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNM: bad header)", name);
    const int sample_bytes = maxval > 255 ? 2 : 1;
    const int binary = kind >= 5;
    /* text needs a digit and a separator per sample */
    const double per_byte = binary ? 1.0 / (channels * sample_bytes) : 1.0 / (2.0 * channels);
    FV_TRY(codec_check_claim(name, "PNM", w, h, size, per_byte));
    const size_t samples = (size_t)w * (size_t)h * channels;
    if (binary) {
        if (r.i >= size || !pnm_space(data[r.i]))
            return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNM: bad header)", name);
        r.i++;
        if (size - r.i < samples * sample_bytes)
            return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNM: %zu bytes of pixels, "
                           "%zu needed)", name, size - r.i, samples * sample_bytes);
    }
    FV_TRY(codec_alloc_image(a, (int)w, (int)h, out));
    for (size_t p = 0; p < (size_t)w * (size_t)h; p++) {
        uint8_t *px = out->data + 4 * p;
        for (int c = 0; c < channels; c++) {
            long v;
            if (!binary) {
                v = pnm_number(&r, 65535);
                if (v < 0 || v > maxval) {
                    codec_free_image(a, out);
                    return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (PNM: sample %zu is "
                                   "missing or above the maximum %ld)", name, p * channels + c, maxval);
                }
            } else if (sample_bytes == 2) {
                v = data[r.i] << 8 | data[r.i + 1];
                r.i += 2;
                if (v > maxval) v = maxval;
            } else {
                v = data[r.i++];
                if (v > maxval) v = maxval;
            }
            px[c] = (uint8_t)((v * 255 + maxval / 2) / maxval);
        }
        if (channels == 1) px[1] = px[2] = px[0];
        px[3] = 255;
    }
    return FV_OK;
}
