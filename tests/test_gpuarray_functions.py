"""The functions of pycudac.gpuarray over GPUArrays: where, maximum and
minimum, concatenate, stack and take, logical_and/or/not (out= of the
result's shape only), subset_* reductions and multi_take/put, on the default
stream and ordered with a non-blocking one; their bad input. Checked against
NumPy; runs on the simulator (CI) and the GPU."""
import numpy as np
import pytest

from _arrays import sample

pytestmark = pytest.mark.usefixtures("autoinit")  # ga and autoinit: conftest.py


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
