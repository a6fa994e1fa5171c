/*
 * core/module.c — Module objects: one loaded CUBIN, PTX or simulator image
 * (cuModuleLoadData), unloaded in its own context when the object dies.
 *
 * get_function maps a name expression ("axpy<float>") to its lowered name
 * through the module's `lowered` dict, finds the kernel, and hands it to
 * pcc_function_new (src/launch/function.c) with the kernel's parsed signature, when
 * compiler.py left one in `signatures`. get_global returns a non-owning
 * DeviceAllocation view (core/memory.c) that keeps the module, and so the
 * variable's memory, alive.
 * The instance __dict__ carries what compiler.py attaches (ptx, log, source).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/context.h"
#include "driver/loader.h"
#include "core/memory.h"
#include "core/module.h"
#include "util/nvtx.h"

#include <structmember.h>

/* ---- Module --------------------------------------------------------------------- */

/* Loads `image` (bytes; kept) into the current context. New reference. */
static PyObject *module_load(PyObject *image)
{
    const char *why = pcc_st.backend->image_problem(PyBytes_AS_STRING(image),
                                                     (size_t)PyBytes_GET_SIZE(image));
    if (why != NULL) {
        PyErr_Format(PyExc_ValueError, "cannot load the module: %s", why);
        return NULL;
    }
    PyObject *context = pcc_context_current();
    if (context == NULL)
        return NULL;
    CUmodule m = NULL;
    CUresult rc;
    const char *data = PyBytes_AS_STRING(image);
    if (pcc_st.backend->before_load)
        pcc_st.backend->before_load();
    int nvtx = pcc_nvtx_active();
    if (nvtx)
        pcc_nvtx_own_push("module load", PCC_NVTX_LOAD);
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuModuleLoadData(&m, data);
    Py_END_ALLOW_THREADS
    if (nvtx)
        pcc_nvtx_own_pop();
    if (pcc_check(rc, "cuModuleLoadData") < 0) {
        Py_DECREF(context);
        return NULL;
    }
    PccModule *self = (PccModule *)pcc_st.Module->tp_alloc(pcc_st.Module, 0);
    if (self == NULL) {
        PCC_FREE_IN_CONTEXT(context, rc, pcc_drv.cuModuleUnload(m));
        Py_DECREF(context);
        return NULL;
    }
    self->module = m;
    self->context = context; /* reference handed over */
    Py_INCREF(image);
    self->image = image;
    return (PyObject *)self;
}

static int Module_traverse(PyObject *op, visitproc visit, void *arg)
{
    PccModule *self = (PccModule *)op;
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(self->context);
    Py_VISIT(self->lowered);
    Py_VISIT(self->signatures);
    Py_VISIT(self->dict);
    Py_VISIT(self->ptx);
    return 0;
}

/* The context is kept until dealloc: the unload happens in it. */
static int Module_clear(PyObject *op)
{
    PccModule *self = (PccModule *)op;
    Py_CLEAR(self->lowered);
    Py_CLEAR(self->signatures);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->ptx);
    return 0;
}

static void Module_dealloc(PyObject *op)
{
    PccModule *self = (PccModule *)op;
    PyTypeObject *tp = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    if (self->weakreflist)
        PyObject_ClearWeakRefs(op);
    CUresult rc = CUDA_SUCCESS;
    if (self->module && self->context)
        PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuModuleUnload(self->module));
    (void)rc; /* never raise from dealloc */
    self->module = NULL;
    Module_clear(op);
    Py_CLEAR(self->image);
    Py_CLEAR(self->context);
    tp->tp_free(op);
    Py_DECREF(tp);
}

/* The kernel names we know of, for error messages: ", "-joined or NULL. */
static PyObject *known_names(PccModule *self)
{
    PyObject *names = PyList_New(0);
    if (names == NULL)
        return NULL;
    PyObject *sources[2] = {self->signatures, self->lowered};
    for (int s = 0; s < 2; s++) {
        if (sources[s] == NULL || !PyDict_Check(sources[s]))
            continue;
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(sources[s], &pos, &key, &value)) {
            if (PyUnicode_Check(key) && PySequence_Contains(names, key) == 0 &&
                PyList_Append(names, key) < 0) {
                Py_DECREF(names);
                return NULL;
            }
        }
    }
    if (PyList_GET_SIZE(names) == 0) {
        Py_DECREF(names);
        return NULL;
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = sep ? PyUnicode_Join(sep, names) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(names);
    return joined;
}

static int ensure_signatures(PccModule *self);

/* Raises LogicError: no kernel/variable `name` in this module. */
static void raise_not_found(PccModule *self, PyObject *name, const char *what, CUresult rc)
{
    if (ensure_signatures(self) < 0)
        PyErr_Clear();
    PyObject *known = strcmp(what, "kernel") == 0 ? known_names(self) : NULL;
    if (known == NULL)
        PyErr_Clear();
    const char *n = PyUnicode_AsUTF8(name);
    if (n == NULL)
        return;
    const char *hint = "";
    if (strcmp(what, "kernel") == 0 && strchr(n, '<'))
        hint = " A template instance is reached through a name expression: pass "
               "name_expressions=[...] naming it to SourceModule (with no_extern_c=True).";
    else if (strcmp(what, "kernel") == 0)
        hint = " Kernels must be __global__ and, with no_extern_c=True, declared extern \"C\" "
               "or named through name_expressions.";
    if (known)
        PyErr_Format(pcc_st.LogicError, "this module has no %s named '%s' (%s returned %d); "
                     "its kernels are: %U.%s",
                     what, n, strcmp(what, "kernel") == 0 ? "cuModuleGetFunction"
                                                          : "cuModuleGetGlobal",
                     (int)rc, known, hint);
    else
        PyErr_Format(pcc_st.LogicError, "this module has no %s named '%s' (%s returned %d).%s",
                     what, n, strcmp(what, "kernel") == 0 ? "cuModuleGetFunction"
                                                          : "cuModuleGetGlobal",
                     (int)rc, hint);
    Py_XDECREF(known);
}

/* Signatures are parsed from the module's `source` (set by compiler.py) on
 * first need, not at load: a warm cache hit then costs no parsing. Py_None
 * in the field means "parsed, nothing known". 0 or -1. */
static int ensure_signatures(PccModule *self)
{
    if (self->signatures != NULL || self->dict == NULL)
        return 0;
    PyObject *source = PyDict_GetItemString(self->dict, "source"); /* borrowed */
    if (source == NULL || !PyUnicode_Check(source))
        return 0;
    /* pycudac._sigparse registers its parser at import; without it launches
     * go by the driver's layout alone */
    if (pcc_st.parse_kernels == NULL) {
        self->signatures = Py_NewRef(Py_None);
        return 0;
    }
    PyObject *sigs = PyObject_CallOneArg(pcc_st.parse_kernels, source);
    if (sigs == NULL) {
        /* Source the parser cannot read compiled anyway: go by the driver. */
        if (!PyErr_ExceptionMatches(PyExc_ValueError))
            return -1;
        PyErr_Clear();
        Py_INCREF(Py_None);
        sigs = Py_None;
    }
    if (self->signatures == NULL)
        self->signatures = sigs;
    else
        Py_DECREF(sigs);
    return 0;
}

/* The signature for `name` from self->signatures, or None. New reference. */
static PyObject *signature_of(PccModule *self, PyObject *name)
{
    if (ensure_signatures(self) < 0)
        return NULL;
    if (self->signatures == NULL || self->signatures == Py_None)
        Py_RETURN_NONE;
    if (pcc_st.signature_for == NULL)
        Py_RETURN_NONE;
    return PyObject_CallFunctionObjArgs(pcc_st.signature_for, self->signatures, name, NULL);
}

/* The name to look up in the loaded image for `name`: its lowered (mangled)
 * form when it is a name expression the compile recorded, else itself.
 * Borrowed UTF-8, or NULL with an exception (`what` names the caller). */
static const char *symbol_name(PccModule *self, PyObject *name, const char *what)
{
    if (pcc_ready() < 0)
        return NULL;
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "%s: name must be str, not %.100s", what,
                     Py_TYPE(name)->tp_name);
        return NULL;
    }
    PyObject *lowered = NULL;
    if (self->lowered && PyDict_Check(self->lowered)) {
        lowered = PyDict_GetItemWithError(self->lowered, name); /* borrowed */
        if (lowered == NULL && PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(lowered && PyUnicode_Check(lowered) ? lowered : name,
                                            &len);
    if (s != NULL && strlen(s) != (size_t)len) {
        PyErr_Format(PyExc_ValueError, "%s: name %R holds a NUL character", what, name);
        return NULL;
    }
    return s;
}

static PyObject *Module_get_function(PyObject *op, PyObject *name)
{
    PccModule *self = (PccModule *)op;
    const char *cname = symbol_name(self, name, "get_function");
    if (cname == NULL)
        return NULL;
    CUfunction fn = NULL;
    CUresult rc = pcc_drv.cuModuleGetFunction(&fn, self->module, cname);
    if (rc == CUDA_ERROR_NOT_FOUND || rc == CUDA_ERROR_INVALID_VALUE) {
        raise_not_found(self, name, "kernel", rc);
        return NULL;
    }
    if (pcc_check(rc, "cuModuleGetFunction") < 0)
        return NULL;
    PyObject *sig = signature_of(self, name);
    if (sig == NULL)
        return NULL;
    /* launch/ registers the Function type's maker at import: a Module knows
     * nothing of launches */
    PyObject *f = pcc_st.function_new(op, fn, name, sig);
    Py_DECREF(sig);
    return f;
}

static PyObject *Module_get_global(PyObject *op, PyObject *name)
{
    PccModule *self = (PccModule *)op;
    const char *cname = symbol_name(self, name, "get_global");
    if (cname == NULL)
        return NULL;
    CUdeviceptr ptr = 0;
    size_t size = 0;
    CUresult rc = pcc_drv.cuModuleGetGlobal(&ptr, &size, self->module, cname);
    if (rc == CUDA_ERROR_NOT_FOUND || rc == CUDA_ERROR_INVALID_VALUE) {
        raise_not_found(self, name, "__device__/__constant__ variable", rc);
        return NULL;
    }
    if (pcc_check(rc, "cuModuleGetGlobal") < 0)
        return NULL;
    PyObject *view = pcc_device_allocation_view(ptr, size, self->context, op);
    if (view == NULL)
        return NULL;
    return Py_BuildValue("(Nn)", view, (Py_ssize_t)size);
}

static PyObject *Module_get_lowered(PyObject *op, void *closure)
{
    (void)closure;
    PyObject *v = ((PccModule *)op)->lowered;
    v = v ? v : Py_None;
    Py_INCREF(v);
    return v;
}

static int Module_set_dict_field(PyObject **field, PyObject *value, const char *what)
{
    if (value != NULL && value != Py_None && !PyDict_Check(value)) {
        PyErr_Format(PyExc_TypeError, "Module.%s must be a dict or None, not %.100s", what,
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    PyObject *v = value == Py_None ? NULL : value;
    Py_XINCREF(v);
    Py_XSETREF(*field, v);
    return 0;
}

static int Module_set_lowered(PyObject *op, PyObject *value, void *closure)
{
    (void)closure;
    return Module_set_dict_field(&((PccModule *)op)->lowered, value, "lowered");
}

static PyObject *Module_get_signatures(PyObject *op, void *closure)
{
    (void)closure;
    if (ensure_signatures((PccModule *)op) < 0)
        return NULL;
    PyObject *v = ((PccModule *)op)->signatures;
    v = v ? v : Py_None;
    Py_INCREF(v);
    return v;
}

static int Module_set_signatures(PyObject *op, PyObject *value, void *closure)
{
    (void)closure;
    PccModule *self = (PccModule *)op;
    if (Module_set_dict_field(&self->signatures, value, "signatures") < 0)
        return -1;
    if (value == Py_None) { /* None: known to be absent, never parsed */
        Py_INCREF(Py_None);
        Py_XSETREF(self->signatures, Py_None);
    }
    return 0;
}

/* module.ptx: NVRTC's PTX as str (None when there is none). A warm start
 * leaves it as the verified bytes of the cache entry, UTF-8 and in the
 * entry's zlib form (a third of a CUBIN entry's bytes, not read until
 * wanted); the first read inflates (the zlib.decompress compiler.py
 * registers) and decodes them. */
static PyObject *Module_get_ptx(PyObject *op, void *closure)
{
    (void)closure;
    PccModule *self = (PccModule *)op;
    if (self->ptx == NULL) {
        PyErr_SetString(PyExc_AttributeError,
                        "this module has no 'ptx': it was not compiled by pycudac");
        return NULL;
    }
    if (self->ptx_zlib) {
        if (pcc_st.ptx_inflate == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "module.ptx: this module's PTX is compressed "
                                                "and zlib was not registered (import "
                                                "pycudac.compiler)");
            return NULL;
        }
        PyObject *raw = PyObject_CallOneArg(pcc_st.ptx_inflate, self->ptx);
        if (raw == NULL)
            return NULL;
        if (!PyBytes_Check(raw)) {
            Py_DECREF(raw);
            PyErr_SetString(PyExc_RuntimeError, "module.ptx: inflating the PTX gave no bytes");
            return NULL;
        }
        Py_SETREF(self->ptx, raw);
        self->ptx_zlib = 0;
    }
    if (PyBytes_Check(self->ptx)) {
        PyObject *text = PyUnicode_DecodeUTF8(PyBytes_AS_STRING(self->ptx),
                                              PyBytes_GET_SIZE(self->ptx), "surrogatepass");
        if (text == NULL)
            return NULL;
        Py_SETREF(self->ptx, text);
    }
    return Py_NewRef(self->ptx);
}

static int Module_set_ptx(PyObject *op, PyObject *value, void *closure)
{
    (void)closure;
    PccModule *self = (PccModule *)op;
    if (value != NULL && value != Py_None && !PyUnicode_Check(value)) {
        PyErr_Format(PyExc_TypeError, "ptx must be str or None, not %.100s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    Py_XINCREF(value);
    Py_XSETREF(self->ptx, value);
    self->ptx_zlib = 0;
    return 0;
}

static PyObject *Module_get_handle(PyObject *op, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PccModule *)op)->module);
}

static PyObject *Module_repr(PyObject *op)
{
    PccModule *self = (PccModule *)op;
    return PyUnicode_FromFormat("<pycudac Module %p, %zd-byte image>", (void *)self->module,
                                self->image ? PyBytes_GET_SIZE(self->image) : (Py_ssize_t)0);
}

static PyMethodDef Module_methods[] = {
    {"get_function", Module_get_function, METH_O,
     "get_function(name) -> Function. `name` is a kernel name or a name expression given "
     "at compile time (\"axpy<float>\")."},
    {"get_global", Module_get_global, METH_O,
     "get_global(name) -> (DeviceAllocation, size): the address and size of a __device__ "
     "or __constant__ variable (a view that never frees; it keeps the module loaded)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Module_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict,
     "What compiler.py records about the module (log, source, arch...).", NULL},
    {"lowered", Module_get_lowered, Module_set_lowered,
     "dict: name expression -> lowered (mangled) name, or None.", NULL},
    {"signatures", Module_get_signatures, Module_set_signatures,
     "dict: kernel name -> parsed signature (pycudac._sigparse), or None. Parsed from "
     "the module's `source` attribute on first use unless set.", NULL},
    {"handle", Module_get_handle, NULL, "The CUmodule handle as an int.", NULL},
    {"ptx", Module_get_ptx, Module_set_ptx,
     "NVRTC's PTX (str), None when the compile made none; absent on a module pycudac did "
     "not compile.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef Module_members[] = {
    {"image", T_OBJECT, offsetof(PccModule, image), READONLY, "The bytes that were loaded."},
    {"context", T_OBJECT, offsetof(PccModule, context), READONLY, "The Context it lives in."},
    {"__dictoffset__", T_PYSSIZET, offsetof(PccModule, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccModule, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot Module_slots[] = {
    {Py_tp_doc, "A loaded CUDA module (CUBIN, PTX or simulator image). Made by "
                "pycudac.compiler.SourceModule or module_from_buffer; unloaded, in its own "
                "context, when it is garbage."},
    {Py_tp_repr, Module_repr},
    {Py_tp_traverse, Module_traverse},
    {Py_tp_clear, Module_clear},
    {Py_tp_dealloc, Module_dealloc},
    {Py_tp_methods, Module_methods},
    {Py_tp_getset, Module_getset},
    {Py_tp_members, Module_members},
    {0, NULL}};

static PyType_Spec Module_spec = {
    .name = "pycudac._driver.Module",
    .basicsize = sizeof(PccModule),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
             | Py_TPFLAGS_DISALLOW_INSTANTIATION
#endif
    ,
    .slots = Module_slots,
};

/* ---- module functions ------------------------------------------------------------- */

static PyObject *py_module_from_buffer(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"image", "options", "message_handler", NULL};
    PyObject *image, *options = Py_None, *handler = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:module_from_buffer", kwlist, &image,
                                     &options, &handler))
        return NULL;
    /* JIT options (PyCUDA's `options`) are accepted and not used: the table has no
     * cuModuleLoadDataEx, and NVRTC options are given at compile time instead. */
    if (pcc_ready() < 0)
        return NULL;
    PyObject *bytes;
    if (PyBytes_Check(image)) {
        Py_INCREF(image);
        bytes = image;
    } else if (PyObject_CheckBuffer(image)) {
        bytes = PyBytes_FromObject(image);
        if (bytes == NULL)
            return NULL;
    } else if (PyUnicode_Check(image)) {
        /* PTX given as text. */
        bytes = PyUnicode_AsUTF8String(image);
        if (bytes == NULL)
            return NULL;
    } else {
        PyErr_Format(PyExc_TypeError,
                     "module_from_buffer: image must be bytes (CUBIN, PTX, fatbin or a "
                     "simulator image), not %.100s",
                     Py_TYPE(image)->tp_name);
        return NULL;
    }
    if (PyBytes_GET_SIZE(bytes) == 0) {
        Py_DECREF(bytes);
        PyErr_SetString(PyExc_ValueError, "module_from_buffer: image is empty");
        return NULL;
    }
    PyObject *m = module_load(bytes);
    Py_DECREF(bytes);
    return m;
}

/* The attributes a compiled module carries (compiler.py's SourceModule
 * reads them) and the result dict's keys they come from, interned once at
 * import: a warm start sets a dozen of them in a fresh process. */
enum { A_IMAGE, A_LOWERED, A_OPTIONS, A_TARGET, A_ARCH, A_KEY, A_FROM_CACHE, A_LOG, A_PTX,
       A_SOURCE, A_CUBIN, A_KEEP_DIR, A_CACHE_KEY, A_COUNT };
/* The attribute names (pcc_st's strings, in the order above; set at init). */
static PyObject *attr_str[A_COUNT];

/* result[k], borrowed; NULL (no exception) when absent. */
static PyObject *field(PyObject *result, int k)
{
    return PyDict_GetItemWithError(result, attr_str[k]);
}

PyObject *pcc_module_from_parts(const pcc_result_parts *parts, PyObject *source,
                                PyObject *keep_dir, const pcc_result_facts *f)
{
    PyObject *image = parts->image, *lowered = parts->lowered, *ptx = parts->ptx;
    if (image == NULL || !PyBytes_Check(image) || PyBytes_GET_SIZE(image) == 0 ||
        parts->options == NULL || f->target == NULL ||
        (lowered != NULL && !PyDict_Check(lowered)) ||
        (ptx != NULL && ptx != Py_None && !PyUnicode_Check(ptx) && !PyBytes_Check(ptx))) {
        PyErr_SetString(PyExc_ValueError, "module_from_result: result needs a non-empty bytes "
                                          "image, options, a target, lowered as a dict and ptx "
                                          "as str or None");
        return NULL;
    }
    PyObject *opts = PyTuple_CheckExact(parts->options) ? Py_NewRef(parts->options)
                                                         : PySequence_Tuple(parts->options);
    if (opts == NULL)
        return NULL;
    PccModule *self = (PccModule *)module_load(image);
    if (self == NULL) {
        Py_DECREF(opts);
        return NULL;
    }
    /* the result's own dict: compile and decode make a fresh one */
    if (lowered != NULL && PyDict_GET_SIZE(lowered) > 0)
        self->lowered = Py_NewRef(lowered);
    self->ptx = Py_NewRef(ptx ? ptx : Py_None);
    self->ptx_zlib = parts->ptx_zlib && ptx != NULL && PyBytes_Check(ptx);
    PyObject *dict = PyObject_GenericGetDict((PyObject *)self, NULL);
    int rc = dict == NULL ? -1 : 0;
    int is_cubin = PyUnicode_Check(f->target) &&
                   PyUnicode_CompareWithASCIIString(f->target, "cubin") == 0;
    const struct {
        int k;
        PyObject *v;
    } set[] = {{A_OPTIONS, opts},       {A_SOURCE, source},
               {A_CUBIN, is_cubin ? image : Py_None},
               {A_KEEP_DIR, keep_dir},  {A_LOG, parts->log},
               {A_TARGET, f->target},   {A_ARCH, f->arch},
               {A_CACHE_KEY, f->key},   {A_FROM_CACHE, f->from_cache}};
    for (size_t i = 0; rc == 0 && i < sizeof set / sizeof set[0]; i++)
        rc = PyDict_SetItem(dict, attr_str[set[i].k], set[i].v ? set[i].v : Py_None);
    Py_DECREF(opts);
    Py_XDECREF(dict);
    if (rc == 0)
        return (PyObject *)self;
    Py_DECREF(self);
    return NULL;
}

PyObject *pcc_module_from_result(PyObject *result, PyObject *source, PyObject *keep_dir,
                                 const pcc_result_facts *facts)
{
    if (!PyDict_Check(result)) {
        PyErr_Format(PyExc_TypeError, "module_from_result: result must be a dict, not %.100s",
                     Py_TYPE(result)->tp_name);
        return NULL;
    }
    pcc_result_parts parts = {field(result, A_IMAGE), field(result, A_LOG),
                              field(result, A_PTX), field(result, A_OPTIONS),
                              field(result, A_LOWERED), 0};
    pcc_result_facts f = {field(result, A_TARGET), field(result, A_ARCH), field(result, A_KEY),
                          field(result, A_FROM_CACHE)};
    if (facts != NULL)
        f = *facts;
    if (PyErr_Occurred())
        return NULL;
    if (parts.ptx != NULL && PyBytes_Check(parts.ptx)) {
        PyErr_SetString(PyExc_ValueError, "module_from_result: ptx must be str or None");
        return NULL;
    }
    return pcc_module_from_parts(&parts, source, keep_dir, &f);
}

static PyObject *py_module_from_result(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *result, *source, *keep_dir = Py_None;
    if (!PyArg_ParseTuple(args, "OU|O:module_from_result", &result, &source, &keep_dir))
        return NULL;
    if (pcc_ready() < 0)
        return NULL;
    return pcc_module_from_result(result, source, keep_dir, NULL);
}

static PyObject *py_module_from_file(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path = NULL;
    if (!PyArg_ParseTuple(args, "O&:module_from_file", PyUnicode_FSConverter, &path))
        return NULL;
    PyObject *bytes = NULL, *m = NULL;
    if (pcc_ready() < 0)
        goto done;
    FILE *f = NULL;
    long size = -1;
    int err = 0;
    const char *p = PyBytes_AS_STRING(path);
    struct stat st;
    Py_BEGIN_ALLOW_THREADS
    f = fopen(p, "rb");
    /* a regular file only: a directory's "size" is no length, and a device
     * (/dev/zero) has none */
    if (f && fstat(fileno(f), &st) == 0)
        err = S_ISDIR(st.st_mode) ? EISDIR : S_ISREG(st.st_mode) ? 0 : EINVAL;
    if (f && !err && fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (f && !err && size >= 0 && fseek(f, 0, SEEK_SET) != 0)
        size = -1;
    if (!err && (f == NULL || size < 0))
        err = errno ? errno : EIO;
    Py_END_ALLOW_THREADS
    if (err == EINVAL) {
        fclose(f);
        PyErr_Format(PyExc_ValueError, "module_from_file: %R is not a regular file", path);
        goto done;
    }
    if (err) {
        if (f)
            fclose(f);
        errno = err;
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
        goto done;
    }
    bytes = PyBytes_FromStringAndSize(NULL, size);
    if (bytes == NULL) {
        fclose(f);
        goto done;
    }
    size_t got;
    char *dst = PyBytes_AS_STRING(bytes);
    Py_BEGIN_ALLOW_THREADS
    got = fread(dst, 1, (size_t)size, f);
    fclose(f);
    Py_END_ALLOW_THREADS
    if (got != (size_t)size) {
        PyErr_Format(PyExc_OSError, "module_from_file: short read from %R", path);
        goto done;
    }
    if (size == 0) {
        PyErr_Format(PyExc_ValueError, "module_from_file: %R is empty", path);
        goto done;
    }
    m = module_load(bytes);
done:
    Py_XDECREF(bytes);
    Py_XDECREF(path);
    return m;
}

/* ---- linking (DynamicModule) -------------------------------------------------------- */

enum { JIT_INFO_LOG = 3, JIT_INFO_LOG_SIZE = 4, JIT_ERROR_LOG = 5, JIT_ERROR_LOG_SIZE = 6,
       JIT_LOG_VERBOSE = 12, JIT_LTO = 20, JIT_INPUT_LIBRARY = 4, JIT_INPUT_NVVM = 5 };
#define LINK_LOG_BYTES 16384

/* A failed cuLink* call: a CompileError through pcc_raise's one path, the
 * linker's error log in the text of the call. NULL. */
static PyObject *link_failed(CUresult rc, const char *call, const char *name, const char *log)
{
    char what[768]; /* pcc_raise's message holds 1 KiB: the log's start, then the error */
    snprintf(what, sizeof what, "linking device code: %s%s%.120s%s%.480s%s", call,
             name ? " of " : "", name ? name : "", log[0] ? " (the linker's log: " : "",
             log, log[0] ? ")" : "");
    pcc_raise_as(pcc_st.CompileError, rc, what);
    return NULL;
}

/* link_images(inputs, verbose=False, lto=False) -> (image, info log): the
 * driver's linker over `inputs`, a list of (input type, bytes or None, path
 * or None, name); the image is what module_from_buffer loads. With lto,
 * CU_JIT_LTO and LTO-IR inputs (type 5, NVVM): what drivers link from
 * NVRTC older than 12.0 (compile/link.c's nvJitLink links newer). */
static PyObject *py_link_images(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"inputs", "verbose", "lto", NULL};
    PyObject *inputs;
    int verbose = 0, lto = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|pp:link_images", kwlist, &PyList_Type,
                                     &inputs, &verbose, &lto))
        return NULL;
    long max_type = lto ? JIT_INPUT_NVVM : JIT_INPUT_LIBRARY;
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(inputs); k++) {
        PyObject *it = PyList_GET_ITEM(inputs, k);
        long type;
        if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 4 ||
            !PyLong_Check(PyTuple_GET_ITEM(it, 0)) ||
            (type = PyLong_AsLong(PyTuple_GET_ITEM(it, 0))) < 0 || type > max_type ||
            !(PyBytes_Check(PyTuple_GET_ITEM(it, 1)) || PyUnicode_Check(PyTuple_GET_ITEM(it, 2))) ||
            !PyUnicode_Check(PyTuple_GET_ITEM(it, 3))) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "link_images: inputs[%zd] must be (input type 0-%ld, "
                             "bytes or None, path or None, name)", k, max_type);
            return NULL;
        }
    }
    if (pcc_ready() < 0)
        return NULL;
    if (pcc_drv.cuLinkCreate == NULL || pcc_drv.cuLinkAddData == NULL ||
        pcc_drv.cuLinkAddFile == NULL || pcc_drv.cuLinkComplete == NULL ||
        pcc_drv.cuLinkDestroy == NULL) {
        PyErr_SetString(pcc_st.LogicError, pcc_st.backend->no_linker);
        return NULL;
    }
    if (pcc_context_ensure() < 0)
        return NULL;
    static char info[LINK_LOG_BYTES], error[LINK_LOG_BYTES]; /* the GIL is held throughout */
    info[0] = error[0] = '\0';
    int opts[] = {JIT_INFO_LOG, JIT_INFO_LOG_SIZE, JIT_ERROR_LOG, JIT_ERROR_LOG_SIZE,
                  JIT_LOG_VERBOSE, JIT_LTO};
    void *vals[] = {info, (void *)(uintptr_t)LINK_LOG_BYTES, error,
                    (void *)(uintptr_t)LINK_LOG_BYTES, (void *)(uintptr_t)verbose,
                    (void *)(uintptr_t)1};
    CUlinkState st = NULL;
    CUresult rc = pcc_drv.cuLinkCreate(lto ? 6 : 5, opts, vals, &st);
    if (rc != CUDA_SUCCESS)
        return link_failed(rc, "cuLinkCreate", NULL, error);
    PyObject *result = NULL;
    int nvtx = pcc_nvtx_active();
    if (nvtx)
        pcc_nvtx_own_push("link (cuLink)", PCC_NVTX_LINK);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(inputs); k++) {
        PyObject *it = PyList_GET_ITEM(inputs, k), *data = PyTuple_GET_ITEM(it, 1);
        int type = (int)PyLong_AsLong(PyTuple_GET_ITEM(it, 0));
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(it, 3));
        const char *path = PyBytes_Check(data) ? NULL : PyUnicode_AsUTF8(PyTuple_GET_ITEM(it, 2));
        if (name == NULL || (path == NULL && !PyBytes_Check(data)))
            goto done;
        rc = path ? pcc_drv.cuLinkAddFile(st, type, path, 0, NULL, NULL)
                  : pcc_drv.cuLinkAddData(st, type, PyBytes_AS_STRING(data),
                                          (size_t)PyBytes_GET_SIZE(data), name, 0, NULL, NULL);
        if (rc != CUDA_SUCCESS) {
            link_failed(rc, path ? "cuLinkAddFile" : "cuLinkAddData", path ? path : name, error);
            goto done;
        }
    }
    void *image = NULL;
    size_t size = 0;
    rc = pcc_drv.cuLinkComplete(st, &image, &size);
    if (rc != CUDA_SUCCESS) {
        link_failed(rc, "cuLinkComplete", NULL, error);
        goto done;
    }
    result = Py_BuildValue("(y#s)", (const char *)image, (Py_ssize_t)size, info);
done:
    if (nvtx)
        pcc_nvtx_own_pop();
    pcc_drv.cuLinkDestroy(st); /* frees the image: it was copied above */
    return result;
}

static PyMethodDef module_functions[] = {
    {"link_images", (PyCFunction)(void (*)(void))py_link_images, METH_VARARGS | METH_KEYWORDS,
     "link_images(inputs, verbose=False, lto=False) -> (image, info_log): the driver's linker "
     "(cuLinkCreate..cuLinkComplete) over [(input_type, bytes or None, path or None, name)]; "
     "lto: CU_JIT_LTO, LTO-IR inputs (type 5) from NVRTC older than 12.0. CompileError with "
     "the linker's log when it fails."},
    {"module_from_result", py_module_from_result, METH_VARARGS,
     "module_from_result(result, source, keep_dir=None) -> Module: a compile result dict "
     "(image, log, ptx, options, lowered, target, arch, key, from_cache) loaded, with those "
     "as the module's attributes (cache_key for key) and source, cubin, keep_dir."},
    {"module_from_buffer", (PyCFunction)(void (*)(void))py_module_from_buffer,
     METH_VARARGS | METH_KEYWORDS,
     "module_from_buffer(image, options=None, message_handler=None) -> Module\n\n"
     "Loads a CUBIN, PTX, fatbin or simulator image into the current context "
     "(cuModuleLoadData). JIT options are accepted for PyCUDA compatibility and ignored."},
    {"module_from_file", py_module_from_file, METH_VARARGS,
     "module_from_file(path) -> Module: module_from_buffer of the file's bytes."},
    {NULL, NULL, 0, NULL}};

int pcc_module_init(PyObject *module)
{
    PyObject *t = PyType_FromSpec(&Module_spec);
    if (t == NULL)
        return -1;
    pcc_st.Module = (PyTypeObject *)t;
    if (PyModule_AddObjectRef(module, "Module", t) < 0)
        return -1;
    PyObject *const names[A_COUNT] = {
        pcc_st.str_image,  pcc_st.str_lowered, pcc_st.str_options,    pcc_st.str_target,
        pcc_st.str_arch,   pcc_st.str_key,     pcc_st.str_from_cache, pcc_st.str_log,
        pcc_st.str_ptx,    pcc_st.str_source,  pcc_st.str_cubin,      pcc_st.str_keep_dir,
        pcc_st.str_cache_key};
    memcpy(attr_str, names, sizeof names);
    return PyModule_AddFunctions(module, module_functions);
}
