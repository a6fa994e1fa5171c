// Technique of the Mandelbrot kernels of cuda-samples 5_Domain_Specific/Mandelbrot
// (escape-time iteration per pixel on a 2D grid of 2D blocks, pixel to complex
// plane through a scale and offset) and of "CUDA by Example" chapter 4 (julia:
// a cuComplex struct with __device__ member functions and operators, one
// thread per pixel, 0/255 written into an unsigned char bitmap).

__global__ void mandelbrot(int *iters, int width, int height, float xmin, float ymin,
                           float scale, int maxIter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;
    float cr = xmin + px * scale;
    float ci = ymin + py * scale;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    while (it < maxIter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    iters[py * width + px] = it;
}

struct cuComplexJ {
    float r;
    float i;
    __device__ cuComplexJ(float a, float b) : r(a), i(b) {}
    __device__ float magnitude2(void) { return r * r + i * i; }
    __device__ cuComplexJ operator*(const cuComplexJ &a)
    {
        return cuComplexJ(r * a.r - i * a.i, i * a.r + r * a.i);
    }
    __device__ cuComplexJ operator+(const cuComplexJ &a) { return cuComplexJ(r + a.r, i + a.i); }
};

__device__ int julia(int x, int y, int DIM)
{
    const float scale = 1.5f;
    float jx = scale * (float)(DIM / 2 - x) / (DIM / 2);
    float jy = scale * (float)(DIM / 2 - y) / (DIM / 2);

    cuComplexJ c(-0.8f, 0.156f);
    cuComplexJ a(jx, jy);
    for (int i = 0; i < 200; i++) {
        a = a * a + c;
        if (a.magnitude2() > 1000)
            return 0;
    }
    return 1;
}

__global__ void julia_kernel(unsigned char *ptr, int DIM)
{
    int x = blockIdx.x;
    int y = blockIdx.y;
    int offset = x + y * gridDim.x;
    ptr[offset] = (unsigned char)(255 * julia(x, y, DIM));
}
