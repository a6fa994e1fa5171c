/*
 * sim/cc/tokens.c — the sim compiler's tokenizer for CUDA C source:
 * comments and literals skipped, #line / #include recorded, #define bodies
 * kept and marked, `#if 0` regions dropped; and bracket matching over the
 * tokens. Apart from the scan (sim/cc/scan.c) and the barrier analysis
 * (sim/cc/sync.c), which both read its tokens.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/cc/scan.h"

static void tk_push(pcc_sim_toks *T, int kind, const char *p, size_t n, int line, const char *file,
                    int dir)
{
    if (T->n == T->cap) {
        int cap = T->cap ? T->cap * 2 : 1024;
        pcc_sim_tok *v = realloc(T->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            T->oom = 1;
            return;
        }
        T->v = v;
        T->cap = cap;
    }
    T->v[T->n++] = (pcc_sim_tok){kind, p, n, line, file, dir, T->cur_sys};
}

void pcc_sim_toks_free(pcc_sim_toks *T)
{
    free(T->v);
    pcc_sl_free(&T->files);
    pcc_sl_free(&T->includes);
    memset(T, 0, sizeof *T);
}

/* Tokenizes s[0..n) well enough to find declarations: comments and literals
 * skipped, preprocessor directives dropped except #define bodies (kept,
 * marked dir) and #line / #include (recorded); `#if 0` regions dropped. */
void pcc_sim_tokenize(pcc_sim_toks *T, const char *s, size_t n, const char *file)
{
    int line = 1, delta = 0, bol = 1, dir = 0; /* dir: 0 none, 1 define body, 2 skipped */
    int dead = 0;    /* nesting depth inside an `#if 0` region */
    int ndefine = 0; /* #define bodies seen: their tokens carry this number */
    const char *cur_file = file;
    size_t i = 0;
    while (i < n && !T->oom) {
        char c = s[i];
        if (c == '\\' && i + 1 < n && (s[i + 1] == '\n' || (s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n'))) {
            i += s[i + 1] == '\n' ? 2 : 3;
            line++;
            continue;
        }
        if (c == '\n') {
            line++;
            bol = 1;
            dir = 0;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '/') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < n && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
                if (s[i] == '\n')
                    line++;
                i++;
            }
            i = i + 2 <= n ? i + 2 : n;
            continue;
        }
        if (bol && c == '#') {
            bol = 0;
            dir = 2;
            size_t j = i + 1;
            while (j < n && (s[j] == ' ' || s[j] == '\t'))
                j++;
            size_t w = j;
            while (j < n && pcc_sim_is_idchar((unsigned char)s[j]))
                j++;
            size_t wn = j - w;
            int is_num = wn > 0 && s[w] >= '0' && s[w] <= '9';
            if ((wn == 2 && memcmp(s + w, "if", 2) == 0) || (wn == 5 && memcmp(s + w, "ifdef", 5) == 0) ||
                (wn == 6 && memcmp(s + w, "ifndef", 6) == 0)) {
                size_t q = j;
                while (q < n && (s[q] == ' ' || s[q] == '\t'))
                    q++;
                if (dead)
                    dead++;
                else if (wn == 2 && q < n && s[q] == '0' &&
                         (q + 1 >= n || !pcc_sim_is_idchar((unsigned char)s[q + 1])))
                    dead = 1;
                i = j;
                continue;
            }
            if ((wn == 4 && (memcmp(s + w, "else", 4) == 0 || memcmp(s + w, "elif", 4) == 0)) ||
                (wn == 5 && memcmp(s + w, "endif", 5) == 0)) {
                if (dead == 1 || (dead > 1 && wn == 5))
                    dead--;
                i = j;
                continue;
            }
            if (dead) {
                i = j;
                continue;
            }
            if (wn == 6 && memcmp(s + w, "define", 6) == 0) {
                dir = 1;
                ndefine++;
                i = j;
                continue;
            }
            if ((wn == 4 && memcmp(s + w, "line", 4) == 0) || is_num) {
                if (!is_num) {
                    while (j < n && (s[j] == ' ' || s[j] == '\t'))
                        j++;
                    w = j;
                    while (j < n && s[j] >= '0' && s[j] <= '9')
                        j++;
                }
                long num = strtol(s + w, NULL, 10);
                delta = (int)num - (line + 1);
                while (j < n && (s[j] == ' ' || s[j] == '\t'))
                    j++;
                if (j < n && s[j] == '"') {
                    size_t q = j + 1;
                    while (q < n && s[q] != '"' && s[q] != '\n')
                        q += s[q] == '\\' ? 2 : 1;
                    if (pcc_sl_add(&T->files, s + j + 1, q - j - 1) == 0)
                        cur_file = T->files.v[T->files.n - 1];
                    j = q;
                    /* a compiler's line marker: `# 12 "file" 1 3`, flag 3 = system header */
                    if (is_num) {
                        int sys = 0;
                        for (size_t f = q + 1; f < n && s[f] != '\n'; f++)
                            if (s[f] == '3' && (s[f - 1] == ' ' || s[f - 1] == '\t'))
                                sys = 1;
                        T->cur_sys = sys;
                    }
                }
                i = j;
                continue;
            }
            if (wn == 7 && memcmp(s + w, "include", 7) == 0) {
                while (j < n && (s[j] == ' ' || s[j] == '\t'))
                    j++;
                if (j < n && (s[j] == '"' || s[j] == '<')) {
                    char close = s[j] == '"' ? '"' : '>';
                    size_t q = j + 1;
                    while (q < n && s[q] != close && s[q] != '\n')
                        q++;
                    if (q < n && s[q] == close)
                        pcc_sl_add(&T->includes, s + j, q - j); /* keeps the opening quote */
                    j = q;
                }
                i = j;
                continue;
            }
            i = j;
            continue;
        }
        bol = 0;
        if (dead) {
            i++;
            continue;
        }
        if (dir == 2) {
            if (c == '"' || c == '\'') { /* a literal in #error etc.: skip it whole */
                size_t q = i + 1;
                while (q < n && s[q] != c && s[q] != '\n')
                    q += s[q] == '\\' ? 2 : 1;
                i = q < n && s[q] == c ? q + 1 : q;
                continue;
            }
            i++;
            continue;
        }
        int pline = line + delta;
        if (pcc_sim_is_idstart((unsigned char)c)) {
            size_t j = i;
            while (j < n && pcc_sim_is_idchar((unsigned char)s[j]))
                j++;
            tk_push(T, PCC_TK_ID, s + i, j - i, pline, cur_file, dir == 1 ? ndefine : 0);
            i = j;
            continue;
        }
        if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')) {
            size_t j = i + 1;
            while (j < n) {
                char d = s[j];
                if ((d == '+' || d == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' || s[j - 1] == 'P'))
                    j++;
                else if (pcc_sim_is_idchar((unsigned char)d) || d == '.' ||
                         (d == '\'' && j + 1 < n && pcc_sim_is_idchar((unsigned char)s[j + 1])))
                    j++;
                else
                    break;
            }
            tk_push(T, PCC_TK_NUM, s + i, j - i, pline, cur_file, dir == 1 ? ndefine : 0);
            i = j;
            continue;
        }
        if (c == '"') {
            /* raw string: R"delim( ... )delim" right after an R prefix */
            pcc_sim_tok *prev = T->n ? &T->v[T->n - 1] : NULL;
            if (prev && prev->kind == PCC_TK_ID && prev->p + prev->n == s + i && prev->p[prev->n - 1] == 'R' &&
                prev->n <= 3) {
                size_t d = i + 1;
                while (d < n && s[d] != '(' && d - i < 20)
                    d++;
                size_t dl = d - i - 1;
                size_t q = d + 1;
                while (q < n) {
                    if (s[q] == ')' && q + 1 + dl < n && memcmp(s + q + 1, s + i + 1, dl) == 0 && s[q + 1 + dl] == '"')
                        break;
                    if (s[q] == '\n')
                        line++;
                    q++;
                }
                T->n--;
                tk_push(T, PCC_TK_STR, s + i, (q + 2 + dl <= n ? q + 2 + dl : n) - i, pline, cur_file, dir == 1 ? ndefine : 0);
                i = q + 2 + dl;
                continue;
            }
        }
        if (c == '"' || c == '\'') {
            size_t q = i + 1;
            while (q < n && s[q] != c && s[q] != '\n')
                q += s[q] == '\\' ? 2 : 1;
            if (q > n)
                q = n;
            tk_push(T, c == '"' ? PCC_TK_STR : PCC_TK_NUM, s + i, (q < n ? q + 1 : q) - i, pline, cur_file, dir == 1 ? ndefine : 0);
            i = q < n && s[q] == c ? q + 1 : q;
            continue;
        }
        tk_push(T, PCC_TK_PUNCT, s + i, 1, pline, cur_file, dir == 1 ? ndefine : 0);
        i++;
    }
}

/* Index of the token closing the bracket opened at i (non-define tokens). */
int pcc_sim_match_close(const pcc_sim_toks *T, int i)
{
    char open = T->v[i].p[0], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (int k = i; k < T->n; k++) {
        const pcc_sim_tok *t = &T->v[k];
        if (t->dir || t->kind != PCC_TK_PUNCT)
            continue;
        if (t->p[0] == open)
            depth++;
        else if (t->p[0] == close && --depth == 0)
            return k;
    }
    return T->n - 1;
}
