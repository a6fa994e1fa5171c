/*
 * backend_sim.h — internals shared by the CPU simulator's runtime files:
 * src/backend_sim.c (init, device, contexts, streams, events, errors, the
 * table), src/backend_sim_mem.c (allocation registry, memory and copies),
 * src/backend_sim_launch.c (modules, functions, launch, workers, faults) and
 * src/backend_sim_fiber.c (fibers, barriers and warp operations).
 *
 * Not part of the simulator's ABI (that is sim_abi.h): nothing outside
 * src/backend_sim*.c includes this.
 */
#ifndef PYCUDAC_BACKEND_SIM_H
#define PYCUDAC_BACKEND_SIM_H

#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "cudadrv.h"
#include "sim_abi.h"

/* Handle magics: a handle is checked before use, as the driver does. */
#define SIM_CTX_MAGIC 0x53435458u    /* "SCTX" */
#define SIM_STREAM_MAGIC 0x53535452u /* "SSTR" */
#define SIM_EVENT_MAGIC 0x53455654u  /* "SEVT" */
#define SIM_MODULE_MAGIC 0x534d4f44u /* "SMOD" */
#define SIM_FUNC_MAGIC 0x5346554eu   /* "SFUN" */

/* The device's limits, shared by the attribute table and launch checks. */
#define SIM_MAX_THREADS_PER_BLOCK 1024
#define SIM_MAX_BLOCK_X 1024
#define SIM_MAX_BLOCK_Y 1024
#define SIM_MAX_BLOCK_Z 64
#define SIM_MAX_GRID_X 2147483647u
#define SIM_MAX_GRID_YZ 65535u
#define SIM_SHARED_PER_BLOCK (48 * 1024)
#define SIM_SHARED_OPTIN (227 * 1024)
#define SIM_DRIVER_VERSION 13000

struct CUctx_st {
    unsigned int magic;
    int device;
    int primary;      /* the device's primary context */
    int alive;        /* 0 after cuCtxDestroy / last primary release */
    int refcount;     /* primary: retain count */
    unsigned int flags;
};

struct CUstream_st {
    unsigned int magic;
    unsigned int flags;
    CUcontext ctx;
};

struct CUevent_st {
    unsigned int magic;
    unsigned int flags;
    int recorded;
    long long ns; /* host monotonic time of the last record */
};

/* ---- backend_sim.c ---- */
int sim_initialized(void);
/* CUDA_SUCCESS when a driver call that needs a context may go ahead: the
 * backend is initialized, no sticky error is pending, a live context is
 * current. Otherwise the code to return. */
CUresult sim_enter(void);
CUcontext sim_current_ctx(void);
/* A stream handle passed to an async call: NULL, the legacy/per-thread
 * handles, or a live stream. */
int sim_stream_ok(CUstream s);
long long sim_now_ns(void);
int sim_cpu_count(void);
/* Records a sticky error with its description (first one wins). */
void sim_set_sticky(CUresult code, const char *detail);
CUresult sim_sticky_code(void);

/* ---- backend_sim_mem.c ---- */
enum { SIM_ALLOC_DEVICE = 1, SIM_ALLOC_MANAGED, SIM_ALLOC_HOST, SIM_ALLOC_REGISTERED,
       SIM_ALLOC_GLOBAL };

typedef struct sim_alloc {
    uintptr_t base;      /* what the user sees */
    size_t size;         /* bytes the user asked for */
    void *map;           /* the mmap'd region incl. guard pages (NULL: not ours) */
    size_t map_len;
    int kind;            /* SIM_ALLOC_* */
    unsigned int flags;
    CUcontext ctx;
    const void *owner;   /* SIM_ALLOC_GLOBAL: the module */
} sim_alloc;

/* Registers a range the runtime did not mmap (module globals). */
int sim_registry_add_global(uintptr_t base, size_t size, const void *owner);
void sim_registry_remove_owner(const void *owner);
/* Describes `addr` relative to the nearest allocation ("4 bytes past the end
 * of the 4000-byte device allocation at 0x..."), into buf. */
void sim_describe_address(uintptr_t addr, char *buf, size_t len);
void sim_fill_mem_table(pcc_driver_table *t);

/* ---- backend_sim_module.c ---- */
struct CUfunc_st {
    unsigned int magic;
    CUmodule mod;
    const pcc_sim_kernel *k;
    int max_dynamic_shared;
    int carveout;
    void **argv; /* scratch for launches with a packed buffer (under sim_launch_lock) */
};

struct CUmod_st {
    unsigned int magic;
    CUcontext ctx;
    void *dl;
    const void *fbase; /* load address, to tell its symbols from its dependencies' */
    int fd;            /* the memfd, when kept open to keep the name unique (else -1) */
    const pcc_sim_kernel *kernels;
    int count;
    struct CUfunc_st *funcs;
};

int sim_func_ok(CUfunction f);
void sim_fill_module_table(pcc_driver_table *t);

/* ---- backend_sim_launch.c ---- */
/* Held while a launch runs; a module is unloaded only under it. */
extern pthread_mutex_t sim_launch_lock;
void sim_fill_launch_table(pcc_driver_table *t);
/* Flushes device printf output (called at synchronizing points). */
void sim_flush_output(void);

/* ---- backend_sim_fiber.c ---- */

struct sim_block;

/* One simulated thread run as a fiber. */
typedef struct sim_fiber {
    pcc_sim_thread t;      /* first: t.runtime points back here */
    void *sp;              /* saved stack pointer (asm switch) */
    void *uctx;            /* ucontext_t * (fallback switch) */
    void *asan_fake;       /* AddressSanitizer's fake stack while switched out */
    void *tsan_fiber;      /* ThreadSanitizer's state of this fiber (TSan builds) */
    struct sim_block *block;
    int index;
    int state;             /* SIM_F_* */
    unsigned long long wait_gen;
} sim_fiber;

enum { SIM_F_READY = 0, SIM_F_BARRIER, SIM_F_WARP, SIM_F_DONE };

typedef struct sim_warp {
    unsigned int live;     /* lanes that exist and have not exited */
    unsigned int waiting;  /* lanes parked in a warp op */
    unsigned int mask[PCC_SIM_WARP_SIZE];
    unsigned long long value[PCC_SIM_WARP_SIZE];
    unsigned long long result[PCC_SIM_WARP_SIZE];
    int src[PCC_SIM_WARP_SIZE];
    int pred[PCC_SIM_WARP_SIZE];
    int op[PCC_SIM_WARP_SIZE];
} sim_warp;

/* The fibers of the block a worker runs, reused from block to block. */
typedef struct sim_block {
    sim_fiber *fibers;
    sim_warp *warps;
    void *stacks;          /* one mmap: per fiber a guard page + stack */
    size_t stack_size;
    int capacity;          /* fibers allocated */
    int nthreads;
    int live;
    int exited;
    int bar_waiting;
    unsigned long long bar_gen;
    int bar_acc;           /* predicate count of the barrier being filled */
    int bar_result;        /* count of the barrier released last */
    void *main_sp;         /* the worker's own context */
    void *main_uctx;
    void *main_fake;       /* AddressSanitizer bookkeeping of the worker's stack */
    const void *main_bottom;
    size_t main_size;
    int from_main;
    sim_fiber *asan_from;
    void *tsan_main;       /* ThreadSanitizer's state of the worker (TSan builds) */
    sim_fiber *current;
    const pcc_sim_kernel *kernel;
    void *const *args;
} sim_block;

/* Makes room for n fibers (0, or -1 when memory is short). */
int sim_block_reserve(sim_block *b, int n);
void sim_block_release(sim_block *b);
/* Runs one block of `b->kernel` with all threads as fibers; returns when
 * every thread exited. Errors longjmp to the worker (sim_fail). */
void sim_block_run(sim_block *b, pcc_sim_dim3 block_idx, pcc_sim_dim3 block_dim,
                   pcc_sim_dim3 grid_dim, void *dynamic_shared);
/* Around a siglongjmp from inside a fiber back to the worker (fault or
 * sim_fail): tells AddressSanitizer about the stack change; no-ops else. */
void sim_block_escape(sim_block *b);
void sim_block_escaped(sim_block *b);
/* True when addr lies in a guard page of b's fiber stacks. */
int sim_block_is_stack_guard(const sim_block *b, uintptr_t addr);
extern const pcc_sim_api sim_api_fiber;

/* Ends the current block with an error (from a kernel's thread, never
 * returns): records code and text, longjmps to the worker. */
_Noreturn void sim_fail(const pcc_sim_thread *t, CUresult code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The api shared by both modes (trap, printf, clock). */
void sim_api_trap(pcc_sim_thread *t, int code, const char *what);
int sim_api_vprintf(pcc_sim_thread *t, const char *fmt, va_list ap);
long long sim_api_clock64(void);

#endif
