"""CUDA vector types (float4 …) as NumPy structured dtypes (part of
pycudac.gpuarray, reached as gpuarray.vec)."""
import numpy as np


class vec:  # noqa: N801 (PyCUDA's name)
    """gpuarray.vec.float4 etc.: structured dtypes with fields x, y, z, w
    laid out (and aligned) like CUDA's vector types; make_float4(...)."""
    _dtype_to_name = {}


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

            def make(*args, _dt=dt, _n=n, _name=name):
                if len(args) != _n:
                    raise TypeError(f"make_{_name} takes {_n} values, got {len(args)}")
                out = np.zeros((), _dt)
                for f, v in zip(fields, args):
                    out[f] = v
                return out
            setattr(vec, f"make_{name}", staticmethod(make))


_setup_vec()
