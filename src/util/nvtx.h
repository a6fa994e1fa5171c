/*
 * util/nvtx.h — NVTX ranges and marks for profilers (src/util/nvtx.c): the
 * client side of NVTX's injection protocol, with no NVIDIA header or
 * library. Plain C.
 *
 * With no tool attached every call costs one load and one branch: the
 * state is read once (the first call looks for NVTX_INJECTION64_PATH) and
 * stays "off". pycudac's own ranges go to the "pycudac" domain, the user's
 * (pycudac.profile) to NVTX's default domain.
 */
#ifndef PYCUDAC_NVTX_H
#define PYCUDAC_NVTX_H

#include <stdint.h>

enum { PCC_NVTX_UNKNOWN = 0, PCC_NVTX_OFF = 1, PCC_NVTX_ON = 2 };

/* The state (PCC_NVTX_*); written once, by pcc_nvtx_init. */
extern volatile int pcc_nvtx_state;

/* Looks for a tool (once per process) and returns the state. */
int pcc_nvtx_init(void);

/* Whether ranges go anywhere (looks for a tool on first use). */
static inline int pcc_nvtx_active(void)
{
    int s = pcc_nvtx_state;
    if (__builtin_expect(s == PCC_NVTX_OFF, 1))
        return 0;
    return (s == PCC_NVTX_UNKNOWN ? pcc_nvtx_init() : s) == PCC_NVTX_ON;
}

/* The user's ranges and marks (default domain). argb 0: no color. */
void pcc_nvtx_push(const char *message, uint32_t argb);
void pcc_nvtx_pop(void);
void pcc_nvtx_mark(const char *message, uint32_t argb);

/* pycudac's own work, in the "pycudac" domain: call only when
 * pcc_nvtx_active(), and pop what was pushed. */
void pcc_nvtx_own_push(const char *message, uint32_t argb);
void pcc_nvtx_own_pop(void);

/* Colors of pycudac's own ranges. */
#define PCC_NVTX_COMPILE 0xFFE69F00u
#define PCC_NVTX_LINK 0xFFD55E00u
#define PCC_NVTX_LOAD 0xFF56B4E9u
#define PCC_NVTX_LAUNCH 0xFF009E73u

#endif
