/*
 * sim/devices.c — the simulator's devices beyond the first: how many there
 * are (PYCUDAC_SIM_DEVICES, default 1), each one's primary context, peer
 * access between contexts of different devices, peer copies, and the
 * device a pointer belongs to.
 *
 * Every simulated device is the same host: its memory is host memory, so
 * a kernel can in fact read another device's memory. What the simulator
 * keeps is the driver's bookkeeping and its refusals, so that code tested
 * here behaves as on several GPUs: peer access is per pair of contexts
 * (enabled from the current one), refused between two contexts of one
 * device, enabled twice or disabled when not enabled is an error.
 * PYCUDAC_SIM_PEER=0 makes devices that cannot reach each other (a machine
 * whose GPUs share no NVLink or P2P-capable PCIe switch).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/multi.h"

/* ---- the devices ---------------------------------------------------------- */

static atomic_int device_count; /* 0: not read yet */

int sim_device_count(void)
{
    int n = atomic_load_explicit(&device_count, memory_order_acquire);
    if (n > 0)
        return n;
    const char *v = getenv("PYCUDAC_SIM_DEVICES");
    n = 1;
    if (v != NULL && *v != '\0') {
        char *end;
        long x = strtol(v, &end, 10);
        /* a value out of range is clamped; text that is no number counts 1 */
        if (end != v && *end == '\0')
            n = x < 1 ? 1 : (x > SIM_MAX_DEVICES ? SIM_MAX_DEVICES : (int)x);
    }
    atomic_store_explicit(&device_count, n, memory_order_release);
    return n;
}

static struct CUctx_st primaries[SIM_MAX_DEVICES];
static pthread_once_t primaries_once = PTHREAD_ONCE_INIT;

static void primaries_init(void)
{
    for (int d = 0; d < SIM_MAX_DEVICES; d++) {
        primaries[d].magic = SIM_CTX_MAGIC;
        primaries[d].device = d;
        primaries[d].primary = 1;
    }
}

struct CUctx_st *sim_primary_ctx(int dev)
{
    pthread_once(&primaries_once, primaries_init);
    return &primaries[dev];
}

static int peer_capable(void)
{
    const char *v = getenv("PYCUDAC_SIM_PEER");
    return !(v != NULL && strcmp(v, "0") == 0);
}

static CUresult sim_cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    int n = sim_device_count();
    if (dev < 0 || dev >= n || peer < 0 || peer >= n)
        return CUDA_ERROR_INVALID_DEVICE;
    if (can == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    /* the driver answers 0 for a device and itself */
    *can = dev != peer && peer_capable();
    return CUDA_SUCCESS;
}

/* ---- peer access: (from, to) pairs of contexts ------------------------------ */

#define SIM_MAX_PEER_PAIRS 256

static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    CUcontext from, to;
} pairs[SIM_MAX_PEER_PAIRS];
static int npairs;

/* Index of (from, to), or -1 (peer_lock held). */
static int pair_find(CUcontext from, CUcontext to)
{
    for (int i = 0; i < npairs; i++)
        if (pairs[i].from == from && pairs[i].to == to)
            return i;
    return -1;
}

static int ctx_ok(CUcontext c)
{
    return c != NULL && c->magic == SIM_CTX_MAGIC && c->alive;
}

static CUresult sim_cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    CUcontext cur = sim_current_ctx();
    if (!ctx_ok(peer) || peer == cur)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    int can = 0;
    sim_cuDeviceCanAccessPeer(&can, cur->device, peer->device);
    if (!can)
        return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
    pthread_mutex_lock(&peer_lock);
    if (pair_find(cur, peer) >= 0) {
        rc = CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
    } else if (npairs == SIM_MAX_PEER_PAIRS) {
        rc = CUDA_ERROR_TOO_MANY_PEERS;
    } else {
        pairs[npairs].from = cur;
        pairs[npairs].to = peer;
        npairs++;
    }
    pthread_mutex_unlock(&peer_lock);
    return rc;
}

static CUresult sim_cuCtxDisablePeerAccess(CUcontext peer)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!ctx_ok(peer))
        return CUDA_ERROR_INVALID_CONTEXT;
    CUcontext cur = sim_current_ctx();
    pthread_mutex_lock(&peer_lock);
    int i = pair_find(cur, peer);
    if (i < 0)
        rc = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
    else
        pairs[i] = pairs[--npairs];
    pthread_mutex_unlock(&peer_lock);
    return rc;
}

/* A context that goes away (destroyed, or a primary context reset) takes its
 * peer access with it, both ways, as the driver's does. */
static void forget_pairs(CUcontext c)
{
    pthread_mutex_lock(&peer_lock);
    for (int i = 0; i < npairs;)
        if (pairs[i].from == c || pairs[i].to == c)
            pairs[i] = pairs[--npairs];
        else
            i++;
    pthread_mutex_unlock(&peer_lock);
}

static CUresult (*ctx_destroy)(CUcontext);
static CUresult (*primary_release)(CUdevice);

static CUresult sim_cuCtxDestroy(CUcontext ctx)
{
    CUresult rc = ctx_destroy(ctx);
    if (rc == CUDA_SUCCESS)
        forget_pairs(ctx);
    return rc;
}

static CUresult sim_cuDevicePrimaryCtxRelease(CUdevice dev)
{
    CUresult rc = primary_release(dev);
    if (rc == CUDA_SUCCESS && dev >= 0 && dev < sim_device_count() &&
        !sim_primary_ctx(dev)->alive)
        forget_pairs(sim_primary_ctx(dev));
    return rc;
}

/* ---- peer copies and pointer queries ---------------------------------------- */

/* The entries these wrap, as the rest of the simulator filled them. */
static CUresult (*dtod_async)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
static CUresult (*pointer_attribute)(void *, int, CUdeviceptr);

static CUresult sim_cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src,
                                      CUcontext srcCtx, size_t n, CUstream s)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!ctx_ok(dstCtx) || !ctx_ok(srcCtx))
        return CUDA_ERROR_INVALID_CONTEXT;
    /* one address space: the copy is a device-to-device copy, in stream order */
    return dtod_async(dst, src, n, s);
}

/* The device of a pointer is its context's (the rest of the simulator
 * answers 0, having had one device). */
static CUresult sim_cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr)
{
    if (attribute != CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL || data == NULL)
        return pointer_attribute(data, attribute, ptr);
    CUcontext c = NULL;
    CUresult rc = pointer_attribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, ptr);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (c == NULL) /* a module global or imported memory: the device of its context */
        return pointer_attribute(data, attribute, ptr);
    *(int *)data = c->device;
    return CUDA_SUCCESS;
}

void sim_fill_multi_table(pcc_driver_table *t)
{
    dtod_async = t->cuMemcpyDtoDAsync;
    ctx_destroy = t->cuCtxDestroy;
    primary_release = t->cuDevicePrimaryCtxRelease;
    t->cuCtxDestroy = sim_cuCtxDestroy;
    t->cuDevicePrimaryCtxRelease = sim_cuDevicePrimaryCtxRelease;
    pointer_attribute = t->cuPointerGetAttribute;
    t->cuDeviceCanAccessPeer = sim_cuDeviceCanAccessPeer;
    t->cuCtxEnablePeerAccess = sim_cuCtxEnablePeerAccess;
    t->cuCtxDisablePeerAccess = sim_cuCtxDisablePeerAccess;
    t->cuMemcpyPeerAsync = sim_cuMemcpyPeerAsync;
    t->cuPointerGetAttribute = sim_cuPointerGetAttribute;
    sim_fill_ipc_table(t);
    sim_fill_pool_table(t);
}
