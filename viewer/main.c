/* ------------------------------------------------------------------------------------------------
 * viewer/main.c: filterview's entry point: parses the command line and hands over to the mode
 * it names (batch PNG output, compare, benchmark, list, info, or the viewer). Output that does
 * not reach standard output (a full disk) fails the run.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"
#include "cli.h"
#include "conv/conv.h"
#include "image_io.h"
#include "modes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int run(cli_options *o)
{
    switch (o->mode) {
    case CLI_MODE_HELP: cli_print_help(); return 0;
    case CLI_MODE_LIST: cli_print_list(o->verbose); return 0;
    case CLI_MODE_INFO: return info_main();
    case CLI_MODE_BATCH: return o->output_is_dir ? batch_many_main(o) : batch_main(o);
    case CLI_MODE_COMPARE: return compare_main(o);
    case CLI_MODE_BENCH: return bench_main(o);
    case CLI_MODE_HELP_KEYS: keys_print_help(stdout, 1); return 0;
    case CLI_MODE_VIEW: return viewer_main(o);
    }
    return 2;
}

int main(int argc, char **argv)
{
    cli_options o;
    if (!cli_parse(argc, argv, &o)) return 2;
    if (o.kernel_file) { /* conv's `file` kernel: a bad one is a bad command line */
        fv_image k = {0};
        fv_status st = image_load(o.kernel_file, &k);
        if (st == FV_OK) st = fv_conv_set_kernel_image(&k);
        fv_host_image_free(&k);
        if (st != FV_OK) {
            fprintf(stderr, "filterview: --kernel-file: %s\n", fv_last_error());
            return 2;
        }
    }
    int code = run(&o);
    int last_errno = errno; /* an earlier failed write's reason, if nothing has overwritten it */
    /* what was printed must have arrived (a full disk, a closed pipe): else the run failed */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "filterview: cannot write to standard output: %s\n",
                errno ? strerror(errno) : last_errno ? strerror(last_errno) : "write error");
        if (code == 0) code = 1;
    }
    return code;
}
