/*
 * sim/pool.c — stream-ordered memory pools (cuMemPool*): created pools, the
 * default pool of every device, allocation from a pool and its release
 * threshold, and pools shared between processes (a POSIX file descriptor
 * for the pool, 64 bytes of export data for each allocation).
 *
 * A block is its own mapping between guard pages, as every simulated
 * allocation is, registered so that kernels and copies see it. A freed
 * block stays with its pool, for the next allocation of its size, while
 * the pool's reserved memory is over its release threshold it is given
 * back: on a GPU that happens at the next synchronization, and simulated
 * work is always synchronized. A pool created with
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR takes its blocks from one memfd
 * (a header page first, then the blocks), which the export hands out and
 * another process maps; a block's export data names its offset there.
 *
 * Counters (reserved, used, their high-water marks) are in whole pages of
 * the blocks, as a GPU's are in its granules (2 MiB).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/sim.h"
#include "sim/multi.h"

#define POOL_MAGIC 0x4c4f5053u  /* "SPOL" */
#define FILE_MAGIC 0x4c4f5050u  /* "PPOL": the memfd's header */
#define PTR_MAGIC 0x52545050u   /* "PPTR": a block's export data */
#define POOL_VERSION 1
#define SIM_ALIGN 16u

typedef struct pool_block {
    uintptr_t base;
    size_t size;        /* what was asked */
    size_t data_len;    /* its pages */
    void *map;
    size_t map_len;
    size_t off;         /* in the pool's memfd (exportable pools) */
    int live;
    int imported;       /* cuMemPoolImportPointer: unmapped at its free */
    struct pool_block *next;
} pool_block;

typedef struct {
    size_t off, len;
} pool_hole;

struct CUmemPoolHandle_st {
    unsigned int magic;
    int device;
    int handle_types;
    int imported;    /* cuMemPoolImportFromShareableHandle's */
    int is_default;  /* a device's default pool: never destroyed */
    int destroyed;   /* freed when its last block is */
    int exported;    /* cuMemPoolExportToShareableHandle ran: its pointers can be exported */
    unsigned long long release_threshold;
    size_t reserved, reserved_high, used, used_high;
    int fd;          /* exportable and imported pools: the memfd, else -1 */
    uint64_t nonce;
    size_t fd_len;
    pool_hole *holes;
    size_t nholes, holes_cap;
    pool_block *blocks;
    struct CUmemPoolHandle_st *next_pool;
};

typedef struct {
    uint32_t magic;
    uint16_t version, pad;
    uint64_t nonce;
    int32_t device;
} pool_file_header;

typedef struct {
    uint32_t magic;
    uint16_t version, pad;
    uint64_t nonce;
    uint64_t off, data_len, size, base_off;
} pool_ptr_wire;
_Static_assert(sizeof(pool_ptr_wire) <= sizeof(CUmemPoolPtrExportData), "export data holds it");

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct CUmemPoolHandle_st *pools; /* every live pool */
static atomic_int npools;                /* read without the lock by every free */
static struct CUmemPoolHandle_st *defaults[SIM_MAX_DEVICES];

/* The entries these wrap, as the rest of the simulator filled them. */
static CUresult (*mem_free)(CUdeviceptr);
static CUresult (*mem_free_async)(CUdeviceptr, CUstream);
static CUresult (*set_attribute)(CUmemoryPool, int, void *);

/* ---- pools (pool_lock held) ------------------------------------------------------- */

static int pool_known(CUmemoryPool p)
{
    for (CUmemoryPool q = pools; q != NULL; q = q->next_pool)
        if (q == p)
            return p->magic == POOL_MAGIC;
    return 0;
}

static CUmemoryPool pool_new(int device, int handle_types)
{
    CUmemoryPool p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->magic = POOL_MAGIC;
    p->device = device;
    p->handle_types = handle_types;
    p->fd = -1;
    p->next_pool = pools;
    pools = p;
    atomic_fetch_add(&npools, 1);
    return p;
}

static void pool_free(CUmemoryPool p)
{
    for (CUmemoryPool *q = &pools; *q != NULL; q = &(*q)->next_pool)
        if (*q == p) {
            *q = p->next_pool;
            atomic_fetch_sub(&npools, 1);
            break;
        }
    if (p->fd >= 0)
        close(p->fd);
    free(p->holes);
    p->magic = 0;
    free(p);
}

/* Unmaps a block and gives its pages back. */
static void block_release(CUmemoryPool p, pool_block *b)
{
    munmap(b->map, b->map_len);
    if (b->imported) {
        free(b);
        return;
    }
    if (p->fd >= 0) {
        fallocate(p->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)b->off,
                  (off_t)b->data_len);
        if (p->nholes == p->holes_cap) {
            size_t cap = p->holes_cap ? 2 * p->holes_cap : 16;
            pool_hole *h = realloc(p->holes, cap * sizeof *h);
            if (h != NULL) {
                p->holes = h;
                p->holes_cap = cap;
            }
        }
        if (p->nholes < p->holes_cap)
            p->holes[p->nholes++] = (pool_hole){b->off, b->data_len};
    }
    p->reserved -= b->data_len;
    sim_mem_uncharge(b->data_len);
    free(b);
}

/* Gives cached blocks back until `keep` bytes or fewer stay reserved. */
static void pool_trim(CUmemoryPool p, size_t keep)
{
    for (pool_block **q = &p->blocks; *q != NULL && p->reserved > keep;) {
        pool_block *b = *q;
        if (b->live || b->imported) {
            q = &b->next;
            continue;
        }
        *q = b->next;
        block_release(p, b);
    }
}

/* A destroyed pool goes once its last block has. */
static void pool_maybe_gone(CUmemoryPool p)
{
    if (!p->destroyed)
        return;
    pool_trim(p, 0);
    if (p->blocks == NULL)
        pool_free(p);
}

/* Where in the memfd `len` bytes go: a hole of that size, else its end. */
static int file_take(CUmemoryPool p, size_t len, size_t *off)
{
    for (size_t i = 0; i < p->nholes; i++)
        if (p->holes[i].len == len) {
            *off = p->holes[i].off;
            p->holes[i] = p->holes[--p->nholes];
            return 0;
        }
    if (ftruncate(p->fd, (off_t)(p->fd_len + len)) != 0)
        return -1;
    *off = p->fd_len;
    p->fd_len += len;
    return 0;
}

/* A new block of data_len bytes (not yet live): NULL when memory is short. */
static pool_block *block_new(CUmemoryPool p, size_t data_len)
{
    if (sim_mem_charge(data_len) != CUDA_SUCCESS)
        return NULL;
    pool_block *b = calloc(1, sizeof *b);
    char *data = NULL;
    int ok = b != NULL;
    if (ok && p->fd >= 0) {
        ok = file_take(p, data_len, &b->off) == 0 &&
             sim_map_shared(p->fd, b->off, data_len, &data, &b->map, &b->map_len) == 0;
    } else if (ok) {
        size_t ps = sim_page();
        b->map_len = data_len + 2 * ps;
        b->map = mmap(NULL, b->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
        ok = b->map != MAP_FAILED &&
             mprotect((char *)b->map + ps, data_len, PROT_READ | PROT_WRITE) == 0;
        if (!ok && b->map != MAP_FAILED)
            munmap(b->map, b->map_len);
        data = (char *)b->map + ps;
    }
    if (!ok) {
        free(b);
        sim_mem_uncharge(data_len);
        return NULL;
    }
    b->data_len = data_len;
    b->base = (uintptr_t)data; /* placed at each allocation */
    p->reserved += data_len;
    if (p->reserved > p->reserved_high)
        p->reserved_high = p->reserved;
    b->next = p->blocks;
    p->blocks = b;
    return b;
}

static size_t data_len_of(size_t size)
{
    size_t ps = sim_page();
    size_t rounded = (size + SIM_ALIGN - 1) & ~(size_t)(SIM_ALIGN - 1);
    return (rounded + ps - 1) & ~(ps - 1);
}

/* The block whose allocation starts at p, in any pool (pool_lock held). */
static pool_block *block_at(uintptr_t ptr, CUmemoryPool *owner)
{
    for (CUmemoryPool p = pools; p != NULL; p = p->next_pool)
        for (pool_block *b = p->blocks; b != NULL; b = b->next)
            if (b->live && b->base == ptr) {
                *owner = p;
                return b;
            }
    return NULL;
}

/* ---- the entry points --------------------------------------------------------------- */

static CUresult sim_cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (pool == NULL || props == NULL || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        (props->handleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (props->location.id < 0 || props->location.id >= sim_device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    int fd = -1;
    uint64_t nonce = 0;
    if (props->handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        nonce = sim_nonce();
        fd = sim_memfd("pool", nonce, sim_page());
        pool_file_header h = {FILE_MAGIC, POOL_VERSION, 0, nonce, props->location.id};
        if (fd < 0 || pwrite(fd, &h, sizeof h, 0) != (ssize_t)sizeof h) {
            if (fd >= 0)
                close(fd);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_lock(&pool_lock);
    CUmemoryPool p = pool_new(props->location.id, props->handleTypes);
    if (p != NULL) {
        p->fd = fd;
        p->nonce = nonce;
        p->fd_len = sim_page();
    }
    pthread_mutex_unlock(&pool_lock);
    if (p == NULL) {
        if (fd >= 0)
            close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pool = p;
    return CUDA_SUCCESS;
}

static CUresult sim_cuMemPoolDestroy(CUmemoryPool pool)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    if (!pool_known(pool) || pool->destroyed || pool->is_default) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else {
        pool->destroyed = 1; /* its blocks still live keep it until they are freed */
        pool_maybe_gone(pool);
    }
    pthread_mutex_unlock(&pool_lock);
    return rc;
}

static CUresult sim_cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= sim_device_count())
        return CUDA_ERROR_INVALID_DEVICE;
    if (pool == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    if (defaults[dev] == NULL && (defaults[dev] = pool_new(dev, 0)) != NULL)
        defaults[dev]->is_default = 1;
    *pool = defaults[dev];
    pthread_mutex_unlock(&pool_lock);
    return *pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult sim_cuMemPoolSetAttribute(CUmemoryPool pool, int attr, void *value)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    pthread_mutex_lock(&pool_lock);
    int mine = pool_known(pool);
    CUresult rc = CUDA_SUCCESS;
    if (mine && value == NULL) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else if (mine) {
        unsigned long long v = attr >= CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
                                   ? *(unsigned long long *)value
                                   : (unsigned long long)*(int *)value;
        switch (attr) {
        case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
            break; /* accepted: the simulator's reuse is always safe */
        case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
            pool->release_threshold = v;
            pool_trim(pool, v);
            break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
        case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
            if (v != 0) /* may only be reset */
                rc = CUDA_ERROR_INVALID_VALUE;
            else if (attr == CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH)
                pool->reserved_high = pool->reserved;
            else
                pool->used_high = pool->used;
            break;
        default:
            rc = CUDA_ERROR_INVALID_VALUE;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return mine ? rc : set_attribute(pool, attr, value);
}

static CUresult sim_cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *value)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    if (!pool_known(pool) || value == NULL) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else {
        unsigned long long v = 0;
        switch (attr) {
        case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
            *(int *)value = 1;
            break;
        case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: v = pool->release_threshold; break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: v = pool->reserved; break;
        case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: v = pool->reserved_high; break;
        case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: v = pool->used; break;
        case CU_MEMPOOL_ATTR_USED_MEM_HIGH: v = pool->used_high; break;
        default: rc = CUDA_ERROR_INVALID_VALUE;
        }
        if (rc == CUDA_SUCCESS && attr >= CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
            *(unsigned long long *)value = v;
    }
    pthread_mutex_unlock(&pool_lock);
    return rc;
}

static CUresult sim_cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    if (!pool_known(pool))
        rc = CUDA_ERROR_INVALID_VALUE;
    else
        pool_trim(pool, keep);
    pthread_mutex_unlock(&pool_lock);
    return rc;
}

static CUresult sim_cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map,
                                       size_t count)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (map == NULL && count > 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE || map[i].location.id < 0 ||
            map[i].location.id >= sim_device_count() ||
            (map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
             map[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
            return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    int ok = pool_known(pool);
    pthread_mutex_unlock(&pool_lock);
    return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; /* one memory: always reachable */
}

static CUresult sim_cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
                                            CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (dptr == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    /* stream-ordered allocations are not captured (no allocation nodes) */
    if ((rc = sim_stream_submit(s, NULL)) != SIM_RUN_NOW)
        return rc;
    size_t len = data_len_of(size);
    pthread_mutex_lock(&pool_lock);
    if (!pool_known(pool) || pool->destroyed || pool->imported) {
        pthread_mutex_unlock(&pool_lock);
        return CUDA_ERROR_INVALID_VALUE; /* an imported pool makes no allocations */
    }
    pool_block *b = pool->blocks;
    while (b != NULL && (b->live || b->imported || b->data_len != len))
        b = b->next;
    if (b == NULL)
        b = block_new(pool, len);
    if (b != NULL) {
        size_t rounded = (size + SIM_ALIGN - 1) & ~(size_t)(SIM_ALIGN - 1);
        char *data = (char *)b->map + sim_page();
        b->base = (uintptr_t)(data + len - rounded); /* its end touches the guard page */
        b->size = size;
        if (sim_registry_add_global(b->base, size, b) != 0) {
            b = NULL; /* stays cached */
        } else {
            b->live = 1;
            pool->used += len;
            if (pool->used > pool->used_high)
                pool->used_high = pool->used;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    if (b == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *dptr = (CUdeviceptr)b->base;
    return CUDA_SUCCESS;
}

/* Frees a pool block: 1 when ptr was one (pool_lock taken here). */
static int pool_free_ptr(CUdeviceptr ptr)
{
    CUmemoryPool p = NULL;
    pthread_mutex_lock(&pool_lock);
    pool_block *b = block_at((uintptr_t)ptr, &p);
    if (b != NULL) {
        sim_registry_remove_owner(b);
        b->live = 0;
        if (b->imported) {
            for (pool_block **q = &p->blocks; *q != NULL; q = &(*q)->next)
                if (*q == b) {
                    *q = b->next;
                    break;
                }
            block_release(p, b);
        } else {
            p->used -= b->data_len;
            pool_trim(p, p->release_threshold); /* a simulated free is synchronized */
        }
        pool_maybe_gone(p);
    }
    pthread_mutex_unlock(&pool_lock);
    return b != NULL;
}

static CUresult sim_cuMemFreeAsync(CUdeviceptr dptr, CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (atomic_load_explicit(&npools, memory_order_relaxed) > 0 && dptr != 0) {
        pthread_mutex_lock(&pool_lock);
        CUmemoryPool p;
        int ours = block_at((uintptr_t)dptr, &p) != NULL;
        pthread_mutex_unlock(&pool_lock);
        if (ours) {
            if ((rc = sim_stream_submit(s, NULL)) != SIM_RUN_NOW)
                return rc;
            return pool_free_ptr(dptr) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
        }
    }
    return mem_free_async(dptr, s);
}

/* cuMemFree takes stream-ordered memory too (it waits for the device). */
static CUresult sim_cuMemFree(CUdeviceptr dptr)
{
    if (atomic_load_explicit(&npools, memory_order_relaxed) > 0 && dptr != 0 && sim_enter() == CUDA_SUCCESS &&
        sim_capture_unsafe_call() == CUDA_SUCCESS && pool_free_ptr(dptr))
        return CUDA_SUCCESS;
    return mem_free(dptr);
}

/* ---- sharing between processes ----------------------------------------------------- */

static CUresult sim_cuMemPoolExportToShareableHandle(void *handle, CUmemoryPool pool,
                                                     int type, unsigned long long flags)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (handle == NULL || flags != 0 || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    if (!pool_known(pool) || pool->imported || pool->fd < 0 ||
        !(pool->handle_types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
        rc = CUDA_ERROR_INVALID_VALUE; /* not made exportable */
    } else {
        int fd = fcntl(pool->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        else {
            *(int *)handle = fd; /* the caller owns it */
            pool->exported = 1;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    return rc;
}

static CUresult sim_cuMemPoolImportFromShareableHandle(CUmemoryPool *pool, void *handle,
                                                       int type, unsigned long long flags)
{
    if (!sim_initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (pool == NULL || flags != 0 || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;
    int fd = (int)(intptr_t)handle;
    pool_file_header h;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h || h.magic != FILE_MAGIC ||
        h.version != POOL_VERSION || h.device < 0 || h.device >= sim_device_count())
        return CUDA_ERROR_INVALID_VALUE; /* not a pool's descriptor */
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0); /* the caller keeps (and closes) its own */
    if (own < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&pool_lock);
    CUmemoryPool p = pool_new(h.device, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (p != NULL) {
        p->imported = 1;
        p->fd = own;
        p->nonce = h.nonce;
    }
    pthread_mutex_unlock(&pool_lock);
    if (p == NULL) {
        close(own);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *pool = p;
    return CUDA_SUCCESS;
}

static CUresult sim_cuMemPoolExportPointer(CUmemPoolPtrExportData *out, CUdeviceptr ptr)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    rc = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    CUmemoryPool p = NULL;
    pool_block *b = block_at((uintptr_t)ptr, &p);
    /* as the driver: only a pool already shared (exported to a handle) has
     * pointers to share, whatever it was made for (a GPU answers
     * CUDA_ERROR_INVALID_VALUE before the pool's first export) */
    if (b != NULL && !b->imported && !p->imported && p->fd >= 0 && p->exported) {
        size_t data = (uintptr_t)b->map + sim_page();
        pool_ptr_wire w = {PTR_MAGIC, POOL_VERSION, 0, p->nonce, b->off, b->data_len, b->size,
                           b->base - data};
        memset(out, 0, sizeof *out);
        memcpy(out->reserved, &w, sizeof w);
        rc = CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&pool_lock);
    return rc;
}

static CUresult sim_cuMemPoolImportPointer(CUdeviceptr *ptr, CUmemoryPool pool,
                                           CUmemPoolPtrExportData *data)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (ptr == NULL || data == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pool_ptr_wire w;
    memcpy(&w, data->reserved, sizeof w);
    size_t ps = sim_page();
    rc = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&pool_lock);
    struct stat st;
    pool_block *b = NULL;
    if (pool_known(pool) && pool->imported && w.magic == PTR_MAGIC &&
        w.version == POOL_VERSION && w.nonce == pool->nonce && w.off >= ps && w.off % ps == 0 &&
        w.data_len > 0 && w.data_len % ps == 0 && w.size > 0 && w.base_off < w.data_len &&
        w.size <= w.data_len - w.base_off && fstat(pool->fd, &st) == 0 &&
        w.off + w.data_len <= (uint64_t)st.st_size) {
        char *start;
        b = calloc(1, sizeof *b);
        if (b == NULL || sim_map_shared(pool->fd, w.off, w.data_len, &start, &b->map,
                                        &b->map_len) != 0) {
            free(b);
            b = NULL;
            rc = CUDA_ERROR_MAP_FAILED;
        } else {
            b->base = (uintptr_t)start + w.base_off;
            b->size = w.size;
            b->data_len = w.data_len;
            b->off = w.off;
            b->imported = 1;
            if (sim_registry_add_global(b->base, b->size, b) != 0) {
                munmap(b->map, b->map_len);
                free(b);
                b = NULL;
                rc = CUDA_ERROR_OUT_OF_MEMORY;
            } else {
                b->live = 1;
                b->next = pool->blocks;
                pool->blocks = b;
                rc = CUDA_SUCCESS;
            }
        }
    }
    pthread_mutex_unlock(&pool_lock);
    if (b != NULL)
        *ptr = (CUdeviceptr)b->base;
    return rc;
}

void sim_fill_pool_table(pcc_driver_table *t)
{
    mem_free = t->cuMemFree;
    mem_free_async = t->cuMemFreeAsync;
    set_attribute = t->cuMemPoolSetAttribute;
    t->cuMemFree = sim_cuMemFree;
    t->cuMemFreeAsync = sim_cuMemFreeAsync;
    t->cuMemPoolSetAttribute = sim_cuMemPoolSetAttribute;
    t->cuMemPoolGetAttribute = sim_cuMemPoolGetAttribute;
    t->cuDeviceGetDefaultMemPool = sim_cuDeviceGetDefaultMemPool;
    t->cuMemPoolCreate = sim_cuMemPoolCreate;
    t->cuMemPoolDestroy = sim_cuMemPoolDestroy;
    t->cuMemPoolTrimTo = sim_cuMemPoolTrimTo;
    t->cuMemPoolSetAccess = sim_cuMemPoolSetAccess;
    t->cuMemAllocFromPoolAsync = sim_cuMemAllocFromPoolAsync;
    t->cuMemPoolExportToShareableHandle = sim_cuMemPoolExportToShareableHandle;
    t->cuMemPoolImportFromShareableHandle = sim_cuMemPoolImportFromShareableHandle;
    t->cuMemPoolExportPointer = sim_cuMemPoolExportPointer;
    t->cuMemPoolImportPointer = sim_cuMemPoolImportPointer;
}
