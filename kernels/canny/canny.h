/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny.h: what the Canny edge detector's reference (kernels/canny/canny_ref.c) and kernels
 * (kernels/canny/canny.cu) share: the parameter table's indices, the parameters resolved into integers,
 * and every per-pixel formula as one inline function compiled for host and device alike, so that
 * each stage of each variant equals the reference's bytes.
 *
 * The pipeline, integers throughout:
 *   gray       OpenCV's cvtColor(RGB2GRAY) for 8 bits: (9798 R + 19235 G + 3735 B + 2^14) >> 15
 *   blur       the Gaussian family's integer taps (kernels/gaussian/gaussian_taps.h, radius ceil(3 sigma)),
 *              rows then columns without rounding in between, (sum + 2^15) >> 16; sigma 0 = off
 *   gradient   3x3 Sobel, replicated borders; magnitude |dx| + |dy| (l1) or dx^2 + dy^2 (l2,
 *              squared as cv2.Canny compares it); direction one of 4 sectors by cv2.Canny's exact
 *              integer test: |dy| 2^15 < 13573 |dx| (tan 22.5 degrees as 13573 / 2^15) and so on
 *   nms        a pixel is kept when its magnitude beats both neighbours across its sector (strictly
 *              the left / upper one, >= the other; strictly both on diagonals; 0 outside the image)
 *   thresholds kept pixels with magnitude > low are weak, > high strong (l2: > low^2, > high^2);
 *              low > high are swapped; `auto`: low = min + range / 100, high = min + range / 5
 *              from the smallest and largest kept magnitude (l2: its integer square root)
 *   hysteresis a weak pixel is an edge when a chain of weak pixels (8-connected) joins it to a
 *              strong one: `full` whatever the chain's length; with `sweeps` N > 0 only when the
 *              chain is at most N steps long (what N sweeps of growth reach); `one-pass` = 1 step
 * Every stage is shown as RGBA8, alpha 255 (see canny_display_* below).
 *
 * uint16 and float32 (and any border) take the same pipeline in their own units, integers exact
 * and float32 in IEEE single with a fixed order of operations (the reference, canny_ref.c, rounds
 * each operation to float the same way, so every variant equals it bit for bit): gray with the
 * same weights (float32: ((9798 R + 19235 G) + 3735 B) / 2^15), the blur's rows then columns in
 * order, (sum + 2^15) >> 16 for integers and sum / 2^16 for float, Sobel in the order written in
 * canny_ref.c, the sector test exact (integers in 64 bits, float32 in double), thresholds in the
 * image's units. The stages are shown in the image's type: gray, blur and half the magnitude
 * (integers rounded down and saturated, float32 not clamped), strong white = the type's maximum,
 * weak amber (max, 160/255 max, 0), edges 0 or the maximum (float32: 1). docs/design/canny.md.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CANNY_H
#define FV_CANNY_H

#include "filter.h"
#include "gaussian/gaussian_taps.h"

#include <math.h>

#ifdef __CUDACC__
#define CANNY_HD __host__ __device__ __forceinline__
#else
#define CANNY_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* indices in the Canny filter's parameter table */
enum {
    CANNY_STAGE,
    CANNY_SIGMA,
    CANNY_NORM,
    CANNY_LOW,
    CANNY_HIGH,
    CANNY_THRESHOLDS,
    CANNY_HYSTERESIS,
    CANNY_SWEEPS,
    CANNY_BORDER, /* FV_PARAM_BORDER_ROWS: of the blur and the Sobel */
    CANNY_CVAL,
    CANNY_N_PARAMS
};
/* the values of `stage`, in pipeline order */
enum {
    CANNY_GRAY,
    CANNY_BLUR,
    CANNY_MAGNITUDE,
    CANNY_DIRECTION,
    CANNY_NMS,
    CANNY_THRESHOLD_MAP,
    CANNY_EDGES,
    CANNY_N_STAGES
};

#define FV_CANNY_MAX_SIGMA         4.0 /* radius ceil(3 sigma) <= 12 */
#define FV_CANNY_MAX_RADIUS        12
#define FV_CANNY_MAX_THRESHOLD     2040   /* uint8: the largest l1 magnitude, 8 * 255 */
#define FV_CANNY_MAX_THRESHOLD_ANY 524280 /* uint16: 8 * 65535; float32 is refused no value */
#define FV_CANNY_DEFAULT_LOW       50     /* levels of 255: threshold 0 means these, scaled */
#define FV_CANNY_DEFAULT_HIGH      150    /* to the type's range (uint16 x 257, float32 / 255) */
#define FV_CANNY_MAX_SWEEPS        10000
#define CANNY_TG22                 13573 /* tan(22.5 degrees) * 2^15, rounded: cv2.Canny's */
#define CANNY_SHIFT                15

/* Hysteresis labels (uint16): 0 = strong; a weak pixel holds an upper bound of its chain length
 * to a strong pixel, capped at `cap` (not joined); CANNY_NONE = neither weak nor strong. */
#define CANNY_NONE 0xffffu

/* The parameters resolved into what the kernels use. */
typedef struct canny_config {
    int stage;
    int radius; /* 0: no blur */
    int w[2 * FV_CANNY_MAX_RADIUS + 1];
    int l2;
    int auto_thresholds;
    int low, high; /* uint8 (and the NPP peer): the manual thresholds floored, low <= high */
    int inc, cap;  /* hysteresis: label step per pixel, cap; edge = label < cap */
    fv_pixel_type type;
    fv_border border; /* of the blur's and the Sobel's reads */
    double cval;      /* in the image's units */
    /* the values a magnitude is compared with (manual thresholds; l2: the squares, as the l2
     * magnitude is kept squared): integer types floor(t) or floor(t^2), as cv2.Canny floors;
     * float32 t or t^2 rounded to float */
    double lowc, highc;
    int one_pass; /* hysteresis 1: one look at the neighbours' classes, not chains of any length */
} canny_config;

/* Checks p (its thresholds against p->type's range) and fills c; messages name `who`
 * ("canny/smem"). A threshold of 0 is the type's default (FV_CANNY_DEFAULT_LOW and _HIGH). */
fv_status canny_config_fill(const fv_params *p, const char *who, canny_config *c);
/* Canny's fv_filter.config_make: canny_config_fill's refusals (thresholds beyond the type's
 * range, a sigma whose radius is too wide) with their reason in `why`; made once at prepare, what
 * the reference, every variant's state, the peer, kernels() and reach read. */
int canny_config_make(const fv_params *p, void *config, char *why, size_t why_size);
/* 0 thresholds shown as the type's defaults. */
void canny_resolve(fv_params *p);
/* The default threshold of `type` for levels of 255 (50 -> 50, 12850, 50/255). */
double canny_default_threshold(fv_pixel_type type, int levels);
/* The reference, an fv_ref_fn reading a canny_config. */
fv_status canny_ref(const fv_image *src, fv_image *dst, const void *config);
extern const char *const canny_stage_names[CANNY_N_STAGES];

/* ---- per-pixel formulas, the same code on host and device ---- */
CANNY_HD int canny_clamp(int v, int hi)
{
    return v < 0 ? 0 : (v > hi ? hi : v);
}

/* px: little-endian RGBA8 (R in the low byte) */
CANNY_HD int canny_gray(uint32_t px)
{
    return (int)(((px & 0xffu) * 9798u + ((px >> 8) & 0xffu) * 19235u +
                  ((px >> 16) & 0xffu) * 3735u + (1u << 14)) >>
                 15);
}

/* the blur's rounding of a 2-D sum of weights 65536 */
CANNY_HD int canny_blur_round(int sum)
{
    return (sum + 32768) >> 16;
}

CANNY_HD int canny_magnitude(int dx, int dy, int l2)
{
    return l2 ? dx * dx + dy * dy : (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy);
}

/* 0: gradient across columns (compare left, right), 1: across rows (up, down), 2: along the
 * diagonal where dx and dy share a sign (up-left, down-right), 3: the other (up-right, down-left) */
CANNY_HD int canny_sector(int dx, int dy)
{
    const int ax = dx < 0 ? -dx : dx, ay = (dy < 0 ? -dy : dy) << CANNY_SHIFT;
    const int tg22x = ax * CANNY_TG22;
    if (ay < tg22x) return 0;
    if (ay > tg22x + (ax << (CANNY_SHIFT + 1))) return 1;
    return (dx ^ dy) < 0 ? 3 : 2;
}

/* offsets of the neighbour compared strictly (a) and of the other (b) */
CANNY_HD void canny_neighbours(int sector, int *ax, int *ay, int *bx, int *by)
{
    *ax = sector == 1 ? 0 : (sector == 3 ? 1 : -1);
    *ay = sector == 0 ? 0 : -1;
    *bx = -*ax;
    *by = -*ay;
}

CANNY_HD int canny_nms_keeps(int sector, int m, int ma, int mb)
{
    return m > ma && (sector < 2 ? m >= mb : m > mb);
}

/* the largest r with r * r <= v (v < 2^22 here: float's first guess is within one) */
CANNY_HD int canny_isqrt(int v)
{
    int r = (int)sqrtf((float)v);
    while (r > 0 && r * r > v) r--;
    while ((r + 1) * (r + 1) <= v) r++;
    return r;
}

/* auto thresholds from the smallest and largest kept magnitude on the magnitude scale */
CANNY_HD void canny_auto_thresholds(int min_mag, int max_mag, int *low, int *high)
{
    const int range = max_mag - min_mag;
    *low = min_mag + range / 100;
    *high = min_mag + range / 5;
}

/* the value compared with a magnitude for threshold t */
CANNY_HD int canny_threshold_value(int t, int l2)
{
    return l2 ? t * t : t;
}

CANNY_HD uint32_t canny_rgba(int r, int g, int b)
{
    return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | 0xff000000u;
}

CANNY_HD uint32_t canny_display_gray(int v)
{
    return canny_rgba(v, v, v);
}

/* magnitude on a fixed scale: half the magnitude (l2: its square root), at most 255 */
CANNY_HD int canny_magnitude_shown(int m, int l2)
{
    const int v = (l2 ? canny_isqrt(m) : m) >> 1;
    return v > 255 ? 255 : v;
}

/* sector as a hue (red across columns, green across rows, blue and yellow the diagonals),
 * brightness by the shown magnitude */
CANNY_HD uint32_t canny_display_direction(int sector, int m, int l2)
{
    const int v = canny_magnitude_shown(m, l2);
    return canny_rgba(sector == 0 || sector == 3 ? v : 0, sector == 1 || sector == 3 ? v : 0,
                      sector == 2 ? v : 0);
}

/* label after classification: strong white, weak amber, the rest black */
CANNY_HD uint32_t canny_display_threshold(unsigned label)
{
    return label == 0 ? canny_rgba(255, 255, 255)
                      : (label == CANNY_NONE ? canny_rgba(0, 0, 0) : canny_rgba(255, 160, 0));
}

CANNY_HD uint32_t canny_display_edge(unsigned label, int cap)
{
    return canny_display_gray(label < (unsigned)cap ? 255 : 0);
}

/* the label a kept pixel of magnitude m starts hysteresis with (lowc, highc: compared values) */
CANNY_HD unsigned canny_classify(int keep, int m, int lowc, int highc, int cap)
{
    if (!keep || m <= lowc) return CANNY_NONE;
    return m > highc ? 0u : (unsigned)cap;
}

/* one relaxation step of a weak pixel: its label and the least of its 8 neighbours' */
CANNY_HD unsigned canny_relax(unsigned label, unsigned least, int inc)
{
    if (label == CANNY_NONE || label == 0) return label;
    const unsigned via = least + (unsigned)inc;
    return via < label ? via : label;
}

#ifdef __cplusplus
}
#endif
#endif
