/*
 * core/pool.c — stream-ordered memory pools (cuMemPool*): the C base of
 * driver.DeviceMemoryResource (pycudac/driver.py adds the file-descriptor
 * handle objects). PyCUDA has no such pools; the names follow cuda.core's
 * DeviceMemoryResource (allocate / deallocate, ipc_enabled, max_size,
 * release_threshold and the reserved/used counters as attributes), and an
 * instance is an allocator, as CuPy's MemoryAsyncPool is: pool(nbytes)
 * is pool.allocate(nbytes), so `gpuarray.empty(n, allocator=pool)` works.
 *
 * An allocation is a DeviceAllocation freed with cuMemFreeAsync on the
 * stream it was allocated on (deallocate() may name another), when it dies
 * or at free(). A pool made with ipc_enabled=True exports a POSIX file
 * descriptor (_export_fd) that another process imports (_import_fd), and
 * its allocations' export data (get_ipc_descriptor), which the importer
 * turns into its own DeviceAllocation (import_ipc_descriptor).
 */
#include <string.h>
#include <unistd.h>

#include "driver/loader.h"
#include "core/context.h"
#include "core/memory.h"
#include "core/multi.h"
#include "core/stream.h"
#include "structmember.h"

typedef struct {
    PCC_HANDLE_HEAD
    CUmemoryPool pool;
    int device;
    int owned;    /* created or imported here: destroyed when the object dies */
    int ipc;      /* made with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR */
    int imported; /* from another process: allocates nothing, imports buffers */
    int shared;   /* exported to a handle at least once (what exporting a pointer needs) */
} PccMemoryPool;

/* The descriptor of a shared allocation: the driver's 64 bytes and the size. */
#define PCC_POOL_DESC_SIZE (64 + 8)

static int need(void *entry, const char *name)
{
    if (entry != NULL)
        return 0;
    PyErr_Format(pcc_st.LogicError, "%s: this driver has no stream-ordered memory pools "
                                    "(cuMemPool*, CUDA 11.2 and newer)", name);
    return -1;
}

/* A device argument: Device, ordinal, or None (the current context's). */
static int device_arg(PyObject *obj, int *dev, const char *what)
{
    if (obj == NULL || obj == Py_None) {
        CUdevice d;
        if (pcc_context_ensure() < 0 || pcc_check(pcc_drv.cuCtxGetDevice(&d), "cuCtxGetDevice") < 0)
            return -1;
        *dev = (int)d;
        return 0;
    }
    if (PyObject_TypeCheck(obj, pcc_st.Device)) {
        *dev = ((PccDevice *)obj)->dev;
        return 0;
    }
    if (PyBool_Check(obj) || !PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a Device, an ordinal or None, not %.100s",
                     what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred())
        return -1;
    int count = 0;
    if (pcc_check(pcc_drv.cuDeviceGetCount(&count), "cuDeviceGetCount") < 0)
        return -1;
    if (v < 0 || v >= count) {
        PyErr_Format(PyExc_ValueError, "%s: device %ld is out of range (0..%d)", what, v,
                     count - 1);
        return -1;
    }
    *dev = (int)v;
    return 0;
}

/* A new pool object for `pool` (the current context held). NULL: the caller
 * frees the pool. */
static PyObject *pool_object(PyTypeObject *type, CUmemoryPool pool, int dev, int owned,
                             int ipc, int imported)
{
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    PccMemoryPool *self = (PccMemoryPool *)pcc_handle_alloc(type, ctx);
    if (self == NULL)
        return NULL;
    self->pool = pool;
    self->device = dev;
    self->owned = owned;
    self->ipc = ipc;
    self->imported = imported;
    return (PyObject *)self;
}

static PyObject *pool_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"device", "ipc_enabled", "max_size", NULL};
    PyObject *devobj = Py_None, *maxobj = NULL;
    int ipc = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$pO:DeviceMemoryResource", kwlist, &devobj,
                                     &ipc, &maxobj))
        return NULL;
    size_t max_size = 0;
    if (maxobj != NULL &&
        pcc_size_arg(maxobj, &max_size, "DeviceMemoryResource(max_size): max_size") < 0)
        return NULL;
    int dev;
    if (pcc_ready() < 0 || need(pcc_drv.cuMemPoolCreate, "DeviceMemoryResource") < 0 ||
        device_arg(devobj, &dev, "DeviceMemoryResource(device)") < 0)
        return NULL;
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = ipc ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = dev;
    props.maxSize = max_size;
    CUmemoryPool pool = NULL;
    if (pcc_check(pcc_drv.cuMemPoolCreate(&pool, &props), "cuMemPoolCreate") < 0)
        return NULL;
    PyObject *self = pool_object(type, pool, dev, 1, ipc, 0);
    if (self == NULL)
        pcc_drv.cuMemPoolDestroy(pool);
    return self;
}

static void pool_release(PyObject *op)
{
    PccMemoryPool *self = (PccMemoryPool *)op;
    CUresult rc = CUDA_SUCCESS;
    /* the driver frees it once its last allocation is freed */
    if (self->owned && self->pool != NULL && pcc_drv.cuMemPoolDestroy != NULL)
        PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuMemPoolDestroy(self->pool));
    (void)rc;
    self->pool = NULL;
}

static void pool_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, pool_release);
}

/* The device's default pool (what mem_alloc_async allocates from). */
static PyObject *pool_default(PyObject *cls, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"device", NULL};
    PyObject *devobj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:default", kwlist, &devobj))
        return NULL;
    int dev;
    if (pcc_ready() < 0 || need(pcc_drv.cuDeviceGetDefaultMemPool, "default") < 0 ||
        device_arg(devobj, &dev, "DeviceMemoryResource.default(device)") < 0)
        return NULL;
    CUmemoryPool pool = NULL;
    if (pcc_check(pcc_drv.cuDeviceGetDefaultMemPool(&pool, dev), "cuDeviceGetDefaultMemPool") < 0)
        return NULL;
    return pool_object((PyTypeObject *)cls, pool, dev, 0, 0, 0);
}

static PyObject *pool_import_fd(PyObject *cls, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fd", "device", NULL};
    int fd;
    PyObject *devobj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|O:_import_fd", kwlist, &fd, &devobj))
        return NULL;
    if (fd < 0) {
        PyErr_Format(PyExc_ValueError, "from_allocation_handle(handle): %d is not a file "
                     "descriptor", fd);
        return NULL;
    }
    int dev;
    if (pcc_ready() < 0 ||
        need(pcc_drv.cuMemPoolImportFromShareableHandle, "from_allocation_handle") < 0 ||
        device_arg(devobj, &dev, "from_allocation_handle(device)") < 0)
        return NULL;
    CUmemoryPool pool = NULL;
    CUresult rc = pcc_drv.cuMemPoolImportFromShareableHandle(
        &pool, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (rc != CUDA_SUCCESS)
        return pcc_raise_detail(rc, "cuMemPoolImportFromShareableHandle",
                                "the descriptor is not one a memory pool exported "
                                "(get_allocation_handle of an ipc_enabled pool)"),
               NULL;
    PyObject *self = pool_object((PyTypeObject *)cls, pool, dev, 1, 1, 1);
    if (self == NULL)
        pcc_drv.cuMemPoolDestroy(pool);
    return self;
}

static int live(PccMemoryPool *self, const char *what)
{
    if (self->pool != NULL)
        return 0;
    PyErr_Format(pcc_st.LogicError, "%s: the pool was destroyed", what);
    return -1;
}

/* allocate(size, stream=None): fast, it is the allocator of GPUArrays. */
static PyObject *pool_allocate(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccMemoryPool *self = (PccMemoryPool *)op;
    static char *kwlist[] = {"size", "stream", NULL};
    PyObject *sizeobj, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:allocate", kwlist, &sizeobj, &stream))
        return NULL;
    size_t n;
    CUstream s = NULL;
    if (pcc_size_arg(sizeobj, &n, "allocate(size): size") < 0 ||
        pcc_stream_arg(stream, &s, "allocate(stream)") < 0 || live(self, "allocate") < 0)
        return NULL;
    if (self->imported) {
        PyErr_SetString(pcc_st.LogicError,
                        "allocate: a pool imported from another process makes no allocations; "
                        "open the exporter's with import_ipc_descriptor()");
        return NULL;
    }
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    CUdeviceptr p = 0;
    CUresult rc = n == 0 ? CUDA_SUCCESS : pcc_drv.cuMemAllocFromPoolAsync(&p, n, self->pool, s);
    PyObject *a = NULL;
    if (pcc_check(rc, "cuMemAllocFromPoolAsync") == 0) {
        a = pcc_device_allocation_new(pcc_st.DeviceAllocation, p, n, ctx, PCC_MEM_ASYNC, stream);
        if (a == NULL && p)
            pcc_drv.cuMemFreeAsync(p, s);
    }
    Py_DECREF(ctx);
    return a;
}

static PyObject *pool_call(PyObject *op, PyObject *args, PyObject *kwds)
{
    return pool_allocate(op, args, kwds);
}

static PyObject *pool_deallocate(PyObject *op, PyObject *args, PyObject *kwds)
{
    (void)op;
    static char *kwlist[] = {"buffer", "stream", NULL};
    PyObject *buf, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O:deallocate", kwlist, &buf, &stream))
        return NULL;
    CUstream s;
    if (pcc_stream_arg(stream, &s, "deallocate(stream)") < 0)
        return NULL;
    if (!pcc_is_device_allocation(buf) || ((PccDeviceAllocation *)buf)->kind != PCC_MEM_ASYNC) {
        PyErr_Format(PyExc_TypeError, "deallocate(buffer): buffer must be an allocation of a "
                     "DeviceMemoryResource, not %.100s", Py_TYPE(buf)->tp_name);
        return NULL;
    }
    PccDeviceAllocation *a = (PccDeviceAllocation *)buf;
    Py_XSETREF(a->stream, Py_NewRef(stream)); /* freed in that stream's order */
    return PyObject_CallMethod(buf, "free", NULL);
}

static int attr_get(PccMemoryPool *self, int attr, unsigned long long *v)
{
    if (live(self, "DeviceMemoryResource") < 0 ||
        need(pcc_drv.cuMemPoolGetAttribute, "DeviceMemoryResource attributes") < 0)
        return -1;
    return pcc_check(pcc_drv.cuMemPoolGetAttribute(self->pool, attr, v), "cuMemPoolGetAttribute");
}

static PyObject *pool_counter(PyObject *op, void *closure)
{
    unsigned long long v = 0;
    if (attr_get((PccMemoryPool *)op, (int)(intptr_t)closure, &v) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(v);
}

static int pool_set_threshold(PyObject *op, PyObject *value, void *closure)
{
    (void)closure;
    PccMemoryPool *self = (PccMemoryPool *)op;
    size_t v;
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "release_threshold cannot be deleted");
        return -1;
    }
    if (pcc_size_arg(value, &v, "release_threshold") < 0 || live(self, "release_threshold") < 0)
        return -1;
    unsigned long long t = v;
    return pcc_check(pcc_drv.cuMemPoolSetAttribute(self->pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                                   &t),
                     "cuMemPoolSetAttribute(RELEASE_THRESHOLD)");
}

static PyObject *pool_trim(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccMemoryPool *self = (PccMemoryPool *)op;
    static char *kwlist[] = {"keep", NULL};
    PyObject *keepobj = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:trim", kwlist, &keepobj))
        return NULL;
    size_t keep = 0;
    if ((keepobj && pcc_size_arg(keepobj, &keep, "trim(keep): keep") < 0) ||
        live(self, "trim") < 0 || need(pcc_drv.cuMemPoolTrimTo, "trim") < 0)
        return NULL;
    if (pcc_check(pcc_drv.cuMemPoolTrimTo(self->pool, keep), "cuMemPoolTrimTo") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *pool_set_access(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccMemoryPool *self = (PccMemoryPool *)op;
    static char *kwlist[] = {"device", "readwrite", NULL};
    PyObject *devobj;
    int rw = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|p:set_access", kwlist, &devobj, &rw))
        return NULL;
    int dev;
    if (live(self, "set_access") < 0 || need(pcc_drv.cuMemPoolSetAccess, "set_access") < 0 ||
        device_arg(devobj, &dev, "set_access(device)") < 0)
        return NULL;
    CUmemAccessDesc d = {{CU_MEM_LOCATION_TYPE_DEVICE, dev},
                         rw ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE};
    if (pcc_check(pcc_drv.cuMemPoolSetAccess(self->pool, &d, 1), "cuMemPoolSetAccess") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *pool_export_fd(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccMemoryPool *self = (PccMemoryPool *)op;
    if (live(self, "get_allocation_handle") < 0 ||
        need(pcc_drv.cuMemPoolExportToShareableHandle, "get_allocation_handle") < 0)
        return NULL;
    if (!self->ipc || self->imported) {
        PyErr_SetString(pcc_st.LogicError,
                        self->imported ? "get_allocation_handle: an imported pool cannot be "
                                         "exported again"
                                       : "get_allocation_handle: the pool was not made for "
                                         "sharing: create it with "
                                         "DeviceMemoryResource(ipc_enabled=True)");
        return NULL;
    }
    int fd = -1;
    if (pcc_check(pcc_drv.cuMemPoolExportToShareableHandle(
                      &fd, self->pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                  "cuMemPoolExportToShareableHandle") < 0)
        return NULL;
    self->shared = 1;
    return PyLong_FromLong(fd);
}

/* The driver exports a pointer only from a pool already shared (exported to
 * a handle once): get_ipc_descriptor before get_allocation_handle was
 * CUDA_ERROR_INVALID_VALUE on the H100. This exports the pool once, and
 * closes that handle. 0, or -1 with the exception set. */
static int ensure_shared(PccMemoryPool *self)
{
    if (self->shared)
        return 0;
    if (!self->ipc || self->imported) {
        PyErr_SetString(pcc_st.LogicError,
                        self->imported ? "get_ipc_descriptor: an imported pool's allocations "
                                         "are the exporting process's to share"
                                       : "get_ipc_descriptor: only allocations of a pool made "
                                         "with DeviceMemoryResource(ipc_enabled=True) can be "
                                         "shared");
        return -1;
    }
    if (need(pcc_drv.cuMemPoolExportToShareableHandle, "get_ipc_descriptor") < 0)
        return -1;
    int fd = -1;
    if (pcc_check(pcc_drv.cuMemPoolExportToShareableHandle(
                      &fd, self->pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                  "cuMemPoolExportToShareableHandle") < 0)
        return -1;
    close(fd);
    self->shared = 1;
    return 0;
}

static PyObject *pool_get_ipc_descriptor(PyObject *op, PyObject *buf)
{
    PccMemoryPool *self = (PccMemoryPool *)op;
    if (!pcc_is_device_allocation(buf) || ((PccDeviceAllocation *)buf)->kind != PCC_MEM_ASYNC) {
        PyErr_Format(PyExc_TypeError, "get_ipc_descriptor(buffer): buffer must be an allocation "
                     "of this pool, not %.100s", Py_TYPE(buf)->tp_name);
        return NULL;
    }
    PccDeviceAllocation *a = (PccDeviceAllocation *)buf;
    if (a->freed) {
        PyErr_SetString(PyExc_ValueError, "get_ipc_descriptor(buffer): the buffer was freed");
        return NULL;
    }
    if (live(self, "get_ipc_descriptor") < 0 ||
        need(pcc_drv.cuMemPoolExportPointer, "get_ipc_descriptor") < 0 || ensure_shared(self) < 0)
        return NULL;
    CUmemPoolPtrExportData d;
    CUresult rc = pcc_drv.cuMemPoolExportPointer(&d, a->ptr);
    if (rc != CUDA_SUCCESS)
        return pcc_raise_detail(rc, "cuMemPoolExportPointer",
                                "only allocations of a pool made with ipc_enabled=True can be "
                                "shared"), NULL;
    unsigned char out[PCC_POOL_DESC_SIZE];
    memcpy(out, d.reserved, 64);
    unsigned long long n = a->size;
    for (int k = 0; k < 8; k++)
        out[64 + k] = (unsigned char)(n >> (8 * k));
    return PyBytes_FromStringAndSize((const char *)out, PCC_POOL_DESC_SIZE);
}

static PyObject *pool_import_ipc_descriptor(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccMemoryPool *self = (PccMemoryPool *)op;
    static char *kwlist[] = {"descriptor", "stream", NULL};
    Py_buffer view;
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*|O:import_ipc_descriptor", kwlist, &view,
                                     &stream))
        return NULL;
    CUmemPoolPtrExportData d;
    unsigned long long n = 0;
    int ok = view.len == PCC_POOL_DESC_SIZE;
    if (ok) {
        memcpy(d.reserved, view.buf, 64);
        for (int k = 0; k < 8; k++)
            n |= (unsigned long long)((unsigned char *)view.buf)[64 + k] << (8 * k);
    }
    Py_ssize_t len = view.len;
    PyBuffer_Release(&view);
    if (!ok) {
        PyErr_Format(PyExc_ValueError, "import_ipc_descriptor(descriptor): a descriptor is %d "
                     "bytes (what get_ipc_descriptor gives), got %zd", PCC_POOL_DESC_SIZE, len);
        return NULL;
    }
    CUstream s;
    if (pcc_stream_arg(stream, &s, "import_ipc_descriptor(stream)") < 0 ||
        live(self, "import_ipc_descriptor") < 0 ||
        need(pcc_drv.cuMemPoolImportPointer, "import_ipc_descriptor") < 0)
        return NULL;
    if (!self->imported) {
        PyErr_SetString(pcc_st.LogicError,
                        "import_ipc_descriptor: this pool was not imported from another "
                        "process (DeviceMemoryResource.from_allocation_handle)");
        return NULL;
    }
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    CUdeviceptr p = 0;
    CUresult rc = pcc_drv.cuMemPoolImportPointer(&p, self->pool, &d);
    PyObject *a = NULL;
    if (rc != CUDA_SUCCESS) {
        pcc_raise_detail(rc, "cuMemPoolImportPointer",
                         "the descriptor is not one of this pool's allocations (garbage, "
                         "or another pool's)");
    } else {
        a = pcc_device_allocation_new(pcc_st.DeviceAllocation, p, (size_t)n, ctx, PCC_MEM_ASYNC,
                                      stream);
        if (a == NULL)
            pcc_drv.cuMemFreeAsync(p, s);
    }
    Py_DECREF(ctx);
    return a;
}

static PyObject *pool_is_ipc(PyObject *op, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((PccMemoryPool *)op)->ipc);
}

static PyObject *pool_is_imported(PyObject *op, void *closure)
{
    (void)closure;
    return PyBool_FromLong(((PccMemoryPool *)op)->imported);
}

static PyObject *pool_handle(PyObject *op, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PccMemoryPool *)op)->pool);
}

static PyObject *pool_repr(PyObject *op)
{
    PccMemoryPool *self = (PccMemoryPool *)op;
    const char *name = strrchr(Py_TYPE(op)->tp_name, '.');
    name = name ? name + 1 : Py_TYPE(op)->tp_name;
    return PyUnicode_FromFormat("<pycudac.driver.%s device=%d%s%s%s>", name,
                                self->device, self->ipc ? " ipc_enabled" : "",
                                self->imported ? " imported" : "",
                                self->owned ? "" : " (the device's default pool)");
}

static PyMethodDef pool_methods[] = {
    {"allocate", (PyCFunction)(void (*)(void))pool_allocate, METH_VARARGS | METH_KEYWORDS,
     "allocate(size, stream=None) -> DeviceAllocation, stream-ordered: freed with "
     "cuMemFreeAsync on `stream` when it dies or at free()."},
    {"deallocate", (PyCFunction)(void (*)(void))pool_deallocate, METH_VARARGS | METH_KEYWORDS,
     "deallocate(buffer, stream=None): free an allocation now, ordered on `stream`."},
    {"trim", (PyCFunction)(void (*)(void))pool_trim, METH_VARARGS | METH_KEYWORDS,
     "trim(keep=0): give unused memory back to the device until at most `keep` bytes stay "
     "reserved (cuMemPoolTrimTo; CuPy's free_all_blocks)."},
    {"set_access", (PyCFunction)(void (*)(void))pool_set_access, METH_VARARGS | METH_KEYWORDS,
     "set_access(device, readwrite=True): let kernels on `device` reach this pool's memory "
     "(cuMemPoolSetAccess)."},
    {"get_ipc_descriptor", pool_get_ipc_descriptor, METH_O,
     "get_ipc_descriptor(buffer) -> bytes: what another process, holding this pool through "
     "from_allocation_handle, opens `buffer` by (import_ipc_descriptor)."},
    {"import_ipc_descriptor", (PyCFunction)(void (*)(void))pool_import_ipc_descriptor,
     METH_VARARGS | METH_KEYWORDS,
     "import_ipc_descriptor(descriptor, stream=None) -> DeviceAllocation of the exporting "
     "process's allocation; free it before the exporter frees its own."},
    {"_export_fd", pool_export_fd, METH_NOARGS,
     "A new POSIX file descriptor for the pool (the caller closes it)."},
    {"_import_fd", (PyCFunction)(void (*)(void))pool_import_fd,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "_import_fd(fd, device=None): the pool another process exported as `fd`."},
    {"default", (PyCFunction)(void (*)(void))pool_default,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "default(device=None): the device's default pool (what mem_alloc_async uses)."},
    {NULL, NULL, 0, NULL}};

#define COUNTER(name, attr, doc)                                                               \
    {name, pool_counter, NULL, doc, (void *)(intptr_t)(attr)}

static PyGetSetDef pool_getset[] = {
    {"release_threshold", pool_counter, pool_set_threshold,
     "Bytes of unused memory the pool keeps at a synchronization instead of giving them "
     "back (0 by default: all of it goes back).",
     (void *)(intptr_t)CU_MEMPOOL_ATTR_RELEASE_THRESHOLD},
    COUNTER("reserved_mem_current", CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
            "Bytes of device memory the pool holds now."),
    COUNTER("reserved_mem_high", CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
            "The most bytes it has held."),
    COUNTER("used_mem_current", CU_MEMPOOL_ATTR_USED_MEM_CURRENT,
            "Bytes of it allocated now."),
    COUNTER("used_mem_high", CU_MEMPOOL_ATTR_USED_MEM_HIGH, "The most bytes allocated."),
    {"is_ipc_enabled", pool_is_ipc, NULL, "True when made with ipc_enabled=True.", NULL},
    {"is_imported", pool_is_imported, NULL, "True when opened from another process.", NULL},
    {"handle", pool_handle, NULL, "The CUmemoryPool as an int.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef pool_members[] = {
    {"device", T_INT, offsetof(PccMemoryPool, device), READONLY, "The pool's device ordinal."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccMemoryPool, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot pool_slots[] = {
    {Py_tp_doc, "MemoryPool(device=None, *, ipc_enabled=False, max_size=0): a stream-ordered "
                "memory pool (cuMemPoolCreate); driver.DeviceMemoryResource is its public face."},
    {Py_tp_new, pool_new},
    {Py_tp_dealloc, pool_dealloc},
    {Py_tp_methods, pool_methods},
    {Py_tp_getset, pool_getset},
    {Py_tp_members, pool_members},
    {Py_tp_repr, pool_repr},
    {Py_tp_call, pool_call},
    {0, NULL}};

static PyType_Spec pool_spec = {
    .name = "pycudac._driver.MemoryPool",
    .basicsize = sizeof(PccMemoryPool),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = pool_slots,
};

int pcc_pool_init(PyObject *module)
{
    pcc_st.MemoryPool = (PyTypeObject *)PyType_FromSpec(&pool_spec);
    if (pcc_st.MemoryPool == NULL)
        return -1;
    return PyModule_AddObjectRef(module, "MemoryPool", (PyObject *)pcc_st.MemoryPool);
}
