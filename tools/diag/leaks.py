"""Diagnostic: do pinned/managed/device allocations made inside a function
die when it returns (on cuda)? Run under compute-sanitizer --leak-check full."""
import gc
import sys
import weakref

import numpy as np

import pycudac.autoinit  # noqa: F401
import pycudac.driver as drv

refs = {}


def body():
    a = drv.pagelocked_empty((3, 4), np.float32)
    z = drv.pagelocked_zeros(5, np.int64)
    like = drv.pagelocked_empty_like(z)
    d = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(d, a)
    back = drv.pagelocked_zeros_like(a)
    drv.memcpy_dtoh(back, d)
    m = drv.managed_zeros((4, 8), np.float32)
    d2 = drv.mem_alloc(64)
    refs.update(a=weakref.ref(a.base), z=weakref.ref(z.base), like=weakref.ref(like.base),
                d=weakref.ref(d), back=weakref.ref(back.base), m=weakref.ref(m.base),
                d2=weakref.ref(d2))
    a.base.free()


body()
alive = {k: w() is not None for k, w in refs.items()}
print("alive after return:", alive, flush=True)
def describe(r):
    if isinstance(r, dict):
        return "dict keys=" + repr(list(r)[:12])
    if type(r).__name__ == "frame":
        return f"frame {r.f_code.co_name}:{r.f_lineno} held by " + repr(
            [type(x).__name__ + (":" + x.f_code.co_name if type(x).__name__ == "frame" else "")
             for x in gc.get_referrers(r)][:8])
    return type(r).__name__


for k, w in refs.items():
    o = w()
    if o is not None:
        print(" ", k, sys.getrefcount(o), [describe(r) for r in gc.get_referrers(o)])
print("sys.last_traceback", getattr(sys, "last_traceback", None), "tracer", sys.gettrace(),
      sys.getprofile())
gc.collect()
print("alive after gc:", {k: w() is not None for k, w in refs.items()}, flush=True)
print("counters:", drv._debug_counters(), flush=True)
