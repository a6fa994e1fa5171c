/*
 * module.h — Module objects: a loaded CUBIN/PTX/sim image (src/module.c),
 * and the compile entry point over the compiler table (src/compile.c).
 */
#ifndef PYCUDAC_MODULE_H
#define PYCUDAC_MODULE_H

#include "errors.h"

typedef struct {
    PyObject_HEAD
    CUmodule module;
    PyObject *context;
    PyObject *image;       /* bytes that were loaded */
    PyObject *lowered;     /* dict: name expression -> lowered name, or NULL */
    PyObject *signatures;  /* dict: kernel name -> signature info from the source, or NULL */
    PyObject *weakreflist;
    PyObject *dict;        /* instance __dict__: compiler.py hangs ptx/log/source here */
} PccModule;

/* What a compile result says about itself; borrowed references. */
typedef struct {
    PyObject *target, *arch, *key, *from_cache;
} pcc_result_facts;

/* A compile result dict loaded into the current context, with its fields
 * as the module's attributes (src/module.c: module_from_result). `facts`
 * given: those instead of the dict's target, arch, key and from_cache.
 * The module takes the result's `lowered` dict itself. New reference, or
 * NULL with an exception. */
PyObject *pcc_module_from_result(PyObject *result, PyObject *source, PyObject *keep_dir,
                                 const pcc_result_facts *facts);

int pcc_module_init(PyObject *module);
int pcc_compile_init(PyObject *module);

#endif
