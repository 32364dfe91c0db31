/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_state.cu: the state of the Canny variants naive, smem and fast, made at
 * prepare for one image size and one set of parameters: the parameters resolved (canny_config),
 * the intermediates on the device (gray, blur, magnitudes, sectors, labels, flags, fast's dirty
 * tiles), how many blocks fast's cooperative hysteresis kernels may launch on this GPU; then the
 * kernels' arguments for a run (canny_prepare) and the bench's note on the last run's hysteresis.
 * Host code only; checked through every variant's output (tests/gpu/test_filters.c).
 * ------------------------------------------------------------------------------------------------ */
#include "canny_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* bytes of a magnitude: int, 64-bit for uint16 (l2 squares pass 2^32), float */
static size_t mag_bytes(fv_pixel_type type)
{
    return type == FV_PIXEL_U16 ? sizeof(long long) : sizeof(int);
}

size_t canny_state_bytes(const fv_variant *v, const fv_params *p, const void *config, int width,
                         int height)
{
    (void)v, (void)p;
    const fv_pixel_type type = ((const canny_config *)config)->type;
    const size_t value = fv_pixel_type_bytes(type);
    return (size_t)width * height * (2 * value + mag_bytes(type) + 1 + sizeof(uint16_t)) +
           MISC_WORDS * sizeof(unsigned) + 2 * sizeof(unsigned long long) +
           2 * (size_t)bits_tiles(width, height);
}

void canny_state_destroy(const fv_variant *v, void *state)
{
    canny_state *s = (canny_state *)state;
    if (!s) return;
    cudaFree(s->gray);
    cudaFree(s->blur);
    cudaFree(s->mag);
    cudaFree(s->sk);
    cudaFree(s->label);
    cudaFree(s->misc);
    cudaFree(s->misc64);
    cudaFree(s->dirty);
    cudaFreeHost(s->host_flag);
    free(s);
}

/* blocks of a cooperative kernel: every block resident at once, never more than there is work */
static int coop_grid(const void *kernel, long long work_blocks)
{
    int device = 0, sms = 0, per_sm = 0, coop = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, TILE_THREADS, 0) !=
            cudaSuccess ||
        !coop) {
        cudaGetLastError();
        return 0;
    }
    const long long most = (long long)sms * per_sm;
    return (int)(work_blocks < most ? work_blocks : most);
}

fv_status canny_state_create(const fv_variant *v, void **state, const fv_params *p,
                             const void *config, int width, int height)
{
    (void)p;
    const canny_config c = *(const canny_config *)config;
    canny_state *s = (canny_state *)calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "canny: out of host memory");
    s->config = c;
    s->width = width;
    s->height = height;
    const size_t n = (size_t)width * height, value = fv_pixel_type_bytes(c.type);
    if (cudaMalloc((void **)&s->gray, n * value) != cudaSuccess ||
        cudaMalloc((void **)&s->blur, n * value) != cudaSuccess ||
        cudaMalloc((void **)&s->mag, n * mag_bytes(c.type)) != cudaSuccess ||
        cudaMalloc((void **)&s->sk, n) != cudaSuccess ||
        cudaMalloc((void **)&s->label, n * sizeof(uint16_t)) != cudaSuccess ||
        cudaMalloc((void **)&s->misc, MISC_WORDS * sizeof(unsigned)) != cudaSuccess ||
        cudaMalloc((void **)&s->misc64, 2 * sizeof(unsigned long long)) != cudaSuccess ||
        cudaMalloc((void **)&s->dirty, 2 * (size_t)bits_tiles(width, height)) != cudaSuccess ||
        cudaMallocHost((void **)&s->host_flag, sizeof(unsigned)) != cudaSuccess) {
        cudaGetLastError();
        canny_state_destroy(v, s);
        return fv_fail(FV_ERR_MEMORY,
                       "canny: cannot allocate its intermediates for %dx%d on the device", width,
                       height);
    }
    s->coop_blocks =
        coop_grid((const void *)canny_hysteresis_coop_kernel,
                  (long long)((width + TILE_W - 1) / TILE_W) * ((height + TILE_H - 1) / TILE_H));
    const int warps = TILE_THREADS / 32;
    s->bits_blocks = coop_grid((const void *)canny_hysteresis_bits_kernel,
                               (bits_tiles(width, height) + warps - 1) / warps);
    *state = s;
    return FV_OK;
}

/* the bench's note: how much hysteresis the last run needed (fast's count is read back here) */
int canny_last_run_text(const fv_variant *v, const void *state, char *text, size_t size)
{
    const canny_state *s = (const canny_state *)state;
    if (!s->hysteresis_unit) return 0;
    unsigned steps = s->hysteresis_steps;
    if (s->rounds_on_device && cudaMemcpy(&steps, s->misc + MISC_ROUNDS, sizeof steps,
                                          cudaMemcpyDeviceToHost) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    snprintf(text, size, "hysteresis: %u %s", steps, s->hysteresis_unit);
    return 1;
}

/* The kernels' arguments for a run of the state's configuration (made for these parameters and
 * this size by state_create: the runner checked both). */
void canny_prepare(const fv_image *src, void *state, canny_config *c, canny_args *a)
{
    canny_state *s = (canny_state *)state;
    *c = s->config;
    s->hysteresis_unit = NULL;
    const double top = fv_pixel_type_max(c->type);
    *a = canny_args{src->width,
                    src->height,
                    c->radius,
                    c->l2,
                    c->stage,
                    c->auto_thresholds,
                    c->type == FV_PIXEL_U8 ? (int)c->lowc : 0, /* uint8: at most 2040^2 */
                    c->type == FV_PIXEL_U8 ? (int)c->highc : 0,
                    c->inc,
                    c->cap,
                    s->gray,
                    c->radius ? s->blur : s->gray,
                    s->sk,
                    s->mag,
                    s->label,
                    s->misc,
                    (long long)c->lowc,
                    (long long)c->highc,
                    (float)c->lowc,
                    (float)c->highc,
                    (int)c->border,
                    c->cval,
                    top,
                    c->type == FV_PIXEL_F32 ? (double)(float)(160.0 / 255.0) : 160.0 * top / 255,
                    s->misc64};
}
