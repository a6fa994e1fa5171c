/*
 * launch/handlers.c — the In/Out/InOut arguments of a launch around it
 * (launch/call.c's general path calls these): the host-to-device copies
 * before, the device-to-host copies after, and for an ArgumentHandler of
 * PyCUDA's own protocol its pre_call and post_call instead. Their pointers
 * were packed by launch/pointer.c, which recorded each handler.
 */
#include "launch/call.h"
#include "launch/plan.h"

#include "driver/loader.h"
#include "core/memory.h"
#include "core/stream.h"

/* In/Out/InOut before the launch: host to device copies (on the stream, or
 * synchronous without one); with a stream, the host arrays and temporary
 * device buffers are kept alive until the stream gets there. 0 or -1. */
int pcc_handlers_copy_in(pcc_call_state *cs, int async, PyObject *stream_obj, CUstream stream)
{
    CUresult rc;
    for (int k = 0; k < cs->nhandlers; k++) {
        pcc_handler_rec *h = &cs->handlers[k];
        if (h->pycuda) { /* PyCUDA's protocol: its own pre_call(stream) */
            PyObject *r = PyObject_CallMethodOneArg(h->handler, pcc_st.str_pre_call,
                                                    async ? stream_obj : Py_None);
            if (r == NULL)
                return -1;
            Py_DECREF(r);
            continue;
        }
        if (h->alloc == NULL || !h->copy_in)
            continue;
        CUdeviceptr dp = ((PccDeviceAllocation *)h->alloc)->ptr;
        Py_BEGIN_ALLOW_THREADS
        rc = async ? pcc_drv.cuMemcpyHtoDAsync(dp, h->view.buf, (size_t)h->view.len, stream)
                   : pcc_drv.cuMemcpyHtoD(dp, h->view.buf, (size_t)h->view.len);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, async ? "cuMemcpyHtoDAsync" : "cuMemcpyHtoD") < 0)
            return -1;
    }
    if (async) {
        /* The copies read and write the host arrays later: keep them (and the
         * temporary device buffers) until the stream gets there. */
        for (int k = 0; k < cs->nhandlers; k++) {
            pcc_handler_rec *h = &cs->handlers[k];
            if (pcc_stream_keep_alive(stream_obj, h->array) < 0 ||
                (h->alloc && pcc_stream_keep_alive(stream_obj, h->alloc) < 0))
                return -1;
        }
    }
    return 0;
}

/* Out/InOut after the launch: device to host copies; then the post_call
 * of a handler of PyCUDA's protocol that has one (without a stream once the
 * context synchronized, as PyCUDA does). 0 or -1. */
int pcc_handlers_copy_out(pcc_call_state *cs, int async, PyObject *stream_obj, CUstream stream)
{
    CUresult rc;
    int synced = async;
    for (int k = 0; k < cs->nhandlers; k++) {
        pcc_handler_rec *h = &cs->handlers[k];
        if (h->pycuda) {
            PyObject *post = PyObject_GetAttr(h->handler, pcc_st.str_post_call);
            if (post == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                    return -1;
                PyErr_Clear();
                continue;
            }
            if (!synced) {
                Py_BEGIN_ALLOW_THREADS
                rc = pcc_drv.cuCtxSynchronize();
                Py_END_ALLOW_THREADS
                if (pcc_check(rc, "cuCtxSynchronize") < 0) {
                    Py_DECREF(post);
                    return -1;
                }
                synced = 1;
            }
            PyObject *r = PyObject_CallOneArg(post, async ? stream_obj : Py_None);
            Py_DECREF(post);
            if (r == NULL)
                return -1;
            Py_DECREF(r);
            continue;
        }
        if (h->alloc == NULL || !h->copy_out)
            continue;
        CUdeviceptr dp = ((PccDeviceAllocation *)h->alloc)->ptr;
        Py_BEGIN_ALLOW_THREADS
        rc = async ? pcc_drv.cuMemcpyDtoHAsync(h->view.buf, dp, (size_t)h->view.len, stream)
                   : pcc_drv.cuMemcpyDtoH(h->view.buf, dp, (size_t)h->view.len);
        Py_END_ALLOW_THREADS
        if (pcc_check(rc, async ? "cuMemcpyDtoHAsync" : "cuMemcpyDtoH") < 0)
            return -1;
    }
    return 0;
}
