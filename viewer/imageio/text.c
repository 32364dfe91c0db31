/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/text.c: image_printable, which makes a file name or a library's message safe to
 * print (control characters and invalid UTF-8 as \xNN; a text too long for the buffer loses its
 * middle, not its end). Apart so that the codecs and the rest of the program can use it without
 * calling back into image_io.c.
 * ------------------------------------------------------------------------------------------------ */
#include "image_io.h"

#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most `left` bytes) that is no C1 control; 0 if
 * there is none. */
static size_t utf8_printable_length(const unsigned char *s, size_t left)
{
    unsigned c = s[0];
    size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    if (n == 0 || n > left) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (n == 2 && c == 0xc2 && s[1] < 0xa0) return 0;  /* U+0080..U+009F */
    if (n == 3 && c == 0xe0 && s[1] < 0xa0) return 0;  /* overlong */
    if (n == 3 && c == 0xed && s[1] >= 0xa0) return 0; /* surrogates */
    if (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))) return 0;
    return n;
}

/* The byte sequence at s (left bytes remain) as shown: its length in the text (*n) and on
 * screen (the return): itself, or \xNN per byte that is a control or not valid UTF-8. */
static size_t shown_token(const unsigned char *s, size_t left, size_t *n)
{
    *n = s[0] >= 0x20 && s[0] < 0x7f ? 1 : s[0] >= 0x80 ? utf8_printable_length(s, left) : 0;
    if (*n) return *n;
    *n = 1;
    return 4;
}

static size_t put_token(const unsigned char *s, size_t n, size_t shown, char *buf, size_t o)
{
    if (shown == n)
        memcpy(buf + o, s, n);
    else
        snprintf(buf + o, 5, "\\x%02x", s[0]);
    return o + shown;
}

void image_printable(const char *text, char *buf, size_t size)
{
    if (size == 0) return;
    const unsigned char *s = (const unsigned char *)text;
    const size_t len = strlen(text);
    size_t total = 0, n = 0, o = 0;
    for (size_t i = 0; i < len; i += n) total += shown_token(s + i, len - i, &n);
    /* too long: the middle gives way ("/very/long/...ending.png"), so that both ends of a path
     * show and a message that quotes it keeps its reason */
    const int cut = total >= size && size >= 16;
    const size_t tail = cut ? (size - 1 - 3) / 2 : 0, head = cut ? size - 1 - 3 - tail : size - 1;
    size_t i = 0;
    for (size_t shown; i < len; i += n) {
        shown = shown_token(s + i, len - i, &n);
        if (o + shown > head) break;
        o = put_token(s + i, n, shown, buf, o);
    }
    if (cut) {
        memcpy(buf + o, "...", 3);
        o += 3;
        size_t at = 0, shown = 0;
        for (i = 0; i < len;
             i += n, at += shown) { /* the first sequence that ends the text in tail */
            shown = shown_token(s + i, len - i, &n);
            if (at >= total - tail) break;
        }
        for (; i < len; i += n) {
            shown = shown_token(s + i, len - i, &n);
            o = put_token(s + i, n, shown, buf, o);
        }
    }
    buf[o] = 0;
}
