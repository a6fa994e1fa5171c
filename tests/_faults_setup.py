"""What the fault tests share (test_faults.py, test_faults_load.py,
test_faults_garbage.py; issue 7): the kernels and their module (the `mod`
fixture, imported by the files that use it), a fresh interpreter's run of
some code, and whether AddressSanitizer is watching."""
import os
import subprocess
import sys
import textwrap

import pytest


SRC = r"""
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
__global__ void spin(long long iters, unsigned long long *out)
{
    volatile unsigned long long acc = 0;
    for (long long i = 0; i < iters; i++) acc = acc * 6364136223846793005ULL + 1;
    if (threadIdx.x == 0) out[0] = acc;
}
"""


@pytest.fixture(scope="module")
def mod(ctx):
    from pycudac.compiler import SourceModule
    return SourceModule(SRC)


def _run(code, backend=None, timeout=180):
    env = dict(os.environ)
    if backend:
        env["PYCUDAC_BACKEND"] = backend
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=timeout)


# Under AddressSanitizer (tools/ci/asan.sh sets PYCUDAC_UNDER_ASAN) freed memory
# sits in ASan's quarantine (256 MiB by default), so RSS is not a leak measure
# there; device memory still is.
UNDER_ASAN = os.environ.get("PYCUDAC_UNDER_ASAN") == "1"
