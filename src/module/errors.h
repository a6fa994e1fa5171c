/*
 * module/errors.h — the one error path (src/module/errors.c) and the module's state.
 *
 * Every driver and NVRTC result goes through pcc_check/pcc_raise, which turn
 * a CUresult into the right exception class with .code, .name and .call.
 * pcc_ready() guards every public entry point: it loads the backend on first
 * use and refuses at once in a forked child or a poisoned process.
 */
#ifndef PYCUDAC_ERRORS_H
#define PYCUDAC_ERRORS_H

#include "module/state.h"
#include "pycudac/cudadrv.h"

/* Branch hints for the launch path: its error and rare branches are moved
 * out of line (GCC/Clang put them in a .cold part), so the instructions a
 * launch runs sit in fewer cache lines, which the driver's own launch code
 * evicts between calls. */
#if defined(__GNUC__) || defined(__clang__)
#define PCC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PCC_NOINLINE __attribute__((noinline))
/* the launch's hot path: GCC places such functions together (.text.hot),
 * so a call runs a few adjacent lines and pages of code */
#define PCC_HOT __attribute__((hot))
#else
#define PCC_UNLIKELY(x) (x)
#define PCC_NOINLINE
#define PCC_HOT
#endif

extern unsigned long pcc_skipped_frees;
/* Launches that took the general path (launch/call.c), for the tests: the
 * fast path counts nothing. */
extern unsigned long pcc_general_launches;

/* Sets the exception for a failed driver call `call`; always returns -1.
 * Sticky codes poison the process as a side effect. */
int pcc_raise(CUresult rc, const char *call);
/* pcc_raise with the exception class chosen by the caller (NULL: by rc). */
int pcc_raise_as(PyObject *cls, CUresult rc, const char *call);
/* pcc_raise with the caller's sentence after the driver's description
 * (what the call needed, what the limit is). */
int pcc_raise_detail(CUresult rc, const char *call, const char *detail);

static inline int pcc_check(CUresult rc, const char *call)
{
    return rc == CUDA_SUCCESS ? 0 : pcc_raise(rc, call);
}

/* An optional driver entry point (an OPT entry of cudadrv.h) a call needs:
 * 0 when `fn` was resolved, else a LogicError "NAME: this CUDA driver lacks
 * it" and -1. */
static inline int pcc_need_entry(const void *fn, const char *name)
{
    if (fn != NULL)
        return 0;
    PyErr_Format(pcc_st.LogicError, "%s: this CUDA driver lacks it", name);
    return -1;
}

/* The errors pcc_ready (driver/loader.h) raises in a forked child and in a
 * poisoned process: the "use spawn" message, and the original sticky error
 * again. Both return -1. */
int pcc_raise_forked(void);
int pcc_raise_poisoned(void);

/* True when a destructor must not call the driver (poisoned, forked, or the
 * backend never came up). Counts the skipped free. */
int pcc_skip_free(void);

/* A destructor's free that the driver refused (nothing may be raised
 * there): counted, with the last code and call, for _debug_counters. */
void pcc_note_failed_free(CUresult rc, const char *call);

/* Remember the kernel launched last, for the message of a later sticky
 * error: its name (a reference is kept), and `func` only to tell the next
 * launch's kernel from it (no reference: remembering must not keep the
 * kernel's module, and so its context, alive). */
void pcc_note_launch_slow(PyObject *func, PyObject *name);
static inline void pcc_note_launch(PyObject *func, PyObject *name)
{
    /* (the name too: another Function may have the address of a dead one) */
    if (func != pcc_st.last_launched || name != pcc_st.last_launched_name)
        pcc_note_launch_slow(func, name);
}

/* Exception class for a CUresult (borrowed reference). */
PyObject *pcc_error_class(CUresult rc);

int pcc_errors_init(PyObject *module);

#endif
