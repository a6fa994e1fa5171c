/*
 * fake_nvtx_injection.c — a stand-in for a profiler's NVTX injection library
 * (what Nsight Systems names in NVTX_INJECTION64_PATH), for the tests of
 * pycudac's NVTX client (src/util/nvtx.c, tests/test_profile.py).
 *
 * InitializeInjectionNvtx2 asks the client for its export tables, as a tool
 * does, and fills the CORE and CORE2 slots it knows with functions that
 * append one line per event to the file FAKE_NVTX_LOG names:
 *
 *   init <api version>
 *   domain <name>                  (nvtxDomainCreateA)
 *   push <domain> <argb> <message> (domain "-" for the default domain;
 *   pop <domain>                    argb as 8 hex digits, 0 for none)
 *   mark <domain> <argb> <message>
 *
 * FAKE_NVTX_REFUSE=1 makes the init return 0 (a tool that declines), after
 * it has written its functions into the slots (which the client must then
 * not call). Plain C, no NVIDIA header: the layouts are those of NVTX v3.
 *
 *   cc -shared -fPIC tests/c/fake_nvtx_injection.c -o libfake_nvtx.so
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*fn_t)(void);
typedef struct {
    size_t struct_size;
    int (*get_module_function_table)(int module, fn_t ***table, unsigned *size);
} callbacks_t;
typedef struct {
    size_t struct_size;
    uint32_t version;
    uint32_t reserved0;
    void (*set_injection_version)(uint32_t);
} version_t;
typedef struct {
    uint16_t version, size;
    uint32_t category;
    int32_t color_type;
    uint32_t color;
    int32_t payload_type, reserved0;
    uint64_t payload;
    int32_t message_type;
    const char *message;
} attr_t;

static FILE *out;
static char domain_names[16][64];
static int ndomains;

static void line(const char *fmt, const char *domain, const attr_t *a)
{
    if (out == NULL)
        return;
    unsigned argb = a && a->color_type == 1 ? a->color : 0;
    const char *msg = a && a->message_type == 1 && a->message ? a->message : "";
    fprintf(out, fmt, domain, argb, msg);
    fflush(out);
}

static const char *domain_name(void *d)
{
    intptr_t k = (intptr_t)d - 1;
    return k >= 0 && k < ndomains ? domain_names[k] : "?";
}

static int push_ex(const attr_t *a) { line("push %s %08x %s\n", "-", a); return 0; }
static int pop(void) { line("pop %s\n", "-", NULL); return 0; }
static void mark_ex(const attr_t *a) { line("mark %s %08x %s\n", "-", a); }
static void *domain_create(const char *name)
{
    if (ndomains == 16)
        return NULL;
    snprintf(domain_names[ndomains], sizeof domain_names[0], "%s", name);
    if (out) {
        fprintf(out, "domain %s\n", name);
        fflush(out);
    }
    return (void *)(intptr_t)++ndomains;
}
static int domain_push_ex(void *d, const attr_t *a)
{
    line("push %s %08x %s\n", domain_name(d), a);
    return 0;
}
static int domain_pop(void *d)
{
    line("pop %s\n", domain_name(d), NULL);
    return 0;
}
static void domain_mark_ex(void *d, const attr_t *a) { line("mark %s %08x %s\n", domain_name(d), a); }

__attribute__((visibility("default"))) int
InitializeInjectionNvtx2(const void *(*get_export_table)(uint32_t))
{
    const char *path = getenv("FAKE_NVTX_LOG");
    out = path ? fopen(path, "a") : NULL;
    const callbacks_t *cb = get_export_table(1);
    const version_t *v = get_export_table(3);
    if (cb == NULL || cb->struct_size < sizeof *cb || get_export_table(2) != NULL)
        return 0;
    if (out) {
        fprintf(out, "init %u\n", v ? v->version : 0);
        fflush(out);
    }
    fn_t **core, **core2;
    unsigned ncore = 0, ncore2 = 0;
    if (!cb->get_module_function_table(1, &core, &ncore) || ncore < 12 ||
        !cb->get_module_function_table(5, &core2, &ncore2) || ncore2 < 13)
        return 0;
    for (int m = 2; m <= 6; m++) { /* every module answers, as NVTX's own client does */
        fn_t **t;
        unsigned n;
        if (!cb->get_module_function_table(m, &t, &n) || n == 0 || t[0] != NULL)
            return 0;
    }
    if (cb->get_module_function_table(7, &core, &ncore))
        return 0; /* no such module */
    cb->get_module_function_table(1, &core, &ncore);
    *core[1] = (fn_t)mark_ex;   /* MarkEx */
    *core[8] = (fn_t)push_ex;   /* RangePushEx */
    *core[11] = (fn_t)pop;      /* RangePop */
    *core2[1] = (fn_t)domain_mark_ex;
    *core2[4] = (fn_t)domain_push_ex;
    *core2[5] = (fn_t)domain_pop;
    *core2[12] = (fn_t)domain_create;
    const char *refuse = getenv("FAKE_NVTX_REFUSE");
    return refuse && *refuse == '1' ? 0 : 1;
}
