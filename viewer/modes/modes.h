/* ------------------------------------------------------------------------------------------------
 * viewer/modes/modes.h: the entry point of each windowless mode, one file each. main.c dispatches
 * to them; each returns the process exit status (0 ok, 1 runtime error, 2 a bad command line
 * found late) after printing what it did or one line saying why not.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_MODES_H
#define FV_MODES_H

#include "cli.h"

int batch_main(const cli_options *o);      /* batch.c: -o FILE, one image */
int batch_many_main(const cli_options *o); /* batch_many.c: -o DIR/, every input */
int compare_main(const cli_options *o);    /* compare.c: --compare A B */
int bench_main(const cli_options *o);      /* bench.c: --bench */
int info_main(void);                       /* info.c: --info */

#endif
