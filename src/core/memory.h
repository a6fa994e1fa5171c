/*
 * core/memory.h — device, pinned and managed memory, copies (src/core/memory.c).
 */
#ifndef PYCUDAC_MEMORY_H
#define PYCUDAC_MEMORY_H

#include "core/context.h"
#include "core/convert.h"

/* How an allocation is freed: cuMemFree; managed (cuMemFree, buffer
 * protocol); stream-ordered (cuMemFreeAsync on its stream: mem_alloc_async,
 * memory pools); opened from another process (cuIpcCloseMemHandle). */
enum { PCC_MEM_DEVICE = 1, PCC_MEM_MANAGED = 2, PCC_MEM_ASYNC = 3, PCC_MEM_IPC = 4 };

/* Owns one device pointer. int(alloc) is the address. Managed allocations
 * also export the buffer protocol (host-visible bytes). */
typedef struct {
    PCC_HANDLE_HEAD    /* the Context the memory lives in */
    CUdeviceptr ptr;
    size_t size;
    PyObject *stream;  /* for PCC_MEM_ASYNC: the stream it is freed on (strong) */
    PyObject *owner;   /* non-NULL: a view of memory `owner` frees (e.g. a Module global) */
    int kind;
    int freed;
    int deferred;      /* freed while array_wr's array lived: released at dealloc */
    PyObject *array_wr; /* managed: weak reference to driver.py's array over it */
} PccDeviceAllocation;

/* Owns one page-locked host allocation (cuMemHostAlloc) or one
 * registration (cuMemHostRegister); exports the buffer protocol. */
typedef struct {
    PCC_HANDLE_HEAD
    void *ptr;
    size_t size;
    PyObject *registered_base; /* for registrations: the object whose memory it is */
    Py_buffer view;            /* held for registrations */
    int flags;
    int freed;
    int deferred;       /* freed while array_wr's array lived: released at dealloc */
    PyObject *array_wr; /* weak reference to driver.py's array over it, or NULL */
} PccHostAllocation;

static inline int pcc_is_device_allocation(PyObject *o)
{
    return Py_IS_TYPE(o, pcc_st.DeviceAllocation) ||
           PyType_IsSubtype(Py_TYPE(o), pcc_st.DeviceAllocation);
}

/* New reference: a DeviceAllocation of `size` bytes at `ptr` in `context`
 * (a Context, or NULL for the current one) that does NOT own the memory:
 * it keeps `owner` alive instead and never frees (Module.get_global). */
/* mem_alloc(n): a DeviceAllocation of n bytes in the current context (a
 * collection and one retry when the device is out of memory). New
 * reference. */
PyObject *pcc_mem_alloc(size_t n);

PyObject *pcc_device_allocation_view(CUdeviceptr ptr, size_t size, PyObject *context,
                                     PyObject *owner);

/* New reference: an object of `type` (DeviceAllocation or a subtype) that
 * owns `ptr` (`size` bytes) in `context` and frees it as `kind` says
 * (PCC_MEM_ASYNC: on `stream`, None for the legacy stream). The object
 * takes its own references. NULL: the caller still owns ptr. */
PyObject *pcc_device_allocation_new(PyTypeObject *type, CUdeviceptr ptr, size_t size,
                                    PyObject *context, int kind, PyObject *stream);



/* Bytes from `p` to the end of its device allocation (cuMemGetAddressRange;
 * a context must be current), or (size_t)-1 when the driver cannot say. */
size_t pcc_device_range(CUdeviceptr p);

/* Host-visible memory (pinned, managed) under a NumPy array that
 * driver.py made: `_track_array(a)` keeps a weak reference to the array in
 * *slot (pcc_track_array), and free() while that array lives only marks the
 * memory freed (pcc_array_alive), releasing it when the allocation object
 * dies, which the array's .base reference delays until the array is gone:
 * using the array after free() must not touch unmapped memory. */
PyObject *pcc_track_array(PyObject **slot, PyObject *array);
int pcc_array_alive(PyObject *slot);




/* Frees a context's pinned staging buffers (core/memcpy.c); called with that
 * context current. */
void pcc_staging_free(void *staging);

int pcc_memory_init(PyObject *module);
int pcc_hostmem_init(PyObject *module);
int pcc_memcpy_init(PyObject *module);

#endif
