/*
 * core/module.h — Module objects: a loaded CUBIN/PTX/sim image (src/core/module.c),
 * and loading a compile result as one.
 */
#ifndef PYCUDAC_MODULE_H
#define PYCUDAC_MODULE_H

#include "module/errors.h"

typedef struct {
    PyObject_HEAD
    CUmodule module;
    PyObject *context;
    PyObject *image;       /* bytes that were loaded */
    PyObject *lowered;     /* dict: name expression -> lowered name, or NULL */
    PyObject *signatures;  /* dict: kernel name -> signature info from the source, or NULL */
    PyObject *weakreflist;
    PyObject *dict;        /* instance __dict__: compiler.py hangs log/source here */
    PyObject *ptx;         /* str, None, UTF-8 bytes decoded on first read, or NULL */
    int ptx_zlib;          /* ptx is those bytes zlib-compressed (a cache entry's) */
} PccModule;

/* What a compile result says about itself; borrowed references. */
typedef struct {
    PyObject *target, *arch, *key, *from_cache;
} pcc_result_facts;

/* A compile result's fields; borrowed references. `ptx` may be the PTX's
 * UTF-8 bytes, zlib-compressed when ptx_zlib (a cache entry's; verified,
 * inflated and decoded on first read of module.ptx: a warm start need not
 * pay for it), `lowered` NULL (none), `options` any sequence. */
typedef struct {
    PyObject *image, *log, *ptx, *options, *lowered;
    int ptx_zlib;
} pcc_result_parts;

/* The parts loaded into the current context as a module with the
 * attributes below; new reference or NULL with an exception. */
PyObject *pcc_module_from_parts(const pcc_result_parts *parts, PyObject *source,
                                PyObject *keep_dir, const pcc_result_facts *facts);

/* A compile result dict loaded into the current context, with its fields
 * as the module's attributes (src/core/module.c: module_from_result). `facts`
 * given: those instead of the dict's target, arch, key and from_cache.
 * The module takes the result's `lowered` dict itself. New reference, or
 * NULL with an exception. */
PyObject *pcc_module_from_result(PyObject *result, PyObject *source, PyObject *keep_dir,
                                 const pcc_result_facts *facts);

int pcc_module_init(PyObject *module);

#endif
