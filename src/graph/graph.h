/*
 * graph/graph.h — CUDA graphs (src/graph/graph.c: Graph, GraphNode, GraphExec) and
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

int pcc_graph_init(PyObject *module);
/* Gives Stream its capture methods (graph/capture.c). */
int pcc_stream_capture_init(PyObject *module);

#endif
