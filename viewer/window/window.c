/* ------------------------------------------------------------------------------------------------
 * viewer/window/window.c: where frames are drawn and input comes from. A freeglut window (OpenGL 3.3
 * core) where there is a display; otherwise, or with --headless, an EGL context on the GPU (or
 * Mesa) rendering into an offscreen framebuffer. Both run the same frame function and feed the
 * same key handler, so --keys / --frames / --screenshot test the real window too. The GLUT
 * callbacks reach the app through the one pointer below; nothing else is global.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include "image_io.h"
#include "timing.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/freeglut.h>
#include <X11/Xlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPLAY_KEYS      4096
#define DEFAULT_MAX_WINDOW_W 1280
#define DEFAULT_MAX_WINDOW_H 800

typedef struct replay {
    int keys[MAX_REPLAY_KEYS];
    int n_keys, next_key;
    int frames, frame; /* frames == 0: interactive */
    const char *screenshot;
    int bench_frames;
    int failed; /* the screenshot could not be written: exit 1 */
    char default_screenshot[4200];
} replay;

typedef struct viewer {
    app a;
    replay r;
    EGLDisplay egl_display;
    EGLContext egl_context;
    EGLSurface egl_surface;
    int glut_window;
} viewer;

static viewer *glut_viewer; /* the GLUT callbacks' single app state */

/* ---- one frame ---- */
static unsigned long long allocations_now(const app *a)
{
    return fv_runner_allocations() + a->allocations;
}

/* Whether anything was allocated since the last frame ended (this frame, or the input handled
 * before it), and whether an input changed something that may ask for it. */
static void count_frame_allocations(app *a)
{
    const unsigned long long now = allocations_now(a);
    a->frames++;
    if (now != a->allocations_seen) {
        a->frames_allocated++;
        if (!a->input_changed) a->frames_allocated_no_change++;
    }
    a->allocations_seen = now;
    a->input_changed = 0;
}

static void app_frame(app *a)
{
    double t0 = fv_now_ms();
    user_panes_tick(a); /* a fault put right, a new build swapped in, a save seen */
    if (a->quit) return;
    if (a->chart.visible && a->chart.stale) pipeline_time_all_variants(a);
    if (a->dirty || a->animate) {
        fv_status st = pipeline_compute(a);
        if (st != FV_OK) {
            snprintf(a->error, sizeof a->error, "%s", fv_last_error());
            cli_error("%s", a->error);
        }
        a->dirty = 0;
    }
    pipeline_collect(a, 0); /* the HUD shows the newest numbers the GPU has finished */
    double t_draw = fv_now_ms();
    render_frame(a);
    if (a->profile) glFinish();
    double now = fv_now_ms();
    a->stage_ms[STAGE_DRAW] = now - t_draw;
    a->frame_ms = now - t0;
    count_frame_allocations(a);
}

static const char *const stage_names[FRAME_STAGES] = {"map", "kernels+diff", "unmap",
                                                      "copy to texture", "draw+HUD"};

static void print_stages(const char *what, double *const stages[FRAME_STAGES], int n)
{
    printf("bench-frames %s (median ms):", what);
    for (int s = 0; s < FRAME_STAGES; s++)
        printf("%s %s %.4f", s ? "," : "", stage_names[s], fv_median(stages[s], n));
    printf("\n");
}

/* The smallest GL work there is (one pixel cleared), waited for through a fence. */
static void gl_tick(app *a)
{
    if (a->gl.fbo) glBindFramebuffer(GL_FRAMEBUFFER, a->gl.fbo);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, 1, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    GLsync done = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glClientWaitSync(done, GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000);
    glDeleteSync(done);
}

/* What handing the GPU between CUDA and OpenGL costs here, whatever the interop: CUDA's and GL's
 * smallest work each waited for alone, then alternating (as every frame must). ms per round. */
static void handoff_floor(app *a, int n, double *cuda_alone, double *gl_alone, double *alternating)
{
    double t = fv_now_ms();
    for (int i = 0; i < n; i++) pipeline_cuda_tick(a);
    *cuda_alone = (fv_now_ms() - t) / n;
    t = fv_now_ms();
    for (int i = 0; i < n; i++) gl_tick(a);
    *gl_alone = (fv_now_ms() - t) / n;
    t = fv_now_ms();
    for (int i = 0; i < n; i++) {
        pipeline_cuda_tick(a);
        gl_tick(a);
    }
    *alternating = (fv_now_ms() - t) / n;
}

/* --bench-frames: N frames that each recompute both panes, three ways. Steady state: back to
 * back with one glFinish at the end, as an animating window runs; the rest is the frame time
 * minus the kernels' CUDA-event time. One at a time: a glFinish and the results after every
 * frame. Synchronised: the GPU drained after every stage, to see where the time goes. Then the
 * CUDA and GL halves of a frame alone, and the hand-over floor that no interop can go below. */
static void bench_frames(viewer *v)
{
    app *a = &v->a;
    int n = v->r.bench_frames;
    enum { KERNEL, FRAME, REST, SERIES_FIXED };
    double *series = calloc((size_t)n * (SERIES_FIXED + 2 * FRAME_STAGES), sizeof(double));
    if (!series) return;
    double *kernel_ms = series, *frame_ms = series + n, *rest = series + 2 * (size_t)n;
    double *host[FRAME_STAGES], *synced[FRAME_STAGES];
    for (int s = 0; s < FRAME_STAGES; s++) {
        host[s] = series + (size_t)(SERIES_FIXED + s) * n;
        synced[s] = series + (size_t)(SERIES_FIXED + FRAME_STAGES + s) * n;
    }
    for (int i = 0; i < 10; i++) { /* warm-up */
        a->dirty = 1;
        app_frame(a);
    }
    glFinish();
    pipeline_collect(a, 1);
    double t_all = fv_now_ms();
    for (int i = 0; i < n; i++) {
        a->dirty = 1;
        app_frame(a);
        kernel_ms[i] =
            a->panes[0].kernel_ms + a->panes[1].kernel_ms; /* the newest finished frame */
        for (int s = 0; s < FRAME_STAGES; s++) host[s][i] = a->stage_ms[s];
    }
    glFinish();
    pipeline_collect(a, 1);
    double steady_frame = (fv_now_ms() - t_all) / n;
    for (int i = 0; i < n; i++) {
        double t0 = fv_now_ms();
        a->dirty = 1;
        app_frame(a);
        glFinish();
        pipeline_collect(a, 1);
        frame_ms[i] = fv_now_ms() - t0;
        rest[i] = frame_ms[i] - (a->panes[0].kernel_ms + a->panes[1].kernel_ms);
    }
    a->profile = 1;
    for (int i = 0; i < n; i++) {
        a->dirty = 1;
        app_frame(a);
        for (int s = 0; s < FRAME_STAGES; s++) synced[s][i] = a->stage_ms[s];
    }
    a->profile = 0;
    pipeline_collect(a, 1);
    /* the two halves alone, back to back: CUDA's part (map, kernels, diff, unmap) without
     * drawing, and GL's part (composition, HUD) without recomputing */
    glFinish();
    double t_compute = fv_now_ms();
    for (int i = 0; i < n; i++) {
        a->dirty = 1;
        pipeline_compute(a);
    }
    pipeline_collect(a, 1);
    glFinish();
    double compute_alone = (fv_now_ms() - t_compute) / n;
    double t_draw = fv_now_ms();
    for (int i = 0; i < n; i++) render_frame(a);
    glFinish();
    double draw_alone = (fv_now_ms() - t_draw) / n;
    a->dirty = 0;
    double cuda_tick = 0, gl_tick_ms = 0, alternating = 0;
    if (a->compute != FV_COMPUTE_CPU) handoff_floor(a, n, &cuda_tick, &gl_tick_ms, &alternating);
    print_stages("host time per stage, steady state", host, n);
    print_stages("stages, GPU drained after each", synced, n);
    double k = fv_median(kernel_ms, n);
    const char *how = a->compute == FV_COMPUTE_STAGING   ? "staging"
                      : a->compute == FV_COMPUTE_CPU     ? "cpu"
                      : a->interop == FV_INTEROP_BUFFER  ? "interop buffer"
                      : a->interop == FV_INTEROP_TEXTURE ? "interop texture"
                                                         : "interop pbo";
    printf(
        "bench-frames: %dx%d, %s A=%s B=%s, %s, %d frames: kernel %.4f ms (median), "
        "steady state %.4f ms per frame -> rest %.4f ms (map/unmap, diff, copy to texture, draw, HUD); "
        "one frame at a time (glFinish each): %.4f ms, rest %.4f ms (medians)\n",
        a->host_src.width, a->host_src.height, pane_filter(a, 0)->name, pane_name(a, 0),
        pane_name(a, 1), how, n, k, steady_frame, steady_frame - k, fv_median(frame_ms, n),
        fv_median(rest, n));
    printf(
        "bench-frames alone, back to back: compute (map, kernels, diff, unmap) %.4f ms per frame, "
        "draw (composition, HUD) %.4f ms per frame\n",
        compute_alone, draw_alone);
    if (a->compute != FV_COMPUTE_CPU)
        printf(
            "bench-frames hand-over floor (no interop): smallest CUDA work waited for %.4f ms, smallest GL "
            "work waited for %.4f ms, the two alternating %.4f ms per round\n",
            cuda_tick, gl_tick_ms, alternating);
    free(series);
}

static void print_summary(app *a)
{
    static const char *const modes[] = {"single", "wipe", "side-by-side", "difference"};
    char params[2][192], label[2][64];
    for (int p = 0; p < 2; p++) {
        describe_pane_params(a, p, params[p], sizeof params[p]);
        pane_label(a, p, label[p], sizeof label[p]);
    }
    if (a->linked || (pane_filter(a, 0) == pane_filter(a, 1) && !strcmp(params[0], params[1])))
        printf("viewer: %s (%s) A=%s %.4f ms B=%s %.4f ms, ", pane_filter(a, 0)->name, params[0],
               label[0], a->panes[0].kernel_ms, label[1], a->panes[1].kernel_ms);
    else
        printf("viewer: A=%s (%s) %.4f ms B=%s (%s) %.4f ms, ", label[0], params[0],
               a->panes[0].kernel_ms, label[1], params[1], a->panes[1].kernel_ms);
    if (fv_noise_is_on(&a->noise))
        printf("noise on the source: %g %%, sigma %g, seed %u, ", a->noise.density * 100,
               a->noise.sigma, a->noise.seed);
    printf("compare %s, |A-B| max %d mean %.4f differing %lld, %s\n", modes[a->compare],
           a->diff.max_abs, a->diff.mean_abs, a->diff.n_differing, a->compute_note);
    printf("viewer: image %s, %d channel%s in the file, %dx%d; display range %.6g .. %.6g, "
           "exposure %+.1f, offset %+.3f%s%s\n",
           fv_pixel_type_name(a->type), a->file_channels, a->file_channels > 1 ? "s" : "",
           a->host_src.width, a->host_src.height, a->display.lo, a->display.hi, a->display.exposure,
           a->display.offset, a->display.colormap ? ", false colour " : "",
           a->display.colormap ? display_colormap_name(a->display.colormap) : "");
    if (a->path_b) /* two files: the error measure, as ImageMagick's compare prints it */
        printf("viewer: files %s and %s: PSNR %.4f dB, MSE %.6g, |A-B| max %.6g\n",
               cli_escaped(a->path), cli_escaped(a->path_b), a->psnr, a->mse,
               a->diff.max_abs_value);
    if (a->gl.hud_model && a->gl.hud_model->probe[0])
        printf("viewer: probe %s\n", a->gl.hud_model->probe);
    if (a->frames_allocated_no_change)
        printf("viewer: frames that allocated: %lld of %lld (%lld without a change)\n",
               a->frames_allocated, a->frames, a->frames_allocated_no_change);
    else
        printf("viewer: frames that allocated: %lld of %lld%s\n", a->frames_allocated, a->frames,
               a->frames_allocated ? " (all after a change)" : "");
    if (a->error[0]) printf("viewer: last error: %s\n", a->error);
    if (a->chart.visible && a->chart.n) { /* the bar chart's variants and times (t) */
        printf("viewer: chart:");
        for (int i = 0; i < a->chart.n; i++)
            printf("%s %s %.4f ms", i ? "," : "", a->chart.names[i], a->chart.ms[i]);
        printf("\n");
    }
    for (int p = 0; p < 2; p++) /* a user kernel's compile error or fault, as the HUD shows it */
        if (a->panes[p].user_error[0]) printf("viewer: %s\n", a->panes[p].user_error);
    /* where the last frame's HUD text went: the tests check it lies inside the window */
    const renderer *r = &a->gl;
    if (r->hud_layout && r->hud_text_quads > 0) {
        const hud_layout *L = r->hud_layout;
        printf("viewer: HUD %s, scale %d, text within (%.0f, %.0f)-(%.0f, %.0f) of %dx%d, "
               "%d glyph quads, %d rows left out",
               !a->show_hud ? "hidden" : (a->hud_compact ? "compact" : "full"), L->scale,
               r->hud_text_box[0], r->hud_text_box[1], r->hud_text_box[2], r->hud_text_box[3],
               a->win_w, a->win_h, r->hud_text_quads, L->dropped);
        if (L->picked_run >= 0) printf(", picked row: %s", L->pool + L->runs[L->picked_run].offset);
        printf("\n");
        /* what the HUD says in red (errors, a faulted kernel): the tests look for it */
        for (int i = 0; i < L->n_runs; i++)
            if (hud_run_alert(&L->runs[i]))
                printf("viewer: HUD red row: %s\n", L->pool + L->runs[i].offset);
    } else {
        printf("viewer: HUD %s, no text drawn\n", !a->show_hud ? "hidden" : "shown");
    }
}

/* A replayed "<WxH>": the real window is asked to change size (GLUT's reshape follows); 0x0 is
 * what GLUT reports for a minimised window where it reports one. Headless, the offscreen target
 * changes size. */
static void replay_resize(viewer *v, int w, int h)
{
    if (!v->a.headless && w > 0 && h > 0) glutReshapeWindow(w, h);
    view_resize(&v->a, w, h); /* now, in case the window system reports nothing (same size) */
}

/* After each frame: next replayed key, or the end of the run. Returns 1 when done. */
static int replay_step(viewer *v)
{
    app *a = &v->a;
    replay *r = &v->r;
    if (r->frames == 0 && r->n_keys == 0) return a->quit;
    r->frame++;
    for (GLenum err; (err = glGetError()) != GL_NO_ERROR;) { /* replayed runs are tests: say so */
        snprintf(a->error, sizeof a->error, "OpenGL error 0x%04x in frame %d", err, r->frame);
        cli_error("%s", a->error);
    }
    if (r->next_key < r->n_keys) {
        int key = r->keys[r->next_key++];
        if (key & KEY_RESIZE_FLAG) {
            replay_resize(v, KEY_RESIZE_W(key), KEY_RESIZE_H(key));
        } else if (key == KEY_WAIT_COMPILE) {
            user_panes_wait(a);
        } else if (key & KEY_POINTER_FLAG && !(key & KEY_REPLAY_FLAG)) {
            app_mouse_motion(a, KEY_POINTER_X(key), KEY_POINTER_Y(key));
        } else if (key == KEY_SWAP_SOURCE) {
            if (user_panes_swap_source(a) != FV_OK) { /* a test that cannot do what it says */
                cli_error("%s", fv_last_error());
                r->failed = 1;
            }
        } else {
            app_key(a, key);
        }
        return 0;
    }
    if (r->frame < r->frames && !a->quit) return 0;
    if (r->bench_frames) bench_frames(v);
    pipeline_collect(a, 1); /* the summary and the screenshot's HUD show this frame's numbers */
    if (r->screenshot && a->fatal) { /* the GPU faulted: its panes hold nothing true */
        printf("viewer: no screenshot written (%s): the GPU faulted\n", cli_escaped(r->screenshot));
    } else if (r->screenshot) {
        app_frame(a);
        fv_status st = render_screenshot(a, r->screenshot);
        if (st == FV_OK)
            printf("wrote screenshot %s (%dx%d)\n", cli_escaped(r->screenshot), a->win_w, a->win_h);
        else
            cli_error("%s", fv_last_error());
        if (st != FV_OK) r->failed = 1; /* as a replayed action that failed */
    }
    print_summary(a);
    return 1;
}

/* ---- GLUT ---- */
static void glut_display(void)
{
    viewer *v = glut_viewer;
    app_frame(&v->a);
    int done = replay_step(v);
    glutSwapBuffers();
    if (done || v->a.quit) {
        glutLeaveMainLoop();
        return;
    }
    /* replaying, animating, or the HUD still waits for the GPU's numbers */
    if (v->r.frames || v->r.n_keys || v->a.animate || v->a.results_pending) glutPostRedisplay();
}

/* An idle window draws no frame: a kernel file saved meanwhile, or a compile that finished, is
 * looked for a few times a second and given one. */
#define WATCH_INTERVAL_MS 250
static void glut_watch(int value)
{
    (void)value;
    if (user_panes_need_frame(&glut_viewer->a)) glutPostRedisplay();
    glutTimerFunc(WATCH_INTERVAL_MS, glut_watch, 0);
}

static void glut_reshape(int w, int h)
{
    view_resize(&glut_viewer->a, w, h);
    glutPostRedisplay();
}

static void glut_keyboard(unsigned char key, int x, int y)
{
    app *a = &glut_viewer->a;
    a->mouse_x = x;
    a->mouse_y = y;
    app_key(a, key);
    if (a->quit)
        glutLeaveMainLoop();
    else
        glutPostRedisplay();
}

static void glut_special(int key, int x, int y)
{
    app *a = &glut_viewer->a;
    a->mouse_x = x;
    a->mouse_y = y;
    app_key(a, KEY_SPECIAL(key));
    glutPostRedisplay();
}

static void glut_mouse(int button, int state, int x, int y)
{
    app_mouse_button(&glut_viewer->a, button, state == GLUT_DOWN, x, y);
    glutPostRedisplay();
}

static void glut_motion(int x, int y)
{
    app_mouse_motion(&glut_viewer->a, x, y);
    glutPostRedisplay();
}

static void glut_passive_motion(int x, int y)
{
    app *a = &glut_viewer->a;
    a->mouse_x = x;
    a->mouse_y = y;
    if (a->zoom > 1.0f && a->show_hud) glutPostRedisplay(); /* the pixel readout follows */
}

static int display_reachable(void)
{
    const char *d = getenv("DISPLAY");
    if (!d || !*d) return 0;
    Display *x = XOpenDisplay(NULL);
    if (!x) return 0;
    XCloseDisplay(x);
    return 1;
}

static fv_status glut_start(viewer *v, int *argc, char **argv)
{
    glutInit(argc, argv);
    glutInitContextVersion(3, 3);
    glutInitContextProfile(GLUT_CORE_PROFILE);
    glutInitDisplayMode(GLUT_RGBA | GLUT_DOUBLE);
    glutInitWindowSize(v->a.win_w, v->a.win_h);
    glutSetOption(GLUT_ACTION_ON_WINDOW_CLOSE, GLUT_ACTION_GLUTMAINLOOP_RETURNS);
    v->glut_window = glutCreateWindow("filterview");
    if (v->glut_window <= 0) return fv_fail(FV_ERR_GL, "cannot create a GLUT window");
    return FV_OK;
}

static void glut_run(viewer *v)
{
    glut_viewer = v;
    glutDisplayFunc(glut_display);
    glutReshapeFunc(glut_reshape);
    glutKeyboardFunc(glut_keyboard);
    glutSpecialFunc(glut_special);
    glutMouseFunc(glut_mouse);
    glutMotionFunc(glut_motion);
    glutPassiveMotionFunc(glut_passive_motion);
    if (v->a.panes[0].user_file || v->a.panes[1].user_file)
        glutTimerFunc(WATCH_INTERVAL_MS, glut_watch, 0);
    glutMainLoop();
}

/* ---- EGL (headless) ---- */
static fv_status egl_start(viewer *v)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDisplay dpy = EGL_NO_DISPLAY;
    if (query_devices && platform_display) { /* a GPU without an X server */
        EGLDeviceEXT devices[16];
        EGLint n = 0;
        if (query_devices(16, devices, &n))
            for (EGLint i = 0; i < n && dpy == EGL_NO_DISPLAY; i++) {
                dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
                if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL)) dpy = EGL_NO_DISPLAY;
            }
    }
    if (dpy == EGL_NO_DISPLAY && platform_display) { /* Mesa without a display */
        dpy = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL)) dpy = EGL_NO_DISPLAY;
    }
    if (dpy == EGL_NO_DISPLAY)
        return fv_fail(FV_ERR_GL, "no display and no usable EGL device (EGL error 0x%x)",
                       eglGetError());
    if (!eglBindAPI(EGL_OPENGL_API)) return fv_fail(FV_ERR_GL, "EGL has no desktop OpenGL");
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE,
                                     EGL_PBUFFER_BIT,
                                     EGL_RENDERABLE_TYPE,
                                     EGL_OPENGL_BIT,
                                     EGL_RED_SIZE,
                                     8,
                                     EGL_GREEN_SIZE,
                                     8,
                                     EGL_BLUE_SIZE,
                                     8,
                                     EGL_NONE};
    EGLConfig config;
    EGLint n_configs = 0;
    if (!eglChooseConfig(dpy, config_attribs, &config, 1, &n_configs) || n_configs < 1)
        return fv_fail(FV_ERR_GL, "EGL: no RGB8 OpenGL configuration");
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                      3,
                                      EGL_CONTEXT_MINOR_VERSION,
                                      3,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                      EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, context_attribs);
    if (ctx == EGL_NO_CONTEXT)
        return fv_fail(FV_ERR_GL, "EGL: cannot create an OpenGL 3.3 core context (0x%x)",
                       eglGetError());
    const EGLint pbuffer_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    EGLSurface surface =
        eglCreatePbufferSurface(dpy, config, pbuffer_attribs); /* we draw into an FBO */
    if (!eglMakeCurrent(dpy, surface, surface, ctx))
        return fv_fail(FV_ERR_GL, "EGL: eglMakeCurrent failed (0x%x)", eglGetError());
    v->egl_display = dpy;
    v->egl_context = ctx;
    v->egl_surface = surface;
    v->a.headless = 1;
    return FV_OK;
}

static void egl_run(viewer *v)
{
    if (v->r.frames == 0) v->r.frames = 1;
    for (;;) {
        app_frame(&v->a);
        if (replay_step(v)) break;
    }
}

static void egl_stop(viewer *v)
{
    if (v->egl_display == EGL_NO_DISPLAY || !v->egl_display) return;
    eglMakeCurrent(v->egl_display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (v->egl_surface != EGL_NO_SURFACE) eglDestroySurface(v->egl_display, v->egl_surface);
    eglDestroyContext(v->egl_display, v->egl_context);
    eglTerminate(v->egl_display);
}

/* ---- start-up ---- */
static void app_defaults(app *a, const cli_options *o)
{
    for (int p = 0; p < 2; p++)
        for (int f = 0; f < fv_n_filters; f++) {
            a->params[p][f] = *cli_params(o, fv_filters[f]);
            if (a->params[p][f].iterations > ITER_MAX_VIEWER)
                a->params[p][f].iterations = ITER_MAX_VIEWER;
        }
    const fv_filter *f = o->filter;
    /* the classic demo: A = naive, B = smem; -v puts a variant in pane A instead */
    a->panes[0].filter = a->panes[1].filter = fv_filter_index(f);
    a->panes[0].asked = o->variant_given ? (int)(o->variant - f->variants) : 0;
    a->panes[1].asked = f->n_variants > 2 ? 1 : PANE_ORIGINAL;
    if (o->user_file) { /* -v user=FILE: the user's kernel in pane A */
        a->panes[0].asked = PANE_USER;
        a->panes[0].user_file = o->user_file;
        a->panes[0].user_filter = f;
    }
    for (int p = 0; p < 2; p++) {
        if (!o->pane_given[p]) continue;
        const pane_spec *spec = &o->pane[p];
        a->panes[p].filter = fv_filter_index(spec->filter);
        a->panes[p].asked =
            spec->variant ? (int)(spec->variant - spec->filter->variants) : PANE_ORIGINAL;
        a->panes[p].user_file = spec->user_file; /* FILTER:user=FILE */
        a->panes[p].user_filter = spec->user_file ? spec->filter : NULL;
        if (spec->user_file) a->panes[p].asked = PANE_USER;
    }
    if (o->pane_given[0] && !o->pane_given[1] && a->panes[0].filter != a->panes[1].filter) {
        const fv_filter *fa =
            fv_filters[a->panes[0].filter]; /* -a names another filter: B follows */
        a->panes[1].filter = a->panes[0].filter;
        a->panes[1].asked = fa->n_variants > 2 ? 1 : PANE_ORIGINAL;
    }
    /* B follows A (linked) unless it shows another filter */
    a->linked = a->panes[0].filter == a->panes[1].filter;
    a->edit_pane = 0;
    a->compare = FV_COMPARE_SINGLE;
    a->show_hud = 1;
    a->diff_gain = 4;
    a->divider = 0.5f;
    a->dirty = 1;
    a->path = o->input;
    a->path_b = o->input_b;
    a->random_w = o->random_w;
    a->random_h = o->random_h;
    a->seed = o->seed;
    a->noise = o->noise;
    a->interop = o->interop == FV_INTEROP_STAGING ? FV_INTEROP_BUFFER : o->interop;
    a->force_staging = o->interop == FV_INTEROP_STAGING;
    keys_help_fill(&a->help);
}

static void window_size(app *a, const cli_options *o)
{
    if (o->window_w) {
        a->win_w = o->window_w;
        a->win_h = o->window_h;
        return;
    }
    float s = fminf(1.0f, fminf((float)DEFAULT_MAX_WINDOW_W / a->host_src.width,
                                (float)DEFAULT_MAX_WINDOW_H / a->host_src.height));
    a->win_w = (int)fmaxf(960.0f, floorf(a->host_src.width * s));
    a->win_h = (int)fmaxf(720.0f, floorf(a->host_src.height * s));
}

static int fail(viewer *v, int code)
{
    cli_error("%s", fv_last_error());
    pipeline_release(&v->a);
    pipeline_watchdog_stop(&v->a);
    user_panes_release(&v->a);
    free(v);
    return code;
}

int viewer_main(cli_options *o)
{
    viewer *v = calloc(1, sizeof *v);
    if (!v) return 1;
    app *a = &v->a;
    app_defaults(a, o);
    if (!o->input && !o->random_w) {
        free(v);
        cli_error("no image given: the viewer shows IMAGE, or --random WxH (see --help)");
        return 2;
    }
    if (o->keys && (v->r.n_keys = keys_parse(o->keys, v->r.keys, MAX_REPLAY_KEYS)) < 0) {
        cli_error("%s", fv_last_error());
        free(v);
        return 2;
    }
    v->r.frames = o->frames;
    v->r.screenshot = o->screenshot;
    v->r.bench_frames = o->bench_frames;
    if ((v->r.bench_frames || v->r.screenshot) && !v->r.frames)
        v->r.frames = 1; /* run, then exit */
    /* a screenshot that cannot be written is said now, not after all the frames */
    if (v->r.screenshot && image_check_output_path(v->r.screenshot) != FV_OK) return fail(v, 1);
    if (pipeline_watchdog_start(a) != FV_OK) return fail(v, 2); /* a bad limit or host choice */
    if (app_load_image(a) != FV_OK) return fail(v, 1);
    window_size(a, o);

    int use_window = !o->headless && display_reachable();
    if (!use_window) {
        if (!o->headless) {
            fprintf(stderr, "filterview: no display%s: drawing headless (EGL)\n",
                    getenv("DISPLAY") && *getenv("DISPLAY") ? " reachable"
                                                            : " (DISPLAY is not set)");
            if (!v->r.screenshot) {
                const char *base = a->path ? strrchr(a->path, '/') : NULL;
                base = base ? base + 1 : (a->path ? a->path : "random");
                const char *dot = strrchr(base, '.');
                snprintf(v->r.default_screenshot, sizeof v->r.default_screenshot,
                         "%.*s.filterview.png", dot ? (int)(dot - base) : (int)strlen(base), base);
                v->r.screenshot = v->r.default_screenshot;
                if (image_check_output_path(v->r.screenshot) != FV_OK) return fail(v, 1);
            }
        }
        if (egl_start(v) != FV_OK) return fail(v, 1);
    } else {
        int argc = 1;
        char *argv[] = {"filterview", NULL};
        if (glut_start(v, &argc, argv) != FV_OK) return fail(v, 1);
    }
    glewExperimental = GL_TRUE;
    GLenum glew = glewInit();
    /* under EGL, GLEW 2.2 reports GLEW_ERROR_NO_GLX_DISPLAY after loading the entry points */
    if (glew != GLEW_OK && !(a->headless && glew == GLEW_ERROR_NO_GLX_DISPLAY)) {
        fv_fail(FV_ERR_GL, "glewInit: %s", glewGetErrorString(glew));
        return fail(v, 1);
    }
    while (glGetError() != GL_NO_ERROR) {
    } /* glewInit's harmless GL_INVALID_ENUM on core contexts */
    printf("filterview: OpenGL %s (%s)%s\n", (const char *)glGetString(GL_VERSION),
           (const char *)glGetString(GL_RENDERER), a->headless ? ", headless" : "");
    user_panes_start(a); /* an error is said and shown; the pane shows the original */
    if (render_init(a) != FV_OK || pipeline_init(a) != FV_OK) {
        render_release(a); /* GL is up: what render_init made goes too */
        return fail(v, 1);
    }
    view_fit(a);
    a->allocations_seen = allocations_now(a); /* start-up's allocations are no frame's */
    a->input_changed = 0;
    if (a->headless)
        egl_run(v);
    else
        glut_run(v);
    if (a->fatal) {
        /* after a fault nothing may call into CUDA or GL again: releasing the buffers they share
         * waits on a context that will never answer (the message and the summary are out) */
        fflush(stdout);
        fflush(stderr);
        _exit(1);
    }
    pipeline_release(a);
    pipeline_watchdog_stop(a);
    user_panes_release(a);
    render_release(a);
    if (a->headless)
        egl_stop(v);
    else if (v->glut_window > 0 && glutGetWindow())
        glutDestroyWindow(v->glut_window);
    int code = v->r.failed || a->save_failed || a->fatal ? 1 : 0;
    free(v);
    return code;
}
