"""Function objects' arguments: the parameter layout (the driver's over a
misread declaration, the C ABI fallback), every conversion rule of numbers,
vectors and structs and its errors (through pack()), what each launch sends
(the stub driver), In/Out objects, Function attributes, and fuzzing of the
packer. Pointers are tests/test_launch_pointers.py's, the launches
themselves tests/test_launch.py's."""
import math
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

import _launch_kernels  # noqa: E402
from _launch_kernels import source_module  # noqa: E402

mod = _launch_kernels.mod  # a fixture: pytest finds it in this module


# ------------------------------------------------------------- layout

@pytest.mark.valgrind
def test_param_layout_mixed(mod):
    f = mod.get_function("mixed")
    lay = f.param_layout
    assert [tuple(e) for e in lay] == [
        ("c", "char", 0, 1), ("i", "int", 4, 4), ("d", "double", 8, 8), ("v", "float4", 16, 16),
        ("s", "short", 32, 2), ("p", "float *", 40, 8), ("h", "__half", 48, 2),
        ("b", "bool", 50, 1)]
    assert [e.kind for e in lay] == ["i8", "i32", "f64", "vec", "i16", "ptr", "f16", "bool"]
    assert f.arg_size == 51
    assert f.__name__ == "mixed"
    assert "mixed(char c, int i" in repr(f)
    assert f.layout_note is None


@pytest.mark.valgrind
def test_pack_mixed_exact_bytes(mod):
    f = mod.get_function("mixed")
    v = np.array([1.5, 2.5, -3.0, 4.0], np.float32)
    got = f.pack(-3, 7, 2.25, v, -2, 0x1234, 1.5, True)
    want = (struct.pack("<b3xid", -3, 7, 2.25) + v.tobytes() + struct.pack("<h6xQ", -2, 0x1234)
            + np.float16(1.5).tobytes() + b"\x01")
    assert got == want
    assert len(got) == 51


@pytest.mark.valgrind
def test_pack_no_args(mod):
    f = mod.get_function("noargs")
    assert f.pack() == b""
    assert f.param_layout == []


# ------------------------------------------------------------- integers

INT_KINDS = [("a", "b", -128, 127), ("b", "B", 0, 255), ("c", "h", -2**15, 2**15 - 1),
             ("d", "H", 0, 2**16 - 1), ("e", "i", -2**31, 2**31 - 1), ("f", "I", 0, 2**32 - 1),
             ("g", "q", -2**63, 2**63 - 1), ("h", "Q", 0, 2**64 - 1), ("k", "Q", 0, 2**64 - 1)]


def _ints_args(**over):
    args = [0] * 9
    for k, v in over.items():
        args["abcdefghk".index(k)] = v
    return args


def _ints_bytes(fn, /, **over):
    raw = fn.pack(*_ints_args(**over))
    out = {}
    for e in fn.param_layout:
        out[e.name] = raw[e.offset:e.offset + e.size]
    return out


@pytest.mark.valgrind
@pytest.mark.parametrize("name, code, lo, hi", INT_KINDS)
def test_integer_range_edges(mod, name, code, lo, hi):
    f = mod.get_function("ints")
    for v in (lo, hi, (lo + hi) // 2):
        assert _ints_bytes(f, **{name: v})[name] == struct.pack("<" + code, v)
    for bad in (lo - 1, hi + 1):
        with pytest.raises(OverflowError, match=rf"kernel 'ints' argument \d+ '{name}'"):
            f.pack(*_ints_args(**{name: bad}))


@pytest.mark.valgrind
def test_integers_around_one_digit(mod):
    """Ints of one internal digit (|v| < 2**30) are read without a call;
    the values on both sides of that edge convert alike."""
    f = mod.get_function("ints")
    for v in (2**30 - 1, 2**30, 2**30 + 1, -(2**30 - 1), -(2**30), -(2**30) - 1, 0, -1, 1):
        b = _ints_bytes(f, e=v, g=v, k=abs(v))
        assert b["e"] == struct.pack("<i", v) and b["g"] == struct.pack("<q", v)
        assert b["k"] == struct.pack("<Q", abs(v))
        if v < 0:
            with pytest.raises(OverflowError, match="'f'.*unsigned int"):
                f.pack(*_ints_args(f=v))
            with pytest.raises(OverflowError, match="'a'.*signed char"):
                f.pack(*_ints_args(a=v - 200))
    p = mod.get_function("ptrs")
    assert p.pack(2**30, 2**30 - 1) == struct.pack("<QQ", 2**30, 2**30 - 1)
    with pytest.raises(OverflowError, match="argument 2 'b'"):
        p.pack(0, -(2**30))


@pytest.mark.valgrind
def test_a_device_pointer_for_a_narrow_integer_is_a_type_error(mod):
    """A DeviceAllocation's __index__ is its address: no 1-4 byte integer
    holds one, so that is the wrong argument, not an out-of-range number. A
    64-bit integer parameter takes the address, as PyCUDA passes it."""
    f = mod.get_function("ints")
    a = drv.mem_alloc(16)
    for name in ("a", "e", "f"):
        with pytest.raises(TypeError, match=rf"'{name}'.*device pointer"):
            f.pack(*_ints_args(**{name: a}))
    assert _ints_bytes(f, k=a)["k"] == struct.pack("<Q", int(a))


@pytest.mark.valgrind
def test_integer_numpy_scalars_and_bool(mod):
    f = mod.get_function("ints")
    b = _ints_bytes(f, e=np.int16(-5), f=np.uint64(7), g=np.int8(-1), a=True, h=np.bool_(True))
    assert b["e"] == struct.pack("<i", -5)
    assert b["f"] == struct.pack("<I", 7)
    assert b["g"] == struct.pack("<q", -1)
    assert b["a"] == b"\x01" and b["h"] == struct.pack("<Q", 1)
    with pytest.raises(OverflowError, match="'f'.*unsigned int"):
        f.pack(*_ints_args(f=np.int64(-1)))
    with pytest.raises(OverflowError):
        f.pack(*_ints_args(a=np.int32(200)))


@pytest.mark.parametrize("bad, given", [(1.0, "float"), ("3", "str"), (None, "NoneType"),
                                        (np.float32(1), "numpy.float32"), (1j, "complex"),
                                        ([1], "list")])
@pytest.mark.valgrind
def test_integer_type_errors(mod, bad, given):
    f = mod.get_function("ints")
    with pytest.raises(TypeError) as ei:
        f.pack(*_ints_args(e=bad))
    msg = str(ei.value)
    assert "kernel 'ints'" in msg and "argument 5 'e' (int)" in msg
    assert "expected an int" in msg and given in msg


def test_error_messages_exactly(mod):
    f = mod.get_function("ints")
    with pytest.raises(TypeError) as ei:
        f.pack(*_ints_args(e=1.5))
    assert str(ei.value) == ("kernel 'ints' argument 5 'e' (int): expected an int (Python int "
                             "or numpy integer scalar), got float")
    with pytest.raises(OverflowError) as ei:
        f.pack(*_ints_args(b=-1))
    assert str(ei.value) == ("kernel 'ints' argument 2 'b' (unsigned char): -1 is out of range "
                             "(0..255)")


def test_host_array_to_int_param(mod):
    f = mod.get_function("ints")
    with pytest.raises(TypeError, match="ndarray"):
        f.pack(*_ints_args(e=np.arange(3)))


def test_zero_d_array_passes_as_its_scalar(ctx, mod):
    """A 0-d array is NumPy's other spelling of a scalar, which PyCUDA passes
    by value: reikna's setitem passes numpy.asarray(value, dtype) to its
    kernels (their KERNEL macro hides the declaration: untyped parameters),
    and four of reikna's tests were refused ('a host array cannot be passed
    by value')."""
    f = mod.get_function("ints")
    assert f.pack(*_ints_args(e=np.array(-7, np.int32), h=np.array(2**64 - 1, np.uint64))) == \
        f.pack(*_ints_args(e=np.int32(-7), h=np.uint64(2**64 - 1)))
    with pytest.raises(OverflowError, match="'a'"):
        f.pack(*_ints_args(a=np.array(300)))  # the scalar's own rules, range included
    g = mod.get_function("floats")
    assert g.pack(np.array(1.5, np.float32), np.array(2.5), 1.0) == \
        g.pack(np.float32(1.5), np.float64(2.5), 1.0)
    m = source_module(r"""
        #define KDECL(name) extern "C" __global__ void name
        KDECL(put)(int *out, int v, double d) { out[0] = v; out[1] = (int)d; }
        """, no_extern_c=True)
    k = m.get_function("put")  # a function-like macro hides the declaration
    assert [e.kind for e in k.param_layout] == ["untyped", "untyped", "untyped"]
    out = drv.mem_alloc(8)
    k(out, np.array(7, np.int32), np.array(3.0), block=(1, 1, 1))
    host = np.zeros(2, np.int32)
    drv.memcpy_dtoh(host, out)
    assert host.tolist() == [7, 3]
    with pytest.raises(TypeError, match="argument 2 .*ndarray"):
        k(out, np.array([7], np.int32), 1.0, block=(1, 1, 1))  # 1-d, untyped: no scalar


def test_one_element_array_of_the_parameter_type_is_its_value(mod):
    """PyCUDA passes a host array by value as its bytes, and compyle passes
    every scalar argument as numpy.array([x], dtype): an array of one
    element of exactly the parameter's type is that value (a TypeError
    before); another type or length would shift every later parameter in
    PyCUDA, and is refused here."""
    g = mod.get_function("floats")
    assert g.pack(np.array([1.5], np.float32), np.array([[2.5]]), np.array([0.5], np.float16)) \
        == g.pack(np.float32(1.5), 2.5, np.float16(0.5))
    f = mod.get_function("ints")
    assert f.pack(*_ints_args(e=np.array([-7], np.int32))) == f.pack(*_ints_args(e=-7))
    for bad in (np.array([1.5]),  # float64 for float: 8 bytes in PyCUDA
                np.array([1], np.int32),  # four bytes, but an int's
                np.array([1.5, 2.5], np.float32), np.array([], np.float32),
                np.array([1.5], np.float32).astype(">f4")):
        with pytest.raises(TypeError, match="argument 1 'f' .*ndarray"):
            g.pack(bad, 0.0, 0.0)
    with pytest.raises(TypeError, match="'e' .*ndarray"):
        f.pack(*_ints_args(e=np.array([7], np.int64)))


# --------------------------------------------------------------- floats

@pytest.mark.valgrind
def test_float_conversions(mod):
    f = mod.get_function("floats")
    lay = {e.name: e for e in f.param_layout}

    def part(raw, name):
        e = lay[name]
        return raw[e.offset:e.offset + e.size]

    raw = f.pack(1.1, 2, np.float32(0.5))
    assert part(raw, "f") == np.float32(1.1).tobytes()
    assert part(raw, "d") == struct.pack("<d", 2.0)
    assert part(raw, "h") == np.float16(0.5).tobytes()
    raw = f.pack(np.float64(3.5), np.int32(-4), True)
    assert part(raw, "f") == np.float32(3.5).tobytes()
    assert part(raw, "d") == struct.pack("<d", -4.0)
    assert part(raw, "h") == np.float16(1.0).tobytes()
    with pytest.raises(OverflowError, match="'f'"):
        f.pack(1e39, 0.0, 0.0)
    with pytest.raises(OverflowError, match="float16"):
        f.pack(0.0, 0.0, 70000.0)
    with pytest.raises(OverflowError):
        f.pack(0.0, 10 ** 400, 0.0)
    raw = f.pack(float("inf"), float("nan"), float("-inf"))
    assert part(raw, "f") == np.float32(np.inf).tobytes()
    assert math.isnan(struct.unpack("<d", part(raw, "d"))[0])
    assert part(raw, "h") == np.float16(-np.inf).tobytes()
    with pytest.raises(TypeError, match="argument 1 'f' \\(float\\).*str"):
        f.pack("1.0", 0.0, 0.0)
    with pytest.raises(TypeError, match="complex"):
        f.pack(0.0, 1j, 0.0)


def test_a_pooled_device_address_is_not_a_float(ctx, mod):
    """A GPUArray's gpudata from the default pool is an int (its address):
    given for a float or double parameter it used to pass the address's
    value as a number, a garbage launch (compyle's scan, whose list
    prepare() said None for its pointers, ran into it). Refused now, typed
    or prepared; an integer parameter of pointer width still takes it, as
    PyCUDA passes pointers as integers."""
    from pycudac import gpuarray
    a = gpuarray.zeros(4, np.float32)
    assert isinstance(a.gpudata, int) and not isinstance(a.gpudata, drv.DeviceAllocation)
    g = mod.get_function("floats")
    for args in ((a.gpudata, 0.0, 0.0), (0.0, a.gpudata, 0.0)):
        with pytest.raises(TypeError, match="got a PooledDeviceAllocation \\(a device pointer\\) "
                                            "for a floating-point parameter"):
            g.pack(*args)
    m = source_module(r"""
        #define KDECL(name) extern "C" __global__ void name
        KDECL(put)(double d, float *out) { out[0] = (float)d; }
        """, no_extern_c=True)
    k = m.get_function("put")  # untyped, then typed by prepare()
    k.prepare("dP")
    with pytest.raises(TypeError, match="argument 1 .*PooledDeviceAllocation .*floating-point"):
        k.prepared_call((1, 1), (1, 1, 1), a.gpudata, a.gpudata)
    f = mod.get_function("ints")
    f.pack(*_ints_args(g=a.gpudata))  # long long g: an address as an integer
    with pytest.raises(TypeError, match="'e' .*PooledDeviceAllocation \\(a device pointer\\) "
                                        "for a 4-byte integer parameter"):
        f.pack(*_ints_args(e=a.gpudata))  # as a DeviceAllocation is, not 'out of range'

    class Address(int):  # an int that says it is an address, and fails to say more
        @property
        def freed(self):
            raise RuntimeError("cannot tell")
    with pytest.raises(TypeError, match="argument 1 'f' .*cannot tell"):
        g.pack(Address(4096), 0.0, 0.0)


def test_an_object_array_is_not_unwrapped_forever(mod):
    """A 0-d object array holding itself was unwrapped as a scalar again and
    again: the interpreter crashed (a stack overflow). Object arrays are
    refused as the arrays they are."""
    a = np.empty((), object)
    a[()] = a
    for name, args in (("floats", (a, 0.0, 0.0)), ("ints", _ints_args(e=a))):
        with pytest.raises(TypeError, match="ndarray"):
            mod.get_function(name).pack(*args)


@pytest.mark.valgrind
def test_half_rounds_like_numpy(mod):
    f = mod.get_function("floats")
    e = [x for x in f.param_layout if x.name == "h"][0]
    rng = np.random.default_rng(1)
    values = [0.0, -0.0, 1.0, 65504.0, 65519.99, 6.1e-5, 5.96e-8, 2.98e-8, 2.99e-8, 1e-9,
              1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 2049.0, 2051.0, -0.1, 1 / 3]
    values += list(rng.standard_normal(200) * 10.0 ** rng.integers(-8, 5, 200))
    for v in values:
        raw = f.pack(0.0, 0.0, float(v))
        assert raw[e.offset:e.offset + 2] == np.float16(v).tobytes(), v


@pytest.mark.valgrind
def test_numpy_scalars_of_the_declared_type_pack_their_own_bytes(mod):
    """A NumPy scalar of exactly the declared type (numpy.int32 for int,
    numpy.float32 for float...) and a Python int for float or double take
    the packer's inline path: the bytes must be what the general conversion
    makes, on both sides of the one-digit edge."""
    f = mod.get_function("ints")
    b = _ints_bytes(f, e=np.int32(-2**31), f=np.uint32(2**32 - 1), g=np.int64(-2**63),
                    h=np.uint64(2**64 - 1))
    assert b["e"] == struct.pack("<i", -2**31) and b["f"] == struct.pack("<I", 2**32 - 1)
    assert b["g"] == struct.pack("<q", -2**63) and b["h"] == struct.pack("<Q", 2**64 - 1)
    fl = mod.get_function("floats")
    for v in (0, -7, 2**24 + 1, 2**30 - 1, 2**30 + 1, -(2**30) - 3, 2**53 + 1):
        raw = fl.pack(v, v, 0.0)
        assert raw[:4] == np.float32(v).tobytes(), v
        assert raw[8:16] == struct.pack("<d", float(v)), v
    raw = fl.pack(np.float32(1.1), np.float64(2.2), 0.0)
    assert raw[:4] == np.float32(1.1).tobytes() and raw[8:16] == struct.pack("<d", 2.2)
    nan = np.frombuffer(struct.pack("<I", 0x7fc01234), np.float32)[0]
    assert fl.pack(nan, 0.0, 0.0)[:4] == struct.pack("<I", 0x7fc01234)
    with pytest.raises(OverflowError, match="'f'.*unsigned int"):
        f.pack(*_ints_args(f=np.int32(-1)))
    with pytest.raises(OverflowError, match="'e'"):
        f.pack(*_ints_args(e=np.uint32(2**31)))
    with pytest.raises(OverflowError, match="'f'"):
        fl.pack(np.float64(1e39), 0.0, 0.0)


# -------------------------------------------------------------- bool

@pytest.mark.valgrind
def test_bool_param(mod):
    f = mod.get_function("flags")
    assert f.pack(True, 0)[0:1] == b"\x01"
    assert f.pack(np.bool_(False), 0)[0:1] == b"\x00"
    for bad in (1, 0, 1.0, None, "yes"):
        with pytest.raises(TypeError, match="argument 1 'b' \\(bool\\).*True or False"):
            f.pack(bad, 0)
    # a bool into an int parameter is fine (NumPy's view: bool casts safely to int)
    assert f.pack(False, True)[4:8] == struct.pack("<i", 1)


# ------------------------------------------------------ vectors, structs

@pytest.mark.valgrind
def test_vector_params(mod):
    f = mod.get_function("vecs")
    lay = {e.name: e for e in f.param_layout}
    assert lay["a"].size == 16 and lay["a"].offset % 16 == 0
    assert lay["c"].offset % 16 == 0
    int4 = np.dtype({"names": list("xyzw"), "formats": ["<i4"] * 4})
    a = np.array((1, 2, 3, 4), int4)[()]
    raw = f.pack(a, (0.5, 1.5), np.array([1.0, 2.0]), bytes([1, 2, 3, 4]), (7, 8, 9))
    part = {k: raw[e.offset:e.offset + e.size] for k, e in lay.items()}
    assert struct.unpack("<4i", part["a"]) == (1, 2, 3, 4)  # PyCUDA gets this wrong
    assert struct.unpack("<2f", part["b"]) == (0.5, 1.5)
    assert struct.unpack("<2d", part["c"]) == (1.0, 2.0)
    assert part["d"] == bytes([1, 2, 3, 4])
    assert struct.unpack("<3I", part["e"]) == (7, 8, 9)
    raw2 = f.pack((1, 2, 3, 4), np.array([0.5, 1.5], np.float32), 1 + 2j, (1, 2, 3, 4),
                  np.array([7, 8, 9], np.uint32))
    assert raw2 == raw[:lay["c"].offset] + struct.pack("<2d", 1.0, 2.0) + raw[lay["c"].offset
                                                                               + 16:]
    with pytest.raises(TypeError, match="argument 1 'a' \\(int4\\).*16 bytes.*12"):
        f.pack(np.zeros(3, np.int32), (0, 0), (0, 0), (0, 0, 0, 0), (1, 1, 1))
    with pytest.raises(TypeError, match="4 components"):
        f.pack((1, 2, 3), (0, 0), (0, 0), (0, 0, 0, 0), (1, 1, 1))
    with pytest.raises(TypeError, match="component 0"):
        f.pack(("x", 2, 3, 4), (0, 0), (0, 0), (0, 0, 0, 0), (1, 1, 1))
    with pytest.raises(OverflowError):
        f.pack((1, 2, 3, 2 ** 40), (0, 0), (0, 0), (0, 0, 0, 0), (1, 1, 1))
    with pytest.raises(TypeError, match="float4|float2"):
        f.pack((1, 2, 3, 4), 1.0, (0, 0), (0, 0, 0, 0), (1, 1, 1))


def test_vec_arrays_of_one_dtype_repeatedly(mod):
    """The packer remembers the dtype of the last ndarray accepted for a
    vector or struct parameter and then copies such arrays without a buffer
    export: what the array holds now, and every refusal, must not change."""
    from pycudac.gpuarray import vec
    f = mod.get_function("vecs")
    off_b = {e.name: e for e in f.param_layout}["b"].offset
    rest = ((0, 0), (0, 0, 0, 0), (1, 1, 1))
    # an array of one float2 (a 0-d one, make_float2's, passes as the scalar
    # it holds since 34's fix for reikna, and never reached the remembered
    # dtype: mutation K5 survived until this test gave it arrays)
    v = np.zeros(1, vec.float2)
    v["y"] = 2
    for k in range(3):  # the first call remembers the dtype, the others use it
        v["x"] = k
        raw = f.pack((0, 0, 0, 0), v, *rest)
        assert struct.unpack_from("<2f", raw, off_b) == (k, 2.0)
    assert struct.unpack_from("<2f", f.pack((0, 0, 0, 0), vec.make_float2(5, 6), *rest),
                              off_b) == (5.0, 6.0)
    with pytest.raises(TypeError, match="argument 2 'b' \\(float2\\).*8 bytes.*16"):
        f.pack((0, 0, 0, 0), np.zeros(2, vec.float2), *rest)
    a = np.arange(4, dtype=np.float32)
    assert struct.unpack_from("<2f", f.pack((0, 0, 0, 0), a[:2], *rest), off_b) == (0.0, 1.0)
    with pytest.raises(TypeError, match="argument 2 'b'"):
        f.pack((0, 0, 0, 0), a[::2], *rest)  # same dtype, 8 bytes, not contiguous
    assert struct.unpack_from("<2f", f.pack((0, 0, 0, 0), a[2:], *rest), off_b) == (2.0, 3.0)


@pytest.mark.valgrind
def test_struct_params(mod):
    f = mod.get_function("structs")
    lay = f.param_layout
    assert (lay[0].name, lay[0].ctype, lay[0].size, lay[0].kind) == ("p", "Pair", 8, "struct")
    dt = np.dtype([("x", "<f4"), ("y", "<i4")])
    s = np.array((1.5, -7), dt)[()]
    raw = f.pack(s, None)
    assert raw[:8] == struct.pack("<fi", 1.5, -7)
    assert raw[8:16] == bytes(8)
    assert f.pack(struct.pack("<fi", 2.0, 3), 0)[:8] == struct.pack("<fi", 2.0, 3)
    with pytest.raises(TypeError, match="argument 1 'p' \\(Pair\\).*8 bytes"):
        f.pack(np.float32(1), None)
    with pytest.raises(TypeError, match="'p'"):
        f.pack("abcdefgh", None)
    with pytest.raises(TypeError, match="'p'"):
        f.pack(1.0, None)


@pytest.mark.valgrind
def test_wrong_argument_count(mod):
    f = mod.get_function("ptrs")
    with pytest.raises(TypeError, match=r"kernel 'ptrs' takes 2 arguments \(float \*a, "
                                        r"const int \*b\) but 1 was given"):
        f.pack(None)
    with pytest.raises(TypeError, match="but 3 were given"):
        f(None, None, None, block=(1, 1, 1))


# ------------------------------------------------ what each launch sends

STUB_LAUNCH_CHILD = textwrap.dedent(r"""
    import ctypes, os, sys
    import numpy as np
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac import gpuarray
    from pycudac.compiler import SourceModule

    lib = ctypes.CDLL(os.environ["PYCUDAC_LIBCUDA"])
    lib.stub_last_launch.restype = ctypes.c_size_t
    lib.stub_last_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                     ctypes.c_char_p, ctypes.c_size_t]

    def last():
        dims, st, fn = (ctypes.c_uint * 7)(), ctypes.c_void_p(), ctypes.c_void_p()
        buf = ctypes.create_string_buffer(4096)
        n = lib.stub_last_launch(dims, ctypes.byref(st), ctypes.byref(fn), buf, 4096)
        return list(dims), st.value or 0, fn.value or 0, buf.raw[:n]

    mod = SourceModule('''
    __global__ void pad(char c, int i, double d, float4 v, short s, float *p) {}
    __global__ void dirty(long long a0, long long a1, long long a2, long long a3,
        long long a4, long long a5, long long a6, long long a7, long long a8, long long a9,
        long long a10, long long a11, long long a12, long long a13, long long a14,
        long long a15) {}
    __global__ void k16(float *a, float *b, float *c, float *d,
        int i0, int i1, int i2, int i3, float f0, float f1, float f2, float f3,
        float4 v, double x, unsigned int u, long long ll) {}
    __global__ void nums(unsigned int u, unsigned long long q, float f, double d,
        unsigned char b, long long l) {}
    ''')
    pad, dirty = mod.get_function("pad"), mod.get_function("dirty")
    k16, nums = mod.get_function("k16"), mod.get_function("nums")
    s = drv.Stream()
    ptr = drv.mem_alloc(256)
    arr = gpuarray.empty(16, np.float32)  # a pooled block
    plain = gpuarray.GPUArray((4,), np.float32, allocator=drv.mem_alloc)
    v4 = gpuarray.vec.make_float4(1, 2, 3, 4)
    ones = (1, 1, 1)

    def check(f, args, block=(2, 1, 1), grid=(3, 2), stream=s, **kw):
        for k in range(3):  # the first call parses the tuples; then the fast path
            dirty(*[-1] * 16, block=block, grid=grid or ones, stream=stream)
            if grid is None:
                f(*args, block=block, stream=stream, **kw)
            else:
                f(*args, block=block, grid=grid, stream=stream, **kw)
            dims, st, fn, sent = last()
            want = f.pack(*args)
            assert sent == want, (f.function_name, k, sent.hex(), want.hex())
            g = tuple(grid or ()) + (1,) * (3 - len(grid or ()))
            assert dims == [*g, *block, kw.get("shared", 0)], (dims, g, block)
            assert st == (stream.handle if stream is not None else 0), (st, stream)
            assert fn == f.handle

    check(pad, (1, 2, 3.0, v4, 5, ptr))
    check(pad, (np.int8(-1), np.int32(-7), np.float64(2.5), (1.5, 2, 3, 4), np.int16(3), arr))
    check(pad, (127, 2**31 - 1, 7, v4, -2**15, plain), grid=None, stream=None)
    check(pad, (0, -2**31, -1e300, np.array([5, 6, 7, 8], np.float32), 0, 2**40))
    check(pad, (3, 4, 5.0, v4, 6, arr[4:]), block=(32, 4, 1), grid=(1,))
    check(pad, (3, 4, 5.0, v4, 6, None), shared=64)
    check(k16, (ptr, arr, plain, ptr, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v4, 6.25, 7, -8))
    check(k16, (ptr, ptr, ptr, ptr, np.int32(1), 2**30, -2**30 - 1, 4, np.float32(1.5), 2,
                2**24 + 1, -3, v4, 2**53, np.uint32(7), np.int64(-8)))
    check(nums, (2**32 - 1, 2**64 - 1, 3.4e38, 1e-300, 255, -2**63))
    check(nums, (np.uint32(5), np.uint64(2**63), np.float32(-0.0), np.float64(-2.0),
                 np.uint8(7), np.int64(2**62)))
    for k in range(3):
        dirty(*[-1] * 16, block=ones, grid=ones, stream=s)
        pad.prepared_async_call((4, 1), (8, 1, 1), s, 1, 2, 3.0, v4, 5, ptr)
        dims, st, fn, sent = last()
        assert sent == pad.pack(1, 2, 3.0, v4, 5, ptr) and dims == [4, 1, 1, 8, 1, 1, 0]
        assert st == s.handle
    print("OK")
""")


def test_what_each_launch_sends_through_the_stub_driver(stub_driver):
    """The launch path the CUDA backend runs, in CI: the stub driver records
    each launch's configuration and parameter bytes. Each call is made three
    times (the first parses the block and grid; the others take the fast
    path) after a launch that leaves 128 0xFF bytes on the stack: the bytes sent
    must be pack()'s, padding zeroed, with the block, grid, shared size,
    stream and function given."""
    env = dict(os.environ, PYCUDAC_BACKEND="cuda", PYCUDAC_LIBCUDA=stub_driver,
               STUB_RECORD_LAUNCHES="1", PYCUDAC_DISABLE_CACHE="1")
    r = subprocess.run([sys.executable, "-c", STUB_LAUNCH_CHILD], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("OK"), r.stderr[-3000:]


# -------------------------------------------- C ABI fallback, In/Out objects

@pytest.mark.parametrize("name", ["mixed", "ints", "floats", "vecs", "flags", "ptrs", "scale",
                                  "upcase", "noargs"])
@pytest.mark.valgrind
def test_c_abi_layout_matches_the_driver(mod, name):
    """On drivers without cuFuncGetParamInfo the layout comes from the C ABI
    rules over the declared types; it must match what the driver says."""
    f = mod.get_function(name)
    assert f._abi_layout() == [(e.offset, e.size) for e in f.param_layout]


@pytest.mark.valgrind
def test_c_abi_layout_unknown_for_user_structs(mod):
    f = mod.get_function("structs")
    why = f._abi_layout()
    assert isinstance(why, str) and "Pair" in why and "cuFuncGetParamInfo" in why


@pytest.mark.valgrind
def test_argument_handlers():
    a = np.zeros(3, np.float32)
    assert drv.In(a).array is a and drv.InOut(a).copy_in and drv.InOut(a).copy_out
    assert not drv.Out(a).copy_in and not drv.In(a).copy_out
    assert isinstance(drv.In([1.0, 2.0]).array, np.ndarray)  # array-like: copied, read-only use
    with pytest.raises(TypeError, match="host array"):
        drv.Out([1.0, 2.0])
    buf = bytearray(b"abc")
    assert drv.InOut(buf).array is buf
    with pytest.raises(TypeError, match="host array"):
        drv.In(3)
    assert "float32, shape (3,)" in repr(drv.InOut(a))


def test_bytearray_inout_launch(mod):
    f = mod.get_function("upcase")
    buf = bytearray(b"pycudac!")
    f(drv.InOut(buf), len(buf), block=(8, 1, 1))
    assert buf == b"PYCUDAC!"


# --------------------------------------------------------------- fuzzing

try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:
    _values = st.one_of(
        st.integers(min_value=-2 ** 70, max_value=2 ** 70), st.floats(), st.booleans(),
        st.none(), st.text(max_size=3), st.binary(max_size=20), st.complex_numbers(),
        st.tuples(st.integers(-5, 5), st.integers(-5, 5)),
        st.builds(np.int8, st.integers(-128, 127)), st.builds(np.float32, st.floats(width=32)),
        st.builds(np.uint64, st.integers(0, 2 ** 64 - 1)),
        st.builds(lambda n: np.zeros(n, np.uint8), st.integers(0, 20)))

    @pytest.mark.valgrind
    @settings(max_examples=300, deadline=None)
    @given(st.lists(_values, min_size=8, max_size=8))
    def test_fuzz_pack_is_exact_or_raises_cleanly(mod, values):
        f = mod.get_function("mixed")
        try:
            raw = f.pack(*values)
        except (TypeError, ValueError, OverflowError) as exc:
            assert "kernel 'mixed' argument" in str(exc)
            return
        assert len(raw) == 51


# ------------------------------------- the driver's layout and the declaration

DISAGREE = r"""
#ifndef REAL
#define REAL float
#endif
#ifdef TWO
#define ARGS REAL *a, int n
#else
#define ARGS REAL *a
#endif
__global__ void sized(REAL x, int *out) { out[0] = (int)x; }
__global__ void counted(ARGS) { }
"""


def test_driver_layout_wins_over_a_misread_declaration(ctx):
    """-D options the parser cannot see: the driver's sizes and count win,
    and the parameters it disagrees on are passed by size, with the reason."""
    m = source_module(DISAGREE, options=["-DREAL=double", "-DTWO"])
    f = m.get_function("sized")
    lay = f.param_layout
    assert [(e.size, e.kind) for e in lay] == [(8, "untyped"), (8, "ptr")]
    assert "declared as float (4 bytes)" in f.layout_note and "8 bytes" in f.layout_note
    with pytest.raises(TypeError, match="ambiguous.*declared as float") as ei:
        f.pack(2.5, None)
    assert str(ei.value).startswith("kernel 'sized' argument 1 'x' (untyped, 8 bytes)")
    out = drv.mem_alloc(4)
    f(np.float64(7.0), out, block=(1, 1, 1))
    host = np.zeros(1, np.int32)
    drv.memcpy_dtoh(host, out)
    assert host[0] == 7
    g = m.get_function("counted")
    assert "declares 1 parameter but the driver reports 2" in g.layout_note
    assert [e.kind for e in g.param_layout] == ["untyped", "untyped"]
    assert g.pack(None, 5) == struct.pack("<Qi", 0, 5)


OLD_DRIVER_CHILD = r"""
import struct
import pycudac.autoinit
from pycudac.compiler import SourceModule
import pycudac._driver as _drv
src = %r
m = SourceModule(src, options=["-DTWO"])
g = m.get_function("counted")
print("NOTE", g.layout_note)
print("KINDS", [e.kind for e in g.param_layout])
plain = SourceModule("__global__ void one(float *a) { a[0] = 1.0f; }")
print("PLAIN", len(plain.get_function("one").param_layout))
"""


def test_a_driver_without_a_param_count_still_sees_a_declaration_under_if():
    """A driver with cuFuncGetParamInfo but no cuFuncGetParamCount (the H100's
    driver 580): a declaration under #if may not be the one compiled, so its
    count is not trusted and the driver is asked until it refuses."""
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_WITHOUT="cuFuncGetParamCount")
    r = subprocess.run([sys.executable, "-c", OLD_DRIVER_CHILD % DISAGREE], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "declares 1 parameter but the driver reports 2" in r.stdout, r.stdout
    assert "KINDS ['untyped', 'untyped']" in r.stdout
    assert "PLAIN 1" in r.stdout


def test_sim_without_names_only_optional_entry_points():
    env = dict(os.environ, PYCUDAC_BACKEND="sim", PYCUDAC_SIM_WITHOUT="cuLaunchKernel")
    r = subprocess.run([sys.executable, "-c", "import pycudac.autoinit"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "ValueError: PYCUDAC_SIM_WITHOUT: 'cuLaunchKernel' is not an optional" in r.stderr


def test_function_object_basics(mod):
    import gc
    import weakref
    f = mod.get_function("scale")
    assert gc.is_tracked(f)  # it may sit in a cycle through its Module
    assert weakref.ref(f)() is f
    assert f.module is not None
    with pytest.raises(TypeError):
        type(f)()
    g = mod.get_function("scale")
    assert g.param_layout == f.param_layout


def test_set_attribute_names_a_bad_value(mod):
    """set_attribute(attr, 'x') said "'str' object cannot be interpreted as an
    integer", 1 << 40 "value does not fit in a C int", -1 was the driver's
    bare INVALID_VALUE (found by an adversarial review). A carveout of -1,
    the driver's default, is still taken."""
    f = mod.get_function("noargs")
    attr = drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES
    for value, exc, match in (("x", TypeError, "value must be an int, not str"),
                              (True, TypeError, "value must be an int, not bool"),
                              (1 << 40, OverflowError, "value 1099511627776 does not fit"),
                              (-1, ValueError, "value must be >= 0, got -1")):
        with pytest.raises(exc, match=f"set_attribute: {match}"):
            f.set_attribute(attr, value)
    f.set_attribute(attr, 1024)
    f.set_attribute(9, -1)  # PREFERRED_SHARED_MEMORY_CARVEOUT: the default
