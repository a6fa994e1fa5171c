/*
 * compile/cache_key.c — the lookup side of the compile cache: which directory, which
 * key, and what an entry's payload holds. The store itself is compile/cache.c.
 *
 * A warm start (source → loaded module in a fresh process) pays for every
 * first call of Python code, so the whole lookup is one C call, cache_find:
 * resolve the directory from the environment, hash the key, read and verify
 * the entry, decode its payload. compiler.py's cache_path, cache_key and the
 * payload helpers are this file's functions too, so each rule exists once.
 *
 * The key is SHA-256 over tagged, length-prefixed fields:
 *   tag NUL decimal-length NUL bytes, for each field in a fixed order
 * (format, compiler.kind, compiler.identity, backend, target, arch, options
 * joined by NUL, name_expressions joined by NUL, no_extern_c, source, then
 * include.<k>/include.bytes pairs), so no two field lists hash alike.
 *
 * The payload ("PCC3") is: magic, the PTX's form (1 byte: 0 none, 1 UTF-8,
 * 2 UTF-8 zlib-compressed), field count (u32), one u64 size per field, then
 * the fields: target, arch, log, image, ptx, options joined by NUL, then
 * (name expression, lowered name) pairs. All little-endian; text is UTF-8
 * (surrogatepass, like the source). compiler.py stores the PTX compressed
 * where zlib is there (a third of its bytes: a warm start reads and checks
 * less, and inflates it only when module.ptx is read).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compile/cache.h"
#include "driver/loader.h"
#include "util/fixbuf.h"

#define PAYLOAD_MAGIC "PCC3"
#define PAYLOAD_HEAD 9 /* magic, the PTX's form, field count */
#define PAYLOAD_FIXED 6 /* target, arch, log, image, ptx, options */

/* ---- the directory ----------------------------------------------------------- */

/* The value of environment variable `name` as str (decoded as os.environ
 * does), or NULL without an exception when unset or empty. */
static PyObject *env_str(const char *name, int *failed)
{
    const char *v = getenv(name);
    if (v == NULL || *v == '\0')
        return NULL;
    PyObject *s = PyUnicode_DecodeFSDefault(v);
    if (s == NULL)
        *failed = 1;
    return s;
}

static int cache_disabled(void)
{
    const char *v = getenv("PYCUDAC_DISABLE_CACHE");
    if (v == NULL)
        return 0;
    while (isspace((unsigned char)*v))
        v++;
    size_t n = strlen(v);
    while (n > 0 && isspace((unsigned char)v[n - 1]))
        n--;
    static const char *const yes[] = {"1", "true", "yes", "on"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (strlen(yes[i]) == n && strncasecmp(v, yes[i], n) == 0)
            return 1;
    return 0;
}

/* An absolute path that os.path.abspath would return unchanged: no empty,
 * "." or ".." component, no trailing slash, and not the "//" that POSIX
 * keeps at the start. */
static int is_normal_abs(const char *p)
{
    if (p[0] != '/' || p[1] == '/')
        return 0;
    if (p[1] == '\0')
        return 1;
    for (const char *c = p + 1;;) {
        const char *end = strchr(c, '/');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (end == NULL)
            return 1;
        c = end + 1;
    }
}

/* os.path.<fn>(arg), for the cases the fast paths leave to Python. */
static PyObject *posixpath_call(const char *fn, PyObject *arg)
{
    PyObject *mod = PyImport_ImportModule("posixpath");
    if (mod == NULL)
        return NULL;
    PyObject *out = PyObject_CallMethod(mod, fn, "O", arg);
    Py_DECREF(mod);
    return out;
}

/* os.path.abspath(path) */
static PyObject *abspath(PyObject *path)
{
    const char *s = PyUnicode_Check(path) ? PyUnicode_AsUTF8(path) : NULL;
    if (s != NULL && is_normal_abs(s))
        return Py_NewRef(path);
    PyErr_Clear();
    return posixpath_call("abspath", path);
}

/* os.path.join(base, tail) for a relative tail without a leading slash. */
static PyObject *join(PyObject *base, const char *tail)
{
    Py_ssize_t n = PyUnicode_GetLength(base);
    if (n < 0)
        return NULL;
    int slash = n == 0 || PyUnicode_ReadChar(base, n - 1) == '/';
    return PyUnicode_FromFormat("%U%s%s", base, slash ? "" : "/", tail);
}

/* compiler.cache_path: cache_dir, else $PYCUDAC_CACHE_DIR, else
 * $XDG_CACHE_HOME/pycudac (when absolute), else ~/.cache/pycudac. */
PyObject *pcc_cache_path(PyObject *cache_dir)
{
    int given = cache_dir != NULL && cache_dir != Py_None ? PyObject_IsTrue(cache_dir) : 0;
    if (given < 0)
        return NULL;
    if (given) {
        PyObject *p = PyOS_FSPath(cache_dir);
        if (p == NULL) {
            if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "cache_dir must be a path (str, bytes or "
                             "os.PathLike), None or False, not %.100s", Py_TYPE(cache_dir)->tp_name);
            }
            return NULL;
        }
        PyObject *out = abspath(p);
        Py_DECREF(p);
        return out;
    }
    int failed = 0;
    PyObject *env = env_str("PYCUDAC_CACHE_DIR", &failed);
    if (env != NULL) {
        PyObject *out = abspath(env);
        Py_DECREF(env);
        return out;
    }
    PyObject *xdg = failed ? NULL : env_str("XDG_CACHE_HOME", &failed);
    if (xdg != NULL) {
        PyObject *out = PyUnicode_READ_CHAR(xdg, 0) == '/' ? join(xdg, "pycudac") : NULL;
        Py_DECREF(xdg);
        if (out != NULL || PyErr_Occurred())
            return out;
    }
    if (failed)
        return NULL;
    /* os.path.expanduser("~"): $HOME without its trailing slashes, "/" if
     * that leaves nothing; Python asks the password database without HOME */
    const char *home = getenv("HOME");
    PyObject *h;
    if (home != NULL) {
        size_t n = strlen(home);
        while (n > 0 && home[n - 1] == '/')
            n--;
        h = n ? PyUnicode_DecodeFSDefaultAndSize(home, (Py_ssize_t)n)
              : PyUnicode_FromString("/");
    } else {
        PyObject *tilde = PyUnicode_FromString("~");
        h = tilde ? posixpath_call("expanduser", tilde) : NULL;
        Py_XDECREF(tilde);
    }
    if (h == NULL)
        return NULL;
    PyObject *out = join(h, ".cache/pycudac");
    Py_DECREF(h);
    return out;
}

/* ---- the key ----------------------------------------------------------------- */

typedef struct {
    char *buf;
    size_t len, cap;
} growbuf;

static int put(growbuf *g, const void *p, size_t n)
{
    if (g->len + n > g->cap) {
        size_t cap = g->cap ? g->cap : 4096;
        while (cap < g->len + n)
            cap *= 2;
        char *b = PyMem_Realloc(g->buf, cap);
        if (b == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        g->buf = b;
        g->cap = cap;
    }
    memcpy(g->buf + g->len, p, n);
    g->len += n;
    return 0;
}

/* One tagged field: tag NUL length NUL bytes. (No snprintf: a warm start
 * builds a dozen of these and pays for each first call.) */
static int put_field(growbuf *g, const char *tag, const char *p, size_t n)
{
    char digits[24];
    const char *d = pcc_dec(digits, n, 0);
    size_t tlen = strlen(tag) + 1;
    return put(g, tag, tlen) < 0 || put(g, d, (size_t)(digits + sizeof digits - d)) < 0
               ? -1
               : put(g, p, n);
}

/* UTF-8 (surrogatepass) bytes of str `s`, as a new bytes object; `what`
 * names it in the TypeError ("cache_encode(): lowered names"). */
static PyObject *utf8(PyObject *s, const char *what)
{
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "%s must be str, not %.100s", what,
                     Py_TYPE(s)->tp_name);
        return NULL;
    }
    return PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass");
}

/* str `s` as UTF-8: *p and *n point into s's own UTF-8 form (nothing to
 * release) unless it holds lone surrogates, which only an encode with
 * surrogatepass can write: then *tmp is that bytes object, to release.
 * `what` names s in the TypeError ("cache key: options must be str"). */
static int utf8_view(PyObject *s, const char *what, const char **p, size_t *n, PyObject **tmp)
{
    *tmp = NULL;
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "cache key: %s must be str, not %.100s", what,
                     Py_TYPE(s)->tp_name);
        return -1;
    }
    Py_ssize_t len;
    *p = PyUnicode_AsUTF8AndSize(s, &len);
    if (*p == NULL) {
        PyErr_Clear();
        if ((*tmp = PyUnicode_AsEncodedString(s, "utf-8", "surrogatepass")) == NULL)
            return -1;
        *p = PyBytes_AS_STRING(*tmp);
        len = PyBytes_GET_SIZE(*tmp);
    }
    *n = (size_t)len;
    return 0;
}

static int put_str_field(growbuf *g, const char *tag, PyObject *s)
{
    const char *p;
    size_t n;
    PyObject *tmp;
    if (utf8_view(s, tag, &p, &n, &tmp) < 0)
        return -1;
    int rc = put_field(g, tag, p, n);
    Py_XDECREF(tmp);
    return rc;
}

/* A sequence of str joined by NUL, as one field. */
static int put_joined_field(growbuf *g, const char *tag, PyObject *seq)
{
    PyObject *fast = PySequence_Fast(seq, "cache key: options and name expressions must be "
                                          "sequences of str");
    if (fast == NULL)
        return -1;
    growbuf j = {0};
    int rc = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        const char *p;
        size_t len;
        PyObject *tmp;
        if (utf8_view(PySequence_Fast_GET_ITEM(fast, i), tag, &p, &len, &tmp) < 0) {
            rc = -1;
            break;
        }
        rc = (i > 0 && put(&j, "", 1) < 0) || put(&j, p, len) < 0 ? -1 : 0;
        Py_XDECREF(tmp);
    }
    Py_DECREF(fast);
    if (rc == 0)
        rc = put_field(g, tag, j.buf ? j.buf : "", j.len);
    PyMem_Free(j.buf);
    return rc;
}

/* The key's digest. `includes` (None or a list of (k, relative path,
 * bytes)) are the files under include_dirs. 0, or -1 with an exception. */
static int key_digest(const pcc_key_args *a, unsigned char out[32])
{
    growbuf g = {0};
    PyObject *ident = a->identity;
    if (ident == Py_None) { /* NVRTC's: the warm path asks nothing of Python */
        if (PyUnicode_CompareWithASCIIString(a->kind, "nvrtc") != 0) {
            PyErr_SetString(PyExc_TypeError, "cache key: identity=None is only for NVRTC");
            return -1;
        }
        if ((ident = pcc_nvrtc_key_identity()) == NULL)
            return -1;
    } else {
        Py_INCREF(ident);
    }
    PyObject *fmt = PyObject_Str(a->format);
    int rc = fmt == NULL || put_str_field(&g, "format", fmt) < 0 ||
             put_str_field(&g, "compiler.kind", a->kind) < 0 ||
             put_str_field(&g, "compiler.identity", ident) < 0 ||
             put_str_field(&g, "backend", a->backend) < 0 ||
             put_str_field(&g, "target", a->target) < 0 ||
             put_str_field(&g, "arch", a->arch) < 0 ||
             put_joined_field(&g, "options", a->options) < 0 ||
             put_joined_field(&g, "name_expressions", a->exprs) < 0 ||
             put_field(&g, "no_extern_c", a->no_extern_c ? "1" : "0", 1) < 0 ||
             put_str_field(&g, "source", a->source) < 0
                 ? -1
                 : 0;
    Py_XDECREF(fmt);
    Py_DECREF(ident);
    if (rc == 0 && a->includes != NULL && a->includes != Py_None) {
        PyObject *fast = PySequence_Fast(a->includes, "cache key: includes must be a list");
        Py_ssize_t n = fast ? PySequence_Fast_GET_SIZE(fast) : 0;
        rc = fast ? 0 : -1;
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            PyObject *item = PySequence_Fast_GET_ITEM(fast, i), *rel;
            Py_ssize_t k;
            Py_buffer data;
            char tag[32];
            if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "nUy*", &k, &rel, &data)) {
                if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
                    PyErr_Clear();
                    PyErr_SetString(PyExc_TypeError, "cache key: each include must be a tuple "
                                                     "(directory index, relative path, bytes)");
                }
                rc = -1;
                break;
            }
            snprintf(tag, sizeof tag, "include.%zd", k);
            rc = put_str_field(&g, tag, rel) < 0 ||
                         put_field(&g, "include.bytes", data.buf, (size_t)data.len) < 0
                     ? -1
                     : 0;
            PyBuffer_Release(&data);
        }
        Py_XDECREF(fast);
    }
    if (rc == 0)
        rc = pcc_sha256(g.buf ? g.buf : "", g.len, out);
    PyMem_Free(g.buf);
    return rc;
}

static PyObject *parse_key_args(PyObject *args, const char *fmt, PyObject **first, pcc_key_args *a)
{
    a->includes = NULL;
    if (first != NULL)
        return PyArg_ParseTuple(args, fmt, first, &a->format, &a->kind, &a->identity,
                                &a->backend, &a->target, &a->arch, &a->options, &a->exprs,
                                &a->no_extern_c, &a->source, &a->includes)
                   ? Py_None
                   : NULL;
    return PyArg_ParseTuple(args, fmt, &a->format, &a->kind, &a->identity, &a->backend,
                            &a->target, &a->arch, &a->options, &a->exprs, &a->no_extern_c,
                            &a->source, &a->includes)
               ? Py_None
               : NULL;
}

/* ---- the payload ------------------------------------------------------------- */

static PyObject *text(const char *p, uint64_t n)
{
    return PyUnicode_DecodeUTF8(p, (Py_ssize_t)n, "surrogatepass");
}

void pcc_result_parts_clear(pcc_result_parts *r)
{
    Py_CLEAR(r->image);
    Py_CLEAR(r->log);
    Py_CLEAR(r->ptx);
    Py_CLEAR(r->options);
    Py_CLEAR(r->lowered);
    r->ptx_zlib = 0;
}

/* The PTX of a payload whose form is 2: the registered zlib.decompress over
 * [p, p+n), decoded; NULL with no exception when it cannot be had (no zlib
 * registered, not a zlib stream: a miss), NULL with one on other failures. */
static PyObject *inflated_text(const char *p, uint64_t n)
{
    if (pcc_st.ptx_inflate == NULL)
        return NULL;
    PyObject *z = PyBytes_FromStringAndSize(p, (Py_ssize_t)n);
    PyObject *raw = z ? PyObject_CallOneArg(pcc_st.ptx_inflate, z) : NULL;
    Py_XDECREF(z);
    PyObject *t = NULL;
    if (raw != NULL && PyBytes_Check(raw))
        t = text(PyBytes_AS_STRING(raw), (uint64_t)PyBytes_GET_SIZE(raw));
    Py_XDECREF(raw);
    if (t == NULL && z != NULL && !PyErr_ExceptionMatches(PyExc_MemoryError))
        PyErr_Clear(); /* zlib.error, or not UTF-8: not an entry we wrote */
    return t;
}

/* The compile result a payload holds, into *r (new references; options a
 * tuple, lowered NULL when there are none, ptx None or, with lazy_ptx, its
 * bytes as stored (r->ptx_zlib says which form), else str): 1, or 0 when
 * it is not one of ours for target/arch (a miss), or -1 with an exception
 * (Python failures only). */
static int decode_parts(const char *payload, uint64_t len, const char *target, const char *arch,
                        int lazy_ptx, pcc_result_parts *r)
{
    const unsigned char *p = (const unsigned char *)payload;
    *r = (pcc_result_parts){0};
    if (len < PAYLOAD_HEAD || memcmp(p, PAYLOAD_MAGIC, 4) != 0 || p[4] > 2)
        return 0;
    uint32_t n = get_u32(p + 5);
    if (n < PAYLOAD_FIXED || n % 2 || n > (len - PAYLOAD_HEAD) / 8)
        return 0;
    uint64_t at = PAYLOAD_HEAD + 8ull * n, total = at;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t s = get_u64(p + PAYLOAD_HEAD + 8ull * i);
        if (s > len - total)
            return 0;
        total += s;
    }
    if (total != len)
        return 0;
    const char *f[PAYLOAD_FIXED];
    uint64_t fs[PAYLOAD_FIXED];
    for (uint32_t i = 0; i < PAYLOAD_FIXED; i++) {
        fs[i] = get_u64(p + PAYLOAD_HEAD + 8ull * i);
        f[i] = (const char *)p + at;
        at += fs[i];
    }
    if (fs[0] != strlen(target) || memcmp(f[0], target, fs[0]) != 0 || fs[1] != strlen(arch) ||
        memcmp(f[1], arch, fs[1]) != 0)
        return 0;
    /* the options: NUL-separated, so one more than the NULs (none if empty) */
    Py_ssize_t nopts = fs[5] > 0;
    for (uint64_t j = 0; j < fs[5]; j++)
        nopts += f[5][j] == '\0';
    r->log = text(f[2], fs[2]);
    r->image = PyBytes_FromStringAndSize(f[3], (Py_ssize_t)fs[3]);
    r->ptx = !p[4] ? Py_NewRef(Py_None)
             : lazy_ptx ? PyBytes_FromStringAndSize(f[4], (Py_ssize_t)fs[4])
             : p[4] == 2 ? inflated_text(f[4], fs[4])
                         : text(f[4], fs[4]);
    r->ptx_zlib = lazy_ptx && p[4] == 2;
    if (r->ptx == NULL && !PyErr_Occurred()) { /* compressed, and no zlib to read it */
        pcc_result_parts_clear(r);
        return 0;
    }
    r->options = PyTuple_New(nopts);
    if (!r->log || !r->image || !r->ptx || !r->options)
        goto fail;
    const char *o = f[5], *end = f[5] + fs[5];
    for (Py_ssize_t i = 0; i < nopts; i++) {
        const char *z = memchr(o, '\0', (size_t)(end - o));
        PyObject *s = text(o, (uint64_t)((z ? z : end) - o));
        if (s == NULL)
            goto fail;
        PyTuple_SET_ITEM(r->options, i, s);
        o = z ? z + 1 : end;
    }
    if (n > PAYLOAD_FIXED && (r->lowered = PyDict_New()) == NULL)
        goto fail;
    for (uint32_t i = PAYLOAD_FIXED; i < n; i += 2) {
        uint64_t s0 = get_u64(p + PAYLOAD_HEAD + 8ull * i);
        uint64_t s1 = get_u64(p + PAYLOAD_HEAD + 8ull * (i + 1));
        PyObject *expr = text((const char *)p + at, s0);
        PyObject *name = expr ? text((const char *)p + at + s0, s1) : NULL;
        int bad = name == NULL || PyDict_SetItem(r->lowered, expr, name) < 0;
        Py_XDECREF(expr);
        Py_XDECREF(name);
        if (bad)
            goto fail;
        at += s0 + s1;
    }
    return 1;
fail:
    pcc_result_parts_clear(r);
    if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear(); /* not text we wrote: a miss */
        return 0;
    }
    return -1;
}

/* The same as compiler.py's dict (image, log, ptx, options, lowered), or
 * None on a miss, or NULL with an exception. */
static PyObject *decode_payload(const char *payload, uint64_t len, const char *target,
                                const char *arch)
{
    pcc_result_parts r;
    int got = decode_parts(payload, len, target, arch, 0, &r);
    if (got <= 0)
        return got < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *opts = PySequence_List(r.options), *lowered = r.lowered ? NULL : PyDict_New();
    PyObject *out = NULL;
    if (opts != NULL && (r.lowered != NULL || lowered != NULL))
        out = Py_BuildValue("{sOsOsOsOsO}", "image", r.image, "log", r.log, "ptx", r.ptx,
                            "options", opts, "lowered", r.lowered ? r.lowered : lowered);
    Py_XDECREF(opts);
    Py_XDECREF(lowered);
    pcc_result_parts_clear(&r);
    return out;
}

/* cache_encode(target, arch, log, image, ptx, options, lowered) -> payload */
static PyObject *py_cache_encode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *target, *arch, *log, *ptx, *options, *lowered;
    Py_buffer image;
    if (!PyArg_ParseTuple(args, "UUOy*OOO:cache_encode", &target, &arch, &log, &image, &ptx,
                          &options, &lowered))
        return NULL;
    if (lowered != Py_None && !PyDict_Check(lowered)) {
        PyErr_Format(PyExc_TypeError, "cache_encode(): lowered must be a dict or None, not "
                     "%.100s", Py_TYPE(lowered)->tp_name);
        PyBuffer_Release(&image);
        return NULL;
    }
    PyObject *parts = PyList_New(0), *out = NULL, *opts_joined = NULL, *items = NULL;
    PyObject *empty = PyUnicode_FromString(""), *nul = PyUnicode_FromStringAndSize("\0", 1);
    if (!parts || !empty || !nul)
        goto done;
    opts_joined = PyUnicode_Join(nul, options);
    if (opts_joined == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "cache_encode(): options must be a sequence of str");
        }
        goto done;
    }
    PyObject *fixed[] = {target, arch, log == Py_None ? empty : log, NULL,
                         ptx == Py_None ? empty : ptx, opts_joined};
    for (int i = 0; i < PAYLOAD_FIXED; i++) {
        /* the PTX as str, or as bytes its caller compressed (zlib) */
        PyObject *b = i == 3                        ? PyBytes_FromStringAndSize(image.buf, image.len)
                      : i == 4 && PyBytes_Check(ptx) ? Py_NewRef(ptx)
                                                     : utf8(fixed[i], "cache_encode(): log, ptx, "
                                                                      "target and arch");
        if (b == NULL || PyList_Append(parts, b) < 0) {
            Py_XDECREF(b);
            goto done;
        }
        Py_DECREF(b);
    }
    if (lowered != Py_None) {
        items = PyDict_Items(lowered);
        if (items == NULL)
            goto done;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
            PyObject *kv = PyList_GET_ITEM(items, i);
            for (int k = 0; k < 2; k++) {
                PyObject *b = utf8(PyTuple_GET_ITEM(kv, k), "cache_encode(): lowered names");
                if (b == NULL || PyList_Append(parts, b) < 0) {
                    Py_XDECREF(b);
                    goto done;
                }
                Py_DECREF(b);
            }
        }
    }
    Py_ssize_t n = PyList_GET_SIZE(parts), total = PAYLOAD_HEAD + 8 * n;
    for (Py_ssize_t i = 0; i < n; i++)
        total += PyBytes_GET_SIZE(PyList_GET_ITEM(parts, i));
    out = PyBytes_FromStringAndSize(NULL, total);
    if (out == NULL)
        goto done;
    unsigned char *w = (unsigned char *)PyBytes_AS_STRING(out);
    memcpy(w, PAYLOAD_MAGIC, 4);
    w[4] = ptx == Py_None ? 0 : PyBytes_Check(ptx) ? 2 : 1;
    put_u32(w + 5, (uint32_t)n);
    unsigned char *data = w + PAYLOAD_HEAD + 8 * n;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *b = PyList_GET_ITEM(parts, i);
        uint64_t s = (uint64_t)PyBytes_GET_SIZE(b);
        put_u64(w + PAYLOAD_HEAD + 8 * i, s);
        memcpy(data, PyBytes_AS_STRING(b), (size_t)s);
        data += s;
    }
done:
    PyBuffer_Release(&image);
    Py_XDECREF(parts);
    Py_XDECREF(items);
    Py_XDECREF(opts_joined);
    Py_XDECREF(empty);
    Py_XDECREF(nul);
    return out;
}

static PyObject *py_cache_decode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *payload;
    const char *target, *arch;
    if (!PyArg_ParseTuple(args, "Sss:cache_decode", &payload, &target, &arch))
        return NULL;
    return decode_payload(PyBytes_AS_STRING(payload), (uint64_t)PyBytes_GET_SIZE(payload), target,
                          arch);
}

/* ---- Python functions ----------------------------------------------------------- */

static PyObject *hex_of(const unsigned char key[32])
{
    char name[PCC_ENTRY_NAME_LEN];
    pcc_entry_name(key, name);
    return PyUnicode_FromStringAndSize(name, PCC_KEY_HEX);
}

static PyObject *py_cache_key(PyObject *self, PyObject *args)
{
    (void)self;
    pcc_key_args a;
    unsigned char key[32];
    if (parse_key_args(args, "OUOUUUOOpU|O:cache_key", NULL, &a) == NULL ||
        key_digest(&a, key) < 0)
        return NULL;
    return hex_of(key);
}

static PyObject *py_cache_path(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cache_dir = Py_None;
    if (!PyArg_ParseTuple(args, "|O:cache_path", &cache_dir))
        return NULL;
    return pcc_cache_path(cache_dir);
}

static PyObject *py_cache_disabled(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(cache_disabled());
}

int pcc_cache_lookup(PyObject *cache_dir, const pcc_key_args *a, PyObject **path_out,
                     PyObject **key_out, PyObject **result_out, pcc_result_parts *parts)
{
    *path_out = *key_out = *result_out = NULL;
    if (cache_dir == Py_False || cache_disabled())
        return 0;
    PyObject *path = pcc_cache_path(cache_dir), *dir = NULL, *key_hex = NULL, *result = NULL;
    unsigned char key[32];
    if (path == NULL || key_digest(a, key) < 0 || (key_hex = hex_of(key)) == NULL)
        goto done;
    /* the directory as bytes: ASCII is the same in every filesystem
     * encoding; anything else goes through FSConverter */
    Py_ssize_t dlen;
    const char *d8 = PyUnicode_Check(path) && PyUnicode_IS_ASCII(path)
                         ? PyUnicode_AsUTF8AndSize(path, &dlen)
                         : NULL;
    if (d8 != NULL && strlen(d8) == (size_t)dlen)
        dir = PyBytes_FromStringAndSize(d8, dlen);
    else if (PyErr_Clear(), !PyUnicode_FSConverter(path, &dir))
        goto done;
    if (dir == NULL)
        goto done;
    const char *target = PyUnicode_AsUTF8(a->target), *arch = PyUnicode_AsUTF8(a->arch);
    if (target == NULL || arch == NULL)
        goto done;
    char name[PCC_ENTRY_NAME_LEN];
    pcc_entry_name(key, name);
    const char *why = NULL;
    char *raw;
    size_t len;
    int hit = pcc_cache_load_raw(PyBytes_AS_STRING(dir), key, name, &raw, &len, &why);
    if (hit < 0)
        goto done;
    if (hit && parts != NULL) {
        int got = decode_parts(raw, len, target, arch, 1, parts);
        result = got < 0 ? NULL : Py_NewRef(got ? Py_True : Py_None);
    } else {
        result = hit ? decode_payload(raw, len, target, arch) : Py_NewRef(Py_None);
    }
    if (hit)
        PyMem_RawFree(raw);
done:
    Py_XDECREF(dir);
    if (result == NULL) {
        Py_XDECREF(path);
        Py_XDECREF(key_hex);
        return -1;
    }
    *path_out = path;
    *key_out = key_hex;
    *result_out = result;
    return 0;
}

/* cache_find(cache_dir, <cache_key's arguments>) -> (path, key, result):
 * path None when the cache is off (cache_dir False or
 * PYCUDAC_DISABLE_CACHE), and then key and result are None too; result
 * None on a miss. */
static PyObject *py_cache_find(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cache_dir, *path, *key_hex, *result;
    pcc_key_args a;
    if (parse_key_args(args, "OOUOUUUOOpU|O:cache_find", &cache_dir, &a) == NULL ||
        pcc_cache_lookup(cache_dir, &a, &path, &key_hex, &result, NULL) < 0)
        return NULL;
    if (path == NULL)
        return Py_BuildValue("(OOO)", Py_None, Py_None, Py_None);
    PyObject *out = PyTuple_Pack(3, path, key_hex, result);
    Py_DECREF(path);
    Py_DECREF(key_hex);
    Py_DECREF(result);
    return out;
}

static PyMethodDef cache_key_methods[] = {
    {"cache_key", py_cache_key, METH_VARARGS,
     "cache_key(format, kind, identity, backend, target, arch, options, name_expressions, "
     "no_extern_c, source, includes=None) -> SHA-256 hex digest\n\nidentity: the "
     "compiler's, or None for NVRTC's own (nvrtc_key_identity). includes: None or a list "
     "of (directory index, relative path, bytes) for the files under include_dirs."},
    {"cache_find", py_cache_find, METH_VARARGS,
     "cache_find(cache_dir, <cache_key's arguments>) -> (path, key, result)\n\nThe whole "
     "lookup: the directory (None when the cache is off), the key, and the decoded entry "
     "(a dict) or None on a miss."},
    {"cache_path", py_cache_path, METH_VARARGS,
     "cache_path(cache_dir=None) -> the cache directory: cache_dir, else $PYCUDAC_CACHE_DIR, "
     "else $XDG_CACHE_HOME/pycudac, else ~/.cache/pycudac (absolute)."},
    {"cache_disabled", py_cache_disabled, METH_NOARGS,
     "True when PYCUDAC_DISABLE_CACHE is 1, true, yes or on."},
    {"cache_encode", py_cache_encode, METH_VARARGS,
     "cache_encode(target, arch, log, image, ptx, options, lowered) -> payload bytes. ptx: "
     "str, None, or bytes: its UTF-8 compressed with zlib."},
    {"cache_decode", py_cache_decode, METH_VARARGS,
     "cache_decode(payload, target, arch) -> the result dict, or None when the payload is not "
     "one of ours for that target."},
    {NULL, NULL, 0, NULL}};

int pcc_cache_key_init(PyObject *module)
{
    return PyModule_AddFunctions(module, cache_key_methods);
}
