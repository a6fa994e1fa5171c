/*
 * stub_libcuda.c — a do-nothing CUDA driver, for measuring pycudac's own host
 * time per launch on a machine without a GPU (bench/launch_overhead.py).
 *
 * It exports every entry point src/driver/loader.c resolves (the X-macro list of
 * include/pycudac/cudadrv.h, under the same versioned symbol names) and
 * answers like one H100 would: compute capability 9.0, 132 SMs, 1024 threads
 * per block, the usual grid limits, driver version 13000 (so the parameter
 * limit is 32,764 bytes). cuLaunchKernel checks nothing and returns at once,
 * so a launch through pycudac costs exactly pycudac's own work plus one
 * indirect call.
 *
 * What is real: contexts (a per-thread current context and push/pop stack),
 * memory (cuMemAlloc is aligned host memory, copies and memsets are memcpy
 * and memset), events (host clock), cuLaunchHostFunc (runs the callback at
 * once: the stream is always idle). What is fake: modules and functions are
 * handles that remember their name; cuModuleLoadData accepts any image
 * (pycudac compiles a real sm_90 CUBIN with NVRTC), cuModuleGetFunction any
 * name. cuFuncGetParamInfo answers CUDA_ERROR_NOT_SUPPORTED, so pycudac lays
 * parameters out by the C ABI rules from the kernel's declaration (the same
 * offsets the real driver reports for the benchmark's kernels).
 *
 *   cc -O2 -fPIC -shared -Iinclude tests/c/stub_*.c -o bench/out/libstub_cuda.so
 *
 * (its launches are tests/c/stub_launch.c; its CUDA arrays, textures and
 * OpenGL interop tests/c/stub_graphics.c; its modules tests/c/stub_module.c)
 *   PYCUDAC_LIBCUDA=$PWD/bench/out/libstub_cuda.so PYCUDAC_BACKEND=cuda python ...
 *
 * Not thread-safe beyond what the benchmark needs (one thread launches).
 *
 * CUDA arrays (host memory), texture and surface objects (handles) and
 * OpenGL interop (no GL behind it) are tests/c/stub_graphics.c: each call
 * is a line of text (stub_gl_log). Modules, functions, the linker and the
 * profiler calls are tests/c/stub_module.c.
 *
 * Failures on demand, for the tests of the error path (tests/test_faults.py):
 * stub_fail(launch_rc, sync_rc, sync_delay_ms) makes the next cuLaunchKernel
 * return launch_rc (0: none), and every cuCtxSynchronize/cuStreamSynchronize
 * from then on wait sync_delay_ms and return sync_rc (0: success), as a GPU
 * whose kernel faulted would report it.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pycudac/cudadrv.h"

#define API __attribute__((visibility("default")))

struct CUctx_st {
    int device;
    int refcount; /* primary context retains */
};
struct CUstream_st {
    unsigned int flags;
};
struct CUevent_st {
    double t; /* seconds, host clock at record */
};

static struct CUctx_st primary = {0, 0};

/* The current context: top of a per-thread stack, as in the driver. */
#define CTX_STACK 64
static __thread CUcontext ctx_stack[CTX_STACK];
static __thread int ctx_depth;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- init, errors, device ------------------------------------------------ */

API CUresult cuInit(unsigned int flags)
{
    return flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuDriverGetVersion(int *v)
{
    *v = 13000;
    return CUDA_SUCCESS;
}

static const struct {
    CUresult code;
    const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
};

API CUresult cuGetErrorName(CUresult e, const char **s)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e) {
            *s = errors[i].name;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuGetErrorString(CUresult e, const char **s)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e) {
            *s = errors[i].text;
            return CUDA_SUCCESS;
        }
    *s = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *d = 0;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int *n)
{
    *n = 1;
    return CUDA_SUCCESS;
}

/* text into dst[len], cut to fit and always terminated */
static void put_text(char *dst, int len, const char *text)
{
    if (len > 0) {
        strncpy(dst, text, (size_t)len - 1);
        dst[len - 1] = '\0';
    }
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    put_text(name, len, "NVIDIA H100 80GB HBM3 (pycudac stub driver)");
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *pi, int attr, CUdevice d)
{
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *pi = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *pi = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *pi = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *pi = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *pi = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *pi = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *pi = 49152; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *pi = 65536; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *pi = 32; break;
    case 14: *pi = 256; break; /* TEXTURE_ALIGNMENT: cuMemAlloc's alignment here */
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = 132; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *pi = 0x19; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *pi = 0; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *pi = 0; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = 0; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *pi = 232448; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: *pi = 1; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *pi = 1; break;
    default:
        if (attr <= 0 || attr > 200)
            return CUDA_ERROR_INVALID_VALUE;
        *pi = 0;
    }
    return CUDA_SUCCESS;
}

API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *bytes = (size_t)80 << 30;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    put_text(bus, len, "0000:19:00.0");
    return CUDA_SUCCESS;
}

API CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer)
{
    (void)d;
    (void)peer;
    *can = 0;
    return CUDA_SUCCESS;
}

/* ---- contexts ------------------------------------------------------------ */

API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice d)
{
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    primary.refcount++;
    *pctx = &primary;
    return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (primary.refcount > 0)
        primary.refcount--;
    return CUDA_SUCCESS;
}

API CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice d)
{
    (void)flags;
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (ctx_depth == CTX_STACK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUcontext c = calloc(1, sizeof *c);
    if (c == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->device = d;
    ctx_stack[ctx_depth++] = c; /* a created context is pushed, as in the driver */
    *pctx = c;
    return CUDA_SUCCESS;
}

API CUresult cuCtxDestroy_v2(CUcontext c)
{
    if (c == NULL || c == &primary)
        return CUDA_ERROR_INVALID_CONTEXT;
    for (int i = 0; i < ctx_depth; i++)
        if (ctx_stack[i] == c) {
            memmove(&ctx_stack[i], &ctx_stack[i + 1], (size_t)(ctx_depth - i - 1) * sizeof c);
            ctx_depth--;
            i--;
        }
    free(c);
    return CUDA_SUCCESS;
}

API CUresult cuCtxPushCurrent_v2(CUcontext c)
{
    if (c == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth == CTX_STACK)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx_stack[ctx_depth++] = c;
    return CUDA_SUCCESS;
}

API CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = ctx_stack[--ctx_depth];
    if (pctx)
        *pctx = c;
    return CUDA_SUCCESS;
}

API CUresult cuCtxSetCurrent(CUcontext c)
{
    if (c == NULL) {
        if (ctx_depth > 0)
            ctx_depth--;
        return CUDA_SUCCESS;
    }
    if (ctx_depth == 0)
        ctx_depth = 1;
    ctx_stack[ctx_depth - 1] = c;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    *pctx = ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetDevice(CUdevice *d)
{
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    *d = ctx_stack[ctx_depth - 1]->device;
    return CUDA_SUCCESS;
}

/* stub_fail; fail_launch_rc is read by stub_launch.c's cuLaunchKernel */
__attribute__((visibility("hidden"))) int stub_fail_launch_rc;
static int fail_sync_rc, fail_sync_delay_ms;

API void stub_fail(int launch_rc, int sync_rc, int sync_delay_ms)
{
    __atomic_store_n(&fail_sync_delay_ms, sync_delay_ms, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_sync_rc, sync_rc, __ATOMIC_SEQ_CST);
    __atomic_store_n(&stub_fail_launch_rc, launch_rc, __ATOMIC_SEQ_CST);
}

/* What a synchronize reports under stub_fail: CUDA_SUCCESS or the code. */
static CUresult sync_result(void)
{
    int rc = __atomic_load_n(&fail_sync_rc, __ATOMIC_SEQ_CST);
    if (rc == 0)
        return CUDA_SUCCESS;
    int ms = __atomic_load_n(&fail_sync_delay_ms, __ATOMIC_SEQ_CST);
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
    return (CUresult)rc;
}

API CUresult cuCtxSynchronize(void)
{
    return ctx_depth ? sync_result() : CUDA_ERROR_INVALID_CONTEXT;
}

static size_t stub_limits[8] = {1024, 1u << 20, 8u << 20, 2, 2048, 64, 0, 0};

API CUresult cuCtxSetLimit(int limit, size_t value)
{
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (limit < 0 || limit >= 7)
        return CUDA_ERROR_INVALID_VALUE;
    stub_limits[limit] = value;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetLimit(size_t *value, int limit)
{
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (value == NULL || limit < 0 || limit >= 7)
        return CUDA_ERROR_INVALID_VALUE;
    *value = stub_limits[limit];
    return CUDA_SUCCESS;
}

/* ---- memory: host memory standing in for device memory ------------------- */

API CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total)
{
    *free_b = (size_t)79 << 30;
    *total = (size_t)80 << 30;
    return CUDA_SUCCESS;
}

static CUresult alloc_bytes(CUdeviceptr *p, size_t n)
{
    if (n == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *m = aligned_alloc(256, (n + 255) / 256 * 256);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    return alloc_bytes(p, n);
}

API CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned int flags)
{
    (void)flags;
    return alloc_bytes(p, n);
}

API CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s)
{
    (void)s;
    return alloc_bytes(p, n);
}

API CUresult cuMemFree_v2(CUdeviceptr p)
{
    free((void *)(uintptr_t)p);
    return CUDA_SUCCESS;
}

API CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s)
{
    (void)s;
    return cuMemFree_v2(p);
}

API CUresult cuMemHostAlloc(void **pp, size_t n, unsigned int flags)
{
    (void)flags;
    CUdeviceptr p;
    CUresult rc = alloc_bytes(&p, n);
    if (rc == CUDA_SUCCESS)
        *pp = (void *)(uintptr_t)p;
    return rc;
}

API CUresult cuMemFreeHost(void *p)
{
    free(p);
    return CUDA_SUCCESS;
}

API CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags)
{
    (void)p;
    (void)n;
    (void)flags;
    return CUDA_SUCCESS;
}

API CUresult cuMemHostUnregister(void *p)
{
    (void)p;
    return CUDA_SUCCESS;
}

API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pd, void *p, unsigned int flags)
{
    (void)flags;
    *pd = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

API CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p)
{
    /* allocations are not tracked: the range is unknown, as for memory the
     * driver did not allocate */
    (void)base;
    (void)size;
    (void)p;
    return CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr p)
{
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = &primary;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = p;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

#define PTR(x) ((void *)(uintptr_t)(x))

API CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n)
{
    memcpy(PTR(d), s, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n)
{
    memcpy(d, PTR(s), n);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n)
{
    memmove(PTR(d), PTR(s), n);
    return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
    (void)st;
    return cuMemcpyHtoD_v2(d, s, n);
}

API CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st)
{
    (void)st;
    return cuMemcpyDtoH_v2(d, s, n);
}

API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    (void)st;
    return cuMemcpyDtoD_v2(d, s, n);
}

API CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{
    (void)dc;
    (void)sc;
    return cuMemcpyDtoD_v2(d, s, n);
}

API CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n)
{
    memset(PTR(d), v, n);
    return CUDA_SUCCESS;
}

API CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n)
{
    unsigned short *p = PTR(d);
    for (size_t i = 0; i < n; i++)
        p[i] = v;
    return CUDA_SUCCESS;
}

API CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n)
{
    unsigned int *p = PTR(d);
    for (size_t i = 0; i < n; i++)
        p[i] = v;
    return CUDA_SUCCESS;
}

API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{
    (void)s;
    return cuMemsetD8_v2(d, v, n);
}

API CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s)
{
    (void)s;
    return cuMemsetD16_v2(d, v, n);
}

API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s)
{
    (void)s;
    return cuMemsetD32_v2(d, v, n);
}

API CUresult cuMemPrefetchAsync_v2(CUdeviceptr d, size_t n, CUmemLocation loc, unsigned int flags,
                                   CUstream s)
{
    (void)d;
    (void)n;
    (void)loc;
    (void)flags;
    (void)s;
    return CUDA_SUCCESS;
}

API CUresult cuStreamAttachMemAsync(CUstream s, CUdeviceptr d, size_t length, unsigned int flags)
{
    (void)s;
    (void)length;
    return d && (flags == 1 || flags == 2 || flags == 4) ? CUDA_SUCCESS
                                                          : CUDA_ERROR_INVALID_VALUE;
}

static int stub_cache_config;

API CUresult cuCtxSetCacheConfig(int config)
{
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (config < 0 || config > 3)
        return CUDA_ERROR_INVALID_VALUE;
    stub_cache_config = config;
    return CUDA_SUCCESS;
}

API CUresult cuCtxGetCacheConfig(int *config)
{
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    *config = stub_cache_config;
    return CUDA_SUCCESS;
}

API CUresult cuMemPrefetchAsync(CUdeviceptr d, size_t n, CUdevice dst, CUstream s)
{
    (void)d;
    (void)n;
    (void)dst;
    (void)s;
    return CUDA_SUCCESS;
}

API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice d)
{
    static int the_pool;
    if (d != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool = (CUmemoryPool)(void *)&the_pool;
    return CUDA_SUCCESS;
}

API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attr, void *value)
{
    (void)pool;
    (void)attr;
    (void)value;
    return CUDA_SUCCESS;
}

/* ---- streams and events: everything has already finished ----------------- */

API CUresult cuStreamCreate(CUstream *ps, unsigned int flags)
{
    CUstream s = calloc(1, sizeof *s);
    if (s == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->flags = flags;
    *ps = s;
    return CUDA_SUCCESS;
}

API CUresult cuStreamDestroy_v2(CUstream s)
{
    free(s);
    return CUDA_SUCCESS;
}

API CUresult cuStreamSynchronize(CUstream s)
{
    (void)s;
    return sync_result();
}

API CUresult cuStreamQuery(CUstream s)
{
    (void)s;
    return CUDA_SUCCESS;
}

API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    (void)s;
    (void)e;
    (void)flags;
    return CUDA_SUCCESS;
}

API CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *user)
{
    (void)s;
    fn(user); /* the stream is idle: the work before it is done */
    return CUDA_SUCCESS;
}

API CUresult cuEventCreate(CUevent *pe, unsigned int flags)
{
    (void)flags;
    CUevent e = calloc(1, sizeof *e);
    if (e == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pe = e;
    return CUDA_SUCCESS;
}

API CUresult cuEventDestroy_v2(CUevent e)
{
    free(e);
    return CUDA_SUCCESS;
}

API CUresult cuEventRecord(CUevent e, CUstream s)
{
    (void)s;
    e->t = now_s();
    return CUDA_SUCCESS;
}

API CUresult cuEventSynchronize(CUevent e)
{
    (void)e;
    return CUDA_SUCCESS;
}

API CUresult cuEventQuery(CUevent e)
{
    (void)e;
    return CUDA_SUCCESS;
}

API CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
    *ms = (float)((b->t - a->t) * 1e3);
    return CUDA_SUCCESS;
}
