/*
 * graph/graph.c — CUDA graphs: Graph and GraphNode objects, with PyCUDA's
 * names. GraphExec is src/graph/exec.c, stream capture src/graph/capture.c.
 *
 * A Graph owns its CUgraph, except while a capture builds it: then the
 * capture owns it (src/graph/capture.c).
 *
 * A graph's work runs at every replay, long after the Python call that
 * made it: the Graph holds what that work uses (kernel arguments, host
 * buffers of captured copies, child graphs; Graph.keep), and a GraphExec
 * holds its Graph and the arguments given to kernel_node_set_params.
 */
#include <stdint.h>
#include <string.h>

#include "driver/loader.h"
#include "core/context.h"
#include "launch/function.h"
#include "graph/graph.h"
#include "structmember.h"

static PyTypeObject *Graph_Type, *GraphNode_Type;

/* Handles hash like the pointers they are (Py_HashPointer is 3.13+). */
static Py_hash_t hash_handle(const void *p)
{
    Py_hash_t h = (Py_hash_t)((uintptr_t)p >> 4);
    return h == -1 ? -2 : h;
}

/* ---- helpers ----------------------------------------------------------------------- */

/* LogicError when the driver lacks CUDA graphs (drivers before CUDA 12). */
int pcc_graph_need(void *fn, const char *name)
{
    if (pcc_ready() < 0)
        return -1;
    if (fn != NULL)
        return 0;
    PyErr_Format(pcc_st.LogicError, "CUDA graphs: this driver has no %s (a CUDA 12 or newer "
                 "driver is needed)", name);
    return -1;
}

/* New reference: a Graph object for `h`. */
PyObject *pcc_graph_wrap(CUgraph h, PyObject *context, int owned)
{
    PccGraph *g = PyObject_New(PccGraph, Graph_Type);
    if (g == NULL)
        return NULL;
    g->graph = h;
    g->context = Py_NewRef(context);
    g->keep = PyList_New(0);
    g->owned = owned;
    g->capturing = 0;
    g->origin = NULL;
    g->hash = hash_handle(h);
    g->weakreflist = NULL;
    if (g->keep == NULL) {
        g->owned = 0; /* the caller still owns h */
        Py_DECREF(g);
        return NULL;
    }
    return (PyObject *)g;
}

/* The graph's handle, or NULL with LogicError (freed by a failed capture). */
static CUgraph graph_live(PccGraph *g, const char *what)
{
    if (g->graph == NULL)
        PyErr_Format(pcc_st.LogicError, "%s: this graph belonged to a capture that failed "
                     "and the driver freed it", what);
    return g->graph;
}

static PyObject *node_wrap(CUgraphNode n, PyObject *graph)
{
    PccGraphNode *o = PyObject_New(PccGraphNode, GraphNode_Type);
    if (o == NULL)
        return NULL;
    o->node = n;
    o->graph = Py_NewRef(graph);
    return (PyObject *)o;
}

/* New list of GraphNode objects of `graph`. */
PyObject *pcc_graph_node_list(const CUgraphNode *nodes, size_t n, PyObject *graph)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t k = 0; list != NULL && k < n; k++) {
        PyObject *o = node_wrap(nodes[k], graph);
        if (o == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)k, o);
    }
    return list;
}

/* A sequence of GraphNode objects of `graph` (or None: none) into a new
 * PyMem array *out of *n handles. 0 or -1 (TypeError/ValueError naming
 * `what`). */
int pcc_graph_node_array(PyObject *seq, PyObject *graph, CUgraphNode **out, size_t *n,
                      const char *what)
{
    *out = NULL;
    *n = 0;
    if (seq == NULL || seq == Py_None)
        return 0;
    PyObject *fast = PySequence_Fast(seq, "");
    if (fast == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of GraphNode, not %.100s", what,
                     Py_TYPE(seq)->tp_name);
        return -1;
    }
    Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
    CUgraphNode *arr = PyMem_Malloc((size_t)(len ? len : 1) * sizeof *arr);
    if (arr == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        PyObject *o = PySequence_Fast_GET_ITEM(fast, k);
        if (!PyObject_TypeCheck(o, GraphNode_Type)) {
            PyErr_Format(PyExc_TypeError, "%s[%zd] must be a GraphNode, not %.100s", what, k,
                         Py_TYPE(o)->tp_name);
            goto error;
        }
        PccGraphNode *gn = (PccGraphNode *)o;
        if (graph != NULL && ((PccGraph *)gn->graph)->graph != ((PccGraph *)graph)->graph) {
            PyErr_Format(PyExc_ValueError, "%s[%zd] is a node of another graph", what, k);
            goto error;
        }
        arr[k] = gn->node;
    }
    Py_DECREF(fast);
    *out = arr;
    *n = (size_t)len;
    return 0;
error:
    Py_DECREF(fast);
    PyMem_Free(arr);
    return -1;
}

int pcc_graph_node_kwargs(PyObject *kwds, const char *extra_name, PyObject *vals[5],
                          const char *what)
{
    const char *names[5] = {"func", "block", "grid", "shared", extra_name};
    for (int k = 0; k < 5; k++)
        vals[k] = NULL;
    if (kwds == NULL)
        return 0;
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwds, &pos, &key, &value)) {
        int k = 0;
        while (k < 5 && PyUnicode_CompareWithASCIIString(key, names[k]) != 0)
            k++;
        if (k == 5) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U' "
                         "(expected func, block, grid, shared, %s)", what, key, extra_name);
            return -1;
        }
        vals[k] = value;
    }
    return 0;
}

int pcc_graph_node_params_make(pcc_node_params *np, PyObject *args, PyObject *const vals[5],
                               const char *what)
{
    if (pcc_function_node_params(vals[0], args, vals[1], vals[2], vals[3], what, &np->p,
                                 &np->buf, &np->size) < 0)
        return -1;
    if (np->size > 0) {
        np->extra[0] = PCC_LAUNCH_PARAM_BUFFER_POINTER;
        np->extra[1] = np->buf;
        np->extra[2] = PCC_LAUNCH_PARAM_BUFFER_SIZE;
        np->extra[3] = &np->size;
        np->extra[4] = PCC_LAUNCH_PARAM_END;
        np->p.extra = np->extra;
    }
    return 0;
}

int pcc_graph_node_check(PyObject *o)
{
    return PyObject_TypeCheck(o, GraphNode_Type);
}

/* ---- Graph ------------------------------------------------------------------------- */

static PyObject *graph_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)type;
    if (!PyArg_ParseTuple(args, ":Graph") || (kwds && PyDict_GET_SIZE(kwds))) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "Graph() takes no arguments");
        return NULL;
    }
    if (pcc_graph_need(pcc_drv.cuGraphCreate, "cuGraphCreate") < 0)
        return NULL;
    PyObject *ctx = pcc_context_current();
    if (ctx == NULL)
        return NULL;
    CUgraph h = NULL;
    PyObject *g = NULL;
    if (pcc_check(pcc_drv.cuGraphCreate(&h, 0), "cuGraphCreate") == 0) {
        g = pcc_graph_wrap(h, ctx, 1);
        if (g == NULL)
            pcc_drv.cuGraphDestroy(h);
    }
    Py_DECREF(ctx);
    return g;
}

static void graph_dealloc(PyObject *op)
{
    PccGraph *self = (PccGraph *)op;
    PyTypeObject *tp = Py_TYPE(op);
    if (self->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    if (self->capturing) {
        /* the capture still owns the handle; a stream ends it (pcc_capture_drop) */
        pcc_capture_list_end(self, 0);
    } else if (self->owned && self->graph != NULL) {
        CUresult rc = CUDA_SUCCESS;
        PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuGraphDestroy(self->graph));
        (void)rc; /* never raise from dealloc */
    }
    self->graph = NULL;
    Py_CLEAR(self->keep);
    Py_CLEAR(self->context);
    PyObject_Free(op);
    Py_DECREF(tp);
}

/* Equal when they are the same CUgraph (the capture's graph, wrapped twice). */
static PyObject *handle_compare(void *a, void *b, int op)
{
    if (op == Py_EQ)
        return PyBool_FromLong(a == b);
    if (op == Py_NE)
        return PyBool_FromLong(a != b);
    Py_RETURN_NOTIMPLEMENTED;
}

static PyObject *graph_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, Graph_Type))
        Py_RETURN_NOTIMPLEMENTED;
    /* graphs a failed capture freed are only themselves */
    PccGraph *x = (PccGraph *)a, *y = (PccGraph *)b;
    return x->graph && y->graph ? handle_compare(x->graph, y->graph, op)
                                : handle_compare(x, y, op);
}

static Py_hash_t graph_hash(PyObject *op)
{
    return ((PccGraph *)op)->hash; /* fixed at creation: the handle may be cleared */
}

/* Adds a node made by `add` (the driver call, already made) to the graph's
 * objects: keeps `keep` (or nothing), returns the GraphNode. */
static PyObject *node_added(PccGraph *self, CUgraphNode n, PyObject *keep)
{
    if (keep != NULL && PyList_Append(self->keep, keep) < 0)
        return NULL;
    return node_wrap(n, (PyObject *)self);
}

static PyObject *graph_add_kernel_node(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccGraph *self = (PccGraph *)op;
    PyObject *vals[5];
    const char *what = "Graph.add_kernel_node";
    if (pcc_graph_node_kwargs(kwds, "dependencies", vals, what) < 0 ||
        pcc_graph_need(pcc_drv.cuGraphAddKernelNode, "cuGraphAddKernelNode") < 0)
        return NULL;
    CUgraph h = graph_live(self, what);
    if (h == NULL)
        return NULL;
    CUgraphNode *deps = NULL;
    size_t ndeps = 0;
    pcc_node_params np = {0};
    PyObject *result = NULL, *kept = NULL;
    pcc_ctx_guard g;
    if (pcc_graph_node_array(vals[4], op, &deps, &ndeps, "dependencies") < 0 ||
        pcc_graph_node_params_make(&np, args, vals, what) < 0 || pcc_ctx_use(self->context, &g, what) < 0)
        goto done;
    CUgraphNode n = NULL;
    CUresult rc = pcc_drv.cuGraphAddKernelNode(&n, h, deps, ndeps, &np.p);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuGraphAddKernelNode") < 0)
        goto done;
    kept = PyTuple_Pack(2, vals[0], args);
    if (kept != NULL)
        result = node_added(self, n, kept);
done:
    Py_XDECREF(kept);
    PyMem_Free(np.buf);
    PyMem_Free(deps);
    return result;
}

static PyObject *graph_add_empty_node(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccGraph *self = (PccGraph *)op;
    static char *kwlist[] = {"dependencies", NULL};
    PyObject *depseq = Py_None;
    const char *what = "Graph.add_empty_node";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:add_empty_node", kwlist, &depseq) ||
        pcc_graph_need(pcc_drv.cuGraphAddEmptyNode, "cuGraphAddEmptyNode") < 0)
        return NULL;
    CUgraph h = graph_live(self, what);
    CUgraphNode *deps = NULL, n = NULL;
    size_t ndeps = 0;
    pcc_ctx_guard g;
    if (h == NULL || pcc_graph_node_array(depseq, op, &deps, &ndeps, "dependencies") < 0)
        return NULL;
    PyObject *result = NULL;
    if (pcc_ctx_use(self->context, &g, what) == 0) {
        CUresult rc = pcc_drv.cuGraphAddEmptyNode(&n, h, deps, ndeps);
        pcc_ctx_leave(&g);
        if (pcc_check(rc, "cuGraphAddEmptyNode") == 0)
            result = node_added(self, n, NULL);
    }
    PyMem_Free(deps);
    return result;
}

static PyObject *graph_add_child_graph_node(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccGraph *self = (PccGraph *)op;
    static char *kwlist[] = {"child_graph", "dependencies", NULL};
    PyObject *child, *depseq = Py_None;
    const char *what = "Graph.add_child_graph_node";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!|O:add_child_graph_node", kwlist,
                                     Graph_Type, &child, &depseq) ||
        pcc_graph_need(pcc_drv.cuGraphAddChildGraphNode, "cuGraphAddChildGraphNode") < 0)
        return NULL;
    CUgraph h = graph_live(self, what), ch = h ? graph_live((PccGraph *)child, what) : NULL;
    CUgraphNode *deps = NULL, n = NULL;
    size_t ndeps = 0;
    pcc_ctx_guard g;
    if (ch == NULL || pcc_graph_node_array(depseq, op, &deps, &ndeps, "dependencies") < 0)
        return NULL;
    PyObject *result = NULL;
    if (pcc_ctx_use(self->context, &g, what) == 0) {
        CUresult rc = pcc_drv.cuGraphAddChildGraphNode(&n, h, deps, ndeps, ch);
        pcc_ctx_leave(&g);
        /* the driver copies the child's nodes, not what they use: keep the child */
        if (pcc_check(rc, "cuGraphAddChildGraphNode") == 0)
            result = node_added(self, n, child);
    }
    PyMem_Free(deps);
    return result;
}

static PyObject *graph_add_dependencies(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccGraph *self = (PccGraph *)op;
    static char *kwlist[] = {"from_nodes", "to_nodes", NULL};
    PyObject *from_seq, *to_seq;
    const char *what = "Graph.add_dependencies";
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:add_dependencies", kwlist, &from_seq,
                                     &to_seq) ||
        pcc_graph_need(pcc_drv.cuGraphAddDependencies, "cuGraphAddDependencies") < 0)
        return NULL;
    CUgraph h = graph_live(self, what);
    CUgraphNode *from = NULL, *to = NULL;
    size_t nfrom = 0, nto = 0;
    PyObject *result = NULL;
    pcc_ctx_guard g;
    if (h == NULL || pcc_graph_node_array(from_seq, op, &from, &nfrom, "from_nodes") < 0 ||
        pcc_graph_node_array(to_seq, op, &to, &nto, "to_nodes") < 0)
        goto done;
    if (nfrom != nto) {
        PyErr_Format(PyExc_ValueError, "%s: from_nodes and to_nodes must be of the same "
                     "length (edge k goes from from_nodes[k] to to_nodes[k]), got %zu and %zu",
                     what, nfrom, nto);
        goto done;
    }
    if (pcc_ctx_use(self->context, &g, what) < 0)
        goto done;
    CUresult rc = pcc_drv.cuGraphAddDependencies(h, from, to, nfrom);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuGraphAddDependencies") == 0)
        result = Py_NewRef(Py_None);
done:
    PyMem_Free(from);
    PyMem_Free(to);
    return result;
}

/* The nodes a driver query lists (cuGraphGetNodes and its kin): asks for
 * the count, then the handles. New list of GraphNode of `graph`. */
typedef CUresult (*node_query)(void *on, CUgraphNode *nodes, size_t *n);

static PyObject *list_nodes(node_query q, void *on, PyObject *graph, const char *call)
{
    PccGraph *gr = (PccGraph *)graph;
    pcc_ctx_guard g;
    if (pcc_ctx_use(gr->context, &g, call) < 0)
        return NULL;
    size_t n = 0;
    CUgraphNode *nodes = NULL;
    CUresult rc = q(on, NULL, &n);
    if (rc == CUDA_SUCCESS && n > 0) {
        nodes = PyMem_Malloc(n * sizeof *nodes);
        if (nodes == NULL) {
            pcc_ctx_leave(&g);
            return PyErr_NoMemory();
        }
        size_t got = n;
        rc = q(on, nodes, &got);
        if (got < n)
            n = got;
    }
    pcc_ctx_leave(&g);
    PyObject *list = pcc_check(rc, call) < 0 ? NULL : pcc_graph_node_list(nodes, n, graph);
    PyMem_Free(nodes);
    return list;
}

static PyObject *graph_get_nodes(PyObject *op, PyObject *unused)
{
    (void)unused;
    CUgraph h;
    if (pcc_graph_need(pcc_drv.cuGraphGetNodes, "cuGraphGetNodes") < 0 ||
        (h = graph_live((PccGraph *)op, "Graph.get_nodes")) == NULL)
        return NULL;
    return list_nodes((node_query)pcc_drv.cuGraphGetNodes, h, op, "cuGraphGetNodes");
}

static PyObject *graph_get_root_nodes(PyObject *op, PyObject *unused)
{
    (void)unused;
    CUgraph h;
    if (pcc_graph_need(pcc_drv.cuGraphGetRootNodes, "cuGraphGetRootNodes") < 0 ||
        (h = graph_live((PccGraph *)op, "Graph.get_root_nodes")) == NULL)
        return NULL;
    return list_nodes((node_query)pcc_drv.cuGraphGetRootNodes, h, op, "cuGraphGetRootNodes");
}

static PyObject *graph_instantiate(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccGraph *self = (PccGraph *)op;
    const char *what = "Graph.instantiate";
    CUgraph h;
    if (pcc_graph_need(pcc_drv.cuGraphInstantiate, "cuGraphInstantiateWithFlags") < 0 ||
        (h = graph_live(self, what)) == NULL)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, what) < 0)
        return NULL;
    CUgraphExec e = NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuGraphInstantiate(&e, h, 0);
    Py_END_ALLOW_THREADS
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuGraphInstantiateWithFlags") < 0)
        return NULL;
    PyObject *x = pcc_graph_exec_new(e, self->context, op);
    if (x == NULL)
        PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuGraphExecDestroy(e));
    return x;
}

static PyObject *graph_debug_dot_print(PyObject *op, PyObject *args, PyObject *kwds)
{
    PccGraph *self = (PccGraph *)op;
    static char *kwlist[] = {"path", "flags", NULL};
    PyObject *path = NULL;
    unsigned int flags = CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|I:debug_dot_print", kwlist,
                                     PyUnicode_FSConverter, &path, &flags))
        return NULL;
    CUgraph h = NULL;
    PyObject *result = NULL;
    pcc_ctx_guard g;
    if (pcc_graph_need(pcc_drv.cuGraphDebugDotPrint, "cuGraphDebugDotPrint") == 0 &&
        (h = graph_live(self, "Graph.debug_dot_print")) != NULL &&
        pcc_ctx_use(self->context, &g, "Graph.debug_dot_print") == 0) {
        CUresult rc = pcc_drv.cuGraphDebugDotPrint(h, PyBytes_AS_STRING(path), flags);
        pcc_ctx_leave(&g);
        if (pcc_check(rc, "cuGraphDebugDotPrint") == 0)
            result = Py_NewRef(Py_None);
    }
    Py_DECREF(path);
    return result;
}

static PyObject *graph_handle(PyObject *op, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PccGraph *)op)->graph);
}

static PyObject *graph_repr(PyObject *op)
{
    PccGraph *self = (PccGraph *)op;
    return PyUnicode_FromFormat("<pycudac.driver.Graph %p%s>", (void *)self->graph,
                                self->capturing ? " (capturing)" : "");
}

static PyMethodDef graph_methods[] = {
    {"add_kernel_node", (PyCFunction)(void (*)(void))graph_add_kernel_node,
     METH_VARARGS | METH_KEYWORDS,
     "add_kernel_node(*args, func, block, grid=(1, 1), shared=0, dependencies=[]): a node "
     "launching func(*args); the arguments are converted as a call's are."},
    {"add_empty_node", (PyCFunction)(void (*)(void))graph_add_empty_node,
     METH_VARARGS | METH_KEYWORDS, "add_empty_node(dependencies=[]): a node that does nothing."},
    {"add_child_graph_node", (PyCFunction)(void (*)(void))graph_add_child_graph_node,
     METH_VARARGS | METH_KEYWORDS,
     "add_child_graph_node(child_graph, dependencies=[]): a node running a copy of "
     "child_graph."},
    {"add_dependencies", (PyCFunction)(void (*)(void))graph_add_dependencies,
     METH_VARARGS | METH_KEYWORDS,
     "add_dependencies(from_nodes, to_nodes): to_nodes[k] runs after from_nodes[k]."},
    {"get_nodes", graph_get_nodes, METH_NOARGS, "The graph's nodes."},
    {"get_root_nodes", graph_get_root_nodes, METH_NOARGS,
     "The graph's nodes that depend on no other."},
    {"instantiate", graph_instantiate, METH_NOARGS,
     "A GraphExec: the graph made ready to launch."},
    {"debug_dot_print", (PyCFunction)(void (*)(void))graph_debug_dot_print,
     METH_VARARGS | METH_KEYWORDS,
     "debug_dot_print(path, flags=VERBOSE): write the graph as a Graphviz DOT file."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef graph_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccGraph, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef graph_getset[] = {
    {"handle", graph_handle, NULL, "The CUgraph as an int.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot graph_slots[] = {
    {Py_tp_doc, "Graph(): a CUDA graph, built node by node or captured from a stream "
                "(Stream.begin_capture / end_capture)."},
    {Py_tp_new, graph_new},
    {Py_tp_dealloc, graph_dealloc},
    {Py_tp_richcompare, graph_richcompare},
    {Py_tp_hash, graph_hash},
    {Py_tp_methods, graph_methods},
    {Py_tp_members, graph_members},
    {Py_tp_getset, graph_getset},
    {Py_tp_repr, graph_repr},
    {0, NULL}};

static PyType_Spec graph_spec = {
    .name = "pycudac._driver.Graph",
    .basicsize = sizeof(PccGraph),
    .flags = Py_TPFLAGS_DEFAULT,
    .slots = graph_slots,
};

/* ---- GraphNode ---------------------------------------------------------------------- */

static void node_dealloc(PyObject *op)
{
    PyTypeObject *tp = Py_TYPE(op);
    Py_CLEAR(((PccGraphNode *)op)->graph);
    PyObject_Free(op);
    Py_DECREF(tp);
}

static PyObject *node_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, GraphNode_Type))
        Py_RETURN_NOTIMPLEMENTED;
    return handle_compare(((PccGraphNode *)a)->node, ((PccGraphNode *)b)->node, op);
}

static Py_hash_t node_hash(PyObject *op)
{
    return hash_handle(((PccGraphNode *)op)->node);
}

/* The node's handle, or NULL with LogicError when its graph is gone. */
static CUgraphNode node_live(PccGraphNode *n, const char *what)
{
    return graph_live((PccGraph *)n->graph, what) ? n->node : NULL;
}

static PyObject *node_type(PyObject *op, void *closure)
{
    (void)closure;
    PccGraphNode *self = (PccGraphNode *)op;
    CUgraphNode n;
    pcc_ctx_guard g;
    if (pcc_graph_need(pcc_drv.cuGraphNodeGetType, "cuGraphNodeGetType") < 0 ||
        (n = node_live(self, "GraphNode.type")) == NULL ||
        pcc_ctx_use(((PccGraph *)self->graph)->context, &g, "GraphNode.type") < 0)
        return NULL;
    int type = 0;
    CUresult rc = pcc_drv.cuGraphNodeGetType(n, &type);
    pcc_ctx_leave(&g);
    return pcc_check(rc, "cuGraphNodeGetType") < 0 ? NULL : PyLong_FromLong(type);
}

static PyObject *node_get_dependencies(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccGraphNode *self = (PccGraphNode *)op;
    CUgraphNode n;
    if (pcc_graph_need(pcc_drv.cuGraphNodeGetDependencies, "cuGraphNodeGetDependencies") < 0 ||
        (n = node_live(self, "GraphNode.get_dependencies")) == NULL)
        return NULL;
    return list_nodes((node_query)pcc_drv.cuGraphNodeGetDependencies, n, self->graph,
                      "cuGraphNodeGetDependencies");
}

static PyObject *node_handle(PyObject *op, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PccGraphNode *)op)->node);
}

static PyObject *node_repr(PyObject *op)
{
    return PyUnicode_FromFormat("<pycudac.driver.GraphNode %p>", (void *)((PccGraphNode *)op)->node);
}

static PyMethodDef node_methods[] = {
    {"get_dependencies", node_get_dependencies, METH_NOARGS,
     "The nodes this one runs after."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef node_getset[] = {
    {"handle", node_handle, NULL, "The CUgraphNode as an int.", NULL},
    {"type", node_type, NULL, "What the node does: a graph_node_type value.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot node_slots[] = {
    {Py_tp_doc, "A node of a Graph (from Graph.add_*_node or Stream.get_capture_info_v2)."},
    {Py_tp_dealloc, node_dealloc},
    {Py_tp_richcompare, node_richcompare},
    {Py_tp_hash, node_hash},
    {Py_tp_methods, node_methods},
    {Py_tp_getset, node_getset},
    {Py_tp_repr, node_repr},
    {0, NULL}};

static PyType_Spec node_spec = {
    .name = "pycudac._driver.GraphNode",
    .basicsize = sizeof(PccGraphNode),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = node_slots,
};

/* ---- module ------------------------------------------------------------------------- */

int pcc_graph_init(PyObject *module)
{
    Graph_Type = (PyTypeObject *)PyType_FromSpec(&graph_spec);
    GraphNode_Type = (PyTypeObject *)PyType_FromSpec(&node_spec);
    if (Graph_Type == NULL || GraphNode_Type == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "Graph", (PyObject *)Graph_Type) < 0 ||
        PyModule_AddObjectRef(module, "GraphNode", (PyObject *)GraphNode_Type) < 0)
        return -1;
    return pcc_graph_exec_init(module);
}
