/*
 * graph/graph.h — CUDA graphs (src/graph/graph.c: Graph, GraphNode, GraphExec) and
 * stream capture (src/graph/capture.c: the Stream methods begin_capture
 * ... and what the rest of pycudac asks of a capture).
 */
#ifndef PYCUDAC_GRAPH_H
#define PYCUDAC_GRAPH_H

#include "core/context.h"
#include "core/stream.h"

typedef struct {
    PyObject_HEAD
    CUgraph graph;  /* NULL once the driver has freed it (a capture that failed) */
    PyObject *context;
    /* What the graph's work uses, held as long as the graph (and every
     * GraphExec made from it) lives: kernel arguments, host buffers of
     * captured copies, child graphs. A replay long after the call must not
     * find them freed. */
    PyObject *keep;
    int owned;     /* cuGraphDestroy in dealloc */
    int capturing; /* the graph of a capture in progress: the capture owns it */
    void *origin;  /* the PccStream that began that capture (not a reference), or NULL */
    Py_hash_t hash; /* of the handle it was made with (which a failed capture clears) */
    PyObject *weakreflist;
} PccGraph;

/* ---- graph/graph.c, for graph/capture.c ---- */

/* LogicError when the driver lacks `fn` (named `name`); also pcc_ready. 0/-1. */
int pcc_graph_need(void *fn, const char *name);
/* pcc_ctx_enter, with a LogicError naming `what` when it cannot. 0/-1. */
int pcc_graph_enter(PyObject *context, pcc_ctx_guard *g, const char *what);
/* New reference: a Graph object for `h`; owned: cuGraphDestroy in dealloc. */
PyObject *pcc_graph_wrap(CUgraph h, PyObject *context, int owned);
/* New list of GraphNode objects of `graph`. */
PyObject *pcc_graph_node_list(const CUgraphNode *nodes, size_t n, PyObject *graph);
/* A sequence of GraphNode (None: none) of `graph` (NULL: any) into a new
 * PyMem array *out of *n handles. 0, or -1 with TypeError/ValueError
 * naming `what`. */
int pcc_graph_node_array(PyObject *seq, PyObject *graph, CUgraphNode **out, size_t *n,
                         const char *what);

/* ---- graph/capture.c ---- */

/* The capturing Graphs: listed while `capturing`, found by handle. */
int pcc_capture_list_add(PccGraph *g);
/* The capture is over: the Graph owns its handle now, or (handed == 0)
 * the driver has freed it. */
void pcc_capture_list_end(PccGraph *g, int handed);
PccGraph *pcc_capture_list_find(CUgraph h);
/* A handle whose object the garbage collector freed during a capture.
 * A GLOBAL capture refuses cuMemFree / cuMemFreeHost / cuMemHostUnregister
 * and is invalidated by them (and by cuGraphExecDestroy): a collection at
 * the wrong moment must not break the user's capture, so such frees wait
 * until no capture pycudac knows of is in progress. */
typedef struct pcc_deferred {
    struct pcc_deferred *next;
    void (*release)(struct pcc_deferred *d); /* frees the handle (GIL held), not d */
    PyObject *context;                       /* strong */
    PyObject *keep;                          /* strong or NULL: what the handle needs */
    void *ptr;                               /* the handle, */
    CUdeviceptr dptr;                        /* or this one */
    int kind;
    Py_buffer view;                          /* a registration's, or zeroed */
} pcc_deferred;

/* During a capture: a new zeroed pcc_deferred with `release` and a
 * reference to `context`, queued; the caller fills in the handle. NULL when
 * no capture is in progress (or no memory): free now. Nothing raised. */
pcc_deferred *pcc_capture_defer(void (*release)(pcc_deferred *d), PyObject *context);

/* When `stream` (a Stream, None or NULL) is known to be capturing: keeps
 * `obj` with the capture's graph and returns 1; 0 when it is not
 * capturing (nothing done); -1 with an exception. */
int pcc_capture_keep(PyObject *stream, PyObject *obj);

/* A Stream's dealloc: a capture it began and never ended is ended here,
 * so that its graph is freed with its Graph object. */
void pcc_capture_drop(PccStream *s);

/* Stream methods (METH_VARARGS | METH_KEYWORDS or METH_NOARGS), listed in
 * core/stream.c's method table. */
PyObject *pcc_stream_begin_capture(PyObject *self, PyObject *args, PyObject *kwds);
PyObject *pcc_stream_end_capture(PyObject *self, PyObject *unused);
PyObject *pcc_stream_is_capturing(PyObject *self, PyObject *unused);
PyObject *pcc_stream_get_capture_info_v2(PyObject *self, PyObject *unused);
PyObject *pcc_stream_update_capture_dependencies(PyObject *self, PyObject *args, PyObject *kwds);
/* After Stream.wait_for_event: a stream that joined a capture through the
 * event is noted as capturing. 0 or -1. */
int pcc_capture_note_join(PccStream *s);

int pcc_graph_init(PyObject *module);
int pcc_stream_capture_init(PyObject *module);

#endif
