/*
 * driver/jitlink.c — finds and opens nvJitLink (libnvJitLink.so.13 / .12), the
 * linker of relocatable device code and LTO-IR, lazily and with dlopen as
 * NVRTC is: `import pycudac` and every compile without LTO work without it.
 *
 * nvJitLink must be as new as the NVRTC that made the LTO-IR (an older one
 * refuses it), so the search starts beside the NVRTC in use and with its
 * major version's name: PYCUDAC_NVJITLINK (that file alone), the directory
 * NVRTC was loaded from (a toolkit's lib64, or the CUDA 13 wheel's
 * nvidia/cu13/lib, which holds both), the nvidia-nvjitlink wheel on
 * sys.path (nvidia/nvjitlink/lib), $CUDA_HOME/lib64, $CUDA_PATH/lib64,
 * /usr/local/cuda/lib64, then the loader's own search by soname. Every
 * place tried is named when it is not found.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver/loader.h"
#include "util/fixbuf.h"

static pcc_jitlink_table jitlink_table;
static int jitlink_loaded;
static char jitlink_path[1024];

/* The file names to try, NVRTC's major version first. */
static void library_names(const char *names[4])
{
    int major = 0, minor = 0;
    const pcc_rtc_table *rtc = pcc_rtc_nvrtc_if_loaded();
    if (rtc != NULL)
        rtc->nvrtcVersion(&major, &minor);
    int k = 0;
    if (major == 12)
        names[k++] = "libnvJitLink.so.12";
    names[k++] = "libnvJitLink.so.13";
    if (major != 12)
        names[k++] = "libnvJitLink.so.12";
    names[k++] = "libnvJitLink.so";
}

static void note(pcc_fb *tried, const char *place)
{
    if (tried->len)
        pcc_fb_str(tried, "; ");
    pcc_fb_str(tried, place);
}

/* dlopen of <dir>/<one of names>; NULL when none opens. */
static void *open_in(const char *dir, size_t dlen, const char *names[4], pcc_fb *tried)
{
    char path[1024];
    for (int i = 0; i < 4 && names[i]; i++) {
        pcc_fb b = pcc_fb_at(path, sizeof path);
        pcc_fb_mem(&b, dir, dlen);
        pcc_fb_str(&b, "/");
        pcc_fb_str(&b, names[i]);
        struct stat st;
        if (!pcc_fb_ok(&b) || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL) {
            memcpy(jitlink_path, path, strlen(path) + 1);
            return h;
        }
        note(tried, path);
        note(tried, dlerror());
    }
    pcc_fb b = pcc_fb_at(path, sizeof path);
    pcc_fb_mem(&b, dir, dlen);
    if (pcc_fb_ok(&b))
        note(tried, path);
    return NULL;
}

/* The wheels: <site-packages>/nvidia/{cu13,nvjitlink}/lib. */
static void *open_in_wheels(const char *names[4], pcc_fb *tried)
{
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    if (sys_path == NULL || !PyList_Check(sys_path))
        return NULL;
    static const char *const subdirs[] = {"/nvidia/cu13/lib", "/nvidia/nvjitlink/lib"};
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(sys_path); i++) {
        PyObject *entry = PyList_GET_ITEM(sys_path, i);
        const char *base = PyUnicode_Check(entry) ? PyUnicode_AsUTF8(entry) : NULL;
        if (base == NULL) {
            PyErr_Clear();
            continue;
        }
        for (size_t k = 0; k < 2; k++) {
            char dir[1024];
            pcc_fb b = pcc_fb_at(dir, sizeof dir);
            pcc_fb_str(&b, base);
            pcc_fb_str(&b, subdirs[k]);
            struct stat st;
            if (!pcc_fb_ok(&b) || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
            void *h = open_in(dir, strlen(dir), names, tried);
            if (h != NULL)
                return h;
        }
    }
    note(tried, "site-packages/nvidia/{cu13,nvjitlink}/lib (nvidia-nvjitlink wheel)");
    return NULL;
}

static void *find_library(pcc_fb *tried)
{
    const char *names[4] = {NULL, NULL, NULL, NULL};
    library_names(names);
    const char *explicit_path = getenv("PYCUDAC_NVJITLINK");
    if (explicit_path && *explicit_path) {
        void *h = dlopen(explicit_path, RTLD_NOW | RTLD_LOCAL);
        if (h != NULL) {
            snprintf(jitlink_path, sizeof jitlink_path, "%s", explicit_path);
            return h;
        }
        note(tried, "PYCUDAC_NVJITLINK=");
        pcc_fb_str(tried, explicit_path);
        note(tried, dlerror());
        return NULL; /* an explicit choice is not second-guessed */
    }
    /* beside the NVRTC in use */
    const pcc_rtc_table *rtc = pcc_rtc_nvrtc_if_loaded();
    Dl_info info;
    if (rtc != NULL && dladdr((void *)rtc->nvrtcVersion, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash != NULL) {
            void *h = open_in(info.dli_fname, (size_t)(slash - info.dli_fname), names, tried);
            if (h != NULL)
                return h;
        }
    }
    void *h = open_in_wheels(names, tried);
    if (h != NULL)
        return h;
    static const char *const envs[] = {"CUDA_HOME", "CUDA_PATH"};
    for (size_t i = 0; i < 2; i++) {
        const char *root = getenv(envs[i]);
        if (root && *root) {
            char dir[1024];
            pcc_fb b = pcc_fb_at(dir, sizeof dir);
            pcc_fb_str(&b, root);
            pcc_fb_str(&b, "/lib64");
            if (pcc_fb_ok(&b) && (h = open_in(dir, strlen(dir), names, tried)) != NULL)
                return h;
        }
    }
    if ((h = open_in("/usr/local/cuda/lib64", strlen("/usr/local/cuda/lib64"), names, tried)))
        return h;
    for (int i = 0; i < 4 && names[i]; i++) {
        if ((h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL)) != NULL) {
            snprintf(jitlink_path, sizeof jitlink_path, "%s", names[i]);
            return h;
        }
    }
    note(tried, "the system library path (libnvJitLink.so.13, .so.12, .so)");
    return NULL;
}

/* nvJitLink<sfx>, else the versioned names its header maps that to. */
static void *resolve(void *h, const char *sfx)
{
    static const char *const forms[] = {"nvJitLink%s", "__nvJitLink%s_13_0",
                                        "__nvJitLink%s_12_0"};
    for (size_t i = 0; i < 3; i++) {
        char name[96];
        snprintf(name, sizeof name, forms[i], sfx);
        void *f = dlsym(h, name);
        if (f != NULL)
            return f;
    }
    return NULL;
}

const pcc_jitlink_table *pcc_jitlink(void)
{
    if (jitlink_loaded)
        return &jitlink_table;
    char tried_buf[4096];
    pcc_fb tried = pcc_fb_at(tried_buf, sizeof tried_buf);
    void *h = find_library(&tried);
    if (h == NULL) {
        PyErr_Format(pcc_st.RuntimeError,
                     "nvJitLink (libnvJitLink.so.13 or .12), the linker that link-time "
                     "optimization needs, was not found; install the CUDA toolkit's or "
                     "`pip install nvidia-nvjitlink` (for CUDA 12: nvidia-nvjitlink-cu12), or set "
                     "PYCUDAC_NVJITLINK to its path. Looked in: %s",
                     tried_buf);
        return NULL;
    }
#define PCC_JL_RESOLVE(ret, name, sfx, args)                                                    \
    jitlink_table.name = (ret(*) args)resolve(h, sfx);                                          \
    if (jitlink_table.name == NULL) {                                                           \
        PyErr_Format(pcc_st.RuntimeError, "%s has no nvJitLink%s: it is not nvJitLink, or too " \
                     "old", jitlink_path, sfx);                                                  \
        dlclose(h);                                                                             \
        return NULL;                                                                            \
    }
#define PCC_JL_RESOLVE_OPT(ret, name, sfx, args) jitlink_table.name = (ret(*) args)resolve(h, sfx);
    PCC_JITLINK_FUNCS(PCC_JL_RESOLVE, PCC_JL_RESOLVE_OPT)
#undef PCC_JL_RESOLVE
#undef PCC_JL_RESOLVE_OPT
    jitlink_table.path = jitlink_path;
    jitlink_loaded = 1;
    return &jitlink_table;
}

static PyObject *py_nvjitlink_info(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const pcc_jitlink_table *jl = pcc_jitlink();
    if (jl == NULL)
        return NULL;
    unsigned int major = 0, minor = 0;
    if (jl->nvJitLinkVersion != NULL && jl->nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS)
        major = minor = 0;
    return Py_BuildValue("{s:s,s:(II)}", "path", jl->path, "version", major, minor);
}

static PyMethodDef jitlink_methods[] = {
    {"nvjitlink_info", py_nvjitlink_info, METH_NOARGS,
     "nvjitlink_info() -> dict(path, version): the nvJitLink library link-time optimization "
     "uses (loads it; RuntimeError naming every place tried when it is not found)."},
    {NULL, NULL, 0, NULL}};

int pcc_jitlink_init(PyObject *module)
{
    return PyModule_AddFunctions(module, jitlink_methods);
}
