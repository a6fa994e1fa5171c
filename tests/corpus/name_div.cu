// Technique of the element-wise kernels of "CUDA by Example" chapter 4 (add) and
// countless tutorials, named after what they do: an element-wise division named
// div, as a user writes it (legal CUDA: device code has no C library div()).

__global__ void div(float *out, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] / b[i];
}
