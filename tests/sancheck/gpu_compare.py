"""The planted defects of tests/sancheck/planted.cu under NVIDIA's
compute-sanitizer on a GPU: the comparison issue 22 asks for. Each case of
planted_cases.py runs in its own child (this script with --case, on the cuda
backend) under the case's tool (memcheck, racecheck, initcheck, synccheck);
the sanitizer's summary must count an error in a planted case, in its
kernel, and none in a clean one. The simulator's check mode reports the same
cases in tests/test_sim_check.py; together they show both tools agree.

    python3 tests/sancheck/gpu_compare.py                 # every case
    python3 tests/sancheck/gpu_compare.py --cases far_write,reduce_fixed
    python3 tests/sancheck/gpu_compare.py --dry-run       # the commands only

Exit status: 0 when every case agrees (or, with a note, when no
compute-sanitizer is found: nothing to compare); 1 when a case disagrees or
its summary cannot be read. bench/gpu_check.sh runs it as the stage
sanitizer_planted. Cases marked gpu_reports=False (a simulator limit, such
as a 64 KiB local array) are expected clean on the GPU.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import planted_cases as planted  # noqa: E402

# What each tool's last lines say (compute-sanitizer's summaries).
_ERRORS = re.compile(r"ERROR SUMMARY:\s+(\d+)\s+error")
_HAZARDS = re.compile(r"RACECHECK SUMMARY:\s+(\d+)\s+hazard")


def find_sanitizer(given=None):
    """compute-sanitizer's path, or None."""
    if given:
        return given if os.path.exists(given) else None
    return shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer",) if os.path.exists(p)), None)


def command(sanitizer, case):
    """The sanitizer's command line for one case. API errors are left out:
    a launch that faulted makes the calls after it fail, which says nothing
    about the kernel."""
    return [sanitizer, "--tool", case.tool, "--report-api-errors", "no",
            sys.executable, os.path.abspath(__file__), "--case", case.name]


def expected_report(case):
    """Whether a GPU's sanitizer should report this case."""
    return not case.clean and case.gpu_reports


def count(tool, output):
    """The errors (racecheck: hazards) the sanitizer's summary counts, or
    None when it has no summary (it did not run through)."""
    m = (_HAZARDS if tool == "racecheck" else _ERRORS).findall(output)
    return int(m[-1]) if m else None


def judge(case, output):
    """(agrees, what was seen) for one case's sanitizer output."""
    n = count(case.tool, output)
    if n is None:
        return False, "no summary line (the sanitizer or the child failed)"
    if not expected_report(case):
        return n == 0, f"{n} reported, none expected"
    if n == 0:
        return False, f"nothing reported; the simulator reports {case.check} {case.kind or ''}"
    lines = [ln for ln in case.lines if re.search(rf"kernel\.cu:{ln}\b", output)]
    # the kernel, or a planted line: an access in a __device__ function the
    # kernel calls is reported under that function's name (the H100's
    # racecheck named warp_reduce_volatile, called by reduce_warp_volatile)
    if case.kernel not in output and not lines:
        return False, f"{n} reported, none naming kernel '{case.kernel}' or a planted line"
    where = f", at line {lines[0]} as the simulator" if lines else ""
    return True, f"{n} reported in '{case.kernel}'{where}"


def run_case(name):
    """The child: one case on the GPU (the sanitizer watches). A launch that
    faults raises here; that is the sanitizer's to report, not ours."""
    os.environ["PYCUDAC_BACKEND"] = "cuda"
    sys.path.insert(0, ROOT)
    import pycudac.autoinit  # noqa: F401
    import pycudac.driver as drv
    from pycudac.compiler import SourceModule
    case = planted.BY_NAME[name]
    mod = SourceModule(planted.source(), options=["-lineinfo"])
    try:
        case.run(mod, drv, case.kernel)
        drv.Context.synchronize()
    except drv.Error as exc:
        print(f"child: {case.name}: {type(exc).__name__}: {str(exc)[:200]}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sanitizer", help="compute-sanitizer's path (default: PATH, "
                    "/usr/local/cuda/bin)")
    ap.add_argument("--cases", help="comma list of case names (default: all)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per case (60)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--list", action="store_true", help="list the cases and what is expected")
    ap.add_argument("--case", help=argparse.SUPPRESS)  # the child
    a = ap.parse_args(argv)
    if a.case:
        return run_case(a.case)
    cases = planted.CASES
    if a.cases:
        unknown = [n for n in a.cases.split(",") if n not in planted.BY_NAME]
        if unknown:
            ap.error(f"unknown case(s) {', '.join(unknown)}; known: "
                     f"{', '.join(planted.BY_NAME)}")
        cases = [planted.BY_NAME[n] for n in a.cases.split(",")]
    if a.list:
        for c in cases:
            print(f"{c.name:24} {c.tool:10} {'report' if expected_report(c) else 'clean'}")
        return 0
    san = find_sanitizer(a.sanitizer)
    if a.dry_run:
        for c in cases:
            print(" ".join(command(san or "compute-sanitizer", c)))
        return 0
    if san is None:
        print("gpu_compare: compute-sanitizer not found: nothing compared (skipped)")
        return 0
    bad = 0
    for c in cases:
        try:
            r = subprocess.run(command(san, c), capture_output=True, text=True,
                               timeout=a.timeout, cwd=ROOT)
            out = r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            out = ""
        ok, seen = judge(c, out)
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {c.name:24} {c.tool:10} {seen}")
        if not ok and out:
            print("     | " + "\n     | ".join(out.strip().splitlines()[-12:]))
    print(f"gpu_compare: {len(cases) - bad} of {len(cases)} cases agree with the simulator")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
