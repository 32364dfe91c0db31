/* ------------------------------------------------------------------------------------------------
 * tests/fuzz/fuzz_image_load.c: libFuzzer harness for the image loader (viewer/imageio/image_io.c and
 * the decoders behind it, TIFF through libtiff included). Each input is written to one temporary
 * file and loaded twice: through image_load, as the program does today (RGBA8), and through
 * image_load_native (the file's own type and channels, and its metadata). A success must give a
 * size within the limits, a layout the library knows, and pixels that can all be read. The GPU
 * JPEG codec's header checks (codec_jpeg_inspect) run on the bytes too: a file they hand to the
 * GPU must have a size within the limits, one or three components and an EXIF orientation.
 * ------------------------------------------------------------------------------------------------ */
#include "codec.h"
#include "image_io.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void remove_temp(void)
{
    unlink(path);
}

/* A size within the limits and every byte of the rows readable (ASan) and initialised (the
 * result is used). */
static void touch(const fv_image *img)
{
    if (img->width < 1 || img->height < 1 || img->width > FV_MAX_DIMENSION ||
        img->height > FV_MAX_DIMENSION)
        abort();
    unsigned sum = 0;
    const size_t row = (size_t)img->width * fv_image_pixel_bytes(img);
    for (int y = 0; y < img->height; y++)
        for (size_t x = 0; x < row; x++) sum += img->data[(size_t)y * img->pitch + x];
    if (sum == 0xdeadbeef) fprintf(stderr, "%u\n", sum);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    image_load_info info_gpu = {0};
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fv_fuzz_image_%ld", (long)getpid());
        atexit(remove_temp);
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    codec_jpeg_header h;
    if (codec_jpeg_inspect("fuzz.jpg", data, size, &h, &info_gpu) == FV_OK) {
        if (h.fit != CODEC_JPEG_CPU_ONLY &&
            (h.width < 1 || h.height < 1 || h.width > FV_MAX_DIMENSION ||
             h.height > FV_MAX_DIMENSION || (h.components != 1 && h.components != 3) ||
             h.orientation < 1 || h.orientation > 8))
            abort();
        image_metadata_free(&info_gpu.metadata);
    }
    fv_image img;
    if (image_load(path, &img) == FV_OK) {
        if (img.type != FV_PIXEL_U8 || fv_image_channels(&img) != 4) abort();
        touch(&img);
        fv_host_image_free(&img);
    }
    image_load_info info;
    if (image_load_native(path, NULL, &img, &info) == FV_OK) {
        const int c = fv_image_channels(&img);
        if ((unsigned)img.type >= FV_PIXEL_TYPE_COUNT || (c != 1 && c != 3 && c != 4)) abort();
        touch(&img);
        const image_metadata *m = &info.metadata;
        unsigned sum = 0;
        for (size_t i = 0; i < m->icc_size; i++) sum += m->icc[i];
        for (size_t i = 0; i < m->exif_size; i++) sum += m->exif[i];
        for (int t = 0; t < m->n_texts; t++) sum += (unsigned)strlen(m->texts[t].text);
        if (sum == 0xdeadbeef) fprintf(stderr, "%u\n", sum);
        image_metadata_free(&info.metadata);
        fv_host_image_free(&img);
    }
    return 0;
}
