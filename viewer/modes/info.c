/* ------------------------------------------------------------------------------------------------
 * viewer/modes/info.c: --info: the CUDA device, its compute capability, SMs, memory and L2. Without
 * a usable device: why not, in plain words (device.h), what still runs, and exit status 1, so that
 * `filterview --info >/dev/null` answers "is there a GPU?" in scripts and tests.
 * ------------------------------------------------------------------------------------------------ */
#include "modes.h"

#include "device.h"
#include "run.h"

#include <stdio.h>

int info_main(void)
{
    const char *why = fv_device_unavailable_reason();
    if (why) {
        cli_error("no CUDA device: %s", why);
        printf(
            "Without a CUDA device these still run, on the CPU (the `cpu` variant of each filter):\n"
            "  -o and folders with -v cpu; --compare of cpu variants; --bench and --chart (the\n"
            "  references alone); the viewer, whose panes then show the references; --list.\n");
        return 1;
    }
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
