/*
 * sim/prelude/vector_types.h — CUDA's vector types (char1 ... double4, dim3's uint3)
 * with CUDA's sizes and alignments, and their make_* functions.
 * Part of cuda_runtime.h, which includes it where it stands.
 */
#pragma once
/* ---- vector types (CUDA's sizes and alignments) ------------------------- */
#define PCC_VEC(T, N, A1, A2, A3, A4)                                                          \
    struct __attribute__((aligned(A1))) N##1 { T x; };                                         \
    struct __attribute__((aligned(A2))) N##2 { T x, y; };                                      \
    struct __attribute__((aligned(A3))) N##3 { T x, y, z; };                                   \
    struct __attribute__((aligned(A4))) N##4 { T x, y, z, w; };                                \
    static inline N##1 make_##N##1(T x) { return N##1{x}; }                                    \
    static inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                            \
    static inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }                    \
    static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
PCC_VEC(signed char, char, 1, 2, 1, 4)
PCC_VEC(unsigned char, uchar, 1, 2, 1, 4)
PCC_VEC(short, short, 2, 4, 2, 8)
PCC_VEC(unsigned short, ushort, 2, 4, 2, 8)
PCC_VEC(int, int, 4, 8, 4, 16)
PCC_VEC(float, float, 4, 8, 4, 16)
PCC_VEC(long, long, 8, 16, 8, 16)
PCC_VEC(unsigned long, ulong, 8, 16, 8, 16)
PCC_VEC(long long, longlong, 8, 16, 8, 16)
PCC_VEC(unsigned long long, ulonglong, 8, 16, 8, 16)
PCC_VEC(double, double, 8, 16, 8, 16)
#undef PCC_VEC
/* CUDA 13's explicitly aligned 4-vectors of 8-byte elements */
#define PCC_VEC4A(T, N)                                                                        \
    typedef N##4 N##4_16a;                                                                     \
    struct __attribute__((aligned(32))) N##4_32a { T x, y, z, w; };                            \
    static inline N##4_16a make_##N##4_16a(T x, T y, T z, T w) { return N##4_16a{x, y, z, w}; } \
    static inline N##4_32a make_##N##4_32a(T x, T y, T z, T w) { return N##4_32a{x, y, z, w}; }
PCC_VEC4A(long, long) PCC_VEC4A(unsigned long, ulong) PCC_VEC4A(long long, longlong)
PCC_VEC4A(unsigned long long, ulonglong) PCC_VEC4A(double, double)
#undef PCC_VEC4A
/* uint1..4 keep uint3 == the runtime's dim3 struct */
struct __attribute__((aligned(4))) uint1 { unsigned int x; };
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
static inline uint1 make_uint1(unsigned int x) { return uint1{x}; }
static inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }
static inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return uint4{x, y, z, w}; }

