/* ------------------------------------------------------------------------------------------------
 * viewer/window/keys_replay.c: the --keys text into key codes for the replay: plain characters, <Name>
 * for the keys that have no character, <WxH> for a window resize, <@X,Y> for the mouse pointer
 * moved to window pixel (X, Y) (the pixel probe), and two actions for tests of a
 * user kernel's live editing: <swap-source> (FILTERVIEW_SWAP_SOURCE's file saved over the pane's
 * kernel file) and <wait-compile> (the compile it starts, waited for). Plain C with no GL calls, so
 * that the fuzz harness (tests/fuzz/fuzz_keys.c) drives it alone.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include <GL/freeglut.h>
#include <ctype.h>
#include <string.h>

#define SPECIAL(k) KEY_SPECIAL(GLUT_KEY_##k)

static const struct {
    const char *name;
    int key;
} named_keys[] = {
    {"F1", SPECIAL(F1)},
    {"Tab", '\t'},
    {"Esc", 27},
    {"PgUp", SPECIAL(PAGE_UP)},
    {"PgDn", SPECIAL(PAGE_DOWN)},
    {"Left", SPECIAL(LEFT)},
    {"Right", SPECIAL(RIGHT)},
    {"Up", SPECIAL(UP)},
    {"Down", SPECIAL(DOWN)},
    {"Space", ' '},
    {"lt", '<'},
    /* not keys: replay actions for tests of a user kernel's live editing (user_panes.c) */
    {"wait-compile", KEY_WAIT_COMPILE},
    {"swap-source", KEY_SWAP_SOURCE},
};

/* Decimal digits at *p into *v, saturating above KEY_RESIZE_MAX (never wrapping); 0 if none. */
static int side_at(const char **p, long *v)
{
    if (!isdigit((unsigned char)**p)) return 0;
    *v = 0;
    for (; isdigit((unsigned char)**p); (*p)++)
        if (*v <= KEY_RESIZE_MAX) *v = *v * 10 + (**p - '0');
    return 1;
}

/* "<@X,Y>" at c, digits only: its length, or 0 where c holds something else */
static size_t pointer_at(const char *c, long *x, long *y)
{
    const char *p = c + 2;
    if (c[1] != '@' || !side_at(&p, x) || *p++ != ',' || !side_at(&p, y) || *p != '>') return 0;
    return (size_t)(p - c) + 1;
}

/* "<WxH>" at c, digits only: its length, or 0 where c holds something else */
static size_t resize_at(const char *c, long *w, long *h)
{
    const char *p = c + 1;
    if (!side_at(&p, w) || *p++ != 'x' || !side_at(&p, h) || *p != '>') return 0;
    return (size_t)(p - c) + 1;
}

int keys_parse(const char *text, int *out, int max)
{
    int n = 0;
    for (const char *c = text; *c; c++) {
        int key = (unsigned char)*c;
        long w = 0, h = 0;
        size_t used = 0;
        if (*c == '<' && (used = resize_at(c, &w, &h)) > 0) {
            if (w > KEY_RESIZE_MAX || h > KEY_RESIZE_MAX) {
                fv_fail(FV_ERR_ARG, "--keys: a window size from 0x0 to %dx%d, not %.*s",
                        KEY_RESIZE_MAX, KEY_RESIZE_MAX, (int)(used - 2), c + 1);
                return -1;
            }
            key = KEY_RESIZE((int)w, (int)h);
            c += used - 1;
        } else if (*c == '<' && (used = pointer_at(c, &w, &h)) > 0) {
            if (w > KEY_POINTER_MAX || h > KEY_POINTER_MAX) {
                fv_fail(FV_ERR_ARG, "--keys: a pointer position from 0,0 to %d,%d, not %.*s",
                        KEY_POINTER_MAX, KEY_POINTER_MAX, (int)(used - 3), c + 2);
                return -1;
            }
            key = KEY_POINTER((int)w, (int)h);
            c += used - 1;
        } else if (*c == '<') {
            const char *end = strchr(c, '>');
            key = -1;
            for (size_t i = 0; end && i < sizeof named_keys / sizeof named_keys[0]; i++)
                if ((size_t)(end - c - 1) == strlen(named_keys[i].name) &&
                    strncmp(c + 1, named_keys[i].name, (size_t)(end - c - 1)) == 0)
                    key = named_keys[i].key;
            if (key < 0) {
                fv_fail(FV_ERR_ARG,
                        "--keys: unknown key name at '%.40s' (known: <F1> <Tab> <Esc> "
                        "<PgUp> <PgDn> <Left> <Right> <Up> <Down> <Space> <lt> <wait-compile> "
                        "<swap-source>, a window size <WxH> or a pointer position <@X,Y>)",
                        c);
                return -1;
            }
            c = end;
        }
        if (n == max) {
            fv_fail(FV_ERR_ARG, "--keys: more than %d keys", max);
            return -1;
        }
        out[n++] = key;
    }
    return n;
}
