"""What a user and their tools see of the package: the C extension's type
stubs match it, py.typed ships, each public module has __all__, help()
shows the API and nothing else, and the version is one number everywhere.
Checks the package that is imported, so run against an installed wheel or
sdist (tools/ci/package.sh) they check what was installed."""
import ast
import os
import pydoc
import re

import pytest

import pycudac
from pycudac import _driver

PKG = os.path.dirname(os.path.abspath(pycudac.__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stub_names():
    with open(os.path.join(PKG, "_driver.pyi"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_the_stub_declares_every_name_of_the_extension_and_no_other():
    runtime = {n for n in dir(_driver) if not (n.startswith("__") and n.endswith("__"))}
    declared = {n for n in stub_names() if not re.match(r"_[A-Z]", n)}  # _Dim3 & co: aliases
    assert runtime - declared == set(), "in pycudac._driver, missing from _driver.pyi"
    assert declared - runtime == set(), "in _driver.pyi, not in pycudac._driver"


def test_py_typed_ships_with_the_package():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))


@pytest.mark.parametrize("name", ["driver", "compiler", "gpuarray", "elementwise", "reduction",
                                  "scan", "cumath", "curandom", "tools", "profile", "gl"])
def test_public_modules_say_what_is_public(name):
    import importlib
    mod = importlib.import_module(f"pycudac.{name}")
    assert hasattr(mod, "__all__"), f"pycudac.{name} has no __all__"
    missing = [n for n in mod.__all__ if not hasattr(mod, n)]
    assert missing == []
    assert len(set(mod.__all__)) == len(mod.__all__)


def test_help_of_a_kernel_shows_no_type_machinery():
    text = pydoc.render_doc(_driver.Function, renderer=pydoc.plaintext)
    assert "__vectorcalloffset__" not in text
    assert "prepared_call" in text and "param_layout" in text


def test_one_version_everywhere():
    assert pycudac.__version__ == ".".join(map(str, pycudac.VERSION))
    pyproject = os.path.join(ROOT, "pyproject.toml")
    if not os.path.isfile(pyproject):
        pytest.skip("no pyproject.toml beside the tests (an installed copy of tests/)")
    with open(pyproject, encoding="utf-8") as f:
        text = f.read()
    assert re.search(r'^version = "([^"]+)"', text, re.M).group(1) == pycudac.__version__
