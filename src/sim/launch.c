/*
 * sim/launch.c — the simulator's kernel launches, the worker
 * threads that run blocks, the kernel-facing api that is not about fibers
 * (trap; printf and clock are sim/print.c's) and the fault handler.
 *
 * cuLaunchKernel runs every block before it returns: blocks are handed out
 * by an atomic counter to a pool of worker threads (one per CPU core, the
 * calling thread being one of them). A kernel without barriers or warp
 * operations runs its threads as a plain loop; otherwise each thread is a
 * fiber (sim/fiber.c). The launch's check and its run are two
 * functions (sim_kernel_op, sim_kernel_run) that graph kernel nodes share.
 * A cooperative launch runs each block on a thread of its own, all at once
 * (sim/coop.c).
 *
 * Errors inside a kernel — a SIGSEGV/SIGBUS at a bad address (SIGFPE and
 * SIGILL too: an integer division by zero must not kill the process), a trap or
 * assert, a barrier that can never release — end the block with a
 * siglongjmp back to its worker; the launch stops handing out blocks and
 * records a sticky error, which the next call returns, as on a GPU, while
 * cuLaunchKernel itself succeeds. The process never dies from a kernel's bad
 * access; faults outside kernels go to the handler that was there before.
 */
/* That siglongjmp leaves a fiber's stack for the worker's. glibc's fortified
 * one (__longjmp_chk, under _FORTIFY_SOURCE) takes a jump to a frame of
 * another stack for a smashed stack and aborts the process ("longjmp causes
 * uninitialized stack frame", seen on the H100 host, whose gcc fortifies by
 * default): this file is built without it. */
#undef _FORTIFY_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "sim/sim.h"
#include "sim/check.h"
#include "sim/env.h"

/* ---- launch state (under sim_launch_lock) --------------------------------------------------- */

pthread_mutex_t sim_launch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

#define SIM_MAX_WORKERS 256
static sim_worker *workers[SIM_MAX_WORKERS]; /* [0]: the launching thread */
static int nworkers;                          /* pool threads, not counting slot 0 */

void sim_worker_set_in_kernel(sim_worker *w, int v)
{
    __atomic_store_n(&w->in_kernel, v, __ATOMIC_RELAXED);
}

static unsigned long long launch_gen;
static int participants, active;

static struct {
    CUfunction f;
    const pcc_sim_kernel *k;
    pcc_sim_dim3 grid, block;
    unsigned int shared_bytes;
    void *const *args;
    unsigned long long nblocks;
    int cooperative;
    pcc_sim_dim3 cluster;              /* 1, 1, 1 outside a cluster launch */
    unsigned long long cluster_size;   /* blocks in one cluster */
    unsigned long long cluster_index;  /* the cluster that runs now */
    void *member_shared[SIM_MAX_CLUSTER], *member_anchor[SIM_MAX_CLUSTER]; /* by rank */
    atomic_ullong next;
    atomic_int stop;
    CUresult err;
    char detail[2048];
} L;

static _Thread_local sim_worker *tls_worker;

int sim_launch_cooperative(void)
{
    return L.cooperative;
}

pcc_sim_dim3 sim_launch_cluster(void)
{
    return L.cluster;
}

unsigned long long sim_launch_group_blocks(void)
{
    return L.cluster_size > 1 ? L.cluster_size : L.nblocks;
}

const char *sim_launch_group_sync(void)
{
    return L.cluster_size > 1 ? "cluster.sync()" : "grid.sync()";
}

void *sim_launch_member_shared(unsigned int rank)
{
    return rank < SIM_MAX_CLUSTER ? __atomic_load_n(&L.member_shared[rank], __ATOMIC_ACQUIRE) : NULL;
}

void *sim_launch_member_anchor(unsigned int rank)
{
    return rank < SIM_MAX_CLUSTER ? __atomic_load_n(&L.member_anchor[rank], __ATOMIC_ACQUIRE) : NULL;
}

unsigned int sim_launch_shared_bytes(void)
{
    return L.shared_bytes;
}

int sim_launch_stopped(void)
{
    return atomic_load_explicit(&L.stop, memory_order_relaxed);
}

unsigned long long sim_launch_nblocks(void)
{
    return L.nblocks;
}

const char *sim_launch_kernel_name(void)
{
    return L.k->name;
}

sim_worker *sim_worker_new(void)
{
    return calloc(1, sizeof(sim_worker));
}

sim_worker *sim_worker_of_thread(pthread_t self)
{
    /* The scan reads other threads' slots while they change them (a new pool
     * thread, another thread's launch): every field it reads is accessed
     * atomically (lock-free, so safe in a signal handler), and only the
     * thread's own slot can match. */
    int n = __atomic_load_n(&nworkers, __ATOMIC_ACQUIRE);
    for (int i = 0; i <= n && i < SIM_MAX_WORKERS; i++) {
        sim_worker *w = __atomic_load_n(&workers[i], __ATOMIC_ACQUIRE);
        if (w && sim_worker_in_kernel_on(w, self))
            return w;
    }
    return sim_coop_worker_of(self);
}

void sim_launch_signal_workers(int sig)
{
    int n = __atomic_load_n(&nworkers, __ATOMIC_ACQUIRE);
    for (int i = 0; i <= n && i < SIM_MAX_WORKERS; i++) {
        sim_worker *w = __atomic_load_n(&workers[i], __ATOMIC_ACQUIRE);
        if (w && __atomic_load_n(&w->in_kernel, __ATOMIC_RELAXED))
            pthread_kill(__atomic_load_n(&w->owner, __ATOMIC_RELAXED), sig);
    }
    sim_coop_signal_workers(sig);
}

int sim_worker_in_kernel_on(sim_worker *w, pthread_t self)
{
    return __atomic_load_n(&w->in_kernel, __ATOMIC_RELAXED) &&
           pthread_equal(__atomic_load_n(&w->owner, __ATOMIC_RELAXED), self);
}

/* ---- kernel-facing api shared by both modes ------------------------------------------------ */

_Noreturn void sim_fail(const pcc_sim_thread *t, CUresult code, const char *fmt, ...)
{
    sim_worker *w = tls_worker;
    sim_worker_set_in_kernel(w, 0);
    w->fail_code = code;
    w->fault_sig = 0;
    w->fault_thread = *t;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->fail_text, sizeof w->fail_text, fmt, ap);
    va_end(ap);
    if (w->fiber_mode)
        sim_block_escape(&w->block);
    siglongjmp(w->jmp, 1);
}

void sim_api_trap(pcc_sim_thread *t, int code, const char *what)
{
    sim_fail(t, code ? code : CUDA_ERROR_ILLEGAL_INSTRUCTION, "%s",
             what && *what ? what : (code == CUDA_ERROR_ASSERT ? "assertion failed" : "__trap()"));
}

/* Turns what the worker recorded into the launch's error text (first wins). */
static void record_failure(sim_worker *w)
{
    const pcc_sim_thread *t = &w->fault_thread;
    char where[256], what[1200];
    snprintf(where, sizeof where, "kernel '%s', block (%u,%u,%u), thread (%u,%u,%u)",
             L.k->name, t->blockIdx.x, t->blockIdx.y, t->blockIdx.z, t->threadIdx.x,
             t->threadIdx.y, t->threadIdx.z);
    if (w->fault_sig == SIGFPE) {
        snprintf(what, sizeof what, "arithmetic fault (SIGFPE) at 0x%" PRIxPTR ": an integer "
                 "division by zero or overflow (on a GPU the result would be undefined)",
                 w->fault_addr);
    } else if (w->fault_sig == SIGILL) {
        snprintf(what, sizeof what, "illegal instruction (SIGILL) at 0x%" PRIxPTR " (the "
                 "compiler traps there on undefined behaviour, e.g. a non-void function "
                 "that returns no value)", w->fault_addr);
    } else if (w->fault_sig) {
        char near[512];
        uintptr_t a = w->fault_addr;
        if (w->fiber_mode && sim_block_is_stack_guard(&w->block, a)) {
            snprintf(near, sizeof near, "stack overflow: the simulated thread used more than "
                                        "its %zu KiB stack (set PYCUDAC_SIM_STACK_KB)",
                     w->block.stack_size / 1024);
            /* check mode: a report, not sticky (the guard stopped it, the
             * frame touched its pages in order: nothing else was written) */
            if (sim_check_stack_overflow(t, a, w->fault_pc, w->block.stack_size)) {
                sim_launch_error(PCC_CHECK_FAILED, "%s: %s", where, near);
                return;
            }
        }
        else if (w->shared_map && a >= (uintptr_t)w->shared &&
                 a < (uintptr_t)w->shared_map + w->shared_map_len)
            snprintf(near, sizeof near, "%" PRIuPTR " bytes past the end of the %u bytes of "
                                        "dynamic shared memory (extern __shared__)",
                     a - ((uintptr_t)w->shared + L.shared_bytes), L.shared_bytes);
        else
            sim_describe_address(a, near, sizeof near);
        snprintf(what, sizeof what, "illegal %s address 0x%" PRIxPTR " (%s)",
                 w->fault_write == 1 ? "write to" : w->fault_write == 0 ? "read from" : "access at",
                 a, near);
    } else {
        snprintf(what, sizeof what, "%s", w->fail_text);
    }
    sim_launch_error(w->fail_code, "%s: %s", where, what);
}

void sim_launch_error(CUresult code, const char *fmt, ...)
{
    pthread_mutex_lock(&err_lock);
    if (L.err == 0) {
        L.err = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L.detail, sizeof L.detail, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&err_lock);
    atomic_store(&L.stop, 1);
    if (L.cooperative || L.cluster_size > 1)
        sim_grid_abort(); /* blocks waiting in grid.sync() would wait forever */
}

/* ---- running blocks --------------------------------------------------------------------- */

/* Dynamic shared memory for this launch, ending at a guard page. */
static int worker_shared(sim_worker *w, size_t bytes)
{
    size_t ps = (size_t)sysconf(_SC_PAGESIZE);
    size_t rounded = (bytes + 15) & ~(size_t)15;
    if (w->shared_map == NULL || rounded > w->shared_cap) {
        if (w->shared_map)
            munmap(w->shared_map, w->shared_map_len);
        size_t cap = (rounded + ps - 1) & ~(ps - 1);
        if (cap == 0)
            cap = ps;
        size_t len = cap + ps;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            w->shared_map = NULL;
            return -1;
        }
        mprotect((char *)m + cap, ps, PROT_NONE);
        w->shared_map = m;
        w->shared_map_len = len;
        w->shared_cap = cap;
    }
    w->shared = (char *)w->shared_map + w->shared_cap - rounded;
    return 0;
}

/* Plain mode in another order than the threads' (PYCUDAC_SIM_SCHEDULE):
 * last to first, or shuffled by the block's seed. */
static void run_plain_ordered(sim_worker *w, pcc_sim_dim3 bidx, int sched, unsigned long long seed)
{
    pcc_sim_thread *t = &w->plain.t;
    unsigned int bx = L.block.x, bxy = L.block.x * L.block.y;
    unsigned int n = bxy * L.block.z;
    for (unsigned int i = 0; i < n; i++)
        w->order[i] = (unsigned short)(sched == SIM_SCHED_REVERSE ? n - 1 - i : i);
    if (sched == SIM_SCHED_RANDOM)
        for (unsigned int i = n; i > 1; i--) {
            unsigned int j = (unsigned int)(sim_sched_next(&seed) % i);
            unsigned short tmp = w->order[i - 1];
            w->order[i - 1] = w->order[j];
            w->order[j] = tmp;
        }
    t->blockIdx = bidx;
    for (unsigned int i = 0; i < n; i++) {
        unsigned int lin = w->order[i];
        t->threadIdx.x = lin % bx;
        t->threadIdx.y = lin % bxy / bx;
        t->threadIdx.z = lin / bxy;
        t->linear = lin;
        t->lane = lin % PCC_SIM_WARP_SIZE;
        L.k->entry(t, L.args);
    }
}

static void run_plain(sim_worker *w, pcc_sim_dim3 bidx, unsigned long long seed)
{
    pcc_sim_thread *t = &w->plain.t;
    const pcc_sim_kernel *k = L.k;
    void *const *args = L.args;
    int sched = sim_sched_mode();
    if (sched != SIM_SCHED_FORWARD) {
        run_plain_ordered(w, bidx, sched, seed);
        return;
    }
    t->blockIdx = bidx;
    unsigned int lin = 0;
    for (unsigned int z = 0; z < L.block.z; z++) {
        t->threadIdx.z = z;
        for (unsigned int y = 0; y < L.block.y; y++) {
            t->threadIdx.y = y;
            for (unsigned int x = 0; x < L.block.x; x++, lin++) {
                t->threadIdx.x = x;
                t->linear = lin;
                t->lane = lin % PCC_SIM_WARP_SIZE;
                k->entry(t, args);
            }
        }
    }
}

/* The grid's linear block index of the block of rank `rank` in the
 * cluster that runs now (clusters and ranks count x fastest). */
static unsigned long long cluster_block(unsigned long long rank)
{
    unsigned long long cgx = L.grid.x / L.cluster.x, cgy = L.grid.y / L.cluster.y;
    unsigned long long c = L.cluster_index;
    unsigned long long x = c % cgx * L.cluster.x + rank % L.cluster.x;
    unsigned long long y = c / cgx % cgy * L.cluster.y + rank / L.cluster.x % L.cluster.y;
    unsigned long long z = c / (cgx * cgy) * L.cluster.z + rank / ((unsigned long long)L.cluster.x * L.cluster.y);
    return x + L.grid.x * (y + (unsigned long long)L.grid.y * z);
}

/* Runs blocks on w until none are left or the launch stops; `only` >= 0:
 * that block alone (a cooperative launch's; in a cluster launch, the block
 * of that rank in the cluster that runs now). Apart from run_blocks so that
 * a longjmp out of a block leaves nothing of this frame to be read. */
static __attribute__((noinline)) void take_blocks(sim_worker *w, long long only)
{
    unsigned long long gx = L.grid.x, gxy = gx * L.grid.y;
    while (!atomic_load_explicit(&L.stop, memory_order_relaxed)) {
        unsigned long long b;
        if (only >= 0 && L.cluster_size > 1) {
            b = cluster_block((unsigned long long)only);
            /* where this block's shared memory is, for map_shared_rank */
            __atomic_store_n(&L.member_shared[only], w->shared, __ATOMIC_RELEASE);
            __atomic_store_n(&L.member_anchor[only], L.k->tls_anchor ? L.k->tls_anchor() : NULL,
                             __ATOMIC_RELEASE);
        } else if (only >= 0)
            b = (unsigned long long)only;
        else if ((b = atomic_fetch_add_explicit(&L.next, 1, memory_order_relaxed)) >= L.nblocks)
            break;
        pcc_sim_dim3 bidx = {(unsigned int)(b % gx), (unsigned int)(b % gxy / gx),
                             (unsigned int)(b / gxy)};
        unsigned long long seed = sim_sched_mode() == SIM_SCHED_RANDOM ? sim_sched_seed(b) : 0;
        sim_check_block_begin();
        sim_worker_set_in_kernel(w, 1);
        if (w->fiber_mode)
            sim_block_run(&w->block, bidx, L.block, L.grid, w->shared, seed);
        else
            run_plain(w, bidx, seed);
        sim_worker_set_in_kernel(w, 0);
        if (L.cooperative || L.cluster_size > 1)
            sim_grid_block_done(bidx);
        if (only >= 0)
            break;
    }
}

/* Readies w for the launch in L and runs its blocks (take_blocks). */
static void run_blocks(sim_worker *w, long long only)
{
    tls_worker = w;
    __atomic_store_n(&w->owner, pthread_self(), __ATOMIC_RELAXED);
    w->fiber_mode = L.k->uses_sync != 0;
    int nthreads = (int)(L.block.x * L.block.y * L.block.z);
    if ((w->fiber_mode && sim_block_reserve(&w->block, nthreads) < 0) ||
        worker_shared(w, L.shared_bytes) < 0) {
        sim_launch_error(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                         "kernel '%s': no memory for %d thread stacks", L.k->name, nthreads);
        return;
    }
    w->block.kernel = L.k;
    w->block.args = L.args;
    pcc_sim_thread *pt = &w->plain.t;
    pt->runtime = &w->plain;
    w->plain.block = NULL;
    pt->blockDim = L.block;
    pt->gridDim = L.grid;
    pt->dynamic_shared = w->shared;
    sim_check_worker_begin(&w->chk, &w->block, w->fiber_mode, pt, w->shared, L.shared_bytes,
                           w->shared_map, w->shared_map_len);
    if (sigsetjmp(w->jmp, 1) != 0) {
        sim_worker_set_in_kernel(w, 0);
        if (w->fiber_mode)
            sim_block_escaped(&w->block);
        record_failure(w);
        sim_check_worker_end();
        return;
    }
    take_blocks(w, only);
    sim_check_worker_end();
}

void sim_worker_run_one(sim_worker *w, unsigned long long block)
{
    run_blocks(w, (long long)block);
    tls_worker = NULL;
}

static void *pool_main(void *arg)
{
    sim_worker *w = arg;
    stack_t ss = {.ss_sp = malloc(64 * 1024), .ss_size = 64 * 1024, .ss_flags = 0};
    if (ss.ss_sp)
        sigaltstack(&ss, NULL);
    /* Not found by scanning workers[]: ensure_pool is still filling it. */
    int index = w->pool_index;
    unsigned long long seen = 0;
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (launch_gen == seen)
            pthread_cond_wait(&pool_wake, &pool_lock);
        seen = launch_gen;
        if (index >= participants)
            continue;
        pthread_mutex_unlock(&pool_lock);
        run_blocks(w, -1);
        pthread_mutex_lock(&pool_lock);
        if (--active == 0)
            pthread_cond_signal(&pool_done);
    }
    return NULL;
}

/* In a child after fork() the pool threads are gone: forget them (their
 * memory stays), so a launch there runs on the calling thread alone. */
static void pool_after_fork(void)
{
    for (int i = 1; i < SIM_MAX_WORKERS; i++)
        __atomic_store_n(&workers[i], NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&nworkers, 0, __ATOMIC_RELEASE);
    pthread_mutex_init(&sim_launch_lock, NULL);
    pthread_mutex_init(&pool_lock, NULL);
    pthread_mutex_init(&err_lock, NULL);
    sim_print_after_fork();
    pthread_cond_init(&pool_wake, NULL);
    pthread_cond_init(&pool_done, NULL);
    sim_coop_after_fork();
}

/* Starts the pool on first use: one thread per CPU core besides the caller
 * (PYCUDAC_SIM_THREADS sets the total). */
static void ensure_pool(void)
{
    if (workers[0] != NULL)
        return;
    pthread_atfork(NULL, NULL, pool_after_fork);
    sim_worker *w0 = calloc(1, sizeof(sim_worker));
    if (w0 == NULL)
        return;
    __atomic_store_n(&workers[0], w0, __ATOMIC_RELEASE);
    int total = sim_cpu_count();
    char *env = pcc_sim_env_dup("PYCUDAC_SIM_THREADS"); /* no getenv without the GIL */
    if (env && atoi(env) > 0)
        total = atoi(env);
    free(env);
    if (total > SIM_MAX_WORKERS)
        total = SIM_MAX_WORKERS;
    for (int i = 1; i < total; i++) {
        sim_worker *w = calloc(1, sizeof *w);
        if (w == NULL)
            break;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 8u << 20);
        pthread_t tid;
        /* Block signals in pool threads except the faults they report and
         * the watchdog's stop (sim/fault.c). */
        sigset_t all, old;
        sim_fault_worker_mask(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        w->pool_index = i;
        pthread_mutex_lock(&pool_lock);
        __atomic_store_n(&workers[i], w, __ATOMIC_RELEASE);
        __atomic_store_n(&nworkers, i, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&pool_lock);
        int rc = pthread_create(&tid, &attr, pool_main, w);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            pthread_mutex_lock(&pool_lock);
            __atomic_store_n(&workers[i], NULL, __ATOMIC_RELEASE);
            __atomic_store_n(&nworkers, i - 1, __ATOMIC_RELEASE);
            pthread_mutex_unlock(&pool_lock);
            free(w);
            break;
        }
        pthread_detach(tid);
    }
}

/* The end of a launch: a fault is the sticky error it always is; what check
 * mode found is PCC_CHECK_FAILED, which is not (the checks stopped every bad
 * access before it happened). */
static CUresult launch_result(void)
{
    sim_stop_end();
    sim_flush_output();
    CUresult checked = sim_check_launch_end();
    /* stopped by Ctrl-C or the watchdog: not sticky either (the kernel was
     * left in its own code: no lock held, nothing but its writes behind) */
    if (L.err == PCC_LAUNCH_INTERRUPTED || L.err == CUDA_ERROR_LAUNCH_TIMEOUT) {
        sim_report_message_set(L.detail);
        return L.err;
    }
    if (L.err != 0 && L.err != PCC_CHECK_FAILED) {
        sim_set_sticky(L.err, L.detail);
        return CUDA_SUCCESS; /* the next call reports it, as on a GPU */
    }
    if (L.err == PCC_CHECK_FAILED && checked == CUDA_SUCCESS && !sim_check_raises())
        return CUDA_SUCCESS; /* a block stopped at a bad access, only collected */
    return L.err == PCC_CHECK_FAILED || checked != CUDA_SUCCESS ? PCC_CHECK_FAILED : CUDA_SUCCESS;
}

/* Runs every block of the launch in L (launch_lock held). */
static CUresult run_launch(void)
{
    ensure_pool();
    sim_fault_ensure_handlers();
    sim_fault_ensure_altstack();
    atomic_store(&L.next, 0);
    atomic_store(&L.stop, 0);
    L.err = 0;
    L.detail[0] = '\0';
    sim_check_launch_begin(L.f, L.args, L.shared_bytes);
    sim_stop_begin();
    if (L.cluster_size > 1) { /* one cluster at a time, its blocks at once */
        unsigned long long n = L.nblocks / L.cluster_size;
        for (L.cluster_index = 0; L.cluster_index < n && !atomic_load(&L.stop); L.cluster_index++) {
            memset(L.member_shared, 0, sizeof L.member_shared);
            memset(L.member_anchor, 0, sizeof L.member_anchor);
            if (sim_coop_start(L.cluster_size) < 0) {
                sim_launch_error(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "kernel '%s': no OS threads "
                                 "for the %llu blocks of a cluster", L.k->name, L.cluster_size);
                break;
            }
            run_blocks(workers[0], 0);
            tls_worker = NULL;
            sim_coop_finish();
        }
        return launch_result();
    }
    if (L.cooperative) {
        if (sim_coop_start(L.nblocks) < 0) {
            sim_launch_error(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "kernel '%s': no OS threads "
                             "for the %llu blocks of a cooperative launch", L.k->name,
                             L.nblocks);
        } else {
            run_blocks(workers[0], 0);
            tls_worker = NULL;
            sim_coop_finish();
        }
        return launch_result();
    }
    int helpers = nworkers;
    if ((unsigned long long)helpers > L.nblocks - 1)
        helpers = (int)(L.nblocks - 1);
    if (helpers > 0) {
        pthread_mutex_lock(&pool_lock);
        participants = helpers + 1; /* pool indices 1..helpers */
        active = helpers;
        launch_gen++;
        pthread_cond_broadcast(&pool_wake);
        pthread_mutex_unlock(&pool_lock);
    }
    run_blocks(workers[0], -1);
    tls_worker = NULL;
    if (helpers > 0) {
        pthread_mutex_lock(&pool_lock);
        while (active > 0)
            pthread_cond_wait(&pool_done, &pool_lock);
        pthread_mutex_unlock(&pool_lock);
    }
    return launch_result();
}

/* ---- launch ----------------------------------------------------------------------------- */

/* Where f's parameters end: the size of its packed parameter buffer. */
static size_t params_end(const pcc_sim_kernel *k)
{
    size_t end = 0;
    for (int i = 0; i < k->nparams; i++)
        if (k->param_offsets[i] + k->param_sizes[i] > end)
            end = k->param_offsets[i] + k->param_sizes[i];
    return end;
}

CUresult sim_kernel_op(sim_op *op, CUfunction f, unsigned int gx, unsigned int gy,
                       unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
                       unsigned int shared, void **kernelParams, void **extra)
{
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
        gx > SIM_MAX_GRID_X || gy > SIM_MAX_GRID_YZ || gz > SIM_MAX_GRID_YZ ||
        bx > SIM_MAX_BLOCK_X || by > SIM_MAX_BLOCK_Y || bz > SIM_MAX_BLOCK_Z ||
        (unsigned long long)bx * by * bz > SIM_MAX_THREADS_PER_BLOCK)
        return CUDA_ERROR_INVALID_VALUE;
    if (shared > (unsigned int)f->max_dynamic_shared)
        return CUDA_ERROR_INVALID_VALUE;
    const pcc_sim_kernel *k = f->k;
    const char *buf = NULL;
    if (extra != NULL) {
        size_t buf_size = 0;
        int have_buf = 0, have_size = 0;
        if (kernelParams != NULL)
            return CUDA_ERROR_INVALID_VALUE;
        for (int i = 0; extra[i] != PCC_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == PCC_LAUNCH_PARAM_BUFFER_POINTER) {
                buf = extra[i + 1];
                have_buf = 1;
            } else if (extra[i] == PCC_LAUNCH_PARAM_BUFFER_SIZE) {
                if (extra[i + 1] == NULL)
                    return CUDA_ERROR_INVALID_VALUE;
                buf_size = *(const size_t *)extra[i + 1];
                have_size = 1;
            } else {
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
        if (!have_buf || !have_size)
            return CUDA_ERROR_INVALID_VALUE;
        size_t end = params_end(k);
        /* The driver refuses a buffer longer than the parameters; a short
         * one it takes silently — the simulator refuses both. */
        if (buf_size != end || (end > 0 && buf == NULL))
            return CUDA_ERROR_INVALID_VALUE;
    } else if (kernelParams == NULL && k->nparams > 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    op->type = CU_GRAPH_NODE_TYPE_KERNEL;
    op->u.kernel.f = f;
    op->u.kernel.grid = (pcc_sim_dim3){gx, gy, gz};
    op->u.kernel.block = (pcc_sim_dim3){bx, by, bz};
    op->u.kernel.shared = shared;
    op->u.kernel.params = extra != NULL ? NULL : kernelParams;
    op->u.kernel.packed = buf;
    op->u.kernel.size = params_end(k);
    op->u.kernel.ctx = f->mod->ctx;
    op->u.kernel.cooperative = 0;
    op->u.kernel.cluster = (pcc_sim_dim3){0, 0, 0};
    /* a kernel of __cluster_dims__ runs in clusters of them: the grid must
     * hold a whole number */
    if (k->cluster[0] && (gx % k->cluster[0] || gy % k->cluster[1] || gz % k->cluster[2]))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    return CUDA_SUCCESS;
}

/* The packed form is copied as bytes, without looking at f (whose module
 * may have been unloaded since: the copy is then refused at run time). */
char *sim_kernel_pack(const sim_op *op)
{
    size_t size = op->u.kernel.size;
    char *copy = malloc(size ? size : 1);
    if (copy == NULL)
        return NULL;
    if (op->u.kernel.params == NULL) {
        if (size)
            memcpy(copy, op->u.kernel.packed, size);
        return copy;
    }
    const pcc_sim_kernel *k = op->u.kernel.f->k;
    memset(copy, 0, size);
    for (int i = 0; i < k->nparams; i++)
        memcpy(copy + k->param_offsets[i], op->u.kernel.params[i], k->param_sizes[i]);
    return copy;
}

int sim_launch_in_kernel_code(uintptr_t pc)
{
    CUfunction f = L.f;
    if (f == NULL)
        return 0;
    const struct CUmod_st *m = f->mod;
    for (int i = 0; i < m->nseg; i++)
        if (pc >= m->seg_lo[i] && pc < m->seg_hi[i])
            return 1;
    return 0;
}

CUcontext sim_launch_ctx(void) /* under sim_launch_lock, from a running kernel */
{
    return L.f ? L.f->mod->ctx : NULL;
}

CUresult sim_kernel_run(const sim_op *op)
{
    CUfunction f = op->u.kernel.f;
    pthread_mutex_lock(&sim_launch_lock);
    if (!sim_func_ok(f)) { /* unloaded meanwhile */
        pthread_mutex_unlock(&sim_launch_lock);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    const pcc_sim_kernel *k = f->k;
    if (op->u.kernel.params == NULL) {
        for (int i = 0; i < k->nparams; i++)
            f->argv[i] = (void *)(op->u.kernel.packed + k->param_offsets[i]);
        L.args = (void *const *)f->argv;
    } else {
        L.args = (void *const *)op->u.kernel.params;
    }
    L.f = f;
    L.k = k;
    L.grid = op->u.kernel.grid;
    L.block = op->u.kernel.block;
    L.shared_bytes = op->u.kernel.shared;
    L.nblocks = (unsigned long long)L.grid.x * L.grid.y * L.grid.z;
    L.cooperative = op->u.kernel.cooperative;
    L.cluster = op->u.kernel.cluster.x ? op->u.kernel.cluster
                : k->cluster[0]        ? (pcc_sim_dim3){k->cluster[0], k->cluster[1], k->cluster[2]}
                                       : (pcc_sim_dim3){1, 1, 1};
    L.cluster_size = (unsigned long long)L.cluster.x * L.cluster.y * L.cluster.z;
    CUresult rc = run_launch();
    pthread_mutex_unlock(&sim_launch_lock);
    return rc;
}

static CUresult sim_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                   unsigned int bx, unsigned int by, unsigned int bz,
                                   unsigned int sharedMemBytes, CUstream s, void **kernelParams,
                                   void **extra)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    sim_op op;
    rc = sim_kernel_op(&op, f, gx, gy, gz, bx, by, bz, sharedMemBytes, kernelParams, extra);
    if (rc != CUDA_SUCCESS)
        return sim_capture_refused(s, rc);
    rc = sim_stream_submit(s, &op);
    return rc == SIM_RUN_NOW ? sim_kernel_run(&op) : rc;
}

void sim_fill_launch_table(pcc_driver_table *t)
{
    t->cuLaunchKernel = sim_cuLaunchKernel;
    sim_fill_module_table(t);
    sim_fill_coop_table(t);
    sim_fill_cluster_table(t);
}
