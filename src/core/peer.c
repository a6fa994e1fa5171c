/*
 * core/peer.c — several devices in one process: peer access between
 * contexts (Context.enable_peer_access / disable_peer_access, PyCUDA's
 * static methods acting from the current context), copies between devices
 * (memcpy_peer, memcpy_peer_async), and what a launch asks before it
 * passes one device's memory to a kernel on another (pcc_peer_reachable).
 *
 * The access pycudac enabled is recorded here, as (from, to) pairs of
 * CUcontexts, so that the launch's question costs no driver call; a pair
 * not recorded is asked of the driver once (another library, NCCL for one,
 * may have enabled it) by trying to enable it: "already enabled" is a yes
 * (and recorded), an enable that works is undone and is a no.
 */
#include "driver/loader.h"
#include "core/context.h"
#include "core/memory.h"
#include "core/multi.h"
#include "core/stream.h"

/* ---- what pycudac knows (GIL held) --------------------------------------- */

typedef struct {
    CUcontext from, to;
} peer_pair;

static peer_pair *pairs;
static size_t npairs, pairs_cap;
static CUdevice first_device = -1;

void pcc_peer_note_device(CUdevice dev)
{
    if (first_device < 0)
        first_device = dev;
    else if (dev != first_device)
        pcc_st.multi_device = 1;
}

static int pair_known(CUcontext from, CUcontext to)
{
    for (size_t i = 0; i < npairs; i++)
        if (pairs[i].from == from && pairs[i].to == to)
            return 1;
    return 0;
}

static void pair_add(CUcontext from, CUcontext to)
{
    if (pair_known(from, to))
        return;
    if (npairs == pairs_cap) {
        size_t cap = pairs_cap ? 2 * pairs_cap : 8;
        peer_pair *p = PyMem_RawRealloc(pairs, cap * sizeof *p);
        if (p == NULL)
            return; /* not recorded: the launch asks the driver again */
        pairs = p;
        pairs_cap = cap;
    }
    pairs[npairs++] = (peer_pair){from, to};
}

static void pair_remove(CUcontext from, CUcontext to)
{
    for (size_t i = 0; i < npairs; i++)
        if (pairs[i].from == from && pairs[i].to == to) {
            pairs[i] = pairs[--npairs];
            return;
        }
}

void pcc_peer_forget(CUcontext ctx)
{
    for (size_t i = 0; i < npairs;)
        if (pairs[i].from == ctx || pairs[i].to == ctx)
            pairs[i] = pairs[--npairs];
        else
            i++;
}

int pcc_peer_reachable(PyObject *run, PyObject *mem)
{
    if (run == mem || run == NULL || mem == NULL || !PyObject_TypeCheck(run, pcc_st.Context) ||
        !PyObject_TypeCheck(mem, pcc_st.Context))
        return 1; /* nothing to judge by */
    PccContext *r = (PccContext *)run, *m = (PccContext *)mem;
    if (r->dev == m->dev || r->ctx == m->ctx)
        return 1;
    if (pair_known(r->ctx, m->ctx))
        return 1;
    if (r->released || m->released || pcc_drv.cuCtxEnablePeerAccess == NULL)
        return 0;
    /* not enabled by pycudac: ask the driver */
    pcc_ctx_guard g;
    if (pcc_ctx_enter(run, &g) < 0)
        return 0;
    CUresult rc = pcc_drv.cuCtxEnablePeerAccess(m->ctx, 0);
    if (rc == CUDA_SUCCESS && pcc_drv.cuCtxDisablePeerAccess != NULL)
        pcc_drv.cuCtxDisablePeerAccess(m->ctx); /* it was not: leave it so */
    pcc_ctx_leave(&g);
    if (rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
        pair_add(r->ctx, m->ctx);
        return 1;
    }
    return 0;
}

/* ---- Context.enable_peer_access / disable_peer_access ---------------------- */

static int need(void *entry, const char *name)
{
    if (entry != NULL)
        return 0;
    PyErr_Format(pcc_st.LogicError, "%s: this driver has no peer access", name);
    return -1;
}

/* The current Context (new reference) and `peer` checked as a live Context. */
static PyObject *current_and_peer(PyObject *peer, const char *what)
{
    if (!PyObject_TypeCheck(peer, pcc_st.Context)) {
        PyErr_Format(PyExc_TypeError, "%s(peer): peer must be a Context, not %.100s", what,
                     Py_TYPE(peer)->tp_name);
        return NULL;
    }
    if (((PccContext *)peer)->released) {
        PyErr_Format(pcc_st.LogicError, "%s(peer): the peer context was detached", what);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    return pcc_context_current();
}

static PyObject *context_enable_peer_access(PyObject *cls, PyObject *args, PyObject *kwds)
{
    (void)cls;
    static char *kwlist[] = {"peer", "flags", NULL};
    PyObject *peer;
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&:enable_peer_access", kwlist, &peer,
                                     pcc_flags_arg, &flags))
        return NULL;
    if (flags != 0) {
        PyErr_Format(PyExc_ValueError,
                     "enable_peer_access(flags): flags must be 0 (the driver defines no other "
                     "value), got %u", flags);
        return NULL;
    }
    PyObject *cur = current_and_peer(peer, "enable_peer_access");
    if (cur == NULL)
        return NULL;
    PccContext *c = (PccContext *)cur, *p = (PccContext *)peer;
    CUresult rc = CUDA_ERROR_INVALID_CONTEXT;
    if (need(pcc_drv.cuCtxEnablePeerAccess, "enable_peer_access") < 0)
        goto fail;
    if (c == p) {
        PyErr_SetString(PyExc_ValueError, "enable_peer_access(peer): peer is the current "
                        "context; a context always reaches its own memory");
        goto fail;
    }
    rc = pcc_drv.cuCtxEnablePeerAccess(p->ctx, 0);
    if (rc == CUDA_SUCCESS || rc == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        pair_add(c->ctx, p->ctx);
    if (rc != CUDA_SUCCESS) {
        char detail[200];
        snprintf(detail, sizeof detail,
                 rc == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
                     ? "device %d cannot reach the memory of device %d "
                       "(Device(%d).can_access_peer(Device(%d)) is False)"
                     : "from the current context (device %d) to the peer's (device %d)",
                 (int)c->dev, (int)p->dev, (int)c->dev, (int)p->dev);
        pcc_raise_detail(rc, "cuCtxEnablePeerAccess", detail);
        goto fail;
    }
    Py_DECREF(cur);
    Py_RETURN_NONE;
fail:
    Py_DECREF(cur);
    return NULL;
}

static PyObject *context_disable_peer_access(PyObject *cls, PyObject *peer)
{
    (void)cls;
    PyObject *cur = current_and_peer(peer, "disable_peer_access");
    if (cur == NULL)
        return NULL;
    PccContext *c = (PccContext *)cur, *p = (PccContext *)peer;
    PyObject *result = NULL;
    if (need(pcc_drv.cuCtxDisablePeerAccess, "disable_peer_access") == 0) {
        CUresult rc = pcc_drv.cuCtxDisablePeerAccess(p->ctx);
        if (rc == CUDA_SUCCESS || rc == CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
            pair_remove(c->ctx, p->ctx);
        if (pcc_check(rc, "cuCtxDisablePeerAccess") == 0)
            result = Py_NewRef(Py_None);
    }
    Py_DECREF(cur);
    return result;
}

/* ---- memcpy_peer, memcpy_peer_async ------------------------------------------ */

/* The context an address lives in: `given` (a Context), the allocation's,
 * or the current one. New reference. */
static PyObject *context_for(PyObject *given, PyObject *devobj, const char *what)
{
    if (given != NULL && given != Py_None) {
        if (!PyObject_TypeCheck(given, pcc_st.Context)) {
            PyErr_Format(PyExc_TypeError, "%s must be a Context or None, not %.100s", what,
                         Py_TYPE(given)->tp_name);
            return NULL;
        }
        return Py_NewRef(given);
    }
    if (pcc_is_device_allocation(devobj) && ((PccDeviceAllocation *)devobj)->context)
        return Py_NewRef(((PccDeviceAllocation *)devobj)->context);
    return pcc_context_current();
}

static int too_small(const char *what, size_t need_bytes, size_t avail)
{
    PyErr_Format(PyExc_ValueError,
                 "%s: the copy is %zu bytes but the device memory there holds only %zu bytes",
                 what, need_bytes, avail);
    return -1;
}

static PyObject *copy_peer(PyObject *args, PyObject *kwds, int is_async)
{
    static char *kwlist[] = {"dest", "src", "size", "dest_context", "src_context", "stream",
                             NULL};
    static char *kwlist_sync[] = {"dest", "src", "size", "dest_context", "src_context", NULL};
    const char *fname = is_async ? "memcpy_peer_async" : "memcpy_peer";
    PyObject *dest, *src, *sizeobj, *dc = Py_None, *sc = Py_None, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds,
                                     is_async ? "OOO|OOO:memcpy_peer_async" : "OOO|OO:memcpy_peer",
                                     is_async ? kwlist : kwlist_sync, &dest, &src, &sizeobj,
                                     &dc, &sc, &stream))
        return NULL;
    char wd[40], ws[40], wn[48];
    snprintf(wd, sizeof wd, "%s(dest)", fname);
    snprintf(ws, sizeof ws, "%s(src)", fname);
    snprintf(wn, sizeof wn, "%s(size): size", fname);
    CUdeviceptr dst, srcp;
    size_t dst_avail, src_avail, n;
    CUstream s = NULL;
    if (pcc_devptr_arg(dest, &dst, &dst_avail, wd) < 0 ||
        pcc_devptr_arg(src, &srcp, &src_avail, ws) < 0 || pcc_size_arg(sizeobj, &n, wn) < 0)
        return NULL;
    if (is_async && pcc_stream_arg(stream, &s, "memcpy_peer_async(stream)") < 0)
        return NULL;
    if (dst_avail != (size_t)-1 && n > dst_avail)
        return too_small(wd, n, dst_avail), NULL;
    if (src_avail != (size_t)-1 && n > src_avail)
        return too_small(ws, n, src_avail), NULL;
    if (pcc_ready() < 0)
        return NULL;
    if (is_async && need(pcc_drv.cuMemcpyPeerAsync, "memcpy_peer_async") < 0)
        return NULL;
    PyObject *dctx = context_for(dc, dest, "memcpy_peer(dest_context)");
    if (dctx == NULL)
        return NULL;
    PyObject *sctx = context_for(sc, src, "memcpy_peer(src_context)");
    if (sctx == NULL) {
        Py_DECREF(dctx);
        return NULL;
    }
    PyObject *result = NULL;
    pcc_ctx_guard g = {NULL, 0};
    if (((PccContext *)dctx)->released || ((PccContext *)sctx)->released) {
        PyErr_Format(pcc_st.LogicError, "%s: a context was detached", fname);
        goto done;
    }
    /* the stream's context (a copy is queued in it), else the destination's */
    PyObject *enter = is_async && stream != Py_None && PyObject_TypeCheck(stream, pcc_st.Stream)
                          ? ((PccStream *)stream)->context
                          : dctx;
    if (pcc_ctx_enter(enter, &g) < 0 && pcc_context_ensure() < 0)
        goto done;
    if (n > 0) {
        CUresult rc;
        CUcontext dcu = ((PccContext *)dctx)->ctx, scu = ((PccContext *)sctx)->ctx;
        Py_BEGIN_ALLOW_THREADS
        rc = is_async ? pcc_drv.cuMemcpyPeerAsync(dst, dcu, srcp, scu, n, s)
                      : pcc_drv.cuMemcpyPeer(dst, dcu, srcp, scu, n);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, is_async ? "cuMemcpyPeerAsync" : "cuMemcpyPeer") < 0)
            goto done;
    }
    result = Py_NewRef(Py_None);
done:
    pcc_ctx_leave(&g);
    Py_DECREF(dctx);
    Py_DECREF(sctx);
    return result;
}

static PyObject *py_memcpy_peer(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    return copy_peer(args, kwds, 0);
}

static PyObject *py_memcpy_peer_async(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    return copy_peer(args, kwds, 1);
}

static PyMethodDef context_peer_methods[] = {
    {"enable_peer_access", (PyCFunction)(void (*)(void))context_enable_peer_access,
     METH_VARARGS | METH_KEYWORDS,
     "enable_peer_access(peer, flags=0): let kernels of the current context read and write "
     "the memory of Context `peer` (on another device)."},
    {"disable_peer_access", (PyCFunction)context_disable_peer_access, METH_O,
     "disable_peer_access(peer): undo enable_peer_access(peer) for the current context."},
    {NULL, NULL, 0, NULL}};

static PyMethodDef peer_functions[] = {
    {"memcpy_peer", (PyCFunction)(void (*)(void))py_memcpy_peer, METH_VARARGS | METH_KEYWORDS,
     "memcpy_peer(dest, src, size, dest_context=None, src_context=None): copy between "
     "devices (each side's context: given, its allocation's, or the current one)."},
    {"memcpy_peer_async", (PyCFunction)(void (*)(void))py_memcpy_peer_async,
     METH_VARARGS | METH_KEYWORDS,
     "memcpy_peer_async(dest, src, size, dest_context=None, src_context=None, stream=None): "
     "memcpy_peer queued on `stream`."},
    {NULL, NULL, 0, NULL}};

/* Adds `defs` to `type` as static methods. */
int pcc_type_add_static_methods(PyTypeObject *type, PyMethodDef *defs)
{
    for (PyMethodDef *d = defs; d->ml_name != NULL; d++) {
        PyObject *f = PyCFunction_NewEx(d, NULL, NULL);
        PyObject *sm = f ? PyStaticMethod_New(f) : NULL;
        Py_XDECREF(f);
        if (sm == NULL)
            return -1;
        int rc = PyObject_SetAttrString((PyObject *)type, d->ml_name, sm);
        Py_DECREF(sm);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int pcc_peer_init(PyObject *module)
{
    if (pcc_type_add_static_methods(pcc_st.Context, context_peer_methods) < 0)
        return -1;
    return PyModule_AddFunctions(module, peer_functions);
}
