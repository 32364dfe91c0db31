/* ------------------------------------------------------------------------------------------------
 * kernels/core/cuda_libs_lazy.c: cuFFT and NVRTC, loaded when first called.
 *
 * Linked the usual way, the two libraries are mapped at start-up: about 400 MB of address space
 * (cuFFT alone is 280 MB) before the first pixel, for every run, the cpu variant's included, so
 * that `ulimit -v` or a small container refused the program for nothing. Here every function of
 * theirs that the filters call is defined under its own name, with the prototype of its header
 * (the compiler checks one against the other); the first call dlopen()s the library by its
 * soname (then by the toolkit's path found at configure time) and each call goes on to the real
 * function. A library that cannot be loaded makes the call fail with the library's own error
 * code (CUFFT_NOT_SUPPORTED, NVRTC_ERROR_INTERNAL_ERROR), and nvrtcGetErrorString says why.
 * Thread-safe: each library is opened once (pthread_once). Checked by the cli_cpu_address_space
 * test (the cpu variant within `ulimit -v`) and by every cuFFT and NVRTC test.
 * ------------------------------------------------------------------------------------------------ */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cufft.h>
#include <dlfcn.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>

#ifndef FV_CUFFT_SONAME
#error "FV_CUFFT_SONAME (e.g. libcufft.so.12) comes from CMakeLists.txt"
#endif
#ifndef FV_NVRTC_SONAME
#error "FV_NVRTC_SONAME (e.g. libnvrtc.so.13) comes from CMakeLists.txt"
#endif
#if !defined(FV_CUFFT_PATH) || !defined(FV_NVRTC_PATH)
#error "FV_CUFFT_PATH and FV_NVRTC_PATH (the toolkit's copies) come from CMakeLists.txt"
#endif

typedef struct lazy_lib {
    const char *soname, *fallback; /* fallback: the toolkit's own copy, by its full path */
    pthread_once_t once;
    void *handle;
    char why[512]; /* dlerror() when it could not be loaded */
} lazy_lib;

static lazy_lib cufft_lib = {
    .soname = FV_CUFFT_SONAME, .fallback = FV_CUFFT_PATH, .once = PTHREAD_ONCE_INIT};
static lazy_lib nvrtc_lib = {
    .soname = FV_NVRTC_SONAME, .fallback = FV_NVRTC_PATH, .once = PTHREAD_ONCE_INIT};

static void lazy_open(lazy_lib *l)
{
    l->handle = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!l->handle) {
        const char *first = dlerror();
        snprintf(l->why, sizeof l->why, "%s", first ? first : l->soname);
        l->handle = dlopen(l->fallback, RTLD_NOW | RTLD_LOCAL);
    }
}

static void cufft_open(void)
{
    lazy_open(&cufft_lib);
}

static void nvrtc_open(void)
{
    lazy_open(&nvrtc_lib);
}

/* The real function `name` of the library, NULL when it cannot be loaded or lacks it. */
static void *lazy_symbol(lazy_lib *l, void (*open)(void), const char *name)
{
    pthread_once(&l->once, open);
    return l->handle ? dlsym(l->handle, name) : NULL;
}

/* One definition per function: FORWARD(library, return type, error value, name, (parameters),
 * (arguments)). The pointer is looked up once per call site's first use. */
#define FORWARD(lib, ret, fail, name, params, args)                                                \
    ret name params                                                                                \
    {                                                                                              \
        static ret(*volatile real) params;                                                         \
        ret(*fn) params = real;                                                                    \
        if (!fn) {                                                                                 \
            *(void **)(&fn) = lazy_symbol(&lib##_lib, lib##_open, #name);                          \
            if (!fn) return fail;                                                                  \
            real = fn;                                                                             \
        }                                                                                          \
        return fn args;                                                                            \
    }

/* ---- cuFFT: the plan, size, execution and stream calls of cufft.h ---- */
#define CUFFT(name, params, args)                                                                  \
    FORWARD(cufft, cufftResult, CUFFT_NOT_SUPPORTED, name, params, args)
CUFFT(cufftPlan1d, (cufftHandle * plan, int nx, cufftType type, int batch), (plan, nx, type, batch))
CUFFT(cufftPlan2d, (cufftHandle * plan, int nx, int ny, cufftType type), (plan, nx, ny, type))
CUFFT(cufftPlan3d, (cufftHandle * plan, int nx, int ny, int nz, cufftType type),
      (plan, nx, ny, nz, type))
CUFFT(cufftPlanMany,
      (cufftHandle * plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
       int ostride, int odist, cufftType type, int batch),
      (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch))
CUFFT(cufftMakePlan1d, (cufftHandle plan, int nx, cufftType type, int batch, size_t *work),
      (plan, nx, type, batch, work))
CUFFT(cufftMakePlan2d, (cufftHandle plan, int nx, int ny, cufftType type, size_t *work),
      (plan, nx, ny, type, work))
CUFFT(cufftMakePlan3d, (cufftHandle plan, int nx, int ny, int nz, cufftType type, size_t *work),
      (plan, nx, ny, nz, type, work))
CUFFT(cufftMakePlanMany,
      (cufftHandle plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
       int ostride, int odist, cufftType type, int batch, size_t *work),
      (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work))
CUFFT(cufftMakePlanMany64,
      (cufftHandle plan, int rank, long long int *n, long long int *inembed, long long int istride,
       long long int idist, long long int *onembed, long long int ostride, long long int odist,
       cufftType type, long long int batch, size_t *work),
      (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work))
CUFFT(cufftGetSizeMany64,
      (cufftHandle plan, int rank, long long int *n, long long int *inembed, long long int istride,
       long long int idist, long long int *onembed, long long int ostride, long long int odist,
       cufftType type, long long int batch, size_t *work),
      (plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work))
CUFFT(cufftEstimate1d, (int nx, cufftType type, int batch, size_t *work), (nx, type, batch, work))
CUFFT(cufftEstimate2d, (int nx, int ny, cufftType type, size_t *work), (nx, ny, type, work))
CUFFT(cufftEstimate3d, (int nx, int ny, int nz, cufftType type, size_t *work),
      (nx, ny, nz, type, work))
CUFFT(cufftEstimateMany,
      (int rank, int *n, int *inembed, int istride, int idist, int *onembed, int ostride, int odist,
       cufftType type, int batch, size_t *work),
      (rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work))
CUFFT(cufftCreate, (cufftHandle * handle), (handle))
CUFFT(cufftGetSize1d, (cufftHandle handle, int nx, cufftType type, int batch, size_t *work),
      (handle, nx, type, batch, work))
CUFFT(cufftGetSize2d, (cufftHandle handle, int nx, int ny, cufftType type, size_t *work),
      (handle, nx, ny, type, work))
CUFFT(cufftGetSize3d, (cufftHandle handle, int nx, int ny, int nz, cufftType type, size_t *work),
      (handle, nx, ny, nz, type, work))
CUFFT(cufftGetSizeMany,
      (cufftHandle handle, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
       int ostride, int odist, cufftType type, int batch, size_t *work),
      (handle, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch, work))
CUFFT(cufftGetSize, (cufftHandle handle, size_t *work), (handle, work))
CUFFT(cufftSetWorkArea, (cufftHandle plan, void *work), (plan, work))
CUFFT(cufftSetAutoAllocation, (cufftHandle plan, int autoAllocate), (plan, autoAllocate))
CUFFT(cufftExecC2C, (cufftHandle plan, cufftComplex *in, cufftComplex *out, int direction),
      (plan, in, out, direction))
CUFFT(cufftExecR2C, (cufftHandle plan, cufftReal *in, cufftComplex *out), (plan, in, out))
CUFFT(cufftExecC2R, (cufftHandle plan, cufftComplex *in, cufftReal *out), (plan, in, out))
CUFFT(cufftExecZ2Z,
      (cufftHandle plan, cufftDoubleComplex *in, cufftDoubleComplex *out, int direction),
      (plan, in, out, direction))
CUFFT(cufftExecD2Z, (cufftHandle plan, cufftDoubleReal *in, cufftDoubleComplex *out),
      (plan, in, out))
CUFFT(cufftExecZ2D, (cufftHandle plan, cufftDoubleComplex *in, cufftDoubleReal *out),
      (plan, in, out))
CUFFT(cufftSetStream, (cufftHandle plan, cudaStream_t stream), (plan, stream))
CUFFT(cufftDestroy, (cufftHandle plan), (plan))
CUFFT(cufftGetVersion, (int *version), (version))
CUFFT(cufftGetProperty, (libraryPropertyType type, int *value), (type, value))

/* ---- NVRTC: what kernels/user compiles a user's kernel with ---- */
#define NVRTC(name, params, args)                                                                  \
    FORWARD(nvrtc, nvrtcResult, NVRTC_ERROR_INTERNAL_ERROR, name, params, args)
NVRTC(nvrtcVersion, (int *major, int *minor), (major, minor))
NVRTC(nvrtcGetNumSupportedArchs, (int *n), (n))
NVRTC(nvrtcGetSupportedArchs, (int *archs), (archs))
NVRTC(nvrtcCreateProgram,
      (nvrtcProgram * prog, const char *src, const char *name, int n_headers,
       const char *const *headers, const char *const *include_names),
      (prog, src, name, n_headers, headers, include_names))
NVRTC(nvrtcDestroyProgram, (nvrtcProgram * prog), (prog))
NVRTC(nvrtcCompileProgram, (nvrtcProgram prog, int n_options, const char *const *options),
      (prog, n_options, options))
NVRTC(nvrtcGetPTXSize, (nvrtcProgram prog, size_t *size), (prog, size))
NVRTC(nvrtcGetPTX, (nvrtcProgram prog, char *ptx), (prog, ptx))
NVRTC(nvrtcGetCUBINSize, (nvrtcProgram prog, size_t *size), (prog, size))
NVRTC(nvrtcGetCUBIN, (nvrtcProgram prog, char *cubin), (prog, cubin))
NVRTC(nvrtcGetProgramLogSize, (nvrtcProgram prog, size_t *size), (prog, size))
NVRTC(nvrtcGetProgramLog, (nvrtcProgram prog, char *log), (prog, log))

/* NVRTC's own text, or why the library could not be loaded. */
const char *nvrtcGetErrorString(nvrtcResult result)
{
    static const char *(*volatile real)(nvrtcResult);
    const char *(*fn)(nvrtcResult) = real;
    if (!fn) {
        *(void **)(&fn) = lazy_symbol(&nvrtc_lib, nvrtc_open, "nvrtcGetErrorString");
        if (!fn) return nvrtc_lib.handle ? "NVRTC lacks nvrtcGetErrorString" : nvrtc_lib.why;
        real = fn;
    }
    return fn(result);
}
