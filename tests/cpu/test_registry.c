/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_registry.c (label cpu): the registry checked as data, since everything else (the
 * CLI, menus, bench, the GPU tests) loops over it and trusts it. The filter list: within
 * FV_MAX_FILTERS, names unique and usable as flag values, each found by name. Each filter: one
 * reference variant and at least one fastest, a baseline that names a variant other than the
 * reference, its CPU reference function, variant names unique and flag-like, the reference
 * alone without a kernel, state made and destroyed in pairs, a sane tolerance, max_iterations in
 * 1..FV_MAX_ITERATIONS. Each parameter table: names unique and flag-like, in the order of the
 * filter header's enum of indices (and its count, where the header has one), ranges and
 * defaults consistent (min <= def <= max, steps > 0, odd-only defaults odd, choices named, an
 * automatic 0 allowed where a parameter has one, `follows` naming another parameter), the
 * defaults passing the filter's own check. Every test_params entry parses and passes the check.
 * Each filter's typed configuration is made once by a prepare, never by its runs; conv's kernel
 * is made there, and its sigma and radius are checked by their rows alone. Needs no GPU.
 * ------------------------------------------------------------------------------------------------ */
#include "box/box.h"
#include "canny/canny.h"
#include "conv/conv.h"
#include "gaussian/gaussian_taps.h"
#include "median/median.h"
#include "test_util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>

static test_counts t;

/* test_check with a formatted description */
#ifdef __GNUC__
__attribute__((format(printf, 2, 3)))
#endif
static void
expect(int ok, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    test_check(&t, ok, what, NULL);
}

/* a name the CLI takes as a flag or a value: lowercase letters, digits, '_' and '-', starting with
 * a letter */
static int flag_like(const char *name)
{
    if (!name || !(*name >= 'a' && *name <= 'z')) return 0;
    for (const char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'))
            return 0;
    return 1;
}

static int filled(const char *text)
{
    return text && *text;
}

/* ---- the filter headers' enums of parameter indices: what each table must agree with ---- */
typedef struct param_enum {
    const char *filter;
    int count;                        /* the enum's count constant, or its last index + 1 */
    const char *names[FV_MAX_PARAMS]; /* by index */
    int choice_index, n_choices; /* a choice parameter whose names are an enum too (-1: none) */
    int choice_index2, n_choices2;
} param_enum;

static const param_enum enums[] = {
    {"gaussian",
     GAUSSIAN_N_PARAMS,
     {[GAUSSIAN_SIGMA] = "sigma",
      [GAUSSIAN_RADIUS] = "radius",
      [GAUSSIAN_BORDER] = "border",
      [GAUSSIAN_CVAL] = "cval"},
     -1,
     0,
     -1,
     0},
    {"box",
     BOX_N_PARAMS,
     {[BOX_RADIUS] = "radius", [BOX_BORDER] = "border", [BOX_CVAL] = "cval"},
     -1,
     0,
     -1,
     0},
    {"median",
     MEDIAN_N_PARAMS,
     {[MEDIAN_SIZE] = "size", [MEDIAN_BORDER] = "border", [MEDIAN_CVAL] = "cval"},
     MEDIAN_BORDER,
     FV_BORDER_COUNT,
     -1,
     0},
    {"canny",
     CANNY_N_PARAMS,
     {[CANNY_STAGE] = "stage",
      [CANNY_SIGMA] = "sigma",
      [CANNY_NORM] = "norm",
      [CANNY_LOW] = "low",
      [CANNY_HIGH] = "high",
      [CANNY_THRESHOLDS] = "thresholds",
      [CANNY_HYSTERESIS] = "hysteresis",
      [CANNY_SWEEPS] = "sweeps",
      [CANNY_BORDER] = "border",
      [CANNY_CVAL] = "cval"},
     CANNY_STAGE,
     CANNY_N_STAGES,
     -1,
     0},
    {"conv",
     CONV_N_PARAMS,
     {[CONV_STAGE] = "stage",
      [CONV_SHAPE] = "shape",
      [CONV_SIGMA] = "sigma",
      [CONV_RADIUS] = "radius",
      [CONV_LENGTH] = "length",
      [CONV_ANGLE] = "angle",
      [CONV_KERNEL_FILE] = "kernel-file",
      [CONV_BORDER] = "border",
      [CONV_CVAL] = "cval"},
     CONV_STAGE,
     CONV_N_STAGES,
     CONV_SHAPE,
     CONV_N_SHAPES},
};

static void test_filter_list(void)
{
    expect(fv_n_filters >= 1 && fv_n_filters <= FV_MAX_FILTERS,
           "the registry holds 1..%d filters (%d)", FV_MAX_FILTERS, fv_n_filters);
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        expect(f != NULL, "fv_filters[%d] is set", i);
        if (!f) continue;
        expect(flag_like(f->name), "filter name '%s' is flag-like (lowercase, digits, '_', '-')",
               f->name ? f->name : "(null)");
        expect(filled(f->summary), "%s has a summary", f->name);
        int same = 0;
        for (int j = 0; j < fv_n_filters; j++)
            same += fv_filters[j] && f->name && fv_filters[j]->name &&
                    !strcmp(fv_filters[j]->name, f->name);
        expect(same == 1, "filter name '%s' is unique (%d filters carry it)", f->name, same);
        expect(f->name && fv_filter_find(f->name) == f && fv_filter_index(f) == i,
               "fv_filter_find('%s') finds it at %d", f->name, i);
    }
    /* every enum table names a registered filter: a renamed filter leaves none unchecked */
    for (size_t e = 0; e < sizeof enums / sizeof enums[0]; e++)
        expect(fv_filter_find(enums[e].filter) != NULL,
               "the enum table's '%s' is a registered filter", enums[e].filter);
}

static void test_variants(const fv_filter *f)
{
#ifdef FV_HAVE_CUDA
    expect(f->variants != NULL && f->n_variants >= 2,
           "%s has variants (a reference and at least one more): %d", f->name, f->n_variants);
#else /* a build without CUDA: the GPU rows are left out, the reference stays */
    expect(f->variants != NULL && f->n_variants == 1,
           "%s has its reference alone without CUDA: %d variants", f->name, f->n_variants);
#endif
    if (!f->variants) return;
    int n_reference = 0, n_fastest = 0;
    for (int i = 0; i < f->n_variants; i++) {
        const fv_variant *v = &f->variants[i];
        n_reference += v->role == FV_ROLE_REFERENCE;
        n_fastest += v->role == FV_ROLE_FASTEST;
        expect(flag_like(v->name), "%s: variant name '%s' is flag-like", f->name,
               v->name ? v->name : "(null)");
        expect(filled(v->summary), "%s/%s has a summary", f->name, v->name);
        int same = 0;
        for (int j = 0; j < f->n_variants; j++)
            same += v->name && f->variants[j].name && !strcmp(f->variants[j].name, v->name);
        expect(same == 1, "%s: variant name '%s' is unique (%d carry it)", f->name, v->name, same);
        expect(v->role >= FV_ROLE_TEACHING && v->role <= FV_ROLE_REFERENCE,
               "%s/%s has a known role", f->name, v->name);
        expect((v->role == FV_ROLE_REFERENCE) == (v->run == NULL),
               "%s/%s: the reference alone has no kernel to run (role %d)", f->name, v->name,
               (int)v->role);
        expect(!v->state_create == !v->state_destroy, "%s/%s: state made and destroyed in pairs",
               f->name, v->name);
        if (v->tolerance)
            expect(v->tolerance->max_abs >= 0 && v->tolerance->max_abs <= 255 &&
                       v->tolerance->max_share >= 0 && v->tolerance->max_share <= 1,
                   "%s/%s: its own tolerance is within 0..255 and 0..1", f->name, v->name);
    }
    expect(n_reference == 1, "%s has exactly one reference variant (%d)", f->name, n_reference);
#ifdef FV_HAVE_CUDA
    expect(n_fastest >= 1, "%s has a fastest variant (%d)", f->name, n_fastest);
#endif
    const fv_variant *ref = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
    expect(ref && fv_variant_is_host(ref) && fv_variant_index(f, ref) >= 0,
           "%s: fv_filter_variant_of_role finds its reference", f->name);
#ifdef FV_HAVE_CUDA
    const fv_variant *base = f->baseline ? fv_variant_find(f, f->baseline) : NULL;
    expect(base && base->role != FV_ROLE_REFERENCE && fv_filter_baseline(f) == base,
           "%s: its baseline '%s' names a variant other than the reference", f->name,
           f->baseline ? f->baseline : "(none)");
#else /* the baseline names a GPU variant: the reference stands in for it */
    expect(fv_filter_baseline(f) == ref, "%s: without CUDA the reference is the baseline", f->name);
#endif
}

static void test_filter_fields(const fv_filter *f)
{
    expect(f->ref != NULL, "%s has its CPU reference function", f->name);
    expect(f->traffic_bytes != NULL, "%s says its memory traffic (for GB/s)", f->name);
    expect(f->max_iterations >= 1 && f->max_iterations <= FV_MAX_ITERATIONS,
           "%s: max_iterations %d in 1..%d", f->name, f->max_iterations, FV_MAX_ITERATIONS);
    expect(f->tolerance.max_abs >= 0 && f->tolerance.max_abs <= 255 &&
               f->tolerance.max_share >= 0 && f->tolerance.max_share <= 1,
           "%s: its tolerance is within 0..255 and 0..1", f->name);
}

/* Every colour key a filter declares, reached through each choice of each choice parameter: a
 * title, and either a ramp with its three ticks or 1..FV_LEGEND_MAX_SWATCHES named swatches. */
static void test_legends(const fv_filter *f)
{
    if (!f->legend) return;
    int keys = 0;
    for (int i = 0; i < f->n_params; i++) {
        if (f->params[i].type != FV_PARAM_CHOICE) continue;
        for (int c = 0; c < f->params[i].n_choices; c++) {
            fv_params p = fv_params_default(f);
            p.value[i] = c;
            const fv_legend *l = f->legend(&p);
            if (!l) continue;
            keys++;
            const int ramp = l->ramp_ticks[0] && l->ramp_ticks[1] && l->ramp_ticks[2];
            int named = l->n_swatches >= 1 && l->n_swatches <= FV_LEGEND_MAX_SWATCHES;
            for (int k = 0; named && k < l->n_swatches; k++)
                named = l->swatches[k].name && l->swatches[k].name[0];
            expect(l->title && l->title[0] && (ramp != named),
                   "%s %s=%s: its colour key has a title and a ramp's three ticks or named "
                   "swatches",
                   f->name, f->params[i].name, f->params[i].choices[c]);
        }
    }
    expect(keys > 0, "%s declares colour keys: some choice shows one", f->name);
}

/* What a filter adds to its user kernels' contract header: comment lines that close (" * ...\n"),
 * fields with C names, a fill exactly where there are fields, constants named FV_... */
static void test_user_contract(const fv_filter *f)
{
    const fv_user_contract_desc *uc = f->user_contract;
    if (!uc) return;
    const char *c = uc->conventions;
    int lines_ok = !c || (c[0] && c[strlen(c) - 1] == '\n');
    for (const char *l = c; lines_ok && l && *l;) {
        const char *end = strchr(l, '\n');
        lines_ok = !strncmp(l, " * ", 3) && end;
        l = end ? end + 1 : NULL;
    }
    expect(lines_ok, "%s: its contract's conventions are comment lines \" * ...\\n\"", f->name);
    expect(uc->n_fields >= 0 && uc->n_fields <= FV_USER_MAX_FIELDS &&
               (uc->fill != NULL) == (uc->n_fields > 0),
           "%s: its contract has 0..%d derived fields and a fill exactly when it has some", f->name,
           FV_USER_MAX_FIELDS);
    for (int k = 0; k < uc->n_fields && k < FV_USER_MAX_FIELDS; k++) {
        const fv_user_field *d = &uc->fields[k];
        int ident = d->name && (isalpha((unsigned char)d->name[0]) || d->name[0] == '_');
        for (const char *ch = d->name; ident && *ch; ch++)
            ident = isalnum((unsigned char)*ch) || *ch == '_';
        expect(ident && d->count >= 1 && fv_param_index(f, d->name) < 0,
               "%s: derived field %d (%s) is a C name of 1 or more values, no parameter's", f->name,
               k, d->name ? d->name : "(null)");
    }
    expect(uc->n_constants >= 0 && uc->n_constants <= FV_USER_MAX_CONSTANTS,
           "%s: its contract has 0..%d constants", f->name, FV_USER_MAX_CONSTANTS);
    for (int k = 0; k < uc->n_constants && k < FV_USER_MAX_CONSTANTS; k++)
        expect(uc->constants[k].name && !strncmp(uc->constants[k].name, "FV_", 3),
               "%s: contract constant %d is named FV_...", f->name, k);
}

static int whole(double v)
{
    return v == floor(v);
}

static void test_param(const fv_filter *f, int i)
{
    const fv_param_desc *d = &f->params[i];
    const char *n = d->name ? d->name : "(null)";
    expect(flag_like(d->name), "%s: parameter name '%s' is flag-like", f->name, n);
    expect(filled(d->help), "%s --%s has a help line", f->name, n);
    int same = 0;
    for (int j = 0; j < f->n_params; j++)
        same += d->name && f->params[j].name && !strcmp(f->params[j].name, d->name);
    expect(same == 1, "%s: parameter name '%s' is unique (%d carry it)", f->name, n, same);
    if (d->type == FV_PARAM_CHOICE) {
        int named = d->choices != NULL;
        for (int c = 0; named && c < d->n_choices; c++) {
            named =
                filled(d->choices[c]) && !strchr(d->choices[c], ' ') && !strchr(d->choices[c], '=');
            for (int k = 0; named && k < c; k++) named = strcmp(d->choices[k], d->choices[c]) != 0;
        }
        expect(d->n_choices > 0 && named,
               "%s --%s: %d choices, each named (no space or '='), names unique", f->name, n,
               d->n_choices);
        expect(whole(d->def) && d->def >= 0 && d->def < d->n_choices,
               "%s --%s: default %g is a choice's index", f->name, n, d->def);
    } else if (d->type == FV_PARAM_IMAGE) {
        /* a file the program loads: built-in (0) by default, its largest side in max */
        expect(d->def == 0 && d->max >= 1 && whole(d->max),
               "%s --%s: an image, built-in by default, at most %g pixels a side", f->name, n,
               d->max);
    } else {
        expect(d->type == FV_PARAM_INT || d->type == FV_PARAM_REAL, "%s --%s has a known type",
               f->name, n);
        expect(d->min <= d->max, "%s --%s: min %g <= max %g", f->name, n, d->min, d->max);
        expect((d->def >= d->min && d->def <= d->max) || (d->auto_means && d->def == 0),
               "%s --%s: default %g within %g..%g (or 0 where it means %s)", f->name, n, d->def,
               d->min, d->max, d->auto_means ? d->auto_means : "nothing");
        expect(d->step > 0, "%s --%s: step %g > 0", f->name, n, d->step);
        if (d->type == FV_PARAM_INT)
            expect(whole(d->min) && whole(d->max) && whole(d->def) && whole(d->step),
                   "%s --%s: whole min, max, default, step", f->name, n);
        expect(!d->odd_only || (d->type == FV_PARAM_INT &&
                                ((long long)d->def % 2 != 0 || (d->auto_means && d->def == 0))),
               "%s --%s: odd only, so an integer with an odd default (%g)", f->name, n, d->def);
        expect(fv_param_check(f, i,
                              d->type == FV_PARAM_INT && d->odd_only && !((long long)d->min % 2)
                                  ? d->min + 1
                                  : d->min,
                              "--x") == FV_OK &&
                   fv_param_check(f, i,
                                  d->type == FV_PARAM_INT && d->odd_only && !((long long)d->max % 2)
                                      ? d->max - 1
                                      : d->max,
                                  "--x") == FV_OK,
               "%s --%s: its range's ends are accepted", f->name, n);
    }
    expect(fv_param_check(f, i, d->def, "--x") == FV_OK, "%s --%s: the default %g is accepted",
           f->name, n, d->def);
    if (d->auto_means)
        expect(fv_param_check(f, i, 0, "--x") == FV_OK, "%s --%s: 0 is accepted, as it means %s",
               f->name, n, d->auto_means);
    if (d->follows) {
        const int k = fv_param_index(f, d->follows);
        expect(k >= 0 && k != i && d->auto_means,
               "%s --%s follows '%s': another parameter, and it has an automatic 0", f->name, n,
               d->follows);
    }
}

static void test_params(const fv_filter *f)
{
    expect(f->n_params >= 0 && f->n_params <= FV_MAX_PARAMS && (f->n_params == 0 || f->params),
           "%s: %d parameters, at most %d", f->name, f->n_params, FV_MAX_PARAMS);
    if (f->n_params < 0 || f->n_params > FV_MAX_PARAMS || (f->n_params && !f->params)) return;
    for (int i = 0; i < f->n_params; i++) test_param(f, i);
    fv_params p = fv_params_default(f);
    expect(fv_params_check(f, &p) == FV_OK, "%s: the defaults pass its checks (%s)", f->name,
           fv_params_check(f, &p) == FV_OK ? "ok" : fv_last_error());
    for (size_t e = 0; e < sizeof enums / sizeof enums[0]; e++) {
        const param_enum *pe = &enums[e];
        if (strcmp(pe->filter, f->name) != 0) continue;
        expect(f->n_params == pe->count, "%s: %d parameters, as its header's enum counts (%d)",
               f->name, f->n_params, pe->count);
        for (int i = 0; i < pe->count && i < f->n_params; i++) {
            const char *got = f->params[i].name ? f->params[i].name : "(null)",
                       *want = pe->names[i] ? pe->names[i] : "(none)";
            expect(!strcmp(got, want), "%s: parameter %d is '%s', as its header's enum says ('%s')",
                   f->name, i, got, want);
        }
        const int ci[2] = {pe->choice_index, pe->choice_index2},
                  cn[2] = {pe->n_choices, pe->n_choices2};
        for (int k = 0; k < 2; k++)
            if (ci[k] >= 0 && ci[k] < f->n_params)
                expect(f->params[ci[k]].type == FV_PARAM_CHOICE &&
                           f->params[ci[k]].n_choices == cn[k],
                       "%s --%s: %d choices, as its header's enum counts (%d)", f->name,
                       f->params[ci[k]].name, f->params[ci[k]].n_choices, cn[k]);
    }
}

static void test_test_params(const fv_filter *f)
{
    int n = 0;
    for (const char *const *e = f->test_params; e && *e; e++, n++) {
        fv_params p;
        char why[200];
        int ok = filled(*e) && test_param_entry(f, *e, &p, why, sizeof why);
        if (ok && fv_params_check(f, &p) != FV_OK) {
            snprintf(why, sizeof why, "%s", fv_last_error());
            ok = 0;
        }
        expect(ok, "%s: test_params entry '%s' parses and passes the checks (%s)", f->name, *e,
               filled(*e) ? why : "empty");
    }
    printf("%s: %d variants, %d parameters, %d test parameter sets\n", f->name, f->n_variants,
           f->n_params, n);
}

/* The one parser of "name=value" text (fv_param_split, fv_params_from_text): its rules and its
 * messages, on a table of its own (radius before the sigma it follows, so that the order of the
 * table is not what keeps a value given) and on the box filter. */
static void test_params_text(void)
{
    char name[8];
    const char *value = NULL;
    expect(fv_param_split("a=b=c", name, sizeof name, &value) && !strcmp(name, "a") &&
               !strcmp(value, "b=c"),
           "split: the first '=' ends the name");
    expect(fv_param_split("a=", name, sizeof name, &value) && !strcmp(value, ""),
           "split: an empty value is a value (its parse says what is wrong)");
    expect(!fv_param_split("=b", name, sizeof name, &value) &&
               !fv_param_split("ab", name, sizeof name, &value) &&
               !fv_param_split("abcdefgh=1", name, sizeof name, &value) &&
               !fv_param_split(NULL, name, sizeof name, &value),
           "split: no name, no '=', a name too long, no text");

    static const fv_param_desc table[] = {
        {.name = "radius",
         .type = FV_PARAM_INT,
         .min = 1,
         .max = 9,
         .step = 1,
         .def = 0,
         .auto_means = "from sigma",
         .follows = "sigma"},
        {.name = "sigma", .type = FV_PARAM_REAL, .min = 0.5, .max = 4, .step = 0.5, .def = 1},
    };
    const fv_filter f = {.name = "blur", .params = table, .n_params = 2, .max_iterations = 4};
    fv_params p;
    expect(fv_params_from_text(&f, NULL, &p) == FV_OK && p.value[0] == 0 && p.value[1] == 1 &&
               fv_params_from_text(&f, "", &p) == FV_OK && p.value[1] == 1,
           "no text, empty text: the defaults");
    expect(fv_params_from_text(&f, "radius=3 sigma=2", &p) == FV_OK && p.value[0] == 3 &&
               p.value[1] == 2,
           "a value given stands where it follows another given after it in the table");
    expect(fv_params_from_text(&f, "sigma=2,radius=3,\titerations=4\n", &p) == FV_OK &&
               p.value[0] == 3 && p.iterations == 4,
           "spaces, commas, tabs and newlines separate; iterations sets the count");
    const struct {
        const char *text, *message;
    } refused[] = {
        {"radius", "parameters: expected name=value, got 'radius'"},
        {"=3", "parameters: expected name=value, got '=3'"},
        {"size=3", "blur has no parameter 'size' (it has: radius, sigma, iterations)"},
        {"Radius=3", "blur has no parameter 'Radius'"},
        {"radius=2 radius=3", "parameters: 'radius' given twice"},
        {"iterations=1 iterations=2", "parameters: 'iterations' given twice"},
        {"radius=12", "radius: expected"},
        {"sigma=two", "sigma: expected"},
        {"iterations=5", "iterations: expected an integer 1..4, got '5'"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const fv_status st = fv_params_from_text(&f, refused[i].text, &p);
        expect(st == FV_ERR_ARG && strstr(fv_last_error(), refused[i].message),
               "'%s' refused with '%s' (got '%s')", refused[i].text, refused[i].message,
               st == FV_OK ? "accepted" : fv_last_error());
    }
    /* a filter of the registry: what the library's contexts and the tests' sets read */
    const fv_filter *box = fv_filter_find("box");
    expect(box && fv_params_from_text(box, "radius=5 iterations=2", &p) == FV_OK &&
               p.value[BOX_RADIUS] == 5 && p.iterations == 2,
           "box: radius=5 iterations=2");
}

/* The typed configuration: each filter has a maker and a size that fits fv_config; a prepare of
 * the reference makes one configuration, and neither an unchanged prepare, a change of the
 * iteration count nor the passes of a run make another (nothing re-reads or re-checks the values
 * after prepare). */
static void test_config_made_once(const fv_filter *f)
{
    expect(f->config_make != NULL && f->config_bytes > 0 && f->config_bytes <= FV_MAX_CONFIG_BYTES,
           "%s: a config maker, its configuration of %zu bytes fitting fv_config", f->name,
           f->config_bytes);
    const fv_variant *cpu = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
    if (!f->config_make || !cpu) return;
    fv_params p = fv_params_default(f);
    fv_image src = {0}, dst = {0};
    fv_runner r = {0};
    const unsigned long long before = fv_config_makes();
    fv_status st = fv_host_image_alloc_as(&src, 9, 7, p.type, 4);
    if (st == FV_OK) st = fv_host_image_alloc_as(&dst, 9, 7, p.type, 4);
    if (st == FV_OK) {
        for (size_t i = 0; i < src.pitch * 7; i++) src.data[i] = (uint8_t)(i * 37 + 11);
        st = fv_runner_prepare(&r, f, cpu, &p, 9, 7);
    }
    const unsigned long long after_prepare = fv_config_makes();
    p.iterations = f->max_iterations > 1 ? 3 : 1;
    if (st == FV_OK) st = fv_runner_prepare(&r, f, cpu, &p, 9, 7);
    if (st == FV_OK) st = fv_runner_run(&r, &src, &dst, 0);
    if (st == FV_OK) st = fv_runner_prepare(&r, f, cpu, &p, 9, 7);
    if (st == FV_OK) st = fv_runner_run(&r, &src, &dst, 0);
    expect(st == FV_OK && after_prepare == before + 1 && fv_config_makes() == after_prepare,
           "%s: prepare makes its configuration once (%llu), %d-pass runs and unchanged "
           "prepares make none (%llu more): %s",
           f->name, after_prepare - before, p.iterations, fv_config_makes() - after_prepare,
           st == FV_OK ? "ok" : fv_last_error());
    fv_runner_release(&r);
    fv_host_image_free(&src);
    fv_host_image_free(&dst);
}

/* A radius outside the box's row (0, 129, 2.5) is refused by its range at prepare, before any
 * configuration is made: the reference and the kernels never see one. */
static void test_box_radius_range(void)
{
    const fv_filter *f = fv_filter_find("box");
    const double bad[] = {0, FV_BOX_MAX_RADIUS + 1, 2.5};
    for (size_t i = 0; f && i < sizeof bad / sizeof bad[0]; i++) {
        fv_params p = fv_params_default(f);
        p.value[BOX_RADIUS] = bad[i];
        fv_runner r = {0};
        const unsigned long long before = fv_config_makes();
        const fv_status st =
            fv_runner_prepare(&r, f, fv_filter_variant_of_role(f, FV_ROLE_REFERENCE), &p, 4, 4);
        expect(st == FV_ERR_ARG && strstr(fv_last_error(), "1..128") && fv_config_makes() == before,
               "box radius %g refused by its range, no configuration made (%s)", bad[i],
               fv_last_error());
        fv_runner_release(&r);
    }
}

/* The device bytes of values prepare would refuse (the first parameter past its range) are the
 * iteration buffer's alone: no variant's state_bytes is asked without a configuration, which is
 * what it reads. */
static void test_device_bytes_of_refused_values(const fv_filter *f)
{
    if (f->n_params == 0) return;
    fv_params p = fv_params_default(f);
    p.value[0] = f->params[0].max + 1000;
    if (fv_params_check(f, &p) == FV_OK) return;
    const size_t buffer = f->max_iterations > 1 ? 8 * 5 * 4 * fv_pixel_type_bytes(p.type) : 0;
    for (int i = 0; i < f->n_variants; i++) {
        const fv_variant *v = &f->variants[i];
        if (fv_variant_is_host(v)) continue;
        const size_t bytes = fv_runner_device_bytes(f, v, &p, 8, 5);
        expect(bytes == buffer, "%s/%s: refused values hold %zu device bytes, the buffer's %zu",
               f->name, v->name, bytes, buffer);
    }
}

/* Conv's sigma and radius outside their rows (sigma 0.2, 20.5; radius 0, 64, 2.5) are refused by
 * the rows' ranges at prepare, before any configuration is made: that is their one check, and
 * the kernel is never built from one. */
static void test_conv_ranges(void)
{
    const fv_filter *f = fv_filter_find("conv");
    static const struct {
        int shape, index;
        double value;
        const char *range;
    } bad[] = {{CONV_GAUSSIAN, CONV_SIGMA, FV_CONV_MIN_SIGMA - 0.1, "0.3..20"},
               {CONV_GAUSSIAN, CONV_SIGMA, FV_CONV_MAX_SIGMA + 0.5, "0.3..20"},
               {CONV_DISK, CONV_RADIUS, 0, "1..63"},
               {CONV_BOX, CONV_RADIUS, FV_CONV_MAX_RADIUS + 1, "1..63"},
               {CONV_BOX, CONV_RADIUS, 2.5, "1..63"}};
    for (size_t i = 0; f && i < sizeof bad / sizeof bad[0]; i++) {
        fv_params p = fv_params_default(f);
        p.value[CONV_SHAPE] = bad[i].shape;
        p.value[bad[i].index] = bad[i].value;
        fv_runner r = {0};
        const unsigned long long before = fv_config_makes();
        const fv_status st =
            fv_runner_prepare(&r, f, fv_filter_variant_of_role(f, FV_ROLE_REFERENCE), &p, 4, 4);
        expect(st == FV_ERR_ARG && strstr(fv_last_error(), bad[i].range) &&
                   fv_config_makes() == before,
               "conv %s %g refused by its range, no configuration made (%s)",
               f->params[bad[i].index].name, bad[i].value, fv_last_error());
        fv_runner_release(&r);
    }
}

/* A gray 3x1 host image of the given levels. */
static fv_image gray_row(const uint8_t levels[3])
{
    fv_image img = {0};
    if (fv_host_image_alloc_as(&img, 3, 1, FV_PIXEL_U8, 4) != FV_OK) return img;
    for (int x = 0; x < 3; x++) {
        uint8_t *q = img.data + 4 * x;
        q[0] = q[1] = q[2] = levels[x];
        q[3] = 255;
    }
    return img;
}

/* Conv's kernel is made once, at prepare, into its configuration: a pass reads it from there,
 * not from the `kernel-file` image again (as every GPU variant's state always has), so an image
 * changed in place after prepare changes nothing until a prepare with new values. */
static void test_conv_kernel_made_at_prepare(void)
{
    const fv_filter *f = fv_filter_find("conv");
    if (!f) return;
    const uint8_t red[3] = {0, 90, 180}, left[3] = {255, 0, 0};
    fv_image src = gray_row(red), kernel = gray_row(left), dst = {0};
    fv_params p = fv_params_default(f);
    p.value[CONV_SHAPE] = CONV_FILE;
    p.value[CONV_KERNEL_FILE] = 1;
    p.image[CONV_KERNEL_FILE] = &kernel;
    fv_runner r = {0};
    fv_status st = src.data && kernel.data ? fv_host_image_alloc_as(&dst, 3, 1, FV_PIXEL_U8, 4)
                                           : fv_fail(FV_ERR_MEMORY, "no images");
    if (st == FV_OK)
        st = fv_runner_prepare(&r, f, fv_filter_variant_of_role(f, FV_ROLE_REFERENCE), &p, 3, 1);
    const unsigned long long makes = fv_config_makes();
    /* the image becomes [0 0 1] (it would move the picture right) after prepare */
    for (int x = 0; st == FV_OK && x < 3; x++) memset(kernel.data + 4 * x, x == 2 ? 9 : 0, 3);
    if (st == FV_OK) st = fv_runner_run(&r, &src, &dst, 0);
    /* [1 0 0]: out(x) = S(x + 1), the last pixel's right neighbour its replicated self */
    expect(st == FV_OK && dst.data[0] == 90 && dst.data[4] == 180 && dst.data[8] == 180 &&
               fv_config_makes() == makes,
           "conv: a pass runs prepare's kernel [1 0 0] (90 180 180), not the image changed since "
           "(%d %d %d): %s",
           dst.data ? dst.data[0] : -1, dst.data ? dst.data[4] : -1, dst.data ? dst.data[8] : -1,
           st == FV_OK ? "ok" : fv_last_error());
    fv_runner_release(&r);
    fv_host_image_free(&src);
    fv_host_image_free(&kernel);
    fv_host_image_free(&dst);
}

int main(void)
{
    test_filter_list();
    test_params_text();
    test_box_radius_range();
    test_conv_ranges();
    test_conv_kernel_made_at_prepare();
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        if (!f || !f->name) continue;
        test_variants(f);
        test_filter_fields(f);
        test_params(f);
        test_test_params(f);
        test_legends(f);
        test_user_contract(f);
        test_config_made_once(f);
        test_device_bytes_of_refused_values(f);
    }
    return test_finish(&t);
}
