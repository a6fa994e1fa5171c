/*
 * sim/capture.c — stream capture in the simulator: capture
 * sequences (cuStreamBeginCapture … cuStreamEndCapture), the hooks through
 * which every stream-ordered call either runs, becomes a node of the graph
 * being captured, or fails, and the rules the driver keeps around a capture:
 * the legacy stream, the calls a capture forbids, captured events, streams
 * that join a capture through an event.
 *
 * Where the documentation is silent the rules are what the real driver did
 * (CUDA 13.0 on an H100): a refused launch, a synchronize, a forbidden call
 * or a wait that crosses capture sequences invalidates the capture; a refused
 * copy, memset or host function does not; the legacy stream conflicts with a
 * capture that has a blocking stream in every capture mode; cuGraphLaunch
 * into a capturing stream is refused; after a capture ends, an event recorded
 * in it is refused (CUDA_ERROR_INVALID_VALUE) until it is recorded again.
 *
 * All of it runs under sim_graph_lock. While no capture exists (ncaptures
 * is 0, the common case) the hooks return at once without taking it.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

typedef struct sim_capture {
    unsigned long long id;
    int mode;                 /* CU_STREAM_CAPTURE_MODE_* */
    int status;               /* CU_STREAM_CAPTURE_STATUS_ACTIVE or _INVALIDATED */
    pthread_t thread;         /* the thread that began it */
    CUcontext ctx;
    CUstream origin;
    CUgraph graph;            /* owned until cuStreamEndCapture hands it out */
    CUstream *members;        /* the origin, then the streams that joined */
    size_t nmembers, members_cap;
    struct sim_capture *next;
} sim_capture;

static sim_capture *captures; /* every sequence between its begin and its end */
static atomic_int ncaptures;
static unsigned long long last_id;

/* CU_STREAM_PER_THREAD is a blocking stream of each thread's own. */
static _Thread_local struct CUstream_st per_thread;

/* The stream behind a handle (checked by sim_stream_ok): a created stream,
 * this thread's per-thread stream, or NULL for the legacy stream. */
static CUstream stream_of(CUstream s)
{
    if (s == NULL || s == SIM_STREAM_LEGACY)
        return NULL;
    return s == SIM_STREAM_PER_THREAD ? &per_thread : s;
}

static int no_captures(void)
{
    return atomic_load_explicit(&ncaptures, memory_order_acquire) == 0;
}

static sim_capture *find(unsigned long long id)
{
    for (sim_capture *c = captures; c; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

static void invalidate(sim_capture *c)
{
    c->status = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
}

/* True when work on the legacy stream would wait for a capture: one in the
 * current context with a blocking stream among its members. */
static int legacy_conflict(int invalidate_them)
{
    CUcontext ctx = sim_current_ctx();
    int found = 0;
    for (sim_capture *c = captures; c; c = c->next) {
        if (c->ctx != ctx)
            continue;
        for (size_t i = 0; i < c->nmembers; i++)
            if (!(c->members[i]->flags & CU_STREAM_NON_BLOCKING)) {
                found = 1;
                if (invalidate_them)
                    invalidate(c);
                break;
            }
    }
    return found;
}

/* A call that would synchronize with captured work ("potentially unsafe"):
 * forbidden while this thread has a capture not begun in RELAXED mode, or
 * another thread one begun in GLOBAL mode; those captures are invalidated. */
static CUresult unsafe_locked(void)
{
    pthread_t self = pthread_self();
    CUresult rc = CUDA_SUCCESS;
    for (sim_capture *c = captures; c; c = c->next) {
        int mine = pthread_equal(c->thread, self);
        if ((mine && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
            (!mine && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
            invalidate(c);
            rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
    }
    return rc;
}

/* Makes st's dependency set `keep` (its own set, kept when add is set)
 * plus `more`, without duplicates. */
static CUresult update_deps(CUstream st, int add, CUgraphNode const *more, size_t n)
{
    size_t keep = add ? st->ndeps : 0;
    CUgraphNode *set = malloc((keep + n ? keep + n : 1) * sizeof *set);
    if (set == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    size_t len = 0;
    for (size_t i = 0; i < keep + n; i++) {
        CUgraphNode node = i < keep ? st->deps[i] : more[i - keep];
        size_t j = 0;
        while (j < len && set[j] != node)
            j++;
        if (j == len)
            set[len++] = node;
    }
    free(st->deps);
    st->deps = set;
    st->ndeps = len;
    return CUDA_SUCCESS;
}

static CUresult join(sim_capture *c, CUstream st, CUgraphNode const *deps, size_t n)
{
    if (c->nmembers == c->members_cap) {
        size_t cap = c->members_cap * 2;
        CUstream *m = realloc(c->members, cap * sizeof *m);
        if (m == NULL)
            return CUDA_ERROR_OUT_OF_MEMORY;
        c->members = m;
        c->members_cap = cap;
    }
    CUresult rc = update_deps(st, 0, deps, n);
    if (rc != CUDA_SUCCESS)
        return rc;
    c->members[c->nmembers++] = st;
    st->capture = c;
    return CUDA_SUCCESS;
}

static void leave(CUstream st)
{
    st->capture = NULL;
    free(st->deps);
    st->deps = NULL;
    st->ndeps = 0;
}

/* Ends a capture sequence: its streams stop capturing; the graph is freed
 * unless the caller takes it. */
static void finish(sim_capture *c, int free_graph)
{
    for (size_t i = 0; i < c->nmembers; i++)
        leave(c->members[i]);
    for (sim_capture **p = &captures; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    atomic_fetch_sub_explicit(&ncaptures, 1, memory_order_release);
    c->graph->capture = NULL;
    if (free_graph)
        sim_graph_free(c->graph);
    free(c->members);
    free(c);
}

/* True when a stream that joined c has a node in its dependency set that
 * the origin's set neither holds nor depends on. */
static int unjoined(const sim_capture *c)
{
    CUgraph g = c->graph;
    CUgraphNode *stack = malloc((g->n ? g->n : 1) * sizeof *stack);
    if (stack == NULL)
        return 0; /* no memory for the walk: let it pass */
    unsigned long long mark = sim_graph_new_mark();
    size_t top = 0;
    for (size_t i = 0; i < c->origin->ndeps; i++)
        if (c->origin->deps[i]->mark != mark) {
            c->origin->deps[i]->mark = mark;
            stack[top++] = c->origin->deps[i];
        }
    while (top > 0) {
        CUgraphNode n = stack[--top];
        for (size_t i = 0; i < n->ndeps; i++)
            if (n->deps[i]->mark != mark) {
                n->deps[i]->mark = mark;
                stack[top++] = n->deps[i];
            }
    }
    free(stack);
    for (size_t m = 1; m < c->nmembers; m++)
        for (size_t i = 0; i < c->members[m]->ndeps; i++)
            if (c->members[m]->deps[i]->mark != mark)
                return 1;
    return 0;
}

/* ---- hooks for the stream-ordered calls --------------------------------------------- */

CUresult sim_stream_submit(CUstream s, const sim_op *op)
{
    if (no_captures())
        return SIM_RUN_NOW;
    CUresult rc = SIM_RUN_NOW;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    sim_capture *c = st ? st->capture : NULL;
    if (st == NULL) {
        if (legacy_conflict(1))
            rc = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    } else if (c != NULL) {
        if (c->status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
            rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        } else if (op == NULL) {
            invalidate(c);
            rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        } else {
            CUgraphNode node = sim_graph_add(c->graph, op, st->deps, st->ndeps);
            rc = node ? update_deps(st, 0, &node, 1) : CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

CUresult sim_capture_refused(CUstream s, CUresult rc)
{
    if (no_captures())
        return rc;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    if (st && st->capture) {
        if (st->capture->status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
            rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        else
            invalidate(st->capture);
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

CUresult sim_capture_stream_sync(CUstream s)
{
    if (no_captures())
        return CUDA_SUCCESS;
    CUresult rc;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    if (st == NULL && legacy_conflict(1)) {
        rc = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    } else if (st && st->capture) {
        invalidate(st->capture);
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    } else {
        rc = unsafe_locked();
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

CUresult sim_capture_ctx_sync(void)
{
    if (no_captures())
        return CUDA_SUCCESS;
    CUresult rc = CUDA_SUCCESS;
    CUcontext ctx = sim_current_ctx();
    pthread_mutex_lock(&sim_graph_lock);
    for (sim_capture *c = captures; c; c = c->next)
        if (c->ctx == ctx) {
            invalidate(c);
            rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

CUresult sim_capture_unsafe_call(void)
{
    if (no_captures())
        return CUDA_SUCCESS;
    pthread_mutex_lock(&sim_graph_lock);
    CUresult rc = unsafe_locked();
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

CUresult sim_capture_event_record(CUevent e, CUstream s)
{
    CUresult rc = SIM_RUN_NOW;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    sim_capture *c = st ? st->capture : NULL;
    if (st == NULL && !no_captures() && legacy_conflict(1)) {
        rc = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    } else if (c && c->status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
        rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else if (c) {
        /* A captured event holds no time, only where the capture was. */
        CUgraphNode *snap = malloc((st->ndeps ? st->ndeps : 1) * sizeof *snap);
        if (snap == NULL) {
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            memcpy(snap, st->deps, st->ndeps * sizeof *snap);
            free(e->deps);
            e->deps = snap;
            e->ndeps = st->ndeps;
            e->capture_id = c->id;
            rc = CUDA_SUCCESS;
        }
    } else {
        free(e->deps);
        e->deps = NULL;
        e->ndeps = 0;
        e->capture_id = 0;
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

CUresult sim_capture_stream_wait(CUstream s, CUevent e)
{
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    sim_capture *mine = st ? st->capture : NULL;
    sim_capture *theirs = e->capture_id ? find(e->capture_id) : NULL;
    if (theirs && theirs->status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
        theirs = NULL;
    if (st == NULL && !no_captures() && legacy_conflict(1)) {
        rc = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    } else if (mine && mine->status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
        rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else if (e->capture_id && theirs == NULL) {
        rc = CUDA_ERROR_INVALID_VALUE; /* its capture has ended or failed */
    } else if (theirs && st == NULL) {
        rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* the legacy stream cannot capture */
    } else if (theirs && mine == NULL) {
        rc = join(theirs, st, e->deps, e->ndeps);
    } else if (theirs && mine == theirs) {
        rc = update_deps(st, 1, e->deps, e->ndeps);
    } else if (theirs) {
        invalidate(theirs);
        invalidate(mine);
        rc = CUDA_ERROR_STREAM_CAPTURE_MERGE;
    } else if (mine) {
        invalidate(mine); /* waiting on work outside the capture */
        rc = CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

CUresult sim_capture_event_use(CUevent e, int wait)
{
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&sim_graph_lock);
    if (e->capture_id) {
        sim_capture *c = find(e->capture_id);
        if (c && c->status == CU_STREAM_CAPTURE_STATUS_ACTIVE) {
            if (wait)
                invalidate(c);
            rc = CUDA_ERROR_CAPTURED_EVENT;
        } else {
            rc = CUDA_ERROR_INVALID_VALUE;
        }
    } else if (wait && !no_captures()) {
        rc = unsafe_locked();
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

/* A destroyed origin ends its capture; a stream that joined just leaves. */
void sim_capture_stream_destroyed(CUstream s)
{
    pthread_mutex_lock(&sim_graph_lock);
    sim_capture *c = s->capture;
    if (c && c->origin == s) {
        finish(c, 1);
    } else if (c) {
        size_t j = 0;
        for (size_t i = 0; i < c->nmembers; i++)
            if (c->members[i] != s)
                c->members[j++] = c->members[i];
        c->nmembers = j;
        leave(s);
    }
    pthread_mutex_unlock(&sim_graph_lock);
}

void sim_capture_event_destroyed(CUevent e)
{
    pthread_mutex_lock(&sim_graph_lock);
    free(e->deps);
    e->deps = NULL;
    pthread_mutex_unlock(&sim_graph_lock);
}

/* ---- the capture calls ------------------------------------------------------------------ */

static CUresult sim_cuStreamBeginCapture(CUstream s, int mode)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    CUstream st = stream_of(s);
    if (st == NULL)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (mode != CU_STREAM_CAPTURE_MODE_GLOBAL && mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
        mode != CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim_graph_lock);
    sim_capture *c = NULL;
    if (st->capture) {
        rc = CUDA_ERROR_ILLEGAL_STATE;
        goto done;
    }
    rc = CUDA_ERROR_OUT_OF_MEMORY;
    if ((c = calloc(1, sizeof *c)) == NULL || (c->graph = sim_graph_new()) == NULL ||
        (c->members = malloc(4 * sizeof *c->members)) == NULL)
        goto done;
    c->members_cap = 4;
    c->id = ++last_id;
    c->mode = mode;
    c->status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
    c->thread = pthread_self();
    c->ctx = sim_current_ctx();
    c->origin = st;
    c->graph->capture = c;
    if ((rc = join(c, st, NULL, 0)) != CUDA_SUCCESS)
        goto done;
    c->next = captures;
    captures = c;
    atomic_fetch_add_explicit(&ncaptures, 1, memory_order_release);
    c = NULL;
done:
    if (c) {
        if (c->graph)
            c->graph->capture = NULL;
        sim_graph_free(c->graph);
        free(c->members);
        free(c);
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

static CUresult sim_cuStreamEndCapture(CUstream s, CUgraph *graph)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (graph)
        *graph = NULL;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    sim_capture *c = st ? st->capture : NULL;
    if (c == NULL) {
        rc = CUDA_ERROR_ILLEGAL_STATE;
    } else if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
               !pthread_equal(c->thread, pthread_self())) {
        finish(c, 1); /* the driver ends it too */
        rc = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    } else if (c->origin != st) {
        invalidate(c);
        rc = CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    } else if (c->status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
        finish(c, 1);
        rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else if (unjoined(c)) {
        finish(c, 1);
        rc = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
    } else {
        CUgraph g = c->graph;
        finish(c, graph == NULL); /* no place to hand it out: nobody would free it */
        if (graph)
            *graph = g;
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

static CUresult sim_cuStreamIsCapturing(CUstream s, int *status)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (status == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    if (st == NULL && legacy_conflict(0))
        rc = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    else
        *status = st && st->capture ? st->capture->status : CU_STREAM_CAPTURE_STATUS_NONE;
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

/* Only the status is written unless the capture is active, as the driver does. */
static CUresult sim_cuStreamGetCaptureInfo(CUstream s, int *status, unsigned long long *id,
                                           CUgraph *graph, const CUgraphNode **deps,
                                           size_t *ndeps)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (status == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    sim_capture *c = st ? st->capture : NULL;
    if (st == NULL && legacy_conflict(0)) {
        rc = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    } else if (c == NULL) {
        *status = CU_STREAM_CAPTURE_STATUS_NONE;
    } else {
        *status = c->status;
        if (c->status == CU_STREAM_CAPTURE_STATUS_ACTIVE) {
            if (id)
                *id = c->id;
            if (graph)
                *graph = c->graph;
            if (deps)
                *deps = st->deps; /* valid until the stream's set changes */
            if (ndeps)
                *ndeps = st->ndeps;
        }
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

static CUresult sim_cuStreamUpdateCaptureDependencies(CUstream s, CUgraphNode *nodes, size_t n,
                                                      unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&sim_graph_lock);
    CUstream st = stream_of(s);
    sim_capture *c = st ? st->capture : NULL;
    if (c == NULL) {
        rc = CUDA_ERROR_ILLEGAL_STATE;
    } else if (c->status != CU_STREAM_CAPTURE_STATUS_ACTIVE) {
        rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else if ((flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES &&
                flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES) ||
               (n > 0 && nodes == NULL)) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else {
        for (size_t i = 0; i < n && rc == CUDA_SUCCESS; i++)
            if (!sim_node_ok(nodes[i]) || nodes[i]->graph != c->graph)
                rc = CUDA_ERROR_INVALID_VALUE;
        if (rc == CUDA_SUCCESS)
            rc = update_deps(st, flags == CU_STREAM_ADD_CAPTURE_DEPENDENCIES, nodes, n);
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

void sim_fill_capture_table(pcc_driver_table *t)
{
    t->cuStreamBeginCapture = sim_cuStreamBeginCapture;
    t->cuStreamEndCapture = sim_cuStreamEndCapture;
    t->cuStreamIsCapturing = sim_cuStreamIsCapturing;
    t->cuStreamGetCaptureInfo = sim_cuStreamGetCaptureInfo;
    t->cuStreamUpdateCaptureDependencies = sim_cuStreamUpdateCaptureDependencies;
}
