/*
 * stub_module.c — the stub driver's modules and functions (handles that
 * remember their name: any image loads, any name is found), the linker
 * (DynamicModule: checks its inputs, links nothing) and the profiler calls
 * (counted). Compiled with stub_libcuda.c into one library: see that file.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pycudac/cudadrv.h"

#define API __attribute__((visibility("default")))

struct CUmod_st {
    int unused;
};
struct CUfunc_st {
    struct CUmod_st *mod;
    char name[256];
};

CUresult cuCtxGetCurrent(CUcontext *pctx); /* stub_libcuda.c's */

static int has_context(void)
{
    CUcontext c = NULL;
    cuCtxGetCurrent(&c);
    return c != NULL;
}

/* ---- the linker (DynamicModule): checks its inputs, links nothing ---------- */

struct CUlinkState_st {
    char *error_log;
    size_t error_log_size;
    size_t inputs;
    char image[64];
};

/* cuProfilerStart/Stop: counted, for the tests of driver.start_profiler
 * (stub_profiler_calls: starts * 1000 + stops). */
static int profiler_starts, profiler_stops;

API CUresult cuProfilerStart(void)
{
    profiler_starts++;
    return has_context() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

API CUresult cuProfilerStop(void)
{
    profiler_stops++;
    return has_context() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

API int stub_profiler_calls(void) { return profiler_starts * 1000 + profiler_stops; }

API CUresult cuLinkCreate_v2(unsigned int n, int *options, void **values, CUlinkState *out)
{
    CUlinkState st = calloc(1, sizeof *st);
    if (st == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned int i = 0; i < n; i++) {
        if (options[i] == 5) /* CU_JIT_ERROR_LOG_BUFFER */
            st->error_log = values[i];
        else if (options[i] == 6) /* CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */
            st->error_log_size = (size_t)(uintptr_t)values[i];
    }
    *out = st;
    return CUDA_SUCCESS;
}

static CUresult link_error(CUlinkState st, CUresult rc, const char *what)
{
    if (st->error_log && st->error_log_size)
        snprintf(st->error_log, st->error_log_size, "error   : %s", what);
    return rc;
}

/* An input holding the text STUB_LINK_FAIL fails as an undefined symbol would. */
API CUresult cuLinkAddData_v2(CUlinkState st, int type, void *data, size_t size,
                              const char *name, unsigned int n, int *options, void **values)
{
    (void)type, (void)name, (void)n, (void)options, (void)values;
    if (st == NULL || data == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    static const char mark[] = "STUB_LINK_FAIL";
    for (size_t i = 0; i + sizeof mark - 1 <= size; i++)
        if (memcmp((const char *)data + i, mark, sizeof mark - 1) == 0)
            return link_error(st, CUDA_ERROR_INVALID_SOURCE,
                              "Undefined reference to 'STUB_LINK_FAIL'");
    st->inputs++;
    return CUDA_SUCCESS;
}

API CUresult cuLinkAddFile_v2(CUlinkState st, int type, const char *path, unsigned int n,
                              int *options, void **values)
{
    (void)type, (void)n, (void)options, (void)values;
    FILE *f = st && path ? fopen(path, "rb") : NULL;
    if (f == NULL)
        return st ? link_error(st, CUDA_ERROR_FILE_NOT_FOUND, "cannot open the file")
                  : CUDA_ERROR_INVALID_VALUE;
    fclose(f);
    st->inputs++;
    return CUDA_SUCCESS;
}

API CUresult cuLinkComplete(CUlinkState st, void **image, size_t *size)
{
    if (st == NULL || st->inputs == 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(st->image, sizeof st->image, "stub image of %zu inputs", st->inputs);
    *image = st->image;
    *size = strlen(st->image) + 1;
    return CUDA_SUCCESS;
}

API CUresult cuLinkDestroy(CUlinkState st)
{
    free(st);
    return CUDA_SUCCESS;
}

/* ---- modules and functions: handles only ---------------------------------- */

API CUresult cuModuleLoadData(CUmodule *pm, const void *image)
{
    if (image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUmodule m = calloc(1, sizeof *m);
    if (m == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *pm = m;
    return CUDA_SUCCESS;
}

API CUresult cuModuleUnload(CUmodule m)
{
    /* the functions handed out stay valid (leaked): nobody may use them after unload */
    free(m);
    return CUDA_SUCCESS;
}

API CUresult cuModuleGetFunction(CUfunction *pf, CUmodule m, const char *name)
{
    if (m == NULL || name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUfunction f = calloc(1, sizeof *f);
    if (f == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    f->mod = m;
    strncpy(f->name, name, sizeof f->name - 1);
    *pf = f;
    return CUDA_SUCCESS;
}

API CUresult cuModuleGetGlobal_v2(CUdeviceptr *d, size_t *bytes, CUmodule m, const char *name)
{
    (void)d;
    (void)bytes;
    (void)m;
    (void)name;
    return CUDA_ERROR_NOT_FOUND;
}

API CUresult cuFuncGetAttribute(int *pi, int attr, CUfunction f)
{
    if (f == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 2; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = 49152; break;
    default:
        if (attr < 0 || attr > 16)
            return CUDA_ERROR_INVALID_VALUE;
        *pi = 0;
    }
    return CUDA_SUCCESS;
}

API CUresult cuFuncSetAttribute(CUfunction f, int attr, int value)
{
    (void)attr;
    (void)value;
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuFuncSetCacheConfig(CUfunction f, int config)
{
    if (f == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    return config >= 0 && config <= 3 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size)
{
    (void)f;
    (void)index;
    (void)offset;
    (void)size;
    return CUDA_ERROR_NOT_SUPPORTED; /* pycudac falls back to the C ABI layout */
}
