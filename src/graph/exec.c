/*
 * graph/exec.c — GraphExec: a Graph made ready to launch (Graph.instantiate),
 * with PyCUDA's names. It holds its Graph (whose objects its work uses) and
 * the arguments given to kernel_node_set_params, and is destroyed in its
 * context, or after the capture that is running when it is collected.
 */
#include "driver/loader.h"
#include "core/context.h"
#include "graph/graph.h"

typedef struct {
    PyObject_HEAD
    CUgraphExec exec;
    PyObject *context;
    PyObject *graph; /* the Graph it was made from (strong): what its work uses */
    PyObject *keep;  /* dict: node handle -> (func, args) of kernel_node_set_params */
} PccGraphExec;

static PyTypeObject *GraphExec_Type;

/* pcc_deferred's release for a GraphExec collected during a capture (its
 * destruction would invalidate a GLOBAL capture). */
static void release_deferred_exec(pcc_deferred *d)
{
    CUresult rc = CUDA_SUCCESS;
    PCC_FREE_IN_CONTEXT(d->context, rc, pcc_drv.cuGraphExecDestroy((CUgraphExec)d->ptr));
    (void)rc;
}

static void exec_dealloc(PyObject *op)
{
    PccGraphExec *self = (PccGraphExec *)op;
    PyTypeObject *tp = Py_TYPE(op);
    pcc_deferred *d = self->exec ? pcc_capture_defer(release_deferred_exec, self->context) : NULL;
    if (d != NULL) {
        d->ptr = self->exec;
        self->exec = NULL;
    }
    if (self->exec != NULL) {
        CUresult rc = CUDA_SUCCESS;
        PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuGraphExecDestroy(self->exec));
        (void)rc; /* never raise from dealloc */
    }
    self->exec = NULL;
    Py_CLEAR(self->keep);
    Py_CLEAR(self->graph);
    Py_CLEAR(self->context);
    PyObject_Free(op);
    Py_DECREF(tp);
}

static PyObject *exec_launch(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccGraphExec *self = (PccGraphExec *)op;
    static char *kwlist[] = {"stream", NULL};
    PyObject *stream = Py_None;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:launch", kwlist, &stream) ||
        pcc_stream_arg(stream, &s, "GraphExec.launch(stream)") < 0 ||
        pcc_graph_need(pcc_drv.cuGraphLaunch, "cuGraphLaunch") < 0)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, "GraphExec.launch") < 0)
        return NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS /* the simulator runs the whole graph here */
    rc = pcc_drv.cuGraphLaunch(self->exec, s);
    Py_END_ALLOW_THREADS
    pcc_ctx_leave(&g);
    /* launched into a capture: that graph now runs this one's work too */
    if (pcc_check(rc, "cuGraphLaunch") < 0 || pcc_capture_keep(stream, op) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *exec_kernel_node_set_params(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccGraphExec *self = (PccGraphExec *)op;
    PyObject *vals[5];
    const char *what = "GraphExec.kernel_node_set_params";
    if (pcc_graph_node_kwargs(kwds, "kernel_node", vals, what) < 0 ||
        pcc_graph_need(pcc_drv.cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams") < 0)
        return NULL;
    if (vals[4] == NULL || !pcc_graph_node_check(vals[4])) {
        PyErr_Format(PyExc_TypeError, "%s: kernel_node must be the GraphNode to change, not "
                     "%.100s", what, vals[4] ? Py_TYPE(vals[4])->tp_name : "nothing");
        return NULL;
    }
    PccGraphNode *node = (PccGraphNode *)vals[4];
    if (((PccGraph *)node->graph)->graph != ((PccGraph *)self->graph)->graph) {
        PyErr_Format(PyExc_ValueError, "%s: kernel_node is a node of another graph than the "
                     "one this GraphExec was made from", what);
        return NULL;
    }
    pcc_node_params np = {0};
    PyObject *result = NULL, *key = NULL, *kept = NULL;
    pcc_ctx_guard g;
    if (pcc_graph_node_params_make(&np, args, vals, what) < 0 || pcc_ctx_use(self->context, &g, what) < 0)
        goto done;
    CUresult rc = pcc_drv.cuGraphExecKernelNodeSetParams(self->exec, node->node, &np.p);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuGraphExecKernelNodeSetParams") < 0)
        goto done;
    /* the node's earlier arguments are no longer used by this exec */
    key = PyLong_FromVoidPtr(node->node);
    kept = key ? PyTuple_Pack(2, vals[0], args) : NULL;
    if (kept != NULL && PyDict_SetItem(self->keep, key, kept) == 0)
        result = Py_NewRef(Py_None);
done:
    Py_XDECREF(key);
    Py_XDECREF(kept);
    PyMem_Free(np.buf);
    return result;
}

static PyObject *exec_handle(PyObject *op, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PccGraphExec *)op)->exec);
}

static PyMethodDef exec_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))exec_launch, METH_VARARGS | METH_KEYWORDS,
     "launch(stream=None): run the graph's work on the stream."},
    {"kernel_node_set_params", (PyCFunction)(void (*)(void))exec_kernel_node_set_params,
     METH_VARARGS | METH_KEYWORDS,
     "kernel_node_set_params(*args, kernel_node, func, block, grid=(1, 1), shared=0): "
     "what the kernel node launches in later launches of this GraphExec."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef exec_getset[] = {
    {"handle", exec_handle, NULL, "The CUgraphExec as an int.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot exec_slots[] = {
    {Py_tp_doc, "A Graph made ready to launch (Graph.instantiate())."},
    {Py_tp_dealloc, exec_dealloc},
    {Py_tp_methods, exec_methods},
    {Py_tp_getset, exec_getset},
    {0, NULL}};

static PyType_Spec exec_spec = {
    .name = "pycudac._driver.GraphExec",
    .basicsize = sizeof(PccGraphExec),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = exec_slots,
};

PyObject *pcc_graph_exec_new(CUgraphExec e, PyObject *context, PyObject *graph)
{
    PyObject *keep = PyDict_New();
    if (keep == NULL)
        return NULL;
    PccGraphExec *x = PyObject_New(PccGraphExec, GraphExec_Type);
    if (x == NULL) {
        Py_DECREF(keep);
        return NULL;
    }
    x->exec = e;
    x->context = Py_NewRef(context);
    x->graph = Py_NewRef(graph);
    x->keep = keep;
    return (PyObject *)x;
}

int pcc_graph_exec_init(PyObject *module)
{
    GraphExec_Type = (PyTypeObject *)PyType_FromSpec(&exec_spec);
    if (GraphExec_Type == NULL)
        return -1;
    return PyModule_AddObjectRef(module, "GraphExec", (PyObject *)GraphExec_Type);
}
