/* ------------------------------------------------------------------------------------------------
 * tests/test_filters.c (label gpu): every filter x GPU variant x size x parameter set against
 * the filter's CPU reference, within max_abs_err (0 for all filters so far: bit-exact). Sizes
 * include 1x1, 1xN, Nx1, primes and sizes that are multiples of no block; images are random
 * (seed printed), destinations are poisoned first, and both a 16-byte-aligned pitched layout
 * and a tightly packed odd pitch (like a viewer's pixel buffer) are exercised. Also checks
 * fv_diff against a host count. Exits 77 (skipped) where there is no CUDA device.
 * FV_TEST_QUICK=1 drops the largest cases (for compute-sanitizer runs).
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include <cuda_runtime_api.h>

static test_counts t;

typedef struct size_case {
    int width, height;
    int big; /* skipped in quick mode */
} size_case;

static const size_case sizes[] = {
    {1, 1, 0},    {1, 7, 0},     {7, 1, 0},    {2, 2, 0},       {31, 17, 0},      {130, 3, 0},
    {3, 130, 0},  {121, 67, 0},  {257, 129, 0}, {997, 991, 1},  {1920, 1080, 1},
};

typedef struct param_case {
    float sigma;
    int radius, iterations;
    int big_ok; /* also run on the big sizes */
} param_case;

static const param_case param_cases[] = {
    {1.0f, 2, 1, 1},  {1.0f, 2, 4, 1},  {0.5f, 0, 3, 1},  {1.0f, 1, 1, 0}, {1.3f, 0, 2, 0},
    {1.0f, 3, 1, 0},  {2.0f, 0, 1, 1},  {3.0f, 0, 2, 0},  {10.6f, 0, 1, 1},
};

/* Device image with a tightly packed pitch of 4 * width bytes (not 16-byte aligned for odd
 * widths): the layout of an OpenGL pixel buffer. */
static fv_status alloc_packed(fv_image *img, int w, int h)
{
    memset(img, 0, sizeof *img);
    void *p = NULL;
    if (cudaMalloc(&p, (size_t)w * 4 * h + 4) != cudaSuccess)
        return fv_fail(FV_ERR_MEMORY, "cudaMalloc failed");
    img->data = (uint8_t *)p + 4; /* +4: also misalign the base address */
    img->width = w;
    img->height = h;
    img->pitch = (size_t)w * 4;
    return FV_OK;
}

static void free_packed(fv_image *img)
{
    if (img->data) cudaFree(img->data - 4);
    memset(img, 0, sizeof *img);
}

static int check_cuda(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    test_check(&t, e == cudaSuccess, what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

static void test_variant_case(const fv_filter *f, const fv_variant *v, const fv_image *host_src,
                              const fv_image *expected, const fv_params *p, int packed,
                              fv_scratch *scratch)
{
    const int w = host_src->width, h = host_src->height;
    char what[200];
    snprintf(what, sizeof what, "%s/%s %dx%d %s sigma %g radius %d iterations %d", f->name,
             v->name, w, h, packed ? "packed" : "pitched", p->sigma, p->radius, p->iterations);
    fv_image src, dst, got;
    if (packed) {
        alloc_packed(&src, w, h);
        alloc_packed(&dst, w, h);
    } else {
        fv_device_image_alloc(&src, w, h);
        fv_device_image_alloc(&dst, w, h);
    }
    fv_host_image_alloc(&got, w, h);
    fv_image_upload(&src, host_src);
    cudaMemset2D(dst.data, dst.pitch, 0xA5, (size_t)w * 4, (size_t)h); /* poison */
    fv_status st = fv_run(f, v, &src, &dst, p, scratch, 0);
    test_check(&t, st == FV_OK, what, fv_last_error());
    if (st == FV_OK && check_cuda(what)) {
        fv_image_download(&got, &dst);
        int fx, fy;
        int worst = test_max_abs_diff(&got, expected, f->max_abs_err, &fx, &fy);
        char detail[320];
        snprintf(detail, sizeof detail, "%s: max abs error %d (allowed %d), first at (%d, %d)",
                 what, worst, f->max_abs_err, fx, fy);
        test_check(&t, worst <= f->max_abs_err, "matches the CPU reference:", detail);
    }
    if (packed) {
        free_packed(&src);
        free_packed(&dst);
    } else {
        fv_device_image_free(&src);
        fv_device_image_free(&dst);
    }
    fv_host_image_free(&got);
}

static void test_filter(const fv_filter *f, uint32_t *seed, int quick)
{
    fv_scratch scratch = {0};
    const int n_params = (int)(sizeof param_cases / sizeof param_cases[0]);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        if (quick && sizes[si].big) continue;
        fv_image src, expected, tmp;
        fv_host_image_alloc(&src, sizes[si].width, sizes[si].height);
        fv_host_image_alloc(&expected, sizes[si].width, sizes[si].height);
        fv_host_image_alloc(&tmp, sizes[si].width, sizes[si].height);
        for (int pi = 0; pi < n_params; pi++) {
            if (sizes[si].big && !param_cases[pi].big_ok) continue;
            fv_params p = fv_params_default();
            p.sigma = param_cases[pi].sigma;
            p.radius = param_cases[pi].radius;
            p.iterations = param_cases[pi].iterations;
            test_fill_random(&src, seed);
            fv_run_host(f, &src, &expected, &p, &tmp);
            for (int vi = 0; vi < f->n_variants; vi++) {
                if (fv_variant_is_host(&f->variants[vi])) continue;
                test_variant_case(f, &f->variants[vi], &src, &expected, &p, (int)((si + pi) % 2),
                                  &scratch);
            }
        }
        fv_host_image_free(&src);
        fv_host_image_free(&expected);
        fv_host_image_free(&tmp);
    }
    fv_scratch_free(&scratch);
}

static void test_diff(uint32_t *seed)
{
    const int w = 203, h = 77;
    fv_image ha, hb, da, db;
    fv_host_image_alloc(&ha, w, h);
    fv_host_image_alloc(&hb, w, h);
    test_fill_random(&ha, seed);
    memcpy(hb.data, ha.data, ha.pitch * h);
    long long want_count = 0;
    int want_max = 0;
    long long want_sum = 0;
    for (int i = 0; i < 500; i++) { /* change some channels of some pixels */
        uint32_t r = test_rand(seed);
        int x = (int)(r % w), y = (int)((r >> 8) % h), c = (int)((r >> 20) % 4);
        uint8_t *p = hb.data + (size_t)y * hb.pitch + 4 * (size_t)x + c;
        *p = (uint8_t)(*p + 1 + (r >> 24) % 200);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int m = 0;
            for (int c = 0; c < 4; c++) {
                int a = ha.data[(size_t)y * ha.pitch + 4 * x + c], b = hb.data[(size_t)y * hb.pitch + 4 * x + c];
                int d = a > b ? a - b : b - a;
                want_sum += d;
                if (d > m) m = d;
            }
            want_count += m != 0;
            if (m > want_max) want_max = m;
        }
    fv_device_image_alloc(&da, w, h);
    fv_device_image_alloc(&db, w, h);
    fv_image_upload(&da, &ha);
    fv_image_upload(&db, &hb);
    void *work = NULL;
    cudaMalloc(&work, fv_diff_work_bytes());
    fv_diff_stats s;
    test_check(&t, fv_diff(&da, &db, &s, work, 0) == FV_OK, "fv_diff runs", fv_last_error());
    char detail[160];
    snprintf(detail, sizeof detail, "max %d/%d count %lld/%lld mean %.5f/%.5f", s.max_abs, want_max,
             s.n_differing, want_count, s.mean_abs, want_sum / (4.0 * w * h));
    test_check(&t, s.max_abs == want_max && s.n_differing == want_count &&
                       s.mean_abs == want_sum / (4.0 * w * h),
               "fv_diff equals the host count:", detail);
    test_check(&t, fv_diff(&da, &da, &s, work, 0) == FV_OK && s.max_abs == 0 && s.n_differing == 0,
               "fv_diff of an image with itself is 0", NULL);
    cudaFree(work);
    fv_device_image_free(&da);
    fv_device_image_free(&db);
    fv_host_image_free(&ha);
    fv_host_image_free(&hb);
}

int main(void)
{
    if (fv_device_check() != FV_OK) {
        printf("skipped: %s\n", fv_last_error());
        return 77;
    }
    const char *q = getenv("FV_TEST_QUICK");
    int quick = q && *q && *q != '0';
    uint32_t seed = test_seed();
    for (int i = 0; i < fv_n_filters; i++) {
        int before = t.failed;
        test_filter(fv_filters[i], &seed, quick);
        printf("%s: %s\n", fv_filters[i]->name, t.failed == before ? "all variants match" : "MISMATCH");
    }
    test_diff(&seed);
    return test_finish(&t);
}
