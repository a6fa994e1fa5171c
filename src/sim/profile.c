/*
 * sim/profile.c — the teaching profile (pycudac.driver.sim_profile): per
 * memory instruction of a kernel, what a warp's request costs on a GPU.
 * Global memory moves in 32-byte sectors: a request whose lanes' bytes fall
 * in few sectors is coalesced, one that touches a sector per lane is not.
 * Shared memory has 32 banks of 4-byte words: lanes that want different
 * words of one bank wait for each other (an n-way bank conflict), the same
 * word is broadcast.
 *
 * The simulator runs a warp's lanes one after another, so a "request" is
 * rebuilt: the k-th time lane L runs an instruction joins the k-th time
 * its warp's other lanes run it. A block's requests are counted when it
 * ends (its groups kept per worker until then), into rows per instruction
 * shared by all workers. Lines come from addr2line when the rows are read.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/check.h"

typedef struct {
    uintptr_t addr[PCC_SIM_WARP_SIZE];
    unsigned int mask;
} group;

/* One instruction (pc) of one warp in the block running now. */
typedef struct {
    uintptr_t pc;     /* 0: free slot */
    unsigned int warp;
    unsigned char shared, write;
    unsigned int size;
    unsigned int next[PCC_SIM_WARP_SIZE]; /* each lane's next group */
    group *g;
    size_t n, cap;
    unsigned long long dropped; /* accesses past the cap */
} slot;

struct sim_profile {
    slot *s;
    size_t cap, used;
    size_t groups; /* of all slots, for the cap */
};

/* The rows of the launches so far (under lock). */
typedef struct {
    pcc_profile_row r;
    uintptr_t pc;
    CUmodule mod; /* until its line is found */
} row;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static row *rows;
static size_t nrows, caprows;

/* At most this many groups a block keeps, over all its instructions and
 * warps (8 MiB of addresses a worker); what a block does past it is not
 * counted, only counted as dropped (a warp's lanes run one after another:
 * a request is complete only when the block ends). */
#define SIM_PROFILE_MAX_GROUPS 32768

sim_profile *sim_profile_new(void)
{
    return calloc(1, sizeof(sim_profile));
}

static void clear(sim_profile *p)
{
    for (size_t i = 0; i < p->cap; i++) {
        free(p->s[i].g);
        memset(&p->s[i], 0, sizeof p->s[i]);
    }
    p->used = 0;
    p->groups = 0;
}

void sim_profile_free(sim_profile *p)
{
    if (p) {
        clear(p);
        free(p->s);
        free(p);
    }
}

static size_t hash(uintptr_t pc, unsigned int warp, size_t cap)
{
    unsigned long long h = ((unsigned long long)pc * 31 + warp) * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h >> 24) & (cap - 1);
}

static slot *find(sim_profile *p, uintptr_t pc, unsigned int warp)
{
    if (p->cap == 0 || (p->used + 1) * 2 > p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        slot *n = calloc(cap, sizeof *n);
        if (n == NULL)
            return NULL;
        for (size_t i = 0; i < p->cap; i++) {
            if (p->s[i].pc == 0)
                continue;
            size_t j = hash(p->s[i].pc, p->s[i].warp, cap);
            while (n[j].pc)
                j = (j + 1) & (cap - 1);
            n[j] = p->s[i];
        }
        free(p->s);
        p->s = n;
        p->cap = cap;
    }
    size_t j = hash(pc, warp, p->cap);
    for (; p->s[j].pc; j = (j + 1) & (p->cap - 1))
        if (p->s[j].pc == pc && p->s[j].warp == warp)
            return &p->s[j];
    p->s[j].pc = pc;
    p->s[j].warp = warp;
    p->used++;
    return &p->s[j];
}

void sim_profile_access(sim_profile *p, const pcc_sim_thread *t, int shared, uintptr_t a,
                        size_t size, int write, uintptr_t pc)
{
    slot *s = find(p, pc, t->linear / PCC_SIM_WARP_SIZE);
    if (s == NULL)
        return;
    s->shared = (unsigned char)shared;
    s->write = (unsigned char)write;
    s->size = (unsigned int)size;
    unsigned int lane = t->lane;
    unsigned int k = s->next[lane]++;
    if (k >= s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        group *g = NULL;
        if (p->groups + (cap - s->cap) > SIM_PROFILE_MAX_GROUPS ||
            (g = realloc(s->g, cap * sizeof *g)) == NULL) {
            s->dropped++;
            return;
        }
        memset(g + s->cap, 0, (cap - s->cap) * sizeof *g);
        p->groups += cap - s->cap;
        s->g = g;
        s->cap = cap;
    }
    if (k >= s->n)
        s->n = k + 1;
    s->g[k].addr[lane] = a;
    s->g[k].mask |= 1u << lane;
}

/* Distinct values among n (n <= 32 * 4). */
static unsigned int distinct(uintptr_t *v, unsigned int n)
{
    unsigned int d = 0;
    for (unsigned int i = 0; i < n; i++) {
        unsigned int j = 0;
        while (j < i && v[j] != v[i])
            j++;
        d += j == i;
    }
    return d;
}

/* The distinct bytes of the lanes' accesses [a, a+size): a broadcast's
 * lanes need the bytes of one. */
static unsigned long long distinct_bytes(const group *g, unsigned int size)
{
    uintptr_t a[PCC_SIM_WARP_SIZE];
    unsigned int n = 0;
    for (unsigned int m = g->mask; m; m &= m - 1) {
        uintptr_t x = g->addr[__builtin_ctz(m)];
        unsigned int i = n++;
        for (; i > 0 && a[i - 1] > x; i--)
            a[i] = a[i - 1];
        a[i] = x;
    }
    unsigned long long bytes = 0;
    uintptr_t end = 0; /* past the bytes counted so far */
    for (unsigned int i = 0; i < n; i++) {
        uintptr_t lo = a[i] > end ? a[i] : end, hi = a[i] + size;
        if (hi > lo)
            bytes += hi - lo;
        if (hi > end)
            end = hi;
    }
    return bytes;
}

/* One request: the sectors it touched and the fewest it could have, or the
 * ways of its worst bank conflict. */
static void count(const slot *s, const group *g, row *r)
{
    uintptr_t v[PCC_SIM_WARP_SIZE * 4];
    unsigned int n = 0, lanes = (unsigned int)__builtin_popcount(g->mask);
    unsigned int size = s->size ? s->size : 1;
    r->r.requests++;
    r->r.lanes += lanes;
    if (!s->shared) {
        for (unsigned int m = g->mask; m; m &= m - 1) {
            uintptr_t a = g->addr[__builtin_ctz(m)];
            for (uintptr_t sec = a >> 5; sec <= (a + size - 1) >> 5 && n < sizeof v / sizeof *v; sec++)
                v[n++] = sec;
        }
        r->r.sectors += distinct(v, n);
        r->r.ideal_sectors += (distinct_bytes(g, size) + 31) / 32;
        return;
    }
    /* shared: each 4-byte word a lane wants, by bank; the same word is one */
    unsigned int ways = 1;
    uintptr_t words[PCC_SIM_WARP_SIZE * 4];
    for (unsigned int m = g->mask; m; m &= m - 1) {
        uintptr_t a = g->addr[__builtin_ctz(m)];
        for (uintptr_t w = a >> 2; w <= (a + size - 1) >> 2 && n < sizeof words / sizeof *words; w++)
            words[n++] = w;
    }
    for (unsigned int bank = 0; bank < 32; bank++) {
        unsigned int k = 0;
        for (unsigned int i = 0; i < n; i++)
            if ((words[i] & 31) == bank)
                v[k++] = words[i];
        unsigned int d = distinct(v, k);
        if (d > ways)
            ways = d;
    }
    r->r.conflict_ways += ways;
    if (ways > r->r.max_conflict_ways)
        r->r.max_conflict_ways = ways;
}

static row *row_of(const slot *s, CUmodule m, const char *kernel)
{
    for (size_t i = 0; i < nrows; i++) {
        row *r = &rows[i];
        if (r->pc == s->pc && r->mod == m && r->r.is_write == s->write &&
            (strcmp(r->r.space, "shared") == 0) == s->shared && strcmp(r->r.kernel, kernel) == 0)
            return r;
    }
    if (nrows == caprows) {
        size_t cap = caprows ? caprows * 2 : 32;
        row *n = realloc(rows, cap * sizeof *n);
        if (n == NULL)
            return NULL;
        rows = n;
        caprows = cap;
    }
    row *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    r->pc = s->pc;
    r->mod = m;
    r->r.is_write = s->write;
    r->r.size = s->size;
    snprintf(r->r.space, sizeof r->r.space, "%s", s->shared ? "shared" : "global");
    snprintf(r->r.kernel, sizeof r->r.kernel, "%s", kernel);
    return r;
}

void sim_profile_block_end(sim_profile *p, CUmodule m, const char *kernel)
{
    if (p->used == 0)
        return;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < p->cap; i++) {
        const slot *s = &p->s[i];
        row *r = s->pc ? row_of(s, m, kernel) : NULL;
        if (r)
            r->r.dropped += s->dropped;
        for (size_t k = 0; r && k < s->n; k++)
            if (s->g[k].mask)
                count(s, &s->g[k], r);
    }
    pthread_mutex_unlock(&lock);
    clear(p);
}

/* Names the lines of module m's rows that have none yet (lock held). */
static void name_lines(CUmodule m)
{
    for (;;) {
        uintptr_t pcs[64];
        size_t idx[64], n = 0;
        for (size_t j = 0; j < nrows && n < 64; j++)
            if (rows[j].mod == m && rows[j].r.file[0] == '\0') {
                pcs[n] = rows[j].pc;
                idx[n++] = j;
            }
        if (n == 0)
            return;
        char files[64][256];
        int lines[64];
        sim_report_lines(m, pcs, n, files, lines);
        for (size_t k = 0; k < n; k++) {
            row *q = &rows[idx[k]];
            snprintf(q->r.file, sizeof q->r.file, "%.255s", files[k][0] ? files[k] : "?");
            q->r.line = lines[k];
        }
    }
}

/* Rows of one source line, space and direction are one (an unrolled loop
 * has several copies of an instruction). */
static int same_place(const pcc_profile_row *a, const pcc_profile_row *b)
{
    return a->line == b->line && a->is_write == b->is_write && a->size == b->size &&
           strcmp(a->space, b->space) == 0 && strcmp(a->file, b->file) == 0 &&
           strcmp(a->kernel, b->kernel) == 0;
}

static int by_place(const void *x, const void *y)
{
    const pcc_profile_row *a = x, *b = y;
    int c = strcmp(a->kernel, b->kernel);
    if (c == 0)
        c = strcmp(a->file, b->file);
    if (c == 0)
        c = (a->line > b->line) - (a->line < b->line);
    if (c == 0)
        c = strcmp(a->space, b->space);
    if (c == 0)
        c = a->is_write - b->is_write;
    return c;
}

size_t sim_profile_rows(pcc_profile_row *out, size_t max, int reset)
{
    pthread_mutex_lock(&lock);
    /* name the lines of rows whose module is still loaded (a module that
     * went named its own: sim_profile_module_gone) */
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].mod && rows[i].r.file[0] == '\0')
            name_lines(rows[i].mod);
    pcc_profile_row *merged = nrows ? malloc(nrows * sizeof *merged) : NULL;
    size_t total = 0;
    for (size_t i = 0; merged && i < nrows; i++) {
        const pcc_profile_row *r = &rows[i].r;
        size_t j = 0;
        while (j < total && !same_place(&merged[j], r))
            j++;
        if (j == total) {
            merged[total++] = *r;
            continue;
        }
        pcc_profile_row *m = &merged[j];
        m->requests += r->requests;
        m->lanes += r->lanes;
        m->sectors += r->sectors;
        m->ideal_sectors += r->ideal_sectors;
        m->conflict_ways += r->conflict_ways;
        m->dropped += r->dropped;
        if (r->max_conflict_ways > m->max_conflict_ways)
            m->max_conflict_ways = r->max_conflict_ways;
    }
    if (merged)
        qsort(merged, total, sizeof *merged, by_place);
    for (size_t i = 0; i < total && i < max && out; i++)
        out[i] = merged[i];
    free(merged);
    if (reset)
        nrows = 0;
    pthread_mutex_unlock(&lock);
    return total;
}

void sim_profile_module_gone(CUmodule m)
{
    pthread_mutex_lock(&lock);
    name_lines(m); /* while its shared object is still there */
    for (size_t i = 0; i < nrows; i++)
        if (rows[i].mod == m)
            rows[i].mod = NULL;
    pthread_mutex_unlock(&lock);
}
