/*
 * core/check.c — the simulator's check mode as Python sees it: setting the
 * checks and the schedule, reading them back, the reports as dicts, and the
 * environment's settings at backend load, and the teaching profile's rows.
 * Reaches the simulator only through the backend table's check and profile
 * entries (NULL on a GPU: there compute-sanitizer and Nsight Compute do
 * these jobs). pycudac.driver.sim_check and check_report build on it;
 * the environment's PYCUDAC_SIM_CHECK is applied by the loader.
 */
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "driver/loader.h"
#include "module/errors.h"
#include "pycudac/backend.h"

/* The backend's check mode, or NULL with LogicError saying where to go. */
static const pcc_backend *check_backend(void)
{
    if (pcc_ready() < 0)
        return NULL;
    if (pcc_st.backend->check_configure == NULL) {
        PyErr_Format(pcc_st.LogicError,
                     "check mode needs the CPU simulator (PYCUDAC_BACKEND=sim); on the '%s' "
                     "backend run the program under NVIDIA's compute-sanitizer instead",
                     pcc_st.backend->name);
        return NULL;
    }
    return pcc_st.backend;
}

static PyObject *py_configure(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"checks", "schedule", "raise_errors", NULL};
    const char *checks = "", *sched = "";
    int raise_errors = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "s|zp:_sim_check_configure", kwlist, &checks,
                                     &sched, &raise_errors))
        return NULL;
    const pcc_backend *be = check_backend();
    if (be == NULL)
        return NULL;
    char err[256];
    if (be->check_configure(checks, sched ? sched : "", raise_errors, err, sizeof err) < 0) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_config(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    if (pcc_st.backend->check_config == NULL)
        return Py_BuildValue("(ssO)", "", "", Py_True);
    char checks[128], sched[64];
    int raise_errors = 1;
    pcc_st.backend->check_config(checks, sizeof checks, sched, sizeof sched, &raise_errors);
    return Py_BuildValue("(ssO)", checks, sched, raise_errors ? Py_True : Py_False);
}

static PyObject *dim(const unsigned int d[3])
{
    return Py_BuildValue("(III)", d[0], d[1], d[2]);
}

/* One report as a dict (keys as in pcc_check_report). New reference. */
static PyObject *report_dict(const void *row)
{
    const pcc_check_report *r = row;
    PyObject *blk = dim(r->block), *thr = dim(r->thread), *oth = NULL, *d = NULL;
    if (blk == NULL || thr == NULL)
        goto done;
    if (r->other_line || r->other_file[0] || strcmp(r->tool, "racecheck") == 0) {
        if ((oth = Py_BuildValue("{s:N,s:s,s:i,s:O}", "thread", dim(r->other_thread), "file",
                                 r->other_file, "line", r->other_line, "is_write",
                                 r->other_is_write ? Py_True : Py_False)) == NULL)
            goto done;
    } else {
        oth = Py_NewRef(Py_None);
    }
    d = Py_BuildValue(
        "{s:s,s:s,s:s,s:s,s:s,s:i,s:O,s:O,s:K,s:K,s:O,s:O,s:K,s:K,s:L,s:s,s:K,s:O,s:s,s:K}",
        "tool", r->tool, "kind", r->kind, "space", r->space, "kernel", r->kernel, "file", r->file,
        "line", r->line, "block", blk, "thread", thr, "address", r->address, "size", r->size,
        "is_write", r->is_write ? Py_True : Py_False, "other", oth, "alloc_base", r->alloc_base,
        "alloc_size", r->alloc_size, "offset", r->offset, "alloc_kind", r->alloc_kind, "count",
        r->count, "error", r->error ? Py_True : Py_False, "message", r->message, "serial",
        r->serial);
done:
    Py_XDECREF(blk);
    Py_XDECREF(thr);
    Py_XDECREF(oth);
    return d;
}

/* [to_dict(row) for each of the `got` rows of `size` bytes at `rows`],
 * which it frees (PyMem_Raw). New reference, or NULL with the exception. */
static PyObject *dict_list(void *rows, size_t got, size_t size, PyObject *(*to_dict)(const void *))
{
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < got; i++) {
        PyObject *d = to_dict((const char *)rows + i * size);
        if (d == NULL || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(d);
    }
    PyMem_RawFree(rows);
    return list;
}

static PyObject *py_reports(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"since", "clear", NULL};
    unsigned long long since = 0;
    int clear = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|Kp:_sim_check_reports", kwlist, &since, &clear))
        return NULL;
    if (pcc_ready() < 0)
        return NULL;
    const pcc_backend *be = pcc_st.backend;
    if (be->check_reports == NULL)
        return PyList_New(0);
    size_t n = be->check_reports(NULL, 0, since, 0);
    pcc_check_report *rs = n ? PyMem_RawCalloc(n, sizeof *rs) : NULL;
    if (n && rs == NULL)
        return PyErr_NoMemory();
    size_t got = be->check_reports(rs, n, since, clear);
    if (got > n)
        got = n; /* more came meanwhile: the next call has them */
    return dict_list(rs, got, sizeof *rs, report_dict);
}

/* One profile row as a dict (keys as in pcc_profile_row). New reference. */
static PyObject *profile_dict(const void *row)
{
    const pcc_profile_row *r = row;
    return Py_BuildValue("{s:s,s:s,s:i,s:s,s:O,s:I,s:K,s:K,s:K,s:K,s:K,s:I,s:K}", "kernel", r->kernel,
                         "file", r->file, "line", r->line, "space", r->space, "is_write",
                         r->is_write ? Py_True : Py_False, "size", r->size, "requests",
                         r->requests, "lanes", r->lanes, "sectors", r->sectors, "ideal_sectors",
                         r->ideal_sectors, "conflict_ways", r->conflict_ways, "max_conflict_ways",
                         r->max_conflict_ways, "dropped", r->dropped);
}

static PyObject *py_profile(PyObject *self, PyObject *args, PyObject *kwds)
{
    (void)self;
    static char *kwlist[] = {"clear", NULL};
    int clear = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|p:_sim_profile_rows", kwlist, &clear))
        return NULL;
    if (pcc_ready() < 0)
        return NULL;
    const pcc_backend *be = pcc_st.backend;
    if (be->profile_rows == NULL) {
        /* a GPU's counters are Nsight Compute's: no made-up numbers here */
        PyErr_Format(pcc_st.LogicError,
                     "the teaching profile needs the CPU simulator (PYCUDAC_BACKEND=sim); on the "
                     "'%s' backend profile the program with NVIDIA Nsight Compute (ncu --section "
                     "MemoryWorkloadAnalysis_Tables shows sectors per request and bank conflicts)",
                     be->name);
        return NULL;
    }
    size_t n = be->profile_rows(NULL, 0, 0);
    pcc_profile_row *rs = n ? PyMem_RawCalloc(n, sizeof *rs) : NULL;
    if (n && rs == NULL)
        return PyErr_NoMemory();
    size_t got = be->profile_rows(rs, n, clear);
    if (got > n)
        got = n; /* more came meanwhile: the next call has them */
    return dict_list(rs, got, sizeof *rs, profile_dict);
}

static PyMethodDef check_functions[] = {
    {"_sim_check_configure", (PyCFunction)(void (*)(void))py_configure,
     METH_VARARGS | METH_KEYWORDS,
     "_sim_check_configure(checks, schedule=None, raise_errors=True): the simulator's check "
     "mode ('memcheck,racecheck,initcheck,synccheck', 'all', '' for none) and schedule "
     "('forward', 'reverse', 'random:SEED')."},
    {"_sim_check_config", py_config, METH_NOARGS,
     "_sim_check_config() -> (checks, schedule, raise_errors) now."},
    {"_sim_check_reports", (PyCFunction)(void (*)(void))py_reports, METH_VARARGS | METH_KEYWORDS,
     "_sim_check_reports(since=0, clear=False) -> list of report dicts, oldest first."},
    {"_sim_profile_rows", (PyCFunction)(void (*)(void))py_profile, METH_VARARGS | METH_KEYWORDS,
     "_sim_profile_rows(clear=False) -> the teaching profile's rows as dicts, in source order."},
    {NULL, NULL, 0, NULL}};

int pcc_check_init(PyObject *module)
{
    return PyModule_AddFunctions(module, check_functions);
}
