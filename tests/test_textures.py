"""Texture and surface fetches (pycudac.driver.TextureObject, SurfaceObject)
on both backends. CUDA arrays, their copies, refusals, lifetimes and what
the CUDA backend asks of the driver are test_textures_arrays.py's.

Every fetch is checked against a NumPy reference of the hardware's rule
(CUDA Programming Guide, "Texture Fetching"), written out below: texel
centres at i + 0.5; point filtering reads texel floor(x); linear filtering
reads texels floor(x - 0.5) and the next, weighted by the fraction of
x - 0.5 in 9-bit fixed point with 8 fractional bits; wrap and mirror only
with normalized coordinates (else clamp); border reads the border colour.
The coordinate arithmetic is done in float32, as the texture unit does.
Every kernel here is also compiled by NVRTC, so that the simulator's
headers and CUDA's never disagree unseen."""
import subprocess
import sys

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

import _texture_kernels  # noqa: E402
from _texture_kernels import INT_TYPES, SOURCE  # noqa: E402

mod = _texture_kernels.mod  # a fixture: pytest finds it in this module

pytestmark = pytest.mark.usefixtures("autoinit")

AM = drv.address_mode
FM = drv.filter_mode
F32 = np.float32


def launch(mod, name, n, *args):
    mod.get_function(name)(*args, np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1))


# ---- the reference --------------------------------------------------------------------------

def _coord(x, n, mode, norm):
    """A coordinate in texels (float32 arithmetic, as the texture unit)."""
    x = F32(x)
    if norm:
        if mode == AM.WRAP:
            x = F32(x - np.floor(x))
        elif mode == AM.MIRROR:
            f = np.floor(x)
            r = F32(x - f)
            x = F32(F32(1) - r) if int(f) & 1 else r
        x = F32(x * F32(n))
    return x


def _index(i, n, mode, norm):
    """Texel index along one axis, or None for the border."""
    if 0 <= i < n:
        return i
    if mode == AM.BORDER:
        return None
    if not norm or mode == AM.CLAMP:
        return 0 if i < 0 else n - 1
    if mode == AM.WRAP:
        return i % n
    j = i % (2 * n)
    return j if j < n else 2 * n - 1 - j


def _weight(xb):
    f = np.floor(xb)
    return int(f), float(np.rint(F32(xb - f) * F32(256)) / 256)


def reference(data, coords, modes, filt, norm, border=0.0):
    """The fetch of `data` (C order: (layers or depth, height, width) as the
    texture has them, float values) at `coords` ((x, y, z) per fetch; the
    layer as the last entry for a layered texture)."""
    dims = len(coords[0])
    shape = data.shape[::-1]  # (w, h, d)
    out = []
    for c in coords:
        tc = [_coord(c[k], shape[k], modes[k], norm) for k in range(dims)]
        if filt == FM.POINT:
            taps = [([int(np.floor(t)) for t in tc], 1.0)]
        else:
            iw = [_weight(F32(t - F32(0.5))) for t in tc]
            taps = []
            for corner in np.ndindex(*(2,) * dims):
                w = 1.0
                for k, b in enumerate(corner):
                    w *= iw[k][1] if b else 1.0 - iw[k][1]
                taps.append(([iw[k][0] + b for k, b in enumerate(corner)], w))
        v = 0.0
        for idx, w in taps:
            ii = [_index(i, shape[k], modes[k], norm) for k, i in enumerate(idx)]
            v += w * (border if None in ii else float(data[tuple(ii[::-1])]))
        out.append(v)
    return np.array(out)


def _tolerance(data, filt, half=False, dims=1):
    """assert_allclose's tolerances for fetches of `data`. The simulator is
    the reference's rule exactly. A GPU differs in linear filtering by up to
    a weight step (1/256 of the data's span) for each filtered dimension:
    the H100 (2026-11-28) by 0.26 of a step in 1D and 2D, an H200 by 1.004
    steps in one of 48 trilinear 3D fetches (32Y); and returns a half
    texture's filtered values in half precision (2^-11 relative seen):
    documented in docs/textures.md."""
    if drv.get_backend() == "sim" or filt != FM.LINEAR:
        return dict(rtol=1e-5, atol=1e-6)
    span = float(np.max(data)) - float(np.min(data))
    return dict(rtol=2.0 ** -10 if half else 1e-5, atol=dims * span / 256)


def reference_layered(data, coords, modes, filt, norm):
    """data: (layers, [height,] width); coords: (x[, y], layer)."""
    out = []
    for c in coords:
        layer = min(max(int(c[-1]), 0), data.shape[0] - 1)
        out.append(reference(data[layer], [c[:-1]], modes, filt, norm)[0])
    return np.array(out)


def test_the_reference_quantizes_weights_to_8_bits():
    data = np.array([0.0, 1.0], np.float32)
    got = reference(data, [(F32(0.5 + 0.3),)], (AM.CLAMP,) * 3, FM.LINEAR, False)
    assert got[0] == pytest.approx(77 / 256)  # 0.3 * 256 = 76.8, to nearest
    assert reference(data, [(1.0 + 1e-3,)], (AM.CLAMP,) * 3, FM.LINEAR, False)[0] == 0.5


# ---- every address mode x filter mode x coordinates, on each shape --------------------------

SHAPES = {"1D": (7,), "2D": (5, 6), "3D": (3, 4, 5), "1D layered": (3, 6),
          "2D layered": (2, 4, 5)}
MODES = [AM.WRAP, AM.CLAMP, AM.MIRROR, AM.BORDER]


def _coords(rng, shape, dims, norm, layered):
    """Points inside, on texel centres and edges, and outside (both sides)."""
    sizes = shape[::-1][:dims]
    n = 48
    cols = []
    for s in sizes:
        if norm:
            v = rng.uniform(-1.3, 2.3, n)
            v[:6] = [0, 0.5 / s, 1 - 0.5 / s, 1, -0.25 / s, 1 + 0.25 / s]
        else:
            v = rng.uniform(-2.4, s + 2.4, n)
            v[:6] = [0, 0.5, s - 0.5, s, -0.7, s + 0.7]
        cols.append(v.astype(np.float32))
    if layered:
        # layers in range: PTX takes the index unsigned, so -1 is a huge
        # layer there, and one past the end is undefined on the GPU
        cols.append(rng.integers(0, shape[0], n).astype(np.int32))
    return cols


@pytest.mark.parametrize("norm", [False, True], ids=["texels", "normalized"])
@pytest.mark.parametrize("filt", [FM.POINT, FM.LINEAR], ids=["point", "linear"])
@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
@pytest.mark.parametrize("shape_name", list(SHAPES))
def test_fetch_matches_the_hardware_rule(mod, shape_name, mode, filt, norm):
    shape = SHAPES[shape_name]
    layered = "layered" in shape_name
    dims = len(shape) - 1 if layered else len(shape)
    seed = hash((shape_name, int(mode), int(filt), norm)) % 2**32  # (str hashes vary by run)
    rng = np.random.default_rng(seed)
    data = rng.uniform(-4, 4, shape).astype(np.float32)
    arr = drv.np_to_array(data, layered=layered)
    tex = drv.TextureObject(arr, address_mode=mode, filter_mode=filt, normalized_coords=norm)
    cols = _coords(rng, shape, dims, norm, layered)
    n = len(cols[0])
    out = np.zeros(n, np.float32)
    name = {"1D": "f1", "2D": "f2", "3D": "f3", "1D layered": "l1", "2D layered": "l2"}
    launch(mod, name[shape_name], n, tex, *[drv.In(c) for c in cols], drv.Out(out))
    points = list(zip(*cols))
    modes = (mode,) * 3
    if layered:
        want = reference_layered(data, points, modes, filt, norm)
    else:
        want = reference(data, points, modes, filt, norm)
    np.testing.assert_allclose(out, want, **_tolerance(data, filt, dims=dims),
                               err_msg=f"numpy.random.default_rng({seed})")


def test_mixed_address_modes_and_a_border_colour(mod):
    data = np.arange(20, dtype=np.float32).reshape(4, 5)
    arr = drv.np_to_array(data)
    tex = drv.TextureObject(arr, address_mode=(AM.BORDER, AM.CLAMP), border_color=(7.5,))
    x = np.array([-1, 0.5, 4.5, 5.5, 2.5], np.float32)
    y = np.array([0.5, -3, 9, 1.5, 1.5], np.float32)
    out = np.zeros(5, np.float32)
    launch(mod, "f2", 5, tex, drv.In(x), drv.In(y), drv.Out(out))
    np.testing.assert_array_equal(out, [7.5, 0, 19, 7.5, 7])


def test_four_channels_filter_per_channel(mod):
    rng = np.random.default_rng(5)
    data = rng.uniform(0, 1, (3, 4, 4)).astype(np.float32)
    arr = drv.np_to_array(data, num_channels=4)
    assert arr.shape == (3, 4, 4) and arr.num_channels == 4
    tex = drv.TextureObject(arr, filter_mode=FM.LINEAR)
    x = rng.uniform(-1, 5, 20).astype(np.float32)
    y = rng.uniform(-1, 4, 20).astype(np.float32)
    out = np.zeros((20, 4), np.float32)
    launch(mod, "f2v", 20, tex, drv.In(x), drv.In(y), drv.Out(out))
    for c in range(4):
        want = reference(data[..., c], list(zip(x, y)), (AM.CLAMP,) * 3, FM.LINEAR, False)
        np.testing.assert_allclose(out[:, c], want, **_tolerance(data[..., c], FM.LINEAR))


# ---- read modes ----------------------------------------------------------------------------

NORM = {np.uint8: 255.0, np.int8: 127.0, np.uint16: 65535.0, np.int16: 32767.0}


@pytest.mark.parametrize("filt", [FM.POINT, FM.LINEAR], ids=["point", "linear"])
@pytest.mark.parametrize("dt", list(NORM), ids=lambda d: np.dtype(d).name)
def test_read_as_float_normalizes_8_and_16_bit_integers(mod, dt, filt):
    info = np.iinfo(dt)
    data = np.array([info.min, info.min + 1, 0, 1, info.max // 2, info.max - 1, info.max], dt)
    arr = drv.np_to_array(data)
    tex = drv.TextureObject(arr, filter_mode=filt, read_as_float=True)
    x = np.linspace(-1, len(data) + 1, 40).astype(np.float32)
    out = np.zeros(40, np.float32)
    launch(mod, "f1", 40, tex, drv.In(x), drv.Out(out))
    scaled = np.maximum(data.astype(np.float64) / NORM[dt], -1.0)
    want = reference(scaled, list(zip(x)), (AM.CLAMP,) * 3, filt, False)
    np.testing.assert_allclose(out, want, **_tolerance(scaled, filt))
    assert out.min() >= (-1 if info.min < 0 else 0) and out.max() <= 1


def test_half_arrays_read_as_floats_and_filter(mod):
    data = np.array([-2.5, 0.125, 1024, 65504, -0.0], np.float16)
    tex = drv.TextureObject(drv.np_to_array(data), filter_mode=FM.LINEAR)
    x = np.linspace(-1, 6, 29).astype(np.float32)
    out = np.zeros(29, np.float32)
    launch(mod, "f1", 29, tex, drv.In(x), drv.Out(out))
    want = reference(data.astype(np.float64), list(zip(x)), (AM.CLAMP,) * 3, FM.LINEAR, False)
    tol = _tolerance(data.astype(np.float64), FM.LINEAR, half=True)
    if drv.get_backend() != "sim":  # half values: the 8-bit weight step is relative to the
        tol["atol"] = 0.0            # neighbours, not to the span from -2.5 to 65504
    np.testing.assert_allclose(out, want, **tol)


@pytest.mark.parametrize("ctype", INT_TYPES)
def test_element_type_reads_return_the_integers(mod, ctype):
    dt = {"unsigned char": np.uint8, "signed char": np.int8, "unsigned short": np.uint16,
          "short": np.int16, "int": np.int32, "unsigned int": np.uint32}[ctype]
    info = np.iinfo(dt)
    data = np.array([info.min, 0, 1, 100, info.max], dt)
    if dt == np.uint32:
        data[-1] = 2**31 - 1  # read back through an int
    arr = drv.np_to_array(data)
    tex = drv.TextureObject(arr, address_mode=AM.BORDER)
    x = np.array([0.5, 1.5, 2.2, 3.9, 4.5, 5.5, -0.5], np.float32)
    out = np.zeros(7, np.int32)
    launch(mod, f"e_{ctype.replace(' ', '_')}", 7, tex, drv.In(x), drv.Out(out))
    np.testing.assert_array_equal(out, list(data.astype(np.int64)) + [0, 0])


def test_uchar4_element_reads(mod):
    data = np.arange(24, dtype=np.uint8).reshape(6, 4) * 10
    tex = drv.TextureObject(drv.np_to_array(data, num_channels=4))
    out = np.zeros(24, np.int32)
    mod.get_function("i1_uchar4")(tex, drv.Out(out), np.int32(6), block=(6, 1, 1))
    np.testing.assert_array_equal(out, data.ravel())


def test_a_float_read_of_an_integer_texture_is_a_launch_error_on_the_simulator():
    if drv.get_backend() != "sim":
        pytest.skip("undefined on a GPU; the simulator says so")
    out = _child("""
from pycudac.compiler import SourceModule
m = SourceModule('''__global__ void k(cudaTextureObject_t t, float *o)
{ o[0] = tex1D<float>(t, 0.5f); }''')
t = drv.TextureObject(drv.np_to_array(np.arange(4, dtype=np.int32)))
m.get_function("k")(t, drv.Out(np.zeros(1, np.float32)), block=(1, 1, 1))
""")
    assert "kernel 'k'" in out and "returns integers" in out, out


# ---- tex1Dfetch over linear memory -----------------------------------------------------------

def test_tex1Dfetch_over_a_gpuarray(mod, ga):
    data = np.arange(10, dtype=np.float32) * 1.5
    g = ga.to_gpu(data)
    tex = drv.TextureObject(g)
    out = np.full(14, -1, np.float32)
    mod.get_function("fetch_f")(tex, drv.Out(out), np.int32(14), block=(14, 1, 1))
    # index i - 2: two before the start and two past the end read 0
    np.testing.assert_array_equal(out, np.concatenate([[0, 0], data, [0, 0]]))


def test_a_texture_over_freed_linear_memory_is_refused_at_launch(mod, ga):
    """A TextureObject keeps its GPUArray alive, but the DeviceAllocation
    under it could still be free()d, and the next fetch read whatever lived
    there then (found by an adversarial review): the launch refuses it."""
    alloc = drv.mem_alloc(64)
    g = ga.GPUArray((16,), np.float32, gpudata=alloc)
    g.set(np.arange(16, dtype=np.float32))
    tex = drv.TextureObject(g)
    out = np.zeros(4, np.float32)
    mod.get_function("fetch_f")(tex, drv.Out(out), np.int32(4), block=(4, 1, 1))
    assert out.tolist() == [0, 0, 0, 1]
    alloc.free()
    with pytest.raises(ValueError, match="argument 1 't'.*linear memory that was freed"):
        mod.get_function("fetch_f")(tex, drv.Out(out), np.int32(4), block=(4, 1, 1))
    assert not drv.is_poisoned()


def test_a_texture_over_an_array_launches_on_the_fast_path(mod, ga):
    """A TextureObject over a CUDA array is packed by the launch's fast path
    (its handle: it cannot go stale, an Array refuses free() under it), so a
    texture-reading kernel launches as cheaply as a plain one: it went
    through launch_general (issue 25's texture row, 1.06x of the C floor on
    two H200 hosts). One over linear memory still goes there, which checks
    that memory (the review's freed-memory refusal, here with every other
    argument one the fast path takes)."""
    f = mod.get_function("f1")
    arr = drv.np_to_array(np.arange(8, dtype=np.float32) * 2)
    tex = drv.TextureObject(arr, filter_mode=drv.filter_mode.POINT)
    x = drv.mem_alloc(4 * 8)
    drv.memcpy_htod(x, np.arange(8, dtype=np.float32) + 0.5)
    out = drv.mem_alloc(4 * 8)
    block = (8, 1, 1)
    f(tex, x, out, np.int32(8), block=block)  # parses the block tuple
    before = drv._debug_counters()["general_launches"]
    for _ in range(50):
        f(tex, x, out, 8, block=block)
    assert drv._debug_counters()["general_launches"] == before
    got = np.empty(8, np.float32)
    drv.memcpy_dtoh(got, out)
    assert got.tolist() == (np.arange(8) * 2.0).tolist()
    alloc = drv.mem_alloc(64)
    g = ga.GPUArray((16,), np.float32, gpudata=alloc)
    g.set(np.arange(16, dtype=np.float32))
    lin = drv.TextureObject(g)
    fetch = mod.get_function("fetch_f")
    res = drv.mem_alloc(16)
    fetch(lin, res, np.int32(4), block=(4, 1, 1))
    before = drv._debug_counters()["general_launches"]
    fetch(lin, res, np.int32(4), block=(4, 1, 1))
    assert drv._debug_counters()["general_launches"] == before + 1
    alloc.free()
    with pytest.raises(ValueError, match="argument 1 't'.*linear memory that was freed"):
        fetch(lin, res, np.int32(4), block=(4, 1, 1))
    assert not drv.is_poisoned()


@pytest.mark.detached_memory
def test_a_texture_of_a_detached_context_is_refused(mod, ga):
    """A TextureObject goes with its context: a launch took it and read
    whatever the new context had at that address (a review: 77s where the
    texture's data had been), on the fast path and the general one."""
    new = drv.Device(0).make_context()
    data = np.arange(8, dtype=np.float32) + 1
    over_array = drv.TextureObject(drv.np_to_array(data))
    over_linear = drv.TextureObject(ga.to_gpu(data))
    drv.Context.pop()
    new.detach()
    out = drv.mem_alloc(4 * 8)
    for name, tex in (("fetch_f", over_linear), ("f1", over_array)):
        f = mod.get_function(name)
        args = (tex, out, np.int32(8)) if name == "fetch_f" else (tex, out, out, np.int32(8))
        with pytest.raises(drv.LogicError, match="argument 1 't'.*TextureObject's context "
                                                 "was detached"):
            f(*args, block=(8, 1, 1))
    assert not drv.is_poisoned()


def test_tex1Dfetch_of_two_channels(mod, ga):
    data = np.arange(16, dtype=np.int32).reshape(8, 2)
    tex = drv.TextureObject(ga.to_gpu(data), num_channels=2)
    out = np.zeros(16, np.int32)
    mod.get_function("fetch_i2")(tex, drv.Out(out), np.int32(8), block=(8, 1, 1))
    np.testing.assert_array_equal(out, data.ravel())


# ---- surfaces ------------------------------------------------------------------------------

def test_surface_round_trips_1d_2d_3d(mod):
    a1 = np.arange(9, dtype=np.int32) - 4
    s1 = drv.np_to_array(a1, allowSurfaceBind=True)
    mod.get_function("surf1")(drv.SurfaceObject(s1), np.int32(9), block=(9, 1, 1))
    np.testing.assert_array_equal(s1.get(), a1 * 3)

    a2 = np.arange(15, dtype=np.float32).reshape(3, 5)
    s2 = drv.np_to_array(a2, allowSurfaceBind=True)
    mod.get_function("surf2")(drv.SurfaceObject(s2), np.int32(5), np.int32(3),
                              block=(5, 1, 1), grid=(3, 1))
    np.testing.assert_array_equal(s2.get(), a2 + 100 * np.arange(3)[:, None])

    a3 = np.arange(2 * 3 * 4 * 2, dtype=np.uint16).reshape(2, 3, 4, 2)
    s3 = drv.np_to_array(a3, allowSurfaceBind=True, num_channels=2)
    mod.get_function("surf3")(drv.SurfaceObject(s3), block=(4, 3, 1), grid=(2, 1))
    np.testing.assert_array_equal(s3.get(), a3[..., ::-1])


def _edge(mod, mode, x, y, value=0.0):
    data = np.arange(12, dtype=np.float32).reshape(3, 4) + 1
    arr = drv.np_to_array(data, allowSurfaceBind=True)
    xs, ys = np.array(x, np.int32), np.array(y, np.int32)
    out = np.zeros(len(xs), np.float32)
    mod.get_function("surf_edge")(drv.SurfaceObject(arr), drv.In(xs), drv.In(ys), drv.Out(out),
                                  np.int32(len(xs)), np.int32(mode), np.float32(value),
                                  block=(len(xs), 1, 1))
    return data, out, arr.get()


def test_surface_boundary_zero(mod):
    data, out, after = _edge(mod, 0, [-4, 16, 4, 0, 12], [0, 0, 1, 3, 2], value=-1.0)
    np.testing.assert_array_equal(out, [0, 0, data[1, 1], 0, data[2, 3]])
    want = data.copy()
    want[1, 1] = want[2, 3] = -1  # the two writes in bounds; the others are dropped
    np.testing.assert_array_equal(after, want)


def test_surface_boundary_clamp(mod):
    data, out, after = _edge(mod, 1, [-4, 16, 100, 0], [0, 1, 9, -2])
    np.testing.assert_array_equal(out, [data[0, 0], data[1, 3], data[2, 3], data[0, 0]])
    np.testing.assert_array_equal(after, data)


def _child(body):
    code = "import numpy as np\nimport pycudac.autoinit\nimport pycudac.driver as drv\n" + body
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    return r.stdout + r.stderr


def test_surface_boundary_trap_is_a_launch_error_naming_the_kernel():
    out = _child("""
from pycudac.compiler import SourceModule
m = SourceModule('''__global__ void writes_past(cudaSurfaceObject_t s)
{ surf2Dwrite(1.0f, s, 4 * 4, 0); }''')
arr = drv.np_to_array(np.zeros((2, 4), np.float32), allowSurfaceBind=True)
try:
    m.get_function("writes_past")(drv.SurfaceObject(arr), block=(1, 1, 1))
    drv.Context.synchronize()
    print("no error")
except drv.LaunchError as exc:
    print("LaunchError:", exc)
""")
    if drv.get_backend() == "sim":
        assert "LaunchError" in out and "writes_past" in out and "out of bounds" in out, out
    else:
        assert "LaunchError" in out, out


# ---- NVRTC compiles every kernel above ----------------------------------------------------------

def test_nvrtc_compiles_every_kernel_here():
    from pycudac import _driver
    from pycudac.compiler import compile as cuda_compile
    try:
        _driver._nvrtc_path()
    except Exception as exc:
        pytest.skip(f"NVRTC not found: {exc}")
    ptx = cuda_compile(SOURCE, arch="sm_90", target="ptx").decode()
    for name in ["f1", "f2", "f3", "l1", "l2", "f2v", "fetch_f", "surf2", "surf3", "surf_edge"]:
        assert f".entry {name}(" in ptx
    assert "tex.2d" in ptx and "suld" in ptx and "sust" in ptx
