"""Run the test suites of four libraries built on PyCUDA, grunnur, reikna,
compyle and cuvarbase, against pycudac through the `pycuda` -> `pycudac`
alias: `make
test-thirdparty` (the whole suites, on the simulator by default),
`make test-pycuda` (--quick, a subset of about a minute) and gpu-check's
`thirdparty` stage on the GPU.

    python tools/pycuda_compat/thirdparty.py [--dist DIR] [--quick] [-v]
                              [--suite grunnur|reikna|compyle|cuvarbase] [pytest args]

Their sdists (pinned, with their SHA-256) and those of what they import
that pycudac's environment lacks (Mako and MarkupSafe for the kernels'
templates, funcsigs for reikna, pytest-grunnur for grunnur's options,
six and Cython, which compyle imports whatever its backend) are
fetched from PyPI by pip into build/thirdparty/dist, never committed; the
packages are unpacked into build/thirdparty/site (their pure-Python
packages, put on PYTHONPATH: no build, no install into any environment).
Offline (the GPU machine) give the folder of the downloaded files:
--dist DIR or PYCUDAC_THIRDPARTY_DIST=DIR (gpu-check carries
build/thirdparty/dist). reikna's test_cbrng.py needs SciPy: when the
interpreter lacks it, a SciPy wheel is installed into build/thirdparty/
from PyPI or from a wheel in the dist folder; where neither is there, that
file is left out with the reason said. compyle's CUDA backend imports its
thrust sort, a Cython extension that its setup.py builds with nvcc: the
unpacked tree gets a module of that name (SHIMS) whose argsort raises, and
the three tests that sort are expected failures.

Each suite runs with the CUDA API selected (grunnur: pytest-grunnur's
--api cuda; reikna: its own conftest's --api cuda; compyle: the tests
whose names say cuda), so that every test parametrized by a device runs on
pycudac's; grunnur's tests of its own mock PyCUDA run too (they are quick). On the simulator PYCUDAC_SIM_DEVICES=2
gives grunnur's multi-device tests their two devices.

thirdparty_expect.py says what fails on purpose and why, and what is too
slow for the simulator; any other failure, an expected failure that passes,
or an expected one that never ran, fails the run (exit 1). The last lines
give each suite's counts: passed, failed, expected (failed as expected),
skipped (each reason listed), left out (on the simulator: too slow, or sized
to a GPU's memory; each reason listed).
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BASE = os.path.join(ROOT, "build", "thirdparty")
sys.path.insert(0, HERE)
from thirdparty_expect import SUITES  # noqa: E402

# (distribution, version, SHA-256 of its sdist, [(folder in the sdist, name in site/)])
PINS = [
    ("grunnur", "0.6.0", "2736168585c8935018630efc7ea3cf0f15b2beab698e24c1bfdfb4990c02f446",
     [("grunnur", "grunnur")]),
    ("pytest-grunnur", "0.3.0",
     "c3e6bde251157dfd1566eb0aaf1838a9d1567d24ec4ef9d67dd17f37fedd2e21",
     [("pytest_grunnur", "pytest_grunnur")]),
    ("reikna", "0.9.0", "bb322818290820d8263beaf4bc0ce68a14b5e065afe7281a90ccf7b4a206df30",
     [("reikna", "reikna")]),
    ("mako", "1.4.3", "cd6537fe88d5fec315c55c2f8529bc4ce7a9a352ad7db3eeaa6a66e2dd4ec37a",
     [("mako", "mako")]),
    ("markupsafe", "3.0.4", "2e9ad7dd851bf45fab9f75cbff4cb493fee9979e8d8c7c9c3ee119022518edd6",
     [("src/markupsafe", "markupsafe")]),
    ("funcsigs", "1.0.2", "a7bb0f2cf3a3fd1ab2732cb49eba4252c2af4240442415b4abce3b87022a8f50",
     [("funcsigs", "funcsigs")]),
    ("compyle", "0.9.1", "121095845ec249f3df7079dce3f2f2ad9ea1b64c632b86ee6c5e2f588ebb28e9",
     [("compyle", "compyle")]),
    ("six", "1.17.0", "ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81",
     [("six.py", "six.py")]),
    # pure Python from its sdist: compyle imports Cython's compiler module by module
    ("cython", "3.3.1", "e0e45989e821bef6aa9ae15c7d583ab5e055f7406c4b3624e49e06d24e90375a",
     [("Cython", "Cython"), ("pyximport", "pyximport"), ("cython.py", "cython.py")]),
    ("cuvarbase", "0.2.5", "d6f5252d1991825c0430ac6c5934e255e7bda15a58431a653e1b97d3c1cd10a0",
     [("cuvarbase", "cuvarbase")]),
]

# {dist: {path in its unpacked sdist: text}}, written before the packages are
# copied: what a package's own build would have made and this one cannot
SHIMS = {
    "compyle": {"compyle/thrust/sort.py": (
        '"""Written by pycudac\'s tools/pycuda_compat/thirdparty.py: compyle\'s\n'
        'thrust sort is a Cython extension its setup.py builds with nvcc, which\n'
        'this unpacked sdist has not."""\n\n\n'
        'def argsort(*args, **kwargs):\n'
        '    raise NotImplementedError("compyle.thrust.sort.argsort: compyle\'s nvcc-built "\n'
        '                              "extension, not built here")\n')},
}
SCIPY = "scipy"  # any version whose wheel fits the interpreter


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _sdist_in(folder, dist, version):
    """The sdist of dist==version in folder (pip keeps the uploaded name:
    `pytest-grunnur-0.3.0.tar.gz` or `pytest_grunnur-0.3.0.tar.gz`)."""
    want = dist.replace("-", "_").lower() + "-" + version + ".tar.gz"
    for path in glob.glob(os.path.join(folder, "*.tar.gz")):
        if os.path.basename(path).replace("-", "_").lower().replace("_" + version, "-" + version) \
                == want:
            return path
    return None


def fetch(dist_dir, offline):
    """Every pinned sdist in dist_dir (downloaded by pip unless offline),
    checked; returns {dist: path} or raises SystemExit with the reason."""
    os.makedirs(dist_dir, exist_ok=True)
    paths = {}
    for dist, version, digest, _ in PINS:
        path = _sdist_in(dist_dir, dist, version)
        if path is None and not offline:
            r = subprocess.run([sys.executable, "-m", "pip", "download", "-q",
                                "--disable-pip-version-check", "--no-deps",
                                # (this one dist from source: ":all:" would build
                                # its build requirements from source too)
                                "--no-binary", dist, f"{dist}=={version}", "-d", dist_dir],
                               capture_output=True, text=True)
            path = _sdist_in(dist_dir, dist, version)
            if path is None:
                raise SystemExit(f"thirdparty: pip could not download {dist}=={version} into "
                                 f"{dist_dir} (offline? give the downloaded sdists with --dist "
                                 f"DIR or PYCUDAC_THIRDPARTY_DIST):\n{r.stderr[-2000:]}")
        if path is None:
            raise SystemExit(f"thirdparty: {dist}-{version}.tar.gz is not in {dist_dir} "
                             f"(download it where PyPI is reached: make test-thirdparty, or "
                             f"pip download --no-deps --no-binary :all: {dist}=={version})")
        got = _sha256(path)
        if got != digest:
            raise SystemExit(f"thirdparty: {path}: sha256 {got}, expected {digest}")
        paths[dist] = path
    return paths


def unpack(paths, base):
    """The sdists unpacked under base/src and their packages copied into
    base/site (once per set of digests). Returns (site, {dist: source tree})."""
    src, site = os.path.join(base, "src"), os.path.join(base, "site")
    stamp = os.path.join(site, ".pins")
    want = "\n".join(f"{d} {v} {h}" for d, v, h, _ in PINS) + repr(SHIMS)
    trees = {}
    for dist, version, _, _ in PINS:
        with tarfile.open(paths[dist]) as t:
            top = t.getnames()[0].split("/")[0]
        trees[dist] = os.path.join(src, top)
    if os.path.exists(stamp) and open(stamp).read() == want and \
            all(os.path.isdir(t) for t in trees.values()):
        return site, trees
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(site, ignore_errors=True)
    os.makedirs(src)
    os.makedirs(site)
    for dist, version, _, packages in PINS:
        with tarfile.open(paths[dist]) as t:
            t.extractall(src, filter="data") if hasattr(tarfile, "data_filter") \
                else t.extractall(src)
        for path, text in SHIMS.get(dist, {}).items():
            with open(os.path.join(trees[dist], path), "w") as f:
                f.write(text)
        for inner, name in packages:
            copy = shutil.copytree if os.path.isdir(os.path.join(trees[dist], inner)) \
                else shutil.copy2
            copy(os.path.join(trees[dist], inner), os.path.join(site, name))
    with open(stamp, "w") as f:
        f.write(want)
    return site, trees


def scipy_path(dist_dir, base, offline):
    """(a folder to put on PYTHONPATH or None, why SciPy is missing or None)."""
    probe = subprocess.run([sys.executable, "-c", "import scipy.special"], capture_output=True)
    if probe.returncode == 0:
        return None, None
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    target = os.path.join(base, f"scipy-{tag}")
    if os.path.isdir(os.path.join(target, "scipy")):
        return target, None
    src = ["--no-index", "--find-links", dist_dir] if offline else ["--find-links", dist_dir]
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        r = subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                            "--disable-pip-version-check", "--no-deps", "--only-binary", ":all:",
                            "--target", tmp, *src, SCIPY], capture_output=True, text=True)
        if r.returncode != 0:
            return None, (f"needs SciPy (scipy.special.iv, its von Mises reference), which "
                          f"this {tag} interpreter lacks and pip could not install"
                          + (" from the dist folder" if offline else ""))
        os.replace(tmp, target)
        os.makedirs(tmp)  # for TemporaryDirectory's cleanup
    return target, None


def run_suite(name, tree, site, extra_path, args, backend):
    suite = SUITES[name]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (HERE, site, extra_path, ROOT, env.get("PYTHONPATH")) if p)
    if backend == "sim":
        env.setdefault("PYCUDAC_SIM_DEVICES", "2")
        for k, v in suite.get("sim_env", {}).items():
            env.setdefault(k, v)
    with tempfile.NamedTemporaryFile("r", suffix=".json", delete=False) as f:
        summary = f.name
    env["PYCUDAC_THIRDPARTY_SUITE"] = name
    env["PYCUDAC_THIRDPARTY_SUMMARY"] = summary
    env["PYCUDAC_THIRDPARTY_QUICK"] = "1" if args.quick else ""
    env["PYCUDAC_THIRDPARTY_SKIP_FILES"] = json.dumps(
        {**suite.get("skip_files", {}), **args.skip_files.get(name, {})})
    # a package with no pytest configuration of its own (compyle) would get
    # the first one above it, this project's, warnings as errors and all
    own = [] if suite.get("has_config", True) else \
        ["-c", os.path.join(HERE, "pytest.ini"), "--rootdir", tree]
    cmd = [sys.executable, "-m", "pytest", "-p", "pycuda_alias", "-p", "thirdparty_plugin",
           "-p", "no:cacheprovider", *own, *suite["args"], *args.pytest_args, suite["tests"]]
    if not any(a.startswith("-q") or a.startswith("-v") for a in args.pytest_args):
        cmd.insert(cmd.index("-p"), "-q")
    t0 = time.perf_counter()
    rc = subprocess.run(cmd, cwd=tree, env=env).returncode
    secs = time.perf_counter() - t0
    try:
        with open(summary) as f:
            counts = json.load(f)
    except (OSError, ValueError):
        counts = None
    finally:
        os.unlink(summary)
    return rc, counts, secs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dist", default=os.environ.get("PYCUDAC_THIRDPARTY_DIST"),
                    help="folder of the downloaded sdists (default: build/thirdparty/dist, "
                         "filled by pip); given, nothing is downloaded")
    ap.add_argument("--quick", action="store_true",
                    help="the subset of thirdparty_expect.QUICK (make test-pycuda, ~1 minute)")
    ap.add_argument("--suite", action="append", choices=sorted(SUITES),
                    help="run only this suite (repeatable)")
    args, rest = ap.parse_known_args(argv)
    args.pytest_args = rest
    offline = args.dist is not None
    dist_dir = os.path.abspath(args.dist or os.path.join(BASE, "dist"))
    os.makedirs(BASE, exist_ok=True)
    paths = fetch(dist_dir, offline)
    site, trees = unpack(paths, BASE)
    sys.path.insert(0, ROOT)
    from pycudac import driver
    backend = os.environ.get("PYCUDAC_BACKEND") or driver.get_backend()
    names = args.suite or list(SUITES)
    args.skip_files = {}
    extra = None
    if "reikna" in names:
        # --quick runs no test of test_cbrng.py: SciPy is not installed for it
        extra, why = scipy_path(dist_dir, BASE, offline or args.quick)
        if why:
            args.skip_files["reikna"] = {"test/test_cbrng/test_cbrng.py": why}
    results = {}
    for name in names:
        tree = trees[SUITES[name]["dist"]]
        print(f"==== {name} {SUITES[name]['version']}: its tests on pycudac ({backend}), "
              f"in {tree}", flush=True)
        results[name] = run_suite(name, tree, site, extra, args, backend)
    bad = False
    print(f"\n==== third-party suites on pycudac ({backend}{', quick' if args.quick else ''})")
    for name, (rc, c, secs) in results.items():
        if c is None:
            print(f"  {name}: pytest exited {rc} without a summary (a collection error?)")
            bad = True
            continue
        for reason, n in sorted(c["skip_reasons"].items()):
            print(f"  {name}: skipped {n}: {reason}")
        for reason, n in sorted(c["left_out_reasons"].items()):
            print(f"  {name}: left out {n}: {reason}")
        for nodeid in c["unexpected"]:
            print(f"  {name}: UNEXPECTED {nodeid}")
        for nodeid in c["missing"]:
            print(f"  {name}: UNEXPECTED: expected to fail, not collected: {nodeid}")
        line = (f"{c['passed']} passed, {c['failed']} failed, {c['expected']} expected, "
                f"{c['skipped']} skipped, {c['left_out']} left out")
        print(f"  {name}: {line} ({secs:.0f} s)")
        bad |= bool(rc not in (0, 5) or c["failed"] or c["unexpected"] or c["missing"])
        bad |= c["passed"] + c["expected"] == 0
    print("thirdparty: " + ("UNEXPECTED results (above)" if bad else "all as expected"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
