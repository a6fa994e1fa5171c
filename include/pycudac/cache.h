/*
 * cache.h — the on-disk compile cache: the entry store (src/cache.c) and the
 * lookup side (src/cache_key.c: directory, key and payload codec).
 */
#ifndef PYCUDAC_CACHE_H
#define PYCUDAC_CACHE_H

#include "errors.h"

#define PCC_KEY_HEX 64
#define PCC_CACHE_SUFFIX ".pcc"
/* "<64 hex digits>.pcc" and its NUL */
#define PCC_ENTRY_NAME_LEN (PCC_KEY_HEX + sizeof PCC_CACHE_SUFFIX)

/* SHA-256 of [p, p+n) into out[32] (hashlib's). 0, or -1 with an exception. */
int pcc_sha256(const void *p, size_t n, unsigned char out[32]);

/* The entry file name of a key digest. */
void pcc_entry_name(const unsigned char key[32], char name[PCC_ENTRY_NAME_LEN]);

/* The verified payload (bytes) of entry `name` (holding `key`) in `dir`,
 * or NULL with *why set (a miss), or NULL with an exception set (only for
 * failures of Python itself). Releases the GIL around the file I/O. */
PyObject *pcc_cache_load(const char *dir, const unsigned char key[32], const char *name,
                         const char **why);

int pcc_cache_init(PyObject *module);
int pcc_cache_key_init(PyObject *module);

#endif
