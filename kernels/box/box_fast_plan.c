/* ------------------------------------------------------------------------------------------------
 * kernels/box/box_fast_plan.c: how the box filter's `fast` variant cuts an image (see
 * box_fast_plan.h): by the radius, the group size (a warp, 4 warps or the block) and the prefix
 * mode; by the image and how many blocks the GPU runs at once, the strips' widths and the bands'
 * heights, and whether a window start sums band totals first. Plain C, numbers only: the kernels
 * and the state that binds one of them are in box_fast.cu. Checked through the variant's output
 * against box_ref (tests/gpu/test_filters.c), at sizes that take each rule.
 * ------------------------------------------------------------------------------------------------ */
#include "box/box_fast_plan.h"

static int imin(int a, int b)
{
    return a < b ? a : b;
}
static int imax(int a, int b)
{
    return a > b ? a : b;
}

#define MIN_BAND_ROWS 8
#define MAX_BAND_ROWS 64
#define MANY_WAVES    4 /* a grid this many waves long takes short bands */

int box_fast_group_warps(int radius)
{
    return radius <= SMALL_GROUP_MAX_RADIUS ? 1 : WARPS;
}
int box_fast_mode(int radius)
{
    return radius <= PACKED_MAX_RADIUS   ? PACK16
           : radius <= PACK21_MAX_RADIUS ? PACK21
           : radius <= NEAR_MAX_RADIUS   ? PLAIN_NEAR
                                         : PLAIN;
}

/* Short bands' height. A band of B rows at row y0 = jB takes rows y0 + i + r + 1 in and
 * y0 + i - r out at step i; where r + 1 is a multiple kB (B = (r + 1) / k), the row leaving
 * band j is the one band j - k reads as its own row one step later, and the row entering it
 * the one band j + k reads, so vertically nearby blocks walking at about the same pace fetch
 * the same rows and L2 serves most of them. On large images the best heights measured are
 * about (r + 1) / k, at most 32 (docs/perf/box.md). Up to r = SMALL_GROUP_MAX_RADIUS (groups of
 * one warp, windows that L2 holds anyway) roundup8(r + 1), 16 to 32, the best of 16..64 there. */
static int box_fast_short_rows(int radius)
{
    if (radius <= SMALL_GROUP_MAX_RADIUS) return imin(imax((radius + 8) & ~7, 16), 32);
    const int k = (radius + 33) / 33; /* ceil((r + 1) / 33): the fewest bands per r + 1 rows */
    return imin((radius + 1) / k, 32);
}

/* Short bands' height for groups of 4 warps: r + 1 rounded up to a multiple of 4, 16 to 32 rows,
 * of 16, 20, 24, 28 and 32-row bands the best at every radius 8..31 on large images: r + 1 to
 * r + 5 from radius 16, 16 below (docs/perf/box.md). */
static int box_fast_quad_rows(int radius)
{
    return imin(imax((radius + 4) & ~3, 16), 32);
}

/* blocks in a grid of the strips of g and bands of band_rows rows */
static long long box_fast_grid_blocks(const box_fast_geometry *g, int band_rows, int height)
{
    return (long long)g->blocks_across * ((height + band_rows - 1) / band_rows);
}

/* the strips of groups of that size: outputs per group, blocks across the image */
static void box_fast_strips(box_fast_geometry *g, int group_warps, int radius, int width)
{
    g->group_warps = group_warps;
    g->outputs_per_group = 32 * COLUMNS_PER_THREAD * group_warps - 2 * radius - 3;
    const int per_block = g->outputs_per_group * (WARPS / group_warps);
    g->blocks_across = (width + per_block - 1) / per_block;
}

box_fast_geometry box_fast_geometry_make(int radius, int width, int height,
                                         box_fast_resident_fn resident_blocks)
{
    box_fast_geometry g;
    g.mode = box_fast_mode(radius);
    box_fast_strips(&g, box_fast_group_warps(radius), radius, width);
    int short_rows = box_fast_short_rows(radius);
    g.dense = false;
    int resident = resident_blocks(g.group_warps, radius, false);
    /* Groups of 4 warps on large images (where their short bands make MANY_WAVES waves) from
     * radius 10 to 31: a quarter of the overlap of warp groups, and the barrier of 4 warps alone.
     * They beat warp groups and block groups in that range on large images only; below radius
     * 10, above 31 and where they would not take short bands they did not pay (docs/perf/box.md). */
    if (radius >= QUAD_MIN_RADIUS && radius <= QUAD_MAX_RADIUS) {
        box_fast_geometry quad = g;
        box_fast_strips(&quad, QUAD_WARPS, radius, width);
        const int quad_resident = resident_blocks(QUAD_WARPS, radius, false),
                  quad_rows = box_fast_quad_rows(radius);
        if (quad_resident > 0 && box_fast_grid_blocks(&quad, quad_rows, height) >=
                                     (long long)MANY_WAVES * quad_resident) {
            g = quad;
            short_rows = quad_rows;
            resident = quad_resident;
        }
    }
    if (g.group_warps == 1 && radius >= BLOCK_GROUPS_MIN_RADIUS && resident > 0 &&
        box_fast_grid_blocks(&g, short_rows, height) < (long long)MANY_WAVES * resident) {
        box_fast_strips(&g, WARPS, radius, width); /* a small image: block groups */
        resident = resident_blocks(g.group_warps, radius, false);
    }
    /* Block groups of PACK21 on large images (short bands, below) take the kernel compiled for 4
     * blocks a SM (64 registers, a few spilled); where the grid is a wave or two it is no faster,
     * and the other kernels at 4 blocks a SM are no faster anywhere (docs/perf/box.md). */
    if (g.group_warps == WARPS && g.mode == PACK21 && resident > 0 &&
        box_fast_grid_blocks(&g, short_rows, height) >= (long long)MANY_WAVES * resident) {
        g.dense = true;
        resident = resident_blocks(g.group_warps, radius, true);
    }
    /* Bands, by the first of three rules that applies (each chosen by measurement; docs/perf/box.md):
     *   short       where even short bands make a grid of MANY_WAVES waves or more (large
     *               images), bands of box_fast_short_rows(r) rows, 16 to 32: blocks finish and
     *               start all the time, so window starts overlap other blocks' walks, and the
     *               rows a block fetches are the ones blocks a few bands away fetch at about the
     *               same time (below).
     *   whole waves as many blocks as the GPU runs at once, or a whole multiple of it, the fewest
     *               such waves whose bands are at most MAX_BAND_ROWS tall (no last wave of a few
     *               blocks, and the tallest bands, whose window starts cost least), unless such
     *               bands would need band totals; then bands of r + 1 rows (no totals) where
     *               they make one wave at least 7/8 full (emptier waves lost).
     *   otherwise   (and without a device to ask) the tallest power-of-two band giving
     *               BLOCKS_WANTED blocks (where it applies, faster than whole waves) */
    int chosen = 0;
    const bool many_waves = resident > 0 && box_fast_grid_blocks(&g, short_rows, height) >=
                                                (long long)MANY_WAVES * resident;
    if (many_waves) {
        g.band_rows = short_rows;
        chosen = 1;
    } else if (resident > 0) {
        for (int waves = 1;; waves++) {
            const int bands = imax(1, waves * resident / g.blocks_across);
            g.band_rows = imax((height + bands - 1) / bands, MIN_BAND_ROWS);
            if (g.band_rows <= MAX_BAND_ROWS) break;
        }
        chosen = 2 * radius + 1 <= BAND_TOTALS_FACTOR * g.band_rows;
        const long long one_row_more = box_fast_grid_blocks(&g, radius + 1, height);
        if (!chosen && one_row_more <= resident && 8 * one_row_more >= 7 * (long long)resident) {
            g.band_rows = radius + 1; /* one wave, at least 7/8 full, of bands needing no totals */
            chosen = 1;
        }
    }
    if (!chosen) {
        g.band_rows = MAX_BAND_ROWS;
        while (g.band_rows > MIN_BAND_ROWS &&
               box_fast_grid_blocks(&g, g.band_rows, height) < BLOCKS_WANTED)
            g.band_rows /= 2;
    }
    /* The image's columns spread evenly over the groups of its strips (the last no longer takes
     * what the others leave): a group writes its outputs 1 per thread a pass, so fewer outputs
     * can mean a pass fewer for every group (3840x2160 radius 7: 111 -> 96 outputs per warp, 4
     * passes -> 3), and where the grid is one wave (small images) the GPU waits for the busiest
     * groups. Not for groups smaller than a block in many waves: there the groups past the image
     * would sum columns too. */
    if (g.group_warps == WARPS || !many_waves) {
        const int groups = g.blocks_across * (WARPS / g.group_warps);
        g.outputs_per_group = (width + groups - 1) / groups;
    }
    g.bands = (height + g.band_rows - 1) / g.band_rows;
    g.use_band_totals = 2 * radius + 1 > BAND_TOTALS_FACTOR * g.band_rows;
    g.totals_pitch = (width + 3) & ~3;
    return g;
}

size_t box_fast_totals_bytes(const box_fast_geometry *g)
{
    return g->use_band_totals ? sizeof(uint2) * (size_t)g->totals_pitch * (size_t)g->bands : 0;
}
