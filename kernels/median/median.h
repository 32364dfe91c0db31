/* ------------------------------------------------------------------------------------------------
 * kernels/median/median.h: what the median filter's reference and kernels share: its parameter table
 * index, its limits, and the entry points that live in other files (the `fast` variant in
 * kernels/median/median_fast.cu, the border padding the NPP peer needs).
 *
 * Each output R, G and B is the median of its channel over the k x k window (k odd, 3..25)
 * around the pixel, read past the edges as the `border` parameter says (kernels/core/border.h);
 * alpha is the centre pixel's. With n = k * k values the median is the value of rank (n - 1) / 2
 * counted from 0 in ascending order: a value that is in the window, so every variant can and
 * must produce exactly the reference's bytes, in every pixel type. The order is that of the keys
 * below: the numbers' own for uint8 and uint16; for float32 IEEE's with -0 below +0 and every NaN
 * above +infinity (numpy.sort's place for NaN), so that a window of NaNs has NaN as its median
 * once they reach the median's rank.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_MEDIAN_H
#define FV_MEDIAN_H

#include "filter.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* indices in the median filter's parameter table: the size, then FV_PARAM_BORDER_ROWS */
enum { MEDIAN_SIZE, MEDIAN_BORDER, MEDIAN_CVAL, MEDIAN_N_PARAMS };
#define FV_MEDIAN_MIN_SIZE 3
#define FV_MEDIAN_MAX_SIZE 25
#define FV_MEDIAN_MAX_AREA (FV_MEDIAN_MAX_SIZE * FV_MEDIAN_MAX_SIZE)

/* ---- keys: one unsigned order for every pixel type (host and device) ---- */
#ifdef __CUDACC__
#define MEDIAN_KEY_FN static __host__ __device__ __forceinline__
#else
#define MEDIAN_KEY_FN static inline
#endif

/* The key of every NaN: that of the quiet NaN 0x7fc00000, above +infinity's 0xff800000. */
#define MEDIAN_KEY_NAN 0xffc00000u

/* A float32's bits as a key ordered like the numbers: positives get the sign bit set, negatives
 * are inverted (so -0 sorts just below +0), and every NaN, whatever its sign and payload, becomes
 * MEDIAN_KEY_NAN. uint8 and uint16 values are their own keys. */
MEDIAN_KEY_FN uint32_t median_key_of_f32(uint32_t bits)
{
    if ((bits & 0x7fffffffu) > 0x7f800000u) return MEDIAN_KEY_NAN;
    return bits & 0x80000000u ? ~bits : bits | 0x80000000u;
}

/* The float32 bits of a key (a NaN comes back as 0x7fc00000). */
MEDIAN_KEY_FN uint32_t median_f32_of_key(uint32_t key)
{
    return key & 0x80000000u ? key & 0x7fffffffu : ~key;
}

/* The key of rank `rank` among the k x k keys win[i * stride + j] (0 <= i, j < k), by a bitwise
 * binary search as the counting variants do, but only over the bits in which the keys differ and
 * only while many keys are left:
 *   - one pass ORs each key's difference from the first: every key, so the answer too, shares
 *     the first's bits above the highest difference;
 *   - then one counting pass per bit keeps the bit where at most `rank` keys lie below the
 *     candidate, and narrows the range [result, result + 2^(bit+1)) that holds the median, whose
 *     keys the counts tell (those below its end less those below its start);
 *   - once at most MEDIAN_SELECT_CAP keys are left in that range, one more pass gathers them into
 *     buf[i * buf_stride], and the remaining bits count among those alone.
 * Passes over the whole window, the first and the gathering included, on random windows 11x11 to
 * 25x25: 5 to 7 for uint16 and 7 to 10 for float32 in 0..1, where counting every differing bit
 * takes 17 and about 31. The `fast` variant's
 * selection for k >= 11 on keys (kernels/median/median_fast_keys.cu), checked on the CPU by
 * tests/cpu/test_median_ref.c. */
#define MEDIAN_SELECT_CAP 24
#ifdef __CUDA_ARCH__
#define MEDIAN_KEY_UNROLL _Pragma("unroll") /* whole rows, where the kernel's k is a constant */
#else
#define MEDIAN_KEY_UNROLL
#endif
MEDIAN_KEY_FN uint32_t median_select_keys(const uint32_t *win, int stride, int k, uint32_t rank,
                                          uint32_t *buf, int buf_stride)
{
    const uint32_t first = win[0];
    uint32_t differ = 0;
    for (int i = 0; i < k; i++) {
        MEDIAN_KEY_UNROLL
        for (int j = 0; j < k; j++) differ |= win[i * stride + j] ^ first;
    }
    if (!differ) return first;
#ifdef __CUDA_ARCH__
    int bit = 31 - __clz(differ);
#else
    int bit = 31 - __builtin_clz(differ);
#endif
    uint32_t result = first & ~(0xffffffffu >> (31 - bit));
    uint32_t lo = 0, hi = (uint32_t)(k * k); /* keys below result, below the range's end */
    for (; bit >= 0 && hi - lo > MEDIAN_SELECT_CAP; bit--) {
        const uint32_t cand = result | 1u << bit;
        uint32_t below = 0;
        for (int i = 0; i < k; i++) {
            MEDIAN_KEY_UNROLL
            for (int j = 0; j < k; j++) below += win[i * stride + j] < cand;
        }
        if (below <= rank)
            result = cand, lo = below;
        else
            hi = below;
    }
    if (bit < 0) return result;
    /* the hi - lo keys whose bits above `bit` are result's */
    const uint32_t above = ~(0xffffffffu >> (31 - bit));
    uint32_t n = 0;
    for (int i = 0; i < k; i++) {
        MEDIAN_KEY_UNROLL
        for (int j = 0; j < k; j++) {
            const uint32_t v = win[i * stride + j];
            if ((v & above) == result && n < MEDIAN_SELECT_CAP) buf[n++ * buf_stride] = v;
        }
    }
    for (; bit >= 0; bit--) {
        const uint32_t cand = result | 1u << bit;
        uint32_t below = lo;
        for (uint32_t i = 0; i < n; i++) below += buf[i * buf_stride] < cand;
        if (below <= rank) result = cand;
    }
    return result;
}

/* The key of the constant border's value cval in `type`: integers round half up and saturate (the
 * registry has already refused a cval that is not a whole number in range); float32 is cval as a
 * float. */
static inline uint32_t median_cval_key(fv_pixel_type type, double cval)
{
    if (type == FV_PIXEL_F32) {
        const float f = (float)cval;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        return median_key_of_f32(bits);
    }
    const double max = type == FV_PIXEL_U16 ? 65535.0 : 255.0;
    return cval <= 0 ? 0u : (cval >= max ? (uint32_t)max : (uint32_t)(cval + 0.5));
}

/* The median's typed configuration, made once at prepare by median_config_make
 * (kernels/median/median_ref.c): what the reference, every GPU variant (their state is a copy),
 * the peer and the reach read. The window size, the pixel type, the border and cval's key in that
 * type. */
typedef struct median_config {
    int k; /* odd, FV_MEDIAN_MIN_SIZE..FV_MEDIAN_MAX_SIZE: its row's range, checked before */
    fv_pixel_type type;
    fv_border border;
    uint32_t cval_key;
} median_config;

/* The median's fv_filter.config_make: no rule between its parameters beyond their ranges. */
int median_config_make(const fv_params *p, void *config, char *why, size_t why_size);

/* The reference (kernels/median/median_ref.c), an fv_ref_fn reading a median_config: every type
 * and border; each channel's keys ranked, then a sliding histogram of ranks along each row. */
fv_status median_ref(const fv_image *src, fv_image *dst, const void *config);

/* The `fast` variant (kernels/median/median_fast.cu). */
fv_status median_fast_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream);
int median_fast_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max);
extern const char median_fast_summary[];

/* fast's path for every case but uint8 with replicate (kernels/median/median_fast_keys.cu): the
 * window's values as keys in shared memory, pruned networks for k <= 9, a bitwise selection
 * above; and, for uint8 with k >= 11, the sliding histograms reading through the border
 * (kernels/median/median_fast.cu). */
fv_status median_fast_keys_run(const fv_image *src, fv_image *dst, const median_config *cfg,
                               cudaStream_t stream);
int median_fast_keys_kernels(const median_config *cfg, fv_kernel_info *out, int max);

#ifdef __cplusplus
}
#endif
#endif
