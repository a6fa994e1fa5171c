// Technique of the C++ that CUDA code leans on, as the CUDA Programming Guide's
// "C++ Language Support" section lists it and NVIDIA's samples and the textbooks
// use it: a small complex-number struct with member functions and overloaded
// operators (the Julia-set and FFT examples of CUDA by Example and the samples),
// a class template with a non-type size and a function template with a non-type
// parameter (launched through name expressions), a functor handed by value to a
// templated kernel and lambdas kept in `auto` inside a kernel, a namespace with an
// enum class, constexpr functions, static_assert, references, default arguments
// and overloads, a union for type punning next to an __align__(16) struct loaded
// whole, const __restrict__ pointers read through __ldg, and a __device__ table of
// function pointers picked at run time. Compiled with no_extern_c=True: the plain
// kernels are extern "C".

// ---- a complex number with operators -----------------------------------------

struct Complex {
    float re, im;

    __device__ Complex(float r = 0.0f, float i = 0.0f) : re(r), im(i) {}

    __device__ float norm2() const { return re * re + im * im; }

    __device__ Complex &operator+=(const Complex &o)
    {
        re += o.re;
        im += o.im;
        return *this;
    }
    __device__ Complex operator+(const Complex &o) const
    {
        Complex r = *this;
        return r += o;
    }
    __device__ Complex operator*(const Complex &o) const
    {
        return Complex(re * o.re - im * o.im, re * o.im + im * o.re);
    }
};

// One 8-point DFT per thread, X[k] = sum_j x[j] * exp(-2 pi i j k / 8), and the
// power spectrum |X[k]|^2 (x, X: n8 rows of 8 complex values).
extern "C" __global__ void dft8(const Complex *x, Complex *X, float *power, int n8)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n8)
        return;
    const Complex *in = x + 8 * row;
    for (int k = 0; k < 8; k++) {
        Complex acc; // default arguments: 0 + 0i
        for (int j = 0; j < 8; j++) {
            float s, c;
            sincospif(-0.25f * ((j * k) % 8), &s, &c);
            acc += in[j] * Complex(c, s);
        }
        X[8 * row + k] = acc + Complex(); // operator+ built on +=
        power[8 * row + k] = acc.norm2();
    }
}

// ---- a class template and a function template with a non-type parameter ------

template <typename T, int N>
struct SmallVec {
    static constexpr int size = N;
    T v[N];

    __device__ T &operator[](int k) { return v[k]; }
    __device__ const T &operator[](int k) const { return v[k]; }
};

template <int P, typename T>
__device__ T ipow(T x)
{
    T r = 1;
#pragma unroll
    for (int k = 0; k < P; k++)
        r *= x;
    return r;
}

template <typename T, int N>
__device__ T dot(const SmallVec<T, N> &a, const SmallVec<T, N> &b)
{
    T s = 0;
#pragma unroll
    for (int k = 0; k < N; k++)
        s += a[k] * b[k];
    return s;
}

// out[r] = dot(a[r, :], b[r, :]) + a[r, 0]^N for rows of N elements
template <typename T, int N>
__global__ void rows_dot(const T *a, const T *b, T *out, int rows)
{
    static_assert(SmallVec<T, N>::size == N, "SmallVec keeps its size");
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    SmallVec<T, N> x, y;
    for (int k = 0; k < x.size; k++) {
        x[k] = a[r * N + k];
        y[k] = b[r * N + k];
    }
    out[r] = dot(x, y) + ipow<N>(x[0]);
}

// ---- a functor handed to a templated kernel, lambdas inside a kernel ---------

struct Saxpy {
    float a, b;
    __device__ float operator()(float x) const { return a * x + b; }
};

struct Clamp {
    float lo, hi;
    __device__ float operator()(float x) const { return fminf(fmaxf(x, lo), hi); }
};

template <typename Op>
__global__ void transform(const float *x, float *y, int n, Op op)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = op(x[i]);
}

template <typename F>
__device__ float apply_twice(F f, float v)
{
    return f(f(v));
}

// y[i] = affine(affine(x[i])) + x[i]^2 + (number of negatives among x[i], x[i+1])
extern "C" __global__ void lambda_affine(const float *x, float *y, float s, float t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    auto affine = [=](float v) { return s * v + t; };
    auto square = [](float v) { return v * v; };
    int negatives = 0;
    auto count = [&negatives](float v) {
        if (v < 0.0f)
            ++negatives;
    };
    count(x[i]);
    if (i + 1 < n)
        count(x[i + 1]);
    y[i] = apply_twice(affine, x[i]) + square(x[i]) + negatives;
}

// ---- namespace, enum class, constexpr, references, defaults, overloads ----------

namespace ops {

enum class Mode : int { Add = 0, Sub = 1, Max = 2 };

__host__ __device__ constexpr int cube(int v) { return v * v * v; }

static_assert(cube(3) == 27, "constexpr evaluated at compile time");
constexpr int kScale = cube(2);

__device__ inline int twice(int v) { return 2 * v; }
__device__ inline float twice(float v) { return v + v; }

__device__ inline void accumulate(float &acc, float v, Mode m = Mode::Add)
{
    switch (m) {
    case Mode::Add: acc += v; break;
    case Mode::Sub: acc -= v; break;
    case Mode::Max: acc = fmaxf(acc, v); break;
    }
}

__device__ inline void order(int &lo, int &hi)
{
    if (lo > hi) {
        int t = lo;
        lo = hi;
        hi = t;
    }
}

} // namespace ops

// pairs[2i] = 2 * min(a, b), pairs[2i+1] = 8 * max(a, b);
// acc[i] = (1 + f) then Add / Sub / Max (mode[i]) with 2f
extern "C" __global__ void namespaced_ops(const int *a, const int *b, const float *f,
                                          const int *mode, int *pairs, float *acc, int n)
{
    using ops::Mode;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int lo = a[i], hi = b[i];
    ops::order(lo, hi);
    int scaled[ops::cube(1) + 1] = {ops::twice(lo), hi * ops::kScale};
    pairs[2 * i] = scaled[0];
    pairs[2 * i + 1] = scaled[1];
    float s = 1.0f;
    ops::accumulate(s, f[i]);
    ops::accumulate(s, ops::twice(f[i]), static_cast<Mode>(mode[i]));
    acc[i] = s;
}

// ---- a union for type punning, an aligned struct loaded whole --------------------

union FloatBits {
    float f;
    unsigned int u;
};

struct __align__(16) Particle {
    float x, y, z;
    int id;
};

struct alignas(8) IdPair {
    int id, twin;
};

static_assert(sizeof(Particle) == 16 && alignof(Particle) == 16, "one 16-byte load");
static_assert(alignof(IdPair) == 8, "alignas");

// bits[i] = the bits of p[i].x; out[i] = p[i] with x negated through its sign bit,
// z = y + z and id = 2 * id + 1
extern "C" __global__ void particle_bits(const Particle *p, Particle *out, unsigned int *bits,
                                         int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    Particle q = p[i];
    FloatBits fb;
    fb.f = q.x;
    bits[i] = fb.u;
    fb.u ^= 0x80000000u;
    q.x = fb.f;
    q.z = q.y + q.z;
    IdPair ids = {q.id, 2 * q.id + 1};
    q.id = ids.twin;
    out[i] = q;
}

// ---- const __restrict__ pointers through __ldg -------------------------------------

// dst[i] = 2 * src[idx[i]] + bias[i % nb], grid-stride
extern "C" __global__ void gather_ldg(const float *__restrict__ src, const int *__restrict__ idx,
                                      const float *__restrict__ bias, float *__restrict__ dst,
                                      int n, int nb)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        dst[i] = 2.0f * __ldg(&src[__ldg(idx + i)]) + __ldg(bias + i % nb);
}

// ---- a __device__ table of function pointers -----------------------------------------

typedef float (*unary_fn)(float);

__device__ float negate(float v) { return -v; }
__device__ float square(float v) { return v * v; }
__device__ float halve(float v) { return 0.5f * v; }
__device__ float plus_one(float v) { return v + 1.0f; }

__device__ unary_fn fn_table[] = {negate, square, halve, plus_one};

// y[i] = fn_table[which[i] % 4](x[i])
extern "C" __global__ void apply_table(const float *x, const int *which, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unary_fn fn = fn_table[which[i] % 4];
        y[i] = fn(x[i]);
    }
}

// C++11 alignment specifiers after __shared__ (NVRTC takes them there: its
// __shared__ is an attribute, not a storage class), the tile read and written
// as float4. Each block reverses its 4 * blockDim floats; aligned[b] has bit 0
// for the tile's 16-byte alignment, bit 1 for the counters' 8 and bit 2 for
// the counters' sum.
extern "C" __global__ void aligned_shared_reverse(const float4 *x, float4 *y, int *aligned)
{
    __shared__ alignas(16) float tile[4 * 64];
    __shared__ alignas(8) int count[2];
    unsigned int t = threadIdx.x, b = blockIdx.x;
    reinterpret_cast<float4 *>(tile)[t] = x[b * blockDim.x + t];
    if (t == 0) {
        count[0] = 0;
        count[1] = 0;
    }
    __syncthreads();
    atomicAdd(&count[t & 1], 1);
    float4 v = reinterpret_cast<const float4 *>(tile)[blockDim.x - 1 - t];
    y[b * blockDim.x + t] = make_float4(v.w, v.z, v.y, v.x);
    __syncthreads();
    if (t == 0)
        aligned[b] = ((unsigned long long)tile % 16 == 0) +
                     2 * ((unsigned long long)count % 8 == 0) +
                     4 * (count[0] + count[1] == (int)blockDim.x);
}
