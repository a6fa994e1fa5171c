/*
 * graph/capture.c — stream capture: Stream.begin_capture, end_capture,
 * is_capturing, get_capture_info_v2 and update_capture_dependencies
 * (PyCUDA's names), and what the rest of pycudac asks of a capture.
 *
 * While a capture builds a graph the capture owns it; end_capture hands it
 * to the same Graph object that begin_capture made and get_capture_info_v2
 * gives out (so the two compare equal, as in PyCUDA). The capturing Graphs
 * are listed here, so that a stream joining a capture through an event
 * finds its Graph. Work queued into a capture runs at every replay of the
 * graph: what it uses is kept with the Graph (pcc_capture_keep).
 */
#include <string.h>

#include "core/context.h"
#include "graph/graph.h"

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

/* ---- stream capture ----------------------------------------------------------------- */

/* The Graph of s's capture when it is still capturing, else NULL (a stale
 * reference is dropped). Borrowed. */
static PccGraph *stream_capture(PccStream *s)
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
    PccGraph *g = stream_capture((PccStream *)stream);
    if (g == NULL)
        return 0;
    return PyList_Append(g->keep, obj) < 0 ? -1 : 1;
}

static int stream_enter(PccStream *s, pcc_ctx_guard *g, const char *what)
{
    if (pcc_graph_need(pcc_drv.cuStreamBeginCapture, "cuStreamBeginCapture_v2") < 0)
        return -1;
    return pcc_graph_enter(s->context, g, what);
}

PyObject *pcc_stream_begin_capture(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccStream *s = (PccStream *)op;
    static char *kwlist[] = {"capture_mode", NULL};
    int mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    const char *what = "Stream.begin_capture";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|i:begin_capture", kwlist, &mode))
        return NULL;
    if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED) {
        PyErr_Format(PyExc_ValueError, "%s: capture_mode must be a capture_mode (GLOBAL, "
                     "THREAD_LOCAL or RELAXED), got %d", what, mode);
        return NULL;
    }
    pcc_ctx_guard g;
    if (stream_enter(s, &g, what) < 0)
        return NULL;
    CUgraph h = NULL;
    int status = 0;
    CUresult rc = pcc_drv.cuStreamBeginCapture(s->stream, mode);
    CUresult begun = rc;
    if (rc == CUDA_SUCCESS)
        rc = pcc_drv.cuStreamGetCaptureInfo(s->stream, &status, NULL, &h, NULL, NULL);
    PyObject *graph = NULL;
    if (rc == CUDA_SUCCESS) {
        graph = pcc_graph_wrap(h, s->context, 0);
        if (graph != NULL && pcc_capture_list_add((PccGraph *)graph) < 0)
            Py_CLEAR(graph);
    }
    if (begun == CUDA_SUCCESS && graph == NULL) { /* no Graph to hand it to: abandon it */
        CUgraph done = NULL;
        if (pcc_drv.cuStreamEndCapture(s->stream, &done) == CUDA_SUCCESS && done)
            pcc_drv.cuGraphDestroy(done);
    }
    pcc_ctx_leave(&g);
    if (pcc_check(rc, begun == CUDA_SUCCESS ? "cuStreamGetCaptureInfo" : "cuStreamBeginCapture")
            < 0 || graph == NULL)
        return NULL;
    ((PccGraph *)graph)->origin = s;
    Py_XSETREF(s->capture, graph);
    Py_RETURN_NONE;
}

PyObject *pcc_stream_end_capture(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccStream *s = (PccStream *)op;
    pcc_ctx_guard g;
    if (stream_enter(s, &g, "Stream.end_capture") < 0)
        return NULL;
    CUgraph h = NULL;
    int status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUresult rc = pcc_drv.cuStreamEndCapture(s->stream, &h);
    if (rc != CUDA_SUCCESS)
        pcc_drv.cuStreamIsCapturing(s->stream, &status);
    pcc_ctx_leave(&g);
    PccGraph *gr = stream_capture(s);
    if (rc != CUDA_SUCCESS) {
        /* a capture that failed to end has ended all the same, its graph freed */
        if (gr != NULL && status == CU_STREAM_CAPTURE_STATUS_NONE) {
            pcc_capture_list_end(gr, 0);
            Py_CLEAR(s->capture);
        }
        pcc_raise(rc, "cuStreamEndCapture");
        return NULL;
    }
    PyObject *result;
    if (gr != NULL && gr->graph == h) {
        pcc_capture_list_end(gr, 1);
        result = Py_NewRef((PyObject *)gr);
    } else {
        result = pcc_graph_wrap(h, s->context, 1);
        if (result == NULL)
            PCC_FREE_IN_CONTEXT(s->context, rc, pcc_drv.cuGraphDestroy(h));
    }
    Py_CLEAR(s->capture);
    return result;
}

PyObject *pcc_stream_is_capturing(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccStream *s = (PccStream *)op;
    pcc_ctx_guard g;
    if (stream_enter(s, &g, "Stream.is_capturing") < 0)
        return NULL;
    int status = 0;
    CUresult rc = pcc_drv.cuStreamIsCapturing(s->stream, &status);
    pcc_ctx_leave(&g);
    return pcc_check(rc, "cuStreamIsCapturing") < 0 ? NULL : PyLong_FromLong(status);
}

/* The Graph object of the capture whose graph is `h`, new reference: the
 * stream's, one listed, or a new unlisted one that owns nothing (a capture
 * begun outside pycudac, which pycudac cannot see end). */
static PyObject *capture_graph(PccStream *s, CUgraph h)
{
    PccGraph *g = stream_capture(s);
    if (g == NULL || g->graph != h) {
        g = pcc_capture_list_find(h);
        if (g == NULL) /* a capture begun elsewhere: whoever began it owns its graph */
            return pcc_graph_wrap(h, s->context, 0);
        Py_XSETREF(s->capture, Py_NewRef((PyObject *)g));
    }
    return Py_NewRef((PyObject *)g);
}

PyObject *pcc_stream_get_capture_info_v2(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccStream *s = (PccStream *)op;
    pcc_ctx_guard g;
    if (stream_enter(s, &g, "Stream.get_capture_info_v2") < 0)
        return NULL;
    int status = 0;
    unsigned long long id = 0;
    CUgraph h = NULL;
    const CUgraphNode *deps = NULL;
    size_t ndeps = 0;
    CUresult rc = pcc_drv.cuStreamGetCaptureInfo(s->stream, &status, &id, &h, &deps, &ndeps);
    CUgraphNode *copy = NULL; /* deps is valid only until the next call on the stream */
    if (rc == CUDA_SUCCESS && status == CU_STREAM_CAPTURE_STATUS_ACTIVE && ndeps > 0) {
        copy = PyMem_Malloc(ndeps * sizeof *copy);
        if (copy != NULL)
            memcpy(copy, deps, ndeps * sizeof *copy);
    }
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuStreamGetCaptureInfo") < 0)
        return NULL;
    if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
        PyMem_Free(copy);
        return Py_BuildValue("iKO[]", status, status ? id : 0ULL, Py_None);
    }
    if (ndeps > 0 && copy == NULL)
        return PyErr_NoMemory();
    PyObject *graph = capture_graph(s, h), *nodes = NULL, *result = NULL;
    if (graph != NULL && (nodes = pcc_graph_node_list(copy, ndeps, graph)) != NULL)
        result = Py_BuildValue("iKOO", status, id, graph, nodes);
    Py_XDECREF(nodes);
    Py_XDECREF(graph);
    PyMem_Free(copy);
    return result;
}

PyObject *pcc_stream_update_capture_dependencies(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccStream *s = (PccStream *)op;
    static char *kwlist[] = {"dependencies", "flags", NULL};
    PyObject *seq;
    unsigned int flags = CU_STREAM_ADD_CAPTURE_DEPENDENCIES;
    const char *what = "Stream.update_capture_dependencies";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|I:update_capture_dependencies", kwlist,
                                     &seq, &flags) ||
        pcc_graph_need(pcc_drv.cuStreamUpdateCaptureDependencies, "cuStreamUpdateCaptureDependencies") < 0)
        return NULL;
    if (flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES &&
        flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES) {
        PyErr_Format(PyExc_ValueError, "%s: flags must be an update_capture_dependencies_flags "
                     "(ADD_CAPTURE_DEPENDENCIES or SET_CAPTURE_DEPENDENCIES), got %u", what,
                     flags);
        return NULL;
    }
    CUgraphNode *nodes = NULL;
    size_t n = 0;
    pcc_ctx_guard g;
    PccGraph *gr = stream_capture(s);
    if (pcc_graph_node_array(seq, (PyObject *)gr, &nodes, &n, "dependencies") < 0)
        return NULL;
    PyObject *result = NULL;
    if (stream_enter(s, &g, what) == 0) {
        CUresult rc = pcc_drv.cuStreamUpdateCaptureDependencies(s->stream, nodes, n, flags);
        pcc_ctx_leave(&g);
        if (pcc_check(rc, "cuStreamUpdateCaptureDependencies") == 0)
            result = Py_NewRef(Py_None);
    }
    PyMem_Free(nodes);
    return result;
}

int pcc_capture_note_join(PccStream *s)
{
    if (ncapturing == 0 || pcc_drv.cuStreamGetCaptureInfo == NULL)
        return 0;
    pcc_ctx_guard g;
    if (pcc_graph_enter(s->context, &g, "Stream.wait_for_event") < 0)
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
    PccGraph *gr = stream_capture(s);
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

int pcc_stream_capture_init(PyObject *module)
{
    return PyModule_AddFunctions(module, capture_functions);
}
