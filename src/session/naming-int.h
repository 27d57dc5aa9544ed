/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * naming-int.h - the session's part that names frames (naming.c alone
 * writes it): each new frame handed to the naming thread as it is made
 * (symbol/namer.h), what the thread resolved taken into the profile of
 * the slice it is of, and at the stop the rest within --name-timeout.
 *
 * A slice's frames are numbered in its own profile: the naming thread
 * knows them by the slice's generation. The marks of what it resolved
 * are kept per generation: the current slice's, and those of the sealed
 * slices still waiting for names (output-int.h).
 */
#ifndef PERFMINI_SESSION_NAMING_INT_H
#define PERFMINI_SESSION_NAMING_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/module.h"
#include "store/profile.h"
#include "symbol/namer.h"
#include "symbol/symbolize.h"
#include "util/hmap.h"

struct session;

/* Which frames of a profile the naming thread resolved: a byte per frame id. */
struct resolved {
	uint8_t *b;
	size_t n;
};

/* A sealed slice's generation: its profile (output-int.h's) and its marks. */
struct gen_marks {
	uint32_t gen;
	struct profile *prof;
	struct resolved res;
};

struct sess_naming {
	struct symbolizer *syms; /* the naming thread's until the stop */
	struct namer *namer;	 /* NULL: frames are named at the stop */
	bool joined;		 /* the naming thread ended (naming_name_frames) */
	uint32_t gen;		 /* the current slice's generation */
	struct resolved res;	 /* of the current slice's frames */
	struct gen_marks *old;	 /* of the sealed slices */
	size_t nold;
	size_t unnamed_cut;  /* frames left unnamed because naming was cut short */
	const char *cut_why; /* and why, or NULL */
	/*
	 * Modules whose end the naming thread was told (naming_retire), in
	 * that order, some perhaps let go since (their files closed) or
	 * mapped again; abandoning: how many of them were given up
	 * (naming_hold_budget) and not said let go yet; abandoned: in all.
	 */
	uint32_t *retiring;
	size_t nretiring, retiring_cap;
	struct hmap abandoning; /* ids of modules given up, their files not closed yet */
	size_t abandoned;
};

/* The symbolizer (o's --debug-dir, --no-lines) and its thread; -1 once said. */
int naming_init(struct sess_naming *nm, struct module_set *mods, const struct record_opts *o);
void naming_release(struct sess_naming *nm);
/* The naming thread told there is work. */
void naming_kick(struct sess_naming *nm);
/* A new frame of the current profile, at address addr of module m. */
void naming_new_frame(struct session *s, struct module *m, uint32_t frame, uint64_t addr);
/*
 * The frames the naming thread resolved since the last call: their lines
 * into the profile they are of (the slice's, sealed or not); the modules'
 * facts it read into every profile.
 */
void naming_take(struct session *s);
/*
 * Module m, used, is mapped by no process any more: what was read of it
 * is let go, and its file closed, once every frame of it queued to the
 * naming thread is named (at once without one).
 */
void naming_retire(struct session *s, struct module *m);
/*
 * Module m, let go, unlisted (module_set_unlist) and named by no live
 * slice: all naming keeps of it dropped, and its id given back
 * (module_set_recycle), through the naming thread when there is one (on
 * its answer, naming_take), else at once.
 */
void naming_forget_module(struct session *s, struct module *m);
/*
 * Past the budget of files open (the module set's), modules whose end
 * the naming thread was told and has not reached are given up, oldest
 * first (namer_abandon): their frames not named yet stay without names,
 * and their files are closed once it says so. A machine that runs new
 * programs faster than a rationed naming thread reads them keeps within
 * its descriptors.
 */
void naming_hold_budget(struct session *s);
/* How many frames were left without names because their module was given up. */
uint64_t naming_skipped(const struct sess_naming *nm);
/*
 * Whether the memory budget (--max-memory, util/memlevel.h) is pressed
 * now: past MEM_FULL; and what it cost so far (symbolizer_memory_stats).
 */
bool naming_memory_pressed(const struct sess_naming *nm);
void naming_memory_stats(const struct sess_naming *nm, struct memstats *st);
/* Whether frame f of generation gen was resolved by the naming thread. */
bool naming_resolved(const struct sess_naming *nm, uint32_t gen, uint32_t f);
/*
 * The slice of profile prof ends: a new generation; the old one's marks
 * kept, with prof, until naming_forget. Returns the old one.
 */
uint32_t naming_next_slice(struct sess_naming *nm, struct profile *prof);
/* A sealed slice finished: its generation's marks let go. */
void naming_forget(struct sess_naming *nm, uint32_t gen);
/*
 * The JIT frames of profile p of generation gen, whose slice is over, to
 * the naming thread: it reads the perf maps again for them.
 */
void naming_name_jit(struct session *s, const struct profile *p, uint32_t gen);
/*
 * At the stop, names every frame of the current slice: the naming thread
 * finishes what it has, and the JIT frames (their perf maps now
 * complete), within --name-timeout or until *interrupt.
 */
void naming_name_frames(struct session *s, const volatile sig_atomic_t *interrupt);
/*
 * At the stop, after naming_name_frames: the frames of sealed profile p
 * (of generation gen) the naming thread did not resolve (JIT frames)
 * named, unless naming was cut short, and its modules' facts set.
 */
void naming_name_sealed(struct session *s, struct profile *p, uint32_t gen);
/*
 * Whether named frame f of profile p is where a stack starts (arg: the
 * session): by its name, else by the naming thread's answer while it
 * runs (it alone reads the symbolizer), by the symbolizer once it ended.
 */
bool naming_entry_frame(const struct profile *p, uint32_t f, void *arg);
/*
 * Module id in the profile now after all, where profile_new_next kept
 * nothing of it (let go before the slice began): its path and what was
 * read of it (unless naming was cut short: the thread may still read
 * it), for a summary that counts it from the slices before. At the stop.
 */
void naming_module_back(const struct session *s, uint32_t id);
/*
 * The kernel's symbols read now (before the sampling starts, when the
 * naming thread has no job yet).
 */
void naming_read_kernel(struct sess_naming *nm, struct module_set *mods);
/* The modules met since the last chunk, into the current profile. */
void naming_add_modules(struct session *s);

#endif
