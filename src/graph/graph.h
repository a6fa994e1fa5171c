/*
 * graph/graph.h — CUDA graphs (src/graph/graph.c: Graph, GraphNode; src/graph/exec.c:
 * GraphExec) and
 * stream capture (src/graph/capture.c: the Stream methods begin_capture
 * ... and what the rest of pycudac asks of a capture).
 */
#ifndef PYCUDAC_GRAPH_H
#define PYCUDAC_GRAPH_H

#include "core/capture.h"


/* ---- graph/graph.c, for graph/capture.c ---- */

/* LogicError when the driver lacks `fn` (named `name`); also pcc_ready. 0/-1. */
int pcc_graph_need(void *fn, const char *name);
/* New reference: a Graph object for `h`; owned: cuGraphDestroy in dealloc. */
PyObject *pcc_graph_wrap(CUgraph h, PyObject *context, int owned);
/* New list of GraphNode objects of `graph`. */
PyObject *pcc_graph_node_list(const CUgraphNode *nodes, size_t n, PyObject *graph);
/* A sequence of GraphNode (None: none) of `graph` (NULL: any) into a new
 * PyMem array *out of *n handles. 0, or -1 with TypeError/ValueError
 * naming `what`. */
int pcc_graph_node_array(PyObject *seq, PyObject *graph, CUgraphNode **out, size_t *n,
                         const char *what);

/* ---- within the graph folder: graph/graph.c for graph/exec.c ---- */

typedef struct {
    PyObject_HEAD
    CUgraphNode node;
    PyObject *graph; /* the Graph it belongs to (strong) */
} PccGraphNode;

/* A kernel node's parameters from (args, kwargs): *p points at *buf and
 * *extra (which the caller keeps until the driver call) for the driver. */
typedef struct {
    CUDA_KERNEL_NODE_PARAMS p;
    char *buf;
    size_t size;
    void *extra[5];
} pcc_node_params;

/* Whether o is a GraphNode. */
int pcc_graph_node_check(PyObject *o);
/* The keyword arguments of a kernel node: func, block, grid, shared, and
 * `extra_name` (dependencies or kernel_node) into vals[0..4]. Anything else
 * is a TypeError. 0 or -1. */
int pcc_graph_node_kwargs(PyObject *kwds, const char *extra_name, PyObject *vals[5],
                          const char *what);
/* np from (args, vals); np->buf is the caller's to PyMem_Free. 0 or -1. */
int pcc_graph_node_params_make(pcc_node_params *np, PyObject *args, PyObject *const vals[5],
                               const char *what);

/* graph/exec.c: a GraphExec owning `e`, holding `context` and `graph` (new
 * reference; NULL with an exception, `e` then still the caller's). */
PyObject *pcc_graph_exec_new(CUgraphExec e, PyObject *context, PyObject *graph);
int pcc_graph_exec_init(PyObject *module);

int pcc_graph_init(PyObject *module);
/* Gives Stream its capture methods (graph/capture.c). */
int pcc_stream_capture_init(PyObject *module);

#endif
