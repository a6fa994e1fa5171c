"""The tokenizer of the kernel-signature parser (pycudac._sigparse): CUDA C
text to (kind, text, pos) tokens, comments dropped, preprocessor lines dropped
or kept whole, and the ValueError with line and column that unreadable text
(an unterminated comment or literal) raises. Apart because every other part
of the parser reads its tokens and nothing here knows C's declarations.
"""
from __future__ import annotations

import re
from typing import NamedTuple


class Tok(NamedTuple):
    kind: str   # "id", "num", "str", "punct"
    text: str
    pos: int


def _where(src, pos):
    line = src.count("\n", 0, pos) + 1
    col = pos - (src.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {col}"


def error(src, pos, msg):
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
                raise error(src, j, "unterminated /* comment")
            if keep_pp:
                text = re.sub(r"\\\r?\n", " ", m.group())
                append(Tok("pp", re.sub(r"/\*.*?\*/", " ", text, flags=re.S), i))
            i = j
            continue
        m = match(src, i)
        if m is None:
            raise error(src, i, f"unexpected character {src[i]!r}")
        kind = m.lastgroup
        j = m.end()
        if kind == "nl":
            line_start = True
        elif kind in ("ws", "lc", "bc", "uws"):
            pass
        elif kind == "bcu":
            raise error(src, i, "unterminated /* comment")
        elif kind == "rawu":
            raise error(src, i, "unterminated raw string literal")
        elif kind == "badq":
            what = "string" if m.group().endswith('"') else "character"
            raise error(src, i, f"unterminated {what} literal")
        else:
            line_start = False
            append(Tok("str" if kind in ("raw", "str", "chr") else kind, m.group(), i))
        i = j
    return toks
