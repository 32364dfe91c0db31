/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/pnm.c: our own PNM reader: P2/P3 text, P5/P6 binary, 8- and 16-bit samples scaled
 * to 8. Checked by tests/cpu/test_image_io.c.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

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
                           const image_allocator *a, fv_image *out)
{
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
    FV_TRY(codec_alloc_image(a, (int)w, (int)h, out));
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
            px[c] = (uint8_t)((v * 255 + maxval / 2) / maxval);
        }
        if (channels == 1) px[1] = px[2] = px[0];
        px[3] = 255;
    }
    return FV_OK;
}
