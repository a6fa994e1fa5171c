/*
 * compile/cache_warm.c — a warm start in one call: source → loaded module from the
 * disk cache, for SourceModule's common case (NVRTC on the CUDA backend, the
 * current device's architecture, no include directories).
 *
 * A warm start in a fresh process pays for every first call: each Python
 * frame and each library touched for the first time costs microseconds
 * there, against a ~100 µs module load. So this does in C what
 * compiler.py's general path does in several Python calls (guess the
 * target, build the key's fields, look up, load, set the attributes), with
 * the same key recipe (compile/cache_key.c) and the same attributes (core/module.c's
 * module_from_parts). Anything else is a miss here and compiler.py's
 * general path takes over: another backend, no current context, a target
 * NVRTC cannot make as CUBIN (its entry is a PTX one, which this never
 * looks for), or an absent or damaged entry.
 */
#include <string.h>

#include "compile/cache.h"
#include "core/context.h"
#include "driver/loader.h"
#include "core/module.h"
#include "util/fixbuf.h"

#include <structmember.h>

/* The current context's device as "sm_XY" into arch. `context` is the
 * caller's Context object for the current context (its device's compute
 * capability was asked when it was wrapped), or None. 0, or -1 (no context
 * or the driver refused: no exception). */
static int device_arch(PyObject *context, char *arch, size_t len)
{
    CUdevice dev;
    int major = 0, minor = 0;
    PccContext *c = (PccContext *)context;
    if (pcc_st.Context != NULL && Py_IS_TYPE(context, pcc_st.Context) && !c->released &&
        c->cc_major > 0) {
        major = c->cc_major;
        minor = c->cc_minor;
    } else if (pcc_drv.cuCtxGetDevice(&dev) != CUDA_SUCCESS ||
               pcc_device_cc(dev, &major, &minor) != CUDA_SUCCESS) {
        return -1;
    }
    pcc_fb b = pcc_fb_at(arch, len);
    pcc_fb_str(&b, "sm_");
    pcc_fb_i64(&b, major);
    pcc_fb_i64(&b, minor);
    return pcc_fb_ok(&b) ? 0 : -1;
}

/* The empty tuple, made at import (the strings a warm start uses are
 * pcc_st's, interned at import: in a fresh process the first interning of
 * each costs a lookup in a cold table). */
static PyObject *empty_tuple;

/* The warm start itself (a->source, exprs, no_extern_c and format set;
 * `options` a list): Module, None, or NULL with an exception. */
static PyObject *cache_module(PyObject *cache_dir, pcc_key_args *a, PyObject *options,
                              PyObject *context)
{
    if (pcc_ready() < 0)
        return NULL;
    char arch[32], arch_opt[64];
    /* NVRTC's CUBIN only (the backend has no compiler of its own) */
    if (pcc_st.backend->compiler != NULL || device_arch(context, arch, sizeof arch) < 0)
        Py_RETURN_NONE;
    pcc_fb opt = pcc_fb_at(arch_opt, sizeof arch_opt);
    pcc_fb_str(&opt, "--gpu-architecture=");
    pcc_fb_str(&opt, arch); /* fits: arch is at most 31 bytes */
    /* the options as compiler.py's plan gives them: the architecture last */
    PyObject *opts = PyList_GetSlice(options, 0, PyList_GET_SIZE(options));
    PyObject *arch_s = PyUnicode_FromString(arch), *arch_o = PyUnicode_FromString(arch_opt);
    PyObject *path = NULL, *key = NULL, *result = NULL, *out = NULL;
    if (opts == NULL || arch_s == NULL || arch_o == NULL || PyList_Append(opts, arch_o) < 0)
        goto done;
    a->kind = a->backend = pcc_st.str_nvrtc;
    a->identity = Py_None;
    a->target = pcc_st.str_cubin;
    a->arch = arch_s;
    a->options = opts;
    pcc_result_parts parts = {0};
    if (pcc_cache_lookup(cache_dir, a, &path, &key, &result, &parts) < 0)
        goto done;
    if (path == NULL || result == Py_None) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    pcc_result_facts facts = {pcc_st.str_cubin, arch_s, key, Py_True};
    out = pcc_module_from_parts(&parts, a->source, Py_None, &facts);
    pcc_result_parts_clear(&parts);
done:
    Py_XDECREF(opts);
    Py_XDECREF(arch_s);
    Py_XDECREF(arch_o);
    Py_XDECREF(path);
    Py_XDECREF(key);
    Py_XDECREF(result);
    return out;
}

/* cache_module(cache_dir, source, options, name_expressions, no_extern_c,
 * format, context=None) -> Module or None. `options` are normalized NVRTC
 * options without an architecture or include directories; `format` is
 * compiler.CACHE_FORMAT_VERSION; `context` the current Context, when the
 * caller has it. */
static PyObject *py_cache_module(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cache_dir, *options, *context = Py_None;
    pcc_key_args a = {0};
    if (!PyArg_ParseTuple(args, "OUO!OpO|O:cache_module", &cache_dir, &a.source, &PyList_Type,
                          &options, &a.exprs, &a.no_extern_c, &a.format, &context))
        return NULL;
    return cache_module(cache_dir, &a, options, context);
}

/* stats[name] += 1 (compiler._stats). 0 or -1. */
static int count(PyObject *stats, PyObject *name)
{
    PyObject *v = PyDict_GetItemWithError(stats, name); /* borrowed */
    long n = v ? PyLong_AsLong(v) : 0;
    if (n == -1 && PyErr_Occurred())
        return -1;
    PyObject *next = PyLong_FromLong(n + 1);
    int rc = next == NULL ? -1 : PyDict_SetItem(stats, name, next);
    Py_XDECREF(next);
    return rc;
}

/* ---- the in-process memo (compiler._memo) ---------------------------------------
 * A dict of key -> weak reference to a loaded Module, the key naming its
 * context by a weak reference too: nothing in it keeps a module or a context
 * alive. A dead entry answers a miss; dead entries are swept when the dict
 * has grown to twice what it held after the last sweep, or once 32 of its
 * modules died since. (A Python
 * WeakValueDictionary does the same, at several microseconds of first-call
 * Python code per lookup in a fresh process: a warm start pays for those.) */

static Py_ssize_t memo_sweep_at = 64;
/* Modules of memo entries that died since the last sweep, counted by the
 * weak references' callback: a memo whose size was doubled by modules
 * alive at a sweep is swept again once 32 of them are gone, not only when
 * it doubles again (a suite's earlier tests left the threshold at 162). */
static Py_ssize_t memo_dead;
static PyObject *memo_on_death; /* the callback, a C function object */

static PyObject *on_death(PyObject *self, PyObject *ref)
{
    (void)self;
    (void)ref;
    memo_dead++;
    Py_RETURN_NONE;
}

static PyMethodDef on_death_def = {"_memo_on_death", on_death, METH_O, NULL};

/* The live module of `ref` (a weak reference), new reference, or NULL. */
static PyObject *memo_deref(PyObject *ref)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *mod = NULL;
    if (PyWeakref_GetRef(ref, &mod) < 0)
        PyErr_Clear();
    return mod;
#else
    PyObject *mod = PyWeakref_GetObject(ref);
    return mod == Py_None || mod == NULL ? NULL : Py_NewRef(mod);
#endif
}

/* memo[key]'s live module (new reference); NULL on a miss (nothing raised)
 * or with an exception. */
static PyObject *memo_get(PyObject *memo, PyObject *key)
{
    PyObject *ref = PyDict_GetItemWithError(memo, key); /* borrowed */
    return ref == NULL || !PyWeakref_Check(ref) ? NULL : memo_deref(ref);
}

/* Whether source text u[0..n) may declare a module-scope variable: a
 * __constant__ or __managed__ anywhere, or a __device__ whose declaration
 * reaches ';', '=' or '[' before any '(' (a function's). Conservative: a
 * false yes only costs the memo. */
static int declares_module_variables(const char *u, size_t n)
{
    const char *end = u + n;
    for (const char *p = u; p < end && (p = memchr(p, '_', (size_t)(end - p))) != NULL; p++) {
        size_t left = (size_t)(end - p);
        if ((left >= 12 && memcmp(p, "__constant__", 12) == 0) ||
            (left >= 11 && memcmp(p, "__managed__", 11) == 0))
            return 1;
        if (left >= 10 && memcmp(p, "__device__", 10) == 0) {
            const char *q = p + 10;
            while (q < end && (*q == '\0' || !strchr(";=[({", *q)))
                q++;
            if (q < end && strchr(";=[", *q))
                return 1;
        }
    }
    return 0;
}

/* Remembers `module` under `key`, unless its source declares module-scope
 * variables: every SourceModule of such a source gets its own (a module
 * load of the cached image), whose __constant__ and __device__ data are its
 * own, as each PyCUDA SourceModule's are (reikna's test_constant_memory sets
 * two programs of one source apart and reads the first back). */
static int memo_put(PyObject *memo, PyObject *key, PyObject *module)
{
    PyObject *src = PyObject_GetAttr(module, pcc_st.str_source);
    if (src == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
    } else {
        Py_ssize_t len = 0;
        const char *u = PyUnicode_Check(src) ? PyUnicode_AsUTF8AndSize(src, &len) : NULL;
        int own = u != NULL && declares_module_variables(u, (size_t)len);
        Py_DECREF(src);
        if (u == NULL && PyErr_Occurred())
            return -1;
        if (own)
            return 0;
    }
    PyObject *ref = PyWeakref_NewRef(module, memo_on_death);
    int rc = ref == NULL ? -1 : PyDict_SetItem(memo, key, ref);
    Py_XDECREF(ref);
    if (rc < 0 || (PyDict_GET_SIZE(memo) < memo_sweep_at &&
                   (memo_dead < 32 || PyDict_GET_SIZE(memo) < 64)))
        return rc;
    PyObject *dead = PyList_New(0), *k, *v;
    Py_ssize_t pos = 0;
    while (dead != NULL && PyDict_Next(memo, &pos, &k, &v)) {
        PyObject *live = PyWeakref_Check(v) ? memo_deref(v) : NULL;
        if (live == NULL && PyList_Append(dead, k) < 0)
            Py_CLEAR(dead);
        Py_XDECREF(live);
    }
    for (Py_ssize_t i = 0; dead != NULL && i < PyList_GET_SIZE(dead); i++)
        if (PyDict_DelItem(memo, PyList_GET_ITEM(dead, i)) < 0)
            Py_CLEAR(dead);
    Py_XDECREF(dead);
    memo_sweep_at = 2 * PyDict_GET_SIZE(memo) > 64 ? 2 * PyDict_GET_SIZE(memo) : 64;
    memo_dead = 0;
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *py_memo_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 2 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "memo_get(memo: dict, key)");
        return NULL;
    }
    PyObject *mod = memo_get(args[0], args[1]);
    return mod != NULL || PyErr_Occurred() ? mod : Py_NewRef(Py_None);
}

static PyObject *py_memo_put(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs != 3 || !PyDict_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "memo_put(memo: dict, key, module)");
        return NULL;
    }
    return memo_put(args[0], args[1], args[2]) < 0 ? NULL : Py_NewRef(Py_None);
}

/* Whether `u` has a '"/' or '</' and an "include": a source that may include
 * a header by absolute path (compiler._hidden_include_dirs asks the same).
 * memchr loops: glibc's memmem takes microseconds for a 2-byte needle over
 * a kernel's text, and Python's `in` as long. */
static int may_include_absolute(const char *u, size_t n)
{
    const char *end = u + n, *p = u;
    int slash = 0;
    while (!slash && p < end && (p = memchr(p, '/', (size_t)(end - p))) != NULL) {
        slash = p > u && (p[-1] == '"' || p[-1] == '<');
        p++;
    }
    if (!slash)
        return 0;
    for (p = u; p < end && (p = memchr(p, 'i', (size_t)(end - p))) != NULL; p++)
        if ((size_t)(end - p) >= 7 && memcmp(p, "include", 7) == 0)
            return 1;
    return 0;
}

/* SourceModule(source) with at most no_extern_c and cache_dir given, in one
 * call: the in-process memo first (compiler._memo, under the key
 * SourceModule's general path builds for the same arguments), then the disk
 * cache as cache_module; a module found on disk goes into the memo. Module,
 * None (the general path decides: another backend, not cached, not a str
 * source), or NULL with an exception. `stats` is compiler._stats. */
static PyObject *warm_source_module(PyObject *source, int no_extern_c, PyObject *cache_dir,
                                    PyObject *memo, PyObject *stats, PyObject *format)
{
    PyObject *context, *key = NULL, *out = NULL;
    pcc_key_args a = {0};
    a.source = source;
    a.no_extern_c = no_extern_c;
    a.format = format;
    if (!PyUnicode_Check(a.source))
        Py_RETURN_NONE;
    /* a header included by absolute path goes into the key, which only the
     * general path builds (compiler._hidden_include_dirs: the same test) */
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(a.source, &n);
    if (u == NULL)
        return NULL;
    if (may_include_absolute(u, (size_t)n))
        Py_RETURN_NONE;
    if ((context = pcc_context_get_current()) == NULL)
        return NULL;
    /* compiler.py's key for these arguments: (source, options, name
     * expressions, no_extern_c, arch, code, include dirs, their fingerprint,
     * a weak reference to the context) */
    PyObject *ctx_ref = context == Py_None ? Py_NewRef(Py_None) : PyWeakref_NewRef(context, NULL);
    key = ctx_ref == NULL ? NULL
                          : PyTuple_Pack(9, a.source, empty_tuple, empty_tuple,
                                         a.no_extern_c ? Py_True : Py_False, Py_None, Py_None,
                                         empty_tuple, empty_tuple, ctx_ref);
    Py_XDECREF(ctx_ref);
    PyObject *hit = key ? memo_get(memo, key) : NULL;
    if (hit != NULL) {
        PyObject *path = NULL; /* a wrong cache_dir is refused on a memo hit too */
        if (cache_dir != Py_None && cache_dir != Py_False &&
            (path = pcc_cache_path(cache_dir)) == NULL) {
            Py_DECREF(hit);
            goto done;
        }
        Py_XDECREF(path);
        if (count(stats, pcc_st.str_memo_hits) == 0)
            out = hit;
        else
            Py_DECREF(hit);
        goto done;
    }
    if (key == NULL || PyErr_Occurred())
        goto done;
    PyObject *options = PyList_New(0);
    a.exprs = empty_tuple;
    out = options ? cache_module(cache_dir, &a, options, context) : NULL;
    Py_XDECREF(options);
    if (out != NULL && out != Py_None &&
        (count(stats, pcc_st.str_hits) < 0 || memo_put(memo, key, out) < 0))
        Py_CLEAR(out);
done:
    Py_XDECREF(key);
    Py_DECREF(context);
    return out;
}

/* warm_source_module(source, no_extern_c, cache_dir, memo, stats, format)
 * -> Module or None (warm_source_module above; the benchmark times it alone). */
static PyObject *py_warm_source_module(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    /* (fast-call, parsed by hand: a format string's first parse is a cold
     * cost of every warm start) */
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "warm_source_module() takes exactly 6 arguments (%zd given)",
                     nargs);
        return NULL;
    }
    if (!PyDict_Check(args[3]) || !PyDict_Check(args[4])) {
        PyErr_Format(PyExc_TypeError, "warm_source_module(): memo and stats must be dict, not "
                     "%.100s and %.100s", Py_TYPE(args[3])->tp_name, Py_TYPE(args[4])->tp_name);
        return NULL;
    }
    int no_extern_c = PyObject_IsTrue(args[1]);
    if (no_extern_c < 0)
        return NULL;
    return warm_source_module(args[0], no_extern_c, args[2], args[3], args[4], args[5]);
}

/* ---- SourceModule's base type ---------------------------------------------------
 * compiler.SourceModule derives from this. Its __init__ is C: a call with
 * the source alone (the common case, and every re-create of one) is
 * warm_source_module, with no Python frame; anything else, or a miss, is
 * compiler.py's general path (the source_module_init hook), which still
 * tries warm_source_module itself for the arguments it allows. A Python
 * __init__ cost ~0.7 µs on every re-create (against 0.7 µs for the C call)
 * and ~10 µs of first-call cost in a fresh process. */
typedef struct {
    PyObject_HEAD
    PyObject *module;      /* the loaded _driver.Module, or NULL before __init__ */
    PyObject *weakreflist; /* the memo's and users' weak references */
} PccSourceModule;

static int sm_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(((PccSourceModule *)op)->module);
    return 0;
}

static int sm_clear(PyObject *op)
{
    Py_CLEAR(((PccSourceModule *)op)->module);
    return 0;
}

static void sm_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    if (((PccSourceModule *)op)->weakreflist != NULL)
        PyObject_ClearWeakRefs(op);
    sm_clear(op);
    type->tp_free(op);
    Py_DECREF(type);
}

/* Whether this process compiles for the simulator's check mode (a part of
 * the memo's key that warm_source_module does not build): asked only on the
 * simulator, of pycudac._simcheck. 1, 0 or -1. */
static int sim_instrumented(void)
{
    if (pcc_st.backend->compiler == NULL) /* NVRTC's backend: never */
        return 0;
    if (pcc_st.sim_instrumented == NULL)
        return 1; /* not registered: the general path asks */
    PyObject *flag = PyObject_CallNoArgs(pcc_st.sim_instrumented);
    int rc = flag == NULL ? -1 : PyObject_IsTrue(flag);
    Py_XDECREF(flag);
    return rc;
}

static int sm_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    PccSourceModule *sm = (PccSourceModule *)self;
    PyObject *tried = NULL; /* {"_tried": True}: the general path skips the lookup made here */
    if (PyTuple_GET_SIZE(args) == 1 && (kwargs == NULL || PyDict_GET_SIZE(kwargs) == 0) &&
        PyUnicode_Check(PyTuple_GET_ITEM(args, 0)) && pcc_st.compile_memo != NULL &&
        PyDict_Check(pcc_st.compile_memo) && pcc_st.compile_stats != NULL &&
        PyDict_Check(pcc_st.compile_stats) && pcc_st.cache_format != NULL) {
        if (pcc_ready() < 0)
            return -1;
        int instrumented = sim_instrumented();
        if (instrumented < 0)
            return -1;
        PyObject *mod = instrumented ? Py_NewRef(Py_None)
                                     : warm_source_module(PyTuple_GET_ITEM(args, 0), 0, Py_None,
                                                          pcc_st.compile_memo,
                                                          pcc_st.compile_stats,
                                                          pcc_st.cache_format);
        if (mod == NULL)
            return -1;
        if (mod != Py_None) {
            Py_XSETREF(sm->module, mod);
            return 0;
        }
        Py_DECREF(mod);
        if (!instrumented) {
            if ((tried = PyDict_New()) == NULL ||
                PyDict_SetItem(tried, pcc_st.str_tried, Py_True) < 0) {
                Py_XDECREF(tried);
                return -1;
            }
            kwargs = tried;
        }
    }
    if (pcc_st.source_module_init == NULL) {
        PyErr_SetString(PyExc_TypeError, "SourceModule: pycudac.compiler is not imported");
        Py_XDECREF(tried);
        return -1;
    }
    /* the general path: source_module_init(self, *args, **kwargs) */
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *full = PyTuple_New(n + 1);
    if (full == NULL) {
        Py_XDECREF(tried);
        return -1;
    }
    PyTuple_SET_ITEM(full, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(full, i + 1, Py_NewRef(PyTuple_GET_ITEM(args, i)));
    PyObject *r = PyObject_Call(pcc_st.source_module_init, full, kwargs);
    Py_DECREF(full);
    Py_XDECREF(tried);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

static PyMemberDef sm_members[] = {
    {"module", T_OBJECT, offsetof(PccSourceModule, module), 0,
     "The loaded _driver.Module (None before __init__ has run)."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccSourceModule, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot sm_slots[] = {
    {Py_tp_doc, "pycudac.compiler.SourceModule's base: holds the loaded module, and takes "
                "SourceModule(source) from the cache in one C call."},
    {Py_tp_init, sm_init},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_traverse, sm_traverse},
    {Py_tp_clear, sm_clear},
    {Py_tp_dealloc, sm_dealloc},
    {Py_tp_members, sm_members},
    {0, NULL}};

static PyType_Spec sm_spec = {
    .name = "pycudac._driver.SourceModuleBase",
    .basicsize = sizeof(PccSourceModule),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = sm_slots,
};

static PyMethodDef cache_warm_methods[] = {
    {"memo_get", (PyCFunction)(void (*)(void))py_memo_get, METH_FASTCALL,
     "memo_get(memo, key) -> Module or None: the in-process memo's live module for key."},
    {"memo_put", (PyCFunction)(void (*)(void))py_memo_put, METH_FASTCALL,
     "memo_put(memo, key, module): remember module weakly (dead entries are swept)."},
    {"warm_source_module", (PyCFunction)(void (*)(void))py_warm_source_module, METH_FASTCALL,
     "warm_source_module(source, no_extern_c, cache_dir, memo, stats, format) -> Module or "
     "None\n\nSourceModule(source) with at most no_extern_c and cache_dir: the memo, then "
     "the disk cache (cache_module), in one call; None when the general path must decide."},
    {"cache_module", py_cache_module, METH_VARARGS,
     "cache_module(cache_dir, source, options, name_expressions, no_extern_c, format, "
     "context=None) -> Module or None\n\nA warm start in one call: the cached CUBIN for the current device, "
     "loaded, with SourceModule's attributes; None on a miss or when the general path must "
     "decide (another backend, no context, cache off). options: normalized NVRTC options "
     "without -arch or -I."},
    {NULL, NULL, 0, NULL}};

int pcc_cache_warm_init(PyObject *module)
{
    if ((empty_tuple = PyTuple_New(0)) == NULL ||
        (memo_on_death = PyCFunction_New(&on_death_def, NULL)) == NULL)
        return -1;
    PyObject *base = PyType_FromSpec(&sm_spec);
    int rc = base == NULL ? -1 : PyModule_AddObjectRef(module, "SourceModuleBase", base);
    Py_XDECREF(base);
    return rc < 0 ? -1 : PyModule_AddFunctions(module, cache_warm_methods);
}
