/*
 * launch/pack.c — Python arguments to a kernel's parameter bytes.
 *
 * pcc_pack_args converts each argument by its plan entry (launch/plan.c)
 * straight into the caller's buffer. The common arguments (a float, an
 * int, a DeviceAllocation, a GPUArray, an ndarray vector of its remembered
 * dtype, a NumPy scalar of the declared
 * type) take pack_fast, inline; pcc_pack_fast is the launch's fast path,
 * pack_fast alone. Everything else takes conv_one and the converters above
 * it; pointers given any other way are src/launch/pointer.c's. Every refusal
 * names the kernel, the parameter (position, name, declared type) and what
 * was given.
 */
#include "launch/plan.h"

#include <math.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h> /* ob_digit, for small_int; 3.11 has it from Python.h */
#endif
#include "module/npy_compat.h" /* numpy/arrayobject.h, on NumPy 1.x and 2.x */
#include <numpy/arrayscalars.h>

#include "core/array.h"
#include "core/convert.h"
#include "core/memory.h"



/* ------------------------------------------------------------- errors */

int pcc_arg_error(PccFunction *f, int i, PyObject *exc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (msg == NULL)
        return -1;
    pcc_param *p = &f->params[i];
    PyObject *name = p->name ? PyUnicode_FromFormat(" '%U'", p->name) : PyUnicode_FromString("");
    PyObject *type = p->kind == PK_UNTYPED ? PyUnicode_FromFormat("untyped, %zu bytes", p->size)
                     : p->ctype            ? Py_NewRef(p->ctype)
                                           : PyUnicode_FromString(pcc_kind_name(p->kind));
    PyObject *note = p->kind == PK_UNTYPED && f->note ? PyUnicode_FromFormat(" (%U)", f->note)
                                                      : PyUnicode_FromString("");
    PyObject *full = name && type && note
                         ? PyUnicode_FromFormat("kernel '%U' argument %d%U (%U): %U%U", f->name,
                                                i + 1, name, type, msg, note)
                         : NULL;
    Py_DECREF(msg);
    Py_XDECREF(name);
    Py_XDECREF(type);
    Py_XDECREF(note);
    if (full == NULL)
        return -1;
    PyErr_SetObject(exc, full);
    Py_DECREF(full);
    return -1;
}

int pcc_arg_error_from_current(PccFunction *f, int i, PyObject *exc_type)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *text = value ? PyObject_Str(value) : NULL;
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (text == NULL)
        return -1;
    pcc_arg_error(f, i, exc_type, "%U", text);
    Py_DECREF(text);
    return -1;
}

/* ------------------------------------------------------------ numbers */

static const long long smin[] = {[PK_I8] = INT8_MIN, [PK_I16] = INT16_MIN, [PK_I32] = INT32_MIN,
                                 [PK_I64] = INT64_MIN};
static const long long smax[] = {[PK_I8] = INT8_MAX, [PK_I16] = INT16_MAX, [PK_I32] = INT32_MAX,
                                 [PK_I64] = INT64_MAX};
static const unsigned long long umax[] = {[PK_U8] = UINT8_MAX, [PK_U16] = UINT16_MAX,
                                          [PK_U32] = UINT32_MAX, [PK_U64] = UINT64_MAX};

static void store_int(char *dst, unsigned long long v, size_t n)
{
    /* little-endian host: the low n bytes */
    switch (n) {
    case 1: { unsigned char x = (unsigned char)v; memcpy(dst, &x, 1); break; }
    case 2: { unsigned short x = (unsigned short)v; memcpy(dst, &x, 2); break; }
    case 4: { unsigned int x = (unsigned int)v; memcpy(dst, &x, 4); break; }
    default: memcpy(dst, &v, 8);
    }
}

/* The value of an exact int of one digit (|v| < 2**30), read without a
 * call: 1, else 0 (then PyLong_AsLongLongAndOverflow decides). */
static inline int small_int(PyObject *o, long long *v)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Long_IsCompact((PyLongObject *)o))
        return 0;
    *v = PyUnstable_Long_CompactValue((PyLongObject *)o);
    return 1;
#else
    Py_ssize_t n = Py_SIZE(o);
    if (n < -1 || n > 1)
        return 0;
    *v = n * (long long)((PyLongObject *)o)->ob_digit[0];
    return 1;
#endif
}

/* Bytes of the integer kinds, without a call into launch/plan.c. */
static const unsigned char int_size[] = {[PK_I8] = 1, [PK_U8] = 1, [PK_I16] = 2, [PK_U16] = 2,
                                         [PK_I32] = 4, [PK_U32] = 4, [PK_I64] = 8, [PK_U64] = 8};

static int is_signed_kind(int k) { return k == PK_I8 || k == PK_I16 || k == PK_I32 || k == PK_I64; }


/* The value of an int-like argument as (negative?, magnitude-ish) pair:
 * *sv when it fits in long long, else *uv for 2^63..2^64-1.
 * Returns 0 fits-signed, 1 fits-unsigned-only, 2 out of 64-bit range, -1 error,
 * -2 not an integer (no exception). */
static int int_value(PyObject *arg, long long *sv, unsigned long long *uv, PyObject **shown)
{
    PyObject *owned = NULL;
    *shown = NULL;
    if (!PyLong_Check(arg)) {
        if (PyArray_IsScalar(arg, Bool)) {
            int t = PyObject_IsTrue(arg);
            if (t < 0)
                return -1;
            *sv = t;
            return 0;
        }
        if (PyFloat_Check(arg) || PyComplex_Check(arg) || PyArray_IsScalar(arg, Inexact) ||
            PyArray_Check(arg) || !PyIndex_Check(arg))
            return -2;
        owned = PyNumber_Index(arg);
        if (owned == NULL)
            return -1;
        arg = owned;
    }
    int overflow = 0, rc;
    long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (v == -1 && PyErr_Occurred()) {
        rc = -1;
    } else if (overflow == 0) {
        *sv = v;
        rc = 0;
    } else if (overflow < 0) {
        rc = 2;
    } else {
        unsigned long long u = PyLong_AsUnsignedLongLong(arg);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            rc = 2;
        } else {
            *uv = u;
            rc = 1;
        }
    }
    if (rc == 2) {
        *shown = owned ? owned : (Py_INCREF(arg), arg);
        owned = NULL;
    }
    Py_XDECREF(owned);
    return rc;
}

static int range_error(PccFunction *f, int i, PyObject *arg, PyObject *shown, const char *range)
{
    int rc = pcc_arg_error(f, i, PyExc_OverflowError, "%S is out of range (%s)",
                       shown ? shown : arg, range);
    Py_XDECREF(shown);
    return rc;
}

static const char *range_text(int k)
{
    switch (k) {
    case PK_I8: return "-128..127";
    case PK_U8: return "0..255";
    case PK_I16: return "-32768..32767";
    case PK_U16: return "0..65535";
    case PK_I32: return "-2147483648..2147483647";
    case PK_U32: return "0..4294967295";
    case PK_I64: return "-9223372036854775808..9223372036854775807";
    default: return "0..18446744073709551615";
    }
}

/* Integer kinds. -2: not an integer (no exception set). */
static int conv_int(PccFunction *f, int i, PyObject *arg, int k, char *dst)
{
    long long sv = 0;
    unsigned long long uv = 0;
    PyObject *shown;
    int r;
    if (PyLong_CheckExact(arg)) { /* fast path */
        int overflow = 0;
        sv = PyLong_AsLongLongAndOverflow(arg, &overflow);
        if (overflow == 0 && !(sv == -1 && PyErr_Occurred())) {
            r = 0;
            shown = NULL;
            goto have;
        }
        if (PyErr_Occurred())
            return -1;
    }
    if (PCC_UNLIKELY(int_size[k] < 8)) {
        /* its __index__ (a pooled block: its value) is the address, which
         * no integer this narrow holds: a pointer where a number is
         * declared (a 64-bit integer takes the address, as PyCUDA passes it) */
        int address = pcc_st.DeviceAllocation && pcc_is_device_allocation(arg)
                          ? 1
                          : pcc_is_int_pointer(arg);
        if (address < 0)
            return pcc_arg_error_from_current(f, i, PyExc_TypeError);
        if (address)
            return pcc_arg_error(f, i, PyExc_TypeError, "got a %s (a device pointer) for a "
                                 "%d-byte integer parameter", Py_TYPE(arg)->tp_name,
                                 int_size[k]);
    }
    r = int_value(arg, &sv, &uv, &shown);
have:
    if (r == -2 || r == -1)
        return r == -1 ? pcc_arg_error_from_current(f, i, PyExc_TypeError) : -2;
    if (r == 2)
        return range_error(f, i, arg, shown, range_text(k));
    if (is_signed_kind(k)) {
        if (r == 1 || sv < smin[k] || sv > smax[k])
            return range_error(f, i, arg, NULL, range_text(k));
        store_int(dst, (unsigned long long)sv, int_size[k]);
    } else {
        if (r == 0 && sv < 0)
            return range_error(f, i, arg, NULL, range_text(k));
        unsigned long long u = r == 1 ? uv : (unsigned long long)sv;
        if (u > umax[k])
            return range_error(f, i, arg, NULL, range_text(k));
        store_int(dst, u, int_size[k]);
    }
    return 0;
}

unsigned short pcc_double_to_minifloat(double d, int ebits, int mbits, int *overflow)
{
    unsigned short sign = signbit(d) ? (unsigned short)(1u << (ebits + mbits)) : 0;
    unsigned int emax_field = (1u << ebits) - 1;
    int bias = (int)(emax_field >> 1);
    *overflow = 0;
    if (isnan(d))
        return (unsigned short)(sign | (emax_field << mbits) | (1u << (mbits - 1)));
    double a = fabs(d);
    if (isinf(a))
        return (unsigned short)(sign | (emax_field << mbits));
    if (a == 0.0)
        return sign;
    int e;
    (void)frexp(a, &e);
    e -= 1; /* a = m * 2^e with 1 <= m < 2 */
    int emin = 1 - bias;
    if (e < emin)
        e = emin;
    double m = nearbyint(ldexp(a, mbits - e)); /* exact scaling, round half to even */
    if (m >= ldexp(1.0, mbits + 1)) {
        m = ldexp(m, -1);
        e += 1;
    }
    if (e > bias) {
        *overflow = 1;
        return (unsigned short)(sign | (emax_field << mbits));
    }
    unsigned int mi = (unsigned int)m;
    if (mi >= (1u << mbits)) /* normal */
        return (unsigned short)(sign | ((unsigned)(e + bias) << mbits) | (mi - (1u << mbits)));
    return (unsigned short)(sign | mi); /* subnormal */
}

/* The value of a float-like argument. -2: not a number (no exception). */
static int float_value(PccFunction *f, int i, PyObject *arg, double *out)
{
    if (PyFloat_Check(arg)) {
        *out = PyFloat_AS_DOUBLE(arg);
        return 0;
    }
    if (PyLong_Check(arg)) {
        /* a pooled block's address is an int, but not a number: in a float
         * the kernel would get the address's value, not the address */
        int address = pcc_is_int_pointer(arg);
        if (address < 0)
            return pcc_arg_error_from_current(f, i, PyExc_TypeError);
        if (address)
            return pcc_arg_error(f, i, PyExc_TypeError, "got a %s (a device pointer) for a "
                                 "floating-point parameter", Py_TYPE(arg)->tp_name);
        *out = PyLong_AsDouble(arg);
        if (*out == -1.0 && PyErr_Occurred())
            return pcc_arg_error_from_current(f, i, PyExc_OverflowError);
        return 0;
    }
    if (PyArray_IsScalar(arg, Floating) || PyArray_IsScalar(arg, Integer) ||
        PyArray_IsScalar(arg, Bool)) {
        PyObject *x = PyNumber_Float(arg);
        if (x == NULL)
            return pcc_arg_error_from_current(f, i, PyExc_TypeError);
        *out = PyFloat_AS_DOUBLE(x);
        Py_DECREF(x);
        return 0;
    }
    return -2;
}

static int conv_float(PccFunction *f, int i, PyObject *arg, int k, char *dst)
{
    double d;
    int r = float_value(f, i, arg, &d);
    if (r != 0)
        return r;
    if (k == PK_F64) {
        memcpy(dst, &d, 8);
    } else if (k == PK_F32) {
        float v = (float)d;
        if (isinf(v) && isfinite(d))
            return pcc_arg_error(f, i, PyExc_OverflowError, "%R is too large for float32", arg);
        memcpy(dst, &v, 4);
    } else {
        int overflow;
        unsigned short h = k == PK_F16 ? pcc_double_to_minifloat(d, 5, 10, &overflow)
                                       : pcc_double_to_minifloat(d, 8, 7, &overflow);
        if (overflow)
            return pcc_arg_error(f, i, PyExc_OverflowError, "%R is too large for %s", arg,
                             k == PK_F16 ? "float16 (max 65504)" : "bfloat16");
        memcpy(dst, &h, 2);
    }
    return 0;
}

/* ------------------------------------------------------------- structs */

/* Exactly p->size bytes from a buffer (NumPy scalar, array, bytes...). */
PCC_NOINLINE int pcc_arg_objects_error(PccFunction *f, int i)
{
    return pcc_arg_error(f, i, PyExc_TypeError,
                         "its data holds Python objects (dtype=object): only fixed-size data "
                         "(numbers, 'S'/'U' strings, structured dtypes) can reach the device");
}

/* An ndarray of the dtype whose buffer export was last accepted for p
 * (gpuarray.vec.make_float4(...) is a 0-d one): a buffer export costs a
 * format string and an allocation per call, so later arrays of that very
 * dtype that are C-contiguous and of p's size (what decides an export's
 * outcome) are copied directly. 1 when copied, else 0. */
static inline int cached_dtype_copy(const pcc_param *p, PyObject *arg, char *dst)
{
    PyArrayObject *a = (PyArrayObject *)arg;
    if ((PyObject *)PyArray_DESCR(a) != p->bytes_dtype || !PyArray_IS_C_CONTIGUOUS(a))
        return 0;
    size_t n = p->bytes_itemsize; /* the dtype's, read when it was cached */
    for (int d = 0; d < PyArray_NDIM(a); d++)
        n *= (size_t)PyArray_DIMS(a)[d];
    if (n != p->size)
        return 0;
    if (n == 16) /* float4, int4, double2...: no call */
        memcpy(dst, PyArray_DATA(a), 16);
    else
        memcpy(dst, PyArray_DATA(a), n);
    return 1;
}

static int conv_bytes(PccFunction *f, int i, PyObject *arg, char *dst, const char *hint)
{
    pcc_param *p = &f->params[i];
    if (PyArray_CheckExact(arg)) {
        if (cached_dtype_copy(p, arg, dst))
            return 0;
    } else if (PyArray_IsScalar(arg, Void)) {
        /* A structured NumPy scalar (gpuarray.vec.make_float4(...)): its bytes
         * directly, without the temporary array a buffer export makes. */
        PyVoidScalarObject *v = (PyVoidScalarObject *)arg;
        if (PyDataType_REFCHK(v->descr))
            return pcc_arg_objects_error(f, i);
        size_t n = (size_t)PyDataType_ELSIZE(v->descr);
        if (n != p->size)
            return pcc_arg_error(f, i, PyExc_TypeError,
                             "expected %s of exactly %zu bytes, got %s of %zu bytes", hint,
                             p->size, Py_TYPE(arg)->tp_name, n);
        memcpy(dst, v->obval, n);
        return 0;
    }
    Py_buffer view;
    if (PyUnicode_Check(arg) ||
        PyObject_GetBuffer(arg, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return pcc_arg_error(f, i, PyExc_TypeError,
                         "expected %s of exactly %zu bytes, got %s", hint, p->size,
                         Py_TYPE(arg)->tp_name);
    }
    int rc = 0;
    if (pcc_holds_objects(arg, &view)) {
        rc = pcc_arg_objects_error(f, i);
    } else if ((size_t)view.len != p->size) {
        rc = pcc_arg_error(f, i, PyExc_TypeError,
                       "expected %s of exactly %zu bytes, got %s of %zd bytes", hint, p->size,
                       Py_TYPE(arg)->tp_name, view.len);
    } else {
        memcpy(dst, view.buf, p->size);
        if (PyArray_CheckExact(arg) && (PyObject *)PyArray_DESCR((PyArrayObject *)arg) !=
                                           p->bytes_dtype) {
            Py_XSETREF(p->bytes_dtype, Py_NewRef((PyObject *)PyArray_DESCR((PyArrayObject *)arg)));
            p->bytes_itemsize = (size_t)PyArray_ITEMSIZE((PyArrayObject *)arg);
        }
    }
    PyBuffer_Release(&view);
    return rc;
}

static int conv_scalar(PccFunction *f, int i, PyObject *arg, int k, char *dst);

static int conv_vec(PccFunction *f, int i, PyObject *arg, char *dst)
{
    pcc_param *p = &f->params[i];
    if (p->elem_kind && (PyTuple_Check(arg) || PyList_Check(arg))) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(arg);
        if (n != p->elem_count)
            return pcc_arg_error(f, i, PyExc_TypeError, "expected %d components, got a %s of %zd",
                             p->elem_count, Py_TYPE(arg)->tp_name, n);
        size_t es = pcc_kind_size(p->elem_kind);
        for (Py_ssize_t k = 0; k < n; k++) {
            int r = conv_scalar(f, i, PySequence_Fast_GET_ITEM(arg, k), p->elem_kind,
                                dst + (size_t)k * es);
            if (r == -2)
                return pcc_arg_error(f, i, PyExc_TypeError, "component %zd: expected %s, got %s",
                                 k, p->elem_kind >= PK_F16 ? "a number" : "an int",
                                 Py_TYPE(PySequence_Fast_GET_ITEM(arg, k))->tp_name);
            if (r < 0)
                return -1;
        }
        return 0;
    }
    if (p->elem_kind && p->elem_count == 2 && PyComplex_Check(arg) &&
        (p->elem_kind == PK_F32 || p->elem_kind == PK_F64)) {
        Py_complex c = PyComplex_AsCComplex(arg);
        if (p->elem_kind == PK_F64) {
            memcpy(dst, &c.real, 8);
            memcpy(dst + 8, &c.imag, 8);
        } else {
            float re = (float)c.real, im = (float)c.imag;
            memcpy(dst, &re, 4);
            memcpy(dst + 4, &im, 4);
        }
        return 0;
    }
    return conv_bytes(f, i, arg, dst, p->elem_kind ? "a numpy scalar, a tuple or a buffer"
                                                   : "a numpy scalar or buffer");
}

/* The untyped path: what the driver told us is `size` bytes. */
static int conv_untyped(PccFunction *f, int i, PyObject *arg, char *dst, pcc_call_state *cs)
{
    pcc_param *p = &f->params[i];
    size_t n = p->size;
    if (PyLong_Check(arg) && (n == 1 || n == 2 || n == 4 || n == 8)) {
        long long sv = 0;
        unsigned long long uv = 0;
        PyObject *shown;
        int r = int_value(arg, &sv, &uv, &shown);
        if (r == -1)
            return -1;
        int bits = (int)n * 8;
        int ok = r == 1 ? n == 8 : r == 0 && (bits == 64 || (sv >= -(1LL << (bits - 1)) &&
                                                             sv < (long long)(1ULL << bits)));
        if (!ok) {
            char range[64];
            if (bits == 64)
                snprintf(range, sizeof range, "-2**63..2**64-1");
            else
                snprintf(range, sizeof range, "-2**%d..2**%d-1", bits - 1, bits);
            return range_error(f, i, arg, shown, range);
        }
        store_int(dst, r == 1 ? uv : (unsigned long long)sv, n);
        return 0;
    }
    if (PyFloat_CheckExact(arg))
        return pcc_arg_error(f, i, PyExc_TypeError,
                         "a Python float is ambiguous for an untyped parameter; pass a numpy "
                         "scalar of the parameter's type (numpy.float32(x) or numpy.float64(x))");
    if (n == 8 && (arg == Py_None || (pcc_st.DeviceAllocation && pcc_is_device_allocation(arg)) ||
                   (PyArray_Check(arg)) || !PyObject_CheckBuffer(arg)))
        return pcc_conv_ptr(f, i, arg, dst, cs);
    if (PyArray_Check(arg))
        return pcc_arg_error(f, i, PyExc_TypeError,
                         "got a numpy.ndarray; a host array cannot be passed by value to an "
                         "untyped parameter (use In/Out/InOut for a pointer)");
    return conv_bytes(f, i, arg, dst, "a numpy scalar or buffer");
}

/* Scalar kinds; -2: wrong Python type (no exception set). */
static int conv_scalar(PccFunction *f, int i, PyObject *arg, int k, char *dst)
{
    switch (k) {
    case PK_I8: case PK_U8: case PK_I16: case PK_U16: case PK_I32: case PK_U32: case PK_I64:
    case PK_U64:
        return conv_int(f, i, arg, k, dst);
    case PK_F16: case PK_BF16: case PK_F32: case PK_F64:
        return conv_float(f, i, arg, k, dst);
    case PK_BOOL:
        if (PyBool_Check(arg)) {
            *dst = arg == Py_True;
            return 0;
        }
        if (PyArray_IsScalar(arg, Bool)) {
            int t = PyObject_IsTrue(arg);
            if (t < 0)
                return -1;
            *dst = (char)t;
            return 0;
        }
        return -2;
    default:
        return -2;
    }
}

static const char *expected_text(int k)
{
    switch (k) {
    case PK_BOOL: return "expected True or False (bool or numpy.bool_)";
    case PK_F16: case PK_BF16: case PK_F32: case PK_F64:
        return "expected a float (Python float or int, numpy floating or integer scalar)";
    default: return "expected an int (Python int or numpy integer scalar)";
    }
}

/* --------------------------------------------------------------- pack */

/* The bytes an exact int takes for a kind pack_fast stores ints for (the
 * integer kinds and pointers; 0 for the others, which conv_one decides). */
unsigned char pcc_int_kind_size(int kind)
{
    return (unsigned char)(kind == PK_PTR ? 8 : kind >= PK_I8 && kind <= PK_U64 ? int_size[kind] : 0);
}

/* The range pack_fast stores an exact int of for each kind; a pointer or an
 * unsigned long long stops below 2**63 (above: conv_one). */
static const long long int_lo[] = {[PK_PTR] = 0, [PK_I8] = INT8_MIN, [PK_U8] = 0,
                                   [PK_I16] = INT16_MIN, [PK_U16] = 0, [PK_I32] = INT32_MIN,
                                   [PK_U32] = 0, [PK_I64] = INT64_MIN, [PK_U64] = 0};
static const long long int_hi[] = {[PK_PTR] = INT64_MAX, [PK_I8] = INT8_MAX, [PK_U8] = UINT8_MAX,
                                   [PK_I16] = INT16_MAX, [PK_U16] = UINT16_MAX,
                                   [PK_I32] = INT32_MAX, [PK_U32] = UINT32_MAX,
                                   [PK_I64] = INT64_MAX, [PK_U64] = INT64_MAX};

/* Whether a double d rounded to the float x overflowed (x infinite, d
 * finite); by the bits, so that no constant is read from memory. */
static inline int float_overflowed(float x, double d)
{
    uint32_t xb;
    uint64_t db;
    memcpy(&xb, &x, 4);
    memcpy(&db, &d, 8);
    return (xb & 0x7fffffffu) == 0x7f800000u && ((db >> 52) & 0x7ff) != 0x7ff;
}

/* A NumPy scalar of exactly the declared type: its bytes. 0, or 1. */
static PCC_NOINLINE int pack_numpy_scalar(PyTypeObject *t, int k, PyObject *arg, char *dst)
{
    switch (k) {
    case PK_I32:
    case PK_U32:
        if (t != (k == PK_I32 ? &PyInt32ArrType_Type : &PyUInt32ArrType_Type))
            return 1;
        memcpy(dst, &PyArrayScalar_VAL(arg, Int32), 4);
        return 0;
    case PK_I64:
    case PK_U64:
        if (t != (k == PK_I64 ? &PyInt64ArrType_Type : &PyUInt64ArrType_Type))
            return 1;
        memcpy(dst, &PyArrayScalar_VAL(arg, Int64), 8);
        return 0;
    case PK_F32:
        if (t != &PyFloat32ArrType_Type)
            return 1;
        memcpy(dst, &PyArrayScalar_VAL(arg, Float32), 4);
        return 0;
    case PK_F64:
        if (t != &PyFloat64ArrType_Type)
            return 1;
        memcpy(dst, &PyArrayScalar_VAL(arg, Float64), 8);
        return 0;
    default:
        return 1;
    }
}

/* An int for a float or double parameter (conv_one's value when it is
 * exact in a double, below 2**53); out of line, as pack_fast's rare case.
 * 0 when stored, 1 for conv_one. */
static PCC_NOINLINE int int_as_float(int k, long long v, char *dst)
{
    if ((k != PK_F32 && k != PK_F64) || v < -(1LL << 53) || v > (1LL << 53))
        return 1;
    if (k == PK_F64) {
        double d = (double)v;
        memcpy(dst, &d, 8);
    } else {
        float x = (float)v;
        memcpy(dst, &x, 4);
    }
    return 0;
}

/* The common arguments, inline and without a call where the value allows:
 * a float for float or double; an int in range for an integer or a
 * pointer (and a one-digit int for float or double); a DeviceAllocation,
 * or a GPUArray whose gpudata is one, for a pointer; an ndarray of its
 * remembered dtype for a vector or struct; a TextureObject over a CUDA
 * array; a NumPy scalar of exactly the declared type. 0 when stored; 1 when the argument needs conv_one, which
 * converts everything else and makes every refusal. Each case stores what
 * conv_one would.
 * The code is kept short on purpose: the driver's launch evicts the CPU's
 * instruction cache between calls, and every line this runs is then a miss
 * (on the H100 host, 32 more lines of code per call cost ~180 ns). */
static inline __attribute__((always_inline)) int
pack_fast(const PccFunction *f, int i, const pcc_hot_param *p, PyObject *arg,
          char *dst)
{
    PyTypeObject *t = Py_TYPE(arg);
    int k = p->kind;
    if (t == &PyFloat_Type) {
        double d = PyFloat_AS_DOUBLE(arg);
        float x = (float)d;
        if (k == PK_F64)
            memcpy(dst, &d, 8);
        else if (k == PK_F32 && !float_overflowed(x, d))
            memcpy(dst, &x, 4);
        else
            return 1;
        return 0;
    }
    if (t == &PyLong_Type) {
        long long v;
        if (PCC_UNLIKELY(!small_int(arg, &v))) {
            int overflow = 0; /* an exact int raises nothing here */
            v = PyLong_AsLongLongAndOverflow(arg, &overflow);
            if (overflow != 0)
                return 1;
        }
        if (PCC_UNLIKELY(p->int_size == 0 || v < int_lo[k] || v > int_hi[k]))
            return int_as_float(k, v, dst);
        store_int(dst, (unsigned long long)v, p->int_size);
        return 0;
    }
    if (t == pcc_st.DeviceAllocation) {
        /* with several devices, memory of another context, or of a detached
         * one: conv_one checks it */
        if ((k != PK_PTR && !p->untyped8) || ((PccDeviceAllocation *)arg)->freed ||
            PCC_UNLIKELY(pcc_st.multi_device &&
                         ((PccDeviceAllocation *)arg)->context != f->context) ||
            PCC_UNLIKELY(pcc_context_gone(((PccDeviceAllocation *)arg)->context)))
            return 1;
        memcpy(dst, &((PccDeviceAllocation *)arg)->ptr, sizeof(CUdeviceptr));
        return 0;
    }
    if (t == &PyArray_Type)
        return !((k == PK_VEC || k == PK_STRUCT) && cached_dtype_copy(&f->params[i], arg, dst));
    if (k == PK_PTR && PyType_IsSubtype(t, pcc_st.ArrayBase)) { /* a GPUArray */
        CUdeviceptr dp;
        const PyObject *elem = f->params[i].elem; /* its dtype, when checked */
        if ((elem != NULL && ((const PccArrayBase *)arg)->dtype != elem) ||
            PCC_UNLIKELY(pcc_st.multi_device && ((const PccArrayBase *)arg)->context !=
                                                    f->context) ||
            pcc_array_base_ptr((const PccArrayBase *)arg, &dp) != 0)
            return 1;
        memcpy(dst, &dp, sizeof dp);
        return 0;
    }
    /* a live texture object over a CUDA array, one context: its handle
     * (everything else, and every refusal, is conv_handle's; driver's
     * TextureObject and Array are Python subclasses of the C types) */
    if (k == PK_TEX && PyObject_TypeCheck(arg, pcc_st.TextureObject)) {
        const PccTexObject *tex = (const PccTexObject *)arg;
        if (tex->handle == 0 || !PyObject_TypeCheck(tex->source, pcc_st.Array) ||
            PCC_UNLIKELY(pcc_st.multi_device) || PCC_UNLIKELY(pcc_context_gone(tex->context)))
            return 1;
        memcpy(dst, &tex->handle, sizeof tex->handle);
        return 0;
    }
    return pack_numpy_scalar(t, k, arg, dst);
}

PCC_HOT int pcc_pack_fast(const PccFunction *f, PyObject *const *args, char *buf)
{
    const pcc_hot_param *p = f->hot;
    for (int i = 0; i < f->nparams; i++, p++)
        if (PCC_UNLIKELY(pack_fast(f, i, p, args[i], buf + p->offset) != 0))
            return 1;
    return 0;
}

/* A texture or surface object's handle: only that object is taken (an int
 * would launch with whatever handle it happens to be). */
static int conv_handle(PccFunction *f, int i, PyObject *arg, char *dst, int texture)
{
    PyTypeObject *want = texture ? pcc_st.TextureObject : pcc_st.SurfaceObject;
    if (!PyObject_TypeCheck(arg, want))
        return pcc_arg_error(f, i, PyExc_TypeError, "expected a %s, got %s",
                             texture ? "TextureObject" : "SurfaceObject", Py_TYPE(arg)->tp_name);
    const PccTexObject *t = (const PccTexObject *)arg;
    if (t->handle == 0)
        return pcc_arg_error(f, i, pcc_st.LogicError, "the %s was freed",
                             texture ? "TextureObject" : "SurfaceObject");
    /* its context took the object (and what it reads) along */
    if (pcc_context_gone(t->context))
        return pcc_arg_error(f, i, pcc_st.LogicError, "the %s's context was detached (the "
                             "object went with it)", texture ? "TextureObject" : "SurfaceObject");
    if (PCC_UNLIKELY(pcc_st.multi_device && t->context != f->context))
        return pcc_arg_error(f, i, PyExc_ValueError, "the %s was made in another context",
                             texture ? "TextureObject" : "SurfaceObject");
    /* over linear memory: refused once that memory was free()d (an Array
     * refuses free() while a texture reads it; a DeviceAllocation cannot) */
    if (!PyObject_TypeCheck(t->source, pcc_st.Array)) {
        PyObject *mem = PyObject_TypeCheck(t->source, pcc_st.ArrayBase)
                            ? ((PccArrayBase *)t->source)->gpudata
                            : t->source;
        if (pcc_gpudata_released(mem))
            return pcc_arg_error(f, i, PyExc_ValueError, "the TextureObject reads linear memory "
                                 "that was freed since it was made");
    }
    memcpy(dst, &t->handle, sizeof t->handle);
    return 0;
}

/* Whether `a` passes as the scalar it holds (conv_one): a 0-d array,
 * converted like that scalar, or for a scalar kind one element of exactly
 * the kind's type (the bytes PyCUDA would pass). */
static int one_value_array(PyArrayObject *a, int kind)
{
    if (PyArray_NDIM(a) == 0)
        return 1;
    if (PyArray_SIZE(a) != 1 || kind < PK_I8 || kind > PK_BOOL)
        return 0;
    const PyArray_Descr *d = PyArray_DESCR(a);
    char want = kind == PK_BOOL ? 'b'
                : kind >= PK_F16 && kind <= PK_F64 && kind != PK_BF16 ? 'f'
                : is_signed_kind(kind) ? 'i' : 'u';
    return kind != PK_BF16 && d->kind == want && PyArray_ISNOTSWAPPED(a) &&
           (size_t)PyDataType_ELSIZE(d) == pcc_kind_size(kind);
}

/* The general conversion: every argument pack_fast does not take (kept out
 * of line: pcc_pack_args stays a short loop). */
static PCC_NOINLINE int conv_one(PccFunction *f, int i, PyObject *arg, char *buf,
                                 pcc_call_state *cs)
{
    pcc_param *p = &f->params[i];
    char *dst = buf + p->offset;
    int r;
    if (PCC_UNLIKELY(PyArray_Check(arg)) && p->kind != PK_PTR && p->kind != PK_TEX &&
        p->kind != PK_SURF && !PyArray_ISOBJECT((PyArrayObject *)arg) &&
        one_value_array((PyArrayObject *)arg, p->kind)) {
        /* PyCUDA passes a host array by value, as its bytes: a 0-d array
         * (reikna's setitem) or an array of one element of a scalar
         * parameter's own type (compyle's scalar arguments) is its value */
        PyObject *scalar = PyArray_ToScalar(PyArray_DATA((PyArrayObject *)arg), (PyArrayObject *)arg);
        if (scalar == NULL)
            return -1;
        r = conv_one(f, i, scalar, buf, cs);
        Py_DECREF(scalar);
        return r;
    }
    switch (p->kind) {
    case PK_PTR:
        return pcc_conv_ptr(f, i, arg, dst, cs);
    case PK_VEC:
        return conv_vec(f, i, arg, dst);
    case PK_STRUCT:
        return conv_bytes(f, i, arg, dst, "a numpy scalar (structured dtype) or buffer");
    case PK_UNTYPED:
        return conv_untyped(f, i, arg, dst, cs);
    case PK_TEX:
    case PK_SURF:
        return conv_handle(f, i, arg, dst, p->kind == PK_TEX);
    default:
        break;
    }
    r = conv_scalar(f, i, arg, p->kind, dst);
    if (r == -2) {
        if (PyArray_Check(arg))
            return pcc_arg_error(f, i, PyExc_TypeError, "%s, got a numpy.ndarray (use a scalar: "
                             "a[()] or a.item())", expected_text(p->kind));
        return pcc_arg_error(f, i, PyExc_TypeError, "%s, got %s", expected_text(p->kind),
                         Py_TYPE(arg)->tp_name);
    }
    return r;
}

int pcc_pack_args(PccFunction *f, PyObject *const *args, Py_ssize_t nargs, char *buf,
                  pcc_call_state *cs)
{
    if (PCC_UNLIKELY(f->layout_error)) {
        PyErr_Format(PyExc_TypeError, "kernel '%U': %U", f->name, f->layout_error);
        return -1;
    }
    if (PCC_UNLIKELY(nargs != f->nparams)) {
        PyErr_Format(PyExc_TypeError, "kernel '%U' takes %d argument%s (%U) but %zd %s given",
                     f->name, f->nparams, f->nparams == 1 ? "" : "s", f->decl, nargs,
                     nargs == 1 ? "was" : "were");
        return -1;
    }
    const pcc_hot_param *p = f->hot;
    for (int i = 0; i < f->nparams; i++, p++)
        if (PCC_UNLIKELY(pack_fast(f, i, p, args[i], buf + p->offset) != 0) &&
            conv_one(f, i, args[i], buf, cs) < 0)
            return -1;
    return 0;
}

int pcc_pack_init(PyObject *module)
{
    (void)module;
    if (PyArray_API == NULL) {
        import_array1(-1);
    }
    return pcc_ptr_init(module);
}
