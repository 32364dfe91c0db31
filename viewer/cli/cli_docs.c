/* ------------------------------------------------------------------------------------------------
 * viewer/cli/cli_docs.c: the man page (--help-man) and the bash completion (--completion bash).
 * Both are written from the tables --help and the parser use (cli.c's flag table through
 * cli_flag_doc_get, the filter registry, the viewer's key table) so that they cannot drift from the
 * program: the build runs the program to make the installed files. Only the prose around the
 * tables (synopsis, description, modes, examples) is written here.
 * ------------------------------------------------------------------------------------------------ */
#include "cli.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#ifndef FV_VERSION
#define FV_VERSION "" /* the build passes the project's version */
#endif

/* What the program reads, as the folder batch picks files by name (modes/batch_many.c) */
static const char *const read_endings[] = {".png", ".jpg", ".jpeg", ".ppm", ".pgm", ".pnm", ".bmp"};

/* The defaults the parser itself starts from: the filter and variant when none is given. */
static void parser_defaults(const fv_filter **filter, const fv_variant **variant)
{
    static cli_options o; /* large: not on the stack */
    char name[] = "filterview";
    char *argv[] = {name, NULL};
    *filter = fv_filters[0];
    *variant = NULL;
    if (cli_parse(1, argv, &o)) {
        *filter = o.filter;
        *variant = o.variant;
    }
}

/* ---- roff ---- */

/* Text for a roff text line: backslashes as \e, every hyphen as \- (option names must copy as
 * ASCII), quotes as \(aq and \(dq, `code` in bold, UTF-8 as \[uXXXX] (groff reads Latin-1
 * unless told). '\n' becomes a space: roff fills. */
static void roff(FILE *out, const char *s)
{
    int bold = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\n') {
            fputc(' ', out);
            continue;
        }
        if (*p == '\\')
            fputs("\\e", out);
        else if (*p == '-')
            fputs("\\-", out);
        else if (*p == '\'')
            fputs("\\(aq", out);
        else if (*p == '`')
            fputs((bold = !bold) ? "\\fB" : "\\fR", out);
        else if (*p == '"')
            fputs("\\(dq", out);
        else if (*p >= 0x80) {
            unsigned c = 0;
            int n = *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : *p >= 0xc0 ? 1 : 0;
            c = *p & (0x3f >> n);
            for (; n > 0 && (p[1] & 0xc0) == 0x80; n--) c = (c << 6) | (*++p & 0x3f);
            fprintf(out, "\\[u%04X]", c);
        } else
            fputc(*p, out);
    }
    if (bold) fputs("\\fR", out);
}

/* Starts a text line: one that begins with a dot or a quote would be a request */
static void roff_line(FILE *out, const char *s)
{
    if (*s == '.' || *s == '\'') fputs("\\&", out);
    roff(out, s);
    fputc('\n', out);
}

/* A synopsis or a label ("-f, --filter NAME", "--NAME VALUE"): options bold, what the user
 * supplies (a word with a capital) italic, brackets and punctuation plain. */
static void roff_words(FILE *out, const char *s)
{
    char word[128];
    for (int first = 1; *s; first = 0) {
        while (*s == ' ') s++;
        size_t n = strcspn(s, " ");
        snprintf(word, sizeof word, "%.*s", (int)n, s);
        s += n;
        if (!*word) break;
        if (!first) fputc(' ', out);
        char *core = word;
        while (*core == '[' || *core == '(' || *core == '|') fprintf(out, "%c", *core++);
        char *end = core + strlen(core);
        while (end > core && strchr("],)|", end[-1])) end--;
        if (end - core >= 3 && !strcmp(end - 3, "...")) end -= 3;
        char tail[32];
        snprintf(tail, sizeof tail, "%s", end);
        *end = 0;
        int upper = 0;
        for (const char *c = core; *c; c++) upper |= isupper((unsigned char)*c);
        const size_t dashes = strspn(core, "-");
        int placeholder = dashes > 0 && core[dashes] != 0; /* --NAME: bold dashes, italic NAME */
        for (const char *c = core + dashes; *c; c++) placeholder &= isupper((unsigned char)*c) != 0;
        if (placeholder) {
            fputs("\\fB", out);
            for (size_t k = 0; k < dashes; k++) fputs("\\-", out);
            fputs("\\fR\\fI", out);
            roff(out, core + dashes);
            fputs("\\fR", out);
        } else if (dashes) {
            fputs("\\fB", out);
            roff(out, core);
            fputs("\\fR", out);
        } else if (!strcmp(core, "filterview")) {
            fputs("\\fBfilterview\\fR", out);
        } else if (upper) {
            fputs("\\fI", out);
            roff(out, core);
            fputs("\\fR", out);
        } else {
            roff(out, core);
        }
        roff(out, tail);
    }
}

/* A flag's help as --help prints it (a printf format given FV_MAX_ITERATIONS) */
static void roff_help(FILE *out, const char *format)
{
    char text[2048];
    snprintf(text, sizeof text, format, FV_MAX_ITERATIONS);
    roff_line(out, text);
}

static void man_flags(FILE *out, int section)
{
    cli_flag_doc d;
    for (int r = 0; cli_flag_doc_get(r, &d); r++) {
        if (d.section != section || !d.label) continue;
        if (!d.names[0]) { /* a --help line about no flag ("(no -o)"): a paragraph */
            fputs(".PP\n", out);
            roff_help(out, d.help);
            continue;
        }
        fputs(".TP\n", out);
        roff_words(out, d.label);
        fputc('\n', out);
        roff_help(out, d.help);
    }
}

static void man_filters(FILE *out)
{
    fputs(".SH FILTERS\n"
          "Each filter's parameters are given as \\fB\\-\\-\\fR\\fINAME VALUE\\fR or \\fB\\-p\\fR "
          "\\fINAME\\fR=\\fIVALUE\\fR; a parameter applies to every filter in play that has it. "
          "The variants are the filter's implementations: \\fB\\-v\\fR picks one, \\fB\\-a\\fR "
          "and \\fB\\-b\\fR show two, \\fB\\-\\-bench\\fR times them all against the baseline. "
          "The \\fBcpu\\fR variant is the plain\\-C reference and needs no GPU.\n",
          out);
    for (int i = 0; i < fv_n_filters; i++) {
        const fv_filter *f = fv_filters[i];
        fprintf(out, ".SS %s\n", f->name);
        roff_line(out, f->summary);
        for (int k = 0; k < f->n_params; k++) {
            const fv_param_desc *p = &f->params[k];
            if (p->type == FV_PARAM_IMAGE) continue; /* a file: among the options */
            char range[200];
            fv_param_range_text(f, k, range, sizeof range);
            fputs(".TP\n\\fB\\-\\-", out);
            roff(out, p->name);
            fputs("\\fR \\fIVALUE\\fR\n", out);
            roff(out, p->help);
            fputs(" (", out);
            roff(out, range);
            fputs(")\n", out);
        }
        if (f->max_iterations > 1)
            fprintf(out, ".TP\n\\fB\\-\\-iters\\fR \\fIN\\fR\npasses, 1..%d (default 1)\n",
                    f->max_iterations);
        fputs(".PP\nVariants:\n", out);
        for (int v = 0; v < f->n_variants; v++) {
            const fv_variant *var = &f->variants[v];
            fputs(".TP\n.B ", out);
            roff(out, var->name);
            fputc('\n', out);
            roff_line(out, var->summary);
            if (var == fv_filter_baseline(f)) fputs("[baseline]\n", out);
        }
    }
}

void cli_print_man(FILE *out, const char *const *key_labels, const char *const *key_helps,
                   int n_keys)
{
    static const char *const synopsis[] = {
        "filterview IMAGE [-f FILTER] [-v VARIANT] [PARAMETERS] -o OUT.png",
        "filterview IMAGE|FOLDER... [-f FILTER] [-v VARIANT] [PARAMETERS] -o OUTDIR/",
        "filterview IMAGE [-f FILTER] --compare A B [PARAMETERS]",
        "filterview --bench [-f FILTER [-v VARIANT]] [PARAMETERS] [--sizes WxH,...] "
        "[--image FILE] [--csv FILE] [--chart FILE]",
        "filterview [IMAGE] [-a SPEC] [-b SPEC] [PARAMETERS] [--headless] [--keys SEQ] "
        "[--screenshot FILE]",
        "filterview --list [--verbose] | --info | --help | --help-keys | --help-man",
    };
    const fv_filter *def_filter;
    const fv_variant *def_variant;
    parser_defaults(&def_filter, &def_variant);
    fputs(".\\\" filterview(1), written by `filterview --help-man` from the program's own tables\n",
          out);
    fprintf(out, ".TH FILTERVIEW 1 \"\" \"filterview %s\" \"User Commands\"\n", FV_VERSION);
    fputs(".nh\n.ad l\n", out); /* options and names are never hyphenated at a line's end */
    fputs(".SH NAME\nfilterview \\- GPU image filters, live in a window, in batch, or in a "
          "benchmark\n.SH SYNOPSIS\n",
          out);
    for (size_t k = 0; k < sizeof synopsis / sizeof synopsis[0]; k++) {
        if (k) fputs(".br\n", out);
        roff_words(out, synopsis[k]);
        fputc('\n', out);
    }
    fputs(".SH DESCRIPTION\n"
          "\\fBfilterview\\fR runs an image filter on a photo \\(em ",
          out);
    for (int i = 0; i < fv_n_filters; i++)
        fprintf(out, "%s%s", fv_filters[i]->name,
                i == fv_n_filters - 1   ? ""
                : i == fv_n_filters - 2 ? " or "
                                        : ", ");
    fputs(" \\(em with several implementations of each (the variants): CUDA kernels from the "
          "naive one to tuned ones, NVIDIA's NPP where the toolkit has it, and a plain\\-C "
          "reference.\n"
          "It shows two variants side by side in an OpenGL window, writes filtered files, "
          "compares variants pixel by pixel and times them.\n"
          ".PP\n",
          out);
    fprintf(out,
            "Without \\fB\\-f\\fR the filter is \\fB%s\\fR; without \\fB\\-v\\fR its variant "
            "is \\fB%s\\fR.\n",
            def_filter->name, def_variant ? def_variant->name : def_filter->variants[0].name);
    fputs(".SH MODES\n"
          ".TP\nthe viewer (no \\fB\\-o\\fR)\n"
          "A window where there is a display, else headless (EGL). Pane A and pane B show two "
          "variants, or two filters, or the original; the keys below drive it.\n"
          ".TP\n\\fB\\-o\\fR \\fIFILE\\fR\n"
          "Filters one image into a PNG or JPEG file.\n"
          ".TP\n\\fB\\-o\\fR \\fIDIR\\fR/\n"
          "Filters every image given, and every image in the folders given, into "
          "\\fIDIR\\fR/\\fINAME\\fR.png.\n"
          ".TP\n\\fB\\-\\-compare\\fR \\fIA B\\fR\n"
          "Runs two variants on one image and says how far apart they are.\n"
          ".TP\n\\fB\\-\\-bench\\fR\n"
          "Times every variant of a filter (or of all of them) on random images or a photo.\n"
          ".TP\n\\fB\\-\\-list\\fR, \\fB\\-\\-info\\fR\n"
          "The filters, their parameters and variants; the CUDA device.\n"
          ".PP\n"
          "The GPU variants need an NVIDIA GPU and its driver; the \\fBcpu\\fR variant runs "
          "anywhere (\\fB\\-v cpu\\fR).\n"
          ".SH OPTIONS\n"
          "An option that takes a value takes it once: given twice, it is refused (exit 2).\n",
          out);
    man_flags(out, 1);
    man_filters(out);
    fputs(".SH VIEWER\n", out);
    man_flags(out, 2);
    fputs(".SH KEYS\nIn the viewer (\\fBh\\fR shows them on screen; \\fB\\-\\-keys\\fR replays "
          "them):\n",
          out);
    for (int k = 0; k < n_keys; k++) {
        fputs(".TP\n.B ", out);
        roff(out, key_labels[k]);
        fputc('\n', out);
        roff_line(out, key_helps[k]);
    }
    /* every status the program ends with: main.c's, compare.c's, and a signal's (image_io.c
     * removes the files being written, then lets the signal end the process) */
    fputs(".SH EXIT STATUS\n"
          ".TP\n.B 0\nsuccess; with \\-\\-compare, the two outputs are identical\n"
          ".TP\n.B 1\na run\\-time error: a file that cannot be read or written, no CUDA device "
          "for a GPU variant, not enough memory, a file of a folder batch that failed (the "
          "others are written); with \\-\\-compare, the two outputs differ\n"
          ".TP\n.B 2\na bad command line, found before anything runs: an unknown option, a "
          "value out of range, an option given twice, an output that is one of the inputs; "
          "with \\-\\-compare, any error\n"
          ".TP\n.B 128+N\nended by signal N, as the shell reports it: 130 for Ctrl\\-C "
          "(SIGINT), 143 for SIGTERM; the files being written are removed first, so no partial "
          "output is left\n"
          ".PP\nAn error is one line on standard error.\n"
          ".SH ENVIRONMENT\n"
          ".TP\n.B DISPLAY\n"
          "Where there is none, the viewer draws headless through EGL.\n"
          ".TP\n.B CUDA_VISIBLE_DEVICES\n"
          "Which NVIDIA GPUs the CUDA runtime shows filterview (it uses the first).\n"
          ".TP\n.B FV_SHADER_DIR\n"
          "Read the viewer's shaders from this folder instead of the copies built into the "
          "program.\n"
          ".TP\n.B FV_GPU_MEMORY_LIMIT_MB\n"
          "Treat the GPU as if it had at most this many MiB free (how a smaller GPU would "
          "refuse a large image).\n"
          ".TP\n.B FILTERVIEW_KERNEL_TIMEOUT\n"
          "Seconds a user kernel (user=FILE) may run, 3 by default; past them it is stopped "
          "and turned off until its file is saved again.\n"
          ".TP\n.B FILTERVIEW_KERNEL_HOST\n"
          "0: the viewer runs user kernels in its own process (to debug them with cuda\\-gdb), "
          "where a fault ends it; by default they run in a process of their own.\n"
          ".TP\n.B FILTERVIEW_MEMCHECK\n"
          "0: a new or changed user kernel goes live unchecked (to run the viewer itself under "
          "compute\\-sanitizer or cuda\\-gdb); by default it first runs once under "
          "compute\\-sanitizer's memcheck, on a crop of the image, and goes live only when "
          "memcheck finds no error.\n"
          ".TP\n.B XDG_CACHE_HOME\n"
          "Compiled user kernels are cached in its filterview folder (~/.cache/filterview "
          "without it).\n"
          ".SH FILES\n"
          ".TP\n.I /usr/share/filterview/\n"
          "Two sample photos, astronaut.png and camera.png, and their licences "
          "(under /usr/local/share/filterview/ when built from source).\n"
          ".TP\n.I /usr/share/doc/filterview/\n"
          "The README and the documentation: usage, the viewer, the design and performance "
          "notes of each filter.\n"
          ".SH EXAMPLES\n",
          out);
    static const char *const examples[][2] = {
        {"filterview photo.png", "the viewer: pane A naive, pane B smem"},
        {"filterview photo.png \\-f gaussian \\-\\-sigma 2 \\-o blurred.png", "blur one photo"},
        {"filterview photo.png \\-f box \\-v cpu \\-o box.png", "the same without a GPU"},
        {"filterview photo.png \\-\\-compare naive fast", "how far two variants differ"},
        {"filterview \\-\\-bench \\-f median \\-\\-sizes 3840x2160", "time one filter"},
        {"filterview ~/photos \\-f box \\-\\-radius 4 \\-o out/", "a folder, to out/NAME.png"},
        {"filterview photo.png \\-a gaussian:fast \\-b median:fast \\-p size=5 \\-\\-noise 20",
         "two filters on a noisy photo"},
        {"filterview photo.png \\-\\-headless \\-a naive \\-b fast \\-\\-keys zc "
         "\\-\\-screenshot shot.png",
         "a screenshot without a window"},
    };
    for (size_t k = 0; k < sizeof examples / sizeof examples[0]; k++)
        fprintf(out, ".PP\n%s:\n.RS\n.EX\n%s\n.EE\n.RE\n", examples[k][1], examples[k][0]);
    fputs(".SH SEE ALSO\n"
          ".BR nvidia\\-smi (1),\n"
          ".BR convert (1),\n"
          ".BR compare (1)\n",
          out);
}

/* ---- bash completion ---- */

/* `words` into a shell word in single quotes (names are letters, digits, '_', '-') */
static void sh_words(FILE *out, const char *const *words, int n)
{
    fputc('\'', out);
    for (int k = 0; k < n; k++) fprintf(out, "%s%s", k ? " " : "", words[k]);
    fputc('\'', out);
}

/* Adds `w` to list[] unless it is there; returns the new count */
static int add_word(const char **list, int n, int max, const char *w)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(list[k], w)) return n;
    if (n < max) list[n++] = w;
    return n;
}

#define MAX_WORDS 256

/* `case` arms: FILTER) REPLY=WORDS ;; for each filter, and *) the union */
static void sh_case_per_filter(FILE *out, const char *fn, const char *what,
                               int (*fill)(const fv_filter *, const char **, int))
{
    const char *all[MAX_WORDS], *own[MAX_WORDS];
    int n_all = 0;
    fprintf(out, "\n# %s FILTER: %s (of every filter without one)\n%s()\n{\n    case $1 in\n", fn,
            what, fn);
    for (int i = 0; i < fv_n_filters; i++) {
        const int n = fill(fv_filters[i], own, MAX_WORDS);
        for (int k = 0; k < n; k++) n_all = add_word(all, n_all, MAX_WORDS, own[k]);
        fprintf(out, "    %s) REPLY=", fv_filters[i]->name);
        sh_words(out, own, n);
        fputs(" ;;\n", out);
    }
    fputs("    *) REPLY=", out);
    sh_words(out, all, n_all);
    fputs(" ;;\n    esac\n}\n", out);
}

static int fill_variants(const fv_filter *f, const char **w, int max)
{
    int n = 0;
    for (int v = 0; v < f->n_variants; v++) n = add_word(w, n, max, f->variants[v].name);
    return n;
}

static int fill_params(const fv_filter *f, const char **w, int max)
{
    int n = 0;
    for (int k = 0; k < f->n_params; k++)
        if (f->params[k].type != FV_PARAM_IMAGE) n = add_word(w, n, max, f->params[k].name);
    return n;
}

void cli_print_completion(FILE *out)
{
    const fv_filter *def_filter;
    const fv_variant *def_variant;
    parser_defaults(&def_filter, &def_variant);
    fprintf(out,
            "# bash completion for filterview %s, written by `filterview --completion bash` from "
            "its flag\n"
            "# table and filter registry. Installed as "
            "share/bash-completion/completions/filterview;\n"
            "# or: source <(filterview --completion bash)\n",
            FV_VERSION);
    fputs("\n_filterview_filters=", out);
    const char *names[MAX_WORDS];
    for (int i = 0; i < fv_n_filters && i < MAX_WORDS; i++) names[i] = fv_filters[i]->name;
    sh_words(out, names, fv_n_filters);
    fprintf(out, "\n_filterview_default_filter=%s\n", def_filter->name);
    fputs("_filterview_read_endings='", out);
    for (size_t k = 0; k < sizeof read_endings / sizeof read_endings[0]; k++)
        fprintf(out, "%s%s", k ? " " : "", read_endings[k]);
    fputs("'\n", out);
    sh_case_per_filter(out, "_filterview_variants", "its variants", fill_variants);
    sh_case_per_filter(out, "_filterview_params", "its parameters", fill_params);

    /* choices: FILTER:PARAM, then *:PARAM for the union over the filters that have it */
    fputs("\n# _filterview_choices FILTER PARAM: the choices of a choice parameter\n"
          "_filterview_choices()\n{\n    case $1:$2 in\n",
          out);
    const char *choice_params[MAX_WORDS];
    int n_choice_params = 0;
    for (int i = 0; i < fv_n_filters; i++)
        for (int k = 0; k < fv_filters[i]->n_params; k++) {
            const fv_param_desc *p = &fv_filters[i]->params[k];
            if (p->type != FV_PARAM_CHOICE) continue;
            fprintf(out, "    %s:%s) REPLY=", fv_filters[i]->name, p->name);
            sh_words(out, (const char *const *)p->choices, p->n_choices);
            fputs(" ;;\n", out);
            n_choice_params = add_word(choice_params, n_choice_params, MAX_WORDS, p->name);
        }
    for (int c = 0; c < n_choice_params; c++) {
        const char *all[MAX_WORDS];
        int n_all = 0;
        for (int i = 0; i < fv_n_filters; i++) {
            const int k = fv_param_index(fv_filters[i], choice_params[c]);
            const fv_param_desc *p = k >= 0 ? &fv_filters[i]->params[k] : NULL;
            for (int j = 0; p && p->type == FV_PARAM_CHOICE && j < p->n_choices; j++)
                n_all = add_word(all, n_all, MAX_WORDS, p->choices[j]);
        }
        fprintf(out, "    *:%s) REPLY=", choice_params[c]);
        sh_words(out, all, n_all);
        fputs(" ;;\n", out);
    }
    fputs("    *) REPLY='' ;;\n    esac\n}\n", out);

    /* what follows each option; every spelling, for the option list */
    static const char *const kinds[] = {
        [CLI_VALUE_NONE] = "",         [CLI_VALUE_WORD] = "word",
        [CLI_VALUE_FILTER] = "filter", [CLI_VALUE_VARIANT] = "variant",
        [CLI_VALUE_PARAM] = "param",   [CLI_VALUE_PANE] = "pane",
        [CLI_VALUE_SPEC] = "spec",     [CLI_VALUE_CHOICE] = "choice",
        [CLI_VALUE_IMAGE] = "image",   [CLI_VALUE_FILE] = "file"};
    const char *options[MAX_WORDS];
    int n_options = 0;
    fputs("\n# _filterview_value OPTION: what follows it (KIND[:WORDS]), nothing for none\n"
          "_filterview_value()\n{\n    case $1 in\n",
          out);
    cli_flag_doc d;
    for (int r = 0; cli_flag_doc_get(r, &d); r++) {
        if (!d.names[0]) continue;
        for (int k = 0; k < 3 && d.names[k]; k++)
            n_options = add_word(options, n_options, MAX_WORDS, d.names[k]);
        if (d.value == CLI_VALUE_NONE) continue;
        fputs("    ", out);
        for (int k = 0; k < 3 && d.names[k]; k++) fprintf(out, "%s%s", k ? "|" : "", d.names[k]);
        fprintf(out, ") REPLY='%s%s%s' ;;\n", kinds[d.value],
                d.value == CLI_VALUE_CHOICE || d.value == CLI_VALUE_FILE ? ":" : "",
                d.value == CLI_VALUE_CHOICE ? d.choices
                : d.endings                 ? d.endings
                                            : "");
    }
    /* the parameters' own flags, --NAME VALUE, unless the table has the spelling */
    const char *param_flags[MAX_WORDS];
    int n_param_flags = 0;
    char storage[MAX_WORDS][72];
    for (int i = 0; i < fv_n_filters; i++)
        for (int k = 0; k < fv_filters[i]->n_params; k++) {
            snprintf(storage[n_param_flags], sizeof storage[0], "--%s",
                     fv_filters[i]->params[k].name);
            const int before = n_options;
            n_options = add_word(options, n_options, MAX_WORDS, storage[n_param_flags]);
            if (n_options > before && n_param_flags < MAX_WORDS - 1)
                param_flags[n_param_flags] = storage[n_param_flags], n_param_flags++;
        }
    if (n_param_flags) {
        fputs("    ", out);
        for (int k = 0; k < n_param_flags; k++) fprintf(out, "%s%s", k ? "|" : "", param_flags[k]);
        fputs(") REPLY=\"parameter:${1#--}\" ;;\n", out);
    }
    fputs("    *) REPLY='' ;;\n    esac\n}\n\n_filterview_options=", out);
    sh_words(out, options, n_options);
    fputc('\n', out);

    /* the completion itself: plain bash, no bash-completion helpers needed */
    fputs(
        "\n"
        "# _filterview_add PREFIX WORDS: COMPREPLY += the words (each after PREFIX) that start\n"
        "# with cur, less what readline keeps of cur before its last word break (':' and '=')\n"
        "_filterview_add()\n"
        "{\n"
        "    local w keep= i\n"
        "    for ((i = ${#cur} - 1; i >= 0; i--)); do\n"
        "        case ${cur:i:1} in\n"
        "        [:=]) [[ $COMP_WORDBREAKS == *\"${cur:i:1}\"* ]] && { keep=${cur:0:i+1}; "
        "break; } ;;\n"
        "        esac\n"
        "    done\n"
        "    for w in $2; do\n"
        "        w=$1$w\n"
        "        [[ $w == \"$cur\"* ]] && COMPREPLY+=(\"${w#\"$keep\"}\")\n"
        "    done\n"
        "}\n"
        "\n"
        "# _filterview_files PREFIX ENDINGS: files after PREFIX (those with ENDINGS, any case, if\n"
        "# given) and folders\n"
        "_filterview_files()\n"
        "{\n"
        "    local f e lower IFS=$'\\n' keep=\n"
        "    [[ $1 && $COMP_WORDBREAKS == *=* ]] && keep=$1\n"
        "    compopt -o filenames 2>/dev/null\n"
        "    for f in $(compgen -f -- \"${cur#\"$1\"}\"); do\n"
        "        lower=${f,,}\n"
        "        if [[ -d $f || ! $2 ]]; then\n"
        "            COMPREPLY+=(\"${1#\"$keep\"}$f\")\n"
        "            continue\n"
        "        fi\n"
        "        for e in ${2// /$'\\n'}; do\n"
        "            [[ $lower == *\"$e\" ]] && { COMPREPLY+=(\"${1#\"$keep\"}$f\"); break; }\n"
        "        done\n"
        "    done\n"
        "}\n"
        "\n"
        "# _filterview_complete KIND PREFIX: the value of an option, cur starting with PREFIX\n"
        "_filterview_complete()\n"
        "{\n"
        "    local REPLY f v name\n"
        "    case $1 in\n"
        "    filter) _filterview_add \"$2\" \"$_filterview_filters\" ;;\n"
        "    variant) _filterview_variants \"$filter\"; _filterview_add \"$2\" \"$REPLY\" ;;\n"
        "    param)\n"
        "        if [[ ${cur#\"$2\"} == *=* ]]; then\n"
        "            name=${cur#\"$2\"}; name=${name%%=*}\n"
        "            _filterview_choices \"$filter\" \"$name\"\n"
        "            _filterview_add \"$2$name=\" \"$REPLY\"\n"
        "        else\n"
        "            _filterview_params \"$filter\"\n"
        "            for v in $REPLY; do _filterview_add \"$2\" \"$v=\"; done\n"
        "            compopt -o nospace 2>/dev/null\n"
        "        fi ;;\n"
        "    pane | spec)\n"
        "        [[ $1 == pane ]] && _filterview_add \"$2\" original\n"
        "        _filterview_variants \"${filter:-$_filterview_default_filter}\"\n"
        "        _filterview_add \"$2\" \"$REPLY\"\n"
        "        for f in $_filterview_filters; do\n"
        "            _filterview_variants \"$f\"\n"
        "            _filterview_add \"$2$f:\" \"$REPLY\"\n"
        "        done ;;\n"
        "    choice:*) _filterview_add \"$2\" \"${1#choice:}\" ;;\n"
        "    parameter:*) _filterview_choices \"$filter\" \"${1#parameter:}\"; "
        "_filterview_add \"$2\" \"$REPLY\" ;;\n"
        "    image) _filterview_files \"$2\" \"$_filterview_read_endings\" ;;\n"
        "    file:*) _filterview_files \"$2\" \"${1#file:}\" ;;\n"
        "    esac\n"
        "}\n"
        "\n"
        "_filterview()\n"
        "{\n"
        "    COMPREPLY=()\n"
        "    # the words before the cursor, split at blanks only (readline also splits at ':' and "
        "'=')\n"
        "    local line=${COMP_LINE:0:COMP_POINT} REPLY\n"
        "    local cur=${line##*[[:blank:]]} filter= i n kind\n"
        "    local -a words\n"
        "    read -r -a words <<<\"${line:0:${#line}-${#cur}}\"\n"
        "    n=${#words[@]}\n"
        "    for ((i = 1; i < n; i++)); do # the filter given earlier on the line\n"
        "        case ${words[i]} in\n"
        "        -f | --filter) filter=${words[i+1]-} ;;\n"
        "        --filter=*) filter=${words[i]#--filter=} ;;\n"
        "        esac\n"
        "    done\n"
        "    if [[ $cur == --*=* ]]; then # --name=value\n"
        "        _filterview_value \"${cur%%=*}\"\n"
        "        _filterview_complete \"$REPLY\" \"${cur%%=*}=\"\n"
        "        return\n"
        "    fi\n"
        "    _filterview_value \"${words[n-1]}\"\n"
        "    kind=$REPLY\n"
        "    if [[ ! $kind && n -ge 2 && ${words[n-1]} != -* ]]; then\n"
        "        _filterview_value \"${words[n-2]}\" # --compare's second value\n"
        "        [[ $REPLY == spec ]] && kind=spec\n"
        "    fi\n"
        "    if [[ $kind ]]; then\n"
        "        _filterview_complete \"$kind\" \"\"\n"
        "    elif [[ $cur == -* ]]; then\n"
        "        _filterview_add \"\" \"$_filterview_options\"\n"
        "    else\n"
        "        _filterview_files \"\" \"$_filterview_read_endings\"\n"
        "    fi\n"
        "}\n"
        "complete -F _filterview filterview\n",
        out);
}
