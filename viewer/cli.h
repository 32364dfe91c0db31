/* ------------------------------------------------------------------------------------------------
 * viewer/cli.h: the command line, parsed strictly into one options struct. Every malformed flag
 * or number is rejected with one line naming the flag and what it expects.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CLI_H
#define FV_CLI_H

#include "filter.h"

typedef enum cli_mode {
    CLI_MODE_VIEW,     /* default: the viewer (or batch output with -o) */
    CLI_MODE_BATCH,    /* -o FILE */
    CLI_MODE_COMPARE,  /* --compare A B */
    CLI_MODE_LIST,     /* --list */
    CLI_MODE_BENCH,    /* --bench */
    CLI_MODE_INFO,     /* --info */
    CLI_MODE_HELP      /* --help */
} cli_mode;

#define CLI_MAX_SIZES 32

typedef struct cli_options {
    cli_mode mode;
    const char *input;          /* image path */
    const char *output;         /* -o PNG path */
    const char *filter;         /* -f */
    const char *variant;        /* -v */
    const char *compare_a, *compare_b;
    fv_params params;
    int sigma_given, radius_given;
    /* benchmark */
    int n_sizes;
    int sizes[CLI_MAX_SIZES][2];
    const char *csv;
    int runs;
    unsigned seed;
    int bench_filter_given;
} cli_options;

/* Parses argv into o. On a bad command line prints one line to stderr and returns 0. */
int cli_parse(int argc, char **argv, cli_options *o);
void cli_print_help(void);
void cli_print_list(void);

#endif
