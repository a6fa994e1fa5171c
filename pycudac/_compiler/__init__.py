"""The compiler's parts, behind pycudac.compiler (PyCUDA's names):

    options   nvcc-style options into NVRTC's; the target architecture
    toolkit   NVRTC's identity, the toolkit's and CCCL's include directories
    includes  the files under include directories, for the cache key
    cache     the key, the on-disk cache and a compile through it
    plan      which compiler a request goes to, and what keep= writes
    link      nvJitLink's link() and the driver-linked DynamicModule

Calls run one way: options -> toolkit; cache -> toolkit, includes;
plan -> options; link -> plan, cache; pycudac.compiler -> all of them.
"""
