/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * busguard.h - surviving SIGBUS from reading a file through a mapping
 * that someone shrank meanwhile.
 *
 * libelf and libdw read the binaries being named through mmap: a file
 * truncated in place (by its owner, who may be anyone) then makes the
 * next read of a page past its new end raise SIGBUS, which would end the
 * recorder. A thread arms a guard around such reads; SIGBUS on that
 * thread then returns to the point the guard was armed at (sigsetjmp
 * returns 1 there), and the caller gives up on that file for good: what
 * the library was doing was cut off midway, so nothing of it may be
 * touched again. SIGBUS anywhere else keeps its default action.
 *
 * usage:
 *	struct bus_guard g;
 *	if (BUS_GUARD_ARM(&g)) { ...the file changed: abandon it...; }
 *	...reads...
 *	bus_guard_disarm(&g);
 */
#ifndef PERFMINI_BUSGUARD_H
#define PERFMINI_BUSGUARD_H

#include <setjmp.h>

struct bus_guard {
	sigjmp_buf env;
	struct bus_guard *outer; /* the guard armed before, restored by disarm */
};

/* The innermost guard armed on this thread, or NULL. */
extern __thread struct bus_guard *bus_guard_current;

/* Installs the SIGBUS handler (once; later calls do nothing). */
void bus_guard_install(void);

/*
 * Arms g on this thread: 0 now, 1 when a SIGBUS came back here. The
 * signal mask is not saved (a system call at each arm): the handler runs
 * with it unchanged (SA_NODEFER, nothing added), so it is still the
 * thread's own when the handler jumps back.
 */
#define BUS_GUARD_ARM(g)                                                               \
	(bus_guard_install(), (g)->outer = bus_guard_current, bus_guard_current = (g), \
	 sigsetjmp((g)->env, 0))

/* Disarms g (after a SIGBUS too: the guard that fired is still current). */
void bus_guard_disarm(struct bus_guard *g);

#endif
