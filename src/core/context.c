/*
 * core/context.c — Context objects and "which context is current".
 *
 * One Python object per CUcontext (a small registry, GIL-protected), so
 * Context.get_current() returns the same object that make_context or
 * retain_primary_context gave out. Kinds (core/context.h): a retained primary
 * context is released when its object dies, a created one destroyed, a
 * borrowed one (made current by someone else) never freed.
 *
 * CUDA's current context is per thread. pycudac.autoinit registers its
 * primary context here as the default: any entry point that needs a context
 * and finds none current in its thread makes the default current there.
 */
#include <stdint.h>
#include <string.h>

#include "driver/loader.h"
#include "core/context.h"
#include "core/convert.h"
#include "core/memory.h"
#include "core/multi.h"
#include "core/stream.h"
#include "structmember.h"

/* ---- registry: CUcontext -> borrowed PccContext* (GIL held) ------------- */

typedef struct {
    CUcontext ctx;
    PccContext *obj;
} reg_entry;

static reg_entry *registry;
static size_t reg_len, reg_cap;
static PccContext *default_ctx; /* strong; set by pycudac.autoinit */

static PccContext *reg_find(CUcontext ctx)
{
    for (size_t i = 0; i < reg_len; i++)
        if (registry[i].ctx == ctx)
            return registry[i].obj;
    return NULL;
}

static int reg_add(CUcontext ctx, PccContext *obj)
{
    for (size_t i = 0; i < reg_len; i++)
        if (registry[i].ctx == ctx) { /* stale entry for a reused handle */
            registry[i].obj = obj;
            return 0;
        }
    if (reg_len == reg_cap) {
        size_t cap = reg_cap ? reg_cap * 2 : 8;
        reg_entry *r = PyMem_RawRealloc(registry, cap * sizeof *r);
        if (r == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        registry = r;
        reg_cap = cap;
    }
    registry[reg_len].ctx = ctx;
    registry[reg_len].obj = obj;
    reg_len++;
    return 0;
}

static void reg_remove(PccContext *obj)
{
    for (size_t i = 0; i < reg_len; i++)
        if (registry[i].obj == obj) {
            registry[i] = registry[--reg_len];
            return;
        }
}

/* ---- creation ----------------------------------------------------------- */

PyObject *pcc_context_wrap(CUcontext ctx, CUdevice dev, int kind)
{
    PccContext *obj = reg_find(ctx);
    if (obj != NULL && !obj->released) {
        if (kind == PCC_CTX_PRIMARY) {
            if (obj->kind == PCC_CTX_BORROWED) {
                obj->kind = PCC_CTX_PRIMARY; /* it now owns this retain */
            } else {
                /* Already owns one retain: give the extra one back. */
                pcc_drv.cuDevicePrimaryCtxRelease(dev);
            }
        }
        Py_INCREF(obj);
        return (PyObject *)obj;
    }
    obj = PyObject_New(PccContext, pcc_st.Context);
    if (obj == NULL)
        goto fail;
    obj->ctx = ctx;
    obj->dev = dev;
    /* a device constant that a warm start needs (its cache key): asked here,
     * beside the context's creation, rather than cold on the first load */
    if (pcc_device_cc(dev, &obj->cc_major, &obj->cc_minor) != CUDA_SUCCESS)
        obj->cc_major = obj->cc_minor = 0;
    obj->kind = kind;
    obj->released = 0;
    obj->weakreflist = NULL;
    obj->staging = NULL;
    pcc_peer_note_device(dev);
    if (reg_add(ctx, obj) < 0) {
        obj->released = 1; /* dealloc must not free what the caller still owns */
        Py_DECREF(obj);
        goto fail;
    }
    return (PyObject *)obj;
fail:
    if (kind == PCC_CTX_PRIMARY)
        pcc_drv.cuDevicePrimaryCtxRelease(dev);
    else if (kind == PCC_CTX_CREATED)
        pcc_drv.cuCtxDestroy(ctx);
    return NULL;
}

int pcc_context_ensure(void)
{
    CUcontext cur = NULL;
    if (pcc_check(pcc_drv.cuCtxGetCurrent(&cur), "cuCtxGetCurrent") < 0)
        return -1;
    if (cur != NULL)
        return 0;
    if (default_ctx != NULL && !default_ctx->released)
        return pcc_check(pcc_drv.cuCtxSetCurrent(default_ctx->ctx), "cuCtxSetCurrent");
    PyErr_SetString(pcc_st.LogicError,
                    "no CUDA context is current in this thread: import pycudac.autoinit, or "
                    "make one with Device(n).make_context() or "
                    "Device(n).retain_primary_context().push()");
    return -1;
}

int pcc_context_adopt(PyObject *context)
{
    CUcontext cur = NULL;
    PccContext *c = (PccContext *)context;
    if (c == NULL || c->released || pcc_drv.cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != NULL)
        return 0;
    return pcc_drv.cuCtxSetCurrent(c->ctx) == CUDA_SUCCESS;
}

PyObject *pcc_context_current(void)
{
    if (pcc_context_ensure() < 0)
        return NULL;
    CUcontext cur = NULL;
    if (pcc_check(pcc_drv.cuCtxGetCurrent(&cur), "cuCtxGetCurrent") < 0)
        return NULL;
    PccContext *obj = reg_find(cur);
    if (obj != NULL && !obj->released) {
        Py_INCREF(obj);
        return (PyObject *)obj;
    }
    CUdevice dev = 0;
    if (pcc_check(pcc_drv.cuCtxGetDevice(&dev), "cuCtxGetDevice") < 0)
        return NULL;
    return pcc_context_wrap(cur, dev, PCC_CTX_BORROWED);
}

/* ---- entering an owner's context (GIL held or not) ---------------------- */

int pcc_ctx_enter(PyObject *context, pcc_ctx_guard *g)
{
    PccContext *c = (PccContext *)context;
    g->prev = NULL;
    g->pushed = 0;
    if (c == NULL || c->released)
        return -1;
    CUcontext cur = NULL;
    if (pcc_drv.cuCtxGetCurrent(&cur) != CUDA_SUCCESS)
        return -1;
    if (cur == c->ctx)
        return 0;
    if (pcc_drv.cuCtxPushCurrent(c->ctx) != CUDA_SUCCESS)
        return -1;
    g->prev = cur;
    g->pushed = 1;
    return 0;
}

int pcc_ctx_use(PyObject *context, pcc_ctx_guard *g, const char *what)
{
    g->prev = NULL;
    g->pushed = 0;
    if (pcc_ready() < 0)
        return -1;
    if (pcc_ctx_enter(context, g) == 0)
        return 0;
    PyErr_Format(pcc_st.LogicError, "%s: the context it was made in was detached", what);
    return -1;
}

PyObject *pcc_handle_alloc(PyTypeObject *type, PyObject *context)
{
    pcc_handle *h = (pcc_handle *)type->tp_alloc(type, 0);
    if (h == NULL) {
        Py_DECREF(context);
        return NULL;
    }
    h->context = context;
    h->weakreflist = NULL;
    return (PyObject *)h;
}

void pcc_handle_dealloc(PyObject *op, void (*release)(PyObject *op))
{
    pcc_handle *h = (pcc_handle *)op;
    PyTypeObject *tp = Py_TYPE(op);
    if (h->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    release(op);
    Py_CLEAR(h->context);
    tp->tp_free(op);
    Py_DECREF(tp);
}

PyObject *pcc_ctx_for_new(void)
{
    if (pcc_ready() < 0)
        return NULL;
    return pcc_context_current();
}

void pcc_ctx_leave(pcc_ctx_guard *g)
{
    if (g->pushed) {
        CUcontext popped;
        pcc_drv.cuCtxPopCurrent(&popped);
        g->pushed = 0;
    }
}

/* ---- freeing ------------------------------------------------------------ */

/* If `ctx` is current in this thread, take it off (before it goes away). */
static void pop_if_current(CUcontext ctx)
{
    CUcontext cur = NULL;
    if (pcc_drv.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx) {
        CUcontext popped;
        pcc_drv.cuCtxPopCurrent(&popped);
    }
}

/* Frees the context's pinned staging buffers (a cache) in that context,
 * unless `skip` (or frees are skipped): then they are only forgotten. */
static void free_staging(PccContext *c, int skip)
{
    if (c->staging == NULL)
        return;
    if (!skip) {
        int unused = 0;
        PCC_FREE_IN_CONTEXT((PyObject *)c, unused, (pcc_staging_free(c->staging), 0));
        (void)unused;
    }
    c->staging = NULL;
}

/* At interpreter exit: drop completed keep-alives and give back every live
 * context's pinned staging buffers (a cache, not user data), so that the
 * process ends owning only what the user still holds. The contexts
 * themselves stay usable. */
static PyObject *py_release_caches(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    /* Objects kept alive for work that has completed (staged copies, async
     * In/Out buffers) are normally dropped at the next synchronize; there
     * is none after the last one. */
    pcc_release_completed();
    for (size_t i = 0; i < reg_len; i++)
        free_staging(registry[i].obj, 0);
    Py_RETURN_NONE;
}

/* Frees what the object owns. 0, or -1 with an exception when `raise`. */
static int context_release(PccContext *self, int raise)
{
    if (self->released)
        return 0;
    reg_remove(self);
    pcc_peer_forget(self->ctx);
    int skip = self->kind == PCC_CTX_BORROWED || pcc_skip_free();
    free_staging(self, skip);
    self->released = 1;
    pcc_st.detached_any = 1;
    if (self == default_ctx) {
        default_ctx = NULL;
        Py_DECREF(self); /* the default's reference; the caller still holds one */
    }
    if (skip)
        return 0;
    CUresult rc = CUDA_SUCCESS;
    const char *call = "";
    if (self->kind == PCC_CTX_PRIMARY) {
        pop_if_current(self->ctx);
        rc = pcc_drv.cuDevicePrimaryCtxRelease(self->dev);
        call = "cuDevicePrimaryCtxRelease";
    } else if (self->kind == PCC_CTX_CREATED) {
        rc = pcc_drv.cuCtxDestroy(self->ctx);
        call = "cuCtxDestroy";
    }
    if (rc != CUDA_SUCCESS && raise)
        return pcc_raise(rc, call);
    if (rc != CUDA_SUCCESS)
        pcc_note_failed_free(rc, call);
    return 0;
}

static void context_dealloc(PyObject *op)
{
    PccContext *self = (PccContext *)op;
    PyTypeObject *tp = Py_TYPE(op);
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    /* default_ctx holds a reference, so self cannot be it here; with
     * raise=0 nothing sets an exception. */
    context_release(self, 0);
    reg_remove(self);
    tp->tp_free(op);
    Py_DECREF(tp);
}

/* ---- methods ------------------------------------------------------------ */

static int check_live(PccContext *self, const char *what)
{
    if (self->released) {
        PyErr_Format(pcc_st.LogicError, "Context.%s: this context was detached", what);
        return -1;
    }
    return 0;
}

static PyObject *context_push(PccContext *self, PyObject *unused)
{
    (void)unused;
    if (pcc_ready() < 0 || check_live(self, "push") < 0)
        return NULL;
    if (pcc_check(pcc_drv.cuCtxPushCurrent(self->ctx), "cuCtxPushCurrent") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *context_pop(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    CUcontext cur = NULL;
    if (pcc_check(pcc_drv.cuCtxGetCurrent(&cur), "cuCtxGetCurrent") < 0)
        return NULL;
    if (cur == NULL) {
        PyErr_SetString(pcc_st.LogicError, "Context.pop: no context is current in this thread");
        return NULL;
    }
    CUcontext popped;
    if (pcc_check(pcc_drv.cuCtxPopCurrent(&popped), "cuCtxPopCurrent") < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *pcc_context_get_current(void)
{
    if (pcc_ready() < 0)
        return NULL;
    CUcontext cur = NULL;
    if (pcc_check(pcc_drv.cuCtxGetCurrent(&cur), "cuCtxGetCurrent") < 0)
        return NULL;
    /* Nothing current: None, unless pycudac.autoinit's context can be. */
    if (cur == NULL && (default_ctx == NULL || default_ctx->released))
        Py_RETURN_NONE;
    return pcc_context_current();
}

static PyObject *context_get_current(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    return pcc_context_get_current();
}

/* The raw current CUcontext of this thread as an int (0: none), with no
 * autoinit fallback. For tests of context restoration. */
static PyObject *py_current_context_handle(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    CUcontext cur = NULL;
    if (pcc_check(pcc_drv.cuCtxGetCurrent(&cur), "cuCtxGetCurrent") < 0)
        return NULL;
    return PyLong_FromVoidPtr(cur);
}

static PyObject *context_synchronize(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuCtxSynchronize();
    Py_END_ALLOW_THREADS
    if (pcc_check(rc, "cuCtxSynchronize") < 0)
        return NULL;
    pcc_release_completed();
    Py_RETURN_NONE;
}

/* Context.set_limit(limit, value) / Context.get_limit(limit): the current
 * context's limits (driver.limit: STACK_SIZE, PRINTF_FIFO_SIZE,
 * MALLOC_HEAP_SIZE ...), as PyCUDA has them. */
static PyObject *context_set_limit(PyObject *cls, PyObject *args)
{
    (void)cls;
    int limit;
    PyObject *v;
    if (!PyArg_ParseTuple(args, "iO:set_limit", &limit, &v))
        return NULL;
    /* a size: "K" wrapped -1 and 2**64 to numbers the driver took */
    if (PyBool_Check(v) || !PyIndex_Check(v)) {
        PyErr_Format(PyExc_TypeError, "set_limit: value must be an int (a size in bytes or a "
                     "count), not %.100s", Py_TYPE(v)->tp_name);
        return NULL;
    }
    PyObject *iv = PyNumber_Index(v);
    if (iv == NULL)
        return NULL;
    int overflow = 0;
    long long sv = PyLong_AsLongLongAndOverflow(iv, &overflow);
    int negative = overflow < 0 || (overflow == 0 && sv < 0);
    unsigned long long value = negative ? 0 : PyLong_AsUnsignedLongLong(iv);
    if (negative || (value == (unsigned long long)-1 && PyErr_Occurred())) {
        PyErr_Clear();
        PyErr_Format(negative ? PyExc_ValueError : PyExc_OverflowError,
                     "set_limit: value must be in 0..2**64-1, got %S", iv);
        Py_DECREF(iv);
        return NULL;
    }
    Py_DECREF(iv);
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS /* the driver may wait for preceding work */
    rc = pcc_drv.cuCtxSetLimit(limit, (size_t)value);
    Py_END_ALLOW_THREADS
    if (pcc_check(rc, "cuCtxSetLimit") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *context_get_limit(PyObject *cls, PyObject *arg)
{
    (void)cls;
    long limit = PyLong_AsLong(arg);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    if (limit < 0 || limit > 0x7fffffffL) {
        PyErr_Format(PyExc_ValueError, "get_limit: %ld is not a driver.limit", limit);
        return NULL;
    }
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    size_t value = 0;
    if (pcc_check(pcc_drv.cuCtxGetLimit(&value, (int)limit), "cuCtxGetLimit") < 0)
        return NULL;
    return PyLong_FromSize_t(value);
}

/* Context.set_cache_config(config) / get_cache_config(): the current
 * context's preference between L1 and shared memory (driver.func_cache);
 * set_shared_config(config) / get_shared_config(): its shared-memory bank
 * size (driver.shared_config); as PyCUDA has them. CUDA 13's header dropped
 * the bank-size calls: a driver without them drives only GPUs with fixed
 * four-byte banks, where the reference has the setter do nothing and the
 * getter answer FOUR_BYTE_BANK_SIZE, so that is what happens then. */

typedef CUresult (*ctx_set_fn)(int);
typedef CUresult (*ctx_get_fn)(int *);

/* Both pairs: `set` and `get` point at the driver table's entry, read once
 * pcc_ready has filled it (NULL where the driver lacks the call). */
static PyObject *set_ctx_config(PyObject *arg, const char *what, const char *enum_name,
                                unsigned int valid, ctx_set_fn *set, const char *call)
{
    int v;
    if (pcc_enum_arg(arg, what, enum_name, valid, &v) < 0 || pcc_ready() < 0 ||
        pcc_context_ensure() < 0)
        return NULL;
    if (*set != NULL && pcc_check((*set)(v), call) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *get_ctx_config(PyObject **enum_cls, int absent, ctx_get_fn *get,
                                const char *call)
{
    int v = absent;
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    if (*get != NULL && pcc_check((*get)(&v), call) < 0)
        return NULL;
    return pcc_enum_member(*enum_cls, v);
}

static PyObject *context_set_cache_config(PyObject *cls, PyObject *arg)
{
    (void)cls;
    return set_ctx_config(arg, "set_cache_config(config): config", "func_cache",
                          PCC_FUNC_CACHE_VALUES, &pcc_drv.cuCtxSetCacheConfig,
                          "cuCtxSetCacheConfig");
}

static PyObject *context_get_cache_config(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    return get_ctx_config(&pcc_st.func_cache, CU_FUNC_CACHE_PREFER_NONE,
                          &pcc_drv.cuCtxGetCacheConfig, "cuCtxGetCacheConfig");
}

static PyObject *context_set_shared_config(PyObject *cls, PyObject *arg)
{
    (void)cls;
    return set_ctx_config(arg, "set_shared_config(config): config", "shared_config",
                          PCC_SHARED_CONFIG_VALUES, &pcc_drv.cuCtxSetSharedMemConfig,
                          "cuCtxSetSharedMemConfig");
}

static PyObject *context_get_shared_config(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    return get_ctx_config(&pcc_st.shared_config, CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE,
                          &pcc_drv.cuCtxGetSharedMemConfig, "cuCtxGetSharedMemConfig");
}

static PyObject *context_get_device(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    CUdevice dev;
    if (pcc_check(pcc_drv.cuCtxGetDevice(&dev), "cuCtxGetDevice") < 0)
        return NULL;
    return pcc_device_new(dev);
}

static PyObject *context_detach(PccContext *self, PyObject *unused)
{
    (void)unused;
    if (self->released)
        Py_RETURN_NONE;
    if (pcc_ready() < 0)
        return NULL;
    if (context_release(self, 1) < 0)
        return NULL;
    /* what the package's caches hold for it (pools, kernels) goes now */
    if (pcc_st.context_detached != NULL) {
        PyObject *r = PyObject_CallOneArg(pcc_st.context_detached, (PyObject *)self);
        if (r == NULL)
            return NULL;
        Py_DECREF(r);
    }
    Py_RETURN_NONE;
}

static PyObject *context_enter(PccContext *self, PyObject *unused)
{
    PyObject *r = context_push(self, unused);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *context_exit(PccContext *self, PyObject *args)
{
    (void)args;
    if (self->released || pcc_ready() < 0) {
        PyErr_Clear(); /* never hide the with-block's own exception */
        Py_RETURN_FALSE;
    }
    CUcontext cur = NULL;
    if (pcc_drv.cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == self->ctx) {
        CUcontext popped;
        if (pcc_check(pcc_drv.cuCtxPopCurrent(&popped), "cuCtxPopCurrent") < 0)
            return NULL;
    }
    Py_RETURN_FALSE;
}

static PyObject *context_get_device_of(PccContext *self, void *closure)
{
    (void)closure;
    return pcc_device_new(self->dev);
}

static PyObject *context_kind(PccContext *self, void *closure)
{
    (void)closure;
    const char *k = self->kind == PCC_CTX_PRIMARY   ? "primary"
                    : self->kind == PCC_CTX_CREATED ? "created"
                                                    : "borrowed";
    return PyUnicode_FromString(k);
}

static PyObject *context_handle(PccContext *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(self->ctx);
}

static PyObject *context_repr(PyObject *op)
{
    PccContext *self = (PccContext *)op;
    const char *k = self->kind == PCC_CTX_PRIMARY   ? "primary"
                    : self->kind == PCC_CTX_CREATED ? "created"
                                                    : "borrowed";
    return PyUnicode_FromFormat("<pycudac.driver.Context %s device=%d handle=%p%s>", k,
                                (int)self->dev, (void *)self->ctx,
                                self->released ? " detached" : "");
}

static PyObject *context_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, pcc_st.Context) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    /* The same CUcontext, both alive: the driver hands a destroyed context's
     * handle to the next one it makes, and caches keyed by a Context (the
     * GPUArray pools, context_dependent_memoize) gave that one the dead
     * context's memory and kernels. A detached Context equals itself alone. */
    PccContext *x = (PccContext *)a, *y = (PccContext *)b;
    int eq = x == y || (x->ctx == y->ctx && !x->released && !y->released);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t context_hash(PyObject *self)
{
    Py_hash_t h = (Py_hash_t)((uintptr_t)((PccContext *)self)->ctx >> 4);
    return h == -1 ? -2 : h;
}

static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)type;
    (void)args;
    (void)kwds;
    PyErr_SetString(PyExc_TypeError,
                    "Context cannot be created directly: use Device(n).make_context(), "
                    "Device(n).retain_primary_context() or Context.get_current()");
    return NULL;
}

/* pycudac.autoinit: make `ctx` current here and the default for every thread. */
static PyObject *py_set_default_context(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (arg == Py_None) {
        Py_CLEAR(default_ctx);
        Py_RETURN_NONE;
    }
    if (!PyObject_TypeCheck(arg, pcc_st.Context)) {
        PyErr_Format(PyExc_TypeError, "_set_default_context: expected a Context, not %.100s",
                     Py_TYPE(arg)->tp_name);
        return NULL;
    }
    PccContext *c = (PccContext *)arg;
    if (pcc_ready() < 0 || check_live(c, "_set_default_context") < 0)
        return NULL;
    if (pcc_check(pcc_drv.cuCtxSetCurrent(c->ctx), "cuCtxSetCurrent") < 0)
        return NULL;
    Py_INCREF(arg);
    Py_XSETREF(default_ctx, c);
    Py_RETURN_NONE;
}

static PyObject *py_get_default_context(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    if (default_ctx == NULL)
        Py_RETURN_NONE;
    Py_INCREF(default_ctx);
    return (PyObject *)default_ctx;
}

static PyMethodDef context_methods[] = {
    {"push", (PyCFunction)context_push, METH_NOARGS,
     "Make this context current in the calling thread (on top of the stack)."},
    {"pop", (PyCFunction)context_pop, METH_NOARGS | METH_STATIC,
     "Pop the calling thread's current context."},
    {"get_current", (PyCFunction)context_get_current, METH_NOARGS | METH_STATIC,
     "The calling thread's current context; with pycudac.autoinit imported, a thread "
     "with none gets autoinit's context made current; else None."},
    {"synchronize", (PyCFunction)context_synchronize, METH_NOARGS | METH_STATIC,
     "Wait for all work in the current context (GIL released)."},
    {"get_device", (PyCFunction)context_get_device, METH_NOARGS | METH_STATIC,
     "The Device of the current context."},
    {"set_limit", (PyCFunction)context_set_limit, METH_VARARGS | METH_STATIC,
     "set_limit(limit, value): set a limit (driver.limit) of the current context "
     "(cuCtxSetLimit)."},
    {"get_limit", (PyCFunction)context_get_limit, METH_O | METH_STATIC,
     "get_limit(limit) -> int: a limit (driver.limit) of the current context "
     "(cuCtxGetLimit)."},
    {"set_cache_config", (PyCFunction)context_set_cache_config, METH_O | METH_STATIC,
     "set_cache_config(config): the current context's L1/shared memory preference, a "
     "driver.func_cache (cuCtxSetCacheConfig)."},
    {"get_cache_config", (PyCFunction)context_get_cache_config, METH_NOARGS | METH_STATIC,
     "get_cache_config() -> driver.func_cache: the current context's preference."},
    {"set_shared_config", (PyCFunction)context_set_shared_config, METH_O | METH_STATIC,
     "set_shared_config(config): the current context's shared memory bank size, a "
     "driver.shared_config (does nothing on GPUs with fixed four-byte banks)."},
    {"get_shared_config", (PyCFunction)context_get_shared_config, METH_NOARGS | METH_STATIC,
     "get_shared_config() -> driver.shared_config: the current context's bank size."},
    {"detach", (PyCFunction)context_detach, METH_NOARGS,
     "Release (primary) or destroy (created) the context now."},
    {"__enter__", (PyCFunction)context_enter, METH_NOARGS, "push()"},
    {"__exit__", (PyCFunction)context_exit, METH_VARARGS, "pop() if still current"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef context_getset[] = {
    {"device", (getter)context_get_device_of, NULL, "The context's Device.", NULL},
    {"kind", (getter)context_kind, NULL, "'primary', 'created' or 'borrowed'.", NULL},
    {"handle", (getter)context_handle, NULL, "The CUcontext as an int.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef context_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccContext, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot context_slots[] = {
    {Py_tp_doc, "A CUDA context (primary, created or borrowed)."},
    {Py_tp_new, context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_members, context_members},
    {Py_tp_repr, context_repr},
    {Py_tp_richcompare, context_richcompare},
    {Py_tp_hash, context_hash},
    {0, NULL}};

static PyType_Spec context_spec = {
    .name = "pycudac._driver.Context",
    .basicsize = sizeof(PccContext),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = context_slots,
};

static PyMethodDef module_methods[] = {
    {"_release_caches", py_release_caches, METH_NOARGS,
     "Free cached pinned staging buffers of every live context (run at exit)."},
    {"_set_default_context", py_set_default_context, METH_O,
     "Make `ctx` current and the fallback for threads with no current context "
     "(pycudac.autoinit)."},
    {"_current_context_handle", py_current_context_handle, METH_NOARGS,
     "This thread's current CUcontext as an int (0: none); no autoinit fallback."},
    {"_get_default_context", py_get_default_context, METH_NOARGS,
     "The context registered by pycudac.autoinit, or None."},
    {NULL, NULL, 0, NULL}};

int pcc_context_init(PyObject *module)
{
    pcc_st.Context = (PyTypeObject *)PyType_FromSpec(&context_spec);
    if (pcc_st.Context == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "Context", (PyObject *)pcc_st.Context) < 0)
        return -1;
    return PyModule_AddFunctions(module, module_methods);
}
