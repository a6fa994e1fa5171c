/*
 * sim/fault.c — what stops a kernel that should not go on: its faults, and
 * the interrupts and time limit that end a kernel that would not stop.
 *
 * Faults: a SIGSEGV/SIGBUS at a bad address, SIGFPE (an integer division
 * by zero must not kill the process), SIGILL, and SIGABRT (an abort the
 * prelude did not turn into a trap) on a thread running a kernel end its
 * block with a siglongjmp back to the worker (sim/launch.c records the
 * error); on any other thread they go to the handler that was there
 * before. Each thread gets a signal stack, so a fiber's stack overflow is
 * reported too.
 *
 * Stopping: Ctrl-C (SIGINT) during a launch, or the launch running past
 * PYCUDAC_SIM_TIMEOUT seconds, asks the watchdog thread to stop it. Our
 * SIGINT handler only notes the interrupt (and hands the signal on to
 * Python's, which raises KeyboardInterrupt when the launch returns); the
 * watchdog ends the launch and sends each worker still in the kernel a stop
 * signal every 10 ms until none is. A worker takes it only where its
 * thread is in the kernel's own code (never inside the runtime or a library,
 * which may hold a lock): it leaves the block as a fault does. The launch
 * then returns PCC_LAUNCH_INTERRUPTED or CUDA_ERROR_LAUNCH_TIMEOUT, neither
 * sticky: the kernel's partial writes are all it leaves behind.
 * The compiler's wait (sim/cc/cxx.c) watches the interrupt count too.
 */
/* Built without glibc's fortified siglongjmp, as sim/launch.c is: the
 * jump leaves a fiber's stack for the worker's, which __longjmp_chk takes
 * for a smashed stack (an abort on a host whose gcc fortifies by default). */
#undef _FORTIFY_SOURCE
#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "pycudac/backend.h"
#include "sim/sim.h"
#include "sim/env.h"

/* ---- faults ------------------------------------------------------------------------------ */

#define N_FAULT 5
static const int fault_sigs[N_FAULT] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction prev_action[N_FAULT];

static uintptr_t pc_of(const void *ucv)
{
#if defined(__x86_64__)
    return (uintptr_t)((const ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)((const ucontext_t *)ucv)->uc_mcontext.pc;
#else
    (void)ucv;
    return 0;
#endif
}

/* Leaves the kernel of worker w (running on this thread) for its worker's
 * sigsetjmp, the running thread recorded as the one that stopped. */
_Noreturn static void leave_kernel(sim_worker *w)
{
    const pcc_sim_thread *t = w->fiber_mode ? (w->block.current ? &w->block.current->t : NULL)
                                            : &w->plain.t;
    if (t)
        w->fault_thread = *t;
    else
        memset(&w->fault_thread, 0, sizeof w->fault_thread);
    if (w->fiber_mode)
        sim_block_escape(&w->block);
    siglongjmp(w->jmp, 1);
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    /* No TLS here: a thread that never launched may fault, and its first
     * TLS access could allocate. Workers are found by thread id. */
    sim_worker *w = sim_worker_of_thread(pthread_self());
    if (w != NULL) {
        sim_worker_set_in_kernel(w, 0);
        w->fail_code = sig == SIGILL                     ? CUDA_ERROR_ILLEGAL_INSTRUCTION
                       : sig == SIGFPE || sig == SIGABRT ? CUDA_ERROR_LAUNCH_FAILED
                                                         : CUDA_ERROR_ILLEGAL_ADDRESS;
        w->fault_sig = sig;
        w->fault_addr = (uintptr_t)si->si_addr;
        w->fault_write = -1;
        w->fault_pc = pc_of(ucv);
#if defined(__x86_64__) && defined(REG_ERR)
        const ucontext_t *uc = ucv;
        w->fault_write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#endif
        leave_kernel(w);
    }
    /* Not ours: hand the signal to whoever had it before, for good. A
     * handler installed after ours may hand it back (faulthandler restores
     * its predecessor and re-raises): the second time, die by default. */
    static volatile sig_atomic_t chaining;
    struct sigaction *prev = &prev_action[0];
    for (int i = 1; i < N_FAULT; i++)
        if (fault_sigs[i] == sig)
            prev = &prev_action[i];
    if (chaining) {
        signal(sig, SIG_DFL);
        return;
    }
    chaining = 1;
    sigaction(sig, prev, NULL);
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction)
            prev->sa_sigaction(sig, si, ucv);
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
    } else if (sig == SIGABRT) {
        raise(sig); /* abort's signal is not re-run by returning: send it again */
    }
    /* Returning re-runs the faulting instruction under the previous action. */
}

/* ---- stopping a launch ---------------------------------------------------------------------- */

enum { STOP_NONE = 0, STOP_INTERRUPT, STOP_TIMEOUT };

static atomic_int running;     /* a launch is in progress */
static atomic_int reason;      /* STOP_*: why it is to stop */
static atomic_uint interrupts; /* SIGINTs seen, ever */
static long long deadline;     /* monotonic ns, 0: none (under watch_lock) */
static int stop_issued;        /* the watchdog ended the launch (under watch_lock) */
static double timeout_s;       /* PYCUDAC_SIM_TIMEOUT of this launch */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t watch_sem;
static int watch_started;
static struct sigaction prev_int;

int sim_stop_signal(void)
{
    return SIGRTMIN + 5;
}

unsigned int sim_interrupt_count(void)
{
    return atomic_load(&interrupts);
}

static void on_sigint(int sig, siginfo_t *si, void *ucv)
{
    atomic_fetch_add(&interrupts, 1);
    int ignored = !(prev_int.sa_flags & SA_SIGINFO) && prev_int.sa_handler == SIG_IGN;
    int none = STOP_NONE;
    if (!ignored && atomic_load(&running) &&
        atomic_compare_exchange_strong(&reason, &none, STOP_INTERRUPT) && watch_started)
        sem_post(&watch_sem); /* async-signal-safe: the watchdog does the rest */
    if (prev_int.sa_flags & SA_SIGINFO) {
        if (prev_int.sa_sigaction)
            prev_int.sa_sigaction(sig, si, ucv);
    } else if (prev_int.sa_handler == SIG_DFL) {
        signal(sig, SIG_DFL); /* as it would have been: the process ends */
        raise(sig);
    } else if (prev_int.sa_handler != SIG_IGN) {
        prev_int.sa_handler(sig); /* Python's: KeyboardInterrupt at its next check */
    }
}

/* The stop signal, on a thread the watchdog found in a kernel. */
static void on_stop(int sig, siginfo_t *si, void *ucv)
{
    (void)sig;
    (void)si;
    int r = atomic_load(&reason);
    sim_worker *w = sim_worker_of_thread(pthread_self());
    /* only in the kernel's own code: the runtime and libraries may hold a
     * lock (the watchdog sends again in 10 ms) */
    if (w == NULL || r == STOP_NONE || !sim_launch_in_kernel_code(pc_of(ucv)))
        return;
    sim_worker_set_in_kernel(w, 0);
    w->fail_code = r == STOP_TIMEOUT ? CUDA_ERROR_LAUNCH_TIMEOUT : PCC_LAUNCH_INTERRUPTED;
    w->fault_sig = 0;
    static const char text[] = "stopped";
    memcpy(w->fail_text, text, sizeof text);
    leave_kernel(w);
}

static long long now_ns(void)
{
    return sim_now_ns();
}

static void *watch_main(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&watch_lock);
        long long until = 0;
        if (atomic_load(&running)) {
            if (stop_issued || atomic_load(&reason) != STOP_NONE)
                until = now_ns() + 10 * 1000000LL;
            else
                until = deadline;
        }
        pthread_mutex_unlock(&watch_lock);
        if (until == 0) {
            while (sem_wait(&watch_sem) != 0 && errno == EINTR)
                ;
        } else {
            /* sem_timedwait counts on CLOCK_REALTIME */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            long long left = until - now_ns();
            if (left < 0)
                left = 0;
            long long ns = ts.tv_nsec + left % 1000000000LL;
            ts.tv_sec += (time_t)(left / 1000000000LL + ns / 1000000000LL);
            ts.tv_nsec = (long)(ns % 1000000000LL);
            while (sem_timedwait(&watch_sem, &ts) != 0 && errno == EINTR)
                ;
        }
        pthread_mutex_lock(&watch_lock);
        if (atomic_load(&running)) {
            int none = STOP_NONE;
            if (deadline && now_ns() >= deadline)
                atomic_compare_exchange_strong(&reason, &none, STOP_TIMEOUT);
            int r = atomic_load(&reason);
            if (r != STOP_NONE) {
                if (!stop_issued) {
                    stop_issued = 1;
                    if (r == STOP_TIMEOUT)
                        sim_launch_error(CUDA_ERROR_LAUNCH_TIMEOUT, "kernel '%s' ran past "
                                         "PYCUDAC_SIM_TIMEOUT=%g s and was stopped",
                                         sim_launch_kernel_name(), timeout_s);
                    else
                        sim_launch_error(PCC_LAUNCH_INTERRUPTED, "kernel '%s' was interrupted "
                                         "(Ctrl-C)", sim_launch_kernel_name());
                }
                sim_launch_signal_workers(sim_stop_signal());
            }
        }
        pthread_mutex_unlock(&watch_lock);
    }
    return NULL;
}

static void watch_start(void)
{
    if (sem_init(&watch_sem, 0, 0) != 0)
        return;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256u << 10);
    sigset_t all, old;
    sigfillset(&all); /* signals go to Python's threads */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t tid;
    if (pthread_create(&tid, &attr, watch_main, NULL) == 0) {
        pthread_detach(tid);
        watch_started = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
}

void sim_stop_begin(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, watch_start);
    char *env = pcc_sim_env_dup("PYCUDAC_SIM_TIMEOUT"); /* no getenv without the GIL */
    double t = env ? strtod(env, NULL) : 0.0;
    free(env);
    pthread_mutex_lock(&watch_lock);
    timeout_s = t > 0 ? t : 0;
    deadline = t > 0 ? now_ns() + (long long)(t * 1e9) : 0;
    stop_issued = 0;
    atomic_store(&reason, STOP_NONE);
    atomic_store(&running, 1);
    pthread_mutex_unlock(&watch_lock);
    if (deadline && watch_started)
        sem_post(&watch_sem); /* its wait now has a deadline */
}

void sim_stop_end(void)
{
    pthread_mutex_lock(&watch_lock);
    atomic_store(&running, 0);
    atomic_store(&reason, STOP_NONE);
    pthread_mutex_unlock(&watch_lock);
}

/* ---- installing the handlers ------------------------------------------------------------- */

void sim_fault_ensure_sigint(void)
{
    struct sigaction cur;
    if (sigaction(SIGINT, NULL, &cur) != 0 ||
        ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigint))
        return;
    if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
        return; /* ignored: nothing to interrupt */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigint;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | (cur.sa_flags & SA_RESTART);
    sigemptyset(&sa.sa_mask);
    prev_int = cur;
    sigaction(SIGINT, &sa, NULL);
}

void sim_fault_ensure_handlers(void)
{
    for (int i = 0; i < N_FAULT; i++) {
        struct sigaction cur;
        if (sigaction(fault_sigs[i], NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
            cur.sa_sigaction == on_fault)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(fault_sigs[i], &sa, &prev_action[i]);
    }
    struct sigaction cur;
    if (!(sigaction(sim_stop_signal(), NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
          cur.sa_sigaction == on_stop)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_stop;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(sim_stop_signal(), &sa, NULL);
    }
    sim_fault_ensure_sigint();
}

void sim_fault_worker_mask(sigset_t *set)
{
    sigfillset(set);
    for (int i = 0; i < N_FAULT; i++)
        sigdelset(set, fault_sigs[i]);
    sigdelset(set, sim_stop_signal());
}

/* A signal stack for this thread if it has none, so that a fiber's stack
 * overflow can still be reported. Kept for the thread's life. */
static pthread_key_t altstack_key;
static pthread_once_t altstack_once = PTHREAD_ONCE_INIT;

static void altstack_free(void *p)
{
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);
    free(p);
}

static void altstack_key_make(void)
{
    pthread_key_create(&altstack_key, altstack_free);
}

void sim_fault_ensure_altstack(void)
{
    static _Thread_local int checked;
    if (checked)
        return;
    checked = 1;
    stack_t old;
    if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE))
        return;
    size_t size = 64 * 1024;
    void *mem = malloc(size);
    if (mem == NULL)
        return;
    stack_t ss = {.ss_sp = mem, .ss_size = size, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0) {
        free(mem);
        return;
    }
    pthread_once(&altstack_once, altstack_key_make);
    pthread_setspecific(altstack_key, mem);
}
