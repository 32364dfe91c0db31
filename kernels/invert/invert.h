/* kernels/invert/invert.h: the invert filter's reference (kernels/invert/invert_ref.c), shared with its kernels. */
#ifndef FV_INVERT_H
#define FV_INVERT_H

#include "filter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Invert's typed configuration: it has no parameters, only the pixel type it was prepared for. */
typedef struct invert_config {
    fv_pixel_type type;
} invert_config;

/* Its fv_filter.config_make: nothing to refuse. */
int invert_config_make(const fv_params *p, void *config, char *why, size_t why_size);
/* The reference, an fv_ref_fn: `config` is an invert_config. */
fv_status invert_ref(const fv_image *src, fv_image *dst, const void *config);

#ifdef __cplusplus
}
#endif
#endif
