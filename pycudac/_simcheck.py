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
"""
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
        return self

    def __exit__(self, *exc):
        try:
            self.reports = _driver._sim_check_reports(since=self._since)
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
    return any(c in checks for c in ("memcheck", "racecheck", "initcheck"))
