"""The corpus's cases for the C++ that CUDA code uses (cpp_idioms.cu): operator
overloading on a complex struct, class and function templates, functors and
lambdas, namespaces with enum class and constexpr, unions and aligned structs,
alignas on __shared__ arrays, __restrict__ with __ldg, and a __device__
function-pointer table.

Each module appends its cases to registry.CASES when imported (cases.py
imports them all)."""
import numpy as np

from registry import In, Out, Val, case, cdiv, ints_as_floats


def _complex64(r, n):
    return (r.standard_normal(n) + 1j * r.standard_normal(n)).astype(np.complex64)


# ---- a complex struct with operators, class and function templates ---------------------------------------

def _dft8_ref(d):
    X = np.fft.fft(d["x"].astype(np.complex128).reshape(-1, 8), axis=1).ravel()
    return {"X": X, "power": np.abs(X) ** 2}


case(id="cpp_complex_struct_dft8", src="cpp_idioms.cu", kernel="dft8",
     make=lambda r: dict(x=_complex64(r, 8 * 300), X=np.zeros(8 * 300, np.complex64),
                         power=np.zeros(8 * 300, np.float32), n8=np.int32(300)),
     args=(In("x"), Out("X"), Out("power"), Val("n8")), block=(64, 1, 1), grid=(cdiv(300, 64), 1),
     expect=_dft8_ref, rtol=1e-4, atol=1e-4, tags=("cpp", "operator_overloading"))


def _rows_dot_ref(d, n):
    a = d["a"].reshape(-1, n).astype(np.int64)
    b = d["b"].reshape(-1, n).astype(np.int64)
    return {"out": (a * b).sum(axis=1) + a[:, 0] ** n}


case(id="cpp_class_template_float4", src="cpp_idioms.cu", kernel="rows_dot<float, 4>",
     make=lambda r: dict(a=ints_as_floats(r, 4 * 500), b=ints_as_floats(r, 4 * 500),
                         out=np.zeros(500, np.float32), rows=np.int32(500)),
     args=(In("a"), In("b"), Out("out"), Val("rows")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: _rows_dot_ref(d, 4), tags=("cpp", "template", "name_expression"))

case(id="cpp_class_template_int3", src="cpp_idioms.cu", kernel="rows_dot<int, 3>",
     make=lambda r: dict(a=r.integers(-50, 50, 3 * 500).astype(np.int32),
                         b=r.integers(-50, 50, 3 * 500).astype(np.int32),
                         out=np.zeros(500, np.int32), rows=np.int32(500)),
     args=(In("a"), In("b"), Out("out"), Val("rows")), block=(128, 1, 1), grid=(4, 1),
     expect=lambda d: _rows_dot_ref(d, 3), tags=("cpp", "template", "name_expression"))


# ---- functors by value, lambdas ---------------------------------------------------------------------------

SAXPY = np.dtype([("a", np.float32), ("b", np.float32)])
CLAMP = np.dtype([("lo", np.float32), ("hi", np.float32)])

case(id="cpp_functor_saxpy", src="cpp_idioms.cu", kernel="transform<Saxpy>",
     make=lambda r: dict(x=r.standard_normal(3000).astype(np.float32),
                         y=np.zeros(3000, np.float32), n=np.int32(3000),
                         op=np.array((2.5, -0.75), SAXPY)[()]),
     args=(In("x"), Out("y"), Val("n"), Val("op")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"y": 2.5 * d["x"].astype(np.float64) - 0.75}, rtol=1e-6, atol=1e-6,
     tags=("cpp", "functor", "struct_param", "name_expression"))

case(id="cpp_functor_clamp", src="cpp_idioms.cu", kernel="transform<Clamp>",
     make=lambda r: dict(x=r.standard_normal(3000).astype(np.float32),
                         y=np.zeros(3000, np.float32), n=np.int32(3000),
                         op=np.array((-0.5, 1.25), CLAMP)[()]),
     args=(In("x"), Out("y"), Val("n"), Val("op")), block=(256, 1, 1), grid=(4, 1),
     expect=lambda d: {"y": np.clip(d["x"], np.float32(-0.5), np.float32(1.25))},
     tags=("cpp", "functor", "struct_param", "name_expression"))


def _lambda_ref(d):
    x = d["x"].astype(np.float64)
    s, t = float(d["s"]), float(d["t"])
    neg = (x < 0).astype(np.int64)
    neg[:-1] += neg[1:]
    return {"y": s * (s * x + t) + t + x * x + neg}


case(id="cpp_lambda_auto", src="cpp_idioms.cu", kernel="lambda_affine",
     make=lambda r: dict(x=r.standard_normal(1000).astype(np.float32),
                         y=np.zeros(1000, np.float32), s=np.float32(1.5), t=np.float32(-0.25),
                         n=np.int32(1000)),
     args=(In("x"), Out("y"), Val("s"), Val("t"), Val("n")), block=(128, 1, 1), grid=(8, 1),
     expect=_lambda_ref, rtol=1e-5, atol=1e-5, tags=("cpp", "lambda"))


# ---- namespace, enum class, constexpr, references, overloads -----------------------------------------------

def _namespaced_ref(d):
    lo = np.minimum(d["a"], d["b"])
    hi = np.maximum(d["a"], d["b"])
    f = d["f"]
    s = np.float32(1) + f
    twice = f + f
    acc = np.select([d["mode"] == 0, d["mode"] == 1], [s + twice, s - twice],
                    np.maximum(s, twice))
    return {"pairs": np.stack([2 * lo, 8 * hi], axis=1).ravel(), "acc": acc}


case(id="cpp_namespace_enum_class", src="cpp_idioms.cu", kernel="namespaced_ops",
     make=lambda r: dict(a=r.integers(-1000, 1000, 700).astype(np.int32),
                         b=r.integers(-1000, 1000, 700).astype(np.int32),
                         f=r.standard_normal(700).astype(np.float32),
                         mode=(np.arange(700) % 3).astype(np.int32),
                         pairs=np.zeros(1400, np.int32), acc=np.zeros(700, np.float32),
                         n=np.int32(700)),
     args=(In("a"), In("b"), In("f"), In("mode"), Out("pairs"), Out("acc"), Val("n")),
     block=(128, 1, 1), grid=(6, 1), expect=_namespaced_ref,
     tags=("cpp", "namespace", "enum_class", "constexpr", "reference", "overload"))


# ---- union, aligned struct, __ldg, function-pointer table --------------------------------------------------

PARTICLE = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32), ("id", np.int32)])


def _particles(r, n):
    p = np.zeros(n, PARTICLE)
    p["x"] = r.standard_normal(n)
    p["y"] = r.standard_normal(n)
    p["z"] = r.standard_normal(n)
    p["id"] = r.integers(-10000, 10000, n)
    return p


def _particle_ref(d):
    p = d["p"]
    q = p.copy()
    q["x"] = -p["x"]
    q["z"] = p["y"] + p["z"]
    q["id"] = 2 * p["id"] + 1
    return {"out": q.view(np.uint32), "bits": p["x"].view(np.uint32)}


def _particle_check(d, b):
    want = _particle_ref(b)
    np.testing.assert_array_equal(d["out"].view(np.uint32), want["out"])
    np.testing.assert_array_equal(d["bits"], want["bits"])


case(id="cpp_union_aligned_struct", src="cpp_idioms.cu", kernel="particle_bits",
     make=lambda r: dict(p=_particles(r, 500), out=np.zeros(500, PARTICLE),
                         bits=np.zeros(500, np.uint32), n=np.int32(500)),
     args=(In("p"), Out("out"), Out("bits"), Val("n")), block=(128, 1, 1), grid=(4, 1),
     check=_particle_check, tags=("cpp", "union", "align"))

case(id="cpp_restrict_ldg_gather", src="cpp_idioms.cu", kernel="gather_ldg",
     make=lambda r: dict(src=r.standard_normal(400).astype(np.float32),
                         idx=r.integers(0, 400, 5000).astype(np.int32),
                         bias=r.standard_normal(7).astype(np.float32),
                         dst=np.zeros(5000, np.float32), n=np.int32(5000), nb=np.int32(7)),
     args=(In("src"), In("idx"), In("bias"), Out("dst"), Val("n"), Val("nb")),
     block=(256, 1, 1), grid=(3, 1),
     expect=lambda d: {"dst": np.float32(2) * d["src"][d["idx"]] +
                       d["bias"][np.arange(5000) % 7]},
     tags=("cpp", "restrict", "ldg"))


def _table_ref(d):
    x = d["x"]
    return {"y": np.choose(d["which"] % 4, [-x, x * x, np.float32(0.5) * x, x + np.float32(1)])}


case(id="cpp_device_function_pointer_table", src="cpp_idioms.cu", kernel="apply_table",
     make=lambda r: dict(x=r.standard_normal(1000).astype(np.float32),
                         which=r.integers(0, 100, 1000).astype(np.int32),
                         y=np.zeros(1000, np.float32), n=np.int32(1000)),
     args=(In("x"), In("which"), Out("y"), Val("n")), block=(256, 1, 1), grid=(4, 1),
     expect=_table_ref, tags=("cpp", "function_pointer"))


# ---- alignas after __shared__ --------------------------------------------------------------------------

case(id="cpp_alignas_shared_float4", src="cpp_idioms.cu", kernel="aligned_shared_reverse",
     make=lambda r: dict(x=ints_as_floats(r, 5 * 256), y=np.zeros(5 * 256, np.float32),
                         aligned=np.zeros(5, np.int32)),
     args=(In("x"), Out("y"), Out("aligned")), block=(64, 1, 1), grid=(5, 1),
     expect=lambda d: {"y": d["x"].reshape(5, 256)[:, ::-1].ravel(),
                       "aligned": np.full(5, 7, np.int32)},
     tags=("cpp", "align", "shared"))
