/*
 * launch/pointer.c — a pointer parameter's value from a Python argument.
 *
 * DeviceAllocation, int and GPUArray (once learnt: pcc_hot.gpudata_slot) take
 * pack_fast in launch/pack.c; here is everything else a pointer may be
 * given as: a freed or subclassed DeviceAllocation, None, another GPUArray-
 * like object (gpudata), __cuda_array_interface__,
 * __dlpack__, a mapped pinned or managed numpy array, and In/Out/InOut,
 * whose temporary device buffer is made here and recorded for do_launch.
 * Every refusal names the kernel, the parameter and what was given.
 */
#include "launch/plan.h"

#include <string.h>

#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include "core/memory.h"

#ifndef Py_T_OBJECT_EX /* before 3.12 */
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

static PyObject *s_gpudata, *s_freed, *s_cai, *s_dlpack, *s_array, *s_copy_in, *s_copy_out, *s_data;
static PyObject *handler_class; /* pycudac._args.ArgumentHandler, imported on first need */
static PyObject *driver_module; /* pycudac._driver (for mem_alloc) */

static PyObject *driver_attr(const char *name)
{
    if (driver_module == NULL) {
        driver_module = PyImport_ImportModule("pycudac._driver");
        if (driver_module == NULL)
            return NULL;
    }
    return PyObject_GetAttrString(driver_module, name);
}

static int is_handler(PyObject *arg)
{
    if (handler_class == NULL) {
        PyObject *m = PyImport_ImportModule("pycudac._args");
        if (m == NULL)
            return -1;
        handler_class = PyObject_GetAttrString(m, "ArgumentHandler");
        Py_DECREF(m);
        if (handler_class == NULL)
            return -1;
    }
    return PyObject_IsInstance(arg, handler_class);
}

/* Whether the attribute lookup of `t`'s instances is the generic one that
 * a learnt entry stands for: no __getattribute__ or __getattr__, metaclass
 * type, and a version tag (which the lookup that led here has just made)
 * to date the finding. Not when `l` already holds `t` as it is. */
static int learnable(const pcc_learnt_type *l, PyTypeObject *t)
{
    return !pcc_is_learnt(l, t) && t->tp_getattro == PyObject_GenericGetAttr &&
           Py_IS_TYPE(t, &PyType_Type) && t->tp_version_tag != 0;
}

/* `t` (and its version tag now) into `l`; another class, or the same class
 * changed since, is replaced. */
static void learn(pcc_learnt_type *l, PyTypeObject *t, int offset)
{
    Py_INCREF(t);
    Py_XSETREF(l->type, t);
    l->offset = offset;
    l->version = t->tp_version_tag;
}

/* Makes `t` pcc_hot.gpudata_slot's class when `gpudata` is a plain slot of its
 * instances, which only a slot's own descriptor can answer for: the
 * descriptor of `gpudata` is a member of object type (what __slots__
 * makes). Errors are cleared: the slow path stays right without the entry. */
static void learn_gpudata_slot(PyTypeObject *t)
{
    if (!learnable(&pcc_hot.gpudata_slot, t))
        return;
    PyObject *d = PyObject_GetAttr((PyObject *)t, s_gpudata);
    if (d == NULL) {
        PyErr_Clear();
        return;
    }
    if (Py_IS_TYPE(d, &PyMemberDescr_Type) &&
        ((PyMemberDescrObject *)d)->d_member->type == Py_T_OBJECT_EX &&
        PyType_IsSubtype(t, PyDescr_TYPE(d)) && t->tp_version_tag != 0 &&
        ((PyMemberDescrObject *)d)->d_member->offset <= INT_MAX)
        learn(&pcc_hot.gpudata_slot, t, (int)((PyMemberDescrObject *)d)->d_member->offset);
    Py_DECREF(d);
}

/* Makes `t`, an int subclass, pcc_hot.pooled_int's class when its instances
 * keep `freed` in their __dict__: they have one, and the class has no
 * attribute named `freed` (which would come before the instance's). As
 * learn_gpudata_slot, errors are cleared. */
static void learn_pooled_int(PyTypeObject *t)
{
    if (!learnable(&pcc_hot.pooled_int, t) || t->tp_dictoffset == 0)
        return;
    PyObject *d = PyObject_GetAttr((PyObject *)t, s_freed);
    if (d != NULL) {
        Py_DECREF(d);
        return;
    }
    int absent = PyErr_ExceptionMatches(PyExc_AttributeError) && t->tp_version_tag != 0;
    PyErr_Clear();
    if (absent)
        learn(&pcc_hot.pooled_int, t, 0);
}

int pcc_pooled_ptr(PyObject *obj, CUdeviceptr *out)
{
    PyObject *d = PyObject_GenericGetDict(obj, NULL);
    if (d == NULL) {
        PyErr_Clear();
        return 1;
    }
    PyObject *freed = PyDict_GetItemWithError(d, s_freed); /* borrowed */
    Py_DECREF(d); /* the object holds its dict, and the dict `freed` */
    if (freed != Py_False) {
        PyErr_Clear();
        return 1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow != 0 || v < 0) {
        PyErr_Clear();
        return 1;
    }
    *out = (CUdeviceptr)v;
    return 0;
}

/* int(obj) as a device address (0..2^64-1). */
static int address_of_int(PccFunction *f, int i, PyObject *obj, CUdeviceptr *out,
                          const char *what)
{
    if (!PyLong_CheckExact(obj) && PyLong_Check(obj))
        learn_pooled_int(Py_TYPE(obj));
    /* a plain int pays one type check; an int subclass may say it was freed */
    int freed = PyLong_CheckExact(obj) ? 0 : pcc_freed_int_pointer(obj);
    if (PCC_UNLIKELY(freed != 0))
        return freed < 0 ? -1
                         : pcc_arg_error(f, i, PyExc_ValueError, "the pooled allocation (%s) "
                                         "was already freed", Py_TYPE(obj)->tp_name);
    PyObject *v = PyLong_Check(obj) ? (Py_INCREF(obj), obj) : PyNumber_Long(obj);
    if (v == NULL)
        return pcc_arg_error_from_current(f, i, PyExc_TypeError);
    int neg = 0;
    unsigned long long u = 0;
    int overflow = 0;
    long long sv = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow < 0 || (overflow == 0 && sv < 0)) {
        neg = 1;
    } else if (overflow == 0) {
        u = (unsigned long long)sv;
    } else {
        u = PyLong_AsUnsignedLongLong(v);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            neg = 2;
        }
    }
    if (sv == -1 && overflow == 0 && PyErr_Occurred()) {
        Py_DECREF(v);
        return -1;
    }
    if (neg) {
        pcc_arg_error(f, i, PyExc_OverflowError, "%s %S is not a device address (0..2**64-1)",
                  what, v);
        Py_DECREF(v);
        return -1;
    }
    Py_DECREF(v);
    *out = (CUdeviceptr)u;
    return 0;
}

static int alloc_ptr(PccFunction *f, int i, PyObject *a, CUdeviceptr *out)
{
    PccDeviceAllocation *d = (PccDeviceAllocation *)a;
    if (d->freed)
        return pcc_arg_error(f, i, PyExc_ValueError, "the DeviceAllocation was freed");
    *out = d->ptr;
    return 0;
}

/* A NumPy array: device-reachable when its memory is a mapped pinned
 * HostAllocation or managed memory; else the host-array TypeError. */
static int array_ptr(PccFunction *f, int i, PyObject *arg, CUdeviceptr *out)
{
    PyArrayObject *arr = (PyArrayObject *)arg;
    PyObject *b = PyArray_BASE(arr);
    for (int depth = 0; b != NULL && depth < 64; depth++) {
        if (pcc_st.HostAllocation && PyObject_TypeCheck(b, pcc_st.HostAllocation)) {
            PccHostAllocation *h = (PccHostAllocation *)b;
            if (h->freed)
                return pcc_arg_error(f, i, PyExc_ValueError, "the pinned host memory was freed");
            CUdeviceptr base = 0;
            CUresult rc = pcc_drv.cuMemHostGetDevicePointer(&base, h->ptr, 0);
            if (rc != CUDA_SUCCESS)
                return pcc_arg_error(f, i, PyExc_TypeError,
                                 "this pinned host array is not mapped into the device's "
                                 "address space (allocate it with "
                                 "host_alloc_flags.DEVICEMAP, or copy it with In/Out/InOut)");
            *out = base + (CUdeviceptr)((char *)PyArray_DATA(arr) - (char *)h->ptr);
            return 0;
        }
        if (pcc_st.DeviceAllocation && pcc_is_device_allocation(b)) {
            PccDeviceAllocation *d = (PccDeviceAllocation *)b;
            if (d->kind != PCC_MEM_MANAGED)
                break;
            if (d->freed)
                return pcc_arg_error(f, i, PyExc_ValueError, "the managed memory was freed");
            *out = (CUdeviceptr)(uintptr_t)PyArray_DATA(arr);
            return 0;
        }
        if (PyArray_Check(b))
            b = PyArray_BASE((PyArrayObject *)b);
        else if (PyMemoryView_Check(b))
            b = PyMemoryView_GET_BUFFER(b)->obj;
        else
            break;
    }
    return pcc_arg_error(f, i, PyExc_TypeError,
                     "got a host numpy.ndarray (dtype %S, %zd elements), which the GPU cannot "
                     "read; wrap it as drv.In(a), drv.Out(a) or drv.InOut(a) to copy it, or "
                     "pass a device array (gpuarray.to_gpu(a))",
                     (PyObject *)PyArray_DESCR(arr), (Py_ssize_t)PyArray_SIZE(arr));
}

/* Minimal DLPack (v0.x ABI): only what we read. */
typedef struct {
    void *data;
    struct { int32_t device_type, device_id; } device;
    int32_t ndim;
    struct { uint8_t code, bits; uint16_t lanes; } dtype;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} pcc_dltensor;

static int dlpack_ptr(PccFunction *f, int i, PyObject *arg, CUdeviceptr *out)
{
    PyObject *cap = PyObject_CallMethodNoArgs(arg, s_dlpack);
    if (cap == NULL)
        return pcc_arg_error_from_current(f, i, PyExc_TypeError);
    pcc_dltensor *t = PyCapsule_IsValid(cap, "dltensor") ? PyCapsule_GetPointer(cap, "dltensor")
                                                          : NULL;
    int rc = 0;
    if (t == NULL) {
        PyErr_Clear();
        rc = pcc_arg_error(f, i, PyExc_TypeError, "__dlpack__() did not return a DLPack capsule");
    } else if (t->device.device_type != 2 && t->device.device_type != 3 &&
               t->device.device_type != 13) {
        rc = pcc_arg_error(f, i, PyExc_TypeError,
                       "the DLPack tensor lives on device type %d, not on a CUDA device",
                       (int)t->device.device_type);
    } else {
        *out = (CUdeviceptr)(uintptr_t)t->data + t->byte_offset;
    }
    Py_DECREF(cap); /* its destructor releases the tensor; `arg` keeps the memory */
    return rc;
}

static int record_handler(PccFunction *f, int i, PyObject *arg, pcc_call_state *cs,
                          CUdeviceptr *out);

/* The address an object's `gpudata` stands for (None: NULL). 0 or -1. */
static int gpudata_ptr(PccFunction *f, int i, PyObject *gpudata, CUdeviceptr *out)
{
    *out = 0;
    if (gpudata == Py_None)
        return 0;
    if (pcc_st.DeviceAllocation && pcc_is_device_allocation(gpudata))
        return alloc_ptr(f, i, gpudata, out);
    return address_of_int(f, i, gpudata, out, "gpudata");
}

int pcc_conv_ptr(PccFunction *f, int i, PyObject *arg, char *dst, pcc_call_state *cs)
{
    CUdeviceptr p = 0;
    PyObject *attr;
    PyTypeObject *t = Py_TYPE(arg);
    if (pcc_is_learnt(&pcc_hot.gpudata_slot, t)) {
        /* a GPUArray whose gpudata pack_fast does not take (a pooled block,
         * a view's pointer): its slot, read as its descriptor would */
        attr = *(PyObject **)((char *)arg + pcc_hot.gpudata_slot.offset);
        if (attr != NULL) {
            Py_INCREF(attr);
            goto gpudata;
        }
    }
    if (pcc_st.DeviceAllocation && pcc_is_device_allocation(arg)) {
        if (alloc_ptr(f, i, arg, &p) < 0)
            return -1;
        goto store;
    }
    if (arg == Py_None)
        goto store;
    if (PyBool_Check(arg))
        return pcc_arg_error(f, i, PyExc_TypeError, "got bool, which is not a device pointer");
    if (PyLong_Check(arg)) {
        if (address_of_int(f, i, arg, &p, "address") < 0)
            return -1;
        goto store;
    }
    if (PyArray_Check(arg)) {
        if (array_ptr(f, i, arg, &p) < 0)
            return -1;
        goto store;
    }
    int h = is_handler(arg);
    if (h < 0)
        return -1;
    if (h) {
        if (record_handler(f, i, arg, cs, &p) < 0)
            return -1;
        goto store;
    }
    /* GPUArray-like: obj.gpudata */
    attr = PyObject_GetAttr(arg, s_gpudata);
    if (attr != NULL) {
        learn_gpudata_slot(t);
        goto gpudata;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    attr = PyObject_GetAttr(arg, s_cai);
    if (attr != NULL) {
        PyObject *data = PyDict_Check(attr) ? PyDict_GetItemWithError(attr, s_data) : NULL;
        int rc;
        if (data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) >= 1)
            rc = address_of_int(f, i, PyTuple_GET_ITEM(data, 0), &p,
                                "__cuda_array_interface__ data");
        else
            rc = PyErr_Occurred() ? -1
                                  : pcc_arg_error(f, i, PyExc_TypeError,
                                              "its __cuda_array_interface__ has no 'data' tuple");
        Py_DECREF(attr);
        if (rc < 0)
            return -1;
        goto store;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    if (PyObject_HasAttr(arg, s_dlpack)) {
        if (dlpack_ptr(f, i, arg, &p) < 0)
            return -1;
        goto store;
    }
    if (PyIndex_Check(arg) && !PyArray_IsScalar(arg, Bool)) {
        if (address_of_int(f, i, arg, &p, "address") < 0)
            return -1;
        goto store;
    }
    if (PyObject_CheckBuffer(arg))
        return pcc_arg_error(f, i, PyExc_TypeError,
                         "got %s, a host buffer, which the GPU cannot read; copy it to the "
                         "device (gpuarray.to_gpu) or wrap a numpy array in In/Out/InOut",
                         Py_TYPE(arg)->tp_name);
    return pcc_arg_error(f, i, PyExc_TypeError,
                     "expected a device pointer (DeviceAllocation, GPUArray, int address, "
                     "None, an object with __cuda_array_interface__, or In/Out/InOut of a "
                     "numpy array), got %s",
                     Py_TYPE(arg)->tp_name);
gpudata: /* attr: the argument's gpudata (a new reference) */
    {
        int rc = gpudata_ptr(f, i, attr, &p);
        Py_DECREF(attr);
        if (rc < 0)
            return -1;
    }
store:
    memcpy(dst, &p, sizeof p);
    return 0;
}

/* --------------------------------------------------------- In/Out/InOut */

static int record_handler(PccFunction *f, int i, PyObject *arg, pcc_call_state *cs,
                          CUdeviceptr *out)
{
    *out = 0;
    if (cs->pack_only == PCC_PACK_ONLY_BYTES)
        return pcc_arg_error(f, i, PyExc_TypeError,
                         "In/Out/InOut arguments get a temporary device buffer only when the "
                         "kernel is launched; pack() cannot show their bytes");
    if (cs->pack_only == PCC_PACK_ONLY_NODE)
        return pcc_arg_error(f, i, PyExc_TypeError,
                         "a graph's kernel node makes no copies: pass device memory, and "
                         "copy with memcpy_*_async on the capturing stream");
    if (cs->handlers == NULL) {
        cs->handlers = PyMem_Calloc((size_t)f->nparams, sizeof(pcc_handler_rec));
        if (cs->handlers == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    pcc_handler_rec *r = &cs->handlers[cs->nhandlers];
    memset(r, 0, sizeof *r);
    r->handler = arg;
    r->offset = f->params[i].offset;
    cs->nhandlers++;
    PyObject *ci = PyObject_GetAttr(arg, s_copy_in), *co = ci ? PyObject_GetAttr(arg, s_copy_out)
                                                              : NULL;
    if (co == NULL) {
        Py_XDECREF(ci);
        return -1;
    }
    r->copy_in = PyObject_IsTrue(ci);
    r->copy_out = PyObject_IsTrue(co);
    Py_DECREF(ci);
    Py_DECREF(co);
    r->array = PyObject_GetAttr(arg, s_array);
    if (r->array == NULL)
        return -1;
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (r->copy_out ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(r->array, &r->view, flags) < 0) {
        PyErr_Clear();
        const char *why = "its array does not export a C-contiguous buffer (use "
                          "numpy.ascontiguousarray)";
        if (PyArray_Check(r->array)) {
            PyArrayObject *a = (PyArrayObject *)r->array;
            if (r->copy_out && !PyArray_ISWRITEABLE(a))
                why = "its array is read-only, so the kernel's output cannot be copied back";
            else if (!PyArray_IS_C_CONTIGUOUS(a))
                why = "its array is not C-contiguous (the copy back would miss the "
                      "original); pass numpy.ascontiguousarray(a) and copy back yourself";
        }
        return pcc_arg_error(f, i, PyExc_ValueError, "%s: %s", Py_TYPE(arg)->tp_name, why);
    }
    r->has_view = 1;
    if (pcc_holds_objects(r->array, &r->view))
        return pcc_arg_objects_error(f, i);
    if (r->view.len > 0) {
        PyObject *mem_alloc = driver_attr("mem_alloc");
        if (mem_alloc == NULL)
            return -1;
        r->alloc = PyObject_CallFunction(mem_alloc, "n", r->view.len);
        Py_DECREF(mem_alloc);
        if (r->alloc == NULL)
            return -1;
        if (!(pcc_st.DeviceAllocation && pcc_is_device_allocation(r->alloc))) {
            PyErr_SetString(PyExc_SystemError, "mem_alloc did not return a DeviceAllocation");
            return -1;
        }
        *out = ((PccDeviceAllocation *)r->alloc)->ptr;
    }
    return 0;
}

void pcc_call_state_clear(pcc_call_state *cs)
{
    for (int k = 0; k < cs->nhandlers; k++) {
        pcc_handler_rec *r = &cs->handlers[k];
        if (r->has_view)
            PyBuffer_Release(&r->view);
        Py_XDECREF(r->array);
        Py_XDECREF(r->alloc);
    }
    PyMem_Free(cs->handlers);
    cs->handlers = NULL;
    cs->nhandlers = 0;
}

int pcc_ptr_init(PyObject *module)
{
    (void)module;
    if (PyArray_API == NULL) {
        import_array1(-1);
    }
#define INTERN(var, text)                                                                      \
    if ((var = PyUnicode_InternFromString(text)) == NULL)                                      \
        return -1;
    INTERN(s_gpudata, "gpudata");
    INTERN(s_freed, "freed");
    INTERN(s_cai, "__cuda_array_interface__");
    INTERN(s_dlpack, "__dlpack__");
    INTERN(s_array, "array");
    INTERN(s_copy_in, "copy_in");
    INTERN(s_copy_out, "copy_out");
    INTERN(s_data, "data");
#undef INTERN
    return 0;
}
