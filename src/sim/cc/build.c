/*
 * sim/cc/build.c — one compile of the CPU simulator: find the headers the
 * program includes (libcu++ ones get a wrapper), fill a private temporary
 * directory (prelude, stand-ins for CUDA's headers, the program's headers),
 * preprocess the program with the host compiler, analyse the preprocessed
 * user code (kernels to register, NVRTC's rules, constructs a CPU cannot
 * run, barrier use: sim/cc/scan.c), compile the rewritten translation unit
 * with a generated registration table, and wrap the shared object it makes
 * in a pcc_sim_image (sim_abi.h): the "CUBIN".
 *
 * The NVRTC-like calls around it are sim/cc/compile.c; the compiler
 * itself and its command line are sim/cc/cxx.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/cc/cc.h"
#include "util/crc32c.h"
#include "pycudac/sim_abi.h"
#include "sim/env.h"

/* ---- files ------------------------------------------------------------------- */

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

/* ---- the job ------------------------------------------------------------------ */

/* Everything one compile owns; released by job_free. */
typedef struct {
    pcc_sim_options O;
    pcc_sim_analysis A;
    pcc_sim_edits E;   /* of the preprocessed translation unit */
    pcc_sim_toks T;    /* of the main source, for its #includes */
    pcc_slist incs;    /* every header the program can include, transitively */
    char *ii;          /* the preprocessed translation unit */
    size_t ii_len;
    pcc_slist argv;    /* the compiler's command line */
    char *drop;        /* per discovered kernel: 1 when left out of the table */
    char tmp[512];     /* the private directory ("" until made) */
    size_t tl;
} job;

/* ---- the scan ----------------------------------------------------------------- */

/* Whether `name` is one of our stand-ins for CUDA's own headers. */
static int is_stub(const char *name)
{
    for (size_t i = 0; i < pcc_sim_n_stubs; i++)
        if (strcmp(pcc_sim_stubs[i][0], name) == 0)
            return 1;
    return 0;
}

/* What the preprocessor must never open: a device (/dev/zero never ends), a
 * FIFO (blocks forever), a socket, anything of /proc or /sys. The error
 * goes to the log; 1 when path is one of them. */
static int special_file(struct _nvrtcProgram *P, const char *inc, const char *path)
{
    struct stat st;
    const char *why = NULL;
    if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0 ||
        strncmp(path, "/sys/", 5) == 0)
        why = "a file of /dev, /proc or /sys";
    else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        why = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ? "a socket" : "a device";
    if (why == NULL)
        return 0;
    pcc_sb_printf(&P->log, "%s: error: #include \"%s\" names %s, which the simulator's "
                           "compiler refuses to read (it could block or never end)\n",
                  P->name, inc, why);
    return 1;
}

/* Scans every header the program can include (program headers, then -I
 * dirs, then the includer's own dir), transitively. Sets *refused on an
 * include of a special file. */
static void scan_includes(pcc_slist *incs, struct _nvrtcProgram *P, const pcc_sim_options *O,
                          const pcc_sim_toks *T, const char *includer_dir, pcc_slist *seen, int level,
                          int *refused)
{
    if (level > 32)
        return;
    for (int i = 0; i < T->includes.n; i++) {
        const char *inc = T->includes.v[i] + 1;
        if (pcc_sl_find(incs, inc) < 0)
            pcc_sl_adds(incs, inc);
        int hi = pcc_sl_find(&P->hdr_names, inc);
        if (hi < 0 && is_stub(inc))
            continue; /* ours wins over any CUDA toolkit dir given with -I */
        if (hi < 0 && inc[0] == '/' && special_file(P, inc, inc)) {
            *refused = 1;
            continue;
        }
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
            int sys = 0;
            for (int d = 0; !found && d < O->inc_dirs.n; d++) {
                snprintf(path, sizeof path, "%s/%s", O->inc_dirs.v[d], inc);
                found = access(path, R_OK) == 0;
                sys = found && pcc_sl_find(&O->sys_dirs, O->inc_dirs.v[d]) >= 0;
            }
            if (!found && inc[0] == '/') { /* an absolute name */
                snprintf(path, sizeof path, "%s", inc);
                found = access(path, F_OK) == 0;
            }
            if (found && special_file(P, inc, path)) {
                *refused = 1;
                continue;
            }
            if (!found || sys) /* a toolkit's or libcu++'s own headers: not the program's */
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
        char dir[PATH_MAX];
        const char *sub = NULL;
        if (hi < 0) {
            snprintf(dir, sizeof dir, "%s", path);
            char *slash = strrchr(dir, '/');
            if (slash)
                *slash = '\0';
            sub = dir;
        }
        scan_includes(incs, P, O, &H, sub, seen, level + 1, refused);
        pcc_sim_toks_free(&H);
        free(owned);
    }
}

/* Every header the program can include (for the libcu++ wrappers). */
static nvrtcResult scan_program(struct _nvrtcProgram *P, job *J)
{
    pcc_slist seen = {0};
    pcc_sim_tokenize(&J->T, P->src, strlen(P->src), P->name);
    if (J->T.oom)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    int refused = 0;
    scan_includes(&J->incs, P, &J->O, &J->T, NULL, &seen, 0, &refused);
    if (J->O.pre.n) { /* --pre-include headers are scanned like #include "..." */
        pcc_sim_toks pre = {0};
        for (int i = 0; i < J->O.pre.n; i++) {
            pcc_sbuf q = {0};
            pcc_sb_printf(&q, "\"%s", J->O.pre.v[i]);
            if (q.p)
                pcc_sl_adds(&pre.includes, q.p);
            free(q.p);
        }
        scan_includes(&J->incs, P, &J->O, &pre, NULL, &seen, 0, &refused);
        pcc_sim_toks_free(&pre);
    }
    pcc_sl_free(&seen);
    for (int i = 0; i < J->incs.n; i++)
        if (strncmp(J->incs.v[i], "cuda/", 5) == 0 && !is_stub(J->incs.v[i]))
            J->O.host_libc = 1; /* libcu++ brings the host's C library */
    if (refused)
        return NVRTC_ERROR_COMPILATION;
    return J->incs.oom ? NVRTC_ERROR_OUT_OF_MEMORY : NVRTC_SUCCESS;
}

/* The analysis of the preprocessed translation unit: refusals, NVRTC's
 * rules, kernels, rewrites, barrier use; over the user's tokens (not the
 * prelude's, not system headers'). */
static nvrtcResult analyze_program(struct _nvrtcProgram *P, job *J)
{
    pcc_sim_toks all = {0}, user = {0};
    pcc_sim_tokenize(&all, J->ii, J->ii_len, P->name);
    user.v = malloc(((size_t)all.n + 1) * sizeof *user.v);
    if (all.oom || user.v == NULL) {
        pcc_sim_toks_free(&all);
        free(user.v);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; i < all.n; i++) {
        const char *f = all.v[i].file;
        int ours = f && strncmp(f, J->tmp, J->tl) == 0 &&
                   (strncmp(f + J->tl, "/pcc/", 5) == 0 || strncmp(f + J->tl, "/stub/", 6) == 0);
        if (!all.v[i].sys && !ours)
            user.v[user.n++] = all.v[i];
    }
    J->A.default_device = J->O.default_device;
    pcc_sim_check_tokens(&J->A, &user);
    pcc_sim_analyze(&J->A, &user, J->ii, &J->E);
    pcc_sim_sync_analysis(&J->A, &user);
    pcc_sim_marker_edits(&all, J->ii, &J->E);
    free(user.v);
    pcc_sim_toks_free(&all);
    if (J->A.nerrors == 0)
        return NVRTC_SUCCESS;
    pcc_sb_add(&P->log, J->A.errors.p, J->A.errors.len);
    if (J->A.nerrors > 20)
        pcc_sb_printf(&P->log, "(%d more)\n", J->A.nerrors - 20);
    return NVRTC_ERROR_COMPILATION;
}

/* ---- the generated parts of the translation unit ---------------------------- */

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

/* The rest of a kernel's registration: its __cluster_dims__ (the source's
 * expressions, which the compiler evaluates there) and the closing paren. */
static void sb_cluster(pcc_sbuf *out, const pcc_sim_analysis *A, const char *name)
{
    int k = pcc_sl_find(&A->kernel_names, name);
    const char *dims = k >= 0 && k < A->kernel_clusters.n ? A->kernel_clusters.v[k] : "";
    if (dims[0])
        pcc_sb_printf(out, ", __pcc_cluster(dim3(%s))),\n", dims);
    else
        pcc_sb_puts(out, "),\n");
}

/* The generated tail: the dynamic-shared setter, the kernel table and the
 * module's init. */
/* Entry lines carry #line markers so that a compiler error on one of them
 * says which: 1000+i for discovered kernel i, 2000+i for name expression i. */
#define PCC_LINE_KERNEL 1000
#define PCC_LINE_EXPR 2000

static void write_tail(pcc_sbuf *out, const pcc_sim_analysis *A, const struct _nvrtcProgram *P, const char *drop)
{
    pcc_sb_puts(out, "\n# 1 \"<pycudac-sim-registration>\"\n#pragma GCC visibility pop\n");
    pcc_sb_puts(out, "static void __pcc_set_dyn_shared(void *p)\n{\n    (void)p;\n");
    for (int i = 0; i < A->dyn_setters.n; i++)
        pcc_sb_puts(out, A->dyn_setters.v[i]);
    pcc_sb_puts(out, "}\nstatic pcc_sim_kernel __pcc_kernels[] = {\n");
    for (int i = 0; i < P->exprs.n; i++) {
        const char *e = P->exprs.v[i];
        while (*e == ' ' || *e == '\t' || *e == '&')
            e++;
        pcc_sb_printf(out, "# %d \"<pycudac-sim-registration>\"\n    __pcc_kernel< &%s >(\"", PCC_LINE_EXPR + i, e);
        sb_cstr(out, P->exprs.v[i]);
        pcc_sb_printf(out, "\", 1, %d", pcc_sim_kernel_syncs(A, P->exprs.v[i]));
        sb_cluster(out, A, P->exprs.v[i]);
    }
    for (int i = 0; i < A->kernel_names.n; i++) {
        if (drop[i] || pcc_sl_find(&P->exprs, A->kernel_names.v[i]) >= 0)
            continue;
        pcc_sb_printf(out, "# %d \"<pycudac-sim-registration>\"\n    __pcc_kernel< &%s >(\"%s\", 0, %d", PCC_LINE_KERNEL + i,
                  A->kernel_exprs.v[i], A->kernel_names.v[i], pcc_sim_kernel_syncs(A, A->kernel_names.v[i]));
        sb_cluster(out, A, A->kernel_names.v[i]);
    }
    pcc_sb_puts(out, "# 3000 \"<pycudac-sim-registration>\"\n");
    pcc_sb_puts(out,
            "    pcc_sim_kernel{nullptr, nullptr, 0, nullptr, nullptr, 0, 0, {0, 0, 0}, nullptr, nullptr, 0}};\n"
            "extern \"C\" __attribute__((visibility(\"default\"), no_sanitize(\"thread\"))) int\n"
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
            "    *count = n;\n");
    /* after preprocessing: the ABI's macro is spelt out */
    pcc_sb_printf(out, "    return %d;\n}\n", PCC_SIM_ABI_VERSION);
}

static void sb_line_name(pcc_sbuf *b, const char *name)
{
    pcc_sb_puts(b, "#line 1 \"");
    sb_cstr(b, name);
    pcc_sb_puts(b, "\"\n");
}

/* ---- the private directory and the compiler run ------------------------------ */

/* Writes program header i under hdr/, as it is (the rewrites are made on
 * the preprocessed translation unit). */
static int write_program_header(struct _nvrtcProgram *P, job *J, int i)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/hdr/%s", J->tmp, P->hdr_names.v[i]);
    if (make_parents(path, J->tl + 4) != 0)
        return -1;
    return write_file(path, P->hdr_srcs.v[i], strlen(P->hdr_srcs.v[i]));
}

/* `name` as a path spells it, into out: "." components and empty ones
 * ("//") dropped, ".." taking back the one before ("cuda/std/../barrier" is
 * "cuda/barrier", as the preprocessor finds it). 0, or -1 when it climbs
 * out of the directory it is looked up in, or does not fit. */
static int normal_header_name(const char *name, char *out, size_t size)
{
    size_t n = 0, cut[32];
    int depth = 0;
    for (const char *p = name; *p;) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (depth == 0)
                return -1;
            n = cut[--depth];
        } else if (len > 0 && !(len == 1 && p[0] == '.')) {
            if (depth >= 32 || n + len + 2 > size)
                return -1;
            cut[depth++] = n;
            if (n > 0)
                out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
        }
        p += len + (e != NULL);
    }
    if (n == 0)
        return -1;
    out[n] = '\0';
    return 0;
}

/* libcu++'s headers whose threads wait for one another (cuda::barrier and
 * cuda::memcpy_async with it, latch, semaphore, pipeline): compiled for the
 * host they spin until the others arrive, and the simulator runs a block's
 * threads one at a time between barriers, so a kernel using them never
 * finished (it hung the launch). An #error that says so instead. `norm`:
 * the name as normal_header_name gives it. */
static int blocking_cccl_header(const char *norm)
{
    static const char *const names[] = {"cuda/barrier", "cuda/std/barrier", "cuda/latch",
                                        "cuda/std/latch", "cuda/semaphore", "cuda/std/semaphore",
                                        "cuda/pipeline"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(norm, names[i]) == 0)
            return 1;
    return 0;
}

/* A libcu++ header (<cuda/std/...>) the program includes: the host
 * compiler reads it as a host C++ library, so CUDA's macros and the
 * prelude's are put aside around it; without libcu++, an #error that says
 * what provides it; for one whose threads wait for each other, an #error
 * that says why the simulator cannot run it. */
static int write_cccl_wrapper(struct _nvrtcProgram *P, job *J, const char *spelled)
{
    static const char *const macros[] = {
        "__CUDACC__", "__CUDACC_RTC__", "__CUDA_ARCH__", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__",
        "__global__", "__device__", "__host__", "__shared__", "__constant__", "__managed__",
        "__forceinline__", "__noinline__", "printf", "clock", "assert", "threadIdx", "blockIdx",
        "blockDim", "gridDim"};
    char path[PATH_MAX], name[256];
    if (normal_header_name(spelled, name, sizeof name) < 0) {
        pcc_sb_printf(&P->log, "error: #include <%s>: the name climbs out of the include "
                               "directory (or is too long)\n", spelled);
        errno = EINVAL;
        return -2;
    }
    /* a name that ends in a directory ("cuda/std/cstdint/") or leaves
     * cuda/ ("cuda/../cuda_fp16.h") gets no wrapper: the preprocessor finds
     * the file, or says it cannot, as it does for any other name (a wrapper
     * there made a directory of the file's name, or replaced a stand-in) */
    const char *last = strrchr(spelled, '/');
    last = last ? last + 1 : spelled;
    if (strncmp(name, "cuda/", 5) != 0 || !*last || strcmp(last, ".") == 0 ||
        strcmp(last, "..") == 0)
        return 0;
    /* the directories the name walks through ("cuda/std/../barrier" needs
     * cuda/std), then the wrapper where the walk ends */
    snprintf(path, sizeof path, "%s/stub/%s", J->tmp, spelled);
    if (make_parents(path, J->tl + 5) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/stub/%s", J->tmp, name);
    if (make_parents(path, J->tl + 5) != 0)
        return -1;
    pcc_sbuf s = {0};
    if (blocking_cccl_header(name)) {
        pcc_sb_printf(&s, "#error \"<%s> cannot run on the pycudac CPU simulator: its threads wait "
                          "for one another (cuda::barrier, cuda::memcpy_async with a barrier, "
                          "latches, semaphores, pipelines) by spinning, and the simulator runs a "
                          "block's threads one at a time between __syncthreads(). Use "
                          "__syncthreads(), or cooperative_groups (cg::memcpy_async and cg::wait, "
                          "given a plain byte count for a cuda::aligned_size_t), which it runs\"\n",
                      name);
    } else if (J->O.sys_dirs.n == 0) {
        pcc_sb_printf(&s, "#error \"<%s> is libcu++ (CCCL), which the pycudac CPU simulator did not "
                          "find: install the nvidia-cuda-cccl wheel (pip install nvidia-cuda-cccl) or a "
                          "CUDA toolkit (set CUDA_HOME), or pass its include/cccl directory in "
                          "include_dirs\"\n", name);
    } else {
        for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
            pcc_sb_printf(&s, "#pragma push_macro(\"%s\")\n#undef %s\n", macros[i], macros[i]);
        /* the toolkit's half, bfloat16 and fp8 headers are device code: the
         * simulator's own stand in for the first two, in the program's code */
        pcc_sb_puts(&s, "#ifndef CCCL_DISABLE_FP16_SUPPORT\n#define CCCL_DISABLE_FP16_SUPPORT 1\n#endif\n"
                        "#ifndef CCCL_DISABLE_BF16_SUPPORT\n#define CCCL_DISABLE_BF16_SUPPORT 1\n#endif\n"
                        "#ifndef CCCL_DISABLE_NVFP8_SUPPORT\n#define CCCL_DISABLE_NVFP8_SUPPORT 1\n#endif\n");
        pcc_sb_printf(&s, "#define __PCC_IN_SYSTEM 1\n#include_next <%s>\n#undef __PCC_IN_SYSTEM\n", name);
        for (size_t i = 0; i < sizeof macros / sizeof macros[0]; i++)
            pcc_sb_printf(&s, "#pragma pop_macro(\"%s\")\n", macros[i]);
    }
    int rc = s.oom ? -1 : write_file(path, s.p, s.len);
    free(s.p);
    return rc;
}

/* The private directory: pcc/ (src/sim/prelude/'s headers, sim_abi.h), stub/ (CUDA's header
 * names), hdr/ (program headers), src/ (the translation unit). */
static nvrtcResult make_private_dir(struct _nvrtcProgram *P, job *J)
{
    for (int i = 0; i < P->hdr_names.n; i++)
        if (!safe_name(P->hdr_names.v[i])) {
            pcc_sb_printf(&P->log, "error: header name '%s' must be a relative path inside the program\n",
                          P->hdr_names.v[i]);
            return NVRTC_ERROR_COMPILATION;
        }
    char *tmpenv = pcc_sim_env_dup("TMPDIR"); /* no getenv without the GIL */
    const char *tmpdir = tmpenv;
    if (tmpdir == NULL || *tmpdir == '\0' || strlen(tmpdir) > 400)
        tmpdir = "/tmp";
    snprintf(J->tmp, sizeof J->tmp, "%s/pycudac-sim-XXXXXX", tmpdir);
    free(tmpenv);
    if (mkdtemp(J->tmp) == NULL) {
        snprintf(J->tmp, sizeof J->tmp, "/tmp/pycudac-sim-XXXXXX");
        if (mkdtemp(J->tmp) == NULL) {
            J->tmp[0] = '\0';
            pcc_sb_printf(&P->log, "error: cannot create a temporary directory: %s\n", strerror(errno));
            return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
        }
    }
    J->tl = strlen(J->tmp);
    pcc_sim_inflight_dir(J->tmp, 1);
    char path[PATH_MAX];
    int ok = 1;
    static const char *const subdirs[] = {"pcc", "stub", "hdr", "src"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", J->tmp, subdirs[i]);
        ok = ok && mkdir(path, 0700) == 0;
    }
    for (size_t i = 0; ok && pcc_sim_prelude_file(i) != NULL; i++) {
        const pcc_sim_file *f = pcc_sim_prelude_file(i);
        snprintf(path, sizeof path, "%s/pcc/%s", J->tmp, f->name);
        ok = write_file(path, f->text, f->size - 1) == 0;
    }
    for (size_t i = 0; ok && i < pcc_sim_n_stubs; i++) {
        pcc_sbuf s = {0};
        const char *target = pcc_sim_stubs[i][1];
        /* assert.h re-defines assert every time it is included: no #pragma once */
        if (target[0] == '#')
            pcc_sb_printf(&s, "#pragma once\n%s\n", target);
        else
            pcc_sb_printf(&s, "%s#include \"%s/pcc/%s\"\n",
                          strcmp(target, "assert.h") == 0 ? "" : "#pragma once\n", J->tmp, target);
        snprintf(path, sizeof path, "%s/stub/%s", J->tmp, pcc_sim_stubs[i][0]);
        ok = !s.oom && make_parents(path, J->tl + 5) == 0 && write_file(path, s.p, s.len) == 0;
        free(s.p);
    }
    for (int i = 0; ok && i < P->hdr_names.n; i++)
        ok = write_program_header(P, J, i) == 0;
    int rc = 0;
    for (int i = 0; ok && i < J->incs.n; i++)
        if (strncmp(J->incs.v[i], "cuda/", 5) == 0 && !is_stub(J->incs.v[i]) &&
            pcc_sl_find(&P->hdr_names, J->incs.v[i]) < 0)
            ok = (rc = write_cccl_wrapper(P, J, J->incs.v[i])) == 0;
    if (ok)
        return NVRTC_SUCCESS;
    if (rc == -2) /* said why */
        return NVRTC_ERROR_COMPILATION;
    pcc_sb_printf(&P->log, "error: cannot write the simulator's sources under %s: %s\n", J->tmp,
                  strerror(errno));
    return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
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

/* Libcu++ (CCCL) headers the preprocessor did not find: what provides them. */
static void hint_missing(struct _nvrtcProgram *P, const pcc_sbuf *log)
{
    if (log->p && strstr(log->p, "cuda/std/") && strstr(log->p, "No such file"))
        pcc_sb_puts(&P->log, "note: <cuda/std/...> is libcu++ (CCCL): install the nvidia-cuda-cccl wheel "
                             "or a CUDA toolkit, or pass its include/cccl directory in include_dirs\n");
}

/* Runs the compiler with argv, its output into the log on failure (or
 * always, for warnings). 0 on success. */
static int run_compiler(struct _nvrtcProgram *P, job *J, pcc_slist *argv, pcc_sbuf *out_log)
{
    char log_path[PATH_MAX];
    snprintf(log_path, sizeof log_path, "%s/log.txt", J->tmp);
    int stopped = 0;
    int status = pcc_sim_cxx_run(argv->v, log_path, J->tmp, &stopped);
    int spawn_errno = errno;
    *out_log = read_log(J, log_path);
    if (status >= 0 && !stopped && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    const char *cxx_path = pcc_sim_cxx_get()->path;
    if (stopped == PCC_SIM_STOPPED_INTERRUPT)
        pcc_sb_printf(&P->log, "error: the compile was interrupted (Ctrl-C)\n");
    else if (stopped == PCC_SIM_STOPPED_TIMEOUT)
        pcc_sb_printf(&P->log, "error: the C++ compiler ran past the simulator's compile time "
                               "limit and was stopped (PYCUDAC_SIM_COMPILE_TIMEOUT sets it)\n");
    else if (status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ)
        pcc_sb_printf(&P->log, "error: the C++ compiler's output passed %d MiB and it was "
                               "stopped (an #include of something endless?)\n", 1024);
    else if (status < 0)
        pcc_sb_printf(&P->log, "error: could not run the C++ compiler %s: %s\n", cxx_path, strerror(spawn_errno));
    else if (WIFSIGNALED(status))
        pcc_sb_printf(&P->log, "error: the C++ compiler %s was killed by signal %d\n", cxx_path, WTERMSIG(status));
    else if (out_log->len == 0)
        pcc_sb_printf(&P->log, "error: the C++ compiler %s failed (exit status %d)\n", cxx_path,
                      WEXITSTATUS(status));
    return -1;
}

/* Preprocesses the program: <tmp>/src/kernel.cpp (prelude, the source in its
 * own line numbers) into J->ii. */
static nvrtcResult preprocess(struct _nvrtcProgram *P, job *J)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/src/kernel.cpp", J->tmp);
    pcc_sbuf text = {0};
    pcc_sb_printf(&text, "#include \"%s/pcc/cuda_runtime.h\"\n#pragma GCC visibility push(default)\n", J->tmp);
    sb_line_name(&text, P->name);
    pcc_sb_puts(&text, P->src);
    int wrote = !text.oom && write_file(path, text.p, text.len) == 0;
    free(text.p);
    if (!wrote) {
        pcc_sb_printf(&P->log, "error: cannot write %s: %s\n", path, strerror(errno));
        return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
    }
    pcc_slist argv = {0};
    pcc_sim_cxx_command(&J->O, J->tmp, SIM_CXX_PREPROCESS, &argv);
    pcc_sbuf log = {0};
    int rc = argv.oom ? -1 : run_compiler(P, J, &argv, &log);
    pcc_sl_free(&argv);
    if (rc != 0) {
        if (log.p)
            pcc_sb_add(&P->log, log.p, log.len);
        hint_missing(P, &log);
        free(log.p);
        return NVRTC_ERROR_COMPILATION;
    }
    free(log.p);
    snprintf(path, sizeof path, "%s/kernel.ii", J->tmp);
    J->ii = read_file(path, &J->ii_len);
    if (J->ii == NULL) {
        pcc_sb_printf(&P->log, "error: the preprocessor wrote no output\n");
        return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
    }
    return NVRTC_SUCCESS;
}

/* The object of a compile made apart into the shared object. */
static nvrtcResult link_apart(struct _nvrtcProgram *P, job *J)
{
    pcc_slist argv = {0};
    pcc_sim_cxx_command(&J->O, J->tmp, SIM_CXX_LINK, &argv);
    pcc_sbuf log = {0};
    int rc = argv.oom ? -1 : run_compiler(P, J, &argv, &log);
    pcc_sl_free(&argv);
    if (log.p)
        pcc_sb_add(&P->log, log.p, log.len);
    free(log.p);
    return rc == 0 ? NVRTC_SUCCESS : NVRTC_ERROR_COMPILATION;
}

/* Writes the rewritten translation unit and compiles it. A kernel the
 * registration table cannot name (two overloads of one name) is left out,
 * and the compile runs once more. */
static nvrtcResult run_build(struct _nvrtcProgram *P, job *J)
{
    char src_path[PATH_MAX];
    snprintf(src_path, sizeof src_path, "%s/src/kernel.ii", J->tmp);
    int apart = pcc_sim_cxx_links_apart(&J->O);
    pcc_sim_cxx_command(&J->O, J->tmp, apart ? SIM_CXX_OBJECT : SIM_CXX_BUILD, &J->argv);
    J->drop = calloc((size_t)J->A.kernel_names.n + 1, 1);
    if (J->argv.oom || J->drop == NULL)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    for (int attempt = 0;; attempt++) {
        pcc_sbuf text = {0};
        pcc_sim_apply_edits(J->ii, J->ii_len, &J->E, &text);
        write_tail(&text, &J->A, P, J->drop);
        int wrote = !text.oom && write_file(src_path, text.p, text.len) == 0;
        free(text.p);
        if (!wrote) {
            pcc_sb_printf(&P->log, "error: cannot write %s: %s\n", src_path, strerror(errno));
            return NVRTC_ERROR_BUILTIN_OPERATION_FAILURE;
        }
        pcc_sbuf log = {0};
        size_t before = P->log.len;
        if (run_compiler(P, J, &J->argv, &log) == 0) {
            if (log.p)
                pcc_sb_add(&P->log, log.p, log.len);
            free(log.p);
            return apart ? link_apart(P, J) : NVRTC_SUCCESS;
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
            P->log.len = before;
            if (P->log.p)
                P->log.p[before] = '\0';
            free(log.p);
            continue;
        }
        if (log.p)
            pcc_sb_add(&P->log, log.p, log.len);
        if (why.p)
            pcc_sb_add(&P->log, why.p, why.len);
        free(log.p);
        free(why.p);
        return NVRTC_ERROR_COMPILATION;
    }
}

/* NVRTC refuses a __device__ variable with a dynamic initializer (a
 * constructor, or an initializer that is no constant expression); so does
 * the simulator, which would have had to run it when the module loads. The
 * compiler puts such initializers in the object's .init_array, which the
 * link map (GNU ld's) lists; crt files' and the instrumentation's (in
 * .init_array.NNNNN, by priority) are not the program's. */
static nvrtcResult refuse_initializers(struct _nvrtcProgram *P, job *J)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/kernel.map", J->tmp);
    char *map = read_file(path, NULL);
    if (map == NULL)
        return NVRTC_SUCCESS; /* no map (another linker): nothing to tell */
    int found = 0;
    for (char *line = map; line && *line && !found;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        char file[PATH_MAX];
        unsigned long long addr, size;
        if (sscanf(line, " .init_array 0x%llx 0x%llx %4095s", &addr, &size, file) == 3 && size > 0 &&
            strstr(file, "/crt") == NULL && strncmp(file, "crt", 3) != 0)
            found = 1;
        line = end ? end + 1 : NULL;
    }
    free(map);
    if (!found)
        return NVRTC_SUCCESS;
    pcc_sb_printf(&P->log, "%s: error: dynamic initialization is not supported for a __device__ "
                           "variable: a variable at namespace scope is initialized by code that "
                           "runs (a constructor, or an initializer that is not a constant "
                           "expression); NVRTC refuses this too\n", P->name);
    return NVRTC_ERROR_COMPILATION;
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
    hdr.crc32c = pcc_crc32c(so, so_len, 1);
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
    char *keep = pcc_sim_env_dup("PYCUDAC_SIM_KEEP_TMP");
    free(keep);
    if (J->tmp[0])
        pcc_sim_inflight_dir(J->tmp, 0);
    if (J->tmp[0] && keep == NULL)
        pcc_sim_remove_tree(J->tmp);
    else if (J->tmp[0])
        pcc_sb_printf(&P->log, "note: sources kept in %s (PYCUDAC_SIM_KEEP_TMP)\n", J->tmp);
    pcc_sl_free(&J->O.args);
    pcc_sl_free(&J->O.inc_dirs);
    pcc_sl_free(&J->O.pre);
    pcc_sl_free(&J->O.sys_dirs);
    pcc_sl_free(&J->incs);
    free(J->ii);
    pcc_sim_analysis_free(&J->A);
    pcc_sim_edits_free(&J->E);
    pcc_sim_toks_free(&J->T);
    pcc_sl_free(&J->argv);
    free(J->drop);
}

/* Scan, private directory, compiler run, image; the directory is removed
 * after (unless PYCUDAC_SIM_KEEP_TMP). */
nvrtcResult pcc_sim_build(struct _nvrtcProgram *P, int nopt, const char *const *opts)
{
    const pcc_sim_cxx *cxx = pcc_sim_cxx_get();
    job J;
    memset(&J, 0, sizeof J);
    nvrtcResult rc;
    if (pcc_sim_parse_options(nopt, opts, &J.O, &P->log) < 0) {
        rc = NVRTC_ERROR_INVALID_OPTION;
    } else if (cxx->path[0] == '\0') {
        pcc_sb_printf(&P->log, "error: %s\n", cxx->missing);
        rc = NVRTC_ERROR_COMPILATION;
    } else if ((rc = scan_program(P, &J)) == NVRTC_SUCCESS &&
               (rc = make_private_dir(P, &J)) == NVRTC_SUCCESS &&
               (rc = preprocess(P, &J)) == NVRTC_SUCCESS &&
               (rc = analyze_program(P, &J)) == NVRTC_SUCCESS &&
               (rc = run_build(P, &J)) == NVRTC_SUCCESS &&
               (rc = refuse_initializers(P, &J)) == NVRTC_SUCCESS) {
        rc = take_image(P, &J);
    }
    job_free(&J, P);
    return rc;
}
