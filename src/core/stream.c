/*
 * core/stream.c — Stream objects, the `stream=` argument, and keep-alive:
 * holding Python objects (host buffers of async copies, kernel arguments)
 * until the stream work queued before them has completed.
 *
 * Keep-alive queues a host function (cuLaunchHostFunc). It runs on a
 * driver thread, where no Python object may be touched and no CUDA call
 * made, so it only moves its node to a mutex-protected "completed" list;
 * the references are dropped later, with the GIL, by the next pycudac call
 * that synchronizes or queues more keep-alives (pcc_release_completed).
 * At interpreter exit, whatever is still listed is leaked on purpose.
 */
#include <pthread.h>
#include <stdint.h>

#include "driver/loader.h"
#include "core/context.h"
#include "core/capture.h"
#include "core/memory.h"
#include "core/stream.h"
#include "structmember.h"

/* ---- keep-alive ----------------------------------------------------------- */

typedef struct keep_node {
    PyObject *obj;
    struct keep_node *next;
} keep_node;

static pthread_mutex_t completed_lock = PTHREAD_MUTEX_INITIALIZER;
static keep_node *completed;
static volatile int have_completed;

/* Driver thread: no GIL, no Python, no CUDA calls. */
static void keep_done(void *arg)
{
    keep_node *n = arg;
    pthread_mutex_lock(&completed_lock);
    n->next = completed;
    completed = n;
    have_completed = 1;
    pthread_mutex_unlock(&completed_lock);
}

void pcc_release_completed(void)
{
    if (!have_completed)
        return;
    pthread_mutex_lock(&completed_lock);
    keep_node *list = completed;
    completed = NULL;
    have_completed = 0;
    pthread_mutex_unlock(&completed_lock);
    while (list != NULL) {
        keep_node *next = list->next;
        Py_DECREF(list->obj); /* may free memory through the driver: fine here */
        PyMem_RawFree(list);
        list = next;
    }
}

int pcc_stream_keep_alive(PyObject *stream, PyObject *obj)
{
    CUstream s;
    if (pcc_stream_arg(stream, &s, "stream") < 0)
        return -1;
    pcc_release_completed();
    /* In a capture a host function becomes a node that runs at every replay;
     * the graph keeps the object instead, through a buffer export when it
     * has one (a bytearray must not resize under a replay's copy). */
    if (stream != NULL && stream != Py_None && ((PccStream *)stream)->capture != NULL) {
        PyObject *held = PyObject_CheckBuffer(obj) ? PyMemoryView_FromObject(obj)
                                                   : Py_NewRef(obj);
        int kept = held ? pcc_capture_keep(stream, held) : -1;
        Py_XDECREF(held);
        if (kept != 0)
            return kept < 0 ? -1 : 0;
    }
    keep_node *n = PyMem_RawMalloc(sizeof *n);
    if (n == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    n->obj = obj;
    n->next = NULL;
    Py_INCREF(obj);
    pcc_ctx_guard g = {NULL, 0};
    if (stream != NULL && stream != Py_None)
        pcc_ctx_enter(((PccStream *)stream)->context, &g);
    CUresult rc = pcc_drv.cuLaunchHostFunc(s, keep_done, n);
    pcc_ctx_leave(&g);
    if (rc != CUDA_SUCCESS) {
        Py_DECREF(obj);
        PyMem_RawFree(n);
        return pcc_raise(rc, "cuLaunchHostFunc");
    }
    return 0;
}

static void after_fork_child(void)
{
    /* A driver thread of the parent may have held the lock at fork time. */
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    completed_lock = fresh;
}

/* ---- Stream --------------------------------------------------------------- */

static PyObject *stream_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:Stream", kwlist, pcc_flags_arg, &flags))
        return NULL;
    if (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) {
        PyErr_Format(PyExc_ValueError,
                     "Stream(flags): flags must be a combination of stream_flags, got %u", flags);
        return NULL;
    }
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    CUstream s = NULL;
    if (pcc_check(pcc_drv.cuStreamCreate(&s, flags), "cuStreamCreate") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccStream *self = (PccStream *)pcc_handle_alloc(type, ctx);
    if (self == NULL) {
        pcc_drv.cuStreamDestroy(s);
        return NULL;
    }
    self->stream = s;
    self->flags = (int)flags;
    return (PyObject *)self;
}

static void stream_release(PyObject *op)
{
    PccStream *self = (PccStream *)op;
    pcc_capture_drop(self);
    CUresult rc = CUDA_SUCCESS;
    /* Queued work still completes; the driver frees the stream after. */
    if (self->stream != NULL)
        PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuStreamDestroy(self->stream));
    (void)rc; /* never raise from dealloc */
    self->stream = NULL;
    Py_CLEAR(self->capture);
    Py_CLEAR(self->keepalive);
}

static void stream_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, stream_release);
}

static PyObject *stream_synchronize(PccStream *self, PyObject *unused)
{
    (void)unused;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, "Stream.synchronize") < 0)
        return NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuStreamSynchronize(self->stream);
    Py_END_ALLOW_THREADS
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuStreamSynchronize") < 0)
        return NULL;
    pcc_release_completed();
    Py_RETURN_NONE;
}

static PyObject *stream_is_done(PccStream *self, PyObject *unused)
{
    (void)unused;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, "Stream.is_done") < 0)
        return NULL;
    CUresult rc = pcc_drv.cuStreamQuery(self->stream);
    pcc_ctx_leave(&g);
    if (rc == CUDA_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    if (pcc_check(rc, "cuStreamQuery") < 0)
        return NULL;
    pcc_release_completed();
    Py_RETURN_TRUE;
}

static PyObject *stream_wait_for_event(PccStream *self, PyObject *evt)
{
    if (!PyObject_TypeCheck(evt, pcc_st.Event)) {
        PyErr_Format(PyExc_TypeError, "Stream.wait_for_event(evt): evt must be an Event, not "
                                      "%.100s",
                     Py_TYPE(evt)->tp_name);
        return NULL;
    }
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, "Stream.wait_for_event") < 0)
        return NULL;
    CUresult rc = pcc_drv.cuStreamWaitEvent(self->stream, ((PccEvent *)evt)->event, 0);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuStreamWaitEvent") < 0 || pcc_capture_note_join(self) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *stream_handle(PccStream *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(self->stream);
}

static PyObject *stream_get_context(PccStream *self, void *closure)
{
    (void)closure;
    PyObject *c = self->context ? self->context : Py_None;
    Py_INCREF(c);
    return c;
}

static PyObject *stream_repr(PyObject *op)
{
    PccStream *self = (PccStream *)op;
    return PyUnicode_FromFormat("<pycudac.driver.Stream %p%s>", (void *)self->stream,
                                self->flags & CU_STREAM_NON_BLOCKING ? " non-blocking" : "");
}

static PyMethodDef stream_methods[] = {
    {"synchronize", (PyCFunction)stream_synchronize, METH_NOARGS,
     "Wait until all work queued on the stream is done (GIL released)."},
    {"is_done", (PyCFunction)stream_is_done, METH_NOARGS,
     "True when all work queued on the stream is done."},
    {"wait_for_event", (PyCFunction)stream_wait_for_event, METH_O,
     "Make later work on this stream wait until `evt` has happened."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef stream_members[] = {
    {"flags", T_INT, offsetof(PccStream, flags), READONLY, "Creation flags."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccStream, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef stream_getset[] = {
    {"handle", (getter)stream_handle, NULL, "The CUstream as an int.", NULL},
    {"context", (getter)stream_get_context, NULL, "The Context the stream belongs to.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot stream_slots[] = {
    {Py_tp_doc, "Stream(flags=0): an ordered queue of device work."},
    {Py_tp_new, stream_new},
    {Py_tp_dealloc, stream_dealloc},
    {Py_tp_methods, stream_methods},
    {Py_tp_members, stream_members},
    {Py_tp_getset, stream_getset},
    {Py_tp_repr, stream_repr},
    {0, NULL}};

static PyType_Spec stream_spec = {
    .name = "pycudac._driver.Stream",
    .basicsize = sizeof(PccStream),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = stream_slots,
};

/* _stream_wait_legacy(handle): the CUstream `handle` (an int, a consumer's,
 * e.g. from DLPack's stream argument) waits for the work queued so far on the
 * legacy default stream of the current context, through an event: no host
 * wait. */
static PyObject *py_stream_wait_legacy(PyObject *mod, PyObject *arg)
{
    (void)mod;
    unsigned long long h = PyLong_AsUnsignedLongLong(arg);
    if (h == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    if (pcc_ready() < 0 || pcc_context_ensure() < 0)
        return NULL;
    CUevent ev = NULL;
    CUresult rc = pcc_drv.cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING);
    const char *call = "cuEventCreate";
    if (rc == CUDA_SUCCESS) {
        rc = pcc_drv.cuEventRecord(ev, NULL);
        call = "cuEventRecord";
    }
    if (rc == CUDA_SUCCESS) {
        rc = pcc_drv.cuStreamWaitEvent((CUstream)(uintptr_t)h, ev, 0);
        call = "cuStreamWaitEvent";
    }
    if (ev != NULL)
        pcc_drv.cuEventDestroy(ev); /* the driver keeps it until the wait is done */
    if (pcc_check(rc, call) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef stream_functions[] = {
    {"_stream_wait_legacy", py_stream_wait_legacy, METH_O,
     "_stream_wait_legacy(handle): stream `handle` waits for the legacy stream's work."},
    {NULL, NULL, 0, NULL}};

int pcc_stream_init(PyObject *module)
{
    pcc_st.Stream = (PyTypeObject *)PyType_FromSpec(&stream_spec);
    if (pcc_st.Stream == NULL)
        return -1;
    static int atfork_done;
    if (!atfork_done) {
        pthread_atfork(NULL, NULL, after_fork_child);
        atfork_done = 1;
    }
    if (PyModule_AddFunctions(module, stream_functions) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Stream", (PyObject *)pcc_st.Stream);
}
