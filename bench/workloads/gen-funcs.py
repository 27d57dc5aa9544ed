#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""gen-funcs - write a C program with N distinct hot functions.

usage: gen-funcs.py N OUTDIR

The program calls f0 ... f(N-1) round-robin through a table, each a few
dozen instructions of integer work, so samples spread over N functions and
many distinct addresses: the number of distinct frames a profiler must name
grows with N. Built like the other workloads (-O2 -g
-fno-omit-frame-pointer), it takes -c CPUSECONDS (each thread runs until
it has used that much CPU time) and -j THREADS like cpu.c.
The functions are spread over OUTDIR/funcs-K.c (1,000 a file, so they
compile in parallel), the table and main() are in OUTDIR/main.c.
"""
import os
import sys

PER_FILE = 1000

HEAD = r"""#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
typedef uint64_t (*fn)(uint64_t);
static volatile uint64_t sink;
static double cpu_seconds = 1;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
"""

FUNC = """NOINLINE uint64_t f%(i)d(uint64_t x)
{
	for (int i = 0; i < %(n)d; i++) {
		x = x * %(m)dULL + (x >> %(s)d);
		x ^= x << %(t)d;
	}
	return x + %(i)d;
}
"""

TAIL = r"""
NOINLINE static uint64_t dispatch(uint64_t x)
{
	for (size_t k = 0; k < sizeof(table) / sizeof(table[0]); k++)
		x = table[k](x);
	return x;
}

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg + 1;
	double end = thread_cpu() + cpu_seconds;
	/* Read the (system-call) thread clock about every 20,000 calls. */
	size_t every = 1 + 20000 / (sizeof(table) / sizeof(table[0]));

	while (thread_cpu() < end)
		for (size_t i = 0; i < every; i++)
			x = dispatch(x);
	sink += x;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 1, c;
	pthread_t tid[64];

	while ((c = getopt(argc, argv, "c:j:")) != -1) {
		if (c == 'c')
			cpu_seconds = atof(optarg);
		else if (c == 'j')
			threads = atoi(optarg);
		else
			return 2;
	}
	if (threads < 1 || threads > 64)
		threads = 1;
	for (int i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(uintptr_t)i);
	worker(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
"""


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: gen-funcs.py N OUTDIR\n")
        return 2
    n, outdir = int(sys.argv[1]), sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for first in range(0, n, PER_FILE):
        with open(os.path.join(outdir, "funcs-%d.c" % (first // PER_FILE)), "w") as f:
            f.write("#include <stdint.h>\n#define NOINLINE __attribute__((noinline))\n\n")
            for i in range(first, min(n, first + PER_FILE)):
                f.write(FUNC % {"i": i, "n": 8 + i % 5, "m": 2 * (i * 2654435761 % 100003) + 1,
                                "s": 7 + i % 23, "t": 3 + i % 11})
    with open(os.path.join(outdir, "main.c"), "w") as f:
        f.write(HEAD)
        for i in range(n):
            f.write("uint64_t f%d(uint64_t);\n" % i)
        f.write("\nstatic const fn table[] = {\n")
        for i in range(n):
            f.write("\tf%d,\n" % i)
        f.write("};\n")
        f.write(TAIL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
