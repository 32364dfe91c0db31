/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_chart.c (label cpu): the benchmark's PNG charts (viewer/modes/chart.c). Renders a log-scale
 * line chart over radii with a series that misses points, a linear grouped bar chart over sizes,
 * and edge cases (one point, no data at all, values over nine decades, 16 series x 40 sizes, very
 * long names, the smallest size) into images fenced by canary bytes; checks that each series'
 * colour shows in a plausible number of pixels, that a missing point breaks its line, that bar
 * areas follow the values, that the border stays background and nothing is written outside the
 * image, and that bad descriptions fail with FV_ERR_ARG. With a directory as argv[1] it also
 * writes chart_lines.png and chart_bars.png there for a person to look at.
 * ------------------------------------------------------------------------------------------------ */
#include "chart.h"
#include "image_io.h"
#include "test_util.h"

#include <math.h>

#define CANARY        0xA5
#define GUARD_PAD     64 /* canary bytes after every row; a whole canary row before and after */
#define N_RADII       8
#define N_SIZES       4
#define N_BAR_SERIES  5
#define N_MANY_SERIES 16
#define N_MANY_X      40

static test_counts t;

/* An image whose rows are fenced by canary bytes, to catch any write outside it. */
typedef struct fenced {
    uint8_t *block;
    size_t bytes;
    fv_image img;
} fenced;

static void fenced_alloc(fenced *f, int w, int h)
{
    f->img.width = w;
    f->img.height = h;
    f->img.pitch = 4 * (size_t)w + GUARD_PAD;
    f->bytes = f->img.pitch * (size_t)(h + 2);
    f->block = malloc(f->bytes);
    if (!f->block) {
        printf("out of memory\n");
        exit(1);
    }
    memset(f->block, CANARY, f->bytes);
    f->img.data = f->block + f->img.pitch;
}

static int fenced_intact(const fenced *f)
{
    for (size_t i = 0; i < f->bytes; i++) {
        size_t row = i / f->img.pitch, col = i % f->img.pitch;
        int inside = row >= 1 && row <= (size_t)f->img.height && col < 4 * (size_t)f->img.width;
        if (!inside && f->block[i] != CANARY) return 0;
    }
    return 1;
}

static const uint8_t *px(const fv_image *img, int x, int y)
{
    return img->data + (size_t)y * img->pitch + 4 * (size_t)x;
}

static long count_color(const fv_image *img, const uint8_t c[4])
{
    long n = 0;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) n += memcmp(px(img, x, y), c, 4) == 0;
    return n;
}

/* The outermost rows and columns are white: nothing was drawn up to the edge. */
static int border_clean(const fv_image *img)
{
    static const uint8_t white[4] = {255, 255, 255, 255};
    for (int x = 0; x < img->width; x++)
        if (memcmp(px(img, x, 0), white, 4) || memcmp(px(img, x, img->height - 1), white, 4))
            return 0;
    for (int y = 0; y < img->height; y++)
        if (memcmp(px(img, 0, y), white, 4) || memcmp(px(img, img->width - 1, y), white, 4))
            return 0;
    return 1;
}

/* Renders c into a fenced image: checks FV_OK, the border and the fence; returns the image
 * (free f->block) or leaves f->block NULL when the render failed. */
static void render_checked(const char *name, const chart_desc *c, fenced *f)
{
    int w, h;
    chart_size(c, &w, &h);
    fenced_alloc(f, w, h);
    fv_status st = chart_render(c, &f->img);
    test_check(&t, st == FV_OK, name, st == FV_OK ? "" : fv_last_error());
    if (st != FV_OK) {
        free(f->block);
        f->block = NULL;
        return;
    }
    char what[256];
    snprintf(what, sizeof what, "%s: border is background", name);
    test_check(&t, border_clean(&f->img), what, NULL);
    snprintf(what, sizeof what, "%s: nothing written outside the image", name);
    test_check(&t, fenced_intact(f), what, NULL);
}

/* Series i's colour covers between lo and hi pixels. */
static void check_series_pixels(const char *name, const fenced *f, int i, long lo, long hi)
{
    uint8_t c[4];
    chart_series_color(i, c);
    long n = count_color(&f->img, c);
    char what[256], detail[64];
    snprintf(what, sizeof what, "%s: series %d colour in %ld..%ld pixels", name, i, lo, hi);
    snprintf(detail, sizeof detail, "(%ld)", n);
    test_check(&t, n >= lo && n <= hi, what, detail);
}

static void check_arg_error(const char *name, fv_status st)
{
    const char *msg = fv_last_error();
    int ok = st == FV_ERR_ARG && strncmp(msg, "chart: ", 7) == 0 && !strchr(msg, '\n');
    char what[256];
    snprintf(what, sizeof what, "error case %s: FV_ERR_ARG with a one-line \"chart: \" message",
             name);
    test_check(&t, ok, what, msg);
}

static void write_sample(const char *dir, const char *file, const chart_desc *c)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fv_status st = chart_write_png(path, c);
    test_check(&t, st == FV_OK, "chart_write_png", st == FV_OK ? path : fv_last_error());
    fv_image back;
    int w, h;
    chart_size(c, &w, &h);
    if (st == FV_OK && image_load(path, &back) == FV_OK) {
        test_check(&t, back.width == w && back.height == h, "written chart reads back at its size",
                   path);
        fv_host_image_free(&back);
    } else if (st == FV_OK) {
        test_check(&t, 0, "written chart reads back", fv_last_error());
    }
    printf("wrote %s\n", path);
}

int main(int argc, char **argv)
{
    /* (a) lines over radii, log y; "smem" is not measured at radius 8 and 128 */
    static const char *const radii[N_RADII] = {"1", "2", "4", "8", "16", "32", "64", "128"};
    static const double naive[N_RADII] = {0.021, 0.034, 0.061, 0.118, 0.231, 0.455, 0.902, 1.81};
    static const double smem[N_RADII] = {0.015, 0.019, 0.027, NAN, 0.071, 0.133, 0.26, 0};
    static const double fast[N_RADII] = {0.0094, 0.0101, 0.0122, 0.0161,
                                         0.0243, 0.0408, 0.074,  0.141};
    const chart_series line_series[] = {{"naive", naive}, {"smem", smem}, {"fast", fast}};
    chart_desc lines = {
        .title = "gaussian: ms per run against radius (sigma = radius / 3), 3840x2160",
        .subtitle = "NVIDIA H100 80GB HBM3, device copy 2900 GB/s, median of 50 runs",
        .x_label = "radius",
        .y_label = "ms per run (log scale)",
        .x_ticks = radii,
        .n_x = N_RADII,
        .series = line_series,
        .n_series = 3,
        .lines = 1,
        .log_y = 1};
    fenced f;
    render_checked("lines", &lines, &f);
    if (f.block) {
        for (int i = 0; i < 3; i++) check_series_pixels("lines", &f, i, 300, 30000);
        free(f.block);
    }

    /* a missing point breaks the line: two markers alone cover far less than a joined line */
    static const char *const three[] = {"a", "b", "c"};
    static const double joined[] = {1, 2, 3}, broken[] = {1, NAN, 3};
    long n_joined = 0, n_broken = 0;
    uint8_t c0[4];
    chart_series_color(0, c0);
    chart_series one_joined = {"s", joined}, one_broken = {"s", broken};
    chart_desc gap = {.title = "gap",
                      .x_label = "x",
                      .y_label = "y",
                      .x_ticks = three,
                      .n_x = 3,
                      .series = &one_joined,
                      .n_series = 1,
                      .lines = 1};
    render_checked("joined line", &gap, &f);
    if (f.block) n_joined = count_color(&f.img, c0), free(f.block);
    gap.series = &one_broken;
    render_checked("broken line", &gap, &f);
    if (f.block) n_broken = count_color(&f.img, c0), free(f.block);
    char detail[64];
    snprintf(detail, sizeof detail, "(%ld vs %ld pixels)", n_broken, n_joined);
    test_check(&t, n_broken > 0 && 3 * n_broken < n_joined,
               "a missing point leaves a gap in the line", detail);

    /* (b) grouped bars over sizes, linear: each series' bar area follows the sum of its values */
    static const char *const sizes[N_SIZES] = {"512x512", "1920x1080", "3840x2160", "9984x6400"};
    static double bar_y[N_BAR_SERIES][N_SIZES];
    chart_series bar_series[N_BAR_SERIES];
    static const char *const bar_names[N_BAR_SERIES] = {"naive", "smem", "smem_mwpt", "fast",
                                                        "npp"};
    double sums[N_BAR_SERIES] = {0};
    for (int i = 0; i < N_BAR_SERIES; i++) {
        for (int j = 0; j < N_SIZES; j++) {
            bar_y[i][j] = (0.4 + 0.1 * j) * (N_BAR_SERIES - i) / N_BAR_SERIES + 0.05 * j;
            sums[i] += bar_y[i][j];
        }
        bar_series[i] = (chart_series){bar_names[i], bar_y[i]};
    }
    chart_desc bars = {.title = "gaussian sigma 2 radius 6: all variants at four sizes",
                       .subtitle = "NVIDIA H100 80GB HBM3, device copy 2900 GB/s",
                       .x_label = "image size",
                       .y_label = "ms per run",
                       .x_ticks = sizes,
                       .n_x = N_SIZES,
                       .series = bar_series,
                       .n_series = N_BAR_SERIES,
                       .lines = 0,
                       .log_y = 0};
    render_checked("bars", &bars, &f);
    if (f.block) {
        long area[N_BAR_SERIES];
        for (int i = 0; i < N_BAR_SERIES; i++) {
            check_series_pixels("bars", &f, i, 2000, 100000);
            uint8_t c[4];
            chart_series_color(i, c);
            area[i] = count_color(&f.img, c);
        }
        for (int i = 1; i < N_BAR_SERIES; i++) {
            double want = sums[i] / sums[0], got = (double)area[i] / (double)area[0];
            snprintf(detail, sizeof detail, "(series %d: area ratio %.3f, values %.3f)", i, got,
                     want);
            test_check(&t, fabs(got - want) < 0.06 * want, "bar areas follow the values", detail);
        }
        free(f.block);
    }

    /* (c) edge cases */
    static const char *const single[] = {"1920x1080"};
    static const double one_value[] = {0.5};
    chart_series lone = {"only", one_value};
    chart_desc one = {.title = "one point",
                      .x_label = "size",
                      .y_label = "ms",
                      .x_ticks = single,
                      .n_x = 1,
                      .series = &lone,
                      .n_series = 1,
                      .lines = 1,
                      .log_y = 1};
    render_checked("one point, lines, log", &one, &f);
    if (f.block) check_series_pixels("one point", &f, 0, 30, 3000), free(f.block);
    one.lines = 0, one.log_y = 0;
    render_checked("one point, bars, linear", &one, &f);
    if (f.block) check_series_pixels("one bar", &f, 0, 1000, 200000), free(f.block);

    static const double none[N_RADII] = {0, -1, NAN, INFINITY, 0, 0, NAN, -INFINITY};
    chart_series empty[2] = {{"cpu", none}, {"fast", none}};
    chart_desc nothing = {.title = "nothing measured",
                          .x_label = "radius",
                          .y_label = "ms",
                          .x_ticks = radii,
                          .n_x = N_RADII,
                          .series = empty,
                          .n_series = 2,
                          .lines = 1,
                          .log_y = 1};
    for (int kind = 0; kind < 4; kind++) {
        nothing.lines = kind & 1, nothing.log_y = kind >> 1;
        render_checked("no data", &nothing, &f);
        /* only the legend swatches carry the colours */
        if (f.block) {
            check_series_pixels("no data", &f, 0, 1, 1500);
            check_series_pixels("no data", &f, 1, 1, 1500);
            free(f.block);
        }
    }

    static const double wide[N_RADII] = {1e-4, 3e-3, 0.2, 7, 150, 4000, 2e4, 1e5};
    static const double wide2[N_RADII] = {2e-4, NAN, 0.5, 20, NAN, 9000, 5e4, NAN};
    chart_series span[2] = {{"wide", wide}, {"wide2", wide2}};
    chart_desc huge = {.title = "nine decades",
                       .x_label = "radius",
                       .y_label = "ms (log scale)",
                       .x_ticks = radii,
                       .n_x = N_RADII,
                       .series = span,
                       .n_series = 2,
                       .lines = 1,
                       .log_y = 1};
    render_checked("1e-4..1e5, log", &huge, &f);
    if (f.block) check_series_pixels("1e-4..1e5", &f, 0, 300, 30000), free(f.block);
    huge.log_y = 0, huge.lines = 0;
    render_checked("1e-4..1e5, linear bars", &huge, &f);
    if (f.block) free(f.block);

    static double many_y[N_MANY_SERIES][N_MANY_X];
    static char many_names[N_MANY_SERIES][64], x_names[N_MANY_X][16];
    chart_series many[N_MANY_SERIES];
    const char *many_x[N_MANY_X];
    uint32_t seed = test_seed();
    for (int j = 0; j < N_MANY_X; j++) {
        snprintf(x_names[j], sizeof x_names[j], "%dx%d", 64 * (j + 1), 48 * (j + 1));
        many_x[j] = x_names[j];
    }
    for (int i = 0; i < N_MANY_SERIES; i++) {
        snprintf(many_names[i], sizeof many_names[i], "filter%02d/variant", i);
        for (int j = 0; j < N_MANY_X; j++) {
            double jitter = 1 + test_rand(&seed) % 100 / 400.0;
            many_y[i][j] = test_rand(&seed) % 17 == 0 ? NAN : 0.01 * (i + 1) * (j + 1) * jitter;
        }
        many[i] = (chart_series){many_names[i], many_y[i]};
    }
    chart_desc crowd = {.title = "16 series over 40 sizes",
                        .x_label = "image size",
                        .y_label = "ms per run (log scale)",
                        .x_ticks = many_x,
                        .n_x = N_MANY_X,
                        .series = many,
                        .n_series = N_MANY_SERIES,
                        .lines = 1,
                        .log_y = 1};
    render_checked("16 x 40 lines", &crowd, &f);
    if (f.block) {
        for (int i = 0; i < N_MANY_SERIES; i++)
            check_series_pixels("16 x 40 lines", &f, i, 100, 60000);
        free(f.block);
    }
    crowd.lines = 0, crowd.log_y = 0;
    render_checked("16 x 40 bars", &crowd, &f);
    if (f.block) free(f.block);
    crowd.width = crowd.height = CHART_MIN_SIDE;
    render_checked("16 x 40 at 100x100", &crowd, &f);
    if (f.block) free(f.block);

    static char long_text[600];
    memset(long_text, 'W', sizeof long_text - 1);
    long_text[5] = '\t'; /* not printable: must be drawn as something harmless */
    long_text[6] = (char)0xE9;
    chart_series long_series[2] = {{long_text, naive}, {"short", fast}};
    chart_desc longs = {.title = long_text,
                        .subtitle = long_text,
                        .x_label = long_text,
                        .y_label = long_text,
                        .x_ticks = radii,
                        .n_x = N_RADII,
                        .series = long_series,
                        .n_series = 2,
                        .lines = 1,
                        .log_y = 1};
    render_checked("very long names", &longs, &f);
    if (f.block) check_series_pixels("very long names", &f, 1, 300, 30000), free(f.block);
    const char *long_ticks[N_RADII];
    for (int j = 0; j < N_RADII; j++) long_ticks[j] = long_text;
    longs.x_ticks = long_ticks, longs.width = 150, longs.height = 120;
    render_checked("very long names, small", &longs, &f);
    if (f.block) free(f.block);

    chart_desc sized = lines;
    sized.width = CHART_MAX_SIDE, sized.height = CHART_MIN_SIDE;
    render_checked("8000x100", &sized, &f);
    if (f.block) free(f.block);

    /* errors */
    fv_image spare;
    fv_host_image_alloc(&spare, CHART_DEFAULT_WIDTH, CHART_DEFAULT_HEIGHT);
    chart_desc bad = lines;
    check_arg_error("NULL description", chart_render(NULL, &spare));
    check_arg_error("NULL image", chart_render(&lines, NULL));
    bad.width = 640;
    check_arg_error("image of another size", chart_render(&bad, &spare));
    bad.width = CHART_MIN_SIDE - 1;
    check_arg_error("width 99", chart_render(&bad, &spare));
    bad.width = CHART_MAX_SIDE + 1;
    check_arg_error("width 8001", chart_render(&bad, &spare));
    bad.width = -5;
    check_arg_error("width -5", chart_write_png("/tmp/never.png", &bad));
    bad = lines, bad.height = 50;
    check_arg_error("height 50", chart_render(&bad, &spare));
    bad = lines, bad.n_x = 0;
    check_arg_error("n_x 0", chart_render(&bad, &spare));
    bad = lines, bad.n_series = 0;
    check_arg_error("n_series 0", chart_render(&bad, &spare));
    bad = lines, bad.n_series = -1;
    check_arg_error("n_series -1", chart_render(&bad, &spare));
    bad = lines, bad.title = NULL;
    check_arg_error("NULL title", chart_render(&bad, &spare));
    bad = lines, bad.x_ticks = NULL;
    check_arg_error("NULL x_ticks", chart_render(&bad, &spare));
    bad = lines, bad.series = NULL;
    check_arg_error("NULL series", chart_render(&bad, &spare));
    chart_series null_y[3] = {{"naive", naive}, {"smem", NULL}, {"fast", fast}};
    bad = lines, bad.series = null_y;
    check_arg_error("NULL values", chart_render(&bad, &spare));
    chart_series null_name[3] = {{"naive", naive}, {NULL, smem}, {"fast", fast}};
    bad = lines, bad.series = null_name;
    check_arg_error("NULL name", chart_render(&bad, &spare));
    check_arg_error("NULL path", chart_write_png(NULL, &lines));
    check_arg_error("NULL description to write", chart_write_png("/tmp/never.png", NULL));
    fv_status st = chart_write_png("/tmp/chart-not-a-png.txt", &lines);
    test_check(&t, st == FV_ERR_ARG, "writing to a name without .png fails with FV_ERR_ARG",
               fv_last_error());

    /* the default size is 1200 x 700 */
    st = chart_render(&lines, &spare);
    test_check(&t, st == FV_OK && border_clean(&spare), "0 x 0 renders 1200 x 700",
               fv_last_error());
    fv_host_image_free(&spare);

    if (argc > 1) {
        write_sample(argv[1], "chart_lines.png", &lines);
        write_sample(argv[1], "chart_bars.png", &bars);
    }
    return test_finish(&t);
}
