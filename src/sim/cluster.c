/*
 * sim/cluster.c — thread-block clusters: cuLaunchKernelEx with its
 * cluster-dimension attribute (and the cooperative and priority ones), and
 * the kernel api behind cooperative_groups::this_cluster().
 *
 * A cluster launch (or a kernel of __cluster_dims__) runs one cluster at a
 * time, the cluster's blocks at once, each on a coop thread (sim/launch.c,
 * sim/coop.c), so that cluster.sync() is the launch's group barrier counted
 * over the cluster's blocks. A block's __shared__ variables are thread-local
 * in its kernel module (sim/prelude/cuda_runtime.h): map_shared_rank finds
 * the other block's copy at the same offset from that block's thread-local
 * anchor, and dynamic shared memory at the same offset in its buffer. Both
 * are recorded as the block starts; a block that maps a rank not yet started
 * waits for it (on a GPU the cluster's blocks start together; CUDA asks for
 * a cluster.sync() before the first access).
 *
 * As the driver: the grid must hold a whole number of clusters, a cluster
 * at most 8 blocks (CUDA's portable size; an H100 takes 16 with a kernel
 * attribute, which the simulator does not model) and, for a kernel of
 * __cluster_dims__, a launch-time cluster must be the same, else
 * CUDA_ERROR_INVALID_CLUSTER_SIZE. Cooperative and clustered at once is not
 * simulated (CUDA_ERROR_NOT_SUPPORTED); priority is taken and has no effect
 * (one launch runs at a time).
 */
#include <sched.h>

#include "sim/sim.h"

static CUresult sim_cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params,
                                     void **extra)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (c == NULL || (c->numAttrs > 0 && c->attrs == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_stream_ok(c->hStream))
        return CUDA_ERROR_INVALID_HANDLE;
    int cooperative = 0;
    pcc_sim_dim3 cluster = {0, 0, 0};
    for (unsigned int i = 0; i < c->numAttrs; i++) {
        const CUlaunchAttribute *a = &c->attrs[i];
        switch (a->id) {
        case CU_LAUNCH_ATTRIBUTE_IGNORE:
        case CU_LAUNCH_ATTRIBUTE_PRIORITY:
            break;
        case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
            cooperative = a->value.cooperative != 0;
            break;
        case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
            cluster = (pcc_sim_dim3){a->value.clusterDim.x, a->value.clusterDim.y,
                                     a->value.clusterDim.z};
            break;
        default:
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    }
    sim_op op;
    rc = sim_kernel_op(&op, f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                       c->blockDimZ, c->sharedMemBytes, params, extra);
    if (rc != CUDA_SUCCESS)
        return sim_capture_refused(c->hStream, rc);
    if (cluster.x || cluster.y || cluster.z) {
        const unsigned int *own = f->k->cluster;
        unsigned long long size = (unsigned long long)cluster.x * cluster.y * cluster.z;
        if (size == 0 || size > SIM_MAX_CLUSTER || c->gridDimX % cluster.x ||
            c->gridDimY % cluster.y || c->gridDimZ % cluster.z ||
            (own[0] && (own[0] != cluster.x || own[1] != cluster.y || own[2] != cluster.z)))
            return sim_capture_refused(c->hStream, CUDA_ERROR_INVALID_CLUSTER_SIZE);
        if (cooperative)
            return sim_capture_refused(c->hStream, CUDA_ERROR_NOT_SUPPORTED);
        op.u.kernel.cluster = cluster;
    }
    if (cooperative) {
        unsigned long long blocks = (unsigned long long)c->gridDimX * c->gridDimY * c->gridDimZ;
        int per_sm = sim_blocks_per_sm(f, (int)(c->blockDimX * c->blockDimY * c->blockDimZ),
                                       c->sharedMemBytes);
        if (blocks > (unsigned long long)per_sm * (unsigned long long)sim_cpu_count())
            return sim_capture_refused(c->hStream, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
        op.u.kernel.cooperative = 1;
    }
    rc = sim_stream_submit(c->hStream, &op);
    return rc == SIM_RUN_NOW ? sim_kernel_run(&op) : rc;
}

void sim_fill_cluster_table(pcc_driver_table *t)
{
    t->cuLaunchKernelEx = sim_cuLaunchKernelEx;
}

/* ---- the kernel api -------------------------------------------------------------------------- */

void sim_api_cluster_dims(pcc_sim_thread *t, unsigned int dims[3])
{
    (void)t;
    pcc_sim_dim3 c = sim_launch_cluster();
    dims[0] = c.x;
    dims[1] = c.y;
    dims[2] = c.z;
}

/* The calling block's rank in its cluster. */
static unsigned int own_rank(const pcc_sim_thread *t, pcc_sim_dim3 c)
{
    return t->blockIdx.x % c.x + c.x * (t->blockIdx.y % c.y + c.y * (t->blockIdx.z % c.z));
}

void *sim_api_cluster_map(pcc_sim_thread *t, const void *addr, unsigned int rank,
                          const void *anchor)
{
    pcc_sim_dim3 c = sim_launch_cluster();
    unsigned int size = c.x * c.y * c.z;
    if (rank >= size)
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                 "cluster.map_shared_rank(ptr, %u): the cluster has %u blocks (ranks 0 to %u)",
                 rank, size, size - 1);
    if (size == 1)
        return (void *)addr;
    unsigned int me = own_rank(t, c);
    void *target_anchor;
    while ((target_anchor = sim_launch_member_anchor(rank)) == NULL) {
        if (sim_launch_stopped())
            sim_fail(t, CUDA_ERROR_LAUNCH_FAILED, "map_shared_rank: the launch stopped");
        sched_yield(); /* the block of that rank has not started yet */
    }
    const char *mine = sim_launch_member_shared(me);
    size_t bytes = sim_launch_shared_bytes();
    const char *p = addr;
    if (mine != NULL && p >= mine && p < mine + bytes)
        return (char *)sim_launch_member_shared(rank) + (p - mine);
    return (char *)target_anchor + (p - (const char *)anchor);
}
