/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namer.h - naming frames on a thread of their own, while recording.
 *
 * Each new frame is handed to the naming thread as it is met, which
 * resolves it (reading its module's symbols and DWARF the first time), so
 * that at the stop only the last moments' frames are left.
 *
 * While the recording goes on, the thread uses the CPU time the machine
 * has to spare: while half a CPU or more is idle it runs freely; on a busy
 * machine it reads a module for the first time (the costly part of
 * naming) only within a ration of 0.5% of one CPU (20 ms of it saved up
 * at most), so that it takes little from the profiled programs, and what
 * it has not named by the stop it names then, at full speed. It runs 5
 * nicer than the recording thread, which must drain the rings before
 * they fill (at the same priority, sharing a CPU with it, it held the
 * recorder off for tens of milliseconds: records were lost), but never
 * in the idle class nor at a low nice level: sharing the recorder's
 * address space, a starved thread preempted in the middle of a system
 * call (mmap, say) holds kernel locks the recorder needs, and the
 * recorder stalled behind it long enough to lose records (seen with
 * SCHED_IDLE and nice 19 on a busy machine: up to seconds of samples
 * lost, in about one run of six).
 *
 * What it read of a module no frame was named in for a minute is let go
 * (symbolizer_forget_idle), to be read again if the module's code runs
 * again: a long recording of a whole machine holds the code run lately.
 * What it read of any module is let go once five minutes old
 * (symbolizer_forget_old), so that what reading adds to (libdw's units
 * of a library sampled all day) does not grow with the recording.
 *
 * Ownership: the symbolizer handed to namer_start is the thread's alone
 * until namer_finish has joined it, but for the caller's reads into it
 * before it queues the first frame (the thread touches it for jobs only;
 * the queue publishes what was read before a job to the thread).
 * Results are written under the namer's lock, so that they can be read
 * even when the thread could not be joined (naming cut short, the thread
 * still waiting on a slow source).
 */
#ifndef PERFMINI_NAMER_H
#define PERFMINI_NAMER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/module.h"
#include "symbol/symbolize.h"

struct namer;

/*
 * Starts the thread over z. Returns NULL when it cannot be started: then
 * nothing is named in the background and the caller names every frame
 * itself. live: for a view that shows names while recording (perfmini
 * top), whose ration on a busy machine is 5% of one CPU, 250 ms of it
 * saved up, so that the first modules read do not keep its table unnamed.
 */
struct namer *namer_start(struct symbolizer *z, bool live);

/*
 * Queues frame id frame, at addr of m, with the frame's flags (recorder
 * thread: see symbolize_frame); the thread
 * starts on it at the next namer_kick or namer_finish. gen is the
 * caller's, handed back with the result: which of its tables the frame
 * id is of (a recording in slices numbers each slice's frames anew).
 */
void namer_frame(struct namer *n, struct module *m, uint32_t gen, uint32_t frame, uint32_t flags,
		 uint64_t addr);
/*
 * Wakes the thread if frames were queued since the last call: once a
 * round of the recorder's loop, not once a frame (each wakeup costs both
 * threads a system call and the thread a switch), and no more than every
 * 50 ms; the calls meanwhile wake nothing, and a later one wakes it for
 * their frames.
 */
void namer_kick(struct namer *n);
/*
 * Whether names are owed now (on): files wait for them and would be
 * finished without them. While on, the thread's CPU time is not rationed.
 */
void namer_hurry(struct namer *n, bool on);

/*
 * Lets the thread finish what is queued, without its ration, and joins
 * it. It is cut short when deadline_ns (on now_ns()'s clock; 0 for none)
 * passes or *interrupt becomes non-zero: the frames not named by then stay
 * unnamed, and the thread, if it is still busy, is left to end with the
 * process. Returns 0 when everything was named, -ETIMEDOUT or -EINTR.
 */
int namer_finish(struct namer *n, uint64_t deadline_ns, const volatile sig_atomic_t *interrupt);

/* How many frames were queued, and how many of them are named (resolved or not). */
void namer_counts(struct namer *n, uint64_t *queued, uint64_t *done);

/*
 * Hands every frame the thread resolved since the last call to fn, oldest
 * first, and forgets its levels: r (whose symname is NULL) and its
 * strings live until fn returns; r->at_entry says whether the frame is at
 * its module's ELF entry point. The recorder drains as it goes, so that
 * the namer holds only what was resolved since; it may drain while the
 * thread runs, and after namer_finish failed.
 */
typedef void (*namer_result_fn)(uint32_t gen, uint32_t frame, const struct symres *r, void *arg);
void namer_drain(struct namer *n, namer_result_fn fn, void *arg);

/*
 * Hands fn what the thread found of each module it read since the last
 * call (symbolize_module_facts), each before any frame named in it is
 * handed to namer_drain's fn; fn's f lives until fn returns.
 */
typedef void (*namer_module_fn)(const struct module_facts *f, void *arg);
void namer_drain_modules(struct namer *n, namer_module_fn fn, void *arg);
/*
 * Queues the end of module m (recorder thread): once every frame of it
 * queued before is named, the thread lets go of what it read of m
 * (symbolizer_retire) and says so through namer_drain_retired, after
 * which it reads nothing of m's until a frame of it is queued again.
 */
void namer_retire(struct namer *n, struct module *m);
/*
 * Gives m up at once (recorder thread), ahead of every job queued: what
 * was read of it is let go, its frames queued before are resolved without
 * a name (counted by namer_skipped), and it is said let go through
 * namer_drain_retired, after which the thread reads nothing of m's until
 * a frame of it is queued again (a count of abandons per module, kept
 * here, tells those from the older).
 * For a recorder that must close files the thread has not reached.
 */
void namer_abandon(struct namer *n, struct module *m);
/* How many frames were resolved without a name because their module was given up. */
uint64_t namer_skipped(struct namer *n);
/* Hands fn the id of each module the thread let go since the last call. */
typedef void (*namer_retired_fn)(uint32_t module, void *arg);
void namer_drain_retired(struct namer *n, namer_retired_fn fn, void *arg);
/*
 * Queues the forgetting of module m, let go before and said so (recorder
 * thread): the thread drops all it keeps by m's id (symbolizer_drop) and
 * says so through namer_drain_forgotten, reading nothing of m after
 * that; the id may then be given to another module.
 */
void namer_forget(struct namer *n, struct module *m);
void namer_drain_forgotten(struct namer *n, namer_retired_fn fn, void *arg);
/*
 * Frees n, ending its thread first if namer_finish has not; never after
 * namer_finish failed (the thread, left running, may still use it).
 */
void namer_free(struct namer *n);

#endif
