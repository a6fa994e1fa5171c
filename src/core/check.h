/*
 * core/check.h — the simulator's check mode as Python sees it
 * (src/core/check.c): pycudac._driver's _sim_check_* functions, through the
 * backend table's check entries.
 */
#ifndef PYCUDAC_CORE_CHECK_H
#define PYCUDAC_CORE_CHECK_H

#include "module/state.h"

int pcc_check_init(PyObject *module);

#endif
