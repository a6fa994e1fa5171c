"""PyCUDA's CLUDA preamble: the OpenCL-flavoured macros (KERNEL,
WITHIN_KERNEL, GLOBAL_MEM, LOCAL_MEM, local_barrier, LID_n, GID_n, LDIM_n,
GDIM_n ...) that let one kernel text serve PyOpenCL and PyCUDA. Code built
on both (compyle, the kernels ported from PyOpenCL) prepends it to its
sources; pycudac's own kernels do not use it."""

_AXES = "xyz"

# (a newline first, as PyCUDA's: code may put it after a line of its own)
CLUDA_PREAMBLE = "\n" + "\n".join(
    ["#define local_barrier() __syncthreads();",
     "#define WITHIN_KERNEL __device__",
     '#define KERNEL extern "C" __global__',
     "#define GLOBAL_MEM /* global memory: a plain pointer in CUDA */",
     "#define LOCAL_MEM __shared__",
     "#define LOCAL_MEM_ARG /* local memory as an argument: none in CUDA */",
     "#define REQD_WG_SIZE(X,Y,Z) __launch_bounds__(X*Y*Z, 1)"]
    + [f"#define {name}_{i} {var}.{axis}"
       for name, var in (("LID", "threadIdx"), ("GID", "blockIdx"), ("LDIM", "blockDim"),
                         ("GDIM", "gridDim"))
       for i, axis in enumerate(_AXES)]) + "\n"
