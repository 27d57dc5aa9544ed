/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * retire.c - the modules no process maps any more, let go: their unwind
 * tables, what naming read of them and their files; see retire-int.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "session/session-int.h"
#include "util/alloc.h"

/*
 * How long a module no process maps waits before it is let go: a build
 * runs its compilers over and over, each run mapping the same files
 * again, which are not read anew each time. Sooner while the files open
 * pass RETIRE_PRESSURE percent of the budget, or while the memory budget
 * is pressed (naming_memory_pressed); at once when its file is gone for
 * good (gone_for_good).
 */
#define RETIRE_IDLE_NS	10000000000ULL
#define RETIRE_PRESSURE 50
/*
 * How often every id waiting is looked at again (retire_recycle_due);
 * in between, only those let go since. Most wait for the slices that
 * name them to be written, which takes seconds: a storm of programs
 * keeps thousands waiting, and a look at all of them at every round
 * (ten a second) was a twentieth of the recorder's own time.
 */
#define RECYCLE_ALL_NS 1000000000ULL

/* Module m let go, or to be once naming is done with it: its id to be given back when it can. */
static void retire_spare(struct session *s, struct module *m)
{
	struct sess_retire *q = &s->rt;

	xgrow(&q->spare, &q->spare_cap, q->nspare + 1, sizeof(*q->spare));
	q->spare[q->nspare++] = m->id;
}

/*
 * m (idle since its spell idle_gen began) let go: what unwinding and
 * naming read of it, and its file. Not one mapped again since (and
 * noted again should it go idle), or let go already. One whose file
 * could not be opened (a program gone first) is let go as well: what
 * unwinding and naming tried of it.
 */
static void retire_one(struct session *s, struct module *m, uint32_t idle_gen)
{
	if (m->nmaps || m->idle_gen != idle_gen || m->kind != MODULE_FILE || m->retired)
		return;
	if (s->unwinder)
		unwinder_forget(s->unwinder, m);
	/* Its file closed now, or once naming is done with it (naming_retire). */
	if (m->used)
		naming_retire(s, m);
	else
		module_unpin(&s->mods, m);
	retire_spare(s, m);
}

/*
 * Whether m's file is gone for good: deleted (no name links to it) or
 * gone before it could be opened. No process maps it again, as a build's
 * compilers map theirs again and again: it is let go at once. Not a
 * memfd's, which has no name from the start and may be mapped again.
 */
static bool gone_for_good(const struct module *m)
{
	struct stat st;

	if (m->kind != MODULE_FILE || !strncmp(m->path, "/memfd:", 7))
		return false;
	if (m->fd < 0)
		return !m->unpinned && !m->retired;
	return fstat(m->fd, &st) == 0 && st.st_nlink == 0;
}

/*
 * The modules no process maps any more (their last mapping went with a
 * process reaped, an exec, or a mapping over it), once idle for
 * RETIRE_IDLE_NS: what was read of their unwind tables, names and DWARF
 * let go, and their files closed (once the naming thread has named every
 * frame of theirs queued before: see naming_retire). A machine that runs
 * thousands of short-lived programs holds the descriptors and memory of
 * those that run now, not of every one it ran; a module mapped again is
 * opened again (module_set_get).
 */
void retire_modules(struct session *s, uint64_t now)
{
	struct sess_retire *q = &s->rt;
	uint32_t *ids;
	size_t n = module_set_take_idle(&s->mods, &ids), k = 0;
	bool pressed = (s->mods.pin_budget &&
			s->mods.pinned * 100 > s->mods.pin_budget * RETIRE_PRESSURE) ||
		       naming_memory_pressed(&s->nm);

	xgrow(&q->ids, &q->cap, q->n + n, sizeof(*q->ids));
	xgrow(&q->gen, &q->gen_cap, q->n + n, sizeof(*q->gen));
	xgrow(&q->since, &q->since_cap, q->n + n, sizeof(*q->since));
	for (size_t i = 0; i < n; i++) {
		struct module *m = s->mods.mods[ids[i]];

		if (gone_for_good(m)) {
			retire_one(s, m, m->idle_gen);
			continue;
		}
		q->ids[q->n] = ids[i];
		q->gen[q->n] = m->idle_gen;
		q->since[q->n++] = now;
	}
	free(ids);
	/* Oldest first: those idle long enough, or all of them under pressure. */
	for (; k < q->n && (pressed || now - q->since[k] >= RETIRE_IDLE_NS); k++)
		retire_one(s, s->mods.mods[q->ids[k]], q->gen[k]);
	retire_recycle_due(s, now);
	if (!k)
		return;
	memmove(q->ids, q->ids + k, (q->n - k) * sizeof(*q->ids));
	memmove(q->gen, q->gen + k, (q->n - k) * sizeof(*q->gen));
	memmove(q->since, q->since + k, (q->n - k) * sizeof(*q->since));
	q->n -= k;
}

/*
 * Whether m, let go, must stay on the list of spare ids: its id given
 * back now if it can be, or m off the list for good (mapped again, given
 * back, being forgotten) when not.
 */
static bool still_spare(struct session *s, struct module *m)
{
	uint32_t demoted;

	/* Mapped again, given back, or being forgotten (naming_forget_module): not one now. */
	if (m->free || m->nmaps || m->unlisted)
		return false;
	/* Not let go yet: naming has not reached its end (naming_retire). */
	if (!m->retired)
		return true;
	/*
	 * Nothing made of it: no frame of it in any profile. The row of the
	 * slice's now is given to the next module that takes its id
	 * (profile_module_reuse), in a recording without slices too; the
	 * slices' before are let go of it.
	 */
	if (!m->touched) {
		if (!module_set_recycle(&s->mods, m))
			return true;
		output_drop_module(s, m->id);
		return false;
	}
	if (output_names_module(s, m->id))
		return true;
	/*
	 * What is kept of it: its counts, unless said by name at the stop (it
	 * keeps its id), and names. One kept so before, lacking less, may go
	 * in its place.
	 */
	if (!output_forget_module(s, m->id, &demoted)) {
		if (demoted != PM_NONE)
			retire_spare(s, s->mods.mods[demoted]);
		return false;
	}
	if (!module_set_unlist(&s->mods, m))
		return true;
	naming_forget_module(s, m);
	return false;
}

/* The spare ids from the from'th on looked at, those that must wait kept in order. */
static void recycle_from(struct session *s, size_t from)
{
	struct sess_retire *q = &s->rt;
	size_t kept = from;

	for (size_t i = from; i < q->nspare; i++)
		if (still_spare(s, s->mods.mods[q->spare[i]]))
			q->spare[kept++] = q->spare[i];
	q->nspare = q->nlooked = kept;
}

void retire_recycle(struct session *s)
{
	recycle_from(s, 0);
}

void retire_recycle_due(struct session *s, uint64_t now)
{
	struct sess_retire *q = &s->rt;

	if (now - q->looked_all >= RECYCLE_ALL_NS) {
		q->looked_all = now;
		recycle_from(s, 0);
	} else {
		recycle_from(s, q->nlooked);
	}
}

void retire_release(struct sess_retire *q)
{
	free(q->spare);
	free(q->ids);
	free(q->gen);
	free(q->since);
}
