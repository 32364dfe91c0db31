/* ------------------------------------------------------------------------------------------------
 * tests/gpu/test_filters.c (label gpu): every filter x GPU variant x size x parameter set against
 * the filter's CPU reference, within its tolerance (0 for all filters so far: bit-exact), in every
 * pixel type and border the variant declares (fv_variant_types, fv_variant_borders: images of that
 * type, float32 values in 0..1; the border and its constant through the filter's "border" and
 * "cval" parameters). The parameter sets come from each filter's table (defaults, each
 * parameter's corners, its typical sets) and are run through fv_runner as every program does.
 * Every verdict is the test's own comparison (integers: the largest |difference| against
 * max_abs; float32: against float_abs, NaN equal to NaN; the share of differing pixels), not the
 * product's fv_diff_host, which must agree with the test's count on every case (and has its own
 * host test, tests/cpu/test_diff_host.c). Peers (NPP) are held to the bound each states as its
 * tolerance, per pass (iterations x max_abs: NPP rounds every pass its own way), in R, G and B,
 * to the reference's alpha exactly, as every variant, and, whatever their bound, must show the
 * picture: on a drawn scene (a ramp, discs and a bar) nearer the reference than the best flat
 * picture (a black output fails); the largest difference each showed is reported too. A third of the cases are opaque (alpha at
 * the type's maximum), the rest have random alpha. Sizes
 * include 1x1, 1xN, Nx1, primes and sizes that are multiples of no block; images are random
 * (seed printed), destinations are poisoned first, and both a 16-byte-aligned pitched layout
 * and a tightly packed odd pitch (like a viewer's pixel buffer) are exercised. Also checks
 * fv_diff against a host count. Exits 77 (skipped) where there is no CUDA device, but only after
 * the selection below has been checked against the registry: a name that selects nothing fails
 * everywhere, a GPU or not. Every selected variant must run on at least one case: a peer that
 * declines every parameter set (its prepare refuses it) fails by name, as does a run that tests
 * nothing at all.
 * FV_TEST_QUICK=1 drops the largest cases (for compute-sanitizer runs), FV_TEST_QUICK=2 keeps only
 * the sizes of at most SMALL_CASE_PIXELS (for the slowest tools, racecheck and initcheck, whose
 * cost grows with every shared-memory access: wide windows on 121x67 took most of their time);
 * FV_TEST_FILTER=NAME tests
 * one filter only; FV_TEST_SHARD=I/N runs every N-th (size, parameter set) case from the I-th, so N
 * processes side by side run the whole set (each case's random image comes from the seed and its
 * case number alone, so it is the same in one run and in any shard; a shard draws only its own).
 * For a look at one corner, such as a kernel's choices that only large images meet:
 * FV_TEST_SIZE=WxH tests that size alone, FV_TEST_PARAMS="radius=44;radius=96" those parameter
 * sets alone (entries as in a filter's test_params), FV_TEST_VARIANT=NAME that variant alone.
 * ------------------------------------------------------------------------------------------------ */
#include "noise.h"
#include "test_util.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdarg.h>

static test_counts t;
static int shard_index, shard_count = 1; /* FV_TEST_SHARD=I/N */
static long long case_number;            /* (size, parameter set) cases met so far, all filters */

typedef struct size_case {
    int width, height;
    int big; /* skipped in quick mode */
} size_case;

static const size_case sizes[] = {
    {1, 1, 0},   {1, 7, 0},    {7, 1, 0},    {2, 2, 0},     {31, 17, 0},   {130, 3, 0},
    {3, 130, 0}, {121, 67, 0}, {2100, 3, 0}, {257, 129, 1}, {997, 991, 1}, {1920, 1080, 1},
};

#define MAX_CASES         64
#define SMALL_CASE_PIXELS 4096 /* FV_TEST_QUICK=2: 1x1 .. 31x17, 130x3 and 3x130 (several blocks) */

/* The defaults with an entry's "NAME=VALUE NAME=VALUE ..." set (a check fails for an entry that
 * does not parse) */
static void parse_param_entry(const fv_filter *f, const char *entry, fv_params *out)
{
    char why[200], what[400];
    const int ok = test_param_entry(f, entry, out, why, sizeof why);
    snprintf(what, sizeof what, "%s '%s': %s", f->name, entry, why);
    test_check(&t, ok, "test parameter entry parses:", what);
}

/* ---- the selection: FV_TEST_FILTER, FV_TEST_VARIANT, FV_TEST_PARAMS, FV_TEST_SIZE, FV_TEST_SHARD,
 * checked against the registry before the device is looked for ---- */
/* an entry of FV_TEST_PARAMS that names nothing: empty, or spaces alone */
static int blank(const char *text)
{
    return text[strspn(text, " ")] == 0;
}

static const char *env_text(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* One line on stderr per selection that names nothing; counted as a failure. */
#ifdef __GNUC__
__attribute__((format(printf, 1, 2)))
#endif
static void
selection_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "test_filters: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    t.failed++;
}

/* Appends `name` to the list "a, b, c" unless it is there already. */
static void list_add(char *list, size_t size, const char *name)
{
    for (const char *p = list; (p = strstr(p, name)) != NULL; p++)
        if ((p == list || p[-1] == ' ') && (p[strlen(name)] == ',' || p[strlen(name)] == 0)) return;
    const size_t len = strlen(list);
    snprintf(list + len, size - len, "%s%s", len ? ", " : "", name);
}

static int selected_filter(const fv_filter *f)
{
    const char *only = env_text("FV_TEST_FILTER");
    return !only || strcmp(only, f->name) == 0;
}

/* a variant the run compares with the reference: not the reference itself, and FV_TEST_VARIANT's */
static int selected_variant(const fv_variant *v)
{
    const char *only = env_text("FV_TEST_VARIANT");
    return !fv_variant_is_host(v) && (!only || strcmp(only, v->name) == 0);
}

/* FV_TEST_SIZE=WxH; 0 where unset, -1 where it is not a size */
static int only_size(size_case *out)
{
    const char *text = env_text("FV_TEST_SIZE");
    if (!text) return 0;
    char end = 0;
    *out = (size_case){0, 0, 0};
    if (sscanf(text, "%dx%d%c", &out->width, &out->height, &end) != 2 || out->width <= 0 ||
        out->height <= 0)
        return -1;
    return 1;
}

static int quick_level(void)
{
    const char *q = getenv("FV_TEST_QUICK");
    return q && *q >= '1' && *q <= '9' ? *q - '0' : 0; /* 0, 1 or 2 (see above) */
}

/* 0 when every name given selects something; otherwise the errors are on stderr and counted */
static int check_selection(void)
{
    const int before = t.failed;
    char names[512] = "";
    const char *filter = env_text("FV_TEST_FILTER");
    if (filter && !fv_filter_find(filter)) {
        for (int i = 0; i < fv_n_filters; i++) list_add(names, sizeof names, fv_filters[i]->name);
        selection_error("FV_TEST_FILTER='%s' names no filter (there are %s)", filter, names);
        return 1;
    }
    const char *variant = env_text("FV_TEST_VARIANT");
    if (variant) {
        int found = 0, reference = 0;
        for (int i = 0; i < fv_n_filters; i++)
            for (int k = 0; selected_filter(fv_filters[i]) && k < fv_filters[i]->n_variants; k++) {
                const fv_variant *v = &fv_filters[i]->variants[k];
                if (fv_variant_is_host(v)) {
                    reference += strcmp(variant, v->name) == 0;
                    continue;
                }
                found += strcmp(variant, v->name) == 0;
                list_add(names, sizeof names, v->name);
            }
        if (!found)
            selection_error(
                "FV_TEST_VARIANT='%s' names no variant%s%s tested against the reference%s (there are %s)",
                variant, filter ? " of " : "", filter ? filter : "",
                reference ? ": it is the reference itself" : "", names);
    }
    const char *params = env_text("FV_TEST_PARAMS");
    if (params) {
        char list[512];
        int n_entries = 0;
        snprintf(list, sizeof list, "%s", params);
        if (strlen(params) >= sizeof list)
            selection_error("FV_TEST_PARAMS is longer than %zu characters", sizeof list - 1);
        for (char *entry = list; entry;) {
            char *next = strchr(entry, ';');
            if (next) *next++ = 0;
            for (int i = 0; !blank(entry) && i < fv_n_filters; i++) {
                fv_params p;
                char why[200];
                if (selected_filter(fv_filters[i]) &&
                    !test_param_entry(fv_filters[i], entry, &p, why, sizeof why))
                    selection_error("FV_TEST_PARAMS entry '%s' selects nothing for %s: %s", entry,
                                    fv_filters[i]->name, why);
            }
            n_entries += !blank(entry);
            entry = next;
        }
        if (n_entries == 0) selection_error("FV_TEST_PARAMS='%s' holds no parameter set", params);
        if (n_entries > MAX_CASES)
            selection_error("FV_TEST_PARAMS holds %d parameter sets, a run takes %d", n_entries,
                            MAX_CASES);
    }
    size_case size;
    const int sized = only_size(&size);
    if (sized < 0)
        selection_error("FV_TEST_SIZE='%s' is not a size WxH of at least 1x1",
                        env_text("FV_TEST_SIZE"));
    if (sized > 0 && quick_level() >= 2 && (long long)size.width * size.height > SMALL_CASE_PIXELS)
        selection_error("FV_TEST_SIZE='%s' is larger than FV_TEST_QUICK=2 runs (%d pixels at most)",
                        env_text("FV_TEST_SIZE"), SMALL_CASE_PIXELS);
    const char *shard = env_text("FV_TEST_SHARD");
    if (shard) {
        char end = 0;
        if (sscanf(shard, "%d/%d%c", &shard_index, &shard_count, &end) != 2 || shard_count < 1 ||
            shard_index < 0 || shard_index >= shard_count) {
            selection_error("FV_TEST_SHARD: expected I/N with 0 <= I < N, got '%s'", shard);
            shard_index = 0;
            shard_count = 1;
        }
    }
    return t.failed != before;
}

/* The parameter sets a filter is tested with, all derived from its table: the defaults, each
 * parameter at its minimum and maximum (the parameters that follow it derived), the filter's own
 * typical sets (test_params), and the defaults over 3 iterations. big[i]: also on the big sizes. */
static int param_cases(const fv_filter *f, fv_params *out, int *big)
{
    int n = 0;
    const char *only = env_text("FV_TEST_PARAMS"); /* "entry;entry;...": those sets alone */
    if (only) {
        char list[512];
        snprintf(list, sizeof list, "%s", only);
        for (char *entry = list; entry && n < MAX_CASES;) {
            char *next = strchr(entry, ';');
            if (next) *next++ = 0;
            if (!blank(entry)) {
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
            const fv_param_desc *d = &f->params[i];
            if (d->type == FV_PARAM_IMAGE) continue; /* a file: the default runs */
            out[n] = fv_params_default(f);
            double v =
                d->type == FV_PARAM_CHOICE ? (end ? d->n_choices - 1 : 0) : (end ? d->max : d->min);
            if (d->odd_only && (long long)v % 2 == 0) v += end ? -1 : 1;
            fv_param_set(f, &out[n], i, v);
            big[n++] = end == 1 && i == 0;
        }
    for (const char *const *entry = f->test_params; entry && *entry; entry++) {
        if (n == MAX_CASES - 2) { /* room for the iteration cases below */
            test_check(&t, 0, "every test parameter set fits in MAX_CASES:", f->name);
            break;
        }
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

/* Device image of `type` (4 channels) with a tightly packed pitch of width x pixel bytes (not
 * 16-byte aligned for odd widths): the layout of an OpenGL pixel buffer. */
static fv_status alloc_packed(fv_image *img, int w, int h, fv_pixel_type type)
{
    memset(img, 0, sizeof *img);
    const size_t pixel = 4 * fv_pixel_type_bytes(type);
    void *p = NULL;
    if (cudaMalloc(&p, (size_t)w * pixel * h + 4) != cudaSuccess)
        return fv_fail(FV_ERR_MEMORY, "cudaMalloc failed");
    img->data = (uint8_t *)p + 4; /* +4: also misalign the base address */
    img->width = w;
    img->height = h;
    img->pitch = (size_t)w * pixel;
    img->memory = FV_MEMORY_DEVICE;
    img->type = type;
    img->channels = 4;
    return FV_OK;
}

static void free_packed(fv_image *img)
{
    if (img->data) cudaFree(img->data - 4);
    memset(img, 0, sizeof *img);
}

/* ---- the test's own comparison: it decides every verdict ---- */
/* Channel c of pixel (x, y) of a host image of any type, as a double. */
static double channel_at(const fv_image *img, int x, int y, int c)
{
    const size_t bytes = fv_pixel_type_bytes(img->type);
    const uint8_t *q = img->data + (size_t)y * img->pitch + (4 * (size_t)x + (size_t)c) * bytes;
    if (img->type == FV_PIXEL_U16) {
        uint16_t v;
        memcpy(&v, q, 2);
        return v;
    }
    if (img->type == FV_PIXEL_F32) {
        float v;
        memcpy(&v, q, 4);
        return v;
    }
    return *q;
}

static void set_channel(fv_image *img, int x, int y, int c, double v)
{
    const size_t bytes = fv_pixel_type_bytes(img->type);
    uint8_t *q = img->data + (size_t)y * img->pitch + (4 * (size_t)x + (size_t)c) * bytes;
    if (img->type == FV_PIXEL_U16) {
        const uint16_t u = (uint16_t)v;
        memcpy(q, &u, 2);
    } else if (img->type == FV_PIXEL_F32) {
        const float f = (float)v;
        memcpy(q, &f, 4);
    } else {
        *q = (uint8_t)v;
    }
}

/* |a - b| with NaN equal to NaN and an infinity to itself; otherwise a NaN or an infinity is
 * infinitely far (floats must land where the reference puts them). */
static double distance(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0.0 : INFINITY;
    if (isinf(a) || isinf(b)) return a == b ? 0.0 : INFINITY;
    return fabs(a - b);
}

typedef struct own_diff {
    double max;          /* largest |difference| of R, G, B (and A where `with_alpha`) */
    long long differing; /* pixels with any of those channels different */
    int fx, fy;          /* the first pixel beyond `allowed` */
    long long alpha_differs;
    int ax, ay; /* the first pixel whose alpha differs */
} own_diff;

static own_diff compare_images(const fv_image *got, const fv_image *want, double allowed,
                               int with_alpha)
{
    own_diff d = {0.0, 0, -1, -1, 0, -1, -1};
    for (int y = 0; y < got->height; y++)
        for (int x = 0; x < got->width; x++) {
            double m = 0;
            for (int c = 0; c < 4; c++) {
                const double e = distance(channel_at(got, x, y, c), channel_at(want, x, y, c));
                if (c == 3 && e != 0 && !d.alpha_differs++) d.ax = x, d.ay = y;
                if (c == 3 && !with_alpha) continue;
                if (e > m) m = e;
            }
            d.differing += m != 0;
            if (m > allowed && d.fx < 0) d.fx = x, d.fy = y;
            if (m > d.max) d.max = m;
        }
    return d;
}

/* The size bound of a tolerance for images of `type`: max_abs for integers, float_abs for float32 */
static double size_bound(const fv_tolerance *tol, fv_pixel_type type)
{
    return type == FV_PIXEL_F32 ? tol->float_abs : (double)fv_tolerance_int_bound(tol, type);
}

/* The tolerance, decided here: the size bound, and the share of pixels that differ (a share above
 * 0 allows one pixel at least, as on a 1x7 image one pixel is 14 %). */
static int own_holds(double bound, double max_share, const own_diff *d, long long n_pixels)
{
    const double share = n_pixels ? (double)d->differing / (double)n_pixels : 0.0;
    return d->max <= bound && (share <= max_share || (max_share > 0 && d->differing <= 1));
}

/* fv_diff_host on the same pair must give the test's own numbers (R, G, B and A) */
static void check_product_diff_agrees(const fv_image *got, const fv_image *want, const char *what)
{
    fv_diff_stats d;
    fv_diff_host(got, want, &d);
    const own_diff own = compare_images(got, want, INFINITY, 1);
    const int max_agrees = got->type == FV_PIXEL_F32
                               ? (d.max_abs_value == own.max)
                               : (d.max_abs == (int)own.max && d.max_abs_value == own.max);
    char detail[700];
    snprintf(detail, sizeof detail,
             "%s: fv_diff_host says max %d (%.9g), %lld pixels differ; the test counts max %.9g, "
             "%lld pixels",
             what, d.max_abs, d.max_abs_value, d.n_differing, own.max, own.differing);
    test_check(&t, max_agrees && d.n_differing == own.differing,
               "fv_diff_host agrees with the test's own count:", detail);
}

/* Peers (NPP): held to their stated bound (test_variant_case); the largest difference each showed
 * is reported at the end. */
typedef struct peer_worst {
    const fv_filter *f;
    const fv_variant *v;
    double max;
    double share;
    int declined;  /* cases it does not offer (e.g. a stage NPP cannot make) */
    char why[160]; /* the first refusal's message */
} peer_worst;
static peer_worst peers[16];
static int n_peers;

static peer_worst *peer_entry(const fv_filter *f, const fv_variant *v)
{
    int i = 0;
    while (i < n_peers && !(peers[i].f == f && peers[i].v == v)) i++;
    if (i == n_peers) {
        if (n_peers == 16) return NULL;
        peers[n_peers++] = (peer_worst){f, v, 0.0, 0.0, 0, ""};
    }
    return &peers[i];
}

static void peer_report(const fv_filter *f, const fv_variant *v, const own_diff *d,
                        long long n_pixels)
{
    peer_worst *pw = peer_entry(f, v);
    if (!pw) return;
    const double share = n_pixels ? (double)d->differing / (double)n_pixels : 0.0;
    if (d->max > pw->max) pw->max = d->max;
    if (share > pw->share) pw->share = share;
}

/* A peer declines a case it does not offer through its `supports`: fv_runner_prepare then fails
 * with FV_ERR_UNSUPPORTED before making anything; or, for a layout of the images it cannot take
 * (NPP: rows that do not start on whole pixels), its run does, before launching anything. Any
 * other failure is a failure. */
static int peer_declines(fv_status st)
{
    return st == FV_ERR_UNSUPPORTED; /* the peer's `supports` said no, before anything was made */
}

static int check_cuda(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) e = cudaGetLastError();
    test_check(&t, e == cudaSuccess, what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

/* "uint8, replicate" */
static void combo_text(const fv_filter *f, const fv_params *p, char *text, size_t size)
{
    snprintf(text, size, "%s, border %s", fv_pixel_type_name(p->type),
             fv_border_names[fv_params_border(f, p)]);
}

/* One variant on one case (the source, the reference's image and the parameters carry the pixel
 * type and the border); returns 1 when it ran (prepared and run, whatever its result), 0 when it
 * failed to or (a peer) declined the case. The verdict is the test's own comparison. */
static int test_variant_case(const fv_filter *f, const fv_variant *v, const fv_image *host_src,
                             const fv_image *expected, const fv_params *p, int packed)
{
    const int w = host_src->width, h = host_src->height;
    const fv_pixel_type type = p->type;
    char what[300], params[160], combo[80];
    fv_params_describe(f, p, params, sizeof params);
    combo_text(f, p, combo, sizeof combo);
    snprintf(what, sizeof what, "%s/%s %dx%d %s %s, %s, %d iterations", f->name, v->name, w, h,
             combo, packed ? "packed" : "pitched", params, p->iterations);
    fv_image src, dst, got;
    if (packed) {
        alloc_packed(&src, w, h, type);
        alloc_packed(&dst, w, h, type);
    } else {
        fv_device_image_alloc_as(&src, w, h, type, 4);
        fv_device_image_alloc_as(&dst, w, h, type, 4);
    }
    fv_host_image_alloc_as(&got, w, h, type, 4);
    fv_image_upload(&src, host_src);
    cudaMemset2D(dst.data, dst.pitch, 0xA5, (size_t)w * fv_image_pixel_bytes(&dst),
                 (size_t)h); /* poison */
    fv_runner runner = {0};
    fv_status st = fv_runner_prepare(&runner, f, v, p, w, h);
    if (st == FV_OK) st = fv_runner_run(&runner, &src, &dst, 0);
    peer_worst *declining = fv_variant_is_peer(v) && peer_declines(st) ? peer_entry(f, v) : NULL;
    if (declining) { /* a peer need not offer every case: counted and reported (all of them: failed) */
        if (!declining->declined++)
            snprintf(declining->why, sizeof declining->why, "%s", fv_last_error());
    } else {
        test_check(&t, st == FV_OK, what, fv_last_error());
    }
    const int ran = !declining && st == FV_OK;
    if (ran && check_cuda(what)) {
        fv_image_download(&got, &dst);
        const fv_tolerance *tol = fv_variant_tolerance(f, v);
        const long long n_pixels = (long long)w * h;
        char detail[600];
        if (fv_variant_is_peer(v)) {
            /* alpha as every variant keeps it, exactly; R, G and B within the peer's stated
             * bound, which is per pass (what they show: test_peer_content) */
            double bound = size_bound(tol, type) * p->iterations;
            if (bound > fv_pixel_type_max(type)) bound = fv_pixel_type_max(type);
            const own_diff d = compare_images(&got, expected, bound, 0);
            snprintf(detail, sizeof detail,
                     "%s: alpha differs from the reference's in %lld pixels, first at (%d, %d)",
                     what, d.alpha_differs, d.ax, d.ay);
            test_check(&t, d.alpha_differs == 0, "keeps alpha:", detail);
            snprintf(detail, sizeof detail,
                     "%s: max abs error %g (its bound %g per pass, %g here), %lld pixels differ "
                     "(allowed %.4g%%), first beyond the bound at (%d, %d)",
                     what, d.max, size_bound(tol, type), bound, d.differing, 100.0 * tol->max_share,
                     d.fx, d.fy);
            test_check(&t, own_holds(bound, tol->max_share, &d, n_pixels),
                       "within its stated bound of the CPU reference:", detail);
            peer_report(f, v, &d, n_pixels);
        } else {
            const double bound = size_bound(tol, type);
            const own_diff d = compare_images(&got, expected, bound, 1);
            snprintf(detail, sizeof detail,
                     "%s: max abs error %g (allowed %g), %lld pixels differ (allowed %.4g%%), "
                     "first beyond the tolerance at (%d, %d)",
                     what, d.max, bound, d.differing, 100.0 * tol->max_share, d.fx, d.fy);
            test_check(&t, own_holds(bound, tol->max_share, &d, n_pixels),
                       "matches the CPU reference:", detail);
        }
        check_product_diff_agrees(&got, expected, what);
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
    return ran;
}

/* A variant that ran on no case tested nothing, and fails by name. Where the run is narrowed
 * (FV_TEST_PARAMS, FV_TEST_SIZE, FV_TEST_QUICK, FV_TEST_SHARD) a peer that declined every case it
 * met, not named by FV_TEST_VARIANT, is reported instead: the narrowed set may hold only what it
 * does not offer. A shard that met none of this filter's cases has nothing to say about it. */
static void check_every_variant_ran(const fv_filter *f, const int *ran, long long cases_met,
                                    int narrowed)
{
    if (shard_count > 1 && cases_met == 0) return;
    for (int vi = 0; vi < f->n_variants; vi++) {
        const fv_variant *v = &f->variants[vi];
        if (!selected_variant(v) || ran[vi] > 0) continue;
        const peer_worst *pw = NULL;
        for (int i = 0; i < n_peers; i++)
            if (peers[i].f == f && peers[i].v == v) pw = &peers[i];
        char what[300];
        snprintf(what, sizeof what, "%s/%s%s%s%s", f->name, v->name,
                 pw && pw->declined ? " (declined every case: " : "",
                 pw && pw->declined ? pw->why : "", pw && pw->declined ? ")" : "");
        if (pw && pw->declined && narrowed && (!env_text("FV_TEST_VARIANT") || shard_count > 1))
            printf("note: peer %s declined every case of this narrowed run\n", what);
        else
            test_check(&t, 0, "a variant ran on no case, so it was not tested:", what);
    }
}

static int n_selected_variants(const fv_filter *f)
{
    int n = 0;
    for (int vi = 0; vi < f->n_variants; vi++) n += selected_variant(&f->variants[vi]);
    return n;
}

/* The random source of one case: RGBA8 as always (a third opaque, half with noise: runs of equal
 * extremes), other types from fv_image_fill_random (float32 in 0..1), opaque in the same cases. */
static void fill_source(fv_image *src, uint32_t *seed, int opaque, int noisy)
{
    if (src->type == FV_PIXEL_U8) {
        test_fill_random(src, seed);
    } else {
        fv_image_fill_random(src, test_rand(seed));
    }
    if (opaque)
        for (int y = 0; y < src->height; y++)
            for (int x = 0; x < src->width; x++)
                set_channel(src, x, y, 3, fv_pixel_type_max(src->type));
    if (noisy && src->type == FV_PIXEL_U8) { /* the noise is RGBA8's */
        const fv_noise noise = {.density = 0.3, .sigma = 6, .seed = *seed};
        fv_noise_apply_host(src, &noise);
    }
}

/* The parameters of a case with pixel type `type` and border `border` set (the border and its
 * constant through the filter's own "border" and "cval" parameters: a value inside every type's
 * range, not 0, so that a constant border that reads 0 instead shows). */
static fv_params with_combo(const fv_filter *f, const fv_params *p, fv_pixel_type type,
                            fv_border border)
{
    fv_params q = *p;
    q.type = type;
    const int bi = fv_param_index(f, "border"), ci = fv_param_index(f, "cval");
    if (bi >= 0) q.value[bi] = border;
    if (ci >= 0 && border == FV_BORDER_CONSTANT)
        q.value[ci] = type == FV_PIXEL_F32 ? 0.3 : (type == FV_PIXEL_U16 ? 40000 : 77);
    return q;
}

/* The (type, border) pairs some selected variant of f declares, as bits type * FV_BORDER_COUNT +
 * border. A variant that declares a border other than replicate in a filter without a "border"
 * parameter could never be asked for it: a failure. */
static unsigned long long declared_combos(const fv_filter *f)
{
    unsigned long long combos = 0;
    const int has_border = fv_param_index(f, "border") >= 0;
    for (int vi = 0; vi < f->n_variants; vi++) {
        const fv_variant *v = &f->variants[vi];
        if (!selected_variant(v)) continue;
        const unsigned types = fv_variant_types(v), borders = fv_variant_borders(v);
        if (!has_border && borders != FV_BORDERS_REPLICATE) {
            char what[160];
            snprintf(what, sizeof what, "%s/%s (borders mask 0x%x)", f->name, v->name, borders);
            test_check(&t, 0,
                       "declares borders its filter has no \"border\" parameter to ask for:", what);
        }
        for (int ty = 0; ty < FV_PIXEL_TYPE_COUNT; ty++)
            for (int b = 0; b < FV_BORDER_COUNT; b++)
                if ((types & FV_TYPE_BIT(ty)) && (borders & FV_BORDER_BIT(b)))
                    combos |= 1ull << (ty * FV_BORDER_COUNT + b);
    }
    return combos;
}

/* The seed of case `number` of a run seeded `seed` (splitmix64's finish: nearby numbers, unrelated
 * seeds; never 0, which the generator would keep). */
static uint32_t case_seed_of(uint32_t seed, long long number)
{
    uint64_t x = (uint64_t)seed * 0x9e3779b97f4a7c15ull + (uint64_t)number;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return (uint32_t)x ? (uint32_t)x : 1u;
}

/* Every selected variant of f on every (size, parameter set) case, in every pixel type and border
 * it declares; returns the variant runs made. */
static long long test_filter(const fv_filter *f, uint32_t seed, int quick)
{
    fv_params cases[MAX_CASES];
    int big[MAX_CASES];
    const int n_cases = param_cases(f, cases, big);
    const size_case *list = sizes;
    size_t n_sizes = sizeof sizes / sizeof sizes[0];
    size_case only = {0, 0, 0};
    if (only_size(&only) > 0) { /* FV_TEST_SIZE=WxH: that size alone (checked in check_selection) */
        list = &only;
        n_sizes = 1;
    }
    int *ran = calloc((size_t)f->n_variants, sizeof *ran);
    if (!ran) {
        test_check(&t, 0, "out of host memory for the variant counts of", f->name);
        return 0;
    }
    const unsigned long long combos = declared_combos(f);
    const fv_variant *cpu = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
    long long runs = 0, cases_met = 0;
    for (size_t si = 0; si < n_sizes; si++) {
        if (quick && list[si].big) continue;
        if (quick >= 2 && list[si].width * list[si].height > SMALL_CASE_PIXELS) continue;
        const int w = list[si].width, h = list[si].height;
        for (int pi = 0; pi < n_cases; pi++) {
            if (list[si].big && !big[pi]) continue;
            const long long number = case_number++;
            if (number % shard_count != shard_index) continue; /* another shard's case */
            fv_image src8;
            fv_host_image_alloc(&src8, w, h);
            const int opaque = (si + 2 * (size_t)pi) % 3 == 1, noisy = (si / 2 + pi) % 2;
            uint32_t src_seed = case_seed_of(seed, number);
            fill_source(&src8, &src_seed, opaque, noisy);
            const uint32_t case_seed = src_seed;
            cases_met++;
            for (int ty = 0; ty < FV_PIXEL_TYPE_COUNT; ty++)
                for (int b = 0; b < FV_BORDER_COUNT; b++) {
                    if (!(combos >> (ty * FV_BORDER_COUNT + b) & 1)) continue;
                    /* the large images for uint8 and replicate (the fast paths' own case); every
                     * other type and border on the sizes that cross block and tile edges */
                    if (list[si].big && (ty != FV_PIXEL_U8 || b != FV_BORDER_REPLICATE)) continue;
                    const fv_params p = with_combo(f, &cases[pi], (fv_pixel_type)ty, (fv_border)b);
                    /* a corner of a range that depends on the type (Canny's thresholds reach
                     * 8 x 65535 for uint16, 2040 for uint8) is no case of the other types */
                    if (fv_params_check(f, &p) != FV_OK) continue;
                    fv_image src, expected;
                    if (ty == FV_PIXEL_U8) {
                        src = src8;
                    } else { /* from this case's seed */
                        uint32_t type_seed = case_seed ^ (0x9e3779b9u * (uint32_t)ty);
                        fv_host_image_alloc_as(&src, w, h, (fv_pixel_type)ty, 4);
                        fill_source(&src, &type_seed, opaque, noisy);
                    }
                    fv_host_image_alloc_as(&expected, w, h, (fv_pixel_type)ty, 4);
                    fv_runner host = {0};
                    fv_status st =
                        cpu ? fv_runner_prepare(&host, f, cpu, &p, w, h)
                            : fv_fail(FV_ERR_ARG, "%s has no reference variant", f->name);
                    if (st == FV_OK) st = fv_runner_run(&host, &src, &expected, 0);
                    fv_runner_release(&host);
                    char combo[80], what[300];
                    combo_text(f, &p, combo, sizeof combo);
                    snprintf(what, sizeof what, "%s %dx%d %s: %s", f->name, w, h, combo,
                             fv_last_error());
                    test_check(&t, st == FV_OK, "the reference runs:", what);
                    for (int vi = 0; vi < f->n_variants && st == FV_OK; vi++) {
                        const fv_variant *v = &f->variants[vi];
                        if (!selected_variant(v) || !(fv_variant_types(v) & FV_TYPE_BIT(ty)) ||
                            !(fv_variant_borders(v) & FV_BORDER_BIT(b)))
                            continue;
                        const int r =
                            test_variant_case(f, v, &src, &expected, &p, (int)((si + pi) % 2));
                        ran[vi] += r;
                        runs += r;
                    }
                    if (ty != FV_PIXEL_U8) fv_host_image_free(&src);
                    fv_host_image_free(&expected);
                }
            fv_host_image_free(&src8);
        }
    }
    const int narrowed =
        env_text("FV_TEST_PARAMS") || env_text("FV_TEST_SIZE") || quick || shard_count > 1;
    check_every_variant_ran(f, ran, cases_met, narrowed);
    free(ran);
    return runs;
}

/* ---- peers show the picture, whatever their bound ---- */
/* A picture like a photo's: a ramp, and discs and bars of flat colours with clean edges between
 * them (random noise is all edges, where a peer that skips a stage owes the reference nothing). */
static void draw_scene(fv_image *img)
{
    static const int discs[][6] = {/* x, y, radius, R, G, B */
                                   {60, 50, 35, 220, 40, 30},
                                   {180, 120, 50, 30, 200, 90},
                                   {120, 150, 25, 250, 250, 250},
                                   {210, 40, 20, 10, 10, 10}};
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            int rgb[3] = {40 + x / 4, 60 + y / 4, 120};
            if (x > 20 && x < 240 && y > 170 && y < 180) rgb[0] = rgb[1] = rgb[2] = 200; /* a bar */
            for (size_t k = 0; k < sizeof discs / sizeof discs[0]; k++) {
                const int dx = x - discs[k][0], dy = y - discs[k][1];
                if (dx * dx + dy * dy <= discs[k][2] * discs[k][2])
                    for (int c = 0; c < 3; c++) rgb[c] = discs[k][3 + c];
            }
            for (int c = 0; c < 3; c++) set_channel(img, x, y, c, rgb[c]);
            set_channel(img, x, y, 3, 255);
        }
}

/* Mean |a - b| over R, G and B, and the same for the best flat picture (each channel's median
 * value: no constant is nearer in this measure). */
static void mean_distances(const fv_image *got, const fv_image *want, double *got_mean,
                           double *flat_mean)
{
    const double n = 3.0 * want->width * want->height;
    long long hist[3][256] = {{0}};
    double far = 0, flat = 0;
    for (int y = 0; y < want->height; y++)
        for (int x = 0; x < want->width; x++)
            for (int c = 0; c < 3; c++) {
                hist[c][(int)channel_at(want, x, y, c)]++;
                far += distance(channel_at(got, x, y, c), channel_at(want, x, y, c)) / n;
            }
    for (int c = 0; c < 3; c++) {
        int median = 0;
        for (long long below = 0;
             (below += hist[c][median]) * 2 < (long long)want->width * want->height;)
            median++;
        for (int y = 0; y < want->height; y++)
            for (int x = 0; x < want->width; x++)
                flat += fabs(channel_at(want, x, y, c) - median) / n;
    }
    *got_mean = far;
    *flat_mean = flat;
}

/* Every selected peer, on the scene with its filter's defaults (or the first test parameter set
 * it accepts), must be nearer the reference than the best flat picture: a bound as wide as the
 * whole range (NPP's Canny states 255) lets a black output through, this does not. */
static void test_peer_content(const fv_filter *f)
{
    for (int vi = 0; vi < f->n_variants; vi++) {
        const fv_variant *v = &f->variants[vi];
        if (!selected_variant(v) || !fv_variant_is_peer(v)) continue;
        const int w = 256, h = 192;
        fv_image src, expected, got, dsrc, ddst;
        fv_host_image_alloc(&src, w, h);
        fv_host_image_alloc(&expected, w, h);
        fv_host_image_alloc(&got, w, h);
        fv_device_image_alloc(&dsrc, w, h);
        fv_device_image_alloc(&ddst, w, h);
        draw_scene(&src);
        fv_image_upload(&dsrc, &src);
        cudaMemset2D(ddst.data, ddst.pitch, 0xA5, (size_t)w * 4, (size_t)h);
        fv_params p = fv_params_default(f);
        fv_runner runner = {0};
        fv_status st = fv_runner_prepare(&runner, f, v, &p, w, h);
        for (const char *const *e = f->test_params; st == FV_ERR_UNSUPPORTED && e && *e; e++) {
            char why[200];
            if (test_param_entry(f, *e, &p, why, sizeof why))
                st = fv_runner_prepare(&runner, f, v, &p, w, h);
        }
        char what[300], params[160];
        fv_params_describe(f, &p, params, sizeof params);
        snprintf(what, sizeof what, "%s/%s on a %dx%d scene, %s: %s", f->name, v->name, w, h,
                 params, st == FV_OK ? "ran" : fv_last_error());
        if (st == FV_OK) st = fv_runner_run(&runner, &dsrc, &ddst, 0);
        fv_runner_release(&runner);
        fv_runner host = {0};
        const fv_variant *cpu = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
        if (st == FV_OK && check_cuda(what) && cpu &&
            fv_runner_prepare(&host, f, cpu, &p, w, h) == FV_OK &&
            fv_runner_run(&host, &src, &expected, 0) == FV_OK) {
            fv_image_download(&got, &ddst);
            double got_mean, flat_mean;
            mean_distances(&got, &expected, &got_mean, &flat_mean);
            char detail[500];
            snprintf(detail, sizeof detail,
                     "%s: mean |difference| from the reference %.3f, the best flat picture's %.3f",
                     what, got_mean, flat_mean);
            printf("peer %s\n", detail);
            test_check(
                &t, got_mean < flat_mean,
                "a peer shows the picture (nearer the reference than any flat one):", detail);
        } else {
            test_check(&t, 0, "a peer runs on the scene:", what);
        }
        fv_runner_release(&host);
        fv_host_image_free(&src);
        fv_host_image_free(&expected);
        fv_host_image_free(&got);
        fv_device_image_free(&dsrc);
        fv_device_image_free(&ddst);
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
                int a = ha.data[(size_t)y * ha.pitch + 4 * x + c],
                    b = hb.data[(size_t)y * hb.pitch + 4 * x + c];
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
    test_check(&t,
               s.max_abs == want_max && s.n_differing == want_count &&
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
    test_check(&t, st == FV_OK && check_cuda("fv_noise_apply"),
               "source noise runs:", fv_last_error());
    fv_image_download(&got, &dev_dst);
    int fx, fy;
    test_check(&t, test_max_abs_diff(&got, &host, 0, &fx, &fy) == 0,
               "source noise: the device's image equals the host's", NULL);
    fv_host_image_free(&host);
    fv_host_image_free(&got);
    fv_device_image_free(&dev_src);
    fv_device_image_free(&dev_dst);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run stopped by a time limit keeps what it said */
    /* the names first: a selection that names nothing fails here, with or without a device */
    if (check_selection()) return test_finish(&t);
    if (fv_device_check() != FV_OK) {
        printf("skipped: %s\n", fv_last_error());
        return 77;
    }
    const int quick = quick_level();
    uint32_t seed = test_seed();
    long long runs = 0;
    for (int i = 0; i < fv_n_filters; i++) {
        if (!selected_filter(fv_filters[i])) continue;
        if (!n_selected_variants(
                fv_filters[i])) { /* FV_TEST_VARIANT names another filter's variant */
            printf("%s: no variant selected\n", fv_filters[i]->name);
            continue;
        }
        const int before = t.failed;
        const long long filter_runs = test_filter(fv_filters[i], seed, quick);
        test_peer_content(fv_filters[i]);
        runs += filter_runs;
        if (t.failed != before)
            printf("%s: MISMATCH\n", fv_filters[i]->name);
        else if (filter_runs == 0)
            printf("%s: no variant ran on a case of this run\n", fv_filters[i]->name);
        else
            printf("%s: all variants match\n", fv_filters[i]->name);
    }
    test_check(&t, runs > 0, "the selection ran at least one variant on one case", NULL);
    for (int i = 0; i < n_peers; i++) {
        const fv_tolerance *tol = fv_variant_tolerance(peers[i].f, peers[i].v);
        char u16[32] = ""; /* uint16's own bound, where it has one */
        if (fv_tolerance_int_bound(tol, FV_PIXEL_U16) != tol->max_abs)
            snprintf(u16, sizeof u16, ", uint16 to %d", fv_tolerance_int_bound(tol, FV_PIXEL_U16));
        printf("peer %s/%s (held to %d per pass%s, alpha exact): largest R, G, B difference from "
               "the reference %g, at most %.2f%% of the pixels of a case differ\n",
               peers[i].f->name, peers[i].v->name, tol->max_abs, u16, peers[i].max,
               100.0 * peers[i].share);
        if (peers[i].declined)
            printf("peer %s/%s declined %d cases (%s)\n", peers[i].f->name, peers[i].v->name,
                   peers[i].declined, peers[i].why);
    }
    test_diff(&seed);
    test_noise_device(&seed);
    return test_finish(&t);
}
