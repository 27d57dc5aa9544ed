/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pingpong.c - two threads passing a byte back and forth through two
 * pipes, ROUNDS times: each round switches each thread out once, so an
 * off-CPU recording gets two spans a round, as many as the rounds say
 * whatever the machine's speed.
 * Usage: pingpong ROUNDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds;

/* The other side: answers each byte. */
static void *ponger(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(2);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	char c = 'x';

	rounds = argc > 1 ? atol(argv[1]) : 10000;
	if (rounds <= 0 || pipe(ping) != 0 || pipe(pong) != 0 ||
	    pthread_create(&t, NULL, ponger, NULL) != 0) {
		fprintf(stderr, "usage: pingpong ROUNDS\n");
		return 2;
	}
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 2;
	pthread_join(t, NULL);
	return 0;
}
