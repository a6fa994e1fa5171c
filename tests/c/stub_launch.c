/*
 * stub_launch.c — the stub driver's launches (compiled with stub_libcuda.c
 * into one library: see that file): cuLaunchKernel, which returns at once
 * (and with STUB_POLLUTE_* evicts the CPU's caches as a real driver's
 * launch does), the recording the tests read, cuLaunchKernelEx, the
 * occupancy queries and cooperative launches.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pycudac/cudadrv.h"

#define API __attribute__((visibility("default")))

extern int stub_fail_launch_rc; /* stub_libcuda.c's stub_fail */

/* ---- a launch that evicts, like the real driver's -----------------------------
 *
 * On the H100 host pycudac's own path costs 130-180 ns a call against ~21
 * ns here: the real cuLaunchKernel runs microseconds of its own code over
 * its own data, and the caller's code and data are no longer in the near
 * caches when the next call begins. STUB_POLLUTE_DATA_KB=N makes every
 * launch touch N KB of the stub's memory, STUB_POLLUTE_CODE_KB=N run N KB of
 * straight-line code (64 blocks of ~1 KB); stub_pollute() is exported so
 * that the benchmark's do-nothing callable can pay the same. */
static volatile unsigned pollute_sink;
#define P1 pollute_sink += 1u;
#define P8 P1 P1 P1 P1 P1 P1 P1 P1
#define P64 P8 P8 P8 P8 P8 P8 P8 P8
#define BLOCK(k) static __attribute__((noinline)) void code_block_##k(void) { P64 P8 P8 }
#define BLOCKS8(a) BLOCK(a##0) BLOCK(a##1) BLOCK(a##2) BLOCK(a##3) BLOCK(a##4) BLOCK(a##5) \
    BLOCK(a##6) BLOCK(a##7)
BLOCKS8(0) BLOCKS8(1) BLOCKS8(2) BLOCKS8(3) BLOCKS8(4) BLOCKS8(5) BLOCKS8(6) BLOCKS8(7)
#define REF8(a) code_block_##a##0, code_block_##a##1, code_block_##a##2, code_block_##a##3, \
    code_block_##a##4, code_block_##a##5, code_block_##a##6, code_block_##a##7
static void (*const code_blocks[64])(void) = {REF8(0), REF8(1), REF8(2), REF8(3),
                                               REF8(4), REF8(5), REF8(6), REF8(7)};

static int pollute_on = -1; /* -1: the environment not read yet */
static long pollute_data, pollute_code;
static unsigned char *pollute_buf;

API void stub_pollute(void)
{
    if (pollute_on < 0) {
        const char *d = getenv("STUB_POLLUTE_DATA_KB"), *c = getenv("STUB_POLLUTE_CODE_KB");
        pollute_data = d ? atol(d) * 1024 : 0;
        pollute_code = c ? atol(c) : 0;
        if (pollute_code < 0 || pollute_code > 64)
            pollute_code = pollute_code < 0 ? 0 : 64;
        if (pollute_data > 0 && (pollute_buf = calloc(1, (size_t)pollute_data)) == NULL)
            pollute_data = 0;
        pollute_on = pollute_data > 0 || pollute_code > 0;
    }
    for (long i = 0; i < pollute_data; i += 64)
        pollute_buf[i]++;
    for (long k = 0; k < pollute_code; k++)
        code_blocks[k]();
}

/* With STUB_RECORD_LAUNCHES=1, each launch's configuration and parameter
 * bytes (the extra/BUFFER_POINTER form, which pycudac uses) are kept for
 * stub_last_launch: the tests read what a launch really sent. Off by
 * default, so that the benchmark's launches stay an indirect call. */
static int record_on = -1; /* -1: the environment not read yet */
static struct {
    unsigned int dims[7]; /* grid x, y, z, block x, y, z, shared */
    CUstream stream;
    CUfunction func;
    size_t nbytes;
    unsigned char bytes[32764];
} last_launch;

API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                            unsigned int bx, unsigned int by, unsigned int bz,
                            unsigned int shared, CUstream s, void **params, void **extra)
{
    (void)params;
    if (__builtin_expect(stub_fail_launch_rc != 0, 0))
        return (CUresult)__atomic_exchange_n(&stub_fail_launch_rc, 0, __ATOMIC_SEQ_CST);
    if (pollute_on != 0)
        stub_pollute();
    if (record_on < 0) {
        const char *v = getenv("STUB_RECORD_LAUNCHES");
        record_on = v != NULL && strcmp(v, "1") == 0;
    }
    if (record_on) {
        unsigned int dims[7] = {gx, gy, gz, bx, by, bz, shared};
        memcpy(last_launch.dims, dims, sizeof dims);
        last_launch.stream = s;
        last_launch.func = f;
        last_launch.nbytes = 0;
        void *buf = NULL;
        size_t *size = NULL;
        for (int k = 0; extra != NULL && extra[k] != PCC_LAUNCH_PARAM_END; k += 2) {
            if (extra[k] == PCC_LAUNCH_PARAM_BUFFER_POINTER)
                buf = extra[k + 1];
            else if (extra[k] == PCC_LAUNCH_PARAM_BUFFER_SIZE)
                size = (size_t *)extra[k + 1];
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (buf != NULL && size != NULL) {
            if (*size > sizeof last_launch.bytes)
                return CUDA_ERROR_INVALID_VALUE;
            memcpy(last_launch.bytes, buf, *size);
            last_launch.nbytes = *size;
        }
    }
    return CUDA_SUCCESS;
}

/* The last launch recorded (STUB_RECORD_LAUNCHES=1): dims[7] = grid, block,
 * shared bytes; *stream and *func; up to cap parameter bytes into bytes.
 * Returns the number of parameter bytes the launch sent. */
API size_t stub_last_launch(unsigned int dims[7], CUstream *stream, CUfunction *func,
                            unsigned char *bytes, size_t cap)
{
    memcpy(dims, last_launch.dims, sizeof last_launch.dims);
    *stream = last_launch.stream;
    *func = last_launch.func;
    memcpy(bytes, last_launch.bytes, last_launch.nbytes < cap ? last_launch.nbytes : cap);
    return last_launch.nbytes;
}

/* cuLaunchKernelEx: the launch as cuLaunchKernel records it (dims, packed
 * bytes), and its attributes, always recorded (stub_last_ex). */
static struct {
    int n;
    int ids[8];
    unsigned int values[8][3];
} last_ex;
static long ex_count; /* cuLaunchKernelEx calls so far */

API long stub_ex_count(void)
{
    return ex_count;
}

API CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra)
{
    if (c == NULL || (c->numAttrs > 0 && c->attrs == NULL))
        return CUDA_ERROR_INVALID_VALUE;
    ex_count++;
    last_ex.n = c->numAttrs < 8 ? (int)c->numAttrs : 8;
    for (int i = 0; i < last_ex.n; i++) {
        last_ex.ids[i] = c->attrs[i].id;
        memcpy(last_ex.values[i], &c->attrs[i].value, sizeof last_ex.values[i]);
    }
    return cuLaunchKernel(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY,
                          c->blockDimZ, c->sharedMemBytes, c->hStream, params, extra);
}

/* The last cuLaunchKernelEx's attributes: ids[i] and the first 12 bytes
 * of each value (a cluster's x, y, z; a priority or cooperative flag in
 * [0]). Returns how many (at most 8). */
API int stub_last_ex(int *ids, unsigned int (*values)[3])
{
    memcpy(ids, last_ex.ids, sizeof last_ex.ids);
    memcpy(values, last_ex.values, sizeof last_ex.values);
    return last_ex.n;
}

API CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block, CUfunction f,
                                              CUoccupancyB2DSize fn, size_t smem, int limit)
{
    (void)f;
    (void)fn;
    (void)smem;
    *min_grid = 132;
    *block = limit > 0 && limit < 1024 ? limit : 1024;
    return CUDA_SUCCESS;
}

/* Blocks per SM as an H100 counts threads (64 warps, 32 blocks). */
API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int block,
                                                        size_t smem)
{
    (void)f;
    (void)smem;
    if (block <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    *n = 2048 / ((block + 31) / 32 * 32);
    if (*n > 32)
        *n = 32;
    return CUDA_SUCCESS;
}

/* Cooperative launches (recorded always: they are not benchmarked). The
 * stub does not know a kernel's parameters: the test says how many there
 * are and how many bytes they span (stub_expect_params), and the launch
 * records each parameter's offset from the first and the bytes from there.
 * stub_coop_limit(n) makes grids of more than n blocks fail with 720, as a
 * driver whose answer differs from its occupancy query would. */
static size_t coop_nparams, coop_span;
static long coop_limit = -1;
static struct {
    unsigned int dims[7];
    CUstream stream;
    CUfunction func;
    size_t n, nbytes;
    long offsets[64];
    unsigned char bytes[4096];
} last_coop;

API void stub_expect_params(size_t n, size_t span)
{
    coop_nparams = n < 64 ? n : 64;
    coop_span = span < sizeof last_coop.bytes ? span : sizeof last_coop.bytes;
}

API void stub_coop_limit(long n)
{
    coop_limit = n;
}

API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                       unsigned int gz, unsigned int bx, unsigned int by,
                                       unsigned int bz, unsigned int shared, CUstream s,
                                       void **params)
{
    if (coop_limit >= 0 && (long long)gx * gy * gz > coop_limit)
        return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    unsigned int dims[7] = {gx, gy, gz, bx, by, bz, shared};
    memcpy(last_coop.dims, dims, sizeof dims);
    last_coop.stream = s;
    last_coop.func = f;
    last_coop.n = params ? coop_nparams : 0;
    last_coop.nbytes = params && coop_nparams ? coop_span : 0;
    for (size_t i = 0; i < last_coop.n; i++)
        last_coop.offsets[i] = (long)((char *)params[i] - (char *)params[0]);
    if (last_coop.nbytes)
        memcpy(last_coop.bytes, params[0], last_coop.nbytes);
    return CUDA_SUCCESS;
}

/* The last cooperative launch: dims[7], up to 64 parameter offsets, the
 * recorded bytes (up to cap). Returns the number of bytes recorded. */
API size_t stub_last_coop(unsigned int dims[7], long *offsets, unsigned char *bytes, size_t cap)
{
    memcpy(dims, last_coop.dims, sizeof last_coop.dims);
    memcpy(offsets, last_coop.offsets, last_coop.n * sizeof *offsets);
    memcpy(bytes, last_coop.bytes, last_coop.nbytes < cap ? last_coop.nbytes : cap);
    return last_coop.nbytes;
}
