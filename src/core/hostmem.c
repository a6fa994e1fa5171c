/*
 * core/hostmem.c — page-locked host memory: HostAllocation owns one
 * cuMemHostAlloc block or one cuMemHostRegister registration, and exports
 * it through the buffer protocol so driver.pagelocked_empty and
 * driver.register_host_memory can hand out NumPy arrays whose .base it is.
 */
#include <string.h>

#include "driver/loader.h"
#include "core/context.h"
#include "core/capture.h"
#include "core/memory.h"
#include "structmember.h"

#define PCC_MEMHOSTREGISTER_READ_ONLY 0x08

/* pcc_deferred's release: kind 1 a registration (its view released after). */
static void release_deferred(pcc_deferred *d)
{
    CUresult rc = CUDA_SUCCESS;
    PCC_FREE_IN_CONTEXT(d->context, rc,
                        d->kind ? pcc_drv.cuMemHostUnregister(d->ptr) : pcc_drv.cuMemFreeHost(d->ptr));
    if (rc != CUDA_SUCCESS)
        pcc_note_failed_free(rc, d->kind ? "cuMemHostUnregister" : "cuMemFreeHost");
    if (d->view.obj != NULL)
        PyBuffer_Release(&d->view);
}

/* Frees now, in its own context. raise=0: silent (dealloc), and deferred
 * while a capture is in progress (pcc_capture_defer). */
static int host_release(PccHostAllocation *h, int raise)
{
    if (h->freed)
        return 0;
    h->freed = 1;
    int registered = h->registered_base != NULL;
    pcc_deferred *d = raise || h->ptr == NULL || h->context == NULL
                          ? NULL
                          : pcc_capture_defer(release_deferred, h->context);
    if (d != NULL) { /* the registration's view and base go with it */
        d->ptr = h->ptr;
        d->kind = registered;
        d->view = h->view;
        memset(&h->view, 0, sizeof h->view);
        d->keep = h->registered_base;
        h->registered_base = NULL;
        h->ptr = NULL;
        return 0;
    }
    CUresult rc = CUDA_SUCCESS;
    const char *call = registered ? "cuMemHostUnregister" : "cuMemFreeHost";
    if (h->ptr != NULL)
        PCC_FREE_IN_CONTEXT(h->context, rc,
                            registered ? pcc_drv.cuMemHostUnregister(h->ptr)
                                       : pcc_drv.cuMemFreeHost(h->ptr));
    if (rc != CUDA_SUCCESS && raise) {
        /* refused (e.g. during a stream capture): still allocated, and usable */
        h->freed = 0;
        return pcc_raise(rc, call);
    }
    if (registered) {
        if (h->view.obj != NULL)
            PyBuffer_Release(&h->view);
        Py_CLEAR(h->registered_base);
    }
    h->ptr = NULL;
    if (rc != CUDA_SUCCESS)
        pcc_note_failed_free(rc, call);
    return 0;
}

static void host_dealloc_release(PyObject *op)
{
    PccHostAllocation *h = (PccHostAllocation *)op;
    if (h->deferred)
        h->freed = 0; /* free() waited for the array: release now */
    host_release(h, 0);
    Py_CLEAR(h->array_wr);
    Py_CLEAR(h->registered_base);
}

static void host_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, host_dealloc_release);
}

static PccHostAllocation *host_object(void *ptr, size_t size, PyObject *context, int flags)
{
    PccHostAllocation *h = PyObject_New(PccHostAllocation, pcc_st.HostAllocation);
    if (h == NULL)
        return NULL;
    h->ptr = ptr;
    h->size = size;
    h->context = context;
    Py_XINCREF(context);
    h->registered_base = NULL;
    memset(&h->view, 0, sizeof h->view);
    h->flags = flags;
    h->freed = 0;
    h->deferred = 0;
    h->array_wr = NULL;
    h->weakreflist = NULL;
    return h;
}

static int host_getbuffer(PyObject *op, Py_buffer *view, int flags)
{
    PccHostAllocation *h = (PccHostAllocation *)op;
    if (h->freed) {
        PyErr_SetString(PyExc_BufferError, "the page-locked host memory was freed");
        return -1;
    }
    int readonly = h->registered_base != NULL && h->view.readonly;
    return PyBuffer_FillInfo(view, op, h->ptr, (Py_ssize_t)h->size, readonly, flags);
}

static PyObject *host_free(PccHostAllocation *self, PyObject *unused)
{
    (void)unused;
    if (self->freed)
        Py_RETURN_NONE;
    if (pcc_ready() < 0)
        return NULL;
    if (self->registered_base == NULL && pcc_array_alive(self->array_wr)) {
        self->freed = self->deferred = 1; /* released when the array is gone */
        Py_RETURN_NONE;
    }
    if (host_release(self, 1) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *host_track_array(PccHostAllocation *self, PyObject *array)
{
    return pcc_track_array(&self->array_wr, array);
}

static PyObject *host_get_device_pointer(PccHostAllocation *self, PyObject *unused)
{
    (void)unused;
    if (self->freed) {
        PyErr_SetString(PyExc_ValueError, "get_device_pointer: the host memory was freed");
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_enter(self->context, &g) < 0 && pcc_context_ensure() < 0)
        return NULL;
    CUdeviceptr d = 0;
    CUresult rc = pcc_drv.cuMemHostGetDevicePointer(&d, self->ptr, 0);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuMemHostGetDevicePointer") < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(d);
}

static PyObject *host_repr(PyObject *op)
{
    PccHostAllocation *h = (PccHostAllocation *)op;
    const char *kind = h->registered_base != NULL ? "registered" : "page-locked";
    if (h->freed)
        return PyUnicode_FromFormat("<pycudac.driver.HostAllocation %s, freed>", kind);
    return PyUnicode_FromFormat("<pycudac.driver.HostAllocation %s %p, %zu bytes>", kind,
                                h->ptr, h->size);
}

static PyObject *host_get_base(PccHostAllocation *self, void *closure)
{
    (void)closure;
    PyObject *b = self->registered_base ? self->registered_base : Py_None;
    Py_INCREF(b);
    return b;
}

static PyObject *host_get_ptr(PccHostAllocation *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(self->ptr);
}

static PyObject *host_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)type;
    (void)args;
    (void)kwds;
    PyErr_SetString(PyExc_TypeError, "HostAllocation cannot be created directly: use "
                                     "driver.pagelocked_empty() or "
                                     "driver.register_host_memory()");
    return NULL;
}

/* _host_alloc(bytes, flags=0) -> HostAllocation (cuMemHostAlloc). */
static PyObject *py_host_alloc(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    static char *kwlist[] = {"bytes", "mem_flags", NULL};
    PyObject *nobj;
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|i:pagelocked_empty", kwlist, &nobj, &flags))
        return NULL;
    size_t n;
    if (pcc_size_arg(nobj, &n, "pagelocked_empty: the size in bytes") < 0)
        return NULL;
    if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                            CU_MEMHOSTALLOC_WRITECOMBINED)) {
        PyErr_Format(PyExc_ValueError,
                     "pagelocked_empty(mem_flags): unknown bits in %u (use host_alloc_flags)",
                     flags);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    PyObject *ctx = pcc_context_current();
    if (ctx == NULL)
        return NULL;
    void *p = NULL;
    CUresult rc;
    size_t real = n ? n : 1; /* a valid address even for empty arrays */
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuMemHostAlloc(&p, real, flags);
    Py_END_ALLOW_THREADS
    if (pcc_check(rc, "cuMemHostAlloc") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccHostAllocation *h = host_object(p, n, ctx, (int)flags);
    Py_DECREF(ctx);
    if (h == NULL)
        pcc_drv.cuMemFreeHost(p);
    return (PyObject *)h;
}

/* _host_register(obj, flags=0) -> HostAllocation holding obj's buffer. */
static PyObject *py_host_register(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    static char *kwlist[] = {"ary", "flags", NULL};
    PyObject *obj;
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|i:register_host_memory", kwlist, &obj,
                                     &flags))
        return NULL;
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "register_host_memory(ary): ary must be a host buffer (numpy array), not "
                     "%.100s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_ANY_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        if (PyObject_GetBuffer(obj, &view, PyBUF_ANY_CONTIGUOUS) < 0) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError,
                            "register_host_memory(ary): ary must be contiguous");
            return NULL;
        }
        flags |= PCC_MEMHOSTREGISTER_READ_ONLY;
    }
    if (pcc_ready() < 0)
        goto fail;
    PyObject *ctx = pcc_context_current();
    if (ctx == NULL)
        goto fail;
    if (view.len > 0) {
        CUresult rc;
        Py_BEGIN_ALLOW_THREADS
        rc = pcc_drv.cuMemHostRegister(view.buf, (size_t)view.len, flags);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, "cuMemHostRegister") < 0) {
            Py_DECREF(ctx);
            goto fail;
        }
    }
    PccHostAllocation *h = host_object(view.len > 0 ? view.buf : NULL, (size_t)view.len, ctx,
                                       (int)flags);
    Py_DECREF(ctx);
    if (h == NULL) {
        if (view.len > 0)
            pcc_drv.cuMemHostUnregister(view.buf);
        goto fail;
    }
    h->view = view; /* held until unregistered */
    h->registered_base = obj;
    Py_INCREF(obj);
    if (view.len == 0)
        h->ptr = view.buf;
    return (PyObject *)h;
fail:
    PyBuffer_Release(&view);
    return NULL;
}

static PyMethodDef host_methods[] = {
    {"free", (PyCFunction)host_free, METH_NOARGS,
     "Free (or unregister) now; idempotent. Pinned memory under a live array of "
     "pagelocked_empty's is released when that array is gone."},
    {"_track_array", (PyCFunction)host_track_array, METH_O,
     "driver.py: the NumPy array over this pinned memory (free() waits for it)."},
    {"get_device_pointer", (PyCFunction)host_get_device_pointer, METH_NOARGS,
     "Device address of this memory (mapped/portable pinned memory)."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef host_members[] = {
    {"size", T_PYSSIZET, offsetof(PccHostAllocation, size), READONLY, "Size in bytes."},
    {"flags", T_INT, offsetof(PccHostAllocation, flags), READONLY, "Allocation flags."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccHostAllocation, weakreflist), READONLY,
     NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef host_getset[] = {
    {"base", (getter)host_get_base, NULL, "For a registration: the registered object.", NULL},
    {"ptr", (getter)host_get_ptr, NULL, "Host address.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot host_slots[] = {
    {Py_tp_doc, "Page-locked host memory (pinned or registered); exports the buffer protocol."},
    {Py_tp_new, host_new},
    {Py_tp_dealloc, host_dealloc},
    {Py_tp_methods, host_methods},
    {Py_tp_members, host_members},
    {Py_tp_getset, host_getset},
    {Py_tp_repr, host_repr},
    {Py_bf_getbuffer, host_getbuffer},
    {0, NULL}};

static PyType_Spec host_spec = {
    .name = "pycudac._driver.HostAllocation",
    .basicsize = sizeof(PccHostAllocation),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = host_slots,
};

static PyMethodDef hostmem_methods[] = {
    {"_host_alloc", (PyCFunction)(void (*)(void))py_host_alloc, METH_VARARGS | METH_KEYWORDS,
     "Page-locked host memory (driver.pagelocked_empty uses it)."},
    {"_host_register", (PyCFunction)(void (*)(void))py_host_register,
     METH_VARARGS | METH_KEYWORDS,
     "Page-lock an existing buffer (driver.register_host_memory uses it)."},
    {NULL, NULL, 0, NULL}};

int pcc_hostmem_init(PyObject *module)
{
    pcc_st.HostAllocation = (PyTypeObject *)PyType_FromSpec(&host_spec);
    if (pcc_st.HostAllocation == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "HostAllocation", (PyObject *)pcc_st.HostAllocation) < 0)
        return -1;
    return PyModule_AddFunctions(module, hostmem_methods);
}
