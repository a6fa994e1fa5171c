/*
 * sim/prelude/texture_indirect_functions.h — texture and surface objects in
 * device code: cudaTextureObject_t / cudaSurfaceObject_t (64-bit handles),
 * tex1Dfetch, tex1D, tex2D, tex3D, tex1DLayered, tex2DLayered and
 * surf1D/2D/3D read and write, with CUDA's names and overloads (the value
 * form and the pointer form). Part of cuda_runtime.h, which includes it
 * where it stands; it also stands for CUDA's surface_indirect_functions.h.
 *
 * The runtime does the addressing, filtering and conversion (sim/texture.c,
 * through the api's tex_fetch and surf_access); this side only says which
 * fetch and turns the four 32-bit words it gets back into T.
 */
#pragma once

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

enum cudaSurfaceBoundaryMode { cudaBoundaryModeZero = 0, cudaBoundaryModeClamp = 1,
                               cudaBoundaryModeTrap = 2 };
enum cudaTextureAddressMode { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1,
                              cudaAddressModeMirror = 2, cudaAddressModeBorder = 3 };
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

namespace __pcc {
/* The texel types CUDA's fetches take: component type, count, and whether
 * the fetch returns floats into it. */
template <class T> struct texel { static_assert(sizeof(T) == 0, "tex*<T>: T is not a texel type "
                                                "(char, short, int, float and their unsigned "
                                                "and 1, 2, 4-vector forms)"); };
#define PCC_TEXEL(T, C, N, F)                                                                  \
    template <> struct texel<T> { typedef C comp; static const int n = N; static const int is_float = F; };
#define PCC_TEXELS(S, V, C, F) PCC_TEXEL(S, C, 1, F) PCC_TEXEL(V##1, C, 1, F)                 \
    PCC_TEXEL(V##2, C, 2, F) PCC_TEXEL(V##4, C, 4, F)
PCC_TEXELS(float, float, float, 1)
PCC_TEXELS(int, int, int, 0)
PCC_TEXELS(unsigned int, uint, unsigned int, 0)
PCC_TEXELS(signed char, char, signed char, 0)
PCC_TEXELS(unsigned char, uchar, unsigned char, 0)
PCC_TEXELS(short, short, short, 0)
PCC_TEXELS(unsigned short, ushort, unsigned short, 0)
PCC_TEXEL(char, char, 1, 0)
#undef PCC_TEXELS
#undef PCC_TEXEL

template <class T>
static inline T tex_fetch(cudaTextureObject_t obj, int shape, int ix, float x, float y, float z,
                          int layer)
{
    typedef texel<T> K;
    unsigned int w[4];
    pcc_sim_thread *self = __pcc_cur;
    __pcc_api->tex_fetch(self, obj, shape, K::is_float, ix, x, y, z, layer, w);
    typename K::comp c[4];
    for (int i = 0; i < K::n; i++) {
        if (K::is_float)
            memcpy(&c[i], &w[i], sizeof c[i]);
        else
            c[i] = (typename K::comp)w[i];
    }
    T r;
    memcpy(&r, c, sizeof r);
    return r;
}

template <class T>
static inline void surf_access(cudaSurfaceObject_t obj, int dims, int x, int y, int z, T *p,
                               int write, cudaSurfaceBoundaryMode mode)
{
    pcc_sim_thread *self = __pcc_cur;
    __pcc_api->surf_access(self, obj, dims, x, y, z, (void *)p, sizeof(T), write, (int)mode);
}
} // namespace __pcc

template <class T> static inline T tex1Dfetch(cudaTextureObject_t t, int x)
{ return __pcc::tex_fetch<T>(t, PCC_SIM_TEX_FETCH, x, 0, 0, 0, 0); }
template <class T> static inline T tex1D(cudaTextureObject_t t, float x)
{ return __pcc::tex_fetch<T>(t, PCC_SIM_TEX_1D, 0, x, 0, 0, 0); }
template <class T> static inline T tex2D(cudaTextureObject_t t, float x, float y)
{ return __pcc::tex_fetch<T>(t, PCC_SIM_TEX_2D, 0, x, y, 0, 0); }
template <class T> static inline T tex3D(cudaTextureObject_t t, float x, float y, float z)
{ return __pcc::tex_fetch<T>(t, PCC_SIM_TEX_3D, 0, x, y, z, 0); }
template <class T> static inline T tex1DLayered(cudaTextureObject_t t, float x, int layer)
{ return __pcc::tex_fetch<T>(t, PCC_SIM_TEX_1D_LAYERED, 0, x, 0, 0, layer); }
template <class T> static inline T tex2DLayered(cudaTextureObject_t t, float x, float y, int layer)
{ return __pcc::tex_fetch<T>(t, PCC_SIM_TEX_2D_LAYERED, 0, x, y, 0, layer); }

template <class T> static inline void tex1Dfetch(T *r, cudaTextureObject_t t, int x)
{ *r = tex1Dfetch<T>(t, x); }
template <class T> static inline void tex1D(T *r, cudaTextureObject_t t, float x)
{ *r = tex1D<T>(t, x); }
template <class T> static inline void tex2D(T *r, cudaTextureObject_t t, float x, float y)
{ *r = tex2D<T>(t, x, y); }
template <class T> static inline void tex3D(T *r, cudaTextureObject_t t, float x, float y, float z)
{ *r = tex3D<T>(t, x, y, z); }
template <class T> static inline void tex1DLayered(T *r, cudaTextureObject_t t, float x, int layer)
{ *r = tex1DLayered<T>(t, x, layer); }
template <class T>
static inline void tex2DLayered(T *r, cudaTextureObject_t t, float x, float y, int layer)
{ *r = tex2DLayered<T>(t, x, y, layer); }

/* Surfaces: x in bytes, as in CUDA. */
#define PCC_SURF(D, PARAMS, ARGS)                                                              \
    template <class T>                                                                         \
    static inline T surf##D##Dread(cudaSurfaceObject_t s, PARAMS,                              \
                                   cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap)           \
    { T v; __pcc::surf_access<T>(s, D, ARGS, &v, 0, m); return v; }                            \
    template <class T>                                                                         \
    static inline void surf##D##Dread(T *r, cudaSurfaceObject_t s, PARAMS,                     \
                                      cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap)        \
    { __pcc::surf_access<T>(s, D, ARGS, r, 0, m); }                                            \
    template <class T>                                                                         \
    static inline void surf##D##Dwrite(T v, cudaSurfaceObject_t s, PARAMS,                     \
                                       cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap)       \
    { __pcc::surf_access<T>(s, D, ARGS, &v, 1, m); }
#define PCC_COMMA ,
PCC_SURF(1, int x, x PCC_COMMA 0 PCC_COMMA 0)
PCC_SURF(2, int x PCC_COMMA int y, x PCC_COMMA y PCC_COMMA 0)
PCC_SURF(3, int x PCC_COMMA int y PCC_COMMA int z, x PCC_COMMA y PCC_COMMA z)
#undef PCC_COMMA
#undef PCC_SURF
