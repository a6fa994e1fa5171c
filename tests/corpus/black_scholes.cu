// Technique of cuda-samples 5_Domain_Specific/BlackScholes
// (BlackScholesGPU: cndGPU, the Abramowitz-Stegun polynomial approximation of
// the cumulative normal distribution, BlackScholesBodyGPU computing call and
// put, a grid-stride loop over the options; riskfree rate and volatility as
// kernel scalars). Written with __device__ inline helpers, __expf and __logf
// intrinsics where the sample uses them.

#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267793994605993438f

__device__ inline float cndGPU(float d)
{
    float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float cnd = RSQRT2PI * __expf(-0.5f * d * d) *
                (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
    if (d > 0)
        cnd = 1.0f - cnd;
    return cnd;
}

__device__ inline void BlackScholesBodyGPU(float &CallResult, float &PutResult, float S, float X,
                                           float T, float R, float V)
{
    float sqrtT = sqrtf(T);
    float d1 = (__logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float CNDD1 = cndGPU(d1);
    float CNDD2 = cndGPU(d2);
    float expRT = __expf(-R * T);
    CallResult = S * CNDD1 - X * expRT * CNDD2;
    PutResult = X * expRT * (1.0f - CNDD2) - S * (1.0f - CNDD1);
}

__global__ void BlackScholesGPU(float *d_CallResult, float *d_PutResult, const float *d_StockPrice,
                                const float *d_OptionStrike, const float *d_OptionYears,
                                float Riskfree, float Volatility, int optN)
{
    for (int opt = blockDim.x * blockIdx.x + threadIdx.x; opt < optN;
         opt += blockDim.x * gridDim.x)
        BlackScholesBodyGPU(d_CallResult[opt], d_PutResult[opt], d_StockPrice[opt],
                            d_OptionStrike[opt], d_OptionYears[opt], Riskfree, Volatility);
}
