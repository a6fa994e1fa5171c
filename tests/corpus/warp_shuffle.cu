// Technique of the CUDA Programming Guide's warp shuffle functions section
// (__shfl_sync, __shfl_up_sync, __shfl_down_sync and __shfl_xor_sync with a
// width that splits the warp into segments: a source lane taken modulo width,
// lanes whose source falls outside their segment keeping their own value, 8-byte
// types moved as two halves), of CUB's warp scan (WarpScanShfl: a Kogge-Stone
// inclusive scan with shuffles up, logical warps of 8 or 16 lanes each shuffling
// under its own member mask, the warp totals scanned again for a block scan),
// of NVIDIA's blog posts on warp-level primitives (compute the mask with
// __ballot_sync before diverging, then vote, shuffle and __syncwarp with that
// mask inside each branch) and on warp-aggregated atomics (an __activemask()
// leader does one atomicAdd for its group and broadcasts the base), and of the
// Guide's warp match functions (__match_any_sync to find the lanes holding the
// same key, on 32-bit, 64-bit and float keys, __match_all_sync with its
// predicate, under the full mask and a half-warp mask).

#define FULL_MASK 0xffffffffu

// ---------------------------------------------------------------- shuffles with a width

// Per thread: its value shuffled eight ways (o) and a hashed unsigned copy four
// ways (ou); src[i] is any int, in range or not, negative or not.
__global__ void shfl_int_edges(const int *x, const int *src, int delta, int *o,
                               unsigned int *ou)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = x[i];
    unsigned int u = (unsigned int)v * 2654435761u;   // Knuth's multiplicative hash
    int s = src[i];
    int *p = o + 8 * i;
    p[0] = __shfl_sync(FULL_MASK, v, s, 8);
    p[1] = __shfl_sync(FULL_MASK, v, s);
    p[2] = __shfl_up_sync(FULL_MASK, v, 3, 8);
    p[3] = __shfl_down_sync(FULL_MASK, v, 5, 16);
    p[4] = __shfl_xor_sync(FULL_MASK, v, 8, 8);
    p[5] = __shfl_xor_sync(FULL_MASK, v, 20, 16);
    p[6] = __shfl_down_sync(FULL_MASK, v, delta, 8);
    p[7] = __shfl_up_sync(FULL_MASK, v, 16, 16);
    unsigned int *q = ou + 4 * i;
    q[0] = __shfl_sync(FULL_MASK, u, 31 - lane, 32);
    q[1] = __shfl_down_sync(FULL_MASK, u, 31);
    q[2] = __shfl_sync(FULL_MASK, u, s, 1);
    q[3] = __shfl_up_sync(FULL_MASK, u, delta, 4);
}

// The same with float (moved bit for bit: -0.0 and NaN payloads survive), double
// and long long (8 bytes: two 32-bit shuffles).
__global__ void shfl_wide_edges(const float *f, const double *d, const long long *l,
                                const int *src, float *of, double *od, long long *ol)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = src[i];
    float fv = f[i];
    double dv = d[i];
    long long lv = l[i];
    of[4 * i + 0] = __shfl_sync(FULL_MASK, fv, s, 16);
    of[4 * i + 1] = __shfl_down_sync(FULL_MASK, fv, 1, 8);
    of[4 * i + 2] = __shfl_xor_sync(FULL_MASK, fv, 1, 2);
    of[4 * i + 3] = __shfl_up_sync(FULL_MASK, fv, 7, 8);
    od[3 * i + 0] = __shfl_sync(FULL_MASK, dv, s, 8);
    od[3 * i + 1] = __shfl_up_sync(FULL_MASK, dv, 2, 16);
    od[3 * i + 2] = __shfl_xor_sync(FULL_MASK, dv, 4, 4);
    ol[3 * i + 0] = __shfl_sync(FULL_MASK, lv, s, 16);
    ol[3 * i + 1] = __shfl_down_sync(FULL_MASK, lv, 3, 8);
    ol[3 * i + 2] = __shfl_xor_sync(FULL_MASK, lv, 16, 16);
}

// ---------------------------------------------------------------- scans

// Kogge-Stone inclusive scan of a full warp: after the step with offset k each
// lane holds the sum of the 2k lanes ending at it (lanes below k add nothing).
__device__ int warp_inclusive_scan(int v, int lane)
{
    for (int offset = 1; offset < 32; offset <<= 1) {
        int t = __shfl_up_sync(FULL_MASK, v, offset);
        if (lane >= offset)
            v += t;
    }
    return v;
}

// Block scan of 128-element tiles (blockDim.x a multiple of 32, at most 1024):
// scan each warp, scan the warp totals in warp 0, add the totals of the warps
// before. Elements past n count as 0; tot[block] is the tile's sum.
__global__ void block_scan_shfl(const int *x, int *incl, int *excl, int *tot, int n)
{
    __shared__ int warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    int nwarps = blockDim.x >> 5;
    int v = i < n ? x[i] : 0;
    int s = warp_inclusive_scan(v, lane);
    if (lane == 31)
        warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        int w = lane < nwarps ? warp_sums[lane] : 0;
        w = warp_inclusive_scan(w, lane);
        if (lane < nwarps)
            warp_sums[lane] = w;          // inclusive prefix of the warp totals
    }
    __syncthreads();
    if (warp > 0)
        s += warp_sums[warp - 1];
    if (i < n) {
        incl[i] = s;
        excl[i] = s - v;
    }
    if (threadIdx.x == blockDim.x - 1)
        tot[blockIdx.x] = s;
}

// Logical warps of 8 and 16 lanes, each shuffling under its own member mask (the
// lanes of its segment) as CUB's WarpScanShfl does: a segmented scan of doubles,
// a running maximum of floats, and butterfly (xor) reductions whose result every
// lane of the segment holds.
__global__ void subwarp_scan_reduce(const double *dv, const float *fv, const int *iv,
                                    double *dscan8, float *fmax16, float *fsum8, int *imax8)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int lane8 = lane & 7, lane16 = lane & 15;
    unsigned int mask8 = 0xffu << (lane & ~7);
    unsigned int mask16 = 0xffffu << (lane & ~15);

    double d = dv[i];
    for (int offset = 1; offset < 8; offset <<= 1) {
        double t = __shfl_up_sync(mask8, d, offset, 8);
        if (lane8 >= offset)
            d += t;
    }
    dscan8[i] = d;

    float m = fv[i];
    for (int offset = 1; offset < 16; offset <<= 1) {
        float t = __shfl_up_sync(mask16, m, offset, 16);
        if (lane16 >= offset)
            m = fmaxf(m, t);
    }
    fmax16[i] = m;

    float f = fv[i];
    int k = iv[i];
    for (int offset = 4; offset > 0; offset >>= 1) {
        f += __shfl_xor_sync(mask8, f, offset, 8);
        k = max(k, __shfl_xor_sync(mask8, k, offset, 8));
    }
    fsum8[i] = f;
    imax8[i] = k;
}

// ---------------------------------------------------------------- divergent branches

// Warp-aggregated increment: the lanes that arrive together elect a leader, which
// adds their count once; each lane's slot is the base plus its rank in the group.
__device__ int atomic_agg_inc(int *counter)
{
    unsigned int active = __activemask();
    int lane = threadIdx.x & 31;
    int leader = __ffs(active) - 1;
    int base = 0;
    if (lane == leader)
        base = atomicAdd(counter, __popc(active));
    base = __shfl_sync(active, base, leader);
    return base + __popc(active & ((1u << lane) - 1));
}

// The warp splits on v > 0. Each branch works under the mask of its own lanes,
// taken by a ballot of the whole warp before it diverged. info[4 * i ...]: the
// branch's mask, a ballot inside the branch (odd values among positives, zeros
// among the others) and its popcount, and a value shuffled within the branch
// (positives: the next positive lane's value, wrapping; others: the first such
// lane's). The positive values are compacted into out through count.
__global__ void divergent_ballot_filter(const int *v, unsigned int *info, int *out, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int x = v[i];
    unsigned int positive = __ballot_sync(FULL_MASK, x > 0);
    unsigned int *p = info + 4 * i;
    if (x > 0) {
        unsigned int group = positive;
        __syncwarp(group);
        unsigned int odd = __ballot_sync(group, x & 1);
        unsigned int above = group & ~(0xffffffffu >> (31 - lane));   // lanes > lane
        int next = __ffs(above ? above : group) - 1;
        int nv = __shfl_sync(group, x, next);
        p[0] = group;
        p[1] = odd;
        p[2] = __popc(odd);
        p[3] = (unsigned int)nv;
        out[atomic_agg_inc(count)] = x;
    } else {
        unsigned int group = ~positive;
        __syncwarp(group);
        unsigned int zero = __ballot_sync(group, x == 0);
        int first = __shfl_sync(group, x, __ffs(group) - 1);
        p[0] = group;
        p[1] = zero;
        p[2] = __popc(zero);
        p[3] = (unsigned int)first;
    }
    __syncwarp();
}

// ---------------------------------------------------------------- warp match

// Per lane: the lanes holding its key (peers) and the sum of their values, the
// __match_all_sync mask and predicate for the warp and (lanes 0-15 only, the others
// leave their slots as they were) for key >> 2 over the half warp; the peers of a
// 64-bit key and of a float key (compared as bits). Each group's lowest lane adds
// the group's size to hist[key] once.
__global__ void match_peers_histogram(const int *key, const int *val,
                                      const unsigned long long *key64, const float *fkey,
                                      unsigned int *peers, int *psum, unsigned int *all,
                                      int *pred, unsigned int *all16, int *pred16,
                                      unsigned int *peers64, unsigned int *peersf, int *hist)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int k = key[i];
    int v = val[i];
    unsigned int same = __match_any_sync(FULL_MASK, k);
    int sum = 0;
    for (int j = 0; j < 32; ++j) {
        int t = __shfl_sync(FULL_MASK, v, j);
        if (same >> j & 1)
            sum += t;
    }
    peers[i] = same;
    psum[i] = sum;
    if (lane == __ffs(same) - 1)
        atomicAdd(&hist[k], __popc(same));

    int p;
    all[i] = __match_all_sync(FULL_MASK, k, &p);
    pred[i] = p;
    if (lane < 16) {
        int p16;
        all16[i] = __match_all_sync(0x0000ffffu, k >> 2, &p16);
        pred16[i] = p16;
    }
    peers64[i] = __match_any_sync(FULL_MASK, key64[i]);
    peersf[i] = __match_any_sync(FULL_MASK, fkey[i]);
}
