/*
 * stub_graphics.c — the stub driver's CUDA arrays, texture and surface
 * objects and OpenGL interop (compiled with stub_libcuda.c into one
 * library: see that file). Arrays hold their bytes in host memory; the stub
 * has no texture unit; every call here is logged for the tests.
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

/* CUDA arrays in host memory, dense (rows of Width x element bytes), so
 * that copies in and out of them work; texture and surface objects are
 * numbered handles over them (the stub has no texture unit: nothing reads
 * them). Each call is a line of the log (stub_gl_log), so tests see which
 * array each object reads and what the driver was asked. */
struct CUarray_st {
    CUDA_ARRAY3D_DESCRIPTOR d;
    unsigned char *data;
    int gl; /* the mapped GL image's (below): never pycudac's to destroy */
};
static void gl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one GL image there is: 4 x 2 RGBA8, whose byte i reads (i * 3) & 0xff. */
static unsigned char gl_data[32];
static struct CUarray_st gl_array = {{4, 2, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0}, gl_data, 1};

#define STUB_MAX_OBJECTS 256
static CUarray live_arrays[STUB_MAX_OBJECTS];
static struct {
    unsigned long long handle;
    CUarray array;
    int surface;
} live_objects[STUB_MAX_OBJECTS];
static unsigned long long next_handle = 0x100;

static int array_live(CUarray a)
{
    if (a == &gl_array)
        return 1;
    for (int i = 0; a != NULL && i < STUB_MAX_OBJECTS; i++)
        if (live_arrays[i] == a)
            return 1;
    return 0;
}

static size_t elem_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    return pcc_array_format_bytes(d->Format) * d->NumChannels;
}

static size_t extent(size_t n)
{
    return n ? n : 1;
}

static CUresult array_new(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    if (out == NULL || d == NULL || elem_bytes(d) == 0 || d->Width == 0 ||
        (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) ||
        (d->Height == 0 && d->Depth > 0 && !(d->Flags & CUDA_ARRAY3D_LAYERED)))
        return CUDA_ERROR_INVALID_VALUE;
    int slot = -1;
    for (int i = 0; i < STUB_MAX_OBJECTS && slot < 0; i++)
        if (live_arrays[i] == NULL)
            slot = i;
    struct CUarray_st *a = slot < 0 ? NULL : calloc(1, sizeof *a);
    size_t bytes = d->Width * elem_bytes(d) * extent(d->Height) * extent(d->Depth);
    if (a == NULL || (a->data = calloc(1, bytes)) == NULL) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->d = *d;
    live_arrays[slot] = a;
    *out = a;
    gl_log("array_create %zux%zux%zu format=%d channels=%u flags=%u ctx=%d", d->Width,
           d->Height, d->Depth, d->Format, d->NumChannels, d->Flags, current() ? 1 : 0);
    return CUDA_SUCCESS;
}

API CUresult cuArrayCreate_v2(CUarray *arr, const CUDA_ARRAY_DESCRIPTOR *desc)
{
    if (desc == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d = {desc->Width, desc->Height, 0, desc->Format,
                                 desc->NumChannels, 0};
    return array_new(arr, &d);
}

API CUresult cuArray3DCreate_v2(CUarray *arr, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
    return array_new(arr, desc);
}

API CUresult cuArrayDestroy(CUarray arr)
{
    if (arr == &gl_array) {
        gl_log("array_destroy"); /* the mapping's array: never destroyed by pycudac */
        return CUDA_ERROR_INVALID_HANDLE;
    }
    for (int i = 0; arr != NULL && i < STUB_MAX_OBJECTS; i++)
        if (live_arrays[i] == arr) {
            int readers = 0;
            for (int k = 0; k < STUB_MAX_OBJECTS; k++)
                readers += live_objects[k].handle && live_objects[k].array == arr;
            gl_log("array_free %zux%zux%zu readers=%d", arr->d.Width, arr->d.Height,
                   arr->d.Depth, readers);
            live_arrays[i] = NULL;
            free(arr->data);
            free(arr);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *desc, CUarray arr)
{
    if (!array_live(arr))
        return CUDA_ERROR_INVALID_HANDLE;
    *desc = arr->d;
    return CUDA_SUCCESS;
}

/* One side of a copy: its first byte, row pitch and rows a slice; NULL
 * when the box does not fit an array (or the kind is not the stub's). */
static unsigned char *copy_side(int type, const void *host, CUdeviceptr dev, CUarray arr,
                                size_t x, size_t y, size_t z, size_t pitch, size_t height,
                                const CUDA_MEMCPY3D *c, size_t *pitch_out, size_t *height_out)
{
    if (type == CU_MEMORYTYPE_ARRAY) {
        if (!array_live(arr))
            return NULL;
        size_t row = arr->d.Width * elem_bytes(&arr->d), rows = extent(arr->d.Height);
        if (x + c->WidthInBytes > row || y + extent(c->Height) > rows ||
            z + extent(c->Depth) > extent(arr->d.Depth))
            return NULL;
        if (arr->gl)
            for (size_t i = 0; i < sizeof gl_data; i++)
                gl_data[i] = (unsigned char)(i * 3);
        *pitch_out = row;
        *height_out = rows;
        return arr->data + z * row * rows + y * row + x;
    }
    unsigned char *base = type == CU_MEMORYTYPE_HOST     ? (unsigned char *)host
                          : type == CU_MEMORYTYPE_DEVICE ? (unsigned char *)(uintptr_t)dev
                                                         : NULL;
    if (base == NULL || (pitch < x + c->WidthInBytes && (c->Height > 1 || c->Depth > 1)) ||
        (height < y + extent(c->Height) && c->Depth > 1))
        return NULL;
    *pitch_out = pitch;
    *height_out = height;
    return base + z * pitch * height + y * pitch + x;
}

API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c)
{
    size_t sp = 0, sh = 0, dp = 0, dh = 0;
    unsigned char *src = copy_side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray,
                                   c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch, c->srcHeight,
                                   c, &sp, &sh);
    unsigned char *dst = copy_side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray,
                                   c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch, c->dstHeight,
                                   c, &dp, &dh);
    if (src == NULL || dst == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t z = 0; z < extent(c->Depth); z++)
        for (size_t y = 0; y < extent(c->Height); y++)
            memmove(dst + z * dp * dh + y * dp, src + z * sp * sh + y * sp, c->WidthInBytes);
    if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY && c->srcArray == &gl_array)
        gl_log("array_copy %zu", c->WidthInBytes * extent(c->Height));
    else
        gl_log("copy3d %d->%d %zux%zux%zu", c->srcMemoryType, c->dstMemoryType,
               c->WidthInBytes, extent(c->Height), extent(c->Depth));
    return CUDA_SUCCESS;
}

static CUresult object_new(unsigned long long *out, const CUDA_RESOURCE_DESC *res, int surface)
{
    if (out == NULL || res == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUarray arr = NULL;
    if (res->resType == CU_RESOURCE_TYPE_ARRAY) {
        arr = res->res.array.hArray;
        if (!array_live(arr))
            return CUDA_ERROR_INVALID_HANDLE;
        if (surface && !(arr->d.Flags & CUDA_ARRAY3D_SURFACE_LDST))
            return CUDA_ERROR_INVALID_VALUE; /* the driver's rule */
    } else if (surface || res->resType != CU_RESOURCE_TYPE_LINEAR ||
               res->res.linear.devPtr == 0 || res->res.linear.sizeInBytes == 0) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (int i = 0; i < STUB_MAX_OBJECTS; i++)
        if (live_objects[i].handle == 0) {
            live_objects[i].handle = *out = next_handle++;
            live_objects[i].array = arr;
            live_objects[i].surface = surface;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult object_free(unsigned long long h, int surface, const char *what)
{
    for (int i = 0; h != 0 && i < STUB_MAX_OBJECTS; i++)
        if (live_objects[i].handle == h && live_objects[i].surface == surface) {
            gl_log("%s_destroy %llu array_live=%d", what, h,
                   live_objects[i].array == NULL || array_live(live_objects[i].array));
            live_objects[i].handle = 0;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_HANDLE;
}

API CUresult cuTexObjectCreate(CUtexObject *obj, const CUDA_RESOURCE_DESC *res,
                               const CUDA_TEXTURE_DESC *tex, const void *view)
{
    if (tex == NULL || view != NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = object_new(obj, res, 0);
    if (rc == CUDA_SUCCESS)
        gl_log("tex_create %llu %s modes=%d,%d,%d filter=%d flags=%u border=%g", *obj,
               res->resType == CU_RESOURCE_TYPE_ARRAY ? "array" : "linear",
               tex->addressMode[0], tex->addressMode[1], tex->addressMode[2], tex->filterMode,
               tex->flags, (double)tex->borderColor[0]);
    return rc;
}

API CUresult cuTexObjectDestroy(CUtexObject obj)
{
    return object_free(obj, 0, "tex");
}

API CUresult cuSurfObjectCreate(CUsurfObject *obj, const CUDA_RESOURCE_DESC *res)
{
    CUresult rc = object_new(obj, res, 1);
    if (rc == CUDA_SUCCESS)
        gl_log("surf_create %llu", *obj);
    return rc;
}

API CUresult cuSurfObjectDestroy(CUsurfObject obj)
{
    return object_free(obj, 1, "surf");
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
