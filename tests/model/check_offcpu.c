/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_offcpu.c - pairing switch-outs with switch-ins: hand-built
 * sequences of context-switch samples and switch records give the spans
 * expected, with their stacks, lengths and preemption, and none for the
 * idle task, exited threads, short spans or switch-outs without a stack;
 * a span ends where its thread is picked, given CPU-wide records.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/offcpu.h"
#include "unit-helpers.h"

struct spans {
	struct offcpu_span s[16];
	size_t n;
};

static void collect(const struct offcpu_span *s, void *arg)
{
	struct spans *g = arg;

	ck_assert_uint_lt(g->n, 16);
	g->s[g->n++] = *s;
}

/* A blocked switch-out: the sample, then the record, then the switch-in. */
START_TEST(test_pair)
{
	struct spans g = {0};
	struct offcpu o;

	offcpu_init(&o, 0, collect, &g);
	offcpu_sample(&o, 10, 11, 1, 1000, 7, 3);
	offcpu_switch_out(&o, 10, 11, 1, 1002, false);
	ck_assert_uint_eq(g.n, 0);
	offcpu_switch_in(&o, 11, 5000);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.s[0].pid, 10);
	ck_assert_uint_eq(g.s[0].tid, 11);
	ck_assert_uint_eq(g.s[0].out, 1000);
	ck_assert_uint_eq(g.s[0].in, 5000);
	ck_assert_uint_eq(g.s[0].stack, 7);
	ck_assert_uint_eq(g.s[0].comm, 3);
	ck_assert(!g.s[0].preempted);
	/* A switch-in with nothing open gives nothing. */
	offcpu_switch_in(&o, 11, 6000);
	ck_assert_uint_eq(g.n, 1);
	offcpu_release(&o);
}
END_TEST

/* A recording's next slice renumbers the ids the open spans hold: each is handed on. */
static void add_100(uint32_t *id, bool is_stack, void *arg)
{
	int *calls = arg;

	*id += is_stack ? 100 : 1000;
	(*calls)++;
}

START_TEST(test_each_open)
{
	struct spans g = {0};
	struct offcpu o;
	int calls = 0;

	offcpu_init(&o, 0, collect, &g);
	offcpu_sample(&o, 10, 11, 1, 1000, 7, 3);
	offcpu_switch_out(&o, 10, 11, 1, 1002, false);
	offcpu_wakeup(&o, 11, 2000, 20, 21, 8, 4);
	offcpu_switch_out(&o, 10, 12, 1, 1500, false); /* no stack yet: nothing to renumber */
	offcpu_each_open(&o, add_100, &calls);
	ck_assert_int_eq(calls, 4);
	offcpu_switch_in(&o, 11, 5000);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.s[0].stack, 107);
	ck_assert_uint_eq(g.s[0].comm, 1003);
	ck_assert_uint_eq(g.s[0].waker_stack, 108);
	ck_assert_uint_eq(g.s[0].waker_comm, 1004);
	offcpu_release(&o);
}
END_TEST

/*
 * Picks (CPU-wide switch-out records): the thread picked ends its span
 * at the switch-out of the thread it replaces where that one is recorded
 * on the same CPU (its sample, taken as the switch begins), else at the
 * record; its own switch-in record then finds nothing open. A pick of a
 * thread with nothing open, or of the idle task, changes nothing; a
 * replaced thread's switch-out on another CPU, or too long before, is
 * not of this switch.
 */
START_TEST(test_picked)
{
	struct spans g = {0};
	struct offcpu o;

	offcpu_init(&o, 0, collect, &g);
	/* 11 sleeps on CPU 1; 12 (recorded) switches out on CPU 1 for it. */
	offcpu_sample(&o, 10, 11, 1, 1000, 7, 3);
	offcpu_switch_out(&o, 10, 11, 1, 1001, false);
	offcpu_sample(&o, 10, 12, 1, 5000, 8, 3);
	offcpu_switch_out(&o, 10, 12, 1, 5020, false);
	offcpu_picked(&o, 12, 11, 1, 5021);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.s[0].tid, 11);
	ck_assert_uint_eq(g.s[0].out, 1000);
	ck_assert_uint_eq(g.s[0].in, 5000);
	offcpu_switch_in(&o, 11, 5030); /* its own record, later */
	ck_assert_uint_eq(g.n, 1);
	/* 12 picked after the idle task: at the record. */
	offcpu_picked(&o, 0, 12, 1, 9000);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.s[1].tid, 12);
	ck_assert_uint_eq(g.s[1].in, 9000);
	/* Nothing open: nothing. */
	offcpu_picked(&o, 0, 12, 1, 9500);
	offcpu_picked(&o, 12, 0, 1, 9600);
	ck_assert_uint_eq(g.n, 2);
	/* The replaced thread's switch-out on another CPU, or 2 ms before: at the record. */
	offcpu_sample(&o, 10, 11, 0, 10000, 7, 3);
	offcpu_switch_out(&o, 10, 11, 0, 10001, false);
	offcpu_sample(&o, 10, 12, 1, 10500, 8, 3);
	offcpu_switch_out(&o, 10, 12, 1, 10501, false);
	offcpu_picked(&o, 12, 11, 0, 10600);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.s[2].in, 10600);
	offcpu_sample(&o, 10, 11, 1, 20000, 7, 3);
	offcpu_switch_out(&o, 10, 11, 1, 20001, false);
	offcpu_picked(&o, 11, 12, 1, 2030000);
	ck_assert_uint_eq(g.n, 4);
	ck_assert_uint_eq(g.s[3].tid, 12);
	ck_assert_uint_eq(g.s[3].in, 2030000);
	ck_assert_uint_eq(o.picked, 4);
	offcpu_release(&o);
}
END_TEST

/*
 * offcpu_tracks: a thread whose stack sample came, or that exited, has
 * switch records that count; another thread (CPU-wide records of every
 * thread) or one whose span ended has none.
 */
START_TEST(test_tracks)
{
	struct spans g = {0};
	struct offcpu o;

	offcpu_init(&o, 0, collect, &g);
	ck_assert(!offcpu_tracks(&o, 11));
	offcpu_sample(&o, 10, 11, 1, 1000, 7, 3);
	ck_assert(offcpu_tracks(&o, 11));
	ck_assert(!offcpu_tracks(&o, 12));
	offcpu_switch_in(&o, 11, 2000);
	ck_assert(!offcpu_tracks(&o, 11));
	ck_assert_uint_eq(g.n, 1);
	offcpu_exit(&o, 13);
	ck_assert(offcpu_tracks(&o, 13));
	offcpu_release(&o);
}
END_TEST

/*
 * Wake-ups: the first one after a sleep's switch-out splits its span;
 * later ones, one before the switch-out, one of a preempted span and one
 * of a thread with nothing open are left out.
 */
START_TEST(test_wakeup)
{
	struct spans g = {0};
	struct offcpu o;

	offcpu_init(&o, 0, collect, &g);
	ck_assert(!offcpu_awaits_wakeup(&o, 11));
	offcpu_wakeup(&o, 11, 900, 20, 21, 8, 4); /* nothing open */
	offcpu_sample(&o, 10, 11, 1, 1000, 7, 3);
	ck_assert(offcpu_awaits_wakeup(&o, 11)); /* its switch-out record still to come */
	offcpu_switch_out(&o, 10, 11, 1, 1000, false);
	ck_assert(offcpu_awaits_wakeup(&o, 11));
	ck_assert(!offcpu_awaits_wakeup(&o, 12));
	offcpu_wakeup(&o, 11, 999, 20, 21, 8, 4); /* before the switch-out */
	offcpu_wakeup(&o, 11, 3000, 20, 22, 9, 5);
	ck_assert(!offcpu_awaits_wakeup(&o, 11));
	offcpu_wakeup(&o, 11, 3500, 30, 31, 1, 1); /* already woken */
	offcpu_switch_in(&o, 11, 4000);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.s[0].wake, 3000);
	ck_assert_uint_eq(g.s[0].waker_pid, 20);
	ck_assert_uint_eq(g.s[0].waker_tid, 22);
	ck_assert_uint_eq(g.s[0].waker_stack, 9);
	ck_assert_uint_eq(g.s[0].waker_comm, 5);
	ck_assert_uint_eq(o.wakeups, 4);
	ck_assert_uint_eq(o.woken, 1);

	/* Preempted: runnable all along, no wake-up of its own. */
	offcpu_sample(&o, 10, 11, 1, 5000, 7, 3);
	offcpu_switch_out(&o, 10, 11, 1, 5000, true);
	ck_assert(!offcpu_awaits_wakeup(&o, 11));
	offcpu_wakeup(&o, 11, 5500, 20, 21, 8, 4);
	offcpu_switch_in(&o, 11, 6000);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.s[1].wake, 0);
	ck_assert(g.s[1].preempted);

	/*
	 * Woken from another CPU between the sample and the switch-out
	 * record (the sample's stack still being copied): it counts.
	 */
	offcpu_sample(&o, 10, 11, 1, 6100, 7, 3);
	offcpu_wakeup(&o, 11, 6150, 20, 23, 8, 4);
	ck_assert(!offcpu_awaits_wakeup(&o, 11));
	offcpu_switch_out(&o, 10, 11, 1, 6200, false);
	offcpu_switch_in(&o, 11, 6500);
	ck_assert_uint_eq(g.n, 3);
	ck_assert_uint_eq(g.s[2].wake, 6150);
	ck_assert_uint_eq(g.s[2].waker_tid, 23);
	ck_assert_uint_eq(g.s[2].out, 6100);
	/* Unless the record says it was preempted: runnable all along. */
	offcpu_sample(&o, 10, 11, 1, 6600, 7, 3);
	offcpu_wakeup(&o, 11, 6650, 20, 23, 8, 4);
	offcpu_switch_out(&o, 10, 11, 1, 6700, true);
	ck_assert(!offcpu_awaits_wakeup(&o, 11));
	offcpu_switch_in(&o, 11, 6900);
	ck_assert_uint_eq(g.n, 4);
	ck_assert_uint_eq(g.s[3].wake, 0);
	ck_assert_uint_eq(o.woken, 2);

	/* A sleep never woken (its waker not recorded): no wake-up. */
	offcpu_sample(&o, 10, 11, 1, 7000, 7, 3);
	offcpu_switch_out(&o, 10, 11, 1, 7000, false);
	offcpu_switch_in(&o, 11, 8000);
	ck_assert_uint_eq(g.n, 5);
	ck_assert_uint_eq(g.s[4].wake, 0);
	offcpu_release(&o);
}
END_TEST

/* Two threads interleaved, one preempted; the record before the sample. */
START_TEST(test_two_threads)
{
	struct spans g = {0};
	struct offcpu o;

	offcpu_init(&o, 0, collect, &g);
	offcpu_sample(&o, 1, 2, 0, 100, 1, 0);
	offcpu_switch_out(&o, 1, 2, 0, 100, false);
	offcpu_switch_out(&o, 1, 3, 1, 150, true);
	offcpu_sample(&o, 1, 3, 1, 151, 2, 0);
	offcpu_switch_in(&o, 3, 400);
	offcpu_switch_in(&o, 2, 900);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.s[0].tid, 3);
	ck_assert_uint_eq(g.s[0].out, 150);
	ck_assert_uint_eq(g.s[0].in, 400);
	ck_assert_uint_eq(g.s[0].stack, 2);
	ck_assert(g.s[0].preempted);
	ck_assert_uint_eq(g.s[1].tid, 2);
	ck_assert_uint_eq(g.s[1].in - g.s[1].out, 800);
	ck_assert(!g.s[1].preempted);
	offcpu_release(&o);
}
END_TEST

/* What gives no span: short, stackless, idle, exited; a lost switch-in. */
START_TEST(test_left_out)
{
	struct spans g = {0};
	struct offcpu o;

	offcpu_init(&o, 500, collect, &g);
	offcpu_sample(&o, 1, 2, 0, 100, 1, 0);
	offcpu_switch_in(&o, 2, 599); /* 499 ns: below the threshold */
	ck_assert_uint_eq(o.too_short, 1);
	offcpu_switch_out(&o, 1, 2, 0, 1000, false);
	offcpu_switch_in(&o, 2, 9000); /* no context-switch sample: no stack */
	ck_assert_uint_eq(o.no_stack, 1);
	offcpu_sample(&o, 0, 0, 0, 100, 1, 0); /* the idle task */
	offcpu_switch_out(&o, 0, 0, 0, 100, false);
	offcpu_switch_in(&o, 0, 9000);
	/*
	 * Exit, then the thread's last switch-out: nothing stays open, and
	 * once both its sample and its record are seen the tid is forgotten
	 * (one entry per thread ever exited would grow without bound).
	 */
	offcpu_exit(&o, 5);
	offcpu_exit(&o, 7);
	offcpu_sample(&o, 4, 5, 0, 2000, 1, 0);
	ck_assert_uint_eq(o.exited.count, 2);
	offcpu_switch_out(&o, 4, 5, 0, 2000, false);
	ck_assert_uint_eq(o.exited.count, 1);
	offcpu_switch_out(&o, 4, 7, 0, 2000, false);
	offcpu_sample(&o, 4, 7, 0, 2001, 1, 0);
	ck_assert_uint_eq(o.exited.count, 0);
	ck_assert_uint_eq(o.open.count, 0);
	/* A switch-in lost: the next switch-out starts afresh. */
	offcpu_sample(&o, 1, 6, 0, 3000, 1, 0);
	offcpu_switch_out(&o, 1, 6, 0, 3000, false);
	offcpu_sample(&o, 1, 6, 0, 8000, 9, 0);
	offcpu_switch_out(&o, 1, 6, 0, 8000, true);
	offcpu_switch_in(&o, 6, 8600);
	ck_assert_uint_eq(g.n, 1);
	ck_assert_uint_eq(g.s[0].out, 8000);
	ck_assert_uint_eq(g.s[0].stack, 9);
	ck_assert(g.s[0].preempted);
	offcpu_finish(&o, 100000);
	ck_assert_uint_eq(g.n, 1);
	offcpu_release(&o);
}
END_TEST

/* Spans open at the stop end there; a reused tid pairs again. */
START_TEST(test_finish)
{
	struct spans g = {0};
	struct offcpu o;

	offcpu_init(&o, 0, collect, &g);
	offcpu_exit(&o, 8);
	offcpu_switch_in(&o, 8, 50); /* a new thread with the old tid */
	offcpu_sample(&o, 8, 8, 0, 100, 4, 0);
	offcpu_switch_out(&o, 8, 8, 0, 100, false);
	offcpu_sample(&o, 8, 9, 0, 200, 5, 0);
	offcpu_finish(&o, 1000);
	ck_assert_uint_eq(g.n, 2);
	ck_assert_uint_eq(g.s[0].in + g.s[1].in, 2000);
	ck_assert_uint_eq(g.s[0].in - g.s[0].out + g.s[1].in - g.s[1].out, 900 + 800);
	/* Nothing left open. */
	offcpu_finish(&o, 2000);
	ck_assert_uint_eq(g.n, 2);
	offcpu_release(&o);
}
END_TEST

static Suite *offcpu_suite(void)
{
	Suite *s = suite_create("offcpu");
	TCase *tc = tcase_create("pairing");

	tcase_add_test(tc, test_pair);
	tcase_add_test(tc, test_each_open);
	tcase_add_test(tc, test_two_threads);
	tcase_add_test(tc, test_left_out);
	tcase_add_test(tc, test_finish);
	tcase_add_test(tc, test_wakeup);
	tcase_add_test(tc, test_picked);
	tcase_add_test(tc, test_tracks);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(offcpu_suite());
}
