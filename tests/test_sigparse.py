"""pycudac._sigparse: kernel signatures from real-world CUDA C, and clean
errors (never a crash or a hang) on garbage."""
import numpy as np
import pytest

from pycudac._sigparse import (KernelSignature, Param, parse_arguments, parse_kernels,
                               signature_for, tokenize)

try:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    given = None


def kinds(sig):
    return [p.kind for p in sig.params]


def names(sig):
    return [p.name for p in sig.params]


# ------------------------------------------------------------- the corpus

CUDA_SAMPLES = r'''
/* vectorAdd.cu (CUDA samples) */
#include <stdio.h>
#include <cuda_runtime.h>
__global__ void vectorAdd(const float *A, const float *B, float *C,
                          int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) { C[i] = A[i] + B[i] + 0.0f; }
}

// matrixMul: a template kernel with a block size parameter
template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float *C, float *A,
    float *B, int wA,
    int wB) {
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
}

/* reduction with a launch bound and restrict pointers */
extern "C" __global__ void __launch_bounds__(256, 4)
reduce0(const double *__restrict__ g_idata, double *__restrict__ g_odata, unsigned int n)
{ extern __shared__ double sdata[]; }

__global__ void
#ifdef OLD
old_name(int x)
#else
histogram64Kernel(unsigned int *d_PartialHistograms, unsigned int *d_Data, unsigned int dataCount)
#endif
{ }
'''

CUPY_RAWKERNELS = r'''
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
extern "C"{
__global__ void test_sum(const float* x1, const float* x2, float* y, \
                         unsigned int N)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < N) y[tid] = x1[tid] + x2[tid];
}
}
struct Complex { float re, im; };
__global__ void complex_kernel(const Complex* x, Complex y, long long n, size_t m, ptrdiff_t d)
{ }
__global__ void vec_kernel(float4 a, int2 b, double2 c, uchar4 d, longlong2 e, ulonglong4 f,
                           short3 g, __half h, half h2, __nv_bfloat16 bf, bool flag,
                           int8_t i8, uint8_t u8, int16_t i16, uint16_t u16, int32_t i32,
                           uint32_t u32, int64_t i64, uint64_t u64, intptr_t ip, uintptr_t up,
                           signed char sc, unsigned char uc, short s, unsigned short us,
                           long l, unsigned long ul, unsigned u, signed si, long int li,
                           unsigned long long int ull, char ch, double dd, dim3 d3)
{ }
'''


def test_cuda_samples_corpus():
    sigs = parse_kernels(CUDA_SAMPLES)
    va = sigs["vectorAdd"]
    assert names(va) == ["A", "B", "C", "numElements"]
    assert kinds(va) == ["ptr", "ptr", "ptr", "i32"]
    assert va.params[0].ctype == "const float *" and va.params[0].is_const
    assert va.params[0].pointee == "const float"
    assert not va.params[2].is_const
    mm = sigs["MatrixMulCUDA"]
    assert mm.template_params == (("value", "BLOCK_SIZE", None),)
    assert kinds(mm) == ["ptr", "ptr", "ptr", "i32", "i32"]
    r = sigs["reduce0"]
    assert kinds(r) == ["ptr", "ptr", "u32"]
    assert r.params[0].ctype == "const double *"
    # preprocessor lines are skipped: both branches read as one declaration
    assert "histogram64Kernel" in sigs or "old_name" in sigs


def test_cupy_rawkernel_corpus():
    sigs = parse_kernels(CUPY_RAWKERNELS)
    assert kinds(sigs["my_add"]) == ["ptr", "ptr", "ptr"]
    assert kinds(sigs["test_sum"]) == ["ptr", "ptr", "ptr", "u32"]
    c = sigs["complex_kernel"]
    assert kinds(c) == ["ptr", "struct", "i64", "u64", "i64"]
    assert c.params[1].ctype == "Complex" and c.params[1].size is None
    assert c.params[3].ctype == "size_t"
    v = sigs["vec_kernel"]
    expect = ["vec", "vec", "vec", "vec", "vec", "vec", "vec", "f16", "f16", "bf16", "bool",
              "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "i64", "u64", "i8", "u8",
              "i16", "u16", "i64", "u64", "u32", "i32", "i64", "u64", "i8", "f64", "vec"]
    assert kinds(v) == expect
    sizes = {p.name: (p.size, p.align) for p in v.params}
    assert sizes["a"] == (16, 16)
    assert sizes["b"] == (8, 8)
    assert sizes["c"] == (16, 16)
    assert sizes["d"] == (4, 4)
    assert sizes["g"] == (6, 2)
    assert sizes["f"][0] == 32
    assert sizes["d3"] == (12, 4)
    assert sizes["h"] == (2, 2)


def test_kernels_declared_through_a_macro():
    """PyCUDA's and PyOpenCL's CLUDA preamble declares kernels as `KERNEL
    void f(GLOBAL_MEM float *a, ...)` (#define KERNEL extern "C" __global__):
    such kernels were not found at all, so their parameters were untyped and
    prepare() could make a pointer a double (compyle's kernels)."""
    from pycudac._cluda import CLUDA_PREAMBLE
    sigs = parse_kernels(CLUDA_PREAMBLE + r'''
    KERNEL void k(GLOBAL_MEM float *a, int n, GLOBAL_MEM const double *b) { }
    ''')
    assert kinds(sigs["k"]) == ["ptr", "i32", "ptr"]
    assert sigs["k"].params[2].ctype == "const double *"
    sigs = parse_kernels(r'''
    #define GLOBAL __global__
    #define EXPORT extern "C" GLOBAL
    #define REAL float
    EXPORT void one(REAL x) { }
    template <typename T> GLOBAL void two(T *p, int n) { }
    GLOBAL void three(double d) { }
    #define NOT_A_KERNEL __device__
    NOT_A_KERNEL void helper(int q) { }
    ''')
    assert set(sigs) == {"one", "two", "three"}
    assert kinds(sigs["one"]) == ["f32"] and kinds(sigs["three"]) == ["f64"]
    assert sigs["two"].template_params == (("type", "T", None),)
    # CLUDA's attribute macro between KERNEL and the return type
    sigs = parse_kernels(CLUDA_PREAMBLE + "KERNEL REQD_WG_SIZE(256, 1, 1) "
                         "void k(GLOBAL_MEM float *a, int n) { }")
    assert list(sigs) == ["k"] and kinds(sigs["k"]) == ["ptr", "i32"]
    # one branch of the preprocessor's, whichever comes first, and an #undef
    # after the kernels (the branches are not followed: any definition counts)
    for src in ("#ifdef __CUDACC__\n#define GLOBAL __global__\n#else\n#define GLOBAL\n#endif\n",
                "#ifndef __CUDACC__\n#define GLOBAL\n#else\n#define GLOBAL __global__\n#endif\n"):
        sigs = parse_kernels(src + "GLOBAL void k(float *x, int n) { }\n#undef GLOBAL\n")
        assert kinds(sigs["k"]) == ["ptr", "i32"], src


def test_macros_that_repeat_themselves_do_not_hang_the_parse():
    """A macro is not expanded inside its own expansion (`#define EPS EPS
    EPS EPS` is three EPS), and an expansion past 4096 tokens makes that
    kernel's signature unknown: the first hung SourceModule (3**17 tokens)
    once every macro's body was expanded to find the kernel macros."""
    import time
    t0 = time.perf_counter()
    sigs = parse_kernels("#define EPS EPS EPS EPS\n#define float float\n"
                         "__global__ void k(float *x, float y) { }\n__global__ void j(EPS) { }\n")
    assert kinds(sigs["k"]) == ["ptr", "f32"] and sigs["j"] is None
    chain = "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 30))
    sigs = parse_kernels("#define A0 int\n" + chain + "__global__ void k(A29 x, float *y) { }\n"
                         "__global__ void m(float *y) { }\n")
    assert sigs["k"] is None and kinds(sigs["m"]) == ["ptr"]
    assert time.perf_counter() - t0 < 5


def test_comments_strings_and_macros():
    src = r'''
    #define REAL double
    #define ARGS REAL *x, int n
    #define DECL(t, n) t n
    typedef unsigned int index_t;
    using real2 = float2;
    const char *s = "__global__ void in_a_string(int)";
    // __global__ void in_a_comment(int)
    /* __global__ void in_a_block_comment(int) */
    __global__ void a(REAL *x, /* the count */ index_t n, real2 v) {}
    __global__ void b(ARGS) {}
    __global__ void c(DECL(float, x), int n) {}
    __global__ void d(UNKNOWN_MACRO(x)) {}
    __global__ void e(int n) { char q = '"'; }
    '''
    sigs = parse_kernels(src)
    assert set(sigs) == {"a", "b", "c", "d", "e"}
    assert kinds(sigs["a"]) == ["ptr", "u32", "vec"]
    assert sigs["a"].params[0].ctype == "double *"
    assert sigs["a"].params[1].ctype == "unsigned int"
    assert sigs["a"].params[2].size == 8
    assert kinds(sigs["b"]) == ["ptr", "i32"]
    # an unresolvable macro makes that kernel unknown, not the module
    assert sigs["c"] is None
    assert sigs["d"] is None
    assert kinds(sigs["e"]) == ["i32"]


def test_attributes_qualifiers_and_declarators():
    src = r'''
    __global__ __attribute__((noinline)) void [[maybe_unused]] f1(
        const float * const __restrict__ a, volatile int *b, float **c, const int *const *d,
        int arr[], float m[][4], void (*fp)(int), const __grid_constant__ float4 g,
        struct S s, unsigned n = 3) {}
    __global__ void f2(void) {}
    __global__ void f3() {}
    __global__ void __launch_bounds__(128) __maxnreg__(32) f4(int x);
    __global__ void f4(int x) {}
    namespace ns { __global__ void f5(long long x) {} }
    '''
    sigs = parse_kernels(src)
    f1 = sigs["f1"]
    assert kinds(f1) == ["ptr"] * 7 + ["vec", "struct", "u32"]
    assert f1.params[0].ctype == "const float *const"
    assert f1.params[1].ctype == "volatile int *"
    assert f1.params[2].ctype == "float **" and f1.params[2].pointee == "float *"
    assert f1.params[3].pointee == "const int *const"
    assert f1.params[7].is_const
    assert sigs["f2"].params == () and sigs["f3"].params == ()
    assert kinds(sigs["f4"]) == ["i32"]
    assert kinds(sigs["f5"]) == ["i64"]


def test_references_are_errors():
    assert parse_kernels("__global__ void r(int &x) {}")["r"] is None
    with pytest.raises(ValueError, match="reference"):
        parse_kernels("__global__ void r(int &x) {}", strict=True)
    with pytest.raises(ValueError, match=r"reference.*column 5"):
        parse_arguments("int &x")


def test_templates_and_signature_for():
    src = r'''
    template <typename T, int N = 4>
    __global__ void axpy(T a, const T *x, T *y, int n) {}
    template <class T> __global__ void fill(T *out, T value) {}
    template <typename T, typename U> __global__ void conv(const T *in, U *out, U scale) {}
    __global__ void plain(int n) {}
    '''
    sigs = parse_kernels(src)
    ax = sigs["axpy"]
    assert ax.template_params == (("type", "T", None), ("value", "N", "4"))
    assert ax.params[0].kind is None and not ax.resolved
    s = signature_for(sigs, "axpy<float>")
    assert kinds(s) == ["f32", "ptr", "ptr", "i32"]
    assert s.params[1].ctype == "const float *"
    assert s.name == "axpy<float>"
    s = signature_for(sigs, "axpy<double, 8>")
    assert kinds(s) == ["f64", "ptr", "ptr", "i32"]
    assert kinds(signature_for(sigs, "fill<float4>")) == ["ptr", "vec"]
    assert kinds(signature_for(sigs, "fill<unsigned long long>")) == ["ptr", "u64"]
    assert kinds(signature_for(sigs, "conv<float, __half>")) == ["ptr", "ptr", "f16"]
    assert kinds(signature_for(sigs, "&conv<int,double>")) == ["ptr", "ptr", "f64"]
    assert signature_for(sigs, "axpy") is None  # T unknown
    assert signature_for(sigs, "missing<int>") is None
    assert signature_for(sigs, "plain") is sigs["plain"]
    assert signature_for(sigs, "axpy<float, 4, 5>") is None
    assert signature_for(None, "plain") is None
    assert signature_for(sigs, "axpy<<<") is None


def test_parse_arguments_elementwise_style():
    ps = parse_arguments("float a, float *x, float *y, float *z")
    assert [p.name for p in ps] == ["a", "x", "y", "z"]
    assert [p.kind for p in ps] == ["f32", "ptr", "ptr", "ptr"]
    assert all(isinstance(p, Param) for p in ps)
    assert ps[0].dtype == np.float32 and ps[1].dtype == np.float32
    ps = parse_arguments("unsigned n, pycuda::complex<float> *z, const int4 v, double2 *w")
    assert [p.kind for p in ps] == ["u32", "ptr", "vec", "ptr"]
    assert ps[1].dtype == np.complex64
    assert ps[2].dtype.itemsize == 16 and ps[2].is_const
    assert ps[3].dtype.itemsize == 16
    assert parse_arguments("") == []
    assert parse_arguments("void") == []


@pytest.mark.parametrize("text, where", [
    ("float a,", "column 8"),
    ("float +", "column 7"),
    ("int x y", "column 7"),
    ("/* x", "column 1"),
    ("'a", "column 1"),
    ("int (", "column 5"),
    ("unsigned float x", "column 1"),
    ("float a, int &b", "column 14"),
    ("int x...", "column 6"),
    (")", "column 1"),
    ('"abc', "column 1"),
])
def test_parse_arguments_garbage(text, where):
    with pytest.raises(ValueError, match=where):
        parse_arguments(text)


def test_parse_arguments_type_checks():
    with pytest.raises(TypeError):
        parse_arguments(None)
    with pytest.raises(TypeError):
        parse_kernels(3)


def test_tokenize_errors_have_line_and_column():
    with pytest.raises(ValueError, match="line 3, column 5"):
        parse_kernels("int a;\nint b;\n    /* never closed")
    with pytest.raises(ValueError, match="unterminated string"):
        tokenize('x = "abc\n')


def test_raw_strings_and_line_splices():
    src = 'const char *p = R"xy(__global__ void fake(int))xy";\n' \
          '__global__ void real(int a, \\\n float b) {}\n'
    sigs = parse_kernels(src)
    assert list(sigs) == ["real"]
    assert kinds(sigs["real"]) == ["i32", "f32"]


def test_regression_unicode_digit():
    # found by fuzzing: '²' is str.isdigit() but not a C digit
    with pytest.raises(ValueError, match="unexpected character"):
        parse_arguments("\u00b2")
    assert parse_kernels("int x = 1'000; float y = .5e-3f;") == {}


def test_regression_unbalanced_attribute_after_global():
    # found by fuzzing: '__global__ [ [' raised an internal exception
    assert parse_kernels("__global__ [ [") == {}
    assert parse_kernels("__global__ void k [[ (int x)") == {"k": None}


def test_kernel_signature_is_a_value():
    s = parse_kernels("__global__ void k(int n) {}")["k"]
    assert isinstance(s, KernelSignature)
    assert s == parse_kernels("__global__ void k(int n) {}")["k"]


# -------------------------------------------------------------- fuzzing

if given is not None:
    _pieces = st.sampled_from([
        "int", "float", "*", "&", "const", "unsigned", "long", "(", ")", "[", "]", "<", ">",
        ",", "x", "y", "__global__", "void", "template", "typename", "T", "{", "}", ";",
        "/*", "*/", "//", "\n", "#define", '"', "'", "::", "struct", "__restrict__",
        "float4", "...", "=", "1", "__launch_bounds__", "[[", "]]", "extern", '"C"', "\\",
        "R\"(", "typedef", "using", "enum", "class", ">>", "<<",
    ])

    @settings(max_examples=300, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(_pieces, max_size=40))
    def test_fuzz_tokens_never_crash(parts):
        src = " ".join(parts)
        try:
            sigs = parse_kernels(src)
        except ValueError:
            return
        assert isinstance(sigs, dict)
        for v in sigs.values():
            assert v is None or isinstance(v, KernelSignature)
        try:
            parse_arguments(src)
        except ValueError:
            pass

    @settings(max_examples=200, deadline=None)
    @given(st.text(max_size=200))
    def test_fuzz_text_never_crash(text):
        for fn in (parse_kernels, parse_arguments):
            try:
                fn(text)
            except ValueError:
                pass

    @settings(max_examples=100, deadline=None)
    @given(st.text(alphabet="(<[{", min_size=1, max_size=3000))
    def test_fuzz_deep_nesting_is_bounded(text):
        for fn in (parse_kernels, parse_arguments):
            try:
                fn("__global__ void k(" + text + ") {}")
            except ValueError:
                pass
