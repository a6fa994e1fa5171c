/*
 * callloop.c — calls a Python callable n times from C, for bench/bench_launch.py.
 *
 * Issue 4: on the GPU, f(ptr, 1000, block=, grid=, stream=) in a Python loop
 * costs ~0.2-0.4 µs more per launch than the C floor, far more than
 * pycudac's own C work measured on the stub driver. The suspicion is that the
 * interpreter running between launches evicts the driver's code and data
 * from the CPU caches. This loop calls the same pycudac Function with the
 * same argument objects through PyObject_Vectorcall and runs no bytecode in
 * between: what it saves against the Python loop is the interpreter's share;
 * what remains against the C floor is pycudac's (and the call protocol's).
 *
 * Built by bench_launch.py with the C compiler and Python's headers into
 * bench/out/libcallloop.<SOABI>.so and loaded with ctypes.PyDLL, so the GIL stays
 * held and an exception set here is raised by ctypes on return.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Calls callable(*stack[:nargs], **dict(zip(kwnames, stack[nargs:]))) n
 * times, where stack is the tuple `args` (positional values, then keyword
 * values: the vectorcall layout) and kwnames a tuple of names or None.
 * Returns n, or -1 with the exception of the first failing call set. */
__attribute__((visibility("default")))
long call_loop(PyObject *callable, PyObject *args, PyObject *kwnames, long n)
{
    if (!PyTuple_Check(args)) {
        PyErr_Format(PyExc_TypeError, "call_loop: args must be a tuple, not %.100s",
                     Py_TYPE(args)->tp_name);
        return -1;
    }
    if (kwnames == Py_None)
        kwnames = NULL;
    else if (!PyTuple_Check(kwnames)) {
        PyErr_Format(PyExc_TypeError, "call_loop: kwnames must be a tuple or None, not %.100s",
                     Py_TYPE(kwnames)->tp_name);
        return -1;
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t nargs = PyTuple_GET_SIZE(args) - nkw;
    if (nargs < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "call_loop: args must hold a value for each name in kwnames");
        return -1;
    }
    /* The tuple's item array is the stack: args keeps the objects alive. */
    PyObject *const *stack = &PyTuple_GET_ITEM(args, 0);
    for (long i = 0; i < n; i++) {
        PyObject *r = PyObject_Vectorcall(callable, stack, (size_t)nargs, kwnames);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
    }
    return n;
}

/* Diagnostic: each iteration calls callable(*stack, **kw) (a do-nothing C
 * callable, bench/launch_overhead.py's Noop) and then cuLaunchKernel itself
 * (`launch`, the driver's address) on `func` and `stream` with an argument
 * buffer of `argsize` zero bytes (an empty kernel reads nothing). Against the
 * C floor, this is what the call protocol and the argument objects cost the
 * driver's launch when a Python call runs between launches, with no
 * pycudac code at all. Returns n, or -1 with an exception set. */
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
__attribute__((visibility("default")))
long call_launch_loop(PyObject *callable, PyObject *args, PyObject *kwnames, long n,
                      void *launch, void *func, void *stream, long argsize)
{
    if (!PyTuple_Check(args) || (kwnames != Py_None && !PyTuple_Check(kwnames)) ||
        launch == NULL || argsize < 0 || argsize > 256) {
        PyErr_SetString(PyExc_ValueError, "call_launch_loop: args must be a tuple, kwnames a "
                        "tuple or None, launch non-NULL and 0 <= argsize <= 256");
        return -1;
    }
    if (kwnames == Py_None)
        kwnames = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    Py_ssize_t nargs = PyTuple_GET_SIZE(args) - nkw;
    if (nargs < 0) {
        PyErr_SetString(PyExc_ValueError, "call_launch_loop: too few values for kwnames");
        return -1;
    }
    PyObject *const *stack = &PyTuple_GET_ITEM(args, 0);
    _Alignas(16) char buf[256] = {0};
    size_t size = (size_t)argsize;
    void *extra[] = {(void *)1, buf, (void *)2, &size, (void *)0}; /* BUFFER_POINTER/SIZE/END */
    launch_fn go = (launch_fn)launch;
    for (long i = 0; i < n; i++) {
        PyObject *r = PyObject_Vectorcall(callable, stack, (size_t)nargs, kwnames);
        if (r == NULL)
            return -1;
        Py_DECREF(r);
        int rc = go(func, 1, 1, 1, 1, 1, 1, 0, stream, NULL, size ? extra : NULL);
        if (rc != 0) {
            PyErr_Format(PyExc_RuntimeError, "call_launch_loop: cuLaunchKernel returned %d", rc);
            return -1;
        }
    }
    return n;
}

