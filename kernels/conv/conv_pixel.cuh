/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv_pixel.cuh: what the convolution's kernels (conv.cu, conv_fft.cu) know about a
 * pixel type, in one place: conv_px<T> reads an RGBA pixel of channel type T as one `word`, sums
 * integer weights times its colour channels exactly (uint8: int32, < 2^24; uint16: uint32,
 * < 2^32) or in float, rounds and stores the result as the reference does (integers
 * (sum + 2^15) >> 16; float sum * 2^-16), and gives the FFT its channels as floats about an
 * offset (half the range: a smaller DC, a smaller float error) and takes them back (store_levels,
 * from_centred: the offset added, integers rounded half up and saturated). conv_fetch reads past the edge through kernels/core/border.h: the replicate
 * instantiation clamps (today's uint8 code), the others call fv_border_index and read cval.
 *
 * Rows need only 4-byte alignment (all the registry promises): uint16 pixels are read as two
 * 32-bit words, float32 a channel at a time.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CONV_PIXEL_CUH
#define FV_CONV_PIXEL_CUH

#include "border.h"
#include "conv.h"

template <typename T> struct conv_px;

template <> struct conv_px<uint8_t> {
    typedef uint32_t word; /* R in the low byte */
    typedef int32_t acc;
    static constexpr float offset = 128.0f;
    static constexpr int smem_band = 16; /* direct_smem: kernel rows staged at a time */
    static __device__ __forceinline__ word load(const fv_image &img, int x, int y)
    {
        return reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch)[x];
    }
    static __host__ word splat(double v)
    {
        const uint32_t c = (uint32_t)v;
        return c | c << 8 | c << 16 | c << 24;
    }
    static __device__ __forceinline__ float channel(word px, int c)
    {
        return (float)((px >> (8 * c)) & 0xffu);
    }
    static __device__ __forceinline__ void mac(acc a[3], int32_t w, word px)
    {
        a[0] += w * (int32_t)(px & 0xffu);
        a[1] += w * (int32_t)((px >> 8) & 0xffu);
        a[2] += w * (int32_t)((px >> 16) & 0xffu);
    }
    static __device__ __forceinline__ void store_sums(const fv_image &img, int x, int y,
                                                      const acc a[3], word centre)
    {
        reinterpret_cast<uint32_t *>(img.data + (size_t)y * img.pitch)[x] =
            conv_round(a[0]) | conv_round(a[1]) << 8 | conv_round(a[2]) << 16 |
            (centre & 0xff000000u);
    }
    /* an FFT result about the offset: the offset back, rounded half up, saturated */
    static __device__ __forceinline__ uint32_t level(float centred)
    {
        return (uint32_t)min(max(__float2int_rd(centred + (offset + 0.5f)), 0), 255);
    }
    static __device__ __forceinline__ uint8_t from_centred(float v) { return (uint8_t)level(v); }
    static __device__ __forceinline__ void store_levels(const fv_image &img, int x, int y, float r,
                                                        float g, float b, word centre)
    {
        reinterpret_cast<uint32_t *>(img.data + (size_t)y * img.pitch)[x] =
            level(r) | level(g) << 8 | level(b) << 16 | (centre & 0xff000000u);
    }
    /* a display level 0..255 (kernel and spectrum stages) into channel c */
    static __device__ __forceinline__ void store_display(const fv_image &img, int x, int y, int c,
                                                         uint32_t v)
    {
        img.data[(size_t)y * img.pitch + 4 * (size_t)x + c] = (uint8_t)v;
    }
};

template <> struct conv_px<uint16_t> {
    typedef uint2 word; /* .x = R | G << 16, .y = B | A << 16 */
    typedef uint32_t acc;
    static constexpr float offset = 32768.0f;
    static constexpr int smem_band = 7; /* 8-byte pixels: (32 + 6) x 158 x 8 bytes fit 48 KiB */
    static __device__ __forceinline__ word load(const fv_image &img, int x, int y)
    {
        const uint32_t *p = reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch);
        return make_uint2(p[2 * x], p[2 * x + 1]);
    }
    static __host__ word splat(double v)
    {
        const uint32_t c = (uint32_t)v;
        return make_uint2(c | c << 16, c | c << 16);
    }
    static __device__ __forceinline__ float channel(word px, int c)
    {
        const uint32_t w = c < 2 ? px.x : px.y;
        return (float)((c & 1) ? w >> 16 : w & 0xffffu);
    }
    static __device__ __forceinline__ void mac(acc a[3], int32_t w, word px)
    {
        a[0] += (uint32_t)w * (px.x & 0xffffu);
        a[1] += (uint32_t)w * (px.x >> 16);
        a[2] += (uint32_t)w * (px.y & 0xffffu);
    }
    static __device__ __forceinline__ uint32_t round(acc a)
    {
        return (a + (1u << (FV_CONV_WEIGHT_SHIFT - 1))) >> FV_CONV_WEIGHT_SHIFT;
    }
    static __device__ __forceinline__ void put(const fv_image &img, int x, int y, uint32_t r,
                                               uint32_t g, uint32_t b, word centre)
    {
        uint32_t *p = reinterpret_cast<uint32_t *>(img.data + (size_t)y * img.pitch);
        p[2 * x] = r | g << 16;
        p[2 * x + 1] = b | (centre.y & 0xffff0000u);
    }
    static __device__ __forceinline__ void store_sums(const fv_image &img, int x, int y,
                                                      const acc a[3], word centre)
    {
        put(img, x, y, round(a[0]), round(a[1]), round(a[2]), centre);
    }
    static __device__ __forceinline__ uint32_t level(float centred)
    {
        return (uint32_t)min(max(__float2int_rd(centred + (offset + 0.5f)), 0), 65535);
    }
    static __device__ __forceinline__ uint16_t from_centred(float v) { return (uint16_t)level(v); }
    static __device__ __forceinline__ void store_levels(const fv_image &img, int x, int y, float r,
                                                        float g, float b, word centre)
    {
        put(img, x, y, level(r), level(g), level(b), centre);
    }
    static __device__ __forceinline__ void store_display(const fv_image &img, int x, int y, int c,
                                                         uint32_t v)
    {
        reinterpret_cast<uint16_t *>(img.data + (size_t)y * img.pitch)[4 * x + c] =
            (uint16_t)(257u * v);
    }
};

template <> struct conv_px<float> {
    typedef float4 word;
    typedef float acc;
    static constexpr float offset = 0.5f;
    static constexpr int smem_band = 0; /* not staged: direct_smem runs the integer types */
    static __device__ __forceinline__ word load(const fv_image &img, int x, int y)
    {
        const float *p = reinterpret_cast<const float *>(img.data + (size_t)y * img.pitch) + 4 * x;
        return make_float4(p[0], p[1], p[2], p[3]);
    }
    static __host__ word splat(double v)
    {
        const float c = (float)v;
        return make_float4(c, c, c, c);
    }
    static __device__ __forceinline__ float channel(word px, int c)
    {
        return c == 0 ? px.x : (c == 1 ? px.y : (c == 2 ? px.z : px.w));
    }
    /* A zero weight reads nothing, as in the reference: a NaN under it is not seen. */
    static __device__ __forceinline__ void mac(acc a[3], int32_t w, word px)
    {
        if (!w) return;
        const float f = (float)w; /* exact: w <= 2^16 */
        a[0] += f * px.x;
        a[1] += f * px.y;
        a[2] += f * px.z;
    }
    static __device__ __forceinline__ void put(const fv_image &img, int x, int y, float r, float g,
                                               float b, word centre)
    {
        float *p = reinterpret_cast<float *>(img.data + (size_t)y * img.pitch) + 4 * x;
        p[0] = r;
        p[1] = g;
        p[2] = b;
        p[3] = centre.w;
    }
    static __device__ __forceinline__ void store_sums(const fv_image &img, int x, int y,
                                                      const acc a[3], word centre)
    {
        const float s = 1.0f / FV_CONV_WEIGHT_SUM; /* a power of two: exact */
        put(img, x, y, a[0] * s, a[1] * s, a[2] * s, centre);
    }
    static __device__ __forceinline__ float from_centred(float v) { return v + offset; }
    static __device__ __forceinline__ void store_levels(const fv_image &img, int x, int y, float r,
                                                        float g, float b, word centre)
    {
        put(img, x, y, r + offset, g + offset, b + offset, centre);
    }
    static __device__ __forceinline__ void store_display(const fv_image &img, int x, int y, int c,
                                                         uint32_t v)
    {
        reinterpret_cast<float *>(img.data + (size_t)y * img.pitch)[4 * x + c] = v / 255.0f;
    }
};

/* What a kernel reads past the edge: the mode and the constant as a pixel word. */
template <typename T> struct conv_edge {
    fv_border mode;
    typename conv_px<T>::word cval;
};

template <typename T> static conv_edge<T> conv_edge_of(const conv_border &b)
{
    conv_edge<T> e;
    e.mode = b.mode;
    e.cval = conv_px<T>::splat(b.cval);
    return e;
}

/* Pixel (x, y), any integers, extended by the border. Rep: replicate by clamping, no branch. */
template <typename T, bool Rep>
__device__ __forceinline__ typename conv_px<T>::word conv_fetch(const fv_image &img, int x, int y,
                                                                const conv_edge<T> &e)
{
    if (Rep)
        return conv_px<T>::load(img, conv_clamp(x, img.width - 1), conv_clamp(y, img.height - 1));
    const int xx = fv_border_index(x, img.width, e.mode),
              yy = fv_border_index(y, img.height, e.mode);
    return xx < 0 || yy < 0 ? e.cval : conv_px<T>::load(img, xx, yy);
}

#endif
