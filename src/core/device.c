/*
 * core/device.c — Device objects (one CUdevice each), init() and
 * get_driver_version(). A Device is a plain value: it owns no driver
 * resource, so it needs no context and frees nothing.
 */
#include <string.h>

#include "driver/loader.h"
#include "core/context.h"
#include "core/memory.h"
#include "structmember.h"

/* pycudac.driver.device_attribute (new reference), which the package
 * registers at import. */
static PyObject *device_attribute_enum(void)
{
    if (pcc_st.device_attribute == NULL) {
        PyErr_SetString(PyExc_ImportError, "pycudac.driver has not registered device_attribute "
                                           "(import pycudac.driver first)");
        return NULL;
    }
    return Py_NewRef(pcc_st.device_attribute);
}

PyObject *pcc_device_new(CUdevice dev)
{
    PccDevice *self = PyObject_New(PccDevice, pcc_st.Device);
    if (self == NULL)
        return NULL;
    self->dev = dev;
    self->ordinal = (int)dev;
    return (PyObject *)self;
}

/* The CUdevice of `arg` (an ordinal), or -1 with the exception set; `who`
 * names the call in the message. */
static int device_of_ordinal(PyObject *arg, const char *who, CUdevice *dev)
{
    if (PyFloat_Check(arg) || !PyIndex_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "%s: ordinal must be an int, not %.100s", who,
                     Py_TYPE(arg)->tp_name);
        return -1;
    }
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (pcc_ready() < 0)
        return -1;
    int count = 0;
    if (pcc_check(pcc_drv.cuDeviceGetCount(&count), "cuDeviceGetCount") < 0)
        return -1;
    if (n < 0 || n >= count) {
        PyErr_Format(PyExc_ValueError,
                     "%s: ordinal %ld is out of range: %d device%s present "
                     "(valid: 0..%d)",
                     who, n, count, count == 1 ? " is" : "s are", count - 1);
        return -1;
    }
    return pcc_check(pcc_drv.cuDeviceGet(dev, (int)n), "cuDeviceGet") < 0 ? -1 : (int)n;
}

/* Device(ordinal)'s arguments: binds `self` to that device. 0 or -1. */
static int device_bind(PyObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"ordinal", NULL};
    PyObject *arg;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:Device", kwlist, &arg))
        return -1;
    CUdevice dev;
    int n = device_of_ordinal(arg, "Device(ordinal)", &dev);
    if (n < 0)
        return -1;
    ((PccDevice *)self)->dev = dev;
    ((PccDevice *)self)->ordinal = n;
    return 0;
}

static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *self = type->tp_alloc(type, 0);
    if (self != NULL && device_bind(self, args, kwds) < 0)
        Py_CLEAR(self);
    return self;
}

/* PyCUDA's Device is a class to derive from: a subclass's __init__ calls
 * Device.__init__(self, ordinal) (reikna's cluda.cuda.Device does), which
 * (re)binds the object to that device, as Boost.Python's constructor does. */
static int device_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    return device_bind(self, args, kwds);
}

static void device_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *device_count(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    int n = 0;
    if (pcc_check(pcc_drv.cuDeviceGetCount(&n), "cuDeviceGetCount") < 0)
        return NULL;
    return PyLong_FromLong(n);
}

static PyObject *device_name(PccDevice *self, PyObject *unused)
{
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    char buf[256];
    memset(buf, 0, sizeof buf);
    if (pcc_check(pcc_drv.cuDeviceGetName(buf, (int)sizeof buf - 1, self->dev),
                  "cuDeviceGetName") < 0)
        return NULL;
    return PyUnicode_DecodeUTF8(buf, (Py_ssize_t)strlen(buf), "replace");
}

CUresult pcc_device_cc(CUdevice dev, int *major, int *minor)
{
    CUresult rc =
        pcc_drv.cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    return rc != CUDA_SUCCESS ? rc
                              : pcc_drv.cuDeviceGetAttribute(
                                    minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
}

static PyObject *device_compute_capability(PccDevice *self, PyObject *unused)
{
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    int major, minor;
    if (pcc_check(pcc_device_cc(self->dev, &major, &minor), "cuDeviceGetAttribute") < 0)
        return NULL;
    return Py_BuildValue("(ii)", major, minor);
}

static PyObject *device_total_memory(PccDevice *self, PyObject *unused)
{
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    size_t bytes = 0;
    if (pcc_check(pcc_drv.cuDeviceTotalMem(&bytes, self->dev), "cuDeviceTotalMem") < 0)
        return NULL;
    return PyLong_FromSize_t(bytes);
}

static PyObject *device_get_attribute(PccDevice *self, PyObject *attr)
{
    if (PyFloat_Check(attr) || !PyIndex_Check(attr)) {
        PyErr_Format(PyExc_TypeError,
                     "get_attribute(attr): attr must be a driver.device_attribute member or an "
                     "int, not %.100s",
                     Py_TYPE(attr)->tp_name);
        return NULL;
    }
    long a = PyLong_AsLong(attr);
    if (a == -1 && PyErr_Occurred())
        return NULL;
    if (a < 0 || a > 0x7fffffff) {
        PyErr_Format(PyExc_ValueError, "get_attribute(attr): %ld is not a device attribute", a);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    int v = 0;
    CUresult rc = pcc_drv.cuDeviceGetAttribute(&v, (int)a, self->dev);
    if (rc == CUDA_ERROR_INVALID_VALUE) { /* (the device is valid: the number is not) */
        PyErr_Format(PyExc_ValueError, "get_attribute(attr): %ld is not a device attribute "
                     "this driver knows (see driver.device_attribute)", a);
        return NULL;
    }
    if (pcc_check(rc, "cuDeviceGetAttribute") < 0)
        return NULL;
    return PyLong_FromLong(v);
}

/* {device_attribute member: value} for every attribute the driver answers. */
static PyObject *device_get_attributes(PccDevice *self, PyObject *unused)
{
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    PyObject *result = NULL, *it = NULL, *member = NULL;
    PyObject *en = device_attribute_enum();
    if (en == NULL)
        return NULL;
    result = PyDict_New();
    if (result == NULL || (it = PyObject_GetIter(en)) == NULL)
        goto error;
    while ((member = PyIter_Next(it)) != NULL) {
        long a = PyLong_AsLong(member);
        if (a == -1 && PyErr_Occurred())
            goto error;
        int v = 0;
        CUresult rc = pcc_drv.cuDeviceGetAttribute(&v, (int)a, self->dev);
        if (rc == CUDA_SUCCESS) {
            PyObject *pv = PyLong_FromLong(v);
            if (pv == NULL || PyDict_SetItem(result, member, pv) < 0) {
                Py_XDECREF(pv);
                goto error;
            }
            Py_DECREF(pv);
        } else if (rc != CUDA_ERROR_INVALID_VALUE && rc != CUDA_ERROR_NOT_SUPPORTED) {
            pcc_raise(rc, "cuDeviceGetAttribute");
            goto error;
        } /* else: this driver does not know the attribute — leave it out */
        Py_CLEAR(member);
    }
    if (PyErr_Occurred())
        goto error;
    Py_DECREF(it);
    Py_DECREF(en);
    return result;
error:
    Py_XDECREF(member);
    Py_XDECREF(it);
    Py_XDECREF(result);
    Py_DECREF(en);
    return NULL;
}

static PyObject *device_pci_bus_id(PccDevice *self, PyObject *unused)
{
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    char buf[64];
    memset(buf, 0, sizeof buf);
    if (pcc_check(pcc_drv.cuDeviceGetPCIBusId(buf, (int)sizeof buf - 1, self->dev),
                  "cuDeviceGetPCIBusId") < 0)
        return NULL;
    return PyUnicode_FromString(buf);
}

static PyObject *device_can_access_peer(PccDevice *self, PyObject *other)
{
    if (!PyObject_TypeCheck(other, pcc_st.Device)) {
        PyErr_Format(PyExc_TypeError, "can_access_peer(dev): dev must be a Device, not %.100s",
                     Py_TYPE(other)->tp_name);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    int can = 0;
    if (pcc_check(pcc_drv.cuDeviceCanAccessPeer(&can, self->dev, ((PccDevice *)other)->dev),
                  "cuDeviceCanAccessPeer") < 0)
        return NULL;
    return PyBool_FromLong(can);
}

static PyObject *device_retain_primary_context(PccDevice *self, PyObject *unused)
{
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    CUcontext ctx = NULL;
    if (pcc_check(pcc_drv.cuDevicePrimaryCtxRetain(&ctx, self->dev),
                  "cuDevicePrimaryCtxRetain") < 0)
        return NULL;
    return pcc_context_wrap(ctx, self->dev, PCC_CTX_PRIMARY);
}

static PyObject *device_make_context(PccDevice *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:make_context", kwlist, pcc_flags_arg, &flags))
        return NULL;
    /* CU_CTX_FLAGS_MASK: the driver's answer to another bit names nothing */
    if (flags & ~0xffu) {
        PyErr_Format(PyExc_ValueError, "make_context(flags): %u has bits that are not "
                     "driver.ctx_flags (0x%x outside FLAGS_MASK = 0xff)", flags, flags & ~0xffu);
        return NULL;
    }
    if (pcc_ready() < 0)
        return NULL;
    CUcontext ctx = NULL;
    CUresult rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pcc_drv.cuCtxCreate(&ctx, flags, self->dev);
    Py_END_ALLOW_THREADS
    if (rc == CUDA_ERROR_INVALID_VALUE) { /* e.g. two scheduling policies at once */
        PyErr_Format(PyExc_ValueError, "make_context(flags): the driver refused flags = 0x%x "
                     "(at most one SCHED_* policy, with MAP_HOST, LMEM_RESIZE_TO_MAX, "
                     "COREDUMP_ENABLE, USER_COREDUMP_ENABLE, SYNC_MEMOPS)", flags);
        return NULL;
    }
    if (pcc_check(rc, "cuCtxCreate") < 0)
        return NULL;
    /* cuCtxCreate made it current (pushed) in this thread, as in PyCUDA. */
    return pcc_context_wrap(ctx, self->dev, PCC_CTX_CREATED);
}

static PyObject *device_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, pcc_st.Device) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    int eq = ((PccDevice *)a)->dev == ((PccDevice *)b)->dev;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t device_hash(PyObject *self)
{
    Py_hash_t h = (Py_hash_t)((PccDevice *)self)->dev + 0x5ca1ab1e;
    return h == -1 ? -2 : h;
}

static PyObject *device_repr(PyObject *self)
{
    return PyUnicode_FromFormat("<pycudac.driver.Device %d>", ((PccDevice *)self)->ordinal);
}

static PyObject *device_int(PyObject *self)
{
    return PyLong_FromLong(((PccDevice *)self)->ordinal);
}

/* PyCUDA lets `dev.max_threads_per_block` (any case) read a device attribute. */
static PyObject *device_getattro(PyObject *self, PyObject *name)
{
    PyObject *res = PyObject_GenericGetAttr(self, name);
    if (res != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError) || !PyUnicode_Check(name))
        return res;
    const char *s = PyUnicode_AsUTF8(name);
    if (s == NULL || s[0] == '_' || s[0] == '\0')
        return NULL; /* keep the AttributeError (dunder probes end here) */
    PyErr_Clear();
    PyObject *en = device_attribute_enum();
    PyObject *upper = en ? PyObject_CallMethod(name, "upper", NULL) : NULL;
    PyObject *member = upper ? PyObject_GetAttr(en, upper) : NULL;
    Py_XDECREF(upper);
    Py_XDECREF(en);
    if (member == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_AttributeError, "'Device' object has no attribute '%U'", name);
        return NULL;
    }
    res = device_get_attribute((PccDevice *)self, member);
    Py_DECREF(member);
    return res;
}

static PyObject *py_init(PyObject *mod, PyObject *args, PyObject *kwds)
{
    (void)mod;
    static char *kwlist[] = {"flags", NULL};
    unsigned int flags = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O&:init", kwlist, pcc_flags_arg, &flags))
        return NULL;
    if (flags != 0) {
        PyErr_Format(PyExc_ValueError, "init(flags): flags must be 0 (the driver defines no "
                                       "other value), got %u",
                     flags);
        return NULL;
    }
    if (pcc_ready() < 0) /* loads the backend and calls cuInit(0) */
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *py_get_driver_version(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    int v = 0;
    if (pcc_check(pcc_drv.cuDriverGetVersion(&v), "cuDriverGetVersion") < 0)
        return NULL;
    return PyLong_FromLong(v);
}

static PyMethodDef device_methods[] = {
    {"count", (PyCFunction)device_count, METH_NOARGS | METH_STATIC,
     "Number of CUDA devices."},
    {"name", (PyCFunction)device_name, METH_NOARGS, "The device's name."},
    {"compute_capability", (PyCFunction)device_compute_capability, METH_NOARGS,
     "(major, minor)."},
    {"total_memory", (PyCFunction)device_total_memory, METH_NOARGS, "Total memory in bytes."},
    {"get_attribute", (PyCFunction)device_get_attribute, METH_O,
     "Value of one device_attribute (member or int)."},
    {"get_attributes", (PyCFunction)device_get_attributes, METH_NOARGS,
     "{device_attribute: value} for every attribute the driver answers."},
    {"pci_bus_id", (PyCFunction)device_pci_bus_id, METH_NOARGS,
     "PCI bus id as 'domain:bus:device.function'."},
    {"can_access_peer", (PyCFunction)device_can_access_peer, METH_O,
     "Whether this device can access memory of `dev`."},
    {"retain_primary_context", (PyCFunction)device_retain_primary_context, METH_NOARGS,
     "The device's primary context (retained; released when the Context dies)."},
    {"make_context", (PyCFunction)(void (*)(void))device_make_context,
     METH_VARARGS | METH_KEYWORDS,
     "Create a new context on this device and make it current (PyCUDA's make_context)."},
    {NULL, NULL, 0, NULL}};

static PyMemberDef device_members[] = {
    {"ordinal", T_INT, offsetof(PccDevice, ordinal), READONLY, "Device ordinal."},
    {"handle", T_INT, offsetof(PccDevice, dev), READONLY, "The CUdevice."},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot device_slots[] = {
    {Py_tp_doc, "Device(ordinal): one CUDA device."},
    {Py_tp_new, device_new},
    {Py_tp_init, device_init},
    {Py_tp_dealloc, device_dealloc},
    {Py_tp_methods, device_methods},
    {Py_tp_members, device_members},
    {Py_tp_richcompare, device_richcompare},
    {Py_tp_hash, device_hash},
    {Py_tp_repr, device_repr},
    {Py_tp_getattro, device_getattro},
    {Py_nb_int, device_int},
    {0, NULL}};

static PyType_Spec device_spec = {
    .name = "pycudac._driver.Device",
    .basicsize = sizeof(PccDevice),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = device_slots,
};

static PyMethodDef module_methods[] = {
    {"init", (PyCFunction)(void (*)(void))py_init, METH_VARARGS | METH_KEYWORDS,
     "Load the backend and initialize the driver (PyCUDA's init; optional)."},
    {"get_driver_version", py_get_driver_version, METH_NOARGS,
     "The driver's CUDA version as an int (e.g. 13000)."},
    {NULL, NULL, 0, NULL}};

int pcc_device_init(PyObject *module)
{
    pcc_st.Device = (PyTypeObject *)PyType_FromSpec(&device_spec);
    if (pcc_st.Device == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "Device", (PyObject *)pcc_st.Device) < 0)
        return -1;
    return PyModule_AddFunctions(module, module_methods);
}
