/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * attach.h - the events of a recording: one perf event per selected CPU
 * and target (a thread, or every thread for a whole-system recording),
 * every event of a CPU writing into that CPU's one ring.
 *
 * Functions return 0 or -errno, captured right at the call that failed;
 * a->failed says which kind of call that was (and a->failed_cpu on which
 * CPU), so that the command can say what to do about it. Nothing here
 * prints or exits.
 *
 * Invariant: every descriptor in fds is a perf event; each ring is mapped
 * from the first event opened on its CPU and every later event of that CPU
 * is redirected into it.
 */
#ifndef PERFMINI_ATTACH_H
#define PERFMINI_ATTACH_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture/ring.h"
#include "util/hmap.h"

#define ATTACH_MAX_CPUS 4096

struct attach_ring {
	int cpu;
	bool tracking; /* the tracking event's (see struct attach) */
	int fd;	       /* the event the ring is mapped from */
	void *base;
	size_t maplen;
	struct ring ring;
};

enum attach_failure {
	ATTACH_OK,
	ATTACH_CPUS,	 /* the CPU list: unreadable, malformed, or a CPU offline */
	ATTACH_OPEN,	 /* perf_event_open */
	ATTACH_MMAP,	 /* mapping a ring, even at one page */
	ATTACH_REDIRECT, /* PERF_EVENT_IOC_SET_OUTPUT */
};

struct attach {
	struct perf_event_attr attr;
	/*
	 * A second event opened beside each of attr's, into the same ring
	 * (off-CPU: context switches), when has_attr2; the ids its samples
	 * carry (PERF_SAMPLE_ID) go into ids2, so that they can be told from
	 * attr's. Both attrs must have the same sample_type.
	 */
	struct perf_event_attr attr2;
	bool has_attr2;
	struct hmap ids2; /* ids of the second event */
	/*
	 * A third event likewise, when has_wake (off-CPU: the scheduler's
	 * wake-ups, a tracepoint): optional, so that a kernel that refuses it
	 * costs the wake-ups alone. The first refusal (its -errno in
	 * wake_err) stops its opening; what was opened before stays.
	 */
	struct perf_event_attr wake;
	bool has_wake;
	int wake_err;
	struct hmap ids_wake;
	/*
	 * With wake_wide, the wake-up event is not opened beside each
	 * target's but once per CPU for every thread (attach_open_wake_wide),
	 * since it fires in the waker's context: a target woken by another
	 * process (a server by its clients) has its wake-ups too.
	 */
	bool wake_wide;
	/*
	 * Each CPU's wake-up event once wake_wide opened them, by ring (the
	 * tracking rings' unused): where it is in fds, and its id. The ids
	 * of the events replaced (attach_filter_wake, attach_filter_switch),
	 * of which id set, since when: still known for a while. enabled:
	 * since attach_enable.
	 */
	struct attach_wide {
		size_t at;
		uint64_t id;
	} * wakes;
	struct attach_gone {
		struct hmap *ids;
		uint64_t id, at;
	} * gone;
	size_t ngone, gone_cap;
	bool enabled;
	/*
	 * An event opened once per CPU for every thread when has_switch_wide
	 * (attach_open_switch_wide), into that CPU's ring, that says which
	 * thread each switch picks: a dummy, whose only output is the
	 * CPU-wide switch records, or the scheduler's sched_switch
	 * tracepoint, sampled, which takes a filter. Optional: a refusal
	 * leaves it out.
	 */
	struct perf_event_attr switch_wide;
	bool has_switch_wide;
	/*
	 * The ids of the switch_wide events (a sampled tracepoint's tell its
	 * samples from the others'), and where each is, by ring, as wakes.
	 */
	struct hmap ids_switch;
	struct attach_wide *switches;
	/*
	 * The tracking event, when has_track: a dummy event beside each of
	 * attr's that reports the mappings, names and tasks instead of it,
	 * into rings of its own (track_pages data pages, one per CPU) that
	 * wake the reader at every record, so that a new mapping is read
	 * (and its file opened) while its process still runs.
	 */
	struct perf_event_attr track;
	bool has_track;
	unsigned track_pages;
	bool draining_tracking; /* attach_drain is in a tracking ring (for its callback) */
	bool cpus[ATTACH_MAX_CPUS];
	int *fds;
	size_t nfds, fds_cap;
	struct attach_ring *rings;
	size_t nrings;
	size_t page_size;
	unsigned pages;	    /* data pages per ring, a power of two */
	bool pages_reduced; /* the locked-memory limit made pages smaller */
	enum attach_failure failed;
	int failed_cpu; /* ATTACH_CPUS: the offline CPU, or -1 */
};

/* Sets a up for events of attr with rings of pages data pages. */
void attach_init(struct attach *a, const struct perf_event_attr *attr, unsigned pages);
/* Adds the second event of every target and CPU (see struct attach). */
void attach_add_second(struct attach *a, const struct perf_event_attr *attr2);
/* Adds the tracking event of every target and CPU, its rings of pages data pages. */
void attach_add_tracking(struct attach *a, const struct perf_event_attr *track, unsigned pages);
/* Whether id is that of a second event. */
bool attach_is_second(const struct attach *a, uint64_t id);
/* Adds the wake-up event of every target and CPU (see struct attach). */
void attach_add_wake(struct attach *a, const struct perf_event_attr *wake);
/*
 * wake_wide: opens the wake-up event on each CPU that has a sampling
 * ring, for every thread, into that ring; a refusal ends the wake-up
 * events as in attach_thread.
 */
void attach_open_wake_wide(struct attach *a);
/*
 * wake_wide: replaces each CPU's wake-up event by one whose samples pass
 * filter (a tracepoint filter; NULL: every sample), into the same ring,
 * enabled where the others are, before the one it replaces is closed (a
 * wake-up may be sampled by both meanwhile), at now (ns): the ids of the
 * events replaced stay known for some seconds, for their samples still
 * to be read. 0, or the -errno of the first refusal: the CPUs before it
 * have their new event, the others their old one.
 */
int attach_filter_wake(struct attach *a, const char *filter, uint64_t now);
/* The same for the switch_wide events (a tracepoint's: a dummy's take no filter). */
int attach_filter_switch(struct attach *a, const char *filter, uint64_t now);
/* Whether id is that of a switch_wide event. */
bool attach_is_switch(const struct attach *a, uint64_t id);
/*
 * Opens the event of sw (see switch_wide) on each CPU that has a
 * sampling ring, enabled; has_switch_wide says whether every CPU has it
 * (a refusal closes none opened before, and ends the opening).
 */
void attach_open_switch_wide(struct attach *a, const struct perf_event_attr *sw);
/* Whether id is that of a wake-up event. */
bool attach_is_wake(const struct attach *a, uint64_t id);
/* Closes and unmaps everything. */
void attach_release(struct attach *a);

/*
 * Selects the online CPUs, or those of cpulist ("0-3,6") when not NULL.
 * Returns 0, -EIO (the online list unreadable), -EINVAL (a malformed list)
 * or -ENODEV (a listed CPU is offline: a->failed_cpu).
 */
int attach_cpus(struct attach *a, const char *cpulist);

/* Opens the event for thread tid (-1: every process) on every selected CPU. */
int attach_thread(struct attach *a, pid_t tid);

/*
 * Opens every thread of process pid, listing /proc/PID/task again until a
 * pass finds no thread it has not opened (threads created meanwhile by an
 * opened thread are inherited, the others are caught here). -ESRCH when
 * the process does not exist or has no thread left.
 */
int attach_process(struct attach *a, uint32_t pid);

/* Enables or disables every event; returns 0 or the first -errno. */
int attach_enable(struct attach *a);
int attach_disable(struct attach *a);

/*
 * The samples the kernel dropped, in all the events (their rings were
 * full), as each counts them (PERF_FORMAT_LOST); 0 where the kernel
 * does not count them. Read it after the last drain.
 */
uint64_t attach_lost(const struct attach *a);

/*
 * Drains every ring into fn (see ring_drain); while a tracking ring is
 * drained, draining_tracking says so. Returns the number of rings whose
 * data could not be framed (a record of impossible size).
 */
size_t attach_drain(struct attach *a, ring_record_fn fn, void *arg);

/*
 * How full the fullest tracking ring is, in percent of its size: what
 * waits there for the next attach_drain.
 */
unsigned attach_tracking_fill(const struct attach *a);

#endif
