/*
 * compile/c_headers.h — the C library stand-ins every compile gets
 * (compile/c_headers.c).
 */
#ifndef PYCUDAC_COMPILE_C_HEADERS_H
#define PYCUDAC_COMPILE_C_HEADERS_H

/* Bump with any change of the stand-ins' text: it is in the cache key. */
#define PCC_C_HEADERS_VERSION 1

/* The stand-ins: their count; names and texts in *out_names, *out_texts. */
int pcc_c_headers(const char *const **out_names, const char *const **out_texts);

#endif
