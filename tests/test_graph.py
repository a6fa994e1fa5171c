"""CUDA graphs and stream capture: driver.Graph, GraphNode, GraphExec and
Stream.begin_capture / end_capture / get_capture_info_v2 /
update_capture_dependencies, with PyCUDA's names. The same tests run on
the simulator (CI) and on the GPU (PYCUDAC_BACKEND=cuda)."""
import gc
import weakref
import os
import subprocess
import sys

import numpy as np
import pytest

from pycudac import driver as drv
from pycudac import compiler, gpuarray
from pycudac.compiler import SourceModule

pytestmark = pytest.mark.usefixtures("autoinit")

SRC = r"""
__global__ void plus(float *a, int num)
{
    int i = threadIdx.x + threadIdx.y * 4;
    a[i] += num;
}
__global__ void times(float *a, const float *b)
{
    int i = threadIdx.x + threadIdx.y * 4;
    a[i] *= b[i];
}
__global__ void fill(float *a, float v)
{
    a[threadIdx.x + threadIdx.y * 4] = v;
}
"""

B = (4, 4, 1)  # one thread per element of a 4x4 float32 array


@pytest.fixture(scope="module")
def k():
    mod = SourceModule(SRC)
    return {name: mod.get_function(name) for name in ("plus", "times", "fill")}


@pytest.fixture
def streams():
    """A factory of Streams whose captures are ended after the test, pass or
    fail: a GLOBAL capture left open makes every later allocation fail."""
    made = []

    def new(**kw):
        made.append(drv.Stream(**kw))
        return made[-1]
    yield new
    for s in made:
        if s.is_capturing() != drv.capture_status.NONE:
            try:
                s.end_capture()
            except drv.Error:
                pass


def zeros_gpu():
    a = np.zeros((4, 4), np.float32)
    return drv.to_device(a)


def read(dev):
    out = np.empty((4, 4), np.float32)
    drv.memcpy_dtoh(out, dev)
    return out


def driver_code(excinfo):
    return getattr(excinfo.value, "code", None)


def test_captured_work_runs_only_when_the_graph_is_launched(k, streams):
    a = zeros_gpu()
    s = streams()
    s.begin_capture()
    assert s.is_capturing() == drv.capture_status.ACTIVE
    k["plus"](a, np.int32(3), block=B, stream=s)
    graph = s.end_capture()
    assert s.is_capturing() == drv.capture_status.NONE
    assert isinstance(graph, drv.Graph)
    np.testing.assert_array_equal(read(a), 0)  # captured, not run
    exe = graph.instantiate()
    for n in (1, 2, 3):
        exe.launch(s)
        s.synchronize()
        np.testing.assert_array_equal(read(a), 3 * n)
    exe.launch()  # the default stream
    drv.Context.synchronize()
    np.testing.assert_array_equal(read(a), 12)


def test_capture_info_nodes_added_to_the_capture_and_new_params(k, streams):
    """PyCUDA's test_dynamic_params: a node added by hand to the graph being
    captured, made the stream's dependency, then a captured copy after it;
    the node's arguments changed between launches."""
    a = zeros_gpu()
    result = np.zeros((4, 4), np.float32)
    s = streams()
    assert s.get_capture_info_v2() == (drv.capture_status.NONE, 0, None, [])
    s.begin_capture()
    status, cid, g_live, deps = s.get_capture_info_v2()
    assert status == drv.capture_status.ACTIVE and cid != 0 and deps == []
    node = g_live.add_kernel_node(a, np.int32(3), block=B, func=k["plus"], dependencies=deps)
    s.update_capture_dependencies([node], drv.update_capture_dependencies_flags.SET_CAPTURE_DEPENDENCIES)
    assert s.get_capture_info_v2()[3] == [node]
    drv.memcpy_dtoh_async(result, a, s)
    graph = s.end_capture()
    assert graph == g_live and hash(graph) == hash(g_live)
    assert s.get_capture_info_v2()[0] == drv.capture_status.NONE
    assert len(graph.get_nodes()) == 2
    assert graph.get_root_nodes() == [node]
    exe = graph.instantiate()
    total = 0
    for i in range(4):
        exe.kernel_node_set_params(a, np.int32(i), block=B, func=k["plus"], kernel_node=node)
        exe.launch(s)
        s.synchronize()
        total += i
        np.testing.assert_array_equal(result, total)


def test_two_nodes_by_hand_then_captured_work_after_them(k, streams):
    """PyCUDA's test_many_dynamic_params, with other values."""
    a, b = zeros_gpu(), zeros_gpu()
    result = np.zeros((4, 4), np.float32)
    s = streams()
    s.begin_capture()
    _, _, g_live, deps = s.get_capture_info_v2()
    n1 = g_live.add_kernel_node(a, np.int32(2), block=B, func=k["plus"], dependencies=deps)
    s.update_capture_dependencies([n1], drv.update_capture_dependencies_flags.SET_CAPTURE_DEPENDENCIES)
    _, _, g_live, deps = s.get_capture_info_v2()
    assert deps == [n1]
    n2 = g_live.add_kernel_node(b, np.int32(5), block=B, func=k["plus"], dependencies=deps)
    s.update_capture_dependencies([n2], 1)
    k["times"](a, b, block=B, stream=s)
    drv.memcpy_dtoh_async(result, a, s)
    graph = s.end_capture()
    assert graph == g_live
    exe = graph.instantiate()
    exe.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(result, 2 * 5)
    # other buffers and values for the same nodes; the static node keeps its own
    c = zeros_gpu()
    exe.kernel_node_set_params(c, np.int32(7), block=B, func=k["plus"], kernel_node=n1)
    exe.kernel_node_set_params(b, np.int32(1), block=B, func=k["plus"], kernel_node=n2)
    exe.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(read(c), 7)
    np.testing.assert_array_equal(read(b), 6)
    np.testing.assert_array_equal(result, 10 * 6)  # a was 10, times b (6)


def test_graph_built_node_by_node(k):
    a = zeros_gpu()
    graph = drv.Graph()
    n1 = graph.add_kernel_node(a, np.int32(1), block=B, func=k["plus"], dependencies=[])
    n2 = graph.add_kernel_node(a, np.int32(2), block=B, func=k["plus"], dependencies=[n1])
    assert set(graph.get_nodes()) == {n1, n2}
    assert graph.get_root_nodes() == [n1]
    assert n2.get_dependencies() == [n1] and n1.get_dependencies() == []
    assert n1.type == drv.graph_node_type.KERNEL
    exe = graph.instantiate()
    exe.launch()
    drv.Context.synchronize()
    np.testing.assert_array_equal(read(a), 3)
    # the exec is a snapshot: nodes added later do not run in it
    graph.add_kernel_node(a, np.int32(100), block=B, func=k["plus"])
    exe.launch()
    drv.Context.synchronize()
    np.testing.assert_array_equal(read(a), 6)


def test_edges_empty_and_child_graph_nodes(k):
    a = zeros_gpu()
    child = drv.Graph()
    child.add_kernel_node(a, np.float32(5), block=B, func=k["fill"])
    graph = drv.Graph()
    start = graph.add_empty_node()
    assert start.type == drv.graph_node_type.EMPTY
    sub = graph.add_child_graph_node(child, dependencies=[start])
    assert sub.type == drv.graph_node_type.GRAPH
    add = graph.add_kernel_node(a, np.int32(2), block=B, func=k["plus"])
    graph.add_dependencies([sub], [add])  # fill first, then add
    assert add.get_dependencies() == [sub]
    del child
    gc.collect()
    exe = graph.instantiate()
    for _ in range(2):
        exe.launch()
        drv.Context.synchronize()
        np.testing.assert_array_equal(read(a), 7)


def test_a_graph_keeps_what_its_work_uses(k, streams):
    """Host buffers of captured copies and device memory of kernel arguments
    are held by the graph: dropping the caller's references before a replay
    must not free them."""
    s = streams()
    src = np.full((4, 4), 4, np.float32)
    tmp = gpuarray.zeros((4, 4), np.float32)
    out = np.zeros((4, 4), np.float32)
    s.begin_capture()
    drv.memcpy_htod_async(tmp.gpudata, src, s)
    k["plus"](tmp, np.int32(1), block=B, stream=s)
    drv.memcpy_dtoh_async(out, tmp.gpudata, s)
    graph = s.end_capture()
    exe = graph.instantiate()
    del graph, src, tmp
    gc.collect()
    junk = [gpuarray.zeros((4, 4), np.float32) + 9 for _ in range(4)]  # reuse freed memory
    exe.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(out, 5)
    assert all((j.get() == 9).all() for j in junk)


def test_array_work_captured_keeps_its_arrays(streams):
    """GPUArray methods, ElementwiseKernel, reductions and scans hand their
    kernels raw device addresses: the graph still keeps their arrays, so a
    replay after the caller dropped them writes into nothing that was
    freed and handed out again."""
    from pycudac.elementwise import ElementwiseKernel
    from pycudac.scan import InclusiveScanKernel
    n = 1 << 14
    fill = ElementwiseKernel("float *x", "x[i] = 42", "fill42_kept")
    cumsum = InclusiveScanKernel(np.int32, "a+b")
    s = streams()
    a, b, c = (gpuarray.zeros(n, np.float32) for _ in range(3))
    h = np.arange(n, dtype=np.float32)
    ones = gpuarray.to_gpu(np.ones(n, np.int32))
    s.begin_capture(capture_mode=drv.capture_mode.RELAXED)  # the array code allocates
    a.set_async(h, stream=s)
    fill(b, stream=s)
    c.fill(3, stream=s)  # launch_map
    total = gpuarray.sum(ones, stream=s)
    scanned = cumsum(ones, stream=s)
    graph = s.end_capture()
    exe = graph.instantiate()
    del a, b, c, graph, ones
    gc.collect()
    bystanders = [gpuarray.zeros(n, np.float32) for _ in range(8)]
    exe.launch(s)
    s.synchronize()
    assert all((x.get() == 0).all() for x in bystanders)
    assert total.get() == n
    np.testing.assert_array_equal(scanned.get(), np.arange(1, n + 1))


@pytest.mark.parametrize("how", ["captured", "by hand"])
def test_a_graph_keeps_the_module_of_its_kernels(streams, how):
    """Captured launches and kernel nodes run code of a Module: the graph
    keeps it loaded after the caller drops every reference to it."""
    mod = SourceModule(SRC.replace("plus(", "plus_kept("))
    a = zeros_gpu()
    s = streams()
    if how == "captured":
        s.begin_capture()
        mod.get_function("plus_kept")(a, np.int32(2), block=B, stream=s)
        graph = s.end_capture()
    else:
        graph = drv.Graph()
        graph.add_kernel_node(a, np.int32(2), block=B, func=mod.get_function("plus_kept"))
    exe = graph.instantiate()
    module = weakref.ref(mod.module)
    del mod, graph
    compiler.clear_memo()  # SourceModule's memo holds its modules too
    SourceModule(SRC).get_function("fill")(a, np.float32(0), block=B)  # another last launch
    gc.collect()
    assert module() is not None
    exe.launch(s)
    s.synchronize()
    np.testing.assert_array_equal(read(a), 2)


def test_a_graph_launched_into_a_capture_is_refused(k, streams):
    """The driver does not capture cuGraphLaunch: it refuses it and
    invalidates the capture (a child graph node does that job)."""
    a = zeros_gpu()
    inner = drv.Graph()
    inner.add_kernel_node(a, np.int32(10), block=B, func=k["plus"])
    inner_exe = inner.instantiate()
    s = streams()
    s.begin_capture()
    with pytest.raises(drv.Error) as ei:
        inner_exe.launch(s)
    assert driver_code(ei) == 900  # CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert s.is_capturing() == drv.capture_status.INVALIDATED
    with pytest.raises(drv.Error) as ei:
        s.end_capture()
    assert driver_code(ei) == 901
    np.testing.assert_array_equal(read(a), 0)


def test_what_a_global_capture_forbids_and_relaxed_allows(streams):
    """cuMemAlloc and cuMemFree may synchronize: a GLOBAL (or THREAD_LOCAL)
    capture refuses them and is invalidated; a RELAXED one lets them run.
    A free that was refused leaves the allocation usable."""
    keep = drv.mem_alloc(64)
    for mode in (drv.capture_mode.GLOBAL, drv.capture_mode.THREAD_LOCAL):
        s = streams()
        s.begin_capture(capture_mode=mode)
        with pytest.raises(drv.Error) as ei:
            drv.mem_alloc(64)
        assert driver_code(ei) == 900
        assert s.is_capturing() == drv.capture_status.INVALIDATED
        with pytest.raises(drv.Error):
            s.end_capture()
    s = streams()
    s.begin_capture()
    with pytest.raises(drv.Error) as ei:
        keep.free()
    assert driver_code(ei) == 900
    with pytest.raises(drv.Error):
        s.end_capture()
    drv.memset_d32(keep, 7, 16)  # still allocated
    out = np.zeros(16, np.uint32)
    drv.memcpy_dtoh(out, keep)
    assert (out == 7).all()
    keep.free()
    s.begin_capture(capture_mode=drv.capture_mode.RELAXED)
    extra = drv.mem_alloc(64)
    extra.free()
    assert s.is_capturing() == drv.capture_status.ACTIVE
    s.end_capture()


def test_memory_collected_during_a_capture_is_freed_after_it(k, streams):
    """The garbage collector may free an object at any moment; during a
    GLOBAL capture the driver would refuse (or be invalidated by) freeing
    device memory, page-locked or registered host memory, or a GraphExec,
    so pycudac frees them when the capture is over."""
    a = zeros_gpu()
    g = drv.Graph()
    g.add_empty_node()
    doomed = [drv.mem_alloc(1 << 20) for _ in range(3)]
    doomed += [drv.pagelocked_empty(1000, np.float32), g.instantiate(),
               drv.register_host_memory(np.zeros(4096, np.float32))]
    before = drv._debug_counters()["failed_frees"]
    s = streams()
    s.begin_capture()
    k["plus"](a, np.int32(1), block=B, stream=s)
    del doomed
    gc.collect()
    assert s.is_capturing() == drv.capture_status.ACTIVE
    graph = s.end_capture()
    assert drv._debug_counters()["failed_frees"] == before
    graph.instantiate().launch(s)
    s.synchronize()
    np.testing.assert_array_equal(read(a), 1)


def test_what_reaches_a_capture_from_outside_leaves_it_alone(k, streams):
    """A stream that joined a capture and is then collected does not end
    (and so invalidate) the capture of the stream that began it; a refused
    free of registered host memory leaves the registration usable; a
    bytearray a captured copy writes into cannot be resized under a replay."""
    a, d = zeros_gpu(), zeros_gpu()
    s1 = streams()
    forked, joined = drv.Event(), drv.Event()
    s1.begin_capture()
    forked.record(s1)
    side = drv.Stream()
    side.wait_for_event(forked)
    k["plus"](a, np.int32(1), block=B, stream=side)
    joined.record(side)
    s1.wait_for_event(joined)
    del side
    gc.collect()
    assert s1.is_capturing() == drv.capture_status.ACTIVE
    ba = bytearray(64)
    drv.memcpy_dtoh_async(ba, d, s1)
    graph = s1.end_capture()
    with pytest.raises(BufferError):
        ba.extend(b"more")
    graph.instantiate().launch(s1)
    s1.synchronize()
    np.testing.assert_array_equal(read(a), 1)

    base = np.zeros(4096, np.float32)
    pinned = drv.register_host_memory(base).base
    s1.begin_capture()
    with pytest.raises(drv.Error) as ei:
        pinned.free()
    assert driver_code(ei) == 900
    with pytest.raises(drv.Error):
        s1.end_capture()
    pinned.free()  # still registered until now
    drv.register_host_memory(base).base.free()


def test_events_recorded_in_a_capture(k, streams):
    s = streams()
    e = drv.Event()
    s.begin_capture()
    e.record(s)
    with pytest.raises(drv.Error) as ei:
        e.synchronize()
    assert driver_code(ei) == 907  # CUDA_ERROR_CAPTURED_EVENT
    assert s.is_capturing() == drv.capture_status.INVALIDATED
    with pytest.raises(drv.Error):
        s.end_capture()
    # recorded only in a capture that is over: the driver refuses to say
    with pytest.raises(drv.Error) as ei:
        e.query()
    assert driver_code(ei) == 1  # CUDA_ERROR_INVALID_VALUE
    e.record(s)  # an ordinary event again
    s.synchronize()
    assert e.query()


def test_work_joined_from_a_second_stream(k, streams):
    a, b = zeros_gpu(), zeros_gpu()
    s1, s2 = streams(), streams()
    forked, joined = drv.Event(), drv.Event()
    s1.begin_capture()
    k["plus"](a, np.int32(1), block=B, stream=s1)
    forked.record(s1)
    s2.wait_for_event(forked)
    assert s2.is_capturing() == drv.capture_status.ACTIVE
    assert s2.get_capture_info_v2()[2] == s1.get_capture_info_v2()[2]
    k["plus"](b, np.int32(2), block=B, stream=s2)
    joined.record(s2)
    s1.wait_for_event(joined)
    k["times"](a, b, block=B, stream=s1)
    graph = s1.end_capture()
    assert s2.is_capturing() == drv.capture_status.NONE
    assert len(graph.get_nodes()) == 3
    exe = graph.instantiate()
    exe.launch(s1)
    s1.synchronize()
    np.testing.assert_array_equal(read(a), 2)
    np.testing.assert_array_equal(read(b), 2)


def test_unjoined_work_fails_the_capture_and_both_streams_recover(k, streams):
    a = zeros_gpu()
    s1, s2 = streams(), streams()
    e = drv.Event()
    s1.begin_capture()
    e.record(s1)
    s2.wait_for_event(e)
    k["plus"](a, np.int32(1), block=B, stream=s2)
    with pytest.raises(drv.Error) as ei:
        s1.end_capture()
    assert driver_code(ei) == 904  # CUDA_ERROR_STREAM_CAPTURE_UNJOINED
    for s in (s1, s2):
        assert s.is_capturing() == drv.capture_status.NONE
        k["plus"](a, np.int32(1), block=B, stream=s)
        s.synchronize()
    np.testing.assert_array_equal(read(a), 2)


def test_streams_of_two_captures_do_not_mix(k, streams):
    s1, s2, s3 = streams(), streams(), streams()
    s1.begin_capture(capture_mode=drv.capture_mode.RELAXED)
    s3.begin_capture(capture_mode=drv.capture_mode.RELAXED)
    e = drv.Event()
    e.record(s1)
    with pytest.raises(drv.Error) as ei:
        s3.wait_for_event(e)
    assert driver_code(ei) == 902  # CUDA_ERROR_STREAM_CAPTURE_MERGE
    assert s1.is_capturing() == s3.is_capturing() == drv.capture_status.INVALIDATED
    for s in (s1, s3):
        with pytest.raises(drv.Error):
            s.end_capture()
    # a capture ends on the stream that began it
    s1.begin_capture()
    e.record(s1)
    s2.wait_for_event(e)
    with pytest.raises(drv.Error) as ei:
        s2.end_capture()
    assert driver_code(ei) == 903  # CUDA_ERROR_STREAM_CAPTURE_UNMATCHED
    assert s1.is_capturing() == drv.capture_status.INVALIDATED


def test_synchronizing_a_capturing_stream_invalidates_the_capture(k, streams):
    a = zeros_gpu()
    s = streams()
    s.begin_capture()
    k["plus"](a, np.int32(1), block=B, stream=s)
    with pytest.raises(drv.Error) as ei:
        s.synchronize()
    assert driver_code(ei) == 900  # CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert s.is_capturing() == drv.capture_status.INVALIDATED
    status, cid, graph, deps = s.get_capture_info_v2()
    assert status == drv.capture_status.INVALIDATED and graph is None and deps == []
    with pytest.raises(drv.Error) as ei:
        s.end_capture()
    assert driver_code(ei) == 901  # CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    assert s.is_capturing() == drv.capture_status.NONE
    k["plus"](a, np.int32(1), block=B, stream=s)  # the stream works again
    s.synchronize()
    np.testing.assert_array_equal(read(a), 1)


def test_legacy_stream_work_during_a_blocking_streams_capture(k, streams):
    """A blocking stream's capture would depend on the legacy stream's
    work: the driver refuses that work and invalidates the capture."""
    a = zeros_gpu()
    s = streams()  # blocking
    s.begin_capture()
    with pytest.raises(drv.Error) as ei:
        k["plus"](a, np.int32(1), block=B)
    assert driver_code(ei) == 906  # CUDA_ERROR_STREAM_CAPTURE_IMPLICIT
    with pytest.raises(drv.Error):
        s.end_capture()
    np.testing.assert_array_equal(read(a), 0)


def test_non_blocking_streams_capture_leaves_the_legacy_stream_alone(k, streams):
    a, b = zeros_gpu(), zeros_gpu()
    s = streams(flags=drv.stream_flags.NON_BLOCKING)
    s.begin_capture(capture_mode=drv.capture_mode.RELAXED)
    k["plus"](b, np.int32(1), block=B)  # the legacy stream: runs now
    k["plus"](a, np.int32(1), block=B, stream=s)
    graph = s.end_capture()
    drv.Context.synchronize()
    np.testing.assert_array_equal(read(b), 1)
    np.testing.assert_array_equal(read(a), 0)
    graph.instantiate().launch(s)
    s.synchronize()
    np.testing.assert_array_equal(read(a), 1)


def test_capture_state_errors(streams):
    s = streams()
    with pytest.raises(drv.Error) as ei:
        s.end_capture()
    assert driver_code(ei) == 401  # CUDA_ERROR_ILLEGAL_STATE: no capture
    with pytest.raises(drv.Error):
        s.update_capture_dependencies([])
    s.begin_capture()
    with pytest.raises(drv.Error) as ei:
        s.begin_capture()
    assert driver_code(ei) == 401
    s.end_capture()
    with pytest.raises(ValueError, match="capture_mode"):
        s.begin_capture(capture_mode=7)
    with pytest.raises(ValueError, match="flags"):
        s.update_capture_dependencies([], flags=5)
    with pytest.raises(TypeError, match="GraphNode"):
        s.update_capture_dependencies([1])
    assert s.is_capturing() == drv.capture_status.NONE


def test_bad_nodes_are_refused_before_the_driver(k):
    a = zeros_gpu()
    g, other = drv.Graph(), drv.Graph()
    foreign = other.add_empty_node()
    with pytest.raises(TypeError, match="func must be a Function"):
        g.add_kernel_node(a, 1, block=B, func="plus")
    with pytest.raises(TypeError, match="func must be a Function"):
        g.add_kernel_node(a, 1, block=B)
    with pytest.raises(ValueError, match="block size must be given"):
        g.add_kernel_node(a, 1, func=k["plus"])
    with pytest.raises(ValueError, match="block.x"):
        g.add_kernel_node(a, 1, block=(0, 1, 1), func=k["plus"])
    with pytest.raises(TypeError, match="kernel 'plus'.*'num'"):
        g.add_kernel_node(a, "three", block=B, func=k["plus"])
    with pytest.raises(TypeError, match="kernel node makes no copies"):
        g.add_kernel_node(drv.InOut(np.zeros(16, np.float32)), 1, block=B, func=k["plus"])
    with pytest.raises(TypeError, match="unexpected keyword argument 'stream'"):
        g.add_kernel_node(a, 1, block=B, func=k["plus"], stream=None)
    with pytest.raises(TypeError, match="dependencies must be a list of GraphNode"):
        g.add_empty_node(dependencies=3)
    with pytest.raises(ValueError, match="node of another graph"):
        g.add_empty_node(dependencies=[foreign])
    n = g.add_kernel_node(a, 1, block=B, func=k["plus"])
    with pytest.raises(ValueError, match="same length"):
        g.add_dependencies([n], [])
    exe = g.instantiate()
    with pytest.raises(TypeError, match="kernel_node must be the GraphNode"):
        exe.kernel_node_set_params(a, 1, block=B, func=k["plus"])
    with pytest.raises(ValueError, match="another graph"):
        exe.kernel_node_set_params(a, 1, block=B, func=k["plus"], kernel_node=foreign)
    with pytest.raises(TypeError, match="stream"):
        exe.launch(stream=3)
    with pytest.raises(TypeError):
        drv.GraphNode()
    assert len(g.get_nodes()) == 1  # nothing half-added
    exe.launch()
    drv.Context.synchronize()
    np.testing.assert_array_equal(read(a), 1)


def test_debug_dot_print(k, tmp_path):
    a = zeros_gpu()
    g = drv.Graph()
    n = g.add_kernel_node(a, np.int32(1), block=B, func=k["plus"])
    g.add_kernel_node(a, np.int32(1), block=B, func=k["plus"], dependencies=[n])
    path = tmp_path / "g.dot"
    g.debug_dot_print(str(path))
    text = path.read_text()
    assert "digraph" in text and "plus" in text and "->" in text
    with pytest.raises(drv.Error):
        g.debug_dot_print(str(tmp_path / "no" / "such" / "dir.dot"))


def test_the_graph_example_runs_in_a_subprocess():
    """examples/14_graphs.py, on the backend this run uses, with the package
    this run imports (the examples import pycudac from the path)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(drv.__file__)))
    env = dict(os.environ, PYCUDAC_BACKEND=drv.get_backend(),
               PYTHONPATH=os.pathsep.join(filter(None, [pkg_parent,
                                                        os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, os.path.join(root, "examples", "14_graphs.py")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "10 replays match NumPy" in r.stdout and "matches NumPy" in r.stdout.splitlines()[-1]


def test_graph_entry_points_refuse_wrong_kinds(k, streams):
    a = zeros_gpu()
    g = drv.Graph()
    n = g.add_kernel_node(a, np.int32(1), block=B, func=k["plus"])
    exe = g.instantiate()
    s = streams()
    with pytest.raises(TypeError, match="takes"):
        drv.Graph(1)
    with pytest.raises(TypeError, match="no arguments"):
        drv.Graph(flags=0)
    with pytest.raises(TypeError, match="must be pycudac._driver.Graph"):
        g.add_child_graph_node("child")
    with pytest.raises(TypeError, match="from_nodes must be a list of GraphNode"):
        g.add_dependencies(3, [])
    with pytest.raises(TypeError):
        g.debug_dot_print(3)
    with pytest.raises(TypeError):
        s.begin_capture("global")
    with pytest.raises(TypeError, match=r"dependencies\[0\] must be a GraphNode"):
        s.update_capture_dependencies("ab")
    with pytest.raises(TypeError, match="kernel 'plus' argument 2 'num'"):
        exe.kernel_node_set_params(a, "x", block=B, func=k["plus"], kernel_node=n)
    with pytest.raises(ValueError, match="shared = -1 bytes is out of range"):
        exe.kernel_node_set_params(a, 1, block=B, func=k["plus"], kernel_node=n, shared=-1)
    with pytest.raises(TypeError):
        drv.GraphExec()
    assert s.is_capturing() == drv.capture_status.NONE
    exe.launch(s)  # nothing above changed the exec
    s.synchronize()
    np.testing.assert_array_equal(read(a), 1)


def test_begin_capture_names_a_bad_mode():
    """begin_capture('x') was "'str' object cannot be interpreted as an
    integer", 2**70 an unnamed OverflowError (found by an adversarial review)."""
    s = drv.Stream()
    for mode, exc in (("x", TypeError), (1.5, TypeError), (True, TypeError), (99, ValueError),
                      (2 ** 70, ValueError)):
        with pytest.raises(exc, match="begin_capture: capture_mode must be a capture_mode"):
            s.begin_capture(mode)
    assert not s.is_capturing()
