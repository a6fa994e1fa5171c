// Deliberately invalid: atomicMax has no float overload in CUDA (only the
// integer types); a user coming from OpenCL or writing a max-reduction writes it
// anyway. NVRTC refuses it; a simulator that accepts exactly NVRTC's CUDA C must
// refuse it too.

__global__ void max_float(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicMax(out, in[i]);
}
