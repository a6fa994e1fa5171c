"""CUDA vector types (float4 …) as NumPy structured dtypes (part of
pycudac.gpuarray, reached as gpuarray.vec), and the component view that
vec arithmetic works through (see _gpuarray_ops)."""
import numpy as np


class vec:  # noqa: N801 (PyCUDA's name)
    """gpuarray.vec.float4 etc.: structured dtypes with fields x, y, z, w
    laid out (and aligned) like CUDA's vector types; make_float4(...)."""
    _dtype_to_name = {}
    _by_components = {}  # (component dtype, count) -> vec dtype


def _setup_vec():
    fields = "xyzw"
    bases = [("char", np.int8), ("uchar", np.uint8), ("short", np.int16),
             ("ushort", np.uint16), ("int", np.int32), ("uint", np.uint32),
             ("long", np.int64), ("ulong", np.uint64), ("longlong", np.int64),
             ("ulonglong", np.uint64), ("float", np.float32), ("double", np.float64)]
    for base, scalar in bases:
        for n in (1, 2, 3, 4):
            name = f"{base}{n}"
            # CUDA's layout: n packed elements (float3 is 12 bytes)
            dt = np.dtype({"names": list(fields[:n]), "formats": [scalar] * n})
            setattr(vec, name, dt)
            vec._dtype_to_name.setdefault(dt, name)
            vec._by_components.setdefault((np.dtype(scalar), n), dt)

            def make(*args, _dt=dt, _n=n, _name=name):
                if len(args) != _n:
                    raise TypeError(f"make_{_name} takes {_n} values, got {len(args)}")
                out = np.zeros((), _dt)
                for f, v in zip(fields, args):
                    out[f] = v
                return out
            setattr(vec, f"make_{name}", staticmethod(make))


_setup_vec()


def vec_name(dtype):
    """'float4' for gpuarray.vec.float4 …, None for any other dtype."""
    return vec._dtype_to_name.get(dtype)


def vec_components(dtype):
    """(component dtype, count) of a gpuarray.vec dtype, else None."""
    if dtype not in vec._dtype_to_name:
        return None
    return dtype.fields["x"][0], len(dtype.names)


def vec_of(component, count):
    """The gpuarray.vec dtype of `count` `component`s, or None."""
    return vec._by_components.get((np.dtype(component), count))


def components(ary):
    """A view of a vec-typed GPUArray as its components: shape + (count,)."""
    base, n = vec_components(ary.dtype)
    return ary._view(ary.shape + (n,), ary.strides + (base.itemsize,), 0, base)
