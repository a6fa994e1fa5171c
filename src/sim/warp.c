/*
 * sim/warp.c — what the lanes of a warp do together, for the fibers of
 * sim/fiber.c: __syncwarp, shuffles, ballot (and so votes, matches and warp
 * reductions, which the prelude builds on them), __activemask (and so
 * cooperative_groups::coalesced_threads()), and the barrier-with-exchange of
 * a thread_block_tile wider than a warp.
 *
 * Warp operations: a lane parks with its mask; the operation completes when
 * every live lane named in the mask has arrived with the same mask (lanes
 * that exited are not waited for).
 *
 * __activemask(): on a GPU, the lanes executing the call together — inside
 * `if (lane < 20)` the 20 lanes of the branch, not the whole warp. The
 * simulator runs a warp's lanes one after another, so it decides at the
 * call, by this model:
 *  - A lane calling __activemask() parks there. Once no lane of its warp can
 *    run any further (each is parked in some call — a barrier, a warp
 *    operation, __activemask — or has exited), the warp has settled.
 *  - Lanes parked in __activemask() at the same call site (the return
 *    address into the kernel's code: each inlined call is its own) and the
 *    same stack depth are converged: the call returns their mask to each.
 *  - One such group is released at a time, the one furthest behind: the
 *    deepest stack first, then the earliest source line (the prelude passes
 *    the caller's __builtin_LINE()), then the lowest code address — the
 *    MinSP-PC heuristic of SIMT reconvergence, by source order because the
 *    host compiler moves branch bodies out of line. Released lanes run
 *    until they park again, and the warp settles anew. So lanes that
 *    skipped an `if` or left a loop early meet the others at the next
 *    __activemask() after the join, as on a GPU after the branch's
 *    reconvergence point; an if and its else get a mask each.
 * Limits: the order is the source's, so a divergent branch late in a loop
 * body is "ahead" of lanes that already went round to the loop's top: an
 * __activemask() at the top of the next iteration sees those lanes alone
 * (on a GPU they wait for the branch at its reconvergence point). Lanes
 * that reach the same call in different iterations may be grouped (legal
 * under independent thread scheduling, where the GPU usually keeps them
 * apart). A helper that is not inlined and calls __activemask() for two
 * divergent branches at the same stack depth is one call site here (on a
 * GPU the branches run apart); stacks of data-dependent depth (alloca)
 * count as diverged. The Programming Guide promises no more than that the
 * mask's lanes execute the call together: every lane in a mask here does.
 *
 * Warp-wide calls (nvcuda::wmma's load_matrix_sync, store_matrix_sync and
 * mma_sync, whose fragments are spread over the warp's lanes) are warp
 * operations over the whole warp that insist on it: all 32 lanes must
 * exist, none may have exited, and all must meet at the same call (its name
 * and source line). Anything else is what a GPU leaves undefined (or hangs
 * on): a synccheck error in check mode, a launch failure else, as for a
 * barrier not every thread reaches. Each lane deposits a pointer (to its
 * fragments) and gets the warp's 32 back.
 *
 * A tile wider than a warp (thread_block_tile<64..1024>) synchronizes
 * through tile_shfl, a barrier over its threads that also exchanges one
 * 8-byte value; the prelude builds sync, shfl, votes, reduce and scan on it.
 */
#include <string.h>

#include "sim/check.h"
#include "sim/sim.h"

static sim_warp *warp_of(sim_block *b, const sim_fiber *f)
{
    return &b->warps[f->index / PCC_SIM_WARP_SIZE];
}

/* ---- warp operations --------------------------------------------------------------------- */

enum { OP_SYNC = 0, OP_SHFL, OP_BALLOT, OP_WIDE };

/* A warp-wide call's group must be the whole warp at one call; t: the
 * thread that completes the group (named in the error). */
static void check_wide(const sim_warp *w, unsigned int group, int wi, const pcc_sim_thread *t)
{
    int first = -1;
    for (unsigned int m = group; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        if (first < 0 && w->op[j] == OP_WIDE)
            first = j;
    }
    if (first < 0)
        return;
    for (unsigned int m = group; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        if (w->op[j] != OP_WIDE)
            sim_fail_sync(t, "%s (line %d) is warp-wide: lane %d of warp %d waits there while "
                          "lane %d of the warp waits in another warp operation (a divergent "
                          "wmma call)", w->what[first], w->src[first], first, wi, j);
        if (w->what[j] != w->what[first] || w->src[j] != w->src[first])
            sim_fail_sync(t, "%s is warp-wide, and the lanes of warp %d are at different calls: "
                          "lane %d at %s (line %d), lane %d at %s (line %d) (a divergent wmma "
                          "call)", w->what[first], wi, first, w->what[first], w->src[first], j,
                          w->what[j], w->src[j]);
    }
}

/* Completes the group lane `lane` waits in, when all of it has arrived. */
static int warp_try_complete(sim_warp *w, int lane, int wi, const pcc_sim_thread *t)
{
    unsigned int need = (w->mask[lane] & w->live) | (1u << lane);
    if ((w->waiting & need) != need)
        return 0;
    unsigned int ballot = 0;
    for (unsigned int m = need; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        if (((w->mask[j] & w->live) | (1u << j)) != need)
            return 0; /* a lane of the group waits with another mask */
        if (w->pred[j])
            ballot |= 1u << j;
    }
    check_wide(w, need, wi, t);
    for (unsigned int m = need; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        if (w->op[j] == OP_SHFL) {
            int s = w->src[j];
            w->result[j] = s >= 0 && s < PCC_SIM_WARP_SIZE && (need >> s & 1u) ? w->value[s]
                                                                              : w->value[j];
        } else {
            w->result[j] = ballot;
        }
    }
    w->waiting &= ~need;
    w->epoch++; /* the lanes synchronized: racecheck orders what came before */
    return 1;
}

static unsigned long long warp_op(pcc_sim_thread *t, int op, unsigned int mask,
                                  unsigned long long value, int src, int pred)
{
    sim_fiber *f = t->runtime;
    sim_block *b = f->block;
    if (b == NULL)
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                 "a warp operation ran in a kernel compiled without synchronization support");
    sim_warp *w = warp_of(b, f);
    int lane = (int)t->lane;
    w->mask[lane] = mask;
    w->value[lane] = value;
    w->src[lane] = src;
    w->pred[lane] = pred;
    w->op[lane] = op;
    w->waiting |= 1u << lane;
    if (!warp_try_complete(w, lane, f->index / PCC_SIM_WARP_SIZE, t)) {
        f->state = SIM_F_WARP;
        sim_fiber_park(b, f);
    }
    return w->result[lane];
}

void sim_api_syncwarp(pcc_sim_thread *t, unsigned int mask)
{
    warp_op(t, OP_SYNC, mask, 0, 0, 0);
}

unsigned long long sim_api_shfl(pcc_sim_thread *t, unsigned int mask, unsigned long long value,
                                int src_lane)
{
    return warp_op(t, OP_SHFL, mask, value, src_lane, 0);
}

unsigned int sim_api_ballot(pcc_sim_thread *t, unsigned int mask, int pred)
{
    return (unsigned int)warp_op(t, OP_BALLOT, mask, 0, 0, pred != 0);
}

/* The lanes of warp wi that exist in a block of n threads. */
static unsigned int lanes_of(int n, int wi)
{
    int lanes = n - wi * PCC_SIM_WARP_SIZE;
    return lanes >= PCC_SIM_WARP_SIZE ? 0xffffffffu : (1u << lanes) - 1;
}

void *const *sim_api_warp_wide(pcc_sim_thread *t, void *mine, const char *what, int line)
{
    sim_fiber *f = t->runtime;
    sim_block *b = f->block;
    if (b == NULL)
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED,
                 "%s ran in a kernel compiled without synchronization support", what);
    int wi = f->index / PCC_SIM_WARP_SIZE;
    sim_warp *w = &b->warps[wi];
    unsigned int exist = lanes_of(b->nthreads, wi);
    if (exist != 0xffffffffu)
        sim_fail_sync(t, "%s (line %d) is warp-wide and needs all 32 lanes of the warp, but "
                      "warp %d of the block has %d threads (a block of %d threads is no "
                      "multiple of 32)", what, line, wi, __builtin_popcount(exist), b->nthreads);
    if (w->live != exist)
        sim_fail_sync(t, "%s (line %d) not reached by every lane of the warp: it is warp-wide, "
                      "and lanes 0x%08x of warp %d have already exited", what, line,
                      exist & ~w->live, wi);
    w->what[t->lane] = what;
    w->gather[t->lane] = mine;
    warp_op(t, OP_WIDE, 0xffffffffu, 0, line, 0);
    return w->gather;
}

const char *sim_warp_wide_call(const sim_block *b, const sim_fiber *f, int *line)
{
    const sim_warp *w = &b->warps[f->index / PCC_SIM_WARP_SIZE];
    if (f->state != SIM_F_WARP || w->op[f->t.lane] != OP_WIDE)
        return NULL;
    *line = w->src[f->t.lane];
    return w->what[f->t.lane];
}

void sim_warp_lane_exited(sim_block *b, sim_fiber *f)
{
    sim_warp *w = warp_of(b, f);
    int wi = f->index / PCC_SIM_WARP_SIZE;
    w->live &= ~(1u << f->t.lane);
    for (unsigned int m = w->waiting; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        if (w->op[j] == OP_WIDE)
            sim_fail_sync(&f->t, "%s (line %d) not reached by every lane of the warp: it is "
                          "warp-wide, and lane %d of warp %d exited while lanes 0x%08x wait "
                          "there", w->what[j], w->src[j], (int)f->t.lane, wi, w->waiting);
    }
    /* Lanes that waited for this one in a warp op may be complete now. */
    for (unsigned int m = w->waiting; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        if (w->waiting & (1u << j))
            warp_try_complete(w, j, wi, &f->t);
    }
}

/* ---- __activemask: converged lanes ---------------------------------------------------------- */

/* Whether lanes parked at a's call are behind those at b's: deeper in
 * calls, else earlier in the source (same file), else in the code. */
static int behind(const sim_fiber *a, const sim_fiber *b)
{
    if (a->conv_depth != b->conv_depth)
        return a->conv_depth > b->conv_depth;
    if (a->conv_file == b->conv_file && a->conv_line != b->conv_line)
        return a->conv_line < b->conv_line;
    return a->conv_pc < b->conv_pc;
}

void sim_warp_settle(sim_block *b, int wi)
{
    sim_warp *w = &b->warps[wi];
    sim_fiber *lanes = &b->fibers[wi * PCC_SIM_WARP_SIZE];
    for (unsigned int m = w->live & ~w->converging; m; m &= m - 1)
        if (sim_fiber_runnable(b, &lanes[__builtin_ctz(m)]))
            return; /* a lane can still run: it may yet join */
    /* the group that is furthest behind */
    const sim_fiber *pick = NULL;
    for (unsigned int m = w->converging; m; m &= m - 1) {
        const sim_fiber *f = &lanes[__builtin_ctz(m)];
        if (pick == NULL || behind(f, pick))
            pick = f;
    }
    if (pick == NULL)
        return;
    unsigned int group = 0;
    for (unsigned int m = w->converging; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        if (lanes[j].conv_pc == pick->conv_pc && lanes[j].conv_depth == pick->conv_depth)
            group |= 1u << j;
    }
    for (unsigned int m = group; m; m &= m - 1) {
        sim_fiber *f = &lanes[__builtin_ctz(m)];
        f->conv_mask = group;
        f->state = SIM_F_READY;
    }
    w->converging &= ~group;
}

/* noinline: its return address is the call site in the kernel's code. */
__attribute__((noinline)) unsigned int sim_api_activemask(pcc_sim_thread *t, const char *file,
                                                        int line)
{
    sim_fiber *f = t->runtime;
    sim_block *b = f->block;
    if (b == NULL) {
        /* Plain mode (a kernel with no warp operation): every lane of the
         * warp that exists. */
        unsigned int n = t->blockDim.x * t->blockDim.y * t->blockDim.z;
        unsigned int first = t->linear & ~31u, lanes = n - first < 32 ? n - first : 32;
        return lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    }
    f->conv_pc = (uintptr_t)__builtin_return_address(0);
    f->conv_depth = sim_fiber_depth(b, f, __builtin_frame_address(0));
    f->conv_file = file;
    f->conv_line = line;
    f->state = SIM_F_CONVERGE;
    warp_of(b, f)->converging |= 1u << t->lane;
    sim_fiber_park(b, f); /* settles the warp when f is the last lane to stop */
    return f->conv_mask;
}

/* ---- tiles wider than a warp ---------------------------------------------------------------- */

unsigned long long sim_api_tile_shfl(pcc_sim_thread *t, unsigned int count,
                                     unsigned long long value, int src_rank)
{
    sim_fiber *f = t->runtime;
    sim_block *b = f->block;
    if (count < 2 || count > 1024 || (count & (count - 1)) != 0)
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED, "thread_block_tile<%u>: a tile has a power-of-two "
                 "size up to 1024 threads", count);
    if (b == NULL)
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED, "a thread_block_tile<%u> operation ran in a kernel "
                 "compiled without synchronization support", count);
    unsigned int first = t->linear & ~(count - 1);
    unsigned int need = (unsigned int)b->nthreads - first < count ? (unsigned int)b->nthreads - first
                                                                  : count;
    sim_tile *s = &b->tiles[first];
    if (s->arrived == 0)
        s->count = count;
    else if (s->count != count)
        sim_fail(t, CUDA_ERROR_LAUNCH_FAILED, "threads %u.. of the block wait at the barriers of "
                 "a thread_block_tile<%u> and a thread_block_tile<%u> at once", first, s->count,
                 count);
    f->tile_first = first;
    f->tile_value = value;
    f->tile_src = src_rank;
    if (++s->arrived < need) {
        f->state = SIM_F_TILE;
        f->wait_gen = s->gen;
        sim_fiber_park(b, f);
        return f->tile_result;
    }
    /* the last to arrive hands every member what it asked for */
    sim_fiber *members = &b->fibers[first];
    for (unsigned int j = 0; j < need; j++) {
        int src = members[j].tile_src;
        members[j].tile_result = src >= 0 && (unsigned int)src < need ? members[src].tile_value
                                                                      : members[j].tile_value;
    }
    s->arrived = 0;
    s->gen++;
    b->race_epoch++; /* racecheck: the tile synchronized (the block's other tiles too, a
                        simplification that can hide a race between tiles, never invent one) */
    return f->tile_result;
}
