/*
 * util/fixbuf.h — short strings built in a fixed buffer without snprintf (pcc_fb;
 * the simulator's growable pcc_sbuf is another thing).
 *
 * A warm cache hit in a fresh process builds a handful of short strings
 * (the NVRTC search's paths, NVRTC's identity, "sm_90"). There the first
 * snprintf of the process costs microseconds (its code is cold) and each
 * later one ~0.3 µs; these appenders cost nanoseconds. A string that does
 * not fit is never cut silently: pcc_fb_ok() is false from then on.
 */
#ifndef PYCUDAC_FIXBUF_H
#define PYCUDAC_FIXBUF_H

#include <stddef.h>
#include <string.h>

typedef struct {
    char *buf;
    size_t cap, len; /* buf holds len bytes and a NUL; cap counts the NUL */
    int overflow;
} pcc_fb;

/* An empty string in buf[cap] (cap >= 1). */
static inline pcc_fb pcc_fb_at(char *buf, size_t cap)
{
    pcc_fb b = {buf, cap, 0, cap == 0};
    if (cap > 0)
        buf[0] = '\0';
    return b;
}

/* Appends n bytes (NULs included as they are). */
static inline void pcc_fb_mem(pcc_fb *b, const void *p, size_t n)
{
    if (b->overflow || n >= b->cap - b->len) {
        b->overflow = 1;
        return;
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
    b->buf[b->len] = '\0';
}

static inline void pcc_fb_str(pcc_fb *b, const char *s)
{
    pcc_fb_mem(b, s, strlen(s));
}

/* The decimal digits of v, at least `width` of them (zero-padded), written
 * backwards from the end of out[24]; returns where they start (NUL-ended). */
static inline char *pcc_dec(char out[24], unsigned long long v, int width)
{
    char *p = out + 23;
    *p = '\0';
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
        width--;
    } while ((v > 0 || width > 0) && p > out);
    return p;
}

/* Appends v in decimal, zero-padded to `width` digits (0: no padding). */
static inline void pcc_fb_u64(pcc_fb *b, unsigned long long v, int width)
{
    char digits[24];
    pcc_fb_str(b, pcc_dec(digits, v, width));
}

static inline void pcc_fb_i64(pcc_fb *b, long long v)
{
    if (v < 0)
        pcc_fb_mem(b, "-", 1);
    pcc_fb_u64(b, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, 0);
}

/* True when everything appended fit (the buffer then holds it, NUL-ended). */
static inline int pcc_fb_ok(const pcc_fb *b)
{
    return !b->overflow;
}

#endif
