"""PyCUDA-style user code against pycudac.curandom: examples/random_numbers.py
(pi, an option price, a Sobol integral, Poisson counts, skip-ahead, each
checked against its exact answer) as it stands, and again as PyCUDA code
(`pycudac` -> `pycuda`) through tools/pycuda_compat's import alias, in
subprocesses on the backend this run uses."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "random_numbers.py")

pytestmark = pytest.mark.usefixtures("autoinit")


def _run(args, **kw):
    from pycudac import driver
    env = dict(os.environ, PYCUDAC_BACKEND=driver.get_backend())
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (ROOT, os.path.join(ROOT, "tools", "pycuda_compat"), env.get("PYTHONPATH")) if p)
    r = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                       timeout=300, **kw)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def test_the_random_numbers_example():
    out = _run([EXAMPLE])
    assert out.splitlines()[-1] == "random_numbers: all checks passed"
    assert "Black-Scholes" in out and "Poisson(300.0)" in out


def test_the_example_as_pycuda_code(tmp_path):
    """The same program with PyCUDA's module names: `import pycuda.autoinit`,
    `from pycuda.curandom import ...` resolve to pycudac's modules."""
    with open(EXAMPLE) as f:
        source = f.read().replace("pycudac", "pycuda")
    assert "pycudac" not in source and "from pycuda.curandom import" in source
    script = tmp_path / "random_numbers_pycuda.py"
    script.write_text("import pycuda_alias  # noqa: F401\n" + source)
    out = _run([str(script)])
    assert out.splitlines()[-1] == "random_numbers: all checks passed"
