/*
 * launch/call.h — the call path of a Function (src/launch/call.c),
 * as src/launch/function.c wires it into the type: the vectorcall slot, the
 * launch-related methods.
 * Private to those two files; the hot helpers stay static in
 * launch/call.c.
 */
#ifndef PYCUDAC_FUNCTION_LAUNCH_H
#define PYCUDAC_FUNCTION_LAUNCH_H

#include "launch/function.h"
#include "driver/loader.h"

/* f(*args, block=, grid=, shared=, stream=, time_kernel=, cooperative=): the
 * vectorcall slot. */
PyObject *pcc_function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames);
/* pack(*args) -> bytes (METH_FASTCALL): the buffer a launch would send. */
PyObject *pcc_function_pack(PyObject *self, PyObject *const *args, Py_ssize_t nargs);
/* prepare(arg_types, block=None, shared=None, texrefs=None) -> self. */
PyObject *pcc_function_prepare(PyObject *self, PyObject *args, PyObject *kwds);
/* prepared_call(grid, block, *args, shared_size=0) (METH_FASTCALL | METH_KEYWORDS). */
PyObject *pcc_function_prepared_call(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames);
/* prepared_async_call(grid, block, stream, *args, shared_size=0). */
PyObject *pcc_function_prepared_async_call(PyObject *self, PyObject *const *args,
                                           size_t nargsf, PyObject *kwnames);
/* prepared_timed_call(grid, block, *args, shared_size=0) -> callable returning seconds. */
PyObject *pcc_function_prepared_timed_call(PyObject *self, PyObject *const *args,
                                           size_t nargsf, PyObject *kwnames);

/* The launch of f(..., cooperative=True) (src/launch/cooperative.c): checks
 * the grid fits on the device at once, then cuLaunchCooperativeKernel with
 * the packed parameters `buf`. 0, or -1 with an exception. */
int pcc_launch_cooperative(PyObject *func, const unsigned int g[3], const unsigned int b[3],
                           unsigned int shared, CUstream stream, char *buf);
/* Whether a cooperative launch of grid g fits on the device at once: 0, or
 * -1 with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE saying what fits. */
int pcc_cooperative_fits(PyObject *func, const unsigned int g[3], const unsigned int b[3],
                         unsigned int shared);
/* The launch of f(..., cluster=(x, y, z)) or f(..., priority=p)
 * (src/launch/attrs.c): cuLaunchKernelEx with those attributes (and the
 * cooperative one when `cooperative`), the packed parameters `buf` of
 * f->argsize bytes. `cluster` and `priority` may be NULL. 0, or -1 with an
 * exception naming the kernel. */
int pcc_launch_ex(PyObject *func, const unsigned int g[3], const unsigned int b[3],
                  unsigned int shared, CUstream stream, char *buf, PyObject *cluster,
                  PyObject *priority, int cooperative);
/* cuLaunchKernelEx(cfg, fn, NULL, extra) with the GIL released where the
 * backend's launch runs the kernel before it returns (the simulator), as for
 * cuLaunchKernel (launch/call.c's launch_kernel): a GPU's only queues. */
static inline CUresult pcc_launch_kernel_ex(const CUlaunchConfig *cfg, CUfunction fn,
                                            void **extra)
{
    CUresult rc;
    if (PCC_UNLIKELY(pcc_st.backend->launch_blocks)) {
        Py_BEGIN_ALLOW_THREADS
        rc = pcc_drv.cuLaunchKernelEx(cfg, fn, NULL, extra);
        Py_END_ALLOW_THREADS
        return rc;
    }
    return pcc_drv.cuLaunchKernelEx(cfg, fn, NULL, extra);
}

/* A failed cuLaunchKernelEx of f (grid g, cluster c; `cluster`: whether
 * cluster= was given): the driver's error naming the kernel and the cluster,
 * or why the device takes no clusters. -1. */
int pcc_launch_ex_failed(PyObject *func, CUresult rc, const unsigned int g[3],
                         const unsigned int c[3], int cluster);
/* max_active_blocks_per_multiprocessor(block_size, dynamic_smem=0) -> int. */
PyObject *pcc_function_max_active_blocks(PyObject *self, PyObject *args, PyObject *kwds);


#endif
