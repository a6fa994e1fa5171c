#!/usr/bin/env bash
# tools/fetch_egl.sh — libglvnd's EGL loader for the GL tests on a GPU machine
# that has NVIDIA's EGL vendor library (libEGL_nvidia.so.0) but not the
# loader that reads it (libEGL.so.1, libGLdispatch.so.0: Debian's libegl1).
#
# The device image is such a machine and has no network, so the loader
# travels with the tree: this downloads it from PyPI (the `ovito` wheel ships
# libglvnd 1.3.4's libraries unchanged in ovito/plugins/syslibs/) into .egl/
# (ignored), with a vendor file naming libEGL_nvidia.so.0. bench/gpu_check.sh
# uses .egl/ when it is there: carry ".egl" in the device call.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
WHEEL_VERSION=${EGL_WHEEL_VERSION:-3.17.2}
dl=$(mktemp -d)
trap 'rm -rf "$dl"' EXIT
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
    --platform manylinux_2_34_x86_64 -d "$dl" "ovito==$WHEEL_VERSION"
mkdir -p .egl
"$PY" - "$dl"/ovito-*.whl <<'PY'
import sys, zipfile, hashlib
want = ("libEGL.so.1", "libGLdispatch.so.0", "libOpenGL.so.0")
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in want:
        data = z.read("ovito/plugins/syslibs/" + name)
        with open(".egl/" + name, "wb") as f:
            f.write(data)
        print(f"{hashlib.sha256(data).hexdigest()}  {len(data):8d}  .egl/{name}")
PY
cat > .egl/10_nvidia.json <<'J'
{"file_format_version": "1.0.0", "ICD": {"library_path": "libEGL_nvidia.so.0"}}
J
echo "fetch_egl: .egl/ has libglvnd's EGL loader (from ovito $WHEEL_VERSION on PyPI)"
