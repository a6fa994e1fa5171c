/*
 * bench/floor/common.h — what the parts of the C floor share: the driver and
 * NVRTC tables it loads itself, the stream and device facts floor_init sets,
 * the error it records, the clock, and its JSON lines. common.c defines
 * them; launch.c, copy.c, compile.c and main.c use them (each includes this
 * first, for _GNU_SOURCE), and nothing in common.c calls back into those.
 *
 * Everything declared here is hidden whatever flags the floor is built with:
 * bench/out/libfloor.so exports only the FLOOR_API functions at the end, and
 * loaded into a process that holds pycudac, its state cannot be mixed up
 * with pycudac's.
 */
#ifndef FLOOR_COMMON_H
#define FLOOR_COMMON_H

#define _GNU_SOURCE
#include <stddef.h>
#include <time.h>

#include "pycudac/cudadrv.h"
#include "pycudac/rtc.h"

#define FLOOR_API __attribute__((visibility("default")))

#pragma GCC visibility push(hidden)

/* Our own tables (not pycudac's pcc_drv). */
extern pcc_driver_table drv;
extern pcc_rtc_table rtc;
extern int have_rtc;
extern char rtc_path[1280];
extern char err[2048];
extern char rtc_err[2048]; /* why NVRTC or the launch kernels are missing */

/* Set by floor_init (main.c). */
extern int initialized;
extern CUstream stream;
extern int cc_major, cc_minor;

extern int quick;           /* --quick */
extern int first_load_only; /* --only firstload: nothing loaded before the timed load */

/* ---- errors ------------------------------------------------------------- */

void set_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The error paths of ck and ckr: record "what failed: NAME (code)". */
void ck_record(CUresult r, const char *what);
void ckr_record(nvrtcResult r, const char *what);

/* 0 on success; else records "what failed: NAME (code)" and returns -1.
 * Inline, with the error path apart, as the compiler made them when the floor
 * was one file: ck tests a result inside timed loops. */
static inline int ck(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return 0;
    ck_record(r, what);
    return -1;
}

static inline int ckr(nvrtcResult r, const char *what)
{
    if (r == NVRTC_SUCCESS)
        return 0;
    ckr_record(r, what);
    return -1;
}

/* ---- timing and output -------------------------------------------------- */

/* Inline: it brackets the timed loops, and a call there would be timed too. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double median(double *v, int n);
void emit_value(const char *metric, double value, const char *unit, double *samples, int n,
                const char *extra);
void emit_na(const char *metric, const char *why);

/* ---- loading (0, or -1 with err set) ------------------------------------ */

int load_driver(void);
int load_nvrtc(const char *hint);

/* ---- the parts ---------------------------------------------------------- */

/* compile.c */
char *compile_cubin(const char *src, size_t *size);
void bench_compile_and_load(const char *src_path);

/* launch.c */
int load_launch_kernels(void);
void bench_launch(int kernel);
void free_launch_buf(void);

/* copy.c */
void bench_copies(int pinned);
void bench_staged(void);
void bench_small_copy(void);
void bench_dtod(void);

#pragma GCC visibility pop

/* ---- the library's API: bench/common.py, bench_compile.py, bench_launch.py
 * and bench_memcpy.py call these through ctypes ----------------------------- */

FLOOR_API const char *floor_error(void);
FLOOR_API int floor_init(const char *nvrtc_hint);
FLOOR_API double floor_launch_us(int kernel, int use_extra, int n, int batches);
FLOOR_API double floor_launch_cluster_us(int cx, int n, int batches);
FLOOR_API double floor_launch_tex_us(int n, int batches);
FLOOR_API long floor_param_size(int kernel);
FLOOR_API double floor_copy_GBps(void *host, size_t n, int to_host);
FLOOR_API double floor_htod_small_us(int n);
FLOOR_API double floor_compile_ms(const char *src, int tag);

#endif
