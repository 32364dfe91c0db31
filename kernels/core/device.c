/* ------------------------------------------------------------------------------------------------
 * kernels/core/device.c: device images, upload/download, kernel resources (for teaching), and the
 * checks that turn "no GPU" (device.h: what is really missing, not the runtime's wording) and "does
 * not fit in GPU memory" into clear messages instead of crashes.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "device.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- why there is no usable device (device.h) ---- */
static char unavailable_reason[320];
static pthread_once_t unavailable_once = PTHREAD_ONCE_INIT;

/* Whether /dev holds the NVIDIA driver's device nodes (nvidiactl, nvidia0, ...), or WSL's /dev/dxg
 * through which its CUDA reaches the GPU. */
static int driver_nodes_present(void)
{
    if (access("/dev/dxg", F_OK) == 0) return 1;
    DIR *dev = opendir("/dev");
    if (!dev) return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(dev)) != NULL;)
        found = strncmp(e->d_name, "nvidia", 6) == 0;
    closedir(dev);
    return found;
}

/* Whether the driver's user-space library loads, asked the way the CUDA runtime asks; `why`
 * receives dlerror()'s words where it does not. */
static int driver_library_loads(char *why, size_t size)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(why, size, "%s", e ? e : "not found");
        return 0;
    }
    dlclose(lib);
    return 1;
}

/* The runtime failed with `err`: find what is really missing, most basic first. */
static void diagnose(cudaError_t err)
{
    char *out = unavailable_reason;
    const size_t size = sizeof unavailable_reason;
    const int nodes = driver_nodes_present();
    char dl_why[160] = "";
    const int lib = driver_library_loads(dl_why, sizeof dl_why);
    if (!nodes && !lib) {
        snprintf(out, size, "no NVIDIA driver: no /dev/nvidia* device nodes and no libcuda.so.1");
        return;
    }
    if (!lib) {
        snprintf(out, size,
                 "the NVIDIA driver's kernel module is loaded but its library libcuda.so.1 is not "
                 "(%s)",
                 dl_why);
        return;
    }
    if (!nodes) {
        snprintf(out, size,
                 "libcuda.so.1 is installed but no NVIDIA driver is loaded: no /dev/nvidia* device "
                 "nodes (in a container: no GPU passed in)");
        return;
    }
    if (access("/dev/nvidiactl", F_OK) == 0 && access("/dev/nvidiactl", R_OK | W_OK) != 0) {
        snprintf(out, size, "no permission to open /dev/nvidiactl");
        return;
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    switch (err) {
    case cudaSuccess: /* a driver that counts zero devices */
    case cudaErrorNoDevice:
        if (visible)
            snprintf(out, size,
                     "the NVIDIA driver is loaded but sees no GPU (CUDA_VISIBLE_DEVICES=\"%.40s\")",
                     visible);
        else
            snprintf(out, size, "the NVIDIA driver is loaded but sees no GPU");
        return;
    case cudaErrorInsufficientDriver:
        if (driver > 0 && driver < runtime) {
            snprintf(out, size,
                     "the NVIDIA driver supports CUDA %d.%d, this build of filterview needs CUDA "
                     "%d.%d or newer (update the driver)",
                     driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
            return;
        }
        break;
    case cudaErrorDevicesUnavailable:
        snprintf(out, size, "every CUDA device is busy or in a prohibited compute mode");
        return;
    case cudaErrorSystemDriverMismatch:
        snprintf(out, size,
                 "the NVIDIA kernel module and libcuda.so.1 are of different driver versions "
                 "(reboot after a driver update)");
        return;
    default: break;
    }
    snprintf(out, size, "CUDA cannot start: %s (%s)", cudaGetErrorString(err),
             cudaGetErrorName(err));
}

static void ask_once(void)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess)
        (void)cudaGetLastError(); /* clear the sticky error so later calls see a clean slate */
    if (err == cudaSuccess && n > 0) return;
    diagnose(err);
}

const char *fv_device_unavailable_reason(void)
{
    pthread_once(&unavailable_once, ask_once);
    return unavailable_reason[0] ? unavailable_reason : NULL;
}

fv_status fv_device_check(void)
{
    const char *why = fv_device_unavailable_reason();
    return why ? fv_fail(FV_ERR_NO_DEVICE, "no CUDA device: %s", why) : FV_OK;
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

fv_status fv_device_image_alloc_as(fv_image *img, int width, int height, fv_pixel_type type,
                                   int channels)
{
    memset(img, 0, sizeof *img);
    FV_TRY(fv_check_dimensions(width, height));
    if ((unsigned)type >= FV_PIXEL_TYPE_COUNT || (channels != 1 && channels != 3 && channels != 4))
        return fv_fail(FV_ERR_ARG, "image of type %d with %d channels: no such layout", (int)type,
                       channels);
    void *p = NULL;
    size_t pitch = 0;
    /* cudaMallocPitch aligns each row, which lets the fast kernels use 16-byte accesses. */
    FV_CUDA_CHECK(cudaMallocPitch(
        &p, &pitch, (size_t)width * (size_t)channels * fv_pixel_type_bytes(type), (size_t)height));
    img->data = (uint8_t *)p;
    img->width = width;
    img->height = height;
    img->pitch = pitch;
    img->memory = FV_MEMORY_DEVICE;
    img->type = type;
    img->channels = channels;
    return FV_OK;
}

fv_status fv_device_image_alloc(fv_image *img, int width, int height)
{
    return fv_device_image_alloc_as(img, width, height, FV_PIXEL_U8, 4);
}

void fv_device_image_free(fv_image *img)
{
    if (img->data) cudaFree(img->data);
    memset(img, 0, sizeof *img);
}

fv_status fv_image_upload(fv_image *device_dst, const fv_image *host_src)
{
    FV_CUDA_CHECK(cudaMemcpy2D(device_dst->data, device_dst->pitch, host_src->data, host_src->pitch,
                               (size_t)host_src->width * fv_image_pixel_bytes(host_src),
                               (size_t)host_src->height, cudaMemcpyHostToDevice));
    return FV_OK;
}

fv_status fv_image_download(fv_image *host_dst, const fv_image *device_src)
{
    FV_CUDA_CHECK(cudaMemcpy2D(host_dst->data, host_dst->pitch, device_src->data, device_src->pitch,
                               (size_t)device_src->width * fv_image_pixel_bytes(device_src),
                               (size_t)device_src->height, cudaMemcpyDeviceToHost));
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

void fv_variant_resources_text(const fv_filter *f, const fv_variant *v, const fv_params *p,
                               char *buf, size_t size)
{
    fv_kernel_info k[FV_MAX_KERNELS];
    /* the configuration of f where its table holds v (none for a user kernel: it packs p) */
    fv_config config;
    int built_in = 0, made = 0;
    for (int i = 0; f && i < f->n_variants && !built_in; i++) built_in = &f->variants[i] == v;
    if (built_in) made = fv_config_make(f, p, &config) == FV_OK;
    int n = v->kernels && (made || !built_in)
                ? v->kernels(v, p, made ? &config : NULL, k, FV_MAX_KERNELS)
                : 0;
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

cudaError_t fv_device_fault(void)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        return cudaSuccess; /* nothing ran, nothing faulted */
    }
    (void)cudaGetLastError();
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaSuccess) return cudaSuccess;
    (void)cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess ? err : cudaSuccess; /* it stays: a fault */
}
