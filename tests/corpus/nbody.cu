// Technique of GPU Gems 3, chapter 31 "Fast N-Body Simulation with CUDA"
// (Nyland, Harris, Prins): bodyBodyInteraction on float4 positions (w = mass)
// with a softening term and rsqrtf, tile_calculation over a tile of bodies held
// in extern __shared__ float4, and calculate_forces looping tile by tile with
// __syncthreads between loads. Accelerations come back as float3.

#define SOFTENING_SQUARED 0.01f

__device__ float3 bodyBodyInteraction(float4 bi, float4 bj, float3 ai)
{
    float3 r;
    r.x = bj.x - bi.x;
    r.y = bj.y - bi.y;
    r.z = bj.z - bi.z;
    float distSqr = r.x * r.x + r.y * r.y + r.z * r.z + SOFTENING_SQUARED;
    float invDist = rsqrtf(distSqr);
    float invDistCube = invDist * invDist * invDist;
    float s = bj.w * invDistCube;
    ai.x += r.x * s;
    ai.y += r.y * s;
    ai.z += r.z * s;
    return ai;
}

__device__ float3 tile_calculation(float4 myPosition, float3 accel)
{
    extern __shared__ float4 shPosition[];
    for (int i = 0; i < blockDim.x; i++)
        accel = bodyBodyInteraction(myPosition, shPosition[i], accel);
    return accel;
}

// N is a multiple of blockDim.x
__global__ void calculate_forces(const float4 *globalX, float3 *globalA, int N)
{
    extern __shared__ float4 shPosition[];
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    float4 myPosition = globalX[gtid];
    float3 acc = make_float3(0.0f, 0.0f, 0.0f);

    for (int i = 0, tile = 0; i < N; i += blockDim.x, tile++) {
        int idx = tile * blockDim.x + threadIdx.x;
        shPosition[threadIdx.x] = globalX[idx];
        __syncthreads();
        acc = tile_calculation(myPosition, acc);
        __syncthreads();
    }
    globalA[gtid] = acc;
}
