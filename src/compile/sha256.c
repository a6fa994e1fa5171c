/*
 * compile/sha256.c — the cache key's SHA-256: a well-kept implementation (OpenSSL's,
 * which hashlib uses), never one of our own.
 */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <string.h>

#include "compile/cache.h"

static PyObject *sha256_fn; /* hashlib.sha256 */

/* module.attr, imported on first use and kept in *slot (borrowed). */
static PyObject *library_callable(PyObject **slot, const char *module, const char *attr)
{
    if (*slot == NULL) {
        PyObject *m = PyImport_ImportModule(module);
        if (m == NULL)
            return NULL;
        *slot = PyObject_GetAttrString(m, attr);
        Py_DECREF(m);
    }
    return *slot;
}

/* fn(memoryview of [p, p+n)): new reference, or NULL with an exception. */
static PyObject *call_on_memory(PyObject *fn, const void *p, size_t n)
{
    PyObject *view = PyMemoryView_FromMemory((char *)p, (Py_ssize_t)n, PyBUF_READ);
    if (view == NULL)
        return NULL;
    PyObject *out = PyObject_CallOneArg(fn, view);
    Py_DECREF(view);
    return out;
}

/* The key's SHA-256 is OpenSSL's, reached one of two ways that give the same
 * digest (a test holds them to it):
 * - directly, through SHA256_Init/Update/Final of the libcrypto that
 *   hashlib has already loaded into the process, found by walking the
 *   loaded objects (no disk search, nothing loaded that was not there):
 *   a warm start in a fresh process pays for every first call, and
 *   hashlib's path (memoryview, EVP context, hash object, digest bytes)
 *   costs three times the hashing itself there;
 * - else through hashlib.sha256 (no libcrypto in the process: a Python
 *   built without OpenSSL, or one that links it statically).
 * Both are OpenSSL's code (SHA-NI where the CPU has it); CPython's own
 * SHA-256 was tried once and was ten times slower on an entry's bytes.
 * compiler.py's import finds the functions (sha256_setup), as it imports
 * hashlib: dlsym's lookups are set-up, not part of a lookup. */
typedef struct {
    int (*init)(void *ctx);
    int (*update)(void *ctx, const void *p, size_t n);
    int (*final)(unsigned char *md, void *ctx);
} ossl_sha256;

static ossl_sha256 ossl;
static int ossl_state; /* 0: not looked for, 1: found, -1: absent */

/* dl_iterate_phdr callback: the path of a loaded libcrypto.so* (copied
 * out: dlopen is called after the walk, not inside it). */
static int find_libcrypto(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *path = info->dlpi_name;
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    if (base == NULL || path[0] != '/' || strncmp(base, "libcrypto.so", 12) != 0 ||
        strlen(path) >= PATH_MAX)
        return 0;
    strcpy(data, path);
    return 1;
}

/* OpenSSL's SHA-256 functions in the libcrypto already loaded, if any. The
 * reference RTLD_NOLOAD takes is kept: they stay valid for the life of the
 * process. 1 when found. */
static int load_ossl(ossl_sha256 *o)
{
    char path[PATH_MAX];
    if (!dl_iterate_phdr(find_libcrypto, path))
        return 0;
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        return 0;
    *(void **)&o->init = dlsym(h, "SHA256_Init");
    *(void **)&o->update = dlsym(h, "SHA256_Update");
    *(void **)&o->final = dlsym(h, "SHA256_Final");
    if (o->init && o->update && o->final)
        return 1;
    dlclose(h);
    return 0;
}

/* use 1: look for OpenSSL's functions (again), 0: use hashlib, -1: as
 * found. 1 when OpenSSL's are used, 0 for hashlib, -1 with an exception. */
static int sha256_setup(int use)
{
    if (use >= 0)
        ossl_state = use ? 0 : -1;
    if (ossl_state == 0) {
        /* hashlib loads libcrypto: import it first (compiler.py already has) */
        if (library_callable(&sha256_fn, "hashlib", "sha256") == NULL)
            return -1;
        ossl_state = load_ossl(&ossl) ? 1 : -1;
    }
    return ossl_state == 1;
}

int pcc_sha256(const void *p, size_t n, unsigned char out[32])
{
    if (ossl_state == 0 && sha256_setup(-1) < 0)
        return -1;
    if (ossl_state == 1) {
        /* SHA256_CTX is 112 bytes in every OpenSSL; room to spare */
        union {
            unsigned char bytes[512];
            uint64_t align;
        } ctx;
        if (ossl.init(&ctx) == 1 && ossl.update(&ctx, p, n) == 1 && ossl.final(out, &ctx) == 1)
            return 0;
        PyErr_SetString(PyExc_RuntimeError, "OpenSSL's SHA-256 failed");
        return -1;
    }
    PyObject *fn = library_callable(&sha256_fn, "hashlib", "sha256");
    PyObject *h = fn ? call_on_memory(fn, p, n) : NULL;
    if (h == NULL)
        return -1;
    PyObject *digest = PyObject_CallMethodNoArgs(h, pcc_st.str_digest);
    Py_DECREF(h);
    if (digest == NULL)
        return -1;
    int rc = -1;
    if (PyBytes_Check(digest) && PyBytes_GET_SIZE(digest) == 32) {
        memcpy(out, PyBytes_AS_STRING(digest), 32);
        rc = 0;
    } else {
        PyErr_SetString(PyExc_RuntimeError, "hashlib.sha256 returned an unexpected digest");
    }
    Py_DECREF(digest);
    return rc;
}

static PyObject *py_sha256_setup(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *use = Py_None;
    if (!PyArg_ParseTuple(args, "|O:sha256_setup", &use))
        return NULL;
    int how = use == Py_None ? -1 : PyObject_IsTrue(use);
    if (use != Py_None && how < 0)
        return NULL;
    int r = sha256_setup(how);
    return r < 0 ? NULL : PyUnicode_FromString(r ? "openssl" : "hashlib");
}

static PyMethodDef sha256_methods[] = {
    {"sha256_setup", py_sha256_setup, METH_VARARGS,
     "sha256_setup(openssl=None) -> 'openssl' or 'hashlib': how the cache key's SHA-256 is "
     "computed (OpenSSL's SHA256_* in the libcrypto hashlib loaded, else hashlib.sha256). "
     "Imports hashlib and finds the functions; openssl=False forces hashlib, True looks "
     "again (for tests)."},
    {NULL, NULL, 0, NULL}};

int pcc_sha256_init(PyObject *module)
{
    return PyModule_AddFunctions(module, sha256_methods);
}
