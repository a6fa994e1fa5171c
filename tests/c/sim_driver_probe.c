/*
 * tests/c/sim_driver_probe.c — the CPU simulator as a driver, without
 * pycudac's Python layer in front of it (tests/test_sim_driver.py builds
 * this from src/sim/ and runs it).
 *
 * pycudac checks sizes, parameter buffers and copy ranges before it calls
 * the driver, so the simulator's own checks of the same things — what the
 * real driver refuses — are never reached from Python. Here they are called
 * directly: each line printed is "what rc" for the test to compare.
 *
 *   sim_driver_probe IMAGE     IMAGE: a simulator module (compiler.compile on
 *                              the sim backend) holding
 *                              extern "C" __global__ void k(int a, double b, int *p)
 */
#include <stdio.h>
#include <stdlib.h>

#include "pycudac/backend.h"
#include "pycudac/cudadrv.h"


static pcc_driver_table d;

static void show(const char *what, CUresult rc)
{
    printf("%s %d\n", what, (int)rc);
}

static CUresult launch(CUfunction f, void *buf, size_t size, unsigned int shared)
{
    void *extra[] = {PCC_LAUNCH_PARAM_BUFFER_POINTER, buf, PCC_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     PCC_LAUNCH_PARAM_END};
    CUresult rc = d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, shared, NULL, NULL, extra);
    return rc != CUDA_SUCCESS ? rc : d.cuCtxSynchronize();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s IMAGE\n", argv[0]);
        return 2;
    }
    FILE *fp = fopen(argv[1], "rb");
    if (fp == NULL)
        return 2;
    static char image[8 << 20];
    size_t n = fread(image, 1, sizeof image, fp);
    fclose(fp);
    if (n == 0 || n == sizeof image)
        return 2;

    pcc_sim_backend(&d);
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction f;
    CUdeviceptr a, b;
    if (d.cuInit(0) || d.cuDeviceGet(&dev, 0) || d.cuDevicePrimaryCtxRetain(&ctx, dev) ||
        d.cuCtxSetCurrent(ctx) || d.cuMemAlloc(&a, 4000) || d.cuMemAlloc(&b, 4000)) {
        fprintf(stderr, "probe: the simulator did not start\n");
        return 2;
    }
    char host[64] = {0};

    /* copies and memsets: inside the allocation, then 20 bytes past its end */
    show("htod_inside", d.cuMemcpyHtoD(a + 3960, host, 40));
    show("htod_past_end", d.cuMemcpyHtoD(a + 3980, host, 40));
    show("dtoh_past_end", d.cuMemcpyDtoH(host, a + 3980, 40));
    show("dtod_past_end", d.cuMemcpyDtoD(b, a + 3980, 40));
    show("memset_inside", d.cuMemsetD32(a + 8, 0, 998));
    show("memset_past_end", d.cuMemsetD32(a + 8, 0, 999));

    /* the parameter buffer: exactly the parameters' end (24 bytes), shorter, longer */
    show("module", d.cuModuleLoadData(&mod, image));
    show("function", d.cuModuleGetFunction(&f, mod, "k"));
    struct { int a; int pad; double b; CUdeviceptr p; } params = {7, 0, 2.5, a};
    char big[64] = {0};
    show("launch_exact", launch(f, &params, sizeof params, 0));
    show("launch_short", launch(f, &params, sizeof params - 8, 0));
    show("launch_long", launch(f, big, sizeof params + 8, 0));
    int got = 0;
    d.cuMemcpyDtoH(&got, a, sizeof got);
    show("kernel_wrote", (CUresult)got);
    /* dynamic shared memory past the function's limit (48 KiB by default) */
    show("launch_shared_ok", launch(f, &params, sizeof params, 1024));
    show("launch_shared_over", launch(f, &params, sizeof params, 48 * 1024 + 4));
    return 0;
}
