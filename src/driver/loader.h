/*
 * driver/loader.h — choosing the backend and filling the tables (src/driver/loader.c).
 *
 * PYCUDAC_BACKEND=cuda|sim|auto. cuda: dlopen("libcuda.so.1") and resolve
 * the versioned entry points of cudadrv.h. sim: the CPU simulator's table.
 * Either way pcc_st.backend then answers the questions of
 * pycudac/backend.h, so that no other file asks which backend it runs on.
 * NVRTC is loaded separately and lazily, since compile() with an explicit
 * arch needs it even where no driver exists.
 */
#ifndef PYCUDAC_LOADER_H
#define PYCUDAC_LOADER_H

#include "module/errors.h"
#include "pycudac/backend.h"
#include "pycudac/rtc.h"

/* Loads the backend on first use (GIL held) and sets pcc_st.backend. 0, or
 * -1 with an exception naming what is missing and where it looked. Called
 * through pcc_ready(). */
int pcc_backend_load(void);
int pcc_loader_init(PyObject *module);

/* Slow path of pcc_ready: loads the backend on first use; refuses in a
 * forked child or a poisoned process. */
int pcc_ready_slow(void);

/* 0 when driver calls may be made now; -1 with an exception set otherwise.
 * Every public entry point that calls the driver starts here. */
static inline int pcc_ready(void)
{
    if (pcc_st.backend != NULL && !pcc_st.poison_code && !pcc_st.forked)
        return 0;
    return pcc_ready_slow();
}

/* The real NVRTC (NULL + exception listing every place tried). */
const pcc_rtc_table *pcc_rtc_nvrtc(void);
/* The real NVRTC when it is loaded already, else NULL (never loads it). */
const pcc_rtc_table *pcc_rtc_nvrtc_if_loaded(void);
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
/* A compiler by name ("nvrtc" or "sim"), for compile(compiler=...);
 * NULL with an exception. */
const pcc_rtc_table *pcc_rtc_by_name(const char *name);

/* nvJitLink (driver/jitlink.c): NULL + exception listing every place tried. */
const pcc_jitlink_table *pcc_jitlink(void);
int pcc_jitlink_init(PyObject *module);

/* The libcuda backend's image check (driver/cubin.c). */
const char *pcc_cubin_problem(const void *image, size_t len);

#endif
