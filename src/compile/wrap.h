/*
 * compile/wrap.h — the source as compiled (src/compile/wrap.c).
 */
#ifndef PYCUDAC_WRAP_H
#define PYCUDAC_WRAP_H

#include "module/errors.h"

/* The program's name in every diagnostic, forced with `#line 1 "kernel.cu"`
 * so that the simulator's C++ compiler reports the same name as NVRTC. */
#define PCC_PROGRAM_NAME "kernel.cu"

/* The source as compiled (raw memory: PyMem_RawFree it), or NULL with an
 * exception. `pch`: 1, the leading directives stand before the extern "C"
 * block; -1, so when an #include is among them; 0, never. *hoisted says
 * whether they do. */
char *pcc_wrap_source(PyObject *source, int no_extern_c, int pch, int *hoisted);

#endif
