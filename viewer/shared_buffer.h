/* ------------------------------------------------------------------------------------------------
 * viewer/shared_buffer.h: device memory that CUDA and OpenGL share without per-frame mapping.
 * CUDA allocates it (cuMemCreate, exportable as a file descriptor), OpenGL imports it
 * (GL_EXT_memory_object_fd) as a buffer that the image shader reads as a buffer texture. The
 * kernels write it, the shader samples it: no map/unmap, no copy. Ordering is by the frame loop:
 * CUDA work is complete before GL draws (the diff synchronises), and a GL fence is waited on
 * before CUDA writes again.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_SHARED_BUFFER_H
#define FV_SHARED_BUFFER_H

#include "filter.h"

#include <GL/glew.h>

typedef struct shared_buffer {
    unsigned long long handle;   /* CUmemGenericAllocationHandle */
    unsigned long long address;  /* CUdeviceptr */
    size_t size;
    GLuint memory, buffer, texture; /* GL memory object, buffer on it, buffer texture (RGBA8) */
} shared_buffer;

/* Shared storage for a width x height RGBA8 image with rows of `pitch` bytes. Fails with a
 * message (missing extension, driver, size) so that the caller can fall back. */
fv_status shared_buffer_create(shared_buffer *s, int width, int height, size_t pitch);
void shared_buffer_destroy(shared_buffer *s);

#endif
