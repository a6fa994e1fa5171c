/*
 * core/memory.c — device memory: DeviceAllocation (and its managed subtype,
 * which NumPy can read and write through the buffer protocol), mem_alloc,
 * mem_get_info, memset, managed allocation and prefetch, and the argument
 * helpers (sizes, device pointers) the copy functions share.
 *
 * Copies live in core/memcpy.c, pinned and registered host memory in core/hostmem.c.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "driver/loader.h"
#include "core/context.h"
#include "core/capture.h"
#include "core/convert.h"
#include "core/memory.h"
#include "core/stream.h"
#include "structmember.h"

static PyTypeObject *ManagedAllocation_Type;

/* Allocations this large are made with the GIL released. */
#define PCC_BIG_ALLOC ((size_t)1 << 20)

/* ---- DeviceAllocation ----------------------------------------------------- */

static PccDeviceAllocation *alloc_object(PyTypeObject *type, CUdeviceptr ptr, size_t size,
                                         PyObject *context, int kind)
{
    PccDeviceAllocation *a = PyObject_New(PccDeviceAllocation, type);
    if (a == NULL)
        return NULL;
    a->ptr = ptr;
    a->size = size;
    a->context = context;
    Py_XINCREF(context);
    a->stream = NULL;
    a->owner = NULL;
    a->kind = kind;
    a->freed = 0;
    a->deferred = 0;
    a->array_wr = NULL;
    a->weakreflist = NULL;
    return a;
}

PyObject *pcc_device_allocation_new(PyTypeObject *type, CUdeviceptr ptr, size_t size,
                                    PyObject *context, int kind, PyObject *stream)
{
    PccDeviceAllocation *a = alloc_object(type, ptr, size, context, kind);
    if (a != NULL && kind == PCC_MEM_ASYNC)
        a->stream = Py_NewRef(stream ? stream : Py_None);
    return (PyObject *)a;
}

PyObject *pcc_track_array(PyObject **slot, PyObject *array)
{
    PyObject *wr = PyWeakref_NewRef(array, NULL);
    if (wr == NULL)
        return NULL;
    Py_XSETREF(*slot, wr);
    Py_RETURN_NONE;
}

int pcc_array_alive(PyObject *slot)
{
    if (slot == NULL)
        return 0;
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *obj = NULL;
    int alive = PyWeakref_GetRef(slot, &obj) > 0;
    Py_XDECREF(obj);
    PyErr_Clear();
    return alive;
#else
    return PyWeakref_GetObject(slot) != Py_None;
#endif
}

PyObject *pcc_device_allocation_view(CUdeviceptr ptr, size_t size, PyObject *context,
                                     PyObject *owner)
{
    PyObject *ctx = context;
    if (ctx == NULL && (ctx = pcc_context_current()) == NULL)
        return NULL;
    else if (context != NULL)
        Py_INCREF(ctx);
    PccDeviceAllocation *a = alloc_object(pcc_st.DeviceAllocation, ptr, size, ctx,
                                          PCC_MEM_DEVICE);
    Py_DECREF(ctx);
    if (a == NULL)
        return NULL;
    a->owner = owner;
    Py_XINCREF(owner);
    if (owner == NULL) {
        a->owner = Py_None;
        Py_INCREF(Py_None);
    }
    return (PyObject *)a;
}

/* cuMemFree (or cuMemFreeAsync on `stream`) of `ptr` in `context`; the
 * driver's call into *call. CUDA_SUCCESS when the context was detached:
 * the memory went with it. */
static CUresult free_in_context(PyObject *context, PyObject *stream, CUdeviceptr ptr, int kind,
                                const char **call)
{
    pcc_ctx_guard g;
    *call = "cuMemFree";
    if (pcc_ctx_enter(context, &g) < 0)
        return CUDA_SUCCESS;
    CUresult rc;
    if (kind == PCC_MEM_ASYNC && pcc_drv.cuMemFreeAsync != NULL) {
        CUstream s = NULL;
        if (stream != NULL && stream != Py_None)
            s = ((PccStream *)stream)->stream;
        rc = pcc_drv.cuMemFreeAsync(ptr, s);
        *call = "cuMemFreeAsync";
    } else if (kind == PCC_MEM_IPC && pcc_drv.cuIpcCloseMemHandle != NULL) {
        rc = pcc_drv.cuIpcCloseMemHandle(ptr);
        *call = "cuIpcCloseMemHandle";
    } else {
        rc = pcc_drv.cuMemFree(ptr);
    }
    pcc_ctx_leave(&g);
    return rc;
}

/* pcc_deferred's release for device memory. */
static void release_deferred(pcc_deferred *d)
{
    const char *call = "cuMemFree";
    CUresult rc = pcc_skip_free() ? CUDA_SUCCESS
                                  : free_in_context(d->context, d->keep, d->dptr, d->kind, &call);
    if (rc != CUDA_SUCCESS)
        pcc_note_failed_free(rc, call);
}

/* Frees the memory now, in its own context. raise=0: silent (dealloc), and
 * deferred while a capture is in progress (pcc_capture_defer). */
static int alloc_release(PccDeviceAllocation *a, int raise)
{
    if (a->freed)
        return 0;
    a->freed = 1;
    if (a->owner != NULL || a->ptr == 0 || pcc_skip_free())
        return 0;
    pcc_deferred *d = raise ? NULL : pcc_capture_defer(release_deferred, a->context);
    if (d != NULL) {
        d->dptr = a->ptr;
        d->kind = a->kind;
        d->keep = Py_XNewRef(a->stream);
        return 0;
    }
    const char *call;
    CUresult rc = free_in_context(a->context, a->stream, a->ptr, a->kind, &call);
    if (rc != CUDA_SUCCESS && raise) {
        /* refused (e.g. during a stream capture): still allocated, and usable */
        a->freed = 0;
        return pcc_raise(rc, call);
    }
    if (rc != CUDA_SUCCESS)
        pcc_note_failed_free(rc, call);
    return 0;
}

static void alloc_dealloc_release(PyObject *op)
{
    PccDeviceAllocation *a = (PccDeviceAllocation *)op;
    if (a->deferred)
        a->freed = 0; /* free() waited for the array: release now */
    alloc_release(a, 0);
    Py_CLEAR(a->array_wr);
    Py_CLEAR(a->owner);
    Py_CLEAR(a->stream);
}

static void alloc_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, alloc_dealloc_release);
}

static PyObject *alloc_free(PccDeviceAllocation *self, PyObject *unused)
{
    (void)unused;
    if (self->freed)
        Py_RETURN_NONE;
    if (self->owner == NULL && self->ptr != 0 && pcc_ready() < 0)
        return NULL;
    if (pcc_array_alive(self->array_wr)) {
        self->freed = self->deferred = 1; /* released when the array is gone */
        Py_RETURN_NONE;
    }
    if (alloc_release(self, 1) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *alloc_int(PyObject *op)
{
    return PyLong_FromUnsignedLongLong(((PccDeviceAllocation *)op)->ptr);
}

static PyObject *alloc_repr(PyObject *op)
{
    PccDeviceAllocation *a = (PccDeviceAllocation *)op;
    const char *what = Py_IS_TYPE(op, ManagedAllocation_Type)    ? "ManagedAllocation"
                       : Py_IS_TYPE(op, pcc_st.IPCMemoryHandle) ? "IPCMemoryHandle"
                                                                : "DeviceAllocation";
    if (a->freed)
        return PyUnicode_FromFormat("<pycudac.driver.%s freed>", what);
    char addr[32];
    snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)a->ptr);
    return PyUnicode_FromFormat("<pycudac.driver.%s %s, %zu bytes>", what, addr, a->size);
}

static PyObject *alloc_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)type;
    (void)args;
    (void)kwds;
    PyErr_SetString(PyExc_TypeError, "DeviceAllocation cannot be created directly: use "
                                     "driver.mem_alloc(bytes)");
    return NULL;
}

static PyObject *alloc_get_context(PccDeviceAllocation *self, void *closure)
{
    (void)closure;
    PyObject *c = self->context ? self->context : Py_None;
    Py_INCREF(c);
    return c;
}

static PyObject *alloc_get_freed(PccDeviceAllocation *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->freed);
}

static PyObject *alloc_get_managed(PccDeviceAllocation *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(self->kind == PCC_MEM_MANAGED);
}

/* Managed memory is host-visible: export it as bytes. */
static int managed_getbuffer(PyObject *op, Py_buffer *view, int flags)
{
    PccDeviceAllocation *a = (PccDeviceAllocation *)op;
    if (a->freed) {
        PyErr_SetString(PyExc_BufferError, "the managed allocation was freed");
        return -1;
    }
    return PyBuffer_FillInfo(view, op, (void *)(uintptr_t)a->ptr, (Py_ssize_t)a->size, 0, flags);
}

static PyObject *alloc_track_array(PccDeviceAllocation *self, PyObject *array)
{
    return pcc_track_array(&self->array_wr, array);
}

static PyMethodDef alloc_methods[] = {
    {"free", (PyCFunction)alloc_free, METH_NOARGS,
     "Free the memory now (idempotent; otherwise freed when the object dies). Managed "
     "memory under a live array of managed_empty's is released when that array is gone."},
    {"_track_array", (PyCFunction)alloc_track_array, METH_O,
     "driver.py: the NumPy array over this managed memory (free() waits for it)."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef alloc_members[] = {
    {"size", T_PYSSIZET, offsetof(PccDeviceAllocation, size), READONLY, "Size in bytes."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccDeviceAllocation, weakreflist), READONLY,
     NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef alloc_getset[] = {
    {"context", (getter)alloc_get_context, NULL, "The Context the memory lives in.", NULL},
    {"freed", (getter)alloc_get_freed, NULL, "True once freed.", NULL},
    {"is_managed", (getter)alloc_get_managed, NULL, "True for managed memory.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot alloc_slots[] = {
    {Py_tp_doc, "Device memory owned by Python: int(a) is the address; freed in its "
                "context when the object dies or at .free()."},
    {Py_tp_new, alloc_new},
    {Py_tp_dealloc, alloc_dealloc},
    {Py_tp_methods, alloc_methods},
    {Py_tp_members, alloc_members},
    {Py_tp_getset, alloc_getset},
    {Py_tp_repr, alloc_repr},
    {Py_nb_int, alloc_int},
    {Py_nb_index, alloc_int},
    {0, NULL}};

static PyType_Spec alloc_spec = {
    .name = "pycudac._driver.DeviceAllocation",
    .basicsize = sizeof(PccDeviceAllocation),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = alloc_slots,
};

/* ManagedAllocation.attach(mem_flags, stream=None), as PyCUDA has it: which
 * streams may use the memory from the point `stream` reaches
 * (cuStreamAttachMemAsync over the whole allocation): GLOBAL any, HOST
 * none but the host's (on GPUs without concurrent managed access), SINGLE
 * `stream` alone. */
static PyObject *managed_attach(PyObject *op, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"mem_flags", "stream", NULL};
    PyObject *flags_obj, *stream_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:attach", kwlist, &flags_obj, &stream_obj))
        return NULL;
    int flags;
    CUstream stream;
    CUdeviceptr p;
    size_t avail;
    if (pcc_enum_arg(flags_obj, "attach(mem_flags): mem_flags", "mem_attach_flags",
                     1u << CU_MEM_ATTACH_GLOBAL | 1u << CU_MEM_ATTACH_HOST |
                         1u << CU_MEM_ATTACH_SINGLE,
                     &flags) < 0 ||
        pcc_stream_arg(stream_obj, &stream, "attach(stream): stream") < 0 ||
        pcc_devptr_arg(op, &p, &avail, "attach") < 0)
        return NULL;
    if (flags == CU_MEM_ATTACH_SINGLE && stream == NULL) {
        PyErr_SetString(PyExc_ValueError, "attach(mem_flags=mem_attach_flags.SINGLE) needs a "
                                          "stream: the default stream stands for all of them");
        return NULL;
    }
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    if (pcc_check(pcc_drv.cuStreamAttachMemAsync(stream, p, 0, (unsigned int)flags),
                  "cuStreamAttachMemAsync") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef managed_methods[] = {
    {"attach", (PyCFunction)(void (*)(void))managed_attach, METH_VARARGS | METH_KEYWORDS,
     "attach(mem_flags, stream=None): which streams may use this memory once `stream` gets "
     "there, a driver.mem_attach_flags: GLOBAL (any), HOST (the host), SINGLE (`stream` "
     "alone; needs a stream). cuStreamAttachMemAsync."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot managed_slots[] = {
    {Py_tp_doc, "Managed (unified) memory: a DeviceAllocation NumPy can read and write."},
    {Py_bf_getbuffer, managed_getbuffer},
    {Py_tp_methods, managed_methods},
    {0, NULL}};

static PyType_Spec managed_spec = {
    .name = "pycudac._driver.ManagedAllocation",
    .basicsize = sizeof(PccDeviceAllocation),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = managed_slots,
};

/* ---- allocation ----------------------------------------------------------- */

PyObject *pcc_mem_alloc(size_t n)
{
    if (pcc_ready() < 0)
        return NULL;
    PyObject *ctx = pcc_context_current();
    if (ctx == NULL)
        return NULL;
    CUdeviceptr p = 0;
    CUresult rc = CUDA_SUCCESS;
    for (int attempt = 0; n > 0 && attempt < 2; attempt++) {
        if (n >= PCC_BIG_ALLOC) {
            Py_BEGIN_ALLOW_THREADS
            rc = pcc_drv.cuMemAlloc(&p, n);
            Py_END_ALLOW_THREADS
        } else {
            rc = pcc_drv.cuMemAlloc(&p, n);
        }
        if (rc != CUDA_ERROR_OUT_OF_MEMORY || attempt == 1)
            break;
        /* As PyCUDA: dead allocations may be waiting in reference cycles. */
        PyGC_Collect();
    }
    if (pcc_check(rc, "cuMemAlloc") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccDeviceAllocation *a = alloc_object(pcc_st.DeviceAllocation, p, n, ctx, PCC_MEM_DEVICE);
    Py_DECREF(ctx);
    if (a == NULL) {
        if (p)
            pcc_drv.cuMemFree(p);
        return NULL;
    }
    return (PyObject *)a;
}

static PyObject *py_mem_alloc(PyObject *mod, PyObject *arg)
{
    (void)mod;
    size_t n;
    if (pcc_size_arg(arg, &n, "mem_alloc(bytes): bytes") < 0)
        return NULL;
    return pcc_mem_alloc(n);
}

/* mem_alloc_async(bytes, stream=None): stream-ordered allocation from the
 * device's pool (cuMemAllocAsync); freed with cuMemFreeAsync on the same
 * stream. Drivers without memory pools get a plain cuMemAlloc. */
static PyObject *py_mem_alloc_async(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    static char *kwlist[] = {"bytes", "stream", NULL};
    PyObject *nobj, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:mem_alloc_async", kwlist, &nobj, &stream))
        return NULL;
    size_t n;
    CUstream s = NULL;
    if (pcc_size_arg(nobj, &n, "mem_alloc_async(bytes): bytes") < 0 ||
        pcc_stream_arg(stream, &s, "mem_alloc_async(stream)") < 0)
        return NULL;
    if (pcc_ready() < 0)
        return NULL;
    PyObject *ctx = pcc_context_current();
    if (ctx == NULL)
        return NULL;
    CUdeviceptr p = 0;
    CUresult rc = CUDA_SUCCESS;
    int kind = PCC_MEM_DEVICE;
    if (n > 0) {
        if (pcc_drv.cuMemAllocAsync != NULL) {
            rc = pcc_drv.cuMemAllocAsync(&p, n, s);
            kind = PCC_MEM_ASYNC;
        }
        if (pcc_drv.cuMemAllocAsync == NULL || rc == CUDA_ERROR_NOT_SUPPORTED) {
            rc = pcc_drv.cuMemAlloc(&p, n);
            kind = PCC_MEM_DEVICE;
        }
    }
    if (pcc_check(rc, kind == PCC_MEM_ASYNC ? "cuMemAllocAsync" : "cuMemAlloc") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccDeviceAllocation *a = alloc_object(pcc_st.DeviceAllocation, p, n, ctx, kind);
    Py_DECREF(ctx);
    if (a == NULL) {
        if (p)
            pcc_drv.cuMemFree(p);
        return NULL;
    }
    if (kind == PCC_MEM_ASYNC) {
        a->stream = stream;
        Py_INCREF(stream);
    }
    return (PyObject *)a;
}

static PyObject *py_managed_alloc(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    static char *kwlist[] = {"bytes", "mem_flags", NULL};
    PyObject *nobj;
    unsigned int flags = CU_MEM_ATTACH_GLOBAL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|i:managed_alloc", kwlist, &nobj, &flags))
        return NULL;
    size_t n;
    if (pcc_size_arg(nobj, &n, "managed_alloc(bytes): bytes") < 0)
        return NULL;
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) {
        PyErr_Format(PyExc_ValueError,
                     "managed_alloc(mem_flags): mem_flags must be mem_attach_flags.GLOBAL (1) "
                     "or mem_attach_flags.HOST (2), got %u",
                     flags);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    PyObject *ctx = pcc_context_current();
    if (ctx == NULL)
        return NULL;
    CUdeviceptr p = 0;
    CUresult rc;
    size_t real = n ? n : 1; /* keep a valid address for empty arrays */
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuMemAllocManaged(&p, real, flags);
    Py_END_ALLOW_THREADS
    if (pcc_check(rc, "cuMemAllocManaged") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccDeviceAllocation *a = alloc_object(ManagedAllocation_Type, p, n, ctx, PCC_MEM_MANAGED);
    Py_DECREF(ctx);
    if (a == NULL) {
        pcc_drv.cuMemFree(p);
        return NULL;
    }
    return (PyObject *)a;
}

static PyObject *py_mem_get_info(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    size_t free_b = 0, total = 0;
    if (pcc_check(pcc_drv.cuMemGetInfo(&free_b, &total), "cuMemGetInfo") < 0)
        return NULL;
    return Py_BuildValue("(nn)", (Py_ssize_t)free_b, (Py_ssize_t)total);
}

/* ---- memset --------------------------------------------------------------- */

size_t pcc_device_range(CUdeviceptr p)
{
    CUdeviceptr base = 0;
    size_t size = 0;
    if (pcc_drv.cuMemGetAddressRange != NULL &&
        pcc_drv.cuMemGetAddressRange(&base, &size, p) == CUDA_SUCCESS && p >= base &&
        p - base <= size)
        return (size_t)(base + size - p);
    return (size_t)-1;
}

/* What a memset entry point is called, as literals: no text is formatted
 * unless the call fails. */
typedef struct {
    const char *fname, *format, *dest, *count;
} memset_names;

static PyObject *do_memset(PyObject *args, PyObject *kwds, int width, int is_async,
                           const memset_names *nm)
{
    static char *kwlist[] = {"dest", "data", "count", "stream", NULL};
    static char *kwlist_sync[] = {"dest", "data", "count", NULL};
    const char *fname = nm->fname;
    PyObject *dest, *data, *countobj, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, nm->format, is_async ? kwlist : kwlist_sync,
                                     &dest, &data, &countobj, &stream))
        return NULL;
    CUdeviceptr p;
    size_t avail, count;
    if (pcc_devptr_arg(dest, &p, &avail, nm->dest) < 0 ||
        pcc_size_arg(countobj, &count, nm->count) < 0)
        return NULL;
    if (PyFloat_Check(data) || PyBool_Check(data) || !PyIndex_Check(data)) {
        PyErr_Format(PyExc_TypeError, "%s(data): data must be an int, not %.100s", fname,
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    long long v = PyLong_AsLongLong(data);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    long long hi = (1LL << (8 * width)) - 1, lo = -(1LL << (8 * width - 1));
    if (v > hi || v < lo) {
        PyErr_Format(PyExc_OverflowError, "%s(data): %lld does not fit in %d bits", fname, v,
                     8 * width);
        return NULL;
    }
    CUstream s = NULL;
    if (is_async && pcc_stream_arg(stream, &s, "stream") < 0)
        return NULL;
    if (count > ((size_t)-1) / (size_t)width) {
        PyErr_Format(PyExc_OverflowError, "%s(count): count is too large", fname);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    pcc_ctx_guard g = {NULL, 0};
    if (pcc_is_device_allocation(dest)) {
        if (pcc_ctx_enter(((PccDeviceAllocation *)dest)->context, &g) < 0 &&
            pcc_context_ensure() < 0)
            return NULL;
    } else if (pcc_context_ensure() < 0) {
        return NULL;
    }
    if (avail == (size_t)-1 && count > 0)
        avail = pcc_device_range(p);
    if (avail != (size_t)-1 && count * (size_t)width > avail) {
        pcc_ctx_leave(&g);
        PyErr_Format(PyExc_ValueError,
                     "%s: %zu elements of %d bytes (%zu bytes) do not fit in the %zu bytes of "
                     "device memory at dest",
                     fname, count, width, count * (size_t)width, avail);
        return NULL;
    }
    CUresult rc = CUDA_SUCCESS;
    const char *call = fname;
    if (count > 0) {
        Py_BEGIN_ALLOW_THREADS
        switch (width * 2 + is_async) {
        case 2:
            rc = pcc_drv.cuMemsetD8(p, (unsigned char)v, count);
            break;
        case 3:
            rc = pcc_drv.cuMemsetD8Async(p, (unsigned char)v, count, s);
            break;
        case 4:
            rc = pcc_drv.cuMemsetD16(p, (unsigned short)v, count);
            break;
        case 5:
            rc = pcc_drv.cuMemsetD16Async(p, (unsigned short)v, count, s);
            break;
        case 8:
            rc = pcc_drv.cuMemsetD32(p, (unsigned int)v, count);
            break;
        default:
            rc = pcc_drv.cuMemsetD32Async(p, (unsigned int)v, count, s);
            break;
        }
        Py_END_ALLOW_THREADS
    }
    pcc_ctx_leave(&g);
    if (pcc_check(rc, call) < 0 || (is_async && pcc_capture_keep(stream, dest) < 0))
        return NULL;
    Py_RETURN_NONE;
}

#define PCC_MEMSET(name, width, async)                                                           \
    static PyObject *py_##name(PyObject *mod, PyObject *args, PyObject *kwds)                    \
    {                                                                                            \
        (void)mod;                                                                               \
        static const memset_names nm = {#name, (async) ? "OOO|O:" #name : "OOO:" #name,         \
                                        #name "(dest)", #name "(count): count"};                 \
        return do_memset(args, kwds, width, async, &nm);                                         \
    }
PCC_MEMSET(memset_d8, 1, 0)
PCC_MEMSET(memset_d16, 2, 0)
PCC_MEMSET(memset_d32, 4, 0)
PCC_MEMSET(memset_d8_async, 1, 1)
PCC_MEMSET(memset_d16_async, 2, 1)
PCC_MEMSET(memset_d32_async, 4, 1)

/* ---- prefetch ------------------------------------------------------------- */

static PyObject *py_prefetch(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    static char *kwlist[] = {"obj", "device", "stream", NULL};
    PyObject *obj, *target, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|O:prefetch", kwlist, &obj, &target,
                                     &stream))
        return NULL;
    CUdeviceptr p = 0;
    size_t n = 0;
    if (pcc_is_device_allocation(obj)) {
        PccDeviceAllocation *a = (PccDeviceAllocation *)obj;
        if (a->freed) {
            PyErr_SetString(PyExc_ValueError, "prefetch(obj): the allocation was freed");
            return NULL;
        }
        p = a->ptr;
        n = a->size;
    } else if (PyObject_CheckBuffer(obj)) {
        Py_buffer view;
        if (PyObject_GetBuffer(obj, &view, PyBUF_ANY_CONTIGUOUS) < 0) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "prefetch(obj): obj must be contiguous");
            return NULL;
        }
        p = (CUdeviceptr)(uintptr_t)view.buf;
        n = (size_t)view.len;
        PyBuffer_Release(&view);
    } else {
        PyErr_Format(PyExc_TypeError,
                     "prefetch(obj): obj must be a managed array or allocation, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    int to_host = 0, dev = 0;
    if (PyUnicode_Check(target)) {
        if (PyUnicode_CompareWithASCIIString(target, "host") != 0 &&
            PyUnicode_CompareWithASCIIString(target, "cpu") != 0) {
            PyErr_Format(PyExc_ValueError,
                         "prefetch(device): the string must be \"host\", got %R", target);
            return NULL;
        }
        to_host = 1;
    } else if (PyObject_TypeCheck(target, pcc_st.Device)) {
        dev = ((PccDevice *)target)->dev;
    } else if (PyLong_Check(target) && !PyBool_Check(target)) {
        dev = (int)PyLong_AsLong(target);
        if (dev == -1 && PyErr_Occurred())
            return NULL;
        if (dev < 0) {
            PyErr_Format(PyExc_ValueError, "prefetch(device): device ordinal must be >= 0");
            return NULL;
        }
    } else {
        PyErr_Format(PyExc_TypeError,
                     "prefetch(device): device must be a Device, an ordinal or \"host\", not "
                     "%.100s",
                     Py_TYPE(target)->tp_name);
        return NULL;
    }
    CUstream s = NULL;
    if (pcc_stream_arg(stream, &s, "prefetch(stream)") < 0)
        return NULL;
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    if (n == 0)
        Py_RETURN_NONE;
    CUresult rc;
    if (pcc_drv.cuMemPrefetchAsync_v2 != NULL) {
        CUmemLocation loc;
        loc.type = to_host ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
        loc.id = to_host ? 0 : dev;
        rc = pcc_drv.cuMemPrefetchAsync_v2(p, n, loc, 0, s);
        if (pcc_check(rc, "cuMemPrefetchAsync_v2") < 0)
            return NULL;
    } else if (pcc_drv.cuMemPrefetchAsync != NULL) {
        rc = pcc_drv.cuMemPrefetchAsync(p, n, to_host ? -1 /* CU_DEVICE_CPU */ : dev, s);
        if (pcc_check(rc, "cuMemPrefetchAsync") < 0)
            return NULL;
    } /* else: no prefetch in this driver; it is only a hint */
    Py_RETURN_NONE;
}

static PyMethodDef memory_methods[] = {
    {"mem_alloc", py_mem_alloc, METH_O,
     "mem_alloc(bytes) -> DeviceAllocation in the current context."},
    {"mem_alloc_async", (PyCFunction)(void (*)(void))py_mem_alloc_async,
     METH_VARARGS | METH_KEYWORDS,
     "mem_alloc_async(bytes, stream=None) -> DeviceAllocation, stream-ordered (freed on "
     "the same stream)."},
    {"_managed_alloc", (PyCFunction)(void (*)(void))py_managed_alloc,
     METH_VARARGS | METH_KEYWORDS, "Managed memory (driver.managed_empty uses it)."},
    {"mem_get_info", py_mem_get_info, METH_NOARGS, "(free, total) bytes of device memory."},
    {"memset_d8", (PyCFunction)(void (*)(void))py_memset_d8, METH_VARARGS | METH_KEYWORDS,
     "memset_d8(dest, data, count)"},
    {"memset_d16", (PyCFunction)(void (*)(void))py_memset_d16, METH_VARARGS | METH_KEYWORDS,
     "memset_d16(dest, data, count)"},
    {"memset_d32", (PyCFunction)(void (*)(void))py_memset_d32, METH_VARARGS | METH_KEYWORDS,
     "memset_d32(dest, data, count)"},
    {"memset_d8_async", (PyCFunction)(void (*)(void))py_memset_d8_async,
     METH_VARARGS | METH_KEYWORDS, "memset_d8_async(dest, data, count, stream=None)"},
    {"memset_d16_async", (PyCFunction)(void (*)(void))py_memset_d16_async,
     METH_VARARGS | METH_KEYWORDS, "memset_d16_async(dest, data, count, stream=None)"},
    {"memset_d32_async", (PyCFunction)(void (*)(void))py_memset_d32_async,
     METH_VARARGS | METH_KEYWORDS, "memset_d32_async(dest, data, count, stream=None)"},
    {"prefetch", (PyCFunction)(void (*)(void))py_prefetch, METH_VARARGS | METH_KEYWORDS,
     "prefetch(managed_array_or_alloc, device_or_\"host\", stream=None)"},
    {NULL, NULL, 0, NULL}};

int pcc_memory_init(PyObject *module)
{
    pcc_st.DeviceAllocation = (PyTypeObject *)PyType_FromSpec(&alloc_spec);
    if (pcc_st.DeviceAllocation == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "DeviceAllocation", (PyObject *)pcc_st.DeviceAllocation) <
        0)
        return -1;
    ManagedAllocation_Type = (PyTypeObject *)PyType_FromSpecWithBases(
        &managed_spec, (PyObject *)pcc_st.DeviceAllocation);
    if (ManagedAllocation_Type == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "ManagedAllocation", (PyObject *)ManagedAllocation_Type) <
        0)
        return -1;
    if (PyModule_AddFunctions(module, memory_methods) < 0)
        return -1;
    if (pcc_hostmem_init(module) < 0 || pcc_memcpy_init(module) < 0)
        return -1;
    return 0;
}
