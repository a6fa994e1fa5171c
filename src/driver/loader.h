/*
 * loader.h — choosing the backend and filling the tables (src/loader.c).
 *
 * PYCUDAC_BACKEND=cuda|sim|auto. cuda: dlopen("libcuda.so.1") and resolve
 * the versioned entry points of cudadrv.h. sim: the CPU simulator's table.
 * NVRTC is loaded separately and lazily, since compile() with an explicit
 * arch needs it even where no driver exists.
 */
#ifndef PYCUDAC_LOADER_H
#define PYCUDAC_LOADER_H

#include "module/errors.h"
#include "pycudac/rtc.h"
#include "sim/env.h"

/* The backend in use: pcc_hot.backend (errors.h). */
enum { PCC_BACKEND_NONE = 0, PCC_BACKEND_CUDA = 1, PCC_BACKEND_SIM = 2 };

/* Loads the backend (GIL held). 0, or -1 with an exception naming what is
 * missing and where it looked. Called through pcc_ready(). */
int pcc_backend_load(void);
const char *pcc_backend_name(void);
int pcc_loader_init(PyObject *module);

/* The real NVRTC (NULL + exception listing every place tried). */
const pcc_rtc_table *pcc_rtc_nvrtc(void);
/* Writes the identity of the NVRTC library ("path size=N mtime=T ino=I dev=D") into
 * out. With allow_load=0 it is found by stat alone; returns 1 when written,
 * 0 when only loading would tell, -1 with an exception. */
int pcc_nvrtc_identity(char *out, size_t len, int allow_load);

/* New reference: NVRTC's identity for the cache key (the library file,
 * looked up once per process, then CUDA_HOME and CUDA_PATH as they are now):
 * 'identity\0CUDA_HOME=...\0CUDA_PATH=...'. NULL with an exception. */
PyObject *pcc_nvrtc_key_identity(void);
/* The compiler that makes modules for the loaded backend. */
const pcc_rtc_table *pcc_rtc_for_backend(void);

/* Provided by the simulator (src/backend_sim*.c). */
void pcc_sim_fill_driver_table(pcc_driver_table *t);
/* The simulator's compiler table; fills its identity (compiler path, version
 * stamp, prelude hash) on first call. Never NULL. */
const pcc_rtc_table *pcc_sim_rtc_get(void);
/* After a sticky error on the sim backend: what faulted, where (kernel,
 * block, thread, allocation). NULL when there is nothing to add. */
const char *pcc_sim_fault_detail(void);

/* Why a simulator image must not reach its loader, which gets no length
 * (backend_sim_module.c): "truncated ..." when its header counts more bytes
 * than `len`; NULL otherwise (also for what is no simulator image). */
const char *pcc_sim_image_problem(const void *image, size_t len);

#endif
