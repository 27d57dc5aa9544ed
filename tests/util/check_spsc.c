/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_spsc.c - the single-producer, single-consumer queue: on one
 * thread, empty, chunk boundaries (a full chunk, the next one started by
 * a push after the consumer caught up), order and element sizes against
 * a model, and the memory of the chunks left behind given back; on two
 * threads, millions of numbered elements through small chunks, each
 * popped once, in order, whole.
 */
#include "config.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "unit-helpers.h"
#include "util/spsc.h"

START_TEST(test_empty)
{
	struct spsc *q = spsc_new(sizeof(uint64_t), 4);
	uint64_t v = 99;

	ck_assert(!spsc_pop(q, &v));
	ck_assert_uint_eq(v, 99); /* untouched */
	ck_assert_uint_eq(spsc_pushed(q), 0);
	v = 7;
	spsc_push(q, &v);
	ck_assert_uint_eq(spsc_pushed(q), 1);
	v = 0;
	ck_assert(spsc_pop(q, &v));
	ck_assert_uint_eq(v, 7);
	ck_assert(!spsc_pop(q, &v));
	ck_assert_uint_eq(spsc_pushed(q), 1); /* a count of pushes, not of what is left */
	spsc_free(q);
	spsc_free(NULL);
}
END_TEST

/*
 * A chunk filled exactly and emptied: the consumer is at its end with no
 * next chunk yet; the next push starts one, and the pop after finds it.
 */
START_TEST(test_full_chunk)
{
	struct spsc *q = spsc_new(sizeof(int), 3);
	int v;

	for (int i = 0; i < 3; i++)
		spsc_push(q, &i);
	for (int i = 0; i < 3; i++) {
		ck_assert(spsc_pop(q, &v));
		ck_assert_int_eq(v, i);
	}
	ck_assert(!spsc_pop(q, &v));
	ck_assert(!spsc_pop(q, &v)); /* asking again changes nothing */
	v = 3;
	spsc_push(q, &v);
	v = -1;
	ck_assert(spsc_pop(q, &v));
	ck_assert_int_eq(v, 3);
	ck_assert(!spsc_pop(q, &v));
	spsc_free(q);
}
END_TEST

/* A chunk of one element: every push after the first starts a chunk. */
START_TEST(test_chunk_of_one)
{
	struct spsc *q = spsc_new(sizeof(uint16_t), 1);
	uint16_t v;

	for (uint16_t i = 0; i < 10; i++)
		spsc_push(q, &i);
	for (uint16_t i = 0; i < 10; i++) {
		ck_assert(spsc_pop(q, &v));
		ck_assert_uint_eq(v, i);
	}
	ck_assert(!spsc_pop(q, &v));
	spsc_free(q);
}
END_TEST

/*
 * Random runs of pushes and pops against a model, elements of an odd size
 * (so that none is aligned to a word but the first of each chunk), every
 * byte of each checked: the queue hands out what went in, in order, across
 * many chunk boundaries, and says empty exactly when the model is.
 */
START_TEST(test_random_model)
{
	enum { SIZE = 13, CHUNK = 5, STEPS = 20000 };
	static unsigned char model[STEPS][SIZE];
	struct spsc *q = spsc_new(SIZE, CHUNK);
	size_t in = 0, out = 0;
	uint64_t seed = 11;

	while (in < STEPS || out < in) {
		unsigned run = (unsigned)(unit_rand(&seed) % 9);
		unsigned char got[SIZE];

		if (unit_rand(&seed) % 2 && in < STEPS) {
			for (unsigned k = 0; k < run && in < STEPS; k++, in++) {
				for (size_t b = 0; b < SIZE; b++)
					model[in][b] = (unsigned char)unit_rand(&seed);
				spsc_push(q, model[in]);
			}
			ck_assert_uint_eq(spsc_pushed(q), in);
			continue;
		}
		for (unsigned k = 0; k < run; k++) {
			memset(got, 0, sizeof(got));
			if (out == in) {
				ck_assert(!spsc_pop(q, got));
				break;
			}
			ck_assert(spsc_pop(q, got));
			ck_assert_mem_eq(got, model[out], SIZE);
			out++;
		}
	}
	spsc_free(q);
}
END_TEST

/* Elements left in the queue are freed with it (LeakSanitizer would say otherwise). */
START_TEST(test_free_with_elements)
{
	struct spsc *q = spsc_new(100, 2);
	char buf[100] = "x";

	for (int i = 0; i < 9; i++)
		spsc_push(q, buf);
	ck_assert(spsc_pop(q, buf));
	spsc_free(q);
}
END_TEST

/*
 * The chunks the consumer left are freed as the producer goes: a queue
 * that a million elements went through, never more than a few at once,
 * holds a few chunks, not hundreds of thousands. (The allocator's count
 * is glibc's; a sanitizer's allocator keeps its own.)
 */
START_TEST(test_chunks_given_back)
{
#if defined(__SANITIZE_ADDRESS__)
	return;
#else
	struct spsc *q = spsc_new(sizeof(uint64_t), 4);
	struct mallinfo2 before, after;
	uint64_t v;

	before = mallinfo2();
	for (uint64_t i = 0; i < 1000000; i++) {
		spsc_push(q, &i);
		if (i % 3 == 2) {
			for (int k = 0; k < 3; k++) {
				ck_assert(spsc_pop(q, &v));
				ck_assert_uint_eq(v, i - 2 + (uint64_t)k);
			}
		}
	}
	after = mallinfo2();
	/* Without freeing: 250,000 chunks of 48 bytes and more. */
	ck_assert_uint_lt(after.uordblks, before.uordblks + 64 * 1024);
	spsc_free(q);
#endif
}
END_TEST

/* An element of the stress test: a sequence number and two words made from it. */
struct seq_elem {
	uint64_t seq;
	uint64_t neg;	/* ~seq */
	uint64_t mixed; /* seq times an odd constant */
};

#define STRESS_N     4000000ULL
#define STRESS_AHEAD 512 /* most elements the producer keeps in the queue */
#define MIX	     0x9e3779b97f4a7c15ULL

struct stress {
	struct spsc *q;
	_Atomic uint64_t popped; /* by the consumer, for the producer's back-pressure */
};

/*
 * Pushes 1..STRESS_N, never more than STRESS_AHEAD ahead of the consumer,
 * so that the queue stays small and chunks are started and freed all the
 * time while the consumer reads.
 */
static void *stress_producer(void *arg)
{
	struct stress *s = arg;

	for (uint64_t i = 1; i <= STRESS_N; i++) {
		struct seq_elem e = {i, ~i, i * MIX};

		while (i - atomic_load_explicit(&s->popped, memory_order_relaxed) > STRESS_AHEAD)
			sched_yield();
		spsc_push(s->q, &e);
	}
	return NULL;
}

/*
 * A producer thread and this one as the consumer: every number comes out
 * once, in order, with the words made from it (an element read before the
 * producer wrote it, or from a chunk freed and reused, would not match).
 */
START_TEST(test_two_threads)
{
	struct stress s = {.q = spsc_new(sizeof(struct seq_elem), 7)};
	uint64_t expect = 1, misses = 0;
	pthread_t producer;

	ck_assert_int_eq(pthread_create(&producer, NULL, stress_producer, &s), 0);
	while (expect <= STRESS_N) {
		struct seq_elem e;

		/*
		 * On an empty queue, asks again at once, so as to read the
		 * element the producer is pushing while it pushes; gives the
		 * CPU up now and then, for a producer that shares it.
		 */
		if (!spsc_pop(s.q, &e)) {
			if (++misses % 256 == 0)
				sched_yield();
			continue;
		}
		if (e.seq != expect || e.neg != ~expect || e.mixed != expect * MIX)
			ck_abort_msg("element %llu: got seq %llu (neg %llx, mixed %llx)",
				     (unsigned long long)expect, (unsigned long long)e.seq,
				     (unsigned long long)e.neg, (unsigned long long)e.mixed);
		expect++;
		atomic_store_explicit(&s.popped, e.seq, memory_order_relaxed);
	}
	ck_assert_int_eq(pthread_join(producer, NULL), 0);
	/* Nothing more than was pushed: no element came out twice. */
	{
		struct seq_elem e;

		ck_assert(!spsc_pop(s.q, &e));
	}
	ck_assert_uint_eq(spsc_pushed(s.q), STRESS_N);
	spsc_free(s.q);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("spsc");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_full_chunk);
	tcase_add_test(tc, test_chunk_of_one);
	tcase_add_test(tc, test_random_model);
	tcase_add_test(tc, test_free_with_elements);
	tcase_add_test(tc, test_chunks_given_back);
	tcase_add_test(tc, test_two_threads);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
