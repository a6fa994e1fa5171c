/*
 * sim/cc/sync.c — which kernels of a module reach a barrier or a warp
 * operation (directly or through the functions and macros they call), so
 * that only those run their threads as fibers. Apart from the scan
 * (sim/cc/scan.c): it answers a different question over the same
 * tokens, and needs the whole source's function bodies at once.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/cc/scan.h"

/* Barrier and warp operations: any of them makes the module run its threads
 * as fibers. */
int pcc_sim_is_sync_token(const pcc_sim_tok *t)
{
    static const char *const prefixes[] = {
        "__syncthreads", "__syncwarp", "__shfl", "__ballot", "__any_sync", "__all_sync",
        "__uni_sync", "__activemask", "__match", "__reduce_", "this_thread_block",
        "tiled_partition", "coalesced_threads", "cooperative_groups", "this_cluster",
        "cluster_group", "load_matrix_sync", "store_matrix_sync", "mma_sync"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (pcc_sim_tk_starts(t, prefixes[i]))
            return 1;
    return 0;
}

int pcc_sim_mentions_sync(const pcc_sim_toks *T)
{
    for (int i = 0; i < T->n; i++)
        if (pcc_sim_is_sync_token(&T->v[i]))
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
           (pcc_sim_tk_is(&T->v[k], "const") || pcc_sim_tk_is(&T->v[k], "noexcept") ||
            pcc_sim_tk_is(&T->v[k], "override") || pcc_sim_tk_is(&T->v[k], "final") ||
            pcc_sim_tk_is(&T->v[k], "volatile")))
        k--;
    if (!pcc_sim_tk_punct(T, k, ')'))
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
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "namespace")) {
            int k = i + 1;
            while (k < T->n && (T->v[k].kind == PCC_TK_ID || pcc_sim_tk_punct(T, k, ':')))
                k++;
            if (pcc_sim_tk_punct(T, k, '{'))
                i = k; /* a namespace's braces are transparent */
            continue;
        }
        if (t->kind == PCC_TK_ID && pcc_sim_tk_is(t, "extern") && i + 2 < T->n && T->v[i + 1].kind == PCC_TK_STR &&
            pcc_sim_tk_punct(T, i + 2, '{')) {
            i += 2;
            continue;
        }
        if (pcc_sim_is_sync_token(t) && depth == 0) {
            A->sync_unsure = 1; /* at file scope, outside any body */
            continue;
        }
        if (!pcc_sim_tk_punct(T, i, '{'))
            continue;
        int close = pcc_sim_match_close(T, i);
        int name = function_name(T, i);
        if (name >= 0) {
            b[nb++] = (body){&T->v[name], i + 1, close};
        } else {
            for (int k = i + 1; k < close; k++)
                if (!T->v[k].dir && pcc_sim_is_sync_token(&T->v[k]))
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
                if (t->kind == PCC_TK_ID && (pcc_sim_is_sync_token(t) || name_in(&A->sync_names, t))) {
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
    while (start > name && (pcc_sim_is_idchar((unsigned char)start[-1])))
        start--;
    for (int i = 0; i < A->sync_names.n; i++)
        if (strlen(A->sync_names.v[i]) == (size_t)(end - start) &&
            memcmp(A->sync_names.v[i], start, (size_t)(end - start)) == 0)
            return 1;
    return 0;
}
