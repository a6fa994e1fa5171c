"""`python -m pycudac`: what pycudac sees on this machine.

    python -m pycudac                 driver, devices, backend, NVRTC, cache
    python -m pycudac cache stats     what the compile cache holds
    python -m pycudac cache clear     empty the compile cache
    python -m pycudac cache path      print the cache directory
"""
import sys


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return f"{n} B"


def _version_text(v):
    return f"{v // 1000}.{(v % 1000) // 10} ({v})"


def _compiler():
    try:
        from pycudac import compiler
        return compiler
    except Exception:  # H2's module missing or broken: report, don't die
        return None


def _sim_compiler():
    """The C++ compiler the simulator builds kernels with, and its version."""
    import shutil
    import subprocess
    from pycudac import _driver
    try:
        identity = _driver.compiler_info("sim")["identity"]
    except Exception as exc:  # no C++ compiler: the simulator cannot compile
        return f"not usable: {exc}"
    path = identity.split(" size=")[0]
    exe = path.split(" (")[0]
    version = ""
    if shutil.which(exe):
        try:
            out = subprocess.run([exe, "--version"], capture_output=True, text=True,
                                 timeout=10).stdout
            version = out.splitlines()[0].strip() if out else ""
        except (OSError, subprocess.SubprocessError):
            pass
    return f"{path}{', ' + version if version else ''} ($CXX chooses another)"


def info():
    import pycudac
    from pycudac import _driver, driver

    print(f"pycudac {pycudac.__version__}")
    ok = True
    try:
        backend = driver.get_backend()
        if backend == "sim":
            print("backend: sim (the CPU simulator; no GPU and no NVIDIA driver are used)")
            # the simulator answers cuDriverGetVersion with the CUDA API it
            # implements; it is not a driver installed on this machine
            print(f"driver: none (the simulator implements the CUDA "
                  f"{_version_text(driver.get_driver_version()).split()[0]} driver API)")
            print(f"simulator compiler: {_sim_compiler()}")
        else:
            print(f"backend: {backend}")
            print(f"driver: CUDA {_version_text(driver.get_driver_version())}")
        n = driver.Device.count()
        print(f"devices: {n}")
        for i in range(n):
            dev = driver.Device(i)
            major, minor = dev.compute_capability()
            print(f"  [{i}] {dev.name()}  compute capability {major}.{minor}  "
                  f"memory {_fmt_bytes(dev.total_memory())}  pci {dev.pci_bus_id()}")
    except driver.Error as exc:
        ok = False
        print(f"driver: not usable: {exc}")
    try:
        path = _driver._nvrtc_path()
        version = ""
        if hasattr(_driver, "nvrtc_version"):
            try:
                major, minor = _driver.nvrtc_version()
                version = f"{major}.{minor} "
            except Exception:
                pass
        print(f"nvrtc: {version}({path})")
    except Exception as exc:
        print(f"nvrtc: not found: {exc}")
    comp = _compiler()
    if comp is not None and hasattr(comp, "cache_path"):
        print(f"cache: {comp.cache_path()}")
    return 0 if ok else 1


def cache_command(args):
    comp = _compiler()
    if comp is None:
        print("pycudac.compiler is not available", file=sys.stderr)
        return 2
    sub = args[0] if args else "stats"
    if sub == "path" and hasattr(comp, "cache_path"):
        print(comp.cache_path())
    elif sub == "stats" and hasattr(comp, "cache_stats"):
        stats = comp.cache_stats()
        if isinstance(stats, dict):
            for key, value in stats.items():
                print(f"{key}: {value}")
        else:
            print(stats)
    elif sub == "clear" and hasattr(comp, "cache_clear"):
        removed = comp.cache_clear()
        print(f"removed {removed} entr{'y' if removed == 1 else 'ies'}"
              if isinstance(removed, int) else "cleared")
    else:
        print(f"unknown cache command {sub!r}: use stats, clear or path", file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        return info()
    if args[0] == "cache":
        return cache_command(args[1:])
    if args[0] in ("-h", "--help", "help"):
        print(__doc__.strip())
        return 0
    print(f"unknown command {args[0]!r}\n\n{__doc__.strip()}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
