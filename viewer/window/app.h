/* ------------------------------------------------------------------------------------------------
 * viewer/window/app.h: the viewer's one state object and the pieces that work on it.
 *
 *   view.c      the window's size, zoom, centre, pane rectangles (plain geometry)
 *   display.c   any pixel type on screen: exposure, offset, automatic range; PSNR of two files
 *   pipeline.c  the compute side: source upload, panes A and B run through the registry straight
 *               into CUDA-GL pixel buffers (or a staging copy, or the CPU), diff statistics,
 *               kernel timings, the all-variants bar chart; the GL storage they are written into
 *   hud.c       the HUD: the app told as a hud_model, laid out by hud_layout.c (no GL: unit
 *               tested), drawn as triangles of stb_easy_font's quads
 *   render.c    OpenGL: shaders, composition of the panes with the HUD over them, screenshots
 *   keys.c      the key table that drives the handler, the help and the README's keys section
 *   keys_replay.c  the --keys text into key codes (plain C, fuzzed alone)
 *   user_panes.c   a pane's own kernel (user=FILE): compiled at start-up, watched once a frame,
 *               recompiled on a worker thread and swapped in at a frame boundary; a kernel
 *               that faults ends the program with its message (CUDA's rule)
 *   window.c    GLUT window or headless EGL, the frame loop, key replay
 *
 * Floors, each calling only those below it (tests/cli/no_cycles.sh checks): view and
 * pipeline at the bottom, then user_panes, hud, render, keys, and window.c on top. window/ may use modes/
 * (the copy bandwidth, the shared helpers), never the reverse. The help overlay reads the key
 * table's rows from the app (keys_help_fill, at start-up), so hud.c need not call up into keys.c.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_APP_H
#define FV_APP_H

#include "cli.h"
#include "hud_layout.h"
#include "hud_speedup.h"
#include "kernel_host.h"
#include "noise.h"
#include "timing.h"
#include "user/user_kernel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include <GL/glew.h>

typedef enum fv_compare_mode {
    FV_COMPARE_SINGLE,
    FV_COMPARE_WIPE,
    FV_COMPARE_SIDE_BY_SIDE,
    FV_COMPARE_DIFFERENCE,
    FV_COMPARE_COUNT
} fv_compare_mode;

typedef enum fv_compute_mode {
    FV_COMPUTE_INTEROP, /* CUDA writes the GL pixel buffers directly */
    FV_COMPUTE_STAGING, /* interop refused: CUDA buffer -> host -> texture */
    FV_COMPUTE_CPU      /* no CUDA device: the CPU references */
} fv_compute_mode;

#define PANE_ORIGINAL   (-1)
#define PANE_USER       (-2) /* asked / variant: the pane's own kernel (user=FILE) */
#define PANE_FILE_B     (-3) /* two files compared: pane B shows the second file */
#define ITER_MAX_VIEWER 1000 /* the viewer's cap on iterations */

/* Where a frame's host time goes (--bench-frames). Without a->profile each stage is the time its
 * calls take to return; with it, the GPU is drained at the end of each stage as well. */
typedef enum frame_stage {
    STAGE_MAP,     /* cudaGraphicsMapResources */
    STAGE_COMPUTE, /* kernels, diff, device -> texture copy: enqueued (or run, with profile) */
    STAGE_UNMAP,   /* cudaGraphicsUnmapResources */
    STAGE_TEXTURE, /* PBO or host -> texture (pbo and staging paths) */
    STAGE_DRAW,    /* composition and HUD */
    FRAME_STAGES
} frame_stage;

/* One background compile of a pane's kernel file (user_panes.c), then the build's checked run
 * under memcheck (kernel_host_check) on a crop of the image: the worker writes build, diag,
 * message and the check's outcome, then sets done; the frame loop joins it and swaps the result
 * in. */
typedef struct user_job {
    pthread_t thread;
    int running;     /* started and not yet finished with */
    int threaded;    /* on its own thread (to be joined); 0: it ran on the caller's */
    atomic_int done; /* the worker has finished writing what follows */
    const fv_filter *filter;
    char path[1024];
    fv_user_build *build; /* NULL: the compile failed */
    fv_user_diag diag;
    char message[640]; /* "file:line: text" of a failure: a compile's, or the check's finding */
    double started_ms;
    /* the checked run: asked (check), on what, and how it went */
    int check;                         /* 1: run the build under memcheck before it goes live */
    fv_params check_params;            /* the pane's parameters for its filter */
    fv_image check_image;              /* host RGBA8: the image's top-left crop */
    double check_limit_s;              /* FILTERVIEW_KERNEL_TIMEOUT */
    kernel_host_outcome check_outcome; /* HOST_DONE: clean; HOST_STOPPED: a finding, in
                                          message; HOST_UNAVAILABLE: no memcheck (why, in
                                          message); HOST_REFUSED: it goes live, which says why */
    double check_ms;                   /* the check's wall time */
} user_job;

/* Whether a pane runs something (a variant or its own kernel), rather than show a file or the
 * original in place of a variant the registry refused for this image. */
#define PANE_COMPUTES(pn) (((pn)->variant >= 0 || (pn)->variant == PANE_USER) && !(pn)->refused)

typedef struct pane {
    int filter;  /* index into fv_filters (pane B: unless linked to A) */
    int asked;   /* what the user asked for: PANE_ORIGINAL, PANE_USER or an index into the
                    filter's variants; the keys and the command line set it */
    int variant; /* what runs: `asked`, or where that cannot run here (a GPU variant without a
                    GPU) the same filter's reference (pipeline_settle_variants); PANE_USER only
                    with a good build that is not turned off, else PANE_ORIGINAL */
    char replaced[320];  /* why variant is not asked ("no NVIDIA GPU: B fast -> cpu ..."), or
                            why the registry refused it for this image; "" */
    int refused;         /* the registry refused the variant for this image (its type): the
                            pane shows the original, `replaced` says why */
    fv_runner runner;    /* the variant's iteration buffer and state, made when the
                                            image, variant or a parameter changes: never per frame */
    char resources[320]; /* its kernels' registers, shared memory, occupancy */
    double kernel_ms;    /* last run: CUDA events (host clock for `cpu`) */
    hud_timings timings; /* the recent warm runs' kernel_ms, for B against A; emptied by every
                            change of what the panes show (pipeline_prepare) */
    GLuint pbo, texture;
    GLuint buffer_texture;                         /* --interop buffer: the shader's view of pbo */
    struct cudaGraphicsResource *resource;         /* interop registration of pbo */
    struct cudaGraphicsResource *texture_resource; /* interop registration of the texture */
    fv_image device_out;                           /* staging mode: the kernel's output */
    fv_image host_out;    /* staging and CPU modes: what the texture is fed */
    fv_timer timer;       /* the kernel's CUDA events, made once */
    char unprepared[256]; /* why the runner is not ready for what the pane shows
                                            (its prepare's message); "" when it is */
    /* the pane's own kernel (user=FILE; kernels/user/, user_panes.c) */
    const char *user_file;        /* the source as given; NULL: the pane has none */
    const fv_filter *user_filter; /* the filter it is written for */
    fv_user_variant *user;        /* the last good build; NULL before the first */
    int user_off;                 /* it faulted or cannot run: off until the file changes */
    int hosted;                   /* it is prepared in the kernel host's slot p (kernel_host.h) */
    fv_params hosted_params;      /* ... with these parameters */
    char user_error[768];         /* the last compile error or fault, as the HUD says it; "" */
    char user_status[160];        /* "compiling my_blur.cu ...", ""  */
    fv_user_build user_seen;      /* path, time and size of the source last compiled (or tried) */
    int user_missing;             /* the last try found no file: wait for one to appear */
    user_job job;
} pane;

typedef struct kernel_watchdog kernel_watchdog; /* pipeline.c: the user kernels' time limit */

typedef struct hud_vertex {
    float x, y;
    uint8_t rgba[4];
} hud_vertex;

#define HUD_MAX_VERTICES 393216
#define HUD_TEXT_BYTES   1048576

/* image.frag's uniforms, looked up once */
typedef struct image_uniforms {
    GLint pane_a, pane_b, pane_a_buffer, pane_b_buffer, a_in_buffer, b_in_buffer, image_size,
        smooth_sampling, mode, divider_x, gain, image_rect, window_size, display_scale,
        display_bias, colormap;
} image_uniforms;

typedef struct renderer {
    GLuint image_program, hud_program, quad_vao, quad_vbo, hud_vao, hud_vbo, source_texture;
    image_uniforms image;
    GLint hud_window_size; /* hud.vert's one uniform */
    GLint max_texture_size, max_buffer_texels;
    GLuint fbo, fbo_color; /* headless target */
    hud_vertex *hud;       /* HUD geometry, built each frame into this one array */
    int hud_count;
    hud_model *hud_model;   /* the app as the HUD tells it, refilled each frame */
    hud_layout *hud_layout; /* where it goes: made once, reused */
    float hud_text_box[4];  /* the last frame's text: x0, y0, x1, y1 (window pixels) */
    int hud_text_quads;     /* glyph quads drawn in the last frame */
    char *text_quads;       /* stb_easy_font output, reused */
} renderer;

/* How 16-bit and float images reach the screen (tev's exposure and offset): a channel value v
 * in the image's units is shown as 2^exposure * (v - lo) / (hi - lo) + offset, lo and hi the
 * image's 0.1 and 99.9 percentiles (found once at load), then through the false-colour map if
 * one is picked. uint8 images start at lo 0, hi 255: shown as they always were. */
typedef enum display_colormap {
    COLORMAP_NONE,
    COLORMAP_VIRIDIS,
    COLORMAP_TURBO,
    COLORMAP_COUNT
} display_colormap;

typedef struct display_map {
    double lo, hi;             /* the automatic range, in the image's units */
    float exposure;            /* stops (x/X) */
    float offset;              /* added after scaling, in display units 0..1 (y/Y) */
    display_colormap colormap; /* m */
} display_map;

/* The display transform as the shader takes it: shown = stored * scale + bias, where stored is
 * what GL samples (uint8 and uint16 normalised to 0..1, float32 as it is). */
void display_scale_bias(const display_map *d, fv_pixel_type type, float *scale, float *bias);
/* The image value shown at display level t (0: black, 1: white, or the map's ends). */
double display_value_at(const display_map *d, double t);
/* "viridis", "turbo", NULL for none */
const char *display_colormap_name(display_colormap c);
#define DISPLAY_LOW_PERCENTILE  0.1
#define DISPLAY_HIGH_PERCENTILE 99.9
/* The automatic range of n images of one type (4 channels; R, G and B counted, NaN and
 * infinities left out): 0 .. 255 for uint8, else the percentiles above. */
fv_status display_auto_range(const fv_image *const *images, int n, double *lo, double *hi);
/* Pixel (x, y) of a 4-channel host image in its units; 0 outside it. */
int display_pixel(const fv_image *img, int x, int y, double value[4]);
/* The mean squared error of b against a over R, G and B (same size and type), and the PSNR in dB
 * against the type's peak (255, 65535, 1.0 for float32); infinity when they are equal. */
fv_status display_psnr(const fv_image *a, const fv_image *b, double *mse, double *psnr);

/* The reference's value under the probe, made for one pixel and one state of the panes */
typedef struct probe_cache {
    int made, valid, x, y, pane;
    unsigned long long generation;
    double value[4];
} probe_cache;

typedef struct app {
    /* the image */
    const char *path; /* NULL: random image */
    int random_w, random_h;
    unsigned seed;
    fv_pixel_type type;  /* of the image as loaded, kept: every pane runs it */
    int file_channels;   /* the file's own: 1 (gray, shown packed as g, g, g, opaque),
                                      3 or 4; 4 for a random image */
    char load_note[256]; /* what the load lost or changed ("" none), in the HUD */
    display_map display;
    /* two files compared (filterview a.png b.tif): pane A shows path, pane B path_b */
    const char *path_b;        /* NULL: one image, the panes show variants */
    fv_image host_b, device_b; /* the second file at the first's type, 4 channels */
    int file_b_channels;
    double psnr, mse; /* of B against A over R, G, B, in dB and the image's units squared */
    unsigned long long prepare_generation; /* pipeline_prepare's count: the panes changed */
    probe_cache probe_ref;
    fv_image host_clean;           /* the image as loaded */
    fv_image host_src, device_src; /* what every pane sees: host_clean with the noise */
    fv_noise noise;                /* noise on the source (n/N, --noise) */
    /* what is computed */
    fv_params params[2][FV_MAX_FILTERS]; /* per pane and per filter, so each keeps its own */
    int linked;                          /* pane B shows pane A's filter with A's parameters */
    int edit_pane;                       /* the pane the filter and parameter keys act on */
    int picked_param;                    /* the parameter s/S and d/D step (j/J pick) */
    pane panes[2];
    fv_compute_mode compute;
    char compute_note[320];  /* "no NVIDIA GPU: ... (" + no_gpu_reason + ")" */
    char no_gpu_reason[256]; /* why GPU variants cannot run here; "" when they can */
    void *diff_work;
    void *diff_host_totals;    /* pinned: where the frame's diff totals land */
    cudaEvent_t results_ready; /* recorded after the frame's diff is enqueued */
    int results_pending;       /* diff and kernel times not yet read back */
    fv_diff_stats diff;
    int diff_valid;
    double copy_gbps; /* measured at start-up */
    bar_chart chart;
    /* what is shown */
    fv_compare_mode compare;
    int show_original, show_hud, show_help, animate;
    int hud_compact; /* U: the compact HUD (a few lines) instead of the full one */
    float diff_gain;
    int win_w, win_h;
    float zoom, center_x, center_y; /* image point at the centre of a pane's viewport */
    int fit;                        /* zoom follows the window */
    float divider;                  /* wipe divider, fraction of the window width */
    int mouse_x, mouse_y, drag, drag_x, drag_y;
    /* bookkeeping */
    int dirty;                     /* the panes must be recomputed */
    fv_interop_path interop;       /* --interop: buffer (default), texture or pbo */
    int force_staging;             /* --interop staging: the fallback, asked for */
    int profile;                   /* --bench-frames: sync between stages, time each */
    double stage_ms[FRAME_STAGES]; /* the last frame: host ms per stage (see frame_stage) */
    int quit;
    int save_failed; /* a p or w save failed: the run exits 1 */
    int fatal;       /* the GPU could not be set up again after a fault: the run exits 1 */
    /* user kernels: faults and the time limit (pipeline.c) */
    double kernel_timeout_s;   /* FILTERVIEW_KERNEL_TIMEOUT, default KERNEL_TIMEOUT_DEFAULT_S */
    kernel_watchdog *watchdog; /* started when a pane has a kernel file */
    kernel_host *kernel_host;  /* the user kernels' own process; NULL: they run in this one */
    int kernel_host_said;      /* its first answer was announced on stdout */
    int memcheck_absent_said;  /* no memcheck to check new kernels with: said once */
    int memcheck_off;          /* FILTERVIEW_MEMCHECK=0: new kernels go live unchecked */
    int kernels_in_process;    /* FILTERVIEW_KERNEL_HOST=0: no kernel host */
    int user_ran;              /* bit p: the GPU work in flight runs pane p's user kernel */
    int fault_panes;           /* bit p: pane p's user kernel faulted; the program ends */
    cudaError_t fault_error;   /* the sticky CUDA error it left */
    double frame_ms;
    /* allocations per frame, for the exit summary: the frame loop itself must make nothing */
    unsigned long long allocations;      /* the viewer's own buffers and textures (re)made */
    unsigned long long allocations_seen; /* runners' and own, at the end of the last frame */
    int input_changed;                   /* since the last frame: an input changed the image,
                                            filter, variant, parameters, noise or window size */
    long long frames, frames_allocated, frames_allocated_no_change;
    char message[256]; /* last action ("saved ..."), shown in the HUD */
    char error[256];   /* last error, shown in the HUD */
    renderer gl;
    key_help help; /* the key table's rows, for the help overlay */
    int headless;
} app;

/* ---- view.c ---- */
void view_fit(app *a);
void view_resize(app *a, int w, int h); /* the window's new size (0x0: minimised) */
void view_pane_rect(const app *a, int p, float rect[4]); /* viewport of pane p (x, y, w, h) */
/* the image's rectangle in window pixels (x, y, w, h; y down) inside viewport vp */
void view_image_rect(const app *a, const float vp[4], float out[4]);
int view_window_to_image(const app *a, int wx, int wy, float *ix, float *iy);

/* ---- pipeline.c ---- */
#define KERNEL_TIMEOUT_DEFAULT_S 3.0
fv_status app_load_image(app *a); /* (re)loads the host image; reallocates on size change */
fv_status pipeline_init(app *a);  /* device, interop or fallback, buffers: after GL is up */
void pipeline_release(app *a);
fv_status pipeline_reload(app *a); /* the same path again, buffers follow a size change */
fv_status pipeline_set_noise(
    app *a, const fv_noise *noise); /* applied once, on the GPU where there is one */
/* Makes both panes' runners ready for what they show (buffers, state): after every change of
 * image, filter, variant or parameter, so that the frame loop itself allocates nothing. */
fv_status pipeline_prepare(app *a);
fv_status pipeline_compute(app *a); /* enqueues both panes into what the shader samples */
/* Reads the last compute's diff statistics and kernel times once the GPU has them: without
 * `wait` only if they are ready. Returns 1 when nothing is left pending. */
int pipeline_collect(app *a, int wait);
void pipeline_cuda_tick(app *a); /* the smallest CUDA work, waited for (--bench-frames) */
/* The user kernels' time limit from FILTERVIEW_KERNEL_TIMEOUT (seconds; else the default), and
 * the thread that enforces it: GPU work with a user kernel that is not done within the limit
 * cannot be stopped from the host, so the program says so and exits 1. */
fv_status pipeline_watchdog_start(app *a);
void pipeline_watchdog_stop(app *a);
/* The GPU work with the user kernels of `panes` (bit p) failed with `err`: recorded, and said
 * by pipeline_fault_said at the next frame boundary (nothing more is enqueued until then). */
void pipeline_note_fault(app *a, int panes, cudaError_t err);
/* After a fault: FV_OK when there was none; otherwise FV_ERR_CUDA with one line that names the
 * kernel, the error and what to do. The caller exits 1 with it: after a fault CUDA cannot go on
 * in the process (its documented rule; cudaDeviceReset does not give the GPU back). */
fv_status pipeline_fault_said(app *a);
const fv_filter *pane_filter(const app *a, int p);
/* The variant pane p runs (a built-in one or its user kernel); NULL: the original. */
const fv_variant *pane_variant(const app *a, int p);
/* Whether pane p has a kernel file written for the filter it shows (a/A, b/B offer it). */
int pane_has_user(const app *a, int p);
/* Its file name ("my_blur.cu"), "" when the pane has none. */
const char *pane_user_name(const app *a, int p);
fv_params *pane_params(app *a, int p);      /* pane B's are pane A's while linked */
const fv_filter *edit_filter(const app *a); /* the filter the keys act on */
const char *pane_name(const app *a, int p); /* the variant, or "original" */
/* "fast", or "box:fast" while the panes show different filters */
void pane_label(const app *a, int p, char *buf, size_t size);
int pane_variant_available(const app *a, int p, int variant);
/* Each pane's variant from what was asked: the same, or where it cannot run here the same
 * filter's reference, said once on stderr and kept for the HUD (pane.replaced). */
void pipeline_settle_variants(app *a);
/* "sigma 1, radius 2, 3 iterations" */
void describe_pane_params(app *a, int p, char *buf, size_t size);
void pipeline_time_all_variants(app *a); /* fills a->chart */
void pipeline_resize_textures(app *a);   /* the panes' and the original's textures, at image size */
fv_status pane_download(app *a, int p, fv_image *host);
/* Pane p's pixel (x, y) in the image's units, 4 channels; 0 outside the image. */
int pipeline_probe_pixel(app *a, int p, int x, int y, double value[4]);
/* The source's pixel (x, y) in the image's units (the original, as the panes see it). */
int pipeline_probe_source(const app *a, int x, int y, double value[4]);
/* The reference's pixel (x, y) for the first pane that runs a filter, in the image's units; 0
 * where there is none (see pipeline.c). Made when the pixel or the panes change. */
int pipeline_probe_reference(app *a, int x, int y, double value[4]);
double pane_gbps(const app *a, int p);

/* ---- user_panes.c ---- */
/* Compiles each pane's kernel file (start-up: an error is said and the pane shows the original) */
void user_panes_start(app *a);
/* Once a frame, at its start: a fault put right, a finished compile swapped in, each kernel file
 * checked for a save (one stat) and, when saved, compiled again on a worker thread. */
void user_panes_tick(app *a);
/* Whether something waits for a frame (a compile finished, a file saved, a fault): the idle
 * window's timer asks, so that a save is seen without input. */
int user_panes_need_frame(app *a);
/* --keys <wait-compile>: a save not yet seen is seen, and the compiles under way are waited for
 * and swapped in. */
void user_panes_wait(app *a);
/* --keys <swap-source>: FILTERVIEW_SWAP_SOURCE's file copied over the first pane's kernel file
 * (a save, replayed: for tests). */
fv_status user_panes_swap_source(app *a);
void user_panes_release(app *a); /* waits for the workers, frees the builds */

/* ---- hud.c ---- */
void hud_draw(app *a);

/* ---- render.c ---- */
fv_status render_init(app *a);
void render_release(app *a);
void render_frame(app *a); /* the panes, then the HUD */
fv_status render_screenshot(app *a, const char *path);

/* ---- keys.c ---- */
#define KEY_SPECIAL(glut_key) (256 + (glut_key))
/* --keys "<WxH>": not a key but a window resize (0x0: minimised), replayed in order */
#define KEY_RESIZE_FLAG   (1 << 30)
#define KEY_RESIZE_MAX    16383
#define KEY_RESIZE(w, h)  (KEY_RESIZE_FLAG | ((w) << 15) | (h))
#define KEY_RESIZE_W(key) (((key) >> 15) & 0x7fff)
#define KEY_RESIZE_H(key) ((key)&0x7fff)
/* --keys "<wait-compile>", "<swap-source>": replay actions, not keys (user_panes.c) */
#define KEY_REPLAY_FLAG  (1 << 29)
#define KEY_WAIT_COMPILE (KEY_REPLAY_FLAG | 1)
#define KEY_SWAP_SOURCE  (KEY_REPLAY_FLAG | 2)
/* --keys "<@X,Y>": the mouse pointer moved to window pixel (X, Y), replayed in order */
#define KEY_POINTER_FLAG   (1 << 28)
#define KEY_POINTER_MAX    16383
#define KEY_POINTER(x, y)  (KEY_POINTER_FLAG | ((x) << 14) | (y))
#define KEY_POINTER_X(key) (((key) >> 14) & 0x3fff)
#define KEY_POINTER_Y(key) ((key)&0x3fff)
void app_key(app *a, int key);
void app_mouse_button(app *a, int button, int pressed, int x, int y);
void app_mouse_motion(app *a, int x, int y);
/* Parses "--keys" text: plain characters, and <Name> for named keys (see keys.c). Returns the
 * number of keys written to out, or -1 with a message. */
int keys_parse(const char *text, int *out, int max);
void keys_print_help(FILE *out, int markdown);
/* The table's rows as the help shows them (label such as "a / A", and what it does). */
void keys_help_fill(key_help *h);
void app_save_panes(app *a);
void app_set_message(app *a, const char *fmt, ...);

/* ---- window.c ---- */
int viewer_main(cli_options *o);

#endif
