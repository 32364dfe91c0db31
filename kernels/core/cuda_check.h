/* ------------------------------------------------------------------------------------------------
 * kernels/core/cuda_check.h: FV_CUDA_CHECK, the one way CUDA errors are reported.
 *
 * In a function that returns fv_status: FV_CUDA_CHECK(cudaMalloc(...)) records
 * "<statement> in <function> (<file>:<line>): <cudaGetErrorString>" and returns FV_ERR_CUDA
 * (FV_ERR_MEMORY for allocation failures). After every launch: FV_CUDA_CHECK(cudaGetLastError()).
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_CUDA_CHECK_H
#define FV_CUDA_CHECK_H

#include "filter.h"

#define FV_CUDA_CHECK(expr)                                                                        \
    do {                                                                                           \
        cudaError_t fv_cuda_err_ = (expr);                                                         \
        if (fv_cuda_err_ != cudaSuccess)                                                           \
            return fv_fail(fv_cuda_err_ == cudaErrorMemoryAllocation ? FV_ERR_MEMORY               \
                                                                     : FV_ERR_CUDA,                \
                           "%s in %s (%s:%d): %s", #expr, __func__, __FILE__, __LINE__,            \
                           cudaGetErrorString(fv_cuda_err_));                                      \
    } while (0)

#endif
