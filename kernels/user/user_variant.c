/* ------------------------------------------------------------------------------------------------
 * kernels/user/user_variant.c: a compiled user kernel as an fv_variant the runner drives.
 *
 * The fv_variant is the first member of its owner (fv_user_variant), so every callback reaches
 * the build from the `v` it is given. The code is loaded once per owner with the runtime's
 * library API (cudaLibraryLoadData: no driver library linked) when the first state is made, and
 * shared by every runner using it. A state holds the packed parameter struct, each pass's launch
 * (FV_LAUNCH, evaluated on the GPU by the user's fv_configure kernel, or 16 x 16 threads) and,
 * for two-pass kernels, the scratch image: made at prepare, so run only launches. cudaKernel_t
 * handles are passed where the runtime takes a `const void *` function (launch, attributes,
 * occupancy), which it documents for CUDA 12 and later. Checked on a GPU by
 * tests/gpu/test_user_kernels.c against the built-in variants and the reference.
 * ------------------------------------------------------------------------------------------------ */
#include "cuda_check.h"
#include "user_kernel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BLOCK      16
#define DEFAULT_SMEM_MAX   (48 * 1024) /* above it a kernel must opt in (cudaFuncSetAttribute) */
#define USER_VARIANT_MAGIC 0x75736572u

/* what the contract's fv_launch holds (20 bytes, checked by a static_assert in the header) */
typedef struct user_launch {
    int block_x, block_y, pixels_x, pixels_y;
    unsigned int smem_bytes;
} user_launch;

/* what the contract's fv_image and fv_scratch hold (24 bytes, checked there too) */
typedef struct user_image {
    uint8_t *data;
    int width, height;
    size_t pitch;
} user_image;
_Static_assert(sizeof(user_image) == 24, "the contract's fv_image is 24 bytes");
_Static_assert(sizeof(user_launch) == 20, "the contract's fv_launch is 20 bytes");

struct fv_user_variant {
    fv_variant variant; /* first: the runner's view */
    unsigned magic;
    fv_user_build *build;
    char summary[300];
    char kernel_name[2][192];
    pthread_mutex_t lock; /* guards what follows: loading, and fv_configure's one result */
    int loaded;
    cudaLibrary_t lib;
    cudaKernel_t pass[2], configure;
    void *launch_result; /* device address of fv_launch_result */
    unsigned char *last_params;
    int last_valid;
    user_launch last_launch[2];
};

typedef struct user_state {
    unsigned char *params;
    size_t params_size;
    user_launch launch[2];
    cudaKernel_t pass[2];
    user_image scratch;
} user_state;

static fv_status user_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream);

fv_user_variant *fv_user_variant_of(const fv_variant *v)
{
    fv_user_variant *u = (fv_user_variant *)v;
    return v && v->run == user_run && u->magic == USER_VARIANT_MAGIC ? u : NULL;
}

static int n_passes(const fv_user_variant *u)
{
    return u->build->two_pass ? 2 : 1;
}

/* ---- loading (under u->lock) ---- */
static fv_status load_locked(fv_user_variant *u)
{
    if (u->loaded) return FV_OK;
    const fv_user_build *b = u->build;
    cudaError_t err = cudaLibraryLoadData(&u->lib, b->code, NULL, NULL, 0, NULL, NULL, 0);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return fv_fail(err == cudaErrorMemoryAllocation ? FV_ERR_MEMORY : FV_ERR_CUDA,
                       "%s: cannot load its code (%s) on this GPU: %s", b->name, b->arch,
                       cudaGetErrorString(err));
    }
    const char *names[2] = {b->two_pass ? "fv_pass1" : "fv_pass", "fv_pass2"};
    for (int i = 0; i < n_passes(u) && err == cudaSuccess; i++)
        err = cudaLibraryGetKernel(&u->pass[i], u->lib, names[i]);
    if (err == cudaSuccess && b->has_launch) {
        err = cudaLibraryGetKernel(&u->configure, u->lib, "fv_configure");
        if (err == cudaSuccess)
            err = cudaLibraryGetGlobal(&u->launch_result, NULL, u->lib, "fv_launch_result");
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        cudaLibraryUnload(u->lib);
        return fv_fail(FV_ERR_CUDA, "%s: its entry points cannot be found in the loaded code: %s",
                       b->name, cudaGetErrorString(err));
    }
    u->loaded = 1;
    u->last_valid = 0;
    return FV_OK;
}

/* Each pass's launch for the packed parameters (under u->lock, code loaded). */
static fv_status launch_of_locked(fv_user_variant *u, const unsigned char *params, size_t size,
                                  user_launch out[2])
{
    const fv_user_build *b = u->build;
    if (u->last_valid && memcmp(u->last_params, params, size) == 0) {
        memcpy(out, u->last_launch, sizeof u->last_launch);
        return FV_OK;
    }
    for (int pass = 0; pass < n_passes(u); pass++) {
        user_launch l = {DEFAULT_BLOCK, DEFAULT_BLOCK, 1, 1, 0};
        if (b->has_launch) {
            void *args[2] = {(void *)params, &pass};
            const dim3 one = {1, 1, 1};
            cudaError_t err = cudaLaunchKernel((const void *)u->configure, one, one, args, 0, 0);
            if (err == cudaSuccess)
                err = cudaMemcpy(&l, u->launch_result, sizeof l, cudaMemcpyDeviceToHost);
            if (err != cudaSuccess) {
                (void)cudaGetLastError();
                return fv_fail(FV_ERR_CUDA, "%s: its FV_LAUNCH failed to run: %s", b->name,
                               cudaGetErrorString(err));
            }
        }
        const long threads = (long)l.block_x * l.block_y;
        if (l.block_x < 1 || l.block_y < 1 || threads > 1024 || l.pixels_x < 1 || l.pixels_y < 1 ||
            l.pixels_x > 1024 || l.pixels_y > 1024)
            return fv_fail(FV_ERR_ARG,
                           "%s: FV_LAUNCH for pass %d gives a %dx%d block with %dx%d pixels per "
                           "thread: blocks are 1..1024 threads, pixels per thread 1..1024",
                           b->name, pass, l.block_x, l.block_y, l.pixels_x, l.pixels_y);
        out[pass] = l;
    }
    free(u->last_params);
    u->last_params = malloc(size);
    u->last_valid = u->last_params != NULL;
    if (u->last_valid) {
        memcpy(u->last_params, params, size);
        memcpy(u->last_launch, out, sizeof u->last_launch);
    }
    return FV_OK;
}

/* Opts a kernel into more than 48 KiB of dynamic shared memory, where the GPU has it. */
static fv_status smem_allow(const fv_user_build *b, cudaKernel_t k, unsigned int bytes)
{
    if (bytes <= DEFAULT_SMEM_MAX) return FV_OK;
    int device = 0, optin = 0;
    FV_CUDA_CHECK(cudaGetDevice(&device));
    FV_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if (bytes > (unsigned)optin)
        return fv_fail(FV_ERR_ARG,
                       "%s: FV_LAUNCH asks for %u bytes of shared memory per block, this GPU "
                       "has %d",
                       b->name, bytes, optin);
    FV_CUDA_CHECK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)bytes));
    return FV_OK;
}

/* ---- the variant's callbacks ---- */
static void user_state_destroy(const fv_variant *v, void *state)
{
    (void)v;
    user_state *s = state;
    if (!s) return;
    if (s->scratch.data) cudaFree(s->scratch.data);
    free(s->params);
    free(s);
}

static size_t user_state_bytes(const fv_variant *v, const fv_params *p, const void *config,
                               int width, int height)
{
    (void)config; /* not typed yet */
    (void)p;
    const fv_user_variant *u = fv_user_variant_of(v);
    return u && u->build->two_pass ? (size_t)width * FV_USER_SCRATCH_BYTES * (size_t)height : 0;
}

static fv_status user_state_create(const fv_variant *v, void **state, const fv_params *p,
                                   const void *config, int width, int height)
{
    (void)config; /* not typed yet */
    fv_user_variant *u = fv_user_variant_of(v);
    *state = NULL;
    user_state *s = calloc(1, sizeof *s);
    if (!s) return fv_fail(FV_ERR_MEMORY, "out of host memory");
    const fv_filter *f = u->build->filter;
    s->params_size = fv_user_params_size(f);
    s->params = malloc(s->params_size);
    fv_status st = s->params ? fv_user_params_pack(f, p, s->params, s->params_size)
                             : fv_fail(FV_ERR_MEMORY, "out of host memory");
    if (st == FV_OK) {
        pthread_mutex_lock(&u->lock);
        st = load_locked(u);
        if (st == FV_OK) st = launch_of_locked(u, s->params, s->params_size, s->launch);
        memcpy(s->pass, u->pass, sizeof s->pass);
        pthread_mutex_unlock(&u->lock);
    }
    for (int i = 0; st == FV_OK && i < n_passes(u); i++)
        st = smem_allow(u->build, s->pass[i], s->launch[i].smem_bytes);
    if (st == FV_OK && u->build->two_pass) {
        void *data = NULL;
        size_t pitch = 0;
        const cudaError_t err =
            cudaMallocPitch(&data, &pitch, (size_t)width * FV_USER_SCRATCH_BYTES, (size_t)height);
        if (err != cudaSuccess) {
            (void)cudaGetLastError();
            st = fv_fail(FV_ERR_MEMORY, "%s: no GPU memory for its %dx%d scratch image: %s",
                         u->build->name, width, height, cudaGetErrorString(err));
        } else {
            s->scratch = (user_image){(uint8_t *)data, width, height, pitch};
        }
    }
    if (st != FV_OK) {
        user_state_destroy(v, s);
        return st;
    }
    *state = s;
    return FV_OK;
}

static fv_status launch_pass(const fv_user_build *b, const user_state *s, int pass, int width,
                             int height, void **args, cudaStream_t stream)
{
    const user_launch *l = &s->launch[pass];
    const long tile_x = (long)l->block_x * l->pixels_x, tile_y = (long)l->block_y * l->pixels_y;
    const dim3 grid = {(unsigned)((width + tile_x - 1) / tile_x),
                       (unsigned)((height + tile_y - 1) / tile_y), 1};
    const dim3 block = {(unsigned)l->block_x, (unsigned)l->block_y, 1};
    const cudaError_t err =
        cudaLaunchKernel((const void *)s->pass[pass], grid, block, args, l->smem_bytes, stream);
    if (err != cudaSuccess)
        return fv_fail(err == cudaErrorMemoryAllocation ? FV_ERR_MEMORY : FV_ERR_CUDA,
                       "%s: launch of %s failed: %s", b->name,
                       b->two_pass ? (pass ? "fv_pass2" : "fv_pass1") : "fv_pass",
                       cudaGetErrorString(err));
    return FV_OK;
}

static fv_status user_run(const fv_variant *v, const fv_image *src, fv_image *dst,
                          const void *config, void *state, cudaStream_t stream)
{
    const fv_params *p = (const fv_params *)config; /* not typed yet */
    (void)p;                                        /* packed into the state at prepare */
    const fv_user_variant *u = fv_user_variant_of(v);
    const user_state *s = state;
    user_image in = {src->data, src->width, src->height, src->pitch};
    user_image out = {dst->data, dst->width, dst->height, dst->pitch};
    user_image scratch = s->scratch;
    if (!u->build->two_pass) {
        void *args[3] = {&in, &out, s->params};
        return launch_pass(u->build, s, 0, src->width, src->height, args, stream);
    }
    void *args1[3] = {&in, &scratch, s->params};
    FV_TRY(launch_pass(u->build, s, 0, src->width, src->height, args1, stream));
    void *args2[4] = {&scratch, &in, &out, s->params};
    return launch_pass(u->build, s, 1, src->width, src->height, args2, stream);
}

static int user_kernels(const fv_variant *v, const fv_params *p, const void *config,
                        fv_kernel_info *out, int max)
{
    (void)config; /* not typed yet */
    fv_user_variant *u = fv_user_variant_of(v);
    const fv_filter *f = u->build->filter;
    const size_t size = fv_user_params_size(f);
    unsigned char *params = malloc(size);
    if (!params || fv_user_params_pack(f, p, params, size) != FV_OK) {
        free(params);
        return 0;
    }
    user_launch l[2];
    int n = 0;
    pthread_mutex_lock(&u->lock);
    if (load_locked(u) == FV_OK && launch_of_locked(u, params, size, l) == FV_OK)
        for (; n < n_passes(u) && n < max; n++)
            out[n] = (fv_kernel_info){u->kernel_name[n], (const void *)u->pass[n],
                                      l[n].block_x * l[n].block_y, l[n].smem_bytes};
    pthread_mutex_unlock(&u->lock);
    free(params);
    return n;
}

/* ---- the owner ---- */
fv_status fv_user_variant_make(fv_user_build *build, fv_user_variant **out)
{
    *out = NULL;
    fv_user_variant *u = calloc(1, sizeof *u);
    if (!u) {
        fv_user_build_free(build); /* taken either way: no caller frees it after a failure */
        return fv_fail(FV_ERR_MEMORY, "out of host memory");
    }
    u->magic = USER_VARIANT_MAGIC;
    u->build = build;
    pthread_mutex_init(&u->lock, NULL);
    snprintf(u->summary, sizeof u->summary, "your kernel %.200s (%s, %s%s)", build->path,
             build->two_pass ? "two passes" : "one pass", build->arch,
             build->has_launch ? ", FV_LAUNCH" : "");
    if (build->two_pass) {
        snprintf(u->kernel_name[0], sizeof u->kernel_name[0], "%.120s:fv_pass1", build->name);
        snprintf(u->kernel_name[1], sizeof u->kernel_name[1], "%.120s:fv_pass2", build->name);
    } else {
        snprintf(u->kernel_name[0], sizeof u->kernel_name[0], "%.120s:fv_pass", build->name);
    }
    u->variant = (fv_variant){
        .name = build->name,
        .role = FV_ROLE_TEACHING,
        .summary = u->summary,
        .run = user_run,
        .state_bytes = user_state_bytes,
        .state_create = user_state_create,
        .state_destroy = user_state_destroy,
        .kernels = user_kernels,
    };
    *out = u;
    return FV_OK;
}

const fv_variant *fv_user_variant_get(const fv_user_variant *u)
{
    return &u->variant;
}

const fv_user_build *fv_user_variant_build(const fv_user_variant *u)
{
    return u->build;
}

static void user_variant_unload(fv_user_variant *u)
{
    pthread_mutex_lock(&u->lock);
    if (u->loaded) cudaLibraryUnload(u->lib);
    (void)cudaGetLastError();
    u->loaded = 0;
    u->last_valid = 0;
    pthread_mutex_unlock(&u->lock);
}

void fv_user_variant_free(fv_user_variant *u)
{
    if (!u) return;
    user_variant_unload(u);
    pthread_mutex_destroy(&u->lock);
    free(u->last_params);
    fv_user_build_free(u->build);
    free(u);
}
