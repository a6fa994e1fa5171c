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

/* A driver enum argument: an int (an IntEnum member is one) whose value v
 * has bit v set in `valid`, else a TypeError or ValueError that names
 * `what` and driver.`enum_name`. 0 or -1. */
int pcc_enum_arg(PyObject *obj, const char *what, const char *enum_name, unsigned int valid,
                 int *out);

/* The `valid` masks of the driver enums more than one entry point takes. */
#define PCC_FUNC_CACHE_VALUES 0xfu    /* func_cache: PREFER_NONE, SHARED, L1, EQUAL */
#define PCC_SHARED_CONFIG_VALUES 0x7u /* shared_config: DEFAULT, FOUR_BYTE, EIGHT_BYTE */

/* enum_cls(v), the member of a registered driver enum (pcc_st.func_cache
 * ...); the plain int when none is registered or v is not a member. New
 * reference or NULL. */
PyObject *pcc_enum_member(PyObject *enum_cls, int v);

/* 1 when `obj` is an int subclass that says it was freed (a
 * tools.PooledDeviceAllocation: it *is* its address, and after free() that
 * address may belong to another array), 0 otherwise, -1 with an exception.
 * Plain ints cost one type check. */
int pcc_freed_int_pointer(PyObject *obj);

/* 1 when `obj` is such an int subclass, freed or not (a device address, not
 * a number), 0 otherwise, -1 with an exception. Plain ints cost one type
 * check. */
int pcc_is_int_pointer(PyObject *obj);

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
