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
} PccArray;

/* A texture or surface object: its handle and what it reads (an Array, or
 * the object that owns the linear memory), held while it lives. */
typedef struct {
    PCC_HANDLE_HEAD
    unsigned long long handle; /* 0 once freed */
    PyObject *source;
} PccTexObject;

int pcc_array_init(PyObject *module);

#endif
