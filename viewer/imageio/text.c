/* ------------------------------------------------------------------------------------------------
 * viewer/imageio/text.c: image_printable, which makes a file name or a library's message safe to
 * print (control characters and invalid UTF-8 as \xNN). Apart so that the codecs and the rest
 * of the program can use it without calling back into image_io.c.
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

void image_printable(const char *text, char *buf, size_t size)
{
    if (size == 0) return;
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), o = 0;
    for (size_t i = 0; i < len;) {
        size_t n = s[i] >= 0x20 && s[i] < 0x7f ? 1
                   : s[i] >= 0x80              ? utf8_printable_length(s + i, len - i)
                                               : 0;
        if (n) {
            if (o + n >= size) break;
            memcpy(buf + o, s + i, n);
            o += n;
            i += n;
        } else {
            if (o + 4 >= size) break;
            snprintf(buf + o, 5, "\\x%02x", s[i]);
            o += 4;
            i++;
        }
    }
    buf[o] = 0;
}
