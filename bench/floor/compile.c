/*
 * bench/floor/compile.c — NVRTC and module loading in the C floor: the one
 * compile to a CUBIN that every kernel of the floor goes through
 * (compile_cubin), and the compile and load parts: (f) create + compile +
 * get CUBIN of the benchmark source, wrapped as pycudac wraps it (and
 * floor_compile_ms, one such compile in bench_compile.py's own process),
 * (g0) the first cuModuleLoadData of a fresh process (--only firstload) and
 * (g) repeated cuModuleLoadData / cuModuleUnload.
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- compiling ---------------------------------------------------------- */

/* Compiles `src` to a CUBIN for the current device (malloc'd, *size set).
 * NULL on failure with err set (the NVRTC log's start included). */
char *compile_cubin(const char *src, size_t *size)
{
    nvrtcProgram prog = NULL;
    char *cubin = NULL;
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", cc_major, cc_minor);
    const char *opts[] = {arch};
    if (ckr(rtc.nvrtcCreateProgram(&prog, src, "floor.cu", 0, NULL, NULL),
            "nvrtcCreateProgram") < 0)
        return NULL;
    nvrtcResult r = rtc.nvrtcCompileProgram(prog, 1, opts);
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        char log[1024] = "";
        if (rtc.nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 0 && n < sizeof log)
            rtc.nvrtcGetProgramLog(prog, log);
        for (char *p = log; *p; p++)
            if (*p == '\n' || *p == '"')
                *p = ' ';
        set_err("nvrtcCompileProgram(%s) failed: %s: %.600s", arch,
                rtc.nvrtcGetErrorString(r), log);
        goto done;
    }
    if (ckr(rtc.nvrtcGetCUBINSize(prog, size), "nvrtcGetCUBINSize") < 0)
        goto done;
    cubin = malloc(*size);
    if (cubin == NULL) {
        set_err("out of host memory");
        goto done;
    }
    if (ckr(rtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN") < 0) {
        free(cubin);
        cubin = NULL;
    }
done:
    rtc.nvrtcDestroyProgram(&prog);
    return cubin;
}

/* ---- (f)(g) compile and load --------------------------------------------- */

/* The default compile-benchmark source (bench/kernels/compile_src.cu is the
 * same text; the Python side reads that file and passes --src to us). */
static const char default_src[] =
    "__global__ void saxpy(float a, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        set_err("cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        set_err("cannot read %s", path);
        free(buf);
        fclose(f);
        return NULL;
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The user's source as pycudac hands it to NVRTC: inside extern "C" with a
 * #line 1 so that line numbers are the user's; `tag` makes each compile a
 * distinct program (nothing can be reused between them). */
static char *wrap_source(const char *src, int tag)
{
    size_t n = strlen(src) + 128;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "extern \"C\" {\n#line 1\n%s\n}\n// floor %d\n", src, tag);
    return out;
}

/* For bench_compile.py: one cold compile (wrap + nvrtcCompileProgram + get
 * CUBIN) of `src`, tagged so no two are alike, in the caller's process, so
 * that pycudac's compile and the floor's alternate under the same load.
 * Milliseconds, or -1 (floor_error() says why). */
FLOOR_API double floor_compile_ms(const char *src, int tag)
{
    if (!have_rtc) {
        set_err("%s", rtc_err);
        return -1;
    }
    char *wrapped = wrap_source(src, tag);
    if (wrapped == NULL)
        return -1;
    size_t size = 0;
    double t0 = now_s();
    char *cubin = compile_cubin(wrapped, &size);
    double t = now_s() - t0;
    free(wrapped);
    if (cubin == NULL)
        return -1;
    free(cubin);
    return t * 1e3;
}

void bench_compile_and_load(const char *src_path)
{
    char *user = NULL, *cubin = NULL;
    size_t cubin_size = 0;
    int reps = quick ? 3 : 7;
    double samples[64];
    if (!have_rtc) {
        emit_na("nvrtc_compile_ms", rtc_err);
        emit_na("module_load_us", rtc_err);
        emit_na("module_load_unload_us", rtc_err);
        return;
    }
    user = src_path ? read_file(src_path) : strdup(default_src);
    if (user == NULL) {
        emit_na("nvrtc_compile_ms", err);
        emit_na("module_load_us", err);
        emit_na("module_load_unload_us", err);
        return;
    }
    /* (f) create + compile + get CUBIN + destroy; first one untimed. */
    for (int i = 0; i < reps + 1; i++) {
        char *wrapped = wrap_source(user, i);
        if (wrapped == NULL) {
            set_err("out of host memory");
            break;
        }
        double t0 = now_s();
        char *c = compile_cubin(wrapped, &cubin_size);
        double t = now_s() - t0;
        free(wrapped);
        if (c == NULL) {
            emit_na("nvrtc_compile_ms", err);
            emit_na("module_load_us", err);
            emit_na("module_load_unload_us", err);
            goto done;
        }
        if (i > 0)
            samples[i - 1] = t * 1e3;
        free(cubin);
        cubin = c;
    }
    {
        char extra[1500];
        snprintf(extra, sizeof extra, "\"arch\":\"sm_%d%d\",\"cubin_bytes\":%zu,\"nvrtc\":\"%s\"",
                 cc_major, cc_minor, cubin_size, rtc_path);
        emit_value("nvrtc_compile_ms", median(samples, reps), "ms", samples, reps, extra);
    }
    /* (g0) the first cuModuleLoadData of that CUBIN in this process: what a
     * warm cache hit in a fresh process pays at the least. Run alone
     * (--only firstload) so no earlier load has warmed the driver. */
    if (first_load_only) {
        CUmodule m = NULL;
        double t0 = now_s();
        if (ck(drv.cuModuleLoadData(&m, cubin), "cuModuleLoadData") < 0) {
            emit_na("module_first_load_us", err);
            goto done;
        }
        double t = (now_s() - t0) * 1e6;
        drv.cuModuleUnload(m);
        emit_value("module_first_load_us", t, "us", &t, 1, "\"fresh_process\":true");
        goto done;
    }
    /* (g) cuModuleLoadData of that CUBIN; the unload is timed separately. */
    {
        int n = quick ? 10 : 51;
        double load[64], both[64];
        for (int i = 0; i < n + 3; i++) {
            CUmodule m = NULL;
            double t0 = now_s();
            if (ck(drv.cuModuleLoadData(&m, cubin), "cuModuleLoadData") < 0) {
                emit_na("module_load_us", err);
                emit_na("module_load_unload_us", err);
                goto done;
            }
            double t1 = now_s();
            drv.cuModuleUnload(m);
            double t2 = now_s();
            if (i >= 3) {
                load[i - 3] = (t1 - t0) * 1e6;
                both[i - 3] = (t2 - t0) * 1e6;
            }
        }
        char extra[64];
        snprintf(extra, sizeof extra, "\"cubin_bytes\":%zu", cubin_size);
        emit_value("module_load_us", median(load, n), "us", load, n, extra);
        emit_value("module_load_unload_us", median(both, n), "us", both, n, extra);
    }
done:
    free(cubin);
    free(user);
}
