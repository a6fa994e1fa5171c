/*
 * sim/heap.c — a context's limits (cuCtxSetLimit / cuCtxGetLimit), the cache and
 * shared-memory bank preferences of contexts and kernels
 * (cu{Ctx,Func}{Set,Get}{Cache,SharedMem}Config) and the
 * device heap that malloc() and free() in kernels use: one region per
 * context, CU_LIMIT_MALLOC_HEAP_SIZE bytes (8 MiB unless set before the
 * first kernel that allocates), first-fit with neighbours merged on free,
 * NULL when exhausted, 16-byte aligned as on the GPU. Any thread of any
 * block may free what another allocated, and what a launch allocates stays
 * for the next launch until freed or the context goes.
 *
 * CU_LIMIT_STACK_SIZE is the simulated thread's stack: what a context asks
 * for beyond the default is added to each fiber's (sim/fiber.c).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/sim.h"
#include "sim/check.h"

/* The H100's defaults (cuCtxGetLimit on a fresh context). */
static const size_t limit_default[CU_LIMIT_MAX] = {
    [CU_LIMIT_STACK_SIZE] = 1024,
    [CU_LIMIT_PRINTF_FIFO_SIZE] = 1u << 20,
    [CU_LIMIT_MALLOC_HEAP_SIZE] = 8u << 20,
    [CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2,
    [CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048,
    [CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64,
    [CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0,
};

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;

/* A block of the heap: its header, then its bytes. Blocks tile the region
 * in address order, so the next one is at (char *)h + sizeof *h + size. */
typedef struct {
    size_t size; /* bytes after the header */
    size_t used; /* 0: free */
} sim_chunk;

#define SIM_HEAP_ALIGN 16
_Static_assert(sizeof(sim_chunk) == SIM_HEAP_ALIGN, "the header keeps the bytes 16-aligned");

struct sim_heap {
    char *base;
    size_t size;
};

static size_t limit_of(CUcontext c, int which)
{
    return c->limit_set[which] ? c->limits[which] : limit_default[which];
}

static CUresult sim_cuCtxSetLimit(int which, size_t value)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (which < 0 || which >= CU_LIMIT_MAX)
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    CUcontext c = sim_current_ctx();
    pthread_mutex_lock(&heap_lock);
    if (which == CU_LIMIT_MALLOC_HEAP_SIZE && c->heap != NULL) {
        /* as on the GPU: only before a kernel has used malloc */
        pthread_mutex_unlock(&heap_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (which == CU_LIMIT_STACK_SIZE && value > ((size_t)64 << 20))
        value = (size_t)64 << 20;
    if (which == CU_LIMIT_MALLOC_HEAP_SIZE) /* whole 16-byte blocks, room for one header */
        value = value < 2 * SIM_HEAP_ALIGN ? 2 * SIM_HEAP_ALIGN
                                          : (value + SIM_HEAP_ALIGN - 1) & ~(size_t)(SIM_HEAP_ALIGN - 1);
    c->limits[which] = value;
    c->limit_set[which] = 1;
    pthread_mutex_unlock(&heap_lock);
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxGetLimit(size_t *pvalue, int which)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pvalue == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (which < 0 || which >= CU_LIMIT_MAX)
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    CUcontext c = sim_current_ctx();
    pthread_mutex_lock(&heap_lock);
    *pvalue = limit_of(c, which);
    pthread_mutex_unlock(&heap_lock);
    return CUDA_SUCCESS;
}

/* The L1/shared split preference: kept and answered; the simulator has one
 * memory, so nothing else follows from it. */
static CUresult sim_cuCtxSetCacheConfig(int config)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c = sim_current_ctx();
    pthread_mutex_lock(&heap_lock);
    c->cache_config = config;
    pthread_mutex_unlock(&heap_lock);
    return CUDA_SUCCESS;
}

static CUresult sim_cuCtxGetCacheConfig(int *pconfig)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pconfig == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUcontext c = sim_current_ctx();
    pthread_mutex_lock(&heap_lock);
    *pconfig = c->cache_config;
    pthread_mutex_unlock(&heap_lock);
    return CUDA_SUCCESS;
}

/* The bank size: fixed at four bytes, as on every GPU CUDA 13 drives, where
 * a request is accepted and changes nothing. */
static CUresult sim_cuCtxSetSharedMemConfig(int config)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    return config < CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE ||
                   config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
               ? CUDA_ERROR_INVALID_VALUE
               : CUDA_SUCCESS;
}

static CUresult sim_cuCtxGetSharedMemConfig(int *pconfig)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pconfig == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pconfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    return CUDA_SUCCESS;
}

static CUresult sim_cuFuncSetCacheConfig(CUfunction f, int config)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL)
        return CUDA_ERROR_INVALID_VALUE;
    f->cache_config = config;
    return CUDA_SUCCESS;
}

static CUresult sim_cuFuncSetSharedMemConfig(CUfunction f, int config)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    return config < CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE ||
                   config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE
               ? CUDA_ERROR_INVALID_VALUE
               : CUDA_SUCCESS;
}

void sim_fill_limit_table(pcc_driver_table *t)
{
    t->cuCtxSetCacheConfig = sim_cuCtxSetCacheConfig;
    t->cuCtxGetCacheConfig = sim_cuCtxGetCacheConfig;
    t->cuCtxSetSharedMemConfig = sim_cuCtxSetSharedMemConfig;
    t->cuCtxGetSharedMemConfig = sim_cuCtxGetSharedMemConfig;
    t->cuFuncSetCacheConfig = sim_cuFuncSetCacheConfig;
    t->cuFuncSetSharedMemConfig = sim_cuFuncSetSharedMemConfig;
    t->cuCtxSetLimit = sim_cuCtxSetLimit;
    t->cuCtxGetLimit = sim_cuCtxGetLimit;
}

size_t sim_stack_extra(void)
{
    CUcontext c = sim_launch_ctx();
    if (c == NULL)
        return 0;
    pthread_mutex_lock(&heap_lock);
    size_t s = limit_of(c, CU_LIMIT_STACK_SIZE);
    pthread_mutex_unlock(&heap_lock);
    return s > limit_default[CU_LIMIT_STACK_SIZE] ? s - limit_default[CU_LIMIT_STACK_SIZE] : 0;
}

void sim_heap_release(CUcontext ctx)
{
    pthread_mutex_lock(&heap_lock);
    struct sim_heap *h = ctx->heap;
    ctx->heap = NULL;
    pthread_mutex_unlock(&heap_lock);
    if (h) {
        munmap(h->base, h->size);
        free(h);
    }
}

int sim_heap_owns(uintptr_t addr)
{
    CUcontext c = sim_launch_ctx();
    struct sim_heap *h = c ? __atomic_load_n(&c->heap, __ATOMIC_ACQUIRE) : NULL;
    return h && addr - (uintptr_t)h->base < h->size;
}

/* ctx's heap, made on first use (under heap_lock); NULL when it cannot be. */
static struct sim_heap *heap_of(CUcontext c)
{
    if (c->heap)
        return c->heap;
    struct sim_heap *h = calloc(1, sizeof *h);
    if (h == NULL)
        return NULL;
    h->size = limit_of(c, CU_LIMIT_MALLOC_HEAP_SIZE);
    void *m = mmap(NULL, h->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED) {
        free(h);
        return NULL;
    }
    h->base = m;
    sim_chunk *first = (sim_chunk *)h->base;
    first->size = h->size - sizeof *first;
    first->used = 0;
    __atomic_store_n(&c->heap, h, __ATOMIC_RELEASE); /* sim_heap_owns reads it unlocked */
    return h;
}

static sim_chunk *next_chunk(const struct sim_heap *h, sim_chunk *k)
{
    char *n = (char *)k + sizeof *k + k->size;
    return n < h->base + h->size ? (sim_chunk *)n : NULL;
}

void *sim_api_malloc(pcc_sim_thread *t, size_t n)
{
    (void)t;
    CUcontext c = sim_launch_ctx();
    if (c == NULL || n > ((size_t)1 << 62))
        return NULL;
    size_t want = n ? (n + SIM_HEAP_ALIGN - 1) & ~(size_t)(SIM_HEAP_ALIGN - 1) : SIM_HEAP_ALIGN;
    void *p = NULL;
    pthread_mutex_lock(&heap_lock);
    struct sim_heap *h = heap_of(c);
    for (sim_chunk *k = h ? (sim_chunk *)h->base : NULL; k && p == NULL; k = next_chunk(h, k)) {
        if (k->used || k->size < want)
            continue;
        if (k->size >= want + 2 * sizeof *k) { /* split: the rest stays free */
            sim_chunk *rest = (sim_chunk *)((char *)k + sizeof *k + want);
            rest->size = k->size - want - sizeof *k;
            rest->used = 0;
            k->size = want;
        }
        k->used = 1;
        p = (char *)k + sizeof *k;
    }
    pthread_mutex_unlock(&heap_lock);
    sim_check_heap_fresh(p, want);
    return p;
}

void sim_api_free(pcc_sim_thread *t, void *p)
{
    (void)t;
    CUcontext c = sim_launch_ctx();
    if (p == NULL || c == NULL)
        return;
    pthread_mutex_lock(&heap_lock);
    struct sim_heap *h = c->heap;
    if (h && (char *)p > h->base && (char *)p < h->base + h->size) {
        /* walk to it (a pointer that is no block's start is ignored), merging
         * free neighbours on the way */
        sim_chunk *prev = NULL;
        for (sim_chunk *k = (sim_chunk *)h->base; k; k = next_chunk(h, k)) {
            if ((char *)k + sizeof *k == (char *)p) {
                if (!k->used)
                    break;
                k->used = 0;
                sim_chunk *n = next_chunk(h, k);
                if (n && !n->used)
                    k->size += sizeof *n + n->size;
                if (prev && !prev->used)
                    prev->size += sizeof *k + k->size;
                break;
            }
            prev = k;
        }
    }
    pthread_mutex_unlock(&heap_lock);
}
