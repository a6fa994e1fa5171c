/*
 * sim_env.h — the environment the simulator reads with the GIL released
 * (src/backend_sim_env.c). pcc_sim_env_refresh() copies it, with the GIL
 * held, before a sim compile, module load or launch; pcc_sim_env_dup(name)
 * returns a malloc'd copy of one variable (the caller frees it), NULL when
 * unset. Only TMPDIR, PATH, CXX and the PYCUDAC_SIM_* variables are kept.
 */
#ifndef PYCUDAC_SIM_ENV_H
#define PYCUDAC_SIM_ENV_H

void pcc_sim_env_refresh(void);
char *pcc_sim_env_dup(const char *name);

#endif
