/*
 * compile/pch.c — NVRTC's precompiled headers (CUDA 12.8+): the process's
 * PCH directory, the PCH heap, and what compile.c needs to use them.
 *
 * What NVRTC does (NVRTC 13.0, measured): with `-pch --pch-dir=D` a compile
 * writes a PCH file of its source's leading preprocessing directives (up
 * to the first line that is not one) into D, and a later compile whose
 * source starts with the same directives, under the same options, loads
 * it instead of parsing the headers again: a kernel that includes
 * <cooperative_groups.h> and <cuda_fp16.h> compiled in 1050 ms, and in
 * 145 ms with the PCH. A #line directive among those first lines disables
 * creation (compile.c puts none there when it hoists them).
 *
 * A PCH file is made in NVRTC's PCH heap, mapped at an address of this
 * process: only the NVRTC instance that made it can use it (another
 * process's is refused, warning 20282), and NVRTC deletes the files it
 * made when the process exits. So the directory is the process's own: made
 * with mkdtemp (0700) as <cache>/pch/<pid>-XXXXXX under the compile cache
 * directory (checked as the cache is: ours, not writable by others, no
 * symbolic link; the pch directory is checked the same way), or in TMPDIR
 * when the cache is off; removed at exit, and those of processes that died
 * without exiting are removed by the next process that makes one. Nothing
 * of PCH enters the cache key: it changes how fast a compile runs, not
 * what it makes (tests compare the images).
 *
 * The heap is one per process (256 MiB by default; a PCH of those two
 * headers takes 96 MiB). A compile that would have made a PCH but found
 * the heap too small (status 14) grows it — which discards every PCH made
 * so far, so it waits for the compiles in flight (a read-write lock) — and
 * compile.c compiles once more so that the PCH exists for the next ones.
 * PCH never fails a compile: a compile that fails with PCH for a reason
 * that may be PCH's is compiled again without it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "compile/pch.h"
#include "driver/loader.h"
#include "util/fixbuf.h"

/* The heap is never grown past this (address space, and the memory of the
 * PCHs in it): a header set that needs more compiles without PCH. */
#define PCH_HEAP_MAX ((size_t)2 << 30)
/* A directory of a dead process is removed once it is this old (seconds):
 * a process in another PID namespace may be alive under the same number. */
#define PCH_STALE_S 600

static struct {
    pid_t pid;      /* the process that made dir: a forked child makes its own */
    char dir[4096]; /* "" until made */
    int at_exit;    /* the exit hook is registered */
    int heap_set;   /* PYCUDAC_PCH_HEAP was applied */
    int pinned;     /* dir was set by _pch_set_dir: used as it is */
    long created, used, grown, fell_back;
} pch;

static pthread_rwlock_t heap_lock = PTHREAD_RWLOCK_INITIALIZER;

int pcc_pch_available(const pcc_rtc_table *rtc)
{
    return rtc != NULL && rtc->nvrtcGetPCHCreateStatus != NULL &&
           rtc->nvrtcGetPCHHeapSizeRequired != NULL && rtc->nvrtcSetPCHHeapSize != NULL &&
           rtc->nvrtcGetPCHHeapSize != NULL;
}

/* ---- the source's leading directives ------------------------------------------ */

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
        p++;
    return p;
}

static int word_is(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) < n || memcmp(p, w, n) != 0)
        return 0;
    return p + n == end || !((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') ||
                             (p[n] >= '0' && p[n] <= '9') || p[n] == '_');
}

/* What one line of the leading run is: -1 ends the run; else 0, and
 * *depth and *includes follow the directive. *in_comment carries a block
 * comment from line to line. */
static int classify(const char *p, const char *eol, int *in_comment, int *depth, int *includes)
{
    p = skip_blanks(p, eol);
    if (*in_comment) {
        const char *close = NULL;
        for (const char *c = p; c + 1 < eol; c++)
            if (c[0] == '*' && c[1] == '/') {
                close = c;
                break;
            }
        if (close == NULL)
            return 0;
        *in_comment = 0;
        p = skip_blanks(close + 2, eol);
    }
    if (p == eol || (eol - p >= 2 && p[0] == '/' && p[1] == '/'))
        return 0;
    if (eol - p >= 2 && p[0] == '/' && p[1] == '*') {
        /* a comment alone on its line (or opening one) */
        for (const char *c = p + 2; c + 1 < eol; c++)
            if (c[0] == '*' && c[1] == '/')
                return skip_blanks(c + 2, eol) == eol ? 0 : -1;
        *in_comment = 1;
        return 0;
    }
    if (*p != '#')
        return -1;
    p = skip_blanks(p + 1, eol);
    if (word_is(p, eol, "include")) {
        /* only <...>: a quoted header may be the user's own, whose
         * declarations must keep the C linkage of the extern "C" block */
        p = skip_blanks(p + 7, eol);
        if (p == eol || *p != '<' || memchr(p, '>', (size_t)(eol - p)) == NULL)
            return -1;
        (*includes)++;
        return 0;
    }
    if (word_is(p, eol, "define") || word_is(p, eol, "undef") || word_is(p, eol, "pragma"))
        return 0;
    if (word_is(p, eol, "if") || word_is(p, eol, "ifdef") || word_is(p, eol, "ifndef")) {
        (*depth)++;
        return 0;
    }
    if (word_is(p, eol, "elif") || word_is(p, eol, "else"))
        return *depth > 0 ? 0 : -1;
    if (word_is(p, eol, "endif")) {
        if (*depth == 0)
            return -1;
        (*depth)--;
        return 0;
    }
    return -1; /* #line (which disables PCH creation), #error, anything else */
}

/* Whether the line [p, eol) ends in a backslash (before a '\r'). */
static int continued(const char *p, const char *eol)
{
    const char *last = eol - 1;
    if (last >= p && *last == '\r')
        last--;
    return last >= p && *last == '\\';
}

size_t pcc_pch_prefix(const char *src, int *lines, int *includes)
{
    int in_comment = 0, depth = 0, incs = 0, n = 0;
    size_t cut = 0;
    *lines = 0;
    *includes = 0;
    for (const char *p = src; *p;) {
        const char *eol = strchr(p, '\n');
        const char *next = eol ? eol + 1 : p + strlen(p);
        if (eol == NULL)
            eol = next;
        /* a directive continued over several lines is one line here */
        while (continued(p, eol) && *next) {
            const char *e2 = strchr(next, '\n');
            n++;
            next = e2 ? e2 + 1 : next + strlen(next);
            eol = e2 ? e2 : next;
        }
        if (classify(p, eol, &in_comment, &depth, &incs) < 0)
            break;
        n++;
        p = next;
        if (depth == 0 && !in_comment) {
            cut = (size_t)(p - src);
            *lines = n;
            *includes = incs;
        }
    }
    return cut;
}

/* ---- the process's directory ----------------------------------------------------- */

/* Removes the regular files in directory `fd` and closes it. */
static void empty_dir_fd(int fd)
{
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            unlinkat(fd, e->d_name, 0);
    }
    closedir(d);
}

static void empty_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        empty_dir_fd(fd);
}

/* Py_AtExit: NVRTC deletes its own files at exit too; this takes what is
 * left and the directory. A forked child leaves its parent's alone. */
static void remove_dir_at_exit(void)
{
    if (pch.dir[0] == '\0' || pch.pid != getpid() || pch.pinned)
        return;
    empty_dir(pch.dir);
    rmdir(pch.dir);
    pch.dir[0] = '\0';
}

/* "<pid>-XXXXXX": *pid. */
static int parse_dir_name(const char *name, long *pid)
{
    char *end;
    errno = 0;
    long v = strtol(name, &end, 10);
    if (errno || end == name || v <= 0 || *end != '-' || strlen(end + 1) != 6)
        return 0;
    *pid = v;
    return 1;
}

/* Removes the directories of processes that are gone from <root>/pch
 * (descriptor `base`, checked). Best effort. */
static void sweep_dead(int base)
{
    int fd = dup(base);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid;
        struct stat st;
        if (!parse_dir_name(e->d_name, &pid) || pid == (long)getpid() ||
            fstatat(base, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid() || now - st.st_mtime < PCH_STALE_S)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive, or not ours to ask about */
        int sub = openat(base, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
            empty_dir_fd(sub);
            unlinkat(base, e->d_name, AT_REMOVEDIR);
        }
    }
    closedir(d);
}

/* Makes the process's directory into pch.dir. 0 or -1 (nothing set). */
static int make_dir(PyObject *root)
{
    char tmpl[4096];
    pcc_fb b = pcc_fb_at(tmpl, sizeof tmpl);
    int base = -1;
    if (root != NULL && root != Py_None) {
        const char *r = PyUnicode_Check(root) ? PyUnicode_AsUTF8(root) : NULL;
        if (r == NULL) {
            PyErr_Clear();
            return -1;
        }
        pcc_fb_str(&b, r);
        pcc_fb_str(&b, "/pch");
        if (!pcc_fb_ok(&b) || (mkdir(tmpl, 0700) < 0 && errno != EEXIST))
            return -1;
        /* the pch directory as the cache itself: ours, no symlink, not
         * writable by others (NVRTC reads what is in it) */
        base = open(tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (base < 0 || fstat(base, &st) < 0 || st.st_uid != geteuid() ||
            (st.st_mode & (S_IWGRP | S_IWOTH))) {
            if (base >= 0)
                close(base);
            return -1;
        }
        sweep_dead(base);
        close(base);
        pcc_fb_str(&b, "/");
    } else {
        const char *t = getenv("TMPDIR");
        pcc_fb_str(&b, t && *t ? t : "/tmp");
        pcc_fb_str(&b, "/pycudac-pch-");
    }
    pcc_fb_i64(&b, (long long)getpid());
    pcc_fb_str(&b, "-XXXXXX");
    if (!pcc_fb_ok(&b) || mkdtemp(tmpl) == NULL)
        return -1;
    memcpy(pch.dir, tmpl, strlen(tmpl) + 1);
    pch.pid = getpid();
    if (!pch.at_exit && Py_AtExit(remove_dir_at_exit) == 0)
        pch.at_exit = 1;
    return 0;
}

/* PYCUDAC_PCH_HEAP=<bytes>: the heap to start with (tests start small). */
static void apply_heap_setting(const pcc_rtc_table *rtc)
{
    pch.heap_set = 1;
    const char *v = getenv("PYCUDAC_PCH_HEAP");
    char *end;
    unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    if (n == 0 || *end != '\0' || n > PCH_HEAP_MAX)
        return;
    pthread_rwlock_wrlock(&heap_lock);
    rtc->nvrtcSetPCHHeapSize((size_t)n);
    pthread_rwlock_unlock(&heap_lock);
}

int pcc_pch_prepare(pcc_pch_job *pj, PyObject *root, const pcc_rtc_table *rtc)
{
    pj->use = 0;
    if (!pcc_pch_available(rtc))
        return -1;
    if (!pch.heap_set)
        apply_heap_setting(rtc);
    struct stat st;
    if (pch.dir[0] != '\0' && !pch.pinned &&
        (pch.pid != getpid() || stat(pch.dir, &st) < 0 || !S_ISDIR(st.st_mode)))
        pch.dir[0] = '\0'; /* a forked child's, or removed under us */
    if (pch.dir[0] == '\0' && make_dir(root) < 0)
        return -1;
    pcc_fb b = pcc_fb_at(pj->opt_dir, sizeof pj->opt_dir);
    pcc_fb_str(&b, "--pch-dir=");
    pcc_fb_str(&b, pch.dir);
    if (!pcc_fb_ok(&b))
        return -1;
    pj->use = 1;
    return 0;
}

int pcc_pch_options(const pcc_pch_job *pj, const char **opts)
{
    opts[0] = "-pch";
    opts[1] = pj->opt_dir;
    /* no reasons why a PCH file could not be used: the directory holds
     * one per header set and option list, all tried */
    opts[2] = "--pch-verbose=false";
    /* the created/used lines, which pcc_pch_clean_log takes out */
    opts[3] = "--pch-messages=true";
    /* 639: "insufficient preallocated memory for generation of
     * precompiled header file" — pcc_pch_grow acts on it */
    opts[4] = "--diag-suppress=639";
    return PCC_PCH_NOPTS;
}

/* ---- the heap -------------------------------------------------------------------- */

void pcc_pch_begin(void) { pthread_rwlock_rdlock(&heap_lock); }
void pcc_pch_end(void) { pthread_rwlock_unlock(&heap_lock); }

/* The heap size seen by the compile that ran out of it, so that two such
 * compiles grow it once. */
static size_t heap_seen(const pcc_rtc_table *rtc)
{
    size_t n = 0;
    return rtc->nvrtcGetPCHHeapSize(&n) == NVRTC_SUCCESS ? n : 0;
}

void pcc_pch_status(pcc_pch_job *pj, const pcc_rtc_table *rtc, nvrtcProgram prog)
{
    pj->status = rtc->nvrtcGetPCHCreateStatus(prog);
    pj->required = 0;
    if (pj->status == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED &&
        rtc->nvrtcGetPCHHeapSizeRequired(prog, &pj->required) != NVRTC_SUCCESS)
        pj->required = 0;
    if (pj->status == NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED)
        pj->heap_seen = heap_seen(rtc);
}

int pcc_pch_grow(pcc_pch_job *pj, const pcc_rtc_table *rtc)
{
    if (pj->status != NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED || pj->required == 0 || pj->grew)
        return 0;
    int grown = 0;
    pthread_rwlock_wrlock(&heap_lock);
    size_t now = heap_seen(rtc);
    if (now != pj->heap_seen) {
        grown = 1; /* another compile grew it meanwhile: just compile again */
    } else {
        /* twice the heap, or what this PCH asked for and a quarter more */
        size_t want = now * 2, need = pj->required + pj->required / 4;
        if (want < need)
            want = need;
        if (want > PCH_HEAP_MAX)
            want = PCH_HEAP_MAX;
        if (want > now && want >= pj->required &&
            rtc->nvrtcSetPCHHeapSize(want) == NVRTC_SUCCESS) {
            grown = 1;
            /* the PCHs made so far lived in the old heap: useless now */
            const char *dir = pj->opt_dir + strlen("--pch-dir=");
            empty_dir(dir);
        }
    }
    pthread_rwlock_unlock(&heap_lock);
    pj->grew = grown;
    return grown;
}

/* ---- the log ----------------------------------------------------------------------- */

void pcc_pch_clean_log(pcc_pch_job *pj, char *log)
{
    if (log == NULL)
        return;
    static const char *const marks[] = {"\": creating precompiled header file \"",
                                        "\": using precompiled header file \""};
    char *out = log;
    for (char *p = log; *p;) {
        char *eol = strchr(p, '\n');
        char *next = eol ? eol + 1 : p + strlen(p);
        int drop = 0;
        for (int k = 0; k < 2 && !drop; k++) {
            char *hit = strstr(p, marks[k]);
            if (hit != NULL && (eol == NULL || hit < eol)) {
                drop = 1;
                pj->outcome = k == 0 ? PCC_PCH_CREATED : PCC_PCH_USED;
            }
        }
        if (!drop) {
            memmove(out, p, (size_t)(next - p));
            out += next - p;
        }
        p = next;
    }
    *out = '\0';
}

int pcc_pch_maybe_cause(nvrtcResult rc, const char *log)
{
    if (rc != NVRTC_ERROR_COMPILATION)
        return 1;
    return log != NULL && (strstr(log, "PCH") != NULL || strstr(log, "precompiled header"));
}

void pcc_pch_count(const pcc_pch_job *pj)
{
    pch.created += pj->outcome == PCC_PCH_CREATED;
    pch.used += pj->outcome == PCC_PCH_USED;
    pch.grown += pj->grew;
    pch.fell_back += pj->fell_back;
}

/* ---- Python ------------------------------------------------------------------------ */

static PyObject *py_pch_info(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    PyObject *heap = Py_NewRef(Py_None);
    /* the heap's size, when NVRTC is loaded already (never loads it) */
    const pcc_rtc_table *rtc = pcc_rtc_nvrtc_if_loaded();
    if (pcc_pch_available(rtc)) {
        size_t n = 0;
        if (rtc->nvrtcGetPCHHeapSize(&n) == NVRTC_SUCCESS) {
            Py_DECREF(heap);
            heap = PyLong_FromSize_t(n);
            if (heap == NULL)
                return NULL;
        }
    }
    int mine = pch.dir[0] != '\0' && pch.pid == getpid();
    return Py_BuildValue("{s:O,s:s,s:N,s:l,s:l,s:l,s:l}", "available",
                         pcc_pch_available(rtc) ? Py_True : Py_False, "dir",
                         mine ? pch.dir : NULL, "heap_size", heap, "created", pch.created,
                         "used", pch.used, "heap_grown", pch.grown, "fallbacks", pch.fell_back);
}

/* _pch_set_dir(path or None): for tests — the next compiles use `path` as
 * the PCH directory as it is (None: make a new one at the next compile). */
static PyObject *py_pch_set_dir(PyObject *self, PyObject *arg)
{
    (void)self;
    if (arg == Py_None) {
        if (!pch.pinned)
            remove_dir_at_exit();
        pch.dir[0] = '\0';
        pch.pinned = 0;
        Py_RETURN_NONE;
    }
    const char *p = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (p == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "_pch_set_dir: path must be str or None, not %.100s",
                         Py_TYPE(arg)->tp_name);
        return NULL;
    }
    if (strlen(p) >= sizeof pch.dir) {
        PyErr_SetString(PyExc_ValueError, "_pch_set_dir: path is too long");
        return NULL;
    }
    if (!pch.pinned)
        remove_dir_at_exit();
    memcpy(pch.dir, p, strlen(p) + 1);
    pch.pid = getpid();
    pch.pinned = 1;
    Py_RETURN_NONE;
}

/* _pch_prefix(source) -> (bytes, lines, includes): pcc_pch_prefix, for tests. */
static PyObject *py_pch_prefix(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t n;
    const char *s = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &n) : NULL;
    if (s == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "_pch_prefix: source must be str, not %.100s",
                         Py_TYPE(arg)->tp_name);
        return NULL;
    }
    int lines, includes;
    size_t len = pcc_pch_prefix(s, &lines, &includes);
    return Py_BuildValue("(nii)", (Py_ssize_t)len, lines, includes);
}

static PyMethodDef pch_methods[] = {
    {"_pch_prefix", py_pch_prefix, METH_O,
     "_pch_prefix(source) -> (bytes, lines, includes): the leading directives a compile with "
     "PCH puts before extern \"C\" (for tests)."},
    {"pch_info", py_pch_info, METH_NOARGS,
     "pch_info() -> dict(available, dir, heap_size, created, used, heap_grown, fallbacks): "
     "NVRTC's precompiled headers in this process (compile/pch.c)."},
    {"_pch_set_dir", py_pch_set_dir, METH_O,
     "_pch_set_dir(path or None): for tests, the PCH directory the next compiles use as it is "
     "(None: make a new one at the next compile)."},
    {NULL, NULL, 0, NULL}};

int pcc_pch_init(PyObject *module)
{
    return PyModule_AddFunctions(module, pch_methods);
}
