/* ------------------------------------------------------------------------------------------------
 * viewer/window/keys.c: the one table of key bindings. It drives the key handler (window and --keys
 * replay alike), the on-screen help and `filterview --help-keys` (the README's keys section is
 * that output; tests/CMakeLists.txt checks they agree). Keys follow image viewers such as tev:
 * wheel zooms, drag pans, f fits, q/Esc quits, number keys pick.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include "image_io.h"

#include <GL/freeglut.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#define PARAM_FAST_STEPS 10
#define ITER_FAST_STEP   10
#define ZOOM_STEP        1.25f
#define PAN_STEP         40.0f

void app_set_message(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
}

static void report(app *a, fv_status st)
{
    if (st == FV_OK) return;
    snprintf(a->error, sizeof a->error, "%s", fv_last_error());
    cli_error("%s", a->error);
}

/* ---- actions ---- */
static void toggle_help(app *a, int arg)
{
    (void)arg;
    a->show_help = !a->show_help;
}
static void toggle_hud(app *a, int arg)
{
    (void)arg;
    a->show_hud = !a->show_hud;
}
/* U: full or compact; a hidden HUD shows again in the size picked */
static void toggle_compact(app *a, int arg)
{
    (void)arg;
    a->hud_compact = a->show_hud ? !a->hud_compact : a->hud_compact;
    a->show_hud = 1;
}
static void toggle_original(app *a, int arg)
{
    (void)arg;
    a->show_original = !a->show_original;
}
static void toggle_animate(app *a, int arg)
{
    (void)arg;
    a->animate = !a->animate;
    a->dirty = 1;
}
static void quit(app *a, int arg)
{
    (void)arg;
    a->quit = 1;
}

/* After every change of what the panes show: their runners are prepared now, outside the
 * frame loop, and the panes recomputed. Every input that may make the next frame allocate sets
 * input_changed: this, the noise, the edited pane and `t` (a visible chart is re-timed), reload,
 * and view_resize (view.c); the exit summary counts frames that allocated without one. */
static void changed(app *a)
{
    a->input_changed = 1;
    a->error[0] = 0;
    report(a, pipeline_prepare(a));
    a->dirty = 1;
    a->chart.stale = 1;
}

/* salt-and-pepper density in steps of NOISE_STEP percentage points, 0 .. 50 % */
#define NOISE_STEP 5
static void change_noise(app *a, int steps)
{
    fv_noise n = a->noise;
    const int percent = (int)(n.density * 100 + 0.5) + steps * NOISE_STEP;
    if (percent < 0 || percent > 100 * FV_NOISE_MAX_DENSITY) {
        app_set_message(a, "noise is at its %s", steps > 0 ? "maximum (50 %)" : "minimum (off)");
        return;
    }
    n.density = percent / 100.0;
    a->input_changed = 1;
    a->error[0] = 0;
    report(a, pipeline_set_noise(a, &n));
    a->chart.stale = 1;
    app_set_message(a, "salt-and-pepper noise on the source: %d %%%s", percent,
                    percent ? "" : " (off)");
}

/* Two files compared: the panes show the files, and the keys that pick what runs say so. */
static int showing_files(app *a)
{
    if (a->path_b) app_set_message(a, "two files compared: the panes show the files");
    return a->path_b != NULL;
}

static void select_filter(app *a, int index)
{
    if (index < 0 || index >= fv_n_filters || showing_files(a)) return;
    const int p = a->edit_pane;
    /* whether each pane showed its filter's reference, before the filter changes */
    int was_reference[2];
    for (int q = 0; q < 2; q++) /* (a user kernel's index, PANE_USER, is below 0) */
        was_reference[q] = a->panes[q].asked >= 0 &&
                           a->panes[q].asked < pane_filter(a, q)->n_variants &&
                           fv_variant_is_host(&pane_filter(a, q)->variants[a->panes[q].asked]);
    a->panes[a->linked ? 0 : p].filter = index;
    if (a->picked_param >= pane_filter(a, p)->n_params) a->picked_param = 0;
    /* keep what each pane asked for by position where it exists, else the reference; what
     * cannot run here is replaced like for like when the panes are prepared */
    for (int q = 0; q < 2; q++) {
        if (!a->linked && q != p) continue;
        pane *pn = &a->panes[q];
        const fv_filter *f = pane_filter(a, q);
        const int reference = fv_variant_index(f, fv_filter_variant_of_role(f, FV_ROLE_REFERENCE));
        if (was_reference[q]) pn->asked = reference; /* the reference stays the reference */
        if (pn->asked >= f->n_variants) pn->asked = reference;
        /* the pane's own kernel is written for one filter: on another, the reference */
        if (pn->asked == PANE_USER && !pane_has_user(a, q)) pn->asked = reference;
    }
    changed(a);
}

static void next_filter(app *a, int arg)
{
    (void)arg;
    select_filter(a, (a->panes[a->linked ? 0 : a->edit_pane].filter + 1) % fv_n_filters);
}

/* variants cycle through original, then the filter's variants, then the pane's own kernel
 * (user=FILE, where it is written for the filter shown), on every machine alike: one that cannot
 * run here is asked for all the same, and the HUD says what runs instead */
static void cycle_variant(app *a, int code)
{
    if (showing_files(a)) return;
    const int p = code / 2, step = code % 2 ? -1 : 1;
    const int n_variants = pane_filter(a, p)->n_variants;
    const int n = n_variants + 1 + pane_has_user(a, p); /* + original, + the user's */
    const int asked = a->panes[p].asked;
    const int at = asked == PANE_USER ? n_variants + 1 : asked + 1; /* 0 = original */
    const int next = (at + step + n) % n;
    a->panes[p].asked = next == n_variants + 1 ? PANE_USER : next - 1;
    changed(a);
}

static void change_iterations(app *a, int delta)
{
    fv_params *params = pane_params(a, a->edit_pane);
    int it = params->iterations + delta, max = edit_filter(a)->max_iterations;
    if (max > ITER_MAX_VIEWER) max = ITER_MAX_VIEWER;
    params->iterations = it < 1 ? 1 : (it > max ? max : it);
    changed(a);
}

static void pick_param(app *a, int direction)
{
    const int n = edit_filter(a)->n_params;
    if (n == 0) {
        app_set_message(a, "%s has no parameters", edit_filter(a)->name);
        return;
    }
    do /* an image parameter is a file: no keys step it */
        a->picked_param = ((a->picked_param + direction) % n + n) % n;
    while (edit_filter(a)->params[a->picked_param].type == FV_PARAM_IMAGE);
}

/* s/S: one step of the picked parameter; d/D: PARAM_FAST_STEPS steps */
static void step_param(app *a, int steps)
{
    const fv_filter *f = edit_filter(a);
    if (f->n_params == 0) {
        app_set_message(a, "%s has no parameters", f->name);
        return;
    }
    if (a->picked_param >= f->n_params) a->picked_param = 0;
    fv_params p = *pane_params(a, a->edit_pane);
    if (!fv_param_step(f, &p, a->picked_param, steps)) {
        app_set_message(a, "%s is at its %s", f->params[a->picked_param].name,
                        steps > 0 ? "maximum" : "minimum");
        return;
    }
    if (fv_params_check(f, &p) != FV_OK) {
        snprintf(a->error, sizeof a->error, "%s", fv_last_error());
        return;
    }
    *pane_params(a, a->edit_pane) = p;
    changed(a);
}

/* l: pane B follows A's filter and parameters, or has its own (starting from A's) */
static void toggle_link(app *a, int arg)
{
    (void)arg;
    if (a->linked) {
        a->panes[1].filter = a->panes[0].filter;
        a->params[1][a->panes[1].filter] = a->params[0][a->panes[0].filter];
        a->linked = 0;
        a->edit_pane = 1;
        app_set_message(a, "panes unlinked: keys now edit pane B (1-%d: its filter; e: edit A)",
                        fv_n_filters < 9 ? fv_n_filters : 9);
    } else {
        a->linked = 1;
        a->edit_pane = 0;
        if (a->panes[1].asked >= pane_filter(a, 1)->n_variants ||
            (a->panes[1].asked == PANE_USER && !pane_has_user(a, 1)))
            a->panes[1].asked = PANE_ORIGINAL;
        app_set_message(a, "panes linked: B shows A's filter with A's parameters");
    }
    changed(a);
}

/* e: which pane the filter and parameter keys edit (while unlinked) */
static void toggle_edit_pane(app *a, int arg)
{
    (void)arg;
    if (a->linked) {
        app_set_message(a, "the panes are linked: l unlinks them, then e picks the pane to edit");
        return;
    }
    a->edit_pane = !a->edit_pane;
    if (a->picked_param >= edit_filter(a)->n_params) a->picked_param = 0;
    a->chart.stale = 1;
    a->input_changed = 1; /* a visible chart times the other pane's variants */
}

static void cycle_compare(app *a, int arg)
{
    (void)arg;
    a->compare = (fv_compare_mode)((a->compare + 1) % FV_COMPARE_COUNT);
    if (a->fit) view_fit(a);
}

static void cycle_gain(app *a, int arg)
{
    (void)arg;
    a->diff_gain = a->diff_gain >= 64 ? 1 : a->diff_gain * 4;
}

/* The display of 16-bit and float images (any image, in fact: 8-bit ones start at 0 .. 255):
 * exposure in half stops, offset in 1/32 of the display range, tev's keys in spirit */
#define EXPOSURE_STEP 0.5f
#define OFFSET_STEP   (1.0f / 32)
#define EXPOSURE_MAX  16.0f

static void display_said(app *a)
{
    app_set_message(a, "display: exposure %+.1f stops, offset %+.3f%s%s", a->display.exposure,
                    a->display.offset, a->display.colormap ? ", false colour " : "",
                    a->display.colormap ? display_colormap_name(a->display.colormap) : "");
}

static void change_exposure(app *a, int direction)
{
    const float e = a->display.exposure + direction * EXPOSURE_STEP;
    a->display.exposure = fminf(EXPOSURE_MAX, fmaxf(-EXPOSURE_MAX, e));
    display_said(a);
}

static void change_offset(app *a, int direction)
{
    a->display.offset = fminf(1.0f, fmaxf(-1.0f, a->display.offset + direction * OFFSET_STEP));
    display_said(a);
}

static void cycle_colormap(app *a, int arg)
{
    (void)arg;
    a->display.colormap = (display_colormap)((a->display.colormap + 1) % COLORMAP_COUNT);
    display_said(a);
}

static void reset_display(app *a, int arg)
{
    (void)arg;
    a->display.exposure = a->display.offset = 0;
    display_said(a);
}

static void fit(app *a, int arg)
{
    (void)arg;
    view_fit(a);
}

static void zoom_1to1(app *a, int arg)
{
    (void)arg;
    a->zoom = 1;
    a->fit = 0;
}

static void zoom_by(app *a, int direction)
{
    a->zoom *= direction > 0 ? ZOOM_STEP : 1.0f / ZOOM_STEP;
    if (a->zoom > 64) a->zoom = 64;
    if (a->zoom < 1.0f / 64) a->zoom = 1.0f / 64;
    a->fit = 0;
}

static void pan(app *a, int direction)
{
    static const float dx[4] = {-1, 1, 0, 0}, dy[4] = {0, 0, -1, 1};
    a->center_x += dx[direction] * PAN_STEP / a->zoom;
    a->center_y += dy[direction] * PAN_STEP / a->zoom;
    a->fit = 0;
}

static void screenshot(app *a, int arg)
{
    (void)arg;
    char path[128];
    snprintf(path, sizeof path, "filterview-%ld.png", (long)time(NULL));
    render_frame(a); /* the back buffer holds this frame */
    fv_status st = render_screenshot(a, path);
    report(a, st);
    if (st == FV_OK)
        app_set_message(a, "screenshot saved to %s", path);
    else
        a->save_failed = 1;
}

void app_save_panes(app *a)
{
    const char *base = a->path ? strrchr(a->path, '/') : NULL;
    base = base ? base + 1 : (a->path ? a->path : "random");
    const char *dot = strrchr(base, '.');
    int stem = dot ? (int)(dot - base) : (int)strlen(base);
    fv_image out;
    if (fv_host_image_alloc_as(&out, a->host_src.width, a->host_src.height, a->host_src.type, 4) !=
        FV_OK) {
        report(a, FV_ERR_MEMORY);
        a->save_failed = 1;
        return;
    }
    a->message[0] = 0;
    char paths[2][512];
    for (int p = 0; p < 2; p++) {
        char *path = paths[p], params[192];
        const fv_filter *f = pane_filter(a, p);
        fv_params_file_tag(f, pane_params(a, p), params, sizeof params); /* "sigma1.25-radius4" */
        /* the pane's type kept: 8 and 16 bits as PNG, float32 as TIFF */
        snprintf(path, sizeof paths[p], "%.*s.%s-%s-%s-it%d.%s", stem, base, f->name,
                 pane_name(a, p), params, pane_params(a, p)->iterations,
                 out.type == FV_PIXEL_F32 ? "tif" : "png");
        if (p == 1 && !strcmp(paths[0], paths[1])) {
            /* the same filter, variant and parameters (without a GPU both panes run the
             * reference): the same picture, written once rather than B over A */
            size_t len = strlen(a->message);
            snprintf(a->message + len, sizeof a->message - len, ", B is the same picture");
            printf("pane B runs what pane A runs: saved once, to %s\n", cli_escaped(path));
            break;
        }
        fv_status st = pane_download(a, p, &out);
        if (st == FV_OK) st = image_save(path, &out, NULL);
        report(a, st);
        if (st != FV_OK) a->save_failed = 1;
        if (st == FV_OK) {
            size_t len = strlen(a->message);
            snprintf(a->message + len, sizeof a->message - len, "%s%c saved to %s", p ? ", " : "",
                     'A' + p, path);
            printf("saved pane %c to %s\n", 'A' + p, cli_escaped(path));
        }
    }
    fv_host_image_free(&out);
}

static void save_panes(app *a, int arg)
{
    (void)arg;
    app_save_panes(a);
}

static void reload(app *a, int arg)
{
    (void)arg;
    if (!a->path) {
        app_set_message(a, "a random image has nothing to reload");
        return;
    }
    a->input_changed = 1;
    fv_status st = pipeline_reload(a);
    report(a, st);
    if (st == FV_OK) app_set_message(a, "reloaded %s", a->path);
}

static void time_all(app *a, int arg)
{
    (void)arg;
    a->chart.visible = !a->chart.visible;
    a->chart.stale = a->chart.visible;
    a->input_changed = 1; /* the chart prepares a runner per variant */
}

/* ---- the table ---- */
typedef struct key_binding {
    int keys[4];       /* 0-terminated; special keys as KEY_SPECIAL(GLUT_KEY_...) */
    const char *label; /* as the user reads it */
    const char *help;
    void (*action)(app *a, int arg);
    int arg;
} key_binding;

#define SPECIAL(k) KEY_SPECIAL(GLUT_KEY_##k)

static const key_binding bindings[] = {
    {{'h', SPECIAL(F1)}, "h, F1", "show or hide this help", toggle_help, 0},
    {{'1'}, "1 .. 9", "select a filter", select_filter, 0}, /* the texts: binding_texts */
    {{'2'}, NULL, NULL, select_filter, 1},
    {{'3'}, NULL, NULL, select_filter, 2},
    {{'4'}, NULL, NULL, select_filter, 3},
    {{'5'}, NULL, NULL, select_filter, 4},
    {{'6'}, NULL, NULL, select_filter, 5},
    {{'7'}, NULL, NULL, select_filter, 6},
    {{'8'}, NULL, NULL, select_filter, 7},
    {{'9'}, NULL, NULL, select_filter, 8},
    {{'\t'}, "Tab", "next filter", next_filter, 0},
    {{'a'}, "a / A", "pane A: next / previous variant (or the original)", cycle_variant, 0},
    {{'A'}, NULL, NULL, cycle_variant, 1},
    {{'b'}, "b / B", "pane B: next / previous variant (or the original)", cycle_variant, 2},
    {{'B'}, NULL, NULL, cycle_variant, 3},
    {{'+', '='}, "+ / -", "iterations up / down by 1 (1 .. 1000)", change_iterations, 1},
    {{'-', '_'}, NULL, NULL, change_iterations, -1},
    {{SPECIAL(PAGE_UP)},
     "PgUp / PgDn",
     "iterations up / down by 10",
     change_iterations,
     ITER_FAST_STEP},
    {{SPECIAL(PAGE_DOWN)}, NULL, NULL, change_iterations, -ITER_FAST_STEP},
    {{'j'},
     "j / J",
     "pick the next / previous parameter of the filter (the HUD marks it)",
     pick_param,
     1},
    {{'J'}, NULL, NULL, pick_param, -1},
    {{'s'},
     "s / S",
     "picked parameter up / down by one step (gaussian: sigma by 0.25)",
     step_param,
     1},
    {{'S'}, NULL, NULL, step_param, -1},
    {{'d'}, "d / D", "picked parameter up / down by ten steps", step_param, PARAM_FAST_STEPS},
    {{'D'}, NULL, NULL, step_param, -PARAM_FAST_STEPS},
    {{'l'},
     "l",
     "link / unlink the panes: unlinked, B has its own filter and parameters",
     toggle_link,
     0},
    {{'e'},
     "e",
     "unlinked: the filter and parameter keys edit pane A or pane B",
     toggle_edit_pane,
     0},
    {{'c'}, "c", "compare mode: single, wipe, side by side, difference", cycle_compare, 0},
    {{'g'}, "g", "difference gain x1, x4, x16, x64", cycle_gain, 0},
    {{'o'}, "o", "show the original in both panes (toggle)", toggle_original, 0},
    {{'x'},
     "x / X",
     "exposure up / down by half a stop (16-bit and float: over the image's 0.1-99.9 % range)",
     change_exposure,
     1},
    {{'X'}, NULL, NULL, change_exposure, -1},
    {{'y'}, "y / Y", "display offset up / down by 1/32 of the range", change_offset, 1},
    {{'Y'}, NULL, NULL, change_offset, -1},
    {{'0'}, "0", "exposure and offset back to 0 (the automatic range)", reset_display, 0},
    {{'m'}, "m", "false colour: off, viridis, turbo (with its colour key)", cycle_colormap, 0},
    {{'n'},
     "n / N",
     "salt-and-pepper noise on the source up / down by 5 % (0 .. 50 %)",
     change_noise,
     1},
    {{'N'}, NULL, NULL, change_noise, -1},
    {{'f'}, "f", "fit the image to the window", fit, 0},
    {{'z'}, "z", "zoom 1:1 (one image pixel per screen pixel)", zoom_1to1, 0},
    {{']'}, "] / [", "zoom in / out (also the mouse wheel)", zoom_by, 1},
    {{'['}, NULL, NULL, zoom_by, -1},
    {{SPECIAL(LEFT)}, "arrows", "pan (also: drag with the left button)", pan, 0},
    {{SPECIAL(RIGHT)}, NULL, NULL, pan, 1},
    {{SPECIAL(UP)}, NULL, NULL, pan, 2},
    {{SPECIAL(DOWN)}, NULL, NULL, pan, 3},
    {{'t'}, "t", "time every variant of this filter: bar chart (again: hide)", time_all, 0},
    {{' '}, "space", "animate: re-run the panes every frame (live timings)", toggle_animate, 0},
    {{'p'}, "p", "screenshot of the window (filterview-<time>.png)", screenshot, 0},
    {{'w'},
     "w",
     "save both panes at full resolution (name has filter, variant, parameters)",
     save_panes,
     0},
    {{'r'}, "r", "reload the image from disk", reload, 0},
    {{'u'}, "u / U", "hide or show the HUD / full or compact HUD", toggle_hud, 0},
    {{'U'}, NULL, NULL, toggle_compact, 0},
    {{'q', 27}, "q, Esc", "quit", quit, 0},
    {{0}, "wheel", "zoom about the cursor", NULL, 0},
    {{0}, "left drag", "pan; in wipe mode, drag the divider", NULL, 0},
};

#define N_BINDINGS ((int)(sizeof bindings / sizeof bindings[0]))

/* The filter keys' row names only the keys that pick a filter, from the registry: "1 .. 6",
 * "select the filter: 1 gaussian, 2 invert, ...". */
static void binding_texts(int b, const char **label, const char **help)
{
    static char keys[16], names[256];
    *label = bindings[b].label;
    *help = bindings[b].help;
    if (bindings[b].action != select_filter || !*label) return;
    const int n = fv_n_filters < 9 ? fv_n_filters : 9;
    snprintf(keys, sizeof keys, n > 1 ? "1 .. %d" : "%d", n);
    int len = snprintf(names, sizeof names, "select the filter of the edited pane:");
    for (int i = 0; i < n && len < (int)sizeof names; i++)
        len += snprintf(names + len, sizeof names - (size_t)len, "%s %d %s", i ? "," : "", i + 1,
                        fv_filters[i]->name);
    *label = keys;
    *help = names;
}

void app_key(app *a, int key)
{
    for (int i = 0; i < N_BINDINGS; i++)
        for (int k = 0; k < 4 && bindings[i].keys[k]; k++)
            if (bindings[i].keys[k] == key && bindings[i].action) {
                a->message[0] = 0;
                bindings[i].action(a, bindings[i].arg);
                return;
            }
}

void keys_help_fill(key_help *h)
{
    h->n = 0;
    for (int b = 0; b < N_BINDINGS && h->n < KEYS_MAX_HELP; b++) {
        if (!bindings[b].label) continue;
        binding_texts(b, &h->label[h->n], &h->help[h->n]);
        h->n++;
    }
}

void keys_print_help(FILE *out, int markdown)
{
    if (markdown) fprintf(out, "| key | action |\n|---|---|\n");
    for (int b = 0; b < N_BINDINGS; b++) {
        if (!bindings[b].label) continue;
        const char *label, *help;
        binding_texts(b, &label, &help);
        if (markdown)
            fprintf(out, "| `%s` | %s |\n", label, help);
        else
            fprintf(out, "  %-12s %s\n", label, help);
    }
}

/* ---- mouse ---- */
#define DIVIDER_GRAB_PX 8

void app_mouse_button(app *a, int button, int pressed, int x, int y)
{
    a->mouse_x = x;
    a->mouse_y = y;
    if ((button == 3 || button == 4) && pressed) { /* freeglut reports the wheel as buttons 3/4 */
        float ix, iy;
        view_window_to_image(a, x, y, &ix, &iy);
        zoom_by(a, button == 3 ? 1 : -1);
        float nx, ny; /* keep the image point under the cursor where it was */
        view_window_to_image(a, x, y, &nx, &ny);
        a->center_x += ix - nx;
        a->center_y += iy - ny;
        return;
    }
    if (button != GLUT_LEFT_BUTTON) return;
    if (!pressed) {
        a->drag = 0;
        return;
    }
    int on_divider =
        a->compare == FV_COMPARE_WIPE && fabsf(x - a->divider * a->win_w) <= DIVIDER_GRAB_PX;
    a->drag = on_divider ? 2 : 1;
    a->drag_x = x;
    a->drag_y = y;
}

void app_mouse_motion(app *a, int x, int y)
{
    if (a->drag == 2 && a->win_w > 0) {
        a->divider = fminf(1.0f, fmaxf(0.0f, (float)x / a->win_w));
    } else if (a->drag == 1) {
        a->center_x -= (x - a->drag_x) / a->zoom;
        a->center_y -= (y - a->drag_y) / a->zoom;
        a->fit = 0;
    }
    a->drag_x = x;
    a->drag_y = y;
    a->mouse_x = x;
    a->mouse_y = y;
}
