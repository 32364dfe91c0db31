/* ------------------------------------------------------------------------------------------------
 * kernels/core/noise.h: noise on the source image, the same on the CPU and the GPU.
 *
 * Salt-and-pepper: a share `density` (0..0.5) of the pixels becomes black or white (R, G and B
 * together, half of each on average). Gaussian: every R, G and B gets an added zero-mean
 * deviation of standard deviation `sigma` grey levels, rounded and clamped to 0..255. Both may be
 * on at once (Gaussian first, then salt-and-pepper); alpha is never touched.
 *
 * Every draw is a hash of (x, y, seed, stream), not a sequential generator, so a pixel's noise
 * does not depend on the order pixels are visited, and the host and the device compute it with
 * the one function below (fv_noise_pixel, FV_HOST_DEVICE) in integers only: probabilities and the
 * Gaussian's scale are turned into integers once, on the host (fv_noise_prepare), so the CPU and
 * the GPU make the same noisy image bit for bit. The Gaussian deviation is the sum of four
 * uniform 16-bit draws (Irwin-Hall), centred and scaled: close to a normal distribution and
 * bounded at +-3.46 sigma.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_NOISE_H
#define FV_NOISE_H

#include "filter.h"

#ifndef FV_HOST_DEVICE
#ifdef __CUDACC__
#define FV_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define FV_HOST_DEVICE static inline
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define FV_NOISE_MAX_DENSITY 0.5
#define FV_NOISE_MAX_SIGMA   128.0

typedef struct fv_noise {
    double density; /* salt-and-pepper: share of pixels hit, 0..0.5 (0 = none) */
    double sigma;   /* Gaussian: standard deviation in grey levels, 0..128 (0 = none) */
    uint32_t seed;
} fv_noise;

/* The integer form both sides use. */
typedef struct fv_noise_q {
    uint32_t threshold; /* a pixel is hit when its hash < threshold = density * 2^32 */
    uint32_t scale;     /* Gaussian deviation = (centred sum * scale) / 2^32, rounded; 0 = none */
    uint32_t seed;
} fv_noise_q;

/* The sum of four uniform 16-bit draws has variance 4 * (2^32 - 1) / 12 = (2^32 - 1) / 3. */
#define FV_NOISE_SUM_STD 37837.2274 /* sqrt((2^32 - 1) / 3) */

/* murmur3's 32-bit finaliser: every input bit flips about half of the output bits */
FV_HOST_DEVICE uint32_t fv_noise_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* An independent 32-bit draw for each (x, y, seed, stream). */
FV_HOST_DEVICE uint32_t fv_noise_hash(uint32_t x, uint32_t y, uint32_t seed, uint32_t stream)
{
    uint32_t h = fv_noise_mix(seed ^ 0x9e3779b9u);
    h = fv_noise_mix(h ^ x);
    h = fv_noise_mix((h + 0x632be5abu) ^ y);
    return fv_noise_mix(h + stream * 0x7f4a7c15u);
}

FV_HOST_DEVICE uint32_t fv_noise_clamp_byte(int32_t v)
{
    return v < 0 ? 0u : (v > 255 ? 255u : (uint32_t)v);
}

/* The noisy version of pixel `px` (RGBA8 as a little-endian word) at (x, y). */
FV_HOST_DEVICE uint32_t fv_noise_pixel(uint32_t px, int x, int y, fv_noise_q q)
{
    const uint32_t ux = (uint32_t)x, uy = (uint32_t)y;
    if (q.scale) {
        uint32_t out = px & 0xff000000u;
        for (uint32_t c = 0; c < 3; c++) {
            const uint32_t a = fv_noise_hash(ux, uy, q.seed, 2 + 2 * c);
            const uint32_t b = fv_noise_hash(ux, uy, q.seed, 3 + 2 * c);
            /* four 16-bit uniforms, centred: -131070..131070 */
            const int32_t sum =
                (int32_t)((a & 0xffffu) + (a >> 16) + (b & 0xffffu) + (b >> 16)) - 131070;
            const int64_t scaled = (int64_t)sum * (int64_t)q.scale;
            const int32_t dev = (int32_t)((scaled + ((int64_t)1 << 31)) >> 32); /* rounded */
            const int32_t v = (int32_t)((px >> (8 * c)) & 0xffu) + dev;
            out |= fv_noise_clamp_byte(v) << (8 * c);
        }
        px = out;
    }
    if (q.threshold && fv_noise_hash(ux, uy, q.seed, 0) < q.threshold)
        px = (px & 0xff000000u) | ((fv_noise_hash(ux, uy, q.seed, 1) & 1u) ? 0x00ffffffu : 0u);
    return px;
}

/* Checks the ranges (FV_ERR_ARG with a message) and fills q. */
fv_status fv_noise_prepare(const fv_noise *noise, fv_noise_q *q);
/* 1 when the noise changes anything (density or sigma above 0). */
int fv_noise_is_on(const fv_noise *noise);
/* In place, on a host image. */
fv_status fv_noise_apply_host(fv_image *img, const fv_noise *noise);
/* dst = src with noise, on the device (src and dst same size; they may be the same image).
 * Enqueued on `stream`. */
fv_status fv_noise_apply(const fv_image *src, fv_image *dst, const fv_noise *noise,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
