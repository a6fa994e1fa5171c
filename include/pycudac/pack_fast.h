/*
 * pack_fast.h — private to src/function_pack.c and function_launch.c: the
 * packer of the common arguments, inline, so that the launch's fast path
 * (function_launch.c's do_launch) and pcc_pack_args (function_pack.c)
 * share it, and the launch runs as one function: each line of code a launch
 * runs is a miss once the driver's launch has evicted it (see pcc_pack_one).
 * Reads NumPy's array objects through their struct accessors only: no call
 * through NumPy's API table happens here.
 */
#ifndef PYCUDAC_PACK_FAST_H
#define PYCUDAC_PACK_FAST_H

#include "pycudac/function_plan.h"

#include <stdint.h>
#include <string.h>

#if PY_VERSION_HEX < 0x030B0000
#include <longintrepr.h> /* ob_digit, for pcc_small_int; 3.11 has it from Python.h */
#endif
#include <numpy/ndarraytypes.h>

#include "pycudac/memory.h"

/* The rare cases of pcc_pack_one, out of line (function_pack.c). 0 when
 * stored, 1 when the argument needs conv_one. */
/* a NumPy scalar of exactly the declared type: its bytes */
int pcc_pack_numpy_scalar(PyTypeObject *t, int k, PyObject *arg, char *dst);
/* an int for a float or double parameter, exact in a double */
PCC_COLD int pcc_int_as_float(int k, long long v, char *dst);
/* the low n bytes of v (a little-endian host) */
void pcc_store_int(char *dst, unsigned long long v, size_t n);

/* The value of an exact int of one digit (|v| < 2**30), read without a
 * call: 1, else 0 (then PyLong_AsLongLongAndOverflow decides). */
static inline int pcc_small_int(PyObject *o, long long *v)
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

/* Whether v is in the range of p's integer kind (pcc_hot_int_range). */
static inline int pcc_int_fits(const pcc_hot_param *p, long long v)
{
    unsigned long long sg = p->int_range >> 7;
    return (unsigned long long)((v >> (p->int_range & 63)) + (long long)sg) <= sg;
}

/* Whether a double d rounded to the float x overflowed (x infinite, d
 * finite); by the bits, so that no constant is read from memory. */
static inline int pcc_float_overflowed(float x, double d)
{
    uint32_t xb;
    uint64_t db;
    memcpy(&xb, &x, 4);
    memcpy(&db, &d, 8);
    return (xb & 0x7fffffffu) == 0x7f800000u && ((db >> 52) & 0x7ff) != 0x7ff;
}

/* An ndarray of the dtype whose buffer export was last accepted for p
 * (gpuarray.vec.make_float4(...) is a 0-d one): a buffer export costs a
 * format string and an allocation per call, so later arrays of that very
 * dtype that are C-contiguous and of p's size (what decides an export's
 * outcome) are copied directly. 1 when copied, else 0. */
static inline int pcc_cached_dtype_copy(const pcc_param *p, PyObject *arg, char *dst)
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

/* The common arguments, inline and without a call where the value allows:
 * a float for float or double; an int in range for an integer or a
 * pointer (and a one-digit int for float or double); a DeviceAllocation,
 * or a GPUArray whose gpudata is one, for a pointer; an ndarray of its
 * remembered dtype for a vector or struct; a NumPy scalar of exactly the
 * declared type. 0 when stored; 1 when the argument needs conv_one, which
 * converts everything else and makes every refusal. Each case stores what
 * conv_one would.
 * The code is kept short on purpose: the driver's launch evicts the CPU's
 * instruction cache between calls, and every line this runs is then a miss
 * (on the H100 host, 32 more lines of code per call cost ~180 ns). */
static inline __attribute__((always_inline)) int
pcc_pack_one(const PccFunction *f, int i, const pcc_hot_param *p, PyObject *arg, char *dst)
{
    PyTypeObject *t = Py_TYPE(arg);
    int k = p->kind;
    if (t == pcc_hot.float_type) {
        double d = PyFloat_AS_DOUBLE(arg);
        float x = (float)d;
        if (k == PK_F64)
            memcpy(dst, &d, 8);
        else if (k == PK_F32 && !pcc_float_overflowed(x, d))
            memcpy(dst, &x, 4);
        else
            return 1;
        return 0;
    }
    if (t == pcc_hot.long_type) {
        long long v;
        if (PCC_UNLIKELY(!pcc_small_int(arg, &v))) {
            int overflow = 0; /* an exact int raises nothing here */
            v = PyLong_AsLongLongAndOverflow(arg, &overflow);
            if (overflow != 0)
                return 1;
        }
        if (PCC_UNLIKELY(!pcc_int_fits(p, v)))
            return pcc_int_as_float(k, v, dst);
        if (p->int_size == 4) {
            unsigned int x = (unsigned int)v;
            memcpy(dst, &x, 4);
        } else if (p->int_size == 8) {
            memcpy(dst, &v, 8);
        } else if (p->int_size != 0) {
            pcc_store_int(dst, (unsigned long long)v, p->int_size);
        } else {
            return pcc_int_as_float(k, v, dst);
        }
        return 0;
    }
    if (pcc_is_learnt(&pcc_hot.gpudata_slot, t)) {
        arg = *(PyObject **)((char *)arg + pcc_hot.gpudata_slot.offset);
        if (arg == NULL || k != PK_PTR)
            return 1;
        t = Py_TYPE(arg);
    }
    if (t == pcc_hot.device_allocation) {
        if ((k != PK_PTR && !p->untyped8) || ((PccDeviceAllocation *)arg)->freed)
            return 1;
        memcpy(dst, &((PccDeviceAllocation *)arg)->ptr, sizeof(CUdeviceptr));
        return 0;
    }
    if (pcc_is_learnt(&pcc_hot.pooled_int, t)) {
        CUdeviceptr dp;
        if (k != PK_PTR || pcc_pooled_ptr(arg, &dp) != 0)
            return 1;
        memcpy(dst, &dp, sizeof dp);
        return 0;
    }
    if (t == pcc_hot.array_type)
        return !((k == PK_VEC || k == PK_STRUCT) && pcc_cached_dtype_copy(&f->params[i], arg, dst));
    return pcc_pack_numpy_scalar(t, k, arg, dst);
}

#endif
