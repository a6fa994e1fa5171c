"""The kernels tests/test_launch.py, tests/test_launch_args.py and
tests/test_launch_pointers.py launch: MIXED declares a kernel per kind of
parameter (its layout and packing), ECHO writes its parameters back where a
test can read them; `mod` (a fixture, imported by the files that use it) is
their module."""
import pytest


def source_module(src, **kw):
    from pycudac.compiler import SourceModule
    return SourceModule(src, **kw)


MIXED = r"""
#include <cuda_fp16.h>
struct Pair { float x; int y; };
__global__ void mixed(char c, int i, double d, float4 v, short s, float *p, __half h, bool b)
{ }
__global__ void ints(signed char a, unsigned char b, short c, unsigned short d, int e,
                     unsigned int f, long long g, unsigned long long h, size_t k)
{ }
__global__ void floats(float f, double d, __half h) { }
__global__ void vecs(int4 a, float2 b, double2 c, uchar4 d, dim3 e) { }
__global__ void structs(Pair p, const Pair *q) { }
__global__ void flags(bool b, int i) { }
__global__ void ptrs(float *a, const int *b) { }
__global__ void noargs() { }
"""

ECHO = r"""
extern "C" __global__ void echo(unsigned char *out, char c, int i, double d, float4 v,
                                short s, unsigned long long u, __half h, bool b, Pair p,
                                int4 q, float f)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    /* each parameter at its own offset in the packed parameter buffer */
    *(char *)(out + 8) = c;
    *(int *)(out + 12) = i;
    *(double *)(out + 16) = d;
    *(float4 *)(out + 32) = v;
    *(short *)(out + 48) = s;
    *(unsigned long long *)(out + 56) = u;
    *(__half *)(out + 64) = h;
    *(bool *)(out + 66) = b;
    *(Pair *)(out + 68) = p;
    *(int4 *)(out + 80) = q;
    *(float *)(out + 96) = f;
}
extern "C" __global__ void upcase(char *s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && s[i] >= 'a' && s[i] <= 'z') s[i] -= 'a' - 'A';
}
extern "C" __global__ void scale(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
extern "C" __global__ void with_shared(float *out)
{
    extern __shared__ float buf[];
    buf[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def mod(ctx):
    return source_module(MIXED + ECHO)
