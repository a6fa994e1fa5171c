/*
 * sim/env.c — the environment as the simulator's GIL-free code sees
 * it. A compile, a module load and a launch on the simulator run with the
 * GIL released, and getenv() there could race with another Python thread
 * changing os.environ (putenv may move the environment while getenv reads
 * it). So the variables that code reads are copied here while the GIL is
 * held, at each compile and module load (pcc_sim_env_refresh; a launch
 * needs a module, and the workers read their two settings once), and read
 * back under a lock (pcc_sim_env_dup). Before a compile the whole environment is
 * copied too (pcc_sim_env_refresh_all), for the C++ compiler it starts.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#include "sim/env.h"

static const char *const names[] = {"TMPDIR",  "PATH",         "CXX", "PYCUDAC_SIM_KEEP_TMP",
                                    "PYCUDAC_SIM_STACK_KB", "PYCUDAC_SIM_THREADS",
                                    "PYCUDAC_SIM_TIMEOUT", "PYCUDAC_SIM_COMPILE_TIMEOUT"};
#define N_NAMES (sizeof names / sizeof names[0])
static char *values[N_NAMES]; /* malloc'd copies, NULL when unset */
static char **all;            /* the whole environment at the last compile */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A NULL-terminated malloc'd copy of `src` (NULL: an empty one), or NULL
 * when out of memory. */
static char **copy_env(char *const *src)
{
    size_t n = 0;
    while (src && src[n])
        n++;
    char **out = calloc(n + 1, sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        if ((out[i] = strdup(src[i])) == NULL) {
            pcc_sim_environ_free(out);
            return NULL;
        }
    return out;
}

void pcc_sim_environ_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

void pcc_sim_env_refresh_all(void)
{
    pcc_sim_env_refresh();
    char **now = copy_env(environ);
    pthread_mutex_lock(&lock);
    char **old = all;
    all = now;
    pthread_mutex_unlock(&lock);
    pcc_sim_environ_free(old);
}

char **pcc_sim_environ_dup(void)
{
    pthread_mutex_lock(&lock);
    char **out = copy_env(all);
    pthread_mutex_unlock(&lock);
    return out;
}

void pcc_sim_env_refresh(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < N_NAMES; i++) {
        const char *now = getenv(names[i]);
        if (now == NULL ? values[i] == NULL : values[i] != NULL && strcmp(now, values[i]) == 0)
            continue;
        free(values[i]);
        values[i] = now ? strdup(now) : NULL; /* out of memory reads as unset */
    }
    pthread_mutex_unlock(&lock);
}

char *pcc_sim_env_dup(const char *name)
{
    char *out = NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < N_NAMES; i++)
        if (strcmp(names[i], name) == 0) {
            out = values[i] ? strdup(values[i]) : NULL;
            break;
        }
    pthread_mutex_unlock(&lock);
    return out;
}
