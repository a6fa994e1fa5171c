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
 *   cc -O2 -fPIC -shared -Iinclude bench/stub_libcuda.c -o bench/out/libstub_cuda.so
 *   PYCUDAC_LIBCUDA=$PWD/bench/out/libstub_cuda.so PYCUDAC_BACKEND=cuda python ...
 *
 * Not thread-safe beyond what the benchmark needs (one thread launches).
 *
 * OpenGL interop (no GL behind it): cuGraphics* record each call as a line
 * of text (stub_gl_log), a mapped buffer is 256 bytes of real memory and a
 * mapped image one fake 4 x 2 RGBA8 array that copies to the host only.
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
struct CUmod_st {
    int unused;
};
struct CUfunc_st {
    struct CUmod_st *mod;
    char name[256];
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

static int fail_launch_rc, fail_sync_rc, fail_sync_delay_ms; /* stub_fail */

API void stub_fail(int launch_rc, int sync_rc, int sync_delay_ms)
{
    __atomic_store_n(&fail_sync_delay_ms, sync_delay_ms, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_sync_rc, sync_rc, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fail_launch_rc, launch_rc, __ATOMIC_SEQ_CST);
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

/* ---- the linker (DynamicModule): checks its inputs, links nothing ---------- */

struct CUlinkState_st {
    char *error_log;
    size_t error_log_size;
    size_t inputs;
    char image[64];
};

/* cuProfilerStart/Stop: counted, for the tests of driver.start_profiler
 * (stub_profiler_calls: starts * 1000 + stops). */
static int profiler_starts, profiler_stops;

API CUresult cuProfilerStart(void)
{
    profiler_starts++;
    return ctx_depth > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

API CUresult cuProfilerStop(void)
{
    profiler_stops++;
    return ctx_depth > 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

API int stub_profiler_calls(void) { return profiler_starts * 1000 + profiler_stops; }

API CUresult cuLinkCreate_v2(unsigned int n, int *options, void **values, CUlinkState *out)
{
    CUlinkState st = calloc(1, sizeof *st);
    if (st == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned int i = 0; i < n; i++) {
        if (options[i] == 5) /* CU_JIT_ERROR_LOG_BUFFER */
            st->error_log = values[i];
        else if (options[i] == 6) /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
            st->error_log_size = (size_t)(uintptr_t)values[i];
    }
    *out = st;
    return CUDA_SUCCESS;
}

static CUresult link_error(CUlinkState st, CUresult rc, const char *what)
{
    if (st->error_log && st->error_log_size)
        snprintf(st->error_log, st->error_log_size, "error   : %s", what);
    return rc;
}

/* An input holding the text STUB_LINK_FAIL fails as an undefined symbol would. */
API CUresult cuLinkAddData_v2(CUlinkState st, int type, void *data, size_t size,
                              const char *name, unsigned int n, int *options, void **values)
{
    (void)type, (void)name, (void)n, (void)options, (void)values;
    if (st == NULL || data == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    static const char mark[] = "STUB_LINK_FAIL";
    for (size_t i = 0; i + sizeof mark - 1 <= size; i++)
        if (memcmp((const char *)data + i, mark, sizeof mark - 1) == 0)
            return link_error(st, CUDA_ERROR_INVALID_SOURCE,
                              "Undefined reference to 'STUB_LINK_FAIL'");
    st->inputs++;
    return CUDA_SUCCESS;
}

API CUresult cuLinkAddFile_v2(CUlinkState st, int type, const char *path, unsigned int n,
                              int *options, void **values)
{
    (void)type, (void)n, (void)options, (void)values;
    FILE *f = st && path ? fopen(path, "rb") : NULL;
    if (f == NULL)
        return st ? link_error(st, CUDA_ERROR_FILE_NOT_FOUND, "cannot open the file")
                  : CUDA_ERROR_INVALID_VALUE;
    fclose(f);
    st->inputs++;
    return CUDA_SUCCESS;
}

API CUresult cuLinkComplete(CUlinkState st, void **image, size_t *size)
{
    if (st == NULL || st->inputs == 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(st->image, sizeof st->image, "stub image of %zu inputs", st->inputs);
    *image = st->image;
    *size = strlen(st->image) + 1;
    return CUDA_SUCCESS;
}

API CUresult cuLinkDestroy(CUlinkState st)
{
    free(st);
    return CUDA_SUCCESS;
}

/* ---- modules and functions: handles only ---------------------------------- */

API CUresult cuModuleLoadData(CUmodule *pm, const void *image)
{
    if (image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUmodule m = calloc(1, sizeof *m);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pm = m;
    return CUDA_SUCCESS;
}

API CUresult cuModuleUnload(CUmodule m)
{
    /* the functions handed out stay valid (leaked): nobody may use them after unload */
    free(m);
    return CUDA_SUCCESS;
}

API CUresult cuModuleGetFunction(CUfunction *pf, CUmodule m, const char *name)
{
    if (m == NULL || name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUfunction f = calloc(1, sizeof *f);
    if (f == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    f->mod = m;
    strncpy(f->name, name, sizeof f->name - 1);
    *pf = f;
    return CUDA_SUCCESS;
}

API CUresult cuModuleGetGlobal_v2(CUdeviceptr *d, size_t *bytes, CUmodule m, const char *name)
{
    (void)d;
    (void)bytes;
    (void)m;
    (void)name;
    return CUDA_ERROR_NOT_FOUND;
}

API CUresult cuFuncGetAttribute(int *pi, int attr, CUfunction f)
{
    if (f == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 2; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = 49152; break;
    default:
        if (attr < 0 || attr > 16)
            return CUDA_ERROR_INVALID_VALUE;
        *pi = 0;
    }
    return CUDA_SUCCESS;
}

API CUresult cuFuncSetAttribute(CUfunction f, int attr, int value)
{
    (void)attr;
    (void)value;
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size)
{
    (void)f;
    (void)index;
    (void)offset;
    (void)size;
    return CUDA_ERROR_NOT_SUPPORTED; /* pycudac falls back to the C ABI layout */
}

/* ---- a launch that evicts, like the real driver's -----------------------------
 *
 * On the H100 host pycudac's own path costs 130-180 ns a call against ~21
 * ns here: the real cuLaunchKernel runs microseconds of its own code over
 * its own data, and the caller's code and data are no longer in the near
 * caches when the next call begins. STUB_POLLUTE_DATA_KB=N makes every
 * launch touch N KB of the stub's memory, STUB_POLLUTE_CODE_KB=N run N KB of
 * straight-line code (64 blocks of ~1 KB); stub_pollute() is exported so
 * that the benchmark's do-nothing callable can pay the same. */
static volatile unsigned pollute_sink;
#define P1 pollute_sink += 1u;
#define P8 P1 P1 P1 P1 P1 P1 P1 P1
#define P64 P8 P8 P8 P8 P8 P8 P8 P8
#define BLOCK(k) static __attribute__((noinline)) void code_block_##k(void) { P64 P8 P8 }
#define BLOCKS8(a) BLOCK(a##0) BLOCK(a##1) BLOCK(a##2) BLOCK(a##3) BLOCK(a##4) BLOCK(a##5) \
    BLOCK(a##6) BLOCK(a##7)
BLOCKS8(0) BLOCKS8(1) BLOCKS8(2) BLOCKS8(3) BLOCKS8(4) BLOCKS8(5) BLOCKS8(6) BLOCKS8(7)
#define REF8(a) code_block_##a##0, code_block_##a##1, code_block_##a##2, code_block_##a##3, \
    code_block_##a##4, code_block_##a##5, code_block_##a##6, code_block_##a##7
static void (*const code_blocks[64])(void) = {REF8(0), REF8(1), REF8(2), REF8(3),
                                               REF8(4), REF8(5), REF8(6), REF8(7)};

static int pollute_on = -1; /* -1: the environment not read yet */
static long pollute_data, pollute_code;
static unsigned char *pollute_buf;

API void stub_pollute(void)
{
    if (pollute_on < 0) {
        const char *d = getenv("STUB_POLLUTE_DATA_KB"), *c = getenv("STUB_POLLUTE_CODE_KB");
        pollute_data = d ? atol(d) * 1024 : 0;
        pollute_code = c ? atol(c) : 0;
        if (pollute_code < 0 || pollute_code > 64)
            pollute_code = pollute_code < 0 ? 0 : 64;
        if (pollute_data > 0 && (pollute_buf = calloc(1, (size_t)pollute_data)) == NULL)
            pollute_data = 0;
        pollute_on = pollute_data > 0 || pollute_code > 0;
    }
    for (long i = 0; i < pollute_data; i += 64)
        pollute_buf[i]++;
    for (long k = 0; k < pollute_code; k++)
        code_blocks[k]();
}

/* With STUB_RECORD_LAUNCHES=1, each launch's configuration and parameter
 * bytes (the extra/BUFFER_POINTER form, which pycudac uses) are kept for
 * stub_last_launch: the tests read what a launch really sent. Off by
 * default, so that the benchmark's launches stay an indirect call. */
static int record_on = -1; /* -1: the environment not read yet */
static struct {
    unsigned int dims[7]; /* grid x, y, z, block x, y, z, shared */
    CUstream stream;
    CUfunction func;
    size_t nbytes;
    unsigned char bytes[32764];
} last_launch;

API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                            unsigned int bx, unsigned int by, unsigned int bz,
                            unsigned int shared, CUstream s, void **params, void **extra)
{
    (void)params;
    if (__builtin_expect(fail_launch_rc != 0, 0))
        return (CUresult)__atomic_exchange_n(&fail_launch_rc, 0, __ATOMIC_SEQ_CST);
    if (pollute_on != 0)
        stub_pollute();
    if (record_on < 0) {
        const char *v = getenv("STUB_RECORD_LAUNCHES");
        record_on = v != NULL && strcmp(v, "1") == 0;
    }
    if (record_on) {
        unsigned int dims[7] = {gx, gy, gz, bx, by, bz, shared};
        memcpy(last_launch.dims, dims, sizeof dims);
        last_launch.stream = s;
        last_launch.func = f;
        last_launch.nbytes = 0;
        void *buf = NULL;
        size_t *size = NULL;
        for (int k = 0; extra != NULL && extra[k] != PCC_LAUNCH_PARAM_END; k += 2) {
            if (extra[k] == PCC_LAUNCH_PARAM_BUFFER_POINTER)
                buf = extra[k + 1];
            else if (extra[k] == PCC_LAUNCH_PARAM_BUFFER_SIZE)
                size = (size_t *)extra[k + 1];
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (buf != NULL && size != NULL) {
            if (*size > sizeof last_launch.bytes)
                return CUDA_ERROR_INVALID_VALUE;
            memcpy(last_launch.bytes, buf, *size);
            last_launch.nbytes = *size;
        }
    }
    return CUDA_SUCCESS;
}

/* The last launch recorded (STUB_RECORD_LAUNCHES=1): dims[7] = grid, block,
 * shared bytes; *stream and *func; up to cap parameter bytes into bytes.
 * Returns the number of parameter bytes the launch sent. */
API size_t stub_last_launch(unsigned int dims[7], CUstream *stream, CUfunction *func,
                            unsigned char *bytes, size_t cap)
{
    memcpy(dims, last_launch.dims, sizeof last_launch.dims);
    *stream = last_launch.stream;
    *func = last_launch.func;
    memcpy(bytes, last_launch.bytes, last_launch.nbytes < cap ? last_launch.nbytes : cap);
    return last_launch.nbytes;
}

/* cuLaunchKernelEx: the launch as cuLaunchKernel records it (dims, packed
 * bytes), and its attributes, always recorded (stub_last_ex). */
static struct {
    int n;
    int ids[8];
    unsigned int values[8][3];
} last_ex;
static long ex_count; /* cuLaunchKernelEx calls so far */

API long stub_ex_count(void)
{
    return ex_count;
}

API CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    if (c == NULL || (c->numAttrs > 0 && c->attrs == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    ex_count++;
    last_ex.n = c->numAttrs < 8 ? (int)c->numAttrs : 8;
    for (int i = 0; i < last_ex.n; i++) {
        last_ex.ids[i] = c->attrs[i].id;
        memcpy(last_ex.values[i], &c->attrs[i].value, sizeof last_ex.values[i]);
    }
    return cuLaunchKernel(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                          c->blockDimZ, c->sharedMemBytes, c->hStream, params, extra);
}

/* The last cuLaunchKernelEx's attributes: ids[i] and the first 12 bytes
 * of each value (a cluster's x, y, z; a priority or cooperative flag in
 * [0]). Returns how many (at most 8). */
API int stub_last_ex(int *ids, unsigned int (*values)[3])
{
    memcpy(ids, last_ex.ids, sizeof last_ex.ids);
    memcpy(values, last_ex.values, sizeof last_ex.values);
    return last_ex.n;
}

API CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction f,
                                              CUoccupancyB2DSize fn, size_t smem, int limit)
{
    (void)f;
    (void)fn;
    (void)smem;
    *min_grid = 132;
    *block = limit > 0 && limit < 1024 ? limit : 1024;
    return CUDA_SUCCESS;
}

/* Blocks per SM as an H100 counts threads (64 warps, 32 blocks). */
API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block,
                                                        size_t smem)
{
    (void)f;
    (void)smem;
    if (block <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    *n = 2048 / ((block + 31) / 32 * 32);
    if (*n > 32)
        *n = 32;
    return CUDA_SUCCESS;
}

/* Cooperative launches (recorded always: they are not benchmarked). The
 * stub does not know a kernel's parameters: the test says how many there
 * are and how many bytes they span (stub_expect_params), and the launch
 * records each parameter's offset from the first and the bytes from there.
 * stub_coop_limit(n) makes grids of more than n blocks fail with 720, as a
 * driver whose answer differs from its occupancy query would. */
static size_t coop_nparams, coop_span;
static long coop_limit = -1;
static struct {
    unsigned int dims[7];
    CUstream stream;
    CUfunction func;
    size_t n, nbytes;
    long offsets[64];
    unsigned char bytes[4096];
} last_coop;

API void stub_expect_params(size_t n, size_t span)
{
    coop_nparams = n < 64 ? n : 64;
    coop_span = span < sizeof last_coop.bytes ? span : sizeof last_coop.bytes;
}

API void stub_coop_limit(long n)
{
    coop_limit = n;
}

API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                       unsigned int gz, unsigned int bx, unsigned int by,
                                       unsigned int bz, unsigned int shared, CUstream s,
                                       void **params)
{
    if (coop_limit >= 0 && (long long)gx * gy * gz > coop_limit)
        return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    unsigned int dims[7] = {gx, gy, gz, bx, by, bz, shared};
    memcpy(last_coop.dims, dims, sizeof dims);
    last_coop.stream = s;
    last_coop.func = f;
    last_coop.n = params ? coop_nparams : 0;
    last_coop.nbytes = params && coop_nparams ? coop_span : 0;
    for (size_t i = 0; i < last_coop.n; i++)
        last_coop.offsets[i] = (long)((char *)params[i] - (char *)params[0]);
    if (last_coop.nbytes)
        memcpy(last_coop.bytes, params[0], last_coop.nbytes);
    return CUDA_SUCCESS;
}

/* The last cooperative launch: dims[7], up to 64 parameter offsets, the
 * recorded bytes (up to cap). Returns the number of bytes recorded. */
API size_t stub_last_coop(unsigned int dims[7], long *offsets, unsigned char *bytes, size_t cap)
{
    memcpy(dims, last_coop.dims, sizeof last_coop.dims);
    memcpy(offsets, last_coop.offsets, last_coop.n * sizeof *offsets);
    memcpy(bytes, last_coop.bytes, last_coop.nbytes < cap ? last_coop.nbytes : cap);
    return last_coop.nbytes;
}

/* CUDA arrays, texture and surface objects: the stub has no texture unit. */
API CUresult cuArrayCreate_v2(CUarray *arr, const CUDA_ARRAY_DESCRIPTOR *desc)
{
    (void)arr, (void)desc;
    return CUDA_ERROR_NOT_SUPPORTED;
}

API CUresult cuArray3DCreate_v2(CUarray *arr, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
    (void)arr, (void)desc;
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* The one array there is: a mapped GL image's (below), 4 x 2 RGBA8, whose
 * byte i reads as (i * 3) & 0xff. */
struct CUarray_st {
    int unused;
};
static struct CUarray_st gl_array;
static void gl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

API CUresult cuArrayDestroy(CUarray arr)
{
    if (arr == &gl_array)
        gl_log("array_destroy"); /* the mapping's array: never destroyed by pycudac */
    return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *desc, CUarray arr)
{
    if (arr != &gl_array)
        return CUDA_ERROR_INVALID_HANDLE;
    CUDA_ARRAY3D_DESCRIPTOR d = {4, 2, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
    *desc = d;
    return CUDA_SUCCESS;
}

API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c)
{
    if (c->srcMemoryType != CU_MEMORYTYPE_ARRAY || c->srcArray != &gl_array ||
        c->dstMemoryType != CU_MEMORYTYPE_HOST || c->WidthInBytes * c->Height > 32)
        return CUDA_ERROR_NOT_SUPPORTED;
    for (size_t i = 0; i < c->WidthInBytes * c->Height; i++)
        ((unsigned char *)c->dstHost)[i] = (unsigned char)(i * 3);
    gl_log("array_copy %zu", c->WidthInBytes * c->Height);
    return CUDA_SUCCESS;
}

API CUresult cuTexObjectCreate(CUtexObject *obj, const CUDA_RESOURCE_DESC *res,
                               const CUDA_TEXTURE_DESC *tex, const void *view)
{
    (void)obj, (void)res, (void)tex, (void)view;
    return CUDA_ERROR_NOT_SUPPORTED;
}

API CUresult cuTexObjectDestroy(CUtexObject obj)
{
    (void)obj;
    return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuSurfObjectCreate(CUsurfObject *obj, const CUDA_RESOURCE_DESC *res)
{
    (void)obj, (void)res;
    return CUDA_ERROR_NOT_SUPPORTED;
}

API CUresult cuSurfObjectDestroy(CUsurfObject obj)
{
    (void)obj;
    return CUDA_ERROR_INVALID_HANDLE;
}

/* OpenGL interop: a resource remembers what was registered; a buffer maps to
 * 256 bytes of real memory (so copies through the stub work), an image to
 * gl_array. Every call is one line of the log stub_gl_log reads, so tests
 * see what pycudac asked, in which order, without a GPU or GL. */
struct CUgraphicsResource_st {
    unsigned char mem[256]; /* first: calloc's alignment */
    unsigned int name, is_image, mapped;
    CUcontext ctx; /* current at registration */
};
static char gl_text[8192];
static size_t gl_len;

static void gl_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(gl_text + gl_len, sizeof gl_text - gl_len, fmt, ap);
    va_end(ap);
    if (n > 0 && gl_len + (size_t)n + 1 < sizeof gl_text) {
        gl_len += (size_t)n;
        gl_text[gl_len++] = '\n';
        gl_text[gl_len] = 0;
    }
}

/* Copies the log (NUL-terminated, up to cap) and forgets it. */
API size_t stub_gl_log(char *out, size_t cap)
{
    if (cap == 0)
        return 0;
    size_t n = gl_len < cap ? gl_len : cap - 1;
    memcpy(out, gl_text, n);
    out[n] = 0;
    gl_len = 0;
    return n;
}

static CUresult gl_register(CUgraphicsResource *res, unsigned int name, unsigned int is_image)
{
    if (name == 0)
        return CUDA_ERROR_INVALID_VALUE; /* GL's name 0 is no object */
    struct CUgraphicsResource_st *r = calloc(1, sizeof *r);
    if (r == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    r->name = name;
    r->is_image = is_image;
    r->ctx = ctx_depth ? ctx_stack[ctx_depth - 1] : NULL;
    *res = r;
    return CUDA_SUCCESS;
}

/* 1 when the context current now is the one `r` was registered in. */
static int gl_same_ctx(CUgraphicsResource r)
{
    return ctx_depth > 0 && ctx_stack[ctx_depth - 1] == r->ctx;
}

API CUresult cuGraphicsGLRegisterBuffer(CUgraphicsResource *res, unsigned int buffer,
                                        unsigned int flags)
{
    gl_log("register_buffer %u flags=%u ctx=%d", buffer, flags, ctx_depth ? 1 : 0);
    return gl_register(res, buffer, 0);
}

API CUresult cuGraphicsGLRegisterImage(CUgraphicsResource *res, unsigned int image,
                                       unsigned int target, unsigned int flags)
{
    gl_log("register_image %u target=%u flags=%u", image, target, flags);
    return gl_register(res, image, 1);
}

API CUresult cuGraphicsUnregisterResource(CUgraphicsResource r)
{
    gl_log("unregister %u mapped=%u own_ctx=%d", r->name, r->mapped, gl_same_ctx(r));
    free(r);
    return CUDA_SUCCESS;
}

static CUresult gl_map(unsigned int n, CUgraphicsResource *res, CUstream s, unsigned int map)
{
    for (unsigned int i = 0; i < n; i++) {
        gl_log("%s %u stream=%s%s", map ? "map" : "unmap", res[i]->name, s ? "S" : "0",
               gl_same_ctx(res[i]) ? "" : " (another context)");
        if (res[i]->mapped == map)
            return map ? CUDA_ERROR_ALREADY_MAPPED : CUDA_ERROR_NOT_MAPPED;
        res[i]->mapped = map;
    }
    return CUDA_SUCCESS;
}

API CUresult cuGraphicsMapResources(unsigned int n, CUgraphicsResource *res, CUstream s)
{
    return gl_map(n, res, s, 1);
}

API CUresult cuGraphicsUnmapResources(unsigned int n, CUgraphicsResource *res, CUstream s)
{
    return gl_map(n, res, s, 0);
}

API CUresult cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *p, size_t *size,
                                                   CUgraphicsResource r)
{
    gl_log("pointer %u", r->name);
    if (!r->mapped || r->is_image)
        return r->mapped ? CUDA_ERROR_NOT_MAPPED_AS_POINTER : CUDA_ERROR_NOT_MAPPED;
    *p = (CUdeviceptr)(uintptr_t)r->mem;
    *size = sizeof r->mem;
    return CUDA_SUCCESS;
}

API CUresult cuGraphicsSubResourceGetMappedArray(CUarray *arr, CUgraphicsResource r,
                                                 unsigned int index, unsigned int level)
{
    gl_log("array %u index=%u level=%u", r->name, index, level);
    if (!r->mapped || !r->is_image)
        return r->mapped ? CUDA_ERROR_NOT_MAPPED_AS_ARRAY : CUDA_ERROR_NOT_MAPPED;
    *arr = &gl_array;
    return CUDA_SUCCESS;
}

API CUresult cuGraphicsResourceSetMapFlags_v2(CUgraphicsResource r, unsigned int flags)
{
    gl_log("set_map_flags %u flags=%u", r->name, flags);
    return CUDA_SUCCESS;
}

API CUresult cuGLGetDevices_v2(unsigned int *count, CUdevice *devices, unsigned int max,
                               int which)
{
    gl_log("gl_devices max=%u which=%d", max, which);
    *count = 1;
    if (max > 0)
        devices[0] = 0;
    return CUDA_SUCCESS;
}
