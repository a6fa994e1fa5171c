/*
 * core/stream.h — Stream and Event objects (src/core/stream.c, src/core/event.c).
 */
#ifndef PYCUDAC_STREAM_H
#define PYCUDAC_STREAM_H

#include "core/context.h"
#include "core/convert.h"

typedef struct {
    PCC_HANDLE_HEAD
    CUstream stream;
    /* The Graph of a capture this stream is part of (strong), or NULL; stale
     * once that Graph's `capturing` is 0 (core/capture.c). */
    PyObject *capture;
    PyObject *keepalive; /* list of objects to hold until the stream completes, or NULL */
    int flags;
} PccStream;

typedef struct {
    PCC_HANDLE_HEAD
    CUevent event;
    int flags;
} PccEvent;


/* Keep `obj` alive until work queued on `stream` so far has completed
 * (a cuLaunchHostFunc marks it done; the reference is dropped, with the GIL,
 * by the next pycudac synchronize or keep-alive call). 0 or -1. */
int pcc_stream_keep_alive(PyObject *stream, PyObject *obj);

/* Drops the references whose stream work has completed (GIL held). */
void pcc_release_completed(void);

int pcc_stream_init(PyObject *module);
int pcc_event_init(PyObject *module);
/* NVTX ranges and the driver's profiler (core/profile.c). */
int pcc_profile_init(PyObject *module);

#endif
