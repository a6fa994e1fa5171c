/*
 * launch/function.h — Function objects (src/launch/function.c) and the launch path
 * (src/launch/call.c).
 *
 * A Function holds a per-kernel plan: one entry per parameter with its kind,
 * offset and size, built once (from the driver's cuFuncGetParamInfo and the
 * kernel's declared C types). A call converts each Python argument by its
 * entry straight into a stack buffer and launches with
 * CU_LAUNCH_PARAM_BUFFER_POINTER.
 */
#ifndef PYCUDAC_FUNCTION_H
#define PYCUDAC_FUNCTION_H

#include "module/errors.h"

/* Creates a Function for `fn` loaded in `module` (a Module object).
 * `name` is what get_function was asked for; `signature` is the parsed
 * declaration (from pycudac._sigparse) or None. New reference. */
PyObject *pcc_function_new(PyObject *module, CUfunction fn, PyObject *name, PyObject *signature);

/* A kernel node's launch (src/graph/graph.c): block, grid and shared are parsed
 * and checked as a call's are, the arguments packed into *buf (new, from
 * PyMem_Malloc; NULL for no parameters) and *p filled to point at it.
 * In/Out/InOut are refused: a node has no copies of its own. `func` must
 * be a Function (TypeError naming `what` otherwise). 0 or -1. */
int pcc_function_node_params(PyObject *func, PyObject *args, PyObject *block, PyObject *grid,
                             PyObject *shared, const char *what, CUDA_KERNEL_NODE_PARAMS *p,
                             char **buf, size_t *size);

int pcc_function_init(PyObject *module);

#endif
