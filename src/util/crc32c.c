/*
 * util/crc32c.c — the cache entry checksum: CRC-32C (Castagnoli polynomial,
 * reflected 0x82F63B78; initial value and final XOR all ones), the CRC that
 * iSCSI, ext4 and btrfs use and that x86's SSE4.2 computes in one
 * instruction per 8 bytes.
 *
 * It replaced zlib's CRC-32 because a warm start checks a whole entry in a
 * fresh process: zlib's table-driven loop ran at ~2 GB/s here and its first
 * call (cold tables, a Python call) cost twice that, where the crc32
 * instruction needs no table (three chains of it check a 25 KB entry in
 * about a microsecond).
 *
 * Two implementations that must agree (a test checks both against a
 * reference): the instruction where the CPU has it, else slicing-by-8 over
 * tables built once. The checksum protects against damaged files, not
 * against people (compile/cache.c explains why that is the directory check's job).
 */
#include "util/crc32c.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u

static uint32_t table[8][256];
static int table_ready;

static void build_table(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1u)));
        table[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; b++)
        for (int t = 1; t < 8; t++)
            table[t][b] = (table[t - 1][b] >> 8) ^ table[0][table[t - 1][b] & 0xFF];
    table_ready = 1;
}

/* Slicing-by-8: eight table lookups per 8 bytes. `c` is the running
 * (inverted) register. */
static uint32_t crc32c_soft(uint32_t c, const unsigned char *p, size_t n)
{
    if (!table_ready)
        build_table();
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24);
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
            table[4][lo >> 24] ^ table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^
            table[0][p[7]];
    }
    while (n--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CRC32C_HAVE_HW 1
#include <nmmintrin.h>

/* a*b mod P for reflected polynomials (bit 31 is x^0). A CRC register
 * times x^(8n) is the register after n zero bytes. */
static uint32_t mulmod(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
        if (a & m)
            p ^= b;
        b = (b >> 1) ^ (CRC32C_POLY & (0u - (b & 1u)));
    }
    return p;
}

/* The instruction has a latency of three cycles and a throughput of one,
 * so one chain of it runs at a third of its speed: three stripes of STRIPE
 * bytes run side by side and are joined by the linearity of the CRC,
 *   crc(s, A B C) = crc(s, A) x^(16 STRIPE) + crc(0, B) x^(8 STRIPE) + crc(0, C).
 * (A 25 KB entry: ~3 µs with one chain in a fresh process, ~1 µs so.) */
#define STRIPE 4096
#define X_STRIPE 0x35D73A62u  /* x^(8 STRIPE) mod P, reflected */
#define X_2STRIPE 0x28461564u /* x^(16 STRIPE) mod P, reflected */

__attribute__((target("sse4.2"))) static uint64_t crc_chain(uint64_t c, const unsigned char *p,
                                                             size_t n)
{
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, p, 8); /* unaligned load; x86 is little-endian like the CRC */
        c = _mm_crc32_u64(c, v);
    }
    return c;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t c, const unsigned char *p,
                                                             size_t n)
{
    uint64_t c64 = c;
    for (; n >= 3 * STRIPE; p += 3 * STRIPE, n -= 3 * STRIPE) {
        uint64_t a = c64, b = 0, d = 0;
        for (size_t i = 0; i < STRIPE; i += 8) {
            uint64_t va, vb, vd;
            memcpy(&va, p + i, 8);
            memcpy(&vb, p + STRIPE + i, 8);
            memcpy(&vd, p + 2 * STRIPE + i, 8);
            a = _mm_crc32_u64(a, va);
            b = _mm_crc32_u64(b, vb);
            d = _mm_crc32_u64(d, vd);
        }
        c64 = mulmod(X_2STRIPE, (uint32_t)a) ^ mulmod(X_STRIPE, (uint32_t)b) ^ d;
    }
    c64 = crc_chain(c64, p, n);
    p += n & ~(size_t)7;
    c = (uint32_t)c64;
    for (n &= 7; n > 0; n--)
        c = _mm_crc32_u8(c, *p++);
    return c;
}

static int have_hw(void)
{
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    }
    return known;
}
#else
#define CRC32C_HAVE_HW 0
#endif

int pcc_crc32c_hw(void)
{
#if CRC32C_HAVE_HW
    return have_hw();
#else
    return 0;
#endif
}

uint32_t pcc_crc32c(const void *p, size_t n, int allow_hw)
{
    uint32_t c = 0xFFFFFFFFu;
#if CRC32C_HAVE_HW
    if (allow_hw && have_hw())
        return ~crc32c_hw(c, p, n);
#else
    (void)allow_hw;
#endif
    return ~crc32c_soft(c, p, n);
}
