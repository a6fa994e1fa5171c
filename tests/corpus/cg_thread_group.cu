// Technique of the NVIDIA blog "Cooperative Groups: Flexible CUDA Thread
// Programming" (reduce_sum(thread_group g, int *temp, int val): a reduction that
// works for any group through shared memory, called on the whole block and on
// dynamically sized tiles from tiled_partition(block, 32); sum_kernel_block).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ int reduce_sum(cg::thread_group g, int *temp, int val)
{
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        temp[lane] = val;
        g.sync(); // wait for all threads to store
        if (lane < i)
            val += temp[lane + i];
        g.sync(); // wait for all threads to load
    }
    return val; // only rank 0 has the full sum
}

__device__ int thread_sum(const int *input, int n)
{
    int sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n / 4; i += blockDim.x * gridDim.x) {
        int4 in = reinterpret_cast<const int4 *>(input)[i];
        sum += in.x + in.y + in.z + in.w;
    }
    return sum;
}

// *sum += the whole input (n a multiple of 4); shared: blockDim.x ints
__global__ void sum_kernel_block(int *sum, const int *input, int n)
{
    int my_sum = thread_sum(input, n);
    extern __shared__ int temp[];
    cg::thread_group g = cg::this_thread_block();
    int block_sum = reduce_sum(g, temp, my_sum);
    if (g.thread_rank() == 0)
        atomicAdd(sum, block_sum);
}

// out[warp] = the sum of each 32-thread tile, with each tile using its own
// 32-int slice of shared memory; shared: blockDim.x ints
__global__ void sum_kernel_tiles(int *out, const int *input)
{
    extern __shared__ int temp[];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_group tile32 = cg::tiled_partition(block, 32);
    int gi = blockIdx.x * blockDim.x + threadIdx.x;
    int *my_temp = temp + (block.thread_rank() / 32) * 32;
    int s = reduce_sum(tile32, my_temp, input[gi]);
    if (tile32.thread_rank() == 0)
        out[gi / 32] = s;
}
