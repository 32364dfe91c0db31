/* consumer.c: a box filter through libfilterview from a program of its own (the reference on the
 * host, so that it runs anywhere; the fastest variant too where there is a GPU). */
#include <libfilterview.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    enum { W = 64, H = 48 };
    static unsigned char src[H][W][3], dst[H][W][3];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) src[y][x][0] = src[y][x][1] = src[y][x][2] = (x * 7 + y * 13) & 255;
    filterview_image in = {.size = sizeof in, .data = src, .width = W, .height = H,
                           .pitch = W * 3, .channels = 3, .memory = FILTERVIEW_HOST};
    filterview_image out = in;
    out.data = dst;
    char error[256];
    filterview_context *ctx = NULL;
    if (filterview_context_create(&ctx, "box", "cpu", W, H, "radius=4", error, sizeof error) != FV_OK) {
        fprintf(stderr, "consumer: %s\n", error);
        return 1;
    }
    if (filterview_run(ctx, &in, &out, NULL) != FV_OK) {
        fprintf(stderr, "consumer: %s\n", filterview_context_error(ctx));
        return 1;
    }
    printf("consumer: libfilterview %s, %d filters, box/%s (%s): pixel (10,10) %d -> %d\n",
           filterview_version(), filterview_filter_count(), filterview_context_variant(ctx),
           filterview_context_params(ctx), src[10][10][0], dst[10][10][0]);
    filterview_context_destroy(ctx);
    return 0;
}
