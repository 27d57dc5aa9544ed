/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_latency.c - the parallelism of CPU samples and their latency
 * weights (latency.c), on a recording built by hand whose threads' lives
 * and spans say at each sample how many threads of its process ran.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/latency.h"
#include "store/profile.h"
#include "unit-helpers.h"

static void sample(struct profile *p, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct pm_sample s = {.time = time, .period = 1000, .pid = pid, .tid = tid};

	profile_add_sample(p, &s);
}

static void span(struct profile *p, uint32_t tid, uint64_t time, uint64_t duration)
{
	struct pm_offcpu x = {.time = time, .duration = duration, .pid = 1, .tid = tid};

	profile_add_offcpu(p, &x);
}

/*
 * Process 1: thread 1 sampled at 100, 300, 600 (inside its own span, as
 * clocks that disagree can put one) and 1000, off the CPU from 500 to
 * 900; thread 2 sampled at 100 and 300, its last record (it exited);
 * thread 3 asleep from 50 to 1100. Process 2: thread 4 sampled at 100,
 * alone in its process whatever runs in the other.
 */
static struct profile *threads(void)
{
	struct profile *p = profile_new();

	sample(p, 1, 1, 100);
	sample(p, 1, 1, 300);
	sample(p, 1, 1, 600);
	sample(p, 1, 1, 1000);
	sample(p, 1, 2, 100);
	sample(p, 1, 2, 300);
	sample(p, 2, 4, 100);
	span(p, 1, 500, 400);
	span(p, 3, 50, 1050);
	return p;
}

struct seen {
	uint32_t parallel[7];
	uint32_t nwaiting[7];
	uint32_t waiting[7][4];
	unsigned calls;
};

static void record_at(const struct latency_at *at, void *arg)
{
	struct seen *s = arg;

	ck_assert_uint_lt(at->sample, 7);
	s->parallel[at->sample] = at->parallel;
	s->nwaiting[at->sample] = at->nwaiting;
	for (uint32_t i = 0; i < at->nwaiting && i < 4; i++)
		s->waiting[at->sample][i] = at->waiting[i];
	s->calls++;
}

START_TEST(test_parallel)
{
	struct profile *p = threads();
	struct seen s;
	static const uint32_t want[7] = {2, 2, 1, 1, 2, 2, 1};

	memset(&s, 0, sizeof(s));
	latency_walk(p, true, record_at, &s);
	ck_assert_uint_eq(s.calls, 7);
	for (int i = 0; i < 7; i++)
		ck_assert_msg(s.parallel[i] == want[i], "sample %d: %u threads, want %u", i,
			      s.parallel[i], want[i]);
	/* Thread 3 sleeps under every sample of process 1; thread 1's own span is not "waiting". */
	for (int i = 0; i < 6; i++) {
		ck_assert_uint_eq(s.nwaiting[i], 1);
		ck_assert_uint_eq(s.waiting[i][0], 1); /* the span of thread 3 */
	}
	ck_assert_uint_eq(s.nwaiting[6], 0);
	/* Without asking for them, no waiting threads. */
	memset(&s, 0, sizeof(s));
	latency_walk(p, false, record_at, &s);
	ck_assert_uint_eq(s.nwaiting[0], 0);
	ck_assert_uint_eq(s.parallel[0], 2);
	profile_free(p);
}
END_TEST

START_TEST(test_weights)
{
	struct profile *p = threads();
	static const uint64_t want[7] = {500, 500, 1000, 1000, 500, 500, 1000};

	latency_weigh_samples(p);
	for (int i = 0; i < 7; i++)
		ck_assert_uint_eq(p->samples[i].period, want[i]);
	profile_free(p);

	/* Without spans, nothing is known of the threads: left as they are. */
	p = profile_new();
	sample(p, 1, 1, 100);
	sample(p, 1, 2, 100);
	latency_weigh_samples(p);
	ck_assert_uint_eq(p->samples[0].period, 1000);
	ck_assert_uint_eq(p->samples[1].period, 1000);
	profile_free(p);
}
END_TEST

/* Three threads at once: 1000 / 3 rounds to 333. */
START_TEST(test_rounding)
{
	struct profile *p = profile_new();

	for (uint32_t t = 1; t <= 3; t++) {
		sample(p, 1, t, 100);
		sample(p, 1, t, 200);
	}
	span(p, 9, 0, 10); /* a span, elsewhere in time: the spans are known */
	latency_weigh_samples(p);
	for (size_t i = 0; i < p->nsamples; i++)
		ck_assert_uint_eq(p->samples[i].period, 333);
	profile_free(p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("latency");
	TCase *tc = tcase_create("latency");

	tcase_add_test(tc, test_parallel);
	tcase_add_test(tc, test_weights);
	tcase_add_test(tc, test_rounding);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
