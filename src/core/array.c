/*
 * core/array.c — CUDA arrays (cuArray3DCreate), their copies to and from
 * host and device memory (cuMemcpy3D), texture objects over an array or
 * linear memory (cuTexObjectCreate) and surface objects over an array
 * (cuSurfObjectCreate). Each object owns one handle, made and freed in its
 * context; a texture or surface object holds what it reads.
 *
 * These are the raw types; pycudac/_textures.py gives them PyCUDA's and
 * CuPy's shapes (ArrayDescriptor, np_to_array, TextureObject(...) with
 * keyword modes) and checks the arguments first.
 */
#include "core/array.h"

#include "core/capture.h"
#include "driver/loader.h"
#include "structmember.h"

/* ---- Array ---------------------------------------------------------------------------------- */

static PyObject *array_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"width", "height", "depth", "format", "num_channels", "flags", NULL};
    Py_ssize_t w, h, d;
    int format;
    unsigned int nch, flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nnniI|I:Array", kwlist, &w, &h, &d, &format,
                                     &nch, &flags))
        return NULL;
    if (pcc_array_format_bytes(format) == 0) {
        PyErr_Format(PyExc_ValueError, "Array: format must be an array_format, got %d", format);
        return NULL;
    }
    if (nch != 1 && nch != 2 && nch != 4) {
        PyErr_Format(PyExc_ValueError, "Array: num_channels must be 1, 2 or 4, got %u", nch);
        return NULL;
    }
    if (w <= 0 || h < 0 || d < 0) {
        PyErr_Format(PyExc_ValueError, "Array: width must be positive and height, depth not "
                     "negative, got %zd x %zd x %zd", w, h, d);
        return NULL;
    }
    if (flags & ~(unsigned)(CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST)) {
        PyErr_Format(PyExc_ValueError, "Array: flags must combine LAYERED and SURFACE_LDST, "
                     "got %u", flags);
        return NULL;
    }
    PyObject *ctx = pcc_ctx_for_new();
    if (ctx == NULL)
        return NULL;
    if (pcc_need_entry((void *)pcc_drv.cuArray3DCreate, "cuArray3DCreate") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    CUDA_ARRAY3D_DESCRIPTOR desc = {(size_t)w, (size_t)h, (size_t)d, format, nch, flags};
    CUarray a = NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuArray3DCreate(&a, &desc);
    Py_END_ALLOW_THREADS
    if (pcc_check(rc, "cuArray3DCreate") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccArray *self = (PccArray *)pcc_handle_alloc(type, ctx);
    if (self == NULL) {
        pcc_drv.cuArrayDestroy(a);
        return NULL;
    }
    self->array = a;
    self->desc = desc;
    self->esize = pcc_array_format_bytes(format) * nch;
    return (PyObject *)self;
}

/* pcc_deferred's release for an array the collector freed during a capture. */
static void array_release_deferred(pcc_deferred *d)
{
    CUresult rc = CUDA_SUCCESS;
    PCC_FREE_IN_CONTEXT(d->context, rc, pcc_drv.cuArrayDestroy((CUarray)d->ptr));
    (void)rc;
}

/* Frees the array in its context; from the collector during a stream
 * capture (which cuArrayDestroy would break), once the capture is over. */
static void array_release(PyObject *op)
{
    PccArray *self = (PccArray *)op;
    CUresult rc = CUDA_SUCCESS;
    if (self->array != NULL && !self->borrowed && !pcc_skip_free()) {
        pcc_deferred *d = pcc_capture_defer(array_release_deferred, self->context);
        if (d != NULL)
            d->ptr = self->array;
        else
            PCC_FREE_IN_CONTEXT(self->context, rc, pcc_drv.cuArrayDestroy(self->array));
    }
    (void)rc; /* never raise from dealloc */
    self->array = NULL;
}

PyObject *pcc_array_borrow(PyTypeObject *type, PyObject *context, CUarray a)
{
    if (!PyType_IsSubtype(type, pcc_st.Array)) {
        Py_DECREF(context);
        PyErr_Format(PyExc_TypeError, "an Array type was expected, got %.100s", type->tp_name);
        return NULL;
    }
    if (pcc_need_entry((void *)pcc_drv.cuArray3DGetDescriptor, "cuArray3DGetDescriptor") < 0) {
        Py_DECREF(context);
        return NULL;
    }
    CUDA_ARRAY3D_DESCRIPTOR desc;
    memset(&desc, 0, sizeof desc);
    if (pcc_check(pcc_drv.cuArray3DGetDescriptor(&desc, a), "cuArray3DGetDescriptor") < 0) {
        Py_DECREF(context);
        return NULL;
    }
    PccArray *self = (PccArray *)pcc_handle_alloc(type, context);
    if (self == NULL)
        return NULL;
    self->array = a;
    self->desc = desc;
    self->esize = pcc_array_format_bytes(desc.Format) * desc.NumChannels;
    self->borrowed = 1;
    return (PyObject *)self;
}

static void array_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, array_release);
}

static PyObject *array_free(PyObject *op, PyObject *unused)
{
    (void)unused;
    PccArray *self = (PccArray *)op;
    if (self->users > 0) {
        /* a kernel would read freed memory through them (a sticky 700) */
        PyErr_Format(pcc_st.LogicError, "Array.free: %zd texture or surface object(s) still "
                     "read this array; drop them first (the array is freed with the last)",
                     self->users);
        return NULL;
    }
    array_release(op);
    Py_RETURN_NONE;
}

static int live_array(PccArray *self, const char *what)
{
    if (self->array != NULL)
        return 0;
    PyErr_Format(pcc_st.LogicError, "Array.%s: the array was freed (or, for an array of a "
                 "mapped graphics resource, unmapped)", what);
    return -1;
}

/* _copy(to_array, obj): the whole array from or to obj, a host buffer of
 * exactly its bytes (C order: rows of width elements) or a device address
 * (an int) of as many bytes. */
static PyObject *array_copy(PccArray *self, PyObject *args)
{
    int to_array;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "pO:_copy", &to_array, &obj) || live_array(self, "_copy") < 0 ||
        pcc_need_entry((void *)pcc_drv.cuMemcpy3D, "cuMemcpy3D") < 0)
        return NULL;
    const CUDA_ARRAY3D_DESCRIPTOR *d = &self->desc;
    size_t rows = d->Height ? d->Height : 1, slices = d->Depth ? d->Depth : 1;
    size_t row = d->Width * self->esize;
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.WidthInBytes = row;
    c.Height = rows;
    c.Depth = slices;
    Py_buffer view = {0};
    int host = !PyLong_Check(obj);
    CUdeviceptr dev = 0;
    if (host) {
        if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | (to_array ? 0 : PyBUF_WRITABLE)) < 0)
            return NULL;
        if ((size_t)view.len != row * rows * slices) {
            PyErr_Format(PyExc_ValueError, "Array: the host buffer has %zd bytes, the array %zu",
                         view.len, row * rows * slices);
            PyBuffer_Release(&view);
            return NULL;
        }
    } else {
        dev = (CUdeviceptr)PyLong_AsUnsignedLongLong(obj);
        if (PyErr_Occurred())
            return NULL;
    }
    if (to_array) {
        c.srcMemoryType = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        c.srcHost = view.buf;
        c.srcDevice = dev;
        c.srcPitch = row;
        c.srcHeight = rows;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = self->array;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = self->array;
        c.dstMemoryType = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        c.dstHost = view.buf;
        c.dstDevice = dev;
        c.dstPitch = row;
        c.dstHeight = rows;
    }
    pcc_ctx_guard g;
    if (pcc_ctx_use(self->context, &g, "Array copy") < 0) {
        if (host)
            PyBuffer_Release(&view);
        return NULL;
    }
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuMemcpy3D(&c);
    Py_END_ALLOW_THREADS
    pcc_ctx_leave(&g);
    if (host)
        PyBuffer_Release(&view);
    if (pcc_check(rc, "cuMemcpy3D") < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *array_handle(PccArray *self, void *unused)
{
    (void)unused;
    return PyLong_FromVoidPtr(self->array);
}

static PyMethodDef array_methods[] = {
    {"free", array_free, METH_NOARGS, "Free the array now (the object stays, unusable)."},
    {"_copy", (PyCFunction)array_copy, METH_VARARGS,
     "_copy(to_array, obj): the whole array from or to a host buffer or a device address."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef array_members[] = {
    {"width", T_PYSSIZET, offsetof(PccArray, desc.Width), READONLY, "Elements in a row."},
    {"height", T_PYSSIZET, offsetof(PccArray, desc.Height), READONLY, "Rows (0: 1D)."},
    {"depth", T_PYSSIZET, offsetof(PccArray, desc.Depth), READONLY,
     "Slices, or layers of a layered array (0: 1D or 2D)."},
    {"format", T_INT, offsetof(PccArray, desc.Format), READONLY, "The array_format value."},
    {"num_channels", T_UINT, offsetof(PccArray, desc.NumChannels), READONLY, "1, 2 or 4."},
    {"flags", T_UINT, offsetof(PccArray, desc.Flags), READONLY, "array3d_flags."},
    {"itemsize", T_PYSSIZET, offsetof(PccArray, esize), READONLY, "Bytes of an element."},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccArray, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef array_getset[] = {
    {"handle", (getter)array_handle, NULL, "The CUarray as an int (0 once freed).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot array_slots[] = {
    {Py_tp_doc, "Array(width, height, depth, format, num_channels, flags=0): a CUDA array "
                "(cuArray3DCreate); pycudac.driver.Array takes a descriptor."},
    {Py_tp_new, array_new},
    {Py_tp_dealloc, array_dealloc},
    {Py_tp_methods, array_methods},
    {Py_tp_members, array_members},
    {Py_tp_getset, array_getset},
    {0, NULL}};

static PyType_Spec array_spec = {
    .name = "pycudac._driver.Array",
    .basicsize = sizeof(PccArray),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = array_slots,
};

/* ---- Memcpy2D / Memcpy3D (pycudac/_textures.py) ------------------------------------------- */

/* One side of _memcpy3d: kind 1 host (a buffer), 2 device (an int), 3 an
 * Array, with its origin and, for linear memory, pitch and height. */
typedef struct {
    int kind;
    PyObject *obj;
    unsigned long long x, y, z, pitch, height;
} copy_side;

/* One side's (kind, obj, x, y, z, pitch, height): the offsets and sizes
 * non-negative (a negative one, wrapped, would pass the bounds check of a
 * host buffer and copy outside it). 1, or 0 with an exception. */
static int side_arg(PyObject *t, copy_side *s)
{
    long long v[5];
    if (!PyArg_ParseTuple(t, "iOLLLLL", &s->kind, &s->obj, &v[0], &v[1], &v[2], &v[3], &v[4]))
        return 0;
    static const char *const names[5] = {"x_in_bytes", "y", "z", "pitch", "height"};
    for (int k = 0; k < 5; k++)
        if (v[k] < 0) {
            PyErr_Format(PyExc_ValueError, "_memcpy3d: %s must be non-negative, not %lld",
                         names[k], v[k]);
            return 0;
        }
    s->x = (unsigned long long)v[0];
    s->y = (unsigned long long)v[1];
    s->z = (unsigned long long)v[2];
    s->pitch = (unsigned long long)v[3];
    s->height = (unsigned long long)v[4];
    return 1;
}

/* Fills one side of c; a host side's buffer into *view (released by the
 * caller when view->obj is set). Host memory is checked against the box:
 * the driver would read or write past a short buffer. */
static int side_fill(const copy_side *s, int dst, CUDA_MEMCPY3D *c, Py_buffer *view,
                     const char *which)
{
    size_t w = c->WidthInBytes, h = c->Height, d = c->Depth;
    size_t *xp = dst ? &c->dstXInBytes : &c->srcXInBytes, *yp = dst ? &c->dstY : &c->srcY,
           *zp = dst ? &c->dstZ : &c->srcZ, *pp = dst ? &c->dstPitch : &c->srcPitch,
           *hp = dst ? &c->dstHeight : &c->srcHeight;
    int *type = dst ? &c->dstMemoryType : &c->srcMemoryType;
    *xp = (size_t)s->x;
    *yp = (size_t)s->y;
    *zp = (size_t)s->z;
    *pp = (size_t)s->pitch;
    *hp = (size_t)s->height;
    if (s->kind == CU_MEMORYTYPE_ARRAY) {
        if (!PyObject_TypeCheck(s->obj, pcc_st.Array) || live_array((PccArray *)s->obj, which) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "%s: expected an Array", which);
            return -1;
        }
        *type = CU_MEMORYTYPE_ARRAY;
        if (dst)
            c->dstArray = ((PccArray *)s->obj)->array;
        else
            c->srcArray = ((PccArray *)s->obj)->array;
        return 0;
    }
    /* the driver's rules: pitch >= x + width; a height (needed from the
     * second slice on, else 0 may stay) >= y + height */
    size_t pitch = *pp ? *pp : *xp + w, rows = *hp ? *hp : *yp + h;
    if (pitch < *xp + w || ((d > 1 || *zp > 0) && rows < *yp + h)) {
        PyErr_Format(PyExc_ValueError, "%s: the pitch (%zu) must be at least x + width_in_bytes "
                     "(%zu), and the height (%zu) at least y + height (%zu)", which, pitch,
                     *xp + w, rows, *yp + h);
        return -1;
    }
    *pp = pitch;
    if (d > 1 || *zp > 0)
        *hp = rows;
    if (s->kind == CU_MEMORYTYPE_DEVICE) {
        *type = CU_MEMORYTYPE_DEVICE;
        unsigned long long p = PyLong_AsUnsignedLongLong(s->obj);
        if (PyErr_Occurred())
            return -1;
        if (dst)
            c->dstDevice = p;
        else
            c->srcDevice = p;
        return 0;
    }
    if (PyObject_GetBuffer(s->obj, view, PyBUF_SIMPLE | (dst ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    size_t end = (*zp + d - 1) * pitch * rows + (*yp + h - 1) * pitch + *xp + w;
    if (end > (size_t)view->len) {
        PyErr_Format(PyExc_ValueError, "%s: the copy reaches byte %zu of a %zd-byte host buffer",
                     which, end, view->len);
        return -1;
    }
    *type = CU_MEMORYTYPE_HOST;
    if (dst)
        c->dstHost = view->buf;
    else
        c->srcHost = view->buf;
    return 0;
}

/* _memcpy3d(src, dst, width_in_bytes, height, depth): src and dst are
 * (kind, obj, x_in_bytes, y, z, pitch, height) tuples. */
static PyObject *memcpy3d(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *st, *dt;
    unsigned long long w, h, d;
    copy_side src, dst;
    if (!PyArg_ParseTuple(args, "O!O!KKK:_memcpy3d", &PyTuple_Type, &st, &PyTuple_Type, &dt, &w,
                          &h, &d) ||
        !side_arg(st, &src) || !side_arg(dt, &dst) || pcc_ready() < 0 ||
        pcc_need_entry((void *)pcc_drv.cuMemcpy3D, "cuMemcpy3D") < 0)
        return NULL;
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.WidthInBytes = (size_t)w;
    c.Height = (size_t)(h ? h : 1);
    c.Depth = (size_t)(d ? d : 1);
    Py_buffer sv = {0}, dv = {0};
    PyObject *ret = NULL;
    /* in an array's context (the copy's), else the thread's own (autoinit) */
    PyObject *ctx = src.kind == CU_MEMORYTYPE_ARRAY && PyObject_TypeCheck(src.obj, pcc_st.Array)
                        ? ((PccArray *)src.obj)->context
                    : dst.kind == CU_MEMORYTYPE_ARRAY && PyObject_TypeCheck(dst.obj, pcc_st.Array)
                        ? ((PccArray *)dst.obj)->context
                        : NULL;
    pcc_ctx_guard g;
    int entered = 0;
    if (ctx != NULL) {
        if (pcc_ctx_enter(ctx, &g) < 0)
            return NULL;
        entered = 1;
    } else if (pcc_context_ensure() < 0) {
        return NULL;
    }
    if (side_fill(&src, 0, &c, &sv, "Memcpy (source)") < 0 ||
        side_fill(&dst, 1, &c, &dv, "Memcpy (destination)") < 0)
        goto done;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuMemcpy3D(&c);
    Py_END_ALLOW_THREADS
    if (pcc_check(rc, "cuMemcpy3D") < 0)
        goto done;
    ret = Py_None;
    Py_INCREF(ret);
done:
    if (entered)
        pcc_ctx_leave(&g);
    if (sv.obj)
        PyBuffer_Release(&sv);
    if (dv.obj)
        PyBuffer_Release(&dv);
    return ret;
}

static PyMethodDef module_functions[] = {
    {"_memcpy3d", memcpy3d, METH_VARARGS,
     "_memcpy3d(src, dst, width_in_bytes, height, depth): cuMemcpy3D (Memcpy2D/3D's call)."},
    {NULL, NULL, 0, NULL}};

/* ---- TextureObject, SurfaceObject -------------------------------------------------------------- */

/* A 3- or 4-tuple of numbers into out (n of them). */
static int numbers(PyObject *seq, int n, int as_int, int *iout, float *fout, const char *what)
{
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_TypeError, "TextureObject: %s must be a tuple of %d", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(seq, i);
        if (as_int) {
            iout[i] = (int)PyLong_AsLong(x);
        } else {
            fout[i] = (float)PyFloat_AsDouble(x);
        }
        if (PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* A texture (tex != NULL) or surface object over res, made in the context
 * of the Array it reads (else the current one), holding `source`; an Array
 * source counts it among its users. */
static PyObject *obj_new(PyTypeObject *type, PyObject *source, const CUDA_RESOURCE_DESC *res,
                         const CUDA_TEXTURE_DESC *tex)
{
    int is_array = PyObject_TypeCheck(source, pcc_st.Array);
    PyObject *ctx;
    if (is_array)
        ctx = Py_NewRef(((PccArray *)source)->context);
    else if ((ctx = pcc_ctx_for_new()) == NULL)
        return NULL;
    pcc_ctx_guard g;
    if (pcc_ctx_enter(ctx, &g) < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    unsigned long long h = 0;
    CUresult rc = tex ? pcc_drv.cuTexObjectCreate(&h, res, tex, NULL)
                      : pcc_drv.cuSurfObjectCreate(&h, res);
    pcc_ctx_leave(&g);
    if (pcc_check(rc, tex ? "cuTexObjectCreate" : "cuSurfObjectCreate") < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PccTexObject *self = (PccTexObject *)pcc_handle_alloc(type, ctx);
    if (self == NULL) {
        PCC_FREE_IN_CONTEXT(ctx, rc, tex ? pcc_drv.cuTexObjectDestroy(h)
                                         : pcc_drv.cuSurfObjectDestroy(h));
        return NULL;
    }
    self->handle = h;
    self->source = Py_NewRef(source);
    if (is_array)
        ((PccArray *)source)->users++;
    return (PyObject *)self;
}

static PyObject *tex_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"source", "address_modes", "filter_mode", "flags", "border_color",
                             "linear", NULL};
    PyObject *source, *modes, *border, *linear = Py_None;
    int filter;
    unsigned int flags;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOiIO|O:TextureObject", kwlist, &source, &modes,
                                     &filter, &flags, &border, &linear))
        return NULL;
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    memset(&res, 0, sizeof res);
    memset(&tex, 0, sizeof tex);
    if (numbers(modes, 3, 1, tex.addressMode, NULL, "address_modes") < 0 ||
        numbers(border, 4, 0, NULL, tex.borderColor, "border_color") < 0)
        return NULL;
    tex.filterMode = filter;
    tex.flags = flags;
    if (linear == Py_None) {
        if (!PyObject_TypeCheck(source, pcc_st.Array)) {
            PyErr_Format(PyExc_TypeError, "TextureObject: source must be an Array (or linear "
                         "memory with linear=(address, format, channels, bytes)), got %.100s",
                         Py_TYPE(source)->tp_name);
            return NULL;
        }
        if (live_array((PccArray *)source, "TextureObject") < 0)
            return NULL;
        res.resType = CU_RESOURCE_TYPE_ARRAY;
        res.res.array.hArray = ((PccArray *)source)->array;
    } else {
        unsigned long long ptr, bytes;
        int format;
        unsigned int nch;
        if (!PyArg_ParseTuple(linear, "KiIK:TextureObject(linear)", &ptr, &format, &nch, &bytes))
            return NULL;
        res.resType = CU_RESOURCE_TYPE_LINEAR;
        res.res.linear.devPtr = ptr;
        res.res.linear.format = format;
        res.res.linear.numChannels = nch;
        res.res.linear.sizeInBytes = (size_t)bytes;
    }
    if (pcc_need_entry((void *)pcc_drv.cuTexObjectCreate, "cuTexObjectCreate") < 0)
        return NULL;
    return obj_new(type, source, &res, &tex);
}

static PyObject *surf_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"array", NULL};
    PyObject *source;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!:SurfaceObject", kwlist, pcc_st.Array,
                                     &source) ||
        live_array((PccArray *)source, "SurfaceObject") < 0)
        return NULL;
    CUDA_RESOURCE_DESC res;
    memset(&res, 0, sizeof res);
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = ((PccArray *)source)->array;
    if (pcc_need_entry((void *)pcc_drv.cuSurfObjectCreate, "cuSurfObjectCreate") < 0)
        return NULL;
    return obj_new(type, source, &res, NULL);
}

/* The driver does not promise to wait for kernels still queued that read
 * through the object, so a destroy waits for the context's work first. */
static CUresult sync_then(CUresult (*destroy)(unsigned long long), unsigned long long h)
{
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuCtxSynchronize();
    Py_END_ALLOW_THREADS
    (void)rc; /* a failed launch's error belongs to the caller's next call */
    return destroy(h);
}

/* The source no longer read by one object: an Array's users count. */
static void drop_source(PyObject *source)
{
    if (source != NULL && PyObject_TypeCheck(source, pcc_st.Array))
        ((PccArray *)source)->users--;
    Py_XDECREF(source);
}

/* pcc_deferred's release: an object the collector freed during a capture
 * (kind 0 texture, 1 surface), destroyed once no capture is in progress;
 * d->keep is its source, held until then. */
static void obj_release_deferred(pcc_deferred *d)
{
    CUresult rc = CUDA_SUCCESS;
    PCC_FREE_IN_CONTEXT(d->context, rc,
                        sync_then(d->kind ? pcc_drv.cuSurfObjectDestroy : pcc_drv.cuTexObjectDestroy,
                                  (unsigned long long)d->dptr));
    (void)rc;
    drop_source(d->keep);
    d->keep = NULL;
}

static void tex_release_with(PyObject *op, CUresult (*destroy)(unsigned long long), int kind)
{
    PccTexObject *self = (PccTexObject *)op;
    CUresult rc = CUDA_SUCCESS;
    if (self->handle != 0 && destroy != NULL && !pcc_skip_free()) {
        /* a context synchronize and a destroy break a stream capture */
        pcc_deferred *d = pcc_capture_defer(obj_release_deferred, self->context);
        if (d != NULL) {
            d->dptr = self->handle;
            d->kind = kind;
            d->keep = self->source; /* its reference moves to d */
            self->source = NULL;
        } else {
            PCC_FREE_IN_CONTEXT(self->context, rc, sync_then(destroy, self->handle));
        }
    }
    (void)rc;
    self->handle = 0;
    PyObject *source = self->source; /* after the object: it reads the source */
    self->source = NULL;
    drop_source(source);
}

static void tex_release(PyObject *op)
{
    tex_release_with(op, pcc_drv.cuTexObjectDestroy, 0);
}

static void surf_release(PyObject *op)
{
    tex_release_with(op, pcc_drv.cuSurfObjectDestroy, 1);
}

static void tex_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, tex_release);
}

static void surf_dealloc(PyObject *op)
{
    pcc_handle_dealloc(op, surf_release);
}

static PyObject *tex_handle(PccTexObject *self, void *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(self->handle);
}

static PyObject *tex_source(PccTexObject *self, void *unused)
{
    (void)unused;
    PyObject *r = self->source ? self->source : Py_None;
    Py_INCREF(r);
    return r;
}

static PyMemberDef tex_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PccTexObject, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef tex_getset[] = {
    {"handle", (getter)tex_handle, NULL, "The object's 64-bit handle, as a kernel gets it.",
     NULL},
    {"source", (getter)tex_source, NULL, "What it reads: the Array, or the linear memory's owner.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot tex_slots[] = {
    {Py_tp_doc, "TextureObject(source, address_modes, filter_mode, flags, border_color, "
                "linear=None): a texture object (cuTexObjectCreate), passed to kernels for "
                "cudaTextureObject_t; pycudac.driver.TextureObject takes keywords."},
    {Py_tp_new, tex_new},
    {Py_tp_dealloc, tex_dealloc},
    {Py_tp_members, tex_members},
    {Py_tp_getset, tex_getset},
    {0, NULL}};

static PyType_Slot surf_slots[] = {
    {Py_tp_doc, "SurfaceObject(array): a surface object (cuSurfObjectCreate) over an Array "
                "made with SURFACE_LDST, passed to kernels for cudaSurfaceObject_t."},
    {Py_tp_new, surf_new},
    {Py_tp_dealloc, surf_dealloc},
    {Py_tp_members, tex_members},
    {Py_tp_getset, tex_getset},
    {0, NULL}};

static PyType_Spec tex_spec = {
    .name = "pycudac._driver.TextureObject",
    .basicsize = sizeof(PccTexObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = tex_slots,
};

static PyType_Spec surf_spec = {
    .name = "pycudac._driver.SurfaceObject",
    .basicsize = sizeof(PccTexObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = surf_slots,
};

int pcc_array_init(PyObject *module)
{
    pcc_st.Array = (PyTypeObject *)PyType_FromSpec(&array_spec);
    pcc_st.TextureObject = (PyTypeObject *)PyType_FromSpec(&tex_spec);
    pcc_st.SurfaceObject = (PyTypeObject *)PyType_FromSpec(&surf_spec);
    if (pcc_st.Array == NULL || pcc_st.TextureObject == NULL || pcc_st.SurfaceObject == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "Array", (PyObject *)pcc_st.Array) < 0 ||
        PyModule_AddObjectRef(module, "TextureObject", (PyObject *)pcc_st.TextureObject) < 0 ||
        PyModule_AddObjectRef(module, "SurfaceObject", (PyObject *)pcc_st.SurfaceObject) < 0 ||
        PyModule_AddFunctions(module, module_functions) < 0)
        return -1;
    return 0;
}
