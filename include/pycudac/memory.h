/*
 * memory.h — device, pinned and managed memory, copies (src/memory.c).
 */
#ifndef PYCUDAC_MEMORY_H
#define PYCUDAC_MEMORY_H

#include "errors.h"

enum { PCC_MEM_DEVICE = 1, PCC_MEM_MANAGED = 2, PCC_MEM_ASYNC = 3 };

/* Owns one device pointer. int(alloc) is the address. Managed allocations
 * also export the buffer protocol (host-visible bytes). */
typedef struct {
    PyObject_HEAD
    CUdeviceptr ptr;
    size_t size;
    PyObject *context; /* Context the memory lives in (strong) */
    PyObject *stream;  /* for PCC_MEM_ASYNC: the stream it is freed on (strong) */
    int kind;
    int freed;
    PyObject *weakreflist;
} PccDeviceAllocation;

/* Owns one page-locked host allocation (cuMemHostAlloc) or one
 * registration (cuMemHostRegister); exports the buffer protocol. */
typedef struct {
    PyObject_HEAD
    void *ptr;
    size_t size;
    PyObject *context;
    PyObject *registered_base; /* for registrations: the object whose memory it is */
    Py_buffer view;            /* held for registrations */
    int flags;
    int freed;
    PyObject *weakreflist;
} PccHostAllocation;

static inline int pcc_is_device_allocation(PyObject *o)
{
    return Py_IS_TYPE(o, pcc_st.DeviceAllocation) ||
           PyType_IsSubtype(Py_TYPE(o), pcc_st.DeviceAllocation);
}

int pcc_memory_init(PyObject *module);

#endif
