/*
 * driver/loader.c — picks the backend and fills the tables at first use.
 *
 * The cuda backend opens libcuda.so.1 with dlopen and resolves the versioned
 * symbols named in cudadrv.h; the sim backend takes the CPU simulator's
 * table. NVRTC is opened on its own, lazily, through a documented search
 * order, and every place tried is listed when it is not found. Nothing here
 * runs at import: `import pycudac` works with no driver at all.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "driver/loader.h"
#include "util/fixbuf.h"

pcc_driver_table pcc_drv;

static void *libcuda;
static pcc_rtc_table nvrtc_table;
static int nvrtc_loaded;
static char nvrtc_path[1024];

static const pcc_backend cuda_backend = {
    .name = "cuda",
    .launch_blocks = 0,
    .stage_pageable_copies = 1, /* the driver's own pageable path: a few GB/s */
    .compiler = NULL,           /* NVRTC: pcc_rtc_nvrtc */
    .image_problem = pcc_cubin_problem,
    .before_load = NULL,
    .fault_detail = NULL,
    .no_linker = "linking device code: this driver has no cuLink* functions",
};

/* Opens libcuda. NULL with `why` filled on failure. */
static void *open_libcuda(char *why, size_t len)
{
    const char *explicit_path = getenv("PYCUDAC_LIBCUDA");
    const char *name = explicit_path && *explicit_path ? explicit_path : "libcuda.so.1";
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *err = dlerror();
        const char *ldp = getenv("LD_LIBRARY_PATH");
        snprintf(why, len,
                 "the NVIDIA driver library %s could not be opened (looked in: %s%s%s"
                 "the system library path — ld.so.cache, /lib, /usr/lib; set "
                 "PYCUDAC_LIBCUDA to its full path to use another): %s",
                 name, ldp ? "LD_LIBRARY_PATH=" : "", ldp ? ldp : "", ldp ? ", " : "",
                 err ? err : "unknown error");
    }
    return h;
}

/* Fills pcc_drv from libcuda; on a missing required symbol, names it. */
static int resolve_driver(void *h, char *why, size_t len)
{
#define PCC_RESOLVE(ret, name, sym, args)                                                       \
    pcc_drv.name = (ret(*) args)dlsym(h, sym);                                                  \
    if (pcc_drv.name == NULL) {                                                                 \
        snprintf(why, len, "the driver library has no %s: it is older than pycudac supports",   \
                 sym);                                                                          \
        return -1;                                                                              \
    }
#define PCC_RESOLVE_OPT(ret, name, sym, args) pcc_drv.name = (ret(*) args)dlsym(h, sym);
    PCC_DRIVER_FUNCS(PCC_RESOLVE, PCC_RESOLVE_OPT)
#undef PCC_RESOLVE
#undef PCC_RESOLVE_OPT
    return 0;
}

/* Tries the cuda backend. 1: loaded. 0: not usable, `why` says why and
 * *no_device tells a driver without devices from no driver at all. */
static int try_cuda(char *why, size_t len, int *no_device)
{
    *no_device = 0;
    void *h = libcuda ? libcuda : open_libcuda(why, len);
    if (h == NULL)
        return 0;
    libcuda = h;
    CUresult (*init)(unsigned int) = (CUresult(*)(unsigned int))dlsym(h, "cuInit");
    CUresult (*count)(int *) = (CUresult(*)(int *))dlsym(h, "cuDeviceGetCount");
    if (init == NULL || count == NULL) {
        snprintf(why, len, "the library opened as libcuda has no cuInit/cuDeviceGetCount");
        return 0;
    }
    CUresult rc = init(0);
    int n = 0;
    if (rc == CUDA_SUCCESS)
        rc = count(&n);
    if (rc != CUDA_SUCCESS || n == 0) {
        *no_device = 1;
        if (rc == CUDA_SUCCESS || rc == CUDA_ERROR_NO_DEVICE)
            snprintf(why, len, "no CUDA device: the NVIDIA driver is installed but reports no "
                               "usable GPU (cuInit/cuDeviceGetCount: %d devices, code %d)",
                     n, (int)rc);
        else
            snprintf(why, len, "the NVIDIA driver failed to initialize (cuInit returned %d)",
                     (int)rc);
        return 0;
    }
    if (resolve_driver(h, why, len) < 0)
        return 0;
    return 1;
}

/* PYCUDAC_SIM_WITHOUT="cuFuncGetParamCount ...": optional entry points the
 * simulator leaves out, as a driver older than them would, so the fallbacks
 * for such drivers run in CI. Only optional ones: a required one missing is
 * a driver pycudac refuses. */
static int sim_without(void)
{
    const char *list = getenv("PYCUDAC_SIM_WITHOUT");
    if (list == NULL)
        return 0;
    while (*list) {
        size_t n = strcspn(list, " ,");
        if (n == 0) {
            list++;
            continue;
        }
        int found = 0;
#define PCC_SKIP_REQ(ret, name, sym, args)
#define PCC_DROP_OPT(ret, name, sym, args)                                                      \
    if (!found && strlen(sym) == n && memcmp(sym, list, n) == 0) {                              \
        pcc_drv.name = NULL;                                                                    \
        found = 1;                                                                              \
    }
        PCC_DRIVER_FUNCS(PCC_SKIP_REQ, PCC_DROP_OPT)
#undef PCC_SKIP_REQ
#undef PCC_DROP_OPT
        if (!found) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(n < 127 ? n : 127), list);
            PyErr_Format(PyExc_ValueError,
                         "PYCUDAC_SIM_WITHOUT: '%s' is not an optional driver entry point "
                         "(only those can be left out)",
                         name);
            return -1;
        }
        list += n;
    }
    return 0;
}

/* The simulator's check mode from the environment (PYCUDAC_SIM_CHECK,
 * PYCUDAC_SIM_SCHEDULE), once its backend is chosen. 0, or -1 with
 * ValueError. */
static int check_from_env(const pcc_backend *be)
{
    const char *checks = getenv("PYCUDAC_SIM_CHECK");
    const char *sched = getenv("PYCUDAC_SIM_SCHEDULE");
    if (be->check_configure == NULL ||
        ((checks == NULL || *checks == '\0') && (sched == NULL || *sched == '\0')))
        return 0;
    char err[256];
    if (be->check_configure(checks ? checks : "", sched ? sched : "", 1, err, sizeof err) < 0) {
        PyErr_Format(PyExc_ValueError, "PYCUDAC_SIM_CHECK=%s PYCUDAC_SIM_SCHEDULE=%s: %s",
                     checks ? checks : "", sched ? sched : "", err);
        return -1;
    }
    return 0;
}

int pcc_backend_load(void)
{
    const char *choice = getenv("PYCUDAC_BACKEND");
    if (choice == NULL || *choice == '\0')
        choice = "auto";
    const pcc_backend *be;
    if (strcmp(choice, "sim") == 0) {
        be = pcc_sim_backend(&pcc_drv);
    } else if (strcmp(choice, "cuda") == 0 || strcmp(choice, "auto") == 0) {
        char why[1024];
        int no_device;
        if (try_cuda(why, sizeof why, &no_device)) {
            be = &cuda_backend;
        } else if (strcmp(choice, "cuda") == 0) {
            PyErr_Format(pcc_st.RuntimeError, "PYCUDAC_BACKEND=cuda: %s", why);
            return -1;
        } else {
            be = pcc_sim_backend(&pcc_drv);
            PySys_FormatStderr("pycudac: %s; running kernels on the CPU simulator "
                               "(PYCUDAC_BACKEND=sim silences this notice).\n",
                               why);
        }
    } else {
        PyErr_Format(PyExc_ValueError,
                     "PYCUDAC_BACKEND must be 'cuda', 'sim' or 'auto', not '%s'", choice);
        return -1;
    }
    if (be != &cuda_backend && sim_without() < 0)
        return -1;
    if (pcc_check(pcc_drv.cuInit(0), "cuInit") < 0)
        return -1;
    pcc_st.backend = be;
    return check_from_env(be);
}

int pcc_ready_slow(void)
{
    if (pcc_st.forked)
        return pcc_raise_forked();
    if (pcc_st.poison_code)
        return pcc_raise_poisoned();
    if (pcc_st.backend == NULL && pcc_backend_load() < 0)
        return -1;
    return 0;
}

/* ---- NVRTC ---------------------------------------------------------------- */

static const char *const nvrtc_names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
#define N_NVRTC_NAMES (sizeof nvrtc_names / sizeof nvrtc_names[0])

static void note_tried(char *tried, size_t len, const char *place)
{
    size_t used = strlen(tried), n = strlen(place);
    if (used + 2 + n >= len)
        return; /* the list of places tried is full: the rest is left out */
    pcc_fb b = {tried, len, used, 0};
    if (used)
        pcc_fb_mem(&b, "; ", 2);
    pcc_fb_mem(&b, place, n);
}

/* Where NVRTC would be loaded from, found without loading it (stat only), so
 * that a warm cache hit can name the compiler in its key without paying for
 * dlopen of a 100 MB library. The search order is the documented one:
 * PYCUDAC_NVRTC, a library already loaded in the process, the
 * nvidia-cuda-nvrtc wheel on sys.path, CUDA_HOME/CUDA_PATH, /usr/local/cuda,
 * then the loader's own search by soname. */
enum { NVRTC_NONE = 0, NVRTC_FILE = 1, NVRTC_LOADED = 2, NVRTC_SONAME = 3 };

/* A regular file at `path` (one stat, kept in *st for the identity: a warm
 * start pays for every syscall of this search). */
static int is_file(const char *path, struct stat *st)
{
    return stat(path, st) == 0 && S_ISREG(st->st_mode);
}

/* out = the first blen bytes of base, "/", rel. 0 when it does not fit. */
static int join_path(char *out, size_t outlen, const char *base, size_t blen, const char *rel)
{
    pcc_fb b = pcc_fb_at(out, outlen);
    pcc_fb_mem(&b, base, blen);
    pcc_fb_mem(&b, "/", 1);
    pcc_fb_str(&b, rel);
    return pcc_fb_ok(&b);
}

/* out = "<dir>/<name>", then is_file. */
static int probe(char *out, size_t outlen, const char *dir, const char *name, struct stat *st)
{
    return join_path(out, outlen, dir, strlen(dir), name) && is_file(out, st);
}

static int file_in_dir(const char *dir, char *out, size_t outlen, struct stat *st, char *tried,
                       size_t len)
{
    for (size_t i = 0; i < N_NVRTC_NAMES; i++)
        if (probe(out, outlen, dir, nvrtc_names[i], st))
            return NVRTC_FILE;
    note_tried(tried, len, dir);
    return NVRTC_NONE;
}

/* A sys.path entry that pip installs wheels into. */
static int is_packages_dir(const char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    static const char *const names[] = {"site-packages", "dist-packages"};
    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(names[i]);
        if (n >= k && memcmp(p + n - k, names[i], k) == 0 && (n == k || p[n - k - 1] == '/'))
            return 1;
    }
    return 0;
}

/* The nvidia-cuda-nvrtc wheel: <site-packages>/nvidia/{cu13,cuda_nvrtc}/lib. */
static int file_in_wheel(char *out, size_t outlen, struct stat *st, char *tried, size_t len)
{
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    if (sys_path != NULL && PyList_Check(sys_path)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(sys_path); i++) {
            PyObject *entry = PyList_GET_ITEM(sys_path, i);
            const char *base = PyUnicode_Check(entry) ? PyUnicode_AsUTF8(entry) : NULL;
            if (base == NULL) {
                PyErr_Clear();
                continue;
            }
            /* A warm cache hit pays for this search on every start (a path
             * lookup costs microseconds in a VM): only site-packages-like
             * entries; the CUDA 13 wheel's file first, so that with it
             * installed that is the only probe, then one probe for nvidia/
             * before the rest, so that without any wheel there are two. */
            if (!is_packages_dir(base))
                continue;
            int blen = (int)strlen(base); /* without trailing slashes: one spelling */
            while (blen > 1 && base[blen - 1] == '/')
                blen--;
            /* each layout's own major version's name first (the one it
             * ships), then the rest */
            static const struct {
                const char *dir;
                size_t first; /* index into nvrtc_names */
            } wheels[] = {{"nvidia/cu13/lib", 0}, {"nvidia/cuda_nvrtc/lib", 1}};
            char dir[1024];
            if (!join_path(dir, sizeof dir, base, (size_t)blen, wheels[0].dir))
                continue;
            if (probe(out, outlen, dir, nvrtc_names[wheels[0].first], st))
                return NVRTC_FILE;
            struct stat dst;
            if (!join_path(dir, sizeof dir, base, (size_t)blen, "nvidia") || stat(dir, &dst) != 0 ||
                !S_ISDIR(dst.st_mode))
                continue;
            for (size_t k = 0; k < 2; k++) {
                if (!join_path(dir, sizeof dir, base, (size_t)blen, wheels[k].dir))
                    continue;
                /* (cu13's own name was probed above; errno is still its) */
                if (k > 0 && probe(out, outlen, dir, nvrtc_names[wheels[k].first], st))
                    return NVRTC_FILE;
                if (errno == ENOENT && stat(dir, &dst) != 0)
                    continue; /* no such directory: no other name either */
                for (size_t n = 0; n < N_NVRTC_NAMES; n++)
                    if (n != wheels[k].first && probe(out, outlen, dir, nvrtc_names[n], st))
                        return NVRTC_FILE;
            }
        }
    }
    note_tried(tried, len, "site-packages/nvidia/{cu13,cuda_nvrtc}/lib (nvidia-cuda-nvrtc wheel)");
    return NVRTC_NONE;
}

struct loaded_search {
    char *out;
    size_t outlen;
    int found;
};

/* dl_iterate_phdr callback: a loaded libnvrtc.so* (not libnvrtc-builtins). */
static int find_loaded_nvrtc(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct loaded_search *ls = data;
    const char *path = info->dlpi_name;
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    if (base == NULL || strncmp(base, "libnvrtc.so", 11) != 0 || path[0] != '/')
        return 0;
    pcc_fb b = pcc_fb_at(ls->out, ls->outlen);
    pcc_fb_str(&b, path);
    ls->found = pcc_fb_ok(&b);
    return ls->found;
}

/* Where NVRTC is (out) and how it was found; for NVRTC_FILE, *st is its stat. */
static int locate_nvrtc(char *out, size_t outlen, struct stat *st, char *tried, size_t len)
{
    const char *explicit_path = getenv("PYCUDAC_NVRTC");
    if (explicit_path && *explicit_path) {
        pcc_fb b = pcc_fb_at(out, outlen);
        pcc_fb_str(&b, explicit_path);
        if (pcc_fb_ok(&b) && is_file(out, st))
            return NVRTC_FILE;
        note_tried(tried, len, "PYCUDAC_NVRTC=");
        note_tried(tried, len, explicit_path);
    }
    /* Walk the loaded objects rather than dlopen(RTLD_NOLOAD): a NOLOAD
     * dlopen by soname still searches the disk, ~100 µs a name. */
    struct loaded_search ls = {out, outlen, 0};
    dl_iterate_phdr(find_loaded_nvrtc, &ls);
    if (ls.found)
        return NVRTC_LOADED;
    note_tried(tried, len, "libraries already loaded in this process");
    int found = file_in_wheel(out, outlen, st, tried, len);
    const char *envs[] = {"CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < 2 && !found; i++) {
        const char *root = getenv(envs[i]);
        if (root && *root) {
            char dir[1024];
            if (join_path(dir, sizeof dir, root, strlen(root), "lib64"))
                found = file_in_dir(dir, out, outlen, st, tried, len);
        }
    }
    if (!found)
        found = file_in_dir("/usr/local/cuda/lib64", out, outlen, st, tried, len);
    return found ? found : NVRTC_SONAME;
}

static void *find_nvrtc(char *tried, size_t len)
{
    char where[1024];
    struct stat st;
    int how = locate_nvrtc(where, sizeof where, &st, tried, len);
    if (how == NVRTC_FILE || how == NVRTC_LOADED) {
        void *h = dlopen(where, RTLD_NOW | RTLD_LOCAL);
        if (h) {
            if (snprintf(nvrtc_path, sizeof nvrtc_path, "%s%s", where,
                         how == NVRTC_LOADED ? " (already loaded)" : "") < 0)
                nvrtc_path[0] = '\0';
            return h;
        }
        note_tried(tried, len, where);
        note_tried(tried, len, dlerror());
        return NULL;
    }
    for (size_t i = 0; i < N_NVRTC_NAMES; i++) {
        void *h = dlopen(nvrtc_names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(nvrtc_path, sizeof nvrtc_path, "%s", nvrtc_names[i]);
            return h;
        }
    }
    note_tried(tried, len, "the system library path (libnvrtc.so.13, .so.12, .so)");
    return NULL;
}

/* "path size=N mtime=T ino=I dev=D": names one NVRTC build in every process.
 * One stat, no realpath (which costs a readlink per path component): the
 * inode and device already tell two files apart, whatever links lead there. */
static int format_identity(const char *path, const struct stat *st, char *out, size_t len)
{
    pcc_fb b = pcc_fb_at(out, len);
    pcc_fb_str(&b, path);
    pcc_fb_str(&b, " size=");
    pcc_fb_i64(&b, (long long)st->st_size);
    pcc_fb_str(&b, " mtime=");
    pcc_fb_i64(&b, (long long)st->st_mtim.tv_sec);
    pcc_fb_mem(&b, ".", 1);
    pcc_fb_u64(&b, (unsigned long long)st->st_mtim.tv_nsec, 9);
    pcc_fb_str(&b, " ino=");
    pcc_fb_u64(&b, (unsigned long long)st->st_ino, 0);
    pcc_fb_str(&b, " dev=");
    pcc_fb_u64(&b, (unsigned long long)st->st_dev, 0);
    return pcc_fb_ok(&b) ? 0 : -1;
}

static int identity_of_file(const char *path, char *out, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    return format_identity(path, &st, out, len);
}

int pcc_nvrtc_identity(char *out, size_t len, int allow_load)
{
    if (nvrtc_loaded || allow_load) {
        const pcc_rtc_table *rtc = pcc_rtc_nvrtc();
        if (rtc == NULL)
            return -1;
        Dl_info info;
        if (dladdr((void *)rtc->nvrtcVersion, &info) && info.dli_fname &&
            identity_of_file(info.dli_fname, out, len) == 0)
            return 1;
        snprintf(out, len, "%s", nvrtc_path);
        return 1;
    }
    char where[1024], tried[2048] = "";
    struct stat st;
    int how = locate_nvrtc(where, sizeof where, &st, tried, sizeof tried);
    if (how == NVRTC_FILE && format_identity(where, &st, out, len) == 0)
        return 1;
    if (PyErr_Occurred())
        return -1;
    return 0; /* only loading it would tell */
}

const pcc_rtc_table *pcc_rtc_nvrtc(void)
{
    if (nvrtc_loaded)
        return &nvrtc_table;
    char tried[4096] = "";
    void *h = find_nvrtc(tried, sizeof tried);
    if (h == NULL) {
        PyErr_Format(pcc_st.RuntimeError,
                     "the NVRTC library (libnvrtc) was not found; install the CUDA toolkit or "
                     "`pip install pycudac[nvrtc]`, or set PYCUDAC_NVRTC to its path. Looked in: %s",
                     tried);
        return NULL;
    }
#define PCC_RTC_RESOLVE(ret, name, sym, args)                                                   \
    nvrtc_table.name = (ret(*) args)dlsym(h, sym);                                              \
    if (nvrtc_table.name == NULL) {                                                             \
        PyErr_Format(pcc_st.RuntimeError, "%s has no %s: NVRTC is too old", nvrtc_path, sym);   \
        return NULL;                                                                            \
    }
#define PCC_RTC_RESOLVE_OPT(ret, name, sym, args) nvrtc_table.name = (ret(*) args)dlsym(h, sym);
    PCC_RTC_FUNCS(PCC_RTC_RESOLVE, PCC_RTC_RESOLVE_OPT)
#undef PCC_RTC_RESOLVE
#undef PCC_RTC_RESOLVE_OPT
    nvrtc_table.kind = "nvrtc";
    nvrtc_table.identity = nvrtc_path;
    nvrtc_loaded = 1;
    return &nvrtc_table;
}

const pcc_rtc_table *pcc_rtc_nvrtc_if_loaded(void)
{
    return nvrtc_loaded ? &nvrtc_table : NULL;
}

const pcc_rtc_table *pcc_rtc_for_backend(void)
{
    if (pcc_ready() < 0)
        return NULL;
    return pcc_st.backend->compiler ? pcc_st.backend->compiler() : pcc_rtc_nvrtc();
}

const pcc_rtc_table *pcc_rtc_by_name(const char *name)
{
    if (strcmp(name, "nvrtc") == 0)
        return pcc_rtc_nvrtc();
    if (strcmp(name, "sim") == 0)
        return pcc_sim_rtc_get();
    PyErr_Format(PyExc_ValueError, "compiler must be 'nvrtc' or 'sim', not '%s'", name);
    return NULL;
}

static PyObject *py_get_backend(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (pcc_ready() < 0)
        return NULL;
    return PyUnicode_FromString(pcc_st.backend->name);
}

static PyObject *py_nvrtc_path(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    if (pcc_rtc_nvrtc() == NULL)
        return NULL;
    return PyUnicode_FromString(nvrtc_path);
}

static PyObject *py_nvrtc_identity(PyObject *self, PyObject *args)
{
    (void)self;
    int allow_load = 1;
    if (!PyArg_ParseTuple(args, "|p:nvrtc_identity", &allow_load))
        return NULL;
    char ident[2048];
    int r = pcc_nvrtc_identity(ident, sizeof ident, allow_load);
    if (r < 0)
        return NULL;
    if (r == 0)
        Py_RETURN_NONE;
    return PyUnicode_FromString(ident);
}

/* What names NVRTC in the cache key: its library file (looked up once per
 * process, without loading it where stat can tell) and CUDA_HOME/CUDA_PATH,
 * which pick the toolkit headers a compile adds. */
PyObject *pcc_nvrtc_key_identity(void)
{
    static char file[2048];
    if (file[0] == '\0') {
        char ident[2048];
        int r = pcc_nvrtc_identity(ident, sizeof ident, 0);
        if (r == 0)
            r = pcc_nvrtc_identity(ident, sizeof ident, 1);
        if (r < 0)
            return NULL;
        memcpy(file, ident, sizeof file);
    }
    const char *home = getenv("CUDA_HOME"), *path = getenv("CUDA_PATH");
    char buf[8192];
    pcc_fb b = pcc_fb_at(buf, sizeof buf);
    pcc_fb_str(&b, file);
    pcc_fb_mem(&b, "\0CUDA_HOME=", 11);
    pcc_fb_str(&b, home ? home : "");
    pcc_fb_mem(&b, "\0CUDA_PATH=", 11);
    pcc_fb_str(&b, path ? path : "");
    if (!pcc_fb_ok(&b)) {
        PyErr_SetString(PyExc_ValueError, "CUDA_HOME or CUDA_PATH is implausibly long");
        return NULL;
    }
    return PyUnicode_DecodeFSDefaultAndSize(buf, (Py_ssize_t)b.len);
}

static PyObject *py_nvrtc_key_identity(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return pcc_nvrtc_key_identity();
}

static PyMethodDef loader_methods[] = {
    {"nvrtc_key_identity", py_nvrtc_key_identity, METH_NOARGS,
     "nvrtc_key_identity() -> 'identity\\0CUDA_HOME=...\\0CUDA_PATH=...': what names NVRTC in "
     "the cache key (the library file as nvrtc_identity says, found once per process)."},
    {"nvrtc_identity", py_nvrtc_identity, METH_VARARGS,
     "nvrtc_identity(load=True): 'path size=N mtime=T ino=I dev=D' of the NVRTC library pycudac "
     "uses; "
     "with load=False, found without loading it (None when only loading would tell)."},
    {"get_backend", py_get_backend, METH_NOARGS,
     "The backend in use, 'cuda' or 'sim' (loads it on first call)."},
    {"_nvrtc_path", py_nvrtc_path, METH_NOARGS, "Where the NVRTC library was found."},
    {NULL, NULL, 0, NULL}};

int pcc_loader_init(PyObject *module)
{
    if (pcc_jitlink_init(module) < 0)
        return -1;
    return PyModule_AddFunctions(module, loader_methods);
}
