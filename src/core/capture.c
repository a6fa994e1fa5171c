/*
 * core/capture.c — the core's side of stream capture (core/capture.h): the
 * captures in progress (the Graphs being built, listed so that a stream
 * joining a capture through an event finds its Graph), frees that wait for
 * them to end, and what captured work uses, kept with its Graph.
 */
#include <string.h>

#include "core/capture.h"
#include "driver/loader.h"

/* ---- the capturing Graphs (borrowed; each removes itself) ------------------------ */

static PccGraph **capturing;
static Py_ssize_t ncapturing, capturing_cap;

static void release_deferred(void);

int pcc_capture_list_add(PccGraph *g)
{
    if (ncapturing == capturing_cap) {
        Py_ssize_t cap = capturing_cap ? 2 * capturing_cap : 4;
        PccGraph **grown = PyMem_Realloc(capturing, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        capturing = grown;
        capturing_cap = cap;
    }
    capturing[ncapturing++] = g;
    g->capturing = 1;
    return 0;
}

void pcc_capture_list_end(PccGraph *g, int handed)
{
    if (!g->capturing)
        return;
    for (Py_ssize_t k = 0; k < ncapturing; k++) {
        if (capturing[k] == g) {
            capturing[k] = capturing[--ncapturing];
            break;
        }
    }
    g->capturing = 0;
    g->origin = NULL;
    g->owned = handed;
    if (!handed)
        g->graph = NULL;
    if (ncapturing == 0)
        release_deferred();
}

/* ---- frees that wait for the captures to end ------------------------------------ */

static pcc_deferred *deferred;

pcc_deferred *pcc_capture_defer(void (*release)(pcc_deferred *d), PyObject *context)
{
    if (ncapturing == 0)
        return NULL;
    pcc_deferred *d = PyMem_Calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    d->release = release;
    d->context = Py_NewRef(context);
    d->next = deferred;
    deferred = d;
    return d;
}

static void release_deferred(void)
{
    pcc_deferred *d = deferred;
    deferred = NULL;
    while (d != NULL) {
        pcc_deferred *next = d->next;
        d->release(d);
        Py_XDECREF(d->keep);
        Py_DECREF(d->context);
        PyMem_Free(d);
        d = next;
    }
}

PccGraph *pcc_capture_list_find(CUgraph h)
{
    for (Py_ssize_t k = 0; k < ncapturing; k++)
        if (capturing[k]->graph == h)
            return capturing[k];
    return NULL;
}

PccGraph *pcc_stream_capture(PccStream *s)
{
    PccGraph *g = (PccGraph *)s->capture;
    if (g != NULL && !g->capturing) {
        Py_CLEAR(s->capture);
        g = NULL;
    }
    return g;
}

int pcc_capture_keep(PyObject *stream, PyObject *obj)
{
    if (stream == NULL || !PyObject_TypeCheck(stream, pcc_st.Stream))
        return 0;
    PccGraph *g = pcc_stream_capture((PccStream *)stream);
    if (g == NULL)
        return 0;
    return PyList_Append(g->keep, obj) < 0 ? -1 : 1;
}

int pcc_capture_note_join(PccStream *s)
{
    if (ncapturing == 0 || pcc_drv.cuStreamGetCaptureInfo == NULL)
        return 0;
    pcc_ctx_guard g;
    if (pcc_ctx_use(s->context, &g, "Stream.wait_for_event") < 0)
        return -1;
    int status = 0;
    CUgraph h = NULL;
    CUresult rc = pcc_drv.cuStreamGetCaptureInfo(s->stream, &status, NULL, &h, NULL, NULL);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuStreamGetCaptureInfo") < 0)
        return -1;
    PccGraph *gr = status == CU_STREAM_CAPTURE_STATUS_ACTIVE ? pcc_capture_list_find(h) : NULL;
    if (gr != NULL)
        Py_XSETREF(s->capture, Py_NewRef((PyObject *)gr));
    return 0;
}

void pcc_capture_drop(PccStream *s)
{
    PccGraph *gr = pcc_stream_capture(s);
    /* a stream that only joined the capture must not end it: the driver
     * would answer UNMATCHED and invalidate the capture of its origin */
    if (gr == NULL || gr->origin != s || pcc_skip_free())
        return;
    pcc_ctx_guard g;
    if (pcc_ctx_enter(s->context, &g) < 0)
        return;
    CUgraph h = NULL;
    int status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult rc = pcc_drv.cuStreamEndCapture(s->stream, &h);
    if (rc != CUDA_SUCCESS)
        pcc_drv.cuStreamIsCapturing(s->stream, &status);
    pcc_ctx_leave(&g);
    if (rc == CUDA_SUCCESS && h == gr->graph)
        pcc_capture_list_end(gr, 1); /* freed with its Graph object */
    else if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_STREAM_CAPTURE_UNMATCHED &&
             status == CU_STREAM_CAPTURE_STATUS_NONE)
        pcc_capture_list_end(gr, 0);
}


/* _capture_keep(stream, *objs): keeps objs with the graph of the capture
 * that `stream` is part of; True when it is capturing. For pycudac's own
 * array code, whose kernels and copies get raw device addresses (ints) that
 * a graph's replay would otherwise outlive. */
static PyObject *py_capture_keep(PyObject *mod, PyObject *const *args, Py_ssize_t nargs)
{
    (void)mod;
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "_capture_keep(stream, *objs): stream is missing");
        return NULL;
    }
    if (args[0] == Py_None || !PyObject_TypeCheck(args[0], pcc_st.Stream) ||
        ((PccStream *)args[0])->capture == NULL)
        Py_RETURN_FALSE;
    PyObject *objs = PyTuple_New(nargs - 1);
    if (objs == NULL)
        return NULL;
    for (Py_ssize_t k = 1; k < nargs; k++)
        PyTuple_SET_ITEM(objs, k - 1, Py_NewRef(args[k]));
    int kept = pcc_capture_keep(args[0], objs);
    Py_DECREF(objs);
    return kept < 0 ? NULL : PyBool_FromLong(kept);
}

static PyMethodDef capture_functions[] = {
    {"_capture_keep", (PyCFunction)(void (*)(void))py_capture_keep, METH_FASTCALL,
     "_capture_keep(stream, *objs): keep objs as long as the graph `stream` is capturing "
     "into (True), or nothing (False)."},
    {NULL, NULL, 0, NULL}};

int pcc_capture_init(PyObject *module)
{
    return PyModule_AddFunctions(module, capture_functions);
}
