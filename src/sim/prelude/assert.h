/*
 * sim/prelude/assert.h — assert() for device code, re-definable as the C
 * library's is: no include guard, so that NDEBUG decides at each include.
 */
#undef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __pcc_assert_fail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__))
#endif
