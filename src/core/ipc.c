/*
 * core/ipc.c — device memory and events shared with other processes, with
 * PyCUDA's names: mem_get_ipc_handle(devptr) gives an allocation's handle,
 * IPCMemoryHandle(handle) opens one made by another process (a
 * DeviceAllocation that closes it when it dies, or at close()),
 * Event.ipc_handle() and Event.from_ipc_handle(handle) do the same for an
 * event made with event_flags.INTERPROCESS | DISABLE_TIMING.
 *
 * A handle is 64 bytes (a bytearray, as PyCUDA gives it; bytes work too):
 * it pickles, so it crosses a multiprocessing pipe. What cannot be opened
 * is a clear error, never a crash: bytes of the wrong size or type are
 * refused here; a handle this process made is refused before the driver
 * sees it (the process keeps a set of what it exported); the driver's own
 * refusals (garbage, a freed allocation, a process that has exited) are
 * raised with their code and what it means.
 */
#include <string.h>

#include "driver/loader.h"
#include "core/context.h"
#include "core/memory.h"
#include "core/multi.h"
#include "core/stream.h"

static PyObject *exported_mem;    /* set of bytes: memory handles made here */
static PyObject *exported_events; /* set of bytes: event handles made here */

/* The 64 bytes of a handle argument into out. 0, or -1 with a TypeError
 * (not bytes-like) or ValueError (not 64 bytes) naming `what`. */
static int handle_arg(PyObject *obj, char out[PCC_IPC_HANDLE_SIZE], const char *what)
{
    Py_buffer view;
    if (PyUnicode_Check(obj) || PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "%s: the handle must be bytes or a bytearray (what %s gave), not %.100s",
                     what, strstr(what, "Event") ? "Event.ipc_handle()" : "mem_get_ipc_handle()",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    Py_ssize_t n = view.len;
    if (n == PCC_IPC_HANDLE_SIZE)
        memcpy(out, view.buf, PCC_IPC_HANDLE_SIZE);
    PyBuffer_Release(&view);
    if (n != PCC_IPC_HANDLE_SIZE) {
        PyErr_Format(PyExc_ValueError, "%s: an IPC handle is %d bytes, got %zd", what,
                     PCC_IPC_HANDLE_SIZE, n);
        return -1;
    }
    return 0;
}

/* 1 when `set` holds these bytes, 0, -1 with an exception. */
static int made_here(PyObject *set, const char h[PCC_IPC_HANDLE_SIZE])
{
    PyObject *b = PyBytes_FromStringAndSize(h, PCC_IPC_HANDLE_SIZE);
    if (b == NULL)
        return -1;
    int r = PySet_Contains(set, b);
    Py_DECREF(b);
    return r;
}

/* A bytearray of the handle, remembered in `set`. New reference. */
static PyObject *handle_out(PyObject *set, const char h[PCC_IPC_HANDLE_SIZE])
{
    PyObject *b = PyBytes_FromStringAndSize(h, PCC_IPC_HANDLE_SIZE);
    if (b == NULL || PySet_Add(set, b) < 0) {
        Py_XDECREF(b);
        return NULL;
    }
    Py_DECREF(b);
    return PyByteArray_FromStringAndSize(h, PCC_IPC_HANDLE_SIZE);
}

static int need(void *entry, const char *name)
{
    if (entry != NULL)
        return 0;
    PyErr_Format(pcc_st.LogicError, "%s: this driver has no interprocess (IPC) support", name);
    return -1;
}

/* What an open's failure means, for its message. */
static const char *open_failure(CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_INVALID_VALUE:
        return "the bytes are not an IPC handle of this kind (garbage, or damaged on the way)";
    case CUDA_ERROR_INVALID_CONTEXT:
        return "the handle was made by this process, which cannot open its own handles";
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_MAP_FAILED:
        return "the handle names nothing that can be opened: its allocation was freed, or "
               "the process that made it has exited";
    case CUDA_ERROR_TOO_MANY_PEERS:
        return "this device cannot map memory of that many peers";
    default:
        return NULL;
    }
}

/* ---- memory ------------------------------------------------------------------ */

static PyObject *py_mem_get_ipc_handle(PyObject *mod, PyObject *arg)
{
    (void)mod;
    CUdeviceptr p;
    size_t avail;
    if (pcc_devptr_arg(arg, &p, &avail, "mem_get_ipc_handle(devptr)") < 0 || pcc_ready() < 0 ||
        need(pcc_drv.cuIpcGetMemHandle, "mem_get_ipc_handle") < 0)
        return NULL;
    pcc_ctx_guard g = {NULL, 0};
    if (pcc_is_device_allocation(arg)) {
        if (pcc_ctx_enter(((PccDeviceAllocation *)arg)->context, &g) < 0 &&
            pcc_context_ensure() < 0)
            return NULL;
    } else if (pcc_context_ensure() < 0) {
        return NULL;
    }
    CUipcMemHandle h;
    CUresult rc = pcc_drv.cuIpcGetMemHandle(&h, p);
    pcc_ctx_leave(&g);
    if (rc != CUDA_SUCCESS)
        return pcc_raise_detail(rc, "cuIpcGetMemHandle",
                                "only device memory from mem_alloc can be shared this way "
                                "(not managed, pinned or pool memory, nor memory opened from "
                                "another process)"),
               NULL;
    return handle_out(exported_mem, h.reserved);
}

static PyObject *ipc_mem_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)type;
    static char *kwlist[] = {"handle", "flags", NULL};
    PyObject *hobj;
    unsigned int flags = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O&:IPCMemoryHandle", kwlist, &hobj,
                                     pcc_flags_arg, &flags))
        return NULL;
    CUipcMemHandle h;
    if (handle_arg(hobj, h.reserved, "IPCMemoryHandle(handle)") < 0)
        return NULL;
    if (flags & ~(unsigned)CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) {
        PyErr_Format(PyExc_ValueError,
                     "IPCMemoryHandle(flags): flags must be 0 or "
                     "ipc_mem_flags.LAZY_ENABLE_PEER_ACCESS (1), got %u", flags);
        return NULL;
    }
    int mine = made_here(exported_mem, h.reserved);
    if (mine < 0)
        return NULL;
    if (mine) {
        PyErr_SetString(pcc_st.LogicError,
                        "IPCMemoryHandle(handle): this process made the handle "
                        "(mem_get_ipc_handle); a process cannot open its own handles: use the "
                        "allocation itself, and send the handle to other processes");
        return NULL;
    }
    if (pcc_ready() < 0 || need(pcc_drv.cuIpcOpenMemHandle, "IPCMemoryHandle") < 0)
        return NULL;
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    CUdeviceptr p = 0;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuIpcOpenMemHandle(&p, h, flags);
    Py_END_ALLOW_THREADS
    if (rc != CUDA_SUCCESS) {
        Py_DECREF(ctx);
        return pcc_raise_detail(rc, "cuIpcOpenMemHandle", open_failure(rc)), NULL;
    }
    CUdeviceptr base = 0;
    size_t size = 0;
    if (pcc_drv.cuMemGetAddressRange(&base, &size, p) != CUDA_SUCCESS || base != p)
        size = 0; /* unknown: copies then ask the driver */
    PyObject *a = pcc_device_allocation_new(pcc_st.IPCMemoryHandle, p, size, ctx, PCC_MEM_IPC,
                                            NULL);
    Py_DECREF(ctx);
    if (a == NULL)
        pcc_drv.cuIpcCloseMemHandle(p);
    return a;
}

static PyObject *ipc_mem_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyObject_CallMethod(self, "free", NULL);
}

static PyMethodDef ipc_mem_methods[] = {
    {"close", ipc_mem_close, METH_NOARGS,
     "Unmap the memory now (PyCUDA's name; free() does the same; otherwise when the object "
     "dies)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot ipc_mem_slots[] = {
    {Py_tp_doc, "IPCMemoryHandle(handle, flags=ipc_mem_flags.LAZY_ENABLE_PEER_ACCESS): device "
                "memory of another process, opened from its mem_get_ipc_handle(); a "
                "DeviceAllocation (int() is the address), closed when it dies or at close()."},
    {Py_tp_new, ipc_mem_new},
    {Py_tp_methods, ipc_mem_methods},
    {0, NULL}};

static PyType_Spec ipc_mem_spec = {
    .name = "pycudac._driver.IPCMemoryHandle",
    .basicsize = sizeof(PccDeviceAllocation),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = ipc_mem_slots,
};

/* ---- events ------------------------------------------------------------------- */

static PyObject *event_ipc_handle(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccEvent *e = (PccEvent *)op;
    if (!(e->flags & CU_EVENT_INTERPROCESS)) {
        PyErr_SetString(PyExc_ValueError,
                        "Event.ipc_handle(): the event was not made for sharing: create it "
                        "with Event(flags=event_flags.INTERPROCESS | "
                        "event_flags.DISABLE_TIMING)");
        return NULL;
    }
    pcc_ctx_guard g;
    if (need(pcc_drv.cuIpcGetEventHandle, "Event.ipc_handle") < 0 ||
        pcc_ctx_use(e->context, &g, "Event.ipc_handle") < 0)
        return NULL;
    CUipcEventHandle h;
    CUresult rc = pcc_drv.cuIpcGetEventHandle(&h, e->event);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuIpcGetEventHandle") < 0)
        return NULL;
    return handle_out(exported_events, h.reserved);
}

static PyObject *event_from_ipc_handle(PyObject *cls, PyObject *hobj)
{
    (void)cls;
    CUipcEventHandle h;
    if (handle_arg(hobj, h.reserved, "Event.from_ipc_handle(handle)") < 0)
        return NULL;
    int mine = made_here(exported_events, h.reserved);
    if (mine < 0)
        return NULL;
    if (mine) {
        PyErr_SetString(pcc_st.LogicError,
                        "Event.from_ipc_handle(handle): this process made the handle "
                        "(Event.ipc_handle); a process cannot open its own handles: use the "
                        "Event itself");
        return NULL;
    }
    if (pcc_ready() < 0 || need(pcc_drv.cuIpcOpenEventHandle, "Event.from_ipc_handle") < 0)
        return NULL;
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    CUevent ev = NULL;
    CUresult rc = pcc_drv.cuIpcOpenEventHandle(&ev, h);
    if (rc != CUDA_SUCCESS) {
        Py_DECREF(ctx);
        return pcc_raise_detail(rc, "cuIpcOpenEventHandle", open_failure(rc)), NULL;
    }
    PccEvent *self = (PccEvent *)pcc_handle_alloc(pcc_st.Event, ctx);
    if (self == NULL) {
        pcc_drv.cuEventDestroy(ev);
        return NULL;
    }
    self->event = ev;
    self->flags = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
    return (PyObject *)self;
}

static PyMethodDef event_ipc_methods[] = {
    {"ipc_handle", event_ipc_handle, METH_NOARGS,
     "The event's interprocess handle (a 64-byte bytearray) for Event.from_ipc_handle in "
     "another process; the event needs event_flags.INTERPROCESS | DISABLE_TIMING."},
    {NULL, NULL, 0, NULL}};

static PyMethodDef event_ipc_static[] = {
    {"from_ipc_handle", event_from_ipc_handle, METH_O,
     "from_ipc_handle(handle): the Event another process shared with Event.ipc_handle()."},
    {NULL, NULL, 0, NULL}};

static PyMethodDef ipc_functions[] = {
    {"mem_get_ipc_handle", py_mem_get_ipc_handle, METH_O,
     "mem_get_ipc_handle(devptr): the interprocess handle (a 64-byte bytearray) of the "
     "allocation at devptr, for IPCMemoryHandle in another process."},
    {NULL, NULL, 0, NULL}};

int pcc_ipc_init(PyObject *module)
{
    if ((exported_mem = PySet_New(NULL)) == NULL ||
        (exported_events = PySet_New(NULL)) == NULL)
        return -1;
    pcc_st.IPCMemoryHandle = (PyTypeObject *)PyType_FromSpecWithBases(
        &ipc_mem_spec, (PyObject *)pcc_st.DeviceAllocation);
    if (pcc_st.IPCMemoryHandle == NULL ||
        PyModule_AddObjectRef(module, "IPCMemoryHandle", (PyObject *)pcc_st.IPCMemoryHandle) < 0)
        return -1;
    if (pcc_type_add_methods(pcc_st.Event, event_ipc_methods) < 0 ||
        pcc_type_add_static_methods(pcc_st.Event, event_ipc_static) < 0)
        return -1;
    return PyModule_AddFunctions(module, ipc_functions);
}
