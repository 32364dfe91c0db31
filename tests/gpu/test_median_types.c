/* ------------------------------------------------------------------------------------------------
 * tests/gpu/test_median_types.c (label gpu): every GPU variant of the median held to its reference
 * byte for byte (NaN equal to NaN) in every pixel type and border it declares, on the sizes that
 * meet each kernel's edges (1x1, 1xN, Nx1, primes, more than one block) and every window size the
 * `fast` variant has code of its own for. The float32 images hold NaN of either sign, infinities
 * and signed zeros beside values in 0..1 and negatives, so that where the GPU puts them is held to
 * where the reference does (tests/gpu/test_filters.c draws images without them). The constant
 * border's cval is in each type's range. Exits 77 (skipped) where there is no CUDA device.
 * ------------------------------------------------------------------------------------------------ */
#include "median/median.h"
#include "test_util.h"

#include <math.h>

static test_counts t;

/* NaN (both signs), infinities, signed zeros and negatives among a float32 image's values: one
 * value in eight is one of them. */
static void add_specials(fv_image *img, uint32_t *seed)
{
    static const uint32_t special[] = {0x7fc00000u, 0xffc01234u, 0x7f800000u,
                                       0xff800000u, 0x80000000u, 0x00000000u};
    for (int y = 0; y < img->height; y++) {
        float *row = (float *)(img->data + (size_t)y * img->pitch);
        for (int i = 0; i < 4 * img->width; i++) {
            const uint32_t u = test_rand(seed);
            if (u % 8 != 0) continue;
            if (u % 3 == 0) {
                row[i] = -row[i] * 100;
            } else {
                const uint32_t bits = special[(u >> 8) % 6];
                memcpy(&row[i], &bits, 4);
            }
        }
    }
}

/* Bit for bit, NaN equal to NaN whatever its bits (fv_diff_host takes -0 for +0). */
static int same_bits(const fv_image *a, const fv_image *b)
{
    const size_t bytes = fv_pixel_type_bytes(a->type), row = 4 * bytes * (size_t)a->width;
    for (int y = 0; y < a->height; y++) {
        const uint8_t *pa = a->data + (size_t)y * a->pitch, *pb = b->data + (size_t)y * b->pitch;
        if (a->type != FV_PIXEL_F32) {
            if (memcmp(pa, pb, row)) return 0;
            continue;
        }
        for (size_t i = 0; i < row; i += 4) {
            float x, z;
            memcpy(&x, pa + i, 4), memcpy(&z, pb + i, 4);
            if (memcmp(pa + i, pb + i, 4) && !(isnan(x) && isnan(z))) return 0;
        }
    }
    return 1;
}

/* One case: the variant against the reference; 1 when it ran and equals it. */
static int run_case(const fv_filter *f, const fv_variant *v, fv_pixel_type type, fv_border border,
                    int w, int h, int k, uint32_t *seed)
{
    fv_params p = fv_params_default(f);
    p.type = type;
    p.value[MEDIAN_SIZE] = k;
    p.value[MEDIAN_BORDER] = border;
    p.value[MEDIAN_CVAL] = type == FV_PIXEL_F32 ? 0.375 : (type == FV_PIXEL_U16 ? 40000 : 200);
    char what[200];
    snprintf(what, sizeof what, "%s %s %s %dx%d size %d", v->name, fv_pixel_type_name(type),
             fv_border_names[border], w, h, k);
    fv_image src = {0}, want = {0}, got = {0}, dsrc = {0}, ddst = {0};
    fv_runner ref = {0}, gpu = {0};
    int ok = fv_host_image_alloc_as(&src, w, h, type, 4) == FV_OK &&
             fv_host_image_alloc_as(&want, w, h, type, 4) == FV_OK &&
             fv_host_image_alloc_as(&got, w, h, type, 4) == FV_OK &&
             fv_device_image_alloc_as(&dsrc, w, h, type, 4) == FV_OK &&
             fv_device_image_alloc_as(&ddst, w, h, type, 4) == FV_OK;
    if (ok) {
        fv_image_fill_random(&src, test_rand(seed));
        if (type == FV_PIXEL_F32) add_specials(&src, seed);
        ok = fv_runner_prepare(&ref, f, fv_filter_variant_of_role(f, FV_ROLE_REFERENCE), &p, w,
                               h) == FV_OK &&
             fv_runner_run(&ref, &src, &want, 0) == FV_OK &&
             fv_image_upload(&dsrc, &src) == FV_OK &&
             fv_runner_prepare(&gpu, f, v, &p, w, h) == FV_OK &&
             fv_runner_run(&gpu, &dsrc, &ddst, 0) == FV_OK &&
             cudaDeviceSynchronize() == cudaSuccess && fv_image_download(&got, &ddst) == FV_OK;
        if (!ok) printf("%s: %s\n", what, fv_last_error());
    }
    fv_diff_stats d = {0};
    if (ok) fv_diff_host(&got, &want, &d);
    const int same = ok && d.n_differing == 0 && same_bits(&got, &want);
    if (ok && !same) {
        const size_t len = strlen(what);
        snprintf(what + len, sizeof what - len, ": %lld pixels differ, largest by %g%s",
                 d.n_differing, d.max_abs_value, d.n_differing ? "" : " (the sign of a zero)");
    }
    test_check(&t, same, "equals the reference:", what);
    fv_runner_release(&ref), fv_runner_release(&gpu);
    fv_host_image_free(&src), fv_host_image_free(&want), fv_host_image_free(&got);
    fv_device_image_free(&dsrc), fv_device_image_free(&ddst);
    return same;
}

int main(void)
{
    const fv_filter *f = fv_filter_find("median");
    test_check(&t, f != NULL, "the registry has 'median'", NULL);
    if (!f) return test_finish(&t);
    if (fv_device_check() != FV_OK) {
        printf("skipped: %s\n", fv_last_error());
        return 77;
    }
    uint32_t seed = test_seed();
    static const int sizes[][2] = {{1, 1},   {1, 7},   {7, 1},   {2, 2},
                                   {31, 17}, {130, 3}, {3, 130}, {121, 67}};
    static const int wide[2] = {333, 211}; /* more than one block of every kernel each way */
    for (int vi = 0; vi < f->n_variants; vi++) {
        const fv_variant *v = &f->variants[vi];
        if (fv_variant_is_host(v) || fv_variant_is_peer(v)) continue;
        const int fast = v->role == FV_ROLE_FASTEST;
        int failed = t.failed;
        for (int type = 0; type < FV_PIXEL_TYPE_COUNT; type++) {
            if (!(fv_variant_types(v) & FV_TYPE_BIT(type))) continue;
            for (int b = 0; b < FV_BORDER_COUNT; b++) {
                if (!(fv_variant_borders(v) & FV_BORDER_BIT(b))) continue;
                /* fast: every size it has code of its own for; the counting variants: the
                 * smallest, one in the middle and the largest */
                for (int k = FV_MEDIAN_MIN_SIZE; k <= FV_MEDIAN_MAX_SIZE; k += 2) {
                    if (!fast && k != 3 && k != 11 && k != 25) continue;
                    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                        run_case(f, v, (fv_pixel_type)type, (fv_border)b, sizes[s][0], sizes[s][1],
                                 k, &seed);
                    run_case(f, v, (fv_pixel_type)type, (fv_border)b, wide[0], wide[1], k, &seed);
                }
            }
        }
        printf("%s: %s\n", v->name, t.failed == failed ? "ok" : "FAILED");
    }
    return test_finish(&t);
}
