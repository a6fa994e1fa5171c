/*
 * sim/registry.c — the simulator's allocation registry: every range a kernel
 * may address as device memory (device, managed and pinned allocations,
 * registered host ranges, module globals), the guarded mappings behind
 * the allocations the simulator makes, the device memory they are charged
 * against, and what check mode keeps beside them (sim/check.c): an
 * initialization shadow per device allocation, freed allocations held back
 * so that a use after free is named, and a copy of the registry for a
 * launch to search without a lock.
 *
 * Device memory is host memory from mmap with an inaccessible (PROT_NONE)
 * page on both sides, and the block is placed so that its end touches the
 * upper guard page: a kernel that runs past its allocation faults at once
 * and the fault handler (sim/launch.c) names the allocation. The driver
 * calls on memory are sim/memory.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/sim.h"
#include "sim/check.h"

#define SIM_ALIGN 16u

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static sim_alloc *reg;   /* sorted by base */
static size_t reg_len, reg_cap;
static atomic_size_t bytes_in_use;
static atomic_int nshadows; /* allocations with an initialization shadow */

/* Freed allocations held back in check mode (memcheck): their address range
 * stays reserved (PROT_NONE, no memory behind it) so that nothing new is
 * placed there and a stale pointer is named as a use after free. Oldest
 * first; the oldest go once more than SIM_QUARANTINE_BYTES are held. */
#define SIM_QUARANTINE_BYTES ((size_t)1 << 30)
#define SIM_QUARANTINE_MAX 4096
static sim_freed quarantine[SIM_QUARANTINE_MAX];
static size_t q_first, q_len, q_bytes;

/* ---- registry (call with reg_lock held) ------------------------------------------- */

/* Index of the first entry whose base is > addr. */
static size_t reg_upper(uintptr_t addr)
{
    size_t lo = 0, hi = reg_len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (reg[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The entry containing addr, or NULL. */
static sim_alloc *reg_find(uintptr_t addr)
{
    size_t i = reg_upper(addr);
    if (i == 0)
        return NULL;
    sim_alloc *a = &reg[i - 1];
    return addr - a->base < a->size ? a : NULL;
}

/* True when [base, base+size) overlaps an entry. */
static int reg_overlaps(uintptr_t base, size_t size)
{
    size_t i = reg_upper(base);
    if (i > 0 && base - reg[i - 1].base < reg[i - 1].size)
        return 1;
    return i < reg_len && reg[i].base < base + size;
}

static int reg_insert(const sim_alloc *a)
{
    if (reg_len == reg_cap) {
        size_t cap = reg_cap ? reg_cap * 2 : 256;
        sim_alloc *n = realloc(reg, cap * sizeof *n);
        if (n == NULL)
            return -1;
        reg = n;
        reg_cap = cap;
    }
    size_t i = reg_upper(a->base);
    memmove(&reg[i + 1], &reg[i], (reg_len - i) * sizeof *reg);
    reg[i] = *a;
    reg_len++;
    return 0;
}

static void reg_remove(sim_alloc *a)
{
    size_t i = (size_t)(a - reg);
    memmove(&reg[i], &reg[i + 1], (reg_len - i - 1) * sizeof *reg);
    reg_len--;
}

int sim_registry_add_global(uintptr_t base, size_t size, const void *owner)
{
    if (size == 0)
        return 0;
    sim_alloc a = {base, size, NULL, 0, SIM_ALLOC_GLOBAL, 0, NULL, owner, NULL};
    int rc = 0;
    pthread_mutex_lock(&reg_lock);
    if (!reg_overlaps(base, size))
        rc = reg_insert(&a);
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

void sim_registry_remove_owner(const void *owner)
{
    pthread_mutex_lock(&reg_lock);
    size_t j = 0;
    for (size_t i = 0; i < reg_len; i++)
        if (!(reg[i].kind == SIM_ALLOC_GLOBAL && reg[i].owner == owner))
            reg[j++] = reg[i];
    reg_len = j;
    pthread_mutex_unlock(&reg_lock);
}

const char *sim_alloc_kind_name(int kind)
{
    switch (kind) {
    case SIM_ALLOC_DEVICE: return "device allocation";
    case SIM_ALLOC_MANAGED: return "managed allocation";
    case SIM_ALLOC_HOST: return "pinned host allocation";
    case SIM_ALLOC_REGISTERED: return "registered host range";
    case SIM_ALLOC_GLOBAL: return "module global";
    default: return "allocation";
    }
}

void sim_describe_near(uintptr_t addr, const sim_alloc *below, const sim_alloc *above, char *buf,
                       size_t len)
{
    if (below && addr - below->base < below->size) {
        snprintf(buf, len, "inside the %zu-byte %s at 0x%" PRIxPTR " (offset %zu)", below->size,
                 sim_alloc_kind_name(below->kind), below->base, (size_t)(addr - below->base));
        return;
    }
    /* The nearer neighbour; an overrun is far more common than an underrun,
     * so the one below wins within a page. */
    uintptr_t past = below ? addr - (below->base + below->size) : UINTPTR_MAX;
    uintptr_t before = above ? above->base - addr : UINTPTR_MAX;
    if (below && (past <= 4096 || past <= before)) {
        char by[48] = "just past its end";
        if (past > 0)
            snprintf(by, sizeof by, "%" PRIuPTR " bytes past its end", past);
        snprintf(buf, len, "offset %" PRIuPTR " of the %zu-byte %s at 0x%" PRIxPTR ": %s",
                 addr - below->base, below->size, sim_alloc_kind_name(below->kind), below->base,
                 by);
    } else if (above) {
        snprintf(buf, len, "%" PRIuPTR " bytes before the start of the %zu-byte %s at 0x%" PRIxPTR,
                 before, above->size, sim_alloc_kind_name(above->kind), above->base);
    } else {
        snprintf(buf, len, "not near any allocation");
    }
}

void sim_describe_address(uintptr_t addr, char *buf, size_t len)
{
    pthread_mutex_lock(&reg_lock);
    size_t i = reg_upper(addr);
    sim_describe_near(addr, i > 0 ? &reg[i - 1] : NULL, i < reg_len ? &reg[i] : NULL, buf, len);
    pthread_mutex_unlock(&reg_lock);
}

int sim_registry_lookup(uintptr_t addr, sim_alloc *out)
{
    pthread_mutex_lock(&reg_lock);
    const sim_alloc *a = reg_find(addr);
    if (a && out)
        *out = *a;
    pthread_mutex_unlock(&reg_lock);
    return a != NULL;
}

CUresult sim_registry_check_range(CUdeviceptr p, size_t n)
{
    if (n == 0)
        return CUDA_SUCCESS;
    CUresult rc = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&reg_lock);
    const sim_alloc *a = reg_find((uintptr_t)p);
    if (a && n <= a->size - ((uintptr_t)p - a->base))
        rc = CUDA_SUCCESS;
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

CUresult sim_registry_register_host(uintptr_t p, size_t n, unsigned int flags)
{
    sim_alloc a = {p, n, NULL, 0, SIM_ALLOC_REGISTERED, flags, sim_current_ctx(), NULL, NULL};
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&reg_lock);
    if (reg_overlaps(a.base, a.size))
        rc = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    else if (reg_insert(&a) < 0)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

CUresult sim_registry_unregister_host(uintptr_t p)
{
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&reg_lock);
    sim_alloc *a = reg_find(p);
    if (p == 0 || a == NULL || a->base != p || a->kind != SIM_ALLOC_REGISTERED)
        rc = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    else
        reg_remove(a);
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

/* ---- guarded allocations -------------------------------------------------------- */

static size_t page_size(void)
{
    static size_t ps;
    if (ps == 0) {
        long v = sysconf(_SC_PAGESIZE);
        ps = v > 0 ? (size_t)v : 4096;
    }
    return ps;
}

/* PYCUDAC_SIM_MEMORY's bytes ("512M", "2G", "1073741824"; K, M, G, T are
 * powers of 1024, an optional "iB" or "B" after), or 0 when unset or not
 * one of those, or more than a signed 64-bit count (mem_get_info's). */
static size_t memory_setting(const char *v)
{
    if (v == NULL || *v < '0' || *v > '9') /* no sign, no space: strtoull takes both */
        return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno == ERANGE)
        return 0;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || n == 0 || n > ((unsigned long long)INT64_MAX >> shift))
        return 0;
    return (size_t)n << shift;
}

/* The simulated devices' memory, one amount they share (each reports it
 * as its total): PYCUDAC_SIM_MEMORY when it is set (read once, at the
 * first question, as PYCUDAC_SIM_DEVICES is), else the host's physical
 * memory. A device byte is a host byte here: code that
 * sizes its arrays to the free memory takes what this says. */
size_t sim_total_bytes(void)
{
    static atomic_size_t total; /* 0: not read yet */
    size_t t = atomic_load_explicit(&total, memory_order_acquire);
    if (t != 0)
        return t;
    t = memory_setting(getenv("PYCUDAC_SIM_MEMORY"));
    if (t == 0) {
        long pages = sysconf(_SC_PHYS_PAGES);
        t = pages > 0 ? (size_t)pages * page_size() : (size_t)8 << 30;
    }
    atomic_store_explicit(&total, t, memory_order_release);
    return t;
}

size_t sim_bytes_in_use(void)
{
    return atomic_load(&bytes_in_use);
}

/* A fresh initialization shadow of n bytes, all "not written" (zero pages:
 * nothing is touched until written), or NULL. */
static unsigned char *shadow_new(size_t n)
{
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

CUresult sim_guarded_alloc(size_t size, int kind, unsigned int flags, uintptr_t *out)
{
    if (size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    size_t ps = page_size();
    if (size > sim_total_bytes() || size > sim_total_bytes() - atomic_load(&bytes_in_use))
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t rounded = (size + SIM_ALIGN - 1) & ~(size_t)(SIM_ALIGN - 1);
    size_t data_len = (rounded + ps - 1) & ~(ps - 1);
    size_t len = data_len + 2 * ps;
    char *m = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (mprotect(m + ps, data_len, PROT_READ | PROT_WRITE) != 0) {
        munmap(m, len);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    sim_alloc a = {(uintptr_t)(m + ps + data_len - rounded), size, m, len, kind, flags,
                   sim_current_ctx(), NULL, NULL};
    /* initcheck follows what the device writes: device allocations only (the
     * host writes pinned and managed memory behind the simulator's back) */
    if (kind == SIM_ALLOC_DEVICE && (sim_check_flags() & SIM_CHK_INITCHECK) &&
        (a.init = shadow_new(size)) != NULL)
        atomic_fetch_add(&nshadows, 1);
    pthread_mutex_lock(&reg_lock);
    int rc = reg_insert(&a);
    pthread_mutex_unlock(&reg_lock);
    if (rc < 0) {
        if (a.init) {
            munmap(a.init, size);
            atomic_fetch_sub(&nshadows, 1);
        }
        munmap(m, len);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    atomic_fetch_add(&bytes_in_use, size);
    *out = a.base;
    return CUDA_SUCCESS;
}

/* Holds a freed allocation's range back (reg_lock held): no memory behind
 * it, nothing new placed there. 0, or -1 when it cannot be (unmap it). */
static int quarantine_add(const sim_alloc *a)
{
    if (mmap(a->map, a->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
             -1, 0) == MAP_FAILED)
        return -1;
    while (q_len > 0 && (q_len == SIM_QUARANTINE_MAX || q_bytes + a->map_len > SIM_QUARANTINE_BYTES)) {
        sim_freed *old = &quarantine[q_first];
        munmap((void *)old->map, old->map_len);
        q_bytes -= old->map_len;
        q_first = (q_first + 1) % SIM_QUARANTINE_MAX;
        q_len--;
    }
    sim_freed *f = &quarantine[(q_first + q_len) % SIM_QUARANTINE_MAX];
    *f = (sim_freed){a->base, a->size, (uintptr_t)a->map, a->map_len, a->kind};
    q_len++;
    q_bytes += a->map_len;
    return 0;
}

CUresult sim_guarded_free(uintptr_t p, unsigned kinds)
{
    /* On a GPU cuMemFree waits for the device; in check mode so does the
     * simulator, whose running kernel may be reading the shadow. */
    int checking = sim_check_flags() != 0 || atomic_load(&nshadows) > 0;
    if (checking)
        pthread_mutex_lock(&sim_launch_lock);
    pthread_mutex_lock(&reg_lock);
    sim_alloc *a = reg_find(p);
    if (a == NULL || a->base != p || !(kinds & (1u << a->kind)) || a->map == NULL) {
        pthread_mutex_unlock(&reg_lock);
        if (checking)
            pthread_mutex_unlock(&sim_launch_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    sim_alloc copy = *a;
    reg_remove(a);
    int kept = (sim_check_flags() & SIM_CHK_MEMCHECK) && quarantine_add(&copy) == 0;
    pthread_mutex_unlock(&reg_lock);
    if (checking)
        pthread_mutex_unlock(&sim_launch_lock);
    atomic_fetch_sub(&bytes_in_use, copy.size);
    if (copy.init) {
        munmap(copy.init, copy.size);
        atomic_fetch_sub(&nshadows, 1);
    }
    if (!kept)
        munmap(copy.map, copy.map_len);
    return CUDA_SUCCESS;
}

void sim_registry_release_context(CUcontext ctx)
{
    /* as the driver frees a destroyed context's memory: device and managed
     * allocations made in it (their base addresses first, then each freed as
     * cuMemFree would, quarantine and shadows alike) */
    uintptr_t *bases = NULL;
    size_t n = 0, cap = 0;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < reg_len; i++) {
        if (reg[i].ctx != ctx || reg[i].map == NULL ||
            (reg[i].kind != SIM_ALLOC_DEVICE && reg[i].kind != SIM_ALLOC_MANAGED))
            continue;
        if (n == cap) {
            size_t c = cap ? 2 * cap : 16;
            uintptr_t *b = realloc(bases, c * sizeof *b);
            if (b == NULL)
                break; /* what is not listed stays: a leak, never a fault */
            bases = b;
            cap = c;
        }
        bases[n++] = reg[i].base;
    }
    pthread_mutex_unlock(&reg_lock);
    for (size_t i = 0; i < n; i++)
        (void)sim_guarded_free(bases[i], (1u << SIM_ALLOC_DEVICE) | (1u << SIM_ALLOC_MANAGED));
    free(bases);
}

CUresult sim_mem_charge(size_t bytes)
{
    size_t used = atomic_load(&bytes_in_use);
    do {
        if (bytes > sim_total_bytes() || used > sim_total_bytes() - bytes)
            return CUDA_ERROR_OUT_OF_MEMORY;
    } while (!atomic_compare_exchange_weak(&bytes_in_use, &used, used + bytes));
    return CUDA_SUCCESS;
}

void sim_mem_uncharge(size_t bytes)
{
    atomic_fetch_sub(&bytes_in_use, bytes);
}

/* ---- check mode --------------------------------------------------------------------- */

/* A copy or memset wrote [d, d+n) (from `src`'s bytes, or 0: defined data):
 * the initialization shadows follow. */
void sim_registry_written(uintptr_t d, size_t n, uintptr_t src)
{
    if (n == 0 || atomic_load_explicit(&nshadows, memory_order_relaxed) == 0)
        return;
    pthread_mutex_lock(&reg_lock);
    const sim_alloc *dst = reg_find(d);
    const sim_alloc *from = src ? reg_find(src) : NULL;
    if (dst && dst->init) {
        unsigned char *sd = dst->init + (d - dst->base);
        if (from && from->init) /* a copy of unwritten bytes is unwritten too */
            memmove(sd, from->init + (src - from->base), n);
        else
            memset(sd, 1, n);
    }
    pthread_mutex_unlock(&reg_lock);
}

sim_alloc *sim_registry_snapshot(size_t *n, sim_freed **freed, size_t *nfreed)
{
    pthread_mutex_lock(&reg_lock);
    sim_alloc *out = malloc((reg_len ? reg_len : 1) * sizeof *out);
    sim_freed *fr = malloc((q_len ? q_len : 1) * sizeof *fr);
    if (out == NULL || fr == NULL) {
        free(out);
        free(fr);
        out = NULL;
        fr = NULL;
        *n = *nfreed = 0;
    } else {
        memcpy(out, reg, reg_len * sizeof *out);
        *n = reg_len;
        for (size_t i = 0; i < q_len; i++)
            fr[i] = quarantine[(q_first + i) % SIM_QUARANTINE_MAX];
        *nfreed = q_len;
    }
    pthread_mutex_unlock(&reg_lock);
    *freed = fr;
    return out;
}
