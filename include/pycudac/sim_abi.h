/*
 * sim_abi.h — the contract between the CPU simulator's runtime (in the C
 * extension, src/sim/) and a kernel module it compiled (a host
 * shared object built from the user's CUDA C source plus sim/prelude/prelude.h).
 *
 * Plain C, included by both sides. The module exports one function,
 * pcc_sim_module_init, which receives the runtime's api and hands back its
 * kernel table. Everything a running kernel needs from the runtime (barriers,
 * warp operations, traps, printf) goes through pcc_sim_api, because a module
 * never links against the extension.
 */
#ifndef PYCUDAC_SIM_ABI_H
#define PYCUDAC_SIM_ABI_H

#include <stdarg.h>
#ifndef PCC_SIM_MODULE /* a kernel module declares size_t itself (only what NVRTC has) */
#include <stddef.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PCC_SIM_ABI_VERSION 8
#define PCC_SIM_WARP_SIZE 32

typedef struct pcc_sim_dim3 {
    unsigned int x, y, z;
} pcc_sim_dim3;

/* One simulated GPU thread. The runtime owns it; a module reads the public
 * fields through its thread-local current-thread pointer. */
typedef struct pcc_sim_thread {
    pcc_sim_dim3 threadIdx, blockIdx, blockDim, gridDim;
    unsigned int linear;   /* x + y*bdx + z*bdx*bdy: the thread's rank in its block */
    unsigned int lane;     /* linear % 32 */
    void *dynamic_shared;  /* this block's `extern __shared__` bytes (launch's sharedMem) */
    void *runtime;         /* private to the runtime */
} pcc_sim_thread;

/* syncthreads ops */
enum { PCC_SIM_SYNC_PLAIN = 0, PCC_SIM_SYNC_COUNT = 1, PCC_SIM_SYNC_AND = 2, PCC_SIM_SYNC_OR = 3 };

/* What the runtime provides to a running kernel. Calls that synchronize may
 * switch to another simulated thread before they return; after such a call
 * the module re-establishes its own current-thread pointer. trap never
 * returns. */
typedef struct pcc_sim_api {
    int abi_version;
    int (*syncthreads)(pcc_sim_thread *t, int op, int pred);
    void (*syncwarp)(pcc_sim_thread *t, unsigned int mask);
    /* Every lane in `mask` deposits `value`; the call returns the value
     * deposited by lane `src_lane` (the caller's own value if that lane did
     * not take part). */
    unsigned long long (*shfl)(pcc_sim_thread *t, unsigned int mask, unsigned long long value,
                               int src_lane);
    /* Bit i set when lane i (in `mask`) passed a non-zero pred. */
    unsigned int (*ballot)(pcc_sim_thread *t, unsigned int mask, int pred);
    /* The lanes of the warp converged at this call (sim/warp.c says how
     * the runtime tells): the caller's branch, not merely the live lanes.
     * file and line: the call's place in the source. */
    unsigned int (*activemask)(pcc_sim_thread *t, const char *file, int line);
    void (*trap)(pcc_sim_thread *t, int code, const char *what);
    int (*vprintf)(pcc_sim_thread *t, const char *fmt, va_list ap);
    long long (*clock64)(void);
    /* A tile wider than a warp (thread_block_tile<64..1024>): a barrier over
     * the `count` threads of the block whose ranks start at the caller's rank
     * rounded down to a multiple of `count` (a power of two). Every one
     * deposits `value`; each gets back the value of the tile's thread of
     * rank `src_rank` (its own when src_rank is outside the tile). */
    unsigned long long (*tile_shfl)(pcc_sim_thread *t, unsigned int count,
                                    unsigned long long value, int src_rank);
    /* cooperative_groups::grid_group: whether the launch was cooperative
     * (is_valid()), and grid.sync(), which waits for every thread of the
     * grid; outside a cooperative launch it ends the launch with an error
     * naming the kernel and `line`. */
    int (*grid_valid)(pcc_sim_thread *t);
    void (*grid_sync)(pcc_sim_thread *t, int line);
    /* Device malloc/free: the launch's context's heap (NULL when exhausted). */
    void *(*malloc)(pcc_sim_thread *t, size_t n);
    void (*free)(pcc_sim_thread *t, void *p);
    /* op (PCC_SIM_FOP_*) rounded in mode (PCC_SIM_RN ...): __fadd_rd & co. */
    float (*fround)(int op, int mode, float a, float b, float c);
    double (*dround)(int op, int mode, double a, double b, double c);
    /* integer to floating conversions (PCC_SIM_I2F ...) rounded in mode */
    double (*iround)(int op, int mode, long long i, unsigned long long u);
    /* Check mode (a module built with --pycudac-sim-check, sim/check.c):
     * called before each memory access of the kernel's code — `size` bytes at
     * `addr`, PCC_SIM_CHK_* flags — with `pc`, the return address into that
     * code. May end the block (then it does not return). */
    void (*check)(pcc_sim_thread *t, const void *addr, size_t size, int flags, const void *pc);
    /* Thread-block clusters (cooperative_groups::this_cluster(), since
     * version 6): the launch's cluster dimensions in blocks (1, 1, 1 outside a
     * cluster launch); cluster.sync(), which waits for every thread of the
     * block's cluster; the address in the shared memory of the cluster's
     * block `rank` that `addr` has in the caller's (map_shared_rank).
     * `anchor`: the address of the module's __pcc_tls_anchor in the caller's
     * thread, by which the runtime finds a __shared__ variable's offset. */
    void (*cluster_dims)(pcc_sim_thread *t, unsigned int dims[3]);
    void (*cluster_sync)(pcc_sim_thread *t, int line);
    void *(*cluster_map)(pcc_sim_thread *t, const void *addr, unsigned int rank,
                         const void *anchor);
    /* Texture objects (sim/texture.c): a fetch of `shape` (PCC_SIM_TEX_*)
     * at coordinates x, y, z (ix: tex1Dfetch's index) of `layer`, as the
     * hardware addresses and filters them, into out: four 32-bit words,
     * float bits when the texture returns floats, else the integer values.
     * want_float: what the caller's type holds (a mismatch ends the launch,
     * as does a handle that is no live texture object). */
    void (*tex_fetch)(pcc_sim_thread *t, unsigned long long obj, int shape, int want_float,
                      int ix, float x, float y, float z, int layer, unsigned int out[4]);
    /* Surface objects: `size` bytes at byte column x, row y, slice z of a
     * surface of `dims` dimensions, read into or written from buf;
     * boundary: PCC_SIM_SURF_ZERO/CLAMP/TRAP (cudaSurfaceBoundaryMode). */
    void (*surf_access)(pcc_sim_thread *t, unsigned long long obj, int dims, int x, int y,
                        int z, void *buf, size_t size, int write, int boundary);
    /* A warp-wide call (nvcuda::wmma's load_matrix_sync, store_matrix_sync,
     * mma_sync; since 8): all 32 lanes of the caller's warp must make it, the
     * same call (`what`, a static string, and the source `line`); a warp with
     * fewer lanes, a lane that exited or lanes at different calls end the
     * launch naming it. Each lane deposits `mine`; the call returns the 32
     * deposits in lane order, valid until a lane of the warp makes its next
     * warp_wide call. */
    void *const *(*warp_wide)(pcc_sim_thread *t, void *mine, const char *what, int line);
} pcc_sim_api;

/* tex_fetch's shapes; surf_access's boundary modes (CUDA's values) */
enum { PCC_SIM_TEX_FETCH = 0, PCC_SIM_TEX_1D, PCC_SIM_TEX_2D, PCC_SIM_TEX_3D,
       PCC_SIM_TEX_1D_LAYERED, PCC_SIM_TEX_2D_LAYERED };
enum { PCC_SIM_SURF_ZERO = 0, PCC_SIM_SURF_CLAMP = 1, PCC_SIM_SURF_TRAP = 2 };

/* check's flags: a store (else a load); a store that reads first (an
 * atomic read-modify-write); atomic; of a type aligned to its size (the
 * compiler knew it: a scalar or a vector, not a byte range), so a misaligned
 * address is the program's; volatile. */
enum { PCC_SIM_CHK_WRITE = 1, PCC_SIM_CHK_ATOMIC = 2, PCC_SIM_CHK_ALIGNED = 4,
       PCC_SIM_CHK_VOLATILE = 8, PCC_SIM_CHK_READ = 16 };

/* rounding modes and operations of fround / dround / iround */
enum { PCC_SIM_RN = 0, PCC_SIM_RZ = 1, PCC_SIM_RU = 2, PCC_SIM_RD = 3 };
enum { PCC_SIM_FOP_ADD = 0, PCC_SIM_FOP_SUB, PCC_SIM_FOP_MUL, PCC_SIM_FOP_DIV, PCC_SIM_FOP_FMA,
       PCC_SIM_FOP_SQRT, PCC_SIM_FOP_RCP, PCC_SIM_FOP_D2F };
enum { PCC_SIM_LL2F = 0, PCC_SIM_ULL2F, PCC_SIM_LL2D, PCC_SIM_ULL2D };

/* One __global__ function (or template instance named by a name
 * expression). entry runs one thread of it to completion; args[i] points at
 * parameter i's bytes. */
typedef struct pcc_sim_kernel {
    const char *name;
    void (*entry)(pcc_sim_thread *t, void *const *args);
    int nparams;
    const size_t *param_offsets;
    const size_t *param_sizes;
    int uses_sync; /* 0: no barrier or warp op anywhere: run threads as a plain loop */
    int checked;   /* built for check mode: its accesses call the api's check */
    /* __cluster_dims__(x, y, z) of its definition; 0, 0, 0 without (since 6) */
    unsigned int cluster[3];
    /* The address of the module's thread-local anchor in the calling thread:
     * where this thread's copies of the module's __shared__ variables are */
    void *(*tls_anchor)(void);
    /* The address of the user's __global__ function itself (a call: a
     * function's address as data is no constant expression, and the table
     * is constant-initialized): its symbol is the kernel's linkage name (C++'s
     * mangled name, or an extern "C" kernel's own), the name a GPU's module
     * knows it by; and whether `name` is a name expression (a GPU's module
     * knows it by its lowered name) (since 7) */
    const void *(*fn)(void);
    int from_expr;
} pcc_sim_kernel;

/* Exported by every module under this name. Returns PCC_SIM_ABI_VERSION. */
typedef int (*pcc_sim_module_init_fn)(const pcc_sim_api *api, const pcc_sim_kernel **kernels,
                                      int *count);
#define PCC_SIM_MODULE_INIT "pcc_sim_module_init"

/* A sim "CUBIN": the bytes the sim compiler hands out (and the cache stores)
 * and cuModuleLoadData takes back: this header, then `size` bytes of a host
 * ELF shared object. */
#define PCC_SIM_IMAGE_MAGIC "PCCSIMSO"
typedef struct pcc_sim_image_header {
    char magic[8];           /* PCC_SIM_IMAGE_MAGIC, no NUL */
    unsigned int abi_version; /* PCC_SIM_ABI_VERSION */
    unsigned int crc32c;      /* CRC-32C of the shared object (since version 2) */
    unsigned long long size;  /* bytes of shared object that follow */
} pcc_sim_image_header;

#ifdef __cplusplus
}
#endif
#endif /* PYCUDAC_SIM_ABI_H */
