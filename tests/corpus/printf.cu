// Technique of cuda-samples 0_Introduction/simplePrintf (printf from device code
// with the block and thread indices and a value passed to the kernel; the
// output appears when the host synchronizes).
#include <stdio.h>

__global__ void testKernel(int val)
{
    printf("[%d, %d]:\t\tValue is:%d\n", blockIdx.y * gridDim.x + blockIdx.x,
           threadIdx.z * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x, val);
}

__global__ void print_mixed(float f, double d, long long ll)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        printf("f=%.3f d=%.6e ll=%lld u=%u x=%x c=%c s=%s\n", f, d, ll, 4000000000u, 255, 'Z',
               "device");
}
