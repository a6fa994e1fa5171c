// Device printf.
__global__ void say(int x, float y)
{
    if (threadIdx.x < 2)
        printf("thread %d says %d %.2f\n", (int)threadIdx.x, x, y);
}
