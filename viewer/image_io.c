/* ------------------------------------------------------------------------------------------------
 * viewer/image_io.c: image files in and out through stb (Debian's libstb). Input errors are
 * told apart before decoding: missing, directory, empty, unknown format, bad dimensions.
 * ------------------------------------------------------------------------------------------------ */
#include "image_io.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>
#include <stb_image_write.h>

/* Width and height from a PNG's IHDR, read before stb sees the file, so that a zero or absurd
 * size gets its own message rather than stb's generic refusal. 0 when f is no PNG. */
static int png_peek_size(FILE *f, long *width, long *height)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char head[24];
    size_t n = fread(head, 1, sizeof head, f);
    rewind(f);
    if (n < sizeof head || memcmp(head, signature, 8) != 0 || memcmp(head + 12, "IHDR", 4) != 0)
        return 0;
    *width = (long)head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
    *height = (long)head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
    return 1;
}

fv_status image_load(const char *path, fv_image *out)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) != 0) return fv_fail(FV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode)) return fv_fail(FV_ERR_IO, "'%s' is a directory, not an image", path);
    if (st.st_size == 0) return fv_fail(FV_ERR_FORMAT, "'%s' is empty", path);
    FILE *f = fopen(path, "rb");
    if (!f) return fv_fail(FV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    long png_w = 0, png_h = 0;
    if (png_peek_size(f, &png_w, &png_h)) {
        fv_status s = fv_check_dimensions(png_w > FV_MAX_DIMENSION ? FV_MAX_DIMENSION + 1 : (int)png_w,
                                          png_h > FV_MAX_DIMENSION ? FV_MAX_DIMENSION + 1 : (int)png_h);
        if (s != FV_OK) {
            fclose(f);
            return fv_fail(s, "'%s': PNG header says %ldx%ld: %s", path, png_w, png_h,
                           png_w < 1 || png_h < 1 ? "an image needs at least one pixel"
                                                  : "too large for filterview");
        }
    }
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_file(f, &w, &h, &channels)) {
        fclose(f);
        return fv_fail(FV_ERR_FORMAT, "'%s' is not an image filterview can read (%s)", path,
                       stbi_failure_reason());
    }
    fv_status s = fv_check_dimensions(w, h);
    if (s != FV_OK) {
        fclose(f);
        return fv_fail(s, "'%s': %s", path, fv_last_error());
    }
    uint8_t *pixels = stbi_load_from_file(f, &w, &h, &channels, 4);
    fclose(f);
    if (!pixels)
        return fv_fail(FV_ERR_FORMAT, "'%s' is corrupt or truncated (%s)", path,
                       stbi_failure_reason());
    out->data = pixels;  /* stbi_image_free is free() in Debian's libstb */
    out->width = w;
    out->height = h;
    out->pitch = (size_t)w * 4;
    return FV_OK;
}

fv_status image_check_output_path(const char *path)
{
    size_t n = strlen(path);
    if (n < 5 || strcasecmp(path + n - 4, ".png") != 0)
        return fv_fail(FV_ERR_ARG, "output '%s' must end in .png (filterview writes PNG)", path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return fv_fail(FV_ERR_IO, "cannot write '%s': it is a directory", path);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) dir[1] = 0;
    else if (slash) *slash = 0;
    else snprintf(dir, sizeof dir, ".");
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return fv_fail(FV_ERR_IO, "cannot write '%s': directory '%s' does not exist", path, dir);
    if (access(dir, W_OK) != 0)
        return fv_fail(FV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return FV_OK;
}

typedef struct png_sink {
    FILE *file;
    int failed;
} png_sink;

static void png_sink_write(void *context, void *data, int size)
{
    png_sink *sink = context;
    if (!sink->failed && fwrite(data, 1, (size_t)size, sink->file) != (size_t)size) sink->failed = 1;
}

fv_status image_save_png(const char *path, const fv_image *img)
{
    FV_TRY(image_check_output_path(path));
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    png_sink sink = {fopen(tmp, "wb"), 0};
    if (!sink.file) return fv_fail(FV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    int ok = stbi_write_png_to_func(png_sink_write, &sink, img->width, img->height, 4, img->data,
                                    (int)img->pitch);
    int saved_errno = errno;
    if (fclose(sink.file) != 0) sink.failed = 1;
    if (!ok || sink.failed) {
        unlink(tmp);
        return fv_fail(FV_ERR_IO, "cannot write '%s': %s", path,
                       ok ? strerror(saved_errno) : "PNG encoder failed");
    }
    if (rename(tmp, path) != 0) {
        saved_errno = errno;
        unlink(tmp);
        return fv_fail(FV_ERR_IO, "cannot write '%s': %s", path, strerror(saved_errno));
    }
    return FV_OK;
}
