/*
 * compile/compile.c — CUDA C source → CUBIN, PTX or a simulator image, through a
 * pcc_rtc_table: the real NVRTC (pcc_rtc_nvrtc) or the simulator's compiler
 * (the backend's, pycudac/backend.h), which both speak NVRTC's calls.
 *
 * The source is wrapped as compile/wrap.c says (extern "C", toolkit
 * #includes, #line directives); every program, on either compiler, gets the
 * same C library stand-ins (compile/c_headers.c); NVRTC's precompiled
 * headers are compile/pch.c's. A failed compile raises CompileError carrying the
 * log and the source, with a message that quotes the failing lines of the
 * user's source.
 *
 * Compiling needs no driver and no GPU (compile() with an explicit arch works
 * in CI), so these entry points do not call pcc_ready(): they only need the
 * compiler library, which pcc_rtc_nvrtc() loads and reports on itself.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compile/c_headers.h"
#include "compile/cache.h"
#include "compile/pch.h"
#include "compile/wrap.h"
#include "driver/loader.h"
#include "util/nvtx.h"
#include "core/module.h"


enum { TARGET_CUBIN = 0, TARGET_PTX = 1, TARGET_SIM = 2, TARGET_LTOIR = 3 };

/* ---- one compile job, run without the GIL ---------------------------------- */

/* Everything the compile needs and produces, in raw C memory so that the
 * compiler runs with the GIL released. */
typedef struct {
    const pcc_rtc_table *rtc;
    char *src;
    char **opts;
    int nopts;
    char **exprs;
    int nexprs;
    int target;
    pcc_pch_job pch; /* precompiled headers (compile/pch.c) */
    /* results */
    nvrtcResult rc;
    const char *failed_call; /* NULL, or the call that failed (static text) */
    char *log;
    char *image;
    size_t image_size;
    char *ptx;
    size_t ptx_size;
    char **lowered; /* one per expression; NULL where not available */
} compile_job;

static char *raw_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = PyMem_RawMalloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

static void job_free(compile_job *job)
{
    PyMem_RawFree(job->src);
    for (int i = 0; i < job->nopts; i++)
        PyMem_RawFree(job->opts[i]);
    PyMem_RawFree(job->opts);
    for (int i = 0; i < job->nexprs; i++) {
        PyMem_RawFree(job->exprs[i]);
        if (job->lowered)
            PyMem_RawFree(job->lowered[i]);
    }
    PyMem_RawFree(job->exprs);
    PyMem_RawFree(job->lowered);
    PyMem_RawFree(job->log);
    PyMem_RawFree(job->image);
    PyMem_RawFree(job->ptx);
}

/* Fetches a sized output (PTX or CUBIN) into raw memory. */
static nvrtcResult fetch_output(nvrtcProgram prog, nvrtcResult (*size_fn)(nvrtcProgram, size_t *),
                                nvrtcResult (*get_fn)(nvrtcProgram, char *), char **out,
                                size_t *out_size)
{
    size_t n = 0;
    nvrtcResult rc = size_fn(prog, &n);
    if (rc != NVRTC_SUCCESS)
        return rc;
    char *buf = PyMem_RawMalloc(n ? n : 1);
    if (buf == NULL)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    rc = get_fn(prog, buf);
    if (rc != NVRTC_SUCCESS) {
        PyMem_RawFree(buf);
        return rc;
    }
    *out = buf;
    *out_size = n;
    return NVRTC_SUCCESS;
}

/* Frees what one attempt produced, for the next. */
static void job_clear_outputs(compile_job *job)
{
    PyMem_RawFree(job->log);
    PyMem_RawFree(job->image);
    PyMem_RawFree(job->ptx);
    if (job->lowered)
        for (int i = 0; i < job->nexprs; i++)
            PyMem_RawFree(job->lowered[i]);
    PyMem_RawFree(job->lowered);
    job->log = job->image = job->ptx = NULL;
    job->lowered = NULL;
    job->image_size = job->ptx_size = 0;
    job->rc = NVRTC_SUCCESS;
    job->failed_call = NULL;
}

/* One NVRTC conversation, with the PCH options when use_pch. Touches no
 * Python object. */
static void job_attempt(compile_job *job, int use_pch)
{
    const pcc_rtc_table *rtc = job->rtc;
    nvrtcProgram prog = NULL;
    nvrtcResult rc;

    /* the C library stand-ins (compile/c_headers.c) go with every program */
    const char *const *hnames, *const *htexts;
    int nh = pcc_c_headers(&hnames, &htexts);
    rc = rtc->nvrtcCreateProgram(&prog, job->src, PCC_PROGRAM_NAME, nh, htexts, hnames);
    if (rc != NVRTC_SUCCESS) {
        job->failed_call = "nvrtcCreateProgram";
        goto done;
    }
    for (int i = 0; i < job->nexprs; i++) {
        rc = rtc->nvrtcAddNameExpression(prog, job->exprs[i]);
        if (rc != NVRTC_SUCCESS) {
            job->failed_call = "nvrtcAddNameExpression";
            goto done;
        }
    }
    /* the PCH options go after the caller's (job->opts has room for them) */
    int nopts = job->nopts;
    if (use_pch)
        nopts += pcc_pch_options(&job->pch, (const char **)job->opts + job->nopts);
    /* every compile of an NVRTC with PCH: growing the heap waits for them */
    int heap = pcc_pch_available(rtc);
    if (heap)
        pcc_pch_begin();
    job->rc = rtc->nvrtcCompileProgram(prog, nopts, (const char *const *)job->opts);
    if (use_pch)
        pcc_pch_status(&job->pch, rtc, prog);
    if (heap)
        pcc_pch_end();

    size_t log_size = 0;
    if (rtc->nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
        job->log = PyMem_RawMalloc(log_size + 1);
        if (job->log && rtc->nvrtcGetProgramLog(prog, job->log) == NVRTC_SUCCESS)
            job->log[log_size] = '\0';
        else if (job->log)
            job->log[0] = '\0';
    }
    if (use_pch)
        pcc_pch_clean_log(&job->pch, job->log);
    if (job->rc != NVRTC_SUCCESS) {
        job->failed_call = "nvrtcCompileProgram";
        goto done;
    }

    /* PTX: the image for TARGET_PTX, an extra for CUBIN (NVRTC keeps it),
     * absent on the simulator and for LTO-IR. Its size counts the
     * terminating NUL. */
    if (job->target != TARGET_LTOIR && rtc->nvrtcGetPTXSize && rtc->nvrtcGetPTX &&
        fetch_output(prog, rtc->nvrtcGetPTXSize, rtc->nvrtcGetPTX, &job->ptx, &job->ptx_size) ==
            NVRTC_SUCCESS) {
        while (job->ptx_size > 0 && job->ptx[job->ptx_size - 1] == '\0')
            job->ptx_size--;
    }
    if (job->target == TARGET_PTX) {
        if (job->ptx == NULL) {
            job->rc = NVRTC_ERROR_INVALID_INPUT;
            job->failed_call = "nvrtcGetPTX";
            goto done;
        }
    } else if (job->target == TARGET_LTOIR) {
        if (rtc->nvrtcGetLTOIRSize == NULL || rtc->nvrtcGetLTOIR == NULL) {
            job->rc = NVRTC_ERROR_INVALID_INPUT;
            job->failed_call = "nvrtcGetLTOIR (this NVRTC is too old to make LTO-IR)";
            goto done;
        }
        rc = fetch_output(prog, rtc->nvrtcGetLTOIRSize, rtc->nvrtcGetLTOIR, &job->image,
                          &job->image_size);
        if (rc == NVRTC_SUCCESS && job->image_size == 0)
            rc = NVRTC_ERROR_INVALID_INPUT; /* compiled without -dlto */
        if (rc != NVRTC_SUCCESS) {
            job->rc = rc;
            job->failed_call = "nvrtcGetLTOIR";
            goto done;
        }
    } else {
        if (rtc->nvrtcGetCUBINSize == NULL || rtc->nvrtcGetCUBIN == NULL) {
            job->rc = NVRTC_ERROR_INVALID_INPUT;
            job->failed_call = "nvrtcGetCUBIN (this NVRTC is too old to make CUBIN)";
            goto done;
        }
        rc = fetch_output(prog, rtc->nvrtcGetCUBINSize, rtc->nvrtcGetCUBIN, &job->image,
                          &job->image_size);
        if (rc == NVRTC_SUCCESS && job->image_size == 0)
            rc = NVRTC_ERROR_INVALID_INPUT; /* compiled for a virtual arch: no CUBIN */
        if (rc != NVRTC_SUCCESS) {
            job->rc = rc;
            job->failed_call = "nvrtcGetCUBIN";
            goto done;
        }
    }

    if (job->nexprs > 0) {
        job->lowered = PyMem_RawCalloc((size_t)job->nexprs, sizeof(char *));
        if (job->lowered == NULL) {
            job->rc = NVRTC_ERROR_OUT_OF_MEMORY;
            job->failed_call = "nvrtcGetLoweredName";
            goto done;
        }
        for (int i = 0; i < job->nexprs; i++) {
            const char *name = NULL;
            rc = rtc->nvrtcGetLoweredName(prog, job->exprs[i], &name);
            if (rc != NVRTC_SUCCESS || name == NULL) {
                job->rc = rc != NVRTC_SUCCESS ? rc : NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
                job->failed_call = "nvrtcGetLoweredName";
                goto done;
            }
            /* The string belongs to the program, which is destroyed below. */
            job->lowered[i] = raw_strdup(name);
        }
    }
    job->rc = NVRTC_SUCCESS;

done:
    if (rc != NVRTC_SUCCESS && job->rc == NVRTC_SUCCESS)
        job->rc = rc;
    if (prog)
        rtc->nvrtcDestroyProgram(&prog);
}

/* The whole compile: one attempt; with PCH, once more after the PCH heap
 * grew (so that the PCH exists for the next compiles), or without PCH when
 * it may be what failed (PCH never fails a compile). */
static void job_run(compile_job *job)
{
    int use_pch = job->pch.use;
    job_attempt(job, use_pch);
    if (!use_pch)
        return;
    if (job->rc == NVRTC_SUCCESS) {
        if (pcc_pch_grow(&job->pch, job->rtc)) {
            job_clear_outputs(job);
            job_attempt(job, 1);
        }
        if (job->rc == NVRTC_SUCCESS)
            return;
    }
    if (pcc_pch_maybe_cause(job->rc, job->log)) {
        job_clear_outputs(job);
        job->pch.fell_back = 1;
        job->pch.outcome = PCC_PCH_NONE;
        job_attempt(job, 0);
    }
}

/* ---- the error message ------------------------------------------------------ */

typedef struct {
    char *buf;
    size_t len, cap;
} strbuf;

static void sb_add(strbuf *sb, const char *s, size_t n)
{
    if (sb->buf == NULL)
        return;
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = (sb->len + n + 1) * 2;
        char *p = PyMem_Realloc(sb->buf, cap);
        if (p == NULL) {
            PyMem_Free(sb->buf);
            sb->buf = NULL;
            return;
        }
        sb->buf = p;
        sb->cap = cap;
    }
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

static void sb_puts(strbuf *sb, const char *s) { sb_add(sb, s, strlen(s)); }

/* True when [name, name+n) is PCC_PROGRAM_NAME or a path ending in it. */
static int names_program(const char *name, size_t n)
{
    size_t pn = strlen(PCC_PROGRAM_NAME);
    if (n < pn || memcmp(name + n - pn, PCC_PROGRAM_NAME, pn) != 0)
        return 0;
    return n == pn || name[n - pn - 1] == '/';
}

/* Parses the source line number of one diagnostic line: NVRTC's
 * "kernel.cu(12): error: ..." or the C++ compiler's "kernel.cu:12:5: error:
 * ..." / "kernel.cu:12: error: ...". Returns 1 for an error line (with
 * *lineno set to the line in our program, or 0 when unknown), else 0. */
static int parse_error_line(const char *line, size_t n, long *lineno)
{
    static const char *const markers[] = {": error", ": fatal error", ": catastrophic error"};
    const char *hit = NULL;
    for (size_t m = 0; m < sizeof markers / sizeof markers[0] && hit == NULL; m++) {
        size_t ml = strlen(markers[m]);
        for (size_t i = 0; i + ml <= n; i++) {
            if (memcmp(line + i, markers[m], ml) == 0) {
                hit = line + i;
                break;
            }
        }
    }
    *lineno = 0;
    if (hit == NULL)
        return 0;
    const char *p = hit; /* one past the location */
    if (p > line && p[-1] == ')') {
        /* NVRTC: name(LINE) */
        const char *q = p - 1;
        while (q > line && q[-1] >= '0' && q[-1] <= '9')
            q--;
        if (q > line && q[-1] == '(' && q < p - 1 && names_program(line, (size_t)(q - 1 - line)))
            *lineno = strtol(q, NULL, 10);
        return 1;
    }
    /* C++ compiler: name:LINE:COL or name:LINE */
    const char *end = p, *q = p;
    while (q > line && q[-1] >= '0' && q[-1] <= '9')
        q--;
    if (q == end)
        return 1;
    if (q > line && q[-1] == ':') {
        const char *q2 = q - 1;
        while (q2 > line && q2[-1] >= '0' && q2[-1] <= '9')
            q2--;
        if (q2 < q - 1 && q2 > line && q2[-1] == ':') {
            /* name:LINE:COL */
            if (names_program(line, (size_t)(q2 - 1 - line)))
                *lineno = strtol(q2, NULL, 10);
            return 1;
        }
        /* name:LINE */
        if (names_program(line, (size_t)(q - 1 - line)))
            *lineno = strtol(q, NULL, 10);
    }
    return 1;
}

/* Appends the user's source line `lineno` (1-based), if it exists, marked
 * with '>', after the line before it (the error is often reported at the
 * token after the mistake). */
static void add_source_line(strbuf *sb, const char *src, long lineno)
{
    const char *prev = NULL, *p = src;
    for (long i = 1; i < lineno && p; i++) {
        prev = p;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (p == NULL || (*p == '\0' && lineno > 1))
        return;
    for (int k = 0; k < 2; k++) {
        const char *q = k == 0 ? prev : p;
        if (q == NULL)
            continue;
        const char *e = strchr(q, '\n');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        if (n > 0 && q[n - 1] == '\r')
            n--;
        if (n > 200)
            n = 200;
        char head[32];
        snprintf(head, sizeof head, "  %c %5ld | ", k ? '>' : ' ', lineno - 1 + k);
        sb_puts(sb, head);
        sb_add(sb, q, n);
        sb_puts(sb, "\n");
    }
}

/* The message of a CompileError: the error lines of the log, each followed
 * by the user's source line it names. New reference or NULL. */
static PyObject *compile_error_message(const compile_job *job, const char *user_src,
                                       const char *what)
{
    strbuf sb = {PyMem_Malloc(256), 0, 256};
    if (sb.buf == NULL)
        return PyErr_NoMemory();
    sb.buf[0] = '\0';
    char head[256];
    const char *errstr = job->rtc->nvrtcGetErrorString ? job->rtc->nvrtcGetErrorString(job->rc)
                                                       : NULL;
    snprintf(head, sizeof head, "%s failed to compile (%s: %s%s%s)\n", PCC_PROGRAM_NAME, what,
             job->failed_call ? job->failed_call : "compile",
             errstr ? " returned " : "", errstr ? errstr : "");
    sb_puts(&sb, head);

    const char *log = job->log ? job->log : "";
    int shown = 0, total = 0;
    for (const char *line = log; *line;) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        long lineno;
        if (parse_error_line(line, n, &lineno)) {
            total++;
            if (shown < 10) {
                shown++;
                sb_add(&sb, line, n);
                sb_puts(&sb, "\n");
                if (lineno > 0)
                    add_source_line(&sb, user_src, lineno);
            }
        }
        line = eol ? eol + 1 : line + n;
    }
    if (total > shown) {
        snprintf(head, sizeof head, "... and %d more errors (the full log is in .log)\n",
                 total - shown);
        sb_puts(&sb, head);
    } else if (total == 0 && *log) {
        /* No line we recognize: show the log itself (bounded). */
        size_t n = strlen(log);
        sb_add(&sb, log, n > 4000 ? 4000 : n);
    }
    if (sb.buf == NULL)
        return PyErr_NoMemory();
    while (sb.len > 0 && sb.buf[sb.len - 1] == '\n')
        sb.len--;
    PyObject *msg = PyUnicode_DecodeUTF8(sb.buf, (Py_ssize_t)sb.len, "replace");
    PyMem_Free(sb.buf);
    return msg;
}

static void set_attr_quiet(PyObject *obj, const char *name, PyObject *value)
{
    if (value == NULL || PyObject_SetAttrString(obj, name, value) < 0)
        PyErr_Clear();
    Py_XDECREF(value);
}

/* Raises CompileError(message) with .log, .source, .code set. */
static void raise_compile_error(const compile_job *job, PyObject *user_source, const char *what)
{
    const char *src = PyUnicode_AsUTF8(user_source);
    if (src == NULL)
        return;
    PyObject *msg = compile_error_message(job, src, what);
    if (msg == NULL)
        return;
    PyObject *exc = PyObject_CallOneArg(pcc_st.CompileError, msg);
    Py_DECREF(msg);
    if (exc == NULL)
        return;
    set_attr_quiet(exc, "log", PyUnicode_DecodeUTF8(job->log ? job->log : "",
                                                    job->log ? (Py_ssize_t)strlen(job->log) : 0,
                                                    "replace"));
    Py_INCREF(user_source);
    set_attr_quiet(exc, "source", user_source);
    set_attr_quiet(exc, "code", PyLong_FromLong(job->rc));
    set_attr_quiet(exc, "call", PyUnicode_FromString(job->failed_call ? job->failed_call : ""));
    PyErr_SetObject(pcc_st.CompileError, exc);
    Py_DECREF(exc);
}

/* ---- argument conversion ------------------------------------------------------ */

/* A raw-memory copy of str `s`; `what` names the argument in errors. */
static char *raw_copy_str(PyObject *s, const char *what)
{
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "%s must be str, not %.100s", what, Py_TYPE(s)->tp_name);
        return NULL;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL)
        return NULL;
    if ((size_t)n != strlen(u)) {
        PyErr_Format(PyExc_ValueError, "%s must not contain NUL characters", what);
        return NULL;
    }
    char *p = raw_strdup(u);
    if (p == NULL)
        PyErr_NoMemory();
    return p;
}

/* Copies a sequence of str (or None) into a raw array. */
static int raw_copy_list(PyObject *seq, const char *what, char ***out, int *count)
{
    *out = NULL;
    *count = 0;
    if (seq == Py_None)
        return 0;
    PyObject *fast = PySequence_Fast(seq, what);
    if (fast == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of str, not %.100s", what,
                     Py_TYPE(seq)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > INT_MAX / 2) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%s is too long", what);
        return -1;
    }
    char **arr = PyMem_RawCalloc((size_t)(n ? n : 1), sizeof(char *));
    if (arr == NULL) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        arr[i] = raw_copy_str(PySequence_Fast_GET_ITEM(fast, i), what);
        if (arr[i] == NULL) {
            for (Py_ssize_t k = 0; k < i; k++)
                PyMem_RawFree(arr[k]);
            PyMem_RawFree(arr);
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    *out = arr;
    *count = (int)n;
    return 0;
}

/* ---- Python entry points ------------------------------------------------------ */

static PyObject *py_compile_source(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"source", "options", "name_expressions", "target", "compiler",
                             "no_extern_c", "pch", "pch_root", NULL};
    PyObject *source, *options = Py_None, *exprs = Py_None, *pch = Py_None, *pch_root = Py_None;
    const char *target = "cubin", *compiler = "nvrtc";
    int no_extern_c = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|OOsspOO:compile_source", kwlist, &source,
                                     &options, &exprs, &target, &compiler, &no_extern_c, &pch,
                                     &pch_root))
        return NULL;
    if (pch != Py_None && !PyBool_Check(pch)) {
        PyErr_Format(PyExc_TypeError, "pch must be True, False or None, not %.100s",
                     Py_TYPE(pch)->tp_name);
        return NULL;
    }
    if (pch_root != Py_None && !PyUnicode_Check(pch_root)) {
        PyErr_Format(PyExc_TypeError, "pch_root must be str or None, not %.100s",
                     Py_TYPE(pch_root)->tp_name);
        return NULL;
    }

    compile_job job;
    memset(&job, 0, sizeof job);
    PyObject *result = NULL, *lowered = NULL;

    if (strcmp(target, "cubin") == 0)
        job.target = TARGET_CUBIN;
    else if (strcmp(target, "ptx") == 0)
        job.target = TARGET_PTX;
    else if (strcmp(target, "sim") == 0)
        job.target = TARGET_SIM;
    else if (strcmp(target, "ltoir") == 0)
        job.target = TARGET_LTOIR;
    else {
        PyErr_Format(PyExc_ValueError,
                     "target must be 'cubin', 'ptx', 'ltoir' or 'sim', not '%s'", target);
        return NULL;
    }
    int sim_compiler = strcmp(compiler, "sim") == 0;
    if (sim_compiler != (job.target == TARGET_SIM) &&
        (sim_compiler || strcmp(compiler, "nvrtc") == 0)) {
        PyErr_Format(PyExc_ValueError,
                     "target '%s' does not go with compiler '%s' (the simulator makes target "
                     "'sim'; NVRTC makes 'cubin', 'ptx' or 'ltoir')",
                     target, compiler);
        return NULL;
    }
    if ((job.rtc = pcc_rtc_by_name(compiler)) == NULL)
        return NULL;
    /* precompiled headers: NVRTC's only, where it has them */
    int want_pch = pch == Py_None ? -1 : pch == Py_True;
    if (sim_compiler || !pcc_pch_available(job.rtc))
        want_pch = 0;
    int hoisted;
    if ((job.src = pcc_wrap_source(source, no_extern_c, want_pch, &hoisted)) == NULL)
        goto done;
    if (raw_copy_list(options, "options", &job.opts, &job.nopts) < 0)
        goto done;
    if (hoisted && pcc_pch_prepare(&job.pch, pch_root, job.rtc) == 0) {
        /* room for the PCH options after the caller's */
        char **more = PyMem_RawRealloc(job.opts, (size_t)(job.nopts + PCC_PCH_NOPTS) *
                                                     sizeof(char *));
        if (more == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        job.opts = more;
    }
    if (raw_copy_list(exprs, "name_expressions", &job.exprs, &job.nexprs) < 0)
        goto done;

    int nvtx = pcc_nvtx_active(); /* a profiler's range around the compile */
    if (nvtx)
        pcc_nvtx_own_push(sim_compiler ? "compile (simulator)" : "compile (NVRTC)",
                          PCC_NVTX_COMPILE);
    Py_BEGIN_ALLOW_THREADS
    job_run(&job);
    Py_END_ALLOW_THREADS
    if (nvtx)
        pcc_nvtx_own_pop();
    pcc_pch_count(&job.pch);

    if (job.rc != NVRTC_SUCCESS) {
        /* Ctrl-C during the compile (the simulator's compiler stops on it):
         * KeyboardInterrupt, not a compile error */
        if (PyErr_CheckSignals() < 0)
            goto done;
        raise_compile_error(&job, source,
                            sim_compiler ? "the simulator's C++ compiler" : "NVRTC");
        goto done;
    }

    lowered = PyDict_New();
    if (lowered == NULL)
        goto done;
    for (int i = 0; i < job.nexprs; i++) {
        PyObject *v = PyUnicode_FromString(job.lowered[i]);
        int rc = v ? PyDict_SetItemString(lowered, job.exprs[i], v) : -1;
        Py_XDECREF(v);
        if (rc < 0)
            goto done;
    }
    const char *image = job.target == TARGET_PTX ? job.ptx : job.image;
    size_t image_size = job.target == TARGET_PTX ? job.ptx_size : job.image_size;
    PyObject *ptx = Py_None;
    if (job.ptx)
        ptx = PyUnicode_DecodeUTF8(job.ptx, (Py_ssize_t)job.ptx_size, "replace");
    else
        Py_INCREF(ptx);
    if (ptx == NULL)
        goto done;
    PyObject *log = PyUnicode_DecodeUTF8(job.log ? job.log : "",
                                         job.log ? (Py_ssize_t)strlen(job.log) : 0, "replace");
    if (log == NULL) {
        Py_DECREF(ptx);
        goto done;
    }
    static const char *const pch_outcome[] = {"none", "created", "used"};
    result = Py_BuildValue("{s:y#,s:N,s:N,s:O,s:s}", "image", image ? image : "",
                           (Py_ssize_t)image_size, "log", log, "ptx", ptx, "lowered", lowered,
                           "pch", job.pch.use ? pch_outcome[job.pch.outcome] : NULL);
done:
    Py_XDECREF(lowered);
    job_free(&job);
    return result;
}

static PyObject *py_compiler_info(PyObject *self, PyObject *args)
{
    (void)self;
    const char *compiler = "nvrtc";
    if (!PyArg_ParseTuple(args, "|s:compiler_info", &compiler))
        return NULL;
    const pcc_rtc_table *rtc = pcc_rtc_by_name(compiler);
    if (rtc == NULL)
        return NULL;
    int major = 0, minor = 0;
    if (rtc->nvrtcVersion)
        rtc->nvrtcVersion(&major, &minor);
    char version[32], identity[1100];
    snprintf(version, sizeof version, "%d.%d", major, minor);
    if (strcmp(compiler, "nvrtc") == 0) {
        /* The library's real path, size and mtime: the same in every process
         * however it was found, and changed by an in-place toolkit update. */
        if (pcc_nvrtc_identity(identity, sizeof identity, 1) < 0)
            return NULL;
    } else {
        snprintf(identity, sizeof identity, "%s", rtc->identity ? rtc->identity : "");
    }
    return Py_BuildValue("{s:s,s:s,s:s}", "kind", rtc->kind ? rtc->kind : compiler, "identity",
                         identity, "version", version);
}

static PyObject *py_nvrtc_version(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const pcc_rtc_table *rtc = pcc_rtc_nvrtc();
    if (rtc == NULL)
        return NULL;
    int major = 0, minor = 0;
    nvrtcResult rc = rtc->nvrtcVersion(&major, &minor);
    if (rc != NVRTC_SUCCESS) {
        PyErr_Format(pcc_st.RuntimeError, "nvrtcVersion failed (%d)", rc);
        return NULL;
    }
    return Py_BuildValue("(ii)", major, minor);
}

static PyObject *py_nvrtc_supported_archs(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const pcc_rtc_table *rtc = pcc_rtc_nvrtc();
    if (rtc == NULL)
        return NULL;
    if (rtc->nvrtcGetNumSupportedArchs == NULL || rtc->nvrtcGetSupportedArchs == NULL) {
        PyErr_SetString(pcc_st.RuntimeError,
                        "this NVRTC cannot list its architectures (nvrtcGetSupportedArchs needs "
                        "CUDA 11.2 or newer); pass arch= explicitly");
        return NULL;
    }
    int n = 0;
    nvrtcResult rc = rtc->nvrtcGetNumSupportedArchs(&n);
    if (rc != NVRTC_SUCCESS || n < 0 || n > 4096) {
        PyErr_Format(pcc_st.RuntimeError, "nvrtcGetNumSupportedArchs failed (%d)", rc);
        return NULL;
    }
    int *archs = PyMem_Calloc((size_t)(n ? n : 1), sizeof(int));
    if (archs == NULL)
        return PyErr_NoMemory();
    PyObject *list = NULL;
    rc = rtc->nvrtcGetSupportedArchs(archs);
    if (rc != NVRTC_SUCCESS) {
        PyErr_Format(pcc_st.RuntimeError, "nvrtcGetSupportedArchs failed (%d)", rc);
        goto done;
    }
    if ((list = PyList_New(n)) == NULL)
        goto done;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(archs[i]);
        if (v == NULL) {
            Py_CLEAR(list);
            goto done;
        }
        PyList_SET_ITEM(list, i, v);
    }
done:
    PyMem_Free(archs);
    return list;
}

static PyMethodDef compile_methods[] = {
    {"compile_source", (PyCFunction)(void (*)(void))py_compile_source,
     METH_VARARGS | METH_KEYWORDS,
     "compile_source(source, options=None, name_expressions=None, target='cubin', "
     "compiler='nvrtc', no_extern_c=False, pch=None, pch_root=None) -> dict(image, log, ptx, "
     "lowered, pch)\n\n"
     "Compiles CUDA C `source` (wrapped in extern \"C\" unless no_extern_c) with NVRTC "
     "(target 'cubin', 'ptx' or 'ltoir', the last with --dlink-time-opt among the options) or "
     "the simulator's compiler (target 'sim'). pch: NVRTC's precompiled headers — True, "
     "False, or None for sources that start with #include <...>; pch_root: the cache "
     "directory, under which the process keeps its PCH files (None: TMPDIR). The result's "
     "pch is None (not used), 'created', 'used' or 'none'. Raises CompileError with .log "
     "and .source on failure."},
    {"compiler_info", py_compiler_info, METH_VARARGS,
     "compiler_info(compiler='nvrtc') -> dict(kind, identity, version), for cache keys."},
    {"nvrtc_version", py_nvrtc_version, METH_NOARGS, "NVRTC's (major, minor) version."},
    {"nvrtc_supported_archs", py_nvrtc_supported_archs, METH_NOARGS,
     "The SM versions NVRTC can compile for, e.g. [75, 80, 86, 89, 90, ...]."},
    {NULL, NULL, 0, NULL}};

int pcc_compile_init(PyObject *module)
{
    if (pcc_pch_init(module) < 0 || pcc_link_init(module) < 0)
        return -1;
    return PyModule_AddFunctions(module, compile_methods);
}
