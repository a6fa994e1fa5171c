/*
 * util/nvtx.c — the client side of NVTX's tool protocol (NVTX v3, load
 * sequence 1/2), written from its documented behaviour: no NVIDIA header,
 * no libnvToolsExt.
 *
 * A profiler (Nsight Systems, Nsight Compute) attaches by setting
 * NVTX_INJECTION64_PATH to its injection library. At the first NVTX call
 * the client dlopens that library and calls its InitializeInjectionNvtx2
 * with an "export table" getter; through it the tool asks for the client's
 * function tables (one per module: CORE, CUDA, OPENCL, CUDART, CORE2, SYNC,
 * an array of pointers to the client's function-pointer slots, index 0 and
 * the last unused) and writes its own functions into the slots. The client
 * then calls whatever is in a slot, and does nothing where a slot is empty,
 * or when no tool was found (a tool's init returning 0 counts as none, and
 * its library is closed again).
 *
 * Calls may come from any thread; the search runs once (pthread_once).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/nvtx.h"

typedef void (*nvtx_fn)(void); /* a slot: cast to the right type to call */

/* The modules and the size of each one's table (its callback ids run 1 ..
 * size-1). */
enum { MOD_CORE = 1, MOD_CUDA = 2, MOD_OPENCL = 3, MOD_CUDART = 4, MOD_CORE2 = 5, MOD_SYNC = 6,
       MOD_COUNT = 7 };
static const unsigned module_size[MOD_COUNT] = {0, 16, 9, 15, 7, 16, 7};
#define MAX_MODULE_SIZE 16

/* CORE ids */
enum { CORE_MARK_EX = 1, CORE_RANGE_PUSH_EX = 8, CORE_RANGE_POP = 11 };
/* CORE2 ids */
enum { CORE2_DOMAIN_MARK_EX = 1, CORE2_DOMAIN_RANGE_PUSH_EX = 4, CORE2_DOMAIN_RANGE_POP = 5,
       CORE2_DOMAIN_CREATE_A = 12 };

static nvtx_fn slots[MOD_COUNT][MAX_MODULE_SIZE];
static nvtx_fn *tables[MOD_COUNT][MAX_MODULE_SIZE + 1];

/* nvtxEventAttributes_t, version 3 (its layout: 48 bytes on LP64). */
typedef struct {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t color_type; /* 1: ARGB */
    uint32_t color;
    int32_t payload_type;
    int32_t reserved0;
    union {
        uint64_t u;
        double d;
    } payload;
    int32_t message_type; /* 1: ASCII */
    union {
        const char *ascii;
        const void *other;
    } message;
} nvtx_attr;

typedef struct {
    size_t struct_size;
    int (*get_module_function_table)(int module, nvtx_fn ***table, unsigned *size);
} export_callbacks;

typedef struct {
    size_t struct_size;
    uint32_t version;
    uint32_t reserved0;
    void (*set_injection_version)(uint32_t version);
} export_version;

enum { ETID_CALLBACKS = 1, ETID_VERSIONINFO = 3, NVTX_API_VERSION = 3 };

static int get_module_function_table(int module, nvtx_fn ***table, unsigned *size)
{
    if (module <= 0 || module >= MOD_COUNT)
        return 0;
    if (size)
        *size = module_size[module];
    if (table)
        *table = tables[module];
    return 1;
}

static void set_injection_version(uint32_t version) { (void)version; }

static const export_callbacks callbacks = {sizeof(export_callbacks), get_module_function_table};
static const export_version version_info = {sizeof(export_version), NVTX_API_VERSION, 0,
                                            set_injection_version};

static const void *get_export_table(uint32_t id)
{
    switch (id) {
    case ETID_CALLBACKS:
        return &callbacks;
    case ETID_VERSIONINFO:
        return &version_info;
    default:
        return NULL;
    }
}

volatile int pcc_nvtx_state = PCC_NVTX_UNKNOWN;
static void *domain; /* "pycudac", when the tool has domains */

static void search(void)
{
    for (int m = 1; m < MOD_COUNT; m++) {
        tables[m][0] = NULL;
        for (unsigned i = 1; i < module_size[m]; i++)
            tables[m][i] = &slots[m][i];
        tables[m][module_size[m]] = NULL;
    }
    int state = PCC_NVTX_OFF;
    const char *path = getenv(sizeof(void *) == 4 ? "NVTX_INJECTION32_PATH"
                                                  : "NVTX_INJECTION64_PATH");
    void *h = path && *path ? dlopen(path, RTLD_LAZY) : NULL;
    if (h != NULL) {
        int (*init)(const void *(*)(uint32_t));
        *(void **)&init = dlsym(h, "InitializeInjectionNvtx2");
        if (init != NULL && init(get_export_table) != 0) {
            state = PCC_NVTX_ON;
        } else {
            memset(slots, 0, sizeof slots); /* anything a failed init wrote */
            dlclose(h);
        }
    }
    if (state == PCC_NVTX_ON && slots[MOD_CORE2][CORE2_DOMAIN_CREATE_A] != NULL)
        domain = ((void *(*)(const char *))slots[MOD_CORE2][CORE2_DOMAIN_CREATE_A])("pycudac");
    __atomic_store_n(&pcc_nvtx_state, state, __ATOMIC_RELEASE);
}

int pcc_nvtx_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, search);
    return __atomic_load_n(&pcc_nvtx_state, __ATOMIC_ACQUIRE);
}

static void fill(nvtx_attr *a, const char *message, uint32_t argb)
{
    memset(a, 0, sizeof *a);
    a->version = NVTX_API_VERSION;
    a->size = (uint16_t)sizeof *a;
    a->color_type = argb ? 1 : 0;
    a->color = argb;
    a->message_type = 1;
    a->message.ascii = message;
}

void pcc_nvtx_push(const char *message, uint32_t argb)
{
    if (!pcc_nvtx_active() || slots[MOD_CORE][CORE_RANGE_PUSH_EX] == NULL)
        return;
    nvtx_attr a;
    fill(&a, message, argb);
    ((int (*)(const nvtx_attr *))slots[MOD_CORE][CORE_RANGE_PUSH_EX])(&a);
}

void pcc_nvtx_pop(void)
{
    if (!pcc_nvtx_active() || slots[MOD_CORE][CORE_RANGE_POP] == NULL)
        return;
    ((int (*)(void))slots[MOD_CORE][CORE_RANGE_POP])();
}

void pcc_nvtx_mark(const char *message, uint32_t argb)
{
    if (!pcc_nvtx_active() || slots[MOD_CORE][CORE_MARK_EX] == NULL)
        return;
    nvtx_attr a;
    fill(&a, message, argb);
    ((void (*)(const nvtx_attr *))slots[MOD_CORE][CORE_MARK_EX])(&a);
}

void pcc_nvtx_own_push(const char *message, uint32_t argb)
{
    nvtx_fn f = slots[MOD_CORE2][CORE2_DOMAIN_RANGE_PUSH_EX];
    if (domain == NULL || f == NULL) {
        pcc_nvtx_push(message, argb); /* a tool without domains */
        return;
    }
    nvtx_attr a;
    fill(&a, message, argb);
    ((int (*)(void *, const nvtx_attr *))f)(domain, &a);
}

void pcc_nvtx_own_pop(void)
{
    nvtx_fn f = slots[MOD_CORE2][CORE2_DOMAIN_RANGE_POP];
    if (domain == NULL || f == NULL) {
        pcc_nvtx_pop();
        return;
    }
    ((int (*)(void *))f)(domain);
}
