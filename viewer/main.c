/* ------------------------------------------------------------------------------------------------
 * viewer/main.c: filterview's entry point: parses the command line and hands over to the mode
 * it names (batch PNG output, compare, benchmark, list, info, or the viewer).
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"
#include "batch.h"
#include "bench.h"
#include "cli.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    cli_options o;
    if (!cli_parse(argc, argv, &o)) return 2;
    switch (o.mode) {
    case CLI_MODE_HELP: cli_print_help(); return 0;
    case CLI_MODE_LIST: cli_print_list(o.verbose); return 0;
    case CLI_MODE_INFO: return info_main();
    case CLI_MODE_BATCH: return batch_main(&o);
    case CLI_MODE_COMPARE: return compare_main(&o);
    case CLI_MODE_BENCH: return bench_main(&o);
    case CLI_MODE_HELP_KEYS: keys_print_help(stdout, 1); return 0;
    case CLI_MODE_VIEW: return viewer_main(&o);
    }
    return 2;
}
