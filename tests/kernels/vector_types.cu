// Vector types: float4 by value and as 16-byte loads, int2 / double2 / uchar4.
__global__ void scale4(float4 s, const float4 *in, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = __ldg(&in[i]);
        out[i] = make_float4(v.x * s.x, v.y * s.y, v.z * s.z, v.w * s.w);
    }
}

__global__ void mixed(char c, double2 d, int2 k, uchar4 u, float *out)
{
    out[0] = c;
    out[1] = (float)(d.x + d.y);
    out[2] = (float)(k.x * k.y);
    out[3] = (float)(u.x + u.y + u.z + u.w);
    out[4] = (float)(sizeof(float4) + alignof(float4) + sizeof(double2) + alignof(double2));
    out[5] = (float)(sizeof(float3) + alignof(float3) + sizeof(int4) + alignof(short2));
    dim3 b = blockDim;
    uint3 t = threadIdx;
    out[6] = (float)(b.x + t.x + gridDim.x);
}
