"""Random numbers the way PyCUDA code draws them, on pycudac: the generator
classes of pycuda.curandom, written as a PyCUDA user writes them, with
`pycuda` -> `pycudac` in the imports and nothing else changed. Each part
checks its answer against one known exactly.

  1. pi by Monte Carlo from XORWOW uniforms
  2. a European call option from MRG32k3a log-normal prices (Black-Scholes)
  3. an integral over [0, 1]^4 by scrambled Sobol points (quasi-Monte Carlo,
     far closer than the pseudo-random estimate)
  4. Poisson counts in place (each element's own mean)
  5. two generators agreeing after call_skip_ahead

Runs on the GPU, or on the CPU simulator where there is none.
"""
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isdir(os.path.join(ROOT, "pycudac")) and ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # the in-place build of this tree

import numpy as np  # noqa: E402

import pycudac.autoinit  # noqa: E402,F401
import pycudac.gpuarray as gpuarray  # noqa: E402
from pycudac.curandom import (  # noqa: E402
    MRG32k3aRandomNumberGenerator, ScrambledSobol32RandomNumberGenerator,
    XORWOWRandomNumberGenerator, get_curand_version, seed_getter_uniform, seed_getter_unique)

N = 1 << 20


def monte_carlo_pi():
    gen = XORWOWRandomNumberGenerator(seed_getter=seed_getter_unique)
    x = gen.gen_uniform(N, np.float32)
    y = gen.gen_uniform(N, np.float32)
    inside = gpuarray.sum((x * x + y * y <= 1).astype(np.float32)).get()
    pi = 4.0 * float(inside) / N
    err = 4 * math.sqrt(math.pi / 4 * (1 - math.pi / 4) / N)
    print(f"pi ~ {pi:.5f} (error {pi - math.pi:+.5f}, standard error {err:.5f})")
    assert abs(pi - math.pi) < 5 * err


def black_scholes_call(s0, k, r, sigma, t):
    def phi(x):
        return 0.5 * math.erfc(-x / math.sqrt(2))
    d1 = (math.log(s0 / k) + (r + sigma ** 2 / 2) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return s0 * phi(d1) - k * math.exp(-r * t) * phi(d2)


def option_price():
    s0, k, r, sigma, t = 100.0, 105.0, 0.03, 0.2, 1.0
    gen = MRG32k3aRandomNumberGenerator(seed_getter=seed_getter_uniform)
    mu = math.log(s0) + (r - sigma ** 2 / 2) * t
    st = gen.gen_log_normal(N, np.float64, mu, sigma * math.sqrt(t))
    payoff = gpuarray.maximum(st - k, 0.0) * math.exp(-r * t)
    price = float(gpuarray.sum(payoff).get()) / N
    spread = float(gpuarray.sum(payoff * payoff).get()) / N - price ** 2
    err = math.sqrt(spread / N)
    exact = black_scholes_call(s0, k, r, sigma, t)
    print(f"call price ~ {price:.4f} (Black-Scholes {exact:.4f}, standard error {err:.4f})")
    assert abs(price - exact) < 5 * err


def sobol_integral():
    gen = ScrambledSobol32RandomNumberGenerator()
    dims = gen.block_count * gen.generators_per_block       # one dimension per generator
    points = 4096
    x = gen.gen_uniform(points * dims, np.float64).get().reshape(points, dims)[:, :4]
    f = np.prod(1 + 0.5 * (x - 0.5) * 12 ** 0.5, axis=1)     # integral over [0, 1]^4: 1
    qmc = abs(f.mean() - 1)
    pseudo = XORWOWRandomNumberGenerator(seed_getter=seed_getter_unique)
    y = pseudo.gen_uniform(points * 4, np.float64).get().reshape(points, 4)
    mc = abs(np.prod(1 + 0.5 * (y - 0.5) * 12 ** 0.5, axis=1).mean() - 1)
    sd = math.sqrt((1 + 0.25) ** 4 - 1) / math.sqrt(points)
    print(f"integral error: Sobol {qmc:.2e}, pseudo-random {mc:.2e} (standard error {sd:.2e})")
    assert qmc < sd / 20


def poisson_counts():
    gen = XORWOWRandomNumberGenerator()
    rates = np.repeat(np.array([0.5, 7.0, 300.0], dtype=np.float32), 100000)
    counts = gpuarray.to_gpu(rates)
    gen.fill_poisson(counts)                  # each element drawn with its own mean
    c = counts.get()
    for lam in (0.5, 7.0, 300.0):
        sel = c[rates == lam]
        print(f"Poisson({lam}): mean {sel.mean():.3f}, variance {sel.var():.3f}")
        assert abs(sel.mean() - lam) < 5 * math.sqrt(lam / sel.size)
        assert abs(sel.var() / lam - 1) < 0.05


def skip_ahead():
    def seeds(n):
        return gpuarray.to_gpu(np.arange(n, dtype=np.int32))
    a = XORWOWRandomNumberGenerator(seeds)
    b = XORWOWRandomNumberGenerator(seeds)
    per_generator = 10
    a.gen_uniform(per_generator * a.block_count * a.generators_per_block, np.uint32)
    b.call_skip_ahead(per_generator)
    assert (a.gen_uniform(1000, np.uint32).get() == b.gen_uniform(1000, np.uint32).get()).all()
    print("call_skip_ahead(10) == drawing 10 from every generator")


def main():
    assert get_curand_version() >= (5, 0, 0)
    monte_carlo_pi()
    option_price()
    sobol_integral()
    poisson_counts()
    skip_ahead()
    print("random_numbers: all checks passed")


if __name__ == "__main__":
    main()
