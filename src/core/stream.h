/*
 * core/stream.h — Stream and Event objects (src/core/stream.c, src/core/event.c).
 */
#ifndef PYCUDAC_STREAM_H
#define PYCUDAC_STREAM_H

#include "module/errors.h"

typedef struct {
    PyObject_HEAD
    CUstream stream;
    /* The Graph of a capture this stream is part of (strong), or NULL; stale
     * once that Graph's `capturing` is 0 (graph/graph.c). Next to `stream`: the
     * launch's fast path reads both. */
    PyObject *capture;
    PyObject *context;
    PyObject *keepalive; /* list of objects to hold until the stream completes, or NULL */
    int flags;
    PyObject *weakreflist;
} PccStream;

typedef struct {
    PyObject_HEAD
    CUevent event;
    PyObject *context;
    int flags;
    PyObject *weakreflist;
} PccEvent;

/* The CUstream for a `stream=` argument: None → 0 (the legacy default
 * stream), a Stream → its handle, anything else → TypeError naming `what`.
 * Returns 0 or -1. */
int pcc_stream_arg(PyObject *obj, CUstream *out, const char *what);

/* Keep `obj` alive until work queued on `stream` so far has completed
 * (a cuLaunchHostFunc marks it done; the reference is dropped, with the GIL,
 * by the next pycudac synchronize or keep-alive call). 0 or -1. */
int pcc_stream_keep_alive(PyObject *stream, PyObject *obj);

/* Drops the references whose stream work has completed (GIL held). */
void pcc_release_completed(void);

int pcc_stream_init(PyObject *module);
int pcc_event_init(PyObject *module);

#endif
