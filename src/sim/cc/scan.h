/*
 * sim/cc/scan.h — the sim compiler's view of CUDA C source, shared by
 * the files that read it: src/sim/cc/strings.c (the small buffers every
 * sim compiler file uses), src/sim/cc/tokens.c (a tokenizer that knows
 * comments, literals and preprocessor lines), src/sim/cc/scan.c (the
 * scan for kernels, `extern __shared__` and what a CPU cannot run) and
 * src/sim/cc/sync.c (which kernels reach a barrier or warp operation).
 * Internal to the sim compiler (src/sim/cc/compile.c and these).
 */
#ifndef PYCUDAC_BACKEND_SIM_SCAN_H
#define PYCUDAC_BACKEND_SIM_SCAN_H

#include <stddef.h>
#include <string.h>

/* ---- sim/cc/strings.c ---- */

/* A growable byte buffer, always NUL-terminated; oom latches. */
typedef struct {
    char *p;
    size_t len, cap;
    int oom;
} pcc_sbuf;

void pcc_sb_add(pcc_sbuf *b, const char *s, size_t n);
void pcc_sb_puts(pcc_sbuf *b, const char *s);
void pcc_sb_printf(pcc_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A NULL-terminated list of owned strings; oom latches. */
typedef struct {
    char **v;
    int n, cap;
    int oom;
} pcc_slist;

int pcc_sl_add(pcc_slist *l, const char *s, size_t n);
int pcc_sl_adds(pcc_slist *l, const char *s);
int pcc_sl_find(const pcc_slist *l, const char *s); /* index or -1 */
void pcc_sl_free(pcc_slist *l);

/* ---- sim/cc/tokens.c ---- */

/* token kinds */
enum { PCC_TK_ID, PCC_TK_NUM, PCC_TK_STR, PCC_TK_PUNCT };

typedef struct {
    int kind;
    const char *p;
    size_t n;
    int line;         /* presumed (after #line) */
    const char *file; /* presumed */
    int dir;          /* inside a #define body: that directive's number (1, 2, ...) */
    int sys;          /* from a system header (a line marker with flag 3): not the user's */
} pcc_sim_tok;

typedef struct {
    pcc_sim_tok *v;
    int n, cap;
    pcc_slist files;    /* presumed file names (owned) */
    pcc_slist includes; /* "x" or <x> targets, in order */
    int cur_sys;        /* while tokenizing: inside a system header */
    int oom;
} pcc_sim_toks;

/* Tokens of s[0..n), `file` being the presumed name until a #line. */
void pcc_sim_tokenize(pcc_sim_toks *T, const char *s, size_t n, const char *file);
void pcc_sim_toks_free(pcc_sim_toks *T);
/* Index of the token closing the bracket opened at i (non-define tokens). */
int pcc_sim_match_close(const pcc_sim_toks *T, int i);

static inline int pcc_sim_is_idstart(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}

static inline int pcc_sim_is_idchar(int c) { return pcc_sim_is_idstart(c) || (c >= '0' && c <= '9'); }

/* Whether token t is exactly s. */
static inline int pcc_sim_tk_is(const pcc_sim_tok *t, const char *s)
{
    return t->n == strlen(s) && memcmp(t->p, s, t->n) == 0;
}

/* Whether token t is an identifier starting with prefix. */
static inline int pcc_sim_tk_starts(const pcc_sim_tok *t, const char *prefix)
{
    size_t k = strlen(prefix);
    return t->kind == PCC_TK_ID && t->n >= k && memcmp(t->p, prefix, k) == 0;
}

/* Whether token i exists and is the punctuator c. */
static inline int pcc_sim_tk_punct(const pcc_sim_toks *T, int i, char c)
{
    return i >= 0 && i < T->n && T->v[i].kind == PCC_TK_PUNCT && T->v[i].p[0] == c;
}

/* ---- sim/cc/scan.c ---- */

/* One replacement of a byte range of the source (text owned). */
typedef struct {
    size_t start, end; /* byte range of the source replaced */
    char *text;        /* replacement (owned) */
} pcc_sim_edit;

typedef struct {
    pcc_sim_edit *v;
    int n, cap;
} pcc_sim_edits;

/* What the scan found. */
typedef struct {
    pcc_slist kernel_names, kernel_exprs; /* registered name, C++ expression of its address */
    pcc_slist kernel_clusters; /* the text inside its __cluster_dims__(...), or "" */
    pcc_slist dyn_names, dyn_setters;     /* file-scope extern __shared__: qualified name, setter line */
    pcc_sbuf errors;                      /* refusals, one per line */
    int nerrors;
    int uses_sync;         /* a barrier or warp operation appears somewhere */
    pcc_slist sync_names;  /* functions and macros that reach one */
    int sync_unsure;       /* one appears where no name can be given to it */
    int default_device;    /* -default-device: unannotated functions are __device__ */
} pcc_sim_analysis;

/* Refusals (asm, textures, tensor cores, grid sync) and barrier use. */
void pcc_sim_check_tokens(pcc_sim_analysis *A, const pcc_sim_toks *T);
/* Over the user's preprocessed tokens: kernels to register, NVRTC's rules
 * a host compiler does not apply (refusals into A->errors), the `extern
 * __shared__` rewrites. */
void pcc_sim_analyze(pcc_sim_analysis *A, const pcc_sim_toks *T, const char *src, pcc_sim_edits *E);
/* Over every preprocessed token: the prelude's markers (__pcc_global__,
 * __pcc_shared__ ...) put back as host C++, outside what E rewrites. */
void pcc_sim_marker_edits(const pcc_sim_toks *T, const char *src, pcc_sim_edits *E);
void pcc_sim_apply_edits(const char *src, size_t n, const pcc_sim_edits *E, pcc_sbuf *out);
void pcc_sim_edits_free(pcc_sim_edits *E);
void pcc_sim_analysis_free(pcc_sim_analysis *A);

/* ---- sim/cc/sync.c ---- */

/* Whether t is a barrier or warp operation (or cooperative groups). */
int pcc_sim_is_sync_token(const pcc_sim_tok *t);
/* Whether any token is a barrier or warp operation. */
int pcc_sim_mentions_sync(const pcc_sim_toks *T);
/* Fills sync_names / sync_unsure from the main source's tokens. */
void pcc_sim_sync_analysis(pcc_sim_analysis *A, const pcc_sim_toks *T);
/* Whether kernel `name` (or name expression) must run its threads as fibers. */
int pcc_sim_kernel_syncs(const pcc_sim_analysis *A, const char *name);

#endif
