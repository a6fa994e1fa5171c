/*
 * sim/ipc.c — memory and events shared between processes (cuIpc*), and the
 * shared mappings they and the exportable pools (sim/pool.c) stand on.
 *
 * A simulated device allocation is private anonymous memory. When it is
 * exported (cuIpcGetMemHandle), its pages move into a memfd, in place: the
 * memfd gets the current bytes and is mapped MAP_SHARED|MAP_FIXED over the
 * same pages, so the exporter's address and contents stay as they were
 * (work running in another thread of the exporter while the handle is made
 * may lose a write: export before sharing, as one does). The handle names
 * the exporter's pid, the memfd's descriptor there and a random nonce that
 * is also in the memfd's name; the opener reaches the memfd through
 * /proc/<pid>/fd/<fd> and checks the name, so a handle whose allocation was
 * freed (its descriptor closed, perhaps reused) is refused, never mapped.
 * The opener maps it between guard pages and registers the range, so its
 * kernels and copies see it as device memory.
 *
 * What the driver refuses, this refuses, with the driver's codes: a handle
 * that is not one (CUDA_ERROR_INVALID_VALUE), one's own handle
 * (CUDA_ERROR_INVALID_CONTEXT), a handle whose memory or process is gone
 * (CUDA_ERROR_INVALID_HANDLE).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/sim.h"
#include "sim/multi.h"

/* ---- shared mappings ---------------------------------------------------------- */

size_t sim_page(void)
{
    static size_t ps;
    if (ps == 0) {
        long v = sysconf(_SC_PAGESIZE);
        ps = v > 0 ? (size_t)v : 4096;
    }
    return ps;
}

uint64_t sim_nonce(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        v = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40);
    }
    return v ? v : 1;
}

int sim_memfd(const char *what, uint64_t nonce, size_t len)
{
    char name[64];
    snprintf(name, sizeof name, "pycudac-%s-%016" PRIx64, what, nonce);
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)len) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int sim_map_shared(int fd, size_t off, size_t len, char **data, void **map, size_t *map_len)
{
    size_t ps = sim_page();
    size_t total = len + 2 * ps;
    char *m = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    if (mmap(m + ps, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)off) ==
        MAP_FAILED) {
        munmap(m, total);
        return -1;
    }
    *data = m + ps;
    *map = m;
    *map_len = total;
    return 0;
}

/* Whether /proc/<pid>/fd/<fd> is the memfd named for `what` and `nonce`:
 * an open descriptor (O_RDWR), else -1. */
static int open_foreign_memfd(int pid, int fd, const char *what, uint64_t nonce)
{
    char path[64], link[256], want[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return -1;
    link[n] = '\0';
    snprintf(want, sizeof want, "/memfd:pycudac-%s-%016" PRIx64, what, nonce);
    if (strncmp(link, want, strlen(want)) != 0)
        return -1;
    int out = open(path, O_RDWR | O_CLOEXEC);
    if (out < 0)
        return -1;
    /* the descriptor may have changed between the readlink and the open */
    n = readlink(path, link, sizeof link - 1);
    if (n <= 0 || (link[n] = '\0', strncmp(link, want, strlen(want)) != 0)) {
        close(out);
        return -1;
    }
    return out;
}

/* ---- handles ------------------------------------------------------------------- */

#define IPC_MEM_MAGIC 0x43504950u /* "PIPC" */
#define IPC_EVT_MAGIC 0x54564550u /* "PEVT" */
#define IPC_VERSION 1

typedef struct {
    uint32_t magic;
    uint16_t version, pad;
    int32_t pid, fd;
    uint64_t nonce;
    uint64_t span_len; /* bytes of the memfd */
    uint64_t offset;   /* of the allocation's first byte in it */
    uint64_t size;     /* bytes the allocation has */
    int32_t device;
} ipc_mem_wire;

typedef struct {
    uint32_t magic;
    uint16_t version, pad;
    int32_t pid;
    uint64_t nonce;
} ipc_evt_wire;

_Static_assert(sizeof(ipc_mem_wire) <= PCC_IPC_HANDLE_SIZE, "an IPC handle holds it");
_Static_assert(sizeof(ipc_evt_wire) <= PCC_IPC_HANDLE_SIZE, "an IPC handle holds it");

/* ---- exported allocations ------------------------------------------------------ */

typedef struct ipc_export {
    uintptr_t base;
    size_t size;
    int fd;
    uint64_t nonce;
    size_t span_len, offset;
    int device;
    struct ipc_export *next;
} ipc_export;

/* What was opened here from another process's handle. */
typedef struct ipc_open {
    int pid;
    uint64_t nonce;
    uintptr_t base;
    void *map;
    size_t map_len;
    int fd;
    int refcount;
    struct ipc_open *next;
} ipc_open;

static pthread_mutex_t ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static ipc_export *exports;
static atomic_int nexports; /* read without the lock by every free */
static ipc_open *opened;

/* The entries these use or wrap, as the rest of the simulator filled them. */
static CUresult (*address_range)(CUdeviceptr *, size_t *, CUdeviceptr);
static CUresult (*pointer_attribute)(void *, int, CUdeviceptr);
static CUresult (*mem_free)(CUdeviceptr);
static CUresult (*mem_free_async)(CUdeviceptr, CUstream);
static CUresult (*event_create)(CUevent *, unsigned int);

/* Moves [span, span+len) into a new memfd, in place: -1 when it cannot. */
static int share_in_place(char *span, size_t len, uint64_t nonce)
{
    int fd = sim_memfd("ipc", nonce, len);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t w = pwrite(fd, span + done, len - done, (off_t)done);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    if (mmap(span, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
        close(fd);
        return -1;
    }
    return fd;
}

static CUresult sim_cuIpcGetMemHandle(CUipcMemHandle *handle, CUdeviceptr dptr)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (handle == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr base = 0;
    size_t size = 0;
    unsigned int type = 0, managed = 0;
    CUcontext owner = NULL;
    if (address_range(&base, &size, dptr) != CUDA_SUCCESS ||
        pointer_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr) != CUDA_SUCCESS ||
        pointer_attribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, dptr) != CUDA_SUCCESS ||
        pointer_attribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, dptr) != CUDA_SUCCESS)
        return CUDA_ERROR_INVALID_VALUE;
    /* device memory of cuMemAlloc only: not managed, pinned, a module's
     * global, pool memory or memory opened from another process */
    if (type != CU_MEMORYTYPE_DEVICE || managed || owner == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&ipc_lock);
    ipc_export *e = exports;
    while (e != NULL && !(e->base == (uintptr_t)base && e->size == size))
        e = e->next;
    if (e == NULL) {
        size_t ps = sim_page();
        uintptr_t span = (uintptr_t)base & ~(uintptr_t)(ps - 1);
        uintptr_t end = ((uintptr_t)base + size + ps - 1) & ~(uintptr_t)(ps - 1);
        e = calloc(1, sizeof *e);
        if (e != NULL) {
            e->nonce = sim_nonce();
            e->fd = share_in_place((char *)span, end - span, e->nonce);
            if (e->fd < 0) {
                free(e);
                e = NULL;
            }
        }
        if (e == NULL) {
            pthread_mutex_unlock(&ipc_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        e->base = (uintptr_t)base;
        e->size = size;
        e->span_len = end - span;
        e->offset = (uintptr_t)base - span;
        e->device = owner->device;
        e->next = exports;
        exports = e;
        atomic_fetch_add(&nexports, 1);
    }
    ipc_mem_wire w = {IPC_MEM_MAGIC, IPC_VERSION, 0, (int32_t)getpid(), e->fd, e->nonce,
                      e->span_len, e->offset, e->size, e->device};
    pthread_mutex_unlock(&ipc_lock);
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, &w, sizeof w);
    return CUDA_SUCCESS;
}

/* An allocation was freed: its export (if any) goes, and the memfd with it
 * once no other process maps it. */
static void forget_export(CUdeviceptr dptr)
{
    pthread_mutex_lock(&ipc_lock);
    for (ipc_export **p = &exports; *p != NULL; p = &(*p)->next)
        if ((*p)->base == (uintptr_t)dptr) {
            ipc_export *e = *p;
            *p = e->next;
            atomic_fetch_sub(&nexports, 1);
            close(e->fd);
            free(e);
            break;
        }
    pthread_mutex_unlock(&ipc_lock);
}

static CUresult sim_cuMemFree(CUdeviceptr dptr)
{
    CUresult rc = mem_free(dptr);
    if (rc == CUDA_SUCCESS && atomic_load_explicit(&nexports, memory_order_relaxed) > 0)
        forget_export(dptr);
    return rc;
}

static CUresult sim_cuMemFreeAsync(CUdeviceptr dptr, CUstream s)
{
    CUresult rc = mem_free_async(dptr, s);
    if (rc == CUDA_SUCCESS && atomic_load_explicit(&nexports, memory_order_relaxed) > 0)
        forget_export(dptr);
    return rc;
}

static CUresult sim_cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                       unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pdptr == NULL || (flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    ipc_mem_wire w;
    memcpy(&w, handle.reserved, sizeof w);
    size_t ps = sim_page();
    if (w.magic != IPC_MEM_MAGIC || w.version != IPC_VERSION || w.pid <= 0 || w.fd < 0 ||
        w.span_len == 0 || w.span_len % ps != 0 || w.size == 0 || w.offset >= w.span_len ||
        w.size > w.span_len - w.offset)
        return CUDA_ERROR_INVALID_VALUE;
    if (w.pid == (int32_t)getpid())
        return CUDA_ERROR_INVALID_CONTEXT; /* a process cannot open its own handle */
    pthread_mutex_lock(&ipc_lock);
    for (ipc_open *o = opened; o != NULL; o = o->next)
        if (o->pid == w.pid && o->nonce == w.nonce) {
            o->refcount++; /* opened here already: the same pointer */
            *pdptr = (CUdeviceptr)o->base;
            pthread_mutex_unlock(&ipc_lock);
            return CUDA_SUCCESS;
        }
    pthread_mutex_unlock(&ipc_lock);
    int fd = open_foreign_memfd(w.pid, w.fd, "ipc", w.nonce);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size != w.span_len) {
        if (fd >= 0)
            close(fd);
        return CUDA_ERROR_INVALID_HANDLE; /* freed, or its process is gone */
    }
    ipc_open *o = calloc(1, sizeof *o);
    char *data;
    if (o == NULL || sim_map_shared(fd, 0, w.span_len, &data, &o->map, &o->map_len) != 0) {
        free(o);
        close(fd);
        return CUDA_ERROR_MAP_FAILED;
    }
    o->pid = w.pid;
    o->nonce = w.nonce;
    o->base = (uintptr_t)data + w.offset;
    o->fd = fd;
    o->refcount = 1;
    if (sim_registry_add_global(o->base, w.size, o) != 0) {
        munmap(o->map, o->map_len);
        close(fd);
        free(o);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&ipc_lock);
    o->next = opened;
    opened = o;
    pthread_mutex_unlock(&ipc_lock);
    *pdptr = (CUdeviceptr)o->base;
    return CUDA_SUCCESS;
}

static CUresult sim_cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    ipc_open *gone = NULL;
    rc = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&ipc_lock);
    for (ipc_open **p = &opened; *p != NULL; p = &(*p)->next)
        if ((*p)->base == (uintptr_t)dptr) {
            rc = CUDA_SUCCESS;
            if (--(*p)->refcount == 0) {
                gone = *p;
                *p = gone->next;
            }
            break;
        }
    pthread_mutex_unlock(&ipc_lock);
    if (gone != NULL) {
        sim_registry_remove_owner(gone);
        munmap(gone->map, gone->map_len);
        close(gone->fd);
        free(gone);
    }
    return rc;
}

/* ---- events ---------------------------------------------------------------------- */

/* All simulated work is complete when its call returns, so an event opened
 * from another process is complete whenever it is asked: what is checked
 * is the handle. */
static CUresult sim_cuIpcGetEventHandle(CUipcEventHandle *handle, CUevent e)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (handle == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (e == NULL || e->magic != SIM_EVENT_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!(e->flags & CU_EVENT_INTERPROCESS))
        return CUDA_ERROR_INVALID_VALUE;
    ipc_evt_wire w = {IPC_EVT_MAGIC, IPC_VERSION, 0, (int32_t)getpid(),
                      (uint64_t)(uintptr_t)e ^ 0x9e3779b97f4a7c15ull};
    memset(handle, 0, sizeof *handle);
    memcpy(handle->reserved, &w, sizeof w);
    return CUDA_SUCCESS;
}

static CUresult sim_cuIpcOpenEventHandle(CUevent *pe, CUipcEventHandle handle)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pe == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    ipc_evt_wire w;
    memcpy(&w, handle.reserved, sizeof w);
    if (w.magic != IPC_EVT_MAGIC || w.version != IPC_VERSION || w.pid <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (w.pid == (int32_t)getpid())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (kill(w.pid, 0) != 0 && errno == ESRCH)
        return CUDA_ERROR_INVALID_HANDLE; /* its process is gone */
    return event_create(pe, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING);
}

void sim_fill_ipc_table(pcc_driver_table *t)
{
    address_range = t->cuMemGetAddressRange;
    pointer_attribute = t->cuPointerGetAttribute;
    mem_free = t->cuMemFree;
    mem_free_async = t->cuMemFreeAsync;
    event_create = t->cuEventCreate;
    t->cuMemFree = sim_cuMemFree;
    t->cuMemFreeAsync = sim_cuMemFreeAsync;
    t->cuIpcGetMemHandle = sim_cuIpcGetMemHandle;
    t->cuIpcOpenMemHandle = sim_cuIpcOpenMemHandle;
    t->cuIpcCloseMemHandle = sim_cuIpcCloseMemHandle;
    t->cuIpcGetEventHandle = sim_cuIpcGetEventHandle;
    t->cuIpcOpenEventHandle = sim_cuIpcOpenEventHandle;
}
