/*
 * sim/check.c — check mode: the simulator as a sanitizer. Its configuration
 * (which checks, the schedule, whether errors raise), the hook that every
 * load and store of an instrumented kernel calls first (api->check, from
 * the prelude's sim/prelude/pcc_check.h), memcheck and initcheck, and the
 * synccheck reports of barriers that cannot complete. racecheck's tables are
 * sim/race.c; the reports and their source lines sim/report.c; the hook
 * hands global and shared accesses to the teaching profile (sim/profile.c)
 * when it is on.
 *
 * The hook sorts an address by the memory it falls in, in the order the
 * kernel's accesses are most often found:
 *  - the thread's own pcc_sim_thread (threadIdx ...) and its own stack
 *    (local memory: the fiber's stack, or the worker's stack in plain
 *    mode): nothing to check;
 *  - the worker's TLS block of the module (static __shared__) and its
 *    dynamic shared bytes: shared memory (racecheck; memcheck past the
 *    dynamic bytes);
 *  - an allocation of the registry (a copy taken at the launch, searched
 *    without a lock, the last one hit remembered): global memory
 *    (memcheck of the whole access, initcheck, racecheck);
 *  - what the runtime and the module own (the api table, the block's
 *    thread structs, the kernel's parameters, the module's own data, the
 *    device heap): allowed;
 *  - anything else is a memcheck error: another thread's stack or past the
 *    thread's own (stack overflow), a freed allocation (use after free),
 *    before or past an allocation, or no allocation at all.
 * An access the hook finds bad has not happened yet. Where it can do no
 * harm (inside the bad allocation's own pages) the kernel goes on, so every
 * thread's error is reported; elsewhere the block ends there. The launch
 * then fails with PCC_CHECK_FAILED, which is not sticky.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/check.h"

/* ---- configuration ------------------------------------------------------------------- */

static atomic_int cfg_flags;
static atomic_int cfg_sched;
static unsigned long long cfg_seed;
static atomic_int cfg_raise = 1;

int sim_check_flags(void)
{
    return atomic_load_explicit(&cfg_flags, memory_order_relaxed);
}

int sim_check_raises(void)
{
    return atomic_load_explicit(&cfg_raise, memory_order_relaxed);
}

int sim_sched_mode(void)
{
    return atomic_load_explicit(&cfg_sched, memory_order_relaxed);
}

unsigned long long sim_sched_next(unsigned long long *s)
{
    unsigned long long x = *s ? *s : 0x9e3779b97f4a7c15ULL;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dULL;
}

unsigned long long sim_sched_seed(unsigned long long linear)
{
    unsigned long long s = cfg_seed ^ (linear + 1) * 0x9e3779b97f4a7c15ULL;
    sim_sched_next(&s);
    return s;
}

static const struct {
    const char *name;
    int bit;
} check_names[] = {{"memcheck", SIM_CHK_MEMCHECK},
                   {"racecheck", SIM_CHK_RACECHECK},
                   {"initcheck", SIM_CHK_INITCHECK},
                   {"synccheck", SIM_CHK_SYNCCHECK},
                   {"profile", SIM_CHK_PROFILE}};
#define N_CHECKS (sizeof check_names / sizeof check_names[0])

int sim_check_configure(const char *checks, const char *schedule, int raise_errors, char *err,
                        size_t len)
{
    int flags = 0;
    const char *p = checks ? checks : "";
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t n = strcspn(p, ", ");
        if (n == 0)
            break;
        int bit = -1;
        if (n == 3 && strncmp(p, "all", 3) == 0)
            bit = SIM_CHK_MEMCHECK | SIM_CHK_RACECHECK | SIM_CHK_INITCHECK | SIM_CHK_SYNCCHECK;
        else if ((n == 4 && strncmp(p, "none", 4) == 0) || (n == 3 && strncmp(p, "off", 3) == 0))
            bit = 0;
        for (size_t i = 0; i < N_CHECKS && bit < 0; i++)
            if (strlen(check_names[i].name) == n && strncmp(p, check_names[i].name, n) == 0)
                bit = check_names[i].bit;
        if (bit < 0) {
            snprintf(err, len, "unknown check '%.*s' (the checks are memcheck, racecheck, "
                               "initcheck and synccheck, or all; profile is the teaching "
                               "profile)", (int)n, p);
            return -1;
        }
        flags |= bit;
        p += n;
    }
    int sched = SIM_SCHED_FORWARD;
    unsigned long long seed = 0;
    const char *s = schedule ? schedule : "";
    if (*s == '\0' || strcmp(s, "forward") == 0) {
        sched = SIM_SCHED_FORWARD;
    } else if (strcmp(s, "reverse") == 0) {
        sched = SIM_SCHED_REVERSE;
    } else if (strncmp(s, "random", 6) == 0 && (s[6] == '\0' || s[6] == ':')) {
        sched = SIM_SCHED_RANDOM;
        if (s[6] == ':') {
            char *end = NULL;
            seed = strtoull(s + 7, &end, 0);
            if (end == s + 7 || *end != '\0') {
                snprintf(err, len, "schedule '%s': the seed after 'random:' must be an integer", s);
                return -1;
            }
        }
    } else {
        snprintf(err, len, "unknown schedule '%s' (forward, reverse or random:SEED)", s);
        return -1;
    }
    cfg_seed = seed;
    atomic_store(&cfg_sched, sched);
    atomic_store(&cfg_raise, raise_errors != 0);
    atomic_store(&cfg_flags, flags);
    return 0;
}

void sim_check_config(char *checks, size_t clen, char *schedule, size_t slen, int *raise_errors)
{
    int flags = sim_check_flags();
    size_t at = 0;
    if (clen)
        checks[0] = '\0';
    for (size_t i = 0; i < N_CHECKS; i++)
        if ((flags & check_names[i].bit) && at < clen) {
            int n = snprintf(checks + at, clen - at, "%s%s", at ? "," : "", check_names[i].name);
            at += n > 0 ? (size_t)n : 0;
        }
    int sched = sim_sched_mode();
    if (sched == SIM_SCHED_RANDOM)
        snprintf(schedule, slen, "random:%llu", cfg_seed);
    else
        snprintf(schedule, slen, "%s", sched == SIM_SCHED_REVERSE ? "reverse" : "");
    *raise_errors = atomic_load(&cfg_raise);
}

/* ---- the launch ---------------------------------------------------------------------- */

/* Read by every worker while the launch runs; written only between launches
 * (launch lock held). */
static struct {
    int on;           /* some check is on for this launch */
    int instr;        /* ... and its kernel calls the hook */
    int flags;
    const pcc_sim_kernel *k;
    CUmodule mod;
    uintptr_t base;   /* the module's load address: report pcs are offsets from it */
    sim_alloc *allocs;
    size_t nallocs;
    sim_freed *freed;
    size_t nfreed;
    void *const *args;
    uintptr_t api_lo, api_hi;
    unsigned int shared_bytes;
    unsigned long long first;  /* the first report serial of this launch */
} C;

typedef struct sim_check_worker {
    pthread_t os_thread;           /* the thread the stack bounds are of */
    uintptr_t stk_lo, stk_hi;      /* its stack (plain mode's local memory) */
    uintptr_t tls_lo, tls_hi;      /* the module's TLS block: static __shared__ */
    uintptr_t dyn_lo, dyn_hi;      /* dynamic shared bytes of the launch */
    uintptr_t dmap_lo, dmap_hi;    /* their mapping (the guard page after it excluded) */
    sim_block *blk;
    int fiber_mode;
    const pcc_sim_thread *plain;
    const sim_alloc *mru;          /* the allocation hit last */
    unsigned int gen;              /* block runs on this worker */
    sim_race *race;
    sim_profile *prof;             /* the teaching profile's groups (profile on) */
} sim_check_worker;

static _Thread_local sim_check_worker *tls_cw;

void sim_check_launch_begin(CUfunction f, void *const *args, unsigned int shared_bytes)
{
    memset(&C, 0, sizeof C);
    C.flags = sim_check_flags();
    C.on = C.flags != 0;
    if (!C.on)
        return;
    C.k = f->k;
    C.mod = f->mod;
    C.base = (uintptr_t)f->mod->fbase;
    C.args = args;
    C.shared_bytes = shared_bytes;
    C.first = sim_report_next_serial();
    C.instr = f->k->checked && (C.flags & SIM_CHK_INSTRUMENTED);
    if (C.instr) {
        C.allocs = sim_registry_snapshot(&C.nallocs, &C.freed, &C.nfreed);
        sim_module_api_range(&C.api_lo, &C.api_hi);
    }
}

CUresult sim_check_launch_end(void)
{
    if (!C.on)
        return CUDA_SUCCESS;
    size_t errors = sim_report_finish(C.mod, C.first);
    free(C.allocs);
    free(C.freed);
    C.allocs = NULL;
    C.freed = NULL;
    C.on = C.instr = 0;
    return errors > 0 && sim_check_raises() ? PCC_CHECK_FAILED : CUDA_SUCCESS;
}

/* This OS thread's stack (pthread_getattr_np reads /proc for the main
 * thread: once per thread). */
static void thread_stack(sim_check_worker *cw)
{
    pthread_t self = pthread_self();
    if (cw->stk_hi && pthread_equal(cw->os_thread, self))
        return;
    cw->os_thread = self;
    cw->stk_lo = cw->stk_hi = 0;
    pthread_attr_t at;
    if (pthread_getattr_np(self, &at) == 0) {
        void *addr;
        size_t size;
        if (pthread_attr_getstack(&at, &addr, &size) == 0) {
            cw->stk_lo = (uintptr_t)addr;
            cw->stk_hi = (uintptr_t)addr + size;
        }
        pthread_attr_destroy(&at);
    }
}

void sim_check_worker_begin(sim_check_worker **slot, sim_block *b, int fiber_mode,
                            const pcc_sim_thread *plain, void *shared, size_t shared_bytes,
                            void *map, size_t map_len)
{
    tls_cw = NULL;
    if (!C.instr)
        return;
    sim_check_worker *cw = *slot;
    if (cw == NULL) {
        cw = calloc(1, sizeof *cw);
        if (cw == NULL || (cw->race = sim_race_new()) == NULL) {
            free(cw);
            return; /* out of memory: this worker's blocks go unchecked */
        }
        *slot = cw;
    }
    if ((C.flags & SIM_CHK_PROFILE) && cw->prof == NULL)
        cw->prof = sim_profile_new(); /* NULL: this worker's blocks go unprofiled */
    thread_stack(cw);
    cw->blk = b;
    cw->fiber_mode = fiber_mode;
    cw->plain = plain;
    cw->mru = NULL;
    size_t tls_len = 0;
    if (sim_module_tls(C.mod, &cw->tls_lo, &tls_len) < 0)
        cw->tls_lo = tls_len = 0;
    cw->tls_hi = cw->tls_lo + tls_len;
    cw->dyn_lo = (uintptr_t)shared;
    cw->dyn_hi = cw->dyn_lo + shared_bytes;
    cw->dmap_lo = (uintptr_t)map;
    cw->dmap_hi = map ? (uintptr_t)shared + ((shared_bytes + 15) & ~(size_t)15) : 0;
    if ((C.flags & SIM_CHK_RACECHECK) &&
        sim_race_shared_range(cw->race, cw->tls_lo, tls_len, cw->dyn_lo, shared_bytes) < 0)
        return;
    (void)map_len;
    tls_cw = cw;
}

/* The block the worker ran last is over: the profile counts its requests. */
static void profile_flush(sim_check_worker *cw)
{
    if (cw->prof && (C.flags & SIM_CHK_PROFILE))
        sim_profile_block_end(cw->prof, C.mod, C.k->name);
}

void sim_check_worker_end(void)
{
    if (tls_cw)
        profile_flush(tls_cw);
    tls_cw = NULL;
}

void sim_check_worker_free(sim_check_worker *cw)
{
    if (cw) {
        sim_race_free(cw->race);
        sim_profile_free(cw->prof);
        free(cw);
    }
}

void sim_check_heap_fresh(void *p, size_t n)
{
    sim_check_worker *cw = tls_cw;
    if (cw && p && (C.flags & SIM_CHK_RACECHECK))
        sim_race_forget(cw->race, (uintptr_t)p, n, cw->gen);
}

void sim_check_block_begin(void)
{
    sim_check_worker *cw = tls_cw;
    if (cw) {
        profile_flush(cw);
        cw->gen++;
        if (C.flags & SIM_CHK_RACECHECK)
            sim_race_block(cw->race);
    }
}

/* ---- reports ------------------------------------------------------------------------- */

enum { SP_NONE = 0, SP_GLOBAL, SP_SHARED, SP_LOCAL };
static const char *const space_names[] = {"", "global", "shared", "local"};

static void copy_dim(unsigned int out[3], pcc_sim_dim3 d)
{
    out[0] = d.x;
    out[1] = d.y;
    out[2] = d.z;
}

/* A report of thread t's access, with `where` describing its address. */
static void report(const pcc_sim_thread *t, const char *tool, const char *kind, int space,
                   uintptr_t a, size_t size, int flags, const void *pc, const sim_alloc *al,
                   const char *where, const sim_hazard *hz)
{
    pcc_check_report r;
    memset(&r, 0, sizeof r);
    r.error = 1;
    snprintf(r.tool, sizeof r.tool, "%s", tool);
    snprintf(r.kind, sizeof r.kind, "%s", kind);
    snprintf(r.space, sizeof r.space, "%s", space_names[space]);
    snprintf(r.kernel, sizeof r.kernel, "%s", C.k ? C.k->name : "?");
    copy_dim(r.block, t->blockIdx);
    copy_dim(r.thread, t->threadIdx);
    r.address = a;
    r.size = size;
    r.is_write = (flags & PCC_SIM_CHK_WRITE) != 0;
    if (al) {
        r.alloc_base = al->base;
        r.alloc_size = al->size;
        r.offset = (long long)(a - al->base);
        snprintf(r.alloc_kind, sizeof r.alloc_kind, "%s", sim_alloc_kind_name(al->kind));
    }
    /* until sim_report_finish writes the whole message: what was found */
    snprintf(r.message, sizeof r.message, "%s", where ? where : "");
    uintptr_t other_pc = 0;
    if (hz) {
        unsigned int bx = t->blockDim.x, by = t->blockDim.y;
        r.other_thread[0] = hz->other % bx;
        r.other_thread[1] = hz->other / bx % by;
        r.other_thread[2] = hz->other / (bx * by);
        r.other_is_write = hz->other_write;
        other_pc = hz->other_pc;
    }
    sim_report_add(&r, (uintptr_t)pc - C.base, other_pc, C.mod, C.first);
}

/* Ends the block at a bad access (the report is made): what is past it
 * could corrupt memory that is not the kernel's. */
_Noreturn static void stop(const pcc_sim_thread *t, const char *kind)
{
    sim_fail(t, PCC_CHECK_FAILED, "check mode stopped the block at a bad access (%s)", kind);
}

/* ---- racecheck and initcheck on memory that is the kernel's --------------------------- */

/* The teaching profile's part of an access the kernel may make. */
static void profile(sim_check_worker *cw, const pcc_sim_thread *t, int space, uintptr_t a,
                    size_t size, int flags, const void *pc)
{
    if (cw->prof && (C.flags & SIM_CHK_PROFILE))
        sim_profile_access(cw->prof, t, space == SP_SHARED, a, size,
                           (flags & PCC_SIM_CHK_WRITE) != 0, (uintptr_t)pc - C.base);
}

static void race(sim_check_worker *cw, const pcc_sim_thread *t, int space, uintptr_t a,
                 size_t size, int flags, const void *pc, const sim_alloc *al)
{
    if (!(C.flags & SIM_CHK_RACECHECK) || (flags & PCC_SIM_CHK_ATOMIC))
        return; /* atomics do not race (compute-sanitizer leaves them out too) */
    sim_race_acc x = {t->linear, 0, 0, cw->gen, (uint32_t)((uintptr_t)pc - C.base),
                      (flags & PCC_SIM_CHK_WRITE) != 0};
    const sim_fiber *f = t->runtime;
    if (cw->fiber_mode && f->block) {
        x.bar = f->block->race_epoch;
        x.wep = f->block->warps[t->linear / PCC_SIM_WARP_SIZE].epoch;
    }
    sim_hazard hz;
    if (!sim_race_access(cw->race, space == SP_SHARED, a, size, &x, &hz))
        return;
    const char *kind = x.write ? (hz.other_write ? "write-after-write" : "write-after-read")
                               : "read-after-write";
    unsigned int same_warp = hz.other / PCC_SIM_WARP_SIZE == t->linear / PCC_SIM_WARP_SIZE;
    char where[256];
    snprintf(where, sizeof where, "%s", same_warp ? "same-warp" : "");
    report(t, "racecheck", kind, space, a, size, flags, pc, al, where, &hz);
}

static void global(sim_check_worker *cw, const pcc_sim_thread *t, const sim_alloc *al, uintptr_t a,
                   size_t size, int flags, const void *pc)
{
    profile(cw, t, SP_GLOBAL, a, size, flags, pc);
    if ((C.flags & SIM_CHK_INITCHECK) && al->init) {
        unsigned char *sh = al->init + (a - al->base);
        if (!(flags & PCC_SIM_CHK_WRITE) || (flags & PCC_SIM_CHK_READ)) {
            for (size_t i = 0; i < size; i++)
                if (__atomic_load_n(&sh[i], __ATOMIC_RELAXED) == 0) {
                    report(t, "initcheck", "uninitialized", SP_GLOBAL, a, size,
                           flags & ~PCC_SIM_CHK_WRITE, pc, al, NULL, NULL);
                    break;
                }
        }
        if (flags & PCC_SIM_CHK_WRITE)
            for (size_t i = 0; i < size; i++)
                __atomic_store_n(&sh[i], 1, __ATOMIC_RELAXED);
    }
    race(cw, t, SP_GLOBAL, a, size, flags, pc, al);
}

/* ---- memcheck ---------------------------------------------------------------------------- */

static const sim_alloc *find_alloc(uintptr_t a, size_t *upper)
{
    size_t lo = 0, hi = C.nallocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (C.allocs[mid].base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (upper)
        *upper = lo;
    if (lo == 0)
        return NULL;
    const sim_alloc *al = &C.allocs[lo - 1];
    return a - al->base < al->size ? al : NULL;
}

/* Whether `a` is in the pages mapped for an allocation (its data pages and
 * the guard page on either side: sim_guarded_alloc), inside it or not. */
static int in_alloc_pages(uintptr_t a)
{
    size_t up;
    find_alloc(a, &up);
    for (size_t k = up > 0 ? up - 1 : 0; k < up + 1 && k < C.nallocs; k++) {
        const sim_alloc *al = &C.allocs[k];
        if (al->map && a - (uintptr_t)al->map < al->map_len)
            return 1;
    }
    return 0;
}

/* An access that is in no allocation, and none of the runtime's: before or
 * past one, a freed one, or far from any. Never returns when it could harm
 * what is not the kernel's. */
static void outside(const pcc_sim_thread *t, uintptr_t a, size_t size, int flags, const void *pc)
{
    for (size_t i = 0; i < C.nfreed; i++) {
        const sim_freed *fr = &C.freed[i];
        if (a - fr->map < fr->map_len) {
            char where[256];
            sim_alloc al = {fr->base, fr->size, NULL, 0, fr->kind, 0, NULL, NULL, NULL};
            snprintf(where, sizeof where, "offset %lld of the %zu-byte %s at 0x%" PRIxPTR
                     ", which was freed before this launch",
                     (long long)(a - fr->base), fr->size, sim_alloc_kind_name(fr->kind), fr->base);
            report(t, "memcheck", "use-after-free", SP_GLOBAL, a, size, flags, pc, &al, where, NULL);
            stop(t, "use after free");
        }
    }
    size_t up;
    find_alloc(a, &up);
    const sim_alloc *below = up > 0 ? &C.allocs[up - 1] : NULL;
    const sim_alloc *above = up < C.nallocs ? &C.allocs[up] : NULL;
    if (below && a < below->base + below->size && a + size > below->base + below->size)
        above = NULL; /* it starts inside and runs past the end */
    char where[512];
    sim_describe_near(a, below, above, where, sizeof where);
    if (below && above == NULL && a < below->base + below->size &&
        a + size > below->base + below->size) {
        size_t len = strlen(where);
        snprintf(where + len, sizeof where - len, ", and runs %zu bytes past its end",
                 (size_t)(a + size - (below->base + below->size)));
    }
    const sim_alloc *near = below;
    if (!below || (above && a - (below->base + below->size) > above->base - a &&
                   a - (below->base + below->size) > 4096))
        near = above;
    if (near && !(a - (near->base + near->size) <= 4096 || near->base - a <= 4096))
        near = NULL;
    report(t, "memcheck", "out-of-bounds", SP_GLOBAL, a, size, flags, pc, near ? near : below,
           where, NULL);
    /* inside the allocation's own readable pages: harmless, go on (and let
     * the other threads report theirs); anywhere else: stop */
    size_t ps = 4096;
    if (near && near->map && a >= (uintptr_t)near->map + ps &&
        a + size <= (uintptr_t)near->map + near->map_len - ps)
        return;
    stop(t, "out of bounds");
}

/* What the runtime and the module own that the kernel's code reads: 1. */
static int runtime_owned(sim_check_worker *cw, uintptr_t a, size_t size)
{
    if (a >= C.api_lo && a < C.api_hi)
        return 1;
    if (cw->fiber_mode && cw->blk && cw->blk->capacity &&
        a - (uintptr_t)cw->blk->fibers < (size_t)cw->blk->capacity * sizeof(sim_fiber))
        return 1;
    if (cw->plain && a - (uintptr_t)cw->plain < sizeof(sim_fiber))
        return 1;
    const pcc_sim_kernel *k = C.k;
    if (C.args) {
        if (a - (uintptr_t)C.args < (size_t)k->nparams * sizeof(void *))
            return 1;
        for (int i = 0; i < k->nparams; i++)
            if (a - (uintptr_t)C.args[i] < k->param_sizes[i])
                return 1;
    }
    (void)size;
    return 0;
}

/* The module's own data (its globals, __constant__, literals): global. */
static int module_data(uintptr_t a)
{
    for (int i = 0; i < C.mod->nseg; i++)
        if (a >= C.mod->seg_lo[i] && a < C.mod->seg_hi[i])
            return 1;
    return 0;
}

static void slow_path(sim_check_worker *cw, pcc_sim_thread *t, uintptr_t a, size_t size,
                      int flags, const void *pc)
{
    if (runtime_owned(cw, a, size))
        return;
    if (module_data(a) || sim_heap_owns(a)) {
        /* the prelude's own __pcc_api (a runtime call's first load) is no
         * memory instruction of the kernel's */
        if (size != sizeof(uintptr_t) || (a & (sizeof(uintptr_t) - 1)) ||
            *(const uintptr_t *)a != C.api_lo)
            profile(cw, t, SP_GLOBAL, a, size, flags, pc);
        race(cw, t, SP_GLOBAL, a, size, flags, pc, NULL);
        return;
    }
    if (!(C.flags & SIM_CHK_MEMCHECK))
        return;
    /* an allocation's own pages (its padding and guard pages) are global
     * memory, whatever the process mapped next to them: the band below a
     * worker's stack once held a device allocation, and its off-by-one read
     * was named a stack overflow (2026-11-28, the ASan stage) */
    if (in_alloc_pages(a)) {
        outside(t, a, size, flags, pc);
        return;
    }
    /* local memory that is not the thread's own */
    sim_fiber *f = t->runtime;
    if (cw->fiber_mode && f->block) {
        uintptr_t lo, hi, all_lo, all_hi;
        sim_fiber_stack(f->block, f, &lo, &hi, &all_lo, &all_hi);
        if (a >= all_lo && a < all_hi) {
            char where[320];
            const char *kind = a < lo && a >= lo - (hi - lo) ? "stack-overflow" : "out-of-bounds";
            if (kind[0] == 's')
                snprintf(where, sizeof where, "%zu bytes below the thread's %zu KiB stack: the thread "
                         "overflowed its stack (deep recursion or large local arrays; "
                         "PYCUDAC_SIM_STACK_KB sets the size)", (size_t)(lo - a), (size_t)(hi - lo) / 1024);
            else
                snprintf(where, sizeof where, "the local memory (stack) of another thread of the block");
            report(t, "memcheck", kind, SP_LOCAL, a, size, flags, pc, NULL, where, NULL);
            stop(t, kind);
        }
    } else if (a < cw->stk_lo && a >= cw->stk_lo - ((size_t)1 << 20)) {
        char where[256];
        snprintf(where, sizeof where, "%zu bytes below the worker's stack: the thread overflowed "
                 "its stack", (size_t)(cw->stk_lo - a));
        report(t, "memcheck", "stack-overflow", SP_LOCAL, a, size, flags, pc, NULL, where, NULL);
        stop(t, "stack overflow");
    }
    outside(t, a, size, flags, pc);
}

/* Dynamic shared memory: [dyn_lo, dyn_hi) is the launch's; its mapping's
 * other bytes are past (or before) it. */
static void dynamic_shared(sim_check_worker *cw, pcc_sim_thread *t, uintptr_t a, size_t size,
                           int flags, const void *pc)
{
    if (a >= cw->dyn_lo && a + size <= cw->dyn_hi) {
        profile(cw, t, SP_SHARED, a, size, flags, pc);
        race(cw, t, SP_SHARED, a, size, flags, pc, NULL);
        return;
    }
    if (!(C.flags & SIM_CHK_MEMCHECK))
        return;
    char where[256];
    if (a >= cw->dyn_lo)
        snprintf(where, sizeof where, "%" PRIuPTR " bytes past the end of the %u bytes of dynamic "
                 "shared memory (extern __shared__) of the launch", a - cw->dyn_lo -
                 (cw->dyn_hi - cw->dyn_lo) + (a + size > cw->dyn_hi && a < cw->dyn_hi ? 0 : 0),
                 C.shared_bytes);
    else
        snprintf(where, sizeof where, "%" PRIuPTR " bytes before the %u bytes of dynamic shared "
                 "memory (extern __shared__) of the launch", cw->dyn_lo - a, C.shared_bytes);
    report(t, "memcheck", "out-of-bounds", SP_SHARED, a, size, flags, pc, NULL, where, NULL);
    if (a + size > cw->dmap_hi)
        stop(t, "out of bounds");
}

void sim_api_check(pcc_sim_thread *t, const void *p, size_t size, int flags, const void *pc)
{
    sim_check_worker *cw = tls_cw;
    uintptr_t a = (uintptr_t)p;
    if (cw == NULL || size == 0)
        return;
    /* the fiber running now: the module's __pcc_cur still names the last
     * one to run between a switch back and the prelude's restore of it */
    if (cw->fiber_mode && cw->blk->current)
        t = &cw->blk->current->t;
    if (a - (uintptr_t)t < sizeof *t)
        return;
    if ((flags & PCC_SIM_CHK_ALIGNED) && size > 1 && (C.flags & SIM_CHK_MEMCHECK)) {
        size_t al = size > 8 ? 8 : size; /* a 16-byte access is of a type aligned to 8 at least */
        if (a & (al - 1)) {
            char where[160];
            snprintf(where, sizeof where, "not aligned to %zu bytes", al);
            const sim_alloc *in = find_alloc(a, NULL);
            int space = in ? SP_GLOBAL
                        : a - cw->tls_lo < cw->tls_hi - cw->tls_lo || a - cw->dmap_lo < cw->dmap_hi - cw->dmap_lo
                            ? SP_SHARED
                            : SP_NONE;
            report(t, "memcheck", "misaligned", space, a, size, flags, pc, in, where, NULL);
        }
    }
    /* local memory: the thread's own stack */
    const sim_fiber *f = t->runtime;
    if (cw->fiber_mode && f->block) {
        uintptr_t top = sim_fiber_top(f->block, f);
        if (top - a <= f->block->stack_size && top - a >= size)
            return;
    } else if (a >= cw->stk_lo && a < cw->stk_hi) {
        return;
    }
    if (a - cw->tls_lo < cw->tls_hi - cw->tls_lo) { /* static __shared__ */
        if (C.mod->nguards && sim_module_tls_guard(C.mod, a - cw->tls_lo, size))
            return; /* the host compiler's flag, not the kernel's memory */
        if (a + size > cw->tls_hi && (C.flags & SIM_CHK_MEMCHECK)) {
            report(t, "memcheck", "out-of-bounds", SP_SHARED, a, size, flags, pc, NULL,
                   "past the end of the block's static __shared__ memory", NULL);
            stop(t, "out of bounds");
        }
        profile(cw, t, SP_SHARED, a, size, flags, pc);
        race(cw, t, SP_SHARED, a, size, flags, pc, NULL);
        return;
    }
    if (a - cw->dmap_lo < cw->dmap_hi - cw->dmap_lo) {
        dynamic_shared(cw, t, a, size, flags, pc);
        return;
    }
    const sim_alloc *al = cw->mru;
    if (!(al && a - al->base < al->size)) {
        al = find_alloc(a, NULL);
        if (al)
            cw->mru = al;
    }
    if (al) {
        if (a + size > al->base + al->size) { /* starts inside, runs past the end */
            if (C.flags & SIM_CHK_MEMCHECK)
                outside(t, a, size, flags, pc);
            return;
        }
        global(cw, t, al, a, size, flags, pc);
        return;
    }
    slow_path(cw, t, a, size, flags, pc);
}

int sim_check_stack_overflow(const pcc_sim_thread *t, uintptr_t a, uintptr_t pc,
                             size_t stack_size)
{
    if (!C.on || !(C.flags & SIM_CHK_MEMCHECK))
        return 0;
    char where[256];
    snprintf(where, sizeof where, "in the guard below the thread's %zu KiB stack: the thread "
             "overflowed its stack (deep recursion or large local arrays; PYCUDAC_SIM_STACK_KB "
             "sets the size)", stack_size / 1024);
    /* a faulting pc, not a return address: report() takes one off */
    report(t, "memcheck", "stack-overflow", SP_LOCAL, a, 0, PCC_SIM_CHK_WRITE,
           pc ? (const void *)(pc + 1) : (const void *)C.base, NULL, where, NULL);
    return 1;
}

/* ---- synccheck ------------------------------------------------------------------------- */

_Noreturn void sim_fail_sync(const pcc_sim_thread *t, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!(sim_check_flags() & SIM_CHK_SYNCCHECK) || !C.on)
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED, "%s", text);
    pcc_check_report r;
    memset(&r, 0, sizeof r);
    r.error = 1;
    snprintf(r.tool, sizeof r.tool, "synccheck");
    snprintf(r.kind, sizeof r.kind, "barrier");
    snprintf(r.kernel, sizeof r.kernel, "%s", C.k ? C.k->name : "?");
    copy_dim(r.block, t->blockIdx);
    copy_dim(r.thread, t->threadIdx);
    snprintf(r.message, sizeof r.message, "%s", text);
    sim_report_add(&r, 0, 0, C.mod, C.first);
    sim_fail(t, PCC_CHECK_FAILED, "%s", text);
}
