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

The package's modules, each importing only those listed before it: tokens
(the tokenizer), types (Param, KernelSignature and the C types), decl (one
declaration to a Param), source (the kernels of a whole source). This
module is the entry points.
"""
from __future__ import annotations

import re

from pycudac._sigparse.decl import (BadDecl, collect_env, Env, expand, param_list,
                                    parse_decl, skip_angle, split_top, Unresolvable)
from pycudac._sigparse.source import blank, env_tokens, kernel_macros, kernel_windows
from pycudac._sigparse.tokens import Tok, error, tokenize
from pycudac._sigparse.types import KINDS, KernelSignature, Param

__all__ = ["Param", "KernelSignature", "parse_kernels", "parse_arguments", "signature_for",
           "KINDS"]

# Param and KernelSignature live in .types but keep this module's name, as
# before the split: pickles, reprs of the classes and help() name it.
Param.__module__ = KernelSignature.__module__ = __name__


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
    blanked, pp = blank(source)
    env = collect_env(env_tokens(blanked), pp)
    conditional = any(_CONDITIONAL.match(t.text) for t in pp)
    out = {}
    for name, tparams, body in kernel_windows(blanked, env, kernel_macros(pp)):
        try:
            if isinstance(tparams, Exception):
                raise tparams
            if isinstance(body, Exception):
                raise body
            tnames = {tp[1] for tp in tparams if tp[1]}
            body = expand(body, env)
            params = param_list(body, env, tnames)
            decls = tuple(tuple(p) for p in split_top(body)) if tparams and body else ()
            sig = KernelSignature(name, tuple(params), tuple(tparams), decls, env,
                                  conditional)
        except (Unresolvable, ValueError, RecursionError) as exc:
            if strict:
                pos = getattr(exc, "pos", None)
                if pos is None:
                    pos = body[0].pos if isinstance(body, list) and body else 0
                raise error(source, pos, f"kernel {name}: {exc}") from None
            sig = None
        prev = out.get(name)
        # a definition after a declaration: keep the later (named) one
        if prev is None or sig is not None:
            out[name] = sig
    if len(_parsed) >= 64:
        _parsed.pop(next(iter(_parsed)))
    _parsed[key] = out
    return dict(out)


_CONDITIONAL = re.compile(r"#\s*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else)\b")
_parsed = {}  # (source, strict) -> result: a warm SourceModule re-parses nothing


def parse_arguments(text):
    """Parameters of an argument string "float a, float *x, int n" (PyCUDA's
    ElementwiseKernel / ReductionKernel syntax). ValueError on anything it
    cannot read, naming the position."""
    if not isinstance(text, str):
        raise TypeError(f"arguments must be a str, not {type(text).__name__}")
    toks = tokenize(text)
    env = collect_env(toks, [])
    if not toks:
        return []
    parts = split_top(toks)
    params = []
    for k, part in enumerate(parts):
        pos = part[0].pos if part else (toks[-1].pos if toks else 0)
        if not part:
            raise error(text, pos, f"empty argument {k + 1}")
        try:
            p = parse_decl(part, env, set())
        except (Unresolvable, BadDecl) as exc:
            where = exc.pos if exc.pos is not None else pos
            raise error(text, where, f"argument {k + 1}: {exc}") from None
        except RecursionError:
            raise error(text, pos, f"argument {k + 1}: nested too deeply") from None
        if p.kind == "void":
            if len(parts) == 1:
                return []
            raise error(text, pos, f"argument {k + 1}: void")
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
        end = skip_angle(toks, i)
    except Unresolvable:
        raise ValueError(f"bad kernel name expression {expr!r}") from None
    if end != len(toks):
        raise ValueError(f"bad kernel name expression {expr!r}")
    inner = toks[i + 1:end - 1]
    if toks[end - 1].text == ">>":  # "f<a<b>>": the last '>' closed ours
        inner = toks[i + 1:end - 1] + [Tok("punct", ">", toks[end - 1].pos)]
    args = split_top(inner) if inner else []
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
    env = sig._env.copy() if sig._env is not None else Env()
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
            p = parse_decl(list(decl), env, set())
            params.append(p)
        if len(params) == 1 and params[0].kind == "void":
            params = []
    except (Unresolvable, ValueError, RecursionError):
        return None
    out = KernelSignature(name, tuple(params), sig.template_params, sig._decls, sig._env,
                          sig.conditional)
    return out if out.resolved else None

