/*
 * sim/report.c — check mode's reports: kept in order of first occurrence,
 * one per check and place (a thousand threads overrunning at one line make
 * one report that counts them), their source lines found after the launch
 * by addr2line over the module's shared object (built with line tables in
 * check mode), and their messages, worded after compute-sanitizer's.
 *
 * Reports are added from any worker (a lock); the lines are looked up once
 * per launch, at its end, before the module could go.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/check.h"
#include "sim/env.h"

/* The most distinct reports kept; more are counted, not kept. */
#define SIM_MAX_REPORTS 4096

typedef struct {
    pcc_check_report r;
    uintptr_t pc, other_pc; /* offsets into the module's code */
    CUmodule mod;           /* until its lines are found (NULL after) */
    unsigned long long launch; /* reports of one launch fold together, not across launches */
    int finished;
} entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static entry *store;
static size_t n_store, cap_store;
static unsigned long long next_serial = 1, dropped;
static char message[4096];

unsigned long long sim_report_next_serial(void)
{
    pthread_mutex_lock(&lock);
    unsigned long long s = next_serial;
    pthread_mutex_unlock(&lock);
    return s;
}

static int same_place(const entry *e, const pcc_check_report *r, uintptr_t pc, uintptr_t other,
                      CUmodule m, unsigned long long launch)
{
    if (e->launch != launch)
        return 0;
    (void)other; /* racecheck: one report per access, with the first other side found */
    if (e->pc != pc || strcmp(e->r.kind, r->kind) != 0 ||
        strcmp(e->r.tool, r->tool) != 0 || strcmp(e->r.kernel, r->kernel) != 0)
        return 0;
    if (pc == 0) /* synccheck: by its text */
        return strcmp(e->r.message, r->message) == 0 && e->mod == m;
    return e->mod == m || e->mod == NULL;
}

int sim_report_add(const pcc_check_report *r, uintptr_t pc, uintptr_t other_pc, CUmodule m,
                   unsigned long long launch)
{
    int added = 0;
    pthread_mutex_lock(&lock);
    /* the newest first: a launch's reports repeat among themselves */
    for (size_t i = n_store; i-- > 0;) {
        if (store[i].launch != launch)
            break; /* older launches: never the same report */
        if (same_place(&store[i], r, pc, other_pc, m, launch)) {
            store[i].r.count++;
            pthread_mutex_unlock(&lock);
            return 0;
        }
    }
    if (n_store == cap_store && cap_store < SIM_MAX_REPORTS) {
        size_t cap = cap_store ? cap_store * 2 : 64;
        entry *n = realloc(store, cap * sizeof *n);
        if (n) {
            store = n;
            cap_store = cap;
        }
    }
    if (n_store < cap_store) {
        entry *e = &store[n_store++];
        e->r = *r;
        e->r.serial = next_serial++;
        e->r.count = 1;
        e->pc = pc;
        e->other_pc = other_pc;
        e->mod = m;
        e->launch = launch;
        e->finished = 0;
        added = 1;
    } else {
        dropped++;
    }
    pthread_mutex_unlock(&lock);
    return added;
}

/* ---- source lines ------------------------------------------------------------------------ */

/* addr2line, found once on PATH (as the simulator last copied it). */
static char a2l[1024];

static void find_addr2line(void)
{
    char *path = pcc_sim_env_dup("PATH");
    const char *p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (*p && a2l[0] == '\0') {
        size_t n = strcspn(p, ":");
        char cand[1024];
        if (n > 0 && n < 900) {
            snprintf(cand, sizeof cand, "%.*s/addr2line", (int)n, p);
            if (access(cand, X_OK) == 0)
                snprintf(a2l, sizeof a2l, "%s", cand);
        }
        p += n;
        if (*p == ':')
            p++;
    }
    free(path);
}

static const char *addr2line_path(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_addr2line);
    return a2l[0] ? a2l : NULL;
}

typedef struct {
    char file[256];
    int line;
} place;

static int from_prelude(const char *file)
{
    /* the simulator's own headers (its private directory's pcc/ and stub/),
     * and the generated registration code */
    return strstr(file, "/pcc/") != NULL || strstr(file, "/stub/") != NULL ||
           strstr(file, "pycudac-sim") != NULL || file[0] == '<' || strcmp(file, "??") == 0;
}

/* Runs addr2line -e so -a -i -C -f over the pcs (module offsets, return
 * addresses: one is taken off); for each the innermost frame in the user's
 * source. */
static void lookup(const char *tool, const char *so_path, const uintptr_t *pcs, size_t n,
                   place *out)
{
    char **argv = calloc(n + 8, sizeof *argv);
    char *addrs = calloc(n, 24);
    int fds[2] = {-1, -1};
    if (argv == NULL || addrs == NULL || pipe(fds) != 0)
        goto done;
    size_t k = 0;
    argv[k++] = (char *)tool;
    argv[k++] = (char *)"-e";
    argv[k++] = (char *)so_path;
    argv[k++] = (char *)"-a";
    argv[k++] = (char *)"-i";
    argv[k++] = (char *)"-f";
    for (size_t i = 0; i < n; i++) {
        snprintf(addrs + 24 * i, 24, "0x%" PRIxPTR, pcs[i] ? pcs[i] - 1 : 0);
        argv[k++] = addrs + 24 * i;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    pid_t pid;
    char *env[] = {(char *)"LC_ALL=C", NULL};
    int rc = posix_spawn(&pid, tool, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    fds[1] = -1;
    if (rc != 0)
        goto done;
    FILE *f = fdopen(fds[0], "r");
    if (f == NULL) {
        waitpid(pid, NULL, 0);
        goto done;
    }
    fds[0] = -1;
    char buf[2048];
    long cur = -1;
    int want_file = 0, settled = 0;
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (strncmp(buf, "0x", 2) == 0) {
            cur++;
            want_file = 0;
            settled = 0;
            continue;
        }
        if (cur < 0 || (size_t)cur >= n)
            continue;
        if (!want_file) { /* a function name; its file:line follows */
            want_file = 1;
            continue;
        }
        want_file = 0;
        char *colon = strrchr(buf, ':');
        if (colon == NULL || settled)
            continue;
        *colon = '\0';
        int line = atoi(colon + 1);
        char *name = buf;
        while (name[0] == '.' && name[1] == '/') /* the compile's directory, made "." */
            name += 2;
        memmove(buf, name, strlen(name) + 1);
        place *p = &out[cur];
        if (p->file[0] == '\0' || (!from_prelude(buf) && from_prelude(p->file))) {
            snprintf(p->file, sizeof p->file, "%.255s", buf);
            p->line = line;
        }
        if (!from_prelude(buf))
            settled = 1; /* the innermost frame in the user's code */
    }
    fclose(f);
    waitpid(pid, NULL, 0);
done:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    free(argv);
    free(addrs);
}

/* The module's shared object in a temporary file, for addr2line. */
static int write_so(CUmodule m, char *path, size_t len)
{
    char *dir = pcc_sim_env_dup("TMPDIR");
    snprintf(path, len, "%s/pycudac-sim-lines-XXXXXX", dir && *dir ? dir : "/tmp");
    free(dir);
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < m->so_len) {
        ssize_t w = write(fd, m->so + done, m->so_len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            unlink(path);
            return -1;
        }
        done += (size_t)w;
    }
    close(fd);
    return 0;
}

void sim_report_lines(CUmodule m, const uintptr_t *pcs, size_t n, char (*files)[256], int *lines)
{
    place *pl = calloc(n + 1, sizeof *pl);
    const char *tool = addr2line_path();
    char path[1100];
    if (pl && m && m->so && tool && n > 0 && write_so(m, path, sizeof path) == 0) {
        lookup(tool, path, pcs, n, pl);
        unlink(path);
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(files[i], 256, "%s", pl ? pl[i].file : "");
        lines[i] = pl ? pl[i].line : 0;
    }
    free(pl);
}

static void fmt_dim(char *buf, size_t len, const unsigned int d[3])
{
    snprintf(buf, len, "(%u,%u,%u)", d[0], d[1], d[2]);
}

static void fmt_place(char *buf, size_t len, const char *file, int line)
{
    if (file[0] && line > 0)
        snprintf(buf, len, "%s:%d", file, line);
    else
        snprintf(buf, len, "an unknown line");
}

/* The whole message, from the report's fields and its note (what check.c
 * left in message: the address's description). */
static void compose(pcc_check_report *r)
{
    char note[sizeof r->message], at[300], blk[48], thr[48], oth[48], other_at[300];
    snprintf(note, sizeof note, "%s", r->message);
    fmt_place(at, sizeof at, r->file, r->line);
    fmt_dim(blk, sizeof blk, r->block);
    fmt_dim(thr, sizeof thr, r->thread);
    const char *acc = r->is_write ? "write" : "read";
    const char *space = r->space[0] ? r->space : "memory";
    (void)space;
    char *m = r->message;
    size_t len = sizeof r->message;
    if (strcmp(r->tool, "memcheck") == 0) {
        const char *what = strcmp(r->kind, "misaligned") == 0 ? "misaligned"
                           : strcmp(r->kind, "use-after-free") == 0 ? "use-after-free"
                           : strcmp(r->kind, "stack-overflow") == 0 ? "stack-overflow"
                                                                    : "invalid";
        if (strcmp(r->kind, "stack-overflow") == 0)
            snprintf(m, len, "memcheck: stack overflow of a thread at %s in kernel '%s' by thread "
                     "%s in block %s: address 0x%llx is %.700s", at, r->kernel, thr, blk,
                     r->address, note);
        else
            snprintf(m, len, "memcheck: %s %s%s%s%s of size %llu bytes at %s in kernel '%s' by "
                     "thread %s in block %s: address 0x%llx is %.700s", what,
                     r->space[0] ? "__" : "", r->space, r->space[0] ? "__ " : "", acc, r->size, at,
                     r->kernel, thr, blk, r->address, note);
    } else if (strcmp(r->tool, "initcheck") == 0) {
        snprintf(m, len, "initcheck: uninitialized __global__ memory read of size %llu bytes at "
                 "%s in kernel '%s' by thread %s in block %s: address 0x%llx (offset %lld of the "
                 "%llu-byte %s at 0x%llx) was never written by a copy, a memset or a kernel",
                 r->size, at, r->kernel, thr, blk, r->address, r->offset, r->alloc_size,
                 r->alloc_kind, r->alloc_base);
    } else if (strcmp(r->tool, "racecheck") == 0) {
        fmt_dim(oth, sizeof oth, r->other_thread);
        fmt_place(other_at, sizeof other_at, r->other_file, r->other_line);
        int same_warp = strcmp(note, "same-warp") == 0;
        snprintf(m, len, "racecheck: %s hazard on __%s__ memory at 0x%llx in kernel '%s', block "
                 "%s: thread %s %s it at %s after thread %s %s it at %s, %s", r->kind, space,
                 r->address, r->kernel, blk, thr, r->is_write ? "writes" : "reads", at, oth,
                 r->other_is_write ? "wrote" : "read", other_at,
                 same_warp ? "with no __syncwarp() or __syncthreads() between them: the lanes of "
                             "a warp do not run in lockstep (warp-synchronous code needs "
                             "__syncwarp(), or __shfl_*_sync instead of shared memory)"
                           : "with no __syncthreads() between them");
    } else {
        snprintf(m, len, "synccheck: kernel '%s', block %s, thread %s: %.1000s", r->kernel, blk, thr,
                 note);
    }
    if (r->count > 1) {
        size_t used = strlen(m);
        if (used + 64 < len)
            snprintf(m + used, len - used, " (%llu times in all)", r->count);
    }
}

size_t sim_report_finish(CUmodule m, unsigned long long since)
{
    pthread_mutex_lock(&lock);
    size_t first = n_store;
    while (first > 0 && store[first - 1].r.serial >= since)
        first--;
    size_t n = n_store - first;
    uintptr_t *pcs = calloc(2 * n + 1, sizeof *pcs);
    place *pl = calloc(2 * n + 1, sizeof *pl);
    const char *tool = addr2line_path();
    if (pcs && pl && m && m->so && tool) {
        size_t k = 0;
        for (size_t i = first; i < n_store; i++) {
            pcs[k++] = store[i].pc;
            pcs[k++] = store[i].other_pc;
        }
        char path[1100];
        if (k > 0 && write_so(m, path, sizeof path) == 0) {
            lookup(tool, path, pcs, k, pl);
            unlink(path);
        }
    }
    size_t errors = 0;
    const entry *firsterr = NULL;
    for (size_t i = first; i < n_store; i++) {
        entry *e = &store[i];
        if (!e->finished) {
            if (pl && e->pc) {
                snprintf(e->r.file, sizeof e->r.file, "%s", pl[2 * (i - first)].file);
                e->r.line = pl[2 * (i - first)].line;
            }
            if (pl && e->other_pc) {
                snprintf(e->r.other_file, sizeof e->r.other_file, "%s", pl[2 * (i - first) + 1].file);
                e->r.other_line = pl[2 * (i - first) + 1].line;
            }
            compose(&e->r);
            e->finished = 1;
            e->mod = NULL;
        }
        if (e->r.error) {
            errors++;
            if (firsterr == NULL)
                firsterr = e;
        }
    }
    if (firsterr) {
        snprintf(message, sizeof message, "%s%s", firsterr->r.message,
                 errors > 1 ? " (and more: pycudac.driver.check_report() lists every report)" : "");
    }
    pthread_mutex_unlock(&lock);
    free(pcs);
    free(pl);
    return errors;
}

void sim_report_module_gone(CUmodule m)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_store; i++)
        if (store[i].mod == m)
            store[i].mod = NULL;
    pthread_mutex_unlock(&lock);
}

size_t sim_report_copy(pcc_check_report *out, size_t max, unsigned long long since, int clear)
{
    pthread_mutex_lock(&lock);
    size_t total = 0;
    for (size_t i = 0; i < n_store; i++) {
        if (store[i].r.serial < since)
            continue;
        if (total < max && out)
            out[total] = store[i].r;
        total++;
    }
    if (clear) {
        n_store = 0;
        dropped = 0;
    }
    pthread_mutex_unlock(&lock);
    return total;
}

void sim_report_message_set(const char *text)
{
    pthread_mutex_lock(&lock);
    snprintf(message, sizeof message, "%s", text);
    pthread_mutex_unlock(&lock);
}

const char *sim_report_message(void)
{
    return message;
}
