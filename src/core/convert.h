/*
 * core/convert.h — the argument converters the core's entry points share
 * (src/core/convert.c): sizes, flags, device pointers, streams, and the
 * check that host data holds no Python objects. Each refusal is a
 * TypeError, ValueError or OverflowError naming the argument.
 */
#ifndef PYCUDAC_CONVERT_H
#define PYCUDAC_CONVERT_H

#include "module/errors.h"

/* A byte count or element count argument: a non-negative Python int.
 * float → TypeError, negative → ValueError, too large → OverflowError; the
 * message names `what`. 0 or -1. */
int pcc_size_arg(PyObject *obj, size_t *out, const char *what);

/* PyArg "O&" converter (int *out) for a `flags` argument: an int in
 * 0..INT_MAX, else a TypeError or ValueError that names flags. */
int pcc_flags_arg(PyObject *obj, void *out);

/* A device pointer argument: DeviceAllocation, int, or an object with
 * __index__/__int__. *avail gets the bytes usable from the pointer to the
 * end of its allocation, or (size_t)-1 when unknown. 0 or -1. */
int pcc_devptr_arg(PyObject *obj, CUdeviceptr *ptr, size_t *avail, const char *what);

/* 1 when `obj` is an int subclass that says it was freed (a
 * tools.PooledDeviceAllocation: it *is* its address, and after free() that
 * address may belong to another array), 0 otherwise, -1 with an exception.
 * Plain ints cost one type check. */
int pcc_freed_int_pointer(PyObject *obj);

/* The CUstream for a `stream=` argument: None → 0 (the legacy default
 * stream), a Stream → its handle, anything else → TypeError naming `what`.
 * Returns 0 or -1. */
int pcc_stream_arg(PyObject *obj, CUstream *out, const char *what);

/* True when host data would carry Python object pointers: a numpy array or
 * structured scalar whose dtype holds objects, or a buffer whose format
 * (view may be NULL; request PyBUF_FORMAT) has an 'O'. Such bytes must never
 * reach the device. */
int pcc_holds_objects(PyObject *obj, const Py_buffer *view);

/* NumPy's C API for this file; from the module's exec. */
int pcc_convert_init(PyObject *module);

#endif
