"""pycudac's own host time per launch (issue 4), measured on the CPU with a
stub driver: tests/c/stub_libcuda.c answers every driver call at once, so
what a loop of launches costs is pycudac's work plus Python's loop and call.

    python3 bench/launch_overhead.py [--quick] [--json PATH] [--rounds N]
    make launch-overhead

Builds bench/out/libstub_cuda.so (the stub driver) and bench/out/_noop*.so
(a do-nothing C function, the reference for what Python itself costs) with
the C compiler, points pycudac at the stub (PYCUDAC_LIBCUDA, PYCUDAC_BACKEND=
cuda; NVRTC compiles a real sm_90 CUBIN for the stub to "load"), and times,
in alternating rounds, the median of many batches, in ns per call:

  (a) empty     f(ptr, 1000, block=(1, 1, 1), grid=(1, 1), stream=s)
  (b) prepared  f.prepared_async_call((1, 1), (1, 1, 1), s, ptr, 1000)
  (c) k16       the 16-parameter call of bench/bench_launch.py (float4 from
                gpuarray.vec.make_float4)
  (d) noop      the same loops calling a C function (METH_FASTCALL |
                METH_KEYWORDS, returns None) with the same arguments: the
                floor no launch API can go under
      Noop()    the same, an object called through its vectorcall slot as a
                Function is (Python 3.11+ specializes calls of builtin
                functions and methods, not of such objects)
  loop          the bare `for _ in range(n): pass`

pycudac's own cost is the difference to the matching noop line ((a) and (c)
to the Noop() line: the same kind of callee).

--pollute DATA_KB,CODE_KB makes the stub's launch (and the noop) touch that
much memory and run that much code first, as the real driver's launch does:
pycudac's own cost then includes the cache misses its path takes afterwards
(130-180 ns a call on the H100 host against ~21 ns with a stub that evicts
nothing).
"""
import glob
import os
import subprocess
import sys
import sysconfig
import time

# NumPy's BLAS threads would spin on the CPU this measures: one is enough.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "out")
STUB_SRC = sorted(glob.glob(os.path.join(ROOT, "tests", "c", "stub_*.c")))
STUB_LIB = os.path.join(OUT, "libstub_cuda.so")

NOOP_SRC = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <dlfcn.h>
#include <stdlib.h>
/* Accept anything and do nothing: what a call from Python costs. `noop` is a
 * builtin function (the interpreter has specialized calls for those); a
 * Noop instance is called like a pycudac Function, through its vectorcall
 * slot. With STUB_POLLUTE_* set, both also run the stub driver's
 * stub_pollute(), as its cuLaunchKernel then does. */
static void (*pollute)(void);
static PyObject *noop(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    (void)self; (void)args; (void)nargs; (void)kwnames;
    if (pollute)
        pollute();
    Py_RETURN_NONE;
}
typedef struct { PyObject_HEAD vectorcallfunc vectorcall; } Noop;
static PyObject *noop_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                 PyObject *kwnames)
{
    (void)self; (void)args; (void)nargsf; (void)kwnames;
    if (pollute)
        pollute();
    Py_RETURN_NONE;
}
static PyObject *noop_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    (void)args; (void)kwds;
    Noop *o = (Noop *)type->tp_alloc(type, 0);
    if (o)
        o->vectorcall = noop_vectorcall;
    return (PyObject *)o;
}
static PyMemberDef noop_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(Noop, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};
static PyTypeObject NoopType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_noop.Noop", .tp_basicsize = sizeof(Noop),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Noop, vectorcall), .tp_call = PyVectorcall_Call,
    .tp_new = noop_new, .tp_members = noop_members};
static PyMethodDef methods[] = {
    {"noop", (PyCFunction)(void (*)(void))noop, METH_FASTCALL | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}};
static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, .m_name = "_noop", .m_size = -1,
                                 .m_methods = methods};
PyMODINIT_FUNC PyInit__noop(void)
{
    if (PyType_Ready(&NoopType) < 0)
        return NULL;
    const char *lib = getenv("PYCUDAC_LIBCUDA");
    if (lib && (getenv("STUB_POLLUTE_DATA_KB") || getenv("STUB_POLLUTE_CODE_KB"))) {
        void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
        if (h)
            *(void **)&pollute = dlsym(h, "stub_pollute");
        if (pollute == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "STUB_POLLUTE_* set but the stub driver's "
                            "stub_pollute is not loaded");
            return NULL;
        }
    }
    PyObject *m = PyModule_Create(&def);
    if (m && PyModule_AddObjectRef(m, "Noop", (PyObject *)&NoopType) < 0)
        Py_CLEAR(m);
    return m;
}
"""

SRC = r"""
__global__ void empty(float *a, int n) {}
__global__ void k16(float *a, float *b, float *c, float *d,
    int i0, int i1, int i2, int i3, float f0, float f1, float f2, float f3,
    float4 v, double x, unsigned int u, long long ll) {}
"""


def cc():
    return os.environ.get("CC") or sysconfig.get_config_var("CC").split()[0] or "cc"


def stale(target, *sources):
    return not os.path.exists(target) or any(
        os.path.getmtime(s) > os.path.getmtime(target) for s in sources)


def build():
    os.makedirs(OUT, exist_ok=True)
    if stale(STUB_LIB, *STUB_SRC, os.path.join(ROOT, "include", "pycudac", "cudadrv.h")):
        subprocess.check_call([cc(), "-O2", "-Wall", "-Wextra", "-fPIC", "-shared",
                               "-fvisibility=hidden", "-I" + os.path.join(ROOT, "include"),
                               *STUB_SRC, "-o", STUB_LIB])
    return build_noop()


def build_noop():
    """bench/out/_noop*.so (the do-nothing callables); also used by
    bench_launch.py's interleaving diagnostic on the GPU."""
    os.makedirs(OUT, exist_ok=True)
    noop_lib = os.path.join(OUT, "_noop" + sysconfig.get_config_var("EXT_SUFFIX"))
    src = os.path.join(OUT, "_noop.c")
    if not os.path.exists(src) or open(src).read() != NOOP_SRC or not os.path.exists(noop_lib):
        with open(src, "w") as fh:
            fh.write(NOOP_SRC)
        subprocess.check_call([cc(), "-O2", "-Wall", "-Wextra", "-fPIC", "-shared",
                               "-I" + sysconfig.get_paths()["include"], src, "-o", noop_lib])
    return noop_lib


def variants():
    """name -> batch(n) returning ns per call. Imports pycudac on the stub."""
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac.compiler import SourceModule
    from pycudac.gpuarray import vec
    sys.path.insert(0, OUT)
    from _noop import Noop, noop

    backend = drv.get_backend()
    if backend != "cuda":
        raise SystemExit(f"pycudac runs on the {backend} backend, not on the stub driver")
    mod = SourceModule(SRC)
    f, f16 = mod.get_function("empty"), mod.get_function("k16")
    s = drv.Stream(flags=1)
    ptr = drv.mem_alloc(4096)
    v4 = vec.make_float4(1, 2, 3, 4)
    f.prepare("Pi")
    noop_obj = Noop()
    clock = time.perf_counter_ns

    # Each loop is written out (no helper taking the callable) so that the
    # pycudac and noop loops are the same bytecode with a different callee.
    def empty(n):
        f_, p, s_ = f, ptr, s
        t0 = clock()
        for _ in range(n):
            f_(p, 1000, block=(1, 1, 1), grid=(1, 1), stream=s_)
        return (clock() - t0) / n

    def noop_empty(n):
        f_, p, s_ = noop, ptr, s
        t0 = clock()
        for _ in range(n):
            f_(p, 1000, block=(1, 1, 1), grid=(1, 1), stream=s_)
        return (clock() - t0) / n

    def noopobj_empty(n):
        f_, p, s_ = noop_obj, ptr, s
        t0 = clock()
        for _ in range(n):
            f_(p, 1000, block=(1, 1, 1), grid=(1, 1), stream=s_)
        return (clock() - t0) / n

    def prepared(n):
        pac, p, s_ = f.prepared_async_call, ptr, s
        t0 = clock()
        for _ in range(n):
            pac((1, 1), (1, 1, 1), s_, p, 1000)
        return (clock() - t0) / n

    def noop_prepared(n):
        pac, p, s_ = noop, ptr, s
        t0 = clock()
        for _ in range(n):
            pac((1, 1), (1, 1, 1), s_, p, 1000)
        return (clock() - t0) / n

    def k16(n):
        g, p, s_, v = f16, ptr, s, v4
        t0 = clock()
        for _ in range(n):
            g(p, p, p, p, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v, 6.25, 7, -8,
              block=(1, 1, 1), grid=(1, 1), stream=s_)
        return (clock() - t0) / n

    def noop_k16(n):
        g, p, s_, v = noop, ptr, s, v4
        t0 = clock()
        for _ in range(n):
            g(p, p, p, p, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v, 6.25, 7, -8,
              block=(1, 1, 1), grid=(1, 1), stream=s_)
        return (clock() - t0) / n

    def noopobj_k16(n):
        g, p, s_, v = noop_obj, ptr, s, v4
        t0 = clock()
        for _ in range(n):
            g(p, p, p, p, 1, 2, 3, 4, 1.5, 2.5, 3.5, 4.5, v, 6.25, 7, -8,
              block=(1, 1, 1), grid=(1, 1), stream=s_)
        return (clock() - t0) / n

    def loop(n):
        t0 = clock()
        for _ in range(n):
            pass
        return (clock() - t0) / n

    keep = (mod, s, ptr)
    return keep, {"(a) empty call": empty, "(b) prepared_async_call": prepared,
                  "(c) k16 call": k16, "(d) noop, empty's args": noop_empty,
                  "(d) noop, prepared's args": noop_prepared, "(d) noop, k16's args": noop_k16,
                  "(d) Noop(), empty's args": noopobj_empty,
                  "(d) Noop(), k16's args": noopobj_k16, "loop alone": loop}


def main():
    import argparse
    import json
    import statistics
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smoke run")
    p.add_argument("--rounds", type=int, default=0, help="alternating rounds (default 25)")
    p.add_argument("--json", metavar="PATH", help="append one JSON line per metric")
    p.add_argument("--pollute", metavar="DATA_KB,CODE_KB",
                   help="each launch (and each noop call) touches DATA_KB of memory and runs "
                        "CODE_KB (at most 64) of code, as the real driver's launch evicts the "
                        "caller's code and data from the near caches")
    args = p.parse_args()
    if args.pollute:
        data_kb, _, code_kb = args.pollute.partition(",")
        os.environ["STUB_POLLUTE_DATA_KB"] = str(int(data_kb or 0))
        os.environ["STUB_POLLUTE_CODE_KB"] = str(int(code_kb or 0))
    noop_lib = build()
    os.environ["PYCUDAC_LIBCUDA"] = STUB_LIB
    os.environ["PYCUDAC_BACKEND"] = "cuda"
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    keep, batches = variants()
    assert os.path.dirname(noop_lib) == OUT
    n = 2000 if args.quick else 20000
    rounds = args.rounds or (3 if args.quick else 25)
    samples = {k: [] for k in batches}
    for fn in batches.values():
        fn(n)  # warm-up: first-call work (dims cache, keyword interning...)
    for _ in range(rounds):
        for name, fn in batches.items():
            samples[name].append(fn(n))
    print(f"== launch overhead on the stub driver ({n} calls a batch, median of {rounds} "
          f"batches, ns per call"
          + (f"; each launch and noop touches {os.environ['STUB_POLLUTE_DATA_KB']} KB and "
             f"runs {os.environ['STUB_POLLUTE_CODE_KB']} KB of code" if args.pollute else "")
          + ")")
    med = {k: statistics.median(v) for k, v in samples.items()}
    ref = {"(a) empty call": "(d) Noop(), empty's args",
           "(b) prepared_async_call": "(d) noop, prepared's args",
           "(c) k16 call": "(d) Noop(), k16's args"}
    for name, m in med.items():
        extra = (f"   pycudac's own: {m - med[ref[name]]:6.1f} (minima: "
                 f"{min(samples[name]) - min(samples[ref[name]]):6.1f})" if name in ref else "")
        print(f"  {name:<30} {m:7.1f}  (min {min(samples[name]):6.1f}){extra}", flush=True)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps({"bench": "launch_overhead", "metric": name,
                                     "value": m, "unit": "ns", "n": rounds,
                                     "min": min(samples[name])}) + "\n")
    del keep
    return 0


if __name__ == "__main__":
    sys.exit(main())
