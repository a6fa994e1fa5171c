"""Diagnostic: first-call and steady cost of the hashes a warm start could use."""
import os
import subprocess
import sys

CHILD = r"""
import sys, time, os
c = time.perf_counter
which, n = sys.argv[1], int(sys.argv[2])
data = os.urandom(n)
if which == "openssl":
    import hashlib; f = lambda b: hashlib.sha256(b).digest()
elif which == "hacl":
    try:
        import _sha2 as m
    except ImportError:
        import _sha256 as m
    f = lambda b: m.sha256(b).digest()
else:
    import zlib; f = zlib.crc32
t0 = c(); f(data); t1 = c(); f(data); t2 = c()
print(f"{which:8s} {n:6d} B  first {(t1-t0)*1e6:6.1f} us  again {(t2-t1)*1e6:6.1f} us")
"""
for which in ("openssl", "hacl", "crc32"):
    for n in (3000, 14000):
        r = subprocess.run([sys.executable, "-c", CHILD, which, str(n)], capture_output=True,
                           text=True)
        print(r.stdout.strip() or r.stderr.strip()[-200:])
