/* ------------------------------------------------------------------------------------------------
 * kernels/core/device.c: device images, upload/download, kernel resources (for teaching), and the checks that turn "no GPU"
 * and "does not fit in GPU memory" into clear messages instead of crashes.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"

#include <stdio.h>
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

int fv_device_compute_major(void)
{
    int device = 0, major = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return major;
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
    img->memory = FV_MEMORY_DEVICE;
    return FV_OK;
}

void fv_device_image_free(fv_image *img)
{
    if (img->data) cudaFree(img->data);
    memset(img, 0, sizeof *img);
}

fv_status fv_image_upload(fv_image *device_dst, const fv_image *host_src)
{
    FV_CUDA_CHECK(cudaMemcpy2D(device_dst->data, device_dst->pitch, host_src->data, host_src->pitch,
                               (size_t)host_src->width * 4, (size_t)host_src->height,
                               cudaMemcpyHostToDevice));
    return FV_OK;
}

fv_status fv_image_download(fv_image *host_dst, const fv_image *device_src)
{
    FV_CUDA_CHECK(cudaMemcpy2D(host_dst->data, host_dst->pitch, device_src->data, device_src->pitch,
                               (size_t)device_src->width * 4, (size_t)device_src->height,
                               cudaMemcpyDeviceToHost));
    return FV_OK;
}

fv_status fv_kernel_resources_get(const fv_kernel_info *k, fv_kernel_resources *out)
{
    memset(out, 0, sizeof *out);
    struct cudaFuncAttributes attr;
    FV_CUDA_CHECK(cudaFuncGetAttributes(&attr, k->func));
    int device = 0, blocks = 0;
    struct cudaDeviceProp prop;
    FV_CUDA_CHECK(cudaGetDevice(&device));
    FV_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    FV_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k->func, k->block_threads,
                                                                k->dynamic_smem));
    out->registers = attr.numRegs;
    out->static_smem = attr.sharedSizeBytes;
    out->dynamic_smem = k->dynamic_smem;
    out->block_threads = k->block_threads;
    out->blocks_per_sm = blocks;
    const int warps_per_block = (k->block_threads + prop.warpSize - 1) / prop.warpSize;
    out->occupancy =
        (double)blocks * warps_per_block / (prop.maxThreadsPerMultiProcessor / prop.warpSize);
    return FV_OK;
}

void fv_variant_resources_text(const fv_variant *v, const fv_params *p, char *buf, size_t size)
{
    fv_kernel_info k[FV_MAX_KERNELS];
    int n = v->kernels ? v->kernels(v, p, k, FV_MAX_KERNELS) : 0;
    if (fv_variant_is_host(v)) {
        snprintf(buf, size, "runs on the host");
        return;
    }
    if (n == 0) {
        snprintf(buf, size,
                 fv_variant_is_peer(v) ? "a library's kernels: resources not reported"
                                       : "no kernel info");
        return;
    }
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < n && len < size; i++) {
        fv_kernel_resources r;
        if (fv_kernel_resources_get(&k[i], &r) != FV_OK) {
            snprintf(buf + len, size - len, "%s%s: %s", i ? "; " : "", k[i].name, fv_last_error());
            return;
        }
        len += (size_t)snprintf(buf + len, size - len,
                                "%s%s: %d thr, %d regs, %.1f KiB smem, %d blk/SM, occ %.0f%%",
                                i ? "; " : "", k[i].name, r.block_threads, r.registers,
                                (double)(r.static_smem + r.dynamic_smem) / 1024.0, r.blocks_per_sm,
                                100.0 * r.occupancy);
    }
}
