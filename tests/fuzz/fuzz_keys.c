/* ------------------------------------------------------------------------------------------------
 * tests/fuzz/fuzz_keys.c: libFuzzer harness for the --keys parser (viewer/window/keys_replay.c). Any
 * text must parse into at most `max` key codes or fail with a message; a resize must fit the
 * packed key.
 * ------------------------------------------------------------------------------------------------ */
#include "app.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    int keys[MAX_KEYS];
    int n = keys_parse(text, keys, MAX_KEYS);
    if (n > MAX_KEYS) abort();
    for (int i = 0; i < n; i++)
        if ((keys[i] & KEY_RESIZE_FLAG) &&
            (KEY_RESIZE_W(keys[i]) > KEY_RESIZE_MAX || KEY_RESIZE_H(keys[i]) > KEY_RESIZE_MAX))
            abort();
    if (n < 0 && !fv_last_error()[0]) abort(); /* a refusal always says why */
    free(text);
    return 0;
}
