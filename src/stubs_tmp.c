/* TEMPORARY: weak placeholders until each concept's file lands; a real definition
 * elsewhere overrides them at link time. This file is deleted once all exist. */
#define PCC_WEAK __attribute__((weak))
#include "pycudac/context.h"
#include "pycudac/function.h"
#include "pycudac/loader.h"
#include "pycudac/memory.h"
#include "pycudac/module.h"
#include "pycudac/stream.h"
PCC_WEAK int pcc_device_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_context_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_memory_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_stream_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_event_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_module_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_compile_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_cache_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK int pcc_function_init(PyObject *m) { (void)m; return 0; }
PCC_WEAK void pcc_sim_fill_driver_table(pcc_driver_table *t) { (void)t; }
static pcc_rtc_table empty_rtc;
PCC_WEAK const pcc_rtc_table *pcc_sim_rtc_get(void) { return &empty_rtc; }
PCC_WEAK const char *pcc_sim_fault_detail(void) { return NULL; }
