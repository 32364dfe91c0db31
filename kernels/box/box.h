/* ------------------------------------------------------------------------------------------------
 * kernels/box/box.h: what the box (mean) filter's reference and kernels share: its parameter table
 * index, its limits, and the exact integer division every variant rounds with.
 *
 * Each output channel is (sum + area / 2) / area over the (2r+1)^2 window with replicated
 * borders, in integers. With n = sum + area / 2 < 2^25 (255 * 257^2 + area / 2), l =
 * ceil(log2(area)) and magic = ceil(2^(31+l) / area) < 2^32, the high word of n * magic shifted
 * right by l - 1 equals n / area for every such n: the error n * (magic * area - 2^(31+l)) /
 * (area * 2^(31+l)) stays below n / 2^(31+l) < 1 / area (Granlund and Montgomery, "Division by
 * invariant integers using multiplication", 1994). One 32-bit high multiply (__umulhi) and a
 * shift instead of a division, exact (checked at every multiple boundary by tests/cpu/test_box_ref.c).
 * A vertical or horizontal window sum of one channel is at most 257 * 255 = 65535: it fits a
 * 16-bit lane, so two channels can share one 32-bit register.
 * uint16 rounds the same way; its window sum reaches 257^2 * 65535 = 4328521215, 33 bits at radius
 * 128 (32 up to radius 127), so its 2-D sums are 64-bit and divide by box_quotient_wide. A
 * column or row sum alone (at most 257 * 65535) fits 32 bits. float32 is the mean in float (the
 * reference in double), not rounded.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_BOX_H
#define FV_BOX_H

#include "filter.h"

#ifdef __CUDACC__
#define FV_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define FV_HOST_DEVICE static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* indices in the box filter's parameter table (border and cval: FV_PARAM_BORDER_ROWS) */
enum { BOX_RADIUS, BOX_BORDER, BOX_CVAL, BOX_N_PARAMS };
#define FV_BOX_MAX_RADIUS 128
#define FV_BOX_SUM_BITS   25 /* every window sum (+ area / 2) is below 2^25 */

typedef struct box_divider {
    uint32_t area, half; /* (2r+1)^2 and area / 2 */
    uint32_t magic;      /* ceil(2^(31+l) / area), l = ceil(log2(area)) */
    uint32_t shift;      /* l - 1 */
    uint64_t bias;       /* half * magic: the rounding folded into the multiply */
    uint32_t magic_hi;   /* ceil(2^32 / area) where box_quotient_hi divides with it; else 0 */
    uint64_t magic_wide; /* ceil(2^64 / area): box_quotient_wide's */
} box_divider;

FV_HOST_DEVICE box_divider box_divider_make(int radius)
{
    box_divider d;
    d.area = (uint32_t)(2 * radius + 1) * (uint32_t)(2 * radius + 1);
    d.half = d.area / 2;
    uint32_t l = 0;
    while ((1u << l) < d.area) l++;
    d.shift = l - 1;
    d.magic = (uint32_t)((((uint64_t)1 << (31 + l)) + d.area - 1) / d.area);
    d.bias = (uint64_t)d.half * d.magic;
    /* box_quotient_hi's bound: n e < 2^32 for the largest n, 255 area + area / 2 */
    const uint64_t magic_hi = (((uint64_t)1 << 32) + d.area - 1) / d.area;
    const uint64_t excess = magic_hi * d.area - ((uint64_t)1 << 32);
    d.magic_hi =
        (255 * (uint64_t)d.area + d.half) * excess < ((uint64_t)1 << 32) ? (uint32_t)magic_hi : 0;
    d.magic_wide = UINT64_MAX / d.area + 1; /* the area is odd, never a power of two */
    return d;
}

/* The box's typed configuration, made once at prepare by box_config_make (box_ref.c): what the
 * reference, every GPU variant, the peer and the reach read. */
typedef struct box_config {
    int radius; /* 1..FV_BOX_MAX_RADIUS: its row's range, checked before the configuration */
    fv_border border;
    double cval; /* the constant border's value, in the image's units */
    fv_pixel_type type;
} box_config;

/* The box's fv_filter.config_make: no rule between its parameters beyond their ranges. */
int box_config_make(const fv_params *p, void *config, char *why, size_t why_size);

FV_HOST_DEVICE uint32_t box_mean(uint32_t sum, box_divider d)
{
    return (uint32_t)(((uint64_t)sum * d.magic + d.bias) >> 32) >> d.shift;
}

/* the high word of a * b (on the GPU one IMAD.HI, where the 64-bit product and its shift took 3) */
FV_HOST_DEVICE uint32_t box_mul_hi(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    return __umulhi(a, b);
#else
    return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

/* n / area for n = sum + area / 2 < 2^25 (the rounding already added, as the `fast` variant adds
 * it for free to a difference of prefixes): the high word of n * magic, shifted */
FV_HOST_DEVICE uint32_t box_quotient(uint32_t n, box_divider d)
{
    return box_mul_hi(n, d.magic) >> d.shift;
}

/* n / area for n = a window sum plus area / 2 (at most 255 area + area / 2 < 256 area), at the
 * radii where d.magic_hi is not 0: the high word of n * ceil(2^32 / area), no shift. With
 * magic_hi * area = 2^32 + e, e < area, n * magic_hi / 2^32 = n / area + n e / (area 2^32), and
 * n e < 2^32 keeps the excess below 1 / area: the floor is n / area's. box_divider_make sets
 * magic_hi where that holds for the largest n: at every radius up to 31 (n e < 256 area^2 <=
 * 256 * 63^4 < 2^32) and at 32..34, 37..41, 43, 50, 51, 56 (tests/cpu/test_box_ref.c checks every
 * such n at every such radius). */
FV_HOST_DEVICE uint32_t box_quotient_hi(uint32_t n, box_divider d)
{
    return box_mul_hi(n, d.magic_hi);
}

/* n / area for n < 2^64 / area (a uint16 window sum plus area / 2, below 2^33): the high word of
 * n * magic_wide. With magic_wide * area = 2^64 + e, 0 < e < area, n * magic_wide / 2^64 = n / area
 * + n e / (area 2^64), and n e < 2^33 * 2^17 < 2^64 keeps the excess below 1 / area: the floor is
 * n / area's (tests/cpu/test_box_types.c checks it at every multiple boundary of every radius). */
FV_HOST_DEVICE uint64_t box_quotient_wide(uint64_t n, box_divider d)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(n, d.magic_wide);
#else
    return (uint64_t)(((unsigned __int128)n * d.magic_wide) >> 64);
#endif
}

/* The `fast` variant (kernels/box/box_fast.cu): constant work per pixel whatever the radius. */
fv_status box_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst, const void *config,
                       void *state, cudaStream_t stream);
size_t box_fast_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                            int height);
fv_status box_fast_state_create(const fv_variant *v, void **state, const fv_params *p,
                                const void *config, int width, int height);
void box_fast_state_destroy(const fv_variant *v, void *state);
int box_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                     fv_kernel_info *out, int max);
extern const char box_fast_summary[];

/* What `fast` runs (kernels/box/box_generic.cu): box_fast's kernels for uint8 with the replicate
 * border, the generic two-pass kernels for every other type and border. */
fv_status box_fastest_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream);
size_t box_fastest_state_bytes(const fv_variant *v, const fv_params *p, const void *config,
                               int width, int height);
fv_status box_fastest_state_create(const fv_variant *v, void **state, const fv_params *p,
                                   const void *config, int width, int height);
void box_fastest_state_destroy(const fv_variant *v, void *state);
int box_fastest_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max);

/* The reference (kernels/box/box_ref.c): separable exact sums, then the rounded mean. */
fv_status box_ref(const fv_image *src, fv_image *dst, const void *config); /* a box_config */

#ifdef __cplusplus
}
#endif
#endif
