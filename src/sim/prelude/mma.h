/*
 * sim/prelude/mma.h — <mma.h> for the CPU simulator: nvcuda::wmma, the warp
 * matrix functions (tensor cores), for the element types and shapes the CUDA
 * Programming Guide lists for sm_80/sm_90: __half (m16n16k16, m32n8k16,
 * m8n32k16; __half or float accumulators), __nv_bfloat16 and signed/unsigned
 * char (the same shapes; float, int accumulators), precision::tf32 (m16n16k8,
 * float) and double (m8n8k4). The experimental sub-byte types (u4, s4, b1) are
 * declared, not run: the sim compiler refuses them by name (sim/cc/scan.c).
 *
 * A fragment holds its tile's elements spread over the warp, each element in
 * exactly one lane: element e of the tile, counted in the fragment's storage
 * order (row by row for row_major fragments and accumulators, column by column
 * for col_major ones), is x[e / 32] of lane e % 32. So num_elements is the
 * tile's size / 32 (a GPU holds some __half elements twice: its num_elements
 * for those is twice this), and a row-major load or store of one x[i] by the
 * 32 lanes touches consecutive addresses.
 *
 * load_matrix_sync, store_matrix_sync and mma_sync are warp-wide: each first
 * meets the warp's other 31 lanes in the runtime (api warp_wide, sim/warp.c),
 * which ends the launch when a lane is missing or elsewhere. A lane loads and
 * stores its own elements with plain accesses (check mode checks them as any
 * other); mma_sync reads the other lanes' fragments through the pointers the
 * meeting hands out (unchecked: on a GPU those are registers), computes its own
 * elements of D, and writes them after a second meeting, so that D may be C.
 *
 * Numerics (docs/simulator.md): each element of D is C's element, then the
 * products A[r][0] * B[0][c], A[r][1] * B[1][c], ... added in that order, in
 * float for __half, __nv_bfloat16 and tf32 inputs (their products are exact in
 * float), with a fused multiply-add per step for double, exactly (64-bit) for
 * the char types. A __half D is rounded once at the end (to nearest even); an
 * int D wraps modulo 2^32, or saturates with satf. tf32 inputs keep only
 * tf32's 10 mantissa bits: mma_sync truncates the other 13 (as a GPU ignores
 * them), __float_to_tf32 rounds to nearest, ties away from zero (cvt.rna).
 */
#pragma once
#include "cuda_fp16.h"
#include "cuda_bf16.h"

extern "C++" {
#pragma GCC visibility push(hidden)
namespace nvcuda {
namespace wmma {

/* tags, as incomplete as CUDA's */
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
}
namespace experimental {
namespace precision {
struct u4;
struct s4;
struct b1;
} // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
} // namespace experimental

enum layout_t { mem_row_major, mem_col_major };

template <typename T> struct helper_traits {
    typedef T element_type;
    typedef T storage_element_type;
    typedef T fill_argument_type;
};
template <> struct helper_traits<precision::tf32> {
    typedef precision::tf32 element_type;
    typedef float storage_element_type;
    typedef float fill_argument_type;
};

/* float to tf32 (a float whose low 13 mantissa bits are zero): to nearest,
 * ties away from zero, as cvt.rna.tf32.f32; infinities and NaNs as they are. */
static inline float __float_to_tf32(float in)
{
    unsigned int u = __float_as_uint(in);
    if ((u & 0x7f800000u) == 0x7f800000u)
        return in;
    return __uint_as_float((u + 0x1000u) & 0xffffe000u); /* sign and magnitude: away from 0 */
}

namespace __pcc_wmma {
template <class A, class B> struct same { static constexpr bool value = false; };
template <class A> struct same<A, A> { static constexpr bool value = true; };

template <class T> struct subbyte { static constexpr bool value = false; };
template <> struct subbyte<experimental::precision::u4> { static constexpr bool value = true; };
template <> struct subbyte<experimental::precision::s4> { static constexpr bool value = true; };
template <> struct subbyte<experimental::precision::b1> { static constexpr bool value = true; };

/* A fragment's tile: rows x cols (one element per lane where Use is no tag) */
template <class Use, int m, int n, int k> struct dims { enum { rows = 32, cols = 1 }; };
template <int m, int n, int k> struct dims<matrix_a, m, n, k> { enum { rows = m, cols = k }; };
template <int m, int n, int k> struct dims<matrix_b, m, n, k> { enum { rows = k, cols = n }; };
template <int m, int n, int k> struct dims<accumulator, m, n, k> { enum { rows = m, cols = n }; };

/* The Programming Guide's table (sm_80/sm_90), less the sub-byte types. */
template <class Use, int m, int n, int k, class T, class L> struct valid {
    static constexpr bool f16 = (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) ||
                                (m == 8 && n == 32 && k == 16);
    static constexpr bool tf32 = m == 16 && n == 16 && k == 8;
    static constexpr bool f64 = m == 8 && n == 8 && k == 4;
    static constexpr bool ab = same<Use, matrix_a>::value || same<Use, matrix_b>::value;
    static constexpr bool acc = same<Use, accumulator>::value;
    static constexpr bool layout = ab ? same<L, row_major>::value || same<L, col_major>::value
                                      : same<L, void>::value;
    static constexpr bool ab_type =
        (f16 && (same<T, __half>::value || same<T, __nv_bfloat16>::value ||
                 same<T, signed char>::value || same<T, unsigned char>::value)) ||
        (tf32 && same<T, precision::tf32>::value) || (f64 && same<T, double>::value);
    static constexpr bool acc_type =
        (f16 && (same<T, __half>::value || same<T, float>::value || same<T, int>::value)) ||
        (tf32 && same<T, float>::value) || (f64 && same<T, double>::value);
    static constexpr bool value = layout && ((ab && ab_type) || (acc && acc_type));
};

/* The number in storage order of element (r, c) of a tile rows x cols. */
template <class L> struct order {
    static constexpr unsigned int at(unsigned int r, unsigned int c, unsigned int rows,
                                     unsigned int cols)
    {
        return same<L, col_major>::value ? c * rows + r : r * cols + c;
    }
};

template <class Use, int m, int n, int k, class T, class L> struct __attribute__((aligned(8))) frag_base {
    static_assert(!subbyte<T>::value, "nvcuda::wmma::fragment: the experimental sub-byte types "
                  "(precision::u4, s4, b1) cannot run on the pycudac CPU simulator");
    static_assert(subbyte<T>::value || valid<Use, m, n, k, T, L>::value,
                  "nvcuda::wmma::fragment: no such fragment (the Programming Guide's element "
                  "types and matrix sizes: matrix_a/matrix_b with row_major or col_major and "
                  "accumulators without a layout; __half, __nv_bfloat16, signed char, unsigned "
                  "char at m16n16k16, m32n8k16, m8n32k16 with __half, float or int "
                  "accumulators; precision::tf32 at m16n16k8 with float; double at m8n8k4)");
    enum { num_elements = dims<Use, m, n, k>::rows * dims<Use, m, n, k>::cols / 32 };
    enum { num_storage_elements = num_elements };
    typedef T element_type;
    typedef typename helper_traits<T>::storage_element_type storage_element_type;
    storage_element_type x[num_elements];
};

/* The source line of a call, as a defaulted last argument (explicit: no
 * bool or int argument of the caller's converts to it). */
struct at {
    int line;
    explicit constexpr at(int l) : line(l) {}
};

/* Meets the warp's other lanes (sim/warp.c); returns their deposits. */
static inline void *const *meet(void *mine, const char *what, int line)
{
    PCC_SAVE;
    void *const *all = __pcc_api->warp_wide(__pcc_self, mine, what, line);
    PCC_RESTORE;
    return all;
}

/* The input types' arithmetic: the type products are summed in, an input's
 * value in it. */
template <class T> struct math;
template <> struct math<__half> {
    typedef float acc;
    static float in(__half v) { return (float)v; }
};
template <> struct math<__nv_bfloat16> {
    typedef float acc;
    static float in(__nv_bfloat16 v) { return (float)v; }
};
template <> struct math<precision::tf32> {
    typedef float acc;
    static float in(float v) /* only tf32's bits: the low 13 of the mantissa dropped */
    {
        unsigned int u = __float_as_uint(v);
        return (u & 0x7f800000u) == 0x7f800000u ? v : __uint_as_float(u & 0xffffe000u);
    }
};
template <> struct math<double> {
    typedef double acc;
    static double in(double v) { return v; }
};
template <> struct math<signed char> {
    typedef long long acc;
    static long long in(signed char v) { return v; }
};
template <> struct math<unsigned char> {
    typedef long long acc;
    static long long in(unsigned char v) { return v; }
};

static inline float madd(float a, float b, float s) { return s + a * b; } /* a * b is exact */
static inline double madd(double a, double b, double s) { return __builtin_fma(a, b, s); }
static inline long long madd(long long a, long long b, long long s) { return s + a * b; }

static inline float to_acc(__half v, float) { return (float)v; }
static inline float to_acc(float v, float) { return v; }
static inline double to_acc(double v, double) { return v; }
static inline long long to_acc(int v, long long) { return v; }

static inline void from_acc(__half &d, float v, bool) { d = __half(v); }
static inline void from_acc(float &d, float v, bool) { d = v; }
static inline void from_acc(double &d, double v, bool) { d = v; }
static inline void from_acc(int &d, long long v, bool satf)
{
    if (satf)
        v = v > 2147483647LL ? 2147483647LL : v < -2147483647LL - 1 ? -2147483647LL - 1 : v;
    d = (int)(unsigned int)(unsigned long long)v; /* wraps modulo 2^32 */
}

/* What each lane deposits for mma_sync: its fragments' elements. */
struct operands {
    const void *a, *b, *c;
};

/* The elements of D that lane `lane` holds, from every lane's A, B and C:
 * reads other lanes' fragments (registers on a GPU), so check mode leaves
 * it alone. */
template <int m, int n, int k, class TA, class LA, class LB, class TC>
__PCC_NOSAN __attribute__((noinline)) static void
mma_lane(void *const *all, unsigned int lane, typename math<TA>::acc *out)
{
    typedef typename helper_traits<TA>::storage_element_type SA;
    typedef typename math<TA>::acc Acc;
    for (unsigned int i = 0; i < (unsigned int)(m * n / 32); i++) {
        unsigned int e = lane + 32u * i, r = e / n, c = e % n;
        const operands *own = (const operands *)all[e % 32];
        Acc s = to_acc(((const TC *)own->c)[e / 32], Acc());
        for (unsigned int q = 0; q < (unsigned int)k; q++) {
            unsigned int ea = order<LA>::at(r, q, m, k), eb = order<LB>::at(q, c, k, n);
            SA av = ((const SA *)((const operands *)all[ea % 32])->a)[ea / 32];
            SA bv = ((const SA *)((const operands *)all[eb % 32])->b)[eb / 32];
            s = madd(math<TA>::in(av), math<TA>::in(bv), s);
        }
        out[i] = s;
    }
}

template <class TA, class TD, class TC> struct mma_types {
    static constexpr bool value =
        (same<TA, __half>::value && (same<TD, __half>::value || same<TD, float>::value) &&
         (same<TC, __half>::value || same<TC, float>::value)) ||
        ((same<TA, __nv_bfloat16>::value || same<TA, precision::tf32>::value) &&
         same<TD, float>::value && same<TC, float>::value) ||
        ((same<TA, signed char>::value || same<TA, unsigned char>::value) &&
         same<TD, int>::value && same<TC, int>::value) ||
        (same<TA, double>::value && same<TD, double>::value && same<TC, double>::value);
};

template <int m, int n, int k, class TA, class LA, class LB, class TD, class TC, class FD,
          class FA, class FB, class FC>
static inline __attribute__((always_inline)) void mma(FD &d, const FA &a, const FB &b,
                                                       const FC &c, bool satf, int line)
{
    typedef typename math<TA>::acc Acc;
    operands mine = {a.x, b.x, c.x};
    void *const *all = meet(&mine, "wmma::mma_sync", line);
    Acc out[m * n / 32];
    mma_lane<m, n, k, TA, LA, LB, TC>(all, __pcc_cur->lane, out);
    /* every lane has read every C before any writes its D (d may be c) */
    PCC_SAVE;
    __pcc_api->syncwarp(__pcc_self, 0xffffffffu);
    PCC_RESTORE;
    for (int i = 0; i < m * n / 32; i++)
        from_acc(d.x[i], out[i], satf);
}
} // namespace __pcc_wmma

template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment : public __pcc_wmma::frag_base<Use, m, n, k, T, Layout> {};

#define __PCC_WMMA_AT ::nvcuda::wmma::__pcc_wmma::at __at = ::nvcuda::wmma::__pcc_wmma::at(__builtin_LINE())

template <typename Use, int m, int n, int k, typename T, typename L>
static inline void fill_fragment(fragment<Use, m, n, k, T, L> &f,
                                 const typename helper_traits<T>::fill_argument_type &v)
{
    for (int i = 0; i < f.num_elements; i++)
        f.x[i] = v;
}

/* matrix_a / matrix_b: ldm elements between rows (row_major) or columns
 * (col_major) in memory. */
template <typename Use, int m, int n, int k, typename T, typename L>
static inline __attribute__((always_inline)) void
load_matrix_sync(fragment<Use, m, n, k, T, L> &f,
                 const typename helper_traits<T>::storage_element_type *p, unsigned ldm,
                 __PCC_WMMA_AT)
{
    static_assert(!__pcc_wmma::same<Use, accumulator>::value,
                  "load_matrix_sync of an accumulator fragment takes a layout_t "
                  "(wmma::mem_row_major or wmma::mem_col_major) after ldm");
    typedef __pcc_wmma::dims<Use, m, n, k> D;
    const unsigned int inner = __pcc_wmma::same<L, col_major>::value ? D::rows : D::cols;
    __pcc_wmma::meet(nullptr, "wmma::load_matrix_sync", __at.line);
    unsigned int lane = __pcc_cur->lane;
    for (int i = 0; i < f.num_elements; i++) {
        unsigned int e = lane + 32u * i;
        f.x[i] = p[(size_t)(e / inner) * ldm + e % inner];
    }
}

/* accumulators: element (r, c) at p[r * ldm + c] (mem_row_major) or
 * p[c * ldm + r] (mem_col_major) */
template <int m, int n, int k, typename T>
static inline __attribute__((always_inline)) void
load_matrix_sync(fragment<accumulator, m, n, k, T> &f,
                 const typename helper_traits<T>::storage_element_type *p, unsigned ldm,
                 layout_t layout, __PCC_WMMA_AT)
{
    __pcc_wmma::meet(nullptr, "wmma::load_matrix_sync", __at.line);
    unsigned int lane = __pcc_cur->lane;
    for (int i = 0; i < f.num_elements; i++) {
        unsigned int e = lane + 32u * i, r = e / n, c = e % n;
        f.x[i] = layout == mem_col_major ? p[(size_t)c * ldm + r] : p[(size_t)r * ldm + c];
    }
}

template <int m, int n, int k, typename T>
static inline __attribute__((always_inline)) void
store_matrix_sync(typename helper_traits<T>::storage_element_type *p,
                  const fragment<accumulator, m, n, k, T> &f, unsigned ldm, layout_t layout,
                  __PCC_WMMA_AT)
{
    __pcc_wmma::meet(nullptr, "wmma::store_matrix_sync", __at.line);
    unsigned int lane = __pcc_cur->lane;
    for (int i = 0; i < f.num_elements; i++) {
        unsigned int e = lane + 32u * i, r = e / n, c = e % n;
        if (layout == mem_col_major)
            p[(size_t)c * ldm + r] = f.x[i];
        else
            p[(size_t)r * ldm + c] = f.x[i];
    }
}

template <int m, int n, int k, typename TA, typename LA, typename LB, typename TD, typename TC>
static inline __attribute__((always_inline)) void
mma_sync(fragment<accumulator, m, n, k, TD> &d, const fragment<matrix_a, m, n, k, TA, LA> &a,
         const fragment<matrix_b, m, n, k, TA, LB> &b, const fragment<accumulator, m, n, k, TC> &c,
         __PCC_WMMA_AT)
{
    static_assert(__pcc_wmma::mma_types<TA, TD, TC>::value,
                  "mma_sync: no such combination (the Programming Guide's: __half with __half or "
                  "float C and D; __nv_bfloat16 and precision::tf32 with float; signed and "
                  "unsigned char with int; double with double)");
    __pcc_wmma::mma<m, n, k, TA, LA, LB, TD, TC>(d, a, b, c, false, __at.line);
}

/* satf: the integer types' only (an int D saturates instead of wrapping) */
template <int m, int n, int k, typename TA, typename LA, typename LB, typename TD, typename TC>
static inline __attribute__((always_inline)) void
mma_sync(fragment<accumulator, m, n, k, TD> &d, const fragment<matrix_a, m, n, k, TA, LA> &a,
         const fragment<matrix_b, m, n, k, TA, LB> &b, const fragment<accumulator, m, n, k, TC> &c,
         bool satf, __PCC_WMMA_AT)
{
    static_assert((__pcc_wmma::same<TA, signed char>::value ||
                   __pcc_wmma::same<TA, unsigned char>::value) &&
                      __pcc_wmma::mma_types<TA, TD, TC>::value,
                  "mma_sync's satf argument is the integer (signed char, unsigned char) "
                  "multiplications' only");
    __pcc_wmma::mma<m, n, k, TA, LA, LB, TD, TC>(d, a, b, c, satf, __at.line);
}
#undef __PCC_WMMA_AT

} // namespace wmma
} // namespace nvcuda
#pragma GCC visibility pop
}
