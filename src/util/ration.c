/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ration.c - a thread's CPU ration; see ration.h.
 *
 * Invariant: between calls, tokens_ns lies in [TOKENS_MIN, burst_ns];
 * last_ns and last_cpu are the clocks' readings the bucket is up to date
 * with, idle_ns and idle_at the machine's idle time at the last look and
 * when it was read.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/clock.h"
#include "util/ration.h"

/* The deepest debt and the highest balance before the cap, far from overflow. */
#define TOKENS_MIN (INT64_MIN / 2)
#define TOKENS_MAX (INT64_MAX / 2)

struct ration {
	struct ration_params p;
	struct ration_clock clock;
	int stat_fd; /* the system clock's /proc/stat, or -1 */

	int64_t tokens_ns;	   /* CPU time the thread may still use */
	uint64_t last_ns;	   /* when tokens_ns was last brought up to date */
	uint64_t last_cpu;	   /* the thread's CPU time charged up to */
	uint64_t idle_ns, idle_at; /* the machine's idle time, and when it was read */
	bool machine_free;	   /* the last look's verdict */
};

uint64_t ration_stat_idle_ns(const char *stat, long ticks_per_s)
{
	unsigned long long idle, iowait;

	if (ticks_per_s <= 0 || sscanf(stat, "cpu %*u %*u %*u %llu %llu", &idle, &iowait) != 2)
		return 0;
	return (uint64_t)(idle + iowait) * (1000000000ULL / (uint64_t)ticks_per_s);
}

/* The system clock's callbacks: ctx is the ration. */
static uint64_t system_now(void *ctx)
{
	(void)ctx;
	return now_ns();
}

static uint64_t system_cpu(void *ctx)
{
	(void)ctx;
	return thread_cpu_ns();
}

static uint64_t system_idle(void *ctx)
{
	struct ration *r = ctx;
	char buf[256];
	ssize_t len = r->stat_fd >= 0 ? pread(r->stat_fd, buf, sizeof(buf) - 1, 0) : -1;

	if (len <= 0)
		return 0;
	buf[len] = '\0';
	return ration_stat_idle_ns(buf, sysconf(_SC_CLK_TCK));
}

struct ration *ration_new(const struct ration_params *p, const struct ration_clock *clock)
{
	struct ration *r = xcalloc(1, sizeof(*r));

	r->p = *p;
	r->stat_fd = -1;
	if (clock) {
		r->clock = *clock;
	} else {
		r->clock = (struct ration_clock){system_now, system_cpu, system_idle, r};
		r->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	}
	r->last_ns = r->clock.now_ns(r->clock.ctx);
	r->tokens_ns = p->burst_ns;
	/* The first look at the machine has this one to compare with. */
	r->idle_ns = r->clock.idle_ns(r->clock.ctx);
	r->idle_at = r->last_ns;
	return r;
}

void ration_free(struct ration *r)
{
	if (!r)
		return;
	if (r->stat_fd >= 0)
		close(r->stat_fd);
	free(r);
}

/* now - then, or 0 if the clock went back. */
static uint64_t since(uint64_t now, uint64_t then)
{
	return now > then ? now - then : 0;
}

/* Takes ns out of the bucket, down to TOKENS_MIN. */
static void debit(struct ration *r, uint64_t ns)
{
	if (ns > (uint64_t)(r->tokens_ns - TOKENS_MIN))
		r->tokens_ns = TOKENS_MIN;
	else
		r->tokens_ns -= (int64_t)ns;
}

/* Puts share_permille of elapsed ns into the bucket, up to TOKENS_MAX (the cap comes later). */
static void credit(struct ration *r, uint64_t elapsed)
{
	uint64_t share = r->p.share_permille;
	/* elapsed * share / 1000, without overflow */
	uint64_t gain = elapsed / 1000 * share + elapsed % 1000 * share / 1000;

	if (gain > (uint64_t)(TOKENS_MAX - r->tokens_ns))
		r->tokens_ns = TOKENS_MAX;
	else
		r->tokens_ns += (int64_t)gain;
}

/*
 * Whether the machine had CPU time to spare since the last look, looking
 * again if look_ns passed since (or the clock went back: then it says
 * busy, having nothing to compare with).
 */
static bool machine_free(struct ration *r, uint64_t now)
{
	if (now < r->idle_at || now - r->idle_at >= r->p.look_ns) {
		uint64_t idle = r->clock.idle_ns(r->clock.ctx);

		uint64_t elapsed = now - r->idle_at;

		/* idle grew by half of elapsed or more (the two readings known) */
		r->machine_free = idle && r->idle_ns && now >= r->idle_at && idle >= r->idle_ns &&
				  idle - r->idle_ns >= elapsed / 2 + elapsed % 2;
		r->idle_ns = idle;
		r->idle_at = now;
	}
	return r->machine_free;
}

uint64_t ration_wait_ns(struct ration *r)
{
	uint64_t now = r->clock.now_ns(r->clock.ctx), cpu = r->clock.cpu_ns(r->clock.ctx);
	uint64_t debt, wait, share = r->p.share_permille;

	credit(r, since(now, r->last_ns));
	/*
	 * The time used is charged once it adds up to charge_ns, and only
	 * then is the machine looked at (a read of /proc/stat costs the
	 * kernel tens of microseconds): a thread waiting for its ration uses
	 * next to nothing, and looks seldom.
	 */
	if (cpu < r->last_cpu) {
		r->last_cpu = cpu; /* went back: nothing known to be used */
	} else if (cpu - r->last_cpu >= r->p.charge_ns) {
		if (!machine_free(r, now))
			debit(r, cpu - r->last_cpu);
		r->last_cpu = cpu;
	} else if (r->tokens_ns < 0 && since(now, r->idle_at) >= r->p.wait_look_ns &&
		   machine_free(r, now)) {
		r->tokens_ns = 0; /* CPU time to spare again: the debt is forgiven */
	}
	if (r->tokens_ns > r->p.burst_ns)
		r->tokens_ns = r->p.burst_ns;
	r->last_ns = now;
	if (r->tokens_ns >= 0)
		return 0;
	/* debt * 1000 / share, without overflow */
	debt = (uint64_t)-r->tokens_ns;
	if (debt / share > UINT64_MAX / 1000 - 1)
		return UINT64_MAX;
	wait = debt / share * 1000 + debt % share * 1000 / share;
	return wait ? wait : 1;
}

void ration_charge(struct ration *r, uint64_t cpu_ns)
{
	if (!r->machine_free)
		debit(r, cpu_ns);
}

bool ration_machine_free(const struct ration *r)
{
	return r->machine_free;
}
