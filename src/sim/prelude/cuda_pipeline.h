/*
 * sim/prelude/cuda_pipeline.h — <cuda_pipeline.h> and
 * <cuda_pipeline_primitives.h> for the CPU simulator: the asynchronous copy
 * primitives of the Programming Guide's "Asynchronous Data Copies" (Ampere's
 * cp.async), as kernels that stage global memory into shared memory use
 * them.
 *
 * A copy is done when __pipeline_memcpy_async returns, which is one of the
 * orders a GPU may show: there, a thread sees its own copies after
 * __pipeline_wait_prior, and other threads' after a barrier as well; code
 * that reads them earlier is wrong on both (check mode's racecheck names a
 * read of another thread's copy made without a barrier between). The size
 * must be 4, 8 or 16 bytes, aligned so on both sides, zfill at most the
 * size: anything else stops the kernel with the rule it broke.
 */
#pragma once
#include "cuda_runtime.h"

extern "C++" {
#pragma GCC visibility push(hidden)

static inline void __pipeline_memcpy_async(void *__restrict__ dst, const void *__restrict__ src,
                                           size_t size_and_align, size_t zfill = 0)
{
    if ((size_and_align != 4 && size_and_align != 8 && size_and_align != 16) ||
        zfill > size_and_align)
        __pcc_api->trap(__pcc_cur, 719, "__pipeline_memcpy_async: size_and_align must be 4, 8 "
                                        "or 16 and zfill at most size_and_align");
    if (((unsigned long)dst | (unsigned long)src) & (size_and_align - 1))
        __pcc_api->trap(__pcc_cur, 716, "__pipeline_memcpy_async: dst and src must be aligned "
                                        "to size_and_align (misaligned address)");
    size_t copied = size_and_align - zfill;
    memcpy(dst, src, copied);
    memset((char *)dst + copied, 0, zfill);
}

/* Batches and waits: every copy is already complete. */
static inline void __pipeline_commit(void) {}
static inline void __pipeline_wait_prior(size_t prior) { (void)prior; }

namespace nvcuda {
namespace experimental {
/* The pipeline object of <cuda_pipeline.h> (deprecated by CUDA, still in
 * its samples' idiom): commit() numbers the batches, the waits return. */
class pipeline {
  public:
    pipeline() : _stage(0) {}
    unsigned int commit() { __pipeline_commit(); return _stage++; }
    void commit_and_wait() { __pipeline_commit(); _stage++; }
    void wait(unsigned int) {}
    template <unsigned int Prior> void wait_prior() {}
    pipeline(const pipeline &) = delete;
    pipeline &operator=(const pipeline &) = delete;

  private:
    unsigned int _stage;
};

template <class T> static inline void memcpy_async(T &dst, const T &src, pipeline &)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                  "memcpy_async: the type must be 4, 8 or 16 bytes");
    __pipeline_memcpy_async(&dst, &src, sizeof(T));
}
} // namespace experimental
} // namespace nvcuda

#pragma GCC visibility pop
}
