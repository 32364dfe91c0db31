/* ------------------------------------------------------------------------------------------------
 * viewer/window/hud.c: the heads-up display, drawn in GL over the image: filter, variants and their
 * summaries, parameters, each pane's kernel time (ms, GB/s, share of the copy bandwidth), the
 * speedup of B over A where it is beyond timing noise (hud_speedup.c), the |A - B| statistics, frame time, size, zoom, the pixel under the cursor,
 * the compute mode, a variant replaced for want of a GPU, the last error, a user kernel's compile
 * error or fault (and its compile under way); colour keys for false
 * colour; the help overlay and the all-variants bar chart. This file tells the app as a hud_model
 * (plain text and numbers), hud_layout.c places it for the window's size (tested without GL), and
 * the layout's text runs become stb_easy_font's quads at an integer scale, over translucent panels.
 * It reads the panes from pipeline.c and the view from view.c; render.c draws it over the image.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include <math.h>
#include <string.h>

#include <stb_easy_font.h>

#ifndef FV_VERSION
#define FV_VERSION "unknown"
#endif

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

/* stb_easy_font quads (4 vertices of 16 bytes: x, y, z, colour) -> scaled triangles; the box of
 * every glyph drawn grows r->hud_text_box, which the summary reports */
static void text(renderer *r, float x, float y, float scale, const uint8_t rgba[4], char *s)
{
    const int quads = stb_easy_font_print(0, 0, s, NULL, r->text_quads, HUD_TEXT_BYTES);
    float *box = r->hud_text_box;
    for (int q = 0; q < quads; q++) {
        const float *v = (const float *)(r->text_quads + q * 64);
        const float x0 = x + v[0] * scale, y0 = y + v[1] * scale;
        const float x1 = x + v[8] * scale, y1 = y + v[9] * scale; /* vertex 2: opposite corner */
        rect(r, x0, y0, x1 - x0, y1 - y0, rgba);
        box[0] = fminf(box[0], x0);
        box[1] = fminf(box[1], y0);
        box[2] = fmaxf(box[2], x1);
        box[3] = fmaxf(box[3], y1);
    }
    r->hud_text_quads += quads;
}

/* ---- the app as the HUD tells it ---- */
static void fill_pane(app *a, int p, hud_pane *hp)
{
    const pane *pn = &a->panes[p];
    const fv_filter *f = pane_filter(a, p);
    hp->filter = f;
    hp->params = pane_params(a, p);
    hp->original = !PANE_COMPUTES(pn);
    pane_label(a, p, hp->label, sizeof hp->label);
    hp->timing[0] = 0;
    const fv_variant *v = pane_variant(a, p);
    hp->summary = pn->variant == PANE_FILE_B ? "the second file, held against the first"
                  : hp->original             ? "the image as loaded"
                                             : v->summary;
    hp->resources = hp->original ? "" : pn->resources;
    snprintf(hp->replaced, sizeof hp->replaced, "%s", pn->replaced);
    hp->user_error = pn->user_error;
    hp->user_status = pn->user_status;
    if (hp->original) return;
    const int host = fv_variant_is_host(v);
    const double gbps = pane_gbps(a, p);
    if (host || a->copy_gbps <= 0)
        snprintf(hp->timing, sizeof hp->timing, "%.3f ms%s", pn->kernel_ms,
                 host ? " (host clock)" : "");
    else
        snprintf(hp->timing, sizeof hp->timing, "%.4f ms  %.0f GB/s  %.0f%% of copy", pn->kernel_ms,
                 gbps, 100.0 * gbps / a->copy_gbps);
}

static const char *channels_word(int channels)
{
    return channels == 1 ? "gray" : (channels == 3 ? "RGB" : "RGBA");
}

/* One value in the image's units: integers as such, float32 with 5 significant digits. */
static int value_text(char *buf, size_t size, fv_pixel_type type, double v)
{
    return type == FV_PIXEL_F32 ? snprintf(buf, size, " %.5g", v) : snprintf(buf, size, " %.0f", v);
}

/* " 51234" for a gray file, " 51234 40012 39877" for RGB, four values for RGBA */
static int pixel_text(char *buf, size_t size, fv_pixel_type type, int channels, const double v[4])
{
    int len = 0;
    const int shown = channels == 1 ? 1 : channels;
    for (int c = 0; c < shown && len < (int)size; c++)
        len += value_text(buf + len, size - (size_t)len, type, v[c]);
    return len;
}

/* The pixel under the cursor in each pane (and, where a pane runs a filter, the reference's and
 * the source's), in the image's units: "x 120 y 45  A 51234  B 51234  ref 51234  source 39877" */
static void fill_probe(app *a, hud_model *m)
{
    m->probe[0] = 0;
    if (!a->show_hud || a->zoom < 1.0f) return; /* below 1:1 a screen pixel is several */
    float ix, iy;
    view_window_to_image(a, a->mouse_x, a->mouse_y, &ix, &iy);
    const int px = (int)floorf(ix), py = (int)floorf(iy);
    double va[4], vb[4], vs[4];
    if (!pipeline_probe_pixel(a, 0, px, py, va) || !pipeline_probe_pixel(a, 1, px, py, vb)) return;
    const int channels =
        a->path_b && a->file_b_channels > a->file_channels ? a->file_b_channels : a->file_channels;
    const size_t size = sizeof m->probe;
    int len = snprintf(m->probe, size, "x %d y %d  A", px, py);
    len += pixel_text(m->probe + len, size - (size_t)len, a->type, channels, va);
    len += snprintf(m->probe + len, size - (size_t)len, "  B");
    len += pixel_text(m->probe + len, size - (size_t)len, a->type, channels, vb);
    const int computes = PANE_COMPUTES(&a->panes[0]) || PANE_COMPUTES(&a->panes[1]);
    if (computes && pipeline_probe_reference(a, px, py, vs) && len < (int)size) {
        len += snprintf(m->probe + len, size - (size_t)len, "  ref");
        len += pixel_text(m->probe + len, size - (size_t)len, a->type, channels, vs);
    }
    if (computes && pipeline_probe_source(a, px, py, vs) && len < (int)size) {
        len += snprintf(m->probe + len, size - (size_t)len, "  source");
        pixel_text(m->probe + len, size - (size_t)len, a->type, channels, vs);
    }
}

/* How the image is shown: said for 16-bit and float images, and for 8-bit ones once changed */
static void fill_display(app *a, hud_model *m)
{
    const display_map *d = &a->display;
    m->display[0] = 0;
    m->colormap = d->colormap;
    m->diff_integer = a->type != FV_PIXEL_F32;
    /* the difference heat map reaches its top at |A-B| = range / (2^exposure * gain) */
    m->diff_top = (d->hi - d->lo) / (exp2(d->exposure) * a->diff_gain);
    for (int i = 0; i < 3; i++) m->colormap_value[i] = display_value_at(d, i / 2.0);
    if (a->type == FV_PIXEL_U8 && d->exposure == 0 && d->offset == 0 && !d->colormap) return;
    char lo[32], hi[32];
    value_text(lo, sizeof lo, a->type, d->lo);
    value_text(hi, sizeof hi, a->type, d->hi);
    snprintf(m->display, sizeof m->display,
             "display [x/X y/Y 0 m]: range%s ..%s (%s), exposure %+.1f, offset %+.3f%s%s", lo, hi,
             a->type == FV_PIXEL_U8 ? "8-bit" : "auto: 0.1-99.9 %", d->exposure, d->offset,
             d->colormap ? ", false colour " : "",
             d->colormap ? display_colormap_name(d->colormap) : "");
}

static void fill_model(app *a, hud_model *m)
{
    static const char *const compare_names[] = {"single (A)", "wipe (drag the divider)",
                                                "side by side", "difference |A-B|"};
    m->mode = !a->show_hud ? HUD_HIDDEN : (a->hud_compact ? HUD_COMPACT : HUD_FULL);
    m->win_w = a->win_w;
    m->win_h = a->win_h;
    const char *base = a->path ? strrchr(a->path, '/') : NULL;
    base = base ? base + 1 : (a->path ? a->path : "random image");
    char files[160];
    if (a->path_b) /* two files: A's and B's (B's channels where they differ) */
        snprintf(files, sizeof files, "A %s  B %s%s%s", base, pane_name(a, 1),
                 a->file_b_channels != a->file_channels ? " " : "",
                 a->file_b_channels != a->file_channels ? channels_word(a->file_b_channels) : "");
    else
        snprintf(files, sizeof files, "%s", base);
    snprintf(m->title, sizeof m->title, "%s  %s %s %dx%d  zoom %.0f%%%s  frame %.2f ms%s", files,
             fv_pixel_type_name(a->type), channels_word(a->file_channels), a->host_src.width,
             a->host_src.height, a->zoom * 100.0f, a->fit ? " (fit)" : "", a->frame_ms,
             a->animate ? "  animating [space]" : "");
    snprintf(m->load_note, sizeof m->load_note, "%s%s", a->load_note,
             a->file_channels == 1
                 ? (a->load_note[0] ? "; gray file: shown as g, g, g"
                                    : "gray file: the filters see g, g, g, opaque")
                 : "");
    snprintf(m->compute_note, sizeof m->compute_note, "%s", a->compute_note);
    m->compute_bad = a->compute != FV_COMPUTE_INTEROP;
    for (int p = 0; p < 2; p++) fill_pane(a, p, &m->pane[p]);
    m->linked = a->linked;
    m->edit_pane = a->edit_pane;
    m->picked_param = a->picked_param;
    m->n_filters = fv_n_filters;
    m->noise[0] = 0;
    if (fv_noise_is_on(&a->noise))
        snprintf(m->noise, sizeof m->noise,
                 "noise on the source [n/N]: salt-and-pepper %g %%, gaussian sigma %g, seed %u",
                 a->noise.density * 100, a->noise.sigma, a->noise.seed);
    char speed[96] = "";
    const pane *pa = &a->panes[0], *pb = &a->panes[1];
    /* the same variant of the same filter with the same parameters: one code, whatever the two
     * clocks say, so no speed-up is claimed (their ratio is timing noise) */
    const int same_code = pa->variant >= 0 && pa->variant == pb->variant &&
                          pa->filter == pb->filter &&
                          fv_params_same(pane_params(a, 0), pane_params(a, 1));
    if (same_code)
        snprintf(speed, sizeof speed, "   same code in A and B: no speed-up");
    else if (PANE_COMPUTES(pa) && PANE_COMPUTES(pb)) {
        /* two codes: a speed-up only beyond the spread of their recent warm runs */
        const hud_speedup s = hud_speedup_of(&pa->timings, &pb->timings);
        memcpy(speed, "   ", 3);
        hud_speedup_text(&s, speed + 3, (int)sizeof speed - 3);
    }
    snprintf(m->compare, sizeof m->compare, "compare [c]: %s%s%s", compare_names[a->compare],
             a->show_original ? " (original [o])" : "", speed);
    m->diff[0] = 0;
    m->diff_zero = a->diff_valid && a->diff.max_abs_value == 0;
    char psnr[64] = "";
    if (a->path_b && isfinite(a->psnr))
        snprintf(psnr, sizeof psnr, "  PSNR %.2f dB", a->psnr);
    else if (a->path_b)
        snprintf(psnr, sizeof psnr, "  PSNR inf (equal)");
    if (a->diff_valid && a->type == FV_PIXEL_F32) /* in the image's units */
        snprintf(
            m->diff, sizeof m->diff, "|A-B| (%s): max %.5g  mean %.5g  %lld of %lld px differ%s",
            a->compute == FV_COMPUTE_CPU ? "CPU" : "GPU", a->diff.max_abs_value, a->diff.mean_abs,
            a->diff.n_differing, (long long)a->host_src.width * a->host_src.height, psnr);
    else if (a->diff_valid)
        snprintf(m->diff, sizeof m->diff, "|A-B| (%s): max %d  mean %.4f  %lld of %lld px differ%s",
                 a->compute == FV_COMPUTE_CPU ? "CPU" : "GPU", a->diff.max_abs, a->diff.mean_abs,
                 a->diff.n_differing, (long long)a->host_src.width * a->host_src.height, psnr);
    fill_probe(a, m);
    fill_display(a, m);
    m->error = a->error;
    m->message = a->message;
    m->compare_mode = (hud_compare)a->compare;
    m->show_original = a->show_original;
    m->divider = a->divider;
    m->gain = a->diff_gain;
    m->show_help = a->show_help;
    m->version = FV_VERSION;
    m->help = &a->help;
    m->chart = &a->chart;
    if (a->chart.visible) {
        char params[192];
        fv_params_describe(edit_filter(a), pane_params(a, a->edit_pane), params, sizeof params);
        snprintf(m->chart_title, sizeof m->chart_title,
                 "all variants of %s (%s, %d iterations), ms, shorter is faster [t]",
                 edit_filter(a)->name, params, pane_params(a, a->edit_pane)->iterations);
    }
}

void hud_draw(app *a)
{
    renderer *r = &a->gl;
    r->hud_count = 0;
    r->hud_text_quads = 0;
    r->hud_text_box[0] = r->hud_text_box[1] = 1e9f;
    r->hud_text_box[2] = r->hud_text_box[3] = -1e9f;
    fill_model(a, r->hud_model);
    hud_layout *L = r->hud_layout;
    hud_layout_build(r->hud_model, L);
    for (int i = 0; i < L->n_boxes; i++)
        rect(r, L->boxes[i].x, L->boxes[i].y, L->boxes[i].w, L->boxes[i].h, L->boxes[i].rgba);
    for (int i = 0; i < L->n_runs; i++)
        text(r, L->runs[i].x, L->runs[i].y, (float)L->scale, L->runs[i].rgba,
             L->pool + L->runs[i].offset);
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
