/* ------------------------------------------------------------------------------------------------
 * viewer/window/hud.c: the heads-up display, drawn in GL over the image: filter, variants and their
 * summaries, parameters, each pane's kernel time (ms, GB/s, share of the copy bandwidth), the
 * speedup of B over A, the |A - B| statistics computed on the GPU, frame time, size, zoom, the
 * pixel under the cursor, the compute mode and the last error; the help overlay and the
 * all-variants bar chart. Text is stb_easy_font's quads, scaled, with translucent panels. It reads
 * the panes from pipeline.c and the view from view.c; render.c draws it over the image.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <stb_easy_font.h>

static const uint8_t WHITE[4] = {235, 235, 235, 255}, DIM[4] = {170, 175, 185, 255},
                     ACCENT[4] = {255, 196, 64, 255}, GOOD[4] = {120, 220, 120, 255},
                     BAD[4] = {255, 110, 100, 255}, PANEL[4] = {12, 12, 16, 190},
                     BAR_A[4] = {60, 140, 230, 255}, BAR_CPU[4] = {150, 150, 150, 255};

static void push(renderer *r, float x, float y, const uint8_t rgba[4])
{
    if (r->hud_count >= HUD_MAX_VERTICES) return;
    hud_vertex *v = &r->hud[r->hud_count++];
    v->x = x;
    v->y = y;
    memcpy(v->rgba, rgba, 4);
}

static void rect(renderer *r, float x, float y, float w, float h, const uint8_t rgba[4])
{
    if (r->hud_count + 6 > HUD_MAX_VERTICES) return;
    push(r, x, y, rgba);
    push(r, x + w, y, rgba);
    push(r, x, y + h, rgba);
    push(r, x + w, y, rgba);
    push(r, x + w, y + h, rgba);
    push(r, x, y + h, rgba);
}

/* stb_easy_font quads (4 vertices of 16 bytes: x, y, z, colour) -> scaled triangles */
static float text(renderer *r, float x, float y, float scale, const uint8_t rgba[4], const char *s)
{
    int quads = stb_easy_font_print(0, 0, (char *)s, NULL, r->text_quads, HUD_TEXT_BYTES);
    for (int q = 0; q < quads; q++) {
        const float *v = (const float *)(r->text_quads + q * 64);
        float x0 = x + v[0] * scale, y0 = y + v[1] * scale;
        float x1 = x + v[8] * scale, y1 = y + v[9] * scale; /* vertex 2 is the opposite corner */
        rect(r, x0, y0, x1 - x0, y1 - y0, rgba);
    }
    return stb_easy_font_width((char *)s) * scale;
}

typedef struct hud_line {
    char text[256];
    const uint8_t *rgba;
} hud_line;

static void add_line(hud_line *lines, int *n, int max, const uint8_t *rgba, const char *fmt, ...)
{
    if (*n >= max) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lines[*n].text, sizeof lines[*n].text, fmt, ap);
    va_end(ap);
    lines[*n].rgba = rgba;
    (*n)++;
}

/* a panel of lines at (x, y); anchor_right/bottom place it from the window's other edges */
static void panel(renderer *r, const hud_line *lines, int n, float x, float y, float scale,
                  int anchor_right, int anchor_bottom, int win_w, int win_h)
{
    float line_h = 11 * scale, width = 0;
    for (int i = 0; i < n; i++) {
        float w = stb_easy_font_width((char *)lines[i].text) * scale;
        if (w > width) width = w;
    }
    float pad = 4 * scale, h = n * line_h + 2 * pad - 3 * scale;
    if (anchor_right) x = win_w - x - width - 2 * pad;
    if (anchor_bottom) y = win_h - y - h;
    rect(r, x, y, width + 2 * pad, h, PANEL);
    for (int i = 0; i < n; i++)
        text(r, x + pad, y + pad + i * line_h, scale, lines[i].rgba, lines[i].text);
}

static void pane_lines(app *a, int p, hud_line *lines, int *n, int max)
{
    const pane *pn = &a->panes[p];
    const fv_filter *f = pane_filter(a, p);
    char timing[128] = "", label[64];
    pane_label(a, p, label, sizeof label);
    if (pn->variant != PANE_ORIGINAL) {
        int host = fv_variant_is_host(&f->variants[pn->variant]);
        double gbps = pane_gbps(a, p);
        if (host || a->copy_gbps <= 0)
            snprintf(timing, sizeof timing, "%.3f ms%s", pn->kernel_ms,
                     host ? " (host clock)" : "");
        else
            snprintf(timing, sizeof timing, "%.4f ms  %.0f GB/s  %.0f%% of copy", pn->kernel_ms,
                     gbps, 100.0 * gbps / a->copy_gbps);
    }
    add_line(lines, n, max, WHITE, "%c [%c/%c]: %-10s %s", 'A' + p, 'a' + p, 'A' + p, label,
             timing);
    add_line(lines, n, max, DIM, "     %s",
             pn->variant == PANE_ORIGINAL ? "the image as loaded"
                                          : f->variants[pn->variant].summary);
    if (pn->variant != PANE_ORIGINAL && pn->resources[0])
        add_line(lines, n, max, DIM, "     %s", pn->resources);
}

/* "gaussian [1-9,Tab]: sigma 1.25, >radius 4< [j s/S d/D]  iterations 1 [+/-]" for pane p */
static void params_line(app *a, int p, hud_line *lines, int *n, int max)
{
    const fv_filter *f = pane_filter(a, p);
    const fv_params *params = pane_params(a, p), resolved = fv_params_resolved(f, params);
    char text[256];
    size_t len = 0;
    const int editing = a->edit_pane == p;
    if (a->linked)
        len += (size_t)snprintf(text, sizeof text, "%s [1-9,Tab]:", f->name);
    else
        len += (size_t)snprintf(text, sizeof text, "%s%c: %s%s:", editing ? ">" : " ", 'A' + p,
                                f->name, editing ? " [1-9,Tab]" : "");
    for (int i = 0; i < f->n_params && len < sizeof text; i++) {
        if (f->params[i].type == FV_PARAM_IMAGE) continue; /* a file: not shown, not stepped */
        char v[32];
        fv_param_format(f, i, resolved.value[i], v, sizeof v);
        const int picked = editing && i == a->picked_param;
        len += (size_t)snprintf(text + len, sizeof text - len, "%s %s%s %s%s", i ? "," : "",
                                picked ? ">" : "", f->params[i].name, v, picked ? "<" : "");
    }
    if (f->n_params == 0 && len < sizeof text)
        len += (size_t)snprintf(text + len, sizeof text - len, " no parameters");
    if (editing && f->n_params && len < sizeof text)
        len += (size_t)snprintf(text + len, sizeof text - len, " [j s/S d/D]");
    if (len < sizeof text)
        snprintf(text + len, sizeof text - len, "  iterations %d%s", params->iterations,
                 editing ? " [+/-]" : "");
    add_line(lines, n, max, WHITE, "%s", text);
}

static void main_panel(app *a, float scale)
{
    enum { MAX_LINES = 22 };
    hud_line lines[MAX_LINES];
    int n = 0;
    static const char *const compare_names[] = {"single (A)", "wipe (drag the divider)",
                                                "side by side", "difference |A-B|"};
    const char *base = a->path ? strrchr(a->path, '/') : NULL;
    base = base ? base + 1 : (a->path ? a->path : "random image");
    add_line(lines, &n, MAX_LINES, ACCENT, "%s  %dx%d  zoom %.0f%%%s  frame %.2f ms%s", base,
             a->host_src.width, a->host_src.height, a->zoom * 100.0f, a->fit ? " (fit)" : "",
             a->frame_ms, a->animate ? "  animating [space]" : "");
    add_line(lines, &n, MAX_LINES, a->compute == FV_COMPUTE_INTEROP ? DIM : BAD, "%s",
             a->compute_note);
    params_line(a, 0, lines, &n, MAX_LINES);
    if (!a->linked) params_line(a, 1, lines, &n, MAX_LINES);
    add_line(lines, &n, MAX_LINES, DIM,
             a->linked ? "panes linked: B shows A's filter [l unlinks]"
                       : "panes unlinked: each its own filter [l links, e edits the other]");
    pane_lines(a, 0, lines, &n, MAX_LINES);
    pane_lines(a, 1, lines, &n, MAX_LINES);
    char speed[96] = "";
    const pane *pa = &a->panes[0], *pb = &a->panes[1];
    if (pa->variant != PANE_ORIGINAL && pb->variant != PANE_ORIGINAL && pa->kernel_ms > 0 &&
        pb->kernel_ms > 0)
        snprintf(speed, sizeof speed, "   B is %.2fx %s than A",
                 pa->kernel_ms >= pb->kernel_ms ? pa->kernel_ms / pb->kernel_ms
                                                : pb->kernel_ms / pa->kernel_ms,
                 pa->kernel_ms >= pb->kernel_ms ? "faster" : "slower");
    if (fv_noise_is_on(&a->noise))
        add_line(lines, &n, MAX_LINES, ACCENT,
                 "noise on the source [n/N]: salt-and-pepper %g %%, gaussian sigma %g, seed %u",
                 a->noise.density * 100, a->noise.sigma, a->noise.seed);
    add_line(lines, &n, MAX_LINES, WHITE, "compare [c]: %s%s%s", compare_names[a->compare],
             a->show_original ? " (original [o])" : "", speed);
    if (a->diff_valid)
        add_line(lines, &n, MAX_LINES, a->diff.max_abs == 0 ? GOOD : ACCENT,
                 "|A-B| (%s): max %d  mean %.4f  %lld of %lld px differ",
                 a->compute == FV_COMPUTE_CPU ? "CPU" : "GPU", a->diff.max_abs, a->diff.mean_abs,
                 a->diff.n_differing, (long long)a->host_src.width * a->host_src.height);
    float ix, iy;
    view_window_to_image(a, a->mouse_x, a->mouse_y, &ix, &iy);
    uint8_t pxa[4], pxb[4];
    const int px = (int)floorf(ix), py = (int)floorf(iy);
    if (a->zoom > 1.0f && pipeline_probe_pixel(a, 0, px, py, pxa) &&
        pipeline_probe_pixel(a, 1, px, py, pxb))
        add_line(lines, &n, MAX_LINES, DIM, "(%d, %d)  A %d %d %d %d   B %d %d %d %d", px, py,
                 pxa[0], pxa[1], pxa[2], pxa[3], pxb[0], pxb[1], pxb[2], pxb[3]);
    if (a->error[0]) add_line(lines, &n, MAX_LINES, BAD, "error: %s", a->error);
    if (a->message[0]) add_line(lines, &n, MAX_LINES, GOOD, "%s", a->message);
    add_line(lines, &n, MAX_LINES, DIM, "h: help  t: time all  p: screenshot  w: save  q: quit");
    panel(&a->gl, lines, n, 8, 8, scale, 0, 0, a->win_w, a->win_h);
}

static void help_panel(app *a, float scale)
{
    static const uint8_t OPAQUE_PANEL[4] = {12, 12, 16, 240};
    renderer *r = &a->gl;
    const char *title = "keys and mouse (h or F1 closes)";
    const key_help *keys = &a->help;
    float line_h = 11 * scale, pad = 6 * scale, label_w = 0,
          help_w = stb_easy_font_width((char *)title) * scale;
    const int n = keys->n;
    for (int i = 0; i < n; i++) {
        float lw = stb_easy_font_width((char *)keys->label[i]) * scale;
        float hw = stb_easy_font_width((char *)keys->help[i]) * scale;
        if (lw > label_w) label_w = lw;
        if (hw > help_w) help_w = hw;
    }
    label_w += 12 * scale;
    float w = label_w + help_w + 2 * pad, h = (n + 1) * line_h + 2 * pad;
    float x = fmaxf(0.0f, (a->win_w - w) / 2), y = fmaxf(0.0f, (a->win_h - h) / 2);
    rect(r, x, y, w, h, OPAQUE_PANEL);
    text(r, x + pad, y + pad, scale, ACCENT, title);
    for (int i = 0; i < n; i++) {
        text(r, x + pad, y + pad + (i + 1) * line_h, scale, ACCENT, keys->label[i]);
        text(r, x + pad + label_w, y + pad + (i + 1) * line_h, scale, WHITE, keys->help[i]);
    }
}

static void chart_panel(app *a, float scale)
{
    const bar_chart *c = &a->chart;
    renderer *r = &a->gl;
    char params[192], title[320];
    fv_params_describe(edit_filter(a), pane_params(a, a->edit_pane), params, sizeof params);
    snprintf(title, sizeof title,
             "all variants of %s (%s, %d iterations), ms, shorter is faster [t]",
             edit_filter(a)->name, params, pane_params(a, a->edit_pane)->iterations);
    float line_h = 11 * scale, label_w = 70 * scale, bar_max = 220 * scale, pad = 4 * scale;
    float w = stb_easy_font_width(title) * scale;
    if (label_w + bar_max + 80 * scale > w) w = label_w + bar_max + 80 * scale;
    float h = (c->n + 1) * line_h + 2 * pad;
    float x = 8, y = a->win_h - 18 * scale - h; /* above the pane labels */
    rect(r, x, y, w + 2 * pad, h, PANEL);
    text(r, x + pad, y + pad, scale, ACCENT, title);
    /* scale to the GPU variants; a CPU time far beyond them is drawn clipped, its number says it */
    double max_ms = 0, max_all = 0;
    for (int i = 0; i < c->n; i++) {
        if (!c->on_host[i] && c->ms[i] > max_ms) max_ms = c->ms[i];
        if (c->ms[i] > max_all) max_all = c->ms[i];
    }
    if (max_ms <= 0) max_ms = max_all;
    for (int i = 0; i < c->n; i++) {
        float ly = y + pad + (i + 1) * line_h;
        text(r, x + pad, ly, scale, WHITE, c->names[i]);
        float len = max_ms > 0 ? (float)fmin(c->ms[i] / max_ms, 1.15) * bar_max : 0;
        int is_cpu = c->on_host[i];
        rect(r, x + pad + label_w, ly, len < 1 ? 1 : len, line_h - 3 * scale,
             is_cpu ? BAR_CPU : BAR_A);
        char ms[32];
        snprintf(ms, sizeof ms, c->ms[i] > 1.15 * max_ms ? "%.4f ms (off scale)" : "%.4f ms",
                 c->ms[i]);
        text(r, x + pad + label_w + len + 4 * scale, ly, scale, WHITE, ms);
    }
    if (c->n == 0) text(r, x + pad, y + pad + line_h, scale, DIM, "(nothing to time in this mode)");
}

static void compare_labels(app *a, float scale)
{
    renderer *r = &a->gl;
    float y = a->win_h - 14 * scale;
    char la[80], lb[80], name[64];
    pane_label(a, 0, name, sizeof name);
    snprintf(la, sizeof la, "A: %s", a->show_original ? "original" : name);
    pane_label(a, 1, name, sizeof name);
    snprintf(lb, sizeof lb, "B: %s", a->show_original ? "original" : name);
    if (a->compare == FV_COMPARE_WIPE) {
        float x = a->divider * a->win_w;
        rect(r, x - 1, 0, 2, (float)a->win_h, ACCENT);
        rect(r, x - 5, a->win_h / 2.0f - 12, 10, 24, ACCENT); /* the handle */
        float wa = stb_easy_font_width(la) * scale;
        text(r, x - wa - 8, y, scale, ACCENT, la);
        text(r, x + 8, y, scale, ACCENT, lb);
    } else if (a->compare == FV_COMPARE_SIDE_BY_SIDE) {
        rect(r, floorf(a->win_w / 2.0f) - 1, 0, 2, (float)a->win_h, PANEL);
        text(r, 8, y, scale, ACCENT, la);
        text(r, floorf(a->win_w / 2.0f) + 8, y, scale, ACCENT, lb);
    }
}

void hud_draw(app *a)
{
    renderer *r = &a->gl;
    r->hud_count = 0;
    float scale = a->win_w >= 1500 ? 2.0f : (a->win_w >= 900 ? 1.5f : 1.0f);
    if (a->show_hud) {
        compare_labels(a, scale);
        main_panel(a, scale);
        if (a->chart.visible) chart_panel(a, scale);
        if (a->show_help) help_panel(a, scale);
    }
    if (r->hud_count == 0) return;
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(r->hud_program);
    glUniform2f(r->hud_window_size, (float)a->win_w, (float)a->win_h);
    glBindVertexArray(r->hud_vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->hud_vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(hud_vertex) * r->hud_count), r->hud);
    glDrawArrays(GL_TRIANGLES, 0, r->hud_count);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
}
