/* ------------------------------------------------------------------------------------------------
 * viewer/window/hud_layout.c: places the HUD (hud_layout.h) in a window of any size, without GL.
 * The bitmap font (stb_easy_font, 12 pixels a line) is drawn at an integer scale chosen from the
 * window, so strokes stay crisp. Every line is wrapped to the panel's width at a space (never
 * inside the picked parameter) or, for descriptions, shortened with "..."; when the rows do not
 * fit the window's height the least needed lines go first (details, then context), and what is
 * left out is said by "...". Colour keys (legends) explain each false-colour picture: the
 * difference heat map at its gain, the false colour of 16-bit and float display, and the keys the
 * filters declare for their stages (fv_filter.legend), all drawn alike. Everything lives in the
 * caller's hud_layout: no allocation, so the frame loop may call it every frame.
 * ------------------------------------------------------------------------------------------------ */
#include "hud_layout.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stb_easy_font.h>

#define LINE_PX     12 /* stb_easy_font's line: glyphs take rows 0 .. 10 of it */
#define GLYPH_PX    10
#define PAD_PX      4 /* inside a panel, at scale 1 */
#define MARGIN_PX   6 /* between a panel and the window's edge */
#define INDENT_PX   24
#define MAX_ROWS    160
#define LEGEND_RAMP 48 /* swatches in a colour ramp */

static const uint8_t WHITE[4] = {235, 235, 235, 255}, DIM[4] = {170, 175, 185, 255},
                     ACCENT[4] = {255, 196, 64, 255}, GOOD[4] = {120, 220, 120, 255},
                     BAD[4] = {255, 110, 100, 255}, PANEL[4] = {12, 12, 16, 190},
                     OPAQUE_PANEL[4] = {12, 12, 16, 240}, BAR_A[4] = {60, 140, 230, 255},
                     BAR_CPU[4] = {150, 150, 150, 255}, FRAME[4] = {90, 90, 100, 255};

int hud_scale(int win_w, int win_h)
{
    /* 960x720 reads well at 1; a 1920x1080 window gets 2 and a 4K one 3 */
    const double fit = fmin(win_w / 960.0, win_h / 720.0);
    int s = (int)floor(fit + 0.5);
    return s < 1 ? 1 : (s > 4 ? 4 : s);
}

static int char_advance(char c)
{
    if (c < 32 || c > 126) c = '?';
    return stb_easy_font_charinfo[c - 32].advance & 15;
}

int hud_run_alert(const hud_run *r)
{
    return memcmp(r->rgba, BAD, 4) == 0;
}

int hud_text_width(const char *s, int n)
{
    int w = 0;
    for (int i = 0; i < n && s[i]; i++) w += char_advance(s[i]);
    return w;
}

void hud_heat(float t, uint8_t rgba[4])
{
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    const float c[3] = {1.6f * t, 1.4f * t * t, 0.65f * sinf(3.1416f * t) + 0.9f * t * t * t * t};
    for (int i = 0; i < 3; i++) rgba[i] = (uint8_t)(fminf(1.0f, fmaxf(0.0f, c[i])) * 255 + 0.5f);
    rgba[3] = 255;
}

void hud_colormap(int colormap, float t, uint8_t rgba[4])
{
    static const double viridis[7][3] = {
        {0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
        {0.1050930431085774, 1.404613529898575, 1.384590162594685},
        {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
        {-4.634230498983486, -5.799100973351585, -19.33244095627987},
        {6.228269936347081, 14.17993336680509, 56.69055260068105},
        {4.776384997670288, -13.74514537774601, -65.35303263337234},
        {-5.435455855934631, 4.645852612178535, 26.3124352495832}};
    static const double turbo[6][3] = {
        {0.13572138, 0.09140261, 0.10667330},      {4.61539260, 2.19418839, 12.64194608},
        {-42.66032258, 4.84296658, -60.58204836},  {132.13108234, -14.18503333, 110.36276771},
        {-152.94239396, 4.27729857, -89.90310912}, {59.28637943, 2.82956604, 27.34824973}};
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    for (int c = 0; c < 3; c++) {
        double v = 0; /* Horner, highest power first */
        if (colormap == 1)
            for (int k = 6; k >= 0; k--) v = v * t + viridis[k][c];
        else
            for (int k = 5; k >= 0; k--) v = v * t + turbo[k][c];
        rgba[c] = (uint8_t)(fmin(1.0, fmax(0.0, v)) * 255 + 0.5);
    }
    rgba[3] = 255;
}

/* A value for a colour key's tick: whole numbers as such, others with 4 significant digits. */
static void tick_text(char *buf, size_t size, double v, int integer)
{
    if (integer)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.4g", v);
}

/* ---- the parameter line ---- */
void hud_params_text(const hud_model *m, int p, char *buf, int size, int *picked_at,
                     int *picked_len)
{
    const fv_filter *f = m->pane[p].filter;
    const fv_params *params = m->pane[p].params, resolved = fv_params_resolved(f, params);
    const int editing = m->edit_pane == p, n = m->n_filters > 9 ? 9 : m->n_filters;
    int len = 0;
    *picked_at = -1;
    *picked_len = 0;
    char keys[24];
    snprintf(keys, sizeof keys, " [1-%d,Tab]", n);
    if (m->linked)
        len = snprintf(buf, (size_t)size, "%s%s:", f->name, keys);
    else
        len = snprintf(buf, (size_t)size, "%s%c: %s%s:", editing ? ">" : " ", 'A' + p, f->name,
                       editing ? keys : "");
    int shown = 0;
    for (int i = 0; i < f->n_params && len < size; i++) {
        if (f->params[i].type == FV_PARAM_IMAGE) continue; /* a file: not shown, not stepped */
        char v[32];
        fv_param_format(f, i, resolved.value[i], v, sizeof v);
        const int picked = editing && i == m->picked_param;
        len += snprintf(buf + len, (size_t)(size - len), "%s ", shown++ ? "," : "");
        if (picked && len < size) *picked_at = len;
        if (len < size)
            len += snprintf(buf + len, (size_t)(size - len), "%s%s %s%s", picked ? ">" : "",
                            f->params[i].name, v, picked ? "<" : "");
        if (picked && len < size) *picked_len = len - *picked_at;
    }
    if (f->n_params == 0 && len < size)
        len += snprintf(buf + len, (size_t)(size - len), " no parameters");
    if (editing && f->n_params && len < size)
        len += snprintf(buf + len, (size_t)(size - len), " [j s/S d/D]");
    if (len < size)
        snprintf(buf + len, (size_t)(size - len), "  iterations %d%s", params->iterations,
                 editing ? " [+/-]" : "");
    if (*picked_at >= 0 && *picked_at + *picked_len > (int)strlen(buf)) *picked_at = -1;
}

/* ---- legends: which false colour a pane shows ---- */
const fv_legend *hud_legend(const fv_filter *f, const fv_params *params)
{
    return f && params && f->legend ? f->legend(params) : NULL;
}

/* ---- output ---- */
static int pool_add(hud_layout *L, const char *s, int n)
{
    if (L->pool_used + n + 1 > HUD_POOL_BYTES) return -1;
    const int at = L->pool_used;
    for (int i = 0; i < n; i++) {
        const char c = s[i];
        L->pool[at + i] = c < 32 || c > 126 ? '?' : c; /* the font has printable ASCII only */
    }
    L->pool[at + n] = 0;
    L->pool_used += n + 1;
    return at;
}

static void box(hud_layout *L, float x, float y, float w, float h, const uint8_t rgba[4])
{
    if (L->n_boxes >= HUD_MAX_BOXES || w <= 0 || h <= 0) return;
    hud_box *b = &L->boxes[L->n_boxes++];
    b->x = x;
    b->y = y;
    b->w = w;
    b->h = h;
    memcpy(b->rgba, rgba, 4);
}

static int run(hud_layout *L, float x, float y, const char *s, int n, const uint8_t rgba[4])
{
    if (L->n_runs >= HUD_MAX_RUNS) return -1;
    const int at = pool_add(L, s, n);
    if (at < 0) return -1;
    hud_run *r = &L->runs[L->n_runs];
    r->x = x;
    r->y = y;
    r->offset = at;
    r->length = n;
    memcpy(r->rgba, rgba, 4);
    return L->n_runs++;
}

/* ---- wrapping ---- */
typedef struct line {
    const char *text;
    const uint8_t *rgba;
    int indent;                /* first row, pixels at scale 1 */
    int max_rows;              /* then shortened with "..." */
    int priority;              /* 0: always shown; 1: context; 2: details go first */
    int picked_at, picked_len; /* kept on one row; -1: none */
} line;

typedef struct row {
    char text[200];
    int length, indent, picked;
    const uint8_t *rgba;
} row;

#define ELLIPSIS "..."
/* the most characters a row holds, "..." and its end included: a wide window with the smallest
 * font has room for more, and then the row wraps early rather than losing its end */
#define ROW_CHARS ((int)sizeof((row *)0)->text - 4)

/* Wraps one line into rows of at most `room` pixels (scale 1); returns the number of rows, and
 * writes them to rows[] when it is not NULL (at most max_out). */
static int wrap(const line *ln, int room, row *rows, int max_out)
{
    const char *s = ln->text;
    const int len = (int)strlen(s), ps = ln->picked_at, pe = ln->picked_at + ln->picked_len;
    int pos = 0, n = 0;
    while (pos < len) {
        const int indent = n == 0 ? ln->indent : ln->indent + INDENT_PX;
        const int width = room - indent;
        if (n) /* a continuation starts at a word */
            while (pos < len && s[pos] == ' ') pos++;
        if (pos >= len) break;
        int end = pos, w = 0;
        while (end < len && end - pos < ROW_CHARS && w + char_advance(s[end]) <= width)
            w += char_advance(s[end++]);
        int cut = end;
        const int last = n + 1 >= ln->max_rows;
        if (end < len && last) { /* the last row allowed: shortened, said by "..." */
            const int dots = hud_text_width(ELLIPSIS, 3);
            while (cut > pos && hud_text_width(s + pos, cut - pos) + dots > width) cut--;
            while (cut > pos && s[cut - 1] == ' ') cut--;
        } else if (end < len) { /* break at a space, never inside the picked parameter */
            int b = end;
            while (b > pos && s[b] != ' ') b--;
            if (ps >= 0 && end > ps && end < pe && ps > pos)
                b = ps; /* the span starts a row */
            else if (ps >= 0 && b > ps && b < pe)
                b = ps > pos ? ps : end;
            if (b > pos) cut = b;
        }
        if (cut <= pos) cut = end > pos ? end : pos + 1; /* a word wider than the row: cut it */
        if (rows && n < max_out) {
            row *r = &rows[n];
            int k = cut - pos;
            while (k > 0 && s[pos + k - 1] == ' ') k--;
            memcpy(r->text, s + pos, (size_t)k);
            r->length = k;
            if (end < len && last) {
                memcpy(r->text + k, ELLIPSIS, 3);
                r->length += 3;
            }
            r->text[r->length] = 0;
            r->indent = indent;
            r->rgba = ln->rgba;
            r->picked = ps >= 0 && ps >= pos && pe <= cut;
        }
        n++;
        if (end < len && last) break;
        pos = cut;
    }
    if (n == 0 && rows && max_out > 0) { /* an empty line still takes its row */
        rows[0].text[0] = 0;
        rows[0].length = 0;
        rows[0].indent = ln->indent;
        rows[0].rgba = ln->rgba;
        rows[0].picked = 0;
    }
    return n ? n : 1;
}

/* A panel of lines: wrapped to max_w pixels, at most max_h high (lines dropped by priority,
 * then rows cut). anchor: 0 top-left at (x, y); 1 bottom-left (y is the bottom); 2 bottom-right
 * (x is the right edge). Returns the panel's height (0 when nothing fits). */
static float panel(hud_layout *L, const line *lines, int n_lines, float x, float y, float max_w,
                   float max_h, int anchor, const uint8_t *fill, float *out_w)
{
    const int s = L->scale;
    const float pad = PAD_PX * s, lh = LINE_PX * s;
    const int room = (int)floorf((max_w - 2 * pad) / s);
    const int fit_rows = (int)floorf((max_h - 2 * pad + (LINE_PX - GLYPH_PX) * s) / lh);
    if (room < 8 * char_advance('m') || fit_rows < 1) return 0;
    int keep[64], counts[64], total = 0;
    if (n_lines > 64) n_lines = 64;
    for (int i = 0; i < n_lines; i++) {
        keep[i] = 1;
        counts[i] = wrap(&lines[i], room, NULL, 0);
        total += counts[i];
    }
    for (int prio = 2; prio >= 1 && total > fit_rows; prio--) /* details first, from the end */
        for (int i = n_lines - 1; i >= 0 && total > fit_rows; i--)
            if (keep[i] && lines[i].priority == prio) {
                keep[i] = 0;
                total -= counts[i];
                L->dropped += counts[i];
            }
    static row rows[MAX_ROWS]; /* scratch: the layout runs on one thread */
    int nr = 0;
    for (int i = 0; i < n_lines && nr < MAX_ROWS; i++) {
        if (!keep[i]) continue;
        const int got = wrap(&lines[i], room, rows + nr, MAX_ROWS - nr);
        nr = nr + got > MAX_ROWS ? MAX_ROWS : nr + got;
    }
    if (nr > fit_rows) { /* even the needed lines do not fit: the last row says so */
        L->dropped += nr - fit_rows;
        nr = fit_rows;
        row *r = &rows[nr - 1];
        const int dots = hud_text_width(ELLIPSIS, 3);
        while (r->length > 0 && (r->length > ROW_CHARS ||
                                 hud_text_width(r->text, r->length) + r->indent + dots > room))
            r->length--;
        memcpy(r->text + r->length, ELLIPSIS, 4);
        r->length += 3;
        r->picked = 0;
    }
    float width = 0;
    for (int i = 0; i < nr; i++) {
        const float w = (float)(rows[i].indent + hud_text_width(rows[i].text, rows[i].length));
        if (w > width) width = w;
    }
    const float pw = width * s + 2 * pad, ph = nr * lh + 2 * pad - (LINE_PX - GLYPH_PX) * s;
    if (anchor >= 1) y -= ph;
    if (anchor == 2) x -= pw;
    box(L, x, y, pw, ph, fill);
    for (int i = 0; i < nr; i++) {
        const int r = run(L, x + pad + rows[i].indent * s, y + pad + i * lh, rows[i].text,
                          rows[i].length, rows[i].rgba);
        if (rows[i].picked && r >= 0) L->picked_run = r;
    }
    if (out_w) *out_w = pw;
    return ph;
}

/* ---- the pieces ---- */
static void add(line *lines, int *n, const char *text, const uint8_t *rgba, int indent,
                int max_rows, int priority)
{
    if (*n >= 64 || !text || !text[0]) return;
    line *l = &lines[(*n)++];
    l->text = text;
    l->rgba = rgba;
    l->indent = indent;
    l->max_rows = max_rows;
    l->priority = priority;
    l->picked_at = -1;
    l->picked_len = 0;
}

/* The colour keys: the HUD's own two (the difference heat map, the false colour of 16-bit and
 * float display) and those the panes' filters declare. */
typedef enum legend_kind { LEGEND_DIFFERENCE, LEGEND_COLORMAP, LEGEND_FILTER } legend_kind;

typedef struct legend_slot {
    legend_kind kind;
    const fv_legend *filter_legend; /* LEGEND_FILTER: the filter's key */
    const char *who;                /* "A: ", "B: ", or "" when it stands for both panes */
} legend_slot;

/* what the legend panel says and shows, for one kind of false colour */
static float legend(hud_layout *L, const hud_model *m, const legend_slot *slot, float right,
                    float bottom, float max_w)
{
    const float gain = m->gain;
    const int s = L->scale;
    const float pad = PAD_PX * s, lh = LINE_PX * s;
    char title[96], ticks[3][24];
    int ramp = 0; /* 1: heat map; 2: gray ramp; 3: false colour; 0: swatches */
    const char *swatch_names[4] = {0};
    uint8_t swatch[4][4] = {{0}};
    int n_swatches = 0;
    if (slot->kind == LEGEND_DIFFERENCE && m->diff_top > 0) { /* in the image's units */
        snprintf(title, sizeof title, "|A-B| at gain x%g [g]: colour = largest channel error",
                 gain);
        snprintf(ticks[0], sizeof ticks[0], "0");
        tick_text(ticks[1], sizeof ticks[1], m->diff_top / 2, m->diff_integer);
        tick_text(ticks[2], sizeof ticks[2] - 1, m->diff_top, m->diff_integer);
        strcat(ticks[2], "+");
        ramp = 1;
    } else if (slot->kind == LEGEND_DIFFERENCE) {
        const int top = (int)floorf(255.0f / gain + 0.5f);
        snprintf(title, sizeof title, "|A-B| at gain x%g [g]: colour = largest channel error",
                 gain);
        snprintf(ticks[0], sizeof ticks[0], "0");
        snprintf(ticks[1], sizeof ticks[1], "%d", (top + 1) / 2);
        snprintf(ticks[2], sizeof ticks[2], "%d%s", top, top < 255 ? "+" : "");
        ramp = 1;
    } else if (slot->kind == LEGEND_COLORMAP) {
        snprintf(title, sizeof title, "false colour %s [m]: luma in the image's units",
                 m->colormap == 1 ? "viridis" : "turbo");
        for (int i = 0; i < 3; i++)
            tick_text(ticks[i], sizeof ticks[i], m->colormap_value[i], m->diff_integer);
        ramp = 3;
    } else { /* the filter's own key: a gray ramp with its ticks, or its swatches */
        const fv_legend *fl = slot->filter_legend;
        snprintf(title, sizeof title, "%s%s", slot->who, fl->title);
        if (fl->ramp_ticks[0]) {
            for (int i = 0; i < 3; i++)
                snprintf(ticks[i], sizeof ticks[i], "%s",
                         fl->ramp_ticks[i] ? fl->ramp_ticks[i] : "");
            ramp = 2;
        } else {
            n_swatches =
                fl->n_swatches < FV_LEGEND_MAX_SWATCHES ? fl->n_swatches : FV_LEGEND_MAX_SWATCHES;
            for (int i = 0; i < n_swatches; i++) {
                memcpy(swatch[i], fl->swatches[i].rgba, 4);
                swatch_names[i] = fl->swatches[i].name ? fl->swatches[i].name : "";
            }
        }
    }
    /* width: the title, or the swatches' labels, within max_w */
    float inner = (float)hud_text_width(title, (int)strlen(title)) * s;
    float sw = 0;
    for (int i = 0; i < n_swatches; i++)
        sw +=
            (GLYPH_PX + 4 + hud_text_width(swatch_names[i], (int)strlen(swatch_names[i])) + 8) * s;
    if (sw > inner) inner = sw;
    if (ramp && inner < 160 * s) inner = 160.0f * s;
    const float avail = max_w - 2 * pad;
    if (avail < 60 * s) return 0;
    int title_len = (int)strlen(title);
    if (inner > avail) { /* narrow: shorten the title; the swatches go on two rows */
        inner = avail;
        const int dots = hud_text_width(ELLIPSIS, 3);
        while (title_len > 0 && (hud_text_width(title, title_len) + dots) * s > avail) title_len--;
        if (title_len < (int)strlen(title)) {
            memcpy(title + title_len, ELLIPSIS, 4);
            title_len += 3;
        }
    }
    /* rows: the title; a ramp and its ticks, or the swatches (flowing onto more rows) */
    int swatch_rows = 1;
    {
        float x = 0;
        for (int i = 0; i < n_swatches; i++) {
            const float w =
                (GLYPH_PX + 4 + hud_text_width(swatch_names[i], (int)strlen(swatch_names[i]))) * s;
            if (x > 0 && x + w > inner) {
                swatch_rows++;
                x = 0;
            }
            x += w + 8 * s;
        }
    }
    const int rows = 1 + (ramp ? 2 : swatch_rows);
    const float h = rows * lh + 2 * pad - (LINE_PX - GLYPH_PX) * s, w = inner + 2 * pad;
    const float x0 = right - w, y0 = bottom - h;
    if (x0 < 0 || y0 < 0) return 0;
    box(L, x0, y0, w, h, PANEL);
    run(L, x0 + pad, y0 + pad, title, title_len, ACCENT);
    const float ry = y0 + pad + lh;
    if (ramp) {
        const float seg = inner / LEGEND_RAMP;
        for (int i = 0; i < LEGEND_RAMP; i++) {
            uint8_t c[4];
            const float t = (i + 0.5f) / LEGEND_RAMP;
            if (ramp == 1)
                hud_heat(t, c);
            else if (ramp == 3)
                hud_colormap(m->colormap, t, c);
            else
                c[0] = c[1] = c[2] = (uint8_t)(t * 255), c[3] = 255;
            box(L, x0 + pad + i * seg, ry, seg + 0.5f, (GLYPH_PX - 1) * s, c);
        }
        const float ty = ry + lh;
        run(L, x0 + pad, ty, ticks[0], (int)strlen(ticks[0]), WHITE);
        const float w1 = (float)hud_text_width(ticks[1], (int)strlen(ticks[1])) * s;
        run(L, x0 + pad + inner / 2 - w1 / 2, ty, ticks[1], (int)strlen(ticks[1]), WHITE);
        const float w2 = (float)hud_text_width(ticks[2], (int)strlen(ticks[2])) * s;
        run(L, x0 + pad + inner - w2, ty, ticks[2], (int)strlen(ticks[2]), WHITE);
    } else {
        float x = 0, y = ry;
        for (int i = 0; i < n_swatches; i++) {
            const int nl = (int)strlen(swatch_names[i]);
            const float w = (GLYPH_PX + 4 + hud_text_width(swatch_names[i], nl)) * s;
            if (x > 0 && x + w > inner) {
                x = 0;
                y += lh;
            }
            box(L, x0 + pad + x, y, GLYPH_PX * s, (GLYPH_PX - 1) * s, FRAME);
            box(L, x0 + pad + x + s, y + s, (GLYPH_PX - 2) * s, (GLYPH_PX - 3) * s, swatch[i]);
            run(L, x0 + pad + x + (GLYPH_PX + 4) * s, y, swatch_names[i], nl, WHITE);
            x += w + 8 * s;
        }
    }
    return h;
}

/* the bar chart of every variant's time (t) */
static float chart(hud_layout *L, const hud_model *m, float x, float bottom, float max_w,
                   float *out_w)
{
    const bar_chart *c = m->chart;
    const int s = L->scale;
    const float pad = PAD_PX * s, lh = LINE_PX * s;
    if (max_w < 200 * s) return 0;
    float label_w = 0;
    for (int i = 0; i < c->n; i++) {
        const float w = (float)hud_text_width(c->names[i], (int)strlen(c->names[i])) * s;
        if (w > label_w) label_w = w;
    }
    label_w += 8 * s;
    const float number_w = (float)hud_text_width("0000.0000 ms (off scale)", 24) * s;
    float bar_max = 220.0f * s;
    if (label_w + bar_max + number_w > max_w - 2 * pad)
        bar_max = max_w - 2 * pad - label_w - number_w;
    if (bar_max < 20 * s) return 0;
    line title = {m->chart_title, ACCENT, 0, 3, 0, -1, 0};
    const int room = (int)floorf((max_w - 2 * pad) / s);
    row rows[3];
    const int tr = wrap(&title, room, rows, 3);
    float inner = label_w + bar_max + number_w;
    for (int i = 0; i < tr; i++) {
        const float w =
            (float)hud_text_width(rows[i].text, rows[i].length) * s + rows[i].indent * s;
        if (w > inner) inner = w;
    }
    const int n = c->n ? c->n : 1;
    const float h = (tr + n) * lh + 2 * pad - (LINE_PX - GLYPH_PX) * s, y = bottom - h;
    if (y < 0) return 0;
    box(L, x, y, inner + 2 * pad, h, PANEL);
    *out_w = inner + 2 * pad;
    for (int i = 0; i < tr; i++)
        run(L, x + pad + rows[i].indent * s, y + pad + i * lh, rows[i].text, rows[i].length,
            ACCENT);
    /* scaled to the GPU variants; a CPU time far beyond them is drawn clipped, its number says it */
    double max_ms = 0, max_all = 0;
    for (int i = 0; i < c->n; i++) {
        if (!c->on_host[i] && c->ms[i] > max_ms) max_ms = c->ms[i];
        if (c->ms[i] > max_all) max_all = c->ms[i];
    }
    if (max_ms <= 0) max_ms = max_all;
    for (int i = 0; i < c->n; i++) {
        const float ly = y + pad + (tr + i) * lh;
        run(L, x + pad, ly, c->names[i], (int)strlen(c->names[i]), WHITE);
        float len = max_ms > 0 ? (float)fmin(c->ms[i] / max_ms, 1.15) * bar_max / 1.15f : 0;
        if (len < 1) len = 1;
        box(L, x + pad + label_w, ly, len, (GLYPH_PX - 1) * s, c->on_host[i] ? BAR_CPU : BAR_A);
        char ms[40];
        snprintf(ms, sizeof ms, c->ms[i] > 1.15 * max_ms ? "%.4f ms (off scale)" : "%.4f ms",
                 c->ms[i]);
        run(L, x + pad + label_w + len + 4 * s, ly, ms, (int)strlen(ms), WHITE);
    }
    if (c->n == 0) run(L, x + pad, y + pad + tr * lh, "(nothing to time in this mode)", 30, DIM);
    return h;
}

/* A: and B: under the panes (wipe: beside the divider; side by side: under each half) */
static float compare_labels(hud_layout *L, const hud_model *m)
{
    const int s = L->scale;
    const float lh = LINE_PX * s, y = m->win_h - MARGIN_PX * s - GLYPH_PX * s;
    if (m->compare_mode != HUD_WIPE && m->compare_mode != HUD_SIDE_BY_SIDE) return 0;
    char la[96], lb[96];
    snprintf(la, sizeof la, "A: %s", m->show_original ? "original" : m->pane[0].label);
    snprintf(lb, sizeof lb, "B: %s", m->show_original ? "original" : m->pane[1].label);
    int na = (int)strlen(la), nb = (int)strlen(lb);
    const float wa = (float)hud_text_width(la, na) * s, wb = (float)hud_text_width(lb, nb) * s;
    float xa, xb;
    if (m->compare_mode == HUD_WIPE) {
        const float x = fminf(fmaxf(m->divider * m->win_w, 1.0f), m->win_w - 1.0f);
        const float lx = fmaxf(0, fminf(x - 1, m->win_w - 2.0f));
        box(L, lx, 0, fminf(2, (float)m->win_w), (float)m->win_h, ACCENT);
        const float hx = fmaxf(0, fminf(x - 5, m->win_w - 10.0f)); /* the handle */
        if (m->win_h >= 24)
            box(L, hx, m->win_h / 2.0f - 12, fminf(10, (float)m->win_w), 24, ACCENT);
        xa = x - wa - 8;
        xb = x + 8;
    } else {
        box(L, floorf(m->win_w / 2.0f) - 1, 0, 2, (float)m->win_h, PANEL);
        xa = MARGIN_PX * s;
        xb = floorf(m->win_w / 2.0f) + MARGIN_PX * s;
    }
    /* kept inside the window, and apart from each other */
    const float edge = MARGIN_PX * s;
    if (xa < edge) xa = edge;
    if (xb + wb > m->win_w - edge) xb = m->win_w - edge - wb;
    if (y - lh < 0 || xa + fmaxf(wa, wb) > m->win_w - edge) return 0; /* no room at all */
    if (xb < xa + wa + 8 * s) { /* no room beside each other: B above A */
        run(L, xa, y - lh, lb, nb, ACCENT);
        run(L, xa, y, la, na, ACCENT);
        return 2 * lh + MARGIN_PX * s;
    }
    run(L, xa, y, la, na, ACCENT);
    run(L, xb, y, lb, nb, ACCENT);
    return lh + MARGIN_PX * s;
}

/* Runs [0, before) that the box (x, y, w, h) covers are taken out: under an opaque panel they
 * would only be drawn through its text (every box is drawn under all text). */
static void uncover(hud_layout *L, int before, float x, float y, float w, float h)
{
    const int s = L->scale;
    int kept = 0;
    for (int i = 0; i < L->n_runs; i++) {
        const hud_run *r = &L->runs[i];
        const float rw = (float)hud_text_width(L->pool + r->offset, r->length) * s;
        const int covered =
            i < before && r->x < x + w && r->x + rw > x && r->y < y + h && r->y + LINE_PX * s > y;
        if (covered) {
            if (L->picked_run == i) L->picked_run = -1;
            continue;
        }
        if (L->picked_run == i) L->picked_run = kept;
        L->runs[kept++] = *r;
    }
    L->n_runs = kept;
}

/* The keys, over the image: below the HUD's main panel where the window has the room (so that
 * its last rows, the message and the keys' hint, stay in sight), else centred over it. */
static void help_overlay(hud_layout *L, const hud_model *m, float panel_bottom)
{
    const int s = L->scale;
    const key_help *k = m->help;
    const float pad = 6.0f * s, lh = LINE_PX * s, edge = MARGIN_PX * s;
    char title[96];
    snprintf(title, sizeof title, "filterview %s: keys and mouse (h or F1 closes)",
             m->version ? m->version : "");
    float label_w = 0;
    for (int i = 0; i < k->n; i++) {
        const float w = (float)hud_text_width(k->label[i], (int)strlen(k->label[i])) * s;
        if (w > label_w) label_w = w;
    }
    label_w += 12 * s;
    const float max_w = m->win_w - 2 * edge, max_h = m->win_h - 2 * edge;
    const int room = (int)floorf((max_w - 2 * pad - label_w) / s);
    if (room < 60) return;
    /* rows: each key's help wrapped beside its label */
    static row rows[MAX_ROWS];
    int owner[MAX_ROWS], nr = 0;
    for (int i = 0; i < k->n && nr < MAX_ROWS; i++) {
        line ln = {k->help[i], WHITE, 0, 3, 0, -1, 0};
        const int got = wrap(&ln, room, rows + nr, MAX_ROWS - nr);
        for (int j = 0; j < got && nr + j < MAX_ROWS; j++) owner[nr + j] = j == 0 ? i : -1;
        nr = nr + got > MAX_ROWS ? MAX_ROWS : nr + got;
    }
    line tl = {title, ACCENT, 0, 2, 0, -1, 0};
    row trows[2];
    const int tr = wrap(&tl, (int)floorf((max_w - 2 * pad) / s), trows, 2);
    const int fit = (int)floorf((max_h - 2 * pad) / lh) - tr;
    if (fit < 1) return;
    if (nr > fit) {
        L->dropped += nr - fit;
        nr = fit;
    }
    float help_w = 0;
    for (int i = 0; i < nr; i++) {
        const float w = (float)(rows[i].indent + hud_text_width(rows[i].text, rows[i].length)) * s;
        if (w > help_w) help_w = w;
    }
    float w = label_w + help_w;
    for (int i = 0; i < tr; i++) {
        const float tw = (float)hud_text_width(trows[i].text, trows[i].length) * s;
        if (tw > w) w = tw;
    }
    w += 2 * pad;
    const float h = (nr + tr) * lh + 2 * pad;
    const float x = floorf(fmaxf(edge, (m->win_w - w) / 2)),
                centred = floorf(fmaxf(edge, (m->win_h - h) / 2)),
                below = ceilf(panel_bottom + edge);
    const float y = centred < below && below + h <= m->win_h - edge ? below : centred;
    uncover(L, L->n_runs, x, y, w, h);
    box(L, x, y, w, h, OPAQUE_PANEL);
    for (int i = 0; i < tr; i++)
        run(L, x + pad + trows[i].indent * s, y + pad + i * lh, trows[i].text, trows[i].length,
            ACCENT);
    for (int i = 0; i < nr; i++) {
        const float ry = y + pad + (tr + i) * lh;
        if (owner[i] >= 0)
            run(L, x + pad, ry, k->label[owner[i]], (int)strlen(k->label[owner[i]]), ACCENT);
        run(L, x + pad + label_w + rows[i].indent * s, ry, rows[i].text, rows[i].length, WHITE);
    }
}

static void main_panel(hud_layout *L, const hud_model *m, float max_h)
{
    const int s = L->scale;
    const float edge = MARGIN_PX * s;
    line lines[64];
    int n = 0;
    char params[2][512], pane_head[2][192], keys_hint[96], both[384], err[300];
    int picked[2][2];
    for (int p = 0; p < 2; p++) {
        hud_params_text(m, p, params[p], sizeof params[p], &picked[p][0], &picked[p][1]);
        snprintf(pane_head[p], sizeof pane_head[p], "%c [%c/%c]: %s  %s", 'A' + p, 'a' + p, 'A' + p,
                 m->pane[p].label, m->pane[p].timing);
    }
    snprintf(keys_hint, sizeof keys_hint,
             "h: help  u/U: hide/compact HUD  t: time all  p: screenshot  w: save  q: quit");
    const int compact = m->mode == HUD_COMPACT;
    const int e = m->linked ? 0 : m->edit_pane;
    if (!compact) {
        add(lines, &n, m->title, ACCENT, 0, 2, 1);
        add(lines, &n, m->compute_note, m->compute_bad ? BAD : DIM, 0, 3, 1);
    }
    for (int p = 0; p < 2; p++) /* a replaced variant is said in every mode */
        add(lines, &n, m->pane[p].replaced, BAD, 0, 3, 0);
    for (int p = 0; p < 2; p++) { /* so are a kernel file's error and its compile */
        add(lines, &n, m->pane[p].user_error, BAD, 0, 6, 0);
        add(lines, &n, m->pane[p].user_status, ACCENT, 0, 2, 1);
    }
    for (int p = 0; p < 2; p++) {
        if (m->linked && p == 1) break;
        if (compact && p != e) continue;
        add(lines, &n, params[p], WHITE, 0, 8, p == e ? 0 : 1);
        lines[n - 1].picked_at = picked[p][0];
        lines[n - 1].picked_len = picked[p][1];
    }
    if (compact) {
        snprintf(both, sizeof both, "A %s  %s   B %s  %s", m->pane[0].label, m->pane[0].timing,
                 m->pane[1].label, m->pane[1].timing);
        add(lines, &n, both, WHITE, 0, 2, 1);
        add(lines, &n, m->diff, m->diff_zero ? GOOD : ACCENT, 0, 2, 1);
    } else {
        add(lines, &n,
            m->linked ? "panes linked: B shows A's filter [l unlinks]"
                      : "panes unlinked: each its own filter [l links, e edits the other]",
            DIM, 0, 2, 2);
        for (int p = 0; p < 2; p++) {
            add(lines, &n, pane_head[p], WHITE, 0, 2, 1);
            add(lines, &n, m->pane[p].original ? "the image as loaded" : m->pane[p].summary, DIM,
                INDENT_PX, 2, 2);
            if (!m->pane[p].original) add(lines, &n, m->pane[p].resources, DIM, INDENT_PX, 2, 2);
        }
        add(lines, &n, m->noise, ACCENT, 0, 2, 1);
        add(lines, &n, m->compare, WHITE, 0, 2, 1);
        add(lines, &n, m->diff, m->diff_zero ? GOOD : ACCENT, 0, 2, 1);
        add(lines, &n, m->display, WHITE, 0, 2, 1);
        add(lines, &n, m->probe, DIM, 0, 1, 2);
    }
    add(lines, &n, m->load_note, ACCENT, 0, 2, 1);
    if (m->error && m->error[0]) {
        snprintf(err, sizeof err, "error: %s", m->error);
        add(lines, &n, err, BAD, 0, 4, 0);
    }
    add(lines, &n, m->message, GOOD, 0, 3, 1);
    if (!compact) add(lines, &n, keys_hint, DIM, 0, 2, 2);
    panel(L, lines, n, edge, edge, m->win_w - 2 * edge, max_h, 0, PANEL, NULL);
}

void hud_layout_build(const hud_model *m, hud_layout *L)
{
    L->win_w = m->win_w;
    L->win_h = m->win_h;
    L->scale = hud_scale(m->win_w, m->win_h);
    L->n_runs = L->n_boxes = L->pool_used = 0;
    L->picked_run = -1;
    L->dropped = 0;
    if (m->mode == HUD_HIDDEN || m->win_w <= 0 || m->win_h <= 0) return;
    const int s = L->scale;
    const float edge = MARGIN_PX * s;
    /* the bottom first: labels, then the chart (left) and legends (right); the main panel takes
     * what is left above them */
    float bottom = m->win_h - compare_labels(L, m);
    if (bottom >= m->win_h) bottom = m->win_h - edge;
    float chart_top = bottom, legend_bottom = bottom;
    float chart_w = 0;
    if (m->chart && m->chart->visible && m->mode == HUD_FULL) {
        const float h = chart(L, m, edge, bottom, m->win_w - 2 * edge, &chart_w);
        if (h > 0) chart_top = bottom - h - edge;
    }
    /* the legends: the difference heat map, or each shown pane's false colour */
    legend_slot slots[3];
    int n_legends = 0;
    if (!m->show_original) {
        if (m->compare_mode == HUD_DIFFERENCE)
            slots[n_legends++] = (legend_slot){LEGEND_DIFFERENCE, NULL, ""};
        else
            for (int p = 0; p < (m->compare_mode == HUD_SINGLE ? 1 : 2); p++) {
                if (m->pane[p].original) continue;
                const fv_legend *l = hud_legend(m->pane[p].filter, m->pane[p].params);
                if (!l) continue;
                if (n_legends && slots[0].filter_legend == l) { /* one key for both panes */
                    slots[0].who = "";
                    continue;
                }
                slots[n_legends++] = (legend_slot){LEGEND_FILTER, l, p ? "B: " : "A: "};
            }
        if (n_legends == 1) slots[0].who = "";
        /* the false-colour map of 16-bit and float display, in every mode but the difference */
        if (m->colormap && m->compare_mode != HUD_DIFFERENCE)
            slots[n_legends++] = (legend_slot){LEGEND_COLORMAP, NULL, ""};
    }
    for (int i = 0; i < n_legends; i++) {
        float max_w = m->win_w - 2 * edge, right = m->win_w - edge;
        /* beside the chart where there is room, else above it */
        const float side = m->win_w - 3 * edge - chart_w;
        float lb = legend_bottom;
        if (chart_w > 0 && side < 180 * s && lb > chart_top)
            lb = chart_top;
        else if (chart_w > 0)
            max_w = side;
        const float h = legend(L, m, &slots[i], right, lb, max_w);
        if (h > 0) legend_bottom = lb - h - edge;
    }
    float top_of_bottom = chart_top < legend_bottom ? chart_top : legend_bottom;
    if (bottom < top_of_bottom) top_of_bottom = bottom;
    const int panel_first = L->n_runs;
    main_panel(L, m, top_of_bottom - 2 * edge);
    float panel_bottom = edge;
    for (int i = panel_first; i < L->n_runs; i++)
        panel_bottom = fmaxf(panel_bottom, L->runs[i].y + LINE_PX * s);
    if (m->show_help && m->help) help_overlay(L, m, panel_bottom);
}
