"""GPUArray advanced indexing (integer arrays, boolean masks, in reads and
assignments) and vec-type arithmetic, checked against NumPy. Runs on the
simulator (CI) and the GPU."""
import numpy as np
import pytest

from pycudac._gpuarray import layout as _layout
from numpy.lib.recfunctions import structured_to_unstructured, unstructured_to_structured

from _arrays import OUT_OF_RANGE, sample

DTYPES = [np.bool_, np.int8, np.uint64, np.float16, np.float32, np.float64, np.complex64]


pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


def mask_of(shape, seed=1, p=0.4):
    return np.random.default_rng(seed).random(shape) < p


def check(got, want):
    """Indexing moves elements bit for bit: exact equality, shape and dtype."""
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
    np.testing.assert_array_equal(got.get(), want)


# ------------------------------------------------------------------ boolean masks

@pytest.mark.parametrize("dtype", DTYPES)
def test_mask_getitem_every_dtype(ga, dtype):
    x = sample(dtype)
    a = ga.to_gpu(x)
    m = mask_of(x.shape)
    check(a[m], x[m])                       # host mask
    check(a[ga.to_gpu(m)], x[m])            # device mask: scan + compaction
    rows = mask_of(x.shape[:1], seed=2)
    check(a[ga.to_gpu(rows)], x[rows])      # leading sub-shape: whole rows
    check(a[rows.tolist()], x[rows.tolist()])


@pytest.mark.parametrize("dtype", [np.int8, np.uint64, np.float16, np.complex64, np.float64])
def test_mask_setitem_every_dtype(ga, dtype):
    x = sample(dtype, seed=3)
    m = mask_of(x.shape, seed=4)
    a = ga.to_gpu(x)
    a[ga.to_gpu(m)] = 1
    x[m] = 1
    check(a, x)
    vals = sample(dtype, (int(m.sum()),), seed=5)
    a[m] = vals                             # host values, one per selected element
    x[m] = vals
    check(a, x)
    a[ga.to_gpu(m)] = ga.to_gpu(vals[::-1].copy())
    x[m] = vals[::-1]
    check(a, x)


def test_mask_setitem_broadcast_and_cast(ga):
    x = np.zeros((6, 4), np.float32)
    a = ga.to_gpu(x)
    rows = np.array([True, False, True, True, False, False])
    a[ga.to_gpu(rows)] = ga.to_gpu(np.arange(4, dtype=np.int64))   # one row for every row
    x[rows] = np.arange(4)
    check(a, x)
    a[x > 1] = np.float64(-2.5)
    x[x > 1] = -2.5
    check(a, x)
    b = ga.to_gpu(np.arange(5, dtype=np.int8))
    b[ga.to_gpu(np.array([True, False, True, False, True]))] = 2.7   # NumPy casts
    y = np.arange(5, dtype=np.int8)
    y[[True, False, True, False, True]] = 2.7
    check(b, y)
    if OUT_OF_RANGE is None:  # NumPy 1.23 wraps: so does pycudac
        b[np.ones(5, bool)] = 300
        assert (b.get() == np.int8(300 - 256)).all()
    else:
        with pytest.raises(OUT_OF_RANGE):
            b[np.ones(5, bool)] = 300


def test_mask_on_views_and_fortran(ga):
    x = sample(np.float32, (6, 8), seed=6)
    a = ga.to_gpu(x)
    for view_index in [(slice(None, None, 2), slice(None, None, -1)), (slice(1, 5), 3),
                       (Ellipsis, slice(1, None, 3))]:
        xv = x[view_index]
        m = mask_of(xv.shape, seed=7)
        check(a[view_index][ga.to_gpu(m)], xv[m])
        check(a[view_index][m], xv[m])
    check(a.T[ga.to_gpu(x.T > 0)], x.T[x.T > 0])
    f = np.asfortranarray(x)
    af = ga.to_gpu(f)
    mf = np.asfortranarray(mask_of(f.shape, seed=8))
    check(af[ga.to_gpu(mf)], f[mf])          # C order over an F array and an F mask
    # a strided mask, and writing through a strided view
    mm = mask_of((6, 16), seed=9)[:, ::2]
    check(a[ga.to_gpu(mask_of((6, 16), seed=9))[:, ::2]], x[mm])
    y = x.copy()
    a[::2, 1::3][ga.to_gpu(y[::2, 1::3] > 0)] = 0
    y[::2, 1::3][y[::2, 1::3] > 0] = 0
    check(a, y)


def test_mask_empty_zero_d_and_none_selected(ga):
    x = sample(np.float64, (4, 3))
    a = ga.to_gpu(x)
    none = np.zeros((4, 3), bool)
    check(a[ga.to_gpu(none)], x[none])
    check(a[np.ones((4, 3), bool)], x.ravel())
    e = ga.to_gpu(np.zeros((0, 3), np.int8))
    check(e[ga.to_gpu(np.zeros((0, 3), bool))], np.zeros(0, np.int8))
    z = ga.to_gpu(np.array(2.5))
    for m in (True, False, np.True_, np.array(False)):
        check(z[m], np.array(2.5)[m])
    check(a[True], x[True])
    check(a[ga.to_gpu(np.array(True))], x[np.array(True)])
    a[ga.to_gpu(none)] = 7           # selects nothing, writes nothing
    check(a, x)
    a[False] = 1
    check(a, x)


def test_mask_combined_with_other_indices(ga):
    x = sample(np.int32, (4, 5, 6), seed=10)
    a = ga.to_gpu(x)
    m2 = mask_of((5, 6), seed=11)
    m1 = mask_of((5,), seed=12, p=0.5)
    for index in [(slice(None), m2), (1, m2), (m1.nonzero()[0][:1], m1), (slice(1, 3), m1, 2),
                  (Ellipsis, mask_of((6,), seed=13)), (mask_of((4,), seed=14), slice(None), 0)]:
        masks_on_device = tuple(ga.to_gpu(i) if isinstance(i, np.ndarray) and i.dtype == bool
                                else i for i in index)
        all_on_device = tuple(ga.to_gpu(i) if isinstance(i, np.ndarray) else i for i in index)
        check(a[index], x[index])
        check(a[masks_on_device], x[index])
        check(a[all_on_device], x[index])


# ------------------------------------------------------------------ integer arrays

@pytest.mark.parametrize("dtype", DTYPES + [np.complex128])
def test_int_getitem_every_dtype(ga, dtype):
    x = sample(dtype, (6, 3))
    a = ga.to_gpu(x)
    idx = np.array([5, 0, -1, 2, 2, -6])
    check(a[idx], x[idx])
    check(a[ga.to_gpu(idx)], x[idx])
    check(a[list(idx)], x[list(idx)])
    check(a[:, ga.to_gpu(np.array([2, 0], np.int8))], x[:, [2, 0]])


@pytest.mark.parametrize("idx_dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32,
                                       np.uint32, np.int64, np.uint64])
def test_int_index_dtypes(ga, idx_dtype):
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    a = ga.to_gpu(x)
    idx = np.array([19, 0, 7, 3], idx_dtype)
    if np.dtype(idx_dtype).kind == "i":
        idx = np.array([19, -1, 7, -20], idx_dtype)
    check(a[ga.to_gpu(idx)], x[idx])
    strided = ga.to_gpu(np.repeat(idx, 2))[::2]     # a non-contiguous index array
    check(a[strided], x[idx])


def test_int_index_placement_like_numpy(ga):
    x = sample(np.float64, (4, 5, 6), seed=20)
    a = ga.to_gpu(x)
    i1, i2 = np.array([3, 0, -1]), np.array([[1], [3]])
    cases = [(slice(None), i1), (i1, slice(None), i1), (0, slice(None), i1),
             (slice(None), i2, i1), (Ellipsis, i1), (None, i1), (i2, 1), (1, i2, slice(1, 4)),
             (slice(None, None, -1), i1, slice(None, None, 2)), (i1[:, None], i2.T[:, :1], 0),
             (np.array(2), i1), (np.array([], np.intp), slice(None)),
             (slice(None), np.zeros((2, 0), int))]
    for index in cases:
        dev = tuple(ga.to_gpu(np.asarray(i)) if isinstance(i, (np.ndarray, list))
                    and np.asarray(i).ndim else i for i in index)
        check(a[index], x[index])
        check(a[dev], x[index])
    check(a[[]], x[[]])    # an empty list indexes nothing (not a float array)


def test_int_setitem(ga):
    x = sample(np.float32, (6, 4), seed=21)
    a = ga.to_gpu(x)
    a[[0, -1]] = 5
    x[[0, -1]] = 5
    a[ga.to_gpu(np.array([1, 2]))] = ga.to_gpu(np.arange(8, dtype=np.float64).reshape(2, 4))
    x[[1, 2]] = np.arange(8).reshape(2, 4)
    a[:, ga.to_gpu(np.array([3], np.uint16))] = np.array([[1], [2], [3], [4], [5], [6]])
    x[:, [3]] = np.array([[1], [2], [3], [4], [5], [6]])
    a[ga.to_gpu(np.array([4, 5])), ga.to_gpu(np.array([0, 2]))] = [-1, -2]
    x[[4, 5], [0, 2]] = [-1, -2]
    a[[[3]], [[0, 1, 2]]] = ga.to_gpu(np.array([7.0, 8.0, 9.0], np.float32))
    x[[[3]], [[0, 1, 2]]] = [7, 8, 9]
    check(a, x)
    # the value overlaps the destination: read before written
    b = ga.to_gpu(np.arange(10, dtype=np.int64))
    y = np.arange(10)
    b[[0, 1, 2, 3]] = b[3::-1]
    y[[0, 1, 2, 3]] = y[3::-1].copy()
    check(b, y)


def test_int_setitem_repeated_indices(ga):
    """Repeated indices: one of the values lands (which one is unspecified
    on a parallel device; NumPy's serial loop makes it the last)."""
    a = ga.to_gpu(np.zeros(4, np.int32))
    a[ga.to_gpu(np.array([1, 1, 1, 3]))] = ga.to_gpu(np.array([10, 20, 30, 40], np.int32))
    got = a.get()
    assert got[1] in (10, 20, 30) and got[3] == 40 and got[0] == got[2] == 0


def test_out_of_range_indices_raise(ga):
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    a = ga.to_gpu(x)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        a[[0, 3]]
    with pytest.raises(IndexError, match="index -5 is out of bounds for axis 1 with size 4"):
        a[:, ga.to_gpu(np.array([0, -5, 1]))]
    with pytest.raises(IndexError, match=f"index {2**63 + 1} is out of bounds for axis 0"):
        a[ga.to_gpu(np.array([2**63 + 1, 0], np.uint64))]
    with pytest.raises(IndexError, match="out of bounds"):
        a[ga.to_gpu(np.array([0])), ga.to_gpu(np.array([4]))]
    # an assignment with a bad device index writes nothing
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0"):
        a[ga.to_gpu(np.array([0, 1, 7]))] = 99
    with pytest.raises(IndexError, match="out of bounds"):
        a[[0, 1, 7]] = 99
    check(a, x)
    e = ga.to_gpu(np.zeros((0, 2), np.float32))
    with pytest.raises(IndexError, match="size 0"):
        e[ga.to_gpu(np.array([0]))]
    # indexing still works after an error (the error buffer is per call)
    check(a[ga.to_gpu(np.array([2, 0]))], x[[2, 0]])


def test_bad_index_input(ga):
    a = ga.to_gpu(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="integer \\(or boolean\\) type.*float"):
        a[np.array([0.0, 1.0])]
    with pytest.raises(IndexError, match="integer \\(or boolean\\) type.*float"):
        a[ga.to_gpu(np.array([0.0, 1.0]))]
    with pytest.raises(IndexError, match="integer \\(or boolean\\) type.*object"):
        a[np.array([0, None], dtype=object)]
    with pytest.raises(IndexError, match="integer \\(or boolean\\) type"):
        a[[0.5]]
    with pytest.raises(IndexError, match="boolean index did not match.*axis 0.*3.*4"):
        a[ga.to_gpu(np.ones(4, bool))]
    with pytest.raises(IndexError, match="boolean index did not match.*axis 1"):
        a[np.ones((3, 5), bool)]
    with pytest.raises(IndexError, match="too many indices"):
        a[np.ones((3, 4, 1), bool)]
    with pytest.raises(IndexError, match="broadcast"):
        a[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="valid indices"):
        a["x"]
    with pytest.raises(ValueError, match="shape mismatch.*\\(3,\\).*\\(2, 4\\)"):
        a[[0, 1]] = np.zeros(3)
    with pytest.raises(ValueError, match="shape mismatch"):
        a[np.ones((3, 4), bool)] = ga.to_gpu(np.zeros(5, np.float32))
    with pytest.raises(TypeError, match="cannot assign"):
        a[[0]] = ga.to_gpu(np.zeros(4, ga.vec.float4))
    with pytest.raises(ValueError, match="could not convert"):   # as NumPy
        a[[0]] = "x"


def test_index_arrays_from_another_context(ga):
    from pycudac import driver
    a = ga.to_gpu(np.arange(4, dtype=np.float32))
    ctx2 = driver.Device(0).make_context()
    try:
        idx = ga.to_gpu(np.array([0, 1]))
        with pytest.raises(ValueError, match="context"):
            a[idx]
        with pytest.raises(ValueError, match="context"):
            a[[0, 1]]       # a's context is not current
        del idx
        _layout.pools.pop(ctx2, None)
    finally:
        driver.Context.pop()
    ctx2.detach()


def test_random_index_tuples_match_numpy(ga):
    """Random mixes of ints, slices, None, integer arrays and masks, read and
    written, on host and device index arrays."""
    rng = np.random.default_rng(42)
    for case in range(80):
        shape = tuple(int(n) for n in rng.integers(1, 5, rng.integers(1, 4)))
        x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        index = []
        for n in shape:
            kind = rng.integers(0, 5)
            if kind == 0:
                index.append(int(rng.integers(-n, n)))
            elif kind == 1:
                start, stop = sorted(int(v) for v in rng.integers(-n, n + 1, 2))
                index.append(slice(start, stop, int(rng.choice([1, 2, -1]))))
            elif kind == 2:
                index.append(rng.integers(-n, n, rng.integers(1, 4)))
            elif kind == 3:
                index.append(rng.random(n) < 0.5)
            else:
                index.append(None)
                index.append(slice(None))
        index = tuple(index)
        try:
            want = x[index]
        except IndexError:
            continue     # arrays that do not broadcast together
        for dev in (False, True):
            ix = tuple(ga.to_gpu(i) if dev and isinstance(i, np.ndarray) else i for i in index)
            a = ga.to_gpu(x)
            check(a[ix], want)
            if want.ndim and want.size:
                vals = rng.standard_normal(want.shape).astype(np.float32)
                y = x.copy()
                y[index] = vals
                a[ix] = ga.to_gpu(vals)
                # repeated indices may pick another of the values: compare
                # only where NumPy's assignment is unambiguous
                if len(np.unique(np.arange(x.size).reshape(shape)[index])) == want.size:
                    check(a, y)


# ------------------------------------------------------------------ vec types

def comps(h):
    return structured_to_unstructured(h)


VEC = ["float4", "float3", "double2", "int4", "char4", "uint2", "long1"]


@pytest.mark.parametrize("name", VEC)
def test_vec_arithmetic(ga, name):
    vdt = getattr(ga.vec, name)
    base = vdt.fields["x"][0]
    x, y = sample(vdt, (7,), seed=1), sample(vdt, (7,), seed=2)
    if base.kind in "iu":
        y = unstructured_to_structured(np.where(comps(y) == 0, 3, comps(y)).astype(base), vdt)
    a, b = ga.to_gpu(x), ga.to_gpu(y)
    tol = {"f": dict(rtol=1e-6 if base == np.float32 else 1e-13)}.get(base.kind, dict(rtol=0))
    with np.errstate(all="ignore"):
        for got, want in [(a + b, comps(x) + comps(y)), (a - b, comps(x) - comps(y)),
                          (a * b, comps(x) * comps(y)), (a * 3, comps(x) * base.type(3)),
                          (2 - a, base.type(2) - comps(x)), (-a, -comps(x))]:
            assert got.dtype == vdt
            np.testing.assert_allclose(comps(got.get()), want, **tol)
        q = a / b
        want = comps(x) / comps(y)
        assert comps(q.get()).dtype == want.dtype     # int4 / int4 -> double4 (as NumPy)
        np.testing.assert_allclose(comps(q.get()), want, rtol=1e-6)
    c = a.copy()
    c += b
    np.testing.assert_allclose(comps(c.get()), comps((a + b).get()))


def test_vec_scalars_broadcast_views(ga):
    f4 = ga.vec.float4
    x = sample(f4, (4, 5), seed=3)
    a = ga.to_gpu(x)
    v = ga.vec.make_float4(1, 2, 3, 4)
    np.testing.assert_allclose(comps((a * v).get()), comps(x) * np.float32([1, 2, 3, 4]))
    np.testing.assert_allclose(comps((v - a).get()), np.float32([1, 2, 3, 4]) - comps(x))
    np.testing.assert_allclose(comps((a + a[0]).get()), comps(x) + comps(x)[0], rtol=1e-6)
    np.testing.assert_allclose(comps((a[::2, ::-2] * 0.5).get()), comps(x[::2, ::-2]) * 0.5)
    assert (a * np.float64(2)).dtype == ga.vec.double4      # NEP 50: a strong float64
    z = ga.to_gpu(sample(f4, (), seed=4))
    np.testing.assert_allclose(comps((z + z).get()), 2 * comps(z.get()))
    e = ga.to_gpu(np.zeros((0, 3), f4))
    assert (e + e).shape == (0, 3) and (e + e).dtype == f4
    with pytest.raises(ValueError, match="broadcast.*\\(4, 5\\) \\(3,\\)"):
        a + ga.to_gpu(np.zeros(3, f4))
    i4 = ga.to_gpu(np.zeros(2, ga.vec.int4))
    with pytest.raises(TypeError, match="cannot cast"):
        i4 += 2.5
    with pytest.raises(OverflowError):
        ga.to_gpu(np.zeros(2, ga.vec.char4)) + 300


def test_vec_fill_and_constructors(ga):
    f3 = ga.vec.float3
    a = ga.empty((3, 2), f3)
    a.fill(1.5)
    np.testing.assert_array_equal(comps(a.get()), np.full((3, 2, 3), 1.5, np.float32))
    a.fill(ga.vec.make_float3(1, 2, 3))
    np.testing.assert_array_equal(comps(a.get()), np.tile(np.float32([1, 2, 3]), (3, 2, 1)))
    a[:, 1].fill((7, 8, 9))
    a[0, 0] = ga.vec.make_float3(-1, -2, -3)
    want = np.tile(np.float32([1, 2, 3]), (3, 2, 1))
    want[:, 1] = [7, 8, 9]
    want[0, 0] = [-1, -2, -3]
    np.testing.assert_array_equal(comps(a.get()), want)
    np.testing.assert_array_equal(comps(ga.ones(4, ga.vec.int2).get()), np.ones((4, 2)))
    np.testing.assert_array_equal(comps(ga.zeros(4, ga.vec.double2).get()), np.zeros((4, 2)))
    for bad in ("x", 1j, (1, 2), ga.vec.make_int3(1, 2, 3), [1, 2, 3]):
        with pytest.raises(TypeError, match="float3"):
            a.fill(bad)


def test_vec_unsupported_operations_name_dtype_and_op(ga):
    a = ga.to_gpu(np.zeros(3, ga.vec.float4))
    i = ga.to_gpu(np.zeros(3, ga.vec.int4))
    for fn, op in [(lambda: a == a, "equal"), (lambda: a < 1, "less"), (lambda: abs(a), "absolute"),
                   (lambda: a // a, "floor_divide"), (lambda: a ** 2, "power"),
                   (lambda: i & i, "bitwise_and"), (lambda: ~i, "invert")]:
        with pytest.raises(TypeError, match=f"{op}.*(float4|int4)"):
            fn()
    with pytest.raises(TypeError, match="float4 with int4"):
        a + i
    with pytest.raises(TypeError, match="float4 with float32"):
        a + ga.to_gpu(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="float4 with float32"):
        ga.to_gpu(np.zeros(3, np.float32)) * a
    with pytest.raises(TypeError, match="float4"):
        a + 1j
    with pytest.raises(TypeError, match="int4 scalar"):
        a + ga.vec.make_int4(1, 2, 3, 4)
    s = ga.to_gpu(np.zeros(3, np.dtype([("a", np.int32), ("b", np.float32)])))
    with pytest.raises(TypeError, match="gpuarray.vec"):
        s + s


def test_vec_indexing(ga):
    for name in ("float4", "float3", "double2", "char3"):
        vdt = getattr(ga.vec, name)
        x = sample(vdt, (6, 3), seed=5)
        a = ga.to_gpu(x)
        m = mask_of((6, 3), seed=6)
        check(a[ga.to_gpu(m)], x[m])
        check(a[[4, -1, 0]], x[[4, -1, 0]])
        check(a[:, ga.to_gpu(np.array([2, 2]))], x[:, [2, 2]])
        v = getattr(ga.vec, f"make_{name}")(*range(1, len(vdt.names) + 1))
        a[ga.to_gpu(m)] = v
        x[m] = v
        a[[1]] = ga.to_gpu(x[[5]])
        x[[1]] = x[[5]]
        check(a, x)
