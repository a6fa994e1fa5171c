/*
 * sim/cc/compile.c — the CPU simulator's compiler, behind an NVRTC-like
 * table (rtc.h), so compile/compile.c drives it exactly as it drives NVRTC: the
 * program object (source, headers, name expressions, log, image) and the
 * calls on it. The compile itself is sim/cc/build.c (scan, private
 * directory, host compiler run); the host compiler is sim/cc/cxx.c.
 *
 * Pure C, no Python objects: compile/compile.c calls this with the GIL released.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cc/cc.h"
#include "sim/env.h"
#include "pycudac/backend.h"

static pcc_rtc_table sim_table;

static const char *rtc_error_string(nvrtcResult r)
{
    static const char *const names[] = {
        "NVRTC_SUCCESS", "NVRTC_ERROR_OUT_OF_MEMORY", "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
        "NVRTC_ERROR_INVALID_INPUT", "NVRTC_ERROR_INVALID_PROGRAM", "NVRTC_ERROR_INVALID_OPTION",
        "NVRTC_ERROR_COMPILATION", "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
        "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
        "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
        "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", "NVRTC_ERROR_INTERNAL_ERROR"};
    if (r >= 0 && r < (int)(sizeof names / sizeof names[0]))
        return names[r];
    return "NVRTC_ERROR unknown";
}

static nvrtcResult rtc_version(int *major, int *minor)
{
    if (major == NULL || minor == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    *major = 0;
    *minor = 1;
    return NVRTC_SUCCESS;
}

static void program_free(struct _nvrtcProgram *P)
{
    if (P == NULL)
        return;
    free(P->src);
    free(P->name);
    pcc_sl_free(&P->hdr_names);
    pcc_sl_free(&P->hdr_srcs);
    pcc_sl_free(&P->exprs);
    free(P->log.p);
    free(P->image);
    free(P);
}

static nvrtcResult rtc_create(nvrtcProgram *prog, const char *src, const char *name, int nh,
                              const char *const *headers, const char *const *names)
{
    if (prog == NULL || src == NULL || nh < 0 || (nh > 0 && (headers == NULL || names == NULL)))
        return NVRTC_ERROR_INVALID_INPUT;
    struct _nvrtcProgram *P = calloc(1, sizeof *P);
    if (P == NULL)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    P->src = strdup(src);
    P->name = strdup(name && *name ? name : "default_program");
    for (int i = 0; i < nh; i++) {
        if (names[i] == NULL) {
            program_free(P);
            return NVRTC_ERROR_INVALID_INPUT;
        }
        pcc_sl_adds(&P->hdr_names, names[i]);
        pcc_sl_adds(&P->hdr_srcs, headers[i] ? headers[i] : "");
    }
    if (P->src == NULL || P->name == NULL || P->hdr_names.oom || P->hdr_srcs.oom) {
        program_free(P);
        return NVRTC_ERROR_OUT_OF_MEMORY;
    }
    *prog = P;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_destroy(nvrtcProgram *prog)
{
    if (prog == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    program_free(*prog);
    *prog = NULL;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_add_name(nvrtcProgram P, const char *expr)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (expr == NULL || *expr == '\0')
        return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
    if (P->compiled)
        return NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
    if (pcc_sl_find(&P->exprs, expr) < 0 && pcc_sl_adds(&P->exprs, expr) < 0)
        return NVRTC_ERROR_OUT_OF_MEMORY;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_lowered(nvrtcProgram P, const char *expr, const char **lowered)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (expr == NULL || lowered == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (!P->compiled)
        return NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
    int i = pcc_sl_find(&P->exprs, expr);
    if (i < 0)
        return NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID;
    *lowered = P->exprs.v[i]; /* the sim registers kernels under the expression itself */
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_compile(nvrtcProgram P, int nopt, const char *const *opts)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (nopt < 0 || (nopt > 0 && opts == NULL))
        return NVRTC_ERROR_INVALID_INPUT;
    free(P->log.p);
    memset(&P->log, 0, sizeof P->log);
    free(P->image);
    P->image = NULL;
    P->image_len = 0;
    P->compiled = 0;
    nvrtcResult rc = pcc_sim_build(P, nopt, opts);
    if (P->log.oom && rc == NVRTC_SUCCESS)
        rc = NVRTC_ERROR_OUT_OF_MEMORY;
    P->compiled = rc == NVRTC_SUCCESS;
    return rc;
}

static nvrtcResult rtc_log_size(nvrtcProgram P, size_t *size)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (size == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    *size = P->log.len + 1;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_log(nvrtcProgram P, char *log)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (log == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (P->log.len)
        memcpy(log, P->log.p, P->log.len);
    log[P->log.len] = '\0';
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_ptx_size(nvrtcProgram P, size_t *size)
{
    (void)size;
    return P == NULL ? NVRTC_ERROR_INVALID_PROGRAM : NVRTC_ERROR_INVALID_INPUT; /* no PTX here */
}

static nvrtcResult rtc_ptx(nvrtcProgram P, char *ptx)
{
    (void)ptx;
    return P == NULL ? NVRTC_ERROR_INVALID_PROGRAM : NVRTC_ERROR_INVALID_INPUT;
}

static nvrtcResult rtc_cubin_size(nvrtcProgram P, size_t *size)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (size == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (!P->compiled)
        return NVRTC_ERROR_INVALID_PROGRAM;
    *size = P->image_len;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_cubin(nvrtcProgram P, char *out)
{
    if (P == NULL)
        return NVRTC_ERROR_INVALID_PROGRAM;
    if (out == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    if (!P->compiled)
        return NVRTC_ERROR_INVALID_PROGRAM;
    memcpy(out, P->image, P->image_len);
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_num_archs(int *n)
{
    if (n == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    *n = 1;
    return NVRTC_SUCCESS;
}

static nvrtcResult rtc_archs(int *archs)
{
    if (archs == NULL)
        return NVRTC_ERROR_INVALID_INPUT;
    archs[0] = 90; /* the simulated device's compute capability */
    return NVRTC_SUCCESS;
}

static void fill_table(void)
{
    sim_table.kind = "sim";
    sim_table.identity = pcc_sim_cxx_get()->identity;
    sim_table.nvrtcGetErrorString = rtc_error_string;
    sim_table.nvrtcVersion = rtc_version;
    sim_table.nvrtcCreateProgram = rtc_create;
    sim_table.nvrtcDestroyProgram = rtc_destroy;
    sim_table.nvrtcCompileProgram = rtc_compile;
    sim_table.nvrtcGetProgramLogSize = rtc_log_size;
    sim_table.nvrtcGetProgramLog = rtc_log;
    sim_table.nvrtcGetPTXSize = rtc_ptx_size;
    sim_table.nvrtcGetPTX = rtc_ptx;
    sim_table.nvrtcAddNameExpression = rtc_add_name;
    sim_table.nvrtcGetLoweredName = rtc_lowered;
    sim_table.nvrtcGetCUBINSize = rtc_cubin_size;
    sim_table.nvrtcGetCUBIN = rtc_cubin;
    sim_table.nvrtcGetNumSupportedArchs = rtc_num_archs;
    sim_table.nvrtcGetSupportedArchs = rtc_archs;
}

const pcc_rtc_table *pcc_sim_rtc_get(void)
{
    /* called with the GIL held before every sim compile (and before the
     * first, which finds the C++ compiler): the environment it will read */
    pcc_sim_env_refresh_all();
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_table);
    return &sim_table;
}
