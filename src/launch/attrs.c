/*
 * launch/attrs.c — f(..., cluster=(x, y, z), priority=p): cuLaunchKernelEx
 * with launch attributes, off the plain call's path (call.c comes here only
 * when one of these keywords is given and not None; a loop that repeats a
 * cluster= tuple this took launches on call.c's fast path from its second
 * call).
 *
 * cluster=: thread-block clusters (compute capability 9.0): the grid is cut
 * into clusters of x*y*z blocks that run at once on one GPC and may read
 * and write each other's shared memory (cooperative_groups::this_cluster(),
 * map_shared_rank). The grid must be a whole number of clusters in every
 * dimension; the driver decides how large a cluster may be (8 blocks is
 * portable) and refuses one too large with CUDA_ERROR_INVALID_CLUSTER_SIZE,
 * which is raised naming the kernel and the cluster.
 * priority=: the launch's priority, as a stream's (lower is higher: 0 down to
 * -5 on an H100; the driver clamps it to the device's range).
 * cooperative=True with either: the cooperative attribute too, after the
 * grid-fits check of cooperative=True alone (launch/cooperative.c).
 */
#include "launch/call.h"
#include "launch/plan.h"

#include <stdio.h>
#include <string.h>

#include "driver/loader.h"

#define CUDA_ERROR_INVALID_CLUSTER_SIZE 912

/* cluster= as three positive ints, into c[] (1 for what is not given).
 * 0, or -1 with a TypeError / ValueError naming the kernel. The last tuple
 * taken is remembered in f (a launch loop passes the same constant tuple
 * each call, and a tuple cannot change): the call path's fast one knows it
 * by identity. */
static int parse_cluster(PccFunction *f, PyObject *o, unsigned int c[3])
{
    if (o == f->last_cluster) {
        memcpy(c, f->last_cluster_dims, sizeof f->last_cluster_dims);
        return 0;
    }
    c[0] = c[1] = c[2] = 1;
    PyObject *seq = PySequence_Check(o) && !PyUnicode_Check(o) && !PyBytes_Check(o)
                        ? PySequence_Fast(o, "cluster")
                        : NULL;
    if (seq == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "kernel '%U': cluster must be a tuple of 1 to 3 ints "
                     "(blocks per cluster in x, y, z), got %.100s", f->name, Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 3) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "kernel '%U': cluster must have 1 to 3 dimensions, "
                     "got %zd", f->name, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (PyBool_Check(item) || !PyIndex_Check(item)) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_TypeError, "kernel '%U': cluster[%zd] must be an int, got %.100s",
                         f->name, i, Py_TYPE(item)->tp_name);
            return -1;
        }
        Py_ssize_t v = PyNumber_AsSsize_t(item, PyExc_OverflowError);
        if (v == -1 && PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_OverflowError)) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < 1 || v > 1024) { /* or past a C ssize_t: the value as given */
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "kernel '%U': cluster[%zd] = %S is out of range "
                         "(1..1024 blocks)", f->name, i, item);
            Py_DECREF(seq);
            return -1;
        }
        c[i] = (unsigned int)v;
    }
    Py_DECREF(seq);
    if (PyTuple_CheckExact(o)) {
        Py_XSETREF(f->last_cluster, Py_NewRef(o));
        memcpy(f->last_cluster_dims, c, sizeof f->last_cluster_dims);
    }
    return 0;
}

/* priority= as an int. 0 or -1. */
static int parse_priority(PccFunction *f, PyObject *o, int *out)
{
    if (PyBool_Check(o) || !PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "kernel '%U': priority must be an int, got %.100s",
                     f->name, Py_TYPE(o)->tp_name);
        return -1;
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(o, &overflow);
    if (overflow || v < -1000000 || v > 1000000) {
        PyErr_Format(PyExc_ValueError, "kernel '%U': priority is out of range (a stream's "
                     "priorities are small ints, lower is higher: 0 down to -5 on an H100)",
                     f->name);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Whether the current context's device launches clusters (asked after a
 * failed launch, to say why). 0 (with an exception saying why not) or 1;
 * -1 on a driver error. */
static int device_clusters(PccFunction *f)
{
    CUdevice dev;
    int can = 0;
    if (pcc_check(pcc_drv.cuCtxGetDevice(&dev), "cuCtxGetDevice") < 0 ||
        pcc_check(pcc_drv.cuDeviceGetAttribute(&can, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev),
                  "cuDeviceGetAttribute(CLUSTER_LAUNCH)") < 0)
        return -1;
    if (!can) {
        char call[300];
        snprintf(call, sizeof call, "cuLaunchKernelEx (kernel '%.200s')",
                 pcc_function_cname(f));
        pcc_raise_detail(CUDA_ERROR_NOT_SUPPORTED, call,
                         "This device cannot launch thread-block clusters (its CLUSTER_LAUNCH "
                         "attribute is 0: clusters need compute capability 9.0 or later)");
        return 0;
    }
    return 1;
}

int pcc_launch_ex(PyObject *func, const unsigned int g[3], const unsigned int b[3],
                  unsigned int shared, CUstream stream, char *buf, PyObject *cluster,
                  PyObject *priority, int cooperative)
{
    PccFunction *f = (PccFunction *)func;
    CUlaunchAttribute attrs[3]; /* each zeroed as it is taken */
    unsigned int n = 0, c[3] = {1, 1, 1};
    if (cluster != NULL) {
        if (parse_cluster(f, cluster, c) < 0)
            return -1;
        for (int i = 0; i < 3; i++)
            if (g[i] % c[i] != 0) {
                PyErr_Format(PyExc_ValueError, "kernel '%U': the grid (%u, %u, %u) must be a "
                             "whole number of clusters (%u, %u, %u): %c is not a multiple",
                             f->name, g[0], g[1], g[2], c[0], c[1], c[2], "xyz"[i]);
                return -1;
            }
        memset(&attrs[n], 0, sizeof attrs[n]);
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value.clusterDim.x = c[0];
        attrs[n].value.clusterDim.y = c[1];
        attrs[n].value.clusterDim.z = c[2];
        n++;
    }
    if (priority != NULL) {
        memset(&attrs[n], 0, sizeof attrs[n]);
        if (parse_priority(f, priority, &attrs[n].value.priority) < 0)
            return -1;
        attrs[n++].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    }
    if (cooperative) { /* the same check, and words, as cooperative=True alone */
        if (pcc_cooperative_fits(func, g, b, shared) < 0)
            return -1;
        memset(&attrs[n], 0, sizeof attrs[n]);
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attrs[n++].value.cooperative = 1;
    }
    if (pcc_drv.cuLaunchKernelEx == NULL) {
        PyErr_Format(pcc_st.LogicError, "kernel '%U': cluster= and priority= need "
                     "cuLaunchKernelEx, which this driver lacks (CUDA 11.8 or later)", f->name);
        return -1;
    }
    CUlaunchConfig cfg = {g[0], g[1], g[2], b[0], b[1], b[2], shared, stream, attrs, n};
    size_t size = f->argsize;
    void *extra[] = {PCC_LAUNCH_PARAM_BUFFER_POINTER, buf, PCC_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     PCC_LAUNCH_PARAM_END};
    CUresult rc = pcc_launch_kernel_ex(&cfg, f->fn, size ? extra : NULL);
    return rc == CUDA_SUCCESS ? 0 : pcc_launch_ex_failed(func, rc, g, c, cluster != NULL);
}

int pcc_launch_ex_failed(PyObject *func, CUresult rc, const unsigned int g[3],
                         const unsigned int c[3], int cluster)
{
    PccFunction *f = (PccFunction *)func;
    /* asked only now: a launch that works costs no query */
    if (cluster && device_clusters(f) <= 0)
        return -1;
    char call[400];
    snprintf(call, sizeof call, "cuLaunchKernelEx (kernel '%.200s', grid (%u, %u, %u), cluster "
             "(%u, %u, %u))", pcc_function_cname(f), g[0], g[1], g[2], c[0], c[1], c[2]);
    if (rc == CUDA_ERROR_INVALID_CLUSTER_SIZE)
        return pcc_raise_detail(rc, call, "The driver refuses this cluster for this kernel: "
                                "more blocks than the device runs in one cluster (8 is "
                                "portable), or other than the kernel's __cluster_dims__");
    return pcc_raise(rc, call);
}
