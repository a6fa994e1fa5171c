/*
 * compile/link.c — device code linked by nvJitLink into a CUBIN: what
 * link-time optimization needs (LTO-IR from NVRTC's -dlto, linked with
 * -lto), on the CPU and without a driver, so a CUBIN can be linked for a
 * GPU the machine does not have. DynamicModule(lto=True) and
 * compiler.link() call it; without LTO DynamicModule links with the
 * driver's cuLink (core/module.c's link_images).
 *
 * A failed link raises CompileError carrying nvJitLink's error log (.log),
 * its result code (.code) and the call that failed (.call).
 */
#include <string.h>

#include "compile/cache.h"
#include "driver/loader.h"
#include "util/nvtx.h"

/* The driver's CUjitInputType (PyCUDA's jit_input_type: CUBIN 0, PTX 1,
 * FATBINARY 2, OBJECT 3, LIBRARY 4, NVVM 5 — LTO-IR) as nvJitLink's; -1
 * (None) lets nvJitLink tell the kind from the bytes. */
static int jitlink_input_type(long t)
{
    static const int map[] = {NVJITLINK_INPUT_CUBIN,  NVJITLINK_INPUT_PTX,
                              NVJITLINK_INPUT_FATBIN, NVJITLINK_INPUT_OBJECT,
                              NVJITLINK_INPUT_LIBRARY, NVJITLINK_INPUT_LTOIR};
    return t < 0 ? NVJITLINK_INPUT_ANY : map[t];
}

static const char *result_name(nvJitLinkResult r)
{
    static const char *const names[] = {
        "NVJITLINK_SUCCESS", "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
        "NVJITLINK_ERROR_MISSING_ARCH", "NVJITLINK_ERROR_INVALID_INPUT",
        "NVJITLINK_ERROR_PTX_COMPILE", "NVJITLINK_ERROR_NVVM_COMPILE", "NVJITLINK_ERROR_INTERNAL",
        "NVJITLINK_ERROR_THREADPOOL", "NVJITLINK_ERROR_UNRECOGNIZED_INPUT",
        "NVJITLINK_ERROR_FINALIZE", "NVJITLINK_ERROR_NULL_INPUT",
        "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS", "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE",
        "NVJITLINK_ERROR_ARCH_MISMATCH", "NVJITLINK_ERROR_OUTDATED_LIBRARY",
        "NVJITLINK_ERROR_MISSING_FATBIN", "NVJITLINK_ERROR_UNRECOGNIZED_ARCH",
        "NVJITLINK_ERROR_UNSUPPORTED_ARCH", "NVJITLINK_ERROR_LTO_NOT_ENABLED"};
    return r >= 0 && r < (int)(sizeof names / sizeof names[0]) ? names[r]
                                                                : "NVJITLINK_ERROR (unknown)";
}

/* One link, in raw memory, run without the GIL. */
typedef struct {
    const pcc_jitlink_table *jl;
    const char **opts;
    unsigned nopts;
    Py_ssize_t n;
    int *types;
    const char **data, **paths, **names;
    size_t *sizes;
    /* results */
    nvJitLinkResult rc;
    const char *failed_call;
    Py_ssize_t failed_input; /* -1: none */
    char *error_log, *info_log, *cubin;
    size_t cubin_size;
} link_job;

static char *fetch_log(nvJitLinkHandle h, nvJitLinkResult (*size_fn)(nvJitLinkHandle, size_t *),
                       nvJitLinkResult (*get_fn)(nvJitLinkHandle, char *))
{
    size_t n = 0;
    if (size_fn(h, &n) != NVJITLINK_SUCCESS)
        return NULL;
    char *log = PyMem_RawMalloc(n + 1);
    if (log == NULL)
        return NULL;
    if (n == 0 || get_fn(h, log) != NVJITLINK_SUCCESS)
        log[0] = '\0';
    log[n] = '\0';
    return log;
}

static void link_run(link_job *job)
{
    const pcc_jitlink_table *jl = job->jl;
    nvJitLinkHandle h = NULL;
    job->failed_input = -1;
    job->rc = jl->nvJitLinkCreate(&h, job->nopts, job->opts);
    if (job->rc != NVJITLINK_SUCCESS) {
        job->failed_call = "nvJitLinkCreate";
        goto done;
    }
    for (Py_ssize_t i = 0; i < job->n; i++) {
        job->rc = job->paths[i]
                      ? jl->nvJitLinkAddFile(h, job->types[i], job->paths[i])
                      : jl->nvJitLinkAddData(h, job->types[i], job->data[i], job->sizes[i],
                                             job->names[i]);
        if (job->rc != NVJITLINK_SUCCESS) {
            job->failed_call = job->paths[i] ? "nvJitLinkAddFile" : "nvJitLinkAddData";
            job->failed_input = i;
            goto done;
        }
    }
    job->rc = jl->nvJitLinkComplete(h);
    if (job->rc != NVJITLINK_SUCCESS) {
        job->failed_call = "nvJitLinkComplete";
        goto done;
    }
    job->rc = jl->nvJitLinkGetLinkedCubinSize(h, &job->cubin_size);
    if (job->rc == NVJITLINK_SUCCESS) {
        job->cubin = PyMem_RawMalloc(job->cubin_size ? job->cubin_size : 1);
        job->rc = job->cubin == NULL ? NVJITLINK_ERROR_INTERNAL
                                     : jl->nvJitLinkGetLinkedCubin(h, job->cubin);
    }
    if (job->rc != NVJITLINK_SUCCESS)
        job->failed_call = "nvJitLinkGetLinkedCubin";
done:
    if (h != NULL) {
        job->error_log = fetch_log(h, jl->nvJitLinkGetErrorLogSize, jl->nvJitLinkGetErrorLog);
        job->info_log = fetch_log(h, jl->nvJitLinkGetInfoLogSize, jl->nvJitLinkGetInfoLog);
        jl->nvJitLinkDestroy(&h);
    }
}

/* CompileError("linking device code with nvJitLink (<path>): <call> of <name>
 * returned <code>: <log>") with .log, .code, .call. */
static void raise_link_error(const link_job *job)
{
    const char *log = job->error_log && job->error_log[0] ? job->error_log : "";
    size_t n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == ' '))
        n--;
    char shown[8001]; /* the log's start: the first errors say what went wrong */
    if (n > 8000)
        n = 8000;
    memcpy(shown, log, n);
    shown[n] = '\0';
    PyObject *msg = PyUnicode_FromFormat(
        "linking device code with nvJitLink (%s): %s%s%s returned %s (%d)%s%s", job->jl->path,
        job->failed_call, job->failed_input >= 0 ? " of " : "",
        job->failed_input >= 0 ? job->names[job->failed_input] : "", result_name(job->rc),
        job->rc, n ? ":\n" : "", shown);
    if (msg == NULL)
        return;
    PyObject *exc = PyObject_CallOneArg(pcc_st.CompileError, msg);
    Py_DECREF(msg);
    if (exc == NULL)
        return;
    PyObject *vals[] = {PyUnicode_DecodeUTF8(log, (Py_ssize_t)strlen(log), "replace"),
                        PyLong_FromLong(job->rc), PyUnicode_FromString(job->failed_call)};
    static const char *const keys[] = {"log", "code", "call"};
    for (int k = 0; k < 3; k++) {
        if (vals[k] == NULL || PyObject_SetAttrString(exc, keys[k], vals[k]) < 0)
            PyErr_Clear();
        Py_XDECREF(vals[k]);
    }
    PyErr_SetObject(pcc_st.CompileError, exc);
    Py_DECREF(exc);
}

/* jitlink(inputs, options) -> (cubin, info log). inputs: a sequence of
 * (input type 0-5 or None, bytes or None, path or None, name), the form
 * link_images takes; options: nvJitLink's (-arch=sm_90, -lto ...). */
static PyObject *py_jitlink(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *inputs_arg, *options_arg;
    if (!PyArg_ParseTuple(args, "OO:jitlink", &inputs_arg, &options_arg))
        return NULL;
    link_job job;
    memset(&job, 0, sizeof job);
    PyObject *inputs = NULL, *options = NULL, *result = NULL;
    if ((inputs = PySequence_Tuple(inputs_arg)) == NULL ||
        (options = PySequence_Tuple(options_arg)) == NULL)
        goto done;
    job.n = PyTuple_GET_SIZE(inputs);
    Py_ssize_t no = PyTuple_GET_SIZE(options);
    if (job.n == 0) {
        PyErr_SetString(PyExc_ValueError, "jitlink: nothing to link (inputs is empty)");
        goto done;
    }
    if (job.n > 1 << 20 || no > 1 << 10) {
        PyErr_SetString(PyExc_ValueError, "jitlink: too many inputs or options");
        goto done;
    }
    size_t n = (size_t)job.n;
    job.types = PyMem_Calloc(n, sizeof *job.types);
    job.data = PyMem_Calloc(n, sizeof *job.data);
    job.paths = PyMem_Calloc(n, sizeof *job.paths);
    job.names = PyMem_Calloc(n, sizeof *job.names);
    job.sizes = PyMem_Calloc(n, sizeof *job.sizes);
    job.opts = PyMem_Calloc((size_t)no + 1, sizeof *job.opts);
    if (!job.types || !job.data || !job.paths || !job.names || !job.sizes || !job.opts) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < no; k++) {
        PyObject *o = PyTuple_GET_ITEM(options, k);
        if (!PyUnicode_Check(o)) {
            PyErr_Format(PyExc_TypeError, "jitlink: options[%zd] must be str, not %.100s", k,
                         Py_TYPE(o)->tp_name);
            goto done;
        }
        if ((job.opts[k] = PyUnicode_AsUTF8(o)) == NULL)
            goto done;
    }
    job.nopts = (unsigned)no;
    for (Py_ssize_t k = 0; k < job.n; k++) {
        /* (the strings and bytes read below live in `inputs`, held throughout) */
        PyObject *it = PyTuple_GET_ITEM(inputs, k);
        PyObject *t, *data, *path = NULL, *name;
        long type = -1;
        if (!PyTuple_Check(it) || PyTuple_GET_SIZE(it) != 4 ||
            ((t = PyTuple_GET_ITEM(it, 0)) != Py_None &&
             (!PyLong_Check(t) || (type = PyLong_AsLong(t)) < 0 || type > 5)) ||
            !(PyBytes_Check(data = PyTuple_GET_ITEM(it, 1)) ||
              PyUnicode_Check(path = PyTuple_GET_ITEM(it, 2))) ||
            !PyUnicode_Check(name = PyTuple_GET_ITEM(it, 3))) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "jitlink: inputs[%zd] must be (input type 0-5 or "
                             "None, bytes or None, path or None, name)", k);
            goto done;
        }
        job.types[k] = jitlink_input_type(type);
        if ((job.names[k] = PyUnicode_AsUTF8(name)) == NULL)
            goto done;
        if (PyBytes_Check(data)) {
            job.data[k] = PyBytes_AS_STRING(data);
            job.sizes[k] = (size_t)PyBytes_GET_SIZE(data);
        } else if ((job.paths[k] = PyUnicode_AsUTF8(path)) == NULL) {
            goto done;
        }
    }
    if ((job.jl = pcc_jitlink()) == NULL)
        goto done;

    int nvtx = pcc_nvtx_active();
    if (nvtx)
        pcc_nvtx_own_push("link (nvJitLink)", PCC_NVTX_LINK);
    Py_BEGIN_ALLOW_THREADS
    link_run(&job);
    Py_END_ALLOW_THREADS
    if (nvtx)
        pcc_nvtx_own_pop();

    if (job.rc != NVJITLINK_SUCCESS) {
        raise_link_error(&job);
        goto done;
    }
    result = Py_BuildValue("(y#s)", job.cubin, (Py_ssize_t)job.cubin_size,
                           job.info_log ? job.info_log : "");
done:
    PyMem_Free(job.types);
    PyMem_Free(job.data);
    PyMem_Free(job.paths);
    PyMem_Free(job.names);
    PyMem_Free(job.sizes);
    PyMem_Free(job.opts);
    PyMem_RawFree(job.error_log);
    PyMem_RawFree(job.info_log);
    PyMem_RawFree(job.cubin);
    Py_XDECREF(inputs);
    Py_XDECREF(options);
    return result;
}

static PyMethodDef link_methods[] = {
    {"jitlink", py_jitlink, METH_VARARGS,
     "jitlink(inputs, options) -> (cubin, info_log): nvJitLink over [(input_type 0-5 or None, "
     "bytes or None, path or None, name)] with `options` (e.g. ['-arch=sm_90', '-lto']); "
     "input type 5 (NVVM) is LTO-IR, None lets nvJitLink tell. Runs on the CPU. CompileError "
     "with nvJitLink's error log (.log) when it fails."},
    {NULL, NULL, 0, NULL}};

int pcc_link_init(PyObject *module)
{
    return PyModule_AddFunctions(module, link_methods);
}
