"""The files under include directories, which go into the cache key whole,
and the directories a source reaches without include_dirs."""
from __future__ import annotations

import os
import re
import stat


#: The files under include_dirs go into the key whole. Past this many files
#: or bytes a compile skips the disk cache (one warning) rather than read a
#: whole tree (include_dirs=["/usr"]) on every call; past the file count the
#: in-process memo too, whose key stats each file.
INCLUDE_MAX_FILES = 4096
INCLUDE_MAX_BYTES = 64 << 20


class _IncludeTreeTooLarge(ValueError):
    def __init__(self, directory):
        super().__init__(
            f"include_dirs entry {directory!r} holds more than {INCLUDE_MAX_FILES} files or "
            f"{INCLUDE_MAX_BYTES >> 20} MiB; the cache key reads every file under "
            "include_dirs, so this compile is not cached (point include_dirs at the headers' "
            "own directory)")
        self.directory = directory


def _walk_includes(dirs):
    """(dir index, dir, path, stat) of every regular file under dirs, in a
    sorted walk (directory symlinks are not followed); _IncludeTreeTooLarge
    past INCLUDE_MAX_FILES."""
    n = 0
    for k, d in enumerate(dirs):
        if not os.path.isdir(d):
            continue
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            for name in sorted(files):
                path = os.path.join(root, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                n += 1
                if n > INCLUDE_MAX_FILES:
                    raise _IncludeTreeTooLarge(d)
                yield k, d, path, st


def _include_files(dirs):
    """[(dir index, relative path, bytes)] of every regular file under dirs;
    _IncludeTreeTooLarge past INCLUDE_MAX_FILES files or INCLUDE_MAX_BYTES."""
    out, total = [], 0
    for k, d, path, st in _walk_includes(dirs):
        total += st.st_size
        if total > INCLUDE_MAX_BYTES:
            raise _IncludeTreeTooLarge(d)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        out.append((k, os.path.relpath(path, d), data))
    return out


_ABS_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*["<](/[^">\n]+)[">]', re.M)
_ENV_INCLUDE_VARS = ("CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH")


def _special_file(path):
    """Whether path is what no compile may read: a device, FIFO or socket, or
    anything under /dev, /proc or /sys (the compilers refuse such includes)."""
    if path.startswith(("/dev/", "/proc/", "/sys/")):
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _hidden_include_dirs(source, compiler):
    """Directories whose headers can change the binary though they reach the
    compiler neither as include_dirs nor as -I: those of headers included by
    absolute path (followed into those headers, up to 64 of them) and, for
    the simulator's C++ compiler, CPATH, C_INCLUDE_PATH and
    CPLUS_INCLUDE_PATH (NVRTC reads no environment). Their files go into the
    cache key as include_dirs' do, or the compile skips the cache."""
    dirs = []
    if isinstance(source, str) and ('"/' in source or "</" in source) and "include" in source:
        seen, todo = set(), [source]
        while todo and len(seen) < 64:
            for path in _ABS_INCLUDE.findall(todo.pop()):
                if path in seen:
                    continue
                seen.add(path)
                if _special_file(path):
                    continue  # never opened (a FIFO blocks): the compiler refuses it
                if os.path.dirname(path) not in dirs:
                    dirs.append(os.path.dirname(path))
                try:
                    with open(path, encoding="utf-8", errors="replace") as f:
                        todo.append(f.read(1 << 20))
                except OSError:
                    pass
    if compiler == "sim":
        for var in _ENV_INCLUDE_VARS:
            for d in os.environ.get(var, "").split(os.pathsep):
                if d and d not in dirs:
                    dirs.append(d)
    return dirs


def _include_fingerprint(dirs):
    """Cheap stand-in for the include files in the memo key: path, size and
    mtime of each (the disk key hashes their bytes); None (no memo) past
    INCLUDE_MAX_FILES."""
    out = [(d, None) for d in dirs if not os.path.isdir(d)]
    try:
        out += [(path, st.st_size, st.st_mtime_ns, st.st_ino)
                for _, _, path, st in _walk_includes(dirs)]
    except _IncludeTreeTooLarge:
        return None
    return tuple(out)
