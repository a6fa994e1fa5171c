/*
 * sim/driver.c — the CPU simulator's driver table: init, error names, the
 * simulated devices (how many: sim/devices.c), contexts (primary and created, a per-OS-thread
 * current-context stack) and the sticky-error state.
 *
 * Streams and events live in sim/stream.c, memory in sim/memory.c, modules
 * and launches in sim/launch.c, the fibers that run a block's threads in
 * sim/fiber.c, stream capture in sim/capture.c and graphs in
 * sim/graph.c.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim.h"
#include "sim/check.h"
#include "sim/env.h"
#include "sim/multi.h"
#include "pycudac/backend.h"

static atomic_int initialized;
static atomic_int sticky_code;
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static char sticky_detail[2048];

long long sim_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The CPUs this process may run on (its affinity mask, which containers
 * narrow), else the online count. */
int sim_cpu_count(void)
{
    cpu_set_t set;
    long n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

int sim_initialized(void)
{
    return atomic_load_explicit(&initialized, memory_order_acquire);
}

void sim_set_sticky(CUresult code, const char *detail)
{
    pthread_mutex_lock(&state_lock);
    if (atomic_load(&sticky_code) == 0) {
        snprintf(sticky_detail, sizeof sticky_detail, "%s", detail ? detail : "");
        atomic_store(&sticky_code, code);
    }
    pthread_mutex_unlock(&state_lock);
}

CUresult sim_sticky_code(void)
{
    return atomic_load_explicit(&sticky_code, memory_order_acquire);
}

static const char *fault_detail(void)
{
    if (sim_sticky_code() == 0 || sticky_detail[0] == '\0')
        return NULL;
    return sticky_detail;
}

/* ---- errors ---------------------------------------------------------------- */

typedef struct {
    CUresult code;
    const char *name, *text;
} sim_errdesc;

static const sim_errdesc errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY",
     "CUDA driver is a stub library"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT",
     "context already current"},
    {CUDA_ERROR_MAP_FAILED, "CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed"},
    {CUDA_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM",
     "OS call failed or operation not supported on this OS"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
     "peer access has not been enabled"},
    {CUDA_ERROR_TOO_MANY_PEERS, "CUDA_ERROR_TOO_MANY_PEERS",
     "peer mapping resources exhausted"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED",
     "context is destroyed"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS",
     "misaligned address"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE",
     "operation not supported on global/shared address space"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_INVALID_CLUSTER_SIZE, "CUDA_ERROR_INVALID_CLUSTER_SIZE",
     "invalid cluster size"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_MERGE, "CUDA_ERROR_STREAM_CAPTURE_MERGE",
     "operation would result in a merge of separate capture sequences"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
     "capture was not ended in the same stream as it began"},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
     "capturing stream has unjoined work"},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
     "dependency created on uncaptured work in another stream"},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT",
     "operation not permitted on an event last recorded in a capturing stream"},
    {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
    {PCC_CHECK_FAILED, "PYCUDAC_SIM_CHECK_FAILED",
     "the simulator's check mode found a defect in the kernel"},
    {PCC_LAUNCH_INTERRUPTED, "PYCUDAC_SIM_INTERRUPTED", "the simulated kernel was interrupted"},
};

static const sim_errdesc *find_error(CUresult e)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == e)
            return &errors[i];
    return NULL;
}

static CUresult sim_cuGetErrorName(CUresult error, const char **str)
{
    const sim_errdesc *d = find_error(error);
    if (str == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *str = d ? d->name : NULL;
    return d ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult sim_cuGetErrorString(CUresult error, const char **str)
{
    const sim_errdesc *d = find_error(error);
    if (str == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *str = d ? d->text : NULL;
    return d ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- init, device ------------------------------------------------------------ */

static CUresult sim_cuInit(unsigned int flags)
{
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    atomic_store_explicit(&initialized, 1, memory_order_release);
    return CUDA_SUCCESS;
}

static CUresult sim_cuDriverGetVersion(int *version)
{
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *version = SIM_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

/* Checks shared by the calls that take a device and need no context. */
static CUresult device_ok(CUdevice dev)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return dev >= 0 && dev < sim_device_count() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult sim_cuDeviceGet(CUdevice *device, int ordinal)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= sim_device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

static CUresult sim_cuDeviceGetCount(int *count)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *count = sim_device_count();
    return CUDA_SUCCESS;
}

static CUresult sim_cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult rc = device_ok(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (name == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", "pycudac CPU simulator");
    return CUDA_SUCCESS;
}

static int l2_cache_size(void)
{
    long n = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (n <= 0)
        n = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (n <= 0 || n > (1L << 30))
        n = 4L << 20;
    return (int)n;
}

/* CUdevice_attribute values, in order from 1; entries not listed are 0. */
static int attribute_value(int attrib, int *ok)
{
    *ok = 1;
    switch (attrib) {
    case 1: return SIM_MAX_THREADS_PER_BLOCK;
    case 2: return SIM_MAX_BLOCK_X;
    case 3: return SIM_MAX_BLOCK_Y;
    case 4: return SIM_MAX_BLOCK_Z;
    case 5: return (int)SIM_MAX_GRID_X;
    case 6: case 7: return (int)SIM_MAX_GRID_YZ;
    case 8: return SIM_SHARED_PER_BLOCK;
    case 9: return 65536;               /* total constant memory */
    case 10: return PCC_SIM_WARP_SIZE;
    case 11: return 2147483647;         /* max pitch */
    case 12: return 65536;              /* registers per block */
    case 13: return 1000000;            /* clock rate, kHz */
    case 14: return 256;                /* texture alignment: its allocations' (sim/memory.c) */
    case 15: return 1;                  /* gpu overlap */
    case 16: return sim_cpu_count();    /* multiprocessors: one per CPU core */
    case 19: return 1;                  /* can map host memory */
    case 21: return 131072;
    case 22: return 131072;
    case 23: return 65536;
    case 24: case 25: case 26: return 16384;
    case 27: case 28: return 32768;
    case 29: return 2048;
    case 30: return 512;
    case 31: return 1;                  /* concurrent kernels */
    case 36: return 1000000;            /* memory clock, kHz */
    case 37: return 64;                 /* bus width */
    case 38: return l2_cache_size();
    case 39: return SIM_SM_THREADS;     /* threads per multiprocessor */
    case 40: return 2;                  /* async engines */
    case 41: return 1;                  /* unified addressing */
    case 42: return 32768;
    case 43: return 2048;
    case 45: case 46: return 32768;
    case 47: case 48: return 8192;
    case 49: return 32768;
    case 51: return 32;
    case 52: case 53: return 32768;
    case 54: return 2046;
    case 55: return 32768;
    case 56: return 131072;
    case 57: return 65536;
    case 58: case 59: case 60: return 16384;
    case 61: return 32768;
    case 62: return 2048;
    case 63: case 64: return 32768;
    case 65: return 2048;
    case 66: case 67: return 32768;
    case 68: return 2046;
    case 69: return 268435456;
    case 70: return 131072;
    case 71: return 65000;
    case 72: return 2097120;
    case 73: case 74: return 32768;
    case 75: return 9;                  /* compute capability 9.0 */
    case 76: return 0;
    case 77: return 32768;
    case 78: case 79: case 80: return 1;
    case 81: return SIM_SM_SHARED;      /* shared memory per multiprocessor */
    case 82: return 65536;
    case 83: return 1;                  /* managed memory */
    case 86: return 1;                  /* host native atomics: it is the host */
    case 87: return 2;
    case 89: return 1;                  /* concurrent managed access */
    case 90: return 1;
    case 91: return 1;
    case 95: return 1;                  /* cooperative launch (sim/coop.c) */
    case 97: return SIM_SHARED_OPTIN;
    case 99: return 1;                  /* host register supported */
    case 101: return 1;                 /* direct managed access from host */
    case 106: return SIM_SM_BLOCKS;     /* blocks per multiprocessor */
    case 111: return SIM_SHARED_RESERVED; /* reserved shared memory per block */
    case 113: return 1;
    case 115: return 1;                 /* memory pools supported */
    case 120: return 1;                 /* cluster launch (sim/cluster.c) */
    case 126: return 1;
    case 131: case 134: return -1;      /* NUMA ids */
    default:
        if (attrib >= 1 && attrib <= 147)
            return 0;
        *ok = 0;
        return 0;
    }
}

static CUresult sim_cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev)
{
    CUresult rc = device_ok(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pi == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    int ok;
    int v = attribute_value(attrib, &ok);
    if (!ok)
        return CUDA_ERROR_INVALID_VALUE;
    *pi = v;
    return CUDA_SUCCESS;
}

static CUresult sim_cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    CUresult rc = device_ok(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (bytes == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *bytes = sim_total_bytes();
    return CUDA_SUCCESS;
}

static CUresult sim_cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult rc = device_ok(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pciBusId == NULL || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", (unsigned)dev);
    return CUDA_SUCCESS;
}

/* ---- contexts -------------------------------------------------------------------- */

/* Per-OS-thread stack of current contexts; the top is current. */
#define SIM_CTX_STACK_MAX 128
static _Thread_local CUcontext ctx_stack[SIM_CTX_STACK_MAX];
static _Thread_local int ctx_depth;

CUcontext sim_current_ctx(void)
{
    return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
}

int sim_ctx_valid(CUcontext c)
{
    return c != NULL && c->magic == SIM_CTX_MAGIC;
}

CUresult sim_enter(void)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult sticky = sim_sticky_code();
    if (sticky != 0)
        return sticky;
    CUcontext c = sim_current_ctx();
    if (!sim_ctx_valid(c))
        return CUDA_ERROR_INVALID_CONTEXT;
    /* Destroyed (or a primary context released to zero) while current. */
    if (!c->alive)
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    return CUDA_SUCCESS;
}

static CUresult sim_cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult rc = device_ok(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (sim_sticky_code())
        return sim_sticky_code();
    struct CUctx_st *p = sim_primary_ctx(dev);
    pthread_mutex_lock(&state_lock);
    /* its reserve is taken when it comes alive, given back at its reset */
    if (p->refcount == 0 && (rc = sim_mem_charge(SIM_CONTEXT_BYTES)) != CUDA_SUCCESS) {
        pthread_mutex_unlock(&state_lock);
        return rc;
    }
    p->refcount++;
    p->alive = 1;
    pthread_mutex_unlock(&state_lock);
    *pctx = p;
    return CUDA_SUCCESS;
}

static CUresult sim_cuDevicePrimaryCtxRelease(CUdevice dev)
{
    CUresult rc = device_ok(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    struct CUctx_st *p = sim_primary_ctx(dev);
    pthread_mutex_lock(&state_lock);
    if (p->refcount <= 0) {
        pthread_mutex_unlock(&state_lock);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    /* At zero the driver resets the primary context; its handle stays the
     * same and becomes usable again on the next retain. */
    int reset = --p->refcount == 0;
    if (reset) { /* the reset context starts again with the default limits */
        p->alive = 0;
        memset(p->limit_set, 0, sizeof p->limit_set);
        sim_mem_uncharge(SIM_CONTEXT_BYTES);
    }
    pthread_mutex_unlock(&state_lock);
    if (reset) {
        sim_heap_release(p);
        sim_registry_release_context(p);
    }
    return CUDA_SUCCESS;
}

/* Destroyed contexts, the latest last: cuCtxCreate hands out the latest
 * one's handle again, as the driver does (on an H200 the context made next
 * had the destroyed one's CUcontext, and a cache keyed by the handle gave
 * the new context the old one's pooled memory). The struct is reused, never
 * freed: a stale handle reads as a live context, as it does on a GPU. */
static CUcontext dead_ctx[16];
static int ndead;

static CUresult sim_cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    CUresult rc = device_ok(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pctx == NULL || (flags & ~0xffu) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (sim_sticky_code())
        return sim_sticky_code();
    if (ctx_depth >= SIM_CTX_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((rc = sim_mem_charge(SIM_CONTEXT_BYTES)) != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&state_lock);
    CUcontext c = ndead > 0 ? dead_ctx[--ndead] : NULL;
    pthread_mutex_unlock(&state_lock);
    if (c != NULL)
        memset(c, 0, sizeof *c);
    else if ((c = calloc(1, sizeof *c)) == NULL) {
        sim_mem_uncharge(SIM_CONTEXT_BYTES);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->magic = SIM_CTX_MAGIC;
    c->device = dev;
    c->alive = 1;
    c->refcount = 1;
    c->flags = flags;
    ctx_stack[ctx_depth++] = c; /* a new context is pushed, as the driver does */
    *pctx = c;
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxDestroy(CUcontext ctx)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!sim_ctx_valid(ctx) || ctx->primary || !ctx->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    /* Remove it from this thread's stack. The struct is kept (marked dead),
     * so a stale handle on another thread's stack reads as invalid, not as
     * freed memory, until a new context takes the handle (dead_ctx). */
    ctx->alive = 0;
    sim_mem_uncharge(SIM_CONTEXT_BYTES);
    sim_heap_release(ctx);
    sim_registry_release_context(ctx);
    int j = 0;
    for (int i = 0; i < ctx_depth; i++)
        if (ctx_stack[i] != ctx)
            ctx_stack[j++] = ctx_stack[i];
    ctx_depth = j;
    pthread_mutex_lock(&state_lock);
    if (ndead < (int)(sizeof dead_ctx / sizeof dead_ctx[0]))
        dead_ctx[ndead++] = ctx;
    pthread_mutex_unlock(&state_lock);
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxPushCurrent(CUcontext ctx)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!sim_ctx_valid(ctx) || !ctx->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth >= SIM_CTX_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx_stack[ctx_depth++] = ctx;
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxPopCurrent(CUcontext *pctx)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext c = ctx_stack[--ctx_depth];
    if (pctx)
        *pctx = c;
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxSetCurrent(CUcontext ctx)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx == NULL) {
        /* NULL pops the top, as the driver does. */
        if (ctx_depth > 0)
            ctx_depth--;
        return CUDA_SUCCESS;
    }
    if (!sim_ctx_valid(ctx) || !ctx->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx_depth == 0)
        ctx_stack[ctx_depth++] = ctx;
    else
        ctx_stack[ctx_depth - 1] = ctx;
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxGetCurrent(CUcontext *pctx)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (pctx == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = sim_current_ctx();
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxGetDevice(CUdevice *device)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUcontext c = sim_current_ctx();
    if (!sim_ctx_valid(c) || !c->alive)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (device == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *device = c->device;
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxSynchronize(void)
{
    CUresult rc = sim_enter();
    if (rc == CUDA_SUCCESS)
        rc = sim_capture_ctx_sync();
    sim_flush_output();
    return rc;
}

/* ---- the table ------------------------------------------------------------------------- */

static const pcc_backend sim_backend = {
    .name = "sim",
    .launch_blocks = 1,
    .stage_pageable_copies = 0, /* "device" memory is host memory: nothing to stage */
    .compiler = pcc_sim_rtc_get,
    .image_problem = sim_image_problem,
    .before_load = pcc_sim_env_refresh, /* what the load reads without the GIL */
    .fault_detail = fault_detail,
    .no_linker = "linking device code (DynamicModule, DynamicSourceModule) needs a CUDA "
                 "GPU: the simulator has no linker and runs no device-side launches",
    .no_gl = "OpenGL interop needs a GPU and its driver; the simulator has no OpenGL",
    .check_configure = sim_check_configure,
    .check_config = sim_check_config,
    .check_reports = sim_report_copy,
    .check_message = sim_report_message,
    .profile_rows = sim_profile_rows,
};

const pcc_backend *pcc_sim_backend(pcc_driver_table *t)
{
    memset(t, 0, sizeof *t);
    t->cuInit = sim_cuInit;
    t->cuDriverGetVersion = sim_cuDriverGetVersion;
    t->cuGetErrorName = sim_cuGetErrorName;
    t->cuGetErrorString = sim_cuGetErrorString;
    t->cuDeviceGet = sim_cuDeviceGet;
    t->cuDeviceGetCount = sim_cuDeviceGetCount;
    t->cuDeviceGetName = sim_cuDeviceGetName;
    t->cuDeviceGetAttribute = sim_cuDeviceGetAttribute;
    t->cuDeviceTotalMem = sim_cuDeviceTotalMem;
    t->cuDeviceGetPCIBusId = sim_cuDeviceGetPCIBusId;
    t->cuDevicePrimaryCtxRetain = sim_cuDevicePrimaryCtxRetain;
    t->cuDevicePrimaryCtxRelease = sim_cuDevicePrimaryCtxRelease;
    t->cuCtxCreate = sim_cuCtxCreate;
    t->cuCtxDestroy = sim_cuCtxDestroy;
    t->cuCtxPushCurrent = sim_cuCtxPushCurrent;
    t->cuCtxPopCurrent = sim_cuCtxPopCurrent;
    t->cuCtxSetCurrent = sim_cuCtxSetCurrent;
    t->cuCtxGetCurrent = sim_cuCtxGetCurrent;
    t->cuCtxGetDevice = sim_cuCtxGetDevice;
    t->cuCtxSynchronize = sim_cuCtxSynchronize;
    sim_fill_stream_table(t);
    sim_fill_mem_table(t);
    sim_fill_launch_table(t);
    sim_fill_capture_table(t);
    sim_fill_graph_table(t);
    sim_fill_limit_table(t);
    sim_fill_texture_table(t);
    sim_fill_multi_table(t); /* last: it wraps some of the entries above */
    return &sim_backend;
}
