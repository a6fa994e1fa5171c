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

/* The first conversion of `fmt` outside CUDA's printf (flags -+ #0, a width
 * and a precision, size h, l or ll, type one of cdiouxXpeEfgGaAs, and %%),
 * copied into spec; 0 when there is none. A GPU misprints such a conversion
 * and the arguments after it (seen: %hhX on an H200 printed bytes of the
 * format string), where the C library here prints it as C does. */
static int unsupported_conversion(const char *fmt, char *spec, size_t len)
{
    for (const char *p = fmt; (p = strchr(p, '%')) != NULL;) {
        const char *start = p++;
        if (*p == '%') {
            p++;
            continue;
        }
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
        else if (*p != '\0' && strchr("hjztLq", *p) != NULL)
            ok = 0;
        if (ok && *p != '\0' && strchr("cdiouxXpeEfgGaAs", *p) != NULL) {
            p++;
            continue;
        }
        size_t n = strcspn(p, "cdiouxXpeEfgGaAsn%") + 1;
        n = (size_t)(p - start) + (p[n - 1] != '\0' ? n : n - 1);
        snprintf(spec, len, "%.*s", (int)(n < len ? n : len - 1), start);
        return 1;
    }
    return 0;
}

/* Once per format string (the first 64): a notice on stderr that the GPU
 * would not print what the simulator does. Under print_lock. */
static void note_unsupported(const char *fmt)
{
    static const char *seen[64];
    static size_t nseen;
    for (size_t i = 0; i < nseen; i++)
        if (seen[i] == fmt)
            return;
    char spec[32], shown[128];
    if (nseen < sizeof seen / sizeof seen[0])
        seen[nseen++] = fmt;
    else
        return;
    if (!unsupported_conversion(fmt, spec, sizeof spec))
        return;
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
    fprintf(stderr, "pycudac simulator: device printf \"%s%s\" uses %s, which CUDA's printf "
            "does not have (sizes h, l, ll; types cdiouxXpeEfgGaAs): printed here as C "
            "prints it; a GPU prints it and the arguments after it wrongly\n", shown,
            strlen(fmt) > 100 ? "..." : "", spec);
}

/* Device printf. Formatted first, outside any lock, so that a fault while
 * formatting (a bad %s pointer) leaves no lock held; then written whole,
 * so lines of different threads do not interleave. */
int sim_api_vprintf(pcc_sim_thread *t, const char *fmt, va_list ap)
{
    (void)t;
    char small[1024];
    va_list again;
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
    pthread_mutex_lock(&print_lock);
    note_unsupported(fmt);
    pthread_mutex_unlock(&print_lock);
    if (n > 0) {
        pthread_mutex_lock(&print_lock);
        size_t len = text == small && n >= (int)sizeof small ? sizeof small - 1 : (size_t)n;
        fwrite(text, 1, len, stdout); /* fwrite: "%c" may print a NUL */
        pthread_mutex_unlock(&print_lock);
    }
    if (text != small)
        free(text);
    return n;
}

long long sim_api_clock64(void)
{
    return sim_now_ns();
}
