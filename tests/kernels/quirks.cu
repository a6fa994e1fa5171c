// Source-level corners the simulator's scan must get right: kernels in
// compiled-out regions, `static __shared__`, `extern volatile __shared__`,
// __launch_bounds__ between the qualifiers, comments and strings that
// mention __global__ and asm.
#if 0
__global__ void not_compiled(int *x) { asm("trap;"); undeclared(); }
#endif
#ifdef PYCUDAC_NOT_DEFINED
__global__ void not_defined_either(int *x) { *x = nothing; }
#endif
/* __global__ void in_a_comment(int *x) { asm("exit;"); } */
__device__ const char *message = "__global__ void in_a_string() asm(\"\")";

__global__ void __launch_bounds__(128, 1) quirky(float *out, int n)
{
    static __shared__ float st[128];
    extern volatile __shared__ float vs[];
    int t = threadIdx.x;
    st[t] = (float)t;
    vs[t] = 2.0f * t;
    __syncthreads();
    if (t < n)
        out[t] = st[blockDim.x - 1 - t] + vs[t] + (message[0] == '_' ? 1000.0f : 0.0f);
}
