/*
 * core/convert.c — the argument converters the core's entry points share
 * (core/convert.h): one place for how a size, a flags word, a device
 * pointer or a stream is read from a Python argument, and how each is
 * refused.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include "core/convert.h"
#include "core/memory.h"
#include "core/stream.h"

/* ---- argument helpers ---------------------------------------------------- */

/* 1 when the Python int `v` is negative, 0 when not, -1 on error. */
static int long_is_negative(PyObject *v)
{
    static PyObject *zero;
    if (zero == NULL && (zero = PyLong_FromLong(0)) == NULL)
        return -1;
    return PyObject_RichCompareBool(v, zero, Py_LT);
}

/* The Python int `v` as an unsigned integer no larger than `max`; `what`
 * names it in the error. 0, or -1 with ValueError (negative) or
 * OverflowError (above max). */
/* `what` and `what2` make the name an error quotes (put together only then). */
static int nonnegative_int(PyObject *v, unsigned long long max, unsigned long long *out,
                           const char *what, const char *what2)
{
    int neg = long_is_negative(v);
    if (neg < 0)
        return -1;
    if (neg) {
        PyErr_Format(PyExc_ValueError, "%s%s must be >= 0, got %S", what, what2, v);
        return -1;
    }
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
    } else if (x <= max) {
        *out = x;
        return 0;
    }
    PyErr_Format(PyExc_OverflowError, "%s%s is too large: %S (at most %llu)", what, what2, v,
                 max);
    return -1;
}

int pcc_size_arg(PyObject *obj, size_t *out, const char *what)
{
    if (PyFloat_Check(obj)) {
        double d = PyFloat_AS_DOUBLE(obj);
        PyErr_Format(PyExc_TypeError, "%s must be an integer number, not float (%s)", what,
                     isnan(d) ? "nan" : "got a float");
        return -1;
    }
    if (PyBool_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an integer number, not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *v = PyNumber_Index(obj);
    if (v == NULL)
        return -1;
    unsigned long long n;
    int rc = nonnegative_int(v, SIZE_MAX, &n, what, "");
    Py_DECREF(v);
    if (rc == 0)
        *out = (size_t)n;
    return rc;
}

int pcc_flags_arg(PyObject *obj, void *out)
{
    size_t n;
    if (pcc_size_arg(obj, &n, "flags") < 0)
        return 0;
    if (n > INT_MAX) {
        PyErr_Format(PyExc_ValueError, "flags = %zu is out of range (0..%d)", n, INT_MAX);
        return 0;
    }
    *(int *)out = (int)n;
    return 1;
}

int pcc_enum_arg(PyObject *obj, const char *what, const char *enum_name, unsigned int valid,
                 int *out)
{
    if (PyBool_Check(obj) || PyFloat_Check(obj) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a driver.%s member, not %.100s", what,
                     enum_name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    /* another enum's member (an int by value): refused, as PyCUDA's enums
     * refuse each other's (set_cache_config(shared_config.EIGHT_BYTE_BANK_SIZE)
     * set PREFER_L1) */
    PyTypeObject *tp = Py_TYPE(obj);
    if (!PyLong_CheckExact(obj) && strcmp(tp->tp_name, enum_name) != 0) {
        PyObject *members = PyObject_GetAttrString((PyObject *)tp, "_member_map_");
        if (members != NULL) {
            Py_DECREF(members);
            PyErr_Format(PyExc_TypeError, "%s must be a driver.%s member, not %.100s.%S",
                         what, enum_name, tp->tp_name, obj);
            return -1;
        }
        PyErr_Clear();
    }
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < 0 || v > 31 || !(valid & (1u << v))) {
        PyErr_Format(PyExc_ValueError, "%s must be a driver.%s member, got %S", what, enum_name,
                     obj);
        return -1;
    }
    *out = (int)v;
    return 0;
}

PyObject *pcc_enum_member(PyObject *enum_cls, int v)
{
    PyObject *n = PyLong_FromLong(v);
    if (n == NULL || enum_cls == NULL)
        return n;
    PyObject *m = PyObject_CallOneArg(enum_cls, n);
    if (m == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {
        PyErr_Clear(); /* a value newer than the enum: the number */
        return n;
    }
    Py_DECREF(n);
    return m;
}

int pcc_freed_int_pointer(PyObject *obj)
{
    if (PyLong_CheckExact(obj) || !PyLong_Check(obj) || PyBool_Check(obj))
        return 0;
    PyObject *v = PyObject_GetAttr(obj, pcc_st.str_freed);
    if (v == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    return t;
}

int pcc_is_int_pointer(PyObject *obj)
{
    if (PyLong_CheckExact(obj) || !PyLong_Check(obj) || PyBool_Check(obj))
        return 0;
    PyObject *v = PyObject_GetAttr(obj, pcc_st.str_freed);
    if (v != NULL) {
        Py_DECREF(v);
        return 1;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    return 0;
}

int pcc_devptr_arg(PyObject *obj, CUdeviceptr *ptr, size_t *avail, const char *what)
{
    if (pcc_is_device_allocation(obj)) {
        PccDeviceAllocation *a = (PccDeviceAllocation *)obj;
        if (a->freed) {
            PyErr_Format(PyExc_ValueError, "%s: the DeviceAllocation was already freed", what);
            return -1;
        }
        if (pcc_context_gone(a->context)) {
            PyErr_Format(pcc_st.LogicError, "%s: the DeviceAllocation's context was detached "
                         "(its memory went with it)", what);
            return -1;
        }
        *ptr = a->ptr;
        *avail = a->size;
        return 0;
    }
    PyObject *v = NULL;
    if (pcc_st.ArrayBase != NULL && PyObject_TypeCheck(obj, pcc_st.ArrayBase)) {
        /* (its __index__ said "only integer GPUArrays can be used as an index") */
        PyErr_Format(PyExc_TypeError, "%s: got a GPUArray; pass its memory (.gpudata) for a "
                     "raw copy, or use the array's own set()/get()", what);
        return -1;
    }
    int freed = pcc_freed_int_pointer(obj);
    if (freed != 0) {
        if (freed > 0)
            PyErr_Format(PyExc_ValueError, "%s: the pooled allocation (%.100s) was already "
                         "freed", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (PyLong_Check(obj) && !PyBool_Check(obj)) {
        v = obj;
        Py_INCREF(v);
    } else if (!PyFloat_Check(obj) && !PyBool_Check(obj) && !PyObject_CheckBuffer(obj)) {
        if (PyIndex_Check(obj))
            v = PyNumber_Index(obj);
        else if (Py_TYPE(obj)->tp_as_number && Py_TYPE(obj)->tp_as_number->nb_int)
            v = PyNumber_Long(obj);
        if (v == NULL && PyErr_Occurred())
            return -1;
    }
    if (v == NULL) {
        PyErr_Format(PyExc_TypeError,
                     "%s must be a device pointer (DeviceAllocation, int address, or an object "
                     "with __int__), not %.100s%s",
                     what, Py_TYPE(obj)->tp_name,
                     PyObject_CheckBuffer(obj) ? " (a host buffer: check the argument order)"
                                               : "");
        return -1;
    }
    unsigned long long p;
    int rc = nonnegative_int(v, UINT64_MAX, &p, what, ": the device address");
    Py_DECREF(v);
    if (rc < 0)
        return -1;
    *ptr = (CUdeviceptr)p;
    *avail = (size_t)-1;
    return 0;
}

int pcc_stream_arg(PyObject *obj, CUstream *out, const char *what)
{
    if (obj == NULL || obj == Py_None) {
        *out = NULL;
        return 0;
    }
    if (PyObject_TypeCheck(obj, pcc_st.Stream)) {
        /* its context took the stream along: the handle is gone */
        if (pcc_context_gone(((PccStream *)obj)->context)) {
            PyErr_Format(pcc_st.LogicError, "%s: the Stream's context was detached (the "
                         "stream went with it)", what);
            return -1;
        }
        *out = ((PccStream *)obj)->stream;
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "%s must be a driver.Stream or None, not %.100s", what,
                 Py_TYPE(obj)->tp_name);
    return -1;
}

/* True when a PEP 3118 format string holds a Python object ('O'); field
 * names (between colons) are skipped. */
static int format_has_object(const char *f)
{
    if (f == NULL)
        return 0;
    for (; *f; f++) {
        if (*f == ':') {
            const char *end = strchr(f + 1, ':');
            if (end == NULL)
                return 0;
            f = end;
        } else if (*f == 'O') {
            return 1;
        }
    }
    return 0;
}

int pcc_holds_objects(PyObject *obj, const Py_buffer *view)
{
    if (PyArray_Check(obj))
        return PyDataType_REFCHK(PyArray_DESCR((PyArrayObject *)obj));
    if (PyArray_IsScalar(obj, Void) && PyDataType_REFCHK(((PyVoidScalarObject *)obj)->descr))
        return 1;
    return view != NULL && format_has_object(view->format);
}

int pcc_convert_init(PyObject *module)
{
    (void)module;
    if (PyArray_API == NULL) {
        import_array1(-1);
    }
    return 0;
}
