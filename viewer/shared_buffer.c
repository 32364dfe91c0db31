/* ------------------------------------------------------------------------------------------------
 * viewer/shared_buffer.c: see shared_buffer.h. The CUDA driver calls are looked up at run time
 * through the runtime (cudaGetDriverEntryPointByVersion), so filterview does not link libcuda
 * and still starts where there is no driver (CI).
 * ------------------------------------------------------------------------------------------------ */
#include "shared_buffer.h"

#include <cuda.h>
#include <string.h>
#include <unistd.h>

typedef struct driver_api {
    CUresult (*mem_get_granularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
    CUresult (*mem_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
    CUresult (*mem_export)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
    CUresult (*mem_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*mem_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*mem_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*mem_unmap)(CUdeviceptr, size_t);
    CUresult (*mem_free_address)(CUdeviceptr, size_t);
    CUresult (*mem_release)(CUmemGenericAllocationHandle);
} driver_api;

static fv_status load_driver_api(driver_api *d)
{
    struct { const char *name; void **fn; } entries[] = {
        {"cuMemGetAllocationGranularity", (void **)&d->mem_get_granularity},
        {"cuMemCreate", (void **)&d->mem_create},
        {"cuMemExportToShareableHandle", (void **)&d->mem_export},
        {"cuMemAddressReserve", (void **)&d->mem_reserve},
        {"cuMemMap", (void **)&d->mem_map},
        {"cuMemSetAccess", (void **)&d->mem_set_access},
        {"cuMemUnmap", (void **)&d->mem_unmap},
        {"cuMemAddressFree", (void **)&d->mem_free_address},
        {"cuMemRelease", (void **)&d->mem_release},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        enum cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion(entries[i].name, entries[i].fn, 12000, cudaEnableDefault,
                                             &found) != cudaSuccess || found != cudaDriverEntryPointSuccess)
            return fv_fail(FV_ERR_CUDA, "shared memory: the CUDA driver has no %s", entries[i].name);
    }
    return FV_OK;
}

void shared_buffer_destroy(shared_buffer *s)
{
    if (s->texture) glDeleteTextures(1, &s->texture);
    if (s->buffer) glDeleteBuffers(1, &s->buffer);
    if (s->memory) glDeleteMemoryObjectsEXT(1, &s->memory);
    driver_api d;
    if ((s->address || s->handle) && load_driver_api(&d) == FV_OK) {
        if (s->address) {
            d.mem_unmap((CUdeviceptr)s->address, s->size);
            d.mem_free_address((CUdeviceptr)s->address, s->size);
        }
        if (s->handle) d.mem_release((CUmemGenericAllocationHandle)s->handle);
    }
    memset(s, 0, sizeof *s);
}

fv_status shared_buffer_create(shared_buffer *s, int width, int height, size_t pitch)
{
    memset(s, 0, sizeof *s);
    if (!GLEW_EXT_memory_object || !GLEW_EXT_memory_object_fd || !glImportMemoryFdEXT || !glBufferStorageMemEXT)
        return fv_fail(FV_ERR_GL, "shared memory: OpenGL lacks GL_EXT_memory_object_fd");
    GLint max_texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &max_texels);
    const size_t texels = pitch / 4 * (size_t)height;
    if ((size_t)max_texels < texels)
        return fv_fail(FV_ERR_GL, "shared memory: %dx%d exceeds the buffer texture limit (%d texels)",
                       width, height, max_texels);
    driver_api d;
    FV_TRY(load_driver_api(&d));
    int device = 0;
    cudaGetDevice(&device);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t granularity = 0;
    if (d.mem_get_granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !granularity)
        return fv_fail(FV_ERR_CUDA, "shared memory: cuMemGetAllocationGranularity failed");
    s->size = (pitch * (size_t)height + granularity - 1) / granularity * granularity;
    CUmemGenericAllocationHandle handle;
    if (d.mem_create(&handle, s->size, &prop, 0) != CUDA_SUCCESS)
        return fv_fail(FV_ERR_CUDA, "shared memory: cuMemCreate of %zu MiB failed", s->size >> 20);
    s->handle = handle;
    int fd = -1;
    CUdeviceptr address = 0;
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (d.mem_export(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS ||
        d.mem_reserve(&address, s->size, 0, 0, 0) != CUDA_SUCCESS) {
        if (fd >= 0) close(fd);
        shared_buffer_destroy(s);
        return fv_fail(FV_ERR_CUDA, "shared memory: export or address reservation failed");
    }
    s->address = address;
    if (d.mem_map(address, s->size, 0, handle, 0) != CUDA_SUCCESS ||
        d.mem_set_access(address, s->size, &access, 1) != CUDA_SUCCESS) {
        close(fd);
        d.mem_free_address(address, s->size);
        s->address = 0;
        shared_buffer_destroy(s);
        return fv_fail(FV_ERR_CUDA, "shared memory: cuMemMap/cuMemSetAccess failed");
    }
    while (glGetError() != GL_NO_ERROR) {}
    glCreateMemoryObjectsEXT(1, &s->memory);
    glImportMemoryFdEXT(s->memory, s->size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd); /* GL owns fd now */
    glGenBuffers(1, &s->buffer);
    glBindBuffer(GL_TEXTURE_BUFFER, s->buffer);
    glBufferStorageMemEXT(GL_TEXTURE_BUFFER, (GLsizeiptr)(pitch * (size_t)height), s->memory, 0);
    glGenTextures(1, &s->texture);
    glBindTexture(GL_TEXTURE_BUFFER, s->texture);
    glTexBuffer(GL_TEXTURE_BUFFER, GL_RGBA8, s->buffer);
    glBindTexture(GL_TEXTURE_BUFFER, 0);
    glBindBuffer(GL_TEXTURE_BUFFER, 0);
    GLenum err = glGetError();
    if (err != GL_NO_ERROR) {
        shared_buffer_destroy(s);
        return fv_fail(FV_ERR_GL, "shared memory: OpenGL import failed (GL error 0x%x)", err);
    }
    return FV_OK;
}
