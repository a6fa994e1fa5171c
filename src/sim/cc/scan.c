/*
 * sim/cc/scan.c — reads the preprocessed program for the sim compiler
 * (sim/cc/build.c), the user's tokens only: the non-template __global__
 * definitions to register (macros expanded, so kernels a macro makes are
 * found), the rules NVRTC applies that a host compiler does not (execution
 * spaces, __global__ return type, __shared__ initializers), `extern
 * __shared__` declarations rewritten into pointers to the launch's dynamic
 * shared memory (line numbers kept), and the constructs a CPU cannot run,
 * with their lines; then the prelude's qualifier markers put back as host
 * C++. Tokens come from sim/cc/tokens.c; which kernels need barriers is
 * sim/cc/sync.c.
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
    pcc_sl_free(&A->kernel_clusters);
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

/* A texture or surface function of CUDA's that the prelude does not have
 * (mipmaps, gathers, cube maps, layered surfaces ...). */
static int unsupported_texture_call(const pcc_sim_tok *t)
{
    static const char *const ok[] = {"tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered",
                                     "tex2DLayered", "surf1Dread", "surf1Dwrite", "surf2Dread",
                                     "surf2Dwrite", "surf3Dread", "surf3Dwrite"};
    if (!pcc_sim_tk_starts(t, "tex1D") && !pcc_sim_tk_starts(t, "tex2D") &&
        !pcc_sim_tk_starts(t, "tex3D") && !pcc_sim_tk_starts(t, "texCubemap") &&
        !pcc_sim_tk_starts(t, "surf1D") && !pcc_sim_tk_starts(t, "surf2D") &&
        !pcc_sim_tk_starts(t, "surf3D") && !pcc_sim_tk_starts(t, "surfCubemap"))
        return 0;
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (pcc_sim_tk_is(t, ok[i]))
            return 0;
    return 1;
}

/* wmma's experimental sub-byte types (`precision::u4`, `s4`, `b1`) and
 * bmma_sync, at token i. */
static int subbyte_wmma(const pcc_sim_toks *T, int i)
{
    const pcc_sim_tok *t = &T->v[i];
    if (pcc_sim_tk_is(t, "bmma_sync"))
        return 1;
    if (!pcc_sim_tk_is(t, "u4") && !pcc_sim_tk_is(t, "s4") && !pcc_sim_tk_is(t, "b1"))
        return 0;
    return i >= 3 && pcc_sim_tk_punct(T, i - 1, ':') && pcc_sim_tk_punct(T, i - 2, ':') &&
           T->v[i - 3].kind == PCC_TK_ID && pcc_sim_tk_is(&T->v[i - 3], "precision");
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
        else if (unsupported_texture_call(t)) {
            char what[256];
            snprintf(what, sizeof what, "`%.*s` (of texture and surface functions the simulator "
                     "runs tex1Dfetch, tex1D/2D/3D, tex1DLayered/tex2DLayered and surf1D/2D/3D "
                     "read and write)", (int)(t->n < 64 ? t->n : 64), t->p);
            refuse(A, t, what);
        }
        else if (pcc_sim_tk_starts(t, "__hmma") || pcc_sim_tk_starts(t, "__imma") ||
                 pcc_sim_tk_starts(t, "__bmma") || pcc_sim_tk_starts(t, "__dmma") ||
                 pcc_sim_tk_starts(t, "__mma"))
            refuse(A, t, "a tensor-core built-in (`__hmma_*`, `__imma_*` ...: nvcuda::wmma's "
                         "functions run)");
        else if (subbyte_wmma(T, i))
            refuse(A, t, "a sub-byte tensor-core type or operation (nvcuda::wmma::experimental's "
                         "`precision::u4`, `precision::s4`, `precision::b1`, `bmma_sync`: the "
                         "other wmma types run)");
        else if (pcc_sim_tk_is(t, "this_multi_grid") || pcc_sim_tk_is(t, "multi_grid_group"))
            refuse(A, t, "multi-device synchronization (cooperative groups `this_multi_grid()`)");
    }
}

static int is_attr_word(const pcc_sim_tok *t)
{
    return pcc_sim_tk_is(t, "__launch_bounds__") || pcc_sim_tk_is(t, "__attribute__") ||
           pcc_sim_tk_is(t, "__align__") || pcc_sim_tk_is(t, "alignas") ||
           pcc_sim_tk_is(t, "__declspec") || pcc_sim_tk_is(t, "__maxnreg__") ||
           pcc_sim_tk_is(t, "__cluster_dims__") || pcc_sim_tk_is(t, "__builtin_align__") ||
           pcc_sim_tk_is(t, "__pcc_cluster_dims__") ||
           pcc_sim_tk_is(t, "decltype") || pcc_sim_tk_is(t, "noexcept") ||
           pcc_sim_tk_is(t, "throw") || pcc_sim_tk_is(t, "sizeof") || pcc_sim_tk_is(t, "alignof");
}

/* Whether token t begins a class's (or an enum's) definition. */
static int is_class_key(const pcc_sim_tok *t)
{
    return pcc_sim_tk_is(t, "struct") || pcc_sim_tk_is(t, "class") ||
           pcc_sim_tk_is(t, "union") || pcc_sim_tk_is(t, "enum");
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

enum { SC_NS, SC_LINK, SC_CLASS };
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

/* Source text of tokens [a, b) with attribute groups and the words in
 * `skip` left out. */
static void type_text(const pcc_sim_toks *T, int a, int b, pcc_sbuf *out, const char *const *skip)
{
    const pcc_sim_tok *prev = NULL;
    for (int k = a; k < b;) {
        int after = skip_attr(T, k);
        if (after != k) {
            k = after;
            continue;
        }
        const pcc_sim_tok *t = &T->v[k];
        int skipped = 0;
        for (int q = 0; skip && skip[q]; q++)
            skipped |= pcc_sim_tk_is(t, skip[q]);
        if (!skipped) {
            if (prev && prev->p + prev->n != t->p)
                pcc_sb_add(out, " ", 1);
            pcc_sb_add(out, t->p, t->n);
            prev = t;
        }
        k++;
    }
}

static void refuse_rule(pcc_sim_analysis *A, const pcc_sim_tok *t, const char *fmt, const char *name)
{
    if (A->nerrors++ >= 20)
        return;
    pcc_sb_printf(&A->errors, "%s:%d: error: ", t->file, t->line);
    pcc_sb_printf(&A->errors, fmt, name);
    pcc_sb_puts(&A->errors, " (NVRTC refuses this too; the CPU simulator follows it)\n");
}

static int has_word(const pcc_sim_toks *T, int a, int b, const char *w)
{
    for (int k = a; k < b; k++)
        if (T->v[k].kind == PCC_TK_ID && pcc_sim_tk_is(&T->v[k], w))
            return 1;
    return 0;
}

static int has_punct(const pcc_sim_toks *T, int a, int b, char c)
{
    for (int k = a; k < b; k++)
        if (pcc_sim_tk_punct(T, k, c))
            return 1;
    return 0;
}

/* The token after the bracket group opened at i, or i + 1. */
static int past(const pcc_sim_toks *T, int i)
{
    if (pcc_sim_tk_punct(T, i, '(') || pcc_sim_tk_punct(T, i, '[') || pcc_sim_tk_punct(T, i, '{'))
        return pcc_sim_match_close(T, i) + 1;
    return i + 1;
}

/* The `operator` keyword of an operator's name ending before token k (at
 * most 8 tokens back: `operator const T *`), or -1. */
static int operator_before(const pcc_sim_toks *T, int a, int k)
{
    for (int q = k - 1; q >= a && q >= k - 8; q--) {
        if (pcc_sim_tk_is(&T->v[q], "operator"))
            return q;
        if (pcc_sim_tk_punct(T, q, '(') || pcc_sim_tk_punct(T, q, ';'))
            break;
    }
    return -1;
}

/* In the declaration [a, b): the '(' opening a function's parameter list,
 * or -1. Attribute groups, decltype(...) and the like are not it; the token
 * before it names the function (an identifier, a template-id's '>', or an
 * operator). */
static int param_list(const pcc_sim_toks *T, int a, int b)
{
    for (int k = a; k < b;) {
        int after = skip_attr(T, k);
        if (after != k) {
            k = after;
            continue;
        }
        const pcc_sim_tok *t = &T->v[k];
        if (pcc_sim_tk_punct(T, k, '=') && !(k > a && pcc_sim_tk_is(&T->v[k - 1], "operator")))
            return -1; /* an initializer comes first: a variable */
        if (pcc_sim_tk_punct(T, k, '(') && k > a) {
            const pcc_sim_tok *p = &T->v[k - 1];
            if (p->kind == PCC_TK_ID && !pcc_sim_tk_is(p, "operator"))
                return k;
            if (p->kind == PCC_TK_PUNCT && (p->p[0] == '>' || p->p[0] == ')' || p->p[0] == ']' ||
                                           p->p[0] == '=' || p->p[0] == '+' || p->p[0] == '-' ||
                                           p->p[0] == '*' || p->p[0] == '/' || p->p[0] == '<' ||
                                           p->p[0] == '!' || p->p[0] == '&' || p->p[0] == '|' ||
                                           p->p[0] == '^' || p->p[0] == '%' || p->p[0] == '~')) {
                /* operator()(...), operator<(...), operator const T *(), f<T>(...) */
                if (operator_before(T, a, k) >= 0)
                    return k;
                if (p->p[0] == '>')
                    return k;
                if (p->p[0] == ')' || p->p[0] == ']')
                    return -1; /* (*fp)(...) or a lambda */
            }
            (void)t;
        }
        k = past(T, k);
    }
    return -1;
}

/* The declarator-id before the parameter list at lp: its first token, and
 * the name token (the identifier, or `operator`). */
static int declarator_start(const pcc_sim_toks *T, int a, int lp, int *name)
{
    int k = lp - 1;
    if (T->v[k].kind == PCC_TK_PUNCT && T->v[k].p[0] == '>') { /* template-id: back to its '<' */
        int depth = 0;
        for (; k > a; k--) {
            if (pcc_sim_tk_punct(T, k, '>'))
                depth++;
            else if (pcc_sim_tk_punct(T, k, '<') && --depth == 0)
                break;
        }
        k--;
    }
    int op = operator_before(T, a, lp);
    if (op >= 0)
        k = op;
    *name = k;
    if (k > a && pcc_sim_tk_punct(T, k - 1, '~'))
        k--;
    while (k >= a + 2 && pcc_sim_tk_punct(T, k - 1, ':') && pcc_sim_tk_punct(T, k - 2, ':') &&
           (k - 3 < a || T->v[k - 3].kind == PCC_TK_ID || pcc_sim_tk_punct(T, k - 3, '>')))
        k -= k - 3 >= a && T->v[k - 3].kind == PCC_TK_ID ? 3 : 2;
    return k;
}

/* Whether [lp's close, b) is what may stand between a function's
 * parameter list and its body (cv, noexcept, ->type, a ctor's init list). */
static int body_follows(const pcc_sim_toks *T, int rp, int b)
{
    for (int k = rp + 1; k < b;) {
        int after = skip_attr(T, k);
        if (after != k) {
            k = after;
            continue;
        }
        if (pcc_sim_tk_punct(T, k, '=') || pcc_sim_tk_punct(T, k, ';') || pcc_sim_tk_punct(T, k, ','))
            return 0;
        if (pcc_sim_tk_punct(T, k, ':') && !pcc_sim_tk_punct(T, k + 1, ':') &&
            !pcc_sim_tk_punct(T, k - 1, ':'))
            return 1; /* a constructor's member initializers: whatever follows */
        k = past(T, k);
    }
    return 1;
}

/* The text between the parentheses of __cluster_dims__(...) in [a, q), or "". */
static void cluster_text(const pcc_sim_toks *T, int a, int q, pcc_sbuf *out)
{
    for (int k = a; k < q; k++)
        if (pcc_sim_tk_is(&T->v[k], "__pcc_cluster_dims__") && pcc_sim_tk_punct(T, k + 1, '(')) {
            int close = pcc_sim_match_close(T, k + 1);
            for (int r = k + 2; r < close; r++) {
                pcc_sb_add(out, T->v[r].p, T->v[r].n);
                pcc_sb_puts(out, " ");
            }
            return;
        }
}

static void add_kernel(pcc_sim_analysis *A, const pcc_sim_toks *T, int a, int name, int q, const scope *st,
                       int depth)
{
    pcc_sbuf expr = {0};
    ns_path(st, depth, &expr);
    pcc_sb_puts(&expr, "::");
    for (int r = q; r <= name; r++)
        pcc_sb_add(&expr, T->v[r].p, T->v[r].n);
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)T->v[name].n, T->v[name].p);
    if (!expr.oom && pcc_sl_find(&A->kernel_names, nm) < 0) {
        pcc_sbuf dims = {0};
        cluster_text(T, a, q, &dims);
        pcc_sl_adds(&A->kernel_names, nm);
        pcc_sl_adds(&A->kernel_exprs, expr.p);
        pcc_sl_adds(&A->kernel_clusters, dims.p ? dims.p : "");
        free(dims.p);
    }
    free(expr.p);
}

/* A function definition: declaration [a, lp ...) with its body at `open`. */
static void on_function(pcc_sim_analysis *A, const pcc_sim_toks *T, int a, int lp, const scope *st, int depth,
                        int in_class)
{
    int name;
    int q = declarator_start(T, a, lp, &name);
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)T->v[name].n, T->v[name].p);
    int global = has_word(T, a, q, "__pcc_global__"), device = has_word(T, a, q, "__pcc_device__");
    int host = has_word(T, a, q, "__pcc_host__");
    if (global) {
        /* what is left of the specifiers must be `void` */
        static const char *const not_type[] = {
            "__pcc_global__", "extern", "static", "inline", "__pcc_forceinline__", "constexpr",
            "__pcc_host__", "__pcc_device__", "__pcc_noinline__", NULL};
        int tmpl = has_word(T, a, q, "template");
        int from = a;
        if (tmpl) { /* past the template header */
            for (int k = a; k < q; k++)
                if (pcc_sim_tk_is(&T->v[k], "template") && pcc_sim_tk_punct(T, k + 1, '<')) {
                    int d = 0, e = k + 1;
                    for (; e < q; e++) {
                        if (pcc_sim_tk_punct(T, e, '<'))
                            d++;
                        else if (pcc_sim_tk_punct(T, e, '>') && --d == 0)
                            break;
                    }
                    from = e + 1;
                }
        }
        pcc_sbuf ret = {0};
        for (int k = from; k < q; k++) /* extern "C": the string goes too */
            if (T->v[k].kind == PCC_TK_STR && k > from && pcc_sim_tk_is(&T->v[k - 1], "extern"))
                from = k + 1;
        type_text(T, from, q, &ret, not_type);
        if (ret.p && strcmp(ret.p, "void") != 0)
            refuse_rule(A, &T->v[name], "a __global__ function must have a void return type (\"%s\")", nm);
        free(ret.p);
        if (!tmpl && !in_class && !pcc_sim_tk_punct(T, lp - 1, '>'))
            add_kernel(A, T, a, name, q, st, depth);
    } else if (!device && !A->default_device) {
        if (host)
            refuse_rule(A, &T->v[name], "function \"%s\" is marked __host__ only: host functions are "
                                        "not allowed in JIT mode (mark it __host__ __device__)", nm);
        else
            refuse_rule(A, &T->v[name], "function \"%s\" has no execution space annotation "
                                        "(__host__/__device__/__global__), so it is a host function, "
                                        "and host functions are not allowed in JIT mode: mark it "
                                        "__device__ (or compile with -default-device)", nm);
    }
}

/* `extern __shared__ T name[];` (any order of the specifiers) in [s, semi]
 * → a pointer to the launch's dynamic shared memory: a local inside a
 * function, a thread-local set by every kernel entry at file scope. A
 * declaration `extern T __pcc_xs_name[]` goes with it so that the compiler
 * refuses two of one name with different types, as NVRTC does. */
static void on_extern_shared(pcc_sim_analysis *A, const pcc_sim_toks *T, int s, int semi, const scope *st,
                             int depth, int in_block, const char *src, pcc_sim_edits *E)
{
    int name = -1;
    for (int k = s; k < semi;) {
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
    int end = name >= 0 ? skip_attr(T, name + 3) : -1;
    if (name < 0 || !pcc_sim_tk_punct(T, name + 2, ']') || end != semi) {
        refuse(A, &T->v[s], "this form of `extern __shared__` (only `extern __shared__ T name[];`)");
        return;
    }
    static const char *const not_type[] = {"extern", "__pcc_shared__", NULL};
    pcc_sbuf type = {0}, text = {0};
    type_text(T, s, name, &type, not_type);
    const char *ty = type.p ? type.p : "char";
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)T->v[name].n, T->v[name].p);
    pcc_sb_printf(&text, "extern %s __pcc_xs_%s[]; ", ty, nm);
    if (in_block) {
        pcc_sb_printf(&text, "%s *%s = (%s *)__pcc_dyn_smem();", ty, nm, ty);
    } else {
        pcc_sbuf q = {0};
        ns_path(st, depth, &q);
        pcc_sb_printf(&q, "::%s", nm);
        if (!q.oom && pcc_sl_find(&A->dyn_names, q.p) < 0) {
            pcc_sl_adds(&A->dyn_names, q.p);
            pcc_sb_printf(&text, "static thread_local %s *%s;", ty, nm);
            pcc_sbuf set = {0};
            pcc_sb_printf(&set, "    %s = (%s *)p;\n", q.p, ty);
            if (set.p)
                pcc_sl_adds(&A->dyn_setters, set.p);
            free(set.p);
        }
        free(q.p);
    }
    size_t start = (size_t)(T->v[s].p - src), stop = (size_t)(T->v[semi].p + 1 - src);
    for (size_t k = start; k < stop; k++)
        if (src[k] == '\n')
            pcc_sb_add(&text, "\n", 1);
    ed_add(E, start, stop, text.p ? text.p : strdup(""));
    free(type.p);
}

/* A declaration [s, semi) that carries __shared__: no initializer (NVRTC's
 * rule), and `extern` ones rewritten. */
static void on_shared_decl(pcc_sim_analysis *A, const pcc_sim_toks *T, int s, int semi, const scope *st,
                           int depth, int in_block, const char *src, pcc_sim_edits *E)
{
    int mark = -1;
    for (int k = s; k < semi; k++)
        if (pcc_sim_tk_is(&T->v[k], "__pcc_shared__")) {
            mark = k;
            break;
        }
    if (mark < 0)
        return;
    int ext = has_word(T, s, semi, "extern");
    /* alignas in an extern __shared__ declaration: NVRTC refuses it (the array
     * has no storage of its own), wherever it stands after __shared__ */
    for (int k = mark + 1; ext && k < semi; k = past(T, k))
        if (pcc_sim_tk_is(&T->v[k], "alignas")) {
            refuse_rule(A, &T->v[k], "attribute does not apply to any entity%s", "");
            return;
        }
    if (ext) {
        on_extern_shared(A, T, s, semi, st, depth, in_block, src, E);
        return;
    }
    int class_head = 0; /* after struct/class/union/enum, before its body */
    for (int k = mark + 1; k < semi;) {
        int after = skip_attr(T, k);
        if (after != k) {
            k = after;
            continue;
        }
        if (is_class_key(&T->v[k]))
            class_head = 1;
        /* `__shared__ struct P : Q { float a; } s[3];`: the class's (or enum's)
         * body is no initializer */
        int body = class_head && pcc_sim_tk_punct(T, k, '{');
        if (body)
            class_head = 0;
        if (!body && (pcc_sim_tk_punct(T, k, '=') || pcc_sim_tk_punct(T, k, '{') ||
                      (pcc_sim_tk_punct(T, k, '(') && k > 0 && T->v[k - 1].kind == PCC_TK_ID &&
                       k - 1 > mark))) {
            refuse_rule(A, &T->v[k], "initializer not allowed for __shared__ variable%s", "");
            return;
        }
        k = past(T, k);
    }
}

/* Statement boundaries inside a function body [b, e): every declaration
 * that carries __shared__. */
static void scan_body(pcc_sim_analysis *A, const pcc_sim_toks *T, int b, int e, const scope *st, int depth,
                      const char *src, pcc_sim_edits *E)
{
    int s = b;
    for (int k = b; k < e; k++) {
        const pcc_sim_tok *t = &T->v[k];
        if (t->kind == PCC_TK_PUNCT && (t->p[0] == ';' || t->p[0] == '{' || t->p[0] == '}')) {
            s = k + 1;
            continue;
        }
        if (t->kind == PCC_TK_PUNCT && t->p[0] == ')' ) {
            /* `for (...) __shared__ ...` cannot be; but `if (...) x;`: a new statement */
            s = k + 1;
            continue;
        }
        if (pcc_sim_tk_is(t, "__pcc_shared__")) {
            int semi = k;
            while (semi < e && !pcc_sim_tk_punct(T, semi, ';')) {
                if (pcc_sim_tk_punct(T, semi, '(') || pcc_sim_tk_punct(T, semi, '[') || pcc_sim_tk_punct(T, semi, '{'))
                    semi = pcc_sim_match_close(T, semi);
                semi++;
            }
            if (semi >= e)
                return;
            on_shared_decl(A, T, s, semi, st, depth, 1, src, E);
            k = semi;
            s = k + 1;
        }
    }
}

/* Walks the structure of the user's (preprocessed) tokens: namespaces,
 * linkage blocks, classes, function bodies: kernels to register, the rules
 * NVRTC applies that a host compiler does not (execution spaces, __global__
 * return type, __shared__ initializers), the `extern __shared__` rewrites. */
void pcc_sim_analyze(pcc_sim_analysis *A, const pcc_sim_toks *T, const char *src, pcc_sim_edits *E)
{
    scope st[64];
    int depth = 0, a = 0;
    for (int i = 0; i < T->n; i++) {
        const pcc_sim_tok *t = &T->v[i];
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "namespace")) {
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
                a = i + 1;
            }
            free(name.p);
            continue;
        }
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "extern") && i + 2 < T->n && T->v[i + 1].kind == PCC_TK_STR &&
            pcc_sim_tk_punct(T, i + 2, '{')) {
            if (depth < 64)
                st[depth++].kind = SC_LINK;
            i += 2;
            a = i + 1;
            continue;
        }
        if (t->kind == PCC_TK_PUNCT && (t->p[0] == '(' || t->p[0] == '[')) {
            i = pcc_sim_match_close(T, i);
            continue;
        }
        if (t->kind == PCC_TK_PUNCT && t->p[0] == ';') {
            if (has_word(T, a, i, "__pcc_shared__"))
                on_shared_decl(A, T, a, i, st, depth, 0, src, E);
            a = i + 1;
            continue;
        }
        if (t->kind == PCC_TK_PUNCT && t->p[0] == '}') {
            if (depth > 0)
                depth--;
            a = i + 1;
            continue;
        }
        if (t->kind == PCC_TK_PUNCT && t->p[0] == ':' && depth > 0 && st[depth - 1].kind == SC_CLASS &&
            i > 0 && (pcc_sim_tk_is(&T->v[i - 1], "public") || pcc_sim_tk_is(&T->v[i - 1], "private") ||
                      pcc_sim_tk_is(&T->v[i - 1], "protected"))) {
            a = i + 1;
            continue;
        }
        if (t->kind != PCC_TK_PUNCT || t->p[0] != '{')
            continue;
        int close = pcc_sim_match_close(T, i);
        int lp = param_list(T, a, i);
        int in_class = depth > 0 && st[depth - 1].kind == SC_CLASS;
        if (lp >= 0 && body_follows(T, pcc_sim_match_close(T, lp), i)) {
            on_function(A, T, a, lp, st, depth, in_class);
            scan_body(A, T, i + 1, close, st, depth, src, E);
            i = close;
            a = i + 1;
        } else if (!has_word(T, a, i, "enum") && (has_word(T, a, i, "struct") || has_word(T, a, i, "class") ||
                                                 has_word(T, a, i, "union")) && !has_punct(T, a, i, '=')) {
            if (depth < 64) {
                st[depth].kind = SC_CLASS;
                st[depth].name[0] = '\0';
                depth++;
            }
            a = i + 1;
        } else {
            i = close; /* an initializer, an enum's body: part of the declaration */
        }
    }
}

/* The markers the prelude's qualifiers leave in the preprocessed text, put
 * back as host C++ (outside the ranges E already rewrites). */
void pcc_sim_marker_edits(const pcc_sim_toks *T, const char *src, pcc_sim_edits *E)
{
    int n0 = E->n;
    for (int i = 0; i < T->n; i++) {
        const pcc_sim_tok *t = &T->v[i];
        if (t->kind != PCC_TK_ID || !pcc_sim_tk_starts(t, "__pcc_") || t->n < 10 ||
            memcmp(t->p + t->n - 2, "__", 2) != 0)
            continue;
        size_t at = (size_t)(t->p - src);
        int inside = 0;
        for (int k = 0; k < n0 && !inside; k++)
            inside = E->v[k].start <= at && at < E->v[k].end;
        if (inside)
            continue;
        const char *text = NULL;
        if (pcc_sim_tk_is(t, "__pcc_global__") || pcc_sim_tk_is(t, "__pcc_device__") ||
            pcc_sim_tk_is(t, "__pcc_host__") || pcc_sim_tk_is(t, "__pcc_constant__") ||
            pcc_sim_tk_is(t, "__pcc_managed__"))
            text = "";
        else if (pcc_sim_tk_is(t, "__pcc_shared__")) {
            /* __shared__ is static thread-local; `static __shared__` says it once */
            int after_static = i > 0 && pcc_sim_tk_is(&T->v[i - 1], "static");
            text = after_static ? "thread_local" : "static thread_local";
            int j = i + 1; /* standard attributes right after it */
            while (j < T->n && ((pcc_sim_tk_is(&T->v[j], "alignas") && pcc_sim_tk_punct(T, j + 1, '(')) ||
                                (pcc_sim_tk_punct(T, j, '[') && pcc_sim_tk_punct(T, j + 1, '['))))
                j = pcc_sim_match_close(T, pcc_sim_tk_is(&T->v[j], "alignas") ? j + 1 : j) + 1;
            if (j > i + 1 && j <= T->n && !after_static) {
                /* `__shared__ alignas(16) float s[4];`, which NVRTC takes (its
                 * __shared__ is an attribute): C++ refuses a standard attribute
                 * between decl-specifiers, so the attributes go first. After
                 * `static` NVRTC refuses them too ("attribute does not apply
                 * to any entity"), and so does the host compiler. */
                size_t from = (size_t)(T->v[i].p - src);
                size_t a0 = (size_t)(T->v[i + 1].p - src);
                size_t a1 = (size_t)(T->v[j - 1].p - src) + T->v[j - 1].n;
                pcc_sbuf moved = {0};
                pcc_sb_add(&moved, src + a0, a1 - a0);
                pcc_sb_printf(&moved, " static thread_local");
                if (moved.oom) {
                    free(moved.p);
                    continue;
                }
                ed_add(E, from, at + t->n, moved.p);
                ed_add(E, a0, a1, strdup(""));
                continue;
            }
        }
        else if (pcc_sim_tk_is(t, "__pcc_forceinline__")) {
            int has_inline = 0; /* __forceinline__ carries `inline`; C++ refuses it twice */
            for (int k = i - 3; k <= i + 3; k++)
                if (k >= 0 && k < T->n && k != i && pcc_sim_tk_is(&T->v[k], "inline"))
                    has_inline = 1;
            text = has_inline ? "__attribute__((always_inline))" : "inline __attribute__((always_inline))";
        } else if (pcc_sim_tk_is(t, "__pcc_noinline__"))
            text = "__attribute__((noinline))";
        else if (pcc_sim_tk_is(t, "__pcc_cluster_dims__") && pcc_sim_tk_punct(T, i + 1, '(')) {
            /* read by add_kernel: the registration carries the dimensions */
            const pcc_sim_tok *close = &T->v[pcc_sim_match_close(T, i + 1)];
            ed_add(E, at, (size_t)(close->p - src) + close->n, strdup(""));
            continue;
        }
        if (text)
            ed_add(E, at, at + t->n, strdup(text));
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
