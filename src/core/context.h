/*
 * core/context.h — Device and Context objects (src/core/device.c, src/core/context.c).
 */
#ifndef PYCUDAC_CONTEXT_H
#define PYCUDAC_CONTEXT_H

#include "module/errors.h"

typedef struct {
    PyObject_HEAD
    CUdevice dev;
    int ordinal;
} PccDevice;

enum {
    PCC_CTX_PRIMARY = 1, /* retained primary context: released in dealloc */
    PCC_CTX_CREATED = 2, /* made by make_context: destroyed in dealloc */
    PCC_CTX_BORROWED = 3 /* found current, made by someone else: never freed by us */
};

typedef struct {
    PyObject_HEAD
    CUcontext ctx;
    CUdevice dev;
    int cc_major, cc_minor; /* dev's compute capability, asked once at wrap; 0 unknown */
    int kind;
    int released; /* detach()ed or destroyed already */
    PyObject *weakreflist;
    void *staging; /* pinned staging buffers for pageable copies (core/memcpy.c), or NULL */
} PccContext;

/* Whether `context` (a Context, or NULL) was detached or destroyed: what was
 * made in it (memory, modules) went with it. Asks nothing until some context
 * was (pcc_st.detached_any), so the launch path pays one load. */
static inline int pcc_context_gone(PyObject *context)
{
    return pcc_st.detached_any && context != NULL &&
           PyObject_TypeCheck(context, pcc_st.Context) && ((PccContext *)context)->released;
}

/* dev's compute capability into *major and *minor: CUDA_SUCCESS or the
 * driver's code, nothing raised (src/core/device.c). */
CUresult pcc_device_cc(CUdevice dev, int *major, int *minor);

/* Context.get_current(): the calling thread's current Context object (new
 * reference), or None when none is current and autoinit's is not there. */
PyObject *pcc_context_get_current(void);

/* New reference to the Context object for the calling thread's current
 * context (one Python object per CUcontext). LogicError when none is
 * current. */
PyObject *pcc_context_current(void);

/* Making an object's context current to free in it, then restoring the
 * caller's. Used by every dealloc. enter returns 0 when the driver may be
 * called; the pair is safe with the GIL held or released. */
typedef struct {
    CUcontext prev;
    int pushed;
} pcc_ctx_guard;
int pcc_ctx_enter(PyObject *context, pcc_ctx_guard *g);
void pcc_ctx_leave(pcc_ctx_guard *g);

/* ---- handles made in a context, used and freed in it (PyCUDA's
 * context_dependent): every handle object holds a strong reference to its
 * Context; these three are how each type creates, uses and frees. ---- */

/* The fields every handle object starts with: its Context (strong) and
 * its weak-reference list. */
#define PCC_HANDLE_HEAD                                                                        \
    PyObject_HEAD                                                                              \
    PyObject *context;                                                                         \
    PyObject *weakreflist;

typedef struct {
    PCC_HANDLE_HEAD
} pcc_handle;

/* A new object of `type` for a handle just made in `context`, whose
 * reference it takes over (also on failure). NULL: the caller frees its
 * handle. */
PyObject *pcc_handle_alloc(PyTypeObject *type, PyObject *context);

/* A handle object's dealloc: weak references cleared, then `release(op)`
 * (the type frees its handle with PCC_FREE_IN_CONTEXT and drops its own
 * fields), then the context dropped and the object freed. */
void pcc_handle_dealloc(PyObject *op, void (*release)(PyObject *op));

/* Creating a handle: pcc_ready, then the current Context object (new
 * reference) for the new object to hold. NULL with an exception. */
PyObject *pcc_ctx_for_new(void);

/* Using a handle: pcc_ready, then its context made current for the call
 * (pcc_ctx_leave after); a LogicError naming `what` when that context was
 * detached. 0 or -1. */
int pcc_ctx_use(PyObject *context, pcc_ctx_guard *g, const char *what);

/* Freeing a handle, in every dealloc: `result = call` runs with `context`
 * current (the caller's restored after), unless frees are skipped (poisoned
 * or forked process, see pcc_skip_free) or the context cannot be entered;
 * then `result` is left as it was. */
#define PCC_FREE_IN_CONTEXT(context, result, call)                                             \
    do {                                                                                       \
        pcc_ctx_guard pcc_guard_;                                                              \
        if (!pcc_skip_free() && pcc_ctx_enter((context), &pcc_guard_) == 0) {                  \
            result = (call);                                                                   \
            pcc_ctx_leave(&pcc_guard_);                                                        \
        }                                                                                      \
    } while (0)

/* New reference: the one Context object for `ctx` (registry lookup). When
 * none exists, a new one of `kind` is made; for PCC_CTX_PRIMARY the caller's
 * retain passes to it (or is released when an object already owns one). */
PyObject *pcc_context_wrap(CUcontext ctx, CUdevice dev, int kind);

/* 0 when a context is current in the calling thread — making the context
 * registered by pycudac.autoinit current if none is; -1 + LogicError. */
int pcc_context_ensure(void);

/* When no context is current in the calling thread, makes `context` (a
 * Context object) current there: 1; else 0. Nothing raised. For a launch
 * that is its thread's first call: the Function's own context. */
int pcc_context_adopt(PyObject *context);

/* New reference: a Device object for `dev`. */
PyObject *pcc_device_new(CUdevice dev);

int pcc_device_init(PyObject *module);
int pcc_context_init(PyObject *module);

#endif
