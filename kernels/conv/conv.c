/* ------------------------------------------------------------------------------------------------
 * kernels/conv/conv.c: the convolution's descriptor: its parameters, its variant table and what the
 * registry, the tests and the chunked runs read (test parameter sets, reach). Plain C, so that a
 * build without CUDA has every filter too: there, the GPU rows (kernels/conv/conv_gpu.h) are left
 * out and the reference `cpu` is the filter's one variant.
 * ------------------------------------------------------------------------------------------------ */
#include "conv.h"
#include "conv_gpu.h"
#include "conv_npp.h"

/* ---- the descriptor -------------------------------------------------------------------------- */
/* The float FFT's error is a small fraction of a level of uint8 or uint16 (docs/perf/conv.md), so
 * only exact sums within it of a rounding boundary (x.5) can come out 1 level off; float32 images
 * (values 0..1) within 2e-4, every pixel a little off (so no share bound). */
#ifdef FV_HAVE_CUDA
static const fv_tolerance conv_fft_tolerance = {.max_abs = 1, .max_share = 1.0, .float_abs = 2e-4};
#endif

static const fv_variant conv_variants[] = {
#ifdef FV_HAVE_CUDA
    {.name = CONV_NAME_DIRECT,
     .summary = "one thread per pixel sums kw*kh taps from global memory: exact integer weights, "
                "the same bytes as the reference, cost grows with the kernel's area",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_direct_kernels,
     .id = V_DIRECT,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
    {.name = CONV_NAME_SMEM,
     .summary = "a 32x32 tile of outputs stages its source in shared memory, 16 kernel rows at a "
                "time; 4 outputs per thread; each kernel row walked only where it is non-zero",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_smem_kernels,
     .id = V_SMEM,
     .types = FV_TYPES_INT,
     .borders = FV_BORDERS_ALL},
    {.name = CONV_NAME_FFT,
     .summary =
         "cuFFT per channel: pad with replicated borders to a 2,3,5-smooth size, R2C, "
         "multiply by the kernel's spectrum (made once), C2R: cost independent of the kernel",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_fft_plain_kernels,
     .tolerance = &conv_fft_tolerance,
     .id = V_FFT,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
    {.name = CONV_NAME_FFT_FAST,
     .summary = "R, G and B in one batched cuFFT plan; padding, multiply and packing each one pass "
                "over all three channels (reads RGBA once, the kernel's spectrum once)",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_fft_fast_kernels,
     .tolerance = &conv_fft_tolerance,
     .id = V_FFT_FAST,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
    {.name = CONV_NAME_AUTO,
     .role = FV_ROLE_FASTEST,
     .summary =
         "direct_smem for small kernels, fft_fast for large ones, by a cost model of both "
         "(taps x pixels against padded points x log2), timing both on this GPU where it is close",
     .run = conv_run,
     .state_bytes = conv_state_bytes,
     .state_create = conv_state_create,
     .state_destroy = conv_state_destroy,
     .kernels = conv_auto_kernels,
     .last_run_text = conv_last_run_text,
     .tolerance = &conv_fft_tolerance,
     .id = V_AUTO,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
#endif
    FV_VARIANT_NPP_CONV FV_VARIANT_CPU_ALL,
};

/* in the order of conv.h's enum (tests/cpu/test_registry.c checks the names by index) */
static const fv_param_desc conv_params[CONV_N_PARAMS] = {
    {.name = "stage",
     .help = "what to show: the output, the kernel, or a log-magnitude spectrum",
     .type = FV_PARAM_CHOICE,
     .def = CONV_OUTPUT,
     .choices = conv_stage_names,
     .n_choices = CONV_N_STAGES},
    {.name = "shape",
     .help = "the kernel: gaussian (sigma), disk (radius), motion (length, angle), box "
             "(radius), file (--kernel-file)",
     .type = FV_PARAM_CHOICE,
     .def = CONV_GAUSSIAN,
     .choices = conv_shape_names,
     .n_choices = CONV_N_SHAPES},
    {.name = "sigma",
     .help = "gaussian: standard deviation in pixels (radius ceil(3 sigma))",
     .type = FV_PARAM_REAL,
     .min = FV_CONV_MIN_SIGMA,
     .max = FV_CONV_MAX_SIGMA,
     .step = 0.5,
     .def = 3,
     .in_play_when = "shape=gaussian"},
    {.name = "radius",
     .help = "disk and box: radius in pixels (the kernel is 2r+1 wide)",
     .type = FV_PARAM_INT,
     .min = 1,
     .max = FV_CONV_MAX_RADIUS,
     .step = 1,
     .def = 8,
     .in_play_when = "shape=disk|box"},
    {.name = "length",
     .help = "motion: length of the streak in pixels",
     .type = FV_PARAM_INT,
     .min = 1,
     .max = FV_CONV_MAX_LENGTH,
     .step = 2,
     .def = 31,
     .in_play_when = "shape=motion"},
    {.name = "angle",
     .help = "motion: direction in degrees, counter-clockwise from the right",
     .type = FV_PARAM_REAL,
     .min = 0,
     .max = 180,
     .step = 15,
     .def = 0,
     .in_play_when = "shape=motion"},
    {.name = "kernel-file",
     .help = "file: the kernel, a grayscale image up to 127x127",
     .type = FV_PARAM_IMAGE,
     .max = FV_CONV_MAX_SIZE},
    FV_PARAM_BORDER_ROWS,
};

/* kernel sizes 3, 15, 63 and 127 of every shape, every stage; the first also on large images */
static const char *const conv_test_params[] = {
    "shape=disk radius=7",
    "shape=box radius=1",
    "shape=box radius=31",
    "shape=box radius=63",
    "shape=gaussian sigma=0.3",
    "shape=gaussian sigma=2.5",
    "shape=gaussian sigma=10",
    "shape=disk radius=1",
    "shape=disk radius=31",
    "shape=disk radius=63",
    "shape=motion length=3",
    "shape=motion length=15 angle=30",
    "shape=motion length=63 angle=100",
    "shape=motion length=127 angle=45",
    "shape=file",
    "stage=kernel shape=file",
    "stage=kernel shape=motion length=63 angle=60",
    "stage=spectrum_image shape=disk radius=7",
    "stage=spectrum_kernel shape=motion length=15 angle=30",
    "stage=spectrum_product shape=file",
    NULL};

/* the image read once and written once (4 channels of the type); the FFT's own passes not
 * counted */
static double conv_traffic(const fv_params *p, int width, int height)
{
    return 8.0 * (double)fv_pixel_type_bytes(p->type) * width * height;
}

/* The output reads as far as the kernel extends from its centre, on its longest side; the kernel
 * and spectrum stages show the whole image's transform: no bounded reach. */
static int conv_reach(const void *config)
{
    const conv_config *c = config;
    if (c->stage != CONV_OUTPUT) return -1;
    const conv_kernel *k = &c->kernel;
    int reach = k->cx;
    if (k->width - 1 - k->cx > reach) reach = k->width - 1 - k->cx;
    if (k->cy > reach) reach = k->cy;
    if (k->height - 1 - k->cy > reach) reach = k->height - 1 - k->cy;
    return reach;
}

/* The colour keys of the stages that are not the convolved image: the kernel's gray levels
 * (conv_kernel_level) and the spectra's log scale over FV_CONV_SPECTRUM_DECADES decades. */
static const fv_legend conv_kernel_legend = {
    .title = "kernel weight / largest weight",
    .ramp_ticks = {"0", "0.5", "1"},
};
static const fv_legend conv_spectrum_legend = {
    .title = "log10 |spectrum| (each channel)",
    .ramp_ticks = {"-6", "-3", "0"},
};

static const fv_legend *conv_legend(const fv_params *p)
{
    switch ((int)p->value[CONV_STAGE]) {
    case CONV_KERNEL: return &conv_kernel_legend;
    case CONV_SPECTRUM_IMAGE:
    case CONV_SPECTRUM_KERNEL:
    case CONV_SPECTRUM_PRODUCT: return &conv_spectrum_legend;
    default: return NULL; /* the output: the image's own colours */
    }
}

_Static_assert(sizeof(conv_config) <= FV_MAX_CONFIG_BYTES, "fits fv_config");

const fv_filter fv_filter_conv = {
    .name = "conv",
    .summary =
        "convolution with large kernels (up to 127x127): direct sums or cuFFT, with the kernel "
        "and the spectra as stages",
    .params = conv_params,
    .n_params = CONV_N_PARAMS,
    .ref = conv_ref,
    .config_make = conv_config_make,
    .config_bytes = sizeof(conv_config),
    .variants = conv_variants,
    .n_variants = (int)(sizeof conv_variants / sizeof conv_variants[0]),
    .baseline = "direct",
    /* integer types exact; float32 sums up to 127^2 products in float: each addition's error is
     * at most 2^-24 of the running sum, 127^2 x 2^-24 < 1e-3 on values in 0..1, the bound held
     * (a 1x1 image, whose every tap reads one value, came to 2.2e-4; docs/design/conv.md) */
    .tolerance = {.max_abs = 0, .max_share = 1.0, .float_abs = 1e-3},
    .reach = conv_reach,
    .traffic_bytes = conv_traffic,
    .max_iterations = 1,
    .test_params = conv_test_params,
    .legend = conv_legend,
};
