/*
 * core/multi.h — beyond one GPU: peer access and copies between devices
 * (src/core/peer.c), memory and events shared with other processes
 * (src/core/ipc.c), stream-ordered memory pools (src/core/pool.c).
 */
#ifndef PYCUDAC_MULTI_H
#define PYCUDAC_MULTI_H

#include "core/context.h"

/* A Context for device `dev` was made: once contexts of two devices have
 * existed, pcc_st.multi_device is set and launches check that their pointer
 * arguments are reachable from the kernel's device (launch/pointer.c). */
void pcc_peer_note_device(CUdevice dev);

/* A context goes away: the peer access recorded from or to it goes too. */
void pcc_peer_forget(CUcontext ctx);

/* Whether a kernel running in `run` (a Context) may read memory of `mem`
 * (a Context): the same context or device, or peer access enabled from run
 * to mem (recorded by Context.enable_peer_access, or found enabled by the
 * driver: another library may have enabled it). 1, 0, or -1 with an
 * exception. Not for the launch's fast path: it calls the driver. */
int pcc_peer_reachable(PyObject *run, PyObject *mem);

/* Adds `defs` to `type` as static methods (PyCUDA's Context.enable_peer_access,
 * Event.from_ipc_handle). 0 or -1. */
int pcc_type_add_static_methods(PyTypeObject *type, PyMethodDef *defs);

int pcc_peer_init(PyObject *module);
int pcc_ipc_init(PyObject *module);
int pcc_pool_init(PyObject *module);

#endif
