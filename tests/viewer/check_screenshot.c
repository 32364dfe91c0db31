/* ------------------------------------------------------------------------------------------------
 * tests/viewer/check_screenshot.c: checks a viewer screenshot by content (RGB, exact), for replayed
 * viewer runs at zoom 1:1 with the HUD hidden:
 *   check_screenshot single SHOT A.png          the shot is pane A's image
 *   check_screenshot wipe   SHOT A.png B.png    left half is A, right half is B
 *   check_screenshot side   SHOT A.png B.png    left half of the window is A, right half B
 *   check_screenshot uniform SHOT IMAGE.png     the difference view of two equal panes at 1:1 in a
 *                                               window larger than the image: a black rectangle
 *                                               (|A-B| = 0 is the heat map's black) of IMAGE's
 *                                               size, and around it one other colour (the clear
 *                                               colour): a frame of one colour fails
 *   check_screenshot drawn SHOT                 a HUD screenshot: several colours, not one
 *   check_screenshot near SHOT OTHER.png        the same picture drawn another way (zoomed out,
 *                                               so filtered): no channel differs by more than 2
 * No mode passes a blank frame: every shot, and every picture it is compared with, must show more
 * than one colour (a blank reference would make a blank frame pass). Ends with "N passed, N failed".
 * ------------------------------------------------------------------------------------------------ */
#include "test_util.h"

#include <stb_image.h>

static test_counts t;

static int load(const char *path, fv_image *img)
{
    int w, h, n;
    uint8_t *d = stbi_load(path, &w, &h, &n, 4);
    test_check(&t, d != NULL, "loads", path);
    if (!d) return 0;
    img->data = d;
    img->width = w;
    img->height = h;
    img->pitch = (size_t)w * 4;
    return 1;
}

/* shot columns [x0, x0 + w) against ref columns [rx0, rx0 + w), all rows; RGB only */
static void same_region(const fv_image *shot, int x0, const fv_image *ref, int rx0, int w,
                        const char *what)
{
    long bad = 0;
    int fx = -1, fy = -1;
    for (int y = 0; y < ref->height && y < shot->height; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 3; c++)
                if (shot->data[(size_t)y * shot->pitch + 4 * (size_t)(x0 + x) + c] !=
                    ref->data[(size_t)y * ref->pitch + 4 * (size_t)(rx0 + x) + c]) {
                    if (!bad++) {
                        fx = x0 + x;
                        fy = y;
                    }
                }
    char detail[160];
    snprintf(detail, sizeof detail, "%s: %ld channel values differ, first at (%d, %d)", what, bad,
             fx, fy);
    test_check(&t, bad == 0 && shot->height == ref->height,
               "screenshot region equals its pane:", detail);
}

static int same_rgb(const fv_image *img, int x, int y, const uint8_t rgb[3])
{
    return memcmp(img->data + (size_t)y * img->pitch + 4 * (size_t)x, rgb, 3) == 0;
}

/* 1 when the picture shows more than one colour (RGB) */
static int not_blank(const fv_image *img)
{
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            if (!same_rgb(img, x, y, img->data)) return 1;
    return 0;
}

static void check_not_blank(const fv_image *img, const char *path)
{
    test_check(&t, not_blank(img), "shows more than one colour (not a blank frame):", path);
}

/* The difference view of equal panes: the image's rectangle black (image.frag's heat(0)), the
 * rest of the window one other colour. */
static void check_uniform(const fv_image *shot, const fv_image *image)
{
    static const uint8_t black[3] = {0, 0, 0};
    int x0 = shot->width, y0 = shot->height, x1 = -1, y1 = -1;
    for (int y = 0; y < shot->height; y++)
        for (int x = 0; x < shot->width; x++)
            if (same_rgb(shot, x, y, black)) {
                x0 = x < x0 ? x : x0;
                y0 = y < y0 ? y : y0;
                x1 = x > x1 ? x : x1;
                y1 = y > y1 ? y : y1;
            }
    char detail[200];
    snprintf(detail, sizeof detail,
             "black from (%d, %d) to (%d, %d) in a %dx%d shot, the image %dx%d", x0, y0, x1, y1,
             shot->width, shot->height, image->width, image->height);
    /* the pixels around the rectangle are not black: it holds every black one */
    test_check(&t, x1 - x0 + 1 == image->width && y1 - y0 + 1 == image->height,
               "the difference |A-B| = 0 is a black rectangle of the image's size:", detail);
    test_check(&t, shot->width > image->width || shot->height > image->height,
               "the window is larger than the image (so that the view is told from a blank frame):",
               detail);
    long inside_other = 0, outside_other = 0, outside = 0;
    const uint8_t *around = NULL;
    for (int y = 0; y < shot->height; y++)
        for (int x = 0; x < shot->width; x++) {
            if (x >= x0 && x <= x1 && y >= y0 && y <= y1) {
                inside_other += !same_rgb(shot, x, y, black);
                continue;
            }
            outside++;
            if (!around) around = shot->data + (size_t)y * shot->pitch + 4 * (size_t)x;
            outside_other += !same_rgb(shot, x, y, around);
        }
    snprintf(detail, sizeof detail,
             "%ld pixels of the image's rectangle are not black; %ld of the %ld around it "
             "differ from the first of them",
             inside_other, outside_other, outside);
    test_check(&t, inside_other == 0 && outside > 0 && outside_other == 0,
               "|A-B| = 0 everywhere, framed by one other colour:", detail);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(
            stderr,
            "usage: check_screenshot single|wipe|side|uniform|drawn|near SHOT [A.png [B.png]]\n");
        return 2;
    }
    const char *mode = argv[1];
    fv_image shot = {0}, a = {0}, b = {0};
    if (!load(argv[2], &shot) || (argc > 3 && !load(argv[3], &a)) ||
        (argc > 4 && !load(argv[4], &b)))
        goto done;
    if (strcmp(mode, "uniform") != 0) { /* uniform's IMAGE gives its size alone */
        check_not_blank(&shot, argv[2]);
        if (a.data) check_not_blank(&a, argv[3]);
        if (b.data) check_not_blank(&b, argv[4]);
    }
    if (!strcmp(mode, "single") && a.data) {
        test_check(&t, shot.width == a.width, "shot as wide as A", NULL);
        same_region(&shot, 0, &a, 0, a.width, "whole window vs A");
    } else if (!strcmp(mode, "wipe") && b.data) {
        int half = shot.width / 2;
        test_check(&t, shot.width == a.width, "shot as wide as the image", NULL);
        same_region(&shot, 0, &a, 0, half, "left of the divider vs A");
        same_region(&shot, half, &b, half, shot.width - half, "right of the divider vs B");
    } else if (!strcmp(mode, "side") && b.data) {
        int half = shot.width / 2;
        test_check(&t, half == a.width, "each half as wide as the image", NULL);
        same_region(&shot, 0, &a, 0, a.width, "left half vs A");
        same_region(&shot, half, &b, 0, b.width, "right half vs B");
    } else if (!strcmp(mode, "drawn")) {
        long differ = 0;
        for (int y = 0; y < shot.height; y++)
            for (int x = 0; x < shot.width; x++)
                differ +=
                    memcmp(shot.data + (size_t)y * shot.pitch + 4 * (size_t)x, shot.data, 3) != 0;
        test_check(&t, differ > (long)shot.width * shot.height / 4,
                   "the screenshot shows something", NULL);
    } else if (!strcmp(mode, "near") && a.data) {
        int max_diff = 0;
        long differing = 0;
        test_check(&t, shot.width == a.width && shot.height == a.height, "shots of the same size",
                   NULL);
        for (int y = 0; y < shot.height && y < a.height; y++)
            for (int x = 0; x < shot.width && x < a.width; x++)
                for (int c = 0; c < 3; c++) {
                    int d = abs(shot.data[(size_t)y * shot.pitch + 4 * (size_t)x + c] -
                                a.data[(size_t)y * a.pitch + 4 * (size_t)x + c]);
                    if (d > max_diff) max_diff = d;
                    differing += d != 0;
                }
        char detail[96];
        snprintf(detail, sizeof detail, "largest channel difference %d, %ld channel values differ",
                 max_diff, differing);
        test_check(&t, max_diff <= 2, "the two renderings agree within 2 levels:", detail);
        printf("near: %s\n", detail);
    } else if (!strcmp(mode, "uniform") && a.data) {
        check_uniform(&shot, &a);
    } else {
        fprintf(stderr, "check_screenshot: bad mode or missing images\n");
        return 2;
    }
done: /* freed, so that a leak checker sees none of ours */
    stbi_image_free(shot.data);
    stbi_image_free(a.data);
    stbi_image_free(b.data);
    return test_finish(&t);
}
