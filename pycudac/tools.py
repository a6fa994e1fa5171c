"""pycudac.tools — memory pools, dtype ↔ C type names, per-context caches
and test helpers (PyCUDA's names).

    DeviceMemoryPool        bin pool of device memory: freed blocks go back
                            into a bin keyed by their rounded size, so a
                            temporary never pays cuMemAlloc twice
    PageLockedMemoryPool    the same for page-locked host staging buffers
    dtype_to_ctype          numpy dtype -> C type name used in kernels
    context_dependent_memoize, clear_context_caches
    make_default_context, mark_cuda_test, init_cuda_context_fixture, bitlog2
    DeviceData, OccupancyRecord  launch-configuration helpers
    register_dtype          a preamble struct named for a structured dtype

The pools (and bin_size, bitlog2) live in pycudac/_pools.py and are
re-exported here. The C-level support code every generated kernel shares
(float16 storage, complex structs, NumPy-exact integer division …) is
KERNEL_PREAMBLE below.
"""
import functools

import numpy as np

from pycudac import _driver
from pycudac._pools import (DeviceMemoryPool, PageLockedMemoryPool, PooledDeviceAllocation,
                            PooledHostAllocation, bin_size, bitlog2)

__all__ = ["DeviceMemoryPool", "PooledDeviceAllocation", "PageLockedMemoryPool",
           "PooledHostAllocation", "dtype_to_ctype", "register_dtype", "get_or_register_dtype",
           "context_dependent_memoize", "clear_context_caches", "make_default_context",
           "mark_cuda_test", "init_cuda_context_fixture", "bitlog2", "DeviceData",
           "OccupancyRecord"]

# The pools live in pycudac._pools but keep this module's name, as before the
# split: pickles, reprs of the classes and help() name it.
for _moved in (DeviceMemoryPool, PageLockedMemoryPool, PooledDeviceAllocation,
               PooledHostAllocation, bin_size, bitlog2):
    _moved.__module__ = __name__
del _moved

# ------------------------------------------------------------------ dtypes

_SCALAR_CTYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float16): "pcc_half",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "pcc_complex64",
    np.dtype(np.complex128): "pcc_complex128",
}

# Arithmetic dtypes the generated kernels compute on.
NUMERIC_DTYPES = tuple(_SCALAR_CTYPES)


def _vec_ctype(dtype):
    """C name of a gpuarray.vec dtype (float4 ...) or None."""
    from pycudac import gpuarray
    return gpuarray.vec._dtype_to_name.get(dtype)


def dtype_to_ctype(dtype, with_fp_tex_hack=False):
    """The C type name of `dtype` in pycudac's generated kernels.
    float16 is `pcc_half` (2-byte storage, arithmetic in float) and complex
    types are `pcc_complex64/128` (float2/double2 layout); both are defined
    in KERNEL_PREAMBLE. Structured dtypes have the name register_dtype gave."""
    if dtype is None:
        raise ValueError("dtype may not be None")
    dtype = np.dtype(dtype)
    ctype = _SCALAR_CTYPES.get(dtype) or _vec_ctype(dtype) or _registered.get(dtype)
    if ctype is None:
        raise TypeError(f"dtype {dtype} has no C type in pycudac kernels "
                        f"(supported: bool, int8..uint64, float16/32/64, complex64/128, "
                        f"gpuarray.vec types, and structs named with tools.register_dtype)")
    return ctype


_registered = {}  # structured dtype -> the C name it was registered with first


# ------------------------------------------------------------ kernel arguments
# PyCUDA's argument descriptions (pycuda.tools.VectorArg, ScalarArg,
# parse_c_arg): what ElementwiseKernel, ReductionKernel and scan kernels take
# in place of a "float *x, float a" string.

class _Arg:
    __slots__ = ("name", "is_pointer", "dtype", "ctype")

    def __init__(self, name, is_pointer, dtype, ctype):
        self.name, self.is_pointer, self.dtype, self.ctype = name, is_pointer, dtype, ctype

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.dtype})"

    @property
    def struct_char(self):
        """The prepare() letter of this argument, as PyCUDA's: "P" for a
        pointer, else the dtype's character."""
        if self.is_pointer:
            return "P"
        if self.dtype is None:
            raise TypeError(f"argument '{self.name}' ({self.ctype}) has no NumPy dtype, so "
                            "no prepare() letter")
        return self.dtype.char

    def declarator(self):
        if self.ctype.rstrip().endswith("*") or not self.is_pointer:
            return f"{self.ctype} {self.name}"
        return f"{self.ctype} *{self.name}"


class VectorArg(_Arg):
    """A pointer argument `name` to elements of `dtype` ("float *x")."""
    __slots__ = ()

    def __init__(self, dtype, name, ctype=None):
        dtype = np.dtype(dtype)
        super().__init__(name, True, dtype, ctype or dtype_to_ctype(dtype) + " *")


class ScalarArg(_Arg):
    """A by-value argument `name` of `dtype` ("float a")."""
    __slots__ = ()

    def __init__(self, dtype, name, ctype=None):
        dtype = np.dtype(dtype)
        super().__init__(name, False, dtype, ctype or dtype_to_ctype(dtype))


def parse_c_arg(c_arg):
    """One C parameter declaration ("float *x", "const int n") as a
    VectorArg or ScalarArg."""
    if not isinstance(c_arg, str):
        raise TypeError(f"parse_c_arg: c_arg must be a str like 'float *x', not "
                        f"{type(c_arg).__name__}")
    from pycudac import _sigparse
    params = _sigparse.parse_arguments(c_arg)
    if len(params) != 1:
        raise ValueError(f"parse_c_arg: expected one C parameter declaration like "
                         f"'float *x', got {c_arg!r}")
    if not params[0].name:
        raise ValueError(f"parse_c_arg: {c_arg!r} names no parameter (expected a declaration "
                         f"like 'float *x')")
    return _arg_of_param(params[0])


def _arg_of_param(p):
    """A parsed C parameter (pycudac._sigparse) as a VectorArg or ScalarArg;
    its dtype None where NumPy has none for its C type."""
    try:
        dt = p.dtype
    except Exception:
        dt = None
    arg = object.__new__(VectorArg if p.is_pointer else ScalarArg)
    _Arg.__init__(arg, p.name, p.is_pointer, dt, p.ctype)
    return arg


def get_arg_type(c_arg):
    """The prepare() letter of one C parameter declaration ("P" for a pointer)."""
    return parse_c_arg(c_arg).struct_char


def get_default_device(default=0):
    """Deprecated in PyCUDA (use make_default_context): the Device that
    CUDA_DEVICE, else ~/.cuda_device, else `default` names."""
    import os
    import warnings

    from pycudac import driver
    warnings.warn("get_default_device() is deprecated; use make_default_context() instead",
                  DeprecationWarning, stacklevel=2)
    dev = os.environ.get("CUDA_DEVICE")
    if dev is None:
        try:
            with open(os.path.join(os.path.expanduser("~"), ".cuda_device")) as f:
                dev = f.read().strip()
        except OSError:
            pass
    if dev is None:
        dev = default
    try:
        index = int(dev)
    except (TypeError, ValueError):
        raise ValueError(f"get_default_device: the device must be a number, not {dev!r}") \
            from None
    driver.init()
    return driver.Device(index)


def register_dtype(dtype, c_names, alias_ok=False):
    """Name a structured dtype's C type (a struct the kernel's preamble
    defines, of the same size and layout) for ElementwiseKernel,
    ReductionKernel and dtype_to_ctype, as PyCUDA's register_dtype. A dtype
    already named gets more names only with alias_ok=True."""
    from pycudac._sigparse import types as _sig_types  # REGISTERED: user structs
    dtype = np.dtype(dtype)
    names = [c_names] if isinstance(c_names, str) else \
        list(c_names) if isinstance(c_names, (list, tuple)) else None
    if not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise TypeError(f"register_dtype: c_names must be a C type name or a list of them, "
                        f"not {c_names!r}")
    if dtype.fields is None:
        raise TypeError(f"register_dtype: dtype must be a structured dtype (fields), not "
                        f"{dtype}; scalar and vector dtypes have their names already")
    if dtype in _registered and not alias_ok and _registered[dtype] != names[0]:
        raise RuntimeError(f"register_dtype: {dtype} is already named "
                           f"'{_registered[dtype]}' (alias_ok=True adds names)")
    for n in names:
        other = _sig_types.REGISTERED.get(n)
        if other is not None and other != dtype:
            raise RuntimeError(f"register_dtype: the name '{n}' is already {other}")
    for n in names:
        _sig_types.REGISTERED[n] = dtype
    _registered.setdefault(dtype, names[0])


def get_or_register_dtype(c_names, dtype=None):
    """PyCUDA's: with a dtype, register it under c_names; without, the dtype
    that the (first) name was registered with."""
    if dtype is not None:
        register_dtype(dtype, c_names, alias_ok=True)
        return np.dtype(dtype)
    from pycudac._sigparse import types as _sig_types  # REGISTERED: user structs
    name = c_names if isinstance(c_names, str) else list(c_names)[0]
    try:
        return _sig_types.REGISTERED[name]
    except KeyError:
        raise TypeError(f"get_or_register_dtype: no dtype is registered as '{name}'") from None


def check_dtype(dtype, what="dtype"):
    """np.dtype(dtype), refusing what device arrays cannot hold."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{what}: {exc}") from None
    if dtype.hasobject:
        raise TypeError(f"{what}: object dtype {dtype} cannot live in device memory")
    if dtype.kind in "OUSMm" or (dtype.kind == "V" and dtype.fields is None) or (
            dtype.kind in "biufc" and dtype not in _SCALAR_CTYPES):
        raise TypeError(f"{what}: unsupported dtype {dtype} (expected bool, int8..uint64, "
                        f"float16/32/64, complex64/128 or a gpuarray.vec type)")
    return dtype


# ------------------------------------------------------------ the preamble
# Shared by every kernel pycudac generates. Compiled as C++ (the kernels
# themselves are declared extern "C"), valid for NVRTC and the simulator.

KERNEL_PREAMBLE = r"""
/* ---- pycudac kernel support (pycudac/tools.py KERNEL_PREAMBLE) ---- */
struct pcc_half { unsigned short bits; };

__device__ inline float pcc_h2f(pcc_half h)
{
    unsigned int s = ((unsigned int)h.bits & 0x8000u) << 16;
    unsigned int e = (h.bits >> 10) & 0x1fu, m = h.bits & 0x3ffu, u;
    if (e == 0) {
        if (m == 0) {
            u = s;
        } else {              /* subnormal half: normalize */
            e = 113;
            while (!(m & 0x400u)) { m <<= 1; e--; }
            u = s | (e << 23) | ((m & 0x3ffu) << 13);
        }
    } else if (e == 31) {
        u = s | 0x7f800000u | (m << 13);
    } else {
        u = s | ((e + 112u) << 23) | (m << 13);
    }
    union { unsigned int u; float f; } c;
    c.u = u;
    return c.f;
}

/* round to nearest even, as NumPy and __float2half_rn */
__device__ inline pcc_half pcc_f2h(float f)
{
    union { float f; unsigned int u; } c;
    c.f = f;
    unsigned int x = c.u, sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu, r;
    if (a >= 0x7f800000u) {
        r = sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u);
    } else if (a >= 0x477ff000u) {
        r = sign | 0x7c00u;
    } else if (a >= 0x38800000u) {
        r = (((a >> 23) - 112u) << 10) | ((a >> 13) & 0x3ffu);
        unsigned int rem = a & 0x1fffu;
        if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++;
        r |= sign;
    } else if ((a >> 23) < 102u) {
        r = sign;
    } else {
        unsigned int e = a >> 23, mant = (a & 0x7fffffu) | 0x800000u, shift = 126u - e;
        unsigned int q = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) q++;
        r = sign | q;
    }
    pcc_half h;
    h.bits = (unsigned short)r;
    return h;
}

struct alignas(8) pcc_complex64 { float x, y; };
struct alignas(16) pcc_complex128 { double x, y; };

#define PCC_COMPLEX_OPS(C, R, SQRT, FABS, HYPOT)                                             \
__device__ inline C pcc_make(C, R re, R im) { C z; z.x = re; z.y = im; return z; }      \
__device__ inline C operator+(C a, C b) { return pcc_make(a, a.x + b.x, a.y + b.y); }  \
__device__ inline C operator-(C a, C b) { return pcc_make(a, a.x - b.x, a.y - b.y); }  \
__device__ inline C operator-(C a) { return pcc_make(a, -a.x, -a.y); }                 \
__device__ inline C operator*(C a, C b)                                                \
{ return pcc_make(a, a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }                         \
__device__ inline C operator/(C a, C b) /* NumPy's: Smith's, and a / 0 = (re/0, im/0) */  \
{                                                                                             \
    const R bx = FABS(b.x), by = FABS(b.y);                                                   \
    if (bx >= by) {                                                                           \
        if (bx == 0)                                                                          \
            return pcc_make(a, a.x / bx, a.y / bx);                                           \
        const R r = b.y / b.x, s = (R)1 / (b.x + b.y * r);                                    \
        return pcc_make(a, (a.x + a.y * r) * s, (a.y - a.x * r) * s);                         \
    }                                                                                         \
    const R r = b.x / b.y, s = (R)1 / (b.y + b.x * r);                                        \
    return pcc_make(a, (a.x * r + a.y) * s, (a.y * r - a.x) * s);                             \
}                                                                                             \
__device__ inline bool operator==(C a, C b) { return a.x == b.x && a.y == b.y; }      \
__device__ inline bool operator!=(C a, C b) { return !(a == b); }                      \
__device__ inline bool operator<(C a, C b)                                             \
{ return a.x < b.x || (a.x == b.x && a.y < b.y); }                                            \
__device__ inline bool operator>(C a, C b) { return b < a; }                          \
__device__ inline bool operator<=(C a, C b)                                            \
{ return a.x < b.x || (a.x == b.x && a.y <= b.y); }                                           \
__device__ inline bool operator>=(C a, C b) { return b <= a; }                        \
__device__ inline R pcc_abs(C a) { return HYPOT(a.x, a.y); }                          \
__device__ inline C pcc_conj(C a) { return pcc_make(a, a.x, -a.y); }                  \
__device__ inline bool pcc_isnan(C a) { return a.x != a.x || a.y != a.y; }            \
__device__ inline bool pcc_nonzero(C a) { return a.x != 0 || a.y != 0; }

PCC_COMPLEX_OPS(pcc_complex64, float, sqrtf, fabsf, hypotf)
PCC_COMPLEX_OPS(pcc_complex128, double, sqrt, fabs, hypot)

/* a**b = exp(b log a); 0**b is 0 when b.real > 0 (as NumPy) */
#define PCC_COMPLEX_POW(C, R, LOG, EXP, ATAN2, HYPOT, COS, SIN)                 \
__device__ inline C pcc_pow(C a, C b)                                           \
{                                                                               \
    if (b.x == 0 && b.y == 0) return pcc_make(a, 1, 0);                         \
    if (a.x == 0 && a.y == 0 && b.x > 0) return pcc_make(a, 0, 0);              \
    const R lr = LOG(HYPOT(a.x, a.y)), li = ATAN2(a.y, a.x);                    \
    const R er = b.x * lr - b.y * li, ei = b.x * li + b.y * lr;                 \
    const R m = EXP(er);                                                        \
    return pcc_make(a, m * COS(ei), m * SIN(ei));                               \
}
PCC_COMPLEX_POW(pcc_complex64, float, logf, expf, atan2f, hypotf, cosf, sinf)
PCC_COMPLEX_POW(pcc_complex128, double, log, exp, atan2, hypot, cos, sin)

__device__ inline pcc_complex64 pcc_c64(float re, float im)
{ pcc_complex64 z; z.x = re; z.y = im; return z; }
__device__ inline pcc_complex128 pcc_c128(double re, double im)
{ pcc_complex128 z; z.x = re; z.y = im; return z; }

/* NumPy's integer floor division and remainder: x // 0 == x % 0 == 0,
 * MIN // -1 wraps instead of trapping. */
#define PCC_SIGNED_DIV(T)                                                      \
__device__ inline T pcc_floordiv(T a, T b)                              \
{                                                                              \
    if (b == 0) return 0;                                                      \
    if (b == (T)-1) return (T)(0ull - (unsigned long long)a);                  \
    T q = a / b;                                                               \
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;                             \
    return q;                                                                  \
}                                                                              \
__device__ inline T pcc_mod(T a, T b)                                   \
{                                                                              \
    if (b == 0 || b == (T)-1) return 0;                                        \
    T r = a % b;                                                               \
    if (r != 0 && ((r < 0) != (b < 0))) r += b;                                \
    return r;                                                                  \
}
#define PCC_UNSIGNED_DIV(T)                                                    \
__device__ inline T pcc_floordiv(T a, T b) { return b ? (T)(a / b) : (T)0; } \
__device__ inline T pcc_mod(T a, T b) { return b ? (T)(a % b) : (T)0; }
#define PCC_UINT_POW(T)                                                        \
__device__ inline T pcc_pow(T a, T b)                                   \
{                                                                              \
    T r = 1;                                                                   \
    while (b) { if (b & 1) r = (T)(r * a); a = (T)(a * a); b >>= 1; }         \
    return r;                                                                  \
}
/* NumPy refuses negative integer exponents; a kernel cannot raise: 1 for
 * a == 1, +-1 for a == -1, else 0 (the integer part of a**b). */
#define PCC_INT_POW(T)                                                         \
__device__ inline T pcc_pow(T a, T b)                                   \
{                                                                              \
    if (b < 0) return (a == 1) ? 1 : (a == (T)-1 ? ((b & 1) ? (T)-1 : 1) : 0); \
    T r = 1;                                                                   \
    while (b) { if (b & 1) r = (T)(r * a); a = (T)(a * a); b >>= 1; }         \
    return r;                                                                  \
}
PCC_SIGNED_DIV(signed char) PCC_SIGNED_DIV(short) PCC_SIGNED_DIV(int) PCC_SIGNED_DIV(long long)
PCC_UNSIGNED_DIV(unsigned char) PCC_UNSIGNED_DIV(unsigned short)
PCC_UNSIGNED_DIV(unsigned int) PCC_UNSIGNED_DIV(unsigned long long)
PCC_INT_POW(signed char) PCC_INT_POW(short) PCC_INT_POW(int) PCC_INT_POW(long long)
PCC_UINT_POW(unsigned char) PCC_UINT_POW(unsigned short)
PCC_UINT_POW(unsigned int) PCC_UINT_POW(unsigned long long)

/* NumPy's float divmod (npy_divmod): remainder takes the divisor's sign. */
#define PCC_FLOAT_DIV(T, FMOD, FLOOR, COPYSIGN)                                \
__device__ inline T pcc_mod(T a, T b)                                   \
{                                                                              \
    T m = FMOD(a, b);                                                          \
    if (b == 0) return m;                                                      \
    if (m != 0) { if ((b < 0) != (m < 0)) m += b; }                            \
    else m = COPYSIGN((T)0, b);                                                \
    return m;                                                                  \
}                                                                              \
__device__ inline T pcc_floordiv(T a, T b)                              \
{                                                                              \
    if (b == 0) return a / b;                                                  \
    T m = FMOD(a, b), d = (a - m) / b;                                         \
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1;                                \
    T f;                                                                       \
    if (d != 0) { f = FLOOR(d); if (d - f > (T)0.5) f += 1; }                 \
    else f = COPYSIGN((T)0, a / b);                                            \
    return f;                                                                  \
}
PCC_FLOAT_DIV(float, fmodf, floorf, copysignf)
PCC_FLOAT_DIV(double, fmod, floor, copysign)
__device__ inline float pcc_pow(float a, float b) { return powf(a, b); }
__device__ inline double pcc_pow(double a, double b) { return pow(a, b); }

#define PCC_REAL_HELPERS(T)                                                    \
__device__ inline bool pcc_isnan(T a) { return a != a; }              \
__device__ inline bool pcc_nonzero(T a) { return a != 0; }
PCC_REAL_HELPERS(bool) PCC_REAL_HELPERS(signed char) PCC_REAL_HELPERS(unsigned char)
PCC_REAL_HELPERS(short) PCC_REAL_HELPERS(unsigned short) PCC_REAL_HELPERS(int)
PCC_REAL_HELPERS(unsigned int) PCC_REAL_HELPERS(long long)
PCC_REAL_HELPERS(unsigned long long) PCC_REAL_HELPERS(float) PCC_REAL_HELPERS(double)
__device__ inline signed char pcc_abs(signed char a) { return a < 0 ? (signed char)-a : a; }
__device__ inline short pcc_abs(short a) { return a < 0 ? (short)-a : a; }
__device__ inline int pcc_abs(int a) { return a < 0 ? (int)(0u - (unsigned)a) : a; }
__device__ inline long long pcc_abs(long long a)
{ return a < 0 ? (long long)(0ull - (unsigned long long)a) : a; }
__device__ inline float pcc_abs(float a) { return fabsf(a); }
__device__ inline double pcc_abs(double a) { return fabs(a); }
#define PCC_UABS(T) __device__ inline T pcc_abs(T a) { return a; }
PCC_UABS(bool) PCC_UABS(unsigned char) PCC_UABS(unsigned short) PCC_UABS(unsigned int)
PCC_UABS(unsigned long long)

/* NumPy's maximum/minimum: a NaN in either operand wins. */
template <typename T> __device__ inline T pcc_maximum(T a, T b)
{ return (pcc_isnan(a) || a >= b) ? a : b; }
template <typename T> __device__ inline T pcc_minimum(T a, T b)
{ return (pcc_isnan(a) || a <= b) ? a : b; }

/* the two results of frexp and modf, one at a time (cumath) */
__device__ inline float pcc_frexp_m(float x) { int e; return frexpf(x, &e); }
__device__ inline double pcc_frexp_m(double x) { int e; return frexp(x, &e); }
__device__ inline int pcc_frexp_e(float x) { int e; frexpf(x, &e); return e; }
__device__ inline int pcc_frexp_e(double x) { int e; frexp(x, &e); return e; }
__device__ inline float pcc_modf_f(float x) { float i; return modff(x, &i); }
__device__ inline double pcc_modf_f(double x) { double i; return modf(x, &i); }
__device__ inline float pcc_modf_i(float x) { float i; modff(x, &i); return i; }
__device__ inline double pcc_modf_i(double x) { double i; modf(x, &i); return i; }

/* N consecutive elements moved as one aligned load/store. */
template <typename T, int N> struct alignas(sizeof(T) * N) pcc_pack { T v[N]; };
/* ---- end of pycudac kernel support ---- */
"""


# ------------------------------------------------------------ per-context caches

def unique_tag(key):
    """A short suffix that makes a generated kernel's name unique to the
    module it belongs to (names stay distinct across loaded modules)."""
    import hashlib
    return "_" + hashlib.sha1(repr(key).encode()).hexdigest()[:10]


_get_current = None


def current_context():
    """The current Context object (one Python object per CUcontext)."""
    global _get_current
    if _get_current is None:
        from pycudac import driver
        _get_current = driver.Context.get_current
    return _get_current()


_context_caches = []


def context_dependent_memoize(func):
    """Memoize `func(*args)` per current context (PyCUDA's name): compiled
    kernels belong to the context they were loaded in."""
    cache = {}

    @functools.wraps(func)
    def wrapper(*args):
        ctx = current_context()
        key = (ctx, args)
        try:
            return cache[key]
        except KeyError:
            result = cache[key] = func(*args)
            return result

    wrapper.clear_cache = cache.clear
    _context_caches.append(cache)
    return wrapper


def clear_context_caches():
    """Forget every context-dependent memo (kernels, pools' bins stay)."""
    for cache in _context_caches:
        cache.clear()


def _forget_context(ctx):
    """Drop what the context-dependent caches hold for `ctx` (keyed by it, or
    by a tuple that starts with it): Context.detach() calls this, so that a
    program making and detaching contexts does not keep a pool and kernels
    of each one it detached."""
    for cache in _context_caches:
        for key in [k for k in cache
                    if k is ctx or (type(k) is tuple and k and k[0] is ctx)]:
            del cache[key]


_driver._register("context_detached", _forget_context)


# ------------------------------------------------------------ contexts and tests

def make_default_context(ctx_maker=None):
    """Make (and push) a context on the first device that accepts one;
    CUDA_DEVICE picks the device. Returns the Context."""
    import os

    from pycudac import driver
    driver.init()
    if ctx_maker is None:
        def ctx_maker(dev):
            return dev.make_context()
    wanted = os.environ.get("CUDA_DEVICE")
    if wanted is not None:
        return ctx_maker(driver.Device(int(wanted)))
    errors = []
    for i in range(driver.Device.count()):
        try:
            return ctx_maker(driver.Device(i))
        except driver.Error as exc:
            errors.append(f"device {i}: {exc}")
    raise RuntimeError("make_default_context: no device accepted a context"
                       + ("".join("\n  " + e for e in errors) if errors else ""))


def mark_cuda_test(inner):
    """Decorator for a test function: runs it with a fresh context on the
    default device, popped (and its memory freed) afterwards."""
    @functools.wraps(inner)
    def wrapper(*args, **kwargs):
        ctx = make_default_context()
        try:
            return inner(*args, **kwargs)
        finally:
            ctx.pop()
            clear_context_caches()
            import gc
            gc.collect()
    return wrapper


def _ceil_to(x, unit):
    return -(-x // unit) * unit


class DeviceData:
    """What launch-configuration code needs to know of a device, with
    PyCUDA's attribute names, read from the driver (the current context's
    device unless `dev` is given)."""

    def __init__(self, dev=None):
        from pycudac import driver
        if dev is None:
            dev = driver.Context.get_device()
        a = driver.device_attribute
        self.max_threads = dev.get_attribute(a.MAX_THREADS_PER_BLOCK)
        self.warp_size = dev.get_attribute(a.WARP_SIZE)
        self.warps_per_mp = dev.get_attribute(a.MAX_THREADS_PER_MULTIPROCESSOR) // self.warp_size
        self.thread_blocks_per_mp = dev.get_attribute(a.MAX_BLOCKS_PER_MULTIPROCESSOR)
        self.registers = dev.get_attribute(a.MAX_REGISTERS_PER_BLOCK)
        self.registers_per_mp = dev.get_attribute(a.MAX_REGISTERS_PER_MULTIPROCESSOR)
        self.shared_memory = dev.get_attribute(a.MAX_SHARED_MEMORY_PER_BLOCK)
        self.shared_memory_per_mp = dev.get_attribute(a.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
        self.smem_alloc_granularity = 128
        self.smem_granularity = 32  # banks
        self.register_allocation_unit = "warp"

    def align_bytes(self, word_size=4):
        """The bytes a coalesced fetch of `word_size`-byte words aligns to."""
        try:
            return {4: 64, 8: 128, 16: 128}[word_size]
        except (KeyError, TypeError):
            raise ValueError(f"align_bytes: no alignment for fetches of {word_size!r} "
                             "bytes (4, 8 or 16)") from None

    def align_words(self, word_size):
        return self.align_bytes(word_size) // word_size

    def align(self, nbytes, word_size=4):
        return _ceil_to(nbytes, self.align_bytes(word_size))

    def align_dtype(self, elements, dtype_size):
        return _ceil_to(elements, self.align_words(dtype_size))

    def coalesce(self, thread_count):
        return _ceil_to(thread_count, 16)

    @staticmethod
    def make_valid_tex_channel_count(size):
        for n in (1, 2, 4):
            if size <= n:
                return n
        raise ValueError(f"make_valid_tex_channel_count: no texture holds {size} channels "
                         "(at most 4)")


class OccupancyRecord:
    """Blocks per multiprocessor and occupancy of a launch of `threads`
    threads a block, each block using `shared_mem` bytes of shared memory and
    each thread `registers` registers (PyCUDA's OccupancyRecord; registers
    allocated per warp in units of 256, shared memory in 128-byte units).
    For a compiled kernel, Function.max_potential_block_size asks the driver."""

    def __init__(self, devdata, threads, shared_mem=0, registers=0):
        if not 1 <= threads <= devdata.max_threads:
            raise ValueError(f"OccupancyRecord: threads must be 1..{devdata.max_threads}, "
                             f"got {threads}")
        warps = -(-threads // devdata.warp_size)
        limits = [(devdata.warps_per_mp // warps, "warps"),
                  (devdata.thread_blocks_per_mp, "device")]
        if shared_mem:
            if shared_mem > devdata.shared_memory:
                raise ValueError(f"OccupancyRecord: shared_mem = {shared_mem} bytes is more "
                                 f"than a block may use ({devdata.shared_memory})")
            limits.append((devdata.shared_memory_per_mp //
                           _ceil_to(shared_mem, devdata.smem_alloc_granularity), "smem"))
        if registers:
            per_block = warps * _ceil_to(registers * devdata.warp_size, 256)
            if per_block > devdata.registers:
                raise ValueError(f"OccupancyRecord: {registers} registers for {threads} "
                                 f"threads is more than a block may use ({devdata.registers})")
            limits.append((devdata.registers_per_mp // per_block, "regs"))
        self.tb_per_mp, self.limited_by = min(limits, key=lambda lim: lim[0])
        self.warps_per_mp = self.tb_per_mp * warps
        self.occupancy = self.warps_per_mp / devdata.warps_per_mp


def init_cuda_context_fixture():
    """PyCUDA's generator for a pytest fixture: a context is current from the
    first next() (which gives it) to the second, which pops it:

        @pytest.fixture(autouse=True)
        def cuda_context():
            yield from init_cuda_context_fixture()
    """
    ctx = make_default_context()
    try:
        yield ctx
    finally:
        ctx.pop()
        clear_context_caches()
        import gc
        gc.collect()

