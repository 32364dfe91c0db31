/* ------------------------------------------------------------------------------------------------
 * viewer/main.c: filterview's entry point: parses the command line and hands over to the mode
 * it names (batch PNG output, compare, benchmark, list, info, or the viewer). Output that does
 * not reach standard output (a full disk) fails the run.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"
#include "cli.h"
#include "image_io.h"
#include "kernel_host.h"
#include "modes.h"
#include "run.h"
#include "user/user_kernel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(cli_options *o)
{
    switch (o->mode) {
    case CLI_MODE_HELP: cli_print_help(); return 0;
    case CLI_MODE_VERSION: cli_print_version(); return 0;
    case CLI_MODE_LIST: cli_print_list(o->verbose); return 0;
    case CLI_MODE_INFO: return info_main();
    case CLI_MODE_BATCH: return o->output_is_dir ? batch_many_main(o) : batch_main(o);
    case CLI_MODE_COMPARE: return compare_main(o);
    case CLI_MODE_BENCH: return bench_main(o);
    case CLI_MODE_HELP_KEYS: keys_print_help(stdout, 1); return 0;
    case CLI_MODE_HELP_MAN: {
        key_help keys;
        keys_help_fill(&keys);
        cli_print_man(stdout, keys.label, keys.help, keys.n);
        return 0;
    }
    case CLI_MODE_COMPLETION: cli_print_completion(stdout); return 0;
    case CLI_MODE_CONTRACT: {
        char *contract = fv_user_contract(o->filter);
        if (!contract) return run_fail_line();
        fputs(contract, stdout);
        free(contract);
        return 0;
    }
    case CLI_MODE_VIEW: return viewer_main(o);
    }
    return 2;
}

int main(int argc, char **argv)
{
    /* the viewer's own helper for user kernels (kernel_host.h), not a command for users */
    if (argc > 1 && !strcmp(argv[1], KERNEL_HOST_ARG)) return kernel_host_main(argc, argv);
    cli_options o;
    if (!cli_parse(argc, argv, &o)) return 2;
    /* the image parameter's file (conv's `kernel-file`), found by its type: loaded once, every
     * parameter set that has one points at it until the end; a bad one is a bad command line */
    fv_image kernel_image = {0};
    if (o.kernel_file) {
        int largest = 0; /* the largest side any filter takes: refused from the header beyond it */
        for (int f = 0; f < fv_n_filters; f++) {
            const int k = fv_param_image_index(fv_filters[f]);
            if (k >= 0 && fv_filters[f]->params[k].max > largest)
                largest = (int)fv_filters[f]->params[k].max;
        }
        fv_status st = image_load_limited(o.kernel_file, largest, largest, &kernel_image);
        for (int f = 0; f < fv_n_filters && st == FV_OK; f++) {
            const int k = fv_param_image_index(fv_filters[f]);
            if (k < 0) continue;
            o.params[f].image[k] = &kernel_image;
            o.params[f].value[k] = 1;
            st = fv_params_check(fv_filters[f], &o.params[f]);
        }
        if (st != FV_OK) {
            cli_error("--kernel-file: %s", fv_last_error());
            fv_host_image_free(&kernel_image);
            return 2;
        }
    }
    /* user=FILE kernels, compiled before the windowless modes run (the viewer compiles its own
     * panes', and again when the file changes) */
    const int windowless =
        o.mode == CLI_MODE_BATCH || o.mode == CLI_MODE_COMPARE || o.mode == CLI_MODE_BENCH;
    if (windowless && run_user_kernels_load(&o) != FV_OK) {
        run_user_kernels_release();
        fv_host_image_free(&kernel_image);
        return o.mode == CLI_MODE_COMPARE ? (run_fail_line(), 2) : run_fail_line();
    }
    if (o.mode == CLI_MODE_BATCH) run_default_variant(&o); /* no -v and no GPU: the reference */
    int code = run(&o);
    int last_errno = errno; /* an earlier failed write's reason, if nothing has overwritten it */
    run_user_kernels_release();
    fv_host_image_free(&kernel_image);
    /* what was printed must have arrived (a full disk, a closed pipe): else the run failed */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error("cannot write to standard output: %s", errno        ? strerror(errno)
                                                         : last_errno ? strerror(last_errno)
                                                                      : "write error");
        /* --compare's 1 means "they differ": a failure there is 2, its trouble status */
        code = o.mode == CLI_MODE_COMPARE ? 2 : code == 0 ? 1 : code;
    }
    return code;
}
