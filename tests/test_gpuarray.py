"""GPUArray: construction, transfers, views and indexing, interop, bad input.
Checked against NumPy; runs on the simulator (CI) and the GPU."""
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


def test_where_maximum_minimum(ga):
    x, y = sample(np.float32, seed=1), sample(np.float32, seed=2)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    np.testing.assert_array_equal(ga.where(a > b, a, b).get(), np.where(x > y, x, y))
    np.testing.assert_array_equal(ga.where(a > 0, a, 0.0).get(), np.where(x > 0, x, 0.0))
    np.testing.assert_array_equal(ga.maximum(a, b).get(), np.maximum(x, y))
    np.testing.assert_array_equal(ga.minimum(a, 0.5).get(), np.minimum(x, np.float32(0.5)))
    xn = x.copy()
    xn[0, 0] = np.nan
    np.testing.assert_array_equal(ga.maximum(ga.to_gpu(xn), b).get(), np.maximum(xn, y))


def test_concatenate_stack_take(ga):
    x, y = np.arange(6).reshape(2, 3), np.arange(6, 12).reshape(2, 3)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    np.testing.assert_array_equal(ga.concatenate([a, b]).get(), np.concatenate([x, y]))
    np.testing.assert_array_equal(ga.concatenate([a, b], axis=1).get(),
                                  np.concatenate([x, y], axis=1))
    np.testing.assert_array_equal(ga.stack([a, b], axis=1).get(), np.stack([x, y], axis=1))
    idx = np.array([5, 0, 3, -1])
    np.testing.assert_array_equal(ga.take(a, ga.to_gpu(idx)).get(), np.take(x, idx))
    np.testing.assert_array_equal(ga.take(a, [1, 0, 1], axis=0).get(), np.take(x, [1, 0, 1], 0))
    np.testing.assert_array_equal(a[ga.to_gpu(np.array([1, 1, 0]))].get(), x[[1, 1, 0]])
    np.testing.assert_array_equal(a[[1, 0]].get(), x[[1, 0]])
    a[[0, 1]] = 5      # a scatter now (tests/test_gpuarray_index.py has the rest)
    np.testing.assert_array_equal(a.get(), np.full((2, 3), 5))
    with pytest.raises(ValueError, match="concatenate"):
        ga.concatenate([a, ga.to_gpu(np.zeros((2, 2)))])


@pytest.mark.parametrize("op", ["logical_and", "logical_or"])
def test_logical_and_or(ga, op):
    x = sample(np.float64)
    x[0, :3] = 0
    y = sample(np.int32, (7,), seed=1)          # broadcast over the rows
    y[1] = 0
    f, nf = getattr(ga, op), getattr(np, op)
    gx, gy = ga.to_gpu(x), ga.to_gpu(y)
    c = np.array([0j, 1j, 0j, 2])
    for a, b, na, nb in [(gx, gy, x, y), (gy, gx, y, x), (gx, 0.0, x, 0.0), (gx, 2, x, 2),
                         (0, gy, 0, y), (gx, np.nan, x, np.nan), (1.5, 0, 1.5, 0),
                         (ga.to_gpu(c), ga.to_gpu(c[::-1]), c, c[::-1])]:
        r, e = f(a, b), nf(na, nb)
        assert r.dtype == np.bool_ and r.shape == e.shape, (a, b)
        np.testing.assert_array_equal(r.get(), e)
    for dt in (np.bool_, np.float32):
        out = ga.empty(x.shape, dt)
        assert f(gx, gy, out=out) is out
        np.testing.assert_array_equal(out.get(), nf(x, y).astype(dt))


def test_logical_not(ga):
    for dt in (np.bool_, np.int8, np.float16, np.float32, np.complex64):
        x = sample(dt)
        x[1] = 0
        np.testing.assert_array_equal(ga.logical_not(ga.to_gpu(x)).get(), np.logical_not(x))
    r = ga.logical_not(0)
    assert r.shape == () and r.dtype == np.bool_ and r.get()
    b = ga.to_gpu(np.array([True, False]))
    assert ga.logical_not(b, out=b) is b
    np.testing.assert_array_equal(b.get(), [False, True])


def test_logical_bad_input(ga):
    gx = ga.to_gpu(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="logical_and: x2: expected a GPUArray or a scalar"):
        ga.logical_and(gx, "a")
    with pytest.raises(TypeError, match="logical_or: x1"):
        ga.logical_or(np.zeros(3), gx)
    with pytest.raises(ValueError, match="logical_or: operands could not be broadcast"):
        ga.logical_or(gx, ga.zeros(2))
    with pytest.raises(ValueError, match="logical_not: output of shape"):
        ga.logical_not(gx, out=ga.empty(3, np.bool_))
    with pytest.raises(TypeError, match="logical_and: out must be a GPUArray"):
        ga.logical_and(gx, 1, out=np.empty((2, 3), np.bool_))


def test_out_of_another_shape_is_refused_even_with_as_many_elements(ga):
    """out= must have the result's shape, not only its size (NumPy's rule;
    tools/mutate.py B4: a check by size passed the suite)."""
    gx = ga.to_gpu(np.arange(6, dtype=np.float64).reshape(2, 3))
    gy = ga.to_gpu(np.ones((2, 3)))
    for out_shape in ((6,), (3, 2), (1, 2, 3)):
        with pytest.raises(ValueError, match="output of shape"):
            ga.logical_not(gx, out=ga.empty(out_shape, np.bool_))
        with pytest.raises(ValueError, match="output of shape"):
            ga.logical_and(gx, gy, out=ga.empty(out_shape, np.bool_))
        with pytest.raises(ValueError, match="output of shape"):
            ga.logical_or(gx, 1, out=ga.empty(out_shape, np.bool_))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_subset_reductions(ga, dtype):
    a, b = sample(dtype, (200,)), sample(dtype, (200,), seed=1)
    idx = np.concatenate([np.arange(0, 200, 3), [7, 7, -1]]).astype(np.int32)
    ga_a, gb, gi = ga.to_gpu(a), ga.to_gpu(b), ga.to_gpu(idx)
    assert ga.subset_min(gi, ga_a).get() == a[idx].min()
    assert ga.subset_max(gi, ga_a).get() == a[idx].max()
    np.testing.assert_allclose(ga.subset_sum(gi, ga_a).get(), a[idx].sum(), rtol=1e-5)
    np.testing.assert_allclose(ga.subset_dot(gi, ga_a, gb).get(), a[idx] @ b[idx], rtol=1e-5)
    s = ga.subset_sum(gi, ga_a, dtype=np.float64)
    assert s.dtype == np.float64
    np.testing.assert_allclose(s.get(), a[idx].sum(dtype=np.float64), rtol=1e-6)


def test_subset_reductions_bad_input(ga):
    a = ga.to_gpu(np.arange(10.0))
    with pytest.raises(TypeError, match="subset_min: subset must be an integer GPUArray, "
                                        "got ndarray"):
        ga.subset_min(np.array([1]), a)
    with pytest.raises(TypeError, match="subset_sum: subset .* got dtype float64"):
        ga.subset_sum(ga.to_gpu(np.array([1.0])), a)
    with pytest.raises(TypeError, match="subset_dot: b must be a GPUArray"):
        ga.subset_dot(ga.to_gpu(np.array([1])), a, np.arange(10.0))
    with pytest.raises(IndexError, match="out of bounds"):
        ga.subset_max(ga.to_gpu(np.array([10])), a)


def test_multi_take_put(ga):
    xs = [sample(np.float32, (12,), seed=s) for s in range(3)]
    arrays = [ga.to_gpu(x) for x in xs]
    idx = np.array([5, 0, 11, 5], np.int32)
    taken = ga.multi_take(arrays, ga.to_gpu(idx))
    assert isinstance(taken, list) and len(taken) == 3
    for t, x in zip(taken, xs):
        np.testing.assert_array_equal(t.get(), x[idx])
    out = [ga.empty(4, np.float32) for _ in xs]
    assert all(r is o for r, o in zip(ga.multi_take(arrays, ga.to_gpu(idx), out=out), out))
    np.testing.assert_array_equal(out[2].get(), xs[2][idx])

    dest = np.random.default_rng(0).permutation(20)[:12]
    put = ga.multi_put(arrays, ga.to_gpu(dest), dest_shape=(4, 5))
    for p, x in zip(put, xs):
        expected = np.zeros(20, np.float32)
        expected[dest] = x
        np.testing.assert_array_equal(p.get(), expected.reshape(4, 5))

    # PyCUDA's test_take_put: one buffer, a field of 8 per array
    buf = np.arange(40, dtype=np.float32)
    dest = np.array([0, 1, 2, 3, 32, 33, 34, 35], np.uint32)
    src = np.array([7, 6, 5, 4, 3, 2, 1, 0], np.uint32)
    out = [ga.zeros(96, np.float32) for _ in range(5)]
    res = ga.multi_take_put([ga.to_gpu(buf)] * 5, ga.to_gpu(dest), ga.to_gpu(src),
                            out=out, src_offsets=[8 * i for i in range(5)])
    assert all(r is o for r, o in zip(res, out))
    for i, r in enumerate(res):
        expected = np.zeros(96, np.float32)
        expected[dest] = buf[src + 8 * i]
        np.testing.assert_array_equal(r.get(), expected)
    assert ga.multi_take([], ga.to_gpu(idx)) == []


def test_multi_take_put_bad_input(ga):
    a = ga.to_gpu(np.arange(4, dtype=np.float32))
    i = ga.to_gpu(np.array([0, 3]))
    cases = [
        (TypeError, "multi_take: indices must be an integer GPUArray",
         lambda: ga.multi_take([a], np.array([0]))),
        (ValueError, "multi_take: indices must be 1-d",
         lambda: ga.multi_take([a], ga.to_gpu(np.zeros((1, 1), np.int32)))),
        (TypeError, "share one dtype", lambda: ga.multi_take([a, a.astype(np.float64)], i)),
        (TypeError, r"arrays\[1\] is a ndarray", lambda: ga.multi_take([a, np.zeros(4)], i)),
        (IndexError, "out of bounds", lambda: ga.multi_take([a], ga.to_gpu(np.array([4])))),
        (ValueError, r"out\[0\] must be C-contiguous of shape \(2,\)",
         lambda: ga.multi_take([a], i, out=[ga.empty(3, np.float32)])),
        (TypeError, r"out\[0\] must be a GPUArray of float32",
         lambda: ga.multi_take([a], i, out=[ga.empty(2, np.float64)])),
        (ValueError, "out has 0 arrays", lambda: ga.multi_take([a], i, out=[])),
        (ValueError, "multi_put: dest_shape is needed",
         lambda: ga.multi_put([a], ga.to_gpu(np.arange(4)))),
        (ValueError, r"multi_put: arrays\[0\] has 4 elements for 2 dest_indices",
         lambda: ga.multi_put([a], i, dest_shape=(10,))),
        (ValueError, "C-contiguous",
         lambda: ga.multi_put([a[:2]], i, out=[ga.zeros((4, 2), np.float32)[:, 0]])),
        (IndexError, "out of bounds",
         lambda: ga.multi_put([a], ga.to_gpu(np.array([0, 1, 2, 9])), dest_shape=(5,))),
        (ValueError, "src_offsets has 2 offsets for 1 arrays",
         lambda: ga.multi_take_put([a], i, i, dest_shape=(4,), src_offsets=[0, 1])),
        (ValueError, "src_indices has 1 elements, dest_indices 2",
         lambda: ga.multi_take_put([a], i, ga.to_gpu(np.array([0])), dest_shape=(4,))),
        (TypeError, "multi_take_put: src_indices must be an integer GPUArray, got NoneType",
         lambda: ga.multi_take_put([a], i, None, dest_shape=(4,))),
    ]
    for exc, match, call in cases:
        with pytest.raises(exc, match=match):
            call()


# ------------------------------------------------------------------ interop

class _CAIExporter:
    def __init__(self, arr):
        self.arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__


def test_cuda_array_interface_roundtrip(ga):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = ga.to_gpu(x)
    cai = a.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<f4"
    assert cai["data"] == (a.ptr, False) and cai["strides"] == (16, 4) and "stream" in cai
    assert a.T.__cuda_array_interface__["strides"] == (4, 16)
    b = ga.asarray(_CAIExporter(a.T))
    assert b.ptr == a.ptr and b.shape == (4, 3)
    np.testing.assert_array_equal(b.get(), x.T)
    a.fill(1)   # zero-copy: b sees it
    np.testing.assert_array_equal(b.get(), np.ones((4, 3), np.float32))
    assert ga.asarray(a) is a
    np.testing.assert_array_equal(ga.asarray([1, 2]).get(), [1, 2])


def test_dlpack_roundtrip(ga):
    x = np.arange(20, dtype=np.int16).reshape(4, 5)
    a = ga.to_gpu(x)
    assert a.__dlpack_device__()[0] == 2
    b = ga.from_dlpack(a[:, 1:])
    assert b.ptr == a.ptr + 2 and b.shape == (4, 4)
    np.testing.assert_array_equal(b.get(), x[:, 1:])
    a.fill(3)
    np.testing.assert_array_equal(b.get(), np.full((4, 4), 3, np.int16))
    cap = a.__dlpack__()   # dropped unconsumed: the destructor frees it
    del cap
    gc.collect()


@pytest.mark.gpu
def test_cupy_interop_both_ways(ga):
    cp = pytest.importorskip("cupy")
    c = cp.arange(10, dtype=cp.float32)
    g = ga.asarray(c)
    assert g.ptr == c.data.ptr
    g2 = g * 2
    c2 = cp.asarray(g2)
    assert c2.data.ptr == g2.ptr
    np.testing.assert_array_equal(cp.asnumpy(c2), np.arange(10, dtype=np.float32) * 2)
    c3 = cp.from_dlpack(g2)
    assert c3.data.ptr == g2.ptr
    g3 = ga.from_dlpack(c)
    assert g3.ptr == c.data.ptr


@pytest.mark.gpu
def test_torch_interop_both_ways(ga):
    torch = pytest.importorskip("torch")
    t = torch.arange(10, dtype=torch.float32, device="cuda")
    g = ga.from_dlpack(t)
    assert g.ptr == t.data_ptr()
    g2 = g + 1
    t2 = torch.from_dlpack(g2)
    assert t2.data_ptr() == g2.ptr
    assert torch.equal(t2.cpu(), torch.arange(10, dtype=torch.float32) + 1)
    t3 = torch.as_tensor(g2, device="cuda")
    assert t3.data_ptr() == g2.ptr


# ------------------------------------------------------------------ memory pool

def test_device_memory_pool_reuses_blocks():
    from pycudac import driver, tools
    pool = tools.DeviceMemoryPool()
    a = pool.allocate(1000)
    addr = int(a)
    assert pool.active_blocks == 1
    a.free()
    assert pool.held_blocks == 1 and pool.active_blocks == 0
    assert a.freed
    # a freed block is no pointer any more (its address may be b's below)
    with pytest.raises(ValueError, match="pooled allocation .* freed"):
        driver.memcpy_htod(a, np.zeros(4, np.float32))
    b = pool.allocate(900)   # same bin
    assert int(b) == addr and not b.freed
    del b
    gc.collect()
    assert pool.held_blocks == 1
    pool.free_held()
    assert pool.held_blocks == 0
    assert tools.bin_size(1) == 256 and tools.bin_size(1000) >= 1000


def test_a_gpuarray_over_freed_memory_raises_instead_of_touching_it(ga):
    """GPUArray(gpudata=a DeviceAllocation), then that allocation's free():
    the array's own operations took its address as an int and read or wrote
    the freed memory (a sticky 700 on the simulator; on a GPU, whatever lives
    there now), and a view passed to a kernel did too (found by an
    adversarial review). Each now raises a ValueError; the context stays
    usable."""
    from pycudac import driver
    from pycudac.compiler import SourceModule
    twice = SourceModule("__global__ void twice(float *x) { x[threadIdx.x] *= 2; }"
                         ).get_function("twice")
    alloc = driver.mem_alloc(256)
    a = ga.GPUArray((64,), np.float32, gpudata=alloc)
    a.fill(1)
    view = a[8:]
    alloc.free()
    ops = {"+=": lambda: a.__iadd__(1), "*": lambda: a * 2, "sum": lambda: ga.sum(a),
           "get": a.get, "fill": lambda: a.fill(0), "setitem": lambda: a.__setitem__(
               slice(None), 3), "ptr": lambda: a.ptr, "view.get": view.get,
           "view * 2": lambda: view * 2, "copy": a.copy}
    for name, op in ops.items():
        with pytest.raises(ValueError, match="device memory was freed"):
            op()
    for arg in (a, view):
        with pytest.raises(ValueError, match="argument 1 'x'.* device memory was freed"):
            twice(arg, block=(4, 1, 1))
    assert not driver.is_poisoned()
    assert ga.to_gpu(np.arange(3, dtype=np.float32)).get().tolist() == [0, 1, 2]


def test_freeing_a_block_an_array_holds_waits_for_the_array(ga):
    """`a.gpudata.free()` while `a` lives: the block goes back to the pool
    only when the array is gone, so the next allocation never shares a's
    memory (it did: a.get() read b's data and a.fill wrote into b)."""
    from pycudac import driver, tools
    pool = tools.DeviceMemoryPool()
    a = ga.to_gpu(np.arange(8, dtype=np.float32), allocator=pool.allocate)
    block = a.gpudata
    block.free()
    assert block.freed and pool.active_blocks == 1 and pool.held_blocks == 0
    with pytest.raises(ValueError, match="pooled allocation .* freed"):
        driver.memcpy_htod(block, np.zeros(8, np.float32))
    b = ga.to_gpu(np.full(8, 7, np.float32), allocator=pool.allocate)
    assert b.ptr != a.ptr
    a.fill(1)
    assert np.array_equal(b.get(), np.full(8, 7, np.float32))
    assert np.array_equal((a[2:] * 2).get(), np.full(6, 2, np.float32))
    addr = a.ptr
    del a, block
    gc.collect()
    assert pool.active_blocks == 1 and pool.held_blocks == 1
    c = pool.allocate(32)  # the same bin: a's block, returned at last
    assert int(c) == addr
    # a block no array holds still goes back at once
    d = pool.allocate(32)
    d.free()
    assert pool.held_blocks == 1 and pool.active_blocks == 2


def test_pagelocked_pool():
    from pycudac import tools
    pool = tools.PageLockedMemoryPool()
    h = pool.allocate((10, 10), np.float32)
    assert h.shape == (10, 10) and h.dtype == np.float32
    h[...] = 1
    del h
    gc.collect()
    assert pool.held_blocks == 1
    h2 = pool.allocate((100,), np.float32)
    assert h2.size == 100 and pool.held_blocks == 0


def test_gpuarrays_use_pool(ga):
    pool = ga.get_default_pool()
    a = ga.empty((1 << 16,), np.float32)
    addr = a.ptr
    del a
    gc.collect()
    b = ga.empty((1 << 16,), np.float32)
    assert b.ptr == addr and pool.held_blocks >= 0


def test_tools_misc():
    from pycudac import characterize, tools
    assert tools.dtype_to_ctype(np.float32) == "float"
    assert tools.dtype_to_ctype(np.uint64) == "unsigned long long"
    assert tools.dtype_to_ctype(np.complex64) == "pcc_complex64"
    with pytest.raises(TypeError, match="dtype"):
        tools.dtype_to_ctype(np.dtype("U3"))
    assert characterize.has_double_support()
    assert characterize.sizeof("double") == 8
    assert characterize.sizeof("pcc_complex64") == 8
    calls = []

    @tools.context_dependent_memoize
    def f(x):
        calls.append(x)
        return x * 2
    assert f(2) == 4 and f(2) == 4 and calls == [2]
    tools.clear_context_caches()
    assert f(2) == 4 and calls == [2, 2]


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


def test_gpuarray_as_kernel_argument(ga):
    """A pointer parameter takes a GPUArray (int(gpudata) = element 0, views
    included) and a pooled allocation."""
    from pycudac.compiler import SourceModule
    mod = SourceModule("""
    __global__ void twice(float *out, const float *in, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 2 * in[i];
    }""")
    f = mod.get_function("twice")
    x = np.arange(40, dtype=np.float32)
    a = ga.to_gpu(x)
    out = ga.zeros(30, np.float32)
    f(out, a[10:], np.int32(30), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(out.get(), 2 * x[10:])
    f(out.gpudata, a.gpudata, np.int32(30), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(out.get(), 2 * x[:30])


def test_mark_cuda_test_and_fixture():
    from pycudac import driver, tools
    seen = []

    @tools.mark_cuda_test
    def inner():
        seen.append(driver.Context.get_current())
        return 5
    before = driver.Context.get_current()
    assert inner() == 5 and seen[0] is not before
    assert driver.Context.get_current() is before
    gen = tools.init_cuda_context_fixture()
    ctx = next(gen)
    assert driver.Context.get_current() is ctx
    with pytest.raises(StopIteration):
        next(gen)
    assert driver.Context.get_current() is before


def test_subset_and_multi_on_a_non_blocking_stream(ga):
    """The gathers behind subset_* and multi_* run on the default stream;
    with a non-blocking stream given they are ordered with it both ways."""
    from pycudac import driver
    s = driver.Stream(flags=driver.stream_flags.NON_BLOCKING)
    x = np.arange(1, 20001, dtype=np.float64)
    a = ga.to_gpu(x)
    a.fill(2.0, stream=s)  # queued on s: the gathers must see it
    idx = ga.to_gpu(np.arange(0, 20000, 7, dtype=np.int32))
    assert float(ga.subset_sum(idx, a, stream=s).get()) == 2.0 * idx.size
    b = ga.to_gpu(x.copy())
    (t,) = ga.multi_take_put([b], ga.to_gpu(np.arange(5, dtype=np.int32)),
                             ga.to_gpu(np.arange(5, dtype=np.int32) * 2), dest_shape=(5,),
                             stream=s)
    t *= 10  # on the default stream, after the put
    s.synchronize()
    np.testing.assert_array_equal(t.get(), x[:10:2] * 10)


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
