/*
 * sim/check.h — the simulator as a sanitizer (check mode: PYCUDAC_SIM_CHECK,
 * pycudac.driver.sim_check). Shared by sim/check.c (the configuration, the
 * hook every access of an instrumented kernel calls, memcheck and
 * initcheck), sim/race.c (racecheck's tables), sim/report.c (the reports
 * and their source lines) and the runtime files that call into them
 * (launch.c, fiber.c, warp.c, registry.c). Internal to src/sim/.
 */
#ifndef PYCUDAC_SIM_CHECK_H
#define PYCUDAC_SIM_CHECK_H

#include <stdint.h>

#include "pycudac/backend.h"
#include "sim/sim.h"

/* The checks (bits), as PYCUDAC_SIM_CHECK names them. */
enum { SIM_CHK_MEMCHECK = 1, SIM_CHK_RACECHECK = 2, SIM_CHK_INITCHECK = 4, SIM_CHK_SYNCCHECK = 8,
       SIM_CHK_PROFILE = 16 /* the teaching profile (sim/profile.c), not a check */ };
/* the ones that need an instrumented kernel (--pycudac-sim-check) */
#define SIM_CHK_INSTRUMENTED (SIM_CHK_MEMCHECK | SIM_CHK_RACECHECK | SIM_CHK_INITCHECK | SIM_CHK_PROFILE)
/* The order a block's threads run in between barriers (PYCUDAC_SIM_SCHEDULE). */
enum { SIM_SCHED_FORWARD = 0, SIM_SCHED_REVERSE, SIM_SCHED_RANDOM };

/* ---- sim/check.c ---- */
int sim_check_flags(void);
/* Whether a launch whose checks found errors fails (PCC_CHECK_FAILED). */
int sim_check_raises(void);
int sim_sched_mode(void);
/* The random schedule's seed for block `linear` of the launch (the same
 * whichever worker runs it). */
unsigned long long sim_sched_seed(unsigned long long linear);
/* xorshift64*: the next pseudo-random number of *state. */
unsigned long long sim_sched_next(unsigned long long *state);
int sim_check_configure(const char *checks, const char *schedule, int raise_errors, char *err,
                        size_t len);
void sim_check_config(char *checks, size_t clen, char *schedule, size_t slen, int *raise_errors);

/* A launch (launch lock held): begin readies the checks for the kernel in L;
 * end names the source lines of its reports and returns PCC_CHECK_FAILED
 * when they hold an error and errors raise, else CUDA_SUCCESS. */
void sim_check_launch_begin(CUfunction f, void *const *args, unsigned int shared_bytes);
CUresult sim_check_launch_end(void);
/* A worker's part of the launch, on its own thread (run_blocks); *slot
 * keeps its state from launch to launch. */
struct sim_check_worker;
void sim_check_worker_begin(struct sim_check_worker **slot, sim_block *b, int fiber_mode,
                            const pcc_sim_thread *plain, void *shared, size_t shared_bytes,
                            void *map, size_t map_len);
void sim_check_worker_end(void);
void sim_check_worker_free(struct sim_check_worker *cw);
/* Each block the worker runs. */
void sim_check_block_begin(void);
/* Device malloc handed [p, p+n) to a thread: what racecheck knew of it is
 * of the block it was before. */
void sim_check_heap_fresh(void *p, size_t n);
/* The api's check: before each access of an instrumented kernel. */
void sim_api_check(pcc_sim_thread *t, const void *addr, size_t size, int flags, const void *pc);
/* A fault in the guard below a fiber's stack (launch.c): in check mode
 * (memcheck) a report, and 1 (the launch fails with PCC_CHECK_FAILED); 0
 * otherwise (the sticky fault it always was). pc: where it faulted. */
int sim_check_stack_overflow(const pcc_sim_thread *t, uintptr_t a, uintptr_t pc,
                             size_t stack_size);
/* A barrier that can never complete (fiber.c): a synccheck report when
 * synccheck is on (then the launch fails with PCC_CHECK_FAILED), else the
 * launch failure it always was. Never returns. */
_Noreturn void sim_fail_sync(const pcc_sim_thread *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- sim/race.c ---- */
/* One access as racecheck sees it: the thread's rank in its block, the
 * block's barrier interval and its warp's interval (both advance when the
 * threads synchronize), this worker's block run, the code address. */
typedef struct {
    unsigned int me, bar, wep, gen;
    uint32_t pc;
    int write;
} sim_race_acc;

/* A hazard found: the other access's thread, whether it wrote, its code. */
typedef struct {
    unsigned int other;
    int other_write;
    uint32_t other_pc;
} sim_hazard;

typedef struct sim_race sim_race;
sim_race *sim_race_new(void);
void sim_race_free(sim_race *r);
/* The shared memory racecheck follows directly for this launch: the
 * worker's TLS block and dynamic shared bytes. -1 when out of memory. */
int sim_race_shared_range(sim_race *r, uintptr_t tls_lo, size_t tls_len, uintptr_t dyn_lo,
                          size_t dyn_len);
/* A new block run on this worker: the global memory table starts empty. */
void sim_race_block(sim_race *r);
/* Records an access of [a, a+size); 1 with *h set when it races with an
 * earlier one of another thread in the same interval. */
int sim_race_access(sim_race *r, int shared, uintptr_t a, size_t size, const sim_race_acc *x,
                    sim_hazard *h);

/* [a, a+size) is new memory (device malloc): earlier accesses of this
 * block run to it were to something else. */
void sim_race_forget(sim_race *r, uintptr_t a, size_t size, uint32_t gen);

/* ---- sim/profile.c ---- */
/* The teaching profile: one access of a warp's lane to global or shared
 * memory (shared: 1), grouped with the same instruction's accesses of the
 * warp's other lanes; a block's groups are counted when it ends. */
typedef struct sim_profile sim_profile;
sim_profile *sim_profile_new(void);
void sim_profile_free(sim_profile *p);
void sim_profile_access(sim_profile *p, const pcc_sim_thread *t, int shared, uintptr_t a,
                        size_t size, int write, uintptr_t pc);
void sim_profile_block_end(sim_profile *p, CUmodule m, const char *kernel);
/* The rows so far, one per source line, space and direction, in source
 * order (reset: forget them); the backend's profile entry. */
size_t sim_profile_rows(pcc_profile_row *out, size_t max, int reset);
/* A module goes: its rows' lines are named now, while its code is there. */
void sim_profile_module_gone(CUmodule m);

/* ---- sim/report.c ---- */
/* Adds a report, or counts it into the one of the same check at the same
 * place in the same launch (pc, other_pc: offsets into the module's code;
 * launch: the first serial of the launch). 1 when it is new. */
int sim_report_add(const pcc_check_report *r, uintptr_t pc, uintptr_t other_pc, CUmodule m,
                   unsigned long long launch);
/* The serial the next new report will get. */
unsigned long long sim_report_next_serial(void);
/* Names the source lines of the reports from `since` on whose module is m
 * (addr2line over its shared object) and writes their messages; returns
 * how many reports of them are errors. */
size_t sim_report_finish(CUmodule m, unsigned long long since);
/* The source file and line of each pc (module offsets, return addresses)
 * of module m ("" and 0 where unknown). */
void sim_report_lines(CUmodule m, const uintptr_t *pcs, size_t n, char (*files)[256], int *lines);
/* A module goes: its reports keep their lines, no longer its address. */
void sim_report_module_gone(CUmodule m);
size_t sim_report_copy(pcc_check_report *out, size_t max, unsigned long long since, int clear);
/* The message PCC_CHECK_FAILED raises with (set by sim_report_finish), or
 * a stopped launch's (set by sim/launch.c). */
const char *sim_report_message(void);
void sim_report_message_set(const char *text);

#endif
