/*
 * sim/race.c — racecheck's memory of who touched what in the current
 * interval, per worker (a block runs on one worker, so nothing here is
 * shared between threads of the OS).
 *
 * Two threads of a block race on a byte when both access it, at least one
 * writes, and nothing orders them: they are in the same barrier interval
 * (no __syncthreads between them), and, if they are lanes of one warp, in
 * the same warp interval too (no __syncwarp or other warp operation between
 * them — warp-synchronous code that relies on lockstep, such as the classic
 * volatile reduction, is a race under independent thread scheduling).
 * Atomics are left out by the caller.
 *
 * Per 4-byte word: the last writer and up to two readers, each with the
 * bytes it touched, its warp interval and its code address; an entry of
 * another block run or barrier interval counts as empty. Shared memory (the
 * worker's TLS block, the dynamic shared bytes) is a table indexed by word;
 * global memory an open-addressing hash of the words this block run touched.
 * Keeping one writer and two readers per word can miss a race (a third
 * thread's access to bytes another wrote earlier in the interval) but never
 * invents one.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/check.h"

typedef struct {
    uint32_t gen, bar;  /* block run and barrier interval it belongs to */
    uint16_t w, r1, r2; /* thread + 1 (0: none) */
    uint16_t wep, r1ep, r2ep;
    uint32_t wpc, r1pc, r2pc;
    uint8_t wm, r1m, r2m; /* the bytes of the word each touched */
} ent;

typedef struct {
    uintptr_t key; /* word address */
    ent e;
} slot;

struct sim_race {
    ent *sh;             /* per word: the TLS block's, then the dynamic bytes' */
    size_t sh_cap;
    uintptr_t tls_lo, dyn_lo;
    size_t tls_words, dyn_words;
    slot *g;             /* global memory, this block run */
    size_t g_cap, g_live;
    uint32_t gen;        /* of the block run the table holds */
};

sim_race *sim_race_new(void)
{
    return calloc(1, sizeof(sim_race));
}

void sim_race_free(sim_race *r)
{
    if (r) {
        free(r->sh);
        free(r->g);
        free(r);
    }
}

int sim_race_shared_range(sim_race *r, uintptr_t tls_lo, size_t tls_len, uintptr_t dyn_lo,
                          size_t dyn_len)
{
    size_t tw = (tls_len + (tls_lo & 3) + 3) / 4, dw = (dyn_len + (dyn_lo & 3) + 3) / 4;
    if (tw + dw > r->sh_cap) {
        ent *n = calloc(tw + dw, sizeof *n); /* gen 0: empty (block runs count from 1) */
        if (n == NULL)
            return -1;
        free(r->sh);
        r->sh = n;
        r->sh_cap = tw + dw;
    }
    r->tls_lo = tls_lo & ~(uintptr_t)3;
    r->tls_words = tw;
    r->dyn_lo = dyn_lo & ~(uintptr_t)3;
    r->dyn_words = dw;
    return 0;
}

void sim_race_block(sim_race *r)
{
    r->g_live = 0; /* every slot is now of an older block run: empty */
}

/* Whether the access x may run at the same time as thread u (rank + 1) at
 * warp interval uep: another thread, and another warp or the same interval. */
static int concurrent(const sim_race_acc *x, unsigned int u, unsigned int uep)
{
    if (u == 0 || u - 1 == x->me)
        return 0;
    return (u - 1) / PCC_SIM_WARP_SIZE != x->me / PCC_SIM_WARP_SIZE || uep == (x->wep & 0xffff);
}

/* One word's entry, bytes m of it accessed by x. */
static int word(ent *e, const sim_race_acc *x, unsigned int m, sim_hazard *h)
{
    if (e->gen != x->gen || e->bar != x->bar) {
        memset(e, 0, sizeof *e);
        e->gen = x->gen;
        e->bar = x->bar;
    }
    unsigned int me = x->me + 1;
    uint16_t ep = (uint16_t)x->wep;
    int found = 0;
    if ((e->wm & m) && concurrent(x, e->w, e->wep)) {
        *h = (sim_hazard){e->w - 1u, 1, e->wpc};
        found = 1;
    } else if (x->write && (e->r1m & m) && concurrent(x, e->r1, e->r1ep)) {
        *h = (sim_hazard){e->r1 - 1u, 0, e->r1pc};
        found = 1;
    } else if (x->write && (e->r2m & m) && concurrent(x, e->r2, e->r2ep)) {
        *h = (sim_hazard){e->r2 - 1u, 0, e->r2pc};
        found = 1;
    }
    if (x->write) {
        e->wm = e->w == me ? (uint8_t)(e->wm | m) : (uint8_t)m;
        e->w = (uint16_t)me;
        e->wep = ep;
        e->wpc = x->pc;
    } else if (e->r1 == me || e->r1 == 0) {
        e->r1m = e->r1 == me ? (uint8_t)(e->r1m | m) : (uint8_t)m;
        e->r1 = (uint16_t)me;
        e->r1ep = ep;
        e->r1pc = x->pc;
    } else {
        /* the first reader stays; the second is the latest other one */
        e->r2m = e->r2 == me ? (uint8_t)(e->r2m | m) : (uint8_t)m;
        e->r2 = (uint16_t)me;
        e->r2ep = ep;
        e->r2pc = x->pc;
    }
    return found;
}

/* At most this many slots (half of them used) for one block run's global
 * words: 48 MiB a worker. A block that touches more has the rest unwatched. */
#define SIM_RACE_MAX_SLOTS ((size_t)1 << 21)

static size_t hash(uintptr_t key, size_t cap)
{
    unsigned long long h = (unsigned long long)key * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h >> 20) & (cap - 1);
}

/* The slot of word `key` in the global table, made if need be; NULL when
 * out of memory. A slot of an older block run is empty (sim_race_block). */
static ent *global_slot(sim_race *r, uintptr_t key, uint32_t gen)
{
    if (r->gen != gen) {
        r->gen = gen;
        r->g_live = 0;
    }
    if (r->g_cap == 0 || (r->g_live + 1) * 2 > r->g_cap) {
        size_t cap = r->g_cap ? r->g_cap * 2 : 4096;
        if (cap > SIM_RACE_MAX_SLOTS) { /* full: words new to this block run go unwatched */
            size_t j = hash(key, r->g_cap);
            for (; r->g[j].e.gen == gen; j = (j + 1) & (r->g_cap - 1))
                if (r->g[j].key == key)
                    return &r->g[j].e;
            return NULL;
        }
        slot *n = calloc(cap, sizeof *n);
        if (n == NULL)
            return NULL;
        for (size_t i = 0; i < r->g_cap; i++) {
            const slot *s = &r->g[i];
            if (s->e.gen != gen)
                continue;
            size_t j = hash(s->key, cap);
            while (n[j].e.gen == gen)
                j = (j + 1) & (cap - 1);
            n[j] = *s;
        }
        free(r->g);
        r->g = n;
        r->g_cap = cap;
    }
    size_t j = hash(key, r->g_cap);
    for (;;) {
        slot *s = &r->g[j];
        if (s->e.gen != gen) { /* empty: the word is new in this block run */
            memset(s, 0, sizeof *s);
            s->key = key;
            s->e.gen = gen;
            r->g_live++;
            return &s->e;
        }
        if (s->key == key)
            return &s->e;
        j = (j + 1) & (r->g_cap - 1);
    }
}

int sim_race_access(sim_race *r, int shared, uintptr_t a, size_t size, const sim_race_acc *x,
                    sim_hazard *h)
{
    int found = 0;
    uintptr_t end = a + size;
    for (uintptr_t w = a & ~(uintptr_t)3; w < end; w += 4) {
        uintptr_t lo = w > a ? w : a, hi = w + 4 < end ? w + 4 : end;
        unsigned int m = ((1u << (hi - lo)) - 1u) << (lo - w);
        ent *e = NULL;
        if (shared) {
            if (w - r->tls_lo < r->tls_words * 4)
                e = &r->sh[(w - r->tls_lo) / 4];
            else if (w - r->dyn_lo < r->dyn_words * 4)
                e = &r->sh[r->tls_words + (w - r->dyn_lo) / 4];
        } else {
            e = global_slot(r, w, x->gen);
        }
        if (e == NULL)
            continue;
        sim_hazard one;
        if (word(e, x, m, &one) && !found) {
            *h = one;
            found = 1;
        }
    }
    return found;
}

void sim_race_forget(sim_race *r, uintptr_t a, size_t size, uint32_t gen)
{
    if (r->gen != gen || r->g_cap == 0)
        return;
    for (uintptr_t w = a & ~(uintptr_t)3; w < a + size; w += 4) {
        size_t j = hash(w, r->g_cap);
        for (; r->g[j].e.gen == gen; j = (j + 1) & (r->g_cap - 1))
            if (r->g[j].key == w) {
                ent *e = &r->g[j].e;
                uint32_t bar = e->bar;
                memset(e, 0, sizeof *e); /* still this run's slot, with no access in it */
                e->gen = gen;
                e->bar = bar;
                break;
            }
    }
}
