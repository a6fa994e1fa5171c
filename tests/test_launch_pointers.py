"""Pointer arguments of Function objects: every kind of device memory a
pointer parameter takes (allocations, addresses, GPUArrays and their views,
pooled blocks, objects with gpudata, __cuda_array_interface__ or DLPack,
pinned and managed host arrays) and what it refuses (freed memory, host
arrays, a DLPack host tensor), and the element types checked against the
declared pointee (issue 21). The other conversions are
tests/test_launch_args.py's."""
import re
import struct

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

from _arrays import DLPackOnly  # noqa: E402
import _launch_kernels  # noqa: E402
from _launch_kernels import source_module  # noqa: E402

mod = _launch_kernels.mod  # a fixture: pytest finds it in this module


# -------------------------------------------------------------- pointers

class FakeGPUArray:
    def __init__(self, ptr):
        self.gpudata = ptr


class FakeCAI:
    def __init__(self, ptr):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (1,),
                                         "typestr": "<i4", "version": 3}


@pytest.mark.valgrind
def test_pointer_conversions(mod):
    f = mod.get_function("ptrs")
    a = drv.mem_alloc(64)
    try:
        assert f.pack(a, None) == struct.pack("<QQ", int(a), 0)
        assert f.pack(0x1000, np.uintp(0x2000)) == struct.pack("<QQ", 0x1000, 0x2000)
        assert f.pack(2 ** 64 - 1, 0) == struct.pack("<QQ", 2 ** 64 - 1, 0)
        assert f.pack(FakeGPUArray(a), FakeGPUArray(0x40)) == struct.pack("<QQ", int(a), 0x40)
        assert f.pack(FakeGPUArray(None), FakeCAI(0x80)) == struct.pack("<QQ", 0, 0x80)
    finally:
        a.free()
    with pytest.raises(ValueError, match="freed"):
        f.pack(a, None)
    with pytest.raises(OverflowError, match="argument 1 'a'"):
        f.pack(-1, None)
    with pytest.raises(OverflowError):
        f.pack(2 ** 64, None)
    with pytest.raises(TypeError, match="argument 2 'b' \\(const int \\*\\).*In.*to_gpu"):
        f.pack(None, np.zeros(4, np.int32))
    for bad in (1.5, "x", True, [1, 2], object()):
        with pytest.raises(TypeError, match="argument 1 'a' \\(float \\*\\)"):
            f.pack(bad, None)
    with pytest.raises(TypeError, match="host buffer"):
        f.pack(b"abc", None)
    with pytest.raises(TypeError, match="launched"):
        f.pack(drv.In(np.zeros(4, np.float32)), None)


class SlottedArray:
    """A GPUArray-like class with a `gpudata` slot, as pycudac's GPUArray."""
    __slots__ = ("gpudata", "note")

    def __init__(self, gpudata):
        self.gpudata = gpudata


class OtherSlottedArray:
    __slots__ = ("gpudata",)

    def __init__(self, gpudata):
        self.gpudata = gpudata


def test_gpudata_read_from_its_slot_stays_right(mod):
    """The packer learns a slotted class's gpudata slot and reads it
    directly: that must give what obj.gpudata gives, also after the object
    or the class changes."""
    f = mod.get_function("ptrs")
    a, b = drv.mem_alloc(64), drv.mem_alloc(64)
    try:
        x = SlottedArray(a)
        for _ in range(3):  # the first conversion learns the slot
            assert f.pack(x, SlottedArray(b)) == struct.pack("<QQ", int(a), int(b))
        x.gpudata = b
        assert f.pack(x, None) == struct.pack("<QQ", int(b), 0)
        x.gpudata = 0x1000
        assert f.pack(x, SlottedArray(None)) == struct.pack("<QQ", 0x1000, 0)
        for _ in range(3):  # another class in turn with the first: both right
            assert f.pack(OtherSlottedArray(a), SlottedArray(b)) == struct.pack(
                "<QQ", int(a), int(b))
        del x.gpudata
        with pytest.raises(TypeError, match="argument 1 'a'.*SlottedArray"):
            f.pack(x, None)
        x.gpudata = -5
        with pytest.raises(OverflowError, match="argument 1 'a'"):
            f.pack(x, None)
        x.gpudata = a
        assert f.pack(x, None) == struct.pack("<QQ", int(a), 0)
        SlottedArray.gpudata = property(lambda self: 0x2000)  # the class changes
        try:
            assert f.pack(x, SlottedArray.__new__(SlottedArray)) == struct.pack(
                "<QQ", 0x2000, 0x2000)
        finally:
            del SlottedArray.gpudata
    finally:
        a.free()
        b.free()
    y = OtherSlottedArray(a)
    for _ in range(2):
        with pytest.raises(ValueError, match="argument 1 'a'.*freed"):
            f.pack(y, None)


class Address(int):
    """An int subclass that says whether it was freed, as a pooled block does."""


def test_an_int_subclass_that_says_it_was_freed(mod):
    """The packer learns an int subclass whose instances keep `freed` in
    their __dict__ and reads it there: the answer must stay getattr's."""
    f = mod.get_function("ptrs")
    a, b = Address(0x1000), Address(0x2000)
    a.freed = False
    for _ in range(3):  # b has no `freed`: not freed
        assert f.pack(a, b) == struct.pack("<QQ", 0x1000, 0x2000)
    a.freed = True
    with pytest.raises(ValueError, match="argument 1 'a'.*already freed"):
        f.pack(a, None)
    a.freed = 0
    assert f.pack(a, None) == struct.pack("<QQ", 0x1000, 0)
    neg = Address(-5)
    neg.freed = False
    with pytest.raises(OverflowError, match="argument 1 'a'"):
        f.pack(neg, None)
    big = Address(2**64 - 1)
    big.freed = False
    assert f.pack(big, None) == struct.pack("<QQ", 2**64 - 1, 0)
    a.freed = False
    Address.freed = property(lambda self: True)  # the class changes: getattr's answer
    try:
        for _ in range(3):
            with pytest.raises(ValueError, match="already freed"):
                f.pack(a, None)
    finally:
        del Address.freed
    assert f.pack(a, None) == struct.pack("<QQ", 0x1000, 0)


def test_gpuarray_pointers_pooled_plain_and_views(mod):
    from pycudac import gpuarray
    f = mod.get_function("ptrs")
    pooled = gpuarray.arange(16, dtype=np.float32)
    plain = gpuarray.GPUArray((16,), np.int32, allocator=drv.mem_alloc)
    for _ in range(3):
        assert f.pack(pooled, plain) == struct.pack("<QQ", pooled.ptr, plain.ptr)
        assert f.pack(pooled[4:], plain[2:]) == struct.pack("<QQ", pooled.ptr + 16,
                                                           plain.ptr + 8)
    plain.gpudata.free()
    with pytest.raises(ValueError, match="argument 2 'b'.*freed"):
        f.pack(pooled, plain)
    pooled.gpudata.free()
    with pytest.raises(ValueError, match="argument 1 'a'.*freed"):
        f.pack(pooled, None)


# ------------------------------------------------ more pointer sources

def test_pointer_from_gpuarray_pinned_and_managed(mod):
    f = mod.get_function("ptrs")
    gpuarray = pytest.importorskip("pycudac.gpuarray")
    g = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
    assert f.pack(g, g[2:].view(np.int32)) == struct.pack("<QQ", int(g.gpudata),
                                                          int(g.gpudata) + 8)
    pinned = drv.pagelocked_empty(16, np.float32, mem_flags=drv.host_alloc_flags.DEVICEMAP)
    raw = f.pack(pinned, pinned[4:].view(np.int32))
    p0, p1 = struct.unpack("<QQ", raw)
    assert p0 != 0 and p1 == p0 + 16
    managed = drv.managed_empty(16, np.int32)
    assert f.pack(managed[1:].view(np.float32), managed) == struct.pack(
        "<QQ", managed.ctypes.data + 4, managed.ctypes.data)
    # a plain host array (no pinned/managed base) is refused with the hint
    with pytest.raises(TypeError, match="In.*to_gpu"):
        f.pack(np.array(pinned), None)


@pytest.mark.valgrind
def test_pinned_and_managed_arrays_in_a_launch(mod):
    f = mod.get_function("scale")
    x = drv.managed_zeros(64, np.float32)
    x[:] = np.arange(64)
    y = drv.pagelocked_zeros(64, np.float32, mem_flags=drv.host_alloc_flags.DEVICEMAP)
    f(y, x, 2.0, 64, block=(64, 1, 1))
    drv.Context.synchronize()
    np.testing.assert_array_equal(y, 2 * np.arange(64, dtype=np.float32))


@pytest.mark.valgrind
def test_dlpack_host_tensor_is_refused(mod):
    f = mod.get_function("ptrs")
    with pytest.raises(TypeError, match="device type 1"):
        f.pack(DLPackOnly(np.zeros(3, np.float32)), None)


# ------------------------------------------------ pointer element types (issue 21)

TYPED = r"""
struct Pair { int a; float b; };
__global__ void typed(float *x, const unsigned int *u, float4 *v, double2 *c, void *any,
                      char *bytes, unsigned char *ubytes, Pair *pairs, int n) { }
"""


class _CAI:
    def __init__(self, g, typestr=None):
        self.g = g
        cai = dict(g.__cuda_array_interface__)
        if typestr is not None:
            cai["typestr"] = typestr
        self.__cuda_array_interface__ = cai


def test_pointer_element_types_are_checked(ctx):
    """The first mistake PyCUDA's tutorial warns about: a float64 (or int32)
    array for a `float *` was accepted and the kernel read garbage. When the
    argument carries a dtype and the pointee is an arithmetic, vector or
    complex type, a mismatch is a TypeError naming the kernel, the parameter,
    the declared type and the dtype given; void, char, unsigned char and
    struct pointers, raw addresses, and views of the right dtype still go."""
    from pycudac import gpuarray
    f = source_module(TYPED).get_function("typed")
    n = 16
    x = gpuarray.zeros(n, np.float32)
    u = gpuarray.zeros(n, np.uint32)
    v = gpuarray.zeros(n, gpuarray.vec.float4)
    c = gpuarray.zeros(n, np.complex128)
    good = [x, u, v, c, x, x, x, x, np.int32(n)]
    for _ in range(3):  # the fast path and the general one agree
        f.pack(*good)
        f(*good, block=(1, 1, 1))
    # vector and complex pointees also take their components, and complex
    f.pack(x, u, gpuarray.zeros(4 * n, np.float32), gpuarray.zeros(2 * n, np.float64),
           *good[4:])
    f.pack(x, u, v, gpuarray.zeros(n, gpuarray.vec.double2), *good[4:])
    # any memory for void, char, unsigned char and a struct; raw addresses
    d64 = gpuarray.zeros(n, np.float64)
    f.pack(x, u, v, c, d64, d64, d64, d64, np.int32(n))
    f.pack(d64.gpudata, int(u.ptr), v.gpudata, c.ptr, *good[4:])
    wrong = [
        (0, d64, "argument 1 'x' (float *): got a GPUArray of float64, but the kernel reads "
                 "float32"),
        (0, gpuarray.zeros(n, np.int32), "'x' (float *): got a GPUArray of int32"),
        (1, gpuarray.zeros(n, np.int32), "'u' (const unsigned int *): got a GPUArray of int32"),
        (2, d64, "'v' (float4 *): got a GPUArray of float64"),
        (3, gpuarray.zeros(n, np.complex64), "'c' (double2 *): got a GPUArray of complex64"),
        (0, drv.In(np.zeros(n, np.float64)), "'x' (float *): got In of float64"),
        (0, drv.Out(np.zeros(n, np.int32)), "'x' (float *): got Out of int32"),
        (0, _CAI(d64), "got an array (__cuda_array_interface__) of float64"),
        (0, DLPackOnly(d64), "got a DLPack tensor of float64"),
    ]
    for pos, arg, msg in wrong:
        args = list(good)
        args[pos] = arg
        for _ in range(2):
            with pytest.raises(TypeError, match=re.escape(msg)):
                f(*args, block=(1, 1, 1))
    # the reinterpretation made on purpose: a view of the declared dtype
    f(d64.view(np.float32), *good[1:], block=(1, 1, 1))
    f(drv.In(np.zeros(n, np.float64).view(np.float32)), *good[1:], block=(1, 1, 1))
    f(_CAI(d64, typestr="<f4"), *good[1:], block=(1, 1, 1))


def test_elementwise_kernel_checks_pointer_element_types(ctx):
    from pycudac import gpuarray
    from pycudac.elementwise import ElementwiseKernel
    k = ElementwiseKernel("float *y, const float *x", "y[i] = 2 * x[i]", name="twice")
    y = gpuarray.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"'x' \(const float \*\): got a GPUArray of float64"):
        k(y, gpuarray.zeros(8, np.float64))
    with pytest.raises(TypeError, match=r"'y' \(float \*\): got a GPUArray of int32"):
        k(gpuarray.zeros(8, np.int32), y)
    k(y, gpuarray.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(y.get(), 2 * np.arange(8, dtype=np.float32))
