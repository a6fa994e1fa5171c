/*
 * compile/wrap.c — the user's source as the compilers see it: the one place
 * that wraps it in `extern "C" { ... }` (toolkit #includes in an
 * `extern "C++"` block of their own, or, for a compile with precompiled
 * headers, its leading directives before the block), with `#line`
 * directives that keep the user's own line numbers in every diagnostic.
 */
#include <stdio.h>
#include <string.h>

#include "compile/pch.h"
#include "compile/wrap.h"

/* A raw-memory copy of the source's text (str, no NUL inside). */
static char *user_text(PyObject *s)
{
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "source must be str, not %.100s", Py_TYPE(s)->tp_name);
        return NULL;
    }
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL)
        return NULL;
    if ((size_t)n != strlen(u)) {
        PyErr_SetString(PyExc_ValueError, "source must not contain NUL characters");
        return NULL;
    }
    char *p = PyMem_RawMalloc((size_t)n + 1);
    if (p == NULL)
        return (char *)PyErr_NoMemory();
    memcpy(p, u, (size_t)n + 1);
    return p;
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

/* ---- nvcc's implicit environment -----------------------------------------------
 * nvcc compiles every source after cuda_runtime.h, which brings in the host's
 * <sys/types.h>, <limits.h>, <math.h>, <stdlib.h> and <time.h>: kernels
 * written for PyCUDA (nvcc) use uint, INT_MAX, M_PI, INFINITY or RAND_MAX
 * with no #include, and NVRTC knows none of them ('identifier "uint" is
 * undefined': PyCUDA's own matrixmul_tiled.py example). A source that names
 * one gets what gives it before anything of its own, as nvcc's order has it
 * (its #defines come after, and win); a source that names none is compiled
 * as it is. Not given: int32_t and int64_t, which nvcc has from glibc as
 * `int` and `long` where NVRTC's <stdint.h> says `long long` (giving them
 * either way would break a source that declares its own, or includes the
 * other); what nvcc does not give either (uint8_t, FLT_MAX); the names a
 * header from include_dirs uses (only the source is read). */
enum { ENV_TYPES = 1, ENV_LIMITS = 4, ENV_MATH = 8, ENV_STDLIB = 16, ENV_TIME = 32 };

static const struct {
    const char *name;
    int what;
} env_names[] = {
    {"uint", ENV_TYPES}, {"ushort", ENV_TYPES}, {"ulong", ENV_TYPES},
    {"CHAR_BIT", ENV_LIMITS}, {"SCHAR_MIN", ENV_LIMITS}, {"SCHAR_MAX", ENV_LIMITS},
    {"UCHAR_MAX", ENV_LIMITS}, {"CHAR_MIN", ENV_LIMITS}, {"CHAR_MAX", ENV_LIMITS},
    {"SHRT_MIN", ENV_LIMITS}, {"SHRT_MAX", ENV_LIMITS}, {"USHRT_MAX", ENV_LIMITS},
    {"INT_MIN", ENV_LIMITS}, {"INT_MAX", ENV_LIMITS}, {"UINT_MAX", ENV_LIMITS},
    {"LONG_MIN", ENV_LIMITS}, {"LONG_MAX", ENV_LIMITS}, {"ULONG_MAX", ENV_LIMITS},
    {"LLONG_MIN", ENV_LIMITS}, {"LLONG_MAX", ENV_LIMITS}, {"ULLONG_MAX", ENV_LIMITS},
    {"M_E", ENV_MATH}, {"M_LOG2E", ENV_MATH}, {"M_LOG10E", ENV_MATH}, {"M_LN2", ENV_MATH},
    {"M_LN10", ENV_MATH}, {"M_PI", ENV_MATH}, {"M_PI_2", ENV_MATH}, {"M_PI_4", ENV_MATH},
    {"M_1_PI", ENV_MATH}, {"M_2_PI", ENV_MATH}, {"M_2_SQRTPI", ENV_MATH}, {"M_SQRT2", ENV_MATH},
    {"M_SQRT1_2", ENV_MATH}, {"INFINITY", ENV_MATH}, {"NAN", ENV_MATH}, {"HUGE_VAL", ENV_MATH},
    {"HUGE_VALF", ENV_MATH},
    {"RAND_MAX", ENV_STDLIB}, {"EXIT_SUCCESS", ENV_STDLIB}, {"EXIT_FAILURE", ENV_STDLIB},
    {"CLOCKS_PER_SEC", ENV_TIME},
};

/* Which of the environment's parts the source's identifiers name. */
static int env_needed(const char *s)
{
    int what = 0;
    for (const char *p = s; *p;) {
        int c = (unsigned char)*p;
        if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
            p++;
            continue;
        }
        const char *w = p; /* an identifier (or a number's tail: no entry matches one) */
        while (*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
               (*p >= '0' && *p <= '9'))
            p++;
        size_t n = (size_t)(p - w);
        if (n < 3 || n > 14 || (w > s && w[-1] >= '0' && w[-1] <= '9'))
            continue;
        for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++)
            if (strlen(env_names[i].name) == n && memcmp(env_names[i].name, w, n) == 0)
                what |= env_names[i].what;
    }
    return what;
}

/* The environment's text for `what` into out (room enough: 600 bytes);
 * its length. */
static size_t env_text(int what, char *out)
{
    size_t o = 0;
#define ENV_PUT(text) (memcpy(out + o, text, sizeof text - 1), o += sizeof text - 1)
    if (what & ENV_LIMITS)
        ENV_PUT("#include <limits.h>\n");
    if (what & ENV_MATH)
        ENV_PUT("#include <math.h>\n");
    if (what & ENV_STDLIB)
        ENV_PUT("#ifndef RAND_MAX\n#define RAND_MAX 2147483647\n#endif\n"
                "#ifndef EXIT_SUCCESS\n#define EXIT_SUCCESS 0\n#endif\n"
                "#ifndef EXIT_FAILURE\n#define EXIT_FAILURE 1\n#endif\n");
    if (what & ENV_TIME)
        ENV_PUT("#ifndef CLOCKS_PER_SEC\n#define CLOCKS_PER_SEC ((long)1000000)\n#endif\n");
    if (what)
        ENV_PUT("typedef unsigned int uint;\ntypedef unsigned short ushort;\n"
                "typedef unsigned long ulong;\n");
#undef ENV_PUT
    return o;
}

/* The source as compiled: wrapped in extern "C" unless no_extern_c, always
 * starting with a #line that names the program and keeps line numbers.
 * Every `#include <...>` (a system or toolkit header) and every quoted
 * #include of a toolkit header, wherever it stands, is put in an
 * `extern "C++" { ... }` block of its own (cuda_fp16.h and friends are C++:
 * with C linkage NVRTC refuses them, "__shfl_sync has "C" linkage"), with
 * #line directives keeping every line's number.
 *
 * With `hoist` (a compile with precompiled headers), the source's leading
 * directives (pcc_pch_prefix: #include <...>, #define, comments ...) stand
 * first, as they are, at file scope (where an #include <...> has C++
 * linkage already), and the extern "C" block opens after them: NVRTC makes
 * its PCH of a source's leading directives, and of none when a #line is
 * among them. `pch`: 1, hoist; -1, hoist when an #include is among those
 * directives (a header-heavy source); 0, never. *hoisted says whether it
 * did. */
char *pcc_wrap_source(PyObject *source, int no_extern_c, int pch, int *hoisted)
{
    char *user = user_text(source);
    if (user == NULL)
        return NULL;
    char env[600];
    size_t el = env_text(env_needed(user), env);
    size_t pre = 0;
    int pre_lines = 0, pre_includes = 0;
    if (pch != 0)
        pre = pcc_pch_prefix(user, &pre_lines, &pre_includes);
    /* nvcc's environment comes before the source's own directives, and
     * NVRTC makes its precompiled header of a source's leading directives
     * only when no #line is among them: a source that needs the
     * environment is compiled whole, without one (the same result) */
    int hoist = *hoisted = el == 0 && (pch == 1 || (pch == -1 && pre_includes > 0));
    if (!hoist)
        pre = pre_lines = 0;
    static const char head_c[] = "extern \"C\" {\n#line 1 \"" PCC_PROGRAM_NAME "\"\n";
    static const char head_cxx[] = "#line 1 \"" PCC_PROGRAM_NAME "\"\n";
    static const char tail_c[] = "\n}\n";
    const char *head = no_extern_c ? (hoist ? "" : head_cxx) : head_c;
    const char *tail = no_extern_c ? "\n" : tail_c;
    size_t hl = strlen(head), ul = strlen(user), tl = strlen(tail);
    size_t includes = 0;
    for (const char *p = user; (p = strstr(p, "include")) != NULL; p++)
        includes++;
    /* each wrapped line costs its own length plus two #lines and the braces */
    size_t room = el + hl + 2 * ul + 96 * (includes + 3) + tl + 1;
    char *out = PyMem_RawMalloc(room);
    if (out == NULL) {
        PyMem_RawFree(user);
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(out, env, el); /* nvcc's environment, first (a head's #line follows) */
    size_t o = el;
    if (pre > 0) {
        memcpy(out, user, pre);
        o = pre;
        if (user[pre - 1] != '\n')
            out[o++] = '\n';
    }
    if (hoist && !no_extern_c)
        o += (size_t)snprintf(out + o, room - o, "extern \"C\" {\n#line %d \"" PCC_PROGRAM_NAME
                                                 "\"\n", pre_lines + 1);
    else {
        memcpy(out + o, head, hl);
        o += hl;
    }
    int lineno = pre_lines + 1, in_comment = 0;
    for (char *p = user + pre; *p; lineno++) {
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

