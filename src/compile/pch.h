/*
 * compile/pch.h — NVRTC's precompiled headers for compile/compile.c (src/compile/pch.c).
 */
#ifndef PYCUDAC_PCH_H
#define PYCUDAC_PCH_H

#include "module/errors.h"
#include "pycudac/rtc.h"

enum { PCC_PCH_NONE = 0, PCC_PCH_CREATED = 1, PCC_PCH_USED = 2 };
#define PCC_PCH_NOPTS 5

/* One compile's use of precompiled headers. */
typedef struct {
    int use;            /* the compile passes the PCH options */
    char opt_dir[4200]; /* "--pch-dir=<the process's directory>" */
    /* what happened (written without the GIL, counted with it) */
    int outcome;        /* PCC_PCH_NONE, CREATED or USED */
    int status;         /* nvrtcGetPCHCreateStatus of the last attempt */
    size_t required;    /* the heap that status 14 (heap exhausted) asked for */
    size_t heap_seen;   /* the heap's size then */
    int grew, fell_back;
} pcc_pch_job;

/* Whether this compiler has precompiled headers (NVRTC 12.8 and newer). */
int pcc_pch_available(const pcc_rtc_table *rtc);

/* The leading lines of `src` that may stand before the `extern "C" {`
 * compile.c opens: blank lines, comments, `#include <...>`, #define, #undef,
 * #pragma and balanced conditionals — the start NVRTC makes a PCH of.
 * Returns their length in bytes; *lines is how many lines that is, and
 * *includes how many #include lines are among them. */
size_t pcc_pch_prefix(const char *src, int *lines, int *includes);

/* Readies `pj` for a compile (GIL held): the process's PCH directory,
 * made on first use under `root` (the cache directory, which the caller
 * checked; None: a private directory in TMPDIR). 0: use it; -1: compile
 * without (never an exception: PCH only ever speeds a compile up). */
int pcc_pch_prepare(pcc_pch_job *pj, PyObject *root, const pcc_rtc_table *rtc);

/* The options that turn PCH on for `pj` into opts[PCC_PCH_NOPTS]; their
 * count. */
int pcc_pch_options(const pcc_pch_job *pj, const char **opts);

/* Around every NVRTC compile that may use the PCH heap (no GIL): resizing
 * the heap discards what is in it, so it waits for these to end. */
void pcc_pch_begin(void);
void pcc_pch_end(void);

/* After a compile with PCH and before its program is destroyed, with the
 * compile still inside pcc_pch_begin/end (no GIL): its creation status. */
void pcc_pch_status(pcc_pch_job *pj, const pcc_rtc_table *rtc, nvrtcProgram prog);

/* When the heap was too small for the PCH the last compile would have
 * made: grows it (no GIL; outside begin/end) and returns 1 (compile again,
 * so that the PCH exists for the next ones), else 0. */
int pcc_pch_grow(pcc_pch_job *pj, const pcc_rtc_table *rtc);

/* Takes NVRTC's "creating/using precompiled header file" lines out of
 * `log` (they name a per-process file), noting which it was. */
void pcc_pch_clean_log(pcc_pch_job *pj, char *log);

/* Whether a failed compile may have failed for PCH's sake (compile.c then
 * compiles once more without it). */
int pcc_pch_maybe_cause(nvrtcResult rc, const char *log);

/* Counts what `pj` did (GIL held). */
void pcc_pch_count(const pcc_pch_job *pj);

int pcc_pch_init(PyObject *module);

#endif
