/*
 * function.c — the Function type and the launch path.
 *
 * f(*args, block=, grid=, shared=, stream=, time_kernel=) is a vectorcall:
 * keywords are matched by interned-string identity, arguments are packed by
 * the plan (function_plan.c, function_pack.c) into a stack buffer, and the
 * kernel is launched with CU_LAUNCH_PARAM_BUFFER_POINTER. The launch configuration is checked
 * against the device's limits (read once per device) before the driver sees
 * it, so a bad block or grid is a ValueError that leaves the context usable.
 * Also here: PyCUDA's prepare/prepared_*call, pack(), param_layout, the
 * function attributes and the occupancy helper.
 */
#include "pycudac/function_plan.h"

#include <string.h>
#include <structmember.h>

#include "pycudac/context.h"
#include "pycudac/loader.h"
#include "pycudac/memory.h"
#include "pycudac/module.h"
#include "pycudac/stream.h"

#define STACK_ARGS 4096

static PyObject *s_block, *s_grid, *s_shared, *s_stream, *s_time_kernel, *s_texrefs,
    *s_shared_size;
static PyTypeObject *layout_type; /* ParamLayout struct sequence */


static PyObject *function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames);

/* A function_attribute value: checked here, because the driver does not
 * check a negative one (it crashed on cuFuncGetAttribute(-1) on an H100). */
static int attr_arg(PyObject *o, int *out)
{
    long v = PyLong_Check(o) ? PyLong_AsLong(o) : -1;
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (!PyLong_Check(o) || v < 0 || v > 255) {
        PyErr_Format(PyLong_Check(o) ? PyExc_ValueError : PyExc_TypeError,
                     "attr must be a driver.function_attribute member (0..255), not %R", o);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int as_int(PyObject *o, int *out)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < -2147483647L - 1 || v > 2147483647L) {
        PyErr_SetString(PyExc_OverflowError, "value does not fit in a C int");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* ------------------------------------------------------ device limits */

typedef struct {
    int known;
    int max_threads, max_block[3];
    unsigned int max_grid[3];
    int smem_optin;
    size_t param_limit;
} dev_limits;

static dev_limits limits_cache[64];

static int device_limits(CUdevice dev, dev_limits *out)
{
    dev_limits *c = (dev >= 0 && dev < 64) ? &limits_cache[dev] : NULL;
    if (c && c->known) {
        *out = *c;
        return 0;
    }
    dev_limits l = {0};
    static const int attrs[] = {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,       CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
    int v[7];
    for (int k = 0; k < 7; k++)
        if (pcc_check(pcc_drv.cuDeviceGetAttribute(&v[k], attrs[k], dev),
                      "cuDeviceGetAttribute") < 0)
            return -1;
    l.max_threads = v[0];
    for (int k = 0; k < 3; k++) {
        l.max_block[k] = v[1 + k];
        l.max_grid[k] = (unsigned int)v[4 + k];
    }
    int optin = 0, major = 0, version = 0;
    if (pcc_drv.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                     dev) != CUDA_SUCCESS)
        optin = 0;
    l.smem_optin = optin;
    if (pcc_drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
        CUDA_SUCCESS)
        major = 0;
    if (pcc_drv.cuDriverGetVersion(&version) != CUDA_SUCCESS)
        version = 0;
    /* 32,764 bytes of parameters on Volta+ with a CUDA 12.1+ driver */
    l.param_limit = (major >= 7 && version >= 12010) ? 32764 : 4096;
    l.known = 1;
    if (c)
        *c = l;
    *out = l;
    return 0;
}

/* ------------------------------------------------------------ creation */

PyObject *pcc_function_new(PyObject *module, CUfunction fn, PyObject *name, PyObject *signature)
{
    if (pcc_ready() < 0)
        return NULL;
    if (pcc_st.Function == NULL) {
        PyErr_SetString(PyExc_SystemError, "pycudac Function type not initialized");
        return NULL;
    }
    PccFunction *f = PyObject_GC_New(PccFunction, pcc_st.Function);
    if (f == NULL)
        return NULL;
    /* PyObject_New leaves the fields uninitialized */
    memset((char *)f + sizeof(PyObject), 0, sizeof(PccFunction) - sizeof(PyObject));
    f->vectorcall = NULL;
    f->fn = fn;
    f->static_smem = -1;
    Py_INCREF(module);
    f->module = module;
    Py_INCREF(name);
    f->name = name;
    f->signature = signature ? signature : Py_None;
    Py_INCREF(f->signature);
    if (pcc_st.Module && PyObject_TypeCheck(module, pcc_st.Module)) {
        f->context = ((PccModule *)module)->context;
        Py_XINCREF(f->context);
    }
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "kernel name must be str, not %.100s",
                     Py_TYPE(name)->tp_name);
        goto fail;
    }
    CUdevice dev = 0;
    if (f->context && pcc_st.Context && PyObject_TypeCheck(f->context, pcc_st.Context))
        dev = ((PccContext *)f->context)->dev;
    else if (pcc_check(pcc_drv.cuCtxGetDevice(&dev), "cuCtxGetDevice") < 0)
        goto fail;
    dev_limits l;
    if (device_limits(dev, &l) < 0)
        goto fail;
    f->max_threads = l.max_threads;
    memcpy(f->max_block, l.max_block, sizeof f->max_block);
    memcpy(f->max_grid, l.max_grid, sizeof f->max_grid);
    f->smem_optin = l.smem_optin;
    f->smem_allowed = 48 * 1024;
    f->param_limit = l.param_limit;
    if (pcc_plan_build(f, f->signature, 1) < 0)
        goto fail;
    if (f->argsize > f->param_limit) {
        PyErr_Format(PyExc_ValueError, "kernel '%U' has %zu bytes of parameters; this device "
                     "and driver allow %zu", name, f->argsize, f->param_limit);
        goto fail;
    }
    f->vectorcall = function_vectorcall;
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
fail:
    Py_DECREF(f);
    return NULL;
}

/* A Function can sit in a cycle (stored on its Module's __dict__): GC-aware. */
static int function_traverse(PyObject *self, visitproc visit, void *arg)
{
    PccFunction *f = (PccFunction *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(f->module);
    Py_VISIT(f->context);
    Py_VISIT(f->signature);
    Py_VISIT(f->prepared_block);
    Py_VISIT(f->last_dims[0]);
    Py_VISIT(f->last_dims[1]);
    return 0;
}

static int function_clear(PyObject *self)
{
    PccFunction *f = (PccFunction *)self;
    Py_CLEAR(f->module);
    Py_CLEAR(f->context);
    Py_CLEAR(f->prepared_block);
    Py_CLEAR(f->last_dims[0]);
    Py_CLEAR(f->last_dims[1]);
    return 0;
}

static void function_dealloc(PyObject *self)
{
    PccFunction *f = (PccFunction *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (f->weakreflist)
        PyObject_ClearWeakRefs(self);
    pcc_plan_clear(f);
    function_clear(self);
    Py_XDECREF(f->name);
    Py_XDECREF(f->signature);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

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
static int parse_and_remember_dims(PccFunction *f, PyObject *o, unsigned int out[3], int grid)
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
} launch_opts;

static void launch_error_call(PccFunction *f, char *buf, size_t n)
{
    const char *s = PyUnicode_AsUTF8(f->name);
    snprintf(buf, n, "cuLaunchKernel (kernel '%.200s')", s ? s : "?");
    if (s == NULL)
        PyErr_Clear();
}

static PyObject *seconds_callable(double secs);

/* The whole call: pack, copy In/InOut, launch, copy Out back. */
static PyObject *do_launch(PccFunction *f, PyObject *const *args, Py_ssize_t nargs,
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

    if (pcc_ready() < 0)
        return NULL;
    if (o->block == NULL) {
        PyErr_Format(PyExc_ValueError, "kernel '%U': the block size must be given "
                     "(block=(x, y, z))", f->name);
        return NULL;
    }
    if (dims_of(f, o->block, b, 0) < 0)
        return NULL;
    if (o->grid == NULL)
        g[0] = g[1] = g[2] = 1;
    else if (dims_of(f, o->grid, g, 1) < 0)
        return NULL;
    if (o->shared && parse_shared(f, o->shared, &shared) < 0)
        return NULL;
    if (o->stream != NULL && pcc_st.Stream && Py_IS_TYPE(o->stream, pcc_st.Stream))
        stream = ((PccStream *)o->stream)->stream; /* the common case, inline */
    else if (o->stream != NULL && o->stream != Py_None &&
             pcc_stream_arg(o->stream, &stream, "stream") < 0)
        return NULL;
    if (f->argsize > STACK_ARGS) {
        buf = PyMem_Malloc(f->argsize);
        if (buf == NULL)
            return PyErr_NoMemory();
    }
    if (f->argsize > 0)
        memset(buf, 0, f->argsize); /* padding between parameters */
    if (pcc_pack_args(f, args, nargs, buf, &cs) < 0)
        goto done;
    int async = o->stream != NULL && o->stream != Py_None;
    for (int k = 0; k < cs.nhandlers; k++) {
        pcc_handler_rec *h = &cs.handlers[k];
        if (h->alloc == NULL || !h->copy_in)
            continue;
        CUdeviceptr dp = ((PccDeviceAllocation *)h->alloc)->ptr;
        Py_BEGIN_ALLOW_THREADS
        rc = async ? pcc_drv.cuMemcpyHtoDAsync(dp, h->view.buf, (size_t)h->view.len, stream)
                   : pcc_drv.cuMemcpyHtoD(dp, h->view.buf, (size_t)h->view.len);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, async ? "cuMemcpyHtoDAsync" : "cuMemcpyHtoD") < 0)
            goto done;
    }
    if (async) {
        /* The copies read and write the host arrays later: keep them (and the
         * temporary device buffers) until the stream gets there. */
        for (int k = 0; k < cs.nhandlers; k++) {
            pcc_handler_rec *h = &cs.handlers[k];
            if (pcc_stream_keep_alive(o->stream, h->array) < 0 ||
                (h->alloc && pcc_stream_keep_alive(o->stream, h->alloc) < 0))
                goto done;
        }
    }
    if (o->time_kernel) {
        if (pcc_check(pcc_drv.cuEventCreate(&ev0, CU_EVENT_DEFAULT), "cuEventCreate") < 0 ||
            pcc_check(pcc_drv.cuEventCreate(&ev1, CU_EVENT_DEFAULT), "cuEventCreate") < 0 ||
            pcc_check(pcc_drv.cuEventRecord(ev0, stream), "cuEventRecord") < 0)
            goto done;
    }
    size_t size = f->argsize;
    void *extra[] = {PCC_LAUNCH_PARAM_BUFFER_POINTER, buf, PCC_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     PCC_LAUNCH_PARAM_END};
    if (pcc_backend == PCC_BACKEND_SIM) {
        /* The simulator runs the whole kernel inside the launch: a blocking
         * call, so other Python threads must keep running (the GPU's launch
         * only queues, and stays on the hot path with the GIL held). */
        Py_BEGIN_ALLOW_THREADS
        rc = pcc_drv.cuLaunchKernel(f->fn, g[0], g[1], g[2], b[0], b[1], b[2], shared, stream,
                                    NULL, size ? extra : NULL);
        Py_END_ALLOW_THREADS
    } else {
        rc = pcc_drv.cuLaunchKernel(f->fn, g[0], g[1], g[2], b[0], b[1], b[2], shared, stream,
                                    NULL, size ? extra : NULL);
    }
    if (rc != CUDA_SUCCESS) {
        char call[256];
        launch_error_call(f, call, sizeof call);
        pcc_raise(rc, call);
        goto done;
    }
    pcc_note_launch((PyObject *)f);
    if (o->time_kernel && pcc_check(pcc_drv.cuEventRecord(ev1, stream), "cuEventRecord") < 0)
        goto done;
    for (int k = 0; k < cs.nhandlers; k++) {
        pcc_handler_rec *h = &cs.handlers[k];
        if (h->alloc == NULL || !h->copy_out)
            continue;
        CUdeviceptr dp = ((PccDeviceAllocation *)h->alloc)->ptr;
        Py_BEGIN_ALLOW_THREADS
        rc = async ? pcc_drv.cuMemcpyDtoHAsync(h->view.buf, dp, (size_t)h->view.len, stream)
                   : pcc_drv.cuMemcpyDtoH(h->view.buf, dp, (size_t)h->view.len);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, async ? "cuMemcpyDtoHAsync" : "cuMemcpyDtoH") < 0)
            goto done;
    }
    if (o->time_kernel) {
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

static PyObject *function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames)
{
    PccFunction *f = (PccFunction *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    launch_opts o = {NULL, NULL, NULL, NULL, 0};
    if (kwnames) {
        Py_ssize_t nk = PyTuple_GET_SIZE(kwnames);
        PyObject *const names[] = {s_block, s_grid, s_stream, s_shared, s_time_kernel,
                                   s_texrefs};
        for (Py_ssize_t k = 0; k < nk; k++) {
            PyObject *key = PyTuple_GET_ITEM(kwnames, k), *v = args[nargs + k];
            int which = kw_index(key, names, 6);
            if (which == 0)
                o.block = v;
            else if (which == 1)
                o.grid = v;
            else if (which == 2)
                o.stream = v;
            else if (which == 3)
                o.shared = v;
            else if (which == 4) {
                int t = PyObject_IsTrue(v);
                if (t < 0)
                    return NULL;
                o.time_kernel = t;
            } else if (which == 5) {
                int t = PyObject_IsTrue(v);
                if (t < 0)
                    return NULL;
                if (t) {
                    PyErr_Format(PyExc_TypeError, "kernel '%U': texture references are not "
                                 "supported (texrefs must be empty)", f->name);
                    return NULL;
                }
            } else {
                PyErr_Format(PyExc_TypeError, "kernel '%U' got an unexpected keyword argument "
                             "'%U' (expected block, grid, shared, stream, time_kernel)",
                             f->name, key);
                return NULL;
            }
        }
    }
    if (o.block == NULL && f->prepared_block)
        o.block = f->prepared_block;
    return do_launch(f, args, nargs, &o);
}

/* ------------------------------------------------------------ methods */

static PyObject *function_pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PccFunction *f = (PccFunction *)self;
    pcc_call_state cs = {1, 0, NULL};
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

static PyObject *function_prepare(PyObject *self, PyObject *args, PyObject *kwds)
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

/* prepared_*: (grid, [block,] [stream,] *args, shared_size=0) */
static PyObject *prepared(PyObject *self, PyObject *const *args, size_t nargsf,
                          PyObject *kwnames, int with_stream, int timed, const char *name)
{
    PccFunction *f = (PccFunction *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    launch_opts o = {NULL, NULL, NULL, NULL, timed};
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
            if (kw_match(key, s_shared_size) || kw_match(key, s_shared)) {
                o.shared = args[nargs + k];
            } else if (!kw_match(key, s_texrefs)) {
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                             name, key);
                return NULL;
            }
        }
    }
    PyObject *r = do_launch(f, args + fixed, nargs - fixed, &o);
    if (r == NULL || !timed)
        return r;
    double secs = PyFloat_AsDouble(r);
    Py_DECREF(r);
    return seconds_callable(secs);
}

static PyObject *function_prepared_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames)
{
    return prepared(self, args, nargsf, kwnames, 0, 0, "prepared_call");
}

static PyObject *function_prepared_async_call(PyObject *self, PyObject *const *args,
                                              size_t nargsf, PyObject *kwnames)
{
    return prepared(self, args, nargsf, kwnames, 1, 0, "prepared_async_call");
}

static PyObject *function_prepared_timed_call(PyObject *self, PyObject *const *args,
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

static PyObject *get_attr_value(PccFunction *f, int attr)
{
    if (pcc_ready() < 0)
        return NULL;
    int v = 0;
    if (pcc_check(pcc_drv.cuFuncGetAttribute(&v, attr, f->fn), "cuFuncGetAttribute") < 0)
        return NULL;
    return PyLong_FromLong(v);
}

static PyObject *function_get_attribute(PyObject *self, PyObject *attr)
{
    int a;
    if (attr_arg(attr, &a) < 0)
        return NULL;
    return get_attr_value((PccFunction *)self, a);
}

static PyObject *function_set_attribute(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PccFunction *f = (PccFunction *)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "set_attribute(attr, value) takes 2 arguments");
        return NULL;
    }
    int a, v;
    if (attr_arg(args[0], &a) < 0 || as_int(args[1], &v) < 0)
        return NULL;
    if (pcc_ready() < 0)
        return NULL;
    if (pcc_check(pcc_drv.cuFuncSetAttribute(f->fn, a, v), "cuFuncSetAttribute") < 0)
        return NULL;
    if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        f->smem_allowed = v > 48 * 1024 ? v : 48 * 1024;
    Py_RETURN_NONE;
}

static PyObject *function_max_potential_block_size(PyObject *self, PyObject *args,
                                                   PyObject *kwds)
{
    PccFunction *f = (PccFunction *)self;
    static char *kwlist[] = {"dynamic_smem", "block_size_limit", NULL};
    Py_ssize_t smem = 0;
    int limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ni:max_potential_block_size", kwlist, &smem,
                                     &limit))
        return NULL;
    if (smem < 0 || limit < 0) {
        PyErr_SetString(PyExc_ValueError, "dynamic_smem and block_size_limit must be >= 0");
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    int min_grid = 0, block = 0;
    if (pcc_check(pcc_drv.cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f->fn, NULL,
                                                           (size_t)smem, limit),
                  "cuOccupancyMaxPotentialBlockSize") < 0)
        return NULL;
    return Py_BuildValue("(ii)", min_grid, block);
}

static PyObject *function_param_layout(PyObject *self, void *closure)
{
    (void)closure;
    PccFunction *f = (PccFunction *)self;
    PyObject *list = PyList_New(f->nparams);
    if (list == NULL)
        return NULL;
    for (int i = 0; i < f->nparams; i++) {
        pcc_param *p = &f->params[i];
        PyObject *e = PyStructSequence_New(layout_type);
        if (e == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyStructSequence_SET_ITEM(e, 0, Py_NewRef(p->name ? p->name : Py_None));
        PyStructSequence_SET_ITEM(e, 1, Py_NewRef(p->ctype ? p->ctype : Py_None));
        PyStructSequence_SET_ITEM(e, 2, PyLong_FromSize_t(p->offset));
        PyStructSequence_SET_ITEM(e, 3, PyLong_FromSize_t(p->size));
        PyStructSequence_SET_ITEM(e, 4, PyUnicode_FromString(pcc_kind_name(p->kind)));
        if (PyErr_Occurred()) {
            Py_DECREF(e);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, e);
    }
    return list;
}

/* For tests: the layout the C ABI rules give for the declared types, as
 * used on drivers without cuFuncGetParamInfo: [(offset, size)...] or the
 * reason it is unknown (str). */
static PyObject *function_abi_layout(PyObject *self, PyObject *unused)
{
    (void)unused;
    PccFunction *f = (PccFunction *)self, tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.fn = f->fn;
    tmp.name = f->name;
    PyObject *out = NULL;
    if (pcc_plan_build(&tmp, f->signature, 0) < 0)
        goto done;
    if (tmp.layout_error) {
        out = Py_NewRef(tmp.layout_error);
        goto done;
    }
    out = PyList_New(tmp.nparams);
    for (int i = 0; out && i < tmp.nparams; i++) {
        PyObject *e = Py_BuildValue("(nn)", (Py_ssize_t)tmp.params[i].offset,
                                    (Py_ssize_t)tmp.params[i].size);
        if (e == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, e);
    }
done:
    pcc_plan_clear(&tmp);
    return out;
}

static PyObject *function_get_name(PyObject *self, void *closure)
{
    (void)closure;
    return Py_NewRef(((PccFunction *)self)->name);
}

static PyObject *function_get_int_attr(PyObject *self, void *closure)
{
    return get_attr_value((PccFunction *)self, (int)(intptr_t)closure);
}

static PyObject *function_get_argsize(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(((PccFunction *)self)->argsize);
}

static PyObject *function_get_handle(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PccFunction *)self)->fn);
}

static PyObject *function_get_note(PyObject *self, void *closure)
{
    (void)closure;
    PccFunction *f = (PccFunction *)self;
    PyObject *n = f->layout_error ? f->layout_error : f->note;
    return Py_NewRef(n ? n : Py_None);
}

static PyObject *function_repr(PyObject *self)
{
    PccFunction *f = (PccFunction *)self;
    return PyUnicode_FromFormat("<pycudac.driver.Function %U(%U)>", f->name,
                                f->decl ? f->decl : f->layout_error ? f->layout_error : Py_None);
}

static PyMethodDef function_methods[] = {
    {"pack", (PyCFunction)(void (*)(void))function_pack, METH_FASTCALL,
     "pack(*args) -> bytes: the parameter buffer a launch with these arguments would send."},
    {"prepare", (PyCFunction)(void (*)(void))function_prepare, METH_VARARGS | METH_KEYWORDS,
     "prepare(arg_types, block=None) -> self. arg_types: struct codes ('PiP') or numpy dtypes."},
    {"prepared_call", (PyCFunction)(void (*)(void))function_prepared_call,
     METH_FASTCALL | METH_KEYWORDS, "prepared_call(grid, block, *args, shared_size=0)"},
    {"prepared_async_call", (PyCFunction)(void (*)(void))function_prepared_async_call,
     METH_FASTCALL | METH_KEYWORDS,
     "prepared_async_call(grid, block, stream, *args, shared_size=0)"},
    {"prepared_timed_call", (PyCFunction)(void (*)(void))function_prepared_timed_call,
     METH_FASTCALL | METH_KEYWORDS,
     "prepared_timed_call(grid, block, *args, shared_size=0) -> callable returning seconds"},
    {"_abi_layout", function_abi_layout, METH_NOARGS,
     "[(offset, size), ...] by the C ABI rules over the declared types (testing aid)."},
    {"get_attribute", function_get_attribute, METH_O,
     "get_attribute(attr): cuFuncGetAttribute (function_attribute values)."},
    {"set_attribute", (PyCFunction)(void (*)(void))function_set_attribute, METH_FASTCALL,
     "set_attribute(attr, value): cuFuncSetAttribute."},
    {"max_potential_block_size", (PyCFunction)(void (*)(void))function_max_potential_block_size,
     METH_VARARGS | METH_KEYWORDS,
     "max_potential_block_size(dynamic_smem=0, block_size_limit=0) -> (min_grid, block)"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef function_getset[] = {
    {"__name__", function_get_name, NULL, "The kernel's name (as asked of get_function).", NULL},
    {"param_layout", function_param_layout, NULL,
     "[(name, ctype, offset, size), ...]; each entry also has .kind.", NULL},
    {"arg_size", function_get_argsize, NULL, "Bytes of the packed parameter buffer.", NULL},
    {"handle", function_get_handle, NULL, "The CUfunction as an int.", NULL},
    {"layout_note", function_get_note, NULL,
     "Why declared types were set aside or the layout is unknown (else None).", NULL},
    {"num_regs", function_get_int_attr, NULL, "Registers per thread.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_NUM_REGS},
    {"shared_size_bytes", function_get_int_attr, NULL, "Static shared memory per block.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
    {"local_size_bytes", function_get_int_attr, NULL, "Local memory per thread.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
    {"const_size_bytes", function_get_int_attr, NULL, "Constant memory used.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
    {"max_threads_per_block", function_get_int_attr, NULL, "Largest block it can launch with.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef function_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(PccFunction, vectorcall), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccFunction, weakreflist), READONLY, NULL},
    {"signature", T_OBJECT, offsetof(PccFunction, signature), READONLY,
     "The parsed declaration (pycudac._sigparse.KernelSignature) or None."},
    {"module", T_OBJECT, offsetof(PccFunction, module), READONLY, "The Module it came from."},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot function_slots[] = {
    {Py_tp_dealloc, function_dealloc},
    {Py_tp_traverse, function_traverse},
    {Py_tp_clear, function_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_repr, function_repr},
    {Py_tp_methods, function_methods},
    {Py_tp_getset, function_getset},
    {Py_tp_members, function_members},
    {Py_tp_doc, "A kernel in a loaded Module. f(*args, block=(x, y, z), grid=(x, y[, z]), "
                "shared=0, stream=None, time_kernel=False) launches it."},
    {0, NULL}};

static PyType_Spec function_spec = {
    .name = "pycudac._driver.Function",
    .basicsize = sizeof(PccFunction),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = function_slots,
};

static PyStructSequence_Field layout_fields[] = {
    {"name", "parameter name from the declaration, or None"},
    {"ctype", "declared C type, or None"},
    {"offset", "byte offset in the parameter buffer"},
    {"size", "bytes"},
    {"kind", "how arguments are converted: ptr, i32, f32, vec, struct, untyped..."},
    {NULL, NULL}};

static PyStructSequence_Desc layout_desc = {"pycudac._driver.ParamLayout",
                                            "One kernel parameter: (name, ctype, offset, size).",
                                            layout_fields, 4};

int pcc_function_init(PyObject *module)
{
#define INTERN(var, text)                                                                      \
    if ((var = PyUnicode_InternFromString(text)) == NULL)                                      \
        return -1;
    INTERN(s_block, "block");
    INTERN(s_grid, "grid");
    INTERN(s_shared, "shared");
    INTERN(s_stream, "stream");
    INTERN(s_time_kernel, "time_kernel");
    INTERN(s_texrefs, "texrefs");
    INTERN(s_shared_size, "shared_size");
#undef INTERN
    if (pcc_plan_init(module) < 0)
        return -1;
    layout_type = PyStructSequence_NewType(&layout_desc);
    if (layout_type == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "ParamLayout", (PyObject *)layout_type) < 0)
        return -1;
    PyObject *t = PyType_FromModuleAndSpec(module, &function_spec, NULL);
    if (t == NULL)
        return -1;
    pcc_st.Function = (PyTypeObject *)t;
    if (PyModule_AddObjectRef(module, "Function", t) < 0)
        return -1;
    return 0;
}
