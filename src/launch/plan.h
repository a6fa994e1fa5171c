/*
 * launch/plan.h — private to src/launch/function.c, launch/call.c,
 * launch/cooperative.c, launch/plan.c, launch/pack.c and launch/pointer.c:
 * the Function object's
 * layout, its per-parameter plan, and the packer.
 */
#ifndef PYCUDAC_FUNCTION_PLAN_H
#define PYCUDAC_FUNCTION_PLAN_H

#include "launch/function.h"

/* The most parameter bytes the launch's fast path packs (on its stack). */
#define PCC_FAST_ARGS 1024

/* How a Python argument becomes a parameter's bytes. */
enum {
    PK_UNTYPED = 0, /* layout from the driver, no declared type: by size */
    PK_PTR,
    PK_I8,
    PK_U8,
    PK_I16,
    PK_U16,
    PK_I32,
    PK_U32,
    PK_I64,
    PK_U64,
    PK_F16,
    PK_BF16,
    PK_F32,
    PK_F64,
    PK_BOOL,
    PK_VEC,
    PK_STRUCT,
    PK_TEX, /* cudaTextureObject_t / CUtexObject: a TextureObject's 64-bit handle */
    PK_SURF /* cudaSurfaceObject_t / CUsurfObject: a SurfaceObject's */
};

typedef struct {
    /* PK_VEC/PK_STRUCT/PK_UNTYPED: the dtype of the last ndarray whose buffer
     * export was accepted for this parameter (strong), or NULL, and its
     * itemsize; first, beside `size`, for pack_fast's read of a vector */
    PyObject *bytes_dtype;
    size_t bytes_itemsize;
    size_t size, offset;
    int kind;       /* PK_* */
    int elem_kind;  /* PK_VEC: element kind, for tuples; 0 when unknown */
    int elem_count; /* PK_VEC: number of elements */
    PyObject *name;  /* str or NULL */
    PyObject *ctype; /* str or NULL */
    /* PK_PTR: the numpy.dtype of the declared pointee when it is an
     * arithmetic, vector or complex type (float *, float4 *, cuFloatComplex
     * *), else NULL: void, char, unsigned char and struct pointers take any
     * memory. elem_base: a vector or complex pointee's component dtype
     * (float32 for float4), whose arrays it may also be given; else NULL. */
    PyObject *elem, *elem_base;
} pcc_param;

/* What the packer reads of each parameter on every call, kept apart from
 * pcc_param: the driver's launch evicts our data from the nearer caches, so
 * a 16-parameter call reading two cache lines of these (8 bytes each) beats
 * reading the sixteen full records (measured on the H100 host). */
typedef struct {
    unsigned char kind;     /* PK_*, as in pcc_param */
    unsigned char untyped8; /* PK_UNTYPED of 8 bytes: a DeviceAllocation fits */
    unsigned char int_size; /* bytes an exact int takes (pcc_int_kind_size), 0: none */
    unsigned int offset;    /* < the 32,764-byte parameter limit */
} pcc_hot_param;

/* The bytes an exact int takes for a PK_* kind in pack_fast (launch/pack.c). */
unsigned char pcc_int_kind_size(int kind);

/* gpuarray.GPUArray's C base (launch/pointer.c): what a launch reads of an
 * array without attribute lookups. */
typedef struct {
    PyObject_HEAD
    PyObject *gpudata;      /* the allocation, or an int-like pointer (a view's) */
    unsigned long long ptr; /* the address of element 0 */
    PyObject *dtype;        /* numpy.dtype */
    PyObject *context;      /* the Context it was made in (GPUArray._ctx) */
} PccArrayBase;

/* The address to pass for array `a`, into *out: 0; 1 when pcc_conv_ptr must
 * decide (its gpudata was freed or is not one the fast path knows; nothing
 * raised). */
int pcc_array_base_ptr(const PccArrayBase *a, CUdeviceptr *out);

/* 1 when the device memory a GPUArray's `gpudata` stands for was released:
 * a DeviceAllocation's free(), or, for a view's pointer (ViewPointer), its
 * owner's; 0 when not, or when it cannot tell (a plain int; a pool's block,
 * which an array holds until the array is gone even after its free()). */
int pcc_gpudata_released(PyObject *gpudata);

typedef struct {
    PyObject_HEAD
    /* What every launch reads, together at the front (the first two cache
     * lines; see pcc_hot_param for why that matters). */
    vectorcallfunc vectorcall;
    CUfunction fn;
    pcc_hot_param *hot; /* nparams entries, set when the plan is complete */
    pcc_param *params;
    int nparams;
    size_t argsize;     /* end of the last parameter */
    /* The padding between parameters, which a launch zeroes before packing:
     * ngap_words 8-byte words at gap_words[] (byte offsets), or -1: too many
     * (the whole buffer is zeroed). */
    int ngap_words;
    unsigned short gap_words[4];
    int fast_nparams;   /* nparams when the launch's fast path may pack (a complete
                         * plan of at most PCC_FAST_ARGS bytes), else -1 */
    PyObject *prepared_block; /* block given to prepare(), or NULL */
    /* The last block and grid tuples a launch parsed, held so that a loop
     * passing the same (immutable) tuples skips parsing them again. */
    PyObject *last_dims[2];
    unsigned int last_parsed[2][3];
    /* the rest */
    /* The last cluster= tuple a launch took and what it read (launch/attrs.c):
     * held, as last_dims, so that the fast path knows it by identity. */
    PyObject *last_cluster;
    unsigned int last_cluster_dims[3];
    PyObject *layout_error; /* str: why no call can be packed, or NULL */
    PyObject *module;    /* Module object (strong): keeps the code loaded */
    PyObject *context;   /* Context of the module, or NULL */
    PyObject *name;      /* str */
    PyObject *signature; /* KernelSignature or None */
    PyObject *decl;      /* str: "float *a, int n" (for messages and repr) */
    PyObject *note;      /* str: why declared types were set aside, or NULL */
    size_t param_limit; /* 4096 or 32764 */
    /* device limits, read once */
    int max_threads, max_block[3];
    unsigned int max_grid[3];
    int smem_optin;     /* opt-in dynamic+static shared limit, 0 if none */
    int smem_allowed;   /* dynamic shared allowed now without opting in further */
    int static_smem;    /* -1 until asked */
    PyObject *weakreflist;
} PccFunction;

/* The kernel's name for a message ("?" if it cannot be had: its str is
 * ASCII in practice); no exception left set. */
static inline const char *pcc_function_cname(PccFunction *f)
{
    const char *s = PyUnicode_AsUTF8(f->name);
    if (s == NULL)
        PyErr_Clear();
    return s ? s : "?";
}

/* One In/Out/InOut argument of a call in flight, or one ArgumentHandler of
 * PyCUDA's protocol (`pycuda`: its get_device_alloc() in `array`, its
 * pre_call/post_call called around the launch; no copies of ours). */
typedef struct {
    PyObject *handler; /* borrowed: the argument */
    PyObject *array;   /* new ref */
    PyObject *alloc;   /* new ref: temporary DeviceAllocation, or NULL for 0 bytes */
    Py_buffer view;
    int has_view;
    int copy_in, copy_out;
    int pycuda;
    size_t offset; /* where the device pointer goes in the buffer */
} pcc_handler_rec;

typedef struct {
    int pack_only;            /* In/Out/InOut refused: PCC_PACK_ONLY_* */
    int nhandlers;
    pcc_handler_rec *handlers; /* PyMem, nparams entries, or NULL */
} pcc_call_state;

/* Why a packing refuses In/Out/InOut (pcc_call_state.pack_only). */
enum { PCC_PACK_FOR_LAUNCH = 0, PCC_PACK_ONLY_BYTES = 1, PCC_PACK_ONLY_NODE = 2 };

/* Fills f->params/nparams/argsize/note/layout_error from the driver's
 * parameter info (unless !use_driver: the C ABI rules alone, as on drivers
 * without cuFuncGetParamInfo) and `signature`. 0 or -1. */
int pcc_plan_build(PccFunction *f, PyObject *signature, int use_driver);
/* Frees the plan's arrays and references. */
void pcc_plan_clear(PccFunction *f);

/* The launch's fast path: every argument by pack_fast alone (the caller has
 * checked the count and the layout). 0 when all are packed; 1 when one
 * needs pcc_pack_args (nothing raised, nothing to undo). */
int pcc_pack_fast(const PccFunction *f, PyObject *const *args, char *buf);
/* Converts args[0..nargs) into buf (f->argsize bytes, zeroed by the
 * caller where gaps matter). In/Out/InOut arguments are recorded in `cs`
 * for the caller. 0, or -1 with an exception naming the argument. */
int pcc_pack_args(PccFunction *f, PyObject *const *args, Py_ssize_t nargs, char *buf,
                  pcc_call_state *cs);

/* An In/Out/InOut argument's copies around a launch (src/launch/handlers.c;
 * launch/call.c's general path calls them when cs->nhandlers > 0): the host
 * to device copies before it, on `stream` (synchronous when `async` is 0),
 * the device to host copies after it; for an ArgumentHandler of PyCUDA's
 * protocol its pre_call(stream) and post_call(stream) instead. 0, or -1
 * with an exception. */
int pcc_handlers_copy_in(pcc_call_state *cs, int async, PyObject *stream_obj, CUstream stream);
int pcc_handlers_copy_out(pcc_call_state *cs, int async, PyObject *stream_obj, CUstream stream);
void pcc_call_state_clear(pcc_call_state *cs);

/* "kernel 'k' argument 2 'n' (int): <msg>" as `exc`; always returns -1. */
int pcc_arg_error(PccFunction *f, int i, PyObject *exc, const char *fmt, ...);
/* Re-raises the current exception's text inside an argument error. -1. */
int pcc_arg_error_from_current(PccFunction *f, int i, PyObject *exc_type);

/* TypeError for argument i (by value or In/Out) whose bytes would be Python
 * object pointers (dtype=object). Returns -1. */
int pcc_arg_objects_error(PccFunction *f, int i);
/* Whether memory of `given` (a numpy.dtype) may be passed as parameter
 * p's pointee (see pcc_param.elem); 1 or 0, nothing raised. */
int pcc_pointee_accepts(const pcc_param *p, PyObject *given);

/* Parameter i (a pointer, or an untyped 8-byte one) from anything but the
 * inline cases; In/Out/InOut are recorded in `cs`. 0 or -1 (src/launch/pointer.c). */
int pcc_conv_ptr(PccFunction *f, int i, PyObject *arg, char *dst, pcc_call_state *cs);

/* prepare(): apply PyCUDA-style argument types ("PiP" or dtypes). 0/-1. */
int pcc_plan_prepare(PccFunction *f, PyObject *arg_types);

/* Kind name ("ptr", "i32"...) of PK_*; for param_layout. */
const char *pcc_kind_name(int kind);
/* Bytes of a scalar kind (0 for vec/struct/untyped). */
size_t pcc_kind_size(int kind);

/* IEEE binary16 / bfloat16 bits of `d`, round to nearest even. Sets
 * *overflow when a finite d rounds past the largest finite value. */
unsigned short pcc_double_to_minifloat(double d, int ebits, int mbits, int *overflow);

int pcc_plan_init(PyObject *module); /* also runs pcc_pack_init */
int pcc_pack_init(PyObject *module); /* also runs pcc_ptr_init */
int pcc_ptr_init(PyObject *module);

#endif
