/* ------------------------------------------------------------------------------------------------
 * viewer/window/pipeline.c: the viewer's compute side. The source image is uploaded once; each time
 * something changed (or every frame when animating) both panes are run through the registry
 * (each pane's fv_runner, prepared when something changes: the viewer launches no kernel itself):
 *   interop  --interop buffer (the default): map both GL buffers (write-discard), run the
 *            variant from the device source straight into them, diff on the GPU, unmap; the
 *            shader samples the buffers as buffer textures, so nothing is copied at all.
 *            --interop texture: the same into a device buffer, then a device -> array copy into
 *            the registered 2D texture. --interop pbo (the classic way): kernels write the
 *            pixel buffers, GL copies them into the textures.
 *   staging  registration was refused (Mesa, WSL2, hybrid laptops), or --interop staging: the
 *            same into plain device buffers, then device -> host -> the GL buffers (2D textures
 *            with --interop texture or pbo). Said in the HUD.
 *   cpu      no CUDA device: the `cpu` variants (references) only. Said in the HUD.
 * A pane's own kernel (user=FILE) runs in the kernel host (modes/kernel_host.c), a process of its
 * own, into the pane's device buffer; the finished result is copied into GL's. A fault or a
 * kernel past the time limit ends that process and turns the pane's kernel off until its file
 * is saved again. Without a kernel host (no CUDA IPC, FILTERVIEW_KERNEL_HOST=0) user kernels run
 * here, watched by a thread that ends the program past the time limit, and a fault ends it.
 * The diff statistics and the kernel times come back asynchronously (pipeline_collect), so the
 * frame loop never waits for the GPU. Nothing is allocated and no plan is made per frame;
 * buffers change only when the image does. It also makes the GL storage the panes are written
 * into (textures and pixel buffers). The floor of window/ with view.c: it calls no other file
 * of window/ but view.c, and only modes/ and kernels/ below.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include "bench.h"
#include "device.h"
#include "image_io.h"
#include "run.h"
#include "timing.h"

#ifdef FV_HAVE_CUDA
#include <cuda_gl_interop.h>
#endif
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHART_RUNS 5

static void watchdog_begin(app *a, int panes, int runs, const char *what);
static void watchdog_gpu(app *a, int p);
static void watchdog_end(app *a);
#define CHART_CPU_MAX_PIXELS (4 << 20)

const fv_filter *pane_filter(const app *a, int p)
{
    return fv_filters[a->panes[a->linked ? 0 : p].filter];
}

fv_params *pane_params(app *a, int p)
{
    const int owner = a->linked ? 0 : p;
    return &a->params[owner][a->panes[owner].filter];
}

const fv_filter *edit_filter(const app *a)
{
    return pane_filter(a, a->edit_pane);
}

int pane_has_user(const app *a, int p)
{
    const pane *pn = &a->panes[p];
    return pn->user_file && pn->user_filter == pane_filter(a, p);
}

const char *pane_user_name(const app *a, int p)
{
    const char *file = a->panes[p].user_file;
    if (!file) return "";
    const char *slash = strrchr(file, '/');
    return slash ? slash + 1 : file;
}

const fv_variant *pane_variant(const app *a, int p)
{
    const pane *pn = &a->panes[p];
    if (pn->variant == PANE_USER) return pn->user ? fv_user_variant_get(pn->user) : NULL;
    return pn->variant < 0 ? NULL : &pane_filter(a, p)->variants[pn->variant];
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

const char *pane_name(const app *a, int p)
{
    const fv_variant *v = pane_variant(a, p);
    if (a->path_b) return base_name(p ? a->path_b : a->path); /* two files: each pane's file */
    return v ? v->name : "original";
}

void pane_label(const app *a, int p, char *buf, size_t size)
{
    const pane *pn = &a->panes[p];
    if (pn->asked == PANE_USER && pn->variant == PANE_ORIGINAL) /* its error says why */
        snprintf(buf, size, "original (%s is off)", pane_user_name(a, p));
    else if (pn->variant == PANE_ORIGINAL && fv_noise_is_on(&a->noise))
        snprintf(buf, size, "%s + noise", pane_name(a, p));
    else if (pane_filter(a, 0) == pane_filter(a, 1) || !PANE_COMPUTES(pn))
        snprintf(buf, size, "%s", pane_name(a, p));
    else
        snprintf(buf, size, "%s:%s", pane_filter(a, p)->name, pane_name(a, p));
}

/* Why GPU variants cannot run here, in one line: the one place that asks, right after
 * fv_device_check failed (its message, until the device layer says it more plainly). */
/* Why there is no GPU, in plain words (no driver, no device nodes, ...): the one place the viewer
 * asks, for its HUD line and its log. */
static void no_gpu_reason(char *buf, size_t size)
{
    const char *why = fv_device_unavailable_reason();
    snprintf(buf, size, "%s", why ? why : fv_last_error());
}

void pipeline_settle_variants(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        const fv_filter *f = pane_filter(a, p);
        if (a->path_b) { /* two files compared: A shows the first, B the second, nothing runs */
            pn->asked = pn->variant = p ? PANE_FILE_B : PANE_ORIGINAL;
            pn->replaced[0] = 0;
            continue;
        }
        if (pn->asked >= f->n_variants || (pn->asked == PANE_USER && !pane_has_user(a, p)))
            pn->asked = PANE_ORIGINAL;
        char was[sizeof pn->replaced];
        memcpy(was, pn->replaced, sizeof was);
        pn->variant = pn->asked;
        pn->replaced[0] = 0;
        if (pn->asked == PANE_USER && a->compute != FV_COMPUTE_CPU) {
            /* no good build yet, or turned off after a fault: the original, and the error */
            if (!pn->user || pn->user_off) pn->variant = PANE_ORIGINAL;
            continue;
        }
        if (pane_variant_available(a, p, pn->asked)) continue;
        /* like for like: the same filter's reference, never the original */
        const fv_variant *ref = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
        pn->variant = ref ? fv_variant_index(f, ref) : PANE_ORIGINAL;
        snprintf(pn->replaced, sizeof pn->replaced,
                 "no NVIDIA GPU: %c %s -> %s (GPU variants need an NVIDIA GPU and driver)", 'A' + p,
                 pn->asked == PANE_USER ? pane_user_name(a, p) : f->variants[pn->asked].name,
                 pane_name(a, p));
        if (strcmp(was, pn->replaced)) fprintf(stderr, "filterview: %s\n", pn->replaced);
    }
}

int pane_variant_available(const app *a, int p, int variant)
{
    if (variant == PANE_ORIGINAL) return 1;
    if (variant == PANE_USER) return a->compute != FV_COMPUTE_CPU; /* a GPU kernel */
    return a->compute != FV_COMPUTE_CPU ||
           fv_variant_is_host(&pane_filter(a, p)->variants[variant]);
}

void describe_pane_params(app *a, int p, char *buf, size_t size)
{
    describe_params(pane_filter(a, p), pane_params(a, p), buf, size);
}

double pane_gbps(const app *a, int p)
{
    const pane *pn = &a->panes[p];
    if (pn->variant == PANE_ORIGINAL || pn->kernel_ms <= 0) return 0;
    const fv_params *params = pane_params((app *)a, p);
    return pane_filter(a, p)->traffic_bytes(params, a->host_src.width, a->host_src.height) *
           params->iterations / (pn->kernel_ms * 1e6);
}

/* dst = src, row by row (same size and type; pitches may differ) */
static void copy_host_image(fv_image *dst, const fv_image *src)
{
    for (int y = 0; y < src->height; y++)
        memcpy(dst->data + (size_t)y * dst->pitch, src->data + (size_t)y * src->pitch,
               (size_t)src->width * fv_image_pixel_bytes(src));
}

/* The noise is drawn on 8-bit pixels: on another type it is refused, with the reason; two
 * files are compared as they are. */
static fv_status noise_fits(const app *a, const fv_noise *noise)
{
    if (!fv_noise_is_on(noise)) return FV_OK;
    if (a->path_b)
        return fv_fail(FV_ERR_UNSUPPORTED,
                       "noise on the source is for one image and its filters, not two files");
    if (a->type == FV_PIXEL_U8) return FV_OK;
    return fv_fail(FV_ERR_UNSUPPORTED,
                   "noise on the source is drawn on 8-bit images; this one is %s",
                   fv_pixel_type_name(a->type));
}

/* host_src = host_clean with the noise drawn on the host (a copy where the noise is off) */
static fv_status source_on_host(app *a)
{
    copy_host_image(&a->host_src, &a->host_clean);
    FV_TRY(noise_fits(a, &a->noise));
    return fv_noise_apply_host(&a->host_src, &a->noise);
}

/* `path` with its own type, at `type` (the first file's: -1 for its own) and 4 channels (gray
 * packed as g, g, g, opaque), its own channel count in *channels and what was lost in note. */
static fv_status load_typed(const char *path, int type, fv_image *out, int *channels, char *note,
                            size_t note_size)
{
    fv_image native = {0};
    image_load_info info = {0};
    FV_TRY(image_load_native(path, NULL, &native, &info));
    image_metadata_free(&info.metadata);
    *channels = fv_image_channels(&native);
    image_convert_loss loss = {0};
    const fv_pixel_type to = type < 0 ? native.type : (fv_pixel_type)type;
    const fv_status st = image_convert(&native, to, 4, NULL, out, &loss);
    if (st == FV_OK && loss.depth && note_size)
        snprintf(note, note_size, "'%s' (%s) shown as %s: values rounded", base_name(path),
                 fv_pixel_type_name(native.type), fv_pixel_type_name(to));
    fv_host_image_free(&native);
    return st;
}

/* Two files: the second at the first's size, both at the wider of their types. */
static fv_status load_second(app *a, fv_image *first)
{
    fv_image b = {0};
    int channels = 0;
    FV_TRY(load_typed(a->path_b, -1, &b, &channels, NULL, 0));
    if (b.width != first->width || b.height != first->height) {
        fv_fail(FV_ERR_SIZE,
                "'%s' is %dx%d and '%s' is %dx%d: two files are compared at the same size",
                base_name(a->path), first->width, first->height, base_name(a->path_b), b.width,
                b.height);
        fv_host_image_free(&b);
        return FV_ERR_SIZE;
    }
    /* uint8 < uint16 < float32: the narrower one is widened, exactly (image_convert) */
    fv_image *narrow = b.type < first->type ? &b : (first->type < b.type ? first : NULL);
    const fv_pixel_type wide = b.type > first->type ? b.type : first->type;
    if (narrow) {
        fv_image widened = {0};
        const fv_status st = image_convert(narrow, wide, 4, NULL, &widened, NULL);
        if (st != FV_OK) {
            fv_host_image_free(&b);
            return st;
        }
        fv_host_image_free(narrow);
        *narrow = widened;
    }
    fv_host_image_free(&a->host_b);
    a->host_b = b;
    a->file_b_channels = channels;
    return display_psnr(first, &a->host_b, &a->mse, &a->psnr);
}

fv_status app_load_image(app *a)
{
    fv_image img = {0};
    a->load_note[0] = 0;
    if (a->path) {
        FV_TRY(load_typed(a->path, -1, &img, &a->file_channels, a->load_note, sizeof a->load_note));
    } else {
        FV_TRY(fv_host_image_alloc(&img, a->random_w, a->random_h));
        fv_image_fill_random(&img, a->seed);
        a->file_channels = 4;
    }
    if (a->path_b) {
        const fv_status st = load_second(a, &img);
        if (st != FV_OK) {
            fv_host_image_free(&img);
            return st;
        }
    }
    if (a->gl.max_texture_size > 0 &&
        (img.width > a->gl.max_texture_size || img.height > a->gl.max_texture_size)) {
        int max = a->gl.max_texture_size;
        fv_host_image_free(&img);
        return fv_fail(FV_ERR_SIZE,
                       "image %dx%d is larger than this OpenGL's texture limit "
                       "(%dx%d): use the batch mode (-o) for it",
                       img.width, img.height, max, max);
    }
    const int type_changed = a->host_src.data && a->host_src.type != img.type;
    fv_host_image_free(&a->host_clean);
    a->host_clean = img;
    a->allocations++;
    a->type = img.type;
    /* every pane runs the image's type: the registry refuses a variant that does not, at
     * prepare, with its reason (shown in the HUD) */
    for (int q = 0; q < 2; q++)
        for (int f = 0; f < fv_n_filters; f++) a->params[q][f].type = img.type;
    const fv_image *ranged[2] = {&a->host_clean, &a->host_b};
    FV_TRY(display_auto_range(ranged, a->path_b ? 2 : 1, &a->display.lo, &a->display.hi));
    /* what the panes see: a copy with the noise (on the host here: the device buffers follow) */
    if (a->host_src.width != img.width || a->host_src.height != img.height || type_changed) {
        fv_host_image_free(&a->host_src);
        FV_TRY(fv_host_image_alloc_as(&a->host_src, img.width, img.height, img.type, 4));
    }
    return source_on_host(a);
}

/* The GL texture format of a type: uint8 and uint16 normalised (the shader reads 0..1), float32
 * as it is. */
static void gl_formats(fv_pixel_type type, GLenum *internal, GLenum *data)
{
    *internal = type == FV_PIXEL_U16 ? GL_RGBA16 : (type == FV_PIXEL_F32 ? GL_RGBA32F : GL_RGBA8);
    *data = type == FV_PIXEL_U16 ? GL_UNSIGNED_SHORT
                                 : (type == FV_PIXEL_F32 ? GL_FLOAT : GL_UNSIGNED_BYTE);
}

static void make_texture(GLuint *tex, fv_pixel_type type, int w, int h, const void *pixels)
{
    GLenum internal, data;
    gl_formats(type, &internal, &data);
    if (!*tex) glGenTextures(1, tex);
    glBindTexture(GL_TEXTURE_2D, *tex);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, w, h, 0, GL_RGBA, data, pixels);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
}

void pipeline_resize_textures(app *a)
{
    const fv_image *src = &a->host_src;
    a->allocations++; /* new storage for all three */
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, (GLint)(src->pitch / fv_image_pixel_bytes(src)));
    make_texture(&a->gl.source_texture, src->type, src->width, src->height, src->data);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    for (int p = 0; p < 2; p++)
        make_texture(&a->panes[p].texture, src->type, src->width, src->height, NULL);
    if (!a->path_b) return;
    const fv_image *b = &a->host_b; /* two files: pane B's texture holds the second, once */
    glPixelStorei(GL_UNPACK_ROW_LENGTH, (GLint)(b->pitch / fv_image_pixel_bytes(b)));
    make_texture(&a->panes[1].texture, b->type, b->width, b->height, b->data);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
}

/* New noise on the source: the clean image goes up once and the noise is drawn on the GPU, then
 * the noisy source comes back for what the host shows (the original pane, cpu panes, the pixel
 * probe); without a GPU it is drawn on the host. Never per frame. */
fv_status pipeline_set_noise(app *a, const fv_noise *noise)
{
    fv_noise_q check;
    FV_TRY(fv_noise_prepare(noise, &check));
    FV_TRY(noise_fits(a, noise));
    a->noise = *noise;
    if (!a->host_src.data) return FV_OK;
    if (a->compute == FV_COMPUTE_CPU || !a->device_src.data) {
        FV_TRY(source_on_host(a));
    } else { /* in place, the noise kernel launches only where the noise is on */
        FV_TRY(fv_image_upload(&a->device_src, &a->host_clean));
        FV_TRY(fv_noise_apply(&a->device_src, &a->device_src, noise, 0));
        FV_TRY(fv_image_download(&a->host_src, &a->device_src));
    }
    pipeline_resize_textures(a); /* re-uploads the original */
    FV_TRY(pipeline_prepare(a));
    a->dirty = 1;
    return FV_OK;
}

static void unregister_panes(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (pn->resource) cudaGraphicsUnregisterResource(pn->resource);
        if (pn->texture_resource) cudaGraphicsUnregisterResource(pn->texture_resource);
        pn->resource = pn->texture_resource = NULL;
    }
}

static void release_buffers(app *a)
{
    kernel_host_release_all(a->kernel_host); /* it lets go of the buffers first */
    a->panes[0].hosted = a->panes[1].hosted = 0;
    unregister_panes(a);
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (pn->buffer_texture) glDeleteTextures(1, &pn->buffer_texture);
        pn->buffer_texture = 0;
        if (pn->pbo) glDeleteBuffers(1, &pn->pbo);
        pn->pbo = 0;
        fv_device_image_free(&pn->device_out);
        fv_host_image_free(&pn->host_out);
        fv_runner_release(&pn->runner);
    }
    fv_device_image_free(&a->device_src);
    fv_device_image_free(&a->device_b);
    if (a->diff_work) cudaFree(a->diff_work);
    a->diff_work = NULL;
    if (a->diff_host_totals) cudaFreeHost(a->diff_host_totals);
    a->diff_host_totals = NULL;
    a->results_pending = 0;
}

static const char *interop_note(fv_interop_path how)
{
    return how == FV_INTEROP_BUFFER
               ? "CUDA-GL interop: kernels write the GL buffers the shader samples"
           : how == FV_INTEROP_TEXTURE ? "CUDA-GL interop: device copy into the textures"
                                       : "CUDA-GL interop: kernels write the pixel buffers";
}

/* Registers both panes' GL objects with CUDA; on refusal unregisters what was done and returns
 * the CUDA error. */
static cudaError_t register_panes(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        cudaError_t err =
            a->interop == FV_INTEROP_TEXTURE
                ? cudaGraphicsGLRegisterImage(&pn->texture_resource, pn->texture, GL_TEXTURE_2D,
                                              cudaGraphicsRegisterFlagsWriteDiscard)
                : cudaGraphicsGLRegisterBuffer(&pn->resource, pn->pbo,
                                               cudaGraphicsMapFlagsWriteDiscard);
        if (err == cudaSuccess) continue;
        cudaGetLastError();
        unregister_panes(a);
        return err;
    }
    return cudaSuccess;
}

/* Buffers for the current image size; decides between interop and staging on first use. */
static fv_status alloc_buffers(app *a)
{
    const int w = a->host_src.width, h = a->host_src.height;
    const fv_pixel_type type = a->host_src.type;
    const size_t bytes = (size_t)w * fv_image_pixel_bytes(&a->host_src) * (size_t)h;
    GLenum internal, data;
    gl_formats(type, &internal, &data);
    if (a->interop == FV_INTEROP_BUFFER && (double)w * h > (double)a->gl.max_buffer_texels) {
        fprintf(stderr,
                "filterview: %dx%d is more than this OpenGL's buffer texture limit (%d texels): "
                "device copy into textures instead\n",
                w, h, a->gl.max_buffer_texels);
        a->interop = FV_INTEROP_TEXTURE;
        if (a->compute == FV_COMPUTE_INTEROP)
            snprintf(a->compute_note, sizeof a->compute_note, "%s", interop_note(a->interop));
    }
    a->allocations++;
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        FV_TRY(fv_host_image_alloc_as(&pn->host_out, w, h, type, 4));
        glGenBuffers(1, &pn->pbo);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pn->pbo);
        /* buffer path: written by CUDA, read by the shader, never by the host */
        glBufferData(GL_PIXEL_UNPACK_BUFFER, (GLsizeiptr)bytes, NULL,
                     a->interop == FV_INTEROP_BUFFER ? GL_DYNAMIC_COPY : GL_STREAM_DRAW);
        glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        if (a->interop != FV_INTEROP_BUFFER) continue;
        glGenTextures(1, &pn->buffer_texture); /* the shader reads the pixel buffer in place */
        glBindTexture(GL_TEXTURE_BUFFER, pn->buffer_texture);
        glTexBuffer(GL_TEXTURE_BUFFER, internal, pn->pbo);
        glBindTexture(GL_TEXTURE_BUFFER, 0);
    }
    if (glGetError() != GL_NO_ERROR)
        return fv_fail(FV_ERR_GL, "cannot make the panes' pixel buffers");
    if (a->compute == FV_COMPUTE_CPU) return FV_OK;
    char what[64];
    snprintf(what, sizeof what, "a %dx%d image in the viewer", w, h);
    FV_TRY(fv_device_check_fits(bytes * (a->path_b ? 6 : 5), what));
    FV_TRY(fv_device_image_alloc_as(&a->device_src, w, h, type, 4));
    FV_TRY(fv_image_upload(&a->device_src, &a->host_src));
    if (a->path_b) { /* two files: the second goes up once, for the GPU's diff */
        FV_TRY(fv_device_image_alloc_as(&a->device_b, w, h, type, 4));
        FV_TRY(fv_image_upload(&a->device_b, &a->host_b));
    }
    if (cudaMalloc(&a->diff_work, fv_diff_work_bytes()) != cudaSuccess ||
        cudaMallocHost(&a->diff_host_totals, fv_diff_work_bytes()) != cudaSuccess)
        return fv_fail(FV_ERR_MEMORY, "cannot allocate the diff buffers");
    for (int p = 0; p < 2; p++) /* staging target, chart runs, the texture path's kernel output */
        FV_TRY(fv_device_image_alloc_as(&a->panes[p].device_out, w, h, type, 4));
    if (a->compute != FV_COMPUTE_INTEROP) return FV_OK;
    if (a->force_staging) {
        a->compute = FV_COMPUTE_STAGING;
        snprintf(a->compute_note, sizeof a->compute_note,
                 "no interop (--interop staging): staging copy");
        return FV_OK;
    }
    cudaError_t err = register_panes(a);
    if (err != cudaSuccess) {
        a->compute = FV_COMPUTE_STAGING;
        snprintf(a->compute_note, sizeof a->compute_note,
                 "interop unavailable: staging copy (error %d)", (int)err);
        fprintf(
            stderr,
            "filterview: interop unavailable (%s: error %d, %s): staging copy through the host\n",
            a->interop == FV_INTEROP_TEXTURE ? "cudaGraphicsGLRegisterImage"
                                             : "cudaGraphicsGLRegisterBuffer",
            (int)err, cudaGetErrorString(err));
    }
    return FV_OK;
}

/* The CUDA side beyond the device check: the panes' events, buffers and runners. */
static fv_status cuda_side_init(app *a)
{
    for (int p = 0; p < 2; p++) /* made once: the frame loop only records them */
        if (a->compute != FV_COMPUTE_CPU) FV_TRY(fv_timer_create(&a->panes[p].timer));
    if (a->compute != FV_COMPUTE_CPU &&
        cudaEventCreateWithFlags(&a->results_ready, cudaEventDisableTiming) != cudaSuccess)
        return fv_fail(FV_ERR_CUDA, "cannot create CUDA events: %s",
                       cudaGetErrorString(cudaGetLastError()));
    /* user kernels run in a process of their own (kernel_host.h), unless asked not to */
    if (a->compute != FV_COMPUTE_CPU && (a->panes[0].user_file || a->panes[1].user_file) &&
        !a->kernels_in_process)
        a->kernel_host = kernel_host_create(); /* NULL (no memory): they run in this one */
    pipeline_settle_variants(a);
    fv_status st = alloc_buffers(a);
    if (st == FV_OK) st = pipeline_prepare(a);
    a->dirty = 1;
    return st;
}

static void cuda_side_release(app *a)
{
    kernel_host_destroy(a->kernel_host); /* before the buffers it has opened go */
    a->kernel_host = NULL;
    release_buffers(a);
    for (int p = 0; p < 2; p++) fv_timer_destroy(&a->panes[p].timer);
    if (a->results_ready) cudaEventDestroy(a->results_ready);
    a->results_ready = NULL;
}

fv_status pipeline_init(app *a)
{
    a->compute = FV_COMPUTE_INTEROP;
    snprintf(a->compute_note, sizeof a->compute_note, "%s", interop_note(a->interop));
    a->no_gpu_reason[0] = 0;
    if (fv_device_check() != FV_OK) {
        a->compute = FV_COMPUTE_CPU;
        no_gpu_reason(a->no_gpu_reason, sizeof a->no_gpu_reason);
        snprintf(a->compute_note, sizeof a->compute_note,
                 "no NVIDIA GPU: the CPU references run (%s)", a->no_gpu_reason);
        fprintf(stderr, "filterview: %s: the viewer runs the CPU references\n", a->no_gpu_reason);
    }
    if (a->compute != FV_COMPUTE_CPU) {
        size_t bytes = (size_t)a->host_src.width * 4 * a->host_src.height;
        if (bytes < ((size_t)64 << 20)) bytes = (size_t)64 << 20;
        if (bench_copy_bandwidth(bytes, 10, &a->copy_gbps) != FV_OK) a->copy_gbps = 0;
    }
    return cuda_side_init(a);
}

void pipeline_release(app *a)
{
    /* a user kernel may still run: the release waits for it, under the time limit */
    const int running = a->results_pending ? a->user_ran : 0;
    watchdog_end(a);
    watchdog_begin(a, running, 1, "");
    cuda_side_release(a);
    watchdog_end(a);
    fv_host_image_free(&a->host_src);
    fv_host_image_free(&a->host_clean);
    fv_host_image_free(&a->host_b);
}

/* ---- user kernels in this process (no kernel host): the time limit, faults ---- */
#define WATCHDOG_POLL_MS 50
/* host mode counts host work too (loading the module, the chart's other variants): allowed on
 * top of the limit, so that only a kernel that really runs on is stopped */
#define HOST_MODE_SLACK_MS 10000

struct kernel_watchdog {
    pthread_t thread;
    pthread_mutex_t lock; /* guards what follows */
    pthread_cond_t wake;
    /* host mode (a user kernel's FV_LAUNCH, the chart's timed runs, the wait at exit): the
     * limit counts from watchdog_begin to watchdog_end */
    double since_ms; /* when the watch began; 0: nothing watched this way */
    /* GPU mode (frames): the limit counts from the moment the GPU reaches gpu_start until it
     * passes gpu_stop, so that nothing on the host (a compile, GL, a CPU pane, the loading of
     * the module) is taken for the kernel's time */
    cudaEvent_t gpu_start, gpu_stop; /* NULL: nothing watched this way */
    double gpu_since_ms;             /* when gpu_start was seen done; 0: not yet */
    double allowed_ms;
    char what[240]; /* "A my_blur.cu" */
    int stop;
};

/* The watch runs on its own thread because the frame loop itself is what waits: the wait for
 * the user kernels before the map, or an event synchronisation, does not return while one runs.
 * Such a kernel cannot be stopped from the host short of ending the context, and with it the
 * process: the message is said and the process ends (_exit: the CUDA runtime's own exit
 * handlers would wait for the kernel). Nothing is half-written: every file the viewer writes
 * is written to a temporary name and renamed. */
static void watchdog_fire(const kernel_watchdog *w)
{
    fflush(stdout);
    cli_error("%s has run for more than %g s, the time limit (%s): a running kernel "
              "cannot be stopped without ending the program, which exits now; look for "
              "a loop that never ends",
              w->what, w->allowed_ms / 1000, KERNEL_TIMEOUT_ENV);
    fflush(stderr);
    _exit(1);
}

static void *watchdog_main(void *arg)
{
    kernel_watchdog *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        const double now = fv_now_ms();
        if (w->since_ms > 0 && now - w->since_ms > w->allowed_ms + HOST_MODE_SLACK_MS)
            watchdog_fire(w);
        if (w->gpu_stop) {
            /* an error (a fault) ends the watch too: it is the frame loop's to report */
            if (!w->gpu_since_ms && cudaEventQuery(w->gpu_start) != cudaErrorNotReady)
                w->gpu_since_ms = now;
            if (w->gpu_since_ms && cudaEventQuery(w->gpu_stop) != cudaErrorNotReady) {
                w->gpu_start = w->gpu_stop = NULL;
                w->gpu_since_ms = 0;
            } else if (w->gpu_since_ms && now - w->gpu_since_ms > w->allowed_ms) {
                watchdog_fire(w);
            }
            (void)cudaGetLastError();
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += WATCHDOG_POLL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->wake, &w->lock, &until);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

static double kernel_timeout_from_env(void)
{
    const char *text = getenv(KERNEL_TIMEOUT_ENV);
    if (!text || !*text) return KERNEL_TIMEOUT_DEFAULT_S;
    char *end = NULL;
    const double s = strtod(text, &end);
    return end && *end == 0 && isfinite(s) && s > 0 && s <= 86400 ? s : -1;
}

fv_status pipeline_watchdog_start(app *a)
{
    a->kernel_timeout_s = kernel_timeout_from_env();
    if (a->kernel_timeout_s < 0)
        return fv_fail(FV_ERR_ARG, "%s: seconds, more than 0 and at most 86400, not '%s'",
                       KERNEL_TIMEOUT_ENV, getenv(KERNEL_TIMEOUT_ENV));
    const char *host = getenv(KERNEL_HOST_ENV);
    if (host && *host && strcmp(host, "0") && strcmp(host, "1"))
        return fv_fail(FV_ERR_ARG,
                       "%s: 1 (user kernels in a process of their own, the default) or 0 (in "
                       "the viewer's), not '%s'",
                       KERNEL_HOST_ENV, host);
    a->kernels_in_process = host && !strcmp(host, "0");
    const int check = kernel_check_wanted();
    if (check < 0) return FV_ERR_ARG;
    a->memcheck_off = !check;
    if (a->watchdog || (!a->panes[0].user_file && !a->panes[1].user_file)) return FV_OK;
    kernel_watchdog *w = calloc(1, sizeof *w);
    if (!w) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    if (pthread_create(&w->thread, NULL, watchdog_main, w) != 0) {
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return fv_fail(FV_ERR_MEMORY, "cannot start the kernels' time-limit thread");
    }
    a->watchdog = w;
    return FV_OK;
}

void pipeline_watchdog_stop(app *a)
{
    kernel_watchdog *w = a->watchdog;
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    free(w);
    a->watchdog = NULL;
}

/* "A my_blur.cu and B other.cu" for the panes of mask `panes` */
static void user_panes_text(const app *a, int panes, char *buf, size_t size)
{
    int len = 0;
    buf[0] = 0;
    for (int p = 0; p < 2 && len < (int)size; p++)
        if (panes & (1 << p))
            len += snprintf(buf + len, size - (size_t)len, "%s%c %s", len ? " and " : "", 'A' + p,
                            pane_user_name(a, p));
}

/* Host mode: watches the work with the user kernels of `panes` until watchdog_end; `runs`
 * limits' worth of time (a timing section runs the kernel several times). */
static void watchdog_begin(app *a, int panes, int runs, const char *what)
{
    kernel_watchdog *w = a->watchdog;
    if (!w || !panes) return;
    pthread_mutex_lock(&w->lock);
    user_panes_text(a, panes, w->what, sizeof w->what);
    const size_t len = strlen(w->what);
    snprintf(w->what + len, sizeof w->what - len, "%s", what);
    w->gpu_start = w->gpu_stop = NULL;
    w->allowed_ms = a->kernel_timeout_s * 1000 * runs;
    w->since_ms = fv_now_ms();
    pthread_mutex_unlock(&w->lock);
}

/* GPU mode: pane p's user kernel was just enqueued between its timer's events. A frame with
 * two user panes watches from A's start to B's stop, with two limits' worth of time. */
static void watchdog_gpu(app *a, int p)
{
    kernel_watchdog *w = a->watchdog;
    if (!w) return;
    const pane *pn = &a->panes[p];
    pthread_mutex_lock(&w->lock);
    const int extend = w->gpu_stop != NULL && p == 1;
    user_panes_text(a, extend ? 3 : 1 << p, w->what, sizeof w->what);
    w->since_ms = 0;
    if (!extend) {
        w->gpu_start = pn->timer.start;
        w->gpu_since_ms = 0;
    }
    w->gpu_stop = pn->timer.stop;
    w->allowed_ms = a->kernel_timeout_s * 1000 * (extend ? 2 : 1);
    pthread_mutex_unlock(&w->lock);
}

static void watchdog_end(app *a)
{
    kernel_watchdog *w = a->watchdog;
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->since_ms = 0;
    w->gpu_start = w->gpu_stop = NULL;
    w->gpu_since_ms = 0;
    pthread_mutex_unlock(&w->lock);
}

void pipeline_note_fault(app *a, int panes, cudaError_t err)
{
    watchdog_end(a);
    if (!a->fault_panes) a->fault_error = err;
    a->fault_panes |= panes;
    a->results_pending = 0;
    a->diff_valid = 0;
}

/* Turns off the user kernel of pane p, which could not run: said on screen and stderr; a pane
 * showing it shows the original from now on, until the file is saved again. */
static void user_kernel_off(app *a, int p, const char *why)
{
    pane *pn = &a->panes[p];
    pn->user_off = 1;
    pn->hosted = 0;
    snprintf(pn->user_error, sizeof pn->user_error,
             "%c %s is off: %s (shown: the original, until you save the file again)", 'A' + p,
             pane_user_name(a, p), why);
    cli_error("%s", pn->user_error);
    if (pn->variant != PANE_USER) return;
    pn->variant = PANE_ORIGINAL;
    pn->kernel_ms = 0;
    a->dirty = 1;
}

fv_status pipeline_fault_said(app *a)
{
    if (!a->fault_panes) return FV_OK;
    const cudaError_t err = a->fault_error;
    char who[240];
    user_panes_text(a, a->fault_panes, who, sizeof who);
    watchdog_end(a);
    /* CUDA's rule for these errors (cudaErrorIllegalAddress and its kind): the process must end
     * and start again; cudaDeviceReset does not give this process a usable GPU back (measured:
     * every call after it fails with cudaErrorDevicesUnavailable) */
    return fv_fail(FV_ERR_CUDA,
                   "%s faulted: %s (%s); CUDA cannot go on in a program after a fault, so "
                   "filterview exits (your file is unchanged); compute-sanitizer filterview ... "
                   "names the line",
                   who, cudaGetErrorString(err), cudaGetErrorName(err));
}

/* Reload: the same path again; buffers and textures follow a size change. */
fv_status pipeline_reload(app *a)
{
    int w = a->host_src.width, h = a->host_src.height;
    const fv_pixel_type type = a->host_src.type;
    FV_TRY(app_load_image(a));
    if (a->host_src.width != w || a->host_src.height != h || a->host_src.type != type ||
        a->interop == FV_INTEROP_TEXTURE || a->path_b) {
        /* new texture storage invalidates registrations: unregister, re-create, register */
        release_buffers(a);
        pipeline_resize_textures(a);
        if (a->compute == FV_COMPUTE_STAGING) a->compute = FV_COMPUTE_INTEROP; /* try again */
        FV_TRY(alloc_buffers(a));
        view_fit(a);
    } else {
        pipeline_resize_textures(a); /* re-uploads the original */
        if (a->compute != FV_COMPUTE_CPU) FV_TRY(fv_image_upload(&a->device_src, &a->host_src));
    }
    FV_TRY(pipeline_prepare(a));
    a->dirty = 1;
    return FV_OK;
}

static fv_image packed_view(void *ptr, int w, int h, fv_pixel_type type)
{
    fv_image v = {.data = (uint8_t *)ptr,
                  .width = w,
                  .height = h,
                  .pitch = (size_t)w * 4 * fv_pixel_type_bytes(type),
                  .memory = FV_MEMORY_DEVICE,
                  .type = type,
                  .channels = 4};
    return v;
}

/* Pane p's user kernel could not go on in the kernel host (refused, faulted, past the time
 * limit, its process gone): off until the file is saved again, said once. A fault or a time
 * limit ended the helper, and with it the other pane's kernel: that one is prepared again, in a
 * new helper. */
static void hosted_off(app *a, int p, kernel_host_outcome o)
{
    char why[640];
    snprintf(why, sizeof why, "%s", fv_last_error());
    user_kernel_off(a, p, why);
    if (o != HOST_STOPPED) return;
    const int other = 1 - p;
    if (!a->panes[other].hosted) return;
    a->panes[other].hosted = 0;
    const fv_status st = pipeline_prepare(a);
    if (st != FV_OK) snprintf(a->error, sizeof a->error, "%s", fv_last_error());
}

/* No kernel host to be had here (no CUDA IPC, it cannot start): said once; every user kernel
 * runs in this process from now on. */
static void host_unavailable(app *a)
{
    fprintf(stderr, "filterview: %s: your kernels run inside the viewer, where a fault ends it\n",
            fv_last_error());
    kernel_host_destroy(a->kernel_host);
    a->kernel_host = NULL;
    a->panes[0].hosted = a->panes[1].hosted = 0;
}

/* Pane p's user kernel prepared in the kernel host: 1 when that was done (or the kernel is off,
 * its reason said), 0 when there is no kernel host to be had here, said once: the caller then
 * prepares it in this process, as every user kernel is from then on. */
static int prepare_hosted(app *a, int p)
{
    pane *pn = &a->panes[p];
    const fv_params *params = pane_params(a, p);
    fv_runner_release(&pn->runner); /* nothing of it runs in this process */
    if (pn->hosted && fv_params_same(&pn->hosted_params, params)) return 1;
    pn->hosted = 0;
    const kernel_host_outcome o = kernel_host_prepare(
        a->kernel_host, p, fv_user_variant_build(pn->user), params, &a->device_src, &pn->device_out,
        a->kernel_timeout_s, pn->resources, sizeof pn->resources);
    if (o == HOST_UNAVAILABLE) {
        host_unavailable(a);
        return 0;
    }
    if (o != HOST_DONE) {
        hosted_off(a, p, o);
        pipeline_settle_variants(a);
        return 1;
    }
    if (!a->kernel_host_said)
        printf("viewer: your kernels run in a process of their own: a fault ends only that\n");
    a->kernel_host_said = 1;
    pn->hosted = 1;
    pn->hosted_params = *params;
    pn->unprepared[0] = 0;
    return 1;
}

fv_status pipeline_prepare(app *a)
{
    a->prepare_generation++; /* what the probe's reference value was made for changed */
    char was[2][sizeof a->panes[0].replaced];
    for (int p = 0; p < 2; p++) {
        memcpy(was[p], a->panes[p].replaced, sizeof was[p]);
        a->panes[p].refused = 0;
        /* what the panes show changed: B against A starts over from the next warm runs */
        hud_timings_clear(&a->panes[p].timings);
    }
    pipeline_settle_variants(a);
    if (!a->host_src.data) return FV_OK;
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (!PANE_COMPUTES(pn)) continue;
        const fv_filter *f = pane_filter(a, p);
        const fv_variant *v = pane_variant(a, p);
        const int user = pn->variant == PANE_USER,
                  remake = !pn->runner.prepared || pn->runner.variant != v;
        if (user && !(fv_variant_types(v) & FV_TYPE_BIT(a->type))) {
            /* said here for the kernel host too, which is told no pixel type */
            char why[160];
            snprintf(why, sizeof why, "your kernels run uint8 images, not %s",
                     fv_pixel_type_name(a->type));
            user_kernel_off(a, p, why);
            pipeline_settle_variants(a);
            continue;
        }
        if (user && a->kernel_host && prepare_hosted(a, p)) continue;
        /* the user's FV_LAUNCH runs on the GPU when its state is made: watched like a frame */
        if (user) watchdog_begin(a, 1 << p, 1, "'s FV_LAUNCH");
        fv_status st = fv_runner_prepare(&pn->runner, f, v, pane_params(a, p), a->host_src.width,
                                         a->host_src.height);
        if (st == FV_OK && user && (remake || v->state_create))
            fv_variant_resources_text(f, v, pane_params(a, p), pn->resources, sizeof pn->resources);
        watchdog_end(a);
        if (st != FV_OK && user) { /* its launch or its code is refused: off, the rest runs */
            char why[512];
            snprintf(why, sizeof why, "%s", fv_last_error());
            fv_runner_release(&pn->runner);
            const cudaError_t err = fv_device_fault();
            if (err != cudaSuccess) {
                pipeline_note_fault(a, 1 << p, err);
                pn->variant = PANE_ORIGINAL; /* nothing more runs: the program ends */
                return FV_OK;
            }
            user_kernel_off(a, p, why);
            pipeline_settle_variants(a);
            continue;
        }
        if (st == FV_ERR_UNSUPPORTED) {
            /* the variant does not run this image (its type, a peer's case): the registry's
             * reason in the HUD, said once on stderr, and the pane shows the original */
            fv_runner_release(&pn->runner);
            pn->refused = 1;
            pn->kernel_ms = 0;
            pn->unprepared[0] = 0;
            snprintf(pn->replaced, sizeof pn->replaced, "%c: %s (shown: the original)", 'A' + p,
                     fv_last_error());
            if (strcmp(was[p], pn->replaced)) fprintf(stderr, "filterview: %s\n", pn->replaced);
            continue;
        }
        if (st != FV_OK) { /* kept for pipeline_compute, which then runs nothing */
            snprintf(pn->unprepared, sizeof pn->unprepared, "%s", fv_last_error());
            return st;
        }
        pn->unprepared[0] = 0;
        if (!user && (remake || v->state_create)) {
            if (a->compute == FV_COMPUTE_CPU && !fv_variant_is_host(v))
                snprintf(pn->resources, sizeof pn->resources, "-");
            else
                fv_variant_resources_text(f, v, pane_params(a, p), pn->resources,
                                          sizeof pn->resources);
        }
    }
    return FV_OK;
}

static fv_status run_pane(app *a, int p, fv_image *out)
{
    pane *pn = &a->panes[p];
    const fv_variant *v = pane_variant(a, p);
    if (fv_variant_is_host(v)) {
        double t0 = fv_now_ms();
        FV_TRY(fv_runner_run(&pn->runner, &a->host_src, &pn->host_out, 0));
        pn->kernel_ms = fv_now_ms() - t0;
        hud_timings_add(&pn->timings, pn->kernel_ms);
        if (a->compute == FV_COMPUTE_CPU) return FV_OK;
        if (cudaMemcpy2D(out->data, out->pitch, pn->host_out.data, pn->host_out.pitch,
                         (size_t)out->width * fv_image_pixel_bytes(out), (size_t)out->height,
                         cudaMemcpyHostToDevice) != cudaSuccess)
            return fv_fail(FV_ERR_CUDA, "upload of the cpu pane failed");
        return FV_OK;
    }
    if (pn->variant == PANE_USER) a->user_ran |= 1 << p;
    fv_timer_start(&pn->timer, 0);
    fv_status st = fv_runner_run(&pn->runner, &a->device_src, out, 0);
    fv_timer_stop(&pn->timer, 0);
    if (pn->variant == PANE_USER) watchdog_gpu(a, p);
    return st;
}

/* Charges the host time since *t to `stage`; with a->profile (--bench-frames' synchronised
 * pass) the stage's GPU work is drained first. */
static void end_stage(app *a, frame_stage stage, double *t)
{
    if (a->profile) {
        if (stage == STAGE_TEXTURE || stage == STAGE_DRAW)
            glFinish();
        else if (a->compute != FV_COMPUTE_CPU)
            cudaDeviceSynchronize();
    }
    double now = fv_now_ms();
    a->stage_ms[stage] = now - *t;
    *t = now;
}

int pipeline_collect(app *a, int wait)
{
    if (!a->results_pending) return 1;
    cudaError_t done =
        wait ? cudaEventSynchronize(a->results_ready) : cudaEventQuery(a->results_ready);
    if (done == cudaErrorNotReady) {
        cudaGetLastError(); /* "not ready" is an answer, not an error for the next launch check */
        return 0;
    }
    a->results_pending = 0;
    watchdog_end(a);
    if (done != cudaSuccess && a->user_ran) { /* the user's kernel, never a built-in one */
        pipeline_note_fault(a, a->user_ran, done);
        return 1;
    }
    if (done != cudaSuccess) {
        snprintf(a->error, sizeof a->error, "the frame's GPU work failed: %s",
                 cudaGetErrorString(done));
        a->diff_valid = 0;
        return 1;
    }
    fv_diff_totals_read(a->diff_host_totals, a->host_src.width, a->host_src.height, &a->diff);
    a->diff_valid = 1;
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (!PANE_COMPUTES(pn) || fv_variant_is_host(pane_variant(a, p)) ||
            (pn->variant == PANE_USER && pn->hosted))
            continue; /* host clock, or the kernel host's answer: already set */
        if (fv_timer_elapsed_ms(&pn->timer, &pn->kernel_ms))
            hud_timings_add(&pn->timings, pn->kernel_ms);
    }
    return 1;
}

/* The mapped pointer (buffer and pbo paths) or the device buffer that pane p's kernel writes. */
static fv_status pane_target(app *a, int p, fv_image *out)
{
    pane *pn = &a->panes[p];
    *out = a->compute == FV_COMPUTE_CPU ? pn->host_out : pn->device_out;
    if (a->compute != FV_COMPUTE_INTEROP || a->interop == FV_INTEROP_TEXTURE) return FV_OK;
    void *ptr = NULL;
    size_t size = 0;
    if (cudaGraphicsResourceGetMappedPointer(&ptr, &size, pn->resource) != cudaSuccess)
        return fv_fail(FV_ERR_CUDA, "cudaGraphicsResourceGetMappedPointer failed");
    *out = packed_view(ptr, a->host_src.width, a->host_src.height, a->host_src.type);
    return FV_OK;
}

static fv_status copy_into_texture(pane *pn, const fv_image *from)
{
    cudaArray_t array = NULL;
    if (cudaGraphicsSubResourceGetMappedArray(&array, pn->texture_resource, 0, 0) != cudaSuccess ||
        cudaMemcpy2DToArrayAsync(array, 0, 0, from->data, from->pitch,
                                 (size_t)from->width * fv_image_pixel_bytes(from),
                                 (size_t)from->height, cudaMemcpyDeviceToDevice, 0) != cudaSuccess)
        return fv_fail(FV_ERR_CUDA, "copy into the texture failed: %s",
                       cudaGetErrorString(cudaGetLastError()));
    return FV_OK;
}

/* Pane p's user kernel was refused at launch (its launch, its code): it goes off and the rest
 * runs; or CUDA's context holds an error, a fault, which ends the program. 1 for a fault. */
static int user_run_refused(app *a, int p)
{
    char why[512];
    snprintf(why, sizeof why, "%s", fv_last_error());
    const cudaError_t err = fv_device_fault();
    if (err != cudaSuccess) {
        pipeline_note_fault(a, 1 << p, err);
        return 1;
    }
    user_kernel_off(a, p, why);
    a->user_ran &= ~(1 << p);
    return 0;
}

/* The user kernels run before GL's buffers are mapped, into the panes' own device buffers,
 * and the frame then copies their finished results into GL's buffers. In the kernel host
 * (kernel_host.h) each run is waited for there. In this process (no kernel host here) the host
 * waits for them under the time limit's watch. Either way a fault is never part of the work
 * that GL waits for: the unmap makes GL's channel wait on the GPU for the CUDA work before it,
 * and behind a faulted kernel that wait never ends (the viewer's exit then spun in EGL, seen on
 * an H100). A finished kernel cannot fault any more. What this cannot prevent: on some drivers
 * any fault slows every GL program on the GPU for minutes (Xid 109; docs/your-own-kernel.md). */
static void user_panes_first(app *a)
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (pn->variant != PANE_USER) continue;
        if (pn->hosted) { /* in the kernel host: run and waited for there */
            const kernel_host_outcome o =
                kernel_host_run(a->kernel_host, p, a->kernel_timeout_s, &pn->kernel_ms);
            if (o == HOST_DONE)
                hud_timings_add(&pn->timings, pn->kernel_ms);
            else
                hosted_off(a, p, o);
            continue;
        }
        if (run_pane(a, p, &pn->device_out) != FV_OK && user_run_refused(a, p))
            return; /* pipeline_fault_said ends it */
    }
    if (!a->user_ran) return; /* nothing of theirs runs in this process */
    if (cudaStreamSynchronize(0) == cudaSuccess) return;
    const cudaError_t err = fv_device_fault();
    if (err != cudaSuccess) pipeline_note_fault(a, a->user_ran, err);
}

/* Runs both panes (the user kernels have run already: their results are copied) and enqueues
 * their diff; the GPU's part of the frame only waits on the GPU. */
static fv_status compute_panes(app *a, fv_image outs[2])
{
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (pn->variant == PANE_ORIGINAL || pn->refused) {
            outs[p] = a->compute == FV_COMPUTE_CPU ? a->host_src : a->device_src;
            pn->kernel_ms = 0;
            continue;
        }
        if (pn->variant == PANE_FILE_B) { /* two files: the second, loaded once */
            outs[p] = a->compute == FV_COMPUTE_CPU ? a->host_b : a->device_b;
            pn->kernel_ms = 0;
            continue;
        }
        FV_TRY(pane_target(a, p, &outs[p]));
        if (pn->variant == PANE_USER) { /* run already (user_panes_first): GL's copy of it */
            if (outs[p].data != pn->device_out.data &&
                cudaMemcpy2DAsync(
                    outs[p].data, outs[p].pitch, pn->device_out.data, pn->device_out.pitch,
                    (size_t)outs[p].width * fv_image_pixel_bytes(&outs[p]), (size_t)outs[p].height,
                    cudaMemcpyDeviceToDevice, 0) != cudaSuccess)
                return fv_fail(FV_ERR_CUDA, "copy of pane %c's result failed: %s", 'A' + p,
                               cudaGetErrorString(cudaGetLastError()));
        } else {
            FV_TRY(run_pane(a, p, &outs[p]));
        }
        if (a->compute == FV_COMPUTE_INTEROP && a->interop == FV_INTEROP_TEXTURE)
            FV_TRY(copy_into_texture(pn, &outs[p]));
    }
    if (a->compute == FV_COMPUTE_CPU) {
        fv_diff_host(&outs[0], &outs[1], &a->diff);
        a->diff_valid = 1;
        return FV_OK;
    }
    FV_TRY(fv_diff_enqueue(&outs[0], &outs[1], a->diff_work, a->diff_host_totals, 0));
    if (cudaEventRecord(a->results_ready, 0) != cudaSuccess)
        return fv_fail(FV_ERR_CUDA, "cudaEventRecord failed");
    a->results_pending = 1;
    return FV_OK;
}

/* pbo, staging and cpu paths: into what the shader samples (the 2D textures, or the pixel
 * buffers with --interop buffer), from the pixel buffers or from host memory */
static fv_status upload_to_gl(app *a)
{
    const int w = a->host_src.width, h = a->host_src.height;
    GLenum internal, data;
    gl_formats(a->host_src.type, &internal, &data);
    for (int p = 0; p < 2; p++) {
        pane *pn = &a->panes[p];
        if (!PANE_COMPUTES(pn)) continue;
        if (a->compute == FV_COMPUTE_STAGING && !fv_variant_is_host(pane_variant(a, p)))
            FV_TRY(fv_image_download(&pn->host_out, &pn->device_out));
        glBindTexture(GL_TEXTURE_2D, pn->texture);
        if (a->compute == FV_COMPUTE_INTEROP) { /* --interop pbo */
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pn->pbo);
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, data, NULL);
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        } else if (pn->buffer_texture) {
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pn->pbo);
            glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, (GLsizeiptr)pn->host_out.pitch * h,
                            pn->host_out.data);
            glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        } else {
            glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, data, pn->host_out.data);
        }
    }
    glBindTexture(GL_TEXTURE_2D, 0);
    return FV_OK;
}

fv_status pipeline_compute(app *a)
{
    double t = fv_now_ms();
    /* the runners were prepared (and the parameters checked) when they last changed: a pane
     * whose runner is not ready for what it shows says why, and nothing runs */
    for (int p = 0; p < 2; p++)
        if (PANE_COMPUTES(&a->panes[p]) && a->panes[p].unprepared[0])
            return fv_fail(FV_ERR_ARG, "%s", a->panes[p].unprepared);
    /* the previous frame's results first: the CPU stays at most one frame ahead of the GPU */
    if (a->results_pending) pipeline_collect(a, 1);
    if (a->fault_panes) return FV_OK; /* a user kernel faulted: the program ends */
    a->user_ran = 0;
    user_panes_first(a);
    if (a->fault_panes) return FV_OK;
    struct cudaGraphicsResource *mapped[2];
    int n_mapped = 0;
    for (int p = 0; p < 2; p++)
        if (PANE_COMPUTES(&a->panes[p]) && a->compute == FV_COMPUTE_INTEROP)
            mapped[n_mapped++] = a->interop == FV_INTEROP_TEXTURE ? a->panes[p].texture_resource
                                                                  : a->panes[p].resource;
    /* the last frame's GL work that reads these buffers is submitted before CUDA waits for it:
     * headless there is no buffer swap to do so, and a map that waits on GL commands still in
     * the context's queue waits for ever (seen on an H200: a hung frame, the GPU idle) */
    if (n_mapped) glFlush();
    if (n_mapped && cudaGraphicsMapResources(n_mapped, mapped, 0) != cudaSuccess)
        return fv_fail(FV_ERR_CUDA, "cudaGraphicsMapResources: %s",
                       cudaGetErrorString(cudaGetLastError()));
    end_stage(a, STAGE_MAP, &t);
    fv_image outs[2];
    fv_status st = compute_panes(a, outs);
    end_stage(a, STAGE_COMPUTE, &t);
    if (n_mapped) cudaGraphicsUnmapResources(n_mapped, mapped, 0);
    end_stage(a, STAGE_UNMAP, &t);
    if (a->fault_panes) return FV_OK;
    if (st != FV_OK) {
        a->results_pending = 0;
        return st;
    }
    if (a->compute != FV_COMPUTE_INTEROP || a->interop == FV_INTEROP_PBO) st = upload_to_gl(a);
    end_stage(a, STAGE_TEXTURE, &t);
    return st;
}

/* --bench-frames' hand-over floor: the smallest CUDA work there is (a 4-byte memset), waited for */
void pipeline_cuda_tick(app *a)
{
    if (a->compute == FV_COMPUTE_CPU) return;
    cudaMemsetAsync(a->diff_work, 0, 4, 0);
    cudaStreamSynchronize(0);
}

typedef struct chart_op {
    app *a;
    const fv_runner *runner;
} chart_op;

static fv_status chart_op_run(void *context, int set)
{
    chart_op *c = context;
    (void)set;
    return fv_runner_run(c->runner, &c->a->device_src, &c->a->panes[0].device_out, 0);
}

/* The user kernel that chart entry i stands for beyond the built-in variants (i = n_variants
 * + k: the k-th pane with one for filter f, the same file once); -1 for none. */
static int chart_user_pane(const app *a, const fv_filter *f, int k)
{
    for (int p = 0; p < 2; p++) {
        const pane *pn = &a->panes[p];
        if (!pn->user || pn->user_off || pn->user_filter != f) continue;
        if (p == 1 && a->panes[0].user && !a->panes[0].user_off && a->panes[0].user_filter == f &&
            !strcmp(a->panes[0].user_file, pn->user_file))
            continue; /* the same file in both panes: one bar */
        if (k-- == 0) return p;
    }
    return -1;
}

/* `t`: every variant of the edited pane's filter with its parameters, the panes' own kernels
 * for it included, each prepared before it is timed (a user's request, so its buffers are made
 * here, not in the frame loop) */
void pipeline_time_all_variants(app *a)
{
    const fv_filter *f = edit_filter(a);
    const fv_params *params = pane_params(a, a->edit_pane);
    bar_chart *c = &a->chart;
    c->n = 0;
    c->stale = 0;
    /* parameters the panes' runner refused (and said so): no chart, rather than the same error
     * once per variant */
    if (fv_params_check(f, params) != FV_OK) return;
    for (int i = 0; i < f->n_variants + 2 && c->n < CHART_MAX_VARIANTS; i++) {
        const int user = i >= f->n_variants ? chart_user_pane(a, f, i - f->n_variants) : -1;
        if (i >= f->n_variants && user < 0) break;
        const fv_variant *v =
            user >= 0 ? fv_user_variant_get(a->panes[user].user) : &f->variants[i];
        double ms = 0;
        fv_runner runner = {0};
        fv_status st = FV_OK;
        if (fv_variant_is_host(v)) {
            if ((size_t)a->host_src.width * a->host_src.height * params->iterations >
                CHART_CPU_MAX_PIXELS)
                continue;
            st = fv_runner_prepare(&runner, f, v, params, a->host_src.width, a->host_src.height);
            double t0 = fv_now_ms();
            if (st == FV_OK) st = fv_runner_run(&runner, &a->host_src, &a->panes[0].host_out, 0);
            ms = fv_now_ms() - t0;
        } else if (user >= 0 && a->kernel_host) {
            /* in the kernel host, in a slot of the chart's own: a fault ends nothing here */
            kernel_host_outcome o = kernel_host_prepare(
                a->kernel_host, KERNEL_HOST_CHART_SLOT, fv_user_variant_build(a->panes[user].user),
                params, &a->device_src, &a->panes[0].device_out, a->kernel_timeout_s, NULL, 0);
            if (o == HOST_DONE)
                o = kernel_host_time(a->kernel_host, KERNEL_HOST_CHART_SLOT, CHART_RUNS,
                                     a->kernel_timeout_s, &ms);
            if (o == HOST_UNAVAILABLE) { /* the panes' kernels move into this process */
                host_unavailable(a);
                if (pipeline_prepare(a) != FV_OK)
                    snprintf(a->error, sizeof a->error, "%s", fv_last_error());
                continue;
            }
            if (o != HOST_DONE) {
                hosted_off(a, user, o);
                continue;
            }
        } else {
            if (a->compute == FV_COMPUTE_CPU) continue;
            /* a user kernel: its warm-up and timed runs under the time limit, each */
            if (user >= 0)
                watchdog_begin(a, 1 << user, 1 + 1 + CHART_RUNS, " (timed for the chart)");
            st = fv_runner_prepare(&runner, f, v, params, a->host_src.width, a->host_src.height);
            chart_op op = {a, &runner};
            if (st == FV_OK) st = fv_time_median(chart_op_run, &op, 1, 1, CHART_RUNS, &ms);
            watchdog_end(a);
        }
        fv_runner_release(&runner);
        if (st != FV_OK && user >= 0) {
            const cudaError_t err = fv_device_fault();
            if (err != cudaSuccess) { /* put right at the next frame boundary, then re-timed */
                pipeline_note_fault(a, 1 << user, err);
                break;
            }
        }
        if (st != FV_OK) {
            snprintf(a->error, sizeof a->error, "%s", fv_last_error());
            continue;
        }
        c->names[c->n] = v->name;
        c->on_host[c->n] = fv_variant_is_host(v);
        c->ms[c->n] = ms;
        c->n++;
    }
    a->dirty = 1; /* panes[0].host_out may have been used: refresh what is shown */
}

fv_status pane_download(app *a, int p, fv_image *host)
{
    const pane *pn = &a->panes[p];
    const fv_image *from = NULL;
    if (pn->variant == PANE_ORIGINAL || pn->refused)
        from = &a->host_src;
    else if (pn->variant == PANE_FILE_B)
        from = &a->host_b;
    else if (a->compute != FV_COMPUTE_INTEROP || fv_variant_is_host(pane_variant(a, p)))
        from = &pn->host_out;
    if (!from && a->interop == FV_INTEROP_TEXTURE) return fv_image_download(host, &pn->device_out);
    if (from) {
        copy_host_image(host, from);
        return FV_OK;
    }
    glBindBuffer(GL_COPY_READ_BUFFER, pn->pbo);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, (GLsizeiptr)host->pitch * host->height, host->data);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    return glGetError() == GL_NO_ERROR ? FV_OK
                                       : fv_fail(FV_ERR_GL, "reading pane %c back failed", 'A' + p);
}

/* The reference's pixel (x, y) for the first pane that runs a filter: the reference run on the
 * pixel's neighbourhood alone, as far as the filter reaches in its iterations (the halo of
 * fv_filter_reach: its result at the centre is the whole image's), cut at the image's edges
 * so that every border but wrap reads what it reads on the whole image. Made when the pointer
 * moves to another pixel or the panes change, never for a still frame; none where the filter
 * has no bounded reach (Canny's full hysteresis) or reaches too far for a quick answer. */
#define PROBE_REACH_MAX 64

typedef struct probe_pass {
    const fv_filter *f;
    const fv_config *config;
} probe_pass;

static fv_status probe_ref_pass(void *context, const fv_image *in, fv_image *out)
{
    const probe_pass *c = context;
    return c->f->ref(in, out, c->config);
}

static int probe_reference(app *a, int p, int x, int y, double value[4])
{
    const fv_filter *f = pane_filter(a, p);
    const fv_params *params = pane_params(a, p);
    const fv_variant *ref = fv_filter_variant_of_role(f, FV_ROLE_REFERENCE);
    fv_config config;
    if (!ref || !(fv_variant_types(ref) & FV_TYPE_BIT(a->type)) ||
        !(fv_variant_borders(ref) & FV_BORDER_BIT(fv_params_border(f, params))) ||
        fv_params_border(f, params) == FV_BORDER_WRAP ||
        fv_config_make(f, params, &config) != FV_OK)
        return 0;
    const long long reach = fv_filter_reach(f, params);
    if (reach < 0 || reach > PROBE_REACH_MAX) return 0;
    const fv_image *src = &a->host_src;
    const int r = (int)reach, x0 = x - r < 0 ? 0 : x - r, y0 = y - r < 0 ? 0 : y - r;
    const int x1 = x + r >= src->width ? src->width - 1 : x + r;
    const int y1 = y + r >= src->height ? src->height - 1 : y + r;
    const int w = x1 - x0 + 1, h = y1 - y0 + 1;
    fv_image in = {0}, out = {0}, ping = {0};
    fv_status st = fv_host_image_alloc_as(&in, w, h, src->type, 4);
    if (st == FV_OK) st = fv_host_image_alloc_as(&out, w, h, src->type, 4);
    if (st == FV_OK && params->iterations > 1)
        st = fv_host_image_alloc_as(&ping, w, h, src->type, 4);
    if (st == FV_OK) {
        const size_t bytes = fv_image_pixel_bytes(src);
        for (int row = 0; row < h; row++)
            memcpy(in.data + (size_t)row * in.pitch,
                   src->data + (size_t)(y0 + row) * src->pitch + (size_t)x0 * bytes,
                   (size_t)w * bytes);
        probe_pass pass = {f, &config};
        st = fv_iterate(probe_ref_pass, &pass, &in, &out, ping.data ? &ping : NULL,
                        params->iterations);
    }
    const int ok = st == FV_OK && display_pixel(&out, x - x0, y - y0, value);
    fv_host_image_free(&in);
    fv_host_image_free(&out);
    fv_host_image_free(&ping);
    return ok;
}

int pipeline_probe_reference(app *a, int x, int y, double value[4])
{
    const int p = PANE_COMPUTES(&a->panes[0]) ? 0 : (PANE_COMPUTES(&a->panes[1]) ? 1 : -1);
    probe_cache *c = &a->probe_ref;
    if (p < 0 || x < 0 || y < 0 || x >= a->host_src.width || y >= a->host_src.height) return 0;
    if (!c->made || c->x != x || c->y != y || c->pane != p ||
        c->generation != a->prepare_generation) {
        c->made = 1;
        c->x = x;
        c->y = y;
        c->pane = p;
        c->generation = a->prepare_generation;
        c->valid = probe_reference(a, p, x, y, c->value);
    }
    memcpy(value, c->value, sizeof c->value);
    return c->valid;
}

int pipeline_probe_source(const app *a, int x, int y, double value[4])
{
    return display_pixel(&a->host_src, x, y, value);
}

/* Pane p's pixel (x, y) in the image's units: from the host where the pane's result is there,
 * else one pixel read back from the GPU (only while the cursor moves over the image). */
int pipeline_probe_pixel(app *a, int p, int x, int y, double value[4])
{
    if (x < 0 || y < 0 || x >= a->host_src.width || y >= a->host_src.height) return 0;
    const pane *pn = &a->panes[p];
    if (pn->variant == PANE_ORIGINAL || pn->refused)
        return display_pixel(&a->host_src, x, y, value);
    if (pn->variant == PANE_FILE_B) return display_pixel(&a->host_b, x, y, value);
    if (a->compute != FV_COMPUTE_INTEROP || fv_variant_is_host(pane_variant(a, p)))
        return display_pixel(&pn->host_out, x, y, value);
    const size_t bytes = fv_image_pixel_bytes(&a->host_src);
    uint8_t raw[16]; /* one pixel of any type */
    fv_image one = {.data = raw,
                    .width = 1,
                    .height = 1,
                    .pitch = bytes,
                    .type = a->host_src.type,
                    .channels = 4,
                    .memory = FV_MEMORY_HOST};
    if (a->interop == FV_INTEROP_TEXTURE) {
        cudaMemcpy(raw, pn->device_out.data + (size_t)y * pn->device_out.pitch + bytes * (size_t)x,
                   bytes, cudaMemcpyDeviceToHost);
    } else {
        glBindBuffer(GL_COPY_READ_BUFFER, pn->pbo);
        glGetBufferSubData(GL_COPY_READ_BUFFER,
                           (GLintptr)(((size_t)y * a->host_src.width + x) * bytes),
                           (GLsizeiptr)bytes, raw);
        glBindBuffer(GL_COPY_READ_BUFFER, 0);
    }
    return display_pixel(&one, 0, 0, value);
}
