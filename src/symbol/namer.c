/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namer.c - the naming thread; see namer.h.
 *
 * The recorder hands jobs over through a queue that takes no lock
 * (util/spsc.h): one producer (the recorder), one consumer (the thread):
 * a lock the recorder had to take could be held by the thread when it was
 * preempted, with the recorder stuck behind it. The thread sleeps on an
 * eventfd, written only when it said it sleeps (both sides check the
 * other's word after writing their own, a fence between, so no wakeup is
 * lost).
 */
#include "config.h"

#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "symbol/namer.h"
#include "symbol/symfile.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/hmap.h"
#include "util/ration.h"
#include "util/spsc.h"

/* The queue's jobs are allocated this many at a time. */
#define CHUNK_JOBS 1024

/* How much nicer than the recording thread this one runs (see namer_main). */
#define NAMER_NICE 5
/*
 * While recording on a busy machine (less than half a CPU idle since the
 * last look at /proc/stat: util/ration.h says when it looks), the thread's
 * CPU time is rationed to 0.5% of one CPU, 20 ms of it saved up at most,
 * unless names are owed (namer_hurry).
 */
static const struct ration_params namer_ration = {
	.share_permille = 5,
	.burst_ns = 20000000LL,
	.look_ns = 100000000ULL,
	.charge_ns = 1000000ULL,
	.wait_look_ns = 1000000000ULL,
};
/*
 * A live view's (namer_start): 5% of one CPU, 250 ms saved up, so that
 * the first modules read on a busy machine (the kernel's symbols, libc's
 * DWARF) are named within a refresh or two, not tens of seconds.
 */
static const struct ration_params live_ration = {
	.share_permille = 50,
	.burst_ns = 250000000LL,
	.look_ns = 100000000ULL,
	.charge_ns = 1000000ULL,
	.wait_look_ns = 1000000000ULL,
};
/* The pages of the files read are looked at every this many frames (symbolizer_trim). */
#define TRIM_JOBS 64
/* ... and given back once this many more bytes of files are resident (symbolizer_give_back_due). */
#define NAMER_GIVE_BACK_BYTES (4u << 20)
/*
 * What was read of a module no frame was named in for IDLE_NS is let go
 * (symbolizer_forget_idle), looked for at most every FORGET_LOOK_NS.
 */
#define IDLE_NS	       60000000000ULL
#define FORGET_LOOK_NS 5000000000ULL
/*
 * What they freed goes back to the system at most every TRIM_NS:
 * malloc_trim walks every free page of the heaps and each madvise stops
 * both threads for a TLB flush (trimmed every 5 s beside a build loop,
 * it took 4% of the recorder's CPU).
 */
#define TRIM_NS 30000000000ULL
/*
 * And what was read of any module, in use or not, once it is AGE_NS old
 * (symbolizer_forget_old): read again as it is needed (the names kept by
 * build-id spare most of that), so that the memory a long recording
 * holds does not grow with its length.
 */
#define AGE_NS 300000000000ULL
/* How often a thread with nothing else to do looks whether the kernel's symbols are read. */
#define DEFERRED_LOOK_MS 2

/*
 * A frame to name, or (gen and frame RETIRE) a module to let go
 * (namer_retire); epoch: its module's when queued (namer_abandon).
 */
struct job {
	struct module *m;
	uint32_t gen, frame;
	uint32_t flags; /* the frame's (pm_frame_flags) */
	uint64_t addr;
	uint32_t epoch;
};

#define RETIRE UINT32_MAX
/* (gen and frame FORGET) a module let go to forget wholly (namer_forget). */
#define FORGET (UINT32_MAX - 1)

/*
 * A frame's levels as the thread resolved them, until namer_drain hands
 * them on: one block, the levels' strings copied after them, so that
 * nothing of the symbolizer's is held (it may drop what it read).
 */
struct result {
	struct result *next;
	uint32_t gen, frame;
	int n; /* 0: no name */
	uint64_t symoff;
	bool at_entry;
	struct srcline lv[];
};

/* What naming found of a module, until namer_drain_modules hands it on. */
struct fact {
	struct fact *next;
	struct module_facts f;
};

struct namer {
	struct symbolizer *z;
	pthread_t thread;
	int wake; /* eventfd the thread sleeps on */

	struct spsc *jobs;     /* struct job, from the recorder to the thread */
	struct spsc *abandons; /* struct job: modules given up (namer_abandon), ahead of jobs */
	struct hmap epochs;    /* the recorder's: module id -> how often it gave it up */
	/* Module id -> 1 + the last epoch given up: its jobs queued before are skipped. */
	struct hmap given_up;
	_Atomic uint64_t skipped; /* frames not named: their module was given up */
	bool unkicked;		  /* the recorder's: jobs queued since namer_kick */
	uint64_t kicked_at;	  /* the recorder's: when namer_kick last woke it (now_coarse_ns) */
	_Atomic bool sleeping, done, cancel;
	_Atomic bool hurry;    /* namer_hurry: no ration while names are owed */
	bool joined;	       /* by namer_finish: the thread is gone */
	struct ration *ration; /* the thread's CPU time while recording: see ration() */
	uint64_t forget_at;    /* when idle modules were last looked for (now_coarse_ns) */
	uint64_t trim_at;      /* when the heaps were last trimmed */
	bool untrimmed;	       /* modules let go since */
	/* Jobs of the kernel set aside while its symbols are read (defer_kernel). */
	struct job *deferred;
	size_t ndeferred, deferred_cap;
	/* Perf maps (module id -> gen + 1): the generation each was read for last. */
	struct hmap perfmap_gen;

	/*
	 * Results, under lock (taken briefly by the thread and by
	 * namer_drain): those not drained yet, oldest first, and how many
	 * frames the thread resolved.
	 */
	pthread_mutex_t lock;
	struct result *ready, **ready_tail;
	struct fact *facts, **facts_tail; /* modules read, not drained yet, oldest first */
	uint64_t named;
	uint32_t *retired; /* ids of the modules let go, not drained yet */
	size_t nretired, retired_cap;
	uint32_t *forgotten; /* and of those forgotten (namer_forget) */
	size_t nforgotten, forgotten_cap;
};

static void wake(struct namer *n)
{
	uint64_t one = 1;

	if (write(n->wake, &one, sizeof(one)) < 0) {
		/* the counter is saturated: a wakeup is pending anyway */
	}
}

/* Stores r as the result of j's frame, its strings copied. */
static void store(struct namer *n, const struct job *j, const struct symres *r)
{
	size_t levels = (size_t)(r->n > 0 ? r->n : 0);
	struct result *res =
		xmalloc(sizeof(*res) + levels * sizeof(*res->lv) + symres_strings_size(r));

	res->next = NULL;
	res->gen = j->gen;
	res->frame = j->frame;
	res->n = r->n;
	res->symoff = r->symoff;
	res->at_entry = r->at_entry;
	symres_copy_levels(r, res->lv, (char *)(res->lv + levels));
	pthread_mutex_lock(&n->lock);
	*n->ready_tail = res;
	n->ready_tail = &res->next;
	n->named++;
	pthread_mutex_unlock(&n->lock);
}

/* Adds id to one of the lists the recorder drains, under the lock. */
static void say_id(struct namer *n, uint32_t **ids, size_t *nids, size_t *cap, uint32_t id)
{
	pthread_mutex_lock(&n->lock);
	xgrow(ids, cap, *nids + 1, sizeof(**ids));
	(*ids)[(*nids)++] = id;
	pthread_mutex_unlock(&n->lock);
}

/* Says module id is let go: namer_drain_retired hands it on. */
static void say_retired(struct namer *n, uint32_t id)
{
	say_id(n, &n->retired, &n->nretired, &n->retired_cap, id);
}

/*
 * The modules the recorder gave up (namer_abandon), ahead of every job:
 * what was read of each let go, its jobs queued before skipped, and said.
 */
static void take_abandons(struct namer *n)
{
	struct job j;

	while (spsc_pop(n->abandons, &j)) {
		symbolizer_retire(n->z, j.m);
		hmap_insert(&n->given_up, j.m->id, NULL)->val = (uint64_t)j.epoch + 1;
		say_retired(n, j.m->id);
	}
}

/* Whether j was queued before its module was given up. */
static bool given_up(struct namer *n, const struct job *j)
{
	const struct hmap_slot *s = hmap_find(&n->given_up, j->m->id);

	return s && j->epoch < s->val;
}

/*
 * While recording, before the first read of job j's module (the thread
 * holds nothing then): on a busy machine, waits until the thread's CPU
 * time is back within its ration (namer_ration); on a machine with CPU
 * time to spare it runs freely. A wakeup of the stop ends the wait, and
 * so does the recorder giving up j's module meanwhile.
 */
static void ration(struct namer *n, const struct job *j)
{
	bool gave_back = false;

	while (!atomic_load(&n->done) && !atomic_load(&n->cancel)) {
		uint64_t wait_ns = ration_wait_ns(n->ration), ms, v;
		struct pollfd p = {.fd = n->wake, .events = POLLIN};

		if (!wait_ns || atomic_load(&n->hurry))
			return;
		/* About to wait: what the last reads touched of the files is given back first. */
		if (!gave_back) {
			if (symbolizer_give_back_due(n->z))
				symbolizer_give_back(n->z);
			gave_back = true;
		}
		ms = wait_ns / 1000000 + 1;
		if (poll(&p, 1, ms > 100 ? 100 : (int)ms) > 0 && read(n->wake, &v, sizeof(v)) < 0) {
			/* a wakeup read by nobody else: the loop sees done or a job */
		}
		take_abandons(n);
		if (given_up(n, j))
			return;
	}
}

/*
 * A job of the kernel, whose symbols are not read yet: they are read on
 * a thread of their own (symbolizer_read_kernel), after the ration's
 * wait, while this thread names the other modules' frames; the kernel's
 * wait until then (run_deferred), when that thread's CPU time is charged
 * to the ration. Returns whether j was set aside.
 */
static bool defer_kernel(struct namer *n, const struct job *j)
{
	if (!symbolizer_read_kernel(n->z, j->m))
		return false; /* not the kernel, or no thread for it: read here */
	xgrow(&n->deferred, &n->deferred_cap, n->ndeferred + 1, sizeof(*n->deferred));
	n->deferred[n->ndeferred++] = *j;
	return true;
}

/*
 * Names one frame. The first look at a module (its symbols, its DWARF's
 * units) is what costs: it waits for the ration; a frame of a module
 * already read is looked up at once, its time charged to the ration.
 */
static void run_job(struct namer *n, const struct job *j, struct symres *r)
{
	struct symfile *f;

	take_abandons(n);
	if (j->gen == FORGET && j->frame == FORGET) {
		symbolizer_drop(n->z, j->m->id);
		hmap_remove(&n->given_up, j->m->id, NULL);
		hmap_remove(&n->perfmap_gen, j->m->id, NULL);
		say_id(n, &n->forgotten, &n->nforgotten, &n->forgotten_cap, j->m->id);
		return;
	}
	if (j->gen == RETIRE && j->frame == RETIRE) {
		/* Every job of the module queued before this one is done (or skipped). */
		if (!given_up(n, j)) {
			symbolizer_save_names(n->z, j->m);
			symbolizer_retire(n->z, j->m);
			say_retired(n, j->m->id);
		}
		return;
	}
	if (given_up(n, j))
		goto skip;
	symbolizer_memory_look(n->z, false);
	/* A perf map grows while its program runs: read again for each generation. */
	if (j->m->kind == MODULE_PERFMAP) {
		struct hmap_slot *g = hmap_insert(&n->perfmap_gen, j->m->id, NULL);

		if (g->val && g->val != (uint64_t)j->gen + 1)
			symbolizer_reread_perfmap(n->z, j->m);
		g->val = (uint64_t)j->gen + 1;
	}
	if (symbolizer_memory_skips(n->z, j->m)) {
		r->n = 0; /* for report to name: the budget allows no more */
		r->symoff = 0;
	} else if (!symbolize_cached(n->z, j->m, j->flags, j->addr, r)) {
		if (!(f = symfile_find(n->z, j->m)) || !symfile_loaded(f)) {
			ration(n, j);
			if (given_up(n, j))
				goto skip;
			if (!f && defer_kernel(n, j))
				return;
		}
		symbolize_frame(n->z, j->m, j->flags, j->addr, r);
		symbolize_keep(n->z, j->m, j->flags, j->addr, r);
	}
	r->at_entry = symbolize_at_entry(n->z, j->m, j->addr);
	/* A module read the first time: what it is, before the first frame named in it. */
	if ((f = symfile_find(n->z, j->m)) && symfile_take_news(f)) {
		struct fact *fact = xcalloc(1, sizeof(*fact));

		symbolize_module_facts(n->z, j->m, &fact->f);
		pthread_mutex_lock(&n->lock);
		*n->facts_tail = fact;
		n->facts_tail = &fact->next;
		pthread_mutex_unlock(&n->lock);
	}
	store(n, j, r);
	symres_release(r);
	/* Something read: the memory budget looked at soon, not a second later. */
	if ((f = symfile_find(n->z, j->m)) && symfile_fresh(f))
		symbolizer_memory_look(n->z, true);
	/*
	 * What a first read touched of the module's files (reading a unit's
	 * DWARF touches much of a file at once) is given back at once, not
	 * TRIM_JOBS frames later, while the machine has CPU time to spare;
	 * on a busy machine the pages faulted in again cost the programs
	 * profiled more than the memory held meanwhile. (The ration's last
	 * look tells: looking again here would change what the ration sees.)
	 * At the stop each module is let go whole once named, its mappings
	 * with it (finish_by_module).
	 */
	if ((f = symfile_find(n->z, j->m)) && symfile_fresh(f) && !atomic_load(&n->done) &&
	    ration_machine_free(n->ration) && symbolizer_give_back_due(n->z))
		symbolizer_give_back(n->z);
	return;
skip:
	/* Its file is closed, or about to be: resolved without a name. */
	r->n = 0;
	r->symoff = 0;
	r->at_entry = false;
	store(n, j, r);
	atomic_fetch_add(&n->skipped, 1);
}

/* The kernel's jobs set aside: its symbols waited for, then its frames named. */
static void run_deferred(struct namer *n, struct symres *r)
{
	if (!n->ndeferred)
		return;
	symfile_get(n->z, n->deferred[0].m);
	ration_charge(n->ration, symbolizer_kernel_read_cpu_ns(n->z));
	for (size_t i = 0; i < n->ndeferred; i++)
		run_job(n, &n->deferred[i], r);
	n->ndeferred = 0;
}

/* Lets go of the modules idle for IDLE_NS, looking at most every FORGET_LOOK_NS. */
static void forget_idle(struct namer *n)
{
	uint64_t now = now_coarse_ns();

	if (now - n->forget_at < FORGET_LOOK_NS)
		return;
	n->forget_at = now;
	if (symbolizer_forget_idle(n->z, now, IDLE_NS) + symbolizer_forget_old(n->z, now, AGE_NS))
		n->untrimmed = true;
	/* What was freed goes back to the system, the naming thread's heap included: one walk. */
	if (n->untrimmed && now - n->trim_at >= TRIM_NS) {
		malloc_trim(0);
		n->trim_at = now;
		n->untrimmed = false;
	}
}

/*
 * Module by module (by id, the kernel first, so that its symbols are
 * read while the others are: see defer_kernel), and in the order queued
 * within one.
 */
static int cmp_job(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	bool xk = x->m->kind == MODULE_KERNEL, yk = y->m->kind == MODULE_KERNEL;

	if (xk != yk)
		return xk ? -1 : 1;
	if (x->m->id != y->m->id)
		return x->m->id < y->m->id ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/*
 * At the stop: what is left is named module by module, and a module read
 * for it let go once its last frame is named (but the last), so that the
 * stop holds one such module's symbols and DWARF at a time, not those of
 * every module the ration had held back (on a busy machine, most of the
 * recording's). The modules read before stay: letting them go would
 * lower no peak, and unmapping their files takes time. The kernel's
 * symbols, if still to be read, are read meanwhile (defer_kernel: the
 * largest read of most stops), and its frames named last.
 */
static void finish_by_module(struct namer *n, struct symres *r)
{
	struct job *jobs = NULL, j;
	size_t njobs = 0, cap = 0;
	bool read_now = false; /* the module of the jobs at hand was read for them */

	while (spsc_pop(n->jobs, &j)) {
		xgrow(&jobs, &cap, njobs + 1, sizeof(*jobs));
		jobs[njobs++] = j;
	}
	if (njobs)
		qsort(jobs, njobs, sizeof(*jobs), cmp_job);
	for (size_t i = 0; i < njobs && !atomic_load(&n->cancel); i++) {
		if (i == 0 || jobs[i - 1].m != jobs[i].m) {
			struct symfile *f = symfile_find(n->z, jobs[i].m);

			read_now = !f || !symfile_loaded(f);
		}
		run_job(n, &jobs[i], r);
		if ((i + 1) % TRIM_JOBS == 0)
			symbolizer_trim(n->z);
		if (read_now && i + 1 < njobs && jobs[i + 1].m != jobs[i].m)
			symbolizer_forget(n->z, jobs[i].m);
	}
	if (!atomic_load(&n->cancel))
		run_deferred(n, r);
	free(jobs);
}

static void *namer_main(void *arg)
{
	struct namer *n = arg;
	struct symres *r = xmalloc(sizeof(*r));
	struct job j;
	unsigned since_trim = 0;

	/*
	 * Below the recording thread, which must drain the rings in time:
	 * sharing a CPU with it, this thread at the same priority held it
	 * off long enough (tens of ms) for a ring of 16 MiB to fill.
	 */
	errno = 0;
	int nice_now = getpriority(PRIO_PROCESS, (id_t)gettid());

	if (errno == 0)
		(void)setpriority(PRIO_PROCESS, (id_t)gettid(), nice_now + NAMER_NICE);
	n->forget_at = now_coarse_ns();
	while (!atomic_load(&n->cancel)) {
		uint64_t v;

		if (atomic_load(&n->done)) {
			/* Every job was queued before done was said. */
			finish_by_module(n, r);
			break;
		}
		if (spsc_pop(n->jobs, &j)) {
			run_job(n, &j, r);
			if (n->ndeferred && symbolizer_kernel_ready(n->z))
				run_deferred(n, r);
			if (++since_trim == TRIM_JOBS) {
				symbolizer_trim(n->z);
				forget_idle(n);
				since_trim = 0;
			}
			continue;
		}
		if (since_trim) {
			symbolizer_trim(n->z);
			forget_idle(n);
			since_trim = 0;
		}
		if (atomic_load(&n->done))
			continue; /* the rest, by module */
		if (n->ndeferred && symbolizer_kernel_ready(n->z)) {
			run_deferred(n, r);
			continue;
		}
		/*
		 * Say we sleep, then look once more: a job published meanwhile
		 * is seen. While the kernel's symbols are read, for a while only.
		 */
		atomic_store(&n->sleeping, true);
		atomic_thread_fence(memory_order_seq_cst);
		if (!spsc_pop(n->jobs, &j)) {
			struct pollfd p = {.fd = n->wake, .events = POLLIN};

			if (!atomic_load(&n->done) && !atomic_load(&n->cancel) &&
			    (!n->ndeferred || poll(&p, 1, DEFERRED_LOOK_MS) > 0) &&
			    read(n->wake, &v, sizeof(v)) < 0 && errno != EINTR)
				break;
			atomic_store(&n->sleeping, false);
			continue;
		}
		atomic_store(&n->sleeping, false);
		run_job(n, &j, r);
		since_trim++;
	}
	free(n->deferred);
	free(r);
	return NULL;
}

struct namer *namer_start(struct symbolizer *z, bool live)
{
	struct namer *n = xcalloc(1, sizeof(*n));

	n->z = z;
	symbolizer_set_give_back_bytes(z, NAMER_GIVE_BACK_BYTES);
	n->ration = ration_new(live ? &live_ration : &namer_ration, NULL);
	n->jobs = spsc_new(sizeof(struct job), CHUNK_JOBS);
	n->abandons = spsc_new(sizeof(struct job), 64);
	hmap_init(&n->given_up);
	hmap_init(&n->epochs);
	n->wake = eventfd(0, EFD_CLOEXEC);
	n->ready_tail = &n->ready;
	n->facts_tail = &n->facts;
	hmap_init(&n->perfmap_gen);
	pthread_mutex_init(&n->lock, NULL);
	if (n->wake < 0 || pthread_create(&n->thread, NULL, namer_main, n) != 0) {
		if (n->wake >= 0)
			close(n->wake);
		ration_free(n->ration);
		pthread_mutex_destroy(&n->lock);
		spsc_free(n->jobs);
		spsc_free(n->abandons);
		hmap_release(&n->given_up);
		hmap_release(&n->epochs);
		free(n);
		return NULL;
	}
	return n;
}

/* How often the recorder gave m up: its jobs carry it. */
static uint32_t epoch_of(struct namer *n, const struct module *m)
{
	const struct hmap_slot *s = n->epochs.count ? hmap_find(&n->epochs, m->id) : NULL;

	return s ? (uint32_t)s->val : 0;
}

void namer_frame(struct namer *n, struct module *m, uint32_t gen, uint32_t frame, uint32_t flags,
		 uint64_t addr)
{
	spsc_push(n->jobs, &(struct job){m, gen, frame, flags, addr, epoch_of(n, m)});
	n->unkicked = true;
}

void namer_retire(struct namer *n, struct module *m)
{
	/* Sorted last of its module's jobs at the stop (cmp_job). */
	spsc_push(n->jobs,
		  &(struct job){.m = m, .gen = RETIRE, .frame = RETIRE, .epoch = epoch_of(n, m)});
	n->unkicked = true;
}

void namer_abandon(struct namer *n, struct module *m)
{
	struct hmap_slot *s = hmap_insert(&n->epochs, m->id, NULL);

	spsc_push(
		n->abandons,
		&(struct job){.m = m, .gen = RETIRE, .frame = RETIRE, .epoch = (uint32_t)s->val++});
	wake(n);
}

uint64_t namer_skipped(struct namer *n)
{
	return atomic_load(&n->skipped);
}

void namer_forget(struct namer *n, struct module *m)
{
	hmap_remove(&n->epochs, m->id, NULL);
	spsc_push(n->jobs, &(struct job){.m = m, .gen = FORGET, .frame = FORGET});
	n->unkicked = true;
}

/* Hands fn each id of a list the thread fills, emptied under the lock. */
static void drain_ids(struct namer *n, uint32_t **list, size_t *nlist, size_t *cap,
		      namer_retired_fn fn, void *arg)
{
	uint32_t *ids;
	size_t nids;

	pthread_mutex_lock(&n->lock);
	ids = *list;
	nids = *nlist;
	*list = NULL;
	*nlist = *cap = 0;
	pthread_mutex_unlock(&n->lock);
	for (size_t i = 0; i < nids; i++)
		fn(ids[i], arg);
	free(ids);
}

void namer_drain_retired(struct namer *n, namer_retired_fn fn, void *arg)
{
	drain_ids(n, &n->retired, &n->nretired, &n->retired_cap, fn, arg);
}

void namer_drain_forgotten(struct namer *n, namer_retired_fn fn, void *arg)
{
	drain_ids(n, &n->forgotten, &n->nforgotten, &n->forgotten_cap, fn, arg);
}

void namer_hurry(struct namer *n, bool on)
{
	if (atomic_exchange(&n->hurry, on) != on && on)
		wake(n);
}

/*
 * namer_kick wakes the thread at most this often: the recorder's rounds
 * come every 5 ms while new programs run and go (a storm of them, a
 * configure script), and a wakeup costs both threads a system call and
 * a switch. The frames wait a little longer for their names.
 */
#define KICK_NS 50000000ULL

void namer_kick(struct namer *n)
{
	uint64_t now;

	if (!n->unkicked)
		return;
	now = now_coarse_ns();
	if (now - n->kicked_at < KICK_NS)
		return;
	n->kicked_at = now;
	n->unkicked = false;
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load(&n->sleeping))
		wake(n);
}

int namer_finish(struct namer *n, uint64_t deadline_ns, const volatile sig_atomic_t *interrupt)
{
	int ret;

	atomic_store(&n->done, true);
	wake(n);
	if ((ret = clock_join_by(n->thread, deadline_ns, interrupt)) == 0) {
		n->joined = true;
		return 0;
	}
	/* The thread may be deep in a slow lookup: it is not waited for. */
	atomic_store(&n->cancel, true);
	wake(n);
	pthread_detach(n->thread);
	return ret;
}

void namer_counts(struct namer *n, uint64_t *queued, uint64_t *done)
{
	*queued = spsc_pushed(n->jobs);
	pthread_mutex_lock(&n->lock);
	*done = n->named;
	pthread_mutex_unlock(&n->lock);
}

void namer_drain(struct namer *n, namer_result_fn fn, void *arg)
{
	struct result *list;
	struct symres *r;

	pthread_mutex_lock(&n->lock);
	list = n->ready;
	n->ready = NULL;
	n->ready_tail = &n->ready;
	pthread_mutex_unlock(&n->lock);
	if (!list)
		return;
	r = xcalloc(1, sizeof(*r));
	while (list) {
		struct result *next = list->next;

		r->n = list->n;
		r->symoff = list->symoff;
		r->at_entry = list->at_entry;
		if (list->n > 0)
			memcpy(r->lv, list->lv, (size_t)list->n * sizeof(*r->lv));
		fn(list->gen, list->frame, r, arg);
		free(list);
		list = next;
	}
	free(r);
}

void namer_drain_modules(struct namer *n, namer_module_fn fn, void *arg)
{
	struct fact *list;

	pthread_mutex_lock(&n->lock);
	list = n->facts;
	n->facts = NULL;
	n->facts_tail = &n->facts;
	pthread_mutex_unlock(&n->lock);
	while (list) {
		struct fact *next = list->next;

		if (fn)
			fn(&list->f, arg);
		free(list->f.segs);
		free(list);
		list = next;
	}
}

void namer_free(struct namer *n)
{
	if (!n)
		return;
	/* A recording that failed before its stop: the thread is ended first. */
	if (!n->joined)
		namer_finish(n, 0, NULL);
	spsc_free(n->jobs);
	spsc_free(n->abandons);
	hmap_release(&n->given_up);
	hmap_release(&n->epochs);
	while (n->ready) {
		struct result *next = n->ready->next;

		free(n->ready);
		n->ready = next;
	}
	namer_drain_modules(n, NULL, NULL);
	free(n->retired);
	free(n->forgotten);
	hmap_release(&n->perfmap_gen);
	close(n->wake);
	ration_free(n->ration);
	pthread_mutex_destroy(&n->lock);
	free(n);
}
