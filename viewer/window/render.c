/* ------------------------------------------------------------------------------------------------
 * viewer/window/render.c: OpenGL 3.3 core drawing: the embedded shaders (shaders/, compiled with their
 * logs reported), one VAO for the image quad, one for the HUD, the panes' textures and the
 * original's (made by pipeline.c; with --interop buffer, the panes' pixel buffers sampled in place
 * as buffer textures), the four compare modes with the HUD over them (hud.c), the headless
 * framebuffer and screenshots (glReadPixels, written atomically as PNG). Above pipeline.c, hud.c
 * and view.c; below keys.c and window.c.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include "image_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char fv_shader_image_vert[], fv_shader_image_frag[];
extern const char fv_shader_hud_vert[], fv_shader_hud_frag[];

/* A GL info log as one message line: newlines become spaces. */
static void flatten_log(char *log)
{
    for (char *c = log; *c; c++)
        if (*c == '\n') *c = ' ';
}

static fv_status compile_shader(GLenum type, const char *source, const char *name, GLuint *out)
{
    GLuint s = glCreateShader(type);
    glShaderSource(s, 1, &source, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        flatten_log(log);
        glDeleteShader(s);
        return fv_fail(FV_ERR_GL, "shader %s: %s", name, log);
    }
    *out = s;
    return FV_OK;
}

static fv_status link_program(const char *vs_src, const char *vs_name, const char *fs_src,
                              const char *fs_name, GLuint *out)
{
    GLuint vs = 0, fs = 0;
    FV_TRY(compile_shader(GL_VERTEX_SHADER, vs_src, vs_name, &vs));
    fv_status st = compile_shader(GL_FRAGMENT_SHADER, fs_src, fs_name, &fs);
    if (st != FV_OK) {
        glDeleteShader(vs);
        return st;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        flatten_log(log);
        glDeleteProgram(prog);
        return fv_fail(FV_ERR_GL, "shader %s + %s: link failed: %s", vs_name, fs_name, log);
    }
    *out = prog;
    return FV_OK;
}

/* FV_SHADER_DIR=shaders/ reads the shaders from files instead of the embedded copies: edit and
 * restart without rebuilding (and how the tests feed a broken shader). */
static fv_status shader_source(const char *name, const char *embedded, char **owned,
                               const char **out)
{
    const char *dir = getenv("FV_SHADER_DIR");
    *owned = NULL;
    *out = embedded;
    if (!dir || !*dir) return FV_OK;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return fv_fail(FV_ERR_IO, "shader %s: cannot open %s", name, path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *owned = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    if (!*owned || (n > 0 && fread(*owned, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(*owned);
        *owned = NULL;
        return fv_fail(FV_ERR_IO, "shader %s: cannot read %s", name, path);
    }
    fclose(f);
    *out = *owned;
    return FV_OK;
}

static fv_status build_program(const char *vs_name, const char *vs_embedded, const char *fs_name,
                               const char *fs_embedded, GLuint *out)
{
    char *vs_owned = NULL, *fs_owned = NULL;
    const char *vs = NULL, *fs = NULL;
    fv_status st = shader_source(vs_name, vs_embedded, &vs_owned, &vs);
    if (st == FV_OK) st = shader_source(fs_name, fs_embedded, &fs_owned, &fs);
    if (st == FV_OK) st = link_program(vs, vs_name, fs, fs_name, out);
    free(vs_owned);
    free(fs_owned);
    return st;
}

fv_status render_init(app *a)
{
    renderer *r = &a->gl;
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &r->max_texture_size);
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &r->max_buffer_texels);
    FV_TRY(build_program("image.vert", fv_shader_image_vert, "image.frag", fv_shader_image_frag,
                         &r->image_program));
    FV_TRY(build_program("hud.vert", fv_shader_hud_vert, "hud.frag", fv_shader_hud_frag,
                         &r->hud_program));
    image_uniforms *u = &r->image;
#define LOOK_UP(name) u->name = glGetUniformLocation(r->image_program, #name)
    LOOK_UP(pane_a);
    LOOK_UP(pane_b);
    LOOK_UP(pane_a_buffer);
    LOOK_UP(pane_b_buffer);
    LOOK_UP(a_in_buffer);
    LOOK_UP(b_in_buffer);
    LOOK_UP(image_size);
    LOOK_UP(smooth_sampling);
    LOOK_UP(mode);
    LOOK_UP(divider_x);
    LOOK_UP(gain);
    LOOK_UP(image_rect);
    LOOK_UP(window_size);
    LOOK_UP(display_scale);
    LOOK_UP(display_bias);
    LOOK_UP(colormap);
#undef LOOK_UP
    r->hud_window_size = glGetUniformLocation(r->hud_program, "window_size");
    static const float corners[] = {0, 0, 1, 0, 0, 1, 1, 1};
    glGenVertexArrays(1, &r->quad_vao);
    glBindVertexArray(r->quad_vao);
    glGenBuffers(1, &r->quad_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->quad_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    r->hud = malloc(sizeof(hud_vertex) * HUD_MAX_VERTICES);
    r->text_quads = malloc(HUD_TEXT_BYTES);
    r->hud_model = calloc(1, sizeof *r->hud_model);
    r->hud_layout = calloc(1, sizeof *r->hud_layout);
    if (!r->hud || !r->text_quads || !r->hud_model || !r->hud_layout)
        return fv_fail(FV_ERR_MEMORY, "out of memory for the HUD");
    glGenVertexArrays(1, &r->hud_vao);
    glBindVertexArray(r->hud_vao);
    glGenBuffers(1, &r->hud_vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->hud_vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof(hud_vertex) * HUD_MAX_VERTICES, NULL, GL_STREAM_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(hud_vertex), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(hud_vertex),
                          (void *)offsetof(hud_vertex, rgba));
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    if (a->headless) {
        /* the offscreen frame within what this OpenGL draws: said by name, not as an incomplete
         * framebuffer */
        GLint viewport[2] = {0, 0}, renderbuffer = 0;
        glGetIntegerv(GL_MAX_VIEWPORT_DIMS, viewport);
        glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &renderbuffer);
        const int most_w = viewport[0] < renderbuffer ? viewport[0] : renderbuffer;
        const int most_h = viewport[1] < renderbuffer ? viewport[1] : renderbuffer;
        if (a->win_w > most_w || a->win_h > most_h || a->win_w > r->max_texture_size ||
            a->win_h > r->max_texture_size)
            return fv_fail(FV_ERR_SIZE,
                           "the offscreen window %dx%d is larger than this OpenGL "
                           "draws (%dx%d): give a smaller --window",
                           a->win_w, a->win_h,
                           most_w < r->max_texture_size ? most_w : r->max_texture_size,
                           most_h < r->max_texture_size ? most_h : r->max_texture_size);
        glGenTextures(1, &r->fbo_color);
        glBindTexture(GL_TEXTURE_2D, r->fbo_color);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, a->win_w, a->win_h, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                     NULL);
        glBindTexture(GL_TEXTURE_2D, 0);
        glGenFramebuffers(1, &r->fbo);
        glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
        glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, r->fbo_color,
                               0);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            return fv_fail(FV_ERR_GL, "the offscreen framebuffer is incomplete");
    }
    if (a->host_src.width > r->max_texture_size || a->host_src.height > r->max_texture_size)
        return fv_fail(FV_ERR_SIZE,
                       "image %dx%d is larger than this OpenGL's texture limit (%d): "
                       "use the batch mode (-o) for it",
                       a->host_src.width, a->host_src.height, r->max_texture_size);
    pipeline_resize_textures(a);
    return glGetError() == GL_NO_ERROR ? FV_OK : fv_fail(FV_ERR_GL, "OpenGL set-up failed");
}

void render_release(app *a)
{
    renderer *r = &a->gl;
    for (int p = 0; p < 2; p++)
        if (a->panes[p].texture) glDeleteTextures(1, &a->panes[p].texture);
    if (r->source_texture) glDeleteTextures(1, &r->source_texture);
    if (r->fbo) glDeleteFramebuffers(1, &r->fbo);
    if (r->fbo_color) glDeleteTextures(1, &r->fbo_color);
    glDeleteBuffers(1, &r->quad_vbo);
    glDeleteBuffers(1, &r->hud_vbo);
    glDeleteVertexArrays(1, &r->quad_vao);
    glDeleteVertexArrays(1, &r->hud_vao);
    glDeleteProgram(r->image_program);
    glDeleteProgram(r->hud_program);
    free(r->hud);
    free(r->text_quads);
    free(r->hud_model);
    free(r->hud_layout);
    memset(r, 0, sizeof *r);
}

/* What the shader samples for pane p: the original's texture, the pane's buffer texture
 * (--interop buffer: the very memory the kernel wrote), or the pane's 2D texture. */
static void pane_source(const app *a, int p, GLuint *texture_2d, GLuint *buffer_texture)
{
    const pane *pn = &a->panes[p];
    *texture_2d = *buffer_texture = 0;
    if (pn->variant == PANE_FILE_B) /* two files: the second, in B's texture since the load */
        *texture_2d = a->show_original ? a->gl.source_texture : pn->texture;
    else if (a->show_original || pn->variant == PANE_ORIGINAL || pn->refused)
        *texture_2d = a->gl.source_texture;
    else if (pn->buffer_texture)
        *buffer_texture = pn->buffer_texture;
    else
        *texture_2d = pn->texture;
}

/* Draws the image quad in viewport vp; `mode` as in image.frag; the shader's A and B are panes
 * pa and pb (side by side draws each pane alone as A). */
static void draw_image(const app *a, const float vp[4], int mode, int pa, int pb)
{
    const renderer *r = &a->gl;
    float rect[4];
    view_image_rect(a, vp, rect);
    const int smooth = a->zoom < 1.0f; /* pixels stay crisp when zoomed in */
    GLuint texture_2d[2], buffer_texture[2];
    pane_source(a, pa, &texture_2d[0], &buffer_texture[0]);
    pane_source(a, pb, &texture_2d[1], &buffer_texture[1]);
    for (int i = 0; i < 2; i++) {
        glActiveTexture(GL_TEXTURE0 + i); /* units 0, 1: sampler2D; 2, 3: samplerBuffer */
        glBindTexture(GL_TEXTURE_2D, texture_2d[i]);
        if (texture_2d[i])
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, smooth ? GL_LINEAR : GL_NEAREST);
        glActiveTexture(GL_TEXTURE2 + i);
        glBindTexture(GL_TEXTURE_BUFFER, buffer_texture[i]);
    }
    const image_uniforms *u = &r->image;
    glUseProgram(r->image_program);
    glUniform1i(u->pane_a, 0);
    glUniform1i(u->pane_b, 1);
    glUniform1i(u->pane_a_buffer, 2);
    glUniform1i(u->pane_b_buffer, 3);
    glUniform1i(u->a_in_buffer, buffer_texture[0] != 0);
    glUniform1i(u->b_in_buffer, buffer_texture[1] != 0);
    glUniform2i(u->image_size, a->host_src.width, a->host_src.height);
    glUniform1i(u->smooth_sampling, smooth);
    glUniform1i(u->mode, mode);
    glUniform1f(u->divider_x, a->divider * a->win_w);
    glUniform1f(u->gain, a->diff_gain);
    float scale, bias;
    display_scale_bias(&a->display, a->host_src.type, &scale, &bias);
    glUniform1f(u->display_scale, scale);
    glUniform1f(u->display_bias, bias);
    glUniform1i(u->colormap, (int)a->display.colormap);
    glUniform4fv(u->image_rect, 1, rect);
    glUniform2f(u->window_size, (float)a->win_w, (float)a->win_h);
    glBindVertexArray(r->quad_vao);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBindVertexArray(0);
    glActiveTexture(GL_TEXTURE0);
}

void render_frame(app *a)
{
    if (a->gl.fbo) glBindFramebuffer(GL_FRAMEBUFFER, a->gl.fbo);
    glViewport(0, 0, a->win_w, a->win_h);
    glClearColor(0.11f, 0.11f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (a->win_w <= 0 || a->win_h <= 0) return; /* minimised */
    float vp[4];
    switch (a->compare) {
    case FV_COMPARE_SINGLE:
        view_pane_rect(a, 0, vp);
        draw_image(a, vp, 0, 0, 0);
        break;
    case FV_COMPARE_WIPE:
        view_pane_rect(a, 0, vp);
        draw_image(a, vp, 1, 0, 1);
        break;
    case FV_COMPARE_SIDE_BY_SIDE:
        glEnable(GL_SCISSOR_TEST);
        for (int p = 0; p < 2; p++) {
            view_pane_rect(a, p, vp);
            glScissor((GLint)vp[0], 0, (GLsizei)vp[2], a->win_h);
            draw_image(a, vp, 0, p, p);
        }
        glDisable(GL_SCISSOR_TEST);
        break;
    case FV_COMPARE_DIFFERENCE:
    case FV_COMPARE_COUNT:
        view_pane_rect(a, 0, vp);
        draw_image(a, vp, 2, 0, 1);
        break;
    }
    hud_draw(a);
}

fv_status render_screenshot(app *a, const char *path)
{
    fv_image shot;
    if (a->win_w <= 0 || a->win_h <= 0)
        return fv_fail(FV_ERR_ARG,
                       "screenshot %s: the window is minimised (%dx%d), nothing to save", path,
                       a->win_w, a->win_h);
    FV_TRY(fv_host_image_alloc(&shot, a->win_w, a->win_h));
    /* no pixel of a drawn frame has alpha 0 (the clear colour's and the image's alpha are 1,
     * and the HUD's blending keeps at least 3/4 of it): a read with such pixels saw no whole
     * frame, so the frame is drawn and read once more, and else refused */
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt) {
            fprintf(stderr, "filterview: screenshot: the framebuffer read back incomplete; "
                            "drawn and read again\n");
            render_frame(a);
        }
        glFinish();
        if (a->gl.fbo)
            glBindFramebuffer(GL_READ_FRAMEBUFFER, a->gl.fbo);
        else
            glReadBuffer(GL_BACK);
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        glPixelStorei(GL_PACK_ALIGNMENT, 4);
        glReadPixels(0, 0, a->win_w, a->win_h, GL_RGBA, GL_UNSIGNED_BYTE, shot.data);
        size_t empty = 0;
        for (size_t i = 3; i < shot.pitch * (size_t)shot.height; i += 4) empty += shot.data[i] == 0;
        if (!empty) break;
        if (attempt) {
            fv_host_image_free(&shot);
            return fv_fail(FV_ERR_GL,
                           "screenshot %s: the framebuffer read back incomplete (%zu of %d "
                           "pixels empty; GL error 0x%04x)",
                           path, empty, a->win_w * a->win_h, glGetError());
        }
    }
    /* GL rows run bottom-up: flip in place */
    for (int y = 0; y < shot.height / 2; y++) {
        uint8_t *top = shot.data + (size_t)y * shot.pitch;
        uint8_t *bottom = shot.data + (size_t)(shot.height - 1 - y) * shot.pitch;
        for (size_t i = 0; i < shot.pitch; i++) {
            uint8_t t = top[i];
            top[i] = bottom[i];
            bottom[i] = t;
        }
    }
    fv_status st = glGetError() == GL_NO_ERROR ? image_save_png(path, &shot)
                                               : fv_fail(FV_ERR_GL, "glReadPixels failed");
    fv_host_image_free(&shot);
    return st;
}
