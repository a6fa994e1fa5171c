/*
 * bench/floor_multi.c — the C floor of bench/bench_multi.py: the driver calls
 * pycudac makes for a peer copy, an IPC open and a pool allocation, written
 * directly in C, as a library loaded into the benchmark's own process (the
 * same primary contexts, allocations and pools as pycudac's, so both sides
 * time the same work on the same objects, round after round).
 *
 *   cc -O2 -Wall -Wextra -fPIC -shared -Iinclude bench/floor_multi.c -ldl \
 *      -o bench/out/libfloor_multi.so
 *
 * Types come from pycudac's own declarations (include/pycudac/cudadrv.h);
 * libcuda is opened here with dlopen, as pycudac does. Every function
 * returns a negative value on a driver error; fm_error() says which.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pycudac/cudadrv.h"

#define FM_EXPORT __attribute__((visibility("default")))

static char err[256];
static CUresult (*p_ctx_push)(CUcontext);
static CUresult (*p_ctx_pop)(CUcontext *);
static CUresult (*p_stream_create)(CUstream *, unsigned int);
static CUresult (*p_stream_destroy)(CUstream);
static CUresult (*p_stream_sync)(CUstream);
static CUresult (*p_copy_peer_async)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t,
                                     CUstream);
static CUresult (*p_ipc_open)(CUdeviceptr *, CUipcMemHandle, unsigned int);
static CUresult (*p_ipc_close)(CUdeviceptr);
static CUresult (*p_pool_alloc)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
static CUresult (*p_free_async)(CUdeviceptr, CUstream);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(const char *call, CUresult rc)
{
    snprintf(err, sizeof err, "%s failed: %d", call, (int)rc);
    return -1;
}

FM_EXPORT const char *fm_error(void)
{
    return err;
}

#define FM_SYM(var, name)                                                                      \
    do {                                                                                       \
        *(void **)&(var) = dlsym(h, name);                                                     \
        if ((var) == NULL) {                                                                   \
            snprintf(err, sizeof err, "libcuda has no %s", name);                              \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)

/* 0, or -1 (fm_error says why). pycudac has initialized the driver already. */
FM_EXPORT int fm_init(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(err, sizeof err, "dlopen libcuda.so.1: %s", dlerror());
        return -1;
    }
    FM_SYM(p_ctx_push, "cuCtxPushCurrent_v2");
    FM_SYM(p_ctx_pop, "cuCtxPopCurrent_v2");
    FM_SYM(p_stream_create, "cuStreamCreate");
    FM_SYM(p_stream_destroy, "cuStreamDestroy_v2");
    FM_SYM(p_stream_sync, "cuStreamSynchronize");
    FM_SYM(p_copy_peer_async, "cuMemcpyPeerAsync");
    FM_SYM(p_ipc_open, "cuIpcOpenMemHandle_v2");
    FM_SYM(p_ipc_close, "cuIpcCloseMemHandle");
    FM_SYM(p_pool_alloc, "cuMemAllocFromPoolAsync");
    FM_SYM(p_free_async, "cuMemFreeAsync");
    return 0;
}

/* GB/s of `reps` peer copies of n bytes queued on one stream of `ctx` (as
 * memcpy_peer_async does), after one untimed copy. */
FM_EXPORT double fm_peer_GBps(CUcontext ctx, CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                              CUcontext sctx, size_t n, int reps)
{
    CUresult rc = p_ctx_push(ctx);
    if (rc != CUDA_SUCCESS)
        return fail("cuCtxPushCurrent", rc);
    CUstream s = NULL;
    double t0 = 0, t1 = 0;
    if ((rc = p_stream_create(&s, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
        goto out;
    if ((rc = p_copy_peer_async(dst, dctx, src, sctx, n, s)) != CUDA_SUCCESS ||
        (rc = p_stream_sync(s)) != CUDA_SUCCESS)
        goto out;
    t0 = now_s();
    for (int i = 0; i < reps && rc == CUDA_SUCCESS; i++)
        rc = p_copy_peer_async(dst, dctx, src, sctx, n, s);
    if (rc == CUDA_SUCCESS)
        rc = p_stream_sync(s);
    t1 = now_s();
out:
    if (s != NULL)
        p_stream_destroy(s);
    CUcontext popped;
    p_ctx_pop(&popped);
    if (rc != CUDA_SUCCESS)
        return fail("cuMemcpyPeerAsync loop", rc);
    return (double)n * reps / (t1 - t0) / 1e9;
}

/* µs per cuIpcOpenMemHandle + cuIpcCloseMemHandle of `handle` (64 bytes),
 * in context `ctx`. */
FM_EXPORT double fm_ipc_open_close_us(CUcontext ctx, const char *handle, int reps)
{
    CUipcMemHandle h;
    memcpy(h.reserved, handle, sizeof h.reserved);
    CUresult rc = p_ctx_push(ctx);
    if (rc != CUDA_SUCCESS)
        return fail("cuCtxPushCurrent", rc);
    double t0 = now_s();
    for (int i = 0; i < reps && rc == CUDA_SUCCESS; i++) {
        CUdeviceptr p = 0;
        rc = p_ipc_open(&p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
        if (rc == CUDA_SUCCESS)
            rc = p_ipc_close(p);
    }
    double t1 = now_s();
    CUcontext popped;
    p_ctx_pop(&popped);
    if (rc != CUDA_SUCCESS)
        return fail("cuIpcOpenMemHandle/cuIpcCloseMemHandle loop", rc);
    return (t1 - t0) * 1e6 / reps;
}

/* µs per cuMemAllocFromPoolAsync + cuMemFreeAsync of n bytes from `pool`
 * on stream `s` (the caller's), in context `ctx`. */
FM_EXPORT double fm_pool_alloc_free_us(CUcontext ctx, CUmemoryPool pool, CUstream s, size_t n,
                                       int reps)
{
    CUresult rc = p_ctx_push(ctx);
    if (rc != CUDA_SUCCESS)
        return fail("cuCtxPushCurrent", rc);
    double t0 = now_s();
    for (int i = 0; i < reps && rc == CUDA_SUCCESS; i++) {
        CUdeviceptr p = 0;
        rc = p_pool_alloc(&p, n, pool, s);
        if (rc == CUDA_SUCCESS)
            rc = p_free_async(p, s);
    }
    double t1 = now_s();
    if (rc == CUDA_SUCCESS)
        rc = p_stream_sync(s);
    CUcontext popped;
    p_ctx_pop(&popped);
    if (rc != CUDA_SUCCESS)
        return fail("cuMemAllocFromPoolAsync/cuMemFreeAsync loop", rc);
    return (t1 - t0) * 1e6 / reps;
}
