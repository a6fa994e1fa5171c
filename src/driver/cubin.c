/*
 * driver/cubin.c — the libcuda backend's image check: cuModuleLoadData is
 * given no length, and its ELF parser trusts the header's offsets, so a
 * truncated or damaged CUBIN would be read past its end. What is not ELF
 * (PTX text, a fatbin) goes on: the driver refuses garbage of its own.
 */
#include <string.h>

#include "driver/loader.h"
#include "util/le.h"

const char *pcc_cubin_problem(const void *image, size_t len)
{
    const unsigned char *p = image;
    if (len < 4 || memcmp(p, "\x7f" "ELF", 4) != 0)
        return NULL;
    if (len < 64)
        return "the CUBIN (ELF) image is truncated: shorter than its header";
    if (p[4] != 2 || p[5] != 1) /* not ELF64 little-endian: the driver says */
        return NULL;
    uint64_t phoff = get_u64(p + 32), shoff = get_u64(p + 40);
    unsigned shentsize = get_u16(p + 58), shnum = get_u16(p + 60);
    uint64_t phsize = (uint64_t)get_u16(p + 54) * get_u16(p + 56);
    uint64_t shsize = (uint64_t)shentsize * shnum;
    if (phoff > len || phsize > len - phoff || shoff > len || shsize > len - shoff)
        return "the CUBIN (ELF) image is truncated: its header tables reach past its end";
    /* every section with bytes in the file lies inside it (the driver's
     * parser trusts these offsets) */
    if (shnum > 0 && shentsize < 64)
        return "the CUBIN (ELF) image is damaged: its section headers are too small";
    for (unsigned i = 0; i < shnum; i++) {
        const unsigned char *sh = p + shoff + (uint64_t)i * shentsize;
        uint64_t off = get_u64(sh + 24), size = get_u64(sh + 32);
        if (get_u32(sh + 4) != 8 /* SHT_NOBITS */ && (off > len || size > len - off))
            return "the CUBIN (ELF) image is truncated or damaged: a section lies past its end";
    }
    return NULL;
}

