"""pycudac.characterize — facts about the device and the kernel compiler
(PyCUDA's names)."""
import numpy as np

from pycudac import tools


def platform_bits():
    import struct
    return struct.calcsize("P") * 8


def has_double_support():
    """Every device pycudac runs on (compute capability >= 5.0, and the
    simulator) computes in double precision."""
    return True


def has_stack():
    return True


_SIZEOF_SRC = """
{preamble}
extern "C" __global__ void {name}(unsigned long long *out)
{{
    *out = sizeof({type_name});
}}
"""


@tools.context_dependent_memoize
def sizeof(type_name, preamble=""):
    """sizeof(type_name) as the kernel compiler sees it (compiles a tiny
    kernel once per type and context)."""
    from pycudac import gpuarray
    from pycudac.elementwise import source_module
    if not isinstance(type_name, str) or not type_name.strip():
        raise TypeError(f"sizeof: type_name must be a C type name (str), got {type_name!r}")
    name = "pcc_sizeof" + tools.unique_tag((type_name, preamble))
    src = tools.KERNEL_PREAMBLE + _SIZEOF_SRC.format(preamble=preamble, name=name,
                                                    type_name=type_name)
    fn = source_module(src).get_function(name)
    out = gpuarray.empty((), np.uint64)
    fn(out.ptr, block=(1, 1, 1), grid=(1, 1))
    return int(out.get())
