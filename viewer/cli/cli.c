/* ------------------------------------------------------------------------------------------------
 * viewer/cli/cli.c: command-line parsing (strict numbers, known names), --help and --list. The
 * filter and variant names, and their summaries, come from the registry.
 * ------------------------------------------------------------------------------------------------ */
#include "cli.h"

#include "image_io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int bad(const char *flag, const char *what, const char *got)
{
    fprintf(stderr, "filterview: %s: expected %s, got '%s'\n", flag, what, got ? got : "nothing");
    return 0;
}

/* Plain decimal: digits with an optional sign, nothing else (strtol alone would also take leading
 * blanks); the same rule as the filters' integer parameters (kernels/core/params.c). */
static int plain_integer(const char *s)
{
    if (!s) return 0;
    if (*s == '-' || *s == '+') s++;
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
    return *s == 0;
}

/* A side of a size at p: one or more digits, 1..FV_MAX_DIMENSION. Returns the character after
 * them, or NULL. */
static const char *parse_side(const char *p, long *side)
{
    if (!isdigit((unsigned char)*p)) return NULL;
    long v = 0;
    for (; isdigit((unsigned char)*p); p++) {
        v = v * 10 + (*p - '0');
        if (v > FV_MAX_DIMENSION) return NULL;
    }
    if (v < 1) return NULL;
    *side = v;
    return p;
}

/* "WxH" at p (each side 1..32768); returns the character after it, or NULL */
static const char *parse_size_at(const char *p, int *w, int *h)
{
    long a = 0, b = 0;
    if (!(p = parse_side(p, &a)) || (*p != 'x' && *p != 'X') || !(p = parse_side(p + 1, &b))) return NULL;
    *w = (int)a;
    *h = (int)b;
    return p;
}

static int parse_int(const char *flag, const char *s, long lo, long hi, int *out)
{
    char want[96];
    snprintf(want, sizeof want, "an integer %ld..%ld", lo, hi);
    if (!plain_integer(s)) return bad(flag, want, s);
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return bad(flag, want, s);
    *out = (int)v;
    return 1;
}

/* a plain decimal number (digits, at most one '.', no sign or exponent) in lo..hi, an optional
 * trailing '%' allowed where `percent` */
static int parse_decimal(const char *flag, const char *s, double lo, double hi, int percent, double *out)
{
    char want[96];
    snprintf(want, sizeof want, "a decimal number %g..%g%s", lo, hi, percent ? " (percent)" : "");
    int digits = 0, dots = 0;
    const char *p = s;
    for (; p && *p; p++) {
        if (isdigit((unsigned char)*p)) digits++;
        else if (*p == '.' && !dots) dots++;
        else break;
    }
    if (!s || !digits || (*p && !(percent && p[0] == '%' && p[1] == 0))) return bad(flag, want, s);
    const double v = strtod(s, NULL);
    if (!(v >= lo && v <= hi)) return bad(flag, want, s);
    *out = v;
    return 1;
}

/* "WxH" into w, h */
static int parse_one_size(const char *flag, const char *s, int *w, int *h)
{
    const char *end = s ? parse_size_at(s, w, h) : NULL;
    if (!end || *end) return bad(flag, "a size WxH, each side 1..32768", s);
    return 1;
}

/* "512x512,1920x1080": no empty entries, nothing after the last */
static int parse_sizes(const char *s, cli_options *o)
{
    const char *want = "sizes as WxH[,WxH...], each side 1..32768";
    if (!s || !*s) return bad("--sizes", want, s);
    o->n_sizes = 0;
    for (const char *p = s;; p++) {
        int w = 0, h = 0;
        if (!(p = parse_size_at(p, &w, &h)) || (*p != ',' && *p != 0)) return bad("--sizes", want, s);
        if (o->n_sizes == CLI_MAX_SIZES) return bad("--sizes", "at most 32 sizes", s);
        o->sizes[o->n_sizes][0] = w;
        o->sizes[o->n_sizes][1] = h;
        o->n_sizes++;
        if (*p == 0) return 1;
    }
}

/* An output path that the command line itself rules out (exit 2): empty, a directory, no name
 * before the extension, or a name image_check_output_path refuses (the extension). Whether its
 * directory exists and can be written is the run's to find out (exit 1). */
static int check_output_arg(const char *flag, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    struct stat st;
    if (!*path) {
        fprintf(stderr, "filterview: %s: expected a file name, got ''\n", flag);
        return 0;
    }
    if (!*base || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
        fprintf(stderr, "filterview: %s: '%s' is a directory, not a file\n", flag, path);
        return 0;
    }
    if (base[0] == '.' && !strchr(base + 1, '.')) {
        fprintf(stderr, "filterview: %s: '%s' has no name before its extension\n", flag, path);
        return 0;
    }
    if (image_check_output_path(path) == FV_ERR_ARG) {
        fprintf(stderr, "filterview: %s: %s\n", flag, fv_last_error());
        return 0;
    }
    return 1;
}

static const char *arg_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

const fv_params *cli_params(const cli_options *o, const fv_filter *f)
{
    return &o->params[fv_filter_index(f)];
}

/* "fast", "box:smem" or "original" (with_original) against the current filter */
static int parse_pane_spec(const char *flag, const char *text, const fv_filter *current,
                           int with_original, pane_spec *out)
{
    if (!text) return bad(flag, with_original ? "FILTER:VARIANT, a variant or 'original'" : "FILTER:VARIANT or a variant", NULL);
    if (with_original && strcmp(text, "original") == 0) {
        out->filter = current;
        out->variant = NULL;
        return 1;
    }
    const fv_filter *f = current;
    const char *name = text, *colon = strchr(text, ':');
    if (colon) {
        char filter_name[64];
        snprintf(filter_name, sizeof filter_name, "%.*s", (int)(colon - text), text);
        if (!(f = fv_filter_find(filter_name))) {
            fprintf(stderr, "filterview: %s: unknown filter '%s' (see --list)\n", flag, filter_name);
            return 0;
        }
        name = colon + 1;
    }
    const fv_variant *v = fv_variant_find(f, name);
    if (!v) {
        fprintf(stderr, "filterview: %s: filter '%s' has no variant '%s' (see --list)\n", flag, f->name, name);
        return 0;
    }
    out->filter = f;
    out->variant = v;
    return 1;
}

static int any_filter_has_param(const char *name)
{
    for (int i = 0; i < fv_n_filters; i++)
        if (fv_param_index(fv_filters[i], name) >= 0) return 1;
    return 0;
}

/* "WxH" (no other characters) */
static int looks_like_size(const char *s)
{
    if (!s || !isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
    if (*s != 'x' && *s != 'X') return 0;
    if (!isdigit((unsigned char)*++s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
    return *s == 0;
}

typedef struct param_setting {
    const char *flag;   /* as the user wrote it: "--sigma" or "-p" */
    const char *name;
    const char *text;   /* the value (a list for a bench sweep) */
    char storage[64];   /* name split off "-p NAME=VALUE" */
    char flag_storage[80]; /* "-p NAME" for messages */
} param_setting;

#define CLI_MAX_SETTINGS 32

/* Applies the settings to every filter that has the parameter; at least one of the filters in
 * play must have it. Radii that follow sigma become auto when only sigma was given. */
static int apply_settings(cli_options *o, param_setting *set, int n, const fv_filter **in_play,
                          int n_in_play)
{
    for (int i = 0; i < n; i++) {
        int used = 0;
        for (int k = 0; k < n_in_play; k++) used |= fv_param_index(in_play[k], set[i].name) >= 0;
        if (!used) {
            char names[256] = "";
            size_t len = 0;
            for (int k = 0; k < n_in_play && len < sizeof names; k++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", k ? ", " : "", in_play[k]->name);
            fprintf(stderr, "filterview: %s: no parameter '%s' in %s (see --list)\n", set[i].flag,
                    set[i].name, names);
            return 0;
        }
        const int is_list = strchr(set[i].text, ',') != NULL;
        if (is_list) {
            if (o->mode != CLI_MODE_BENCH) {
                fprintf(stderr, "filterview: %s: a list of values is for --bench sweeps, got '%s'\n",
                        set[i].flag, set[i].text);
                return 0;
            }
            if (o->sweep_name && strcmp(o->sweep_name, set[i].name) != 0) {
                fprintf(stderr, "filterview: %s: one parameter can be swept at a time ('%s' already is)\n",
                        set[i].flag, o->sweep_name);
                return 0;
            }
            snprintf(o->sweep_name_storage, sizeof o->sweep_name_storage, "%s", set[i].name);
            o->sweep_name = o->sweep_name_storage; /* settings[] is cli_parse's own */
            o->n_sweep = 0;
            snprintf(o->sweep_storage, sizeof o->sweep_storage, "%s", set[i].text);
            for (char *tok = o->sweep_storage, *next; tok; tok = next) {
                next = strchr(tok, ',');
                if (next) *next++ = 0;
                if (o->n_sweep == CLI_MAX_SWEEP) return bad(set[i].flag, "at most 64 values to sweep", set[i].text);
                o->sweep_text[o->n_sweep++] = tok;
            }
        }
        for (int f = 0; f < fv_n_filters; f++) {
            const fv_filter *filter = fv_filters[f];
            const int index = fv_param_index(filter, set[i].name);
            if (index < 0) continue;
            int in_play_here = 0;
            for (int k = 0; k < n_in_play; k++) in_play_here |= in_play[k] == filter;
            for (int v = 0; v < (is_list ? o->n_sweep : 1); v++) {
                double value = 0;
                const char *text = is_list ? o->sweep_text[v] : set[i].text;
                if (fv_param_parse(filter, index, text, set[i].flag, &value) != FV_OK) {
                    if (!in_play_here) break; /* another filter's range: not this run's business */
                    fprintf(stderr, "filterview: %s (%s)\n", fv_last_error(), filter->name);
                    return 0;
                }
                if (v == 0) fv_param_set(filter, &o->params[f], index, value);
            }
        }
    }
    /* a parameter given after the one it follows keeps its value */
    for (int f = 0; f < fv_n_filters; f++)
        for (int i = 0; i < n; i++) {
            const int index = fv_param_index(fv_filters[f], set[i].name);
            if (index < 0 || strchr(set[i].text, ',')) continue;
            double value = 0;
            if (fv_param_parse(fv_filters[f], index, set[i].text, set[i].flag, &value) == FV_OK)
                o->params[f].value[index] = value;
        }
    return 1;
}

int cli_parse(int argc, char **argv, cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = CLI_MODE_VIEW;
    o->filter = fv_filter_find("gaussian");
    o->runs = 20;
    o->png_level = -1;
    o->seed = 1;
    for (int f = 0; f < fv_n_filters; f++) o->params[f] = fv_params_default(fv_filters[f]);
    const char *filter_name = NULL, *variant_name = NULL, *pane_text[2] = {NULL, NULL},
               *compare_text[2] = {NULL, NULL};
    param_setting settings[CLI_MAX_SETTINGS];
    int n_settings = 0, iterations = 1, mode_given = 0, options_done = 0;
    /* the first flag given that only the viewer (or --bench, or --list) reads */
    const char *viewer_flag = NULL, *bench_flag = NULL, *list_flag = NULL, *batch_flag = NULL;
    const char *noise_flag = NULL; /* the first noise flag: for the viewer, -o and --compare */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && !strcmp(a, "--")) { /* the rest are file names, even "-x.png" */
            options_done = 1;
            continue;
        }
        if (options_done || a[0] != '-' || a[1] == 0) {
            if (o->n_inputs == CLI_MAX_INPUTS) {
                fprintf(stderr, "filterview: more than %d input images: give their folder instead\n",
                        CLI_MAX_INPUTS);
                return 0;
            }
            o->inputs[o->n_inputs++] = a;
            if (!o->input) o->input = a;
            continue;
        }
#define VALUE() arg_value(argc, argv, &i)
#define FOR(scope) (scope = scope ? scope : a)
#define ONCE(field)                                                                                \
    do {                                                                                           \
        if (field) {                                                                               \
            fprintf(stderr, "filterview: %s given twice ('%s' and '%s')\n", a, field,             \
                    i + 1 < argc ? argv[i + 1] : "nothing");                                       \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)
#define SET_MODE(m)                                                                                \
    do {                                                                                           \
        if (mode_given && o->mode != (m)) {                                                        \
            fprintf(stderr, "filterview: %s cannot be combined with the other mode flags\n", a);  \
            return 0;                                                                              \
        }                                                                                          \
        o->mode = (m);                                                                             \
        mode_given = 1;                                                                            \
    } while (0)
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            o->mode = CLI_MODE_HELP;
            return 1;
        } else if (!strcmp(a, "-a") || !strcmp(a, "-b")) {
            const char *spec = VALUE();
            if (!spec) return bad(a, "FILTER:VARIANT, a variant or 'original'", NULL);
            pane_text[a[1] - 'a'] = spec;
            FOR(viewer_flag);
        } else if (!strcmp(a, "--help-keys")) {
            o->mode = CLI_MODE_HELP_KEYS;
            return 1;
        } else if (!strcmp(a, "--interop")) {
            FOR(viewer_flag);
            const char *how = VALUE();
            if (!how || (strcmp(how, "buffer") && strcmp(how, "texture") && strcmp(how, "pbo") &&
                         strcmp(how, "staging")))
                return bad(a, "'buffer', 'texture', 'pbo' or 'staging'", how);
            o->interop = !strcmp(how, "buffer") ? FV_INTEROP_BUFFER
                       : !strcmp(how, "texture") ? FV_INTEROP_TEXTURE
                       : !strcmp(how, "pbo") ? FV_INTEROP_PBO : FV_INTEROP_STAGING;
        } else if (!strcmp(a, "--headless")) {
            o->headless = 1;
            FOR(viewer_flag);
        } else if (!strcmp(a, "--verbose")) {
            o->verbose = 1;
            FOR(list_flag);
        } else if (!strcmp(a, "--keys")) {
            FOR(viewer_flag);
            if (!(o->keys = VALUE())) return bad(a, "a key sequence such as \"1bc<PgUp>\"", NULL);
        } else if (!strcmp(a, "--frames")) {
            FOR(viewer_flag);
            if (!parse_int(a, VALUE(), 1, 1000000, &o->frames)) return 0;
        } else if (!strcmp(a, "--screenshot")) {
            FOR(viewer_flag);
            ONCE(o->screenshot);
            if (!(o->screenshot = VALUE())) return bad(a, "a .png path", NULL);
        } else if (!strcmp(a, "--bench-frames")) {
            FOR(viewer_flag);
            if (!parse_int(a, VALUE(), 1, 100000, &o->bench_frames)) return 0;
        } else if (!strcmp(a, "--window") ||
                   (!strcmp(a, "--size") && (i + 1 >= argc || looks_like_size(argv[i + 1]) ||
                                             !any_filter_has_param("size")))) {
            /* --size WxH is the old name of --window; a filter's `size` takes other values */
            FOR(viewer_flag);
            if (!parse_one_size(a, VALUE(), &o->window_w, &o->window_h)) return 0;
        } else if (!strcmp(a, "--random")) {
            FOR(viewer_flag);
            if (!parse_one_size(a, VALUE(), &o->random_w, &o->random_h)) return 0;
        } else if (!strcmp(a, "--list")) {
            SET_MODE(CLI_MODE_LIST);
        } else if (!strcmp(a, "--info")) {
            SET_MODE(CLI_MODE_INFO);
        } else if (!strcmp(a, "--bench")) {
            SET_MODE(CLI_MODE_BENCH);
        } else if (!strcmp(a, "-f") || !strcmp(a, "--filter")) {
            if (!(filter_name = VALUE())) return bad(a, "a filter name (see --list)", NULL);
            o->filter_given = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--variant")) {
            if (!(variant_name = VALUE())) return bad(a, "a variant name (see --list)", NULL);
            o->variant_given = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            ONCE(o->output);
            if (!(o->output = VALUE())) return bad(a, "an output .png path", NULL);
            SET_MODE(CLI_MODE_BATCH);
        } else if (!strcmp(a, "--noise")) {
            FOR(noise_flag);
            double percent = 0;
            if (!parse_decimal(a, VALUE(), 0, 100 * FV_NOISE_MAX_DENSITY, 1, &percent)) return 0;
            o->noise.density = percent / 100;
        } else if (!strcmp(a, "--noise-sigma")) {
            FOR(noise_flag);
            if (!parse_decimal(a, VALUE(), 0, FV_NOISE_MAX_SIGMA, 0, &o->noise.sigma)) return 0;
        } else if (!strcmp(a, "--noise-seed")) {
            FOR(noise_flag);
            int seed = 0;
            if (!parse_int(a, VALUE(), 0, 2147483647, &seed)) return 0;
            o->noise.seed = (unsigned)seed;
        } else if (!strcmp(a, "--save-source")) {
            FOR(batch_flag);
            ONCE(o->save_source);
            if (!(o->save_source = VALUE())) return bad(a, "an output image path", NULL);
        } else if (!strcmp(a, "--png-level")) {
            FOR(batch_flag);
            if (!parse_int(a, VALUE(), 0, 9, &o->png_level)) return 0;
        } else if (!strcmp(a, "--jpeg-quality")) {
            FOR(batch_flag);
            if (!parse_int(a, VALUE(), 1, 100, &o->jpeg_quality)) return 0;
        } else if (!strcmp(a, "--compare")) {
            compare_text[0] = VALUE();
            compare_text[1] = VALUE();
            if (!compare_text[0] || !compare_text[1]) return bad(a, "two variants (VARIANT or FILTER:VARIANT)", NULL);
            SET_MODE(CLI_MODE_COMPARE);
        } else if (!strcmp(a, "--iters") || !strcmp(a, "--iterations")) {
            if (!parse_int(a, VALUE(), 1, FV_MAX_ITERATIONS, &iterations)) return 0;
        } else if (!strcmp(a, "--kernel-file")) { /* an image parameter: main.c loads it */
            ONCE(o->kernel_file);
            if (!(o->kernel_file = VALUE())) return bad(a, "an image file (conv's shape file)", NULL);
        } else if (!strcmp(a, "-p") || (a[0] == '-' && a[1] == '-' && any_filter_has_param(a + 2))) {
            if (n_settings == CLI_MAX_SETTINGS) return bad(a, "at most 32 parameter settings", NULL);
            param_setting *set = &settings[n_settings];
            set->flag = a;
            const char *value = VALUE();
            if (!strcmp(a, "-p")) {
                const char *eq = value ? strchr(value, '=') : NULL;
                if (!eq || eq == value || (size_t)(eq - value) >= sizeof set->storage)
                    return bad(a, "NAME=VALUE (a filter parameter, see --list)", value);
                snprintf(set->storage, sizeof set->storage, "%.*s", (int)(eq - value), value);
                set->name = set->storage;
                snprintf(set->flag_storage, sizeof set->flag_storage, "-p %.*s", (int)(eq - value), value);
                set->flag = set->flag_storage;
                set->text = eq + 1;
                if (!any_filter_has_param(set->name)) {
                    fprintf(stderr, "filterview: -p: no filter has a parameter '%s' (see --list)\n", set->name);
                    return 0;
                }
            } else {
                set->name = a + 2;
                set->text = value;
                if (!value) return bad(a, "a value (see --list)", NULL);
            }
            n_settings++;
        } else if (!strcmp(a, "--sizes")) {
            FOR(bench_flag);
            if (!parse_sizes(VALUE(), o)) return 0;
        } else if (!strcmp(a, "--image")) {
            FOR(bench_flag);
            ONCE(o->bench_image);
            if (!(o->bench_image = VALUE())) return bad(a, "an image file for the bench", NULL);
        } else if (!strcmp(a, "--csv")) {
            FOR(bench_flag);
            ONCE(o->csv);
            if (!(o->csv = VALUE())) return bad(a, "a CSV output path", NULL);
        } else if (!strcmp(a, "--chart")) {
            FOR(bench_flag);
            ONCE(o->chart);
            if (!(o->chart = VALUE())) return bad(a, "a .png path for the chart", NULL);
        } else if (!strcmp(a, "--runs")) {
            FOR(bench_flag);
            if (!parse_int(a, VALUE(), 1, 10000, &o->runs)) return 0;
        } else if (!strcmp(a, "--seed")) {
            int seed = 0;
            if (!parse_int(a, VALUE(), 0, 2147483647, &seed)) return 0;
            o->seed = (unsigned)seed;
        } else {
            fprintf(stderr, "filterview: unknown option '%s' (see --help)\n", a);
            return 0;
        }
#undef VALUE
#undef SET_MODE
#undef FOR
#undef ONCE
    }
    if (filter_name && !(o->filter = fv_filter_find(filter_name))) {
        fprintf(stderr, "filterview: unknown filter '%s' (see --list)\n", filter_name);
        return 0;
    }
    o->variant = fv_variant_find(o->filter, variant_name ? variant_name : "fast");
    if (!o->variant && variant_name) {
        fprintf(stderr, "filterview: filter '%s' has no variant '%s' (see --list)\n", o->filter->name,
                variant_name);
        return 0;
    }
    if (!o->variant) o->variant = &o->filter->variants[0];
    /* the filters in play: -f, the panes', the compared ones; every one for a bench without -f */
    const fv_filter *in_play[FV_MAX_FILTERS + 4];
    int n_in_play = 0;
    in_play[n_in_play++] = o->filter;
    for (int k = 0; k < 2; k++) {
        static const char *const pane_flags[2] = {"-a", "-b"};
        if (pane_text[k]) {
            if (!parse_pane_spec(pane_flags[k], pane_text[k], o->filter, 1, &o->pane[k])) return 0;
            o->pane_given[k] = 1;
            in_play[n_in_play++] = o->pane[k].filter;
        }
        if (compare_text[k]) {
            if (!parse_pane_spec("--compare", compare_text[k], o->filter, 0, &o->compare[k])) return 0;
            in_play[n_in_play++] = o->compare[k].filter;
        }
    }
    if (o->mode == CLI_MODE_BENCH && !o->filter_given)
        for (int f = 0; f < fv_n_filters; f++) in_play[n_in_play++] = fv_filters[f];
    if (!apply_settings(o, settings, n_settings, in_play, n_in_play)) return 0;
    for (int f = 0; f < fv_n_filters; f++) o->params[f].iterations = iterations;
    if (o->input && o->random_w) {
        fprintf(stderr, "filterview: give an image or --random WxH, not both\n");
        return 0;
    }
    int needs_input = o->mode == CLI_MODE_BATCH || o->mode == CLI_MODE_COMPARE;
    if (needs_input && !o->input) {
        fprintf(stderr, "filterview: no input image given (see --help)\n");
        return 0;
    }
    /* -o DIR/ (or an existing folder for several inputs, or for a folder) takes many files */
    if (o->output && o->mode == CLI_MODE_BATCH && *o->output) {
        struct stat st;
        const size_t n = strlen(o->output);
        const int is_dir = stat(o->output, &st) == 0 && S_ISDIR(st.st_mode);
        const int input_is_dir = o->input && stat(o->input, &st) == 0 && S_ISDIR(st.st_mode);
        o->output_is_dir = o->output[n - 1] == '/' || (is_dir && (o->n_inputs > 1 || input_is_dir));
        if (o->output_is_dir && stat(o->output, &st) == 0 && !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "filterview: -o: '%s' is a file, not a folder\n", o->output);
            return 0;
        }
    }
    if (o->n_inputs > 1 && !o->output_is_dir) {
        fprintf(stderr, "filterview: more than one input image ('%s' and '%s'): several are filtered "
                "with -o DIR/\n", o->inputs[0], o->inputs[1]);
        return 0;
    }
    /* a flag that means nothing in this mode is a mistake, not something to ignore */
    static const char *const mode_names[] = {
        [CLI_MODE_VIEW] = "the viewer", [CLI_MODE_BATCH] = "-o",     [CLI_MODE_COMPARE] = "--compare",
        [CLI_MODE_LIST] = "--list",     [CLI_MODE_BENCH] = "--bench", [CLI_MODE_INFO] = "--info"};
    const struct { const char *flag; cli_mode mode; } scoped[] = {
        {viewer_flag, CLI_MODE_VIEW}, {bench_flag, CLI_MODE_BENCH}, {list_flag, CLI_MODE_LIST},
        {batch_flag, CLI_MODE_BATCH}};
    for (size_t k = 0; k < sizeof scoped / sizeof scoped[0]; k++)
        if (scoped[k].flag && o->mode != scoped[k].mode) {
            fprintf(stderr, "filterview: %s is for %s, not %s\n", scoped[k].flag, mode_names[scoped[k].mode],
                    mode_names[o->mode]);
            return 0;
        }
    if (noise_flag && o->mode != CLI_MODE_VIEW && o->mode != CLI_MODE_BATCH && o->mode != CLI_MODE_COMPARE) {
        fprintf(stderr, "filterview: %s is for the viewer, -o and --compare, not %s\n", noise_flag,
                o->mode < sizeof mode_names / sizeof mode_names[0] && mode_names[o->mode] ? mode_names[o->mode]
                                                                                      : "this mode");
        return 0;
    }
    if (o->save_source && o->output_is_dir) {
        fprintf(stderr, "filterview: --save-source is for one input image, not a folder of them\n");
        return 0;
    }
    if (o->save_source && !check_output_arg("--save-source", o->save_source)) return 0;
    if (o->output && !o->output_is_dir && !check_output_arg("-o", o->output)) return 0;
    if (o->screenshot && !check_output_arg("--screenshot", o->screenshot)) return 0;
    if (o->chart && !check_output_arg("--chart", o->chart)) return 0;
    return 1;
}

void cli_print_list(int verbose)
{
    int have_device = verbose && fv_device_check() == FV_OK;
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        printf("%-10s %s\n", f->name, f->summary);
        for (int k = 0; k < f->n_params; k++) {
            if (f->params[k].type == FV_PARAM_IMAGE) continue; /* a file: among the options */
            char range[200], flag[40];
            fv_param_range_text(f, k, range, sizeof range);
            snprintf(flag, sizeof flag, "--%s", f->params[k].name);
            printf("  %-12s %s (%s)\n", flag, f->params[k].help, range);
        }
        if (f->max_iterations > 1) printf("  %-12s passes, 1..%d (default 1)\n", "--iters", f->max_iterations);
        for (int v = 0; v < f->n_variants; v++) {
            const fv_variant *var = &f->variants[v];
            printf("  %-10s %s%s\n", var->name, var->summary,
                   strcmp(var->name, fv_filter_baseline(f)->name) == 0 ? " [baseline]" : "");
            if (!verbose) continue;
            char res[512];
            fv_params p = fv_params_default(f);
            if (have_device || fv_variant_is_host(var)) fv_variant_resources_text(var, &p, res, sizeof res);
            else snprintf(res, sizeof res, "(no CUDA device: kernel resources unknown)");
            printf("  %-10s   %s\n", "", res);
            if (have_device && !fv_variant_is_host(var)) {
                size_t bytes = fv_runner_device_bytes(f, var, &p, 9984, 6400);
                printf("  %-10s   device memory at 9984x6400 beyond source and result: %.1f MiB\n", "",
                       (double)bytes / (1 << 20));
            }
        }
    }
}

void cli_print_help(void)
{
    printf(
        "filterview: GPU image filters, live in a window, in batch, or in a benchmark.\n"
        "\n"
        "usage:\n"
        "  filterview IMAGE [-f FILTER] [-v VARIANT] [params] -o OUT.png   filter to a PNG (or .jpg)\n"
        "  filterview IMAGES|FOLDERS... [-f FILTER] [-v VARIANT] [params] -o OUTDIR/\n"
        "                                                  filter many, each to OUTDIR/NAME.png\n"
        "  filterview IMAGE [-f FILTER] --compare A B [params]             compare two variants\n"
        "  filterview --bench [-f FILTER [-v VARIANT]] [params] [--sizes WxH,...] [--csv FILE]\n"
        "                    [--image FILE] [--chart FILE]                  (-v: that variant alone)\n"
        "  filterview IMAGE [-a A] [-b B] [params]                           the viewer\n"
        "  filterview IMAGE --headless [--keys SEQ] [--frames N] [--screenshot FILE]\n"
        "  filterview --list [--verbose] | --info | --help | --help-keys\n"
        "\n"
        "options:\n"
        "  -f, --filter NAME     filter (default gaussian); --list shows all\n"
        "  -v, --variant NAME    kernel variant (default fast); `cpu` runs the reference,\n"
        "                        `npp` NVIDIA's NPP where the toolkit has it\n"
        "  --NAME VALUE          a filter parameter (below); also -p NAME=VALUE. It applies to\n"
        "                        every filter in play that has it; --bench sweeps a list:\n"
        "                        -p radius=1,2,4,8\n"
        "  --iters N             apply the filter N times, 1..%d (default 1)\n"
        "  -o, --output FILE     write the result as PNG, or JPEG for .jpg/.jpeg (written to a\n"
        "                        temporary name, then renamed: never half a file); a folder\n"
        "                        (DIR/) takes every input: a progress bar, a failed file is\n"
        "                        reported and skipped, exit 1 at the end if any failed\n"
        "  --png-level N         PNG compression, 0..9 (default 1: fast; 9: smallest)\n"
        "  --jpeg-quality N      JPEG quality, 1..100 (default 90)\n"
        "  --noise D             salt-and-pepper noise on the source: D %% of the pixels, 0..50\n"
        "                        (viewer: n/N); --noise-sigma S adds Gaussian noise (0..128),\n"
        "                        --noise-seed N draws another pattern. The same noisy image on\n"
        "                        the CPU and the GPU, for every pane and filter\n"
        "  --save-source FILE    with -o: also write the source the filter saw (the noisy one)\n"
        "  --kernel-file FILE    conv's kernel for shape file: a grayscale image up to 127x127\n"
        "  --compare A B         run A and B (VARIANT or FILTER:VARIANT), print max |A-B| and\n"
        "                        the differing pixels\n"
        "  --bench               time every variant on random images (CUDA events, median)\n"
        "  --sizes WxH,...       benchmark sizes (default: 512x512 .. 9984x6400)\n"
        "  --image FILE          bench on this photo instead of random images (resized to each\n"
        "                        of --sizes; its own size without them): Canny wants a photo\n"
        "  --csv FILE            also write the benchmark table as CSV (with kernel resources)\n"
        "  --chart FILE          also draw the benchmark as a PNG chart: lines over a swept\n"
        "                        parameter, else bars over the sizes\n"
        "  --runs N              timed runs per cell (default 20); --seed N random seed\n"
        "  --list                filters, their parameters and variants; --verbose adds each\n"
        "                        kernel's registers, shared memory, block size and occupancy\n"
        "  --info                the CUDA device and its memory\n"
        "\n"
        "parameters:\n",
        FV_MAX_ITERATIONS);
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        for (int k = 0; k < f->n_params; k++) {
            if (f->params[k].type == FV_PARAM_IMAGE) continue; /* a file: among the options */
            char flag[40], range[200];
            snprintf(flag, sizeof flag, "--%s", f->params[k].name);
            fv_param_range_text(f, k, range, sizeof range);
            printf("  %-12s %-9s %s (%s)\n", flag, f->name, f->params[k].help, range);
        }
    }
    printf(
        "\n"
        "viewer:\n"
        "  (no -o)               open the viewer: a window where there is a display, else\n"
        "                        headless (EGL), writing a screenshot\n"
        "  -a SPEC, -b SPEC      what panes A and B show: a variant of -f's filter, FILTER:VARIANT\n"
        "                        (B with another filter than A unlinks the panes), or 'original'\n"
        "                        (default: A = naive, B = smem; -v also sets A)\n"
        "  --interop HOW         how CUDA output reaches GL: 'buffer' (default) kernels write\n"
        "                        registered GL buffers that the shader samples directly;\n"
        "                        'texture' a device copy into registered textures; 'pbo'\n"
        "                        kernels write pixel buffers that GL copies (the classic way);\n"
        "                        'staging' no interop, through the host (the fallback)\n"
        "  --headless            draw offscreen through EGL on the GPU (no X server)\n"
        "  --keys SEQ            replay keys, one per frame: characters, and <F1> <Tab> <Esc>\n"
        "                        <PgUp> <PgDn> <Left> <Right> <Up> <Down> <Space> <lt>;\n"
        "                        <WxH> resizes the window (<0x0>: minimised)\n"
        "  --frames N            frames to draw, then exit (window or headless)\n"
        "  --screenshot FILE     write the last frame as PNG, then exit\n"
        "  --bench-frames N      time N frames: kernel time vs the rest (map/unmap, texture, draw),\n"
        "                        where the rest goes, and the CUDA <-> GL hand-over floor\n"
        "  --window WxH          window or offscreen size (--size WxH still works)\n"
        "  --random WxH          a random image of that size instead of a file\n"
        "  --help-keys           the viewer's keys as a markdown table\n"
        "\n"
        "Images: PNG (any depth, palette, interlaced), JPEG (EXIF orientation applied, CMYK),\n"
        "PNM (P2, P3, P5, P6, 8- and 16-bit) and uncompressed BMP.\n"
        "Exit status: 0 on success, 1 on a runtime error, 2 on a bad command line.\n");
}
