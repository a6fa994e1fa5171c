/*
 * sim/sim.h — internals shared by the CPU simulator's runtime files:
 * src/sim/driver.c (init, device, contexts, errors, the table),
 * src/sim/stream.c (streams and events),
 * src/sim/memory.c (allocation registry, memory and copies),
 * src/sim/launch.c (modules, functions, launch, workers, faults),
 * src/sim/coop.c (cooperative launches: co-residency, the grid barrier),
 * src/sim/fiber.c (fibers, their scheduler, block barriers),
 * src/sim/warp.c (warp operations, __activemask, wide tiles),
 * src/sim/capture.c (stream capture) and src/sim/graph.c
 * (graphs and their launch).
 *
 * Not part of the simulator's ABI (that is sim_abi.h): nothing outside
 * src/sim/ includes this.
 */
#ifndef PYCUDAC_BACKEND_SIM_H
#define PYCUDAC_BACKEND_SIM_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "pycudac/cudadrv.h"
#include "pycudac/sim_abi.h"

/* Handle magics: a handle is checked before use, as the driver does. */
#define SIM_CTX_MAGIC 0x53435458u    /* "SCTX" */
#define SIM_STREAM_MAGIC 0x53535452u /* "SSTR" */
#define SIM_EVENT_MAGIC 0x53455654u  /* "SEVT" */
#define SIM_MODULE_MAGIC 0x534d4f44u /* "SMOD" */
#define SIM_FUNC_MAGIC 0x5346554eu   /* "SFUN" */
#define SIM_GRAPH_MAGIC 0x53475248u  /* "SGRH" */
#define SIM_NODE_MAGIC 0x534e4f44u   /* "SNOD" */
#define SIM_EXEC_MAGIC 0x53455843u   /* "SEXC" */

/* The stream handles that name no created stream. */
#define SIM_STREAM_LEGACY ((CUstream)0x1)
#define SIM_STREAM_PER_THREAD ((CUstream)0x2)

/* The device's limits, shared by the attribute table and launch checks. */
#define SIM_MAX_THREADS_PER_BLOCK 1024
#define SIM_MAX_BLOCK_X 1024
#define SIM_MAX_BLOCK_Y 1024
#define SIM_MAX_BLOCK_Z 64
#define SIM_MAX_GRID_X 2147483647u
#define SIM_MAX_GRID_YZ 65535u
#define SIM_SHARED_PER_BLOCK (48 * 1024)
#define SIM_SHARED_OPTIN (227 * 1024)
/* A multiprocessor (one per CPU core): what it holds at once, for the
 * attribute table and the occupancy answers (sim_blocks_per_sm). */
#define SIM_SM_THREADS 2048
#define SIM_SM_BLOCKS 32
#define SIM_SM_SHARED 233472
#define SIM_SHARED_RESERVED 1024 /* per block, by the system */
#define SIM_DRIVER_VERSION 13000

struct sim_heap;
struct CUctx_st {
    unsigned int magic;
    int device;
    int primary;      /* the device's primary context */
    int alive;        /* 0 after cuCtxDestroy / last primary release */
    int refcount;     /* primary: retain count */
    unsigned int flags;
    size_t limits[CU_LIMIT_MAX];        /* cuCtxSetLimit's values ... */
    unsigned char limit_set[CU_LIMIT_MAX]; /* ... where set (else the default) */
    struct sim_heap *heap;       /* device malloc's heap, made on first use (sim/heap.c) */
    int cache_config;            /* cuCtxSetCacheConfig's CUfunc_cache */
};

struct sim_capture;

/* The capture fields of streams and events are read and written under the
 * capture lock (sim/capture.c). */
struct CUstream_st {
    unsigned int magic;
    unsigned int flags;
    CUcontext ctx;
    struct sim_capture *capture; /* the capture sequence it takes part in, or NULL */
    CUgraphNode *deps;           /* while capturing: what its next node depends on */
    size_t ndeps;
};

struct CUevent_st {
    unsigned int magic;
    unsigned int flags;
    int recorded;
    long long ns; /* host monotonic time of the last record */
    unsigned long long capture_id; /* nonzero: last recorded in that capture sequence */
    CUgraphNode *deps;             /* then: the stream's dependency set at the record */
    size_t ndeps;
};

/* One piece of stream-ordered work: what a stream call does at once, or
 * what a graph node does each time its graph is launched. */
enum { SIM_COPY_HTOD = 1, SIM_COPY_DTOH, SIM_COPY_DTOD };

typedef struct sim_op {
    int type; /* CU_GRAPH_NODE_TYPE_* */
    union {
        struct {
            CUfunction f;
            pcc_sim_dim3 grid, block;
            unsigned int shared;
            void **params;      /* kernelParams form, or NULL ... */
            const char *packed; /* ... the CU_LAUNCH_PARAM_BUFFER_POINTER form */
            size_t size;        /* bytes of the packed form */
            CUcontext ctx;      /* the context of f's module */
            int cooperative;    /* cuLaunchCooperativeKernel: every block at once */
            pcc_sim_dim3 cluster; /* cuLaunchKernelEx's cluster; 0s: the kernel's own */
        } kernel;
        struct {
            int dir; /* SIM_COPY_* */
            uintptr_t dst, src;
            size_t n;
        } copy;
        struct {
            CUdeviceptr d;
            unsigned int value;
            size_t n, elem;
        } set;
        struct {
            CUhostFn fn;
            void *data;
        } host;
    } u;
} sim_op;

/* ---- sim/driver.c ---- */
int sim_initialized(void);
/* CUDA_SUCCESS when a driver call that needs a context may go ahead: the
 * backend is initialized, no sticky error is pending, a live context is
 * current. Otherwise the code to return. */
CUresult sim_enter(void);
CUcontext sim_current_ctx(void);
/* A context handle (live or destroyed) rather than garbage. */
int sim_ctx_valid(CUcontext c);
long long sim_now_ns(void);
int sim_cpu_count(void);
/* Records a sticky error with its description (first one wins). */
void sim_set_sticky(CUresult code, const char *detail);
CUresult sim_sticky_code(void);

/* ---- sim/stream.c ---- */
/* A stream handle passed to an async call: NULL, the legacy/per-thread
 * handles, or a live stream. */
int sim_stream_ok(CUstream s);
void sim_fill_stream_table(pcc_driver_table *t);

/* ---- sim/registry.c, sim/memory.c ---- */
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
    unsigned char *init; /* check mode (initcheck): per byte, 1 once written; NULL: all written */
} sim_alloc;

/* ---- sim/registry.c ---- */
/* Registers a range the runtime did not mmap (module globals). */
int sim_registry_add_global(uintptr_t base, size_t size, const void *owner);
void sim_registry_remove_owner(const void *owner);
/* Frees the device and managed allocations made in ctx (its destruction, or
 * the primary context's reset). */
void sim_registry_release_context(CUcontext ctx);
/* Describes `addr` relative to the nearest allocation ("4 bytes past the end
 * of the 4000-byte device allocation at 0x..."), into buf; _near with the
 * allocations below and above it given. */
void sim_describe_address(uintptr_t addr, char *buf, size_t len);
void sim_describe_near(uintptr_t addr, const sim_alloc *below, const sim_alloc *above, char *buf,
                       size_t len);
const char *sim_alloc_kind_name(int kind);
/* The allocation containing addr, copied into *out (may be NULL): 1, or 0. */
int sim_registry_lookup(uintptr_t addr, sim_alloc *out);
/* CUDA_SUCCESS when [p, p+n) lies inside one registered range (any kind:
 * with unified addressing a pinned or registered host range is a device
 * range too). */
CUresult sim_registry_check_range(CUdeviceptr p, size_t n);
CUresult sim_registry_register_host(uintptr_t p, size_t n, unsigned int flags);
CUresult sim_registry_unregister_host(uintptr_t p);
/* Maps `size` bytes between two guard pages and registers them; unregisters
 * and unmaps the allocation starting at p if its kind is one of kinds (bit
 * mask of 1 << SIM_ALLOC_*). */
CUresult sim_guarded_alloc(size_t size, int kind, unsigned int flags, uintptr_t *out);
CUresult sim_guarded_free(uintptr_t p, unsigned kinds);
size_t sim_total_bytes(void);
size_t sim_bytes_in_use(void);
/* A copy (from src, a device address, or 0: the host) or memset wrote
 * [d, d+n): check mode's initialization shadows follow. */
void sim_registry_written(uintptr_t d, size_t n, uintptr_t src);
/* A freed allocation check mode holds back (its range reserved). */
typedef struct sim_freed {
    uintptr_t base;
    size_t size;
    uintptr_t map;
    size_t map_len;
    int kind;
} sim_freed;
/* Malloc'd copies of the registry (sorted by base) and of the freed
 * allocations held back, for a launch in check mode; NULL when out of memory. */
sim_alloc *sim_registry_snapshot(size_t *n, sim_freed **freed, size_t *nfreed);

/* ---- sim/memory.c ---- */
void sim_fill_mem_table(pcc_driver_table *t);
/* Runs a memcpy or memset op, checking its ranges again first (they may
 * have been freed since the op was captured). */
CUresult sim_mem_op_run(const sim_op *op);

/* What the GPU charges against device memory besides allocations, and so
 * the simulator too (mem_get_info shows it; a leak of contexts or modules
 * runs the device out of memory in CI as on the GPU): a context's reserve
 * (stacks, printf buffer, heap; ~300-500 MiB on a Hopper GPU) and a
 * module's code and data, in 2 MiB pages. */
#define SIM_CONTEXT_BYTES ((size_t)256 << 20)
#define SIM_MODULE_PAGE ((size_t)2 << 20)
/* Takes `bytes` from the device's free memory: CUDA_SUCCESS, or
 * CUDA_ERROR_OUT_OF_MEMORY when that much is not free (sim/memory.c). */
CUresult sim_mem_charge(size_t bytes);
void sim_mem_uncharge(size_t bytes);

/* ---- sim/module.c ---- */
/* Why a simulator image must not reach cuModuleLoadData, which gets no
 * length: "truncated ..." when its header counts more bytes than `len`;
 * NULL otherwise (also for what is no simulator image). */
const char *sim_image_problem(const void *image, size_t len);
struct CUfunc_st {
    unsigned int magic;
    CUmodule mod;
    const pcc_sim_kernel *k;
    int max_dynamic_shared;
    int carveout;
    int cache_config; /* cuFuncSetCacheConfig's CUfunc_cache */
    /* its linkage name (the module's symbol for k->fn: its string table,
     * valid while the module is loaded), or NULL: not exported */
    const char *linkage;
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
    size_t charged; /* device memory it counts against (SIM_MODULE_PAGE) */
    /* built for check mode (sim/check.c): the shared object's bytes (to name
     * source lines), its loaded segments and its TLS block's size (the
     * kernels' static __shared__ memory) */
    int checked;
    char *so;
    size_t so_len;
    uintptr_t seg_lo[8], seg_hi[8];
    int nseg;
    size_t tls_size;
    /* the host compiler's guard flags in the TLS block (offset, size pairs):
     * its own memory next to the static __shared__ variables, not theirs */
    uint64_t *guards;
    int nguards;
};

/* The calling thread's TLS block of module m (its static __shared__
 * memory), made now if the thread has none yet: 0, or -1 when unknown. */
int sim_module_tls(CUmodule m, uintptr_t *lo, size_t *len);
/* Whether bytes [off, off+size) of m's TLS block hold one of the host
 * compiler's guard flags (check mode's modules only). */
int sim_module_tls_guard(CUmodule m, size_t off, size_t size);
/* The range of the kernel api table modules call through. */
void sim_module_api_range(uintptr_t *lo, uintptr_t *hi);

int sim_func_ok(CUfunction f);
void sim_fill_module_table(pcc_driver_table *t);
/* How many blocks of `threads` threads and `dyn_shared` bytes of dynamic
 * shared memory one simulated multiprocessor holds at once (what
 * cuOccupancyMaxActiveBlocksPerMultiprocessor answers; times the
 * multiprocessor count, the largest cooperative grid). 0: none fits. */
int sim_blocks_per_sm(CUfunction f, int threads, size_t dyn_shared);

/* ---- sim/launch.c ---- */
/* Held while a launch runs; a module is unloaded only under it. */
extern pthread_mutex_t sim_launch_lock;
void sim_fill_launch_table(pcc_driver_table *t);
/* Checks a launch as cuLaunchKernel does (function, dimensions, shared
 * memory, parameters) and, when it is valid, describes it in *op. */
CUresult sim_kernel_op(sim_op *op, CUfunction f, unsigned int gx, unsigned int gy,
                       unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
                       unsigned int shared, void **kernelParams, void **extra);
/* A malloc'd copy of op's parameters in the packed form (NULL: out of
 * memory); the caller points op->u.kernel.packed at it and owns it. */
char *sim_kernel_pack(const sim_op *op);
/* Runs every block of a kernel op; CUDA_ERROR_INVALID_HANDLE when its
 * module was unloaded. A fault is recorded as the sticky error; what check
 * mode finds is PCC_CHECK_FAILED (sim/check.c). */
CUresult sim_kernel_run(const sim_op *op);
/* Flushes device printf output (called at synchronizing points). */
void sim_flush_output(void);
void sim_print_after_fork(void); /* sim/print.c */

/* The context of the launch running now (NULL between launches). */
CUcontext sim_launch_ctx(void);

/* ---- sim/heap.c ---- */
/* cuCtxSetLimit / cuCtxGetLimit, and the api's malloc and free: the device
 * heap of a context, bounded by its CU_LIMIT_MALLOC_HEAP_SIZE. */
void sim_fill_limit_table(pcc_driver_table *t);
/* Bytes of fiber stack the launch running now asks for beyond the
 * simulator's own (its context's CU_LIMIT_STACK_SIZE past the default). */
size_t sim_stack_extra(void);
/* Frees ctx's heap (context destroyed or primary context reset). */
void sim_heap_release(CUcontext ctx);
void *sim_api_malloc(pcc_sim_thread *t, size_t n);
/* Whether addr lies in the device heap of the launch running now. */
int sim_heap_owns(uintptr_t addr);
void sim_api_free(pcc_sim_thread *t, void *p);

/* ---- sim/texture.c ---- */
/* CUDA arrays, cuMemcpy3D, texture and surface objects, and the kernel's
 * fetches and surface accesses through the api. */
void sim_fill_texture_table(pcc_driver_table *t);
void sim_api_tex_fetch(pcc_sim_thread *t, unsigned long long obj, int shape, int want_float,
                       int ix, float x, float y, float z, int layer, unsigned int out[4]);
void sim_api_surf_access(pcc_sim_thread *t, unsigned long long obj, int dims, int x, int y,
                         int z, void *buf, size_t size, int write, int boundary);

/* ---- sim/rounding.c ---- */
/* Floating-point operations in a directed rounding mode (PCC_SIM_FOP_*,
 * PCC_SIM_RN ...), for __fadd_rd & co. */
float sim_api_fround(int op, int mode, float a, float b, float c);
double sim_api_dround(int op, int mode, double a, double b, double c);
double sim_api_iround(int op, int mode, long long i, unsigned long long u);

/* One OS thread that runs blocks (sim/launch.c; defined at the end). */
typedef struct sim_worker sim_worker;


/* A worker for a thread of sim/coop.c (NULL: out of memory). */
struct sim_worker *sim_worker_new(void);
/* Runs block `block` of the launch in progress on w, from w's thread. */
void sim_worker_run_one(struct sim_worker *w, unsigned long long block);
/* Whether w runs a kernel on thread `self`; the worker running a kernel on
 * thread `self`, or NULL; every worker running a kernel sent `sig`. All
 * async-signal-safe (the fault and stop handlers use them). */
int sim_worker_in_kernel_on(struct sim_worker *w, pthread_t self);
sim_worker *sim_worker_of_thread(pthread_t self);
void sim_launch_signal_workers(int sig);
void sim_worker_set_in_kernel(sim_worker *w, int v);
/* Records the launch's error (first wins) and stops it. */
void sim_launch_error(CUresult code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The launch in progress (its blocks read it): cooperative, and its size. */
int sim_launch_cooperative(void);
/* The launch's cluster dimensions (1, 1, 1 outside a cluster launch) and
 * the blocks one barrier of the launch waits for: a cluster's in a cluster
 * launch, the grid's in a cooperative one; what that barrier is called. */
pcc_sim_dim3 sim_launch_cluster(void);
unsigned long long sim_launch_group_blocks(void);
const char *sim_launch_group_sync(void);
/* A block of a cluster launch, by its rank in the cluster that runs now:
 * its shared memory (dynamic, and the module's thread-local anchor of its
 * thread), NULL until that block has started. */
void *sim_launch_member_shared(unsigned int rank);
void *sim_launch_member_anchor(unsigned int rank);
unsigned int sim_launch_shared_bytes(void);
int sim_launch_stopped(void);
/* cuLaunchKernelEx (sim/cluster.c), into the driver table. */
void sim_fill_cluster_table(pcc_driver_table *t);
/* The kernel api's cluster calls (sim/cluster.c). */
void sim_api_cluster_dims(pcc_sim_thread *t, unsigned int dims[3]);
void *sim_api_cluster_map(pcc_sim_thread *t, const void *addr, unsigned int rank,
                          const void *anchor);
unsigned long long sim_launch_nblocks(void);
const char *sim_launch_kernel_name(void);

/* Whether pc is in the code of the launch's module (the kernel's own code,
 * not the runtime's or a library's). Async-signal-safe. */
int sim_launch_in_kernel_code(uintptr_t pc);

/* ---- sim/fault.c ---- */
/* Installs the fault handlers (and the stop signal's, and SIGINT's) unless
 * they are in place; a signal stack for the calling thread. */
void sim_fault_ensure_handlers(void);
void sim_fault_ensure_altstack(void);
/* SIGINT noted (for the compiler's wait too) and handed on to whoever had it. */
void sim_fault_ensure_sigint(void);
unsigned int sim_interrupt_count(void);
/* What a worker thread blocks: everything but the faults and the stop signal. */
void sim_fault_worker_mask(sigset_t *set);
int sim_stop_signal(void);
/* Around a launch (launch lock held): its watchdog (PYCUDAC_SIM_TIMEOUT,
 * Ctrl-C). */
void sim_stop_begin(void);
void sim_stop_end(void);

/* ---- sim/coop.c ---- */
/* The most blocks a cooperative launch may have: each runs on an OS thread
 * of its own; sim_blocks_per_sm keeps to it. */
#define SIM_MAX_COOP_BLOCKS 4096
/* The largest cluster: 8 blocks is CUDA's portable size, 16 the most an H100
 * takes (non-portable); the simulator takes 8 (CUDA_ERROR_INVALID_CLUSTER_SIZE past it). */
#define SIM_MAX_CLUSTER 8
#define CUDA_ERROR_INVALID_CLUSTER_SIZE 912
/* A cooperative launch of nblocks blocks (launch lock held): readies the grid
 * barrier and the threads that run blocks 1..nblocks-1 and starts them; the
 * caller runs block 0, then sim_coop_finish. 0, or -1 when the threads
 * cannot be had (nothing started). */
int sim_coop_start(unsigned long long nblocks);
void sim_coop_finish(void);
/* The coop thread's worker running a kernel on `self`, or NULL (for the
 * fault handler: async-signal-safe). */
struct sim_worker *sim_coop_worker_of(pthread_t self);
/* Sends sig to every coop thread running a kernel (async-signal-safe). */
void sim_coop_signal_workers(int sig);
void sim_coop_after_fork(void);
/* grid.sync()'s wait across blocks, after the block's own barrier: returns
 * when every block of the grid has arrived; ends the caller's block with an
 * error when the grid can never get there or the launch stopped. */
void sim_grid_wait(const pcc_sim_thread *t, int line);
/* A block of a cooperative launch finished. */
void sim_grid_block_done(pcc_sim_dim3 block);
/* The launch stopped (a fault): wakes every block waiting in grid.sync(). */
void sim_grid_abort(void);
void sim_fill_coop_table(pcc_driver_table *t);

/* ---- sim/capture.c ---- */
/* What sim_stream_submit returns when the stream is not capturing: the
 * caller runs the work now. */
#define SIM_RUN_NOW ((CUresult)-1)
/* Routes one stream-ordered operation on s (after its arguments were
 * checked): SIM_RUN_NOW, CUDA_SUCCESS when it became a node of s's capture,
 * or the error to return (legacy stream against a blocking capture, an
 * invalidated capture). op NULL: work the simulator does not capture (it
 * fails on a capturing stream). */
CUresult sim_stream_submit(CUstream s, const sim_op *op);
/* The error a stream call whose arguments were refused returns: a refused
 * launch also invalidates the capture it was meant for, as on the GPU. */
CUresult sim_capture_refused(CUstream s, CUresult rc);
/* cuStreamSynchronize / cuStreamQuery, cuCtxSynchronize and the calls
 * stream capture forbids ("potentially unsafe": allocation, event waits,
 * instantiation ...): CUDA_SUCCESS or the error, invalidating the captures
 * that forbid it. */
CUresult sim_capture_stream_sync(CUstream s);
CUresult sim_capture_ctx_sync(void);
CUresult sim_capture_unsafe_call(void);
CUresult sim_capture_event_record(CUevent e, CUstream s); /* SIM_RUN_NOW: a plain record */
CUresult sim_capture_stream_wait(CUstream s, CUevent e);
/* An event handed to cuEventQuery / cuEventSynchronize (wait != 0) or to
 * cuEventElapsedTime (wait == 0). */
CUresult sim_capture_event_use(CUevent e, int wait);
void sim_capture_stream_destroyed(CUstream s);
void sim_capture_event_destroyed(CUevent e);
void sim_fill_capture_table(pcc_driver_table *t);

/* ---- sim/graph.c ---- */
/* All graph state (graphs, nodes, the capture sequences that build them)
 * is guarded by this lock. */
extern pthread_mutex_t sim_graph_lock;

struct CUgraph_st {
    unsigned int magic;
    CUgraphNode *nodes; /* in the order they were added */
    size_t n, cap;
    struct sim_capture *capture; /* the capture sequence building it, or NULL */
};

struct CUgraphNode_st {
    unsigned int magic;
    CUgraph graph;
    size_t index;       /* its place in graph->nodes */
    sim_op op;          /* CU_GRAPH_NODE_TYPE_GRAPH and _EMPTY: op.type alone */
    char *params;       /* kernel: its own copy of the parameters */
    CUgraph child;      /* CU_GRAPH_NODE_TYPE_GRAPH: its own copy of the child graph */
    CUgraphNode *deps;  /* in the order they were added */
    size_t ndeps, deps_cap;
    unsigned long long mark; /* graph walks (under sim_graph_lock) */
};

/* Under sim_graph_lock: */
CUgraph sim_graph_new(void);
void sim_graph_free(CUgraph g);
/* Adds a node doing op (a copy; a kernel's parameters are copied) after
 * deps; NULL when memory is short. */
CUgraphNode sim_graph_add(CUgraph g, const sim_op *op, CUgraphNode const *deps, size_t ndeps);
int sim_node_ok(CUgraphNode n);
unsigned long long sim_graph_new_mark(void);
void sim_fill_graph_table(pcc_driver_table *t);

/* ---- sim/fiber.c ---- */

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
    /* SIM_F_CONVERGE (__activemask, sim/warp.c): where it waits and, once
     * released, the lanes converged with it */
    uintptr_t conv_pc;
    size_t conv_depth;
    const char *conv_file;
    int conv_line;
    unsigned int conv_mask;
    /* SIM_F_TILE (a tile wider than a warp, sim/warp.c) */
    unsigned int tile_first;
    int tile_src;
    unsigned long long tile_value, tile_result;
} sim_fiber;

enum { SIM_F_READY = 0, SIM_F_BARRIER, SIM_F_WARP, SIM_F_CONVERGE, SIM_F_TILE, SIM_F_DONE };

/* The barrier of a tile wider than a warp, by the rank of its first thread. */
typedef struct sim_tile {
    unsigned int arrived, count;
    unsigned long long gen;
} sim_tile;

typedef struct sim_warp {
    unsigned int live;     /* lanes that exist and have not exited */
    unsigned int waiting;  /* lanes parked in a warp op */
    unsigned int converging; /* lanes parked in __activemask() */
    unsigned int mask[PCC_SIM_WARP_SIZE];
    unsigned long long value[PCC_SIM_WARP_SIZE];
    unsigned long long result[PCC_SIM_WARP_SIZE];
    int src[PCC_SIM_WARP_SIZE];
    int pred[PCC_SIM_WARP_SIZE];
    int op[PCC_SIM_WARP_SIZE];
    /* a warp-wide call's (wmma): its name, what each lane deposits */
    const char *what[PCC_SIM_WARP_SIZE];
    void *gather[PCC_SIM_WARP_SIZE];
    unsigned int epoch;    /* warp operations completed (check mode's racecheck) */
} sim_warp;

/* The fibers of the block a worker runs, reused from block to block. */
typedef struct sim_block {
    sim_fiber *fibers;
    sim_warp *warps;
    void *stacks;          /* one mmap: per fiber a guard (16 pages) + stack */
    size_t stack_size;
    int capacity;          /* fibers allocated */
    int nthreads;
    int live;
    int exited;
    int bar_waiting;
    int bar_grid;          /* of them, arrived through grid.sync() */
    int bar_grid_line;     /* the grid.sync()'s line, for messages */
    unsigned long long bar_gen;
    int bar_acc;           /* predicate count of the barrier being filled */
    int bar_result;        /* count of the barrier released last */
    sim_tile *tiles;       /* capacity entries */
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
    unsigned int race_epoch; /* barriers passed (check mode's racecheck) */
    int sched;               /* SIM_SCHED_* (sim/check.h): the order fibers run in */
    unsigned long long rng;  /* the random schedule's state */
} sim_block;

/* Makes room for n fibers (0, or -1 when memory is short). */
int sim_block_reserve(sim_block *b, int n);
void sim_block_release(sim_block *b);
/* Runs one block of `b->kernel` with all threads as fibers; returns when
 * every thread exited. Errors longjmp to the worker (sim_fail). seed: the
 * random schedule's (sim_sched_seed). */
void sim_block_run(sim_block *b, pcc_sim_dim3 block_idx, pcc_sim_dim3 block_dim,
                   pcc_sim_dim3 grid_dim, void *dynamic_shared, unsigned long long seed);
/* The top of f's stack (it grows down from there), and for check mode its
 * bounds [lo, hi) and those of all of b's stacks with their guards. */
uintptr_t sim_fiber_top(const sim_block *b, const sim_fiber *f);
void sim_fiber_stack(const sim_block *b, const sim_fiber *f, uintptr_t *lo, uintptr_t *hi,
                     uintptr_t *all_lo, uintptr_t *all_hi);
/* Around a siglongjmp from inside a fiber back to the worker (fault or
 * sim_fail): tells AddressSanitizer about the stack change; no-ops else. */
void sim_block_escape(sim_block *b);
void sim_block_escaped(sim_block *b);
/* True when addr lies in the guard of one of b's fiber stacks. */
int sim_block_is_stack_guard(const sim_block *b, uintptr_t addr);
extern const pcc_sim_api sim_api_fiber;
/* Parks `f` (its state says what it waits for) and runs the next runnable
 * fiber; returns when `f` is runnable again and scheduled. A block where no
 * fiber can run is a deadlock: the launch fails naming it. */
void sim_fiber_park(sim_block *b, sim_fiber *f);
int sim_fiber_runnable(const sim_block *b, const sim_fiber *f);
/* How deep in its stack `frame` (an address on f's stack) lies. */
size_t sim_fiber_depth(const sim_block *b, const sim_fiber *f, const void *frame);

/* ---- sim/warp.c ---- */
void sim_api_syncwarp(pcc_sim_thread *t, unsigned int mask);
unsigned long long sim_api_shfl(pcc_sim_thread *t, unsigned int mask, unsigned long long value,
                                int src_lane);
unsigned int sim_api_ballot(pcc_sim_thread *t, unsigned int mask, int pred);
unsigned int sim_api_activemask(pcc_sim_thread *t, const char *file, int line);
unsigned long long sim_api_tile_shfl(pcc_sim_thread *t, unsigned int count,
                                     unsigned long long value, int src_rank);
void *const *sim_api_warp_wide(pcc_sim_thread *t, void *mine, const char *what, int line);
/* The warp-wide call (wmma) lane f waits in, and its line; NULL when f
 * waits in another warp operation (for deadlock messages). */
const char *sim_warp_wide_call(const sim_block *b, const sim_fiber *f, int *line);
/* Releases lanes of warp w parked in __activemask() once none of the warp's
 * lanes can run any further (called as a lane of w parks or exits). */
void sim_warp_settle(sim_block *b, int w);
/* Lane `f` of its warp exited: the warp operations that waited for it may
 * be complete now. */
void sim_warp_lane_exited(sim_block *b, sim_fiber *f);

/* Ends the current block with an error (from a kernel's thread, never
 * returns): records code and text, longjmps to the worker. */
_Noreturn void sim_fail(const pcc_sim_thread *t, CUresult code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The api shared by both modes (trap, printf, clock). */
void sim_api_trap(pcc_sim_thread *t, int code, const char *what);
int sim_api_vprintf(pcc_sim_thread *t, const char *fmt, va_list ap);
long long sim_api_clock64(void);

/* ---- sim/launch.c: a worker (sim/fault.c reads and writes it from its signal handlers) ---- */

/* One OS thread that runs blocks: a pool thread, slot 0 for the thread
 * that called cuLaunchKernel, or a coop thread (sim/coop.c). */
struct sim_worker {
    pthread_t owner;
    int pool_index;         /* its slot in workers[], set before its thread starts */
    int in_kernel; /* atomic: the fault handler of any thread reads it */
    int fiber_mode;
    sim_block block;
    sim_fiber plain;        /* plain mode: the one thread struct, t.runtime = &plain */
    void *shared_map;       /* dynamic shared memory, guard page after it */
    size_t shared_map_len, shared_cap;
    char *shared;           /* = start of the launch's dynamic shared bytes */
    sigjmp_buf jmp;
    /* What ended the block early (written by the fault handler or sim_fail). */
    CUresult fail_code;
    uintptr_t fault_addr;
    int fault_sig, fault_write;
    uintptr_t fault_pc;
    pcc_sim_thread fault_thread;
    char fail_text[1024];
    struct sim_check_worker *chk; /* check mode's state on this worker (sim/check.c) */
    unsigned short order[SIM_MAX_THREADS_PER_BLOCK]; /* plain mode's thread order (schedule) */
};

#endif
