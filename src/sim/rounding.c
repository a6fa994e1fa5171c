/*
 * sim/rounding.c — the directed-rounding intrinsics of device code
 * (__fadd_rd, __fmul_ru, __dsqrt_rz, __fmaf_rd, __frcp_ru, __ll2float_rd ...):
 * each operation is computed by the host's floating-point unit in the
 * rounding mode asked for (fesetround), so the result is the correctly
 * rounded one, as on the GPU. Apart from the prelude because a kernel
 * module includes no <fenv.h> (and no host C library at all).
 *
 * The operands pass through volatile objects so that the compiler computes
 * the operation between the two fesetround calls, and never at compile time.
 */
#include <fenv.h>
#include <math.h>

#include "sim/sim.h"

static int fe_mode(int mode)
{
    switch (mode) {
    case PCC_SIM_RZ:
        return FE_TOWARDZERO;
    case PCC_SIM_RU:
        return FE_UPWARD;
    case PCC_SIM_RD:
        return FE_DOWNWARD;
    default:
        return FE_TONEAREST;
    }
}

float sim_api_fround(int op, int mode, float a, float b, float c)
{
    volatile float va = a, vb = b, vc = c, r = 0.0f;
    volatile double vd = (double)a; /* PCC_SIM_FOP_D2F takes a double: see sim_api_dround */
    int saved = fegetround();
    fesetround(fe_mode(mode));
    switch (op) {
    case PCC_SIM_FOP_ADD: r = va + vb; break;
    case PCC_SIM_FOP_SUB: r = va - vb; break;
    case PCC_SIM_FOP_MUL: r = va * vb; break;
    case PCC_SIM_FOP_DIV: r = va / vb; break;
    case PCC_SIM_FOP_FMA: r = fmaf(va, vb, vc); break;
    case PCC_SIM_FOP_SQRT: r = sqrtf(va); break;
    case PCC_SIM_FOP_RCP: r = 1.0f / va; break;
    case PCC_SIM_FOP_D2F: r = (float)vd; break;
    default: break;
    }
    fesetround(saved);
    return r;
}

double sim_api_dround(int op, int mode, double a, double b, double c)
{
    volatile double va = a, vb = b, vc = c, r = 0.0;
    volatile float rf = 0.0f;
    int saved = fegetround();
    fesetround(fe_mode(mode));
    switch (op) {
    case PCC_SIM_FOP_ADD: r = va + vb; break;
    case PCC_SIM_FOP_SUB: r = va - vb; break;
    case PCC_SIM_FOP_MUL: r = va * vb; break;
    case PCC_SIM_FOP_DIV: r = va / vb; break;
    case PCC_SIM_FOP_FMA: r = fma(va, vb, vc); break;
    case PCC_SIM_FOP_SQRT: r = sqrt(va); break;
    case PCC_SIM_FOP_RCP: r = 1.0 / va; break;
    case PCC_SIM_FOP_D2F: rf = (float)va; r = rf; break; /* double to float, exact back */
    default: break;
    }
    fesetround(saved);
    return r;
}

double sim_api_iround(int op, int mode, long long i, unsigned long long u)
{
    volatile long long vi = i;
    volatile unsigned long long vu = u;
    volatile float rf = 0.0f;
    volatile double r = 0.0;
    int saved = fegetround();
    fesetround(fe_mode(mode));
    switch (op) {
    case PCC_SIM_LL2F: rf = (float)vi; r = rf; break;
    case PCC_SIM_ULL2F: rf = (float)vu; r = rf; break;
    case PCC_SIM_LL2D: r = (double)vi; break;
    case PCC_SIM_ULL2D: r = (double)vu; break;
    default: break;
    }
    fesetround(saved);
    return r;
}
