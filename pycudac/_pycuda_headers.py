"""The headers PyCUDA ships for kernels, for code written against them
(and <stdio.h> / <cstdio>, which NVRTC lacks).

`#include <pycuda-complex.hpp>` (PyCUDA's complex<T> class, in namespace
pycuda; also spelt pycudac-complex.hpp and pycudac::, for sources where
pycuda was renamed throughout) is replaced by the text below before compiling, so it needs no file
and its text is part of the cache key; a source that names pycuda::complex
without the include gets it too, as PyCUDA's ElementwiseKernel adds it for
complex arguments. The class has the layout of numpy.complex64/128 (real,
imaginary; aligned to its size), so GPUArrays of those dtypes pass as
pycuda::complex<float> * / <double> *. Division, like NumPy's, gives
(re/0, im/0) for a zero divisor.
"""
import re

GUARD = "PYCUDAC_PYCUDA_COMPLEX_HPP"

COMPLEX_HPP = r"""
/* PYCUDAC_PYCUDA_COMPLEX_HPP */ extern "C++" {
namespace pycuda {
namespace cx_math {
__host__ __device__ inline float sqrt_(float x) { return ::sqrtf(x); }
__host__ __device__ inline double sqrt_(double x) { return ::sqrt(x); }
__host__ __device__ inline float exp_(float x) { return ::expf(x); }
__host__ __device__ inline double exp_(double x) { return ::exp(x); }
__host__ __device__ inline float log_(float x) { return ::logf(x); }
__host__ __device__ inline double log_(double x) { return ::log(x); }
__host__ __device__ inline float sin_(float x) { return ::sinf(x); }
__host__ __device__ inline double sin_(double x) { return ::sin(x); }
__host__ __device__ inline float cos_(float x) { return ::cosf(x); }
__host__ __device__ inline double cos_(double x) { return ::cos(x); }
__host__ __device__ inline float sinh_(float x) { return ::sinhf(x); }
__host__ __device__ inline double sinh_(double x) { return ::sinh(x); }
__host__ __device__ inline float cosh_(float x) { return ::coshf(x); }
__host__ __device__ inline double cosh_(double x) { return ::cosh(x); }
__host__ __device__ inline float atan2_(float y, float x) { return ::atan2f(y, x); }
__host__ __device__ inline double atan2_(double y, double x) { return ::atan2(y, x); }
__host__ __device__ inline float hypot_(float x, float y) { return ::hypotf(x, y); }
__host__ __device__ inline double hypot_(double x, double y) { return ::hypot(x, y); }
__host__ __device__ inline float fabs_(float x) { return ::fabsf(x); }
__host__ __device__ inline double fabs_(double x) { return ::fabs(x); }
__host__ __device__ inline float copysign_(float x, float y) { return ::copysignf(x, y); }
__host__ __device__ inline double copysign_(double x, double y) { return ::copysign(x, y); }
}  /* namespace cx_math */

template <typename T> struct alignas(2 * sizeof(T)) complex {
    typedef T value_type;
    T _M_re, _M_im;

    __host__ __device__ complex(const T &re = T(), const T &im = T()) : _M_re(re), _M_im(im) {}
    template <typename U>
    __host__ __device__ complex(const complex<U> &z) : _M_re(T(z.real())), _M_im(T(z.imag())) {}

    __host__ __device__ T real() const { return _M_re; }
    __host__ __device__ T imag() const { return _M_im; }
    __host__ __device__ void real(T v) { _M_re = v; }
    __host__ __device__ void imag(T v) { _M_im = v; }

    __host__ __device__ complex &operator=(const T &x) { _M_re = x; _M_im = T(); return *this; }
    __host__ __device__ complex &operator+=(const T &x) { _M_re += x; return *this; }
    __host__ __device__ complex &operator-=(const T &x) { _M_re -= x; return *this; }
    __host__ __device__ complex &operator*=(const T &x) { _M_re *= x; _M_im *= x; return *this; }
    __host__ __device__ complex &operator/=(const T &x) { _M_re /= x; _M_im /= x; return *this; }
    template <typename U> __host__ __device__ complex &operator+=(const complex<U> &z)
    { _M_re += z.real(); _M_im += z.imag(); return *this; }
    template <typename U> __host__ __device__ complex &operator-=(const complex<U> &z)
    { _M_re -= z.real(); _M_im -= z.imag(); return *this; }
    template <typename U> __host__ __device__ complex &operator*=(const complex<U> &z)
    { return *this = *this * complex(z); }
    template <typename U> __host__ __device__ complex &operator/=(const complex<U> &z)
    { return *this = *this / complex(z); }
};

template <typename T> __host__ __device__ inline T real(const complex<T> &z) { return z.real(); }
template <typename T> __host__ __device__ inline T imag(const complex<T> &z) { return z.imag(); }
template <typename T> __host__ __device__ inline complex<T> conj(const complex<T> &z)
{ return complex<T>(z.real(), -z.imag()); }
template <typename T> __host__ __device__ inline T abs(const complex<T> &z)
{ return cx_math::hypot_(z.real(), z.imag()); }
template <typename T> __host__ __device__ inline T arg(const complex<T> &z)
{ return cx_math::atan2_(z.imag(), z.real()); }
template <typename T> __host__ __device__ inline T norm(const complex<T> &z)
{ return z.real() * z.real() + z.imag() * z.imag(); }
template <typename T> __host__ __device__ inline complex<T> polar(const T &r, const T &t = T())
{ return complex<T>(r * cx_math::cos_(t), r * cx_math::sin_(t)); }

template <typename T> __host__ __device__ inline complex<T> operator+(const complex<T> &z)
{ return z; }
template <typename T> __host__ __device__ inline complex<T> operator-(const complex<T> &z)
{ return complex<T>(-z.real(), -z.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator+(const complex<T> &a, const complex<T> &b)
{ return complex<T>(a.real() + b.real(), a.imag() + b.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator-(const complex<T> &a, const complex<T> &b)
{ return complex<T>(a.real() - b.real(), a.imag() - b.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator*(const complex<T> &a, const complex<T> &b)
{
    return complex<T>(a.real() * b.real() - a.imag() * b.imag(),
                      a.real() * b.imag() + a.imag() * b.real());
}
/* Smith's division, as NumPy's; a zero divisor gives (re/0, im/0) */
template <typename T>
__host__ __device__ inline complex<T> operator/(const complex<T> &a, const complex<T> &b)
{
    const T br = cx_math::fabs_(b.real()), bi = cx_math::fabs_(b.imag());
    if (br >= bi) {
        if (br == T(0))
            return complex<T>(a.real() / br, a.imag() / br);
        const T r = b.imag() / b.real(), s = T(1) / (b.real() + b.imag() * r);
        return complex<T>((a.real() + a.imag() * r) * s, (a.imag() - a.real() * r) * s);
    }
    const T r = b.real() / b.imag(), s = T(1) / (b.imag() + b.real() * r);
    return complex<T>((a.real() * r + a.imag()) * s, (a.imag() * r - a.real()) * s);
}
template <typename T>
__host__ __device__ inline complex<T> operator+(const complex<T> &a, const T &x)
{ return complex<T>(a.real() + x, a.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator+(const T &x, const complex<T> &a)
{ return complex<T>(x + a.real(), a.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator-(const complex<T> &a, const T &x)
{ return complex<T>(a.real() - x, a.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator-(const T &x, const complex<T> &a)
{ return complex<T>(x - a.real(), -a.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator*(const complex<T> &a, const T &x)
{ return complex<T>(a.real() * x, a.imag() * x); }
template <typename T>
__host__ __device__ inline complex<T> operator*(const T &x, const complex<T> &a)
{ return complex<T>(x * a.real(), x * a.imag()); }
template <typename T>
__host__ __device__ inline complex<T> operator/(const complex<T> &a, const T &x)
{ return complex<T>(a.real() / x, a.imag() / x); }
template <typename T>
__host__ __device__ inline complex<T> operator/(const T &x, const complex<T> &a)
{ return complex<T>(x) / a; }
template <typename T>
__host__ __device__ inline bool operator==(const complex<T> &a, const complex<T> &b)
{ return a.real() == b.real() && a.imag() == b.imag(); }
template <typename T>
__host__ __device__ inline bool operator==(const complex<T> &a, const T &x)
{ return a.real() == x && a.imag() == T(0); }
template <typename T>
__host__ __device__ inline bool operator==(const T &x, const complex<T> &a) { return a == x; }
template <typename T>
__host__ __device__ inline bool operator!=(const complex<T> &a, const complex<T> &b)
{ return !(a == b); }
template <typename T>
__host__ __device__ inline bool operator!=(const complex<T> &a, const T &x) { return !(a == x); }
template <typename T>
__host__ __device__ inline bool operator!=(const T &x, const complex<T> &a) { return !(a == x); }

template <typename T> __host__ __device__ inline complex<T> exp(const complex<T> &z)
{ return polar(cx_math::exp_(z.real()), z.imag()); }
template <typename T> __host__ __device__ inline complex<T> log(const complex<T> &z)
{ return complex<T>(cx_math::log_(abs(z)), arg(z)); }
template <typename T> __host__ __device__ inline complex<T> log10(const complex<T> &z)
{ return log(z) / cx_math::log_(T(10)); }
/* the principal root, with the sign of the imaginary part kept */
template <typename T> __host__ __device__ inline complex<T> sqrt(const complex<T> &z)
{
    const T x = z.real(), y = z.imag();
    if (x == T(0) && y == T(0))
        return complex<T>(T(0), y);
    const T t = cx_math::sqrt_((cx_math::fabs_(x) + abs(z)) / T(2));
    if (x >= T(0))
        return complex<T>(t, y / (T(2) * t));
    return complex<T>(cx_math::fabs_(y) / (T(2) * t), cx_math::copysign_(t, y));
}
template <typename T>
__host__ __device__ inline complex<T> pow(const complex<T> &a, const complex<T> &b)
{
    if (a.real() == T(0) && a.imag() == T(0))
        return (b.real() == T(0) && b.imag() == T(0)) ? complex<T>(T(1)) : complex<T>();
    return exp(b * log(a));
}
template <typename T> __host__ __device__ inline complex<T> pow(const complex<T> &a, const T &x)
{ return pow(a, complex<T>(x)); }
template <typename T> __host__ __device__ inline complex<T> pow(const T &x, const complex<T> &b)
{ return pow(complex<T>(x), b); }
template <typename T> __host__ __device__ inline complex<T> pow(const complex<T> &a, int n)
{
    complex<T> r(T(1)), p = a;
    for (unsigned int k = n < 0 ? 0u - (unsigned int)n : (unsigned int)n; k; k >>= 1) {
        if (k & 1u)
            r *= p;
        p *= p;
    }
    return n < 0 ? complex<T>(T(1)) / r : r;
}
template <typename T> __host__ __device__ inline complex<T> sin(const complex<T> &z)
{
    const T x = z.real(), y = z.imag();
    return complex<T>(cx_math::sin_(x) * cx_math::cosh_(y), cx_math::cos_(x) * cx_math::sinh_(y));
}
template <typename T> __host__ __device__ inline complex<T> cos(const complex<T> &z)
{
    const T x = z.real(), y = z.imag();
    return complex<T>(cx_math::cos_(x) * cx_math::cosh_(y), -cx_math::sin_(x) * cx_math::sinh_(y));
}
template <typename T> __host__ __device__ inline complex<T> tan(const complex<T> &z)
{ return sin(z) / cos(z); }
template <typename T> __host__ __device__ inline complex<T> sinh(const complex<T> &z)
{
    const T x = z.real(), y = z.imag();
    return complex<T>(cx_math::sinh_(x) * cx_math::cos_(y), cx_math::cosh_(x) * cx_math::sin_(y));
}
template <typename T> __host__ __device__ inline complex<T> cosh(const complex<T> &z)
{
    const T x = z.real(), y = z.imag();
    return complex<T>(cx_math::cosh_(x) * cx_math::cos_(y), cx_math::sinh_(x) * cx_math::sin_(y));
}
template <typename T> __host__ __device__ inline complex<T> tanh(const complex<T> &z)
{ return sinh(z) / cosh(z); }
}  /* namespace pycuda */
namespace pycudac = pycuda; /* for sources where pycuda was renamed pycudac throughout */
}  /* extern "C++" */
"""

# One line, so that the #include line it replaces keeps every line of the
# user's source where it was (compile errors quote the right lines); no
# directive, so it can be one line; a second #include of it is dropped.
_ONE_LINE = " ".join(line.strip() for line in COMPLEX_HPP.splitlines() if line.strip())
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]pycudac?-complex\.hpp[>"][^\n]*$', re.M)


# Device code written for nvcc includes <stdio.h> / <cstdio> for printf;
# NVRTC has no such file (printf is built in), the simulator's compiler
# does. The line is emptied, so both backends take the same source.
_STDIO = re.compile(r'^[ \t]*#[ \t]*include[ \t]*<(?:cstdio|stdio\.h)>[^\n]*$', re.M)


def expand(source):
    """`source` with PyCUDA's complex header put in: in place of its
    #include, or in front when pycuda::complex is named without one; and
    with any #include of stdio emptied (see _STDIO)."""
    # substring tests before any regex pass (~5 ns a character); SourceModule
    # calls this only after its warm fast path has missed
    if "<stdio.h>" in source or "<cstdio>" in source:
        source = _STDIO.sub("", source)
    if ("-complex.hpp" not in source and "::complex" not in source) or GUARD in source \
            or "pycuda" not in source:
        return source
    seen = []

    def put(m):
        seen.append(m)
        return _ONE_LINE if len(seen) == 1 else ""
    out = _INCLUDE.sub(put, source)
    if not seen and re.search(r"\bpycudac?\s*::\s*complex\b", out):
        out = f"{_ONE_LINE}\n#line 1\n{out}"
    return out
