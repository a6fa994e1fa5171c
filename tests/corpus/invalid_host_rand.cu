// Deliberately invalid: rand() is a host C library function, not callable from
// device code (NVRTC: identifier "rand" is undefined).

__global__ void noise(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (float)(rand() % 1000) / 1000.0f;
}
