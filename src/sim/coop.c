/*
 * sim/coop.c — cooperative launches (cuLaunchCooperativeKernel): every block
 * of the grid resident at once, and grid.sync() across them.
 *
 * A block's `__shared__` arrays are `static thread_local` in the kernel's
 * module (sim/prelude/cuda_runtime.h), so blocks alive at the same time
 * need OS threads of their own: the caller runs block 0 and a coop thread
 * each other block. Coop threads are made on first need and kept for later
 * cooperative launches, apart from the worker pool, so that ordinary
 * launches never wake them. Blocks really run at once, so they may also
 * wait on each other through global memory (a flag, a counter), which
 * co-residency allows on a GPU.
 *
 * grid.sync(): a block's threads first meet at the block's barrier
 * (sim/fiber.c); its last thread then waits here until every block has
 * arrived. A block that finishes while others wait can never arrive: the
 * launch fails saying so. A fault in any block stops the launch and wakes
 * the blocks that wait, which end too (the fault is the launch's error).
 *
 * How many blocks may be resident: sim_blocks_per_sm (sim/module.c, what
 * cuOccupancyMaxActiveBlocksPerMultiprocessor answers) times the
 * multiprocessor count (one per CPU core, as the device attribute says); a
 * larger grid is CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, as on a GPU.
 */
#include <signal.h>
#include <stdlib.h>

#include "sim/sim.h"

typedef struct {
    struct sim_worker *w;    /* atomic: the fault handler reads it */
    unsigned long long seen; /* the last launch it looked at (coop_lock) */
} coop_thread;

static pthread_mutex_t coop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t coop_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t coop_done = PTHREAD_COND_INITIALIZER;
static coop_thread coop[SIM_MAX_COOP_BLOCKS]; /* [i] runs block i; [0] unused */
static int ncoop;                             /* threads made: coop[1..ncoop] (atomic) */
static unsigned long long coop_gen, coop_nblocks;
static unsigned long long coop_active;

/* The grid barrier of the launch in progress. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned long long arrived, exited, gen;
    int stopped;
} G = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0};

static void *coop_main(void *arg)
{
    int index = (int)(intptr_t)arg;
    struct sim_worker *w = coop[index].w;
    stack_t ss = {.ss_sp = malloc(64 * 1024), .ss_size = 64 * 1024, .ss_flags = 0};
    if (ss.ss_sp) /* to report a fiber's stack overflow */
        sigaltstack(&ss, NULL);
    pthread_mutex_lock(&coop_lock);
    for (;;) {
        while (coop_gen == coop[index].seen)
            pthread_cond_wait(&coop_wake, &coop_lock);
        coop[index].seen = coop_gen;
        if ((unsigned long long)index >= coop_nblocks)
            continue;
        pthread_mutex_unlock(&coop_lock);
        sim_worker_run_one(w, (unsigned long long)index);
        pthread_mutex_lock(&coop_lock);
        if (--coop_active == 0)
            pthread_cond_signal(&coop_done);
    }
    return NULL;
}

/* Makes coop thread `index` (coop_lock held). 0 or -1. */
static int coop_thread_new(int index)
{
    struct sim_worker *w = sim_worker_new();
    if (w == NULL)
        return -1;
    coop[index].seen = coop_gen;
    __atomic_store_n(&coop[index].w, w, __ATOMIC_RELEASE);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8u << 20); /* a plain-mode kernel runs on it */
    /* signals go to Python's threads, except the faults a kernel raises */
    sigset_t all, old;
    sim_fault_worker_mask(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t tid;
    int rc = pthread_create(&tid, &attr, coop_main, (void *)(intptr_t)index);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        __atomic_store_n(&coop[index].w, NULL, __ATOMIC_RELEASE);
        free(w);
        return -1;
    }
    pthread_detach(tid);
    __atomic_store_n(&ncoop, index, __ATOMIC_RELEASE);
    return 0;
}

int sim_coop_start(unsigned long long nblocks)
{
    if (nblocks == 0 || nblocks > SIM_MAX_COOP_BLOCKS)
        return -1;
    pthread_mutex_lock(&coop_lock);
    while ((unsigned long long)ncoop + 1 < nblocks) {
        if (coop_thread_new(ncoop + 1) < 0) {
            pthread_mutex_unlock(&coop_lock);
            return -1;
        }
    }
    pthread_mutex_lock(&G.lock);
    G.arrived = G.exited = 0;
    G.stopped = 0;
    pthread_mutex_unlock(&G.lock);
    coop_nblocks = nblocks;
    coop_active = nblocks - 1;
    coop_gen++;
    pthread_cond_broadcast(&coop_wake);
    pthread_mutex_unlock(&coop_lock);
    return 0;
}

void sim_coop_finish(void)
{
    pthread_mutex_lock(&coop_lock);
    while (coop_active > 0)
        pthread_cond_wait(&coop_done, &coop_lock);
    pthread_mutex_unlock(&coop_lock);
}

struct sim_worker *sim_coop_worker_of(pthread_t self)
{
    int n = __atomic_load_n(&ncoop, __ATOMIC_ACQUIRE);
    for (int i = 1; i <= n; i++) {
        struct sim_worker *w = __atomic_load_n(&coop[i].w, __ATOMIC_ACQUIRE);
        if (w && sim_worker_in_kernel_on(w, self))
            return w;
    }
    return NULL;
}

void sim_coop_signal_workers(int sig)
{
    int n = __atomic_load_n(&ncoop, __ATOMIC_ACQUIRE);
    for (int i = 1; i <= n; i++) {
        struct sim_worker *w = __atomic_load_n(&coop[i].w, __ATOMIC_ACQUIRE);
        if (w && __atomic_load_n(&w->in_kernel, __ATOMIC_RELAXED))
            pthread_kill(__atomic_load_n(&w->owner, __ATOMIC_RELAXED), sig);
    }
}

/* In a child after fork() the coop threads are gone: forget them (their
 * memory stays), as the pool does. */
void sim_coop_after_fork(void)
{
    for (int i = 1; i < SIM_MAX_COOP_BLOCKS; i++)
        __atomic_store_n(&coop[i].w, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&ncoop, 0, __ATOMIC_RELEASE);
    coop_active = 0;
    pthread_mutex_init(&coop_lock, NULL);
    pthread_cond_init(&coop_wake, NULL);
    pthread_cond_init(&coop_done, NULL);
    pthread_mutex_init(&G.lock, NULL);
    pthread_cond_init(&G.cond, NULL);
}

/* ---- the grid barrier ----------------------------------------------------------------------- */

void sim_grid_wait(const pcc_sim_thread *t, int line)
{
    unsigned long long n = sim_launch_group_blocks();
    const char *what = sim_launch_group_sync();
    pthread_mutex_lock(&G.lock);
    if (!G.stopped) {
        unsigned long long gen = G.gen;
        if (++G.arrived == n) {
            G.arrived = 0;
            G.gen++;
            pthread_cond_broadcast(&G.cond);
            pthread_mutex_unlock(&G.lock);
            return;
        }
        if (G.arrived + G.exited == n) {
            unsigned long long exited = G.exited;
            pthread_mutex_unlock(&G.lock);
            sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                     "%s at line %d can never complete: %llu of the %llu blocks it waits for "
                     "finished without reaching it (every thread of them must)",
                     what, line, exited, n);
        }
        while (G.gen == gen && !G.stopped)
            pthread_cond_wait(&G.cond, &G.lock);
        if (G.gen != gen) {
            pthread_mutex_unlock(&G.lock);
            return;
        }
    }
    pthread_mutex_unlock(&G.lock);
    /* the launch's error is the other block's: this text is not kept */
    sim_fail(t, CUDA_ERROR_LAUNCH_FAILED, "%s at line %d: the launch stopped", what, line);
}

void sim_grid_block_done(pcc_sim_dim3 block)
{
    unsigned long long n = sim_launch_group_blocks();
    pthread_mutex_lock(&G.lock);
    G.exited++;
    unsigned long long waiting = G.arrived;
    int stuck = waiting > 0 && waiting + G.exited == n && !G.stopped;
    pthread_mutex_unlock(&G.lock);
    if (stuck)
        sim_launch_error(CUDA_ERROR_LAUNCH_FAILED,
                         "kernel '%s', block (%u,%u,%u): finished while %llu of the %llu "
                         "blocks wait at %s, which can never complete (every thread "
                         "of them must reach it)",
                         sim_launch_kernel_name(), block.x, block.y, block.z, waiting, n,
                         sim_launch_group_sync());
}

void sim_grid_abort(void)
{
    pthread_mutex_lock(&G.lock);
    G.stopped = 1;
    pthread_cond_broadcast(&G.cond);
    pthread_mutex_unlock(&G.lock);
}

/* ---- cuLaunchCooperativeKernel ------------------------------------------------------------ */

static CUresult sim_cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                              unsigned int gz, unsigned int bx, unsigned int by,
                                              unsigned int bz, unsigned int sharedMemBytes,
                                              CUstream s, void **kernelParams)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    sim_op op;
    rc = sim_kernel_op(&op, f, gx, gy, gz, bx, by, bz, sharedMemBytes, kernelParams, NULL);
    if (rc != CUDA_SUCCESS)
        return sim_capture_refused(s, rc);
    unsigned long long blocks = (unsigned long long)gx * gy * gz;
    int per_sm = sim_blocks_per_sm(f, (int)(bx * by * bz), sharedMemBytes);
    if (blocks > (unsigned long long)per_sm * (unsigned long long)sim_cpu_count())
        return sim_capture_refused(s, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    op.u.kernel.cooperative = 1;
    rc = sim_stream_submit(s, &op);
    return rc == SIM_RUN_NOW ? sim_kernel_run(&op) : rc;
}

void sim_fill_coop_table(pcc_driver_table *t)
{
    t->cuLaunchCooperativeKernel = sim_cuLaunchCooperativeKernel;
}
