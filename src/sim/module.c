/*
 * sim/module.c — the simulator's modules and functions: loading a
 * pcc_sim_image (a host shared object, written to a memfd and dlopen'ed),
 * the kernel table it hands back, globals, parameter layout, function
 * attributes and the occupancy queries. Launching is sim/launch.c.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/sim.h"
#include "sim/check.h"

/* What a module's kernels call: the fiber runtime's table (barriers, warp
 * operations, traps, printf, clocks) with the device heap and the rounding
 * modes added (sim/heap.c, sim/rounding.c). */
static pcc_sim_api api_table;

static void api_fill(void)
{
    api_table = sim_api_fiber;
    api_table.malloc = sim_api_malloc;
    api_table.free = sim_api_free;
    api_table.fround = sim_api_fround;
    api_table.dround = sim_api_dround;
    api_table.iround = sim_api_iround;
    api_table.check = sim_api_check;
    api_table.tex_fetch = sim_api_tex_fetch;
    api_table.surf_access = sim_api_surf_access;
}

static const pcc_sim_api *module_api(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, api_fill);
    return &api_table;
}

void sim_module_api_range(uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)&api_table;
    *hi = *lo + sizeof api_table;
}

/* ---- check mode ---------------------------------------------------------------------- */

/* glibc's: the address of a TLS block's byte, the block made if need be */
typedef struct {
    unsigned long ti_module, ti_offset;
} sim_tls_index;
extern void *__tls_get_addr(sim_tls_index *ti);

static int find_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    CUmodule m = arg;
    if ((const void *)info->dlpi_addr != m->fbase)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && m->nseg < 8) {
            m->seg_lo[m->nseg] = info->dlpi_addr + ph->p_vaddr;
            m->seg_hi[m->nseg] = m->seg_lo[m->nseg] + ph->p_memsz;
            m->nseg++;
        } else if (ph->p_type == PT_TLS) {
            m->tls_size = ph->p_memsz;
        }
    }
    return 1;
}

/* The guard flags the host compiler keeps in the TLS block, from the
 * symbol table: a block-scope `static thread_local` that needs a
 * constructor call (what __shared__ becomes here, for an array of __half or
 * of a struct with an empty constructor) gets a flag _ZGV<its name> that
 * every thread tests at the declaration and the first one sets. Those
 * accesses are the compiler's, not the kernel's: check mode leaves them out,
 * as racecheck would otherwise take them for a race on __shared__ memory.
 * (A TLS symbol's value is its offset in the TLS block.) */
static void find_tls_guards(CUmodule m)
{
    const unsigned char *so = (const unsigned char *)m->so;
    size_t size = m->so_len;
    ElfW(Ehdr) eh;
    if (size < sizeof eh)
        return;
    memcpy(&eh, so, sizeof eh);
    if (eh.e_shentsize != sizeof(ElfW(Shdr)) || eh.e_shoff > size ||
        (size - eh.e_shoff) / sizeof(ElfW(Shdr)) < eh.e_shnum)
        return;
    for (int i = 0; i < eh.e_shnum; i++) {
        ElfW(Shdr) sh, st;
        memcpy(&sh, so + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize != sizeof(ElfW(Sym)) ||
            sh.sh_link >= eh.e_shnum || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
            continue;
        memcpy(&st, so + eh.e_shoff + (size_t)sh.sh_link * sizeof st, sizeof st);
        if (st.sh_offset > size || st.sh_size > size - st.sh_offset)
            continue;
        const char *names = (const char *)so + st.sh_offset;
        for (size_t at = 0; at + sizeof(ElfW(Sym)) <= sh.sh_size; at += sizeof(ElfW(Sym))) {
            ElfW(Sym) sym;
            memcpy(&sym, so + sh.sh_offset + at, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) != STT_TLS || sym.st_name + 5 > st.sh_size ||
                memchr(names + sym.st_name, '\0', st.sh_size - sym.st_name) == NULL ||
                strncmp(names + sym.st_name, "_ZGV", 4) != 0)
                continue;
            uint64_t *g = realloc(m->guards, (size_t)(m->nguards + 1) * 2 * sizeof *g);
            if (g == NULL)
                return;
            m->guards = g;
            g[2 * m->nguards] = sym.st_value;
            g[2 * m->nguards + 1] = sym.st_size ? sym.st_size : 1;
            m->nguards++;
        }
    }
}

int sim_module_tls_guard(CUmodule m, size_t off, size_t size)
{
    for (int i = 0; i < m->nguards; i++)
        if (off < m->guards[2 * i] + m->guards[2 * i + 1] && m->guards[2 * i] < off + size)
            return 1;
    return 0;
}

/* A module built for check mode keeps what the checks need. */
static int keep_for_check(CUmodule m, const void *so, size_t size)
{
    m->checked = 1;
    m->so = malloc(size);
    if (m->so == NULL)
        return -1;
    memcpy(m->so, so, size);
    m->so_len = size;
    find_tls_guards(m);
    return 0;
}

int sim_module_tls(CUmodule m, uintptr_t *lo, size_t *len)
{
    size_t modid = 0;
    if (m->tls_size == 0 || dlinfo(m->dl, RTLD_DI_TLS_MODID, &modid) != 0 || modid == 0)
        return -1;
    sim_tls_index ti = {modid, 0};
    void *p = __tls_get_addr(&ti);
    if (p == NULL)
        return -1;
    *lo = (uintptr_t)p;
    *len = m->tls_size;
    return 0;
}
#include "util/crc32c.h"
#include "sim/env.h"

/* ---- modules ---------------------------------------------------------------------------- */

static int module_ok(CUmodule m)
{
    return m != NULL && m->magic == SIM_MODULE_MAGIC;
}

int sim_func_ok(CUfunction f)
{
    return f != NULL && f->magic == SIM_FUNC_MAGIC && module_ok(f->mod);
}

/* Nothing of a module runs when it is loaded: its initializer array (the
 * constructors of namespace-scope objects, which the compiler refuses for
 * device code but a module from elsewhere may still have) is emptied in
 * the memfd's copy, so that dlopen — which runs them holding the loader's
 * lock, where a fault could not be survived — runs none. */
static void no_initializers(int fd, const unsigned char *so, size_t size)
{
    ElfW(Ehdr) eh;
    if (size < sizeof eh)
        return;
    memcpy(&eh, so, sizeof eh);
    if (eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phoff > size ||
        (size - eh.e_phoff) / sizeof(ElfW(Phdr)) < eh.e_phnum)
        return;
    for (int i = 0; i < eh.e_phnum; i++) {
        ElfW(Phdr) ph;
        memcpy(&ph, so + eh.e_phoff + (size_t)i * sizeof ph, sizeof ph);
        if (ph.p_type != PT_DYNAMIC || ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
            continue;
        for (size_t at = ph.p_offset; at + sizeof(ElfW(Dyn)) <= ph.p_offset + ph.p_filesz;
             at += sizeof(ElfW(Dyn))) {
            ElfW(Dyn) d;
            memcpy(&d, so + at, sizeof d);
            if (d.d_tag == DT_NULL)
                break;
            if (d.d_tag == DT_INIT_ARRAYSZ || d.d_tag == DT_PREINIT_ARRAYSZ) {
                d.d_un.d_val = 0;
                if (pwrite(fd, &d, sizeof d, (off_t)at) != (ssize_t)sizeof d)
                    return;
            }
        }
    }
}

/* Writes the shared object to an anonymous file (memfd) and opens it.
 * NULL when the loader refuses it. The loader knows a library by the name
 * it was opened under, and "/proc/self/fd/N" comes back as soon as N is
 * closed — while the first library may still be loaded (C++ unique symbols
 * keep one past dlclose): dlopen would hand back the old one. So each
 * module is opened through its own, never reused name, a symlink in
 * $TMPDIR removed right after dlopen. Where no symlink can be made, the
 * memfd stays open with the module, which keeps its name unique. */
static void *open_image(const void *so, size_t size, int *keep_fd)
{
    static pthread_mutex_t name_lock = PTHREAD_MUTEX_INITIALIZER;
    static unsigned long counter;
    char fdpath[64], link[512];
    *keep_fd = -1;
    int fd = memfd_create("pycudac-sim-module", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    const char *p = so;
    size_t left = size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return NULL;
        }
        p += n;
        left -= (size_t)n;
    }
    no_initializers(fd, so, size);
    snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
    char *direnv = pcc_sim_env_dup("TMPDIR"); /* no getenv without the GIL */
    const char *dir = direnv && *direnv ? direnv : "/tmp";
    int linked = 0;
    pthread_mutex_lock(&name_lock);
    for (int tries = 0; tries < 100 && !linked; tries++) {
        snprintf(link, sizeof link, "%s/pycudac-sim-%ld-%lu.so", dir, (long)getpid(), ++counter);
        if (symlink(fdpath, link) == 0)
            linked = 1;
        else if (errno != EEXIST)
            break;
    }
    pthread_mutex_unlock(&name_lock);
    free(direnv);
    void *h = dlopen(linked ? link : fdpath, RTLD_NOW | RTLD_LOCAL);
    if (linked) {
        unlink(link);
        close(fd);
    } else if (h) {
        *keep_fd = fd;
    } else {
        close(fd);
    }
    return h;
}

const char *sim_image_problem(const void *image, size_t len)
{
    pcc_sim_image_header hdr;
    if (len < 8 || memcmp(image, PCC_SIM_IMAGE_MAGIC, 8) != 0)
        return NULL; /* not a simulator image: the loader refuses it */
    if (len < sizeof hdr + SELFMAG)
        return "the simulator image is truncated (shorter than its header)";
    memcpy(&hdr, image, sizeof hdr);
    if (hdr.size > len - sizeof hdr)
        return "the simulator image is truncated (its header counts more bytes than it has)";
    return NULL;
}

static CUresult sim_cuModuleLoadData(CUmodule *pm, const void *image)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pm == NULL || image == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    /* No length comes with the image: compare the magic byte by byte first,
     * so that a short garbage buffer (NUL-terminated bytes) is not read past
     * its end by the header copy below. */
    for (int i = 0; i < 8; i++)
        if (((const unsigned char *)image)[i] != (unsigned char)PCC_SIM_IMAGE_MAGIC[i])
            return CUDA_ERROR_INVALID_IMAGE;
    pcc_sim_image_header hdr;
    memcpy(&hdr, image, sizeof hdr);
    const unsigned char *so = (const unsigned char *)image + sizeof hdr;
    if (memcmp(hdr.magic, PCC_SIM_IMAGE_MAGIC, 8) != 0 || hdr.abi_version != PCC_SIM_ABI_VERSION ||
        hdr.size < 64 || hdr.size > ((unsigned long long)1 << 34) || memcmp(so, ELFMAG, SELFMAG) != 0)
        return CUDA_ERROR_INVALID_IMAGE;
    /* the shared object goes to dlopen, which trusts it: a damaged one
     * (module_from_buffer of changed bytes) is refused here. The caller
     * (core/module.c) has checked that `size` bytes are there. */
    if (pcc_crc32c(so, (size_t)hdr.size, 1) != hdr.crc32c)
        return CUDA_ERROR_INVALID_IMAGE;
    size_t charge = ((size_t)hdr.size + SIM_MODULE_PAGE - 1) / SIM_MODULE_PAGE * SIM_MODULE_PAGE;
    if ((rc = sim_mem_charge(charge)) != CUDA_SUCCESS)
        return rc;
    CUmodule m = calloc(1, sizeof *m);
    if (m == NULL) {
        sim_mem_uncharge(charge);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->charged = charge;
    m->dl = open_image(so, (size_t)hdr.size, &m->fd);
    if (m->dl == NULL) {
        sim_mem_uncharge(charge);
        free(m);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    pcc_sim_module_init_fn init = (pcc_sim_module_init_fn)dlsym(m->dl, PCC_SIM_MODULE_INIT);
    Dl_info info;
    if (init == NULL || dladdr((void *)init, &info) == 0)
        goto bad;
    m->fbase = info.dli_fbase;
    if (init(module_api(), &m->kernels, &m->count) != PCC_SIM_ABI_VERSION || m->count < 0 ||
        (m->count > 0 && m->kernels == NULL))
        goto bad;
    dl_iterate_phdr(find_segments, m); /* its code: where a kernel may be stopped */
    if (m->count > 0 && m->kernels[0].checked && keep_for_check(m, so, (size_t)hdr.size) < 0)
        goto bad;
    m->funcs = calloc((size_t)m->count + 1, sizeof *m->funcs);
    if (m->funcs == NULL)
        goto bad;
    for (int i = 0; i < m->count; i++) {
        struct CUfunc_st *f = &m->funcs[i];
        f->magic = SIM_FUNC_MAGIC;
        f->mod = m;
        f->k = &m->kernels[i];
        f->max_dynamic_shared = SIM_SHARED_PER_BLOCK;
        f->carveout = -1;
        Dl_info sym;
        const void *fn = f->k->fn ? f->k->fn() : NULL;
        if (fn != NULL && dladdr(fn, &sym) != 0 && sym.dli_sname != NULL && sym.dli_saddr == fn)
            f->linkage = sym.dli_sname;
        if (f->k->nparams > 0) {
            f->argv = calloc((size_t)f->k->nparams, sizeof(void *));
            if (f->argv == NULL)
                goto bad;
        }
    }
    m->magic = SIM_MODULE_MAGIC;
    m->ctx = sim_current_ctx();
    *pm = m;
    return CUDA_SUCCESS;
bad:
    if (m->funcs)
        for (int i = 0; i < m->count; i++)
            free(m->funcs[i].argv);
    free(m->funcs);
    free(m->so);
    free(m->guards);
    dlclose(m->dl);
    if (m->fd >= 0)
        close(m->fd);
    sim_mem_uncharge(m->charged);
    free(m);
    return CUDA_ERROR_INVALID_IMAGE;
}

static CUresult sim_cuModuleUnload(CUmodule m)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!module_ok(m))
        return CUDA_ERROR_INVALID_HANDLE;
    pthread_mutex_lock(&sim_launch_lock); /* not while one of its kernels runs */
    m->magic = 0;
    for (int i = 0; i < m->count; i++) {
        m->funcs[i].magic = 0;
        free(m->funcs[i].argv);
    }
    sim_registry_remove_owner(m);
    sim_report_module_gone(m);
    sim_profile_module_gone(m);
    dlclose(m->dl);
    if (m->fd >= 0) {
        /* A library that stays loaded keeps its name: then so does the fd. */
        char fdpath[64];
        snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", m->fd);
        void *still = dlopen(fdpath, RTLD_LAZY | RTLD_NOLOAD);
        if (still)
            dlclose(still);
        else
            close(m->fd);
    }
    pthread_mutex_unlock(&sim_launch_lock);
    sim_mem_uncharge(m->charged);
    free(m->funcs);
    free(m->so);
    free(m->guards);
    free(m);
    return CUDA_SUCCESS;
}

static CUresult sim_cuModuleGetFunction(CUfunction *pf, CUmodule m, const char *name)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pf == NULL || name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!module_ok(m))
        return CUDA_ERROR_INVALID_HANDLE;
    /* as a GPU's module: by linkage name (an extern "C" kernel's own name, a
     * C++ kernel's mangled one), or by a name expression (pycudac asks for
     * those by their lowered names, which the simulator's are); a C++
     * kernel's plain name finds nothing, as on a GPU, and neither does a
     * static one's (not exported: no linkage name here; its mangled name is
     * the GPU's, which only a name expression reaches on the simulator) */
    for (int i = 0; i < m->count; i++) {
        const struct CUfunc_st *f = &m->funcs[i];
        if ((f->linkage && strcmp(f->linkage, name) == 0) ||
            (m->kernels[i].from_expr && strcmp(m->kernels[i].name, name) == 0)) {
            *pf = &m->funcs[i];
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult sim_cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule m,
                                      const char *name)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (name == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!module_ok(m))
        return CUDA_ERROR_INVALID_HANDLE;
    void *addr = dlsym(m->dl, name);
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (addr == NULL || dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL ||
        info.dli_fbase != m->fbase || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
        return CUDA_ERROR_NOT_FOUND; /* absent, a function, or a dependency's symbol */
    size_t size = (size_t)sym->st_size;
    if (sim_registry_add_global((uintptr_t)addr, size, m) < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (dptr)
        *dptr = (CUdeviceptr)(uintptr_t)addr;
    if (bytes)
        *bytes = size;
    return CUDA_SUCCESS;
}

/* ---- functions -------------------------------------------------------------------------- */

static CUresult sim_cuFuncGetParamInfo(CUfunction f, size_t index, size_t *offset, size_t *size)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (index >= (size_t)f->k->nparams)
        return CUDA_ERROR_INVALID_VALUE;
    if (offset)
        *offset = f->k->param_offsets[index];
    if (size)
        *size = f->k->param_sizes[index];
    return CUDA_SUCCESS;
}

static CUresult sim_cuFuncGetParamCount(CUfunction f, size_t *count)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (count == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *count = (size_t)f->k->nparams;
    return CUDA_SUCCESS;
}

static CUresult sim_cuFuncGetAttribute(int *pi, int attrib, CUfunction f)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (pi == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = SIM_MAX_THREADS_PER_BLOCK; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    case 7: *pi = 0; break; /* CACHE_MODE_CA */
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = f->max_dynamic_shared; break;
    case 9: *pi = f->carveout; break; /* PREFERRED_SHARED_MEMORY_CARVEOUT */
    case 11: case 12: case 13: /* REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH: __cluster_dims__ */
        *pi = (int)f->k->cluster[attrib - 11];
        break;
    case 10: case 14: case 15: *pi = 0; break; /* cluster size must be set, non-portable */
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

static CUresult sim_cuFuncSetAttribute(CUfunction f, int attrib, int value)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || value > SIM_SHARED_OPTIN)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dynamic_shared = value;
        return CUDA_SUCCESS;
    case 9:
        if (value < -1 || value > 100)
            return CUDA_ERROR_INVALID_VALUE;
        f->carveout = value;
        return CUDA_SUCCESS;
    case 14: case 15:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult sim_cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                     CUfunction f, CUoccupancyB2DSize fn,
                                                     size_t dynamicSMemSize, int blockSizeLimit)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (minGridSize == NULL || blockSize == NULL || blockSizeLimit < 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    int bs = blockSizeLimit > 0 && blockSizeLimit < SIM_MAX_THREADS_PER_BLOCK
                 ? blockSizeLimit : SIM_MAX_THREADS_PER_BLOCK;
    if (bs >= PCC_SIM_WARP_SIZE)
        bs -= bs % PCC_SIM_WARP_SIZE;
    while (bs > PCC_SIM_WARP_SIZE &&
           (fn ? fn(bs) : dynamicSMemSize) > (size_t)f->max_dynamic_shared)
        bs -= PCC_SIM_WARP_SIZE;
    *blockSize = bs;
    int per_sm = sim_blocks_per_sm(f, bs, fn ? fn(bs) : dynamicSMemSize);
    *minGridSize = sim_cpu_count() * (per_sm > 0 ? per_sm : 1);
    return CUDA_SUCCESS;
}

/* As a GPU counts: whole warps of threads, shared memory with the system's
 * reserve per block, and the block limit; and no more blocks on the device
 * than a cooperative launch can run at once (an OS thread each). */
int sim_blocks_per_sm(CUfunction f, int threads, size_t dyn_shared)
{
    if (threads <= 0 || threads > SIM_MAX_THREADS_PER_BLOCK ||
        dyn_shared > (size_t)f->max_dynamic_shared)
        return 0;
    int warps = (threads + PCC_SIM_WARP_SIZE - 1) / PCC_SIM_WARP_SIZE;
    size_t n = SIM_SM_THREADS / ((size_t)warps * PCC_SIM_WARP_SIZE);
    size_t by_shared = SIM_SM_SHARED / (dyn_shared + SIM_SHARED_RESERVED);
    if (by_shared < n)
        n = by_shared;
    if (n > SIM_SM_BLOCKS)
        n = SIM_SM_BLOCKS;
    size_t cap = SIM_MAX_COOP_BLOCKS / (size_t)sim_cpu_count();
    return (int)(n < cap ? n : cap);
}

static CUresult sim_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction f,
                                                                int blockSize,
                                                                size_t dynamicSMemSize)
{
    CUresult rc = sim_enter();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (numBlocks == NULL || blockSize <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (!sim_func_ok(f))
        return CUDA_ERROR_INVALID_HANDLE;
    *numBlocks = sim_blocks_per_sm(f, blockSize, dynamicSMemSize);
    return CUDA_SUCCESS;
}

void sim_fill_module_table(pcc_driver_table *t)
{
    t->cuModuleLoadData = sim_cuModuleLoadData;
    t->cuModuleUnload = sim_cuModuleUnload;
    t->cuModuleGetFunction = sim_cuModuleGetFunction;
    t->cuModuleGetGlobal = sim_cuModuleGetGlobal;
    t->cuFuncGetAttribute = sim_cuFuncGetAttribute;
    t->cuFuncSetAttribute = sim_cuFuncSetAttribute;
    t->cuFuncGetParamInfo = sim_cuFuncGetParamInfo;
    t->cuFuncGetParamCount = sim_cuFuncGetParamCount;
    t->cuOccupancyMaxPotentialBlockSize = sim_cuOccupancyMaxPotentialBlockSize;
    t->cuOccupancyMaxActiveBlocksPerMultiprocessor = sim_cuOccupancyMaxActiveBlocksPerMultiprocessor;
}
