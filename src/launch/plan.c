/*
 * launch/plan.c — a Function's parameter plan, built once per Function.
 *
 * Offsets and sizes come from the driver (cuFuncGetParamInfo), kinds from the
 * kernel's declaration (a pycudac._sigparse.KernelSignature), or the C ABI
 * rules over the declared types when the driver can't say. Where the two
 * disagree the driver's layout wins and the parameter is passed by size,
 * with the reason kept for error messages. prepare() (PyCUDA's argument
 * types) refines or, with no other source, defines the plan. The packer
 * that uses the plan is src/launch/pack.c.
 */
#include "launch/plan.h"

#include <string.h>

#include "module/npy_compat.h" /* numpy/arrayobject.h, on NumPy 1.x and 2.x */


static const char *kind_names[] = {"untyped", "ptr", "i8",   "u8",  "i16", "u16",
                                   "i32",     "u32", "i64",  "u64", "f16", "bf16",
                                   "f32",     "f64", "bool", "vec", "struct", "tex", "surf"};

const char *pcc_kind_name(int kind)
{
    return (kind >= 0 && kind <= PK_SURF) ? kind_names[kind] : "?";
}

static int kind_from_name(const char *s)
{
    for (int k = 1; k <= PK_SURF; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return k;
    return -1;
}

size_t pcc_kind_size(int kind)
{
    switch (kind) {
    case PK_PTR: case PK_I64: case PK_U64: case PK_F64: case PK_TEX: case PK_SURF:
        return 8;
    case PK_I32: case PK_U32: case PK_F32:
        return 4;
    case PK_I16: case PK_U16: case PK_F16: case PK_BF16:
        return 2;
    case PK_I8: case PK_U8: case PK_BOOL:
        return 1;
    default:
        return 0;
    }
}

/* Element kind and count of a vector type from its C name (for tuples). */
static void vec_elements(const char *ctype, int *kind, int *count)
{
    static const struct { const char *prefix; int kind; } bases[] = {
        {"ulonglong", PK_U64}, {"longlong", PK_I64}, {"uchar", PK_U8}, {"char", PK_I8},
        {"ushort", PK_U16},    {"short", PK_I16},    {"uint", PK_U32}, {"int", PK_I32},
        {"ulong", PK_U64},     {"long", PK_I64},     {"float", PK_F32}, {"double", PK_F64}};
    *kind = 0;
    *count = 0;
    while (strncmp(ctype, "const ", 6) == 0 || strncmp(ctype, "volatile ", 9) == 0)
        ctype += ctype[0] == 'c' ? 6 : 9;
    if (strcmp(ctype, "dim3") == 0) {
        *kind = PK_U32, *count = 3;
        return;
    }
    if (strcmp(ctype, "__half2") == 0) {
        *kind = PK_F16, *count = 2;
        return;
    }
    if (strcmp(ctype, "__nv_bfloat162") == 0) {
        *kind = PK_BF16, *count = 2;
        return;
    }
    if (strcmp(ctype, "cuFloatComplex") == 0 || strcmp(ctype, "cuComplex") == 0 ||
        strstr(ctype, "complex<float>") != NULL) {
        *kind = PK_F32, *count = 2;
        return;
    }
    if (strcmp(ctype, "cuDoubleComplex") == 0 || strstr(ctype, "complex<double>") != NULL) {
        *kind = PK_F64, *count = 2;
        return;
    }
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        size_t n = strlen(bases[i].prefix);
        if (strncmp(ctype, bases[i].prefix, n) == 0 && ctype[n] >= '1' && ctype[n] <= '4') {
            *kind = bases[i].kind;
            *count = ctype[n] - '0';
            return;
        }
    }
}

void pcc_plan_clear(PccFunction *f)
{
    if (f->params) {
        for (int i = 0; i < f->nparams; i++) {
            Py_XDECREF(f->params[i].name);
            Py_XDECREF(f->params[i].ctype);
            Py_XDECREF(f->params[i].bytes_dtype);
            Py_XDECREF(f->params[i].elem);
            Py_XDECREF(f->params[i].elem_base);
        }
        PyMem_Free(f->params);
        f->params = NULL;
    }
    PyMem_Free(f->hot);
    f->hot = NULL;
    f->nparams = 0;
    f->argsize = 0;
    f->fast_nparams = -1;
    Py_CLEAR(f->decl);
    Py_CLEAR(f->note);
    Py_CLEAR(f->layout_error);
}

/* The driver's layout: counts, offsets, sizes. *n = -1 when unavailable.
 * `declared`: the parameter count of the kernel's source declaration, or
 * -1 when unknown. */
static int driver_layout(CUfunction fn, Py_ssize_t declared, size_t **offs, size_t **sizes, int *n)
{
    *n = -1;
    *offs = *sizes = NULL;
    if (pcc_drv.cuFuncGetParamInfo == NULL)
        return 0;
    /* The count: the driver's, where it can say (cuFuncGetParamCount), else
     * the source declaration's, whose parameters the driver then confirms
     * one by one. Only a kernel whose source is unknown, or whose
     * declaration sits under #if (declared = -1), is asked for until one
     * past its last parameter is refused: compute-sanitizer reports that
     * refusal as an API error the user did not make. */
    size_t known = 0;
    int have_count = pcc_drv.cuFuncGetParamCount != NULL &&
                     pcc_drv.cuFuncGetParamCount(fn, &known) == CUDA_SUCCESS && known <= 16384;
    if (!have_count && declared >= 0) {
        known = (size_t)declared;
        have_count = 1;
    }
    int cap = 16, count = 0;
    size_t *o = PyMem_Malloc(cap * sizeof *o), *s = PyMem_Malloc(cap * sizeof *s);
    if (o == NULL || s == NULL)
        goto nomem;
    for (;;) {
        size_t off = 0, sz = 0;
        if (have_count && (size_t)count == known)
            break;
        CUresult rc = pcc_drv.cuFuncGetParamInfo(fn, (size_t)count, &off, &sz);
        if (rc == CUDA_ERROR_INVALID_VALUE)
            break; /* past the last parameter */
        if (rc != CUDA_SUCCESS) {
            PyMem_Free(o);
            PyMem_Free(s);
            return 0; /* not supported for this function: fall back */
        }
        if (count == cap) {
            cap *= 2;
            size_t *o2 = PyMem_Realloc(o, cap * sizeof *o), *s2;
            if (o2 == NULL)
                goto nomem;
            o = o2;
            s2 = PyMem_Realloc(s, cap * sizeof *s);
            if (s2 == NULL)
                goto nomem;
            s = s2;
        }
        o[count] = off;
        s[count] = sz;
        count++;
        if (count > 16384)
            break;
    }
    *offs = o;
    *sizes = s;
    *n = count;
    return 0;
nomem:
    PyMem_Free(o);
    PyMem_Free(s);
    PyErr_NoMemory();
    return -1;
}

/* Reads one Param of a signature: kind, size, align, name, ctype. */
static int read_param(PyObject *p, int *kind, Py_ssize_t *size, Py_ssize_t *align,
                      PyObject **name, PyObject **ctype)
{
    int rc = -1;
    PyObject *k = NULL, *sz = NULL, *al = NULL;
    *name = *ctype = NULL;
    k = PyObject_GetAttr(p, pcc_st.str_kind);
    sz = k ? PyObject_GetAttr(p, pcc_st.str_size) : NULL;
    al = sz ? PyObject_GetAttrString(p, "align") : NULL;
    *name = al ? PyObject_GetAttr(p, pcc_st.str_name) : NULL;
    *ctype = *name ? PyObject_GetAttr(p, pcc_st.str_ctype) : NULL;
    if (*ctype == NULL)
        goto done;
    if (!PyUnicode_Check(k)) {
        PyErr_Format(PyExc_TypeError, "signature parameter kind must be str, not %.100s",
                     Py_TYPE(k)->tp_name);
        goto done;
    }
    *kind = kind_from_name(PyUnicode_AsUTF8(k));
    if (*kind < 0) {
        PyErr_Format(PyExc_ValueError, "unknown parameter kind %R in the signature", k);
        goto done;
    }
    *size = sz == Py_None ? -1 : PyLong_AsSsize_t(sz);
    *align = al == Py_None ? -1 : PyLong_AsSsize_t(al);
    if (PyErr_Occurred())
        goto done;
    if (*name == Py_None)
        Py_CLEAR(*name);
    if (!PyUnicode_Check(*ctype))
        Py_CLEAR(*ctype);
    rc = 0;
done:
    if (rc < 0) {
        Py_CLEAR(*name);
        Py_CLEAR(*ctype);
    }
    Py_XDECREF(k);
    Py_XDECREF(sz);
    Py_XDECREF(al);
    return rc;
}

/* A pointer Param's pointee dtype into p->elem / p->elem_base (see
 * pcc_param): Param.pointee_dtype, where the parser decides which pointees
 * are checked. */
static int read_pointee(PyObject *param, pcc_param *p)
{
    PyObject *dt = PyObject_GetAttr(param, pcc_st.str_pointee_dtype);
    if (dt == NULL)
        return -1;
    if (!PyArray_DescrCheck(dt)) { /* None: any memory */
        Py_DECREF(dt);
        return 0;
    }
    PyArray_Descr *d = (PyArray_Descr *)dt;
    p->elem = dt;
    if (PyDataType_ISCOMPLEX(d)) {
        p->elem_base = (PyObject *)PyArray_DescrFromType(d->type_num == NPY_CFLOAT ? NPY_FLOAT
                                                                                  : NPY_DOUBLE);
    } else if (PyDataType_HASFIELDS(d)) {
        /* a vector type: its components (all of one type) */
        PyObject *names = PyDataType_NAMES(d), *fields = PyDataType_FIELDS(d);
        PyObject *first = names && PyTuple_GET_SIZE(names) > 0
                              ? PyDict_GetItem(fields, PyTuple_GET_ITEM(names, 0))
                              : NULL;
        if (first != NULL && PyTuple_Check(first) && PyTuple_GET_SIZE(first) >= 1)
            p->elem_base = Py_NewRef(PyTuple_GET_ITEM(first, 0));
    }
    return 0;
}

/* f->decl: "float *a, int n" or "<8 bytes>, <4 bytes>". */
static int make_decl(PccFunction *f);

/* Records the bytes [from, to) as padding: the 8-byte words that hold them
 * join f->gap_words, or f->ngap_words becomes -1 when there are more than
 * it holds (or the parameters overlap or go backwards). */
static void note_gap(PccFunction *f, size_t from, size_t to)
{
    if (from >= to) {
        if (from > to)
            f->ngap_words = -1;
        return;
    }
    if (to > PCC_FAST_ARGS)
        f->ngap_words = -1;
    for (size_t w = from / 8 * 8; f->ngap_words >= 0 && w < to; w += 8) {
        if (f->ngap_words > 0 && f->gap_words[f->ngap_words - 1] == w)
            continue;
        if (f->ngap_words == 4)
            f->ngap_words = -1;
        else
            f->gap_words[f->ngap_words++] = (unsigned short)w;
    }
}

/* The plan is complete: the packer's compact copy, then the declaration. */
static int finish_plan(PccFunction *f)
{
    PyMem_Free(f->hot);
    f->hot = PyMem_Calloc(f->nparams ? (size_t)f->nparams : 1, sizeof(pcc_hot_param));
    if (f->hot == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    size_t end = 0;
    f->ngap_words = 0;
    for (int i = 0; i < f->nparams; i++) {
        const pcc_param *p = &f->params[i];
        f->hot[i].kind = (unsigned char)p->kind;
        f->hot[i].untyped8 = p->kind == PK_UNTYPED && p->size == 8;
        f->hot[i].int_size = pcc_int_kind_size(p->kind);
        f->hot[i].offset = (unsigned int)p->offset;
        /* a vector given as a tuple writes only its components */
        size_t written = p->kind == PK_VEC && p->elem_kind
                             ? pcc_kind_size(p->elem_kind) * (size_t)p->elem_count
                             : p->size;
        note_gap(f, end, p->offset);
        note_gap(f, p->offset + written, p->offset + p->size);
        end = p->offset + p->size;
    }
    note_gap(f, end, f->argsize);
    f->fast_nparams = f->argsize <= PCC_FAST_ARGS ? f->nparams : -1;
    return make_decl(f);
}

static int make_decl(PccFunction *f)
{
    PyObject *parts = PyList_New(f->nparams);
    if (parts == NULL)
        return -1;
    for (int i = 0; i < f->nparams; i++) {
        pcc_param *p = &f->params[i];
        PyObject *s;
        if (p->kind != PK_UNTYPED && p->ctype) {
            Py_ssize_t n = PyUnicode_GET_LENGTH(p->ctype);
            int star = n > 0 && PyUnicode_READ_CHAR(p->ctype, n - 1) == '*';
            s = p->name ? PyUnicode_FromFormat(star ? "%U%U" : "%U %U", p->ctype, p->name)
                        : PyUnicode_FromFormat("%U", p->ctype);
        } else {
            s = PyUnicode_FromFormat("<%zu bytes>", p->size);
        }
        if (s == NULL) {
            Py_DECREF(parts);
            return -1;
        }
        PyList_SET_ITEM(parts, i, s);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    if (joined == NULL)
        return -1;
    Py_XSETREF(f->decl, joined);
    return 0;
}

int pcc_plan_build(PccFunction *f, PyObject *signature, int use_driver)
{
    int rc = -1, dn = -1;
    size_t *doff = NULL, *dsize = NULL;
    PyObject *seq = NULL;
    Py_ssize_t sn = -1;

    f->fast_nparams = -1; /* until finish_plan */
    if (signature != NULL && signature != Py_None) {
        PyObject *params = PyObject_GetAttr(signature, pcc_st.str_params);
        if (params == NULL)
            goto done;
        seq = PySequence_Fast(params, "signature.params must be a sequence");
        Py_DECREF(params);
        if (seq == NULL)
            goto done;
        sn = PySequence_Fast_GET_SIZE(seq);
    }
    /* a declaration under #if/#ifdef may not be the one the compiler kept
     * (-D options): its count is not trusted, the driver's is asked for */
    Py_ssize_t trusted = sn;
    if (sn >= 0) {
        PyObject *cond = PyObject_GetAttrString(signature, "conditional");
        if (cond == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                goto done;
            PyErr_Clear();
        } else {
            int yes = PyObject_IsTrue(cond);
            Py_DECREF(cond);
            if (yes < 0)
                goto done;
            if (yes)
                trusted = -1;
        }
    }
    if (use_driver && driver_layout(f->fn, trusted, &doff, &dsize, &dn) < 0)
        goto done;
    int n = dn >= 0 ? dn : (sn >= 0 ? (int)sn : 0);
    f->nparams = n;
    f->params = PyMem_Calloc(n ? (size_t)n : 1, sizeof(pcc_param));
    if (f->params == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (dn < 0 && sn < 0) {
        f->layout_error = PyUnicode_FromString(
            "the parameter layout is unknown: the driver lacks cuFuncGetParamInfo and the "
            "kernel's source declaration is not known; call prepare() with the argument types");
        rc = f->layout_error ? 0 : -1;
        goto done;
    }
    if (dn >= 0 && sn >= 0 && dn != sn) {
        f->note = PyUnicode_FromFormat(
            "the source declares %zd parameter%s but the driver reports %d; the driver's "
            "layout is used and arguments are passed by size only",
            sn, sn == 1 ? "" : "s", dn);
        if (f->note == NULL)
            goto done;
        sn = -1; /* ignore the declaration */
    }
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        pcc_param *p = &f->params[i];
        int kind = PK_UNTYPED;
        Py_ssize_t size = -1, align = -1;
        if (sn >= 0) {
            if (read_param(PySequence_Fast_GET_ITEM(seq, i), &kind, &size, &align, &p->name,
                           &p->ctype) < 0 ||
                (kind == PK_PTR && read_pointee(PySequence_Fast_GET_ITEM(seq, i), p) < 0))
                goto done;
        }
        if (dn >= 0) {
            p->offset = doff[i];
            p->size = dsize[i];
            if (sn >= 0 && size >= 0 && (size_t)size != p->size) {
                PyObject *why = PyUnicode_FromFormat(
                    "%sparameter %d%s%U%s is declared as %U (%zd bytes) but the driver "
                    "reports %zu bytes; it is passed by size only",
                    f->note ? "; " : "", i + 1, p->name ? " '" : "", p->name ? p->name : pcc_st.str_empty,
                    p->name ? "'" : "", p->ctype ? p->ctype : pcc_st.str_empty, size, p->size);
                if (why == NULL)
                    goto done;
                if (f->note) {
                    PyObject *both = PyUnicode_Concat(f->note, why);
                    Py_DECREF(why);
                    if (both == NULL)
                        goto done;
                    Py_SETREF(f->note, both);
                } else {
                    f->note = why;
                }
                kind = PK_UNTYPED;
            }
        } else {
            /* C ABI: each parameter at the next multiple of its alignment. */
            if (size < 0 || align <= 0) {
                f->layout_error = PyUnicode_FromFormat(
                    "the parameter layout is unknown: parameter %d (%U) has a type whose size "
                    "only the driver knows, and this driver lacks cuFuncGetParamInfo",
                    i + 1, p->ctype ? p->ctype : pcc_st.str_empty);
                rc = f->layout_error ? 0 : -1;
                goto done;
            }
            off = (off + (size_t)align - 1) / (size_t)align * (size_t)align;
            p->offset = off;
            p->size = (size_t)size;
            off += (size_t)size;
        }
        p->kind = kind;
        if (kind == PK_VEC && p->ctype) {
            vec_elements(PyUnicode_AsUTF8(p->ctype), &p->elem_kind, &p->elem_count);
            if (p->elem_kind && pcc_kind_size(p->elem_kind) * (size_t)p->elem_count > p->size)
                p->elem_kind = p->elem_count = 0;
        }
        if (p->offset + p->size > f->argsize)
            f->argsize = p->offset + p->size;
    }
    rc = 0;
done:
    if (rc == 0 && finish_plan(f) < 0)
        rc = -1;
    Py_XDECREF(seq);
    PyMem_Free(doff);
    PyMem_Free(dsize);
    return rc;
}

/* ------------------------------------------------------------ prepare */

/* One PyCUDA argument type: a struct code or anything numpy.dtype takes.
 * *kind: PK_PTR, an int kind, a float kind, PK_BOOL or PK_STRUCT. */
static int prepared_type(PyObject *item, char code, int *kind, size_t *size)
{
    if (item == Py_None) { /* PyCUDA's spelling of a pointer (numpy.uintp) in a list */
        *kind = PK_PTR;
        *size = sizeof(CUdeviceptr);
        return 0;
    }
    if (item == NULL) {
        switch (code) {
        case 'P': *kind = PK_PTR; *size = 8; return 0;
        case 'b': *kind = PK_I8; break;
        case 'B': *kind = PK_U8; break;
        case 'h': *kind = PK_I16; break;
        case 'H': *kind = PK_U16; break;
        case 'i': *kind = PK_I32; break;
        case 'I': *kind = PK_U32; break;
        case 'l': case 'q': case 'n': *kind = PK_I64; break;
        case 'L': case 'Q': case 'N': *kind = PK_U64; break;
        case 'e': *kind = PK_F16; break;
        case 'f': *kind = PK_F32; break;
        case 'd': *kind = PK_F64; break;
        case '?': *kind = PK_BOOL; break;
        default:
            PyErr_Format(PyExc_ValueError, "prepare(): unknown argument type code '%c' (use "
                         "struct codes such as 'P' for a pointer, 'i', 'I', 'q', 'f', 'd')", code);
            return -1;
        }
        *size = pcc_kind_size(*kind);
        return 0;
    }
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(item, &d))
        return -1;
    /* itemsize through Python: the C field moved between NumPy 1.x and 2.x */
    PyObject *isz = PyObject_GetAttrString((PyObject *)d, "itemsize");
    Py_ssize_t n = isz ? PyLong_AsSsize_t(isz) : -1;
    Py_XDECREF(isz);
    if (n < 0) {
        Py_DECREF(d);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "prepare(): a type without a size");
        return -1;
    }
    *size = (size_t)n;
    switch (d->kind) {
    case 'i':
        *kind = *size == 1 ? PK_I8 : *size == 2 ? PK_I16 : *size == 4 ? PK_I32 : PK_I64;
        break;
    case 'u':
        *kind = *size == 1 ? PK_U8 : *size == 2 ? PK_U16 : *size == 4 ? PK_U32 : PK_U64;
        break;
    case 'f': *kind = *size == 2 ? PK_F16 : *size == 4 ? PK_F32 : PK_F64; break;
    case 'b': *kind = PK_BOOL; break;
    default: *kind = PK_STRUCT; break;
    }
    Py_DECREF(d);
    return 0;
}

static int kind_class(int k)
{
    if (k == PK_PTR || (k >= PK_I8 && k <= PK_U64) || k == PK_TEX || k == PK_SURF)
        return 1; /* integers, pointers and handles: PyCUDA passes pointers as numpy.intp */
    if (k >= PK_F16 && k <= PK_F64)
        return 2;
    if (k == PK_BOOL)
        return 3;
    return 4;
}

/* The declared C type, or the kind's name (UTF-8, for messages). */
static const char *ctype_or_kind(pcc_param *p)
{
    const char *s = p->ctype ? PyUnicode_AsUTF8(p->ctype) : NULL;
    if (s == NULL)
        PyErr_Clear();
    return s ? s : pcc_kind_name(p->kind);
}

int pcc_plan_prepare(PccFunction *f, PyObject *arg_types)
{
    int rc = -1;
    PyObject *seq = NULL;
    Py_ssize_t n;
    const char *codes = NULL;
    if (PyUnicode_Check(arg_types)) {
        codes = PyUnicode_AsUTF8AndSize(arg_types, &n);
        if (codes == NULL)
            return -1;
    } else {
        seq = PySequence_Fast(arg_types, "prepare(): arg_types must be a string of struct "
                                         "codes or a sequence of numpy dtypes");
        if (seq == NULL)
            return -1;
        n = PySequence_Fast_GET_SIZE(seq);
    }
    int *kinds = PyMem_Calloc(n ? (size_t)n : 1, sizeof(int));
    size_t *sizes = PyMem_Calloc(n ? (size_t)n : 1, sizeof(size_t));
    if (kinds == NULL || sizes == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (prepared_type(seq ? PySequence_Fast_GET_ITEM(seq, i) : NULL, codes ? codes[i] : 0,
                          &kinds[i], &sizes[i]) < 0)
            goto done;
    if (f->layout_error) {
        /* Nothing else knows the layout: the prepared types define it (C ABI). */
        pcc_plan_clear(f);
        f->params = PyMem_Calloc(n ? (size_t)n : 1, sizeof(pcc_param));
        if (f->params == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        f->nparams = (int)n;
        size_t off = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            size_t al = sizes[i] >= 8 ? 8 : sizes[i] ? sizes[i] : 1;
            if (kinds[i] == PK_STRUCT)
                al = sizes[i] % 16 == 0 ? 16 : sizes[i] % 8 == 0 ? 8 : sizes[i] % 4 == 0 ? 4 : 1;
            off = (off + al - 1) / al * al;
            f->params[i].offset = off;
            f->params[i].size = sizes[i];
            f->params[i].kind = kinds[i] == PK_STRUCT ? PK_UNTYPED
                                : kind_class(kinds[i]) == 1 ? PK_UNTYPED : kinds[i];
            off += sizes[i];
        }
        f->argsize = off;
        rc = finish_plan(f);
        goto done;
    }
    if (n != f->nparams) {
        PyErr_Format(PyExc_ValueError, "prepare(): %zd argument types given, but kernel '%U' "
                     "takes %d (%U)", n, f->name, f->nparams, f->decl);
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        pcc_param *p = &f->params[i];
        if (sizes[i] != p->size) {
            PyErr_Format(PyExc_ValueError, "prepare(): argument %zd of kernel '%U' is %zu bytes "
                         "(%s) but the parameter is %zu bytes (%s)", i + 1, f->name, sizes[i],
                         pcc_kind_name(kinds[i]), p->size, ctype_or_kind(p));
            goto done;
        }
        if (p->kind != PK_UNTYPED && kind_class(p->kind) != kind_class(kinds[i]) &&
            !(p->kind == PK_VEC || p->kind == PK_STRUCT)) {
            PyErr_Format(PyExc_ValueError, "prepare(): argument %zd of kernel '%U' is given as "
                         "%s but the kernel declares %s", i + 1, f->name,
                         pcc_kind_name(kinds[i]), ctype_or_kind(p));
            goto done;
        }
    }
    /* all checked: a refused prepare() changes nothing */
    for (Py_ssize_t i = 0; i < n; i++)
        if (f->params[i].kind == PK_UNTYPED &&
            (kind_class(kinds[i]) == 2 || kind_class(kinds[i]) == 3))
            f->params[i].kind = kinds[i];
    rc = finish_plan(f);
done:
    PyMem_Free(kinds);
    PyMem_Free(sizes);
    Py_XDECREF(seq);
    return rc;
}

int pcc_plan_init(PyObject *module)
{
    if (PyArray_API == NULL) {
        import_array1(-1);
    }
    return pcc_pack_init(module);
}
