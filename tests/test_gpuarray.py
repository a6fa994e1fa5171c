"""GPUArray: construction, transfers, copies and casts, views, reshapes and
indexing by slices, real and imaginary parts, and bad input. The functions
of pycudac.gpuarray (where, concatenate, take, logical_*, subset_*,
multi_*) are test_gpuarray_functions.py's, interop and memory pools
test_gpuarray_interop.py's. Checked against NumPy; runs on the simulator
(CI) and the GPU."""
import gc

import numpy as np
import pytest

from pycudac._gpuarray import layout as _layout

from _arrays import NUMPY_VERSION, OUT_OF_RANGE, sample

ALL_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
              np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]


pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


# ------------------------------------------------------------------ basics

def test_attributes(ga):
    a = ga.GPUArray((3, 4), np.float32)
    assert a.shape == (3, 4) and a.dtype == np.float32
    assert a.size == 12 and a.nbytes == 48 and a.ndim == 2 and a.itemsize == 4
    assert a.strides == (16, 4) and len(a) == 3
    assert a.flags.c_contiguous and not a.flags.f_contiguous
    assert int(a.gpudata) == a.ptr != 0
    f = ga.GPUArray((3, 4), np.float64, order="F")
    assert f.strides == (8, 24) and f.flags.f_contiguous and not f.flags.c_contiguous
    assert ga.GPUArray(5, np.int8).shape == (5,)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_roundtrip_every_dtype(ga, dtype):
    x = sample(dtype)
    a = ga.to_gpu(x)
    assert a.dtype == x.dtype and a.shape == x.shape
    np.testing.assert_array_equal(a.get(), x)
    assert repr(a).startswith("GPUArray(")


def test_roundtrip_vec_and_fortran(ga):
    f4 = ga.vec.float4
    assert f4.itemsize == 16 and f4.names == ("x", "y", "z", "w")
    x = np.zeros(6, f4)
    x["y"] = np.arange(6)
    a = ga.to_gpu(x)
    assert a.dtype == f4
    np.testing.assert_array_equal(a.get(), x)
    v = ga.vec.make_float4(1, 2, 3, 4)
    assert v["w"] == 4
    xf = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    af = ga.to_gpu(xf)
    assert af.flags.f_contiguous
    np.testing.assert_array_equal(af.get(), xf)


def test_empty_and_zero_d(ga):
    e = ga.to_gpu(np.zeros((0, 3), np.float32))
    assert e.size == 0 and e.get().shape == (0, 3)
    assert (e + 1).shape == (0, 3)
    assert e.sum().get() == 0
    z = ga.to_gpu(np.array(3.5))
    assert z.shape == () and z.get() == 3.5 and float(z) == 3.5
    np.testing.assert_array_equal((z * 2).get(), np.array(7.0))


def test_constructors(ga):
    np.testing.assert_array_equal(ga.zeros((2, 3), np.int32).get(), np.zeros((2, 3), np.int32))
    np.testing.assert_array_equal(ga.ones(4, np.float32).get(), np.ones(4, np.float32))
    np.testing.assert_array_equal(ga.arange(2, 11, 3, dtype=np.int64).get(),
                                  np.arange(2, 11, 3, dtype=np.int64))
    a = ga.to_gpu(np.ones((2, 2), np.float64))
    assert ga.empty_like(a).shape == (2, 2)
    np.testing.assert_array_equal(ga.zeros_like(a).get(), np.zeros((2, 2)))
    np.testing.assert_array_equal(ga.ones_like(a, dtype=np.int8).get(), np.ones((2, 2), np.int8))
    assert ga.empty((3,), np.uint8).dtype == np.uint8


@pytest.mark.parametrize("dtype,value", [
    (np.int8, -3), (np.uint16, 513), (np.int32, 7), (np.float32, 1.5), (np.float64, 1.25),
    (np.int64, -2), (np.complex64, 1 + 2j), (np.bool_, True), (np.float16, 0.5)])
def test_fill(ga, dtype, value):
    a = ga.empty((3, 5), dtype)
    assert a.fill(value) is a
    np.testing.assert_array_equal(a.get(), np.full((3, 5), value, dtype))


def test_fill_strided_view(ga):
    x = np.zeros((4, 6), np.float64)
    a = ga.to_gpu(x)
    a[:, 1::2].fill(2.5)
    x[:, 1::2] = 2.5
    np.testing.assert_array_equal(a.get(), x)


def test_get_set_same_size_other_shape(ga):
    """PyCUDA reshapes (C order) a host array of the same size, with a warning;
    a different size is still an error."""
    a = ga.to_gpu(np.arange(12, dtype=np.float32))
    out = np.empty((3, 4), np.float32)
    with pytest.warns(DeprecationWarning, match="filled in C order"):
        assert a.get(out) is out
    np.testing.assert_array_equal(out, np.arange(12).reshape(3, 4))
    with pytest.warns(UserWarning, match="reshaped"):
        a.set(np.full((2, 6), 7, np.float32))
    np.testing.assert_array_equal(a.get(), np.full(12, 7))
    with pytest.raises(ValueError, match="does not fit"):
        a.set(np.ones((5, 5), np.float32))
    with pytest.raises(ValueError, match="expected"):
        a.get(np.empty((3, 5), np.float32))
    with pytest.raises(ValueError, match="expected"):
        a.get(np.empty((3, 4), np.float64))


def test_get_set_variants(ga):
    from pycudac import driver
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = ga.to_gpu(x)
    out = np.empty_like(x)
    assert a.get(out) is out
    np.testing.assert_array_equal(out, x)
    pl = a.get(pagelocked=True)
    np.testing.assert_array_equal(pl, x)
    s = driver.Stream()
    h = a.get_async(stream=s)
    s.synchronize()
    np.testing.assert_array_equal(h, x)
    a.set(x * 2)
    np.testing.assert_array_equal(a.get(), x * 2)
    a.set_async(x * 3, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(a.get(), x * 3)
    b = ga.to_gpu_async(x, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(b.get(), x)
    # non-contiguous view: get and set go through a copy kernel
    v = a[1:, ::2]
    np.testing.assert_array_equal(v.get(), (x * 3)[1:, ::2])
    v.set(np.zeros((3, 3), np.float32))
    expected = x * 3
    expected[1:, ::2] = 0
    np.testing.assert_array_equal(a.get(), expected)
    # host array of another dtype is cast
    a.set(np.ones((4, 6), np.int64))
    np.testing.assert_array_equal(a.get(), np.ones((4, 6), np.float32))


def test_copy_astype(ga):
    x = sample(np.float32)
    a = ga.to_gpu(x)
    c = a.copy()
    assert c.ptr != a.ptr
    np.testing.assert_array_equal(c.get(), x)
    for dst in (np.int32, np.float16, np.float64, np.complex64, np.bool_, np.uint8):
        np.testing.assert_array_equal(a.astype(dst).get(), x.astype(dst) if dst != np.uint8
                                      else x.astype(np.int32).astype(np.uint8))
    xc = sample(np.complex128)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(ga.to_gpu(xc).astype(np.float32).get(),
                                      xc.real.astype(np.float32))
    xi = sample(np.int16)
    np.testing.assert_array_equal(ga.to_gpu(xi).astype(np.float16).get(), xi.astype(np.float16))
    xh = sample(np.float16)
    np.testing.assert_array_equal(ga.to_gpu(xh).astype(np.float64).get(), xh.astype(np.float64))
    # a transposed (F-ordered) source: copy() keeps its layout, as PyCUDA's
    # does (issue #403 there); order="C" makes it C-contiguous
    t = a.T.copy()
    assert t.flags.f_contiguous and t.strides == x.T.strides
    np.testing.assert_array_equal(t.get(), x.T)
    t = a.T.copy(order="C")
    assert t.flags.c_contiguous
    np.testing.assert_array_equal(t.get(), x.T)
    np.testing.assert_array_equal(a.copy(order="F").get(), x)


def test_float16_conversion_exact(ga):
    """float32 -> float16 rounding (subnormals, ties, overflow) matches NumPy."""
    bits = np.random.default_rng(1).integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[np.isfinite(x)]
    special = np.array([0.0, -0.0, 65504.0, 65519.99, 65520.0, 1e-8, 2.0**-24, 2.0**-25,
                        3 * 2.0**-25, 6e-5, np.inf, -np.inf, 1 + 2.0**-11, 1 + 3 * 2.0**-11],
                       np.float32)
    x = np.concatenate([x, special, x * 1e-35, x * 1e-40])
    with np.errstate(all="ignore"):
        expected = x.astype(np.float16)
    got = ga.to_gpu(x).astype(np.float16).get()
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))
    back = ga.to_gpu(expected).astype(np.float32).get()
    np.testing.assert_array_equal(back, expected.astype(np.float32))


def test_reshape_ravel_view_squeeze_transpose(ga):
    x = np.arange(24, dtype=np.int32)
    a = ga.to_gpu(x)
    r = a.reshape(2, 3, 4)
    assert r.ptr == a.ptr
    np.testing.assert_array_equal(r.get(), x.reshape(2, 3, 4))
    np.testing.assert_array_equal(a.reshape((4, -1)).get(), x.reshape(4, -1))
    np.testing.assert_array_equal(r.transpose(1, 0, 2).get(), x.reshape(2, 3, 4).transpose(1, 0, 2))
    np.testing.assert_array_equal(r.T.ravel().get(), x.reshape(2, 3, 4).T.ravel())
    np.testing.assert_array_equal(r.reshape(6, 4, order="F").get(),
                                  x.reshape(2, 3, 4).reshape(6, 4, order="F"))
    np.testing.assert_array_equal(a.view(np.uint32).get(), x.view(np.uint32))
    np.testing.assert_array_equal(a.view(np.int16).get(), x.view(np.int16))
    s = ga.to_gpu(np.zeros((1, 3, 1)))
    assert s.squeeze().shape == (3,) and s.squeeze(0).shape == (3, 1)
    np.testing.assert_array_equal(r.swapaxes(0, 2).get(), x.reshape(2, 3, 4).swapaxes(0, 2))
    with pytest.raises(ValueError, match="reshape"):
        a.reshape(5, 5)


def test_real_imag_conj(ga):
    x = sample(np.complex64)
    a = ga.to_gpu(x)
    # .real and .imag are new contiguous arrays in self's order (PyCUDA)
    for part, ref in ((a.real, x.real), (a.imag, x.imag), (a[:, ::2].imag, x[:, ::2].imag)):
        assert part.dtype == np.float32 and part.flags.c_contiguous
        np.testing.assert_array_equal(part.get(), ref)
    f = ga.to_gpu(np.asfortranarray(x))
    assert f.real.flags.f_contiguous and f.imag.flags.f_contiguous
    np.testing.assert_array_equal(f.imag.get(), x.imag)
    np.testing.assert_array_equal(a.conj().get(), x.conj())
    r = ga.to_gpu(np.arange(3.0))
    assert r.real is r
    np.testing.assert_array_equal(r.imag.get(), np.zeros(3))
    np.testing.assert_array_equal(r.conj().get(), np.arange(3.0))


def test_real_imag_setters(ga):
    """Writes go through the setters, as in NumPy: scalars, arrays (device
    or host), broadcasting, augmented assignment."""
    x = sample(np.complex64)
    a, z = ga.to_gpu(x), x.copy()
    a.imag, z.imag = 0, 0
    np.testing.assert_array_equal(a.get(), z)
    row = np.arange(7, dtype=np.float32)
    a.real, z.real = ga.to_gpu(row), row
    np.testing.assert_array_equal(a.get(), z)
    a.imag, z.imag = x.imag, x.imag
    a.imag += 1
    z.imag += 1
    np.testing.assert_array_equal(a.get(), z)
    s = a[:, 1::3]           # a strided view writes through to `a`
    s.real = -1
    z[:, 1::3].real = -1
    np.testing.assert_array_equal(a.get(), z)
    r = ga.to_gpu(np.arange(3.0))
    r.real = 5
    np.testing.assert_array_equal(r.get(), np.full(3, 5.0))
    with pytest.raises(TypeError, match="imag: an array of float64 has no imaginary part"):
        r.imag = 1


def test_real_part_passed_to_a_raw_kernel(ga):
    """PyCUDA code hands z.real to a kernel as a float*: it must be a
    contiguous copy, never a strided view of the interleaved data."""
    from pycudac.compiler import SourceModule
    copy = SourceModule("""
    __global__ void copy(float *dst, const float *src, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) dst[i] = src[i];
    }""").get_function("copy")
    x = (np.arange(8) + 10j * np.arange(8)).astype(np.complex64)
    z = ga.to_gpu(x)
    for part, ref in ((z.real, x.real), (z.imag, x.imag)):
        dst = ga.zeros(8, np.float32)
        copy(dst, part, np.int32(8), block=(32, 1, 1), grid=(1, 1))
        np.testing.assert_array_equal(dst.get(), ref)


def test_conj_out(ga):
    x = sample(np.complex128)
    a = ga.to_gpu(x)
    out = ga.empty(x.shape, np.complex64)
    assert a.conj(out=out) is out                      # cast, as PyCUDA's test does
    np.testing.assert_array_equal(out.get(), x.conj().astype(np.complex64))
    assert a.conjugate(out=a) is a                     # in place
    np.testing.assert_array_equal(a.get(), x.conj())
    r, ro = ga.to_gpu(np.arange(3.0)), ga.empty(3, np.float32)
    assert r.conj(out=ro) is ro
    np.testing.assert_array_equal(ro.get(), np.arange(3.0))
    with pytest.raises(ValueError, match="conjugate: output of shape"):
        a.conj(out=ga.empty(3, np.complex128))
    with pytest.raises(TypeError, match="cannot cast"):
        a.conj(out=ga.empty(x.shape, np.float64))
    with pytest.raises(TypeError, match="out must be a GPUArray"):
        a.conj(out=np.empty(x.shape, np.complex128))


def test_reverse(ga):
    x = np.arange(10, dtype=np.float32)
    np.testing.assert_array_equal(ga.to_gpu(x).reverse().get(), x[::-1])
    # PyCUDA takes the array as one-dimensional (its memory reversed): every
    # axis reversed, shape and order kept
    m = np.arange(12).reshape(3, 4)
    for a in (ga.to_gpu(m), ga.to_gpu(np.asfortranarray(m))):
        r = a.reverse()
        np.testing.assert_array_equal(r.get(), m[::-1, ::-1])
        assert r.flags.f_contiguous == a.flags.f_contiguous and r.ptr != a.ptr
    np.testing.assert_array_equal(ga.to_gpu(m)[:, ::2].reverse().get(), m[:, ::2][::-1, ::-1])
    assert ga.to_gpu(np.array(5.0)).reverse().get() == 5.0


def test_transpose_axes_keyword(ga):
    x = np.arange(60.0).reshape(3, 4, 5)
    d = ga.to_gpu(x)
    for t in (d.transpose(axes=(1, 0, 2)), d.transpose(axes=[1, 0, 2]), d.transpose((1, 0, 2)),
              d.transpose(1, 0, 2)):
        np.testing.assert_array_equal(t.get(), x.transpose(1, 0, 2))
    np.testing.assert_array_equal(d[:, 1:3].transpose(axes=(1, 0, 2)).get(),
                                  x[:, 1:3].transpose(1, 0, 2))
    assert d.transpose(axes=None).shape == d.transpose().shape == (5, 4, 3)
    with pytest.raises(TypeError, match="transpose: give the axes positionally or as axes="):
        d.transpose(1, 0, 2, axes=(1, 0, 2))
    with pytest.raises(ValueError, match="permutation"):
        d.transpose(axes=(0, 0, 1))


def test_shape_from_ndarray(ga):
    assert ga.empty(np.array(3), np.float32).shape == (3,)       # 0-d, as NumPy and PyCUDA
    assert ga.zeros(np.array([2, 3]), np.float32).shape == (2, 3)
    assert ga.GPUArray(np.int64(4), np.int8).shape == (4,)
    assert ga.to_gpu(np.arange(6.0)).reshape(np.array(6)).shape == (6,)
    with pytest.raises(TypeError, match="shape must be an int or a tuple of ints"):
        ga.empty(np.array(3.0), np.float32)


@pytest.mark.parametrize("index", [
    1, -1, (1, 2), slice(None, None, 2), slice(5, 1, -2), (Ellipsis, 1), (None, 1),
    (slice(None), None, slice(1, None)), (1, Ellipsis, None), (slice(None, None, -1), 3),
    Ellipsis, (), (slice(10, 20),)])
def test_getitem_views(ga, index):
    x = np.arange(6 * 7, dtype=np.float64).reshape(6, 7)
    a = ga.to_gpu(x)
    v = a[index]
    np.testing.assert_array_equal(v.get(), x[index])
    assert v.shape == x[index].shape


def test_view_gpudata_offset_and_lifetime(ga):
    x = np.arange(100, dtype=np.float32)
    a = ga.to_gpu(x)
    v = a[10:]
    assert int(v.gpudata) == a.ptr + 40 and v.base is a
    del a
    gc.collect()
    np.testing.assert_array_equal(v.get(), x[10:])


def test_a_subclass_sets_nbytes_and_moves_gpudata_as_in_pycuda(ga):
    """reikna's cluda Array (a GPUArray subclass) sets self.nbytes to the size
    of the buffer under it (every reikna test failed: 'property nbytes has no
    setter'), and its temporary-memory manager moves an array by assigning an
    int to gpudata, which PyCUDA's launches read: pycudac's launches read ptr,
    which stayed at the old address."""
    from pycudac import driver as drv
    from pycudac.compiler import SourceModule

    class Array(ga.GPUArray):
        def __init__(self, shape, dtype, nbytes, gpudata=None):
            super().__init__(shape, dtype, gpudata=gpudata)
            self.nbytes = nbytes
            self.thread = "kept"  # a subclass keeps attributes of its own

    a = Array(4, np.float32, nbytes=64)
    assert a.nbytes == 64 and a.size == 4 and a.thread == "kept"
    a.set(np.arange(4, dtype=np.float32))
    b = a.copy()  # pycudac's copy moves the elements' 16 bytes, not nbytes' 64
    assert b.nbytes == 16 and (b.get() == np.arange(4)).all()
    with pytest.raises(TypeError):
        a.nbytes = 1.5

    other = drv.mem_alloc(16)
    drv.memcpy_htod(other, np.full(4, 9, np.float32))
    a.gpudata = int(other)  # as reikna's _tempalloc_update_buffer does
    assert a.ptr == int(other)
    np.testing.assert_array_equal(a.get(), np.full(4, 9, np.float32))
    mod = SourceModule("__global__ void twice(float *x) { x[threadIdx.x] *= 2; }")
    mod.get_function("twice")(a, block=(4, 1, 1))
    np.testing.assert_array_equal(a.get(), np.full(4, 18, np.float32))
    np.testing.assert_array_equal(b.get(), np.arange(4, dtype=np.float32))
    with pytest.raises(TypeError, match="gpudata must be device memory"):
        a.gpudata = "here"
    with pytest.raises(OverflowError, match="gpudata"):
        a.gpudata = -1
    assert a.ptr == int(other)  # a refused assignment changes nothing
    a.gpudata = None
    assert a.ptr == 0
    a.gpudata = other


def test_operators_keep_a_subclass_through_new_like_me(ga):
    """PyCUDA makes an operator's result with self._new_like_me(dtype), and
    reikna's cluda Array overrides it to keep its type (its
    test_array_type_after_binop failed: the result was a plain GPUArray)."""
    made = []

    class Mine(ga.GPUArray):
        def _new_like_me(self, dtype=None):
            made.append(dtype)
            return Mine(self.shape, self.dtype if dtype is None else dtype)

    x = np.arange(6, dtype=np.float32)
    a = Mine(6, np.float32)
    a.set(x)
    b = ga.to_gpu(x)
    for r, want in ((a + b, x + x), (a * 2, x * 2), (-a, -x), (abs(a), x)):
        assert type(r) is Mine
        np.testing.assert_array_equal(r.get(), want)
    assert type(b + a) is ga.GPUArray  # the left operand's type, as in PyCUDA
    assert type(a + ga.to_gpu(x.reshape(1, 6) * np.ones((2, 1), np.float32))) is ga.GPUArray
    assert made[:2] == [np.float32, np.float32]


def test_memcpy_discontig_copies_every_pairing(ga):
    """PyCUDA's private gpuarray._memcpy_discontig, which reikna's cluda
    Array.copy calls (an AttributeError here before): GPUArray and ndarray
    on either side, strided too."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    d = ga.to_gpu(x)
    out = ga.empty((4, 3), np.float32)
    ga._memcpy_discontig(out, d[:, ::2])
    np.testing.assert_array_equal(out.get(), x[:, ::2])
    host = np.zeros((6, 4), np.float32).T  # F-ordered
    ga._memcpy_discontig(host, d, async_=True, stream=None)
    np.testing.assert_array_equal(host, x)
    strided = np.zeros((4, 12), np.float32)[:, ::2]
    ga._memcpy_discontig(strided, d)
    np.testing.assert_array_equal(strided, x)
    back = ga.empty((4, 6), np.float32)
    ga._memcpy_discontig(back, x * 2)
    np.testing.assert_array_equal(back.get(), x * 2)
    with pytest.raises(ValueError, match="one shape and dtype"):
        ga._memcpy_discontig(out, d)
    with pytest.raises(TypeError, match="src must be a GPUArray or a numpy.ndarray"):
        ga._memcpy_discontig(out, [1, 2])


def test_setitem(ga):
    x = np.zeros((5, 6), np.float32)
    a = ga.to_gpu(x)
    a[1] = 3
    x[1] = 3
    a[:, ::3] = np.arange(10, dtype=np.float32).reshape(5, 2)
    x[:, ::3] = np.arange(10, dtype=np.float32).reshape(5, 2)
    a[2:4, 1:3] = ga.to_gpu(np.full((2, 2), 7, np.int64))
    x[2:4, 1:3] = 7
    a[4] = ga.to_gpu(np.arange(6, dtype=np.float32))
    x[4] = np.arange(6)
    a[..., 5] = ga.to_gpu(np.array([9.0]))   # broadcast
    x[..., 5] = 9
    a[0, 0] = 1.5
    x[0, 0] = 1.5
    np.testing.assert_array_equal(a.get(), x)
    # overlapping source and destination
    y = np.arange(10, dtype=np.int32)
    b = ga.to_gpu(y)
    b[1:] = b[:-1]
    y[1:] = y[:-1].copy()
    np.testing.assert_array_equal(b.get(), y)


# ------------------------------------------------------------------ bad input

def test_bad_dtypes(ga):
    with pytest.raises(TypeError, match="object"):
        ga.GPUArray((3,), object)
    with pytest.raises(TypeError, match="dtype"):
        ga.to_gpu(np.array(["a", "b"]))
    with pytest.raises(TypeError, match="object"):
        ga.to_gpu(np.array([1, None], dtype=object))
    with pytest.raises(TypeError, match="float128|longdouble|unsupported"):
        ga.zeros(3, np.longdouble)
    with pytest.raises(ValueError, match="shape"):
        ga.GPUArray((-1, 2), np.float32)
    with pytest.raises(TypeError, match="shape"):
        ga.GPUArray("abc", np.float32)


def test_strides_must_keep_elements_aligned(ga):
    """The GPU reads an element only at its natural alignment: a stride that
    is no multiple of it is refused (a strides=(3,) float32 array read
    garbage on the simulator and would fault on the GPU)."""
    with pytest.raises(ValueError, match="multiples of 4 bytes"):
        ga.GPUArray(4, np.float32, strides=(3,))
    with pytest.raises(ValueError, match="multiples of 8 bytes"):
        ga.GPUArray((2, 3), np.float64, strides=(28, 8))
    a = ga.GPUArray(4, np.float32, strides=(8,))
    a.fill(2)
    assert (a.get() == 2).all()
    assert ga.GPUArray((1, 3), np.float32, strides=(3, 4)).shape == (1, 3)  # extent-1 axis


def test_fill_follows_numpy_for_python_numbers(ga):
    """fill() and a[i] = v take a Python number as NumPy does: out of the
    integer type's range is an OverflowError, NaN a ValueError, not a wrap."""
    for dt, v, exc in ((np.int8, 1000, OUT_OF_RANGE), (np.uint32, -1, OUT_OF_RANGE),
                       (np.int32, float("nan"), ValueError)):
        host = np.zeros(3, dt)
        a = ga.zeros(3, dt)
        if exc is None:  # NumPy 1.23 wraps without a word: so does pycudac
            host.fill(v)
            a.fill(v)
            assert (a.get() == host).all()
            continue
        if exc is not ValueError or NUMPY_VERSION >= (1, 24):  # 1.23's fill() took NaN
            with pytest.raises(exc):
                host.fill(v)
        with pytest.raises(exc):
            a.fill(v)
        with pytest.raises(exc):
            a[1] = v
        assert (a.get() == 0).all()
    a = ga.zeros(3, np.int32)
    a.fill(2.5)
    assert (a.get() == np.full(3, 2.5).astype(np.int32)).all()
    # a Python complex into a real array: NumPy's TypeError; the imaginary
    # part was dropped without a word (found by an adversarial review)
    for dt in (np.float32, np.float64, np.float16, np.int32, np.uint8):
        host = np.zeros(3, dt)
        with pytest.raises(TypeError):
            host[1] = 1j
        a = ga.zeros(3, dt)
        for assign in (lambda: a.fill(3 + 2j), lambda: a.__setitem__(1, 1j),
                       lambda: a.__setitem__(slice(None), 3 + 2j)):
            with pytest.raises(TypeError, match="cannot assign a complex value"):
                assign()
        assert (a.get() == 0).all()
    c = ga.zeros(2, np.complex64)
    c[:] = 3 + 2j
    assert c.get().tolist() == [3 + 2j, 3 + 2j]


def test_bad_operands(ga):
    a = ga.to_gpu(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        a + ga.to_gpu(np.zeros((3, 5), np.float32))
    with pytest.raises(TypeError, match="to_gpu"):
        a + np.zeros((3, 4))
    with pytest.raises(TypeError):
        a + "x"
    # a size-1 integer GPUArray is an index (__index__): Python must not take
    # it as a repeat count for a list, tuple or str
    n = ga.to_gpu(np.array([3]))
    for seq in ([1, 2], (1, 2), "ab", b"ab"):
        for op in (lambda: n * seq, lambda: seq * n, lambda: n + seq):
            with pytest.raises(TypeError, match="cannot combine a GPUArray"):
                op()
    with pytest.raises(ValueError, match="shape"):
        a.set(np.zeros((5, 5)))
    with pytest.raises(IndexError, match="out of bounds"):
        a[3]
    with pytest.raises(IndexError, match="too many"):
        a[1, 2, 3]
    with pytest.raises(ValueError, match="ambiguous"):
        bool(a)
    with pytest.raises(TypeError, match="len"):
        len(ga.to_gpu(np.array(1.0)))
    with pytest.raises(ValueError, match="get"):
        a.get(np.zeros((2, 2), np.float32))


def test_mixing_contexts_is_an_error(ga):
    from pycudac import driver
    a = ga.to_gpu(np.zeros(4, np.float32))
    ctx2 = driver.Device(0).make_context()
    try:
        b = ga.to_gpu(np.zeros(4, np.float32))
        with pytest.raises(ValueError, match="context"):
            b + a
        with pytest.raises(ValueError, match="context"):
            a * 2      # a's context is not current
        del b
        _layout.pools.pop(ctx2, None)   # its memory goes while ctx2 lives
        gc.collect()
    finally:
        driver.Context.pop()
    ctx2.detach()


def test_pycuda_api_found_by_pycudas_own_tests(ga):
    """Issue 21: explicit strides in __cuda_array_interface__ (PyCUDA gives
    them), GPUArray.mul_add(..., out=) and subset_*(..., allocator=)."""
    a = np.arange(10, dtype=np.float32)
    b = 10 * a
    a_g, b_g = ga.to_gpu(a), ga.to_gpu(b)
    cai = a_g.__cuda_array_interface__
    assert cai["strides"] == a.strides and cai["shape"] == a.shape
    assert a_g[::2].__cuda_array_interface__["strides"] == a[::2].strides
    c_g = ga.empty_like(a_g)
    assert a_g.mul_add(2, b_g, 3, out=c_g) is c_g
    np.testing.assert_array_equal(c_g.get(), 2 * a + 3 * b)
    np.testing.assert_array_equal(a_g.mul_add(2, b_g, 3).get(), 2 * a + 3 * b)
    with pytest.raises((TypeError, ValueError)):
        a_g.mul_add(2, b_g, 3, out=ga.empty(3, np.float32))
    pool = drv_tools().DeviceMemoryPool()
    uses = []

    def allocator(size):
        uses.append(size)
        return pool.allocate(size)

    idx = ga.to_gpu(np.array([1, 3, 5], np.int32))
    for fn, want in ((ga.subset_sum, a[[1, 3, 5]].sum()), (ga.subset_min, 1.0),
                     (ga.subset_max, 5.0)):
        got = fn(idx, a_g, allocator=allocator)
        assert got.get() == want
    assert ga.subset_dot(idx, a_g, b_g, allocator=allocator).get() == \
        (a[[1, 3, 5]] * b[[1, 3, 5]]).sum()
    assert len(uses) == 4


def drv_tools():
    from pycudac import tools
    return tools


@pytest.mark.xfail(NUMPY_VERSION < (1, 25), strict=True,
                   reason="pycudac/_gpuarray/layout.py raises np.exceptions.AxisError, which "
                          "NumPy before 1.25 lacks (an AttributeError there); "
                          "getattr(np, 'exceptions', np).AxisError works on every NumPy")
def test_an_axis_out_of_range_is_numpys_axis_error(ga):
    axis_error = getattr(np, "exceptions", np).AxisError  # np.AxisError before NumPy 1.25
    a = ga.zeros((2, 3), np.float32)
    with pytest.raises(axis_error):
        ga.sum(a, axis=2)
    with pytest.raises(axis_error):
        ga.sum(a, axis=-3)


def test_integer_to_a_negative_scalar_power_raises_as_numpy(ga):
    """NumPy refuses an integer array to a negative integer power; pycudac
    computed it (0 ** -1 gave 0; found by an adversarial review)."""
    x = np.arange(-2, 4, dtype=np.int32)
    g = ga.to_gpu(x)
    for e in (-1, np.int64(-2)):
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            x ** e
        with pytest.raises(ValueError, match="Integers to negative integer powers"):
            g ** e
    assert (g ** 2).get().tolist() == (x ** 2).tolist()
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose((g ** np.float32(-1)).get(), x ** np.float32(-1))


def test_like_functions_stack_and_raw_copies_name_what_they_got(ga):
    """empty_like/zeros_like of a NumPy array or a list, stack('ab') and a
    raw copy given a GPUArray were AttributeErrors or a message about
    indexing (found by an adversarial review): a NumPy array is taken as
    CuPy takes it (shape, dtype, layout); the rest are TypeErrors."""
    from pycudac import driver
    z = ga.zeros_like(np.ones((2, 3), np.float32))
    assert z.shape == (2, 3) and z.dtype == np.float32 and not z.get().any()
    assert ga.empty_like(np.asfortranarray(np.ones((2, 3)))).flags.f_contiguous
    with pytest.raises(TypeError, match="zeros_like: expected a GPUArray or a numpy.ndarray"):
        ga.zeros_like([1, 2])
    with pytest.raises(TypeError, match=r"stack: arrays\[0\] is a str"):
        ga.stack("ab")
    g = ga.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"memcpy_htod\(dest\): got a GPUArray; pass its memory"):
        driver.memcpy_htod(g, np.ones(4, np.float32))
    driver.memcpy_htod(g.gpudata, np.ones(4, np.float32))
    assert g.get().tolist() == [1, 1, 1, 1]
