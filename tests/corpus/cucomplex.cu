// Technique of the complex arithmetic in cuda-samples' CUFFT and cuSOLVER samples
// written with <cuComplex.h> (cuFloatComplex, make_cuFloatComplex, cuCmulf,
// cuCaddf, cuConjf, cuCabsf, cuCrealf / cuCimagf): a pointwise complex
// multiply-and-scale as in simpleCUFFT's ComplexPointwiseMulAndScale, and the
// magnitude of a spectrum.
#include <cuComplex.h>

__global__ void ComplexPointwiseMulAndScale(cuFloatComplex *a, const cuFloatComplex *b, int size,
                                            float scale)
{
    const int numThreads = blockDim.x * gridDim.x;
    const int threadID = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = threadID; i < size; i += numThreads) {
        cuFloatComplex p = cuCmulf(a[i], cuConjf(b[i]));
        a[i] = make_cuFloatComplex(scale * cuCrealf(p), scale * cuCimagf(p));
    }
}

__global__ void spectrum_magnitude(const cuFloatComplex *x, const cuFloatComplex *offset,
                                   float *mag, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        mag[i] = cuCabsf(cuCaddf(x[i], *offset));
}
