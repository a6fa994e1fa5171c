/*
 * sim/multi.h — the simulator beyond one device, shared by the files that
 * own it: src/sim/devices.c (several devices, their primary contexts, peer
 * access, peer copies), src/sim/ipc.c (memory and events shared between
 * processes) and src/sim/pool.c (memory pools, also shared between
 * processes). Each fills its entries of the driver table after the rest of
 * the simulator has filled its own (sim/driver.c calls sim_fill_multi_table
 * last), so it may wrap an entry it extends: the wrapper keeps the entry it
 * replaced and calls it for what it does not handle itself.
 *
 * Memory another process maps lives in a memfd (a shared mapping): an
 * exported allocation is moved into one at export, in place (the address
 * does not change); a pool that can be exported allocates from one.
 */
#ifndef PYCUDAC_SIM_MULTI_H
#define PYCUDAC_SIM_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "pycudac/cudadrv.h"

/* The most devices PYCUDAC_SIM_DEVICES may ask for. */
#define SIM_MAX_DEVICES 16

/* ---- sim/devices.c ---- */
/* PYCUDAC_SIM_DEVICES (1..SIM_MAX_DEVICES, default 1), read once. */
int sim_device_count(void);
/* The primary context of device `dev` (0 <= dev < sim_device_count()): the
 * same struct for the life of the process. */
struct CUctx_st *sim_primary_ctx(int dev);
/* Fills the entries of all three files (devices, ipc, pool). */
void sim_fill_multi_table(pcc_driver_table *t);

/* ---- sim/ipc.c ---- */
void sim_fill_ipc_table(pcc_driver_table *t);

/* ---- sim/pool.c ---- */
void sim_fill_pool_table(pcc_driver_table *t);

/* ---- shared mappings (sim/ipc.c) ---- */
/* The page size. */
size_t sim_page(void);
/* A memfd of `len` bytes named "pycudac-<what>-<16 hex digits of nonce>";
 * -1 on failure. */
int sim_memfd(const char *what, uint64_t nonce, size_t len);
/* A random 64-bit value (never 0). */
uint64_t sim_nonce(void);
/* Maps [off, off+len) of `fd` (page-aligned) read-write, MAP_SHARED,
 * between two inaccessible guard pages: *data is its first byte, *map and
 * *map_len the whole mapping (for munmap). 0, or -1 (nothing mapped). */
int sim_map_shared(int fd, size_t off, size_t len, char **data, void **map, size_t *map_len);

#endif
