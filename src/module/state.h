/*
 * module/state.h — the extension's state, in one struct that every file
 * reaches the same way (pcc_st): its exception classes and types, the
 * strings it interns, the Python objects the package registers at import,
 * and what the process knows of the backend and of sticky errors. Filled
 * once at import (module/_driver.c and each component's init).
 *
 * Strings are interned once, here (PCC_STRINGS): a name the code matches or
 * looks up is `pcc_st.str_<name>`.
 */
#ifndef PYCUDAC_STATE_H
#define PYCUDAC_STATE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

struct pcc_backend;

/* X(field, text): the interned strings, pcc_st.str_<field>. */
#define PCC_STRINGS(X)                                                                       \
    /* launch keywords (launch/call.c) */                                                   \
    X(block, "block") X(grid, "grid") X(shared, "shared") X(stream, "stream")                \
    X(time_kernel, "time_kernel") X(texrefs, "texrefs") X(shared_size, "shared_size")        \
    X(cooperative, "cooperative") X(cluster, "cluster") X(priority, "priority")              \
    /* kernel signatures and layouts (launch/plan.c) */                                      \
    X(name, "name") X(ctype, "ctype") X(kind, "kind") X(size, "size") X(params, "params")    \
    X(pointee_dtype, "pointee_dtype") X(empty, "")                                                       \
    /* pointer arguments (launch/pointer.c, core/convert.c) */                              \
    X(gpudata, "gpudata") X(freed, "freed") X(base, "base") X(cai, "__cuda_array_interface__")               \
    X(dlpack, "__dlpack__") X(array, "array") X(copy_in, "copy_in") X(copy_out, "copy_out")  \
    X(data, "data") X(typestr, "typestr") X(pycuda_protocol, "_pycuda_protocol")             \
    X(get_device_alloc, "get_device_alloc") X(pre_call, "pre_call") X(post_call, "post_call") \
    /* compile results and module attributes (core/module.c, compile/) */                   \
    X(image, "image") X(lowered, "lowered") X(options, "options") X(target, "target")        \
    X(arch, "arch") X(key, "key") X(from_cache, "from_cache") X(log, "log") X(ptx, "ptx")    \
    X(source, "source") X(cubin, "cubin") X(keep_dir, "keep_dir") X(cache_key, "cache_key")  \
    X(nvrtc, "nvrtc") X(hits, "hits") X(memo_hits, "memo_hits") X(digest, "digest")        \
    X(get, "get") X(tried, "_tried")

/* X(field, name): Python objects the package registers at import through
 * _driver._register(name, obj), instead of C importing Python modules. */
#define PCC_HOOKS(X)                                                                         \
    X(parse_kernels)    /* pycudac._sigparse: source -> {kernel: signature info} */          \
    X(signature_for)    /* pycudac._sigparse: (infos, name) -> KernelSignature or None */    \
    X(argument_handler) /* pycudac._args.ArgumentHandler: In/Out/InOut's class */            \
    X(device_attribute) /* pycudac.driver.device_attribute: the enum */                   \
    /* pycudac.compiler: SourceModule's general path, (self, *args, **kwargs) -> None */     \
    X(source_module_init)                                                                    \
    X(compile_memo)     /* pycudac.compiler._memo, the in-process memo (a dict) */           \
    X(compile_stats)    /* pycudac._compiler.cache._stats (a dict) */                        \
    X(cache_format)     /* pycudac._compiler.cache.CACHE_FORMAT_VERSION */                   \
    X(sim_instrumented) /* pycudac._simcheck._instrumented: () -> bool */                   \
    X(view_pointer)     /* pycudac._gpuarray.layout.ViewPointer: a view's gpudata (a type) */ \
    X(func_cache)       /* pycudac.driver.func_cache: the enum (get_cache_config's) */       \
    X(shared_config)    /* pycudac.driver.shared_config: the enum (get_shared_config's) */   \
    /* pycudac.tools._forget_context: (ctx) -> None, after detach() */                        \
    X(context_detached)                                                                      \
    X(ptx_inflate)      /* zlib.decompress (pycudac._compiler.cache): an entry's PTX */

#define PCC_STATE_STR_FIELD(field, text) PyObject *str_##field;
#define PCC_STATE_HOOK_FIELD(field) PyObject *field;

typedef struct pcc_state {
    /* exceptions (PyCUDA's names; module/errors.c) */
    PyObject *Error, *LogicError, *LaunchError, *MemoryError, *RuntimeError, *CompileError;
    PyObject *CheckError; /* LaunchError's: the simulator's check mode found a defect */
    /* types, each made by its component's init */
    PyTypeObject *Device, *Context, *DeviceAllocation, *ManagedAllocation, *HostAllocation,
        *Stream, *Event, *Module, *Function, *ArrayBase, *ParamLayout, *Graph, *GraphNode,
        *GraphExec, *IPCMemoryHandle, *MemoryPool, *Array, *TextureObject, *SurfaceObject,
        *GraphicsResource;
    /* set once contexts of two devices have existed (core/peer.c): launches
     * then check that pointer arguments are on the kernel's device */
    int multi_device;
    /* set once a Context was detached or destroyed (core/context.c): the
     * fast paths then check that what they use still has its context */
    int detached_any;
    PCC_STRINGS(PCC_STATE_STR_FIELD)
    PCC_HOOKS(PCC_STATE_HOOK_FIELD)

    /* the process (driver/loader.c, module/errors.c) */
    const struct pcc_backend *backend; /* NULL until loaded */
    int poison_code;         /* a sticky error's code: the process is poisoned */
    int forked;              /* set in a child after fork() */
    void *last_launched;          /* the Function launched last (no reference), */
    PyObject *last_launched_name; /* and its name, for a sticky error's message */

    /* The Function type's get_function factory, registered by launch/ (core
     * makes Modules and knows nothing of launches): New reference. */
    PyObject *(*function_new)(PyObject *module, void *fn, PyObject *name, PyObject *signature);

    /* the launch keywords of the last call whose keywords all matched, held
     * strongly, and the place of each in them (launch/call.c) */
    PyObject *kw_cached;
    signed char kw_cached_at[9];
    signed char kw_cached_plain; /* they name only block, grid and stream */
} pcc_state;

extern pcc_state pcc_st;

/* Interns PCC_STRINGS and adds _register; from the module's exec. 0/-1. */
int pcc_state_init(PyObject *module);

/* Adds `defs` to `type` as methods: how a component extends a type of a
 * component below it (graph/ gives Stream its capture methods, launch/
 * gives Module get_function) while calls still run one way. 0 or -1. */
int pcc_type_add_methods(PyTypeObject *type, PyMethodDef *defs);

#endif
