// Cooperative launches (cooperative=True): rounds of a stencil over the whole grid
// separated by grid.sync(), and grid_group's split barrier (barrier_arrive /
// barrier_wait). Compiled with no_extern_c=True (toolkit headers).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// `rounds` times over the grid: b[i] = a[i-1] + a[i] + a[i+1] (0 past the ends),
// then a and b swap; each round reads what other blocks wrote in the one before
extern "C" __global__ void relax(int *a, int *b, int n, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    for (int r = 0; r < rounds; r++) {
        for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
            b[i] = (i > 0 ? a[i - 1] : 0) + a[i] + (i + 1 < (unsigned long long)n ? a[i + 1] : 0);
        grid.sync();
        int *t = a;
        a = b;
        b = t;
    }
}

// every element of out: the sum of all of `in` (one element per thread), through
// per-block partial sums read by every block after the grid's barrier
extern "C" __global__ void total(const int *in, int *partial, int *out)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    if (block.thread_rank() == 0)
        partial[grid.block_rank()] = 0;
    block.sync();
    atomicAdd(&partial[grid.block_rank()], in[grid.thread_rank()]);
    grid.barrier_wait(grid.barrier_arrive());
    int t = 0;
    for (unsigned long long b = 0; b < grid.num_blocks(); b++)
        t += partial[b];
    out[grid.thread_rank()] = t;
}
