/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * demo.c - a small program with a known profile, for 'scripts/demo':
 * about two thirds of its time in compress_block(), one third in
 * checksum(), both called from main() through process_chunk().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile uint64_t sink;

/*
 * Compilers leave a leaf function without a frame even under
 * -fno-omit-frame-pointer, which hides its caller from frame-pointer call
 * chains; asking for the frame address gives it one.
 */
#define KEEP_FRAME() __asm__ volatile("" : : "r"(__builtin_frame_address(0)))

static uint64_t __attribute__((noinline)) compress_block(uint64_t seed, int rounds)
{
	uint64_t x = seed;

	KEEP_FRAME();
	for (int i = 0; i < rounds; i++)
		x = x * 6364136223846793005ULL + (x >> 17) + 1442695040888963407ULL;
	return x;
}

static uint64_t __attribute__((noinline)) checksum(uint64_t seed, int rounds)
{
	uint64_t h = seed ^ 0xcbf29ce484222325ULL;

	KEEP_FRAME();
	for (int i = 0; i < rounds; i++)
		h = (h ^ (uint64_t)i) * 0x100000001b3ULL;
	return h;
}

static void __attribute__((noinline)) process_chunk(uint64_t i)
{
	sink += compress_block(i, 20000);
	sink += checksum(i, 10000);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, start = seconds();
	uint64_t i = 0;

	while (seconds() - start < secs)
		process_chunk(i++);
	printf("demo: %llu chunks\n", (unsigned long long)i);
	return 0;
}
