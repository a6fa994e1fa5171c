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

/* How every dealloc frees its handle: `result = call` runs with `context`
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

/* New reference: a Device object for `dev`. */
PyObject *pcc_device_new(CUdevice dev);

int pcc_device_init(PyObject *module);
int pcc_context_init(PyObject *module);

#endif
