/*
 * launch/call.c — the call path of a Function.
 *
 * f(*args, block=, grid=, shared=, stream=, time_kernel=, cooperative=,
 * cluster=, priority=) is
 * a vectorcall with two paths. do_launch is the common call, kept short: the keyword
 * tuple of the last call (its slots cached), the block and grid tuples the
 * last launch parsed, a Stream or none, and arguments pack_fast converts
 * (launch/pack.c) into a stack buffer, launched with
 * CU_LAUNCH_PARAM_BUFFER_POINTER; with cluster= besides (the tuple the last
 * such launch took), the same path through cuLaunchKernelEx, reached only
 * from the keyword search, so the plain call pays nothing for it.
 * Everything else, and every error but the driver's, is launch_general: it
 * parses the launch configuration against the device's limits (read once
 * per device, at creation in launch/function.c),
 * so a bad block or grid is a ValueError that leaves the context usable,
 * packs through the whole plan (launch/plan.c, launch/pack.c,
 * launch/pointer.c) and runs In/Out/InOut copies (launch/handlers.c) and
 * time_kernel's events;
 * cooperative=True launches there through launch/cooperative.c.
 * Also here: PyCUDA's prepare/prepared_*call and pack(), which share the
 * parsing and the packer with the plain call.
 */
#include "launch/call.h"
#include "launch/plan.h"

#include <string.h>

#include "driver/loader.h"
#include "core/memory.h"
#include "core/capture.h"
#include "core/stream.h"
#include "util/nvtx.h"

#define STACK_ARGS 4096


/* ----------------------------------------------------- launch config */

/* A dimension tuple: 1 to 3 positive ints. `grid` selects the limits. */
static int parse_dims(PccFunction *f, PyObject *o, unsigned int out[3], int grid)
{
    const char *what = grid ? "grid" : "block";
    out[0] = out[1] = out[2] = 1;
    if (!PyTuple_Check(o) && !PyList_Check(o)) {
        PyErr_Format(PyExc_TypeError, "kernel '%U': %s must be a tuple of 1 to 3 ints, not "
                     "%.100s", f->name, what, Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if (n < 1 || n > 3) {
        PyErr_Format(PyExc_ValueError, "kernel '%U': %s must have 1 to 3 dimensions, got %zd",
                     f->name, what, n);
        return -1;
    }
    static const char *axis = "xyz";
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *v = PySequence_Fast_GET_ITEM(o, k);
        long long x;
        if (PyLong_CheckExact(v)) {
            x = PyLong_AsLongLong(v);
        } else if (PyIndex_Check(v) && !PyBool_Check(v)) {
            PyObject *iv = PyNumber_Index(v);
            if (iv == NULL)
                return -1;
            x = PyLong_AsLongLong(iv);
            Py_DECREF(iv);
        } else {
            PyErr_Format(PyExc_TypeError, "kernel '%U': %s.%c must be an int, not %.100s",
                         f->name, what, axis[k], Py_TYPE(v)->tp_name);
            return -1;
        }
        if (x == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            x = -2; /* huge: reported as out of range below */
        }
        long long lim = grid ? (long long)f->max_grid[k] : (long long)f->max_block[k];
        if (x < 1 || x > lim || x == -2) {
            if (x == -2)
                PyErr_Format(PyExc_ValueError, "kernel '%U': %s.%c is out of range (1..%lld)",
                             f->name, what, axis[k], lim);
            else
                PyErr_Format(PyExc_ValueError, "kernel '%U': %s.%c = %lld is out of range "
                             "(1..%lld on this device)", f->name, what, axis[k], x, lim);
            return -1;
        }
        out[k] = (unsigned int)x;
    }
    if (!grid) {
        unsigned long long t = (unsigned long long)out[0] * out[1] * out[2];
        if (t > (unsigned long long)f->max_threads) {
            PyErr_Format(PyExc_ValueError, "kernel '%U': block (%u, %u, %u) has %llu threads; "
                         "this device allows at most %d per block", f->name, out[0], out[1],
                         out[2], t, f->max_threads);
            return -1;
        }
    }
    return 0;
}

/* parse_dims, remembering the tuple for dims_of. */
static PCC_NOINLINE int parse_and_remember_dims(PccFunction *f, PyObject *o, unsigned int out[3],
                                                int grid)
{
    if (parse_dims(f, o, out, grid) < 0)
        return -1;
    if (PyTuple_CheckExact(o)) {
        Py_XSETREF(f->last_dims[grid], Py_NewRef(o));
        memcpy(f->last_parsed[grid], out, sizeof f->last_parsed[grid]);
    }
    return 0;
}

/* The last tuple parsed is remembered: tuples are immutable, so the same
 * object (kept alive here) always means the same, already checked, dims. */
static inline int dims_of(PccFunction *f, PyObject *o, unsigned int out[3], int grid)
{
    if (o == f->last_dims[grid]) {
        memcpy(out, f->last_parsed[grid], sizeof f->last_parsed[grid]);
        return 0;
    }
    return parse_and_remember_dims(f, o, out, grid);
}

static int parse_shared(PccFunction *f, PyObject *o, unsigned int *out)
{
    *out = 0;
    if (o == NULL || o == Py_None)
        return 0;
    if (!PyIndex_Check(o) || PyBool_Check(o)) {
        PyErr_Format(PyExc_TypeError, "kernel '%U': shared must be an int (bytes of dynamic "
                     "shared memory), not %.100s", f->name, Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t v = PyNumber_AsSsize_t(o, NULL);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0 || v > 0x7fffffff) {
        PyErr_Format(PyExc_ValueError, "kernel '%U': shared = %zd bytes is out of range",
                     f->name, v);
        return -1;
    }
    if ((int)v > f->smem_allowed) {
        /* Over the default 48 KiB: opt in when the device allows it. */
        if (f->static_smem < 0) {
            int s = 0;
            if (pcc_check(pcc_drv.cuFuncGetAttribute(&s, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                                     f->fn), "cuFuncGetAttribute") < 0)
                return -1;
            f->static_smem = s;
        }
        if (f->smem_optin <= 0 || v + f->static_smem > f->smem_optin) {
            PyErr_Format(PyExc_ValueError, "kernel '%U': shared = %zd bytes of dynamic shared "
                         "memory (plus %d static) exceeds this device's limit of %d bytes per "
                         "block", f->name, v, f->static_smem,
                         f->smem_optin > 0 ? f->smem_optin : 48 * 1024);
            return -1;
        }
        if (pcc_check(pcc_drv.cuFuncSetAttribute(
                          f->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)v),
                      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)") < 0)
            return -1;
        f->smem_allowed = (int)v;
    }
    *out = (unsigned int)v;
    return 0;
}

/* ---------------------------------------------------------------- launch */

typedef struct {
    PyObject *grid, *block, *shared, *stream;
    int time_kernel;
    int cooperative; /* only launch_general reads it, */
    PyObject *cluster, *priority; /* and these (cuLaunchKernelEx: launch/attrs.c) */
} launch_opts;

/* cuLaunchKernel. A backend whose launch runs the whole kernel before it
 * returns (the simulator) gets the GIL released around it, so other Python
 * threads keep running; a GPU's launch only queues, and keeps the GIL. */
static inline CUresult launch_kernel(CUfunction fn, const unsigned int g[3],
                                     const unsigned int b[3], unsigned int shared,
                                     CUstream stream, void **extra)
{
    CUresult rc;
    if (PCC_UNLIKELY(pcc_st.backend->launch_blocks)) {
        Py_BEGIN_ALLOW_THREADS
        rc = pcc_drv.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], shared, stream,
                                    NULL, extra);
        Py_END_ALLOW_THREADS
        return rc;
    }
    return pcc_drv.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], shared, stream, NULL,
                                  extra);
}

/* cuLaunchKernelEx with one attribute, the cluster c (no dynamic shared
 * memory): the fast path's cluster launch. */
static inline CUresult launch_in_clusters(CUfunction fn, const unsigned int g[3],
                                          const unsigned int b[3], CUstream stream,
                                          const unsigned int c[3], void **extra)
{
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = c[0];
    attr.value.clusterDim.y = c[1];
    attr.value.clusterDim.z = c[2];
    CUlaunchConfig cfg = {g[0], g[1], g[2], b[0], b[1], b[2], 0, stream, &attr, 1};
    return pcc_launch_kernel_ex(&cfg, fn, extra);
}

/* A failed cuLaunchKernel: the driver's error, naming the kernel. NULL. */
/* CUDA_ERROR_INVALID_CLUSTER_SIZE (no cudadrv.h name before CUDA 12's). */
#define PCC_INVALID_CLUSTER_SIZE 912

static PCC_NOINLINE PyObject *launch_failed(PccFunction *f, CUresult rc, const unsigned int g[3])
{
    char call[256];
    const char *s = PyUnicode_AsUTF8(f->name);
    snprintf(call, sizeof call, "cuLaunchKernel (kernel '%.200s')", s ? s : "?");
    if (s == NULL)
        PyErr_Clear();
    int c[3] = {0, 0, 0};
    if ((rc == PCC_INVALID_CLUSTER_SIZE || rc == CUDA_ERROR_INVALID_VALUE) &&
        pcc_drv.cuFuncGetAttribute != NULL &&
        pcc_drv.cuFuncGetAttribute(&c[0], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f->fn) ==
            CUDA_SUCCESS &&
        pcc_drv.cuFuncGetAttribute(&c[1], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, f->fn) ==
            CUDA_SUCCESS &&
        pcc_drv.cuFuncGetAttribute(&c[2], CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, f->fn) ==
            CUDA_SUCCESS &&
        c[0] > 0 && (g[0] % (unsigned)c[0] || (c[1] > 0 && g[1] % (unsigned)c[1]) ||
                     (c[2] > 0 && g[2] % (unsigned)c[2]))) {
        /* the kernel's __cluster_dims__: asked only now (a launch that works
         * asks nothing) */
        PyErr_Format(PyExc_ValueError, "kernel '%U' has __cluster_dims__(%d, %d, %d): its grid "
                     "(%u, %u, %u) must be a whole number of clusters in every dimension",
                     f->name, c[0], c[1] > 0 ? c[1] : 1, c[2] > 0 ? c[2] : 1, g[0], g[1], g[2]);
        return NULL;
    }
    pcc_raise(rc, call);
    return NULL;
}

static PyObject *seconds_callable(double secs);

/* The whole call: pack, copy In/InOut, launch, copy Out back. */
/* A launch into a capture becomes a node the graph replays later: the
 * Function (its module stays loaded) and the arguments (device memory among
 * them) are kept as long as the graph. */
static PCC_NOINLINE int keep_args_if_captured(PccFunction *f, PyObject *stream,
                                              PyObject *const *args, Py_ssize_t nargs)
{
    if (!PyObject_TypeCheck(stream, pcc_st.Stream) || ((PccStream *)stream)->capture == NULL)
        return 0;
    PyObject *t = PyTuple_New(nargs + 1);
    if (t == NULL)
        return -1;
    PyTuple_SET_ITEM(t, 0, Py_NewRef((PyObject *)f));
    for (Py_ssize_t k = 0; k < nargs; k++)
        PyTuple_SET_ITEM(t, k + 1, Py_NewRef(args[k]));
    int rc = pcc_capture_keep(stream, t);
    Py_DECREF(t);
    return rc < 0 ? -1 : 0;
}

/* The whole call, for every case: parse, pack, In/Out copies, events. */
static PyObject *launch_general_body(PccFunction *f, PyObject *const *args, Py_ssize_t nargs,
                                     launch_opts *o)
{
    _Alignas(16) char stackbuf[STACK_ARGS];
    char *buf = stackbuf;
    pcc_call_state cs = {0};
    PyObject *result = NULL;
    CUevent ev0 = NULL, ev1 = NULL;
    unsigned int g[3], b[3], shared = 0;
    CUstream stream = NULL;
    CUresult rc;

    pcc_general_launches++;
    /* a detached context took its modules (and memory) with it */
    if (PCC_UNLIKELY(pcc_context_gone(f->context))) {
        PyErr_Format(pcc_st.LogicError, "kernel '%U': the context its module was loaded in was "
                     "detached (the module went with it): load it again", f->name);
        return NULL;
    }
    if (PCC_UNLIKELY(pcc_ready() < 0))
        return NULL;
    /* a thread's first call: no context is current there yet */
    pcc_context_adopt(f->context);
    if (PCC_UNLIKELY(o->block == NULL)) {
        PyErr_Format(PyExc_ValueError, "kernel '%U': the block size must be given "
                     "(block=(x, y, z))", f->name);
        return NULL;
    }
    if (PCC_UNLIKELY(dims_of(f, o->block, b, 0) < 0))
        return NULL;
    if (o->grid == NULL)
        g[0] = g[1] = g[2] = 1;
    else if (PCC_UNLIKELY(dims_of(f, o->grid, g, 1) < 0))
        return NULL;
    if (PCC_UNLIKELY(o->shared != NULL) && parse_shared(f, o->shared, &shared) < 0)
        return NULL;
    if (o->stream != NULL && pcc_st.Stream && Py_IS_TYPE(o->stream, pcc_st.Stream) &&
        !pcc_context_gone(((PccStream *)o->stream)->context))
        stream = ((PccStream *)o->stream)->stream; /* the common case, inline */
    else if (o->stream != NULL && o->stream != Py_None &&
             pcc_stream_arg(o->stream, &stream, "stream") < 0)
        return NULL;
    if (PCC_UNLIKELY(f->argsize > STACK_ARGS)) {
        buf = PyMem_Malloc(f->argsize);
        if (buf == NULL)
            return PyErr_NoMemory();
    }
    if (f->ngap_words != 0)
        memset(buf, 0, f->argsize); /* the padding between parameters */
    if (PCC_UNLIKELY(pcc_pack_args(f, args, nargs, buf, &cs) < 0))
        goto done;
    int async = o->stream != NULL && o->stream != Py_None;
    if (PCC_UNLIKELY(cs.nhandlers > 0) && pcc_handlers_copy_in(&cs, async, o->stream, stream) < 0)
        goto done;
    if (PCC_UNLIKELY(o->time_kernel)) {
        if (pcc_check(pcc_drv.cuEventCreate(&ev0, CU_EVENT_DEFAULT), "cuEventCreate") < 0 ||
            pcc_check(pcc_drv.cuEventCreate(&ev1, CU_EVENT_DEFAULT), "cuEventCreate") < 0 ||
            pcc_check(pcc_drv.cuEventRecord(ev0, stream), "cuEventRecord") < 0)
            goto done;
    }
    size_t size = f->argsize;
    void *extra[] = {PCC_LAUNCH_PARAM_BUFFER_POINTER, buf, PCC_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     PCC_LAUNCH_PARAM_END};
    if (PCC_UNLIKELY(o->cluster != NULL || o->priority != NULL)) {
        if (pcc_launch_ex((PyObject *)f, g, b, shared, stream, buf, o->cluster, o->priority,
                          o->cooperative) < 0)
            goto done;
    } else if (PCC_UNLIKELY(o->cooperative)) {
        if (pcc_launch_cooperative((PyObject *)f, g, b, shared, stream, buf) < 0)
            goto done;
    } else if (PCC_UNLIKELY((rc = launch_kernel(f->fn, g, b, shared, stream,
                                                size ? extra : NULL)) != CUDA_SUCCESS)) {
        launch_failed(f, rc, g);
        goto done;
    }
    pcc_note_launch((PyObject *)f, f->name);
    if (PCC_UNLIKELY(o->stream != NULL && o->stream != Py_None) &&
        keep_args_if_captured(f, o->stream, args, nargs) < 0)
        goto done;
    if (PCC_UNLIKELY(o->time_kernel) &&
        pcc_check(pcc_drv.cuEventRecord(ev1, stream), "cuEventRecord") < 0)
        goto done;
    if (PCC_UNLIKELY(cs.nhandlers > 0) && pcc_handlers_copy_out(&cs, async, o->stream, stream) < 0)
        goto done;
    if (PCC_UNLIKELY(o->time_kernel)) {
        float ms = 0;
        Py_BEGIN_ALLOW_THREADS
        rc = pcc_drv.cuEventSynchronize(ev1);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, "cuEventSynchronize") < 0 ||
            pcc_check(pcc_drv.cuEventElapsedTime(&ms, ev0, ev1), "cuEventElapsedTime") < 0)
            goto done;
        result = PyFloat_FromDouble(ms / 1000.0);
    } else {
        result = Py_NewRef(Py_None);
    }
done:
    if (ev0 && !pcc_skip_free())
        pcc_drv.cuEventDestroy(ev0);
    if (ev1 && !pcc_skip_free())
        pcc_drv.cuEventDestroy(ev1);
    if (cs.handlers)
        pcc_call_state_clear(&cs);
    if (buf != stackbuf)
        PyMem_Free(buf);
    return result;
}

/* launch_general_body, inside a profiler's range named after the kernel
 * when one is attached (util/nvtx.c; one load and a branch when none is).
 * The fast path (do_launch) has no range: the driver's own launch trace
 * shows those. */
static PCC_NOINLINE PyObject *launch_general(PccFunction *f, PyObject *const *args,
                                             Py_ssize_t nargs, launch_opts *o)
{
    if (!pcc_nvtx_active()) /* (pcc_nvtx_active says "not" as the likely case) */
        return launch_general_body(f, args, nargs, o);
    char message[160];
    const char *name = PyUnicode_AsUTF8(f->name);
    if (name == NULL)
        PyErr_Clear();
    snprintf(message, sizeof message, "launch %s", name ? name : "?");
    pcc_nvtx_own_push(message, PCC_NVTX_LAUNCH);
    PyObject *result = launch_general_body(f, args, nargs, o);
    pcc_nvtx_own_pop();
    return result;
}

/* The common call, and only what it needs: the block (and grid) tuples the
 * last launch parsed, a Stream or no stream, no shared memory, no
 * time_kernel, parameters pack_fast takes, on either backend; with
 * `in_clusters` (a constant at each call site), the cluster= tuple the last
 * launch took (launch/attrs.c checked it then; the grid is checked here).
 * Anything else takes launch_general, which also makes every error but the
 * driver's. Short on purpose: the driver's launch evicts the CPU's
 * instruction cache between calls, so each line of code run here is a miss
 * (see pack_fast). */
static inline __attribute__((always_inline)) PyObject *
do_launch(PccFunction *f, PyObject *const *args, Py_ssize_t nargs, launch_opts *o,
          int in_clusters)
{
    PyObject *st = o->stream;
    CUstream stream = NULL;
    if (st != NULL && st != Py_None) {
        /* a capturing stream: launch_general keeps the arguments with the graph */
        if (!Py_IS_TYPE(st, pcc_st.Stream) || ((PccStream *)st)->capture != NULL ||
            PCC_UNLIKELY(pcc_context_gone(((PccStream *)st)->context)))
            return launch_general(f, args, nargs, o);
        stream = ((PccStream *)st)->stream;
    }
    const unsigned int *g = f->last_parsed[1];
    static const unsigned int ones[3] = {1, 1, 1};
    if (o->grid == NULL)
        g = ones;
    else if (o->grid != f->last_dims[1])
        return launch_general(f, args, nargs, o);
    if (PCC_UNLIKELY(o->block == NULL || o->block != f->last_dims[0] || o->shared != NULL ||
                     o->time_kernel || nargs != f->fast_nparams ||
                     pcc_context_gone(f->context)))
        return launch_general(f, args, nargs, o);
    const unsigned int *c = f->last_cluster_dims;
    if (in_clusters && (o->cluster != f->last_cluster || pcc_drv.cuLaunchKernelEx == NULL ||
                        g[0] % c[0] != 0 || g[1] % c[1] != 0 || g[2] % c[2] != 0))
        return launch_general(f, args, nargs, o);
    if (PCC_UNLIKELY(pcc_ready() < 0)) /* poisoned or forked: its exception is set */
        return NULL;
    _Alignas(16) char buf[PCC_FAST_ARGS];
    if (PCC_UNLIKELY(f->ngap_words < 0)) {
        memset(buf, 0, f->argsize);
    } else { /* the padding between parameters, a word at a time */
        const unsigned long long zero = 0;
        for (int k = 0; k < f->ngap_words; k++)
            memcpy(buf + f->gap_words[k], &zero, 8);
    }
    if (PCC_UNLIKELY(pcc_pack_fast(f, args, buf)))
        return launch_general(f, args, nargs, o);
    const unsigned int *b = f->last_parsed[0];
    size_t size = f->argsize;
    void *extra[] = {PCC_LAUNCH_PARAM_BUFFER_POINTER, buf, PCC_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     PCC_LAUNCH_PARAM_END};
#define FAST_LAUNCH()                                                                          \
    (in_clusters ? launch_in_clusters(f->fn, g, b, stream, c, size ? extra : NULL)               \
                 : launch_kernel(f->fn, g, b, 0, stream, size ? extra : NULL))
    CUresult rc = FAST_LAUNCH();
    if (PCC_UNLIKELY(rc == CUDA_ERROR_INVALID_CONTEXT) && pcc_context_adopt(f->context))
        rc = FAST_LAUNCH();
#undef FAST_LAUNCH
    if (PCC_UNLIKELY(rc != CUDA_SUCCESS)) {
        if (!in_clusters)
            return launch_failed(f, rc, g);
        pcc_launch_ex_failed((PyObject *)f, rc, g, c, 1);
        return NULL;
    }
    pcc_note_launch((PyObject *)f, f->name);
    Py_RETURN_NONE;
}

/* Which of `names` `key` is: by identity first (keywords written in source
 * are interned, so a launch loop never compares text), then by value. */
static int kw_index(PyObject *key, PyObject *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (key == names[i])
            return i;
    for (int i = 0; i < n; i++)
        if (PyUnicode_Compare(key, names[i]) == 0)
            return i;
    return -1;
}

static int kw_match(PyObject *key, PyObject *interned)
{
    return key == interned || PyUnicode_Compare(key, interned) == 0;
}

/* The launch keywords, in the order of their slots below. */
#define N_LAUNCH_KW 9

/* Where each launch keyword is in `kwnames`, into at[] (in the order of
 * the slots above; -1: not given). 0, or -1 with a TypeError naming the
 * first unexpected keyword. */
static int kw_positions(PccFunction *f, PyObject *kwnames, signed char at[N_LAUNCH_KW])
{
    PyObject *const names[N_LAUNCH_KW] = {pcc_st.str_block, pcc_st.str_grid, pcc_st.str_stream,
                                          pcc_st.str_shared, pcc_st.str_time_kernel,
                                          pcc_st.str_texrefs, pcc_st.str_cooperative,
                                          pcc_st.str_cluster, pcc_st.str_priority};
    memset(at, -1, N_LAUNCH_KW);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        int which = kw_index(key, names, N_LAUNCH_KW);
        /* a tuple of more than N_LAUNCH_KW names repeats one (only a C
         * caller can pass that) */
        if (which < 0 || k >= N_LAUNCH_KW) {
            PyErr_Format(PyExc_TypeError, "kernel '%U' got an unexpected keyword argument "
                         "'%U' (expected block, grid, shared, stream, time_kernel, "
                         "cooperative, cluster, priority)",
                         f->name, key);
            return -1;
        }
        at[which] = (signed char)k;
    }
    return 0;
}

/* pcc_st.kw_cached: the keyword names of the last call whose keywords all
 * matched, and where each launch keyword is in them: a launch loop passes
 * the same constant tuple on every call, so one identity test replaces the
 * search. Held strongly, so that no other tuple can take its address.
 * kw_cached_plain: they name only block, grid and stream (the fast path's
 * keywords). */
_Static_assert(sizeof pcc_st.kw_cached_at == N_LAUNCH_KW, "one slot per launch keyword");

/* block, grid and stream (the fast path's keywords) from the keyword values
 * kv by their slots at[]; block falls back to prepare()'s. */
static inline void opts_from_slots(PccFunction *f, launch_opts *o, PyObject *const *kv,
                                   const signed char at[N_LAUNCH_KW])
{
    o->block = at[0] >= 0 ? kv[at[0]] : f->prepared_block;
    o->grid = at[1] >= 0 ? kv[at[1]] : NULL;
    o->stream = at[2] >= 0 ? kv[at[2]] : NULL;
}

/* A yes-or-no launch keyword: a bool, an int or NumPy's bool (PyCUDA code
 * passes 1), None for no; anything else a TypeError naming it (a string was
 * true: cooperative="no" launched cooperatively). 0, 1, or -1. */
static int flag_arg(PccFunction *f, PyObject *v, const char *name)
{
    if (v == Py_None)
        return 0;
    if (PyBool_Check(v) || PyLong_Check(v) ||
        strcmp(Py_TYPE(v)->tp_name, "numpy.bool") == 0 ||
        strcmp(Py_TYPE(v)->tp_name, "numpy.bool_") == 0)
        return PyObject_IsTrue(v);
    PyErr_Format(PyExc_TypeError, "kernel '%U': %s= must be True or False, not %.100s", f->name,
                 name, Py_TYPE(v)->tp_name);
    return -1;
}

/* time_kernel=, texrefs=, cooperative=, cluster= and priority=, when given
 * (None for cluster or priority is not given). */
static PCC_NOINLINE int launch_flags(PccFunction *f, PyObject *const *kv,
                                     const signed char at[N_LAUNCH_KW], launch_opts *o)
{
    if (at[4] >= 0 && (o->time_kernel = flag_arg(f, kv[at[4]], "time_kernel")) < 0)
        return -1;
    if (at[6] >= 0 && (o->cooperative = flag_arg(f, kv[at[6]], "cooperative")) < 0)
        return -1;
    if (at[7] >= 0 && kv[at[7]] != Py_None)
        o->cluster = kv[at[7]];
    if (at[8] >= 0 && kv[at[8]] != Py_None)
        o->priority = kv[at[8]];
    if (at[5] >= 0) {
        int t = PyObject_IsTrue(kv[at[5]]);
        if (t < 0)
            return -1;
        if (t) {
            PyErr_Format(PyExc_TypeError, "kernel '%U': texture references are not "
                         "supported (texrefs must be empty)", f->name);
            return -1;
        }
    }
    return 0;
}

/* Whether `kwnames`, another tuple than kw_cached, holds the same names:
 * f(*args, block=...) gets a new tuple on every call, of the same
 * (interned) strings. */
static PCC_NOINLINE int kw_same_names(PyObject *kwnames)
{
    if (kwnames == NULL || pcc_st.kw_cached == NULL ||
        PyTuple_GET_SIZE(kwnames) != PyTuple_GET_SIZE(pcc_st.kw_cached))
        return 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++)
        if (PyTuple_GET_ITEM(kwnames, k) != PyTuple_GET_ITEM(pcc_st.kw_cached, k))
            return 0;
    return 1;
}

/* f(..., cluster=(x, y, z)) with no keyword but block, grid and stream
 * besides: the fast path, launched through cuLaunchKernelEx. */
static PCC_NOINLINE PyObject *launch_in_clusters_fast(PccFunction *f, PyObject *const *args,
                                                     Py_ssize_t nargs, launch_opts *o)
{
    return do_launch(f, args, nargs, o, 1);
}

/* A call whose keywords are not the cached plain ones: finds (and caches)
 * where each keyword is, then launches. */
static PCC_NOINLINE PyObject *call_with_keywords(PccFunction *f, PyObject *const *args,
                                                 Py_ssize_t nargs, PyObject *kwnames)
{
    launch_opts o = {NULL, NULL, NULL, NULL, 0, 0, NULL, NULL};
    if (kwnames) {
        /* a copy: a time_kernel's __bool__ may launch with other keywords */
        signed char at[N_LAUNCH_KW];
        if (kwnames == pcc_st.kw_cached || kw_same_names(kwnames)) {
            memcpy(at, pcc_st.kw_cached_at, sizeof at);
        } else {
            if (kw_positions(f, kwnames, at) < 0)
                return NULL;
            memcpy(pcc_st.kw_cached_at, at, sizeof at);
            pcc_st.kw_cached_plain = at[3] < 0 && at[4] < 0 && at[5] < 0 && at[6] < 0 &&
                                     at[7] < 0 && at[8] < 0;
            Py_INCREF(kwnames);
            Py_XSETREF(pcc_st.kw_cached, kwnames);
        }
        PyObject *const *kv = args + nargs;
        opts_from_slots(f, &o, kv, at);
        /* cluster= beside only the fast path's keywords: that path, in clusters */
        if (at[7] >= 0 && kv[at[7]] != Py_None && at[3] < 0 && at[4] < 0 && at[5] < 0 &&
            at[6] < 0 && at[8] < 0) {
            o.cluster = kv[at[7]];
            return launch_in_clusters_fast(f, args, nargs, &o);
        }
        o.shared = at[3] >= 0 ? kv[at[3]] : NULL;
        if ((at[4] >= 0 || at[5] >= 0 || at[6] >= 0 || at[7] >= 0 || at[8] >= 0) &&
            launch_flags(f, kv, at, &o) < 0)
            return NULL;
    } else {
        o.block = f->prepared_block;
    }
    return launch_general(f, args, nargs, &o);
}

PCC_HOT PyObject *pcc_function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                          PyObject *kwnames)
{
    PccFunction *f = (PccFunction *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (PCC_UNLIKELY(!pcc_st.kw_cached_plain ||
                     (kwnames != pcc_st.kw_cached && !kw_same_names(kwnames))))
        return call_with_keywords(f, args, nargs, kwnames);
    launch_opts o = {NULL, NULL, NULL, NULL, 0, 0, NULL, NULL};
    opts_from_slots(f, &o, args + nargs, pcc_st.kw_cached_at);
    return do_launch(f, args, nargs, &o, 0);
}

/* ------------------------------------------------------------ methods */

PyObject *pcc_function_pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PccFunction *f = (PccFunction *)self;
    pcc_call_state cs = {PCC_PACK_ONLY_BYTES, 0, NULL};
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)f->argsize);
    if (out == NULL)
        return NULL;
    char *buf = PyBytes_AS_STRING(out);
    memset(buf, 0, f->argsize);
    if (pcc_pack_args(f, args, nargs, buf, &cs) < 0) {
        pcc_call_state_clear(&cs);
        Py_DECREF(out);
        return NULL;
    }
    pcc_call_state_clear(&cs);
    return out;
}

int pcc_function_node_params(PyObject *func, PyObject *args, PyObject *block, PyObject *grid,
                             PyObject *shared, const char *what, CUDA_KERNEL_NODE_PARAMS *p,
                             char **buf, size_t *size)
{
    *buf = NULL;
    *size = 0;
    if (func == NULL || !PyObject_TypeCheck(func, pcc_st.Function)) {
        PyErr_Format(PyExc_TypeError, "%s: func must be a Function (from "
                     "SourceModule.get_function), not %.100s", what,
                     func ? Py_TYPE(func)->tp_name : "nothing");
        return -1;
    }
    PccFunction *f = (PccFunction *)func;
    unsigned int g[3] = {1, 1, 1}, b[3], sh = 0;
    if (block == NULL || block == Py_None)
        block = f->prepared_block;
    if (block == NULL) {
        PyErr_Format(PyExc_ValueError, "kernel '%U': the block size must be given "
                     "(block=(x, y, z))", f->name);
        return -1;
    }
    if (parse_dims(f, block, b, 0) < 0 ||
        (grid != NULL && grid != Py_None && parse_dims(f, grid, g, 1) < 0) ||
        parse_shared(f, shared, &sh) < 0)
        return -1;
    char *mem = NULL;
    if (f->argsize > 0) {
        mem = PyMem_Calloc(1, f->argsize);
        if (mem == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    pcc_call_state cs = {PCC_PACK_ONLY_NODE, 0, NULL};
    int rc = pcc_pack_args(f, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args), mem, &cs);
    pcc_call_state_clear(&cs);
    if (rc < 0) {
        PyMem_Free(mem);
        return -1;
    }
    memset(p, 0, sizeof *p);
    p->func = f->fn;
    p->gridDimX = g[0], p->gridDimY = g[1], p->gridDimZ = g[2];
    p->blockDimX = b[0], p->blockDimY = b[1], p->blockDimZ = b[2];
    p->sharedMemBytes = sh;
    *buf = mem;
    *size = f->argsize;
    return 0;
}

PyObject *pcc_function_prepare(PyObject *self, PyObject *args, PyObject *kwds)
{
    PccFunction *f = (PccFunction *)self;
    static char *kwlist[] = {"arg_types", "block", "shared", "texrefs", NULL};
    PyObject *types, *block = Py_None, *shared = Py_None, *texrefs = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|OOO:prepare", kwlist, &types, &block,
                                     &shared, &texrefs))
        return NULL;
    if (pcc_plan_prepare(f, types) < 0)
        return NULL;
    if (block != Py_None) {
        unsigned int b[3];
        if (parse_dims(f, block, b, 0) < 0)
            return NULL;
        Py_INCREF(block);
        Py_XSETREF(f->prepared_block, block);
    }
    (void)shared;
    (void)texrefs;
    return Py_NewRef(self);
}

/* prepared_*: (grid, [block,] [stream,] *args, shared_size=0, cooperative=False) */
static PyObject *prepared(PyObject *self, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames, int with_stream, int timed, const char *name)
{
    PccFunction *f = (PccFunction *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    launch_opts o = {NULL, NULL, NULL, NULL, timed, 0, NULL, NULL};
    Py_ssize_t fixed = 1 + (f->prepared_block ? 0 : 1) + (with_stream ? 1 : 0);
    if (nargs < fixed) {
        PyErr_Format(PyExc_TypeError, "%s() takes (grid, %s%s*args)", name,
                     f->prepared_block ? "" : "block, ", with_stream ? "stream, " : "");
        return NULL;
    }
    o.grid = args[0];
    o.block = f->prepared_block ? f->prepared_block : args[1];
    if (with_stream)
        o.stream = args[fixed - 1];
    if (kwnames) {
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, k);
            if (kw_match(key, pcc_st.str_shared_size) || kw_match(key, pcc_st.str_shared)) {
                o.shared = args[nargs + k];
            } else if (kw_match(key, pcc_st.str_cooperative)) {
                if ((o.cooperative = flag_arg(f, args[nargs + k], "cooperative")) < 0)
                    return NULL;
            } else if (!kw_match(key, pcc_st.str_texrefs)) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                             name, key);
                return NULL;
            }
        }
    }
    PyObject *r = o.cooperative ? launch_general(f, args + fixed, nargs - fixed, &o)
                                : do_launch(f, args + fixed, nargs - fixed, &o, 0);
    if (r == NULL || !timed)
        return r;
    double secs = PyFloat_AsDouble(r);
    Py_DECREF(r);
    return seconds_callable(secs);
}

PyObject *pcc_function_prepared_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames)
{
    return prepared(self, args, nargsf, kwnames, 0, 0, "prepared_call");
}

PyObject *pcc_function_prepared_async_call(PyObject *self, PyObject *const *args,
                                           size_t nargsf, PyObject *kwnames)
{
    return prepared(self, args, nargsf, kwnames, 1, 0, "prepared_async_call");
}

PyObject *pcc_function_prepared_timed_call(PyObject *self, PyObject *const *args,
                                           size_t nargsf, PyObject *kwnames)
{
    return prepared(self, args, nargsf, kwnames, 0, 1, "prepared_timed_call");
}

static PyObject *seconds_return(PyObject *secs, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(secs);
}

static PyMethodDef seconds_def = {"elapsed", seconds_return, METH_NOARGS,
                                  "Seconds the timed launch took."};

static PyObject *seconds_callable(double secs)
{
    PyObject *v = PyFloat_FromDouble(secs);
    if (v == NULL)
        return NULL;
    PyObject *fn = PyCFunction_New(&seconds_def, v);
    Py_DECREF(v);
    return fn;
}

