/*
 * graph/capture.c — stream capture's Stream methods, with PyCUDA's names:
 * begin_capture, end_capture, is_capturing, get_capture_info_v2 and
 * update_capture_dependencies, added to the Stream type at import. What
 * the rest of pycudac asks of a capture in progress is core/capture.c.
 *
 * While a capture builds a graph the capture owns it; end_capture hands it
 * to the same Graph object that begin_capture made and get_capture_info_v2
 * gives out (so the two compare equal, as in PyCUDA).
 */
#include <limits.h>
#include <string.h>

#include "driver/loader.h"
#include "graph/graph.h"

static int stream_enter(PccStream *s, pcc_ctx_guard *g, const char *what)
{
    if (pcc_graph_need(pcc_drv.cuStreamBeginCapture, "cuStreamBeginCapture_v2") < 0)
        return -1;
    return pcc_ctx_use(s->context, g, what);
}

static PyObject *stream_begin_capture(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccStream *s = (PccStream *)op;
    static char *kwlist[] = {"capture_mode", NULL};
    int mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    const char *what = "Stream.begin_capture";
    PyObject *m = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:begin_capture", kwlist, &m))
        return NULL;
    if (m != NULL) { /* a capture_mode or its int ('x' was an unnamed TypeError) */
        if (PyBool_Check(m) || !PyIndex_Check(m)) {
            PyErr_Format(PyExc_TypeError, "%s: capture_mode must be a capture_mode (GLOBAL, "
                         "THREAD_LOCAL or RELAXED), not %.100s", what, Py_TYPE(m)->tp_name);
            return NULL;
        }
        PyObject *iv = PyNumber_Index(m);
        if (iv == NULL)
            return NULL;
        int overflow = 0;
        long v = PyLong_AsLongAndOverflow(iv, &overflow);
        Py_DECREF(iv);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        mode = overflow || v < INT_MIN || v > INT_MAX ? -1 : (int)v;
    }
    if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED) {
        PyErr_Format(PyExc_ValueError, "%s: capture_mode must be a capture_mode (GLOBAL, "
                     "THREAD_LOCAL or RELAXED), got %S", what, m);
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

static PyObject *stream_end_capture(PyObject *op, PyObject *unused)
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
    PccGraph *gr = pcc_stream_capture(s);
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

static PyObject *stream_is_capturing(PyObject *op, PyObject *unused)
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
    PccGraph *g = pcc_stream_capture(s);
    if (g == NULL || g->graph != h) {
        g = pcc_capture_list_find(h);
        if (g == NULL) /* a capture begun elsewhere: whoever began it owns its graph */
            return pcc_graph_wrap(h, s->context, 0);
        Py_XSETREF(s->capture, Py_NewRef((PyObject *)g));
    }
    return Py_NewRef((PyObject *)g);
}

static PyObject *stream_get_capture_info_v2(PyObject *op, PyObject *unused)
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

static PyObject *stream_update_capture_dependencies(PyObject *op, PyObject *args, PyObject *kwds)
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
    PccGraph *gr = pcc_stream_capture(s);
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


static PyMethodDef stream_capture_methods[] = {
    {"begin_capture", (PyCFunction)(void (*)(void))stream_begin_capture,
     METH_VARARGS | METH_KEYWORDS,
     "begin_capture(capture_mode=capture_mode.GLOBAL): record the work queued on this "
     "stream into a Graph instead of running it, until end_capture()."},
    {"end_capture", (PyCFunction)stream_end_capture, METH_NOARGS,
     "End the capture begun on this stream; returns the Graph of what was queued."},
    {"is_capturing", (PyCFunction)stream_is_capturing, METH_NOARGS,
     "The stream's capture_status: NONE, ACTIVE or INVALIDATED."},
    {"get_capture_info_v2", (PyCFunction)stream_get_capture_info_v2, METH_NOARGS,
     "(capture_status, id, graph or None, [GraphNode]): the capture this stream is part "
     "of and the nodes the next captured work will depend on."},
    {"update_capture_dependencies", (PyCFunction)(void (*)(void))
     stream_update_capture_dependencies, METH_VARARGS | METH_KEYWORDS,
     "update_capture_dependencies(nodes, flags=update_capture_dependencies_flags.ADD_CAPTURE_"
     "DEPENDENCIES): add to (or, with SET_CAPTURE_DEPENDENCIES, replace) the nodes the next "
     "captured work depends on."},
    {NULL, NULL, 0, NULL}};

int pcc_stream_capture_init(PyObject *module)
{
    (void)module;
    return pcc_type_add_methods(pcc_st.Stream, stream_capture_methods);
}
