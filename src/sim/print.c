/*
 * sim/print.c — what kernels print and read of the clock: device printf
 * (a line written whole, so that threads' lines do not interleave) and
 * clock64, and the flush of that output at the end of a launch.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
