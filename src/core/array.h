/*
 * core/array.h — CUDA arrays, texture objects and surface objects
 * (src/core/array.c); launch/ reads a texture or surface object's handle
 * when one is passed for a cudaTextureObject_t / cudaSurfaceObject_t.
 */
#ifndef PYCUDAC_ARRAY_H
#define PYCUDAC_ARRAY_H

#include "core/context.h"

typedef struct {
    PCC_HANDLE_HEAD
    CUarray array; /* NULL once freed */
    CUDA_ARRAY3D_DESCRIPTOR desc;
    size_t esize; /* bytes of an element (all channels) */
    Py_ssize_t users; /* texture and surface objects that read it (free() refuses) */
    int borrowed; /* someone else's array (a mapped graphics resource): never destroyed here */
} PccArray;

/* A texture or surface object: its handle and what it reads (an Array, or
 * the object that owns the linear memory), held while it lives. */
typedef struct {
    PCC_HANDLE_HEAD
    unsigned long long handle; /* 0 once freed */
    PyObject *source;
} PccTexObject;

/* New reference: an Array of `type` (pcc_st.Array or a subclass) over `a`,
 * which belongs to someone else — a mapped graphics resource (core/graphics.c)
 * — and is never destroyed through it; its owner sets `array` to NULL when
 * `a` stops being valid. The descriptor is read from the driver: `context`
 * (a new reference the Array takes over, also on failure) must be current. */
PyObject *pcc_array_borrow(PyTypeObject *type, PyObject *context, CUarray a);

int pcc_array_init(PyObject *module);
/* OpenGL interop's graphics resources (src/core/graphics.c): their mapped
 * images are borrowed Arrays. */
int pcc_graphics_init(PyObject *module);

#endif
