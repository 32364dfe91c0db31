/* ------------------------------------------------------------------------------------------------
 * tests/fuzz/load_corpus.c (target fv_load_corpus): loads each file named on the command line
 * with the program's loader, as RGBA8 (image_load) and natively (image_load_native), and hands every decoded byte to write(2) on /dev/null
 * and to a printed checksum, so that memcheck sees any byte of an output that was never written
 * (a write of uninitialised bytes is reported, as is a branch on them). Files that are refused
 * are fine: it prints why. tests/fuzz/valgrind_corpus.sh runs it over the fuzzing corpus.
 * Exit 0 unless /dev/null cannot be opened or written.
 * ------------------------------------------------------------------------------------------------ */
#include "image_io.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fv_load_corpus FILE...\n");
        return 2;
    }
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0) {
        perror("/dev/null");
        return 1;
    }
    int status = 0;
    for (int i = 1; i < argc; i++)
        for (int native = 0; native < 2; native++) {
            fv_image img;
            fv_status st =
                native ? image_load_native(argv[i], NULL, &img, NULL) : image_load(argv[i], &img);
            const char *how = native ? "native" : "RGBA8";
            if (st != FV_OK) {
                printf("%s (%s): refused: %s\n", argv[i], how, fv_last_error());
                continue;
            }
            uint64_t sum = 1469598103934665603u; /* FNV-1a */
            const size_t n = (size_t)img.width * fv_image_pixel_bytes(&img);
            for (int y = 0; y < img.height; y++) {
                const uint8_t *row = img.data + (size_t)y * img.pitch;
                if (write(null, row, n) != (ssize_t)n) status = 1;
                for (size_t k = 0; k < n; k++) sum = (sum ^ row[k]) * 1099511628211u;
            }
            printf("%s (%s): %dx%d %s x%d, checksum %016llx\n", argv[i], how, img.width, img.height,
                   fv_pixel_type_name(img.type), fv_image_channels(&img), (unsigned long long)sum);
            fv_host_image_free(&img);
        }
    close(null);
    return status;
}
