/*
 * sim/memory.c — the simulator's memory calls: device/managed/pinned
 * allocations, host registration, copies, memsets,
 * pointer queries, the default memory pool and prefetch.
 *
 * The allocations themselves, their guard pages and the registry a kernel's
 * addresses are looked up in are sim/registry.c. Copies and memsets check
 * device ranges against the registry and refuse a range that runs past its
 * allocation, as the driver does; each is described as a sim_op, so that
 * stream capture can turn it into a graph node and a graph launch can
 * replay it.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/sim.h"

static CUresult sim_cuMemGetInfo(size_t *free_bytes, size_t *total)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (free_bytes == NULL || total == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    size_t t = sim_total_bytes(), used = sim_bytes_in_use();
    *total = t;
    *free_bytes = used < t ? t - used : 0;
    return CUDA_SUCCESS;
}

static CUresult device_alloc(CUdeviceptr *dptr, size_t bytesize)
{
    uintptr_t p;
    CUresult rc = sim_guarded_alloc(bytesize, SIM_ALLOC_DEVICE, 0, &p);
    if (rc == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return rc;
}

static CUresult device_free(CUdeviceptr dptr)
{
    return sim_guarded_free((uintptr_t)dptr, (1u << SIM_ALLOC_DEVICE) | (1u << SIM_ALLOC_MANAGED));
}

/* The allocation calls below are among those a stream capture forbids
 * (sim_capture_unsafe_call): on a GPU they would synchronize. */
static CUresult sim_cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (dptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    return device_alloc(dptr, bytesize);
}

static CUresult sim_cuMemFree(CUdeviceptr dptr)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    if (dptr == 0)
        return CUDA_SUCCESS;
    return device_free(dptr);
}

static CUresult sim_cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (dptr == NULL || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    uintptr_t p;
    rc = sim_guarded_alloc(bytesize, SIM_ALLOC_MANAGED, flags, &p);
    if (rc == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return rc;
}

static CUresult sim_cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pp == NULL || (flags & ~0x7u) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    uintptr_t p;
    rc = sim_guarded_alloc(bytesize, SIM_ALLOC_HOST, flags, &p);
    if (rc == CUDA_SUCCESS)
        *pp = (void *)p;
    return rc;
}

static CUresult sim_cuMemFreeHost(void *p)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    return sim_guarded_free((uintptr_t)p, 1u << SIM_ALLOC_HOST);
}

static CUresult sim_cuMemHostRegister(void *p, size_t bytesize, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (p == NULL || bytesize == 0 || (flags & ~0xfu) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    rc = sim_registry_register_host((uintptr_t)p, bytesize, flags);
    return rc;
}

static CUresult sim_cuMemHostUnregister(void *p)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    rc = sim_registry_unregister_host((uintptr_t)p);
    return rc;
}

static CUresult sim_cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pdptr == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_alloc a;
    if (!sim_registry_lookup((uintptr_t)p, &a) ||
        (a.kind != SIM_ALLOC_HOST && a.kind != SIM_ALLOC_REGISTERED))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr)(uintptr_t)p; /* one address space */
    return rc;
}

static CUresult sim_cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    sim_alloc a;
    if (!sim_registry_lookup((uintptr_t)dptr, &a)) {
        rc = CUDA_ERROR_NOT_FOUND;
    } else {
        if (pbase)
            *pbase = (CUdeviceptr)a.base;
        if (psize)
            *psize = a.size;
    }
    return rc;
}

static CUresult sim_cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    sim_alloc a;
    if (!sim_registry_lookup((uintptr_t)ptr, &a))
        return CUDA_ERROR_INVALID_VALUE;
    int host_side = a.kind == SIM_ALLOC_HOST || a.kind == SIM_ALLOC_REGISTERED;
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = a.ctx;
        break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = host_side ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = ptr;
        break;
    case 4: /* HOST_POINTER */
        if (!host_side && a.kind != SIM_ALLOC_MANAGED)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)(uintptr_t)ptr;
        break;
    case 7: /* BUFFER_ID */
        *(unsigned long long *)data = (unsigned long long)a.base;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(unsigned int *)data = a.kind == SIM_ALLOC_MANAGED;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = 0;
        break;
    case 11: /* RANGE_START_ADDR */
        *(CUdeviceptr *)data = (CUdeviceptr)a.base;
        break;
    case 12: /* RANGE_SIZE */
        *(size_t *)data = a.size;
        break;
    case 13: /* MAPPED */
        *(unsigned int *)data = 1;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* ---- copies and memsets ------------------------------------------------------------- */

/* The checks a copy or memset makes of its device ranges; run again when a
 * graph replays it. */
static CUresult op_check(const sim_op *op)
{
    if (op->type == CU_GRAPH_NODE_TYPE_MEMSET) {
        size_t elem = op->u.set.elem;
        if (op->u.set.n > SIZE_MAX / elem || (op->u.set.d & (elem - 1)) != 0)
            return CUDA_ERROR_INVALID_VALUE;
        return sim_registry_check_range(op->u.set.d, op->u.set.n * elem);
    }
    CUresult rc = CUDA_SUCCESS;
    int dir = op->u.copy.dir;
    /* A NULL host pointer is refused before the device range is looked at. */
    if (op->u.copy.n && ((dir == SIM_COPY_HTOD && op->u.copy.src == 0) ||
                         (dir == SIM_COPY_DTOH && op->u.copy.dst == 0)))
        return CUDA_ERROR_INVALID_VALUE;
    if (dir != SIM_COPY_DTOH)
        rc = sim_registry_check_range(op->u.copy.dst, op->u.copy.n);
    if (rc == CUDA_SUCCESS && dir != SIM_COPY_HTOD)
        rc = sim_registry_check_range(op->u.copy.src, op->u.copy.n);
    return rc;
}

static void op_apply(const sim_op *op)
{
    if (op->type == CU_GRAPH_NODE_TYPE_MEMCPY) {
        if (op->u.copy.n == 0)
            return;
        memmove((void *)op->u.copy.dst, (const void *)op->u.copy.src, op->u.copy.n);
        if (op->u.copy.dir != SIM_COPY_DTOH) /* check mode: these bytes are written now */
            sim_registry_written(op->u.copy.dst, op->u.copy.n,
                                 op->u.copy.dir == SIM_COPY_DTOD ? op->u.copy.src : 0);
        return;
    }
    uintptr_t d = (uintptr_t)op->u.set.d;
    size_t n = op->u.set.n;
    sim_registry_written(d, n * op->u.set.elem, 0);
    if (op->u.set.elem == 1) {
        memset((void *)d, (int)(op->u.set.value & 0xff), n);
    } else if (op->u.set.elem == 2) {
        unsigned short *p = (unsigned short *)d;
        for (size_t i = 0; i < n; i++)
            p[i] = (unsigned short)op->u.set.value;
    } else {
        unsigned int *p = (unsigned int *)d;
        for (size_t i = 0; i < n; i++)
            p[i] = op->u.set.value;
    }
}

CUresult sim_mem_op_run(const sim_op *op)
{
    CUresult rc = op_check(op);
    if (rc == CUDA_SUCCESS)
        op_apply(op);
    return rc;
}

/* A copy or memset from a driver call: checked, then done now or captured.
 * The synchronous calls are work on the legacy stream (s NULL). */
static CUresult submit(const sim_op *op, int async, CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (async && !sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((rc = op_check(op)) != CUDA_SUCCESS)
        return rc;
    rc = sim_stream_submit(async ? s : NULL, op);
    if (rc == SIM_RUN_NOW) {
        op_apply(op);
        rc = CUDA_SUCCESS;
    }
    return rc;
}

static CUresult copy(int dir, uintptr_t dst, uintptr_t src, size_t n, int async, CUstream s)
{
    sim_op op = {.type = CU_GRAPH_NODE_TYPE_MEMCPY};
    op.u.copy.dir = dir;
    op.u.copy.dst = dst;
    op.u.copy.src = src;
    op.u.copy.n = n;
    return submit(&op, async, s);
}

static CUresult sim_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n)
{
    return copy(SIM_COPY_HTOD, (uintptr_t)dst, (uintptr_t)src, n, 0, NULL);
}

static CUresult sim_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
    return copy(SIM_COPY_DTOH, (uintptr_t)dst, (uintptr_t)src, n, 0, NULL);
}

static CUresult sim_cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    return copy(SIM_COPY_DTOD, (uintptr_t)dst, (uintptr_t)src, n, 0, NULL);
}

static CUresult sim_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    return copy(SIM_COPY_HTOD, (uintptr_t)dst, (uintptr_t)src, n, 1, s);
}

static CUresult sim_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    return copy(SIM_COPY_DTOH, (uintptr_t)dst, (uintptr_t)src, n, 1, s);
}

static CUresult sim_cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    return copy(SIM_COPY_DTOD, (uintptr_t)dst, (uintptr_t)src, n, 1, s);
}

static CUresult sim_cuMemcpyPeer(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src,
                                 CUcontext srcCtx, size_t n)
{
    if (dstCtx == NULL || srcCtx == NULL || dstCtx->magic != SIM_CTX_MAGIC ||
        srcCtx->magic != SIM_CTX_MAGIC || !dstCtx->alive || !srcCtx->alive)
        return sim_initialized() ? CUDA_ERROR_INVALID_CONTEXT : CUDA_ERROR_NOT_INITIALIZED;
    return copy(SIM_COPY_DTOD, (uintptr_t)dst, (uintptr_t)src, n, 0, NULL);
}

static CUresult memset_common(CUdeviceptr d, unsigned int v, size_t n, size_t elem, int async,
                              CUstream s)
{
    sim_op op = {.type = CU_GRAPH_NODE_TYPE_MEMSET};
    op.u.set.d = d;
    op.u.set.value = v;
    op.u.set.n = n;
    op.u.set.elem = elem;
    return submit(&op, async, s);
}
static CUresult sim_cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n)
{
    return memset_common(d, v, n, 1, 0, NULL);
}

static CUresult sim_cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n)
{
    return memset_common(d, v, n, 2, 0, NULL);
}

static CUresult sim_cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n)
{
    return memset_common(d, v, n, 4, 0, NULL);
}

static CUresult sim_cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{
    return memset_common(d, v, n, 1, 1, s);
}

static CUresult sim_cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s)
{
    return memset_common(d, v, n, 2, 1, s);
}

static CUresult sim_cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s)
{
    return memset_common(d, v, n, 4, 1, s);
}

/* ---- stream-ordered allocation, pools, prefetch ------------------------------------------ */

static struct sim_pool {
    unsigned long long release_threshold;
} default_pool;

/* Stream-ordered allocations are not captured (the simulator has no
 * allocation nodes): on a capturing stream they fail. */
static CUresult sim_cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (dptr == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_stream_submit(s, NULL)) != SIM_RUN_NOW)
        return rc;
    return device_alloc(dptr, bytesize);
}

static CUresult sim_cuMemFreeAsync(CUdeviceptr dptr, CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (dptr == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_stream_submit(s, NULL)) != SIM_RUN_NOW)
        return rc;
    return device_free(dptr);
}

static CUresult sim_cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pool = (CUmemoryPool)(void *)&default_pool;
    return CUDA_SUCCESS;
}

static CUresult sim_cuMemPoolSetAttribute(CUmemoryPool pool, int attr, void *value)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((void *)pool != (void *)&default_pool || value == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case 1: case 2: case 3: /* reuse policies: accepted, nothing to reuse */
        return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
        default_pool.release_threshold = *(unsigned long long *)value;
        return CUDA_SUCCESS;
    case 6: case 8: /* high-water marks: may only be reset to 0 */
        return *(unsigned long long *)value == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* Prefetch is a no-op (one memory), after the checks the driver makes: the
 * range must be managed memory. */
static CUresult prefetch_check(CUdeviceptr d, size_t n, CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (n == 0)
        return CUDA_ERROR_INVALID_VALUE;
    sim_alloc a;
    if (!sim_registry_lookup((uintptr_t)d, &a) || a.kind != SIM_ALLOC_MANAGED ||
        n > a.size - ((uintptr_t)d - a.base))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && (rc = sim_stream_submit(s, NULL)) == SIM_RUN_NOW)
        rc = CUDA_SUCCESS;
    return rc;
}

static CUresult sim_cuMemPrefetchAsync(CUdeviceptr d, size_t n, CUdevice dst, CUstream s)
{
    if (dst != 0 && dst != -1 /* CU_DEVICE_CPU */)
        return sim_initialized() ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
    return prefetch_check(d, n, s);
}

static CUresult sim_cuMemPrefetchAsync_v2(CUdeviceptr d, size_t n, CUmemLocation loc,
                                          unsigned int flags, CUstream s)
{
    int ok = (loc.type == CU_MEM_LOCATION_TYPE_DEVICE && loc.id == 0) ||
             loc.type == CU_MEM_LOCATION_TYPE_HOST || (loc.type == 3 && loc.id >= 0) ||
             loc.type == 4; /* HOST_NUMA, HOST_NUMA_CURRENT */
    if (!ok)
        return loc.type == CU_MEM_LOCATION_TYPE_DEVICE ? CUDA_ERROR_INVALID_DEVICE
                                                       : CUDA_ERROR_INVALID_VALUE;
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return prefetch_check(d, n, s);
}

/* Which streams may use managed memory: nothing to change in one memory,
 * after the checks the driver makes (the whole allocation, from its start;
 * one of the three flags; SINGLE names a stream, not the default one). */
static CUresult sim_cuStreamAttachMemAsync(CUstream s, CUdeviceptr d, size_t length,
                                           unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
        flags != CU_MEM_ATTACH_SINGLE)
        return CUDA_ERROR_INVALID_VALUE;
    if (flags == CU_MEM_ATTACH_SINGLE && (s == NULL || s == SIM_STREAM_LEGACY))
        return CUDA_ERROR_INVALID_VALUE;
    sim_alloc a;
    if (!sim_registry_lookup((uintptr_t)d, &a) || a.kind != SIM_ALLOC_MANAGED ||
        (uintptr_t)d != a.base || (length != 0 && length != a.size))
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_stream_submit(s, NULL)) == SIM_RUN_NOW)
        rc = CUDA_SUCCESS;
    return rc;
}

void sim_fill_mem_table(pcc_driver_table *t)
{
    t->cuStreamAttachMemAsync = sim_cuStreamAttachMemAsync;
    t->cuMemGetInfo = sim_cuMemGetInfo;
    t->cuMemAlloc = sim_cuMemAlloc;
    t->cuMemFree = sim_cuMemFree;
    t->cuMemAllocManaged = sim_cuMemAllocManaged;
    t->cuMemHostAlloc = sim_cuMemHostAlloc;
    t->cuMemFreeHost = sim_cuMemFreeHost;
    t->cuMemHostRegister = sim_cuMemHostRegister;
    t->cuMemHostUnregister = sim_cuMemHostUnregister;
    t->cuMemHostGetDevicePointer = sim_cuMemHostGetDevicePointer;
    t->cuMemGetAddressRange = sim_cuMemGetAddressRange;
    t->cuPointerGetAttribute = sim_cuPointerGetAttribute;
    t->cuMemcpyHtoD = sim_cuMemcpyHtoD;
    t->cuMemcpyDtoH = sim_cuMemcpyDtoH;
    t->cuMemcpyDtoD = sim_cuMemcpyDtoD;
    t->cuMemcpyHtoDAsync = sim_cuMemcpyHtoDAsync;
    t->cuMemcpyDtoHAsync = sim_cuMemcpyDtoHAsync;
    t->cuMemcpyDtoDAsync = sim_cuMemcpyDtoDAsync;
    t->cuMemcpyPeer = sim_cuMemcpyPeer;
    t->cuMemsetD8 = sim_cuMemsetD8;
    t->cuMemsetD16 = sim_cuMemsetD16;
    t->cuMemsetD32 = sim_cuMemsetD32;
    t->cuMemsetD8Async = sim_cuMemsetD8Async;
    t->cuMemsetD16Async = sim_cuMemsetD16Async;
    t->cuMemsetD32Async = sim_cuMemsetD32Async;
    t->cuMemAllocAsync = sim_cuMemAllocAsync;
    t->cuMemFreeAsync = sim_cuMemFreeAsync;
    t->cuDeviceGetDefaultMemPool = sim_cuDeviceGetDefaultMemPool;
    t->cuMemPoolSetAttribute = sim_cuMemPoolSetAttribute;
    t->cuMemPrefetchAsync = sim_cuMemPrefetchAsync;
    t->cuMemPrefetchAsync_v2 = sim_cuMemPrefetchAsync_v2;
}
