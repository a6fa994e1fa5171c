/*
 * core/capture.h — what the core knows of stream capture (src/core/capture.c):
 * which captures are in progress, the frees that must wait for them to end,
 * and keeping what captured work uses with the graph that replays it.
 *
 * A capture builds a graph that a Graph object (graph/) owns once the
 * capture ends; while it runs, copies, frees and launches of the core must
 * know of it. So the Graph object's fields are declared here, and graph/
 * makes the type and gives Stream its capture methods (begin_capture ...).
 */
#ifndef PYCUDAC_CAPTURE_H
#define PYCUDAC_CAPTURE_H

#include "core/context.h"
#include "core/stream.h"

/* A Graph object (graph/graph.c makes the type). */
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

/* After Stream.wait_for_event: a stream that joined a capture through the
 * event is noted as capturing. 0 or -1. */
int pcc_capture_note_join(PccStream *s);

/* The capture `s` is part of, when it is still capturing, else NULL (a
 * stale reference is dropped). Borrowed. */
PccGraph *pcc_stream_capture(PccStream *s);

int pcc_capture_init(PyObject *module);

#endif
