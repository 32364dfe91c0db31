/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_hud_layout.c: the viewer's HUD fits every window from 640x480 to 3840x2160
 * (and odd sizes between), without GL. For every filter, every parameter picked in each pane,
 * linked and unlinked, each HUD mode (full, compact), each compare mode with the legends that
 * come with it (difference heat map, Canny direction and thresholds, conv kernel and spectra), the
 * help overlay, the bar chart, a replaced variant, a long error and a user kernel's compile error
 * (file:line: message, wrapped) with its compile under way, it lays the HUD out as the
 * viewer does (hud_layout_build, with the registry's own summaries and worst-case strings) and
 * checks: every glyph stb_easy_font draws lies inside the window; the picked parameter is one run,
 * whole (">name value<") and inside; the font grows with the window; filter keys name only
 * filters that exist. Below 640x480 nothing is promised but that no glyph leaves the window.
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include "hud_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stb_easy_font.h>

static test_counts t;
static hud_layout L;
static char quads[1 << 20];
static long checked_layouts, checked_glyphs;

/* every glyph quad of every run inside the window, and (where `need_text`) glyphs at all: a
 * layout that draws nothing has nothing outside either; returns 0 and says where when one is not */
static int glyphs_within(const char *what, int need_text)
{
    long drawn = 0;
    for (int i = 0; i < L.n_runs; i++) {
        const hud_run *r = &L.runs[i];
        const int n = stb_easy_font_print(0, 0, L.pool + r->offset, NULL, quads, sizeof quads);
        for (int q = 0; q < n; q++) {
            const float *v = (const float *)(quads + q * 64);
            const float x0 = r->x + v[0] * L.scale, y0 = r->y + v[1] * L.scale;
            const float x1 = r->x + v[8] * L.scale, y1 = r->y + v[9] * L.scale;
            checked_glyphs++;
            drawn++;
            if (x0 < 0 || y0 < 0 || x1 > L.win_w || y1 > L.win_h) {
                char detail[512];
                snprintf(detail, sizeof detail,
                         "%s at %dx%d: '%s' has a glyph at (%g, %g)-(%g, %g)", what, L.win_w,
                         L.win_h, L.pool + r->offset, x0, y0, x1, y1);
                test_check(&t, 0, "every glyph inside the window:", detail);
                return 0;
            }
        }
    }
    if (need_text && drawn == 0) {
        char detail[256];
        snprintf(detail, sizeof detail, "%s at %dx%d: %d runs, no glyph", what, L.win_w, L.win_h,
                 L.n_runs);
        test_check(&t, 0, "the HUD draws text:", detail);
        return 0;
    }
    for (int i = 0; i < L.n_boxes; i++) {
        const hud_box *b = &L.boxes[i];
        if (b->x < -0.5f || b->y < -0.5f || b->x + b->w > L.win_w + 0.5f ||
            b->y + b->h > L.win_h + 0.5f) {
            char detail[256];
            snprintf(detail, sizeof detail, "%s at %dx%d: box %d (%g, %g) %gx%g", what, L.win_w,
                     L.win_h, i, b->x, b->y, b->w, b->h);
            test_check(&t, 0, "every panel inside the window:", detail);
            return 0;
        }
    }
    return 1;
}

static int glyphs_inside(const char *what)
{
    return glyphs_within(what, 1);
}

/* the picked parameter: one run holds ">name value<" whole */
static int picked_shown(const char *name, const char *what)
{
    char detail[512];
    if (L.picked_run < 0) {
        snprintf(detail, sizeof detail, "%s at %dx%d: '%s' is not on one row", what, L.win_w,
                 L.win_h, name);
        test_check(&t, 0, "the picked parameter shows:", detail);
        return 0;
    }
    const char *s = L.pool + L.runs[L.picked_run].offset;
    char want[64];
    snprintf(want, sizeof want, ">%s ", name);
    const char *at = strstr(s, want);
    if (!at || !strchr(at, '<')) {
        snprintf(detail, sizeof detail, "%s at %dx%d: row '%s' lacks '>%s ...<'", what, L.win_w,
                 L.win_h, s, name);
        test_check(&t, 0, "the picked parameter shows:", detail);
        return 0;
    }
    return 1;
}

static const char LONG_RESOURCES[] =
    "gaussian_rows_smem_kernel: 40 regs, 4.2 KB smem, 256 threads, occupancy 100%; "
    "gaussian_cols_smem_kernel: 38 regs, 8.4 KB smem, 256 threads, occupancy 100%; "
    "gaussian_fused_kernel: 64 regs, 12.0 KB smem, 512 threads, occupancy 75%; "
    "copy_kernel: 16 regs, 0 B smem, 1024 threads, occupancy 100%";

/* a user kernel's compile error as the viewer words it, with a long path and message */
static const char USER_ERROR_A[] =
    "A my_first_gaussian_blur_with_shared_memory.cu: /home/student/courses/gpu-programming/"
    "week-03/exercises/my_first_gaussian_blur_with_shared_memory.cu:123: error: argument of type "
    "\"const fv_image\" is incompatible with parameter of type \"uchar4 *\" (the last good build "
    "runs)";
/* a fault as the viewer words it: longer than a row holds (ROW_CHARS in hud_layout.c) */
static const char USER_ERROR_B[] =
    "B my_kernel.cu is off: it faulted: operation not supported on global/shared address space "
    "(cudaErrorInvalidAddressSpace); compute-sanitizer filterview ... names the line (shown: the "
    "original, until you save the file again)";

static bar_chart chart_data;
static key_help help_rows;

static void fill_help(void)
{
    /* the key table's longest rows, as many as the viewer has (keys.c: about 31) */
    static const char *const labels[] = {
        "h, F1", "1 .. 6",    "Tab", "a / A", "b / B", "+ / -", "PgUp / PgDn", "j / J", "s / S",
        "d / D", "l",         "e",   "c",     "g",     "o",     "n / N",       "f",     "z",
        "] / [", "arrows",    "t",   "space", "p",     "w",     "r",           "u / U", "q, Esc",
        "wheel", "left drag", "x",   "y"};
    static const char *const helps[] = {
        "show or hide this help",
        ("select the filter of the edited pane: 1 gaussian, 2 invert, 3 box, 4 median, 5 canny, "
         "6 conv"),
        "next filter",
        "pane A: next / previous variant (or the original)",
        "pane B: next / previous variant (or the original)",
        "iterations up / down by 1 (1 .. 1000)",
        "iterations up / down by 10",
        "pick the next / previous parameter of the filter (the HUD marks it)",
        "picked parameter up / down by one step (gaussian: sigma by 0.25)",
        "picked parameter up / down by ten steps",
        "link / unlink the panes: unlinked, B has its own filter and parameters",
        "unlinked: the filter and parameter keys edit pane A or pane B",
        "compare mode: single, wipe, side by side, difference",
        "difference gain x1, x4, x16, x64",
        "show the original in both panes (toggle)",
        "salt-and-pepper noise on the source up / down by 5 % (0 .. 50 %)",
        "fit the image to the window",
        "zoom 1:1 (one image pixel per screen pixel)",
        "zoom in / out (also the mouse wheel)",
        "pan (also: drag with the left button)",
        "time every variant of this filter: bar chart (again: hide)",
        "animate: re-run the panes every frame (live timings)",
        "screenshot of the window (filterview-<time>.png)",
        "save both panes at full resolution (name has filter, variant, parameters)",
        "reload the image from disk",
        "hide or show the HUD / full or compact HUD",
        "quit",
        "zoom about the cursor",
        "pan; in wipe mode, drag the divider",
        "a spare row as long as the longest, to leave room for keys yet to come ........",
        "another spare row"};
    help_rows.n = (int)(sizeof labels / sizeof labels[0]);
    for (int i = 0; i < help_rows.n; i++) {
        help_rows.label[i] = labels[i];
        help_rows.help[i] = helps[i];
    }
}

static void fill_chart(const fv_filter *f)
{
    chart_data.visible = 1;
    chart_data.n = f->n_variants < CHART_MAX_VARIANTS ? f->n_variants : CHART_MAX_VARIANTS;
    for (int i = 0; i < chart_data.n; i++) {
        chart_data.names[i] = f->variants[i].name;
        chart_data.on_host[i] = fv_variant_is_host(&f->variants[i]);
        chart_data.ms[i] = chart_data.on_host[i] ? 2345.6789 : 0.0123 * (i + 1);
    }
}

/* a model as the viewer makes it, with the longest strings it can show */
static void base_model(hud_model *m, const fv_filter *f, const fv_params *pa, const fv_params *pb,
                       int w, int h)
{
    memset(m, 0, sizeof *m);
    m->win_w = w;
    m->win_h = h;
    snprintf(m->title, sizeof m->title,
             "a-rather-long-photo-name-from-a-camera-IMG_20240101_123456789.jpg  3840x2160  "
             "zoom 100%% (fit)  frame 16.67 ms  animating [space]");
    snprintf(m->compute_note, sizeof m->compute_note,
             "no NVIDIA GPU: the CPU references run (no CUDA device: CUDA driver version is "
             "insufficient for CUDA runtime version (use -v cpu to run the reference))");
    m->compute_bad = 1;
    for (int p = 0; p < 2; p++) {
        hud_pane *hp = &m->pane[p];
        hp->filter = f;
        hp->params = p ? pb : pa;
        snprintf(hp->label, sizeof hp->label, "%s:%s", f->name,
                 f->variants[f->n_variants - 1].name);
        snprintf(hp->timing, sizeof hp->timing, "1234.5678 ms  1234 GB/s  100%% of copy");
        /* the longest summary of the filter's variants */
        hp->summary = f->variants[0].summary;
        for (int v = 0; v < f->n_variants; v++)
            if (strlen(f->variants[v].summary) > strlen(hp->summary))
                hp->summary = f->variants[v].summary;
        hp->resources = LONG_RESOURCES;
        snprintf(hp->replaced, sizeof hp->replaced,
                 "no NVIDIA GPU: %c %s -> cpu (GPU variants need an NVIDIA GPU and driver)",
                 'A' + p, f->variants[0].name);
        hp->user_error = p ? USER_ERROR_B : USER_ERROR_A;
        hp->user_status = "A: compiling a_kernel_with_a_rather_long_name_for_a_student.cu ... "
                          "(the last good build runs)";
    }
    m->linked = 1;
    m->n_filters = fv_n_filters;
    snprintf(m->noise, sizeof m->noise,
             "noise on the source [n/N]: salt-and-pepper 50 %%, gaussian sigma 128, seed "
             "4294967295");
    snprintf(m->compare, sizeof m->compare,
             "compare [c]: difference |A-B| (original [o])   timing A and B: 0 of 5 warm frames "
             "[space]");
    snprintf(m->diff, sizeof m->diff,
             "|A-B| (CPU): max 255  mean 127.5000  33554432 of 33554432 px differ");
    snprintf(m->probe, sizeof m->probe, "(16383, 16383)  A 255 255 255 255   B 255 255 255 255");
    m->error = "cannot make the panes' pixel buffers: out of memory on the device (wanted "
               "1234 MB, 12 MB free): a smaller image, or close what else uses the GPU";
    m->message = "A saved to a-rather-long-photo-name.gaussian-fast-sigma1.25-radius4-it1.png, "
                 "B saved to a-rather-long-photo-name.gaussian-cpu-sigma1.25-radius4-it1.png";
    m->divider = 0.5f;
    m->gain = 4;
    m->version = "0.1";
    m->help = &help_rows;
}

static const int SIZES[][2] = {{640, 480},  {960, 720},   {1280, 720}, {1920, 1080}, {3840, 2160},
                               {641, 479},  {800, 600},   {1024, 768}, {1366, 768},  {2560, 1440},
                               {720, 1280}, {3840, 1080}, {700, 2000}};
#define N_SIZES ((int)(sizeof SIZES / sizeof SIZES[0]))

static hud_model model;

static void check_filter(const fv_filter *f)
{
    fv_params pa = fv_params_default(f), pb = fv_params_default(f);
    pa.iterations = pb.iterations = 1000;
    /* the widest value of every parameter: its maximum, or its longest choice */
    for (int i = 0; i < f->n_params; i++) {
        const fv_param_desc *d = &f->params[i];
        if (d->type == FV_PARAM_CHOICE) {
            int best = 0;
            for (int c = 0; c < d->n_choices; c++)
                if (strlen(d->choices[c]) > strlen(d->choices[best])) best = c;
            pa.value[i] = pb.value[i] = best;
        } else if (d->type != FV_PARAM_IMAGE) {
            pa.value[i] = pb.value[i] = d->max - (d->type == FV_PARAM_REAL ? d->step / 3 : 0);
        }
    }
    fill_chart(f);
    for (int si = 0; si < N_SIZES; si++) {
        const int w = SIZES[si][0], h = SIZES[si][1];
        for (int mode = HUD_FULL; mode <= HUD_COMPACT; mode++)
            for (int linked = 0; linked < 2; linked++)
                for (int edit = 0; edit < 2; edit++) {
                    if (linked && edit) continue;
                    for (int picked = 0; picked < (f->n_params ? f->n_params : 1); picked++) {
                        if (f->n_params && f->params[picked].type == FV_PARAM_IMAGE) continue;
                        for (int cmp = HUD_SINGLE; cmp <= HUD_DIFFERENCE; cmp++) {
                            base_model(&model, f, &pa, &pb, w, h);
                            model.mode = (hud_mode)mode;
                            model.linked = linked;
                            model.edit_pane = edit;
                            model.picked_param = picked;
                            model.compare_mode = (hud_compare)cmp;
                            model.divider = (float)(cmp % 3) / 2; /* the wipe at 0, 0.5, 1 */
                            model.chart = cmp == HUD_DIFFERENCE ? &chart_data : NULL;
                            hud_layout_build(&model, &L);
                            char what[160];
                            snprintf(
                                what, sizeof what, "%s, %s, %s, pane %c, %s picked, compare %d",
                                f->name, mode ? "compact" : "full", linked ? "linked" : "unlinked",
                                'A' + edit, f->n_params ? f->params[picked].name : "nothing", cmp);
                            checked_layouts++;
                            if (!glyphs_inside(what)) return;
                            if (f->n_params && !picked_shown(f->params[picked].name, what)) return;
                        }
                    }
                }
    }
    test_check(&t, 1, "fits at every size:", f->name);
}

/* every stage of a filter with a `stage` parameter, in both panes, each compare mode */
static void check_legends(const fv_filter *f)
{
    int stage = -1;
    for (int i = 0; i < f->n_params; i++)
        if (!strcmp(f->params[i].name, "stage")) stage = i;
    if (stage < 0) return;
    int shown = 0;
    for (int c = 0; c < f->params[stage].n_choices; c++) {
        fv_params pa = fv_params_default(f), pb = fv_params_default(f);
        pa.value[stage] = c;
        pb.value[stage] = (c + 1) % f->params[stage].n_choices;
        const int false_colour = hud_legend(f, &pa) != NULL;
        for (int si = 0; si < N_SIZES; si++)
            for (int cmp = HUD_SINGLE; cmp <= HUD_SIDE_BY_SIDE; cmp++) {
                base_model(&model, f, &pa, &pb, SIZES[si][0], SIZES[si][1]);
                model.linked = 0;
                model.compare_mode = (hud_compare)cmp;
                hud_layout_build(&model, &L);
                checked_layouts++;
                if (!glyphs_inside(f->params[stage].choices[c])) return;
                /* a false-colour pane A has its key: a ramp or swatches (boxes beyond the panels) */
                if (false_colour && SIZES[si][0] >= 640 && SIZES[si][1] >= 480) {
                    int small = 0;
                    for (int b = 0; b < L.n_boxes; b++)
                        if (L.boxes[b].h <= 10.0f * L.scale) small++;
                    if (small < 3) {
                        char detail[128];
                        snprintf(detail, sizeof detail, "%s stage %s at %dx%d", f->name,
                                 f->params[stage].choices[c], SIZES[si][0], SIZES[si][1]);
                        test_check(&t, 0, "a false-colour stage shows its colour key:", detail);
                        return;
                    }
                }
            }
        shown += false_colour;
    }
    char detail[96];
    snprintf(detail, sizeof detail, "%s: %d stages with a colour key", f->name, shown);
    test_check(&t, shown > 0, "legends fit:", detail);
}

/* A filter the HUD knows nothing of gets the colour key it declares (fv_filter.legend), drawn
 * from that data alone: its title (with "A: " and "B: " where the panes show two keys), each
 * swatch in its own colour with its name, or a ramp with its three ticks. */
static const fv_legend made_up_swatches = {
    .title = "made-up key",
    .swatches = {{{11, 22, 33, 255}, "first"},
                 {{44, 55, 66, 255}, "second"},
                 {{77, 88, 99, 255}, "third"}},
    .n_swatches = 3,
};
static const fv_legend made_up_ramp = {.title = "made-up ramp",
                                       .ramp_ticks = {"low", "mid", "top"}};

static const fv_legend *made_up_legend(const fv_params *p)
{
    return p->iterations == 1 ? &made_up_swatches : &made_up_ramp;
}

static int run_shown(const char *text)
{
    for (int i = 0; i < L.n_runs; i++)
        if (!strcmp(L.pool + L.runs[i].offset, text)) return 1;
    return 0;
}

static void check_declared_legend(void)
{
    fv_filter f = *fv_filters[0];
    f.legend = made_up_legend;
    fv_params one = fv_params_default(&f), two = one;
    two.iterations = 2;
    /* one key for both panes: no "A: " */
    base_model(&model, &f, &one, &one, 960, 720);
    model.compare_mode = HUD_SIDE_BY_SIDE;
    hud_layout_build(&model, &L);
    int colours = 0;
    for (int k = 0; k < made_up_swatches.n_swatches; k++)
        for (int b = 0; b < L.n_boxes; b++)
            if (!memcmp(L.boxes[b].rgba, made_up_swatches.swatches[k].rgba, 4)) {
                colours++;
                break;
            }
    test_check(&t,
               run_shown("made-up key") && run_shown("first") && run_shown("second") &&
                   run_shown("third") && colours == made_up_swatches.n_swatches,
               "a declared key is drawn: its title, names and colours", "");
    /* two keys, one a ramp: each says its pane */
    base_model(&model, &f, &one, &two, 960, 720);
    model.linked = 0;
    model.compare_mode = HUD_SIDE_BY_SIDE;
    hud_layout_build(&model, &L);
    test_check(&t,
               run_shown("A: made-up key") && run_shown("B: made-up ramp") && run_shown("low") &&
                   run_shown("mid") && run_shown("top"),
               "two declared keys say their panes; a ramp shows its ticks", "");
}

/* The help overlay (the last box) over the main panel: a run it covers must be its own (the
 * title, a key's label or a piece of its help), never the HUD's drawn through it; and where
 * the window has the room below the panel, the HUD's last row (the keys' hint) stays in sight. */
static int help_covers_nothing(float hint_bottom)
{
    const hud_box *o = &L.boxes[L.n_boxes - 1];
    /* the layout's rule: below the panel, a margin from it and from the window's edge */
    const float margin = 6.0f * L.scale;
    const int room_below =
        hint_bottom > 0 && ceilf(hint_bottom + margin) + o->h <= L.win_h - margin;
    int hint_seen = 0;
    for (int i = 0; i < L.n_runs; i++) {
        const hud_run *r = &L.runs[i];
        const char *text = L.pool + r->offset;
        const float w = (float)hud_text_width(text, r->length) * L.scale;
        const int inside = r->x < o->x + o->w && r->x + w > o->x && r->y < o->y + o->h &&
                           r->y + 12.0f * L.scale > o->y;
        int own = !strncmp(text, "filterview ", 11);
        for (int k = 0; k < help_rows.n && !own; k++)
            own = !strcmp(text, help_rows.label[k]) || strstr(help_rows.help[k], text);
        if (!strncmp(text, "h: help", 7)) hint_seen = !inside;
        if (inside && !own) {
            char detail[256];
            snprintf(detail, sizeof detail, "%dx%d: '%s' under the help at (%g, %g) %gx%g", L.win_w,
                     L.win_h, text, o->x, o->y, o->w, o->h);
            test_check(&t, 0, "the help overlay covers no HUD row:", detail);
            return 0;
        }
    }
    if (room_below && !hint_seen) {
        char detail[160];
        snprintf(detail, sizeof detail, "%dx%d (the row ends at %g, the help is at %g, %g high)",
                 L.win_w, L.win_h, hint_bottom, o->y, o->h);
        test_check(&t, 0, "the HUD's last row stays in sight beside the help:", detail);
        return 0;
    }
    return 1;
}

static void check_help_and_small(void)
{
    const fv_filter *f = fv_filters[0];
    fv_params p = fv_params_default(f);
    for (int si = 0; si < N_SIZES; si++) {
        base_model(&model, f, &p, &p, SIZES[si][0], SIZES[si][1]);
        model.compare_mode = HUD_DIFFERENCE;
        hud_layout_build(&model, &L); /* without the help: where the HUD's last row is */
        float hint_bottom = 0;
        for (int i = 0; i < L.n_runs; i++)
            if (!strncmp(L.pool + L.runs[i].offset, "h: help", 7))
                hint_bottom = L.runs[i].y + 12.0f * L.scale;
        model.show_help = 1;
        hud_layout_build(&model, &L);
        checked_layouts++;
        if (!glyphs_inside("help overlay")) return;
        if (!help_covers_nothing(hint_bottom)) return;
        /* the title with the version, and at 640x480 and up every key row */
        int version = 0, rows = 0;
        for (int i = 0; i < L.n_runs; i++) {
            const char *s = L.pool + L.runs[i].offset;
            if (strstr(s, "filterview 0.1")) version = 1;
            for (int k = 0; k < help_rows.n; k++)
                if (!strcmp(s, help_rows.label[k])) rows++;
        }
        if (!version || (SIZES[si][0] >= 640 && SIZES[si][1] >= 480 && rows < help_rows.n)) {
            char detail[96];
            snprintf(detail, sizeof detail, "%dx%d: version %d, %d of %d key rows", SIZES[si][0],
                     SIZES[si][1], version, rows, help_rows.n);
            test_check(&t, 0, "the help shows the version and every key:", detail);
            return;
        }
    }
    test_check(&t, 1, "help overlay fits at every size", "");
    /* below the smallest supported window: less is shown, nothing leaves the window */
    static const int tiny[][2] = {{320, 240}, {200, 150}, {100, 60}, {1, 1}, {4000, 40}};
    for (int i = 0; i < 5; i++)
        for (int mode = HUD_FULL; mode <= HUD_COMPACT; mode++) {
            base_model(&model, f, &p, &p, tiny[i][0], tiny[i][1]);
            model.mode = (hud_mode)mode;
            model.show_help = 1;
            model.compare_mode = HUD_WIPE;
            hud_layout_build(&model, &L);
            /* a 1x1 window may show nothing at all */
            if (!glyphs_within("below 640x480", tiny[i][0] >= 100)) return;
        }
    test_check(&t, 1, "windows below 640x480 keep the HUD inside", "");
}

static void check_scale_and_keys(void)
{
    char detail[128];
    snprintf(detail, sizeof detail, "640x480 %d, 960x720 %d, 1920x1080 %d, 3840x2160 %d",
             hud_scale(640, 480), hud_scale(960, 720), hud_scale(1920, 1080),
             hud_scale(3840, 2160));
    test_check(&t,
               hud_scale(640, 480) == 1 && hud_scale(960, 720) == 1 && hud_scale(1920, 1080) == 2 &&
                   hud_scale(3840, 2160) == 3,
               "the font scale grows with the window:", detail);
    /* the filter keys name the filters there are: [1-N] with N the registry's count */
    const fv_filter *f = fv_filters[0];
    fv_params p = fv_params_default(f);
    base_model(&model, f, &p, &p, 960, 720);
    char line[512], want[32];
    int at, len;
    hud_params_text(&model, 0, line, sizeof line, &at, &len);
    snprintf(want, sizeof want, "[1-%d,Tab]", fv_n_filters < 9 ? fv_n_filters : 9);
    test_check(&t, strstr(line, want) != NULL, "the filter keys are the registry's:", line);
    /* the HUD hidden: nothing drawn */
    model.mode = HUD_HIDDEN;
    hud_layout_build(&model, &L);
    test_check(&t, L.n_runs == 0 && L.n_boxes == 0, "a hidden HUD draws nothing", "");
    /* compact is smaller than full */
    model.mode = HUD_FULL;
    hud_layout_build(&model, &L);
    const float full_h = L.boxes[L.n_boxes - 1].h;
    const int full_runs = L.n_runs;
    model.mode = HUD_COMPACT;
    hud_layout_build(&model, &L);
    snprintf(detail, sizeof detail, "%d rows full, %d compact (panel %g px high full)", full_runs,
             L.n_runs, full_h);
    test_check(&t, L.n_runs * 2 < full_runs, "the compact HUD is a few lines:", detail);
    /* a replaced variant is said in the compact HUD too */
    int said = 0;
    for (int i = 0; i < L.n_runs; i++)
        if (strstr(L.pool + L.runs[i].offset, "no NVIDIA GPU: A")) said = 1;
    test_check(&t, said, "the compact HUD says a variant was replaced", "");
    /* a user kernel's compile error: in red, in every mode, its file and line on the first row */
    for (int mode = HUD_FULL; mode <= HUD_COMPACT; mode++) {
        base_model(&model, f, &p, &p, 640, 480);
        model.mode = (hud_mode)mode;
        hud_layout_build(&model, &L);
        int error_rows = 0, line_shown = 0;
        for (int i = 0; i < L.n_runs; i++) {
            if (!hud_run_alert(&L.runs[i])) continue;
            const char *s = L.pool + L.runs[i].offset;
            if (strstr(s, "A my_first_gaussian")) error_rows++;
            if (strstr(s, "shared_memory.cu:123:")) line_shown = 1;
        }
        snprintf(detail, sizeof detail, "%s at 640x480: %d rows, line shown %d",
                 mode ? "compact" : "full", error_rows, line_shown);
        test_check(&t, error_rows == 1 && line_shown && glyphs_inside("user kernel error"),
                   "a user kernel's error is said in red with its line:", detail);
    }
    /* the heat map legend: its colours are the shader's and its top tick follows the gain */
    uint8_t c0[4], c1[4];
    hud_heat(0, c0);
    hud_heat(1, c1);
    test_check(&t, c0[0] == 0 && c0[1] == 0 && c0[2] == 0 && c1[0] == 255 && c1[1] == 255,
               "the legend's heat map runs from black to yellow-white", "");
    for (int gain = 1; gain <= 64; gain *= 4) {
        base_model(&model, f, &p, &p, 960, 720);
        model.compare_mode = HUD_DIFFERENCE;
        model.gain = (float)gain;
        hud_layout_build(&model, &L);
        char tick[16];
        snprintf(tick, sizeof tick, gain == 1 ? "%d" : "%d+", (int)floorf(255.0f / gain + 0.5f));
        int found = 0;
        for (int i = 0; i < L.n_runs; i++)
            if (!strcmp(L.pool + L.runs[i].offset, tick)) found = 1;
        snprintf(detail, sizeof detail, "gain %d: tick '%s'", gain, tick);
        test_check(&t, found, "the difference legend follows the gain:", detail);
    }
}

/* A long alert loses no words: pane B's fault message, at every size and in windows wide enough
 * for more characters than a row holds at the smallest font, is shown whole over its rows, or
 * cut once at its end with "..." (never silently in the middle) */
static void check_long_alert_whole(void)
{
    static const int wide[][2] = {{1280, 800}, {1440, 900}, {4000, 700}, {16383, 480}};
    const fv_filter *f = fv_filters[0];
    fv_params p = fv_params_default(f);
    char shown[2048], detail[2300];
    for (int i = 0; i < N_SIZES + 4; i++) {
        const int w = i < N_SIZES ? SIZES[i][0] : wide[i - N_SIZES][0];
        const int h = i < N_SIZES ? SIZES[i][1] : wide[i - N_SIZES][1];
        base_model(&model, f, &p, &p, w, h);
        hud_layout_build(&model, &L);
        int first = -1;
        for (int r = 0; r < L.n_runs && first < 0; r++)
            if (!strncmp(L.pool + L.runs[r].offset, "B my_kernel.cu", 14)) first = r;
        size_t n = 0;
        /* its rows: the first, then the indented continuations below it */
        for (int r = first; r >= 0 && r < L.n_runs; r++) {
            if (r > first && (L.runs[r].x <= L.runs[first].x || !hud_run_alert(&L.runs[r]))) break;
            n += (size_t)snprintf(shown + n, sizeof shown - n, "%s%s", n ? " " : "",
                                  L.pool + L.runs[r].offset);
            if (n >= sizeof shown) n = sizeof shown - 1;
        }
        shown[n] = 0;
        const char *dots = n >= 3 ? shown + n - 3 : NULL;
        const int whole = !strcmp(shown, USER_ERROR_B);
        const int cut_at_end =
            dots && !strcmp(dots, "...") && !strncmp(shown, USER_ERROR_B, (size_t)(dots - shown));
        snprintf(detail, sizeof detail, "%dx%d: '%s'", w, h, first < 0 ? "(not shown)" : shown);
        test_check(&t, first >= 0 && (whole || cut_at_end) && glyphs_inside("long alert"),
                   "a long alert is shown whole or cut at its end with '...':", detail);
    }
}

int main(void)
{
    fill_help();
    check_scale_and_keys();
    for (int i = 0; i < fv_n_filters; i++) {
        check_filter(fv_filters[i]);
        check_legends(fv_filters[i]);
    }
    check_help_and_small();
    check_long_alert_whole();
    check_declared_legend();
    printf("%ld layouts, %ld glyphs checked\n", checked_layouts, checked_glyphs);
    test_check(&t, checked_layouts > 0 && checked_glyphs > 10 * checked_layouts,
               "layouts were checked, with text in them", NULL);
    return test_finish(&t);
}
