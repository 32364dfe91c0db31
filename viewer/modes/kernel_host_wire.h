/* ------------------------------------------------------------------------------------------------
 * viewer/modes/kernel_host_wire.h: what the viewer and its kernel host (kernel_host.c) send each
 * other over their socket: one fixed-size request, then (a prepare's or a check's) the kernel's code
 * and the image parameters' pixels, packed RGBA in parameter order, and (a check's) the image it
 * runs on, RGBA; one fixed-size reply (a check's: two, set up and run). Both sides are
 * this program, so the layout is the compiler's. Private to kernel_host.c and its test
 * (tests/cpu/test_kernel_host.c).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_KERNEL_HOST_WIRE_H
#define FV_KERNEL_HOST_WIRE_H

#include "kernel_host.h"

#include <stdint.h>

#define HOST_MAGIC     0x66766b68u /* "fvkh" */
#define MAX_CODE_BYTES (64u << 20)
#define MAX_IMAGE_SIDE 1024 /* an image parameter (conv's kernel file) is far smaller */

enum { OP_PREPARE = 1, OP_RUN, OP_TIME, OP_RELEASE_ALL, OP_CHECK };

typedef struct host_request {
    uint32_t magic, op;
    int32_t slot, runs;
    /* OP_PREPARE: the build (its code follows), the parameters and the two images */
    char filter[64], name[128], path[1024], arch[32];
    int32_t is_ptx, two_pass, has_launch;
    uint64_t code_size;
    double value[FV_MAX_PARAMS];
    int32_t iterations;
    int32_t image_width[FV_MAX_PARAMS], image_height[FV_MAX_PARAMS]; /* 0: none; RGBA follows */
    int32_t width, height; /* OP_CHECK: at most KERNEL_CHECK_MAX_SIDE each */
    cudaIpcMemHandle_t src, dst;
    uint64_t src_pitch, dst_pitch;
} host_request;

typedef struct host_reply {
    uint32_t magic;
    int32_t outcome; /* kernel_host_outcome */
    int32_t status;  /* the fv_status of a refusal */
    double ms;
    char message[1024];
    char resources[320];
} host_reply;

#endif
