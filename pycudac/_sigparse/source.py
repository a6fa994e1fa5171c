"""Finding the kernels in a whole CUDA C source, for pycudac._sigparse:
comments, literals and preprocessor lines blanked out (positions kept), the
statements that name types tokenized for the environment, and each
`__global__` declaration cut out as (name, template parameters, parameter
tokens). Apart from the declarator parser (decl.py) because this works on
the whole source with regular expressions, and hands each declaration on.
"""
from __future__ import annotations

import re

from pycudac._sigparse.decl import (skip_angle, skip_attrs, skip_balanced, template_params,
                                    Unresolvable)
from pycudac._sigparse.tokens import Tok, error, tokenize


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
                    tparams = template_params(toks[k + 1:j])
                except Unresolvable as exc:
                    tparams = exc
        i = gi + 1
        try:
            while i < n:
                i = skip_attrs(toks, i)
                if i < n and (toks[i].text in _GLOBAL_SKIP or toks[i].kind == "str"):
                    i += 1
                    continue
                if i + 1 < n and toks[i].kind == "id" and toks[i].text in env.fmacros and \
                        toks[i + 1].text == "(":  # CLUDA's REQD_WG_SIZE(256, 1, 1)
                    i = skip_balanced(toks, i + 1)
                    continue
                break
        except Unresolvable:
            continue  # unbalanced attribute brackets: nothing to name
        if i >= n or toks[i].kind != "id":
            continue  # e.g. a __global__ in a macro body we can't see
        name = toks[i].text
        i += 1
        if i < n and toks[i].text == "<":  # explicit specialization
            try:
                i = skip_angle(toks, i)
            except Unresolvable:
                continue
        try:
            i = skip_attrs(toks, i)
        except Unresolvable as exc:
            yield name, tparams, exc
            continue
        if i >= n or toks[i].text != "(":
            yield name, tparams, Unresolvable(f"cannot read the declaration of {name}")
            continue
        try:
            end = skip_balanced(toks, i)
        except Unresolvable as exc:
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


def blank(source):
    """(source with comments/literals/preprocessor lines as spaces, pp Toks)."""
    def blank(m):
        if m.lastgroup == "bcu":
            raise error(source, m.start(), "unterminated /* comment")
        if m.lastgroup == "rawu":
            raise error(source, m.start(), "unterminated raw string literal")
        if m.lastgroup == "badq":
            what = "string" if m.group() == '"' else "character"
            raise error(source, m.start(), f"unterminated {what} literal")
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


def env_tokens(blanked):
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
_DECL_END_RE = re.compile(r"[(){};]")


_DEFINE_RE = re.compile(r"\s*#\s*define\s+([A-Za-z_]\w*)(\(?)(.*)$", re.S)
_WORD_RE = re.compile(r"[A-Za-z_]\w*")


def kernel_macros(pp):
    """The object-like macros that stand for `__global__`: PyCUDA's and
    PyOpenCL's CLUDA preamble declares kernels as `KERNEL void f(...)`
    (`#define KERNEL extern "C" __global__`), and libraries have their own.
    A macro counts when any of its definitions says __global__, or names
    such a macro: the preprocessor's branches are not followed (`#ifdef
    __CUDACC__ / #define GLOBAL __global__ / #else / #define GLOBAL`), and
    nothing is expanded (a body that repeats its own name cannot grow)."""
    words = {}
    for line in pp:
        m = _DEFINE_RE.match(line.text)
        if m and not m.group(2):
            words.setdefault(m.group(1), set()).update(_WORD_RE.findall(m.group(3)))
    markers = {name for name, w in words.items() if "__global__" in w}
    while True:
        more = {name for name, w in words.items() if name not in markers and w & markers}
        if not more:
            return markers
        markers |= more


def kernel_windows(blanked, env, macros=frozenset()):
    """Each __global__ declaration's tokens, from the previous statement's
    end to the end of its parameter list, through _kernels. A use of one of
    `macros` (kernel_macros) counts as a __global__ and stands as one in
    its window."""
    finder = _GLOBAL_RE if not macros else re.compile(
        r"\b(?:__global__|" + "|".join(sorted(map(re.escape, macros))) + r")\b")
    seen_end = -1
    for m in finder.finditer(blanked):
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
        toks = tokenize(blanked[start:end], offset=start)
        if macros:
            toks = [Tok("id", "__global__", t.pos) if t.kind == "id" and t.text in macros else t
                    for t in toks]
        yield from _kernels(toks, env)
