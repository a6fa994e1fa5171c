/*
 * core/event.c — Event objects: markers recorded into a stream, waited on, and
 * timed against each other (milliseconds, as cuEventElapsedTime).
 */
#include "driver/loader.h"
#include "core/context.h"
#include "core/memory.h"
#include "core/stream.h"
#include "structmember.h"

static PyObject *event_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:Event", kwlist, pcc_flags_arg, &flags))
        return NULL;
    if (flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                            CU_EVENT_INTERPROCESS)) {
        PyErr_Format(PyExc_ValueError,
                     "Event(flags): flags must be a combination of event_flags, got %u", flags);
        return NULL;
    }
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    CUevent e = NULL;
    if (pcc_check(pcc_drv.cuEventCreate(&e, flags), "cuEventCreate") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccEvent *self = (PccEvent *)pcc_handle_alloc(type, ctx);
    if (self == NULL) {
        pcc_drv.cuEventDestroy(e);
        return NULL;
    }
    self->event = e;
    self->flags = (int)flags;
    return (PyObject *)self;
}

static void event_release(PyObject *op)
{
    PccEvent *self = (PccEvent *)op;
    CUresult rc = CUDA_SUCCESS;
    if (self->event != NULL)
        PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuEventDestroy(self->event));
    (void)rc; /* never raise from dealloc */
    self->event = NULL;
}

static void event_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, event_release);
}

/* Enters the event's context or raises. */
static int enter(PccEvent *self, pcc_ctx_guard *g, const char *what)
{
    char call[48];
    snprintf(call, sizeof call, "Event.%s", what);
    return pcc_ctx_use(self->context, g, call);
}

static PyObject *event_record(PccEvent *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"stream", NULL};
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:record", kwlist, &stream))
        return NULL;
    CUstream s;
    if (pcc_stream_arg(stream, &s, "Event.record(stream)") < 0)
        return NULL;
    pcc_ctx_guard g;
    if (enter(self, &g, "record") < 0)
        return NULL;
    CUresult rc = pcc_drv.cuEventRecord(self->event, s);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuEventRecord") < 0)
        return NULL;
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *event_synchronize(PccEvent *self, PyObject *unused)
{
    (void)unused;
    pcc_ctx_guard g;
    if (enter(self, &g, "synchronize") < 0)
        return NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuEventSynchronize(self->event);
    Py_END_ALLOW_THREADS
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuEventSynchronize") < 0)
        return NULL;
    pcc_release_completed();
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *event_query(PccEvent *self, PyObject *unused)
{
    (void)unused;
    pcc_ctx_guard g;
    if (enter(self, &g, "query") < 0)
        return NULL;
    CUresult rc = pcc_drv.cuEventQuery(self->event);
    pcc_ctx_leave(&g);
    if (rc == CUDA_ERROR_NOT_READY)
        Py_RETURN_FALSE;
    if (pcc_check(rc, "cuEventQuery") < 0)
        return NULL;
    Py_RETURN_TRUE;
}

static PyObject *elapsed(PccEvent *self, PyObject *other, int self_is_start, const char *what)
{
    if (!PyObject_TypeCheck(other, pcc_st.Event)) {
        PyErr_Format(PyExc_TypeError, "Event.%s: the argument must be an Event, not %.100s",
                     what, Py_TYPE(other)->tp_name);
        return NULL;
    }
    pcc_ctx_guard g;
    if (enter(self, &g, what) < 0)
        return NULL;
    CUevent a = self->event, b = ((PccEvent *)other)->event;
    float ms = 0;
    CUresult rc = self_is_start ? pcc_drv.cuEventElapsedTime(&ms, a, b)
                                : pcc_drv.cuEventElapsedTime(&ms, b, a);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuEventElapsedTime") < 0)
        return NULL;
    return PyFloat_FromDouble(ms);
}

static PyObject *event_time_since(PccEvent *self, PyObject *earlier)
{
    return elapsed(self, earlier, 0, "time_since");
}

static PyObject *event_time_till(PccEvent *self, PyObject *later)
{
    return elapsed(self, later, 1, "time_till");
}

static PyObject *event_handle(PccEvent *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(self->event);
}

static PyObject *event_repr(PyObject *op)
{
    return PyUnicode_FromFormat("<pycudac.driver.Event %p>", (void *)((PccEvent *)op)->event);
}

static PyMethodDef event_methods[] = {
    {"record", (PyCFunction)(void (*)(void))event_record, METH_VARARGS | METH_KEYWORDS,
     "record(stream=None): record the event in `stream`; returns self."},
    {"synchronize", (PyCFunction)event_synchronize, METH_NOARGS,
     "Wait for the recorded work (GIL released); returns self."},
    {"query", (PyCFunction)event_query, METH_NOARGS, "True once the recorded work is done."},
    {"time_since", (PyCFunction)event_time_since, METH_O,
     "Milliseconds from `earlier` to this event."},
    {"time_till", (PyCFunction)event_time_till, METH_O,
     "Milliseconds from this event to `later`."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef event_members[] = {
    {"flags", T_INT, offsetof(PccEvent, flags), READONLY, "Creation flags."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccEvent, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef event_getset[] = {
    {"handle", (getter)event_handle, NULL, "The CUevent as an int.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot event_slots[] = {
    {Py_tp_doc, "Event(flags=0): a marker in a stream, for waiting and timing."},
    {Py_tp_new, event_new},
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_members, event_members},
    {Py_tp_getset, event_getset},
    {Py_tp_repr, event_repr},
    {0, NULL}};

static PyType_Spec event_spec = {
    .name = "pycudac._driver.Event",
    .basicsize = sizeof(PccEvent),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = event_slots,
};

int pcc_event_init(PyObject *module)
{
    pcc_st.Event = (PyTypeObject *)PyType_FromSpec(&event_spec);
    if (pcc_st.Event == NULL)
        return -1;
    return PyModule_AddObjectRef(module, "Event", (PyObject *)pcc_st.Event);
}
