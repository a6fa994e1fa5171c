"""Nothing kept per call: reference counts and allocated blocks around
repeated launches of every argument kind, the launch keywords, prepared
calls, driver calls and array operations (issue 26).

Each check runs the call a few times (caches, memos and the launch's
remembered tuples settle), then N more, and asks two questions:

- did any watched object (the arguments, what they hold, the launch
  configuration) gain references? A leak of one reference per call is +N;
  anything but 0 fails;
- did the interpreter's allocated blocks (`sys.getallocatedblocks()`, after
  collecting garbage) grow by N / 10 or more? A leaked temporary (an int
  from `__index__`, a tuple, a bytes) is one block per call, +N.

The RSS checks of tests/test_faults_load.py allow 8 MiB, which a leak of a few
dozen bytes per call never reaches; these see one object. With
PYTHONMALLOC=malloc (the ASan and valgrind stages) Python counts no blocks:
there only the reference counts are checked. Values are chosen outside
CPython's cache of small ints (-5..256), so that a leaked int from a NumPy
scalar's `__index__` is a new block each time.

The same file runs on the GPU under `make gpu-check`; an asynchronous call
is followed by a synchronize before counting (a stream keeps what it still
needs until it gets there)."""
import gc
import struct
import sys

import numpy as np
import pytest

from _arrays import DLPackOnly

drv = pytest.importorskip("pycudac.driver")

pytestmark = [pytest.mark.leaks, pytest.mark.usefixtures("autoinit")]

N = 1000
WARM = 30
BLOCK_SLACK = N // 10
COUNTS_BLOCKS = sys.getallocatedblocks() > 0  # 0 under PYTHONMALLOC=malloc


def _settle():
    drv.Context.synchronize()
    gc.collect()
    gc.collect()


def _watchable(o):
    """Not the shared singletons and small ints, whose counts move with
    whatever else runs."""
    if o is None or o is True or o is False:
        return False
    return not (type(o) is int and -5 <= o <= 256)


def raises(exc, fn, *args, **kw):
    """fn(*args, **kw) must raise exc (pytest.raises keeps state of its own
    between calls, which the block count would see)."""
    try:
        fn(*args, **kw)
    except exc:
        return
    raise AssertionError(f"{fn} accepted {args} {kw}")


def check_no_leak(body, *watch, n=N, warm=WARM):
    """Runs body() warm + n times; fails when a watched object gained a
    reference or the allocated blocks grew by BLOCK_SLACK or more."""
    watch = [o for o in watch if _watchable(o)]
    for _ in range(warm):
        body()
    _settle()
    refs0 = [sys.getrefcount(o) for o in watch]
    blocks0 = sys.getallocatedblocks()
    for _ in range(n):
        body()
    _settle()
    grew = sys.getallocatedblocks() - blocks0
    refs1 = [sys.getrefcount(o) for o in watch]  # counted as refs0 was
    gained = [(type(o).__name__, r1 - r0) for o, r0, r1 in zip(watch, refs0, refs1)]
    assert all(d == 0 for _, d in gained), f"references gained over {n} calls: {gained}"
    if COUNTS_BLOCKS and grew >= BLOCK_SLACK:
        # The interpreter's own caches can take thousands of calls to settle
        # (an exception's path on Python 3.12 grew 43 blocks over its first
        # 25,000 raises, then none): a leak grows again in a second round.
        first = grew
        blocks0 = sys.getallocatedblocks()
        for _ in range(n):
            body()
        _settle()
        grew = sys.getallocatedblocks() - blocks0
        assert grew < BLOCK_SLACK, (f"{grew} more allocated blocks after {n} calls "
                                    f"(and {first} in the {n} before)")
    return grew


SRC = r"""
#include <cuda_fp16.h>
struct Pair { float x; int y; };
__global__ void ptr1(float *p) { if (p && threadIdx.x == 0) p[0] += 1.0f; }
__global__ void ptr2(float *p, const float *q) { }
__global__ void ints(signed char a, unsigned char b, short c, unsigned short d, int e,
                     unsigned int f, long long g, unsigned long long h, size_t k) { }
__global__ void floats(float f, double d, __half h) { }
__global__ void flags(bool b) { }
__global__ void vecs(float4 a, int2 b, double2 c, float2 d) { }
__global__ void structs(Pair p) { }
__global__ void handles(cudaTextureObject_t t, cudaSurfaceObject_t s) { }
__global__ void scale(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
__global__ void with_shared(float *out)
{
    /* static shared memory: dynamic shared= is allowed and left unused */
    __shared__ float buf[64];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def mod():
    from pycudac.compiler import SourceModule
    return SourceModule(SRC)


@pytest.fixture(scope="module")
def ga():
    from pycudac import gpuarray
    return gpuarray


class CAI:
    """Only __cuda_array_interface__ (of a GPUArray it keeps)."""

    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


class CAIProperty:
    """__cuda_array_interface__ as GPUArray and CuPy have it: a property that
    makes a new dict on every read (a leaked one is a block per call)."""

    def __init__(self, a):
        self.a = a

    @property
    def __cuda_array_interface__(self):
        return self.a.__cuda_array_interface__


class GpudataAttr:
    """GPUArray-like by an ordinary attribute (not a slot)."""

    def __init__(self, gpudata):
        self.gpudata = gpudata


# ------------------------------------------------------------- pointers

POINTER_KINDS = ["DeviceAllocation", "GPUArray", "GPUArray view", "GPUArray view of a view",
                 "plain-allocator GPUArray", "plain-allocator view", "int address",
                 "np.uintp address", "None", "__cuda_array_interface__",
                 "__cuda_array_interface__ property", "__dlpack__",
                 "gpudata attribute", "gpudata attribute (int)", "mapped pinned array",
                 "managed array", "In", "Out", "InOut", "InOut on a stream"]


@pytest.mark.parametrize("kind", POINTER_KINDS)
def test_pointer_arguments(mod, ga, kind):
    f = mod.get_function("ptr1")
    a = ga.to_gpu(np.zeros(64, np.float32))
    host = np.zeros(64, np.float32)
    stream = None
    if kind == "DeviceAllocation":
        arg = drv.mem_alloc(256)
        drv.memset_d32(arg, 0, 64)
    elif kind == "GPUArray":
        arg = a
    elif kind == "GPUArray view":
        arg = a[4:]
    elif kind == "GPUArray view of a view":
        arg = a[4:][2:]
    elif kind == "plain-allocator GPUArray":
        arg = ga.zeros(64, np.float32, allocator=drv.mem_alloc)
    elif kind == "plain-allocator view":
        arg = ga.zeros(64, np.float32, allocator=drv.mem_alloc)[8:]
    elif kind == "int address":
        arg = int(a.gpudata) + 4 * 3  # not a small int: a block if one leaked
    elif kind == "np.uintp address":
        arg = np.uintp(int(a.gpudata))
    elif kind == "None":
        arg = None
    elif kind == "__cuda_array_interface__":
        arg = CAI(a)
    elif kind == "__cuda_array_interface__ property":
        arg = CAIProperty(a)
    elif kind == "__dlpack__":
        arg = DLPackOnly(a)
    elif kind == "gpudata attribute":
        arg = GpudataAttr(a.gpudata)
    elif kind == "gpudata attribute (int)":
        arg = GpudataAttr(int(a.gpudata) + 8)
    elif kind == "mapped pinned array":
        arg = drv.pagelocked_zeros(64, np.float32, mem_flags=drv.host_alloc_flags.DEVICEMAP)
    elif kind == "managed array":
        arg = drv.managed_zeros(64, np.float32)
    elif kind in ("In", "Out", "InOut"):
        arg = getattr(drv, kind)(host)
    elif kind == "InOut on a stream":
        arg = drv.InOut(host)
        stream = drv.Stream()
    watch = [arg, host, a, a.gpudata]
    gpudata = getattr(arg, "gpudata", None)
    if gpudata is not None:
        watch.append(gpudata)  # a view's _ViewPointer: what the converter reads
    if type(arg) is CAI:
        watch.append(arg.__cuda_array_interface__)  # the dict the converter reads

    def body():
        f(arg, block=(32, 1, 1), grid=(1, 1), stream=stream)

    check_no_leak(body, *watch)


def test_two_pointer_arguments_of_every_pair_of_kinds(mod, ga):
    """The converters one after the other (the first's state must not leak
    into the second's)."""
    f = mod.get_function("ptr2")
    a = ga.to_gpu(np.zeros(64, np.float32))
    kinds = [a, a[2:], drv.mem_alloc(64), CAI(a), CAIProperty(a), DLPackOnly(a),
             GpudataAttr(a.gpudata), None, int(a.gpudata) + 4]
    for x in kinds:
        for y in kinds:
            check_no_leak(lambda: f(x, y, block=(1, 1, 1)), x, y, n=200, warm=5)


# ------------------------------------------------------------- integers

INT_PARAMS = [(-128, 127), (0, 255), (-32768, 32767), (0, 65535), (-2**31, 2**31 - 1),
              (0, 2**32 - 1), (-2**63, 2**63 - 1), (0, 2**64 - 1), (0, 2**64 - 1)]
INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64, np.intp, np.uintp, np.longlong, np.ulonglong]


def _int_value(dt, lo_hi):
    """A value of dtype dt in the parameter's range, outside the small ints
    where it can be."""
    info = np.iinfo(dt)
    return min(info.max, lo_hi[1], 1000)


@pytest.mark.parametrize("dt", INT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpy_integer_scalars_for_every_integer_width(mod, dt):
    """A NumPy integer of each width for each integer parameter: those of
    another type than the declared one go through __index__ (a new int each
    call), which must be released."""
    f = mod.get_function("ints")
    args = tuple(dt(_int_value(dt, r)) for r in INT_PARAMS)
    values = [int(v) for v in args]
    check_no_leak(lambda: f(*args, block=(1, 1, 1)), *args, *values)


@pytest.mark.parametrize("sign", [1, -1])
def test_python_ints_small_large_and_past_a_digit(mod, sign):
    f = mod.get_function("ints")
    # one digit, two digits (> 2**30), near the 64-bit ends
    args = (sign * 100, 200, sign * 30000, 60000, sign * (2**31 - 1), 2**32 - 1,
            sign * (2**62 + 12345), 2**64 - 2, 2**40 + 7)
    check_no_leak(lambda: f(*args, block=(1, 1, 1)), *args)


def test_integer_refusals_release_what_they_made(mod):
    """OverflowError/TypeError paths: the shown value and the message are
    the only things made, and they go with the exception."""
    f = mod.get_function("ints")
    good = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    big = 2**70
    npbig = np.int64(2**40)
    cases = []
    for i, bad in enumerate([big, -big, npbig, 2.5, "x", np.float32(1)]):
        args = list(good)
        args[i % 4] = bad
        cases.append(tuple(args))

    def body():
        for args in cases:
            raises((OverflowError, TypeError), f, *args, block=(1, 1, 1))

    check_no_leak(body, big, npbig)


# ------------------------------------------------------- floats, bools

FLOAT_ARGS = {
    "python floats": (1.5, 2.5, 0.25),
    "python ints": (3000, 4000, 7),
    "float16/32/64": (np.float32(1.5), np.float64(2.5), np.float16(0.5)),
    "float64 for all": (np.float64(1.5), np.float64(2.5), np.float64(0.5)),
    "float32 for all": (np.float32(1.5), np.float32(2.5), np.float32(0.5)),
    "numpy ints": (np.int32(3000), np.int64(4000), np.int16(1000)),
    "numpy bools": (np.bool_(True), np.bool_(False), np.bool_(True)),
}


@pytest.mark.parametrize("case", list(FLOAT_ARGS))
def test_float_arguments(mod, case):
    f = mod.get_function("floats")
    args = FLOAT_ARGS[case]
    check_no_leak(lambda: f(*args, block=(1, 1, 1)), *args)


@pytest.mark.parametrize("value", [True, False, np.bool_(True), np.bool_(False)],
                         ids=["True", "False", "np.True_", "np.False_"])
def test_bool_arguments(mod, value):
    f = mod.get_function("flags")
    check_no_leak(lambda: f(value, block=(1, 1, 1)), value)


# ---------------------------------------------------- vectors, structs

def _vec_cases(ga):
    vec = ga.vec
    return {
        "tuples": ((1.0, 2.0, 3.0, 4.0), (1000, 2000), (1.5, 2.5), (0.5, 1.5)),
        "lists": ([1.0, 2.0, 3.0, 4.0], [1000, 2000], [1.5, 2.5], [0.5, 1.5]),
        "make_*": (vec.make_float4(1, 2, 3, 4), vec.make_int2(1000, 2000),
                   vec.make_double2(1.5, 2.5), vec.make_float2(0.5, 1.5)),
        "ndarrays": (np.arange(4, dtype=np.float32), np.array([1000, 2000], np.int32),
                     np.array([1.5, 2.5]), np.array([0.5, 1.5], np.float32)),
        "bytes": (struct.pack("<4f", 1, 2, 3, 4), struct.pack("<2i", 1000, 2000),
                  struct.pack("<2d", 1.5, 2.5), struct.pack("<2f", 0.5, 1.5)),
        "complex": ((1.0, 2.0, 3.0, 4.0), (1000, 2000), complex(1.5, 2.5), complex(0.5, 1.5)),
        "numpy ints in tuples": ((np.float32(1), np.float64(2), 3, 4.0),
                                 (np.int16(1000), np.int64(2000)), (1.5, 2.5), (0.5, 1.5)),
    }


@pytest.mark.parametrize("case", ["tuples", "lists", "make_*", "ndarrays", "bytes", "complex",
                                  "numpy ints in tuples"])
def test_vector_arguments(mod, ga, case):
    f = mod.get_function("vecs")
    args = _vec_cases(ga)[case]
    inner = [x for a in args if isinstance(a, (tuple, list)) for x in a]
    check_no_leak(lambda: f(*args, block=(1, 1, 1)), *args, *inner)


def test_struct_arguments(mod):
    f = mod.get_function("structs")
    dt = np.dtype([("x", "<f4"), ("y", "<i4")])
    rec = np.array((1.5, -7), dt)
    for arg in (rec[()], rec, struct.pack("<fi", 2.0, 3), bytearray(8), memoryview(b"12345678")):
        check_no_leak(lambda: f(arg, block=(1, 1, 1)), arg, n=300, warm=10)


def test_texture_and_surface_objects(mod):
    """Passed to a kernel, refused there, and made and dropped."""
    f = mod.get_function("handles")
    arr = drv.np_to_array(np.zeros((4, 4), np.float32), allowSurfaceBind=True)
    tex, surf = drv.TextureObject(arr), drv.SurfaceObject(arr)
    check_no_leak(lambda: f(tex, surf, block=(1, 1, 1)), tex, surf, arr)
    check_no_leak(lambda: raises(TypeError, f, surf, tex, block=(1, 1, 1)), tex, surf,
                  n=300, warm=10)
    check_no_leak(lambda: (drv.TextureObject(arr), drv.SurfaceObject(arr)), arr, n=300, warm=10)
    check_no_leak(lambda: drv.np_to_array(np.ones(64, np.float32)).get(), n=300, warm=10)


def test_by_value_refusals_release_what_they_made(mod):
    f = mod.get_function("vecs")
    wrong = [((1, 2, 3), (1, 2), (1.0, 2.0), (1.0, 2.0)),          # 3 components
             (b"short", (1, 2), (1.0, 2.0), (1.0, 2.0)),            # wrong size
             (np.zeros(3, np.float32), (1, 2), (1.0, 2.0), (1.0, 2.0)),
             ((1.0, 2.0, 3.0, "x"), (1, 2), (1.0, 2.0), (1.0, 2.0)),
             ((1.0, 2.0, 3.0, 4.0), (1, 2**40), (1.0, 2.0), (1.0, 2.0))]

    def body():
        for args in wrong:
            raises((TypeError, OverflowError), f, *args, block=(1, 1, 1))

    check_no_leak(body, *[a for args in wrong for a in args])


# ----------------------------------------------- the launch keywords

def test_every_launch_keyword(mod):
    f = mod.get_function("with_shared")
    out = drv.mem_alloc(4 * 64)
    block, grid = (64, 1, 1), (1, 1)
    shared = 64 * 4 + 1000  # not a small int
    stream = drv.Stream()
    forms = [
        lambda: f(out, block=block),
        lambda: f(out, block=block, grid=grid),
        lambda: f(out, grid=grid, block=block, shared=shared),
        lambda: f(out, block=block, grid=grid, stream=stream),
        lambda: f(out, block=block, stream=None),
        lambda: f(out, block=block, shared=shared, stream=stream, grid=grid),
        lambda: f(out, block=block, texrefs=[]),
        lambda: f(out, block=[64, 1, 1], grid=[1, 1]),       # lists: parsed every call
        lambda: f(out, block=(64,), grid=(1,)),               # new tuples every call
        lambda: f(out, **{"block": block, "grid": grid}),     # a new kwnames tuple
    ]
    for form in forms:
        check_no_leak(form, out, block, grid, shared, stream, n=300, warm=10)


def test_time_kernel(mod):
    f = mod.get_function("with_shared")
    out = drv.mem_alloc(4 * 64)
    block = (64, 1, 1)

    def body():
        t = f(out, block=block, shared=256, time_kernel=True)
        assert t >= 0

    check_no_leak(body, out, block)


def test_launch_refusals_release_what_they_made(mod):
    f = mod.get_function("ptr1")
    a = drv.mem_alloc(64)
    bads = [dict(block=(0, 1, 1)), dict(block=(2**40, 1, 1)), dict(block="x"),
            dict(block=(32, 1, 1), grid=(0,)), dict(block=(32, 1, 1), shared=-1),
            dict(block=(32, 1, 1), stream="s"), dict(block=(32, 1, 1), bogus=1),
            dict(block=(32, 1, 1), texrefs=[1])]

    host = np.zeros(4, np.float32)

    def body():
        for kw in bads:
            raises((TypeError, ValueError, OverflowError), f, a, **kw)
        raises(TypeError, f, a, a, block=(1, 1, 1))        # wrong count
        raises(TypeError, f, host, block=(1, 1, 1))        # a host array

    check_no_leak(body, a, host)


def test_prepared_calls(mod):
    f = mod.get_function("scale")
    f.prepare("PPfi")
    n = 64
    x, y = drv.mem_alloc(4 * n), drv.mem_alloc(4 * n)
    grid, block = (1, 1), (n, 1, 1)
    stream = drv.Stream()
    a = 1000.5
    forms = [
        lambda: f.prepared_call(grid, block, y, x, a, n),
        lambda: f.prepared_call(grid, block, y, x, a, n, shared_size=1000),
        lambda: f.prepared_async_call(grid, block, stream, y, x, a, n),
        lambda: f.prepared_timed_call(grid, block, y, x, a, n)(),
    ]
    for form in forms:
        check_no_leak(form, x, y, grid, block, stream, a, n=300, warm=10)
    g = mod.get_function("with_shared")
    g.prepare("P", block=(64, 1, 1))
    check_no_leak(lambda: g.prepared_call((1, 1), x, shared_size=256), x)
    check_no_leak(lambda: g(x, shared=256), x)   # prepare()'s block in a plain call


def test_pack(mod):
    f = mod.get_function("ints")
    args = (np.int8(100), np.uint8(200), np.int16(1000), np.uint16(1000), np.int64(1000),
            np.uint32(1000), np.int32(1000), np.uint64(1000), np.int16(1000))

    def body():
        assert len(f.pack(*args)) == f.arg_size

    check_no_leak(body, *args)


# ------------------------------------------------------ driver calls

def test_copies_and_memsets():
    a = drv.mem_alloc(4096)
    b = drv.mem_alloc(4096)
    host = np.arange(1024, dtype=np.float32)
    out = np.empty_like(host)
    pinned = drv.pagelocked_empty(1024, np.float32)
    stream = drv.Stream()
    forms = [
        lambda: drv.memcpy_htod(a, host),
        lambda: drv.memcpy_dtoh(out, a),
        lambda: drv.memcpy_dtod(b, a, 4096),
        lambda: drv.memcpy_htod_async(a, pinned, stream),
        lambda: drv.memcpy_dtoh_async(pinned, a, stream),
        lambda: drv.memcpy_dtod_async(b, a, 4096, stream),
        lambda: drv.memset_d32(a, 1000, 1024),
        lambda: drv.memset_d8(b, 7, 4096),
        lambda: drv.memcpy_htod(a, bytearray(4096)),
        lambda: drv.memcpy_htod(a, memoryview(host)),
    ]
    for form in forms:
        check_no_leak(form, a, b, host, out, pinned, stream, n=300, warm=10)


def test_allocations_streams_events():
    forms = [
        lambda: drv.mem_alloc(1000).free(),
        lambda: drv.mem_alloc(1000),
        lambda: drv.pagelocked_empty(100, np.float32),
        lambda: drv.Stream().synchronize(),
        lambda: drv.Event().record().synchronize(),
        lambda: drv.mem_get_info(),
        lambda: drv.Context.get_current(),
        lambda: drv.Context.get_device().name(),
    ]
    for form in forms:
        check_no_leak(form, n=300, warm=10)


# --------------------------------------------------- array operations

def test_gpuarray_operations(ga):
    from pycudac import cumath
    x = ga.to_gpu(np.arange(1, 1001, dtype=np.float32))
    y = ga.to_gpu(np.full(1000, 2, np.float32))
    h = np.empty(1000, np.float32)
    ops = {
        "x + y": lambda: x + y,
        "2 * x": lambda: 2 * x,
        "x * 1000.5": lambda: x * 1000.5,
        "x / y - 1": lambda: x / y - 1,
        "x += 0": lambda: x.__iadd__(0),
        "x < y": lambda: x < y,
        "-x": lambda: -x,
        "abs": lambda: abs(x),
        "x ** 2": lambda: x ** 2,
        "fill": lambda: y.fill(2.0),
        "sum": lambda: ga.sum(x).get(),
        "max": lambda: ga.max(x).get(),
        "min": lambda: x.min().get(),
        "dot": lambda: ga.dot(x, y).get(),
        "get": lambda: x.get(),
        "get(ary=)": lambda: x.get(ary=h),
        "set": lambda: y.set(h),
        "to_gpu": lambda: ga.to_gpu(h),
        "zeros_like": lambda: ga.zeros_like(x),
        "astype": lambda: x.astype(np.float64),
        "copy": lambda: x.copy(),
        "view slice": lambda: x[10:20],
        "getitem scalar": lambda: x[5].get(),
        "setitem slice": lambda: x.__setitem__(slice(0, 10), 1.0),
        "reshape": lambda: x.reshape(10, 100),
        "transpose copy": lambda: x.reshape(10, 100).T.copy(),
        "cumath.exp": lambda: cumath.exp(x * 0),
        "arange": lambda: ga.arange(1000, dtype=np.float32),
        "__cuda_array_interface__": lambda: x.__cuda_array_interface__,
        "dlpack round trip": lambda: ga.from_dlpack(DLPackOnly(x)),
        "asarray(CAI)": lambda: ga.asarray(CAI(x)),
    }
    for name, op in ops.items():
        try:
            check_no_leak(op, x, y, h, n=200, warm=10)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


def test_kernels_made_by_the_generators(ga):
    from pycudac.elementwise import ElementwiseKernel
    from pycudac.reduction import ReductionKernel
    from pycudac.scan import InclusiveScanKernel
    x = ga.to_gpu(np.arange(1000, dtype=np.float32))
    y = ga.empty_like(x)
    lin = ElementwiseKernel("float a, float *x, float *y", "y[i] = a * x[i]", "lin")
    red = ReductionKernel(np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]",
                          arguments="float *x")
    scan = InclusiveScanKernel(np.float32, "a+b")
    a = 1000.5
    for name, op in {"elementwise": lambda: lin(a, x, y),
                     "elementwise range": lambda: lin(a, x, y, range=slice(0, 500)),
                     "reduction": lambda: red(x).get(),
                     "scan": lambda: scan(y)}.items():
        try:
            check_no_leak(op, x, y, a, n=200, warm=10)
        except AssertionError as e:
            raise AssertionError(f"{name}: {e}") from None


# ------------------------------------- the check itself sees a leak

def test_the_check_fails_on_one_reference_per_call():
    """check_no_leak's own test: one reference, or one block, per call."""
    kept = []
    x = object()
    with pytest.raises(AssertionError, match="references gained"):
        check_no_leak(lambda: kept.append(x), x, n=200, warm=2)
    kept.clear()
    if COUNTS_BLOCKS:
        with pytest.raises(AssertionError, match="allocated blocks"):
            check_no_leak(lambda: kept.append(object()), n=N, warm=2)
    kept.clear()


def test_the_check_forgives_a_cache_that_settles():
    """A cache that fills once (150 entries over the first 150 calls) is not a
    leak: the second round grows nothing."""
    if not COUNTS_BLOCKS:
        pytest.skip("no block counts under PYTHONMALLOC=malloc")
    cache = {}

    def body():
        if len(cache) < 150:
            cache[len(cache)] = object()

    assert check_no_leak(body, n=N, warm=0) < BLOCK_SLACK
