/*
 * rtc.h — our own declarations of the NVRTC subset pycudac uses, and the
 * compiler table that src/compile/compile.c calls through.
 *
 * Two implementations fill a pcc_rtc_table: the real NVRTC library, opened
 * with dlopen (src/driver/loader.c, pcc_rtc_load_nvrtc), and the simulator's
 * compiler (src/sim/cc/compile.c), which turns the same CUDA C source
 * into a host shared object. The calls have NVRTC's meaning in both.
 */
#ifndef PYCUDAC_RTC_H
#define PYCUDAC_RTC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum {
    NVRTC_SUCCESS = 0,
    NVRTC_ERROR_OUT_OF_MEMORY = 1,
    NVRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
    NVRTC_ERROR_INVALID_INPUT = 3,
    NVRTC_ERROR_INVALID_PROGRAM = 4,
    NVRTC_ERROR_INVALID_OPTION = 5,
    NVRTC_ERROR_COMPILATION = 6,
    NVRTC_ERROR_BUILTIN_OPERATION_FAILURE = 7,
    NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION = 8,
    NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION = 9,
    NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID = 10,
    NVRTC_ERROR_INTERNAL_ERROR = 11,
    NVRTC_ERROR_TIME_FILE_WRITE_FAILED = 12,
    NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED = 13,
    NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED = 14,
    NVRTC_ERROR_PCH_CREATE = 15,
    NVRTC_ERROR_CANCELLED = 16
};

#define PCC_RTC_FUNCS(X, OPT)                                                            \
    X(const char *, nvrtcGetErrorString, "nvrtcGetErrorString", (nvrtcResult r))           \
    X(nvrtcResult, nvrtcVersion, "nvrtcVersion", (int *major, int *minor))                 \
    X(nvrtcResult, nvrtcCreateProgram, "nvrtcCreateProgram",                               \
      (nvrtcProgram * prog, const char *src, const char *name, int numHeaders,             \
       const char *const *headers, const char *const *includeNames))                       \
    X(nvrtcResult, nvrtcDestroyProgram, "nvrtcDestroyProgram", (nvrtcProgram * prog))      \
    X(nvrtcResult, nvrtcCompileProgram, "nvrtcCompileProgram",                             \
      (nvrtcProgram prog, int numOptions, const char *const *options))                     \
    X(nvrtcResult, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize",                       \
      (nvrtcProgram prog, size_t *size))                                                   \
    X(nvrtcResult, nvrtcGetProgramLog, "nvrtcGetProgramLog", (nvrtcProgram prog, char *log))\
    X(nvrtcResult, nvrtcGetPTXSize, "nvrtcGetPTXSize", (nvrtcProgram prog, size_t *size))  \
    X(nvrtcResult, nvrtcGetPTX, "nvrtcGetPTX", (nvrtcProgram prog, char *ptx))             \
    X(nvrtcResult, nvrtcAddNameExpression, "nvrtcAddNameExpression",                       \
      (nvrtcProgram prog, const char *name_expression))                                    \
    X(nvrtcResult, nvrtcGetLoweredName, "nvrtcGetLoweredName",                             \
      (nvrtcProgram prog, const char *name_expression, const char **lowered_name))         \
    OPT(nvrtcResult, nvrtcGetCUBINSize, "nvrtcGetCUBINSize",                               \
        (nvrtcProgram prog, size_t *size))                                                 \
    OPT(nvrtcResult, nvrtcGetCUBIN, "nvrtcGetCUBIN", (nvrtcProgram prog, char *cubin))     \
    OPT(nvrtcResult, nvrtcGetNumSupportedArchs, "nvrtcGetNumSupportedArchs", (int *n))     \
    OPT(nvrtcResult, nvrtcGetSupportedArchs, "nvrtcGetSupportedArchs", (int *archs))     \
    /* relocatable LTO-IR (-dlto; CUDA 11.4+) */                                         \
    OPT(nvrtcResult, nvrtcGetLTOIRSize, "nvrtcGetLTOIRSize",                               \
        (nvrtcProgram prog, size_t *size))                                                 \
    OPT(nvrtcResult, nvrtcGetLTOIR, "nvrtcGetLTOIR", (nvrtcProgram prog, char *ltoir))     \
    /* precompiled headers (CUDA 12.8+): the PCH heap is one per process */               \
    OPT(nvrtcResult, nvrtcGetPCHHeapSize, "nvrtcGetPCHHeapSize", (size_t *size))           \
    OPT(nvrtcResult, nvrtcSetPCHHeapSize, "nvrtcSetPCHHeapSize", (size_t size))            \
    OPT(nvrtcResult, nvrtcGetPCHCreateStatus, "nvrtcGetPCHCreateStatus",                   \
        (nvrtcProgram prog))                                                               \
    OPT(nvrtcResult, nvrtcGetPCHHeapSizeRequired, "nvrtcGetPCHHeapSizeRequired",           \
        (nvrtcProgram prog, size_t *size))

#define PCC_RTC_FIELD(ret, name, sym, args) ret(*name) args;

typedef struct pcc_rtc_table {
    const char *kind;       /* "nvrtc" or "sim" — part of the cache key */
    const char *identity;   /* library path or compiler identity and version */
    PCC_RTC_FUNCS(PCC_RTC_FIELD, PCC_RTC_FIELD)
} pcc_rtc_table;

/*
 * nvJitLink (CUDA 12+): links relocatable device code, LTO-IR included,
 * into a CUBIN on the CPU (no driver needed). Opened with dlopen by
 * src/driver/jitlink.c; the names are resolved plain first, then as the
 * versioned symbols the library's header maps them to (__nvJitLinkCreate_13_0 ...).
 */
typedef int nvJitLinkResult;
typedef struct nvJitLink *nvJitLinkHandle;

enum {
    NVJITLINK_SUCCESS = 0,
    NVJITLINK_ERROR_UNRECOGNIZED_OPTION = 1,
    NVJITLINK_ERROR_MISSING_ARCH = 2,
    NVJITLINK_ERROR_INVALID_INPUT = 3,
    NVJITLINK_ERROR_PTX_COMPILE = 4,
    NVJITLINK_ERROR_NVVM_COMPILE = 5,
    NVJITLINK_ERROR_INTERNAL = 6
};

/* nvJitLinkInputType */
enum {
    NVJITLINK_INPUT_NONE = 0,
    NVJITLINK_INPUT_CUBIN = 1,
    NVJITLINK_INPUT_PTX = 2,
    NVJITLINK_INPUT_LTOIR = 3,
    NVJITLINK_INPUT_FATBIN = 4,
    NVJITLINK_INPUT_OBJECT = 5,
    NVJITLINK_INPUT_LIBRARY = 6,
    NVJITLINK_INPUT_ANY = 10 /* the library tells the kind from the bytes */
};

#define PCC_JITLINK_FUNCS(X, OPT)                                                        \
    X(nvJitLinkResult, nvJitLinkCreate, "Create",                                          \
      (nvJitLinkHandle * handle, unsigned int numOptions, const char **options))           \
    X(nvJitLinkResult, nvJitLinkDestroy, "Destroy", (nvJitLinkHandle * handle))           \
    X(nvJitLinkResult, nvJitLinkAddData, "AddData",                                        \
      (nvJitLinkHandle handle, int inputType, const void *data, size_t size,               \
       const char *name))                                                                  \
    X(nvJitLinkResult, nvJitLinkAddFile, "AddFile",                                        \
      (nvJitLinkHandle handle, int inputType, const char *fileName))                       \
    X(nvJitLinkResult, nvJitLinkComplete, "Complete", (nvJitLinkHandle handle))           \
    X(nvJitLinkResult, nvJitLinkGetLinkedCubinSize, "GetLinkedCubinSize",                  \
      (nvJitLinkHandle handle, size_t *size))                                              \
    X(nvJitLinkResult, nvJitLinkGetLinkedCubin, "GetLinkedCubin",                          \
      (nvJitLinkHandle handle, void *cubin))                                               \
    X(nvJitLinkResult, nvJitLinkGetErrorLogSize, "GetErrorLogSize",                        \
      (nvJitLinkHandle handle, size_t *size))                                              \
    X(nvJitLinkResult, nvJitLinkGetErrorLog, "GetErrorLog", (nvJitLinkHandle handle, char *log)) \
    X(nvJitLinkResult, nvJitLinkGetInfoLogSize, "GetInfoLogSize",                          \
      (nvJitLinkHandle handle, size_t *size))                                              \
    X(nvJitLinkResult, nvJitLinkGetInfoLog, "GetInfoLog", (nvJitLinkHandle handle, char *log)) \
    OPT(nvJitLinkResult, nvJitLinkVersion, "Version", (unsigned int *major, unsigned int *minor))

typedef struct pcc_jitlink_table {
    const char *path; /* the library file opened */
    PCC_JITLINK_FUNCS(PCC_RTC_FIELD, PCC_RTC_FIELD)
} pcc_jitlink_table;

#ifdef __cplusplus
}
#endif
#endif /* PYCUDAC_RTC_H */
