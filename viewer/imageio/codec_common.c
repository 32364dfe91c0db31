/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/codec_common.c: what every codec shares: the checks on what a header claims, image
 * storage through the allocator, and writing a whole buffer to the output file. The floor of
 * imageio/: the codecs call it, it calls none of them.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
                       w < 1 || h < 1 ? "an image needs at least one pixel"
                                      : "too large for filterview");
    if (limit_width > 0 && !(w <= limit_width && h <= limit_height) &&
        !(h <= limit_width && w <= limit_height))
        return fv_fail(FV_ERR_SIZE, "'%s': %s header says %dx%d: larger than %dx%d", name, format,
                       w, h, limit_width, limit_height);
    const double pixels = (double)w * h;
    if (pixels > (double)CODEC_SMALL_PIXELS && pixels > (double)file_bytes * pixels_per_byte)
        return fv_fail(FV_ERR_FORMAT,
                       "'%s': %s header says %dx%d, more than a file of %zu bytes "
                       "can hold (truncated or forged)",
                       name, format, w, h, file_bytes);
    return FV_OK;
}

fv_status codec_alloc_image_as(const image_allocator *a, int width, int height, fv_pixel_type type,
                               int channels, fv_image *out)
{
    memset(out, 0, sizeof *out);
    if (!a) return fv_host_image_alloc_as(out, width, height, type, channels);
    FV_TRY(fv_check_dimensions(width, height));
    const size_t pitch = (size_t)width * (size_t)channels * fv_pixel_type_bytes(type);
    out->data = a->alloc(a->context, pitch * (size_t)height);
    if (!out->data)
        return fv_fail(FV_ERR_MEMORY, "out of host memory for a %dx%d image", width, height);
    out->width = width;
    out->height = height;
    out->pitch = pitch;
    out->memory = FV_MEMORY_HOST;
    out->type = type;
    out->channels = channels;
    return FV_OK;
}

fv_status codec_alloc_image(const image_allocator *a, int width, int height, fv_image *out)
{
    return codec_alloc_image_as(a, width, height, FV_PIXEL_U8, 4, out);
}

uint8_t *codec_dup(const char *name, const void *data, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    if (!p) {
        fv_fail(FV_ERR_MEMORY, "out of host memory reading '%s'", name);
        return NULL;
    }
    if (n) memcpy(p, data, n);
    return p;
}

void codec_describe(image_load_info *info, const char *format, fv_pixel_type type, int channels,
                    int bits)
{
    if (!info) return;
    info->format = format;
    info->file_type = type;
    info->file_channels = channels;
    info->file_bits = bits;
}

void image_metadata_free(image_metadata *m)
{
    if (!m) return;
    free(m->icc);
    free(m->exif);
    for (int i = 0; i < m->n_texts; i++) free(m->texts[i].text);
    free(m->texts);
    memset(m, 0, sizeof *m);
}

fv_status image_metadata_copy(image_metadata *dst, const image_metadata *src)
{
    memset(dst, 0, sizeof *dst);
    if (!src) return FV_OK;
    static const char name[] = "metadata";
    dst->pnm_maxval = src->pnm_maxval;
    memcpy(dst->icc_name, src->icc_name, sizeof dst->icc_name);
    if (src->icc && !(dst->icc = codec_dup(name, src->icc, src->icc_size))) goto fail;
    dst->icc_size = src->icc_size;
    if (src->exif && !(dst->exif = codec_dup(name, src->exif, src->exif_size))) goto fail;
    dst->exif_size = src->exif_size;
    if (src->n_texts > 0) {
        dst->texts = calloc((size_t)src->n_texts, sizeof *dst->texts);
        if (!dst->texts) goto fail;
        for (int i = 0; i < src->n_texts; i++) {
            dst->texts[i] = src->texts[i];
            dst->texts[i].text =
                (char *)codec_dup(name, src->texts[i].text, src->texts[i].length + 1);
            if (!dst->texts[i].text) goto fail;
            dst->n_texts = i + 1;
        }
    }
    return FV_OK;
fail:
    image_metadata_free(dst);
    return fv_fail(FV_ERR_MEMORY, "out of host memory copying an image's metadata");
}

void codec_free_image(const image_allocator *a, fv_image *img)
{
    if (!a)
        fv_host_image_free(img);
    else if (img->data)
        a->release(a->context, img->data);
    memset(img, 0, sizeof *img);
}

fv_status codec_write_all(const char *name, int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EFBIG)
            return fv_fail(FV_ERR_IO, "cannot write '%s': %s (past the file size limit, ulimit -f)",
                           name, strerror(EFBIG));
        if (w <= 0)
            return fv_fail(FV_ERR_IO, "cannot write '%s': %s", name, strerror(w < 0 ? errno : EIO));
        p += w;
        n -= (size_t)w;
    }
    return FV_OK;
}
