/* ------------------------------------------------------------------------------------------------
 * viewer/modes/run.h: what the windowless modes share, below all of them: run one variant over a
 * host image, the source's noise, the parameters as words, the device-memory check of a mode's
 * own images, and the one-line failure. Every mode calls these; they call no mode.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_RUN_H
#define FV_RUN_H

#include "cli.h"
#include "image_io.h"

#include <stdio.h>

/* Runs variant v of f over host image src into host image dst (same size). GPU variants go
 * through device memory; *ms receives the filter's time (CUDA events, or the host clock). The
 * parameters are checked by the runner's prepare. */
fv_status run_variant_to_host(const fv_filter *f, const fv_variant *v, const fv_image *src,
                              fv_image *dst, const fv_params *p, double *ms);

/* A file as the filters take it, and what it was: run_load_typed reads it natively and widens it
 * to 4 channels of its own type (gray g,g,g,opaque); run_save_typed writes a 4-channel result
 * back with the file's channel count and type (or --depth's), carrying its metadata, and says a
 * lossy conversion in one line on stderr (unless quiet). */
typedef struct run_file {
    fv_pixel_type type; /* the file's, and the filters' */
    int channels;       /* the file's: 1, 3 or 4 */
    image_load_info info;
} run_file;

fv_status run_load_typed(const char *path, const image_allocator *a, fv_image *four,
                         run_file *file);
/* The same from a file already read whole (image_read_file), standard input's included. */
fv_status run_load_typed_bytes(const char *path, const uint8_t *data, size_t size,
                               const image_allocator *a, fv_image *four, run_file *file);
fv_status run_save_typed(const char *path, const fv_image *four, const run_file *file,
                         const cli_options *o, const image_save_options *opt,
                         image_save_report *report);
void run_file_free(run_file *file);
/* "uint16 gray", "uint8 RGB", "float32 RGBA" */
const char *run_layout_name(fv_pixel_type type, int channels, char *buf, size_t size);

/* Runs v over src into dst (host images, 4 channels of p->type, the same size) in tiles of
 * `tile` x `tile` pixels (0: the largest square that fits in the GPU's free memory), each read
 * with a halo of the filter's reach (fv_filter_reach) and clipped to the image, so that every
 * output pixel equals the whole image's run: at the image's edges the tile's edge is the
 * image's, and the border does what it does there. Refused where the reach is unbounded (Canny's
 * full hysteresis) or the border wraps (it reads the opposite edge). A GPU variant keeps one set
 * of device buffers; `progress` (NULL: none) gets "tile k of n" on a terminal. *ms: the filters'
 * time summed. */
fv_status run_variant_tiled(const fv_filter *f, const fv_variant *v, const fv_image *src,
                            fv_image *dst, const fv_params *p, int tile, FILE *progress,
                            double *ms);
/* The side of the largest square tile (with its halo, clipped to the image) whose buffers fit in
 * the GPU's free memory, halved from the image's longer side; 0 when not even 16 pixels fit or
 * the filter has no bounded reach. */
int run_tile_that_fits(const fv_filter *f, const fv_variant *v, const fv_params *p, int w, int h);

/* --noise on a loaded source (host): every batch path applies it before filtering */
fv_status source_with_noise(const cli_options *o, fv_image *src);

/* "sigma 1, radius 2, 3 iterations" for messages and file names */
void describe_params(const fv_filter *f, const fv_params *p, char *buf, size_t size);

/* Whether a w x h source and result, with what v's runner adds, fit in device memory ("a WxH
 * image needs ... MiB"): said before anything is allocated. */
fv_status run_check_fits(const fv_filter *f, const fv_variant *v, const fv_params *p, int w, int h);

/* Before a mode runs a GPU variant: FV_OK, or FV_ERR_NO_DEVICE with "no CUDA device: <why>
 * (<advice>)": why, in plain words (fv_device_unavailable_reason), and what this mode can do
 * without a device, which only the mode knows. */
fv_status run_device_check(const char *advice);

/* Without a CUDA device, a run that named no variant (no -v) takes the filter's reference
 * instead of the default GPU variant, as the viewer does, and says so in one line (unless -q).
 * A variant named with -v is left alone: it still fails, saying why. */
void run_default_variant(cli_options *o);

/* How -o's images are written: --png-level, --jpeg-quality, --format, --threads. */
image_save_options run_save_options(const cli_options *o);

/* The user kernels the command line names (-v user=FILE, --compare's FILTER:user=FILE sides),
 * compiled (NVRTC, or the cache) before the mode runs and pointed at by o->variant and
 * o->compare[k].variant, so that every mode runs them as any variant. A compile error is one line
 * "FILE:LINE: message"; NVRTC's warnings go to stderr unless --quiet. On a GPU each kernel first
 * runs once under compute-sanitizer's memcheck in a process of its own (kernel_host_check), and
 * an error it finds is said the same way ("FILE:LINE: writes 4 bytes out of bounds (thread
 * (x,y,z) in block (x,y,z)), found by memcheck"). The viewer compiles its own
 * panes' (it recompiles them when the file changes). */
fv_status run_user_kernels_load(cli_options *o);
/* Frees them; no runner of theirs may be prepared. */
void run_user_kernels_release(void);

/* Prints "filterview: <the last error>" and returns 1 (a runtime failure's exit status). */
int run_fail_line(void);

#endif
