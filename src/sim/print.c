/*
 * sim/print.c — what kernels print and read of the clock: device printf
 * (a line written whole, so that threads' lines do not interleave) and
 * clock64, and the flush of that output at the end of a launch.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* In a child after fork(): the lock as new (a thread of the parent may have
 * held it). */
void sim_print_after_fork(void)
{
    pthread_mutex_init(&print_lock, NULL);
}

void sim_flush_output(void)
{
    pthread_mutex_lock(&print_lock);
    fflush(stdout);
    pthread_mutex_unlock(&print_lock);
}

/* The conversion whose text starts at p, just past its '%': *type gets where
 * its type character is (or fmt's NUL). 1 when CUDA's printf has it (flags
 * -+ #0, a width and a precision, size h, l or ll, type one of
 * cdiouxXpeEfgGaAs), else 0. */
static int cuda_conversion(const char *p, const char **type)
{
    p += strspn(p, "-+ #0");
    p += *p == '*' ? 1 : strspn(p, "0123456789");
    if (*p == '.') {
        p++;
        p += *p == '*' ? 1 : strspn(p, "0123456789");
    }
    int ok = 1;
    if (p[0] == 'l' && p[1] == 'l')
        p += 2;
    else if (*p == 'l' || (*p == 'h' && p[1] != 'h'))
        p++;
    else if (*p != '\0' && strchr("hjztLq", *p) != NULL) {
        ok = 0;
        p += strspn(p, "hjztLq");
    }
    *type = p;
    return ok && *p != '\0' && strchr("cdiouxXpeEfgGaAs", *p) != NULL;
}

/* The first conversion of `fmt` outside CUDA's printf, copied into spec; 0
 * when there is none. A GPU misprints such a conversion and the arguments
 * after it (seen: %hhX on an H200 printed bytes of the format string), where
 * the C library here prints it as C does. */
static int unsupported_conversion(const char *fmt, char *spec, size_t len)
{
    for (const char *p = fmt; (p = strchr(p, '%')) != NULL;) {
        const char *start = p++, *type;
        if (*p == '%') {
            p++;
            continue;
        }
        if (!cuda_conversion(p, &type)) {
            size_t n = (size_t)(type - start) + (*type != '\0');
            snprintf(spec, len, "%.*s", (int)(n < len ? n : len - 1), start);
            return 1;
        }
        p = type + 1;
    }
    return 0;
}

/* Once per format (the first 64 such): a notice on stderr that the GPU
 * would not print what the simulator does. Under print_lock. */
static void note_unsupported(const char *fmt)
{
    /* the formats noted so far, by their text's FNV-1a hash (not their
     * address: a module loaded where an unloaded one was puts another
     * format there) */
    static unsigned long long seen[64];
    static size_t nseen;
    char spec[32], shown[128];
    if (!unsupported_conversion(fmt, spec, sizeof spec))
        return;
    unsigned long long h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)fmt; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    for (size_t i = 0; i < nseen; i++)
        if (seen[i] == h)
            return;
    if (nseen == sizeof seen / sizeof seen[0])
        return;
    seen[nseen++] = h;
    /* the format as its C literal spells it (\n, \t), cut at 100 bytes */
    size_t k = 0;
    for (const char *p = fmt; *p && k < 100; p++) {
        if (*p == '\n' || *p == '\t') {
            shown[k++] = '\\';
            shown[k++] = *p == '\n' ? 'n' : 't';
        } else {
            shown[k++] = *p;
        }
    }
    shown[k] = '\0';
    int store = spec[0] != '\0' && spec[strlen(spec) - 1] == 'n';
    fprintf(stderr, "pycudac simulator: device printf \"%s%s\" uses %s, which CUDA's printf "
            "does not have (sizes h, l, ll; types cdiouxXpeEfgGaAs): printed here as C "
            "prints it%s; a GPU prints it and the arguments after it wrongly\n", shown,
            strlen(fmt) > 100 ? "..." : "", spec,
            store ? " (as %p: the count is stored nowhere)" : "");
}

/* fmt with each %n (C's "store the count so far", which CUDA's printf does
 * not have) made a %p, which takes the same pointer argument and writes
 * nothing: a malloc'd copy, or fmt itself when it has none (or no memory). */
static const char *without_store(const char *fmt)
{
    char *copy = NULL;
    for (const char *p = fmt; (p = strchr(p, '%')) != NULL;) {
        if (*++p == '%') {
            p++;
            continue;
        }
        (void)cuda_conversion(p, &p);
        if (*p == 'n') {
            if (copy == NULL && (copy = strdup(fmt)) == NULL)
                return fmt;
            copy[p - fmt] = 'p';
        }
        if (*p != '\0')
            p++;
    }
    return copy ? copy : fmt;
}

/* Device printf. Formatted first, outside any lock, so that a fault while
 * formatting (a bad %s pointer) leaves no lock held; then written whole,
 * so lines of different threads do not interleave. */
int sim_api_vprintf(pcc_sim_thread *t, const char *fmt, va_list ap)
{
    (void)t;
    char small[1024];
    va_list again;
    const char *given = fmt;
    fmt = without_store(given);
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    char *text = small;
    if (n >= (int)sizeof small) {
        text = malloc((size_t)n + 1);
        if (text)
            vsnprintf(text, (size_t)n + 1, fmt, again);
        else
            text = small; /* truncated */
    }
    va_end(again);
    if (fmt != given)
        free((char *)fmt);
    pthread_mutex_lock(&print_lock);
    note_unsupported(given);
    if (n > 0) {
        size_t len = text == small && n >= (int)sizeof small ? sizeof small - 1 : (size_t)n;
        fwrite(text, 1, len, stdout); /* fwrite: "%c" may print a NUL */
    }
    pthread_mutex_unlock(&print_lock);
    if (text != small)
        free(text);
    return n;
}

long long sim_api_clock64(void)
{
    return sim_now_ns();
}
