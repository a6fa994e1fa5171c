/*
 * compile/cache.c — the on-disk compile cache store: one file per entry, safe against
 * other users, torn writes and concurrent writers.
 *
 * An entry is `<key hex>.pcc` in the cache directory: a fixed header (magic,
 * format version, the 32-byte key digest, payload length, the payload's
 * CRC-32C in a 32-byte field) and the payload. What the payload means is
 * compile/cache_key.c's business.
 *
 * Safety rules (DESIGN.md "Compile and cache"):
 * - The directory is checked on every use: ours (owner = effective uid), a
 *   real directory (not a symlink), not writable by group or others. A
 *   write opens it with O_NOFOLLOW, checks it through its descriptor and
 *   works relative to it.
 * - A read (the warm start, which pays for every syscall) checks the
 *   directory with one lstat and opens the entry by its full path with
 *   O_NOFOLLOW|O_NONBLOCK (through the directory's descriptor, as a write
 *   does, when the joined path would not fit in PATH_MAX). The file's own
 *   checks are what keep others out even if the directory were swapped
 *   between the two calls: regular, ours (no other user can make a file
 *   ours), not writable by others, size = header + payload; then every
 *   header field (the key among them) and the checksum. Any failure is a
 *   miss, never an error.
 * - A write goes to a fresh temporary name (O_CREAT|O_EXCL|O_NOFOLLOW, 0600)
 *   in the same directory and is renamed into place, so a reader sees the
 *   old entry or the whole new one. Many processes may store the same key at
 *   once: the last rename wins, every version is complete.
 * - After a store, entries beyond the size cap are evicted oldest-first by
 *   mtime (a hit touches its entry), never the one just written.
 * The checksum catches damaged files (a torn write cannot happen, see
 * above; disks and copies can still corrupt); keeping others out is the
 * directory check's job, not the checksum's. So it is CRC-32C
 * (src/util/crc32c.c), not a cryptographic hash: a warm start verifies the whole
 * entry, and on the H100 host SHA-256 of a 14 KB CUBIN took 16-22 µs.
 * The key's SHA-256 is OpenSSL's (src/compile/sha256.c); file I/O runs with the
 * GIL released.
 */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "compile/cache.h"

#define PCC_CACHE_MAGIC "PCCCACHE"
#define PCC_CACHE_FORMAT 3u /* 1: the checksum was SHA-256, 2: zlib's CRC-32 */
#define PCC_CACHE_HEADER 88 /* 8 magic + 4 format + 4 header size + 32 key + 8 len + 32 sum */
#define PCC_CACHE_TMP_PREFIX ".tmp-"
/* Refuse absurd entries before allocating for them: no compile makes 1 GiB
 * (the cache's whole default size); a larger file is damage or mischief. */
#define PCC_CACHE_MAX_ENTRY ((uint64_t)1 << 30)
/* Temporary files older than this were left by a crashed writer. */
#define PCC_CACHE_STALE_TMP_S 600

/* ---- small helpers ------------------------------------------------------------ */

/* key_hex (64 lowercase or uppercase hex digits) → 32 bytes. 0 or -1 + ValueError. */
static int parse_key(PyObject *key_hex, unsigned char key[32], char name[PCC_ENTRY_NAME_LEN])
{
    Py_ssize_t n;
    const char *s = PyUnicode_Check(key_hex) ? PyUnicode_AsUTF8AndSize(key_hex, &n) : NULL;
    if (s == NULL || n != PCC_KEY_HEX) {
        PyErr_Clear();
        PyErr_SetString(PyExc_ValueError, "key must be a SHA-256 hex digest (64 hex digits)");
        return -1;
    }
    for (int i = 0; i < 32; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[2 * i + k];
            int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
            if (d < 0) {
                PyErr_SetString(PyExc_ValueError,
                                "key must be a SHA-256 hex digest (64 hex digits)");
                return -1;
            }
            v = v * 16 + d;
        }
        key[i] = (unsigned char)v;
    }
    pcc_entry_name(key, name);
    return 0;
}

void pcc_entry_name(const unsigned char key[32], char name[PCC_ENTRY_NAME_LEN])
{
    static const char hexd[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        name[2 * i] = hexd[key[i] >> 4];
        name[2 * i + 1] = hexd[key[i] & 15];
    }
    memcpy(name + PCC_KEY_HEX, PCC_CACHE_SUFFIX, sizeof PCC_CACHE_SUFFIX);
}

/* Why directory `st` is not one to use (a static reason, errno set), or
 * NULL: a directory, ours (`me` is geteuid(), asked once per operation),
 * not writable by group or others. */
static const char *dir_refusal(const struct stat *st, uid_t me)
{
    if (!S_ISDIR(st->st_mode)) {
        errno = S_ISLNK(st->st_mode) ? ELOOP : ENOTDIR;
        return S_ISLNK(st->st_mode) ? "is a symbolic link or not a directory"
                                    : "is not a directory";
    }
    if (st->st_uid != me) {
        errno = EPERM;
        return "is owned by another user";
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        errno = EPERM;
        return "is writable by group or others";
    }
    return NULL;
}

/* Opens the cache directory for use (O_NOFOLLOW, then dir_refusal through
 * the descriptor). Returns the fd, or -1 with errno set and *why a static
 * reason (no GIL needed). */
static int open_cache_dir(const char *dir, uid_t me, const char **why)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        *why = errno == ELOOP || errno == ENOTDIR ? "is a symbolic link or not a directory"
                                                  : "cannot be opened";
        return -1;
    }
    struct stat st;
    if (fstat(dfd, &st) < 0)
        *why = "cannot be examined";
    else if ((*why = dir_refusal(&st, me)) == NULL)
        return dfd;
    int saved = errno;
    close(dfd);
    errno = saved;
    return -1;
}

/* The entry checksum of [p, p+n): CRC-32C, little-endian, in the first 4
 * of the header's 32 checksum bytes (the rest zero). Needs no GIL. */
static void entry_checksum(const void *p, size_t n, unsigned char out[32])
{
    memset(out, 0, 32);
    put_u32(out, pcc_crc32c(p, n, 1));
}

/* ---- load ------------------------------------------------------------------------ */

/* Opens entry `name` of directory `dir` for reading: with one lstat of the
 * directory and an open of the entry's full path (the file's own checks in
 * open_entry are what hold if the directory changed in between: see the
 * top of this file), or, for a path too long to join, through the
 * directory's descriptor as a write does. The fd, or -1 with *why set. */
static int open_in_dir(const char *dir, const char *name, uid_t me, const char **why)
{
    int flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, fd;
    char path[PATH_MAX];
    size_t dlen = strlen(dir);
    if (dlen + 1 + PCC_ENTRY_NAME_LEN <= sizeof path) {
        struct stat st;
        if (fstatat(AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            *why = "cannot be opened";
            return -1;
        }
        if ((*why = dir_refusal(&st, me)) != NULL)
            return -1;
        memcpy(path, dir, dlen);
        path[dlen] = '/';
        memcpy(path + dlen + 1, name, PCC_ENTRY_NAME_LEN); /* with its NUL */
        fd = open(path, flags);
    } else {
        int dfd = open_cache_dir(dir, me, why);
        if (dfd < 0)
            return -1;
        fd = openat(dfd, name, flags);
        int saved = errno;
        close(dfd);
        errno = saved;
    }
    if (fd < 0)
        *why = errno == ENOENT ? "no entry" : errno == ELOOP ? "entry is a symbolic link"
                                                             : "entry cannot be opened";
    return fd;
}

/* Phase 1 of a load, without the GIL: open and check the entry. Returns the
 * file fd, or -1 with *why set. */
static int open_entry(const char *dir, const char *name, uint64_t *size, time_t *mtime,
                      const char **why)
{
    uid_t me = geteuid();
    struct stat st;
    int fd = open_in_dir(dir, name, me, why);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0)
        *why = "entry cannot be examined";
    else if (!S_ISREG(st.st_mode))
        *why = "entry is not a regular file";
    else if (st.st_uid != me)
        *why = "entry is owned by another user";
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        *why = "entry is writable by group or others";
    else if ((uint64_t)st.st_size < PCC_CACHE_HEADER)
        *why = "entry is truncated (shorter than its header)";
    else if ((uint64_t)st.st_size > PCC_CACHE_MAX_ENTRY)
        *why = "entry is implausibly large";
    else {
        *size = (uint64_t)st.st_size;
        if (mtime)
            *mtime = st.st_mtime;
        return fd;
    }
    close(fd);
    return -1;
}

/* Reads exactly n bytes at offset off. 0 or -1. */
static int read_all(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = pread(fd, p, n, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
        off += r;
    }
    return 0;
}

/* Reads the header and then the payload in one preadv. 0 or -1. */
static int read_entry(int fd, unsigned char *header, char *payload, size_t len)
{
    struct iovec iov[2] = {{header, PCC_CACHE_HEADER}, {payload, len}};
    ssize_t r;
    do
        r = preadv(fd, iov, 2, 0);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return -1;
    size_t got = (size_t)r;
    if (got < PCC_CACHE_HEADER) /* a short read: take the rest piece by piece */
        return read_all(fd, header + got, PCC_CACHE_HEADER - got, (off_t)got) < 0
                   ? -1
                   : read_all(fd, payload, len, PCC_CACHE_HEADER);
    got -= PCC_CACHE_HEADER;
    return got == len ? 0 : read_all(fd, payload + got, len - got, (off_t)(PCC_CACHE_HEADER + got));
}

/* A hit refreshes its entry's mtime for the LRU eviction, unless it is
 * already less than this old: the order among entries used within the same
 * minute does not matter, and the write is a syscall on every warm start. */
#define PCC_CACHE_TOUCH_AFTER_S 60

int pcc_cache_load_raw(const char *dir, const unsigned char key[32], const char *name,
                       char **out, size_t *out_len, const char **why)
{
    int fd = -1, ok = 0, nomem = 0;
    uint64_t size = 0;
    time_t mtime = 0;
    unsigned char header[PCC_CACHE_HEADER], digest[32];
    char *payload = NULL;
    size_t len = 0;

    *out = NULL;
    *out_len = 0;
    /* open, read and checksum with the GIL released once: the payload goes
     * to raw memory (PyMem_RawMalloc needs no GIL) */
    Py_BEGIN_ALLOW_THREADS
    fd = open_entry(dir, name, &size, &mtime, why);
    if (fd >= 0) {
        /* the payload is what the file holds past the header; the header
         * must agree, which is checked once both are read */
        len = (size_t)(size - PCC_CACHE_HEADER);
        payload = PyMem_RawMalloc(len ? len : 1);
        nomem = payload == NULL;
        ok = payload != NULL && read_entry(fd, header, payload, len) == 0;
        if (ok)
            entry_checksum(payload, len, digest);
    }
    Py_END_ALLOW_THREADS
    if (fd < 0)
        goto done;
    if (nomem) /* a miss like any other unusable entry, never a MemoryError */
        *why = "entry is too large to read into memory";
    else if (!ok)
        *why = "entry cannot be read";
    else if (memcmp(header, PCC_CACHE_MAGIC, 8) != 0)
        *why = "entry has a bad magic number (not a pycudac cache file)";
    else if (get_u32(header + 8) != PCC_CACHE_FORMAT)
        *why = "entry is from another cache format version";
    else if (get_u32(header + 12) != PCC_CACHE_HEADER)
        *why = "entry has a bad header size";
    else if (memcmp(header + 16, key, 32) != 0)
        *why = "entry holds another key";
    else if (get_u64(header + 48) != len)
        *why = "entry length does not match its header (truncated or extended)";
    else if (memcmp(digest, header + 56, 32) != 0)
        *why = "entry checksum does not verify";
    else
        ok = 2;
    if (ok != 2)
        goto done;
    if (time(NULL) - mtime >= PCC_CACHE_TOUCH_AFTER_S)
        (void)futimens(fd, NULL);
    *why = NULL;
    *out = payload;
    *out_len = len;
    payload = NULL;
done:
    PyMem_RawFree(payload);
    if (fd >= 0)
        close(fd);
    if (*out != NULL)
        return 1;
    return PyErr_Occurred() ? -1 : 0;
}

PyObject *pcc_cache_load(const char *dir, const unsigned char key[32], const char *name,
                         const char **why)
{
    char *raw;
    size_t len;
    if (pcc_cache_load_raw(dir, key, name, &raw, &len, why) <= 0)
        return NULL;
    PyObject *payload = PyBytes_FromStringAndSize(raw, (Py_ssize_t)len);
    PyMem_RawFree(raw);
    return payload;
}

/* The (dir, key_hex) arguments of cache_load and cache_verify (`fmt` names
 * the function): *dir_obj gets the directory as a new bytes reference (the
 * caller releases it), key the 32 key bytes, name the entry's file name.
 * 0, or -1 with an exception and nothing to release. */
static int parse_entry_args(PyObject *args, const char *fmt, PyObject **dir_obj,
                            unsigned char key[32], char name[PCC_ENTRY_NAME_LEN])
{
    PyObject *key_hex;
    *dir_obj = NULL;
    if (!PyArg_ParseTuple(args, fmt, PyUnicode_FSConverter, dir_obj, &key_hex))
        return -1;
    if (parse_key(key_hex, key, name) < 0) {
        Py_CLEAR(*dir_obj);
        return -1;
    }
    return 0;
}

static PyObject *py_cache_load(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *dir_obj;
    unsigned char key[32];
    char name[PCC_ENTRY_NAME_LEN];
    if (parse_entry_args(args, "O&U:cache_load", &dir_obj, key, name) < 0)
        return NULL;
    const char *why = NULL;
    PyObject *out = pcc_cache_load(PyBytes_AS_STRING(dir_obj), key, name, &why);
    Py_DECREF(dir_obj);
    if (out == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return out;
}

/* Same checks as cache_load; returns "ok" or why the entry would be a miss. */
static PyObject *py_cache_verify(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *dir_obj;
    unsigned char key[32];
    char name[PCC_ENTRY_NAME_LEN];
    if (parse_entry_args(args, "O&U:cache_verify", &dir_obj, key, name) < 0)
        return NULL;
    const char *why = NULL;
    PyObject *payload = pcc_cache_load(PyBytes_AS_STRING(dir_obj), key, name, &why);
    Py_DECREF(dir_obj);
    if (payload != NULL) {
        Py_DECREF(payload);
        return PyUnicode_FromString("ok");
    }
    if (PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(why ? why : "miss");
}

/* ---- store and evict --------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = ENOSPC;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

typedef struct {
    char name[PCC_ENTRY_NAME_LEN];
    uint64_t size;
    struct timespec mtime;
} cache_file;

static int by_mtime(const void *a, const void *b)
{
    const cache_file *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int is_entry_name(const char *n)
{
    size_t len = strlen(n);
    if (len != PCC_KEY_HEX + strlen(PCC_CACHE_SUFFIX) ||
        strcmp(n + PCC_KEY_HEX, PCC_CACHE_SUFFIX) != 0)
        return 0;
    for (int i = 0; i < PCC_KEY_HEX; i++)
        if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
            return 0;
    return 1;
}

/* Evicts least recently used entries until the total is at most max_bytes,
 * never `keep`. Removes stale temporary files. No GIL; best effort.
 * Returns the number of entries removed. */
static long evict(int dfd, uint64_t max_bytes, const char *keep)
{
    int dfd2 = dup(dfd);
    if (dfd2 < 0)
        return 0;
    DIR *d = fdopendir(dfd2);
    if (d == NULL) {
        close(dfd2);
        return 0;
    }
    cache_file *files = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    long removed = 0;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (strncmp(e->d_name, PCC_CACHE_TMP_PREFIX, strlen(PCC_CACHE_TMP_PREFIX)) == 0) {
            if (now.tv_sec - st.st_mtim.tv_sec > PCC_CACHE_STALE_TMP_S)
                unlinkat(dfd, e->d_name, 0);
            continue;
        }
        if (!is_entry_name(e->d_name))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            cache_file *nf = PyMem_RawRealloc(files, ncap * sizeof *files);
            if (nf == NULL)
                break;
            files = nf;
            cap = ncap;
        }
        memcpy(files[n].name, e->d_name, PCC_KEY_HEX + sizeof PCC_CACHE_SUFFIX);
        files[n].size = (uint64_t)st.st_size;
        files[n].mtime = st.st_mtim;
        total += (uint64_t)st.st_size;
        n++;
    }
    closedir(d);
    if (total > max_bytes && n > 0) {
        qsort(files, n, sizeof *files, by_mtime);
        for (size_t i = 0; i < n && total > max_bytes; i++) {
            if (strcmp(files[i].name, keep) == 0)
                continue;
            if (unlinkat(dfd, files[i].name, 0) == 0 || errno == ENOENT) {
                total -= files[i].size;
                removed++;
            }
        }
    }
    PyMem_RawFree(files);
    return removed;
}

/* Writes header+payload to a temp file and renames it to `name`. 0, or -1
 * with errno set and *why naming the step. No GIL. */
static int store_entry(const char *dir, const char *name, const unsigned char *header,
                       const void *payload, size_t len, uint64_t max_bytes, long *evicted,
                       const char **why)
{
    int dfd = open_cache_dir(dir, geteuid(), why);
    if (dfd < 0)
        return -1;
    static unsigned long counter;
    char tmp[160];
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int fd = -1, created = 0;
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
        snprintf(tmp, sizeof tmp, "%s%.16s-%ld-%lu-%lx", PCC_CACHE_TMP_PREFIX, name,
                 (long)getpid(), __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED),
                 (unsigned long)ts.tv_nsec ^ (unsigned long)attempt);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        *why = "cannot create a file in it";
        goto fail;
    }
    created = 1;
    if (write_all(fd, header, PCC_CACHE_HEADER) < 0 || write_all(fd, payload, len) < 0) {
        *why = "cannot write to it";
        goto fail;
    }
    int closed = close(fd);
    fd = -1;
    if (closed < 0) {
        *why = "cannot write to it";
        goto fail;
    }
    if (renameat(dfd, tmp, dfd, name) < 0) {
        *why = "cannot rename an entry into place";
        goto fail;
    }
    created = 0;
    if (max_bytes > 0)
        *evicted = evict(dfd, max_bytes, name);
    close(dfd);
    return 0;

fail:;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (created)
        unlinkat(dfd, tmp, 0);
    close(dfd);
    errno = saved;
    return -1;
}

static PyObject *py_cache_store(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"dir", "key", "payload", "max_bytes", NULL};
    PyObject *dir_obj = NULL, *key_hex;
    Py_buffer payload = {0};
    unsigned long long max_bytes = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&Uy*|K:cache_store", kwlist,
                                     PyUnicode_FSConverter, &dir_obj, &key_hex, &payload,
                                     &max_bytes))
        return NULL;
    PyObject *out = NULL;
    unsigned char key[32], header[PCC_CACHE_HEADER];
    char name[PCC_ENTRY_NAME_LEN];
    if (parse_key(key_hex, key, name) < 0)
        goto done;
    if ((uint64_t)payload.len > PCC_CACHE_MAX_ENTRY - PCC_CACHE_HEADER) {
        errno = EFBIG; /* an OSError: compiler.py warns once and compiles uncached */
        PyErr_SetFromErrno(PyExc_OSError);
        goto done;
    }
    memcpy(header, PCC_CACHE_MAGIC, 8);
    put_u32(header + 8, PCC_CACHE_FORMAT);
    put_u32(header + 12, PCC_CACHE_HEADER);
    memcpy(header + 16, key, 32);
    put_u64(header + 48, (uint64_t)payload.len);
    entry_checksum(payload.buf, (size_t)payload.len, header + 56);

    const char *dir = PyBytes_AS_STRING(dir_obj), *why = NULL;
    long evicted = 0;
    int rc, err = 0;
    Py_BEGIN_ALLOW_THREADS
    rc = store_entry(dir, name, header, payload.buf, (size_t)payload.len, max_bytes, &evicted,
                     &why);
    if (rc < 0)
        err = errno;
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        /* OSError with errno (ENOSPC, EROFS, EACCES...): compiler.py warns once. */
        PyObject *msg = PyUnicode_FromFormat("pycudac cache directory %s %s: %s", dir,
                                             why ? why : "cannot be used", strerror(err));
        if (msg) {
            PyObject *exc = PyObject_CallFunction(PyExc_OSError, "iO", err, msg);
            if (exc) {
                PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
                Py_DECREF(exc);
            }
            Py_DECREF(msg);
        }
        goto done;
    }
    out = PyLong_FromLong(evicted);
done:
    PyBuffer_Release(&payload);
    Py_DECREF(dir_obj);
    return out;
}

/* ---- the directory -------------------------------------------------------------- */

/* mkdir -p with mode 0700 for what it creates. 0 or -1 with errno. */
static int make_dirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char c = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                return -1;
            buf[i] = c;
        }
    }
    return 0;
}

/* cache_check_dir(dir, create=True) -> None when usable, else the reason. */
static PyObject *py_cache_check_dir(PyObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    static char *kwlist[] = {"dir", "create", NULL};
    PyObject *dir_obj = NULL;
    int create = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|p:cache_check_dir", kwlist,
                                     PyUnicode_FSConverter, &dir_obj, &create))
        return NULL;
    const char *dir = PyBytes_AS_STRING(dir_obj);
    char reason[512] = "";
    struct stat st;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = lstat(dir, &st);
    if (rc < 0 && errno == ENOENT && create) {
        if (make_dirs(dir) == 0)
            rc = lstat(dir, &st);
    }
    Py_END_ALLOW_THREADS
    if (rc < 0)
        snprintf(reason, sizeof reason, "cannot be created or examined: %s", strerror(errno));
    else if (S_ISLNK(st.st_mode))
        snprintf(reason, sizeof reason, "is a symbolic link (refused: it could point anywhere)");
    else if (!S_ISDIR(st.st_mode))
        snprintf(reason, sizeof reason, "is not a directory");
    else if (st.st_uid != geteuid())
        snprintf(reason, sizeof reason, "is owned by uid %ld, not by this user (uid %ld)",
                 (long)st.st_uid, (long)geteuid());
    else if (st.st_mode & (S_IWGRP | S_IWOTH))
        snprintf(reason, sizeof reason,
                 "is writable by %s (mode %04o); `chmod 700` it to use the cache",
                 (st.st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(st.st_mode & 07777));
    Py_DECREF(dir_obj);
    if (reason[0] == '\0')
        Py_RETURN_NONE;
    return PyUnicode_FromString(reason);
}

static PyMethodDef cache_methods[] = {
    {"cache_load", py_cache_load, METH_VARARGS,
     "cache_load(dir, key_hex) -> bytes or None\n\nThe verified payload of entry `key_hex`, "
     "or None on any miss (absent, truncated, corrupt, wrong key, unsafe file or directory)."},
    {"cache_verify", py_cache_verify, METH_VARARGS,
     "cache_verify(dir, key_hex) -> 'ok' or the reason the entry would be a miss."},
    {"cache_store", (PyCFunction)(void (*)(void))py_cache_store, METH_VARARGS | METH_KEYWORDS,
     "cache_store(dir, key_hex, payload, max_bytes=0) -> number of entries evicted\n\n"
     "Writes the entry atomically (temp file + rename), then evicts least recently used "
     "entries beyond max_bytes (0: no cap), never the one just written. OSError (with errno) "
     "when the directory is unusable or the disk full."},
    {"cache_check_dir", (PyCFunction)(void (*)(void))py_cache_check_dir,
     METH_VARARGS | METH_KEYWORDS,
     "cache_check_dir(dir, create=True) -> None if usable, else why not (creates it 0700)."},
    {NULL, NULL, 0, NULL}};

int pcc_cache_init(PyObject *module)
{
    if (PyModule_AddIntConstant(module, "CACHE_FORMAT", PCC_CACHE_FORMAT) < 0 ||
        PyModule_AddIntConstant(module, "CACHE_STALE_TMP_S", PCC_CACHE_STALE_TMP_S) < 0)
        return -1;
    return PyModule_AddFunctions(module, cache_methods);
}

/* ---- the checksum, for the tests (util/crc32c.c) ---- */

/* _driver._crc32c(data, hw=True) -> int: for the tests (both paths). */
static PyObject *py_crc32c(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer data;
    int hw = 1;
    if (!PyArg_ParseTuple(args, "y*|p:_crc32c", &data, &hw))
        return NULL;
    uint32_t c = pcc_crc32c(data.buf, (size_t)data.len, hw);
    PyBuffer_Release(&data);
    return PyLong_FromUnsignedLong(c);
}

static PyObject *py_crc32c_hw(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(pcc_crc32c_hw());
}

static PyMethodDef crc32c_methods[] = {
    {"_crc32c", py_crc32c, METH_VARARGS,
     "_crc32c(data, hw=True) -> int: CRC-32C of data, the cache entry checksum (hw=False: "
     "the table-driven path even where the CPU has the instruction)."},
    {"_crc32c_hw", py_crc32c_hw, METH_NOARGS,
     "Whether the CRC-32C instruction is used on this CPU."},
    {NULL, NULL, 0, NULL}};

int pcc_crc32c_init(PyObject *module) /* _crc32c, _crc32c_hw */
{
    return PyModule_AddFunctions(module, crc32c_methods);
}
