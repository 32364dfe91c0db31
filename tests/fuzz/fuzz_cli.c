/* ------------------------------------------------------------------------------------------------
 * tests/fuzz/fuzz_cli.c: libFuzzer harness for the command line (viewer/cli/cli.c). The input is the
 * arguments, separated by NUL bytes; cli_parse must accept or refuse them without exiting,
 * crashing or reading past them, and what it accepts must be consistent (iterations within each
 * filter's own limit, standard output never a folder, no output that is an input without
 * --in-place). An accepted --keys text goes through the replay parser too.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "filterview";
    for (char *p = text; p <= text + size && argc <= MAX_ARGS; p += strlen(p) + 1) argv[argc++] = p;
    argv[argc] = NULL;
    cli_options o;
    if (!cli_parse(argc, argv, &o)) {
        free(text);
        return 0;
    }
    /* the modes that print a text and stop (help, keys, version, man page, completion) return
     * at once, before a filter and a variant are chosen */
    const int stops_at_once = o.mode == CLI_MODE_HELP || o.mode == CLI_MODE_HELP_KEYS ||
                              o.mode == CLI_MODE_VERSION || o.mode == CLI_MODE_HELP_MAN ||
                              o.mode == CLI_MODE_COMPLETION;
    if (!stops_at_once) {
        if (!o.filter || !o.variant) abort();
        if (o.mode == CLI_MODE_BATCH && !o.output) abort();
        /* standard output takes one image; --format is one of the two names */
        if (o.output && cli_is_stdio(o.output) && o.output_is_dir) abort();
        if (o.format && strcmp(o.format, "png") != 0 && strcmp(o.format, "jpeg") != 0) abort();
        if (o.threads < 0 || o.threads > CLI_MAX_THREADS) abort();
        /* no input is an output, unless --in-place (file names reach the parser: they exist) */
        if (!o.in_place && o.output && !o.output_is_dir)
            for (int i = 0; i < o.n_inputs; i++)
                if (cli_same_file(o.output, o.inputs[i])) abort();
        if (o.n_sizes < 0 || o.n_sizes > CLI_MAX_SIZES || o.n_sweep < 0 ||
            o.n_sweep > CLI_MAX_SWEEP)
            abort();
        /* --iters reaches only the filters that take that many passes */
        for (int f = 0; f < fv_n_filters; f++)
            if (o.params[f].iterations < 1 ||
                o.params[f].iterations > fv_filters[f]->max_iterations)
                abort();
        for (int k = 0; k < o.n_sizes; k++)
            if (o.sizes[k][0] < 1 || o.sizes[k][1] < 1) abort();
        if (o.keys) {
            int keys[256];
            keys_parse(o.keys, keys, 256);
        }
    }
    free(text);
    return 0;
}
