/* ------------------------------------------------------------------------------------------------
 * kernels/core/params.c: everything that is derived from a filter's parameter table: defaults, strict
 * parsing (plain decimal numbers, choices by name; the one parser of "name=value" text), range checks with one-line messages that name
 * the allowed range, stepping (keys), and the text of parameters for messages, the HUD and file
 * names. Nothing here knows any particular filter; no GPU needed.
 *
 * An image parameter (FV_PARAM_IMAGE) is a file the program loads: the library has no files, so
 * it cannot parse one from text (fv_param_parse says so), never steps it, and leaves it out of
 * the parameters' text (describe, file tag: a file name is the program's to show). Its value is
 * 1 when an image is given in fv_params.image[], 0 for the filter's built-in default.
 * ------------------------------------------------------------------------------------------------ */
#include "filter.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fv_params fv_params_default(const fv_filter *f)
{
    fv_params p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < f->n_params && i < FV_MAX_PARAMS; i++) p.value[i] = f->params[i].def;
    p.iterations = 1;
    return p;
}

int fv_params_same(const fv_params *x, const fv_params *y)
{
    return !memcmp(x->value, y->value, sizeof x->value) &&
           !memcmp(x->image, y->image, sizeof x->image) && x->iterations == y->iterations;
}

long long fv_filter_reach(const fv_filter *f, const fv_params *p)
{
    fv_config config;
    if (fv_config_make(f, p, &config) != FV_OK) return -1;
    const int one = f->reach ? f->reach(&config) : 0;
    return one < 0 ? -1 : (long long)one * p->iterations;
}

fv_border fv_params_border(const fv_filter *f, const fv_params *p)
{
    const int i = fv_param_index(f, "border");
    return i < 0 ? FV_BORDER_REPLICATE : (fv_border)(int)p->value[i];
}

double fv_params_cval(const fv_filter *f, const fv_params *p)
{
    const int i = fv_param_index(f, "cval");
    return i < 0 ? 0.0 : p->value[i];
}

int fv_param_image_index(const fv_filter *f)
{
    for (int i = 0; i < f->n_params; i++)
        if (f->params[i].type == FV_PARAM_IMAGE) return i;
    return -1;
}

int fv_param_index(const fv_filter *f, const char *name)
{
    for (int i = 0; i < f->n_params; i++)
        if (strcmp(f->params[i].name, name) == 0) return i;
    return -1;
}

static double param_max(const fv_param_desc *d)
{
    switch (d->type) {
    case FV_PARAM_CHOICE: return d->n_choices - 1;
    case FV_PARAM_IMAGE: return 1;
    case FV_PARAM_INT:
    case FV_PARAM_REAL: break;
    }
    return d->max;
}

static double param_min(const fv_param_desc *d)
{
    switch (d->type) {
    case FV_PARAM_CHOICE:
    case FV_PARAM_IMAGE: return 0;
    case FV_PARAM_INT:
    case FV_PARAM_REAL: break;
    }
    return d->min;
}

/* "an odd integer 3..25", "a number 0.1..10.66", "one of l1, l2"; and ", or 0 for ..." */
static void expectation(const fv_param_desc *d, char *buf, size_t size)
{
    size_t n = 0;
    if (d->type == FV_PARAM_IMAGE) {
        snprintf(buf, size, "an image file");
        return;
    }
    if (d->type == FV_PARAM_CHOICE) {
        n = (size_t)snprintf(buf, size, "one of ");
        for (int i = 0; i < d->n_choices && n < size; i++)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", d->choices[i]);
        return;
    }
    n = (size_t)snprintf(buf, size, "%s %g..%g",
                         d->type == FV_PARAM_REAL ? "a number"
                         : d->odd_only            ? "an odd integer"
                                                  : "an integer",
                         d->min, d->max);
    if (d->auto_means && n < size) snprintf(buf + n, size - n, ", or 0 for %s", d->auto_means);
}

fv_status fv_param_check(const fv_filter *f, int index, double value, const char *flag)
{
    const fv_param_desc *d = &f->params[index];
    int ok = isfinite(value) && value >= param_min(d) && value <= param_max(d);
    if (d->type != FV_PARAM_REAL) ok = ok && value == floor(value);
    if (d->odd_only) ok = ok && fmod(value, 2.0) != 0.0;
    if (d->auto_means && value == 0.0) ok = 1;
    if (ok) return FV_OK;
    char want[160], got[32];
    expectation(d, want, sizeof want);
    fv_param_format(f, index, value, got, sizeof got);
    return fv_fail(FV_ERR_ARG, "%s: expected %s, got '%s'", flag ? flag : d->name, want, got);
}

/* Plain decimal only: digits, one optional sign, one optional point, an optional exponent
 * for reals; no hex, no inf/nan, no spaces. */
static int plain_decimal(const char *s, int allow_fraction)
{
    const char *c = s;
    if (*c == '-' || *c == '+') c++;
    int digits = 0, point = 0;
    for (; *c; c++) {
        if (*c >= '0' && *c <= '9')
            digits++;
        else if (*c == '.' && allow_fraction && !point)
            point = 1;
        else if ((*c == 'e' || *c == 'E') && allow_fraction && digits) {
            c++;
            if (*c == '-' || *c == '+') c++;
            if (!*c) return 0;
            for (; *c; c++)
                if (*c < '0' || *c > '9') return 0;
            return 1;
        } else {
            return 0;
        }
    }
    return digits > 0;
}

fv_status fv_param_parse(const fv_filter *f, int index, const char *text, const char *flag,
                         double *out)
{
    const fv_param_desc *d = &f->params[index];
    char want[160];
    expectation(d, want, sizeof want);
    const char *name = flag ? flag : d->name;
    if (d->type == FV_PARAM_IMAGE)
        return fv_fail(FV_ERR_ARG, "%s: an image file, loaded by the program", name);
    if (!text || !*text)
        return fv_fail(FV_ERR_ARG, "%s: expected %s, got '%s'", name, want,
                       text ? text : "nothing");
    if (d->type == FV_PARAM_CHOICE) {
        for (int i = 0; i < d->n_choices; i++)
            if (strcmp(d->choices[i], text) == 0) {
                *out = i;
                return FV_OK;
            }
        return fv_fail(FV_ERR_ARG, "%s: expected %s, got '%s'", name, want, text);
    }
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (!plain_decimal(text, d->type == FV_PARAM_REAL) || errno || *end)
        return fv_fail(FV_ERR_ARG, "%s: expected %s, got '%s'", name, want, text);
    if (fv_param_check(f, index, v, flag) != FV_OK)
        return fv_fail(FV_ERR_ARG, "%s: expected %s, got '%s'", name, want, text);
    *out = v;
    return FV_OK;
}

int fv_param_split(const char *text, char *name, size_t name_size, const char **value)
{
    const char *eq = text ? strchr(text, '=') : NULL;
    if (!eq || eq == text || (size_t)(eq - text) >= name_size) return 0;
    snprintf(name, name_size, "%.*s", (int)(eq - text), text);
    *value = eq + 1;
    return 1;
}

#define PARAMS_TEXT_MAX 512

fv_status fv_params_from_text(const fv_filter *f, const char *text, fv_params *p)
{
    *p = fv_params_default(f);
    if (!text) return FV_OK;
    if (strlen(text) >= PARAMS_TEXT_MAX)
        return fv_fail(FV_ERR_ARG, "parameters: more than %d characters", PARAMS_TEXT_MAX - 1);
    char copy[PARAMS_TEXT_MAX];
    snprintf(copy, sizeof copy, "%s", text);
    const char *given[FV_MAX_PARAMS] = {0};
    const char *iterations = NULL;
    for (char *save = NULL, *item = strtok_r(copy, " ,\t\n", &save); item;
         item = strtok_r(NULL, " ,\t\n", &save)) {
        char name[64];
        const char *value;
        if (!fv_param_split(item, name, sizeof name, &value))
            return fv_fail(FV_ERR_ARG, "parameters: expected name=value, got '%s'", item);
        if (strcmp(name, "iterations") == 0) {
            if (iterations) return fv_fail(FV_ERR_ARG, "parameters: 'iterations' given twice");
            iterations = value;
            continue;
        }
        const int i = fv_param_index(f, name);
        if (i < 0) {
            char names[256] = "";
            size_t len = 0;
            for (int k = 0; k <= f->n_params && len + 1 < sizeof names; k++)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                        k < f->n_params ? f->params[k].name : "iterations");
            return fv_fail(FV_ERR_ARG, "%s has no parameter '%s' (it has: %s)", f->name, name,
                           names);
        }
        if (given[i]) return fv_fail(FV_ERR_ARG, "parameters: '%s' given twice", name);
        given[i] = value;
    }
    double value[FV_MAX_PARAMS];
    for (int i = 0; i < f->n_params; i++)
        if (given[i]) FV_TRY(fv_param_parse(f, i, given[i], f->params[i].name, &value[i]));
    /* set (which resets the parameters that follow one), then the values given again: a value
     * given stands, whatever the table's order */
    for (int i = 0; i < f->n_params; i++)
        if (given[i]) fv_param_set(f, p, i, value[i]);
    for (int i = 0; i < f->n_params; i++)
        if (given[i]) p->value[i] = value[i];
    if (iterations) {
        char *end = NULL;
        const long n = strtol(iterations, &end, 10);
        if (!*iterations || !end || *end || n < 1 || n > f->max_iterations)
            return fv_fail(FV_ERR_ARG, "iterations: expected an integer 1..%d, got '%s'",
                           f->max_iterations, iterations);
        p->iterations = (int)n;
    }
    return FV_OK;
}

/* configurations fv_config_make has made, process-wide (batch workers prepare in threads) */
static atomic_ullong config_makes;

unsigned long long fv_config_makes(void)
{
    return atomic_load(&config_makes);
}

fv_status fv_config_make(const fv_filter *f, const fv_params *p, fv_config *out)
{
    for (int i = 0; i < f->n_params; i++) {
        FV_TRY(fv_param_check(f, i, p->value[i], NULL));
        if (f->params[i].type == FV_PARAM_IMAGE && (p->value[i] != 0) != (p->image[i] != NULL))
            return fv_fail(FV_ERR_ARG, "%s: %s", f->params[i].name,
                           p->image[i] ? "an image is given but its value says built-in"
                                       : "expected an image file, none is given");
    }
    if (p->iterations < 1 || p->iterations > f->max_iterations)
        return fv_fail(FV_ERR_ARG, "iterations: expected an integer 1..%d, got '%d'",
                       f->max_iterations, p->iterations);
    atomic_fetch_add_explicit(&config_makes, 1, memory_order_relaxed);
    memset(out, 0, sizeof *out);
    char why[200] = "";
    if (!f->config_make(p, out, why, sizeof why))
        return fv_fail(FV_ERR_ARG, "%s: %s", f->name,
                       why[0] ? why : "these parameters do not go together");
    return FV_OK;
}

fv_status fv_params_check(const fv_filter *f, const fv_params *p)
{
    fv_config scratch;
    return fv_config_make(f, p, &scratch);
}

void fv_param_set(const fv_filter *f, fv_params *p, int index, double value)
{
    p->value[index] = value;
    for (int i = 0; i < f->n_params; i++)
        if (f->params[i].follows && strcmp(f->params[i].follows, f->params[index].name) == 0)
            p->value[i] = 0.0;
}

int fv_param_step(const fv_filter *f, fv_params *p, int index, int steps)
{
    const fv_param_desc *d = &f->params[index];
    if (d->type == FV_PARAM_IMAGE) return 0; /* a file: nothing to step to */
    double step = d->type == FV_PARAM_CHOICE ? 1.0 : d->step;
    if (d->odd_only && step < 2) step = 2;
    double old = p->value[index];
    /* an auto value (0) steps from the value it stands for */
    double from = (d->auto_means && old == 0.0) ? fv_params_resolved(f, p).value[index] : old;
    double v = from + steps * step;
    if (d->type == FV_PARAM_REAL) v = round(v / step) * step; /* no drift: 0.1 + 0.2 ... */
    if (d->type == FV_PARAM_CHOICE) {
        int n = d->n_choices;
        v = fmod(fmod(v, n) + n, n); /* choices wrap around */
    }
    if (v < param_min(d)) v = param_min(d);
    if (v > param_max(d)) v = param_max(d);
    if (d->odd_only && fmod(v, 2.0) == 0.0) v += v + 1 <= param_max(d) ? 1 : -1;
    if (v == old) return 0;
    fv_param_set(f, p, index, v);
    return 1;
}

void fv_param_format(const fv_filter *f, int index, double value, char *buf, size_t size)
{
    const fv_param_desc *d = &f->params[index];
    if (d->type == FV_PARAM_IMAGE && (value == 0 || value == 1))
        snprintf(buf, size, "%s", value ? "file" : "built-in");
    else if (d->type == FV_PARAM_CHOICE && value >= 0 && value < d->n_choices &&
             value == floor(value))
        snprintf(buf, size, "%s", d->choices[(int)value]);
    else if (d->auto_means && value == 0.0)
        snprintf(buf, size, "auto");
    else
        snprintf(buf, size, "%.6g", value);
}

fv_params fv_params_resolved(const fv_filter *f, const fv_params *p)
{
    fv_params r = *p;
    if (f->resolve) f->resolve(&r);
    return r;
}

/* "NAME<between>VALUE" for each parameter (derived values filled in), joined by `separator`;
 * `none` for a filter without parameters */
int fv_param_in_play(const fv_filter *f, const fv_params *p, int index)
{
    const char *when = f->params[index].in_play_when;
    if (!when) return 1;
    char name[64];
    const char *alternatives;
    if (!fv_param_split(when, name, sizeof name, &alternatives)) return 1;
    const int k = fv_param_index(f, name);
    if (k < 0 || f->params[k].type != FV_PARAM_CHOICE) return 1;
    const int c = (int)p->value[k];
    if (c < 0 || c >= f->params[k].n_choices) return 1;
    const char *chosen = f->params[k].choices[c];
    const size_t n = strlen(chosen);
    for (const char *alt = alternatives; *alt;) { /* "disk|box" */
        const size_t len = strcspn(alt, "|");
        if (len == n && !strncmp(alt, chosen, n)) return 1;
        alt += len + (alt[len] == '|');
    }
    return 0;
}

static void params_join(const fv_filter *f, const fv_params *p, const char *between,
                        const char *separator, const char *none, char *buf, size_t size)
{
    fv_params r = fv_params_resolved(f, p);
    size_t n = 0;
    buf[0] = 0;
    int shown = 0;
    for (int i = 0; i < f->n_params && n < size; i++) {
        if (f->params[i].type == FV_PARAM_IMAGE) continue; /* a file's name is the program's */
        if (!fv_param_in_play(f, p, i)) continue;          /* "length" of a Gaussian kernel */
        if (f->params[i].quiet_default && r.value[i] == f->params[i].def) continue;
        char v[32];
        fv_param_format(f, i, r.value[i], v, sizeof v);
        n += (size_t)snprintf(buf + n, size - n, "%s%s%s%s", shown++ ? separator : "",
                              f->params[i].name, between, v);
    }
    if (!shown) snprintf(buf, size, "%s", none);
}

void fv_params_describe(const fv_filter *f, const fv_params *p, char *buf, size_t size)
{
    params_join(f, p, " ", ", ", "no parameters", buf, size);
}

void fv_params_file_tag(const fv_filter *f, const fv_params *p, char *buf, size_t size)
{
    params_join(f, p, "", "-", "noparams", buf, size);
}

void fv_param_range_text(const fv_filter *f, int index, char *buf, size_t size)
{
    const fv_param_desc *d = &f->params[index];
    char def[32], want[160];
    fv_param_format(f, index, d->def, def, sizeof def);
    expectation(d, want, sizeof want);
    snprintf(buf, size, "%s; default %s", want, def);
}

double fv_traffic_read_write(const fv_params *p, int width, int height)
{
    /* 4 channels read and 4 written, of the configuration's type */
    return 8.0 * (double)fv_pixel_type_bytes(p->type) * (double)width * (double)height;
}
