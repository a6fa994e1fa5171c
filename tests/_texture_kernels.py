"""The kernels the texture tests launch (test_textures.py,
test_textures_arrays.py): fetches of every shape, element reads, tex1Dfetch,
surfaces; and their module (the `mod` fixture, imported by the files that
use it)."""
import pytest


KERNELS = r"""
__global__ void f1(cudaTextureObject_t t, const float *x, float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex1D<float>(t, x[i]); }
__global__ void f2(cudaTextureObject_t t, const float *x, const float *y, float *out, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = tex2D<float>(t, x[i], y[i]); }
__global__ void f3(cudaTextureObject_t t, const float *x, const float *y, const float *z,
                   float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, x[i], y[i], z[i]);
}
__global__ void l1(cudaTextureObject_t t, const float *x, const int *layer, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1DLayered<float>(t, x[i], layer[i]);
}
__global__ void l2(cudaTextureObject_t t, const float *x, const float *y, const int *layer,
                   float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float>(t, x[i], y[i], layer[i]);
}
__global__ void f2v(cudaTextureObject_t t, const float *x, const float *y, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float4 v; tex2D(&v, t, x[i], y[i]); out[i] = v; }
}
__global__ void i1_uchar4(cudaTextureObject_t t, int *out, int n)
{
    int i = threadIdx.x;
    if (i < n) { uchar4 v = tex1D<uchar4>(t, i + 0.5f);
                 out[4 * i] = v.x; out[4 * i + 1] = v.y; out[4 * i + 2] = v.z; out[4 * i + 3] = v.w; }
}
__global__ void fetch_f(cudaTextureObject_t t, float *out, int n)
{ int i = threadIdx.x; if (i < n) out[i] = tex1Dfetch<float>(t, i - 2); }
__global__ void fetch_i2(cudaTextureObject_t t, int *out, int n)
{ int i = threadIdx.x; if (i < n) { int2 v = tex1Dfetch<int2>(t, i); out[2 * i] = v.x; out[2 * i + 1] = v.y; } }
__global__ void ptr_arg(int *p) { p[0] = 1; }
__global__ void surf1(cudaSurfaceObject_t s, int n)
{ int i = threadIdx.x; if (i < n) surf1Dwrite(surf1Dread<int>(s, i * 4) * 3, s, i * 4); }
__global__ void surf2(cudaSurfaceObject_t s, int w, int h)
{
    int x = threadIdx.x, y = blockIdx.x;
    float v; surf2Dread(&v, s, x * (int)sizeof(float), y);
    surf2Dwrite(v + 100.0f * y, s, x * (int)sizeof(float), y);
}
__global__ void surf3(cudaSurfaceObject_t s)
{
    int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    ushort2 v = surf3Dread<ushort2>(s, x * 4, y, z);
    surf3Dwrite(make_ushort2(v.y, v.x), s, x * 4, y, z);
}
__global__ void surf_edge(cudaSurfaceObject_t s, const int *x, const int *y, float *out, int n,
                          int mode, float value)
{
    int i = threadIdx.x;
    if (i >= n) return;
    cudaSurfaceBoundaryMode m = (cudaSurfaceBoundaryMode)mode;
    out[i] = surf2Dread<float>(s, x[i], y[i], m);
    if (value != 0.0f) surf2Dwrite(value, s, x[i], y[i], m);
}
"""


# the integer read kernels: one per texel type, each writing ints
INT_TYPES = ["unsigned char", "signed char", "unsigned short", "short", "int", "unsigned int"]
INT_KERNELS = "".join(
    f"__global__ void e_{t.replace(' ', '_')}(cudaTextureObject_t t, const float *x, int *out, int n)\n"
    f"{{ int i = threadIdx.x; if (i < n) out[i] = (int)tex1D<{t}>(t, x[i]); }}\n"
    for t in INT_TYPES)
SOURCE = KERNELS + INT_KERNELS


@pytest.fixture(scope="module")
def mod():
    from pycudac.compiler import SourceModule
    return SourceModule(SOURCE)
