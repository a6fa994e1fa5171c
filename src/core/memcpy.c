/*
 * core/memcpy.c — copies between host buffers and device memory.
 *
 * The host side is any buffer-protocol object (NumPy arrays through a fast
 * path); it must be contiguous, hold no Python objects, and be writable when
 * written. A device range too small for the copy is refused before the copy
 * is issued. The GIL is released around every copy.
 *
 * Large copies from or to pageable host memory run through pinned staging
 * chunks (one small set per context, made on first use) with several
 * threads: each copies its share of the chunks into (or out of) its own
 * two pinned buffers while the DMA of the other one runs on its own stream.
 * The driver's own pageable path is limited to a few GB/s; this one is
 * bounded by memcpy bandwidth times the number of threads.
 * PYCUDAC_STAGED_COPY=0 turns it off (htod / dtoh: one direction only),
 * =force turns it on on any backend (tests).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/context.h"
#include "core/capture.h"
#include "driver/loader.h"
#include "core/memory.h"
#include "core/stream.h"

#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

/* ---- argument parsing (METH_FASTCALL | METH_KEYWORDS) -------------------- */

static int fast_args(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     const char *const *names, int nreq, int nmax, PyObject **out,
                     const char *fname)
{
    if (nargs > nmax) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fname, nmax,
                     nargs);
        return -1;
    }
    for (int i = 0; i < nmax; i++)
        out[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; j++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, j);
        int i;
        for (i = 0; i < nmax; i++)
            if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0)
                break;
        if (i == nmax) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname,
                         key);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        out[i] = args[nargs + j];
    }
    for (int i = 0; i < nreq; i++)
        if (out[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", fname,
                         names[i], i + 1);
            return -1;
        }
    return 0;
}

/* ---- host buffers -------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len;
    Py_buffer view;
    int have_view;
} hostbuf;

static void hostbuf_release(hostbuf *hb)
{
    if (hb->have_view) {
        PyBuffer_Release(&hb->view);
        hb->have_view = 0;
    }
}

static int object_error(const char *what)
{
    PyErr_Format(PyExc_TypeError,
                 "%s holds Python objects (dtype=object): only fixed-size data (numbers, "
                 "'S'/'U' strings, structured dtypes) can be copied to or from the device",
                 what);
    return -1;
}

static int contiguous_error(const char *what)
{
    PyErr_Format(PyExc_ValueError,
                 "%s must be contiguous: got a non-contiguous view (copy it first, e.g. "
                 "numpy.ascontiguousarray(x))",
                 what);
    return -1;
}

/* The bytes of a host buffer; `writable` for copy destinations. */
static int hostbuf_get(PyObject *obj, hostbuf *hb, int writable, const char *what)
{
    hb->have_view = 0;
    if (PyArray_Check(obj)) {
        PyArrayObject *a = (PyArrayObject *)obj;
        if (pcc_holds_objects(obj, NULL))
            return object_error(what);
        if (!PyArray_IS_C_CONTIGUOUS(a) && !PyArray_IS_F_CONTIGUOUS(a))
            return contiguous_error(what);
        if (writable && !PyArray_ISWRITEABLE(a)) {
            PyErr_Format(PyExc_ValueError, "%s is read-only: the copy needs a writable array",
                         what);
            return -1;
        }
        hb->buf = PyArray_DATA(a);
        hb->len = (size_t)PyArray_NBYTES(a);
        return 0;
    }
    if (!PyObject_CheckBuffer(obj)) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a host buffer (numpy array, bytes, bytearray, memoryview), "
                     "not %.100s%s",
                     what, Py_TYPE(obj)->tp_name,
                     pcc_is_device_allocation(obj) || PyLong_Check(obj)
                         ? " (a device pointer: check the argument order)"
                         : "");
        return -1;
    }
    int base = PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &hb->view, base | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        if (PyObject_GetBuffer(obj, &hb->view, base) < 0) {
            PyErr_Clear();
            if (writable && PyObject_GetBuffer(obj, &hb->view, PyBUF_STRIDES) == 0) {
                PyBuffer_Release(&hb->view);
                PyErr_Format(PyExc_TypeError,
                             "%s is read-only (%.100s): the copy needs a writable buffer", what,
                             Py_TYPE(obj)->tp_name);
                return -1;
            }
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: %.100s does not export a usable buffer", what,
                         Py_TYPE(obj)->tp_name);
            return -1;
        }
    }
    hb->have_view = 1;
    if (pcc_holds_objects(obj, &hb->view)) {
        hostbuf_release(hb);
        return object_error(what);
    }
    if (!PyBuffer_IsContiguous(&hb->view, 'A')) {
        hostbuf_release(hb);
        return contiguous_error(what);
    }
    hb->buf = hb->view.buf;
    hb->len = (size_t)hb->view.len;
    return 0;
}

/* ---- device side --------------------------------------------------------- */

static int too_small(const char *what, size_t need, size_t avail)
{
    PyErr_Format(PyExc_ValueError,
                 "%s: the copy is %zu bytes but the device memory there holds only %zu bytes",
                 what, need, avail);
    return -1;
}

/* Makes a context current for a copy touching `devobj`: its own when it is
 * a DeviceAllocation, else the thread's (or the autoinit default). */
static int enter_for(PyObject *devobj, pcc_ctx_guard *g)
{
    g->pushed = 0;
    g->prev = NULL;
    if (pcc_is_device_allocation(devobj) &&
        pcc_ctx_enter(((PccDeviceAllocation *)devobj)->context, g) == 0)
        return 0;
    return pcc_context_ensure();
}

/* ---- staged copies through pinned chunks ----------------------------------- */

#define PCC_STAGE_MAX_WORKERS 8

typedef struct {
    void *buf[2];
    CUevent ev[2];
    CUstream stream;
} stage_worker;

typedef struct {
    pthread_mutex_t lock; /* held by the copy using the buffers */
    int nworkers;         /* workers whose buffers exist */
    size_t chunk;
    stage_worker w[PCC_STAGE_MAX_WORKERS];
} pcc_staging;

static void worker_free(stage_worker *w);

void pcc_staging_free(void *p)
{
    pcc_staging *st = p;
    if (st == NULL)
        return;
    for (int i = 0; i < st->nworkers; i++)
        worker_free(&st->w[i]);
    pthread_mutex_destroy(&st->lock);
    PyMem_RawFree(st);
}

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return dflt;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    return end != v ? (size_t)x : dflt;
}

/* 1 when a copy of n bytes from/to pageable `host` should be staged.
 * PYCUDAC_STAGED_COPY: unset or 1 (both directions, cuda backend), 0 (off),
 * htod or dtoh (one direction), force (both, any backend: for tests). */
static int staged_wanted(size_t n, const void *host, int to_device)
{
    if (n < ((size_t)64 << 10)) /* never worth it; keeps small copies free of getenv */
        return 0;
    const char *mode = getenv("PYCUDAC_STAGED_COPY");
    int force = 0;
    if (mode && *mode) {
        if (strcmp(mode, "0") == 0)
            return 0;
        if (strcmp(mode, "htod") == 0 && !to_device)
            return 0;
        if (strcmp(mode, "dtoh") == 0 && to_device)
            return 0;
        force = strcmp(mode, "force") == 0;
    }
    if (!force && !pcc_st.backend->stage_pageable_copies)
        return 0;
    size_t min = env_size("PYCUDAC_STAGED_MIN_BYTES", (size_t)8 << 20);
    if (n < min)
        return 0;
    /* Already page-locked (pinned, registered or managed): the driver's path is best. */
    unsigned int type = 0;
    if (!force && pcc_drv.cuPointerGetAttribute != NULL &&
        pcc_drv.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                      (CUdeviceptr)(uintptr_t)host) == CUDA_SUCCESS)
        return 0;
    return 1;
}

/* The context's staging set (created empty on first use; GIL held). */
static pcc_staging *staging_of(PccContext *c)
{
    if (c->staging == NULL) {
        pcc_staging *st = PyMem_RawCalloc(1, sizeof *st);
        if (st == NULL)
            return NULL;
        pthread_mutex_init(&st->lock, NULL);
        st->chunk = env_size("PYCUDAC_STAGED_CHUNK_BYTES", (size_t)4 << 20);
        if (st->chunk < 65536)
            st->chunk = 65536;
        c->staging = st;
    }
    return c->staging;
}

static int staged_threads(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t t = env_size("PYCUDAC_STAGED_THREADS", ncpu >= 8 ? 4 : ncpu >= 4 ? 2 : 1);
    if (t < 1)
        t = 1;
    if (t > PCC_STAGE_MAX_WORKERS)
        t = PCC_STAGE_MAX_WORKERS;
    return (int)t;
}

static void worker_free(stage_worker *w)
{
    if (w->stream)
        pcc_drv.cuStreamDestroy(w->stream);
    for (int b = 0; b < 2; b++) {
        if (w->ev[b])
            pcc_drv.cuEventDestroy(w->ev[b]);
        if (w->buf[b])
            pcc_drv.cuMemFreeHost(w->buf[b]);
    }
    memset(w, 0, sizeof *w);
}

/* Makes the buffers of workers [nworkers, want) (context current). A worker
 * is counted only once all of its pieces exist. */
static CUresult staging_grow(pcc_staging *st, int want)
{
    for (int i = st->nworkers; i < want; i++) {
        stage_worker *w = &st->w[i];
        CUresult rc = pcc_drv.cuStreamCreate(&w->stream, CU_STREAM_DEFAULT);
        for (int b = 0; b < 2 && rc == CUDA_SUCCESS; b++) {
            rc = pcc_drv.cuMemHostAlloc(&w->buf[b], st->chunk, 0);
            if (rc == CUDA_SUCCESS)
                rc = pcc_drv.cuEventCreate(&w->ev[b], CU_EVENT_DISABLE_TIMING);
        }
        if (rc != CUDA_SUCCESS) {
            worker_free(w);
            return rc;
        }
        st->nworkers = i + 1;
    }
    return CUDA_SUCCESS;
}

typedef struct {
    pcc_staging *st;
    CUcontext ctx;
    int to_device;
    CUdeviceptr dev;
    char *host;
    size_t n, nchunks;
    int index, nworkers, set_ctx;
    CUresult rc;
} stage_job;

static void *stage_run(void *arg)
{
    stage_job *j = arg;
    stage_worker *w = &j->st->w[j->index];
    size_t chunk = j->st->chunk;
    CUresult rc = CUDA_SUCCESS;
    if (j->set_ctx)
        rc = pcc_drv.cuCtxSetCurrent(j->ctx);
    if (j->to_device) {
        int used[2] = {0, 0}, b = 0;
        for (size_t k = (size_t)j->index; k < j->nchunks && rc == CUDA_SUCCESS;
             k += (size_t)j->nworkers, b ^= 1) {
            size_t off = k * chunk, len = j->n - off < chunk ? j->n - off : chunk;
            if (used[b] && (rc = pcc_drv.cuEventSynchronize(w->ev[b])) != CUDA_SUCCESS)
                break;
            memcpy(w->buf[b], j->host + off, len);
            rc = pcc_drv.cuMemcpyHtoDAsync(j->dev + off, w->buf[b], len, w->stream);
            if (rc == CUDA_SUCCESS)
                rc = pcc_drv.cuEventRecord(w->ev[b], w->stream);
            used[b] = 1;
        }
    } else {
        /* Issue chunk k+1's DMA before draining chunk k into the destination. */
        size_t k = (size_t)j->index;
        int b = 0;
        if (k < j->nchunks) {
            size_t len = j->n - k * chunk < chunk ? j->n - k * chunk : chunk;
            rc = pcc_drv.cuMemcpyDtoHAsync(w->buf[0], j->dev + k * chunk, len, w->stream);
            if (rc == CUDA_SUCCESS)
                rc = pcc_drv.cuEventRecord(w->ev[0], w->stream);
        }
        while (k < j->nchunks && rc == CUDA_SUCCESS) {
            size_t next = k + (size_t)j->nworkers;
            if (next < j->nchunks) {
                size_t len = j->n - next * chunk < chunk ? j->n - next * chunk : chunk;
                rc = pcc_drv.cuMemcpyDtoHAsync(w->buf[b ^ 1], j->dev + next * chunk, len,
                                               w->stream);
                if (rc == CUDA_SUCCESS)
                    rc = pcc_drv.cuEventRecord(w->ev[b ^ 1], w->stream);
                if (rc != CUDA_SUCCESS)
                    break;
            }
            if ((rc = pcc_drv.cuEventSynchronize(w->ev[b])) != CUDA_SUCCESS)
                break;
            size_t off = k * chunk, len = j->n - off < chunk ? j->n - off : chunk;
            memcpy(j->host + off, w->buf[b], len);
            k = next;
            b ^= 1;
        }
    }
    CUresult rc2 = pcc_drv.cuStreamSynchronize(w->stream);
    j->rc = rc != CUDA_SUCCESS ? rc : rc2;
    return NULL;
}

/* Runs a staged copy; GIL released, the context current, st->lock held.
 * Returns CUDA_SUCCESS, a driver error, or -1 when staging could not be set
 * up (the caller then uses the plain copy). */
static CUresult staged_copy(pcc_staging *st, CUcontext ctx, int to_device, CUdeviceptr dev,
                            char *host, size_t n)
{
    size_t nchunks = (n + st->chunk - 1) / st->chunk;
    int nw = staged_threads();
    if ((size_t)nw > nchunks)
        nw = (int)nchunks;
    if (st->nworkers < nw && staging_grow(st, nw) != CUDA_SUCCESS) {
        if (st->nworkers < 1)
            return (CUresult)-1;
    }
    if (nw > st->nworkers)
        nw = st->nworkers;
    /* The documented order of a pageable cuMemcpyHtoD/DtoH: after all work
     * already queued on the legacy default stream (and so on every blocking
     * stream). The worker streams are separate, so wait for that here. */
    CUresult rc0 = pcc_drv.cuStreamSynchronize(NULL);
    if (rc0 != CUDA_SUCCESS)
        return rc0;
    stage_job jobs[PCC_STAGE_MAX_WORKERS];
    pthread_t tids[PCC_STAGE_MAX_WORKERS];
    int started[PCC_STAGE_MAX_WORKERS] = {0};
    for (int i = 0; i < nw; i++) {
        jobs[i] = (stage_job){.st = st, .ctx = ctx, .to_device = to_device, .dev = dev,
                              .host = host, .n = n, .nchunks = nchunks, .index = i,
                              .nworkers = nw, .set_ctx = i > 0, .rc = CUDA_SUCCESS};
    }
    for (int i = 1; i < nw; i++)
        started[i] = pthread_create(&tids[i], NULL, stage_run, &jobs[i]) == 0;
    stage_run(&jobs[0]);
    for (int i = 1; i < nw; i++) {
        if (started[i])
            pthread_join(tids[i], NULL);
        else
            stage_run(&jobs[i]); /* no thread: do its share here */
    }
    for (int i = 0; i < nw; i++)
        if (jobs[i].rc != CUDA_SUCCESS)
            return jobs[i].rc;
    return CUDA_SUCCESS;
}

/* A synchronous copy between host and device; staged when that pays.
 * GIL held on entry and exit; the context is current. */
static CUresult copy_sync(PyObject *devobj, int to_device, CUdeviceptr dev, char *host,
                          size_t n, int *staged_out)
{
    CUresult rc = (CUresult)-1;
    *staged_out = 0;
    if (staged_wanted(n, host, to_device)) {
        PyObject *ctxobj;
        if (pcc_is_device_allocation(devobj)) {
            ctxobj = ((PccDeviceAllocation *)devobj)->context;
            Py_XINCREF(ctxobj);
        } else {
            ctxobj = pcc_context_current();
        }
        if (ctxobj == NULL) {
            PyErr_Clear();
        } else {
            PccContext *c = (PccContext *)ctxobj;
            pcc_staging *st = c->released ? NULL : staging_of(c);
            if (st != NULL && pthread_mutex_trylock(&st->lock) == 0) {
                Py_BEGIN_ALLOW_THREADS
                rc = staged_copy(st, c->ctx, to_device, dev, host, n);
                Py_END_ALLOW_THREADS
                pthread_mutex_unlock(&st->lock);
                *staged_out = rc != (CUresult)-1;
            }
            Py_DECREF(ctxobj);
        }
    }
    if (rc == (CUresult)-1) {
        Py_BEGIN_ALLOW_THREADS
        rc = to_device ? pcc_drv.cuMemcpyHtoD(dev, host, n)
                       : pcc_drv.cuMemcpyDtoH(host, dev, n);
        Py_END_ALLOW_THREADS
    }
    return rc;
}

/* ---- host <-> device -------------------------------------------------------- */

/* The argument names a copy's errors quote, one set per entry point: string
 * literals, so that a copy formats no text unless it fails. */
typedef struct {
    const char *dest, *src, *size;
} copy_names;
#define COPY_NAMES(f) {f "(dest)", f "(src)", f "(size): size"}
static const copy_names names_htod = COPY_NAMES("memcpy_htod"),
                        names_dtoh = COPY_NAMES("memcpy_dtoh"),
                        names_htod_async = COPY_NAMES("memcpy_htod_async"),
                        names_dtoh_async = COPY_NAMES("memcpy_dtoh_async"),
                        names_dtod = COPY_NAMES("memcpy_dtod"),
                        names_dtod_async = COPY_NAMES("memcpy_dtod_async");

static PyObject *copy_host_device(PyObject *devobj, PyObject *hostobj, PyObject *stream,
                                  int to_device, int is_async, const copy_names *nm)
{
    const char *what_dev = to_device ? nm->dest : nm->src;
    const char *what_host = to_device ? nm->src : nm->dest;
    CUdeviceptr p;
    size_t avail;
    hostbuf hb;
    if (pcc_devptr_arg(devobj, &p, &avail, what_dev) < 0)
        return NULL;
    if (hostbuf_get(hostobj, &hb, !to_device, what_host) < 0)
        return NULL;
    PyObject *result = NULL;
    pcc_ctx_guard g = {NULL, 0};
    CUstream s = NULL;
    if (is_async && pcc_stream_arg(stream, &s, "stream") < 0)
        goto done;
    if (avail != (size_t)-1 && hb.len > avail) {
        too_small(what_dev, hb.len, avail);
        goto done;
    }
    if (pcc_ready() < 0 || enter_for(devobj, &g) < 0)
        goto done;
    if (hb.len == 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (avail == (size_t)-1 && (avail = pcc_device_range(p)) != (size_t)-1 && hb.len > avail) {
        too_small(what_dev, hb.len, avail);
        goto done;
    }
    CUresult rc;
    const char *call;
    if (is_async) {
        Py_BEGIN_ALLOW_THREADS
        rc = to_device ? pcc_drv.cuMemcpyHtoDAsync(p, hb.buf, hb.len, s)
                       : pcc_drv.cuMemcpyDtoHAsync(hb.buf, p, hb.len, s);
        Py_END_ALLOW_THREADS
        call = to_device ? "cuMemcpyHtoDAsync" : "cuMemcpyDtoHAsync";
    } else {
        int staged;
        rc = copy_sync(devobj, to_device, p, hb.buf, hb.len, &staged);
        call = staged ? (to_device ? "cuMemcpyHtoDAsync (staged)" : "cuMemcpyDtoHAsync (staged)")
                      : (to_device ? "cuMemcpyHtoD" : "cuMemcpyDtoH");
    }
    if (pcc_check(rc, call) < 0)
        goto done;
    /* The host memory must outlive the queued copy; a captured copy's device
     * memory, the graph that replays it. */
    if (is_async && (pcc_stream_keep_alive(stream, hostobj) < 0 ||
                     pcc_capture_keep(stream, devobj) < 0))
        goto done;
    result = Py_None;
    Py_INCREF(result);
done:
    pcc_ctx_leave(&g);
    hostbuf_release(&hb);
    return result;
}

static PyObject *py_memcpy_htod(PyObject *mod, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    (void)mod;
    static const char *const names[] = {"dest", "src"};
    PyObject *a[2];
    if (nargs == 2 && kwnames == NULL) {
        a[0] = args[0];
        a[1] = args[1];
    } else if (fast_args(args, nargs, kwnames, names, 2, 2, a, "memcpy_htod") < 0) {
        return NULL;
    }
    return copy_host_device(a[0], a[1], NULL, 1, 0, &names_htod);
}

static PyObject *py_memcpy_dtoh(PyObject *mod, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    (void)mod;
    static const char *const names[] = {"dest", "src"};
    PyObject *a[2];
    if (fast_args(args, nargs, kwnames, names, 2, 2, a, "memcpy_dtoh") < 0)
        return NULL;
    return copy_host_device(a[1], a[0], NULL, 0, 0, &names_dtoh);
}

static PyObject *py_memcpy_htod_async(PyObject *mod, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    (void)mod;
    static const char *const names[] = {"dest", "src", "stream"};
    PyObject *a[3];
    if (fast_args(args, nargs, kwnames, names, 2, 3, a, "memcpy_htod_async") < 0)
        return NULL;
    return copy_host_device(a[0], a[1], a[2] ? a[2] : Py_None, 1, 1, &names_htod_async);
}

static PyObject *py_memcpy_dtoh_async(PyObject *mod, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    (void)mod;
    static const char *const names[] = {"dest", "src", "stream"};
    PyObject *a[3];
    if (fast_args(args, nargs, kwnames, names, 2, 3, a, "memcpy_dtoh_async") < 0)
        return NULL;
    return copy_host_device(a[1], a[0], a[2] ? a[2] : Py_None, 0, 1, &names_dtoh_async);
}

/* ---- device <-> device ------------------------------------------------------- */

static PyObject *copy_dtod(PyObject *const *a, int is_async, const copy_names *nm)
{
    CUdeviceptr dst, src;
    size_t dst_avail, src_avail, n;
    if (pcc_devptr_arg(a[0], &dst, &dst_avail, nm->dest) < 0 ||
        pcc_devptr_arg(a[1], &src, &src_avail, nm->src) < 0 || pcc_size_arg(a[2], &n, nm->size) < 0)
        return NULL;
    CUstream s = NULL;
    PyObject *stream = is_async && a[3] ? a[3] : Py_None;
    if (is_async && pcc_stream_arg(stream, &s, "stream") < 0)
        return NULL;
    const char *wd = nm->dest, *ws = nm->src;
    if (dst_avail != (size_t)-1 && n > dst_avail)
        return too_small(wd, n, dst_avail), NULL;
    if (src_avail != (size_t)-1 && n > src_avail)
        return too_small(ws, n, src_avail), NULL;
    if (pcc_ready() < 0)
        return NULL;
    pcc_ctx_guard g;
    if (enter_for(a[0], &g) < 0)
        return NULL;
    PyObject *result = NULL;
    if (n > 0) {
        if (dst_avail == (size_t)-1 && (dst_avail = pcc_device_range(dst)) != (size_t)-1 &&
            n > dst_avail) {
            too_small(wd, n, dst_avail);
            goto done;
        }
        if (src_avail == (size_t)-1 && (src_avail = pcc_device_range(src)) != (size_t)-1 &&
            n > src_avail) {
            too_small(ws, n, src_avail);
            goto done;
        }
        CUresult rc;
        Py_BEGIN_ALLOW_THREADS
        rc = is_async ? pcc_drv.cuMemcpyDtoDAsync(dst, src, n, s)
                      : pcc_drv.cuMemcpyDtoD(dst, src, n);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, is_async ? "cuMemcpyDtoDAsync" : "cuMemcpyDtoD") < 0)
            goto done;
        if (is_async && (pcc_capture_keep(stream, a[0]) < 0 || pcc_capture_keep(stream, a[1]) < 0))
            goto done;
    }
    result = Py_None;
    Py_INCREF(result);
done:
    pcc_ctx_leave(&g);
    return result;
}

static PyObject *py_memcpy_dtod(PyObject *mod, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    (void)mod;
    static const char *const names[] = {"dest", "src", "size"};
    PyObject *a[4] = {NULL, NULL, NULL, NULL};
    if (fast_args(args, nargs, kwnames, names, 3, 3, a, "memcpy_dtod") < 0)
        return NULL;
    return copy_dtod(a, 0, &names_dtod);
}

static PyObject *py_memcpy_dtod_async(PyObject *mod, PyObject *const *args, Py_ssize_t nargs,
                                      PyObject *kwnames)
{
    (void)mod;
    static const char *const names[] = {"dest", "src", "size", "stream"};
    PyObject *a[4];
    if (fast_args(args, nargs, kwnames, names, 3, 4, a, "memcpy_dtod_async") < 0)
        return NULL;
    return copy_dtod(a, 1, &names_dtod_async);
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS

static PyMethodDef memcpy_methods[] = {
    {"memcpy_htod", FASTKW(py_memcpy_htod),
     "memcpy_htod(dest, src): copy host buffer `src` to device memory `dest`."},
    {"memcpy_dtoh", FASTKW(py_memcpy_dtoh),
     "memcpy_dtoh(dest, src): copy device memory `src` into host buffer `dest`."},
    {"memcpy_htod_async", FASTKW(py_memcpy_htod_async),
     "memcpy_htod_async(dest, src, stream=None); `src` is kept alive until the copy is done."},
    {"memcpy_dtoh_async", FASTKW(py_memcpy_dtoh_async),
     "memcpy_dtoh_async(dest, src, stream=None); `dest` is kept alive until the copy is done."},
    {"memcpy_dtod", FASTKW(py_memcpy_dtod), "memcpy_dtod(dest, src, size)"},
    {"memcpy_dtod_async", FASTKW(py_memcpy_dtod_async),
     "memcpy_dtod_async(dest, src, size, stream=None)"},
    {NULL, NULL, 0, NULL}};

int pcc_memcpy_init(PyObject *module)
{
    import_array1(-1);
    return PyModule_AddFunctions(module, memcpy_methods);
}
