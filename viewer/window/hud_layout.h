/* ------------------------------------------------------------------------------------------------
 * viewer/window/hud_layout.h: the HUD as plain data, laid out without OpenGL. hud.c fills a
 * hud_model from the app (strings and numbers), hud_layout_build places it in a window of any size
 * (an integer scale of the bitmap font chosen from the window, lines wrapped or shortened to the
 * width, the picked parameter never split, panels kept inside the window) and hud.c turns the
 * result into triangles. Kept apart from GL so that tests/cpu/test_hud_layout.c can lay out every
 * filter, parameter, mode, legend and the help at many window sizes and check each glyph's box.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_HUD_LAYOUT_H
#define FV_HUD_LAYOUT_H

#include "filter.h"

#include <stdint.h>

typedef enum hud_mode { HUD_FULL, HUD_COMPACT, HUD_HIDDEN } hud_mode;

#define CHART_MAX_VARIANTS 16

typedef struct bar_chart {
    int visible, stale, n;
    const char *names[CHART_MAX_VARIANTS];
    int on_host[CHART_MAX_VARIANTS]; /* the reference: drawn apart, may run off the scale */
    double ms[CHART_MAX_VARIANTS];
} bar_chart;

#define KEYS_MAX_HELP 64

/* The key table's rows as the help overlay shows them (keys_help_fill) */
typedef struct key_help {
    int n;
    const char *label[KEYS_MAX_HELP], *help[KEYS_MAX_HELP];
} key_help;

/* One pane as the HUD tells it */
typedef struct hud_pane {
    const fv_filter *filter;
    const fv_params *params;
    int original;            /* shows the image as loaded */
    char label[80];          /* "fast", "box:fast", "original + noise" */
    char timing[96];         /* "0.0340 ms  412 GB/s  81% of copy", or "" */
    const char *summary;     /* the variant's one line */
    const char *resources;   /* its kernels' registers, shared memory, occupancy; "" none */
    char replaced[320];      /* "no NVIDIA GPU: B fast -> cpu (...)": the variant asked for cannot
                              run here and another runs in its place, or the registry refused it
                              for this image; "" when not */
    const char *user_error;  /* the pane's kernel file: "A my_blur.cu: my_blur.cu:12: error: ..."
                                (a compile error or a fault, said in every mode); "" or NULL */
    const char *user_status; /* "A: compiling my_blur.cu ..."; "" or NULL */
} hud_pane;

typedef enum hud_compare { HUD_SINGLE, HUD_WIPE, HUD_SIDE_BY_SIDE, HUD_DIFFERENCE } hud_compare;

typedef struct hud_model {
    hud_mode mode;
    int win_w, win_h;
    char title[384];        /* file, type, size, zoom, frame time */
    char compute_note[320]; /* how results reach the screen (app.h's, whole) */
    int compute_bad;        /* not the fast path: said in the error colour */
    hud_pane pane[2];
    int linked, edit_pane, picked_param;
    int n_filters;       /* the filter keys 1 .. n_filters (at most 9) */
    char noise[160];     /* "" when off */
    char compare[160];   /* "compare [c]: wipe ..." */
    char diff[200];      /* "|A-B| ...", "" when not known */
    int diff_zero;       /* the panes agree: said in the good colour */
    char probe[200];     /* the pixel under the cursor, "" none */
    char display[200];   /* how 16-bit and float images are shown ("" for plain 8-bit) */
    char load_note[320]; /* what the load changed or lost, "" none */
    /* the difference heat map's full scale (its colour key's right end) in the image's units;
       0: 255 / gain, as for 8-bit images; diff_integer: ticks are whole numbers */
    double diff_top;
    int diff_integer;
    int colormap;             /* 0 none, 1 viridis, 2 turbo (hud_colormap) */
    double colormap_value[3]; /* the image values at its left end, middle and right end */
    const char *error;        /* "" none */
    const char *message;      /* "" none */
    hud_compare compare_mode;
    int show_original;
    float divider; /* wipe: fraction of the window width */
    float gain;    /* difference gain */
    int show_help;
    const char *version;
    const key_help *help;
    const bar_chart *chart; /* NULL: hidden */
    char chart_title[320];
} hud_model;

#define HUD_MAX_RUNS   640
#define HUD_MAX_BOXES  1024
#define HUD_POOL_BYTES 49152

/* text at the layout's scale: pool[offset .. offset + length), printable ASCII */
typedef struct hud_run {
    float x, y;
    int offset, length;
    uint8_t rgba[4];
} hud_run;

/* a filled rectangle: panels, legend swatches, bars, the wipe divider */
typedef struct hud_box {
    float x, y, w, h;
    uint8_t rgba[4];
} hud_box;

typedef struct hud_layout {
    int win_w, win_h, scale;
    int n_runs, n_boxes, pool_used;
    hud_run runs[HUD_MAX_RUNS];
    hud_box boxes[HUD_MAX_BOXES]; /* drawn in order, under all text */
    char pool[HUD_POOL_BYTES];
    int picked_run; /* the run holding the whole picked parameter (">name value<"); -1 none */
    int dropped;    /* rows left out for want of room (said on screen by "...") */
} hud_layout;

/* The font's integer scale for a window: 1 up to about 1440x1080, 2 at 1920x1080, 3 at 4K. */
int hud_scale(int win_w, int win_h);

/* "gaussian [1-6,Tab]: sigma 1, >radius 2< [j s/S d/D]  iterations 1 [+/-]": the parameter line
 * of pane p; *picked_at and *picked_len locate ">name value<" in it (-1, 0 when none is picked). */
void hud_params_text(const hud_model *m, int p, char *buf, int size, int *picked_at,
                     int *picked_len);

/* The colour key a pane with this filter and parameters shows (the filter's fv_filter.legend),
 * NULL when its colours are plain (the difference heat map has its own, see hud_layout.c). */
const fv_legend *hud_legend(const fv_filter *f, const fv_params *params);

/* The difference heat map's colour of t in 0..1: the same formula as shaders/image.frag's heat. */
void hud_heat(float t, uint8_t rgba[4]);
/* The false-colour map `colormap` (1 viridis, 2 turbo) at t in 0..1: image.frag's polynomials. */
void hud_colormap(int colormap, float t, uint8_t rgba[4]);

/* Lays m out for m->win_w x m->win_h; allocates nothing (out is the caller's, reused). */
void hud_layout_build(const hud_model *m, hud_layout *out);

/* Whether a run is drawn in the alert colour (errors, a replaced variant, a faulted kernel). */
int hud_run_alert(const hud_run *r);

/* The width in pixels of n characters of s at scale 1 (stb_easy_font's advance). */
int hud_text_width(const char *s, int n);

#endif
