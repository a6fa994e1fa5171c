/*
 * sim/fiber.c — the threads of one simulated block as user-space
 * fibers, their scheduler, and the block's barriers: __syncthreads (+
 * count/and/or) and the block's part of grid.sync(). The warp operations
 * that park fibers too (shuffles, votes, __activemask, wide tiles) are
 * sim/warp.c.
 *
 * A block runs on one OS thread (its worker), so `static thread_local`
 * arrays in a module are the block's shared memory. Fibers switch only
 * inside these calls, directly from one fiber to the next runnable one
 * (round-robin); the last fiber to exit switches back to the worker.
 * A barrier releases when every live thread has arrived; a warp operation
 * completes when every live lane named in its mask has arrived with the same
 * mask. A barrier that can never release (a thread exited, or a deadlock)
 * ends the block with CUDA_ERROR_LAUNCH_FAILED naming it.
 *
 * The switch is a few instructions of assembly on x86-64 and aarch64;
 * elsewhere, and under AddressSanitizer (which must see stack switches),
 * it is ucontext. Under AddressSanitizer and ThreadSanitizer every switch
 * is also announced to the sanitizer (tests/README.md).
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/sim.h"
#include "sim/check.h"
#include "sim/env.h"

#if defined(__SANITIZE_ADDRESS__)
#define SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SIM_TSAN 1
#endif
#endif
#if (!defined(__x86_64__) && !defined(__aarch64__)) || defined(PCC_SIM_FORCE_UCONTEXT)
#define SIM_USE_UCONTEXT 1
#endif

#ifdef SIM_USE_UCONTEXT
#include <ucontext.h>
#endif
#if defined(SIM_ASAN) && !defined(SIM_USE_UCONTEXT)
/* AddressSanitizer is told about every switch (its fiber annotations), so it
 * keeps its shadow of each fiber's stack right. */
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SIM_ASAN_FIBERS 1
#endif
#ifdef SIM_TSAN
/* ThreadSanitizer keeps a call stack and a vector clock per thread; told
 * about every switch (its fiber annotations), it keeps one per fiber and
 * orders a fiber's accesses after those of the fiber that ran before it on
 * the same worker. Without them its call stacks come apart at the first
 * switch and it crashes. */
#include <sanitizer/tsan_interface.h>
#endif
#if defined(SIM_ASAN) || defined(SIM_USE_UCONTEXT)
#define SIM_STACK_DEFAULT (256 * 1024)
#else
#define SIM_STACK_DEFAULT (64 * 1024)
#endif

/* ---- context switch ------------------------------------------------------------------- */

#ifndef SIM_USE_UCONTEXT
/* Saves the callee-saved registers on the current stack, stores the stack
 * pointer in *save, loads `to` and restores what was saved there. A new
 * fiber's stack is prepared so that the first switch "returns" into
 * pcc_sim_fiber_boot, which calls fn(arg) from two saved registers. */
void pcc_sim_fiber_switch(void **save, void *to);
void pcc_sim_fiber_boot(void);
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl pcc_sim_fiber_switch\n"
        ".hidden pcc_sim_fiber_switch\n"
        ".type pcc_sim_fiber_switch,@function\n"
        "pcc_sim_fiber_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size pcc_sim_fiber_switch,.-pcc_sim_fiber_switch\n"
        ".globl pcc_sim_fiber_boot\n"
        ".hidden pcc_sim_fiber_boot\n"
        ".type pcc_sim_fiber_boot,@function\n"
        "pcc_sim_fiber_boot:\n"
        "  movq %r12, %rdi\n"
        "  callq *%r13\n"
        "  ud2\n"
        ".size pcc_sim_fiber_boot,.-pcc_sim_fiber_boot\n");

/* Frame popped by the first switch: r15 r14 r13(fn) r12(arg) rbx rbp ret. */
static void *initial_frame(char *top, void (*fn)(sim_fiber *), sim_fiber *arg)
{
    void **sp = (void **)(top - 72); /* rsp is 16-aligned again after 7 pops */
    sp[0] = NULL;
    sp[1] = NULL;
    sp[2] = (void *)fn;
    sp[3] = arg;
    sp[4] = NULL;
    sp[5] = NULL;
    sp[6] = (void *)pcc_sim_fiber_boot;
    return sp;
}
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl pcc_sim_fiber_switch\n"
        ".hidden pcc_sim_fiber_switch\n"
        ".type pcc_sim_fiber_switch,%function\n"
        "pcc_sim_fiber_switch:\n"
        "  sub sp, sp, #160\n"
        "  stp x19, x20, [sp, #0]\n"
        "  stp x21, x22, [sp, #16]\n"
        "  stp x23, x24, [sp, #32]\n"
        "  stp x25, x26, [sp, #48]\n"
        "  stp x27, x28, [sp, #64]\n"
        "  stp x29, x30, [sp, #80]\n"
        "  stp d8, d9, [sp, #96]\n"
        "  stp d10, d11, [sp, #112]\n"
        "  stp d12, d13, [sp, #128]\n"
        "  stp d14, d15, [sp, #144]\n"
        "  mov x9, sp\n"
        "  str x9, [x0]\n"
        "  mov sp, x1\n"
        "  ldp x19, x20, [sp, #0]\n"
        "  ldp x21, x22, [sp, #16]\n"
        "  ldp x23, x24, [sp, #32]\n"
        "  ldp x25, x26, [sp, #48]\n"
        "  ldp x27, x28, [sp, #64]\n"
        "  ldp x29, x30, [sp, #80]\n"
        "  ldp d8, d9, [sp, #96]\n"
        "  ldp d10, d11, [sp, #112]\n"
        "  ldp d12, d13, [sp, #128]\n"
        "  ldp d14, d15, [sp, #144]\n"
        "  add sp, sp, #160\n"
        "  ret\n"
        ".size pcc_sim_fiber_switch,.-pcc_sim_fiber_switch\n"
        ".globl pcc_sim_fiber_boot\n"
        ".hidden pcc_sim_fiber_boot\n"
        ".type pcc_sim_fiber_boot,%function\n"
        "pcc_sim_fiber_boot:\n"
        "  mov x0, x19\n"
        "  blr x20\n"
        "  brk #0\n"
        ".size pcc_sim_fiber_boot,.-pcc_sim_fiber_boot\n");

/* Frame popped by the first switch: x19(arg) x20(fn) ... x29 x30(ret) d8-d15. */
static void *initial_frame(char *top, void (*fn)(sim_fiber *), sim_fiber *arg)
{
    void **sp = (void **)(top - 160);
    memset(sp, 0, 160);
    sp[0] = arg;
    sp[1] = (void *)fn;
    sp[11] = (void *)pcc_sim_fiber_boot; /* x30 */
    return sp;
}
#endif
#endif /* !SIM_USE_UCONTEXT */

static void fiber_main(sim_fiber *f);

#ifdef SIM_USE_UCONTEXT
static void fiber_boot_uc(int lo, int hi)
{
    uintptr_t p = ((uintptr_t)(unsigned int)hi << 32) | (uintptr_t)(unsigned int)lo;
    fiber_main((sim_fiber *)p);
}
#endif

/* Every worker asks on its first fiber launch, all at once: the cached
 * value is atomic (each computes the same one; relaxed order suffices). */
static size_t page_size(void)
{
    static atomic_size_t cached;
    size_t ps = atomic_load_explicit(&cached, memory_order_relaxed);
    if (ps == 0) {
        ps = (size_t)sysconf(_SC_PAGESIZE);
        atomic_store_explicit(&cached, ps, memory_order_relaxed);
    }
    return ps;
}

/* Below each fiber's stack: an inaccessible guard this many pages deep, so
 * that a thread running off its stack faults in its own guard and is named,
 * never lands in its neighbour's stack. Kernels are built with
 * -fstack-clash-protection (sim/cc/cxx.c): a frame larger than a page
 * touches its pages in order, so even a 64 KiB local array meets the guard
 * first. Address space only: no memory behind it. */
#define SIM_GUARD_PAGES 16

static size_t guard_size(void)
{
    return SIM_GUARD_PAGES * page_size();
}

static char *fiber_stack_top(const sim_block *b, int i)
{
    return (char *)b->stacks + (size_t)(i + 1) * (b->stack_size + guard_size());
}

static void fiber_prepare(sim_block *b, sim_fiber *f)
{
#ifdef SIM_USE_UCONTEXT
    ucontext_t *uc = f->uctx;
    getcontext(uc);
    uc->uc_stack.ss_sp = fiber_stack_top(b, f->index) - b->stack_size;
    uc->uc_stack.ss_size = b->stack_size;
    uc->uc_link = NULL;
    uintptr_t p = (uintptr_t)f;
    makecontext(uc, (void (*)(void))fiber_boot_uc, 2, (int)(unsigned int)p,
                (int)(unsigned int)(p >> 32));
#else
    f->sp = initial_frame(fiber_stack_top(b, f->index), fiber_main, f);
#endif
#ifdef SIM_TSAN
    /* A fresh TSan fiber per run: the previous one's call stack still holds
     * the frames of a thread that finished by switching away (they never
     * return), and would grow by them block after block. */
    if (f->tsan_fiber)
        __tsan_destroy_fiber(f->tsan_fiber);
    f->tsan_fiber = __tsan_create_fiber(0);
#endif
}

#ifdef SIM_ASAN_FIBERS
/* Called first thing on the stack just switched to. */
static char *fiber_stack_top(const sim_block *b, int i);

static void asan_landed(sim_block *b, void *fake)
{
    const void *bottom;
    size_t size;
    __sanitizer_finish_switch_fiber(fake, &bottom, &size);
    if (b->from_main) {
        b->main_bottom = bottom;
        b->main_size = size;
        b->from_main = 0;
    }
    /* A finished fiber's last frames never return: clear their redzones so
     * that the next block's fibers (or an unmapped stack's next owner) do
     * not trip over them. */
    sim_fiber *prev = b->asan_from;
    if (prev && prev->state == SIM_F_DONE) {
        char *top = fiber_stack_top(b, prev->index);
        __asan_unpoison_memory_region(prev->sp, (size_t)(top - (char *)prev->sp));
    }
}
#endif

/* Switches from the running fiber (or the worker, from == NULL) to `to`
 * (or the worker, to == NULL). */
static void switch_to(sim_block *b, sim_fiber *from, sim_fiber *to)
{
    b->current = to;
#ifdef SIM_ASAN_FIBERS
    void **fake = from == NULL ? &b->main_fake : from->state == SIM_F_DONE ? NULL : &from->asan_fake;
    b->from_main = from == NULL;
    b->asan_from = from;
    if (to)
        __sanitizer_start_switch_fiber(fake, fiber_stack_top(b, to->index) - b->stack_size,
                                       b->stack_size);
    else
        __sanitizer_start_switch_fiber(fake, b->main_bottom, b->main_size);
#endif
#ifdef SIM_TSAN
    if (from == NULL)
        b->tsan_main = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(to ? to->tsan_fiber : b->tsan_main, 0);
#endif
#ifdef SIM_USE_UCONTEXT
    swapcontext(from ? from->uctx : b->main_uctx, to ? to->uctx : b->main_uctx);
#else
    pcc_sim_fiber_switch(from ? &from->sp : &b->main_sp, to ? to->sp : b->main_sp);
#endif
#ifdef SIM_ASAN_FIBERS
    asan_landed(b, from ? from->asan_fake : b->main_fake);
#endif
}

void sim_block_escape(sim_block *b)
{
#ifdef SIM_ASAN_FIBERS
    if (b->current)
        __sanitizer_start_switch_fiber(NULL, b->main_bottom, b->main_size);
#endif
#ifdef SIM_TSAN
    /* The siglongjmp that follows lands on the worker's stack: TSan matches
     * it against the worker's sigsetjmp only in the worker's own state. */
    if (b->current)
        __tsan_switch_to_fiber(b->tsan_main, 0);
#endif
    (void)b;
}

/* Frames of fibers abandoned by an escape keep their redzones poisoned;
 * clear them before the stacks are reused or unmapped. */
static void unpoison_stacks(sim_block *b)
{
#ifdef SIM_ASAN_FIBERS
    if (b->capacity)
        __asan_unpoison_memory_region(b->stacks,
                                      (size_t)b->capacity * (b->stack_size + guard_size()));
#else
    (void)b;
#endif
}

void sim_block_escaped(sim_block *b)
{
#ifdef SIM_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(b->main_fake, NULL, NULL);
#endif
    b->current = NULL;
    unpoison_stacks(b);
}

/* ---- fiber storage --------------------------------------------------------------------- */

/* Cached as page_size() is: workers reserve their fibers concurrently. */
static size_t stack_size(void)
{
    static atomic_size_t cached;
    size_t size = atomic_load_explicit(&cached, memory_order_relaxed);
    if (size == 0) {
        char *env = pcc_sim_env_dup("PYCUDAC_SIM_STACK_KB"); /* no getenv without the GIL */
        long kb = env ? strtol(env, NULL, 10) : 0;
        free(env);
        size_t ps = page_size();
        size_t s = kb >= 16 && kb <= 65536 ? (size_t)kb * 1024 : SIM_STACK_DEFAULT;
        size = (s + ps - 1) & ~(ps - 1);
        atomic_store_explicit(&cached, size, memory_order_relaxed);
    }
    return size;
}

int sim_block_reserve(sim_block *b, int n)
{
    size_t ps = page_size();
    /* the context's CU_LIMIT_STACK_SIZE beyond the default adds to each stack */
    size_t ss = (stack_size() + sim_stack_extra() + ps - 1) & ~(ps - 1);
    if ((n <= b->capacity && b->stack_size == ss) || n <= 0) /* n <= 0: the sizes below fit */
        return 0;
    if (n < b->capacity)
        n = b->capacity;
    sim_block_release(b);
    /* Each fiber: a guard (SIM_GUARD_PAGES), then its stack (which grows down to it). */
    size_t gs = guard_size();
    size_t len = (size_t)n * (ss + gs);
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    for (int i = 0; i < n; i++)
        mprotect((char *)m + (size_t)i * (ss + gs), gs, PROT_NONE);
    int nwarps = (n + PCC_SIM_WARP_SIZE - 1) / PCC_SIM_WARP_SIZE;
    b->fibers = calloc((size_t)n, sizeof *b->fibers);
    b->warps = calloc((size_t)nwarps, sizeof *b->warps);
    b->tiles = calloc((size_t)n, sizeof *b->tiles);
#ifdef SIM_USE_UCONTEXT
    char *ucs = calloc((size_t)n + 1, sizeof(ucontext_t));
    if (ucs)
        b->main_uctx = ucs + (size_t)n * sizeof(ucontext_t);
#else
    char *ucs = (char *)1;
#endif
    if (b->fibers == NULL || b->warps == NULL || b->tiles == NULL || ucs == NULL) {
        free(b->fibers);
        free(b->warps);
        free(b->tiles);
        b->tiles = NULL;
        munmap(m, len);
        b->fibers = NULL;
        b->warps = NULL;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        b->fibers[i].index = i;
        b->fibers[i].block = b;
        b->fibers[i].t.runtime = &b->fibers[i];
#ifdef SIM_USE_UCONTEXT
        b->fibers[i].uctx = ucs + (size_t)i * sizeof(ucontext_t);
#endif
    }
    b->stacks = m;
    b->stack_size = ss;
    b->capacity = n;
    return 0;
}

void sim_block_release(sim_block *b)
{
    if (b->capacity == 0)
        return;
    unpoison_stacks(b);
#ifdef SIM_TSAN
    for (int i = 0; i < b->capacity; i++)
        if (b->fibers[i].tsan_fiber)
            __tsan_destroy_fiber(b->fibers[i].tsan_fiber);
#endif
    munmap(b->stacks, (size_t)b->capacity * (b->stack_size + guard_size()));
#ifdef SIM_USE_UCONTEXT
    free(b->fibers[0].uctx);
#endif
    free(b->fibers);
    free(b->warps);
    free(b->tiles);
    b->fibers = NULL;
    b->warps = NULL;
    b->tiles = NULL;
    b->stacks = NULL;
    b->capacity = 0;
}

int sim_block_is_stack_guard(const sim_block *b, uintptr_t addr)
{
    if (b->capacity == 0)
        return 0;
    size_t gs = guard_size();
    uintptr_t base = (uintptr_t)b->stacks;
    size_t stride = b->stack_size + gs;
    if (addr < base || addr >= base + (size_t)b->capacity * stride)
        return 0;
    return (addr - base) % stride < gs;
}


/* ---- scheduling ----------------------------------------------------------------------- */

int sim_fiber_runnable(const sim_block *b, const sim_fiber *f)
{
    switch (f->state) {
    case SIM_F_READY:
        return 1;
    case SIM_F_BARRIER:
        return f->wait_gen != b->bar_gen;
    case SIM_F_WARP:
        return !(b->warps[f->index / PCC_SIM_WARP_SIZE].waiting & (1u << f->t.lane));
    case SIM_F_TILE:
        return f->wait_gen != b->tiles[f->tile_first].gen;
    default: /* SIM_F_CONVERGE: sim_warp_settle makes it READY */
        return 0;
    }
}

uintptr_t sim_fiber_top(const sim_block *b, const sim_fiber *f)
{
    return (uintptr_t)fiber_stack_top(b, f->index);
}

void sim_fiber_stack(const sim_block *b, const sim_fiber *f, uintptr_t *lo, uintptr_t *hi,
                     uintptr_t *all_lo, uintptr_t *all_hi)
{
    *hi = sim_fiber_top(b, f);
    *lo = *hi - b->stack_size;
    *all_lo = (uintptr_t)b->stacks;
    *all_hi = *all_lo + (size_t)b->capacity * (b->stack_size + guard_size());
}

size_t sim_fiber_depth(const sim_block *b, const sim_fiber *f, const void *frame)
{
    return (size_t)(fiber_stack_top(b, f->index) - (const char *)frame);
}

_Noreturn static void deadlock(sim_block *b, sim_fiber *cur)
{
    int at_barrier = 0, in_warp = 0, in_tile = 0;
    const sim_fiber *example = NULL, *tile = NULL;
    for (int i = 0; i < b->nthreads; i++) {
        const sim_fiber *f = &b->fibers[i];
        if (f->state == SIM_F_BARRIER) {
            at_barrier++;
        } else if (f->state == SIM_F_WARP) {
            in_warp++;
            if (example == NULL)
                example = f;
        } else if (f->state == SIM_F_TILE) {
            in_tile++;
            if (tile == NULL)
                tile = f;
        }
    }
    const char *bar = b->bar_grid ? "grid.sync()" : "__syncthreads()";
    if (tile != NULL) {
        const sim_tile *s = &b->tiles[tile->tile_first];
        sim_fail_sync(&cur->t,
                      "deadlock: %d threads wait at %s, %d in warp operations and %d at the barrier "
                 "of a thread_block_tile<%u> (threads %u..%u of the block, of which %u arrived; "
                 "the others exited or wait elsewhere)",
                 at_barrier, bar, in_warp, in_tile, s->count, tile->tile_first,
                 tile->tile_first + s->count - 1, s->arrived);
    }
    if (in_warp == 0)
        sim_fail_sync(&cur->t,
                      "deadlock: %d of %d threads of the block wait at %s and can never be released",
                 at_barrier, b->nthreads, bar);
    const sim_warp *w = &b->warps[example->index / PCC_SIM_WARP_SIZE];
    int line = 0;
    const char *wide = sim_warp_wide_call(b, example, &line);
    if (wide != NULL)
        sim_fail_sync(&cur->t,
                      "deadlock: %d threads wait at %s and %d in warp operations; thread "
                      "(%u,%u,%u) waits in %s (line %d), which is warp-wide, for all 32 lanes "
                      "of its warp, of which 0x%08x arrived (a wmma call not every lane of the "
                      "warp reaches)",
                      at_barrier, bar, in_warp, example->t.threadIdx.x, example->t.threadIdx.y,
                      example->t.threadIdx.z, wide, line, w->waiting);
    sim_fail_sync(&cur->t,
                  "deadlock: %d threads wait at %s and %d in warp operations; thread "
             "(%u,%u,%u) waits for lanes 0x%08x of its warp, of which 0x%08x arrived with the "
             "same mask (a divergent __syncthreads or mismatched shuffle masks)",
             at_barrier, bar, in_warp, example->t.threadIdx.x, example->t.threadIdx.y,
             example->t.threadIdx.z, w->mask[example->t.lane] & w->live, w->waiting);
}

void sim_fiber_park(sim_block *b, sim_fiber *cur)
{
    /* cur's warp may have just settled: no lane of it can run on */
    int w = cur->index / PCC_SIM_WARP_SIZE;
    if (b->warps[w].converging)
        sim_warp_settle(b, w);
    int n = b->nthreads;
    /* the next runnable fiber after cur, in the schedule's order (check
     * mode's PYCUDAC_SIM_SCHEDULE): forward, backward, or from a random one */
    int j = cur->index, step = 1;
    if (b->sched == SIM_SCHED_REVERSE)
        step = n - 1;
    else if (b->sched == SIM_SCHED_RANDOM)
        j = (int)(sim_sched_next(&b->rng) % (unsigned long long)n);
    for (int k = 0; k < n; k++) {
        j = (j + step) % n;
        sim_fiber *f = &b->fibers[j];
        if (sim_fiber_runnable(b, f)) {
            if (f != cur) {
                f->state = SIM_F_READY;
                switch_to(b, cur, f);
            }
            cur->state = SIM_F_READY;
            return;
        }
    }
    deadlock(b, cur);
}

/* ---- barriers --------------------------------------------------------------------------- */

_Noreturn static void partial_barrier(sim_block *b, const pcc_sim_thread *t)
{
    if (b->bar_grid)
        sim_fail_sync(t,
                      "%s (line %d) not reached by every thread of the block: %d of %d "
                 "threads wait at the barrier while %d have already exited",
                 sim_launch_group_sync(), b->bar_grid_line, b->bar_waiting, b->nthreads, b->exited);
    sim_fail_sync(t,
                  "__syncthreads() not reached by every thread of the block: %d of %d threads wait "
             "at the barrier while %d have already exited",
             b->bar_waiting, b->nthreads, b->exited);
}

/* One barrier of the block, reached through __syncthreads (grid 0) or
 * grid.sync() (grid 1: once the block is complete, its last thread waits
 * for the other blocks before it releases its own). A barrier where some
 * threads came through one and some through the other is an error: it
 * would deadlock on a GPU. */
static void block_barrier(pcc_sim_thread *t, int pred, int grid, int line)
{
    sim_fiber *f = t->runtime;
    sim_block *b = f->block;
    if (grid) {
        b->bar_grid++;
        b->bar_grid_line = line;
    }
    if (b->exited) {
        b->bar_waiting++;
        partial_barrier(b, t);
    }
    b->bar_acc += pred != 0;
    if (++b->bar_waiting == b->live) {
        if (b->bar_grid != 0 && b->bar_grid != b->bar_waiting)
            sim_fail_sync(t,
                          "%d threads of the block wait at %s (line %d) and %d at "
                     "__syncthreads(): every thread must reach the same barrier",
                     b->bar_grid, sim_launch_group_sync(), b->bar_grid_line,
                     b->bar_waiting - b->bar_grid);
        if (b->bar_grid)
            sim_grid_wait(t, line); /* blocks this OS thread: the block's others are parked */
        b->bar_result = b->bar_acc;
        b->bar_acc = 0;
        b->bar_waiting = 0;
        b->bar_grid = 0;
        b->bar_gen++;
        b->race_epoch++;
    } else {
        f->state = SIM_F_BARRIER;
        f->wait_gen = b->bar_gen;
        sim_fiber_park(b, f);
    }
}

static int api_syncthreads(pcc_sim_thread *t, int op, int pred)
{
    sim_fiber *f = t->runtime;
    sim_block *b = f->block;
    if (b == NULL) {
        if (t->blockDim.x * t->blockDim.y * t->blockDim.z == 1)
            return op == PCC_SIM_SYNC_PLAIN ? 0 : pred != 0;
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                 "__syncthreads() ran in a kernel compiled without synchronization support");
    }
    block_barrier(t, pred, 0, 0);
    switch (op) {
    case PCC_SIM_SYNC_COUNT:
        return b->bar_result;
    case PCC_SIM_SYNC_AND:
        return b->bar_result == b->live;
    case PCC_SIM_SYNC_OR:
        return b->bar_result != 0;
    default:
        return 0;
    }
}

/* grid_group::is_valid(): true in a cooperative launch, as CUDA documents
 * it. In an ordinary launch the H100 (driver 580) answers what the grid
 * workspace pointer holds: 0 in a process that never launched
 * cooperatively, 1 in one that had (runs of 2026-11-27) — left-over state,
 * not a promise; the simulator gives the documented answer. */
static int api_grid_valid(pcc_sim_thread *t)
{
    (void)t;
    return sim_launch_cooperative();
}

/* grid.sync(): on a GPU, outside a cooperative launch, grid_group::sync()
 * finds no grid workspace and traps; here the launch fails saying why. */
static void api_grid_sync(pcc_sim_thread *t, int line)
{
    if (!sim_launch_cooperative())
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                 "grid.sync() at line %d needs a cooperative launch (cooperative=True, "
                 "cuLaunchCooperativeKernel), which makes every block of the grid resident at "
                 "once; in this ordinary launch the grid cannot synchronize (on a GPU "
                 "grid_group::sync() traps: grid_group::is_valid() is false)",
                 line);
    sim_fiber *f = t->runtime;
    if (f->block == NULL) {
        if (t->blockDim.x * t->blockDim.y * t->blockDim.z != 1)
            sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                     "grid.sync() ran in a kernel compiled without synchronization support");
        sim_grid_wait(t, line);
        return;
    }
    block_barrier(t, 0, 1, line);
}

/* cluster.sync(): the cluster's blocks run at once (sim/launch.c), and wait
 * for each other at the launch's group barrier as a cooperative grid's do;
 * a cluster of one block is that block's barrier. */
static void api_cluster_sync(pcc_sim_thread *t, int line)
{
    sim_fiber *f = t->runtime;
    pcc_sim_dim3 c = sim_launch_cluster();
    int alone = (unsigned long long)c.x * c.y * c.z == 1;
    if (f->block == NULL) {
        if (t->blockDim.x * t->blockDim.y * t->blockDim.z != 1)
            sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                     "cluster.sync() ran in a kernel compiled without synchronization support");
        if (!alone)
            sim_grid_wait(t, line);
        return;
    }
    block_barrier(t, 0, !alone, line);
}

/* ---- running a block --------------------------------------------------------------------- */

static void fiber_main(sim_fiber *f)
{
    sim_block *b = f->block;
#ifdef SIM_ASAN_FIBERS
    asan_landed(b, NULL);
#endif
    b->kernel->entry(&f->t, b->args);
    f->state = SIM_F_DONE;
    b->live--;
    b->exited++;
    sim_warp_lane_exited(b, f);
    if (b->bar_waiting > 0)
        partial_barrier(b, &f->t);
    if (b->live == 0)
        switch_to(b, f, NULL); /* never returns: the block is done */
    sim_fiber_park(b, f);      /* never returns: f is done */
    sim_fail(&f->t, CUDA_ERROR_LAUNCH_FAILED, "internal error: a finished fiber resumed");
}

void sim_block_run(sim_block *b, pcc_sim_dim3 block_idx, pcc_sim_dim3 block_dim,
                   pcc_sim_dim3 grid_dim, void *dynamic_shared, unsigned long long seed)
{
    int n = (int)(block_dim.x * block_dim.y * block_dim.z);
    b->nthreads = n;
    b->live = n;
    b->exited = 0;
    b->bar_waiting = 0;
    b->bar_grid = 0;
    b->bar_acc = 0;
    b->bar_result = 0;
    int nwarps = (n + PCC_SIM_WARP_SIZE - 1) / PCC_SIM_WARP_SIZE;
    for (int w = 0; w < nwarps; w++) {
        int lanes = n - w * PCC_SIM_WARP_SIZE;
        b->warps[w].live = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
        b->warps[w].waiting = 0;
        b->warps[w].converging = 0;
        b->warps[w].epoch = 0;
    }
    memset(b->tiles, 0, (size_t)n * sizeof *b->tiles);
    int i = 0;
    for (unsigned int z = 0; z < block_dim.z; z++)
        for (unsigned int y = 0; y < block_dim.y; y++)
            for (unsigned int x = 0; x < block_dim.x; x++, i++) {
                sim_fiber *f = &b->fibers[i];
                f->t.threadIdx.x = x;
                f->t.threadIdx.y = y;
                f->t.threadIdx.z = z;
                f->t.blockIdx = block_idx;
                f->t.blockDim = block_dim;
                f->t.gridDim = grid_dim;
                f->t.linear = (unsigned int)i;
                f->t.lane = (unsigned int)i % PCC_SIM_WARP_SIZE;
                f->t.dynamic_shared = dynamic_shared;
                f->state = SIM_F_READY;
                fiber_prepare(b, f);
            }
    b->sched = sim_sched_mode();
    b->rng = seed;
    int first = b->sched == SIM_SCHED_REVERSE  ? n - 1
                : b->sched == SIM_SCHED_RANDOM ? (int)(sim_sched_next(&b->rng) % (unsigned long long)n)
                                               : 0;
    switch_to(b, NULL, &b->fibers[first]);
    b->current = NULL;
}

const pcc_sim_api sim_api_fiber = {
    PCC_SIM_ABI_VERSION, api_syncthreads, sim_api_syncwarp, sim_api_shfl, sim_api_ballot,
    sim_api_activemask, sim_api_trap, sim_api_vprintf, sim_api_clock64, sim_api_tile_shfl,
    api_grid_valid, api_grid_sync,
    NULL, NULL, NULL, NULL, NULL, /* heap and rounding: sim/module.c adds them */
    NULL,                         /* check mode: sim/module.c adds it */
    sim_api_cluster_dims, api_cluster_sync, sim_api_cluster_map,
    NULL, NULL,                   /* textures and surfaces: sim/module.c adds them */
    sim_api_warp_wide,
};
