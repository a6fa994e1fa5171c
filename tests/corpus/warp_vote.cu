// Technique of cuda-samples 0_Introduction/simpleVoteIntrinsics (VoteAnyKernel1,
// VoteAllKernel2: every thread writes the warp's __any_sync / __all_sync vote of
// its input; VoteAnyKernel3: votes inside a divergent branch), of the CUDA
// Programming Guide's warp vote and __activemask examples (__ballot_sync then
// __popc / __ffs to count and elect), of __shfl_sync broadcast from a lane, and
// of the Guide's warp match and warp reduce functions (__match_any_sync to find
// the lanes holding the same key, __reduce_add_sync / __reduce_max_sync, sm_80).

__global__ void VoteAnyKernel1(const unsigned int *input, unsigned int *result, int size)
{
    int tx = threadIdx.x + blockIdx.x * blockDim.x;
    result[tx] = __any_sync(0xffffffff, input[tx]);
}

__global__ void VoteAllKernel2(const unsigned int *input, unsigned int *result, int size)
{
    int tx = threadIdx.x + blockIdx.x * blockDim.x;
    result[tx] = __all_sync(0xffffffff, input[tx]);
}

// out[4 * warp + k]: ballot of v > 0, its popcount, the first set lane (1-based),
// and the ballot of odd values among the lanes that took the odd-lane branch
__global__ void ballot_popc_ffs(const int *v, unsigned int *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = i / 32;
    unsigned int b = __ballot_sync(0xffffffffu, v[i] > 0);
    if ((threadIdx.x & 31) == 0) {
        out[4 * warp + 0] = b;
        out[4 * warp + 1] = __popc(b);
        out[4 * warp + 2] = __ffs(b);
    }
    if (threadIdx.x & 1) {
        unsigned int odd_lanes = 0xaaaaaaaau; // the lanes that are in this branch
        unsigned int ob = __ballot_sync(odd_lanes, v[i] & 1);
        if ((threadIdx.x & 31) == 1)
            out[4 * warp + 3] = ob;
    }
}

// inside a branch taken by lanes < k, __activemask() reports those lanes (they are
// converged at the call); lanes that are not in it write nothing
__global__ void active_lanes(unsigned int *out, int k)
{
    int lane = threadIdx.x & 31;
    if (lane < k) {
        __syncwarp(__activemask());
        unsigned int m = __activemask();
        out[threadIdx.x] = __popc(m);
    } else {
        out[threadIdx.x] = 0xffffffffu;
    }
}

// every lane gets lane `src`'s value, and its right neighbour's value (wrapping)
__global__ void shfl_broadcast(const float *in, float *bcast, float *rot, int src)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    bcast[i] = __shfl_sync(0xffffffff, v, src);
    rot[i] = __shfl_sync(0xffffffff, v, (threadIdx.x + 1) & 31);
}

// per lane: how many lanes of its warp hold the same key, and the warp's sum and
// maximum of the values (integer warp reductions)
__global__ void match_and_reduce(const int *key, const int *val, int *same, int *wsum,
                                 unsigned int *wmax)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int peers = __match_any_sync(0xffffffffu, key[i]);
    same[i] = __popc(peers);
    wsum[i] = __reduce_add_sync(0xffffffffu, val[i]);
    wmax[i] = __reduce_max_sync(0xffffffffu, (unsigned int)val[i]);
}
