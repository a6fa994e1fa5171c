"""What every stateful generator shares, under PyCUDA's names: the
fill_*/gen_* methods, the skip-ahead calls, the per-stream state in device
memory, and the compiled module (one per generator class and context).

A generator keeps block_count x generators_per_block independent streams
(block_count is the device's multiprocessor count, as in PyCUDA); stream t
is thread t of every launch and fills elements t, t + T, t + 2T, ... of an
array (normals: the pairs 2t, 2t + 1, then 2(t + T), ...), so a generator
is reproducible by its seeds (or direction vectors) and offset on a given
device size. Each call advances each stream by the draws it made.

Subclasses set the class attributes below and call _setup(), then run
their own init kernel (pseudo-random: seeds; quasi-random: directions).
"""
import numpy as np

from pycudac import tools
from pycudac._curand import checks, kernels

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
I32, U32 = np.dtype(np.int32), np.dtype(np.uint32)
I64, U64 = np.dtype(np.int64), np.dtype(np.uint64)

# Streams per block: the most the kernels can launch with, at most this
# (a fixed number keeps a generator's output the same on every device of
# the same multiprocessor count).
MAX_BLOCK = 512

# PTRS keeps double precision in its acceptance test up to here, and the
# results fit the uint32 outputs.
MAX_LAMBDA = float(2 ** 31)


@tools.context_dependent_memoize
def _compiled(cls):
    """(module, generators_per_block) of a generator class in this context."""
    from pycudac import elementwise as _ew
    prefix = "pcc_" + cls._NAME + tools.unique_tag((cls._NAME, cls._VERSION))
    source = kernels.render(prefix, cls._GENERATOR, cls._FAMILY, cls._SKIPS, cls._EXTRA)
    module = _ew.source_module(source)
    functions = {}
    for name in cls._kernel_names():
        functions[name] = module.get_function(f"{prefix}_{name}")
    most = min([MAX_BLOCK] + [f.max_threads_per_block for f in functions.values()])
    per_block = 1 << (most.bit_length() - 1)
    return module, functions, per_block


class _RandomNumberGeneratorBase:
    """Streams of random numbers in device memory (see the module's doc)."""

    has_box_muller = True
    _NAME = None            # kernel name stem
    _VERSION = 1            # bump when the kernels' output changes
    _GENERATOR = ""         # device source, kernels.py's contract
    _FAMILY = "pseudo"      # or "quasi"
    _SKIPS = ("",)          # pcc_rng_skip<what> the source defines
    _EXTRA = ()             # more per-element kernels (name, type, params, expr)
    _STATE_WORDS = 6        # 32-bit words of state per stream
    _UNIFORM = {F32: "uniform_f32", F64: "uniform_f64", I32: "uniform_u32", U32: "uniform_u32"}

    @classmethod
    def _kernel_names(cls):
        names = ["init", "uniform_u32", "uniform_f32", "uniform_f64", "normal_f32",
                 "normal_f64", "lognormal_f32", "lognormal_f64", "poisson_u32",
                 "poisson_ip_u32", "poisson_ip_f32", "poisson_ip_f64"]
        names += [e[0] for e in cls._EXTRA]
        for what in cls._SKIPS:
            names += ["skip" + what, "skip" + what + "_array"]
        return names

    def _setup(self):
        from pycudac import driver
        dev = driver.Context.get_device()
        self.block_count = int(dev.get_attribute(driver.device_attribute.MULTIPROCESSOR_COUNT))
        self._module, self._functions, self.generators_per_block = _compiled(type(self))
        self._aux = 0
        self.state = driver.mem_alloc(self._STATE_WORDS * 4 * self.generator_count)

    @property
    def generator_count(self):
        """The number of streams: block_count * generators_per_block."""
        return self.block_count * self.generators_per_block

    def _launch(self, name, *args, stream=None):
        self._functions[name](self.state, self._aux, *args, block=(self.generators_per_block, 1, 1),
                              grid=(self.block_count, 1), stream=stream)

    def _fill(self, fn, data, kinds, *params, stream=None):
        checks.gpu_array(f"{type(self).__name__}.{fn}", "data", data, tuple(kinds))
        if data.size:
            self._launch(kinds[data.dtype], data.ptr, data.size, *params, stream=stream)
        return data

    # ------------------------------------------------------------------
    # distributions
    # ------------------------------------------------------------------

    def fill_uniform(self, data, stream=None):
        """Uniform in (0, 1] for float32/float64 (as cuRAND); every 32-bit
        (64-bit for the 64-bit generators) integer for the integer dtypes."""
        return self._fill("fill_uniform", data, self._UNIFORM, stream=stream)

    def fill_normal(self, data, stream=None):
        """Standard normal: Box-Muller pairs, or the inverse CDF for the
        quasi-random generators."""
        kinds = {F32: "normal_f32", F64: "normal_f64"}
        return self._fill("fill_normal", data, kinds, stream=stream)

    def fill_log_normal(self, data, mean, stddev, stream=None):
        """exp(mean + stddev * N(0, 1))."""
        fn = f"{type(self).__name__}.fill_log_normal"
        mean = checks.real(fn, "mean", mean)
        stddev = checks.real(fn, "stddev", stddev, low=0.0)
        kinds = {F32: "lognormal_f32", F64: "lognormal_f64"}
        return self._fill("fill_log_normal", data, kinds, mean, stddev, stream=stream)

    def fill_poisson(self, data, lambda_value=None, stream=None):
        """Poisson numbers of mean lambda_value into a uint32 array; with no
        lambda_value, each element of a float32, float64 or uint32 array is
        replaced by a Poisson number of that mean (a negative or NaN mean
        gives NaN: device code cannot raise)."""
        if lambda_value is None:
            kinds = {F32: "poisson_ip_f32", F64: "poisson_ip_f64", U32: "poisson_ip_u32"}
            return self._fill("fill_poisson", data, kinds, stream=stream)
        lam = checks.real(f"{type(self).__name__}.fill_poisson", "lambda_value", lambda_value,
                          low=0.0, high=MAX_LAMBDA)
        return self._fill("fill_poisson", data, {U32: "poisson_u32"}, lam, stream=stream)

    def gen_uniform(self, shape, dtype=np.float32, stream=None):
        from pycudac import gpuarray
        return self.fill_uniform(gpuarray.empty(shape, dtype), stream)

    def gen_normal(self, shape, dtype=np.float32, stream=None):
        from pycudac import gpuarray
        return self.fill_normal(gpuarray.empty(shape, dtype), stream)

    def gen_log_normal(self, shape, dtype, mean, stddev, stream=None):
        from pycudac import gpuarray
        return self.fill_log_normal(gpuarray.empty(shape, dtype), mean, stddev, stream)

    def gen_poisson(self, shape, dtype, lambda_value, stream=None):
        from pycudac import gpuarray
        return self.fill_poisson(gpuarray.empty(shape, dtype), lambda_value, stream)

    # ------------------------------------------------------------------
    # skipping ahead
    # ------------------------------------------------------------------

    def _skip(self, what, fn, i, stream):
        self._launch("skip" + what, checks.count(fn, "i", i), stream=stream)

    def _skip_array(self, what, fn, i, stream):
        checks.gpu_array(fn, "i", i, (U32, U64), size=self.generator_count)
        wide = i.astype(np.uint64, stream=stream) if i.dtype == U32 else i
        self._launch("skip" + what + "_array", wide.ptr, stream=stream)
        if wide is not i and stream is not None:
            stream.synchronize()  # the widened copy is freed on return

    def call_skip_ahead(self, i, stream=None):
        """Skip i draws in every stream."""
        self._skip("", f"{type(self).__name__}.call_skip_ahead", i, stream)

    def call_skip_ahead_array(self, i, stream=None):
        """Skip i[t] draws in stream t (i: a uint32 or uint64 GPUArray of
        generator_count elements)."""
        self._skip_array("", f"{type(self).__name__}.call_skip_ahead_array", i, stream)


class _PseudoRandomNumberGeneratorBase(_RandomNumberGeneratorBase):
    """Streams seeded from seed_getter(generator_count) (an int32 GPUArray;
    by default random seeds from the OS), stream t being subsequence t of
    its seed, then `offset` draws on."""

    _SKIP_SEQUENCE = "_seq"

    def __init__(self, seed_getter=None, offset=0):
        fn = type(self).__name__
        offset = checks.count(fn, "offset", offset)
        self._setup()
        n = self.generator_count
        if seed_getter is None:
            seeds = _random_seeds(n)
        elif not callable(seed_getter):
            raise TypeError(f"{fn}: seed_getter must be a callable that takes a count and "
                            f"returns an int32 GPUArray of seeds, got {type(seed_getter).__name__}")
        else:
            seeds = seed_getter(n)
        if isinstance(seeds, np.ndarray) and seeds.dtype == I32:
            from pycudac import gpuarray
            seeds = gpuarray.to_gpu(np.ascontiguousarray(seeds))
        checks.gpu_array(fn, "the array seed_getter returned", seeds, (I32,), size=n)
        self.offset = offset
        self._launch("init", seeds.ptr, offset)

    def call_skip_ahead_sequence(self, i, stream=None):
        """Skip i sequences (XORWOW: 2**67 draws each; MRG32k3a: 2**127)
        in every stream."""
        self._skip(self._SKIP_SEQUENCE, f"{type(self).__name__}.call_skip_ahead_sequence", i,
                   stream)

    def call_skip_ahead_sequence_array(self, i, stream=None):
        self._skip_array(self._SKIP_SEQUENCE,
                         f"{type(self).__name__}.call_skip_ahead_sequence_array", i, stream)


def _random_seeds(n):
    from pycudac import gpuarray
    return gpuarray.to_gpu(np.random.default_rng().integers(0, 2 ** 31 - 1, n, dtype=np.int32))


def seed_getter_uniform(n):
    """An int32 GPUArray of n copies of one random seed (PyCUDA's): the
    streams then differ by their subsequence only."""
    from pycudac import gpuarray
    n = checks.count("seed_getter_uniform", "n", n, 31)
    value = int(np.random.default_rng().integers(0, 2 ** 31 - 1))
    return gpuarray.to_gpu(np.full(n, value, dtype=np.int32))


def seed_getter_unique(n):
    """An int32 GPUArray of n random seeds (PyCUDA's)."""
    n = checks.count("seed_getter_unique", "n", n, 31)
    return _random_seeds(n)
