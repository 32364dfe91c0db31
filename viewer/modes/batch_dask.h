/* ------------------------------------------------------------------------------------------------
 * viewer/modes/batch_dask.h: the folder batch's files filtered on a Dask cluster (--dask).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BATCH_DASK_H
#define FV_BATCH_DASK_H

#include "cli.h"

/* Filters in[i] into out[i] (named, checked and their folders made by the folder batch) through
 * the scheduler o->dask, one task per file, each written as this program writes it with
 * `png_threads` deflating its PNG; `label` is the summary's "median/fast, size 7, 1 iteration"
 * and `left_out` the images the folder batch could not give a folder. Returns the exit status:
 * 0, or 1 when a file failed or Dask is missing or unreachable (said in one line). */
int batch_dask_main(const cli_options *o, const fv_params *p, char *const *in, char *const *out,
                    int n, int left_out, int png_threads, const char *label);

#endif
