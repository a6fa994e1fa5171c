"""Property-based fuzzing (Hypothesis) of the three parsers of untrusted
input: the kernel-signature parser, the nvcc option translator and argument
packing. Each property is "a result of the documented shape, or one of the
documented exception types — never anything else, never a crash".

The example counts are small in CI (the bounded budget) and multiplied by
PYCUDAC_FUZZ_SCALE for a longer local run (tests/fuzz_long.py). A failing
example found here becomes a named regression test (see tests/README.md)."""
import math
import os
import struct

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pycudac import compiler  # noqa: E402
from pycudac._sigparse import KernelSignature, parse_arguments, parse_kernels  # noqa: E402

drv = pytest.importorskip("pycudac.driver")

SCALE = float(os.environ.get("PYCUDAC_FUZZ_SCALE", "1"))


def fuzz(n):
    """settings for a fuzz test: n examples in CI, n * PYCUDAC_FUZZ_SCALE in a long run."""
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, derandomize=SCALE == 1,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])


# ------------------------------------------------------------ signature parser

_PIECES = st.sampled_from([
    "__global__", "void", "k", "(", ")", "{", "}", ",", ";", "*", "&", "const", "unsigned",
    "int", "float", "double", "char", "short", "long", "bool", "__half", "float4", "int2",
    "size_t", "struct", "S", "template", "<", ">", "typename", "T", "::", "[", "]", "[[",
    "]]", "__restrict__", "__launch_bounds__", "256", "=", "extern", '"C"', "/*", "*/", "//",
    "\n", "#define X", "#if 0", "#endif", "\\\n", '"', "'", "R\"(", ")\"", "...", "signed",
    "volatile", "__device__", "static", "inline", "auto", "decltype", "operator",
])


@fuzz(150)
@given(st.lists(_PIECES, max_size=50))
def test_sigparse_token_soup(parts):
    src = " ".join(parts)
    try:
        sigs = parse_kernels(src)
    except ValueError:
        return
    assert isinstance(sigs, dict)
    for name, sig in sigs.items():
        assert isinstance(name, str)
        assert sig is None or isinstance(sig, KernelSignature)


@fuzz(150)
@given(st.lists(_PIECES, max_size=20))
def test_sigparse_argument_soup(parts):
    try:
        params = parse_arguments(" ".join(parts))
    except ValueError:
        return
    assert isinstance(params, list)
    for p in params:
        assert p.kind in {"ptr", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16",
                          "f32", "f64", "bool", "vec", "struct"}
        assert p.size is None or p.size > 0


@fuzz(100)
@given(st.text(max_size=300))
def test_sigparse_any_text(text):
    for fn in (parse_kernels, parse_arguments):
        try:
            fn(text)
        except ValueError:
            pass


# ------------------------------------------------------------ option translator

_OPTS = st.one_of(
    st.sampled_from([
        "-use_fast_math", "--use_fast_math", "-std=c++17", "--std", "c++14", "-DN=4", "-D",
        "-U", "-UX", "-I", "-Iinc", "--include-path=x", "-arch", "-arch=sm_90", "-code",
        "compute_80", "-lineinfo", "-G", "-O3", "-m64", "-Xcompiler", "-fPIC", "-Xptxas",
        "-v", "--maxrregcount=32", "-maxrregcount", "0", "-1", "lots", "--ftz=true",
        "--ftz=maybe", "--prec-div=false", "--fmad", "-include", "x.h", "--diag-suppress=177",
        "-restrict", "-w", "-rdc=true", "--bogus", "=", "", "-", "--", "-ccbin=gcc",
        "--compiler-options=-O2", "sm_90a", "\x00", "-D\x00", "-DX=\n", "-I\u00e9",
    ]),
    st.text(max_size=12),
)
_NOT_STR = st.one_of(st.integers(), st.none(), st.binary(max_size=4), st.floats(),
                     st.lists(st.text(max_size=2), max_size=2))


@fuzz(300)
@given(st.lists(_OPTS, max_size=12))
def test_normalize_options_strings(opts):
    _check_normalize(opts)


@fuzz(150)
@given(st.lists(st.one_of(_OPTS, _NOT_STR), max_size=8))
def test_normalize_options_mixed_types(opts):
    _check_normalize(opts)


@fuzz(50)
@given(st.one_of(st.text(max_size=10), st.integers(), st.binary(max_size=4),
                 st.tuples(_OPTS, _OPTS), st.frozensets(_OPTS, max_size=3)))
def test_normalize_options_non_lists(opts):
    _check_normalize(opts)


def _check_normalize(opts):
    try:
        out = compiler.normalize_options(opts)
    except (ValueError, TypeError) as exc:
        assert str(exc)  # the message says what was wrong
        return
    nv, arch, code, incs = out
    assert isinstance(nv, list) and all(isinstance(o, str) and o for o in nv)
    assert arch is None or isinstance(arch, str)
    assert code is None or isinstance(code, str)
    assert isinstance(incs, list) and all(isinstance(d, str) for d in incs)
    # translation is idempotent: the output is accepted again, unchanged
    again = compiler.normalize_options(nv)
    assert again[0] == nv


# ------------------------------------------------------------ argument packing

KERNELS = r"""
#include <cuda_fp16.h>
struct Pair { float x; int y; };
__global__ void mixed(char c, int i, double d, float4 v, short s, float *p, __half h, bool b) { }
__global__ void ints(signed char a, unsigned char b, short c, unsigned short d, int e,
                     unsigned int f, long long g, unsigned long long h, size_t k) { }
__global__ void vecs(int4 a, float2 b, double2 c, uchar4 d, dim3 e) { }
__global__ void structs(Pair p, const Pair *q) { }
__global__ void ptrs(float *a, const int *b) { }
__global__ void noargs() { }
__global__ void floats(float f, double d) { }
"""
_NAMES = ["mixed", "ints", "vecs", "structs", "ptrs", "noargs", "floats"]


@pytest.fixture(scope="module")
def kernels():
    try:
        import pycudac.autoinit  # noqa: F401
    except Exception as exc:  # reported as the skip reason
        pytest.skip(f"no context: {type(exc).__name__}: {exc}")
    from pycudac.compiler import SourceModule
    mod = SourceModule(KERNELS)
    fns = {name: mod.get_function(name) for name in _NAMES}
    assert fns["mixed"].arg_size == 51 and fns["noargs"].arg_size == 0
    return fns


class _Weird:
    """Objects that lie about themselves in the ways conversion code trusts."""

    def __init__(self, kind):
        self.kind = kind
        if kind == "cai-garbage":
            self.__cuda_array_interface__ = {"data": "nope"}
        elif kind == "cai-missing":
            self.__cuda_array_interface__ = {}
        elif kind == "cai-not-dict":
            self.__cuda_array_interface__ = 42
        elif kind == "gpudata-str":
            self.gpudata = "x"
        elif kind == "gpudata-neg":
            self.gpudata = -5

    def __int__(self):
        if self.kind == "int-raises":
            raise ValueError("no int for you")
        return 7

    def __index__(self):
        if self.kind == "int-raises":
            raise ValueError("no index for you")
        return 7

    def __float__(self):
        return 1.5

    def __repr__(self):
        return f"_Weird({self.kind})"


_DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64, np.float16,
           np.float32, np.float64, np.complex64, np.bool_]
_VALUES = st.one_of(
    st.integers(min_value=-2 ** 80, max_value=2 ** 80),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(), st.none(), st.complex_numbers(),
    st.text(max_size=4), st.binary(max_size=40), st.builds(bytearray, st.binary(max_size=40)),
    st.builds(memoryview, st.binary(max_size=24)),
    st.tuples(st.integers(-3, 3)), st.lists(st.integers(-3, 3), max_size=4),
    st.builds(lambda t, v: np.array(v).astype(t), st.sampled_from(_DTYPES),
              st.integers(-200, 200)),                                   # 0-d arrays
    st.builds(lambda t, v: t(v) if t is not np.bool_ else t(v % 2), st.sampled_from(_DTYPES),
              st.integers(0, 100)),                                      # numpy scalars
    st.builds(lambda t, n: np.zeros(n, t), st.sampled_from(_DTYPES), st.integers(0, 20)),
    st.builds(lambda n: np.zeros((n, 2), np.float32)[:, 0], st.integers(0, 5)),  # strided
    st.builds(_Weird, st.sampled_from(["cai-garbage", "cai-missing", "cai-not-dict",
                                       "gpudata-str", "gpudata-neg", "int-raises", "plain"])),
    st.sampled_from([object(), type, print, math.pi, float("nan"), Ellipsis, NotImplemented]),
)


@fuzz(200)
@given(name=st.sampled_from(_NAMES), data=st.data())
def test_pack_random_values(kernels, name, data):
    f = kernels[name]
    nparams = len(f.param_layout)
    count = data.draw(st.one_of(st.just(nparams), st.integers(0, nparams + 2)), label="count")
    values = data.draw(st.lists(_VALUES, min_size=count, max_size=count), label="values")
    try:
        raw = f.pack(*values)
    except (TypeError, ValueError, OverflowError) as exc:
        assert f"'{name}'" in str(exc), str(exc)
        return
    assert isinstance(raw, bytes)
    assert len(raw) == f.arg_size
    assert count == nparams


@fuzz(200)
@given(st.one_of(st.floats(allow_nan=False), st.integers(min_value=-2 ** 1100, max_value=2 ** 1100),
                 st.integers(min_value=-2 ** 54, max_value=2 ** 54),
                 st.builds(np.float32, st.floats(width=32, allow_nan=False)),
                 st.builds(np.float64, st.floats(allow_nan=False))))
def test_pack_floats_match_their_double(kernels, v):
    """A number for float and double parameters packs as its value as a
    double (an int rounded once), then rounded to float32 for a float, or
    is an OverflowError naming the parameter: ints past the double range,
    finite values past float32's."""
    f = kernels["floats"]
    try:
        d = float(v)
    except OverflowError:
        with pytest.raises(OverflowError, match="'floats' argument 1 'f'"):
            f.pack(v, 0.0)
        with pytest.raises(OverflowError, match="'floats' argument 2 'd'"):
            f.pack(0.0, v)
        return
    with np.errstate(over="ignore"):
        x = np.float32(d)
    if math.isinf(x) and math.isfinite(d):
        with pytest.raises(OverflowError, match="'floats' argument 1 'f'"):
            f.pack(v, 0.0)
        assert f.pack(0.0, v)[8:16] == struct.pack("<d", d)
        return
    raw = f.pack(v, v)
    assert raw[:4] == x.tobytes() and raw[8:16] == struct.pack("<d", d), (v, raw.hex())


@fuzz(150)
@given(st.lists(st.integers(min_value=-2 ** 65, max_value=2 ** 65), min_size=9, max_size=9))
def test_pack_integers_range_checked(kernels, values):
    """Every integer either packs to its exact little-endian bytes or is an
    OverflowError naming the parameter."""
    f = kernels["ints"]
    fmt = "<bBhHiIqQQ"
    try:
        raw = f.pack(*values)
    except OverflowError as exc:
        assert "'ints' argument" in str(exc)
        for v, c in zip(values, fmt[1:]):
            try:
                struct.pack("<" + c, v)
            except struct.error:
                return
        raise AssertionError(f"in range but refused: {values}") from exc
    assert len(raw) == f.arg_size
    for v, c, entry in zip(values, fmt[1:], f.param_layout):
        offset = entry[2]
        assert struct.unpack_from("<" + c, raw, offset)[0] == v, (entry, v)
