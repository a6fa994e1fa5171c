/*
 * backend_sim_compile.c — the CPU simulator's compiler, behind an NVRTC-like
 * table (rtc.h), so compile.c drives it exactly as it drives NVRTC.
 *
 * A compile scans the CUDA C source (kernels to register, constructs a CPU
 * cannot run, whether any barrier or warp operation appears), rewrites
 * `extern __shared__` declarations in place (line numbers kept), and runs the
 * system C++ compiler on prelude + source + a generated registration table,
 * in a private temporary directory, by posix_spawn (no shell). The shared
 * object comes back wrapped in a pcc_sim_image (sim_abi.h): the "CUBIN".
 *
 * Pure C, no Python objects: compile.c calls this with the GIL released.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pycudac/loader.h"
#include "pycudac/sim_abi.h"
#include "sim_prelude_blob.h"

#include "pycudac/backend_sim_scan.h"

extern char **environ;

/* Flags every compile gets; part of the identity, so changing them changes
 * the cache key. */
static const char *const base_flags[] = {
    "-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-pipe", "-fno-exceptions", "-fno-rtti",
    "-fno-math-errno", "-fdiagnostics-color=never", "-Wl,-Bsymbolic", "-s"};
#define N_BASE_FLAGS (sizeof base_flags / sizeof base_flags[0])
/* Bump when the generated code changes (scan, rewrites, registration tail):
 * it is part of the identity, hence of the cache key. */
#define PCC_SIM_COMPILER_VERSION "pycudac-sim-compile 3"

/* A C string literal's body for `s` (quotes and backslashes escaped). */
static void sb_cstr(pcc_sbuf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            pcc_sb_add(b, "\\", 1);
        if (*s == '\n')
            pcc_sb_puts(b, "\\n");
        else
            pcc_sb_add(b, s, 1);
    }
}

/* ---- the program ----------------------------------------------------------- */

struct _nvrtcProgram {
    char *src, *name;
    pcc_slist hdr_names, hdr_srcs;
    pcc_slist exprs;
    int compiled; /* 1 after a successful compile */
    pcc_sbuf log;
    unsigned char *image;
    size_t image_len;
};

/* Stub headers: CUDA's own header names, mapped onto prelude sections. */
static const char *const stubs[][2] = {
    {"cuda_runtime.h", ""},
    {"cuda_runtime_api.h", ""},
    {"cuda.h", ""},
    {"device_launch_parameters.h", ""},
    {"device_functions.h", ""},
    {"device_atomic_functions.h", ""},
    {"sm_20_atomic_functions.h", ""},
    {"sm_60_atomic_functions.h", ""},
    {"vector_types.h", ""},
    {"vector_functions.h", ""},
    {"builtin_types.h", ""},
    {"math_functions.h", ""},
    {"cuda_fp16.h", "#define PCC_SECTION_FP16 1\n"},
    {"cuda_fp16.hpp", "#define PCC_SECTION_FP16 1\n"},
    {"math_constants.h", "#define PCC_SECTION_MATH_CONSTANTS 1\n"},
    {"cuda_bf16.h", "#define PCC_SECTION_BF16 1\n"},
    {"cuda_bf16.hpp", "#define PCC_SECTION_BF16 1\n"},
    {"cooperative_groups.h", "#define PCC_SECTION_CG 1\n"},
    {"cooperative_groups/reduce.h", "#define PCC_SECTION_CG 1\n"},
    {"cooperative_groups/scan.h", "#define PCC_SECTION_CG 1\n"},
    {"mma.h", "#error \"mma.h (tensor cores) is not supported by the pycudac CPU simulator\"\n"},
    {"curand_kernel.h", "#error \"curand_kernel.h is not supported by the pycudac CPU simulator\"\n"},
    {"cuda_pipeline.h", "#error \"cuda_pipeline.h is not supported by the pycudac CPU simulator\"\n"},
    {"assert.h", ""},
    {"cassert", ""},
};

/* ---- the compiler and the identity -------------------------------------- */

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static char cxx_path[PATH_MAX];   /* empty: none found */
static pcc_slist cxx_extra;           /* words after the program in $CXX */
static int cxx_is_clang;
static char identity[2 * PATH_MAX + 256];
static char cxx_missing[1024];
static pcc_rtc_table sim_table;

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
    const char *path = getenv("PATH");
    if (path == NULL || *path == '\0')
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        char cand[PATH_MAX];
        if (n > 0 && n + strlen(prog) + 2 < sizeof cand) {
            memcpy(cand, path, n);
            cand[n] = '/';
            strcpy(cand + n + 1, prog);
            if (is_exe(cand)) {
                snprintf(out, len, "%s", cand);
                return 1;
            }
        }
        if (end == NULL)
            break;
        path = end + 1;
    }
    return 0;
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
    const char *env = getenv("CXX");
    const char *names[] = {"c++", "g++", "clang++"};
    if (env && *env) {
        /* $CXX may carry words: "ccache g++ -m64" */
        char *copy = strdup(env), *save = NULL;
        char *word = copy ? strtok_r(copy, " \t", &save) : NULL;
        if (word && find_program(word, cxx_path, sizeof cxx_path)) {
            while ((word = strtok_r(NULL, " \t", &save)) != NULL)
                pcc_sl_adds(&cxx_extra, word);
        } else {
            snprintf(cxx_missing, sizeof cxx_missing,
                     "the C++ compiler named by CXX=%s was not found or is not executable", env);
        }
        free(copy);
    } else {
        for (size_t i = 0; i < 3 && cxx_path[0] == '\0'; i++)
            find_program(names[i], cxx_path, sizeof cxx_path);
        if (cxx_path[0] == '\0') {
            const char *path = getenv("PATH");
            snprintf(cxx_missing, sizeof cxx_missing,
                     "no C++ compiler found for the CPU simulator: looked for c++, g++ and clang++ "
                     "on PATH=%s; install one (e.g. g++) or set CXX",
                     path ? path : "(unset)");
        }
    }
    unsigned long long h = 1469598103934665603ULL;
    h = fnv1a(h, pcc_sim_prelude_text, sizeof pcc_sim_prelude_text);
    h = fnv1a(h, pcc_sim_abi_text, sizeof pcc_sim_abi_text);
    h = fnv1a(h, PCC_SIM_COMPILER_VERSION, sizeof PCC_SIM_COMPILER_VERSION);
    for (size_t i = 0; i < N_BASE_FLAGS; i++)
        h = fnv1a(h, base_flags[i], strlen(base_flags[i]) + 1);
    for (size_t i = 0; i < sizeof stubs / sizeof stubs[0]; i++) {
        h = fnv1a(h, stubs[i][0], strlen(stubs[i][0]) + 1);
        h = fnv1a(h, stubs[i][1], strlen(stubs[i][1]) + 1);
    }
    if (cxx_path[0]) {
        char real[PATH_MAX];
        const char *shown = realpath(cxx_path, real) ? real : cxx_path;
        const char *base = strrchr(shown, '/');
        cxx_is_clang = strstr(base ? base : shown, "clang") != NULL;
        struct stat st;
        long long size = 0, mtime = 0;
        if (stat(cxx_path, &st) == 0) {
            size = (long long)st.st_size;
            mtime = (long long)st.st_mtime;
        }
        for (int i = 0; i < cxx_extra.n; i++)
            h = fnv1a(h, cxx_extra.v[i], strlen(cxx_extra.v[i]) + 1);
        snprintf(identity, sizeof identity, "%s (%s) size=%lld mtime=%lld prelude=%016llx",
                 cxx_path, shown, size, mtime, h);
    } else {
        snprintf(identity, sizeof identity, "no-compiler prelude=%016llx", h);
    }
}

/* ---- options ------------------------------------------------------------------ */

typedef struct {
    pcc_slist args;     /* for the compiler */
    pcc_slist inc_dirs; /* -I, for the header scan */
    pcc_slist pre;      /* --pre-include headers, for the header scan */
    const char *std;
} options;

static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* NVRTC options that only steer GPU code generation: accepted, ignored. */
static int gpu_only(const char *o)
{
    static const char *const exact[] = {
        "-G", "--device-debug", "-lineinfo", "--generate-line-info", "-use_fast_math",
        "--use_fast_math", "-default-device", "--device-as-default-execution-space", "-ewp",
        "--extensible-whole-program", "-dlto", "--dlink-time-opt", "-extended-lambda",
        "--extended-lambda", "-expt-relaxed-constexpr", "--expt-relaxed-constexpr",
        "-expt-extended-lambda", "--expt-extended-lambda", "-restrict", "--restrict", "-err-no",
        "--display-error-number", "-no-err-no", "--no-display-error-number", "-device-int128",
        "--device-int128", "-fdevice-syntax-only", "--fdevice-syntax-only", "-minimal",
        "--minimal", "-pch", "--pch", "-no-source-include", "--no-source-include", "-dw",
        "--disable-warnings-device", "-Werror=all-warnings", "--Werror=all-warnings",
        "-static-global-template-stub=true", "-static-global-template-stub=false",
        "-include-dir-fs-check", "-no-cache", "-lto", "--lto"};
    static const char *const prefixes[] = {
        "--gpu-architecture=", "-arch=", "--maxrregcount=", "-maxrregcount=", "--fmad=",
        "-fmad=", "--ftz=", "-ftz=", "--prec-div=", "-prec-div=", "--prec-sqrt=", "-prec-sqrt=",
        "-rdc=", "--relocatable-device-code=", "-dopt=", "--dopt=", "--diag-suppress=",
        "-diag-suppress=", "--diag-error=", "-diag-error=", "--diag-warn=", "-diag-warn=",
        "-optimization-info=", "--optimization-info=", "-Ofast-compile=", "--Ofast-compile=",
        "-ofast-compile=", "--pch-dir=", "-pch-dir=", "-pch-messages=", "--pch-messages=",
        "-pch-verbose=", "--pch-verbose=", "-instantiate-templates-in-pch=",
        "--instantiate-templates-in-pch=", "-create-pch=", "--create-pch=", "-use-pch=",
        "--use-pch=", "-time=", "--time=", "-split-compile=", "--split-compile=",
        "-jump-table-density=", "--jump-table-density=", "-fdevice-time-trace=",
        "--fdevice-time-trace=", "-builtin-move-forward=", "--builtin-move-forward=",
        "-builtin-initializer-list=", "--builtin-initializer-list=", "-Xptxas=", "--ptxas-options="};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(o, exact[i]) == 0)
            return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (has_prefix(o, prefixes[i]))
            return 1;
    return 0;
}

/* Translates NVRTC options; -1 with the log naming the bad one. */
static int parse_options(int n, const char *const *opts, options *O, pcc_sbuf *log)
{
    O->std = "-std=c++17";
    for (int i = 0; i < n; i++) {
        const char *o = opts[i];
        const char *next = i + 1 < n ? opts[i + 1] : NULL;
        if (o == NULL) {
            pcc_sb_puts(log, "error: option list contains NULL\n");
            return -1;
        }
        const char *val = NULL;
        char kind = 0;
        if (has_prefix(o, "--include-path="))
            kind = 'I', val = o + 15;
        else if (has_prefix(o, "--define-macro="))
            kind = 'D', val = o + 15;
        else if (has_prefix(o, "--undefine-macro="))
            kind = 'U', val = o + 17;
        else if ((o[0] == '-' && (o[1] == 'I' || o[1] == 'D' || o[1] == 'U')) ||
                 strcmp(o, "--include-path") == 0 || strcmp(o, "--define-macro") == 0 ||
                 strcmp(o, "--undefine-macro") == 0) {
            kind = o[1] == '-' ? (char)(o[2] == 'i' ? 'I' : o[2] == 'd' ? 'D' : 'U') : o[1];
            if (o[1] != '-' && o[2] != '\0')
                val = o[2] == '=' ? o + 3 : o + 2;
            else if (next) {
                val = next;
                i++;
            } else {
                pcc_sb_printf(log, "error: option '%s' needs a value\n", o);
                return -1;
            }
        }
        if (kind) {
            char flag[3] = {'-', kind, '\0'};
            pcc_sbuf a = {0};
            pcc_sb_puts(&a, flag);
            pcc_sb_puts(&a, val);
            if (a.oom || pcc_sl_adds(&O->args, a.p) < 0) {
                free(a.p);
                return -1;
            }
            free(a.p);
            if (kind == 'I')
                pcc_sl_adds(&O->inc_dirs, val);
            continue;
        }
        if (has_prefix(o, "--std=") || has_prefix(o, "-std=")) {
            const char *v = strchr(o, '=') + 1;
            if (strcmp(v, "c++20") == 0)
                O->std = "-std=c++20";
            else if (strcmp(v, "c++17") == 0 || strcmp(v, "c++14") == 0 || strcmp(v, "c++11") == 0 ||
                     strcmp(v, "c++03") == 0)
                O->std = "-std=c++17"; /* the prelude needs C++17 */
            else {
                pcc_sb_printf(log, "error: invalid value for option '%s' (expected c++03, c++11, c++14, "
                               "c++17 or c++20)\n", o);
                return -1;
            }
            continue;
        }
        if (has_prefix(o, "--pre-include=") || has_prefix(o, "-include=") || strcmp(o, "--pre-include") == 0 ||
            strcmp(o, "-include") == 0) {
            const char *v = strchr(o, '=') ? strchr(o, '=') + 1 : next;
            if (v == NULL || *v == '\0') {
                pcc_sb_printf(log, "error: option '%s' needs a header name\n", o);
                return -1;
            }
            if (!strchr(o, '='))
                i++;
            pcc_sl_adds(&O->args, "-include");
            pcc_sl_adds(&O->args, v);
            pcc_sl_adds(&O->pre, v);
            continue;
        }
        if (strcmp(o, "-w") == 0 || strcmp(o, "--disable-warnings") == 0) {
            pcc_sl_adds(&O->args, "-w");
            continue;
        }
        if (strcmp(o, "-arch") == 0 || strcmp(o, "--gpu-architecture") == 0 || strcmp(o, "-dopt") == 0 ||
            strcmp(o, "--dopt") == 0) {
            if (next)
                i++;
            continue;
        }
        if (gpu_only(o))
            continue;
        pcc_sb_printf(log, "error: unrecognized option '%s' (the pycudac CPU simulator accepts NVRTC's "
                       "options: -I, -D, -U, --std=, and ignores the GPU-only ones)\n", o);
        return -1;
    }
    return O->args.oom || O->inc_dirs.oom ? -1 : 0;
}

/* ---- headers ------------------------------------------------------------------ */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    pcc_sbuf b = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (64u << 20))
        pcc_sb_add(&b, chunk, got);
    fclose(f);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    if (b.p == NULL)
        b.p = calloc(1, 1);
    if (len)
        *len = b.len;
    return b.p;
}

static int is_stub(const char *name);

/* Scans every header the program can include (program headers, then -I
 * dirs, then the includer's own dir), transitively. */
static void scan_includes(pcc_sim_analysis *A, struct _nvrtcProgram *P, const options *O, const pcc_sim_toks *T,
                          const char *includer_dir, pcc_slist *seen, int level)
{
    if (level > 32)
        return;
    for (int i = 0; i < T->includes.n; i++) {
        const char *inc = T->includes.v[i] + 1;
        int hi = pcc_sl_find(&P->hdr_names, inc);
        if (hi < 0 && is_stub(inc))
            continue; /* ours wins over any CUDA toolkit dir given with -I */
        char path[PATH_MAX] = "";
        const char *text = NULL;
        char *owned = NULL;
        size_t len = 0;
        if (hi >= 0) {
            snprintf(path, sizeof path, "<program header %s>", inc);
            text = P->hdr_srcs.v[hi];
            len = strlen(text);
        } else {
            int found = 0;
            if (includer_dir && T->includes.v[i][0] == '"') {
                snprintf(path, sizeof path, "%s/%s", includer_dir, inc);
                found = access(path, R_OK) == 0;
            }
            for (int d = 0; !found && d < O->inc_dirs.n; d++) {
                snprintf(path, sizeof path, "%s/%s", O->inc_dirs.v[d], inc);
                found = access(path, R_OK) == 0;
            }
            if (!found)
                continue;
            struct stat st;
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
        }
        if (pcc_sl_find(seen, path) >= 0)
            continue;
        pcc_sl_adds(seen, path);
        if (text == NULL) {
            owned = read_file(path, &len);
            if (owned == NULL)
                continue;
            text = owned;
        }
        pcc_sim_toks H = {0};
        pcc_sim_tokenize(&H, text, len, inc);
        pcc_sim_check_tokens(A, &H);
        if (pcc_sim_mentions_sync(&H))
            A->sync_unsure = 1; /* kept simple: a header's barriers count for every kernel */
        char dir[PATH_MAX];
        const char *sub = NULL;
        if (hi < 0) {
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            sub = dir;
        }
        scan_includes(A, P, O, &H, sub, seen, level + 1);
        pcc_sim_toks_free(&H);
        free(owned);
    }
}

/* ---- files and the compiler process -------------------------------------------- */

static int write_file(const char *path, const char *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, data + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    return close(fd);
}

/* mkdir -p for the directories of `path` below `root`. */
static int make_parents(const char *path, size_t root_len)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + root_len + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* Runs argv[0] with stdout+stderr into log_path. Returns the wait status,
 * or -1 with errno. */
static int run_compiler(char *const *argv, const char *log_path)
{
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 2, 1);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    return status;
}

/* Header names must stay inside the temporary directory. */
static int safe_name(const char *n)
{
    if (n[0] == '\0' || n[0] == '/' || strlen(n) > 200)
        return 0;
    for (const char *p = n; *p; p++)
        if (p[0] == '.' && p[1] == '.' && (p == n || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
            return 0;
    return 1;
}

static int is_stub(const char *name)
{
    for (size_t i = 0; i < sizeof stubs / sizeof stubs[0]; i++)
        if (strcmp(stubs[i][0], name) == 0)
            return 1;
    return 0;
}

/* ---- the table ---------------------------------------------------------------- */

static const char *rtc_error_string(nvrtcResult r)
{
    static const char *const names[] = {
        "NVRTC_SUCCESS", "NVRTC_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
        "NVRTC_ERROR_INVALID_INPUT", "NVRTC_ERROR_INVALID_PROGRAM", "NVRTC_ERROR_INVALID_OPTION",
        "NVRTC_ERROR_COMPILATION", "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
        "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
        "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
        "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", "NVRTC_ERROR_INTERNAL_ERROR"};
    if (r >= 0 && r < (int)(sizeof names / sizeof names[0]))
        return names[r];
    return "NVRTC_ERROR unknown";
}

static nvrtcResult rtc_version(int *major, int *minor)
{
    if (major == NULL || minor == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    *major = 0;
    *minor = 1;
    return NVRTC_SUCCESS;
}

static void program_free(struct _nvrtcProgram *P)
{
    if (P == NULL)
        return;
    free(P->src);
    free(P->name);
    pcc_sl_free(&P->hdr_names);
    pcc_sl_free(&P->hdr_srcs);
    pcc_sl_free(&P->exprs);
    free(P->log.p);
    free(P->image);
    free(P);
}

static nvrtcResult rtc_create(nvrtcProgram *prog, const char *src, const char *name, int nh,
                              const char *const *headers, const char *const *names)
{
    if (prog == NULL || src == NULL || nh < 0 || (nh > 0 && (headers == NULL || names == NULL)))
        return NVRTC_ERROR_INVALID_INPUT;
    struct _nvrtcProgram *P = calloc(1, sizeof *P);
    if (P == NULL)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    P->src = strdup(src);
    P->name = strdup(name && *name ? name : "default_program");
    for (int i = 0; i < nh; i++) {
        if (names[i] == NULL) {
            program_free(P);
            return NVRTC_ERROR_INVALID_INPUT;
        }
        pcc_sl_adds(&P->hdr_names, names[i]);
        pcc_sl_adds(&P->hdr_srcs, headers[i] ? headers[i] : "");
    }
    if (P->src == NULL || P->name == NULL || P->hdr_names.oom || P->hdr_srcs.oom) {
        program_free(P);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    *prog = P;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_destroy(nvrtcProgram *prog)
{
    if (prog == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    program_free(*prog);
    *prog = NULL;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_add_name(nvrtcProgram P, const char *expr)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (expr == NULL || *expr == '\0')
        return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
    if (P->compiled)
        return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
    if (pcc_sl_find(&P->exprs, expr) < 0 && pcc_sl_adds(&P->exprs, expr) < 0)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_lowered(nvrtcProgram P, const char *expr, const char **lowered)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (expr == NULL || lowered == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (!P->compiled)
        return NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
    int i = pcc_sl_find(&P->exprs, expr);
    if (i < 0)
        return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
    *lowered = P->exprs.v[i]; /* the sim registers kernels under the expression itself */
    return NVRTC_SUCCESS;
}

/* The generated tail: the dynamic-shared setter, the kernel table and the
 * module's init. */
/* Entry lines carry #line markers so that a compiler error on one of them
 * says which: 1000+i for discovered kernel i, 2000+i for name expression i. */
#define PCC_LINE_KERNEL 1000
#define PCC_LINE_EXPR 2000

static void write_tail(pcc_sbuf *out, const pcc_sim_analysis *A, const struct _nvrtcProgram *P, const char *drop)
{
    pcc_sb_puts(out, "\n#line 1 \"<pycudac-sim-registration>\"\n#pragma GCC visibility pop\n");
    pcc_sb_puts(out, "static void __pcc_set_dyn_shared(void *p)\n{\n    (void)p;\n");
    for (int i = 0; i < A->dyn_setters.n; i++)
        pcc_sb_puts(out, A->dyn_setters.v[i]);
    pcc_sb_puts(out, "}\nstatic pcc_sim_kernel __pcc_kernels[] = {\n");
    for (int i = 0; i < P->exprs.n; i++) {
        const char *e = P->exprs.v[i];
        while (*e == ' ' || *e == '\t' || *e == '&')
            e++;
        pcc_sb_printf(out, "#line %d\n    __pcc_kernel< &%s >(\"", PCC_LINE_EXPR + i, e);
        sb_cstr(out, P->exprs.v[i]);
        pcc_sb_printf(out, "\", %d),\n", pcc_sim_kernel_syncs(A, P->exprs.v[i]));
    }
    for (int i = 0; i < A->kernel_names.n; i++) {
        if (drop[i] || pcc_sl_find(&P->exprs, A->kernel_names.v[i]) >= 0)
            continue;
        pcc_sb_printf(out, "#line %d\n    __pcc_kernel< &%s >(\"%s\", %d),\n", PCC_LINE_KERNEL + i,
                  A->kernel_exprs.v[i], A->kernel_names.v[i], pcc_sim_kernel_syncs(A, A->kernel_names.v[i]));
    }
    pcc_sb_puts(out, "#line 3000\n");
    pcc_sb_puts(out,
            "    pcc_sim_kernel{nullptr, nullptr, 0, nullptr, nullptr, 0}};\n"
            "extern \"C\" __attribute__((visibility(\"default\"))) int\n"
            "pcc_sim_module_init(const pcc_sim_api *api, const pcc_sim_kernel **kernels, int *count)\n"
            "{\n"
            "    static int n = -1;\n"
            "    __pcc_api = api;\n"
            "    if (n < 0) { /* name expressions that are not kernels have no entry */\n"
            "        int m = 0;\n"
            "        for (size_t i = 0; __pcc_kernels[i].name; i++)\n"
            "            if (__pcc_kernels[i].entry)\n"
            "                __pcc_kernels[m++] = __pcc_kernels[i];\n"
            "        n = m;\n"
            "    }\n"
            "    *kernels = __pcc_kernels;\n"
            "    *count = n;\n"
            "    return PCC_SIM_ABI_VERSION;\n"
            "}\n");
}

static void sb_line_name(pcc_sbuf *b, const char *name)
{
    pcc_sb_puts(b, "#line 1 \"");
    sb_cstr(b, name);
    pcc_sb_puts(b, "\"\n");
}

/* Everything one compile owns; released by job_free. */
typedef struct {
    options O;
    pcc_sim_analysis A;
    pcc_sim_edits E;   /* of the main source */
    pcc_sim_toks T;    /* of the main source */
    pcc_slist argv;    /* the compiler's command line */
    char *drop;        /* per discovered kernel: 1 when left out of the table */
    char tmp[512];     /* the private directory ("" until made) */
    size_t tl;
} job;

static void analysis_free(pcc_sim_analysis *A)
{
    pcc_sl_free(&A->sync_names);
    pcc_sl_free(&A->kernel_names);
    pcc_sl_free(&A->kernel_exprs);
    pcc_sl_free(&A->dyn_names);
    pcc_sl_free(&A->dyn_setters);
    free(A->errors.p);
}

/* Refusals, kernels, extern __shared__ rewrites, barrier use: of the source
 * and of every header it can include. */
static nvrtcResult scan_program(struct _nvrtcProgram *P, job *J)
{
    pcc_slist seen = {0};
    pcc_sim_tokenize(&J->T, P->src, strlen(P->src), P->name);
    if (J->T.oom)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    pcc_sim_check_tokens(&J->A, &J->T);
    pcc_sim_analyze(&J->A, &J->T, P->src, &J->E);
    pcc_sim_sync_analysis(&J->A, &J->T);
    scan_includes(&J->A, P, &J->O, &J->T, NULL, &seen, 0);
    if (J->O.pre.n) { /* --pre-include headers are scanned like #include "..." */
        pcc_sim_toks pre = {0};
        for (int i = 0; i < J->O.pre.n; i++) {
            pcc_sbuf q = {0};
            pcc_sb_printf(&q, "\"%s", J->O.pre.v[i]);
            if (q.p)
                pcc_sl_adds(&pre.includes, q.p);
            free(q.p);
        }
        scan_includes(&J->A, P, &J->O, &pre, NULL, &seen, 0);
        pcc_sim_toks_free(&pre);
    }
    pcc_sl_free(&seen);
    if (J->A.nerrors == 0)
        return NVRTC_SUCCESS;
    pcc_sb_add(&P->log, J->A.errors.p, J->A.errors.len);
    if (J->A.nerrors > 20)
        pcc_sb_printf(&P->log, "(%d more)\n", J->A.nerrors - 20);
    return NVRTC_ERROR_COMPILATION;
}

/* Writes program header i under hdr/, with the same extern __shared__
 * rewrite as the source; its kernels join the table. */
static int write_program_header(struct _nvrtcProgram *P, job *J, int i)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/hdr/%s", J->tmp, P->hdr_names.v[i]);
    if (make_parents(path, J->tl + 4) != 0)
        return -1;
    pcc_sim_toks H = {0};
    pcc_sim_edits HE = {0};
    pcc_sim_analysis HA = {0};
    pcc_sbuf h = {0};
    const char *hs = P->hdr_srcs.v[i];
    pcc_sim_tokenize(&H, hs, strlen(hs), P->hdr_names.v[i]);
    pcc_sim_analyze(&HA, &H, hs, &HE);
    pcc_sim_apply_edits(hs, strlen(hs), &HE, &h);
    for (int k = 0; k < HA.kernel_names.n; k++)
        if (pcc_sl_find(&J->A.kernel_names, HA.kernel_names.v[k]) < 0) {
            pcc_sl_adds(&J->A.kernel_names, HA.kernel_names.v[k]);
            pcc_sl_adds(&J->A.kernel_exprs, HA.kernel_exprs.v[k]);
        }
    for (int k = 0; k < HA.dyn_setters.n; k++)
        pcc_sl_adds(&J->A.dyn_setters, HA.dyn_setters.v[k]);
    int rc = h.oom || H.oom ? -1 : write_file(path, h.p ? h.p : "", h.len);
    free(h.p);
    pcc_sim_toks_free(&H);
    pcc_sim_edits_free(&HE);
    analysis_free(&HA);
    return rc;
}

/* The private directory: pcc/ (prelude, sim_abi.h), stub/ (CUDA's header
 * names), hdr/ (program headers), src/ (the translation unit). */
static nvrtcResult make_private_dir(struct _nvrtcProgram *P, job *J)
{
    for (int i = 0; i < P->hdr_names.n; i++)
        if (!safe_name(P->hdr_names.v[i])) {
            pcc_sb_printf(&P->log, "error: header name '%s' must be a relative path inside the program\n",
                          P->hdr_names.v[i]);
            return NVRTC_ERROR_COMPILATION;
        }
    const char *tmpdir = getenv("TMPDIR");
    if (tmpdir == NULL || *tmpdir == '\0' || strlen(tmpdir) > 400)
        tmpdir = "/tmp";
    snprintf(J->tmp, sizeof J->tmp, "%s/pycudac-sim-XXXXXX", tmpdir);
    if (mkdtemp(J->tmp) == NULL) {
        snprintf(J->tmp, sizeof J->tmp, "/tmp/pycudac-sim-XXXXXX");
        if (mkdtemp(J->tmp) == NULL) {
            J->tmp[0] = '\0';
            pcc_sb_printf(&P->log, "error: cannot create a temporary directory: %s\n", strerror(errno));
            return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
        }
    }
    J->tl = strlen(J->tmp);
    char path[PATH_MAX];
    int ok = 1;
    static const char *const subdirs[] = {"pcc", "stub", "hdr", "src"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", J->tmp, subdirs[i]);
        ok = ok && mkdir(path, 0700) == 0;
    }
    snprintf(path, sizeof path, "%s/pcc/pcc_sim_prelude.h", J->tmp);
    ok = ok && write_file(path, pcc_sim_prelude_text, strlen(pcc_sim_prelude_text)) == 0;
    snprintf(path, sizeof path, "%s/pcc/sim_abi.h", J->tmp);
    ok = ok && write_file(path, pcc_sim_abi_text, strlen(pcc_sim_abi_text)) == 0;
    for (size_t i = 0; ok && i < sizeof stubs / sizeof stubs[0]; i++) {
        pcc_sbuf s = {0};
        /* assert.h re-defines assert every time it is included: no #pragma once */
        int is_assert = strcmp(stubs[i][0], "assert.h") == 0 || strcmp(stubs[i][0], "cassert") == 0;
        pcc_sb_printf(&s, "%s%s#include \"%s/pcc/pcc_sim_prelude.h\"\n",
                      is_assert ? "" : "#pragma once\n", stubs[i][1], J->tmp);
        snprintf(path, sizeof path, "%s/stub/%s", J->tmp, stubs[i][0]);
        ok = !s.oom && make_parents(path, J->tl + 5) == 0 && write_file(path, s.p, s.len) == 0;
        free(s.p);
    }
    for (int i = 0; ok && i < P->hdr_names.n; i++)
        ok = write_program_header(P, J, i) == 0;
    if (ok)
        return NVRTC_SUCCESS;
    pcc_sb_printf(&P->log, "error: cannot write the simulator's sources under %s: %s\n", J->tmp,
                  strerror(errno));
    return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
}

static void build_command(job *J)
{
    char arg[PATH_MAX];
    pcc_slist *a = &J->argv;
    pcc_sl_adds(a, cxx_path);
    for (int i = 0; i < cxx_extra.n; i++)
        pcc_sl_adds(a, cxx_extra.v[i]);
    pcc_sl_adds(a, J->O.std);
    for (size_t i = 0; i < N_BASE_FLAGS; i++)
        pcc_sl_adds(a, base_flags[i]);
    pcc_sl_adds(a, cxx_is_clang ? "-fno-caret-diagnostics" : "-fno-diagnostics-show-caret");
    if (!cxx_is_clang)
        pcc_sl_adds(a, "-fno-semantic-interposition");
    /* program headers, then our stand-ins for CUDA's own headers (they must
     * win over a CUDA toolkit's include dir given with -I), then -I dirs */
    snprintf(arg, sizeof arg, "-I%s/hdr", J->tmp);
    pcc_sl_adds(a, arg);
    snprintf(arg, sizeof arg, "-I%s/stub", J->tmp);
    pcc_sl_adds(a, arg);
    for (int i = 0; i < J->O.args.n; i++)
        if (strncmp(J->O.args.v[i], "-I", 2) == 0)
            pcc_sl_adds(a, J->O.args.v[i]);
    if (J->O.pre.n) { /* the prelude goes before any --pre-include header */
        pcc_sl_adds(a, "-include");
        snprintf(arg, sizeof arg, "%s/pcc/pcc_sim_prelude.h", J->tmp);
        pcc_sl_adds(a, arg);
    }
    for (int i = 0; i < J->O.args.n; i++) {
        if (strcmp(J->O.args.v[i], "-include") == 0 && i + 1 < J->O.args.n) {
            pcc_sl_adds(a, J->O.args.v[i]);
            pcc_sl_adds(a, J->O.args.v[++i]);
        } else if (strncmp(J->O.args.v[i], "-I", 2) != 0) {
            pcc_sl_adds(a, J->O.args.v[i]);
        }
    }
    pcc_sl_adds(a, "-o");
    snprintf(arg, sizeof arg, "%s/kernel.so", J->tmp);
    pcc_sl_adds(a, arg);
    snprintf(arg, sizeof arg, "%s/src/kernel.cpp", J->tmp);
    pcc_sl_adds(a, arg);
}

/* The compiler's output with the private directory's name taken out (it
 * means nothing to the user). Owned by the caller. */
static pcc_sbuf read_log(const job *J, const char *path)
{
    pcc_sbuf clean = {0};
    char *log = read_file(path, NULL);
    if (log == NULL)
        return clean;
    const char *at = log, *hit;
    while ((hit = strstr(at, J->tmp)) != NULL) {
        pcc_sb_add(&clean, at, (size_t)(hit - at));
        pcc_sb_puts(&clean, "<pycudac-sim>");
        at = hit + J->tl;
    }
    pcc_sb_puts(&clean, at);
    free(log);
    return clean;
}

/* Writes the translation unit and runs the compiler. A kernel found in the
 * text may be compiled out (#ifdef): the compiler then rejects its table
 * entry, which is dropped, and the compile runs once more. */
static nvrtcResult run_build(struct _nvrtcProgram *P, job *J)
{
    char src_path[PATH_MAX], log_path[PATH_MAX];
    snprintf(src_path, sizeof src_path, "%s/src/kernel.cpp", J->tmp);
    snprintf(log_path, sizeof log_path, "%s/log.txt", J->tmp);
    build_command(J);
    J->drop = calloc((size_t)J->A.kernel_names.n + 1, 1);
    if (J->argv.oom || J->drop == NULL)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    for (int attempt = 0;; attempt++) {
        /* prelude, the user's source in its own line numbers, the table */
        pcc_sbuf text = {0};
        pcc_sb_printf(&text, "#include \"%s/pcc/pcc_sim_prelude.h\"\n"
                             "#pragma GCC visibility push(default)\n", J->tmp);
        sb_line_name(&text, P->name);
        pcc_sim_apply_edits(P->src, strlen(P->src), &J->E, &text);
        write_tail(&text, &J->A, P, J->drop);
        int wrote = !text.oom && write_file(src_path, text.p, text.len) == 0;
        free(text.p);
        if (!wrote) {
            pcc_sb_printf(&P->log, "error: cannot write %s: %s\n", src_path, strerror(errno));
            return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
        }
        int status = run_compiler(J->argv.v, log_path);
        int spawn_errno = errno;
        pcc_sbuf log = read_log(J, log_path);
        if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            if (log.p)
                pcc_sb_add(&P->log, log.p, log.len);
            free(log.p);
            return NVRTC_SUCCESS;
        }
        int retry = 0;
        pcc_sbuf why = {0};
        static const char marker[] = "<pycudac-sim-registration>:";
        for (const char *at = log.p ? strstr(log.p, marker) : NULL; at; at = strstr(at + 1, marker)) {
            long line = strtol(at + sizeof marker - 1, NULL, 10);
            long k = line - PCC_LINE_KERNEL, e = line - PCC_LINE_EXPR;
            if (k >= 0 && k < J->A.kernel_names.n && !J->drop[k]) {
                J->drop[k] = 1;
                retry = 1;
            } else if (e >= 0 && e < P->exprs.n && (why.p == NULL || !strstr(why.p, P->exprs.v[e]))) {
                pcc_sb_printf(&why, "error: name expression '%s' does not name a __global__ function "
                                    "(or a template instance of one) in the program\n", P->exprs.v[e]);
            }
        }
        if (attempt == 0 && retry && why.p == NULL) {
            free(log.p);
            continue;
        }
        if (log.p)
            pcc_sb_add(&P->log, log.p, log.len);
        if (why.p)
            pcc_sb_add(&P->log, why.p, why.len);
        free(log.p);
        free(why.p);
        if (status < 0)
            pcc_sb_printf(&P->log, "error: could not run the C++ compiler %s: %s\n", cxx_path,
                          strerror(spawn_errno));
        else if (WIFSIGNALED(status))
            pcc_sb_printf(&P->log, "error: the C++ compiler %s was killed by signal %d\n", cxx_path,
                          WTERMSIG(status));
        else if (P->log.len == 0)
            pcc_sb_printf(&P->log, "error: the C++ compiler %s failed (exit status %d)\n", cxx_path,
                          WEXITSTATUS(status));
        return NVRTC_ERROR_COMPILATION;
    }
}

/* The shared object, wrapped in a pcc_sim_image: the program's "CUBIN". */
static nvrtcResult take_image(struct _nvrtcProgram *P, job *J)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/kernel.so", J->tmp);
    size_t so_len = 0;
    char *so = read_file(path, &so_len);
    if (so == NULL) {
        pcc_sb_printf(&P->log, "error: the compiler made no shared object\n");
        return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
    }
    pcc_sim_image_header hdr;
    memset(&hdr, 0, sizeof hdr);
    memcpy(hdr.magic, PCC_SIM_IMAGE_MAGIC, 8);
    hdr.abi_version = PCC_SIM_ABI_VERSION;
    hdr.size = so_len;
    P->image = malloc(sizeof hdr + so_len);
    if (P->image == NULL) {
        free(so);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    memcpy(P->image, &hdr, sizeof hdr);
    memcpy(P->image + sizeof hdr, so, so_len);
    P->image_len = sizeof hdr + so_len;
    free(so);
    return NVRTC_SUCCESS;
}

static void job_free(job *J, struct _nvrtcProgram *P)
{
    if (J->tmp[0] && getenv("PYCUDAC_SIM_KEEP_TMP") == NULL)
        nftw(J->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    else if (J->tmp[0])
        pcc_sb_printf(&P->log, "note: sources kept in %s (PYCUDAC_SIM_KEEP_TMP)\n", J->tmp);
    pcc_sl_free(&J->O.args);
    pcc_sl_free(&J->O.inc_dirs);
    pcc_sl_free(&J->O.pre);
    analysis_free(&J->A);
    pcc_sim_edits_free(&J->E);
    pcc_sim_toks_free(&J->T);
    pcc_sl_free(&J->argv);
    free(J->drop);
}

static nvrtcResult rtc_compile(nvrtcProgram P, int nopt, const char *const *opts)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (nopt < 0 || (nopt > 0 && opts == NULL))
        return NVRTC_ERROR_INVALID_INPUT;
    pthread_once(&setup_once, setup);
    free(P->log.p);
    memset(&P->log, 0, sizeof P->log);
    free(P->image);
    P->image = NULL;
    P->image_len = 0;
    P->compiled = 0;

    job J;
    memset(&J, 0, sizeof J);
    nvrtcResult rc;
    if (parse_options(nopt, opts, &J.O, &P->log) < 0) {
        rc = NVRTC_ERROR_INVALID_OPTION;
    } else if (cxx_path[0] == '\0') {
        pcc_sb_printf(&P->log, "error: %s\n", cxx_missing);
        rc = NVRTC_ERROR_COMPILATION;
    } else if ((rc = scan_program(P, &J)) == NVRTC_SUCCESS &&
               (rc = make_private_dir(P, &J)) == NVRTC_SUCCESS &&
               (rc = run_build(P, &J)) == NVRTC_SUCCESS) {
        rc = take_image(P, &J);
    }
    job_free(&J, P);
    if (P->log.oom && rc == NVRTC_SUCCESS)
        rc = NVRTC_ERROR_OUT_OF_MEMORY;
    P->compiled = rc == NVRTC_SUCCESS;
    return rc;
}

static nvrtcResult rtc_log_size(nvrtcProgram P, size_t *size)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (size == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    *size = P->log.len + 1;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_log(nvrtcProgram P, char *log)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (log == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (P->log.len)
        memcpy(log, P->log.p, P->log.len);
    log[P->log.len] = '\0';
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_ptx_size(nvrtcProgram P, size_t *size)
{
    (void)size;
    return P == NULL ? NVRTC_ERROR_INVALID_PROGRAM : NVRTC_ERROR_INVALID_INPUT; /* no PTX here */
}

static nvrtcResult rtc_ptx(nvrtcProgram P, char *ptx)
{
    (void)ptx;
    return P == NULL ? NVRTC_ERROR_INVALID_PROGRAM : NVRTC_ERROR_INVALID_INPUT;
}

static nvrtcResult rtc_cubin_size(nvrtcProgram P, size_t *size)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (size == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (!P->compiled)
        return NVRTC_ERROR_INVALID_PROGRAM;
    *size = P->image_len;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_cubin(nvrtcProgram P, char *out)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (out == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (!P->compiled)
        return NVRTC_ERROR_INVALID_PROGRAM;
    memcpy(out, P->image, P->image_len);
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_num_archs(int *n)
{
    if (n == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    *n = 1;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_archs(int *archs)
{
    if (archs == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    archs[0] = 90; /* the simulated device's compute capability */
    return NVRTC_SUCCESS;
}

static void fill_table(void)
{
    pthread_once(&setup_once, setup);
    sim_table.kind = "sim";
    sim_table.identity = identity;
    sim_table.nvrtcGetErrorString = rtc_error_string;
    sim_table.nvrtcVersion = rtc_version;
    sim_table.nvrtcCreateProgram = rtc_create;
    sim_table.nvrtcDestroyProgram = rtc_destroy;
    sim_table.nvrtcCompileProgram = rtc_compile;
    sim_table.nvrtcGetProgramLogSize = rtc_log_size;
    sim_table.nvrtcGetProgramLog = rtc_log;
    sim_table.nvrtcGetPTXSize = rtc_ptx_size;
    sim_table.nvrtcGetPTX = rtc_ptx;
    sim_table.nvrtcAddNameExpression = rtc_add_name;
    sim_table.nvrtcGetLoweredName = rtc_lowered;
    sim_table.nvrtcGetCUBINSize = rtc_cubin_size;
    sim_table.nvrtcGetCUBIN = rtc_cubin;
    sim_table.nvrtcGetNumSupportedArchs = rtc_num_archs;
    sim_table.nvrtcGetSupportedArchs = rtc_archs;
}

const pcc_rtc_table *pcc_sim_rtc_get(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_table);
    return &sim_table;
}
