/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/pnm.c: our own PNM reader and writer. In: P2/P3 text, P5/P6 binary, 8- and
 * 16-bit; natively the samples as stored (uint8 for maxval <= 255, else uint16; gray 1 channel,
 * colour 3), the maxval recorded in the metadata, since no scaling to 65535 is exact for a
 * maxval such as 4095; as RGBA8, scaled to 0..255 and rounded. A binary sample above maxval is
 * read as maxval. Out: P5 (gray) or P6 (RGB), binary, maxval 255 (uint8), 65535 (uint16) or the
 * one given (an input's, when every sample fits under it).
 * Checked by tests/cpu/test_image_io.c and tests/cpu/test_image_io_typed.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pnm_reader {
    const uint8_t *d;
    size_t n, i;
} pnm_reader;

static int pnm_space(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

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
                           const image_allocator *a, codec_want want, fv_image *out,
                           image_load_info *info)
{
    memset(out, 0, sizeof *out);
    pnm_reader r = {data, size, 2};
    const int kind = data[1] - '0'; /* 2, 3: text; 5, 6: binary */
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
            return fv_fail(FV_ERR_FORMAT,
                           "'%s' is corrupt or truncated (PNM: %zu bytes of pixels, "
                           "%zu needed)",
                           name, size - r.i, samples * sample_bytes);
    }
    const int native = want == CODEC_NATIVE;
    const fv_pixel_type type = sample_bytes == 2 ? FV_PIXEL_U16 : FV_PIXEL_U8;
    FV_TRY(native ? codec_alloc_image_as(a, (int)w, (int)h, type, channels, out)
                  : codec_alloc_image(a, (int)w, (int)h, out));
    for (size_t p = 0; p < (size_t)w * (size_t)h; p++) {
        uint8_t *px = out->data + 4 * p;
        for (int c = 0; c < channels; c++) {
            long v;
            if (!binary) {
                v = pnm_number(&r, 65535);
                if (v < 0 || v > maxval) {
                    codec_free_image(a, out);
                    return fv_fail(FV_ERR_FORMAT,
                                   "'%s' is corrupt or truncated (PNM: sample %zu is "
                                   "missing or above the maximum %ld)",
                                   name, p * channels + c, maxval);
                }
            } else if (sample_bytes == 2) {
                v = data[r.i] << 8 | data[r.i + 1];
                r.i += 2;
                if (v > maxval) v = maxval;
            } else {
                v = data[r.i++];
                if (v > maxval) v = maxval;
            }
            const size_t at = p * (size_t)channels + (size_t)c;
            if (!native) {
                px[c] = (uint8_t)((v * 255 + maxval / 2) / maxval);
            } else if (type == FV_PIXEL_U16) {
                const uint16_t u = (uint16_t)v;
                memcpy(out->data + 2 * at, &u, 2);
            } else {
                out->data[at] = (uint8_t)v;
            }
        }
        if (native) continue;
        if (channels == 1) px[1] = px[2] = px[0];
        px[3] = 255;
    }
    if (info) {
        int bits = 1;
        while ((1L << bits) - 1 < maxval) bits++;
        codec_describe(info, "PNM", type, channels, bits);
        info->metadata.pnm_maxval = (unsigned)maxval;
        if (!native && maxval > 255) {
            info->lossy_to_8bit = 1;
            snprintf(info->lossy_note, sizeof info->lossy_note,
                     "'%s': %d-bit PNM read as 8-bit (scaled from %ld to 255)", name, bits, maxval);
        }
    }
    return FV_OK;
}

fv_status codec_pnm_encode(const char *name, int fd, const fv_image *img, unsigned maxval)
{
    const int channels = fv_image_channels(img), deep = img->type == FV_PIXEL_U16;
    char head[64];
    const int n = snprintf(head, sizeof head, "P%c\n%d %d\n%u\n", channels == 1 ? '5' : '6',
                           img->width, img->height, maxval);
    FV_TRY(codec_write_all(name, fd, head, (size_t)n));
    const size_t row_bytes = (size_t)img->width * (size_t)channels * (deep ? 2 : 1);
    uint8_t *row = malloc(row_bytes);
    if (!row) return fv_fail(FV_ERR_MEMORY, "out of host memory writing '%s'", name);
    fv_status s = FV_OK;
    for (int y = 0; y < img->height && s == FV_OK; y++) {
        const uint8_t *src = img->data + (size_t)y * img->pitch;
        if (!deep) {
            memcpy(row, src, row_bytes);
        } else {
            for (size_t i = 0; i < row_bytes / 2; i++) { /* PNM is big-endian */
                uint16_t v;
                memcpy(&v, src + 2 * i, 2);
                row[2 * i] = (uint8_t)(v >> 8);
                row[2 * i + 1] = (uint8_t)v;
            }
        }
        s = codec_write_all(name, fd, row, row_bytes);
    }
    free(row);
    return s;
}
