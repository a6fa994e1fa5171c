/*
 * sim/graph.c — CUDA graphs in the simulator: graphs and their
 * nodes (kernel, memcpy, memset, host, empty, child graph), executable
 * graphs and their launch, and the DOT dump. Stream capture, which builds
 * graphs from stream calls, is sim/capture.c.
 *
 * A node holds a sim_op, the same description of work a stream call makes
 * (a kernel node its own copy of the parameters, a child-graph node its own
 * copy of the graph). Instantiation snapshots a graph into a flat list of
 * steps in an order that respects every edge, child graphs inlined; a launch
 * runs the steps one after another through the same functions the stream
 * calls use (sim_kernel_run, sim_mem_op_run), so a kernel that faults inside
 * a graph leaves the same sticky error as one launched alone.
 *
 * Graphs and nodes are guarded by sim_graph_lock; an executable graph by its
 * own lock, held while it runs. Handles carry magic numbers; a NULL or
 * foreign graph, node or graph exec is CUDA_ERROR_INVALID_VALUE, as the
 * driver answers. Building graphs needs no context and works after a sticky
 * error, as on the GPU; instantiating and launching do not.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

pthread_mutex_t sim_graph_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long last_mark;

/* One unit of an executable graph. */
typedef struct sim_step {
    sim_op op;
    char *params;       /* kernel: its own copy of the parameters */
    CUgraphNode origin; /* the node of the instantiated graph it came from
                           (NULL inside a child graph): never dereferenced */
} sim_step;

struct CUgraphExec_st {
    unsigned int magic;
    pthread_mutex_t lock; /* held while it runs or its steps change */
    sim_step *steps;
    size_t n, cap;
};

/* ---- graphs and nodes (under sim_graph_lock) -------------------------------------------- */

unsigned long long sim_graph_new_mark(void)
{
    return ++last_mark;
}

int sim_node_ok(CUgraphNode n)
{
    return n != NULL && n->magic == SIM_NODE_MAGIC;
}

static CUresult graph_check(CUgraph g)
{
    return g != NULL && g->magic == SIM_GRAPH_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult node_check(CUgraphNode n)
{
    return sim_node_ok(n) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUgraph sim_graph_new(void)
{
    CUgraph g = calloc(1, sizeof *g);
    if (g)
        g->magic = SIM_GRAPH_MAGIC;
    return g;
}

void sim_graph_free(CUgraph g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->n; i++) {
        CUgraphNode n = g->nodes[i];
        sim_graph_free(n->child);
        free(n->params);
        free(n->deps);
        n->magic = 0;
        free(n);
    }
    free(g->nodes);
    g->magic = 0;
    free(g);
}

static int add_dep(CUgraphNode n, CUgraphNode dep)
{
    if (n->ndeps == n->deps_cap) {
        size_t cap = n->deps_cap ? 2 * n->deps_cap : 4;
        CUgraphNode *d = realloc(n->deps, cap * sizeof *d);
        if (d == NULL)
            return -1;
        n->deps = d;
        n->deps_cap = cap;
    }
    n->deps[n->ndeps++] = dep;
    return 0;
}

CUgraphNode sim_graph_add(CUgraph g, const sim_op *op, CUgraphNode const *deps, size_t ndeps)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 8;
        CUgraphNode *nodes = realloc(g->nodes, cap * sizeof *nodes);
        if (nodes == NULL)
            return NULL;
        g->nodes = nodes;
        g->cap = cap;
    }
    CUgraphNode n = calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    n->op = *op;
    if (op->type == CU_GRAPH_NODE_TYPE_KERNEL) {
        if ((n->params = sim_kernel_pack(op)) == NULL) {
            free(n);
            return NULL;
        }
        n->op.u.kernel.params = NULL;
        n->op.u.kernel.packed = n->params;
    }
    for (size_t i = 0; i < ndeps; i++)
        if (add_dep(n, deps[i]) < 0) {
            free(n->params);
            free(n->deps);
            free(n);
            return NULL;
        }
    n->magic = SIM_NODE_MAGIC;
    n->graph = g;
    n->index = g->n;
    g->nodes[g->n++] = n;
    return n;
}

/* A deep copy of g (nodes, edges, child graphs); NULL when memory is short. */
static CUgraph graph_clone(CUgraph g)
{
    CUgraph copy = sim_graph_new();
    if (copy == NULL)
        return NULL;
    for (size_t i = 0; i < g->n; i++) {
        CUgraphNode from = g->nodes[i], to = sim_graph_add(copy, &from->op, NULL, 0);
        if (to == NULL || (from->child && (to->child = graph_clone(from->child)) == NULL))
            goto fail;
    }
    /* Edges second: a dependency may have been added after its node. */
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
            if (add_dep(copy->nodes[i], copy->nodes[g->nodes[i]->deps[j]->index]) < 0)
                goto fail;
    return copy;
fail:
    sim_graph_free(copy);
    return NULL;
}

/* Fills order with g's nodes so that each comes after its dependencies
 * (Kahn's algorithm, ready nodes in the order they were added). 0, -1 when
 * g has a cycle, -2 when memory is short. */
static int topo_order(CUgraph g, CUgraphNode *order)
{
    size_t n = g->n, edges = 0;
    for (size_t i = 0; i < n; i++)
        edges += g->nodes[i]->ndeps;
    size_t *left = malloc((n ? n : 1) * sizeof *left);
    size_t *start = calloc(n + 1, sizeof *start); /* users of node i: users[start[i]..start[i+1]) */
    CUgraphNode *users = malloc((edges ? edges : 1) * sizeof *users);
    int rc = -2;
    if (left == NULL || start == NULL || users == NULL)
        goto done;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
            start[g->nodes[i]->deps[j]->index + 1]++;
    for (size_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (size_t i = 0; i < n; i++)
        left[i] = start[i];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
            users[left[g->nodes[i]->deps[j]->index]++] = g->nodes[i];
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if ((left[i] = g->nodes[i]->ndeps) == 0)
            order[tail++] = g->nodes[i];
    while (head < tail) {
        size_t u = order[head++]->index;
        for (size_t k = start[u]; k < start[u + 1]; k++)
            if (--left[users[k]->index] == 0)
                order[tail++] = users[k];
    }
    rc = tail == n ? 0 : -1;
done:
    free(left);
    free(start);
    free(users);
    return rc;
}

/* ---- building graphs ------------------------------------------------------------------ */

static CUresult initialized(void)
{
    return sim_initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

/* Dependencies of a new node: distinct nodes of g. */
static CUresult deps_check(CUgraph g, const CUgraphNode *deps, size_t n)
{
    if (n > 0 && deps == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++) {
        if (!sim_node_ok(deps[i]) || deps[i]->graph != g)
            return CUDA_ERROR_INVALID_VALUE;
        for (size_t j = 0; j < i; j++)
            if (deps[j] == deps[i])
                return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* Adds a node doing op to g, or, with child set, one running a copy of it. */
static CUresult add_node(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                         const sim_op *op, CUgraph child)
{
    if (out == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim_graph_lock);
    CUgraph copy = NULL;
    CUresult rc = graph_check(g);
    if (rc == CUDA_SUCCESS)
        rc = deps_check(g, deps, ndeps);
    if (rc == CUDA_SUCCESS && child)
        rc = graph_check(child);
    if (rc == CUDA_SUCCESS && child && (copy = graph_clone(child)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        CUgraphNode n = sim_graph_add(g, op, deps, ndeps);
        if (n) {
            n->child = copy;
            *out = n;
        } else {
            sim_graph_free(copy);
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

static CUresult sim_cuGraphCreate(CUgraph *graph, unsigned int flags)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (graph == NULL || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUgraph g = sim_graph_new();
    if (g == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *graph = g;
    return CUDA_SUCCESS;
}

static CUresult sim_cuGraphDestroy(CUgraph graph)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&sim_graph_lock);
    rc = graph_check(graph);
    if (rc == CUDA_SUCCESS && graph->capture)
        rc = CUDA_ERROR_ILLEGAL_STATE; /* a capture is still building it */
    if (rc == CUDA_SUCCESS)
        sim_graph_free(graph);
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

static CUresult sim_cuGraphAddKernelNode(CUgraphNode *node, CUgraph graph,
                                         const CUgraphNode *deps, size_t ndeps,
                                         const CUDA_KERNEL_NODE_PARAMS *p)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    sim_op op;
    rc = sim_kernel_op(&op, p->func, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX,
                       p->blockDimY, p->blockDimZ, p->sharedMemBytes, p->kernelParams, p->extra);
    return rc == CUDA_SUCCESS ? add_node(node, graph, deps, ndeps, &op, NULL) : rc;
}

static CUresult sim_cuGraphAddEmptyNode(CUgraphNode *node, CUgraph graph,
                                        const CUgraphNode *deps, size_t ndeps)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    sim_op op = {.type = CU_GRAPH_NODE_TYPE_EMPTY};
    return add_node(node, graph, deps, ndeps, &op, NULL);
}

static CUresult sim_cuGraphAddChildGraphNode(CUgraphNode *node, CUgraph graph,
                                             const CUgraphNode *deps, size_t ndeps, CUgraph child)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (child == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    sim_op op = {.type = CU_GRAPH_NODE_TYPE_GRAPH};
    return add_node(node, graph, deps, ndeps, &op, child);
}

static CUresult sim_cuGraphAddDependencies(CUgraph graph, const CUgraphNode *from,
                                           const CUgraphNode *to, size_t n)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS || n == 0)
        return rc;
    if (from == NULL || to == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim_graph_lock);
    rc = graph_check(graph);
    /* All edges are checked before any is added: new, distinct, within graph. */
    for (size_t i = 0; i < n && rc == CUDA_SUCCESS; i++) {
        if (!sim_node_ok(from[i]) || !sim_node_ok(to[i]) || from[i]->graph != graph ||
            to[i]->graph != graph || from[i] == to[i])
            rc = CUDA_ERROR_INVALID_VALUE;
        for (size_t j = 0; rc == CUDA_SUCCESS && j < to[i]->ndeps; j++)
            if (to[i]->deps[j] == from[i])
                rc = CUDA_ERROR_INVALID_VALUE;
        for (size_t j = 0; rc == CUDA_SUCCESS && j < i; j++)
            if (from[j] == from[i] && to[j] == to[i])
                rc = CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < n && rc == CUDA_SUCCESS; i++)
        if (add_dep(to[i], from[i]) < 0)
            rc = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

/* Hands out a list as the driver does: with list NULL, *n = count; else at
 * most *n entries, NULL in the rest of the caller's *n, *n = entries given. */
static CUresult hand_out(CUgraphNode *list, size_t *n, CUgraphNode const *items, size_t count)
{
    if (n == NULL || (list != NULL && *n == 0))
        return CUDA_ERROR_INVALID_VALUE;
    if (list == NULL) {
        *n = count;
        return CUDA_SUCCESS;
    }
    for (size_t i = 0; i < *n; i++)
        list[i] = i < count ? items[i] : NULL;
    if (count < *n)
        *n = count;
    return CUDA_SUCCESS;
}

static CUresult sim_cuGraphGetNodes(CUgraph graph, CUgraphNode *nodes, size_t *n)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&sim_graph_lock);
    rc = graph_check(graph);
    if (rc == CUDA_SUCCESS)
        rc = hand_out(nodes, n, graph->nodes, graph->n);
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

/* Roots come newest first, as the driver lists them. */
static CUresult sim_cuGraphGetRootNodes(CUgraph graph, CUgraphNode *nodes, size_t *n)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&sim_graph_lock);
    CUgraphNode *roots = NULL;
    rc = graph_check(graph);
    if (rc == CUDA_SUCCESS && (roots = malloc((graph->n ? graph->n : 1) * sizeof *roots)) == NULL)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc == CUDA_SUCCESS) {
        size_t count = 0;
        for (size_t i = graph->n; i-- > 0;)
            if (graph->nodes[i]->ndeps == 0)
                roots[count++] = graph->nodes[i];
        rc = hand_out(nodes, n, roots, count);
    }
    free(roots);
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

static CUresult sim_cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode *deps, size_t *n)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&sim_graph_lock);
    rc = node_check(node);
    if (rc == CUDA_SUCCESS)
        rc = hand_out(deps, n, node->deps, node->ndeps);
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

static CUresult sim_cuGraphNodeGetType(CUgraphNode node, int *type)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&sim_graph_lock);
    rc = node_check(node);
    if (rc == CUDA_SUCCESS && type == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *type = node->op.type;
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

/* ---- executable graphs ------------------------------------------------------------------- */

static CUresult exec_check(CUgraphExec e)
{
    return e != NULL && e->magic == SIM_EXEC_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static void exec_free(CUgraphExec e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->steps[i].params);
    free(e->steps);
    pthread_mutex_destroy(&e->lock);
    e->magic = 0;
    free(e);
}

/* Appends the steps of g (top: the graph being instantiated, whose nodes
 * cuGraphExecKernelNodeSetParams may name) in dependency order. */
static CUresult add_steps(CUgraphExec e, CUgraph g, int top)
{
    CUgraphNode *order = malloc((g->n ? g->n : 1) * sizeof *order);
    if (order == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int sorted = topo_order(g, order);
    CUresult rc = sorted == -1 ? CUDA_ERROR_INVALID_VALUE /* a cycle */
                  : sorted < 0 ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
    for (size_t i = 0; i < g->n && rc == CUDA_SUCCESS; i++) {
        CUgraphNode node = order[i];
        if (node->op.type == CU_GRAPH_NODE_TYPE_GRAPH) {
            rc = add_steps(e, node->child, 0);
            continue;
        }
        if (node->op.type == CU_GRAPH_NODE_TYPE_EMPTY)
            continue;
        if (e->n == e->cap) {
            size_t cap = e->cap ? 2 * e->cap : 8;
            sim_step *steps = realloc(e->steps, cap * sizeof *steps);
            if (steps == NULL) {
                rc = CUDA_ERROR_OUT_OF_MEMORY;
                break;
            }
            e->steps = steps;
            e->cap = cap;
        }
        sim_step *st = &e->steps[e->n];
        memset(st, 0, sizeof *st);
        st->op = node->op;
        st->origin = top ? node : NULL;
        if (node->op.type == CU_GRAPH_NODE_TYPE_KERNEL) {
            if ((st->params = sim_kernel_pack(&node->op)) == NULL) {
                rc = CUDA_ERROR_OUT_OF_MEMORY;
                break;
            }
            st->op.u.kernel.packed = st->params;
        }
        e->n++;
    }
    free(order);
    return rc;
}

#define SIM_INSTANTIATE_FLAGS 0x9ull /* AUTO_FREE_ON_LAUNCH, USE_NODE_PRIORITY: no effect here */

static CUresult sim_cuGraphInstantiate(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (exec == NULL || graph == NULL || (flags & ~SIM_INSTANTIATE_FLAGS) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_capture_unsafe_call()) != CUDA_SUCCESS)
        return rc;
    CUgraphExec e = calloc(1, sizeof *e);
    if (e == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_lock(&sim_graph_lock);
    rc = graph_check(graph);
    if (rc == CUDA_SUCCESS)
        rc = add_steps(e, graph, 1);
    pthread_mutex_unlock(&sim_graph_lock);
    if (rc != CUDA_SUCCESS) {
        exec_free(e);
        return rc;
    }
    e->magic = SIM_EXEC_MAGIC;
    *exec = e;
    return CUDA_SUCCESS;
}

/* A memcpy or memset whose range is no longer allocated faults, as the
 * copy engine would: the sticky error, like a kernel's bad access. */
static void step_fault(const sim_step *st)
{
    char detail[256];
    if (st->op.type == CU_GRAPH_NODE_TYPE_MEMSET)
        snprintf(detail, sizeof detail, "graph memset node: %zu bytes at 0x%llx are not "
                 "allocated device memory", st->op.u.set.n * st->op.u.set.elem,
                 (unsigned long long)st->op.u.set.d);
    else
        snprintf(detail, sizeof detail, "graph memcpy node: copying %zu bytes from 0x%" PRIxPTR
                 " to 0x%" PRIxPTR " touches memory that is not allocated", st->op.u.copy.n,
                 st->op.u.copy.src, st->op.u.copy.dst);
    sim_set_sticky(CUDA_ERROR_ILLEGAL_ADDRESS, detail);
}

static CUresult sim_cuGraphLaunch(CUgraphExec exec, CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    /* The driver refuses a graph launch into a capture (it is not captured). */
    if ((rc = sim_stream_submit(s, NULL)) != SIM_RUN_NOW)
        return rc;
    if ((rc = exec_check(exec)) != CUDA_SUCCESS)
        return rc;
    pthread_mutex_lock(&exec->lock);
    for (size_t i = 0; i < exec->n && rc == CUDA_SUCCESS && !sim_sticky_code(); i++) {
        const sim_step *st = &exec->steps[i];
        switch (st->op.type) {
        case CU_GRAPH_NODE_TYPE_KERNEL:
            rc = sim_kernel_run(&st->op);
            break;
        case CU_GRAPH_NODE_TYPE_HOST:
            st->op.u.host.fn(st->op.u.host.data);
            break;
        default:
            if (sim_mem_op_run(&st->op) != CUDA_SUCCESS)
                step_fault(st);
        }
    }
    pthread_mutex_unlock(&exec->lock);
    sim_flush_output();
    return rc;
}

static CUresult sim_cuGraphExecDestroy(CUgraphExec exec)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((rc = exec_check(exec)) != CUDA_SUCCESS)
        return rc;
    /* The H100's driver destroys it and answers success, but a capture that
     * forbids unsafe calls is invalidated all the same. */
    (void)sim_capture_unsafe_call();
    pthread_mutex_lock(&exec->lock); /* not while it runs */
    exec->magic = 0;
    pthread_mutex_unlock(&exec->lock);
    exec_free(exec);
    return CUDA_SUCCESS;
}

static CUresult sim_cuGraphExecKernelNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                                   const CUDA_KERNEL_NODE_PARAMS *p)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    if ((rc = exec_check(exec)) != CUDA_SUCCESS)
        return rc;
    if (p == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    sim_op op;
    rc = sim_kernel_op(&op, p->func, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX,
                       p->blockDimY, p->blockDimZ, p->sharedMemBytes, p->kernelParams, p->extra);
    if (rc != CUDA_SUCCESS)
        return rc;
    char *params = sim_kernel_pack(&op);
    if (params == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op.u.kernel.params = NULL;
    op.u.kernel.packed = params;
    rc = CUDA_ERROR_INVALID_VALUE; /* node is no kernel node of the graph exec came from */
    pthread_mutex_lock(&exec->lock);
    for (size_t i = 0; i < exec->n; i++) {
        sim_step *st = &exec->steps[i];
        if (st->origin != node || node == NULL || st->op.type != CU_GRAPH_NODE_TYPE_KERNEL)
            continue;
        if (op.u.kernel.ctx == st->op.u.kernel.ctx) { /* the function may not change context */
            free(st->params);
            st->params = params;
            st->op = op;
            params = NULL;
            rc = CUDA_SUCCESS;
        }
        break;
    }
    pthread_mutex_unlock(&exec->lock);
    free(params);
    return rc;
}

/* ---- DOT dump ------------------------------------------------------------------------------ */

static void dot_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
}

static const char *const copy_dirs[] = {"", "HtoD", "DtoH", "DtoD"};

static void dot_label(FILE *f, CUgraphNode n, int verbose)
{
    const sim_op *op = &n->op;
    switch (op->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        fputs("KERNEL\\n", f);
        dot_text(f, sim_func_ok(op->u.kernel.f) ? op->u.kernel.f->k->name : "(unloaded)");
        fprintf(f, "\\n<<<(%u,%u,%u), (%u,%u,%u), %u>>>", op->u.kernel.grid.x,
                op->u.kernel.grid.y, op->u.kernel.grid.z, op->u.kernel.block.x,
                op->u.kernel.block.y, op->u.kernel.block.z, op->u.kernel.shared);
        if (verbose)
            fprintf(f, "\\nfunction %p", (void *)op->u.kernel.f);
        break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        fprintf(f, "MEMCPY\\n%s, %zu bytes", copy_dirs[op->u.copy.dir], op->u.copy.n);
        if (verbose)
            fprintf(f, "\\ndst 0x%" PRIxPTR ", src 0x%" PRIxPTR, op->u.copy.dst, op->u.copy.src);
        break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
        fprintf(f, "MEMSET\\n%zu x %zu bytes = 0x%x", op->u.set.n, op->u.set.elem, op->u.set.value);
        if (verbose)
            fprintf(f, "\\ndst 0x%llx", (unsigned long long)op->u.set.d);
        break;
    case CU_GRAPH_NODE_TYPE_HOST:
        fputs("HOST", f);
        if (verbose)
            fprintf(f, "\\nfn %p, data %p", (void *)(uintptr_t)op->u.host.fn, op->u.host.data);
        break;
    case CU_GRAPH_NODE_TYPE_GRAPH:
        fprintf(f, "CHILD GRAPH\\n%zu nodes", n->child->n);
        break;
    default:
        fputs("EMPTY", f);
    }
    if (verbose)
        fprintf(f, "\\nnode %p", (void *)n);
}

/* Writes g's nodes and edges; a child graph becomes a cluster of its own,
 * reached from its node by dashed edges. Node names carry the path of
 * child graphs (prefix) so that they stay unique. */
static void dot_graph(FILE *f, CUgraph g, const char *prefix, int verbose)
{
    for (size_t i = 0; i < g->n; i++) {
        CUgraphNode n = g->nodes[i];
        fprintf(f, "\t\"%s%zu\" [shape=box, label=\"", prefix, i);
        dot_label(f, n, verbose);
        fputs("\"];\n", f);
        for (size_t j = 0; j < n->ndeps; j++)
            fprintf(f, "\t\"%s%zu\" -> \"%s%zu\";\n", prefix, n->deps[j]->index, prefix, i);
        if (n->child) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s%zu_", prefix, i);
            fprintf(f, "subgraph \"cluster_%s\" {\n\tlabel=\"child graph of node %s%zu\";\n",
                    inner, prefix, i);
            dot_graph(f, n->child, inner, verbose);
            fputs("}\n", f);
            for (size_t k = 0; k < n->child->n; k++)
                if (n->child->nodes[k]->ndeps == 0)
                    fprintf(f, "\t\"%s%zu\" -> \"%s%zu\" [style=dashed];\n", prefix, i, inner, k);
        }
    }
}

static CUresult sim_cuGraphDebugDotPrint(CUgraph graph, const char *path, unsigned int flags)
{
    CUresult rc = initialized();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (path == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&sim_graph_lock);
    rc = graph_check(graph);
    FILE *f = rc == CUDA_SUCCESS ? fopen(path, "w") : NULL;
    if (rc == CUDA_SUCCESS && f == NULL)
        rc = CUDA_ERROR_OPERATING_SYSTEM;
    if (f) {
        fputs("digraph dot {\n", f);
        dot_graph(f, graph, "node_", (flags & CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE) != 0);
        fputs("}\n", f);
        if (ferror(f) | (fclose(f) != 0))
            rc = CUDA_ERROR_OPERATING_SYSTEM;
    }
    pthread_mutex_unlock(&sim_graph_lock);
    return rc;
}

void sim_fill_graph_table(pcc_driver_table *t)
{
    t->cuGraphCreate = sim_cuGraphCreate;
    t->cuGraphDestroy = sim_cuGraphDestroy;
    t->cuGraphAddKernelNode = sim_cuGraphAddKernelNode;
    t->cuGraphAddEmptyNode = sim_cuGraphAddEmptyNode;
    t->cuGraphAddChildGraphNode = sim_cuGraphAddChildGraphNode;
    t->cuGraphAddDependencies = sim_cuGraphAddDependencies;
    t->cuGraphGetNodes = sim_cuGraphGetNodes;
    t->cuGraphGetRootNodes = sim_cuGraphGetRootNodes;
    t->cuGraphNodeGetType = sim_cuGraphNodeGetType;
    t->cuGraphNodeGetDependencies = sim_cuGraphNodeGetDependencies;
    t->cuGraphInstantiate = sim_cuGraphInstantiate;
    t->cuGraphLaunch = sim_cuGraphLaunch;
    t->cuGraphExecDestroy = sim_cuGraphExecDestroy;
    t->cuGraphExecKernelNodeSetParams = sim_cuGraphExecKernelNodeSetParams;
    t->cuGraphDebugDotPrint = sim_cuGraphDebugDotPrint;
}
