/*
 * sim/cc/cc.h — internals shared by the CPU simulator's compiler
 * files: src/sim/cc/compile.c (the NVRTC-like table and the program
 * object), src/sim/cc/build.c (one compile: scan, private directory,
 * host compiler run, image), src/sim/cc/cxx.c (the host C++ compiler,
 * its fixed inputs and the identity) and src/sim/cc/options.c (NVRTC's
 * options translated).
 *
 * Not part of the simulator's ABI (that is sim_abi.h): nothing outside
 * src/sim/cc/ includes this. Pure C, no Python objects.
 */
#ifndef PYCUDAC_BACKEND_SIM_COMPILE_H
#define PYCUDAC_BACKEND_SIM_COMPILE_H

#include <limits.h>
#include <stddef.h>

#include "sim/cc/scan.h"
#include "pycudac/rtc.h"

/* Bump when the generated code changes (scan, rewrites, registration tail):
 * it is part of the identity, hence of the cache key. */
#define PCC_SIM_COMPILER_VERSION "pycudac-sim-compile 7"

/* ---- sim/cc/compile.c ---- */

/* The program: NVRTC's nvrtcProgram. */
struct _nvrtcProgram {
    char *src, *name;
    pcc_slist hdr_names, hdr_srcs;
    pcc_slist exprs;
    int compiled; /* 1 after a successful compile */
    pcc_sbuf log;
    unsigned char *image;
    size_t image_len;
};

/* ---- sim/cc/build.c ---- */

/* Compiles P with NVRTC's options into P->image, the log into P->log. */
nvrtcResult pcc_sim_build(struct _nvrtcProgram *P, int nopt, const char *const *opts);

/* ---- sim/cc/options.c ---- */

typedef struct {
    pcc_slist args;     /* for the compiler */
    pcc_slist inc_dirs; /* -I, for the header scan */
    pcc_slist pre;      /* --pre-include headers, for the header scan */
    pcc_slist sys_dirs; /* libcu++ and CUDA toolkit dirs: -isystem (not the user's code) */
    const char *std;
    int default_device; /* -default-device */
    int host_libc;      /* the program includes libcu++: the prelude takes the host's C library */
    int check;          /* --pycudac-sim-check: built for check mode (sim/check.c) */
} pcc_sim_options;

/* Translates NVRTC options; -1 with the log naming the bad one. */
int pcc_sim_parse_options(int n, const char *const *opts, pcc_sim_options *O, pcc_sbuf *log);

/* ---- sim/cc/cxx.c ---- */

/* The host C++ compiler, found once. */
typedef struct {
    char path[PATH_MAX];   /* empty: none found */
    pcc_slist extra;       /* words after the program in $CXX */
    int is_clang;
    char identity[2 * PATH_MAX + 256];
    char missing[1024];    /* why none was found */
} pcc_sim_cxx;

/* Finds the compiler on first use (thread-safe); never NULL. */
const pcc_sim_cxx *pcc_sim_cxx_get(void);
/* The simulator's headers (src/sim/prelude/) and sim_abi.h, as setup.py
 * embedded them: the i-th, or NULL past the last. */
typedef struct {
    const char *name, *text;
    size_t size; /* with the terminating NUL */
} pcc_sim_file;
const pcc_sim_file *pcc_sim_prelude_file(size_t i);
/* Stub headers: CUDA's own header names, each with the prelude header (in
 * pcc/) that stands for it, or an #error line. */
extern const char *const pcc_sim_stubs[][2];
extern const size_t pcc_sim_n_stubs;
/* The command line preprocessing <tmp>/src/kernel.cpp into <tmp>/kernel.ii
 * (SIM_CXX_PREPROCESS), or compiling the rewritten <tmp>/src/kernel.ii into
 * <tmp>/kernel.so (SIM_CXX_BUILD) — or, where the two are apart
 * (pcc_sim_cxx_links_apart: check mode on GCC), into <tmp>/kernel.o
 * (SIM_CXX_OBJECT) and that into <tmp>/kernel.so (SIM_CXX_LINK). */
enum { SIM_CXX_BUILD = 0, SIM_CXX_PREPROCESS = 1, SIM_CXX_OBJECT, SIM_CXX_LINK };
void pcc_sim_cxx_command(const pcc_sim_options *O, const char *tmp, int mode, pcc_slist *argv);
int pcc_sim_cxx_links_apart(const pcc_sim_options *O);
/* A compile's private directory, listed while the compile is in flight (on)
 * so that a process exit removes it; and removing such a tree. */
void pcc_sim_inflight_dir(const char *dir, int on);
void pcc_sim_remove_tree(const char *dir);
/* Runs argv[0] with stdout+stderr into log_path and TMPDIR=tmpdir (its own
 * temporary files then go with the compile's directory), listed while it
 * runs: a process exit kills it. Returns the wait status, or -1 + errno;
 * *stopped says when it was killed on Ctrl-C or past the compile's time
 * limit (PYCUDAC_SIM_COMPILE_TIMEOUT). */
enum { PCC_SIM_STOPPED_INTERRUPT = 1, PCC_SIM_STOPPED_TIMEOUT };
int pcc_sim_cxx_run(char *const *argv, const char *log_path, const char *tmpdir, int *stopped);

#endif
