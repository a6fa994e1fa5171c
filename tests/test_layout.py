"""The source tree keeps the architecture's rules (ARCHITECTURE.md): a folder
per component, the simulator and util free of Python, the core reaching the
simulator only through the backend table, calls in one direction."""
import glob
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")

# Who may include whom: a component's files include headers of the
# components listed here (and their own). "module" is the base every
# Python-facing component includes (state, errors); the module entry
# (_driver.c) sees everything.
ALLOWED = {
    "util": set(),
    "sim": {"util"},
    "module": set(),
    "driver": {"module", "util"},
    "core": {"module", "driver", "util"},
    "launch": {"module", "driver", "core", "util"},
    "graph": {"module", "driver", "core", "launch", "util"},
    "compile": {"module", "driver", "core", "util"},
}


def c_files(*folders):
    out = []
    for d in folders:
        out += glob.glob(os.path.join(SRC, d, "**", "*.[ch]"), recursive=True)
    return sorted(out)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def includes(path):
    text = read(path)
    return re.findall(r'^\s*#\s*include\s+[<"]([^>"]+)[>"]', text, re.M)


def test_every_source_file_is_in_a_component_folder():
    loose = [f for f in os.listdir(SRC) if os.path.isfile(os.path.join(SRC, f))]
    assert loose == []
    assert sorted(d for d in os.listdir(SRC)) == sorted(set(ALLOWED) | {"module"})


def test_include_pycudac_holds_only_interfaces_between_components():
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "include",
                                                                        "pycudac", "*")))
    assert names == ["backend.h", "cudadrv.h", "rtc.h", "sim_abi.h"]


@pytest.mark.parametrize("folder", ["sim", "util"])
def test_plain_c_components_include_no_python(folder):
    for path in c_files(folder):
        for inc in includes(path):
            assert not re.match(r"(Python|structmember|numpy/|longintrepr)", inc), (path, inc)
            comp = inc.split("/")[0]
            if "/" in inc and comp in ALLOWED:
                assert comp == folder or comp in ALLOWED[folder], (path, inc)


def test_calls_run_one_way_between_components():
    for comp, allowed in ALLOWED.items():
        for path in c_files(comp):
            if path.endswith(os.path.join("module", "_driver.c")):
                continue  # the entry assembles every component
            for inc in includes(path):
                other = inc.split("/")[0]
                if "/" in inc and other in ALLOWED and other != comp:
                    assert other in allowed, f"{os.path.relpath(path, ROOT)} includes {inc}"


def test_the_core_never_asks_which_backend_it_runs_on():
    for path in c_files("module", "driver", "core", "launch", "graph", "compile"):
        text = read(path)
        rel = os.path.relpath(path, ROOT)
        assert "PCC_BACKEND_SIM" not in text and "PCC_BACKEND_CUDA" not in text, rel
        if not rel.startswith(os.path.join("src", "driver")):
            # the loader picks the backend; nobody else names the simulator
            assert not re.search(r"\bpcc_sim_\w+\s*\(", text), rel


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_the_simulator_compiles_without_python_headers(tmp_path):
    """Each plain-C file alone, with only include/, src/ and the generated
    prelude on the path: none of Python's or NumPy's directories."""
    generated = os.path.join(ROOT, "build", "generated")
    if not os.path.isfile(os.path.join(generated, "sim_prelude_blob.h")):
        pytest.skip("build/generated is made by setup.py; build first")
    for path in c_files("sim", "util"):
        if not path.endswith(".c"):
            continue
        r = subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-fsyntax-only", "-I",
                            os.path.join(ROOT, "include"), "-I", SRC, "-I", generated, path],
                           capture_output=True, text=True)
        assert r.returncode == 0, f"{path}:\n{r.stderr[-2000:]}"


def test_the_extension_takes_no_fortified_longjmp():
    """The simulator's siglongjmp leaves a fiber's stack; glibc's fortified
    one (__longjmp_chk) aborts on that. setup.py builds with _FORTIFY_SOURCE
    on every host, so the file that jumps must opt out."""
    import pycudac._driver as ext
    if shutil.which("nm") is None:
        pytest.skip("no nm")
    r = subprocess.run(["nm", "-D", "--undefined-only", ext.__file__], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "__longjmp_chk" not in r.stdout
    assert "siglongjmp" in r.stdout   # the simulator's jump is still there
