/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_fast_plan.h: the plan of the box filter's `fast` variant (kernels/box/box_fast.cu),
 * private to those two files: the block shape and radius limits its kernels are built for, and
 * how an image is cut for a radius: groups of warps summing strips of columns, bands of rows,
 * the prefix mode, whether band totals are summed first (kernels/box/box_fast_plan.c, plain C:
 * it only computes numbers; which kernel binary that means is box_fast.cu's choice).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BOX_FAST_PLAN_H
#define FV_BOX_FAST_PLAN_H

#include "filter.h"

#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define THREADS            256 /* threads per block */
#define COLUMNS_PER_THREAD 4   /* adjacent columns each thread sums (one 16-byte load) */
#define WARPS              (THREADS / 32)
#ifndef BLOCKS_WANTED
#define BLOCKS_WANTED 512 /* enough blocks for 3 or 4 per SM on a 132-SM GPU */
#endif
#ifndef SMALL_GROUP_MAX_RADIUS
#define SMALL_GROUP_MAX_RADIUS 20 /* up to here a warp alone sums 128 columns (no barriers) */
#endif
#define QUAD_WARPS        4  /* groups of 4 warps (512 columns, a named barrier) ... */
#define QUAD_MIN_RADIUS   10 /* ... serve this range on large images (box_fast_geometry_make) */
#define QUAD_MAX_RADIUS   31
#define PACKED_MAX_RADIUS 7  /* up to here R and B stay packed in the row prefix too */
#define PACK21_MAX_RADIUS 44 /* up to here R, G and B share one 64-bit prefix word */
#define NEAR_MAX_RADIUS   63 /* up to here a window (<= 127 columns) crosses at most 1 warp */
enum {
    PACK16,
    PACK21,
    PLAIN_NEAR,
    PLAIN
}; /* how window sums travel through the row prefix (below) */
#ifndef BAND_TOTALS_FACTOR
#define BAND_TOTALS_FACTOR 2 /* band totals once a window is taller than this many bands */
#endif

/* which kernel a radius takes: its group size and prefix mode. From BLOCK_GROUPS_MIN_RADIUS to
 * SMALL_GROUP_MAX_RADIUS either group size may serve: warps alone on large images, whole blocks
 * (their prefixes joined as read, one barrier a row) on images too small for many waves of short
 * bands (box_fast_geometry_make): there block groups pay from radius 13 on; on large images,
 * and below radius 13, they do not (docs/perf/box.md). */
#define BLOCK_GROUPS_MIN_RADIUS 13

/* how the image is cut: groups of warps summing strips of columns, bands of rows */
typedef struct box_fast_geometry {
    int group_warps;       /* 1 (small radii) or WARPS */
    bool dense;            /* block groups of PACK21 on large images: 4 blocks a SM */
    int mode;              /* PACK16, PACK21, PLAIN_NEAR or PLAIN, by the radius */
    int outputs_per_group; /* at most 128 * group_warps - 2r - 3 (3: the 4-pixel alignment) */
    int blocks_across;
    int band_rows; /* rows each block walks */
    int bands;
    int use_band_totals; /* a window start would cost more than its band: sum bands */
    int totals_pitch;    /* columns per row of band totals (a multiple of 4) */
} box_fast_geometry;

/* Blocks of the kernel for that group size, radius and build the current GPU runs at once (0
 * where there is no device to ask): box_fast.cu asks the occupancy API for its kernel. */
typedef int (*box_fast_resident_fn)(int group_warps, int radius, bool dense);

/* 1 (a warp) up to SMALL_GROUP_MAX_RADIUS, WARPS (the block) beyond: the default group size */
int box_fast_group_warps(int radius);
/* PACK16, PACK21, PLAIN_NEAR or PLAIN, by the radius */
int box_fast_mode(int radius);
/* How the image of width x height is cut for the radius (the rules: box_fast_plan.c). */
box_fast_geometry box_fast_geometry_make(int radius, int width, int height,
                                         box_fast_resident_fn resident);
/* device bytes of the band totals that geometry needs (0 without) */
size_t box_fast_totals_bytes(const box_fast_geometry *g);

#ifdef __cplusplus
}
#endif
#endif
