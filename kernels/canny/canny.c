/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny.c: the Canny edge detector's descriptor: its parameters, its variant table
 * and what the registry, the tests and the chunked runs read (test parameter sets, reach). Plain C,
 * so that a build without CUDA has every filter too: there, the GPU rows
 * (kernels/canny/canny_gpu.h) are left out and the reference `cpu` is the filter's one variant.
 * ------------------------------------------------------------------------------------------------ */
#include "canny.h"
#include "canny_gpu.h"
#include "canny_npp.h"

/* ---- the descriptor -------------------------------------------------------------------------- */
static const fv_variant canny_variants[] = {
#ifdef FV_HAVE_CUDA
    {.name = "naive",
     .summary = "one kernel per stage, every tap from global memory; hysteresis sweeps the whole "
                "image again and again, the host reading a changed-flag after each",
     .run = canny_naive_run,
     .state_bytes = canny_state_bytes,
     .state_create = canny_state_create,
     .state_destroy = canny_state_destroy,
     .kernels = canny_naive_kernels,
     .last_run_text = canny_last_run_text,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
    {.name = "smem",
     .summary = "blur, then Sobel with suppression, from 32x16 tiles staged in shared memory; "
                "hysteresis converges inside each tile in shared memory before each global round; "
                "uint8 and uint16, replicate",
     .run = canny_smem_run,
     .state_bytes = canny_state_bytes,
     .state_create = canny_state_create,
     .state_destroy = canny_state_destroy,
     .kernels = canny_smem_kernels,
     .last_run_text = canny_last_run_text,
     .types = FV_TYPES_INT},
    {.name = "fast",
     .role = FV_ROLE_FASTEST,
     .summary =
         "gray, blur, Sobel and suppression fused in one pass; hysteresis in one cooperative "
         "kernel, tile rounds split by grid-wide barriers, full hysteresis on bit masks (a warp "
         "a 62x30 tile, whole runs a step): no host round trip per sweep; uint16, float32 and "
         "other borders: a kernel a stage, then the same hysteresis",
     .run = canny_fast_run,
     .state_bytes = canny_state_bytes,
     .state_create = canny_state_create,
     .state_destroy = canny_state_destroy,
     .kernels = canny_fast_kernels,
     .last_run_text = canny_last_run_text,
     .types = FV_TYPES_ALL,
     .borders = FV_BORDERS_ALL},
#endif
    FV_VARIANT_NPP_CANNY FV_VARIANT_CPU_ALL,
};

static const char *const canny_norms[] = {"l1", "l2"};
static const char *const canny_threshold_modes[] = {"manual", "auto"};
static const char *const canny_hysteresis_modes[] = {"full", "one-pass"};

/* in the order of canny.h's enum (tests/cpu/test_registry.c checks the names by index) */
static const fv_param_desc canny_params[CANNY_N_PARAMS] = {
    {.name = "stage",
     .help = "what is shown: gray, blur, magnitude, direction, nms, thresholds or edges",
     .type = FV_PARAM_CHOICE,
     .def = CANNY_EDGES,
     .choices = canny_stage_names,
     .n_choices = CANNY_N_STAGES},
    {.name = "sigma",
     .help = "Gaussian blur of the gray image (window ceil(3 sigma) each side); 0 = off",
     .type = FV_PARAM_REAL,
     .min = 0,
     .max = FV_CANNY_MAX_SIGMA,
     .step = 0.2,
     .def = 0.6},
    {.name = "norm",
     .help = "gradient magnitude: l1 = |dx| + |dy|, l2 = sqrt(dx^2 + dy^2)",
     .type = FV_PARAM_CHOICE,
     .def = 0,
     .choices = canny_norms,
     .n_choices = 2},
    {.name = "low",
     .help = "weak threshold on the gradient magnitude, in the image's units (uint8 up to "
             "2040): kept pixels above it are weak",
     .type = FV_PARAM_REAL,
     .min = 0,
     .max = FV_CANNY_MAX_THRESHOLD_ANY,
     .step = 5,
     .def = 0,
     .auto_means = "50/255 of the type's range: 50, 12850, 0.196",
     .in_play_when = "thresholds=manual"},
    {.name = "high",
     .help = "strong threshold on the gradient magnitude, in the image's units (uint8 up "
             "to 2040): above it, an edge for sure",
     .type = FV_PARAM_REAL,
     .min = 0,
     .max = FV_CANNY_MAX_THRESHOLD_ANY,
     .step = 5,
     .def = 0,
     .auto_means = "150/255 of the type's range: 150, 38550, 0.588",
     .in_play_when = "thresholds=manual"},
    {.name = "thresholds",
     .help = "manual (low, high) or auto: min + 1 % and min + 20 % of the kept magnitudes' range",
     .type = FV_PARAM_CHOICE,
     .def = 0,
     .choices = canny_threshold_modes,
     .n_choices = 2},
    {.name = "hysteresis",
     .help = "full: weak pixels joined to a strong one by any chain; one-pass: only next to one",
     .type = FV_PARAM_CHOICE,
     .def = 0,
     .choices = canny_hysteresis_modes,
     .n_choices = 2},
    {.name = "sweeps",
     .help = "stop full hysteresis after this many sweeps (chains grow a pixel a sweep)",
     .type = FV_PARAM_INT,
     .min = 1,
     .max = FV_CANNY_MAX_SWEEPS,
     .step = 1,
     .def = 0,
     .auto_means = "until done",
     .in_play_when = "hysteresis=full"},
    FV_PARAM_BORDER_ROWS,
};

/* each stage, both norms, both hysteresis modes, auto thresholds, a few sweeps, blur off and wide */
static const char *const canny_test_params[] = {"stage=gray",
                                                "stage=blur",
                                                "stage=blur sigma=4",
                                                "stage=magnitude",
                                                "stage=magnitude norm=l2",
                                                "stage=direction",
                                                "stage=direction norm=l2",
                                                "stage=nms",
                                                "stage=nms sigma=0",
                                                "stage=thresholds",
                                                "stage=thresholds thresholds=auto",
                                                "stage=thresholds norm=l2 thresholds=auto",
                                                "sigma=0",
                                                "sigma=0 norm=l2",
                                                "sigma=1.4",
                                                "norm=l2",
                                                "low=10 high=30",
                                                "low=200 high=20",
                                                "low=1 high=1",
                                                "thresholds=auto",
                                                "thresholds=auto norm=l2",
                                                "hysteresis=one-pass",
                                                "hysteresis=one-pass norm=l2",
                                                "sweeps=1",
                                                "sweeps=2",
                                                "sweeps=7",
                                                "sweeps=40 low=5 high=60",
                                                "sigma=0 low=5 high=400",
                                                NULL};

/* Stage by stage: the blur reads its radius, Sobel one more, suppression compares with the
 * neighbours' magnitudes (one more), one-pass hysteresis looks at the neighbours' classes (one
 * more). Automatic thresholds come from the whole image's magnitudes and full hysteresis follows
 * chains of any length: no bounded reach. */
static int canny_reach(const void *config)
{
    const canny_config *c = (const canny_config *)config;
    switch (c->stage) {
    case CANNY_GRAY: return 0;
    case CANNY_BLUR: return c->radius;
    case CANNY_MAGNITUDE:
    case CANNY_DIRECTION: return c->radius + 1;
    case CANNY_NMS: return c->radius + 2;
    case CANNY_THRESHOLD_MAP: return c->auto_thresholds ? -1 : c->radius + 2;
    default: return c->auto_thresholds || !c->one_pass ? -1 : c->radius + 3;
    }
}

/* The colour keys of the stages in false colour: canny_display_direction's hues (brightness is
 * the magnitude) and canny_display_threshold's three labels. */
static const fv_legend canny_direction_legend = {
    .title = "gradient direction (brightness: magnitude)",
    .swatches = {{{255, 0, 0, 255}, "- 0 deg"},
                 {{255, 255, 0, 255}, "/ 45"},
                 {{0, 255, 0, 255}, "| 90"},
                 {{0, 0, 255, 255}, "\\ 135"}},
    .n_swatches = 4,
};
static const fv_legend canny_thresholds_legend = {
    .title = "thresholds",
    .swatches = {{{255, 255, 255, 255}, "strong > high"},
                 {{255, 160, 0, 255}, "weak > low"},
                 {{0, 0, 0, 255}, "suppressed"}},
    .n_swatches = 3,
};

static const fv_legend *canny_legend(const fv_params *p)
{
    switch ((int)p->value[CANNY_STAGE]) {
    case CANNY_DIRECTION: return &canny_direction_legend;
    case CANNY_THRESHOLD_MAP: return &canny_thresholds_legend;
    default: return NULL; /* gray levels, or the edges in white */
    }
}

_Static_assert(sizeof(canny_config) <= FV_MAX_CONFIG_BYTES, "fits fv_config");

const fv_filter fv_filter_canny = {
    .name = "canny",
    .summary =
        "Canny edge detector: gray, blur, Sobel, suppression, double threshold, hysteresis; any stage shown",
    .params = canny_params,
    .n_params = CANNY_N_PARAMS,
    .ref = canny_ref,
    .config_make = canny_config_make,
    .config_bytes = sizeof(canny_config),
    .resolve = canny_resolve,
    .variants = canny_variants,
    .n_variants = (int)(sizeof canny_variants / sizeof canny_variants[0]),
    .baseline = "naive",
    .tolerance = {0, 0.0},
    .reach = canny_reach,
    .traffic_bytes = fv_traffic_read_write,
    .max_iterations = 1,
    .test_params = canny_test_params,
    .legend = canny_legend,
};
