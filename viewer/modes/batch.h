/* viewer/modes/batch.h: the windowless modes: filter one image (or many) to PNG or JPEG, compare two
 * variants, --info.
 * Each returns the process exit status (0 ok, 1 runtime error) after printing one line. */
#ifndef FV_BATCH_H
#define FV_BATCH_H

#include "cli.h"

/* Runs variant v of f over host image src into host image dst (same size). GPU variants go
 * through device memory; *ms receives the filter's time (CUDA events, or the host clock). */
fv_status run_variant_to_host(const fv_filter *f, const fv_variant *v, const fv_image *src,
                              fv_image *dst, const fv_params *p, double *ms);

/* -o FILE: one image; -o DIR/: every input, files and folders' images (batch_many.c) */
int batch_main(const cli_options *o);
/* --noise on a loaded source (host): every batch path applies it before filtering */
fv_status source_with_noise(const cli_options *o, fv_image *src);
int batch_many_main(const cli_options *o);
int compare_main(const cli_options *o);
int info_main(void);

/* "sigma 1, radius 2, 3 iterations" for messages and file names */
void describe_params(const fv_filter *f, const fv_params *p, char *buf, size_t size);

#endif
