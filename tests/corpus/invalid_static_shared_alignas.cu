// Deliberately invalid: an alignment specifier after `static __shared__`
// (NVRTC: "attribute does not apply to any entity"). After a bare __shared__ it
// is valid (cpp_idioms.cu's aligned_shared_reverse), which is why users try it.

__global__ void scaled_copy(const float4 *in, float4 *out, float s)
{
    static __shared__ alignas(16) float tile[4 * 32];
    reinterpret_cast<float4 *>(tile)[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    float4 v = reinterpret_cast<float4 *>(tile)[threadIdx.x];
    out[blockIdx.x * blockDim.x + threadIdx.x] = make_float4(s * v.x, s * v.y, s * v.z, s * v.w);
}
