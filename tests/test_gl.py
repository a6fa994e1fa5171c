"""OpenGL interop (pycudac.gl, PyCUDA's pycuda.gl names).

Three kinds of test:
- everywhere: the arguments refused before any driver call, and the
  simulator's clear error (it has no OpenGL);
- on the stub driver (tests/c/stub_libcuda.c, in a subprocess, the CUDA
  backend's code without a GPU): which cuGraphics* calls reach the driver,
  in which order, with which arguments, and the state errors (mapping
  twice, a mapping used after unmap, unregistering while mapped);
- on a GPU with a headless EGL context (tests/_egl.py): real data through a
  GL buffer object and an RGBA8 texture, both ways. Skipped with the reason
  where the backend is not cuda, there is no libEGL or no EGL device.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

drv = pytest.importorskip("pycudac.driver")
gl = pytest.importorskip("pycudac.gl")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIM_ERROR = "OpenGL interop needs a GPU and its driver; the simulator has no OpenGL"


# ---- everywhere: what is refused before the driver ---------------------------------------

@pytest.mark.parametrize("bufobj, exc, words", [
    (-1, ValueError, "RegisteredBuffer(bufobj) must be a GL name in 0..4294967295, got -1"),
    (2 ** 32, ValueError, "RegisteredBuffer(bufobj) must be a GL name"),
    ("7", TypeError, "RegisteredBuffer(bufobj) must be an int (a GL name, GLuint), not str"),
    (7.0, TypeError, "not float"),
    (True, TypeError, "RegisteredBuffer(bufobj) must be an int (a GL name, GLuint), not bool"),
    (None, TypeError, "not NoneType"),
])
def test_a_bad_buffer_name_is_refused_by_name(bufobj, exc, words):
    with pytest.raises(exc) as info:
        gl.RegisteredBuffer(bufobj)
    assert words in str(info.value)


def test_bad_flags_and_targets_are_refused_by_name():
    with pytest.raises(ValueError, match=r"RegisteredBuffer: flags must be graphics_map_flags"):
        gl.RegisteredBuffer(3, flags=4)
    with pytest.raises(TypeError, match=r"RegisteredBuffer: flags must be a graphics_map_flags"):
        gl.RegisteredBuffer(3, flags="READ_ONLY")
    with pytest.raises(ValueError, match=r"RegisteredImage\(target\) must be a GL name"):
        gl.RegisteredImage(3, -0x0DE1)
    with pytest.raises(TypeError, match=r"RegisteredImage\(texture\) must be an int"):
        gl.RegisteredImage([3], 0x0DE1)
    with pytest.raises(ValueError, match=r"RegisteredImage: flags must be .*\(images may add 4"):
        gl.RegisteredImage(3, 0x0DE1, flags=16 | 1)
    with pytest.raises(ValueError, match=r"RegisteredBuffer: flags must be"):
        gl.RegisteredBuffer(3, flags=4)  # surface load/store: images only
    with pytest.raises(TypeError, match="make a RegisteredBuffer or a RegisteredImage"):
        gl.RegisteredObject()


def test_the_names_pycuda_has():
    assert [int(f) for f in gl.graphics_map_flags] == [0, 1, 2]
    assert [f.name for f in gl.graphics_map_flags] == ["NONE", "READ_ONLY", "WRITE_DISCARD"]
    assert issubclass(gl.RegisteredBuffer, gl.RegisteredObject)
    assert issubclass(gl.RegisteredImage, gl.RegisteredObject)
    for name in ("init", "make_context", "RegisteredMapping", "BufferObject",
                 "BufferObjectMapping"):
        assert name in gl.__all__ and hasattr(gl, name)


# ---- the simulator: one clear error ---------------------------------------------------------

@pytest.fixture
def sim(backend):
    if backend != "sim":
        pytest.skip(f"the simulator's error: the {backend} backend is in use")


@pytest.mark.usefixtures("sim", "autoinit")
def test_the_simulator_says_it_has_no_opengl():
    for call in (gl.init, lambda: gl.RegisteredBuffer(1),
                 lambda: gl.RegisteredImage(1, 0x0DE1), gl.get_gl_devices,
                 lambda: gl.make_context(drv.Device(0)), lambda: gl.BufferObject(1)):
        with pytest.raises(drv.LogicError) as info:
            call()
        assert str(info.value) == SIM_ERROR
    from pycudac import _driver
    with pytest.raises(drv.LogicError, match="the simulator has no OpenGL"):
        _driver.GraphicsResource(False, 1, 0, 0)


@pytest.mark.usefixtures("sim")
def test_gl_autoinit_on_the_simulator_raises_the_clear_error():
    r = subprocess.run([sys.executable, "-c", "import pycudac.gl.autoinit"], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, PYCUDAC_BACKEND="sim"),
                       cwd=ROOT)
    assert r.returncode == 1
    assert f"LogicError: {SIM_ERROR}" in r.stderr


# ---- the stub driver: what reaches cuGraphics* ---------------------------------------------

def run_on_stub(stub_driver, body):
    """Runs `body` in a subprocess on the stub driver, with `stub`, `log()`
    (the driver's call log since the last log(), as a list of lines) and
    `fails(f)` (f's exception as 'Type: message') defined; its stdout."""
    code = textwrap.dedent(f"""
        import ctypes, gc, numpy as np
        import pycudac.autoinit, pycudac.driver as drv
        from pycudac import gl, gpuarray
        stub = ctypes.CDLL({stub_driver!r})
        def log():
            buf = ctypes.create_string_buffer(8192)
            stub.stub_gl_log(buf, ctypes.c_size_t(8192))
            return buf.value.decode().splitlines()
        def fails(f):
            try:
                f()
            except Exception as exc:
                return f"{{type(exc).__name__}}: {{exc}}"
            return "no error"
    """) + textwrap.dedent(body)
    env = dict(os.environ, PYCUDAC_LIBCUDA=stub_driver, PYCUDAC_BACKEND="cuda",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_a_buffer_registers_maps_points_unmaps_and_unregisters_in_order(stub_driver):
    out = run_on_stub(stub_driver, """
        gl.init()
        b = gl.RegisteredBuffer(7, gl.graphics_map_flags.WRITE_DISCARD)
        m = b.map()
        ptr, size = m.device_ptr_and_size()
        a = gpuarray.GPUArray((size // 4,), np.float32, gpudata=ptr)
        a.fill(2.5)  # the stub's mapped buffer is host memory: the fill lands there
        print("DATA", np.frombuffer(ctypes.string_at(ptr, 8), np.float32).tolist(), size)
        m.unmap()
        s = drv.Stream()
        b.set_map_flags(gl.graphics_map_flags.READ_ONLY)
        with b.map(stream=s) as m2:
            m2.device_ptr_and_size()
        m3 = b.map(s)
        m3.unmap(stream=s)
        b.unregister()
        print("LOG", log())
        print("H", b.handle(), b.gl_handle())
    """)
    lines = dict(ln.split(" ", 1) for ln in out.splitlines())
    assert lines["DATA"] == "[2.5, 2.5] 256"
    assert eval(lines["LOG"]) == [
        "register_buffer 7 flags=2 ctx=1", "map 7 stream=0", "pointer 7", "unmap 7 stream=0",
        "set_map_flags 7 flags=1", "map 7 stream=S", "pointer 7", "unmap 7 stream=0",
        "map 7 stream=S", "unmap 7 stream=S", "unregister 7 mapped=0 own_ctx=1"]
    assert lines["H"] == "0 7"


def test_an_image_maps_to_an_array_the_mapping_owns(stub_driver):
    out = run_on_stub(stub_driver, """
        im = gl.RegisteredImage(5, 0x0DE1, gl.graphics_map_flags.READ_ONLY | 4)
        m = im.map()
        arr = m.array(0, 0)
        print("TYPE", type(arr) is drv.Array, arr.width, arr.height, arr.num_channels,
              arr.format == drv.array_format.UNSIGNED_INT8, arr.shape)
        print("GET", arr.get().ravel()[:5].tolist())
        m.unmap()
        print("STALE", fails(arr.get))
        print("AGAIN", fails(lambda: m.array(0, 0)))
        del arr
        gc.collect()
        im.unregister()
        print("LOG", log())
    """)
    lines = dict(ln.split(" ", 1) for ln in out.splitlines())
    assert lines["TYPE"] == "True 4 2 4 True (2, 4, 4)"
    assert lines["GET"] == "[0, 3, 6, 9, 12]"
    assert lines["STALE"].startswith("LogicError: Array._copy: the array was freed (or, for "
                                     "an array of a mapped graphics resource, unmapped)")
    assert lines["AGAIN"] == "LogicError: RegisteredMapping.array: this mapping was unmapped"
    # the array is the resource's: pycudac never calls cuArrayDestroy on it
    assert eval(lines["LOG"]) == [
        "register_image 5 target=3553 flags=5", "map 5 stream=0", "array 5 index=0 level=0",
        "array_copy 32", "unmap 5 stream=0", "unregister 5 mapped=0 own_ctx=1"]


def test_the_state_errors_are_clear_and_reach_no_driver(stub_driver):
    out = run_on_stub(stub_driver, """
        b = gl.RegisteredBuffer(9)
        im = gl.RegisteredImage(4, 0x0DE1)
        log()
        m = b.map()
        print("TWICE", fails(b.map))
        print("UNREG", fails(b.unregister))
        print("FLAGS", fails(lambda: b.set_map_flags(1)))
        print("ARRAY", fails(lambda: m.array(0, 0)))
        print("INDEX", fails(lambda: m.array(-1, 0)))
        m.unmap()
        print("AFTER", fails(m.device_ptr_and_size))
        print("UNMAP", fails(m.unmap))
        mi = im.map()
        print("PTR", fails(mi.device_ptr_and_size))
        mi.unmap()
        print("LOG", log())
        b.unregister()
        print("GONE", fails(b.map), "|", fails(m.unmap), "|", fails(b.unregister))
    """)
    lines = dict(ln.split(" ", 1) for ln in out.splitlines())
    assert lines["TWICE"] == "LogicError: map: the resource is mapped; unmap() it first"
    assert lines["UNREG"] == "LogicError: unregister: the resource is mapped; unmap() it first"
    assert lines["FLAGS"] == "no error"  # the driver takes it for the next map
    assert lines["ARRAY"] == ("LogicError: array: a buffer maps to a pointer, not to arrays (use "
                              "device_ptr_and_size())")
    assert lines["INDEX"].startswith("ValueError: array(index) must be a GL name")
    assert lines["AFTER"] == ("LogicError: RegisteredMapping.device_ptr_and_size: this mapping "
                              "was unmapped")
    assert lines["UNMAP"] == "LogicError: RegisteredMapping.unmap: this mapping was unmapped"
    assert lines["PTR"] == ("LogicError: device_ptr_and_size: an image maps to arrays, not to a "
                            "pointer (use array(index, level))")
    assert eval(lines["LOG"]) == ["map 9 stream=0", "set_map_flags 9 flags=1",
                                  "unmap 9 stream=0", "map 4 stream=0", "unmap 4 stream=0"]
    assert lines["GONE"] == ("LogicError: map: the resource was unregistered | LogicError: "
                             "RegisteredMapping.unmap: the object was unregistered | LogicError: "
                             "unregister: the resource was unregistered")


def test_dropping_a_mapped_object_unmaps_then_unregisters_in_its_context(stub_driver):
    out = run_on_stub(stub_driver, """
        ctx = drv.Context.get_current()
        b = gl.RegisteredBuffer(11)
        m = b.map()
        other = drv.Device(0).make_context()  # another context current at the drop
        log()
        del m, b
        gc.collect()
        print("LOG", log())
        print("CUR", drv.Context.get_current() == other)
        other.pop()
        obj = gl.BufferObject(12)
        bm = obj.map()
        print("LEGACY", obj.handle(), bm.size(), bm.device_ptr() != 0)
        bm.unmap()
        obj.unregister()
        print("DEVS", [d.name() != "" for d in gl.get_gl_devices()])
        print("LOG2", log())
    """)
    lines = dict(ln.split(" ", 1) for ln in out.splitlines())
    assert eval(lines["LOG"]) == ["unmap 11 stream=0", "unregister 11 mapped=0 own_ctx=1"]
    assert lines["CUR"] == "True"
    assert lines["LEGACY"] == "12 256 True"
    assert lines["DEVS"] == "[True]"
    assert eval(lines["LOG2"]) == [
        "register_buffer 12 flags=0 ctx=1", "map 12 stream=0", "pointer 12", "pointer 12",
        "unmap 12 stream=0", "unregister 12 mapped=0 own_ctx=1", "gl_devices max=64 which=1"]


# ---- the EGL helper itself, wherever EGL is (Mesa's software device too) ---------------------

def test_the_egl_helper_makes_a_context_gl_can_use():
    """tests/_egl.py on its own, no CUDA: a context, a buffer written with
    glBufferSubData and read back, an RGBA8 texture; in a subprocess (a GL
    driver may start threads, and other tests fork)."""
    code = textwrap.dedent("""
        import ctypes, numpy as np, _egl
        try:
            g = _egl.open_context(0)
        except _egl.Unavailable as exc:
            print("SKIP", exc)
            raise SystemExit
        name = ctypes.c_uint(0)
        g.glGenBuffers(1, ctypes.byref(name))
        g.glBindBuffer(_egl.GL_ARRAY_BUFFER, name.value)
        data = np.arange(64, dtype=np.float32)
        g.glBufferData(_egl.GL_ARRAY_BUFFER, data.nbytes, None, _egl.GL_DYNAMIC_DRAW)
        g.glBufferSubData(_egl.GL_ARRAY_BUFFER, 16, data.nbytes - 16, data[4:].ctypes.data)
        back = np.zeros(60, np.float32)
        g.glGetBufferSubData(_egl.GL_ARRAY_BUFFER, 16, back.nbytes, back.ctypes.data)
        tex = ctypes.c_uint(0)
        g.glGenTextures(1, ctypes.byref(tex))
        g.glBindTexture(_egl.GL_TEXTURE_2D, tex.value)
        g.glTexImage2D(_egl.GL_TEXTURE_2D, 0, _egl.GL_RGBA8, 4, 2, 0, _egl.GL_RGBA,
                       _egl.GL_UNSIGNED_BYTE, np.zeros(32, np.uint8).ctypes.data)
        g.check("GL")
        print("OK", name.value > 0, tex.value > 0, (back == data[4:]).all(), g.platform)
        g.glDeleteBuffers(1, ctypes.byref(name))
        g.glDeleteTextures(1, ctypes.byref(tex))
        g.close()
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=os.path.dirname(os.path.abspath(__file__)))
    assert r.returncode == 0, r.stdout + r.stderr
    if r.stdout.startswith("SKIP "):
        pytest.skip(r.stdout[5:].strip())
    assert r.stdout.split()[:4] == ["OK", "True", "True", "True"], r.stdout


# ---- a GPU and a headless GL context: real data ---------------------------------------------

@pytest.fixture(scope="module")
def glctx(backend):
    """A current headless OpenGL context on CUDA device 0's GPU and
    pycudac's context there; skipped with the reason where there is none."""
    if backend != "cuda":
        pytest.skip(f"OpenGL interop needs the cuda backend; the {backend} backend is in use")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _egl
    try:
        ctx = _egl.open_context(0)
    except _egl.Unavailable as exc:
        pytest.skip(str(exc))
    import pycudac.gl.autoinit  # noqa: F401
    try:
        devices = gl.get_gl_devices()
    except drv.Error as exc:  # e.g. the first EGL device was a software renderer
        ctx.close()
        pytest.skip(f"the EGL context ({ctx.platform} platform, renderer {ctx.renderer}) is on "
                    f"no CUDA device: {exc}")
    if drv.Device(0).pci_bus_id() not in [d.pci_bus_id() for d in devices]:
        ctx.close()
        pytest.skip(f"the EGL context (renderer {ctx.renderer}) is not on CUDA device 0")
    yield ctx
    ctx.close()


KERNELS = r"""
__global__ void twice(float *dst, const float *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = 2.0f * src[i];
}
__global__ void ramp(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 0.5f * i + 1.0f;
}
"""


@pytest.mark.gpu
def test_a_gl_buffer_is_read_and_written_by_kernels(glctx):
    import ctypes
    from pycudac import gpuarray
    from pycudac.compiler import SourceModule
    import _egl
    g = glctx
    n = 1000
    data = np.arange(n, dtype=np.float32) * 3 - 7
    name = ctypes.c_uint(0)
    g.glGenBuffers(1, ctypes.byref(name))
    g.glBindBuffer(_egl.GL_ARRAY_BUFFER, name.value)
    g.glBufferData(_egl.GL_ARRAY_BUFFER, data.nbytes, None, _egl.GL_DYNAMIC_DRAW)
    g.glBufferSubData(_egl.GL_ARRAY_BUFFER, 0, data.nbytes, data.ctypes.data)
    g.glFinish()
    g.check("glBufferSubData")
    mod = SourceModule(KERNELS)
    twice, ramp = mod.get_function("twice"), mod.get_function("ramp")
    reg = gl.RegisteredBuffer(name.value)
    try:
        m = reg.map()
        ptr, size = m.device_ptr_and_size()
        assert size == data.nbytes
        out = gpuarray.empty(n, np.float32)
        twice(out, np.intp(ptr), np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
        np.testing.assert_array_equal(out.get(), 2 * data)
        ramp(np.intp(ptr), np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
        drv.Context.synchronize()
        m.unmap()
        back = np.zeros(n, np.float32)
        g.glGetBufferSubData(_egl.GL_ARRAY_BUFFER, 0, back.nbytes, back.ctypes.data)
        g.check("glGetBufferSubData")
        np.testing.assert_array_equal(back, 0.5 * np.arange(n, dtype=np.float32) + 1)
    finally:
        if reg.mapped:
            reg._resource.unmap()
        reg.unregister()
        g.glDeleteBuffers(1, ctypes.byref(name))


@pytest.mark.gpu
def test_an_rgba8_texture_maps_to_an_array(glctx):
    import ctypes
    import _egl
    g = glctx
    h, w = 8, 16
    texels = (np.arange(h * w * 4, dtype=np.uint32) * 7 % 251).astype(np.uint8).reshape(h, w, 4)
    name = ctypes.c_uint(0)
    g.glGenTextures(1, ctypes.byref(name))
    g.glBindTexture(_egl.GL_TEXTURE_2D, name.value)
    g.glTexParameteri(_egl.GL_TEXTURE_2D, _egl.GL_TEXTURE_MIN_FILTER, _egl.GL_NEAREST)
    g.glTexParameteri(_egl.GL_TEXTURE_2D, _egl.GL_TEXTURE_MAG_FILTER, _egl.GL_NEAREST)
    g.glTexImage2D(_egl.GL_TEXTURE_2D, 0, _egl.GL_RGBA8, w, h, 0, _egl.GL_RGBA,
                   _egl.GL_UNSIGNED_BYTE, texels.ctypes.data)
    g.glFinish()
    g.check("glTexImage2D")
    reg = gl.RegisteredImage(name.value, _egl.GL_TEXTURE_2D, gl.graphics_map_flags.READ_ONLY)
    try:
        with reg.map() as m:
            arr = m.array(0, 0)
            assert (arr.width, arr.height, arr.num_channels) == (w, h, 4)
            assert arr.format == drv.array_format.UNSIGNED_INT8
            np.testing.assert_array_equal(arr.get(), texels)
            row = np.zeros((h, w * 4), np.uint8)  # the same through PyCUDA's Memcpy2D
            c = drv.Memcpy2D()
            c.set_src_array(arr)
            c.set_dst_host(row)
            c.width_in_bytes, c.height = w * 4, h
            c()
            np.testing.assert_array_equal(row.reshape(h, w, 4), texels)
        with pytest.raises(drv.LogicError, match="unmapped"):
            arr.get()
    finally:
        if reg.mapped:
            reg._resource.unmap()
        reg.unregister()
        g.glDeleteTextures(1, ctypes.byref(name))
