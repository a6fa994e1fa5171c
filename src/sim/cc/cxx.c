/*
 * sim/cc/cxx.c — the host C++ compiler the CPU simulator compiles
 * with, and what every compile feeds it besides the program: the prelude,
 * sim_abi.h, the stand-ins for CUDA's own headers and the base flags. Found
 * once ($CXX, else c++, g++, clang++ on PATH) and hashed into the identity
 * that keys the compile cache; then the command line of one compile and
 * running it by posix_spawn (no shell).
 *
 * Apart from the compile job (sim/cc/build.c) because this is what
 * stays the same from compile to compile; the one place that includes the
 * embedded prelude, so it is in the extension once.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim/cc/cc.h"
#include "sim/env.h"
#include "sim/sim.h"
#include "sim_prelude_blob.h"


/* The C library's calls that end the process, taken by the prelude's
 * __wrap_* (sim/prelude/cuda_runtime.h) when the module calls them. */
#define SIM_WRAP_FLAG                                                                          \
    "-Wl,--wrap=abort,--wrap=exit,--wrap=_exit,--wrap=_Exit,--wrap=quick_exit,"               \
    "--wrap=sched_yield,--wrap=nanosleep"

/* Flags every compile gets; part of the identity, so changing them changes
 * the cache key. */
static const char *const base_flags[] = {
    "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-pipe", "-fno-exceptions", "-fno-rtti",
    "-fno-math-errno", "-fdiagnostics-color=never", "-Wl,-Bsymbolic", "-s",
    /* a frame larger than a page touches its pages in order: a thread that
     * overflows its stack faults in its own guard (sim/fiber.c), never in a
     * neighbour's stack */
    "-fstack-clash-protection", SIM_WRAP_FLAG};
#define N_BASE_FLAGS (sizeof base_flags / sizeof base_flags[0])

/* Check mode's instrumentation (--pycudac-sim-check), for each compiler. */
/* The thread sanitizer's instrumentation, not its runtime: a call before
 * every load and store that tells reads from writes, volatile from plain
 * and atomics apart (the address sanitizer's folds a store's check into a
 * load's). GCC links its runtime into a shared object too, so the object is
 * linked apart, without the flag (pcc_sim_cxx_command's SIM_CXX_LINK). */
static const char *const check_flags_gcc[] = {
    "-fsanitize=thread", "--param=tsan-distinguish-volatile=1",
    "--param=tsan-instrument-func-entry-exit=0", "-fno-tree-sra", "-g"};
static const char *const check_flags_clang[] = {
    "-fsanitize=thread", "-mllvm", "-tsan-distinguish-volatile=1", "-mllvm",
    "-tsan-instrument-func-entry-exit=0", "-gline-tables-only"};
#define N_CHECK_GCC (sizeof check_flags_gcc / sizeof check_flags_gcc[0])
#define N_CHECK_CLANG (sizeof check_flags_clang / sizeof check_flags_clang[0])

/* The embedded headers (src/sim/prelude/ and sim_abi.h), for the private
 * directory's pcc/ (sim/cc/build.c). */
const pcc_sim_file *pcc_sim_prelude_file(size_t i)
{
    static const size_t n = sizeof pcc_sim_prelude_files / sizeof pcc_sim_prelude_files[0];
    return i < n ? (const pcc_sim_file *)&pcc_sim_prelude_files[i] : NULL;
}

/* CUDA's header names, each mapped onto the prelude header that stands for
 * it (in pcc/), or an #error for what the simulator cannot run. */
const char *const pcc_sim_stubs[][2] = {
    {"cuda_runtime.h", "cuda_runtime.h"},
    {"cuda_runtime_api.h", "cuda_runtime.h"},
    {"cuda.h", "cuda_runtime.h"},
    {"device_launch_parameters.h", "cuda_runtime.h"},
    {"device_functions.h", "cuda_runtime.h"},
    {"math_functions.h", "cuda_runtime.h"},
    {"device_atomic_functions.h", "cuda_runtime.h"},
    {"sm_20_atomic_functions.h", "cuda_runtime.h"},
    {"sm_60_atomic_functions.h", "cuda_runtime.h"},
    {"vector_types.h", "cuda_runtime.h"},
    {"vector_functions.h", "cuda_runtime.h"},
    {"builtin_types.h", "cuda_runtime.h"},
    {"texture_types.h", "cuda_runtime.h"},
    {"surface_types.h", "cuda_runtime.h"},
    {"texture_indirect_functions.h", "cuda_runtime.h"},
    {"surface_indirect_functions.h", "cuda_runtime.h"},
    {"cuda_fp16.h", "cuda_fp16.h"},
    {"cuda_fp16.hpp", "cuda_fp16.h"},
    {"math_constants.h", "math_constants.h"},
    {"cuda_bf16.h", "cuda_bf16.h"},
    {"cuda_bf16.hpp", "cuda_bf16.h"},
    {"cooperative_groups.h", "cooperative_groups.h"},
    {"cooperative_groups/reduce.h", "cooperative_groups_reduce.h"},
    {"cooperative_groups/scan.h", "cooperative_groups_scan.h"},
    {"mma.h", "mma.h"},
    {"curand_kernel.h", "#error \"curand_kernel.h is not supported by the pycudac CPU simulator\""},
    {"cooperative_groups/memcpy_async.h", "cooperative_groups_memcpy_async.h"},
    {"cuda_pipeline.h", "cuda_pipeline.h"},
    {"cuda_pipeline_primitives.h", "cuda_pipeline.h"},
    {"assert.h", "assert.h"},
    {"cassert", "assert.h"},
    {"cuComplex.h", "cuComplex.h"},
};
const size_t pcc_sim_n_stubs = sizeof pcc_sim_stubs / sizeof pcc_sim_stubs[0];

/* ---- the compiler and the identity -------------------------------------- */

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static pcc_sim_cxx cxx;

static int is_exe(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* Finds `prog` (a path, or a name looked up on PATH) into out. */
static int find_program(const char *prog, char *out, size_t len)
{
    if (strchr(prog, '/')) {
        if (!is_exe(prog))
            return 0;
        snprintf(out, len, "%s", prog);
        return 1;
    }
    char *pathenv = pcc_sim_env_dup("PATH"); /* no getenv without the GIL */
    const char *path = pathenv;
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    int found = 0;
    while (*path && !found) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        char cand[PATH_MAX];
        if (n > 0 && n + strlen(prog) + 2 < sizeof cand) {
            memcpy(cand, path, n);
            cand[n] = '/';
            strcpy(cand + n + 1, prog);
            if (is_exe(cand)) {
                snprintf(out, len, "%s", cand);
                found = 1;
            }
        }
        if (end == NULL)
            break;
        path = end + 1;
    }
    free(pathenv);
    return found;
}

static unsigned long long fnv1a(unsigned long long h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void setup(void)
{
    char *env = pcc_sim_env_dup("CXX");
    const char *names[] = {"c++", "g++", "clang++"};
    if (env && *env) {
        /* $CXX may carry words: "ccache g++ -m64" */
        char *copy = strdup(env), *save = NULL;
        char *word = copy ? strtok_r(copy, " \t", &save) : NULL;
        if (word && find_program(word, cxx.path, sizeof cxx.path)) {
            while ((word = strtok_r(NULL, " \t", &save)) != NULL)
                pcc_sl_adds(&cxx.extra, word);
        } else {
            snprintf(cxx.missing, sizeof cxx.missing,
                     "the C++ compiler named by CXX=%s was not found or is not executable", env);
        }
        free(copy);
    } else {
        for (size_t i = 0; i < 3 && cxx.path[0] == '\0'; i++)
            find_program(names[i], cxx.path, sizeof cxx.path);
        if (cxx.path[0] == '\0') {
            char *path = pcc_sim_env_dup("PATH");
            snprintf(cxx.missing, sizeof cxx.missing,
                     "no C++ compiler found for the CPU simulator: looked for c++, g++ and clang++ "
                     "on PATH=%s; install one (e.g. g++) or set CXX",
                     path ? path : "(unset)");
            free(path);
        }
    }
    free(env);
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; pcc_sim_prelude_file(i) != NULL; i++) {
        const pcc_sim_file *f = pcc_sim_prelude_file(i);
        h = fnv1a(h, f->name, strlen(f->name) + 1);
        h = fnv1a(h, f->text, f->size);
    }
    h = fnv1a(h, PCC_SIM_COMPILER_VERSION, sizeof PCC_SIM_COMPILER_VERSION);
    for (size_t i = 0; i < N_BASE_FLAGS; i++)
        h = fnv1a(h, base_flags[i], strlen(base_flags[i]) + 1);
    for (size_t i = 0; i < N_CHECK_GCC; i++)
        h = fnv1a(h, check_flags_gcc[i], strlen(check_flags_gcc[i]) + 1);
    for (size_t i = 0; i < N_CHECK_CLANG; i++)
        h = fnv1a(h, check_flags_clang[i], strlen(check_flags_clang[i]) + 1);
    for (size_t i = 0; i < pcc_sim_n_stubs; i++) {
        h = fnv1a(h, pcc_sim_stubs[i][0], strlen(pcc_sim_stubs[i][0]) + 1);
        h = fnv1a(h, pcc_sim_stubs[i][1], strlen(pcc_sim_stubs[i][1]) + 1);
    }
    /* The simulator's front end (sim/cc: its rewrites of the user's source)
     * changes what a compile makes with nothing above changed, and a cached
     * module of the old rewrites ran after an upgrade (a mutation pass saw
     * it): the digest of its sources (setup.py) names it. */
    h = fnv1a(h, PCC_SIM_FRONT_DIGEST, sizeof PCC_SIM_FRONT_DIGEST); /* and shown below */
    if (cxx.path[0]) {
        char real[PATH_MAX];
        const char *shown = realpath(cxx.path, real) ? real : cxx.path;
        const char *base = strrchr(shown, '/');
        cxx.is_clang = strstr(base ? base : shown, "clang") != NULL;
        struct stat st;
        long long size = 0, mtime = 0;
        if (stat(cxx.path, &st) == 0) {
            size = (long long)st.st_size;
            mtime = (long long)st.st_mtime;
        }
        for (int i = 0; i < cxx.extra.n; i++)
            h = fnv1a(h, cxx.extra.v[i], strlen(cxx.extra.v[i]) + 1);
        snprintf(cxx.identity, sizeof cxx.identity,
                 "%s (%s) size=%lld mtime=%lld build=%016llx front=%.16s", cxx.path, shown, size,
                 mtime, h, PCC_SIM_FRONT_DIGEST);
    } else {
        snprintf(cxx.identity, sizeof cxx.identity, "no-compiler build=%016llx front=%.16s", h,
                 PCC_SIM_FRONT_DIGEST);
    }
}

const pcc_sim_cxx *pcc_sim_cxx_get(void)
{
    pthread_once(&setup_once, setup);
    return &cxx;
}

int pcc_sim_cxx_links_apart(const pcc_sim_options *O)
{
    return O->check && !cxx.is_clang;
}

void pcc_sim_cxx_command(const pcc_sim_options *O, const char *tmp, int mode, pcc_slist *argv)
{
    char arg[PATH_MAX];
    pcc_slist *a = argv;
    int preprocess = mode == SIM_CXX_PREPROCESS;
    pcc_sl_adds(a, cxx.path);
    for (int i = 0; i < cxx.extra.n; i++)
        pcc_sl_adds(a, cxx.extra.v[i]);
    if (mode == SIM_CXX_LINK) { /* the object of SIM_CXX_OBJECT into the shared object */
        static const char *const link[] = {"-shared", "-fPIC", "-Wl,-Bsymbolic", SIM_WRAP_FLAG, "-o"};
        for (size_t i = 0; i < sizeof link / sizeof link[0]; i++)
            pcc_sl_adds(a, link[i]);
        snprintf(arg, sizeof arg, "%s/kernel.so", tmp);
        pcc_sl_adds(a, arg);
        snprintf(arg, sizeof arg, "%s/kernel.o", tmp);
        pcc_sl_adds(a, arg);
        pcc_sl_adds(a, "-lm");
        snprintf(arg, sizeof arg, "-Wl,-Map=%s/kernel.map", tmp);
        pcc_sl_adds(a, arg);
        return;
    }
    pcc_sl_adds(a, O->std);
    for (size_t i = 0; i < N_BASE_FLAGS; i++)
        if (!(O->check && strcmp(base_flags[i], "-s") == 0)) /* check mode keeps the lines */
            pcc_sl_adds(a, base_flags[i]);
    if (O->check) {
        /* every load and store of the program calls the prelude's hooks
         * (sim/prelude/pcc_check.h); no shadow memory, no stack or global
         * redzones: the runtime keeps what it needs (sim/check.c). Line
         * tables name the source line of a report. */
        for (size_t i = 0; i < (cxx.is_clang ? N_CHECK_CLANG : N_CHECK_GCC); i++)
            pcc_sl_adds(a, cxx.is_clang ? check_flags_clang[i] : check_flags_gcc[i]);
        /* the source's name as the program gave it, not under this directory
         * (a cached module may be used from anywhere) */
        char cwd[PATH_MAX];
        if (cxx.is_clang) {
            pcc_sl_adds(a, "-fdebug-compilation-dir=.");
        } else if (getcwd(cwd, sizeof cwd) != NULL) {
            pcc_sbuf map = {0};
            pcc_sb_printf(&map, "-fdebug-prefix-map=%s=.", cwd);
            if (map.p)
                pcc_sl_adds(a, map.p);
            free(map.p);
        }
        pcc_sl_adds(a, "-D__PCC_SIM_CHECK=1");
    }
    pcc_sl_adds(a, cxx.is_clang ? "-fno-caret-diagnostics" : "-fno-diagnostics-show-caret");
    if (!cxx.is_clang) {
        pcc_sl_adds(a, "-fno-semantic-interposition");
        /* the static of an inline function (`static __shared__ int s[32]` in
         * a __device__ helper) is the module's own: a GNU "unique" symbol
         * would be one for the whole process, shared by every module that
         * has it (and would keep a module loaded past its unload) */
        pcc_sl_adds(a, "-fno-gnu-unique");
    }
    if (preprocess) {
        /* program headers, then our stand-ins for CUDA's own headers (they
         * must win over a CUDA toolkit's include dir given with -I), then -I
         * dirs, then libcu++ and toolkit dirs as system dirs */
        snprintf(arg, sizeof arg, "-I%s/hdr", tmp);
        pcc_sl_adds(a, arg);
        snprintf(arg, sizeof arg, "-I%s/stub", tmp);
        pcc_sl_adds(a, arg);
        for (int i = 0; i < O->args.n; i++)
            if (strncmp(O->args.v[i], "-I", 2) == 0)
                pcc_sl_adds(a, O->args.v[i]);
        for (int i = 0; i < O->sys_dirs.n; i++) {
            pcc_sl_adds(a, "-isystem");
            pcc_sl_adds(a, O->sys_dirs.v[i]);
        }
        if (O->host_libc)
            pcc_sl_adds(a, "-D__PCC_SIM_HOST_LIBC=1");
        if (O->pre.n) { /* the prelude goes before any --pre-include header */
            pcc_sl_adds(a, "-include");
            snprintf(arg, sizeof arg, "%s/pcc/cuda_runtime.h", tmp);
            pcc_sl_adds(a, arg);
        }
        for (int i = 0; i < O->args.n; i++) {
            if (strcmp(O->args.v[i], "-include") == 0 && i + 1 < O->args.n) {
                pcc_sl_adds(a, O->args.v[i]);
                pcc_sl_adds(a, O->args.v[++i]);
            } else if (strncmp(O->args.v[i], "-I", 2) != 0) {
                pcc_sl_adds(a, O->args.v[i]);
            }
        }
        pcc_sl_adds(a, "-E");
        pcc_sl_adds(a, "-o");
        snprintf(arg, sizeof arg, "%s/kernel.ii", tmp);
        pcc_sl_adds(a, arg);
        snprintf(arg, sizeof arg, "%s/src/kernel.cpp", tmp);
        pcc_sl_adds(a, arg);
        return;
    }
    /* the preprocessed, rewritten translation unit: no -I, -D or -include */
    for (int i = 0; i < O->args.n; i++) {
        if (strcmp(O->args.v[i], "-include") == 0 && i + 1 < O->args.n)
            i++;
        else if (strncmp(O->args.v[i], "-I", 2) != 0 && strncmp(O->args.v[i], "-D", 2) != 0 &&
                 strncmp(O->args.v[i], "-U", 2) != 0)
            pcc_sl_adds(a, O->args.v[i]);
    }
    if (mode == SIM_CXX_OBJECT)
        pcc_sl_adds(a, "-c");
    pcc_sl_adds(a, "-o");
    snprintf(arg, sizeof arg, "%s/kernel.%s", tmp, mode == SIM_CXX_OBJECT ? "o" : "so");
    pcc_sl_adds(a, arg);
    snprintf(arg, sizeof arg, "%s/src/kernel.ii", tmp);
    pcc_sl_adds(a, arg);
    if (mode != SIM_CXX_OBJECT) {
        pcc_sl_adds(a, "-lm");
        /* the link map: which objects brought initializers (sim/cc/build.c) */
        snprintf(arg, sizeof arg, "-Wl,-Map=%s/kernel.map", tmp);
        pcc_sl_adds(a, arg);
    }
}

/* Runs argv[0] with stdout+stderr into log_path. Returns the wait status,
 * or -1 with errno. */
/* ---- what a process exit must not leave behind ---------------------------
 * A compile runs with the GIL released, so the interpreter can exit while
 * one is in flight (a daemon thread's, or the main thread ending): the C
 * compiler it started and its private directory are listed here, and an
 * atexit handler kills the one and removes the other. */

#define MAX_INFLIGHT 64
static pthread_mutex_t inflight_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t inflight_pid[MAX_INFLIGHT];
static char inflight_dir[MAX_INFLIGHT][PATH_MAX];
static pthread_once_t inflight_once = PTHREAD_ONCE_INIT;

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void pcc_sim_remove_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void at_exit(void)
{
    pthread_mutex_lock(&inflight_lock);
    for (int i = 0; i < MAX_INFLIGHT; i++) {
        if (inflight_pid[i] > 0) {
            kill(-inflight_pid[i], SIGKILL); /* its group: cc1plus, as, ld too */
            waitpid(inflight_pid[i], NULL, 0);
            inflight_pid[i] = 0;
        }
    }
    for (int i = 0; i < MAX_INFLIGHT; i++) {
        if (inflight_dir[i][0]) {
            pcc_sim_remove_tree(inflight_dir[i]);
            inflight_dir[i][0] = '\0';
        }
    }
    pthread_mutex_unlock(&inflight_lock);
}

static void register_at_exit(void)
{
    atexit(at_exit);
}

/* Lists (on) or delists a compile's private directory. */
void pcc_sim_inflight_dir(const char *dir, int on)
{
    pthread_once(&inflight_once, register_at_exit);
    pthread_mutex_lock(&inflight_lock);
    for (int i = 0; i < MAX_INFLIGHT; i++) {
        if (on ? inflight_dir[i][0] == '\0' : strcmp(inflight_dir[i], dir) == 0) {
            if (on)
                snprintf(inflight_dir[i], PATH_MAX, "%s", dir);
            else
                inflight_dir[i][0] = '\0';
            break;
        }
    }
    pthread_mutex_unlock(&inflight_lock);
}

static void inflight_pid_set(pid_t pid, int on)
{
    pthread_once(&inflight_once, register_at_exit);
    pthread_mutex_lock(&inflight_lock);
    for (int i = 0; i < MAX_INFLIGHT; i++) {
        if (inflight_pid[i] == (on ? 0 : pid)) {
            inflight_pid[i] = on ? pid : 0;
            break;
        }
    }
    pthread_mutex_unlock(&inflight_lock);
}

/* What a compile may take (PYCUDAC_SIM_COMPILE_TIMEOUT seconds, 0 for no
 * limit; output files and memory): enough for any real kernel, not for a
 * compiler reading /dev/zero or expanding a macro bomb. */
#define SIM_COMPILE_TIMEOUT_S 600.0
#define SIM_COMPILE_MAX_FILE ((rlim_t)1 << 30)
#define SIM_COMPILE_MAX_MEM ((rlim_t)8 << 30)

static double compile_timeout(void)
{
    char *env = pcc_sim_env_dup("PYCUDAC_SIM_COMPILE_TIMEOUT");
    double t = env ? strtod(env, NULL) : SIM_COMPILE_TIMEOUT_S;
    free(env);
    return t;
}

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int pcc_sim_cxx_run(char *const *argv, const char *log_path, const char *tmpdir, int *stopped)
{
    *stopped = 0;
    /* the child holds the write end of this pipe (and only it: the pipe is
     * close-on-exec, the child's copy is not): EOF when it is gone */
    int alive[2];
    if (pipe2(alive, O_CLOEXEC) != 0)
        return -1;
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) {
        close(alive[0]);
        close(alive[1]);
        return -1;
    }
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    posix_spawn_file_actions_adddup2(&fa, alive[1], 3);
    pid_t pid;
    /* the environment copied under the GIL, not `environ`, which another
     * Python thread may be changing now */
    char **env = pcc_sim_environ_dup();
    /* ...with TMPDIR set to the compile's own directory */
    char tmpvar[PATH_MAX + 8];
    snprintf(tmpvar, sizeof tmpvar, "TMPDIR=%s", tmpdir);
    size_t n = 0;
    while (env != NULL && env[n] != NULL)
        n++;
    char **child_env = calloc(n + 2, sizeof *child_env);
    if (child_env == NULL) {
        pcc_sim_environ_free(env);
        posix_spawn_file_actions_destroy(&fa);
        close(alive[0]);
        close(alive[1]);
        errno = ENOMEM;
        return -1;
    }
    /* ...and without LD_PRELOAD: what the Python process preloads (a
     * sanitizer's runtime, a profiler) is not the compiler's, and ASan's
     * runtime cannot even start under the memory limit below (it reserves
     * terabytes of shadow address space: the compiler died of SIGABRT) */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(env[i], "TMPDIR=", 7) != 0 && strncmp(env[i], "LD_PRELOAD=", 11) != 0)
            child_env[m++] = env[i];
    child_env[m] = tmpvar;
    sim_fault_ensure_sigint(); /* Ctrl-C stops the compile (the count it keeps) */
    unsigned int interrupts = sim_interrupt_count();
    /* in a process group of its own, so that all it starts can be killed */
    posix_spawnattr_t at;
    int rc = posix_spawnattr_init(&at);
    if (rc == 0) {
        posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&at, 0);
        rc = posix_spawn(&pid, argv[0], &fa, &at, argv, child_env);
        posix_spawnattr_destroy(&at);
    }
    free(child_env);
    pcc_sim_environ_free(env);
    posix_spawn_file_actions_destroy(&fa);
    close(alive[1]);
    if (rc != 0) {
        close(alive[0]);
        errno = rc;
        return -1;
    }
    /* its output files and its memory bounded (the child and what it
     * starts inherit them) */
    struct rlimit fsize = {SIM_COMPILE_MAX_FILE, SIM_COMPILE_MAX_FILE};
    struct rlimit as = {SIM_COMPILE_MAX_MEM, SIM_COMPILE_MAX_MEM};
    prlimit(pid, RLIMIT_FSIZE, &fsize, NULL);
    prlimit(pid, RLIMIT_AS, &as, NULL);
    inflight_pid_set(pid, 1);
    double limit = compile_timeout();
    long long start = mono_ns();
    for (;;) {
        struct pollfd p = {alive[0], POLLIN, 0};
        int r = poll(&p, 1, 50);
        if (r > 0)
            break; /* EOF: the compiler is gone */
        if (sim_interrupt_count() != interrupts) {
            *stopped = PCC_SIM_STOPPED_INTERRUPT;
            break;
        }
        if (limit > 0 && (double)(mono_ns() - start) > limit * 1e9) {
            *stopped = PCC_SIM_STOPPED_TIMEOUT;
            break;
        }
    }
    close(alive[0]);
    if (*stopped)
        kill(-pid, SIGKILL); /* its group: cc1plus, as, ld too */
    int status, waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    inflight_pid_set(pid, 0);
    return waited < 0 ? -1 : status;
}
