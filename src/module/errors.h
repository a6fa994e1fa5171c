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

#define PY_SSIZE_T_CLEAN
#include <Python.h>
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

/* Types and exceptions of pycudac._driver; filled once at import. */
typedef struct pcc_module_state {
    PyObject *Error, *LogicError, *LaunchError, *MemoryError, *RuntimeError, *CompileError;
    PyTypeObject *Device, *Context, *DeviceAllocation, *HostAllocation, *Stream, *Event,
        *Module, *Function;
} pcc_module_state;

extern pcc_module_state pcc_st;

/* A class whose instances the launch's packer reads without a lookup,
 * learnt by pcc_conv_ptr (launch/pointer.c) from the first such argument and
 * used while the class's version tag is the one it had then (any change to
 * the class gives it another). */
typedef struct {
    PyTypeObject *type;   /* strong, or NULL */
    unsigned int version; /* type->tp_version_tag when learnt (never 0) */
    int offset;           /* pcc_hot.gpudata_slot: of the slot in an instance */
} pcc_learnt_type;

static inline int pcc_is_learnt(const pcc_learnt_type *l, PyTypeObject *t)
{
    return t == l->type && t->tp_version_tag == l->version;
}

/* Everything a launch's fast path reads besides its Function, its
 * arguments and the driver table, together in two cache lines: the
 * driver's launch evicts the caller's data from the nearer caches, and
 * each line read afterwards is a miss (see pcc_hot_param in
 * launch/plan.h). */
typedef struct {
    /* the process (pcc_ready) */
    /* the backend in use, NULL until loaded (driver/loader.c) */
    const struct pcc_backend *backend;
    int poison_code;    /* a sticky error's code: the process is poisoned (DESIGN.md) */
    int forked;         /* set in a child after fork() */
    PyObject *last_launched; /* Function object most recently launched */
    /* classes the packer compares arguments' types with, set at import
     * (PyFloat_Type's address read here rather than from the GOT) */
    PyTypeObject *float_type, *long_type, *array_type, *device_allocation, *stream;
    /* classes learnt from arguments (launch/pointer.c):
     *   gpudata_slot  a slotted array class (pycudac.gpuarray.GPUArray):
     *                 `gpudata` is read straight from its slot at `offset`;
     *   pooled_int    an int subclass whose instances keep `freed` in their
     *                 __dict__ (tools.PooledDeviceAllocation): see
     *                 pcc_pooled_ptr. */
    pcc_learnt_type gpudata_slot, pooled_int;
    /* the keyword names of the last launch whose keywords all matched, held
     * strongly, and the place of each launch keyword in them
     * (launch/call.c) */
    PyObject *kw_cached;
    signed char kw_cached_at[6];
    signed char kw_cached_plain; /* they name only block, grid and stream */
} pcc_hot_state;

extern pcc_hot_state pcc_hot;

extern unsigned long pcc_skipped_frees;

/* Sets the exception for a failed driver call `call`; always returns -1.
 * Sticky codes poison the process as a side effect. */
int pcc_raise(CUresult rc, const char *call);
/* pcc_raise with the exception class chosen by the caller (NULL: by rc). */
int pcc_raise_as(PyObject *cls, CUresult rc, const char *call);

static inline int pcc_check(CUresult rc, const char *call)
{
    return rc == CUDA_SUCCESS ? 0 : pcc_raise(rc, call);
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
 * error. `func` is a Function object (borrowed; a reference is kept). */
void pcc_note_launch_slow(PyObject *func);
static inline void pcc_note_launch(PyObject *func)
{
    if (func != pcc_hot.last_launched)
        pcc_note_launch_slow(func);
}

/* Exception class for a CUresult (borrowed reference). */
PyObject *pcc_error_class(CUresult rc);

int pcc_errors_init(PyObject *module);

#endif
