/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_ref.c: CPU reference of the Canny edge detector (the pipeline and its integer
 * formulas are in kernels/canny/canny.h). Stage by stage over whole images: gray, blur (direct 2-D sum
 * of the integer taps), Sobel, suppression, thresholds, then hysteresis as a breadth-first search
 * from the strong pixels through weak ones, which gives each joined pixel its chain length: every
 * pixel reached (full) or reached in at most N steps (sweeps N, one-pass N = 1) is an edge. The
 * GPU variants relax labels instead (kernels/canny/canny.cu); both reach the same set. Checked on
 * hand-worked images by tests/cpu/test_canny_ref.c and against cv2.Canny by tests/cpu/canny_opencv.py.
 * ------------------------------------------------------------------------------------------------ */
#include "canny.h"

#include <stdlib.h>
#include <string.h>

const char *const canny_stage_names[CANNY_N_STAGES] = {
    "gray", "blur", "magnitude", "direction", "nms", "thresholds", "edges"};

static fv_status whole_in(const fv_params *p, int index, const char *who, const char *name, int lo,
                          int hi, int *out)
{
    const double v = p->value[index];
    if (!(v >= lo && v <= hi) || v != (double)(int)v)
        return fv_fail(FV_ERR_ARG, "%s: %s %g is not an integer in %d..%d", who, name, v, lo, hi);
    *out = (int)v;
    return FV_OK;
}

fv_status canny_config_make(const fv_params *p, const char *who, canny_config *c)
{
    memset(c, 0, sizeof *c);
    int one_pass = 0, sweeps = 0;
    FV_TRY(whole_in(p, CANNY_STAGE, who, "stage", 0, CANNY_N_STAGES - 1, &c->stage));
    FV_TRY(whole_in(p, CANNY_NORM, who, "norm", 0, 1, &c->l2));
    FV_TRY(whole_in(p, CANNY_LOW, who, "low", 0, FV_CANNY_MAX_THRESHOLD, &c->low));
    FV_TRY(whole_in(p, CANNY_HIGH, who, "high", 0, FV_CANNY_MAX_THRESHOLD, &c->high));
    FV_TRY(whole_in(p, CANNY_THRESHOLDS, who, "thresholds", 0, 1, &c->auto_thresholds));
    FV_TRY(whole_in(p, CANNY_HYSTERESIS, who, "hysteresis", 0, 1, &one_pass));
    FV_TRY(whole_in(p, CANNY_SWEEPS, who, "sweeps", 0, FV_CANNY_MAX_SWEEPS, &sweeps));
    if (c->low > c->high) { /* as cv2.Canny does */
        const int t = c->low;
        c->low = c->high;
        c->high = t;
    }
    c->inc = one_pass || sweeps > 0 ? 1 : 0;
    c->cap = one_pass ? 2 : sweeps + 1;
    const double sigma = p->value[CANNY_SIGMA];
    if (!(sigma >= 0.0 && sigma <= FV_CANNY_MAX_SIGMA))
        return fv_fail(FV_ERR_ARG, "%s: sigma %g is not a number in 0..%g", who, sigma,
                       FV_CANNY_MAX_SIGMA);
    if (sigma > 0.0) {
        fv_params g;
        memset(&g, 0, sizeof g);
        g.value[GAUSSIAN_SIGMA] = sigma;
        g.iterations = 1;
        fv_gaussian_taps t;
        FV_TRY(fv_gaussian_taps_make(&g, &t));
        if (t.radius > FV_CANNY_MAX_RADIUS)
            return fv_fail(FV_ERR_ARG, "%s: sigma %g needs radius %d, at most %d", who, sigma,
                           t.radius, FV_CANNY_MAX_RADIUS);
        c->radius = t.radius;
        memcpy(c->w, t.w, sizeof(int) * (size_t)(2 * t.radius + 1));
    }
    return FV_OK;
}

static uint32_t load_px(const fv_image *img, int x, int y)
{
    const uint8_t *q = img->data + (size_t)y * img->pitch + 4 * (size_t)x;
    return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
}

static void store_px(fv_image *img, int x, int y, uint32_t v)
{
    uint8_t *q = img->data + (size_t)y * img->pitch + 4 * (size_t)x;
    q[0] = (uint8_t)v, q[1] = (uint8_t)(v >> 8), q[2] = (uint8_t)(v >> 16),
    q[3] = (uint8_t)(v >> 24);
}

fv_status canny_ref(const fv_image *src, fv_image *dst, const fv_params *p)
{
    canny_config c;
    FV_TRY(canny_config_make(p, "canny", &c));
    const int w = src->width, h = src->height;
    const size_t n = (size_t)w * h;
    uint8_t *gray = malloc(n), *blur = malloc(n), *sector = malloc(n), *keep = malloc(n);
    int *mag = malloc(n * sizeof(int)), *queue = malloc(n * sizeof(int));
    unsigned *label = malloc(n * sizeof(unsigned));
    fv_status st = FV_OK;
    if (!gray || !blur || !sector || !keep || !mag || !queue || !label) {
        st = fv_fail(FV_ERR_MEMORY, "canny: out of host memory for a %dx%d image", w, h);
        goto done;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            gray[(size_t)y * w + x] = (uint8_t)canny_gray(load_px(src, x, y));
    const int r = c.radius;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int sum = 0;
            if (r == 0) {
                blur[(size_t)y * w + x] = gray[(size_t)y * w + x];
                continue;
            }
            for (int i = -r; i <= r; i++)
                for (int j = -r; j <= r; j++)
                    sum += c.w[r + i] * c.w[r + j] *
                           gray[(size_t)canny_clamp(y + i, h - 1) * w + canny_clamp(x + j, w - 1)];
            blur[(size_t)y * w + x] = (uint8_t)canny_blur_round(sum);
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v[3][3];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    v[i][j] = blur[(size_t)canny_clamp(y + i - 1, h - 1) * w +
                                   canny_clamp(x + j - 1, w - 1)];
            const int dx = v[0][2] + 2 * v[1][2] + v[2][2] - v[0][0] - 2 * v[1][0] - v[2][0];
            const int dy = v[2][0] + 2 * v[2][1] + v[2][2] - v[0][0] - 2 * v[0][1] - v[0][2];
            mag[(size_t)y * w + x] = canny_magnitude(dx, dy, c.l2);
            sector[(size_t)y * w + x] = (uint8_t)canny_sector(dx, dy);
        }
    int kmin = 0, kmax = 0, any = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int s = sector[(size_t)y * w + x], m = mag[(size_t)y * w + x];
            int ax, ay, bx, by;
            canny_neighbours(s, &ax, &ay, &bx, &by);
            const int xa = x + ax, ya = y + ay, xb = x + bx, yb = y + by;
            const int ma = xa >= 0 && xa < w && ya >= 0 && ya < h ? mag[(size_t)ya * w + xa] : 0;
            const int mb = xb >= 0 && xb < w && yb >= 0 && yb < h ? mag[(size_t)yb * w + xb] : 0;
            const int k = canny_nms_keeps(s, m, ma, mb);
            keep[(size_t)y * w + x] = (uint8_t)k;
            if (k) {
                kmin = any && kmin < m ? kmin : m;
                kmax = any && kmax > m ? kmax : m;
                any = 1;
            }
        }
    int low = c.low, high = c.high;
    if (c.auto_thresholds) {
        const int lo = c.l2 ? canny_isqrt(kmin) : kmin, hi = c.l2 ? canny_isqrt(kmax) : kmax;
        canny_auto_thresholds(lo, hi, &low, &high);
    }
    const int lowc = canny_threshold_value(low, c.l2), highc = canny_threshold_value(high, c.l2);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        label[i] = canny_classify(keep[i], mag[i], lowc, highc, c.cap);
        if (label[i] == 0) queue[tail++] = (int)i;
    }
    if (c.stage == CANNY_EDGES) {
        /* breadth first: a pixel is labelled with its chain length when first reached */
        while (head < tail) {
            const int i = queue[head++], x = i % w, y = i / w;
            const unsigned next = label[i] + 1;
            if (c.inc && next >= (unsigned)c.cap) continue;
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int xx = x + dx, yy = y + dy;
                    if (xx < 0 || xx >= w || yy < 0 || yy >= h) continue;
                    const size_t q = (size_t)yy * w + xx;
                    if (label[q] != (unsigned)c.cap) continue; /* strong, joined, or not weak */
                    label[q] = c.inc ? next : 0;
                    queue[tail++] = (int)q;
                }
        }
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            uint32_t out = 0;
            switch (c.stage) {
            case CANNY_GRAY: out = canny_display_gray(gray[i]); break;
            case CANNY_BLUR: out = canny_display_gray(blur[i]); break;
            case CANNY_MAGNITUDE:
                out = canny_display_gray(canny_magnitude_shown(mag[i], c.l2));
                break;
            case CANNY_DIRECTION: out = canny_display_direction(sector[i], mag[i], c.l2); break;
            case CANNY_NMS:
                out = canny_display_gray(keep[i] ? canny_magnitude_shown(mag[i], c.l2) : 0);
                break;
            case CANNY_THRESHOLD_MAP: out = canny_display_threshold(label[i]); break;
            default: out = canny_display_edge(label[i], c.cap); break;
            }
            store_px(dst, x, y, out);
        }
done:
    free(gray);
    free(blur);
    free(sector);
    free(keep);
    free(mag);
    free(queue);
    free(label);
    return st;
}
