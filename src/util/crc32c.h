/*
 * util/crc32c.h — CRC-32C (src/util/crc32c.c): the checksum of cache entries and of
 * simulator images. Free of Python, for the simulator's code too.
 */
#ifndef PYCUDAC_CRC32C_H
#define PYCUDAC_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of [p, p+n). allow_hw=0 forces the table-driven path (for tests). */
uint32_t pcc_crc32c(const void *p, size_t n, int allow_hw);
/* 1 when the CPU's CRC-32C instruction is used. */
int pcc_crc32c_hw(void);

#endif
