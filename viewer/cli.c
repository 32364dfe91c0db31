/* ------------------------------------------------------------------------------------------------
 * viewer/cli.c: command-line parsing (strict numbers, known names), --help and --list. The
 * filter and variant names, and their summaries, come from the registry.
 * ------------------------------------------------------------------------------------------------ */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(const char *flag, const char *what, const char *got)
{
    fprintf(stderr, "filterview: %s: expected %s, got '%s'\n", flag, what, got ? got : "nothing");
    return 0;
}

static int parse_int(const char *flag, const char *s, long lo, long hi, int *out)
{
    char want[96];
    snprintf(want, sizeof want, "an integer %ld..%ld", lo, hi);
    if (!s || !*s) return bad(flag, want, s);
    errno = 0;
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return bad(flag, want, s);
    *out = (int)v;
    return 1;
}

static int parse_float(const char *flag, const char *s, double lo, double hi, float *out)
{
    char want[96];
    snprintf(want, sizeof want, "a number > %g and <= %g", lo, hi);
    if (!s || !*s) return bad(flag, want, s);
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v <= lo || v > hi) return bad(flag, want, s);
    *out = (float)v;
    return 1;
}

/* "WxH" into w, h */
static int parse_one_size(const char *flag, const char *s, int *w, int *h)
{
    const char *want = "a size WxH, each side 1..32768";
    char *end = NULL;
    if (!s) return bad(flag, want, s);
    errno = 0;
    long a = strtol(s, &end, 10);
    if (errno || end == s || (*end != 'x' && *end != 'X')) return bad(flag, want, s);
    const char *second = end + 1;
    long b = strtol(second, &end, 10);
    if (errno || end == second || *end || a < 1 || b < 1 || a > FV_MAX_DIMENSION || b > FV_MAX_DIMENSION)
        return bad(flag, want, s);
    *w = (int)a;
    *h = (int)b;
    return 1;
}

/* "512x512,1920x1080" */
static int parse_sizes(const char *s, cli_options *o)
{
    const char *want = "sizes as WxH[,WxH...], each side 1..32768";
    if (!s || !*s) return bad("--sizes", want, s);
    o->n_sizes = 0;
    const char *p = s;
    while (*p) {
        char *end = NULL;
        errno = 0;
        long w = strtol(p, &end, 10);
        if (errno || end == p || (*end != 'x' && *end != 'X')) return bad("--sizes", want, s);
        p = end + 1;
        long h = strtol(p, &end, 10);
        if (errno || end == p || (*end != ',' && *end != 0)) return bad("--sizes", want, s);
        if (w < 1 || h < 1 || w > FV_MAX_DIMENSION || h > FV_MAX_DIMENSION)
            return bad("--sizes", want, s);
        if (o->n_sizes == CLI_MAX_SIZES) return bad("--sizes", "at most 32 sizes", s);
        o->sizes[o->n_sizes][0] = (int)w;
        o->sizes[o->n_sizes][1] = (int)h;
        o->n_sizes++;
        p = *end ? end + 1 : end;
    }
    return 1;
}

static const char *arg_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

int cli_parse(int argc, char **argv, cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->mode = CLI_MODE_VIEW;
    o->filter = "gaussian";
    o->variant = "fast";
    o->params = fv_params_default();
    o->runs = 20;
    o->seed = 1;
    int mode_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define VALUE() arg_value(argc, argv, &i)
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
            const char *name = VALUE();
            if (!name) return bad(a, "a variant name or 'original'", NULL);
            if (a[1] == 'a') o->pane_a = name;
            else o->pane_b = name;
        } else if (!strcmp(a, "--help-keys")) {
            o->mode = CLI_MODE_HELP_KEYS;
            return 1;
        } else if (!strcmp(a, "--interop")) {
            const char *how = VALUE();
            if (!how || (strcmp(how, "buffer") && strcmp(how, "texture") && strcmp(how, "pbo") &&
                         strcmp(how, "staging")))
                return bad(a, "'buffer', 'texture', 'pbo' or 'staging'", how);
            o->interop = !strcmp(how, "buffer") ? FV_INTEROP_BUFFER
                       : !strcmp(how, "texture") ? FV_INTEROP_TEXTURE
                       : !strcmp(how, "pbo") ? FV_INTEROP_PBO : FV_INTEROP_STAGING;
        } else if (!strcmp(a, "--headless")) {
            o->headless = 1;
        } else if (!strcmp(a, "--keys")) {
            if (!(o->keys = VALUE())) return bad(a, "a key sequence such as \"1bc<PgUp>\"", NULL);
        } else if (!strcmp(a, "--frames")) {
            if (!parse_int(a, VALUE(), 1, 1000000, &o->frames)) return 0;
        } else if (!strcmp(a, "--screenshot")) {
            if (!(o->screenshot = VALUE())) return bad(a, "a .png path", NULL);
        } else if (!strcmp(a, "--bench-frames")) {
            if (!parse_int(a, VALUE(), 1, 100000, &o->bench_frames)) return 0;
        } else if (!strcmp(a, "--size")) {
            if (!parse_one_size(a, VALUE(), &o->window_w, &o->window_h)) return 0;
        } else if (!strcmp(a, "--random")) {
            if (!parse_one_size(a, VALUE(), &o->random_w, &o->random_h)) return 0;
        } else if (!strcmp(a, "--list")) {
            SET_MODE(CLI_MODE_LIST);
        } else if (!strcmp(a, "--info")) {
            SET_MODE(CLI_MODE_INFO);
        } else if (!strcmp(a, "--bench")) {
            SET_MODE(CLI_MODE_BENCH);
        } else if (!strcmp(a, "-f") || !strcmp(a, "--filter")) {
            if (!(o->filter = VALUE())) return bad(a, "a filter name (see --list)", NULL);
            o->bench_filter_given = 1;
        } else if (!strcmp(a, "-v") || !strcmp(a, "--variant")) {
            if (!(o->variant = VALUE())) return bad(a, "a variant name (see --list)", NULL);
            o->variant_given = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (!(o->output = VALUE())) return bad(a, "an output .png path", NULL);
            SET_MODE(CLI_MODE_BATCH);
        } else if (!strcmp(a, "--compare")) {
            o->compare_a = VALUE();
            o->compare_b = VALUE();
            if (!o->compare_a || !o->compare_b) return bad(a, "two variant names", NULL);
            SET_MODE(CLI_MODE_COMPARE);
        } else if (!strcmp(a, "--iters") || !strcmp(a, "--iterations")) {
            if (!parse_int(a, VALUE(), 1, FV_MAX_ITERATIONS, &o->params.iterations)) return 0;
        } else if (!strcmp(a, "--sigma")) {
            if (!parse_float(a, VALUE(), 0.0, 1000.0, &o->params.sigma)) return 0;
            o->sigma_given = 1;
        } else if (!strcmp(a, "--radius")) {
            if (!parse_int(a, VALUE(), 1, 32, &o->params.radius)) return 0;
            o->radius_given = 1;
        } else if (!strcmp(a, "--sizes")) {
            if (!parse_sizes(VALUE(), o)) return 0;
        } else if (!strcmp(a, "--csv")) {
            if (!(o->csv = VALUE())) return bad(a, "a CSV output path", NULL);
        } else if (!strcmp(a, "--runs")) {
            if (!parse_int(a, VALUE(), 1, 10000, &o->runs)) return 0;
        } else if (!strcmp(a, "--seed")) {
            int seed = 0;
            if (!parse_int(a, VALUE(), 0, 2147483647, &seed)) return 0;
            o->seed = (unsigned)seed;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "filterview: unknown option '%s' (see --help)\n", a);
            return 0;
        } else if (!o->input) {
            o->input = a;
        } else {
            fprintf(stderr, "filterview: more than one input image ('%s' and '%s')\n", o->input, a);
            return 0;
        }
#undef VALUE
#undef SET_MODE
    }
    /* --sigma alone derives the radius (ceil(3 sigma)); the default keeps seed 000's 5x5. */
    if (o->sigma_given && !o->radius_given) o->params.radius = 0;
    const fv_filter *f = fv_filter_find(o->filter);
    if (!f) {
        fprintf(stderr, "filterview: unknown filter '%s' (see --list)\n", o->filter);
        return 0;
    }
    const char *names[2] = {o->variant, NULL};
    if (o->mode == CLI_MODE_COMPARE) {
        names[0] = o->compare_a;
        names[1] = o->compare_b;
    }
    for (int k = 0; k < 2; k++) {
        const char *pane = k == 0 ? o->pane_a : o->pane_b;
        if (pane && strcmp(pane, "original") != 0 && !fv_variant_find(f, pane)) {
            fprintf(stderr, "filterview: -%c: filter '%s' has no variant '%s' (see --list)\n",
                    'a' + k, f->name, pane);
            return 0;
        }
    }
    for (int k = 0; k < 2 && names[k]; k++)
        if (!fv_variant_find(f, names[k])) {
            fprintf(stderr, "filterview: filter '%s' has no variant '%s' (see --list)\n", f->name,
                    names[k]);
            return 0;
        }
    if (o->input && o->random_w) {
        fprintf(stderr, "filterview: give an image or --random WxH, not both\n");
        return 0;
    }
    int needs_input = o->mode == CLI_MODE_BATCH || o->mode == CLI_MODE_COMPARE;
    if (needs_input && !o->input) {
        fprintf(stderr, "filterview: no input image given (see --help)\n");
        return 0;
    }
    return 1;
}

void cli_print_list(void)
{
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        printf("%-10s %s\n", f->name, f->summary);
        for (int v = 0; v < f->n_variants; v++)
            printf("  %-10s %s\n", f->variants[v].name, f->variants[v].summary);
    }
}

void cli_print_help(void)
{
    printf(
        "filterview: GPU image filters, live in a window, in batch, or in a benchmark.\n"
        "\n"
        "usage:\n"
        "  filterview IMAGE [-f FILTER] [-v VARIANT] [params] -o OUT.png   filter to a PNG\n"
        "  filterview IMAGE [-f FILTER] --compare A B [params]             compare two variants\n"
        "  filterview --bench [-f FILTER] [--sizes WxH,...] [--csv FILE] [--runs N] [--seed N]\n"
        "  filterview IMAGE [-f FILTER] [-v VARIANT] [params]               the viewer\n"
        "  filterview IMAGE --headless [--keys SEQ] [--frames N] [--screenshot FILE]\n"
        "  filterview --list | --info | --help | --help-keys\n"
        "\n"
        "options:\n"
        "  -f, --filter NAME     filter (default gaussian); --list shows all\n"
        "  -v, --variant NAME    kernel variant (default fast); `cpu` runs the reference\n"
        "  --iters N             apply the filter N times, 1..%d (default 1)\n"
        "  --sigma S             gaussian sigma; the radius becomes ceil(3 S) (default 1, 5x5)\n"
        "  --radius R            gaussian radius 1..32 (default 2)\n"
        "  -o, --output FILE     write the result as PNG (written to a temporary name, then\n"
        "                        renamed: never half a file)\n"
        "  --compare A B         run variants A and B, print max |A-B| and differing pixels\n"
        "  --bench               time every variant on random images (CUDA events, median)\n"
        "  --sizes WxH,...       benchmark sizes (default: seed 000's chart, 512x512..9984x6400)\n"
        "  --csv FILE            also write the benchmark table as CSV\n"
        "  --runs N              timed runs per cell (default 20); --seed N random seed\n"
        "  --list                filters and variants with their one-line summaries\n"
        "  --info                the CUDA device and its memory\n"
        "\n"
        "viewer:\n"
        "  (no -o)               open the viewer: a window where there is a display, else\n"
        "                        headless (EGL), writing a screenshot\n"
        "  -a NAME, -b NAME      what panes A and B show: a variant, or 'original'\n"
        "                        (default: A = naive, B = smem; -v also sets A)\n"
        "  --interop HOW         how CUDA output reaches GL: 'buffer' (default) kernels write\n"
        "                        registered GL buffers that the shader samples directly;\n"
        "                        'texture' a device copy into registered textures; 'pbo'\n"
        "                        kernels write pixel buffers that GL copies (seed 004's way);\n"
        "                        'staging' no interop, through the host (the fallback)\n"
        "  --headless            draw offscreen through EGL on the GPU (no X server)\n"
        "  --keys SEQ            replay keys, one per frame: characters, and <F1> <Tab> <Esc>\n"
        "                        <PgUp> <PgDn> <Left> <Right> <Up> <Down> <Space> <lt>;\n"
        "                        <WxH> resizes the window (<0x0>: minimised)\n"
        "  --frames N            frames to draw, then exit (window or headless)\n"
        "  --screenshot FILE     write the last frame as PNG, then exit\n"
        "  --bench-frames N      time N frames: kernel time vs the rest (map/unmap, texture, draw),\n"
        "                        where the rest goes, and the CUDA <-> GL hand-over floor\n"
        "  --size WxH            window or offscreen size\n"
        "  --random WxH          a random image of that size instead of a file\n"
        "  --help-keys           the viewer's keys as a markdown table\n"
        "\n"
        "Images: anything stb_image reads (PNG, JPEG, BMP, TGA, GIF, PSD, HDR, PIC, PNM).\n"
        "Exit status: 0 on success, 1 on a runtime error, 2 on a bad command line.\n",
        FV_MAX_ITERATIONS);
}
