/*
 * sim/cc/strings.c — the growable byte buffer (pcc_sbuf) and string
 * list (pcc_slist) the sim compiler builds its text and lists with. Apart
 * from the scan because every sim compiler file uses them and they know
 * nothing of C source.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cc/scan.h"

/* ---- growable byte buffer --------------------------------------------- */

void pcc_sb_add(pcc_sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void pcc_sb_puts(pcc_sbuf *b, const char *s) { pcc_sb_add(b, s, strlen(s)); }

void pcc_sb_printf(pcc_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pcc_sb_printf(pcc_sbuf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        pcc_sb_add(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    pcc_sb_add(b, big, (size_t)n);
    free(big);
}

/* ---- string lists -------------------------------------------------------- */

int pcc_sl_add(pcc_slist *l, const char *s, size_t n)
{
    if (l->oom)
        return -1;
    if (l->n + 2 > l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            l->oom = 1;
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    char *c = malloc(n + 1);
    if (c == NULL) {
        l->oom = 1;
        return -1;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    l->v[l->n++] = c;
    l->v[l->n] = NULL;
    return 0;
}

int pcc_sl_adds(pcc_slist *l, const char *s) { return pcc_sl_add(l, s, strlen(s)); }

int pcc_sl_find(const pcc_slist *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return i;
    return -1;
}

void pcc_sl_free(pcc_slist *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}
