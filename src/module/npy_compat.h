/*
 * module/npy_compat.h — NumPy's C API as the extension uses it, whichever
 * NumPy it is built against (1.23 and newer).
 *
 * NumPy 2.0 made PyArray_Descr opaque behind accessors (PyDataType_ELSIZE,
 * _NAMES, _FIELDS); building against 1.x, where they do not exist, made a
 * module that compiled with a warning and failed to import
 * ("undefined symbol: PyDataType_ELSIZE"). Against 1.x the accessors are
 * the fields themselves. A module built against 2.x runs on 1.x too
 * (NumPy's own headers dispatch at run time), which is how wheels are built.
 */
#ifndef PYCUDAC_NPY_COMPAT_H
#define PYCUDAC_NPY_COMPAT_H

#include <numpy/arrayobject.h>

#if NPY_ABI_VERSION < 0x02000000
#define PyDataType_ELSIZE(descr) ((descr)->elsize)
#define PyDataType_NAMES(descr) ((descr)->names)
#define PyDataType_FIELDS(descr) ((descr)->fields)
#endif

#endif
