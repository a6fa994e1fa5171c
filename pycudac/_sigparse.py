"""Kernel signatures from CUDA C source: a small tokenizer and a parser for
the declarators of `__global__` functions (and of ElementwiseKernel
argument strings such as "float a, float *x, int n").

    parse_kernels(source)       -> {kernel name: KernelSignature or None}
    parse_arguments(text)       -> [Param, ...]
    signature_for(sigs, name)   -> KernelSignature or None, for a kernel name
                                   or a name expression such as "axpy<float, 4>"

A Param says what the launch path needs: the parameter's kind (how a Python
value is converted), its size and alignment by the C ABI (None for a user
struct: its size comes from the driver), and a normalized C type for
messages. Source the parser does not understand (a function-like macro in a
parameter list, say) makes that one kernel's signature None, never the
whole module's; only garbage that cannot even be tokenized (an unterminated
comment or string) raises ValueError, with the line and column.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple, Optional

__all__ = ["Param", "KernelSignature", "parse_kernels", "parse_arguments", "signature_for",
           "KINDS"]

KINDS = ("ptr", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "bf16", "f32",
         "f64", "bool", "vec", "struct")


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
        spec = _dtype_spec(base)
        return None if spec is None else np.dtype(spec)


@dataclass(frozen=True)
class KernelSignature:
    name: str
    params: tuple
    template_params: tuple = ()  # ((kind, name, default tokens or None), ...)
    _decls: tuple = field(default=(), repr=False, compare=False)  # token lists per param
    _env: object = field(default=None, repr=False, compare=False)

    @property
    def resolved(self):
        return all(p.kind is not None for p in self.params)


# ---------------------------------------------------------------- tokenizer

class Tok(NamedTuple):
    kind: str   # "id", "num", "str", "punct"
    text: str
    pos: int




def _where(src, pos):
    line = src.count("\n", 0, pos) + 1
    col = pos - (src.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def _error(src, pos, msg):
    return ValueError(f"{msg} at {_where(src, pos)}")


_TOKEN_RE = re.compile(r"""
  (?P<nl>\n)
| (?P<ws>(?:[ \t\r\f\v]|\\\r?\n)+)
| (?P<lc>//(?:[^\n\\]|\\.|\\\n|\\)*)
| (?P<bc>/\*.*?\*/)
| (?P<bcu>/\*)
| (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\ \t\n]{0,16})\(.*?\)(?P=delim)")
| (?P<rawu>(?:u8|[uUL])?R"[^()\\ \t\n]{0,16}\()
| (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\.|\\\n)*")
| (?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\.|\\\n)*')
| (?P<badq>(?:u8|[uUL])?["'])
| (?P<id>[A-Za-z_$][A-Za-z0-9_$]*)
| (?P<num>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.'])*)
| (?P<punct>\.\.\.|<<=|>>=|->\*|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[+\-*/%&|^]=|\.\*|\#\#
            |[{}\[\]()<>;:,.*&+\-/%^|~!?=\#@\\`])
| (?P<uws>\s)
""", re.X | re.S)

_PP_RE = re.compile(r"\#(?:[^\n\\/]|\\.|\\\n|\\|/\*.*?\*/|/(?!\*))*", re.S)


def tokenize(src, keep_pp=False, offset=0):
    """Tokens of `src`. Comments are dropped; preprocessor lines are dropped
    too, or returned as ("pp", text) tokens when keep_pp. Positions are
    offset by `offset`."""
    if offset:
        return [Tok(t.kind, t.text, t.pos + offset) for t in tokenize(src, keep_pp)]
    toks = []
    append = toks.append
    i, n = 0, len(src)
    line_start = True
    match = _TOKEN_RE.match
    while i < n:
        if line_start and src[i] == "#":
            m = _PP_RE.match(src, i)
            j = m.end()
            if j < n and src.startswith("/*", j):
                raise _error(src, j, "unterminated /* comment")
            if keep_pp:
                text = re.sub(r"\\\r?\n", " ", m.group())
                append(Tok("pp", re.sub(r"/\*.*?\*/", " ", text, flags=re.S), i))
            i = j
            continue
        m = match(src, i)
        if m is None:
            raise _error(src, i, f"unexpected character {src[i]!r}")
        kind = m.lastgroup
        j = m.end()
        if kind == "nl":
            line_start = True
        elif kind in ("ws", "lc", "bc", "uws"):
            pass
        elif kind == "bcu":
            raise _error(src, i, "unterminated /* comment")
        elif kind == "rawu":
            raise _error(src, i, "unterminated raw string literal")
        elif kind == "badq":
            what = "string" if m.group().endswith('"') else "character"
            raise _error(src, i, f"unterminated {what} literal")
        else:
            line_start = False
            append(Tok("str" if kind in ("raw", "str", "chr") else kind, m.group(), i))
        i = j
    return toks


# ------------------------------------------------------------- type tables

_SCALARS = {
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
}

_ALIASES = {
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
_KEEP_NAME = {"size_t", "ptrdiff_t", "ssize_t", "intptr_t", "uintptr_t", "int8_t", "uint8_t",
              "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"}

# CUDA vector types: element kind, element size, and alignment for 1..4
# components (vector_types.h).
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
        _SCALARS[f"{_b}{_n}"] = ("vec", _es * _n, _al[_n - 1])
    for _sfx, _a in (("_16a", 16), ("_32a", 32)):
        if _es == 8:
            _SCALARS[f"{_b}4{_sfx}"] = ("vec", _es * 4 if _a == 16 else 32, _a)

_NP_SCALAR = {"i8": "i1", "u8": "u1", "i16": "i2", "u16": "u2", "i32": "i4", "u32": "u4",
              "i64": "i8", "u64": "u8", "f16": "f2", "f32": "f4", "f64": "f8", "bool": "?"}
_NP_NAMED = {"x": 0, "y": 1, "z": 2, "w": 3}


def _dtype_spec(name):
    """NumPy dtype spec for a canonical C type name, or None."""
    ent = _SCALARS.get(name)
    if ent is None:
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


_CV = {"const", "volatile"}
_IGNORED_QUALS = {"__restrict__", "restrict", "__restrict", "__grid_constant__", "register",
                  "__device__", "__global__", "__host__", "__shared__", "__constant__",
                  "__managed__", "static", "inline", "__inline__", "__forceinline__",
                  "__noinline__", "extern", "typename", "__unaligned", "mutable", "constexpr"}
_PAREN_ATTRS = {"__launch_bounds__", "__maxnreg__", "__align__", "alignas", "__declspec",
                "__cluster_dims__", "__attribute__", "__nv_pure__"}
_BUILTIN_WORDS = {"unsigned", "signed", "short", "long", "int", "char", "float", "double",
                  "bool", "void", "_Bool", "__int64"}
_TAGS = {"struct", "class", "union", "enum"}
_KEYWORDS = _CV | _IGNORED_QUALS | _PAREN_ATTRS | _BUILTIN_WORDS | _TAGS | {
    "template", "return", "if", "for", "while", "do", "switch", "case", "sizeof", "new",
    "delete", "operator", "this", "auto", "decltype", "typedef", "using", "namespace"}


class _Unresolvable(Exception):
    """This declaration uses something we can't see (a macro, an unknown
    construct): the kernel's signature becomes unknown. `pos`: where."""

    def __init__(self, msg, tok=None):
        super().__init__(msg)
        self.pos = tok.pos if tok is not None else None


class _BadDecl(ValueError):
    """Valid C++ that a kernel may not declare (references, variadics)."""

    def __init__(self, tok, msg):
        super().__init__(msg)
        self.pos = tok.pos


class _Env:
    """What the source tells us about names: object-like macros, typedefs,
    struct/enum names."""

    def __init__(self):
        self.macros = {}      # name -> token list (object-like)
        self.fmacros = set()  # function-like macro names
        self.typedefs = {}    # name -> token list of the type
        self.structs = set()
        self.enums = {}       # name -> underlying type tokens or None
        self.templates = set()

    def copy(self):
        e = _Env()
        e.macros = dict(self.macros)
        e.fmacros = set(self.fmacros)
        e.typedefs = dict(self.typedefs)
        e.structs = set(self.structs)
        e.enums = dict(self.enums)
        return e


def _expand(toks, env, depth=0):
    """Replace object-like macros (recursively, bounded)."""
    if depth > 16 or not env.macros:
        return toks
    out = []
    changed = False
    for t in toks:
        if t.kind == "id" and t.text in env.macros:
            out.extend(Tok(r.kind, r.text, t.pos) for r in env.macros[t.text])
            changed = True
        else:
            out.append(t)
    return _expand(out, env, depth + 1) if changed else out


# ------------------------------------------------------------ declarations

def _skip_balanced(toks, i, open_="(", close=")"):
    """i at an opening token; returns index after its match, or raises."""
    i0 = i
    depth = 0
    n = len(toks)
    while i < n:
        t = toks[i].text
        if t == open_:
            depth += 1
        elif t == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise _Unresolvable(f"unbalanced '{open_}'", toks[i0] if i0 < len(toks) else None)


def _skip_angle(toks, i):
    """i at '<' of a template argument list; index after the matching '>'."""
    i0 = i
    depth = 0
    n = len(toks)
    while i < n:
        t = toks[i].text
        if t in "([{":
            i = _skip_balanced(toks, i, t, {"(": ")", "[": "]", "{": "}"}[t])
            continue
        if t == "<":
            depth += 1
        elif t == ">":
            depth -= 1
            if depth == 0:
                return i + 1
        elif t == ">>":
            depth -= 2
            if depth <= 0:
                return i + 1
        elif t in (";", "{", "}"):
            break
        i += 1
    raise _Unresolvable("unbalanced '<'", toks[i0] if i0 < len(toks) else None)


def _split_top(toks, sep=","):
    """Split a token list at top-level separators (outside (), [], {}, <>)."""
    parts, cur = [], []
    depth = 0
    angle = 0
    for t in toks:
        x = t.text
        if t.kind == "punct":
            if x in "([{":
                depth += 1
            elif x in ")]}":
                depth -= 1
            elif x == "<" and cur and cur[-1].kind == "id":
                angle += 1
            elif x == ">" and angle:
                angle -= 1
            elif x == ">>" and angle:
                angle = max(0, angle - 2)
            elif x == sep and depth == 0 and angle == 0:
                parts.append(cur)
                cur = []
                continue
        cur.append(t)
    parts.append(cur)
    return parts


def _text(toks):
    out = ""
    for t in toks:
        if out and (t.kind in ("id", "num") and out[-1].isalnum() or out[-1] == "_"
                    and t.kind in ("id", "num")):
            out += " "
        elif out and t.text not in ("<", ">", ",", "::", "*", "&") and \
                not out.endswith(("<", "::")):
            out += " " if t.kind in ("id", "num") else ""
        out += t.text
    return out


def _skip_attrs(toks, i):
    """Skip attributes and other words that don't change a parameter's type."""
    n = len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "id" and t.text in _PAREN_ATTRS:
            i += 1
            if i < n and toks[i].text == "(":
                i = _skip_balanced(toks, i)
            continue
        if t.text == "[" and i + 1 < n and toks[i + 1].text == "[":
            i = _skip_balanced(toks, i, "[", "]")
            continue
        break
    return i


def _resolve_base(words, name_toks, env, tparams, depth=0):
    """(canonical name, kind, size, align) of a base type, or kind None for
    a template-dependent one."""
    if name_toks:
        # a named type: typedef, alias, struct, vector type, template param
        tag = None
        if name_toks[0].text in _TAGS:
            tag = name_toks[0].text
            name_toks = name_toks[1:]
        # drop leading '::' and std:: / cuda::std:: qualification of known names
        text = _text(name_toks).replace(" ::", "::").replace(":: ", "::")
        simple = text.lstrip(":")
        for pre in ("std::", "cuda::std::", "::"):
            if simple.startswith(pre) and simple[len(pre):].replace("_", "a").isalnum():
                simple = simple[len(pre):]
        if simple in tparams:
            return simple, None, None, None
        if tag == "enum" or simple in env.enums:
            under = env.enums.get(simple)
            if under:
                r = _resolve_type_tokens(under, env, tparams, depth + 1)
                return simple, r[1], r[2], r[3]
            return simple, "i32", 4, 4
        if simple in env.typedefs and depth < 16:
            r = _resolve_type_tokens(env.typedefs[simple], env, tparams, depth + 1)
            if r[4]:  # typedef of a pointer type
                return simple, "ptr", 8, 8
            return r[0] if r[0] in _SCALARS else simple, r[1], r[2], r[3]
        canon = _ALIASES.get(simple, simple)
        if canon in _SCALARS:
            k, s, a = _SCALARS[canon]
            shown = simple if simple in _KEEP_NAME else canon
            return shown, k, s, a
        if re.fullmatch(r"(?:\w+::)*complex<\s*float\s*>", simple):
            return simple, "vec", 8, 8
        if re.fullmatch(r"(?:\w+::)*complex<\s*double\s*>", simple):
            return simple, "vec", 16, 16
        if tag or simple in env.structs or re.fullmatch(r"[\w:<>, *]+", simple):
            if simple in env.fmacros:
                raise _Unresolvable(f"macro {simple} in a declaration")
            return simple, "struct", None, None
        raise _Unresolvable(f"unknown type {simple!r}")
    ws = sorted(words)
    cnt = {w: words.count(w) for w in set(words)}
    if "void" in cnt:
        if len(words) != 1:
            raise _Unresolvable("bad use of void")
        return "void", "void", 0, 1
    unsigned = "unsigned" in cnt
    if unsigned and "signed" in cnt:
        raise _Unresolvable("both signed and unsigned")
    longs = cnt.get("long", 0)
    if "__int64" in cnt:
        longs = 2
    for w in ("float", "double", "bool", "_Bool"):
        if w in cnt:
            if len(words) != cnt.get("long", 0) + 1 or cnt[w] != 1:
                raise _Unresolvable(f"bad type {' '.join(words)}")
            if w == "double" and longs == 1:
                return "long double", "struct", 16, 16
            if longs:
                raise _Unresolvable(f"bad type {' '.join(words)}")
            return ("bool" if w == "_Bool" else w,) + _SCALARS["bool" if w == "_Bool" else w]
    if "char" in cnt:
        if cnt["char"] != 1 or longs or "short" in cnt or "int" in cnt:
            raise _Unresolvable(f"bad type {' '.join(ws)}")
        name = "unsigned char" if unsigned else ("signed char" if "signed" in cnt else "char")
        return (name,) + _SCALARS[name]
    if cnt.get("int", 0) > 1 or cnt.get("short", 0) > 1 or longs > 2 or \
            ("short" in cnt and longs):
        raise _Unresolvable(f"bad type {' '.join(ws)}")
    if "short" in cnt:
        base = "short"
    elif longs == 2:
        base = "long long"
    elif longs == 1:
        base = "long"
    else:
        base = "int"
    name = ("unsigned " + base) if unsigned else base
    return (name,) + _SCALARS[name]


def _resolve_type_tokens(toks, env, tparams, depth=0):
    """A type-id (no declarator name): (canon, kind, size, align, is_ptr)."""
    p = _parse_decl(toks, env, tparams, allow_name=False, depth=depth)
    return p.ctype, p.kind, p.size, p.align, p.is_pointer


def _parse_decl(toks, env, tparams, allow_name=True, depth=0):
    """One parameter declaration (tokens between commas) -> Param."""
    toks = _expand(toks, env)
    # default argument
    for k, t in enumerate(toks):
        if t.text == "=" and t.kind == "punct":
            toks = toks[:k]
            break
    n = len(toks)
    i = 0
    words, name_toks = [], []
    const = volatile = False
    # decl-specifiers
    while i < n:
        i = _skip_attrs(toks, i)
        if i >= n:
            break
        t = toks[i]
        x = t.text
        if t.kind == "id" and x in _CV:
            const |= x == "const"
            volatile |= x == "volatile"
            i += 1
        elif t.kind == "id" and x in _IGNORED_QUALS:
            i += 1
        elif t.kind == "id" and x in _BUILTIN_WORDS and not name_toks:
            words.append(x)
            i += 1
        elif (t.kind == "id" or x == "::") and not words and not name_toks:
            # a named type, possibly qualified and with template args
            start = i
            if x in _TAGS:
                i += 1
                if i < n and toks[i].kind == "id" and toks[i].text in ("class", "struct"):
                    i += 1  # "enum class"
            while i < n:
                if toks[i].text == "::":
                    i += 1
                    continue
                if toks[i].kind == "id" and toks[i].text not in _KEYWORDS:
                    i += 1
                    if i < n and toks[i].text == "<":
                        i = _skip_angle(toks, i)
                    if i < n and toks[i].text == "::":
                        i += 1
                        continue
                    break
                raise _Unresolvable(f"unexpected {toks[i].text!r}", toks[i])
            name_toks = toks[start:i]
            last = name_toks[-1].text
            if i < n and toks[i].text == "(" and (last in env.fmacros or not (
                    last in env.typedefs or last in env.structs or last in env.enums or
                    last in _SCALARS or last in _ALIASES or last in tparams)):
                raise _Unresolvable(f"macro {name_toks[-1].text}(...) in a declaration")
        else:
            break
    if not words and not name_toks:
        if i < n:
            raise _Unresolvable(f"expected a type, found {toks[i].text!r}", toks[i])
        raise _Unresolvable("empty declaration")
    canon, kind, size, align = _resolve_base(words, name_toks, env, tparams, depth)
    # declarator: ptr-operators, then name / (declarator), then suffixes
    levels = []  # per pointer level: const?
    name = None
    array = func = False

    def declarator(i, depth_):
        nonlocal name, array, func
        if depth_ > 32:
            raise _Unresolvable("declarator nested too deeply")
        while i < n:
            i = _skip_attrs(toks, i)
            if i >= n:
                break
            x = toks[i].text
            if x == "*":
                levels.append(False)
                i += 1
                while i < n and toks[i].kind == "id" and (
                        toks[i].text in _CV or toks[i].text in _IGNORED_QUALS):
                    if toks[i].text == "const":
                        levels[-1] = True
                    i += 1
            elif x in ("&", "&&"):
                raise _BadDecl(toks[i], "reference parameters are not allowed in a __global__ "
                                 "function (pass a pointer or the value)")
            elif x == "^":
                raise _Unresolvable("block pointer")
            else:
                break
        i = _skip_attrs(toks, i)
        if i < n and toks[i].text == "(" and not (
                i + 1 < n and (toks[i + 1].text == ")" or toks[i + 1].kind == "id" and
                               toks[i + 1].text in _BUILTIN_WORDS | _CV)):
            inner_end = _skip_balanced(toks, i)
            j = declarator(i + 1, depth_ + 1)
            if j != inner_end - 1:
                raise _Unresolvable("unexpected tokens in declarator")
            i = inner_end
        elif i < n and toks[i].kind == "id" and toks[i].text not in _KEYWORDS:
            if not allow_name:
                raise _Unresolvable(f"unexpected name {toks[i].text!r}", toks[i])
            name = toks[i].text
            i += 1
        while i < n:
            i = _skip_attrs(toks, i)
            if i >= n:
                break
            if toks[i].text == "[":
                i = _skip_balanced(toks, i, "[", "]")
                array = True
            elif toks[i].text == "(":
                if name is None and not levels:
                    raise _Unresolvable("a macro call or a function type in a parameter", toks[i])
                i = _skip_balanced(toks, i)
                func = True
                while i < n and toks[i].kind == "id" and toks[i].text in _CV | {"noexcept"}:
                    i += 1
            else:
                break
        return i

    i = declarator(i, 0)
    i = _skip_attrs(toks, i)
    if i != n:
        raise _Unresolvable(f"unexpected {toks[i].text!r} in a parameter declaration", toks[i])
    cv = ("const " if const else "") + ("volatile " if volatile else "")
    base_text = cv + canon
    if levels or array or func:
        if func and not levels:
            levels = [False]
        if array:
            levels.append(False)
        stars = "".join("*" + ("const" if c else "") for c in levels)
        pointee = base_text + (" " + "".join("*" + ("const" if c else "")
                                             for c in levels[:-1]) if len(levels) > 1 else "")
        if func:
            pointee = "function"
        p_const = (const if len(levels) == 1 else levels[-2]) if not func else False
        return Param(name, base_text + " " + stars, "ptr", 8, 8, True, bool(p_const),
                     pointee.strip())
    if kind == "void":
        if name is None:
            return Param(None, "void", "void", 0, 1, False, False, None)
        raise _Unresolvable("a parameter cannot have type void")
    return Param(name, base_text, kind, size, align, False, const, None)


def _param_list(toks, env, tparams):
    """Tokens between a kernel's parentheses -> list[Param]."""
    if not toks:
        return []
    parts = _split_top(toks)
    params = []
    for k, part in enumerate(parts):
        if not part:
            raise _Unresolvable("empty parameter")
        if len(part) == 1 and part[0].text == "...":
            raise ValueError("a __global__ function cannot be variadic")
        p = _parse_decl(part, env, tparams)
        if p.kind == "void":
            if len(parts) != 1:
                raise _Unresolvable("void in a parameter list")
            return []
        params.append(p)
    return params


def _collect_env(toks, pp):
    env = _Env()
    for line in pp:
        m = re.match(r"\s*#\s*define\s+([A-Za-z_]\w*)(\(?)(.*)$", line.text, re.S)
        if not m:
            m2 = re.match(r"\s*#\s*undef\s+([A-Za-z_]\w*)", line.text)
            if m2:
                env.macros.pop(m2.group(1), None)
            continue
        if m.group(2):
            env.fmacros.add(m.group(1))
            continue
        try:
            body = tokenize(m.group(3))
        except ValueError:
            continue
        env.macros[m.group(1)] = body
    n = len(toks)
    for i, t in enumerate(toks):
        if t.kind != "id":
            continue
        if t.text in ("struct", "class", "union") and i + 1 < n and toks[i + 1].kind == "id":
            env.structs.add(toks[i + 1].text)
        elif t.text == "enum":
            j = i + 1
            if j < n and toks[j].text in ("class", "struct"):
                j += 1
            if j < n and toks[j].kind == "id":
                under = None
                if j + 1 < n and toks[j + 1].text == ":":
                    k = j + 2
                    while k < n and toks[k].text not in ("{", ";"):
                        k += 1
                    under = toks[j + 2:k]
                env.enums[toks[j].text] = under
        elif t.text == "typedef":
            j = i + 1
            depth = 0
            while j < n and not (toks[j].text == ";" and depth == 0):
                if toks[j].text in "({[":
                    depth += 1
                elif toks[j].text in ")}]":
                    depth -= 1
                j += 1
                if j - i > 512:
                    break
            body = toks[i + 1:j]
            if body and body[-1].kind == "id" and "{" not in [b.text for b in body] and \
                    "(" not in [b.text for b in body]:
                env.typedefs[body[-1].text] = body[:-1]
            elif body and body[-1].kind == "id" and body[0].text in ("struct", "union", "enum"):
                env.structs.add(body[-1].text)
        elif t.text == "using" and i + 3 < n and toks[i + 1].kind == "id" and \
                toks[i + 2].text == "=":
            j = i + 3
            while j < n and toks[j].text != ";" and j - i < 512:
                j += 1
            env.typedefs[toks[i + 1].text] = toks[i + 3:j]
    return env


def _template_params(toks):
    """Tokens between template < > -> ((kind, name, default), ...)."""
    out = []
    if not toks:
        return ()
    for part in _split_top(toks):
        default = None
        for k, t in enumerate(part):
            if t.text == "=":
                default = part[k + 1:]
                part = part[:k]
                break
        if not part:
            raise _Unresolvable("empty template parameter")
        name = part[-1].text if part[-1].kind == "id" and len(part) > 1 else None
        head = part[0].text
        if head in ("typename", "class"):
            kind = "type"
        elif head == "template":
            kind = "template"
        else:
            kind = "value"
        if part[-1].text == "...":
            raise _Unresolvable("variadic template")
        out.append((kind, name, _text(default) if default else None))
    return tuple(out)


_GLOBAL_SKIP = {"void", "static", "inline", "__inline__", "__forceinline__", "__noinline__",
                "extern", "__device__", "__host__", "__global__", "constexpr"}


def _kernels(toks, env):
    """Yield (name, template params, param tokens or error)."""
    n = len(toks)
    for gi, t in enumerate(toks):
        if t.kind != "id" or t.text != "__global__":
            continue
        # template header: look back over specifiers for 'template < ... >'
        tparams = ()
        j = gi - 1
        while j >= 0 and (toks[j].kind == "str" or toks[j].text in _GLOBAL_SKIP):
            j -= 1
        if j >= 0 and toks[j].text in (">", ">>"):
            depth = 0
            k = j
            while k >= 0:
                x = toks[k].text
                if x == ">":
                    depth += 1
                elif x == ">>":
                    depth += 2
                elif x == "<":
                    depth -= 1
                    if depth == 0:
                        break
                elif x in (";", "{", "}"):
                    k = -1
                    break
                k -= 1
            if k > 0 and toks[k - 1].text == "template":
                try:
                    tparams = _template_params(toks[k + 1:j])
                except _Unresolvable as exc:
                    tparams = exc
        i = gi + 1
        try:
            while i < n:
                i = _skip_attrs(toks, i)
                if i < n and (toks[i].text in _GLOBAL_SKIP or toks[i].kind == "str"):
                    i += 1
                    continue
                break
        except _Unresolvable:
            continue  # unbalanced attribute brackets: nothing to name
        if i >= n or toks[i].kind != "id":
            continue  # e.g. a __global__ in a macro body we can't see
        name = toks[i].text
        i += 1
        if i < n and toks[i].text == "<":  # explicit specialization
            try:
                i = _skip_angle(toks, i)
            except _Unresolvable:
                continue
        try:
            i = _skip_attrs(toks, i)
        except _Unresolvable as exc:
            yield name, tparams, exc
            continue
        if i >= n or toks[i].text != "(":
            yield name, tparams, _Unresolvable(f"cannot read the declaration of {name}")
            continue
        try:
            end = _skip_balanced(toks, i)
        except _Unresolvable as exc:
            yield name, tparams, exc
            continue
        yield name, tparams, toks[i + 1:end - 1]


# Whole-source scanning stays in C (re): comments, literals and preprocessor
# lines are blanked out (same length, so positions hold), and only the
# statements that matter are tokenized: each `__global__` declaration and the
# typedef/using/struct/enum statements that name types.
_BLANK_RE = re.compile(r"""
(?=[/"'uULR0-9])
(?:
  //(?:[^\n\\]|\\.|\\\n|\\)*
| /\*.*?\*/
| (?P<bcu>/\*)
| (?:u8|[uUL])?R"(?P<d>[^()\\ \t\n]{0,16})\(.*?\)(?P=d)"
| (?P<rawu>(?:u8|[uUL])?R"[^()\\ \t\n]{0,16}\()
| "(?:[^"\\\n]|\\.|\\\n)*"
| '(?:[^'\\\n]|\\.|\\\n)*'
| (?P<badq>["'])
| (?<![A-Za-z_0-9])[0-9][0-9A-Za-z_.]*'[0-9A-Za-z_.']*
)""", re.X | re.S)
_PP_LINE_RE = re.compile(r"^[ \t]*\#(?:[^\n\\]|\\.|\\\n|\\)*", re.M | re.S)
_NOT_NL = re.compile(r"[^\n]")


def _blank(source):
    """(source with comments/literals/preprocessor lines as spaces, pp Toks)."""
    def blank(m):
        if m.lastgroup == "bcu":
            raise _error(source, m.start(), "unterminated /* comment")
        if m.lastgroup == "rawu":
            raise _error(source, m.start(), "unterminated raw string literal")
        if m.lastgroup == "badq":
            what = "string" if m.group() == '"' else "character"
            raise _error(source, m.start(), f"unterminated {what} literal")
        text = m.group()
        if text[0].isdigit():
            return text.replace("'", "0")
        return _NOT_NL.sub(" ", text)

    blanked = _BLANK_RE.sub(blank, source)
    pp = []

    def take(m):
        text = re.sub(r"\\\r?\n", " ", m.group())
        pp.append(Tok("pp", text.strip(), m.start()))
        return _NOT_NL.sub(" ", m.group())

    blanked = _PP_LINE_RE.sub(take, blanked)
    return blanked, pp


_ENV_RE = re.compile(r"(?=[tusce}])(?:\btypedef\b[^;{}]*;|\busing\s+\w+\s*=[^;{}]*;"
                     r"|\b(?:struct|class|union)\s+\w+|\benum\s+(?:class\s+|struct\s+)?\w+"
                     r"(?:\s*:[^;{]*)?|\}\s*\w+\s*;)")


def _env_tokens(blanked):
    out = []
    for m in _ENV_RE.finditer(blanked):
        text = m.group()
        if text.startswith("}"):
            # "} Name;" closing a typedef struct/union: Name is a type
            out.extend(tokenize("struct " + text[1:].strip(), offset=m.start()))
            continue
        out.extend(tokenize(text, offset=m.start()))
        out.append(Tok("punct", ";", m.end()))
    return out


_GLOBAL_RE = re.compile(r"\b__global__\b")
_BOUNDARY_RE = re.compile(r"[;{}]")
_DECL_END_RE = re.compile(r"[(){};]")


def _kernel_windows(blanked, env):
    """Each __global__ declaration's tokens, from the previous statement's
    end to the end of its parameter list, through _kernels."""
    seen_end = -1
    for m in _GLOBAL_RE.finditer(blanked):
        if m.start() < seen_end:
            continue
        start = max(blanked.rfind(";", 0, m.start()), blanked.rfind("{", 0, m.start()),
                    blanked.rfind("}", 0, m.start())) + 1
        depth, end = 0, len(blanked)
        for e in _DECL_END_RE.finditer(blanked, m.end()):
            c = e.group()
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif depth <= 0:
                end = e.start()
                break
        seen_end = end
        yield from _kernels(tokenize(blanked[start:end], offset=start), env)



def parse_kernels(source, strict=False):
    """{name: KernelSignature} for every `__global__` function in `source`.
    A kernel whose declaration can't be understood maps to None (strict:
    ValueError). A template kernel maps its plain name to a signature whose
    template-dependent params have kind None; use signature_for with a name
    expression ("f<float>") to get the instance's."""
    if not isinstance(source, str):
        if isinstance(source, (bytes, bytearray)):
            source = bytes(source).decode("utf-8", "replace")
        else:
            raise TypeError(f"source must be str, not {type(source).__name__}")
    key = (source, bool(strict))
    hit = _parsed.get(key)
    if hit is not None:
        return dict(hit)
    blanked, pp = _blank(source)
    env = _collect_env(_env_tokens(blanked), pp)
    out = {}
    for name, tparams, body in _kernel_windows(blanked, env):
        try:
            if isinstance(tparams, Exception):
                raise tparams
            if isinstance(body, Exception):
                raise body
            tnames = {tp[1] for tp in tparams if tp[1]}
            body = _expand(body, env)
            params = _param_list(body, env, tnames)
            decls = tuple(tuple(p) for p in _split_top(body)) if tparams and body else ()
            sig = KernelSignature(name, tuple(params), tuple(tparams), decls, env)
        except (_Unresolvable, ValueError, RecursionError) as exc:
            if strict:
                pos = getattr(exc, "pos", None)
                if pos is None:
                    pos = body[0].pos if isinstance(body, list) and body else 0
                raise _error(source, pos, f"kernel {name}: {exc}") from None
            sig = None
        prev = out.get(name)
        # a definition after a declaration: keep the later (named) one
        if prev is None or sig is not None:
            out[name] = sig
    if len(_parsed) >= 64:
        _parsed.pop(next(iter(_parsed)))
    _parsed[key] = out
    return dict(out)


_parsed = {}  # (source, strict) -> result: a warm SourceModule re-parses nothing


def parse_arguments(text):
    """Parameters of an argument string "float a, float *x, int n" (PyCUDA's
    ElementwiseKernel / ReductionKernel syntax). ValueError on anything it
    cannot read, naming the position."""
    if not isinstance(text, str):
        raise TypeError(f"arguments must be a str, not {type(text).__name__}")
    toks = tokenize(text)
    env = _collect_env(toks, [])
    if not toks:
        return []
    parts = _split_top(toks)
    params = []
    for k, part in enumerate(parts):
        pos = part[0].pos if part else (toks[-1].pos if toks else 0)
        if not part:
            raise _error(text, pos, f"empty argument {k + 1}")
        try:
            p = _parse_decl(part, env, set())
        except (_Unresolvable, _BadDecl) as exc:
            where = exc.pos if exc.pos is not None else pos
            raise _error(text, where, f"argument {k + 1}: {exc}") from None
        except RecursionError:
            raise _error(text, pos, f"argument {k + 1}: nested too deeply") from None
        if p.kind == "void":
            if len(parts) == 1:
                return []
            raise _error(text, pos, f"argument {k + 1}: void")
        params.append(p)
    return params


def _split_name_expr(expr):
    """'ns::f<float, 4>' -> ('f', [[tokens of float], [tokens of 4]]) or (name, None)."""
    toks = tokenize(expr.strip())
    while toks and toks[0].text in ("&", "::"):
        toks = toks[1:]
    i = 0
    name = None
    while i < len(toks):
        if toks[i].kind != "id":
            raise ValueError(f"bad kernel name expression {expr!r}")
        name = toks[i].text
        i += 1
        if i < len(toks) and toks[i].text == "::":
            i += 1
            continue
        break
    if name is None:
        raise ValueError(f"bad kernel name expression {expr!r}")
    if i == len(toks):
        return name, None
    if toks[i].text != "<":
        raise ValueError(f"bad kernel name expression {expr!r}")
    try:
        end = _skip_angle(toks, i)
    except _Unresolvable:
        raise ValueError(f"bad kernel name expression {expr!r}") from None
    if end != len(toks):
        raise ValueError(f"bad kernel name expression {expr!r}")
    inner = toks[i + 1:end - 1]
    if toks[end - 1].text == ">>":  # "f<a<b>>": the last '>' closed ours
        inner = toks[i + 1:end - 1] + [Tok("punct", ">", toks[end - 1].pos)]
    args = _split_top(inner) if inner else []
    return name, args


def signature_for(signatures, name):
    """The fully resolved signature for a kernel name or a template name
    expression ("axpy<float>"), or None when unknown or not resolvable."""
    if not signatures or not isinstance(name, str):
        return None
    sig = signatures.get(name)
    if sig is not None:
        return sig if sig.resolved else None
    try:
        base, args = _split_name_expr(name)
    except ValueError:
        return None
    sig = signatures.get(base)
    if sig is None:
        return None
    if args is None or not sig.template_params:
        return sig if sig.resolved else None
    if len(args) > len(sig.template_params):
        return None
    env = sig._env.copy() if sig._env is not None else _Env()
    for k, (kind, tname, default) in enumerate(sig.template_params):
        if k < len(args):
            value = args[k]
        elif default is not None:
            value = tokenize(default)
        else:
            return None
        if tname is None:
            continue
        if kind == "type":
            env.typedefs[tname] = list(value)
            env.macros.pop(tname, None)
        else:
            env.macros[tname] = list(value)
    try:
        params = []
        for decl in sig._decls:
            p = _parse_decl(list(decl), env, set())
            params.append(p)
        if len(params) == 1 and params[0].kind == "void":
            params = []
    except (_Unresolvable, ValueError, RecursionError):
        return None
    out = KernelSignature(name, tuple(params), sig.template_params, sig._decls, sig._env)
    return out if out.resolved else None
