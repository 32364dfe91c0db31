/* endless.cu: a user kernel that never ends (it waits on a flag nobody sets), for the viewer's
 * time limit: past FILTERVIEW_KERNEL_TIMEOUT seconds the viewer says so and exits 1, since a
 * running kernel cannot be stopped from the host without ending the program. */
#include "filterview.h"

__device__ volatile int fv_never_set = 0;

__global__ void fv_pass(const fv_image src, const fv_image dst, const fv_params p)
{
    while (!fv_never_set) {
    }
}
