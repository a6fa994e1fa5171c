/*
 * bench/floor/common.c — the C floor's shared state and plumbing: the error
 * it records (floor_error), the median and the JSON lines it prints, and
 * the loading of libcuda and libnvrtc with dlopen, resolving the versioned
 * symbols named in include/pycudac/cudadrv.h and rtc.h (as
 * src/driver/loader.c does). No CUDA header is needed.
 */
#include "common.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pcc_driver_table drv;
pcc_rtc_table rtc;
int have_rtc;
char rtc_path[1280];
char err[2048];
char rtc_err[2048];

int initialized;
CUstream stream;
int cc_major, cc_minor;

int quick;
int first_load_only;

/* ---- errors ------------------------------------------------------------- */

void set_err(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, sizeof err, fmt, ap);
    va_end(ap);
}

void ck_record(CUresult r, const char *what)
{
    const char *name = NULL;
    if (drv.cuGetErrorName == NULL || drv.cuGetErrorName(r, &name) != CUDA_SUCCESS)
        name = "?";
    set_err("%s failed: %s (%d)", what, name ? name : "?", (int)r);
}

void ckr_record(nvrtcResult r, const char *what)
{
    set_err("%s failed: %s (%d)", what,
            rtc.nvrtcGetErrorString ? rtc.nvrtcGetErrorString(r) : "?", (int)r);
}

FLOOR_API const char *floor_error(void) { return err; }

/* ---- the median and the JSON lines -------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place; returns the median. */
double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    if (n <= 0)
        return -1.0;
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void emit_value(const char *metric, double value, const char *unit, double *samples, int n,
                const char *extra)
{
    /* samples are sorted by median() already */
    printf("{\"bench\":\"floor\",\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\","
           "\"n\":%d,\"min\":%.6g,\"max\":%.6g%s%s}\n",
           metric, value, unit, n, n ? samples[0] : 0.0, n ? samples[n - 1] : 0.0,
           extra && *extra ? "," : "", extra ? extra : "");
    fflush(stdout);
}

void emit_na(const char *metric, const char *why)
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

int load_driver(void)
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
int load_nvrtc(const char *hint)
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
