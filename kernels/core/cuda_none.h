/* ------------------------------------------------------------------------------------------------
 * kernels/core/cuda_none.h: the CUDA runtime as a build without CUDA (FV_CUDA OFF) sees it: the
 * types the library's and the program's signatures name (cudaStream_t, cudaEvent_t, cudaError_t),
 * and the calls their host code makes, each of which answers cudaErrorNoDevice. filter.h includes
 * it in place of <cuda_runtime_api.h> where FV_HAVE_CUDA is not defined.
 *
 * Nothing reaches these calls in a working run: the device layer (kernels/core/no_cuda.c) says
 * that there is no device, and every caller takes its path for a machine without a GPU (the
 * references, host buffers) before it would touch one. They exist so that that host code is the
 * same code in both builds; the device code itself (kernels, cuFFT, NVRTC, NPP) is not built.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CUDA_NONE_H
#define FV_CUDA_NONE_H

#include <stddef.h>
#include <string.h>

#ifdef FV_HAVE_CUDA
#error "cuda_none.h is for builds without CUDA: include <cuda_runtime_api.h>"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The values are CUDA's own, so that a number in a message means the same in both builds. */
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorMemoryAllocation = 2,
    cudaErrorDevicesUnavailable = 46,
    cudaErrorNoDevice = 100,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorInvalidAddressSpace = 717
} cudaError_t;

/* The handles are pointers to incomplete types, as CUDA's are (libfilterview.h passes a stream as
 * a pointer). */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct cudaArray *cudaArray_t;
struct cudaGraphicsResource;

typedef struct cudaIpcMemHandle_st {
    char reserved[64];
} cudaIpcMemHandle_t;

struct cudaDeviceProp {
    char name[256];
    int major, minor;
    int multiProcessorCount;
    int l2CacheSize;
};

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
};

enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};

typedef struct cudaGraphExecUpdateResultInfo_st {
    int result;
} cudaGraphExecUpdateResultInfo;

#define cudaEventDisableTiming                0x02
#define cudaStreamNonBlocking                 0x01
#define cudaHostAllocDefault                  0x00
#define cudaIpcMemLazyEnablePeerAccess        0x01
#define cudaGraphicsRegisterFlagsWriteDiscard 0x02
#define cudaGraphicsMapFlagsWriteDiscard      0x02

#define FV_NO_CUDA_TEXT "this build has no CUDA (built with -DFV_CUDA=OFF)"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif

static inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : FV_NO_CUDA_TEXT;
}
static inline const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaSuccess ? "cudaSuccess" : "cudaErrorNoDevice";
}
/* nothing was tried, so nothing is pending */
static inline cudaError_t cudaGetLastError(void)
{
    return cudaSuccess;
}

static inline cudaError_t cudaGetDevice(int *device)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaSetDevice(int device)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 0;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    memset(prop, 0, sizeof *prop);
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaDeviceSynchronize(void)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaDeviceReset(void)
{
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t width, size_t height)
{
    *p = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    *p = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned flags)
{
    *p = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaFree(void *p)
{
    return p ? cudaErrorNoDevice : cudaSuccess;
}
static inline cudaError_t cudaFreeHost(void *p)
{
    return p ? cudaErrorNoDevice : cudaSuccess;
}
static inline cudaError_t cudaMemset(void *p, int value, size_t bytes)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                                     enum cudaMemcpyKind kind)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                          enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                       size_t width, size_t height, enum cudaMemcpyKind kind)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                            size_t spitch, size_t width, size_t height,
                                            enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset,
                                                   size_t h_offset, const void *src, size_t spitch,
                                                   size_t width, size_t height,
                                                   enum cudaMemcpyKind kind, cudaStream_t stream)
{
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned flags)
{
    *stream = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                              unsigned flags)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    *event = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned flags)
{
    *event = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventQuery(cudaEvent_t event)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    *ms = 0;
    return cudaErrorNoDevice;
}

/* CUDA graphs: a stream's work captured once and launched again as one */
static inline cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                                 enum cudaStreamCaptureMode mode)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    *graph = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                               unsigned long long flags)
{
    *exec = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                              cudaGraphExecUpdateResultInfo *info)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    return cudaErrorNoDevice;
}

static inline cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *p)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t handle, unsigned flags)
{
    *p = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaIpcCloseMemHandle(void *p)
{
    return cudaErrorNoDevice;
}

/* CUDA-OpenGL interop (cuda_gl_interop.h); the GL names are plain unsigned ints */
static inline cudaError_t cudaGraphicsGLRegisterBuffer(struct cudaGraphicsResource **resource,
                                                       unsigned buffer, unsigned flags)
{
    *resource = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphicsGLRegisterImage(struct cudaGraphicsResource **resource,
                                                      unsigned image, unsigned target,
                                                      unsigned flags)
{
    *resource = NULL;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphicsUnregisterResource(struct cudaGraphicsResource *resource)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphicsMapResources(int count,
                                                   struct cudaGraphicsResource **resources,
                                                   cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphicsUnmapResources(int count,
                                                     struct cudaGraphicsResource **resources,
                                                     cudaStream_t stream)
{
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphicsResourceGetMappedPointer(
    void **p, size_t *size, struct cudaGraphicsResource *resource)
{
    *p = NULL;
    *size = 0;
    return cudaErrorNoDevice;
}
static inline cudaError_t cudaGraphicsSubResourceGetMappedArray(
    cudaArray_t *array, struct cudaGraphicsResource *resource, unsigned index, unsigned level)
{
    *array = NULL;
    return cudaErrorNoDevice;
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#ifdef __cplusplus
}
#endif
#endif
