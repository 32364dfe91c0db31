/* ------------------------------------------------------------------------------------------------
 * viewer/modes/chart.c: benchmark charts drawn on the CPU into an RGBA image and written as PNG. Two
 * kinds: lines with markers over a swept parameter (missing points break the line), or grouped
 * bars over image sizes; y is linear from 0 with nice ticks or logarithmic with decade gridlines.
 * Text is stb_easy_font's quads rasterised at integer scales (rotated for the y label); lines and
 * markers are anti-aliased by distance. Every pixel goes through one clipped blend, so nothing
 * lands outside the image or its border. Checked by tests/cpu/test_chart.c.
 * ------------------------------------------------------------------------------------------------ */
#include "chart.h"
#include "image_io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

/* ---- look ---- */
#define TEXT_MAX        256  /* characters of one label that are drawn */
#define FONT_CAP        7    /* stb_easy_font: capitals are 7 units tall, */
#define FONT_LINE       12   /* lines 12 apart */
#define GLYPH_BYTES     4096 /* quads of one glyph (at most ~20 of 64 bytes) */
#define BORDER          2    /* pixels along the edge that stay background */
#define BASE_WIDTH      450  /* one text scale step per this many pixels ... */
#define BASE_HEIGHT     250  /* ... and this many, whichever is smaller */
#define MAX_SCALE       8
#define MAX_Y_TICKS     64
#define LEGEND_SHARE    0.3 /* the legend takes at most this share of the width */
#define BAR_GROUP_SHARE 0.8 /* a group of bars fills this share of its category */
#define BAR_MAX_WIDTH   60  /* text-scale units: a lone bar stays a bar, not a slab */
#define MINOR_GRID_MIN  36  /* text-scale units per decade before 2..9 gridlines appear */
#define PALETTE_SIZE    10
#define HEADROOM        1.04 /* linear axis: room above the largest value */
#define SQRT_HALF       0.70710678118654752

static const uint8_t BACKGROUND[4] = {255, 255, 255, 255}, TEXT[4] = {33, 37, 41, 255},
                     TEXT_DIM[4] = {88, 92, 100, 255}, GRID[4] = {220, 222, 226, 255},
                     GRID_MINOR[4] = {239, 240, 242, 255}, AXIS[4] = {70, 74, 80, 255},
                     LEGEND_EDGE[4] = {196, 199, 205, 255};

/* matplotlib's tab10: distinct, readable on white, familiar from benchmark plots */
static const uint8_t PALETTE[PALETTE_SIZE][3] = {
    {31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};

void chart_series_color(int index, uint8_t rgba[4])
{
    if (index < 0) index = 0;
    const uint8_t *base = PALETTE[index % PALETTE_SIZE];
    int round = index / PALETTE_SIZE % 3; /* 0: as is, 1: darker, 2: lighter */
    for (int k = 0; k < 3; k++)
        rgba[k] = round == 0   ? base[k]
                  : round == 1 ? (uint8_t)(base[k] * 3 / 5)
                               : (uint8_t)(base[k] + (255 - base[k]) * 2 / 5);
    rgba[3] = 255;
}

void chart_size(const chart_desc *c, int *width, int *height)
{
    *width = c->width ? c->width : CHART_DEFAULT_WIDTH;
    *height = c->height ? c->height : CHART_DEFAULT_HEIGHT;
}

/* ---- pixels: everything is clipped to the canvas rectangle ---- */
typedef struct canvas {
    fv_image *img;
    int x0, y0, x1, y1; /* clip rectangle, half-open */
} canvas;

static canvas canvas_clip(const canvas *cv, int x0, int y0, int x1, int y1)
{
    canvas r = *cv;
    if (x0 > r.x0) r.x0 = x0;
    if (y0 > r.y0) r.y0 = y0;
    if (x1 < r.x1) r.x1 = x1;
    if (y1 < r.y1) r.y1 = y1;
    return r;
}

static void blend(const canvas *cv, int x, int y, const uint8_t c[4], double coverage)
{
    if (x < cv->x0 || y < cv->y0 || x >= cv->x1 || y >= cv->y1 || !(coverage > 0)) return;
    uint8_t *p = cv->img->data + (size_t)y * cv->img->pitch + 4 * (size_t)x;
    if (coverage >= 1) {
        memcpy(p, c, 3);
    } else {
        for (int k = 0; k < 3; k++) p[k] = (uint8_t)lrint(p[k] + (c[k] - p[k]) * coverage);
    }
    p[3] = 255;
}

static void fill_rect(const canvas *cv, int x0, int y0, int x1, int y1, const uint8_t c[4])
{
    canvas r = canvas_clip(cv, x0, y0, x1, y1);
    for (int y = r.y0; y < r.y1; y++)
        for (int x = r.x0; x < r.x1; x++) blend(&r, x, y, c, 1);
}

static void frame_rect(const canvas *cv, int x0, int y0, int x1, int y1, const uint8_t c[4])
{
    fill_rect(cv, x0, y0, x1, y0 + 1, c);
    fill_rect(cv, x0, y1 - 1, x1, y1, c);
    fill_rect(cv, x0, y0, x0 + 1, y1, c);
    fill_rect(cv, x1 - 1, y0, x1, y1, c);
}

static int clamp_int(double v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)v;
}

/* A segment `half` pixels either side of (ax, ay)-(bx, by), round caps, coverage by distance. */
static void draw_segment(const canvas *cv, double ax, double ay, double bx, double by, double half,
                         const uint8_t c[4])
{
    int x0 = clamp_int(floor(fmin(ax, bx) - half - 1), cv->x0, cv->x1);
    int x1 = clamp_int(ceil(fmax(ax, bx) + half + 1), cv->x0, cv->x1);
    int y0 = clamp_int(floor(fmin(ay, by) - half - 1), cv->y0, cv->y1);
    int y1 = clamp_int(ceil(fmax(ay, by) + half + 1), cv->y0, cv->y1);
    double dx = bx - ax, dy = by - ay, len2 = dx * dx + dy * dy;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            double px = x + 0.5 - ax, py = y + 0.5 - ay;
            double t = len2 > 0 ? (px * dx + py * dy) / len2 : 0;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            blend(cv, x, y, c, half + 0.5 - hypot(px - t * dx, py - t * dy));
        }
}

/* Markers tell series apart beyond the palette's first round: circle, square, diamond. */
static void draw_marker(const canvas *cv, double cx, double cy, double r, int shape,
                        const uint8_t c[4])
{
    int x0 = clamp_int(floor(cx - r - 1), cv->x0, cv->x1);
    int x1 = clamp_int(ceil(cx + r + 1), cv->x0, cv->x1);
    int y0 = clamp_int(floor(cy - r - 1), cv->y0, cv->y1);
    int y1 = clamp_int(ceil(cy + r + 1), cv->y0, cv->y1);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            double dx = fabs(x + 0.5 - cx), dy = fabs(y + 0.5 - cy);
            double cover = shape == 0   ? r + 0.5 - hypot(dx, dy)
                           : shape == 1 ? fmin(r * 0.85 + 0.5 - dx, r * 0.85 + 0.5 - dy)
                                        : (r * 1.2 - dx - dy) * SQRT_HALF + 0.5;
            blend(cv, x, y, c, cover);
        }
}

/* ---- text: stb_easy_font quads, scaled by an integer, optionally turned to read upwards ---- */
/* A printable copy (stb_easy_font indexes a table by character: only 32..126 are safe). */
static void text_clean(const char *s, char out[TEXT_MAX])
{
    size_t n = 0;
    for (; s && s[n] && n < TEXT_MAX - 1; n++)
        out[n] = (unsigned char)s[n] >= 32 && (unsigned char)s[n] < 127 ? s[n] : '?';
    out[n] = 0;
}

/* Ink width in pixels (stb_easy_font counts one unit of spacing after the last glyph). */
static int text_width(const char *clean, int scale)
{
    int w = stb_easy_font_width((char *)clean);
    return w > 0 ? (w - 1) * scale : 0;
}

/* The largest scale from `want` down to `least` at which `clean` fits `max_w`; below that it
 * is cut and ends in "..." (or vanishes when not even that fits). */
static int text_fit(char clean[TEXT_MAX], int want, int least, int max_w)
{
    for (int s = want; s >= least; s--)
        if (text_width(clean, s) <= max_w) return s;
    size_t n = strlen(clean);
    while (n > 0 && text_width(clean, least) > max_w) {
        n--;
        if (n >= 3)
            memcpy(clean + n - 3, "...", 4);
        else
            clean[n] = 0;
    }
    return least;
}

/* Top-left of the text at (x, y); rotated: the text runs upwards from (x, y), tops to the left. */
static void draw_text(const canvas *cv, int x, int y, const char *clean, int scale,
                      const uint8_t c[4], int rotated)
{
    char glyph[2] = {0, 0};
    char quads[GLYPH_BYTES];
    int pen = 0;
    for (const char *p = clean; *p; p++) {
        glyph[0] = *p;
        int n = stb_easy_font_print(0, 0, glyph, NULL, quads, sizeof quads);
        for (int q = 0; q < n; q++) {
            const float *a = (const float *)(quads + 64 * q),
                        *b = (const float *)(quads + 64 * q + 32);
            int gx0 = pen + (int)lrintf(a[0]), gy0 = (int)lrintf(a[1]);
            int gx1 = pen + (int)lrintf(b[0]), gy1 = (int)lrintf(b[1]);
            if (rotated)
                fill_rect(cv, x + gy0 * scale, y - gx1 * scale, x + gy1 * scale, y - gx0 * scale,
                          c);
            else
                fill_rect(cv, x + gx0 * scale, y + gy0 * scale, x + gx1 * scale, y + gy1 * scale,
                          c);
        }
        pen += stb_easy_font_width(glyph);
    }
}

/* ---- the y axis ---- */
typedef struct y_axis {
    int log;
    double lo, hi;    /* linear: values; log: decade exponents */
    double step;      /* linear: between ticks */
    int decimals;     /* linear: of the tick labels */
    int label_stride; /* log: label every this many decades */
    int top, bottom;  /* pixel rows of hi and lo */
} y_axis;

static int valid(double v)
{
    return isfinite(v) && v > 0;
}

static double y_pixel(const y_axis *a, double v)
{
    double t = a->log ? (log10(v) - a->lo) / (a->hi - a->lo) : (v - a->lo) / (a->hi - a->lo);
    return a->bottom - t * (a->bottom - a->top);
}

/* "0.01", "1", "1000", "1e-06" */
static void decade_label(int e, char *buf, size_t size)
{
    if (e >= 0 && e <= 6)
        snprintf(buf, size, "%.0f", pow(10, e));
    else if (e < 0 && e >= -5)
        snprintf(buf, size, "%.*f", -e, pow(10, e));
    else
        snprintf(buf, size, "1e%d", e);
}

static void linear_label(const y_axis *a, double v, char *buf, size_t size)
{
    if (a->hi >= 1e7)
        snprintf(buf, size, "%g", v);
    else
        snprintf(buf, size, "%.*f", a->decimals, v);
}

/* The range and tick spacing for data in [lo, hi] (hi <= 0: no data) drawn between pixel rows
 * top and bottom, with labels at text scale `scale`. */
static void y_axis_make(y_axis *a, int log_y, double lo, double hi, int top, int bottom, int scale)
{
    memset(a, 0, sizeof *a);
    a->log = log_y;
    a->top = top;
    a->bottom = bottom;
    int rows = bottom - top > 1 ? bottom - top : 1;
    int label_rows = 2 * FONT_CAP * scale; /* a label and a gap */
    if (log_y) {
        if (!(hi > 0)) lo = 0.1, hi = 10;
        a->lo = floor(log10(lo) + 1e-9);
        a->hi = ceil(log10(hi) - 1e-9);
        if (a->hi <= a->lo) a->lo -= 1, a->hi += 1;
        double per_decade = rows / (a->hi - a->lo);
        a->label_stride = per_decade >= label_rows ? 1 : (int)ceil(label_rows / per_decade);
    } else {
        if (!(hi > 0)) hi = 1 / HEADROOM;
        int target = rows / (3 * label_rows);
        target = target < 2 ? 2 : target > 8 ? 8 : target;
        double raw = hi * HEADROOM / target, mag = pow(10, floor(log10(raw))), norm = raw / mag;
        a->step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
        a->lo = 0;
        a->hi = ceil(hi * HEADROOM / a->step) * a->step;
        while (a->decimals < 8) {
            double scaled = a->step * pow(10, a->decimals);
            if (fabs(scaled - round(scaled)) < 1e-6 * scaled) break;
            a->decimals++;
        }
    }
}

/* Major ticks: values and labels; returns the count. */
static int y_axis_ticks(const y_axis *a, double values[MAX_Y_TICKS], char labels[][16])
{
    int n = 0;
    if (a->log) {
        for (int e = (int)a->lo; e <= (int)a->hi && n < MAX_Y_TICKS; e += a->label_stride) {
            values[n] = pow(10, e);
            decade_label(e, labels[n++], 16);
        }
    } else {
        for (int i = 0; n < MAX_Y_TICKS; i++) {
            double v = i * a->step;
            if (v > a->hi * (1 + 1e-9)) break;
            values[n] = v;
            linear_label(a, v, labels[n++], 16);
        }
    }
    return n;
}

/* ---- checks ---- */
static fv_status chart_check(const chart_desc *c)
{
    if (!c) return fv_fail(FV_ERR_ARG, "chart: no chart description");
    int w, h;
    chart_size(c, &w, &h);
    if (w < CHART_MIN_SIDE || w > CHART_MAX_SIDE || h < CHART_MIN_SIDE || h > CHART_MAX_SIDE)
        return fv_fail(FV_ERR_ARG, "chart: size %dx%d, expected %d..%d pixels per side", w, h,
                       CHART_MIN_SIDE, CHART_MAX_SIDE);
    if (c->n_x < 1 || c->n_x > CHART_MAX_X)
        return fv_fail(FV_ERR_ARG, "chart: %d x values, expected 1..%d", c->n_x, CHART_MAX_X);
    if (c->n_series < 1 || c->n_series > CHART_MAX_SERIES)
        return fv_fail(FV_ERR_ARG, "chart: %d series, expected 1..%d", c->n_series,
                       CHART_MAX_SERIES);
    if (!c->title || !c->x_label || !c->y_label)
        return fv_fail(FV_ERR_ARG, "chart: title, x_label and y_label must not be NULL");
    if (!c->x_ticks || !c->series)
        return fv_fail(FV_ERR_ARG, "chart: x_ticks and series must not be NULL");
    for (int i = 0; i < c->n_x; i++)
        if (!c->x_ticks[i]) return fv_fail(FV_ERR_ARG, "chart: x tick %d is NULL", i);
    for (int i = 0; i < c->n_series; i++)
        if (!c->series[i].name || !c->series[i].y)
            return fv_fail(FV_ERR_ARG, "chart: series %d has a NULL name or values", i);
    return FV_OK;
}

/* ---- the legend, right of the plot ---- */
typedef struct legend {
    int scale, row, swatch, pad;
    int rows; /* series shown; the last row says "+N more" when not all fit */
    int width, height;
} legend;

static void legend_make(legend *l, const chart_desc *c, int s, int width, int plot_rows)
{
    for (l->scale = s; l->scale >= 1; l->scale--) {
        l->row = (FONT_LINE + 3) * l->scale;
        l->pad = 6 * l->scale;
        if (c->n_series * l->row + 2 * l->pad <= plot_rows) break;
    }
    if (l->scale < 1) l->scale = 1;
    l->rows = (plot_rows - 2 * l->pad) / l->row;
    if (l->rows > c->n_series) l->rows = c->n_series;
    if (l->rows < 1) l->rows = 1;
    l->swatch = (c->lines ? 20 : 10) * l->scale;
    int names = 0;
    for (int i = 0; i < c->n_series; i++) {
        char t[TEXT_MAX];
        text_clean(c->series[i].name, t);
        int tw = text_width(t, l->scale);
        if (tw > names) names = tw;
    }
    l->width = 3 * l->pad + l->swatch + names;
    int most = (int)(width * LEGEND_SHARE);
    if (l->width > most) l->width = most;
    l->height = l->rows * l->row + 2 * l->pad;
}

static void legend_draw(const canvas *cv, const legend *l, const chart_desc *c, int x, int y,
                        double line_half, double marker_r)
{
    canvas box = canvas_clip(cv, x, y, x + l->width, y + l->height);
    fill_rect(&box, x, y, x + l->width, y + l->height, BACKGROUND);
    frame_rect(&box, x, y, x + l->width, y + l->height, LEGEND_EDGE);
    canvas inner = canvas_clip(&box, x + 1, y + 1, x + l->width - 1, y + l->height - 1);
    int name_w = l->width - 3 * l->pad - l->swatch;
    for (int i = 0; i < l->rows; i++) {
        uint8_t col[4];
        chart_series_color(i, col);
        int top = y + l->pad + i * l->row, mid = top + l->row / 2;
        int sx = x + l->pad;
        char t[TEXT_MAX];
        if (i == l->rows - 1 && l->rows < c->n_series) {
            snprintf(t, sizeof t, "+%d more", c->n_series - l->rows);
            text_fit(t, l->scale, l->scale, l->width - 2 * l->pad);
            draw_text(&inner, sx, mid - FONT_CAP * l->scale / 2, t, l->scale, TEXT_DIM, 0);
            break;
        }
        if (c->lines) {
            draw_segment(&inner, sx, mid, sx + l->swatch, mid, line_half, col);
            draw_marker(&inner, sx + l->swatch / 2.0, mid, marker_r, i / PALETTE_SIZE % 3, col);
        } else {
            fill_rect(&inner, sx, mid - l->swatch / 2, sx + l->swatch, mid + l->swatch / 2, col);
        }
        text_clean(c->series[i].name, t);
        text_fit(t, l->scale, l->scale, name_w);
        draw_text(&inner, sx + l->swatch + l->pad, mid - FONT_CAP * l->scale / 2, t, l->scale, TEXT,
                  0);
    }
}

/* ---- the chart ---- */
static int x_ticks_widest(const chart_desc *c, int scale)
{
    int widest = 0;
    for (int i = 0; i < c->n_x; i++) {
        char t[TEXT_MAX];
        text_clean(c->x_ticks[i], t);
        if (text_width(t, scale) > widest) widest = text_width(t, scale);
    }
    return widest;
}

fv_status chart_render(const chart_desc *c, fv_image *out)
{
    FV_TRY(chart_check(c));
    int w, h;
    chart_size(c, &w, &h);
    if (!out || !out->data || out->width != w || out->height != h || out->pitch < 4 * (size_t)w)
        return fv_fail(FV_ERR_ARG, "chart: the output image must be a %dx%d host image", w, h);

    canvas whole = {out, 0, 0, w, h};
    fill_rect(&whole, 0, 0, w, h, BACKGROUND);
    canvas cv = canvas_clip(&whole, BORDER, BORDER, w - BORDER, h - BORDER);

    int s = w / BASE_WIDTH < h / BASE_HEIGHT ? w / BASE_WIDTH : h / BASE_HEIGHT;
    s = s < 1 ? 1 : s > MAX_SCALE ? MAX_SCALE : s;
    int margin = 8 * s, gap = 6 * s;
    double line_half = 0.5 + 0.5 * s, marker_r = 2 + 1.25 * s;

    /* data range */
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < c->n_series; i++)
        for (int j = 0; j < c->n_x; j++) {
            double v = c->series[i].y[j];
            if (!valid(v)) continue;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
    int has_data = hi > 0;

    /* top: title and subtitle */
    char title[TEXT_MAX], subtitle[TEXT_MAX], x_label[TEXT_MAX], y_label[TEXT_MAX];
    text_clean(c->title, title);
    text_clean(c->subtitle, subtitle);
    text_clean(c->x_label, x_label);
    text_clean(c->y_label, y_label);
    int title_s = text_fit(title, s + 1, s, w - 2 * margin);
    int y = margin;
    draw_text(&cv, margin, y, title, title_s, TEXT, 0);
    y += FONT_LINE * title_s;
    if (subtitle[0]) {
        int sub_s = text_fit(subtitle, s, s, w - 2 * margin);
        draw_text(&cv, margin, y, subtitle, sub_s, TEXT_DIM, 0);
        y += FONT_LINE * sub_s;
    }
    int py0 = y + 2 * gap;

    /* bottom: x label, under one or two rows of tick labels */
    int tick_len = 2 * s;
    int x_label_h = x_label[0] ? FONT_LINE * s : 0;
    int tick_row = FONT_LINE * s;
    int py1 = h - margin - x_label_h - tick_row - tick_len - gap / 2;

    /* left: rotated y label and the tick labels; right: the legend */
    y_axis ax;
    double tick_v[MAX_Y_TICKS];
    char tick_t[MAX_Y_TICKS][16];
    int n_ticks = 0, tick_w = 0, px0 = 0;
    legend leg;
    int px1 = 0, x_s = s, x_rows = 1, x_stride = 1;
    double slot = 1;
    for (int pass = 0; pass < 2; pass++) {
        y_axis_make(&ax, c->log_y, lo, hi, py0, py1, s);
        n_ticks = y_axis_ticks(&ax, tick_v, tick_t);
        for (int i = 0; i < n_ticks; i++)
            if (text_width(tick_t[i], s) > tick_w) tick_w = text_width(tick_t[i], s);
        px0 = margin + (y_label[0] ? FONT_LINE * s + gap : 0) + tick_w + tick_len + gap;
        legend_make(&leg, c, s, w, py1 - py0);
        px1 = w - margin - leg.width - 2 * gap;
        if (px1 < px0 + 1) px1 = px0 + 1;
        slot = (double)(px1 - px0) / c->n_x;

        /* x tick labels: one step smaller while that stays readable, then staggered in two
         * rows, then every k-th */
        int widest = x_ticks_widest(c, s), smaller = s > 2 ? x_ticks_widest(c, s - 1) : 0;
        x_s = s;
        x_rows = 1;
        x_stride = 1;
        if (widest + gap > slot && c->n_x > 1) {
            if (widest + gap <= 2 * slot)
                x_rows = 2;
            else if (s > 2 && smaller + gap <= slot)
                x_s = s - 1;
            else
                x_stride = (int)ceil((widest + 2 * gap) / slot);
        }
        if (x_rows == 1 || pass == 1) break;
        py1 -= FONT_LINE * x_s; /* room for the second row, then lay out again */
    }
    canvas plot = canvas_clip(&cv, px0, py0, px1 + 1, py1);

    /* gridlines */
    if (ax.log) {
        double per_decade = (double)(py1 - py0) / (ax.hi - ax.lo);
        for (int e = (int)ax.lo; e < (int)ax.hi && per_decade >= MINOR_GRID_MIN * s; e++)
            for (int m = 2; m <= 9; m++) {
                int gy = (int)lrint(y_pixel(&ax, m * pow(10, e)));
                fill_rect(&plot, px0, gy, px1, gy + 1, GRID_MINOR);
            }
    }
    for (int i = 0; i < n_ticks; i++) {
        int gy = (int)lrint(y_pixel(&ax, tick_v[i]));
        if (i > 0 || ax.log) fill_rect(&cv, px0, gy, px1, gy + 1, GRID);
        fill_rect(&cv, px0 - tick_len, gy, px0, gy + 1, AXIS);
        int tw = text_width(tick_t[i], s);
        draw_text(&cv, px0 - tick_len - gap / 2 - tw, gy - FONT_CAP * s / 2, tick_t[i], s, TEXT_DIM,
                  0);
    }
    if (c->lines)
        for (int j = 0; j < c->n_x; j += x_stride) {
            int gx = (int)lrint(px0 + (j + 0.5) * slot);
            fill_rect(&plot, gx, py0, gx + 1, py1, GRID_MINOR);
        }

    /* data */
    /* markers may stand out of the plot by their radius; bars stop at the axis */
    int reach = (int)ceil(marker_r) + 1;
    canvas data = canvas_clip(&cv, px0 + 1, py0 - reach, px1 + reach, c->lines ? py1 + reach : py1);
    if (c->lines) {
        for (int i = 0; i < c->n_series; i++) {
            uint8_t col[4];
            chart_series_color(i, col);
            const double *v = c->series[i].y;
            for (int j = 0; j + 1 < c->n_x; j++)
                if (valid(v[j]) && valid(v[j + 1]))
                    draw_segment(&data, px0 + (j + 0.5) * slot, y_pixel(&ax, v[j]),
                                 px0 + (j + 1.5) * slot, y_pixel(&ax, v[j + 1]), line_half, col);
            for (int j = 0; j < c->n_x; j++)
                if (valid(v[j]))
                    draw_marker(&data, px0 + (j + 0.5) * slot, y_pixel(&ax, v[j]), marker_r,
                                i / PALETTE_SIZE % 3, col);
        }
    } else {
        double bar = slot * BAR_GROUP_SHARE / c->n_series;
        if (bar > BAR_MAX_WIDTH * s) bar = BAR_MAX_WIDTH * s;
        double group = bar * c->n_series;
        int spacing = bar >= 6 ? 1 : 0; /* a white hairline between wide bars */
        for (int j = 0; j < c->n_x; j++) {
            double left = px0 + (j + 0.5) * slot - group / 2;
            for (int i = 0; i < c->n_series; i++) {
                double v = c->series[i].y[j];
                if (!valid(v)) continue;
                uint8_t col[4];
                chart_series_color(i, col);
                int bx0 = (int)lrint(left + i * bar),
                    bx1 = (int)lrint(left + (i + 1) * bar) - spacing;
                if (bx1 <= bx0) bx1 = bx0 + 1;
                fill_rect(&data, bx0, (int)lrint(y_pixel(&ax, v)), bx1, py1, col);
            }
        }
    }
    if (!has_data) {
        char note[] = "no data";
        int ns = s + 1;
        draw_text(&plot, (px0 + px1 - text_width(note, ns)) / 2, (py0 + py1 - FONT_CAP * ns) / 2,
                  note, ns, TEXT_DIM, 0);
    }

    /* axes, x tick labels, axis labels */
    fill_rect(&cv, px0, py0, px0 + 1, py1 + 1, AXIS);
    fill_rect(&cv, px0, py1, px1 + 1, py1 + 1, AXIS);
    int label_top = py1 + tick_len + gap / 2;
    for (int j = 0; j < c->n_x; j++) {
        int gx = (int)lrint(px0 + (j + 0.5) * slot);
        fill_rect(&cv, gx, py1, gx + 1, py1 + tick_len, AXIS);
        if (j % x_stride) continue;
        char t[TEXT_MAX];
        text_clean(c->x_ticks[j], t);
        text_fit(t, x_s, x_s, (int)(slot * x_stride * x_rows) - gap);
        int ty = label_top + (x_rows == 2 && j % 2 ? FONT_LINE * x_s : 0);
        draw_text(&cv, gx - text_width(t, x_s) / 2, ty, t, x_s, TEXT_DIM, 0);
    }
    if (x_label[0]) {
        int ls = text_fit(x_label, s, s, px1 - px0);
        draw_text(&cv, (px0 + px1 - text_width(x_label, ls)) / 2, h - margin - FONT_CAP * ls,
                  x_label, ls, TEXT, 0);
    }
    if (y_label[0]) {
        int ls = text_fit(y_label, s, s, py1 - py0);
        draw_text(&cv, margin, (py0 + py1 + text_width(y_label, ls)) / 2, y_label, ls, TEXT, 1);
    }

    legend_draw(&cv, &leg, c, w - margin - leg.width, py0, line_half, marker_r);
    return FV_OK;
}

fv_status chart_write_png(const char *path, const chart_desc *c)
{
    if (!path) return fv_fail(FV_ERR_ARG, "chart: no output path");
    FV_TRY(chart_check(c));
    FV_TRY(image_check_output_path(path));
    int w, h;
    chart_size(c, &w, &h);
    fv_image img;
    FV_TRY(fv_host_image_alloc(&img, w, h));
    fv_status st = chart_render(c, &img);
    if (st == FV_OK) st = image_save_png(path, &img);
    fv_host_image_free(&img);
    return st;
}
