/*
 * compile/c_headers.c — the C library headers device code written for nvcc
 * includes and NVRTC does not ship (<stdint.h>, <cstdint>, <assert.h>,
 * <cassert>, <math.h>, <cmath>, <limits.h>, <climits>, <float.h>, <cfloat>,
 * <stddef.h>, <cstddef>), as small stand-ins that compile/compile.c hands
 * to the compiler with the program (nvrtcCreateProgram's headers): NVRTC
 * and the simulator's compiler get the same text, so both accept the same
 * source. Each declares only what a kernel can use (types, limits,
 * constants; <cmath> puts CUDA's math functions in std::). On the simulator,
 * a system header that includes one (libcu++ does, which brings the host's
 * C library: __PCC_IN_SYSTEM / __PCC_SIM_HOST_LIBC) gets the host's own.
 *
 * A C header and its C++ name share one body (the C++ one adds the std::
 * names where it has them). A change here changes what compiles, so
 * PCC_C_HEADERS_VERSION is part of every cache key.
 */
#include <stddef.h>

#include "compile/c_headers.h"

/* What comes before a stand-in's body: a system header that includes it
 * (libcu++ on the simulator) gets the host's own. */
#define PCC_STANDIN(name)                                                                      \
    "/* pycudac's <" name "> for device code (NVRTC ships none) */\n"                           \
    "#if defined(__PCC_IN_SYSTEM) || defined(__PCC_SIM_HOST_LIBC)\n"                          \
    "#include_next <" name ">\n"                                                              \
    "#else\n"

#define STDINT_DECLS \
    "#ifndef PYCUDAC_STDINT_H\n" \
    "#define PYCUDAC_STDINT_H\n" \
    "typedef signed char int8_t;\n" \
    "typedef short int16_t;\n" \
    "typedef int int32_t;\n" \
    "typedef long long int64_t;\n" \
    "typedef unsigned char uint8_t;\n" \
    "typedef unsigned short uint16_t;\n" \
    "typedef unsigned int uint32_t;\n" \
    "typedef unsigned long long uint64_t;\n" \
    "typedef signed char int_least8_t;\n" \
    "typedef short int_least16_t;\n" \
    "typedef int int_least32_t;\n" \
    "typedef long long int_least64_t;\n" \
    "typedef unsigned char uint_least8_t;\n" \
    "typedef unsigned short uint_least16_t;\n" \
    "typedef unsigned int uint_least32_t;\n" \
    "typedef unsigned long long uint_least64_t;\n" \
    "typedef signed char int_fast8_t;\n" \
    "typedef short int_fast16_t;\n" \
    "typedef int int_fast32_t;\n" \
    "typedef long long int_fast64_t;\n" \
    "typedef unsigned char uint_fast8_t;\n" \
    "typedef unsigned short uint_fast16_t;\n" \
    "typedef unsigned int uint_fast32_t;\n" \
    "typedef unsigned long long uint_fast64_t;\n" \
    "typedef long long intptr_t;\n" \
    "typedef unsigned long long uintptr_t;\n" \
    "typedef long long intmax_t;\n" \
    "typedef unsigned long long uintmax_t;\n" \
    "#define INT8_MIN (-128)\n" \
    "#define INT16_MIN (-32767 - 1)\n" \
    "#define INT32_MIN (-2147483647 - 1)\n" \
    "#define INT64_MIN (-9223372036854775807LL - 1)\n" \
    "#define INT8_MAX 127\n" \
    "#define INT16_MAX 32767\n" \
    "#define INT32_MAX 2147483647\n" \
    "#define INT64_MAX 9223372036854775807LL\n" \
    "#define UINT8_MAX 255\n" \
    "#define UINT16_MAX 65535\n" \
    "#define UINT32_MAX 4294967295U\n" \
    "#define UINT64_MAX 18446744073709551615ULL\n" \
    "#define INTPTR_MIN INT64_MIN\n" \
    "#define INTPTR_MAX INT64_MAX\n" \
    "#define UINTPTR_MAX UINT64_MAX\n" \
    "#define INTMAX_MIN INT64_MIN\n" \
    "#define INTMAX_MAX INT64_MAX\n" \
    "#define UINTMAX_MAX UINT64_MAX\n" \
    "#define SIZE_MAX 18446744073709551615UL\n" \
    "#define PTRDIFF_MIN (-9223372036854775807L - 1)\n" \
    "#define PTRDIFF_MAX 9223372036854775807L\n" \
    "#define INT8_C(c) c\n" \
    "#define INT16_C(c) c\n" \
    "#define INT32_C(c) c\n" \
    "#define INT64_C(c) c##LL\n" \
    "#define UINT8_C(c) c\n" \
    "#define UINT16_C(c) c\n" \
    "#define UINT32_C(c) c##U\n" \
    "#define UINT64_C(c) c##ULL\n" \
    "#define INTMAX_C(c) c##LL\n" \
    "#define UINTMAX_C(c) c##ULL\n" \
    "#endif\n"

#define BODY_STDINT_H STDINT_DECLS "#endif\n"

/* the C++ name: the same, and std:: names */
#define BODY_STDINT_H_CXX \
    STDINT_DECLS \
    "#ifndef PYCUDAC_CSTDINT\n" \
    "#define PYCUDAC_CSTDINT\n" \
    "namespace std {\n" \
    "using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t; using ::uint8_t; using ::uint16_t;\n" \
    "using ::uint32_t; using ::uint64_t; using ::int_least8_t; using ::int_least16_t; using ::int_least32_t;\n" \
    "using ::int_least64_t; using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t;\n" \
    "using ::uint_least64_t; using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;\n" \
    "using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t; using ::intptr_t;\n" \
    "using ::uintptr_t; using ::intmax_t; using ::uintmax_t;\n" \
    "}\n" \
    "#endif\n" \
    "#endif\n"

#define BODY_LIMITS_H \
    "#ifndef PYCUDAC_LIMITS_H\n" \
    "#define PYCUDAC_LIMITS_H\n" \
    "#define CHAR_BIT 8\n" \
    "#define SCHAR_MIN (-128)\n" \
    "#define SCHAR_MAX 127\n" \
    "#define UCHAR_MAX 255\n" \
    "#define CHAR_MIN SCHAR_MIN\n" \
    "#define CHAR_MAX SCHAR_MAX\n" \
    "#define SHRT_MIN (-32767 - 1)\n" \
    "#define SHRT_MAX 32767\n" \
    "#define USHRT_MAX 65535\n" \
    "#define INT_MIN (-2147483647 - 1)\n" \
    "#define INT_MAX 2147483647\n" \
    "#define UINT_MAX 4294967295U\n" \
    "#define LONG_MIN (-9223372036854775807L - 1)\n" \
    "#define LONG_MAX 9223372036854775807L\n" \
    "#define ULONG_MAX 18446744073709551615UL\n" \
    "#define LLONG_MIN (-9223372036854775807LL - 1)\n" \
    "#define LLONG_MAX 9223372036854775807LL\n" \
    "#define ULLONG_MAX 18446744073709551615ULL\n" \
    "#define MB_LEN_MAX 16\n" \
    "#endif\n" \
    "#endif\n"

#define BODY_FLOAT_H \
    "#ifndef PYCUDAC_FLOAT_H\n" \
    "#define PYCUDAC_FLOAT_H\n" \
    "#define FLT_RADIX 2\n" \
    "#define FLT_MANT_DIG 24\n" \
    "#define DBL_MANT_DIG 53\n" \
    "#define FLT_DIG 6\n" \
    "#define DBL_DIG 15\n" \
    "#define FLT_DECIMAL_DIG 9\n" \
    "#define DBL_DECIMAL_DIG 17\n" \
    "#define DECIMAL_DIG 17\n" \
    "#define FLT_MIN_EXP (-125)\n" \
    "#define DBL_MIN_EXP (-1021)\n" \
    "#define FLT_MIN_10_EXP (-37)\n" \
    "#define DBL_MIN_10_EXP (-307)\n" \
    "#define FLT_MAX_EXP 128\n" \
    "#define DBL_MAX_EXP 1024\n" \
    "#define FLT_MAX_10_EXP 38\n" \
    "#define DBL_MAX_10_EXP 308\n" \
    "#define FLT_MAX 3.40282346638528859812e+38F\n" \
    "#define DBL_MAX 1.79769313486231570815e+308\n" \
    "#define FLT_EPSILON 1.19209289550781250000e-7F\n" \
    "#define DBL_EPSILON 2.22044604925031308085e-16\n" \
    "#define FLT_MIN 1.17549435082228750797e-38F\n" \
    "#define DBL_MIN 2.22507385850720138309e-308\n" \
    "#define FLT_TRUE_MIN 1.40129846432481707092e-45F\n" \
    "#define DBL_TRUE_MIN 4.94065645841246544177e-324\n" \
    "#define FLT_EVAL_METHOD 0\n" \
    "#endif\n" \
    "#endif\n"

#define BODY_MATH_H \
    "#ifndef PYCUDAC_MATH_H\n" \
    "#define PYCUDAC_MATH_H\n" \
    "#define INFINITY __builtin_bit_cast(float, 0x7f800000U)\n" \
    "#define NAN __builtin_bit_cast(float, 0x7fc00000U)\n" \
    "#define HUGE_VALF INFINITY\n" \
    "#define HUGE_VAL __builtin_bit_cast(double, 0x7ff0000000000000ULL)\n" \
    "#define M_E 2.7182818284590452354\n" \
    "#define M_LOG2E 1.4426950408889634074\n" \
    "#define M_LOG10E 0.43429448190325182765\n" \
    "#define M_LN2 0.69314718055994530942\n" \
    "#define M_LN10 2.30258509299404568402\n" \
    "#define M_PI 3.14159265358979323846\n" \
    "#define M_PI_2 1.57079632679489661923\n" \
    "#define M_PI_4 0.78539816339744830962\n" \
    "#define M_1_PI 0.31830988618379067154\n" \
    "#define M_2_PI 0.63661977236758134308\n" \
    "#define M_2_SQRTPI 1.12837916709551257390\n" \
    "#define M_SQRT2 1.41421356237309504880\n" \
    "#define M_SQRT1_2 0.70710678118654752440\n" \
    "#endif\n" \
    "#endif\n"

#define BODY_CMATH \
    "#include <math.h>\n" \
    "#ifndef PYCUDAC_CMATH\n" \
    "#define PYCUDAC_CMATH\n" \
    "namespace std {\n" \
    "using ::acos; using ::acosh; using ::asin; using ::asinh; using ::atan; using ::atanh; using ::cbrt; using ::ceil; using ::cos; using ::cosh; using ::erf; using ::erfc; using ::exp; using ::exp2; using ::expm1; using ::fabs; using ::floor; using ::lgamma; using ::log; using ::log10; using ::log1p; using ::log2; using ::logb; using ::nearbyint; using ::rint; using ::round; using ::sin; using ::sinh; using ::sqrt; using ::tan; using ::tanh; using ::tgamma; using ::trunc; using ::atan2; using ::copysign; using ::fdim; using ::fmax; using ::fmin; using ::fmod; using ::hypot; using ::nextafter; using ::pow; using ::remainder; using ::fma; using ::frexp; using ::ldexp; using ::modf; using ::remquo; using ::scalbn; using ::scalbln; using ::ilogb; using ::lrint; using ::llrint; using ::lround; using ::llround; using ::nan; using ::abs; using ::isnan; using ::isinf; using ::isfinite; using ::signbit;\n" \
    "using ::acosf; using ::acoshf; using ::asinf; using ::asinhf; using ::atanf; using ::atanhf; using ::cbrtf; using ::ceilf; using ::cosf; using ::coshf; using ::erff; using ::erfcf; using ::expf; using ::exp2f; using ::expm1f; using ::fabsf; using ::floorf; using ::lgammaf; using ::logf; using ::log10f; using ::log1pf; using ::log2f; using ::logbf; using ::nearbyintf; using ::rintf; using ::roundf; using ::sinf; using ::sinhf; using ::sqrtf; using ::tanf; using ::tanhf; using ::tgammaf; using ::truncf; using ::atan2f; using ::copysignf; using ::fdimf; using ::fmaxf; using ::fminf; using ::fmodf; using ::hypotf; using ::nextafterf; using ::powf; using ::remainderf; using ::fmaf; using ::frexpf; using ::ldexpf; using ::modff; using ::remquof; using ::scalbnf; using ::scalblnf; using ::ilogbf; using ::lrintf; using ::llrintf; using ::lroundf; using ::llroundf; using ::nanf;\n" \
    "}\n" \
    "#endif\n" \
    "#endif\n"

#define BODY_STDDEF_H \
    "#ifndef PYCUDAC_STDDEF_H\n" \
    "#define PYCUDAC_STDDEF_H\n" \
    "#ifndef offsetof\n" \
    "#define offsetof(type, member) ((size_t)((char *)&(((type *)0)->member) - (char *)0))\n" \
    "#endif\n" \
    "typedef struct { long long __a; double __b; } max_align_t;\n" \
    "#endif\n" \
    "#endif\n"

#define BODY_CSTDDEF \
    "#include <stddef.h>\n" \
    "#ifndef PYCUDAC_CSTDDEF\n" \
    "#define PYCUDAC_CSTDDEF\n" \
    "namespace std {\n" \
    "using ::size_t; using ::ptrdiff_t; using ::max_align_t; typedef decltype(nullptr) nullptr_t;\n" \
    "}\n" \
    "#endif\n" \
    "#endif\n"

#define BODY_ASSERT_H \
    "#ifdef NDEBUG\n" \
    "#undef assert\n" \
    "#define assert(e) ((void)0)\n" \
    "#endif\n" \
    "#endif\n"

static const char *const names[] = {
    "stdint.h",
    "cstdint",
    "limits.h",
    "climits",
    "float.h",
    "cfloat",
    "math.h",
    "cmath",
    "stddef.h",
    "cstddef",
    "assert.h",
    "cassert",
};

static const char *const texts[] = {
    PCC_STANDIN("stdint.h") BODY_STDINT_H,
    PCC_STANDIN("cstdint") BODY_STDINT_H_CXX,
    PCC_STANDIN("limits.h") BODY_LIMITS_H,
    PCC_STANDIN("climits") BODY_LIMITS_H,
    PCC_STANDIN("float.h") BODY_FLOAT_H,
    PCC_STANDIN("cfloat") BODY_FLOAT_H,
    PCC_STANDIN("math.h") BODY_MATH_H,
    PCC_STANDIN("cmath") BODY_CMATH,
    PCC_STANDIN("stddef.h") BODY_STDDEF_H,
    PCC_STANDIN("cstddef") BODY_CSTDDEF,
    PCC_STANDIN("assert.h") BODY_ASSERT_H,
    PCC_STANDIN("cassert") BODY_ASSERT_H,
};

int pcc_c_headers(const char *const **out_names, const char *const **out_texts)
{
    *out_names = names;
    *out_texts = texts;
    return (int)(sizeof names / sizeof names[0]);
}
