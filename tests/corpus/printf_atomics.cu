// Technique of the CUDA Programming Guide's "Formatted Output" section (device
// printf as debugging code uses it: one guarded thread dumping its parameters
// with every documented conversion, flag, width, precision and size modifier,
// float arguments promoted to double, NaN / infinity / negative zero, long
// strings from global memory, and one tagged line per thread) and of its
// "Atomic Functions" section (every arithmetic and bitwise atomic on each type
// it is documented for, atomicInc / atomicDec wrap-around, atomicCAS on 32, 64
// and 16 bits, the CAS-loop idiom for operations the hardware lacks, and the
// _block / _system scoped variants), written the way debugging kernels and the
// histogram / ticket / claim patterns of cuda-samples use them.
#include <stdio.h>

// ---------------------------------------------------------------- printf

// One thread (the launch may be larger: the usual guard) prints the integers it
// was given, line after line, so the order of the lines is defined.
__global__ void print_integers(int i, unsigned int u, long long ll, unsigned long long ull,
                               short s, unsigned short us, signed char sc, unsigned char uc,
                               int w)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    printf("int   |%d|%i|%8d|%-8d|%08d|%+d|% d|%.7d|%+.6i|\n", i, i, i, i, i, i, i, i, -i);
    printf("uint  |%u|%x|%X|%o|%#x|%#X|%012x|%-12u|%+u|\n", u, u, u, u, u, u, u, u, u);
    printf("octal |%#o|%#o|%#5o|\n", u, 8u, 0u);
    printf("zero  |%#x|%#X|%.0d|%5.0d|%+d|% d|%x|\n", 0u, 0u, 0, 0, 0, 0, 0u);
    printf("llong |%lld|%lli|%llu|%llx|%#llX|%24lld|%-+24lld|\n", ll, ll, ull, ull, ull, ll, -ll);
    printf("long  |%ld|%lu|%lx|%lo|\n", (long)ll, (unsigned long)ull, (unsigned long)ull,
           (unsigned long)u);
    printf("short |%hd|%hu|%hx|%6hd|%-6hu|%+hd|%hX|\n", s, us, (unsigned short)s, s, us, s, us);
    // chars go as ints: CUDA's printf has no hh size (an H200 printed %hhX and
    // everything after it wrongly; the simulator says so on stderr)
    printf("char  |%d|%u|%02x|%X|%i|%c|%3c|%-3c|\n", sc, uc, (unsigned char)sc, uc, sc, uc, uc,
           'q');
    printf("star  |%*d|%-*d|%*u|%*x|\n", w, i, w, i, w + 4, u, 3, 0xabu);
    printf("pct   |%%|%d%%|%5.1f%%|%%d|\n", 42, 99.5);
}

// One thread prints doubles and floats (promoted to double by the call), then
// one line per special value in a loop.
__global__ void print_floats(float f, double d, const double *special, int nspecial)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    printf("f     |%f|%.2f|%10.3f|%-10.3f|%+.1f|%010.4f|% .3f|%.0f|\n", f, f, f, f, f, f, f, f);
    printf("e     |%e|%.3e|%E|%14.4E|%-+14.2e|%.0e|%#.0e|\n", d, d, d, d, d, d, d);
    printf("g     |%g|%G|%.3g|%#g|%#.3G|%10.4g|%-10.2g|%g|%g|\n", d, d, d, d, d, d, d,
           d * 1e10, d * 1e-10);
    printf("a     |%a|%A|%a|%a|%a|\n", d, d, 1.0, -0.75, 0.1);
    printf("prom  |%.10f|%.9g|%.17g|%f|\n", 0.1f, 0.1f, (double)0.1f, f * 2.0f);
    printf("round |%.0f|%.0f|%.0f|%.1f|%.2e|\n", 0.5, 1.5, 2.5, 0.25, 12345.0);
    for (int k = 0; k < nspecial; ++k) {
        double x = special[k];
        printf("sp[%d] |%f|%e|%g|%8.2f|%-8.1e|%+g|%E|%G|% f|\n", k, x, x, x, x, x, x, x, x, x);
    }
}

// Strings: the first thread prints a long message from global memory and a long
// format string with many arguments; then every thread prints one tagged line.
__global__ void print_strings(const char *msg, const char *tag, int msglen)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t == 0) {
        printf("str   |%s|%.5s|%12s|%-12s|%12.3s|%s|%.0s|\n", tag, msg, tag, tag, msg, "literal",
               tag);
        printf("msg(%d) <%s>\n", msglen, msg);
        printf("many  |%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d|%s|%c|%f|\n",
               1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, tag, 'x',
               0.5);
        printf("This is a deliberately long format string, the kind a kernel prints once "
               "as a banner before dumping its state: block size %d, grid size %d, and a "
               "reminder that the output of printf appears only when the host synchronizes "
               "with the device, which is why the test synchronizes before it reads the "
               "stream back; end of banner %s.\n",
               blockDim.x, gridDim.x, "(ok)");
    }
    printf("[blk %d thr %02d] sq=%5d hex=%#06x ch=%c\n", blockIdx.x, threadIdx.x, t * t, t,
           'a' + t % 26);
}

// ---------------------------------------------------------------- atomics

// atomicAdd / atomicSub on every documented type, the scoped variants, a
// shared-memory counter and a ticket dispenser (atomicAdd's returned old value).
__global__ void atomic_add_types(const int *v, int n, int *si, unsigned int *su,
                                 unsigned long long *sull, float *sf, double *sd,
                                 int *blockSums, unsigned int *tickets, int *positives)
{
    __shared__ int sPositive;
    if (threadIdx.x == 0)
        sPositive = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int x = v[i];
        atomicAdd(&si[0], x);
        atomicSub(&si[1], x);
        atomicAdd_system(&si[2], 1);
        atomicAdd(&su[0], (unsigned int)x);  // wraps modulo 2^32
        atomicSub(&su[1], 3u);               // goes below zero and wraps
        atomicAdd(&sull[0], (unsigned long long)(x + 1000) << 24);
        atomicAdd(&sull[1], 0xffffffffffffffffull);  // adding -1, 64-bit wrap
        atomicAdd(&sf[0], (float)x * 0.5f);
        atomicAdd_block(&sf[1 + blockIdx.x % 2], 1.0f);
        atomicAdd(&sd[0], (double)x * 0.25);
        atomicAdd_system(&sd[1], -1.0);
        atomicAdd_block(&blockSums[blockIdx.x], x);
        if (x > 0)
            atomicAdd(&sPositive, 1);
        unsigned int ticket = atomicAdd(&tickets[0], 1u);
        tickets[1 + ticket] = (unsigned int)i;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        atomicAdd(positives, sPositive);
}

// atomicMin / atomicMax on int, unsigned int, long long and unsigned long long:
// slot 0 holds the minimum, slot 1 the maximum, slots 2 and 3 the same through
// the _block and _system variants.
__global__ void atomic_min_max(const int *vi, const unsigned int *vu, const long long *vll,
                               const unsigned long long *vull, int n, int *mi, unsigned int *mu,
                               long long *mll, unsigned long long *mull)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicMin(&mi[0], vi[i]);
    atomicMax(&mi[1], vi[i]);
    atomicMin_system(&mi[2], vi[i]);
    atomicMax_system(&mi[3], vi[i]);
    atomicMin(&mu[0], vu[i]);
    atomicMax(&mu[1], vu[i]);
    atomicMin_block(&mu[2], vu[i]);
    atomicMax_block(&mu[3], vu[i]);
    atomicMin(&mll[0], vll[i]);
    atomicMax(&mll[1], vll[i]);
    atomicMin_system(&mll[2], vll[i]);
    atomicMax_system(&mll[3], vll[i]);
    atomicMin(&mull[0], vull[i]);
    atomicMax(&mull[1], vull[i]);
    atomicMin_block(&mull[2], vull[i]);
    atomicMax_block(&mull[3], vull[i]);
}

// atomicInc / atomicDec: many threads on one counter each, starting inside and
// outside [0, limit]; with limit 0xffffffff they are a plain wrapping
// increment / decrement.
__global__ void atomic_wrap_counters(unsigned int *c, unsigned int limit, unsigned int *oldInc,
                                     unsigned int *oldDec, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    oldInc[i] = atomicInc(&c[0], limit);
    atomicInc(&c[1], limit);
    oldDec[i] = atomicDec(&c[2], limit);
    atomicDec(&c[3], limit);
    atomicInc(&c[4], 0xffffffffu);
    atomicDec(&c[5], 0xffffffffu);
    atomicInc_system(&c[6], limit);
    atomicDec_block(&c[7], limit);
}

// atomicAnd / atomicOr / atomicXor on 32 and 64 bits; atomicOr's old value tells
// the first thread to set a bit; atomicExch on int, unsigned long long and float
// passes a value along a chain.
__global__ void atomic_bits_exch(const unsigned int *andm, const unsigned int *orm,
                                 const unsigned int *xorm, const unsigned long long *andm64,
                                 const unsigned long long *orm64, const unsigned long long *xorm64,
                                 int n, unsigned int *b32, unsigned long long *b64,
                                 unsigned int *bitmap, int *first, int *slot, int *prev,
                                 unsigned long long *slot64, unsigned long long *prev64,
                                 float *fslot, float *fprev)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    atomicAnd(&b32[0], andm[i]);
    atomicOr(&b32[1], orm[i]);
    atomicXor(&b32[2], xorm[i]);
    atomicAnd(&b64[0], andm64[i]);
    atomicOr(&b64[1], orm64[i]);
    atomicXor(&b64[2], xorm64[i]);
    atomicXor_block(&b32[3], xorm[i]);
    atomicOr_system(&b64[3], orm64[i]);
    int k = i % (n / 2);
    unsigned int bit = 1u << (k & 31);
    unsigned int old = atomicOr(&bitmap[k >> 5], bit);
    first[i] = (old & bit) == 0;
    prev[i] = atomicExch(&slot[0], i);
    prev64[i] = atomicExch(&slot64[0], (unsigned long long)i << 33);
    fprev[i] = atomicExch(&fslot[0], (float)i * 0.5f);
}

// The CAS-loop idiom for a float and a double maximum (no hardware atomicMax on
// floating point), and the sign-split idiom through integer atomicMax / atomicMin.
__device__ float atomicMaxFloat(float *address, float val)
{
    int *address_as_int = (int *)address;
    int old = *address_as_int, assumed;
    while (val > __int_as_float(old)) {
        assumed = old;
        old = atomicCAS(address_as_int, assumed, __float_as_int(val));
        if (old == assumed)
            break;
    }
    return __int_as_float(old);
}

__device__ double atomicMaxDouble(double *address, double val)
{
    unsigned long long int *address_as_ull = (unsigned long long int *)address;
    unsigned long long int old = *address_as_ull, assumed;
    while (val > __longlong_as_double((long long)old)) {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed, (unsigned long long)__double_as_longlong(val));
        if (old == assumed)
            break;
    }
    return __longlong_as_double((long long)old);
}

__device__ float atomicMaxFloatBits(float *address, float val)
{
    return val >= 0.0f ? __int_as_float(atomicMax((int *)address, __float_as_int(val)))
                       : __uint_as_float(atomicMin((unsigned int *)address, __float_as_uint(val)));
}

// atomicCAS on int (first claimer of a slot wins), on unsigned long long (a
// 64-bit add as a CAS loop) and on unsigned short (16-bit counters packed two
// to a word, sm_70 and later); atomicCAS_block on a shared owner.
__global__ void atomic_cas_family(const int *want, const float *x, const double *xd, int n,
                                  int *owner, int *won, unsigned long long *sum64,
                                  unsigned short *count16, float *fmax, double *dmax,
                                  int *blockOwner)
{
    __shared__ int sOwner;
    if (threadIdx.x == 0)
        sOwner = -1;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int s = want[i];
        won[i] = atomicCAS(&owner[s], -1, i) == -1;

        unsigned long long add = (unsigned long long)i * 0x100000001ull;
        unsigned long long old = sum64[0], assumed;
        do {
            assumed = old;
            old = atomicCAS(&sum64[0], assumed, assumed + add);
        } while (old != assumed);
        atomicCAS_system(&sum64[1], 0ull, 0x1234567890abcdefull);

        unsigned short *c = &count16[s % 8];
        unsigned short o16 = *c, a16;
        do {
            a16 = o16;
            o16 = atomicCAS(c, a16, (unsigned short)(a16 + 1));
        } while (o16 != a16);

        atomicMaxFloat(&fmax[0], x[i]);
        atomicMaxFloatBits(&fmax[1], x[i]);
        atomicMaxDouble(&dmax[0], xd[i]);
        atomicCAS_block(&sOwner, -1, (int)threadIdx.x);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        blockOwner[blockIdx.x] = sOwner;
}
