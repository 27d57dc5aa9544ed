/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * busguard.c - SIGBUS while reading a shrunken file; see busguard.h.
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#include "util/busguard.h"

__thread struct bus_guard *bus_guard_current;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
	struct bus_guard *g = bus_guard_current;

	(void)si, (void)ctx;
	if (g)
		siglongjmp(g->env, 1);
	/* Not a read perfmini guards: what SIGBUS does by default. */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

void bus_guard_install(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, install);
}

void bus_guard_disarm(struct bus_guard *g)
{
	bus_guard_current = g->outer;
}
