"""16 · Monte Carlo: estimating pi with random numbers made on the device.

Throw n random points into the unit square; the fraction that lands
inside the quarter circle x^2 + y^2 < 1 approaches pi/4. The random
numbers come from pycudac.curandom (the Philox counter-based generator,
the same stream on the GPU and on the simulator for a given seed); a
ReductionKernel counts the hits in one pass without storing the test of
each point. The error shrinks like 1/sqrt(n).
"""
import math
import sys

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv
from pycudac import curandom
from pycudac.reduction import ReductionKernel

count_inside = ReductionKernel(
    np.int64, neutral="0", reduce_expr="a+b",
    map_expr="(x[i]*x[i] + y[i]*y[i] < 1.0f) ? 1 : 0",
    arguments="const float *x, const float *y")

gen = curandom.PhiloxGenerator(seed=2024)
ok = True
for n in (10_000, 100_000, 1_000_000):
    x = gen.gen_uniform(n, np.float32)
    y = gen.gen_uniform(n, np.float32)
    hits = int(count_inside(x, y).get())
    estimate = 4.0 * hits / n
    sigma = 4.0 * math.sqrt((math.pi / 4) * (1 - math.pi / 4) / n)   # one standard deviation
    print(f"n = {n:>9,}: pi ~ {estimate:.5f}   error {estimate - math.pi:+.5f}   "
          f"(one sigma: {sigma:.5f})")
    ok &= abs(estimate - math.pi) < 5 * sigma
    xs = x.get()
    ok &= bool(xs.min() >= 0.0 and xs.max() < 1.0)
print(f"backend: {drv.get_backend()}")
sys.exit(0 if ok else 1)
