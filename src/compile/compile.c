/*
 * compile/compile.c — CUDA C source → CUBIN, PTX or a simulator image, through a
 * pcc_rtc_table: the real NVRTC (pcc_rtc_nvrtc) or the simulator's compiler
 * (the backend's, pycudac/backend.h), which both speak NVRTC's calls.
 *
 * The one place that wraps user source in `extern "C" { ... }` (toolkit
 * #includes in an `extern "C++"` block of their own): `#line` directives keep
 * the user's own line numbers in every diagnostic. Every program, on either
 * compiler, gets the same C library stand-ins (compile/c_headers.c). A
 * failed compile raises CompileError carrying the
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
#include "driver/loader.h"
#include "core/module.h"

/* The program's name in every diagnostic, forced with `#line 1 "kernel.cu"`
 * so that the simulator's C++ compiler reports the same name as NVRTC. */
#define PCC_PROGRAM_NAME "kernel.cu"

enum { TARGET_CUBIN = 0, TARGET_PTX = 1, TARGET_SIM = 2 };

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

/* The whole NVRTC conversation. Touches no Python object. */
static void job_run(compile_job *job)
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
    job->rc = rtc->nvrtcCompileProgram(prog, job->nopts, (const char *const *)job->opts);

    size_t log_size = 0;
    if (rtc->nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
        job->log = PyMem_RawMalloc(log_size + 1);
        if (job->log && rtc->nvrtcGetProgramLog(prog, job->log) == NVRTC_SUCCESS)
            job->log[log_size] = '\0';
        else if (job->log)
            job->log[0] = '\0';
    }
    if (job->rc != NVRTC_SUCCESS) {
        job->failed_call = "nvrtcCompileProgram";
        goto done;
    }

    /* PTX: the image for TARGET_PTX, an extra for CUBIN (NVRTC keeps it),
     * absent on the simulator. Its size counts the terminating NUL. */
    if (rtc->nvrtcGetPTXSize && rtc->nvrtcGetPTX &&
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

/* The header an `#include` line names: *name, *len and the opening
 * character ('<' or '"'); 0 when the line is no #include. */
static int include_target(const char *line, const char *eol, const char **name, size_t *len, char *open)
{
    while (line < eol && (*line == ' ' || *line == '\t'))
        line++;
    if (line >= eol || *line++ != '#')
        return 0;
    while (line < eol && (*line == ' ' || *line == '\t'))
        line++;
    if (eol - line < 7 || strncmp(line, "include", 7) != 0)
        return 0;
    line += 7;
    while (line < eol && (*line == ' ' || *line == '\t'))
        line++;
    if (line >= eol || (*line != '<' && *line != '"'))
        return 0;
    char close = *line == '<' ? '>' : '"';
    *open = *line++;
    const char *end = memchr(line, close, (size_t)(eol - line));
    if (end == NULL)
        return 0;
    *name = line;
    *len = (size_t)(end - line);
    return 1;
}

/* Whether `#include "name"` names a CUDA toolkit header (C++ inside: it must
 * not be read with C linkage), as `#include <...>` always does. */
static int is_toolkit_header(const char *name, size_t n)
{
    static const char *const prefixes[] = {"cuda/", "cub/", "thrust/", "nv/", "crt/",
                                           "cooperative_groups", "cuda_", "cuComplex", "sm_",
                                           "math_constants", "vector_", "device_", "mma.h",
                                           "curand", "builtin_types", "host_defines"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t k = strlen(prefixes[i]);
        if (n >= k && memcmp(name, prefixes[i], k) == 0)
            return 1;
    }
    static const char *const c_headers[] = {"stdint.h", "cstdint", "assert.h", "cassert", "math.h",
                                            "cmath", "limits.h", "climits", "float.h", "cfloat",
                                            "stddef.h", "cstddef"};
    for (size_t i = 0; i < sizeof c_headers / sizeof c_headers[0]; i++)
        if (n == strlen(c_headers[i]) && memcmp(name, c_headers[i], n) == 0)
            return 1;
    return 0;
}

/* The source as compiled: wrapped in extern "C" unless no_extern_c, always
 * starting with a #line that names the program and keeps line numbers.
 * Every `#include <...>` (a system or toolkit header) and every quoted
 * #include of a toolkit header, wherever it stands, is put in an
 * `extern "C++" { ... }` block of its own (cuda_fp16.h and friends are C++:
 * with C linkage NVRTC refuses them, "__shfl_sync has "C" linkage"), with
 * #line directives keeping every line's number. */
static char *wrap_source(PyObject *source, int no_extern_c)
{
    char *user = raw_copy_str(source, "source");
    if (user == NULL)
        return NULL;
    static const char head_c[] = "extern \"C\" {\n#line 1 \"" PCC_PROGRAM_NAME "\"\n";
    static const char head_cxx[] = "#line 1 \"" PCC_PROGRAM_NAME "\"\n";
    static const char tail_c[] = "\n}\n";
    const char *head = no_extern_c ? head_cxx : head_c;
    const char *tail = no_extern_c ? "\n" : tail_c;
    size_t hl = strlen(head), ul = strlen(user), tl = strlen(tail);
    size_t includes = 0;
    for (const char *p = user; (p = strstr(p, "include")) != NULL; p++)
        includes++;
    /* each wrapped line costs its own length plus two #lines and the braces */
    size_t room = hl + 2 * ul + 96 * (includes + 1) + tl + 1;
    char *out = PyMem_RawMalloc(room);
    if (out == NULL) {
        PyMem_RawFree(user);
        PyErr_NoMemory();
        return NULL;
    }
    size_t o = 0;
    memcpy(out + o, head, hl);
    o += hl;
    int lineno = 1, in_comment = 0;
    for (char *p = user; *p; lineno++) {
        char *eol = strchr(p, '\n');
        char *next = eol ? eol + 1 : p + strlen(p);
        const char *name;
        size_t nlen;
        char open;
        int wrap = !no_extern_c && !in_comment &&
                   include_target(p, eol ? eol : next, &name, &nlen, &open) &&
                   (open == '<' || is_toolkit_header(name, nlen));
        if (wrap)
            o += (size_t)snprintf(out + o, room - o, "extern \"C++\" {\n#line %d \"" PCC_PROGRAM_NAME
                                                     "\"\n", lineno);
        memcpy(out + o, p, (size_t)(next - p));
        o += (size_t)(next - p);
        if (wrap)
            o += (size_t)snprintf(out + o, room - o, "%s}\n#line %d \"" PCC_PROGRAM_NAME "\"\n",
                                  eol ? "" : "\n", lineno + 1);
        /* block comments: an #include inside one is no #include */
        for (const char *c = p; c < next; c++) {
            if (!in_comment && c[0] == '/' && c[1] == '/')
                break;
            if (!in_comment && c[0] == '/' && c[1] == '*')
                in_comment = 1, c++;
            else if (in_comment && c[0] == '*' && c[1] == '/')
                in_comment = 0, c++;
        }
        p = next;
    }
    memcpy(out + o, tail, tl + 1);
    PyMem_RawFree(user);
    return out;
}

/* ---- Python entry points ------------------------------------------------------ */

static PyObject *py_compile_source(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"source", "options", "name_expressions", "target", "compiler",
                             "no_extern_c", NULL};
    PyObject *source, *options = Py_None, *exprs = Py_None;
    const char *target = "cubin", *compiler = "nvrtc";
    int no_extern_c = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "U|OOssp:compile_source", kwlist, &source,
                                     &options, &exprs, &target, &compiler, &no_extern_c))
        return NULL;

    compile_job job;
    memset(&job, 0, sizeof job);
    PyObject *result = NULL, *lowered = NULL;

    if (strcmp(target, "cubin") == 0)
        job.target = TARGET_CUBIN;
    else if (strcmp(target, "ptx") == 0)
        job.target = TARGET_PTX;
    else if (strcmp(target, "sim") == 0)
        job.target = TARGET_SIM;
    else {
        PyErr_Format(PyExc_ValueError, "target must be 'cubin', 'ptx' or 'sim', not '%s'", target);
        return NULL;
    }
    int sim_compiler = strcmp(compiler, "sim") == 0;
    if (sim_compiler != (job.target == TARGET_SIM) &&
        (sim_compiler || strcmp(compiler, "nvrtc") == 0)) {
        PyErr_Format(PyExc_ValueError,
                     "target '%s' does not go with compiler '%s' (the simulator makes target "
                     "'sim'; NVRTC makes 'cubin' or 'ptx')",
                     target, compiler);
        return NULL;
    }
    if ((job.rtc = pcc_rtc_by_name(compiler)) == NULL)
        return NULL;
    if ((job.src = wrap_source(source, no_extern_c)) == NULL)
        goto done;
    if (raw_copy_list(options, "options", &job.opts, &job.nopts) < 0)
        goto done;
    if (raw_copy_list(exprs, "name_expressions", &job.exprs, &job.nexprs) < 0)
        goto done;

    Py_BEGIN_ALLOW_THREADS
    job_run(&job);
    Py_END_ALLOW_THREADS

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
    result = Py_BuildValue("{s:y#,s:N,s:N,s:O}", "image", image ? image : "",
                           (Py_ssize_t)image_size, "log", log, "ptx", ptx, "lowered", lowered);
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
     "compiler='nvrtc', no_extern_c=False) -> dict(image, log, ptx, lowered)\n\n"
     "Compiles CUDA C `source` (wrapped in extern \"C\" unless no_extern_c) with NVRTC "
     "(target 'cubin' or 'ptx') or the simulator's compiler (target 'sim'). Raises "
     "CompileError with .log and .source on failure."},
    {"compiler_info", py_compiler_info, METH_VARARGS,
     "compiler_info(compiler='nvrtc') -> dict(kind, identity, version), for cache keys."},
    {"nvrtc_version", py_nvrtc_version, METH_NOARGS, "NVRTC's (major, minor) version."},
    {"nvrtc_supported_archs", py_nvrtc_supported_archs, METH_NOARGS,
     "The SM versions NVRTC can compile for, e.g. [75, 80, 86, 89, 90, ...]."},
    {NULL, NULL, 0, NULL}};

int pcc_compile_init(PyObject *module)
{
    return PyModule_AddFunctions(module, compile_methods);
}
