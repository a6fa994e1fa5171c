/*
 * launch/pointer.c — a pointer parameter's value from a Python argument.
 *
 * DeviceAllocation, int and GPUArray (an ArrayBase, defined here: the C
 * base of gpuarray.GPUArray, whose device pointer a launch reads from a C
 * field) take pack_fast in launch/pack.c; here is everything else a pointer
 * may be given as: a freed or subclassed DeviceAllocation, None, another
 * GPUArray-like object (gpudata), __cuda_array_interface__, __dlpack__, a
 * mapped pinned or managed numpy array, and In/Out/InOut, whose temporary
 * device buffer is made here and recorded for the launch. Every refusal
 * names the kernel, the parameter and what was given.
 */
#include "launch/plan.h"

#include <string.h>

#include "module/npy_compat.h" /* numpy/arrayobject.h, on NumPy 1.x and 2.x */
#include <numpy/arrayscalars.h>

#include "core/memory.h"
#include "core/multi.h"

#ifndef Py_T_OBJECT_EX /* before 3.12 */
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#define Py_T_ULONGLONG T_ULONGLONG
#endif

/* ---- ArrayBase ------------------------------------------------------------ */

static void array_base_dealloc(PyObject *op)
{
    PccArrayBase *self = (PccArrayBase *)op;
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    Py_CLEAR(self->gpudata);
    Py_CLEAR(self->dtype);
    Py_CLEAR(self->context);
    tp->tp_free(op);
    Py_DECREF(tp);
}

static int array_base_traverse(PyObject *op, visitproc visit, void *arg)
{
    PccArrayBase *self = (PccArrayBase *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->gpudata);
    Py_VISIT(self->dtype);
    Py_VISIT(self->context);
    return 0;
}

static int array_base_clear(PyObject *op)
{
    PccArrayBase *self = (PccArrayBase *)op;
    Py_CLEAR(self->gpudata);
    Py_CLEAR(self->dtype);
    Py_CLEAR(self->context);
    return 0;
}

int pcc_gpudata_released(PyObject *g)
{
    if (pcc_is_device_allocation(g))
        return ((PccDeviceAllocation *)g)->freed != 0;
    /* a view's pointer: its owner (the allocation, or an array holding it);
     * only a type check for everything else (GPUArray.ptr asks on every
     * operation) */
    if (g == NULL || pcc_st.view_pointer == NULL || (PyObject *)Py_TYPE(g) != pcc_st.view_pointer)
        return 0;
    PyObject *d = PyObject_GenericGetDict(g, NULL);
    if (d == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *owner = PyDict_GetItemWithError(d, pcc_st.str_base); /* borrowed */
    Py_DECREF(d); /* the view's pointer holds its dict, and the dict the owner */
    PyErr_Clear();
    if (owner != NULL && PyObject_TypeCheck(owner, pcc_st.ArrayBase))
        owner = ((PccArrayBase *)owner)->gpudata;
    return owner != NULL && pcc_is_device_allocation(owner) &&
           ((PccDeviceAllocation *)owner)->freed != 0;
}

/* GPUArray.ptr: the address, refused once the memory behind it was freed.
 * The array's own operations (elementwise, copies, reductions) take their
 * addresses here, so a GPUArray over freed memory raises instead of reading
 * or writing whatever lives there now. */
static PyObject *array_base_get_ptr(PyObject *op, void *closure)
{
    (void)closure;
    PccArrayBase *a = (PccArrayBase *)op;
    if (PCC_UNLIKELY(pcc_context_gone(a->context))) {
        PyErr_SetString(pcc_st.LogicError, "GPUArray: the context it was made in was detached "
                        "(its memory went with it)");
        return NULL;
    }
    if (pcc_gpudata_released(a->gpudata)) {
        PyErr_SetString(PyExc_ValueError,
                        "GPUArray: its device memory was freed (its gpudata, or the memory of "
                        "the array it is a view of, was free()d): the array holds no data any "
                        "more");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(a->ptr);
}

static int array_base_set_ptr(PyObject *op, PyObject *value, void *closure)
{
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "GPUArray.ptr cannot be deleted");
        return -1;
    }
    unsigned long long u = PyLong_AsUnsignedLongLong(value);
    if (u == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    ((PccArrayBase *)op)->ptr = u;
    return 0;
}

static PyObject *array_base_get_gpudata(PyObject *op, void *closure)
{
    (void)closure;
    PyObject *g = ((PccArrayBase *)op)->gpudata;
    if (g == NULL) {
        PyErr_SetString(PyExc_AttributeError, "GPUArray.gpudata is not set");
        return NULL;
    }
    return Py_NewRef(g);
}

/* PyCUDA reads a GPUArray's address from `gpudata` at every launch, so code
 * built on it moves an array by assigning gpudata (reikna's temporary-memory
 * manager assigns an int). The launch reads `ptr`: it moves with gpudata
 * (0 for None), or a kernel would get the old address. GPUArray's own
 * constructors set ptr after gpudata (a view's offset). */
static int array_base_set_gpudata(PyObject *op, PyObject *value, void *closure)
{
    (void)closure;
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "GPUArray.gpudata cannot be deleted");
        return -1;
    }
    unsigned long long u = 0;
    if (value != Py_None) {
        /* int() of a str parses it, of a float truncates it: neither is memory */
        PyNumberMethods *nm = Py_TYPE(value)->tp_as_number;
        if (PyFloat_Check(value) || nm == NULL || (nm->nb_int == NULL && nm->nb_index == NULL)) {
            PyErr_Format(PyExc_TypeError, "GPUArray.gpudata must be device memory (a "
                         "DeviceAllocation, an int address or an object with __int__) "
                         "or None, not %.100s", Py_TYPE(value)->tp_name);
            return -1;
        }
        PyObject *n = PyNumber_Long(value);
        if (n == NULL)
            return -1;
        u = PyLong_AsUnsignedLongLong(n);
        Py_DECREF(n);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError) ||
                PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_SetString(PyExc_OverflowError, "GPUArray.gpudata: the address is "
                                "not a 64-bit unsigned int");
            }
            return -1;
        }
    }
    PccArrayBase *a = (PccArrayBase *)op;
    Py_XSETREF(a->gpudata, Py_NewRef(value));
    a->ptr = u;
    return 0;
}

static PyGetSetDef array_base_getset[] = {
    {"ptr", array_base_get_ptr, array_base_set_ptr,
     "The device address of element 0 (an int); a ValueError once the memory was freed.",
     NULL},
    {"gpudata", array_base_get_gpudata, array_base_set_gpudata,
     "The device memory: the owning allocation, or an int-like pointer for a view. "
     "Assigning it moves the array (ptr follows), as in PyCUDA.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef array_base_members[] = {
    {"dtype", Py_T_OBJECT_EX, offsetof(PccArrayBase, dtype), 0, "The element type."},
    {"_ctx", Py_T_OBJECT_EX, offsetof(PccArrayBase, context), 0,
     "The Context the array was made in (a launch compares it with the kernel's)."},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot array_base_slots[] = {
    {Py_tp_doc, "The C base of gpuarray.GPUArray: its device memory, address and dtype, "
                "which a kernel launch reads without attribute lookups."},
    {Py_tp_dealloc, array_base_dealloc},
    {Py_tp_traverse, array_base_traverse},
    {Py_tp_clear, array_base_clear},
    {Py_tp_members, array_base_members},
    {Py_tp_getset, array_base_getset},
    {Py_tp_new, PyType_GenericNew},
    {0, NULL}};

static PyType_Spec array_base_spec = {
    .name = "pycudac._driver.ArrayBase",
    .basicsize = sizeof(PccArrayBase),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = array_base_slots,
};

int pcc_array_base_ptr(const PccArrayBase *a, CUdeviceptr *out)
{
    PyObject *g = a->gpudata;
    if (g == NULL)
        return 1;
    if (Py_IS_TYPE(g, pcc_st.DeviceAllocation)) {
        if (((PccDeviceAllocation *)g)->freed)
            return 1;
    } else if ((PyObject *)Py_TYPE(g) == pcc_st.view_pointer) {
        if (pcc_gpudata_released(g)) /* its owner's memory was freed */
            return 1;
    } else if (!PyLong_CheckExact(g) && g != Py_None) {
        /* an int-like block (a pool's, a view's pointer): refused once its
         * instance says it was freed; conv_one decides anything else */
        if (!PyLong_Check(g) || Py_TYPE(g)->tp_dictoffset == 0)
            return 1;
        PyObject *d = PyObject_GenericGetDict(g, NULL);
        if (d == NULL) {
            PyErr_Clear();
            return 1;
        }
        PyObject *freed = PyDict_GetItemWithError(d, pcc_st.str_freed); /* borrowed */
        Py_DECREF(d); /* the object holds its dict, and the dict `freed` */
        if (freed != NULL && freed != Py_False) {
            PyErr_Clear();
            return 1;
        }
        if (freed == NULL && PyErr_Occurred()) {
            PyErr_Clear();
            return 1;
        }
    }
    *out = (CUdeviceptr)a->ptr;
    return 0;
}

/* ---- the pointee's element type ------------------------------------------- */

int pcc_pointee_accepts(const pcc_param *p, PyObject *given)
{
    PyArray_Descr *want = (PyArray_Descr *)p->elem, *g = (PyArray_Descr *)given;
    if (want == NULL || given == NULL || given == p->elem || PyArray_EquivTypes(g, want))
        return 1;
    PyArray_Descr *base = (PyArray_Descr *)p->elem_base;
    if (base == NULL)
        return 0;
    /* a vector or complex pointee (float4 *, cuFloatComplex *): its component
     * type (float32 in fours), a complex of it, or a structured dtype of
     * just such components */
    if (PyArray_EquivTypes(g, base))
        return 1;
    if (PyDataType_ELSIZE(g) != PyDataType_ELSIZE(want))
        return 0;
    if (PyDataType_ISCOMPLEX(g))
        return PyDataType_ELSIZE(g) == 2 * PyDataType_ELSIZE(base) &&
               PyDataType_ISFLOAT(base);
    if (!PyDataType_HASFIELDS(g))
        return 0;
    PyObject *names = PyDataType_NAMES(g), *fields = PyDataType_FIELDS(g);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(names); k++) {
        PyObject *fi = PyDict_GetItem(fields, PyTuple_GET_ITEM(names, k));
        if (fi == NULL || !PyTuple_Check(fi) ||
            !PyArray_EquivTypes((PyArray_Descr *)PyTuple_GET_ITEM(fi, 0), base))
            return 0;
    }
    return 1;
}

/* TypeError: argument i carries `given` where the kernel reads p's pointee. */
static int pointee_error(PccFunction *f, int i, const char *what, PyObject *given)
{
    pcc_param *p = &f->params[i];
    return pcc_arg_error(f, i, PyExc_TypeError,
                         "got %s of %S, but the kernel reads %S elements (pass an array of "
                         "that dtype, a .view() of the right dtype to reinterpret the memory on "
                         "purpose, or the bare device memory, e.g. a.gpudata, to pass it "
                         "untyped)",
                         what, given, p->elem);
}

/* The pointee check for an argument that carries `given` (a numpy.dtype, or
 * NULL when it says nothing): 0, or -1 with the TypeError. */
static int check_pointee(PccFunction *f, int i, const char *what, PyObject *given)
{
    if (pcc_pointee_accepts(&f->params[i], given))
        return 0;
    return pointee_error(f, i, what, given);
}

/* int(obj) as a device address (0..2^64-1). */
static int address_of_int(PccFunction *f, int i, PyObject *obj, CUdeviceptr *out,
                          const char *what)
{
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

/* Memory of context `mem` passed to kernel f: refused (ValueError naming
 * both devices) when f's device cannot reach it. Only once contexts of two
 * devices have existed (pcc_st.multi_device). 0 or -1. */
static int check_device(PccFunction *f, int i, const char *what, PyObject *mem)
{
    if (!pcc_st.multi_device || mem == NULL || mem == f->context)
        return 0;
    int r = pcc_peer_reachable(f->context, mem);
    if (r != 0)
        return r < 0 ? -1 : 0;
    int run_dev = (int)((PccContext *)f->context)->dev, mem_dev = (int)((PccContext *)mem)->dev;
    return pcc_arg_error(f, i, PyExc_ValueError,
                         "got %s in device %d's memory, but the kernel runs on device %d (the "
                         "context it was loaded in), which has no peer access to it: run it in "
                         "device %d's context, copy the data over (memcpy_peer), or enable "
                         "access with Context.enable_peer_access(device %d's context) while "
                         "device %d's context is current",
                         what, mem_dev, run_dev, mem_dev, mem_dev, run_dev);
}

static int alloc_ptr(PccFunction *f, int i, PyObject *a, CUdeviceptr *out)
{
    PccDeviceAllocation *d = (PccDeviceAllocation *)a;
    if (d->freed)
        return pcc_arg_error(f, i, PyExc_ValueError, "the DeviceAllocation was freed");
    if (pcc_context_gone(d->context))
        return pcc_arg_error(f, i, pcc_st.LogicError, "the DeviceAllocation's context was "
                             "detached (its memory went with it)");
    if (check_device(f, i, "a DeviceAllocation", d->context) < 0)
        return -1;
    *out = d->ptr;
    return 0;
}

/* A NumPy array: device-reachable when its memory is a mapped pinned
 * HostAllocation or managed memory; else the host-array TypeError. */
static int array_ptr(PccFunction *f, int i, PyObject *arg, CUdeviceptr *out)
{
    PyArrayObject *arr = (PyArrayObject *)arg;
    PyObject *b = PyArray_BASE(arr);
    if (check_pointee(f, i, "a numpy.ndarray", (PyObject *)PyArray_DESCR(arr)) < 0)
        return -1;
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
    PyObject *cap = PyObject_CallMethodNoArgs(arg, pcc_st.str_dlpack);
    if (cap == NULL)
        return pcc_arg_error_from_current(f, i, PyExc_TypeError);
    pcc_dltensor *t = PyCapsule_IsValid(cap, "dltensor") ? PyCapsule_GetPointer(cap, "dltensor")
                                                          : NULL;
    PyErr_Clear();
    int device = t ? (int)t->device.device_type : -1;
    int on_gpu = device == 2 || device == 3 || device == 13; /* CUDA, host-pinned, managed */
    PyArray_Descr *d = NULL;
    if (on_gpu) {
        *out = (CUdeviceptr)(uintptr_t)t->data + t->byte_offset;
        /* the element type, when DLPack names one NumPy has: int, uint,
         * float, complex or bool, one lane */
        static const char codes[] = {[0] = 'i', [1] = 'u', [2] = 'f', [5] = 'c', [6] = 'b'};
        char c = t->dtype.code < sizeof codes ? codes[t->dtype.code] : 0;
        if (c && t->dtype.lanes == 1 && f->params[i].elem != NULL) {
            char spec[8];
            snprintf(spec, sizeof spec, "%c%u", c, (unsigned)t->dtype.bits / 8);
            PyObject *sp = PyUnicode_FromString(spec);
            if (sp == NULL || PyArray_DescrConverter(sp, &d) != NPY_SUCCEED)
                d = NULL;
            Py_XDECREF(sp);
            PyErr_Clear();
        }
    }
    /* The capsule's destructor releases the tensor and may run Python code,
     * so it goes before any error is raised; `arg` keeps the memory. */
    Py_DECREF(cap);
    int rc = 0;
    if (t == NULL)
        rc = pcc_arg_error(f, i, PyExc_TypeError, "__dlpack__() did not return a DLPack capsule");
    else if (!on_gpu)
        rc = pcc_arg_error(f, i, PyExc_TypeError,
                           "the DLPack tensor lives on device type %d, not on a CUDA device",
                           device);
    else if (d != NULL)
        rc = check_pointee(f, i, "a DLPack tensor", (PyObject *)d);
    Py_XDECREF(d);
    return rc;
}

static int record_handler(PccFunction *f, int i, PyObject *arg, pcc_call_state *cs,
                          CUdeviceptr *out);

/* The pointee check for a __cuda_array_interface__ dict by its typestr
 * (a structured one, "|V16", says nothing of its fields: not checked). */
static int cai_pointee(PccFunction *f, int i, PyObject *cai)
{
    if (f->params[i].elem == NULL)
        return 0;
    PyObject *ts = PyDict_GetItemWithError(cai, pcc_st.str_typestr); /* borrowed */
    if (ts == NULL)
        return PyErr_Occurred() ? -1 : 0;
    PyArray_Descr *d = NULL;
    if (!PyUnicode_Check(ts) || PyArray_DescrConverter(ts, &d) != NPY_SUCCEED) {
        PyErr_Clear();
        return 0;
    }
    int rc = d->type_num == NPY_VOID
                 ? 0
                 : check_pointee(f, i, "an array (__cuda_array_interface__)", (PyObject *)d);
    Py_DECREF(d);
    return rc;
}

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
    if (PyObject_TypeCheck(arg, pcc_st.ArrayBase)) {
        /* a GPUArray whose gpudata pack_fast does not take: its field */
        PccArrayBase *a = (PccArrayBase *)arg;
        if (a->dtype != NULL && PyArray_DescrCheck(a->dtype) &&
            check_pointee(f, i, "a GPUArray", a->dtype) < 0)
            return -1;
        if (check_device(f, i, "a GPUArray", a->context) < 0)
            return -1;
        if (pcc_gpudata_released(a->gpudata))
            return pcc_arg_error(f, i, PyExc_ValueError,
                                 "the GPUArray's device memory was freed (its gpudata, or that "
                                 "of the array it is a view of)");
        if (pcc_array_base_ptr(a, &p) == 0)
            goto store; /* a view: its own address, not its allocation's */
        attr = a->gpudata;
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
    /* In/Out/InOut: pycudac._args registers their class at import */
    int h = pcc_st.argument_handler ? PyObject_IsInstance(arg, pcc_st.argument_handler) : 0;
    if (h < 0)
        return -1;
    if (h) {
        if (record_handler(f, i, arg, cs, &p) < 0)
            return -1;
        goto store;
    }
    /* GPUArray-like: obj.gpudata */
    attr = PyObject_GetAttr(arg, pcc_st.str_gpudata);
    if (attr != NULL)
        goto gpudata;
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    attr = PyObject_GetAttr(arg, pcc_st.str_cai);
    if (attr != NULL) {
        PyObject *data = PyDict_Check(attr) ? PyDict_GetItemWithError(attr, pcc_st.str_data) : NULL;
        int rc;
        if (data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) >= 1)
            rc = cai_pointee(f, i, attr) < 0
                     ? -1
                     : address_of_int(f, i, PyTuple_GET_ITEM(data, 0), &p,
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
    if (PyObject_HasAttr(arg, pcc_st.str_dlpack)) {
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
    PyObject *proto = PyObject_GetAttr(arg, pcc_st.str_pycuda_protocol);
    int pycuda = proto == NULL ? -1 : PyObject_IsTrue(proto);
    Py_XDECREF(proto);
    if (pycuda < 0)
        return -1;
    if (pycuda) {
        /* PyCUDA's protocol: the pointer is int(get_device_alloc()), which
         * the record holds until the call (or its stream) is done */
        r->pycuda = 1;
        r->array = PyObject_CallMethodNoArgs(arg, pcc_st.str_get_device_alloc);
        if (r->array == NULL)
            return -1;
        if (pcc_is_device_allocation(r->array))
            return alloc_ptr(f, i, r->array, out);
        if (r->array == Py_None || PyFloat_Check(r->array) || PyBool_Check(r->array))
            return pcc_arg_error(f, i, PyExc_TypeError, "%s.get_device_alloc() gave %s, "
                                 "which is not device memory", Py_TYPE(arg)->tp_name,
                                 Py_TYPE(r->array)->tp_name);
        return address_of_int(f, i, r->array, out, "get_device_alloc()");
    }
    PyObject *ci = PyObject_GetAttr(arg, pcc_st.str_copy_in), *co = ci ? PyObject_GetAttr(arg, pcc_st.str_copy_out)
                                                              : NULL;
    if (co == NULL) {
        Py_XDECREF(ci);
        return -1;
    }
    r->copy_in = PyObject_IsTrue(ci);
    r->copy_out = PyObject_IsTrue(co);
    Py_DECREF(ci);
    Py_DECREF(co);
    r->array = PyObject_GetAttr(arg, pcc_st.str_array);
    if (r->array == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return pcc_arg_error(f, i, PyExc_TypeError, "%s, an ArgumentHandler, has no `array` "
                             "(its __init__ did not call ArgumentHandler.__init__(self, ary)) "
                             "and no get_device_alloc() of its own", Py_TYPE(arg)->tp_name);
    }

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
    if (PyArray_Check(r->array) &&
        check_pointee(f, i, Py_TYPE(arg)->tp_name,
                      (PyObject *)PyArray_DESCR((PyArrayObject *)r->array)) < 0)
        return -1;
    if (r->view.len > 0) {
        r->alloc = pcc_mem_alloc((size_t)r->view.len);
        if (r->alloc == NULL)
            return -1;
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
    if (PyArray_API == NULL) {
        import_array1(-1);
    }
    pcc_st.ArrayBase = (PyTypeObject *)PyType_FromSpec(&array_base_spec);
    if (pcc_st.ArrayBase == NULL)
        return -1;
    return PyModule_AddObjectRef(module, "ArrayBase", (PyObject *)pcc_st.ArrayBase);
}
