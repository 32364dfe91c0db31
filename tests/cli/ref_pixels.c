/* ------------------------------------------------------------------------------------------------
 * tests/cli/ref_pixels.c: the command line's output files checked by their pixels against the
 * filter's CPU reference called directly (f->ref, pass after pass), never through the program.
 *
 *   ref_pixels cases FILTER
 *     One line per parameter of the filter (and "iters" where it iterates): the parameter's name,
 *     then a setting that gives it a value other than its default, as NAME=VALUE words: the first
 *     of the filter's test_params that does, else a generic step from the default (a constant
 *     border's value with border=constant). tests/cli/pixels_case.sh runs the program with each.
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

static int usage(void)
{
    fprintf(stderr, "usage: ref_pixels cases FILTER\n"
                    "       ref_pixels variants FILTER\n"
                    "       ref_pixels has FILTER NAME\n"
                    "       ref_pixels check [--tested NAME] [--iters N] [--kernel-file FILE] "
                    "[--variant NAME] [--jpeg MEAN] OUTPUT INPUT FILTER [NAME=VALUE...]\n"
                    "       ref_pixels diff A B\n");
    return 2;
}

/* ---- cases ---- */
static void print_value(const fv_param_desc *d, double v)
{
    if (d->type == FV_PARAM_CHOICE)
        printf("%s=%s", d->name, d->choices[(int)v]);
    else
        printf("%s=%.10g", d->name, v);
}

static int cases(const fv_filter *f)
{
    const fv_params def = fv_params_default(f);
    for (int i = 0; i < f->n_params; i++) {
        const fv_param_desc *d = &f->params[i];
        if (d->type == FV_PARAM_IMAGE) { /* a file: the script gives it, with what selects it */
            const char *entry = NULL;
            for (const char *const *e = f->test_params; e && *e && !entry; e++)
                if (strstr(*e, "=file")) entry = *e;
            printf("%s %s\n", d->name, entry ? entry : "");
            continue;
        }
        const char *found = NULL;
        for (const char *const *e = f->test_params; e && *e && !found; e++) {
            fv_params p;
            char why[200];
            if (test_param_entry(f, *e, &p, why, sizeof why) && p.value[i] != def.value[i]) {
                /* the entry must name it: a value it got by following another does not count */
                char name[64];
                snprintf(name, sizeof name, "%s=", d->name);
                const char *at = strstr(*e, name);
                if (at && (at == *e || at[-1] == ' ')) found = *e;
            }
        }
        printf("%s ", d->name);
        if (found) {
            printf("%s\n", found);
            continue;
        }
        double v;
        if (!strcmp(d->name, "border")) {
            v = FV_BORDER_WRAP; /* reflect repeats the edge pixel: at a reach of 1 it reads as
                                   replicate does, and the case could not tell them apart */
        } else if (!strcmp(d->name, "cval")) {
            v = fmin(d->max, 128); /* far from the default 0: a blur of a constant border one
                                      level away moves the output less than a float variant's
                                      tolerance, and the case could not tell them apart */
        } else if (d->type == FV_PARAM_CHOICE) {
            v = fmod(def.value[i] + 1, d->n_choices);
        } else {
            const double step = d->odd_only ? 2 : (d->step > 0 ? d->step : 1);
            v = def.value[i] + step <= d->max ? def.value[i] + step : def.value[i] - step;
        }
        if (!strcmp(d->name, "cval")) printf("border=constant ");
        print_value(d, v);
        printf("\n");
    }
    if (f->max_iterations > 1) printf("iters iters=2\n");
    return 0;
}

/* ---- the reference, called directly ---- */
typedef struct setup {
    const fv_filter *f;
    fv_params p;
    fv_image kernel; /* an image parameter's file */
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
    fv_config config;
    FV_TRY(fv_config_make(s->f, &s->p, &config));
    fv_image a, b;
    FV_TRY(fv_host_image_alloc_as(&a, src->width, src->height, src->type, 4));
    FV_TRY(fv_host_image_alloc_as(&b, src->width, src->height, src->type, 4));
    const fv_image *in = src;
    fv_image *dst = &a, *other = &b;
    fv_status st = FV_OK;
    for (int i = 0; i < s->p.iterations && st == FV_OK; i++) {
        st = s->f->ref(in, dst, &config);
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

/* Channel ch of pixel (x, y), of any type, as a number. */
static double channel(const fv_image *img, int x, int y, int ch)
{
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    const size_t i = (size_t)x * (size_t)fv_image_channels(img) + (size_t)ch;
    if (img->type == FV_PIXEL_U16) {
        uint16_t v;
        memcpy(&v, row + 2 * i, 2);
        return v;
    }
    if (img->type == FV_PIXEL_F32) {
        float v;
        memcpy(&v, row + 4 * i, 4);
        return v;
    }
    return row[i];
}

/* a and b of one type and channel count; the colour channels, and alpha when with_alpha */
static comparison compare(const fv_image *a, const fv_image *b, int with_alpha)
{
    comparison c = {0, 0, 0.0};
    double sum = 0;
    const int all = fv_image_channels(a), colour = all < 3 ? all : 3;
    const int channels = with_alpha ? all : colour;
    for (int y = 0; y < a->height; y++)
        for (int x = 0; x < a->width; x++) {
            double m = 0;
            for (int ch = 0; ch < channels; ch++) {
                const double d = fabs(channel(a, x, y, ch) - channel(b, x, y, ch));
                if (ch < colour) sum += d;
                if (d > m) m = d;
            }
            c.differing += m != 0;
            if (m > c.max_abs) c.max_abs = (int)ceil(m);
        }
    c.mean_rgb = sum / ((double)colour * a->width * a->height);
    return c;
}

/* f's reference on `input` read as the program reads it (its own type, widened to 4 channels),
 * then written as the output was (its type and channels, by the program's own conversion). */
static fv_status reference_as(setup *s, const fv_image *src4, const fv_image *like, fv_image *out)
{
    fv_image want4;
    s->p.type = src4->type;
    FV_TRY(reference(s, src4, &want4));
    const fv_status st =
        image_convert(&want4, like->type, fv_image_channels(like), NULL, out, NULL);
    fv_host_image_free(&want4);
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
        if (fv_variant_is_peer(v)) b.tol = (fv_tolerance){255, 1.0, 0.0, 0}; /* not held to it */
    }
    fv_image native, src, got, want;
    if (image_load_native(input, NULL, &native, NULL) != FV_OK ||
        image_convert(&native, native.type, 4, NULL, &src, NULL) != FV_OK ||
        image_load_native(output, NULL, &got, NULL) != FV_OK) {
        printf("FAIL: %s\n", fv_last_error());
        return 1;
    }
    fv_host_image_free(&native);
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
    if (reference_as(&s, &src, &got, &want) != FV_OK) {
        printf("FAIL: the reference refuses %s: %s\n", params, fv_last_error());
        return 1;
    }
    const long long pixels = (long long)src.width * src.height;
    const comparison c = compare(&got, &want, b.jpeg_mean <= 0);
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
        if (reference_as(&d, &src, &got, &want) != FV_OK) {
            printf("ok: without %s the reference refuses the rest (%s)\n", tested, fv_last_error());
            return 0;
        }
        const comparison w = compare(&got, &want, b.jpeg_mean <= 0);
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
    fv_host_image_free(&src);
    fv_host_image_free(&got);
    fv_host_image_free(&s.kernel);
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
    fv_host_image_free(&a);
    fv_host_image_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "cases")) {
        const fv_filter *f = fv_filter_find(argv[2]);
        if (!f) return usage();
        return cases(f);
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
