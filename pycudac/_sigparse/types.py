"""What the kernel-signature parser (pycudac._sigparse) knows about C types:
the Param and KernelSignature it returns, the kinds of value the launch path
converts (KINDS), the scalar and CUDA vector types with their C ABI size and
alignment, their NumPy dtypes, and the words a declaration may carry. Apart
because it is data about types, not parsing: the declarator parser
(decl.py) and Param.dtype both look things up here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

KINDS = ("ptr", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32",
         "f64", "bool", "vec", "struct", "tex", "surf")


class Param(NamedTuple):
    """One kernel parameter. For pointers `is_const` tells whether the data
    pointed to is const; for values whether the value is. `kind` is None only
    for a type that depends on a template parameter (see signature_for)."""
    name: Optional[str]
    ctype: str
    kind: Optional[str]
    size: Optional[int]
    align: Optional[int]
    is_pointer: bool
    is_const: bool
    pointee: Optional[str]

    @property
    def dtype(self):
        """NumPy dtype of the value (PyCUDA's ScalarArg) or, for a pointer,
        of the elements pointed to (PyCUDA's VectorArg); None if unknown."""
        import numpy as np
        base = self.pointee if self.is_pointer else self.ctype
        if base is None:
            return None
        base = _strip_cv(base)
        if "*" in base:
            return np.dtype(np.uintp)
        spec = _dtype_spec(ALIASES.get(base, base))
        return None if spec is None else np.dtype(spec)

    @property
    def pointee_dtype(self):
        """For a pointer whose pointee is an arithmetic, vector or complex
        type (float *, uint32_t *, float4 *, cuFloatComplex *): the dtype the
        memory passed must have (the launch refuses an array of another);
        None for pointers that take any memory: void, char, signed and
        unsigned char, pointers to pointers, and structs."""
        if not self.is_pointer or self.pointee is None:
            return None
        base = _strip_cv(self.pointee)
        if ("*" in base or base in ("void", "char", "signed char", "unsigned char")
                or base in REGISTERED or ALIASES.get(base, base) in REGISTERED):
            return None
        return self.dtype


@dataclass(frozen=True)
class KernelSignature:
    name: str
    params: tuple
    template_params: tuple = ()  # ((kind, name, default tokens or None), ...)
    _decls: tuple = field(default=(), repr=False, compare=False)  # token lists per param
    _env: object = field(default=None, repr=False, compare=False)
    # the source has #if/#ifdef/#ifndef/#elif/#else: what the compiler keeps
    # depends on options the parser does not see (-D, -U), so the driver is
    # asked for the parameter count rather than trusting this declaration's
    conditional: bool = field(default=False, repr=False, compare=False)

    @property
    def resolved(self):
        return all(p.kind is not None for p in self.params)


SCALARS = {
    # canonical name: (kind, size, align)
    "char": ("i8", 1, 1), "signed char": ("i8", 1, 1), "unsigned char": ("u8", 1, 1),
    "short": ("i16", 2, 2), "unsigned short": ("u16", 2, 2),
    "int": ("i32", 4, 4), "unsigned int": ("u32", 4, 4),
    "long": ("i64", 8, 8), "unsigned long": ("u64", 8, 8),
    "long long": ("i64", 8, 8), "unsigned long long": ("u64", 8, 8),
    "float": ("f32", 4, 4), "double": ("f64", 8, 8), "bool": ("bool", 1, 1),
    "__half": ("f16", 2, 2), "__nv_bfloat16": ("bf16", 2, 2),
    "__half2": ("vec", 4, 4), "__nv_bfloat162": ("vec", 4, 4),
    "dim3": ("vec", 12, 4), "cuFloatComplex": ("vec", 8, 8), "cuDoubleComplex": ("vec", 16, 16),
    "cuComplex": ("vec", 8, 8),
    # texture and surface objects: 64-bit handles, passed as TextureObject /
    # SurfaceObject (the runtime's and the driver API's names)
    "cudaTextureObject_t": ("tex", 8, 8), "CUtexObject": ("tex", 8, 8),
    "cudaSurfaceObject_t": ("surf", 8, 8), "CUsurfObject": ("surf", 8, 8),
}

ALIASES = {
    "half": "__half", "nv_bfloat16": "__nv_bfloat16", "half2": "__half2",
    "nv_bfloat162": "__nv_bfloat162",
    "size_t": "unsigned long", "ptrdiff_t": "long", "ssize_t": "long",
    "intptr_t": "long", "uintptr_t": "unsigned long",
    "int8_t": "signed char", "uint8_t": "unsigned char", "int16_t": "short",
    "uint16_t": "unsigned short", "int32_t": "int", "uint32_t": "unsigned int",
    "int64_t": "long long", "uint64_t": "unsigned long long",
    "_Bool": "bool", "uint": "unsigned int", "ushort": "unsigned short",
    "uchar": "unsigned char", "ulong": "unsigned long",
    "__int64": "long long",
}
# Fixed-width names keep their own spelling in ctype (messages read better).
KEEP_NAME = {"size_t", "ptrdiff_t", "ssize_t", "intptr_t", "uintptr_t", "int8_t", "uint8_t",
              "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"}

# CUDA vector types: element kind, element size, and alignment for 1..4
# components (vector_types.h).
# the texture and surface object types: a source's typedef of them (cuda.h
# declares CUtexObject as unsigned long long) does not make them integers
HANDLE_TYPES = frozenset(k for k, v in SCALARS.items() if v[0] in ("tex", "surf"))

_VEC_BASES = {
    "char": ("i8", 1, (1, 2, 1, 4)), "uchar": ("u8", 1, (1, 2, 1, 4)),
    "short": ("i16", 2, (2, 4, 2, 8)), "ushort": ("u16", 2, (2, 4, 2, 8)),
    "int": ("i32", 4, (4, 8, 4, 16)), "uint": ("u32", 4, (4, 8, 4, 16)),
    "long": ("i64", 8, (8, 16, 8, 16)), "ulong": ("u64", 8, (8, 16, 8, 16)),
    "longlong": ("i64", 8, (8, 16, 8, 16)), "ulonglong": ("u64", 8, (8, 16, 8, 16)),
    "float": ("f32", 4, (4, 8, 4, 16)), "double": ("f64", 8, (8, 16, 8, 16)),
}
for _b, (_k, _es, _al) in _VEC_BASES.items():
    for _n in (1, 2, 3, 4):
        SCALARS[f"{_b}{_n}"] = ("vec", _es * _n, _al[_n - 1])
    for _sfx, _a in (("_16a", 16), ("_32a", 32)):
        if _es == 8:
            SCALARS[f"{_b}4{_sfx}"] = ("vec", _es * 4 if _a == 16 else 32, _a)

_NP_SCALAR = {"i8": "i1", "u8": "u1", "i16": "i2", "u16": "u2", "i32": "i4", "u32": "u4",
              "i64": "i8", "u64": "u8", "f16": "f2", "f32": "f4", "f64": "f8", "bool": "?"}


# C type names given a dtype by tools.register_dtype (user structs): name -> dtype
REGISTERED = {}


def _dtype_spec(name):
    """NumPy dtype spec for a canonical C type name, or None."""
    ent = SCALARS.get(name)
    if ent is None:
        if name in REGISTERED:
            return REGISTERED[name]
        if re.fullmatch(r"(?:\w+::)*complex<\s*float\s*>", name):
            return "c8"
        if re.fullmatch(r"(?:\w+::)*complex<\s*double\s*>", name):
            return "c16"
        return None
    kind = ent[0]
    if kind in _NP_SCALAR:
        return _NP_SCALAR[kind]
    if name in ("cuFloatComplex", "cuComplex"):
        return "c8"
    if name == "cuDoubleComplex":
        return "c16"
    if name == "dim3":
        return {"names": ["x", "y", "z"], "formats": ["u4"] * 3}
    if name in ("__half2", "__nv_bfloat162"):
        return {"names": ["x", "y"], "formats": ["f2" if name == "__half2" else "u2"] * 2}
    m = re.fullmatch(r"([a-z]+)([1-4])(_16a|_32a)?", name)
    if m and m.group(1) in _VEC_BASES:
        ek, _, _ = _VEC_BASES[m.group(1)]
        n = int(m.group(2))
        names = list("xyzw")[:n]
        return {"names": names, "formats": [_NP_SCALAR[ek]] * n, "itemsize": ent[1],
                "aligned": True}
    return None


def _strip_cv(t):
    return re.sub(r"\b(?:const|volatile)\s+", "", t).strip()


CV = {"const", "volatile"}
IGNORED_QUALS = {"__restrict__", "restrict", "__restrict", "__grid_constant__", "register",
                  "__device__", "__global__", "__host__", "__shared__", "__constant__",
                  "__managed__", "static", "inline", "__inline__", "__forceinline__",
                  "__noinline__", "extern", "typename", "__unaligned", "mutable", "constexpr"}
PAREN_ATTRS = {"__launch_bounds__", "__maxnreg__", "__align__", "alignas", "__declspec",
                "__cluster_dims__", "__attribute__", "__nv_pure__"}
BUILTIN_WORDS = {"unsigned", "signed", "short", "long", "int", "char", "float", "double",
                  "bool", "void", "_Bool", "__int64"}
TAGS = {"struct", "class", "union", "enum"}
KEYWORDS = CV | IGNORED_QUALS | PAREN_ATTRS | BUILTIN_WORDS | TAGS | {
    "template", "return", "if", "for", "while", "do", "switch", "case", "sizeof", "new",
    "delete", "operator", "this", "auto", "decltype", "typedef", "using", "namespace"}
