/* ------------------------------------------------------------------------------------------------
 * viewer/main.c: filterview's entry point: parses the command line and hands over to the mode
 * it names (batch PNG output, compare, benchmark, list, info, or the viewer).
 * ------------------------------------------------------------------------------------------------ */
#include "batch.h"
#include "bench.h"
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* Until a window exists: filter IMAGE with the chosen variant into ./<name>.<filter>-<variant>.png
 * and say where it went. */
static int view_main(cli_options *o)
{
    if (!o->input) {
        cli_print_help();
        return 2;
    }
    static char out[4096];
    const char *base = strrchr(o->input, '/');
    base = base ? base + 1 : o->input;
    const char *dot = strrchr(base, '.');
    int stem = dot ? (int)(dot - base) : (int)strlen(base);
    snprintf(out, sizeof out, "%.*s.%s-%s.png", stem, base, o->filter, o->variant);
    o->output = out;
    return batch_main(o);
}

int main(int argc, char **argv)
{
    cli_options o;
    if (!cli_parse(argc, argv, &o)) return 2;
    switch (o.mode) {
    case CLI_MODE_HELP: cli_print_help(); return 0;
    case CLI_MODE_LIST: cli_print_list(); return 0;
    case CLI_MODE_INFO: return info_main();
    case CLI_MODE_BATCH: return batch_main(&o);
    case CLI_MODE_COMPARE: return compare_main(&o);
    case CLI_MODE_BENCH: return bench_main(&o);
    case CLI_MODE_VIEW: return view_main(&o);
    }
    return 2;
}
