/*
 * core/graphics.c — OpenGL interop: a GL buffer object or texture registered
 * with CUDA as a graphics resource (cuGraphicsGLRegisterBuffer/Image), mapped
 * for CUDA's use and unmapped for GL's, and while mapped seen as a device
 * pointer (a buffer) or as CUDA arrays (an image's layers and mip levels).
 *
 * One object owns one CUgraphicsResource, registered and freed in its context
 * (PCC_HANDLE_HEAD). The arrays handed out while mapped belong to the
 * resource: they are Arrays that never destroy their CUarray, and unmapping
 * (or unregistering, or dropping the resource) makes them unusable, so a
 * stale CUarray never reaches the driver. The GL context is the caller's: it
 * must be current in the calling thread for register, map and unmap.
 *
 * The raw type; pycudac/gl/ gives it PyCUDA's names (RegisteredBuffer,
 * RegisteredImage, RegisteredMapping) and shapes.
 */
#include "core/array.h"
#include "core/convert.h"

#include "driver/loader.h"
#include "pycudac/backend.h"
#include "structmember.h"

typedef struct {
    PCC_HANDLE_HEAD
    CUgraphicsResource res; /* NULL once unregistered */
    int is_image;
    int mapped;
    unsigned long long maps; /* how many times it was mapped: a mapping knows its own */
    PyObject *arrays;        /* list: the Arrays handed out by the current mapping */
} PccGraphics;

/* 0 when this backend and driver can do OpenGL interop, else -1 with a
 * LogicError that says why (the simulator: no OpenGL at all; an old driver:
 * the entry point it lacks). */
static int gl_ready(void)
{
    if (pcc_ready() < 0)
        return -1;
    const char *missing = NULL;
    if (pcc_drv.cuGraphicsGLRegisterBuffer == NULL)
        missing = "cuGraphicsGLRegisterBuffer";
    else if (pcc_drv.cuGraphicsGLRegisterImage == NULL)
        missing = "cuGraphicsGLRegisterImage";
    else if (pcc_drv.cuGraphicsUnregisterResource == NULL)
        missing = "cuGraphicsUnregisterResource";
    else if (pcc_drv.cuGraphicsMapResources == NULL || pcc_drv.cuGraphicsUnmapResources == NULL)
        missing = "cuGraphicsMapResources";
    if (missing == NULL)
        return 0;
    const char *why = pcc_st.backend != NULL ? pcc_st.backend->no_gl : NULL;
    if (why != NULL)
        PyErr_SetString(pcc_st.LogicError, why);
    else
        PyErr_Format(pcc_st.LogicError, "OpenGL interop: this CUDA driver lacks %s", missing);
    return -1;
}

/* A GLuint or GLenum argument: an int in 0..2**32-1, named `what`. */
static int gl_uint(PyObject *obj, unsigned int *out, const char *what)
{
    size_t n;
    if (pcc_size_arg(obj, &n, what) < 0)
        return -1;
    if (n > 0xffffffffu) {
        PyErr_Format(PyExc_OverflowError, "%s = %zu does not fit a GLuint (0..4294967295)",
                     what, n);
        return -1;
    }
    *out = (unsigned int)n;
    return 0;
}

/* GraphicsResource(is_image, name, target, flags): registers GL buffer
 * `name` (target ignored) or texture/renderbuffer `name` of `target`. */
static PyObject *graphics_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"is_image", "name", "target", "flags", NULL};
    int is_image;
    PyObject *name_o, *target_o, *flags_o;
    unsigned int name, target, flags;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "pOOO:GraphicsResource", kwlist, &is_image,
                                     &name_o, &target_o, &flags_o) ||
        gl_uint(name_o, &name, is_image ? "texture" : "bufobj") < 0 ||
        gl_uint(target_o, &target, "target") < 0 || gl_uint(flags_o, &flags, "flags") < 0)
        return NULL;
    if (flags & ~(unsigned)(CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY |
                            CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD |
                            CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST |
                            CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER) ||
        (!is_image && flags > CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD)) {
        PyErr_Format(PyExc_ValueError, "flags must be a graphics_map_flags value (NONE, "
                     "READ_ONLY, WRITE_DISCARD%s), got %u",
                     is_image ? "; images also SURFACE_LDST, TEXTURE_GATHER" : "", flags);
        return NULL;
    }
    if (gl_ready() < 0)
        return NULL;
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    PyObject *arrays = PyList_New(0);
    if (arrays == NULL) {
        Py_DECREF(ctx);
        return NULL;
    }
    CUgraphicsResource res = NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = is_image ? pcc_drv.cuGraphicsGLRegisterImage(&res, name, target, flags)
                  : pcc_drv.cuGraphicsGLRegisterBuffer(&res, name, flags);
    Py_END_ALLOW_THREADS
    if (pcc_check(rc, is_image ? "cuGraphicsGLRegisterImage" : "cuGraphicsGLRegisterBuffer") <
        0) {
        Py_DECREF(arrays);
        Py_DECREF(ctx);
        return NULL;
    }
    PccGraphics *self = (PccGraphics *)pcc_handle_alloc(type, ctx);
    if (self == NULL) {
        pcc_drv.cuGraphicsUnregisterResource(res);
        Py_DECREF(arrays);
        return NULL;
    }
    self->res = res;
    self->is_image = is_image;
    self->arrays = arrays;
    return (PyObject *)self;
}

/* The arrays of the mapping that ends: their CUarray is no longer valid. */
static void forget_arrays(PccGraphics *self)
{
    if (self->arrays == NULL)
        return;
    Py_ssize_t n = PyList_GET_SIZE(self->arrays);
    for (Py_ssize_t i = 0; i < n; i++)
        ((PccArray *)PyList_GET_ITEM(self->arrays, i))->array = NULL;
    PyList_SetSlice(self->arrays, 0, n, NULL);
}

static CUresult unmap_then_unregister(PccGraphics *self)
{
    if (self->mapped)
        (void)pcc_drv.cuGraphicsUnmapResources(1, &self->res, NULL);
    return pcc_drv.cuGraphicsUnregisterResource(self->res);
}

static void graphics_release(PyObject *op)
{
    PccGraphics *self = (PccGraphics *)op;
    CUresult rc = CUDA_SUCCESS;
    forget_arrays(self);
    if (self->res != NULL && pcc_drv.cuGraphicsUnregisterResource != NULL)
        PCC_FREE_IN_CONTEXT(self->context, rc, unmap_then_unregister(self));
    (void)rc; /* never raise from dealloc */
    self->res = NULL;
    self->mapped = 0;
    Py_CLEAR(self->arrays);
}

static void graphics_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, graphics_release);
}

/* Raises unless the resource is registered and its mapped state is `want`
 * (-1: either). */
static int state(PccGraphics *self, int want, const char *what)
{
    if (self->res == NULL) {
        PyErr_Format(pcc_st.LogicError, "%s: the resource was unregistered", what);
        return -1;
    }
    if (want == 1 && !self->mapped) {
        PyErr_Format(pcc_st.LogicError, "%s: the resource is not mapped (map() it first; a "
                     "mapping is unusable after unmap())", what);
        return -1;
    }
    if (want == 0 && self->mapped) {
        PyErr_Format(pcc_st.LogicError, "%s: the resource is mapped; unmap() it first", what);
        return -1;
    }
    return 0;
}

/* map(stream=None) / unmap(stream=None): cuGraphicsMapResources / Unmap of
 * this one resource, ordered in `stream`. map returns the mapping's number. */
static PyObject *map_or_unmap(PccGraphics *self, PyObject *args, PyObject *kwds, int map)
{
    static char *kwlist[] = {"stream", NULL};
    const char *what = map ? "map" : "unmap";
    PyObject *stream = Py_None;
    CUstream s;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, map ? "|O:map" : "|O:unmap", kwlist, &stream) ||
        state(self, !map, what) < 0 ||
        pcc_stream_arg(stream, &s, map ? "map(stream)" : "unmap(stream)") < 0)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, map ? "GraphicsResource.map" : "GraphicsResource.unmap") <
        0)
        return NULL;
    if (!map) {
        /* unmapped before the GIL goes: another thread must not take an
         * array of a mapping that is ending */
        forget_arrays(self);
        self->mapped = 0;
    }
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = map ? pcc_drv.cuGraphicsMapResources(1, &self->res, s)
             : pcc_drv.cuGraphicsUnmapResources(1, &self->res, s);
    Py_END_ALLOW_THREADS
    pcc_ctx_leave(&g);
    if (pcc_check(rc, map ? "cuGraphicsMapResources" : "cuGraphicsUnmapResources") < 0) {
        self->mapped = !map; /* still as it was */
        return NULL;
    }
    self->mapped = map;
    if (!map)
        Py_RETURN_NONE;
    self->maps++;
    return PyLong_FromUnsignedLongLong(self->maps);
}

static PyObject *graphics_map(PccGraphics *self, PyObject *args, PyObject *kwds)
{
    return map_or_unmap(self, args, kwds, 1);
}

static PyObject *graphics_unmap(PccGraphics *self, PyObject *args, PyObject *kwds)
{
    return map_or_unmap(self, args, kwds, 0);
}

/* mapped_pointer() -> (device address, bytes) of a mapped buffer. */
static PyObject *graphics_pointer(PccGraphics *self, PyObject *unused)
{
    (void)unused;
    const char *what = "device_ptr_and_size";
    if (state(self, 1, what) < 0)
        return NULL;
    if (self->is_image) {
        PyErr_Format(pcc_st.LogicError, "%s: an image maps to arrays, not to a pointer (use "
                     "array(index, level))", what);
        return NULL;
    }
    if (pcc_need_entry((void *)pcc_drv.cuGraphicsResourceGetMappedPointer,
                       "cuGraphicsResourceGetMappedPointer") < 0)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, what) < 0)
        return NULL;
    CUdeviceptr p = 0;
    size_t n = 0;
    CUresult rc = pcc_drv.cuGraphicsResourceGetMappedPointer(&p, &n, self->res);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuGraphicsResourceGetMappedPointer") < 0)
        return NULL;
    return Py_BuildValue("(Kn)", (unsigned long long)p, (Py_ssize_t)n);
}

/* mapped_array(index, level, type) -> an Array of `type` over the mapped
 * image's layer or face `index`, mip level `level`, valid until unmap. */
static PyObject *graphics_array(PccGraphics *self, PyObject *args)
{
    const char *what = "array";
    PyObject *index_o, *level_o;
    PyTypeObject *type;
    unsigned int index, level;
    if (!PyArg_ParseTuple(args, "OOO!:mapped_array", &index_o, &level_o, &PyType_Type, &type) ||
        gl_uint(index_o, &index, "index") < 0 || gl_uint(level_o, &level, "level") < 0 ||
        state(self, 1, what) < 0)
        return NULL;
    if (!self->is_image) {
        PyErr_Format(pcc_st.LogicError, "%s: a buffer maps to a pointer, not to arrays (use "
                     "device_ptr_and_size())", what);
        return NULL;
    }
    if (pcc_need_entry((void *)pcc_drv.cuGraphicsSubResourceGetMappedArray,
                       "cuGraphicsSubResourceGetMappedArray") < 0)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, what) < 0)
        return NULL;
    CUarray a = NULL;
    CUresult rc = pcc_drv.cuGraphicsSubResourceGetMappedArray(&a, self->res, index, level);
    PyObject *arr = NULL;
    if (pcc_check(rc, "cuGraphicsSubResourceGetMappedArray") == 0) {
        Py_INCREF(self->context);
        arr = pcc_array_borrow(type, self->context, a);
    }
    pcc_ctx_leave(&g);
    if (arr != NULL && PyList_Append(self->arrays, arr) < 0)
        Py_CLEAR(arr);
    return arr;
}

/* set_map_flags(flags): how CUDA will use the next mapping (the driver
 * takes it while mapped too). */
static PyObject *graphics_set_map_flags(PccGraphics *self, PyObject *arg)
{
    unsigned int flags;
    if (gl_uint(arg, &flags, "flags") < 0 || state(self, -1, "set_map_flags") < 0)
        return NULL;
    if (flags > CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD) {
        PyErr_Format(PyExc_ValueError, "set_map_flags: flags must be a graphics_map_flags value "
                     "(NONE, READ_ONLY, WRITE_DISCARD), got %u", flags);
        return NULL;
    }
    if (pcc_need_entry((void *)pcc_drv.cuGraphicsResourceSetMapFlags,
                       "cuGraphicsResourceSetMapFlags") < 0)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, "set_map_flags") < 0)
        return NULL;
    CUresult rc = pcc_drv.cuGraphicsResourceSetMapFlags(self->res, flags);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuGraphicsResourceSetMapFlags") < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* unregister(): now, in its context; refused while mapped (the driver would
 * unmap without ordering it after the caller's stream). */
static PyObject *graphics_unregister(PccGraphics *self, PyObject *unused)
{
    (void)unused;
    if (state(self, 0, "unregister") < 0)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, "unregister") < 0)
        return NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuGraphicsUnregisterResource(self->res);
    Py_END_ALLOW_THREADS
    pcc_ctx_leave(&g);
    if (pcc_check(rc, "cuGraphicsUnregisterResource") < 0)
        return NULL;
    self->res = NULL;
    Py_RETURN_NONE;
}

static PyObject *graphics_handle(PccGraphics *self, void *unused)
{
    (void)unused;
    return PyLong_FromVoidPtr(self->res);
}

static PyObject *graphics_mapped(PccGraphics *self, void *unused)
{
    (void)unused;
    return PyBool_FromLong(self->mapped);
}

static PyObject *graphics_maps(PccGraphics *self, void *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(self->maps);
}

/* _gl_check(): None when OpenGL interop can work here, else the LogicError
 * that says why (pycudac.gl.init). */
static PyObject *gl_check(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    if (gl_ready() < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* _gl_devices(): the Devices of the GL context current in this thread
 * (cuGLGetDevices, CU_GL_DEVICE_LIST_ALL). */
static PyObject *gl_devices(PyObject *mod, PyObject *unused)
{
    (void)mod, (void)unused;
    if (gl_ready() < 0)
        return NULL;
    if (pcc_need_entry((void *)pcc_drv.cuGLGetDevices, "cuGLGetDevices") < 0)
        return NULL;
    CUdevice devs[64];
    unsigned int n = 0;
    if (pcc_check(pcc_drv.cuGLGetDevices(&n, devs, 64, CU_GL_DEVICE_LIST_ALL),
                  "cuGLGetDevices") < 0)
        return NULL;
    if (n > 64)
        n = 64;
    PyObject *out = PyList_New(n);
    for (unsigned int i = 0; out != NULL && i < n; i++) {
        PyObject *d = pcc_device_new(devs[i]);
        if (d == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, d);
    }
    return out;
}

static PyMethodDef graphics_methods[] = {
    {"map", (PyCFunction)(void (*)(void))graphics_map, METH_VARARGS | METH_KEYWORDS,
     "map(stream=None) -> int: map for CUDA (cuGraphicsMapResources); the mapping's number."},
    {"unmap", (PyCFunction)(void (*)(void))graphics_unmap, METH_VARARGS | METH_KEYWORDS,
     "unmap(stream=None): give it back to GL; the mapping's arrays become unusable."},
    {"mapped_pointer", (PyCFunction)graphics_pointer, METH_NOARGS,
     "mapped_pointer() -> (address, bytes): a mapped buffer's device memory."},
    {"mapped_array", (PyCFunction)graphics_array, METH_VARARGS,
     "mapped_array(index, level, type) -> Array: a mapped image's layer or face and mip "
     "level, an Array of `type` owned by the mapping."},
    {"set_map_flags", (PyCFunction)graphics_set_map_flags, METH_O,
     "set_map_flags(flags): graphics_map_flags for the next map."},
    {"unregister", (PyCFunction)graphics_unregister, METH_NOARGS,
     "unregister(): cuGraphicsUnregisterResource now (refused while mapped)."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef graphics_members[] = {
    {"is_image", T_INT, offsetof(PccGraphics, is_image), READONLY,
     "1 for a texture or renderbuffer, 0 for a buffer object."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccGraphics, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef graphics_getset[] = {
    {"handle", (getter)graphics_handle, NULL, "The CUgraphicsResource as an int (0 once "
     "unregistered).", NULL},
    {"mapped", (getter)graphics_mapped, NULL, "Whether it is mapped for CUDA now.", NULL},
    {"map_count", (getter)graphics_maps, NULL, "How many times it was mapped.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot graphics_slots[] = {
    {Py_tp_doc, "GraphicsResource(is_image, name, target, flags): a GL buffer object or "
                "image registered with CUDA; pycudac.gl gives it PyCUDA's names."},
    {Py_tp_new, graphics_new},
    {Py_tp_dealloc, graphics_dealloc},
    {Py_tp_methods, graphics_methods},
    {Py_tp_members, graphics_members},
    {Py_tp_getset, graphics_getset},
    {0, NULL}};

static PyType_Spec graphics_spec = {
    .name = "pycudac._driver.GraphicsResource",
    .basicsize = sizeof(PccGraphics),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = graphics_slots,
};

static PyMethodDef module_functions[] = {
    {"_gl_check", gl_check, METH_NOARGS,
     "_gl_check(): None when OpenGL interop can work here, else LogicError saying why."},
    {"_gl_devices", gl_devices, METH_NOARGS,
     "_gl_devices() -> [Device]: the devices of the current GL context (cuGLGetDevices)."},
    {NULL, NULL, 0, NULL}};

int pcc_graphics_init(PyObject *module)
{
    pcc_st.GraphicsResource = (PyTypeObject *)PyType_FromSpec(&graphics_spec);
    if (pcc_st.GraphicsResource == NULL ||
        PyModule_AddObjectRef(module, "GraphicsResource", (PyObject *)pcc_st.GraphicsResource) <
            0 ||
        PyModule_AddFunctions(module, module_functions) < 0)
        return -1;
    return 0;
}
