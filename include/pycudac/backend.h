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
} pcc_backend;

/* The simulator's backend (src/sim/driver.c); fills `t` with its driver
 * table. */
const pcc_backend *pcc_sim_backend(pcc_driver_table *t);
/* The simulator's compiler table (src/sim/cc/compile.c); fills its
 * identity (compiler path, version stamp, prelude hash) on first call.
 * Never NULL. Reachable by name for compile(compiler="sim"). */
const pcc_rtc_table *pcc_sim_rtc_get(void);

#endif
