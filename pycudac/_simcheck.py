"""The CPU simulator as a sanitizer: pycudac.driver.sim_check and check_report.

Check mode runs every kernel compiled under it with its memory accesses
checked, as NVIDIA's compute-sanitizer does on a GPU:

- memcheck: out-of-bounds and misaligned accesses to global, shared and
  local memory, before or after an allocation, near or far; use after
  free; a simulated thread's stack overflow;
- racecheck: shared and global memory hazards between threads of a block
  in one barrier interval (read-after-write, write-after-read,
  write-after-write), and warp-synchronous code that relies on lockstep
  without __syncwarp() (the classic volatile reduction);
- initcheck: reads of device memory nothing wrote (no copy, memset or
  kernel store);
- synccheck: barriers not every thread of the block reaches.

Turn it on with the environment (``PYCUDAC_SIM_CHECK=memcheck,racecheck``,
``all``) or around some code::

    with drv.sim_check("memcheck,racecheck") as chk:
        kernel(out, block=(256, 1, 1))
    print(chk.reports)

A launch whose checks found an error raises ``CheckError`` (a LaunchError)
with the first report; it is not sticky: the checks stop a bad access
before it happens, so the process stays usable. ``check_report()`` returns
every report made since it was last cleared, as dicts (tool, kind, space,
kernel, file, line, block, thread, address, size, is_write, other,
alloc_base, alloc_size, offset, alloc_kind, count, error, message).

``schedule`` (``PYCUDAC_SIM_SCHEDULE``) reorders the threads of a block
between barriers — ``"reverse"`` or ``"random:SEED"`` — so a missing
barrier shows as a different result.

Modules compiled while a check needing instrumentation is on are built
instrumented (another cache entry); a module compiled before is not
checked (synccheck and the schedule still apply to it).

``profile`` (with the checks or alone: ``sim_check("profile")``,
``PYCUDAC_SIM_CHECK=profile``) is the teaching profile, not a check: per
memory instruction of the kernels launched, what a warp's request would
cost on a GPU — for global memory the 32-byte sectors it touched against
the fewest its bytes need (coalescing), for shared memory how many ways its
lanes conflict on the 32 four-byte banks. ``sim_check(...).profile`` and
``sim_profile()`` give it as a ``Profile``: a list of ``ProfileRow`` that
prints as a table with each instruction's source line. With the
environment variable the table is printed to stderr at exit. On a GPU,
NVIDIA Nsight Compute measures the same (``sim_profile`` raises LogicError
there).
"""
import atexit
import dataclasses
import os
import sys

from pycudac import _driver

_ALL = "memcheck,racecheck,initcheck,synccheck"


class sim_check:
    """Context manager (and decorator-free switch) for the simulator's check
    mode: ``checks`` as PYCUDAC_SIM_CHECK takes them (``"all"``, or a comma
    list of memcheck, racecheck, initcheck, synccheck), ``schedule`` as
    PYCUDAC_SIM_SCHEDULE (None: keep the one in use), ``raise_errors``
    whether a launch with errors raises CheckError (else the reports are
    only collected). On exit the previous settings come back and
    ``.reports`` holds the reports made inside."""

    def __init__(self, checks=_ALL, schedule=None, raise_errors=True):
        if not isinstance(checks, str):
            if any(not isinstance(c, str) for c in checks):
                raise TypeError("sim_check(checks): a str like 'memcheck,racecheck' or a list "
                                "of such names")
            checks = ",".join(checks)
        if schedule is not None and not isinstance(schedule, str):
            raise TypeError("sim_check(schedule): 'forward', 'reverse' or 'random:SEED'")
        self.checks = checks
        self.schedule = schedule
        self.raise_errors = bool(raise_errors)
        self.reports = []
        self.profile = Profile()
        self._saved = None
        self._since = None

    def __enter__(self):
        saved = _driver._sim_check_config()
        schedule = saved[1] if self.schedule is None else self.schedule
        _driver._sim_check_configure(self.checks, schedule, self.raise_errors)
        self._saved = saved
        _state["instrumented"] = _needs_instrumentation(_driver._sim_check_config()[0])
        reports = _driver._sim_check_reports()
        self._since = reports[-1]["serial"] + 1 if reports else 0
        if _wants_profile(self.checks):
            _driver._sim_profile_rows(clear=True)  # the profile of what runs inside
        return self

    def __exit__(self, *exc):
        try:
            self.reports = _driver._sim_check_reports(since=self._since)
            if _wants_profile(self.checks):
                self.profile = sim_profile(clear=True)
        finally:
            _driver._sim_check_configure(*self._saved)
            _state["instrumented"] = _needs_instrumentation(self._saved[0])
        return False


def check_report(clear=False):
    """Every report of the simulator's check mode since the last clear,
    oldest first, as dicts; ``clear=True`` forgets them after."""
    return _driver._sim_check_reports(clear=bool(clear))


_state = {"instrumented": None}  # None: not read from the backend yet


def _instrumented():
    """Whether sim compiles now are built for check mode (memcheck, racecheck
    or initcheck on): a part of the compile's options and of the memo's key.
    Read from the backend once (PYCUDAC_SIM_CHECK), then kept by sim_check."""
    flag = _state["instrumented"]
    if flag is None:
        try:
            flag = _needs_instrumentation(_driver._sim_check_config()[0])
        except Exception:  # no backend yet: ask again next time
            return False
        _state["instrumented"] = flag
    return flag


def _needs_instrumentation(checks):
    return any(c in checks for c in ("memcheck", "racecheck", "initcheck", "profile"))


def _wants_profile(checks):
    return "profile" in [c.strip() for c in checks.split(",")]


# ---- the teaching profile ----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ProfileRow:
    """One memory instruction (a source line, a space, load or store) over
    every time a warp ran it. ``requests``: warp executions; ``lanes``: lane
    accesses in them; global memory: ``sectors`` the requests touched and
    ``ideal_sectors`` the fewest their bytes need; shared memory:
    ``conflict_ways`` summed over the requests (1 a request: no conflict)
    and the worst one. ``dropped``: lane accesses not counted (a block
    keeps at most 32768 warp requests for the profile; a block that makes
    more is counted in part, and says so)."""
    kernel: str
    file: str
    line: int
    space: str
    is_write: bool
    size: int
    requests: int
    lanes: int
    sectors: int
    ideal_sectors: int
    conflict_ways: int
    max_conflict_ways: int
    dropped: int = 0

    @property
    def sectors_per_request(self):
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def ideal_sectors_per_request(self):
        return self.ideal_sectors / self.requests if self.requests else 0.0

    @property
    def ways_per_request(self):
        return self.conflict_ways / self.requests if self.requests else 0.0

    @property
    def cost(self):
        """How many times the ideal this instruction costs: sectors over the
        fewest (global), conflict ways (shared)."""
        if self.space == "shared":
            return self.ways_per_request
        return self.sectors / self.ideal_sectors if self.ideal_sectors else 1.0


class Profile(list):
    """The teaching profile's rows (ProfileRow), in source order; str() is
    the table."""

    def __str__(self):
        return format_profile(self)


_HEAD = ("kernel", "source", "space", "op", "bytes", "requests", "sectors/req", "ideal",
         "bank ways/req", "max ways", "cost")


def format_profile(rows):
    """The rows as a table: per instruction its source line, the sectors a
    warp's request touched against the fewest (global) or its bank
    conflict ways (shared), and how many times the ideal it costs."""
    if not rows:
        return "(no memory instruction profiled: was the kernel compiled inside " \
               "sim_check('profile') or with PYCUDAC_SIM_CHECK=profile?)"
    body = []
    for r in rows:
        shared = r.space == "shared"
        body.append((r.kernel, f"{r.file}:{r.line}", r.space, "store" if r.is_write else "load",
                     str(r.size), str(r.requests),
                     "" if shared else f"{r.sectors_per_request:.1f}",
                     "" if shared else f"{r.ideal_sectors_per_request:.1f}",
                     f"{r.ways_per_request:.1f}" if shared else "",
                     str(r.max_conflict_ways) if shared else "",
                     f"{r.cost:.1f}x"))
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(_HEAD)]
    left = 4  # kernel, source, space, op: left-aligned; numbers right
    def fmt(cells):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    table = "\n".join([fmt(_HEAD)] + [fmt(b) for b in body])
    dropped = sum(r.dropped for r in rows)
    if dropped:
        table += (f"\n({dropped} lane accesses not counted: a block made more warp requests "
                  "than the profile keeps; launch fewer or smaller blocks to see them all)")
    return table


def sim_profile(clear=False):
    """The teaching profile of the launches since it was last cleared
    (``clear=True`` forgets it after), as a Profile. Only kernels built
    with profile on (``sim_check("profile")``, ``PYCUDAC_SIM_CHECK=profile``)
    and launched with it on are profiled. On a GPU backend: LogicError
    (use NVIDIA Nsight Compute there)."""
    return Profile(ProfileRow(**d) for d in _driver._sim_profile_rows(clear=bool(clear)))


def _print_at_exit():
    try:
        rows = sim_profile()
    except Exception:  # no backend was loaded, or a GPU one
        return
    if rows:
        print("pycudac teaching profile (PYCUDAC_SIM_CHECK=profile):\n" + str(rows),
              file=sys.stderr)


if _wants_profile(os.environ.get("PYCUDAC_SIM_CHECK", "")):
    atexit.register(_print_at_exit)
