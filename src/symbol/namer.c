/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * namer.c - the naming thread; see namer.h.
 *
 * The recorder hands jobs over through a queue of its own that takes no
 * lock: one producer (the recorder), one consumer (the thread), chunks
 * linked as they fill. A lock the recorder had to take could be held by
 * the thread when it was preempted, and a thread of the idle class may
 * then wait long for the CPU, with the recorder stuck behind it and its
 * rings overflowing. The thread sleeps on an eventfd, written only when
 * it said it sleeps (both sides check the other's word after writing
 * their own, so no wakeup is lost).
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "symbol/namer.h"
#include "util/util.h"

#define CHUNK_JOBS 1024
/* A job waiting this long gets the thread out of the idle class. */
#define BACKLOG_AGE_NS 1000000000ULL

struct job {
	struct module *m;
	uint32_t frame;
	uint64_t addr;
};

struct chunk {
	struct job jobs[CHUNK_JOBS];
	_Atomic size_t filled;	    /* jobs published, written by the producer */
	struct chunk *_Atomic next; /* set by the producer when this one is full */
};

/* A frame's levels as the thread resolved them. */
struct named {
	int n; /* -1: not resolved yet; 0: no name */
	uint64_t symoff;
	struct srcline *lv;
	char *symname; /* owned; lv[].func may point at it */
};

struct namer {
	struct symbolizer *z;
	pthread_t thread;
	_Atomic pid_t tid; /* the thread's, for its scheduling class; 0 until it runs */
	int wake;	   /* eventfd the thread sleeps on */

	/*
	 * The queue: the producer's end and the consumer's. The producer
	 * frees the chunks the consumer is done with (those before head), so
	 * that the thread never frees memory of the recorder's: in the idle
	 * class it could be stopped for long holding the lock of the
	 * recorder's malloc arena, and the recorder with it.
	 */
	struct chunk *tail;
	struct chunk *oldest;	    /* the first chunk not freed (producer) */
	struct chunk *_Atomic head; /* the chunk jobs are taken from (consumer) */
	size_t pos;		    /* next job to take in head */
	_Atomic bool sleeping, done, cancel, exited;
	bool joined; /* by namer_finish: the thread is gone */
	_Atomic uint64_t queued, taken;

	/*
	 * The backlog's age, kept by namer_tick (recorder thread): every job
	 * queued before mark_ns is among the first mark_queued; while some of
	 * those are not taken, the oldest job waits since before mark_ns.
	 */
	uint64_t mark_queued, mark_ns;
	bool promoted;	 /* SCHED_BATCH at nice 19, not SCHED_IDLE */
	bool can_renice; /* nice 19 can be undone (can_renice()) */

	/* Results, under lock (taken briefly by the thread, and at the stop). */
	pthread_mutex_t lock;
	struct named *frames;
	size_t nframes;
	uint64_t named;
};

static void wake(struct namer *n)
{
	uint64_t one = 1;

	if (write(n->wake, &one, sizeof(one)) < 0) {
		/* the counter is saturated: a wakeup is pending anyway */
	}
}

/* The next job, if one was published (consumer side). */
static bool take(struct namer *n, struct job *j)
{
	for (;;) {
		struct chunk *head = atomic_load_explicit(&n->head, memory_order_relaxed);
		size_t filled = atomic_load_explicit(&head->filled, memory_order_acquire);
		struct chunk *next;

		if (n->pos < filled) {
			*j = head->jobs[n->pos++];
			atomic_fetch_add(&n->taken, 1);
			return true;
		}
		next = atomic_load_explicit(&head->next, memory_order_acquire);
		if (n->pos < CHUNK_JOBS || !next)
			return false;
		/* Done with head: the producer frees it. */
		atomic_store_explicit(&n->head, next, memory_order_release);
		n->pos = 0;
	}
}

/* Stores r as frame's result, taking its symname. */
static void store(struct namer *n, uint32_t frame, struct symres *r)
{
	struct named *c;

	pthread_mutex_lock(&n->lock);
	if (frame >= n->nframes) {
		size_t k = n->nframes ? n->nframes : 256;

		while (k <= frame)
			k *= 2;
		n->frames = xrealloc(n->frames, k * sizeof(*n->frames));
		for (size_t i = n->nframes; i < k; i++)
			n->frames[i] = (struct named){.n = -1};
		n->nframes = k;
	}
	c = &n->frames[frame];
	c->n = r->n;
	c->symoff = r->symoff;
	c->symname = r->symname; /* kept: the levels may name it */
	r->symname = NULL;
	c->lv = NULL;
	if (r->n > 0) {
		c->lv = xmalloc((size_t)r->n * sizeof(*c->lv));
		memcpy(c->lv, r->lv, (size_t)r->n * sizeof(*c->lv));
	}
	n->named++;
	pthread_mutex_unlock(&n->lock);
}

/*
 * The idle class while recording (SCHED_IDLE), the batch class at the
 * lowest priority while a backlog ages (SCHED_BATCH, nice 19), normal
 * priority to finish. Best effort: a user without CAP_SYS_NICE may be
 * refused some of the moves, and the thread then stays where it is.
 */
static void set_class(pid_t tid, int policy)
{
	struct sched_param sp = {.sched_priority = 0};

	if (tid <= 0)
		return;
	if (policy == SCHED_BATCH)
		setpriority(PRIO_PROCESS, (id_t)tid, 19);
	else if (policy == SCHED_OTHER)
		setpriority(PRIO_PROCESS, (id_t)tid, 0);
	sched_setscheduler(tid, policy, &sp);
}

static void *namer_main(void *arg)
{
	struct namer *n = arg;
	struct symres *r = xmalloc(sizeof(*r));
	struct job j;

	atomic_store(&n->tid, (pid_t)syscall(SYS_gettid));
	if (!atomic_load(&n->done))
		set_class(atomic_load(&n->tid), SCHED_IDLE);
	while (!atomic_load(&n->cancel)) {
		uint64_t v;

		if (take(n, &j)) {
			symbolize_addr(n->z, j.m, j.addr, false, r);
			store(n, j.frame, r);
			continue;
		}
		if (atomic_load(&n->done))
			break;
		/* Say we sleep, then look once more: a job published meanwhile is seen. */
		atomic_store(&n->sleeping, true);
		if (!take(n, &j)) {
			if (!atomic_load(&n->done) && !atomic_load(&n->cancel) &&
			    read(n->wake, &v, sizeof(v)) < 0 && errno != EINTR)
				break;
			atomic_store(&n->sleeping, false);
			continue;
		}
		atomic_store(&n->sleeping, false);
		symbolize_addr(n->z, j.m, j.addr, false, r);
		store(n, j.frame, r);
	}
	free(r);
	atomic_store(&n->exited, true);
	return NULL;
}

/*
 * Whether this process may take a thread from nice 19 back to 0:
 * CAP_SYS_NICE (bit 23 of the effective set), or an RLIMIT_NICE of 20
 * (its ceiling is 20 - limit).
 */
static bool can_renice(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long caps = 0;
	struct rlimit rl;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	if (f)
		fclose(f);
	if (caps & (1ULL << 23))
		return true;
	return getrlimit(RLIMIT_NICE, &rl) == 0 &&
	       (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= 20);
}

struct namer *namer_start(struct symbolizer *z)
{
	struct namer *n = xcalloc(1, sizeof(*n));

	n->z = z;
	n->can_renice = can_renice();
	n->oldest = n->tail = xcalloc(1, sizeof(*n->tail));
	atomic_store(&n->head, n->oldest);
	n->wake = eventfd(0, EFD_CLOEXEC);
	pthread_mutex_init(&n->lock, NULL);
	if (n->wake < 0 || pthread_create(&n->thread, NULL, namer_main, n) != 0) {
		if (n->wake >= 0)
			close(n->wake);
		pthread_mutex_destroy(&n->lock);
		free(n->oldest);
		free(n);
		return NULL;
	}
	return n;
}

void namer_frame(struct namer *n, struct module *m, uint32_t frame, uint64_t addr)
{
	size_t filled = atomic_load_explicit(&n->tail->filled, memory_order_relaxed);

	if (filled == CHUNK_JOBS) {
		struct chunk *c = xcalloc(1, sizeof(*c)),
			     *head = atomic_load_explicit(&n->head, memory_order_acquire);

		while (n->oldest != head) {
			struct chunk *next = atomic_load(&n->oldest->next);

			free(n->oldest);
			n->oldest = next;
		}

		atomic_store_explicit(&n->tail->next, c, memory_order_release);
		n->tail = c;
		filled = 0;
	}
	n->tail->jobs[filled] = (struct job){m, frame, addr};
	atomic_store_explicit(&n->tail->filled, filled + 1, memory_order_release);
	atomic_fetch_add(&n->queued, 1);
	if (atomic_load(&n->sleeping))
		wake(n);
}

void namer_tick(struct namer *n, uint64_t now)
{
	uint64_t queued = atomic_load(&n->queued), taken = atomic_load(&n->taken);

	if (taken == queued) {
		/* Nothing waits: back to the idle class. */
		if (n->promoted)
			set_class(atomic_load(&n->tid), SCHED_IDLE);
		n->promoted = false;
		n->mark_queued = queued;
		n->mark_ns = now;
		return;
	}
	if (taken >= n->mark_queued) {
		/* What waited at the mark is taken: a new mark, for what waits now. */
		n->mark_queued = queued;
		n->mark_ns = now;
		return;
	}
	/*
	 * Not where nice 19 could not be undone at the stop: it would slow
	 * the finish, which runs at normal priority.
	 */
	if (!n->promoted && n->can_renice && now - n->mark_ns >= BACKLOG_AGE_NS) {
		set_class(atomic_load(&n->tid), SCHED_BATCH);
		n->promoted = true;
	}
}

int namer_finish(struct namer *n, uint64_t deadline_ns, const volatile sig_atomic_t *interrupt)
{
	int ret = 0;

	atomic_store(&n->done, true);
	set_class(atomic_load(&n->tid), SCHED_OTHER);
	wake(n);
	/* Short waits, to see the deadline and the interrupt. */
	while (!atomic_load(&n->exited)) {
		struct timespec ts = {0, 5000000};

		if (interrupt && *interrupt) {
			ret = -EINTR;
			break;
		}
		if (deadline_ns && now_ns() >= deadline_ns) {
			ret = -ETIMEDOUT;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (ret < 0) {
		/* The thread may be deep in a slow lookup: it is not waited for. */
		atomic_store(&n->cancel, true);
		wake(n);
		pthread_detach(n->thread);
		return ret;
	}
	pthread_join(n->thread, NULL);
	n->joined = true;
	return 0;
}

void namer_counts(struct namer *n, uint64_t *queued, uint64_t *done)
{
	*queued = atomic_load(&n->queued);
	pthread_mutex_lock(&n->lock);
	*done = n->named;
	pthread_mutex_unlock(&n->lock);
}

int namer_levels(struct namer *n, uint32_t frame, struct symres *r)
{
	int ret = -1;

	memset(r, 0, sizeof(*r));
	pthread_mutex_lock(&n->lock);
	if (frame < n->nframes && n->frames[frame].n >= 0) {
		const struct named *c = &n->frames[frame];

		r->n = c->n;
		r->symoff = c->symoff;
		if (c->n > 0)
			memcpy(r->lv, c->lv, (size_t)c->n * sizeof(*c->lv));
		ret = r->n;
	}
	pthread_mutex_unlock(&n->lock);
	return ret;
}

void namer_free(struct namer *n)
{
	if (!n)
		return;
	/* A recording that failed before its stop: the thread is ended first. */
	if (!n->joined)
		namer_finish(n, 0, NULL);
	while (n->oldest) {
		struct chunk *next = atomic_load(&n->oldest->next);

		free(n->oldest);
		n->oldest = next;
	}
	for (size_t i = 0; i < n->nframes; i++) {
		free(n->frames[i].lv);
		free(n->frames[i].symname);
	}
	free(n->frames);
	close(n->wake);
	pthread_mutex_destroy(&n->lock);
	free(n);
}
