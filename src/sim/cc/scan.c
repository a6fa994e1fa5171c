/*
 * sim/cc/scan.c — reads CUDA C source for the sim compiler
 * (sim/cc/compile.c): the non-template __global__ definitions to
 * register, `extern __shared__` declarations rewritten into pointers to the
 * launch's dynamic shared memory (line numbers kept), and the constructs a
 * CPU cannot run, with their lines. Tokens come from sim/cc/tokens.c;
 * which kernels need barriers is sim/cc/sync.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cc/scan.h"

/* ---- edits and refusals ------------------------------------------------------ */

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

void pcc_sim_analysis_free(pcc_sim_analysis *A)
{
    pcc_sl_free(&A->sync_names);
    pcc_sl_free(&A->kernel_names);
    pcc_sl_free(&A->kernel_exprs);
    pcc_sl_free(&A->dyn_names);
    pcc_sl_free(&A->dyn_setters);
    free(A->errors.p);
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
        if (pcc_sim_is_sync_token(t))
            A->uses_sync = 1;
        if (pcc_sim_tk_is(t, "asm") || pcc_sim_tk_is(t, "__asm__") || pcc_sim_tk_is(t, "__asm"))
            refuse(A, t, "inline assembly (`asm`: PTX)");
        else if ((pcc_sim_tk_is(t, "texture") || pcc_sim_tk_is(t, "surface")) && nx &&
                 nx->kind == PCC_TK_PUNCT && nx->p[0] == '<')
            refuse(A, t, pcc_sim_tk_is(t, "texture") ? "a texture reference (`texture<...>`)"
                                                     : "a surface reference (`surface<...>`)");
        else if (pcc_sim_tk_is(t, "cudaTextureObject_t") || pcc_sim_tk_is(t, "cudaSurfaceObject_t"))
            refuse(A, t, "a texture/surface object (`cudaTextureObject_t`/`cudaSurfaceObject_t`)");
        else if (pcc_sim_tk_starts(t, "tex1D") || pcc_sim_tk_starts(t, "tex2D") ||
                 pcc_sim_tk_starts(t, "tex3D") || pcc_sim_tk_starts(t, "texCubemap"))
            refuse(A, t, "a texture fetch (`tex1D/tex2D/tex3D...`)");
        else if (pcc_sim_tk_starts(t, "surf1D") || pcc_sim_tk_starts(t, "surf2D") ||
                 pcc_sim_tk_starts(t, "surf3D") || pcc_sim_tk_starts(t, "surfCubemap"))
            refuse(A, t, "a surface access (`surf1D/surf2D/surf3D...`)");
        else if (pcc_sim_tk_is(t, "wmma") || pcc_sim_tk_is(t, "mma_sync") ||
                 pcc_sim_tk_is(t, "load_matrix_sync") || pcc_sim_tk_is(t, "store_matrix_sync") ||
                 pcc_sim_tk_starts(t, "__hmma") || pcc_sim_tk_starts(t, "__imma") ||
                 pcc_sim_tk_starts(t, "__bmma") || pcc_sim_tk_starts(t, "__dmma") ||
                 pcc_sim_tk_starts(t, "__mma"))
            refuse(A, t, "a tensor-core operation (`wmma`/`mma`)");
        else if (pcc_sim_tk_is(t, "this_multi_grid") || pcc_sim_tk_is(t, "multi_grid_group"))
            refuse(A, t, "multi-device synchronization (cooperative groups `this_multi_grid()`)");
    }
}

static int is_attr_word(const pcc_sim_tok *t)
{
    return pcc_sim_tk_is(t, "__launch_bounds__") || pcc_sim_tk_is(t, "__attribute__") ||
           pcc_sim_tk_is(t, "__align__") || pcc_sim_tk_is(t, "alignas") ||
           pcc_sim_tk_is(t, "__declspec") || pcc_sim_tk_is(t, "__maxnreg__") ||
           pcc_sim_tk_is(t, "__cluster_dims__") || pcc_sim_tk_is(t, "__builtin_align__");
}

/* Skips an attribute group starting at i; returns the index after it, or i. */
static int skip_attr(const pcc_sim_toks *T, int i)
{
    if (T->v[i].kind == PCC_TK_ID && is_attr_word(&T->v[i]) && pcc_sim_tk_punct(T, i + 1, '('))
        return pcc_sim_match_close(T, i + 1) + 1;
    if (pcc_sim_tk_punct(T, i, '[') && pcc_sim_tk_punct(T, i + 1, '['))
        return pcc_sim_match_close(T, i) + 1;
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
        if (pcc_sim_tk_is(t, "template"))
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
    int k = pcc_sim_match_close(T, j) + 1;
    for (; k < T->n; k++) {
        const pcc_sim_tok *t = &T->v[k];
        if (t->dir || t->kind != PCC_TK_PUNCT)
            continue;
        if (t->p[0] == '(' || t->p[0] == '[') {
            k = pcc_sim_match_close(T, k);
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
    while (q >= 3 && pcc_sim_tk_punct(T, q - 1, ':') && pcc_sim_tk_punct(T, q - 2, ':') &&
           T->v[q - 3].kind == PCC_TK_ID)
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
        if (pcc_sim_tk_punct(T, k, ';')) {
            semi = k;
            break;
        }
        if (pcc_sim_tk_punct(T, k, '{') || pcc_sim_tk_punct(T, k, '}'))
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
        if (T->v[k].kind == PCC_TK_ID && pcc_sim_tk_punct(T, k + 1, '[')) {
            name = k;
            break;
        }
        k++;
    }
    if (name < 0 || !pcc_sim_tk_punct(T, name + 2, ']') || name + 3 != semi) {
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
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "namespace") && blocks == 0) {
            pcc_sbuf name = {0};
            int k = i + 1;
            while (k < T->n && (T->v[k].kind == PCC_TK_ID || pcc_sim_tk_punct(T, k, ':'))) {
                if (!pcc_sim_tk_is(&T->v[k], "inline"))
                    pcc_sb_add(&name, T->v[k].p, T->v[k].n);
                k++;
            }
            if (pcc_sim_tk_punct(T, k, '{') && depth < 64) {
                st[depth].kind = SC_NS;
                snprintf(st[depth].name, sizeof st[depth].name, "%s", name.p ? name.p : "");
                depth++;
                i = k;
            }
            free(name.p);
            continue;
        }
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "extern") && i + 2 < T->n && T->v[i + 1].kind == PCC_TK_STR &&
            pcc_sim_tk_punct(T, i + 2, '{')) {
            if (depth < 64)
                st[depth++].kind = SC_LINK;
            i += 2;
            continue;
        }
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "extern")) {
            int k = i + 1;
            while (k < T->n && k < i + 8 && !pcc_sim_tk_is(&T->v[k], "__shared__")) {
                int after = skip_attr(T, k);
                if (after != k)
                    k = after;
                else if (pcc_sim_tk_is(&T->v[k], "volatile") || pcc_sim_tk_is(&T->v[k], "const"))
                    k++;
                else
                    break;
            }
            if (k < T->n && pcc_sim_tk_is(&T->v[k], "__shared__")) {
                on_extern_shared(A, T, i, k, st, depth, blocks > 0, src, E);
                continue;
            }
        }
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "static") && i + 1 < T->n &&
            pcc_sim_tk_is(&T->v[i + 1], "__shared__")) {
            /* __shared__ is already static */
            ed_add(E, (size_t)(t->p - src), (size_t)(t->p + t->n - src), strdup("      "));
            continue;
        }
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "__forceinline__")) {
            /* __forceinline__ carries `inline`; C++ refuses it twice */
            for (int k = i - 3; k <= i + 3; k++)
                if (k >= 0 && k < T->n && k != i && !T->v[k].dir && pcc_sim_tk_is(&T->v[k], "inline"))
                    ed_add(E, (size_t)(T->v[k].p - src), (size_t)(T->v[k].p + T->v[k].n - src),
                           strdup("      "));
            continue;
        }
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "__global__") && blocks == 0) {
            on_global(A, T, i, st, depth);
            continue;
        }
        if (pcc_sim_tk_punct(T, i, '{')) {
            if (depth < 64)
                st[depth++].kind = SC_BLOCK;
            blocks++;
        } else if (pcc_sim_tk_punct(T, i, '}') && depth > 0) {
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
