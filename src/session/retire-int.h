/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * retire-int.h - the session's part that lets go of the modules no
 * process maps any more (retire.c alone writes it): their unwind tables,
 * what naming read of them, and their files, once they have been idle a
 * while (or at once under the pressure of the budget of open files).
 */
#ifndef PERFMINI_SESSION_RETIRE_INT_H
#define PERFMINI_SESSION_RETIRE_INT_H

#include <stddef.h>
#include <stdint.h>

struct session;

/* Modules no process maps, by when they went idle, oldest first. */
struct sess_retire {
	uint32_t *ids;
	uint32_t *gen; /* the module's idle_gen then: a spell ended since is not this one */
	uint64_t *since;
	size_t n, cap, gen_cap, since_cap;
	/*
	 * Modules let go: their ids are given back once no live slice's
	 * profile names them (retire_recycle).
	 */
	uint32_t *spare;
	size_t nspare, spare_cap;
	size_t nlooked;	     /* spare[0, nlooked) looked at already (retire_recycle_due) */
	uint64_t looked_all; /* when all of them last were */
};

/*
 * The modules gone idle since the last call queued (module_set_take_idle),
 * and those idle long enough (or every one, under pressure) let go; now
 * is the round's time.
 */
void retire_modules(struct session *s, uint64_t now);
/*
 * The ids of the modules let go that no profile the recorder holds names
 * any more given back (module_set_recycle): at once if nothing was made
 * of them (the slice's now may name those: its row is given on), else
 * once naming forgot them (naming_forget_module), unless the counts of
 * their frames without names are to be said at the stop. When a new
 * slice's profile was just made.
 */
void retire_recycle(struct session *s);
/*
 * As retire_recycle, at every retire_modules (now the round's time): the
 * ids let go since the last look, and all of them at most once every
 * RECYCLE_ALL_NS.
 */
void retire_recycle_due(struct session *s, uint64_t now);
void retire_release(struct sess_retire *q);

#endif
