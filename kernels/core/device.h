/* ------------------------------------------------------------------------------------------------
 * kernels/core/device.h: why there is no usable CUDA device, in plain words. The CUDA runtime's own
 * wording misleads ("CUDA driver version is insufficient for CUDA runtime version" is what it says
 * when there is no driver at all), so every mode and the viewer say this instead. Kept apart from
 * filter.h so that a change here does not rebuild every kernel.
 * ------------------------------------------------------------------------------------------------ */
#ifndef FV_DEVICE_H
#define FV_DEVICE_H

#include "filter.h"

/* NULL when a CUDA device can be used; otherwise one line, without a trailing period, that says
 * why not and names what is missing, for example
 *   "no NVIDIA driver: no /dev/nvidia* device nodes and no libcuda.so.1"
 *   "the NVIDIA driver supports CUDA 12.2, this build of filterview needs CUDA 13.0 or newer"
 *   "the NVIDIA driver is loaded but sees no GPU (CUDA_VISIBLE_DEVICES=\"\")"
 *   "every CUDA device is busy or in a prohibited compute mode"
 * It says nothing of what to do instead (that depends on the mode: each caller adds its own advice)
 * and does not start with "no CUDA device" (fv_device_check's message does: "no CUDA device: " and
 * this line). Asked once per process, then remembered; safe to call from any thread. */
const char *fv_device_unavailable_reason(void);

/* The error a fault left in this process's CUDA context (an illegal address, a trap: CUDA cannot
 * go on after one), after clearing any a plain call returned; cudaSuccess when there is none, and
 * where there is no device. Waits for the GPU. Asked after a user kernel's run failed. */
cudaError_t fv_device_fault(void);

#endif
