/*
 * module/state.c — the one state struct (module/state.h): the interned
 * strings, the hooks the package registers at import, and the helper by
 * which a component adds methods to a type of a component below it.
 */
#include <string.h>

#include "module/state.h"

pcc_state pcc_st;

#define PCC_HOOK_NAME(field) #field,
static const char *const hook_names[] = {PCC_HOOKS(PCC_HOOK_NAME)};
#define PCC_HOOK_SLOT(field) &pcc_st.field,
static PyObject **const hook_slots[] = {PCC_HOOKS(PCC_HOOK_SLOT)};
#define N_HOOKS (sizeof hook_names / sizeof hook_names[0])

/* _register(name, obj): the package hands C the Python objects it needs. */
static PyObject *py_register(PyObject *self, PyObject *args)
{
    (void)self;
    const char *name;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "sO:_register", &name, &obj))
        return NULL;
    for (size_t k = 0; k < N_HOOKS; k++) {
        if (strcmp(name, hook_names[k]) == 0) {
            Py_XSETREF(*hook_slots[k], Py_NewRef(obj));
            Py_RETURN_NONE;
        }
    }
    PyErr_Format(PyExc_ValueError, "_register: no hook named '%s'", name);
    return NULL;
}

static PyMethodDef state_functions[] = {
    {"_register", py_register, METH_VARARGS,
     "_register(name, obj): pycudac's own modules register at import what the C core calls "
     "(parse_kernels, signature_for, argument_handler, device_attribute, and "
     "SourceModule's source_module_init, compile_memo, compile_stats, cache_format, "
     "sim_instrumented)."},
    {NULL, NULL, 0, NULL}};

int pcc_state_init(PyObject *module)
{
#define PCC_INTERN(field, text)                                                              \
    if (pcc_st.str_##field == NULL &&                                                       \
        (pcc_st.str_##field = PyUnicode_InternFromString(text)) == NULL)                     \
        return -1;
    PCC_STRINGS(PCC_INTERN)
#undef PCC_INTERN
    return PyModule_AddFunctions(module, state_functions);
}

int pcc_type_add_methods(PyTypeObject *type, PyMethodDef *defs)
{
    for (PyMethodDef *d = defs; d->ml_name != NULL; d++) {
        PyObject *m = PyDescr_NewMethod(type, d);
        if (m == NULL)
            return -1;
        int rc = PyObject_SetAttrString((PyObject *)type, d->ml_name, m);
        Py_DECREF(m);
        if (rc < 0)
            return -1;
    }
    return 0;
}
