"""CUDA arrays and what reads them (pycudac.driver.Array, np_to_array,
Memcpy2D/3D, TextureObject, SurfaceObject) on both backends: arrays and
their copies, refusals that name the argument, lifetimes (objects dropped
with a kernel queued or during a capture, an array a texture reads, address
modes asked of the driver), and what the CUDA backend asks of the driver
(the stub driver, no GPU). The fetches are test_textures.py's."""
import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")

import _texture_kernels  # noqa: E402

mod = _texture_kernels.mod  # a fixture: pytest finds it in this module

pytestmark = pytest.mark.usefixtures("autoinit")

AM = drv.address_mode
FM = drv.filter_mode


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
