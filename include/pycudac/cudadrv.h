/*
 * cudadrv.h — our own declarations of the CUDA Driver API subset pycudac
 * uses, and the driver table every layer above calls through.
 *
 * No NVIDIA header is needed to build pycudac: types and enum values are
 * declared here from the Driver API documentation. The table is filled at
 * run time by a backend (src/driver/loader.c for libcuda, src/sim/ for the
 * CPU simulator); nothing outside the backends calls libcuda directly.
 */
#ifndef PYCUDAC_CUDADRV_H
#define PYCUDAC_CUDADRV_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUlinkState_st *CUlinkState;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef void (*CUhostFn)(void *userData);

typedef struct {
    int type; /* PCC_MEM_LOCATION_TYPE_* */
    int id;
} CUmemLocation;

/* Interprocess handles: opaque bytes, passed by value (Driver API, "Memory
 * Management": CU_IPC_HANDLE_SIZE is 64). */
#define PCC_IPC_HANDLE_SIZE 64
typedef struct {
    char reserved[PCC_IPC_HANDLE_SIZE];
} CUipcMemHandle;
typedef struct {
    char reserved[PCC_IPC_HANDLE_SIZE];
} CUipcEventHandle;
/* cuMemPoolExportPointer's data: what another process imports a pool
 * allocation by. */
typedef struct {
    unsigned char reserved[64];
} CUmemPoolPtrExportData;

/* CUmemPoolProps (the layout since CUDA 12.2: maxSize and usage took part of
 * the reserved bytes; 88 bytes either way). Zeroed before use. */
typedef struct {
    int allocType;   /* CU_MEM_ALLOCATION_TYPE_PINNED */
    int handleTypes; /* CU_MEM_HANDLE_TYPE_* (a bit mask) */
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;

/* CUmemAccessDesc: cuMemPoolSetAccess's entries. */
typedef struct {
    CUmemLocation location;
    int flags; /* CU_MEM_ACCESS_FLAGS_PROT_* */
} CUmemAccessDesc;

/* CUlimit values (cuCtxSetLimit / cuCtxGetLimit). */
enum {
    CU_LIMIT_STACK_SIZE = 0,
    CU_LIMIT_PRINTF_FIFO_SIZE = 1,
    CU_LIMIT_MALLOC_HEAP_SIZE = 2,
    CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
    CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
    CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
    CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
    CU_LIMIT_MAX
};

/* CUfunc_cache (cuCtxSetCacheConfig / cuFuncSetCacheConfig) and CUsharedconfig
 * (cuCtxSetSharedMemConfig / cuFuncSetSharedMemConfig). */
enum {
    CU_FUNC_CACHE_PREFER_NONE = 0,
    CU_FUNC_CACHE_PREFER_SHARED = 1,
    CU_FUNC_CACHE_PREFER_L1 = 2,
    CU_FUNC_CACHE_PREFER_EQUAL = 3
};
enum {
    CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE = 0,
    CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE = 1,
    CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE = 2
};

/* CUresult values (Driver API reference, "Error codes"). */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_CONTEXT_ALREADY_CURRENT = 202,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_MAP_FAILED = 205,
    CUDA_ERROR_ALREADY_MAPPED = 208,
    CUDA_ERROR_NOT_MAPPED = 211,
    CUDA_ERROR_NOT_MAPPED_AS_ARRAY = 212,
    CUDA_ERROR_NOT_MAPPED_AS_POINTER = 213,
    CUDA_ERROR_UNSUPPORTED_LIMIT = 215,
    CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_INVALID_SOURCE = 300,
    CUDA_ERROR_FILE_NOT_FOUND = 301,
    CUDA_ERROR_OPERATING_SYSTEM = 304,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_ILLEGAL_STATE = 401,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
    CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
    CUDA_ERROR_CONTEXT_IS_DESTROYED = 709,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
    CUDA_ERROR_TOO_MANY_PEERS = 711,
    CUDA_ERROR_HARDWARE_STACK_ERROR = 714,
    CUDA_ERROR_ILLEGAL_INSTRUCTION = 715,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
    CUDA_ERROR_INVALID_PC = 718,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_NOT_PERMITTED = 800,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
    CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
    CUDA_ERROR_CAPTURED_EVENT = 907,
    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
    CUDA_ERROR_UNKNOWN = 999
};

/* CUdevice_attribute: the values pycudac itself reads. The full list that
 * Python users see (driver.device_attribute) lives in pycudac/driver.py. */
enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83,
    CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115
};

enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
    CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};

enum {
    CU_CTX_SCHED_AUTO = 0x00,
    CU_CTX_SCHED_SPIN = 0x01,
    CU_CTX_SCHED_YIELD = 0x02,
    CU_CTX_SCHED_BLOCKING_SYNC = 0x04,
    CU_CTX_MAP_HOST = 0x08,
    CU_STREAM_DEFAULT = 0x0,
    CU_STREAM_NON_BLOCKING = 0x1,
    CU_EVENT_DEFAULT = 0x0,
    CU_EVENT_BLOCKING_SYNC = 0x1,
    CU_EVENT_DISABLE_TIMING = 0x2,
    CU_EVENT_INTERPROCESS = 0x4,
    CU_MEMHOSTALLOC_PORTABLE = 0x01,
    CU_MEMHOSTALLOC_DEVICEMAP = 0x02,
    CU_MEMHOSTALLOC_WRITECOMBINED = 0x04,
    CU_MEMHOSTREGISTER_PORTABLE = 0x01,
    CU_MEMHOSTREGISTER_DEVICEMAP = 0x02,
    CU_MEM_ATTACH_GLOBAL = 0x1,
    CU_MEM_ATTACH_HOST = 0x2,
    CU_MEM_ATTACH_SINGLE = 0x4,
    CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
    CU_MEM_LOCATION_TYPE_HOST = 0x2,
    CU_POINTER_ATTRIBUTE_CONTEXT = 1,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
    CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,
    CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC = 2,
    CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
    CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5,
    CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH = 6,
    CU_MEMPOOL_ATTR_USED_MEM_CURRENT = 7,
    CU_MEMPOOL_ATTR_USED_MEM_HIGH = 8,
    CU_MEM_ALLOCATION_TYPE_PINNED = 1,
    CU_MEM_HANDLE_TYPE_NONE = 0,
    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
    CU_MEM_ACCESS_FLAGS_PROT_NONE = 0,
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3,
    CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1
};

/* cuLaunchKernelEx (Driver API reference, "Execution Control"): a launch's
 * configuration and its attributes, each a 4-byte id, padding to 8 and a
 * 64-byte value; pycudac sets cooperative, the cluster's dimensions and
 * the priority. */
enum {
    CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
    CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
    CU_LAUNCH_ATTRIBUTE_PRIORITY = 8,
    CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
    CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120
};
typedef union {
    char pad[64];
    int cooperative;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    int priority;
    void *align_; /* CUDA's union holds pointers: 8-byte aligned */
} CUlaunchAttributeValue;
typedef struct {
    int id;
    char pad[4];
    CUlaunchAttributeValue value;
} CUlaunchAttribute;
typedef struct {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} CUlaunchConfig;
_Static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute: CUDA's layout");
_Static_assert(sizeof(CUlaunchConfig) == 56, "CUlaunchConfig: CUDA's layout");

/* Values for the `extra` array of cuLaunchKernel. */
#define PCC_LAUNCH_PARAM_END ((void *)0x00)
#define PCC_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define PCC_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

typedef size_t (*CUoccupancyB2DSize)(int blockSize);

/* Stream capture and graphs (Driver API reference, "Graph Management",
 * "Stream Management"). */
enum {
    CU_STREAM_CAPTURE_STATUS_NONE = 0,
    CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
    CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CU_STREAM_CAPTURE_MODE_RELAXED = 2,
    CU_STREAM_ADD_CAPTURE_DEPENDENCIES = 0,
    CU_STREAM_SET_CAPTURE_DEPENDENCIES = 1,
    CU_GRAPH_NODE_TYPE_KERNEL = 0,
    CU_GRAPH_NODE_TYPE_MEMCPY = 1,
    CU_GRAPH_NODE_TYPE_MEMSET = 2,
    CU_GRAPH_NODE_TYPE_HOST = 3,
    CU_GRAPH_NODE_TYPE_GRAPH = 4,
    CU_GRAPH_NODE_TYPE_EMPTY = 5,
    CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE = 1
};

/* CUDA_KERNEL_NODE_PARAMS (the _v2 layout, CUDA 12+): what a kernel node
 * launches. Parameters come either as kernelParams (a pointer per
 * parameter) or as extra (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE/END, what
 * pycudac passes); the driver copies them when the node is set. */
typedef struct {
    CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
    void *kern; /* a CUkernel, used only when func is NULL (pycudac never does) */
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS;

/* CUDA arrays, texture and surface objects (Driver API reference, "Array
 * Management", "Texture Object Management", "Surface Object Management").
 * The structs below keep cuda.h's layout (the _v2 descriptors and copies,
 * the v1 resource and texture descriptors): the driver reads them as bytes. */
typedef struct CUarray_st *CUarray;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;

enum {
    CU_AD_FORMAT_UNSIGNED_INT8 = 0x01,
    CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
    CU_AD_FORMAT_UNSIGNED_INT32 = 0x03,
    CU_AD_FORMAT_SIGNED_INT8 = 0x08,
    CU_AD_FORMAT_SIGNED_INT16 = 0x09,
    CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
    CU_AD_FORMAT_HALF = 0x10,
    CU_AD_FORMAT_FLOAT = 0x20,
    CUDA_ARRAY3D_LAYERED = 0x01,
    CUDA_ARRAY3D_SURFACE_LDST = 0x02,
    CU_MEMORYTYPE_ARRAY = 3,
    CU_RESOURCE_TYPE_ARRAY = 0,
    CU_RESOURCE_TYPE_LINEAR = 2,
    CU_TR_ADDRESS_MODE_WRAP = 0,
    CU_TR_ADDRESS_MODE_CLAMP = 1,
    CU_TR_ADDRESS_MODE_MIRROR = 2,
    CU_TR_ADDRESS_MODE_BORDER = 3,
    CU_TR_FILTER_MODE_POINT = 0,
    CU_TR_FILTER_MODE_LINEAR = 1,
    CU_TRSF_READ_AS_INTEGER = 0x01,
    CU_TRSF_NORMALIZED_COORDINATES = 0x02
};

/* Bytes of one channel of an array format (0: not a format). */
static inline size_t pcc_array_format_bytes(int format)
{
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT:
        return 4;
    default: return 0;
    }
}

/* cuArrayCreate's descriptor (1D and 2D: Height 0 for 1D). */
typedef struct {
    size_t Width, Height;
    int Format; /* CU_AD_FORMAT_* */
    unsigned int NumChannels;
} CUDA_ARRAY_DESCRIPTOR;

/* cuArray3DCreate's: Height and Depth 0 where the array has fewer
 * dimensions; Depth counts layers of a LAYERED array. */
typedef struct {
    size_t Width, Height, Depth;
    int Format;
    unsigned int NumChannels;
    unsigned int Flags; /* CUDA_ARRAY3D_* */
} CUDA_ARRAY3D_DESCRIPTOR;

/* cuMemcpy3D: a box of WidthInBytes x Height x Depth between host, device
 * and array memory. Pitch and height describe linear memory (a row's
 * bytes and a slice's rows); the reserved pointers must be NULL. */
typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType; /* CU_MEMORYTYPE_* */
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

/* What a texture or surface object reads: an array, or linear memory
 * (tex1Dfetch). 32 ints of union, as in cuda.h, then the flags. */
typedef struct {
    int resType; /* CU_RESOURCE_TYPE_* */
    union {
        struct {
            CUarray hArray;
        } array;
        struct {
            CUdeviceptr devPtr;
            int format;
            unsigned int numChannels;
            size_t sizeInBytes;
        } linear;
        int reserved[32];
    } res;
    unsigned int flags;
} CUDA_RESOURCE_DESC;

/* How a texture object samples (no mipmaps: those fields stay 0). */
typedef struct {
    int addressMode[3]; /* CU_TR_ADDRESS_MODE_* per dimension */
    int filterMode;     /* CU_TR_FILTER_MODE_* */
    unsigned int flags; /* CU_TRSF_* */
    unsigned int maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} CUDA_TEXTURE_DESC;

/* OpenGL interop (Driver API reference, "Graphics Interoperability" and
 * "OpenGL Interoperability"): a GL buffer or texture registered as a
 * graphics resource, mapped for CUDA to a device pointer or an array.
 * GL names are GLuint and targets GLenum: unsigned int here. */
typedef struct CUgraphicsResource_st *CUgraphicsResource;

enum {
    CU_GRAPHICS_REGISTER_FLAGS_NONE = 0x00,
    CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY = 0x01,
    CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD = 0x02,
    CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST = 0x04,
    CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER = 0x08,
    CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE = 0x00,
    CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY = 0x01,
    CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD = 0x02,
    CU_GL_DEVICE_LIST_ALL = 0x01
};

/*
 * The driver table as an X-macro: X(return type, our name, versioned symbol
 * to resolve in libcuda, (parameter list)). Entries marked OPT are looked up
 * but may be missing (older drivers); callers test the pointer first.
 */
#define PCC_DRIVER_FUNCS(X, OPT)                                                         \
    X(CUresult, cuInit, "cuInit", (unsigned int flags))                                    \
    X(CUresult, cuDriverGetVersion, "cuDriverGetVersion", (int *version))                  \
    X(CUresult, cuGetErrorName, "cuGetErrorName", (CUresult error, const char **str))      \
    X(CUresult, cuGetErrorString, "cuGetErrorString", (CUresult error, const char **str))  \
    X(CUresult, cuDeviceGet, "cuDeviceGet", (CUdevice *device, int ordinal))               \
    X(CUresult, cuDeviceGetCount, "cuDeviceGetCount", (int *count))                        \
    X(CUresult, cuDeviceGetName, "cuDeviceGetName", (char *name, int len, CUdevice dev))   \
    X(CUresult, cuDeviceGetAttribute, "cuDeviceGetAttribute",                              \
      (int *pi, int attrib, CUdevice dev))                                                 \
    X(CUresult, cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t *bytes, CUdevice dev))    \
    X(CUresult, cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId",                                \
      (char *pciBusId, int len, CUdevice dev))                                             \
    X(CUresult, cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer",                            \
      (int *canAccessPeer, CUdevice dev, CUdevice peerDev))                                \
    X(CUresult, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain",                      \
      (CUcontext *pctx, CUdevice dev))                                                     \
    X(CUresult, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice dev)) \
    X(CUresult, cuCtxCreate, "cuCtxCreate_v2",                                             \
      (CUcontext *pctx, unsigned int flags, CUdevice dev))                                 \
    X(CUresult, cuCtxDestroy, "cuCtxDestroy_v2", (CUcontext ctx))                          \
    X(CUresult, cuCtxPushCurrent, "cuCtxPushCurrent_v2", (CUcontext ctx))                  \
    X(CUresult, cuCtxPopCurrent, "cuCtxPopCurrent_v2", (CUcontext * pctx))                 \
    X(CUresult, cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext ctx))                       \
    X(CUresult, cuCtxGetCurrent, "cuCtxGetCurrent", (CUcontext * pctx))                    \
    X(CUresult, cuCtxGetDevice, "cuCtxGetDevice", (CUdevice * device))                     \
    X(CUresult, cuCtxSynchronize, "cuCtxSynchronize", (void))                              \
    X(CUresult, cuCtxSetLimit, "cuCtxSetLimit", (int limit, size_t value))                 \
    X(CUresult, cuCtxGetLimit, "cuCtxGetLimit", (size_t *pvalue, int limit))               \
    X(CUresult, cuCtxSetCacheConfig, "cuCtxSetCacheConfig", (int config))                \
    X(CUresult, cuCtxGetCacheConfig, "cuCtxGetCacheConfig", (int *pconfig))              \
    OPT(CUresult, cuCtxSetSharedMemConfig, "cuCtxSetSharedMemConfig", (int config))      \
    OPT(CUresult, cuCtxGetSharedMemConfig, "cuCtxGetSharedMemConfig", (int *pconfig))    \
    X(CUresult, cuMemGetInfo, "cuMemGetInfo_v2", (size_t *free, size_t *total))            \
    X(CUresult, cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr * dptr, size_t bytesize))        \
    X(CUresult, cuMemFree, "cuMemFree_v2", (CUdeviceptr dptr))                             \
    X(CUresult, cuMemAllocManaged, "cuMemAllocManaged",                                    \
      (CUdeviceptr * dptr, size_t bytesize, unsigned int flags))                           \
    X(CUresult, cuMemHostAlloc, "cuMemHostAlloc",                                          \
      (void **pp, size_t bytesize, unsigned int flags))                                    \
    X(CUresult, cuMemFreeHost, "cuMemFreeHost", (void *p))                                 \
    X(CUresult, cuMemHostRegister, "cuMemHostRegister_v2",                                 \
      (void *p, size_t bytesize, unsigned int flags))                                      \
    X(CUresult, cuMemHostUnregister, "cuMemHostUnregister", (void *p))                     \
    X(CUresult, cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2",                 \
      (CUdeviceptr * pdptr, void *p, unsigned int flags))                                  \
    X(CUresult, cuMemGetAddressRange, "cuMemGetAddressRange_v2",                           \
      (CUdeviceptr * pbase, size_t *psize, CUdeviceptr dptr))                              \
    X(CUresult, cuPointerGetAttribute, "cuPointerGetAttribute",                            \
      (void *data, int attribute, CUdeviceptr ptr))                                        \
    X(CUresult, cuMemcpyHtoD, "cuMemcpyHtoD_v2",                                           \
      (CUdeviceptr dst, const void *src, size_t n))                                        \
    X(CUresult, cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *dst, CUdeviceptr src, size_t n))   \
    X(CUresult, cuMemcpyDtoD, "cuMemcpyDtoD_v2",                                           \
      (CUdeviceptr dst, CUdeviceptr src, size_t n))                                        \
    X(CUresult, cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                 \
      (CUdeviceptr dst, const void *src, size_t n, CUstream s))                            \
    X(CUresult, cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                 \
      (void *dst, CUdeviceptr src, size_t n, CUstream s))                                  \
    X(CUresult, cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                 \
      (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s))                            \
    X(CUresult, cuMemcpyPeer, "cuMemcpyPeer",                                              \
      (CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t n))    \
    X(CUresult, cuMemsetD8, "cuMemsetD8_v2", (CUdeviceptr d, unsigned char v, size_t n))   \
    X(CUresult, cuMemsetD16, "cuMemsetD16_v2", (CUdeviceptr d, unsigned short v, size_t n))\
    X(CUresult, cuMemsetD32, "cuMemsetD32_v2", (CUdeviceptr d, unsigned int v, size_t n))  \
    X(CUresult, cuMemsetD8Async, "cuMemsetD8Async",                                        \
      (CUdeviceptr d, unsigned char v, size_t n, CUstream s))                              \
    X(CUresult, cuMemsetD16Async, "cuMemsetD16Async",                                      \
      (CUdeviceptr d, unsigned short v, size_t n, CUstream s))                             \
    X(CUresult, cuMemsetD32Async, "cuMemsetD32Async",                                      \
      (CUdeviceptr d, unsigned int v, size_t n, CUstream s))                               \
    X(CUresult, cuStreamCreate, "cuStreamCreate", (CUstream * ps, unsigned int flags))     \
    X(CUresult, cuStreamDestroy, "cuStreamDestroy_v2", (CUstream s))                       \
    X(CUresult, cuStreamSynchronize, "cuStreamSynchronize", (CUstream s))                  \
    X(CUresult, cuStreamQuery, "cuStreamQuery", (CUstream s))                              \
    X(CUresult, cuStreamAttachMemAsync, "cuStreamAttachMemAsync",                        \
      (CUstream s, CUdeviceptr d, size_t length, unsigned int flags))                     \
    X(CUresult, cuStreamWaitEvent, "cuStreamWaitEvent",                                    \
      (CUstream s, CUevent e, unsigned int flags))                                         \
    X(CUresult, cuLaunchHostFunc, "cuLaunchHostFunc",                                      \
      (CUstream s, CUhostFn fn, void *userData))                                           \
    X(CUresult, cuEventCreate, "cuEventCreate", (CUevent * pe, unsigned int flags))        \
    X(CUresult, cuEventDestroy, "cuEventDestroy_v2", (CUevent e))                          \
    X(CUresult, cuEventRecord, "cuEventRecord", (CUevent e, CUstream s))                   \
    X(CUresult, cuEventSynchronize, "cuEventSynchronize", (CUevent e))                     \
    X(CUresult, cuEventQuery, "cuEventQuery", (CUevent e))                                 \
    X(CUresult, cuEventElapsedTime, "cuEventElapsedTime",                                  \
      (float *ms, CUevent start, CUevent end))                                             \
    X(CUresult, cuModuleLoadData, "cuModuleLoadData", (CUmodule * pm, const void *image))  \
    X(CUresult, cuModuleUnload, "cuModuleUnload", (CUmodule m))                            \
    X(CUresult, cuModuleGetFunction, "cuModuleGetFunction",                                \
      (CUfunction * pf, CUmodule m, const char *name))                                     \
    X(CUresult, cuModuleGetGlobal, "cuModuleGetGlobal_v2",                                 \
      (CUdeviceptr * dptr, size_t *bytes, CUmodule m, const char *name))                   \
    X(CUresult, cuFuncGetAttribute, "cuFuncGetAttribute",                                  \
      (int *pi, int attrib, CUfunction f))                                                 \
    X(CUresult, cuFuncSetAttribute, "cuFuncSetAttribute",                                  \
      (CUfunction f, int attrib, int value))                                               \
    X(CUresult, cuFuncSetCacheConfig, "cuFuncSetCacheConfig", (CUfunction f, int config))  \
    OPT(CUresult, cuFuncSetSharedMemConfig, "cuFuncSetSharedMemConfig",                   \
        (CUfunction f, int config))                                                        \
    X(CUresult, cuLaunchKernel, "cuLaunchKernel",                                          \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,    \
       unsigned int by, unsigned int bz, unsigned int sharedMemBytes, CUstream s,          \
       void **kernelParams, void **extra))                                                 \
    X(CUresult, cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize",     \
      (int *minGridSize, int *blockSize, CUfunction f, CUoccupancyB2DSize fn,              \
       size_t dynamicSMemSize, int blockSizeLimit))                                        \
    OPT(CUresult, cuOccupancyMaxActiveBlocksPerMultiprocessor,                             \
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",                                      \
        (int *numBlocks, CUfunction f, int blockSize, size_t dynamicSMemSize))             \
    OPT(CUresult, cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel",                  \
        (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,  \
         unsigned int by, unsigned int bz, unsigned int sharedMemBytes, CUstream s,        \
         void **kernelParams))                                                             \
    OPT(CUresult, cuLaunchKernelEx, "cuLaunchKernelEx",                                    \
        (const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra))   \
    OPT(CUresult, cuFuncGetParamInfo, "cuFuncGetParamInfo",                                \
        (CUfunction f, size_t index, size_t *offset, size_t *size))                        \
    OPT(CUresult, cuFuncGetParamCount, "cuFuncGetParamCount",                              \
        (CUfunction f, size_t *count))                                                     \
    OPT(CUresult, cuMemPrefetchAsync_v2, "cuMemPrefetchAsync_v2",                          \
        (CUdeviceptr d, size_t n, CUmemLocation loc, unsigned int flags, CUstream s))      \
    OPT(CUresult, cuMemPrefetchAsync, "cuMemPrefetchAsync",                                \
        (CUdeviceptr d, size_t n, CUdevice dst, CUstream s))                               \
    OPT(CUresult, cuMemAllocAsync, "cuMemAllocAsync",                                      \
        (CUdeviceptr * dptr, size_t bytesize, CUstream s))                                 \
    OPT(CUresult, cuMemFreeAsync, "cuMemFreeAsync", (CUdeviceptr dptr, CUstream s))        \
    OPT(CUresult, cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool",                  \
        (CUmemoryPool * pool, CUdevice dev))                                               \
    OPT(CUresult, cuMemPoolSetAttribute, "cuMemPoolSetAttribute",                          \
        (CUmemoryPool pool, int attr, void *value))                                        \
    OPT(CUresult, cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess",                          \
        (CUcontext peer, unsigned int flags))                                              \
    OPT(CUresult, cuCtxDisablePeerAccess, "cuCtxDisablePeerAccess", (CUcontext peer))      \
    OPT(CUresult, cuMemcpyPeerAsync, "cuMemcpyPeerAsync",                                  \
        (CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t n,    \
         CUstream s))                                                                      \
    OPT(CUresult, cuIpcGetMemHandle, "cuIpcGetMemHandle",                                  \
        (CUipcMemHandle * handle, CUdeviceptr dptr))                                       \
    OPT(CUresult, cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2",                             \
        (CUdeviceptr * pdptr, CUipcMemHandle handle, unsigned int flags))                  \
    OPT(CUresult, cuIpcCloseMemHandle, "cuIpcCloseMemHandle", (CUdeviceptr dptr))          \
    OPT(CUresult, cuIpcGetEventHandle, "cuIpcGetEventHandle",                              \
        (CUipcEventHandle * handle, CUevent e))                                            \
    OPT(CUresult, cuIpcOpenEventHandle, "cuIpcOpenEventHandle",                            \
        (CUevent * pe, CUipcEventHandle handle))                                           \
    OPT(CUresult, cuMemPoolCreate, "cuMemPoolCreate",                                      \
        (CUmemoryPool * pool, const CUmemPoolProps *props))                                \
    OPT(CUresult, cuMemPoolDestroy, "cuMemPoolDestroy", (CUmemoryPool pool))               \
    OPT(CUresult, cuMemPoolGetAttribute, "cuMemPoolGetAttribute",                          \
        (CUmemoryPool pool, int attr, void *value))                                        \
    OPT(CUresult, cuMemPoolTrimTo, "cuMemPoolTrimTo",                                      \
        (CUmemoryPool pool, size_t minBytesToKeep))                                        \
    OPT(CUresult, cuMemPoolSetAccess, "cuMemPoolSetAccess",                                \
        (CUmemoryPool pool, const CUmemAccessDesc *map, size_t count))                     \
    OPT(CUresult, cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync",                      \
        (CUdeviceptr * dptr, size_t bytesize, CUmemoryPool pool, CUstream s))              \
    OPT(CUresult, cuMemPoolExportToShareableHandle, "cuMemPoolExportToShareableHandle",    \
        (void *handle, CUmemoryPool pool, int handleType, unsigned long long flags))       \
    OPT(CUresult, cuMemPoolImportFromShareableHandle,                                      \
        "cuMemPoolImportFromShareableHandle",                                              \
        (CUmemoryPool * pool, void *handle, int handleType, unsigned long long flags))     \
    OPT(CUresult, cuMemPoolExportPointer, "cuMemPoolExportPointer",                        \
        (CUmemPoolPtrExportData * out, CUdeviceptr ptr))                                   \
    OPT(CUresult, cuMemPoolImportPointer, "cuMemPoolImportPointer",                        \
        (CUdeviceptr * ptr, CUmemoryPool pool, CUmemPoolPtrExportData * data))             \
    OPT(CUresult, cuLinkCreate, "cuLinkCreate_v2",                                         \
        (unsigned int numOptions, int *options, void **optionValues, CUlinkState *stateOut)) \
    OPT(CUresult, cuLinkAddData, "cuLinkAddData_v2",                                       \
        (CUlinkState state, int type, void *data, size_t size, const char *name,            \
         unsigned int numOptions, int *options, void **optionValues))                       \
    OPT(CUresult, cuLinkAddFile, "cuLinkAddFile_v2",                                       \
        (CUlinkState state, int type, const char *path, unsigned int numOptions,            \
         int *options, void **optionValues))                                                \
    OPT(CUresult, cuLinkComplete, "cuLinkComplete",                                        \
        (CUlinkState state, void **cubinOut, size_t *sizeOut))                              \
    OPT(CUresult, cuLinkDestroy, "cuLinkDestroy", (CUlinkState state))                                \
    OPT(CUresult, cuStreamBeginCapture, "cuStreamBeginCapture_v2", (CUstream s, int mode))    \
    OPT(CUresult, cuStreamEndCapture, "cuStreamEndCapture", (CUstream s, CUgraph * graph))    \
    OPT(CUresult, cuStreamIsCapturing, "cuStreamIsCapturing", (CUstream s, int *status))      \
    OPT(CUresult, cuStreamGetCaptureInfo, "cuStreamGetCaptureInfo_v2",                         \
        (CUstream s, int *status, unsigned long long *id, CUgraph *graph,                      \
         const CUgraphNode **deps, size_t *ndeps))                                             \
    OPT(CUresult, cuStreamUpdateCaptureDependencies, "cuStreamUpdateCaptureDependencies",      \
        (CUstream s, CUgraphNode * deps, size_t ndeps, unsigned int flags))                    \
    OPT(CUresult, cuGraphCreate, "cuGraphCreate", (CUgraph * graph, unsigned int flags))      \
    OPT(CUresult, cuGraphDestroy, "cuGraphDestroy", (CUgraph graph))                          \
    OPT(CUresult, cuGraphAddKernelNode, "cuGraphAddKernelNode_v2",                             \
        (CUgraphNode * node, CUgraph graph, const CUgraphNode *deps, size_t ndeps,             \
         const CUDA_KERNEL_NODE_PARAMS *params))                                               \
    OPT(CUresult, cuGraphAddEmptyNode, "cuGraphAddEmptyNode",                                  \
        (CUgraphNode * node, CUgraph graph, const CUgraphNode *deps, size_t ndeps))            \
    OPT(CUresult, cuGraphAddChildGraphNode, "cuGraphAddChildGraphNode",                        \
        (CUgraphNode * node, CUgraph graph, const CUgraphNode *deps, size_t ndeps,             \
         CUgraph child))                                                                       \
    OPT(CUresult, cuGraphAddDependencies, "cuGraphAddDependencies",                            \
        (CUgraph graph, const CUgraphNode *from, const CUgraphNode *to, size_t n))             \
    OPT(CUresult, cuGraphGetNodes, "cuGraphGetNodes",                                          \
        (CUgraph graph, CUgraphNode * nodes, size_t *n))                                       \
    OPT(CUresult, cuGraphGetRootNodes, "cuGraphGetRootNodes",                                  \
        (CUgraph graph, CUgraphNode * nodes, size_t *n))                                       \
    OPT(CUresult, cuGraphNodeGetType, "cuGraphNodeGetType", (CUgraphNode node, int *type))    \
    OPT(CUresult, cuGraphNodeGetDependencies, "cuGraphNodeGetDependencies",                    \
        (CUgraphNode node, CUgraphNode * deps, size_t *n))                                     \
    OPT(CUresult, cuGraphInstantiate, "cuGraphInstantiateWithFlags",                           \
        (CUgraphExec * exec, CUgraph graph, unsigned long long flags))                         \
    OPT(CUresult, cuGraphLaunch, "cuGraphLaunch", (CUgraphExec exec, CUstream s))             \
    OPT(CUresult, cuGraphExecDestroy, "cuGraphExecDestroy", (CUgraphExec exec))               \
    OPT(CUresult, cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2",         \
        (CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS *params))           \
    OPT(CUresult, cuGraphDebugDotPrint, "cuGraphDebugDotPrint",                                \
        (CUgraph graph, const char *path, unsigned int flags))                                 \
    OPT(CUresult, cuProfilerStart, "cuProfilerStart", (void))                                  \
    OPT(CUresult, cuProfilerStop, "cuProfilerStop", (void))                                    \
    OPT(CUresult, cuArrayCreate, "cuArrayCreate_v2",                                           \
        (CUarray * arr, const CUDA_ARRAY_DESCRIPTOR *desc))                                    \
    OPT(CUresult, cuArray3DCreate, "cuArray3DCreate_v2",                                       \
        (CUarray * arr, const CUDA_ARRAY3D_DESCRIPTOR *desc))                                  \
    OPT(CUresult, cuArrayDestroy, "cuArrayDestroy", (CUarray arr))                             \
    OPT(CUresult, cuArray3DGetDescriptor, "cuArray3DGetDescriptor_v2",                         \
        (CUDA_ARRAY3D_DESCRIPTOR * desc, CUarray arr))                                         \
    OPT(CUresult, cuMemcpy3D, "cuMemcpy3D_v2", (const CUDA_MEMCPY3D *copy))                    \
    OPT(CUresult, cuTexObjectCreate, "cuTexObjectCreate",                                      \
        (CUtexObject * obj, const CUDA_RESOURCE_DESC *res, const CUDA_TEXTURE_DESC *tex,       \
         const void *view))                                                                    \
    OPT(CUresult, cuTexObjectDestroy, "cuTexObjectDestroy", (CUtexObject obj))                 \
    OPT(CUresult, cuSurfObjectCreate, "cuSurfObjectCreate",                                    \
        (CUsurfObject * obj, const CUDA_RESOURCE_DESC *res))                                   \
    OPT(CUresult, cuSurfObjectDestroy, "cuSurfObjectDestroy", (CUsurfObject obj))            \
    OPT(CUresult, cuGraphicsGLRegisterBuffer, "cuGraphicsGLRegisterBuffer",                    \
        (CUgraphicsResource * res, unsigned int buffer, unsigned int flags))                   \
    OPT(CUresult, cuGraphicsGLRegisterImage, "cuGraphicsGLRegisterImage",                      \
        (CUgraphicsResource * res, unsigned int image, unsigned int target,                    \
         unsigned int flags))                                                                  \
    OPT(CUresult, cuGraphicsUnregisterResource, "cuGraphicsUnregisterResource",                \
        (CUgraphicsResource res))                                                              \
    OPT(CUresult, cuGraphicsMapResources, "cuGraphicsMapResources",                            \
        (unsigned int count, CUgraphicsResource *res, CUstream s))                             \
    OPT(CUresult, cuGraphicsUnmapResources, "cuGraphicsUnmapResources",                        \
        (unsigned int count, CUgraphicsResource *res, CUstream s))                             \
    OPT(CUresult, cuGraphicsResourceGetMappedPointer, "cuGraphicsResourceGetMappedPointer_v2", \
        (CUdeviceptr * dptr, size_t *size, CUgraphicsResource res))                            \
    OPT(CUresult, cuGraphicsSubResourceGetMappedArray, "cuGraphicsSubResourceGetMappedArray",  \
        (CUarray * arr, CUgraphicsResource res, unsigned int index, unsigned int level))       \
    OPT(CUresult, cuGraphicsResourceSetMapFlags, "cuGraphicsResourceSetMapFlags_v2",           \
        (CUgraphicsResource res, unsigned int flags))                                          \
    OPT(CUresult, cuGLGetDevices, "cuGLGetDevices_v2",                                         \
        (unsigned int *count, CUdevice *devices, unsigned int max, int which))

#define PCC_DRV_FIELD(ret, name, sym, args) ret(*name) args;

/* The table. `pcc_drv.cuMemAlloc(&p, n)` is how every layer calls the driver. */
typedef struct pcc_driver_table {
    PCC_DRIVER_FUNCS(PCC_DRV_FIELD, PCC_DRV_FIELD)
} pcc_driver_table;

extern pcc_driver_table pcc_drv;

#ifdef __cplusplus
}
#endif
#endif /* PYCUDAC_CUDADRV_H */
