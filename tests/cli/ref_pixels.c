/* ------------------------------------------------------------------------------------------------
 * tests/cli/ref_pixels.c: the command line's output files checked by their pixels against the
 * filter's CPU reference called directly (f->ref, pass after pass), never through the program.
 *
 *   ref_pixels cases FILTER IMAGE [KERNEL]
 *     One line per parameter of the filter (and "iters" where it iterates): the parameter's name,
 *     then a setting that gives it a value other than its default, as NAME=VALUE words: the first
 *     candidate that changes the reference's image of IMAGE (KERNEL: an image parameter's file):
 *     the filter's test_params that set it, then steps from the default (a constant border's
 *     value with border=constant). tests/cli/pixels_case.sh runs the program with each.
 *   ref_pixels check [--tested NAME] [--iters N] [--kernel-file FILE] [--variant NAME]
 *                    [--jpeg MEAN] OUTPUT INPUT FILTER [NAME=VALUE...]
 *     Loads INPUT, runs FILTER's reference with the settings (over its defaults) and compares
 *     OUTPUT with it: exactly (R, G, B and alpha); within --variant's tolerance (a GPU variant's
 *     output); or, for --jpeg, with a mean |difference| over R, G and B of at most MEAN (JPEG is
 *     lossy). With --tested NAME the check must be able to fail: the reference without NAME's
 *     setting (NAME at its default, or one iteration) must differ from OUTPUT beyond the same
 *     bound, so a program that dropped the setting fails here.
 *   ref_pixels variants FILTER
 *     The filter's GPU variants held to the reference (not its peers), one a line.
 *   ref_pixels has FILTER NAME
 *     Exit 0 when FILTER has a parameter NAME ("iters" where it iterates), 1 otherwise.
 *   ref_pixels diff A B
 *     Prints "max abs difference M, N of P pixels differ" for two images, computed here (the
 *     test's own count, to hold --compare's printed numbers against).
 * Exit 0 when the check holds, 1 when it does not, 2 on a usage error.
 * ------------------------------------------------------------------------------------------------ */
#include "image_io.h"
#include "test_util.h"

#include <math.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: ref_pixels cases FILTER IMAGE [KERNEL]\n"
                    "       ref_pixels variants FILTER\n"
                    "       ref_pixels has FILTER NAME\n"
                    "       ref_pixels check [--tested NAME] [--iters N] [--kernel-file FILE] "
                    "[--variant NAME] [--jpeg MEAN] OUTPUT INPUT FILTER [NAME=VALUE...]\n"
                    "       ref_pixels diff A B\n");
    return 2;
}

/* ---- the reference, called directly ---- */
typedef struct setup {
    const fv_filter *f;
    fv_params p;
    fv_pixel_type type; /* of the images (the output file's) */
    fv_image kernel;    /* an image parameter's file */
} setup;

/* The settings `words` (NAME=VALUE, "iters=N" for the iterations) over f's defaults, leaving out
 * the one named `drop` (NULL: none); 0 with a message when one does not parse. */
static int settings(setup *s, char **words, int n, const char *drop, int iters)
{
    char entry[512] = "";
    s->p = fv_params_default(s->f);
    s->p.iterations = iters;
    for (int k = 0; k < n; k++) {
        const char *eq = strchr(words[k], '=');
        const size_t len = eq ? (size_t)(eq - words[k]) : strlen(words[k]);
        if (drop && strlen(drop) == len && !strncmp(words[k], drop, len)) continue;
        if (!strncmp(words[k], "iters=", 6)) {
            s->p.iterations = atoi(words[k] + 6);
            continue;
        }
        const size_t used = strlen(entry);
        snprintf(entry + used, sizeof entry - used, "%s%s", used ? " " : "", words[k]);
    }
    fv_params parsed;
    char why[200];
    if (entry[0] && !test_param_entry(s->f, entry, &parsed, why, sizeof why)) {
        printf("FAIL: settings '%s' for %s: %s\n", entry, s->f->name, why);
        return 0;
    }
    if (entry[0]) {
        parsed.iterations = s->p.iterations;
        s->p = parsed;
    }
    s->p.type = s->type;
    const int k = fv_param_index(s->f, "kernel-file");
    if (k >= 0 && s->kernel.data && !(drop && !strcmp(drop, "kernel-file"))) {
        s->p.image[k] = &s->kernel;
        s->p.value[k] = 1;
    }
    if (drop && !strcmp(drop, "iters")) s->p.iterations = 1;
    return 1;
}

/* f's reference, s->p.iterations passes from src into out (allocated here); FV_OK or why not. */
static fv_status reference(const setup *s, const fv_image *src, fv_image *out)
{
    FV_TRY(fv_params_check(s->f, &s->p));
    fv_image a, b;
    FV_TRY(fv_host_image_alloc_as(&a, src->width, src->height, src->type, 4));
    FV_TRY(fv_host_image_alloc_as(&b, src->width, src->height, src->type, 4));
    const fv_image *in = src;
    fv_image *dst = &a, *other = &b;
    fv_status st = FV_OK;
    for (int i = 0; i < s->p.iterations && st == FV_OK; i++) {
        st = s->f->ref(in, dst, &s->p);
        in = dst;
        fv_image *t = dst;
        dst = other;
        other = t;
    }
    *out = *in;                             /* the last pass's destination */
    fv_host_image_free(in == &a ? &b : &a); /* and the other buffer */
    return st;
}

/* The test's own comparison: the largest |difference| over the channels compared, the pixels that
 * differ at all, the mean |difference| over R, G and B. */
typedef struct comparison {
    int max_abs;
    long long differing;
    double mean_rgb;
} comparison;

/* Channel c of pixel (x, y) of a 4-channel host image of any type */
static double channel(const fv_image *img, int x, int y, int c)
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
        return isnan(v) ? INFINITY : v;
    }
    return *q;
}

static comparison compare(const fv_image *a, const fv_image *b, int with_alpha)
{
    comparison c = {0, 0, 0.0};
    double sum = 0;
    const int channels = with_alpha ? 4 : 3;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++) {
            double m = 0;
            for (int ch = 0; ch < channels; ch++) {
                const double va = channel(a, x, y, ch), vb = channel(b, x, y, ch);
                const double d = va == vb ? 0 : fabs(va - vb);
                if (ch < 3) sum += d;
                if (d > m) m = d;
            }
            c.differing += m != 0;
            if (ceil(m) > c.max_abs) c.max_abs = m > 1e9 ? 1000000000 : (int)ceil(m);
        }
    c.mean_rgb = sum / (3.0 * a->width * a->height);
    return c;
}

/* INPUT and OUTPUT as the program saw them: the output file in its own type, made 4 channels
 * (alpha at the type's maximum where it has none: `with_alpha` 0, alpha not compared); the input
 * in that type too (an 8-bit output from any input: the input as RGBA8, as the program reads it
 * for 8-bit work). */
static fv_status load_pair(const char *input, const char *output, fv_image *src, fv_image *got,
                           int *with_alpha)
{
    fv_image o;
    FV_TRY(image_load_native(output, NULL, &o, NULL));
    *with_alpha = fv_image_channels(&o) == 4;
    fv_status st = image_convert(&o, o.type, 4, NULL, got, NULL);
    const fv_pixel_type type = o.type;
    fv_host_image_free(&o);
    FV_TRY(st);
    if (type == FV_PIXEL_U8) return image_load(input, src);
    fv_image n;
    FV_TRY(image_load_native(input, NULL, &n, NULL));
    if (n.type != type) {
        fv_host_image_free(&n);
        return fv_fail(FV_ERR_ARG, "%s is %s, its input %s", output, fv_pixel_type_name(type),
                       fv_pixel_type_name(n.type));
    }
    st = image_convert(&n, type, 4, NULL, src, NULL);
    fv_host_image_free(&n);
    return st;
}

typedef struct bound {
    double jpeg_mean; /* > 0: JPEG, the mean over R, G, B */
    fv_tolerance tol; /* otherwise: max_abs and the share of pixels */
} bound;

static int holds(const bound *b, const comparison *c, long long pixels)
{
    if (b->jpeg_mean > 0) return c->mean_rgb <= b->jpeg_mean;
    const double share = (double)c->differing / (double)pixels;
    return c->max_abs <= b->tol.max_abs &&
           (share <= b->tol.max_share || (b->tol.max_share > 0 && c->differing <= 1));
}

static void describe(char *text, size_t size, const comparison *c, long long pixels)
{
    snprintf(text, size, "max |difference| %d, %lld of %lld pixels differ, mean over R, G, B %.3f",
             c->max_abs, c->differing, pixels, c->mean_rgb);
}

/* ---- cases ---- */
static void value_text(const fv_param_desc *d, double v, char *text, size_t size)
{
    if (d->type == FV_PARAM_CHOICE)
        snprintf(text, size, "%s=%s", d->name, d->choices[(int)v]);
    else
        snprintf(text, size, "%s=%.10g", d->name, v);
}

/* Whether the reference's image with the settings of `entry` differs on src from its image
 * without parameter `name`'s setting (a candidate the reference refuses does not count). */
static int setting_shows(setup *s, const fv_image *src, const char *entry, const char *name)
{
    char text[512], *words[FV_MAX_PARAMS + 2];
    snprintf(text, sizeof text, "%.500s", entry);
    int n = 0;
    for (char *w = strtok(text, " "); w && n < FV_MAX_PARAMS + 2; w = strtok(NULL, " "))
        words[n++] = w;
    fv_image with, without;
    if (!settings(s, words, n, NULL, 1) || reference(s, src, &with) != FV_OK) return 0;
    int shows = 1;
    if (settings(s, words, n, name, 1) && reference(s, src, &without) == FV_OK) {
        const comparison c = compare(&with, &without, 1);
        shows = c.differing > 0;
        fv_host_image_free(&without);
    }
    fv_host_image_free(&with);
    return shows;
}

/* One line per parameter: its name and the first candidate setting that changes the reference's
 * image of IMAGE: the filter's test_params entries that set it, then steps from its default (every
 * other choice; +-1, 5 and 20 steps), a constant border's value 200 with border=constant. */
static int cases(const fv_filter *f, const char *image, const char *kernel_file)
{
    setup s = {.f = f};
    fv_image src;
    if (image_load(image, &src) != FV_OK ||
        (kernel_file && image_load(kernel_file, &s.kernel) != FV_OK)) {
        printf("FAIL: %s\n", fv_last_error());
        return 1;
    }
    s.type = src.type;
    const fv_params def = fv_params_default(f);
    for (int i = 0; i < f->n_params; i++) {
        const fv_param_desc *d = &f->params[i];
        char candidates[24][256];
        int n = 0;
        char name[64];
        snprintf(name, sizeof name, "%s=", d->name);
        for (const char *const *e = f->test_params; e && *e && n < 12; e++) {
            fv_params p;
            char why[200];
            const char *at = strstr(*e, name); /* named there, not following another */
            if ((d->type == FV_PARAM_IMAGE && strstr(*e, "=file")) ||
                (at && (at == *e || at[-1] == ' ') &&
                 test_param_entry(f, *e, &p, why, sizeof why) && p.value[i] != def.value[i]))
                snprintf(candidates[n++], sizeof candidates[0], "%s", *e);
        }
        if (d->type == FV_PARAM_CHOICE) {
            for (int k = 1; k < d->n_choices && n < 24; k++)
                value_text(d, fmod(def.value[i] + k, d->n_choices), candidates[n++],
                           sizeof candidates[0]);
        } else if (!strcmp(d->name, "cval")) {
            snprintf(candidates[n++], sizeof candidates[0], "border=constant cval=200");
        } else if (d->type != FV_PARAM_IMAGE) {
            static const int steps[] = {1, -1, 5, -5, 20, -20};
            const double step = d->odd_only ? 2 : (d->step > 0 ? d->step : 1);
            for (size_t k = 0; k < sizeof steps / sizeof steps[0] && n < 24; k++) {
                const double v = def.value[i] + steps[k] * step;
                if (v >= d->min && v <= d->max)
                    value_text(d, v, candidates[n++], sizeof candidates[0]);
            }
        }
        int pick = 0;
        while (pick < n && !setting_shows(&s, &src, candidates[pick], d->name)) pick++;
        printf("%s %s\n", d->name, n ? candidates[pick < n ? pick : 0] : "");
    }
    if (f->max_iterations > 1) printf("iters iters=2\n");
    return 0;
}

static int check(int argc, char **argv)
{
    const char *tested = NULL, *kernel_file = NULL, *variant = NULL;
    int iters = 1, a = 0;
    bound b = {0};
    for (; a + 1 < argc && !strncmp(argv[a], "--", 2); a += 2) {
        if (!strcmp(argv[a], "--tested"))
            tested = argv[a + 1];
        else if (!strcmp(argv[a], "--iters"))
            iters = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--kernel-file"))
            kernel_file = argv[a + 1];
        else if (!strcmp(argv[a], "--variant"))
            variant = argv[a + 1];
        else if (!strcmp(argv[a], "--jpeg"))
            b.jpeg_mean = atof(argv[a + 1]);
        else
            return usage();
    }
    if (argc - a < 3) return usage();
    const char *output = argv[a], *input = argv[a + 1];
    setup s = {.f = fv_filter_find(argv[a + 2])};
    char **words = argv + a + 3;
    const int n_words = argc - a - 3;
    if (!s.f) {
        printf("FAIL: no filter '%s'\n", argv[a + 2]);
        return 2;
    }
    if (variant) {
        const fv_variant *v = fv_variant_find(s.f, variant);
        if (!v) {
            printf("FAIL: %s has no variant '%s'\n", s.f->name, variant);
            return 2;
        }
        b.tol = *fv_variant_tolerance(s.f, v);
        if (fv_variant_is_peer(v)) b.tol = (fv_tolerance){255, 1.0, 0.0}; /* not held to it */
    }
    fv_image src, got, want;
    int with_alpha = 1;
    if (load_pair(input, output, &src, &got, &with_alpha) != FV_OK) {
        printf("FAIL: %s\n", fv_last_error());
        return 1;
    }
    s.type = src.type;
    if (kernel_file && image_load(kernel_file, &s.kernel) != FV_OK) {
        printf("FAIL: --kernel-file: %s\n", fv_last_error());
        return 1;
    }
    if (got.width != src.width || got.height != src.height) {
        printf("FAIL: %s is %dx%d, the input %dx%d\n", output, got.width, got.height, src.width,
               src.height);
        return 1;
    }
    if (!settings(&s, words, n_words, NULL, iters)) return 1;
    char params[200], text[200];
    fv_params_describe(s.f, &s.p, params, sizeof params);
    if (reference(&s, &src, &want) != FV_OK) {
        printf("FAIL: the reference refuses %s: %s\n", params, fv_last_error());
        return 1;
    }
    const long long pixels = (long long)src.width * src.height;
    const comparison c = compare(&got, &want, with_alpha && b.jpeg_mean <= 0);
    describe(text, sizeof text, &c, pixels);
    if (!holds(&b, &c, pixels)) {
        printf("FAIL: %s is not %s's reference (%s, %d iterations): %s\n", output, s.f->name,
               params, s.p.iterations, text);
        return 1;
    }
    printf("ok: %s is %s's reference (%s, %d iterations): %s\n", output, s.f->name, params,
           s.p.iterations, text);
    fv_host_image_free(&want);
    if (tested) { /* the same check without the setting under test must fail */
        setup d = s;
        if (!settings(&d, words, n_words, tested, iters)) return 1;
        fv_params_describe(d.f, &d.p, params, sizeof params);
        if (reference(&d, &src, &want) != FV_OK) {
            printf("ok: without %s the reference refuses the rest (%s)\n", tested, fv_last_error());
            return 0;
        }
        const comparison w = compare(&got, &want, with_alpha && b.jpeg_mean <= 0);
        describe(text, sizeof text, &w, pixels);
        if (holds(&b, &w, pixels)) {
            printf("FAIL: this case cannot tell %s from its default: the reference without it "
                   "(%s, %d iterations) passes too: %s\n",
                   tested, params, d.p.iterations, text);
            return 1;
        }
        printf("ok: without %s (%s, %d iterations) it would fail: %s\n", tested, params,
               d.p.iterations, text);
        fv_host_image_free(&want);
    }
    return 0;
}

static int diff(const char *path_a, const char *path_b)
{
    fv_image a, b;
    if (image_load(path_a, &a) != FV_OK || image_load(path_b, &b) != FV_OK) {
        printf("FAIL: %s\n", fv_last_error());
        return 1;
    }
    if (a.width != b.width || a.height != b.height) {
        printf("FAIL: %dx%d against %dx%d\n", a.width, a.height, b.width, b.height);
        return 1;
    }
    const comparison c = compare(&a, &b, 1);
    printf("max abs difference %d, %lld of %lld pixels differ\n", c.max_abs, c.differing,
           (long long)a.width * a.height);
    return 0;
}

int main(int argc, char **argv)
{
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "cases")) {
        const fv_filter *f = fv_filter_find(argv[2]);
        if (!f) return usage();
        return cases(f, argv[3], argc == 5 ? argv[4] : NULL);
    }
    if (argc == 3 && !strcmp(argv[1], "variants")) {
        const fv_filter *f = fv_filter_find(argv[2]);
        if (!f) return usage();
        for (int i = 0; i < f->n_variants; i++)
            if (!fv_variant_is_host(&f->variants[i]) && !fv_variant_is_peer(&f->variants[i]))
                printf("%s\n", f->variants[i].name);
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "has")) {
        const fv_filter *f = fv_filter_find(argv[2]);
        if (!f) return usage();
        return fv_param_index(f, argv[3]) >= 0 ||
                       (!strcmp(argv[3], "iters") && f->max_iterations > 1)
                   ? 0
                   : 1;
    }
    if (argc == 4 && !strcmp(argv[1], "diff")) return diff(argv[2], argv[3]);
    if (argc > 2 && !strcmp(argv[1], "check")) return check(argc - 2, argv + 2);
    return usage();
}
