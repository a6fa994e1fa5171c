"""pytest plugin for tools/pycuda_compat/thirdparty.py, loaded into the
third-party suite's own pytest run (-p thirdparty_plugin): applies
thirdparty_expect.py to the suite named by PYCUDAC_THIRDPARTY_SUITE and
writes the counts to PYCUDAC_THIRDPARTY_SUMMARY (JSON).

- A test expected to fail (EXPECT) must fail with an error matching its
  pattern: it is then counted `expected` (shown as xfail with the reason);
  a pass, or a failure of another kind, is a failure of the run.
- A test the simulator cannot run in reason (slow_on_sim: too slow there,
  or sized to a GPU's memory) is deselected there and counted `left out`
  with its reason; on a GPU it runs.
- With PYCUDAC_THIRDPARTY_QUICK=1 only QUICK's tests run; the others are
  counted `left out` ("not in the quick subset").
- Files in PYCUDAC_THIRDPARTY_SKIP_FILES ({path: reason}) are not
  collected; the reason is in the summary.
"""
import json
import os
import re

import pytest

from thirdparty_expect import SUITES

_EXPECT = pytest.StashKey()


def _backend():
    from pycudac import _driver
    return _driver.get_backend()


class _State:
    def __init__(self):
        name = os.environ.get("PYCUDAC_THIRDPARTY_SUITE", "")
        if name not in SUITES:
            raise pytest.UsageError(f"thirdparty_plugin: PYCUDAC_THIRDPARTY_SUITE must be one "
                                    f"of {sorted(SUITES)}, got {name!r}")
        self.suite = SUITES[name]
        self.backend = _backend()
        self.quick = os.environ.get("PYCUDAC_THIRDPARTY_QUICK") == "1"
        self.skip_files = json.loads(os.environ.get("PYCUDAC_THIRDPARTY_SKIP_FILES") or "{}")
        self.counts = {"passed": 0, "failed": 0, "expected": 0, "skipped": 0, "left_out": 0,
                       "skip_reasons": {}, "left_out_reasons": {}, "unexpected": [],
                       "missing": []}

    def left_out(self, reason, n=1):
        self.counts["left_out"] += n
        r = self.counts["left_out_reasons"]
        r[reason] = r.get(reason, 0) + n


_state = None


def _matches(patterns, nodeid):
    """The first (pattern, value) whose pattern (a regex) matches nodeid from its start."""
    for pattern, value in patterns.items():
        if re.match(pattern, nodeid):
            return pattern, value
    return None, None


def pytest_configure(config):
    global _state
    _state = _State()


def pytest_ignore_collect(collection_path, config):
    rel = os.path.relpath(str(collection_path), str(config.rootpath))
    why = _state.skip_files.get(rel)
    if why is not None:
        _state.left_out(f"{rel} not collected: {why}")
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    st = _state
    expect = {p: e for p, e in st.suite["expect"].items()
              if e.get("backends") is None or st.backend in e["backends"]}
    slow = st.suite["slow_on_sim"] if st.backend == "sim" else {}
    seen = set()
    keep, dropped = [], []
    for item in items:
        nodeid = item.nodeid
        # collected is seen, run or left out (the simulator leaves reikna's
        # performance tests out, whose expectations are for a GPU)
        expected_as, exp = _matches(expect, nodeid)
        if expected_as is not None:
            seen.add(expected_as)
        if st.quick and not any(re.match(p, nodeid) for p in st.suite["quick"]):
            st.left_out("not in the quick subset (make test-thirdparty runs them)")
            dropped.append(item)
            continue
        pattern, why = _matches(slow, nodeid)
        if pattern is None and st.backend == "sim":
            why = next((w for m, w in st.suite["slow_markers"].items()
                        if item.get_closest_marker(m) is not None), None)
            pattern = why and "marker"
        if pattern is not None:
            st.left_out(f"left out on the simulator: {why}")
            dropped.append(item)
            continue
        if exp is not None:
            item.stash[_EXPECT] = exp
        keep.append(item)
    if not st.quick:
        st.counts["missing"] = sorted(set(expect) - seen)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    exp = item.stash.get(_EXPECT, None)
    if exp is None:
        return
    if rep.failed and call.excinfo is not None:
        e = call.excinfo
        text = f"{e.type.__name__}: {e.value}"
        if re.search(exp["error"], text, re.S):
            rep.outcome = "skipped"
            rep.wasxfail = exp["why"]
        else:
            rep.longrepr = (f"{rep.longrepr}\n\nthirdparty_expect: expected to fail with "
                            f"/{exp['error']}/ ({exp['why']}), failed with: {text[:500]}")
    elif rep.when == "call" and rep.passed:
        rep.outcome = "failed"
        rep.longrepr = (f"thirdparty_expect: expected to fail with /{exp['error']}/ "
                        f"({exp['why']}), but it passed: take it out of the table")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """The suites draw their inputs from unseeded generators (grunnur's
    numpy.random.default_rng(), reikna's numpy.random.*): a test that checks
    single-precision results with a relative tolerance then passes or fails
    by the draw. Each test gets generators seeded from its node id, so that a
    run repeats exactly (on the simulator and on a GPU)."""
    import zlib

    import numpy
    seed = zlib.crc32(item.nodeid.encode())
    real = numpy.random.default_rng

    def default_rng(*args, **kwargs):
        if not args and kwargs.get("seed") is None:
            kwargs["seed"] = seed
        return real(*args, **kwargs)

    state = numpy.random.get_state()
    numpy.random.seed(seed)
    numpy.random.default_rng = default_rng
    try:
        yield
    finally:
        numpy.random.default_rng = real
        numpy.random.set_state(state)


def pytest_collectreport(report):
    if report.failed:
        _state.counts["failed"] += 1
        _state.counts["unexpected"].append(f"{report.nodeid} (collection error)")


def pytest_runtest_logreport(report):
    c = _state.counts
    if report.failed:
        c["failed"] += 1
        c["unexpected"].append(report.nodeid)
    elif report.skipped and getattr(report, "wasxfail", None) is not None:
        c["expected"] += 1
    elif report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        c["skipped"] += 1
        c["skip_reasons"][reason] = c["skip_reasons"].get(reason, 0) + 1
    elif report.when == "call" and report.passed:
        c["passed"] += 1


def pytest_sessionfinish(session):
    path = os.environ.get("PYCUDAC_THIRDPARTY_SUMMARY")
    if path:
        c = _state.counts
        # a test that failed in its call and again in its teardown counts once
        c["unexpected"] = sorted(set(c["unexpected"]))
        c["failed"] = len(c["unexpected"])
        with open(path, "w") as f:
            json.dump(c, f)
