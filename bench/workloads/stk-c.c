/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stk-c - a C workload for bench/stack-truth whose time goes into libc.
 *
 * usage: stk-c [SECONDS]   (default 3)
 *
 * SECONDS is CPU time, not wall time: on a busy machine every recording
 * then covers the same work and gets about as many samples (999 a second
 * at -F 999), so two recordings compare.
 *
 * Built with -O2 -g -fno-omit-frame-pointer: the program's own functions
 * keep frame pointers, libc's (memcpy, strlen, qsort) do not, so a
 * frame-pointer unwinder loses the caller of each libc leaf and a DWARF
 * unwinder should not. Each hot call sits in its own noinline function,
 * called from run_round, so the expected stacks are
 *   __memmove_*  <- hot_memcpy <- run_round <- main
 *   __strlen_*   <- hot_strlen <- run_round <- main
 *   cmp_u32 / msort_with_tmp <- qsort <- hot_qsort <- run_round <- main
 * The data changes every round so that no call can be hoisted or skipped.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

#define COPY_BYTES (1 << 20)   /* one copy, out of the L2 cache */
#define STR_BYTES  (256 << 10) /* one string for strlen: long, not a word */
#define SORT_N	   20000       /* elements qsort sorts per call */

static char *copy_src, *copy_dst, *str;
static uint32_t *sort_data;
static volatile uint64_t sink;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* The process's CPU time, in seconds. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* qsort's callback: the one user frame called back from inside libc. */
NOINLINE static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

NOINLINE static void hot_memcpy(int n)
{
	for (int i = 0; i < n; i++) {
		copy_src[i & 4095] = (char)i;
		memcpy(copy_dst, copy_src, COPY_BYTES);
		sink += (unsigned char)copy_dst[i & 4095];
	}
}

NOINLINE static void hot_strlen(int n)
{
	for (int i = 0; i < n; i++) {
		/*
		 * Move the terminator a little every call: the length changes,
		 * so the compiler cannot reuse the last one, and the scan still
		 * reads most of STR_BYTES.
		 */
		size_t end = STR_BYTES - 1 - (next_rand() & 1023);

		str[end] = '\0';
		sink += strlen(str);
		str[end] = 'x';
	}
}

NOINLINE static void hot_qsort(int n)
{
	for (int i = 0; i < n; i++) {
		/* Fresh random data each call: qsort never sees sorted input. */
		for (int j = 0; j < SORT_N; j++)
			sort_data[j] = (uint32_t)next_rand();
		qsort(sort_data, SORT_N, sizeof(*sort_data), cmp_u32);
		sink += sort_data[SORT_N / 2];
	}
}

/*
 * One round: about the same time in each of the three. The store after the
 * last call keeps it from becoming a tail call, which would take run_round
 * out of hot_qsort's stacks.
 */
NOINLINE static void run_round(void)
{
	hot_memcpy(150);
	hot_strlen(2000);
	hot_qsort(4);
	sink++;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3;
	double end;

	copy_src = malloc(COPY_BYTES);
	copy_dst = malloc(COPY_BYTES);
	str = malloc(STR_BYTES);
	sort_data = malloc(SORT_N * sizeof(*sort_data));
	if (!copy_src || !copy_dst || !str || !sort_data) {
		fprintf(stderr, "stk-c: out of memory\n");
		return 1;
	}
	memset(copy_src, 'a', COPY_BYTES);
	memset(str, 'x', STR_BYTES);
	str[STR_BYTES - 1] = '\0';

	end = cpu_now() + seconds;
	while (cpu_now() < end)
		run_round();
	return sink == 42;
}
