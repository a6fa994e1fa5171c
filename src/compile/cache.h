/*
 * compile/cache.h — the on-disk compile cache: the entry store (src/compile/cache.c) and the
 * lookup side (src/compile/cache_key.c: directory, key and payload codec).
 */
#ifndef PYCUDAC_CACHE_H
#define PYCUDAC_CACHE_H

#include <stdint.h>

#include "util/crc32c.h"
#include "util/le.h"
#include "module/errors.h"
#include "core/module.h"

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

/* The same, into raw memory: 1 with *out (PyMem_RawMalloc'd, the caller
 * frees it with PyMem_RawFree) and *len, 0 on a miss (*why set), -1 with an
 * exception. The file I/O and the checksum run with the GIL released once. */
int pcc_cache_load_raw(const char *dir, const unsigned char key[32], const char *name,
                       char **out, size_t *len, const char **why);

/* The cache key's fields (src/compile/cache_key.c documents the recipe). identity
 * None: NVRTC's own, found from C. includes: NULL, None or a list of
 * (directory index, relative path, bytes). */
typedef struct {
    PyObject *format, *kind, *identity, *backend, *target, *arch, *options, *exprs, *source,
        *includes;
    int no_extern_c;
} pcc_key_args;

/* compiler.cache_path(cache_dir): the cache directory as an absolute str
 * (a TypeError naming cache_dir for a wrong type). New reference. */
PyObject *pcc_cache_path(PyObject *cache_dir);

/* The whole lookup: the cache directory of cache_dir (new reference in
 * *path, NULL when the cache is off: cache_dir False or
 * PYCUDAC_DISABLE_CACHE, and then the rest are NULL too), the key's hex
 * digest, and the decoded entry or None on a miss. The entry: with `parts`
 * NULL, *result is compiler.py's dict; else *result is True and *parts
 * holds the fields (new references, the PTX left as its UTF-8 bytes; the
 * caller releases them with pcc_result_parts_clear). 0, or -1 with an
 * exception and nothing set. */
int pcc_cache_lookup(PyObject *cache_dir, const pcc_key_args *a, PyObject **path,
                     PyObject **key_hex, PyObject **result, pcc_result_parts *parts);

/* Releases what pcc_cache_lookup put in *parts. */
void pcc_result_parts_clear(pcc_result_parts *parts);

int pcc_cache_init(PyObject *module);
int pcc_sha256_init(PyObject *module);
int pcc_cache_key_init(PyObject *module);
int pcc_crc32c_init(PyObject *module);
int pcc_cache_warm_init(PyObject *module);

/* compile() and its helpers (compile/compile.c), the nvJitLink linker
 * (compile/link.c). */
int pcc_compile_init(PyObject *module);
int pcc_link_init(PyObject *module);

#endif
