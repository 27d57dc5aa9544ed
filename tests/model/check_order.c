/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_order.c - the time-ordering queue: records pushed out of order,
 * as rings of several CPUs deliver them, come out oldest first, each
 * exactly once, equal times in push order, and only up to the limit.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/order.h"
#include "unit-helpers.h"

/* A record of the tests: its time and a serial number, and a payload size. */
struct rec {
	uint64_t time;
	uint32_t serial;
	uint32_t len; /* bytes of the whole record, >= sizeof(struct rec) */
};

struct got {
	struct rec r[4096];
	size_t n;
};

static void deliver(const void *bytes, uint32_t len, void *arg)
{
	struct got *g = arg;
	struct rec r;

	ck_assert_uint_ge(len, sizeof(r));
	memcpy(&r, bytes, sizeof(r));
	ck_assert_uint_eq(r.len, len);
	/* The payload after the header is the serial's low byte, repeated. */
	for (uint32_t i = sizeof(r); i < len; i++)
		ck_assert_uint_eq(((const unsigned char *)bytes)[i], r.serial & 0xff);
	ck_assert_uint_lt(g->n, 4096);
	g->r[g->n++] = r;
}

static void push(struct order *q, uint64_t time, uint32_t serial, uint32_t len)
{
	unsigned char buf[512];
	struct rec r = {time, serial, len};

	ck_assert_uint_le(len, sizeof(buf));
	memcpy(buf, &r, sizeof(r));
	memset(buf + sizeof(r), (int)(serial & 0xff), len - sizeof(r));
	order_push(q, buf, len, time);
}

/* What was delivered is in time order, equal times in push (serial) order. */
static void check_in_order(const struct got *g)
{
	for (size_t i = 1; i < g->n; i++) {
		ck_assert_uint_le(g->r[i - 1].time, g->r[i].time);
		if (g->r[i - 1].time == g->r[i].time)
			ck_assert_uint_lt(g->r[i - 1].serial, g->r[i].serial);
	}
}

START_TEST(test_empty)
{
	struct order q;
	struct got g = {.n = 0};

	order_init(&q);
	order_flush(&q, UINT64_MAX, deliver, &g);
	ck_assert_uint_eq(g.n, 0);
	order_release(&q);
}
END_TEST

/* Two CPUs drained one after the other: their records interleave by time. */
START_TEST(test_two_cpus)
{
	struct order q;
	struct got g = {.n = 0};

	order_init(&q);
	push(&q, 10, 0, 16);
	push(&q, 30, 1, 40);
	push(&q, 50, 2, 16);
	push(&q, 20, 3, 24);
	push(&q, 40, 4, 16);
	order_flush(&q, UINT64_MAX, deliver, &g);
	ck_assert_uint_eq(g.n, 5);
	ck_assert_uint_eq(g.r[0].serial, 0);
	ck_assert_uint_eq(g.r[1].serial, 3);
	ck_assert_uint_eq(g.r[2].serial, 1);
	ck_assert_uint_eq(g.r[3].serial, 4);
	ck_assert_uint_eq(g.r[4].serial, 2);
	order_release(&q);
}
END_TEST

/* A flush delivers up to its limit (inclusive) and keeps the rest intact. */
START_TEST(test_limit)
{
	struct order q;
	struct got g = {.n = 0};

	order_init(&q);
	push(&q, 100, 0, 100);
	push(&q, 300, 1, 200);
	push(&q, 200, 2, 50);
	push(&q, 400, 3, 16);
	order_flush(&q, 200, deliver, &g);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.r[0].serial, 0);
	ck_assert_uint_eq(g.r[1].serial, 2);
	/* Older records arriving later still come before the kept ones. */
	push(&q, 250, 4, 64);
	order_flush(&q, 299, deliver, &g);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.r[2].serial, 4);
	order_flush(&q, UINT64_MAX, deliver, &g);
	ck_assert_uint_eq(g.n, 5);
	ck_assert_uint_eq(g.r[3].serial, 1);
	ck_assert_uint_eq(g.r[4].serial, 3);
	/* Nothing twice. */
	order_flush(&q, UINT64_MAX, deliver, &g);
	ck_assert_uint_eq(g.n, 5);
	order_release(&q);
}
END_TEST

/* Equal times keep the order they were pushed in (a MMAP2 before its samples). */
START_TEST(test_stable)
{
	struct order q;
	struct got g = {.n = 0};

	order_init(&q);
	for (uint32_t i = 0; i < 100; i++)
		push(&q, i % 3 == 0 ? 7 : 5, i, 16 + i % 5 * 8);
	order_flush(&q, UINT64_MAX, deliver, &g);
	ck_assert_uint_eq(g.n, 100);
	check_in_order(&g);
	order_release(&q);
}
END_TEST

/*
 * Records in no order at all (runs of one or two), many of equal times,
 * across flushes: the kept records and the later ones still come out in
 * time order, equal times in push order.
 */
START_TEST(test_shuffled)
{
	struct order q;
	struct got g = {.n = 0};
	uint64_t seed = 7;
	uint32_t serial = 0;

	order_init(&q);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 700; i++)
			push(&q, 100 * (uint64_t)round + unit_rand(&seed) % 150, serial++,
			     (uint32_t)(sizeof(struct rec) + unit_rand(&seed) % 64));
		order_flush(&q, 100 * (uint64_t)round + 60, deliver, &g);
	}
	order_flush(&q, UINT64_MAX, deliver, &g);
	ck_assert_uint_eq(g.n, serial);
	check_in_order(&g);
	order_release(&q);
}
END_TEST

/*
 * Random rounds against a model: each round pushes records of a few
 * "CPUs", each CPU's in time order, then flushes to a random limit; every
 * record comes out once, in time order overall.
 */
START_TEST(test_random_rounds)
{
	struct order q;
	struct got g = {.n = 0};
	uint64_t seed = 42, cpu_time[4] = {0, 0, 0, 0}, last = 0;
	uint32_t serial = 0;

	order_init(&q);
	for (int round = 0; round < 50; round++) {
		uint64_t lo = UINT64_MAX;

		for (int cpu = 0; cpu < 4; cpu++) {
			int k = (int)(unit_rand(&seed) % 15);

			for (int i = 0; i < k && serial < 3000; i++) {
				cpu_time[cpu] += 1 + unit_rand(&seed) % 50;
				push(&q, cpu_time[cpu], serial++,
				     (uint32_t)(sizeof(struct rec) + unit_rand(&seed) % 200));
			}
		}
		/* What no CPU can still send older than: below every CPU's clock. */
		for (int cpu = 0; cpu < 4; cpu++)
			if (cpu_time[cpu] < lo)
				lo = cpu_time[cpu];
		order_flush(&q, lo - unit_rand(&seed) % 20, deliver, &g);
	}
	order_flush(&q, UINT64_MAX, deliver, &g);
	ck_assert_uint_eq(g.n, serial);
	{
		unsigned char *seen = calloc(serial ? serial : 1, 1);

		for (size_t i = 0; i < g.n; i++) {
			ck_assert_uint_ge(g.r[i].time, last);
			last = g.r[i].time;
			ck_assert(!seen[g.r[i].serial]);
			seen[g.r[i].serial] = 1;
		}
		free(seen);
	}
	order_release(&q);
}
END_TEST

/* Records delivered by a flush that keeps a few: counted, their payloads checked, times in order. */
struct tally {
	uint64_t n, last;
};

static void count(const void *bytes, uint32_t len, void *arg)
{
	struct tally *t = arg;
	struct rec r;

	bool whole = true;

	memcpy(&r, bytes, sizeof(r));
	ck_assert_uint_eq(r.len, len);
	for (uint32_t i = sizeof(r); i < len; i++)
		whole &= ((const unsigned char *)bytes)[i] == (r.serial & 0xff);
	ck_assert(whole);
	ck_assert_uint_ge(r.time, t->last);
	t->last = r.time;
	t->n++;
}

/*
 * Flushes that deliver megabytes and keep a few records compact those
 * into the spare buffer, which then takes the next pushes: every record
 * still comes out whole, once, in time order.
 */
START_TEST(test_compact)
{
	struct order q;
	struct tally t = {0, 0};
	uint32_t serial = 0;
	uint64_t time = 0;

	order_init(&q);
	for (int round = 0; round < 6; round++) {
		for (int i = 0; i < 3000; i++)
			push(&q, ++time, serial++, 500);
		/* The last 10 stay, over 1 MiB of the others went: they are moved. */
		order_flush(&q, time - 10, count, &t);
		ck_assert_uint_eq(t.n, serial - 10);
	}
	order_flush(&q, UINT64_MAX, count, &t);
	ck_assert_uint_eq(t.n, serial);
	order_release(&q);
}
END_TEST

/* How many whole pages of b's room past its first from bytes are resident. */
static size_t resident_past(const struct sbuf *b, size_t from)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)b->buf + from + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)b->buf + b->cap) & ~(page - 1);
	size_t n = 0;
	unsigned char *vec;

	if (end <= start)
		return 0;
	vec = malloc((end - start) / page);
	ck_assert_ptr_nonnull(vec);
	ck_assert_int_eq(mincore((void *)start, end - start, vec), 0);
	for (size_t i = 0; i < (end - start) / page; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

/*
 * A burst of megabytes, then quiet: the shed after the burst keeps its
 * room (it was held since the shed before), the next one gives back all
 * but a megabyte of it. Rounds of 1.5 MB and of 0.2 MB in turn give
 * nothing back, so their pages are not faulted in again at each. The
 * queue works as before all along, its records whole and in order.
 */
START_TEST(test_shed)
{
	struct order q;
	struct tally t = {0, 0};
	uint32_t serial = 0;
	uint64_t time = 0;

	order_init(&q);
	order_shed(&q); /* nothing allocated: nothing to do */
	for (int i = 0; i < 8000; i++)
		push(&q, ++time, serial++, 500);
	order_flush(&q, UINT64_MAX, count, &t);
	ck_assert_uint_eq(t.n, serial);
	ck_assert_uint_ge(q.bytes.cap, 8000 * 500);
	ck_assert_uint_ge(resident_past(&q.bytes, 0), 900);
	order_shed(&q);
	ck_assert_uint_ge(resident_past(&q.bytes, 0), 900);
	for (int i = 0; i < 10; i++)
		push(&q, ++time, serial++, 500);
	order_flush(&q, time - 5, count, &t);
	order_shed(&q);
	/* None of the burst's room past the megabyte kept. */
	ck_assert_uint_eq(resident_past(&q.bytes, 1u << 20), 0);
	ck_assert_uint_eq(resident_past(&q.spare, 1u << 20), 0);
	for (int round = 0; round < 6; round++) {
		for (int i = 0; i < (round % 2 ? 400 : 3000); i++)
			push(&q, ++time, serial++, 500);
		order_flush(&q, UINT64_MAX, count, &t);
		ck_assert_uint_eq(t.n, serial);
		order_shed(&q);
		/* The larger rounds' 1.5 MB stays resident, after a smaller round too. */
		ck_assert_uint_ge(resident_past(&q.bytes, 0), 3000 * 500 / 4096 - 2);
	}
	order_flush(&q, UINT64_MAX, count, &t);
	ck_assert_uint_eq(t.n, serial);
	order_release(&q);
}
END_TEST

static Suite *order_suite(void)
{
	Suite *s = suite_create("order");
	TCase *tc = tcase_create("queue");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_two_cpus);
	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_stable);
	tcase_add_test(tc, test_random_rounds);
	tcase_add_test(tc, test_shuffled);
	tcase_add_test(tc, test_compact);
	tcase_add_test(tc, test_shed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(order_suite());
}
