/* ------------------------------------------------------------------------------------------------
 * tests/library/test_library.c: libfilterview's public C API, through include/libfilterview.h
 * alone, linked against the shared library (so its exported symbols are all it needs).
 * Everywhere: the registry, every error a caller can make (one clear message each), structs
 * of an older (shorter) and a newer (longer) header read and filled by their size, a context
 * run many times, channel layouts (gray, RGB, RGBA), padded pitches and runs in place on the
 * reference, invert against its definition, conv with a float kernel array (an image parameter)
 * against the exact sums, and each mistake with one, one context run on images of every size up
 * to its own, alone and in batches. With a GPU: every GPU variant of every filter through host
 * images, device images (tight, padded, in place, 1 and 3 channels) and smaller images, alone
 * and in batches, all equal to one another, the integer filters equal to the reference, two
 * contexts at once on two streams from two threads equal to each one alone, (with two GPUs) a
 * context on device 1, and batches run as CUDA graphs equal to batches run without them, with no
 * graph made after a context's first batch. Image files: written and read back (host; with a GPU,
 * device images too), an older file info filled by its size, and the refusals, each naming the file.
 * ------------------------------------------------------------------------------------------------ */
#include <libfilterview.h>

#ifdef FV_HAVE_CUDA /* the GPU cases; a build without CUDA has reference variants alone */
#include <cuda_runtime_api.h>
#endif
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            passed++;                                                                              \
        } else {                                                                                   \
            failed++;                                                                              \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static filterview_image host_image(int w, int h, int channels, size_t pad, unsigned seed)
{
    filterview_image img = {.size = sizeof img,
                            .width = w,
                            .height = h,
                            .pitch = (size_t)w * channels + pad,
                            .channels = channels,
                            .memory = FILTERVIEW_HOST,
                            .dtype = FILTERVIEW_UINT8};
    img.data = malloc(img.pitch * (size_t)h);
    uint8_t *p = img.data;
    for (size_t i = 0; i < img.pitch * (size_t)h; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (uint8_t)(seed >> 24);
    }
    return img;
}

/* The largest |a - b| of any channel, counted here (host images of one size and channel count);
 * filterview_compare must say the same, or the answer is 999 (no verdict rests on the library
 * grading itself). */
static int max_diff(const filterview_image *a, const filterview_image *b)
{
    filterview_diff d = {.size = sizeof d};
    char why[200];
    if (filterview_compare(a, b, &d, why, sizeof why) != FV_OK) {
        printf("compare failed: %s\n", why);
        return 999;
    }
    int worst = 0;
    long long differing = 0;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++) {
            const uint8_t *pa = (const uint8_t *)a->data + (size_t)y * a->pitch,
                          *pb = (const uint8_t *)b->data + (size_t)y * b->pitch;
            int m = 0;
            for (int c = 0; c < a->channels; c++) {
                const int e = abs(pa[x * a->channels + c] - pb[x * a->channels + c]);
                if (e > m) m = e;
            }
            differing += m != 0;
            if (m > worst) worst = m;
        }
    if (d.max_abs != worst || d.differing != differing) {
        printf("filterview_compare says max %d, %lld differing; the test counts %d, %lld\n",
               d.max_abs, d.differing, worst, differing);
        return 999;
    }
    return worst;
}

static int same_pixels(const filterview_image *a, const filterview_image *b)
{
    return max_diff(a, b) == 0;
}

/* ---- the registry ---- */
static void test_registry(void)
{
    const int n = filterview_filter_count();
    CHECK(n >= 6, "%d filters", n);
    CHECK(filterview_filter_name(n) == NULL && filterview_filter_name(-1) == NULL, "past the end");
    CHECK(filterview_param_count("nosuch") == -1 && filterview_variant_count("nosuch") == -1 &&
              filterview_filter_summary("nosuch") == NULL,
          "an unknown filter");
    for (int i = 0; i < n; i++) {
        const char *f = filterview_filter_name(i);
        CHECK(filterview_filter_summary(f) && *filterview_filter_summary(f), "%s: a summary", f);
        CHECK(filterview_filter_max_iterations(f) >= 1, "%s: iterations", f);
        int refs = 0, fastest = 0;
        for (int v = 0; v < filterview_variant_count(f); v++) {
            filterview_variant_info vi = {.size = sizeof vi};
            CHECK(filterview_variant_get(f, v, &vi) == FV_OK && vi.name && vi.summary, "%s #%d", f,
                  v);
            refs += vi.role == FILTERVIEW_ROLE_REFERENCE && vi.on_host;
            fastest += vi.role == FILTERVIEW_ROLE_FASTEST;
        }
#ifdef FV_HAVE_CUDA
        CHECK(refs == 1 && fastest >= 1, "%s: %d references, %d fastest", f, refs, fastest);
#else /* the reference alone */
        CHECK(refs == 1 && fastest == 0 && filterview_variant_count(f) == 1,
              "%s: %d references, %d fastest, of %d variants", f, refs, fastest,
              filterview_variant_count(f));
#endif
        filterview_variant_info vi = {.size = sizeof vi};
        CHECK(filterview_variant_get(f, 99, &vi) == FV_ERR_ARG, "%s: variant 99", f);
        for (int p = 0; p < filterview_param_count(f); p++) {
            filterview_param_info pi = {.size = sizeof pi};
            CHECK(filterview_param_get(f, p, &pi) == FV_OK && pi.name && pi.min <= pi.max &&
                      (pi.auto_means ? pi.default_value == 0 || pi.default_value >= pi.min
                                     : pi.default_value >= pi.min && pi.default_value <= pi.max),
                  "%s: parameter %d", f, p);
            CHECK(pi.type != FILTERVIEW_PARAM_CHOICE || (pi.n_choices > 0 && pi.choices),
                  "%s %s: choices", f, pi.name);
        }
    }
    CHECK(strcmp(filterview_version(), FILTERVIEW_VERSION) == 0, "version %s",
          filterview_version());
    CHECK(strcmp(filterview_status_name(FV_ERR_ARG), "bad argument") == 0, "status name");
}

/* ---- errors: each with its status and a message that names the trouble ---- */
static void expect_create_error(const char *filter, const char *variant, int w, int h,
                                const char *params, fv_status want, const char *words)
{
    filterview_context *c = (filterview_context *)1;
    char error[512];
    const fv_status st =
        filterview_context_create(&c, filter, variant, w, h, params, error, sizeof error);
    CHECK(st == want && c == NULL && strstr(error, words),
          "create(%s, %s, %dx%d, '%s'): status %d, '%s' (want %d, '%s')", filter ? filter : "NULL",
          variant ? variant : "NULL", w, h, params ? params : "NULL", st, error, want, words);
}

/* The device index of filterview_context_create_on: refused below -1 and past the machine's last
 * device, each with its message; ignored by the reference; dropped without any device. */
static void test_device_index_errors(void)
{
    filterview_context *c = (filterview_context *)1;
    char error[512];
    CHECK(filterview_context_create_on(&c, -2, "box", "cpu", 8, 8, FILTERVIEW_UINT8, NULL, error,
                                       sizeof error) == FV_ERR_ARG &&
              !c && strstr(error, "device -2: expected -1 (the current CUDA device)"),
          "device -2: '%s'", error);
    int devices = 0;
    fv_status past = FV_OK;
#ifdef FV_HAVE_CUDA /* a build without CUDA has no GPU variant to name: the no-variant case */
    if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
    c = (filterview_context *)1;
    past = filterview_context_create_on(
        &c, devices, "box", "fast", 8, 8, FILTERVIEW_UINT8, NULL, error, sizeof error);
#endif
    if (devices > 0) {
        char words[96];
        snprintf(words, sizeof words, "device %d: this machine has %d CUDA device", devices,
                 devices);
        CHECK(past == FV_ERR_ARG && !c && strstr(error, words), "device %d of %d: '%s'", devices,
              devices, error);
    } else { /* no device: the no-device rules say why */
#ifdef FV_HAVE_CUDA
        CHECK(past == FV_ERR_NO_DEVICE && !c && strstr(error, "variant cpu runs"),
              "device 0 of none, box/fast: '%s'", error);
#endif
        filterview_context *ref = NULL;
        CHECK(filterview_context_create_on(&ref, 0, "box", NULL, 8, 8, FILTERVIEW_UINT8, NULL,
                                           error, sizeof error) == FV_OK &&
                  ref && strcmp(filterview_context_variant(ref), "cpu") == 0 &&
#ifdef FV_HAVE_CUDA /* with CUDA, the fallback is said; without, the reference is all there is */
                  strstr(error, "the reference, runs instead of"),
#else
                  1,
#endif
              "device 0 of none, no variant named: the reference, said ('%s')", error);
        filterview_context_destroy(ref);
    }
    filterview_context *ref = NULL;
    filterview_image a = host_image(16, 9, 1, 0, 8), b = host_image(16, 9, 1, 0, 0),
                     want = host_image(16, 9, 1, 0, 0);
    filterview_context *plain = NULL;
    CHECK(filterview_context_create_on(&ref, 0, "median", "cpu", 16, 9, FILTERVIEW_UINT8, "size=3",
                                       error, sizeof error) == FV_OK &&
              filterview_context_create(&plain, "median", "cpu", 16, 9, "size=3", NULL, 0) ==
                  FV_OK &&
              filterview_run(ref, &a, &b, NULL) == FV_OK &&
              filterview_run(plain, &a, &want, NULL) == FV_OK && same_pixels(&b, &want),
          "the reference on device 0: the same pixels ('%s')", error);
    filterview_context_destroy(ref), filterview_context_destroy(plain);
    free(a.data), free(b.data), free(want.data);
}

static void test_errors(void)
{
    expect_create_error("nosuch", "cpu", 8, 8, NULL, FV_ERR_ARG, "no filter 'nosuch'");
    expect_create_error(NULL, "cpu", 8, 8, NULL, FV_ERR_ARG, "no filter");
    expect_create_error("box", "warp", 8, 8, NULL, FV_ERR_ARG, "box has no variant 'warp'");
    expect_create_error("box", "cpu", 8, 8, "radius=500", FV_ERR_ARG, "radius");
    expect_create_error("box", "cpu", 8, 8, "radius=500", FV_ERR_ARG, "500");
    expect_create_error("box", "cpu", 8, 8, "radius", FV_ERR_ARG, "expected name=value");
    expect_create_error("box", "cpu", 8, 8, "size=3", FV_ERR_ARG, "box has no parameter 'size'");
    expect_create_error("box", "cpu", 8, 8, "radius=2 radius=3", FV_ERR_ARG, "given twice");
    expect_create_error("box", "cpu", 8, 8, "iterations=2 iterations=3", FV_ERR_ARG,
                        "'iterations' given twice");
    /* the caller's bytes are quoted printable: a control byte or invalid UTF-8 as \xNN */
    expect_create_error("bo\x1b[2Jx\xff", "cpu", 8, 8, NULL, FV_ERR_ARG,
                        "no filter 'bo\\x1b[2Jx\\xff'");
    expect_create_error("box", "cpu", 8, 8, "radius=7\x01", FV_ERR_ARG, "7\\x01");
    expect_create_error("box", "c\xc3\xa9\x07", 8, 8, NULL, FV_ERR_ARG,
                        "no variant 'c\xc3\xa9\\x07'");
    expect_create_error("median", "cpu", 8, 8, "size=4", FV_ERR_ARG, "size");
    expect_create_error("box", "cpu", 8, 8, "iterations=0", FV_ERR_ARG, "iterations");
    expect_create_error("box", "cpu", 0, 8, NULL, FV_ERR_SIZE, "");
    expect_create_error("box", "cpu", 8, 100000, NULL, FV_ERR_SIZE, "");
    CHECK(filterview_context_create(NULL, "box", "cpu", 8, 8, NULL, NULL, 0) == FV_ERR_ARG,
          "NULL out");
    char why[256];
    if (!filterview_device_available(why, sizeof why)) {
        CHECK(*why != 0, "no device: a reason");
        filterview_context *ref = NULL;
        char notice[512];
#ifdef FV_HAVE_CUDA
        /* a GPU variant named fails; none named: the reference, with a notice */
        expect_create_error("box", "fast", 8, 8, NULL, FV_ERR_NO_DEVICE, "variant cpu runs");
        CHECK(filterview_context_create(&ref, "box", NULL, 8, 8, NULL, notice, sizeof notice) ==
                      FV_OK &&
                  ref && strcmp(filterview_context_variant(ref), "cpu") == 0 &&
                  strstr(notice, "box/cpu, the reference, runs instead of"),
              "no device, no variant named: the reference, said ('%s')", notice);
#else /* no GPU variant to name; none named: the reference, the filter's one variant */
        expect_create_error("box", "fast", 8, 8, NULL, FV_ERR_ARG, "no variant 'fast'");
        CHECK(filterview_context_create(&ref, "box", NULL, 8, 8, NULL, notice, sizeof notice) ==
                      FV_OK &&
                  ref && strcmp(filterview_context_variant(ref), "cpu") == 0,
              "no CUDA, no variant named: the reference ('%s')", notice);
#endif
        filterview_context_destroy(ref);
    }
    test_device_index_errors();

    filterview_context *c = NULL;
    CHECK(filterview_context_create(&c, "box", "cpu", 16, 9, "radius=2", NULL, 0) == FV_OK, "box");
    if (!c) return;
    filterview_image a = host_image(16, 9, 4, 0, 1), b = host_image(16, 9, 4, 0, 2);
    filterview_image small = host_image(15, 9, 4, 0, 3), gray = host_image(16, 9, 1, 0, 4);
    filterview_image large = host_image(17, 9, 4, 0, 3);
    CHECK(filterview_run(c, &large, &large, NULL) == FV_ERR_ARG &&
              strstr(filterview_context_error(c), "17x9, but the context is for images up to 16x9"),
          "size: '%s'", filterview_context_error(c));
    CHECK(filterview_run(c, &small, &b, NULL) == FV_ERR_ARG &&
              strstr(filterview_context_error(c), "source 15x9, destination 16x9"),
          "sizes differ: '%s'", filterview_context_error(c));
    free(large.data);
    CHECK(filterview_run(c, &a, &gray, NULL) == FV_ERR_ARG &&
              strstr(filterview_context_error(c), "channels"),
          "channels: '%s'", filterview_context_error(c));
    filterview_image bad = a;
    bad.pitch = 10;
    CHECK(filterview_run(c, &bad, &b, NULL) == FV_ERR_ARG, "pitch");
    bad = a;
    bad.pitch = SIZE_MAX / 4; /* times 8 rows: wraps around the address space */
    CHECK(filterview_run(c, &bad, &b, NULL) == FV_ERR_ARG &&
              strstr(filterview_context_error(c), "past the end of memory"),
          "a pitch that overflows: '%s'", filterview_context_error(c));
    filterview_diff diff = {.size = sizeof diff};
    char error[256];
    CHECK(filterview_compare(&bad, &bad, &diff, error, sizeof error) == FV_ERR_ARG &&
              strstr(error, "past the end of memory"),
          "compare, a pitch that overflows: '%s'", error);
    for (int k = 0; k < 3; k++) {
        filterview_image empty = a;
        empty.width = k == 0 ? 0 : k == 1 ? -3 : 16;
        empty.height = k == 2 ? -1 : 9;
        CHECK(filterview_compare(&empty, &empty, &diff, error, sizeof error) == FV_ERR_ARG &&
                  strstr(error, "no pixels"),
              "compare of a %dx%d image: '%s'", empty.width, empty.height, error);
    }
    CHECK(filterview_compare(&a, &a, &diff, error, sizeof error) == FV_OK && diff.max_abs == 0 &&
              diff.mean_abs == 0 && diff.differing == 0,
          "compare of an image with itself");
    bad = a;
    bad.channels = 2;
    CHECK(filterview_run(c, &bad, &b, NULL) == FV_ERR_ARG, "2 channels");
    filterview_image on_device = a;
    on_device.memory = FILTERVIEW_DEVICE;
    CHECK(filterview_run(c, &on_device, &b, NULL) == FV_ERR_ARG &&
              strstr(filterview_context_error(c), "runs on the host"),
          "cpu with a device image: '%s'", filterview_context_error(c));
    CHECK(filterview_run(c, &a, &b, NULL) == FV_OK && !*filterview_context_error(c),
          "a good run after bad ones clears the error");
    CHECK(strcmp(filterview_context_params(c), "radius 2") == 0 ||
              strcmp(filterview_context_params(c), "radius 2") == 0,
          "params '%s'", filterview_context_params(c));
    filterview_context_destroy(c);
    filterview_context_destroy(NULL);
    free(a.data), free(b.data), free(small.data), free(gray.data);
}

/* ---- growing structs: the library reads and fills only what the caller's .size covers ---- */
static void test_growing(void)
{
    /* an answer into the struct of an older, shorter header: nothing written past its size */
    filterview_param_info short_info;
    memset(&short_info, 0xab, sizeof short_info);
    short_info.size = offsetof(filterview_param_info, help);
    const char *const untouched = short_info.help;
    CHECK(filterview_param_get("box", 0, &short_info) == FV_OK && short_info.name &&
              strcmp(short_info.name, "radius") == 0 && short_info.help == untouched &&
              short_info.size == offsetof(filterview_param_info, help),
          "param_get into a struct that ends after name");
    filterview_param_info no_size = {0};
    filterview_variant_info no_size_variant = {0};
    CHECK(filterview_param_get("box", 0, &no_size) == FV_ERR_ARG && !no_size.name,
          "param_get into a struct whose .size is 0");
    CHECK(filterview_variant_get("box", 0, &no_size_variant) == FV_ERR_ARG,
          "variant_get into a struct whose .size is 0");

    filterview_context *c = NULL;
    CHECK(filterview_context_create(&c, "box", "cpu", 8, 6, "radius=1", NULL, 0) == FV_OK, "box");
    if (!c) return;
    filterview_image a = host_image(8, 6, 4, 0, 1), b = host_image(8, 6, 4, 0, 0);
    filterview_image unsized = a;
    unsized.size = 0;
    CHECK(filterview_run(c, &unsized, &b, NULL) == FV_ERR_ARG &&
              strstr(filterview_context_error(c), "set it to sizeof (filterview_image)"),
          "an image whose .size is 0: '%s'", filterview_context_error(c));
    filterview_diff no_size_diff = {0};
    char error[256];
    CHECK(filterview_compare(&a, &a, &no_size_diff, error, sizeof error) == FV_ERR_ARG &&
              strstr(error, "sizeof (filterview_diff)"),
          "compare into a result whose .size is 0: '%s'", error);

    /* the images of a newer header, larger than this library's: read as far as it knows them,
     * and a batch's elements found by their size */
    struct newer_image {
        filterview_image image;
        double field_of_a_later_release;
    } src[3], dst[3];
    int same = 1;
    for (int k = 0; k < 3; k++) {
        src[k].image = host_image(8, 6, 4, 0, (unsigned)k + 1);
        dst[k].image = host_image(8, 6, 4, 0, 0);
        src[k].image.size = dst[k].image.size = sizeof src[k];
        src[k].field_of_a_later_release = dst[k].field_of_a_later_release = 1.5;
    }
    CHECK(filterview_run_batch(c, &src[0].image, &dst[0].image, 3, NULL) == FV_OK,
          "a batch of larger structs: %s", filterview_context_error(c));
    for (int k = 0; k < 3; k++) {
        CHECK(filterview_run(c, &src[k].image, &b, NULL) == FV_OK, "one of larger structs: %s",
              filterview_context_error(c));
        same &= max_diff(&dst[k].image, &b) == 0;
        free(src[k].image.data), free(dst[k].image.data);
    }
    CHECK(same, "a batch of larger structs equals its images one by one");
    free(a.data), free(b.data);
    filterview_context_destroy(c);
}

/* ---- one context's layouts against one another: RGBA tight, padded, in place, RGB, gray ---- */
static void check_layouts(const char *filter, const char *variant, const char *params, int w, int h,
                          filterview_memory memory)
{
    filterview_context *c = NULL;
    char error[512];
    if (filterview_context_create(&c, filter, variant, w, h, params, error, sizeof error) !=
        FV_OK) {
        CHECK(0, "%s/%s '%s' %dx%d: %s", filter, variant ? variant : "fastest",
              params ? params : "", w, h, error);
        return;
    }
    filterview_image src = host_image(w, h, 4, 0, (unsigned)(w * 31 + h)),
                     want = host_image(w, h, 4, 0, 0);
    CHECK(filterview_run(c, &src, &want, NULL) == FV_OK, "%s: %s", filter,
          filterview_context_error(c));
    /* the same run many times: nothing changes, nothing accumulates */
    filterview_image again = host_image(w, h, 4, 8, 9);
    int same = 1;
    for (int i = 0; i < 50; i++)
        same &= filterview_run(c, &src, &again, NULL) == FV_OK && same_pixels(&again, &want);
    CHECK(same, "%s/%s %dx%d: 50 runs of one context", filter, filterview_context_variant(c), w, h);
    for (int channels = 1; channels <= 4; channels++) {
        if (channels == 2) continue;
        /* the input in that layout (gray: R), padded; and what the RGBA run gives for it */
        filterview_image in = host_image(w, h, channels, 5, 11), in4 = host_image(w, h, 4, 0, 0);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint8_t *s = (uint8_t *)in.data + y * in.pitch + x * channels;
                uint8_t *d = (uint8_t *)in4.data + y * in4.pitch + x * 4;
                d[0] = s[0];
                d[1] = channels == 1 ? s[0] : s[1];
                d[2] = channels == 1 ? s[0] : s[2];
                d[3] = channels == 4 ? s[3] : 255;
            }
        filterview_image out4 = host_image(w, h, 4, 0, 0);
        CHECK(filterview_run(c, &in4, &out4, NULL) == FV_OK, "rgba run");
        filterview_image expect = host_image(w, h, channels, 0, 0);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                memcpy((uint8_t *)expect.data + y * expect.pitch + x * channels,
                       (uint8_t *)out4.data + y * out4.pitch + x * 4, (size_t)channels);
        filterview_image out = host_image(w, h, channels, 3, 0);
        const void *src_data = in.data, *dst_data = out.data;
        filterview_image src_img = in, dst_img = out;
#ifdef FV_HAVE_CUDA
        if (memory == FILTERVIEW_DEVICE) { /* the same images on the device */
            void *ds = NULL, *dd = NULL;
            cudaMalloc(&ds, in.pitch * h);
            cudaMalloc(&dd, out.pitch * h);
            cudaMemcpy(ds, in.data, in.pitch * h, cudaMemcpyHostToDevice);
            src_img.data = ds, dst_img.data = dd;
            src_img.memory = dst_img.memory = FILTERVIEW_DEVICE;
        }
#endif
        CHECK(filterview_run(c, &src_img, &dst_img, NULL) == FV_OK, "%d channels: %s", channels,
              filterview_context_error(c));
        /* in place: the source's own memory */
        filterview_image inplace = src_img;
        CHECK(filterview_run(c, &inplace, &inplace, NULL) == FV_OK, "in place: %s",
              filterview_context_error(c));
        filterview_image got = out, got_inplace = host_image(w, h, channels, 5, 0);
#ifdef FV_HAVE_CUDA
        if (memory == FILTERVIEW_DEVICE) {
            cudaDeviceSynchronize();
            cudaMemcpy(got.data, dst_img.data, out.pitch * h, cudaMemcpyDeviceToHost);
            cudaMemcpy(got_inplace.data, src_img.data, in.pitch * h, cudaMemcpyDeviceToHost);
            cudaFree(src_img.data), cudaFree(dst_img.data);
        } else
#endif
        {
            memcpy(got_inplace.data, in.data, in.pitch * h);
        }
        CHECK(max_diff(&got, &expect) == 0, "%s/%s %dx%d %s, %d channels: %d off the RGBA run",
              filter, filterview_context_variant(c), w, h,
              memory == FILTERVIEW_DEVICE ? "device" : "host", channels, max_diff(&got, &expect));
        CHECK(max_diff(&got_inplace, &expect) == 0, "%s/%s %d channels in place: %d off", filter,
              filterview_context_variant(c), channels, max_diff(&got_inplace, &expect));
        (void)src_data, (void)dst_data;
        free(in.data), free(in4.data), free(out4.data), free(expect.data), free(out.data);
        free(got_inplace.data);
    }
    free(src.data), free(want.data), free(again.data);
    filterview_context_destroy(c);
}

/* ---- a context serves any image up to the size it was made for ----
 * One context made for W x H runs images of every smaller size, and the full size again, in any
 * order, alone and in batches; each result equals that of a context made for the image's own
 * size. */
enum { SIZES_W = 40, SIZES_H = 30 };
static const int any_sizes[][2] = {{SIZES_W, SIZES_H}, {23, 17},     {1, 1},
                                   {SIZES_W, 1},       {1, SIZES_H}, {7, 30},
                                   {SIZES_W, SIZES_H}, {39, 29}};
enum { N_ANY_SIZES = sizeof any_sizes / sizeof any_sizes[0] };

/* One w x h image through the W x H context c (on the host or the device) against `exact`, a
 * context made for w x h. */
static void check_one_size(filterview_context *c, filterview_context *exact, const char *filter,
                           const char *variant, int w, int h, filterview_memory memory)
{
    filterview_image src = host_image(w, h, 4, 4, (unsigned)(w * 7 + h)),
                     got = host_image(w, h, 4, 4, 0), want = host_image(w, h, 4, 4, 0);
    filterview_image run_src = src, run_dst = got;
#ifdef FV_HAVE_CUDA
    if (memory == FILTERVIEW_DEVICE) {
        cudaMalloc(&run_src.data, src.pitch * h);
        cudaMalloc(&run_dst.data, got.pitch * h);
        cudaMemcpy(run_src.data, src.data, src.pitch * h, cudaMemcpyHostToDevice);
        run_src.memory = run_dst.memory = FILTERVIEW_DEVICE;
    }
#endif
    CHECK(filterview_run(c, &run_src, &run_dst, NULL) == FV_OK, "%s/%s %dx%d in %dx%d: %s", filter,
          variant, w, h, SIZES_W, SIZES_H, filterview_context_error(c));
#ifdef FV_HAVE_CUDA
    if (memory == FILTERVIEW_DEVICE) {
        cudaMemcpy(got.data, run_dst.data, got.pitch * h, cudaMemcpyDeviceToHost);
        cudaFree(run_src.data), cudaFree(run_dst.data);
    }
#endif
    CHECK(filterview_run(exact, &src, &want, NULL) == FV_OK, "%s/%s %dx%d: %s", filter, variant, w,
          h, filterview_context_error(exact));
    CHECK(max_diff(&got, &want) == 0, "%s/%s %dx%d %s in a %dx%d context: %d off its own", filter,
          variant, w, h, memory == FILTERVIEW_DEVICE ? "device" : "host", SIZES_W, SIZES_H,
          max_diff(&got, &want));
    free(src.data), free(got.data), free(want.data);
}

/* A batch of BATCH w x h images through the W x H context c against `exact`'s runs of each.
 * Host: gray, RGB and RGBA (each change of channel count starts a group). Device: a stack of gray
 * images one under another (widened and narrowed a group at a time), into a second stack. */
enum { BATCH = 6 };
static void check_batch_size(filterview_context *c, filterview_context *exact, const char *filter,
                             const char *variant, int w, int h, filterview_memory memory)
{
    filterview_image src[BATCH], got[BATCH], want[BATCH];
    for (int i = 0; i < BATCH; i++) {
        const int channels = memory == FILTERVIEW_DEVICE ? 1 : i < 2 ? 1 : i < 4 ? 3 : 4;
        src[i] = host_image(w, h, channels, (size_t)(i % 2) * 4, 300u + (unsigned)(i * w + h));
        got[i] = host_image(w, h, channels, 0, 0);
        want[i] = host_image(w, h, channels, 0, 0);
        CHECK(filterview_run(exact, &src[i], &want[i], NULL) == FV_OK, "%s/%s %dx%d image %d: %s",
              filter, variant, w, h, i, filterview_context_error(exact));
    }
#ifdef FV_HAVE_CUDA
    if (memory == FILTERVIEW_DEVICE) {
        const size_t bytes = (size_t)w * (size_t)h;
        uint8_t *in = NULL, *out = NULL;
        cudaMalloc((void **)&in, bytes * BATCH);
        cudaMalloc((void **)&out, bytes * BATCH);
        filterview_image dev_src[BATCH], dev_dst[BATCH];
        for (int i = 0; i < BATCH; i++) {
            dev_src[i] = dev_dst[i] = src[i];
            dev_src[i].pitch = dev_dst[i].pitch = (size_t)w;
            dev_src[i].memory = dev_dst[i].memory = FILTERVIEW_DEVICE;
            dev_src[i].data = in + (size_t)i * bytes;
            dev_dst[i].data = out + (size_t)i * bytes;
            cudaMemcpy2D(dev_src[i].data, w, src[i].data, src[i].pitch, w, h,
                         cudaMemcpyHostToDevice);
        }
        CHECK(filterview_run_batch(c, dev_src, dev_dst, BATCH, NULL) == FV_OK,
              "%s/%s a device stack of %dx%d in %dx%d: %s", filter, variant, w, h, SIZES_W, SIZES_H,
              filterview_context_error(c));
        cudaDeviceSynchronize();
        for (int i = 0; i < BATCH; i++)
            cudaMemcpy2D(got[i].data, got[i].pitch, dev_dst[i].data, w, w, h,
                         cudaMemcpyDeviceToHost);
        cudaFree(in), cudaFree(out);
    } else
#endif
    {
        CHECK(filterview_run_batch(c, src, got, BATCH, NULL) == FV_OK,
              "%s/%s a host batch of %dx%d in %dx%d: %s", filter, variant, w, h, SIZES_W, SIZES_H,
              filterview_context_error(c));
    }
    for (int i = 0; i < BATCH; i++) {
        CHECK(max_diff(&got[i], &want[i]) == 0,
              "%s/%s %s batch of %dx%d in a %dx%d context, image %d: %d off its own", filter,
              variant, memory == FILTERVIEW_DEVICE ? "device" : "host", w, h, SIZES_W, SIZES_H, i,
              max_diff(&got[i], &want[i]));
        free(src[i].data), free(got[i].data), free(want[i].data);
    }
}

static void check_sizes(const char *filter, const char *variant, filterview_memory memory)
{
    filterview_context *c = NULL;
    char error[512];
    if (filterview_context_create(&c, filter, variant, SIZES_W, SIZES_H, NULL, error,
                                  sizeof error) != FV_OK) {
        CHECK(0, "%s/%s %dx%d: %s", filter, variant, SIZES_W, SIZES_H, error);
        return;
    }
    for (int i = 0; i < N_ANY_SIZES; i++) {
        const int w = any_sizes[i][0], h = any_sizes[i][1];
        filterview_context *exact = NULL;
        if (filterview_context_create(&exact, filter, variant, w, h, NULL, error, sizeof error) !=
            FV_OK) {
            CHECK(0, "%s/%s %dx%d: %s", filter, variant, w, h, error);
            continue;
        }
        check_one_size(c, exact, filter, variant, w, h, memory);
        check_batch_size(c, exact, filter, variant, w, h, memory);
        filterview_context_destroy(exact);
    }
    filterview_context_destroy(c);
}

static void test_reference(void)
{
    for (int i = 0; i < filterview_filter_count(); i++)
        check_sizes(filterview_filter_name(i), "cpu", FILTERVIEW_HOST);
    const int sizes[][2] = {{1, 1}, {1, 7}, {13, 1}, {31, 17}};
    for (int i = 0; i < 4; i++) {
        check_layouts("box", "cpu", "radius=3", sizes[i][0], sizes[i][1], FILTERVIEW_HOST);
        check_layouts("median", "cpu", "size=5", sizes[i][0], sizes[i][1], FILTERVIEW_HOST);
    }
    check_layouts("canny", "cpu", NULL, 31, 17, FILTERVIEW_HOST);
    check_layouts("gaussian", "cpu", "sigma=2", 29, 19, FILTERVIEW_HOST);
    /* invert against its definition: 255 - x, alpha kept */
    filterview_context *c = NULL;
    CHECK(filterview_context_create(&c, "invert", "cpu", 7, 5, NULL, NULL, 0) == FV_OK, "invert");
    filterview_image a = host_image(7, 5, 4, 0, 5), b = host_image(7, 5, 4, 0, 0);
    CHECK(c && filterview_run(c, &a, &b, NULL) == FV_OK, "invert run");
    int ok = 1;
    for (int i = 0; i < 7 * 5 * 4; i++)
        ok &= ((uint8_t *)b.data)[i] ==
              (i % 4 == 3 ? ((uint8_t *)a.data)[i] : 255 - ((uint8_t *)a.data)[i]);
    CHECK(ok, "invert is 255 - x with alpha kept");
    free(a.data), free(b.data);
    filterview_context_destroy(c);
}

/* ---- with a GPU ---- */
#ifdef FV_HAVE_CUDA
typedef struct stream_job {
    filterview_context *ctx;
    filterview_image src, dst; /* device */
    cudaStream_t stream;
    int runs, ok;
} stream_job;

static void *stream_job_main(void *arg)
{
    stream_job *j = arg;
    j->ok = 1;
    for (int i = 0; i < j->runs; i++)
        j->ok &= filterview_run(j->ctx, &j->src, &j->dst, j->stream) == FV_OK;
    j->ok &= cudaStreamSynchronize(j->stream) == cudaSuccess;
    return NULL;
}

static void test_two_streams(void)
{
    const int w = 640, h = 480;
    const char *filters[2] = {"box", "median"}, *params[2] = {"radius=9", "size=7"};
    stream_job jobs[2];
    filterview_image want[2], host_src = host_image(w, h, 4, 0, 77);
    for (int k = 0; k < 2; k++) {
        stream_job *j = &jobs[k];
        memset(j, 0, sizeof *j);
        CHECK(filterview_context_create(&j->ctx, filters[k], NULL, w, h, params[k], NULL, 0) ==
                  FV_OK,
              "%s context", filters[k]);
        want[k] = host_image(w, h, 4, 0, 0);
        CHECK(j->ctx && filterview_run(j->ctx, &host_src, &want[k], NULL) == FV_OK, "alone");
        cudaStreamCreateWithFlags(&j->stream, cudaStreamNonBlocking);
        j->src = host_src, j->dst = host_src;
        cudaMalloc(&j->src.data, host_src.pitch * h);
        cudaMalloc(&j->dst.data, host_src.pitch * h);
        cudaMemcpy(j->src.data, host_src.data, host_src.pitch * h, cudaMemcpyHostToDevice);
        j->src.memory = j->dst.memory = FILTERVIEW_DEVICE;
        j->runs = 40;
    }
    pthread_t threads[2];
    for (int k = 0; k < 2; k++) pthread_create(&threads[k], NULL, stream_job_main, &jobs[k]);
    for (int k = 0; k < 2; k++) pthread_join(threads[k], NULL);
    for (int k = 0; k < 2; k++) {
        filterview_image got = host_image(w, h, 4, 0, 0);
        cudaMemcpy(got.data, jobs[k].dst.data, got.pitch * h, cudaMemcpyDeviceToHost);
        CHECK(jobs[k].ok && max_diff(&got, &want[k]) == 0,
              "%s on its own stream and thread, beside the other: %d off alone", filters[k],
              max_diff(&got, &want[k]));
        free(got.data), free(want[k].data);
        cudaFree(jobs[k].src.data), cudaFree(jobs[k].dst.data);
        cudaStreamDestroy(jobs[k].stream); /* before the context: its destroy must not need it */
        filterview_context_destroy(jobs[k].ctx);
    }
    free(host_src.data);
}

/* With two GPUs: a context made on device 1 from a thread whose current device is 0 holds its
 * memory there, runs host images and device 1's images there, equals device 0's result, and
 * leaves device 0 current. */
static void test_device_one(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2) {
        printf("one CUDA device: the device-1 case is not run\n");
        return;
    }
    const int w = 333, h = 217;
    cudaSetDevice(0);
    filterview_context *one = NULL, *zero = NULL;
    size_t free_before = 0, free_after = 0, total = 0;
    cudaSetDevice(1);
    cudaMemGetInfo(&free_before, &total);
    cudaSetDevice(0);
    char error[512];
    CHECK(filterview_context_create_on(&one, 1, "median", NULL, w, h, FILTERVIEW_UINT8, "size=7",
                                       error, sizeof error) == FV_OK &&
              filterview_context_create_on(&zero, 0, "median", NULL, w, h, FILTERVIEW_UINT8,
                                           "size=7", NULL, 0) == FV_OK,
          "median on devices 1 and 0: '%s'", error);
    if (!one || !zero) return;
    cudaSetDevice(1);
    cudaMemGetInfo(&free_after, &total);
    cudaSetDevice(0);
    CHECK(free_before - free_after >= filterview_context_device_bytes(one),
          "device 1 holds the context's %zu bytes (free went from %zu to %zu)",
          filterview_context_device_bytes(one), free_before, free_after);
    filterview_image src = host_image(w, h, 3, 5, 31), got = host_image(w, h, 3, 5, 0),
                     want = host_image(w, h, 3, 5, 0);
    CHECK(filterview_run(one, &src, &got, NULL) == FV_OK &&
              filterview_run(zero, &src, &want, NULL) == FV_OK && same_pixels(&got, &want),
          "host images on device 1 equal device 0's: '%s'", filterview_context_error(one));
    int current = -1;
    CHECK(cudaGetDevice(&current) == cudaSuccess && current == 0,
          "device 0 is still current after a run on 1 (%d)", current);
    /* device 1's own images, in a batch of two */
    filterview_image dev[2] = {src, src}, out[2] = {src, src};
    cudaSetDevice(1);
    for (int k = 0; k < 2; k++) {
        cudaMalloc(&dev[k].data, src.pitch * h);
        cudaMalloc(&out[k].data, src.pitch * h);
        cudaMemcpy(dev[k].data, src.data, src.pitch * h, cudaMemcpyHostToDevice);
        dev[k].memory = out[k].memory = FILTERVIEW_DEVICE;
    }
    cudaSetDevice(0);
    CHECK(filterview_run_batch(one, dev, out, 2, NULL) == FV_OK, "a device batch on device 1: '%s'",
          filterview_context_error(one));
    cudaSetDevice(1);
    cudaDeviceSynchronize();
    for (int k = 0; k < 2; k++) {
        memset(got.data, 0, got.pitch * h);
        cudaMemcpy(got.data, out[k].data, src.pitch * h, cudaMemcpyDeviceToHost);
        CHECK(same_pixels(&got, &want), "device 1's image %d equals device 0's result", k);
        cudaFree(dev[k].data), cudaFree(out[k].data);
    }
    cudaSetDevice(0);
    filterview_context_destroy(one), filterview_context_destroy(zero);
    CHECK(cudaGetDevice(&current) == cudaSuccess && current == 0,
          "device 0 is still current after destroy (%d)", current);
    free(src.data), free(got.data), free(want.data);
}

/* Batches in groups: a host batch whose channel counts change (each change starts a group) and
 * a device stack of gray images one under another (converted a group at a time), each image
 * equal to its own run. */
static void test_batch_groups(void)
{
    enum { N = 40, W = 67, H = 41 };
    filterview_context *c = NULL;
    CHECK(filterview_context_create(&c, "median", NULL, W, H, "size=5", NULL, 0) == FV_OK,
          "median context");
    if (!c) return;
    filterview_image src[N], got[N], want[N];
    for (int i = 0; i < N; i++) {
        const int channels = i < 15 ? 1 : i < 30 ? 3 : 4;
        src[i] = host_image(W, H, channels, (size_t)(i % 3) * 4, 100u + (unsigned)i);
        got[i] = host_image(W, H, channels, 0, 0);
        want[i] = host_image(W, H, channels, 0, 0);
        CHECK(filterview_run(c, &src[i], &want[i], NULL) == FV_OK, "image %d alone", i);
    }
    CHECK(filterview_run_batch(c, src, got, N, NULL) == FV_OK,
          "a host batch of 1, 3, 4 channels: '%s'", filterview_context_error(c));
    for (int i = 0; i < N; i++) CHECK(same_pixels(&got[i], &want[i]), "host batch, image %d", i);
    /* the gray ones as a device stack, in place */
    const size_t bytes = (size_t)W * H;
    uint8_t *stack = NULL;
    cudaMalloc((void **)&stack, bytes * 15);
    filterview_image dev[15];
    for (int i = 0; i < 15; i++) {
        dev[i] = src[i];
        dev[i].pitch = W;
        dev[i].data = stack + (size_t)i * bytes;
        dev[i].memory = FILTERVIEW_DEVICE;
        cudaMemcpy2D(dev[i].data, W, src[i].data, src[i].pitch, W, H, cudaMemcpyHostToDevice);
    }
    CHECK(filterview_run_batch(c, dev, dev, 15, NULL) == FV_OK, "a device stack in place: '%s'",
          filterview_context_error(c));
    cudaDeviceSynchronize();
    for (int i = 0; i < 15; i++) {
        cudaMemcpy2D(got[i].data, got[i].pitch, dev[i].data, W, W, H, cudaMemcpyDeviceToHost);
        CHECK(same_pixels(&got[i], &want[i]), "device stack, image %d", i);
    }
    cudaFree(stack);
    for (int i = 0; i < N; i++) free(src[i].data), free(got[i].data), free(want[i].data);
    filterview_context_destroy(c);
}

/* Batches of the images of a newer header (larger structs) on the GPU paths, smaller than the
 * context: a host batch of 1, 3 and 4 channels (its groups) and a device stack of gray images
 * (widened a group at a time), each image equal to its own run. */
static void test_growing_batches(void)
{
    enum { N = 9, W = 50, H = 40, w = 37, h = 29 };
    struct newer_image {
        filterview_image image;
        double field_of_a_later_release;
    } src[N], got[N], dev[N];
    filterview_image want[N];
    filterview_context *c = NULL;
    CHECK(filterview_context_create(&c, "median", NULL, W, H, "size=5", NULL, 0) == FV_OK,
          "median context");
    if (!c) return;
    for (int i = 0; i < N; i++) {
        const int channels = i < 3 ? 1 : i < 6 ? 3 : 4;
        src[i].image = host_image(w, h, channels, (size_t)(i % 2) * 4, 700u + (unsigned)i);
        got[i].image = host_image(w, h, channels, 0, 0);
        want[i] = host_image(w, h, channels, 0, 0);
        src[i].image.size = got[i].image.size = sizeof src[i];
        src[i].field_of_a_later_release = got[i].field_of_a_later_release = 1.5;
        CHECK(filterview_run(c, &src[i].image, &want[i], NULL) == FV_OK, "image %d alone: %s", i,
              filterview_context_error(c));
    }
    CHECK(filterview_run_batch(c, &src[0].image, &got[0].image, N, NULL) == FV_OK,
          "a host batch of larger structs: '%s'", filterview_context_error(c));
    for (int i = 0; i < N; i++)
        CHECK(same_pixels(&got[i].image, &want[i]), "host batch of larger structs, image %d", i);
    /* the gray ones as a device stack, in place */
    uint8_t *stack = NULL;
    cudaMalloc((void **)&stack, (size_t)w * h * 3);
    for (int i = 0; i < 3; i++) {
        dev[i] = src[i];
        dev[i].image.pitch = w;
        dev[i].image.data = stack + (size_t)i * w * h;
        dev[i].image.memory = FILTERVIEW_DEVICE;
        cudaMemcpy2D(dev[i].image.data, w, src[i].image.data, src[i].image.pitch, w, h,
                     cudaMemcpyHostToDevice);
    }
    CHECK(filterview_run_batch(c, &dev[0].image, &dev[0].image, 3, NULL) == FV_OK,
          "a device stack of larger structs: '%s'", filterview_context_error(c));
    cudaDeviceSynchronize();
    for (int i = 0; i < 3; i++) {
        cudaMemcpy2D(got[i].image.data, got[i].image.pitch, dev[i].image.data, w, w, h,
                     cudaMemcpyDeviceToHost);
        CHECK(same_pixels(&got[i].image, &want[i]), "device stack of larger structs, image %d", i);
    }
    cudaFree(stack);
    for (int i = 0; i < N; i++)
        free(src[i].image.data), free(got[i].image.data), free(want[i].data);
    filterview_context_destroy(c);
}

/* ---- a batch's runs as CUDA graphs ----
 * What the library says on stderr under FILTERVIEW_BATCH_GRAPHS=verbose is read back from a file:
 * stderr points there between log_begin and log_end. */
typedef struct stderr_log {
    FILE *file;
    int saved; /* the real stderr */
    long read; /* what log_count has read so far */
} stderr_log;

static stderr_log log_begin(void)
{
    stderr_log l = {tmpfile(), -1, 0};
    fflush(stderr);
    if (l.file) l.saved = dup(2);
    if (l.saved >= 0) dup2(fileno(l.file), 2);
    return l;
}

/* The lines said since the last count that hold `words`, counted (and shown). */
static int log_count(stderr_log *l, const char *words)
{
    fflush(stderr);
    if (!l->file) return -1;
    char line[1024];
    int n = 0;
    fseek(l->file, l->read, SEEK_SET);
    while (fgets(line, sizeof line, l->file)) {
        n += strstr(line, words) != NULL;
        printf("  said: %s", line);
    }
    l->read = ftell(l->file);
    return n;
}

static void log_end(stderr_log *l)
{
    fflush(stderr);
    if (l->saved >= 0) dup2(l->saved, 2), close(l->saved);
    if (l->file) fclose(l->file);
}

/* A context of `filter`'s variant (NULL: the fastest) whose batches take FILTERVIEW_BATCH_GRAPHS
 * = `graphs` (NULL: unset), read by its first batch, which is run here on the first image. NULL
 * where a peer declines the filter's defaults (said). */
static filterview_context *graphs_context(const char *filter, const char *variant,
                                          const char *graphs, int w, int h,
                                          const filterview_image *first)
{
    filterview_context *c = NULL;
    char error[512];
    const fv_status st =
        filterview_context_create(&c, filter, variant, w, h, NULL, error, sizeof error);
    if (st == FV_ERR_UNSUPPORTED) {
        printf("  %s/%s declines the defaults (%s): not run\n", filter,
               variant ? variant : "fastest", error);
        return NULL;
    }
    if (st != FV_OK) {
        CHECK(0, "%s/%s: %s", filter, variant ? variant : "fastest", error);
        return NULL;
    }
    if (graphs)
        setenv("FILTERVIEW_BATCH_GRAPHS", graphs, 1);
    else
        unsetenv("FILTERVIEW_BATCH_GRAPHS");
    filterview_image out = *first;
    out.data = malloc(first->pitch * (size_t)first->height);
    CHECK(filterview_run_batch(c, first, &out, 1, NULL) == FV_OK, "%s: a first batch: %s", filter,
          filterview_context_error(c));
    free(out.data);
    unsetenv("FILTERVIEW_BATCH_GRAPHS");
    return c;
}

enum { GN = 24, GW = 37, GH = 23 };

/* The three kinds of batch, run by c into got[]: a host batch of 1, 3 and 4 channels (slots 0, 1,
 * 0 again with another count), a device stack of gray images (widened into slot 0) and a device
 * batch of RGBA images in buffers of the caller's (at `shift` images into a larger allocation, so
 * that each call's addresses differ). Images 0-7 gray, 8-15 RGB, 16-23 RGBA. */
static void graphs_batches(filterview_context *c, const filterview_image *src,
                           filterview_image *got, int shift, const char *how)
{
    CHECK(filterview_run_batch(c, src, got, GN, NULL) == FV_OK, "%s host batch: %s", how,
          filterview_context_error(c));
    const size_t gray = (size_t)GW * GH, rgba = gray * 4;
    uint8_t *stack = NULL, *rgba_in = NULL, *rgba_out = NULL;
    cudaMalloc((void **)&stack, gray * 8);
    cudaMalloc((void **)&rgba_in, rgba * (8 + (size_t)shift));
    cudaMalloc((void **)&rgba_out, rgba * (8 + (size_t)shift));
    filterview_image dev[GN], out[GN];
    for (int i = 0; i < GN; i++) {
        const int is_gray = i < 8;
        if (i >= 8 && i < 16) continue; /* the RGB ones: host only */
        dev[i] = out[i] = src[i];
        dev[i].memory = out[i].memory = FILTERVIEW_DEVICE;
        dev[i].pitch = out[i].pitch = is_gray ? (size_t)GW : (size_t)GW * 4;
        dev[i].data = out[i].data =
            is_gray ? stack + (size_t)i * gray : rgba_in + (size_t)(i - 16 + shift) * rgba;
        if (!is_gray) out[i].data = rgba_out + (size_t)(i - 16 + shift) * rgba;
        cudaMemcpy2D(dev[i].data, dev[i].pitch, src[i].data, src[i].pitch, dev[i].pitch, GH,
                     cudaMemcpyHostToDevice);
    }
    CHECK(filterview_run_batch(c, dev, dev, 8, NULL) == FV_OK, "%s gray device stack in place: %s",
          how, filterview_context_error(c));
    CHECK(filterview_run_batch(c, &dev[16], &out[16], 8, NULL) == FV_OK, "%s RGBA device batch: %s",
          how, filterview_context_error(c));
    cudaDeviceSynchronize();
    for (int i = 0; i < GN; i++)
        if (i < 8 || i >= 16)
            cudaMemcpy2D(got[GN + i].data, got[GN + i].pitch, out[i].data, out[i].pitch,
                         out[i].pitch, GH, cudaMemcpyDeviceToHost);
    cudaFree(stack), cudaFree(rgba_in), cudaFree(rgba_out);
}

/* One variant's batches, without graphs (FILTERVIEW_BATCH_GRAPHS=0) against each image's own run
 * and with graphs, three calls, against those without, bit for bit. 0 where the variant declines
 * the filter's defaults. */
static int batch_graphs_case(const char *filter, const char *variant, const filterview_image *src,
                             filterview_image *one, filterview_image *want, filterview_image *got)
{
    filterview_context *direct = graphs_context(filter, variant, "0", GW, GH, &src[0]);
    filterview_context *graphs = graphs_context(filter, variant, NULL, GW, GH, &src[0]);
    if (!direct || !graphs) {
        filterview_context_destroy(direct), filterview_context_destroy(graphs);
        return 0;
    }
    for (int i = 0; i < GN; i++)
        CHECK(filterview_run(direct, &src[i], &one[i], NULL) == FV_OK, "%s/%s image %d: %s", filter,
              variant, i, filterview_context_error(direct));
    char how[96];
    snprintf(how, sizeof how, "%s/%s without graphs", filter, variant);
    graphs_batches(direct, src, want, 0, how);
    for (int i = 0; i < 2 * GN; i++)
        if (i < GN + 8 || i >= GN + 16)
            CHECK(same_pixels(&want[i], &one[i % GN]), "%s: %s image %d, against its own run", how,
                  i < GN ? "host" : "device", i % GN);
    for (int call = 0; call < 3; call++) {
        snprintf(how, sizeof how, "%s/%s with graphs, call %d", filter, variant, call + 1);
        graphs_batches(graphs, src, got, call, how);
        for (int i = 0; i < 2 * GN; i++) {
            if (i >= GN + 8 && i < GN + 16) continue; /* no RGB device images */
            CHECK(same_pixels(&got[i], &want[i]), "%s: %s image %d, graphs against none", how,
                  i < GN ? "host" : "device", i % GN);
        }
    }
    filterview_context_destroy(direct), filterview_context_destroy(graphs);
    return 1;
}

/* Every GPU variant of every filter, each capturing its own calls: canny's naive and smem, whose
 * hysteresis waits for the device, cannot be captured and fall back to direct launches; NPP's
 * peers are launched directly from the start; the rest replay graphs (box's tex copies into its
 * texture's array, conv's FFT variants run cuFFT, canny's fast launches a cooperative kernel,
 * box's fast a programmatic one on sm_90). */
static void test_batch_graphs(void)
{
    filterview_image src[GN], one[GN], want[2 * GN], got[2 * GN];
    for (int i = 0; i < GN; i++) {
        const int channels = i < 8 ? 1 : i < 16 ? 3 : 4;
        src[i] = host_image(GW, GH, channels, (size_t)(i % 3) * 4, 900u + (unsigned)i);
        one[i] = host_image(GW, GH, channels, 0, 0);
        for (int k = 0; k < 2; k++) { /* [i]: the host batch's, [GN + i]: the device's */
            want[k * GN + i] = host_image(GW, GH, channels, 0, 0);
            got[k * GN + i] = host_image(GW, GH, channels, 0, 0);
        }
    }
    int tested = 0;
    for (int f = 0; f < filterview_filter_count(); f++) {
        const char *filter = filterview_filter_name(f);
        for (int v = 0; v < filterview_variant_count(filter); v++) {
            filterview_variant_info vi = {.size = sizeof vi};
            filterview_variant_get(filter, v, &vi);
            if (!vi.on_host) tested += batch_graphs_case(filter, vi.name, src, one, want, got);
        }
    }
    CHECK(tested > filterview_filter_count(),
          "%d GPU variants' batches compared: teaching variants besides one a filter", tested);
    for (int i = 0; i < GN; i++) free(src[i].data), free(one[i].data);
    for (int i = 0; i < 2 * GN; i++) free(want[i].data), free(got[i].data);
}

/* Nothing is made after a context's first batch: under FILTERVIEW_BATCH_GRAPHS=verbose the library
 * says each graph it makes or updates. Graphs are made at the first call; later calls launch them
 * as they are (host and gray device batches: the context's own buffers) or update them (RGBA
 * device batches, whose addresses move) and make none. Canny's naive variant says once that its
 * batches run directly, and so does box's NPP peer, before trying any capture. */
static void test_batch_graphs_made_once(void)
{
    filterview_image src[GN], got[2 * GN];
    for (int i = 0; i < GN; i++) {
        const int channels = i < 8 ? 1 : i < 16 ? 3 : 4;
        src[i] = host_image(GW, GH, channels, 0, 1300u + (unsigned)i);
        got[i] = host_image(GW, GH, channels, 0, 0);
        got[GN + i] = host_image(GW, GH, channels, 0, 0);
    }
    stderr_log log = log_begin();
    filterview_context *c = graphs_context("gaussian", NULL, "verbose", GW, GH, &src[0]);
    log_count(&log, ""); /* the first batch of one image */
    for (int call = 0; c && call < 3; call++) {
        graphs_batches(c, src, got, call, "gaussian, verbose");
        const int made = log_count(&log, "batch graph made");
        if (call == 0) /* slot 0's 8 images serve the gray, the RGBA and the device stack */
            CHECK(made == 3,
                  "the first call makes 3 graphs (slots 0 and 1, the RGBA device "
                  "batch's): %d",
                  made);
        else
            CHECK(made == 0, "call %d made %d graphs: nothing is made after the first", call + 1,
                  made);
    }
    filterview_context_destroy(c);
    /* updates of the RGBA batch, counted on calls of that batch alone */
    c = graphs_context("gaussian", NULL, "verbose", GW, GH, &src[0]);
    log_count(&log, "");
    for (int call = 0; c && call < 3; call++) {
        graphs_batches(c, src, got, call, "gaussian, verbose");
        const int updated = log_count(&log, "batch graph updated");
        CHECK(call == 0 ? updated == 0 : updated == 1,
              "call %d: %d updates (the RGBA batch's graph is updated on each call after the "
              "first)",
              call + 1, updated);
    }
    filterview_context_destroy(c);
    c = graphs_context("canny", "naive", "verbose", GW, GH, &src[0]);
    const int off = log_count(&log, "batch graphs off, direct launches: a run cannot be captured");
    graphs_batches(c, src, got, 0, "canny/naive, verbose");
    const int again = log_count(&log, "batch graph");
    CHECK(off == 1 && again == 0,
          "canny/naive: said once that its batches run directly (%d), then nothing (%d)", off,
          again);
    filterview_context_destroy(c);
    /* NPP's peers are never captured: NPP does not say that its calls may be */
    int npp = 0;
    for (int v = 0; v < filterview_variant_count("box"); v++) {
        filterview_variant_info vi = {.size = sizeof vi};
        filterview_variant_get("box", v, &vi);
        npp |= strcmp(vi.name, "npp") == 0;
    }
    c = npp ? graphs_context("box", "npp", "verbose", GW, GH, &src[0]) : NULL;
    if (c) {
        const int refused = log_count(&log, "batch graphs off, direct launches: NPP does not");
        graphs_batches(c, src, got, 0, "box/npp, verbose");
        const int npp_again = log_count(&log, "batch graph");
        CHECK(refused == 1 && npp_again == 0,
              "box/npp: said at its first batch that NPP is launched directly (%d), then nothing "
              "(%d)",
              refused, npp_again);
    } else {
        printf("  no box/npp (built without NPP): the peers' refusal is not checked\n");
    }
    filterview_context_destroy(c);
    log_end(&log);
    for (int i = 0; i < GN; i++) free(src[i].data), free(got[i].data), free(got[GN + i].data);
}

/* A graph kept for a group holds the runner's state as it was prepared: a run at another size
 * remakes that state, and the next batch at the first size must capture a new graph, never replay
 * the old one (whose kernels read freed buffers). Canny's fast variant, whose intermediates are
 * device buffers of the image's size: a batch, one run at a smaller size, a batch again, each
 * image equal to its own run, and under FILTERVIEW_BATCH_GRAPHS=verbose a graph made by each
 * batch. */
static void test_batch_graphs_after_prepare(void)
{
    enum { N = 6, W = 64, H = 48, w = 40, h = 30 };
    filterview_image src[N], want[N], got[N];
    for (int i = 0; i < N; i++) {
        src[i] = host_image(W, H, 1, 0, 1700u + (unsigned)i);
        want[i] = host_image(W, H, 1, 0, 0);
        got[i] = host_image(W, H, 1, 0, 0);
    }
    filterview_context *alone = NULL;
    CHECK(filterview_context_create(&alone, "canny", "fast", W, H, NULL, NULL, 0) == FV_OK,
          "canny/fast context");
    for (int i = 0; alone && i < N; i++)
        CHECK(filterview_run(alone, &src[i], &want[i], NULL) == FV_OK, "image %d alone: %s", i,
              filterview_context_error(alone));
    filterview_context_destroy(alone);
    stderr_log log = log_begin();
    filterview_context *c = graphs_context("canny", "fast", "verbose", W, H, &src[0]);
    log_count(&log, ""); /* the first batch, of one image */
    filterview_image small = host_image(w, h, 1, 0, 1800u), small_out = host_image(w, h, 1, 0, 0);
    void *spacer = NULL; /* held while the state is remade, so that it lands elsewhere */
    for (int round = 0; c && round < 2; round++) {
        CHECK(filterview_run_batch(c, src, got, N, NULL) == FV_OK, "batch %d: %s", round + 1,
              filterview_context_error(c));
        for (int i = 0; i < N; i++)
            CHECK(same_pixels(&got[i], &want[i]), "batch %d, image %d against its own run",
                  round + 1, i);
        const int made = log_count(&log, "batch graph made");
        CHECK(made == 1, "batch %d made %d graphs: one, for the runner as it is prepared now",
              round + 1, made);
        CHECK(filterview_run(c, &small, &small_out, NULL) == FV_OK, "a %dx%d run: %s", w, h,
              filterview_context_error(c));
        if (!spacer) cudaMalloc(&spacer, (size_t)W * H * 16);
    }
    log_end(&log);
    cudaFree(spacer);
    filterview_context_destroy(c);
    free(small.data), free(small_out.data);
    for (int i = 0; i < N; i++) free(src[i].data), free(want[i].data), free(got[i].data);
}

static void test_gpu(void)
{
    for (int i = 0; i < filterview_filter_count(); i++) {
        const char *f = filterview_filter_name(i);
        for (int v = 0; v < filterview_variant_count(f); v++) {
            filterview_variant_info vi = {.size = sizeof vi};
            filterview_variant_get(f, v, &vi);
            if (vi.on_host || vi.role == FILTERVIEW_ROLE_PEER) continue;
            check_layouts(f, vi.name, NULL, 67, 41, FILTERVIEW_HOST);
            check_layouts(f, vi.name, NULL, 67, 41, FILTERVIEW_DEVICE);
            check_sizes(f, vi.name, FILTERVIEW_HOST);
            check_sizes(f, vi.name, FILTERVIEW_DEVICE);
        }
    }
    /* integer filters: the fastest equals the reference */
    const char *exact[][2] = {
        {"box", "radius=6"}, {"median", "size=9"}, {"invert", NULL}, {"canny", NULL}};
    for (int k = 0; k < 4; k++) {
        filterview_context *gpu = NULL, *ref = NULL;
        filterview_context_create(&gpu, exact[k][0], NULL, 97, 61, exact[k][1], NULL, 0);
        filterview_context_create(&ref, exact[k][0], "cpu", 97, 61, exact[k][1], NULL, 0);
        filterview_image src = host_image(97, 61, 4, 0, 5), a = host_image(97, 61, 4, 0, 0),
                         b = host_image(97, 61, 4, 0, 0);
        CHECK(gpu && ref && filterview_run(gpu, &src, &a, NULL) == FV_OK &&
                  filterview_run(ref, &src, &b, NULL) == FV_OK && max_diff(&a, &b) == 0,
              "%s: the fastest equals the reference", exact[k][0]);
        free(src.data), free(a.data), free(b.data);
        filterview_context_destroy(gpu), filterview_context_destroy(ref);
    }
    test_two_streams();
    test_batch_groups();
    test_growing_batches();
    test_device_one();
    test_batch_graphs();
    test_batch_graphs_made_once();
    test_batch_graphs_after_prepare();
}
#endif

/* ---- image parameters: conv's kernel as an array of float weights ---- */
static fv_status create_with_kernel(filterview_context **c, const char *filter,
                                    const filterview_param_image *images, int n, char *error,
                                    size_t size)
{
    *c = NULL;
    return filterview_context_create_with_images(c, -1, filter, "cpu", 9, 7, FILTERVIEW_UINT8,
                                                 strcmp(filter, "conv") ? NULL : "shape=file",
                                                 images, n, error, size);
}

static void expect_kernel_error(const char *filter, const filterview_param_image *images, int n,
                                fv_status want, const char *words)
{
    filterview_context *c = NULL;
    char error[512];
    const fv_status st = create_with_kernel(&c, filter, images, n, error, sizeof error);
    CHECK(st == want && c == NULL && strstr(error, words),
          "create_with_images(%s, %d images): status %d, '%s' (want %d, '%s')", filter, n, st,
          error, want, words);
    filterview_context_destroy(c);
}

/* One element of an array of image parameters, sized as this header has it */
static filterview_param_image param_image(const char *name, const filterview_image *image)
{
    const filterview_param_image p = {.size = sizeof p, .name = name, .image = image};
    return p;
}

static void test_image_params(void)
{
    /* a binomial 5x5 (weights summing to 256, so quantised exactly): the result is the integer
     * (sum + 128) / 256 over replicated borders, counted here */
    static const int b[5] = {1, 4, 6, 4, 1};
    float weights[25];
    for (int i = 0; i < 25; i++) weights[i] = (float)(b[i / 5] * b[i % 5]);
    filterview_image kernel = {.size = sizeof kernel,
                               .data = weights,
                               .width = 5,
                               .height = 5,
                               .pitch = 5 * sizeof(float),
                               .channels = 1,
                               .memory = FILTERVIEW_HOST,
                               .dtype = FILTERVIEW_FLOAT32};
    filterview_param_image images[] = {param_image("kernel-file", &kernel)};
    filterview_image src = host_image(9, 7, 1, 3, 99), dst = host_image(9, 7, 1, 0, 1);
    filterview_context *c = NULL;
    char error[512];
    CHECK(create_with_kernel(&c, "conv", images, 1, error, sizeof error) == FV_OK && c,
          "conv with a float kernel: %s", error);
    for (int i = 0; i < 25; i++) weights[i] = 0; /* the context keeps its own copy */
    if (c && filterview_run(c, &src, &dst, NULL) == FV_OK) {
        int worst = 0;
        for (int y = 0; y < 7; y++)
            for (int x = 0; x < 9; x++) {
                int sum = 0;
                for (int i = 0; i < 5; i++)
                    for (int j = 0; j < 5; j++) {
                        int yy = y + i - 2, xx = x + j - 2;
                        yy = yy < 0 ? 0 : yy > 6 ? 6 : yy;
                        xx = xx < 0 ? 0 : xx > 8 ? 8 : xx;
                        sum += b[i] * b[j] * ((const uint8_t *)src.data)[yy * src.pitch + xx];
                    }
                const int e =
                    abs(((const uint8_t *)dst.data)[y * dst.pitch + x] - (sum + 128) / 256);
                if (e > worst) worst = e;
            }
        CHECK(worst == 0, "conv with a binomial kernel: off by %d from the exact sums", worst);
    } else {
        CHECK(0, "conv with a float kernel did not run: %s", c ? filterview_context_error(c) : "");
    }
    filterview_context_destroy(c);
    free(src.data);
    free(dst.data);

    weights[12] = 1;
    filterview_param_image wrong_name[] = {param_image("kernel", &kernel)};
    expect_kernel_error("conv", wrong_name, 1, FV_ERR_ARG,
                        "conv has no image parameter 'kernel' (it has: kernel-file)");
    expect_kernel_error("box", images, 1, FV_ERR_ARG,
                        "box has no image parameter 'kernel-file' (it has none)");
    filterview_param_image twice[] = {param_image("kernel-file", &kernel),
                                      param_image("kernel-file", &kernel)};
    expect_kernel_error("conv", twice, 2, FV_ERR_ARG, "kernel-file: given twice");
    filterview_param_image none[] = {param_image("kernel-file", NULL)};
    expect_kernel_error("conv", none, 1, FV_ERR_ARG, "kernel-file: no image");
    filterview_image large = kernel;
    large.width = large.height = 129;
    filterview_param_image too_large[] = {param_image("kernel-file", &large)};
    expect_kernel_error("conv", too_large, 1, FV_ERR_SIZE,
                        "kernel-file: 129x129 is not within 1x1..127x127");
    weights[3] = -1;
    expect_kernel_error("conv", images, 1, FV_ERR_ARG,
                        "kernel image 5x5 has weight -1 at (3, 0): weights are finite and not "
                        "negative");
    expect_kernel_error("conv", NULL, 1, FV_ERR_ARG, "image parameters: 1 given");
    /* the elements of a newer header, larger than this library's: found by the first's size */
    struct newer_param_image {
        filterview_param_image param;
        double field_of_a_later_release;
    } newer[2] = {{param_image("kernel-file", &kernel), 1.5},
                  {param_image("kernel-file", &kernel), 1.5}};
    newer[0].param.size = newer[1].param.size = sizeof newer[0];
    weights[3] = 0;
    c = NULL;
    CHECK(create_with_kernel(&c, "conv", &newer[0].param, 1, error, sizeof error) == FV_OK && c,
          "conv with a larger image parameter struct: %s", error);
    filterview_context_destroy(c);
    expect_kernel_error("conv", &newer[0].param, 2, FV_ERR_ARG, "kernel-file: given twice");
    /* unsized: the array's element, or the image it points to */
    filterview_param_image unsized[] = {param_image("kernel-file", &kernel)};
    unsized[0].size = 0;
    expect_kernel_error("conv", unsized, 1, FV_ERR_ARG,
                        "image parameters: .size is 0: set it to sizeof (filterview_param_image)");
    filterview_image unsized_kernel = kernel;
    unsized_kernel.size = 0;
    filterview_param_image of_unsized[] = {param_image("kernel-file", &unsized_kernel)};
    expect_kernel_error("conv", of_unsized, 1, FV_ERR_ARG,
                        "kernel-file: .size is 0: set it to sizeof (filterview_image)");
}

/* ---- image files ---- */
/* A host copy of a device image (tight rows), for comparisons on the host */
static filterview_image host_copy(const filterview_image *d)
{
    filterview_image h = host_image(d->width, d->height, d->channels, 0, 0);
#ifdef FV_HAVE_CUDA
    cudaMemcpy2D(h.data, h.pitch, d->data, d->pitch, (size_t)d->width * d->channels,
                 (size_t)d->height, cudaMemcpyDeviceToHost);
#endif
    return h;
}

static void test_files(int gpu)
{
    char dir[] = "/tmp/fv_test_library_XXXXXX", path[256], error[512];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    /* a padded RGB image written as PNG and read back: the same pixels, tightly packed */
    filterview_image rgb = host_image(23, 17, 3, 5, 7), back = {.size = sizeof back};
    filterview_file_info info = {.size = sizeof info};
    snprintf(path, sizeof path, "%s/rgb.png", dir);
    CHECK(filterview_image_write(path, &rgb, NULL, &info, error, sizeof error) == FV_OK &&
              strcmp(info.format, "PNG") == 0 && info.codec == FILTERVIEW_CODEC_CPU && !info.lossy,
          "write %s: '%s'", path, error);
    CHECK(filterview_image_read(path, FILTERVIEW_HOST, &back, &info, error, sizeof error) ==
                  FV_OK &&
              back.channels == 3 && back.dtype == FILTERVIEW_UINT8 &&
              back.memory == FILTERVIEW_HOST && back.pitch == 23 * 3 && same_pixels(&rgb, &back),
          "read %s back: '%s'", path, error);
    /* a gray JPEG stays gray; what JPEG loses of RGBA is said */
    filterview_image gray = host_image(16, 16, 1, 0, 3), rgba = host_image(16, 16, 4, 0, 5);
    snprintf(path, sizeof path, "%s/gray.jpg", dir);
    filterview_image gray_back = {.size = sizeof gray_back};
    CHECK(filterview_image_write(path, &gray, NULL, NULL, error, sizeof error) == FV_OK &&
              filterview_image_read(path, FILTERVIEW_HOST, &gray_back, NULL, error, sizeof error) ==
                  FV_OK &&
              gray_back.channels == 1,
          "gray JPEG read back with %d channels: '%s'", gray_back.channels, error);
    filterview_image_free(&gray_back);
    CHECK(gray_back.data == NULL, "freed and cleared");
    snprintf(path, sizeof path, "%s/rgba.jpg", dir);
    filterview_write_options opt = {.size = sizeof opt, .jpeg_quality = 101};
    CHECK(filterview_image_write(path, &rgba, &opt, &info, error, sizeof error) == FV_ERR_ARG &&
              strstr(error, "jpeg_quality"),
          "quality 101: '%s'", error);
    opt.jpeg_quality = 75;
    CHECK(filterview_image_write(path, &rgba, &opt, &info, error, sizeof error) == FV_OK &&
              info.lossy && strstr(info.note, "rgba.jpg"),
          "RGBA to JPEG: note '%s'", info.note);
    /* an older header's info: nothing written past its size */
    filterview_file_info older;
    memset(&older, 0xab, sizeof older);
    older.size = offsetof(filterview_file_info, lossy);
    snprintf(path, sizeof path, "%s/rgb.png", dir);
    filterview_image again = {.size = sizeof again};
    CHECK(filterview_image_read(path, FILTERVIEW_HOST, &again, &older, error, sizeof error) ==
                  FV_OK &&
              strcmp(older.format, "PNG") == 0 && (unsigned char)older.note[0] == 0xab,
          "read into an older filterview_file_info");
    filterview_image_free(&again);
    /* refusals, each naming the file */
    filterview_image unsized = {0};
    CHECK(filterview_image_read(path, FILTERVIEW_HOST, &unsized, NULL, error, sizeof error) ==
                  FV_ERR_ARG &&
              strstr(error, "sizeof (filterview_image)"),
          "unsized image: '%s'", error);
    snprintf(path, sizeof path, "%s/missing.png", dir);
    CHECK(filterview_image_read(path, FILTERVIEW_HOST, &again, NULL, error, sizeof error) ==
                  FV_ERR_IO &&
              strstr(error, "missing.png"),
          "missing file: '%s'", error);
    snprintf(path, sizeof path, "%s/out.gif", dir);
    CHECK(filterview_image_write(path, &rgb, NULL, NULL, error, sizeof error) != FV_OK &&
              strstr(error, "out.gif"),
          "unknown ending: '%s'", error);
    snprintf(path, sizeof path, "%s/rgb.png", dir);
    filterview_image dev = {.size = sizeof dev};
    if (!gpu) {
        CHECK(filterview_image_read(path, FILTERVIEW_DEVICE, &dev, NULL, error, sizeof error) ==
                  FV_ERR_NO_DEVICE,
              "device read without a device: '%s'", error);
    } else {
        /* a PNG decoded on the host and copied up; a JPEG of it written from the device */
        CHECK(filterview_image_read(path, FILTERVIEW_DEVICE, &dev, &info, error, sizeof error) ==
                      FV_OK &&
                  dev.memory == FILTERVIEW_DEVICE && info.codec == FILTERVIEW_CODEC_CPU,
              "device read of a PNG: '%s'", error);
        filterview_image down = host_copy(&dev);
        CHECK(same_pixels(&down, &rgb), "device read equals the file");
        snprintf(path, sizeof path, "%s/dev.jpg", dir);
        CHECK(filterview_image_write(path, &dev, NULL, &info, error, sizeof error) == FV_OK,
              "device write: '%s'", error);
        printf("a device RGB image written as JPEG by the %s codec\n",
               info.codec == FILTERVIEW_CODEC_NVJPEG ? "nvjpeg" : "cpu");
        filterview_image jpeg = {.size = sizeof jpeg};
        CHECK(filterview_image_read(path, FILTERVIEW_DEVICE, &jpeg, &info, error, sizeof error) ==
                      FV_OK &&
                  jpeg.channels == 3 && jpeg.width == 23 && jpeg.height == 17,
              "device read of a JPEG: '%s'", error);
        printf("a JPEG read into device memory by the %s codec\n",
               info.codec == FILTERVIEW_CODEC_NVJPEG ? "nvjpeg" : "cpu");
        filterview_image_free(&jpeg);
        filterview_image_free(&dev);
        free(down.data);
    }
    filterview_image_free(&back);
    free(rgb.data);
    free(gray.data);
    free(rgba.data);
    const char *names[] = {"rgb.png", "gray.jpg", "rgba.jpg", "dev.jpg"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    CHECK(rmdir(dir) == 0, "%s: only the files written were there", dir);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0); /* each line out before whatever comes next */
    test_registry();
    test_errors();
    test_growing();
    test_reference();
    test_image_params();
    char why[256];
    test_files(filterview_device_available(why, sizeof why));
#ifdef FV_HAVE_CUDA
    if (filterview_device_available(why, sizeof why))
        test_gpu();
    else
#else
    if (!filterview_device_available(why, sizeof why))
#endif
        printf("no CUDA device (%s): the GPU cases are not run\n", why);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : passed ? 0 : 1;
}
