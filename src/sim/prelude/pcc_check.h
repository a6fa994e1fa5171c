/*
 * sim/prelude/pcc_check.h — check mode's half in a kernel module (a compile
 * with --pycudac-sim-check, which also turns on the host compiler's
 * thread-sanitizer instrumentation: a call before every load and store of
 * the program's code, reads told from writes, volatile ones and atomics
 * apart). The functions that instrumentation calls are defined here and
 * forwarded, with the caller's address, to the runtime (sim/check.c), which
 * is the only "sanitizer runtime" a module ever gets; memcpy and memset,
 * which the instrumentation leaves to the library, are checked as ranges;
 * the prelude's atomics are checked once, as atomics (racecheck leaves
 * them out). Without check mode the markers are empty.
 * Part of cuda_runtime.h, after __pcc_cur and __pcc_api.
 */
#pragma once

#ifdef __PCC_SIM_CHECK
#define __PCC_SIM_CHECKED 1
/* Code the instrumentation leaves alone. */
#define __PCC_NOSAN __attribute__((no_sanitize("thread")))
#define __PCC_HOOK __attribute__((no_sanitize("thread"), noinline, used))
/* One access for the runtime to check; the kernel's own __pcc_cur (the
 * prelude's, which every runtime call saves and restores) is not memory of
 * the program's. */
#define __PCC_CHK(p, n, flags)                                                                 \
    do {                                                                                       \
        pcc_sim_thread *const *__pcc_c = &__pcc_cur;                                           \
        const pcc_sim_api *__pcc_a = __pcc_api; /* NULL until the module's init */            \
        if (__pcc_a && (unsigned long)(p) - (unsigned long)__pcc_c >= sizeof *__pcc_c)         \
            __pcc_a->check(*__pcc_c, (const void *)(p), (n), (flags), __builtin_return_address(0)); \
    } while (0)
#define __PCC_CHK_ATOMIC(p)                                                                    \
    __PCC_CHK(p, sizeof *(p), PCC_SIM_CHK_READ | PCC_SIM_CHK_WRITE | PCC_SIM_CHK_ATOMIC |      \
                                  PCC_SIM_CHK_ALIGNED)

extern "C" {
/* What GCC's and Clang's -fsanitize=thread call. A plain sized one is used
 * where the type is aligned to its size, an unaligned one where it may not
 * be; volatile ones with tsan-distinguish-volatile. */
#define __PCC_CHK_FN(N)                                                                        \
    __PCC_HOOK void __tsan_read##N(void *a) { __PCC_CHK(a, N, PCC_SIM_CHK_ALIGNED); }          \
    __PCC_HOOK void __tsan_write##N(void *a)                                                   \
    {                                                                                          \
        __PCC_CHK(a, N, PCC_SIM_CHK_ALIGNED | PCC_SIM_CHK_WRITE);                              \
    }                                                                                          \
    __PCC_HOOK void __tsan_volatile_read##N(void *a)                                           \
    {                                                                                          \
        __PCC_CHK(a, N, PCC_SIM_CHK_ALIGNED | PCC_SIM_CHK_VOLATILE);                           \
    }                                                                                          \
    __PCC_HOOK void __tsan_volatile_write##N(void *a)                                          \
    {                                                                                          \
        __PCC_CHK(a, N, PCC_SIM_CHK_ALIGNED | PCC_SIM_CHK_WRITE | PCC_SIM_CHK_VOLATILE);       \
    }                                                                                          \
    __PCC_HOOK void __tsan_unaligned_read##N(void *a) { __PCC_CHK(a, N, 0); }                  \
    __PCC_HOOK void __tsan_unaligned_write##N(void *a) { __PCC_CHK(a, N, PCC_SIM_CHK_WRITE); } \
    __PCC_HOOK void __tsan_unaligned_volatile_read##N(void *a)                                 \
    {                                                                                          \
        __PCC_CHK(a, N, PCC_SIM_CHK_VOLATILE);                                                 \
    }                                                                                          \
    __PCC_HOOK void __tsan_unaligned_volatile_write##N(void *a)                                \
    {                                                                                          \
        __PCC_CHK(a, N, PCC_SIM_CHK_WRITE | PCC_SIM_CHK_VOLATILE);                             \
    }
__PCC_CHK_FN(1)
__PCC_CHK_FN(2)
__PCC_CHK_FN(4)
__PCC_CHK_FN(8)
__PCC_CHK_FN(16)
#undef __PCC_CHK_FN
__PCC_HOOK void __tsan_read_range(void *a, unsigned long n) { __PCC_CHK(a, n, 0); }
__PCC_HOOK void __tsan_write_range(void *a, unsigned long n) { __PCC_CHK(a, n, PCC_SIM_CHK_WRITE); }
__PCC_HOOK void __tsan_vptr_read(void **p) { __PCC_CHK(p, sizeof *p, PCC_SIM_CHK_ALIGNED); }
__PCC_HOOK void __tsan_vptr_update(void **p, void *v)
{
    (void)v;
    __PCC_CHK(p, sizeof *p, PCC_SIM_CHK_ALIGNED | PCC_SIM_CHK_WRITE);
}
/* the module's constructor calls it; function entries are not instrumented
 * (tsan-instrument-func-entry-exit=0), but a compiler may still call them.
 * The fences are uninstrumented themselves: instrumented, the fence in each
 * would be a call to itself. */
__attribute__((used)) void __tsan_init(void) {}
__attribute__((used)) void __tsan_func_entry(void *pc) { (void)pc; }
__attribute__((used)) void __tsan_func_exit(void) {}
__PCC_HOOK void __tsan_atomic_thread_fence(int mo)
{
    (void)mo;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
__PCC_HOOK void __tsan_atomic_signal_fence(int mo)
{
    (void)mo;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Atomics the program's own code makes (the builtins; libcu++'s atomics):
 * checked as atomics, then done sequentially consistent. */
#define __PCC_AT_RMW(N, T, OP, BUILTIN)                                                        \
    __PCC_HOOK T __tsan_atomic##N##_##OP(volatile T *a, T v, int mo)                           \
    {                                                                                          \
        (void)mo;                                                                              \
        __PCC_CHK(a, sizeof(T), PCC_SIM_CHK_READ | PCC_SIM_CHK_WRITE | PCC_SIM_CHK_ATOMIC |     \
                                    PCC_SIM_CHK_ALIGNED);                                      \
        return BUILTIN(a, v, __ATOMIC_SEQ_CST);                                                \
    }
#define __PCC_AT_ALL(N, T)                                                                     \
    __PCC_HOOK T __tsan_atomic##N##_load(const volatile T *a, int mo)                          \
    {                                                                                          \
        (void)mo;                                                                              \
        __PCC_CHK(a, sizeof(T), PCC_SIM_CHK_ATOMIC | PCC_SIM_CHK_ALIGNED);                     \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                           \
    }                                                                                          \
    __PCC_HOOK void __tsan_atomic##N##_store(volatile T *a, T v, int mo)                       \
    {                                                                                          \
        (void)mo;                                                                              \
        __PCC_CHK(a, sizeof(T), PCC_SIM_CHK_WRITE | PCC_SIM_CHK_ATOMIC | PCC_SIM_CHK_ALIGNED);  \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                              \
    }                                                                                          \
    __PCC_AT_RMW(N, T, exchange, __atomic_exchange_n)                                          \
    __PCC_AT_RMW(N, T, fetch_add, __atomic_fetch_add)                                          \
    __PCC_AT_RMW(N, T, fetch_sub, __atomic_fetch_sub)                                          \
    __PCC_AT_RMW(N, T, fetch_and, __atomic_fetch_and)                                          \
    __PCC_AT_RMW(N, T, fetch_or, __atomic_fetch_or)                                            \
    __PCC_AT_RMW(N, T, fetch_xor, __atomic_fetch_xor)                                          \
    __PCC_AT_RMW(N, T, fetch_nand, __atomic_fetch_nand)                                        \
    __PCC_HOOK int __tsan_atomic##N##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, \
                                                              int fmo)                         \
    {                                                                                          \
        (void)mo;                                                                              \
        (void)fmo;                                                                             \
        __PCC_CHK(a, sizeof(T), PCC_SIM_CHK_READ | PCC_SIM_CHK_WRITE | PCC_SIM_CHK_ATOMIC |     \
                                    PCC_SIM_CHK_ALIGNED);                                      \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    }                                                                                          \
    __PCC_HOOK int __tsan_atomic##N##_compare_exchange_weak(volatile T *a, T *c, T v, int mo,   \
                                                            int fmo)                           \
    {                                                                                          \
        return __tsan_atomic##N##_compare_exchange_strong(a, c, v, mo, fmo);                   \
    }                                                                                          \
    __PCC_HOOK T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T c, T v, int mo, int fmo) \
    {                                                                                          \
        __tsan_atomic##N##_compare_exchange_strong(a, &c, v, mo, fmo);                         \
        return c;                                                                              \
    }
__PCC_AT_ALL(8, unsigned char)
__PCC_AT_ALL(16, unsigned short)
__PCC_AT_ALL(32, unsigned int)
__PCC_AT_ALL(64, unsigned long long)
#undef __PCC_AT_ALL
#undef __PCC_AT_RMW

/* The module's own memcpy, memmove and memset (every call in it binds
 * here, the compiler's own for large copies too): both ranges checked,
 * then copied byte by byte — a library call would come straight back. */
__attribute__((no_sanitize("thread"), always_inline, optimize("no-tree-loop-distribute-patterns")))
static inline void __pcc_move(void *d, const void *s, size_t n)
{
    unsigned char *o = (unsigned char *)d;
    const unsigned char *i = (const unsigned char *)s;
    if (o < i)
        for (size_t k = 0; k < n; k++)
            o[k] = i[k];
    else
        for (size_t k = n; k-- > 0;)
            o[k] = i[k];
}
#define __PCC_MOVE_FN(NAME)                                                                        __PCC_HOOK void *NAME(void *d, const void *s, size_t n) noexcept                               {                                                                                                  if (n) {                                                                                           __PCC_CHK(s, n, 0);                                                                            __PCC_CHK(d, n, PCC_SIM_CHK_WRITE);                                                        }                                                                                              __pcc_move(d, s, n);                                                                           return d;                                                                                  }
__PCC_MOVE_FN(memmove)
__PCC_MOVE_FN(memcpy)
__PCC_MOVE_FN(__tsan_memcpy)
__PCC_MOVE_FN(__tsan_memmove)
#undef __PCC_MOVE_FN
#define __PCC_SET_FN(NAME)                                                                         __PCC_HOOK __attribute__((optimize("no-tree-loop-distribute-patterns")))                       void *NAME(void *d, int c, size_t n) noexcept                                                  {                                                                                                  if (n)                                                                                             __PCC_CHK(d, n, PCC_SIM_CHK_WRITE);                                                        unsigned char *o = (unsigned char *)d;                                                         for (size_t k = 0; k < n; k++)                                                                     o[k] = (unsigned char)c;                                                                   return d;                                                                                  }
__PCC_SET_FN(memset)
__PCC_SET_FN(__tsan_memset)
#undef __PCC_SET_FN
}
#else
#define __PCC_SIM_CHECKED 0
#define __PCC_NOSAN
#define __PCC_CHK_ATOMIC(p) ((void)0)
#endif
