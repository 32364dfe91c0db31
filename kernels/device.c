/* ------------------------------------------------------------------------------------------------
 * kernels/device.c: device images, upload/download, scratch, and the checks that turn "no GPU"
 * and "does not fit in GPU memory" into clear messages instead of crashes.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"

#include <stdlib.h>
#include <string.h>

fv_status fv_device_check(void)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error so later calls see a clean slate */
        return fv_fail(FV_ERR_NO_DEVICE, "no CUDA device: %s (use -v cpu to run the reference)",
                       cudaGetErrorString(err));
    }
    if (n == 0)
        return fv_fail(FV_ERR_NO_DEVICE, "no CUDA device found (use -v cpu to run the reference)");
    return FV_OK;
}

fv_status fv_device_check_fits(size_t bytes, const char *what)
{
    size_t free_b = 0, total_b = 0;
    FV_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    const char *limit = getenv("FV_GPU_MEMORY_LIMIT_MB");
    if (limit && *limit) {
        size_t cap = (size_t)strtoull(limit, NULL, 10) << 20;
        if (cap < free_b) free_b = cap;
    }
    if (bytes > free_b)
        return fv_fail(FV_ERR_MEMORY, "%s needs %zu MiB of GPU memory, only %zu MiB free", what,
                       bytes >> 20, free_b >> 20);
    return FV_OK;
}

fv_status fv_device_image_alloc(fv_image *img, int width, int height)
{
    memset(img, 0, sizeof *img);
    FV_TRY(fv_check_dimensions(width, height));
    void *p = NULL;
    size_t pitch = 0;
    /* cudaMallocPitch aligns each row, which lets the fast kernels use 16-byte accesses. */
    FV_CUDA_CHECK(cudaMallocPitch(&p, &pitch, (size_t)width * 4, (size_t)height));
    img->data = (uint8_t *)p;
    img->width = width;
    img->height = height;
    img->pitch = pitch;
    return FV_OK;
}

void fv_device_image_free(fv_image *img)
{
    if (img->data) cudaFree(img->data);
    memset(img, 0, sizeof *img);
}

fv_status fv_image_upload(fv_image *device_dst, const fv_image *host_src)
{
    FV_CUDA_CHECK(cudaMemcpy2D(device_dst->data, device_dst->pitch, host_src->data,
                               host_src->pitch, (size_t)host_src->width * 4,
                               (size_t)host_src->height, cudaMemcpyHostToDevice));
    return FV_OK;
}

fv_status fv_image_download(fv_image *host_dst, const fv_image *device_src)
{
    FV_CUDA_CHECK(cudaMemcpy2D(host_dst->data, host_dst->pitch, device_src->data,
                               device_src->pitch, (size_t)device_src->width * 4,
                               (size_t)device_src->height, cudaMemcpyDeviceToHost));
    return FV_OK;
}

fv_status fv_scratch_reserve(fv_scratch *s, int width, int height)
{
    if (s->ping.data && s->ping.width >= width && s->ping.height >= height) return FV_OK;
    fv_device_image_free(&s->ping);
    return fv_device_image_alloc(&s->ping, width, height);
}

void fv_scratch_free(fv_scratch *s) { fv_device_image_free(&s->ping); }
