/*
 * stub_graphics.c — the stub driver's CUDA arrays, texture and surface
 * objects and OpenGL interop (compiled with stub_libcuda.c into one
 * library: see that file). The stub has no texture unit; its one array is a
 * mapped GL image's, and its graphics calls are logged for the tests.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pycudac/cudadrv.h"

#define API __attribute__((visibility("default")))

CUresult cuCtxGetCurrent(CUcontext *pctx); /* stub_libcuda.c's */

/* The context current in this thread (NULL: none). */
static CUcontext current(void)
{
    CUcontext c = NULL;
    cuCtxGetCurrent(&c);
    return c;
}

/* CUDA arrays, texture and surface objects: the stub has no texture unit. */
API CUresult cuArrayCreate_v2(CUarray *arr, const CUDA_ARRAY_DESCRIPTOR *desc)
{
    (void)arr, (void)desc;
    return CUDA_ERROR_NOT_SUPPORTED;
}

API CUresult cuArray3DCreate_v2(CUarray *arr, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
    (void)arr, (void)desc;
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* The one array there is: a mapped GL image's (below), 4 x 2 RGBA8, whose
 * byte i reads as (i * 3) & 0xff. */
struct CUarray_st {
    int unused;
};
static struct CUarray_st gl_array;
static void gl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

API CUresult cuArrayDestroy(CUarray arr)
{
    if (arr == &gl_array)
        gl_log("array_destroy"); /* the mapping's array: never destroyed by pycudac */
    return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *desc, CUarray arr)
{
    if (arr != &gl_array)
        return CUDA_ERROR_INVALID_HANDLE;
    CUDA_ARRAY3D_DESCRIPTOR d = {4, 2, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
    *desc = d;
    return CUDA_SUCCESS;
}

API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c)
{
    if (c->srcMemoryType != CU_MEMORYTYPE_ARRAY || c->srcArray != &gl_array ||
        c->dstMemoryType != CU_MEMORYTYPE_HOST || c->WidthInBytes * c->Height > 32)
        return CUDA_ERROR_NOT_SUPPORTED;
    for (size_t i = 0; i < c->WidthInBytes * c->Height; i++)
        ((unsigned char *)c->dstHost)[i] = (unsigned char)(i * 3);
    gl_log("array_copy %zu", c->WidthInBytes * c->Height);
    return CUDA_SUCCESS;
}

API CUresult cuTexObjectCreate(CUtexObject *obj, const CUDA_RESOURCE_DESC *res,
                               const CUDA_TEXTURE_DESC *tex, const void *view)
{
    (void)obj, (void)res, (void)tex, (void)view;
    return CUDA_ERROR_NOT_SUPPORTED;
}

API CUresult cuTexObjectDestroy(CUtexObject obj)
{
    (void)obj;
    return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuSurfObjectCreate(CUsurfObject *obj, const CUDA_RESOURCE_DESC *res)
{
    (void)obj, (void)res;
    return CUDA_ERROR_NOT_SUPPORTED;
}

API CUresult cuSurfObjectDestroy(CUsurfObject obj)
{
    (void)obj;
    return CUDA_ERROR_INVALID_HANDLE;
}

/* OpenGL interop: a resource remembers what was registered; a buffer maps to
 * 256 bytes of real memory (so copies through the stub work), an image to
 * gl_array. Every call is one line of the log stub_gl_log reads, so tests
 * see what pycudac asked, in which order, without a GPU or GL. */
struct CUgraphicsResource_st {
    unsigned char mem[256]; /* first: calloc's alignment */
    unsigned int name, is_image, mapped;
    CUcontext ctx; /* current at registration */
};
static char gl_text[8192];
static size_t gl_len;

static void gl_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(gl_text + gl_len, sizeof gl_text - gl_len, fmt, ap);
    va_end(ap);
    if (n > 0 && gl_len + (size_t)n + 1 < sizeof gl_text) {
        gl_len += (size_t)n;
        gl_text[gl_len++] = '\n';
        gl_text[gl_len] = 0;
    }
}

/* Copies the log (NUL-terminated, up to cap) and forgets it. */
API size_t stub_gl_log(char *out, size_t cap)
{
    if (cap == 0)
        return 0;
    size_t n = gl_len < cap ? gl_len : cap - 1;
    memcpy(out, gl_text, n);
    out[n] = 0;
    gl_len = 0;
    return n;
}

static CUresult gl_register(CUgraphicsResource *res, unsigned int name, unsigned int is_image)
{
    if (name == 0)
        return CUDA_ERROR_INVALID_VALUE; /* GL's name 0 is no object */
    struct CUgraphicsResource_st *r = calloc(1, sizeof *r);
    if (r == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    r->name = name;
    r->is_image = is_image;
    r->ctx = current();
    *res = r;
    return CUDA_SUCCESS;
}

/* 1 when the context current now is the one `r` was registered in. */
static int gl_same_ctx(CUgraphicsResource r)
{
    return current() != NULL && current() == r->ctx;
}

API CUresult cuGraphicsGLRegisterBuffer(CUgraphicsResource *res, unsigned int buffer,
                                        unsigned int flags)
{
    gl_log("register_buffer %u flags=%u ctx=%d", buffer, flags, current() ? 1 : 0);
    return gl_register(res, buffer, 0);
}

API CUresult cuGraphicsGLRegisterImage(CUgraphicsResource *res, unsigned int image,
                                       unsigned int target, unsigned int flags)
{
    gl_log("register_image %u target=%u flags=%u", image, target, flags);
    return gl_register(res, image, 1);
}

API CUresult cuGraphicsUnregisterResource(CUgraphicsResource r)
{
    gl_log("unregister %u mapped=%u own_ctx=%d", r->name, r->mapped, gl_same_ctx(r));
    free(r);
    return CUDA_SUCCESS;
}

static CUresult gl_map(unsigned int n, CUgraphicsResource *res, CUstream s, unsigned int map)
{
    for (unsigned int i = 0; i < n; i++) {
        gl_log("%s %u stream=%s%s", map ? "map" : "unmap", res[i]->name, s ? "S" : "0",
               gl_same_ctx(res[i]) ? "" : " (another context)");
        if (res[i]->mapped == map)
            return map ? CUDA_ERROR_ALREADY_MAPPED : CUDA_ERROR_NOT_MAPPED;
        res[i]->mapped = map;
    }
    return CUDA_SUCCESS;
}

API CUresult cuGraphicsMapResources(unsigned int n, CUgraphicsResource *res, CUstream s)
{
    return gl_map(n, res, s, 1);
}

API CUresult cuGraphicsUnmapResources(unsigned int n, CUgraphicsResource *res, CUstream s)
{
    return gl_map(n, res, s, 0);
}

API CUresult cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *p, size_t *size,
                                                   CUgraphicsResource r)
{
    gl_log("pointer %u", r->name);
    if (!r->mapped || r->is_image)
        return r->mapped ? CUDA_ERROR_NOT_MAPPED_AS_POINTER : CUDA_ERROR_NOT_MAPPED;
    *p = (CUdeviceptr)(uintptr_t)r->mem;
    *size = sizeof r->mem;
    return CUDA_SUCCESS;
}

API CUresult cuGraphicsSubResourceGetMappedArray(CUarray *arr, CUgraphicsResource r,
                                                 unsigned int index, unsigned int level)
{
    gl_log("array %u index=%u level=%u", r->name, index, level);
    if (!r->mapped || !r->is_image)
        return r->mapped ? CUDA_ERROR_NOT_MAPPED_AS_ARRAY : CUDA_ERROR_NOT_MAPPED;
    *arr = &gl_array;
    return CUDA_SUCCESS;
}

API CUresult cuGraphicsResourceSetMapFlags_v2(CUgraphicsResource r, unsigned int flags)
{
    gl_log("set_map_flags %u flags=%u", r->name, flags);
    return CUDA_SUCCESS;
}

API CUresult cuGLGetDevices_v2(unsigned int *count, CUdevice *devices, unsigned int max,
                               int which)
{
    gl_log("gl_devices max=%u which=%d", max, which);
    *count = 1;
    if (max > 0)
        devices[0] = 0;
    return CUDA_SUCCESS;
}
