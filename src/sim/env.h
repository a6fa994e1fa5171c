/*
 * sim/env.h — the environment the simulator reads with the GIL released
 * (src/sim/env.c). pcc_sim_env_refresh() copies it, with the GIL
 * held, before a sim compile or module load (a launch needs a module, and
 * its workers read their two settings once); pcc_sim_env_dup(name)
 * returns a malloc'd copy of one variable (the caller frees it), NULL when
 * unset. Only TMPDIR, PATH, CXX and the PYCUDAC_SIM_* variables are kept.
 */
#ifndef PYCUDAC_SIM_ENV_H
#define PYCUDAC_SIM_ENV_H

void pcc_sim_env_refresh(void);
char *pcc_sim_env_dup(const char *name);

/* Before a compile (GIL held): also copy the whole environment, which the
 * C++ compiler the simulator starts inherits through
 * pcc_sim_environ_dup() (a NULL-terminated malloc'd copy, NULL when out of
 * memory; release it with pcc_sim_environ_free). */
void pcc_sim_env_refresh_all(void);
char **pcc_sim_environ_dup(void);
void pcc_sim_environ_free(char **env);

#endif
