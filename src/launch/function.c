/*
 * launch/function.c — the Function type: a kernel in a loaded Module.
 *
 * Creation (the device's launch limits, read once per device, and the
 * parameter plan of launch/plan.c), GC and dealloc, the attributes
 * (get_attribute/set_attribute, num_regs..., param_layout, layout_note), the
 * occupancy helper, repr, and the type spec. The call path — f(...),
 * prepare/prepared_*call and pack() — is in launch/call.c, the cooperative
 * launch and its occupancy query in launch/cooperative.c.
 */
#include "driver/loader.h"
#include "launch/call.h"
#include "launch/plan.h"

#include <string.h>
#include <structmember.h>

#include "core/context.h"
#include "core/convert.h"
#include "core/module.h"

static PyTypeObject *layout_type; /* ParamLayout struct sequence */

/* A function_attribute value: checked here, because the driver does not
 * check a negative one (it crashed on cuFuncGetAttribute(-1) on an H100). */
static int attr_arg(PyObject *o, int *out)
{
    long v = PyLong_Check(o) ? PyLong_AsLong(o) : -1;
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (!PyLong_Check(o) || v < 0 || v > 255) {
        PyErr_Format(PyLong_Check(o) ? PyExc_ValueError : PyExc_TypeError,
                     "attr must be a driver.function_attribute member (0..255), not %R", o);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int as_int(PyObject *o, int *out)
{
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < -2147483647L - 1 || v > 2147483647L) {
        PyErr_SetString(PyExc_OverflowError, "value does not fit in a C int");
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* ------------------------------------------------------ device limits */

typedef struct {
    int known;
    int max_threads, max_block[3];
    unsigned int max_grid[3];
    int smem_optin;
    size_t param_limit;
} dev_limits;

static dev_limits limits_cache[64];

static int device_limits(CUdevice dev, dev_limits *out)
{
    dev_limits *c = (dev >= 0 && dev < 64) ? &limits_cache[dev] : NULL;
    if (c && c->known) {
        *out = *c;
        return 0;
    }
    dev_limits l = {0};
    static const int attrs[] = {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
        CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,       CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
        CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
    int v[7];
    for (int k = 0; k < 7; k++)
        if (pcc_check(pcc_drv.cuDeviceGetAttribute(&v[k], attrs[k], dev),
                      "cuDeviceGetAttribute") < 0)
            return -1;
    l.max_threads = v[0];
    for (int k = 0; k < 3; k++) {
        l.max_block[k] = v[1 + k];
        l.max_grid[k] = (unsigned int)v[4 + k];
    }
    int optin = 0, major = 0, version = 0;
    if (pcc_drv.cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                     dev) != CUDA_SUCCESS)
        optin = 0;
    l.smem_optin = optin;
    if (pcc_drv.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
        CUDA_SUCCESS)
        major = 0;
    if (pcc_drv.cuDriverGetVersion(&version) != CUDA_SUCCESS)
        version = 0;
    /* 32,764 bytes of parameters on Volta+ with a CUDA 12.1+ driver */
    l.param_limit = (major >= 7 && version >= 12010) ? 32764 : 4096;
    l.known = 1;
    if (c)
        *c = l;
    *out = l;
    return 0;
}

/* ------------------------------------------------------------ creation */

PyObject *pcc_function_new(PyObject *module, CUfunction fn, PyObject *name, PyObject *signature)
{
    if (pcc_ready() < 0)
        return NULL;
    if (pcc_st.Function == NULL) {
        PyErr_SetString(PyExc_SystemError, "pycudac Function type not initialized");
        return NULL;
    }
    PccFunction *f = PyObject_GC_New(PccFunction, pcc_st.Function);
    if (f == NULL)
        return NULL;
    /* PyObject_New leaves the fields uninitialized */
    memset((char *)f + sizeof(PyObject), 0, sizeof(PccFunction) - sizeof(PyObject));
    f->vectorcall = NULL;
    f->fn = fn;
    f->static_smem = -1;
    Py_INCREF(module);
    f->module = module;
    Py_INCREF(name);
    f->name = name;
    f->signature = signature ? signature : Py_None;
    Py_INCREF(f->signature);
    if (pcc_st.Module && PyObject_TypeCheck(module, pcc_st.Module)) {
        f->context = ((PccModule *)module)->context;
        Py_XINCREF(f->context);
    }
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "kernel name must be str, not %.100s",
                     Py_TYPE(name)->tp_name);
        goto fail;
    }
    CUdevice dev = 0;
    if (f->context && pcc_st.Context && PyObject_TypeCheck(f->context, pcc_st.Context))
        dev = ((PccContext *)f->context)->dev;
    else if (pcc_check(pcc_drv.cuCtxGetDevice(&dev), "cuCtxGetDevice") < 0)
        goto fail;
    dev_limits l;
    if (device_limits(dev, &l) < 0)
        goto fail;
    f->max_threads = l.max_threads;
    memcpy(f->max_block, l.max_block, sizeof f->max_block);
    memcpy(f->max_grid, l.max_grid, sizeof f->max_grid);
    f->smem_optin = l.smem_optin;
    f->smem_allowed = 48 * 1024;
    f->param_limit = l.param_limit;
    if (pcc_plan_build(f, f->signature, 1) < 0)
        goto fail;
    if (f->argsize > f->param_limit) {
        PyErr_Format(PyExc_ValueError, "kernel '%U' has %zu bytes of parameters; this device "
                     "and driver allow %zu", name, f->argsize, f->param_limit);
        goto fail;
    }
    f->vectorcall = pcc_function_vectorcall;
    PyObject_GC_Track((PyObject *)f);
    return (PyObject *)f;
fail:
    Py_DECREF(f);
    return NULL;
}

/* A Function can sit in a cycle (stored on its Module's __dict__): GC-aware. */
static int function_traverse(PyObject *self, visitproc visit, void *arg)
{
    PccFunction *f = (PccFunction *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(f->module);
    Py_VISIT(f->context);
    Py_VISIT(f->signature);
    Py_VISIT(f->prepared_block);
    Py_VISIT(f->last_dims[0]);
    Py_VISIT(f->last_dims[1]);
    Py_VISIT(f->last_cluster);
    return 0;
}

static int function_clear(PyObject *self)
{
    PccFunction *f = (PccFunction *)self;
    Py_CLEAR(f->module);
    Py_CLEAR(f->context);
    Py_CLEAR(f->prepared_block);
    Py_CLEAR(f->last_dims[0]);
    Py_CLEAR(f->last_dims[1]);
    Py_CLEAR(f->last_cluster);
    return 0;
}

static void function_dealloc(PyObject *self)
{
    PccFunction *f = (PccFunction *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (f->weakreflist)
        PyObject_ClearWeakRefs(self);
    pcc_plan_clear(f);
    function_clear(self);
    Py_XDECREF(f->name);
    Py_XDECREF(f->signature);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

/* 0 when f's handle may go to the driver: it is ready and f's module still
 * has its context (a detached one took the module along: its handle is
 * gone); else -1 with an exception. */
static int function_usable(PccFunction *f)
{
    if (pcc_context_gone(f->context)) {
        PyErr_Format(pcc_st.LogicError, "kernel '%U': the context its module was loaded in was "
                     "detached (the module went with it): load it again", f->name);
        return -1;
    }
    return pcc_ready();
}

static PyObject *get_attr_value(PccFunction *f, int attr)
{
    if (function_usable(f) < 0)
        return NULL;
    int v = 0;
    if (pcc_check(pcc_drv.cuFuncGetAttribute(&v, attr, f->fn), "cuFuncGetAttribute") < 0)
        return NULL;
    return PyLong_FromLong(v);
}

static PyObject *function_get_attribute(PyObject *self, PyObject *attr)
{
    int a;
    if (attr_arg(attr, &a) < 0)
        return NULL;
    return get_attr_value((PccFunction *)self, a);
}

static PyObject *function_set_attribute(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PccFunction *f = (PccFunction *)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "set_attribute(attr, value) takes 2 arguments");
        return NULL;
    }
    int a, v;
    if (attr_arg(args[0], &a) < 0)
        return NULL;
    /* an int (a str was "cannot be interpreted as an integer"), >= 0: every
     * settable attribute is a size, a carveout or a flag */
    if (PyBool_Check(args[1]) || !PyIndex_Check(args[1])) {
        PyErr_Format(PyExc_TypeError, "set_attribute: value must be an int, not %.100s",
                     Py_TYPE(args[1])->tp_name);
        return NULL;
    }
    if (as_int(args[1], &v) < 0) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "set_attribute: value %S does not fit in a C int",
                         args[1]);
        }
        return NULL;
    }
    /* a carveout of -1 is the driver's default */
    if (v < 0 && !(a == 9 /* PREFERRED_SHARED_MEMORY_CARVEOUT */ && v == -1)) {
        PyErr_Format(PyExc_ValueError, "set_attribute: value must be >= 0, got %d", v);
        return NULL;
    }
    if (function_usable(f) < 0)
        return NULL;
    if (pcc_check(pcc_drv.cuFuncSetAttribute(f->fn, a, v), "cuFuncSetAttribute") < 0)
        return NULL;
    if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        f->smem_allowed = v > 48 * 1024 ? v : 48 * 1024;
    Py_RETURN_NONE;
}

/* set_cache_config(config) / set_shared_config(config): this kernel's
 * preferences, over the context's (driver.func_cache / driver.shared_config;
 * see Context.set_cache_config for a driver without the bank-size call). */
static PyObject *function_set_cache_config(PyObject *self, PyObject *arg)
{
    PccFunction *f = (PccFunction *)self;
    int v;
    if (pcc_enum_arg(arg, "set_cache_config(config): config", "func_cache",
                     PCC_FUNC_CACHE_VALUES, &v) < 0 ||
        function_usable(f) < 0 ||
        pcc_check(pcc_drv.cuFuncSetCacheConfig(f->fn, v), "cuFuncSetCacheConfig") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *function_set_shared_config(PyObject *self, PyObject *arg)
{
    PccFunction *f = (PccFunction *)self;
    int v;
    if (pcc_enum_arg(arg, "set_shared_config(config): config", "shared_config",
                     PCC_SHARED_CONFIG_VALUES, &v) < 0 ||
        function_usable(f) < 0)
        return NULL;
    if (pcc_drv.cuFuncSetSharedMemConfig != NULL &&
        pcc_check(pcc_drv.cuFuncSetSharedMemConfig(f->fn, v), "cuFuncSetSharedMemConfig") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *function_max_potential_block_size(PyObject *self, PyObject *args,
                                                   PyObject *kwds)
{
    PccFunction *f = (PccFunction *)self;
    static char *kwlist[] = {"dynamic_smem", "block_size_limit", NULL};
    Py_ssize_t smem = 0;
    int limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ni:max_potential_block_size", kwlist, &smem,
                                     &limit))
        return NULL;
    if (smem < 0 || limit < 0) {
        PyErr_SetString(PyExc_ValueError, "dynamic_smem and block_size_limit must be >= 0");
        return NULL;
    }
    /* no block can have more: the occupancy answer would be for no launch */
    int cap = f->smem_optin > f->smem_allowed ? f->smem_optin : f->smem_allowed;
    if (smem > cap) {
        PyErr_Format(PyExc_ValueError, "max_potential_block_size: dynamic_smem = %zd bytes "
                     "exceeds this device's limit of %d bytes of shared memory per block",
                     smem, cap);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    int min_grid = 0, block = 0;
    if (pcc_check(pcc_drv.cuOccupancyMaxPotentialBlockSize(&min_grid, &block, f->fn, NULL,
                                                           (size_t)smem, limit),
                  "cuOccupancyMaxPotentialBlockSize") < 0)
        return NULL;
    return Py_BuildValue("(ii)", min_grid, block);
}

static PyObject *function_param_layout(PyObject *self, void *closure)
{
    (void)closure;
    PccFunction *f = (PccFunction *)self;
    PyObject *list = PyList_New(f->nparams);
    if (list == NULL)
        return NULL;
    for (int i = 0; i < f->nparams; i++) {
        pcc_param *p = &f->params[i];
        PyObject *e = PyStructSequence_New(layout_type);
        if (e == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyStructSequence_SET_ITEM(e, 0, Py_NewRef(p->name ? p->name : Py_None));
        PyStructSequence_SET_ITEM(e, 1, Py_NewRef(p->ctype ? p->ctype : Py_None));
        PyStructSequence_SET_ITEM(e, 2, PyLong_FromSize_t(p->offset));
        PyStructSequence_SET_ITEM(e, 3, PyLong_FromSize_t(p->size));
        PyStructSequence_SET_ITEM(e, 4, PyUnicode_FromString(pcc_kind_name(p->kind)));
        if (PyErr_Occurred()) {
            Py_DECREF(e);
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, e);
    }
    return list;
}

/* For tests: the layout the C ABI rules give for the declared types, as
 * used on drivers without cuFuncGetParamInfo: [(offset, size)...] or the
 * reason it is unknown (str). */
static PyObject *function_abi_layout(PyObject *self, PyObject *unused)
{
    (void)unused;
    PccFunction *f = (PccFunction *)self, tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.fn = f->fn;
    tmp.name = f->name;
    PyObject *out = NULL;
    if (pcc_plan_build(&tmp, f->signature, 0) < 0)
        goto done;
    if (tmp.layout_error) {
        out = Py_NewRef(tmp.layout_error);
        goto done;
    }
    out = PyList_New(tmp.nparams);
    for (int i = 0; out && i < tmp.nparams; i++) {
        PyObject *e = Py_BuildValue("(nn)", (Py_ssize_t)tmp.params[i].offset,
                                    (Py_ssize_t)tmp.params[i].size);
        if (e == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, e);
    }
done:
    pcc_plan_clear(&tmp);
    return out;
}

static PyObject *function_get_name(PyObject *self, void *closure)
{
    (void)closure;
    return Py_NewRef(((PccFunction *)self)->name);
}

static PyObject *function_get_int_attr(PyObject *self, void *closure)
{
    return get_attr_value((PccFunction *)self, (int)(intptr_t)closure);
}

static PyObject *function_get_argsize(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromSize_t(((PccFunction *)self)->argsize);
}

static PyObject *function_get_handle(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromVoidPtr(((PccFunction *)self)->fn);
}

static PyObject *function_get_note(PyObject *self, void *closure)
{
    (void)closure;
    PccFunction *f = (PccFunction *)self;
    PyObject *n = f->layout_error ? f->layout_error : f->note;
    return Py_NewRef(n ? n : Py_None);
}

static PyObject *function_repr(PyObject *self)
{
    PccFunction *f = (PccFunction *)self;
    return PyUnicode_FromFormat("<pycudac.driver.Function %U(%U)>", f->name,
                                f->decl ? f->decl : f->layout_error ? f->layout_error : Py_None);
}

static PyMethodDef function_methods[] = {
    {"pack", (PyCFunction)(void (*)(void))pcc_function_pack, METH_FASTCALL,
     "pack(*args) -> bytes: the parameter buffer a launch with these arguments would send."},
    {"prepare", (PyCFunction)(void (*)(void))pcc_function_prepare, METH_VARARGS | METH_KEYWORDS,
     "prepare(arg_types, block=None) -> self. arg_types: struct codes ('PiP') or numpy dtypes."},
    {"prepared_call", (PyCFunction)(void (*)(void))pcc_function_prepared_call,
     METH_FASTCALL | METH_KEYWORDS,
     "prepared_call(grid, block, *args, shared_size=0, cooperative=False)"},
    {"prepared_async_call", (PyCFunction)(void (*)(void))pcc_function_prepared_async_call,
     METH_FASTCALL | METH_KEYWORDS,
     "prepared_async_call(grid, block, stream, *args, shared_size=0)"},
    {"prepared_timed_call", (PyCFunction)(void (*)(void))pcc_function_prepared_timed_call,
     METH_FASTCALL | METH_KEYWORDS,
     "prepared_timed_call(grid, block, *args, shared_size=0) -> callable returning seconds"},
    {"_abi_layout", function_abi_layout, METH_NOARGS,
     "[(offset, size), ...] by the C ABI rules over the declared types (testing aid)."},
    {"get_attribute", function_get_attribute, METH_O,
     "get_attribute(attr): cuFuncGetAttribute (function_attribute values)."},
    {"set_attribute", (PyCFunction)(void (*)(void))function_set_attribute, METH_FASTCALL,
     "set_attribute(attr, value): cuFuncSetAttribute."},
    {"set_cache_config", function_set_cache_config, METH_O,
     "set_cache_config(config): this kernel's L1/shared memory preference, a "
     "driver.func_cache (cuFuncSetCacheConfig; over the context's unless PREFER_NONE)."},
    {"set_shared_config", function_set_shared_config, METH_O,
     "set_shared_config(config): this kernel's shared memory bank size, a "
     "driver.shared_config (does nothing on GPUs with fixed four-byte banks)."},
    {"max_potential_block_size", (PyCFunction)(void (*)(void))function_max_potential_block_size,
     METH_VARARGS | METH_KEYWORDS,
     "max_potential_block_size(dynamic_smem=0, block_size_limit=0) -> (min_grid, block)"},
    {"max_active_blocks_per_multiprocessor",
     (PyCFunction)(void (*)(void))pcc_function_max_active_blocks, METH_VARARGS | METH_KEYWORDS,
     "max_active_blocks_per_multiprocessor(block_size, dynamic_smem=0) -> int: blocks of that "
     "size one multiprocessor holds at once (cuOccupancyMaxActiveBlocksPerMultiprocessor); "
     "times the multiprocessor count, the largest grid a cooperative launch may have."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef function_getset[] = {
    {"__name__", function_get_name, NULL, "The kernel's name (as asked of get_function).", NULL},
    {"param_layout", function_param_layout, NULL,
     "[(name, ctype, offset, size), ...]; each entry also has .kind.", NULL},
    {"arg_size", function_get_argsize, NULL, "Bytes of the packed parameter buffer.", NULL},
    {"handle", function_get_handle, NULL, "The CUfunction as an int.", NULL},
    {"layout_note", function_get_note, NULL,
     "Why declared types were set aside or the layout is unknown (else None).", NULL},
    {"num_regs", function_get_int_attr, NULL, "Registers per thread.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_NUM_REGS},
    {"shared_size_bytes", function_get_int_attr, NULL, "Static shared memory per block.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
    {"local_size_bytes", function_get_int_attr, NULL, "Local memory per thread.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
    {"const_size_bytes", function_get_int_attr, NULL, "Constant memory used.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
    {"max_threads_per_block", function_get_int_attr, NULL, "Largest block it can launch with.",
     (void *)(intptr_t)CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef function_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(PccFunction, vectorcall), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccFunction, weakreflist), READONLY, NULL},
    {"signature", T_OBJECT, offsetof(PccFunction, signature), READONLY,
     "The parsed declaration (pycudac._sigparse.KernelSignature) or None."},
    {"module", T_OBJECT, offsetof(PccFunction, module), READONLY, "The Module it came from."},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot function_slots[] = {
    {Py_tp_dealloc, function_dealloc},
    {Py_tp_traverse, function_traverse},
    {Py_tp_clear, function_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_repr, function_repr},
    {Py_tp_methods, function_methods},
    {Py_tp_getset, function_getset},
    {Py_tp_members, function_members},
    {Py_tp_doc, "A kernel in a loaded Module. f(*args, block=(x, y, z), grid=(x, y[, z]), "
                "shared=0, stream=None, time_kernel=False, cooperative=False) launches it; "
                "cooperative=True makes every block resident at once "
                "(cuLaunchCooperativeKernel), as grid_group::sync() needs."},
    {0, NULL}};

static PyType_Spec function_spec = {
    .name = "pycudac._driver.Function",
    .basicsize = sizeof(PccFunction),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = function_slots,
};

static PyStructSequence_Field layout_fields[] = {
    {"name", "parameter name from the declaration, or None"},
    {"ctype", "declared C type, or None"},
    {"offset", "byte offset in the parameter buffer"},
    {"size", "bytes"},
    {"kind", "how arguments are converted: ptr, i32, f32, vec, struct, untyped..."},
    {NULL, NULL}};

static PyStructSequence_Desc layout_desc = {"pycudac._driver.ParamLayout",
                                            "One kernel parameter: (name, ctype, offset, size).",
                                            layout_fields, 4};

/* Module.get_function's maker (core/module.c calls it through pcc_st). */
static PyObject *function_new(PyObject *module, void *fn, PyObject *name, PyObject *signature)
{
    return pcc_function_new(module, (CUfunction)fn, name, signature);
}

int pcc_function_init(PyObject *module)
{
    pcc_st.function_new = function_new;
    if (pcc_plan_init(module) < 0)
        return -1;
    layout_type = PyStructSequence_NewType(&layout_desc);
    if (layout_type == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "ParamLayout", (PyObject *)layout_type) < 0)
        return -1;
    PyObject *t = PyType_FromModuleAndSpec(module, &function_spec, NULL);
    if (t == NULL)
        return -1;
    pcc_st.Function = (PyTypeObject *)t;
    if (PyModule_AddObjectRef(module, "Function", t) < 0)
        return -1;
    return 0;
}
