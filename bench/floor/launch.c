/*
 * bench/floor/launch.c — kernel launches in the C floor: the launch kernels
 * (compiled and loaded by floor_init), their arguments in both forms
 * (kernelParams and the packed `extra` buffer, laid out as the driver says),
 * and the timed loops around cuLaunchKernel / cuLaunchKernelEx: (a) the
 * empty kernel and (b) the 16-parameter one, each in both forms, and issue
 * 25's cluster and texture rows (library only).
 */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The launch kernels. 16 parameters: pointers, ints, floats, a float4,
 * a double, an unsigned and a long long. */
static const char launch_src[] =
    "extern \"C\" __global__ void empty(float *a, int n) {}\n"
    "extern \"C\" __global__ void k16(float *a, float *b, float *c, float *d,\n"
    "    int i0, int i1, int i2, int i3, float f0, float f1, float f2, float f3,\n"
    "    float4 v, double x, unsigned int u, long long ll) {}\n"
    "extern \"C\" __global__ void texk(cudaTextureObject_t t, float *out)\n"
    "{ out[threadIdx.x] = tex1D<float>(t, threadIdx.x + 0.5f); }\n";

static CUmodule launch_mod;
static CUfunction fn_empty, fn_k16, fn_texk;

/* floor_init's last step: compiles launch_src and gets its kernels. 0, or 1
 * with rtc_err set (the launch rows are then n/a; the rest still runs). */
int load_launch_kernels(void)
{
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

void bench_launch(int kernel)
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

/* main's last step: the argument buffer of the launch rows, if one was made. */
void free_launch_buf(void)
{
    if (launch_buf)
        drv.cuMemFree(launch_buf);
}
