/* ------------------------------------------------------------------------------------------------
 * tests/gpu/test_user_kernels.c: the teaching kit's kernels (examples/kernels), compiled with NVRTC,
 * loaded and run through the runner like any variant: the Gaussian examples equal the built-in
 * variant they copy and the reference bit for bit, the separable one the reference, and the slow
 * median the reference, on awkward sizes (1x1, 1xN, Nx1, primes, odd pitches of cudaMallocPitch)
 * and a photo, for several parameter sets and two iterations. The box exercise (box_todo.cu) runs
 * and is not yet the reference; the racy one (smem_race.cu) runs. Also: resources are reported
 * through the variant's kernels callback (cudaFuncGetAttributes on the loaded kernel).
 * Exits 77 (skipped) where there is no CUDA device.
 * Usage: test_user_kernels EXAMPLES_DIR PHOTO TEMP_DIR
 * ------------------------------------------------------------------------------------------------ */
#define _GNU_SOURCE /* setenv, mkdtemp */
#include "image_io.h"
#include "test_util.h"
#include "user/user_kernel.h"

#include <unistd.h>

static test_counts t;

/* what each example must equal: a built-in variant (NULL: none) and the reference (or not) */
static const struct {
    const char *file, *filter, *builtin;
    int equals_ref;
    const char *const params[8]; /* parameter sets, NULL-terminated */
} cases[] = {
    {"gaussian_naive.cu",
     "gaussian",
     "naive",
     1,
     {"sigma=1", "sigma=0.5", "sigma=3", "sigma=1 radius=3", "sigma=10.6", "sigma=0.1 radius=32",
      NULL}},
    {"gaussian_smem.cu",
     "gaussian",
     "smem",
     1,
     {"sigma=1", "sigma=0.5", "sigma=3", "sigma=1 radius=3", "sigma=10.6", "sigma=0.1 radius=32",
      NULL}},
    {"gaussian_smem_mwpt.cu",
     "gaussian",
     "smem_mwpt",
     1,
     {"sigma=1", "sigma=0.5", "sigma=3", "sigma=1 radius=3", "sigma=10.6", "sigma=0.1 radius=32",
      NULL}},
    {"gaussian_separable.cu",
     "gaussian",
     NULL,
     1,
     {"sigma=1", "sigma=0.5", "sigma=3", "sigma=10.6", "sigma=0.1 radius=32", NULL}},
    {"median_slow.cu", "median", NULL, 1, {"size=3", "size=5", "size=9", NULL}},
    {"box_todo.cu", "box", NULL, 0, {"radius=2", NULL}},
    {"smem_race.cu", "gaussian", NULL, 0, {"sigma=2", NULL}},
};
#define N_CASES (int)(sizeof cases / sizeof cases[0])

static const int sizes[][2] = {{1, 1}, {1, 13}, {29, 1}, {7, 5}, {97, 61}, {251, 127}, {509, 67}};
#define N_SIZES (int)(sizeof sizes / sizeof sizes[0])

/* Runs v on `src` (host) with p, downloads the result into out (host, allocated here). */
static fv_status run_variant(const fv_filter *f, const fv_variant *v, const fv_params *p,
                             const fv_image *src, fv_image *out)
{
    fv_runner r;
    memset(&r, 0, sizeof r);
    fv_image dsrc = {0}, ddst = {0};
    fv_status st = fv_host_image_alloc(out, src->width, src->height);
    if (st == FV_OK) st = fv_runner_prepare(&r, f, v, p, src->width, src->height);
    if (st == FV_OK && fv_variant_is_host(v)) {
        st = fv_runner_run(&r, src, out, 0);
    } else if (st == FV_OK) {
        st = fv_device_image_alloc(&dsrc, src->width, src->height);
        if (st == FV_OK) st = fv_device_image_alloc(&ddst, src->width, src->height);
        if (st == FV_OK) st = fv_image_upload(&dsrc, src);
        if (st == FV_OK) st = fv_runner_run(&r, &dsrc, &ddst, 0);
        if (st == FV_OK && cudaDeviceSynchronize() != cudaSuccess)
            st = fv_fail(FV_ERR_CUDA, "%s: %s", v->name, cudaGetErrorString(cudaGetLastError()));
        if (st == FV_OK) st = fv_image_download(out, &ddst);
    }
    fv_runner_release(&r);
    fv_device_image_free(&dsrc);
    fv_device_image_free(&ddst);
    return st;
}

static int same_bytes(const fv_image *a, const fv_image *b, char *where, size_t size)
{
    int x, y;
    const int d = test_max_abs_diff(a, b, 0, &x, &y);
    snprintf(where, size, "max |difference| %d, first at (%d, %d)", d, x, y);
    return d == 0;
}

static void test_case(int c, const fv_image *photo, uint32_t *seed, const char *examples)
{
    const fv_filter *f = fv_filter_find(cases[c].filter);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", examples, cases[c].file);
    fv_user_build *b = NULL;
    if (fv_user_compile(f, path, NULL, &b, NULL) != FV_OK) {
        test_check(&t, 0, "compiles:", fv_last_error());
        return;
    }
    fv_user_variant *u = NULL;
    if (fv_user_variant_make(b, &u) != FV_OK) { /* b is freed */
        test_check(&t, 0, "makes its variant:", fv_last_error());
        return;
    }
    const fv_variant *v = fv_user_variant_get(u);
    const fv_variant *builtin = cases[c].builtin ? fv_variant_find(f, cases[c].builtin) : NULL;
    const fv_variant *ref = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
    int passed = 0, failed = 0;
    for (int pi = 0; cases[c].params[pi]; pi++) {
        fv_params p;
        char why[200];
        if (!test_param_entry(f, cases[c].params[pi], &p, why, sizeof why)) {
            test_check(&t, 0, "parameter set parses:", why);
            continue;
        }
        for (int s = 0; s <= N_SIZES; s++) {
            for (int iterations = 1; iterations <= (s == 4 ? 2 : 1); iterations++) {
                fv_image src = {0};
                if (s == N_SIZES) {
                    if (!photo || pi >= 2) continue; /* the photo: the first two sets */
                    src = *photo;
                } else {
                    fv_host_image_alloc(&src, sizes[s][0], sizes[s][1]);
                    test_fill_random(&src, seed);
                }
                p.iterations = iterations;
                fv_image got = {0}, want_ref = {0}, want_builtin = {0};
                char what[300], where[120];
                snprintf(what, sizeof what, "%s %s %dx%d x%d", cases[c].file, cases[c].params[pi],
                         src.width, src.height, iterations);
                fv_status st = run_variant(f, v, &p, &src, &got);
                if (st != FV_OK) {
                    failed++;
                    printf("FAIL: %s runs: %s\n", what, fv_last_error());
                } else {
                    if (cases[c].equals_ref) {
                        if (run_variant(f, ref, &p, &src, &want_ref) == FV_OK &&
                            same_bytes(&got, &want_ref, where, sizeof where)) {
                            passed++;
                        } else {
                            failed++;
                            printf("FAIL: %s equals the reference: %s\n", what, where);
                        }
                    }
                    if (builtin) {
                        if (run_variant(f, builtin, &p, &src, &want_builtin) == FV_OK &&
                            same_bytes(&got, &want_builtin, where, sizeof where)) {
                            passed++;
                        } else {
                            failed++;
                            printf("FAIL: %s equals built-in %s: %s\n", what, builtin->name, where);
                        }
                    }
                    if (!cases[c].equals_ref && !builtin) passed++; /* it ran */
                }
                fv_host_image_free(&got);
                fv_host_image_free(&want_ref);
                fv_host_image_free(&want_builtin);
                if (s != N_SIZES) fv_host_image_free(&src);
            }
        }
    }
    /* the exercise is unfinished: its result is not yet the reference's */
    if (strcmp(cases[c].file, "box_todo.cu") == 0) {
        fv_image src, got = {0}, want = {0};
        fv_host_image_alloc(&src, 64, 48);
        test_fill_random(&src, seed);
        fv_params p = fv_params_default(f);
        char where[120];
        const int differs = run_variant(f, v, &p, &src, &got) == FV_OK &&
                            run_variant(f, ref, &p, &src, &want) == FV_OK &&
                            !same_bytes(&got, &want, where, sizeof where);
        test_check(&t, differs, "box_todo.cu is still to be finished (differs from the reference)",
                   NULL);
        fv_host_image_free(&src);
        fv_host_image_free(&got);
        fv_host_image_free(&want);
    }
    /* resources of the loaded kernels, as the HUD shows them */
    const fv_params pd = fv_params_default(f);
    fv_kernel_info k[FV_MAX_KERNELS];
    const int nk = v->kernels(v, &pd, NULL, k, FV_MAX_KERNELS); /* a user kernel packs pd */
    int resources_ok = nk == (b->two_pass ? 2 : 1);
    for (int i = 0; i < nk; i++) {
        fv_kernel_resources res;
        resources_ok &= fv_kernel_resources_get(&k[i], &res) == FV_OK && res.registers > 0 &&
                        res.blocks_per_sm > 0 && res.block_threads == k[i].block_threads;
    }
    char text[400];
    fv_variant_resources_text(NULL, v, &pd, text, sizeof text);
    printf("  %s\n", text);
    test_check(&t, resources_ok, "registers, shared memory and occupancy of", cases[c].file);
    t.passed += passed;
    t.failed += failed;
    printf("%-24s %4d passed, %d failed\n", cases[c].file, passed, failed);
    fv_user_variant_free(u);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        printf("usage: test_user_kernels EXAMPLES_DIR PHOTO TEMP_DIR\n");
        return 2;
    }
    if (fv_device_check() != FV_OK) {
        printf("skipped: %s\n", fv_last_error());
        return 77;
    }
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s/user_kernels_XXXXXX", argv[3]);
    if (!mkdtemp(tmp)) {
        printf("cannot make a temporary folder in %s\n", argv[3]);
        return 1;
    }
    setenv("XDG_CACHE_HOME", tmp, 1); /* never the user's own cache */
    uint32_t seed = test_seed();
    fv_image photo = {0};
    const int have_photo = image_load(argv[2], &photo) == FV_OK;
    test_check(&t, have_photo, "photo loads:", have_photo ? NULL : fv_last_error());
    for (int c = 0; c < N_CASES; c++) test_case(c, have_photo ? &photo : NULL, &seed, argv[1]);
    if (have_photo) fv_host_image_free(&photo);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0) printf("note: could not remove %s\n", tmp);
    return test_finish(&t);
}
