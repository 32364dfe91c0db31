/* ------------------------------------------------------------------------------------------------
 * kernels/canny/canny_ref.c: CPU reference of the Canny edge detector (the pipeline and its formulas
 * are in kernels/canny/canny.h), for uint8, uint16 and float32 and every border (of the blur's and
 * the Sobel's reads, through fv_border_index). One code path for the three types: values are
 * doubles, exact for the integer types (every sum is an integer below 2^53), and for float32 each
 * operation's result is rounded to float (num()), which gives IEEE single's own result (double has
 * more than 2 x 24 + 2 bits) in the order the kernels compute it. Stage by stage over whole images:
 * gray, blur (rows, then columns), Sobel, suppression, thresholds, then hysteresis as a
 * breadth-first search from the strong pixels through weak ones, which gives each joined pixel its
 * chain length: every pixel reached (full) or reached in at most N steps (sweeps N, one-pass
 * N = 1) is an edge. The GPU variants relax labels instead (kernels/canny/canny.cu); both reach
 * the same set. Checked on hand-worked images by tests/cpu/test_canny_ref.c, against cv2.Canny
 * by tests/cpu/canny_opencv.py and its blur and Sobel against scipy.ndimage by
 * tests/cpu/canny_scipy.py.
 * ------------------------------------------------------------------------------------------------ */
#include "border.h"
#include "canny.h"

#include <stdlib.h>
#include <stdio.h>
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

double canny_default_threshold(fv_pixel_type type, int levels)
{
    return type == FV_PIXEL_U8 ? levels : levels * fv_pixel_type_max(type) / 255.0;
}

/* The largest threshold a type takes: beyond it no magnitude could ever be met (uint8 2040,
 * uint16 524280); float32 data has no top, so only the table's bound. */
static double threshold_max(fv_pixel_type type)
{
    return type == FV_PIXEL_U8 ? FV_CANNY_MAX_THRESHOLD : FV_CANNY_MAX_THRESHOLD_ANY;
}

/* A threshold as given (0: the type's default), checked against the type's range. */
static fv_status threshold_of(const fv_params *p, int index, const char *who, const char *name,
                              int levels, double *out)
{
    double v = p->value[index];
    const double top = threshold_max(p->type);
    if (v == 0) v = canny_default_threshold(p->type, levels);
    if (!(v >= 0 && v <= top))
        return fv_fail(FV_ERR_ARG, "%s: %s %g is not in 0..%g for %s images", who, name, v, top,
                       fv_pixel_type_name(p->type));
    *out = v;
    return FV_OK;
}

/* What a magnitude is compared with for threshold t (see canny_config). */
static double compared_value(double t, int l2, fv_pixel_type type)
{
    const double v = l2 ? t * t : t;
    return type == FV_PIXEL_F32 ? (double)(float)v : floor(v);
}

fv_status canny_config_fill(const fv_params *p, const char *who, canny_config *c)
{
    memset(c, 0, sizeof *c);
    int one_pass = 0, sweeps = 0, border = 0;
    if ((unsigned)p->type >= FV_PIXEL_TYPE_COUNT)
        return fv_fail(FV_ERR_ARG, "%s: pixel type %d is none of uint8, uint16, float32", who,
                       (int)p->type);
    c->type = p->type;
    FV_TRY(whole_in(p, CANNY_STAGE, who, "stage", 0, CANNY_N_STAGES - 1, &c->stage));
    FV_TRY(whole_in(p, CANNY_NORM, who, "norm", 0, 1, &c->l2));
    FV_TRY(whole_in(p, CANNY_THRESHOLDS, who, "thresholds", 0, 1, &c->auto_thresholds));
    FV_TRY(whole_in(p, CANNY_HYSTERESIS, who, "hysteresis", 0, 1, &one_pass));
    FV_TRY(whole_in(p, CANNY_SWEEPS, who, "sweeps", 0, FV_CANNY_MAX_SWEEPS, &sweeps));
    FV_TRY(whole_in(p, CANNY_BORDER, who, "border", 0, FV_BORDER_COUNT - 1, &border));
    c->border = (fv_border)border;
    /* float32 reads it as a float, as the kernels do */
    c->cval = c->type == FV_PIXEL_F32 ? (double)(float)p->value[CANNY_CVAL] : p->value[CANNY_CVAL];
    double low = 0, high = 0;
    FV_TRY(threshold_of(p, CANNY_LOW, who, "low", FV_CANNY_DEFAULT_LOW, &low));
    FV_TRY(threshold_of(p, CANNY_HIGH, who, "high", FV_CANNY_DEFAULT_HIGH, &high));
    if (low > high) { /* as cv2.Canny does */
        const double t = low;
        low = high;
        high = t;
    }
    c->low = (int)floor(low < FV_CANNY_MAX_THRESHOLD_ANY ? low : FV_CANNY_MAX_THRESHOLD_ANY);
    c->high = (int)floor(high < FV_CANNY_MAX_THRESHOLD_ANY ? high : FV_CANNY_MAX_THRESHOLD_ANY);
    c->lowc = compared_value(low, c->l2, c->type);
    c->highc = compared_value(high, c->l2, c->type);
    c->one_pass = one_pass;
    c->inc = one_pass || sweeps > 0 ? 1 : 0;
    c->cap = one_pass ? 2 : sweeps + 1;
    /* sigma's row (0..FV_CANNY_MAX_SIGMA) has checked it before: the radius it derives is the one
     * rule left, there should the two bounds ever drift apart */
    const double sigma = p->value[CANNY_SIGMA];
    if (sigma > 0.0) {
        fv_params g;
        memset(&g, 0, sizeof g);
        g.value[GAUSSIAN_SIGMA] = sigma; /* radius 0: ceil(3 sigma) */
        const int radius = fv_gaussian_radius(&g);
        if (radius > FV_CANNY_MAX_RADIUS)
            return fv_fail(FV_ERR_ARG, "%s: sigma %g needs radius %d, at most %d", who, sigma,
                           radius, FV_CANNY_MAX_RADIUS);
        fv_gaussian_taps t;
        fv_gaussian_taps_fill(sigma, radius, &t);
        c->radius = t.radius;
        memcpy(c->w, t.w, sizeof(int) * (size_t)(2 * t.radius + 1));
    }
    return FV_OK;
}

int canny_config_make(const fv_params *p, void *config, char *why, size_t why_size)
{
    if (canny_config_fill(p, "canny", config) == FV_OK) return 1;
    const char *message = fv_last_error(); /* "canny: why": the registry names the filter */
    snprintf(why, why_size, "%s", strncmp(message, "canny: ", 7) ? message : message + 7);
    return 0;
}

void canny_resolve(fv_params *p)
{
    if (p->value[CANNY_LOW] == 0)
        p->value[CANNY_LOW] = canny_default_threshold(p->type, FV_CANNY_DEFAULT_LOW);
    if (p->value[CANNY_HIGH] == 0)
        p->value[CANNY_HIGH] = canny_default_threshold(p->type, FV_CANNY_DEFAULT_HIGH);
}

/* ---- one code path for the three types ---------------------------------------------------- */
typedef struct canny_num {
    fv_pixel_type type;
    double top; /* 255, 65535, 1 */
} canny_num;

/* an operation's result: exact for the integer types, float32's own rounding for float */
static double num(const canny_num *t, double v)
{
    return t->type == FV_PIXEL_F32 ? (double)(float)v : v;
}

static double channel_at(const fv_image *img, int x, int y, int c)
{
    const uint8_t *row = img->data + (size_t)y * img->pitch;
    const size_t i = 4 * (size_t)x + (size_t)c;
    switch (img->type) {
    case FV_PIXEL_U16: return ((const uint16_t *)row)[i];
    case FV_PIXEL_F32: return ((const float *)row)[i];
    case FV_PIXEL_U8:
    default: return row[i];
    }
}

static void store(const fv_image *img, int x, int y, int c, double v)
{
    uint8_t *row = img->data + (size_t)y * img->pitch;
    const size_t i = 4 * (size_t)x + (size_t)c;
    switch (img->type) {
    case FV_PIXEL_U16: ((uint16_t *)row)[i] = (uint16_t)v; break;
    case FV_PIXEL_F32: ((float *)row)[i] = (float)v; break;
    case FV_PIXEL_U8:
    default: row[i] = (uint8_t)v; break;
    }
}

/* gray: integers (9798 R + 19235 G + 3735 B + 2^14) >> 15; float ((9798 R + 19235 G) + 3735 B)
 * times 2^-15, each step rounded */
static double gray_of(const canny_num *t, double r, double g, double b)
{
    if (t->type != FV_PIXEL_F32) return floor((9798 * r + 19235 * g + 3735 * b + 16384) / 32768);
    const double s = num(t, num(t, 9798 * r) + num(t, 19235 * g));
    return num(t, num(t, s + num(t, 3735 * b)) / 32768);
}

/* the largest r with r * r <= v, for integer v < 2^53 */
static double isqrt_of(double v)
{
    double r = floor(sqrt(v));
    while (r > 0 && r * r > v) r--;
    while ((r + 1) * (r + 1) <= v) r++;
    return r;
}

/* image plane `a` at (x, y) extended by the border (constant: cval) */
static double at(const double *a, int x, int y, int w, int h, const canny_config *c)
{
    const int xx = fv_border_index(x, w, c->border), yy = fv_border_index(y, h, c->border);
    return xx < 0 || yy < 0 ? c->cval : a[(size_t)yy * w + xx];
}

/* the shown magnitude: half of it (l2: of its root), integers floored and saturated */
static double magnitude_shown(const canny_num *t, double m, int l2)
{
    if (t->type == FV_PIXEL_F32) return num(t, (l2 ? num(t, sqrt(m)) : m) * 0.5);
    const double v = floor((l2 ? isqrt_of(m) : m) / 2);
    return v > t->top ? t->top : v;
}

/* The exact sector test of canny_sector on any numbers (exact in double for every type). */
static int sector_of(double dx, double dy)
{
    const double ax = fabs(dx), ay = fabs(dy) * 32768.0, tg22x = ax * CANNY_TG22;
    if (ay < tg22x) return 0;
    if (ay > tg22x + ax * 65536.0) return 1;
    return (dx < 0) != (dy < 0) ? 3 : 2;
}

static void store_rgb(fv_image *dst, int x, int y, double r, double g, double b, double top)
{
    store(dst, x, y, 0, r);
    store(dst, x, y, 1, g);
    store(dst, x, y, 2, b);
    store(dst, x, y, 3, top);
}

fv_status canny_ref(const fv_image *src, fv_image *dst, const void *config)
{
    const canny_config c = *(const canny_config *)config;
    const canny_num t = {c.type, fv_pixel_type_max(c.type)};
    const int w = src->width, h = src->height, r = c.radius;
    const size_t n = (size_t)w * h;
    double *gray = malloc(n * sizeof(double)), *blur = malloc(n * sizeof(double));
    double *rows = malloc(n * sizeof(double)), *mag = malloc(n * sizeof(double));
    uint8_t *sector = malloc(n), *keep = malloc(n);
    int *queue = malloc(n * sizeof(int));
    unsigned *label = malloc(n * sizeof(unsigned));
    fv_status st = FV_OK;
    if (!gray || !blur || !rows || !mag || !sector || !keep || !queue || !label) {
        st = fv_fail(FV_ERR_MEMORY, "canny: out of host memory for a %dx%d image", w, h);
        goto done;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            gray[(size_t)y * w + x] = gray_of(&t, channel_at(src, x, y, 0),
                                              channel_at(src, x, y, 1), channel_at(src, x, y, 2));
    /* blur: each row's sum in order, then each column's sum of row sums in order (integers: the
     * exact 2-D sum); a row past a constant edge is all cval */
    double cval_row = 0;
    for (int j = -r; j <= r; j++) cval_row = num(&t, cval_row + num(&t, c.w[r + j] * c.cval));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0;
            for (int j = -r; j <= r; j++)
                s = num(&t, s + num(&t, c.w[r + j] * at(gray, x + j, y, w, h, &c)));
            rows[(size_t)y * w + x] = s;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double s = 0;
            if (r == 0) {
                blur[(size_t)y * w + x] = gray[(size_t)y * w + x];
                continue;
            }
            for (int i = -r; i <= r; i++) {
                const int yy = fv_border_index(y + i, h, c.border);
                const double row = yy < 0 ? cval_row : rows[(size_t)yy * w + x];
                s = num(&t, s + num(&t, c.w[r + i] * row));
            }
            blur[(size_t)y * w + x] =
                t.type == FV_PIXEL_F32 ? num(&t, s / 65536) : floor((s + 32768) / 65536);
        }
    /* Sobel: dx = ((((v02 + 2 v12) + v22) - v00) - 2 v10) - v20, dy likewise from v20 */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double v[3][3];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) v[i][j] = at(blur, x + j - 1, y + i - 1, w, h, &c);
            double dx = num(&t, v[0][2] + 2 * v[1][2]);
            dx = num(&t, num(&t, num(&t, dx + v[2][2]) - v[0][0]) - 2 * v[1][0]);
            dx = num(&t, dx - v[2][0]);
            double dy = num(&t, v[2][0] + 2 * v[2][1]);
            dy = num(&t, num(&t, num(&t, dy + v[2][2]) - v[0][0]) - 2 * v[0][1]);
            dy = num(&t, dy - v[0][2]);
            mag[(size_t)y * w + x] =
                c.l2 ? num(&t, num(&t, dx * dx) + num(&t, dy * dy)) : num(&t, fabs(dx) + fabs(dy));
            sector[(size_t)y * w + x] = (uint8_t)sector_of(dx, dy);
        }
    double kmin = 0, kmax = 0;
    int any = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int s = sector[(size_t)y * w + x];
            const double m = mag[(size_t)y * w + x];
            int ax, ay, bx, by;
            canny_neighbours(s, &ax, &ay, &bx, &by);
            const int xa = x + ax, ya = y + ay, xb = x + bx, yb = y + by;
            const double ma = xa >= 0 && xa < w && ya >= 0 && ya < h ? mag[(size_t)ya * w + xa] : 0;
            const double mb = xb >= 0 && xb < w && yb >= 0 && yb < h ? mag[(size_t)yb * w + xb] : 0;
            const int k = m > ma && (s < 2 ? m >= mb : m > mb); /* canny_nms_keeps; NaN: never */
            keep[(size_t)y * w + x] = (uint8_t)k;
            if (k) {
                kmin = any && kmin < m ? kmin : m;
                kmax = any && kmax > m ? kmax : m;
                any = 1;
            }
        }
    double lowc = c.lowc, highc = c.highc;
    if (c.auto_thresholds) {
        /* min + 1 % and min + 20 % of the kept magnitudes' range (l2: of their roots) */
        const int f = t.type == FV_PIXEL_F32;
        const double lo = c.l2 ? (f ? num(&t, sqrt(kmin)) : isqrt_of(kmin)) : kmin;
        const double hi = c.l2 ? (f ? num(&t, sqrt(kmax)) : isqrt_of(kmax)) : kmax;
        const double range = num(&t, hi - lo);
        const double low = f ? num(&t, lo + num(&t, range / 100)) : lo + floor(range / 100);
        const double high = f ? num(&t, lo + num(&t, range / 5)) : lo + floor(range / 5);
        lowc = c.l2 ? num(&t, low * low) : low;
        highc = c.l2 ? num(&t, high * high) : high;
    }
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++) {
        label[i] =
            !keep[i] || !(mag[i] > lowc) ? CANNY_NONE : (mag[i] > highc ? 0u : (unsigned)c.cap);
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
    /* the display, in the image's type (canny.h) */
    const double amber =
        t.type == FV_PIXEL_F32 ? (double)(float)(160.0 / 255.0) : 160 * t.top / 255;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * w + x;
            double v = 0;
            switch (c.stage) {
            case CANNY_GRAY: store_rgb(dst, x, y, gray[i], gray[i], gray[i], t.top); break;
            case CANNY_BLUR: store_rgb(dst, x, y, blur[i], blur[i], blur[i], t.top); break;
            case CANNY_MAGNITUDE:
            case CANNY_NMS:
                v = c.stage == CANNY_NMS && !keep[i] ? 0 : magnitude_shown(&t, mag[i], c.l2);
                store_rgb(dst, x, y, v, v, v, t.top);
                break;
            case CANNY_DIRECTION: {
                const int s = sector[i];
                v = magnitude_shown(&t, mag[i], c.l2);
                store_rgb(dst, x, y, s == 0 || s == 3 ? v : 0, s == 1 || s == 3 ? v : 0,
                          s == 2 ? v : 0, t.top);
                break;
            }
            case CANNY_THRESHOLD_MAP:
                if (label[i] == CANNY_NONE)
                    store_rgb(dst, x, y, 0, 0, 0, t.top);
                else
                    store_rgb(dst, x, y, t.top, label[i] == 0 ? t.top : amber,
                              label[i] == 0 ? t.top : 0, t.top);
                break;
            default:
                v = label[i] < (unsigned)c.cap ? t.top : 0;
                store_rgb(dst, x, y, v, v, v, t.top);
                break;
            }
        }
done:
    free(gray);
    free(blur);
    free(rows);
    free(mag);
    free(sector);
    free(keep);
    free(queue);
    free(label);
    return st;
}
