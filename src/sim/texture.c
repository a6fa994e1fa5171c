/*
 * sim/texture.c — CUDA arrays, cuMemcpy3D, texture and surface objects on
 * the CPU simulator, and what a kernel's tex*() and surf*() calls reach
 * through the api (sim_api_tex_fetch, sim_api_surf_access).
 *
 * An array is host memory (rows of Width elements, Height rows a slice,
 * Depth slices or layers) with its descriptor, charged against device
 * memory as the GPU would. Texture and surface objects are slots of one
 * table; a handle is its slot's index plus one, so 0 is never live. The
 * table's lock is read by every fetch and written by create and destroy.
 *
 * Fetches follow the CUDA Programming Guide's appendix on texture fetching:
 * coordinates in texels (or in [0, 1) scaled by the size when normalized),
 * texel centres at i + 0.5; point filtering takes texel floor(x); linear
 * filtering takes texels floor(x - 0.5) and the next one, weighted by the
 * fraction of x - 0.5 quantized to 8 fractional bits (round to nearest).
 * Wrap and mirror need normalized coordinates; without them they clamp.
 */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SIM_ARRAY_MAGIC 0x53415252u /* "SARR" */

struct CUarray_st {
    unsigned int magic;
    CUDA_ARRAY3D_DESCRIPTOR d;
    size_t esize;        /* bytes of one element (all channels) */
    size_t w, h, depth;  /* extents, each at least 1 */
    int dims;            /* 1, 2 or 3 (a layered array: 1 or 2, depth counts layers) */
    unsigned char *data; /* w * h * depth elements */
    size_t charged;
};

/* One texture or surface object: what a fetch needs, copied at creation. */
typedef struct {
    int live, surface;
    int linear;          /* tex1Dfetch's linear memory (else an array) */
    int format;          /* CU_AD_FORMAT_* */
    unsigned int nch;    /* channels */
    size_t esize;
    size_t w, h, depth;  /* linear: w elements */
    int dims, layered;
    unsigned char *data; /* the array's memory, or the device address */
    CUarray array;
    int address[3], filter;
    int as_int, normalized;
    float border[4];
} sim_texobj;

static pthread_rwlock_t tex_lock = PTHREAD_RWLOCK_INITIALIZER;
static sim_texobj *table;
static size_t table_len;

static int valid_array(CUarray a)
{
    return a != NULL && a->magic == SIM_ARRAY_MAGIC;
}

/* ---- arrays ------------------------------------------------------------------------------ */

static CUresult sim_cuArray3DCreate(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (out == NULL || d == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    size_t fs = pcc_array_format_bytes(d->Format);
    int layered = (d->Flags & CUDA_ARRAY3D_LAYERED) != 0;
    if (fs == 0 || (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) ||
        d->Width == 0 || (d->Flags & ~(unsigned)(CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST)) ||
        (d->Height == 0 && d->Depth != 0 && !layered) || (layered && d->Depth == 0))
        return CUDA_ERROR_INVALID_VALUE;
    /* the device's limits (an H100's: 2D 131072 x 65536, 3D 16384 cubed, 2048 layers) */
    if (d->Width > 131072 || d->Height > 65536 || d->Depth > 16384)
        return CUDA_ERROR_INVALID_VALUE;
    CUarray a = calloc(1, sizeof *a);
    if (a == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->magic = SIM_ARRAY_MAGIC;
    a->d = *d;
    a->esize = fs * d->NumChannels;
    a->w = d->Width;
    a->h = d->Height ? d->Height : 1;
    a->depth = d->Depth ? d->Depth : 1;
    a->dims = d->Height == 0 ? 1 : (d->Depth == 0 || layered) ? 2 : 3;
    size_t bytes = a->w * a->h * a->depth * a->esize;
    a->charged = (bytes + 511) / 512 * 512;
    if ((rc = sim_mem_charge(a->charged)) != CUDA_SUCCESS) {
        free(a);
        return rc;
    }
    /* zeroed, as no GPU promises but every test prefers */
    a->data = calloc(1, bytes);
    if (a->data == NULL) {
        sim_mem_uncharge(a->charged);
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *out = a;
    return CUDA_SUCCESS;
}

static CUresult sim_cuArrayCreate(CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d)
{
    if (d == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d3 = {d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
    return sim_cuArray3DCreate(out, &d3);
}

static CUresult sim_cuArrayDestroy(CUarray a)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!valid_array(a))
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_rwlock_wrlock(&tex_lock);
    for (size_t i = 0; i < table_len; i++)
        if (table[i].live && table[i].array == a) {
            /* the driver lets an object outlive its array; a fetch then
             * reads nothing: mark it dead rather than read freed memory */
            table[i].live = -1;
        }
    a->magic = 0;
    pthread_rwlock_unlock(&tex_lock);
    sim_mem_uncharge(a->charged);
    free(a->data);
    free(a);
    return CUDA_SUCCESS;
}

static CUresult sim_cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (d == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!valid_array(a))
        return CUDA_ERROR_INVALID_HANDLE;
    *d = a->d;
    return CUDA_SUCCESS;
}

/* ---- cuMemcpy3D ----------------------------------------------------------------------------- */

/* One side of a copy: where its (x bytes, y, z) origin is, a row's and a
 * slice's bytes, and its extent where it has one. */
typedef struct {
    unsigned char *base;
    size_t pitch, slice;
    size_t rows, slices, row_bytes; /* arrays only; 0: unbounded */
    uintptr_t device;               /* device memory: its address, for the registry */
} side;

static CUresult copy_side(int type, const void *host, CUdeviceptr dev, CUarray arr, size_t pitch,
                          size_t height, const CUDA_MEMCPY3D *c, side *s)
{
    memset(s, 0, sizeof *s);
    switch (type) {
    case CU_MEMORYTYPE_ARRAY:
        if (!valid_array(arr))
            return CUDA_ERROR_INVALID_HANDLE;
        s->base = arr->data;
        s->row_bytes = arr->w * arr->esize;
        s->pitch = s->row_bytes;
        s->rows = arr->h;
        s->slices = arr->depth;
        s->slice = s->pitch * arr->h;
        return CUDA_SUCCESS;
    case CU_MEMORYTYPE_HOST:
    case CU_MEMORYTYPE_DEVICE:
        if (type == CU_MEMORYTYPE_HOST ? host == NULL : dev == 0)
            return CUDA_ERROR_INVALID_VALUE;
        s->base = type == CU_MEMORYTYPE_HOST ? (unsigned char *)(uintptr_t)host
                                             : (unsigned char *)(uintptr_t)dev;
        s->device = type == CU_MEMORYTYPE_DEVICE ? (uintptr_t)dev : 0;
        s->pitch = pitch ? pitch : c->WidthInBytes;
        if (s->pitch < c->WidthInBytes)
            return CUDA_ERROR_INVALID_VALUE;
        s->slice = s->pitch * (height ? height : c->Height);
        if (c->Depth > 1 && height < c->Height)
            return CUDA_ERROR_INVALID_VALUE;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* Whether the box at (x, y, z) fits side s; for device memory, whether
 * every byte it spans lies in one allocation. */
static CUresult box_fits(const side *s, size_t x, size_t y, size_t z, const CUDA_MEMCPY3D *c)
{
    if (s->row_bytes) {
        if (x > s->row_bytes || c->WidthInBytes > s->row_bytes - x || y > s->rows ||
            c->Height > s->rows - y || z > s->slices || c->Depth > s->slices - z)
            return CUDA_ERROR_INVALID_VALUE;
        return CUDA_SUCCESS;
    }
    if (s->device) {
        size_t first = z * s->slice + y * s->pitch + x;
        size_t span = (c->Depth - 1) * s->slice + (c->Height - 1) * s->pitch + c->WidthInBytes;
        return sim_registry_check_range(s->device + first, span);
    }
    return CUDA_SUCCESS;
}

static CUresult sim_cuMemcpy3D(const CUDA_MEMCPY3D *c)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (c == NULL || c->srcLOD || c->dstLOD || c->reserved0 || c->reserved1)
        return CUDA_ERROR_INVALID_VALUE;
    if (c->WidthInBytes == 0 || c->Height == 0 || c->Depth == 0)
        return CUDA_SUCCESS;
    side s, d;
    pthread_rwlock_rdlock(&tex_lock); /* an array is not freed under the copy */
    if ((rc = copy_side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcPitch,
                        c->srcHeight, c, &s)) != CUDA_SUCCESS ||
        (rc = copy_side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstPitch,
                        c->dstHeight, c, &d)) != CUDA_SUCCESS ||
        (rc = box_fits(&s, c->srcXInBytes, c->srcY, c->srcZ, c)) != CUDA_SUCCESS ||
        (rc = box_fits(&d, c->dstXInBytes, c->dstY, c->dstZ, c)) != CUDA_SUCCESS) {
        pthread_rwlock_unlock(&tex_lock);
        return rc;
    }
    for (size_t z = 0; z < c->Depth; z++)
        for (size_t y = 0; y < c->Height; y++) {
            unsigned char *to = d.base + (c->dstZ + z) * d.slice + (c->dstY + y) * d.pitch +
                                c->dstXInBytes;
            const unsigned char *from = s.base + (c->srcZ + z) * s.slice +
                                        (c->srcY + y) * s.pitch + c->srcXInBytes;
            memmove(to, from, c->WidthInBytes);
            if (d.device)
                sim_registry_written((uintptr_t)to, c->WidthInBytes, s.device ? (uintptr_t)from : 0);
        }
    pthread_rwlock_unlock(&tex_lock);
    return CUDA_SUCCESS;
}

/* ---- texture and surface objects -------------------------------------------------------------- */

/* Takes a free slot (under the write lock) and fills it: the handle. */
static CUresult add_object(const sim_texobj *o, unsigned long long *handle)
{
    pthread_rwlock_wrlock(&tex_lock);
    size_t i = 0;
    while (i < table_len && table[i].live)
        i++;
    if (i == table_len) {
        size_t n = table_len ? table_len * 2 : 64;
        sim_texobj *t = realloc(table, n * sizeof *t);
        if (t == NULL) {
            pthread_rwlock_unlock(&tex_lock);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        memset(t + table_len, 0, (n - table_len) * sizeof *t);
        table = t;
        table_len = n;
    }
    table[i] = *o;
    table[i].live = 1;
    pthread_rwlock_unlock(&tex_lock);
    *handle = (unsigned long long)i + 1;
    return CUDA_SUCCESS;
}

static CUresult drop_object(unsigned long long h, int surface)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    rc = CUDA_ERROR_INVALID_HANDLE;
    pthread_rwlock_wrlock(&tex_lock);
    if (h >= 1 && h <= table_len && table[h - 1].live && table[h - 1].surface == surface) {
        memset(&table[h - 1], 0, sizeof table[h - 1]);
        rc = CUDA_SUCCESS;
    }
    pthread_rwlock_unlock(&tex_lock);
    return rc;
}

/* The resource part of an object (array or linear memory) into o. */
static CUresult resource(const CUDA_RESOURCE_DESC *r, sim_texobj *o)
{
    if (r == NULL || r->flags)
        return CUDA_ERROR_INVALID_VALUE;
    if (r->resType == CU_RESOURCE_TYPE_ARRAY) {
        CUarray a = r->res.array.hArray;
        if (!valid_array(a))
            return CUDA_ERROR_INVALID_HANDLE;
        o->array = a;
        o->data = a->data;
        o->format = a->d.Format;
        o->nch = a->d.NumChannels;
        o->esize = a->esize;
        o->w = a->w;
        o->h = a->h;
        o->depth = a->depth;
        o->dims = a->dims;
        o->layered = (a->d.Flags & CUDA_ARRAY3D_LAYERED) != 0;
        return CUDA_SUCCESS;
    }
    if (r->resType == CU_RESOURCE_TYPE_LINEAR) {
        size_t fs = pcc_array_format_bytes(r->res.linear.format);
        unsigned int n = r->res.linear.numChannels;
        /* TEXTURE_ALIGNMENT (256), counted from the allocation's start: a GPU's
         * allocations start aligned, the simulator's end at a guard page */
        sim_alloc al;
        if (fs == 0 || (n != 1 && n != 2 && n != 4) || r->res.linear.devPtr == 0 ||
            r->res.linear.sizeInBytes == 0 ||
            !sim_registry_lookup((uintptr_t)r->res.linear.devPtr, &al) ||
            ((uintptr_t)r->res.linear.devPtr - al.base) % 256 != 0)
            return CUDA_ERROR_INVALID_VALUE;
        if (sim_registry_check_range(r->res.linear.devPtr, r->res.linear.sizeInBytes) !=
            CUDA_SUCCESS)
            return CUDA_ERROR_INVALID_VALUE;
        o->linear = 1;
        o->data = (unsigned char *)(uintptr_t)r->res.linear.devPtr;
        o->format = r->res.linear.format;
        o->nch = n;
        o->esize = fs * n;
        o->w = r->res.linear.sizeInBytes / o->esize;
        o->h = o->depth = 1;
        o->dims = 1;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_SUPPORTED; /* mipmapped and pitched 2D resources */
}

static int is_int32(int format)
{
    return format == CU_AD_FORMAT_UNSIGNED_INT32 || format == CU_AD_FORMAT_SIGNED_INT32;
}

static int is_float_format(int format)
{
    return format == CU_AD_FORMAT_FLOAT || format == CU_AD_FORMAT_HALF;
}

static CUresult sim_cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *r,
                                      const CUDA_TEXTURE_DESC *t, const void *view)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (out == NULL || t == NULL || view != NULL)
        return CUDA_ERROR_INVALID_VALUE;
    sim_texobj o;
    memset(&o, 0, sizeof o);
    pthread_rwlock_rdlock(&tex_lock);
    rc = resource(r, &o);
    pthread_rwlock_unlock(&tex_lock);
    if (rc != CUDA_SUCCESS)
        return rc;
    for (int i = 0; i < 3; i++) {
        if (t->addressMode[i] < CU_TR_ADDRESS_MODE_WRAP ||
            t->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER)
            return CUDA_ERROR_INVALID_VALUE;
        o.address[i] = t->addressMode[i];
    }
    if (t->filterMode != CU_TR_FILTER_MODE_POINT && t->filterMode != CU_TR_FILTER_MODE_LINEAR)
        return CUDA_ERROR_INVALID_VALUE;
    o.filter = t->filterMode;
    o.as_int = !is_float_format(o.format) &&
               ((t->flags & CU_TRSF_READ_AS_INTEGER) || is_int32(o.format));
    o.normalized = (t->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    /* linear filtering interpolates floats only */
    if (o.filter == CU_TR_FILTER_MODE_LINEAR && o.as_int)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(o.border, t->borderColor, sizeof o.border);
    return add_object(&o, out);
}

static CUresult sim_cuTexObjectDestroy(CUtexObject h)
{
    return drop_object(h, 0);
}

static CUresult sim_cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *r)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (out == NULL || r == NULL || r->resType != CU_RESOURCE_TYPE_ARRAY)
        return CUDA_ERROR_INVALID_VALUE;
    sim_texobj o;
    memset(&o, 0, sizeof o);
    pthread_rwlock_rdlock(&tex_lock);
    rc = resource(r, &o);
    if (rc == CUDA_SUCCESS && !(o.array->d.Flags & CUDA_ARRAY3D_SURFACE_LDST))
        rc = CUDA_ERROR_INVALID_VALUE; /* the array was not made for surface access */
    pthread_rwlock_unlock(&tex_lock);
    if (rc != CUDA_SUCCESS)
        return rc;
    o.surface = 1;
    return add_object(&o, out);
}

static CUresult sim_cuSurfObjectDestroy(CUsurfObject h)
{
    return drop_object(h, 1);
}

void sim_fill_texture_table(pcc_driver_table *t)
{
    t->cuArrayCreate = sim_cuArrayCreate;
    t->cuArray3DCreate = sim_cuArray3DCreate;
    t->cuArrayDestroy = sim_cuArrayDestroy;
    t->cuArray3DGetDescriptor = sim_cuArray3DGetDescriptor;
    t->cuMemcpy3D = sim_cuMemcpy3D;
    t->cuTexObjectCreate = sim_cuTexObjectCreate;
    t->cuTexObjectDestroy = sim_cuTexObjectDestroy;
    t->cuSurfObjectCreate = sim_cuSurfObjectCreate;
    t->cuSurfObjectDestroy = sim_cuSurfObjectDestroy;
}

/* ---- what kernels call ------------------------------------------------------------------------ */

static const char *const shape_names[] = {"tex1Dfetch", "tex1D", "tex2D", "tex3D",
                                          "tex1DLayered", "tex2DLayered"};

/* The live object of handle h under the read lock (taken here; the caller
 * unlocks), or a failed launch. */
static const sim_texobj *object_for(pcc_sim_thread *t, unsigned long long h, int surface,
                                    const char *what)
{
    pthread_rwlock_rdlock(&tex_lock);
    if (h >= 1 && h <= table_len && table[h - 1].live == 1 && table[h - 1].surface == surface)
        return &table[h - 1];
    int dead = h >= 1 && h <= table_len && table[h - 1].live == -1;
    pthread_rwlock_unlock(&tex_lock);
    sim_fail(t, CUDA_ERROR_ILLEGAL_ADDRESS, "%s on %s %#llx, which is no live %s object%s", what,
             surface ? "surface" : "texture", h, surface ? "surface" : "texture",
             dead ? " (its array was freed)" : "");
}

/* Ends the launch after releasing the table's lock (an object_for caller). */
static _Noreturn void fail_unlocked(pcc_sim_thread *t, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pthread_rwlock_unlock(&tex_lock);
    sim_fail(t, CUDA_ERROR_ILLEGAL_ADDRESS, "%s", text);
}

/* A texel's channels as the fetch returns them: floats (normalized
 * integers, halves, floats) or integers. */
static float half_to_float(unsigned short h)
{
    unsigned int sign = (unsigned int)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023;
    float f;
    if (e == 0)
        f = ldexpf((float)m, -24);
    else if (e == 31)
        f = m ? NAN : INFINITY;
    else
        f = ldexpf((float)(m | 1024), (int)e - 25);
    unsigned int bits;
    memcpy(&bits, &f, 4);
    bits |= sign;
    memcpy(&f, &bits, 4);
    return f;
}

static void read_texel(const sim_texobj *o, const unsigned char *p, float f[4], int v[4])
{
    for (unsigned int c = 0; c < 4; c++) {
        long long x = 0;
        float y = 0;
        if (c < o->nch) {
            switch (o->format) {
            case CU_AD_FORMAT_UNSIGNED_INT8: x = p[c]; y = (float)x / 255.0f; break;
            case CU_AD_FORMAT_SIGNED_INT8:
                x = (signed char)p[c];
                y = fmaxf((float)x / 127.0f, -1.0f);
                break;
            case CU_AD_FORMAT_UNSIGNED_INT16: {
                unsigned short u;
                memcpy(&u, p + 2 * c, 2);
                x = u;
                y = (float)x / 65535.0f;
                break;
            }
            case CU_AD_FORMAT_SIGNED_INT16: {
                short s;
                memcpy(&s, p + 2 * c, 2);
                x = s;
                y = fmaxf((float)x / 32767.0f, -1.0f);
                break;
            }
            case CU_AD_FORMAT_UNSIGNED_INT32: {
                unsigned int u;
                memcpy(&u, p + 4 * c, 4);
                x = u;
                break;
            }
            case CU_AD_FORMAT_SIGNED_INT32: {
                int s;
                memcpy(&s, p + 4 * c, 4);
                x = s;
                break;
            }
            case CU_AD_FORMAT_HALF: {
                unsigned short u;
                memcpy(&u, p + 2 * c, 2);
                y = half_to_float(u);
                break;
            }
            default: memcpy(&y, p + 4 * c, 4); break;
            }
        }
        f[c] = y;
        v[c] = (int)(unsigned int)x;
    }
}

/* Texel index i along a dimension of n texels under address mode m: the
 * index to read, or -1 for the border. */
static long long address(long long i, long long n, int m, int normalized)
{
    if (i >= 0 && i < n)
        return i;
    if (m == CU_TR_ADDRESS_MODE_BORDER)
        return -1;
    if (!normalized || m == CU_TR_ADDRESS_MODE_CLAMP)
        return i < 0 ? 0 : n - 1;
    if (m == CU_TR_ADDRESS_MODE_WRAP)
        return ((i % n) + n) % n;
    long long j = ((i % (2 * n)) + 2 * n) % (2 * n); /* mirror: period 2n */
    return j < n ? j : 2 * n - 1 - j;
}

/* A coordinate in texels: normalized ones are wrapped or mirrored into
 * [0, 1) first, then scaled by the size. */
static float texel_coord(float x, long long n, int m, int normalized)
{
    if (!normalized)
        return x;
    if (m == CU_TR_ADDRESS_MODE_WRAP) {
        x -= floorf(x);
    } else if (m == CU_TR_ADDRESS_MODE_MIRROR) {
        float f = floorf(x);
        float r = x - f;
        x = ((long long)f & 1) ? 1.0f - r : r;
    }
    return x * (float)n;
}

/* Texel (i, j, k) of layer: its channels, or the border colour. */
static void texel_at(const sim_texobj *o, long long i, long long j, long long k, int layer,
                     float f[4], int v[4])
{
    long long ii = address(i, (long long)o->w, o->address[0], o->normalized);
    long long jj = o->dims >= 2 ? address(j, (long long)o->h, o->address[1], o->normalized) : 0;
    long long kk = o->dims == 3 && !o->layered
                       ? address(k, (long long)o->depth, o->address[2], o->normalized)
                       : layer;
    if (ii < 0 || jj < 0 || kk < 0) {
        for (int c = 0; c < 4; c++) {
            f[c] = o->border[c];
            v[c] = (int)o->border[c];
        }
        return;
    }
    const unsigned char *p =
        o->data + (((size_t)kk * o->h + (size_t)jj) * o->w + (size_t)ii) * o->esize;
    read_texel(o, p, f, v);
}

/* The linear filter's weight: frac(x), 8 fractional bits. */
static float weight(float xb, long long *i)
{
    float fl = floorf(xb);
    *i = (long long)fl;
    return rintf((xb - fl) * 256.0f) / 256.0f;
}

void sim_api_tex_fetch(pcc_sim_thread *t, unsigned long long h, int shape, int want_float,
                       int ix, float x, float y, float z, int layer, unsigned int out[4])
{
    const char *name = shape >= 0 && shape <= PCC_SIM_TEX_2D_LAYERED ? shape_names[shape] : "?";
    /* a copy, read under the lock that keeps its array alive (the slot
     * itself may move when the table grows) */
    sim_texobj ob = *object_for(t, h, 0, name);
    int fdims = shape == PCC_SIM_TEX_FETCH ? 1 : shape == PCC_SIM_TEX_1D_LAYERED ? 1
              : shape == PCC_SIM_TEX_2D_LAYERED ? 2 : shape;
    int flayered = shape == PCC_SIM_TEX_1D_LAYERED || shape == PCC_SIM_TEX_2D_LAYERED;
    if ((shape == PCC_SIM_TEX_FETCH) != ob.linear)
        fail_unlocked(t, "%s on texture %#llx, which reads %s (use %s)",
                 name, h, ob.linear ? "linear memory" : "a CUDA array",
                 ob.linear ? "tex1Dfetch" : "tex1D/tex2D/tex3D");
    if (!ob.linear && (fdims != ob.dims || flayered != ob.layered))
        fail_unlocked(t, "%s on texture %#llx, whose array is %s%dD", name,
                 h, ob.layered ? "layered " : "", ob.dims);
    int as_float = !ob.as_int;
    if (want_float != as_float)
        fail_unlocked(t,
                 "%s<%s> on texture %#llx, which returns %s (its format and read mode)", name,
                 want_float ? "a float type" : "an integer type", h,
                 as_float ? "floats" : "integers");
    float f[4] = {0, 0, 0, 0};
    int v[4] = {0, 0, 0, 0};
    if (ob.linear) {
        /* linear memory: no filtering, no addressing; out of range reads 0 */
        if (ix >= 0 && (size_t)ix < ob.w)
            read_texel(&ob, ob.data + (size_t)ix * ob.esize, f, v);
    } else {
        if (ob.layered)
            layer = layer < 0 ? 0 : (size_t)layer >= ob.depth ? (int)ob.depth - 1 : layer;
        else
            layer = 0;
        float cx = texel_coord(x, (long long)ob.w, ob.address[0], ob.normalized);
        float cy = fdims >= 2 ? texel_coord(y, (long long)ob.h, ob.address[1], ob.normalized) : 0;
        float cz = fdims == 3 ? texel_coord(z, (long long)ob.depth, ob.address[2], ob.normalized)
                              : 0;
        if (ob.filter == CU_TR_FILTER_MODE_POINT) {
            texel_at(&ob, (long long)floorf(cx), (long long)floorf(cy), (long long)floorf(cz),
                     layer, f, v);
        } else {
            long long i, j = 0, k = 0;
            float a = weight(cx - 0.5f, &i);
            float b = fdims >= 2 ? weight(cy - 0.5f, &j) : 0.0f;
            float g = fdims == 3 ? weight(cz - 0.5f, &k) : 0.0f;
            int nj = fdims >= 2 ? 2 : 1, nk = fdims == 3 ? 2 : 1;
            for (int dk = 0; dk < nk; dk++)
                for (int dj = 0; dj < nj; dj++)
                    for (int di = 0; di < 2; di++) {
                        float tf[4];
                        int tv[4];
                        texel_at(&ob, i + di, j + dj, k + dk, layer, tf, tv);
                        float w = (di ? a : 1.0f - a) * (nj == 2 ? (dj ? b : 1.0f - b) : 1.0f) *
                                  (nk == 2 ? (dk ? g : 1.0f - g) : 1.0f);
                        for (int c = 0; c < 4; c++)
                            f[c] += w * tf[c];
                    }
        }
    }
    pthread_rwlock_unlock(&tex_lock);
    for (int c = 0; c < 4; c++) {
        if (as_float)
            memcpy(&out[c], &f[c], 4);
        else
            out[c] = (unsigned int)v[c];
    }
}

void sim_api_surf_access(pcc_sim_thread *t, unsigned long long h, int dims, int x, int y, int z,
                         void *buf, size_t size, int write, int boundary)
{
    static const char *const names[2][4] = {{"", "surf1Dread", "surf2Dread", "surf3Dread"},
                                             {"", "surf1Dwrite", "surf2Dwrite", "surf3Dwrite"}};
    const char *name = names[write != 0][dims >= 1 && dims <= 3 ? dims : 0];
    sim_texobj ob = *object_for(t, h, 1, name);
    if (dims != ob.dims || ob.layered)
        fail_unlocked(t, "%s on surface %#llx, whose array is %s%dD", name, h,
                      ob.layered ? "layered " : "", ob.dims);
    long long row = (long long)(ob.w * ob.esize);
    long long lim[3] = {row - (long long)size, (long long)ob.h - 1, (long long)ob.depth - 1};
    long long c[3] = {x, dims >= 2 ? y : 0, dims == 3 ? z : 0};
    int out = 0;
    for (int d = 0; d < 3; d++)
        if (c[d] < 0 || c[d] > lim[d])
            out = 1;
    if (out && boundary == PCC_SIM_SURF_CLAMP) {
        for (int d = 0; d < 3; d++)
            c[d] = c[d] < 0 ? 0 : c[d] > lim[d] ? lim[d] : c[d];
        out = lim[0] < 0; /* an access wider than a row */
    }
    if (out) {
        if (boundary == PCC_SIM_SURF_ZERO) {
            pthread_rwlock_unlock(&tex_lock);
            if (!write)
                memset(buf, 0, size);
            return;
        }
        fail_unlocked(t, "%s out of bounds (cudaBoundaryModeTrap): %zu bytes at x = %d bytes, y = %d, "
                 "z = %d of surface %#llx (%zu x %zu x %zu elements of %zu bytes)",
                 name, size, x, dims >= 2 ? y : 0, dims == 3 ? z : 0, h, ob.w, ob.h, ob.depth,
                 ob.esize);
    }
    unsigned char *p = ob.data + ((size_t)c[2] * ob.h + (size_t)c[1]) * (size_t)row + (size_t)c[0];
    if (write)
        memcpy(p, buf, size);
    else
        memcpy(buf, p, size);
    pthread_rwlock_unlock(&tex_lock);
}
