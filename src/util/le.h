/*
 * util/le.h — little-endian integers in byte buffers: the compile cache's
 * entry header and payload, and the CUBIN (ELF) header check.
 */
#ifndef PYCUDAC_UTIL_LE_H
#define PYCUDAC_UTIL_LE_H

#include <stdint.h>

static inline void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline unsigned get_u16(const unsigned char *p)
{
    return (unsigned)(p[0] | p[1] << 8);
}

static inline uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

#endif
