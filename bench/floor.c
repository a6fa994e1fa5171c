/*
 * floor.c — the raw C floor that pycudac's benchmarks are measured against.
 *
 * The same driver and NVRTC calls pycudac makes, written directly: dlopen
 * libcuda.so.1 and libnvrtc, resolve the versioned symbols named in
 * include/pycudac/cudadrv.h and rtc.h (as src/driver/loader.c does), and time them
 * with the device method's discipline: warm-up first, the median of many
 * batches, the host clock read after a synchronize or device events. No CUDA
 * header is needed.
 *
 *   cc -O2 -Iinclude bench/floor.c -ldl -o bench/out/floor
 *   bench/out/floor [--quick] [--nvrtc PATH|DIR] [--src FILE] [--only a,b,...]
 *
 * One JSON object per line on stdout, e.g.
 *   {"bench":"floor","metric":"launch_empty_params_us","value":3.7,"unit":"us",...}
 * A part that cannot run prints {"metric":...,"value":null,"na":"why"} and the
 * rest still runs. Parts: launch, launch16, pinned, pageable, staged, small,
 * compile, load, dtod.
 *
 * Built with -shared -fPIC (bench/out/libfloor.so) the same code is loaded by
 * bench/bench_launch.py through ctypes, so the C loop and pycudac's launches
 * alternate in one process on one context (floor_init, floor_launch_us).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pycudac/cudadrv.h"
#include "pycudac/rtc.h"

#define FLOOR_API __attribute__((visibility("default")))

/* Our own tables: the names differ from pycudac's pcc_drv so that loading
 * this as a library into a process that holds pycudac cannot mix them up. */
static pcc_driver_table drv;
static pcc_rtc_table rtc;
static int have_rtc;
static char rtc_path[1280];
static char err[2048];
static char rtc_err[2048]; /* why NVRTC or the launch kernels are missing */

static CUdevice dev;
static CUcontext ctx;
static CUstream stream;
static int cc_major, cc_minor;

static CUmodule launch_mod;
static CUfunction fn_empty, fn_k16, fn_texk;

static int quick;

/* ---- small helpers ------------------------------------------------------ */

static void set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, sizeof err, fmt, ap);
    va_end(ap);
}

/* 0 on success; else records "what: NAME (code)" and returns -1. */
static int ck(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *name = NULL;
    if (drv.cuGetErrorName == NULL || drv.cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = "?";
    set_err("%s failed: %s (%d)", what, name ? name : "?", (int)r);
    return -1;
}

static int ckr(nvrtcResult r, const char *what)
{
    if (r == NVRTC_SUCCESS)
        return 0;
    set_err("%s failed: %s (%d)", what,
            rtc.nvrtcGetErrorString ? rtc.nvrtcGetErrorString(r) : "?", (int)r);
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place; returns the median. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    if (n <= 0)
        return -1.0;
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void emit_value(const char *metric, double value, const char *unit, double *samples,
                       int n, const char *extra)
{
    /* samples are sorted by median() already */
    printf("{\"bench\":\"floor\",\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\","
           "\"n\":%d,\"min\":%.6g,\"max\":%.6g%s%s}\n",
           metric, value, unit, n, n ? samples[0] : 0.0, n ? samples[n - 1] : 0.0,
           extra && *extra ? "," : "", extra ? extra : "");
    fflush(stdout);
}

static void emit_na(const char *metric, const char *why)
{
    printf("{\"bench\":\"floor\",\"metric\":\"%s\",\"value\":null,\"na\":\"", metric);
    for (const char *p = why; *p; p++) {
        if (*p == '"' || *p == '\\')
            putchar('\\');
        if ((unsigned char)*p >= 0x20)
            putchar(*p);
    }
    printf("\"}\n");
    fflush(stdout);
}

/* ---- loading ------------------------------------------------------------ */

static int load_driver(void)
{
    const char *path = getenv("PYCUDAC_LIBCUDA");
    if (path == NULL || *path == '\0')
        path = "libcuda.so.1";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        set_err("cannot open %s: %s", path, e ? e : "?");
        return -1;
    }
#define FLOOR_RESOLVE(ret, name, sym, args)                                                     \
    drv.name = (ret(*) args)dlsym(h, sym);                                                      \
    if (drv.name == NULL) {                                                                     \
        set_err("%s has no %s", path, sym);                                                     \
        return -1;                                                                              \
    }
#define FLOOR_RESOLVE_OPT(ret, name, sym, args) drv.name = (ret(*) args)dlsym(h, sym);
    PCC_DRIVER_FUNCS(FLOOR_RESOLVE, FLOOR_RESOLVE_OPT)
#undef FLOOR_RESOLVE
#undef FLOOR_RESOLVE_OPT
    return 0;
}

static void *try_nvrtc(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h)
        snprintf(rtc_path, sizeof rtc_path, "%s", path);
    return h;
}

/* `hint` is a library path or a directory holding libnvrtc.so.1x. */
static int load_nvrtc(const char *hint)
{
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    char buf[1024];
    void *h = NULL;
    const char *hints[] = {hint, getenv("FLOOR_NVRTC"), getenv("PYCUDAC_NVRTC")};
    for (size_t k = 0; k < 3 && h == NULL; k++) {
        const char *x = hints[k];
        if (x == NULL || *x == '\0')
            continue;
        if ((h = try_nvrtc(x)) != NULL)
            break;
        for (size_t i = 0; i < 3 && h == NULL; i++) {
            snprintf(buf, sizeof buf, "%s/%s", x, names[i]);
            h = try_nvrtc(buf);
        }
    }
    const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    for (size_t k = 0; k < 3 && h == NULL; k++) {
        if (roots[k] == NULL || *roots[k] == '\0')
            continue;
        for (size_t i = 0; i < 3 && h == NULL; i++) {
            snprintf(buf, sizeof buf, "%s/lib64/%s", roots[k], names[i]);
            h = try_nvrtc(buf);
        }
    }
    for (size_t i = 0; i < 3 && h == NULL; i++)
        h = try_nvrtc(names[i]);
    if (h == NULL) {
        set_err("libnvrtc not found (tried --nvrtc, FLOOR_NVRTC, PYCUDAC_NVRTC, CUDA_HOME, "
                "CUDA_PATH, /usr/local/cuda/lib64, the system path)");
        return -1;
    }
#define FLOOR_RRESOLVE(ret, name, sym, args)                                                    \
    rtc.name = (ret(*) args)dlsym(h, sym);                                                      \
    if (rtc.name == NULL) {                                                                     \
        set_err("%s has no %s", rtc_path, sym);                                                 \
        return -1;                                                                              \
    }
#define FLOOR_RRESOLVE_OPT(ret, name, sym, args) rtc.name = (ret(*) args)dlsym(h, sym);
    PCC_RTC_FUNCS(FLOOR_RRESOLVE, FLOOR_RRESOLVE_OPT)
#undef FLOOR_RRESOLVE
#undef FLOOR_RRESOLVE_OPT
    if (rtc.nvrtcGetCUBIN == NULL || rtc.nvrtcGetCUBINSize == NULL) {
        set_err("%s has no nvrtcGetCUBIN (NVRTC older than 11.1)", rtc_path);
        return -1;
    }
    have_rtc = 1;
    return 0;
}

/* ---- compiling ---------------------------------------------------------- */

/* The launch kernels. 16 parameters: pointers, ints, floats, a float4,
 * a double, an unsigned and a long long. */
static const char launch_src[] =
    "extern \"C\" __global__ void empty(float *a, int n) {}\n"
    "extern \"C\" __global__ void k16(float *a, float *b, float *c, float *d,\n"
    "    int i0, int i1, int i2, int i3, float f0, float f1, float f2, float f3,\n"
    "    float4 v, double x, unsigned int u, long long ll) {}\n"
    "extern \"C\" __global__ void texk(cudaTextureObject_t t, float *out)\n"
    "{ out[threadIdx.x] = tex1D<float>(t, threadIdx.x + 0.5f); }\n";

/* Compiles `src` to a CUBIN for the current device (malloc'd, *size set).
 * NULL on failure with err set (the NVRTC log's start included). */
static char *compile_cubin(const char *src, size_t *size)
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

/* ---- set-up ------------------------------------------------------------- */

static int initialized;

FLOOR_API const char *floor_error(void) { return err; }

/* Loads both libraries, makes a context current (the one already current in
 * this thread, e.g. pycudac's or CuPy's primary context, else device 0's
 * primary context), a non-blocking stream, and the launch kernels. */
static int first_load_only; /* --only firstload: nothing loaded before the timed load */

FLOOR_API int floor_init(const char *nvrtc_hint)
{
    if (initialized)
        return 0;
    if (load_driver() < 0)
        return -1;
    if (ck(drv.cuInit(0), "cuInit") < 0)
        return -1;
    CUcontext cur = NULL;
    if (ck(drv.cuCtxGetCurrent(&cur), "cuCtxGetCurrent") < 0)
        return -1;
    if (cur != NULL) {
        ctx = cur;
        if (ck(drv.cuCtxGetDevice(&dev), "cuCtxGetDevice") < 0)
            return -1;
    } else {
        if (ck(drv.cuDeviceGet(&dev, 0), "cuDeviceGet") < 0 ||
            ck(drv.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") < 0 ||
            ck(drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent") < 0)
            return -1;
    }
    if (ck(drv.cuDeviceGetAttribute(&cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                    dev), "cuDeviceGetAttribute") < 0 ||
        ck(drv.cuDeviceGetAttribute(&cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                    dev), "cuDeviceGetAttribute") < 0)
        return -1;
    if (ck(drv.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") < 0)
        return -1;
    initialized = 1;
    /* Kernels need NVRTC; the copy benchmarks do not. */
    if (load_nvrtc(nvrtc_hint) < 0) {
        snprintf(rtc_err, sizeof rtc_err, "%s", err);
        return 1;
    }
    if (first_load_only)
        return 0; /* the first module this process loads must be the one timed */
    size_t n = 0;
    char *cubin = compile_cubin(launch_src, &n);
    if (cubin == NULL) {
        snprintf(rtc_err, sizeof rtc_err, "%s", err);
        return 1;
    }
    int rc = ck(drv.cuModuleLoadData(&launch_mod, cubin), "cuModuleLoadData");
    free(cubin);
    if (rc < 0 || ck(drv.cuModuleGetFunction(&fn_empty, launch_mod, "empty"), "get empty") < 0 ||
        ck(drv.cuModuleGetFunction(&fn_k16, launch_mod, "k16"), "get k16") < 0 ||
        ck(drv.cuModuleGetFunction(&fn_texk, launch_mod, "texk"), "get texk") < 0) {
        snprintf(rtc_err, sizeof rtc_err, "%s", err);
        fn_empty = fn_k16 = fn_texk = NULL;
        return 1;
    }
    return 0;
}

/* ---- (a)(b) launch ------------------------------------------------------- */

typedef struct {
    CUfunction f;
    void *params[16];
    void *extra[5];
    unsigned char buf[256];
    size_t buf_size;
} launch_args;

static CUdeviceptr launch_buf;
static int launch_n_value = 1000;
static int k16_ints[4] = {1, 2, 3, 4};
static float k16_floats[4] = {1.5f, 2.5f, 3.5f, 4.5f};
static float k16_vec[4] __attribute__((aligned(16))) = {1.0f, 2.0f, 3.0f, 4.0f};
static double k16_double = 6.25;
static unsigned int k16_uint = 7u;
static long long k16_ll = -8;

static void put(launch_args *la, CUfunction f, size_t index, size_t abi_off, const void *v,
                size_t size)
{
    size_t off = abi_off, sz = size;
    if (drv.cuFuncGetParamInfo &&
        drv.cuFuncGetParamInfo(f, index, &off, &sz) != CUDA_SUCCESS) {
        off = abi_off;
        sz = size;
    }
    if (sz > size)
        sz = size; /* never read past v */
    if (off + sz <= sizeof la->buf) {
        memcpy(la->buf + off, v, sz);
        if (off + sz > la->buf_size)
            la->buf_size = off + sz;
    }
}

/* kernel 0: empty(float*, int); kernel 1: k16. Fills both the kernelParams
 * array and the packed buffer (offsets from cuFuncGetParamInfo when the
 * driver has it, else the C ABI). */
static int build_args(launch_args *la, int kernel)
{
    memset(la, 0, sizeof *la);
    if (launch_buf == 0 && ck(drv.cuMemAlloc(&launch_buf, 4096), "cuMemAlloc") < 0)
        return -1;
    la->f = kernel == 0 ? fn_empty : fn_k16;
    if (la->f == NULL) {
        set_err("launch kernels not compiled: %s", *rtc_err ? rtc_err : "floor_init failed");
        return -1;
    }
    if (kernel == 0) {
        la->params[0] = &launch_buf;
        la->params[1] = &launch_n_value;
        put(la, la->f, 0, 0, &launch_buf, 8);
        put(la, la->f, 1, 8, &launch_n_value, 4);
    } else {
        static const size_t abi[16] = {0, 8, 16, 24, 32, 36, 40, 44, 48, 52, 56, 60,
                                       64, 80, 88, 96};
        size_t i;
        for (i = 0; i < 4; i++) {
            la->params[i] = &launch_buf;
            put(la, la->f, i, abi[i], &launch_buf, 8);
        }
        for (i = 0; i < 4; i++) {
            la->params[4 + i] = &k16_ints[i];
            put(la, la->f, 4 + i, abi[4 + i], &k16_ints[i], 4);
        }
        for (i = 0; i < 4; i++) {
            la->params[8 + i] = &k16_floats[i];
            put(la, la->f, 8 + i, abi[8 + i], &k16_floats[i], 4);
        }
        la->params[12] = k16_vec;
        put(la, la->f, 12, abi[12], k16_vec, 16);
        la->params[13] = &k16_double;
        put(la, la->f, 13, abi[13], &k16_double, 8);
        la->params[14] = &k16_uint;
        put(la, la->f, 14, abi[14], &k16_uint, 4);
        la->params[15] = &k16_ll;
        put(la, la->f, 15, abi[15], &k16_ll, 8);
    }
    la->extra[0] = PCC_LAUNCH_PARAM_BUFFER_POINTER;
    la->extra[1] = la->buf;
    la->extra[2] = PCC_LAUNCH_PARAM_BUFFER_SIZE;
    la->extra[3] = &la->buf_size;
    la->extra[4] = PCC_LAUNCH_PARAM_END;
    return 0;
}

/* One batch: n launches then one stream sync; µs per launch, <0 on error. */
static double launch_batch(launch_args *la, int use_extra, int n)
{
    void **params = use_extra ? NULL : la->params;
    void **extra = use_extra ? la->extra : NULL;
    CUfunction f = la->f;
    CUstream s = stream;
    double t0 = now_s();
    for (int i = 0; i < n; i++) {
        CUresult r = drv.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, params, extra);
        if (r != CUDA_SUCCESS) {
            ck(r, "cuLaunchKernel");
            return -1.0;
        }
    }
    if (ck(drv.cuStreamSynchronize(s), "cuStreamSynchronize") < 0)
        return -1.0;
    return (now_s() - t0) * 1e6 / n;
}

static double launch_samples[1024];
static int launch_nsamples;

/* The batch count clamped to launch_samples' size; 0, or -1 with the error
 * set when n or batches is not positive. */
static int batch_args(int *batches, int n)
{
    if (*batches > 1024)
        *batches = 1024;
    if (*batches < 1 || n < 1) {
        set_err("n and batches must be positive");
        return -1;
    }
    return 0;
}

/* Median µs per launch over `batches` batches of `n` launches, after one
 * warm-up batch. kernel 0 = empty, 1 = k16. <0 on error (floor_error()). */
FLOOR_API double floor_launch_us(int kernel, int use_extra, int n, int batches)
{
    launch_args la;
    if (!initialized) {
        set_err("floor_init was not called");
        return -1.0;
    }
    if (build_args(&la, kernel) < 0)
        return -1.0;
    if (batch_args(&batches, n) < 0)
        return -1.0;
    if (launch_batch(&la, use_extra, n) < 0)
        return -1.0;
    for (int b = 0; b < batches; b++) {
        double us = launch_batch(&la, use_extra, n);
        if (us < 0)
            return -1.0;
        launch_samples[b] = us;
    }
    launch_nsamples = batches;
    return median(launch_samples, batches);
}

/* The rows timed apart from launch_batch: a warm-up batch, then `batches`
 * timed batches of `n` launches CALL (a CUresult expression; WHAT names it
 * in an error), each ended by one sync, and returns the median µs per
 * launch. A macro, so that the timed loop calls the driver directly, as
 * launch_batch's does, rather than through a pointer. */
#define RETURN_TIMED_LAUNCHES(batches, n, CALL, WHAT)                                          \
    do {                                                                                       \
        for (int b_ = -1; b_ < (batches); b_++) {                                              \
            double t0_ = now_s();                                                              \
            for (int i_ = 0; i_ < (n); i_++) {                                                 \
                CUresult r_ = (CALL);                                                          \
                if (r_ != CUDA_SUCCESS) {                                                      \
                    ck(r_, WHAT);                                                              \
                    return -1.0;                                                               \
                }                                                                              \
            }                                                                                  \
            if (ck(drv.cuStreamSynchronize(stream), "cuStreamSynchronize") < 0)                \
                return -1.0;                                                                   \
            if (b_ >= 0)                                                                       \
                launch_samples[b_] = (now_s() - t0_) * 1e6 / (n);                              \
        }                                                                                      \
        launch_nsamples = (batches);                                                           \
        return median(launch_samples, (batches));                                              \
    } while (0)

/* The empty kernel in clusters of cx blocks (grid cx): n cuLaunchKernelEx
 * with the cluster-dimension attribute, then one sync; median µs per launch
 * over `batches` batches after a warm-up one (issue 25's cluster row). */
FLOOR_API double floor_launch_cluster_us(int cx, int n, int batches)
{
    launch_args la;
    if (!initialized) {
        set_err("floor_init was not called");
        return -1.0;
    }
    if (drv.cuLaunchKernelEx == NULL) {
        set_err("this driver has no cuLaunchKernelEx");
        return -1.0;
    }
    if (build_args(&la, 0) < 0)
        return -1.0;
    if (batch_args(&batches, n) < 0)
        return -1.0;
    if (cx < 1) {
        set_err("cx must be positive");
        return -1.0;
    }
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = (unsigned int)cx;
    attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg = {(unsigned int)cx, 1, 1, 1, 1, 1, 0, stream, &attr, 1};
    RETURN_TIMED_LAUNCHES(batches, n, drv.cuLaunchKernelEx(&cfg, la.f, NULL, la.extra),
                          "cuLaunchKernelEx");
}

/* A kernel that reads a texture: texk(t, out), 32 threads each fetching
 * tex1D<float>(t, i + 0.5) of a 32-float 1D array (point, clamp), n
 * cuLaunchKernel with kernelParams, then one sync; median µs per launch
 * over `batches` batches after a warm-up one (issue 25's texture row). The
 * array and its texture object are made on the first call and kept. */
FLOOR_API double floor_launch_tex_us(int n, int batches)
{
    static CUarray arr;
    static CUtexObject tex;
    if (!initialized) {
        set_err("floor_init was not called");
        return -1.0;
    }
    if (fn_texk == NULL) {
        set_err("launch kernels not compiled: %s", *rtc_err ? rtc_err : "floor_init failed");
        return -1.0;
    }
    if (drv.cuArrayCreate == NULL || drv.cuTexObjectCreate == NULL) {
        set_err("this driver has no cuArrayCreate / cuTexObjectCreate");
        return -1.0;
    }
    if (batch_args(&batches, n) < 0)
        return -1.0;
    if (launch_buf == 0 && ck(drv.cuMemAlloc(&launch_buf, 4096), "cuMemAlloc") < 0)
        return -1.0;
    if (tex == 0) {
        CUDA_ARRAY_DESCRIPTOR ad = {32, 0, CU_AD_FORMAT_FLOAT, 1};
        CUDA_RESOURCE_DESC rd;
        CUDA_TEXTURE_DESC td;
        memset(&rd, 0, sizeof rd);
        memset(&td, 0, sizeof td);
        if (ck(drv.cuArrayCreate(&arr, &ad), "cuArrayCreate") < 0)
            return -1.0;
        rd.resType = CU_RESOURCE_TYPE_ARRAY;
        rd.res.array.hArray = arr;
        td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
        td.filterMode = CU_TR_FILTER_MODE_POINT;
        if (ck(drv.cuTexObjectCreate(&tex, &rd, &td, NULL), "cuTexObjectCreate") < 0)
            return -1.0;
    }
    void *params[2] = {&tex, &launch_buf};
    RETURN_TIMED_LAUNCHES(batches, n,
                          drv.cuLaunchKernel(fn_texk, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL),
                          "cuLaunchKernel");
}

/* Size in bytes of the packed parameter buffer for kernel 0/1 (a check for
 * the Python side: pycudac's Function.pack must produce the same size). */
FLOOR_API long floor_param_size(int kernel)
{
    launch_args la;
    if (!initialized || build_args(&la, kernel) < 0)
        return -1;
    return (long)la.buf_size;
}

static void bench_launch(int kernel)
{
    int n = quick ? 500 : 5000, batches = quick ? 5 : 21;
    const char *names[2][2] = {{"launch_empty_params_us", "launch_empty_extra_us"},
                               {"launch16_params_us", "launch16_extra_us"}};
    for (int use_extra = 0; use_extra < 2; use_extra++) {
        const char *metric = names[kernel][use_extra];
        double us = floor_launch_us(kernel, use_extra, n, batches);
        if (us < 0) {
            emit_na(metric, err);
            continue;
        }
        char extra[128];
        snprintf(extra, sizeof extra, "\"launches_per_batch\":%d,\"param_bytes\":%ld", n,
                 floor_param_size(kernel));
        emit_value(metric, us, "us", launch_samples, launch_nsamples, extra);
    }
}

/* ---- (c)(d)(e) copies ---------------------------------------------------- */

static void fill_pattern(unsigned char *p, size_t n)
{
    uint32_t x = 2463534242u;
    for (size_t i = 0; i + 4 <= n; i += 4) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        memcpy(p + i, &x, 4);
    }
}

/* Times `reps` synchronous copies (after `warm` untimed ones), each up to
 * a context synchronize: GB/s samples. */
static int time_copies(int dir, void *host, CUdeviceptr d, size_t bytes, int warm, int reps,
                       double *samples)
{
    for (int i = 0; i < warm + reps; i++) {
        double t0 = now_s();
        CUresult r = dir == 0 ? drv.cuMemcpyHtoD(d, host, bytes) : drv.cuMemcpyDtoH(host, d, bytes);
        if (ck(r, dir == 0 ? "cuMemcpyHtoD" : "cuMemcpyDtoH") < 0)
            return -1;
        /* a pageable H2D copy may return before its last DMA lands */
        if (ck(drv.cuCtxSynchronize(), "cuCtxSynchronize") < 0)
            return -1;
        double t = now_s() - t0;
        if (i >= warm)
            samples[i - warm] = (double)bytes / t / 1e9;
    }
    return 0;
}

/* One synchronized copy of n bytes between `host` (the caller's memory:
 * bench_memcpy.py passes pycudac's page-locked buffer, so both sides copy the
 * very same pages) and a device buffer of the floor's own, kept and remade
 * for another n: GB/s, negative on error. For the paired pinned copies. */
FLOOR_API double floor_copy_GBps(void *host, size_t n, int to_host)
{
    static CUdeviceptr d;
    static size_t d_size;
    double gbps;
    if (!initialized) {
        set_err("floor_init was not called");
        return -1.0;
    }
    if (d_size != n) {
        if (d)
            drv.cuMemFree(d);
        d = 0;
        d_size = 0;
        if (ck(drv.cuMemAlloc(&d, n), "cuMemAlloc") < 0)
            return -1.0;
        d_size = n;
    }
    if (time_copies(to_host, host, d, n, 0, 1, &gbps) < 0)
        return -1.0;
    return gbps;
}

static void bench_copies(int pinned)
{
    size_t bytes = (size_t)(quick ? 16 : 256) << 20;
    int warm = 2, reps = quick ? 5 : 11;
    double samples[64];
    void *host = NULL;
    CUdeviceptr d = 0;
    const char *m_h2d = pinned ? "pinned_h2d_GBps" : "pageable_h2d_GBps";
    const char *m_d2h = pinned ? "pinned_d2h_GBps" : "pageable_d2h_GBps";
    char extra[64];
    snprintf(extra, sizeof extra, "\"bytes\":%zu", bytes);
    if (pinned) {
        if (ck(drv.cuMemHostAlloc(&host, bytes, 0), "cuMemHostAlloc") < 0)
            goto fail;
    } else {
        host = malloc(bytes);
        if (host == NULL) {
            set_err("malloc(%zu) failed", bytes);
            goto fail;
        }
    }
    fill_pattern(host, bytes); /* touched: every page is resident */
    if (ck(drv.cuMemAlloc(&d, bytes), "cuMemAlloc") < 0)
        goto fail;
    if (time_copies(0, host, d, bytes, warm, reps, samples) < 0)
        goto fail;
    emit_value(m_h2d, median(samples, reps), "GB/s", samples, reps, extra);
    if (time_copies(1, host, d, bytes, warm, reps, samples) < 0) {
        emit_na(m_d2h, err);
        goto done;
    }
    emit_value(m_d2h, median(samples, reps), "GB/s", samples, reps, extra);
    goto done;
fail:
    emit_na(m_h2d, err);
    emit_na(m_d2h, err);
done:
    if (d)
        drv.cuMemFree(d);
    if (host && pinned)
        drv.cuMemFreeHost(host);
    else
        free(host);
}

/* What staging a pageable H2D copy through pinned chunks can reach on this
 * machine, in plain C (single host thread: memcpy a chunk into one of
 * `nbuf` pinned buffers while the DMA of the previous ones runs), and the
 * host's own memcpy bandwidth, which bounds it. For issue 2's pageable
 * target: the evidence of what is possible here. */
static void bench_staged(void)
{
    size_t bytes = (size_t)(quick ? 16 : 256) << 20;
    int warm = 1, reps = quick ? 3 : 9;
    enum { NBUF = 4 };
    static const size_t chunks_mib[] = {1, 4, 16};
    double samples[64];
    unsigned char *src = malloc(bytes), *dst = malloc(bytes);
    CUdeviceptr d = 0;
    void *bufs[NBUF] = {0};
    CUevent ev[NBUF] = {0};
    char extra[96];
    if (src == NULL || dst == NULL) {
        set_err("malloc(%zu) failed", bytes);
        goto fail;
    }
    fill_pattern(src, bytes);
    memset(dst, 1, bytes);
    for (int i = 0; i < warm + reps; i++) { /* host memcpy, both buffers resident */
        double t0 = now_s();
        memcpy(dst, src, bytes);
        double t = now_s() - t0;
        if (i >= warm)
            samples[i - warm] = (double)bytes / t / 1e9;
    }
    snprintf(extra, sizeof extra, "\"bytes\":%zu,\"threads\":1", bytes);
    emit_value("host_memcpy_GBps", median(samples, reps), "GB/s", samples, reps, extra);
    if (ck(drv.cuMemAlloc(&d, bytes), "cuMemAlloc") < 0)
        goto fail;
    for (int k = 0; k < NBUF; k++)
        if (ck(drv.cuMemHostAlloc(&bufs[k], chunks_mib[2] << 20, 0), "cuMemHostAlloc") < 0 ||
            ck(drv.cuEventCreate(&ev[k], CU_EVENT_DISABLE_TIMING), "cuEventCreate") < 0)
            goto fail;
    for (size_t c = 0; c < sizeof chunks_mib / sizeof chunks_mib[0]; c++) {
        size_t chunk = chunks_mib[c] << 20;
        for (int i = 0; i < warm + reps; i++) {
            double t0 = now_s();
            size_t n = 0;
            for (size_t off = 0; off < bytes; off += chunk, n++) {
                size_t len = bytes - off < chunk ? bytes - off : chunk;
                int k = (int)(n % NBUF);
                if (n >= NBUF && ck(drv.cuEventSynchronize(ev[k]), "cuEventSynchronize") < 0)
                    goto fail;
                memcpy(bufs[k], src + off, len);
                if (ck(drv.cuMemcpyHtoDAsync(d + off, bufs[k], len, stream),
                       "cuMemcpyHtoDAsync") < 0 ||
                    ck(drv.cuEventRecord(ev[k], stream), "cuEventRecord") < 0)
                    goto fail;
            }
            if (ck(drv.cuStreamSynchronize(stream), "cuStreamSynchronize") < 0)
                goto fail;
            double t = now_s() - t0;
            if (i >= warm)
                samples[i - warm] = (double)bytes / t / 1e9;
        }
        char metric[64];
        snprintf(metric, sizeof metric, "pageable_h2d_staged_%zuMiB_GBps", chunks_mib[c]);
        snprintf(extra, sizeof extra, "\"bytes\":%zu,\"chunk\":%zu,\"buffers\":%d", bytes,
                 chunk, NBUF);
        emit_value(metric, median(samples, reps), "GB/s", samples, reps, extra);
    }
    goto done;
fail:
    emit_na("pageable_h2d_staged_GBps", err);
done:
    for (int k = 0; k < NBUF; k++) {
        if (ev[k])
            drv.cuEventDestroy(ev[k]);
        if (bufs[k])
            drv.cuMemFreeHost(bufs[k]);
    }
    if (d)
        drv.cuMemFree(d);
    free(src);
    free(dst);
}

/* µs per 4-byte cuMemcpyHtoD from pageable memory, one batch of n (the
 * device word is allocated once and kept); <0 on error (floor_error()).
 * bench/bench_memcpy.py alternates it with pycudac's memcpy_htod. */
FLOOR_API double floor_htod_small_us(int n)
{
    static CUdeviceptr d;
    static float value = 1.25f;
    if (!initialized) {
        set_err("floor_init was not called");
        return -1.0;
    }
    if (n < 1) {
        set_err("n must be positive");
        return -1.0;
    }
    if (d == 0 && ck(drv.cuMemAlloc(&d, 4), "cuMemAlloc") < 0)
        return -1.0;
    double t0 = now_s();
    for (int i = 0; i < n; i++)
        if (ck(drv.cuMemcpyHtoD(d, &value, 4), "cuMemcpyHtoD") < 0)
            return -1.0;
    return (now_s() - t0) * 1e6 / n;
}

static void bench_small_copy(void)
{
    int n = quick ? 200 : 2000, batches = quick ? 5 : 15;
    double samples[64];
    if (floor_htod_small_us(n) < 0) /* warm-up */
        goto fail;
    for (int b = 0; b < batches; b++)
        if ((samples[b] = floor_htod_small_us(n)) < 0)
            goto fail;
    emit_value("htod_4B_us", median(samples, batches), "us", samples, batches,
               "\"bytes\":4,\"host\":\"pageable\"");
    return;
fail:
    emit_na("htod_4B_us", err);
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

static void bench_compile_and_load(const char *src_path)
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

/* ---- (h) device-to-device ------------------------------------------------ */

static void bench_dtod(void)
{
    size_t bytes = (size_t)(quick ? 64 : 1024) << 20;
    int warm = 2, reps = quick ? 5 : 11;
    double samples[64];
    CUdeviceptr a = 0, b = 0;
    CUevent e0 = NULL, e1 = NULL;
    if (ck(drv.cuMemAlloc(&a, bytes), "cuMemAlloc") < 0 ||
        ck(drv.cuMemAlloc(&b, bytes), "cuMemAlloc") < 0 ||
        ck(drv.cuMemsetD32(a, 0x3f8ccccdu, bytes / 4), "cuMemsetD32") < 0 ||
        ck(drv.cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate") < 0 ||
        ck(drv.cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate") < 0)
        goto fail;
    for (int i = 0; i < warm + reps; i++) {
        float ms = 0;
        if (ck(drv.cuEventRecord(e0, stream), "cuEventRecord") < 0 ||
            ck(drv.cuMemcpyDtoDAsync(b, a, bytes, stream), "cuMemcpyDtoDAsync") < 0 ||
            ck(drv.cuEventRecord(e1, stream), "cuEventRecord") < 0 ||
            ck(drv.cuEventSynchronize(e1), "cuEventSynchronize") < 0 ||
            ck(drv.cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime") < 0)
            goto fail;
        if (i >= warm)
            samples[i - warm] = 2.0 * (double)bytes / (ms * 1e-3) / 1e12;
    }
    {
        char extra[96];
        snprintf(extra, sizeof extra, "\"bytes\":%zu,\"counted\":\"read+write\"", bytes);
        emit_value("dtod_TBps", median(samples, reps), "TB/s", samples, reps, extra);
    }
    goto done;
fail:
    emit_na("dtod_TBps", err);
done:
    if (e0)
        drv.cuEventDestroy(e0);
    if (e1)
        drv.cuEventDestroy(e1);
    if (a)
        drv.cuMemFree(a);
    if (b)
        drv.cuMemFree(b);
}

/* ---- main ---------------------------------------------------------------- */

static int wanted(const char *only, const char *part)
{
    if (only == NULL)
        return 1;
    size_t n = strlen(part);
    for (const char *p = only; (p = strstr(p, part)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

#ifndef FLOOR_NO_MAIN
int main(int argc, char **argv)
{
    const char *nvrtc = NULL, *src = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--nvrtc") == 0 && i + 1 < argc)
            nvrtc = argv[++i];
        else if (strcmp(argv[i], "--src") == 0 && i + 1 < argc)
            src = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [--nvrtc PATH|DIR] [--src FILE] "
                            "[--only launch,launch16,pinned,pageable,staged,small,compile,load,dtod|firstload]\n",
                    argv[0]);
            return 2;
        }
    }
    if (only && strcmp(only, "firstload") == 0)
        first_load_only = 1;
    int rc = floor_init(nvrtc);
    if (rc < 0) {
        const char *all[] = {"launch_empty_params_us", "launch_empty_extra_us",
                             "launch16_params_us", "launch16_extra_us", "pinned_h2d_GBps",
                             "pinned_d2h_GBps", "pageable_h2d_GBps", "pageable_d2h_GBps",
                             "htod_4B_us", "nvrtc_compile_ms", "module_load_us",
                             "module_load_unload_us", "dtod_TBps"};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            emit_na(all[i], err);
        return 0; /* n/a is an answer, not a crash */
    }
    {
        char name[256] = "?";
        int dv = 0, nv_major = 0, nv_minor = 0;
        drv.cuDeviceGetName(name, sizeof name, dev);
        drv.cuDriverGetVersion(&dv);
        if (have_rtc)
            rtc.nvrtcVersion(&nv_major, &nv_minor);
        printf("{\"bench\":\"floor\",\"metric\":\"info\",\"value\":null,\"device\":\"%s\","
               "\"cc\":\"%d.%d\",\"driver\":%d,\"nvrtc\":\"%d.%d\",\"nvrtc_path\":\"%s\","
               "\"quick\":%d%s%s%s}\n",
               name, cc_major, cc_minor, dv, nv_major, nv_minor, rtc_path, quick,
               rc ? ",\"kernels_na\":\"" : "", rc ? "see launch rows" : "", rc ? "\"" : "");
        fflush(stdout);
    }
    if (wanted(only, "launch"))
        bench_launch(0);
    if (wanted(only, "launch16"))
        bench_launch(1);
    if (wanted(only, "pinned"))
        bench_copies(1);
    if (wanted(only, "pageable"))
        bench_copies(0);
    if (wanted(only, "staged"))
        bench_staged();
    if (wanted(only, "small"))
        bench_small_copy();
    if (first_load_only) {
        bench_compile_and_load(src);
    } else if (wanted(only, "compile") || wanted(only, "load")) {
        bench_compile_and_load(src);
    }
    if (wanted(only, "dtod"))
        bench_dtod();
    if (launch_buf)
        drv.cuMemFree(launch_buf);
    return 0;
}
#endif
