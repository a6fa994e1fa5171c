"""`import pycuda...` gives pycudac's module of the same name: PyCUDA's code,
unchanged, runs on pycudac. Load it as a pytest plugin (-p pycuda_alias)
or import it before the code that imports pycuda."""
import importlib
import importlib.abc
import importlib.util
import sys


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name == "pycuda" or name.startswith("pycuda."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("pycudac" + spec.name[len("pycuda"):])

    def exec_module(self, module):
        pass


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())
