"""CUDA arrays, texture objects and surface objects (pycudac.driver.Array,
np_to_array, TextureObject, SurfaceObject) on both backends.

Every fetch is checked against a NumPy reference of the hardware's rule
(CUDA Programming Guide, "Texture Fetching"), written out below: texel
centres at i + 0.5; point filtering reads texel floor(x); linear filtering
reads texels floor(x - 0.5) and the next, weighted by the fraction of
x - 0.5 in 9-bit fixed point with 8 fractional bits; wrap and mirror only
with normalized coordinates (else clamp); border reads the border colour.
The coordinate arithmetic is done in float32, as the texture unit does.
Every kernel here is also compiled by NVRTC, so that the simulator's
headers and CUDA's never disagree unseen."""
import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

pytestmark = pytest.mark.usefixtures("autoinit")

AM = drv.address_mode
FM = drv.filter_mode
F32 = np.float32

KERNELS = r"""
__global__ void f1(cudaTextureObject_t t, const float *x, float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float>(t, x[i]); }
__global__ void f2(cudaTextureObject_t t, const float *x, const float *y, float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float>(t, x[i], y[i]); }
__global__ void f3(cudaTextureObject_t t, const float *x, const float *y, const float *z,
                   float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, x[i], y[i], z[i]);
}
__global__ void l1(cudaTextureObject_t t, const float *x, const int *layer, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1DLayered<float>(t, x[i], layer[i]);
}
__global__ void l2(cudaTextureObject_t t, const float *x, const float *y, const int *layer,
                   float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float>(t, x[i], y[i], layer[i]);
}
__global__ void f2v(cudaTextureObject_t t, const float *x, const float *y, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float4 v; tex2D(&v, t, x[i], y[i]); out[i] = v; }
}
__global__ void i1_uchar4(cudaTextureObject_t t, int *out, int n)
{
    int i = threadIdx.x;
    if (i < n) { uchar4 v = tex1D<uchar4>(t, i + 0.5f);
                 out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w; }
}
__global__ void fetch_f(cudaTextureObject_t t, float *out, int n)
{ int i = threadIdx.x; if (i < n) out[i] = tex1Dfetch<float>(t, i - 2); }
__global__ void fetch_i2(cudaTextureObject_t t, int *out, int n)
{ int i = threadIdx.x; if (i < n) { int2 v = tex1Dfetch<int2>(t, i); out[2 * i] = v.x; out[2 * i + 1] = v.y; } }
__global__ void ptr_arg(int *p) { p[0] = 1; }
__global__ void surf1(cudaSurfaceObject_t s, int n)
{ int i = threadIdx.x; if (i < n) surf1Dwrite(surf1Dread<int>(s, i * 4) * 3, s, i * 4); }
__global__ void surf2(cudaSurfaceObject_t s, int w, int h)
{
    int x = threadIdx.x, y = blockIdx.x;
    float v; surf2Dread(&v, s, x * (int)sizeof(float), y);
    surf2Dwrite(v + 100.0f * y, s, x * (int)sizeof(float), y);
}
__global__ void surf3(cudaSurfaceObject_t s)
{
    int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    ushort2 v = surf3Dread<ushort2>(s, x * 4, y, z);
    surf3Dwrite(make_ushort2(v.y, v.x), s, x * 4, y, z);
}
__global__ void surf_edge(cudaSurfaceObject_t s, const int *x, const int *y, float *out, int n,
                          int mode, float value)
{
    int i = threadIdx.x;
    if (i >= n) return;
    cudaSurfaceBoundaryMode m = (cudaSurfaceBoundaryMode)mode;
    out[i] = surf2Dread<float>(s, x[i], y[i], m);
    if (value != 0.0f) surf2Dwrite(value, s, x[i], y[i], m);
}
"""

# the integer read kernels: one per texel type, each writing ints
INT_TYPES = ["unsigned char", "signed char", "unsigned short", "short", "int", "unsigned int"]
INT_KERNELS = "".join(
    f"__global__ void e_{t.replace(' ', '_')}(cudaTextureObject_t t, const float *x, int *out, int n)\n"
    f"{{ int i = threadIdx.x; if (i < n) out[i] = (int)tex1D<{t}>(t, x[i]); }}\n"
    for t in INT_TYPES)
SOURCE = KERNELS + INT_KERNELS


@pytest.fixture(scope="module")
def mod():
    from pycudac.compiler import SourceModule
    return SourceModule(SOURCE)


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


def _tolerance(data, filt, half=False):
    """assert_allclose's tolerances for fetches of `data`. The simulator is
    the reference's rule exactly. The H100 (2026-11-28) differs in linear
    filtering by less than one weight step (1/256 of the data's span: up to
    0.26 of a step seen) and returns a half texture's filtered values in
    half precision (2^-11 relative seen): documented in docs/textures.md."""
    if drv.get_backend() == "sim" or filt != FM.LINEAR:
        return dict(rtol=1e-5, atol=1e-6)
    span = float(np.max(data)) - float(np.min(data))
    return dict(rtol=2.0 ** -10 if half else 1e-5, atol=span / 256)


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
    rng = np.random.default_rng(hash((shape_name, int(mode), int(filt), norm)) % 2**32)
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
    np.testing.assert_allclose(out, want, **_tolerance(data, filt))


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


# ---- arrays and copies -----------------------------------------------------------------------

@pytest.mark.parametrize("shape,layered", [((5,), False), ((3, 5), False), ((2, 3, 5), False),
                                           ((4, 5), True), ((2, 3, 5), True)])
def test_arrays_round_trip_and_describe_themselves(shape, layered):
    data = np.random.default_rng(1).integers(-100, 100, shape).astype(np.int16)
    arr = drv.np_to_array(data, layered=layered)
    np.testing.assert_array_equal(arr.get(), data)
    np.testing.assert_array_equal(drv.array_to_np(arr), data)
    d = arr.get_descriptor_3d()
    assert d.format == drv.array_format.SIGNED_INT16 and d.num_channels == 1
    assert bool(d.flags & drv.array3d_flags.LAYERED) == layered
    rest = shape[1:] if layered else shape
    want = (rest[-1], rest[-2] if len(rest) >= 2 else 0,
            shape[0] if layered else (shape[0] if len(shape) == 3 else 0))
    assert (d.width, d.height, d.depth) == want
    flat = arr.get_descriptor()
    assert (flat.width, flat.height) == (d.width, d.height)


def test_fortran_order_and_matrix_to_array():
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = drv.matrix_to_array(m)
    assert (a.width, a.height) == (4, 3)
    np.testing.assert_array_equal(a.get(), m)
    f = drv.np_to_array(np.asfortranarray(m), order="F")
    assert (f.width, f.height) == (3, 4)
    np.testing.assert_array_equal(f.get(), m.T)


def test_make_multichannel_2d_array():
    data = np.arange(3 * 5 * 4, dtype=np.uint8).reshape(3, 5, 4)
    a = drv.make_multichannel_2d_array(data, "C")
    assert (a.width, a.height, a.num_channels) == (5, 3, 4)
    np.testing.assert_array_equal(a.get(), data)
    f = drv.make_multichannel_2d_array(data.transpose(2, 1, 0), "F")
    np.testing.assert_array_equal(f.get(), data)


def test_the_simulator_names_the_texture_functions_it_does_not_run():
    if drv.get_backend() != "sim":
        pytest.skip("a GPU runs them")
    from pycudac.compiler import SourceModule
    with pytest.raises(drv.CompileError, match="`tex2DLod`"):
        SourceModule("__global__ void k(cudaTextureObject_t t, float *o)"
                     "{ o[0] = tex2DLod<float>(t, 0.f, 0.f, 0.f); }")


def test_gpuarray_to_array_and_array_descriptor(ga):
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    arr = drv.gpuarray_to_array(ga.to_gpu(data))
    np.testing.assert_array_equal(arr.get(), data)
    desc = drv.ArrayDescriptor3D(4, 3, 2, drv.array_format.FLOAT, 1, 0)
    b = drv.Array(desc)
    b.set(data * 2)
    np.testing.assert_array_equal(b.get(), data * 2)
    c = drv.Array(drv.ArrayDescriptor(width=8, height=0, format=drv.array_format.UNSIGNED_INT8,
                                      num_channels=2))
    assert c.shape == (8, 2) and c.dtype == np.uint8
    c.free()
    with pytest.raises(drv.LogicError, match="freed"):
        c.get()


def test_memcpy2d_copies_a_rectangle_between_host_device_and_array():
    host = np.arange(6 * 10, dtype=np.float32).reshape(6, 10)
    arr = drv.Array(drv.ArrayDescriptor(4, 3, drv.array_format.FLOAT, 1))
    c = drv.Memcpy2D()
    c.set_src_host(host)
    c.src_x_in_bytes, c.src_y, c.src_pitch = 2 * 4, 1, host.strides[0]
    c.set_dst_array(arr)
    c.width_in_bytes, c.height = 4 * 4, 3
    c()
    np.testing.assert_array_equal(arr.get(), host[1:4, 2:6])
    # array -> pitched device memory -> host
    dev = drv.mem_alloc(3 * 64)
    d = drv.Memcpy2D()
    d.set_src_array(arr)
    d.set_dst_device(dev)
    d.dst_pitch, d.width_in_bytes, d.height = 64, 16, 3
    d(drv.Stream())
    back = np.zeros((3, 16), np.float32)
    drv.memcpy_dtoh(back, dev)
    np.testing.assert_array_equal(back[:, :4], host[1:4, 2:6])
    short = drv.Memcpy2D()
    short.set_src_array(arr)
    short.set_dst_host(np.zeros(5, np.float32))
    short.width_in_bytes, short.height = 16, 3
    with pytest.raises(ValueError, match="host buffer"):
        short()
    if drv.get_backend() == "sim":  # the simulator checks device ranges; a GPU need not
        small = drv.Memcpy2D()
        small.set_src_array(arr)
        small.set_dst_device(drv.mem_alloc(16))
        small.dst_pitch, small.width_in_bytes, small.height = 64, 16, 3
        with pytest.raises(drv.Error, match="cuMemcpy3D"):
            small()


def test_memcpy2d_refuses_negative_offsets_and_non_integers():
    """A negative dst_y (or src_y) wrapped to a huge unsigned number, passed
    the host buffer's bounds check and wrote 40 bytes before the destination
    (found by an adversarial review): every offset and size is now a
    non-negative integer, named when it is not, and nothing is written."""
    big = np.zeros(100, np.float32)
    arr = drv.Array(drv.ArrayDescriptor(4, 3, drv.array_format.FLOAT, 1))
    arr_src = drv.Memcpy2D()
    arr_src.set_src_host(np.arange(12, dtype=np.float32))
    arr_src.set_dst_array(arr)
    arr_src.width_in_bytes, arr_src.height = 16, 3
    arr_src()

    def copy(**fields):
        c = drv.Memcpy2D()
        c.set_src_array(arr)
        c.set_dst_host(big[20:])
        c.dst_pitch, c.width_in_bytes, c.height = 40, 16, 3
        for k, v in fields.items():
            setattr(c, k, v)
        return c
    for field, value, exc in [("dst_y", -1, ValueError), ("dst_x_in_bytes", -4, ValueError),
                              ("dst_pitch", -40, ValueError), ("width_in_bytes", -16, ValueError),
                              ("height", "3", TypeError), ("width_in_bytes", 16.7, TypeError),
                              ("dst_y", 2 ** 64, OverflowError)]:
        with pytest.raises(exc, match=f"Memcpy2D.{field}"):
            copy(**{field: value})()
        assert not big.any(), (field, value)
    with pytest.raises(TypeError, match="expected a Stream, a bool"):
        copy()(5)
    with pytest.raises(TypeError, match="set_dst_device: expected a device address"):
        drv.Memcpy2D().set_dst_device(None)
    # the C side refuses a negative offset itself, whoever calls it
    from pycudac import _driver
    with pytest.raises(ValueError, match="y must be non-negative"):
        _driver._memcpy3d((3, arr, 0, 0, 0, 0, 0), (1, big[20:], 0, -1, 0, 40, 0), 16, 3, 1)
    assert not big.any()
    copy()()  # the same copy with its fields right
    np.testing.assert_array_equal(big[20:50].reshape(3, 10)[:, :4],
                                  np.arange(12, dtype=np.float32).reshape(3, 4))


def test_memcpy3d_copies_a_box():
    host = np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6)
    arr = drv.Array(drv.ArrayDescriptor3D(3, 2, 2, drv.array_format.SIGNED_INT16, 1))
    c = drv.Memcpy3D()
    c.set_src_host(host)
    c.src_x_in_bytes, c.src_y, c.src_z = 1 * 2, 2, 1
    c.src_pitch, c.src_height = 6 * 2, 5
    c.set_dst_array(arr)
    c.width_in_bytes, c.height, c.depth = 3 * 2, 2, 2
    c()
    np.testing.assert_array_equal(arr.get(), host[1:3, 2:4, 1:4])


# ---- refusals --------------------------------------------------------------------------------

def test_bad_arrays_are_refused_with_the_argument_named():
    with pytest.raises(TypeError, match="no 64-bit float format"):
        drv.np_to_array(np.zeros(4))
    with pytest.raises(TypeError, match="int64"):
        drv.np_to_array(np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="num_channels must be 1, 2 or 4"):
        drv.Array(drv.ArrayDescriptor(4, 0, drv.array_format.FLOAT, 5))
    with pytest.raises(ValueError, match="num_channels must be 1, 2 or 4"):
        drv.np_to_array(np.zeros((4, 3), np.float32), num_channels=3)
    with pytest.raises(ValueError, match="last axis of 4"):
        drv.np_to_array(np.zeros((4, 3), np.float32), num_channels=4)
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        drv.np_to_array(np.zeros((2, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="1 to 3 dimensions"):  # was a 1-element array
        drv.np_to_array(np.float32(3))
    with pytest.raises(ValueError, match="layered array takes 2 or 3"):
        drv.np_to_array(np.zeros(4, np.float32), layered=True)
    with pytest.raises(ValueError, match="empty"):
        drv.np_to_array(np.zeros((0, 3), np.float32))
    with pytest.raises(ValueError, match="format must be an array_format"):
        drv.Array(drv.ArrayDescriptor(4, 0, 0x40, 1))
    with pytest.raises(ValueError, match="width must be positive"):
        drv.Array(drv.ArrayDescriptor(0, 0))
    with pytest.raises(TypeError, match="ArrayDescriptor"):
        drv.Array((4, 4))
    a = drv.Array(drv.ArrayDescriptor(4, 2))
    with pytest.raises(ValueError, match="float32 of shape"):
        a.set(np.zeros((2, 5), np.float32))
    # flags="x" was "invalid literal for int()", 1.5 made a LAYERED array,
    # a width past 2**64 an OverflowError naming nothing, a GPUArray helper
    # given a numpy array an AttributeError, and a width past the device's
    # limit "invalid argument" alone (found by an adversarial review)
    for flags in ("x", None, 1.5):
        with pytest.raises(TypeError, match="flags must be array3d_flags values"):
            drv.Array(drv.ArrayDescriptor3D(4, 4, 2, flags=flags))
    with pytest.raises(ValueError, match="width must be an int >= 0 .* 18446744073709551616"):
        drv.Array(drv.ArrayDescriptor(2 ** 64, 0))
    with pytest.raises(TypeError, match="width must be an int"):
        drv.Array(drv.ArrayDescriptor(4.0, 0))
    for bad in (np.zeros(4), None):
        with pytest.raises(TypeError, match="gpuarray_to_array: expected a GPUArray"):
            drv.gpuarray_to_array(bad)
    limit = drv.Context.get_device().get_attribute(drv.device_attribute.MAXIMUM_TEXTURE1D_WIDTH)
    with pytest.raises(ValueError, match=f"refused a {2 * limit} x 0 x 0 array; this device's "
                                         f"limits for it: width <= {limit}"):
        drv.np_to_array(np.zeros(2 * limit, np.float32))


def test_bad_textures_and_surfaces_are_refused_with_the_argument_named(ga):
    ints = drv.np_to_array(np.zeros(4, np.int32))
    u8 = drv.np_to_array(np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="filter_mode LINEAR needs a read that returns floats"):
        drv.TextureObject(u8, filter_mode=FM.LINEAR)
    drv.TextureObject(u8, filter_mode=FM.LINEAR, read_as_float=True)  # fine
    with pytest.raises(ValueError, match="read_as_float applies to 8- and 16-bit"):
        drv.TextureObject(ints, read_as_float=True)
    with pytest.raises(ValueError, match="address_mode"):
        drv.TextureObject(ints, address_mode=7)
    with pytest.raises(ValueError, match="filter_mode"):
        drv.TextureObject(ints, filter_mode=3)
    # int() truncated 1.5 and took True; a str or None named no type; a
    # border_color of 5 was "not iterable", a dict's keys were taken; an
    # Array's own channels silently overrode num_channels (found by an
    # adversarial review)
    for kw, exc, match in [(dict(address_mode=1.5), TypeError, "address_mode must be .* not float"),
                           (dict(address_mode=True), TypeError, "address_mode .* not bool"),
                           (dict(address_mode=(0, None)), TypeError, "address_mode .* NoneType"),
                           (dict(filter_mode=1.5), TypeError, "filter_mode must be .* float"),
                           (dict(filter_mode="LINEAR"), TypeError, "filter_mode .* not str"),
                           (dict(border_color=5), TypeError, "border_color must be a tuple"),
                           (dict(border_color={1: 2}), TypeError, "border_color must be a tuple"),
                           (dict(border_color=("a",)), TypeError, "border_color must be a tuple"),
                           (dict(num_channels=2), ValueError, "does not match the Array's 1"),
                           (dict(num_channels="x"), TypeError, "num_channels must be an int")]:
        with pytest.raises(exc, match=match):
            drv.TextureObject(ints, **kw)
    drv.TextureObject(ints, address_mode=np.int32(int(drv.address_mode.WRAP)),
                      border_color=np.zeros(4))  # NumPy ints and arrays are fine
    with pytest.raises(TypeError, match="source must be an Array or a GPUArray"):
        drv.TextureObject(np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="no CUDA array format"):
        drv.TextureObject(ga.zeros(4, np.float64))
    with pytest.raises(ValueError, match="LINEAR does not apply to linear memory"):
        drv.TextureObject(ga.zeros(4, np.float32), filter_mode=FM.LINEAR)
    with pytest.raises(ValueError, match="not made for surface access"):
        drv.SurfaceObject(ints)
    with pytest.raises(TypeError, match="expected an Array"):
        drv.SurfaceObject(ga.zeros(4, np.float32))


def test_argument_types_are_checked_naming_kernel_and_parameter(mod):
    arr = drv.np_to_array(np.zeros(4, np.float32), allowSurfaceBind=True)
    tex, surf = drv.TextureObject(arr), drv.SurfaceObject(arr)
    x, out = drv.In(np.zeros(1, np.float32)), drv.Out(np.zeros(1, np.float32))
    f1 = mod.get_function("f1")
    with pytest.raises(TypeError, match=r"kernel 'f1' argument 1 't' \(cudaTextureObject_t\): "
                                        r"expected a TextureObject, got int"):
        f1(tex.handle, x, out, np.int32(1), block=(1, 1, 1))
    with pytest.raises(TypeError, match="kernel 'f1' argument 1 't'.*got SurfaceObject"):
        f1(surf, x, out, np.int32(1), block=(1, 1, 1))
    with pytest.raises(TypeError, match="kernel 'surf1' argument 1 's'.*expected a SurfaceObject"):
        mod.get_function("surf1")(tex, np.int32(1), block=(1, 1, 1))
    with pytest.raises(TypeError, match="kernel 'ptr_arg' argument 1 'p'"):
        mod.get_function("ptr_arg")(tex, block=(1, 1, 1))


def test_the_driver_api_names_are_handle_types_too():
    from pycudac.compiler import SourceModule
    m = SourceModule("""
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
__global__ void k(CUtexObject t, CUsurfObject s, float *o)
{ o[0] = tex1D<float>(t, 1.5f); surf1Dwrite(o[0] * 2, s, 0); }""")
    arr = drv.np_to_array(np.array([1, 2, 3], np.float32), allowSurfaceBind=True)
    o = np.zeros(1, np.float32)
    m.get_function("k")(drv.TextureObject(arr), drv.SurfaceObject(arr), drv.Out(o),
                        block=(1, 1, 1))
    assert o[0] == 2 and arr.get()[0] == 4


# ---- lifetime --------------------------------------------------------------------------------

def test_objects_dropped_with_a_kernel_queued_keep_working_and_are_freed(mod):
    free0 = drv.mem_get_info()[0]
    data = np.arange(4096, dtype=np.float32)
    arr = drv.np_to_array(data.reshape(64, 64))
    tex = drv.TextureObject(arr)
    refs = weakref.ref(arr), weakref.ref(tex)
    x = np.tile(np.arange(64, dtype=np.float32) + 0.5, 64)
    y = np.repeat(np.arange(64, dtype=np.float32) + 0.5, 64)
    dx, dy, dout = drv.to_device(x), drv.to_device(y), drv.mem_alloc(4 * 4096)
    stream = drv.Stream()
    mod.get_function("f2")(tex, dx, dy, dout, np.int32(4096), block=(128, 1, 1), grid=(32, 1),
                           stream=stream)
    del arr, tex
    gc.collect()
    stream.synchronize()
    out = np.empty(4096, np.float32)
    drv.memcpy_dtoh(out, dout)
    np.testing.assert_array_equal(out, data)
    assert refs[0]() is None and refs[1]() is None
    if drv.get_backend() == "sim":  # the GPU's free memory moves with others' work
        assert drv.mem_get_info()[0] >= free0 - 3 * 4 * 4096 - 4096


def test_wrap_and_mirror_without_normalized_coordinates_are_asked_as_clamp():
    """cuTexObjectCreate supports only CLAMP (and in practice BORDER) for
    texel coordinates: pycudac asks for CLAMP where WRAP or MIRROR was given
    (what they do there), not a mode the driver may refuse."""
    arr = drv.np_to_array(np.zeros((2, 3, 4), np.float32))
    AM = drv.address_mode
    t = drv.TextureObject(arr, address_mode=(AM.WRAP, AM.MIRROR, AM.BORDER))
    assert t.address_modes == (AM.CLAMP, AM.CLAMP, AM.BORDER)
    t = drv.TextureObject(arr, address_mode=(AM.WRAP, AM.MIRROR, AM.BORDER),
                          normalized_coords=True)
    assert t.address_modes == (AM.WRAP, AM.MIRROR, AM.BORDER)


@pytest.mark.parametrize("shape, layered, want", [
    ((5,), False, (AM.BORDER, AM.CLAMP, AM.CLAMP)),
    ((4, 5), False, (AM.BORDER, AM.BORDER, AM.CLAMP)),
    ((3, 5), True, (AM.BORDER, AM.CLAMP, AM.CLAMP)),
    ((2, 4, 5), True, (AM.BORDER, AM.BORDER, AM.CLAMP)),
    ((2, 4, 5), False, (AM.BORDER,) * 3)])
def test_axes_the_array_does_not_have_are_asked_as_clamp(shape, layered, want):
    """The H100 samples a 1D array as a 2D one of one row: asked for
    BORDER along y too, it blended every linear fetch half with the border
    (1D-BORDER-linear above read half the values). The driver gets CLAMP
    along the axes an array does not have."""
    arr = drv.np_to_array(np.zeros(shape, np.float32), layered=layered)
    t = drv.TextureObject(arr, address_mode=AM.BORDER, filter_mode=FM.LINEAR)
    assert t.address_modes == want


def test_an_array_a_texture_reads_cannot_be_freed():
    """Array.free() under a live texture or surface object let the next
    kernel read freed memory (a sticky 700 on the simulator): it is refused
    until the last object is gone, and the context stays usable."""
    arr = drv.np_to_array(np.arange(8, dtype=np.float32), allowSurfaceBind=True)
    tex = drv.TextureObject(arr)
    surf = drv.SurfaceObject(arr)
    with pytest.raises(drv.LogicError, match=r"Array.free: 2 texture or surface object"):
        arr.free()
    del tex
    gc.collect()
    with pytest.raises(drv.LogicError, match=r"Array.free: 1 texture or surface object"):
        arr.free()
    del surf
    gc.collect()
    arr.free()
    assert not drv.is_poisoned() if hasattr(drv, "is_poisoned") else True


def test_objects_collected_during_a_capture_are_destroyed_after_it(mod, ga):
    """A texture, a surface and an array the collector freed during a stream
    capture were destroyed at once, with a context synchronize first, which
    invalidated the user's capture (901). They wait for its end."""
    s = drv.Stream()
    x = ga.to_gpu(np.arange(4, dtype=np.float32))
    doomed = [drv.TextureObject(drv.np_to_array(np.zeros(4, np.float32))),
              drv.SurfaceObject(drv.np_to_array(np.zeros(4, np.float32), allowSurfaceBind=True)),
              drv.np_to_array(np.zeros(4, np.float32))]
    s.begin_capture()
    x.fill(2.0, stream=s)
    del doomed
    gc.collect()
    assert s.is_capturing() == drv.capture_status.ACTIVE
    graph = s.end_capture()
    graph.instantiate().launch(s)
    s.synchronize()
    np.testing.assert_array_equal(x.get(), 2.0)


def test_copies_to_arrays_work_in_a_thread_with_no_context_current():
    """Memcpy2D/3D in a new thread failed with 201: they enter the array's
    context (np_to_array and TextureObject already worked there)."""
    import threading
    arr = drv.np_to_array(np.zeros((3, 4), np.float32))
    src = np.arange(12, dtype=np.float32).reshape(3, 4)
    errors = []

    def work():
        try:
            c = drv.Memcpy2D()
            c.set_src_host(src)
            c.set_dst_array(arr)
            c.width_in_bytes = c.src_pitch = 16
            c.height = 3
            c()
        except Exception as exc:  # reported below
            errors.append(exc)
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert not errors, errors
    np.testing.assert_array_equal(arr.get(), src)


def test_memcpy_refuses_a_pitch_short_of_x_plus_width():
    """The driver's rule (pitch >= x + width, height >= y + height): pycudac
    defaulted the pitch to the width, ignoring the offsets."""
    arr = drv.np_to_array(np.zeros((2, 2), np.float32))
    c = drv.Memcpy2D()
    c.set_src_host(np.zeros(16, np.float32))
    c.set_dst_array(arr)
    c.src_x_in_bytes = 8
    c.src_pitch = 12
    c.width_in_bytes = 8
    c.height = 2
    with pytest.raises(ValueError, match=r"pitch \(12\) must be at least x \+ width_in_bytes \(16\)"):
        c()


def test_linear_textures_start_on_the_texture_alignment(ga):
    """A view inside an allocation is refused before the driver's bare
    'invalid argument' (the H100 wants 512 bytes; the simulator 256)."""
    g = ga.to_gpu(np.arange(1024, dtype=np.float32))
    align = drv.Context.get_device().get_attribute(drv.device_attribute.TEXTURE_ALIGNMENT)
    with pytest.raises(ValueError, match=rf"TEXTURE_ALIGNMENT \({align} bytes\)"):
        drv.TextureObject(g[4:])
    assert drv.TextureObject(g[align // 4:]).handle != 0


def test_the_texture_keeps_its_array_alive():
    arr = drv.np_to_array(np.zeros(8, np.float32))
    tex = drv.TextureObject(arr)
    ref = weakref.ref(arr)
    del arr
    gc.collect()
    assert ref() is tex.source and tex.handle != 0


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


# ---- what the CUDA backend asks of the driver (the stub driver, no GPU) ----------------------

STUB_SCENARIO = """
import ctypes, gc, os
from pycudac import gpuarray
stub = ctypes.CDLL(os.environ["PYCUDAC_LIBCUDA"])
buf = ctypes.create_string_buffer(8192)
def log(tag):
    stub.stub_gl_log(buf, ctypes.c_size_t(8192))
    print(tag, "|".join(buf.value.decode().splitlines()))
AM, FM = drv.address_mode, drv.filter_mode
h = np.arange(12, dtype=np.float32).reshape(3, 4)
a = drv.np_to_array(h)
print("ROUND", np.array_equal(a.get(), h))
log("A")
t1 = drv.TextureObject(drv.np_to_array(np.zeros(5, np.float32)), address_mode=AM.BORDER,
                       filter_mode=FM.LINEAR)
log("B")
t2 = drv.TextureObject(a, address_mode=(AM.WRAP, AM.MIRROR, AM.BORDER))
t3 = drv.TextureObject(a, address_mode=(AM.WRAP, AM.MIRROR, AM.BORDER), normalized_coords=True)
log("C")
lay = drv.np_to_array(np.arange(24, dtype=np.float32).reshape(2, 3, 4), layered=True)
print("LAYERED", np.array_equal(lay.get(), np.arange(24, dtype=np.float32).reshape(2, 3, 4)))
sa = drv.np_to_array(np.ones((3, 4), np.float32), allowSurfaceBind=True)
s = drv.SurfaceObject(sa)
tl = drv.TextureObject(gpuarray.to_gpu(np.arange(64, dtype=np.float32)))
log("D")
del t1
gc.collect()
log("E")
del t2, t3, a, s, sa, tl, lay
gc.collect()
log("F")
"""


def test_what_the_cuda_backend_asks_for_arrays_and_textures(stub_driver):
    """On the stub driver (arrays in host memory, textures as numbered
    handles, every call logged): arrays round-trip through cuMemcpy3D; a 1D
    array's texture is asked CLAMP on the axes it lacks (3,1,1: the H100's
    half-values fix); WRAP/MIRROR without normalized coordinates go as CLAMP;
    each object is destroyed before the array it reads."""
    import os
    env = dict(os.environ, PYCUDAC_LIBCUDA=stub_driver, PYCUDAC_BACKEND="cuda")
    code = "import numpy as np\nimport pycudac.autoinit\nimport pycudac.driver as drv\n"
    r = subprocess.run([sys.executable, "-c", code + STUB_SCENARIO], capture_output=True,
                       text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert out["ROUND"] == "True" and out["LAYERED"] == "True"
    assert out["A"].split("|") == ["array_create 4x3x0 format=32 channels=1 flags=0 ctx=1",
                                   "copy3d 1->3 16x3x1", "copy3d 3->1 16x3x1"]
    assert out["B"].split("|")[0] == "array_create 5x0x0 format=32 channels=1 flags=0 ctx=1"
    assert out["B"].split("|")[-1].endswith("array modes=3,1,1 filter=1 flags=0 border=0")
    c = out["C"].split("|")
    assert c[0].endswith("array modes=1,1,1 filter=0 flags=0 border=0")  # texel coordinates
    assert c[1].endswith("array modes=0,2,1 filter=0 flags=2 border=0")  # normalized
    d = out["D"].split("|")
    assert d[0] == "array_create 4x3x2 format=32 channels=1 flags=1 ctx=1"  # layered
    assert "array_create 4x3x0 format=32 channels=1 flags=2 ctx=1" in d  # SURFACE_LDST
    assert any(x.startswith("surf_create") for x in d)
    assert d[-1].endswith("linear modes=1,1,1 filter=0 flags=0 border=0")
    e = out["E"].split("|")
    assert e[0].startswith("tex_destroy") and e[0].endswith("array_live=1")
    assert e[1] == "array_free 5x0x0 readers=0"
    for line in out["F"].split("|"):  # every array freed after what read it
        assert line.endswith("array_live=1") or line.endswith("readers=0"), out["F"]
    assert out["F"].count("array_free") == 3 and out["F"].count("_destroy") == 4
