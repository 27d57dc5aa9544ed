/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ration.h - a background thread's CPU time, rationed while the machine
 * is busy.
 *
 * A token bucket of CPU time: it fills at share_permille of the time that
 * passes, holds at most burst_ns, and is charged the CPU time the thread
 * used; while it is in debt, the thread waits. The thread's time is
 * charged once it adds up to charge_ns, and only while the machine is
 * busy: less than half a CPU was idle, on average, between two looks at
 * the machine's idle time, at most one every look_ns (a look costs a
 * system call; the first verdict, before any look, is busy). A thread in
 * debt looks at least every wait_look_ns while it waits, and if the
 * machine has become free its debt is forgiven.
 *
 * Time is read through a struct ration_clock, the system's by default, so
 * that tests drive it. A clock that goes backwards is taken as standing
 * still (no time passed, no CPU used), and arithmetic saturates, so that
 * no jump of a clock makes the bucket overflow.
 *
 * Threads: ration_new may be called on any thread; the rest on the
 * rationed thread alone (the system's CPU clock is the calling thread's).
 */
#ifndef PERFMINI_RATION_H
#define PERFMINI_RATION_H

#include <stdbool.h>
#include <stdint.h>

struct ration_params {
	unsigned share_permille; /* of one CPU, 1 to 1000 */
	int64_t burst_ns;	 /* CPU time saved up at most, >= 0 */
	uint64_t look_ns;	 /* the machine's idle time is read at most this often */
	uint64_t charge_ns;	 /* CPU time used is charged once it adds up to this */
	uint64_t wait_look_ns;	 /* a thread in debt looks at the machine this often */
};

/*
 * Where time comes from; each callback gets ctx. now_ns: a monotonic
 * clock. cpu_ns: the rationed thread's CPU time, 0 when unknown (then
 * nothing is ever charged). idle_ns: the idle time of all the machine's
 * CPUs together, 0 when unknown (then the machine is taken as busy).
 */
struct ration_clock {
	uint64_t (*now_ns)(void *ctx);
	uint64_t (*cpu_ns)(void *ctx);
	uint64_t (*idle_ns)(void *ctx);
	void *ctx;
};

/*
 * A full bucket, as of now. clock NULL: the system's (now_ns(),
 * thread_cpu_ns(), /proc/stat). The rationed thread's CPU time is charged
 * from 0: the thread is expected to be new.
 */
struct ration *ration_new(const struct ration_params *p, const struct ration_clock *clock);

/* Frees r; NULL is a no-op. */
void ration_free(struct ration *r);

/*
 * Brings r up to date (time passed, CPU time used) and says whether the
 * thread may run: 0 if so, else how long to wait, in ns, for the bucket
 * to be out of debt at the current rate (at least 1). The thread calls it
 * again after waiting, since the machine may have become free meanwhile.
 */
uint64_t ration_wait_ns(struct ration *r);

/*
 * Charges cpu_ns that another thread used for the rationed one, unless
 * the machine was free at the last look.
 */
void ration_charge(struct ration *r, uint64_t cpu_ns);

/* Whether the last look found the machine free (half a CPU or more idle). */
bool ration_machine_free(const struct ration *r);

/*
 * The idle time (idle and iowait) of the first "cpu" line of /proc/stat's
 * text, in ticks of ticks_per_s, in ns; 0 when it cannot be read.
 */
uint64_t ration_stat_idle_ns(const char *stat, long ticks_per_s);

#endif
