# pycudac — the two commands a newcomer runs: `make demo` and `make test`.
# Both create a virtual environment (.venv), install the dependencies and
# build the C extension in place on first use.
# `make gpu-check` is for the device machine (no network): it uses the
# system python3 there, builds in place, runs the suite on the GPU and the
# benchmarks, and prints a short table last.

PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.deps-installed
PYTEST_FLAGS ?= -q

.PHONY: all build demo test gpu-check bench clean

all: build

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --disable-pip-version-check "numpy>=1.23" pytest hypothesis "setuptools>=61"
	touch $@

build: $(STAMP)
	$(VPY) setup.py -q build_ext --inplace

demo: build
	$(VPY) examples/demo.py

test: build
	$(VPY) -m pytest $(PYTEST_FLAGS) tests

# On the device machine: system python3, GPU suite, whole suite on cuda, benchmarks.
gpu-check:
	bash bench/gpu_check.sh

clean:
	rm -rf build pycudac/*.so $(VENV)
