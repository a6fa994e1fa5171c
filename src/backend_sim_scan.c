/*
 * backend_sim_scan.c — reads CUDA C source for the sim compiler
 * (backend_sim_compile.c): tokens (comments, literals, #line, #include,
 * `#if 0` understood), the non-template __global__ definitions to register,
 * `extern __shared__` declarations rewritten into pointers to the launch's
 * dynamic shared memory (line numbers kept), whether any barrier or warp
 * operation appears, and the constructs a CPU cannot run, with their lines.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pycudac/backend_sim_scan.h"

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

/* ---- the scanner ---------------------------------------------------------- */

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
    T->v[T->n++] = (pcc_sim_tok){kind, p, n, line, file, dir};
}

void pcc_sim_toks_free(pcc_sim_toks *T)
{
    free(T->v);
    pcc_sl_free(&T->files);
    pcc_sl_free(&T->includes);
    memset(T, 0, sizeof *T);
}

static int is_idstart(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
static int is_idchar(int c) { return is_idstart(c) || (c >= '0' && c <= '9'); }

static int tk_is(const pcc_sim_tok *t, const char *s)
{
    return t->n == strlen(s) && memcmp(t->p, s, t->n) == 0;
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
            while (j < n && is_idchar((unsigned char)s[j]))
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
                else if (wn == 2 && q < n && s[q] == '0' && (q + 1 >= n || !is_idchar((unsigned char)s[q + 1])))
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
                        q++;
                    if (pcc_sl_add(&T->files, s + j + 1, q - j - 1) == 0)
                        cur_file = T->files.v[T->files.n - 1];
                    j = q;
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
        if (is_idstart((unsigned char)c)) {
            size_t j = i;
            while (j < n && is_idchar((unsigned char)s[j]))
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
                else if (is_idchar((unsigned char)d) || d == '.' || (d == '\'' && j + 1 < n && is_idchar((unsigned char)s[j + 1])))
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

/* ---- pcc_sim_analysis ---------------------------------------------------------------- */

static void ed_add(pcc_sim_edits *E, size_t start, size_t end, char *text)
{
    if (text == NULL)
        return;
    if (E->n == E->cap) {
        int cap = E->cap ? E->cap * 2 : 8;
        pcc_sim_edit *v = realloc(E->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            free(text);
            return;
        }
        E->v = v;
        E->cap = cap;
    }
    E->v[E->n++] = (pcc_sim_edit){start, end, text};
}

void pcc_sim_edits_free(pcc_sim_edits *E)
{
    for (int i = 0; i < E->n; i++)
        free(E->v[i].text);
    free(E->v);
    memset(E, 0, sizeof *E);
}

static void refuse(pcc_sim_analysis *A, const pcc_sim_tok *t, const char *what)
{
    if (A->nerrors++ >= 20)
        return;
    pcc_sb_printf(&A->errors, "%s:%d: error: %s cannot run on the pycudac CPU simulator (backend 'sim')\n",
              t->file, t->line, what);
}

static int starts(const pcc_sim_tok *t, const char *prefix)
{
    size_t k = strlen(prefix);
    return t->kind == PCC_TK_ID && t->n >= k && memcmp(t->p, prefix, k) == 0;
}

/* Barrier and warp operations: any of them makes the module run its threads
 * as fibers. */
static int is_sync_token(const pcc_sim_tok *t)
{
    static const char *const prefixes[] = {
        "__syncthreads", "__syncwarp", "__shfl", "__ballot", "__any_sync", "__all_sync",
        "__uni_sync", "__activemask", "__match", "__reduce_", "this_thread_block",
        "tiled_partition", "coalesced_threads", "cooperative_groups"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (starts(t, prefixes[i]))
            return 1;
    return 0;
}

void pcc_sim_check_tokens(pcc_sim_analysis *A, const pcc_sim_toks *T)
{
    for (int i = 0; i < T->n; i++) {
        const pcc_sim_tok *t = &T->v[i];
        const pcc_sim_tok *nx = i + 1 < T->n ? &T->v[i + 1] : NULL;
        if (t->kind == PCC_TK_PUNCT) {
            if (t->p[0] == '<' && i + 2 < T->n && T->v[i + 1].p == t->p + 1 && T->v[i + 2].p == t->p + 2 &&
                T->v[i + 1].p[0] == '<' && T->v[i + 2].p[0] == '<' && T->v[i + 1].kind == PCC_TK_PUNCT &&
                T->v[i + 2].kind == PCC_TK_PUNCT)
                refuse(A, t, "a kernel launch inside device code (`<<<...>>>`, dynamic parallelism)");
            continue;
        }
        if (t->kind != PCC_TK_ID)
            continue;
        if (is_sync_token(t))
            A->uses_sync = 1;
        if (tk_is(t, "asm") || tk_is(t, "__asm__") || tk_is(t, "__asm"))
            refuse(A, t, "inline assembly (`asm`: PTX)");
        else if ((tk_is(t, "texture") || tk_is(t, "surface")) && nx && nx->kind == PCC_TK_PUNCT && nx->p[0] == '<')
            refuse(A, t, tk_is(t, "texture") ? "a texture reference (`texture<...>`)"
                                             : "a surface reference (`surface<...>`)");
        else if (tk_is(t, "cudaTextureObject_t") || tk_is(t, "cudaSurfaceObject_t"))
            refuse(A, t, "a texture/surface object (`cudaTextureObject_t`/`cudaSurfaceObject_t`)");
        else if (starts(t, "tex1D") || starts(t, "tex2D") || starts(t, "tex3D") || starts(t, "texCubemap"))
            refuse(A, t, "a texture fetch (`tex1D/tex2D/tex3D...`)");
        else if (starts(t, "surf1D") || starts(t, "surf2D") || starts(t, "surf3D") || starts(t, "surfCubemap"))
            refuse(A, t, "a surface access (`surf1D/surf2D/surf3D...`)");
        else if (tk_is(t, "wmma") || tk_is(t, "mma_sync") || tk_is(t, "load_matrix_sync") ||
                 tk_is(t, "store_matrix_sync") || starts(t, "__hmma") || starts(t, "__imma") ||
                 starts(t, "__bmma") || starts(t, "__dmma") || starts(t, "__mma"))
            refuse(A, t, "a tensor-core operation (`wmma`/`mma`)");
        else if (tk_is(t, "this_grid") || tk_is(t, "grid_group") || tk_is(t, "this_multi_grid") ||
                 tk_is(t, "multi_grid_group"))
            refuse(A, t, "grid-wide synchronization (cooperative groups `this_grid()`/`grid.sync()`)");
    }
}

/* Index of the token closing the bracket opened at i (non-define tokens). */
static int match_close(const pcc_sim_toks *T, int i)
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

static int is_p(const pcc_sim_toks *T, int i, char c)
{
    return i >= 0 && i < T->n && T->v[i].kind == PCC_TK_PUNCT && T->v[i].p[0] == c;
}

static int is_attr_word(const pcc_sim_tok *t)
{
    return tk_is(t, "__launch_bounds__") || tk_is(t, "__attribute__") || tk_is(t, "__align__") ||
           tk_is(t, "alignas") || tk_is(t, "__declspec") || tk_is(t, "__maxnreg__") ||
           tk_is(t, "__cluster_dims__") || tk_is(t, "__builtin_align__");
}

/* Skips an attribute group starting at i; returns the index after it, or i. */
static int skip_attr(const pcc_sim_toks *T, int i)
{
    if (T->v[i].kind == PCC_TK_ID && is_attr_word(&T->v[i]) && is_p(T, i + 1, '('))
        return match_close(T, i + 1) + 1;
    if (is_p(T, i, '[') && is_p(T, i + 1, '['))
        return match_close(T, i) + 1;
    return i;
}

enum { SC_NS, SC_LINK, SC_BLOCK };
typedef struct {
    int kind;
    char name[128];
} scope;

static void ns_path(const scope *st, int depth, pcc_sbuf *out)
{
    for (int k = 0; k < depth; k++)
        if (st[k].kind == SC_NS && st[k].name[0]) {
            pcc_sb_puts(out, "::");
            pcc_sb_puts(out, st[k].name);
        }
}

/* Source text of tokens [a, b) with attribute groups left out. */
static void type_text(const pcc_sim_toks *T, int a, int b, pcc_sbuf *out)
{
    const pcc_sim_tok *prev = NULL;
    for (int k = a; k < b;) {
        int after = skip_attr(T, k);
        if (after != k) {
            k = after;
            continue;
        }
        const pcc_sim_tok *t = &T->v[k];
        if (prev && prev->p + prev->n != t->p)
            pcc_sb_add(out, " ", 1);
        pcc_sb_add(out, t->p, t->n);
        prev = t;
        k++;
    }
}

static void on_global(pcc_sim_analysis *A, const pcc_sim_toks *T, int g, const scope *st, int depth)
{
    for (int b = g - 1; b >= 0; b--) {
        const pcc_sim_tok *t = &T->v[b];
        if (t->dir)
            continue;
        if (t->kind == PCC_TK_PUNCT && (t->p[0] == ';' || t->p[0] == '{' || t->p[0] == '}'))
            break;
        if (tk_is(t, "template"))
            return; /* templates are reached through name expressions */
    }
    int j = g + 1, name = -1;
    while (j < T->n) {
        const pcc_sim_tok *t = &T->v[j];
        if (t->dir) {
            j++;
            continue;
        }
        int after = skip_attr(T, j);
        if (after != j) {
            j = after;
            continue;
        }
        if (t->kind == PCC_TK_PUNCT) {
            if (t->p[0] == '(') {
                if (j > 0 && T->v[j - 1].kind == PCC_TK_ID)
                    name = j - 1;
                break;
            }
            if (t->p[0] == ';' || t->p[0] == '{' || t->p[0] == '}' || t->p[0] == '=')
                return;
        }
        j++;
    }
    if (name < 0 || j >= T->n)
        return;
    int k = match_close(T, j) + 1;
    for (; k < T->n; k++) {
        const pcc_sim_tok *t = &T->v[k];
        if (t->dir || t->kind != PCC_TK_PUNCT)
            continue;
        if (t->p[0] == '(' || t->p[0] == '[') {
            k = match_close(T, k);
            continue;
        }
        if (t->p[0] == '{')
            break;
        if (t->p[0] == ';' || t->p[0] == '}')
            return; /* a declaration */
    }
    if (k >= T->n)
        return;
    pcc_sbuf expr = {0};
    int q = name;
    while (q >= 3 && is_p(T, q - 1, ':') && is_p(T, q - 2, ':') && T->v[q - 3].kind == PCC_TK_ID)
        q -= 3;
    ns_path(st, depth, &expr);
    pcc_sb_puts(&expr, "::");
    for (int r = q; r <= name; r++)
        pcc_sb_add(&expr, T->v[r].p, T->v[r].n);
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)T->v[name].n, T->v[name].p);
    if (!expr.oom && pcc_sl_find(&A->kernel_names, nm) < 0) {
        pcc_sl_adds(&A->kernel_names, nm);
        pcc_sl_adds(&A->kernel_exprs, expr.p);
    }
    free(expr.p);
}

/* `extern __shared__ T name[];` → a pointer to the launch's dynamic shared
 * memory: a local inside a function, a thread-local set by every kernel
 * entry at file scope. */
static void on_extern_shared(pcc_sim_analysis *A, const pcc_sim_toks *T, int e, int sh, const scope *st, int depth,
                             int in_block, const char *src, pcc_sim_edits *E)
{
    int semi = -1;
    for (int k = sh + 1; k < T->n; k++) {
        if (T->v[k].dir)
            continue;
        if (is_p(T, k, ';')) {
            semi = k;
            break;
        }
        if (is_p(T, k, '{') || is_p(T, k, '}'))
            break;
    }
    if (semi < 0)
        return;
    int name = -1;
    for (int k = sh + 1; k < semi;) {
        int after = skip_attr(T, k);
        if (after != k) {
            k = after;
            continue;
        }
        if (T->v[k].kind == PCC_TK_ID && is_p(T, k + 1, '[')) {
            name = k;
            break;
        }
        k++;
    }
    if (name < 0 || !is_p(T, name + 2, ']') || name + 3 != semi) {
        refuse(A, &T->v[e], "this form of `extern __shared__` (only `extern __shared__ T name[];`)");
        return;
    }
    pcc_sbuf type = {0}, text = {0};
    type_text(T, e + 1, sh, &type); /* e.g. `extern volatile __shared__ float s[];` */
    if (type.len)
        pcc_sb_add(&type, " ", 1);
    type_text(T, sh + 1, name, &type);
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)T->v[name].n, T->v[name].p);
    if (in_block) {
        pcc_sb_printf(&text, "%s *%s = (%s *)__pcc_dyn_smem();", type.p ? type.p : "char", nm,
                  type.p ? type.p : "char");
    } else {
        pcc_sbuf q = {0};
        ns_path(st, depth, &q);
        pcc_sb_printf(&q, "::%s", nm);
        if (!q.oom && pcc_sl_find(&A->dyn_names, q.p) < 0) {
            pcc_sl_adds(&A->dyn_names, q.p);
            pcc_sb_printf(&text, "static thread_local %s *%s;", type.p ? type.p : "char", nm);
            pcc_sbuf set = {0};
            pcc_sb_printf(&set, "    %s = (%s *)p;\n", q.p, type.p ? type.p : "char");
            if (set.p)
                pcc_sl_adds(&A->dyn_setters, set.p);
            free(set.p);
        }
        free(q.p);
    }
    size_t start = (size_t)(T->v[e].p - src), end = (size_t)(T->v[semi].p + 1 - src);
    for (size_t k = start; k < end; k++)
        if (src[k] == '\n')
            pcc_sb_add(&text, "\n", 1);
    ed_add(E, start, end, text.p ? text.p : strdup(""));
    free(type.p);
}

/* Walks the structure: namespaces, linkage blocks, function bodies. */
void pcc_sim_analyze(pcc_sim_analysis *A, const pcc_sim_toks *T, const char *src, pcc_sim_edits *E)
{
    scope st[64];
    int depth = 0, blocks = 0;
    for (int i = 0; i < T->n; i++) {
        const pcc_sim_tok *t = &T->v[i];
        if (t->dir)
            continue;
        if (t->kind == PCC_TK_ID && tk_is(t, "namespace") && blocks == 0) {
            pcc_sbuf name = {0};
            int k = i + 1;
            while (k < T->n && (T->v[k].kind == PCC_TK_ID || is_p(T, k, ':'))) {
                if (!tk_is(&T->v[k], "inline"))
                    pcc_sb_add(&name, T->v[k].p, T->v[k].n);
                k++;
            }
            if (is_p(T, k, '{') && depth < 64) {
                st[depth].kind = SC_NS;
                snprintf(st[depth].name, sizeof st[depth].name, "%s", name.p ? name.p : "");
                depth++;
                i = k;
            }
            free(name.p);
            continue;
        }
        if (t->kind == PCC_TK_ID && tk_is(t, "extern") && i + 2 < T->n && T->v[i + 1].kind == PCC_TK_STR &&
            is_p(T, i + 2, '{')) {
            if (depth < 64)
                st[depth++].kind = SC_LINK;
            i += 2;
            continue;
        }
        if (t->kind == PCC_TK_ID && tk_is(t, "extern")) {
            int k = i + 1;
            while (k < T->n && k < i + 8 && !tk_is(&T->v[k], "__shared__")) {
                int after = skip_attr(T, k);
                if (after != k)
                    k = after;
                else if (tk_is(&T->v[k], "volatile") || tk_is(&T->v[k], "const"))
                    k++;
                else
                    break;
            }
            if (k < T->n && tk_is(&T->v[k], "__shared__")) {
                on_extern_shared(A, T, i, k, st, depth, blocks > 0, src, E);
                continue;
            }
        }
        if (t->kind == PCC_TK_ID && tk_is(t, "static") && i + 1 < T->n && tk_is(&T->v[i + 1], "__shared__")) {
            /* __shared__ is already static */
            ed_add(E, (size_t)(t->p - src), (size_t)(t->p + t->n - src), strdup("      "));
            continue;
        }
        if (t->kind == PCC_TK_ID && tk_is(t, "__forceinline__")) {
            /* __forceinline__ carries `inline`; C++ refuses it twice */
            for (int k = i - 3; k <= i + 3; k++)
                if (k >= 0 && k < T->n && k != i && !T->v[k].dir && tk_is(&T->v[k], "inline"))
                    ed_add(E, (size_t)(T->v[k].p - src), (size_t)(T->v[k].p + T->v[k].n - src),
                           strdup("      "));
            continue;
        }
        if (t->kind == PCC_TK_ID && tk_is(t, "__global__") && blocks == 0) {
            on_global(A, T, i, st, depth);
            continue;
        }
        if (is_p(T, i, '{')) {
            if (depth < 64)
                st[depth++].kind = SC_BLOCK;
            blocks++;
        } else if (is_p(T, i, '}') && depth > 0) {
            if (st[--depth].kind == SC_BLOCK)
                blocks--;
        }
    }
}

/* Applies the pcc_sim_edits (sorted by position, as found) to src into out. */
static int edit_cmp(const void *a, const void *b)
{
    const pcc_sim_edit *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

void pcc_sim_apply_edits(const char *src, size_t n, const pcc_sim_edits *E, pcc_sbuf *out)
{
    size_t at = 0;
    if (E->n > 1)
        qsort(E->v, (size_t)E->n, sizeof *E->v, edit_cmp);
    for (int i = 0; i < E->n; i++) {
        if (E->v[i].start < at)
            continue;
        pcc_sb_add(out, src + at, E->v[i].start - at);
        pcc_sb_puts(out, E->v[i].text);
        at = E->v[i].end;
    }
    pcc_sb_add(out, src + at, n - at);
}

/* ---- which kernels need barriers ---------------------------------------- */

int pcc_sim_mentions_sync(const pcc_sim_toks *T)
{
    for (int i = 0; i < T->n; i++)
        if (is_sync_token(&T->v[i]))
            return 1;
    return 0;
}

static int name_in(const pcc_slist *l, const pcc_sim_tok *t)
{
    for (int i = 0; i < l->n; i++)
        if (strlen(l->v[i]) == t->n && memcmp(l->v[i], t->p, t->n) == 0)
            return 1;
    return 0;
}

/* One function body or #define body: its name and token range. */
typedef struct {
    const pcc_sim_tok *name;
    int from, to; /* token indices, inclusive */
} body;

/* The name of the function whose body opens at token i, or -1 when the
 * brace opens something else (class, initializer, namespace...). */
static int function_name(const pcc_sim_toks *T, int i)
{
    int k = i - 1;
    while (k >= 0 && T->v[k].dir)
        k--;
    while (k >= 0 && T->v[k].kind == PCC_TK_ID &&
           (tk_is(&T->v[k], "const") || tk_is(&T->v[k], "noexcept") || tk_is(&T->v[k], "override") ||
            tk_is(&T->v[k], "final") || tk_is(&T->v[k], "volatile")))
        k--;
    if (!is_p(T, k, ')'))
        return -1;
    int depth = 0;
    for (; k >= 0; k--) {
        if (T->v[k].dir || T->v[k].kind != PCC_TK_PUNCT)
            continue;
        if (T->v[k].p[0] == ')')
            depth++;
        else if (T->v[k].p[0] == '(' && --depth == 0)
            break;
    }
    return k > 0 && T->v[k - 1].kind == PCC_TK_ID ? k - 1 : -1;
}

/* Finds the functions and macros that reach a barrier or warp operation,
 * directly or through each other (by name: overloads and templates count
 * together). What cannot be attributed to a named function or macro makes
 * every kernel of the module count as synchronizing. */
void pcc_sim_sync_analysis(pcc_sim_analysis *A, const pcc_sim_toks *T)
{
    if (!A->uses_sync)
        return;
    body *b = calloc((size_t)T->n + 1, sizeof *b);
    int nb = 0;
    if (b == NULL) {
        A->sync_unsure = 1;
        return;
    }
    /* #define bodies: the first token is the macro's name */
    for (int i = 0; i < T->n; i++) {
        if (!T->v[i].dir || (i > 0 && T->v[i - 1].dir == T->v[i].dir))
            continue;
        int j = i;
        while (j + 1 < T->n && T->v[j + 1].dir == T->v[i].dir)
            j++;
        b[nb++] = (body){&T->v[i], i + 1, j};
        i = j;
    }
    /* top-level braces: function bodies, or anything else */
    int depth = 0;
    for (int i = 0; i < T->n; i++) {
        const pcc_sim_tok *t = &T->v[i];
        if (t->dir)
            continue;
        if (t->kind == PCC_TK_ID && tk_is(t, "namespace")) {
            int k = i + 1;
            while (k < T->n && (T->v[k].kind == PCC_TK_ID || is_p(T, k, ':')))
                k++;
            if (is_p(T, k, '{'))
                i = k; /* a namespace's braces are transparent */
            continue;
        }
        if (t->kind == PCC_TK_ID && tk_is(t, "extern") && i + 2 < T->n && T->v[i + 1].kind == PCC_TK_STR &&
            is_p(T, i + 2, '{')) {
            i += 2;
            continue;
        }
        if (is_sync_token(t) && depth == 0) {
            A->sync_unsure = 1; /* at file scope, outside any body */
            continue;
        }
        if (!is_p(T, i, '{'))
            continue;
        int close = match_close(T, i);
        int name = function_name(T, i);
        if (name >= 0) {
            b[nb++] = (body){&T->v[name], i + 1, close};
        } else {
            for (int k = i + 1; k < close; k++)
                if (!T->v[k].dir && is_sync_token(&T->v[k]))
                    A->sync_unsure = 1; /* a class body or a lambda */
        }
        i = close;
    }
    /* fixpoint over names */
    char *done = calloc((size_t)nb + 1, 1);
    for (int changed = 1; changed && done;) {
        changed = 0;
        for (int k = 0; k < nb; k++) {
            if (done[k])
                continue;
            for (int i = b[k].from; i <= b[k].to && i < T->n; i++) {
                const pcc_sim_tok *t = &T->v[i];
                if (t->kind == PCC_TK_ID && (is_sync_token(t) || name_in(&A->sync_names, t))) {
                    done[k] = 1;
                    changed = 1;
                    if (!name_in(&A->sync_names, b[k].name))
                        pcc_sl_add(&A->sync_names, b[k].name->p, b[k].name->n);
                    break;
                }
            }
        }
    }
    if (done == NULL || A->sync_names.oom)
        A->sync_unsure = 1;
    free(done);
    free(b);
}

int pcc_sim_kernel_syncs(const pcc_sim_analysis *A, const char *name)
{
    if (!A->uses_sync)
        return 0;
    if (A->sync_unsure)
        return 1;
    /* "ns::axpy<float, 4>" → "axpy" */
    const char *end = strchr(name, '<');
    if (end == NULL)
        end = name + strlen(name);
    while (end > name && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    const char *start = end;
    while (start > name && (is_idchar((unsigned char)start[-1])))
        start--;
    for (int i = 0; i < A->sync_names.n; i++)
        if (strlen(A->sync_names.v[i]) == (size_t)(end - start) &&
            memcmp(A->sync_names.v[i], start, (size_t)(end - start)) == 0)
            return 1;
    return 0;
}
