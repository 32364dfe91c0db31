/* ------------------------------------------------------------------------------------------------
 * viewer/window/view.c: the view: the window's size, the zoom and centre, where each pane lies in
 * the window and which image pixel a window point shows. Plain geometry on the app's state (the
 * headless target follows a resize), below everything else in window/: it calls none of them.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include <math.h>

void view_pane_rect(const app *a, int p, float rect[4])
{
    if (a->compare == FV_COMPARE_SIDE_BY_SIDE) {
        float half = floorf(a->win_w / 2.0f);
        rect[0] = p == 0 ? 0 : half;
        rect[2] = p == 0 ? half : a->win_w - half;
    } else {
        rect[0] = 0;
        rect[2] = (float)a->win_w;
    }
    rect[1] = 0;
    rect[3] = (float)a->win_h;
}

void view_resize(app *a, int w, int h)
{
    a->win_w = w;
    a->win_h = h;
    a->input_changed = 1;
    if (a->gl.fbo_color && w > 0 && h > 0) { /* headless: the offscreen target follows */
        a->allocations++;
        glBindTexture(GL_TEXTURE_2D, a->gl.fbo_color);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    if (a->fit) view_fit(a);
}

void view_fit(app *a)
{
    float rect[4];
    view_pane_rect(a, 0, rect);
    float zx = rect[2] / a->host_src.width, zy = rect[3] / a->host_src.height;
    a->zoom = zx < zy ? zx : zy;
    if (a->zoom <= 0) a->zoom = 1;
    a->center_x = a->host_src.width / 2.0f;
    a->center_y = a->host_src.height / 2.0f;
    a->fit = 1;
}

void view_image_rect(const app *a, const float vp[4], float out[4])
{
    out[0] = roundf(vp[0] + vp[2] / 2 - a->center_x * a->zoom);
    out[1] = roundf(vp[1] + vp[3] / 2 - a->center_y * a->zoom);
    out[2] = a->host_src.width * a->zoom;
    out[3] = a->host_src.height * a->zoom;
}

int view_window_to_image(const app *a, int wx, int wy, float *ix, float *iy)
{
    float vp[4], rect[4];
    int p = (a->compare == FV_COMPARE_SIDE_BY_SIDE && wx >= a->win_w / 2) ? 1 : 0;
    view_pane_rect(a, p, vp);
    view_image_rect(a, vp, rect);
    *ix = (wx - rect[0]) / a->zoom;
    *iy = (wy - rect[1]) / a->zoom;
    return p;
}
