/*
 * module/errors.c — the one error path: CUresult → Python exception, the sticky
 * "poisoned process" state and the fork guard.
 *
 * Exception classes (PyCUDA's names): Error ← LogicError, LaunchError,
 * MemoryError (also a builtin MemoryError), RuntimeError (also a builtin
 * RuntimeError), CompileError. Each raised instance carries .code, .name and
 * .call. A sticky code (700, 710, 714–719) poisons the process: the driver
 * then fails every call, so pcc_ready() refuses from then on with the
 * original error, and destructors skip their frees.
 */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "module/errors.h"
#include "pycudac/backend.h"

unsigned long pcc_skipped_frees;
unsigned long pcc_general_launches;
static unsigned long failed_frees;
static int last_failed_free_code;
static const char *last_failed_free_call = "";

static char poison_message[1024];

static int is_sticky(CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
        return 1;
    default:
        return 0;
    }
}

PyObject *pcc_error_class(CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        return pcc_st.MemoryError;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
        return pcc_st.LaunchError;
    case PCC_CHECK_FAILED:
        return pcc_st.CheckError;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_NOT_INITIALIZED:
    case CUDA_ERROR_DEINITIALIZED:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_CONTEXT:
    case CUDA_ERROR_CONTEXT_ALREADY_CURRENT:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_INVALID_SOURCE:
    case CUDA_ERROR_FILE_NOT_FOUND:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_NOT_FOUND:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED:
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED:
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
    case CUDA_ERROR_NOT_PERMITTED:
    case CUDA_ERROR_NOT_SUPPORTED:
        return pcc_st.LogicError;
    default:
        return pcc_st.RuntimeError;
    }
}

/* Raise `cls(message)` with code/name/call attributes set. */
static void raise_with(PyObject *cls, int code, const char *name, const char *call,
                       const char *message)
{
    PyObject *exc = PyObject_CallFunction(cls, "s", message);
    if (exc == NULL)
        return;
    PyObject *pycode = PyLong_FromLong(code);
    PyObject *pyname = PyUnicode_FromString(name);
    PyObject *pycall = PyUnicode_FromString(call ? call : "");
    if (pycode && pyname && pycall) {
        PyObject_SetAttrString(exc, "code", pycode);
        PyObject_SetAttrString(exc, "name", pyname);
        PyObject_SetAttrString(exc, "call", pycall);
    }
    Py_XDECREF(pycode);
    Py_XDECREF(pyname);
    Py_XDECREF(pycall);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
}

static const char *kernel_name_of_last_launch(char *buf, size_t len)
{
    buf[0] = '\0';
    if (pcc_st.last_launched_name == NULL)
        return buf;
    const char *s = PyUnicode_AsUTF8(pcc_st.last_launched_name);
    if (s)
        snprintf(buf, len, "%s", s);
    else
        PyErr_Clear();
    return buf;
}

int pcc_raise(CUresult rc, const char *call)
{
    return pcc_raise_as(NULL, rc, call);
}

static int raise_full(PyObject *cls, CUresult rc, const char *call, const char *detail);

int pcc_raise_as(PyObject *cls, CUresult rc, const char *call)
{
    return raise_full(cls, rc, call, NULL);
}

int pcc_raise_detail(CUresult rc, const char *call, const char *detail)
{
    return raise_full(NULL, rc, call, detail);
}

static int raise_full(PyObject *cls, CUresult rc, const char *call, const char *detail)
{
    if (rc == PCC_LAUNCH_INTERRUPTED) {
        /* Ctrl-C stopped a simulated kernel: Python's SIGINT handler raises
         * KeyboardInterrupt (or whatever the program put in its place) */
        if (PyErr_CheckSignals() < 0)
            return -1;
        PyErr_SetNone(PyExc_KeyboardInterrupt);
        return -1;
    }
    if (rc == PCC_CHECK_FAILED) {
        /* check mode: not sticky, the message is the first report's */
        const char *what = pcc_st.backend && pcc_st.backend->check_message
                               ? pcc_st.backend->check_message()
                               : "";
        char msg[2048];
        snprintf(msg, sizeof msg, "%s: %s", call ? call : "launch",
                 what && *what ? what : "the simulator's check mode found a defect");
        raise_with(pcc_st.CheckError, (int)rc, "PYCUDAC_SIM_CHECK_FAILED", call, msg);
        return -1;
    }
    if (pcc_st.poison_code && is_sticky(rc)) {
        /* Already poisoned: repeat the original error, not a new one. */
        raise_with(pcc_error_class(pcc_st.poison_code), pcc_st.poison_code, "", call, poison_message);
        return -1;
    }
    const char *name = NULL, *desc = NULL;
    if (pcc_drv.cuGetErrorName == NULL || pcc_drv.cuGetErrorName(rc, &name) != CUDA_SUCCESS)
        name = NULL;
    if (pcc_drv.cuGetErrorString == NULL || pcc_drv.cuGetErrorString(rc, &desc) != CUDA_SUCCESS)
        desc = NULL;
    char namebuf[48];
    if (name == NULL) {
        snprintf(namebuf, sizeof namebuf, "CUDA_ERROR_%d", (int)rc);
        name = namebuf;
    }
    /* a launch the simulator's watchdog stopped says why */
    if (rc == CUDA_ERROR_LAUNCH_TIMEOUT && detail == NULL && pcc_st.backend &&
        pcc_st.backend->check_message && pcc_st.backend->check_message()[0])
        detail = pcc_st.backend->check_message();
    char msg[1024];
    int n = snprintf(msg, sizeof msg, "%s failed: %s (%d)%s%s%s%s", call ? call : "driver call",
                     name, (int)rc, desc ? ": " : "", desc ? desc : "", detail ? ". " : "",
                     detail ? detail : "");
    if (is_sticky(rc)) {
        char kname[128];
        kernel_name_of_last_launch(kname, sizeof kname);
        if (n > 0 && (size_t)n < sizeof msg)
            snprintf(msg + n, sizeof msg - (size_t)n,
                     ". This error is sticky: the process can make no further CUDA calls "
                     "(driver.is_poisoned() is now True).%s%s%s Rerun with "
                     "CUDA_LAUNCH_BLOCKING=1 or under compute-sanitizer to find the faulting "
                     "launch.",
                     kname[0] ? " The kernel launched last was '" : "", kname,
                     kname[0] ? "'." : "");
        const char *detail = pcc_st.backend && pcc_st.backend->fault_detail
                                 ? pcc_st.backend->fault_detail()
                                 : NULL;
        size_t used = strlen(msg);
        if (detail && used + 8 < sizeof msg)
            snprintf(msg + used, sizeof msg - used, " [simulator: %s]", detail);
        pcc_st.poison_code = rc;
        snprintf(poison_message, sizeof poison_message, "%s", msg);
    }
    raise_with(cls ? cls : pcc_error_class(rc), (int)rc, name, call, msg);
    return -1;
}

int pcc_raise_forked(void)
{
    raise_with(pcc_st.LogicError, CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "",
               "CUDA was initialized in the parent process and cannot be used after fork(); "
               "start worker processes with multiprocessing's 'spawn' method "
               "(multiprocessing.set_start_method('spawn'))");
    return -1;
}

int pcc_raise_poisoned(void)
{
    raise_with(pcc_error_class(pcc_st.poison_code), pcc_st.poison_code, "", "", poison_message);
    return -1;
}

int pcc_skip_free(void)
{
    if (pcc_st.poison_code || pcc_st.forked || pcc_st.backend == NULL) {
        pcc_skipped_frees++;
        return 1;
    }
    return 0;
}

void pcc_note_failed_free(CUresult rc, const char *call)
{
    failed_frees++;
    last_failed_free_code = (int)rc;
    last_failed_free_call = call;
}

void pcc_note_launch_slow(PyObject *func, PyObject *name)
{
    pcc_st.last_launched = func;
    Py_XSETREF(pcc_st.last_launched_name, Py_NewRef(name));
}

static void after_fork_child(void)
{
    if (pcc_st.backend != NULL)
        pcc_st.forked = 1;
}

static PyObject *new_exception(PyObject *module, const char *name, PyObject *bases, const char *doc)
{
    char qual[96];
    snprintf(qual, sizeof qual, "pycudac._driver.%s", name);
    PyObject *cls = PyErr_NewExceptionWithDoc(qual, doc, bases, NULL);
    if (cls == NULL)
        return NULL;
    if (PyModule_AddObjectRef(module, name, cls) < 0) {
        Py_DECREF(cls);
        return NULL;
    }
    return cls;
}

static PyObject *py_is_poisoned(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(pcc_st.poison_code != 0);
}

static PyObject *py_debug_counters(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return Py_BuildValue("{s:k,s:i,s:i,s:k,s:i,s:s,s:k}", "skipped_frees", pcc_skipped_frees,
                         "poison_code", pcc_st.poison_code, "forked", pcc_st.forked, "failed_frees",
                         failed_frees, "last_failed_free_code", last_failed_free_code,
                         "last_failed_free_call", last_failed_free_call, "general_launches",
                         pcc_general_launches);
}

/* For tests of the mapping table: raise the exception a CUresult maps to. */
static PyObject *py_raise_for_code(PyObject *self, PyObject *args)
{
    (void)self;
    int code;
    const char *call = "test";
    if (!PyArg_ParseTuple(args, "i|s", &code, &call))
        return NULL;
    if (code == CUDA_SUCCESS)
        Py_RETURN_NONE;
    /* Never poison from a test helper. */
    int saved = pcc_st.poison_code;
    char saved_msg[sizeof poison_message];
    memcpy(saved_msg, poison_message, sizeof saved_msg);
    pcc_raise(code, call);
    pcc_st.poison_code = saved;
    memcpy(poison_message, saved_msg, sizeof saved_msg);
    return NULL;
}

static PyMethodDef error_methods[] = {
    {"is_poisoned", py_is_poisoned, METH_NOARGS,
     "True once a sticky CUDA error has poisoned this process."},
    {"_debug_counters", py_debug_counters, METH_NOARGS, "Internal counters (skipped frees...)."},
    {"_raise_for_code", py_raise_for_code, METH_VARARGS,
     "Raise the exception CUresult `code` maps to (testing aid; never poisons)."},
    {NULL, NULL, 0, NULL}};

int pcc_errors_init(PyObject *module)
{
    PyObject *bases = NULL;
    if ((pcc_st.Error = new_exception(module, "Error", NULL, "Base of all pycudac errors.")) ==
        NULL)
        return -1;
    if ((pcc_st.LogicError = new_exception(module, "LogicError", pcc_st.Error,
                                           "A call made with invalid arguments or state.")) ==
        NULL)
        return -1;
    if ((pcc_st.LaunchError = new_exception(module, "LaunchError", pcc_st.Error,
                                            "A kernel launch failed or faulted.")) == NULL)
        return -1;
    bases = PyTuple_Pack(2, pcc_st.Error, PyExc_MemoryError);
    if (bases == NULL)
        return -1;
    pcc_st.MemoryError = new_exception(module, "MemoryError", bases, "Out of device memory.");
    Py_DECREF(bases);
    if (pcc_st.MemoryError == NULL)
        return -1;
    bases = PyTuple_Pack(2, pcc_st.Error, PyExc_RuntimeError);
    if (bases == NULL)
        return -1;
    pcc_st.RuntimeError = new_exception(module, "RuntimeError", bases, "Other driver errors.");
    Py_DECREF(bases);
    if (pcc_st.RuntimeError == NULL)
        return -1;
    if ((pcc_st.CompileError = new_exception(module, "CompileError", pcc_st.Error,
                                             "Kernel source failed to compile.")) == NULL)
        return -1;
    if ((pcc_st.CheckError = new_exception(
             module, "CheckError", pcc_st.LaunchError,
             "The simulator's check mode (pycudac.driver.sim_check) found a defect in a kernel: "
             "an out-of-bounds or misaligned access, a race, an uninitialized read or a barrier "
             "not every thread reaches. Not sticky: check_report() lists every report.")) == NULL)
        return -1;
    if (PyModule_AddFunctions(module, error_methods) < 0)
        return -1;
    static int atfork_done;
    if (!atfork_done) {
        pthread_atfork(NULL, NULL, after_fork_child);
        atfork_done = 1;
    }
    return 0;
}
