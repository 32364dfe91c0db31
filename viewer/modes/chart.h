/* ------------------------------------------------------------------------------------------------
 * viewer/modes/chart.h: benchmark charts as standalone PNGs (the benchmark's --chart FILE), drawn on the
 * CPU without GL: a line chart over a swept parameter or grouped bars over image sizes, linear or
 * logarithmic y, title, subtitle, axis labels, gridlines and a legend. Text is stb_easy_font.
 * Checked by tests/cpu/test_chart.c.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CHART_H
#define FV_CHART_H

#include "filter.h"

typedef struct chart_series {
    const char *name; /* legend entry, e.g. "fast" or "box/fast" */
    const double *y;  /* n_x values; <= 0, NaN or infinite: no point (not measured) */
} chart_series;

typedef struct chart_desc {
    const char *title;    /* first line at the top */
    const char *subtitle; /* second line (device, copy bandwidth, ...), may be NULL */
    const char *x_label;  /* e.g. "radius" or "image size" */
    const char *y_label;  /* e.g. "ms per run (log scale)" */
    const char *const *x_ticks;
    int n_x; /* category labels along x, in order */
    const chart_series *series;
    int n_series;
    int lines;         /* 1: one line with markers per series (a swept parameter);
                                0: grouped bars (sizes) */
    int log_y;         /* 1: logarithmic y with decade gridlines (0.01, 0.1, 1, 10, ...);
                                0: linear from 0 with nice ticks */
    int width, height; /* pixels, each 100..8000; 0 = 1200 x 700 */
} chart_desc;

#define CHART_DEFAULT_WIDTH  1200
#define CHART_DEFAULT_HEIGHT 700
#define CHART_MIN_SIDE       100
#define CHART_MAX_SIDE       8000
#define CHART_MAX_X          1000
#define CHART_MAX_SERIES     256

/* Draws the chart and writes it as a PNG via image_save_png (atomic: temporary name, rename). */
fv_status chart_write_png(const char *path, const chart_desc *c);

/* Draws into a host RGBA image the caller allocated, of chart_size() pixels; for tests. */
fv_status chart_render(const chart_desc *c, fv_image *out);

/* The size c asks for, with 0 meaning the default (no checks). */
void chart_size(const chart_desc *c, int *width, int *height);

/* The RGBA colour series `index` is drawn in (a fixed palette of ten, a darker and a lighter
 * round after it, then it cycles); the legend shows the same colour. */
void chart_series_color(int index, uint8_t rgba[4]);

#endif
