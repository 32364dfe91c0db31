/* ------------------------------------------------------------------------------------------------
 * tests/fuzz/fuzz_image_load.c: libFuzzer harness for the image loader (viewer/imageio/image_io.c and
 * the decoders behind it). Each input is written to one temporary file and loaded through
 * image_load, as the program does; a success must give a size within the limits and pixels
 * that can all be read.
 * ------------------------------------------------------------------------------------------------ */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/fv_fuzz_image_%ld", (long)getpid());
        atexit(remove_temp);
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    fv_image img;
    if (image_load(path, &img) == FV_OK) {
        if (img.width < 1 || img.height < 1 || img.width > FV_MAX_DIMENSION ||
            img.height > FV_MAX_DIMENSION)
            abort();
        unsigned sum = 0; /* every byte readable (ASan) and initialised (the result is used) */
        for (int y = 0; y < img.height; y++)
            for (size_t x = 0; x < (size_t)img.width * 4; x++)
                sum += img.data[(size_t)y * img.pitch + x];
        if (sum == 0xdeadbeef) fprintf(stderr, "%u\n", sum);
        fv_host_image_free(&img);
    }
    return 0;
}
