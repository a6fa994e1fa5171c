"""The C declarator parser behind pycudac._sigparse: one parameter
declaration (tokens between commas) to a Param, through object-like macros,
typedefs, `using` aliases, enums, structs and template parameters; what the
source tells us about those names (Env, collect_env); and a template's
parameter list. Apart from the source scanning (source.py) because it works
on one declaration's tokens and never sees the whole source.
"""
from __future__ import annotations

import re

from pycudac._sigparse.tokens import Tok, tokenize
from pycudac._sigparse.types import (ALIASES, BUILTIN_WORDS, CV, IGNORED_QUALS, KEEP_NAME,
                                     KEYWORDS, PAREN_ATTRS, SCALARS, TAGS, Param,
                                     HANDLE_TYPES)


class Unresolvable(Exception):
    """This declaration uses something we can't see (a macro, an unknown
    construct): the kernel's signature becomes unknown. `pos`: where."""

    def __init__(self, msg, tok=None):
        super().__init__(msg)
        self.pos = tok.pos if tok is not None else None


class BadDecl(ValueError):
    """Valid C++ that a kernel may not declare (references, variadics)."""

    def __init__(self, tok, msg):
        super().__init__(msg)
        self.pos = tok.pos


class Env:
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
        e = Env()
        e.macros = dict(self.macros)
        e.fmacros = set(self.fmacros)
        e.typedefs = dict(self.typedefs)
        e.structs = set(self.structs)
        e.enums = dict(self.enums)
        return e


_EXPANSION_LIMIT = 4096


def expand(toks, env, active=frozenset()):
    """Replace object-like macros as the preprocessor does: a macro is not
    expanded again inside its own expansion (`#define EPS EPS EPS` is three
    EPS). Past 4096 tokens Unresolvable: the kernel's signature is then
    unknown, rather than its parse taking as long as the expansion grows."""
    if not env.macros:
        return toks
    out = []
    for t in toks:
        body = env.macros.get(t.text) if t.kind == "id" and t.text not in active else None
        if body is None:
            out.append(t)
        else:
            out.extend(Tok(r.kind, r.text, t.pos) for r in expand(body, env, active | {t.text}))
        if len(out) > _EXPANSION_LIMIT:
            raise Unresolvable("a macro expands to more than 4096 tokens", t)
    return out


# ------------------------------------------------------------ declarations

def skip_balanced(toks, i, open_="(", close=")"):
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
    raise Unresolvable(f"unbalanced '{open_}'", toks[i0] if i0 < len(toks) else None)


def skip_angle(toks, i):
    """i at '<' of a template argument list; index after the matching '>'."""
    i0 = i
    depth = 0
    n = len(toks)
    while i < n:
        t = toks[i].text
        if t in "([{":
            i = skip_balanced(toks, i, t, {"(": ")", "[": "]", "{": "}"}[t])
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
    raise Unresolvable("unbalanced '<'", toks[i0] if i0 < len(toks) else None)


def split_top(toks, sep=","):
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


def skip_attrs(toks, i):
    """Skip attributes and other words that don't change a parameter's type."""
    n = len(toks)
    while i < n:
        t = toks[i]
        if t.kind == "id" and t.text in PAREN_ATTRS:
            i += 1
            if i < n and toks[i].text == "(":
                i = skip_balanced(toks, i)
            continue
        if t.text == "[" and i + 1 < n and toks[i + 1].text == "[":
            i = skip_balanced(toks, i, "[", "]")
            continue
        break
    return i


def _resolve_base(words, name_toks, env, tparams, depth=0):
    """(canonical name, kind, size, align) of a base type, or kind None for
    a template-dependent one."""
    if name_toks:
        # a named type: typedef, alias, struct, vector type, template param
        tag = None
        if name_toks[0].text in TAGS:
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
        if simple in HANDLE_TYPES:  # the driver API's are typedefs of unsigned long long
            return (simple,) + SCALARS[simple]
        if simple in env.typedefs and depth < 16:
            r = _resolve_type_tokens(env.typedefs[simple], env, tparams, depth + 1)
            if r[4]:  # typedef of a pointer type
                return simple, "ptr", 8, 8
            return r[0] if r[0] in SCALARS else simple, r[1], r[2], r[3]
        canon = ALIASES.get(simple, simple)
        if canon in SCALARS:
            k, s, a = SCALARS[canon]
            shown = simple if simple in KEEP_NAME else canon
            return shown, k, s, a
        if re.fullmatch(r"(?:\w+::)*complex<\s*float\s*>", simple):
            return simple, "vec", 8, 8
        if re.fullmatch(r"(?:\w+::)*complex<\s*double\s*>", simple):
            return simple, "vec", 16, 16
        if tag or simple in env.structs or re.fullmatch(r"[\w:<>, *]+", simple):
            if simple in env.fmacros:
                raise Unresolvable(f"macro {simple} in a declaration")
            return simple, "struct", None, None
        raise Unresolvable(f"unknown type {simple!r}")
    ws = sorted(words)
    cnt = {w: words.count(w) for w in set(words)}
    if "void" in cnt:
        if len(words) != 1:
            raise Unresolvable("bad use of void")
        return "void", "void", 0, 1
    unsigned = "unsigned" in cnt
    if unsigned and "signed" in cnt:
        raise Unresolvable("both signed and unsigned")
    longs = cnt.get("long", 0)
    if "__int64" in cnt:
        longs = 2
    for w in ("float", "double", "bool", "_Bool"):
        if w in cnt:
            if len(words) != cnt.get("long", 0) + 1 or cnt[w] != 1:
                raise Unresolvable(f"bad type {' '.join(words)}")
            if w == "double" and longs == 1:
                return "long double", "struct", 16, 16
            if longs:
                raise Unresolvable(f"bad type {' '.join(words)}")
            return ("bool" if w == "_Bool" else w,) + SCALARS["bool" if w == "_Bool" else w]
    if "char" in cnt:
        if cnt["char"] != 1 or longs or "short" in cnt or "int" in cnt:
            raise Unresolvable(f"bad type {' '.join(ws)}")
        name = "unsigned char" if unsigned else ("signed char" if "signed" in cnt else "char")
        return (name,) + SCALARS[name]
    if cnt.get("int", 0) > 1 or cnt.get("short", 0) > 1 or longs > 2 or \
            ("short" in cnt and longs):
        raise Unresolvable(f"bad type {' '.join(ws)}")
    if "short" in cnt:
        base = "short"
    elif longs == 2:
        base = "long long"
    elif longs == 1:
        base = "long"
    else:
        base = "int"
    name = ("unsigned " + base) if unsigned else base
    return (name,) + SCALARS[name]


def _resolve_type_tokens(toks, env, tparams, depth=0):
    """A type-id (no declarator name): (canon, kind, size, align, is_ptr)."""
    p = parse_decl(toks, env, tparams, allow_name=False, depth=depth)
    return p.ctype, p.kind, p.size, p.align, p.is_pointer


def parse_decl(toks, env, tparams, allow_name=True, depth=0):
    """One parameter declaration (tokens between commas) -> Param."""
    toks = expand(toks, env)
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
        i = skip_attrs(toks, i)
        if i >= n:
            break
        t = toks[i]
        x = t.text
        if t.kind == "id" and x in CV:
            const |= x == "const"
            volatile |= x == "volatile"
            i += 1
        elif t.kind == "id" and x in IGNORED_QUALS:
            i += 1
        elif t.kind == "id" and x in BUILTIN_WORDS and not name_toks:
            words.append(x)
            i += 1
        elif (t.kind == "id" or x == "::") and not words and not name_toks:
            # a named type, possibly qualified and with template args
            start = i
            if x in TAGS:
                i += 1
                if i < n and toks[i].kind == "id" and toks[i].text in ("class", "struct"):
                    i += 1  # "enum class"
            while i < n:
                if toks[i].text == "::":
                    i += 1
                    continue
                if toks[i].kind == "id" and toks[i].text not in KEYWORDS:
                    i += 1
                    if i < n and toks[i].text == "<":
                        i = skip_angle(toks, i)
                    if i < n and toks[i].text == "::":
                        i += 1
                        continue
                    break
                raise Unresolvable(f"unexpected {toks[i].text!r}", toks[i])
            name_toks = toks[start:i]
            last = name_toks[-1].text
            if i < n and toks[i].text == "(" and (last in env.fmacros or not (
                    last in env.typedefs or last in env.structs or last in env.enums or
                    last in SCALARS or last in ALIASES or last in tparams)):
                raise Unresolvable(f"macro {name_toks[-1].text}(...) in a declaration")
        else:
            break
    if not words and not name_toks:
        if i < n:
            raise Unresolvable(f"expected a type, found {toks[i].text!r}", toks[i])
        raise Unresolvable("empty declaration")
    canon, kind, size, align = _resolve_base(words, name_toks, env, tparams, depth)
    # declarator: ptr-operators, then name / (declarator), then suffixes
    levels = []  # per pointer level: const?
    name = None
    array = func = False

    def declarator(i, depth_):
        nonlocal name, array, func
        if depth_ > 32:
            raise Unresolvable("declarator nested too deeply")
        while i < n:
            i = skip_attrs(toks, i)
            if i >= n:
                break
            x = toks[i].text
            if x == "*":
                levels.append(False)
                i += 1
                while i < n and toks[i].kind == "id" and (
                        toks[i].text in CV or toks[i].text in IGNORED_QUALS):
                    if toks[i].text == "const":
                        levels[-1] = True
                    i += 1
            elif x in ("&", "&&"):
                raise BadDecl(toks[i], "reference parameters are not allowed in a __global__ "
                                 "function (pass a pointer or the value)")
            elif x == "^":
                raise Unresolvable("block pointer")
            else:
                break
        i = skip_attrs(toks, i)
        if i < n and toks[i].text == "(" and not (
                i + 1 < n and (toks[i + 1].text == ")" or toks[i + 1].kind == "id" and
                               toks[i + 1].text in BUILTIN_WORDS | CV)):
            inner_end = skip_balanced(toks, i)
            j = declarator(i + 1, depth_ + 1)
            if j != inner_end - 1:
                raise Unresolvable("unexpected tokens in declarator")
            i = inner_end
        elif i < n and toks[i].kind == "id" and toks[i].text not in KEYWORDS:
            if not allow_name:
                raise Unresolvable(f"unexpected name {toks[i].text!r}", toks[i])
            name = toks[i].text
            i += 1
        while i < n:
            i = skip_attrs(toks, i)
            if i >= n:
                break
            if toks[i].text == "[":
                i = skip_balanced(toks, i, "[", "]")
                array = True
            elif toks[i].text == "(":
                if name is None and not levels:
                    raise Unresolvable("a macro call or a function type in a parameter", toks[i])
                i = skip_balanced(toks, i)
                func = True
                while i < n and toks[i].kind == "id" and toks[i].text in CV | {"noexcept"}:
                    i += 1
            else:
                break
        return i

    i = declarator(i, 0)
    i = skip_attrs(toks, i)
    if i != n:
        raise Unresolvable(f"unexpected {toks[i].text!r} in a parameter declaration", toks[i])
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
        raise Unresolvable("a parameter cannot have type void")
    return Param(name, base_text, kind, size, align, False, const, None)


def param_list(toks, env, tparams):
    """Tokens between a kernel's parentheses -> list[Param]."""
    if not toks:
        return []
    parts = split_top(toks)
    params = []
    for k, part in enumerate(parts):
        if not part:
            raise Unresolvable("empty parameter")
        if len(part) == 1 and part[0].text == "...":
            raise ValueError("a __global__ function cannot be variadic")
        p = parse_decl(part, env, tparams)
        if p.kind == "void":
            if len(parts) != 1:
                raise Unresolvable("void in a parameter list")
            return []
        params.append(p)
    return params


def collect_env(toks, pp):
    env = Env()
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


def template_params(toks):
    """Tokens between template < > -> ((kind, name, default), ...)."""
    out = []
    if not toks:
        return ()
    for part in split_top(toks):
        default = None
        for k, t in enumerate(part):
            if t.text == "=":
                default = part[k + 1:]
                part = part[:k]
                break
        if not part:
            raise Unresolvable("empty template parameter")
        name = part[-1].text if part[-1].kind == "id" and len(part) > 1 else None
        head = part[0].text
        if head in ("typename", "class"):
            kind = "type"
        elif head == "template":
            kind = "template"
        else:
            kind = "value"
        if part[-1].text == "...":
            raise Unresolvable("variadic template")
        out.append((kind, name, _text(default) if default else None))
    return tuple(out)
