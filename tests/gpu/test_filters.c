/* ------------------------------------------------------------------------------------------------
 * tests/gpu/test_filters.c (label gpu): every filter x GPU variant x size x parameter set against
 * the filter's CPU reference, within its tolerance (0 for all filters so far: bit-exact). The
 * parameter sets come from each filter's table (defaults, each parameter's corners, its typical
 * sets) and are run through fv_runner as every program does; peers (NPP) are run and their
 * difference reported, not held to the tolerance. Sizes
 * include 1x1, 1xN, Nx1, primes and sizes that are multiples of no block; images are random
 * (seed printed), destinations are poisoned first, and both a 16-byte-aligned pitched layout
 * and a tightly packed odd pitch (like a viewer's pixel buffer) are exercised. Also checks
 * fv_diff against a host count. Exits 77 (skipped) where there is no CUDA device.
 * FV_TEST_QUICK=1 drops the largest cases (for compute-sanitizer runs), FV_TEST_QUICK=2 keeps only
 * the sizes of at most SMALL_CASE_PIXELS (for the slowest tools, racecheck and initcheck, whose
 * cost grows with every shared-memory access: wide windows on 121x67 took most of their time);
 * FV_TEST_FILTER=NAME tests
 * one filter only; FV_TEST_SHARD=I/N runs every N-th (size, parameter set) case from the I-th, so N
 * processes side by side run the whole set (the random images are the same as in one run).
 * For a look at one corner, such as a kernel's choices that only large images meet:
 * FV_TEST_SIZE=WxH tests that size alone, FV_TEST_PARAMS="radius=44;radius=96" those parameter
 * sets alone (entries as in a filter's test_params), FV_TEST_VARIANT=NAME that variant alone.
 * ------------------------------------------------------------------------------------------------ */
#include "noise.h"
#include "test_util.h"

#include <cuda_runtime_api.h>

static test_counts t;
static int shard_index, shard_count = 1; /* FV_TEST_SHARD=I/N */
static long long case_number;            /* (size, parameter set) cases met so far, all filters */

typedef struct size_case {
    int width, height;
    int big; /* skipped in quick mode */
} size_case;

static const size_case sizes[] = {
    {1, 1, 0},    {1, 7, 0},     {7, 1, 0},    {2, 2, 0},       {31, 17, 0},      {130, 3, 0},
    {3, 130, 0},  {121, 67, 0},  {2100, 3, 0}, {257, 129, 1},   {997, 991, 1},    {1920, 1080, 1},
};

#define MAX_CASES 48
#define SMALL_CASE_PIXELS 4096 /* FV_TEST_QUICK=2: 1x1 .. 31x17, 130x3 and 3x130 (several blocks) */

/* The defaults with an entry's "NAME=VALUE NAME=VALUE ..." set (a check fails for an entry that
 * does not parse) */
static void parse_param_entry(const fv_filter *f, const char *entry, fv_params *out)
{
    *out = fv_params_default(f);
    char text[128];
    snprintf(text, sizeof text, "%s", entry);
    int index[FV_MAX_PARAMS], n_set = 0;
    double value[FV_MAX_PARAMS];
    for (char *item = strtok(text, " "); item && n_set < FV_MAX_PARAMS; item = strtok(NULL, " ")) {
        char *eq = strchr(item, '=');
        index[n_set] = eq ? (*eq = 0, fv_param_index(f, item)) : -1;
        int ok = index[n_set] >= 0 && fv_param_parse(f, index[n_set], eq + 1, item, &value[n_set]) == FV_OK;
        test_check(&t, ok, "test parameter entry parses:", entry);
        if (ok) n_set++;
    }
    for (int k = 0; k < n_set; k++) fv_param_set(f, out, index[k], value[k]);
    /* a later NAME=VALUE of a parameter that follows an earlier one keeps its value */
    for (int k = 0; k < n_set; k++) out->value[index[k]] = value[k];
}

/* The parameter sets a filter is tested with, all derived from its table: the defaults, each
 * parameter at its minimum and maximum (the parameters that follow it derived), the filter's own
 * typical sets (test_params), and the defaults over 3 iterations. big[i]: also on the big sizes. */
static int param_cases(const fv_filter *f, fv_params *out, int *big)
{
    int n = 0;
    const char *only = getenv("FV_TEST_PARAMS"); /* "entry;entry;...": those sets alone */
    if (only && *only) {
        char list[512];
        snprintf(list, sizeof list, "%s", only);
        for (char *entry = list; entry && n < MAX_CASES;) {
            char *next = strchr(entry, ';');
            if (next) *next++ = 0;
            if (*entry) {
                parse_param_entry(f, entry, &out[n]);
                big[n++] = 1;
            }
            entry = next;
        }
        return n;
    }
    out[n] = fv_params_default(f);
    big[n++] = 1;
    for (int i = 0; i < f->n_params; i++)
        for (int end = 0; end < 2; end++) {
            out[n] = fv_params_default(f);
            const fv_param_desc *d = &f->params[i];
            double v = d->type == FV_PARAM_CHOICE ? (end ? d->n_choices - 1 : 0) : (end ? d->max : d->min);
            if (d->odd_only && (long long)v % 2 == 0) v += end ? -1 : 1;
            fv_param_set(f, &out[n], i, v);
            big[n++] = end == 1 && i == 0;
        }
    for (const char *const *entry = f->test_params; entry && *entry && n < MAX_CASES - 1; entry++) {
        parse_param_entry(f, *entry, &out[n]);
        big[n++] = entry == f->test_params;
    }
    if (f->max_iterations > 1) {
        out[n] = fv_params_default(f);
        out[n].iterations = 3;
        big[n++] = 1;
        out[n] = fv_params_default(f);
        out[n].iterations = 4;
        big[n++] = 0;
    }
    return n;
}

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

/* Peers (NPP) are not held to the tolerance: the largest difference each showed is reported. */
typedef struct peer_worst {
    const fv_filter *f;
    const fv_variant *v;
    int max_abs;
    double share;
    int declined;       /* parameter sets it does not offer (e.g. a stage NPP cannot make) */
    char why[160];      /* the first refusal's message */
} peer_worst;
static peer_worst peers[16];
static int n_peers;

static peer_worst *peer_entry(const fv_filter *f, const fv_variant *v)
{
    int i = 0;
    while (i < n_peers && !(peers[i].f == f && peers[i].v == v)) i++;
    if (i == n_peers) {
        if (n_peers == 16) return NULL;
        peers[n_peers++] = (peer_worst){f, v, 0, 0.0, 0, ""};
    }
    return &peers[i];
}

static void peer_report(const fv_filter *f, const fv_variant *v, const fv_diff_stats *d, long long n_pixels)
{
    peer_worst *pw = peer_entry(f, v);
    if (!pw) return;
    const int i = (int)(pw - peers);
    const double share = n_pixels ? (double)d->n_differing / (double)n_pixels : 0.0;
    if (d->max_abs > peers[i].max_abs) peers[i].max_abs = d->max_abs;
    if (share > peers[i].share) peers[i].share = share;
}

static int check_cuda(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    test_check(&t, e == cudaSuccess, what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

static void test_variant_case(const fv_filter *f, const fv_variant *v, const fv_image *host_src,
                              const fv_image *expected, const fv_params *p, int packed)
{
    const int w = host_src->width, h = host_src->height;
    char what[240], params[160];
    fv_params_describe(f, p, params, sizeof params);
    snprintf(what, sizeof what, "%s/%s %dx%d %s, %s, %d iterations", f->name, v->name, w, h,
             packed ? "packed" : "pitched", params, p->iterations);
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
    fv_runner runner = {0};
    fv_status st = fv_runner_prepare(&runner, f, v, p, w, h);
    peer_worst *declining = fv_variant_is_peer(v) && st == FV_ERR_UNSUPPORTED ? peer_entry(f, v) : NULL;
    if (declining) { /* a peer need not offer every parameter set: counted and reported, not failed */
        if (!declining->declined++) snprintf(declining->why, sizeof declining->why, "%s", fv_last_error());
        st = FV_ERR_ARG;
    } else {
        if (st == FV_OK) st = fv_runner_run(&runner, &src, &dst, 0);
        test_check(&t, st == FV_OK, what, fv_last_error());
    }
    if (st == FV_OK && check_cuda(what)) {
        fv_image_download(&got, &dst);
        fv_diff_stats d;
        fv_diff_host(&got, expected, &d);
        const fv_tolerance *tol = fv_variant_tolerance(f, v);
        char detail[400];
        int fx, fy;
        test_max_abs_diff(&got, expected, tol->max_abs, &fx, &fy);
        snprintf(detail, sizeof detail, "%s: max abs error %d (allowed %d), %lld pixels differ (allowed %.4g%%), "
                 "first beyond the tolerance at (%d, %d)", what, d.max_abs, tol->max_abs, d.n_differing,
                 100.0 * tol->max_share, fx, fy);
        if (fv_variant_is_peer(v)) { /* peers may filter alpha too (NPP does): report R, G, B */
            fv_image rgb_got = got, rgb_expected;
            fv_host_image_alloc(&rgb_expected, w, h);
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    memcpy(rgb_expected.data + (size_t)y * rgb_expected.pitch + 4 * (size_t)x,
                           expected->data + (size_t)y * expected->pitch + 4 * (size_t)x, 3);
                    rgb_expected.data[(size_t)y * rgb_expected.pitch + 4 * (size_t)x + 3] =
                        rgb_got.data[(size_t)y * rgb_got.pitch + 4 * (size_t)x + 3];
                }
            fv_diff_host(&rgb_got, &rgb_expected, &d);
            fv_host_image_free(&rgb_expected);
            peer_report(f, v, &d, (long long)w * h);
        } else {
            test_check(&t, fv_tolerance_holds(tol, &d, (long long)w * h), "matches the CPU reference:", detail);
        }
    }
    fv_runner_release(&runner);
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
    fv_params cases[MAX_CASES];
    int big[MAX_CASES];
    const int n_cases = param_cases(f, cases, big);
    const size_case *list = sizes;
    size_t n_sizes = sizeof sizes / sizeof sizes[0];
    size_case only_size = {0, 0, 0};
    const char *size_text = getenv("FV_TEST_SIZE"); /* WxH: that size alone */
    if (size_text && *size_text) {
        char end = 0;
        test_check(&t, sscanf(size_text, "%dx%d%c", &only_size.width, &only_size.height, &end) == 2 &&
                           only_size.width > 0 && only_size.height > 0,
                   "FV_TEST_SIZE is WxH:", size_text);
        if (only_size.width <= 0 || only_size.height <= 0) return;
        list = &only_size;
        n_sizes = 1;
    }
    const char *only_variant = getenv("FV_TEST_VARIANT"); /* that variant alone */
    for (size_t si = 0; si < n_sizes; si++) {
        if (quick && list[si].big) continue;
        if (quick >= 2 && list[si].width * list[si].height > SMALL_CASE_PIXELS) continue;
        fv_image src, expected;
        fv_host_image_alloc(&src, list[si].width, list[si].height);
        fv_host_image_alloc(&expected, list[si].width, list[si].height);
        for (int pi = 0; pi < n_cases; pi++) {
            if (list[si].big && !big[pi]) continue;
            test_fill_random(&src, seed);
            if ((si / 2 + pi) % 2) { /* every variant on noisy sources too: runs of equal extremes */
                const fv_noise noise = {.density = 0.3, .sigma = 6, .seed = *seed};
                fv_noise_apply_host(&src, &noise);
            }
            if (case_number++ % shard_count != shard_index) continue; /* another shard's case */
            fv_runner host = {0};
            const fv_variant *cpu = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
            fv_status st = fv_runner_prepare(&host, f, cpu, &cases[pi], src.width, src.height);
            if (st == FV_OK) st = fv_runner_run(&host, &src, &expected, 0);
            fv_runner_release(&host);
            test_check(&t, st == FV_OK, "the reference runs:", fv_last_error());
            for (int vi = 0; vi < f->n_variants && st == FV_OK; vi++) {
                if (fv_variant_is_host(&f->variants[vi])) continue;
                if (only_variant && *only_variant && strcmp(only_variant, f->variants[vi].name) != 0) continue;
                test_variant_case(f, &f->variants[vi], &src, &expected, &cases[pi], (int)((si + pi) % 2));
            }
        }
        fv_host_image_free(&src);
        fv_host_image_free(&expected);
    }
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

/* Source noise on the device equals the host's, pixel for pixel (same hash, same integers). */
static void test_noise_device(uint32_t *seed)
{
    const int w = 333, h = 97;
    fv_image host, got, dev_src, dev_dst;
    fv_host_image_alloc(&host, w, h);
    fv_host_image_alloc(&got, w, h);
    fv_device_image_alloc(&dev_src, w, h);
    fv_device_image_alloc(&dev_dst, w, h);
    test_fill_random(&host, seed);
    fv_image_upload(&dev_src, &host);
    const fv_noise noise = {.density = 0.35, .sigma = 9, .seed = *seed};
    fv_status st = fv_noise_apply(&dev_src, &dev_dst, &noise, 0);
    if (st == FV_OK) st = fv_noise_apply_host(&host, &noise);
    test_check(&t, st == FV_OK && check_cuda("fv_noise_apply"), "source noise runs:", fv_last_error());
    fv_image_download(&got, &dev_dst);
    int fx, fy;
    test_check(&t, test_max_abs_diff(&got, &host, 0, &fx, &fy) == 0, "source noise: the device's image equals the host's", NULL);
    fv_host_image_free(&host);
    fv_host_image_free(&got);
    fv_device_image_free(&dev_src);
    fv_device_image_free(&dev_dst);
}

int main(void)
{
    const char *shard = getenv("FV_TEST_SHARD");
    if (shard && *shard) {
        char end = 0;
        if (sscanf(shard, "%d/%d%c", &shard_index, &shard_count, &end) != 2 || shard_count < 1 ||
            shard_index < 0 || shard_index >= shard_count) {
            fprintf(stderr, "test_filters: FV_TEST_SHARD: expected I/N with 0 <= I < N, got '%s'\n", shard);
            return 2;
        }
    }
    if (fv_device_check() != FV_OK) {
        printf("skipped: %s\n", fv_last_error());
        return 77;
    }
    const char *q = getenv("FV_TEST_QUICK");
    const int quick = q && *q >= '1' && *q <= '9' ? *q - '0' : 0; /* 0, 1 or 2 (see above) */
    const char *only = getenv("FV_TEST_FILTER"); /* one filter's name: test only that one */
    uint32_t seed = test_seed();
    for (int i = 0; i < fv_n_filters; i++) {
        if (only && *only && strcmp(only, fv_filters[i]->name) != 0) continue;
        int before = t.failed;
        test_filter(fv_filters[i], &seed, quick);
        printf("%s: %s\n", fv_filters[i]->name, t.failed == before ? "all variants match" : "MISMATCH");
    }
    for (int i = 0; i < n_peers; i++) {
        printf("peer %s/%s (not held to the tolerance): largest R, G, B difference from the reference %d, "
               "at most %.2f%% of the pixels of a case differ\n", peers[i].f->name, peers[i].v->name,
               peers[i].max_abs, 100.0 * peers[i].share);
        if (peers[i].declined)
            printf("peer %s/%s declined %d cases (%s)\n", peers[i].f->name, peers[i].v->name, peers[i].declined,
                   peers[i].why);
    }
    test_diff(&seed);
    test_noise_device(&seed);
    return test_finish(&t);
}
