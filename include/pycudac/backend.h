/*
 * backend.h — what the core asks of a backend besides its driver table: the
 * few answers that differ between a GPU (libcuda) and the CPU simulator.
 * The core reads them from the table in use and never asks which backend it
 * runs on. C only, no Python: the simulator (src/sim/) fills one of these,
 * the loader (src/driver/) the one for libcuda.
 */
#ifndef PYCUDAC_BACKEND_H
#define PYCUDAC_BACKEND_H

#include <stddef.h>

#include "pycudac/cudadrv.h"
#include "pycudac/rtc.h"

/* What only the simulator's check mode returns from a launch (not a CUDA
 * code): the kernel ran and the checks found a defect, which the backend's
 * check_message describes. Not sticky: the checks stop a bad access before
 * it happens, so nothing is corrupted and the process stays usable. */
#define PCC_CHECK_FAILED ((CUresult)0x5043)
/* What a launch the simulator stopped on Ctrl-C returns (not a CUDA code,
 * not sticky): the core raises KeyboardInterrupt. */
#define PCC_LAUNCH_INTERRUPTED ((CUresult)0x5044)

/* One report of check mode, as compute-sanitizer would print it: which
 * check, what was wrong, where in the source, which thread, which memory.
 * Strings are NUL-terminated (cut to fit). */
typedef struct pcc_check_report {
    unsigned long long serial;  /* order of first occurrence, from 1 */
    unsigned long long count;   /* occurrences of this check at this place */
    int error;                  /* 1: an error; 0: a warning */
    char tool[12];              /* memcheck, racecheck, initcheck, synccheck */
    char kind[32];              /* out-of-bounds, misaligned, use-after-free, stack-overflow,
                                   read-after-write, write-after-read, write-after-write,
                                   uninitialized, barrier */
    char space[12];             /* global, shared, local, or "" */
    char kernel[160];
    char file[256];             /* source file and line of the access, "" / 0 unknown */
    int line;
    unsigned int block[3], thread[3];
    unsigned long long address, size;
    int is_write;
    /* racecheck: the other access of the pair */
    char other_file[256];
    int other_line;
    unsigned int other_thread[3];
    int other_is_write;
    /* memcheck, initcheck: the allocation the address belongs to or is nearest */
    unsigned long long alloc_base, alloc_size;
    long long offset;           /* address - alloc_base */
    char alloc_kind[32];
    char message[1536];
} pcc_check_report;

/* One row of the simulator's teaching profile: a memory instruction of a
 * kernel, over all the times a warp ran it. Global memory: how many 32-byte
 * sectors a warp's request touched, against the fewest its bytes could
 * (coalescing); shared memory: how many ways the lanes' words conflicted on
 * the 32 banks. */
typedef struct pcc_profile_row {
    char kernel[160];
    char file[256];
    int line;
    char space[12];             /* global, shared */
    int is_write;
    unsigned int size;          /* bytes per lane */
    unsigned long long requests;     /* warp executions of the instruction */
    unsigned long long lanes;        /* lane accesses in them */
    unsigned long long sectors;      /* global: 32-byte sectors touched, summed */
    unsigned long long ideal_sectors; /* global: the fewest those bytes need */
    unsigned long long conflict_ways; /* shared: bank-conflict ways, summed */
    unsigned int max_conflict_ways;
    unsigned long long dropped;      /* lane accesses past the profile's limit, not counted */
} pcc_profile_row;

typedef struct pcc_backend {
    const char *name; /* "cuda" or "sim": pycudac's get_backend() */
    /* cuLaunchKernel runs the whole kernel before it returns (the
     * simulator): the launch releases the GIL around it. A GPU's launch only
     * queues, and stays on the hot path with the GIL held. */
    int launch_blocks;
    /* Large copies from pageable host memory go faster through pinned
     * staging buffers than through the driver's own pageable path
     * (core/memcpy.c). */
    int stage_pageable_copies;
    /* The compiler that makes this backend's modules; NULL for NVRTC, which
     * the loader opens itself (it is needed without any driver too). */
    const pcc_rtc_table *(*compiler)(void);
    /* Why an image must not reach cuModuleLoadData, which is given no
     * length (a truncated image would be read past its end); NULL when it
     * may go (the loader still refuses garbage of its own). */
    const char *(*image_problem)(const void *image, size_t len);
    /* Called with the GIL held before a module is loaded, or NULL. */
    void (*before_load)(void);
    /* After a sticky error: what faulted and where (kernel, block, thread,
     * allocation), or NULL when there is nothing to add. May be NULL. */
    const char *(*fault_detail)(void);
    /* Why device code cannot be linked when the table has no cuLink*. */
    const char *no_linker;
    /* Why OpenGL interop cannot work when the table has no
     * cuGraphicsGLRegister*; NULL: an old driver, named as such. */
    const char *no_gl;
    /* Check mode (the simulator; NULL on a GPU, where compute-sanitizer
     * does this). configure sets the checks ("memcheck,racecheck,initcheck,
     * synccheck", "all", "" for none), the schedule ("", "forward",
     * "reverse", "random:SEED") and whether a launch with errors returns
     * PCC_CHECK_FAILED: 0, or -1 with why in err. config reads them back in
     * the same words. reports copies up to max reports of serial >= since
     * (oldest first) and returns how many there are; clear forgets them all
     * after. message: the text of the last PCC_CHECK_FAILED, or of the last
     * launch the watchdog stopped (CUDA_ERROR_LAUNCH_TIMEOUT). */
    int (*check_configure)(const char *checks, const char *schedule, int raise_errors, char *err,
                           size_t len);
    void (*check_config)(char *checks, size_t clen, char *schedule, size_t slen,
                         int *raise_errors);
    size_t (*check_reports)(pcc_check_report *out, size_t max, unsigned long long since,
                            int clear);
    const char *(*check_message)(void);
    /* The teaching profile (check mode's "profile"): copies up to max rows,
     * returns how many there are; reset forgets them after. */
    size_t (*profile_rows)(pcc_profile_row *out, size_t max, int reset);
} pcc_backend;

/* The simulator's backend (src/sim/driver.c); fills `t` with its driver
 * table. */
const pcc_backend *pcc_sim_backend(pcc_driver_table *t);
/* The simulator's compiler table (src/sim/cc/compile.c); fills its
 * identity (compiler path, version stamp, prelude hash) on first call.
 * Never NULL. Reachable by name for compile(compiler="sim"). */
const pcc_rtc_table *pcc_sim_rtc_get(void);

#endif
