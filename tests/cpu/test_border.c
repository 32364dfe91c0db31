/* ------------------------------------------------------------------------------------------------
 * tests/cpu/test_border.c (label cpu): the one index mapping of the borders (kernels/core/border.h)
 * against hand-written tables of numpy.pad's modes (edge, symmetric, reflect, wrap) for rows of
 * 1, 2, 3 and 5 pixels, positions -9..13 (far enough outside for several periods), and the
 * constant border's -1. numpy.pad(mode='symmetric') is scipy.ndimage's 'reflect', 'reflect' its
 * 'mirror'. The tables are numpy's output, pasted: an answer from outside the code under test.
 * ------------------------------------------------------------------------------------------------ */
#include "core/border.h"

#include <stdio.h>
#include <string.h>

static int failed, checked;

/* numpy.pad(numpy.arange(n), (9, 14 - n), mode)[i + 9] for i in -9..13, numpy's output pasted */
static const int symmetric5[] = {1, 2, 3, 4, 4, 3, 2, 1, 0, 0, 1, 2,
                                 3, 4, 4, 3, 2, 1, 0, 0, 1, 2, 3};
static const int mirror5[] = {1, 0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3, 4, 3};
static const int wrap5[] = {1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3};
static const int edge5[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};
static const int symmetric3[] = {2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2,
                                 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1};
static const int mirror3[] = {1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1};
static const int wrap3[] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1};
static const int symmetric2[] = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1,
                                 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1};
static const int mirror2[] = {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};

static void check_table(const char *what, fv_border mode, int n, const int *want)
{
    for (int i = -9; i <= 13; i++) {
        const int got = fv_border_index(i, n, mode);
        checked++;
        if (got != want[i + 9]) {
            printf("FAIL: %s n=%d at %d: %d, numpy.pad says %d\n", what, n, i, got, want[i + 9]);
            failed++;
        }
    }
}

int main(void)
{
    check_table("reflect (numpy symmetric)", FV_BORDER_REFLECT, 5, symmetric5);
    check_table("mirror (numpy reflect)", FV_BORDER_MIRROR, 5, mirror5);
    check_table("wrap", FV_BORDER_WRAP, 5, wrap5);
    check_table("replicate (numpy edge)", FV_BORDER_REPLICATE, 5, edge5);
    check_table("reflect (numpy symmetric)", FV_BORDER_REFLECT, 3, symmetric3);
    check_table("mirror (numpy reflect)", FV_BORDER_MIRROR, 3, mirror3);
    check_table("wrap", FV_BORDER_WRAP, 3, wrap3);
    check_table("reflect (numpy symmetric)", FV_BORDER_REFLECT, 2, symmetric2);
    check_table("mirror (numpy reflect)", FV_BORDER_MIRROR, 2, mirror2);
    for (fv_border mode = 0; mode < FV_BORDER_COUNT; mode++) /* one pixel: every mode reads it */
        for (int i = -9; i <= 13; i++) {
            const int got = fv_border_index(i, 1, mode);
            const int want = mode == FV_BORDER_CONSTANT && i != 0 ? -1 : 0;
            checked++;
            if (got != want) {
                printf("FAIL: %s n=1 at %d: %d, expected %d\n", fv_border_names[mode], i, got,
                       want);
                failed++;
            }
        }
    for (int i = -9; i <= 13; i++) { /* constant: -1 outside, the index inside */
        const int got = fv_border_index(i, 5, FV_BORDER_CONSTANT);
        checked++;
        if (got != (i < 0 || i >= 5 ? -1 : i)) {
            printf("FAIL: constant n=5 at %d: %d\n", i, got);
            failed++;
        }
    }
    printf("%d passed, %d failed\n", checked - failed, failed);
    return failed != 0;
}
