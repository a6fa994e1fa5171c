"""Launches: parameters written back by the kernel, In/Out/InOut with and
without streams, launch-configuration checks, prepared calls, templates, many
and large parameters, the fast path, and the sticky error after an
out-of-bounds kernel (in a subprocess). The arguments' conversions are
tests/test_launch_args.py's and tests/test_launch_pointers.py's, cooperative launches
tests/test_launch_cooperative.py's."""
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

from _launch_kernels import ECHO, MIXED, source_module  # noqa: E402


@pytest.fixture(scope="module")
def mod(ctx):
    return source_module(MIXED + ECHO)


# ------------------------------------------------------------ launches

@pytest.fixture(scope="module")
def emod(mod):
    return mod  # one module holds MIXED and ECHO


def test_launch_writes_params_back(emod):
    f = emod.get_function("echo")
    assert [e.offset for e in f.param_layout] == [0, 8, 12, 16, 32, 48, 56, 64, 66, 68, 80, 96]
    assert f.arg_size == 100
    out = drv.mem_alloc(112)
    drv.memset_d8(out, 0, 112)
    dt = np.dtype([("x", "<f4"), ("y", "<i4")])
    args = (-5, 123456, -2.5, (1.0, 2.0, 3.0, 4.0), -300, 2 ** 64 - 2, 0.333, True,
            np.array((6.5, -9), dt)[()], (1, 2, 3, 4), 1e-3)
    f(out, *args, block=(1, 1, 1), grid=(1, 1))
    host = np.zeros(112, np.uint8)
    drv.memcpy_dtoh(host, out)
    raw = host.tobytes()
    packed = f.pack(0, *args)
    for e in f.param_layout[1:]:
        assert raw[e.offset:e.offset + e.size] == packed[e.offset:e.offset + e.size], e.name
    assert struct.unpack("<b", raw[8:9]) == (-5,)
    assert struct.unpack("<i", raw[12:16]) == (123456,)
    assert struct.unpack("<d", raw[16:24]) == (-2.5,)
    assert struct.unpack("<4f", raw[32:48]) == (1.0, 2.0, 3.0, 4.0)
    assert struct.unpack("<Q", raw[56:64]) == (2 ** 64 - 2,)
    assert raw[64:66] == np.float16(0.333).tobytes() and raw[66] == 1
    assert struct.unpack("<fi", raw[68:76]) == (6.5, -9)
    assert struct.unpack("<4i", raw[80:96]) == (1, 2, 3, 4)
    assert struct.unpack("<f", raw[96:100]) == (np.float32(1e-3),)
    out.free()


def test_seed_example_string_inout(emod):
    f = emod.get_function("upcase")
    a = np.array(["stuff"], "S5")
    f(drv.InOut(a), 5, block=(32, 1, 1), grid=(1, 1))
    assert a[0] == b"STUFF"
    b = np.array(["hello", "world"], "S5")
    f(drv.InOut(b), 10, block=(5, 1, 1), grid=(2, 1))
    assert list(b) == [b"HELLO", b"WORLD"]


def test_in_out_without_stream(emod):
    f = emod.get_function("scale")
    x = np.arange(100, dtype=np.float32)
    y = np.zeros_like(x)
    f(drv.Out(y), drv.In(x), np.float32(3), np.int32(100), block=(64, 1, 1), grid=(2, 1))
    np.testing.assert_array_equal(y, 3 * x)
    z = x.copy()
    f(drv.InOut(z), drv.In(x), 0.5, 100, block=(64, 1, 1), grid=(2, 1))
    np.testing.assert_array_equal(z, 0.5 * x)


def test_in_out_with_stream(emod):
    f = emod.get_function("scale")
    s = drv.Stream()
    x = np.arange(1000, dtype=np.float32)
    y = np.zeros_like(x)
    f(drv.Out(y), drv.In(x), 2.0, 1000, block=(128, 1, 1), grid=(8, 1), stream=s)
    del x  # the stream keeps the host array alive until it is done
    s.synchronize()
    np.testing.assert_array_equal(y, 2 * np.arange(1000, dtype=np.float32))


def test_in_out_errors(emod):
    f = emod.get_function("scale")
    x = np.arange(10, dtype=np.float32)
    ro = x.copy()
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        f(drv.Out(ro), drv.In(x), 1.0, 10, block=(16, 1, 1))
    with pytest.raises(ValueError, match="contiguous"):
        f(drv.InOut(np.zeros(20, np.float32)[::2]), drv.In(x), 1.0, 10, block=(16, 1, 1))
    with pytest.raises(TypeError, match="In/Out/InOut|drv.In"):
        f(x, drv.In(x), 1.0, 10, block=(16, 1, 1))
    with pytest.raises(TypeError):
        drv.In(3)


def test_argument_handler_of_pycudas_protocol(emod):
    """An ArgumentHandler subclass with a get_device_alloc() of its own
    follows PyCUDA's protocol: the kernel gets int(get_device_alloc()),
    pre_call(stream) runs before the launch and post_call(stream) after it
    (synchronized first without a stream). reikna's cluda Buffer is one and
    never calls ArgumentHandler.__init__: 277 of reikna's tests failed with
    "'Buffer' object has no attribute 'array'"."""
    f = emod.get_function("scale")
    calls = []

    class Buffer(drv.ArgumentHandler):  # reikna.cluda.cuda.Buffer's shape
        def __init__(self, size):
            self._buffer = drv.mem_alloc(size)

        def get_device_alloc(self):
            return self._buffer

    class Staged(drv.ArgumentHandler):  # PyCUDA's base allocates for `array`
        def pre_call(self, stream):
            calls.append(("pre", stream))
            drv.memcpy_htod(self.get_device_alloc(), self.array)

        def post_call(self, stream):
            calls.append(("post", stream))
            drv.memcpy_dtoh(self.array, self.get_device_alloc())

    x = np.arange(100, dtype=np.float32)
    out = Buffer(x.nbytes)
    f(out, drv.In(x), np.float32(3), np.int32(100), block=(64, 1, 1), grid=(2, 1))
    got = np.empty_like(x)
    drv.memcpy_dtoh(got, out.get_device_alloc())
    np.testing.assert_array_equal(got, 3 * x)

    z = x.copy()
    f(Staged(z), drv.In(x), 0.5, 100, block=(64, 1, 1), grid=(2, 1))
    np.testing.assert_array_equal(z, 0.5 * x)
    assert calls == [("pre", None), ("post", None)]
    s = drv.Stream()
    f(Staged(z), drv.In(x), 2.0, 100, block=(64, 1, 1), grid=(2, 1), stream=s)
    s.synchronize()
    np.testing.assert_array_equal(z, 2 * x)
    assert calls[2:] == [("pre", s), ("post", s)]
    assert not drv.In._pycuda_protocol and Buffer._pycuda_protocol and Staged._pycuda_protocol

    class NoMemory(Buffer):
        def get_device_alloc(self):
            return None

    class Bare(drv.ArgumentHandler):
        def __init__(self):
            pass

    with pytest.raises(TypeError, match=r"argument 1 'y' .*NoMemory.get_device_alloc\(\) gave "
                                        r"NoneType"):
        f(NoMemory(4), drv.In(x), 1.0, 10, block=(16, 1, 1))
    with pytest.raises(TypeError, match="argument 1 'y' .*Bare, an ArgumentHandler, has no `array`"):
        f(Bare(), drv.In(x), 1.0, 10, block=(16, 1, 1))


def test_python_objects_never_reach_the_device(emod):
    """Arrays and structured values whose dtype holds Python objects are
    refused (their bytes are object pointers: a kernel writing over them
    would crash the interpreter)."""
    f = emod.get_function("scale")
    x = np.arange(10, dtype=np.float32)
    rec = np.zeros(10, dtype=[("a", "O")])
    for bad in (np.zeros(10, object), rec, memoryview(np.zeros(10, object))):
        for wrap in (drv.In, drv.Out, drv.InOut):
            with pytest.raises(TypeError, match="Python objects"):
                f(wrap(bad), drv.In(x), 1.0, 10, block=(16, 1, 1))
    g = emod.get_function("echo")
    good = (-5, 1, -2.5, (1.0, 2.0, 3.0, 4.0), -3, 2, 0.3, True)
    for bad in (rec[0], rec[:1], np.zeros(1, [("x", "O")])):
        with pytest.raises(TypeError, match="argument 10 'p' .*Python objects"):
            g(drv.mem_alloc(112), *good, bad, (1, 2, 3, 4), 1e-3, block=(1, 1, 1))


@pytest.mark.valgrind
def test_launch_keywords_in_any_order_and_reentrant(emod):
    """Launch keywords are matched once per keyword tuple (a call site's
    constant) and remembered: other orders and sets still land right, an
    unexpected keyword is still refused, and a time_kernel whose __bool__
    launches with other keywords does not disturb the call it belongs to."""
    f = emod.get_function("scale")
    y = drv.mem_alloc(4 * 16)
    x = np.arange(16, dtype=np.float32)

    def run(n, **kw):
        drv.memcpy_htod(y, x)
        f(y, y, 2.0, n, **kw)
        out = np.empty_like(x)
        drv.memcpy_dtoh(out, y)
        return int(np.count_nonzero(out != x))  # elements the kernel doubled

    for _ in range(2):
        assert run(16, block=(16, 1, 1), grid=(1, 1)) == 15
        assert run(16, grid=(1, 1), block=(8, 1, 1)) == 7
        assert run(16, grid=(2, 1), shared=0, block=(8, 1, 1), stream=None) == 15
    with pytest.raises(TypeError, match="unexpected keyword argument 'blok'"):
        f(y, y, 2.0, 16, grid=(1, 1), blok=(16, 1, 1))
    assert run(16, grid=(1, 1), block=(4, 1, 1)) == 3

    class LaunchesOnBool(int):  # time_kernel= takes a bool or an int: this one launches
        def __bool__(self):
            f(y, y, 1.0, 0, grid=(1, 1), shared=0, block=(1, 1, 1))
            return False

    drv.memcpy_htod(y, x)
    f(y, y, 2.0, 16, time_kernel=LaunchesOnBool(), block=(16, 1, 1), grid=(1, 1))
    out = np.empty_like(x)
    drv.memcpy_dtoh(out, y)
    np.testing.assert_array_equal(out, 2 * x)


@pytest.mark.parametrize("kw, exc, match", [
    (dict(block=(0, 1, 1)), ValueError, "block.x = 0"),
    (dict(block=(2048, 1, 1)), ValueError, "block.x"),
    (dict(block=(32, 32, 2)), ValueError, "2048 threads"),
    (dict(block=(1, 1, 65)), ValueError, "block.z"),
    (dict(block=(1, 1, 1), grid=(1, 65536)), ValueError, "grid.y"),
    (dict(block=(1, 1, 1), grid=(1, 1, 70000)), ValueError, "grid.z"),
    (dict(block=(1, 1, 1), grid=(0, 1)), ValueError, "grid.x = 0"),
    (dict(block=(1.0, 1, 1)), TypeError, "block.x must be an int"),
    (dict(block=(1, 1, 1), grid=(1, "2")), TypeError, "grid.y must be an int"),
    (dict(block=(1, 1, 1, 1)), ValueError, "1 to 3"),
    (dict(block=32), TypeError, "tuple"),
    (dict(), ValueError, "block size must be given"),
    (dict(block=(1, 1, 1), shared=-1), ValueError, "shared"),
    (dict(block=(1, 1, 1), shared=1 << 30), ValueError, "shared"),
    (dict(block=(1, 1, 1), stream=3), TypeError, "stream"),
    (dict(block=(1, 1, 1), bogus=1), TypeError, "unexpected keyword argument 'bogus'"),
])
def test_bad_launch_config_leaves_context_usable(emod, kw, exc, match):
    f = emod.get_function("scale")
    y = drv.mem_alloc(4 * 8)
    with pytest.raises(exc, match=match):
        f(y, y, 1.0, 0, **kw)
    # still usable
    x = np.arange(8, dtype=np.float32)
    drv.memcpy_htod(y, x)
    f(y, y, 2.0, 8, block=(8, 1, 1), grid=(1, 1))
    out = np.empty_like(x)
    drv.memcpy_dtoh(out, y)
    np.testing.assert_array_equal(out, 2 * x)
    assert not drv.is_poisoned()


def test_time_kernel_and_dynamic_shared(emod):
    f = emod.get_function("with_shared")
    out = drv.mem_alloc(4 * 64)
    t = f(out, block=(64, 1, 1), shared=64 * 4, time_kernel=True)
    assert isinstance(t, float) and t >= 0
    host = np.empty(64, np.float32)
    drv.memcpy_dtoh(host, out)
    np.testing.assert_array_equal(host, np.arange(63, -1, -1, dtype=np.float32))
    optin = drv.Context.get_device().get_attribute(
        drv.device_attribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    if optin > 64 * 1024:
        # over 48 KiB: the function is opted in automatically
        f(out, block=(64, 1, 1), shared=64 * 1024)
        drv.Context.synchronize()
    with pytest.raises(ValueError, match="exceeds this device's limit"):
        f(out, block=(64, 1, 1), shared=optin + 1)


def _prepared_scale(f, factor, n=64):
    """scale(y, x, factor, n) as a prepared call on x = 0..n-1, checked:
    (x, its device copy, y's device buffer, y)."""
    x = np.arange(n, dtype=np.float32)
    xd, yd = drv.mem_alloc(x.nbytes), drv.mem_alloc(x.nbytes)
    drv.memcpy_htod(xd, x)
    f.prepared_call((1, 1), (n, 1, 1), yd, xd, factor, n)
    y = np.empty_like(x)
    drv.memcpy_dtoh(y, yd)
    np.testing.assert_array_equal(y, factor * x)
    return x, xd, yd, y


def test_prepared_calls(emod):
    f = emod.get_function("scale")
    assert f.prepare("PPfi") is f
    n = 64
    x, xd, yd, y = _prepared_scale(f, 3.0, n)
    s = drv.Stream()
    f.prepared_async_call((1, 1), (n, 1, 1), s, yd, xd, 4.0, n)
    s.synchronize()
    drv.memcpy_dtoh(y, yd)
    np.testing.assert_array_equal(y, 4 * x)
    timer = f.prepared_timed_call((1, 1), (n, 1, 1), yd, xd, 1.0, n)
    assert isinstance(timer(), float) and timer() >= 0
    f.prepare([np.intp, np.intp, np.float32, np.int32])
    with pytest.raises(ValueError, match="argument 3.*declares float"):
        f.prepare("PPii")
    with pytest.raises(ValueError, match="4 bytes"):
        f.prepare("PPdi")
    with pytest.raises(ValueError, match="3 argument types"):
        f.prepare("PPf")
    with pytest.raises(ValueError, match="unknown argument type code"):
        f.prepare("PPfz")


def test_prepare_takes_none_as_a_pointer(emod):
    """In a list, PyCUDA's prepare() makes anything that is not a NumPy type,
    dtype or struct code a numpy.uintp: code built on it (compyle's scan,
    PyOpenCL's scalar_arg_dtypes idiom) writes None for each pointer. None
    was numpy.dtype(None), float64: refused against a declared pointer, and
    on an untyped kernel a garbage launch."""
    f = emod.get_function("scale")
    assert f.prepare([None, None, np.float32, np.int32]) is f
    _prepared_scale(f, 2.0)
    with pytest.raises(ValueError, match="argument 3 .*8 bytes \\(ptr\\) .*4 bytes \\(float\\)"):
        f.prepare([None, None, None, np.int32])


def test_function_attributes(emod):
    f = emod.get_function("scale")
    assert isinstance(f.num_regs, int) and f.num_regs >= 0
    assert f.max_threads_per_block >= 1
    assert f.shared_size_bytes >= 0 and f.local_size_bytes >= 0 and f.const_size_bytes >= 0
    min_grid, block = f.max_potential_block_size()
    assert min_grid >= 1 and 1 <= block <= f.max_threads_per_block
    _, block = f.max_potential_block_size(block_size_limit=64)
    assert block <= 64
    assert f.max_potential_block_size(dynamic_smem=1024)[1] >= 1
    with pytest.raises(ValueError, match="dynamic_smem = 1099511627776 bytes exceeds"):
        f.max_potential_block_size(2 ** 40)
    assert f.get_attribute(0) == f.max_threads_per_block


def test_untyped_function_from_buffer(ctx, emod):
    """module_from_buffer: no source, so parameters are untyped, sized by
    the driver."""
    from pycudac._driver import module_from_buffer
    image = getattr(emod, "cubin", None) or getattr(emod, "image", None)
    if image is None:
        pytest.skip("the module keeps no image")
    m = module_from_buffer(image)
    f = m.get_function("scale")
    if f.layout_note and "unknown" in f.layout_note:
        pytest.skip("driver without cuFuncGetParamInfo")
    assert [e.kind for e in f.param_layout] == ["untyped"] * 4
    assert [e.size for e in f.param_layout] == [8, 8, 4, 4]
    assert f.pack(1, None, np.float32(2), 3) == struct.pack("<QQfi", 1, 0, 2.0, 3)
    with pytest.raises(TypeError, match="ambiguous") as ei:
        f.pack(1, None, 2.0, 3)
    assert str(ei.value).startswith("kernel 'scale' argument 3 (untyped, 4 bytes): a Python "
                                    "float is ambiguous")
    assert "None" not in str(ei.value)
    with pytest.raises(OverflowError):
        f.pack(1, None, np.float32(2), 2 ** 32)
    with pytest.raises(TypeError, match="4 bytes"):
        f.pack(1, None, np.float64(2), 3)
    # a refused prepare() (the last size is wrong) changes nothing
    with pytest.raises(ValueError, match="argument 4"):
        f.prepare("PPfP")
    assert [e.kind for e in f.param_layout] == ["untyped"] * 4
    with pytest.raises(TypeError, match="ambiguous"):
        f.pack(1, None, 2.0, 3)
    f.prepare("PPfi")
    assert f.pack(1, None, 2.0, 3) == struct.pack("<QQfi", 1, 0, 2.0, 3)


# ------------------------------------------------------------- sticky

STICKY = textwrap.dedent(r"""
    import sys
    import pycudac.autoinit
    from pycudac import driver as drv
    from pycudac.compiler import SourceModule
    mod = SourceModule('''
    __global__ void oob_writer(float *p) { p[(1ull << 40) + threadIdx.x] = 1.0f; }
    ''')
    f = mod.get_function("oob_writer")
    a = drv.mem_alloc(4)
    try:
        f(a, block=(1, 1, 1), grid=(1, 1))
        drv.Context.synchronize()
    except drv.Error as exc:
        print("ERR", type(exc).__name__, getattr(exc, "code", None), exc)
    print("POISONED", drv.is_poisoned())
    try:
        drv.mem_alloc(4)
    except drv.Error as exc:
        print("AGAIN", getattr(exc, "code", None))
    sys.exit(0)
""")


def test_out_of_bounds_kernel_sticky_error_then_clean_exit(ctx):
    r = subprocess.run([sys.executable, "-c", STICKY], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "ERR LaunchError 700" in out, out + r.stderr
    assert "oob_writer" in out
    assert "POISONED True" in out
    assert "AGAIN 700" in out
    assert "Segmentation" not in r.stderr and "Traceback" not in r.stderr


# ------------------------------------------------------------ templates

TEMPLATES = r"""
template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
"""


def test_template_kernel_signature_from_name_expression(ctx):
    m = source_module(TEMPLATES, no_extern_c=True,
                      name_expressions=["axpy<float>", "axpy<double>"])
    ff = m.get_function("axpy<float>")
    fd = m.get_function("axpy<double>")
    assert [(e.ctype, e.size) for e in ff.param_layout] == [
        ("float", 4), ("const float *", 8), ("float *", 8), ("int", 4)]
    assert fd.param_layout[0].ctype == "double" and fd.param_layout[0].size == 8
    x = np.arange(10, dtype=np.float64)
    y = np.ones(10)
    fd(0.5, drv.In(x), drv.InOut(y), 10, block=(16, 1, 1))
    np.testing.assert_array_equal(y, 1 + 0.5 * x)


# --------------------------------------------------- many and big params

MANY = r"""
struct Big { int v[1100]; };
__global__ void sixteen(float *out, float *a, float *b, float *c, int n0, int n1, int n2,
                        int n3, float f0, float f1, float f2, float f3, double g0, double g1,
                        float4 v, unsigned long long u)
{
    out[0] = a == 0 ? 1.0f : 0.0f;
    out[1] = n0 + n1 + n2 + n3;
    out[2] = f0 + f1 + f2 + f3;
    out[3] = (float)(g0 * g1);
    out[4] = v.x + v.y + v.z + v.w;
    out[5] = (float)u;
    out[6] = b == c ? 1.0f : 0.0f;
}
__global__ void big(int *out, Big b) { out[0] = b.v[0]; out[1] = b.v[1099]; }
"""


def test_sixteen_mixed_parameters(ctx):
    m = source_module(MANY)
    f = m.get_function("sixteen")
    out = drv.mem_alloc(64)
    f(out, None, out, out, 1, 2, 3, 4, 0.5, 0.25, 0.125, 0.125, 3.0, 0.5,
      (1.0, 2.0, 3.0, 4.0), 77, block=(1, 1, 1))
    host = np.empty(7, np.float32)
    drv.memcpy_dtoh(host, out)
    np.testing.assert_array_equal(host, [1, 10, 1, 1.5, 10, 77, 1])


def test_parameters_over_4k_use_the_heap_path(ctx):
    m = source_module(MANY)
    f = m.get_function("big")
    assert f.arg_size == 8 + 4400
    b = np.zeros(1100, np.int32)
    b[0], b[-1] = 11, 22
    raw = f.pack(0, b)
    assert len(raw) == 4408 and raw[8:] == b.tobytes()
    out = drv.mem_alloc(8)
    f(out, b, block=(1, 1, 1))
    host = np.empty(2, np.int32)
    drv.memcpy_dtoh(host, out)
    assert list(host) == [11, 22]


def test_parameters_over_the_limit(ctx):
    src = "struct Huge { int v[9000]; };\n__global__ void huge(Huge h) { }\n"
    try:
        m = source_module(src)
    except drv.CompileError:
        pytest.skip("the compiler refuses a parameter this large itself")
    with pytest.raises(ValueError, match="bytes of parameters"):
        m.get_function("huge")


# ------------------------------------------------------- the fast path

def test_repeated_plain_launches_take_the_fast_path(emod):
    """After the first call has parsed the block and grid tuples, a launch
    with the same tuples, a Stream or none, no shared memory and arguments
    the fast packer takes never reaches launch_general — on every backend,
    the simulator included (its only coverage was the stub driver)."""
    f = emod.get_function("scale")
    n = 64
    x, y = drv.mem_alloc(4 * n), drv.mem_alloc(4 * n)
    drv.memcpy_htod(x, np.arange(n, dtype=np.float32))
    block, grid = (n, 1, 1), (1, 1)
    s = drv.Stream()
    forms = [lambda: f(y, x, np.float32(2), np.int32(n), block=block, grid=grid),
             lambda: f(y, x, 2.0, n, block=block, grid=grid),
             lambda: f(y, x, 2.0, n, block=block, grid=grid, stream=s)]
    for form in forms:
        form()  # parses the tuples
        before = drv._debug_counters()["general_launches"]
        for _ in range(100):
            form()
        s.synchronize()
        assert drv._debug_counters()["general_launches"] == before
    f.prepare("PPfi")
    f.prepared_call(grid, block, y, x, 3.0, n)
    before = drv._debug_counters()["general_launches"]
    for _ in range(100):
        f.prepared_call(grid, block, y, x, 3.0, n)
    assert drv._debug_counters()["general_launches"] == before
    out = np.empty(n, np.float32)
    drv.memcpy_dtoh(out, y)
    np.testing.assert_array_equal(out, 3 * np.arange(n, dtype=np.float32))
    # and what the fast path does not take still goes to launch_general
    before = drv._debug_counters()["general_launches"]
    f(y, x, 2.0, n, block=block, grid=grid, shared=16)
    f(y, x, 2.0, n, block=(n, 1, 1), grid=(1, 1))  # new tuples: parsed again
    assert drv._debug_counters()["general_launches"] >= before + 1
