"""Sphinx configuration for pycudac's documentation (`make docs`).

Pages are Markdown (MyST); the API reference comes from the docstrings of
the imported package, C extension included, so the tree must be built
first (make docs does it). Warnings are errors in `make docs` and in CI.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("PYCUDAC_BACKEND", "sim")  # importing never needs a GPU; be quiet

import pycudac  # noqa: E402

project = "pycudac"
author = "The pycudac maintainers"
copyright = "2026, The pycudac maintainers"
version = release = pycudac.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3
html_theme = "alabaster"
html_title = f"pycudac {release}"
html_static_path = []
html_theme_options = {"description": "CUDA C kernels from Python: NVRTC, a safe cache, "
                                     "checked launches and a CPU simulator",
                      "fixed_sidebar": True}

autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# The C extension has no __text_signature__: its signatures come from
# pycudac/_driver.pyi (below), and its docstrings are shown whole.
autodoc_docstring_signature = False
suppress_warnings = ["myst.xref_missing"]


# The docstrings are plain text written for help() and the terminal, not
# reStructuredText: `code` in single backquotes, *args, indented examples
# after a colon. Rendered as reST they would warn; here they are turned into
# reST that says the same: backquoted code becomes literal, indented blocks
# become literal blocks, lone asterisks and bars are escaped.
_CODE = re.compile(r"(?<![`\w])`([^`\n]+)`(?![`\w])")


def _as_rest(lines):
    out, in_block, base = [], False, None
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if base is None and stripped:
            base = indent
        if stripped and base is not None and indent > base:
            if not in_block:
                if out and out[-1].strip():
                    out.append("")
                out.append("::")
                out.append("")
                in_block = True
            out.append("    " + line)
            continue
        if in_block and stripped:
            out.append("")
            in_block = False
        if not stripped:
            out.append("")
            continue
        text = line.replace("\\", "\\\\")
        parts = _CODE.split(text)
        for k in range(0, len(parts), 2):
            # outside literals: escape what reST would read as markup
            p = re.sub(r"(\*+|\|)", lambda m: "\\" + "\\".join(m.group(1)), parts[k])
            p = re.sub(r"(\w)_(?=\W|$)", r"\1\\_", p)
            parts[k] = p
        for k in range(1, len(parts), 2):
            parts[k] = "``" + parts[k].replace("\\\\", "\\") + "``"
        out.append("".join(parts))
    return out


def _process_docstring(app, what, name, obj, options, lines):
    lines[:] = _as_rest(lines)


def _skip(app, what, name, obj, skip, options):
    # the type machinery of the C types, and what only tests use
    if name.startswith("_") and name not in ("__call__", "__init__"):
        return True
    return None


def _stub_signatures():
    """{"Device.make_context": ("(flags=0)", "Context"), ...} from the stub:
    the arguments without their annotations, the return type as written."""
    import ast
    with open(os.path.join(ROOT, "pycudac", "_driver.pyi"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    table = {}

    def add(prefix, fn, drop_first):
        args = fn.args
        for a in args.posonlyargs + args.args + args.kwonlyargs:
            a.annotation = None
        if args.vararg:
            args.vararg.annotation = None
        if args.kwarg:
            args.kwarg.annotation = None
        if drop_first:
            (args.posonlyargs or args.args).pop(0)
        ret = ast.unparse(fn.returns) if fn.returns is not None else None
        table[prefix + fn.name] = ("(" + ast.unparse(args) + ")", ret)

    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            add("", node, False)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod"
                                 for d in item.decorator_list)
                    add(node.name + ".", item, not static)
            new = table.get(node.name + ".__new__")
            if new:
                table[node.name] = (new[0].replace("(cls, ", "(").replace("(cls)", "()"), None)
    return table


_STUBS = _stub_signatures()


def _process_signature(app, what, name, obj, options, signature, return_annotation):
    owner = getattr(obj, "__objclass__", None) or obj
    if getattr(owner, "__module__", None) != "pycudac._driver" and not (
            callable(obj) and getattr(obj, "__module__", None) == "pycudac._driver"):
        return None
    key = name.split("pycudac.driver.", 1)[-1].split("pycudac._driver.", 1)[-1]
    found = _STUBS.get(key)
    if found is None:
        return None
    args, ret = found
    if ret and ret.startswith("_") or ret == "None":
        ret = None
    return args, ret


def setup(app):
    app.connect("autodoc-process-signature", _process_signature)
    app.connect("autodoc-process-docstring", _process_docstring)
    app.connect("autodoc-skip-member", _skip)
