/* ------------------------------------------------------------------------------------------------
 * tests/gpu/jpeg_gpu_check.c: the GPU JPEG codec (viewer/imageio/jpeg_gpu.cu) against the CPU one
 * (libjpeg-turbo, viewer/imageio/jpeg.c) on a corpus made here from smooth random photos (seed
 * printed): every sampling nvJPEG names (4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, gray), two
 * qualities, odd sizes, 1x1, one 12-Mpixel image, every EXIF orientation, a progressive file.
 *
 * Decode: the upright size and the pixels against the CPU codec's: 4:4:4 and gray within 1 (the
 * IDCTs' rounding), progressive within 3; subsampled files within 4 and a mean difference under 0.5 (chroma upsampling:
 * libjpeg-turbo interpolates, nvJPEG may replicate), the largest difference printed per file.
 * The decoder that ran: the hardware one for baseline files where the GPU has it, the hybrid one
 * for the progressive and 4:1:1 files. CMYK: FV_ERR_UNSUPPORTED (the CPU codec's file); a forged
 * size: refused with the CPU reader's reason, not handed to the CPU codec; truncated and garbled
 * files: a status, no crash, a truncated progressive file never a failure of the GPU codec (a
 * stream nvJPEG finds damaged is the CPU codec's), and both decoders decode good files after
 * them (a failed batch resets the hardware decoder's state). Encode: a device image encoded by nvJPEG at quality 90, decoded by the
 * CPU codec, within 1 dB (PSNR against the source) of TurboJPEG's encode at the same quality; a
 * gray image encoded as a one-component JPEG. In flight (the folder batch's way): JPEG_GPU_SLOTS
 * codecs (one and its peers) on as many streams, the corpus queued across them, each image equal
 * to the single codec's decode; an image encoded twice, and by a peer, gives the same bytes.
 * Exits 77 without a CUDA device.
 *   jpeg_gpu_check                 the checks
 *   jpeg_gpu_check --corpus DIR    writes the corpus into DIR (no GPU needed): a folder batch's
 *   jpeg_gpu_check --photos DIR N WxH   N smooth photos of WxH, 4:2:0 quality 90, for timings
 *   jpeg_gpu_check --decode-bench DIR [SLOTS]   nvJPEG's decode alone over DIR's .jpg files,
 *                                  read into memory first, through SLOTS slots (the folder
 *                                  batch's count by default), a thread each: images/s
 * FV_JPEG_QUICK=1 leaves out the 12-Mpixel image (under compute-sanitizer).
 * ------------------------------------------------------------------------------------------------ */
#include "test_jpeg.h"
#include "test_util.h"

#include "image_io.h"
#include "jpeg_gpu.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <turbojpeg.h>
#include <unistd.h>

#define SUBSAMPLED_MAX_DIFF  4
#define SUBSAMPLED_MEAN_DIFF 0.5
#define FULL_MAX_DIFF        1
/* a progressive file's coefficients arrive in refinement passes and nvJPEG's hybrid decoder
 * rounds its IDCT otherwise than libjpeg-turbo's progressive path: a level in each of Y, Cb and
 * Cr, which the colour conversion makes up to 1 + 1.772 (B from Y and Cb) < 3 levels of RGB
 * (H200: max 2 on one pixel of 14,000 values, mean 0.015; 3 with another seed's image, mean
 * 0.021), and the mean bound of the subsampled files */
#define PROGRESSIVE_MAX_DIFF 3
#define ENCODE_PSNR_SLACK_DB 1.0
#define DECODE_BENCH_MAX_SLOTS 16

static test_counts T;
static uint32_t seed;

/* A smooth photo-like RGBA image: per channel a product of low-frequency waves along x and y
 * (tabled: 100 12-Mpixel photos are made in seconds), and a little noise. */
static void smooth_photo(fv_image *img, int w, int h)
{
    fv_host_image_alloc(img, w, h);
    double *wave_x = malloc(3 * sizeof(double) * (size_t)w),
           *wave_y = malloc(3 * sizeof(double) * (size_t)h);
    for (int c = 0; c < 3; c++) {
        const double fx = 0.002 + (test_rand(&seed) % 1000) * 2e-5,
                     fy = 0.002 + (test_rand(&seed) % 1000) * 2e-5,
                     phase = (test_rand(&seed) % 628) / 100.0;
        for (int x = 0; x < w; x++) wave_x[3 * x + c] = sin(fx * x * 6.283 + phase);
        for (int y = 0; y < h; y++) wave_y[3 * y + c] = cos(fy * y * 6.283);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint8_t *p = img->data + (size_t)y * img->pitch + 4 * (size_t)x;
            const uint32_t noise = test_rand(&seed);
            for (int c = 0; c < 3; c++) {
                const double v = 128 + 90 * wave_x[3 * x + c] * wave_y[3 * y + c] +
                                 (double)((noise >> (8 * c)) % 7) - 3;
                p[c] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
            p[3] = 255;
        }
    free(wave_x);
    free(wave_y);
}

/* The CPU codec's decode as RGBA8 (gray widened). */
static fv_status cpu_decode(const uint8_t *data, size_t n, fv_image *rgba)
{
    fv_image native;
    FV_TRY(image_load_native_bytes("corpus.jpg", data, n, NULL, &native, NULL));
    fv_status s = image_convert(&native, FV_PIXEL_U8, 4, NULL, rgba, NULL);
    fv_host_image_free(&native);
    return s;
}

typedef struct corpus_file {
    char name[64];
    uint8_t *data;
    size_t size;
    int subsampled;  /* chroma upsampled: the looser bound */
    int progressive; /* refined in passes: PROGRESSIVE_MAX_DIFF */
    int hybrid;      /* only the hybrid decoder takes it */
    int cmyk;        /* the CPU codec's file */
    int any;         /* either decoder (1x1: the hardware one may decline so small a frame) */
} corpus_file;

static int make_corpus(corpus_file *c, int cap)
{
    static const struct {
        const char *name;
        int samp, subsampled, hybrid;
    } samp[] = {{"444", TJSAMP_444, 0, 0}, {"422", TJSAMP_422, 1, 0}, {"420", TJSAMP_420, 1, 0},
                {"440", TJSAMP_440, 1, 0}, {"411", TJSAMP_411, 1, 1}, {"gray", TJSAMP_GRAY, 0, 0}};
    static const int sizes[][2] = {{37, 23}, {640, 480}, {1, 1}};
    int n = 0;
    fv_image img;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        smooth_photo(&img, sizes[s][0], sizes[s][1]);
        for (size_t k = 0; k < sizeof samp / sizeof samp[0]; k++)
            for (int q = 75; q <= 95 && n < cap; q += 20) {
                corpus_file *f = &c[n++];
                memset(f, 0, sizeof *f);
                snprintf(f->name, sizeof f->name, "b%dx%d_%s_q%d.jpg", sizes[s][0], sizes[s][1],
                         samp[k].name, q);
                f->data = test_jpeg_encode(&img, TJPF_RGBA, samp[k].samp, q, 0, &f->size);
                f->subsampled = samp[k].subsampled;
                f->hybrid = samp[k].hybrid;
                f->any = sizes[s][0] * sizes[s][1] == 1;
            }
        fv_host_image_free(&img);
    }
    smooth_photo(&img, 41, 29);
    size_t base_n = 0;
    uint8_t *base = test_jpeg_encode(&img, TJPF_RGBA, TJSAMP_444, 90, 0, &base_n);
    for (int o = 1; o <= 8 && n < cap; o++) {
        corpus_file *f = &c[n++];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "exif%d.jpg", o);
        f->data = test_jpeg_with_exif(base, base_n, o, 0, &f->size);
    }
    free(base);
    if (n < cap) {
        corpus_file *f = &c[n++];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "progressive_444.jpg");
        f->data = test_jpeg_encode(&img, TJPF_RGBA, TJSAMP_444, 90, TJFLAG_PROGRESSIVE, &f->size);
        f->hybrid = 1;
        f->progressive = 1;
    }
    if (n < cap) {
        corpus_file *f = &c[n++];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "cmyk.jpg");
        f->data = test_jpeg_encode(&img, TJPF_CMYK, TJSAMP_444, 90, 0, &f->size);
        f->cmyk = 1;
    }
    fv_host_image_free(&img);
    const char *quick = getenv("FV_JPEG_QUICK");
    if (n < cap && !(quick && quick[0] == '1')) {
        smooth_photo(&img, 4000, 3000);
        corpus_file *f = &c[n++];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "photo_12mp_420.jpg");
        f->data = test_jpeg_encode(&img, TJPF_RGBA, TJSAMP_420, 90, 0, &f->size);
        f->subsampled = 1;
        fv_host_image_free(&img);
    }
    return n;
}

static int write_file(const char *dir, const char *name, const uint8_t *data, size_t n)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    const int ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static void check_decode(jpeg_gpu *g, const corpus_file *f, cudaStream_t stream)
{
    char what[256], detail[200] = "";
    fv_image dev = {0}, got = {0}, want = {0};
    jpeg_gpu_backend used = JPEG_GPU_BACKENDS;
    fv_status s = jpeg_gpu_decode(g, f->name, f->data, f->size, &dev, NULL, &used, stream);
    if (f->cmyk) {
        snprintf(what, sizeof what, "%.63s: not for the GPU codec (FV_ERR_UNSUPPORTED)", f->name);
        test_check(&T, s == FV_ERR_UNSUPPORTED, what, s == FV_OK ? "decoded" : fv_last_error());
        fv_device_image_free(&dev);
        return;
    }
    snprintf(what, sizeof what, "%.63s decodes on the GPU", f->name);
    test_check(&T, s == FV_OK, what, s == FV_OK ? NULL : fv_last_error());
    if (s != FV_OK) return;
    const jpeg_gpu_backend want_used =
        f->hybrid || !jpeg_gpu_has_hardware(g) ? JPEG_GPU_HYBRID : JPEG_GPU_HARDWARE;
    snprintf(what, sizeof what, "%.63s: decoder %s", f->name, jpeg_gpu_backend_name(want_used));
    test_check(&T, used == want_used || (f->any && used < JPEG_GPU_BACKENDS), what,
               jpeg_gpu_backend_name(used));
    fv_host_image_alloc(&got, dev.width, dev.height);
    s = fv_image_download(&got, &dev);
    fv_status cs = cpu_decode(f->data, f->size, &want);
    snprintf(what, sizeof what, "%.63s: the CPU codec's upright size", f->name);
    test_check(&T,
               s == FV_OK && cs == FV_OK && got.width == want.width && got.height == want.height,
               what, NULL);
    if (s == FV_OK && cs == FV_OK && got.width == want.width && got.height == want.height) {
        int fx, fy;
        const int limit = f->subsampled    ? SUBSAMPLED_MAX_DIFF
                          : f->progressive ? PROGRESSIVE_MAX_DIFF
                                           : FULL_MAX_DIFF;
        const int mean_bound = f->subsampled || f->progressive;
        const int worst = test_max_abs_diff(&got, &want, limit, &fx, &fy);
        double sum = 0;
        for (int y = 0; y < got.height; y++)
            for (int x = 0; x < 4 * got.width; x++)
                sum += abs((int)got.data[(size_t)y * got.pitch + x] -
                           (int)want.data[(size_t)y * want.pitch + x]);
        const double mean = sum / (4.0 * got.width * got.height);
        printf("%-28s %-10s max |GPU - libjpeg-turbo| %d, mean %.3f\n", f->name,
               jpeg_gpu_backend_name(used), worst, mean);
        snprintf(what, sizeof what, "%.63s: pixels within %d of libjpeg-turbo's%s", f->name, limit,
                 mean_bound ? ", mean under 0.5" : "");
        snprintf(detail, sizeof detail, "(max %d at %d,%d; mean %.3f)", worst, fx, fy, mean);
        test_check(&T, worst <= limit && (!mean_bound || mean < SUBSAMPLED_MEAN_DIFF), what,
                   detail);
    }
    fv_host_image_free(&got);
    fv_host_image_free(&want);
    fv_device_image_free(&dev);
}

static double psnr(const fv_image *a, const fv_image *b)
{
    double se = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++)
            for (int c = 0; c < 3; c++) {
                const double d = (double)a->data[(size_t)y * a->pitch + 4 * (size_t)x + c] -
                                 b->data[(size_t)y * b->pitch + 4 * (size_t)x + c];
                se += d * d;
            }
    const double mse = se / (3.0 * a->width * a->height);
    return mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : 99;
}

/* nvJPEG's encode, read back by the CPU codec, against TurboJPEG's at the same quality. */
static void check_encode(jpeg_gpu *g, cudaStream_t stream)
{
    fv_image src, dev = {0}, gpu_back = {0}, cpu_back = {0};
    smooth_photo(&src, 333, 251);
    fv_status s = fv_device_image_alloc(&dev, src.width, src.height);
    if (s == FV_OK) s = fv_image_upload(&dev, &src);
    FILE *tmp = tmpfile();
    if (s == FV_OK && !tmp) s = fv_fail(FV_ERR_IO, "no temporary file");
    if (s == FV_OK) s = jpeg_gpu_encode(g, "encoded.jpg", fileno(tmp), &dev, 90, 0, NULL, stream);
    test_check(&T, s == FV_OK, "nvJPEG encodes a 333x251 device image", s ? fv_last_error() : NULL);
    if (s == FV_OK) {
        fflush(tmp);
        const long n = ftell(tmp);
        uint8_t *bytes = malloc((size_t)n);
        rewind(tmp);
        const int read_ok = fread(bytes, 1, (size_t)n, tmp) == (size_t)n;
        size_t cpu_n = 0;
        uint8_t *cpu_bytes = test_jpeg_encode(&src, TJPF_RGBA, TJSAMP_420, 90, 0, &cpu_n);
        s = read_ok ? cpu_decode(bytes, (size_t)n, &gpu_back) : FV_ERR_IO;
        test_check(&T, s == FV_OK, "the GPU's JPEG decodes on the CPU", s ? fv_last_error() : NULL);
        if (s == FV_OK && cpu_decode(cpu_bytes, cpu_n, &cpu_back) == FV_OK) {
            const double p_gpu = psnr(&gpu_back, &src), p_cpu = psnr(&cpu_back, &src);
            char detail[128];
            snprintf(detail, sizeof detail,
                     "(nvJPEG %.2f dB, %ld bytes; TurboJPEG %.2f dB, %zu "
                     "bytes)",
                     p_gpu, n, p_cpu, cpu_n);
            printf("encode at quality 90: %s\n", detail);
            test_check(&T, p_gpu >= p_cpu - ENCODE_PSNR_SLACK_DB,
                       "nvJPEG's encode within 1 dB of TurboJPEG's at quality 90", detail);
        }
        free(bytes);
        free(cpu_bytes);
    }
    if (tmp) fclose(tmp);
    fv_host_image_free(&src);
    fv_host_image_free(&gpu_back);
    fv_host_image_free(&cpu_back);
    fv_device_image_free(&dev);
}

/* A gray image (R = G = B) encoded as one component: a gray JPEG, its luma the source's. */
static void check_encode_gray(jpeg_gpu *g, cudaStream_t stream)
{
    fv_image src, dev = {0}, back = {0}, native = {0};
    smooth_photo(&src, 129, 67);
    for (size_t i = 0; i < (size_t)src.width * src.height; i++)
        src.data[4 * i + 1] = src.data[4 * i + 2] = src.data[4 * i];
    fv_status s = fv_device_image_alloc(&dev, src.width, src.height);
    if (s == FV_OK) s = fv_image_upload(&dev, &src);
    FILE *tmp = tmpfile();
    if (s == FV_OK && !tmp) s = fv_fail(FV_ERR_IO, "no temporary file");
    if (s == FV_OK) s = jpeg_gpu_encode(g, "gray.jpg", fileno(tmp), &dev, 90, 1, NULL, stream);
    long n = 0;
    uint8_t *bytes = NULL;
    if (s == FV_OK) {
        fflush(tmp);
        n = ftell(tmp);
        bytes = malloc((size_t)n);
        rewind(tmp);
        if (fread(bytes, 1, (size_t)n, tmp) != (size_t)n) s = FV_ERR_IO;
    }
    if (s == FV_OK) s = image_load_native_bytes("gray.jpg", bytes, (size_t)n, NULL, &native, NULL);
    if (s == FV_OK) s = cpu_decode(bytes, (size_t)n, &back);
    char detail[96] = "";
    const double p = s == FV_OK ? psnr(&back, &src) : 0;
    snprintf(detail, sizeof detail, "(%d channels, %.2f dB)", s == FV_OK ? native.channels : 0, p);
    test_check(&T, s == FV_OK && native.channels == 1 && p > 30,
               "nvJPEG encodes a gray image as a gray JPEG (one component, over 30 dB)", detail);
    free(bytes);
    if (tmp) fclose(tmp);
    fv_host_image_free(&src);
    fv_host_image_free(&back);
    fv_host_image_free(&native);
    fv_device_image_free(&dev);
}

/* A forged size is refused as the CPU reader refuses it; damaged files fail with a status, and
 * the decoders decode good files after them. */
static void check_bad_files(jpeg_gpu *g, const corpus_file *good, const corpus_file *progressive,
                            cudaStream_t stream)
{
    fv_image dev = {0};
    uint8_t *forged = malloc(good->size);
    memcpy(forged, good->data, good->size);
    for (size_t i = 2; i + 9 < good->size; i++)
        if (forged[i] == 0xff && forged[i + 1] == 0xc0) {
            forged[i + 5] = forged[i + 7] = 0xea; /* 60000 x 60000 */
            forged[i + 6] = forged[i + 8] = 0x60;
            break;
        }
    fv_status s = jpeg_gpu_decode(g, "forged.jpg", forged, good->size, &dev, NULL, NULL, stream);
    test_check(&T, s != FV_OK && s != FV_ERR_UNSUPPORTED && strstr(fv_last_error(), "60000x60000"),
               "a forged 60000x60000 header refused with the CPU reader's reason",
               s == FV_OK ? "decoded" : fv_last_error());
    for (size_t cut = 4; cut < good->size; cut += good->size / 7 + 1) {
        jpeg_gpu_decode(g, "truncated.jpg", good->data, cut, &dev, NULL, NULL, stream);
    }
    memcpy(forged, good->data, good->size);
    for (size_t i = good->size / 2; i < good->size - 2; i += 3) forged[i] ^= 0x5a;
    /* the returned status is either; what counts is that it returns, and memcheck's verdict */
    jpeg_gpu_decode(g, "garbled.jpg", forged, good->size, &dev, NULL, NULL, stream);
    free(forged);
    if (progressive) {
        /* past the header, so that the hybrid decoder's host phase meets the end of the data */
        const size_t cut = progressive->size * 2 / 3;
        s = jpeg_gpu_decode(g, "truncated_progressive.jpg", progressive->data, cut, &dev, NULL,
                            NULL, stream);
        printf("truncated progressive file (%zu of %zu bytes): %s\n", cut, progressive->size,
               s == FV_OK ? "decoded" : fv_last_error());
        test_check(&T, s != FV_ERR_CUDA && s != FV_ERR_MEMORY,
                   "a truncated progressive file: decoded or the CPU codec's, not a GPU failure",
                   s == FV_OK ? NULL : fv_last_error());
        check_decode(g, progressive, stream);
    }
    check_decode(g, good, stream);
    fv_device_image_free(&dev);
}

/* n codecs as the folder batch makes them: the first, then its peers, a stream each (stream[]
 * zeroed by the caller; free_slots undoes a partial start too). */
static fv_status make_slots(jpeg_gpu **slot, cudaStream_t *stream, int n)
{
    memset(slot, 0, (size_t)n * sizeof *slot);
    for (int k = 0; k < n; k++) {
        FV_TRY(k == 0 ? jpeg_gpu_create(&slot[0]) : jpeg_gpu_create_peer(slot[0], &slot[k]));
        if (cudaStreamCreateWithFlags(&stream[k], cudaStreamNonBlocking) != cudaSuccess)
            return fv_fail(FV_ERR_CUDA, "no CUDA stream");
    }
    return FV_OK;
}

static void free_slots(jpeg_gpu **slot, cudaStream_t *stream, int n)
{
    for (int k = n - 1; k >= 0; k--) { /* peers before the handles' owner */
        if (stream[k]) cudaStreamDestroy(stream[k]);
        jpeg_gpu_destroy(slot[k]);
    }
}

static int same_pixels(const fv_image *a_dev, const fv_image *b_dev)
{
    fv_image a = {0}, b = {0};
    int same = a_dev->width == b_dev->width && a_dev->height == b_dev->height &&
               fv_host_image_alloc(&a, a_dev->width, a_dev->height) == FV_OK &&
               fv_host_image_alloc(&b, b_dev->width, b_dev->height) == FV_OK &&
               fv_image_download(&a, a_dev) == FV_OK && fv_image_download(&b, b_dev) == FV_OK;
    for (int y = 0; same && y < a.height; y++)
        same = !memcmp(a.data + (size_t)y * a.pitch, b.data + (size_t)y * b.pitch,
                       4 * (size_t)a.width);
    fv_host_image_free(&a);
    fv_host_image_free(&b);
    return same;
}

/* The encoded bytes of device image `dev` through codec g. */
static uint8_t *encode_bytes(jpeg_gpu *g, const fv_image *dev, cudaStream_t stream, size_t *n)
{
    const uint8_t *bits = NULL;
    *n = 0;
    if (jpeg_gpu_encode_queue(g, "twice.jpg", dev, 90, 0, stream) != FV_OK ||
        jpeg_gpu_encode_bitstream(g, "twice.jpg", &bits, n, stream) != FV_OK)
        return NULL;
    uint8_t *copy = malloc(*n);
    if (copy) memcpy(copy, bits, *n);
    return copy;
}

/* The corpus queued across the slots, as the folder batch queues a folder, against one codec's
 * decode of each file; then the encoder's bytes, twice and on a peer. */
static void check_in_flight(jpeg_gpu *single, const corpus_file *corpus, int n, cudaStream_t stream)
{
    jpeg_gpu *slot[JPEG_GPU_SLOTS];
    cudaStream_t streams[JPEG_GPU_SLOTS] = {0};
    fv_status s = make_slots(slot, streams, JPEG_GPU_SLOTS);
    test_check(&T, s == FV_OK, "the folder batch's slots start", s ? fv_last_error() : NULL);
    fv_image out[64], want = {0};
    memset(out, 0, sizeof out);
    int decoded[64] = {0}, agree = 1, queued = 0;
    char detail[160] = "";
    for (int i = 0; s == FV_OK && i < n && i < 64; i++) {
        const int k = i % JPEG_GPU_SLOTS;
        /* a slot takes a new file once its stream is done with the last (batch_gpu_jpeg.c) */
        cudaStreamSynchronize(streams[k]);
        decoded[i] = jpeg_gpu_decode_queue(slot[k], corpus[i].name, corpus[i].data, corpus[i].size,
                                           &out[i], NULL, NULL, streams[k]) == FV_OK;
        queued += decoded[i];
    }
    for (int k = 0; s == FV_OK && k < JPEG_GPU_SLOTS; k++) cudaStreamSynchronize(streams[k]);
    for (int i = 0; s == FV_OK && i < n && i < 64; i++) {
        const int alone = jpeg_gpu_decode(single, corpus[i].name, corpus[i].data, corpus[i].size,
                                          &want, NULL, NULL, stream) == FV_OK;
        if (alone != decoded[i] || (alone && !same_pixels(&out[i], &want))) {
            if (agree)
                snprintf(detail, sizeof detail, "(%.60s: %s)", corpus[i].name,
                         alone != decoded[i] ? "decoded by one, refused by the other"
                                             : "other pixels");
            agree = 0;
        }
        fv_device_image_free(&out[i]);
    }
    fv_device_image_free(&want);
    if (s == FV_OK) {
        printf("%d files decoded in flight on %d slots\n", queued, JPEG_GPU_SLOTS);
        test_check(&T, agree && queued > 0,
                   "files decoded in flight on the slots equal one codec's decode", detail);
    }
    fv_image src, dev = {0};
    smooth_photo(&src, 301, 211);
    if (s == FV_OK) s = fv_device_image_alloc(&dev, src.width, src.height);
    if (s == FV_OK) s = fv_image_upload(&dev, &src);
    if (s == FV_OK) {
        size_t n1 = 0, n2 = 0, n3 = 0;
        uint8_t *a = encode_bytes(single, &dev, stream, &n1);
        uint8_t *b = encode_bytes(single, &dev, stream, &n2);
        uint8_t *c = encode_bytes(slot[JPEG_GPU_SLOTS - 1], &dev, streams[JPEG_GPU_SLOTS - 1], &n3);
        snprintf(detail, sizeof detail, "(%zu, %zu and %zu bytes)", n1, n2, n3);
        test_check(&T, a && b && n1 == n2 && !memcmp(a, b, n1),
                   "an image encoded twice gives the same bytes", detail);
        test_check(&T, a && c && n1 == n3 && !memcmp(a, c, n1),
                   "a peer codec encodes the same bytes", detail);
        free(a), free(b), free(c);
    }
    fv_host_image_free(&src);
    fv_device_image_free(&dev);
    free_slots(slot, streams, JPEG_GPU_SLOTS);
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec / 1e6;
}

/* nvJPEG's decode alone: DIR's .jpg files in memory, queued across the slots as the folder batch
 * queues them (a slot waited for when its turn comes again); one pass to warm up, then timed. */
/* One thread of the decode bench: a slot of its own, files taken in turn until none is left;
 * each decode queued on the slot's stream and waited for, as a slot of the folder batch does. */
typedef struct bench_lane {
    jpeg_gpu *codec;
    cudaStream_t stream;
    fv_image out;
    int device;
    uint8_t **data;
    size_t *size;
    int n;
    int *next; /* shared: the next file, under lock */
    pthread_mutex_t *lock;
    int counts[JPEG_GPU_BACKENDS], refused, failed;
} bench_lane;

static void *bench_lane_run(void *arg)
{
    bench_lane *l = arg;
    cudaSetDevice(l->device);
    for (;;) {
        pthread_mutex_lock(l->lock);
        const int i = (*l->next)++;
        pthread_mutex_unlock(l->lock);
        if (i >= l->n) break;
        jpeg_gpu_backend used = JPEG_GPU_HARDWARE;
        const fv_status s = jpeg_gpu_decode_queue(l->codec, "bench", l->data[i], l->size[i],
                                                  &l->out, NULL, &used, l->stream);
        s == FV_OK ? l->counts[used]++ : l->refused++;
        if (cudaStreamSynchronize(l->stream) != cudaSuccess) {
            l->failed = 1;
            break;
        }
    }
    return NULL;
}

/* The files of dir ending in .jpg, read into memory; their count, or -1. */
static int read_jpegs(const char *dir, uint8_t ***data_out, size_t **size_out)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("cannot read %s\n", dir);
        return -1;
    }
    int n = 0, cap = 0;
    uint8_t **data = NULL;
    size_t *size = NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".jpg")) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            data = realloc(data, (size_t)cap * sizeof *data);
            size = realloc(size, (size_t)cap * sizeof *size);
            if (!data || !size) return -1;
        }
        if (image_read_file(path, &data[n], &size[n]) != FV_OK) {
            printf("%s\n", fv_last_error());
            return -1;
        }
        n++;
    }
    closedir(d);
    *data_out = data;
    *size_out = size;
    return n;
}

/* nvJPEG's decode alone over dir's files, in memory, through `lanes` slots with a thread each
 * (the folder batch's way): a pass to warm up, then a timed one. */
static int decode_bench(const char *dir, int lanes)
{
    uint8_t **data = NULL;
    size_t *size = NULL;
    const int n = read_jpegs(dir, &data, &size);
    if (n <= 0) {
        if (n == 0) printf("no .jpg files in %s\n", dir);
        return 2;
    }
    if (fv_device_check() != FV_OK) {
        printf("skipped: %s\n", fv_last_error());
        return 77;
    }
    jpeg_gpu *codec[DECODE_BENCH_MAX_SLOTS];
    cudaStream_t stream[DECODE_BENCH_MAX_SLOTS] = {0};
    if (make_slots(codec, stream, lanes) != FV_OK) {
        printf("%s\n", fv_last_error());
        free_slots(codec, stream, lanes);
        return 1;
    }
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    int device = 0, next = 0;
    cudaGetDevice(&device);
    bench_lane lane[DECODE_BENCH_MAX_SLOTS];
    for (int k = 0; k < lanes; k++)
        lane[k] = (bench_lane){.codec = codec[k], .stream = stream[k], .device = device,
                               .data = data, .size = size, .n = n, .next = &next, .lock = &lock};
    double seconds = 0;
    for (int pass = 0; pass < 2; pass++) {
        next = 0;
        for (int k = 0; k < lanes; k++) {
            memset(lane[k].counts, 0, sizeof lane[k].counts);
            lane[k].refused = 0;
        }
        pthread_t tid[DECODE_BENCH_MAX_SLOTS];
        const double t0 = now_s();
        int started = 0;
        for (int k = 1; k < lanes; k++)
            if (pthread_create(&tid[started], NULL, bench_lane_run, &lane[k]) == 0) started++;
        bench_lane_run(&lane[0]);
        for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
        seconds = now_s() - t0;
    }
    int counts[JPEG_GPU_BACKENDS] = {0}, refused = 0, failed = 0;
    for (int k = 0; k < lanes; k++) {
        for (int b = 0; b < JPEG_GPU_BACKENDS; b++) counts[b] += lane[k].counts[b];
        refused += lane[k].refused;
        failed |= lane[k].failed;
    }
    printf("decode-bench: %d files, %d on the hardware decoder, %d on the hybrid one, %d refused; "
           "%d slots, a thread each; the GPU's JPEG engines: %d\n",
           n, counts[JPEG_GPU_HARDWARE], counts[JPEG_GPU_HYBRID], refused, lanes,
           jpeg_gpu_hardware_engines(lane[0].codec));
    printf("decode_images_per_s %.1f\n", seconds > 0 ? n / seconds : 0.0);
    for (int k = 0; k < lanes; k++) fv_device_image_free(&lane[k].out);
    free_slots(codec, stream, lanes);
    for (int i = 0; i < n; i++) free(data[i]);
    free(data);
    free(size);
    if (failed) printf("a decode failed on the GPU\n");
    return refused || failed ? 1 : 0;
}

static int write_photos(const char *dir, int n, int w, int h)
{
    if (mkdir(dir, 0777) != 0 && access(dir, W_OK) != 0) return 1;
    for (int i = 0; i < n; i++) {
        fv_image img;
        smooth_photo(&img, w, h);
        size_t size = 0;
        uint8_t *data = test_jpeg_encode(&img, TJPF_RGBA, TJSAMP_420, 90, 0, &size);
        char name[64];
        snprintf(name, sizeof name, "photo%04d.jpg", i);
        const int ok = size && write_file(dir, name, data, size);
        free(data);
        fv_host_image_free(&img);
        if (!ok) return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    seed = test_seed();
    corpus_file corpus[64];
    if (argc == 5 && !strcmp(argv[1], "--photos")) {
        int w = 0, h = 0;
        if (sscanf(argv[4], "%dx%d", &w, &h) != 2 || w < 1 || h < 1) return 2;
        return write_photos(argv[2], atoi(argv[3]), w, h);
    }
    if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--decode-bench")) {
        const int lanes = argc == 4 ? atoi(argv[3]) : JPEG_GPU_SLOTS;
        if (lanes < 1 || lanes > DECODE_BENCH_MAX_SLOTS) return 2;
        return decode_bench(argv[2], lanes);
    }
    if (argc == 3 && !strcmp(argv[1], "--corpus")) {
        const int n = make_corpus(corpus, 64);
        int ok = 1;
        for (int i = 0; i < n; i++)
            ok &= write_file(argv[2], corpus[i].name, corpus[i].data, corpus[i].size);
        return ok ? 0 : 1;
    }
    if (fv_device_check() != FV_OK) {
        printf("skipped: %s\n", fv_last_error());
        return 77;
    }
    jpeg_gpu *g = NULL;
    fv_status s = jpeg_gpu_create(&g);
    test_check(&T, s == FV_OK, "the GPU codec starts", s ? fv_last_error() : NULL);
    if (s != FV_OK) return test_finish(&T);
    printf("hardware decoder: %s\n", jpeg_gpu_has_hardware(g) ? "yes" : "no");
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    const int n = make_corpus(corpus, 64);
    for (int i = 0; i < n; i++) check_decode(g, &corpus[i], stream);
    const corpus_file *progressive = NULL;
    for (int i = 0; i < n; i++)
        if (!strcmp(corpus[i].name, "progressive_444.jpg")) progressive = &corpus[i];
    check_bad_files(g, &corpus[0], progressive, stream);
    check_encode(g, stream);
    check_encode_gray(g, stream);
    check_in_flight(g, corpus, n, stream);
    for (int i = 0; i < n; i++) free(corpus[i].data);
    cudaStreamDestroy(stream);
    jpeg_gpu_destroy(g);
    return test_finish(&T);
}
