/*
 * module/_driver.c — assembles the pycudac._driver extension module. Each concept
 * lives in its own file and adds its types and functions here; this file
 * only calls them in order.
 */
#include "compile/cache.h"
#include "core/array.h"
#include "core/capture.h"
#include "core/check.h"
#include "core/context.h"
#include "module/errors.h"
#include "launch/function.h"
#include "graph/graph.h"
#include "driver/loader.h"
#include "core/memory.h"
#include "core/module.h"
#include "core/multi.h"
#include "core/stream.h"

static struct PyModuleDef driver_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "pycudac._driver",
    .m_doc = "pycudac's C core: the CUDA driver (or the CPU simulator) as Python objects.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__driver(void)
{
    PyObject *m = PyModule_Create(&driver_module);
    if (m == NULL)
        return NULL;
    if (pcc_state_init(m) < 0 || pcc_errors_init(m) < 0 || pcc_loader_init(m) < 0 || pcc_device_init(m) < 0 ||
        pcc_context_init(m) < 0 || pcc_convert_init(m) < 0 || pcc_memory_init(m) < 0 || pcc_stream_init(m) < 0 ||
        pcc_event_init(m) < 0 || pcc_array_init(m) < 0 || pcc_graphics_init(m) < 0 || pcc_profile_init(m) < 0 || pcc_peer_init(m) < 0 || pcc_ipc_init(m) < 0 ||
        pcc_pool_init(m) < 0 || pcc_module_init(m) < 0 || pcc_compile_init(m) < 0 ||
        pcc_cache_init(m) < 0 || pcc_sha256_init(m) < 0 || pcc_cache_key_init(m) < 0 ||
        pcc_crc32c_init(m) < 0 || pcc_cache_warm_init(m) < 0 || pcc_function_init(m) < 0 ||
        pcc_capture_init(m) < 0 || pcc_graph_init(m) < 0 || pcc_stream_capture_init(m) < 0 ||
        pcc_check_init(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
