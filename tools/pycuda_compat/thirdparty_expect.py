"""What the third-party suites (thirdparty.py) do on pycudac that is not a
pass, and why. Keys are regexes matched from the start of pytest's node id
(run from the unpacked sdist's root).

EXPECT: {pattern: {"error": regex the failure's 'Type: message' must match,
                   "why": the reason, "backends": None (everywhere) or a tuple}}
  Only what pycudac cannot or should not change: a documented simulator
  limit, or a defect of the package itself (it fails on PyCUDA the same way).
SLOW_ON_SIM: {pattern: why} tests deselected on the simulator only (they run
  on a GPU), each with its reason: too slow there, or sized to a GPU's memory;
  `slow_markers` does the same by marker.
QUICK: the patterns of the subset `make test-pycuda` runs (~1 minute on two
  cores, cold kernel cache).
Besides, a suite may give `has_config: False` (no pytest configuration of its
own: thirdparty.py gives it tools/pycuda_compat/pytest.ini), `sim_env` (its
environment on the simulator) and `skip_files` ({path: why} not collected).
"""

GRUNNUR_EXPECT = {
    r"tests/test_template\.py::test_template_(from_associated_file|builtins)$": {
        "error": r"FileNotFoundError: .*tests/test_template\.mako",
        "why": "grunnur's sdist leaves out tests/test_template.mako, the template these two "
               "tests open (its pdm source-includes list tests/*.py only): a packaging "
               "defect of grunnur 0.6.0, nothing to do with CUDA",
        "backends": None},
    r"tests/(test_program|test_static)\.py::test_constant_memory\[cuda,": {
        "error": r"ValueError: Incorrect size of the constant buffer; expected 256 bytes, "
                 r"got 64",
        "why": "grunnur 0.6.0's CUDA adapter declares a constant array with its size in "
               "bytes as the element count ('__constant__ int cm1[64]' for 16 ints, "
               "_adapter_cuda.mako's constant_arrays_def gets metadata.buffer_size), then its "
               "own set_constant_buffer refuses the 64-byte array for the 256-byte symbol "
               "that get_global reports: PyCUDA reports the same size, so it fails there too "
               "(grunnur's CI runs these only on its mock PyCUDA)",
        "backends": None},
    r"tests/test_dtypes_on_device\.py::test_offsets_(custom_itemsize_)?nested\[cuda,": {
        "error": r"AssertionError: assert (16 == 32|32 == 64)",
        "why": "NVRTC, not nvcc: grunnur's dtypes.ctype writes a struct's alignment after its "
               "closing brace ('typedef struct s_ {...} __align__(32) s;'); nvcc (its front "
               "end in GNU mode) gives the struct that alignment and rounds its size up to it, "
               "NVRTC gives the typedef the alignment and leaves sizeof unrounded (16 for a "
               "32-byte-aligned type; checked with static_assert against the toolkit's nvcc). "
               "No NVRTC option changes it; the simulator (GCC) agrees with nvcc. "
               "docs/compatibility.md says to write 'struct __align__(32) s_ {...}'",
        "backends": ("cuda",)},
}

REIKNA_EXPECT = {
    r"test/test_fft/test_fft\.py::test_(non_)?power_of_2_performance\[.*,sp\]$": {
        "error": r"AssertionError: assert False",
        "why": "reikna 0.9.0 holds its single-precision FFT performance tests (every one of "
               "them ~4 million complex64 points) to rtol 1e-5 and atol 1e-8 against NumPy: "
               "a few hundred to a few thousand outputs near zero miss that in float "
               "arithmetic. All 27 fail on the simulator too (its arithmetic is the host's, "
               "nothing shared with the GPU's: 263 to 5,236 of the points), the double "
               "precision ones pass; PyCUDA runs the same float FFT",
        "backends": None},
    r"test/test_fft/test_fft\.py::test_non_power_of_2_performance\[(512x\(409[57],\)|"
    r"4x\(51[13], 51[13]\))-.*,dp\]$": {
        "error": r"AssertionError: assert False",
        "why": "reikna 0.9.0 holds its double-precision FFTs to rtol and atol 1e-11: in its "
               "largest non-power-of-2 transforms (4095 and 4097 points, 511 and 513 squared; "
               "Bluestein's, outputs up to ~2,000) hundreds of outputs miss that by a few "
               "1e-12, on the simulator (checked by hand: 529 of 2.1 million for 4097) as on "
               "the GPU. The power-of-2 and smaller ones pass",
        "backends": None},
    r"test/test_fft/test_fft\.py::test_non_power_of_2_performance\[32x\(17, 17, 65\)-.*,dp\]$": {
        "error": r"AssertionError: assert False",
        "why": "the same 1e-11 tolerance, missed on the GPU in this 3-D transform (35C); the "
               "simulator's arithmetic, run by hand, passes it and misses 2x(65, 65, 65) and "
               "2x(63, 63, 63) instead (which the GPU passes): a few 1e-12 either way",
        "backends": ("cuda",)},
    r"test/test_cluda/test_struct\.py::test_hardcoded_offsets\[cuda,": {
        "error": r"AssertionError",
        "why": "NVRTC, not nvcc, as grunnur's test_offsets_nested: reikna's dtypes.ctype_module "
               "writes the 32-byte alignment of this dtype after the struct's closing brace "
               "(cluda's ALIGN is __align__), which NVRTC gives the typedef without rounding "
               "sizeof up (16), so the kernel's dest[i] steps 16 bytes where the array's "
               "items are 32",
        "backends": ("cuda",)},
    r"test/test_core/test_transformation\.py::test_array_offset\[cuda,": {
        "error": r"TypeError: Thread\.array\(\) got an unexpected keyword argument 'data'",
        "why": "reikna 0.9.0's test passes data= to Thread.array, a keyword of its OpenCL "
               "Thread only (the CUDA one calls it base_data): it fails on PyCUDA the same way",
        "backends": None},
}

COMPYLE_EXPECT = {
    r"compyle/tests/(test_array\.py::test_(sort_by_keys|argsort)\[cuda\]|"
    r"test_cuda\.py::test_sort)$": {
        "error": r"NotImplementedError: compyle\.thrust\.sort\.argsort: compyle's nvcc-built",
        "why": "compyle sorts on CUDA with its own thrust extension (compyle/thrust/sort.pyx, "
               "Cython and nvcc, built by its setup.py where nvcc is found), not with PyCUDA: "
               "the unpacked sdist has a stand-in whose argsort raises (thirdparty.SHIMS)",
        "backends": None},
    r"compyle/tests/test_array\.py::test_trapz\[cuda\]$": {
        "error": r"AttributeError: module 'numpy' has no attribute 'trapz'",
        "why": "compyle 0.9.1's test compares against numpy.trapz, which NumPy 2.0 removed "
               "(numpy.trapezoid): it fails with PyCUDA and NumPy 2 the same way",
        "backends": None},
}

# cuvarbase's BLS tests with freq_batch_size=None size their arrays to 90% of
# the free memory: with the 2 GiB the simulator's device is given for this
# suite (sim_env), some leave no room ("Not enough memory (freq_batch_size =
# 0)"), which ones by what earlier tests left in the pool, and a GPU's memory
# would be the host's RAM there: all of them are left out on the simulator
_CUVARBASE_FREE_MEMORY = (
    "sizes its arrays to the device's free memory (freq_batch_size=None): on the simulator, "
    "whose device is given 2 GiB for this suite (PYCUDAC_SIM_MEMORY; a device byte is a host "
    "byte there), some configurations find no room; on a GPU they run")

SUITES = {
    "grunnur": {
        "dist": "grunnur", "version": "0.6.0", "tests": "tests",
        # pytest-grunnur's option (grunnur's conftest adds it by hand): every test
        # parametrized by a device, a context or a multi-device set gets the CUDA
        # API's devices, which the alias makes pycudac's
        "args": ["--api", "cuda"],
        "expect": GRUNNUR_EXPECT,
        "slow_on_sim": {},
        "slow_markers": {},
        "quick": [r"tests/"],  # all of it: ~15 s cold, 3 s warm
    },
    "reikna": {
        "dist": "reikna", "version": "0.9.0", "tests": "test",
        # its own conftest's option (reikna 0.9's cluda layer, not grunnur)
        "args": ["--api", "cuda"],
        "expect": REIKNA_EXPECT,
        "slow_on_sim": {},
        "slow_markers": {
            "perf": "reikna's performance tests (marker perf: GFLOPS and GB/s of 512x512 "
                    "matrix products and FFTs of millions of points, each timed over "
                    "several runs): 30 s to minutes each on the simulator"},
        # cluda basics and modules, the computation/transformation core, scans,
        # reductions, transposes, a few FFTs: the library's layers end to end
        "quick": [r"test/test_cluda/test_basics\.py", r"test/test_core/",
                  r"test/test_algorithms/test_transpose\.py",
                  r"test/test_algorithms/test_pureparallel\.py",
                  r"test/test_fft/test_fft\.py::test_trivial",
                  r"test/test_transformations\.py::test_copy"],
    },
    "compyle": {
        "dist": "compyle", "version": "0.9.1", "tests": "compyle/tests",
        # its CUDA backend's tests (the others are its Cython and OpenCL
        # backends'): elementwise, reductions, scans (segmented, unique,
        # with external functions), its Array type and its low-level Kernel,
        # generated through pycuda's ElementwiseKernel, ReductionKernel,
        # SourceModule and prepare()
        "args": ["-k", "cuda"],
        "has_config": False,  # thirdparty.py gives it tools/pycuda_compat/pytest.ini
        "expect": COMPYLE_EXPECT,
        "slow_on_sim": {},
        "slow_markers": {},
        "quick": [r"compyle/tests/"],  # all of it: ~20 s cold, 3 s warm
    },
    "cuvarbase": {
        "dist": "cuvarbase", "version": "0.2.5", "tests": "cuvarbase/tests",
        # periodograms for astronomy (BLS, conditional entropy, PDM): ~1,800
        # lines of its own CUDA C (cuvarbase/kernels/*.cu) through
        # SourceModule, prepared_async_call on streams and GPUArrays, checked
        # against its NumPy versions
        "args": [],
        "has_config": False,
        "sim_env": {"PYCUDAC_SIM_MEMORY": "2G"},
        "skip_files": {
            f"cuvarbase/tests/{name}": "needs scikit-cuda's cuFFT bindings (and astropy, "
                                       "nfft), not PyCUDA's: cuvarbase's Lomb-Scargle and "
                                       "NFFT run their FFTs through skcuda.fft"
            for name in ("test_lombscargle.py", "test_nfft.py")},
        "expect": {},
        "slow_on_sim": {
            r"cuvarbase/tests/test_bls\.py::TestBLS::test_(transit_parameter_consistency|"
            r"custom|standard)\[(True|False)-None-": _CUVARBASE_FREE_MEMORY,
            r"cuvarbase/tests/test_bls\.py::TestBLS::test_transit\[(True|False)-\d-"
            r"(True|False)-[-\d.]+-None-": _CUVARBASE_FREE_MEMORY,
            r"cuvarbase/tests/test_bls\.py::TestBLS::test_fast_eebls\[(True|False)-[-\d.]+-"
            r"None-": _CUVARBASE_FREE_MEMORY},
        "slow_markers": {},
        # conditional entropy and PDM whole, BLS's standard and custom
        # searches: ~10 s (its transit searches take 45 s more on the
        # simulator, its fast_eebls ~10 s a test)
        "quick": [r"cuvarbase/tests/test_ce\.py", r"cuvarbase/tests/test_pdm\.py",
                  r"cuvarbase/tests/test_bls\.py::TestBLS::test_(standard|custom)\["],
    },
}
