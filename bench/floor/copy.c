/*
 * bench/floor/copy.c — memory copies in the C floor: (c) pinned and (d)
 * pageable cuMemcpyHtoD / cuMemcpyDtoH of a large buffer, what staging a
 * pageable copy through pinned chunks can reach (and the host's own memcpy,
 * which bounds it), (e) 4-byte pageable copies, and (h) a device-to-device
 * copy timed with events; floor_copy_GBps and floor_htod_small_us let
 * bench_memcpy.py alternate single copies with pycudac's in its process.
 */
#include "common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void bench_copies(int pinned)
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
void bench_staged(void)
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

void bench_small_copy(void)
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

/* ---- (h) device-to-device ------------------------------------------------ */

void bench_dtod(void)
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
