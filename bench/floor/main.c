/*
 * bench/floor/ — the raw C floor that pycudac's benchmarks are measured against.
 *
 * The same driver and NVRTC calls pycudac makes, written directly: dlopen
 * libcuda.so.1 and libnvrtc (common.c), and time them with the device
 * method's discipline: warm-up first, the median of many batches, the host
 * clock read after a synchronize or device events. No CUDA header is needed.
 * This file is the entry: floor_init, the set-up that the library and the
 * program share, and main, which runs the parts that --only picks (launch.c,
 * copy.c, compile.c).
 *
 *   cc -O2 -Wall -Wextra -Iinclude bench/floor/{common,compile,copy,launch,main}.c -ldl \
 *      -o bench/out/floor
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
 * alternate in one process on one context (floor_init, floor_launch_us):
 *
 *   cc -O2 -Wall -Wextra -fPIC -shared -fvisibility=hidden -Iinclude \
 *      bench/floor/{common,compile,copy,launch,main}.c -ldl -o bench/out/libfloor.so
 *
 * (bench/gpu_check.sh builds every .c file in bench/floor/ this way.)
 */
#include "common.h"

#include <stdio.h>
#include <string.h>

static CUdevice dev;
static CUcontext ctx;

/* ---- set-up ------------------------------------------------------------- */

/* Loads both libraries, makes a context current (the one already current in
 * this thread, e.g. pycudac's or CuPy's primary context, else device 0's
 * primary context), a non-blocking stream, and the launch kernels. */
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
    return load_launch_kernels();
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
    free_launch_buf();
    return 0;
}
#endif
