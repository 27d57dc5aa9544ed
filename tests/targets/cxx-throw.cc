/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cxx-throw.cc - a C++ program whose time goes to throwing and catching
 * exceptions: parse_all catches what parse_field throws three calls
 * down, so the samples fall in libstdc++'s __cxa_throw and in libgcc's
 * unwinder (_Unwind_RaiseException, the search of the unwind tables),
 * code built without frame pointers that nobody here wrote.
 *
 * Usage: cxx-throw [SECONDS]   (CPU seconds, default 1)
 */
#include <stdexcept>
#include <stdlib.h>
#include <string>
#include <time.h>

static double cpu_now()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static int parse_field(int v)
{
	if (v % 3 == 0)
		throw std::invalid_argument("field " + std::to_string(v));
	return v * 7;
}

__attribute__((noinline)) static int parse_record(int v)
{
	return parse_field(v) + parse_field(v + 1);
}

__attribute__((noinline)) static int parse_line(int v)
{
	return parse_record(v) ^ parse_record(v + 2);
}

__attribute__((noinline)) static long parse_all(int n)
{
	long sum = 0;

	for (int i = 0; i < n; i++) {
		try {
			sum += parse_line(i);
		} catch (const std::invalid_argument &e) {
			sum += (long)e.what()[0];
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = cpu_now() + secs;
	volatile long sink = 0;

	while (cpu_now() < end)
		sink += parse_all(1000);
	return sink == 42;
}
