/* ------------------------------------------------------------------------------------------------
 * viewer/image_io.h: reading images (anything stb_image reads) as RGBA8, and writing PNGs
 * atomically (temporary name + rename, so a failure never leaves half a file).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_IMAGE_IO_H
#define FV_IMAGE_IO_H

#include "filter.h"

/* Loads `path` into a new host image (free with fv_host_image_free). Checks the file and the
 * dimensions before decoding; every failure returns a status with a one-line message. */
fv_status image_load(const char *path, fv_image *out);

/* Checks that `path` names a .png in a writable place without writing anything. */
fv_status image_check_output_path(const char *path);

/* Writes img as PNG to `path` via `path.tmp-PID` and rename(). */
fv_status image_save_png(const char *path, const fv_image *img);

#endif
