// Technique of passing a plain struct by value as a kernel parameter, as the
// CUDA Programming Guide's function-parameter rules allow and as simulation
// codes do with their parameter blocks (here: a float, an int and a double, so
// the struct has padding before the double and 8-byte alignment), next to
// ordinary scalars before and after it.

struct SimParams {
    float gain;
    int steps;
    double offset;
};

// y[i] = ((x[i] * gain) applied `steps` times) + offset + bias
__global__ void apply_params(const double *x, double *y, SimParams p, int n, float bias)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        for (int s = 0; s < p.steps; s++)
            v *= p.gain;
        y[i] = v + p.offset + bias;
    }
}
