/* ------------------------------------------------------------------------------------------------
 * viewer/modes/info.c: --info: the CUDA device, its compute capability, SMs, memory and L2.
 * ------------------------------------------------------------------------------------------------ */
#include "modes.h"

#include "run.h"

#include <stdio.h>

int info_main(void)
{
    if (fv_device_check() != FV_OK) return run_fail_line();
    int dev = 0;
    struct cudaDeviceProp prop;
    size_t free_b = 0, total_b = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess ||
        cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        fv_fail(FV_ERR_CUDA, "cannot query the CUDA device: %s",
                cudaGetErrorString(cudaGetLastError()));
        return run_fail_line();
    }
    printf("CUDA device %d: %s, compute capability %d.%d, %d SMs, %zu MiB free of %zu MiB, "
           "L2 %d KiB\n",
           dev, prop.name, prop.major, prop.minor, prop.multiProcessorCount, free_b >> 20,
           total_b >> 20, prop.l2CacheSize >> 10);
    return 0;
}
