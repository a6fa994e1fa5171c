/*
 * code_lines.c — Launcher, a callable that is called like a pycudac
 * Function, ignores its arguments and calls cuLaunchKernel with zeroed
 * parameters: the least any launch API called from Python costs
 * (bench_launch.py's "Python floor" rows, code 0 and data 0).
 *
 * For bench/code_lines.py it can first run `code` lines of instruction
 * cache (a chain of jumps, one per 64-byte line) and read `data` distinct
 * data lines: against the plain launcher, what code and data that a launch
 * call runs between the driver's launches cost on the machine (pack_fast
 * and do_launch in src/ are kept short because of it).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);

/* n 64-byte lines, each entered by a jump from the line before */
#define CHAIN(name, n)                                                                         \
    static __attribute__((noinline)) void name(void)                                          \
    {                                                                                          \
        __asm__ volatile(".p2align 6\n.rept " #n "\njmp 1f\n.p2align 6\n1:\n.endr\n" ::: "memory"); \
    }
CHAIN(chain16, 16)
CHAIN(chain32, 32)
CHAIN(chain48, 48)
CHAIN(chain64, 64)

static _Alignas(64) char data_lines[64 * 256];
static volatile long sink;
static _Alignas(16) char zeros[4096];

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    launch_fn launch;
    void *func, *stream;
    size_t argsize;
    void (*chain)(void); /* NULL: none */
    int data;
    int spin; /* iterations of a dependent multiply chain: time with no memory touched */
} Launcher;

static PyObject *launcher_call(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames)
{
    (void)args;
    (void)nargsf;
    (void)kwnames;
    Launcher *l = (Launcher *)self;
    if (l->chain)
        l->chain();
    if (l->data) {
        long s = 0;
        for (int i = 0; i < l->data; i++)
            s += *(volatile char *)&data_lines[i * 64];
        sink = s;
    }
    if (l->spin) {
        unsigned long x = 1;
        for (int i = 0; i < l->spin; i++)
            __asm__ volatile("imul $3, %0, %0" : "+r"(x));
        if (x == 0)
            sink = 0;
    }
    if (l->launch == NULL) /* dry: what the call and its extra work cost without the driver */
        Py_RETURN_NONE;
    size_t size = l->argsize;
    void *extra[] = {(void *)1, zeros, (void *)2, &size, (void *)0}; /* BUFFER_POINTER/SIZE/END */
    int rc = l->launch(l->func, 1, 1, 1, 1, 1, 1, 0, l->stream, NULL, size ? extra : NULL);
    if (rc != 0)
        return PyErr_Format(PyExc_RuntimeError, "cuLaunchKernel returned %d", rc);
    Py_RETURN_NONE;
}

/* Launcher(launch, func, stream, argsize, code, data[, spin]): code 0, 16, 32, 48 or 64;
 * launch 0 makes a dry launcher that does all but call the driver */
static PyObject *launcher_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    unsigned long long launch, func, stream;
    Py_ssize_t argsize;
    int code, data, spin = 0;
    (void)kwds;
    if (!PyArg_ParseTuple(args, "KKKnii|i", &launch, &func, &stream, &argsize, &code, &data,
                          &spin))
        return NULL;
    if (spin < 0 || argsize < 0 || argsize > (Py_ssize_t)sizeof zeros || data < 0 ||
        data > 256 || (code != 0 && code != 16 && code != 32 && code != 48 && code != 64)) {
        PyErr_SetString(PyExc_ValueError, "Launcher: argsize 0..4096, code 0/16/32/48/64, "
                        "data 0..256, spin >= 0");
        return NULL;
    }
    Launcher *o = (Launcher *)type->tp_alloc(type, 0);
    if (o == NULL)
        return NULL;
    o->vectorcall = launcher_call;
    *(void **)&o->launch = (void *)(uintptr_t)launch;
    o->func = (void *)(uintptr_t)func;
    o->stream = (void *)(uintptr_t)stream;
    o->argsize = (size_t)argsize;
    o->chain = code == 16 ? chain16 : code == 32 ? chain32 : code == 48 ? chain48
             : code == 64 ? chain64 : NULL;
    o->data = data;
    o->spin = spin;
    return (PyObject *)o;
}

static PyTypeObject LauncherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "_code_lines.Launcher", .tp_basicsize = sizeof(Launcher),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(Launcher, vectorcall), .tp_call = PyVectorcall_Call,
    .tp_new = launcher_new};

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, .m_name = "_code_lines", .m_size = -1};

PyMODINIT_FUNC PyInit__code_lines(void)
{
    if (PyType_Ready(&LauncherType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&def);
    if (m && PyModule_AddObjectRef(m, "Launcher", (PyObject *)&LauncherType) < 0)
        Py_CLEAR(m);
    return m;
}
