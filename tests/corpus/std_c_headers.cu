// Technique of kernels that include C standard headers the way nvcc users write
// them (<stdint.h> fixed-width types for bit manipulation, <assert.h> for a device
// assertion, as in cuda-samples' helper code). nvcc accepts this; NVRTC alone refuses
// it ("cannot open source file \"stdint.h\"": it ships no C library headers), so
// pycudac hands both compilers small stand-ins (src/compile/c_headers.c).
#include <stdint.h>
#include <assert.h>

__global__ void popcount64(const uint64_t *x, uint32_t *bits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(x != NULL);
        bits[i] = (uint32_t)__popcll(x[i]);
    }
}
