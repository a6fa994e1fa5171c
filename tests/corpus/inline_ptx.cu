// Inline PTX as CUB's and CUTLASS's helpers write it: one asm volatile statement
// per instruction with "r" / "l" constraints (CUB's BFE / BFI / PRMT / SHL_ADD
// wrappers, CUTLASS's lop3 and funnel shifts), carry chains kept inside a single
// statement so nothing separates add.cc from the addc that consumes its carry
// (multi-word adds, and a 64 x 64 -> 128-bit product from mad.lo.cc / madc.hi),
// the special registers %laneid and %lanemask_* read with mov, vote.sync.ballot on
// a predicate set with setp, and CUB's WarpScanShfl step: shfl.sync.up returning
// the in-range predicate that guards an `@p add`. The pycudac CPU simulator
// cannot run inline PTX (docs/simulator.md): it refuses this file with a
// CompileError naming `asm`; NVRTC accepts it and the GPU runs it.

// ---------------------------------------------------------------- bit operations

// Eighteen results per element (n elements): o[18 * i + k], k in the order below.
__global__ void ptx_bit_ops(const unsigned int *a, const unsigned int *b, const unsigned int *c,
                            const unsigned int *pos, const unsigned int *len, unsigned int *o,
                            int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned int x = a[i], y = b[i], z = c[i], p = pos[i], l = len[i];
    unsigned int r[18];
    // bit field extract (zero- and sign-filled) of x at p, l; insert x's low l bits into y
    asm volatile("bfe.u32 %0, %1, %2, %3;" : "=r"(r[0]) : "r"(x), "r"(p), "r"(l));
    asm volatile("bfe.s32 %0, %1, %2, %3;" : "=r"(r[1]) : "r"(x), "r"(p), "r"(l));
    asm volatile("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(p), "r"(l));
    // bytes of {y, x} picked by z's four selector nibbles
    asm volatile("prmt.b32 %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(z));
    // three-input logic: xor, majority, select (x ? y : z), x ^ (y | z)
    asm volatile("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(z));
    asm volatile("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(z));
    asm volatile("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(r[6]) : "r"(x), "r"(y), "r"(z));
    asm volatile("lop3.b32 %0, %1, %2, %3, 0x1E;" : "=r"(r[7]) : "r"(x), "r"(y), "r"(z));
    // funnel shifts of the 64-bit {y, x}: left by p mod 32 (high word), right by
    // min(p, 32) (low word)
    asm volatile("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r[8]) : "r"(x), "r"(y), "r"(p));
    asm volatile("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r[9]) : "r"(x), "r"(y), "r"(p));
    // bit reverse, population count, leading zeros, most significant bit (as a
    // position, as a shift amount, and the signed form: the highest non-sign bit)
    asm volatile("brev.b32 %0, %1;" : "=r"(r[10]) : "r"(x));
    asm volatile("popc.b32 %0, %1;" : "=r"(r[11]) : "r"(x));
    asm volatile("clz.b32 %0, %1;" : "=r"(r[12]) : "r"(x));
    asm volatile("bfind.u32 %0, %1;" : "=r"(r[13]) : "r"(x));
    asm volatile("bfind.shiftamt.u32 %0, %1;" : "=r"(r[14]) : "r"(x));
    asm volatile("bfind.s32 %0, %1;" : "=r"(r[15]) : "r"(x));
    // x * y + z (low word), and the dot product of the signed bytes of x and y plus z
    asm volatile("mad.lo.s32 %0, %1, %2, %3;" : "=r"(r[16]) : "r"(x), "r"(y), "r"(z));
    asm volatile("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r[17]) : "r"(x), "r"(y), "r"(z));
    for (int k = 0; k < 18; ++k)
        o[18 * i + k] = r[k];
}

// ---------------------------------------------------------------- carry chains

// o64[5 * i ...]: x + y and x - y from 32-bit halves with the carry / borrow flag,
// the final borrow as a 32-bit mask (0xffffffff when x < y), the widening products
// of x's and y's low words (signed) and of their high words (unsigned).
// o128[9 * i ...]: the five words of the 128-bit sum of a[4i..4i+3] and
// b[4i..4i+3] (least significant first), then the four words of x * y.
__global__ void ptx_carry_chain(const unsigned long long *x, const unsigned long long *y,
                                const unsigned int *a, const unsigned int *b,
                                unsigned long long *o64, unsigned int *o128, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long xv = x[i], yv = y[i];
    unsigned int x0 = (unsigned int)xv, x1 = (unsigned int)(xv >> 32);
    unsigned int y0 = (unsigned int)yv, y1 = (unsigned int)(yv >> 32);
    unsigned int s0, s1, d0, d1, borrow;
    asm volatile("add.cc.u32 %0, %2, %4;\n\t"
                 "addc.u32 %1, %3, %5;"
                 : "=&r"(s0), "=r"(s1) : "r"(x0), "r"(x1), "r"(y0), "r"(y1));
    asm volatile("sub.cc.u32 %0, %3, %5;\n\t"
                 "subc.cc.u32 %1, %4, %6;\n\t"
                 "subc.u32 %2, 0, 0;"
                 : "=&r"(d0), "=&r"(d1), "=r"(borrow) : "r"(x0), "r"(x1), "r"(y0), "r"(y1));
    unsigned long long lo_prod, hi_prod;
    asm volatile("mul.wide.s32 %0, %1, %2;" : "=l"(lo_prod) : "r"(x0), "r"(y0));
    asm volatile("mul.wide.u32 %0, %1, %2;" : "=l"(hi_prod) : "r"(x1), "r"(y1));
    unsigned long long *p = o64 + 5 * i;
    p[0] = ((unsigned long long)s1 << 32) | s0;
    p[1] = ((unsigned long long)d1 << 32) | d0;
    p[2] = borrow;
    p[3] = lo_prod;
    p[4] = hi_prod;

    const unsigned int *av = a + 4 * i, *bv = b + 4 * i;
    unsigned int *q = o128 + 9 * i;
    unsigned int w0, w1, w2, w3, w4;
    asm volatile("add.cc.u32 %0, %5, %9;\n\t"
                 "addc.cc.u32 %1, %6, %10;\n\t"
                 "addc.cc.u32 %2, %7, %11;\n\t"
                 "addc.cc.u32 %3, %8, %12;\n\t"
                 "addc.u32 %4, 0, 0;"
                 : "=&r"(w0), "=&r"(w1), "=&r"(w2), "=&r"(w3), "=r"(w4)
                 : "r"(av[0]), "r"(av[1]), "r"(av[2]), "r"(av[3]),
                   "r"(bv[0]), "r"(bv[1]), "r"(bv[2]), "r"(bv[3]));
    q[0] = w0; q[1] = w1; q[2] = w2; q[3] = w3; q[4] = w4;

    // schoolbook 64 x 64 -> 128: partial products added into the column they belong
    // to, each carry taken by the next column's madc / addc
    unsigned int m0, m1, m2, m3;
    asm volatile("mul.lo.u32 %0, %4, %6;\n\t"
                 "mul.hi.u32 %1, %4, %6;\n\t"
                 "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
                 "madc.hi.u32 %2, %4, %7, 0;\n\t"
                 "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
                 "madc.hi.cc.u32 %2, %5, %6, %2;\n\t"
                 "madc.hi.u32 %3, %5, %7, 0;\n\t"
                 "mad.lo.cc.u32 %2, %5, %7, %2;\n\t"
                 "addc.u32 %3, %3, 0;"
                 : "=&r"(m0), "=&r"(m1), "=&r"(m2), "=&r"(m3)
                 : "r"(x0), "r"(x1), "r"(y0), "r"(y1));
    q[5] = m0; q[6] = m1; q[7] = m2; q[8] = m3;
}

// ---------------------------------------------------------------- lanes, vote, scan

// A 2D block (8 x 12: three warps of linear thread ids). o[8 * i ...]: %laneid,
// %lanemask_lt, _le, _gt, _ge, _eq, the warp's ballot of v < 0 and this lane's rank
// among those lanes. s: inclusive scan of v over each half warp (logical warps of
// 16 lanes: shfl.sync.up with c = 16 << 8), t: the half warp's total at every lane
// (shfl.sync.idx from the segment's lane 15, c = (16 << 8) | 31).
__global__ void ptx_warp_scan(const int *v, unsigned int *o, int *s, int *t)
{
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int i = blockIdx.x * (blockDim.x * blockDim.y) + tid;
    int x = v[i];
    unsigned int lane, lt, le, gt, ge, eq, neg, rank;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    asm volatile("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm volatile("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.lt.s32 p, %1, 0;\n\t"
                 "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t"
                 "}"
                 : "=r"(neg) : "r"(x));
    asm volatile("{\n\t"
                 ".reg .b32 m;\n\t"
                 "and.b32 m, %1, %2;\n\t"
                 "popc.b32 %0, m;\n\t"
                 "}"
                 : "=r"(rank) : "r"(neg), "r"(lt));
    unsigned int *p = o + 8 * i;
    p[0] = lane; p[1] = lt; p[2] = le; p[3] = gt;
    p[4] = ge; p[5] = eq; p[6] = neg; p[7] = rank;

    int sum = x;
    for (int offset = 1; offset < 16; offset <<= 1) {
        asm volatile("{\n\t"
                     ".reg .s32 r;\n\t"
                     ".reg .pred p;\n\t"
                     "shfl.sync.up.b32 r|p, %1, %2, 0x1000, 0xffffffff;\n\t"
                     "@p add.s32 r, r, %1;\n\t"
                     "mov.s32 %0, r;\n\t"
                     "}"
                     : "=r"(sum) : "r"(sum), "r"(offset));
    }
    int total;
    asm volatile("shfl.sync.idx.b32 %0, %1, 15, 0x101f, 0xffffffff;" : "=r"(total) : "r"(sum));
    s[i] = sum;
    t[i] = total;
}
