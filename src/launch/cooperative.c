/*
 * launch/cooperative.c — f(..., cooperative=True): cuLaunchCooperativeKernel,
 * which makes every block of the grid resident on the device at once, as
 * cooperative_groups::this_grid().sync() needs; and the occupancy query
 * behind its check, Function.max_active_blocks_per_multiprocessor.
 *
 * Before launching, the grid is checked against what the device holds at
 * once: the driver's occupancy answer for this block size and shared memory
 * (cuOccupancyMaxActiveBlocksPerMultiprocessor) times its multiprocessors.
 * A grid too large is then the driver's own error,
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (a LaunchError, 720), but naming
 * the kernel, the grid and the largest grid that fits; a 720 from the
 * driver itself gets the same words. cuLaunchCooperativeKernel takes no
 * packed buffer (no `extra`): the parameters go as kernelParams, pointers
 * into the packed buffer at the plan's offsets.
 */
#include "launch/call.h"
#include "launch/plan.h"

#include <stdio.h>

#include "driver/loader.h"

/* What the current context's device holds of f at once: blocks per
 * multiprocessor of `threads` threads and `shared` bytes of dynamic shared
 * memory, and its multiprocessors. 0 or -1. */
static int coresident(PccFunction *f, int threads, unsigned int shared, int *per_sm, int *sms)
{
    CUdevice dev;
    int coop = 0;
    if (pcc_check(pcc_drv.cuCtxGetDevice(&dev), "cuCtxGetDevice") < 0 ||
        pcc_check(pcc_drv.cuDeviceGetAttribute(&coop, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, dev),
                  "cuDeviceGetAttribute(COOPERATIVE_LAUNCH)") < 0 ||
        pcc_check(pcc_drv.cuDeviceGetAttribute(sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
                  "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)") < 0)
        return -1;
    if (!coop) {
        char call[300];
        snprintf(call, sizeof call, "cuLaunchCooperativeKernel (kernel '%.200s')",
                 pcc_function_cname(f));
        return pcc_raise_detail(CUDA_ERROR_NOT_SUPPORTED, call,
                                "This device cannot launch cooperatively (its "
                                "COOPERATIVE_LAUNCH attribute is 0)");
    }
    return pcc_check(pcc_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, f->fn, threads,
                                                                         shared),
                     "cuOccupancyMaxActiveBlocksPerMultiprocessor");
}

/* CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, saying what would fit. -1. */
static int too_large(PccFunction *f, const unsigned int g[3], const unsigned int b[3],
                     unsigned int shared, int per_sm, int sms)
{
    char call[300], detail[600];
    snprintf(call, sizeof call, "cuLaunchCooperativeKernel (kernel '%.200s')",
             pcc_function_cname(f));
    snprintf(detail, sizeof detail,
             "A cooperative launch needs every block resident at once: grid (%u, %u, %u) has "
             "%llu blocks of %u threads (%u bytes of dynamic shared memory), and this device "
             "holds at most %lld such blocks at once (%d per multiprocessor x %d "
             "multiprocessors, by cuOccupancyMaxActiveBlocksPerMultiprocessor); launch at most "
             "that many and loop over the work in the kernel",
             g[0], g[1], g[2], (unsigned long long)g[0] * g[1] * g[2], b[0] * b[1] * b[2], shared,
             (long long)per_sm * sms, per_sm, sms);
    return pcc_raise_detail(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, call, detail);
}

/* The grid holds at once on the device (0), else -1 with the error that
 * says what would fit; *per_sm and *sms: what the device holds. */
static int fits(PccFunction *f, const unsigned int g[3], const unsigned int b[3],
                unsigned int shared, int *per_sm, int *sms)
{
    if (pcc_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor == NULL) {
        PyErr_Format(pcc_st.LogicError, "kernel '%U': cooperative=True needs "
                     "cuOccupancyMaxActiveBlocksPerMultiprocessor, which this driver lacks",
                     f->name);
        return -1;
    }
    if (coresident(f, (int)(b[0] * b[1] * b[2]), shared, per_sm, sms) < 0)
        return -1;
    if ((unsigned long long)g[0] * g[1] * g[2] > (unsigned long long)*per_sm * (unsigned)*sms)
        return too_large(f, g, b, shared, *per_sm, *sms);
    return 0;
}

int pcc_cooperative_fits(PyObject *func, const unsigned int g[3], const unsigned int b[3],
                         unsigned int shared)
{
    int per_sm = 0, sms = 0;
    return fits((PccFunction *)func, g, b, shared, &per_sm, &sms);
}

int pcc_launch_cooperative(PyObject *func, const unsigned int g[3], const unsigned int b[3],
                           unsigned int shared, CUstream stream, char *buf)
{
    PccFunction *f = (PccFunction *)func;
    if (pcc_drv.cuLaunchCooperativeKernel == NULL) {
        PyErr_Format(pcc_st.LogicError, "kernel '%U': cooperative=True needs "
                     "cuLaunchCooperativeKernel, which this driver lacks", f->name);
        return -1;
    }
    int per_sm = 0, sms = 0;
    if (fits(f, g, b, shared, &per_sm, &sms) < 0)
        return -1;
    void *small[16], **params = small;
    if (f->nparams > 16 && (params = PyMem_Malloc((size_t)f->nparams * sizeof *params)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < f->nparams; i++)
        params[i] = buf + f->params[i].offset;
    CUresult rc;
    if (pcc_st.backend->launch_blocks) { /* the simulator runs the kernel now */
        Py_BEGIN_ALLOW_THREADS
        rc = pcc_drv.cuLaunchCooperativeKernel(f->fn, g[0], g[1], g[2], b[0], b[1], b[2], shared,
                                               stream, params);
        Py_END_ALLOW_THREADS
    } else {
        rc = pcc_drv.cuLaunchCooperativeKernel(f->fn, g[0], g[1], g[2], b[0], b[1], b[2], shared,
                                               stream, params);
    }
    if (params != small)
        PyMem_Free(params);
    if (rc == CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
        return too_large(f, g, b, shared, per_sm, sms);
    if (rc != CUDA_SUCCESS) {
        char call[300];
        snprintf(call, sizeof call, "cuLaunchCooperativeKernel (kernel '%.200s')",
                 pcc_function_cname(f));
        return pcc_raise(rc, call);
    }
    return 0;
}

PyObject *pcc_function_max_active_blocks(PyObject *self, PyObject *args, PyObject *kwds)
{
    PccFunction *f = (PccFunction *)self;
    static char *kwlist[] = {"block_size", "dynamic_smem", NULL};
    int block = 0;
    Py_ssize_t smem = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "i|n:max_active_blocks_per_multiprocessor",
                                     kwlist, &block, &smem))
        return NULL;
    if (block < 1 || block > f->max_threads) {
        PyErr_Format(PyExc_ValueError, "max_active_blocks_per_multiprocessor: block_size = %d "
                     "is out of range (1..%d on this device)", block, f->max_threads);
        return NULL;
    }
    if (smem < 0 || smem > 0x7fffffff) {
        PyErr_Format(PyExc_ValueError, "max_active_blocks_per_multiprocessor: dynamic_smem = "
                     "%zd bytes is out of range", smem);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    if (pcc_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor == NULL) {
        PyErr_SetString(pcc_st.LogicError, "this driver has no "
                        "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        return NULL;
    }
    int n = 0;
    if (pcc_check(pcc_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f->fn, block,
                                                                     (size_t)smem),
                  "cuOccupancyMaxActiveBlocksPerMultiprocessor") < 0)
        return NULL;
    return PyLong_FromLong(n);
}
