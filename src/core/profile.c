/*
 * core/profile.c — profiling from Python: NVTX ranges and marks
 * (pycudac.profile; the protocol is util/nvtx.c) and the driver's
 * cuProfilerStart/cuProfilerStop (driver.start_profiler/stop_profiler,
 * PyCUDA's names).
 *
 * Without a tool attached the NVTX calls do nothing but parse their
 * arguments. The simulator has no profiler: there start_profiler and
 * stop_profiler do nothing (its driver table has no cuProfilerStart).
 */
#include "core/context.h"
#include "driver/loader.h"
#include "util/nvtx.h"

/* (message: str[, argb: int]) -> the UTF-8 text and the color. 0 or -1. */
static int parse(const char *fn, PyObject *const *args, Py_ssize_t nargs, const char **message,
                 uint32_t *argb)
{
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "%s(message, argb=0) takes 1 or 2 arguments (%zd given)",
                     fn, nargs);
        return -1;
    }
    if (!PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "%s: message must be str, not %.100s", fn,
                     Py_TYPE(args[0])->tp_name);
        return -1;
    }
    Py_ssize_t n;
    if ((*message = PyUnicode_AsUTF8AndSize(args[0], &n)) == NULL)
        return -1;
    if ((size_t)n != strlen(*message)) {
        PyErr_Format(PyExc_ValueError, "%s: message must not contain NUL characters", fn);
        return -1;
    }
    *argb = 0;
    if (nargs == 2 && args[1] != Py_None) {
        unsigned long v = PyLong_Check(args[1]) ? PyLong_AsUnsignedLong(args[1]) : (unsigned long)-1;
        if (v == (unsigned long)-1 || v > 0xFFFFFFFFul) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s: argb must be an int 0..0xFFFFFFFF", fn);
            }
            return -1;
        }
        *argb = (uint32_t)v;
    }
    return 0;
}

static PyObject *py_nvtx_push(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    const char *message;
    uint32_t argb;
    if (parse("nvtx_push", args, nargs, &message, &argb) < 0)
        return NULL;
    pcc_nvtx_push(message, argb);
    Py_RETURN_NONE;
}

static PyObject *py_nvtx_pop(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    pcc_nvtx_pop();
    Py_RETURN_NONE;
}

static PyObject *py_nvtx_mark(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    const char *message;
    uint32_t argb;
    if (parse("nvtx_mark", args, nargs, &message, &argb) < 0)
        return NULL;
    pcc_nvtx_mark(message, argb);
    Py_RETURN_NONE;
}

static PyObject *py_nvtx_enabled(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(pcc_nvtx_active());
}

/* cuProfilerStart / cuProfilerStop in the current context (the one
 * pycudac.autoinit made, when none is). */
static PyObject *profiler(CUresult (*fn)(void), const char *call)
{
    if (fn == NULL)
        Py_RETURN_NONE; /* the simulator: nothing to start */
    if (pcc_context_ensure() < 0)
        return NULL;
    if (pcc_check(fn(), call) < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_start_profiler(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (pcc_ready() < 0) /* (the table is filled by then) */
        return NULL;
    return profiler(pcc_drv.cuProfilerStart, "cuProfilerStart");
}

static PyObject *py_stop_profiler(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    return profiler(pcc_drv.cuProfilerStop, "cuProfilerStop");
}

static PyMethodDef profile_methods[] = {
    {"nvtx_push", (PyCFunction)(void (*)(void))py_nvtx_push, METH_FASTCALL,
     "nvtx_push(message, argb=0): opens an NVTX range (NVTX's default domain) in this thread; "
     "nothing without a profiler."},
    {"nvtx_pop", py_nvtx_pop, METH_NOARGS, "nvtx_pop(): closes this thread's innermost range."},
    {"nvtx_mark", (PyCFunction)(void (*)(void))py_nvtx_mark, METH_FASTCALL,
     "nvtx_mark(message, argb=0): an instantaneous NVTX event."},
    {"nvtx_enabled", py_nvtx_enabled, METH_NOARGS,
     "nvtx_enabled() -> bool: whether a profiler took NVTX's calls (NVTX_INJECTION64_PATH)."},
    {"start_profiler", py_start_profiler, METH_NOARGS,
     "start_profiler(): cuProfilerStart (PyCUDA's driver.start_profiler); nothing on the "
     "simulator."},
    {"stop_profiler", py_stop_profiler, METH_NOARGS,
     "stop_profiler(): cuProfilerStop; nothing on the simulator."},
    {NULL, NULL, 0, NULL}};

int pcc_profile_init(PyObject *module)
{
    /* A profiler is attached when the process starts (it sets
     * NVTX_INJECTION64_PATH). Looking for it here, at import, keeps the
     * first-call costs of that search (~10 us in a fresh process: lazy
     * symbol binding, the environment) out of a warm start's module load. */
    pcc_nvtx_init();
    return PyModule_AddFunctions(module, profile_methods);
}
