/* ------------------------------------------------------------------------------------------------
 * kernels/core/no_cuda.c: the device layer of a build without CUDA (FV_CUDA OFF), in place of
 * device.c, diff.cu, noise.cu, the API's device conversions and the user kernels (NVRTC). There is
 * no device to use, and every answer says why: this build has none. The program, the library and
 * the Python module then do what they do on a machine without a GPU (device.h's callers take the
 * reference, `cpu`), and a user kernel is refused with the same reason.
 *
 * The filters have no GPU variants in such a build (their descriptors leave the rows out), so
 * nothing here stands in for a kernel: these are the answers to "is there a device?" and to the
 * device calls that are asked before that answer is read.
 * ------------------------------------------------------------------------------------------------ */
#include "api/api_pack.h"
#include "device.h"
#include "noise.h"
#include "user/user_kernel.h"

#include <stdio.h>
#include <string.h>

#define NO_CUDA_WHY "this build of filterview has no CUDA (it was built with -DFV_CUDA=OFF)"

static fv_status no_device(void)
{
    return fv_fail(FV_ERR_NO_DEVICE, "no CUDA device: %s", NO_CUDA_WHY);
}

/* ---- device.h and the device half of filter.h ---- */
const char *fv_device_unavailable_reason(void)
{
    return NO_CUDA_WHY;
}

fv_status fv_device_check(void)
{
    return no_device();
}

int fv_device_compute_major(void)
{
    return 0;
}

cudaError_t fv_device_fault(void)
{
    return cudaSuccess; /* nothing ran, nothing faulted */
}

fv_status fv_device_check_fits(size_t bytes, const char *what)
{
    (void)bytes, (void)what;
    return no_device();
}

fv_status fv_device_image_alloc_as(fv_image *img, int width, int height, fv_pixel_type type,
                                   int channels)
{
    (void)width, (void)height, (void)type, (void)channels;
    memset(img, 0, sizeof *img);
    return no_device();
}

fv_status fv_device_image_alloc(fv_image *img, int width, int height)
{
    return fv_device_image_alloc_as(img, width, height, FV_PIXEL_U8, 4);
}

void fv_device_image_free(fv_image *img)
{
    memset(img, 0, sizeof *img); /* never allocated: nothing to free */
}

fv_status fv_image_upload(fv_image *device_dst, const fv_image *host_src)
{
    (void)device_dst, (void)host_src;
    return no_device();
}

fv_status fv_image_download(fv_image *host_dst, const fv_image *device_src)
{
    (void)host_dst, (void)device_src;
    return no_device();
}

fv_status fv_kernel_resources_get(const fv_kernel_info *k, fv_kernel_resources *out)
{
    (void)k;
    memset(out, 0, sizeof *out);
    return no_device();
}

void fv_variant_resources_text(const fv_filter *f, const fv_variant *v, const fv_params *p,
                               char *buf, size_t size)
{
    (void)f, (void)p;
    snprintf(buf, size, "%s", fv_variant_is_host(v) ? "runs on the host" : NO_CUDA_WHY);
}

/* ---- the GPU's comparison (diff.cu) and noise (noise.cu) ---- */
size_t fv_diff_work_bytes(void)
{
    return 0;
}

fv_status fv_diff(const fv_image *a, const fv_image *b, fv_diff_stats *out, void *work,
                  cudaStream_t stream)
{
    (void)a, (void)b, (void)work, (void)stream;
    memset(out, 0, sizeof *out);
    return no_device();
}

fv_status fv_diff_enqueue(const fv_image *a, const fv_image *b, void *work, void *host_totals,
                          cudaStream_t stream)
{
    (void)a, (void)b, (void)work, (void)host_totals, (void)stream;
    return no_device();
}

void fv_diff_totals_read(const void *host_totals, int width, int height, fv_diff_stats *out)
{
    (void)host_totals, (void)width, (void)height;
    memset(out, 0, sizeof *out);
}

fv_status fv_noise_apply(const fv_image *src, fv_image *dst, const fv_noise *noise,
                         cudaStream_t stream)
{
    (void)src, (void)dst, (void)noise, (void)stream;
    return no_device();
}

/* ---- the library's channel conversions on the device (api_pack.cu) ---- */
fv_status fv_api_widen(const fv_image *from, fv_image *to, cudaStream_t stream)
{
    (void)from, (void)to, (void)stream;
    return no_device();
}

fv_status fv_api_narrow(const fv_image *from, fv_image *to, cudaStream_t stream)
{
    (void)from, (void)to, (void)stream;
    return no_device();
}

/* ---- user kernels (user_compile.c, user_variant.c): NVRTC is CUDA's ---- */
fv_status fv_user_compile(const fv_filter *f, const char *path, const fv_user_options *o,
                          fv_user_build **out, fv_user_diag *diag)
{
    (void)f, (void)o;
    *out = NULL;
    if (diag) memset(diag, 0, sizeof *diag);
    return fv_fail(FV_ERR_UNSUPPORTED,
                   "%s: user kernels need a build of filterview with CUDA (NVRTC compiles them); "
                   "%s",
                   path, NO_CUDA_WHY);
}

void fv_user_build_free(fv_user_build *b)
{
    (void)b; /* fv_user_compile never makes one */
}

fv_status fv_user_cache_dir(const fv_user_options *o, char *buf, size_t size)
{
    (void)o;
    if (size) buf[0] = '\0';
    return fv_fail(FV_ERR_UNSUPPORTED, "user kernels need a build of filterview with CUDA; %s",
                   NO_CUDA_WHY);
}

int fv_user_source_changed(const fv_user_build *b)
{
    (void)b;
    return 0;
}

fv_status fv_user_variant_make(fv_user_build *build, fv_user_variant **out)
{
    (void)build;
    *out = NULL;
    return fv_fail(FV_ERR_UNSUPPORTED, "user kernels need a build of filterview with CUDA; %s",
                   NO_CUDA_WHY);
}

const fv_variant *fv_user_variant_get(const fv_user_variant *u)
{
    (void)u;
    return NULL;
}

const fv_user_build *fv_user_variant_build(const fv_user_variant *u)
{
    (void)u;
    return NULL;
}

fv_user_variant *fv_user_variant_of(const fv_variant *v)
{
    (void)v;
    return NULL; /* no variant is a user kernel's */
}

void fv_user_variant_free(fv_user_variant *u)
{
    (void)u;
}
