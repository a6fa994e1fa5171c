/*
 * launch/call.h — the call path of a Function (src/launch/call.c),
 * as src/launch/function.c wires it into the type: the vectorcall slot, the
 * launch-related methods.
 * Private to those two files; the hot helpers stay static in
 * launch/call.c.
 */
#ifndef PYCUDAC_FUNCTION_LAUNCH_H
#define PYCUDAC_FUNCTION_LAUNCH_H

#include "launch/function.h"

/* f(*args, block=, grid=, shared=, stream=, time_kernel=): the vectorcall slot. */
PyObject *pcc_function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames);
/* pack(*args) -> bytes (METH_FASTCALL): the buffer a launch would send. */
PyObject *pcc_function_pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* prepare(arg_types, block=None, shared=None, texrefs=None) -> self. */
PyObject *pcc_function_prepare(PyObject *self, PyObject *args, PyObject *kwds);
/* prepared_call(grid, block, *args, shared_size=0) (METH_FASTCALL | METH_KEYWORDS). */
PyObject *pcc_function_prepared_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames);
/* prepared_async_call(grid, block, stream, *args, shared_size=0). */
PyObject *pcc_function_prepared_async_call(PyObject *self, PyObject *const *args,
                                           size_t nargsf, PyObject *kwnames);
/* prepared_timed_call(grid, block, *args, shared_size=0) -> callable returning seconds. */
PyObject *pcc_function_prepared_timed_call(PyObject *self, PyObject *const *args,
                                           size_t nargsf, PyObject *kwnames);


#endif
