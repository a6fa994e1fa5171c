/*
 * sim/stream.c — streams and events in the simulator: create, destroy,
 * synchronize, wait on an event, host functions on a stream, event records
 * and elapsed time.
 *
 * All work is complete when a call returns, so streams are trivially
 * ordered and events record host time.
 */
#include <stdlib.h>

#include "sim/sim.h"

/* ---- streams ------------------------------------------------------------------------ */

/* What stream capture changes in the calls below is decided in
 * sim/capture.c: the sim_capture_* hooks. */

int sim_stream_ok(CUstream s)
{
    return s == NULL || s == SIM_STREAM_LEGACY || s == SIM_STREAM_PER_THREAD ||
           (s->magic == SIM_STREAM_MAGIC && sim_ctx_valid(s->ctx));
}

static CUresult sim_cuStreamCreate(CUstream *ps, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (ps == NULL || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUstream s = calloc(1, sizeof *s);
    if (s == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = SIM_STREAM_MAGIC;
    s->flags = flags;
    s->ctx = sim_current_ctx();
    *ps = s;
    return CUDA_SUCCESS;
}

static CUresult sim_cuStreamDestroy(CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (s == NULL || s == SIM_STREAM_LEGACY || s == SIM_STREAM_PER_THREAD ||
        s->magic != SIM_STREAM_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    sim_capture_stream_destroyed(s);
    s->magic = 0;
    free(s);
    return CUDA_SUCCESS;
}

static CUresult sim_cuStreamSynchronize(CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((rc = sim_capture_stream_sync(s)) != CUDA_SUCCESS)
        return rc;
    sim_flush_output();
    return CUDA_SUCCESS;
}

static CUresult sim_cuStreamQuery(CUstream s)
{
    return sim_cuStreamSynchronize(s); /* all work is complete: ready */
}

static CUresult sim_cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s) || e == NULL || e->magic != SIM_EVENT_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return sim_capture_stream_wait(s, e);
}

static CUresult sim_cuLaunchHostFunc(CUstream s, CUhostFn fn, void *userData)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (fn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    sim_op op = {.type = CU_GRAPH_NODE_TYPE_HOST};
    op.u.host.fn = fn;
    op.u.host.data = userData;
    if ((rc = sim_stream_submit(s, &op)) != SIM_RUN_NOW)
        return rc;
    fn(userData); /* everything queued before it has already run */
    return CUDA_SUCCESS;
}

/* ---- events --------------------------------------------------------------------------- */

static CUresult sim_cuEventCreate(CUevent *pe, unsigned int flags)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pe == NULL || (flags & ~0x7u) != 0)
        return CUDA_ERROR_INVALID_VALUE;
    /* The driver requires DISABLE_TIMING with INTERPROCESS. */
    if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING))
        return CUDA_ERROR_INVALID_VALUE;
    CUevent e = calloc(1, sizeof *e);
    if (e == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    e->magic = SIM_EVENT_MAGIC;
    e->flags = flags;
    *pe = e;
    return CUDA_SUCCESS;
}

static int event_ok(CUevent e)
{
    return e != NULL && e->magic == SIM_EVENT_MAGIC;
}

static CUresult sim_cuEventDestroy(CUevent e)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!event_ok(e))
        return CUDA_ERROR_INVALID_HANDLE;
    sim_capture_event_destroyed(e);
    e->magic = 0;
    free(e);
    return CUDA_SUCCESS;
}

static CUresult sim_cuEventRecord(CUevent e, CUstream s)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!event_ok(e) || !sim_stream_ok(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((rc = sim_capture_event_record(e, s)) != SIM_RUN_NOW)
        return rc;
    e->ns = sim_now_ns();
    e->recorded = 1;
    return CUDA_SUCCESS;
}

static CUresult sim_cuEventSynchronize(CUevent e)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!event_ok(e))
        return CUDA_ERROR_INVALID_HANDLE;
    if ((rc = sim_capture_event_use(e, 1)) != CUDA_SUCCESS)
        return rc;
    sim_flush_output();
    return CUDA_SUCCESS;
}

static CUresult sim_cuEventQuery(CUevent e)
{
    return sim_cuEventSynchronize(e);
}

static CUresult sim_cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!event_ok(start) || !event_ok(end))
        return CUDA_ERROR_INVALID_HANDLE;
    if (ms == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if ((rc = sim_capture_event_use(start, 0)) != CUDA_SUCCESS ||
        (rc = sim_capture_event_use(end, 0)) != CUDA_SUCCESS)
        return rc;
    if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING)
        return CUDA_ERROR_INVALID_HANDLE;
    /* never recorded: the driver's INVALID_HANDLE (NOT_READY is for a
     * recorded event whose work has not finished, which a simulated launch
     * never leaves behind: a retry loop on it would never end) */
    if (!start->recorded || !end->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    *ms = (float)((double)(end->ns - start->ns) / 1e6);
    return CUDA_SUCCESS;
}

void sim_fill_stream_table(pcc_driver_table *t)
{
    t->cuStreamCreate = sim_cuStreamCreate;
    t->cuStreamDestroy = sim_cuStreamDestroy;
    t->cuStreamSynchronize = sim_cuStreamSynchronize;
    t->cuStreamQuery = sim_cuStreamQuery;
    t->cuStreamWaitEvent = sim_cuStreamWaitEvent;
    t->cuLaunchHostFunc = sim_cuLaunchHostFunc;
    t->cuEventCreate = sim_cuEventCreate;
    t->cuEventDestroy = sim_cuEventDestroy;
    t->cuEventRecord = sim_cuEventRecord;
    t->cuEventSynchronize = sim_cuEventSynchronize;
    t->cuEventQuery = sim_cuEventQuery;
    t->cuEventElapsedTime = sim_cuEventElapsedTime;
}
