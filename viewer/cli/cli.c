/* ------------------------------------------------------------------------------------------------
 * viewer/cli/cli.c: the command line. One table of flags (cli_flags: spellings, what follows, the
 * modes each means something in, its --help line) drives the parsing, --help and the "X is for
 * Y, not Z" check, as window/keys.c's table drives the keys. The filters' parameter flags (--sigma,
 * ...) come from the registry's parameter tables, as do the filter and variant names and their
 * summaries (--list). Numbers are strict; every bad command line is one line on stderr.
 * ------------------------------------------------------------------------------------------------ */
#include "cli.h"

#include "image_io.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FV_VERSION
#error "FV_VERSION (CMake's project version) must be defined for cli.c"
#endif

/* ---- what the user gave, as messages show it ---- */

#define SHOWN_RING 4

static const char *shown_in_ring(const char *text, size_t room)
{
    static _Thread_local char ring[SHOWN_RING][4 * PATH_MAX + 1];
    static _Thread_local int next;
    char *buf = ring[next++ % SHOWN_RING];
    image_printable(text ? text : "", buf, room);
    return buf;
}

const char *cli_shown(const char *text)
{
    return shown_in_ring(text, IMAGE_NAME_SHOWN);
}

const char *cli_escaped(const char *text)
{
    return shown_in_ring(text, 4 * PATH_MAX + 1);
}

void cli_error(const char *format, ...)
{
    char line[4096], shown[4 * sizeof line];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    image_printable(line, shown, sizeof shown);
    fprintf(stderr, "filterview: %s\n", shown);
}

int cli_is_stdio(const char *path)
{
    return image_is_stdio(path);
}

/* The file behind a path, "-" being standard input or output: a file only when the shell
 * redirected a regular one there (a pipe or a terminal is no original). */
static int file_id(const char *path, int stdio_fd, struct stat *st)
{
    if (!cli_is_stdio(path)) return stat(path, st) == 0;
    return fstat(stdio_fd, st) == 0 && S_ISREG(st->st_mode);
}

int cli_same_file(const char *output, const char *input)
{
    struct stat a, b;
    if (!output || !input) return 0;
    return file_id(output, STDOUT_FILENO, &a) && file_id(input, STDIN_FILENO, &b) &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int bad(const char *flag, const char *what, const char *got)
{
    if (got)
        cli_error("%s: expected %s, got '%s'", flag, what, cli_shown(got));
    else
        cli_error("%s: expected %s, got nothing (the value is missing)", flag, what);
    return 0;
}

/* ---- "did you mean": the nearest name to a typo ---- */

/* Edits (insert, delete, change, swap two neighbours) between a and b, up to 9. */
static int edit_distance(const char *a, const char *b)
{
    const size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40) return 9;
    int d[42][42];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            const int change = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int best = d[i - 1][j] + 1 < d[i][j - 1] + 1 ? d[i - 1][j] + 1 : d[i][j - 1] + 1;
            if (change < best) best = change;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/* The candidate nearest to `typo` when it is near enough to be meant (one edit in a short name,
 * two in a longer one), else NULL. */
static const char *nearest(const char *typo, const char *const *candidates, int n)
{
    const char *best = NULL;
    int best_d = strlen(typo) <= 4 ? 1 : 2;
    for (int i = 0; i < n; i++) {
        if (!candidates[i]) continue;
        const int d = edit_distance(typo, candidates[i]);
        if (d <= best_d && (!best || d < best_d)) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}

/* " (did you mean 'NAME'? see --list)" or " (see --list)" for a message's end */
static const char *did_you_mean(const char *typo, const char *const *candidates, int n,
                                const char *see)
{
    static _Thread_local char text[160];
    const char *near = nearest(typo, candidates, n);
    if (near)
        snprintf(text, sizeof text, " (did you mean '%s'? see %s)", near, see);
    else
        snprintf(text, sizeof text, " (see %s)", see);
    return text;
}

static const char *filter_suggestion(const char *typo)
{
    const char *names[FV_MAX_FILTERS];
    for (int i = 0; i < fv_n_filters; i++) names[i] = fv_filters[i]->name;
    return did_you_mean(typo, names, fv_n_filters, "--list");
}

static const char *variant_suggestion(const fv_filter *f, const char *typo)
{
    const char *names[32] = {0};
    for (int i = 0; i < f->n_variants && i < 32; i++) names[i] = f->variants[i].name;
    return did_you_mean(typo, names, f->n_variants < 32 ? f->n_variants : 32, "--list");
}

static const char *param_suggestion(const char *typo)
{
    const char *names[FV_MAX_FILTERS * FV_MAX_PARAMS];
    int n = 0;
    for (int i = 0; i < fv_n_filters; i++)
        for (int k = 0; k < fv_filters[i]->n_params; k++)
            names[n++] = fv_filters[i]->params[k].name;
    return did_you_mean(typo, names, n, "--list");
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
    if (!(p = parse_side(p, &a)) || (*p != 'x' && *p != 'X') || !(p = parse_side(p + 1, &b)))
        return NULL;
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
static int parse_decimal(const char *flag, const char *s, double lo, double hi, int percent,
                         double *out)
{
    char want[96];
    snprintf(want, sizeof want, "a decimal number %g..%g%s", lo, hi, percent ? " (percent)" : "");
    int digits = 0, dots = 0;
    const char *p = s;
    for (; p && *p; p++) {
        if (isdigit((unsigned char)*p))
            digits++;
        else if (*p == '.' && !dots)
            dots++;
        else
            break;
    }
    if (!s || !digits || (*p && !(percent && p[0] == '%' && p[1] == 0))) return bad(flag, want, s);
    const double v = strtod(s, NULL);
    if (!(v >= lo && v <= hi)) return bad(flag, want, s);
    *out = v;
    return 1;
}

/* "WxH" into w, h, each side 1..max */
static int parse_one_size(const char *flag, const char *s, int max, int *w, int *h)
{
    char want[64];
    snprintf(want, sizeof want, "a size WxH, each side 1..%d", max);
    const char *end = s ? parse_size_at(s, w, h) : NULL;
    if (!end || *end || *w > max || *h > max) return bad(flag, want, s);
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
        if (!(p = parse_size_at(p, &w, &h)) || (*p != ',' && *p != 0))
            return bad("--sizes", want, s);
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
        cli_error("%s: expected a file name, got ''", flag);
        return 0;
    }
    if (cli_is_stdio(path)) {
        cli_error("%s: standard output ('-') is for -o alone: give a file name", flag);
        return 0;
    }
    if (!*base || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
        cli_error("%s: '%s' is a directory, not a file", flag, cli_shown(path));
        return 0;
    }
    if (base[0] == '.' && !strchr(base + 1, '.')) {
        cli_error("%s: '%s' has no name before its extension", flag, cli_shown(path));
        return 0;
    }
    if (image_check_output_path(path) == FV_ERR_ARG) {
        cli_error("%s: %s", flag, fv_last_error());
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
    if (!text)
        return bad(flag,
                   with_original ? "FILTER:VARIANT, a variant or 'original'"
                                 : "FILTER:VARIANT or a variant",
                   NULL);
    if (with_original && strcmp(text, "original") == 0) {
        out->filter = current;
        out->variant = NULL;
        return 1;
    }
    const fv_filter *f = current;
    const char *name = text, *colon = strchr(text, ':');
    if (colon) {
        char filter_name[64];
        const int fits = colon - text < (ptrdiff_t)sizeof filter_name;
        snprintf(filter_name, sizeof filter_name, "%.*s", (int)(colon - text), text);
        if (!fits || !(f = fv_filter_find(filter_name))) {
            if (fits)
                cli_error("%s: unknown filter '%s'%s", flag, cli_shown(filter_name),
                          filter_suggestion(filter_name));
            else
                cli_error("%s: unknown filter in '%s' (see --list)", flag, cli_shown(text));
            return 0;
        }
        name = colon + 1;
    }
    const char *user_file = cli_user_file(name);
    if (user_file) {
        if (!*user_file) return bad(flag, "user=FILE, a CUDA source file", name);
        out->filter = f;
        out->variant = NULL; /* compiled by the mode that runs it */
        out->user_file = user_file;
        return 1;
    }
    const fv_variant *v = fv_variant_find(f, name);
    if (!v) {
        cli_error("%s: filter '%s' has no variant '%s'%s", flag, f->name, cli_shown(name),
                  variant_suggestion(f, name));
        return 0;
    }
    out->filter = f;
    out->variant = v;
    out->user_file = NULL;
    return 1;
}

const char *cli_user_file(const char *variant_name)
{
    return variant_name && strncmp(variant_name, "user=", 5) == 0 ? variant_name + 5 : NULL;
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
    const char *flag; /* as the user wrote it: "--sigma" or "-p" */
    const char *name;
    const char *text;      /* the value (a list for a bench sweep) */
    char storage[64];      /* name split off "-p NAME=VALUE" */
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
                len += (size_t)snprintf(names + len, sizeof names - len, "%s'%s'", k ? ", " : "",
                                        in_play[k]->name);
            cli_error("%s: no parameter '%s' in %s (see --list)", set[i].flag, set[i].name, names);
            return 0;
        }
        if (!set[i].text) { /* the command line's last word: what the value should be, from the
                               first filter in play that has the parameter */
            int k = 0;
            while (fv_param_index(in_play[k], set[i].name) < 0) k++;
            char want[200];
            fv_param_range_text(in_play[k], fv_param_index(in_play[k], set[i].name), want,
                                sizeof want);
            char *def = strstr(want, "; default");
            if (def) *def = 0;
            return bad(set[i].flag, want, NULL);
        }
        const int is_list = strchr(set[i].text, ',') != NULL;
        if (is_list) {
            if (o->mode != CLI_MODE_BENCH) {
                cli_error("%s: a list of values is for --bench sweeps, got '%s'", set[i].flag,
                          cli_shown(set[i].text));
                return 0;
            }
            if (o->sweep_name && strcmp(o->sweep_name, set[i].name) != 0) {
                cli_error("%s: one parameter can be swept at a time ('%s' already is)", set[i].flag,
                          o->sweep_name);
                return 0;
            }
            snprintf(o->sweep_name_storage, sizeof o->sweep_name_storage, "%s", set[i].name);
            o->sweep_name = o->sweep_name_storage; /* settings[] is cli_parse's own */
            o->n_sweep = 0;
            if (strlen(set[i].text) >= sizeof o->sweep_storage) {
                char want[96];
                snprintf(want, sizeof want,
                         "a list of at most %d values and %d characters to sweep", CLI_MAX_SWEEP,
                         CLI_MAX_SWEEP_TEXT - 1);
                return bad(set[i].flag, want, set[i].text);
            }
            snprintf(o->sweep_storage, sizeof o->sweep_storage, "%s", set[i].text);
            for (char *tok = o->sweep_storage, *next; tok; tok = next) {
                next = strchr(tok, ',');
                if (next) *next++ = 0;
                if (o->n_sweep == CLI_MAX_SWEEP)
                    return bad(set[i].flag, "at most 64 values to sweep", set[i].text);
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
                    /* the library quotes what it was given: once more as shown (escaped, a long
                     * one shortened with "...", which no number or name is), for the message */
                    fv_param_parse(filter, index, cli_shown(text), set[i].flag, &value);
                    cli_error("%s (%s)", fv_last_error(), filter->name);
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

/* ---- the flag table: parsing, --help and the modes each flag is for all come from it ---- */

typedef struct parse_state parse_state;

typedef enum flag_arg {
    ARG_NONE,    /* nothing follows (a mode flag) */
    ARG_SWITCH,  /* nothing follows: `field` (an int) becomes 1 */
    ARG_TEXT,    /* a word: `field` (a const char *); `expects` says what a missing one should be */
    ARG_INT,     /* a plain integer lo..hi: `field` (an int) */
    ARG_SEED,    /* a plain integer 0..2147483647: `field` (an unsigned) */
    ARG_DECIMAL, /* a plain decimal lo..hi: `field` (a double) */
    ARG_PERCENT, /* a plain decimal lo..hi, '%' allowed: `field` (a double) gets it / 100 */
    ARG_SIZE,    /* WxH: `field` and `field2` (ints), each side 1..hi (0: FV_MAX_DIMENSION) */
    ARG_CHOICE,  /* one of `words`: `field` (an int or an enum) gets its value; `expects` lists
                    them for a refusal */
    ARG_CUSTOM   /* the row's own parse function */
} flag_arg;

/* A word a flag takes and the value it stands for; a list ends with {NULL}. The completion
 * script offers the words of any flag that has them. */
typedef struct cli_word {
    const char *name;
    int value;
} cli_word;

enum {
    FLAG_STOP = 1, /* --help, --help-keys: the mode, and nothing else is read */
    FLAG_MODE = 2  /* selects `mode` (one mode flag per command line) */
};

typedef enum help_section { HELP_NONE, HELP_OPTIONS, HELP_VIEWER } help_section;

#define MODE_BIT(m)   (1u << (m))
#define FOR_VIEWER    MODE_BIT(CLI_MODE_VIEW)
#define FOR_BATCH     MODE_BIT(CLI_MODE_BATCH)
#define FOR_BENCH     MODE_BIT(CLI_MODE_BENCH)
#define FOR_LIST      MODE_BIT(CLI_MODE_LIST)
#define FOR_OUTPUT    (FOR_BATCH | MODE_BIT(CLI_MODE_COMPARE)) /* where -o writes an image */
#define FOR_RESULTS   (FOR_OUTPUT | FOR_BENCH)                 /* where results are printed */
#define FOR_SOURCE    (FOR_VIEWER | FOR_OUTPUT)                /* where a source is filtered */
#define FOR_FILTERING (FOR_SOURCE | FOR_BENCH)                 /* where a filter runs */
#define FIELD(name)   offsetof(cli_options, name)

typedef struct cli_flag {
    const char *names[3]; /* the spellings (NULL-terminated); none: a --help line only */
    flag_arg arg;
    size_t field, field2;  /* where the value goes: offsets into cli_options */
    double lo, hi;         /* ARG_INT, ARG_DECIMAL, ARG_PERCENT; hi: ARG_SIZE's side */
    const char *expects;   /* ARG_TEXT, ARG_CHOICE */
    const cli_word *words; /* ARG_CHOICE, and a custom flag's words for the completion */
    int (*parse)(parse_state *s, const char *flag); /* ARG_CUSTOM */
    /* NULL: the spelling always means this flag; else whether it does here (--size) */
    int (*means)(const parse_state *s, const char *flag);
    unsigned flags; /* FLAG_* */
    cli_mode mode;  /* FLAG_STOP, FLAG_MODE */
    unsigned modes; /* the modes it means something in (MODE_BIT); 0: all */
    help_section section;
    const char *label; /* "-f, --filter NAME" */
    const char *help;  /* printf format given FV_MAX_ITERATIONS; --help wraps it to 80 columns */
} cli_flag;

#define CLI_MAX_NAMES 128 /* distinct --NAME=VALUE names: more than there are flags */
#define CLI_NAME_ROOM 40  /* longer than any flag's name */

/* What cli_parse gathers before it can resolve names (the filter comes after its parameters'
 * flags, or not at all). */
struct parse_state {
    cli_options *o;
    int argc;
    char **argv;
    int i; /* argv[i]: the flag being read */
    const char *filter_name, *variant_name, *pane_text[2], *compare_text[2];
    param_setting settings[CLI_MAX_SETTINGS];
    int n_settings, iterations, mode_given;
    const char *iters_flag, *iters_text; /* --iters as given (NULL: not given) */
    const char *given_as[64];   /* per row of cli_flags: its first spelling given (mode check) */
    int given_at[64];           /* and where in argv */
    int seen[64];               /* per row: given already (a second value is refused) */
    const char *seen_value[64]; /* per row: the value it was given first */
    /* --NAME=VALUE: the value, taken by the flag's first next_value instead of the next word */
    const char *inline_value;
    int inline_taken;
    /* the NAMEs split off --NAME=VALUE, one copy each (messages and settings point at them) */
    char names[CLI_MAX_NAMES][CLI_NAME_ROOM];
    int n_names;
};

static const char *next_value(parse_state *s)
{
    if (s->inline_value && !s->inline_taken) {
        s->inline_taken = 1;
        return s->inline_value;
    }
    return arg_value(s->argc, s->argv, &s->i);
}

/* What next_value would return, without taking it (NULL: nothing follows). */
static const char *peek_value(const parse_state *s)
{
    if (s->inline_value && !s->inline_taken) return s->inline_value;
    return s->i + 1 < s->argc ? s->argv[s->i + 1] : NULL;
}

/* "--radius" of "--radius=5", kept in s->names; NULL when no flag is that long (unknown). */
static const char *split_name(parse_state *s, const char *arg, const char *eq)
{
    const size_t n = (size_t)(eq - arg);
    if (n >= CLI_NAME_ROOM) return NULL;
    for (int k = 0; k < s->n_names; k++)
        if (strlen(s->names[k]) == n && !strncmp(s->names[k], arg, n)) return s->names[k];
    if (s->n_names == CLI_MAX_NAMES) return NULL;
    snprintf(s->names[s->n_names], CLI_NAME_ROOM, "%.*s", (int)n, arg);
    return s->names[s->n_names++];
}

/* A flag given a second value: refused, never a silent override of the first. */
static int given_twice(const char *flag, const char *first, const char *second)
{
    cli_error("%s given twice ('%s' and %s%s%s): give it once", flag, first ? cli_shown(first) : "",
              second ? "'" : "", second ? cli_shown(second) : "nothing", second ? "'" : "");
    return 0;
}

static int parse_pane(parse_state *s, const char *flag)
{
    const char *spec = next_value(s);
    if (!spec) return bad(flag, "FILTER:VARIANT, a variant or 'original'", NULL);
    if (s->pane_text[flag[1] - 'a']) return given_twice(flag, s->pane_text[flag[1] - 'a'], spec);
    s->pane_text[flag[1] - 'a'] = spec;
    return 1;
}

/* --interop's words (also the completion's choices: cli_flag_doc_get) */
/* ARG_CHOICE writes an int: the fields it fills are enums of that size */
_Static_assert(sizeof(((cli_options *)0)->interop) == sizeof(int), "--interop's field is an int");
_Static_assert(sizeof(((cli_options *)0)->codec) == sizeof(int), "--codec's field is an int");

/* --interop's words */
static const cli_word interop_words[] = {{"buffer", FV_INTEROP_BUFFER},
                                         {"texture", FV_INTEROP_TEXTURE},
                                         {"pbo", FV_INTEROP_PBO},
                                         {"staging", FV_INTEROP_STAGING},
                                         {NULL, 0}};

/* --codec's words */
static const cli_word codec_words[] = {
    {"auto", CLI_CODEC_AUTO}, {"cpu", CLI_CODEC_CPU}, {"gpu", CLI_CODEC_GPU}, {NULL, 0}};

/* The entry of `words` named `word`; NULL when none is (or no word was given). */
static const cli_word *find_word(const cli_word *words, const char *word)
{
    for (const cli_word *w = words; word && w->name; w++)
        if (!strcmp(word, w->name)) return w;
    return NULL;
}

static int parse_format(parse_state *s, const char *flag)
{
    const char *name = next_value(s);
    if (name && !strcmp(name, "png"))
        s->o->format = "png";
    else if (name && (!strcmp(name, "jpeg") || !strcmp(name, "jpg")))
        s->o->format = "jpeg";
    else if (name && (!strcmp(name, "tiff") || !strcmp(name, "tif")))
        s->o->format = "tiff";
    else if (name && (!strcmp(name, "pnm") || !strcmp(name, "ppm") || !strcmp(name, "pgm")))
        s->o->format = "pnm";
    else
        return bad(flag, "'png', 'jpeg', 'tiff' or 'pnm'", name);
    return 1;
}

static int parse_depth(parse_state *s, const char *flag)
{
    const char *name = next_value(s);
    const int type = name && (!strcmp(name, "8") || !strcmp(name, "16") || !strcmp(name, "float"))
                         ? fv_pixel_type_parse(name)
                         : -1;
    if (type < 0) return bad(flag, "8, 16 or float", name);
    s->o->depth = type + 1;
    return 1;
}

/* tcp://HOST:PORT or tls://HOST:PORT, HOST a name, an IPv4 address or [an IPv6 one]: what
 * distributed.Client takes, checked here so that a typo is a bad command line (exit 2), not a
 * scheduler that cannot be reached */
static int dask_address_ok(const char *a)
{
    if (strncmp(a, "tcp://", 6) != 0 && strncmp(a, "tls://", 6) != 0) return 0;
    const char *host = a + 6, *colon = strrchr(host, ':');
    if (!colon || colon == host) return 0;
    if (*host == '[') {
        if (colon[-1] != ']' || colon - host < 3) return 0;
        for (const char *c = host + 1; c < colon - 1; c++)
            if (!isxdigit((unsigned char)*c) && *c != ':' && *c != '.') return 0;
    } else {
        for (const char *c = host; c < colon; c++)
            if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_') return 0;
    }
    const char *port = colon + 1;
    long value = 0;
    for (const char *c = port; *c; c++) {
        if (!isdigit((unsigned char)*c) || c - port > 5) return 0;
        value = value * 10 + (*c - '0');
    }
    return *port && value >= 1 && value <= 65535;
}

static int parse_dask(parse_state *s, const char *flag)
{
    const char *address = next_value(s);
    if (!address || !dask_address_ok(address))
        return bad(flag, "a Dask scheduler's address, tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)",
                   address);
    s->o->dask = address;
    return 1;
}

static int parse_filter(parse_state *s, const char *flag)
{
    if (!(s->filter_name = next_value(s))) return bad(flag, "a filter name (see --list)", NULL);
    s->o->filter_given = 1;
    return 1;
}

static int parse_variant(parse_state *s, const char *flag)
{
    if (!(s->variant_name = next_value(s))) return bad(flag, "a variant name (see --list)", NULL);
    s->o->variant_given = 1;
    return 1;
}

static int parse_compare(parse_state *s, const char *flag)
{
    s->compare_text[0] = next_value(s);
    s->compare_text[1] = next_value(s);
    if (!s->compare_text[0] || !s->compare_text[1])
        return bad(flag, "two variants (VARIANT or FILTER:VARIANT)", NULL);
    return 1;
}

static int parse_iterations(parse_state *s, const char *flag)
{
    s->iters_flag = flag;
    s->iters_text = next_value(s);
    return parse_int(flag, s->iters_text, 1, FV_MAX_ITERATIONS, &s->iterations);
}

/* "canny", "canny and conv", "gaussian, invert and box": the distinct filters of list[] that
 * `pick` keeps */
static void filter_names(const fv_filter *const *list, int n, int (*pick)(const fv_filter *),
                         char *buf, size_t size)
{
    const fv_filter *kept[FV_MAX_FILTERS + 4];
    int n_kept = 0;
    for (int i = 0; i < n; i++) {
        int seen = !pick(list[i]);
        for (int k = 0; k < n_kept; k++) seen |= kept[k] == list[i];
        if (!seen) kept[n_kept++] = list[i];
    }
    size_t len = 0;
    buf[0] = 0;
    for (int k = 0; k < n_kept && len < size; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                k == 0            ? ""
                                : k == n_kept - 1 ? " and "
                                                  : ", ",
                                kept[k]->name);
}

static int iterates(const fv_filter *f)
{
    return f->max_iterations > 1;
}
static int takes_image(const fv_filter *f)
{
    return fv_param_image_index(f) >= 0;
}
static int takes_no_image(const fv_filter *f)
{
    return !takes_image(f);
}
static int runs_once(const fv_filter *f)
{
    return f->max_iterations <= 1;
}

/* --iters N, as a parameter applies: to every filter in play that can take N passes (the others
 * run once); a mistake when none of them can. The registry's max_iterations says which. */
static int apply_iterations(cli_options *o, const parse_state *s, const fv_filter *const *in_play,
                            int n_in_play)
{
    int taken = 0, most = 1;
    for (int k = 0; k < n_in_play; k++) {
        taken |= in_play[k]->max_iterations >= s->iterations;
        if (in_play[k]->max_iterations > most) most = in_play[k]->max_iterations;
    }
    if (!taken && most > 1) {
        char want[64];
        snprintf(want, sizeof want, "an integer 1..%d", most);
        return bad(s->iters_flag, want, s->iters_text);
    }
    if (!taken) {
        char once[160], many[160];
        filter_names(in_play, n_in_play, runs_once, once, sizeof once);
        filter_names(fv_filters, fv_n_filters, iterates, many, sizeof many);
        cli_error("%s: %s %s once per image (filters that iterate: %s)", s->iters_flag, once,
                  strstr(once, " and ") ? "run" : "runs", many);
        return 0;
    }
    for (int f = 0; f < fv_n_filters; f++)
        o->params[f].iterations =
            fv_filters[f]->max_iterations >= s->iterations ? s->iterations : 1;
    return 1;
}

static int parse_sizes_flag(parse_state *s, const char *flag)
{
    (void)flag;
    return parse_sizes(next_value(s), s->o);
}

/* -p NAME=VALUE, or --NAME VALUE for a parameter of any filter (generated from the registry);
 * applied once the filters in play are known */
static int parse_param(parse_state *s, const char *flag)
{
    if (s->n_settings == CLI_MAX_SETTINGS) return bad(flag, "at most 32 parameter settings", NULL);
    param_setting *set = &s->settings[s->n_settings];
    set->flag = flag;
    const char *value = next_value(s);
    if (!strcmp(flag, "-p")) {
        const char *text;
        if (!fv_param_split(value, set->storage, sizeof set->storage, &text))
            return bad(flag, "NAME=VALUE (a filter parameter, see --list)", value);
        set->name = set->storage;
        snprintf(set->flag_storage, sizeof set->flag_storage, "-p %.*s", (int)(text - 1 - value),
                 value);
        set->flag = set->flag_storage;
        set->text = text;
        if (!any_filter_has_param(set->name)) {
            cli_error("-p: no filter has a parameter '%s'%s", set->name,
                      param_suggestion(set->name));
            return 0;
        }
    } else {
        set->name = flag + 2;
        set->text = value; /* NULL: missing, said once the filters in play are known */
    }
    for (int k = 0; k < s->n_settings; k++)
        if (!strcmp(s->settings[k].name, set->name))
            return given_twice(set->flag, s->settings[k].text, set->text);
    s->n_settings++;
    return 1;
}

/* --size WxH is the old name of --window; a filter's `size` parameter takes other values */
static int size_means_window(const parse_state *s, const char *flag)
{
    const char *value = peek_value(s);
    return strcmp(flag, "--size") != 0 || !value || looks_like_size(value) ||
           !any_filter_has_param("size");
}

/* --completion SHELL: the shells cli_docs.c writes a script for */
static const cli_word completion_shells[] = {{"bash", 0}, {NULL, 0}};

static int parse_completion(parse_state *s, const char *flag)
{
    const char *shell = next_value(s);
    return find_word(completion_shells, shell) ? 1 : bad(flag, "a shell: 'bash'", shell);
}

/* In --help order, "options:" then "viewer:"; the filters' parameters (--sigma, ...) come from the
 * registry, between the two. */
static const cli_flag cli_flags[] = {
    {.names = {"-h", "--help"},
     .flags = FLAG_STOP,
     .mode = CLI_MODE_HELP,
     .section = HELP_OPTIONS,
     .label = "-h, --help",
     .help = "this help, then exit"},
    {.names = {"--version"},
     .flags = FLAG_STOP,
     .mode = CLI_MODE_VERSION,
     .section = HELP_OPTIONS,
     .label = "--version",
     .help = "print the version (filterview " FV_VERSION "), then exit"},
    {.names = {"-f", "--filter"},
     .arg = ARG_CUSTOM,
     .parse = parse_filter,
     .section = HELP_OPTIONS,
     .label = "-f, --filter NAME",
     .help = "filter (default gaussian); --list shows all"},
    {.names = {"-v", "--variant"},
     .arg = ARG_CUSTOM,
     .parse = parse_variant,
     .section = HELP_OPTIONS,
     .label = "-v, --variant NAME",
     .help = "kernel variant (default fast); `cpu` runs the reference, "
             "`npp` NVIDIA's NPP where the toolkit has it, user=FILE your own "
             "kernel (a CUDA file; see --contract)"},
    {.names = {"-p"},
     .arg = ARG_CUSTOM,
     .parse = parse_param,
     .section = HELP_OPTIONS,
     .label = "--NAME VALUE",
     .help = "a filter parameter (below); also -p NAME=VALUE. It applies to "
             "every filter in play that has it; --bench sweeps a list: "
             "-p radius=1,2,4,8"},
    {.names = {"--iters", "--iterations"},
     .arg = ARG_CUSTOM,
     .parse = parse_iterations,
     .section = HELP_OPTIONS,
     .label = "--iters N",
     .help = "apply the filters that iterate N times, 1..%d (default 1)"},
    {.names = {"-o", "--output"},
     .arg = ARG_TEXT,
     .field = FIELD(output),
     .expects = "an output .png path",
     .flags = FLAG_MODE,
     .mode = CLI_MODE_BATCH,
     .section = HELP_OPTIONS,
     .label = "-o, --output FILE",
     .help = "write the result as PNG, or JPEG for .jpg/.jpeg (to a temporary "
             "name, then renamed: never half a file); '-' is standard output. "
             "A folder (DIR/, made if missing) takes every input: a progress "
             "bar on a terminal, a failed file reported and skipped, exit 1 "
             "at the end if any failed. An output that is one of the inputs "
             "is refused (exit 2) without --in-place"},
    {.names = {"--format"},
     .arg = ARG_CUSTOM,
     .parse = parse_format,
     .modes = FOR_OUTPUT,
     .section = HELP_OPTIONS,
     .label = "--format FMT",
     .help = "png, jpeg, tiff or pnm: what -o - writes (default png); a "
             "folder's files get .png, .jpg, .tif or .ppm/.pgm; a file's name "
             "must agree"},
    {.names = {"--depth"},
     .arg = ARG_CUSTOM,
     .parse = parse_depth,
     .modes = FOR_OUTPUT | FOR_BENCH,
     .section = HELP_OPTIONS,
     .label = "--depth D",
     .help = "8, 16 or float: the output's sample type (default: the input's; "
             "the filters run in the input's type). A conversion that loses "
             "information, asked for or forced by the format (16-bit to JPEG, "
             "float to PNG), is said in one line. With --bench: the type of the "
             "images benchmarked (default 8)"},
    {.names = {"--in-place"},
     .arg = ARG_SWITCH,
     .field = FIELD(in_place),
     .modes = FOR_FILTERING,
     .section = HELP_OPTIONS,
     .label = "--in-place",
     .help = "let an output replace an input (written to a temporary name, "
             "then renamed over it)"},
    {.names = {"-r", "--recursive"},
     .arg = ARG_SWITCH,
     .field = FIELD(recursive),
     .modes = FOR_BATCH,
     .section = HELP_OPTIONS,
     .label = "-r, --recursive",
     .help = "take a folder's subfolders too, mirrored under -o DIR/ (without "
             "it they are skipped, and counted in one line)"},
    {.names = {"--tile"},
     .arg = ARG_INT,
     .field = FIELD(tile),
     .lo = 16,
     .hi = FV_MAX_DIMENSION,
     .modes = FOR_BATCH,
     .section = HELP_OPTIONS,
     .label = "--tile N",
     .help = "filter in tiles of N x N pixels, each with a halo of the "
             "filter's reach, so that the result equals the whole image's "
             "(done by itself when an image does not fit in the GPU's memory)"},
    {.names = {"--threads"},
     .arg = ARG_INT,
     .field = FIELD(threads),
     .lo = 1,
     .hi = CLI_MAX_THREADS,
     .modes = FOR_OUTPUT,
     .section = HELP_OPTIONS,
     .label = "--threads N",
     .help = "CPU threads that read and write files and deflate PNGs "
             "(default: one per core)"},
    {.names = {"--stats"},
     .arg = ARG_SWITCH,
     .field = FIELD(stats),
     .modes = FOR_BATCH,
     .section = HELP_OPTIONS,
     .label = "--stats",
     .help = "with -o DIR/ and the GPU codec: a line after the summary with the "
             "time each stage was busy (read, decode, filter, encode, write) and "
             "the stage that bounds the run"},
    {.names = {"--dask"},
     .arg = ARG_CUSTOM,
     .parse = parse_dask,
     .modes = FOR_BATCH,
     .section = HELP_OPTIONS,
     .label = "--dask ADDRESS",
     .help = "with -o DIR/: filter the files on a Dask cluster, one task per file, "
             "through the scheduler at ADDRESS (tcp://HOST:PORT); each worker runs "
             "this program on its file, at the same path, and reaches the same "
             "folders. Needs Python 3 with python3-distributed and the filterview "
             "module (FILTERVIEW_PYTHON: another python)"},
    {.names = {"-q", "--quiet"},
     .arg = ARG_SWITCH,
     .field = FIELD(quiet),
     .modes = FOR_RESULTS,
     .section = HELP_OPTIONS,
     .label = "-q, --quiet",
     .help = "no progress bar and no \"wrote\" or summary lines (errors are still "
             "said); --compare's answer is then its exit status alone, --bench's its "
             "table"},
    {.names = {"--png-level"},
     .arg = ARG_INT,
     .field = FIELD(png_level),
     .lo = 0,
     .hi = 9,
     .modes = FOR_OUTPUT,
     .section = HELP_OPTIONS,
     .label = "--png-level N",
     .help = "PNG compression, 0..9 (default 1: fast; 9: smallest)"},
    {.names = {"--jpeg-quality"},
     .arg = ARG_INT,
     .field = FIELD(jpeg_quality),
     .lo = 1,
     .hi = 100,
     .modes = FOR_OUTPUT,
     .section = HELP_OPTIONS,
     .label = "--jpeg-quality N",
     .help = "JPEG quality, 1..100 (default 90)"},
    {.names = {"--codec"},
     .arg = ARG_CHOICE,
     .field = FIELD(codec),
     .words = codec_words,
     .expects = "'cpu', 'gpu' or 'auto'",
     .modes = FOR_BATCH,
     .section = HELP_OPTIONS,
     .label = "--codec WHO",
     .help = "who decodes and encodes JPEG files: 'cpu' (libjpeg-turbo), 'gpu' "
             "(nvJPEG, with the GPU's JPEG engines where it has them; builds with "
             "nvJPEG) or 'auto' (default: gpu for JPEG inputs large enough to pay for "
             "its start against the CPU codec on --threads, where the build has it, "
             "a device is there and the variant runs on the GPU). JPEGs the GPU codec "
             "cannot decode go to the CPU codec, counted in the summary"},
    {.names = {"--noise"},
     .arg = ARG_PERCENT,
     .field = FIELD(noise.density),
     .lo = 0,
     .hi = 100 * FV_NOISE_MAX_DENSITY,
     .modes = FOR_SOURCE,
     .section = HELP_OPTIONS,
     .label = "--noise D",
     .help = "salt-and-pepper noise on the source: D %% of the pixels, 0..50 "
             "(viewer: n/N); --noise-sigma S adds Gaussian noise (0..128), "
             "--noise-seed N draws another pattern. The same noisy image on "
             "the CPU and the GPU, for every pane and filter"},
    {.names = {"--noise-sigma"},
     .arg = ARG_DECIMAL,
     .field = FIELD(noise.sigma),
     .lo = 0,
     .hi = FV_NOISE_MAX_SIGMA,
     .modes = FOR_SOURCE},
    {.names = {"--noise-seed"}, .arg = ARG_SEED, .field = FIELD(noise.seed), .modes = FOR_SOURCE},
    {.names = {"--save-source"},
     .arg = ARG_TEXT,
     .field = FIELD(save_source),
     .expects = "an output image path",
     .modes = FOR_BATCH,
     .section = HELP_OPTIONS,
     .label = "--save-source FILE",
     .help = "with -o: also write the source the filter saw (the noisy one)"},
    {.names = {"--kernel-file"},
     .arg = ARG_TEXT,
     .field = FIELD(kernel_file),
     .expects = "an image file (conv's shape file)",
     .modes = FOR_FILTERING,
     .section = HELP_OPTIONS,
     .label = "--kernel-file FILE",
     .help = "conv's kernel for shape file: a grayscale image up to 127x127"},
    {.names = {"--compare"},
     .arg = ARG_CUSTOM,
     .parse = parse_compare,
     .flags = FLAG_MODE,
     .mode = CLI_MODE_COMPARE,
     .section = HELP_OPTIONS,
     .label = "--compare A B",
     .help = "run A and B (VARIANT or FILTER:VARIANT), print max |A-B| and "
             "the differing pixels; exit 0 when they are identical, 1 when "
             "they differ, 2 on any error. With -o FILE: the difference as "
             "the viewer's heat map (max |A-B| over R, G, B, gain 4)"},
    {.names = {"--bench"},
     .flags = FLAG_MODE,
     .mode = CLI_MODE_BENCH,
     .section = HELP_OPTIONS,
     .label = "--bench",
     .help = "time every variant on random images (CUDA events, median)"},
    {.names = {"--sizes"},
     .arg = ARG_CUSTOM,
     .parse = parse_sizes_flag,
     .modes = FOR_BENCH,
     .section = HELP_OPTIONS,
     .label = "--sizes WxH,...",
     .help = "benchmark sizes (default: 512x512 .. 9984x6400)"},
    {.names = {"--image"},
     .arg = ARG_TEXT,
     .field = FIELD(bench_image),
     .expects = "an image file for the bench",
     .modes = FOR_BENCH,
     .section = HELP_OPTIONS,
     .label = "--image FILE",
     .help = "bench on this photo instead of random images (resized to each "
             "of --sizes; its own size without them): Canny wants a photo"},
    {.names = {"--csv"},
     .arg = ARG_TEXT,
     .field = FIELD(csv),
     .expects = "a CSV output path",
     .modes = FOR_BENCH,
     .section = HELP_OPTIONS,
     .label = "--csv FILE",
     .help = "also write the benchmark table as CSV (with kernel resources)"},
    {.names = {"--chart"},
     .arg = ARG_TEXT,
     .field = FIELD(chart),
     .expects = "a .png path for the chart",
     .modes = FOR_BENCH,
     .section = HELP_OPTIONS,
     .label = "--chart FILE",
     .help = "also draw the benchmark as a PNG chart: lines over a swept "
             "parameter, else bars over the sizes"},
    {.names = {"--runs"},
     .arg = ARG_INT,
     .field = FIELD(runs),
     .lo = 1,
     .hi = 10000,
     .modes = FOR_BENCH,
     .section = HELP_OPTIONS,
     .label = "--runs N",
     .help = "timed runs per cell (default 20); --seed N random seed"},
    {.names = {"--seed"}, .arg = ARG_SEED, .field = FIELD(seed)},
    {.names = {"--list"},
     .flags = FLAG_MODE,
     .mode = CLI_MODE_LIST,
     .section = HELP_OPTIONS,
     .label = "--list",
     .help = "filters, their parameters and variants; --verbose adds each "
             "kernel's registers, shared memory, block size and occupancy"},
    {.names = {"--verbose"}, .arg = ARG_SWITCH, .field = FIELD(verbose), .modes = FOR_LIST},
    {.names = {"--contract"},
     .flags = FLAG_MODE,
     .mode = CLI_MODE_CONTRACT,
     .section = HELP_OPTIONS,
     .label = "--contract",
     .help = "the header \"filterview.h\" that a user=FILE kernel of -f's filter "
             "includes: its parameters, entry points and rules"},
    {.names = {"--info"},
     .flags = FLAG_MODE,
     .mode = CLI_MODE_INFO,
     .section = HELP_OPTIONS,
     .label = "--info",
     .help = "the CUDA device and its memory"},
    {.names = {"--help-man"},
     .flags = FLAG_STOP,
     .mode = CLI_MODE_HELP_MAN,
     .section = HELP_OPTIONS,
     .label = "--help-man",
     .help = "this help as a man page (roff): filterview(1)"},
    {.names = {"--completion"},
     .arg = ARG_CUSTOM,
     .parse = parse_completion,
     .words = completion_shells,
     .flags = FLAG_MODE,
     .mode = CLI_MODE_COMPLETION,
     .section = HELP_OPTIONS,
     .label = "--completion SHELL",
     .help = "a completion script for SHELL (bash): options, filters, "
             "variants, parameters and their choices"},
    {.section = HELP_VIEWER,
     .label = "(no -o)",
     .help = "open the viewer: a window where there is a display, else "
             "headless (EGL), writing a screenshot"},
    {.names = {"-a", "-b"},
     .arg = ARG_CUSTOM,
     .parse = parse_pane,
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "-a SPEC, -b SPEC",
     .help = "what panes A and B show: a variant of -f's filter, FILTER:VARIANT "
             "(B with another filter than A unlinks the panes), or 'original' "
             "(default: A = naive, B = smem; -v also sets A)"},
    {.names = {"--interop"},
     .arg = ARG_CHOICE,
     .field = FIELD(interop),
     .words = interop_words,
     .expects = "'buffer', 'texture', 'pbo' or 'staging'",
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--interop HOW",
     .help = "how CUDA output reaches GL: 'buffer' (default) kernels write "
             "registered GL buffers that the shader samples directly; "
             "'texture' a device copy into registered textures; 'pbo' "
             "kernels write pixel buffers that GL copies (the classic way); "
             "'staging' no interop, through the host (the fallback)"},
    {.names = {"--headless"},
     .arg = ARG_SWITCH,
     .field = FIELD(headless),
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--headless",
     .help = "draw offscreen through EGL on the GPU (no X server)"},
    {.names = {"--keys"},
     .arg = ARG_TEXT,
     .field = FIELD(keys),
     .expects = "a key sequence such as \"1bc<PgUp>\"",
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--keys SEQ",
     .help = "replay keys, one per frame: characters, and <F1> <Tab> <Esc> "
             "<PgUp> <PgDn> <Left> <Right> <Up> <Down> <Space> <lt>; "
             "<WxH> resizes the window (<0x0>: minimised)"},
    {.names = {"--frames"},
     .arg = ARG_INT,
     .field = FIELD(frames),
     .lo = 1,
     .hi = 1000000,
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--frames N",
     .help = "frames to draw, then exit (window or headless)"},
    {.names = {"--screenshot"},
     .arg = ARG_TEXT,
     .field = FIELD(screenshot),
     .expects = "a .png path",
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--screenshot FILE",
     .help = "write the last frame as PNG, then exit"},
    {.names = {"--bench-frames"},
     .arg = ARG_INT,
     .field = FIELD(bench_frames),
     .lo = 1,
     .hi = 100000,
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--bench-frames N",
     .help = "time N frames: kernel time vs the rest (map/unmap, texture, draw), "
             "where the rest goes, and the CUDA <-> GL hand-over floor"},
    {.names = {"--window", "--size"},
     .arg = ARG_SIZE,
     .field = FIELD(window_w),
     .field2 = FIELD(window_h),
     .hi = CLI_MAX_WINDOW,
     .means = size_means_window,
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--window WxH",
     .help = "window or offscreen size (--size WxH still works)"},
    {.names = {"--random"},
     .arg = ARG_SIZE,
     .field = FIELD(random_w),
     .field2 = FIELD(random_h),
     .modes = FOR_VIEWER,
     .section = HELP_VIEWER,
     .label = "--random WxH",
     .help = "a random image of that size instead of a file"},
    {.names = {"--help-keys"},
     .flags = FLAG_STOP,
     .mode = CLI_MODE_HELP_KEYS,
     .section = HELP_VIEWER,
     .label = "--help-keys",
     .help = "the viewer's keys as a markdown table"},
};

#define N_FLAGS ((int)(sizeof cli_flags / sizeof cli_flags[0]))
_Static_assert(sizeof cli_flags / sizeof cli_flags[0] <=
                   sizeof((parse_state *)0)->given_at / sizeof(int),
               "parse_state keeps a slot per row of cli_flags");

/* The order in which flags given for another mode are reported, one line for the first found:
 * every distinct `modes` of the table is here. */
static const unsigned scope_order[] = {FOR_VIEWER, FOR_BENCH,   FOR_LIST,   FOR_BATCH,
                                       FOR_OUTPUT, FOR_RESULTS, FOR_SOURCE, FOR_FILTERING};

static const char *const mode_names[] = {
    [CLI_MODE_VIEW] = "the viewer",    [CLI_MODE_BATCH] = "-o",
    [CLI_MODE_COMPARE] = "--compare",  [CLI_MODE_LIST] = "--list",
    [CLI_MODE_BENCH] = "--bench",      [CLI_MODE_INFO] = "--info",
    [CLI_MODE_CONTRACT] = "--contract"};

static const char *mode_name(cli_mode m)
{
    return (size_t)m < sizeof mode_names / sizeof mode_names[0] && mode_names[m] ? mode_names[m]
                                                                                 : "this mode";
}

/* "the viewer", or "the viewer, -o and --compare" */
static void modes_text(unsigned modes, char *buf, size_t size)
{
    int n = 0, k = 0;
    size_t len = 0;
    buf[0] = 0;
    for (int m = 0; m < 32; m++) n += (modes >> m) & 1;
    for (int m = 0; m < 32 && len < size; m++)
        if ((modes >> m) & 1) {
            k++;
            len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                    k == 1   ? ""
                                    : k == n ? " and "
                                             : ", ",
                                    mode_name((cli_mode)m));
        }
}

static const cli_flag *find_flag(const parse_state *s, const char *a)
{
    for (int r = 0; r < N_FLAGS; r++)
        for (int k = 0; k < 3 && cli_flags[r].names[k]; k++)
            if (!strcmp(a, cli_flags[r].names[k]))
                return !cli_flags[r].means || cli_flags[r].means(s, a) ? &cli_flags[r] : NULL;
    return NULL;
}

/* Reads flag f (spelled a) and what follows it. Returns 0 on a bad command line (said), 1 to go
 * on, 2 when parsing is done (--help). */
static int read_flag(parse_state *s, const cli_flag *f, const char *a)
{
    cli_options *o = s->o;
    char *field = (char *)o + f->field;
    const int row = (int)(f - cli_flags);
    if (s->inline_value && (f->arg == ARG_NONE || f->arg == ARG_SWITCH)) {
        cli_error("%s takes no value, got '%s'", a, cli_shown(s->argv[s->i]));
        return 0;
    }
    if (f->modes && !s->given_as[row]) {
        s->given_as[row] = a;
        s->given_at[row] = s->i;
    }
    if (f->flags & FLAG_STOP) {
        o->mode = f->mode;
        return 2;
    }
    /* every flag that takes a value takes one: a second is refused, never a silent override
     * (a switch given twice says the same thing twice; -a and -b, one row, check their own) */
    const int takes_value = f->arg != ARG_NONE && f->arg != ARG_SWITCH && f->parse != parse_pane &&
                            f->parse != parse_param;
    if (takes_value && s->seen[row]) return given_twice(a, s->seen_value[row], peek_value(s));
    if (takes_value) {
        s->seen[row] = 1;
        s->seen_value[row] = peek_value(s);
    }
    switch (f->arg) {
    case ARG_NONE: break;
    case ARG_SWITCH: *(int *)field = 1; break;
    case ARG_TEXT:
        if (!(*(const char **)field = next_value(s))) return bad(a, f->expects, NULL);
        break;
    case ARG_INT:
        if (!parse_int(a, next_value(s), (long)f->lo, (long)f->hi, (int *)field)) return 0;
        break;
    case ARG_SEED: {
        int seed = 0;
        if (!parse_int(a, next_value(s), 0, 2147483647, &seed)) return 0;
        *(unsigned *)field = (unsigned)seed;
        break;
    }
    case ARG_DECIMAL:
        if (!parse_decimal(a, next_value(s), f->lo, f->hi, 0, (double *)field)) return 0;
        break;
    case ARG_PERCENT: {
        double percent = 0;
        if (!parse_decimal(a, next_value(s), f->lo, f->hi, 1, &percent)) return 0;
        *(double *)field = percent / 100;
        break;
    }
    case ARG_SIZE:
        if (!parse_one_size(a, next_value(s), f->hi > 0 ? (int)f->hi : FV_MAX_DIMENSION,
                            (int *)field, (int *)((char *)o + f->field2)))
            return 0;
        break;
    case ARG_CHOICE: {
        const char *word = next_value(s);
        const cli_word *w = find_word(f->words, word);
        if (!w) return bad(a, f->expects, word);
        *(int *)field = w->value;
        break;
    }
    case ARG_CUSTOM:
        if (!f->parse(s, a)) return 0;
        break;
    }
    if (f->flags & FLAG_MODE) {
        /* -o with --compare: the difference picture, in --compare's mode */
        const int diff_output = (o->mode == CLI_MODE_COMPARE && f->mode == CLI_MODE_BATCH) ||
                                (o->mode == CLI_MODE_BATCH && f->mode == CLI_MODE_COMPARE);
        if (s->mode_given && diff_output) {
            o->mode = CLI_MODE_COMPARE;
            return 1;
        }
        if (s->mode_given && o->mode != f->mode) {
            cli_error("%s cannot be combined with the other mode flags", a);
            return 0;
        }
        o->mode = f->mode;
        s->mode_given = 1;
    }
    return 1;
}

/* A flag that means nothing in this mode is a mistake, not something to ignore: the first one
 * given of the first kind (scope_order) is said. */
static int check_modes(const parse_state *s)
{
    const cli_options *o = s->o;
    for (size_t k = 0; k < sizeof scope_order / sizeof scope_order[0]; k++) {
        if (scope_order[k] & MODE_BIT(o->mode)) continue;
        int first = -1;
        for (int r = 0; r < N_FLAGS; r++)
            if (cli_flags[r].modes == scope_order[k] && s->given_as[r] &&
                (first < 0 || s->given_at[r] < s->given_at[first]))
                first = r;
        if (first < 0) continue;
        char modes[128];
        modes_text(scope_order[k], modes, sizeof modes);
        cli_error("%s is for %s, not %s", s->given_as[first], modes, mode_name(o->mode));
        return 0;
    }
    return 1;
}

/* --kernel-file is an image parameter's file (conv's `kernel-file`): it must reach a filter in
 * play that takes it, with the choice that uses it ("file", as --shape file) made, else it would
 * be silently ignored. */
static int check_image_file(const cli_options *o, const char *flag, const fv_filter *const *in_play,
                            int n_in_play)
{
    const fv_filter *taker = NULL;
    int chooser = -1; /* taker's parameter with the "file" choice */
    for (int k = 0; k < n_in_play; k++) {
        const fv_filter *f = in_play[k];
        if (!takes_image(f)) continue;
        int has_choice = 0;
        for (int i = 0; i < f->n_params; i++) {
            const fv_param_desc *d = &f->params[i];
            for (int c = 0; d->type == FV_PARAM_CHOICE && c < d->n_choices; c++)
                if (!strcmp(d->choices[c], "file")) {
                    if ((int)cli_params(o, f)->value[i] == c) return 1;
                    has_choice = 1;
                    if (!taker) {
                        taker = f;
                        chooser = i;
                    }
                }
        }
        if (!has_choice) return 1; /* the file is all it takes */
    }
    if (taker) {
        const fv_param_desc *d = &taker->params[chooser];
        cli_error("%s is %s's kernel for --%s file, but its %s is %s: give --%s file", flag,
                  taker->name, d->name, d->name,
                  d->choices[(int)cli_params(o, taker)->value[chooser]], d->name);
        return 0;
    }
    char names[160], takers[160];
    filter_names(in_play, n_in_play, takes_no_image, names, sizeof names);
    filter_names(fv_filters, fv_n_filters, takes_image, takers, sizeof takers);
    cli_error("%s is for %s, not %s", flag, takers, names);
    return 0;
}

/* The reverse: a choice `file` made (conv's --shape file) with no --kernel-file, which would
 * run the filter's built-in default instead of the file the user meant. */
static int check_file_choice(const cli_options *o, const fv_filter *const *in_play, int n_in_play)
{
    for (int k = 0; k < n_in_play; k++) {
        const fv_filter *f = in_play[k];
        if (!takes_image(f)) continue;
        for (int i = 0; i < f->n_params; i++) {
            const fv_param_desc *d = &f->params[i];
            const int chosen = (int)cli_params(o, f)->value[i];
            if (d->type == FV_PARAM_CHOICE && chosen >= 0 && chosen < d->n_choices &&
                !strcmp(d->choices[chosen], "file")) {
                cli_error("--%s file is %s's kernel from a file: give it with --kernel-file FILE",
                          d->name, f->name);
                return 0;
            }
        }
    }
    return 1;
}

/* The endings of the images filterview reads. */
static int is_image_name(const char *name)
{
    static const char *const endings[] = {".png", ".jpg", ".jpeg", ".ppm", ".pgm",
                                          ".pnm", ".bmp", ".tif",  ".tiff"};
    const size_t n = strlen(name);
    for (size_t k = 0; k < sizeof endings / sizeof endings[0]; k++) {
        const size_t e = strlen(endings[k]);
        if (n > e && strcasecmp(name + n - e, endings[k]) == 0) return 1;
    }
    return 0;
}

/* "-": standard input is one image read once, not a terminal; standard output takes one image,
 * never a terminal (binary data would garble it). */
static int check_stdio(const cli_options *o, int to_stdout)
{
    int readers = o->kernel_file && cli_is_stdio(o->kernel_file);
    readers += o->bench_image && cli_is_stdio(o->bench_image);
    for (int i = 0; i < o->n_inputs; i++) readers += cli_is_stdio(o->inputs[i]);
    if (readers > 1) {
        cli_error("standard input ('-') is given %d times: it holds one image", readers);
        return 0;
    }
    if (readers && o->output_is_dir) {
        cli_error("standard input ('-') is one image, not for a folder batch (-o DIR/): give "
                  "-o FILE or -o -");
        return 0;
    }
    if (readers && isatty(STDIN_FILENO)) {
        cli_error("'-' reads an image from standard input, which is a terminal: pipe or "
                  "redirect one into it");
        return 0;
    }
    if (to_stdout && isatty(STDOUT_FILENO)) {
        cli_error("-o -: standard output is a terminal, where image data would garble it: "
                  "redirect it to a file or a pipe");
        return 0;
    }
    return 1;
}

image_format cli_format(const cli_options *o)
{
    if (!o->format) return IMAGE_FORMAT_BY_NAME;
    return !strcmp(o->format, "jpeg")   ? IMAGE_FORMAT_JPEG
           : !strcmp(o->format, "tiff") ? IMAGE_FORMAT_TIFF
           : !strcmp(o->format, "pnm")  ? IMAGE_FORMAT_PNM
                                        : IMAGE_FORMAT_PNG;
}

/* --format: what -o - and a folder's files get; a file's own name must say the same. */
static int check_format(const cli_options *o, int to_stdout)
{
    if (!o->output) {
        cli_error("--format is for -o (standard output or a folder), not %s", mode_name(o->mode));
        return 0;
    }
    if (to_stdout || o->output_is_dir) return 1;
    const image_format named = image_format_of(o->output, IMAGE_FORMAT_BY_NAME);
    if (named != cli_format(o)) {
        cli_error("--format %s, but -o '%s' names a %s file", o->format, cli_shown(o->output),
                  image_format_name(named));
        return 0;
    }
    return 1;
}

/* --png-level and --jpeg-quality say how to write a PNG or a JPEG: one given where nothing of
 * its kind is written would be silently ignored. */
static int check_codec_options(const cli_options *o, int to_stdout)
{
    if (o->png_level < 0 && !o->jpeg_quality) return 1;
    /* the main output (--compare's: the difference picture): --format, else the name; standard
     * output and a folder's files are PNGs unless --format says otherwise */
    const image_format main_format = !o->output  ? IMAGE_FORMAT_BY_NAME
                                     : o->format ? cli_format(o)
                                     : to_stdout || o->output_is_dir
                                         ? IMAGE_FORMAT_PNG
                                         : image_format_of(o->output, IMAGE_FORMAT_BY_NAME);
    const image_format source_format = o->save_source
                                           ? image_format_of(o->save_source, IMAGE_FORMAT_BY_NAME)
                                           : IMAGE_FORMAT_BY_NAME;
    const int any_png = main_format == IMAGE_FORMAT_PNG || source_format == IMAGE_FORMAT_PNG;
    const int any_jpeg = main_format == IMAGE_FORMAT_JPEG || source_format == IMAGE_FORMAT_JPEG;
    const char *what = !o->output                       ? "nothing is written"
                       : to_stdout && !o->format        ? "-o - writes a PNG (--format png)"
                       : o->output_is_dir && !o->format ? "a folder's files are PNGs (--format png)"
                                                        : NULL;
    char named[600];
    if (!what) {
        if (o->format)
            snprintf(named, sizeof named, "--format %s is given", o->format);
        else if (o->mode == CLI_MODE_COMPARE)
            snprintf(named, sizeof named, "the difference picture is a %s",
                     image_format_name(main_format));
        else
            snprintf(named, sizeof named, "-o '%s' is a %s", cli_shown(o->output),
                     image_format_name(main_format));
        what = named;
    }
    if (o->png_level >= 0 && !any_png) {
        cli_error("--png-level is for PNG output, but %s%s", what,
                  any_jpeg ? ": give --jpeg-quality instead" : "");
        return 0;
    }
    if (o->jpeg_quality && !any_jpeg) {
        cli_error("--jpeg-quality is for JPEG output, but %s%s", what,
                  any_png ? ": give --png-level instead" : "");
        return 0;
    }
    return 1;
}

/* --codec gpu needs a build with nvJPEG and a variant that runs on the GPU, where the decoded
 * image is; whether a device is there is the run's to say (exit 1). */
static int check_codec_choice(const cli_options *o)
{
    if (o->codec != CLI_CODEC_GPU) return 1;
#ifndef FV_HAVE_NVJPEG
    cli_error("--codec gpu: this build has no GPU JPEG codec (nvJPEG was not found when it was "
              "built): give --codec cpu or auto");
    return 0;
#else
    if (o->variant_given && o->variant && fv_variant_is_host(o->variant)) {
        cli_error("--codec gpu decodes into the GPU, but -v %s filters on the CPU: give --codec "
                  "cpu or a GPU variant",
                  o->variant->name);
        return 0;
    }
    const char *host_side = o->dask                     ? "--dask"
                            : fv_noise_is_on(&o->noise) ? "--noise"
                            : o->save_source            ? "--save-source"
                            : o->tile                   ? "--tile"
                                                        : NULL;
    if (host_side) {
        cli_error("--codec gpu keeps the image on the GPU, but %s needs it on the host: give "
                  "--codec cpu",
                  host_side);
        return 0;
    }
    return 1;
#endif
}

/* Never lose an original: an output that is an input (the same file, through links too) is
 * refused unless --in-place says so; two outputs never name one file. */
static int check_originals(const cli_options *o)
{
    const struct {
        const char *flag, *path;
    } out[] = {{"-o", o->output_is_dir ? NULL : o->output},
               {"--save-source", o->save_source},
               {"--screenshot", o->screenshot},
               {"--chart", o->chart},
               {"--csv", o->csv}};
    const int n_out = (int)(sizeof out / sizeof out[0]);
    const char *in[CLI_MAX_INPUTS + 2];
    int n_in = 0;
    for (int i = 0; i < o->n_inputs; i++) in[n_in++] = o->inputs[i];
    if (o->kernel_file) in[n_in++] = o->kernel_file;
    if (o->bench_image) in[n_in++] = o->bench_image;
    for (int k = 0; k < n_out; k++) {
        if (!out[k].path) continue;
        if (cli_is_stdio(out[k].path)) {
            /* `> a.png` has already truncated it, `>> a.png` would append to it: --in-place
             * cannot help, only another redirection */
            for (int i = 0; i < n_in; i++)
                if (cli_same_file(out[k].path, in[i])) {
                    if (cli_is_stdio(in[i]))
                        cli_error("%s -: standard output and standard input are the same file: "
                                  "redirect the output to another file",
                                  out[k].flag);
                    else
                        cli_error("%s -: standard output is redirected to the input '%s': "
                                  "redirect it to another file",
                                  out[k].flag, cli_shown(in[i]));
                    return 0;
                }
            continue;
        }
        for (int j = k + 1; j < n_out; j++)
            if (out[j].path && !cli_is_stdio(out[j].path) &&
                (!strcmp(out[k].path, out[j].path) || cli_same_file(out[k].path, out[j].path))) {
                cli_error("%s and %s both write '%s': give each its own file", out[k].flag,
                          out[j].flag, cli_shown(out[j].path));
                return 0;
            }
        if (o->in_place) continue;
        for (int i = 0; i < n_in; i++)
            if (cli_same_file(out[k].path, in[i])) {
                if (cli_is_stdio(in[i]))
                    cli_error("%s: '%s' is the file redirected to standard input ('-'): give "
                              "another name, or --in-place to replace it",
                              out[k].flag, cli_shown(out[k].path));
                else if (!strcmp(out[k].path, in[i]))
                    cli_error("%s: '%s' is also the input: give another name, or --in-place "
                              "to replace it",
                              out[k].flag, cli_shown(in[i]));
                else
                    cli_error("%s: '%s' is the input '%s' (the same file): give another name, "
                              "or --in-place to replace it",
                              out[k].flag, cli_shown(out[k].path), cli_shown(in[i]));
                return 0;
            }
    }
    return 1;
}

/* The nearest flag (every spelling) or --PARAMETER to an unknown option. */
static const char *option_suggestion(const char *typo)
{
    static _Thread_local char params[FV_MAX_FILTERS * FV_MAX_PARAMS][CLI_NAME_ROOM];
    const char *names[3 * 64 + FV_MAX_FILTERS * FV_MAX_PARAMS];
    int n = 0;
    for (int r = 0; r < N_FLAGS; r++)
        for (int k = 0; k < 3 && cli_flags[r].names[k]; k++) names[n++] = cli_flags[r].names[k];
    int p = 0;
    for (int i = 0; i < fv_n_filters; i++)
        for (int k = 0; k < fv_filters[i]->n_params; k++, p++) {
            snprintf(params[p], sizeof params[p], "--%s", fv_filters[i]->params[k].name);
            names[n++] = params[p];
        }
    return did_you_mean(typo, names, n, "--help");
}

int cli_parse(int argc, char **argv, cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = CLI_MODE_VIEW;
    o->filter = fv_filters[0]; /* the first of the menu (kernels/filters.def) */
    o->runs = 20;
    o->png_level = -1;
    o->seed = 1;
    for (int f = 0; f < fv_n_filters; f++) o->params[f] = fv_params_default(fv_filters[f]);
    parse_state s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.argc = argc;
    s.argv = argv;
    s.iterations = 1;
    /* --help and --help-keys answer whatever else is given (a bad flag, a bad kernel file) */
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        for (int r = 0; r < N_FLAGS; r++)
            for (int k = 0; k < 3 && (cli_flags[r].flags & FLAG_STOP) && cli_flags[r].names[k]; k++)
                if (!strcmp(argv[i], cli_flags[r].names[k])) {
                    /* the man page is written for packaging, into a file: anything else on
                     * its line is a mistake to say, not to drop */
                    if (cli_flags[r].mode == CLI_MODE_HELP_MAN && argc > 2) {
                        cli_error("--help-man writes the man page and takes nothing else, got '%s'",
                                  cli_shown(argv[i == 1 ? 2 : 1]));
                        return 0;
                    }
                    o->mode = cli_flags[r].mode;
                    return 1;
                }
    int options_done = 0;
    for (s.i = 1; s.i < argc; s.i++) {
        const char *a = argv[s.i];
        s.inline_value = NULL;
        s.inline_taken = 0;
        if (!options_done && !strcmp(a, "--")) { /* the rest are file names, even "-x.png" */
            options_done = 1;
            continue;
        }
        if (options_done || a[0] != '-' || a[1] == 0) {
            if (o->n_inputs == CLI_MAX_INPUTS) {
                cli_error("more than %d input images: give their folder instead", CLI_MAX_INPUTS);
                return 0;
            }
            o->inputs[o->n_inputs++] = a;
            if (!o->input) o->input = a;
            continue;
        }
        const char *eq = a[1] == '-' && a[2] ? strchr(a, '=') : NULL;
        if (eq) { /* --NAME=VALUE: the same as --NAME VALUE */
            s.inline_value = eq + 1;
            if (!(a = split_name(&s, a, eq))) a = argv[s.i];
        }
        const cli_flag *f = a != argv[s.i] || !eq ? find_flag(&s, a) : NULL;
        int r = 0;
        if (f)
            r = read_flag(&s, f, a);
        else if (a[0] == '-' && a[1] == '-' && (a != argv[s.i] || !eq) &&
                 any_filter_has_param(a + 2))
            r = parse_param(&s, a);
        else
            cli_error("unknown option '%s'%s", cli_shown(argv[s.i]), option_suggestion(a));
        if (r == 2) return 1;
        if (r == 1 && s.inline_value && !s.inline_taken) { /* -p=, a flag that took none */
            cli_error("%s takes no value, got '%s'", a, cli_shown(argv[s.i]));
            r = 0;
        }
        if (r == 0) return 0;
    }
    if (s.filter_name && !(o->filter = fv_filter_find(s.filter_name))) {
        cli_error("unknown filter '%s'%s", cli_shown(s.filter_name),
                  filter_suggestion(s.filter_name));
        return 0;
    }
    o->user_file = cli_user_file(s.variant_name);
    if (o->user_file && !*o->user_file)
        return bad("-v", "user=FILE, a CUDA source file", s.variant_name);
    /* a user kernel: the filter's first variant stands in until the mode has compiled it */
    o->variant =
        o->user_file ? NULL : fv_variant_find(o->filter, s.variant_name ? s.variant_name : "fast");
    if (!o->variant && s.variant_name && !o->user_file) {
        cli_error("filter '%s' has no variant '%s'%s", o->filter->name, cli_shown(s.variant_name),
                  variant_suggestion(o->filter, s.variant_name));
        return 0;
    }
    if (!o->variant) o->variant = &o->filter->variants[0];
    /* the filters in play: -f, the panes', the compared ones; every one for a bench without -f */
    const fv_filter *in_play[FV_MAX_FILTERS + 4];
    int n_in_play = 0;
    in_play[n_in_play++] = o->filter;
    for (int k = 0; k < 2; k++) {
        static const char *const pane_flags[2] = {"-a", "-b"};
        if (s.pane_text[k]) {
            if (!parse_pane_spec(pane_flags[k], s.pane_text[k], o->filter, 1, &o->pane[k]))
                return 0;
            o->pane_given[k] = 1;
            in_play[n_in_play++] = o->pane[k].filter;
        }
        if (s.compare_text[k]) {
            if (!parse_pane_spec("--compare", s.compare_text[k], o->filter, 0, &o->compare[k]))
                return 0;
            in_play[n_in_play++] = o->compare[k].filter;
        }
    }
    if (o->mode == CLI_MODE_BENCH && !o->filter_given)
        for (int f = 0; f < fv_n_filters; f++) in_play[n_in_play++] = fv_filters[f];
    if (!apply_settings(o, s.settings, s.n_settings, in_play, n_in_play)) return 0;
    if (!apply_iterations(o, &s, in_play, n_in_play)) return 0;
    if (o->input && o->random_w) {
        cli_error("give an image or --random WxH, not both");
        return 0;
    }
    if (argc == 1) { /* nothing at all: what the program takes, in short */
        cli_print_usage();
        return 0;
    }
    int needs_input = o->mode == CLI_MODE_BATCH || o->mode == CLI_MODE_COMPARE;
    if (needs_input && !o->input) {
        cli_error("no input image given (see --help)");
        return 0;
    }
    if (o->mode == CLI_MODE_VIEW && !o->input && !o->random_w) {
        cli_error("no image given: the viewer shows IMAGE, or --random WxH (see --help)");
        return 0;
    }
    /* -o DIR/ (or an existing folder for several inputs, or for a folder) takes many files */
    const int to_stdout = o->output && cli_is_stdio(o->output);
    if (o->output && o->mode == CLI_MODE_BATCH && *o->output && !to_stdout) {
        struct stat st;
        const size_t n = strlen(o->output);
        const int is_dir = stat(o->output, &st) == 0 && S_ISDIR(st.st_mode);
        const int input_is_dir =
            o->input && !cli_is_stdio(o->input) && stat(o->input, &st) == 0 && S_ISDIR(st.st_mode);
        o->output_is_dir = o->output[n - 1] == '/' || (is_dir && (o->n_inputs > 1 || input_is_dir));
        /* "out.png/" names a folder: the file it names without its slashes rules that out */
        char *bare = o->output_is_dir ? strdup(o->output) : NULL;
        for (size_t k = bare ? strlen(bare) : 0; k > 1 && bare[k - 1] == '/'; k--) bare[k - 1] = 0;
        const int found = bare && stat(bare, &st) == 0,
                  under_file = bare && !found && errno == ENOTDIR;
        free(bare);
        if ((found && !S_ISDIR(st.st_mode)) || under_file) {
            cli_error("-o: '%s' is %s, not a folder", cli_shown(o->output),
                      under_file ? "inside a file" : "a file");
            return 0;
        }
    }
    /* `filterview a.png b.png`, as ImageMagick's convert takes it: b.png is meant as the output */
    struct stat st;
    if (o->n_inputs == 2 && !o->output && is_image_name(o->inputs[1]) &&
        !cli_is_stdio(o->inputs[1]) && stat(o->inputs[1], &st) != 0 && errno == ENOENT) {
        cli_error("'%s' does not exist: to write the result there, give -o '%s'",
                  cli_shown(o->inputs[1]), cli_shown(o->inputs[1]));
        return 0;
    }
    if (!check_stdio(o, to_stdout)) return 0;
    /* `filterview a.png b.tif`: the viewer holds the two files against each other (A and B) */
    if (o->mode == CLI_MODE_VIEW && o->n_inputs == 2 && !o->output) o->input_b = o->inputs[1];
    if (o->n_inputs > 1 && !o->output_is_dir && !o->input_b) {
        cli_error("more than one input image ('%s' and '%s'): several are filtered with -o DIR/",
                  cli_shown(o->inputs[0]), cli_shown(o->inputs[1]));
        return 0;
    }
    if (!check_modes(&s)) return 0;
    if (o->kernel_file && !check_image_file(o, "--kernel-file", in_play, n_in_play)) return 0;
    if (!o->kernel_file && !check_file_choice(o, in_play, n_in_play)) return 0;
    if (o->dask && !o->output_is_dir) {
        cli_error("--dask spreads a folder batch over a cluster: give the outputs' folder, "
                  "-o DIR/");
        return 0;
    }
    if (o->save_source && o->output_is_dir) {
        cli_error("--save-source is for one input image, not a folder of them");
        return 0;
    }
    if (o->save_source && !check_output_arg("--save-source", o->save_source)) return 0;
    if (o->output && !o->output_is_dir && !to_stdout && !check_output_arg("-o", o->output))
        return 0;
    if (o->screenshot && !check_output_arg("--screenshot", o->screenshot)) return 0;
    if (o->chart && !check_output_arg("--chart", o->chart)) return 0;
    if (o->format && !check_format(o, to_stdout)) return 0;
    if (!check_codec_options(o, to_stdout)) return 0;
    if (!check_codec_choice(o)) return 0;
    return check_originals(o);
}

#define LIST_WIDTH 100 /* --list: a wide terminal, the summaries whole */
static void print_wrapped_to(const char *lead, int indent, const char *text, int width);

void cli_print_list(int verbose)
{
    int have_device = verbose && fv_device_check() == FV_OK;
    /* above the filters, so that scripts reading "filter" and "  variant" rows never see it */
    printf("Every filter also runs your own kernel as variant user=FILE (NVRTC; see "
           "docs/your-own-kernel.md)\n\n");
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        char name[64];
        snprintf(name, sizeof name, "%-10s ", f->name);
        print_wrapped_to(name, 11, f->summary, LIST_WIDTH);
        for (int k = 0; k < f->n_params; k++) {
            if (f->params[k].type == FV_PARAM_IMAGE) continue; /* a file: among the options */
            char range[200], flag[40];
            fv_param_range_text(f, k, range, sizeof range);
            char lead[64], text[512];
            snprintf(flag, sizeof flag, "--%s", f->params[k].name);
            snprintf(lead, sizeof lead, "  %-12s ", flag);
            snprintf(text, sizeof text, "%s (%s)", f->params[k].help, range);
            print_wrapped_to(lead, 15, text, LIST_WIDTH);
        }
        if (f->max_iterations > 1)
            printf("  %-12s passes, 1..%d (default 1)\n", "--iters", f->max_iterations);
        for (int v = 0; v < f->n_variants; v++) {
            const fv_variant *var = &f->variants[v];
            char lead[64], text[1024];
            snprintf(lead, sizeof lead, "  %-10s ", var->name);
            snprintf(text, sizeof text, "%s%s", var->summary,
                     strcmp(var->name, fv_filter_baseline(f)->name) == 0 ? " [baseline]" : "");
            print_wrapped_to(lead, 13, text, LIST_WIDTH);
            if (!verbose) continue;
            char res[512];
            fv_params p = fv_params_default(f);
            if (have_device || fv_variant_is_host(var))
                fv_variant_resources_text(f, var, &p, res, sizeof res);
            else
                snprintf(res, sizeof res, "(no CUDA device: kernel resources unknown)");
            print_wrapped_to("", 15, res, LIST_WIDTH);
            if (have_device && !fv_variant_is_host(var)) {
                size_t bytes = fv_runner_device_bytes(f, var, &p, 9984, 6400);
                printf("  %-10s   device memory at 9984x6400 beyond source and result: %.1f MiB\n",
                       "", (double)bytes / (1 << 20));
            }
        }
    }
}

#define HELP_WIDTH 80 /* --help fits a terminal of 80 columns */

/* Columns a UTF-8 text takes (a character each: the registry's texts have no wide ones). */
static int columns(const char *p, size_t n)
{
    int c = 0;
    for (size_t k = 0; k < n; k++) c += ((unsigned char)p[k] & 0xC0) != 0x80;
    return c;
}

/* `lead` (a label, padded to `indent` columns), then `text` wrapped at word boundaries within
 * HELP_WIDTH, continued lines indented by `indent`; a lead wider than that gets a line alone. */
static void print_wrapped_to(const char *lead, int indent, const char *text, int width)
{
    int col = columns(lead, strlen(lead));
    printf("%s", lead);
    if (col > indent) {
        printf("\n");
        col = 0;
    }
    printf("%*s", indent - col, "");
    col = indent;
    int first = 1;
    for (const char *p = text; *p;) {
        while (*p == ' ' || *p == '\n' || *p == '\t') p++; /* the table's texts wrap here alone */
        if (!*p) break;
        size_t n = strcspn(p, " \n\t");
        const int w = columns(p, n);
        if (!first && col + 1 + w > width) {
            printf("\n%*s", indent, "");
            col = indent;
            first = 1;
        }
        printf("%s%.*s", first ? "" : " ", (int)n, p);
        col += w + !first;
        first = 0;
        p += n;
    }
    printf("\n");
}

static void print_wrapped(const char *lead, int indent, const char *text)
{
    print_wrapped_to(lead, indent, text, HELP_WIDTH);
}

/* One row of the table as --help shows it: the label, then its help, wrapped. */
static void print_flag_help(const cli_flag *f)
{
    char help[1024], lead[64];
    snprintf(help, sizeof help, f->help, FV_MAX_ITERATIONS);
    snprintf(lead, sizeof lead, "  %s", f->label);
    print_wrapped(lead, 24, help);
}

static void print_section(help_section section)
{
    for (int r = 0; r < N_FLAGS; r++)
        if (cli_flags[r].section == section) print_flag_help(&cli_flags[r]);
}

void cli_print_version(void)
{
    printf("filterview %s\n", FV_VERSION);
}

static void print_usage(FILE *out)
{
    fputs("usage:\n"
          "  filterview IMAGE [-f FILTER] [-v VARIANT] [params] -o OUT.png\n"
          "        filter to a PNG (or .jpg); IMAGE or OUT '-': standard input or output\n"
          "  filterview IMAGES|FOLDERS... [-f FILTER] [-v VARIANT] [params] -o OUTDIR/\n"
          "        filter many, each to OUTDIR/NAME.png\n"
          "  filterview IMAGE [-f FILTER] --compare A B [params] [-o DIFF.png]\n"
          "        compare two variants: exit 0 identical, 1 different, 2 error\n"
          "  filterview --bench [-f FILTER [-v VARIANT]] [params] [--sizes WxH,...]\n"
          "             [--csv FILE] [--image FILE] [--chart FILE]\n"
          "        time the variants (-v: that variant alone)\n"
          "  filterview IMAGE [-a A] [-b B] [params]\n"
          "        the viewer\n"
          "  filterview A.png B.tif\n"
          "        the viewer: two files held against each other (wipe, difference, PSNR)\n"
          "  filterview IMAGE --headless [--keys SEQ] [--frames N] [--screenshot FILE]\n"
          "  filterview --list [--verbose] | --info | --help | --help-keys | --version\n",
          out);
}

void cli_print_usage(void)
{
    print_usage(stderr);
    fputs("See filterview --help for every option, or man filterview.\n", stderr);
}

void cli_print_help(void)
{
    printf("filterview: GPU image filters, live in a window, in batch, or in a benchmark.\n\n");
    print_usage(stdout);
    printf("\n"
           "Every --NAME VALUE may be written --NAME=VALUE.\n"
           "\n"
           "options:\n");
    print_section(HELP_OPTIONS);
    printf("\nparameters:\n");
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        for (int k = 0; k < f->n_params; k++) {
            if (f->params[k].type == FV_PARAM_IMAGE) continue; /* a file: among the options */
            char lead[64], text[512], range[200];
            snprintf(lead, sizeof lead, "  --%-10s %-9s", f->params[k].name, f->name);
            fv_param_range_text(f, k, range, sizeof range);
            snprintf(text, sizeof text, "%s (%s)", f->params[k].help, range);
            print_wrapped(lead, 25, text);
        }
    }
    printf("\nviewer:\n");
    print_section(HELP_VIEWER);
    printf("\n"
           "Images: PNG (any depth, palette, interlaced), JPEG (EXIF orientation applied,\n"
           "CMYK), PNM (P2, P3, P5, P6, 8- and 16-bit) and uncompressed BMP (Windows and\n"
           "OS/2).\n"
           "Exit status: 0 on success, 1 on a runtime error, 2 on a bad command line;\n"
           "--compare: 0 identical, 1 different, 2 any error.\n");
}

/* ---- the table row by row, for cli_docs.c (the man page and the shell completion) ---- */

int cli_flag_doc_get(int row, cli_flag_doc *out)
{
    static char choices[256];
    if (row < 0 || row >= N_FLAGS) return 0;
    const cli_flag *f = &cli_flags[row];
    memset(out, 0, sizeof *out);
    for (int k = 0; k < 3; k++) out->names[k] = f->names[k];
    out->label = f->label;
    out->help = f->help;
    out->section = f->section == HELP_OPTIONS ? 1 : f->section == HELP_VIEWER ? 2 : 0;
    out->n_values = f->arg == ARG_NONE || f->arg == ARG_SWITCH ? 0
                    : f->parse == parse_compare                ? 2
                                                               : 1;
    out->value = out->n_values ? CLI_VALUE_WORD : CLI_VALUE_NONE;
    if (f->parse == parse_filter) out->value = CLI_VALUE_FILTER;
    if (f->parse == parse_variant) out->value = CLI_VALUE_VARIANT;
    if (f->parse == parse_param) out->value = CLI_VALUE_PARAM;
    if (f->parse == parse_pane) out->value = CLI_VALUE_PANE;
    if (f->parse == parse_compare) out->value = CLI_VALUE_SPEC;
    if (f->words) {
        size_t len = 0;
        choices[0] = 0;
        for (const cli_word *w = f->words; w->name; w++)
            len += (size_t)snprintf(choices + len, sizeof choices - len, "%s%s",
                                    w == f->words ? "" : " ", w->name);
        out->value = CLI_VALUE_CHOICE;
        out->choices = choices;
    }
    if (f->arg == ARG_TEXT) { /* a file unless its label says otherwise (--keys SEQ) */
        const char *word = f->label ? strrchr(f->label, ' ') : NULL;
        if (f->field == FIELD(kernel_file) || f->field == FIELD(bench_image))
            out->value = CLI_VALUE_IMAGE;
        else if (word && !strcmp(word, " FILE")) {
            out->value = CLI_VALUE_FILE;
            out->endings = f->field == FIELD(csv)                                      ? ".csv"
                           : f->field == FIELD(chart) || f->field == FIELD(screenshot) ? ".png"
                           : f->field == FIELD(output) || f->field == FIELD(save_source)
                               ? ".png .jpg .jpeg"
                               : NULL;
        }
    }
    return 1;
}
