/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_internal.h: what the Canny edge detector's CUDA files share (private to
 * kernels/canny/): block and tile shapes, the state made at prepare (the intermediates of one image
 * size), the arguments every kernel takes, and the few host and device helpers more than one file
 * uses. The per-pixel formulas both the reference and the kernels use are in canny.h.
 * Relocatable device code is off: a kernel is launched from another file only through its host
 * stub (declared here); device functions stay in the file that calls them, or here, inline.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CANNY_INTERNAL_H
#define FV_CANNY_INTERNAL_H

#include "canny.h"
#include "canny_gpu.h"

#define PIXEL_BLOCK_X         32 /* per-pixel kernels: 32x8 threads, one pixel each */
#define PIXEL_BLOCK_Y         8
#define TILE_W                32 /* smem: 32x16 output tiles, 256 threads (2 each) */
#define TILE_H                16
#define TILE_THREADS          256
#define APRON                 2 /* Sobel (1) and suppression (1) around a tile */
#define GRAY_W                (TILE_W + 2 * (APRON + FV_CANNY_MAX_RADIUS))
#define GRAY_H                (TILE_H + 2 * (APRON + FV_CANNY_MAX_RADIUS))
#define BLUR_W                (TILE_W + 2 * APRON)
#define BLUR_H                (TILE_H + 2 * APRON)
#define FUSED_W               64 /* fast: 64x32 output tiles, 256 threads (8 each, 4 a step) */
#define FUSED_H               32
#define FUSED_UNROLLED_RADIUS 4 /* fast: blur radii compiled one by one (sigma <= 1.33) */
#define OUTPUT_PX             8 /* fast's output kernel: pixels a thread */
#define BITS_BATCH            32 /* fast, full hysteresis: rows of a tile whose loads go out together */
#define BITS_MIN_BLOCKS       2 /* and blocks an SM: 128 registers, no spills, one round trip a tile */

/* ---- the state: intermediates of one image size ------------------------------------------- */
enum {
    MISC_MIN,
    MISC_MAX,
    MISC_CHANGED,
    MISC_ROUNDS,
    MISC_ROUND_FLAGS,
    MISC_WORDS = MISC_ROUND_FLAGS + 3
};

typedef struct canny_state {
    canny_config config; /* p resolved, made with the state */
    int width, height;
    uint8_t *gray, *blur; /* w*h values of the image's type each */
    int *mag;             /* w*h: l1 magnitude or squared l2 (uint16: 64-bit; float32: float) */
    uint8_t *sk;          /* w*h: sector | kept << 2 */
    uint16_t *label;      /* w*h: hysteresis labels */
    unsigned *misc;       /* MISC_WORDS: kept min, max, flags */
    unsigned long long *misc64; /* canny_generic.cu: kept min and max as 64-bit keys */
    unsigned *host_flag;        /* pinned: the changed-flag read back */
    int coop_blocks;            /* fast: blocks of the cooperative hysteresis kernel */
    int bits_blocks;            /* fast, full hysteresis: blocks of the bit-mask kernel */
    uint8_t *dirty;             /* fast, full hysteresis: 2 x bits tiles, whose ring changed */
    /* the last run's hysteresis, for the bench: how many launches (sweeps or tile rounds) it took,
     * or rounds_on_device (fast: the cooperative kernel counts them in misc[MISC_ROUNDS]) */
    const char *hysteresis_unit; /* NULL: the last run stopped before the edges stage */
    unsigned hysteresis_steps;
    int rounds_on_device;
} canny_state;

typedef struct canny_taps {
    int w[2 * FV_CANNY_MAX_RADIUS + 1];
} canny_taps;

/* what the kernels read: pointers of the state and the resolved parameters */
typedef struct canny_args {
    int w, h, radius, l2, stage, auto_thr, lowc, highc, inc, cap;
    uint8_t *gray, *blur, *sk;
    int *mag;
    uint16_t *label;
    unsigned *misc;
    /* canny_generic.cu (every type and border): the manual thresholds' compared values (integer
     * types; float32), the border, cval, the type's maximum and the weak pixels' green */
    long long lowc64, highc64;
    float lowf, highf;
    int border;
    double cval, top, amber;
    unsigned long long *misc64;
} canny_args;

/* full hysteresis in `fast`: a warp's tile is BITS_W x BITS_H pixels; with a one-pixel ring that
 * is 64 columns (a 64-bit mask a row) by 32 rows (a row a lane) */
#define BITS_W 62
#define BITS_H 30
static inline long long bits_tiles(int w, int h)
{
    return (long long)((w + BITS_W - 1) / BITS_W) * ((h + BITS_H - 1) / BITS_H);
}

static inline dim3 pixel_grid(int w, int h)
{
    return dim3((w + PIXEL_BLOCK_X - 1) / PIXEL_BLOCK_X, (h + PIXEL_BLOCK_Y - 1) / PIXEL_BLOCK_Y);
}
static inline dim3 tile_grid(int w, int h)
{
    return dim3((w + TILE_W - 1) / TILE_W, (h + TILE_H - 1) / TILE_H);
}

__device__ __forceinline__ uint32_t load_pixel(const fv_image &img, int x, int y)
{
    return reinterpret_cast<const uint32_t *>(img.data + (size_t)y * img.pitch)[x];
}

__device__ __forceinline__ void store_pixel(const fv_image &img, int x, int y, uint32_t v)
{
    reinterpret_cast<uint32_t *>(img.data + (size_t)y * img.pitch)[x] = v;
}

/* ---- the state (canny_state.cu; its callbacks in canny_gpu.h, which the descriptor reads) ---- */
/* The kernels' arguments for a run of the state's configuration. */
void canny_prepare(const fv_image *src, void *state, canny_config *c, canny_args *a);

/* ---- the stages (canny.cu) ---- */
/* gray of every pixel of src (the peer's input too) */
__global__ void canny_gray_kernel(fv_image src, canny_args a);

/* ---- every type and border (canny_generic.cu) ---- */
/* Hysteresis of a generic run: naive's host sweeps or fast's cooperative kernels. */
typedef fv_status (*canny_hysteresis_fn)(const canny_args *a, canny_state *s, cudaStream_t stream);
fv_status canny_generic_run(const fv_image *src, fv_image *dst, const canny_config *c,
                            const canny_args *a, canny_state *s, canny_hysteresis_fn hysteresis,
                            cudaStream_t stream);
/* its per-stage kernels (gray, blur, Sobel, suppression) for `type` */
int canny_generic_kernels(fv_pixel_type type, fv_kernel_info *out, int max);
/* One of its stages alone, for smem's uint16: gray of the source `img`, classification, or the
 * output into `img`; and the kept extremes and flags cleared before a run. */
enum { CANNY_GENERIC_GRAY, CANNY_GENERIC_CLASSIFY, CANNY_GENERIC_OUTPUT };
fv_status canny_generic_launch(int which, const fv_image *img, const canny_args *a,
                               fv_pixel_type type, cudaStream_t stream);
fv_status canny_generic_reset(const canny_args *a, cudaStream_t stream);
/* Whether a run of c takes the generic kernels: anything but uint8 with the replicate border. */
static inline bool canny_is_generic(const canny_config *c)
{
    return c->type != FV_PIXEL_U8 || c->border != FV_BORDER_REPLICATE;
}

/* ---- hysteresis (canny_hysteresis.cu) ---- */
typedef void (*canny_sweep_launch_fn)(const canny_args *a, cudaStream_t stream);
/* naive and smem: launches until a launch lowers nothing, reading the changed-flag after each */
fv_status canny_hysteresis_host_loop(const canny_args *a, canny_state *s,
                                     canny_sweep_launch_fn launch, const char *unit,
                                     cudaStream_t stream);
void canny_relax_naive_launch(const canny_args *a, cudaStream_t stream);
void canny_relax_tile_launch(const canny_args *a, cudaStream_t stream);
__global__ void canny_relax_naive_kernel(canny_args a);
__global__ void __launch_bounds__(TILE_THREADS) canny_hysteresis_tile_kernel(canny_args a);
__global__ void __launch_bounds__(TILE_THREADS) canny_hysteresis_coop_kernel(canny_args a);
__global__ void __launch_bounds__(TILE_THREADS, BITS_MIN_BLOCKS)
    canny_hysteresis_bits_kernel(canny_args a, uint8_t *dirty);

#endif
